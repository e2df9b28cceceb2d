//! Record and replay (the `record` feature): exchanges recorded against servers on
//! 127.0.0.1, saved, and replayed with the servers gone.
#![cfg(feature = "record")]

mod net_support;

use std::path::PathBuf;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use bytes::Bytes;
use hyper::Response;
use net_support::*;
use tokio::io::AsyncWriteExt;
use whatwg_fetch::net::{HyperTransport, RequestBody, SendOptions, Transport};
use whatwg_fetch::record::{
    Match, RecordingFileError, RecordingTransport, ReplayNotMatched, ReplayTransport,
};
use whatwg_fetch::{Client, NetworkError};

const TEXT: &str = "The quick brown fox jumps over the lazy dog, again and again and again.";
const BINARY: &[u8] = &[0x00, 0x01, 0xff, 0xfe, 0x80, b'x', 0xc3];

/// A file in the temporary folder, removed when dropped.
struct TempFile(PathBuf);

impl TempFile {
    fn new(name: &str) -> TempFile {
        TempFile(std::env::temp_dir().join(format!(
            "whatwg-fetch-record-{}-{name}.json",
            std::process::id()
        )))
    }

    fn text(&self) -> String {
        std::fs::read_to_string(&self.0).unwrap()
    }
}

impl Drop for TempFile {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.0);
    }
}

async fn gzip(data: &[u8]) -> Vec<u8> {
    let mut encoder = async_compression::tokio::write::GzipEncoder::new(Vec::new());
    encoder.write_all(data).await.unwrap();
    encoder.shutdown().await.unwrap();
    encoder.into_inner()
}

/// A server of a few routes: `/text`, `/binary`, `/gzip`, `/counter` (`call 1`, `call
/// 2`, …) and `/echo` (the request body back, after `got: `).
async fn server() -> Server {
    let counter = Arc::new(AtomicUsize::new(0));
    let gzipped = Bytes::from(gzip(TEXT.as_bytes()).await);
    hyper_server(move |request| {
        let counter = counter.clone();
        let gzipped = gzipped.clone();
        async move {
            let path = request.uri().path().to_owned();
            let builder = Response::builder();
            match path.as_str() {
                "/text" => builder
                    .header("content-type", "text/plain; charset=utf-8")
                    .header("x-order", "first")
                    .header("set-cookie", "session=server-secret")
                    .header("x-order", "second")
                    .body(full("hello, world"))
                    .unwrap(),
                "/binary" => builder
                    .header("content-type", "application/octet-stream")
                    .body(full(BINARY))
                    .unwrap(),
                "/gzip" => builder
                    .header("content-type", "text/plain")
                    .header("content-encoding", "gzip")
                    .body(full(gzipped))
                    .unwrap(),
                "/counter" => {
                    let n = counter.fetch_add(1, Ordering::SeqCst) + 1;
                    builder.body(full(format!("call {n}"))).unwrap()
                }
                "/echo" => {
                    use http_body_util::BodyExt;
                    let body = request.into_body().collect().await.unwrap().to_bytes();
                    let mut answer = b"got: ".to_vec();
                    answer.extend_from_slice(&body);
                    builder.status(201).body(full(answer)).unwrap()
                }
                _ => builder.status(404).body(full("not found")).unwrap(),
            }
        }
    })
    .await
}

fn recording() -> RecordingTransport {
    RecordingTransport::new(Arc::new(HyperTransport::new().unwrap()))
}

fn client(transport: impl Transport) -> Client {
    Client::builder()
        .transport(Arc::new(transport))
        .build()
        .unwrap()
}

/// A response's status, headers and body, as the transport gives them.
type Seen = (http::StatusCode, http::HeaderMap, Bytes);

async fn send(transport: &impl Transport, request: http::Request<RequestBody>) -> Seen {
    let response = transport.send(request, SendOptions::new()).await.unwrap();
    let (parts, body) = response.into_parts();
    (parts.status, parts.headers, read_all(body).await.unwrap())
}

/// The body of the response to `request`, as text.
async fn text_of(request: whatwg_fetch::RequestBuilder) -> String {
    request.send().await.unwrap().text().await.unwrap()
}

fn not_matched(error: &NetworkError) -> &ReplayNotMatched {
    let NetworkError::Connect(source) = error else {
        panic!("not a connect error: {error:?}");
    };
    source.downcast_ref::<ReplayNotMatched>().unwrap()
}

