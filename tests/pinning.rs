//! Public-key pinning (`pin_public_keys`, `pin_public_keys_only`) against HTTPS servers on
//! 127.0.0.1 with certificates made here: a pinned key passes, another fails before any
//! request is sent, a reissued certificate and a rotated key, pins instead of the roots,
//! hosts without pins, HTTP/2, coalescing, resumed sessions, and what the builder refuses.

mod net_support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use net_support::*;
use rcgen::{BasicConstraints, CertificateParams, IsCa, Issuer, KeyPair};
use rustls_pki_types::{CertificateDer, PrivateKeyDer, PrivatePkcs8KeyDer};
use whatwg_fetch::net::{
    HyperTransport, HyperTransportBuilder, PinMismatch, PublicKeyPin, SendOptions,
    TlsHandshakeError, Transport,
};
use whatwg_fetch::{Client, NetworkError};

/// A test CA: its certificate (DER) and what signs with it.
struct Ca {
    der: Vec<u8>,
    issuer: Issuer<'static, KeyPair>,
}

impl Ca {
    fn new() -> Ca {
        let mut params = CertificateParams::new(Vec::<String>::new()).unwrap();
        params.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
        let key = KeyPair::generate().unwrap();
        let der = params.self_signed(&key).unwrap().der().to_vec();
        Ca {
            der,
            issuer: Issuer::new(params, key),
        }
    }

    /// A certificate for `names` carrying `key`'s public key.
    fn issue(&self, key: &KeyPair, names: &[&str]) -> CertificateDer<'static> {
        let names: Vec<String> = names.iter().map(|name| (*name).to_owned()).collect();
        CertificateParams::new(names)
            .unwrap()
            .signed_by(key, &self.issuer)
            .unwrap()
            .der()
            .clone()
    }
}

/// A TLS acceptor presenting `certificate` with `key`, offering `alpn`.
fn acceptor(
    certificate: &CertificateDer<'static>,
    key: &KeyPair,
    alpn: &[&[u8]],
) -> tokio_rustls::TlsAcceptor {
    let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    let key = PrivateKeyDer::Pkcs8(PrivatePkcs8KeyDer::from(key.serialize_der()));
    let mut config = rustls::ServerConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_single_cert(vec![certificate.clone()], key)
        .unwrap();
    config.alpn_protocols = alpn.iter().map(|protocol| protocol.to_vec()).collect();
    tokio_rustls::TlsAcceptor::from(Arc::new(config))
}

/// A server answering each request with its protocol version and host.
async fn server(acceptor: tokio_rustls::TlsAcceptor) -> Server {
    tls_server(acceptor, |request| async move {
        http::Response::new(full(format!("{:?} {}", request.version(), host(&request))))
    })
    .await
}

/// The host a request is for, without the port: its URI's (HTTP/2) or its `Host`'s.
fn host<B>(request: &http::Request<B>) -> String {
    let from_header = || {
        let host = request.headers().get(http::header::HOST)?.to_str().ok()?;
        Some(host.rsplit_once(':').map_or(host, |(name, _)| name))
    };
    request
        .uri()
        .host()
        .or_else(from_header)
        .unwrap_or_default()
        .to_owned()
}

/// A server that completes no request: it counts the TLS handshakes that succeeded and
/// the bytes read after them.
async fn watching_server(acceptor: tokio_rustls::TlsAcceptor) -> (Server, Arc<AtomicUsize>) {
    let read = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&read);
    let server = raw_server(move |tcp| {
        let (acceptor, read) = (acceptor.clone(), Arc::clone(&counted));
        async move {
            let Ok(mut tls) = acceptor.accept(tcp).await else {
                return;
            };
            // A handshake that completed counts as a byte, so that it shows.
            read.fetch_add(1, Ordering::SeqCst);
            let mut buffer = [0; 1024];
            while let Ok(n @ 1..) = tokio::io::AsyncReadExt::read(&mut tls, &mut buffer).await {
                read.fetch_add(n, Ordering::SeqCst);
            }
        }
    })
    .await;
    (server, read)
}

/// The pin of `certificate`'s key.
fn pin_of(certificate: &CertificateDer<'_>) -> PublicKeyPin {
    PublicKeyPin::from_certificate_der(certificate).unwrap()
}

