//! Every byte in a header value, as Fetch defines one: through `Headers`, and on the
//! HTTP/1.1 wire both ways (a request's value reaches the server as it is, and the value a
//! server answers with reaches the response's headers as it is).
//!
//! A [header value](https://fetch.spec.whatwg.org/#header-value) holds no NUL, CR or LF
//! and no leading or trailing HTTP whitespace; every other byte, the control bytes
//! `http::HeaderValue` refuses among them (0x01–0x08, 0x0B, 0x0C, 0x0E–0x1F, 0x7F), is one
//! browsers send and read.

use std::net::SocketAddr;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use whatwg_fetch::{Client, ErrorKind, Headers, RequestInit};

/// Whether Fetch lets `byte` be inside a header value.
fn allowed(byte: u8) -> bool {
    !matches!(byte, b'\0' | b'\r' | b'\n')
}

#[test]
fn every_byte_inside_a_value_is_kept_by_headers_but_nul_cr_and_lf() {
    for byte in 0..=u8::MAX {
        let value = [b'a', byte, b'b'];
        let mut headers = Headers::new();
        let appended = headers.append("x-v", value);
        let mut set = Headers::new();
        let was_set = set.set("x-v", value);
        let init = Headers::from_init(vec![("x-v", value.to_vec())]);
        if allowed(byte) {
            appended.unwrap();
            was_set.unwrap();
            for headers in [&headers, &set, &init.unwrap()] {
                assert_eq!(
                    headers.get_bytes("x-v").unwrap().as_deref(),
                    Some(&value[..]),
                    "byte {byte:#04x}"
                );
            }
        } else {
            for result in [appended, was_set, init.map(|_| ())] {
                let error = result.expect_err(&format!("byte {byte:#04x} was taken"));
                assert_eq!(error.kind(), ErrorKind::TypeError, "byte {byte:#04x}");
            }
        }
    }
}

#[test]
fn a_value_alone_is_normalized_by_trimming_http_whitespace_only() {
    for byte in 0..=u8::MAX {
        let mut headers = Headers::new();
        let appended = headers.append("x-v", [byte]);
        match byte {
            // NUL is no header value; tab, LF, CR and space are trimmed away.
            b'\0' => assert!(appended.is_err()),
            b'\t' | b'\n' | b'\r' | b' ' => {
                appended.unwrap();
                assert_eq!(headers.get_bytes("x-v").unwrap().as_deref(), Some(&b""[..]));
            }
            _ => {
                appended.unwrap();
                assert_eq!(
                    headers.get_bytes("x-v").unwrap().as_deref(),
                    Some(&[byte][..]),
                    "byte {byte:#04x}"
                );
            }
        }
    }
}

/// A server that, for each request on each connection, answers with the request's
/// `x-v` value(s) as they came on the wire, each as an `x-echo` field, and the request's
/// head as the body.
async fn echo_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        loop {
            let Ok((mut stream, _)) = listener.accept().await else {
                return;
            };
            tokio::spawn(async move {
                let mut read = Vec::new();
                loop {
                    let Some(end) = read.windows(4).position(|w| w == b"\r\n\r\n") else {
                        let mut chunk = [0; 4096];
                        match stream.read(&mut chunk).await {
                            Ok(0) | Err(_) => return,
                            Ok(n) => read.extend_from_slice(&chunk[..n]),
                        }
                        continue;
                    };
                    let head: Vec<u8> = read.drain(..end + 4).collect();
                    let mut response = b"HTTP/1.1 200 OK\r\n".to_vec();
                    for line in head.split(|&b| b == b'\n') {
                        let line = line.strip_suffix(b"\r").unwrap_or(line);
                        if let Some(value) = line.strip_prefix(b"x-v: ") {
                            response.extend_from_slice(b"x-echo: ");
                            response.extend_from_slice(value);
                            response.extend_from_slice(b"\r\n");
                        }
                    }
                    response.extend_from_slice(
                        format!("content-length: {}\r\n\r\n", head.len()).as_bytes(),
                    );
                    response.extend_from_slice(&head);
                    if stream.write_all(&response).await.is_err() {
                        return;
                    }
                }
            });
        }
    });
    addr
}

