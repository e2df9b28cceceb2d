//! The mock transport (`whatwg_fetch::mock`, the `mock` feature, which the crate's own
//! dev-dependency on itself turns on for its tests): interceptors, recorded calls, unmatched
//! requests, and the whole fetch algorithm (redirects, cookies, CORS, the HTTP cache,
//! abort and timeouts) running above it.

#[path = "../../tests/net_support/mod.rs"]
mod net_support;

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use whatwg_fetch::mock::{
    CallOutcome, MockNotMatched, MockResponse, MockTransport, connection_refused,
};
use whatwg_fetch::net::HyperTransport;
use whatwg_fetch::{
    AbortController, BodyInit, Client, Error, ErrorKind, NetworkError, RequestDuplex, RequestInit,
    ResponseType, TimeoutKind,
};

/// Runs `test` for at most ten seconds.
async fn bounded<T>(test: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .expect("the test took more than ten seconds")
}

fn server_client(mock: &MockTransport) -> Client {
    Client::builder()
        .transport(Arc::new(mock.clone()))
        .build()
        .unwrap()
}

/// A client for a page at `https://app.example/`: CORS, cookies and the HTTP cache on.
fn browser_client(mock: &MockTransport) -> Client {
    Client::builder()
        .origin("https://app.example/index.html".parse().unwrap())
        .transport(Arc::new(mock.clone()))
        .build()
        .unwrap()
}

fn method(method: &str) -> RequestInit {
    RequestInit {
        method: Some(method.into()),
        ..Default::default()
    }
}

fn not_matched(error: &Error) -> &MockNotMatched {
    let Some(NetworkError::Connect(source)) = error.network_error() else {
        panic!("not a connect error: {error:?}");
    };
    source
        .downcast_ref::<MockNotMatched>()
        .unwrap_or_else(|| panic!("not a MockNotMatched: {error:?}"))
}

#[tokio::test]
async fn an_interceptor_answers_with_its_status_headers_and_body() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("GET", "https://api.example/users/1")
            .unwrap()
            .reply(
                MockResponse::json(200, &serde_json::json!({ "id": 1 }))
                    .header("x-request-id", "abc")
                    .header("set-cookie", "a=1")
                    .header("set-cookie", "b=2"),
            );
        let client = server_client(&mock);
        let mut response = client
            .fetch("https://api.example/users/1", RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.status_text(), "OK");
        let headers = response.headers();
        assert_eq!(
            headers.get("content-type").unwrap().as_deref(),
            Some("application/json")
        );
        assert_eq!(headers.get("x-request-id").unwrap().as_deref(), Some("abc"));
        assert_eq!(headers.get_set_cookie(), vec!["a=1", "b=2"]);
        let body: serde_json::Value = response.json().await.unwrap();
        assert_eq!(body, serde_json::json!({ "id": 1 }));
        mock.assert_all_used();
    })
    .await;
}

#[tokio::test]
async fn every_call_is_recorded_with_its_method_uri_headers_and_body() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("POST", "https://api.example/items?tag=a")
            .unwrap()
            .reply(MockResponse::new(201));
        let client = server_client(&mock);
        client
            .fetch(
                "https://api.example/items?tag=a",
                RequestInit {
                    method: Some("post".into()),
                    headers: Some([("x-trace", "7")].into()),
                    body: Some("hello".into()),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        let _ = client
            .fetch("https://api.example/missing", RequestInit::default())
            .await
            .unwrap_err();
        let calls = mock.calls();
        assert_eq!(calls.len(), 2);
        assert_eq!(calls[0].method(), "POST");
        assert_eq!(calls[0].uri(), "https://api.example/items?tag=a");
        assert_eq!(calls[0].header("x-trace"), Some("7"));
        assert_eq!(
            calls[0].header("content-type"),
            Some("text/plain;charset=UTF-8")
        );
        assert!(calls[0].header("user-agent").is_some());
        assert_eq!(calls[0].body(), &Bytes::from("hello"));
        assert_eq!(calls[0].body_text(), "hello");
        assert_eq!(calls[0].outcome(), CallOutcome::Matched(0));
        assert_eq!(calls[1].method(), "GET");
        assert_eq!(calls[1].body(), &Bytes::new());
        assert_eq!(calls[1].outcome(), CallOutcome::Unmatched);
        mock.clear_calls();
        assert!(mock.calls().is_empty());
    })
    .await;
}

