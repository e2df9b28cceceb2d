//! HTTP's semantics over HTTP/3 as over HTTP/2: each case is written once and run twice
//! (`case::h2` and `case::h3`), against the same handler served over HTTP/2 over TLS
//! (hyper) and over HTTP/3 (quinn and h3), with a client that reaches it over that
//! protocol alone. The cases are those `tests/` checks over TCP: request and response
//! bodies, framing errors, bodiless answers, headers both ways, cookies, redirects,
//! content decoding, the HTTP cache, abort, the read timeout, trailers, status errors and
//! requests in parallel. Each asserts the protocol its response came over.

#[path = "../../tests/net_support/mod.rs"]
mod net_support;
#[path = "../support/served.rs"]
mod served;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Frame;
use net_support::{ServerBody, TestPki, full};
use served::{Over, Served, serve};
use whatwg_fetch::{
    AbortController, Body, BoxError, ErrorKind, NetworkError, Response, TimeoutKind,
};

/// Runs `case` over `over`, for at most ten seconds.
async fn bounded<F: std::future::Future<Output = ()>>(over: Over, case: F) {
    tokio::time::timeout(Duration::from_secs(10), case)
        .await
        .unwrap_or_else(|_| panic!("the case over {over:?} took more than ten seconds"));
}

/// Makes `mod $case { fn h2, fn h3 }`: the case `async fn $case(over: Over)` run over
/// each protocol, bounded.
macro_rules! over_both {
    ($($case:ident),* $(,)?) => {$(
        mod $case {
            use super::*;

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn h2() {
                bounded(Over::H2, super::$case(Over::H2)).await;
            }

            #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
            async fn h3() {
                bounded(Over::H3, super::$case(Over::H3)).await;
            }
        }
    )*};
}

over_both!(
    a_response_says_the_protocol_it_came_over,
    the_fetch_default_request_headers_are_sent_and_the_callers_win,
    request_bodies_empty_buffered_and_json_arrive_with_their_headers,
    a_streamed_request_body_of_several_mib_arrives_whole,
    a_request_body_that_fails_fails_the_fetch_with_its_own_error,
    a_request_given_up_stops_sending_its_streamed_body,
    a_response_body_of_several_mib_is_streamed_byte_for_byte,
    a_response_says_its_content_length_before_its_body,
    a_content_length_shorter_than_the_body_is_an_error,
    a_content_length_longer_than_the_body_is_an_error,
    a_body_cut_by_a_reset_stream_is_an_error_not_a_short_body,
    a_body_with_a_content_length_cut_by_a_reset_stream_fails_with_the_reset,
    a_response_body_is_read_whole_after_its_client_is_dropped,
    head_204_and_304_have_no_body,
    repeated_and_multi_valued_response_headers_are_kept,
    set_cookie_is_stored_in_the_jar_and_sent_back,
    redirects_301_302_303_turn_a_post_into_a_get,
    redirects_307_308_send_the_body_again,
    twenty_redirects_are_followed_and_twenty_one_fail,
    gzip_is_decoded_and_without_decoding_the_body_comes_as_sent,
    a_fresh_response_is_served_from_the_cache,
    a_stale_response_is_revalidated_with_its_etag_and_a_304,
    an_abort_mid_body_stops_the_stream_and_the_next_request_is_fine,
    an_abort_while_waiting_for_the_head_rejects_with_the_reason,
    a_stalled_body_fails_at_the_read_timeout,
    a_total_timeout_covers_the_head_and_the_body,
    trailers_arrive_after_the_data,
    error_for_status_fails_on_4xx_and_5xx,
    many_requests_in_parallel_share_one_connection,
);

// The server.

/// What the server saw, for the cases to ask.
#[derive(Default)]
struct Seen {
    /// Requests, by path.
    paths: Mutex<HashMap<String, usize>>,
    /// `/cache/etag`'s requests' `If-None-Match`, in order.
    if_none_match: Mutex<Vec<Option<String>>>,
    /// Set when `/endless`'s body is dropped: its stream stopped.
    endless_dropped: AtomicBool,
}

impl Seen {
    fn count(&self, path: &str) -> usize {
        let paths = self.paths.lock().expect("the paths seen");
        paths.get(path).copied().unwrap_or(0)
    }
}

/// The text `/gzip` sends coded.
const TEXT: &str = "The quick brown fox jumps over the lazy dog, again and again and again.";

/// `len` bytes of a pattern that is not periodic in any power of two, so that a chunk
/// lost, repeated or moved shows.
fn pattern(len: usize) -> Bytes {
    (0..len).map(|i| (i % 251) as u8).collect::<Vec<_>>().into()
}

/// FNV-1a, 64 bits: a digest of a body too large to echo.
fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |hash, byte| {
        (hash ^ u64::from(*byte)).wrapping_mul(0x100_0000_01b3)
    })
}

/// `data` in chunks of `size`, streamed (no length known from the body itself).
fn chunked(data: Bytes, size: usize) -> ServerBody {
    let chunks = (0..data.len())
        .step_by(size)
        .map(move |start| {
            let end = (start + size).min(data.len());
            Ok::<_, BoxError>(Frame::data(data.slice(start..end)))
        })
        .collect::<Vec<_>>();
    http_body_util::StreamBody::new(futures_util::stream::iter(chunks)).boxed()
}

async fn gzip(data: &[u8]) -> Vec<u8> {
    use tokio::io::AsyncWriteExt;
    let mut encoder = async_compression::tokio::write::GzipEncoder::new(Vec::new());
    encoder.write_all(data).await.expect("gzip");
    encoder.shutdown().await.expect("gzip");
    encoder.into_inner()
}

