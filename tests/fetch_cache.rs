//! The HTTP cache end to end: fetches from a browser-like client against an in-process
//! server that counts the requests it gets.

#[path = "net_support/mod.rs"]
mod support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hyper::body::Incoming;
use hyper::{Request as HyperRequest, Response as HyperResponse};
use support::{Server, ServerBody, full, hyper_server};
use url::Url;
use whatwg_fetch::{
    Client, ErrorKind, HeadersInit, RequestCache, RequestInit, RequestMode, Response,
};

/// What the server saw: requests per method and path, and the `If-None-Match` of each.
#[derive(Clone, Default)]
struct Log {
    counts: Arc<Mutex<HashMap<String, usize>>>,
    if_none_match: Arc<Mutex<Vec<Option<String>>>>,
}

impl Log {
    fn count(&self, method: &str, path: &str) -> usize {
        let counts = self.counts.lock().unwrap();
        counts
            .get(&format!("{method} {path}"))
            .copied()
            .unwrap_or(0)
    }
}

/// Routes (each may carry a query to make a new URL):
/// `/fresh` (max-age=3600), `/etag` (max-age=0, ETag "v1"; 304 to a matching
/// If-None-Match), `/no-store`, `/vary` (Vary: Accept-Language; the body is the
/// request's Accept-Language), `/redirect` (a fresh 302 to `/fresh`), anything else a plain 200 without freshness.
async fn cache_server() -> (Server, Log) {
    let log = Log::default();
    let server_log = log.clone();
    let server = hyper_server(move |request: HyperRequest<Incoming>| {
        let log = server_log.clone();
        async move { route(&log, &request) }
    })
    .await;
    (server, log)
}

fn route(log: &Log, request: &HyperRequest<Incoming>) -> HyperResponse<ServerBody> {
    let path = request.uri().path().to_owned();
    *log.counts
        .lock()
        .unwrap()
        .entry(format!("{} {}", request.method(), path))
        .or_default() += 1;
    let header = |name: &str| {
        request
            .headers()
            .get(name)
            .map(|value| value.to_str().unwrap().to_owned())
    };
    let if_none_match = header("if-none-match");
    log.if_none_match
        .lock()
        .unwrap()
        .push(if_none_match.clone());
    let builder = HyperResponse::builder().header("content-type", "text/plain");
    match path.as_str() {
        "/fresh" => builder
            .header("cache-control", "max-age=3600")
            .body(full("fresh"))
            .unwrap(),
        "/etag" if if_none_match.as_deref() == Some("\"v1\"") => builder
            .status(304)
            .header("etag", "\"v1\"")
            .header("x-updated", "yes")
            .body(full(""))
            .unwrap(),
        "/etag" => builder
            .header("cache-control", "max-age=0")
            .header("etag", "\"v1\"")
            .body(full("etag-body"))
            .unwrap(),
        "/no-store" => builder
            .header("cache-control", "no-store, max-age=3600")
            .body(full("no-store"))
            .unwrap(),
        "/vary" => builder
            .header("cache-control", "max-age=3600")
            .header("vary", "Accept-Language")
            .body(full(header("accept-language").unwrap_or_default()))
            .unwrap(),
        "/redirect" => builder
            .status(302)
            .header("location", "/fresh")
            .header("cache-control", "max-age=3600")
            .body(full(""))
            .unwrap(),
        _ => builder.body(full("plain")).unwrap(),
    }
}

/// A browser-like client whose page is on `server`'s origin (its cache is on by default).
fn page(server: &Server) -> Client {
    Client::builder()
        .origin(Url::parse(&server.url("/page.html")).unwrap())
        .build()
        .unwrap()
}

async fn get(client: &Client, url: &str, init: RequestInit) -> Response {
    client.fetch(url, init).await.unwrap()
}

/// Fetches `url` and reads the body to the end (which is when a response is stored).
async fn get_text(client: &Client, url: &str, init: RequestInit) -> String {
    get(client, url, init).await.text().await.unwrap()
}

