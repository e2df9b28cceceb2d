//! multipart/form-data responses with a preamble and an epilogue (RFC 2046 §5.1.1 says to
//! ignore both), with boundary text where a naive parser would take it for a delimiter,
//! and with very many parts.

use crate::next_request_works;
use std::time::Duration;

use hyper::body::Incoming;
use hyper::{Request as HyperRequest, Response as HyperResponse};
use whatwg_fetch::{Client, ErrorKind, FormDataEntryValue, RequestInit};

use crate::net_support::{Server, ServerBody, full, hyper_server};

const TIME_LIMIT: Duration = Duration::from_secs(30);

const BOUNDARY: &str = "----hostile-7MA4YWxkTrZu0gW";

/// A payload whose preamble mentions the boundary in the middle of lines, and whose
/// epilogue holds a whole further part after the close delimiter.
fn payload_with_preamble_and_epilogue() -> Vec<u8> {
    format!(
        "This is the preamble. It is to be ignored, though it mentions --{BOUNDARY} and\r\n\
         ends lines in bare LF \n--{BOUNDARY}\n or CR \r--{BOUNDARY}\r.\r\n\
         --{BOUNDARY}\r\n\
         Content-Disposition: form-data; name=\"text\"\r\n\
         \r\n\
         hello\r\n\
         --{BOUNDARY}\r\n\
         Content-Disposition: form-data; name=\"file\"; filename=\"a.txt\"\r\n\
         Content-Type: text/plain\r\n\
         \r\n\
         line one\r\nline two\r\n\
         --{BOUNDARY}--\r\n\
         This is the epilogue. It is also to be ignored, and so is this part:\r\n\
         --{BOUNDARY}\r\n\
         Content-Disposition: form-data; name=\"epilogue\"\r\n\
         \r\n\
         not an entry\r\n\
         --{BOUNDARY}--\r\n"
    )
    .into_bytes()
}

/// Serves `/preamble` (the payload above), `/many` (100,000 small parts after a preamble),
/// `/no-delimiter` (a preamble and nothing else) and `/ok` (plain text).
async fn multipart_server() -> Server {
    hyper_server(|request: HyperRequest<Incoming>| async move {
        let body = match request.uri().path() {
            "/preamble" => payload_with_preamble_and_epilogue(),
            "/many" => {
                let mut body = b"preamble\r\n".to_vec();
                for i in 0..100_000 {
                    body.extend_from_slice(
                        format!(
                            "--{BOUNDARY}\r\nContent-Disposition: form-data; name=\"n\"\r\n\r\n{i}\r\n"
                        )
                        .as_bytes(),
                    );
                }
                body.extend_from_slice(format!("--{BOUNDARY}--\r\nepilogue").as_bytes());
                body
            }
            "/no-delimiter" => format!("only a preamble that says --{BOUNDARY}--").into_bytes(),
            _ => {
                return HyperResponse::builder()
                    .header("content-type", "text/plain")
                    .body(full("ok"))
                    .unwrap();
            }
        };
        HyperResponse::builder()
            .header(
                "content-type",
                format!("multipart/form-data; boundary=\"{BOUNDARY}\""),
            )
            .body::<ServerBody>(full(body))
            .unwrap()
    })
    .await
}

#[tokio::test]
async fn form_data_ignores_a_preamble_and_an_epilogue() {
    tokio::time::timeout(TIME_LIMIT, async {
        let server = multipart_server().await;
        let client = Client::builder().build().unwrap();
        let mut response = client
            .fetch(server.url("/preamble"), RequestInit::default())
            .await
            .unwrap();
        let form = response.form_data().await.unwrap();
        let names: Vec<&str> = form.keys().collect();
        assert_eq!(names, ["text", "file"]);
        assert_eq!(
            form.get("text").and_then(FormDataEntryValue::as_str),
            Some("hello")
        );
        let file = form
            .get("file")
            .and_then(FormDataEntryValue::as_file)
            .unwrap();
        assert_eq!((file.name(), file.r#type()), ("a.txt", "text/plain"));
        assert_eq!(file.text(), "line one\r\nline two");
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn form_data_reads_100_000_parts_after_a_preamble() {
    tokio::time::timeout(TIME_LIMIT, async {
        let server = multipart_server().await;
        let client = Client::builder().build().unwrap();
        let mut response = client
            .fetch(server.url("/many"), RequestInit::default())
            .await
            .unwrap();
        let form = response.form_data().await.unwrap();
        assert_eq!(form.len(), 100_000);
        let values = form.get_all("n");
        assert_eq!(values.first().and_then(|v| v.as_str()), Some("0"));
        assert_eq!(values.last().and_then(|v| v.as_str()), Some("99999"));
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_preamble_without_a_delimiter_line_is_still_a_type_error() {
    tokio::time::timeout(TIME_LIMIT, async {
        let server = multipart_server().await;
        let client = Client::builder().build().unwrap();
        let mut response = client
            .fetch(server.url("/no-delimiter"), RequestInit::default())
            .await
            .unwrap();
        let error = response.form_data().await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await
    .unwrap();
}
