//! HTTP proxies: absolute-form requests for `http:` targets, `CONNECT` tunnels for
//! `https:` ones, `no_proxy`, refusals, pooling, the environment variables, and a
//! `Client` end to end — against in-process proxies and servers on 127.0.0.1.

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
use whatwg_fetch::net::{HyperTransport, Proxy, ProxyRefused, SendOptions, Transport};
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
/// `CONNECT` with a tunnel; with `refuse` set, it answers every request with that status. It records every request and
/// counts the connections it accepts.
struct TestProxy {
    addr: SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
    accepts: Arc<AtomicUsize>,
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
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let seen = Arc::new(Mutex::new(Vec::new()));
    let accepts = Arc::new(AtomicUsize::new(0));
    let (server_seen, server_accepts) = (seen.clone(), accepts.clone());
    tokio::spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            server_accepts.fetch_add(1, Ordering::SeqCst);
            let seen = server_seen.clone();
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
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(TokioIo::new(stream), service)
                    .with_upgrades()
                    .await;
            });
        }
    });
    TestProxy {
        addr,
        seen,
        accepts,
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
            NetworkError::Timeout(whatwg_fetch::TimeoutKind::Connect)
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