fn cache_mode(cache: RequestCache) -> RequestInit {
    RequestInit {
        cache: Some(cache),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_fresh_response_is_served_without_a_second_request() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/fresh");
    assert_eq!(
        get_text(&client, &url, RequestInit::default()).await,
        "fresh"
    );
    let mut response = get(&client, &url, RequestInit::default()).await;
    assert_eq!(response.status(), 200);
    assert!(response.headers().has("age").unwrap());
    assert_eq!(response.text().await.unwrap(), "fresh");
    assert_eq!(log.count("GET", "/fresh"), 1);
}

#[tokio::test]
async fn a_body_not_read_to_the_end_is_not_stored() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/fresh");
    drop(get(&client, &url, RequestInit::default()).await);
    assert_eq!(
        get_text(&client, &url, RequestInit::default()).await,
        "fresh"
    );
    assert_eq!(log.count("GET", "/fresh"), 2);
    assert_eq!(
        get_text(&client, &url, RequestInit::default()).await,
        "fresh"
    );
    assert_eq!(log.count("GET", "/fresh"), 2);
}

#[tokio::test]
async fn a_stale_response_with_an_etag_is_revalidated_and_a_304_serves_the_stored_body() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/etag");
    assert_eq!(
        get_text(&client, &url, RequestInit::default()).await,
        "etag-body"
    );
    let mut response = get(&client, &url, RequestInit::default()).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.headers().get("x-updated").unwrap().as_deref(),
        Some("yes")
    );
    assert_eq!(response.text().await.unwrap(), "etag-body");
    assert_eq!(log.count("GET", "/etag"), 2);
    let if_none_match = log.if_none_match.lock().unwrap().clone();
    assert_eq!(if_none_match, [None, Some("\"v1\"".to_owned())]);
}

#[tokio::test]
async fn a_no_store_response_is_not_stored() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/no-store");
    for _ in 0..2 {
        assert_eq!(
            get_text(&client, &url, RequestInit::default()).await,
            "no-store"
        );
    }
    assert_eq!(log.count("GET", "/no-store"), 2);
}

#[tokio::test]
async fn cache_mode_no_store_neither_looks_up_nor_stores() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/fresh");
    get_text(&client, &url, cache_mode(RequestCache::NoStore)).await;
    get_text(&client, &url, RequestInit::default()).await;
    assert_eq!(log.count("GET", "/fresh"), 2);
    // Now stored; "no-store" still goes to the network.
    get_text(&client, &url, cache_mode(RequestCache::NoStore)).await;
    assert_eq!(log.count("GET", "/fresh"), 3);
}

#[tokio::test]
async fn cache_mode_reload_skips_the_lookup_but_stores() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/fresh");
    get_text(&client, &url, RequestInit::default()).await;
    get_text(&client, &url, cache_mode(RequestCache::Reload)).await;
    assert_eq!(log.count("GET", "/fresh"), 2);
    get_text(&client, &url, RequestInit::default()).await;
    assert_eq!(log.count("GET", "/fresh"), 2);
}

#[tokio::test]
async fn cache_mode_no_cache_always_validates() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/fresh");
    get_text(&client, &url, RequestInit::default()).await;
    get_text(&client, &url, cache_mode(RequestCache::NoCache)).await;
    assert_eq!(log.count("GET", "/fresh"), 2);
}

#[tokio::test]
async fn cache_mode_force_cache_uses_a_stale_response() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/etag");
    get_text(&client, &url, RequestInit::default()).await;
    let text = get_text(&client, &url, cache_mode(RequestCache::ForceCache)).await;
    assert_eq!(text, "etag-body");
    assert_eq!(log.count("GET", "/etag"), 1);
    // Nothing stored: force-cache goes to the network.
    get_text(
        &client,
        &server.url("/fresh"),
        cache_mode(RequestCache::ForceCache),
    )
    .await;
    assert_eq!(log.count("GET", "/fresh"), 1);
}

