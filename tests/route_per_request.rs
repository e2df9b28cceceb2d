//! A route of one request's own: `RequestBuilder::proxy`, `no_proxy`, `resolve` and
//! `resolve_to_addrs` over the client's proxies and resolution, and the pool keeping the
//! connections of different routes apart — against in-process proxies and servers on
//! 127.0.0.1.

mod net_support;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::service::service_fn;
use hyper_util::rt::TokioIo;
use net_support::*;
use tokio::net::{TcpListener, TcpStream};
use whatwg_fetch::net::Proxy;
#[cfg(feature = "http3")]
use whatwg_fetch::net::{HyperTransport, Route, SendOptions, Transport};
use whatwg_fetch::{Client, ErrorKind, NetworkError};

// ---------------------------------------------------------------------------------------
// Servers

/// What a proxy received: the request line's method and target, and its headers.
#[derive(Clone, Debug)]
struct Seen {
    method: String,
    target: String,
    headers: http::HeaderMap,
}

/// An HTTP/1.1 proxy: forwards absolute-form requests to their origin and answers
/// `CONNECT` with a tunnel. It records every request and counts the connections it
/// accepts.
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

async fn test_proxy() -> TestProxy {
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
                        Ok::<_, Infallible>(proxy_one(req).await)
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

/// A `CONNECT` tunnel to the target, or an absolute-form request forwarded to its origin
/// over a new connection, in origin-form.
async fn proxy_one(req: http::Request<Incoming>) -> http::Response<ServerBody> {
    let status = |status: http::StatusCode| {
        let mut response = http::Response::new(full(""));
        *response.status_mut() = status;
        response
    };
    if req.method() == http::Method::CONNECT {
        let target = req.uri().to_string();
        let Ok(mut upstream) = TcpStream::connect(&target).await else {
            return status(http::StatusCode::BAD_GATEWAY);
        };
        tokio::spawn(async move {
            if let Ok(upgraded) = hyper::upgrade::on(req).await {
                let mut upgraded = TokioIo::new(upgraded);
                let _ = tokio::io::copy_bidirectional(&mut upgraded, &mut upstream).await;
            }
        });
        return status(http::StatusCode::OK);
    }
    let Some(authority) = req.uri().authority().cloned() else {
        return status(http::StatusCode::BAD_REQUEST);
    };
    let Ok(upstream) = TcpStream::connect(authority.as_str()).await else {
        return status(http::StatusCode::BAD_GATEWAY);
    };
    let Ok((mut sender, conn)) =
        hyper::client::conn::http1::handshake(TokioIo::new(upstream)).await
    else {
        return status(http::StatusCode::BAD_GATEWAY);
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
        Err(_) => status(http::StatusCode::BAD_GATEWAY),
    }
}

/// An HTTP/1.1 origin server answering `NAME METHOD target host`, where `name` tells
/// servers apart.
async fn origin(name: &'static str) -> Server {
    hyper_server(move |req: http::Request<Incoming>| async move {
        let host = req
            .headers()
            .get(http::header::HOST)
            .map(|h| h.to_str().unwrap().to_owned())
            .unwrap_or_default();
        http::Response::new(full(format!(
            "{name} {} {} {host}",
            req.method(),
            req.uri()
        )))
    })
    .await
}

/// An origin server answering every request with a `302` to `location`.
async fn redirecting(location: String) -> Server {
    hyper_server(move |_req: http::Request<Incoming>| {
        let location = location.clone();
        async move {
            let mut response = http::Response::new(full(""));
            *response.status_mut() = http::StatusCode::FOUND;
            response
                .headers_mut()
                .insert(http::header::LOCATION, location.parse().unwrap());
            response
        }
    })
    .await
}

/// The body of the response to `builder`'s request, as text.
async fn text(builder: whatwg_fetch::RequestBuilder) -> String {
    builder.send().await.unwrap().text().await.unwrap()
}

// ---------------------------------------------------------------------------------------
// Proxies

#[tokio::test]
async fn a_request_goes_through_its_own_proxy_while_the_client_has_none() {
    let server = origin("origin").await;
    let proxy = test_proxy().await;
    let client = Client::new();
    let url = server.url("/own");
    let own = Proxy::http(&proxy.url())
        .unwrap()
        .basic_auth("alice", "secret");
    let body = text(client.get(url.as_str()).proxy(own)).await;
    assert_eq!(body, format!("origin GET /own {}", server.addr));
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].method, "GET");
    assert_eq!(seen[0].target, url, "absolute-form to the proxy");
    assert_eq!(
        seen[0].headers[http::header::PROXY_AUTHORIZATION],
        "Basic YWxpY2U6c2VjcmV0"
    );
    // The next request, without a proxy of its own, goes direct.
    let body = text(client.get(url.as_str())).await;
    assert_eq!(body, format!("origin GET /own {}", server.addr));
    assert_eq!(proxy.seen().len(), 1);
}

