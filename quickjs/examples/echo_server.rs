//! A WebSocket echo server for `demo.js`: every text and binary message comes back as it
//! went, and a Close is answered with the same code and reason.
//!
//! `cargo run -p whatwg-fetch-quickjs --example echo_server -- [ADDRESS]` (default
//! `127.0.0.1:8001`); it serves until stopped.
use futures_util::{StreamExt, TryStreamExt};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let address = std::env::args()
        .nth(1)
        .unwrap_or_else(|| "127.0.0.1:8001".to_owned());
    let listener = tokio::net::TcpListener::bind(&address).await?;
    println!("WebSocket echo server on ws://{}/", listener.local_addr()?);
    loop {
        let (tcp, _) = listener.accept().await?;
        tokio::spawn(async move {
            let Ok(socket) = tokio_tungstenite::accept_async(tcp).await else {
                return;
            };
            let (write, read) = socket.split();
            // Pings are answered and Close echoed by the server itself.
            let messages = read.try_filter(|m| std::future::ready(m.is_text() || m.is_binary()));
            let _ = messages.forward(write).await;
        });
    }
}
