//! A WebSocket echo client: send a few messages, print what comes back, close.
//!
//! ```sh
//! cargo run -p examples --example websocket -- wss://echo.example.com/   # any echo server
//! cargo run -p examples --example websocket                              # a local ws:// echo server
//! ```
//!
//! Without a URL it starts an echo server on 127.0.0.1, so the whole path runs: the
//! opening handshake through the client's fetch (`permessage-deflate` offered, and
//! declined by this server), messages both ways, the closing handshake. (`wss://` is the
//! same over TLS; the crate's tests run it against a server with a certificate of their
//! own.)

use futures_util::StreamExt;
use whatwg_fetch::Client;
use whatwg_fetch::websocket::{CloseCode, Message};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let url = match std::env::args().nth(1) {
        Some(url) => url,
        None => demo_server()?,
    };
    let client = Client::new();
    let mut socket = client.websocket(&url).connect().await?;
    println!(
        "connected to {} (subprotocol {:?}, extensions {:?})",
        socket.url(),
        socket.protocol(),
        socket.extensions()
    );
    for text in ["hello", "héllo wörld", "bye"] {
        socket.send(text).await?;
        // Pings the server sends are answered by the connection and yielded too.
        while let Some(message) = socket.next().await {
            match message? {
                Message::Text(echo) => {
                    println!("echo: {echo}");
                    break;
                }
                Message::Binary(data) => println!("binary: {} bytes", data.len()),
                Message::Close(frame) => {
                    println!("the server closed: {frame:?}");
                    return Ok(());
                }
                _ => {}
            }
        }
    }
    let answer = socket.close(CloseCode::NORMAL, "done").await?;
    println!("closed; the server answered {answer:?}");
    Ok(())
}

/// An echo server on 127.0.0.1 speaking `ws://`, on a thread of its own: the opening
/// handshake by hand (RFC 6455 §4.2.2), then tungstenite's server side of the protocol,
/// which answers pings and the closing handshake. Gives its URL.
fn demo_server() -> std::io::Result<String> {
    use std::io::{BufRead, BufReader, Write};
    use tungstenite::protocol::{Role, WebSocket};

    let listener = std::net::TcpListener::bind("127.0.0.1:0")?;
    let port = listener.local_addr()?.port();
    std::thread::spawn(move || {
        for stream in listener.incoming().flatten() {
            std::thread::spawn(move || {
                let mut reader = BufReader::new(&stream);
                let mut key = None;
                let mut line = String::new();
                while reader.read_line(&mut line).is_ok_and(|read| read > 2) {
                    if let Some((name, value)) = line.split_once(':') {
                        if name.eq_ignore_ascii_case("sec-websocket-key") {
                            key = Some(value.trim().to_owned());
                        }
                    }
                    line.clear();
                }
                let Some(key) = key else { return };
                let mut stream = reader.into_inner();
                let answer = format!(
                    "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n\
                     Connection: Upgrade\r\nSec-WebSocket-Accept: {}\r\n\r\n",
                    accept_key(&key)
                );
                if stream.write_all(answer.as_bytes()).is_err() {
                    return;
                }
                let mut socket = WebSocket::from_raw_socket(stream, Role::Server, None);
                // Text and binary messages go back until the client closes.
                while let Ok(message) = socket.read() {
                    if (message.is_text() || message.is_binary()) && socket.send(message).is_err() {
                        break;
                    }
                }
            });
        }
    });
    Ok(format!("ws://127.0.0.1:{port}/echo"))
}

/// `Sec-WebSocket-Accept` for `key`: base64 of the SHA-1 of the key and RFC 6455's GUID.
fn accept_key(key: &str) -> String {
    use sha1::{Digest, Sha1};
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let digest = Sha1::digest(format!("{key}258EAFA5-E914-47DA-95CA-C5AB0DC85B11"));
    let mut encoded = String::new();
    for chunk in digest.chunks(3) {
        let bits = chunk
            .iter()
            .fold(0u32, |bits, byte| bits << 8 | u32::from(*byte))
            << (8 * (3 - chunk.len()));
        for index in 0..=chunk.len() {
            encoded.push(char::from(
                ALPHABET[(bits >> (18 - 6 * index) & 63) as usize],
            ));
        }
    }
    while encoded.len() % 4 != 0 {
        encoded.push('=');
    }
    encoded
}
