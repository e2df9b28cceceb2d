//! The connections' protocol settings: response head limits over HTTP/1.1 and HTTP/2,
//! HTTP/1.1 only, and HTTP/2 keep-alive PINGs and windows.

mod net_support;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use net_support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use whatwg_fetch::net::{HyperTransport, HyperTransportBuilder, SendOptions, Transport};
use whatwg_fetch::{Client, NetworkError, RequestInit, TimeoutKind};

/// Bounds every test: none of them should come near it.
const LIMIT: Duration = Duration::from_secs(20);

/// A response whose head carries `size` bytes of header values, in fields of 8 KiB.
fn response_with_head_of(size: usize) -> http::Response<ServerBody> {
    let mut response = http::Response::new(full("ok"));
    let value = "v".repeat(8 * 1024);
    for index in 0..size.div_ceil(value.len()) {
        let name = http::HeaderName::try_from(format!("x-large-{index}")).unwrap();
        let value = http::HeaderValue::try_from(value.as_str()).unwrap();
        response.headers_mut().insert(name, value);
    }
    response
}

/// An HTTP/2 server (prior knowledge, on plain TCP) answering each request with a head
/// of the size its path names: `/204800` is 200 KiB of header values.
async fn h2_server_with_heads() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = service_fn(|req: http::Request<hyper::body::Incoming>| async move {
                    let size = req
                        .uri()
                        .path()
                        .trim_start_matches('/')
                        .parse()
                        .unwrap_or(0);
                    Ok::<_, Infallible>(response_with_head_of(size))
                });
                let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .max_send_buf_size(4 * 1024 * 1024)
                    .serve_connection(TokioIo::new(tcp), service)
                    .await;
            });
        }
    });
    addr
}

fn h2_client() -> HyperTransportBuilder {
    HyperTransport::builder().http2_prior_knowledge(true)
}

async fn send(transport: &HyperTransport, url: &str) -> Result<http::StatusCode, NetworkError> {
    tokio::time::timeout(LIMIT, transport.send(get(url), SendOptions::new()))
        .await
        .expect("the request ends")
        .map(|response| response.status())
}

#[tokio::test]
async fn an_http2_response_head_of_200_kib_is_accepted_by_default() {
    let addr = h2_server_with_heads().await;
    let transport = h2_client().build().unwrap();
    let status = send(&transport, &format!("http://{addr}/{}", 200 * 1024)).await;
    assert_eq!(status.unwrap(), 200);
}

#[tokio::test]
async fn an_http2_response_head_of_300_kib_is_a_clear_error_and_the_connection_lives_on() {
    let addr = h2_server_with_heads().await;
    let transport = h2_client().build().unwrap();
    let error = send(&transport, &format!("http://{addr}/{}", 300 * 1024))
        .await
        .unwrap_err();
    assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}");
    let message = std::error::Error::source(&error).unwrap().to_string();
    assert!(
        message.contains("262144") && message.contains("http2_max_header_list_size"),
        "{message}"
    );
    // A stream error: the next request on the same connection is answered.
    let status = send(&transport, &format!("http://{addr}/{}", 1024)).await;
    assert_eq!(status.unwrap(), 200);
}

