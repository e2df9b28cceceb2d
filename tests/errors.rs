//! What a failed fetch says: its `Display` names the URL and what failed, `{:#}` says why
//! too, and the cause chain stays on `source()`.

mod net_support;

use std::time::Duration;

use net_support::*;
use whatwg_fetch::{Client, ErrorKind, NetworkError, RequestInit};

async fn fetch_error(client: &Client, url: &str) -> whatwg_fetch::Error {
    tokio::time::timeout(
        Duration::from_secs(20),
        client.fetch(url, RequestInit::default()),
    )
    .await
    .expect("the fetch ends")
    .expect_err("the fetch fails")
}

/// A port on 127.0.0.1 that refuses connections: one a listener had and let go.
async fn refused_port() -> u16 {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap().port()
}

#[tokio::test]
async fn a_refused_connection_says_which_url_and_why() {
    let port = refused_port().await;
    let url = format!("http://127.0.0.1:{port}/path");
    let error = fetch_error(&Client::builder().build().unwrap(), &url).await;
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert!(matches!(
        error.network_error(),
        Some(NetworkError::Connect(_))
    ));
    assert_eq!(error.url(), Some(url.as_str()));
    // `{}` says what failed; `{:#}` the whole chain, with why.
    assert_eq!(
        error.to_string(),
        format!("TypeError: network error for {url}: connect failed")
    );
    let message = format!("{error:#}");
    assert!(
        message.starts_with(&format!("TypeError: network error for {url}: connect to ")),
        "{message}"
    );
    assert!(message.contains("refused"), "{message}");
    // The cause is there as a value too.
    let source = std::error::Error::source(&error).unwrap();
    assert!(
        source
            .downcast_ref::<whatwg_fetch::net::ConnectError>()
            .is_some()
    );
}

#[tokio::test]
async fn a_network_error_after_a_redirect_names_the_url_that_failed() {
    let port = refused_port().await;
    let target = format!("http://127.0.0.1:{port}/gone");
    let location = target.clone();
    let server = hyper_server(move |_req| {
        let location = location.clone();
        async move {
            http::Response::builder()
                .status(302)
                .header("location", location)
                .body(full(""))
                .unwrap()
        }
    })
    .await;
    let error = fetch_error(&Client::builder().build().unwrap(), &server.url("/start")).await;
    assert_eq!(error.url(), Some(target.as_str()));
    assert!(error.to_string().contains(&target), "{error}");
}

#[tokio::test]
async fn a_protocol_error_says_what_the_peer_did() {
    let server = raw_server(|mut stream| async move {
        use tokio::io::AsyncWriteExt;
        let _ = read_head(&mut stream).await;
        let _ = stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc")
            .await;
    })
    .await;
    let client = Client::builder().build().unwrap();
    let mut response = client
        .fetch(server.url("/").as_str(), RequestInit::default())
        .await
        .unwrap();
    let error = tokio::time::timeout(Duration::from_secs(20), response.text())
        .await
        .unwrap()
        .unwrap_err();
    let message = error.to_string();
    // What the body's failure was, not only that there was one.
    assert!(
        message.starts_with("TypeError: ") && message.contains("Content-Length"),
        "{message}"
    );
}

#[test]
fn errors_without_a_network_cause_read_as_before() {
    let error = whatwg_fetch::Error::range_error("status 600 is outside 200-599");
    assert_eq!(
        error.to_string(),
        "RangeError: status 600 is outside 200-599"
    );
    assert_eq!(error.url(), None);
}

#[tokio::test]
async fn a_timeout_says_which_one_and_how_long() {
    // A server that accepts and never answers.
    let server = raw_server(|mut stream| async move {
        let _ = read_head(&mut stream).await;
        std::future::pending::<()>().await;
    })
    .await;
    let url = server.url("/slow");
    let idle = Client::builder()
        .read_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let error = fetch_error(&idle, &url).await;
    assert!(matches!(
        error.network_error(),
        Some(NetworkError::Timeout {
            kind: whatwg_fetch::TimeoutKind::Idle,
            after,
        }) if *after == Duration::from_millis(200)
    ));
    assert_eq!(
        error.to_string(),
        format!(
            "TypeError: network error for {url}: idle timeout of 200ms elapsed with no byte \
             from the server (read_timeout)"
        )
    );
    let total = Client::builder()
        .timeout(Duration::from_millis(300))
        .build()
        .unwrap();
    let error = fetch_error(&total, &url).await;
    assert_eq!(
        error.to_string(),
        format!(
            "TypeError: network error for {url}: total timeout of 300ms elapsed for the whole \
             fetch (timeout)"
        )
    );
}
