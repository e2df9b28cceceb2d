//! One rule for what an error says: each error of a chain says its own part and leaves its
//! cause to `source()`, so a report that prints the chain (`anyhow`'s `{:#}` and `{:?}`,
//! `eyre`, a loop over `source()`) says nothing twice, and `{:#}` of the crate's `Error`
//! says the whole chain on one line.
//!
//! Every kind of failure a fetch, a body read or a builder can end in is made here against
//! servers on 127.0.0.1 and its chain checked.

mod net_support;

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use net_support::*;
use tokio::io::AsyncWriteExt;
use whatwg_fetch::net::{Resolve, ResolveFuture};
use whatwg_fetch::{AbortController, AbortSignal, Client, Error, Proxy, RequestInit, header};

/// The messages of `error` and of each of its causes, as a chain-printing report sees them.
fn chain(error: &Error) -> Vec<String> {
    let mut messages = vec![error.to_string()];
    let mut cause = std::error::Error::source(error);
    while let Some(error) = cause {
        messages.push(error.to_string());
        cause = error.source();
    }
    messages
}

/// Checks the rule on `error`, made by `case`: no part of its chain says another part
/// again, `{:#}` ends with what the last cause says, and `{:#}` says no part twice.
fn check(case: &str, error: &Error) {
    let parts = chain(error);
    let alternate = format!("{error:#}");
    eprintln!("{case}:\n  chain: {parts:?}\n  {{:#}}: {alternate}");
    for (i, part) in parts.iter().enumerate() {
        assert!(!part.is_empty(), "{case}: an empty part in {parts:?}");
        for (j, other) in parts.iter().enumerate() {
            assert!(
                i == j || !other.contains(part.as_str()),
                "{case}: part {i} {part:?} is said again by part {j} {other:?}"
            );
        }
    }
    let last = parts.last().unwrap();
    assert!(
        alternate.ends_with(last.as_str()),
        "{case}: {{:#}} {alternate:?} does not end with the last cause {last:?}"
    );
    if parts.len() > 1 {
        assert_eq!(
            alternate.matches(last.as_str()).count(),
            1,
            "{case}: {alternate:?}"
        );
    }
    // What anyhow's `{:#}` prints: the parts joined by ": ".
    let anyhow_alternate = parts.join(": ");
    for part in &parts {
        assert_eq!(
            anyhow_alternate.matches(part.as_str()).count(),
            1,
            "{case}: {part:?} twice in {anyhow_alternate:?}"
        );
    }
}

async fn fetch_error(client: &Client, url: &str) -> Error {
    tokio::time::timeout(
        Duration::from_secs(20),
        client.fetch(url, RequestInit::default()),
    )
    .await
    .expect("the fetch ends")
    .expect_err("the fetch fails")
}

async fn body_error(client: &Client, url: &str) -> Error {
    let mut response = client.fetch(url, RequestInit::default()).await.unwrap();
    tokio::time::timeout(Duration::from_secs(20), response.text())
        .await
        .expect("the read ends")
        .expect_err("the read fails")
}

/// An address on 127.0.0.1 that refuses connections: one a listener had and let go.
async fn refused_address() -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    listener.local_addr().unwrap()
}

fn client() -> Client {
    Client::builder().build().unwrap()
}

/// A server answering every request with `response`, as bytes, then closing.
async fn answering(response: &'static [u8]) -> Server {
    raw_server(move |mut stream| async move {
        let _ = read_head(&mut stream).await;
        let _ = stream.write_all(response).await;
    })
    .await
}

/// A resolver failing every name, or never answering.
struct Failing {
    hang: bool,
}

impl Resolve for Failing {
    fn resolve(&self, _name: &str) -> ResolveFuture {
        let hang = self.hang;
        Box::pin(async move {
            if hang {
                std::future::pending::<()>().await;
            }
            Err("no such host".into())
        })
    }
}

#[tokio::test]
async fn connection_failures_say_each_part_once() {
    let dead = refused_address().await;
    check(
        "refused connect",
        &fetch_error(&client(), &format!("http://{dead}/")).await,
    );

    let other = refused_address().await;
    let two = Client::builder()
        .resolve_with(move |_| Some(vec![dead, other]))
        .build()
        .unwrap();
    check(
        "two refused addresses",
        &fetch_error(&two, "http://two.test/").await,
    );

    let dns = Client::builder()
        .resolver(Arc::new(Failing { hang: false }))
        .build()
        .unwrap();
    check(
        "DNS failure",
        &fetch_error(&dns, "http://nowhere.test/").await,
    );

    let slow_dns = Client::builder()
        .resolver(Arc::new(Failing { hang: true }))
        .connect_timeout(Duration::from_millis(50))
        .build()
        .unwrap();
    let error = fetch_error(&slow_dns, "http://nowhere.test/").await;
    assert!(error.is_timeout() && error.is_connect(), "{error:#}");
    check("connect timeout", &error);

    let pki = TestPki::new(&["localhost"]);
    let tls = tls_server(pki.acceptor(&[b"http/1.1"]), |_request| async {
        http::Response::new(full("never"))
    })
    .await;
    let error = fetch_error(&client(), &tls.url("/").replace("http:", "https:")).await;
    assert!(error.is_connect(), "{error:#}");
    check("untrusted certificate", &error);
}

