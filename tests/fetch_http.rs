//! fetch() over HTTP against in-process servers on 127.0.0.1: the fetch algorithm end to
//! end — request headers, redirects, status, bodies both ways, abort and timeouts.

mod net_support;

use std::sync::Arc;
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Request as HyperRequest, Response as HyperResponse};
use net_support::{Server, ServerBody, full, hyper_server, raw_server, request_head_text};
use tokio::io::AsyncWriteExt;
use whatwg_fetch::{
    AbortController, Body, BodyInit, Client, ErrorKind, HeadersInit, NetworkError, RequestInit,
    RequestRedirect, ResponseType, TimeoutKind,
};

/// What the echo route saw: method, headers in order, and the body.
async fn echo(request: HyperRequest<Incoming>) -> HyperResponse<ServerBody> {
    let mut text = request_head_text(&request);
    let body = request
        .into_body()
        .collect()
        .await
        .map(|b| b.to_bytes())
        .unwrap_or_default();
    text.push('\n');
    text.push_str(&String::from_utf8_lossy(&body));
    HyperResponse::new(full(text))
}

/// Routes: `/echo`, `/status/N`, `/redirect/STATUS?LOCATION`, `/hops/N` (N redirects, then
/// the echo), `/slow-head`, `/slow-body`, `/headers`.
async fn routes(request: HyperRequest<Incoming>) -> HyperResponse<ServerBody> {
    let path = request.uri().path().to_owned();
    let query = request.uri().query().unwrap_or_default().to_owned();
    let mut parts = path.trim_start_matches('/').splitn(2, '/');
    match (parts.next().unwrap_or_default(), parts.next()) {
        ("status", Some(status)) => {
            let status: u16 = status.parse().unwrap();
            let mut response = HyperResponse::new(full(if status == 204 || status == 304 {
                ""
            } else {
                "body"
            }));
            *response.status_mut() = http::StatusCode::from_u16(status).unwrap();
            response
        }
        ("redirect", Some(status)) => {
            let status: u16 = status.parse().unwrap();
            let location = percent_encoding::percent_decode_str(&query)
                .decode_utf8_lossy()
                .into_owned();
            HyperResponse::builder()
                .status(status)
                .header("location", location)
                .body(full("redirecting"))
                .unwrap()
        }
        ("hops", Some(count)) => {
            let count: u32 = count.parse().unwrap();
            if count == 0 {
                return echo(request).await;
            }
            HyperResponse::builder()
                .status(302)
                .header("location", format!("/hops/{}", count - 1))
                .body(full(""))
                .unwrap()
        }
        ("slow-head", _) => {
            tokio::time::sleep(Duration::from_secs(5)).await;
            HyperResponse::new(full("late"))
        }
        ("slow-body", _) => {
            let stream = futures_util::stream::unfold(0, |step| async move {
                match step {
                    0 => Some((
                        Ok(hyper::body::Frame::data(Bytes::from_static(b"first"))),
                        1,
                    )),
                    1 => {
                        tokio::time::sleep(Duration::from_secs(5)).await;
                        Some((
                            Ok(hyper::body::Frame::data(Bytes::from_static(b"second"))),
                            2,
                        ))
                    }
                    _ => None,
                }
            });
            HyperResponse::new(BodyExt::boxed(http_body_util::StreamBody::new(stream)))
        }
        ("headers", _) => HyperResponse::builder()
            .header("content-type", "text/plain")
            .header("set-cookie", "a=1")
            .header("set-cookie", "b=2")
            .header("x-multi", "one")
            .header("x-multi", "two")
            .body(full("ok"))
            .unwrap(),
        _ => echo(request).await,
    }
}

async fn server() -> Server {
    hyper_server(routes).await
}

fn client() -> Client {
    Client::builder().build().unwrap()
}

fn post(body: impl Into<BodyInit>) -> RequestInit {
    RequestInit {
        method: Some("POST".into()),
        body: Some(body.into()),
        ..Default::default()
    }
}

