//! reqwest's call shapes over the one fetch algorithm: `Client::get/post/…` and
//! `RequestBuilder`, `Response::error_for_status`, `status_code`, `content_length`, and the
//! classes of `Error` (`is_timeout`, `is_connect`, `is_redirect`, `is_decode`, `is_body`,
//! `is_status`), each against a server on 127.0.0.1.

mod net_support;

use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use net_support::{Server, full, hyper_server, raw_server, read_head, request_head_text};
use serde::{Deserialize, Serialize};
use tokio::io::AsyncWriteExt;
use whatwg_fetch::header::{ACCEPT, HeaderMap, HeaderValue};
use whatwg_fetch::{
    AbortSignal, Client, FormData, Method, Request, RequestBuilder, RequestInit, RequestRedirect,
    StatusCode,
};

/// Routes: `/echo` (the method, headers in order and body, as text), `/status/N`,
/// `/slow/MS` (answers after MS milliseconds), `/redirect` (to itself, forever),
/// `/json` (`{"id":7,"name":"Ada"}`), `/bad-gzip`.
async fn server() -> Server {
    hyper_server(|request| async move {
        let path = request.uri().path().to_owned();
        let mut parts = path.trim_start_matches('/').splitn(2, '/');
        match (parts.next().unwrap_or_default(), parts.next()) {
            ("status", Some(status)) => http::Response::builder()
                .status(status.parse::<u16>().unwrap())
                .body(full("a problem"))
                .unwrap(),
            ("slow", Some(ms)) => {
                tokio::time::sleep(Duration::from_millis(ms.parse().unwrap())).await;
                http::Response::new(full("late"))
            }
            ("redirect", _) => http::Response::builder()
                .status(302)
                .header("location", "/redirect")
                .body(full(""))
                .unwrap(),
            ("json", _) => http::Response::builder()
                .header("content-type", "application/json")
                .body(full(r#"{"id":7,"name":"Ada"}"#))
                .unwrap(),
            ("bad-gzip", _) => http::Response::builder()
                .header("content-encoding", "gzip")
                .body(full("not gzip at all"))
                .unwrap(),
            _ => {
                let mut text = request_head_text(&request);
                let uri = request.uri().to_string();
                let body = request.into_body().collect().await.unwrap().to_bytes();
                text.push_str(&format!("\nuri: {uri}\n\n"));
                text.push_str(&String::from_utf8_lossy(&body));
                http::Response::new(full(text))
            }
        }
    })
    .await
}

fn client() -> Client {
    Client::builder().build().unwrap()
}

/// Sends `request` and reads its response's text.
async fn sent(request: RequestBuilder) -> String {
    request.send().await.unwrap().text().await.unwrap()
}

#[tokio::test]
async fn each_method_reaches_the_server_as_its_name() {
    let server = server().await;
    let client = client();
    let url = server.url("/echo");
    let builders = [
        ("GET", client.get(&url)),
        ("POST", client.post(&url)),
        ("PUT", client.put(&url)),
        ("PATCH", client.patch(&url)),
        ("DELETE", client.delete(&url)),
        ("OPTIONS", client.request(Method::OPTIONS, &url)),
    ];
    for (method, builder) in builders {
        let text = builder.send().await.unwrap().text().await.unwrap();
        assert!(text.starts_with(&format!("{method} /echo\n")), "{text}");
    }
    let head = client.head(&url).send().await.unwrap();
    assert_eq!(head.status_code(), Some(StatusCode::OK));
    assert_eq!(head.content_length(), Some(0));
    // The free function, on the shared client.
    let text = whatwg_fetch::get(&url).await.unwrap().text().await.unwrap();
    assert!(text.starts_with("GET /echo\n"), "{text}");
}

#[tokio::test]
async fn headers_authorization_and_query_are_sent() {
    let server = server().await;
    let mut defaults = HeaderMap::new();
    defaults.insert("x-kept", HeaderValue::from_static("from the map"));
    defaults.append("x-twice", HeaderValue::from_static("one"));
    defaults.append("x-twice", HeaderValue::from_static("two"));
    let text = client()
        .get(server.url("/echo?lang=en"))
        .header(ACCEPT, "application/json")
        .header("x-kept", "replaced by the map")
        .headers(defaults)
        .bearer_auth("first")
        .basic_auth("ada", Some("s3cret"))
        .query(&[("q", "a b&c"), ("page", "2")])
        .query(&Vec::<(String, String)>::new())
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    assert!(text.contains("\naccept: application/json\n"), "{text}");
    assert!(text.contains("\nx-kept: from the map\n"), "{text}");
    assert!(!text.contains("replaced by the map"), "{text}");
    assert!(text.contains("\nx-twice: one\nx-twice: two\n"), "{text}");
    // The second Authorization replaced the first.
    assert!(
        text.contains("\nauthorization: Basic YWRhOnMzY3JldA==\n"),
        "{text}"
    );
    assert!(!text.contains("Bearer"), "{text}");
    assert!(
        text.contains("\nuri: /echo?lang=en&q=a+b%26c&page=2\n"),
        "{text}"
    );
}

#[derive(Serialize, Deserialize, Debug, PartialEq)]
struct User {
    id: u32,
    name: String,
}

#[tokio::test]
async fn json_form_and_multipart_bodies_carry_their_types() {
    let server = server().await;
    let client = client();
    let url = server.url("/echo");
    let user = User {
        id: 1,
        name: "Ada".into(),
    };
    let text = sent(client.post(&url).json(&user)).await;
    assert!(
        text.contains("\ncontent-type: application/json\n"),
        "{text}"
    );
    assert!(text.ends_with("\n\n{\"id\":1,\"name\":\"Ada\"}"), "{text}");
    // A Content-Type given first is kept.
    let text = sent(
        client
            .post(&url)
            .header("content-type", "application/vnd.api+json")
            .json(&user),
    )
    .await;
    assert!(
        text.contains("\ncontent-type: application/vnd.api+json\n"),
        "{text}"
    );
    assert!(!text.contains("content-type: application/json"), "{text}");
    let text = sent(
        client
            .post(&url)
            .form(&[("user", "ada"), ("note", "a&b c")]),
    )
    .await;
    assert!(
        text.contains("\ncontent-type: application/x-www-form-urlencoded\n"),
        "{text}"
    );
    assert!(text.ends_with("\n\nuser=ada&note=a%26b+c"), "{text}");
    let mut form = FormData::new();
    form.append("title", "a report");
    let text = sent(client.post(&url).multipart(form)).await;
    assert!(
        text.contains("\ncontent-type: multipart/form-data; boundary="),
        "{text}"
    );
    assert!(
        text.contains("name=\"title\"\r\n\r\na report\r\n"),
        "{text}"
    );
    // A stream body goes with duplex "half" set for it.
    let stream = futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::from("streamed"))]);
    let text = sent(
        client
            .put(&url)
            .body(whatwg_fetch::BodyInit::stream(stream)),
    )
    .await;
    assert!(text.ends_with("\n\nstreamed"), "{text}");
}