/// What `/echo` answers: the request line, `authority:`, each header as `name: value`,
/// a blank line, the body.
fn echo(request: &http::Request<Bytes>) -> String {
    let mut text = format!(
        "{} {}\nauthority: {}\n",
        request.method(),
        request
            .uri()
            .path_and_query()
            .map_or("/", |path| path.as_str()),
        request
            .uri()
            .authority()
            .map_or("", |authority| authority.as_str()),
    );
    for (name, value) in request.headers() {
        text.push_str(&format!(
            "{name}: {}\n",
            String::from_utf8_lossy(value.as_bytes())
        ));
    }
    text.push('\n');
    text.push_str(&String::from_utf8_lossy(request.body()));
    text
}

/// A body of `first`, then, after `pause`, `then`: a second chunk, or the error that
/// ends it.
fn paused(
    first: &'static str,
    pause: Duration,
    then: Result<&'static str, &'static str>,
) -> ServerBody {
    let frames = futures_util::stream::unfold(0, move |step| async move {
        match step {
            0 => Some((
                Ok::<_, BoxError>(Frame::data(Bytes::from_static(first.as_bytes()))),
                1,
            )),
            1 => {
                tokio::time::sleep(pause).await;
                let then = then
                    .map(|data| Frame::data(Bytes::from_static(data.as_bytes())))
                    .map_err(BoxError::from);
                Some((then, 2))
            }
            _ => None,
        }
    });
    http_body_util::StreamBody::new(frames).boxed()
}

fn respond(status: u16) -> http::response::Builder {
    http::Response::builder().status(status)
}

/// The routes, the same over both protocols: `/echo`, `/digest` (`LENGTH DIGEST` of the
/// request body), `/bytes/N` (N bytes of [`pattern`], in 64 KiB chunks, with their
/// `Content-Length`), `/length/DECLARED/SENT`, `/status/N`, `/headers`, `/set-cookie`,
/// `/set-cookie-redirect`, `/redirect/STATUS?TO`, `/hops/N` (N redirects, then the echo),
/// `/gzip`, `/cache/fresh`, `/cache/etag`, `/reset` (a chunk, then the stream reset;
/// `/reset/N` with `Content-Length: N`),
/// `/later` (a chunk, the next 100 ms later), `/endless` (a chunk every 5 ms, for as long
/// as the client reads), `/stall` (a chunk, then nothing for 5 s), `/slow-head` (the head
/// after 5 s), `/trailers`.
async fn routes(seen: Arc<Seen>, request: http::Request<Bytes>) -> http::Response<ServerBody> {
    let path = request.uri().path().to_owned();
    *seen
        .paths
        .lock()
        .expect("the paths seen")
        .entry(path.clone())
        .or_default() += 1;
    let query = request.uri().query().unwrap_or_default().to_owned();
    let head = request.method() == http::Method::HEAD;
    let mut parts = path.trim_start_matches('/').splitn(2, '/');
    let response = match (parts.next().unwrap_or_default(), parts.next()) {
        ("digest", _) => {
            let body = request.body();
            respond(200).body(full(format!("{} {:x}", body.len(), fnv(body))))
        }
        ("bytes", Some(len)) => {
            let len: usize = len.parse().expect("a length");
            let body = if head {
                full("")
            } else {
                chunked(pattern(len), 64 * 1024)
            };
            respond(200).header("content-length", len).body(body)
        }
        ("length", Some(lengths)) => {
            let (declared, sent) = lengths.split_once('/').expect("DECLARED/SENT");
            let sent: usize = sent.parse().expect("a length");
            respond(200)
                .header("content-length", declared)
                .body(chunked(pattern(sent), 4))
        }
        ("status", Some(status)) => {
            let status: u16 = status.parse().expect("a status");
            let builder = respond(status).header("x-status", status);
            match status {
                // A 304's Content-Length is the representation's (RFC 9110 §8.6).
                204 | 304 => builder.header("content-length", 4).body(full("")),
                _ => builder.body(full(format!("status {status}"))),
            }
        }
        ("headers", _) => respond(200)
            .header("content-type", "text/plain")
            .header("set-cookie", "a=1")
            .header("set-cookie", "b=2")
            .header("x-multi", "one")
            .header("x-multi", "two")
            .header("x-list", "a, b")
            .header("x-empty", "")
            .body(full("ok")),
        ("set-cookie", _) => respond(200)
            .header("set-cookie", "session=abc; Path=/; Secure; HttpOnly")
            .header("set-cookie", "theme=dark; Path=/")
            .body(full("set")),
        ("set-cookie-redirect", _) => respond(302)
            .header("set-cookie", "hop=1; Path=/")
            .header("location", "/echo")
            .body(full("")),
        ("redirect", Some(status)) => respond(status.parse().expect("a status"))
            .header("location", query)
            .body(full("redirecting")),
        ("hops", Some(count)) => match count.parse::<u32>().expect("a count") {
            0 => respond(200).body(full(echo(&request))),
            count => respond(302)
                .header("location", format!("/hops/{}", count - 1))
                .body(full("")),
        },
        ("gzip", _) => respond(200)
            .header("content-type", "text/plain")
            .header("content-encoding", "gzip")
            .body(full(gzip(TEXT.as_bytes()).await)),
        ("cache", Some("fresh")) => respond(200)
            .header("cache-control", "max-age=3600")
            .body(full("fresh")),
        ("cache", Some("etag")) => {
            let if_none_match = request
                .headers()
                .get("if-none-match")
                .map(|value| String::from_utf8_lossy(value.as_bytes()).into_owned());
            seen.if_none_match
                .lock()
                .expect("the validators seen")
                .push(if_none_match.clone());
            match if_none_match.as_deref() {
                Some("\"v1\"") => respond(304)
                    .header("etag", "\"v1\"")
                    .header("cache-control", "no-cache")
                    .header("x-updated", "yes")
                    .body(full("")),
                _ => respond(200)
                    .header("etag", "\"v1\"")
                    .header("cache-control", "no-cache")
                    .body(full("etag-body")),
            }
        }
        ("endless", _) => {
            struct Stopped(Arc<Seen>);
            impl Drop for Stopped {
                fn drop(&mut self) {
                    self.0.endless_dropped.store(true, Ordering::SeqCst);
                }
            }
            let chunks = futures_util::stream::unfold(Stopped(seen), |stopped| async move {
                tokio::time::sleep(Duration::from_millis(5)).await;
                let chunk = Frame::data(Bytes::from_static(&[b'.'; 1024]));
                Some((Ok::<_, BoxError>(chunk), stopped))
            });
            respond(200).body(http_body_util::StreamBody::new(chunks).boxed())
        }
        ("reset", length) => {
            // The reset a while after the chunk, so that the head and the chunk are
            // read before it.
            let failed = Err("the handler failed mid-body");
            let mut builder = respond(200);
            if let Some(length) = length {
                builder = builder.header("content-length", length);
            }
            builder.body(paused("partial", Duration::from_millis(100), failed))
        }
        ("later", _) => {
            respond(200).body(paused("first ", Duration::from_millis(100), Ok("second")))
        }
        ("stall", _) => respond(200).body(paused("first", Duration::from_secs(5), Ok("second"))),
        ("slow-head", _) => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            respond(200).body(full("late"))
        }
        ("trailers", _) => {
            let mut trailers = http::HeaderMap::new();
            trailers.insert("grpc-status", http::HeaderValue::from_static("0"));
            trailers.insert("x-checksum", http::HeaderValue::from_static("abc"));
            let frames = futures_util::stream::iter([
                Ok::<_, BoxError>(Frame::data(Bytes::from_static(b"data"))),
                Ok(Frame::trailers(trailers)),
            ]);
            respond(200)
                .header("trailer", "grpc-status, x-checksum")
                .body(http_body_util::StreamBody::new(frames).boxed())
        }
        _ => respond(200).body(full(echo(&request))),
    };
    response.expect("a response")
}

