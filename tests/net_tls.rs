//! HTTPS with a test CA made here, HTTP/2 by ALPN, and HTTP/2 with prior knowledge.

mod net_support;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use net_support::*;
use tokio::net::TcpListener;
use whatwg_fetch::NetworkError;
use whatwg_fetch::net::{HyperTransport, SendOptions, Transport};

/// A TLS server offering `alpn`, serving HTTP/2 or HTTP/1.1 as negotiated; each
/// response body names the protocol.
async fn tls_server(pki: &TestPki, alpn: &[&[u8]]) -> (SocketAddr, Arc<AtomicUsize>) {
    let server = net_support::tls_server(pki.acceptor(alpn), |req| async move {
        http::Response::new(full(format!("{:?} {}", req.version(), req.uri())))
    })
    .await;
    (server.addr, server.counts.accepts)
}

fn client(pki: &TestPki, addr: SocketAddr) -> whatwg_fetch::net::HyperTransportBuilder {
    HyperTransport::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(pki.ca_pem.as_bytes())
        .unwrap()
        .resolve("localhost", addr)
}

/// A CA and a certificate it signs for `localhost` and 127.0.0.1.
fn pki() -> TestPki {
    TestPki::new(&["localhost", "127.0.0.1"])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn https_negotiates_h2_and_shares_one_connection() {
    let pki = pki();
    let (addr, accepts) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let transport = client(&pki, addr).build().unwrap();
    let url = format!("https://localhost:{}/x?y", addr.port());
    let mut tasks = Vec::new();
    for _ in 0..20 {
        let transport = transport.clone();
        let url = url.clone();
        tasks.push(tokio::spawn(async move {
            let response = transport.send(get(&url), SendOptions::new()).await.unwrap();
            assert_eq!(response.version(), http::Version::HTTP_2);
            read_all(response.into_body()).await.unwrap()
        }));
    }
    for task in tasks {
        let body = task.await.unwrap();
        assert_eq!(
            body,
            format!("HTTP/2.0 https://localhost:{}/x?y", addr.port())
        );
    }
    // The others waited for the first connection instead of opening their own.
    assert_eq!(accepts.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn https_sequential_h2_requests_use_one_connection() {
    let pki = pki();
    let (addr, accepts) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let transport = client(&pki, addr).build().unwrap();
    let url = format!("https://localhost:{}/", addr.port());
    for _ in 0..5 {
        let (status, body) = get_text(&transport, &url).await;
        assert_eq!(status, 200);
        assert!(body.starts_with("HTTP/2.0"), "{body}");
    }
    assert_eq!(accepts.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn https_falls_back_to_http1_and_pools_it() {
    let pki = pki();
    let (addr, accepts) = tls_server(&pki, &[b"http/1.1"]).await;
    let transport = client(&pki, addr).build().unwrap();
    let url = format!("https://localhost:{}/p", addr.port());
    for _ in 0..3 {
        let (_, body) = get_text(&transport, &url).await;
        assert_eq!(body, "HTTP/1.1 /p");
    }
    assert_eq!(accepts.load(Ordering::SeqCst), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_requests_to_an_http1_https_origin_open_parallel_connections() {
    // The first connection is awaited in case it speaks HTTP/2; once it speaks
    // HTTP/1.1, the waiting requests connect in parallel under the cap.
    let pki = pki();
    let (addr, accepts) = tls_server(&pki, &[b"http/1.1"]).await;
    let transport = client(&pki, addr)
        .max_connections_per_origin(4)
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/", addr.port());
    let mut tasks = Vec::new();
    for _ in 0..40 {
        let transport = transport.clone();
        let url = url.clone();
        tasks.push(tokio::spawn(
            async move { get_text(&transport, &url).await },
        ));
    }
    for task in tasks {
        assert_eq!(task.await.unwrap().1, "HTTP/1.1 /");
    }
    let accepted = accepts.load(Ordering::SeqCst);
    assert!((2..=4).contains(&accepted), "{accepted} connections");
}

#[tokio::test]
async fn requests_waiting_on_a_failed_h2_connection_still_complete() {
    // Nothing listens: every waiting request must fail, none hang.
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let pki = pki();
    let transport = client(&pki, addr).build().unwrap();
    let url = format!("https://localhost:{}/", addr.port());
    let mut tasks = Vec::new();
    for _ in 0..10 {
        let transport = transport.clone();
        let url = url.clone();
        tasks.push(tokio::spawn(async move {
            transport.send(get(&url), SendOptions::new()).await
        }));
    }
    for task in tasks {
        let error = tokio::time::timeout(std::time::Duration::from_secs(10), task)
            .await
            .unwrap()
            .unwrap()
            .unwrap_err();
        assert!(matches!(error, NetworkError::Connect(_)), "{error:?}");
    }
}

#[tokio::test]
async fn http2_can_be_turned_off() {
    let pki = pki();
    let (addr, _) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let transport = client(&pki, addr).http2(false).build().unwrap();
    let (_, body) = get_text(&transport, &format!("https://localhost:{}/", addr.port())).await;
    assert_eq!(body, "HTTP/1.1 /");
}

#[tokio::test]
async fn a_der_root_and_an_ip_address_name_work() {
    let pki = pki();
    let (addr, _) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let transport = HyperTransport::builder()
        .tls_built_in_roots(false)
        .add_root_certificate_der(pki.ca_der.clone())
        .build()
        .unwrap();
    let (status, _) = get_text(&transport, &format!("https://{addr}/")).await;
    assert_eq!(status, 200);
}

#[tokio::test]
async fn an_untrusted_certificate_is_a_tls_error() {
    let pki = pki();
    let (addr, _) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let transport = HyperTransport::builder()
        .resolve("localhost", addr)
        .build()
        .unwrap();
    let error = transport
        .send(
            get(&format!("https://localhost:{}/", addr.port())),
            SendOptions::new(),
        )
        .await
        .unwrap_err();
    assert!(matches!(error, NetworkError::Tls(_)), "{error:?}");
}

#[tokio::test]
async fn a_name_the_certificate_does_not_cover_is_a_tls_error() {
    let pki = pki();
    let (addr, _) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let transport = client(&pki, addr)
        .resolve("elsewhere.test", addr)
        .build()
        .unwrap();
    let error = transport
        .send(
            get(&format!("https://elsewhere.test:{}/", addr.port())),
            SendOptions::new(),
        )
        .await
        .unwrap_err();
    assert!(matches!(error, NetworkError::Tls(_)), "{error:?}");
}

#[tokio::test]
async fn http2_prior_knowledge_speaks_h2_over_plain_tcp() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = service_fn(|req: http::Request<hyper::body::Incoming>| async move {
                    let body = format!("{:?}", req.version());
                    Ok::<_, Infallible>(http::Response::new(full(body)))
                });
                let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(tcp), service)
                    .await;
            });
        }
    });
    let transport = HyperTransport::builder()
        .http2_prior_knowledge(true)
        .build()
        .unwrap();
    let (_, body) = get_text(&transport, &format!("http://{addr}/")).await;
    assert_eq!(body, "HTTP/2.0");
}