#[tokio::test]
async fn get_returns_status_headers_and_body() {
    let server = server().await;
    let mut response = client()
        .fetch(server.url("/headers"), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.status_text(), "OK");
    assert!(response.ok());
    assert_eq!(response.r#type(), ResponseType::Basic);
    assert_eq!(response.url(), server.url("/headers"));
    assert!(!response.redirected());
    assert_eq!(
        response.headers().get("x-multi").unwrap().as_deref(),
        Some("one, two")
    );
    assert_eq!(
        response.headers().get_set_cookie(),
        vec!["a=1", "b=2"],
        "server-side keeps Set-Cookie"
    );
    assert_eq!(response.text().await.unwrap(), "ok");
}

#[tokio::test]
async fn default_request_headers() {
    let server = server().await;
    let text = client()
        .fetch(server.url("/echo"), RequestInit::default())
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.starts_with("GET /echo\n"), "{text}");
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
    assert!(
        text.contains(&format!("\nhost: {}\n", server.addr)),
        "{text}"
    );
    assert!(
        !text.contains("origin:"),
        "no Origin without an origin: {text}"
    );
}

#[tokio::test]
async fn user_headers_win_over_defaults() {
    let server = server().await;
    let init = RequestInit {
        headers: Some(HeadersInit::from(vec![
            ("Accept", "text/plain"),
            ("User-Agent", "mine"),
            ("Accept-Language", "fr"),
        ])),
        ..Default::default()
    };
    let text = client()
        .fetch(server.url("/echo"), init)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.contains("\naccept: text/plain\n"), "{text}");
    assert!(text.contains("\naccept-language: fr\n"), "{text}");
    assert!(!text.contains("\naccept-language: *\n"), "{text}");
    assert!(text.contains("\nuser-agent: mine\n"), "{text}");
    assert!(!text.contains("*/*"), "{text}");
}

#[tokio::test]
async fn post_sends_body_length_and_type() {
    let server = server().await;
    let text = client()
        .fetch(server.url("/echo"), post("hello"))
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.starts_with("POST /echo\n"), "{text}");
    assert!(
        text.contains("\ncontent-type: text/plain;charset=UTF-8\n"),
        "{text}"
    );
    assert!(text.contains("\ncontent-length: 5\n"), "{text}");
    assert!(text.ends_with("\n\nhello"), "{text}");
}

#[tokio::test]
async fn empty_post_sends_content_length_zero() {
    let server = server().await;
    let init = RequestInit {
        method: Some("POST".into()),
        ..Default::default()
    };
    let text = client()
        .fetch(server.url("/echo"), init)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.contains("\ncontent-length: 0\n"), "{text}");
}

#[tokio::test]
async fn status_and_ok_for_every_status() {
    let server = server().await;
    let client = client();
    for status in (200..=599).step_by(7).chain([204, 299, 300, 304, 400, 599]) {
        if matches!(status, 301 | 302 | 303 | 307 | 308) {
            continue;
        }
        let mut response = client
            .fetch(
                server.url(&format!("/status/{status}")),
                RequestInit::default(),
            )
            .await
            .unwrap();
        assert_eq!(response.status(), status);
        assert_eq!(response.ok(), (200..300).contains(&status), "{status}");
        let body = response.text().await.unwrap();
        if matches!(status, 204 | 304) {
            assert_eq!(body, "", "null body status {status}");
            assert!(response.body().is_none());
        }
    }
}

#[tokio::test]
async fn head_has_no_body() {
    let server = server().await;
    let init = RequestInit {
        method: Some("HEAD".into()),
        ..Default::default()
    };
    let mut response = client().fetch(server.url("/echo"), init).await.unwrap();
    assert!(response.body().is_none());
    assert_eq!(response.text().await.unwrap(), "");
}

/// The request a redirect of `status` for `method` ends with, as the echo saw it.
async fn redirected(status: u16, method: &str, target: &str) -> (String, whatwg_fetch::Response) {
    let server = server().await;
    let location = format!("/redirect/{status}?{target}");
    let body = (method != "GET" && method != "HEAD").then(|| BodyInit::from("payload"));
    let init = RequestInit {
        method: Some(method.into()),
        body,
        headers: Some(HeadersInit::from(vec![
            ("Authorization", "secret"),
            ("X-Kept", "1"),
        ])),
        ..Default::default()
    };
    let mut response = client().fetch(server.url(&location), init).await.unwrap();
    (response.text().await.unwrap(), response)
}