/// The routes served over `over`, and what they saw.
async fn server(over: Over) -> (Served, Arc<Seen>) {
    let pki = TestPki::new(&["localhost"]);
    let seen = Arc::new(Seen::default());
    let routes_seen = Arc::clone(&seen);
    let served = serve(over, &pki, move |request| {
        routes(Arc::clone(&routes_seen), request)
    })
    .await;
    (served, seen)
}

// The client's side.

/// Asserts that `response` came from the network over `over`.
fn assert_over(over: Over, response: &Response) {
    let timing = response.timing().expect("a fetched response has timing");
    assert_eq!(timing.next_hop_protocol, over.alpn(), "{over:?}");
    assert_eq!(response.version(), over.version(), "{over:?}");
}

/// `GET url` with `client`, checked to have come over `over`, and its body as text.
async fn get_text(over: Over, client: &whatwg_fetch::Client, url: &str) -> String {
    let mut response = get_over(over, client, url).await;
    response.text().await.expect("the body")
}

/// Asserts that a request after the case's still goes through, on `server`.
async fn the_next_request_goes_through(over: Over, client: &whatwg_fetch::Client, server: &Served) {
    let text = get_text(over, client, &server.url("/echo")).await;
    assert!(text.starts_with("GET /echo"), "{text}");
}

/// A `GET` of `url`'s response, checked to have come `over` its protocol.
async fn get_over(over: Over, client: &whatwg_fetch::Client, url: &str) -> whatwg_fetch::Response {
    send_over(over, client.get(url)).await
}

/// The response to `request`, which came over `over`'s protocol.
async fn send_over(over: Over, request: whatwg_fetch::RequestBuilder) -> whatwg_fetch::Response {
    let response = request.send().await.expect("a response");
    assert_over(over, &response);
    response
}

// The cases.

async fn a_response_says_the_protocol_it_came_over(over: Over) {
    let (server, _) = server(over).await;
    let client = server.client();
    let mut response = client
        .get(server.url("/echo"))
        .send()
        .await
        .expect("a response");
    assert_eq!(response.status(), 200);
    assert!(response.ok());
    assert_eq!(response.url(), server.url("/echo"));
    let timing = response.timing().expect("timing");
    assert_eq!(timing.next_hop_protocol, over.alpn());
    assert_eq!(response.version(), over.version());
    assert_eq!(
        response.remote_addr().map(|addr| addr.port()),
        Some(server.port)
    );
    let tls = response.tls_info().expect("TLS info");
    assert_eq!(tls.version(), whatwg_fetch::net::TlsVersion::Tls13);
    let text = response.text().await.expect("the body");
    assert!(text.starts_with("GET /echo\n"), "{text}");
    assert_eq!(server.connections(), 1);
}

