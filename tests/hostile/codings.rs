//! Stacked and oversized content codings.
//!
//! A response may name thousands of codings in a few kilobytes of `Content-Encoding`.
//! More than `MAX_CONTENT_CODINGS` (5, as curl and undici) is a network error with a typed
//! cause, found before any decoder is made; nothing recurses per coding, so neither
//! reading nor dropping such a response can overflow the stack.

use crate::{bounded, next_request_works};
use std::convert::Infallible;

use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use whatwg_fetch::net::{HyperTransport, MAX_CONTENT_CODINGS, SendOptions, Transport};
use whatwg_fetch::{Client, Error, ErrorKind, NetworkError, RequestInit};

use crate::net_support::{Server, full, get, raw_server, read_head};

/// `Content-Encoding: name,name,…` with `count` names.
fn stacked(name: &str, count: usize) -> String {
    vec![name; count].join(",")
}

/// "hello", gzipped.
fn gzipped_hello() -> Vec<u8> {
    vec![
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9,
        0x07, 0x00, 0x86, 0xa6, 0x10, 0x36, 0x05, 0x00, 0x00, 0x00,
    ]
}

/// An HTTP/1.1 server answering, on each connection, request after request: `/coded`
/// with `Content-Encoding: <content_encoding>` and `body`, and anything else with "ok".
async fn coded_server(content_encoding: String, body: Vec<u8>) -> Server {
    raw_server(move |mut stream| {
        let content_encoding = content_encoding.clone();
        let coded_body = body.clone();
        async move {
            while let Some(head) = read_head(&mut stream).await {
                let coded = head.starts_with("GET /coded ");
                let body = if coded {
                    coded_body.clone()
                } else {
                    b"ok".to_vec()
                };
                let mut response = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n", body.len());
                if coded {
                    response.push_str(&format!("content-encoding: {content_encoding}\r\n"));
                }
                response.push_str("\r\n");
                let mut bytes = response.into_bytes();
                bytes.extend_from_slice(&body);
                if stream.write_all(&bytes).await.is_err() {
                    return;
                }
            }
        }
    })
    .await
}

/// `data` gzipped `times` times.
async fn gzip_times(data: &[u8], times: usize) -> Vec<u8> {
    let mut encoded = data.to_vec();
    for _ in 0..times {
        let mut encoder = async_compression::tokio::write::GzipEncoder::new(Vec::new());
        encoder.write_all(&encoded).await.unwrap();
        encoder.shutdown().await.unwrap();
        encoded = encoder.into_inner();
    }
    encoded
}

/// The error's cause is `TooManyContentCodings` with `count`.
fn assert_too_many(error: &Error, count: usize) {
    assert_eq!(error.kind(), ErrorKind::TypeError, "{error:?}");
    match error.network_error() {
        Some(NetworkError::TooManyContentCodings { count: got, max }) => {
            assert_eq!((*got, *max), (count, MAX_CONTENT_CODINGS));
        }
        other => panic!("expected TooManyContentCodings, got {other:?}"),
    }
}

async fn stacked_codings_are_a_typed_network_error(name: &str) {
    let server = coded_server(stacked(name, 3000), gzipped_hello()).await;
    let client = Client::builder().build().unwrap();
    let url = server.url("/coded");
    let error = client
        .fetch(url.as_str(), RequestInit::default())
        .await
        .unwrap_err();
    assert_too_many(&error, 3000);
    next_request_works(&client, &server.url("/")).await;
}

#[tokio::test]
async fn three_thousand_stacked_br_codings_are_a_typed_network_error() {
    bounded(stacked_codings_are_a_typed_network_error("br")).await;
}

#[tokio::test]
async fn three_thousand_stacked_gzip_codings_are_a_typed_network_error() {
    bounded(stacked_codings_are_a_typed_network_error("gzip")).await;
}

