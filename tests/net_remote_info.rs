//! What a response tells of the connection it came over, as reqwest's
//! `Response::remote_addr` and `tls_info` do: the socket peer's address (the server's, or
//! a proxy's), and the origin's TLS (version, cipher suite, certificate chain), recorded
//! once per connection and shared by every response on it; nothing for a response that
//! did not come from the network.

mod net_support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use net_support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use whatwg_fetch::net::{HyperTransport, SendOptions, Transport};
use whatwg_fetch::{Client, ClientBuilder, Proxy, Response, TlsInfo, TlsVersion};

/// A CA and a certificate it signs for `localhost` and 127.0.0.1.
fn pki() -> TestPki {
    TestPki::new(&["localhost", "127.0.0.1"])
}

/// A TLS server offering `alpn`, answering `ok` over HTTP/2 or HTTP/1.1 as negotiated.
async fn tls_origin(pki: &TestPki, alpn: &[&[u8]]) -> Server {
    tls_server(pki.acceptor(alpn), |_| async {
        http::Response::new(full("ok"))
    })
    .await
}

/// A client trusting only `pki`'s CA, with `localhost` at `addr`.
fn tls_client(pki: &TestPki, addr: SocketAddr) -> ClientBuilder {
    Client::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(pki.ca_pem.as_bytes())
        .resolve("localhost", addr)
}

/// Fetches `url` with `client` and reads the body, which must be `ok`.
async fn fetch_ok(client: &Client, url: &str) -> Response {
    let mut response = client.get(url).send().await.unwrap();
    // Read to the end, so that an HTTP/1.1 connection is back in the pool.
    assert_eq!(response.text().await.unwrap(), "ok");
    response
}

/// The TLS of `response`, which must have some.
fn tls(response: &Response) -> &TlsInfo {
    response.tls_info().expect("an https response has TLS info")
}

/// An HTTP/1.1 proxy on 127.0.0.1: a `CONNECT` opens a tunnel to its target; any other
/// request is answered `ok` by the proxy itself (standing in for the origin), one per
/// connection. Counts the connections it accepts.
async fn proxy() -> (SocketAddr, Arc<AtomicUsize>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepts = Arc::new(AtomicUsize::new(0));
    let counted = accepts.clone();
    tokio::spawn(async move {
        while let Ok((mut client, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let Some(head) = read_head(&mut client).await else {
                    return;
                };
                let mut words = head.split_whitespace();
                match (words.next(), words.next()) {
                    (Some("CONNECT"), Some(target)) => {
                        let Ok(mut upstream) = TcpStream::connect(target).await else {
                            return;
                        };
                        let _ = client
                            .write_all(b"HTTP/1.1 200 Connection established\r\n\r\n")
                            .await;
                        let _ = tokio::io::copy_bidirectional(&mut client, &mut upstream).await;
                    }
                    _ => {
                        let _ = client
                            .write_all(
                                b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok",
                            )
                            .await;
                        let mut rest = [0; 64];
                        let _ = client.read(&mut rest).await;
                    }
                }
            });
        }
    });
    (addr, accepts)
}

#[tokio::test]
async fn remote_addr_is_the_servers_on_a_new_and_on_a_reused_http1_connection() {
    let server = hyper_server(|_| async { http::Response::new(full("ok")) }).await;
    let client = Client::builder().build().unwrap();
    let first = fetch_ok(&client, &server.url("/a")).await;
    let second = fetch_ok(&client, &server.url("/b")).await;
    assert_eq!(
        server.counts.accepts(),
        1,
        "the second request reused the connection"
    );
    assert_eq!(first.remote_addr(), Some(server.addr));
    assert_eq!(second.remote_addr(), Some(server.addr));
    // Plain `http:`: no TLS to tell of.
    assert!(first.tls_info().is_none());
    assert!(second.tls_info().is_none());
}

#[tokio::test]
async fn a_clone_of_a_response_keeps_the_remote_addr() {
    let server = hyper_server(|_| async { http::Response::new(full("ok")) }).await;
    let client = Client::builder().build().unwrap();
    let mut response = client.get(server.url("/")).send().await.unwrap();
    let clone = response.try_clone().unwrap();
    assert_eq!(clone.remote_addr(), Some(server.addr));
    assert_eq!(response.remote_addr(), Some(server.addr));
}

#[tokio::test]
async fn https_over_http2_gives_the_servers_address_and_one_tls_info_for_every_stream() {
    let pki = pki();
    let server = tls_origin(&pki, &[b"h2"]).await;
    let client = tls_client(&pki, server.addr).build().unwrap();
    let url = format!("https://localhost:{}/", server.addr.port());
    let first = fetch_ok(&client, &url).await;
    let second = fetch_ok(&client, &url).await;
    assert_eq!(server.counts.accepts(), 1, "one HTTP/2 connection for both");
    for response in [&first, &second] {
        assert_eq!(response.timing().unwrap().next_hop_protocol, "h2");
        assert_eq!(response.remote_addr(), Some(server.addr));
    }
    // Recorded once, when the connection was made: both responses share it.
    assert!(std::ptr::eq(tls(&first), tls(&second)));
}