async fn the_fetch_default_request_headers_are_sent_and_the_callers_win(over: Over) {
    let (server, _) = server(over).await;
    let client = server.client();
    let text = get_text(over, &client, &server.url("/echo?q=1")).await;
    assert!(text.starts_with("GET /echo?q=1\n"), "{text}");
    assert!(
        text.contains(&format!("\nauthority: localhost:{}\n", server.port)),
        "{text}"
    );
    assert!(text.contains("\naccept: */*\n"), "{text}");
    assert!(text.contains("\naccept-language: *\n"), "{text}");
    assert!(
        text.contains("\naccept-encoding: gzip, deflate, br, zstd\n"),
        "{text}"
    );
    assert!(
        text.contains(&format!(
            "\nuser-agent: {}\n",
            whatwg_fetch::client::DEFAULT_USER_AGENT
        )),
        "{text}"
    );
    // No HTTP/1.1 connection fields over HTTP/2 or HTTP/3 (RFC 9113 §8.2.2, RFC 9114
    // §4.2), the authority as `:authority`, no `Host`; no body, no length.
    for absent in [
        "\nconnection:",
        "\nkeep-alive:",
        "\ntransfer-encoding:",
        "\nupgrade:",
        "\nhost:",
        "\ncontent-length:",
        "\norigin:",
    ] {
        assert!(!text.contains(absent), "{absent} in {text}");
    }
    // The caller's headers, names lowercased and values as given, over the defaults.
    let mut response = send_over(
        over,
        client
            .get(server.url("/echo"))
            .header("Accept", "text/plain")
            .header("User-Agent", "mine/1.0")
            .header("X-Custom-Name", "Mixed Case, with comma")
            .header("x-repeated", "one")
            .header("x-repeated", "two"),
    )
    .await;
    let text = response.text().await.expect("the body");
    assert!(text.contains("\naccept: text/plain\n"), "{text}");
    assert!(!text.contains("*/*"), "{text}");
    assert!(text.contains("\nuser-agent: mine/1.0\n"), "{text}");
    assert!(
        text.contains("\nx-custom-name: Mixed Case, with comma\n"),
        "{text}"
    );
    // A name appended twice goes as two fields, in order.
    assert!(
        text.contains("\nx-repeated: one\nx-repeated: two\n"),
        "{text}"
    );
}

async fn request_bodies_empty_buffered_and_json_arrive_with_their_headers(over: Over) {
    let (server, _) = server(over).await;
    let client = server.client();
    // A POST without a body: `Content-Length: 0` (Fetch: "If request's body is null and
    // request's method is `POST` or `PUT`, then set contentLengthHeaderValue to `0`").
    let mut response = send_over(over, client.post(server.url("/echo"))).await;
    let text = response.text().await.expect("the body");
    assert!(text.starts_with("POST /echo\n"), "{text}");
    assert!(text.contains("\ncontent-length: 0\n"), "{text}");
    assert!(text.ends_with("\n\n"), "{text}");
    // A buffered body, with its type and length.
    let mut response = send_over(over, client.post(server.url("/echo")).body("hello")).await;
    let text = response.text().await.expect("the body");
    assert!(
        text.contains("\ncontent-type: text/plain;charset=UTF-8\n"),
        "{text}"
    );
    assert!(text.contains("\ncontent-length: 5\n"), "{text}");
    assert!(text.ends_with("\n\nhello"), "{text}");
    // JSON.
    let value = serde_json::json!({"name": "h3", "list": [1, 2, 3], "nested": {"ok": true}});
    let mut response = send_over(over, client.post(server.url("/echo")).json(&value)).await;
    let text = response.text().await.expect("the body");
    assert!(
        text.contains("\ncontent-type: application/json\n"),
        "{text}"
    );
    let (_, body) = text.split_once("\n\n").expect("a blank line");
    let sent: serde_json::Value = serde_json::from_str(body).expect("JSON");
    assert_eq!(sent, value);
    assert!(
        text.contains(&format!("\ncontent-length: {}\n", body.len())),
        "{text}"
    );
    // A PUT of bytes that are not UTF-8.
    let mut response = send_over(
        over,
        client
            .put(server.url("/digest"))
            .body(vec![0u8, 0xff, 0xfe, 0x80]),
    )
    .await;
    assert_eq!(
        response.text().await.expect("the body"),
        format!("4 {:x}", fnv(&[0, 0xff, 0xfe, 0x80]))
    );
}

async fn a_streamed_request_body_of_several_mib_arrives_whole(over: Over) {
    const LEN: usize = 4 << 20;
    let (server, _) = server(over).await;
    let client = server.client();
    let data = pattern(LEN);
    let chunks = (0..LEN)
        .step_by(64 * 1024)
        .map(|start| Ok::<_, std::io::Error>(data.slice(start..start + 64 * 1024)))
        .collect::<Vec<_>>();
    let mut response = send_over(
        over,
        client
            .post(server.url("/digest"))
            .body(Body::from_stream(futures_util::stream::iter(chunks))),
    )
    .await;
    assert_eq!(
        response.text().await.expect("the body"),
        format!("{LEN} {:x}", fnv(&data))
    );
}

async fn a_request_body_that_fails_fails_the_fetch_with_its_own_error(over: Over) {
    let (server, _) = server(over).await;
    let client = server.client();
    // A first piece, then the stream's own error.
    let chunks = futures_util::stream::iter([
        Ok(Bytes::from_static(b"the first part")),
        Err(BoxError::from("the disk is gone")),
    ]);
    let error = client
        .post(server.url("/digest"))
        .body(Body::from_stream(chunks))
        .send()
        .await
        .expect_err("a fetch whose request body failed");
    // As over HTTP/1.1 and HTTP/2: a network error whose cause is the body's own.
    let chain = format!("{error:#}");
    assert_eq!(error.kind(), ErrorKind::TypeError, "{chain}");
    assert!(
        matches!(error.network_error(), Some(NetworkError::Protocol(_))),
        "{chain}"
    );
    assert!(
        chain.contains("the request body's stream failed"),
        "{chain}"
    );
    assert!(chain.contains("the disk is gone"), "{chain}");
    assert!(!error.is_body(), "no response body was read: {chain}");
    // The connection lives on for the next request.
    the_next_request_goes_through(over, &client, &server).await;
}

/// A request body that never ends, telling `dropped` when it is dropped.
struct Endless {
    dropped: Option<tokio::sync::oneshot::Sender<()>>,
}

impl futures_util::Stream for Endless {
    type Item = Result<Bytes, BoxError>;

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        std::task::Poll::Ready(Some(Ok(Bytes::from_static(&[b'x'; 16 * 1024]))))
    }
}

impl Drop for Endless {
    fn drop(&mut self) {
        if let Some(dropped) = self.dropped.take() {
            let _ = dropped.send(());
        }
    }
}

