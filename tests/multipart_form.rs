//! reqwest's `multipart::{Form, Part}` sent with `RequestBuilder::multipart` to a server on
//! 127.0.0.1: the exact bytes and `Content-Type` with the form's own boundary (reqwest's
//! `text_part` layout), bytes, stream and file parts, `Content-Length` or chunked, a
//! `FormData` sent as before and as a `Form`, and `mime_str`'s error.

mod net_support;

use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use hyper::body::Incoming;
use hyper::{Request as HyperRequest, Response as HyperResponse};
use net_support::{Server, ServerBody, full, hyper_server};
use tokio::sync::mpsc;
use whatwg_fetch::multipart::{Form, Part};
use whatwg_fetch::{Body, Client, ErrorKind, FormData};

/// How long any one fetch here may take before the test fails rather than hang.
const LIMIT: Duration = Duration::from_secs(60);

/// What the server saw of one request.
#[derive(Debug)]
struct Received {
    path: String,
    headers: http::HeaderMap,
    body: Bytes,
}

impl Received {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|value| value.to_str().ok())
    }

    /// Fails unless the body is `expected`, with a `Content-Length` saying its length.
    fn assert_body_with_its_length(&self, expected: &str) {
        let length = expected.len().to_string();
        assert_eq!(self.header("content-length"), Some(length.as_str()));
        assert_eq!(self.body, expected.as_bytes());
    }

    /// The body parsed back as a form, by the boundary of its `Content-Type`.
    fn form(&self) -> FormData {
        let content_type = self.header("content-type").unwrap();
        let boundary = content_type
            .strip_prefix("multipart/form-data; boundary=")
            .unwrap();
        FormData::from_multipart(&self.body, boundary).unwrap()
    }
}

/// A server that reads each request's body whole, sends what it saw to the receiver and
/// answers `ok`; `/redirect307` answers with a 307 to `/after`.
async fn recording_server() -> (Server, mpsc::UnboundedReceiver<Received>) {
    let (tx, rx) = mpsc::unbounded_channel();
    let server = hyper_server(move |request: HyperRequest<Incoming>| {
        let tx = tx.clone();
        async move {
            let path = request.uri().path().to_owned();
            let headers = request.headers().clone();
            let body = request.into_body().collect().await.unwrap().to_bytes();
            let _ = tx.send(Received {
                path: path.clone(),
                headers,
                body,
            });
            if path == "/redirect307" {
                return HyperResponse::builder()
                    .status(307)
                    .header("location", "/after")
                    .body::<ServerBody>(full(""))
                    .unwrap();
            }
            HyperResponse::new(full("ok"))
        }
    })
    .await;
    (server, rx)
}

/// Sends `form` to `path` on `server` and returns what the server saw.
async fn send(
    server: &Server,
    rx: &mut mpsc::UnboundedReceiver<Received>,
    path: &str,
    form: impl Into<Form>,
) -> Received {
    let client = Client::builder().build().unwrap();
    let response =
        tokio::time::timeout(LIMIT, client.post(server.url(path)).multipart(form).send())
            .await
            .unwrap()
            .unwrap();
    assert_eq!(response.status(), 200);
    rx.recv().await.unwrap()
}

/// A stream body of `chunks`, whose length is not known.
fn stream_body(chunks: &'static [&'static str]) -> Body {
    Body::from_stream(futures_util::stream::iter(chunks.iter().map(|chunk| {
        Ok::<_, std::io::Error>(Bytes::from_static(chunk.as_bytes()))
    })))
}

#[tokio::test]
async fn a_text_field_is_sent_as_reqwest_lays_it_out() {
    let (server, mut rx) = recording_server().await;
    let form = Form::new().text("foo", "bar");
    // reqwest's `multipart::text_part`, byte for byte.
    let expected = format!(
        "--{0}\r\nContent-Disposition: form-data; name=\"foo\"\r\n\r\nbar\r\n--{0}--\r\n",
        form.boundary()
    );
    let content_type = format!("multipart/form-data; boundary={}", form.boundary());

    let received = send(&server, &mut rx, "/multipart/1", form).await;
    assert_eq!(received.header("content-type"), Some(content_type.as_str()));
    received.assert_body_with_its_length(&expected);
}

#[tokio::test]
async fn a_bytes_part_with_a_file_name_and_type_is_sent_with_both() {
    let (server, mut rx) = recording_server().await;
    let form = Form::new().text("title", "a report").part(
        "file",
        Part::bytes(vec![1, 2, 3])
            .file_name("data.bin")
            .mime_str("application/octet-stream")
            .unwrap(),
    );
    let expected = format!(
        "--{0}\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\na report\r\n\
         --{0}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"data.bin\"\r\n\
         Content-Type: application/octet-stream\r\n\r\n\x01\x02\x03\r\n--{0}--\r\n",
        form.boundary()
    );
    let content_type = format!("multipart/form-data; boundary={}", form.boundary());

    let received = send(&server, &mut rx, "/upload", form).await;
    assert_eq!(received.header("content-type"), Some(content_type.as_str()));
    received.assert_body_with_its_length(&expected);
}