fn client() -> Client {
    Client::builder()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

#[tokio::test]
async fn every_byte_fetch_allows_crosses_the_http1_wire_as_it_is_both_ways() {
    let addr = echo_server().await;
    let client = client();
    for byte in (0..=u8::MAX).filter(|&byte| allowed(byte)) {
        let value = vec![b'a', byte, b'b'];
        let init = RequestInit {
            headers: Some(vec![("x-v", value.clone())].into()),
            ..RequestInit::default()
        };
        let mut response = client
            .fetch(format!("http://{addr}/"), init)
            .await
            .unwrap_or_else(|error| panic!("byte {byte:#04x}: {error:?}"));
        let sent = response.bytes().await.unwrap();
        let line = [&b"\r\nx-v: "[..], &value, b"\r\n"].concat();
        assert!(
            sent.windows(line.len()).any(|w| w == line),
            "byte {byte:#04x}: the server read {:?}",
            String::from_utf8_lossy(&sent)
        );
        assert_eq!(
            response.headers().get_bytes("x-echo").unwrap().as_deref(),
            Some(&value[..]),
            "byte {byte:#04x}"
        );
    }
}

#[tokio::test]
async fn nul_cr_and_lf_fail_the_fetch_before_anything_is_sent() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let client = client();
    for byte in [b'\0', b'\r', b'\n'] {
        let init = RequestInit {
            headers: Some(vec![("x-v", vec![b'a', byte, b'b'])].into()),
            ..RequestInit::default()
        };
        let error = client
            .fetch(format!("http://{addr}/"), init)
            .await
            .expect_err("a value with NUL, CR or LF was sent");
        assert_eq!(error.kind(), ErrorKind::TypeError, "byte {byte:#04x}");
    }
    let accepted = tokio::time::timeout(Duration::from_millis(100), listener.accept()).await;
    assert!(accepted.is_err(), "a connection was made");
}

#[tokio::test]
async fn the_fields_of_a_name_keep_their_order_when_one_holds_a_control_byte() {
    let addr = echo_server().await;
    let init = RequestInit {
        headers: Some(
            vec![
                ("x-v", b"1".to_vec()),
                ("x-other", b"plain".to_vec()),
                ("X-V", b"2\x01".to_vec()),
                ("x-v", b"3".to_vec()),
            ]
            .into(),
        ),
        ..RequestInit::default()
    };
    let mut response = client()
        .fetch(format!("http://{addr}/"), init)
        .await
        .unwrap();
    let sent = response.bytes().await.unwrap();
    let text = String::from_utf8_lossy(&sent);
    // The three fields of `x-v` go in their order, as raw fields after the others.
    assert!(text.contains("x-other: plain\r\n"), "{text:?}");
    assert!(
        text.contains("\r\nx-v: 1\r\nx-v: 2\u{1}\r\nx-v: 3\r\n"),
        "{text:?}"
    );
    assert_eq!(
        response.headers().get_bytes("x-echo").unwrap().as_deref(),
        Some(&b"1, 2\x01, 3"[..]),
        "{text:?}"
    );
}

/// A server answering every request with `head`, then closing.
async fn answering(head: &'static [u8]) -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            let mut buf = [0; 4096];
            let _ = stream.read(&mut buf).await;
            let _ = stream.write_all(head).await;
            let _ = stream.shutdown().await;
        }
    });
    addr
}

#[tokio::test]
async fn a_response_keeps_the_order_of_a_names_fields_and_refuses_nul() {
    let addr = answering(
        b"HTTP/1.1 200 OK\r\nx-a: 1\r\nx-b: plain\r\nx-a: 2\x7f\r\nx-a: 3\r\ncontent-length: 0\r\n\r\n",
    )
    .await;
    let response = client()
        .fetch(format!("http://{addr}/"), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(
        response.headers().get_bytes("x-a").unwrap().as_deref(),
        Some(&b"1, 2\x7f, 3"[..])
    );
    assert_eq!(
        response.headers().get("x-b").unwrap().as_deref(),
        Some("plain")
    );

    let addr = answering(b"HTTP/1.1 200 OK\r\nx-a: 1\x00\r\ncontent-length: 0\r\n\r\n").await;
    let error = client()
        .fetch(format!("http://{addr}/"), RequestInit::default())
        .await
        .expect_err("a response header with NUL was taken");
    assert_eq!(error.kind(), ErrorKind::TypeError);
}

#[tokio::test]
async fn a_control_byte_in_a_field_the_response_is_framed_by_fails_it() {
    for head in [
        &b"HTTP/1.1 200 OK\r\ncontent-length: 2\x01\r\n\r\nok"[..],
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\x01\r\n\r\n2\r\nok\r\n0\r\n\r\n",
        b"HTTP/1.1 200 OK\r\nconnection: close\x01\r\ncontent-length: 2\r\n\r\nok",
    ] {
        let addr = answering(head).await;
        let error = client()
            .fetch(format!("http://{addr}/"), RequestInit::default())
            .await
            .expect_err("a framing field with a control byte was taken");
        assert_eq!(error.kind(), ErrorKind::TypeError, "{head:?}");
    }
}

mod net_support;

/// An HTTPS server on 127.0.0.1 offering `h2` then `http/1.1` by ALPN: over HTTP/2 it
/// answers "h2"; over HTTP/1.1 (read by hand, as hyper's server refuses a control byte in
/// a value) it answers with the request's head.
async fn h2_and_http1_server(pki: &net_support::TestPki) -> SocketAddr {
    use hyper_util::rt::{TokioExecutor, TokioIo};
    let acceptor = pki.acceptor(&[b"h2", b"http/1.1"]);
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let acceptor = acceptor.clone();
            tokio::spawn(async move {
                let Ok(mut tls) = acceptor.accept(tcp).await else {
                    return;
                };
                if tls.get_ref().1.alpn_protocol() == Some(b"h2".as_slice()) {
                    let service = hyper::service::service_fn(|_request| async {
                        Ok::<_, std::convert::Infallible>(http::Response::new(
                            http_body_util::Full::new(bytes::Bytes::from_static(b"h2")),
                        ))
                    });
                    let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                        .serve_connection(TokioIo::new(tls), service)
                        .await;
                    return;
                }
                let mut head = Vec::new();
                while !head.ends_with(b"\r\n\r\n") {
                    let mut byte = [0; 1];
                    if tls.read_exact(&mut byte).await.is_err() {
                        return;
                    }
                    head.push(byte[0]);
                }
                let mut response =
                    format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n", head.len())
                        .into_bytes();
                response.extend_from_slice(&head);
                let _ = tls.write_all(&response).await;
                let _ = tls.flush().await;
            });
        }
    });
    addr
}