#[tokio::test]
async fn the_http2_header_list_limit_can_be_lowered_and_raised() {
    let addr = h2_server_with_heads().await;
    let lowered = h2_client()
        .http2_max_header_list_size(16 * 1024)
        .build()
        .unwrap();
    let url = format!("http://{addr}/{}", 24 * 1024);
    assert!(matches!(
        send(&lowered, &url).await,
        Err(NetworkError::Protocol(_))
    ));
    let raised = h2_client()
        .http2_max_header_list_size(1024 * 1024)
        .build()
        .unwrap();
    let url = format!("http://{addr}/{}", 400 * 1024);
    assert_eq!(send(&raised, &url).await.unwrap(), 200);
}

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
    let status = send(&transport, &server.url(&format!("/{}", 200 * 1024))).await;
    assert_eq!(status.unwrap(), 200);
    let error = send(&transport, &server.url(&format!("/{}", 300 * 1024)))
        .await
        .unwrap_err();
    assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}");
    let message = std::error::Error::source(&error).unwrap().to_string();
    assert!(
        message.contains("262144") && message.contains("http1_max_header_size"),
        "{message}"
    );
    let status = send(&transport, &server.url("/1024")).await;
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
        send(&small, &server.url(&format!("/{}", 24 * 1024))).await,
        Err(NetworkError::Protocol(_))
    ));
    // 150 fields: more than the default count, within a raised one.
    let default = HyperTransport::builder().build().unwrap();
    let error = send(&default, &server.url("/count/150")).await.unwrap_err();
    let message = std::error::Error::source(&error).unwrap().to_string();
    assert!(message.contains("http1_max_headers"), "{message}");
    let raised = HyperTransport::builder()
        .http1_max_headers(200)
        .build()
        .unwrap();
    assert_eq!(send(&raised, &server.url("/count/150")).await.unwrap(), 200);
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

/// A peer that opens an HTTP/2 connection (its SETTINGS, and the acknowledgement of the
/// client's) and then reads nothing and answers nothing, PINGs included.
async fn h2_peer_that_goes_silent() -> Server {
    raw_server(|mut stream| async move {
        let mut preface = [0u8; 24];
        if stream.read_exact(&mut preface).await.is_err() {
            return;
        }
        // An empty SETTINGS frame, then a SETTINGS acknowledgement (RFC 9113 §6.5).
        let frames = [
            0, 0, 0, 4, 0, 0, 0, 0, 0, //
            0, 0, 0, 4, 1, 0, 0, 0, 0,
        ];
        let _ = stream.write_all(&frames).await;
        std::future::pending::<()>().await;
    })
    .await
}

#[tokio::test]
async fn an_unanswered_keep_alive_ping_fails_the_request_before_the_read_timeout() {
    let server = h2_peer_that_goes_silent().await;
    let transport = h2_client()
        .read_timeout(Some(Duration::from_secs(600)))
        .http2_keep_alive_interval(Duration::from_millis(100))
        .http2_keep_alive_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let error = send(&transport, &server.url("/")).await.unwrap_err();
    assert!(
        matches!(
            error,
            NetworkError::Timeout {
                kind: TimeoutKind::KeepAlive,
                ..
            }
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn without_keep_alive_pings_a_silent_peer_holds_the_request() {
    let server = h2_peer_that_goes_silent().await;
    let transport = h2_client().build().unwrap();
    let waited = tokio::time::timeout(
        Duration::from_millis(800),
        transport.send(get(&server.url("/")), SendOptions::new()),
    )
    .await;
    assert!(waited.is_err(), "the request should still be waiting");
}

#[tokio::test]
async fn http2_window_and_frame_settings_still_carry_a_large_body() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = service_fn(|_req: http::Request<hyper::body::Incoming>| async {
                    Ok::<_, Infallible>(http::Response::new(full(vec![7u8; 3 * 1024 * 1024])))
                });
                let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(tcp), service)
                    .await;
            });
        }
    });
    for transport in [
        h2_client()
            .http2_initial_stream_window_size(64 * 1024)
            .http2_initial_connection_window_size(128 * 1024)
            .http2_max_frame_size(64 * 1024)
            .build()
            .unwrap(),
        h2_client().http2_adaptive_window(true).build().unwrap(),
    ] {
        let body = tokio::time::timeout(LIMIT, async {
            let response = transport
                .send(get(&format!("http://{addr}/")), SendOptions::new())
                .await
                .unwrap();
            read_all(response.into_body()).await.unwrap()
        })
        .await
        .unwrap();
        assert_eq!(body.len(), 3 * 1024 * 1024);
    }
}