async fn a_request_given_up_stops_sending_its_streamed_body(over: Over) {
    let (server, _) = server(over).await;
    // The server reads the body to its end before it answers: never, here.
    let client = server
        .client_builder()
        .read_timeout(Duration::from_millis(300))
        .build()
        .expect("a client");
    let (dropped, body_dropped) = tokio::sync::oneshot::channel();
    let error = client
        .post(server.url("/digest"))
        .body(Body::from_stream(Endless {
            dropped: Some(dropped),
        }))
        .send()
        .await
        .expect_err("no answer within the read timeout");
    assert!(error.is_timeout(), "{error:#}");
    // Given up, the request stops its upload: the body is dropped, not read for ever.
    tokio::time::timeout(Duration::from_secs(2), body_dropped)
        .await
        .expect("the body is dropped once the request is given up")
        .expect("the body tells");
}

async fn a_response_body_of_several_mib_is_streamed_byte_for_byte(over: Over) {
    const LEN: usize = 4 << 20;
    let (server, _) = server(over).await;
    let client = server.client();
    let mut response = get_over(over, &client, &server.url(&format!("/bytes/{LEN}"))).await;
    let expected = pattern(LEN);
    let (mut received, mut chunks) = (0, 0);
    while let Some(chunk) = response.chunk().await.expect("a chunk") {
        assert!(
            expected[received..].starts_with(&chunk),
            "bytes {received}.. differ"
        );
        received += chunk.len();
        chunks += 1;
    }
    assert_eq!(received, LEN);
    assert!(chunks > 1, "the body came in {chunks} chunk");
}

async fn a_response_says_its_content_length_before_its_body(over: Over) {
    let (server, _) = server(over).await;
    let client = server.client();
    let mut response = get_over(over, &client, &server.url("/bytes/100000")).await;
    assert_eq!(response.content_length(), Some(100_000));
    assert_eq!(response.bytes().await.expect("the body").len(), 100_000);
}

/// Reads `/length/{declared}/{sent}`: the error its body ends in.
async fn length_error(over: Over, declared: usize, sent: usize) {
    let (server, _) = server(over).await;
    let client = server.client();
    let url = server.url(&format!("/length/{declared}/{sent}"));
    let result = async {
        let mut response = client.get(url.as_str()).send().await?;
        assert_over(over, &response);
        response.bytes().await
    }
    .await;
    let error = result.expect_err("a body whose length is not its Content-Length");
    eprintln!("{over:?}: Content-Length {declared}, {sent} bytes sent: {error:#}");
    assert_eq!(error.kind(), ErrorKind::TypeError, "{error:?}");
    assert!(error.network_error().is_some(), "{error:?}");
    if over == Over::H3 {
        assert!(
            matches!(error.network_error(), Some(NetworkError::LengthMismatch)),
            "{error:?}"
        );
    }
    // The connection is still good for the next request.
    the_next_request_goes_through(over, &client, &server).await;
}

async fn a_content_length_shorter_than_the_body_is_an_error(over: Over) {
    length_error(over, 10, 20).await;
}

async fn a_content_length_longer_than_the_body_is_an_error(over: Over) {
    length_error(over, 20, 10).await;
}

async fn a_body_cut_by_a_reset_stream_is_an_error_not_a_short_body(over: Over) {
    let (server, _) = server(over).await;
    let client = server.client();
    let mut response = get_over(over, &client, &server.url("/reset")).await;
    assert_eq!(
        response.chunk().await.expect("a chunk").as_deref(),
        Some(&b"partial"[..])
    );
    let error = response.chunk().await.expect_err("a body cut short");
    eprintln!("{over:?}: a body cut by a reset: {error:#}");
    assert_eq!(error.kind(), ErrorKind::TypeError, "{error:?}");
    assert!(error.network_error().is_some(), "{error:?}");
    the_next_request_goes_through(over, &client, &server).await;
    assert_eq!(server.connections(), 1);
}

/// A stream reset with an error under a body with a `Content-Length` fails with the
/// reset: the body is short of its length only because of it.
async fn a_body_with_a_content_length_cut_by_a_reset_stream_fails_with_the_reset(over: Over) {
    let (server, _) = server(over).await;
    let client = server.client();
    let mut response = get_over(over, &client, &server.url("/reset/100")).await;
    assert_eq!(response.content_length(), Some(100));
    assert_eq!(
        response.chunk().await.expect("a chunk").as_deref(),
        Some(&b"partial"[..])
    );
    let error = response.chunk().await.expect_err("a body cut short");
    eprintln!("{over:?}: a body with a Content-Length cut by a reset: {error:#}");
    assert_eq!(error.kind(), ErrorKind::TypeError, "{error:?}");
    assert!(
        matches!(error.network_error(), Some(NetworkError::Protocol(_))),
        "{error:?}"
    );
    assert!(format!("{error:#}").contains("INTERNAL_ERROR"), "{error:#}");
    the_next_request_goes_through(over, &client, &server).await;
}

/// `Client::new().get(url).send().await?.text().await?`: the client is gone before the
/// body is read, and the body still comes whole.
async fn a_response_body_is_read_whole_after_its_client_is_dropped(over: Over) {
    let (server, _) = server(over).await;
    let client = server.client();
    let mut response = get_over(over, &client, &server.url("/later")).await;
    drop(client);
    assert_eq!(response.text().await.expect("the body"), "first second");
}

