//! `Response::version`, as reqwest's: the HTTP version a response came with, from servers
//! on 127.0.0.1 over HTTP/1.1, HTTP/1.0 and HTTP/2 (ALPN over TLS, and prior knowledge
//! over plain TCP), kept by the HTTP cache, and HTTP/1.1 for a response that did not come
//! from the network.

mod net_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hyper_util::rt::{TokioExecutor, TokioIo};
use net_support::*;
use tokio::io::AsyncWriteExt;
use tokio::net::TcpListener;
use whatwg_fetch::{Client, Version};

#[tokio::test]
async fn an_http_1_1_response_has_version_http_1_1() {
    let server = hyper_server(|_| async { http::Response::new(full("ok")) }).await;
    let response = Client::new().get(server.url("/")).send().await.unwrap();
    assert_eq!(response.version(), Version::HTTP_11);
}

#[tokio::test]
async fn an_http_1_0_response_has_version_http_1_0() {
    let server = raw_server(|mut stream| async move {
        let _ = read_head(&mut stream).await;
        let _ = stream
            .write_all(b"HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nok")
            .await;
    })
    .await;
    let mut response = Client::new().get(server.url("/")).send().await.unwrap();
    assert_eq!(response.version(), Version::HTTP_10);
    assert_eq!(response.text().await.unwrap(), "ok");
}

#[tokio::test]
async fn an_h2_response_over_tls_has_version_http_2_and_keeps_it_from_the_cache() {
    let pki = TestPki::new(&["localhost"]);
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
    let server = tls_server(pki.acceptor(&[b"h2"]), move |_| {
        counted.fetch_add(1, Ordering::SeqCst);
        async {
            http::Response::builder()
                .header("cache-control", "max-age=3600")
                .body(full("ok"))
                .unwrap()
        }
    })
    .await;
    let client = Client::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(pki.ca_pem.as_bytes())
        .resolve("localhost", server.addr)
        .http_cache(true)
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/", server.addr.port());
    for _ in 0..2 {
        let mut response = client.get(&url).send().await.unwrap();
        assert_eq!(response.version(), Version::HTTP_2);
        assert_eq!(response.text().await.unwrap(), "ok");
    }
    assert_eq!(
        requests.load(Ordering::SeqCst),
        1,
        "the second response is the cache's"
    );
}

#[tokio::test]
async fn an_h2c_prior_knowledge_response_has_version_http_2() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = hyper::service::service_fn(|_| async {
                    Ok::<_, std::convert::Infallible>(http::Response::new(full("ok")))
                });
                let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    let client = Client::builder()
        .http2_prior_knowledge(true)
        .build()
        .unwrap();
    let response = client.get(format!("http://{addr}/")).send().await.unwrap();
    assert_eq!(response.version(), Version::HTTP_2);
}

#[tokio::test]
async fn a_data_url_response_has_version_http_1_1() {
    let response = Client::new().get("data:,hello").send().await.unwrap();
    assert_eq!(response.version(), Version::HTTP_11);
}

#[tokio::test]
async fn the_version_survives_the_conversions_to_and_from_http_response() {
    let mut from_http = http::Response::new(http_body_util::Full::new(bytes::Bytes::from("ok")));
    *from_http.version_mut() = Version::HTTP_2;
    let response = whatwg_fetch::Response::try_from(from_http).unwrap();
    assert_eq!(response.version(), Version::HTTP_2);
    let back = http::Response::<whatwg_fetch::Body>::try_from(response).unwrap();
    assert_eq!(back.version(), Version::HTTP_2);
}
