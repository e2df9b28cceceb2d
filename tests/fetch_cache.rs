//! The HTTP cache end to end: fetches from a browser-like client against an in-process
//! server that counts the requests it gets.

mod net_support;

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use hyper::body::Incoming;
use hyper::{Request as HyperRequest, Response as HyperResponse};
use net_support::{Server, ServerBody, full, hyper_server};
use url::Url;
use whatwg_fetch::{
    Client, ErrorKind, HeadersInit, RequestCache, RequestInit, RequestMode, Response,
};

/// What the server saw: requests per method and path, the `If-None-Match` of each, and
/// the `Range` and `If-Range` of each request to a path.
#[derive(Clone, Default)]
struct Log {
    counts: Arc<Mutex<HashMap<String, usize>>>,
    if_none_match: Arc<Mutex<Vec<Option<String>>>>,
    ranges: Arc<Mutex<HashMap<String, Vec<Seen>>>>,
}

/// The `Range` and `If-Range` of a request.
type Seen = (Option<String>, Option<String>);

impl Log {
    fn count(&self, method: &str, path: &str) -> usize {
        let counts = self.counts.lock().unwrap();
        counts
            .get(&format!("{method} {path}"))
            .copied()
            .unwrap_or(0)
    }

    /// The `Range` and `If-Range` of each request to `path`, in order.
    fn ranges(&self, path: &str) -> Vec<Seen> {
        let ranges = self.ranges.lock().unwrap();
        ranges.get(path).cloned().unwrap_or_default()
    }
}

/// The `Range` and `If-Range` of a logged request, for comparing with [`Log::ranges`].
fn seen(range: Option<&str>, if_range: Option<&str>) -> Seen {
    (range.map(str::to_owned), if_range.map(str::to_owned))
}

/// Routes (each may carry a query to make a new URL):
/// `/fresh` (max-age=3600), `/etag` (max-age=0, ETag "v1"; 304 to a matching
/// If-None-Match), `/no-store`, `/vary` (Vary: Accept-Language; the body is the
/// request's Accept-Language), `/redirect` (a fresh 302 to `/fresh`), anything else a plain 200 without freshness.
///
/// Range routes, of the representation `0123456789` unless said otherwise:
/// - `/ranges`: fresh, ETag "r1"; a 206 to one byte range, unless If-Range is not "r1".
/// - `/ranges-no-etag`: the same without ETag.
/// - `/partial-then-whole`: fresh; a 206 of bytes 0-4 to the first request, then 200s that
///   ignore Range.
/// - `/short-rest`: as `/ranges`, but its 206 to `bytes=4-` holds only 2 of the 6 bytes its
///   Content-Range says.
/// - `/four`: `0123`; its 206 to `bytes=0-3` is fresh with ETag "f" and an unknown
///   complete length, any other range gets a 416.
/// - `/short-206`: a fresh 206 saying `bytes 4-9/10` but holding the 5 bytes `01234` to
///   the first request, then 200s.
/// - `/eleven`: a fresh 200 of `0123456789A` that ignores Range.
///
/// `POST` and `PATCH` routes: `/post-here` (fresh, Content-Location: its own path and
/// query; body "posted"), `/post-elsewhere` (fresh, Content-Location: `/elsewhere`),
/// `/post-no-freshness` (Content-Location: itself, no freshness); a `GET` of them is
/// answered "got".
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
    let range = header("range");
    let if_range = header("if-range");
    log.ranges
        .lock()
        .unwrap()
        .entry(path.clone())
        .or_default()
        .push((range.clone(), if_range.clone()));
    let count = log.count(request.method().as_str(), &path);
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
        "/ranges" => ranged(
            builder,
            range.as_deref(),
            if_range.as_deref(),
            Some("\"r1\""),
        ),
        "/ranges-no-etag" => ranged(builder, range.as_deref(), if_range.as_deref(), None),
        "/partial-then-whole" if count == 1 => builder
            .status(206)
            .header("cache-control", "max-age=3600")
            .header("content-range", "bytes 0-4/10")
            .body(full("01234"))
            .unwrap(),
        "/partial-then-whole" => builder
            .header("cache-control", "max-age=3600")
            .body(full("0123456789"))
            .unwrap(),
        "/short-rest" if range.as_deref() == Some("bytes=4-") => builder
            .status(206)
            .header("cache-control", "max-age=3600")
            .header("etag", "\"r1\"")
            .header("content-range", "bytes 4-9/10")
            .body(full("45"))
            .unwrap(),
        "/short-rest" => ranged(
            builder,
            range.as_deref(),
            if_range.as_deref(),
            Some("\"r1\""),
        ),
        "/short-206" if count == 1 => builder
            .status(206)
            .header("cache-control", "max-age=3600")
            .header("content-range", "bytes 4-9/10")
            .body(full("01234"))
            .unwrap(),
        "/short-206" => builder.body(full("0123456789")).unwrap(),
        "/four" => match range.as_deref() {
            Some("bytes=0-3") => builder
                .status(206)
                .header("cache-control", "max-age=3600")
                .header("etag", "\"f\"")
                .header("content-range", "bytes 0-3/*")
                .body(full("0123"))
                .unwrap(),
            Some(_) => builder
                .status(416)
                .header("content-range", "bytes */4")
                .body(full(""))
                .unwrap(),
            None => builder.body(full("0123")).unwrap(),
        },
        "/eleven" => builder
            .header("cache-control", "max-age=3600")
            .body(full("0123456789A"))
            .unwrap(),
        "/post-here" | "/post-elsewhere" | "/post-no-freshness"
            if request.method() != hyper::Method::GET =>
        {
            let builder = match path.as_str() {
                "/post-elsewhere" => builder
                    .header("cache-control", "max-age=3600")
                    .header("content-location", "/elsewhere"),
                "/post-no-freshness" => builder.header("content-location", "/post-no-freshness"),
                _ => builder
                    .header("cache-control", "private, max-age=3600")
                    .header("content-location", request.uri().to_string()),
            };
            builder.body(full("posted")).unwrap()
        }
        "/post-here" | "/post-elsewhere" | "/post-no-freshness" => builder
            .header("cache-control", "max-age=3600")
            .body(full("got"))
            .unwrap(),
        _ => builder.body(full("plain")).unwrap(),
    }
}