/// A pin no key here has.
const STRANGER: PublicKeyPin = PublicKeyPin::from_sha256([0x5a; 32]);

/// A transport trusting `ca` alone, with `names` resolved to `addr`.
fn transport(ca: &Ca, addr: SocketAddr, names: &[&str]) -> HyperTransportBuilder {
    let mut builder = HyperTransport::builder()
        .tls_system_roots(false)
        .tls_built_in_roots(false)
        .add_root_certificate_der(ca.der.clone());
    for name in names {
        builder = builder.resolve(name, addr);
    }
    builder
}

/// Sends a GET within ten seconds and reads the body.
async fn fetch(transport: &HyperTransport, url: &str) -> Result<String, NetworkError> {
    let response = tokio::time::timeout(
        Duration::from_secs(10),
        transport.send(get(url), SendOptions::new()),
    )
    .await
    .expect("the request ends in time")?;
    let body = read_all(response.into_body()).await?;
    Ok(String::from_utf8(body.to_vec()).unwrap())
}

/// The `TlsHandshakeError` behind a transport's error.
fn handshake_error(error: &NetworkError) -> &TlsHandshakeError {
    let NetworkError::Tls(source) = error else {
        panic!("not a TLS error: {error:?}");
    };
    source
        .downcast_ref::<TlsHandshakeError>()
        .unwrap_or_else(|| panic!("not a TlsHandshakeError: {source:?}"))
}

#[tokio::test]
async fn a_pinned_key_that_matches_lets_the_request_through_over_http1_and_http2() {
    let ca = Ca::new();
    let key = KeyPair::generate().unwrap();
    let certificate = ca.issue(&key, &["localhost"]);
    for (alpn, version) in [(&b"http/1.1"[..], "HTTP/1.1"), (&b"h2"[..], "HTTP/2.0")] {
        let server = server(acceptor(&certificate, &key, &[alpn])).await;
        let transport = transport(&ca, server.addr, &["localhost"])
            .pin_public_keys("localhost", [STRANGER, pin_of(&certificate)])
            .build()
            .unwrap();
        let url = format!("https://localhost:{}/", server.addr.port());
        assert_eq!(
            fetch(&transport, &url).await.unwrap(),
            format!("{version} localhost")
        );
    }
}

#[tokio::test]
async fn a_key_not_pinned_fails_the_connection_naming_the_host_and_both_pins_before_any_request() {
    let ca = Ca::new();
    let key = KeyPair::generate().unwrap();
    let certificate = ca.issue(&key, &["localhost"]);
    let seen = pin_of(&certificate);
    let other = PublicKeyPin::from_sha256([0x11; 32]);
    for alpn in [&b"http/1.1"[..], b"h2"] {
        let (server, read) = watching_server(acceptor(&certificate, &key, &[alpn])).await;
        let client = Client::builder()
            .tls_system_roots(false)
            .tls_built_in_roots(false)
            .add_root_certificate_der(ca.der.clone())
            .resolve("localhost", server.addr)
            .pin_public_keys("localhost", [STRANGER, other])
            .build()
            .unwrap();
        let url = format!("https://localhost:{}/secret?token=1", server.addr.port());
        let error = client.post(&url).body("payload").send().await.unwrap_err();
        assert!(error.is_connect(), "{error:?}");
        assert!(matches!(error.network_error(), Some(NetworkError::Tls(_))));
        let mismatch = PinMismatch::find(&error).expect("a pin mismatch");
        assert_eq!(mismatch.host(), "localhost");
        assert_eq!(mismatch.pinned_for(), "localhost");
        assert_eq!(mismatch.found(), seen);
        assert_eq!(mismatch.expected(), [STRANGER, other]);
        assert_eq!(
            format!("{error:#}"),
            format!(
                "TypeError: network error for {url}: TLS handshake with localhost failed: the \
                 server's public key {seen} is not among the pins for localhost: {STRANGER}, \
                 {other}"
            )
        );
        assert!(
            format!("{error:#}").contains("sha256//WlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlpaWlo="),
            "the pins in their sha256// form"
        );
        // The server's side of the handshake never completed: not a byte of the request.
        tokio::time::sleep(Duration::from_millis(50)).await;
        assert_eq!(read.load(Ordering::SeqCst), 0, "{alpn:?}");
        assert!(server.counts.accepts() >= 1);
    }
}