#[tokio::test]
async fn redirect_method_rewriting_matrix() {
    for status in [301, 302, 303, 307, 308] {
        for method in ["GET", "POST", "HEAD", "PUT"] {
            let (text, response) = redirected(status, method, "/echo").await;
            assert!(response.redirected(), "{status} {method}");
            assert_eq!(response.url_list().len(), 2);
            if method == "HEAD" {
                assert_eq!(text, "");
                continue;
            }
            let rewritten = ((status == 301 || status == 302) && method == "POST")
                || (status == 303 && method != "GET");
            let expected_method = if rewritten { "GET" } else { method };
            assert!(
                text.starts_with(&format!("{expected_method} /echo\n")),
                "{status} {method}: {text}"
            );
            if rewritten {
                assert!(!text.contains("content-type:"), "{status} {method}: {text}");
                assert!(!text.ends_with("payload"), "{status} {method}: {text}");
            } else if method != "GET" {
                assert!(text.ends_with("\n\npayload"), "{status} {method}: {text}");
            }
            assert!(
                text.contains("\nauthorization: secret\n"),
                "same origin keeps Authorization"
            );
        }
    }
}

#[tokio::test]
async fn cross_origin_redirect_strips_credentials_headers() {
    let target = server().await;
    let (text, response) = redirected(307, "GET", &target.url("/echo")).await;
    assert_eq!(response.url(), target.url("/echo"));
    assert!(!text.contains("authorization:"), "{text}");
    assert!(text.contains("\nx-kept: 1\n"), "{text}");
}

