//! Proxies: absolute-form requests for `http:` targets, `CONNECT` tunnels for `https:`
//! ones, HTTPS proxies (TLS to the proxy), SOCKS5 proxies, `no_proxy`, refusals, pooling,
//! the environment variables, and a `Client` end to end — against in-process proxies and
//! servers on 127.0.0.1.

mod net_support;

use std::convert::Infallible;
use std::error::Error as _;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use http::StatusCode;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use net_support::*;
use tokio::net::{TcpListener, TcpStream};
use whatwg_fetch::net::{
    HyperTransport, PinMismatch, Proxy, ProxyRefused, PublicKeyPin, SendOptions, SocksRefusal,
    SocksRefused, Transport,
};
use whatwg_fetch::{Client, ErrorKind, NetworkError, RequestInit};

// ---------------------------------------------------------------------------------------
// Servers

/// What a proxy received: the request line's method and target, and its headers.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    target: String,
    headers: http::HeaderMap,
}

/// An HTTP/1.1 proxy: forwards absolute-form requests to their origin, and answers
/// `CONNECT` with a tunnel; with `refuse` set, it answers every request with that status.
/// It records every request and counts the connections it accepts.
struct TestProxy {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
    accepts: Arc<AtomicUsize>,
    /// Over TLS: the protocol ALPN picked on each connection.
    alpn: Arc<Mutex<Vec<Option<Vec<u8>>>>>,
}

impl TestProxy {
    fn url(&self) -> String {
        format!("http://{}", self.addr)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn accepts(&self) -> usize {
        self.accepts.load(Ordering::SeqCst)
    }
}

async fn test_proxy(refuse: Option<StatusCode>) -> TestProxy {
    serve_test_proxy(refuse, None).await
}

/// A [`TestProxy`] spoken to over TLS, accepting with `acceptor`: an `https:` proxy.
async fn tls_test_proxy(acceptor: tokio_rustls::TlsAcceptor) -> TestProxy {
    serve_test_proxy(None, Some(acceptor)).await
}

async fn serve_test_proxy(
    refuse: Option<StatusCode>,
    acceptor: Option<tokio_rustls::TlsAcceptor>,
) -> TestProxy {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let accepts = Arc::new(AtomicUsize::new(0));
    let alpn = Arc::new(Mutex::new(Vec::new()));
    let (server_seen, server_accepts, server_alpn) = (seen.clone(), accepts.clone(), alpn.clone());
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            server_accepts.fetch_add(1, Ordering::SeqCst);
            let seen = server_seen.clone();
            let (acceptor, alpn) = (acceptor.clone(), server_alpn.clone());
            tokio::spawn(async move {
                let service = service_fn(move |req: http::Request<Incoming>| {
                    let seen = seen.clone();
                    async move {
                        seen.lock().unwrap().push(Seen {
                            method: req.method().to_string(),
                            target: req.uri().to_string(),
                            headers: req.headers().clone(),
                        });
                        Ok::<_, Infallible>(proxy_one(req, refuse).await)
                    }
                });
                let http1 = hyper::server::conn::http1::Builder::new();
                match acceptor {
                    None => {
                        let _ = http1
                            .serve_connection(TokioIo::new(stream), service)
                            .with_upgrades()
                            .await;
                    }
                    Some(acceptor) => {
                        let Ok(tls) = acceptor.accept(stream).await else {
                            return;
                        };
                        let protocol = tls.get_ref().1.alpn_protocol().map(<[u8]>::to_vec);
                        alpn.lock().unwrap().push(protocol);
                        let _ = http1
                            .serve_connection(TokioIo::new(tls), service)
                            .with_upgrades()
                            .await;
                    }
                }
            });
        }
    });
    TestProxy {
        addr,
        seen,
        accepts,
        alpn,
    }
}

async fn proxy_one(
    req: http::Request<Incoming>,
    refuse: Option<StatusCode>,
) -> http::Response<ServerBody> {
    let status = |status: StatusCode| {
        let mut response = http::Response::new(full(""));
        *response.status_mut() = status;
        response
    };
    if let Some(refused) = refuse {
        return status(refused);
    }
    if req.method() == http::Method::CONNECT {
        let target = req.uri().to_string();
        let Ok(mut upstream) = TcpStream::connect(&target).await else {
            return status(StatusCode::BAD_GATEWAY);
        };
        tokio::spawn(async move {
            if let Ok(upgraded) = hyper::upgrade::on(req).await {
                let mut upgraded = TokioIo::new(upgraded);
                let _ = tokio::io::copy_bidirectional(&mut upgraded, &mut upstream).await;
            }
        });
        return status(StatusCode::OK);
    }
    // Absolute-form: forward to the origin over a new connection, in origin-form.
    let Some(authority) = req.uri().authority().cloned() else {
        return status(StatusCode::BAD_REQUEST);
    };
    if authority.host().ends_with(".invalid") {
        return status(StatusCode::BAD_GATEWAY);
    }
    let Ok(upstream) = TcpStream::connect(authority.as_str()).await else {
        return status(StatusCode::BAD_GATEWAY);
    };
    let Ok((mut sender, conn)) =
        hyper::client::conn::http1::handshake(TokioIo::new(upstream)).await
    else {
        return status(StatusCode::BAD_GATEWAY);
    };
    tokio::spawn(conn);
    let (mut parts, body) = req.into_parts();
    parts.uri = parts
        .uri
        .path_and_query()
        .map(|p| p.as_str())
        .unwrap_or("/")
        .parse()
        .unwrap();
    parts.headers.remove(http::header::PROXY_AUTHORIZATION);
    match sender
        .send_request(http::Request::from_parts(parts, body))
        .await
    {
        Ok(response) => {
            let (parts, body) = response.into_parts();
            let body = body
                .collect()
                .await
                .map(|b| b.to_bytes())
                .unwrap_or_default();
            http::Response::from_parts(parts, full(body))
        }
        Err(_) => status(StatusCode::BAD_GATEWAY),
    }
}

/// An HTTP/1.1 origin server answering with what it saw: `METHOD target host`.
async fn origin() -> Server {
    hyper_server(|req: http::Request<Incoming>| async move {
        let host = req
            .headers()
            .get(http::header::HOST)
            .map(|h| h.to_str().unwrap().to_owned())
            .unwrap_or_default();
        let leaked = req
            .headers()
            .contains_key(http::header::PROXY_AUTHORIZATION);
        http::Response::new(full(format!(
            "{} {} {host} leaked={leaked}",
            req.method(),
            req.uri()
        )))
    })
    .await
}

/// A CA and a certificate it signs for `localhost` and 127.0.0.1.
fn pki() -> TestPki {
    TestPki::new(&["localhost", "127.0.0.1"])
}

/// A TLS server offering `alpn`, serving HTTP/2 or HTTP/1.1 as negotiated; each response
/// body names the protocol, the target, and whether `Proxy-Authorization` reached it.
async fn tls_server(pki: &TestPki, alpn: &[&[u8]]) -> (SocketAddr, Arc<AtomicUsize>) {
    let server = net_support::tls_server(pki.acceptor(alpn), |req| async move {
        let leaked = req
            .headers()
            .contains_key(http::header::PROXY_AUTHORIZATION);
        let body = format!("{:?} {} leaked={leaked}", req.version(), req.uri());
        http::Response::new(full(body))
    })
    .await;
    (server.addr, server.counts.accepts)
}

fn tls_transport(pki: &TestPki) -> whatwg_fetch::net::HyperTransportBuilder {
    HyperTransport::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(pki.ca_pem.as_bytes())
        .unwrap()
}

/// A host name that does not resolve: only the proxy may connect to it.
const NOWHERE: &str = "origin.invalid";

// ---------------------------------------------------------------------------------------
// http: targets

#[tokio::test]
async fn http_requests_go_to_the_proxy_in_absolute_form_with_credentials() {
    let server = origin().await;
    let proxy = test_proxy(None).await;
    let proxy_url = format!("http://alice:s%3Acret@{}", proxy.addr);
    let transport = HyperTransport::builder()
        .proxy(Proxy::http(&proxy_url).unwrap())
        .build()
        .unwrap();
    let url = server.url("/path?q=1");
    let (status, body) = get_text(&transport, &url).await;
    assert_eq!(status, 200);
    assert_eq!(body, format!("GET /path?q=1 {} leaked=false", server.addr));
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].method, "GET");
    assert_eq!(seen[0].target, url);
    assert_eq!(seen[0].headers["host"], server.addr.to_string());
    // base64("alice:s:cret")
    assert_eq!(
        seen[0].headers["proxy-authorization"],
        "Basic YWxpY2U6czpjcmV0"
    );
}