#[tokio::test]
async fn a_redirect_chain_is_followed_through_interceptors() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("GET", "https://a.example/start")
            .unwrap()
            .reply(MockResponse::new(302).header("location", "/next?step=2"));
        mock.intercept("GET", "https://a.example/next?step=2")
            .unwrap()
            .reply(MockResponse::new(301).header("location", "https://b.example/end"));
        mock.intercept("GET", "https://b.example/end")
            .unwrap()
            .reply(MockResponse::new(200).body("arrived"));
        // A POST redirected by a 303 comes back as a GET without its body.
        mock.intercept("POST", "https://a.example/form")
            .unwrap()
            .body("x=1")
            .reply(MockResponse::new(303).header("location", "/done"));
        mock.intercept("GET", "https://a.example/done")
            .unwrap()
            .without_header("content-type")
            .body("")
            .reply(MockResponse::new(200));
        let client = server_client(&mock);

        let mut response = client
            .fetch("https://a.example/start", RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert!(response.redirected());
        assert_eq!(response.url(), "https://b.example/end");
        assert_eq!(response.text().await.unwrap(), "arrived");

        let response = client
            .fetch(
                "https://a.example/form",
                RequestInit {
                    method: Some("POST".into()),
                    body: Some("x=1".into()),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(response.url(), "https://a.example/done");

        let urls: Vec<String> = mock.calls().iter().map(|c| c.uri().to_string()).collect();
        assert_eq!(
            urls,
            [
                "https://a.example/start",
                "https://a.example/next?step=2",
                "https://b.example/end",
                "https://a.example/form",
                "https://a.example/done",
            ]
        );
        mock.assert_all_used();
    })
    .await;
}

#[tokio::test]
async fn a_cookie_set_by_a_mocked_response_is_sent_on_the_next_request() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("POST", "https://app.example/login")
            .unwrap()
            .without_header("cookie")
            .reply(MockResponse::new(204).header("set-cookie", "sid=s3cret; Path=/; Secure"));
        mock.intercept("GET", "https://app.example/me")
            .unwrap()
            .header("cookie", "sid=s3cret")
            .reply(MockResponse::new(200).body("ada"));
        let client = browser_client(&mock);
        let response = client
            .fetch("https://app.example/login", method("POST"))
            .await
            .unwrap();
        // A browser-like client hides Set-Cookie from the page, and keeps the cookie.
        assert!(response.headers().get_set_cookie().is_empty());
        let mut response = client
            .fetch("https://app.example/me", RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.text().await.unwrap(), "ada");
        assert_eq!(mock.calls()[1].header("cookie"), Some("sid=s3cret"));
        mock.assert_all_used();
    })
    .await;
}

#[tokio::test]
async fn a_cors_preflight_is_answered_by_the_mock() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("OPTIONS", "https://api.example/items/1")
            .unwrap()
            .header("origin", "https://app.example")
            .header("access-control-request-method", "PUT")
            .header("access-control-request-headers", "x-token")
            .reply(
                MockResponse::new(204)
                    .header("access-control-allow-origin", "https://app.example")
                    .header("access-control-allow-methods", "PUT")
                    .header("access-control-allow-headers", "x-token")
                    .header("access-control-max-age", "600"),
            );
        mock.intercept("PUT", "https://api.example/items/1")
            .unwrap()
            .header("x-token", "t")
            .body("new")
            .reply(
                MockResponse::new(200)
                    .header("access-control-allow-origin", "https://app.example")
                    .body("saved"),
            )
            .times(2);
        let client = browser_client(&mock);
        let put = || RequestInit {
            method: Some("PUT".into()),
            headers: Some([("x-token", "t")].into()),
            body: Some("new".into()),
            ..Default::default()
        };
        let mut response = client
            .fetch("https://api.example/items/1", put())
            .await
            .unwrap();
        assert_eq!(response.r#type(), ResponseType::Cors);
        assert_eq!(response.text().await.unwrap(), "saved");
        // The preflight is cached: the second PUT goes alone.
        client
            .fetch("https://api.example/items/1", put())
            .await
            .unwrap();
        let methods: Vec<String> = mock
            .calls()
            .iter()
            .map(|c| c.method().to_string())
            .collect();
        assert_eq!(methods, ["OPTIONS", "PUT", "PUT"]);
        mock.assert_all_used();
    })
    .await;
}

