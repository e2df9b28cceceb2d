//! Peers that accept and never answer.
//!
//! The default client gives up on a response head, or on a body, after 300 seconds
//! without a byte (undici's `headersTimeout` and `bodyTimeout`). The tests make the
//! connection in real time, then pause Tokio's clock, which then jumps to the next timer
//! whenever the runtime has nothing to do: the 300 seconds pass at once.

use std::time::Duration;

use tokio::io::AsyncWriteExt;
use tokio::time::Instant;
use whatwg_fetch::{Client, ErrorKind, NetworkError, RequestInit, TimeoutKind};

use crate::net_support::{Server, raw_server, read_head};

const OK: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";

/// What a server does with the second request on each connection, after answering the
/// first.
#[derive(Clone, Copy)]
enum Second {
    /// Reads it and never answers.
    Silence,
    /// Sends the head and half the body, then nothing more.
    Stall,
    /// Answers it after 400 seconds.
    Late,
}

async fn server(second: Second) -> Server {
    raw_server(move |mut stream| async move {
        if read_head(&mut stream).await.is_none() || stream.write_all(OK).await.is_err() {
            return;
        }
        if read_head(&mut stream).await.is_none() {
            return;
        }
        match second {
            Second::Silence => {}
            Second::Stall => {
                let head = b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhello";
                if stream.write_all(head).await.is_err() {
                    return;
                }
            }
            Second::Late => {
                tokio::time::sleep(Duration::from_secs(400)).await;
                let _ = stream.write_all(OK).await;
            }
        }
        // Holds the connection open until the client closes it.
        let _ = read_head(&mut stream).await;
    })
    .await
}

/// Fetches `url` in real time and reads the body: the connection the paused part reuses.
async fn first_request(client: &Client, url: &str) {
    let test = async {
        let mut response = client.fetch(url, RequestInit::default()).await.unwrap();
        assert_eq!(response.text().await.unwrap(), "ok");
    };
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .unwrap();
}

/// With the clock running again, the client still fetches (on a new connection).
async fn next_request_works(client: &Client, server: &Server) {
    tokio::time::resume();
    first_request(client, &server.url("/")).await;
}

fn assert_idle_timeout(error: &whatwg_fetch::Error) {
    assert_eq!(error.kind(), ErrorKind::TypeError, "{error:?}");
    assert!(
        matches!(
            error.network_error(),
            Some(NetworkError::Timeout {
                kind: TimeoutKind::Idle,
                ..
            })
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_peer_that_never_answers_fails_after_300_seconds_with_the_default_client() {
    let server = server(Second::Silence).await;
    let client = Client::builder().build().unwrap();
    first_request(&client, &server.url("/")).await;
    tokio::time::pause();
    let start = Instant::now();
    // The bound is in paused time too, and longer than the read timeout.
    let error = tokio::time::timeout(
        Duration::from_secs(1000),
        client.fetch(server.url("/"), RequestInit::default()),
    )
    .await
    .unwrap()
    .unwrap_err();
    assert_idle_timeout(&error);
    assert!(
        start.elapsed() >= Duration::from_secs(300),
        "{:?}",
        start.elapsed()
    );
    assert!(
        start.elapsed() < Duration::from_secs(301),
        "{:?}",
        start.elapsed()
    );
    next_request_works(&client, &server).await;
}

#[tokio::test]
async fn a_body_that_stalls_midway_fails_after_300_seconds_with_the_default_client() {
    let server = server(Second::Stall).await;
    let client = Client::builder().build().unwrap();
    first_request(&client, &server.url("/")).await;
    let mut response = tokio::time::timeout(
        Duration::from_secs(10),
        client.fetch(server.url("/"), RequestInit::default()),
    )
    .await
    .unwrap()
    .unwrap();
    tokio::time::pause();
    let start = Instant::now();
    let error = tokio::time::timeout(Duration::from_secs(1000), response.text())
        .await
        .unwrap()
        .unwrap_err();
    assert_idle_timeout(&error);
    assert!(
        start.elapsed() < Duration::from_secs(301),
        "{:?}",
        start.elapsed()
    );
    next_request_works(&client, &server).await;
}

#[tokio::test]
async fn with_no_read_timeout_a_slow_peer_is_waited_for() {
    let server = server(Second::Late).await;
    let client = Client::builder().read_timeout(None).build().unwrap();
    first_request(&client, &server.url("/")).await;
    tokio::time::pause();
    let start = Instant::now();
    let mut response = tokio::time::timeout(
        Duration::from_secs(1000),
        client.fetch(server.url("/"), RequestInit::default()),
    )
    .await
    .unwrap()
    .unwrap();
    assert_eq!(response.text().await.unwrap(), "ok");
    assert!(
        start.elapsed() >= Duration::from_secs(400),
        "{:?}",
        start.elapsed()
    );
    next_request_works(&client, &server).await;
}
