//! The connections' protocol settings: HTTP/1.1's response head limits, and HTTP/1.1
//! only (HTTP/2's settings are in `net_http2.rs`).

mod net_support;

use std::time::Duration;

use net_support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use whatwg_fetch::net::HyperTransport;
use whatwg_fetch::{Client, NetworkError, RequestInit};

/// Bounds every test: none of them should come near it.
const LIMIT: Duration = Duration::from_secs(20);

/// A raw HTTP/1.1 server whose every response has a head of the size the request's path
/// names, in fields of 8 KiB (and `count` small fields when the path is `/count/N`).
async fn http1_server_with_heads() -> Server {
    raw_server(|mut stream| async move {
        let Some(head) = read_head(&mut stream).await else {
            return;
        };
        let path = head.split(' ').nth(1).unwrap_or("/").to_owned();
        let mut response = String::from("HTTP/1.1 200 OK\r\ncontent-length: 2\r\n");
        if let Some(count) = path.strip_prefix("/count/") {
            for index in 0..count.parse().unwrap_or(0) {
                response.push_str(&format!("x-field-{index}: v\r\n"));
            }
        } else {
            let size: usize = path.trim_start_matches('/').parse().unwrap_or(0);
            let value = "v".repeat(8 * 1024);
            for index in 0..size.div_ceil(value.len()) {
                response.push_str(&format!("x-large-{index}: {value}\r\n"));
            }
        }
        response.push_str("\r\nok");
        let _ = stream.write_all(response.as_bytes()).await;
        let mut rest = Vec::new();
        let _ = stream.read_to_end(&mut rest).await;
    })
    .await
}

#[tokio::test]
async fn an_http1_response_head_over_256_kib_is_a_clear_error_below_it_is_accepted() {
    let server = http1_server_with_heads().await;
    let transport = HyperTransport::builder().build().unwrap();
    let status = send_status(&transport, &server.url(&format!("/{}", 200 * 1024))).await;
    assert_eq!(status.unwrap(), 200);
    let error = send_status(&transport, &server.url(&format!("/{}", 300 * 1024)))
        .await
        .unwrap_err();
    assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}");
    let message = std::error::Error::source(&error).unwrap().to_string();
    assert!(
        message.contains("262144") && message.contains("http1_max_header_size"),
        "{message}"
    );
    let status = send_status(&transport, &server.url("/1024")).await;
    assert_eq!(status.unwrap(), 200);
}

#[tokio::test]
async fn the_http1_head_limits_can_be_set() {
    let server = http1_server_with_heads().await;
    let small = HyperTransport::builder()
        .http1_max_header_size(16 * 1024)
        .build()
        .unwrap();
    assert!(matches!(
        send_status(&small, &server.url(&format!("/{}", 24 * 1024))).await,
        Err(NetworkError::Protocol(_))
    ));
    // 250 fields, as a server echoing a browser's request may send: more than hyper's
    // 100, within the default.
    let default = HyperTransport::builder().build().unwrap();
    assert_eq!(
        send_status(&default, &server.url("/count/250"))
            .await
            .unwrap(),
        200
    );
    // More than a lowered count, within a raised one.
    let lowered = HyperTransport::builder()
        .http1_max_headers(100)
        .build()
        .unwrap();
    let error = send_status(&lowered, &server.url("/count/150"))
        .await
        .unwrap_err();
    let message = std::error::Error::source(&error).unwrap().to_string();
    assert!(message.contains("http1_max_headers"), "{message}");
    let error = send_status(&default, &server.url("/count/2100"))
        .await
        .unwrap_err();
    let message = std::error::Error::source(&error).unwrap().to_string();
    assert!(message.contains("http1_max_headers"), "{message}");
    let raised = HyperTransport::builder()
        .http1_max_headers(2200)
        .build()
        .unwrap();
    assert_eq!(
        send_status(&raised, &server.url("/count/2100"))
            .await
            .unwrap(),
        200
    );
}

#[tokio::test]
async fn http1_only_does_not_offer_h2_to_a_server_that_prefers_it() {
    let pki = TestPki::new(&["localhost"]);
    let server = net_support::tls_server(pki.acceptor(&[b"h2", b"http/1.1"]), |req| async move {
        http::Response::new(full(format!("{:?}", req.version())))
    })
    .await;
    let url = format!("https://localhost:{}/", server.addr.port());
    let client = |http1_only: bool| {
        let builder = Client::builder()
            .tls_built_in_roots(false)
            .add_root_certificates_pem(pki.ca_pem.as_bytes())
            .resolve("localhost", server.addr);
        if http1_only {
            builder.http1_only()
        } else {
            builder
        }
        .build()
        .unwrap()
    };
    for (http1_only, expected) in [(false, "HTTP/2.0"), (true, "HTTP/1.1")] {
        let text = tokio::time::timeout(LIMIT, async {
            let mut response = client(http1_only)
                .fetch(url.as_str(), RequestInit::default())
                .await
                .unwrap();
            response.text().await.unwrap()
        })
        .await
        .unwrap();
        assert_eq!(text, expected, "http1_only({http1_only})");
    }
}