#[tokio::test]
async fn a_cors_failure_on_a_mocked_response_is_a_network_error() {
    bounded(async {
        let mock = MockTransport::new();
        // No Access-Control-Allow-Origin.
        mock.intercept("GET", "https://api.example/private")
            .unwrap()
            .reply(MockResponse::new(200).body("secret"));
        let error = browser_client(&mock)
            .fetch("https://api.example/private", RequestInit::default())
            .await
            .unwrap_err();
        assert!(
            matches!(error.network_error(), Some(NetworkError::Cors(_))),
            "{error:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn the_http_cache_serves_a_second_request_without_a_call() {
    bounded(async {
        let mock = MockTransport::new();
        // Answers once: a second request reaching the mock would fail.
        mock.intercept("GET", "https://app.example/data.json")
            .unwrap()
            .reply(
                MockResponse::json(200, &serde_json::json!([1, 2]))
                    .header("cache-control", "max-age=3600"),
            );
        let client = browser_client(&mock);
        for _ in 0..2 {
            let mut response = client
                .fetch("https://app.example/data.json", RequestInit::default())
                .await
                .unwrap();
            assert_eq!(response.text().await.unwrap(), "[1,2]");
        }
        assert_eq!(mock.calls().len(), 1);
    })
    .await;
}

#[tokio::test]
async fn an_unmatched_request_fails_naming_the_nearest_interceptors() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("GET", "https://api.example/users/1")
            .unwrap()
            .reply(MockResponse::new(200));
        mock.intercept("POST", "https://api.example/users/2")
            .unwrap()
            .reply(MockResponse::new(201));
        mock.intercept("GET", "https://other.example/users/2")
            .unwrap()
            .reply(MockResponse::new(200));
        let client = server_client(&mock);
        let error = client
            .fetch("https://api.example/users/2", RequestInit::default())
            .await
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        let unmatched = not_matched(&error);
        assert_eq!(unmatched.method(), "GET");
        assert_eq!(unmatched.url(), "https://api.example/users/2");
        // Those of the same origin first, one difference each, in order of registration.
        assert_eq!(
            unmatched.nearest(),
            [
                "GET https://api.example/users/1 → 200 (path differs)",
                "POST https://api.example/users/2 → 201 (method differs)",
                "GET https://other.example/users/2 → 200 (origin differs)",
            ]
        );
        let message = format!("{error:#}");
        assert!(
            message.contains("no mock interceptor matched GET https://api.example/users/2"),
            "{message}"
        );
        assert!(message.contains("(path differs)"), "{message}");
        // Nothing was used.
        assert_eq!(mock.pending_interceptors().len(), 3);
    })
    .await;
}

#[tokio::test]
async fn a_request_to_a_mock_without_interceptors_says_so() {
    bounded(async {
        let mock = MockTransport::new();
        let error = server_client(&mock)
            .fetch("http://localhost:8080/", RequestInit::default())
            .await
            .unwrap_err();
        assert!(not_matched(&error).nearest().is_empty());
        assert!(
            format!("{error:#}").contains("no interceptors are registered"),
            "{error}"
        );
    })
    .await;
}

#[tokio::test]
async fn an_interceptor_answers_once_unless_told_times_or_persist() {
    bounded(async {
        let mock = MockTransport::new();
        let once = mock
            .intercept("GET", "https://api.example/once")
            .unwrap()
            .reply(MockResponse::new(200));
        mock.intercept("GET", "https://api.example/twice")
            .unwrap()
            .reply(MockResponse::new(200))
            .times(2);
        mock.intercept("GET", "https://api.example/always")
            .unwrap()
            .reply(MockResponse::new(200))
            .persist();
        let client = server_client(&mock);
        let get =
            |path: &str| client.fetch(format!("https://api.example{path}"), RequestInit::default());

        get("/once").await.unwrap();
        let error = get("/once").await.unwrap_err();
        let nearest = not_matched(&error).nearest();
        assert_eq!(
            nearest[0],
            "GET https://api.example/once → 200 (used up after 1 answers)"
        );
        assert_eq!(once.index(), 0);

        get("/twice").await.unwrap();
        get("/twice").await.unwrap();
        assert!(get("/twice").await.is_err());

        for _ in 0..5 {
            get("/always").await.unwrap();
        }
        mock.assert_all_used();
    })
    .await;
}