#[tokio::test]
async fn the_proxy_resolves_the_origin_not_the_client() {
    let proxy = test_proxy(None).await;
    // The client never resolves a proxied host itself; the proxy is given the name.
    let transport = HyperTransport::builder()
        .proxy(Proxy::all(&proxy.url()).unwrap())
        .resolve_with(|host| {
            assert_ne!(host, NOWHERE, "a proxied host was resolved by the client");
            None
        })
        .build()
        .unwrap();
    let response = transport
        .send(get(&format!("http://{NOWHERE}/")), SendOptions::new())
        .await
        .unwrap();
    // The proxy cannot reach it either: its 502 comes back as the response.
    assert_eq!(response.status(), StatusCode::BAD_GATEWAY);
    assert_eq!(proxy.seen()[0].target, format!("http://{NOWHERE}/"));
}

#[tokio::test]
async fn proxied_http_connections_are_pooled() {
    let server = origin().await;
    let proxy = test_proxy(None).await;
    let transport = HyperTransport::builder()
        .proxy(Proxy::http(&proxy.url()).unwrap())
        .build()
        .unwrap();
    for path in ["/a", "/b", "/c"] {
        let (status, _) = get_text(&transport, &server.url(path)).await;
        assert_eq!(status, 200);
    }
    assert_eq!(proxy.seen().len(), 3);
    assert_eq!(proxy.accepts(), 1, "one connection to the proxy, reused");
    // A direct request to the same origin does not share the proxy's connection.
    let direct = HyperTransport::builder()
        .proxy(Proxy::http(&proxy.url()).unwrap().no_proxy("127.0.0.1"))
        .build()
        .unwrap();
    let (status, _) = get_text(&direct, &server.url("/d")).await;
    assert_eq!(status, 200);
    assert_eq!(proxy.seen().len(), 3);
}

#[tokio::test]
async fn no_proxy_hosts_connect_directly() {
    let server = origin().await;
    let proxy = test_proxy(None).await;
    for list in ["127.0.0.1", "127.0.0.0/8", "*", "localhost, 127.0.0.1:1"] {
        let transport = HyperTransport::builder()
            .proxy(Proxy::all(&proxy.url()).unwrap().no_proxy(list))
            .build()
            .unwrap();
        let (status, body) = get_text(&transport, &server.url("/direct")).await;
        assert_eq!(status, 200, "{list}");
        assert!(body.starts_with("GET /direct "), "{list}: {body}");
    }
    // By name too: `localhost` resolved to the server.
    let transport = HyperTransport::builder()
        .proxy(Proxy::all(&proxy.url()).unwrap().no_proxy(".localhost"))
        .resolve("localhost", server.addr)
        .build()
        .unwrap();
    let url = format!("http://localhost:{}/named", server.addr.port());
    let (status, _) = get_text(&transport, &url).await;
    assert_eq!(status, 200);
    assert!(proxy.seen().is_empty(), "{:?}", proxy.seen());
    assert_eq!(proxy.accepts(), 0);
}

#[tokio::test]
async fn an_https_only_proxy_leaves_http_requests_direct_and_first_match_wins() {
    let server = origin().await;
    let unused = test_proxy(None).await;
    let used = test_proxy(None).await;
    let transport = HyperTransport::builder()
        .proxy(Proxy::https(&unused.url()).unwrap())
        .proxy(Proxy::all(&used.url()).unwrap())
        .proxy(Proxy::all(&unused.url()).unwrap())
        .build()
        .unwrap();
    let (status, _) = get_text(&transport, &server.url("/")).await;
    assert_eq!(status, 200);
    assert_eq!(used.seen().len(), 1);
    assert!(unused.seen().is_empty());
}

// ---------------------------------------------------------------------------------------
// https: targets, through CONNECT

#[tokio::test]
async fn connect_tunnel_carries_tls_and_h2() {
    let pki = pki();
    let (addr, accepts) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let proxy = test_proxy(None).await;
    let transport = tls_transport(&pki)
        .proxy(Proxy::https(&format!("http://bob:pw@{}", proxy.addr)).unwrap())
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/x?y", addr.port());
    for _ in 0..3 {
        let response = transport.send(get(&url), SendOptions::new()).await.unwrap();
        assert_eq!(response.version(), http::Version::HTTP_2);
        let body = read_all(response.into_body()).await.unwrap();
        assert_eq!(body, format!("HTTP/2.0 {url} leaked=false"));
    }
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1, "one tunnel, shared by the HTTP/2 connection");
    assert_eq!(seen[0].method, "CONNECT");
    let target = format!("localhost:{}", addr.port());
    assert_eq!(seen[0].target, target);
    assert_eq!(seen[0].headers["host"], target);
    assert_eq!(seen[0].headers["proxy-authorization"], "Basic Ym9iOnB3");
    assert_eq!(accepts.load(Ordering::SeqCst), 1);
    assert_eq!(proxy.accepts(), 1);
}

#[tokio::test]
async fn connect_tunnel_carries_tls_and_http1_and_is_pooled() {
    let pki = pki();
    let (addr, accepts) = tls_server(&pki, &[b"http/1.1"]).await;
    let proxy = test_proxy(None).await;
    let transport = tls_transport(&pki)
        .proxy(Proxy::all(&proxy.url()).unwrap())
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/p", addr.port());
    for _ in 0..3 {
        let (status, body) = get_text(&transport, &url).await;
        assert_eq!(status, 200);
        assert_eq!(body, "HTTP/1.1 /p leaked=false");
    }
    assert_eq!(proxy.seen().len(), 1);
    assert_eq!(accepts.load(Ordering::SeqCst), 1);
    assert_eq!(proxy.accepts(), 1);
}

#[tokio::test]
async fn a_refused_connect_is_a_network_error_with_the_status() {
    let pki = pki();
    let (addr, accepts) = tls_server(&pki, &[b"http/1.1"]).await;
    for refused in [
        StatusCode::FORBIDDEN,
        StatusCode::PROXY_AUTHENTICATION_REQUIRED,
    ] {
        let proxy = test_proxy(Some(refused)).await;
        let transport = tls_transport(&pki)
            .proxy(Proxy::https(&proxy.url()).unwrap())
            .build()
            .unwrap();
        let url = format!("https://localhost:{}/", addr.port());
        let error = transport
            .send(get(&url), SendOptions::new())
            .await
            .unwrap_err();
        assert!(matches!(error, NetworkError::Connect(_)), "{error:?}");
        let source = error.source().unwrap();
        let refusal = source.downcast_ref::<ProxyRefused>().unwrap();
        assert_eq!(refusal.status(), refused);
        let message = source.to_string();
        assert!(message.contains(refused.as_str()), "{message}");
        if refused == StatusCode::PROXY_AUTHENTICATION_REQUIRED {
            assert!(message.contains("authentication"), "{message}");
        }
    }
    assert_eq!(accepts.load(Ordering::SeqCst), 0);
}

#[tokio::test]
async fn a_proxy_that_closes_without_answering_connect_is_an_error() {
    let server = raw_server(|mut stream| async move {
        let _ = read_head(&mut stream).await;
    })
    .await;
    let transport = HyperTransport::builder()
        .proxy(Proxy::https(&format!("http://{}", server.addr)).unwrap())
        .build()
        .unwrap();
    let error = transport
        .send(get("https://localhost:1/"), SendOptions::new())
        .await
        .unwrap_err();
    assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}");
}

#[tokio::test]
async fn a_proxy_that_never_answers_connect_hits_the_connect_timeout() {
    let server = raw_server(|mut stream| async move {
        let _ = read_head(&mut stream).await;
        tokio::time::sleep(std::time::Duration::from_secs(30)).await;
    })
    .await;
    let transport = HyperTransport::builder()
        .proxy(Proxy::https(&format!("http://{}", server.addr)).unwrap())
        .connect_timeout(Some(std::time::Duration::from_millis(200)))
        .build()
        .unwrap();
    let error = transport
        .send(get("https://localhost:8443/"), SendOptions::new())
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            NetworkError::Timeout {
                kind: whatwg_fetch::TimeoutKind::Connect,
                ..
            }
        ),
        "{error:?}"
    );
}

// ---------------------------------------------------------------------------------------
// Configuration

#[test]
fn proxy_urls_with_schemes_no_proxy_speaks_are_type_errors() {
    for url in ["socks4://proxy:1080", "ftp://proxy:21", "http://", "::"] {
        let error = Proxy::all(url).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError, "{url}");
    }
}