#[test]
fn recorded_exchanges_replay_byte_for_byte_with_the_server_gone() {
    let file = TempFile::new("byte-for-byte");
    let (addr, live) = {
        // The server lives as long as this runtime.
        let runtime = tokio::runtime::Runtime::new().unwrap();
        runtime.block_on(async {
            let server = server().await;
            let recorder = recording();
            let mut live = Vec::new();
            for path in ["/text", "/binary", "/gzip"] {
                live.push(send(&recorder, get(&server.url(path))).await);
            }
            recorder.save(&file.0).unwrap();
            (server.addr, live)
        })
    };
    let runtime = tokio::runtime::Runtime::new().unwrap();
    runtime.block_on(async {
        assert!(
            tokio::net::TcpStream::connect(addr).await.is_err(),
            "the server is gone"
        );
        let replay = ReplayTransport::open(&file.0).unwrap();
        let url = |path: &str| format!("http://{addr}{path}");
        for (path, live) in ["/text", "/binary", "/gzip"].into_iter().zip(&live) {
            let replayed = send(&replay, get(&url(path))).await;
            assert_eq!(replayed.0, live.0, "{path}");
            // Headers in their order, values byte for byte (the secret is redacted in the
            // file only, so it is set apart).
            let order = |headers: &http::HeaderMap| -> Vec<(String, Vec<u8>)> {
                headers
                    .iter()
                    .map(|(name, value)| (name.to_string(), value.as_bytes().to_vec()))
                    .filter(|(name, _)| name != "set-cookie")
                    .collect()
            };
            assert_eq!(order(&replayed.1), order(&live.1), "{path}");
            assert_eq!(replayed.2, live.2, "{path}");
        }
        assert_eq!(live[1].2, BINARY);
        assert_eq!(live[0].1.get_all("x-order").iter().count(), 2);
        replay.assert_all_used();
    });
    let text = file.text();
    assert!(text.contains("\"version\": 1"), "{text}");
    assert!(text.contains("\"body\": \"hello, world\""), "{text}");
    assert!(text.contains("\"body_base64\": \"AAH//oB4ww==\""), "{text}");
    assert!(text.contains("\"content-encoding: gzip\""), "{text}");
}

#[tokio::test]
async fn a_gzip_body_is_recorded_as_sent_and_decoded_on_replay_as_live() {
    let server = server().await;
    let url = server.url("/gzip");
    let recorder = recording();
    let live = text_of(client(recorder.clone()).get(&url)).await;
    assert_eq!(live, TEXT);
    let exchange = &recorder.exchanges()[0];
    assert_eq!(
        exchange.response_body().as_ref(),
        gzip(TEXT.as_bytes()).await
    );

    let replay = ReplayTransport::from_json(&recorder.to_json()).unwrap();
    let replayed = text_of(client(replay.clone()).get(&url)).await;
    assert_eq!(replayed, live);

    // Asked for the body as sent, the transport gives the gzip bytes, as the network does.
    let replay = ReplayTransport::from_json(&recorder.to_json()).unwrap();
    let (_, headers, body) = send(&replay, get(&url)).await;
    assert_eq!(headers["content-encoding"], "gzip");
    assert_eq!(body.as_ref(), gzip(TEXT.as_bytes()).await);
}

#[tokio::test]
async fn an_unmatched_request_fails_naming_it_and_never_connects() {
    let server = server().await;
    let recorder = recording();
    let client_live = client(recorder.clone());
    text_of(client_live.get(server.url("/text"))).await;
    let accepts = server.counts.accepts();

    let replay = ReplayTransport::from_json(&recorder.to_json()).unwrap();
    let missing = server.url("/missing");
    let error = client(replay.clone())
        .get(&missing)
        .send()
        .await
        .unwrap_err();
    let message = format!("{error:#}");
    assert!(
        message.contains(&format!(
            "no recorded exchange matched GET {missing}; recorded for GET: {}",
            server.url("/text")
        )),
        "{message}"
    );
    let network = error.network_error().expect("a network error");
    assert_eq!(not_matched(network).url(), missing);

    // Another method: what was recorded, with its method.
    let error = replay
        .send(
            http::Request::delete(&missing)
                .body(RequestBody::empty())
                .unwrap(),
            SendOptions::new(),
        )
        .await
        .unwrap_err();
    assert_eq!(
        not_matched(&error).to_string(),
        format!(
            "no recorded exchange matched DELETE {missing}; nothing was recorded for DELETE; \
             recorded: GET {}",
            server.url("/text")
        )
    );
    assert_eq!(
        server.counts.accepts(),
        accepts,
        "no connection was attempted"
    );
}