#[tokio::test]
async fn interceptors_answer_in_order_of_registration() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("GET", "https://api.example/flaky")
            .unwrap()
            .reply(MockResponse::new(503))
            .times(2);
        mock.intercept("GET", "https://api.example/flaky")
            .unwrap()
            .reply(MockResponse::new(200));
        let client = server_client(&mock);
        let mut statuses = Vec::new();
        for _ in 0..3 {
            let response = client
                .fetch("https://api.example/flaky", RequestInit::default())
                .await
                .unwrap();
            statuses.push(response.status());
        }
        assert_eq!(statuses, [503, 503, 200]);
        let outcomes: Vec<CallOutcome> = mock.calls().iter().map(|c| c.outcome()).collect();
        assert_eq!(
            outcomes,
            [
                CallOutcome::Matched(0),
                CallOutcome::Matched(0),
                CallOutcome::Matched(1)
            ]
        );
    })
    .await;
}

#[tokio::test]
async fn path_query_headers_and_body_match_by_value_or_closure() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("GET", "https://api.example/")
            .unwrap()
            .path_prefix("/static/")
            .any_query()
            .reply(MockResponse::new(200).body("static"))
            .persist();
        mock.intercept("GET", "https://api.example/")
            .unwrap()
            .path_matches(|path| path.starts_with("/users/") && path.ends_with("/avatar"))
            .query_matches(|pairs| {
                pairs
                    .iter()
                    .any(|(name, value)| name == "size" && value == "64")
            })
            .reply(MockResponse::new(200).body("avatar"))
            .persist();
        mock.intercept("POST", "https://api.example/search")
            .unwrap()
            .headers_match(|headers| {
                headers
                    .get("authorization")
                    .is_some_and(|value| value.as_bytes().starts_with(b"Bearer "))
            })
            .body_json(serde_json::json!({ "q": "rust", "limit": 10 }))
            .reply(MockResponse::new(200).body("json"));
        mock.intercept("POST", "https://api.example/upload")
            .unwrap()
            .body_matches(|body| body.len() == 3)
            .reply(MockResponse::new(200).body("three"));
        let client = server_client(&mock);
        let text = |url: &'static str, init: RequestInit| {
            let client = client.clone();
            async move {
                match client.fetch(url, init).await {
                    Ok(mut response) => response.text().await.unwrap(),
                    Err(error) => format!("error: {error:#}"),
                }
            }
        };

        assert_eq!(
            text(
                "https://api.example/static/app.js?v=3",
                RequestInit::default()
            )
            .await,
            "static"
        );
        assert_eq!(
            text(
                "https://api.example/users/7/avatar?size=64",
                RequestInit::default()
            )
            .await,
            "avatar"
        );
        assert!(
            text(
                "https://api.example/users/7/avatar?size=32",
                RequestInit::default()
            )
            .await
            .starts_with("error")
        );
        assert!(
            text("https://api.example/other/app.js", RequestInit::default())
                .await
                .starts_with("error")
        );

        let search = |authorization: &'static str, body: &'static str| RequestInit {
            method: Some("POST".into()),
            headers: Some([("authorization", authorization)].into()),
            body: Some(body.into()),
            ..Default::default()
        };
        // Another spacing and member order is the same JSON.
        assert!(
            text(
                "https://api.example/search",
                search("Basic x", r#"{"q":"rust","limit":10}"#)
            )
            .await
            .contains("(headers closure refused)")
        );
        assert!(
            text(
                "https://api.example/search",
                search("Bearer t", r#"{"q":"go","limit":10}"#)
            )
            .await
            .contains("(body differs)")
        );
        assert_eq!(
            text(
                "https://api.example/search",
                search("Bearer t", r#"{ "limit": 10, "q": "rust" }"#)
            )
            .await,
            "json"
        );

        let upload = |body: &'static str| RequestInit {
            method: Some("POST".into()),
            body: Some(body.into()),
            ..Default::default()
        };
        assert!(
            text("https://api.example/upload", upload("four"))
                .await
                .starts_with("error")
        );
        assert_eq!(
            text("https://api.example/upload", upload("abc")).await,
            "three"
        );
    })
    .await;
}