#[tokio::test]
async fn a_transport_error_carries_the_mismatch_in_its_handshake_error() {
    let ca = Ca::new();
    let key = KeyPair::generate().unwrap();
    let certificate = ca.issue(&key, &["localhost", "127.0.0.1"]);
    let server = server(acceptor(&certificate, &key, &[b"h2"])).await;
    let transport = transport(&ca, server.addr, &[])
        .pin_public_keys("127.0.0.1", [STRANGER])
        .build()
        .unwrap();
    let error = fetch(&transport, &format!("https://{}/", server.addr))
        .await
        .unwrap_err();
    let handshake = handshake_error(&error);
    assert_eq!(handshake.host(), "127.0.0.1");
    let mismatch = handshake.pin_mismatch().expect("a pin mismatch");
    assert_eq!(mismatch.host(), "127.0.0.1");
    assert_eq!(mismatch.found(), pin_of(&certificate));
    assert_eq!(
        said(handshake),
        format!(
            "TLS handshake with 127.0.0.1 failed: the server's public key {} is not among \
             the pins for 127.0.0.1: {STRANGER}",
            pin_of(&certificate)
        )
    );
}

#[tokio::test]
async fn a_certificate_reissued_for_the_same_key_passes_the_same_pin() {
    let ca = Ca::new();
    let key = KeyPair::generate().unwrap();
    let first = ca.issue(&key, &["localhost"]);
    let reissued = ca.issue(&key, &["localhost", "www.localhost"]);
    assert_ne!(first, reissued);
    assert_eq!(pin_of(&first), pin_of(&reissued));
    for certificate in [&first, &reissued] {
        let server = server(acceptor(certificate, &key, &[b"http/1.1"])).await;
        let transport = transport(&ca, server.addr, &["localhost"])
            .pin_public_keys("localhost", [pin_of(&first)])
            .build()
            .unwrap();
        let url = format!("https://localhost:{}/", server.addr.port());
        assert_eq!(fetch(&transport, &url).await.unwrap(), "HTTP/1.1 localhost");
    }
}

#[tokio::test]
async fn a_rotated_key_passes_with_the_old_and_new_pins_and_fails_with_the_old_alone() {
    let ca = Ca::new();
    let (old_key, new_key) = (KeyPair::generate().unwrap(), KeyPair::generate().unwrap());
    let old = ca.issue(&old_key, &["localhost"]);
    let new = ca.issue(&new_key, &["localhost"]);
    let server = server(acceptor(&new, &new_key, &[b"h2", b"http/1.1"])).await;
    let url = format!("https://localhost:{}/", server.addr.port());
    // The new key pinned beside the old one before the rotation, as a backup pin.
    let both = transport(&ca, server.addr, &["localhost"])
        .pin_public_keys("localhost", [pin_of(&old)])
        .pin_public_keys("localhost", [pin_of(&new)])
        .build()
        .unwrap();
    assert_eq!(fetch(&both, &url).await.unwrap(), "HTTP/2.0 localhost");
    let old_only = transport(&ca, server.addr, &["localhost"])
        .pin_public_keys("localhost", [pin_of(&old)])
        .build()
        .unwrap();
    let error = fetch(&old_only, &url).await.unwrap_err();
    let mismatch = handshake_error(&error).pin_mismatch().unwrap();
    assert_eq!(mismatch.found(), pin_of(&new));
    assert_eq!(mismatch.expected(), [pin_of(&old)]);
}