#[tokio::test]
async fn twenty_redirects_are_followed_and_twenty_one_fail() {
    let server = server().await;
    let client = client();
    let mut response = client
        .fetch(server.url("/hops/20"), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.url_list().len(), 21);
    assert!(response.text().await.unwrap().starts_with("GET /hops/0"));
    let error = client
        .fetch(server.url("/hops/21"), RequestInit::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert!(
        matches!(
            error.network_error(),
            Some(NetworkError::TooManyRedirects { max: 20 })
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn redirect_modes_error_and_manual() {
    let server = server().await;
    let url = server.url("/redirect/302?/echo");
    let error_init = RequestInit {
        redirect: Some(RequestRedirect::Error),
        ..Default::default()
    };
    let error = client().fetch(url.as_str(), error_init).await.unwrap_err();
    assert!(matches!(
        error.network_error(),
        Some(NetworkError::RedirectRefused)
    ));

    let manual = RequestInit {
        redirect: Some(RequestRedirect::Manual),
        ..Default::default()
    };
    let response = client().fetch(url.as_str(), manual).await.unwrap();
    assert_eq!(
        response.status(),
        302,
        "server-side manual returns the redirect itself"
    );
    assert_eq!(
        response.headers().get("location").unwrap().as_deref(),
        Some("/echo")
    );

    let page = Client::builder()
        .origin(server.url("/").parse().unwrap())
        .build()
        .unwrap();
    let manual = RequestInit {
        redirect: Some(RequestRedirect::Manual),
        ..Default::default()
    };
    let response = page.fetch("/redirect/302?/echo", manual).await.unwrap();
    assert_eq!(response.r#type(), ResponseType::OpaqueRedirect);
    assert_eq!(response.status(), 0);
    assert!(response.headers().get("location").unwrap().is_none());
}

#[tokio::test]
async fn redirect_to_a_non_http_scheme_fails() {
    let server = server().await;
    let error = client()
        .fetch(server.url("/redirect/302?data:,x"), RequestInit::default())
        .await
        .unwrap_err();
    assert!(
        matches!(
            error.network_error(),
            Some(NetworkError::UnsupportedScheme(_))
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn stream_body_cannot_follow_a_307() {
    let server = server().await;
    let chunks = futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::from_static(b"x"))]);
    let init = RequestInit {
        method: Some("POST".into()),
        body: Some(BodyInit::stream(chunks)),
        duplex: Some(whatwg_fetch::RequestDuplex::Half),
        ..Default::default()
    };
    let error = client()
        .fetch(server.url("/redirect/307?/echo"), init)
        .await
        .unwrap_err();
    assert!(
        matches!(
            error.network_error(),
            Some(NetworkError::StreamBodyOnRedirect)
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn stream_upload_is_sent_chunked() {
    let server = server().await;
    let chunks = futures_util::stream::iter(
        (0..3).map(|i| Ok::<_, std::io::Error>(Bytes::from(format!("part{i};")))),
    );
    let init = RequestInit {
        method: Some("PUT".into()),
        body: Some(BodyInit::stream(chunks)),
        duplex: Some(whatwg_fetch::RequestDuplex::Half),
        ..Default::default()
    };
    let text = client()
        .fetch(server.url("/echo"), init)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.contains("\ntransfer-encoding: chunked\n"), "{text}");
    assert!(text.ends_with("\n\npart0;part1;part2;"), "{text}");
}

#[tokio::test]
async fn download_streams_before_the_body_ends() {
    let server = server().await;
    let mut response = client()
        .fetch(server.url("/slow-body"), RequestInit::default())
        .await
        .unwrap();
    let body = response.body().unwrap();
    let first = tokio::time::timeout(Duration::from_secs(2), body.next())
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(first, "first");
}

#[tokio::test]
async fn abort_before_fetch_rejects_with_the_reason() {
    let controller = AbortController::new();
    controller.abort(None);
    let init = RequestInit {
        signal: Some(controller.signal()),
        ..Default::default()
    };
    let error = client()
        .fetch("http://127.0.0.1:9/never", init)
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::AbortError);
    assert!(error.same(&controller.signal().reason().unwrap()));
}

#[tokio::test]
async fn abort_while_waiting_for_headers() {
    let server = server().await;
    let controller = AbortController::new();
    let init = RequestInit {
        signal: Some(controller.signal()),
        ..Default::default()
    };
    let reason = whatwg_fetch::Error::custom("stop", Arc::new("why"));
    let abort_reason = reason.clone();
    tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(50)).await;
        controller.abort(Some(abort_reason));
    });
    let error = client()
        .fetch(server.url("/slow-head"), init)
        .await
        .unwrap_err();
    assert!(
        error.same(&reason),
        "rejects with the exact reason: {error:?}"
    );
}

#[tokio::test]
async fn abort_mid_body_errors_the_stream() {
    let server = server().await;
    let controller = AbortController::new();
    let init = RequestInit {
        signal: Some(controller.signal()),
        ..Default::default()
    };
    let mut response = client()
        .fetch(server.url("/slow-body"), init)
        .await
        .unwrap();
    let body = response.body().unwrap();
    assert_eq!(body.next().await.unwrap().unwrap(), "first");
    controller.abort(None);
    let error = body.next().await.unwrap().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::AbortError);
}

#[tokio::test]
async fn abort_closes_the_connection_of_a_body_nobody_reads() {
    // A chunk every 5 ms, for as long as the connection is open.
    let server = hyper_server(|_| async {
        let chunks = futures_util::stream::unfold((), |()| async {
            tokio::time::sleep(Duration::from_millis(5)).await;
            let chunk = hyper::body::Frame::data(Bytes::from_static(b"."));
            Some((Ok::<_, whatwg_fetch::BoxError>(chunk), ()))
        });
        HyperResponse::new(BodyExt::boxed(http_body_util::StreamBody::new(chunks)))
    })
    .await;
    let controller = AbortController::new();
    let init = RequestInit {
        signal: Some(controller.signal()),
        ..Default::default()
    };
    let mut response = client().fetch(server.url("/"), init).await.unwrap();
    controller.abort(None);
    // The response is held but not read: aborting alone closes its connection.
    let live = server.counts.live.clone();
    tokio::time::timeout(Duration::from_secs(10), async {
        while live.load(std::sync::atomic::Ordering::SeqCst) > 0 {
            tokio::time::sleep(Duration::from_millis(5)).await;
        }
    })
    .await
    .expect("the connection is still open after the abort");
    let error = response.text().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::AbortError);
}

#[tokio::test]
async fn total_timeout_covers_headers_and_body() {
    let server = server().await;
    let client = Client::builder()
        .timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let error = client
        .fetch(server.url("/slow-head"), RequestInit::default())
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
    let mut response = client
        .fetch(server.url("/slow-body"), RequestInit::default())
        .await
        .unwrap();
    let error = response.text().await.unwrap_err();
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
}

#[tokio::test]
async fn read_timeout_is_an_idle_timeout() {
    let server = server().await;
    let client = Client::builder()
        .read_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let error = client
        .fetch(server.url("/slow-head"), RequestInit::default())
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
}

#[tokio::test]
async fn keep_alive_reuses_one_connection() {
    let server = server().await;
    let client = client();
    for _ in 0..5 {
        let text = client
            .fetch(server.url("/echo"), RequestInit::default())
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert!(text.starts_with("GET"));
    }
    assert_eq!(server.counts.accepts(), 1);
}

#[tokio::test]
async fn garbage_and_truncated_responses_are_type_errors() {
    let garbage = raw_server(|mut stream| async move {
        let _ = net_support::read_head(&mut stream).await;
        let _ = stream.write_all(b"this is not HTTP\r\n\r\n").await;
    })
    .await;
    let error = client()
        .fetch(garbage.url("/"), RequestInit::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert!(
        matches!(error.network_error(), Some(NetworkError::Protocol(_))),
        "{error:?}"
    );

    let short = raw_server(|mut stream| async move {
        let _ = net_support::read_head(&mut stream).await;
        let _ = stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc")
            .await;
    })
    .await;
    let mut response = client()
        .fetch(short.url("/"), RequestInit::default())
        .await
        .unwrap();
    let error = response.text().await.unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert!(error.network_error().is_some(), "{error:?}");
}

#[tokio::test]
async fn reason_phrases_are_kept() {
    let server = raw_server(|mut stream| async move {
        let _ = net_support::read_head(&mut stream).await;
        let _ = stream
            .write_all(b"HTTP/1.1 200 Very Fine\r\ncontent-length: 0\r\n\r\n")
            .await;
    })
    .await;
    let response = client()
        .fetch(server.url("/"), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.status_text(), "Very Fine");
}

#[tokio::test]
async fn bad_ports_and_unknown_schemes_are_network_errors() {
    let error = client()
        .fetch("http://127.0.0.1:25/", RequestInit::default())
        .await
        .unwrap_err();
    assert!(
        matches!(error.network_error(), Some(NetworkError::BadPort(25))),
        "{error:?}"
    );
    let error = client()
        .fetch("ftp://127.0.0.1/", RequestInit::default())
        .await
        .unwrap_err();
    assert!(
        matches!(
            error.network_error(),
            Some(NetworkError::UnsupportedScheme(_))
        ),
        "{error:?}"
    );
    let error = client()
        .fetch("about:config", RequestInit::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
}

#[tokio::test]
async fn data_about_blob_and_file_urls() {
    let client = client();
    let mut data = client
        .fetch("data:text/plain;base64,aGk=", RequestInit::default())
        .await
        .unwrap();
    assert_eq!(
        data.headers().get("content-type").unwrap().as_deref(),
        Some("text/plain")
    );
    assert_eq!(data.text().await.unwrap(), "hi");
    assert_eq!(data.url(), "data:text/plain;base64,aGk=");

    let mut blank = client
        .fetch("about:blank", RequestInit::default())
        .await
        .unwrap();
    assert_eq!(
        blank.headers().get("content-type").unwrap().as_deref(),
        Some("text/html;charset=utf-8")
    );
    assert_eq!(blank.text().await.unwrap(), "");

    let environment = client.environment();
    let url = environment.blob_url_store().create_object_url(
        environment,
        whatwg_fetch::Blob::from_bytes("blob body", "text/x-blob"),
    );
    let mut blob = client
        .fetch(url.as_str(), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(
        blob.headers().get("content-type").unwrap().as_deref(),
        Some("text/x-blob")
    );
    assert_eq!(
        blob.headers().get("content-length").unwrap().as_deref(),
        Some("9")
    );
    assert_eq!(blob.text().await.unwrap(), "blob body");
    let ranged = RequestInit {
        headers: Some(HeadersInit::from(vec![("Range", "bytes=5-")])),
        ..Default::default()
    };
    let mut part = client.fetch(url.as_str(), ranged).await.unwrap();
    assert_eq!(part.status(), 206);
    assert_eq!(
        part.headers().get("content-range").unwrap().as_deref(),
        Some("bytes 5-8/9")
    );
    assert_eq!(part.text().await.unwrap(), "body");
    let post = client.fetch(url.as_str(), post("x")).await.unwrap_err();
    assert!(matches!(
        post.network_error(),
        Some(NetworkError::InvalidBlobUrl)
    ));
    environment.blob_url_store().revoke_object_url(&url);
    assert!(
        client
            .fetch(url.as_str(), RequestInit::default())
            .await
            .is_err()
    );

    let path = std::env::temp_dir().join(format!("whatwg-fetch-file-test-{}", std::process::id()));
    std::fs::write(&path, "file body").unwrap();
    let file_url = url::Url::from_file_path(&path).unwrap();
    let refused = client
        .fetch(file_url.as_str(), RequestInit::default())
        .await
        .unwrap_err();
    assert!(matches!(
        refused.network_error(),
        Some(NetworkError::File(_))
    ));
    let allowed = Client::builder().allow_file_urls(true).build().unwrap();
    let mut file = allowed
        .fetch(file_url.as_str(), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(file.text().await.unwrap(), "file body");
    std::fs::remove_file(&path).unwrap();
}

#[tokio::test]
async fn a_dropped_response_body_is_not_leaked() {
    let server = server().await;
    let client = client();
    for _ in 0..3 {
        let response = client
            .fetch(server.url("/echo"), RequestInit::default())
            .await
            .unwrap();
        drop(response);
    }
    let text = client
        .fetch(server.url("/echo"), RequestInit::default())
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.starts_with("GET"));
}

#[tokio::test]
async fn the_free_fetch_function_works() {
    let server = server().await;
    let mut response = whatwg_fetch::fetch(server.url("/echo"), RequestInit::default())
        .await
        .unwrap();
    assert!(response.text().await.unwrap().starts_with("GET /echo"));
}

#[tokio::test]
async fn body_can_be_a_body_stream_from_another_response() {
    let server = server().await;
    let client = client();
    let mut source = client
        .fetch(server.url("/headers"), RequestInit::default())
        .await
        .unwrap();
    let body: Body = source.take_body().unwrap();
    let init = RequestInit {
        method: Some("POST".into()),
        body: Some(BodyInit::Stream(body)),
        duplex: Some(whatwg_fetch::RequestDuplex::Half),
        ..Default::default()
    };
    let text = client
        .fetch(server.url("/echo"), init)
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.ends_with("\n\nok"), "{text}");
}

#[tokio::test]
async fn a_resolver_function_maps_whole_domains_to_the_server() {
    let server = server().await;
    let ip = server.addr.ip();
    let client = Client::builder()
        .resolve_with(move |host| {
            (host == "example.test" || host.ends_with(".example.test"))
                .then(|| vec![std::net::SocketAddr::new(ip, 0)])
        })
        .build()
        .unwrap();
    let port = server.addr.port();
    for host in ["example.test", "www1.www2.example.test"] {
        let mut response = client
            .fetch(
                format!("http://{host}:{port}/headers"),
                RequestInit::default(),
            )
            .await
            .unwrap();
        assert_eq!(response.status(), 200, "{host}");
        assert_eq!(response.text().await.unwrap(), "ok");
    }
    let error = client
        .fetch(
            format!("http://elsewhere.invalid:{port}/"),
            RequestInit::default(),
        )
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
}

/// A server answering `421 Misdirected Request` to the first `misdirected` requests, then
/// echoing the body; it counts requests.
async fn misdirecting_server(misdirected: usize) -> (Server, Arc<std::sync::atomic::AtomicUsize>) {
    let requests = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let seen = Arc::clone(&requests);
    let server = hyper_server(move |request: HyperRequest<Incoming>| {
        let n = seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        async move {
            let body = request.into_body().collect().await.unwrap().to_bytes();
            let status = if n < misdirected { 421 } else { 200 };
            HyperResponse::builder()
                .status(status)
                .body(full(body))
                .unwrap()
        }
    })
    .await;
    (server, requests)
}

#[tokio::test]
async fn misdirected_request_is_retried_once_on_a_new_connection() {
    let (server, requests) = misdirecting_server(1).await;
    let mut response = client()
        .fetch(server.url("/"), post("payload"))
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(
        response.text().await.unwrap(),
        "payload",
        "the body went again"
    );
    assert_eq!(requests.load(std::sync::atomic::Ordering::SeqCst), 2);
    assert_eq!(
        server.counts.accepts(),
        2,
        "the retry used a new connection"
    );

    // Only once: a second 421 is the response.
    let (server, requests) = misdirecting_server(2).await;
    let response = client().fetch(server.url("/"), post("x")).await.unwrap();
    assert_eq!(response.status(), 421);
    assert_eq!(requests.load(std::sync::atomic::Ordering::SeqCst), 2);
}

#[tokio::test]
async fn misdirected_stream_body_is_not_retried() {
    let (server, requests) = misdirecting_server(1).await;
    let stream = futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::from_static(b"s"))]);
    let response = client()
        .fetch(
            server.url("/"),
            RequestInit {
                duplex: Some(whatwg_fetch::RequestDuplex::Half),
                ..post(Body::from_stream(stream))
            },
        )
        .await
        .unwrap();
    assert_eq!(
        response.status(),
        421,
        "a body without a source cannot be sent again"
    );
    assert_eq!(requests.load(std::sync::atomic::Ordering::SeqCst), 1);
}