#[tokio::test]
async fn a_stream_body_is_read_whole_before_matching() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("PUT", "http://api.test/file")
            .unwrap()
            .body("part 1, part 2")
            .reply_with(|call| MockResponse::new(200).body(format!("{} bytes", call.body().len())));
        let chunks = futures_util::stream::iter(["part 1, ", "part 2"])
            .map(|chunk| Ok::<_, std::io::Error>(Bytes::from(chunk)));
        let mut response = server_client(&mock)
            .fetch(
                "http://api.test/file",
                RequestInit {
                    method: Some("PUT".into()),
                    body: Some(BodyInit::stream(chunks)),
                    duplex: Some(RequestDuplex::Half),
                    ..Default::default()
                },
            )
            .await
            .unwrap();
        assert_eq!(response.text().await.unwrap(), "14 bytes");
    })
    .await;
}

/// A stream body of `chunks` chunks of `size` bytes each.
fn stream_of(chunks: usize, size: usize) -> BodyInit {
    let chunk = Bytes::from(vec![b'x'; size]);
    BodyInit::stream(
        futures_util::stream::iter(0..chunks).map(move |_| Ok::<_, std::io::Error>(chunk.clone())),
    )
}

fn put(body: BodyInit) -> RequestInit {
    RequestInit {
        method: Some("PUT".into()),
        body: Some(body),
        duplex: Some(RequestDuplex::Half),
        ..Default::default()
    }
}

#[tokio::test]
async fn a_request_body_over_the_limit_fails_before_matching() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("PUT", "http://api.test/file")
            .unwrap()
            .any_query()
            .reply(MockResponse::new(200))
            .persist();
        let client = server_client(&mock);
        // The default limit, 16 MiB, passed by a stream of 17 chunks of 1 MiB.
        let error = client
            .fetch("http://api.test/file", put(stream_of(17, 1 << 20)))
            .await
            .unwrap_err();
        assert!(
            matches!(error.network_error(), Some(NetworkError::InvalidRequest(_))),
            "{error:?}"
        );
        // Exactly 16 MiB goes through.
        client
            .fetch("http://api.test/file", put(stream_of(16, 1 << 20)))
            .await
            .unwrap();
        // A smaller limit, passed by a stream and by a buffered body.
        mock.max_body_size(1024);
        for body in [stream_of(3, 512), BodyInit::from(vec![b'y'; 1025])] {
            let error = client
                .fetch("http://api.test/file?small", put(body))
                .await
                .unwrap_err();
            assert!(
                matches!(error.network_error(), Some(NetworkError::InvalidRequest(_))),
                "{error:?}"
            );
            assert!(error.to_string().contains("1024 bytes"), "{error}");
        }
        client
            .fetch("http://api.test/file?small", put(stream_of(2, 512)))
            .await
            .unwrap();
        // The requests that failed were never recorded.
        assert_eq!(mock.calls().len(), 2);
    })
    .await;
}

#[tokio::test]
async fn a_failing_stream_body_fails_the_request_as_a_protocol_error() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("PUT", "http://api.test/file")
            .unwrap()
            .reply(MockResponse::new(200));
        let chunks = futures_util::stream::iter([
            Ok(Bytes::from("a")),
            Err(std::io::Error::other("disk gone")),
        ]);
        let error = server_client(&mock)
            .fetch("http://api.test/file", put(BodyInit::stream(chunks)))
            .await
            .unwrap_err();
        assert!(
            matches!(error.network_error(), Some(NetworkError::Protocol(_))),
            "{error:?}"
        );
        assert!(mock.calls().is_empty());
    })
    .await;
}