/// A fresh `0123456789` with `etag` (if any): a 206 of the one byte range `range` asks
/// for, unless `If-Range` is there and is not `etag`; otherwise a 200.
fn ranged(
    builder: hyper::http::response::Builder,
    range: Option<&str>,
    if_range: Option<&str>,
    etag: Option<&str>,
) -> HyperResponse<ServerBody> {
    const REPRESENTATION: &str = "0123456789";
    let mut builder = builder.header("cache-control", "max-age=3600");
    if let Some(etag) = etag {
        builder = builder.header("etag", etag);
    }
    let length = REPRESENTATION.len();
    let bounds = range
        .filter(|_| if_range.is_none() || if_range == etag)
        .and_then(|range| range.strip_prefix("bytes="))
        .and_then(|spec| spec.split_once('-'))
        .and_then(|(first, last)| match (first, last) {
            ("", suffix) => {
                let suffix = suffix.parse::<usize>().ok()?;
                Some((length - suffix.min(length), length - 1))
            }
            (first, "") => Some((first.parse().ok()?, length - 1)),
            (first, last) => Some((
                first.parse().ok()?,
                last.parse::<usize>().ok()?.min(length - 1),
            )),
        });
    match bounds {
        Some((first, last)) if first <= last => builder
            .status(206)
            .header("content-range", format!("bytes {first}-{last}/{length}"))
            .body(full(&REPRESENTATION[first..=last]))
            .unwrap(),
        _ => builder.body(full(REPRESENTATION)).unwrap(),
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

fn range(value: &'static str) -> RequestInit {
    RequestInit {
        headers: Some(HeadersInit::from(vec![("Range", value)])),
        ..Default::default()
    }
}

/// A response's status, `Content-Range`, `Content-Length` and text.
async fn parts(mut response: Response) -> (u16, Option<String>, Option<String>, String) {
    let header = |name: &str| response.headers().get(name).unwrap();
    let content_range = header("content-range");
    let content_length = header("content-length");
    (
        response.status(),
        content_range,
        content_length,
        response.text().await.unwrap(),
    )
}

fn partial(content_range: &str, text: &str) -> (u16, Option<String>, Option<String>, String) {
    (
        206,
        Some(content_range.to_owned()),
        Some(text.len().to_string()),
        text.to_owned(),
    )
}

fn whole(text: &str) -> (u16, Option<String>, Option<String>, String) {
    (200, None, Some(text.len().to_string()), text.to_owned())
}

#[tokio::test]
async fn a_stored_complete_response_answers_byte_ranges() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/eleven");
    assert_eq!(
        get_text(&client, &url, RequestInit::default()).await,
        "0123456789A"
    );
    for (value, content_range, text) in [
        ("bytes=0-1", "bytes 0-1/11", "01"),
        ("bytes=1-", "bytes 1-10/11", "123456789A"),
        ("bytes=-1", "bytes 10-10/11", "A"),
        ("bytes=-20", "bytes 0-10/11", "0123456789A"),
        ("bytes=5-100", "bytes 5-10/11", "56789A"),
    ] {
        let response = get(&client, &url, range(value)).await;
        assert_eq!(
            parts(response).await,
            partial(content_range, text),
            "{value}"
        );
    }
    // With only-if-cached too.
    let only_if_cached = RequestInit {
        cache: Some(RequestCache::OnlyIfCached),
        mode: Some(RequestMode::SameOrigin),
        ..range("bytes=0-1")
    };
    let response = get(&client, &url, only_if_cached).await;
    assert_eq!(parts(response).await, partial("bytes 0-1/11", "01"));
    assert_eq!(log.count("GET", "/eleven"), 1);
    assert_eq!(log.ranges("/eleven"), [seen(None, None)]);
    // An unsatisfiable range, or more than one, is the server's to answer.
    for value in ["bytes=11-", "bytes=0-1,3-4"] {
        let response = get(&client, &url, range(value)).await;
        assert_eq!(parts(response).await, whole("0123456789A"));
    }
    assert_eq!(
        log.ranges("/eleven"),
        [
            seen(None, None),
            seen(Some("bytes=11-"), None),
            seen(Some("bytes=0-1,3-4"), None),
        ]
    );
}

#[tokio::test]
async fn a_stored_206_answers_ranges_within_it_and_is_combined_with_one_it_meets() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/ranges");
    let response = get(&client, &url, range("bytes=2-5")).await;
    assert_eq!(parts(response).await, partial("bytes 2-5/10", "2345"));
    // Within the stored bytes: from the cache.
    let response = get(&client, &url, range("bytes=3-4")).await;
    assert_eq!(parts(response).await, partial("bytes 3-4/10", "34"));
    assert_eq!(log.count("GET", "/ranges"), 1);
    // Not within: from the server, and combined with the stored bytes (same ETag).
    let response = get(&client, &url, range("bytes=0-2")).await;
    assert_eq!(parts(response).await, partial("bytes 0-2/10", "012"));
    let response = get(&client, &url, range("bytes=0-5")).await;
    assert_eq!(parts(response).await, partial("bytes 0-5/10", "012345"));
    assert_eq!(
        log.ranges("/ranges"),
        [seen(Some("bytes=2-5"), None), seen(Some("bytes=0-2"), None)]
    );
}

