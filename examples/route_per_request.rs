//! A proxy and a name resolution of one request's own, against servers of its own on
//! 127.0.0.1.
//!
//! ```text
//! cargo run -p examples --example route_per_request
//! ```
//!
//! Two servers answer with what they were asked and on which of their connections: an
//! origin, and a proxy that answers absolute-form requests itself. One client, with a
//! proxy of its own for every request, sends requests that choose their own way:
//! `resolve` sends a name that has no address to the origin, `no_proxy` goes past the
//! client's proxy, `proxy` goes through another one. The pool keeps each route's
//! connections apart, and reuses them for requests on the same route.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use whatwg_fetch::Client;
use whatwg_fetch::net::Proxy;

/// A server named `name`: each response says the request line, the `Host` header and the
/// number of the connection it came on.
async fn start(name: &'static str) -> std::io::Result<std::net::SocketAddr> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let addr = listener.local_addr()?;
    let connections = Arc::new(AtomicUsize::new(0));
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            let number = connections.fetch_add(1, Ordering::Relaxed) + 1;
            tokio::spawn(serve(stream, name, number));
        }
    });
    Ok(addr)
}

/// One connection's requests (heads only: these requests have no body).
async fn serve(mut stream: TcpStream, name: &str, number: usize) -> std::io::Result<()> {
    let mut buf = Vec::new();
    let mut chunk = [0; 4096];
    loop {
        let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") else {
            let n = stream.read(&mut chunk).await?;
            if n == 0 {
                return Ok(());
            }
            buf.extend_from_slice(&chunk[..n]);
            continue;
        };
        let head = String::from_utf8_lossy(&buf[..end]).into_owned();
        buf.drain(..end + 4);
        let line = head.lines().next().unwrap_or_default();
        let host = head
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("host").then(|| value.trim())
            })
            .unwrap_or_default();
        let body = format!("{name} got `{line}` (Host: {host}) on its connection #{number}");
        let answer = format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{body}",
            body.len()
        );
        stream.write_all(answer.as_bytes()).await?;
    }
}

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let origin = start("origin").await?;
    let client_proxy = start("the client's proxy").await?;
    let own_proxy = start("a request's own proxy").await?;

    let client = Client::builder()
        .proxy(Proxy::http(&format!("http://{client_proxy}"))?)
        .build()?;
    let url = format!("http://{origin}/");
    let named = format!("http://api.example:{}/", origin.port());

    let steps = [
        ("client's proxy", client.get(&url)),
        ("no_proxy()", client.get(&url).no_proxy()),
        ("no_proxy() again", client.get(&url).no_proxy()),
        (
            "proxy(own)",
            client
                .get(&url)
                .proxy(Proxy::http(&format!("http://{own_proxy}"))?),
        ),
        (
            "resolve(api.example)",
            client.get(&named).no_proxy().resolve("api.example", origin),
        ),
        ("client's proxy again", client.get(&url)),
    ];
    for (route, request) in steps {
        let body = request.send().await?.text().await?;
        println!("{route:>21}: {body}");
    }
    if let Some(stats) = client.pool_stats() {
        println!(
            "{} connections opened, one per route",
            stats.connections_opened
        );
    }
    Ok(())
}