#[tokio::test]
async fn pins_only_accepts_a_self_signed_certificate_no_root_vouches_for() {
    let device = TestPki::self_signed(&["device.local"]);
    let pin = pin_of(&device.cert);
    let server = tls_server(
        device.acceptor(&[b"h2", b"http/1.1"]),
        |request| async move { http::Response::new(full(format!("{:?}", request.version()))) },
    )
    .await;
    let trusting_nothing = || {
        HyperTransport::builder()
            .tls_system_roots(false)
            .tls_built_in_roots(false)
            .resolve("device.local", server.addr)
    };
    let url = format!("https://device.local:{}/", server.addr.port());
    let transport = trusting_nothing()
        .pin_public_keys_only("device.local", [pin])
        .build()
        .unwrap();
    assert_eq!(fetch(&transport, &url).await.unwrap(), "HTTP/2.0");
    // Neither the issuer nor the name is checked: by its address, which the certificate
    // does not name, too.
    let by_address = trusting_nothing()
        .pin_public_keys_only("127.0.0.1", [pin])
        .build()
        .unwrap();
    let url = format!("https://{}/", server.addr);
    assert_eq!(fetch(&by_address, &url).await.unwrap(), "HTTP/2.0");
    // The key still has to be the pinned one.
    let other = trusting_nothing()
        .pin_public_keys_only("127.0.0.1", [STRANGER])
        .build()
        .unwrap();
    let error = fetch(&other, &url).await.unwrap_err();
    assert_eq!(handshake_error(&error).pin_mismatch().unwrap().found(), pin);
    // Pinned on top of the validation, the unknown issuer still fails.
    let on_top = trusting_nothing()
        .pin_public_keys("127.0.0.1", [pin])
        .build()
        .unwrap();
    let error = fetch(&on_top, &url).await.unwrap_err();
    let message = said(handshake_error(&error));
    assert!(
        message.contains("no root certificates to trust"),
        "{message}"
    );
    assert!(handshake_error(&error).pin_mismatch().is_none());
}

#[tokio::test]
async fn a_host_without_pins_on_the_same_client_is_unaffected() {
    let ca = Ca::new();
    let key = KeyPair::generate().unwrap();
    let certificate = ca.issue(&key, &["localhost", "open.test"]);
    let server = server(acceptor(&certificate, &key, &[b"http/1.1"])).await;
    let device = TestPki::self_signed(&["open.test"]);
    let self_signed = tls_server(device.acceptor(&[b"http/1.1"]), |_| async move {
        http::Response::new(full("self-signed"))
    })
    .await;
    let transport = transport(&ca, server.addr, &["localhost", "open.test"])
        .resolve("device.test", self_signed.addr)
        .pin_public_keys("localhost", [STRANGER])
        .pin_public_keys_only("device.test", [pin_of(&device.cert)])
        .build()
        .unwrap();
    let port = server.addr.port();
    let error = fetch(&transport, &format!("https://localhost:{port}/"))
        .await
        .unwrap_err();
    assert!(handshake_error(&error).pin_mismatch().is_some());
    // The same server, under a name without pins: validated as usual, and accepted.
    assert_eq!(
        fetch(&transport, &format!("https://open.test:{port}/"))
            .await
            .unwrap(),
        "HTTP/1.1 open.test"
    );
    assert_eq!(
        fetch(
            &transport,
            &format!("https://device.test:{}/", self_signed.addr.port())
        )
        .await
        .unwrap(),
        "self-signed"
    );
    // Another host is not spared the validation a pins-only host is.
    let unpinned = HyperTransport::builder()
        .tls_system_roots(false)
        .tls_built_in_roots(false)
        .add_root_certificate_der(ca.der.clone())
        .resolve("open.test", self_signed.addr)
        .pin_public_keys_only("device.test", [pin_of(&device.cert)])
        .build()
        .unwrap();
    let error = fetch(
        &unpinned,
        &format!("https://open.test:{}/", self_signed.addr.port()),
    )
    .await
    .unwrap_err();
    // (The test CA and the self-signed certificate share a subject name, so webpki takes
    // the one for the other's issuer and finds the signature wrong.)
    let message = said(handshake_error(&error));
    assert!(
        message.starts_with("TLS handshake with open.test failed: invalid peer certificate"),
        "{message}"
    );
    assert!(handshake_error(&error).pin_mismatch().is_none());
}