#[tokio::test]
async fn cache_mode_only_if_cached_uses_only_stored_responses() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/etag");
    let only_if_cached = || RequestInit {
        cache: Some(RequestCache::OnlyIfCached),
        mode: Some(RequestMode::SameOrigin),
        ..Default::default()
    };
    let error = client
        .fetch(url.as_str(), only_if_cached())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert_eq!(log.count("GET", "/etag"), 0);
    get_text(&client, &url, RequestInit::default()).await;
    // Stale, but only-if-cached does not validate.
    assert_eq!(get_text(&client, &url, only_if_cached()).await, "etag-body");
    assert_eq!(log.count("GET", "/etag"), 1);
}

#[tokio::test]
async fn vary_keeps_responses_per_request_header_value() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/vary");
    let language = |value: &'static str| RequestInit {
        headers: Some(HeadersInit::from(vec![("Accept-Language", value)])),
        ..Default::default()
    };
    assert_eq!(get_text(&client, &url, language("fr")).await, "fr");
    assert_eq!(get_text(&client, &url, language("de")).await, "de");
    assert_eq!(log.count("GET", "/vary"), 2);
    assert_eq!(get_text(&client, &url, language("fr")).await, "fr");
    assert_eq!(get_text(&client, &url, language("de")).await, "de");
    assert_eq!(log.count("GET", "/vary"), 2);
}

#[tokio::test]
async fn a_successful_post_invalidates_the_stored_response() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/fresh");
    get_text(&client, &url, RequestInit::default()).await;
    let post = RequestInit {
        method: Some("POST".into()),
        body: Some("x".into()),
        ..Default::default()
    };
    get_text(&client, &url, post).await;
    assert_eq!(log.count("POST", "/fresh"), 1);
    get_text(&client, &url, RequestInit::default()).await;
    assert_eq!(log.count("GET", "/fresh"), 2);
}

#[tokio::test]
async fn a_response_without_freshness_or_validator_is_not_reused() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/plain");
    get_text(&client, &url, RequestInit::default()).await;
    get_text(&client, &url, RequestInit::default()).await;
    assert_eq!(log.count("GET", "/plain"), 2);
}

#[tokio::test]
async fn a_server_side_client_never_caches_by_default() {
    let (server, log) = cache_server().await;
    let client = Client::builder().build().unwrap();
    let url = server.url("/fresh");
    get_text(&client, &url, RequestInit::default()).await;
    get_text(&client, &url, RequestInit::default()).await;
    assert_eq!(log.count("GET", "/fresh"), 2);
}

#[tokio::test]
async fn the_cache_can_be_turned_on_for_a_server_side_client_and_off_for_a_page() {
    let (server, log) = cache_server().await;
    let url = server.url("/fresh");
    let server_side = Client::builder().http_cache(true).build().unwrap();
    get_text(&server_side, &url, RequestInit::default()).await;
    get_text(&server_side, &url, RequestInit::default()).await;
    assert_eq!(log.count("GET", "/fresh"), 1);
    let page = Client::builder()
        .origin(Url::parse(&server.url("/page.html")).unwrap())
        .http_cache(false)
        .build()
        .unwrap();
    get_text(&page, &url, RequestInit::default()).await;
    get_text(&page, &url, RequestInit::default()).await;
    assert_eq!(log.count("GET", "/fresh"), 3);
}

#[tokio::test]
async fn a_request_only_if_cached_directive_gets_a_504_when_nothing_is_stored() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/fresh");
    let directive = || RequestInit {
        headers: Some(HeadersInit::from(vec![("Cache-Control", "only-if-cached")])),
        ..Default::default()
    };
    assert_eq!(get(&client, &url, directive()).await.status(), 504);
    assert_eq!(log.count("GET", "/fresh"), 0);
    get_text(&client, &url, RequestInit::default()).await;
    assert_eq!(get_text(&client, &url, directive()).await, "fresh");
    assert_eq!(log.count("GET", "/fresh"), 1);
}

#[tokio::test]
async fn a_fresh_redirect_with_an_empty_body_is_stored_though_it_is_followed() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/redirect");
    for _ in 0..2 {
        assert_eq!(
            get_text(&client, &url, RequestInit::default()).await,
            "fresh"
        );
    }
    assert_eq!(log.count("GET", "/redirect"), 1);
    assert_eq!(log.count("GET", "/fresh"), 1);
}
