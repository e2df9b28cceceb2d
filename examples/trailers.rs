//! Response trailers: fields a server sends after the body, such as a checksum it could
//! only compute once the body was out, or gRPC-web's status. Against a server of its own
//! on 127.0.0.1.
//!
//! ```text
//! cargo run -p examples --example trailers
//! ```
//!
//! The server streams a body in chunks (HTTP/1.1 chunked encoding) and ends it with two
//! trailer fields: `x-content-sha256`, the SHA-256 of what it sent, and `grpc-status`. The
//! client reads the body, then `Response::trailers()`, and checks the body against the
//! checksum.

use sha2::{Digest, Sha256};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use whatwg_fetch::Client;

/// The body's chunks, as the server produces them.
const CHUNKS: [&str; 3] = ["first part, ", "second part, ", "last part"];

/// Answers one request on `stream`: the body in chunks, then its trailer fields.
async fn serve(mut stream: TcpStream) -> std::io::Result<()> {
    // The request's head (a GET has no body).
    let mut head = Vec::new();
    while !head.ends_with(b"\r\n\r\n") {
        let mut byte = [0; 1];
        if stream.read(&mut byte).await? == 0 {
            return Ok(());
        }
        head.extend_from_slice(&byte);
    }
    stream
        .write_all(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nTrailer: x-content-sha256, grpc-status\r\n\r\n")
        .await?;
    let mut sha = Sha256::new();
    for chunk in CHUNKS {
        sha.update(chunk.as_bytes());
        let framed = format!("{:x}\r\n{chunk}\r\n", chunk.len());
        stream.write_all(framed.as_bytes()).await?;
    }
    let sum: String = sha.finalize().iter().map(|b| format!("{b:02x}")).collect();
    let end = format!("0\r\nx-content-sha256: {sum}\r\ngrpc-status: 0\r\n\r\n");
    stream.write_all(end.as_bytes()).await
}

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/report", listener.local_addr()?);
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(serve(stream));
        }
    });

    let mut response = Client::new().get(&url).send().await?;
    println!("{} {url}", response.status());
    let body = response.bytes().await?;
    println!(
        "body: {:?} ({} bytes)",
        String::from_utf8_lossy(&body),
        body.len()
    );
    // After the body: the fields that came after it (`None` for a body that had none).
    let trailers = response.trailers().await?.ok_or("no trailers")?;
    for (name, value) in &trailers {
        println!("trailer {name}: {}", value.to_str()?);
    }
    let sum: String = Sha256::digest(&body)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect();
    let sent = trailers
        .get("x-content-sha256")
        .ok_or("no checksum")?
        .to_str()?;
    match sent == sum {
        true => println!("the body matches the checksum sent after it"),
        false => println!("the body does NOT match the checksum sent after it"),
    }
    Ok(())
}