#[tokio::test]
async fn a_delay_is_cut_short_by_an_abort_signal() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("GET", "https://api.example/slow")
            .unwrap()
            .reply(MockResponse::new(200))
            .delay(Duration::from_secs(3600));
        let client = server_client(&mock);
        let controller = AbortController::new();
        let fetching = tokio::spawn({
            let client = client.clone();
            let signal = controller.signal();
            async move {
                client
                    .fetch(
                        "https://api.example/slow",
                        RequestInit {
                            signal: Some(signal),
                            ..Default::default()
                        },
                    )
                    .await
            }
        });
        // The request is recorded when it arrives, before the delay.
        assert!(net_support::eventually(|| mock.calls().len() == 1).await);
        controller.abort(None);
        let error = fetching.await.unwrap().unwrap_err();
        assert_eq!(error.kind(), ErrorKind::AbortError);
    })
    .await;
}

#[tokio::test]
async fn a_delay_is_cut_short_by_the_client_timeout() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("GET", "https://api.example/slow")
            .unwrap()
            .reply(MockResponse::new(200))
            .delay(Duration::from_secs(3600));
        let client = Client::builder()
            .transport(Arc::new(mock.clone()))
            .timeout(Duration::from_millis(50))
            .build()
            .unwrap();
        let error = client
            .fetch("https://api.example/slow", RequestInit::default())
            .await
            .unwrap_err();
        assert!(
            matches!(
                error.network_error(),
                Some(NetworkError::Timeout {
                    kind: TimeoutKind::Total,
                    ..
                })
            ),
            "{error:?}"
        );
    })
    .await;
}

#[tokio::test]
async fn a_short_delay_still_answers() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("GET", "https://api.example/slow")
            .unwrap()
            .reply(MockResponse::new(200).body("late"))
            .delay(Duration::from_millis(20));
        let mut response = server_client(&mock)
            .fetch("https://api.example/slow", RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.text().await.unwrap(), "late");
    })
    .await;
}

#[tokio::test]
async fn an_error_reply_surfaces_as_its_network_error() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("GET", "https://down.example/")
            .unwrap()
            .reply_error(connection_refused);
        mock.intercept("GET", "https://silent.example/")
            .unwrap()
            .reply_error(|| NetworkError::Timeout {
                kind: TimeoutKind::Idle,
                after: Duration::from_secs(300),
            });
        let client = server_client(&mock);

        let error = client
            .fetch("https://down.example/", RequestInit::default())
            .await
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        let Some(NetworkError::Connect(source)) = error.network_error() else {
            panic!("not a connect error: {error:?}");
        };
        let io = source.downcast_ref::<std::io::Error>().unwrap();
        assert_eq!(io.kind(), std::io::ErrorKind::ConnectionRefused);
        assert_eq!(error.url(), Some("https://down.example/"));

        let error = client
            .fetch("https://silent.example/", RequestInit::default())
            .await
            .unwrap_err();
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
        mock.assert_all_used();
    })
    .await;
}

#[tokio::test]
async fn an_invalid_mocked_response_is_a_protocol_error() {
    bounded(async {
        let mock = MockTransport::new();
        mock.intercept("GET", "https://api.example/")
            .unwrap()
            .reply(MockResponse::new(200).header("x-bad", "a\r\nb"));
        let error = server_client(&mock)
            .fetch("https://api.example/", RequestInit::default())
            .await
            .unwrap_err();
        assert!(
            matches!(error.network_error(), Some(NetworkError::Protocol(_))),
            "{error:?}"
        );
        assert!(format!("{error:#}").contains("x-bad"), "{error:#}");
    })
    .await;
}

#[tokio::test]
async fn a_gzip_body_from_the_mock_is_decoded_as_a_servers_would_be() {
    use async_compression::tokio::write::GzipEncoder;
    use tokio::io::AsyncWriteExt;
    bounded(async {
        let mut encoder = GzipEncoder::new(Vec::new());
        encoder.write_all(b"hello, compressed").await.unwrap();
        encoder.shutdown().await.unwrap();
        let mock = MockTransport::new();
        mock.intercept("GET", "https://api.example/z")
            .unwrap()
            .reply(
                MockResponse::new(200)
                    .header("content-encoding", "gzip")
                    .body(encoder.into_inner()),
            );
        let mut response = server_client(&mock)
            .fetch("https://api.example/z", RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.text().await.unwrap(), "hello, compressed");
    })
    .await;
}