#[tokio::test]
async fn no_proxy_sends_a_request_direct_and_apart_from_the_proxied_connections() {
    let server = origin("origin").await;
    let proxy = test_proxy().await;
    let client = Client::builder()
        .proxy(Proxy::all(&proxy.url()).unwrap())
        .build()
        .unwrap();
    let url = server.url("/");
    // Direct: the proxy sees nothing.
    text(client.get(url.as_str()).no_proxy()).await;
    assert_eq!((proxy.accepts(), proxy.seen().len()), (0, 0));
    assert_eq!(server.counts.accepts(), 1);
    // Through the client's proxy: not on the direct connection, idle in the pool.
    text(client.get(url.as_str())).await;
    assert_eq!((proxy.accepts(), proxy.seen().len()), (1, 1));
    // Direct again: on the direct connection, not on the proxy's.
    text(client.get(url.as_str()).no_proxy()).await;
    assert_eq!(proxy.seen().len(), 1);
    // The proxy opened one connection to the origin of its own; the direct one was reused.
    assert_eq!(server.counts.accepts(), 2);
}

#[tokio::test]
async fn two_requests_through_two_proxies_each_reach_their_own_on_connections_of_their_own() {
    let server = origin("origin").await;
    let (first, second) = (test_proxy().await, test_proxy().await);
    let client = Client::new();
    let url = server.url("/");
    text(
        client
            .get(url.as_str())
            .proxy(Proxy::all(&first.url()).unwrap()),
    )
    .await;
    text(
        client
            .get(url.as_str())
            .proxy(Proxy::all(&second.url()).unwrap()),
    )
    .await;
    assert_eq!((first.accepts(), first.seen().len()), (1, 1));
    assert_eq!((second.accepts(), second.seen().len()), (1, 1));
    let stats = client.pool_stats().unwrap();
    assert_eq!(stats.connections_opened, 2, "one connection per proxy");
}

#[tokio::test]
async fn the_same_route_twice_reuses_its_connection() {
    let server = origin("origin").await;
    let proxy = test_proxy().await;
    let client = Client::new();
    let url = server.url("/");
    for _ in 0..3 {
        // A proxy made anew each time: routes compare by value.
        let own = Proxy::all(&proxy.url()).unwrap().basic_auth("alice", "pw");
        text(client.get(url.as_str()).proxy(own)).await;
    }
    assert_eq!(proxy.seen().len(), 3);
    assert_eq!(proxy.accepts(), 1, "one connection to the proxy, reused");
    // Other credentials are another route: a connection of its own.
    let other = Proxy::all(&proxy.url()).unwrap().basic_auth("bob", "pw");
    text(client.get(url.as_str()).proxy(other)).await;
    assert_eq!(proxy.accepts(), 2);
}

#[tokio::test]
async fn https_goes_through_a_requests_own_connect_proxy_with_basic_auth() {
    let pki = TestPki::new(&["localhost", "127.0.0.1"]);
    let server = net_support::tls_server(pki.acceptor(&[b"h2", b"http/1.1"]), |req| async move {
        let leaked = req
            .headers()
            .contains_key(http::header::PROXY_AUTHORIZATION);
        http::Response::new(full(format!(
            "{:?} {} leaked={leaked}",
            req.version(),
            req.uri()
        )))
    })
    .await;
    let proxy = test_proxy().await;
    let client = Client::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(pki.ca_pem.as_bytes())
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/secure", server.addr.port());
    let own = Proxy::https(&proxy.url())
        .unwrap()
        .basic_auth("alice", "secret");
    let body = text(client.get(url.as_str()).proxy(own)).await;
    // HTTP/2 by ALPN inside the tunnel; the credentials went to the proxy alone.
    assert!(body.starts_with("HTTP/2.0 "), "{body}");
    assert!(body.ends_with("leaked=false"), "{body}");
    let seen = proxy.seen();
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].method, "CONNECT");
    assert_eq!(seen[0].target, format!("localhost:{}", server.addr.port()));
    assert_eq!(
        seen[0].headers[http::header::PROXY_AUTHORIZATION],
        "Basic YWxpY2U6c2VjcmV0"
    );
    // The same origin without the proxy: a connection of its own, not the tunnelled one.
    text(client.get(url.as_str())).await;
    assert_eq!(server.counts.accepts(), 2);
    assert_eq!(proxy.seen().len(), 1);
}

