//! Request framing headers set by the caller.
//!
//! A server-side request may set `Content-Length`, `Transfer-Encoding` and `Host` (they
//! are forbidden request-headers only in a browser-like environment). A `Content-Length`
//! that disagrees with the body, a `Transfer-Encoding`, or two `Host` headers would leave
//! the server reading a message out of step with what is sent: such a request is refused
//! with a `TypeError` before anything is sent, as undici refuses it. A stream body under
//! a `Content-Length` is held to it: a stream that ends early or runs long fails the
//! request, and the server never reads a complete message from it.

use crate::{bounded, next_request_works};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use whatwg_fetch::{
    Body, BodyInit, Client, ErrorKind, HeadersInit, NetworkError, RequestDuplex, RequestInit,
};

use crate::net_support::{Server, raw_server, read_head};

/// What a recording server read on its connections.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Seen {
    /// A request with its head and a body read to its declared end.
    Request { head: String, body: Vec<u8> },
    /// A request whose connection ended before its declared body did.
    Incomplete { head: String, body: Vec<u8> },
    /// A connection that ended with no request, or none after the last one.
    Closed,
}

/// A server that records every request it reads and answers each complete one with "ok".
async fn recording_server() -> (Server, Arc<Mutex<Vec<Seen>>>) {
    let seen: Arc<Mutex<Vec<Seen>>> = Arc::default();
    let server = {
        let seen = Arc::clone(&seen);
        raw_server(move |mut stream| {
            let seen = Arc::clone(&seen);
            async move {
                while let Some(head) = read_head(&mut stream).await {
                    let length = head
                        .to_ascii_lowercase()
                        .lines()
                        .find_map(|line| line.strip_prefix("content-length:"))
                        .and_then(|value| value.trim().parse::<usize>().ok())
                        .unwrap_or(0);
                    let mut body = Vec::new();
                    let complete = (&mut stream)
                        .take(length as u64)
                        .read_to_end(&mut body)
                        .await
                        .is_ok()
                        && body.len() == length;
                    if !complete {
                        seen.lock().unwrap().push(Seen::Incomplete { head, body });
                        return;
                    }
                    seen.lock().unwrap().push(Seen::Request { head, body });
                    let answer = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";
                    if stream.write_all(answer).await.is_err() {
                        return;
                    }
                }
                seen.lock().unwrap().push(Seen::Closed);
            }
        })
        .await
    };
    (server, seen)
}

fn with_headers(method: &str, headers: &[(&str, &str)], body: Option<BodyInit>) -> RequestInit {
    RequestInit {
        method: Some(method.into()),
        headers: Some(HeadersInit::Record(
            headers
                .iter()
                .map(|(name, value)| (name.as_bytes().to_vec(), value.as_bytes().to_vec()))
                .collect(),
        )),
        body,
        ..Default::default()
    }
}