async fn head_204_and_304_have_no_body(over: Over) {
    let (server, _) = server(over).await;
    let client = server.client();
    let mut response = send_over(over, client.head(server.url("/bytes/1000"))).await;
    assert_eq!(response.status(), 200);
    assert_eq!(
        response
            .headers()
            .get("content-length")
            .expect("a header")
            .as_deref(),
        Some("1000")
    );
    assert!(response.body().is_none());
    assert_eq!(response.text().await.expect("no body"), "");
    for status in [204, 304] {
        let mut response = get_over(over, &client, &server.url(&format!("/status/{status}"))).await;
        assert_eq!(response.status(), status);
        assert!(response.body().is_none(), "{status}");
        assert_eq!(response.text().await.expect("no body"), "", "{status}");
    }
    // And the connection goes on.
    the_next_request_goes_through(over, &client, &server).await;
    assert_eq!(server.connections(), 1);
}

async fn repeated_and_multi_valued_response_headers_are_kept(over: Over) {
    let (server, _) = server(over).await;
    let mut response = server
        .client()
        .get(server.url("/headers"))
        .send()
        .await
        .expect("a response");
    assert_over(over, &response);
    let headers = response.headers();
    let get = |name: &str| headers.get(name).expect("a header name");
    assert_eq!(get("x-multi").as_deref(), Some("one, two"));
    assert_eq!(get("x-list").as_deref(), Some("a, b"));
    assert_eq!(get("x-empty").as_deref(), Some(""));
    assert_eq!(get("content-type").as_deref(), Some("text/plain"));
    assert_eq!(headers.get_set_cookie(), vec!["a=1", "b=2"]);
    assert_eq!(response.text().await.expect("the body"), "ok");
}

async fn set_cookie_is_stored_in_the_jar_and_sent_back(over: Over) {
    let (server, _) = server(over).await;
    let client = server
        .client_builder()
        .cookie_store(true)
        .build()
        .expect("a client");
    // The response that sets the cookies is sent none.
    let text = get_text(over, &client, &server.url("/echo")).await;
    assert!(!text.contains("\ncookie:"), "{text}");
    assert_eq!(
        get_text(over, &client, &server.url("/set-cookie")).await,
        "set"
    );
    let text = get_text(over, &client, &server.url("/echo")).await;
    assert!(
        text.contains("\ncookie: session=abc; theme=dark\n"),
        "{text}"
    );
    // A cookie set by a redirect is sent to where it leads.
    let text = get_text(over, &client, &server.url("/set-cookie-redirect")).await;
    assert!(
        text.contains("\ncookie: session=abc; theme=dark; hop=1\n"),
        "{text}"
    );
    let store = client.cookie_store().expect("a cookie store");
    let url = url::Url::parse(&server.url("/")).expect("a URL");
    assert_eq!(
        store.cookie_header_for(&url).as_deref(),
        Some(&b"session=abc; theme=dark; hop=1"[..])
    );
}

async fn redirects_301_302_303_turn_a_post_into_a_get(over: Over) {
    let (server, seen) = server(over).await;
    let client = server.client();
    for status in [301, 302, 303] {
        let mut response = send_over(
            over,
            client
                .post(server.url(&format!("/redirect/{status}?/echo")))
                .header("x-kept", "1")
                .body("payload"),
        )
        .await;
        assert!(response.redirected(), "{status}");
        assert_eq!(response.url_list().len(), 2);
        assert_eq!(response.url(), server.url("/echo"));
        let text = response.text().await.expect("the body");
        assert!(text.starts_with("GET /echo\n"), "{status}: {text}");
        assert!(!text.contains("\ncontent-type:"), "{status}: {text}");
        assert!(!text.contains("\ncontent-length:"), "{status}: {text}");
        assert!(text.ends_with("\n\n"), "{status}: {text}");
        assert!(text.contains("\nx-kept: 1\n"), "{status}: {text}");
    }
    assert_eq!(seen.count("/echo"), 3);
    assert_eq!(server.connections(), 1);
}

async fn redirects_307_308_send_the_body_again(over: Over) {
    let (server, _) = server(over).await;
    let client = server.client();
    for status in [307, 308] {
        for method in ["POST", "PUT"] {
            let mut response = client
                .request(
                    method.parse().expect("a method"),
                    server.url(&format!("/redirect/{status}?/echo")),
                )
                .body("payload")
                .send()
                .await
                .expect("a response");
            assert_over(over, &response);
            assert!(response.redirected());
            let text = response.text().await.expect("the body");
            assert!(
                text.starts_with(&format!("{method} /echo\n")),
                "{status} {method}: {text}"
            );
            assert!(text.contains("\ncontent-length: 7\n"), "{text}");
            assert!(
                text.contains("\ncontent-type: text/plain;charset=UTF-8\n"),
                "{text}"
            );
            assert!(text.ends_with("\n\npayload"), "{status} {method}: {text}");
        }
    }
    // A streamed body cannot be sent again: the redirect fails the fetch.
    let error = client
        .post(server.url("/redirect/307?/echo"))
        .body(Body::from_stream(futures_util::stream::iter([Ok::<
            _,
            std::io::Error,
        >(
            Bytes::from("streamed"),
        )])))
        .send()
        .await
        .expect_err("a streamed body on a 307");
    assert!(
        matches!(
            error.network_error(),
            Some(NetworkError::StreamBodyOnRedirect)
        ),
        "{error:?}"
    );
}

async fn twenty_redirects_are_followed_and_twenty_one_fail(over: Over) {
    let (server, seen) = server(over).await;
    let client = server.client();
    let mut response = get_over(over, &client, &server.url("/hops/20")).await;
    assert_eq!(response.url_list().len(), 21);
    let text = response.text().await.expect("the body");
    assert!(text.starts_with("GET /hops/0\n"), "{text}");
    let error = client
        .get(server.url("/hops/21"))
        .send()
        .await
        .expect_err("21 redirects");
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert!(error.is_redirect(), "{error:?}");
    assert!(
        matches!(
            error.network_error(),
            Some(NetworkError::TooManyRedirects { max: 20 })
        ),
        "{error:?}"
    );
    // The 21st redirect is not followed.
    assert_eq!(seen.count("/hops/0"), 1);
    assert_eq!(server.requests(), 21 + 21);
    assert_eq!(server.connections(), 1);
}