#[test]
fn from_env_vars_reads_curls_variables() {
    let proxies = Proxy::from_env_vars([
        ("HTTP_PROXY", "http://upper-http:1"),
        ("http_proxy", "http://lower-http:2"),
        ("HTTPS_PROXY", "upper-https:3"),
        ("ALL_PROXY", "http://all:4"),
        ("NO_PROXY", "upper.test"),
        ("no_proxy", "lower.test, 10.0.0.0/8"),
        ("PATH", "/usr/bin"),
    ])
    .unwrap();
    let urls: Vec<String> = proxies.iter().map(Proxy::url).collect();
    assert_eq!(
        urls,
        [
            "http://lower-http:2",
            "http://upper-https:3",
            "http://all:4"
        ]
    );
    let uri = |s: &str| s.parse::<http::Uri>().unwrap();
    // http_proxy carries http:, https_proxy https:, all_proxy both.
    assert!(proxies[0].intercepts(&uri("http://a.test/")));
    assert!(!proxies[0].intercepts(&uri("https://a.test/")));
    assert!(proxies[1].intercepts(&uri("https://a.test/")));
    assert!(proxies[2].intercepts(&uri("https://a.test/")));
    // The lowercase no_proxy wins, and applies to every proxy.
    for (proxy, scheme) in proxies.iter().zip(["http", "https", "https"]) {
        assert!(!proxy.intercepts(&uri(&format!("{scheme}://x.lower.test/"))));
        assert!(!proxy.intercepts(&uri(&format!("{scheme}://10.1.1.1/"))));
        assert!(proxy.intercepts(&uri(&format!("{scheme}://upper.test/"))));
    }
}

#[test]
fn from_env_vars_ignores_empty_values_and_cgi_http_proxy() {
    assert!(
        Proxy::from_env_vars([("http_proxy", ""), ("HTTPS_PROXY", " ")])
            .unwrap()
            .is_empty()
    );
    assert!(
        Proxy::from_env_vars(Vec::<(String, String)>::new())
            .unwrap()
            .is_empty()
    );
    // httpoxy: in a CGI program, HTTP_PROXY comes from the request's `Proxy:` header.
    let cgi = Proxy::from_env_vars([
        ("REQUEST_METHOD", "GET"),
        ("HTTP_PROXY", "http://attacker:1"),
    ])
    .unwrap();
    assert!(cgi.is_empty());
    let error = Proxy::from_env_vars([("https_proxy", "socks4://p:1")]).unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
}

#[test]
fn a_proxy_debug_hides_its_credentials() {
    let proxy = Proxy::all("http://user:hunter2@proxy:1").unwrap();
    let debug = format!("{proxy:?}");
    assert!(
        !debug.contains("hunter2") && !debug.contains("dXNlcjpodW50ZXIy"),
        "{debug}"
    );
}

// ---------------------------------------------------------------------------------------
// Client

#[tokio::test]
async fn client_fetches_through_a_proxy() {
    let server = origin().await;
    let proxy = test_proxy(None).await;
    let client = Client::builder()
        .proxy(Proxy::http(&format!("http://carol:x@{}", proxy.addr)).unwrap())
        .build()
        .unwrap();
    let url = server.url("/fetched");
    let mut response = client
        .fetch(url.as_str(), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    let body = response.text().await.unwrap();
    assert_eq!(body, format!("GET /fetched {} leaked=false", server.addr));
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].target, url);
    assert_eq!(seen[0].headers["proxy-authorization"], "Basic Y2Fyb2w6eA==");
}

#[tokio::test]
async fn client_fetches_https_through_a_connect_tunnel() {
    let pki = pki();
    let (addr, _) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let proxy = test_proxy(None).await;
    let client = Client::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(pki.ca_pem.as_bytes())
        .proxy(Proxy::all(&proxy.url()).unwrap())
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/secure", addr.port());
    let mut response = client
        .fetch(url.as_str(), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.text().await.unwrap(),
        format!("HTTP/2.0 {url} leaked=false")
    );
    assert_eq!(proxy.seen()[0].method, "CONNECT");
}