/// A stream body of `chunks`; with `paced`, the stream is pending for a moment before each
/// chunk after the first and before its end, so what came before goes out first.
fn stream_body(chunks: &[&'static str], paced: bool) -> Option<BodyInit> {
    use futures_util::StreamExt;
    let chunks: Vec<Option<&'static str>> = chunks
        .iter()
        .copied()
        .map(Some)
        .chain(std::iter::once(None))
        .collect();
    let stream = futures_util::stream::iter(chunks.into_iter().enumerate())
        .then(move |(index, chunk)| async move {
            if paced && index > 0 {
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            chunk
        })
        .take_while(|chunk| std::future::ready(chunk.is_some()))
        .map(|chunk| {
            Ok::<_, std::io::Error>(Bytes::from_static(chunk.unwrap_or_default().as_bytes()))
        });
    Some(BodyInit::from(Body::from_stream(stream)))
}

fn assert_refused(error: &whatwg_fetch::Error) {
    assert_eq!(error.kind(), ErrorKind::TypeError, "{error:?}");
    assert!(
        matches!(error.network_error(), Some(NetworkError::InvalidRequest(_))),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_content_length_that_disagrees_with_the_body_is_refused_before_sending() {
    let (server, seen) = recording_server().await;
    let client = Client::builder().build().unwrap();
    bounded(async {
        // A GET without a body that claims 20 bytes would hang on a waiting server.
        let get = with_headers("GET", &[("Content-Length", "20")], None);
        let error = client.fetch(server.url("/"), get).await.unwrap_err();
        assert_refused(&error);
        let post = with_headers("POST", &[("Content-Length", "5")], Some("abc".into()));
        let error = client.fetch(server.url("/"), post).await.unwrap_err();
        assert_refused(&error);
        let garbage = with_headers("POST", &[("Content-Length", "3, 4")], Some("abc".into()));
        let error = client.fetch(server.url("/"), garbage).await.unwrap_err();
        assert_refused(&error);
        assert_eq!(server.counts.accepts(), 0, "nothing was sent");
        assert!(seen.lock().unwrap().is_empty());
        next_request_works(&client, &server.url("/next")).await;
    })
    .await;
}

#[tokio::test]
async fn a_content_length_equal_to_the_body_is_sent_once() {
    let (server, seen) = recording_server().await;
    let client = Client::builder().build().unwrap();
    bounded(async {
        let post = with_headers("POST", &[("Content-Length", "3")], Some("abc".into()));
        let mut response = client.fetch(server.url("/"), post).await.unwrap();
        assert_eq!(response.text().await.unwrap(), "ok");
        let seen = seen.lock().unwrap().clone();
        let [Seen::Request { head, body }] = seen.as_slice() else {
            panic!("{seen:?}");
        };
        let lower = head.to_ascii_lowercase();
        assert_eq!(lower.matches("content-length:").count(), 1, "{head}");
        assert!(lower.contains("content-length: 3\r\n"), "{head}");
        assert!(!lower.contains("transfer-encoding"), "{head}");
        assert_eq!(body, b"abc");
    })
    .await;
}

#[tokio::test]
async fn a_transfer_encoding_from_the_caller_is_refused_before_sending() {
    let (server, seen) = recording_server().await;
    let client = Client::builder().build().unwrap();
    bounded(async {
        let chunked = with_headers(
            "POST",
            &[("Transfer-Encoding", "chunked")],
            Some("abc".into()),
        );
        let error = client.fetch(server.url("/"), chunked).await.unwrap_err();
        assert_refused(&error);
        let gzip = with_headers("POST", &[("Transfer-Encoding", "gzip")], Some("abc".into()));
        let error = client.fetch(server.url("/"), gzip).await.unwrap_err();
        assert_refused(&error);
        assert_eq!(server.counts.accepts(), 0, "nothing was sent");
        assert!(seen.lock().unwrap().is_empty());
        next_request_works(&client, &server.url("/next")).await;
    })
    .await;
}

#[tokio::test]
async fn two_host_headers_are_refused_before_sending() {
    let (server, seen) = recording_server().await;
    let client = Client::builder().build().unwrap();
    bounded(async {
        let hosts = with_headers("GET", &[("Host", "a.test"), ("Host", "b.test")], None);
        let error = client.fetch(server.url("/"), hosts).await.unwrap_err();
        assert_refused(&error);
        assert_eq!(server.counts.accepts(), 0, "nothing was sent");
        assert!(seen.lock().unwrap().is_empty());
        // One `Host` of the caller's own goes out as it is.
        let host = with_headers("GET", &[("Host", "a.test")], None);
        let mut response = client.fetch(server.url("/"), host).await.unwrap();
        assert_eq!(response.text().await.unwrap(), "ok");
        let seen = seen.lock().unwrap().clone();
        let [Seen::Request { head, .. }] = seen.as_slice() else {
            panic!("{seen:?}");
        };
        assert!(
            head.to_ascii_lowercase().contains("host: a.test\r\n"),
            "{head}"
        );
        assert_eq!(
            head.to_ascii_lowercase().matches("host:").count(),
            1,
            "{head}"
        );
    })
    .await;
}

/// Whether the server never read a complete request, and what it read of one stopped
/// short of its declared length.
fn never_complete(seen: &[Seen]) -> bool {
    seen.iter().all(|seen| match seen {
        Seen::Request { .. } => false,
        Seen::Incomplete { head, .. } => head.to_ascii_lowercase().contains("content-length:"),
        Seen::Closed => true,
    })
}

fn put_stream(length: &str, chunks: &[&'static str], paced: bool) -> RequestInit {
    RequestInit {
        duplex: Some(RequestDuplex::Half),
        ..with_headers(
            "PUT",
            &[("Content-Length", length)],
            stream_body(chunks, paced),
        )
    }
}

#[tokio::test]
async fn a_stream_body_of_its_declared_length_is_sent_with_it() {
    let (server, seen) = recording_server().await;
    let client = Client::builder().build().unwrap();
    bounded(async {
        let put = put_stream("5", &["ab", "c", "de"], true);
        let mut response = client.fetch(server.url("/"), put).await.unwrap();
        assert_eq!(response.text().await.unwrap(), "ok");
        let seen = seen.lock().unwrap().clone();
        let [Seen::Request { head, body }] = seen.as_slice() else {
            panic!("{seen:?}");
        };
        let lower = head.to_ascii_lowercase();
        assert!(lower.contains("content-length: 5\r\n"), "{head}");
        assert!(!lower.contains("transfer-encoding"), "{head}");
        assert_eq!(body, b"abcde");
    })
    .await;
}

#[tokio::test]
async fn a_stream_body_shorter_than_its_content_length_fails_and_is_never_complete() {
    let (server, seen) = recording_server().await;
    let client = Client::builder().build().unwrap();
    bounded(async {
        // Three bytes go out, then the stream ends: the connection closes under the
        // server, which never reads a whole request.
        let put = put_stream("5", &["abc"], true);
        let error = client.fetch(server.url("/"), put).await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError, "{error:?}");
        assert!(
            matches!(error.network_error(), Some(NetworkError::Protocol(_))),
            "{error:?}"
        );
        // A stream that ends at once: hyper gives up before it writes anything.
        let put = put_stream("5", &["abc"], false);
        let error = client.fetch(server.url("/"), put).await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError, "{error:?}");
        assert!(
            crate::net_support::eventually(|| seen.lock().unwrap().len() == 2).await,
            "both connections closed"
        );
        let seen = seen.lock().unwrap().clone();
        assert!(never_complete(&seen), "{seen:?}");
        assert!(
            seen.iter()
                .any(|seen| matches!(seen, Seen::Incomplete { body, .. } if body == b"abc")),
            "{seen:?}"
        );
        next_request_works(&client, &server.url("/next")).await;
    })
    .await;
}

#[tokio::test]
async fn a_stream_body_longer_than_its_content_length_fails_and_is_never_complete() {
    let (server, seen) = recording_server().await;
    let client = Client::builder().build().unwrap();
    bounded(async {
        // The first three bytes make up the declared length; more follow. The three are
        // held back until the stream shows whether it ends there, so the server reads
        // the head and then the connection's end. (Left to itself, hyper would send the
        // three and drop the rest without a word.)
        let put = put_stream("3", &["abc", "def"], true);
        let error = client.fetch(server.url("/"), put).await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError, "{error:?}");
        assert!(
            matches!(error.network_error(), Some(NetworkError::Protocol(_))),
            "{error:?}"
        );
        let put = put_stream("2", &["abc"], false);
        let error = client.fetch(server.url("/"), put).await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError, "{error:?}");
        assert!(
            crate::net_support::eventually(|| seen.lock().unwrap().len() == 2).await,
            "both connections closed"
        );
        let seen = seen.lock().unwrap().clone();
        assert!(never_complete(&seen), "{seen:?}");
        assert!(
            seen.iter()
                .any(|seen| matches!(seen, Seen::Incomplete { body, .. } if body.is_empty())),
            "{seen:?}"
        );
        next_request_works(&client, &server.url("/next")).await;
    })
    .await;
}
