//! Server-sent events with `EventSource`: print the events of a stream, reconnecting with
//! `Last-Event-ID` when it drops.
//!
//! ```sh
//! cargo run -p examples --example event_source -- https://example.com/events   # any event stream
//! cargo run -p examples --example event_source                                 # a local demo server
//! ```
//!
//! Without a URL it starts a server on 127.0.0.1 that sends three numbered events and
//! closes the stream, then resumes from the `Last-Event-ID` the client sends; the example
//! stops after six events, having reconnected once.

use std::time::Duration;

use futures_util::StreamExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use whatwg_fetch::Client;
use whatwg_fetch::event_source::Event;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let (url, limit) = match std::env::args().nth(1) {
        Some(url) => (url, usize::MAX),
        None => (demo_server().await?, 6),
    };
    let client = Client::new();
    let mut source = client.event_source(&url, Default::default())?;
    let mut messages = 0;
    while let Some(event) = source.next().await {
        match event? {
            Event::Open => println!("open: {}", source.url()),
            Event::Message(message) => {
                println!(
                    "{} (id {:?}): {}",
                    message.r#type(),
                    message.last_event_id(),
                    message.data()
                );
                messages += 1;
                if messages == limit {
                    source.close();
                }
            }
            Event::Reconnecting { after, cause } => match cause {
                Some(cause) => println!("reconnecting in {after:?}: {cause}"),
                None => println!("the stream ended; reconnecting in {after:?}"),
            },
            _ => {}
        }
    }
    Ok(())
}

/// A server that sends three events a connection, numbered on from the request's
/// `Last-Event-ID`, then closes the stream.
async fn demo_server() -> std::io::Result<String> {
    let listener = TcpListener::bind("127.0.0.1:0").await?;
    let url = format!("http://{}/events", listener.local_addr()?);
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut head = vec![0; 4096];
            let Ok(n) = stream.read(&mut head).await else {
                continue;
            };
            let head = String::from_utf8_lossy(&head[..n]).to_ascii_lowercase();
            let from: u32 = head
                .lines()
                .find_map(|line| line.strip_prefix("last-event-id: "))
                .and_then(|id| id.trim().parse().ok())
                .unwrap_or(0);
            let mut response = String::from(
                "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\nretry: 500\n",
            );
            for id in from + 1..=from + 3 {
                response.push_str(&format!("id: {id}\ndata: event number {id}\n\n"));
            }
            let _ = stream.write_all(response.as_bytes()).await;
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    });
    Ok(url)
}