#[tokio::test]
async fn a_stored_206_is_completed_with_a_range_request_for_the_rest() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/ranges");
    let response = get(&client, &url, range("bytes=0-3")).await;
    assert_eq!(parts(response).await, partial("bytes 0-3/10", "0123"));
    // The rest is asked for, conditional on the stored strong validator, and combined.
    let response = get(&client, &url, RequestInit::default()).await;
    assert_eq!(parts(response).await, whole("0123456789"));
    assert_eq!(
        log.ranges("/ranges"),
        [
            seen(Some("bytes=0-3"), None),
            seen(Some("bytes=4-"), Some("\"r1\"")),
        ]
    );
    // The combined response is stored, complete.
    let response = get(&client, &url, RequestInit::default()).await;
    assert_eq!(parts(response).await, whole("0123456789"));
    let response = get(&client, &url, range("bytes=8-")).await;
    assert_eq!(parts(response).await, partial("bytes 8-9/10", "89"));
    assert_eq!(log.count("GET", "/ranges"), 2);
}

#[tokio::test]
async fn a_stored_end_of_a_representation_is_completed_with_a_request_for_its_start() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/ranges");
    let response = get(&client, &url, range("bytes=-4")).await;
    assert_eq!(parts(response).await, partial("bytes 6-9/10", "6789"));
    let response = get(&client, &url, RequestInit::default()).await;
    assert_eq!(parts(response).await, whole("0123456789"));
    assert_eq!(
        log.ranges("/ranges"),
        [
            seen(Some("bytes=-4"), None),
            seen(Some("bytes=0-5"), Some("\"r1\"")),
        ]
    );
    get_text(&client, &url, RequestInit::default()).await;
    assert_eq!(log.count("GET", "/ranges"), 2);
}