#[tokio::test]
async fn secrets_are_redacted_in_the_file_unless_kept() {
    let server = server().await;
    let request = |url: &str| {
        http::Request::get(url)
            .header("authorization", "Bearer top-s3cret-token")
            .header("cookie", "id=cookie-s3cret")
            .header("x-api-key", "key-s3cret")
            .header("accept", "text/plain")
            .body(RequestBody::empty())
            .unwrap()
    };
    let file = TempFile::new("redacted");
    let recorder = recording();
    recorder.redact("X-Api-Key");
    send(&recorder, request(&server.url("/text"))).await;
    recorder.save(&file.0).unwrap();
    let text = file.text();
    for secret in [
        "top-s3cret-token",
        "cookie-s3cret",
        "key-s3cret",
        "server-secret",
    ] {
        assert!(!text.contains(secret), "{secret} in {text}");
    }
    for redacted in [
        "\"authorization: [redacted]\"",
        "\"cookie: [redacted]\"",
        "\"x-api-key: [redacted]\"",
        "\"set-cookie: [redacted]\"",
        "\"accept: text/plain\"",
    ] {
        assert!(text.contains(redacted), "{redacted} not in {text}");
    }

    let file = TempFile::new("kept");
    let keeper = recording();
    keeper.keep_secrets();
    send(&keeper, request(&server.url("/text"))).await;
    keeper.save(&file.0).unwrap();
    let text = file.text();
    for secret in [
        "\"authorization: Bearer top-s3cret-token\"",
        "\"cookie: id=cookie-s3cret\"",
        "\"set-cookie: session=server-secret\"",
    ] {
        assert!(text.contains(secret), "{secret} not in {text}");
    }
    assert!(!text.contains("[redacted]"), "{text}");
}

#[tokio::test]
async fn matching_on_the_body_tells_two_posts_to_one_url_apart() {
    let server = server().await;
    let url = server.url("/echo");
    let recorder = recording();
    let live = client(recorder.clone());
    for body in ["one", "two"] {
        let text = text_of(live.post(&url).body(body)).await;
        assert_eq!(text, format!("got: {body}"));
    }

    let replay = ReplayTransport::from_json(&recorder.to_json()).unwrap();
    replay.match_on(Match::new().body());
    let offline = client(replay.clone());
    for body in ["two", "one"] {
        let mut response = offline.post(&url).body(body).send().await.unwrap();
        assert_eq!(response.status(), 201);
        assert_eq!(response.text().await.unwrap(), format!("got: {body}"));
    }
    let error = offline.post(&url).body("three").send().await.unwrap_err();
    let message = format!("{error:#}");
    assert!(
        message.contains(&format!(
            "no recorded exchange matched POST {url}; recorded for POST: {url} (body differs)"
        )),
        "{message}"
    );
    replay.assert_all_used();

    // On method and URL alone, the first POST gets the first answer, whatever its body.
    let replay = ReplayTransport::from_json(&recorder.to_json()).unwrap();
    let text = text_of(client(replay).post(&url).body("two")).await;
    assert_eq!(text, "got: one");
}

#[tokio::test]
async fn matching_on_a_header() {
    let server = server().await;
    let url = server.url("/counter");
    let recorder = recording();
    for language in ["en", "fr"] {
        let request = http::Request::get(&url)
            .header("accept-language", language)
            .body(RequestBody::empty())
            .unwrap();
        send(&recorder, request).await;
    }
    let replay = ReplayTransport::from_json(&recorder.to_json()).unwrap();
    replay.match_on(Match::new().header("Accept-Language"));
    let request = http::Request::get(&url)
        .header("accept-language", "fr")
        .body(RequestBody::empty())
        .unwrap();
    assert_eq!(send(&replay, request).await.2, "call 2");
}

#[tokio::test]
async fn each_exchange_answers_once_in_order_unless_reuse_is_allowed() {
    let server = server().await;
    let url = server.url("/counter");
    let recorder = recording();
    for expected in ["call 1", "call 2"] {
        assert_eq!(send(&recorder, get(&url)).await.2, expected);
    }

    let replay = ReplayTransport::from_json(&recorder.to_json()).unwrap();
    assert_eq!(send(&replay, get(&url)).await.2, "call 1");
    assert_eq!(send(&replay, get(&url)).await.2, "call 2");
    let error = replay
        .send(get(&url), SendOptions::new())
        .await
        .unwrap_err();
    assert_eq!(
        not_matched(&error).nearest(),
        [format!("{url} (used)")],
        "{error}"
    );

    let replay = ReplayTransport::from_json(&recorder.to_json()).unwrap();
    replay.allow_reuse();
    for expected in ["call 1", "call 2", "call 2", "call 2"] {
        assert_eq!(send(&replay, get(&url)).await.2, expected);
    }
}