#[tokio::test]
async fn client_refused_tunnel_is_a_type_error() {
    let proxy = test_proxy(Some(StatusCode::PROXY_AUTHENTICATION_REQUIRED)).await;
    let client = Client::builder()
        .proxy(Proxy::https(&proxy.url()).unwrap())
        .build()
        .unwrap();
    let error = client
        .fetch("https://localhost:8443/", RequestInit::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert!(matches!(
        error.network_error(),
        Some(NetworkError::Connect(_))
    ));
}

#[tokio::test]
async fn client_http_request_answered_407_by_the_proxy_is_a_network_error() {
    // HTTP-network-or-cache fetch, step 16: a 407 with no traversable to prompt in.
    let server = origin().await;
    let proxy = test_proxy(Some(StatusCode::PROXY_AUTHENTICATION_REQUIRED)).await;
    let client = Client::builder()
        .proxy(Proxy::http(&proxy.url()).unwrap())
        .build()
        .unwrap();
    let error = client
        .fetch(server.url("/").as_str(), RequestInit::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert!(error.network_error().is_some());
    assert_eq!(proxy.seen().len(), 1);
}

#[tokio::test]
async fn client_ignores_the_environment_by_default() {
    // Whatever this process's environment holds, a default client connects directly:
    // the origin answers rather than some proxy.
    let server = origin().await;
    let client = Client::builder().build().unwrap();
    let mut response = client
        .fetch(server.url("/direct").as_str(), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(
        response.text().await.unwrap(),
        format!("GET /direct {} leaked=false", server.addr)
    );
}

// ---------------------------------------------------------------------------------------
// SOCKS5 proxies (RFC 1928, RFC 1929)

/// Runs a test body for at most 30 seconds.
async fn bounded<T>(test: impl std::future::Future<Output = T>) -> T {
    tokio::time::timeout(std::time::Duration::from_secs(30), test)
        .await
        .expect("the test took more than 30 seconds")
}

/// A name no resolver knows but a test SOCKS server's own.
const SOCKS_ONLY: &str = "origin.socks.test";

/// A transport that notes each name it resolves itself, and resolves none.
fn noting_resolver(
    builder: whatwg_fetch::net::HyperTransportBuilder,
) -> (
    whatwg_fetch::net::HyperTransportBuilder,
    Arc<Mutex<Vec<String>>>,
) {
    let resolved = Arc::new(Mutex::new(Vec::new()));
    let noted = resolved.clone();
    let builder = builder.resolve_with(move |host| {
        noted.lock().unwrap().push(host.to_owned());
        None
    });
    (builder, resolved)
}

/// The refusal behind a failed request through a SOCKS5 proxy.
fn socks_refusal(error: &NetworkError) -> &SocksRefused {
    assert!(matches!(error, NetworkError::Connect(_)), "{error:?}");
    error
        .source()
        .and_then(|source| source.downcast_ref::<SocksRefused>())
        .unwrap_or_else(|| panic!("not a SOCKS5 refusal: {error:?}"))
}

#[tokio::test]
async fn socks5_sends_the_address_the_client_resolved_and_requests_in_origin_form() {
    bounded(async {
        let server = origin().await;
        let socks = socks5_server(SocksConfig::default()).await;
        let transport = HyperTransport::builder()
            .proxy(Proxy::all(&socks.url("socks5")).unwrap())
            .resolve(SOCKS_ONLY, server.addr)
            .build()
            .unwrap();
        let url = format!("http://{SOCKS_ONLY}:{}/x?y", server.addr.port());
        let (status, body) = get_text(&transport, &url).await;
        assert_eq!(status, 200);
        // Origin-form, as to the origin itself; no proxy header reaches it.
        let host = format!("{SOCKS_ONLY}:{}", server.addr.port());
        assert_eq!(body, format!("GET /x?y {host} leaked=false"));
        let sessions = socks.sessions();
        assert_eq!(sessions.len(), 1);
        assert_eq!(sessions[0].methods, [0]);
        assert_eq!(sessions[0].target, Some(SocksTarget::Ip(server.addr)));
    })
    .await;
}

#[tokio::test]
async fn socks5h_sends_the_name_which_the_client_never_resolves() {
    bounded(async {
        let server = origin().await;
        let socks = socks5_server(SocksConfig {
            names: [(SOCKS_ONLY.to_owned(), server.addr)].into(),
            ..SocksConfig::default()
        })
        .await;
        let (builder, resolved) = noting_resolver(HyperTransport::builder());
        let transport = builder
            .proxy(Proxy::all(&socks.url("socks5h")).unwrap())
            .build()
            .unwrap();
        let url = format!("http://{SOCKS_ONLY}:{}/named", server.addr.port());
        let (status, body) = get_text(&transport, &url).await;
        assert_eq!(status, 200);
        assert!(body.starts_with("GET /named "), "{body}");
        assert_eq!(
            socks.sessions()[0].target,
            Some(SocksTarget::Name(SOCKS_ONLY.to_owned(), server.addr.port()))
        );
        // The proxy's own address is a literal: nothing was resolved here at all.
        assert!(resolved.lock().unwrap().is_empty(), "{resolved:?}");
    })
    .await;
}

#[tokio::test]
async fn socks5_credentials_authenticate_and_wrong_ones_are_an_authentication_failure() {
    bounded(async {
        let server = origin().await;
        let socks = socks5_server(SocksConfig {
            credentials: Some((b"alice".to_vec(), b"s:cret".to_vec())),
            ..SocksConfig::default()
        })
        .await;
        let url = server.url("/auth");
        // From the URL's userinfo, percent-decoded, and from `basic_auth`.
        let from_url = format!("socks5://alice:s%3Acret@{}", socks.addr);
        let by_method = Proxy::all(&socks.url("socks5"))
            .unwrap()
            .basic_auth("alice", "s:cret");
        for proxy in [Proxy::all(&from_url).unwrap(), by_method] {
            let transport = HyperTransport::builder().proxy(proxy).build().unwrap();
            let (status, _) = get_text(&transport, &url).await;
            assert_eq!(status, 200);
        }
        for session in socks.sessions() {
            assert_eq!(session.methods, [0, 2]);
            assert_eq!(
                session.credentials,
                Some((b"alice".to_vec(), b"s:cret".to_vec()))
            );
        }

        let wrong = format!("socks5://alice:wrong@{}", socks.addr);
        let transport = HyperTransport::builder()
            .proxy(Proxy::all(&wrong).unwrap())
            .build()
            .unwrap();
        let error = transport
            .send(get(&url), SendOptions::new())
            .await
            .unwrap_err();
        let refusal = socks_refusal(&error);
        assert_eq!(refusal.reason(), SocksRefusal::AuthenticationFailed);
        assert_eq!(refusal.proxy(), socks.url("socks5"));
        let message = refusal.to_string();
        assert!(message.contains(&socks.addr.to_string()), "{message}");
        assert!(!message.contains("wrong"), "{message}");

        // No credentials at all: the proxy accepts none of the methods offered.
        let transport = HyperTransport::builder()
            .proxy(Proxy::all(&socks.url("socks5")).unwrap())
            .build()
            .unwrap();
        let error = transport
            .send(get(&url), SendOptions::new())
            .await
            .unwrap_err();
        let refusal = socks_refusal(&error);
        assert_eq!(refusal.reason(), SocksRefusal::NoAcceptableMethod);
        assert!(refusal.to_string().contains("username and password"));
    })
    .await;
}

#[tokio::test]
async fn https_through_socks_carries_tls_to_the_origin() {
    bounded(async {
        let pki = pki();
        let (addr, accepts) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
        let socks = socks5_server(SocksConfig {
            names: [("localhost".to_owned(), addr)].into(),
            ..SocksConfig::default()
        })
        .await;
        for scheme in ["socks5h", "socks5"] {
            let transport = tls_transport(&pki)
                .proxy(Proxy::https(&socks.url(scheme)).unwrap())
                .resolve("localhost", addr)
                .build()
                .unwrap();
            let url = format!("https://localhost:{}/secure", addr.port());
            let response = transport.send(get(&url), SendOptions::new()).await.unwrap();
            // TLS and ALPN to the origin, end to end: HTTP/2.
            assert_eq!(response.version(), http::Version::HTTP_2);
            let body = read_all(response.into_body()).await.unwrap();
            assert_eq!(body, format!("HTTP/2.0 {url} leaked=false"));
        }
        let targets: Vec<_> = socks.sessions().into_iter().map(|s| s.target).collect();
        assert_eq!(
            targets,
            [
                Some(SocksTarget::Name("localhost".to_owned(), addr.port())),
                Some(SocksTarget::Ip(addr)),
            ]
        );
        assert_eq!(accepts.load(Ordering::SeqCst), 2);
    })
    .await;
}

#[tokio::test]
async fn a_socks_refusal_is_a_connect_error_with_the_reply_code() {
    bounded(async {
        let server = origin().await;
        let socks = socks5_server(SocksConfig {
            refuse: Some(5),
            ..SocksConfig::default()
        })
        .await;
        let transport = HyperTransport::builder()
            .proxy(Proxy::all(&socks.url("socks5h")).unwrap())
            .build()
            .unwrap();
        let error = transport
            .send(get("https://example.com/"), SendOptions::new())
            .await
            .unwrap_err();
        let refusal = socks_refusal(&error);
        assert_eq!(refusal.reason(), SocksRefusal::Reply(5));
        assert_eq!(
            refusal.to_string(),
            format!(
                "SOCKS5 proxy {} refused the connection to example.com:443: connection \
                 refused (reply 5)",
                socks.addr
            )
        );
        assert_eq!(server.counts.accepts(), 0);

        // A name the proxy cannot resolve: "host unreachable".
        let socks = socks5_server(SocksConfig::default()).await;
        let client = Client::builder()
            .proxy(Proxy::all(&socks.url("socks5h")).unwrap())
            .build()
            .unwrap();
        let error = client
            .fetch(&*format!("http://{NOWHERE}/"), RequestInit::default())
            .await
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        let refusal = socks_refusal(error.network_error().unwrap());
        assert_eq!(refusal.reason(), SocksRefusal::Reply(4));
        assert!(refusal.to_string().contains("host unreachable (reply 4)"));
    })
    .await;
}

#[tokio::test]
async fn a_malformed_socks_reply_is_a_protocol_error() {
    bounded(async {
        // Each script answers the greeting, then the CONNECT request, as given.
        let answers: [(&[u8], &[u8]); 4] = [
            // Not a SOCKS5 server: an HTTP one.
            (b"HTTP/1.1 400 Bad Request\r\n\r\n", b""),
            // A reply of another version.
            (&[5, 0], &[4, 0, 0, 1, 127, 0, 0, 1, 0, 80]),
            // An unknown address type.
            (&[5, 0], &[5, 0, 0, 7, 1, 2, 3, 4]),
            // A bound name longer than what follows, then the end.
            (&[5, 0], &[5, 0, 0, 3, 255, b'a']),
        ];
        for (greeting, reply) in answers {
            let server = raw_server(move |mut stream| async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let mut buf = [0u8; 3];
                if stream.read_exact(&mut buf).await.is_err() {
                    return;
                }
                let _ = stream.write_all(greeting).await;
                if greeting.first() != Some(&5) {
                    return;
                }
                // ATYP 3, a one-byte length, the name, the port.
                let mut request = [0u8; 5];
                if stream.read_exact(&mut request).await.is_err() {
                    return;
                }
                let mut rest = vec![0u8; usize::from(request[4]) + 2];
                let _ = stream.read_exact(&mut rest).await;
                let _ = stream.write_all(reply).await;
            })
            .await;
            let transport = HyperTransport::builder()
                .proxy(Proxy::all(&format!("socks5h://{}", server.addr)).unwrap())
                .build()
                .unwrap();
            let error = transport
                .send(get("http://example.com/"), SendOptions::new())
                .await
                .unwrap_err();
            assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}");
            let message = error.source().unwrap().to_string();
            assert!(
                message.contains(&format!("SOCKS5 proxy {}", server.addr)),
                "{message}"
            );
        }
    })
    .await;
}

#[tokio::test]
async fn connections_through_a_socks_proxy_are_pooled() {
    bounded(async {
        let server = origin().await;
        let pki = pki();
        let (tls_addr, tls_accepts) = tls_server(&pki, &[b"http/1.1"]).await;
        let socks = socks5_server(SocksConfig::default()).await;
        let transport = tls_transport(&pki)
            .proxy(Proxy::all(&socks.url("socks5")).unwrap())
            .build()
            .unwrap();
        for path in ["/a", "/b", "/c"] {
            let (status, _) = get_text(&transport, &server.url(path)).await;
            assert_eq!(status, 200);
        }
        assert_eq!(socks.sessions().len(), 1, "one SOCKS session, reused");
        assert_eq!(server.counts.accepts(), 1);
        let url = format!("https://127.0.0.1:{}/p", tls_addr.port());
        for _ in 0..3 {
            let (status, body) = get_text(&transport, &url).await;
            assert_eq!(status, 200);
            assert_eq!(body, "HTTP/1.1 /p leaked=false");
        }
        assert_eq!(socks.sessions().len(), 2);
        assert_eq!(tls_accepts.load(Ordering::SeqCst), 1);
    })
    .await;
}

#[tokio::test]
async fn a_proxy_that_cannot_be_reached_is_named_in_the_error() {
    bounded(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let closed = listener.local_addr().unwrap();
        drop(listener);
        for proxy in [format!("socks5h://{closed}"), format!("http://{closed}")] {
            let transport = HyperTransport::builder()
                .proxy(Proxy::all(&proxy).unwrap())
                .build()
                .unwrap();
            let error = transport
                .send(get("http://example.com/"), SendOptions::new())
                .await
                .unwrap_err();
            assert!(matches!(error, NetworkError::Connect(_)), "{error:?}");
            let source = error.source().unwrap();
            let message = said(source);
            assert!(
                message.starts_with(&format!("connect to proxy {closed} failed: ")),
                "{message}"
            );
            // The operating system's error stays reachable.
            assert!(source.source().unwrap().is::<std::io::Error>());
        }
    })
    .await;
}