#[tokio::test]
async fn a_wildcard_pins_the_hosts_one_label_below_it() {
    let ca = Ca::new();
    let key = KeyPair::generate().unwrap();
    let certificate = ca.issue(
        &key,
        &["example.test", "*.example.test", "a.b.example.test"],
    );
    let server = server(acceptor(&certificate, &key, &[b"http/1.1"])).await;
    let names = ["example.test", "api.example.test", "a.b.example.test"];
    let transport = transport(&ca, server.addr, &names)
        .pin_public_keys("*.example.test", [STRANGER])
        .build()
        .unwrap();
    let port = server.addr.port();
    let error = fetch(&transport, &format!("https://api.example.test:{port}/"))
        .await
        .unwrap_err();
    let mismatch = handshake_error(&error).pin_mismatch().unwrap().clone();
    assert_eq!(mismatch.host(), "api.example.test");
    assert_eq!(mismatch.pinned_for(), "*.example.test");
    assert!(mismatch.to_string().contains("the pins for *.example.test"));
    for unpinned in ["example.test", "a.b.example.test"] {
        let url = format!("https://{unpinned}:{port}/");
        assert_eq!(
            fetch(&transport, &url).await.unwrap(),
            format!("HTTP/1.1 {unpinned}")
        );
    }
}

#[tokio::test]
async fn a_pinned_host_shares_another_origins_http2_connection_only_if_its_key_is_pinned() {
    let ca = Ca::new();
    let key = KeyPair::generate().unwrap();
    let certificate = ca.issue(&key, &["a.test", "b.test"]);
    // One server for both names, speaking HTTP/2.
    let server = server(acceptor(&certificate, &key, &[b"h2"])).await;
    let (addr, accepts) = (server.addr, &server.counts.accepts);
    let port = addr.port();
    // b.test pinned to another key: a.test's connection is not for it, and its own
    // fails.
    let wrong = transport(&ca, addr, &["a.test", "b.test"])
        .pin_public_keys("b.test", [STRANGER])
        .build()
        .unwrap();
    fetch(&wrong, &format!("https://a.test:{port}/"))
        .await
        .unwrap();
    let error = fetch(&wrong, &format!("https://b.test:{port}/"))
        .await
        .unwrap_err();
    assert_eq!(
        handshake_error(&error).pin_mismatch().unwrap().host(),
        "b.test"
    );
    assert_eq!(accepts.load(Ordering::SeqCst), 2);
    // Pinned to the key the connection has: shared, as without pins.
    let right = transport(&ca, addr, &["a.test", "b.test"])
        .pin_public_keys("b.test", [pin_of(&certificate)])
        .build()
        .unwrap();
    fetch(&right, &format!("https://a.test:{port}/"))
        .await
        .unwrap();
    fetch(&right, &format!("https://b.test:{port}/"))
        .await
        .unwrap();
    assert_eq!(accepts.load(Ordering::SeqCst), 3);
    assert_eq!(right.pool_stats().connections_opened, 1);
}

#[tokio::test]
async fn a_pins_only_connection_carries_no_origin_that_needs_its_chain_validated() {
    // A certificate for a.test and b.test that no root vouches for.
    let device = TestPki::self_signed(&["a.test", "b.test"]);
    let server = tls_server(device.acceptor(&[b"h2"]), |request| async move {
        http::Response::new(full(request.uri().host().unwrap_or_default().to_owned()))
    })
    .await;
    let port = server.addr.port();
    let transport = HyperTransport::builder()
        .tls_system_roots(false)
        .tls_built_in_roots(false)
        .resolve("a.test", server.addr)
        .resolve("b.test", server.addr)
        .pin_public_keys_only("a.test", [pin_of(&device.cert)])
        .build()
        .unwrap();
    fetch(&transport, &format!("https://a.test:{port}/"))
        .await
        .unwrap();
    // b.test has no pins: its own connection, whose chain fails.
    let error = fetch(&transport, &format!("https://b.test:{port}/"))
        .await
        .unwrap_err();
    assert_eq!(handshake_error(&error).host(), "b.test");
    assert!(handshake_error(&error).pin_mismatch().is_none());
    assert_eq!(server.counts.accepts(), 2);
}