#[tokio::test]
async fn a_requests_own_socks5_proxy_gets_the_address_its_override_gives() {
    let server = origin("origin").await;
    let socks = socks5_server(SocksConfig::default()).await;
    let client = Client::new();
    let url = format!("http://socks.test:{}/tunnelled", server.addr.port());
    let body = text(
        client
            .get(url.as_str())
            .proxy(Proxy::all(&socks.url("socks5")).unwrap())
            .resolve("socks.test", server.addr),
    )
    .await;
    // Origin-form through the tunnel, as to the origin itself.
    assert_eq!(
        body,
        format!("origin GET /tunnelled socks.test:{}", server.addr.port())
    );
    let sessions = socks.sessions();
    assert_eq!(sessions.len(), 1);
    assert_eq!(sessions[0].target, Some(SocksTarget::Ip(server.addr)));
}

#[tokio::test]
async fn a_redirect_to_another_host_keeps_the_requests_proxy() {
    let target = origin("target").await;
    let first = redirecting(target.url("/after")).await;
    let proxy = test_proxy().await;
    let client = Client::new();
    let body = text(
        client
            .get(first.url("/before").as_str())
            .proxy(Proxy::http(&proxy.url()).unwrap()),
    )
    .await;
    assert_eq!(body, format!("target GET /after {}", target.addr));
    let targets: Vec<String> = proxy.seen().into_iter().map(|seen| seen.target).collect();
    assert_eq!(targets, [first.url("/before"), target.url("/after")]);
}

// ---------------------------------------------------------------------------------------
// Resolve overrides

#[tokio::test]
async fn a_resolve_override_sends_its_host_to_its_address_and_no_other_request() {
    let (ours, theirs) = (origin("ours").await, origin("theirs").await);
    // The client sends example.test to `theirs`.
    let client = Client::builder()
        .resolve("example.test", theirs.addr)
        .build()
        .unwrap();
    let port = ours.addr.port();
    let url = format!("http://example.test:{port}/");
    let body = text(client.get(url.as_str())).await;
    assert_eq!(body, format!("theirs GET / example.test:{port}"));
    // This request's own override wins, for this request alone.
    let body = text(client.get(url.as_str()).resolve("example.test", ours.addr)).await;
    assert_eq!(body, format!("ours GET / example.test:{port}"));
    // Its pooled connection is not taken by a request without the override…
    let body = text(client.get(url.as_str())).await;
    assert!(body.starts_with("theirs "), "{body}");
    // …and is by one with the same override, however spelled.
    let body = text(
        client
            .get(url.as_str())
            .resolve_to_addrs("EXAMPLE.test", &[ours.addr]),
    )
    .await;
    assert!(body.starts_with("ours "), "{body}");
    assert_eq!((ours.counts.accepts(), theirs.counts.accepts()), (1, 1));
}

#[tokio::test]
async fn a_name_overridden_with_no_address_fails_to_resolve() {
    let client = Client::new();
    let error = client
        .get("http://nowhere.test/")
        .resolve_to_addrs("nowhere.test", &[])
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert!(
        matches!(error.network_error(), Some(NetworkError::Dns(_))),
        "{error:?}"
    );
}

#[tokio::test]
async fn an_override_applies_only_to_the_host_it_names_after_a_redirect() {
    let target = origin("target").await;
    let first = redirecting(format!("http://next.test:{}/after", target.addr.port())).await;
    let client = Client::builder()
        .resolve("next.test", target.addr)
        .build()
        .unwrap();
    let url = format!("http://start.test:{}/before", first.addr.port());
    let mut response = client
        .get(url.as_str())
        .resolve("start.test", first.addr)
        .send()
        .await
        .unwrap();
    assert!(response.redirected());
    let body = response.text().await.unwrap();
    assert_eq!(
        body,
        format!("target GET /after next.test:{}", target.addr.port())
    );
}

// ---------------------------------------------------------------------------------------
// HTTP/3 (the `http3` feature)

/// A transport that speaks HTTP/3 to every `https:` origin, trusting `pki`'s CA.
#[cfg(feature = "http3")]
fn http3_transport(pki: &TestPki) -> HyperTransport {
    HyperTransport::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(pki.ca_pem.as_bytes())
        .unwrap()
        .http3_prior_knowledge(true)
        .build()
        .unwrap()
}