#[tokio::test]
async fn sixty_thousand_codings_dropped_unread_do_not_abort() {
    bounded(async {
        let header = stacked("br", 60_000);
        let server = coded_server(header.clone(), gzipped_hello()).await;
        let url = server.url("/coded");
        // Through fetch: refused before a decoder is made, the body dropped unread.
        let client = Client::builder().build().unwrap();
        let error = client
            .fetch(url.as_str(), RequestInit::default())
            .await
            .unwrap_err();
        assert_too_many(&error, 60_000);
        next_request_works(&client, &server.url("/")).await;
        // Through the transport without decoding: the response comes, and is dropped
        // unread.
        let transport = HyperTransport::new().unwrap();
        let response = transport.send(get(&url), SendOptions::new()).await.unwrap();
        assert_eq!(response.headers()["content-encoding"].len(), header.len());
        drop(response);
        // And with decoding, the transport refuses it.
        let error = transport
            .send(get(&url), SendOptions::new().with_decode_content(true))
            .await
            .unwrap_err();
        assert!(
            matches!(
                error,
                NetworkError::TooManyContentCodings { count: 60_000, .. }
            ),
            "{error:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn five_stacked_codings_are_decoded_and_six_are_refused() {
    bounded(async {
        let client = Client::builder().build().unwrap();
        let five = gzip_times(b"hello", MAX_CONTENT_CODINGS).await;
        let server = coded_server(stacked("gzip", MAX_CONTENT_CODINGS), five).await;
        let mut response = client
            .fetch(server.url("/coded").as_str(), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.text().await.unwrap(), "hello");
        let six = gzip_times(b"hello", MAX_CONTENT_CODINGS + 1).await;
        let server = coded_server(stacked("gzip", MAX_CONTENT_CODINGS + 1), six).await;
        let error = client
            .fetch(server.url("/coded").as_str(), RequestInit::default())
            .await
            .unwrap_err();
        assert_too_many(&error, MAX_CONTENT_CODINGS + 1);
        next_request_works(&client, &server.url("/")).await;
    })
    .await;
}

#[tokio::test]
async fn thousands_of_identity_codings_are_not_counted() {
    bounded(async {
        let header = format!("{},gzip", stacked("identity", 3000));
        let server = coded_server(header, gzipped_hello()).await;
        let client = Client::builder().build().unwrap();
        let mut response = client
            .fetch(server.url("/coded").as_str(), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.text().await.unwrap(), "hello");
        next_request_works(&client, &server.url("/")).await;
    })
    .await;
}

#[tokio::test]
async fn an_unknown_coding_among_thousands_leaves_the_body_as_sent() {
    bounded(async {
        let header = format!("{},compress", stacked("br", 3000));
        let server = coded_server(header, gzipped_hello()).await;
        let client = Client::builder().build().unwrap();
        let mut response = client
            .fetch(server.url("/coded").as_str(), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.bytes().await.unwrap(), gzipped_hello());
        next_request_works(&client, &server.url("/")).await;
    })
    .await;
}

/// An HTTP/2 server (prior knowledge, no TLS) answering `/coded` with 3,000 stacked `br`
/// codings and anything else with "ok".
async fn h2_server() -> std::net::SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = service_fn(|request: http::Request<hyper::body::Incoming>| {
                    let coded = request.uri().path() == "/coded";
                    async move {
                        let response = if coded {
                            let mut response = http::Response::new(full(gzipped_hello()));
                            response
                                .headers_mut()
                                .insert("content-encoding", stacked("br", 3000).parse().unwrap());
                            response
                        } else {
                            http::Response::new(full("ok"))
                        };
                        Ok::<_, Infallible>(response)
                    }
                });
                let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(tcp), service)
                    .await;
            });
        }
    });
    addr
}

#[tokio::test]
async fn three_thousand_stacked_codings_over_http2_are_a_typed_network_error() {
    bounded(async {
        let addr = h2_server().await;
        let client = Client::builder()
            .http2_prior_knowledge(true)
            .build()
            .unwrap();
        let error = client
            .fetch(
                format!("http://{addr}/coded").as_str(),
                RequestInit::default(),
            )
            .await
            .unwrap_err();
        assert_too_many(&error, 3000);
        // The stream was reset; the connection serves the next request.
        next_request_works(&client, &format!("http://{addr}/")).await;
    })
    .await;
}