#[tokio::test]
async fn a_request_holding_a_control_byte_goes_over_http1_where_alpn_would_pick_http2() {
    let pki = net_support::TestPki::new(&["localhost"]);
    let addr = h2_and_http1_server(&pki).await;
    let client = Client::builder()
        .add_root_certificate_der(pki.ca_der.clone())
        .resolve("localhost", addr)
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/", addr.port());
    let plain = client
        .fetch(url.as_str(), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(plain.version(), http::Version::HTTP_2);
    let init = RequestInit {
        headers: Some(vec![("x-v", b"a\x01b".to_vec())].into()),
        ..RequestInit::default()
    };
    let mut raw = client.fetch(url.as_str(), init).await.unwrap();
    assert_eq!(raw.version(), http::Version::HTTP_11);
    let head = raw.bytes().await.unwrap();
    assert!(
        head.windows(11).any(|w| w == b"\nx-v: a\x01b\r\n"),
        "{:?}",
        String::from_utf8_lossy(&head)
    );
    // The origin's HTTP/2 connection is still the one plain requests take.
    let mut again = client
        .fetch(url.as_str(), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(again.version(), http::Version::HTTP_2);
    assert_eq!(again.text().await.unwrap(), "h2");
}

#[tokio::test]
async fn raw_fields_on_a_request_held_to_http2_or_to_a_framing_name_are_refused() {
    use whatwg_fetch::net::{HyperTransport, RawFields, RequestBody, SendOptions, Transport};
    let addr = echo_server().await;
    let transport = HyperTransport::builder().build().unwrap();
    let request = |name: &'static str| {
        let mut fields = RawFields::new();
        fields
            .push(http::HeaderName::from_static(name), "a\u{1}b".into())
            .unwrap();
        let mut request = http::Request::get(format!("http://{addr}/"))
            .body(RequestBody::empty())
            .unwrap();
        request.extensions_mut().insert(fields);
        request
    };
    let error = transport
        .send(
            request("x-v"),
            SendOptions::new().with_version(Some(http::Version::HTTP_2)),
        )
        .await
        .expect_err("raw fields went over HTTP/2");
    assert!(
        error.to_string().contains("holds a control byte"),
        "{error}"
    );
    for name in ["content-length", "transfer-encoding", "host", "connection"] {
        let error = transport
            .send(request(name), SendOptions::new())
            .await
            .expect_err("a framing field went raw");
        assert!(error.to_string().contains(name), "{error}");
    }
    // And a transport's own user gets them written as they are.
    let response = transport
        .send(request("x-v"), SendOptions::new())
        .await
        .unwrap();
    // Every field of the name is a raw one, none in the map.
    assert!(!response.headers().contains_key("x-echo"));
    let raw = response
        .extensions()
        .get::<RawFields>()
        .expect("the echo's raw field");
    let echoed: Vec<_> = raw
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_ref()))
        .collect();
    assert_eq!(echoed, [("x-echo", &b"a\x01b"[..])]);
}