#[tokio::test]
async fn a_builders_request_is_what_the_same_request_init_makes() {
    let client = client();
    let built = client
        .post("https://example.com/items?a=1")
        .header("x-one", "1")
        .header("content-type", "text/csv")
        .body("a,b")
        .redirect(RequestRedirect::Manual)
        .build()
        .unwrap();
    let by_hand = Request::new_in(
        client.environment(),
        "https://example.com/items?a=1",
        RequestInit {
            method: Some("POST".into()),
            headers: Some([("x-one", "1"), ("content-type", "text/csv")].into()),
            body: Some("a,b".into()),
            redirect: Some(RequestRedirect::Manual),
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(built.method(), by_hand.method());
    assert_eq!(built.url(), by_hand.url());
    assert_eq!(built.redirect(), by_hand.redirect());
    let headers = |request: &Request| request.headers().iter().collect::<Vec<_>>();
    assert_eq!(headers(&built), headers(&by_hand));
}

#[tokio::test]
async fn a_builder_keeps_its_first_error_with_what_was_wrong() {
    let client = client();
    let error = client
        .get("https://example.com/")
        .header("x-fine", "1")
        .header("bad\nname", "1")
        .header("x-never", "reached")
        .send()
        .await
        .unwrap_err();
    assert!(error.to_string().contains("invalid header name"), "{error}");
    let error = client
        .get("https://example.com/")
        .header("x-value", "bad\nvalue")
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("header x-value"), "{error}");
    // A map with keys that are not strings does not serialize as JSON.
    let mut map = std::collections::HashMap::new();
    map.insert((1, 2), "x");
    let error = client
        .post("https://example.com/")
        .json(&map)
        .build()
        .unwrap_err();
    assert!(error.to_string().contains("JSON body"), "{error}");
    // The constructor's own errors come out of build() and send().
    let error = client.get("not a url").build().unwrap_err();
    assert!(error.to_string().contains("invalid URL"), "{error}");
    let error = client
        .get("https://example.com/")
        .body("a body on a GET")
        .send()
        .await
        .unwrap_err();
    assert_eq!(error.kind(), whatwg_fetch::ErrorKind::TypeError);
}

/// Credentials are a header value's bytes, as Fetch's are: a token past ASCII goes out as
/// its UTF-8, whatever the `http` crate's string conversions accept; a newline is refused.
#[tokio::test]
async fn a_token_past_ascii_is_sent_as_its_bytes_and_a_newline_is_refused() {
    let server = server().await;
    let text = sent(client().get(server.url("/echo")).bearer_auth("jeton-é")).await;
    assert!(text.contains("\nauthorization: Bearer jeton-é\n"), "{text}");
    let error = client()
        .get(server.url("/echo"))
        .bearer_auth("a\r\nx-injected: 1")
        .build()
        .unwrap_err();
    assert!(
        error
            .to_string()
            .contains("invalid Authorization credentials"),
        "{error}"
    );
}

/// A response handed on as a request's body (reqwest's `.body(response)`): streamed, with
/// the `Content-Length` it came with; one that ends short fails the upload.
#[tokio::test]
async fn a_response_piped_into_a_request_keeps_its_length_and_its_failure() {
    let server = server().await;
    let client = client();
    let downloaded = client.get(server.url("/json")).send().await.unwrap();
    let text = sent(client.put(server.url("/echo")).body(downloaded)).await;
    assert!(text.contains("\ncontent-length: 21\n"), "{text}");
    assert!(!text.contains("transfer-encoding"), "{text}");
    assert!(text.ends_with("\n\n{\"id\":7,\"name\":\"Ada\"}"), "{text}");

    // 100 bytes announced, 10 sent, then the connection closes.
    let (short, _) =
        net_support::recording_server(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly ten b")
            .await;
    let downloaded = client.get(short.url("/")).send().await.unwrap();
    let error = client
        .put(server.url("/echo"))
        .body(downloaded)
        .send()
        .await
        .unwrap_err();
    assert!(error.is_request() || error.is_body(), "{error:?}");
}

#[tokio::test]
async fn a_requests_timeout_overrides_the_clients() {
    let server = server().await;
    // The client's timeout is long; the request's is short.
    let patient = Client::builder()
        .timeout(Duration::from_secs(30))
        .build()
        .unwrap();
    let error = patient
        .get(server.url("/slow/2000"))
        .timeout(Duration::from_millis(100))
        .send()
        .await
        .unwrap_err();
    assert!(error.is_timeout(), "{error:?}");
    assert!(!error.is_connect() && !error.is_body(), "{error:?}");
    // The client's timeout is short; the request's is long.
    let hasty = Client::builder()
        .timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let mut response = hasty
        .get(server.url("/slow/300"))
        .timeout(Duration::from_secs(30))
        .send()
        .await
        .unwrap();
    assert_eq!(response.text().await.unwrap(), "late");
    let error = hasty.get(server.url("/slow/300")).send().await.unwrap_err();
    assert!(error.is_timeout(), "{error:?}");
    // A timeout signal's reason is a timeout too.
    let error = patient
        .get(server.url("/slow/2000"))
        .signal(AbortSignal::timeout_ms(50))
        .send()
        .await
        .unwrap_err();
    assert!(error.is_timeout(), "{error:?}");
}

#[tokio::test]
async fn error_for_status_names_the_status_and_the_url() {
    let server = server().await;
    let client = client();
    for (status, class) in [(404, "client error"), (503, "server error")] {
        let url = server.url(&format!("/status/{status}"));
        let error = client
            .get(&url)
            .send()
            .await
            .unwrap()
            .error_for_status()
            .unwrap_err();
        assert!(error.is_status(), "{error:?}");
        assert_eq!(error.status().map(|s| s.as_u16()), Some(status));
        assert_eq!(error.url(), Some(url.as_str()));
        assert!(error.to_string().contains(class), "{error}");
        assert!(!error.is_timeout() && !error.is_connect(), "{error:?}");
    }
    // The reference form keeps the response and its body.
    let mut response = client.get(server.url("/status/422")).send().await.unwrap();
    assert!(response.error_for_status_ref().is_err());
    assert_eq!(response.text().await.unwrap(), "a problem");
    // Anything under 400 passes.
    let response = client.get(server.url("/status/299")).send().await.unwrap();
    assert_eq!(response.error_for_status().unwrap().status(), 299);
}

#[tokio::test]
async fn the_json_reader_is_named_json_and_its_error_says_why() {
    let server = server().await;
    let client = client();
    let user: User = client
        .get(server.url("/json"))
        .send()
        .await
        .unwrap()
        .json()
        .await
        .unwrap();
    assert_eq!(
        user,
        User {
            id: 7,
            name: "Ada".into()
        }
    );
    let error = client
        .get(server.url("/echo"))
        .send()
        .await
        .unwrap()
        .json::<User>()
        .await
        .unwrap_err();
    assert!(error.is_decode(), "{error:?}");
}

#[tokio::test]
async fn errors_say_which_class_they_are() {
    let server = server().await;
    let client = client();
    // Nothing listens on a port just closed.
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = closed.local_addr().unwrap().port();
    drop(closed);
    let error = client
        .get(format!("http://127.0.0.1:{port}/"))
        .send()
        .await
        .unwrap_err();
    assert!(error.is_connect(), "{error:?}");
    assert!(!error.is_timeout() && !error.is_redirect() && !error.is_body());
    // Twenty-one redirects.
    let error = client
        .get(server.url("/redirect"))
        .send()
        .await
        .unwrap_err();
    assert!(error.is_redirect(), "{error:?}");
    let error = client
        .get(server.url("/redirect"))
        .redirect(RequestRedirect::Error)
        .send()
        .await
        .unwrap_err();
    assert!(error.is_redirect(), "{error:?}");
    // A coding that does not decode, found while the body is read.
    let mut response = client.get(server.url("/bad-gzip")).send().await.unwrap();
    let error = response.text().await.unwrap_err();
    assert!(error.is_decode() && error.is_body(), "{error:?}");
    // A body cut short of its Content-Length, and one past the read timeout.
    let cut = raw_server(|mut stream| async move {
        let _ = read_head(&mut stream).await;
        let _ = stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhello")
            .await;
    })
    .await;
    let mut response = client.get(cut.url("/")).send().await.unwrap();
    assert_eq!(response.content_length(), Some(10));
    let error = response.bytes().await.unwrap_err();
    assert!(error.is_body() && !error.is_connect(), "{error:?}");
    let stalled = raw_server(|mut stream| async move {
        let _ = read_head(&mut stream).await;
        let _ = stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nhello")
            .await;
        tokio::time::sleep(Duration::from_secs(5)).await;
    })
    .await;
    let impatient = Client::builder()
        .read_timeout(Duration::from_millis(100))
        .build()
        .unwrap();
    let mut response = impatient.get(stalled.url("/")).send().await.unwrap();
    let error = response.bytes().await.unwrap_err();
    assert!(error.is_body() && error.is_timeout(), "{error:?}");
}