#[tokio::test]
async fn pending_interceptors_describe_what_is_left() {
    let mock = MockTransport::new();
    mock.intercept("GET", "https://api.example/users/1")
        .unwrap()
        .header("accept", "application/json")
        .reply(MockResponse::new(200))
        .times(2);
    mock.intercept("DELETE", "https://api.example/users/1")
        .unwrap()
        .reply(MockResponse::new(204))
        .persist();
    let pending = mock.pending_interceptors();
    let described: Vec<String> = pending.iter().map(ToString::to_string).collect();
    assert_eq!(
        described,
        [
            "GET https://api.example/users/1 [accept: application/json] → 200 (used 0 of 2 times)",
            "DELETE https://api.example/users/1 → 204 (persistent, never used)",
        ]
    );
    assert_eq!(pending[0].used(), 0);
    assert_eq!(pending[0].times(), Some(2));
    assert_eq!(pending[1].times(), None);
    assert_eq!(
        pending[1].description(),
        "DELETE https://api.example/users/1 → 204"
    );
}

#[test]
#[should_panic(
    expected = "1 mock interceptor is pending:\n  GET https://api.example/never → 200 (used 0 of 1 times)"
)]
fn assert_all_used_panics_listing_the_pending_interceptors() {
    let mock = MockTransport::new();
    mock.intercept("GET", "https://api.example/never")
        .unwrap()
        .reply(MockResponse::new(200));
    mock.assert_all_used();
}

#[tokio::test]
async fn unmatched_requests_reach_the_network_only_for_enabled_hosts() {
    bounded(async {
        let server = net_support::hyper_server(|request| async move {
            hyper::Response::new(net_support::full(format!("real {}", request.uri().path())))
        })
        .await;
        let mock = MockTransport::new();
        mock.intercept("GET", &server.url("/mocked"))
            .unwrap()
            .reply(MockResponse::new(200).body("mocked"));
        let client = server_client(&mock);
        let text = |url: String| {
            let client = client.clone();
            async move {
                match client.fetch(url, RequestInit::default()).await {
                    Ok(mut response) => Ok(response.text().await.unwrap()),
                    Err(error) => Err(error),
                }
            }
        };

        // Disabled by default, even with a passthrough transport.
        let error = text(server.url("/real")).await.unwrap_err();
        not_matched(&error);
        mock.passthrough(Arc::new(HyperTransport::builder().build().unwrap()));
        let error = text(server.url("/real")).await.unwrap_err();
        not_matched(&error);
        assert_eq!(server.counts.accepts(), 0);

        // Another host stays cut off.
        mock.enable_net_connect("localhost");
        assert!(text(server.url("/real")).await.is_err());
        // The server's host, with its port.
        mock.enable_net_connect(&server.addr.to_string());
        assert_eq!(text(server.url("/real")).await.unwrap(), "real /real");
        assert_eq!(text(server.url("/mocked")).await.unwrap(), "mocked");
        let outcomes: Vec<CallOutcome> = mock.calls().iter().map(|c| c.outcome()).collect();
        assert_eq!(outcomes.last(), Some(&CallOutcome::Matched(0)));
        assert_eq!(outcomes[outcomes.len() - 2], CallOutcome::Passthrough);

        mock.disable_net_connect();
        assert!(text(server.url("/real")).await.is_err());
        mock.enable_net_connect_all();
        assert_eq!(text(server.url("/again")).await.unwrap(), "real /again");
    })
    .await;
}

#[tokio::test]
async fn an_enabled_host_without_a_passthrough_transport_says_so() {
    bounded(async {
        let mock = MockTransport::new();
        mock.enable_net_connect("api.example");
        let error = server_client(&mock)
            .fetch("https://api.example/", RequestInit::default())
            .await
            .unwrap_err();
        not_matched(&error);
        assert!(
            format!("{error:#}").contains("no passthrough transport"),
            "{error}"
        );
    })
    .await;
}