async fn gzip_is_decoded_and_without_decoding_the_body_comes_as_sent(over: Over) {
    let (server, _) = server(over).await;
    let client = server.client();
    let mut response = get_over(over, &client, &server.url("/gzip")).await;
    assert_eq!(
        response
            .headers()
            .get("content-encoding")
            .expect("a header")
            .as_deref(),
        Some("gzip")
    );
    assert_eq!(response.text().await.expect("the body"), TEXT);
    // Without gzip: not asked for, not decoded.
    let client = server
        .client_builder()
        .gzip(false)
        .build()
        .expect("a client");
    let text = get_text(over, &client, &server.url("/echo")).await;
    assert!(
        text.contains("\naccept-encoding: deflate, br, zstd\n"),
        "{text}"
    );
    let mut response = get_over(over, &client, &server.url("/gzip")).await;
    assert_eq!(
        response.bytes().await.expect("the body"),
        gzip(TEXT.as_bytes()).await
    );
}

async fn a_fresh_response_is_served_from_the_cache(over: Over) {
    let (server, seen) = server(over).await;
    let client = server
        .client_builder()
        .http_cache(true)
        .build()
        .expect("a client");
    let url = server.url("/cache/fresh");
    assert_eq!(get_text(over, &client, &url).await, "fresh");
    let mut response = client.get(url.as_str()).send().await.expect("a response");
    assert_eq!(response.status(), 200);
    assert!(response.headers().has("age").expect("a header name"));
    assert_eq!(response.text().await.expect("the body"), "fresh");
    assert_eq!(seen.count("/cache/fresh"), 1);
}

async fn a_stale_response_is_revalidated_with_its_etag_and_a_304(over: Over) {
    let (server, seen) = server(over).await;
    let client = server
        .client_builder()
        .http_cache(true)
        .build()
        .expect("a client");
    let url = server.url("/cache/etag");
    assert_eq!(get_text(over, &client, &url).await, "etag-body");
    // The 304 comes over the same connection (the server speaks only `over`); the
    // response is the stored one, freshened, which as every response from the cache
    // has no `next_hop_protocol` (see `ResourceTiming`).
    let mut response = client.get(url.as_str()).send().await.expect("a response");
    assert_eq!(response.status(), 200);
    assert_eq!(
        response
            .headers()
            .get("x-updated")
            .expect("a header")
            .as_deref(),
        Some("yes")
    );
    assert_eq!(response.text().await.expect("the body"), "etag-body");
    assert_eq!(seen.count("/cache/etag"), 2);
    assert_eq!(
        *seen.if_none_match.lock().expect("the validators seen"),
        [None, Some("\"v1\"".to_owned())]
    );
    assert_eq!(server.connections(), 1);
}