#[tokio::test]
async fn a_stream_part_of_unknown_length_is_sent_chunked() {
    let (server, mut rx) = recording_server().await;
    let form = Form::new().text("foo", "bar").part(
        "part_stream",
        Part::stream(stream_body(&["part1", " part2"])),
    );
    // reqwest's `multipart::stream_part` sends this part without `filename` and
    // `Content-Type`; a FormData file entry has both.
    let expected = format!(
        "--{0}\r\nContent-Disposition: form-data; name=\"foo\"\r\n\r\nbar\r\n\
         --{0}\r\nContent-Disposition: form-data; name=\"part_stream\"; filename=\"blob\"\r\n\
         Content-Type: application/octet-stream\r\n\r\npart1 part2\r\n--{0}--\r\n",
        form.boundary()
    );

    let received = send(&server, &mut rx, "/multipart/1", form).await;
    assert_eq!(received.header("transfer-encoding"), Some("chunked"));
    assert_eq!(received.header("content-length"), None);
    assert_eq!(received.body, expected.as_bytes());
}

#[tokio::test]
async fn a_stream_part_of_known_length_gives_the_body_a_content_length() {
    let (server, mut rx) = recording_server().await;
    let part = Part::stream_with_length(stream_body(&["0123", "456789"]), 10)
        .file_name("digits.txt")
        .mime_str("text/plain")
        .unwrap();
    let form = Form::new().part("digits", part);
    let expected = format!(
        "--{0}\r\nContent-Disposition: form-data; name=\"digits\"; filename=\"digits.txt\"\r\n\
         Content-Type: text/plain\r\n\r\n0123456789\r\n--{0}--\r\n",
        form.boundary()
    );

    let received = send(&server, &mut rx, "/upload", form).await;
    assert_eq!(received.header("transfer-encoding"), None);
    received.assert_body_with_its_length(&expected);
}

#[tokio::test]
async fn a_stream_part_shorter_than_its_length_fails_the_request() {
    let (server, _rx) = recording_server().await;
    let form = Form::new().part(
        "digits",
        Part::stream_with_length(stream_body(&["0123"]), 10),
    );
    let client = Client::builder().build().unwrap();
    let result = tokio::time::timeout(
        LIMIT,
        client.post(server.url("/upload")).multipart(form).send(),
    )
    .await
    .unwrap();
    assert!(result.is_err(), "{result:?}");
}

#[tokio::test]
async fn a_body_in_memory_is_a_bytes_part_sent_again_after_a_307() {
    let (server, mut rx) = recording_server().await;
    let form = Form::new().part(
        "data",
        Part::stream(Body::from_bytes("in memory")).file_name("a.txt"),
    );
    let boundary = form.boundary().to_owned();

    let received = send(&server, &mut rx, "/redirect307", form).await;
    let after = rx.recv().await.unwrap();
    assert_eq!(after.path, "/after");
    assert_eq!(after.body, received.body);
    let content_type = format!("multipart/form-data; boundary={boundary}");
    assert_eq!(after.header("content-type"), Some(content_type.as_str()));
    let form = after.form();
    let file = form.get("data").and_then(|value| value.as_file()).unwrap();
    assert_eq!((file.name(), file.text().as_str()), ("a.txt", "in memory"));
}

#[tokio::test]
async fn file_parts_are_read_from_disk() {
    let dir = std::env::temp_dir().join(format!(
        "whatwg-fetch-multipart-form-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("report.csv");
    std::fs::write(&path, "a,b\n1,2\n").unwrap();

    let (server, mut rx) = recording_server().await;
    let form = Form::new().file("report", &path).await.unwrap().part(
        "renamed",
        Part::file(&path)
            .await
            .unwrap()
            .file_name("q3.csv")
            .mime_str("text/plain")
            .unwrap(),
    );
    let expected = format!(
        "--{0}\r\nContent-Disposition: form-data; name=\"report\"; filename=\"report.csv\"\r\n\
         Content-Type: text/csv\r\n\r\na,b\n1,2\n\r\n\
         --{0}\r\nContent-Disposition: form-data; name=\"renamed\"; filename=\"q3.csv\"\r\n\
         Content-Type: text/plain\r\n\r\na,b\n1,2\n\r\n--{0}--\r\n",
        form.boundary()
    );
    let received = send(&server, &mut rx, "/upload", form).await;
    assert_eq!(received.body, expected.as_bytes());

    let missing = Part::file(dir.join("missing.csv")).await.unwrap_err();
    assert_eq!(missing.kind(), ErrorKind::NotFoundError);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn an_invalid_mime_type_is_a_type_error_naming_it() {
    let error = Part::bytes(vec![1])
        .mime_str("text/plain/extra")
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert!(error.to_string().contains("text/plain/extra"), "{error}");
    assert!(Part::text("x").mime_str("").is_err());
}

#[tokio::test]
async fn a_form_from_form_data_keeps_its_entries_and_has_a_boundary_of_its_own() {
    let (server, mut rx) = recording_server().await;
    let mut entries = FormData::new();
    entries.append("title", "Q3");
    entries.append("tag", "red");
    let form = Form::from(entries.clone());
    let content_type = format!("multipart/form-data; boundary={}", form.boundary());

    let received = send(&server, &mut rx, "/upload", form).await;
    assert_eq!(received.header("content-type"), Some(content_type.as_str()));
    assert_eq!(received.form(), entries);
}

#[tokio::test]
async fn multipart_still_takes_a_form_data() {
    let (server, mut rx) = recording_server().await;
    let mut entries = FormData::new();
    entries.append("title", "a report");
    entries.append("year", "2024");

    let received = send(&server, &mut rx, "/upload", entries.clone()).await;
    let content_type = received.header("content-type").unwrap();
    assert!(
        content_type.starts_with("multipart/form-data; boundary=----formdata-"),
        "{content_type}"
    );
    assert_eq!(received.form(), entries);
}