#[tokio::test]
async fn keepalive_bodies_in_flight_stay_within_64_kib() {
    // `/hold` answers once released; anything else at once. Both echo the body's length.
    let release = Arc::new(tokio::sync::Notify::new());
    let seen = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (server_release, server_seen) = (Arc::clone(&release), Arc::clone(&seen));
    let server = hyper_server(move |request: HyperRequest<Incoming>| {
        let (release, seen) = (Arc::clone(&server_release), Arc::clone(&server_seen));
        async move {
            let hold = request.uri().path() == "/hold";
            let body = request.into_body().collect().await.unwrap().to_bytes();
            seen.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
            if hold {
                release.notified().await;
            }
            HyperResponse::new(full(body.len().to_string()))
        }
    })
    .await;
    let client = client();
    let keepalive = |bytes: usize, keepalive: bool| RequestInit {
        keepalive: Some(keepalive),
        ..post(vec![b'x'; bytes])
    };
    let held = {
        let (client, url) = (client.clone(), server.url("/hold"));
        let init = keepalive(40 * 1024, true);
        tokio::spawn(async move { client.fetch(url, init).await.unwrap().text().await.unwrap() })
    };
    while seen.load(std::sync::atomic::Ordering::SeqCst) == 0 {
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
    // 40 KiB in flight: 30 more would pass 64 KiB, and is refused before it is sent.
    let error = client
        .fetch(server.url("/"), keepalive(30 * 1024, true))
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert_eq!(seen.load(std::sync::atomic::Ordering::SeqCst), 1);
    // A request that is not keepalive has no quota; 24 KiB still fits.
    let mut response = client
        .fetch(server.url("/"), keepalive(30 * 1024, false))
        .await
        .unwrap();
    assert_eq!(response.text().await.unwrap(), "30720");
    let mut response = client
        .fetch(server.url("/"), keepalive(24 * 1024, true))
        .await
        .unwrap();
    assert_eq!(response.text().await.unwrap(), "24576");
    // Once the held fetch's response body is read, its 40 KiB are given back.
    release.notify_one();
    assert_eq!(held.await.unwrap(), "40960");
    let mut response = client
        .fetch(server.url("/"), keepalive(60 * 1024, true))
        .await
        .unwrap();
    assert_eq!(response.text().await.unwrap(), "61440");
}

#[tokio::test]
async fn a_redirect_that_drops_the_body_drops_the_callers_content_length() {
    // (A caller's `Transfer-Encoding` is refused before any redirect: the transport frames
    // the body itself.)
    let server = server().await;
    for status in [301, 302, 303, 307, 308] {
        let rewritten = status <= 303;
        let init = RequestInit {
            method: Some("POST".into()),
            body: Some(BodyInit::from("payload")),
            headers: Some(HeadersInit::from(vec![
                ("Content-Length", "7"),
                ("Content-Type", "text/plain"),
            ])),
            ..Default::default()
        };
        let location = format!("/redirect/{status}?/echo");
        let mut response = client().fetch(server.url(&location), init).await.unwrap();
        let text = response.text().await.unwrap();
        if rewritten {
            assert!(text.starts_with("GET /echo\n"), "{status}: {text}");
            for name in ["content-length", "transfer-encoding", "content-type"] {
                assert!(!text.contains(&format!("\n{name}:")), "{status}: {text}");
            }
        } else {
            assert!(text.starts_with("POST /echo\n"), "{status}: {text}");
            assert!(text.contains("\ncontent-length: 7\n"), "{status}: {text}");
            assert!(text.ends_with("\n\npayload"), "{status}: {text}");
        }
    }
}