#[tokio::test]
async fn without_a_strong_validator_a_206_for_the_rest_is_not_combined_but_refetched() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/ranges-no-etag");
    let response = get(&client, &url, range("bytes=0-3")).await;
    assert_eq!(parts(response).await, partial("bytes 0-3/10", "0123"));
    let response = get(&client, &url, RequestInit::default()).await;
    assert_eq!(parts(response).await, whole("0123456789"));
    assert_eq!(
        log.ranges("/ranges-no-etag"),
        [
            seen(Some("bytes=0-3"), None),
            seen(Some("bytes=4-"), None),
            seen(None, None),
        ]
    );
    // The whole response from the second request is stored.
    get_text(&client, &url, RequestInit::default()).await;
    assert_eq!(log.count("GET", "/ranges-no-etag"), 3);
}

#[tokio::test]
async fn a_200_to_the_request_for_the_rest_is_the_response_and_replaces_the_stored_part() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/partial-then-whole");
    let response = get(&client, &url, range("bytes=-5")).await;
    assert_eq!(parts(response).await, partial("bytes 0-4/10", "01234"));
    let response = get(&client, &url, RequestInit::default()).await;
    assert_eq!(parts(response).await, whole("0123456789"));
    assert_eq!(
        log.ranges("/partial-then-whole"),
        [seen(Some("bytes=-5"), None), seen(Some("bytes=5-"), None)]
    );
    let response = get(&client, &url, RequestInit::default()).await;
    assert_eq!(parts(response).await, whole("0123456789"));
    assert_eq!(log.count("GET", "/partial-then-whole"), 2);
}

#[tokio::test]
async fn a_206_for_the_rest_with_fewer_bytes_than_its_content_range_errors_the_body() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/short-rest");
    get_text(&client, &url, range("bytes=0-3")).await;
    let mut response = get(&client, &url, RequestInit::default()).await;
    assert_eq!(response.status(), 200);
    let error = response.text().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert_eq!(
        log.ranges("/short-rest"),
        [
            seen(Some("bytes=0-3"), None),
            seen(Some("bytes=4-"), Some("\"r1\"")),
        ]
    );
    // Nothing combined was stored; the stored part is still there.
    let response = get(&client, &url, range("bytes=1-2")).await;
    assert_eq!(parts(response).await, partial("bytes 1-2/10", "12"));
    assert_eq!(log.count("GET", "/short-rest"), 2);
}

#[tokio::test]
async fn a_206_holding_fewer_bytes_than_its_content_range_says_keeps_those_it_holds() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/short-206");
    // `bytes 4-9/10`, but 5 bytes: they are kept as bytes 4 to 8.
    let response = get(&client, &url, range("bytes=-5")).await;
    assert_eq!(parts(response).await, partial("bytes 4-9/10", "01234"));
    let response = get(&client, &url, range("bytes=6-8")).await;
    assert_eq!(parts(response).await, partial("bytes 6-8/10", "234"));
    assert_eq!(log.count("GET", "/short-206"), 1);
    // Byte 9 was never received: the server is asked.
    let response = get(&client, &url, range("bytes=6-")).await;
    assert_eq!(parts(response).await, whole("0123456789"));
    assert_eq!(log.count("GET", "/short-206"), 2);
}

#[tokio::test]
async fn a_fresh_post_or_patch_response_naming_its_target_as_content_location_answers_get() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    for method in ["POST", "PATCH"] {
        let url = server.url(&format!("/post-here?{method}"));
        let init = RequestInit {
            method: Some(method.into()),
            body: Some("abc".into()),
            ..Default::default()
        };
        assert_eq!(get_text(&client, &url, init).await, "posted");
        assert_eq!(
            get_text(&client, &url, RequestInit::default()).await,
            "posted"
        );
    }
    assert_eq!(log.count("POST", "/post-here"), 1);
    assert_eq!(log.count("PATCH", "/post-here"), 1);
    assert_eq!(log.count("GET", "/post-here"), 0);
}

#[tokio::test]
async fn a_post_response_naming_another_resource_or_without_freshness_is_not_stored() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    for path in ["/post-elsewhere", "/post-no-freshness"] {
        let url = server.url(path);
        let init = RequestInit {
            method: Some("POST".into()),
            body: Some("abc".into()),
            ..Default::default()
        };
        assert_eq!(get_text(&client, &url, init).await, "posted");
        assert_eq!(get_text(&client, &url, RequestInit::default()).await, "got");
        assert_eq!(log.count("GET", path), 1);
    }
    // Nor for the resource it names.
    get_text(&client, &server.url("/elsewhere"), RequestInit::default()).await;
    assert_eq!(log.count("GET", "/elsewhere"), 1);
}