#[tokio::test]
async fn a_resumed_session_is_checked_and_passes_with_its_pin() {
    let ca = Ca::new();
    let key = KeyPair::generate().unwrap();
    let certificate = ca.issue(&key, &["localhost"]);
    for version in [
        whatwg_fetch::TlsVersion::Tls13,
        whatwg_fetch::TlsVersion::Tls12,
    ] {
        let (server, mut handshakes) =
            tls_server_reporting_handshakes(acceptor(&certificate, &key, &[b"http/1.1"])).await;
        let transport = transport(&ca, server.addr, &["localhost"])
            .pin_public_keys("localhost", [pin_of(&certificate)])
            .max_tls_version(version)
            .build()
            .unwrap();
        let url = format!("https://localhost:{}/", server.addr.port());
        fetch(&transport, &url).await.unwrap();
        let fresh = SendOptions::new().with_new_connection(true);
        let response = transport.send(get(&url), fresh).await.unwrap();
        let mut body = response.into_body();
        // What the resumed session gives as the peer's certificate: the pinned one.
        let tls = body.tls_info().cloned().expect("TLS info");
        assert_eq!(tls.peer_certificate(), Some(certificate.as_ref()));
        read_all(body).await.unwrap();
        let mut kinds = Vec::new();
        for _ in 0..2 {
            let handshake = tokio::time::timeout(Duration::from_secs(10), handshakes.recv());
            kinds.push(handshake.await.unwrap().unwrap().kind);
        }
        assert_eq!(
            kinds,
            [rustls::HandshakeKind::Full, rustls::HandshakeKind::Resumed],
            "{version}"
        );
    }
}

#[test]
fn the_builder_refuses_pins_it_cannot_apply() {
    let message = |builder: HyperTransportBuilder| {
        let error = builder.build().unwrap_err();
        let Some(NetworkError::Tls(reason)) = error.network_error() else {
            panic!("not a TLS error: {error:?}");
        };
        reason.to_string()
    };
    assert_eq!(
        message(HyperTransport::builder().pin_public_keys("a.test", Vec::<PublicKeyPin>::new())),
        "pin_public_keys(\"a.test\"): no pin given, so no connection to the host could be made"
    );
    assert_eq!(
        message(HyperTransport::builder().pin_public_keys("not a host", [STRANGER])),
        "pin_public_keys(\"not a host\"): not a host name, an IP address or a `*.` pattern \
         of one label (`*.example.com`)"
    );
    let config = rustls::ClientConfig::builder_with_provider(Arc::new(
        rustls::crypto::aws_lc_rs::default_provider(),
    ))
    .with_safe_default_protocol_versions()
    .unwrap()
    .with_root_certificates(rustls::RootCertStore::empty())
    .with_no_client_auth();
    let with_config = HyperTransport::builder()
        .rustls_config(Arc::new(config))
        .pin_public_keys("a.test", [STRANGER]);
    assert!(
        message(with_config)
            .starts_with("pin_public_keys: the pins cannot apply to a rustls_config")
    );
    // The client's builder says the same.
    let error = Client::builder()
        .pin_public_keys_only("*.", [[0; 32]])
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("TLS"), "{error}");
    assert!(
        format!("{error:#}").contains("pin_public_keys(\"*.\")"),
        "{error:#}"
    );
}

#[test]
fn pins_read_and_write_curls_form() {
    let pin: PublicKeyPin = "sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="
        .parse()
        .unwrap();
    assert_eq!(
        pin.to_string(),
        "sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE="
    );
    assert_eq!(pin.to_string().parse::<PublicKeyPin>().unwrap(), pin);
    for (input, says) in [
        (
            "sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMw==",
            "the base64 after sha256// is 31 bytes, not the 32 of a SHA-256 digest",
        ),
        (
            "sha256//YhKJKSzoTt2b5FP18fvpHo7fJY-QCjAa3HWY3tvRMwE=",
            "'-' at byte 34 is not base64",
        ),
        (
            "YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE=",
            "it does not start with sha256//",
        ),
    ] {
        let error = input.parse::<PublicKeyPin>().unwrap_err();
        assert_eq!(error.kind(), whatwg_fetch::ErrorKind::TypeError);
        assert!(
            error
                .message()
                .starts_with(&format!("invalid public key pin {input:?}: {says}")),
            "{}",
            error.message()
        );
    }
}
