//! Uploads that ask first: `Expect: 100-continue`, against a server of its own on 127.0.0.1.
//!
//! ```text
//! cargo run -p examples --example expect_continue
//! ```
//!
//! The server takes uploads of at most 1 MiB: it answers a larger one's head with `413`
//! at once, and a smaller one's with `100 Continue`, then reads the body. The client PUTs
//! 8 MiB and then 512 KiB with `expect_continue(Some(1 s))`, and prints what each cost:
//! the status, and how many body bytes the server received.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use whatwg_fetch::Client;

const LIMIT: usize = 1 << 20;

/// One connection: each request's head, then its body if it is small enough.
async fn serve(mut stream: TcpStream, received: Arc<AtomicUsize>) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = vec![0; 64 * 1024];
    loop {
        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&chunk[..n]);
            continue;
        };
        let head = String::from_utf8_lossy(&buf[..end]).to_ascii_lowercase();
        buf.drain(..end + 4);
        let length: usize = head
            .lines()
            .find_map(|line| line.strip_prefix("content-length:"))
            .and_then(|value| value.trim().parse().ok())
            .unwrap_or(0);
        if length > LIMIT {
            // Refused on its head: the body is not wanted, and the connection closes.
            let answer =
                b"HTTP/1.1 413 Content Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
            stream.write_all(answer).await?;
            received.fetch_add(buf.len(), Ordering::Relaxed);
            return Ok(());
        }
        if head.contains("expect: 100-continue") {
            stream.write_all(b"HTTP/1.1 100 Continue\r\n\r\n").await?;
        }
        while buf.len() < length {
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&chunk[..n]);
        }
        received.fetch_add(length, Ordering::Relaxed);
        buf.drain(..length);
        stream.write_all(b"HTTP/1.1 204 No Content\r\n\r\n").await?;
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/upload", listener.local_addr()?);
    let received = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&received);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve(stream, Arc::clone(&counted)));
        }
    });

    let client = Client::builder()
        .expect_continue(Some(Duration::from_secs(1)))
        .build()?;
    for size in [8 << 20, 512 << 10] {
        received.store(0, Ordering::Relaxed);
        let response = client.put(&url).body(vec![0u8; size]).send().await?;
        // The server counts what it read before it answered.
        tokio::time::sleep(Duration::from_millis(50)).await;
        println!(
            "PUT {} KiB: {} {}, {} body bytes reached the server",
            size / 1024,
            response.status(),
            response.status_text(),
            received.load(Ordering::Relaxed)
        );
    }
    Ok(())
}
