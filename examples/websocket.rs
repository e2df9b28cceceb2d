//! A WebSocket echo client over TLS: send a few messages, print what comes back, close.
//!
//! ```sh
//! cargo run --example websocket -- wss://echo.example.com/   # any echo server
//! cargo run --example websocket                              # a local wss:// echo server
//! ```
//!
//! Without a URL it starts an echo server on 127.0.0.1 with a certificate made for the
//! run (its authority trusted by the client, as a private CA would be), so the whole
//! path runs: the TLS handshake, the opening handshake through the client's fetch,
//! `permessage-deflate` offered, messages both ways, the closing handshake.

use std::sync::Arc;

use futures_util::StreamExt;
use tokio::net::TcpListener;
use whatwg_fetch::Client;
use whatwg_fetch::websocket::{CloseCode, Message};

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (url, client) = match std::env::args().nth(1) {
        Some(url) => (url, Client::new()),
        None => {
            let (url, ca_der) = demo_server().await?;
            let client = Client::builder().add_root_certificate_der(ca_der).build()?;
            (url, client)
        }
    };
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

/// An echo server on 127.0.0.1 speaking `wss://` with a certificate for `localhost`
/// signed by a CA made for the run. Gives its URL and the CA's certificate.
async fn demo_server() -> Result<(String, Vec<u8>), Box<dyn std::error::Error>> {
    use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
    let mut ca_params = CertificateParams::new(Vec::<String>::new())?;
    ca_params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    let ca_key = KeyPair::generate()?;
    let ca_cert = ca_params.self_signed(&ca_key)?;
    let issuer = Issuer::new(ca_params, ca_key);
    let key = KeyPair::generate()?;
    let cert = CertificateParams::new(vec!["localhost".to_owned()])?.signed_by(&key, &issuer)?;

    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()?
        .with_no_client_auth()
        .with_single_cert(
            vec![cert.der().clone()],
            rustls_pki_types::PrivateKeyDer::Pkcs8(key.serialize_der().into()),
        )?;
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));

    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let port = listener.local_addr()?.port();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let Ok(ws) = tokio_tungstenite::accept_async(tls).await else {
                    return;
                };
                let (write, read) = ws.split();
                // Text and binary messages go back; tungstenite answers pings and Closes.
                let echoed = read.filter(|message| {
                    std::future::ready(message.as_ref().is_ok_and(|m| m.is_text() || m.is_binary()))
                });
                let _ = echoed.forward(write).await;
            });
        }
    });
    Ok((
        format!("wss://localhost:{port}/echo"),
        ca_cert.der().to_vec(),
    ))
}
