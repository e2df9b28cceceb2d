//! HTTPS with a test CA made here, HTTP/2 by ALPN, and HTTP/2 with prior knowledge; the
//! TLS options: client certificates, versions, the `danger_` options, session
//! resumption, a rustls configuration of one's own, and what a TLS error says.

mod net_support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use net_support::*;
use rustls::HandshakeKind;
use whatwg_fetch::NetworkError;
use whatwg_fetch::net::{
    HyperTransport, Identity, SendOptions, TlsHandshakeError, TlsVersion, Transport,
};

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
async fn http1_only_requests_get_http1_connections_of_their_own_beside_the_h2_one() {
    let pki = pki();
    let (addr, accepts) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let transport = client(&pki, addr).build().unwrap();
    let url = format!("https://localhost:{}/", addr.port());
    let (_, body) = get_text(&transport, &url).await;
    assert!(body.starts_with("HTTP/2.0"), "{body}");
    for _ in 0..3 {
        let response = transport
            .send(get(&url), SendOptions::new().with_http1_only(true))
            .await
            .unwrap();
        assert_eq!(response.version(), http::Version::HTTP_11);
        let body = read_all(response.into_body()).await.unwrap();
        assert!(body.starts_with(b"HTTP/1.1"), "{body:?}");
    }
    // The HTTP/2 connection, and one HTTP/1.1 connection pooled beside it.
    assert_eq!(accepts.load(Ordering::SeqCst), 2);
    let (_, body) = get_text(&transport, &url).await;
    assert!(body.starts_with("HTTP/2.0"), "{body}");
    assert_eq!(accepts.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn http1_only_overrides_http2_prior_knowledge() {
    let server =
        hyper_server(
            |req| async move { http::Response::new(full(format!("{:?}", req.version()))) },
        )
        .await;
    let transport = HyperTransport::builder()
        .http2_prior_knowledge(true)
        .build()
        .unwrap();
    let response = transport
        .send(
            get(&server.url("/")),
            SendOptions::new().with_http1_only(true),
        )
        .await
        .unwrap();
    assert_eq!(response.version(), http::Version::HTTP_11);
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

/// The `TlsHandshakeError` behind a transport's TLS error, and its message.
fn tls_failure(error: &NetworkError) -> (String, String) {
    let NetworkError::Tls(source) = error else {
        panic!("not a TLS error: {error:?}");
    };
    let handshake = source
        .downcast_ref::<TlsHandshakeError>()
        .unwrap_or_else(|| panic!("not a TlsHandshakeError: {source:?}"));
    assert!(
        std::error::Error::source(handshake).is_some(),
        "the reason stays reachable"
    );
    // What the handshake error and its causes say (its own `Display` is its part alone).
    (handshake.host().to_owned(), said(handshake))
}

/// Sends a GET within ten seconds.
async fn send(
    transport: &HyperTransport,
    url: &str,
) -> Result<http::Response<whatwg_fetch::net::ResponseBody>, NetworkError> {
    tokio::time::timeout(
        Duration::from_secs(10),
        transport.send(get(url), SendOptions::new()),
    )
    .await
    .expect("the request ends in time")
}

#[tokio::test]
async fn an_untrusted_certificate_error_names_the_host_and_the_reason() {
    let pki = pki();
    let (addr, _) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let transport = HyperTransport::builder()
        .resolve("localhost", addr)
        .build()
        .unwrap();
    let error = send(&transport, &format!("https://localhost:{}/", addr.port()))
        .await
        .unwrap_err();
    let (host, message) = tls_failure(&error);
    assert_eq!(host, "localhost");
    assert_eq!(
        message,
        "TLS handshake with localhost failed: invalid peer certificate: UnknownIssuer"
    );
}

#[tokio::test]
async fn a_name_mismatch_error_names_the_host_and_the_names_of_the_certificate() {
    let pki = pki();
    let (addr, _) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let transport = client(&pki, addr)
        .resolve("elsewhere.test", addr)
        .build()
        .unwrap();
    let error = send(
        &transport,
        &format!("https://elsewhere.test:{}/", addr.port()),
    )
    .await
    .unwrap_err();
    let (host, message) = tls_failure(&error);
    assert_eq!(host, "elsewhere.test");
    assert!(
        message.starts_with("TLS handshake with elsewhere.test failed: invalid peer certificate:"),
        "{message}"
    );
    assert!(message.contains("not valid for name"), "{message}");
    assert!(message.contains("localhost"), "{message}");
}

#[tokio::test]
async fn an_ip_address_host_is_named_in_a_tls_error() {
    let pki = TestPki::new(&["localhost"]);
    let (addr, _) = tls_server(&pki, &[b"http/1.1"]).await;
    let transport = client(&pki, addr).build().unwrap();
    let error = send(&transport, &format!("https://{addr}/"))
        .await
        .unwrap_err();
    let (host, message) = tls_failure(&error);
    assert_eq!(host, "127.0.0.1");
    assert!(
        message.starts_with("TLS handshake with 127.0.0.1 failed: invalid peer certificate"),
        "{message}"
    );
}

/// A server that requires a client certificate signed by its CA, offering `alpn`.
async fn client_auth_server(alpn: &[&[u8]]) -> (ClientAuthPki, SocketAddr) {
    let mutual = ClientAuthPki::new(&["localhost"]);
    let acceptor = mutual.pki.acceptor_with(
        alpn,
        &[&rustls::version::TLS13, &rustls::version::TLS12],
        Some(&mutual.pki.ca_der),
    );
    let server = net_support::tls_server(acceptor, |req| async move {
        http::Response::new(full(format!("{:?}", req.version())))
    })
    .await;
    (mutual, server.addr)
}

#[tokio::test]
async fn a_server_that_requires_a_client_certificate_accepts_the_identity() {
    for alpn in [&[b"h2".as_slice(), b"http/1.1"][..], &[b"http/1.1"]] {
        let (mutual, addr) = client_auth_server(alpn).await;
        let identity = Identity::from_pem(mutual.client_pem.as_bytes()).unwrap();
        let transport = client(&mutual.pki, addr)
            .identity(identity)
            .build()
            .unwrap();
        let url = format!("https://localhost:{}/", addr.port());
        let response = send(&transport, &url).await.unwrap();
        assert_eq!(response.status(), 200);
        read_all(response.into_body()).await.unwrap();
    }
}

#[tokio::test]
async fn a_server_that_requires_a_client_certificate_refuses_a_client_without_one() {
    for (alpn, version) in [
        (&[b"h2".as_slice(), b"http/1.1"][..], TlsVersion::Tls13),
        (&[b"http/1.1"], TlsVersion::Tls13),
        (&[b"h2", b"http/1.1"], TlsVersion::Tls12),
    ] {
        let (mutual, addr) = client_auth_server(alpn).await;
        let transport = client(&mutual.pki, addr)
            .max_tls_version(version)
            .build()
            .unwrap();
        let url = format!("https://localhost:{}/", addr.port());
        let error = send(&transport, &url).await.unwrap_err();
        let (host, message) = tls_failure(&error);
        assert_eq!(host, "localhost");
        assert!(
            message.starts_with("TLS handshake with localhost failed")
                && message.contains(": received fatal alert:"),
            "{version} {alpn:?}: {message}"
        );
        if version == TlsVersion::Tls13 {
            // TLS 1.3 names the fault (RFC 8446 §4.4.2.4); TLS 1.2 has no alert for it.
            assert!(
                message.contains("(the server requires a client certificate; none is set)")
                    && message.ends_with("CertificateRequired"),
                "{message}"
            );
        }
    }
}

#[test]
fn an_identity_pem_names_what_it_lacks() {
    let mutual = ClientAuthPki::new(&["localhost"]);
    let reason = |pem: &str| match Identity::from_pem(pem.as_bytes()) {
        Err(error) => match error.network_error() {
            Some(NetworkError::Tls(reason)) => reason.to_string(),
            other => panic!("{other:?}"),
        },
        Ok(identity) => panic!("accepted {identity:?}"),
    };
    let key_start = mutual.client_pem.find("-----BEGIN PRIVATE KEY").unwrap();
    let (cert, key) = mutual.client_pem.split_at(key_start);
    assert!(reason(cert).contains("no private key"), "{}", reason(cert));
    assert!(reason(key).contains("no certificate"), "{}", reason(key));
    // The server's certificate with the client's key: they do not belong together.
    let other_cert = mutual.pki.ca_pem.clone();
    let mismatched = reason(&format!("{other_cert}{key}"));
    assert!(mismatched.contains("cannot be used"), "{mismatched}");
    assert!(Identity::from_pem(mutual.client_pem.as_bytes()).is_ok());
}

/// A server speaking only `versions`.
async fn versioned_server(
    pki: &TestPki,
    versions: &[&'static rustls::SupportedProtocolVersion],
) -> SocketAddr {
    let acceptor = pki.acceptor_with(&[b"http/1.1"], versions, None);
    net_support::tls_server(acceptor, |_| async { http::Response::new(full("ok")) })
        .await
        .addr
}

#[tokio::test]
async fn a_tls12_only_server_fails_a_client_that_requires_tls13_and_says_so() {
    let pki = pki();
    let addr = versioned_server(&pki, &[&rustls::version::TLS12]).await;
    let url = format!("https://localhost:{}/", addr.port());
    // The default allows TLS 1.2.
    let transport = client(&pki, addr).build().unwrap();
    assert_eq!(send(&transport, &url).await.unwrap().status(), 200);

    let strict = client(&pki, addr)
        .min_tls_version(TlsVersion::Tls13)
        .build()
        .unwrap();
    let error = send(&strict, &url).await.unwrap_err();
    let (_, message) = tls_failure(&error);
    assert_eq!(
        message,
        "TLS handshake with localhost failed (the server does not speak TLS 1.3, the only \
         version allowed): received fatal alert: ProtocolVersion"
    );
}

#[tokio::test]
async fn a_tls13_only_server_fails_a_client_capped_at_tls12() {
    let pki = pki();
    let addr = versioned_server(&pki, &[&rustls::version::TLS13]).await;
    let url = format!("https://localhost:{}/", addr.port());
    let capped = client(&pki, addr)
        .max_tls_version(TlsVersion::Tls12)
        .build()
        .unwrap();
    let error = send(&capped, &url).await.unwrap_err();
    let (_, message) = tls_failure(&error);
    assert!(message.contains("ProtocolVersion"), "{message}");
    assert!(message.contains("TLS 1.2"), "{message}");
}

#[test]
fn a_min_tls_version_above_the_max_fails_the_build() {
    let error = HyperTransport::builder()
        .min_tls_version(TlsVersion::Tls13)
        .max_tls_version(TlsVersion::Tls12)
        .build()
        .unwrap_err();
    assert!(
        matches!(error.network_error(), Some(NetworkError::Tls(_))),
        "{error:?}"
    );
}

#[tokio::test]
async fn danger_accept_invalid_certs_accepts_a_self_signed_certificate_for_another_name() {
    let pki = TestPki::self_signed(&["somewhere.else"]);
    let (addr, _) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let url = format!("https://localhost:{}/", addr.port());
    let careful = HyperTransport::builder()
        .resolve("localhost", addr)
        .build()
        .unwrap();
    let error = send(&careful, &url).await.unwrap_err();
    assert!(tls_failure(&error).1.contains("invalid peer certificate"));

    let trusting = HyperTransport::builder()
        .resolve("localhost", addr)
        .danger_accept_invalid_certs(true)
        .build()
        .unwrap();
    let response = send(&trusting, &url).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.version(), http::Version::HTTP_2);
}

#[tokio::test]
async fn danger_accept_invalid_hostnames_accepts_a_trusted_certificate_for_another_name() {
    let pki = pki();
    let (addr, _) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let url = format!("https://elsewhere.test:{}/", addr.port());
    let transport = client(&pki, addr)
        .resolve("elsewhere.test", addr)
        .danger_accept_invalid_hostnames(true)
        .build()
        .unwrap();
    assert_eq!(send(&transport, &url).await.unwrap().status(), 200);

    // The chain is still checked.
    let untrusted = HyperTransport::builder()
        .resolve("elsewhere.test", addr)
        .danger_accept_invalid_hostnames(true)
        .build()
        .unwrap();
    let error = send(&untrusted, &url).await.unwrap_err();
    assert!(
        tls_failure(&error).1.ends_with("UnknownIssuer"),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_second_connection_to_a_server_resumes_the_tls_session() {
    let pki = pki();
    for version in [TlsVersion::Tls13, TlsVersion::Tls12] {
        let acceptor = pki.acceptor_with(
            &[b"http/1.1"],
            &[&rustls::version::TLS13, &rustls::version::TLS12],
            None,
        );
        let (server, mut kinds) = tls_server_reporting_handshakes(acceptor).await;
        let transport = client(&pki, server.addr)
            .max_tls_version(version)
            .build()
            .unwrap();
        let url = format!("https://localhost:{}/", server.addr.port());
        let (status, _) = get_text(&transport, &url).await;
        assert_eq!(status, 200);
        // A clone shares the transport's configuration, and so its session cache.
        let clone = transport.clone();
        let fresh = SendOptions::new().with_new_connection(true);
        let response = clone.send(get(&url), fresh).await.unwrap();
        read_all(response.into_body()).await.unwrap();
        let mut seen = Vec::new();
        for _ in 0..2 {
            let handshake = tokio::time::timeout(Duration::from_secs(10), kinds.recv()).await;
            seen.push(handshake.unwrap().unwrap().kind);
        }
        assert_eq!(
            seen,
            [HandshakeKind::Full, HandshakeKind::Resumed],
            "{version}"
        );
    }
}

/// Fetches `https://localhost/` from the server `acceptor` makes, and gives the key exchange
/// group as the client and as the server saw it, and the kind of handshake.
async fn key_exchange(pki: &TestPki, acceptor: tokio_rustls::TlsAcceptor) -> (String, Handshake) {
    let (server, mut handshakes) = tls_server_reporting_handshakes(acceptor).await;
    let client = whatwg_fetch::Client::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(pki.ca_pem.as_bytes())
        .resolve("localhost", server.addr)
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/", server.addr.port());
    let response = client.get(&url).send().await.unwrap();
    let tls = response.tls_info().expect("an https response has TLS info");
    let group = tls.key_exchange_group().unwrap_or("none").to_owned();
    let handshake = tokio::time::timeout(Duration::from_secs(10), handshakes.recv()).await;
    (group, handshake.unwrap().unwrap())
}

/// The default build offers the post-quantum hybrid first, as Chrome and Firefox do: a
/// server that has it uses it, and one that lacks it gets X25519's key share in the same
/// ClientHello, so no second round trip (no HelloRetryRequest).
#[cfg(feature = "aws-lc-rs")]
#[tokio::test]
async fn the_post_quantum_hybrid_is_used_where_the_server_has_it_and_x25519_where_not() {
    use rustls::crypto::aws_lc_rs::kx_group::{SECP256R1, X25519, X25519MLKEM768};
    let pki = pki();
    let full = rustls::HandshakeKind::Full;

    let (group, handshake) =
        key_exchange(&pki, pki.acceptor_with_groups(&[X25519MLKEM768, X25519])).await;
    assert_eq!(group, "X25519MLKEM768");
    assert_eq!(
        handshake,
        Handshake {
            kind: full,
            group: Some(rustls::NamedGroup::X25519MLKEM768)
        }
    );

    // The server's order does not matter: the client's first key share is the hybrid.
    let (group, handshake) =
        key_exchange(&pki, pki.acceptor_with_groups(&[X25519, X25519MLKEM768])).await;
    assert_eq!(handshake.kind, full);
    assert_eq!(
        handshake
            .group
            .map(|group| group.as_str().unwrap_or_default().to_owned()),
        Some(group)
    );

    let (group, handshake) = key_exchange(&pki, pki.acceptor_with_groups(&[X25519])).await;
    assert_eq!(group, "X25519");
    assert_eq!(
        handshake,
        Handshake {
            kind: full,
            group: Some(rustls::NamedGroup::X25519)
        }
    );

    // A server with neither takes a second round trip, as it must, and still connects.
    let (group, handshake) = key_exchange(&pki, pki.acceptor_with_groups(&[SECP256R1])).await;
    assert_eq!(group, "secp256r1");
    assert_eq!(
        handshake.kind,
        rustls::HandshakeKind::FullWithHelloRetryRequest
    );
}

#[tokio::test]
async fn a_client_with_its_own_rustls_config_keeps_its_other_options() {
    let pki = pki();
    let (addr, _) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let mut roots = rustls::RootCertStore::empty();
    roots
        .add(rustls_pki_types::CertificateDer::from(pki.ca_der.clone()))
        .unwrap();
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let config = Arc::new(
        rustls::ClientConfig::builder_with_provider(provider)
            .with_safe_default_protocol_versions()
            .unwrap()
            .with_root_certificates(roots)
            .with_no_client_auth(),
    );
    assert!(config.alpn_protocols.is_empty());
    // The resolver override applies, and ALPN is filled in: HTTP/2.
    let client = whatwg_fetch::Client::builder()
        .rustls_config(config.clone())
        .resolve("localhost", addr)
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/", addr.port());
    let fetched = tokio::time::timeout(
        Duration::from_secs(10),
        client.fetch(url.as_str(), whatwg_fetch::RequestInit::default()),
    );
    let mut response = fetched.await.unwrap().unwrap();
    assert_eq!(response.text().await.unwrap(), format!("HTTP/2.0 {url}"));

    // The connect timeout applies: a server that never answers the client hello.
    let silent = raw_server(|tcp| async move {
        tokio::time::sleep(Duration::from_secs(30)).await;
        drop(tcp);
    })
    .await;
    let client = whatwg_fetch::Client::builder()
        .rustls_config(config)
        .resolve("localhost", silent.addr)
        .connect_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/", silent.addr.port());
    let fetched = tokio::time::timeout(
        Duration::from_secs(10),
        client.fetch(url.as_str(), whatwg_fetch::RequestInit::default()),
    );
    let error = fetched.await.unwrap().unwrap_err();
    assert!(
        matches!(
            error.network_error(),
            Some(NetworkError::Timeout {
                kind: whatwg_fetch::TimeoutKind::Connect,
                ..
            })
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn the_client_builder_forwards_the_tls_options() {
    let mutual = ClientAuthPki::new(&["localhost"]);
    let acceptor = mutual.pki.acceptor_with(
        &[b"h2", b"http/1.1"],
        &[&rustls::version::TLS12],
        Some(&mutual.pki.ca_der),
    );
    let server =
        net_support::tls_server(acceptor, |_| async { http::Response::new(full("ok")) }).await;
    let url = format!("https://elsewhere.test:{}/", server.addr.port());
    let fetch = |client: whatwg_fetch::Client| {
        let url = url.clone();
        async move {
            let fetched = client.fetch(url.as_str(), whatwg_fetch::RequestInit::default());
            tokio::time::timeout(Duration::from_secs(10), fetched)
                .await
                .unwrap()
        }
    };
    let builder = || {
        whatwg_fetch::Client::builder()
            .tls_system_roots(false)
            .tls_built_in_roots(false)
            .add_root_certificates_pem(mutual.pki.ca_pem.as_bytes().to_vec())
            .resolve("elsewhere.test", server.addr)
    };
    let identity = || Identity::from_pem(mutual.client_pem.as_bytes()).unwrap();
    // Identity, a name the certificate lacks, and TLS 1.2: all three are needed.
    let ok = builder()
        .identity(identity())
        .danger_accept_invalid_hostnames(true)
        .max_tls_version(TlsVersion::Tls12);
    assert_eq!(fetch(ok.build().unwrap()).await.unwrap().status(), 200);
    for (without, builder) in [
        ("identity", builder().danger_accept_invalid_hostnames(true)),
        ("hostnames", builder().identity(identity())),
        (
            "TLS 1.2",
            builder()
                .identity(identity())
                .danger_accept_invalid_hostnames(true)
                .min_tls_version(TlsVersion::Tls13),
        ),
    ] {
        let error = fetch(builder.build().unwrap()).await.unwrap_err();
        assert!(
            matches!(error.network_error(), Some(NetworkError::Tls(_))),
            "without {without}: {error:?}"
        );
    }
    let everything = whatwg_fetch::Client::builder()
        .danger_accept_invalid_certs(true)
        .identity(identity())
        .resolve("elsewhere.test", server.addr);
    assert_eq!(
        fetch(everything.build().unwrap()).await.unwrap().status(),
        200
    );
}