#[cfg(feature = "http3")]
#[tokio::test]
async fn a_request_with_a_route_goes_over_tcp_where_http3_is_known() {
    let pki = TestPki::new(&["localhost", "127.0.0.1"]);
    let server = net_support::tls_server(pki.acceptor(&[b"h2", b"http/1.1"]), |req| async move {
        http::Response::new(full(format!("{:?}", req.version())))
    })
    .await;
    let transport = http3_transport(&pki);
    let mut request = get(&format!("https://localhost:{}/", server.addr.port()));
    request.extensions_mut().insert(Route::new().no_proxy());
    let response = transport.send(request, SendOptions::new()).await.unwrap();
    assert_eq!(response.version(), http::Version::HTTP_2);
    assert_eq!(read_all(response.into_body()).await.unwrap(), "HTTP/2.0");
}

#[cfg(feature = "http3")]
#[tokio::test]
async fn a_request_with_a_route_that_asks_for_http3_is_refused() {
    let pki = TestPki::new(&["localhost", "127.0.0.1"]);
    let transport = http3_transport(&pki);
    let mut request = get("https://localhost:1/");
    request
        .extensions_mut()
        .insert(Route::new().resolve("localhost", "127.0.0.1:1".parse().unwrap()));
    let mut options = SendOptions::new();
    options.version = Some(http::Version::HTTP_3);
    let error = transport.send(request, options).await.unwrap_err();
    assert!(
        matches!(error, NetworkError::InvalidRequest(_)),
        "{error:?}"
    );
}

// ---------------------------------------------------------------------------------------
// The HTTP cache

#[tokio::test]
async fn a_request_with_a_route_neither_reads_nor_fills_the_http_cache() {
    let (server, log) = cache_server().await;
    let client = Client::builder().http_cache(true).build().unwrap();
    let url = server.url("/fresh");
    // Fetched on its own route: not stored.
    text(
        client
            .get(url.as_str())
            .resolve("elsewhere.test", server.addr),
    )
    .await;
    text(client.get(url.as_str()).no_proxy()).await;
    assert_eq!(log.count("/fresh"), 2);
    // Without a route: stored, and then answered from the cache…
    text(client.get(url.as_str())).await;
    text(client.get(url.as_str())).await;
    assert_eq!(log.count("/fresh"), 3);
    // …but never for a request on a route of its own.
    text(client.get(url.as_str()).no_proxy()).await;
    assert_eq!(log.count("/fresh"), 4);
}

// ---------------------------------------------------------------------------------------
// Bounds

#[tokio::test]
async fn the_idle_connections_of_a_route_are_reaped_and_its_origin_entry_removed() {
    let server = origin("origin").await;
    let proxy = test_proxy().await;
    let client = Client::builder()
        .pool_idle_timeout(Some(Duration::from_millis(200)))
        .build()
        .unwrap();
    let url = server.url("/");
    text(
        client
            .get(url.as_str())
            .proxy(Proxy::all(&proxy.url()).unwrap()),
    )
    .await;
    text(client.get(url.as_str()).no_proxy()).await;
    let stats = client.pool_stats().unwrap();
    assert_eq!(stats.origins.len(), 2, "{stats:?}");
    assert!(
        eventually(|| client.pool_stats().unwrap().origins.is_empty()).await,
        "{:?}",
        client.pool_stats()
    );
    assert_eq!(client.pool_stats().unwrap().connections_closed, 2);
}

// ---------------------------------------------------------------------------------------
// The blocking client

#[test]
fn a_blocking_request_takes_its_own_proxy_and_resolve_override() {
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let (server, proxy) = runtime.block_on(async { (origin("origin").await, test_proxy().await) });
    let client = whatwg_fetch::blocking::Client::new();
    let url = server.url("/blocking");
    let body = client
        .get(url.as_str())
        .proxy(Proxy::http(&proxy.url()).unwrap())
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert_eq!(body, format!("origin GET /blocking {}", server.addr));
    assert_eq!(proxy.seen().len(), 1);
    let named = format!("http://blocking.test:{}/", server.addr.port());
    let body = client
        .get(named.as_str())
        .resolve("blocking.test", server.addr)
        .no_proxy()
        .send()
        .unwrap()
        .text()
        .unwrap();
    assert_eq!(
        body,
        format!("origin GET / blocking.test:{}", server.addr.port())
    );
    assert_eq!(proxy.seen().len(), 1);
}
