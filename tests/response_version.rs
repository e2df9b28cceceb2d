//! `Response::version`, as reqwest's: the HTTP version a response came with, from servers
//! on 127.0.0.1 over HTTP/1.1, HTTP/1.0 and HTTP/2 (ALPN over TLS, and prior knowledge
//! over plain TCP), kept by the HTTP cache, and HTTP/1.1 for a response that did not come
//! from the network. And `RequestBuilder::version`: the version a request asks for.

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

/// A TLS server on 127.0.0.1 offering `alpn`, answering `ok`, and the requests it took.
async fn counting_tls_server(pki: &TestPki, alpn: &[&[u8]]) -> (Server, Arc<AtomicUsize>) {
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
    let server = tls_server(pki.acceptor(alpn), move |_| {
        counted.fetch_add(1, Ordering::SeqCst);
        async { http::Response::new(full("ok")) }
    })
    .await;
    (server, requests)
}

fn trusting(pki: &TestPki, server: &Server) -> Client {
    Client::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(pki.ca_pem.as_bytes())
        .resolve("localhost", server.addr)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_request_asking_for_a_version_goes_over_it() {
    let pki = TestPki::new(&["localhost"]);
    let (server, requests) = counting_tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let client = trusting(&pki, &server);
    let url = format!("https://localhost:{}/", server.addr.port());
    for version in [Version::HTTP_11, Version::HTTP_2, Version::HTTP_11] {
        let mut response = client.get(&url).version(version).send().await.unwrap();
        assert_eq!(response.version(), version);
        assert_eq!(response.text().await.unwrap(), "ok");
    }
    // Left to ALPN, as before.
    let response = client.get(&url).send().await.unwrap();
    assert_eq!(response.version(), Version::HTTP_2);
    assert_eq!(requests.load(Ordering::SeqCst), 4);
}

#[tokio::test]
async fn a_request_asking_for_http_2_of_a_server_speaking_http_1_1_fails_unsent() {
    let pki = TestPki::new(&["localhost"]);
    let (server, requests) = counting_tls_server(&pki, &[b"http/1.1"]).await;
    let client = trusting(&pki, &server);
    let url = format!("https://localhost:{}/", server.addr.port());
    let error = client
        .post(&url)
        .body("not to be sent")
        .version(Version::HTTP_2)
        .send()
        .await
        .unwrap_err();
    let message = format!("{error:#}");
    assert!(
        message.contains("HTTP/2 was asked for") && message.contains("speaks HTTP/1.1"),
        "{message}"
    );
    // Plain http: without prior knowledge is HTTP/1.1 too.
    let plain = hyper_server(|_| async { http::Response::new(full("ok")) }).await;
    let error = Client::new()
        .get(plain.url("/"))
        .version(Version::HTTP_2)
        .send()
        .await
        .unwrap_err();
    assert!(
        format!("{error:#}").contains("speaks HTTP/1.1"),
        "{error:#}"
    );
    assert_eq!(requests.load(Ordering::SeqCst), 0, "nothing was sent");
    // The connection is kept for the requests that may go over HTTP/1.1.
    let response = client.get(&url).send().await.unwrap();
    assert_eq!(response.version(), Version::HTTP_11);
}

#[tokio::test]
async fn versions_a_request_cannot_ask_for_are_refused_with_what_to_do() {
    for version in [Version::HTTP_09, Version::HTTP_10] {
        let error = Client::new()
            .get("https://example.com/")
            .version(version)
            .build()
            .unwrap_err();
        assert!(
            error
                .to_string()
                .contains("HTTP/1.1, HTTP/2 and HTTP/3 are"),
            "{error}"
        );
    }
    let http3 = Client::new()
        .get("http://127.0.0.1:5/")
        .version(Version::HTTP_3)
        .send()
        .await;
    let message = format!("{:#}", http3.unwrap_err());
    // Without the feature the builder says which; with it, HTTP/3 is for https: alone.
    #[cfg(not(feature = "http3"))]
    assert!(message.contains("`http3` feature"), "{message}");
    #[cfg(feature = "http3")]
    assert!(message.contains("`https:` URLs alone"), "{message}");
}