#[tokio::test]
async fn tls_info_gives_the_version_the_cipher_suite_and_the_servers_certificate() {
    let pki = pki();
    let server = tls_origin(&pki, &[b"http/1.1"]).await;
    let client = tls_client(&pki, server.addr).build().unwrap();
    let url = format!("https://localhost:{}/", server.addr.port());
    let first = fetch_ok(&client, &url).await;
    let second = fetch_ok(&client, &url).await;
    assert_eq!(
        server.counts.accepts(),
        1,
        "the HTTP/1.1 connection was reused"
    );
    assert_eq!(first.timing().unwrap().next_hop_protocol, "http/1.1");
    let info = tls(&first);
    assert_eq!(info.version(), TlsVersion::Tls13);
    // The IANA registry's name and value of a TLS 1.3 suite (rustls's `TLS13_...`).
    assert!(
        matches!(
            (info.cipher_suite(), info.cipher_suite_id()),
            ("TLS_AES_128_GCM_SHA256", 0x1301)
                | ("TLS_AES_256_GCM_SHA384", 0x1302)
                | ("TLS_CHACHA20_POLY1305_SHA256", 0x1303)
        ),
        "{info:?}"
    );
    assert_eq!(info.peer_certificate(), Some(pki.cert.as_ref()));
    assert_eq!(info.peer_certificates(), [pki.cert.to_vec()]);
    assert_eq!(first.remote_addr(), Some(server.addr));
    // The reused connection's response shares what its first one recorded.
    assert!(std::ptr::eq(info, tls(&second)));
}

#[tokio::test]
async fn tls_info_over_tls_1_2_names_its_suite_as_the_registry_does() {
    let pki = pki();
    let server = tls_origin(&pki, &[b"http/1.1"]).await;
    let client = tls_client(&pki, server.addr)
        .max_tls_version(TlsVersion::Tls12)
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/", server.addr.port());
    let response = fetch_ok(&client, &url).await;
    let info = tls(&response);
    assert_eq!(info.version(), TlsVersion::Tls12);
    // rcgen's keys are ECDSA P-256: an ECDHE_ECDSA suite, named as IANA names it.
    assert!(
        info.cipher_suite().starts_with("TLS_ECDHE_ECDSA_WITH_"),
        "{info:?}"
    );
    assert_eq!(info.peer_certificate(), Some(pki.cert.as_ref()));
}

#[tokio::test]
async fn through_an_http_proxy_remote_addr_is_the_proxys() {
    let (proxy_addr, accepts) = proxy().await;
    let client = Client::builder()
        .proxy(Proxy::http(&format!("http://{proxy_addr}")).unwrap())
        .build()
        .unwrap();
    // The origin does not exist: only the proxy answers.
    let response = fetch_ok(&client, "http://origin.invalid/").await;
    assert_eq!(accepts.load(Ordering::SeqCst), 1);
    assert_eq!(response.remote_addr(), Some(proxy_addr));
    assert!(response.tls_info().is_none());
}

#[tokio::test]
async fn through_a_proxy_tunnel_the_tls_info_is_the_origins_and_remote_addr_the_proxys() {
    let pki = pki();
    let origin = tls_origin(&pki, &[b"h2", b"http/1.1"]).await;
    let (proxy_addr, accepts) = proxy().await;
    let client = Client::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(pki.ca_pem.as_bytes())
        .proxy(Proxy::https(&format!("http://{proxy_addr}")).unwrap())
        .build()
        .unwrap();
    let url = format!("https://127.0.0.1:{}/", origin.addr.port());
    let response = fetch_ok(&client, &url).await;
    assert_eq!(accepts.load(Ordering::SeqCst), 1, "through the proxy");
    assert_eq!(origin.counts.accepts(), 1);
    assert_eq!(response.remote_addr(), Some(proxy_addr));
    assert_eq!(tls(&response).peer_certificate(), Some(pki.cert.as_ref()));
}

#[tokio::test]
async fn a_data_url_has_no_remote_addr_and_no_tls_info() {
    let client = Client::builder().build().unwrap();
    let response = client.get("data:,ok").send().await.unwrap();
    assert_eq!(response.remote_addr(), None);
    assert!(response.tls_info().is_none());
    assert!(
        Response::new(None, Default::default())
            .unwrap()
            .remote_addr()
            .is_none()
    );
}

#[tokio::test]
async fn a_response_from_the_http_cache_has_no_remote_addr() {
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = requests.clone();
    let server = hyper_server(move |_| {
        counted.fetch_add(1, Ordering::SeqCst);
        async {
            http::Response::builder()
                .header("cache-control", "max-age=3600")
                .body(full("ok"))
                .unwrap()
        }
    })
    .await;
    let client = Client::builder().http_cache(true).build().unwrap();
    let fetched = fetch_ok(&client, &server.url("/")).await;
    let cached = fetch_ok(&client, &server.url("/")).await;
    assert_eq!(
        requests.load(Ordering::SeqCst),
        1,
        "the second one is from the cache"
    );
    assert_eq!(fetched.remote_addr(), Some(server.addr));
    assert_eq!(cached.remote_addr(), None);
    assert!(cached.tls_info().is_none());
}

#[tokio::test]
async fn the_transport_gives_remote_addr_and_tls_info_on_the_body() {
    let pki = pki();
    let server = tls_origin(&pki, &[b"http/1.1"]).await;
    let transport = HyperTransport::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(pki.ca_pem.as_bytes())
        .unwrap()
        .resolve("localhost", server.addr)
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/", server.addr.port());
    let mut response = transport.send(get(&url), SendOptions::new()).await.unwrap();
    let body = response.body_mut();
    let info = body.connection_info().unwrap();
    assert_eq!(info.remote_addr, Some(server.addr));
    assert!(info.secure);
    let tls = body.tls_info().unwrap();
    assert_eq!(tls.peer_certificate(), Some(pki.cert.as_ref()));
    assert_eq!(tls.version(), TlsVersion::Tls13);

    let plain = hyper_server(|_| async { http::Response::new(full("ok")) }).await;
    let mut response = transport
        .send(get(&plain.url("/")), SendOptions::new())
        .await
        .unwrap();
    let body = response.body_mut();
    assert_eq!(
        body.connection_info().unwrap().remote_addr,
        Some(plain.addr)
    );
    assert!(body.tls_info().is_none());
}