async fn an_abort_mid_body_stops_the_stream_and_the_next_request_is_fine(over: Over) {
    let (server, seen) = server(over).await;
    let client = server.client();
    let controller = AbortController::new();
    let mut response = send_over(
        over,
        client
            .get(server.url("/endless"))
            .signal(controller.signal()),
    )
    .await;
    let first = response
        .chunk()
        .await
        .expect("a chunk")
        .expect("not the end");
    assert!(!first.is_empty());
    controller.abort(None);
    let error = loop {
        // What had come before the abort may still be read; then the abort's error.
        match response.chunk().await {
            Ok(Some(_)) => continue,
            Ok(None) => panic!("the endless body ended"),
            Err(error) => break error,
        }
    };
    assert_eq!(error.kind(), ErrorKind::AbortError, "{error:?}");
    // The server is told to stop: its body is dropped, though the response is kept.
    let stopped = async {
        while !seen.endless_dropped.load(Ordering::SeqCst) {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    };
    tokio::time::timeout(Duration::from_secs(3), stopped)
        .await
        .expect("the server still sends the aborted body");
    drop(response);
    // The connection carries the next request.
    let text = get_text(over, &client, &server.url("/echo")).await;
    assert!(text.starts_with("GET /echo\n"), "{text}");
    assert_eq!(server.connections(), 1);
}

async fn an_abort_while_waiting_for_the_head_rejects_with_the_reason(over: Over) {
    let (server, _) = server(over).await;
    let client = server.client();
    // The connection first, so that the abort falls while the head is awaited.
    get_text(over, &client, &server.url("/echo")).await;
    let controller = AbortController::new();
    let reason = whatwg_fetch::Error::custom("stop", Arc::new("why"));
    let started = Instant::now();
    let request = client
        .get(server.url("/slow-head"))
        .signal(controller.signal())
        .send();
    let abort = async {
        tokio::time::sleep(Duration::from_millis(50)).await;
        controller.abort(Some(reason.clone()));
    };
    let (result, ()) = tokio::join!(request, abort);
    let error = result.expect_err("aborted");
    assert!(error.same(&reason), "rejects with the reason: {error:?}");
    assert!(started.elapsed() < Duration::from_secs(2));
    let text = get_text(over, &client, &server.url("/echo")).await;
    assert!(text.starts_with("GET /echo\n"), "{text}");
    assert_eq!(server.connections(), 1);
}

async fn a_stalled_body_fails_at_the_read_timeout(over: Over) {
    let (server, _) = server(over).await;
    let client = server
        .client_builder()
        .read_timeout(Duration::from_millis(300))
        .build()
        .expect("a client");
    // A head that does not come.
    let started = Instant::now();
    let error = client
        .get(server.url("/slow-head"))
        .send()
        .await
        .expect_err("the read timeout");
    assert!(
        matches!(
            error.network_error(),
            Some(NetworkError::Timeout {
                kind: TimeoutKind::Idle,
                ..
            })
        ),
        "{error:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    // A body that stops coming.
    let mut response = get_over(over, &client, &server.url("/stall")).await;
    assert_eq!(
        response.chunk().await.expect("a chunk").as_deref(),
        Some(&b"first"[..])
    );
    let started = Instant::now();
    let error = response.chunk().await.expect_err("the read timeout");
    assert!(
        matches!(
            error.network_error(),
            Some(NetworkError::Timeout {
                kind: TimeoutKind::Idle,
                ..
            })
        ),
        "{error:?}"
    );
    assert!(error.is_timeout());
    let waited = started.elapsed();
    assert!(
        waited >= Duration::from_millis(250) && waited < Duration::from_secs(3),
        "{waited:?}"
    );
    drop(response);
    let text = get_text(over, &client, &server.url("/echo")).await;
    assert!(text.starts_with("GET /echo\n"), "{text}");
}

async fn a_total_timeout_covers_the_head_and_the_body(over: Over) {
    let (server, _) = server(over).await;
    let client = server.client();
    let is_total = |error: &whatwg_fetch::Error| {
        matches!(
            error.network_error(),
            Some(NetworkError::Timeout {
                kind: TimeoutKind::Total,
                ..
            })
        )
    };
    let error = client
        .get(server.url("/slow-head"))
        .timeout(Duration::from_millis(300))
        .send()
        .await
        .expect_err("the total timeout");
    assert!(is_total(&error), "{error:?}");
    let mut response = send_over(
        over,
        client
            .get(server.url("/stall"))
            .timeout(Duration::from_millis(300)),
    )
    .await;
    let error = response.text().await.expect_err("the total timeout");
    assert!(is_total(&error), "{error:?}");
    let text = get_text(over, &client, &server.url("/echo")).await;
    assert!(text.starts_with("GET /echo\n"), "{text}");
}

/// Trailers are not part of a `Response`'s body (the Fetch Standard has none), so they
/// are read where they cross the network layer: a `Transport`'s response body.
async fn trailers_arrive_after_the_data(over: Over) {
    use whatwg_fetch::net::{SendOptions, Transport};
    let (server, _) = server(over).await;
    let transport = server.transport();
    let request = http::Request::get(server.url("/trailers"))
        .body(whatwg_fetch::net::RequestBody::empty())
        .expect("a request");
    let response = transport
        .send(request, SendOptions::new())
        .await
        .expect("a response");
    assert_eq!(response.version(), over.version());
    let mut body = response.into_body();
    let info = body.connection_info().expect("the connection's info");
    assert_eq!(info.alpn_negotiated_protocol, over.alpn());
    let collected = body.collect().await.expect("the body");
    let trailers = collected.trailers().cloned().expect("trailers");
    assert_eq!(trailers["grpc-status"], "0");
    assert_eq!(trailers["x-checksum"], "abc");
    assert_eq!(collected.to_bytes(), "data");
}

async fn error_for_status_fails_on_4xx_and_5xx(over: Over) {
    let (server, _) = server(over).await;
    let client = server.client();
    for status in [404, 418, 500, 503] {
        let response = get_over(over, &client, &server.url(&format!("/status/{status}"))).await;
        assert!(!response.ok());
        assert!(response.error_for_status_ref().is_err());
        let error = response.error_for_status().expect_err("a status error");
        assert!(error.is_status(), "{error:?}");
        assert_eq!(error.status().map(|status| status.as_u16()), Some(status));
    }
    let response = get_over(over, &client, &server.url("/status/200")).await;
    let text = response
        .error_for_status()
        .expect("200 is no error")
        .text()
        .await
        .expect("the body");
    assert_eq!(text, "status 200");
}

async fn many_requests_in_parallel_share_one_connection(over: Over) {
    const REQUESTS: usize = 48;
    let (server, _) = server(over).await;
    let client = server.client();
    // The connection first, its protocol known.
    get_text(over, &client, &server.url("/echo")).await;
    let requests = (0..REQUESTS).map(|i| {
        let client = client.clone();
        let url = match i % 3 {
            0 => server.url(&format!("/echo?{i}")),
            1 => server.url(&format!("/bytes/{}", 1000 + i * 997)),
            _ => server.url("/digest"),
        };
        tokio::spawn(async move {
            let mut response = match i % 3 {
                2 => client.post(url).body(pattern(i * 1009)).send().await,
                _ => client.get(url).send().await,
            }
            .expect("a response");
            let protocol = response
                .timing()
                .expect("timing")
                .next_hop_protocol
                .to_string();
            (protocol, response.bytes().await.expect("the body"))
        })
    });
    let answers = futures_util::future::join_all(requests).await;
    for (i, answer) in answers.into_iter().enumerate() {
        let (protocol, body) = answer.expect("the request's task");
        assert_eq!(protocol, over.alpn(), "request {i}");
        match i % 3 {
            0 => assert!(
                body.starts_with(format!("GET /echo?{i}\n").as_bytes()),
                "request {i}"
            ),
            1 => assert_eq!(body, pattern(1000 + i * 997), "request {i}"),
            _ => {
                let data = pattern(i * 1009);
                assert_eq!(
                    body,
                    format!("{} {:x}", data.len(), fnv(&data)),
                    "request {i}"
                );
            }
        }
    }
    assert_eq!(server.requests(), REQUESTS + 1);
    assert_eq!(server.connections(), 1);
}

/// The pattern and the digest tell two 64 KiB chunks swapped, so that a case comparing
/// bodies by them cannot pass on a body put together out of order.
#[test]
fn the_pattern_and_the_digest_show_a_chunk_moved() {
    let data = pattern(2 * 64 * 1024);
    let mut moved = data[64 * 1024..].to_vec();
    moved.extend_from_slice(&data[..64 * 1024]);
    assert_ne!(&moved[..], &data[..]);
    assert_ne!(fnv(&moved), fnv(&data));
}