#[tokio::test]
async fn http2_by_prior_knowledge_goes_through_a_socks_tunnel_as_it_would_directly() {
    bounded(async {
        let server = raw_server(|stream| async move {
            let service = service_fn(|req: http::Request<Incoming>| async move {
                let body = format!("{:?} {}", req.version(), req.uri());
                Ok::<_, Infallible>(http::Response::new(full(body)))
            });
            let _ = hyper::server::conn::http2::Builder::new(hyper_util::rt::TokioExecutor::new())
                .serve_connection(TokioIo::new(stream), service)
                .await;
        })
        .await;
        let socks = socks5_server(SocksConfig::default()).await;
        let transport = HyperTransport::builder()
            .http2_prior_knowledge(true)
            .proxy(Proxy::all(&socks.url("socks5")).unwrap())
            .build()
            .unwrap();
        let url = server.url("/h2c");
        for _ in 0..2 {
            let response = transport.send(get(&url), SendOptions::new()).await.unwrap();
            assert_eq!(response.version(), http::Version::HTTP_2);
            let body = read_all(response.into_body()).await.unwrap();
            assert_eq!(body, format!("HTTP/2.0 {url}"));
        }
        assert_eq!(socks.sessions().len(), 1);
        assert_eq!(server.counts.accepts(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_socks_proxy_that_never_answers_hits_the_connect_timeout() {
    bounded(async {
        let server = raw_server(|mut stream| async move {
            use tokio::io::AsyncReadExt;
            let mut greeting = [0u8; 3];
            let _ = stream.read_exact(&mut greeting).await;
            tokio::time::sleep(std::time::Duration::from_secs(30)).await;
        })
        .await;
        let transport = HyperTransport::builder()
            .proxy(Proxy::all(&format!("socks5h://{}", server.addr)).unwrap())
            .connect_timeout(Some(std::time::Duration::from_millis(200)))
            .build()
            .unwrap();
        let error = transport
            .send(get("http://example.com/"), SendOptions::new())
            .await
            .unwrap_err();
        assert!(
            matches!(
                error,
                NetworkError::Timeout {
                    kind: whatwg_fetch::TimeoutKind::Connect,
                    ..
                }
            ),
            "{error:?}"
        );
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// HTTPS proxies: TLS to the proxy itself

/// A CA and certificate for a proxy at 127.0.0.1, apart from the origin's.
fn proxy_pki() -> TestPki {
    TestPki::new(&["127.0.0.1"])
}

/// A transport trusting both the origin's CA and the proxy's.
fn trusting(origin: &TestPki, proxy: &TestPki) -> whatwg_fetch::net::HyperTransportBuilder {
    tls_transport(origin).add_root_certificate_der(proxy.ca_der.clone())
}

#[tokio::test]
async fn an_https_proxy_gets_absolute_form_requests_inside_tls_offering_only_http1() {
    bounded(async {
        let server = origin().await;
        let (origin_pki, proxy_pki) = (pki(), proxy_pki());
        // The proxy would pick h2 if it were offered.
        let proxy = tls_test_proxy(proxy_pki.acceptor(&[b"h2", b"http/1.1"])).await;
        let proxy_url = format!("https://dave:pw@{}", proxy.addr);
        let transport = trusting(&origin_pki, &proxy_pki)
            .proxy(Proxy::http(&proxy_url).unwrap())
            .build()
            .unwrap();
        for path in ["/one", "/two"] {
            let url = server.url(path);
            let (status, body) = get_text(&transport, &url).await;
            assert_eq!(status, 200);
            assert_eq!(body, format!("GET {path} {} leaked=false", server.addr));
        }
        let seen = proxy.seen();
        assert_eq!(seen.len(), 2);
        assert_eq!(seen[0].target, server.url("/one"));
        assert_eq!(seen[0].headers["proxy-authorization"], "Basic ZGF2ZTpwdw==");
        assert_eq!(
            proxy.accepts(),
            1,
            "one TLS connection to the proxy, reused"
        );
        assert_eq!(*proxy.alpn.lock().unwrap(), [Some(b"http/1.1".to_vec())]);
    })
    .await;
}

#[tokio::test]
async fn an_https_proxy_tunnels_tls_to_an_https_origin_inside_its_own_tls() {
    bounded(async {
        let (origin_pki, proxy_pki) = (pki(), proxy_pki());
        let (addr, accepts) = tls_server(&origin_pki, &[b"h2", b"http/1.1"]).await;
        let proxy = tls_test_proxy(proxy_pki.acceptor(&[b"http/1.1"])).await;
        let transport = trusting(&origin_pki, &proxy_pki)
            .proxy(Proxy::all(&format!("https://{}", proxy.addr)).unwrap())
            .build()
            .unwrap();
        let url = format!("https://localhost:{}/inner", addr.port());
        for _ in 0..2 {
            let response = transport.send(get(&url), SendOptions::new()).await.unwrap();
            // The origin's TLS, inside the tunnel, still negotiates HTTP/2.
            assert_eq!(response.version(), http::Version::HTTP_2);
            let body = read_all(response.into_body()).await.unwrap();
            assert_eq!(body, format!("HTTP/2.0 {url} leaked=false"));
        }
        let seen = proxy.seen();
        assert_eq!(seen.len(), 1);
        assert_eq!(seen[0].method, "CONNECT");
        assert_eq!(seen[0].target, format!("localhost:{}", addr.port()));
        assert_eq!(accepts.load(Ordering::SeqCst), 1);
        assert_eq!(proxy.accepts(), 1);
    })
    .await;
}

#[tokio::test]
async fn an_https_proxys_tls_is_held_to_the_pins_of_its_own_host_only() {
    bounded(async {
        let (origin_pki, proxy_pki) = (pki(), proxy_pki());
        let (addr, accepts) = tls_server(&origin_pki, &[b"http/1.1"]).await;
        let proxy = tls_test_proxy(proxy_pki.acceptor(&[b"http/1.1"])).await;
        let proxy_url = format!("https://{}", proxy.addr);
        let url = format!("https://localhost:{}/pinned", addr.port());
        let origin_pin = PublicKeyPin::from_certificate_der(&origin_pki.cert).unwrap();
        // The origin pinned to its key: its TLS inside the tunnel passes, and the proxy,
        // whose host has no pins, is validated as usual.
        let transport = trusting(&origin_pki, &proxy_pki)
            .proxy(Proxy::all(&proxy_url).unwrap())
            .pin_public_keys("localhost", [origin_pin])
            .build()
            .unwrap();
        let (status, _) = get_text(&transport, &url).await;
        assert_eq!(status, 200);
        assert_eq!(proxy.seen().len(), 1);
        // The proxy's host pinned to another key: the TLS to the proxy fails, saying so.
        let transport = trusting(&origin_pki, &proxy_pki)
            .proxy(Proxy::all(&proxy_url).unwrap())
            .pin_public_keys("127.0.0.1", [[0x5a; 32]])
            .build()
            .unwrap();
        let error = transport
            .send(get(&url), SendOptions::new())
            .await
            .unwrap_err();
        assert!(matches!(error, NetworkError::Tls(_)), "{error:?}");
        let cause = error.source().unwrap();
        let message = said(cause);
        assert!(
            message.starts_with(&format!(
                "TLS handshake with proxy {proxy_url} failed: the server's public key sha256//"
            )),
            "{message}"
        );
        assert!(
            message.contains("is not among the pins for 127.0.0.1"),
            "{message}"
        );
        let mismatch = PinMismatch::find(&error).expect("a PinMismatch among the causes");
        assert_eq!(
            mismatch.found(),
            PublicKeyPin::from_certificate_der(&proxy_pki.cert).unwrap()
        );
        // Nothing went through the proxy the second time.
        assert_eq!(proxy.seen().len(), 1);
        assert_eq!(accepts.load(Ordering::SeqCst), 1);
    })
    .await;
}

#[tokio::test]
async fn an_https_proxy_with_an_untrusted_certificate_is_a_tls_error_naming_it() {
    bounded(async {
        let origin_pki = pki();
        let untrusted = proxy_pki();
        let proxy = tls_test_proxy(untrusted.acceptor(&[b"http/1.1"])).await;
        let proxy_url = format!("https://{}", proxy.addr);
        // The origin's CA is trusted, the proxy's is not.
        let transport = tls_transport(&origin_pki)
            .proxy(Proxy::all(&proxy_url).unwrap())
            .build()
            .unwrap();
        for url in ["http://127.0.0.1:1/", "https://localhost:1/"] {
            let error = transport
                .send(get(url), SendOptions::new())
                .await
                .unwrap_err();
            assert!(matches!(error, NetworkError::Tls(_)), "{error:?}");
            let message = error.source().unwrap().to_string();
            assert!(
                message.starts_with(&format!("TLS handshake with proxy {proxy_url} failed")),
                "{message}"
            );
        }
        assert!(proxy.seen().is_empty());
    })
    .await;
}

/// The error of a `GET https://example.com/` through the HTTP proxy at `url`, for
/// `https:` requests alone.
async fn through_https_proxy(url: &str) -> NetworkError {
    let transport = HyperTransport::builder()
        .proxy(Proxy::https(url).unwrap())
        .build()
        .unwrap();
    transport
        .send(get("https://example.com/"), SendOptions::new())
        .await
        .unwrap_err()
}

/// The proxy's refusal behind `error`.
fn refusal_of(error: &NetworkError) -> &ProxyRefused {
    error
        .source()
        .and_then(|source| source.downcast_ref::<ProxyRefused>())
        .unwrap()
}

#[tokio::test]
async fn a_refused_connect_names_the_proxy_and_the_target() {
    bounded(async {
        let proxy = test_proxy(Some(StatusCode::PROXY_AUTHENTICATION_REQUIRED)).await;
        let error = through_https_proxy(&proxy.url()).await;
        let refusal = refusal_of(&error);
        assert_eq!(refusal.proxy(), proxy.url());
        let message = refusal.to_string();
        let expected = format!(
            "proxy {} refused CONNECT example.com:443: 407 Proxy Authentication Required",
            proxy.url()
        );
        assert!(message.starts_with(&expected), "{message}");
    })
    .await;
}

#[tokio::test]
async fn a_407_to_a_connect_says_whether_credentials_went_with_it() {
    bounded(async {
        let proxy = test_proxy(Some(StatusCode::PROXY_AUTHENTICATION_REQUIRED)).await;
        let refusal = |url: String| async move {
            let transport = HyperTransport::builder()
                .proxy(Proxy::https(&url).unwrap())
                .build()
                .unwrap();
            let error = transport
                .send(get("https://example.com/"), SendOptions::new())
                .await
                .unwrap_err();
            error.source().unwrap().to_string()
        };
        // None given: the proxy wants some.
        let message = refusal(proxy.url()).await;
        assert!(message.contains("give credentials"), "{message}");
        // Given and sent: the proxy turned them down, and giving them is not the remedy.
        let message = refusal(format!("http://ada:wrong@{}", proxy.addr)).await;
        let seen = proxy.seen();
        assert!(seen[1].headers.contains_key("proxy-authorization"));
        assert!(
            message.ends_with(
                "407 Proxy Authentication Required (the proxy rejected the credentials sent)"
            ),
            "{message}"
        );
        // The same when they come from the proxy's own headers.
        let mut headers = http::HeaderMap::new();
        headers.insert("proxy-authorization", "Bearer t0ken".parse().unwrap());
        let transport = HyperTransport::builder()
            .proxy(Proxy::https(&proxy.url()).unwrap().headers(headers))
            .build()
            .unwrap();
        let error = transport
            .send(get("https://example.com/"), SendOptions::new())
            .await
            .unwrap_err();
        let message = error.source().unwrap().to_string();
        assert!(message.contains("rejected the credentials"), "{message}");
    })
    .await;
}

#[tokio::test]
async fn a_proxy_whose_connect_answer_never_ends_its_head_is_a_protocol_error() {
    bounded(async {
        // Answers CONNECT with a status line and then header lines without end.
        let sent = Arc::new(AtomicUsize::new(0));
        let counted = sent.clone();
        let proxy = raw_server(move |mut stream| {
            let counted = counted.clone();
            async move {
                use tokio::io::AsyncWriteExt;
                let _ = read_head(&mut stream).await;
                let mut chunk = b"HTTP/1.1 200 OK\r\n".to_vec();
                for _ in 0..1000 {
                    if stream.write_all(&chunk).await.is_err() {
                        return;
                    }
                    counted.fetch_add(chunk.len(), Ordering::SeqCst);
                    chunk = format!("x-filler: {}\r\n", "v".repeat(1000)).into_bytes();
                }
            }
        })
        .await;
        let error = through_https_proxy(&format!("http://{}", proxy.addr)).await;
        assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}");
        assert!(said(&error).contains("larger than 16384"), "{error:?}");
        // The client stopped reading at the 16 KiB limit, long before the 1 MB the proxy
        // would send.
        assert!(sent.load(Ordering::SeqCst) < 1_000_000);
    })
    .await;
}

#[tokio::test]
async fn a_connect_answer_trickled_a_byte_at_a_time_is_read_to_its_end() {
    bounded(async {
        // Each byte a write of its own, so that the end of the head comes over several
        // reads: the client looks for it in the bytes each read adds.
        let proxy = raw_server(|mut stream| async move {
            use tokio::io::AsyncWriteExt;
            let _ = read_head(&mut stream).await;
            for byte in b"HTTP/1.1 407 Proxy Authentication Required\r\nx-a: b\r\n\r\n" {
                if stream.write_all(&[*byte]).await.is_err() {
                    return;
                }
                tokio::time::sleep(std::time::Duration::from_millis(1)).await;
            }
            std::future::pending::<()>().await;
        })
        .await;
        let error = through_https_proxy(&format!("http://{}", proxy.addr)).await;
        let refusal = refusal_of(&error);
        assert_eq!(refusal.status(), StatusCode::PROXY_AUTHENTICATION_REQUIRED);
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// The environment, and a Client, with SOCKS5 and HTTPS proxies

#[test]
fn from_env_vars_reads_socks_and_https_proxies() {
    let proxies = Proxy::from_env_vars([
        ("http_proxy", "socks5://127.0.0.1"),
        ("HTTPS_PROXY", "https://u:p@secure.test"),
        ("all_proxy", "SOCKS5H://proxy.test:9050"),
        ("ALL_PROXY", "http://ignored:1"),
    ])
    .unwrap();
    let urls: Vec<String> = proxies.iter().map(Proxy::url).collect();
    assert_eq!(
        urls,
        [
            "socks5://127.0.0.1:1080",
            "https://secure.test:443",
            "socks5h://proxy.test:9050"
        ]
    );
}

#[test]
fn from_env_vars_names_the_variable_with_an_unsupported_scheme() {
    for name in ["ALL_PROXY", "https_proxy", "HTTP_PROXY"] {
        let error = Proxy::from_env_vars([(name, "socks4://user:hunter2@proxy:1080")]).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        let message = error.message();
        assert!(message.starts_with(&format!("{name}: ")), "{message}");
        assert!(message.contains("socks4"), "{message}");
        assert!(!message.contains("hunter2"), "{message}");
    }
}

#[tokio::test]
async fn client_fetches_through_a_socks5h_proxy() {
    bounded(async {
        let server = origin().await;
        let socks = socks5_server(SocksConfig {
            names: [(SOCKS_ONLY.to_owned(), server.addr)].into(),
            credentials: Some((b"erin".to_vec(), b"pw".to_vec())),
            ..SocksConfig::default()
        })
        .await;
        let client = Client::builder()
            .proxy(Proxy::all(&format!("socks5h://erin:pw@{}", socks.addr)).unwrap())
            .build()
            .unwrap();
        let url = format!("http://{SOCKS_ONLY}:{}/c", server.addr.port());
        let mut response = client.fetch(&*url, RequestInit::default()).await.unwrap();
        assert_eq!(response.status(), 200);
        let body = response.text().await.unwrap();
        assert!(body.starts_with("GET /c "), "{body}");
        assert_eq!(socks.sessions().len(), 1);
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// What the proxy itself is sent: the client's `User-Agent`, and the proxy's own headers

/// A client trusting `pki`, through `proxy`, with `user_agent` unless `None`.
fn client_through(pki: &TestPki, proxy: Proxy, user_agent: Option<&'static str>) -> Client {
    let mut builder = Client::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(pki.ca_pem.as_bytes())
        .proxy(proxy);
    if let Some(user_agent) = user_agent {
        builder = builder.user_agent(user_agent);
    }
    builder.build().unwrap()
}

/// Every value of `name` in `seen`'s headers.
fn values(seen: &Seen, name: &str) -> Vec<String> {
    seen.headers
        .get_all(name)
        .iter()
        .map(|value| value.to_str().unwrap().to_owned())
        .collect()
}

#[tokio::test]
async fn connect_carries_the_clients_user_agent() {
    let pki = pki();
    let (addr, _) = tls_server(&pki, &[b"http/1.1"]).await;
    let proxy = test_proxy(None).await;
    let url = format!("https://localhost:{}/", addr.port());
    let client = client_through(&pki, Proxy::all(&proxy.url()).unwrap(), Some("my-app/1.0"));
    let response = client.fetch(url.as_str(), RequestInit::default()).await;
    assert_eq!(response.unwrap().status(), 200);
    let seen = proxy.seen();
    assert_eq!(seen[0].method, "CONNECT");
    assert_eq!(values(&seen[0], "user-agent"), ["my-app/1.0"]);

    // The default one too.
    let proxy = test_proxy(None).await;
    let client = client_through(&pki, Proxy::all(&proxy.url()).unwrap(), None);
    let response = client.fetch(url.as_str(), RequestInit::default()).await;
    assert_eq!(response.unwrap().status(), 200);
    assert_eq!(
        values(&proxy.seen()[0], "user-agent"),
        [whatwg_fetch::client::DEFAULT_USER_AGENT]
    );
}

#[tokio::test]
async fn a_transport_sends_a_user_agent_on_connect_only_when_given_one() {
    let pki = pki();
    let (addr, _) = tls_server(&pki, &[b"http/1.1"]).await;
    let url = format!("https://localhost:{}/", addr.port());
    for user_agent in [None, Some("tool/2.0")] {
        let proxy = test_proxy(None).await;
        let transport = tls_transport(&pki)
            .proxy(Proxy::https(&proxy.url()).unwrap())
            .proxy_user_agent(user_agent.map(http::HeaderValue::from_static))
            .build()
            .unwrap();
        let (status, _) = get_text(&transport, &url).await;
        assert_eq!(status, 200);
        let seen = proxy.seen();
        assert_eq!(seen[0].method, "CONNECT");
        assert_eq!(
            values(&seen[0], "user-agent"),
            user_agent.into_iter().collect::<Vec<_>>()
        );
    }
}

/// Headers of a proxy's own: a bearer token, a routing tag, a `User-Agent`.
fn proxy_headers() -> http::HeaderMap {
    let mut headers = http::HeaderMap::new();
    headers.insert(
        "proxy-authorization",
        http::HeaderValue::from_static("Bearer dG9rZW4="),
    );
    headers.insert("x-proxy-region", http::HeaderValue::from_static("eu-west"));
    headers.insert(
        "user-agent",
        http::HeaderValue::from_static("proxy-agent/1"),
    );
    headers
}

#[tokio::test]
async fn a_proxys_own_headers_go_on_connect_and_replace_its_credentials_and_user_agent() {
    let pki = pki();
    let (addr, _) = tls_server(&pki, &[b"h2", b"http/1.1"]).await;
    let proxy = test_proxy(None).await;
    // Basic credentials in the URL, which the proxy's own `Proxy-Authorization` replaces.
    let with_credentials = format!("http://alice:pw@{}", proxy.addr);
    let client = client_through(
        &pki,
        Proxy::all(&with_credentials)
            .unwrap()
            .headers(proxy_headers()),
        Some("my-app/1.0"),
    );
    let url = format!("https://localhost:{}/secure", addr.port());
    let mut response = client
        .fetch(url.as_str(), RequestInit::default())
        .await
        .unwrap();
    // Nothing of it reached the origin through the tunnel.
    assert_eq!(
        response.text().await.unwrap(),
        format!("HTTP/2.0 {url} leaked=false")
    );
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].method, "CONNECT");
    assert_eq!(values(&seen[0], "proxy-authorization"), ["Bearer dG9rZW4="]);
    assert_eq!(values(&seen[0], "x-proxy-region"), ["eu-west"]);
    assert_eq!(values(&seen[0], "user-agent"), ["proxy-agent/1"]);
    assert_eq!(
        values(&seen[0], "host"),
        [format!("localhost:{}", addr.port())]
    );
}

#[tokio::test]
async fn a_proxys_own_headers_go_on_every_forwarded_request_winning_for_proxy_fields() {
    let server = origin().await;
    let proxy = test_proxy(None).await;
    let transport = HyperTransport::builder()
        .proxy(Proxy::http(&proxy.url()).unwrap().headers(proxy_headers()))
        .build()
        .unwrap();
    let request = || {
        http::Request::get(server.url("/"))
            .header("proxy-authorization", "Basic b3du")
            .header("user-agent", "request-agent/3")
            .body(whatwg_fetch::net::RequestBody::empty())
            .unwrap()
    };
    for _ in 0..2 {
        let response = transport.send(request(), SendOptions::new()).await.unwrap();
        assert_eq!(response.status(), 200);
        read_all(response.into_body()).await.unwrap();
    }
    // Both on one pooled connection to the proxy, each with the proxy's headers.
    assert_eq!(proxy.accepts(), 1);
    let seen = proxy.seen();
    assert_eq!(seen.len(), 2);
    for seen in &seen {
        assert_eq!(seen.target, server.url("/"));
        // A `Proxy-*` field: the proxy's replaces the request's.
        assert_eq!(values(seen, "proxy-authorization"), ["Bearer dG9rZW4="]);
        // Any other: the request's stays, and the proxy's of that name is not sent.
        assert_eq!(values(seen, "user-agent"), ["request-agent/3"]);
        assert_eq!(values(seen, "x-proxy-region"), ["eu-west"]);
    }
}

#[tokio::test]
async fn a_socks_proxy_ignores_the_headers_of_an_http_one() {
    // SOCKS speaks no HTTP: the headers have nowhere to go, and the origin never sees
    // them (the request goes to it in origin-form, through the tunnel).
    let server = hyper_server(|req: http::Request<Incoming>| async move {
        let names: Vec<String> = req
            .headers()
            .keys()
            .map(|name| name.as_str().to_owned())
            .collect();
        http::Response::new(full(names.join(",")))
    })
    .await;
    let socks = socks5_server(SocksConfig::default()).await;
    let transport = HyperTransport::builder()
        .proxy(
            Proxy::all(&socks.url("socks5"))
                .unwrap()
                .headers(proxy_headers()),
        )
        .build()
        .unwrap();
    let (status, names) = get_text(&transport, &server.url("/")).await;
    assert_eq!(status, 200);
    assert_eq!(names, "host");
    assert_eq!(socks.sessions().len(), 1);
}

// ---------------------------------------------------------------------------------------
// WebSocket handshakes (`http1_only`): a `CONNECT` tunnel for `http:` targets too, as
// RFC 6455 §4.1 asks and browsers do

/// An HTTP/1.1 origin server answering with the head it received
/// ([`request_head_text`]).
async fn echoing_origin() -> Server {
    hyper_server(|req: http::Request<Incoming>| async move {
        http::Response::new(full(request_head_text(&req)))
    })
    .await
}

/// Sends a GET to `url` over `transport` with [`SendOptions::http1_only`] and reads the
/// whole body.
async fn get_http1_only(transport: &impl Transport, url: &str) -> (StatusCode, String) {
    let options = SendOptions::new().with_http1_only(true);
    let response = transport.send(get(url), options).await.unwrap();
    let status = response.status();
    let body = read_all(response.into_body()).await.unwrap();
    (status, String::from_utf8_lossy(&body).into_owned())
}

/// Checks that `seen` is one `CONNECT` to `target` carrying `proxy_authorization` and
/// the `X-Proxy-Region` of the proxy's own headers, and that `head`, the request the
/// origin received through the tunnel, is in origin-form with neither.
fn assert_tunnelled(seen: &[Seen], target: &str, proxy_authorization: &str, head: &str) {
    assert_eq!(seen.len(), 1, "{seen:?}");
    assert_eq!(seen[0].method, "CONNECT");
    assert_eq!(seen[0].target, target);
    assert_eq!(values(&seen[0], "host"), [target]);
    assert_eq!(
        values(&seen[0], "proxy-authorization"),
        [proxy_authorization]
    );
    assert_eq!(values(&seen[0], "x-proxy-region"), ["eu-west"]);
    assert!(head.starts_with("GET /ws?room=1\n"), "{head}");
    assert!(head.contains(&format!("\nhost: {target}\n")), "{head}");
    assert!(!head.contains("proxy-authorization"), "{head}");
    assert!(!head.contains("x-proxy-region"), "{head}");
}

/// The proxy's own headers of these tests: a routing tag, no credentials.
fn region_header() -> http::HeaderMap {
    let mut headers = http::HeaderMap::new();
    headers.insert("x-proxy-region", http::HeaderValue::from_static("eu-west"));
    headers
}

#[tokio::test]
async fn an_http1_only_http_request_goes_through_connect_with_the_proxys_credentials() {
    bounded(async {
        let server = echoing_origin().await;
        let proxy = test_proxy(None).await;
        let proxy_url = format!("http://alice:s%3Acret@{}", proxy.addr);
        let transport = HyperTransport::builder()
            .proxy(Proxy::http(&proxy_url).unwrap().headers(region_header()))
            .build()
            .unwrap();
        let url = server.url("/ws?room=1");
        for _ in 0..2 {
            let (status, head) = get_http1_only(&transport, &url).await;
            assert_eq!(status, 200);
            let target = server.addr.to_string();
            // base64("alice:s:cret"); the second request reuses the tunnel.
            assert_tunnelled(&proxy.seen(), &target, "Basic YWxpY2U6czpjcmV0", &head);
        }
        assert_eq!(proxy.accepts(), 1);
        assert_eq!(server.counts.accepts(), 1);

        // Without `http1_only`, the same request goes to the proxy in absolute-form, on a
        // connection of its own.
        let (status, _) = get_text(&transport, &url).await;
        assert_eq!(status, 200);
        let seen = proxy.seen();
        assert_eq!(seen.len(), 2);
        assert_eq!((seen[1].method.as_str(), &*seen[1].target), ("GET", &*url));
        assert_eq!(proxy.accepts(), 2);
    })
    .await;
}

#[tokio::test]
async fn an_http1_only_http_request_tunnels_inside_an_https_proxys_tls() {
    bounded(async {
        let server = echoing_origin().await;
        let proxy_pki = proxy_pki();
        let proxy = tls_test_proxy(proxy_pki.acceptor(&[b"http/1.1"])).await;
        let proxy_url = format!("https://dave:pw@{}", proxy.addr);
        let transport = HyperTransport::builder()
            .add_root_certificate_der(proxy_pki.ca_der.clone())
            .proxy(Proxy::all(&proxy_url).unwrap().headers(region_header()))
            .build()
            .unwrap();
        let (status, head) = get_http1_only(&transport, &server.url("/ws?room=1")).await;
        assert_eq!(status, 200);
        let target = server.addr.to_string();
        assert_tunnelled(&proxy.seen(), &target, "Basic ZGF2ZTpwdw==", &head);
        assert_eq!(*proxy.alpn.lock().unwrap(), [Some(b"http/1.1".to_vec())]);
    })
    .await;
}

#[tokio::test]
async fn a_refused_connect_for_an_http1_only_http_request_names_the_proxy_and_target() {
    bounded(async {
        let server = echoing_origin().await;
        let proxy = test_proxy(Some(StatusCode::FORBIDDEN)).await;
        let transport = HyperTransport::builder()
            .proxy(Proxy::http(&proxy.url()).unwrap())
            .build()
            .unwrap();
        let error = transport
            .send(
                get(&server.url("/ws")),
                SendOptions::new().with_http1_only(true),
            )
            .await
            .unwrap_err();
        assert!(matches!(error, NetworkError::Connect(_)), "{error:?}");
        let source = error.source().unwrap();
        let refusal = source.downcast_ref::<ProxyRefused>().unwrap();
        assert_eq!(refusal.status(), StatusCode::FORBIDDEN);
        assert_eq!(refusal.proxy(), proxy.url());
        let message = source.to_string();
        let target = server.addr.to_string();
        assert!(message.contains(&proxy.url()), "{message}");
        assert!(message.contains(&format!("CONNECT {target}")), "{message}");
        assert!(message.contains("403"), "{message}");
        assert_eq!(proxy.seen()[0].method, "CONNECT");
        assert_eq!(server.counts.accepts(), 0);
    })
    .await;
}

// ---------------------------------------------------------------------------------------
// A Client's WebSocket to a `ws:` URL, through a proxy that only tunnels

/// A proxy that answers `CONNECT` with a tunnel and anything else (an absolute-form
/// request among them) with `405`, as a proxy that passes no `Upgrade` on might; it
/// records each request head it reads.
async fn connect_only_proxy() -> (Server, Arc<Mutex<Vec<String>>>) {
    let heads = Arc::new(Mutex::new(Vec::new()));
    let seen = heads.clone();
    let server = raw_server(move |mut stream: TcpStream| {
        let seen = seen.clone();
        async move {
            use tokio::io::AsyncWriteExt;
            let Some(head) = read_head(&mut stream).await else {
                return;
            };
            seen.lock().unwrap().push(head.clone());
            let target = head
                .strip_prefix("CONNECT ")
                .and_then(|rest| rest.split(' ').next());
            let upstream = match target {
                Some(target) => TcpStream::connect(target).await.ok(),
                None => None,
            };
            let Some(mut upstream) = upstream else {
                let _ = stream
                    .write_all(b"HTTP/1.1 405 Method Not Allowed\r\ncontent-length: 0\r\n\r\n")
                    .await;
                return;
            };
            let established = b"HTTP/1.1 200 Connection established\r\n\r\n";
            if stream.write_all(established).await.is_ok() {
                let _ = tokio::io::copy_bidirectional(&mut stream, &mut upstream).await;
            }
        }
    })
    .await;
    (server, heads)
}

/// A WebSocket server echoing each text and binary message, that answers a handshake
/// carrying `Proxy-Authorization` with `400`.
async fn websocket_echo() -> Server {
    use futures_util::{SinkExt, StreamExt};
    use tokio_tungstenite::tungstenite::handshake::server::{
        ErrorResponse, Request as Handshake, Response as Accepted,
    };
    raw_server(|stream: TcpStream| async move {
        #[allow(clippy::result_large_err)]
        let check = |request: &Handshake, response: Accepted| -> Result<Accepted, ErrorResponse> {
            match request.headers().contains_key("proxy-authorization") {
                false => Ok(response),
                true => {
                    let mut refused = ErrorResponse::new(Some("leaked".into()));
                    *refused.status_mut() = StatusCode::BAD_REQUEST;
                    Err(refused)
                }
            }
        };
        let Ok(mut ws) = tokio_tungstenite::accept_hdr_async(stream, check).await else {
            return;
        };
        while let Some(Ok(message)) = ws.next().await {
            if (message.is_text() || message.is_binary()) && ws.send(message).await.is_err() {
                return;
            }
        }
    })
    .await
}

#[tokio::test]
async fn a_clients_ws_websocket_goes_through_a_connect_tunnel_of_the_proxy() {
    use whatwg_fetch::websocket::{CloseCode, Message};
    bounded(async {
        let server = websocket_echo().await;
        let (proxy, heads) = connect_only_proxy().await;
        let client = Client::builder()
            .proxy(Proxy::all(&format!("http://erin:pw@{}", proxy.addr)).unwrap())
            .build()
            .unwrap();
        let url = format!("ws://{}/chat", server.addr);
        let mut socket = client.websocket(&url).connect().await.unwrap();
        socket.send("through the tunnel").await.unwrap();
        assert_eq!(
            socket.recv().await.unwrap().unwrap(),
            Message::text("through the tunnel")
        );
        socket.close(CloseCode::NORMAL, "").await.unwrap();

        let heads = heads.lock().unwrap().clone();
        assert_eq!(heads.len(), 1, "{heads:?}");
        let target = server.addr.to_string();
        assert!(
            heads[0].starts_with(&format!("CONNECT {target} HTTP/1.1\r\nHost: {target}\r\n")),
            "{}",
            heads[0]
        );
        // base64("erin:pw")
        assert!(
            heads[0].contains("\r\nProxy-Authorization: Basic ZXJpbjpwdw==\r\n"),
            "{}",
            heads[0]
        );
    })
    .await;
}