#[tokio::test]
async fn a_416_to_the_request_for_the_rest_means_asking_again_for_all() {
    let (server, log) = cache_server().await;
    let client = page(&server);
    let url = server.url("/four");
    let response = get(&client, &url, range("bytes=0-3")).await;
    assert_eq!(parts(response).await, partial("bytes 0-3/*", "0123"));
    let response = get(&client, &url, RequestInit::default()).await;
    assert_eq!(parts(response).await, whole("0123"));
    assert_eq!(
        log.ranges("/four"),
        [
            seen(Some("bytes=0-3"), None),
            seen(Some("bytes=4-"), Some("\"f\"")),
            seen(None, None),
        ]
    );
}

/// A server for stale-while-revalidate: `/swr` is stale at once (max-age=0) with a 60 s
/// `stale-while-revalidate` window, `/swr-past` has a zero window; each body is the
/// number of requests to that path so far. It records each request's `Cache-Control`.
async fn swr_server() -> (Server, Arc<Mutex<Vec<(String, Option<String>)>>>) {
    let seen = Arc::new(Mutex::new(Vec::new()));
    let server_seen = Arc::clone(&seen);
    let server = hyper_server(move |request: HyperRequest<Incoming>| {
        let seen = Arc::clone(&server_seen);
        async move {
            let path = request.uri().path().to_owned();
            let cache_control = request
                .headers()
                .get("cache-control")
                .map(|value| value.to_str().unwrap().to_owned());
            let count = {
                let mut seen = seen.lock().unwrap();
                seen.push((path.clone(), cache_control));
                seen.iter().filter(|(p, _)| *p == path).count()
            };
            let window = if path == "/swr" { 60 } else { 0 };
            HyperResponse::builder()
                .header(
                    "cache-control",
                    format!("max-age=0, stale-while-revalidate={window}"),
                )
                .body(full(count.to_string()))
                .unwrap()
        }
    })
    .await;
    (server, seen)
}

#[tokio::test]
async fn stale_while_revalidate_serves_the_stale_response_and_revalidates_in_the_background() {
    let (server, seen) = swr_server().await;
    let client = page(&server);
    let url = server.url("/swr");
    assert_eq!(get_text(&client, &url, RequestInit::default()).await, "1");
    // Stale, within the window: the stored response at once, and a revalidation behind it.
    assert_eq!(get_text(&client, &url, RequestInit::default()).await, "1");
    let revalidated = net_support::eventually(|| seen.lock().unwrap().len() == 2).await;
    assert!(
        revalidated,
        "the background revalidation reached the server"
    );
    // The revalidation is a no-cache fetch that adds no `Cache-Control: max-age=0`.
    assert_eq!(seen.lock().unwrap()[1], ("/swr".to_owned(), None));
    // Its response replaces the stored one once read: a later fetch gets a newer body.
    let mut replaced = false;
    for _ in 0..200 {
        if get_text(&client, &url, RequestInit::default()).await != "1" {
            replaced = true;
            break;
        }
        tokio::time::sleep(std::time::Duration::from_millis(10)).await;
    }
    assert!(replaced, "the revalidated response was stored");
}

#[tokio::test]
async fn stale_while_revalidate_is_only_for_the_default_cache_mode() {
    let (server, seen) = swr_server().await;
    let client = page(&server);
    let url = server.url("/swr");
    assert_eq!(get_text(&client, &url, RequestInit::default()).await, "1");
    let text = get_text(&client, &url, cache_mode(RequestCache::NoCache)).await;
    assert_eq!(text, "2", "no-cache goes to the network first");
    tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    assert_eq!(
        seen.lock().unwrap().len(),
        2,
        "and starts no background fetch"
    );
}

#[tokio::test]
async fn past_the_window_a_stale_response_is_validated_first() {
    let (server, seen) = swr_server().await;
    let client = page(&server);
    let url = server.url("/swr-past");
    assert_eq!(get_text(&client, &url, RequestInit::default()).await, "1");
    assert_eq!(get_text(&client, &url, RequestInit::default()).await, "2");
    assert_eq!(seen.lock().unwrap().len(), 2);
}