#[tokio::test]
async fn protocol_and_body_failures_say_each_part_once() {
    let garbage = answering(b"HTTP/1.1 2OO OK\r\n\r\n").await;
    check(
        "invalid head",
        &fetch_error(&client(), &garbage.url("/")).await,
    );

    let short = answering(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc").await;
    let error = body_error(&client(), &short.url("/")).await;
    assert!(error.is_body(), "{error:#}");
    check("body shorter than Content-Length", &error);

    let bad_gzip =
        answering(b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: 4\r\n\r\nnope")
            .await;
    let error = body_error(&client(), &bad_gzip.url("/")).await;
    assert!(error.is_decode(), "{error:#}");
    check("corrupt gzip", &error);

    let big = answering(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\n").await;
    let capped = Client::builder()
        .max_response_body_size(Some(10))
        .build()
        .unwrap();
    check("body too large", &body_error(&capped, &big.url("/")).await);

    let stalled = raw_server(|mut stream| async move {
        let _ = read_head(&mut stream).await;
        let _ = stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nab")
            .await;
        tokio::time::sleep(Duration::from_secs(30)).await;
    })
    .await;
    let idle = Client::builder()
        .read_timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let error = body_error(&idle, &stalled.url("/")).await;
    assert!(error.is_timeout(), "{error:#}");
    check("read timeout", &error);

    let total = Client::builder()
        .timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let error = body_error(&total, &stalled.url("/")).await;
    assert!(error.is_timeout(), "{error:#}");
    check("total timeout", &error);
}

#[tokio::test]
async fn redirect_json_status_and_abort_errors_say_each_part_once() {
    let looping = hyper_server(|_request| async {
        http::Response::builder()
            .status(302)
            .header("location", "/again")
            .body(full(""))
            .unwrap()
    })
    .await;
    let error = fetch_error(&client(), &looping.url("/")).await;
    assert!(error.is_redirect(), "{error:#}");
    check("too many redirects", &error);

    let json = hyper_server(|request| async move {
        if request.uri().path() == "/slow" {
            tokio::time::sleep(Duration::from_secs(10)).await;
        }
        let body = match request.uri().path() {
            "/syntax" => "{\"a\": 1,",
            _ => "{\"a\": \"one\"}",
        };
        http::Response::builder()
            .status(if request.uri().path() == "/missing" {
                404
            } else {
                200
            })
            .body(full(body))
            .unwrap()
    })
    .await;
    #[derive(Debug, serde::Deserialize)]
    #[allow(dead_code)]
    struct Shape {
        a: u32,
    }
    let url = json.url("/syntax");
    let mut response = client().get(url.as_str()).send().await.unwrap();
    let error = response.json::<Shape>().await.unwrap_err();
    assert!(error.is_decode(), "{error:#}");
    let message = error.to_string();
    // Which URL, and serde's reason: what was expected, where.
    assert!(message.contains(&url), "{message}");
    assert!(message.contains("line 1 column 8"), "{message}");
    check("invalid JSON", &error);

    let mut response = client().get(json.url("/shape")).send().await.unwrap();
    let error = response.json::<Shape>().await.unwrap_err();
    let message = error.to_string();
    assert!(message.contains("expected u32"), "{message}");
    check("JSON of another shape", &error);

    let error = client()
        .get(json.url("/missing"))
        .send()
        .await
        .unwrap()
        .error_for_status()
        .unwrap_err();
    assert!(error.is_status(), "{error:#}");
    check("404 as an error", &error);

    let controller = AbortController::new();
    controller.abort(None);
    let error = client()
        .get(json.url("/shape"))
        .signal(controller.signal())
        .send()
        .await
        .unwrap_err();
    check("aborted", &error);

    let error = client()
        .get(json.url("/slow"))
        .signal(AbortSignal::timeout(Duration::from_millis(10)))
        .send()
        .await
        .unwrap_err();
    assert!(error.is_timeout(), "{error:#}");
    check("AbortSignal::timeout", &error);
}

#[tokio::test]
async fn proxy_builder_and_cors_errors_say_each_part_once() {
    let proxy =
        answering(b"HTTP/1.1 407 Proxy Authentication Required\r\ncontent-length: 0\r\n\r\n").await;
    let through = Client::builder()
        .proxy(Proxy::all(&proxy.url("/")).unwrap())
        .build()
        .unwrap();
    check(
        "proxy refuses CONNECT",
        &fetch_error(&through, "https://example.test/").await,
    );

    let dead = refused_address().await;
    let unreachable = Client::builder()
        .proxy(Proxy::all(&format!("http://{dead}")).unwrap())
        .build()
        .unwrap();
    check(
        "proxy unreachable",
        &fetch_error(&unreachable, "https://example.test/").await,
    );

    let error = client()
        .get("http://127.0.0.1/")
        .header("bad name", "x")
        .build()
        .unwrap_err();
    check("invalid header name", &error);
    let error = client()
        .get("http://127.0.0.1/")
        .header(header::ACCEPT, "x\ny")
        .build()
        .unwrap_err();
    check("invalid header value", &error);
    check(
        "relative URL",
        &client().get("/relative").build().unwrap_err(),
    );

    // A file of a form that is gone when the body is sent.
    // (The server reads the whole body before it answers.)
    let upload = hyper_server(|request| async move {
        use http_body_util::BodyExt;
        let _ = request.into_body().collect().await;
        http::Response::new(full(""))
    })
    .await;
    let path = std::env::temp_dir().join(format!("error-chain-{}.bin", std::process::id()));
    std::fs::write(&path, b"data").unwrap();
    let mut form = whatwg_fetch::FormData::new();
    form.append_file("file", &path).await.unwrap();
    std::fs::remove_file(&path).unwrap();
    let error = client()
        .post(upload.url("/"))
        .multipart(form)
        .send()
        .await
        .unwrap_err();
    check("file gone before it was sent", &error);

    let api = hyper_server(|_request| async { http::Response::new(full("{}")) }).await;
    let page = Client::builder()
        .origin("http://app.test/".parse().unwrap())
        .build()
        .unwrap();
    check("CORS", &fetch_error(&page, &api.url("/")).await);
}