#[tokio::test]
async fn an_idle_h2_connection_is_let_go_after_the_idle_timeout() {
    let pki = pki();
    let (addr, accepts) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let transport = client(&pki, addr)
        .pool_idle_timeout(Some(std::time::Duration::from_millis(100)))
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/", addr.port());
    // A body still being read keeps the connection usable past the timeout.
    let response = transport.send(get(&url), SendOptions::new()).await.unwrap();
    tokio::time::sleep(std::time::Duration::from_millis(400)).await;
    let body = read_all(response.into_body()).await.unwrap();
    assert!(body.starts_with(b"HTTP/2.0"));
    let (_, body) = get_text(&transport, &url).await;
    assert!(body.starts_with("HTTP/2.0"));
    assert_eq!(accepts.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn fetch_over_https_with_a_test_ca_and_h2() {
    let pki = pki();
    let (addr, _) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let client = whatwg_fetch::Client::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(pki.ca_pem.as_bytes().to_vec())
        .resolve("localhost", addr)
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/page", addr.port());
    let mut response = client
        .fetch(url.as_str(), whatwg_fetch::RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.status_text(), "", "HTTP/2 has no reason phrase");
    assert_eq!(response.text().await.unwrap(), format!("HTTP/2.0 {url}"));

    let untrusted = whatwg_fetch::Client::builder()
        .tls_built_in_roots(false)
        .resolve("localhost", addr)
        .build()
        .unwrap();
    let error = untrusted
        .fetch(url.as_str(), whatwg_fetch::RequestInit::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), whatwg_fetch::ErrorKind::TypeError);
    assert!(
        matches!(error.network_error(), Some(NetworkError::Tls(_))),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_new_connection_request_does_not_share_the_h2_connection() {
    let pki = pki();
    let (addr, accepts) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let transport = client(&pki, addr).build().unwrap();
    let url = format!("https://localhost:{}/", addr.port());
    get_text(&transport, &url).await;
    assert_eq!(accepts.load(Ordering::SeqCst), 1);
    let fresh = SendOptions::new().with_new_connection(true);
    let response = transport.send(get(&url), fresh).await.unwrap();
    assert_eq!(response.version(), http::Version::HTTP_2);
    read_all(response.into_body()).await.unwrap();
    assert_eq!(accepts.load(Ordering::SeqCst), 2, "a second connection");
    // The new connection is the one later requests share.
    get_text(&transport, &url).await;
    assert_eq!(accepts.load(Ordering::SeqCst), 2);
}