#[tokio::test]
async fn assert_all_used_lists_the_unused_exchanges() {
    let server = server().await;
    let recorder = recording();
    send(&recorder, get(&server.url("/text"))).await;
    send(&recorder, get(&server.url("/binary"))).await;

    let replay = ReplayTransport::from_json(&recorder.to_json()).unwrap();
    send(&replay, get(&server.url("/text"))).await;
    let unused = replay.unused();
    assert_eq!(unused.len(), 1);
    assert_eq!(unused[0].index(), 1);
    let panic = std::panic::catch_unwind(|| replay.assert_all_used()).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert_eq!(
        *message,
        format!(
            "1 recorded exchange is unused:\n  #1 GET {} → 200",
            server.url("/binary")
        )
    );
}

#[test]
fn a_malformed_file_says_what_and_where() {
    let file = TempFile::new("malformed");
    std::fs::write(
        &file.0,
        "{\n  \"version\": 1,\n  \"exchanges\": [\n    { \"request\": } \n  ]\n}\n",
    )
    .unwrap();
    let error = ReplayTransport::open(&file.0).unwrap_err();
    assert!(
        matches!(error, RecordingFileError::Json { line: 4, .. }),
        "{error:?}"
    );
    let message = error.to_string();
    assert!(
        message.starts_with(&format!(
            "invalid recording {}: not JSON at line 4, column",
            file.0.display()
        )),
        "{message}"
    );

    std::fs::write(
        &file.0,
        r#"{
  "version": 1,
  "exchanges": [
    {
      "request": { "method": "GET", "url": "http://a.test/" },
      "response": { "status": 200 }
    },
    {
      "request": { "method": "GET", "url": "http://a.test/" },
      "response": { "status": "200" }
    }
  ]
}"#,
    )
    .unwrap();
    let error = ReplayTransport::open(&file.0).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "invalid recording {}: exchanges[1].response.status: \"200\" is not an HTTP status \
             (100–999)",
            file.0.display()
        )
    );

    let error = ReplayTransport::from_json(r#"{"version": 7, "exchanges": []}"#).unwrap_err();
    assert_eq!(
        error.to_string(),
        "invalid recording: version: version 7 is not supported: this build reads version 1"
    );

    let missing = std::env::temp_dir().join("whatwg-fetch-record-no-such-file.json");
    let error = ReplayTransport::open(&missing).unwrap_err();
    assert!(matches!(error, RecordingFileError::Io { .. }), "{error:?}");
    assert!(
        error
            .to_string()
            .starts_with(&format!("recording {}: ", missing.display())),
        "{error}"
    );
}

#[tokio::test]
async fn a_request_body_past_the_limit_fails_loudly() {
    let server = server().await;
    let recorder = recording();
    recorder.max_body_size(4);
    let request = http::Request::post(server.url("/echo"))
        .body(RequestBody::from("too long"))
        .unwrap();
    let error = recorder
        .send(request, SendOptions::new())
        .await
        .unwrap_err();
    assert!(error.to_string().contains("limit of 4 bytes"), "{error}");
    let error = recorder
        .send(get(&server.url("/text")), SendOptions::new())
        .await
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("response body larger than the RecordingTransport's limit of 4 bytes"),
        "{error}"
    );
    assert!(recorder.exchanges().is_empty());
}

#[tokio::test]
async fn a_request_not_matched_names_at_most_five_recorded_and_counts_the_rest() {
    let exchanges: Vec<String> = (0..7)
        .map(|n| {
            format!(
                r#"{{ "request": {{ "method": "GET", "url": "https://api.example/{n}" }},
                      "response": {{ "status": 200 }} }}"#
            )
        })
        .collect();
    let json = format!(
        r#"{{ "version": 1, "exchanges": [{}] }}"#,
        exchanges.join(",")
    );
    let replay = ReplayTransport::from_json(&json).unwrap();
    let error = replay
        .send(get("https://api.example/other"), SendOptions::new())
        .await
        .unwrap_err();
    let not_matched = not_matched(&error);
    // URLs only, as documented: the two past the five are counted in the message.
    assert_eq!(not_matched.nearest().len(), 5);
    assert!(
        not_matched
            .nearest()
            .iter()
            .all(|url| url.starts_with("https://api.example/"))
    );
    assert!(
        not_matched.to_string().ends_with(", and 2 more"),
        "{not_matched}"
    );
}

/// A URL written without a path (`http://api.test?q=1`, as by hand) is read as the URL
/// parser reads it, the `http://api.test/?q=1` a client sends: before, it loaded and was
/// never matched.
#[tokio::test]
async fn a_recorded_url_is_matched_as_the_url_parser_reads_it() {
    let replay = ReplayTransport::from_json(
        r#"{"version": 1, "exchanges": [
            {"request": {"method": "GET", "url": "http://API.test?q=1#top"},
             "response": {"status": 200, "body": "matched"}}]}"#,
    )
    .unwrap();
    let text = text_of(client(replay).get("http://api.test/?q=1")).await;
    assert_eq!(text, "matched");
}
