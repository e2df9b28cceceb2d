//! Content decoding over real responses and over hand-made bodies.

mod net_support;

use bytes::Bytes;
use futures_util::StreamExt;
use net_support::*;
use std::time::Duration;
use tokio::io::AsyncWriteExt;
use whatwg_fetch::net::{
    ContentCoding, HyperTransport, RequestBody, ResponseBody, SendOptions, Transport, decode,
};
use whatwg_fetch::{Client, NetworkError, RequestInit};

const TEXT: &str = "The quick brown fox jumps over the lazy dog. \
                    The quick brown fox jumps over the lazy dog.";

async fn encode(coding: &str, data: &[u8]) -> Vec<u8> {
    use async_compression::tokio::write::{
        BrotliEncoder, DeflateEncoder, GzipEncoder, ZlibEncoder, ZstdEncoder,
    };
    async fn run<W: tokio::io::AsyncWrite + Unpin>(mut w: W, data: &[u8]) -> W {
        w.write_all(data).await.unwrap();
        w.shutdown().await.unwrap();
        w
    }
    match coding {
        "gzip" => run(GzipEncoder::new(Vec::new()), data).await.into_inner(),
        "deflate" => run(ZlibEncoder::new(Vec::new()), data).await.into_inner(),
        "raw-deflate" => run(DeflateEncoder::new(Vec::new()), data)
            .await
            .into_inner(),
        "br" => run(BrotliEncoder::new(Vec::new()), data).await.into_inner(),
        "zstd" => run(ZstdEncoder::new(Vec::new()), data).await.into_inner(),
        other => panic!("no encoder for {other}"),
    }
}

/// A server answering `/<coding>` with TEXT encoded that way and the given header.
async fn coding_server() -> Server {
    hyper_server(|req| async move {
        let path = req.uri().path().trim_start_matches('/').to_owned();
        let (header, body): (&str, Vec<u8>) = match path.as_str() {
            "gzip" => ("gzip", encode("gzip", TEXT.as_bytes()).await),
            "x-gzip" => ("x-gzip", encode("gzip", TEXT.as_bytes()).await),
            "deflate" => ("deflate", encode("deflate", TEXT.as_bytes()).await),
            "raw-deflate" => ("deflate", encode("raw-deflate", TEXT.as_bytes()).await),
            "br" => ("br", encode("br", TEXT.as_bytes()).await),
            "zstd" => ("zstd", encode("zstd", TEXT.as_bytes()).await),
            "gzip-br" => {
                let gzipped = encode("gzip", TEXT.as_bytes()).await;
                ("gzip, br", encode("br", &gzipped).await)
            }
            "deflate-zstd-gzip" => {
                let a = encode("deflate", TEXT.as_bytes()).await;
                let b = encode("zstd", &a).await;
                ("deflate, zstd, gzip", encode("gzip", &b).await)
            }
            "corrupt-gzip" => {
                let mut body = encode("gzip", TEXT.as_bytes()).await;
                let middle = body.len() / 2;
                for byte in &mut body[10..middle] {
                    *byte ^= 0x55;
                }
                ("gzip", body)
            }
            "unknown" => ("compress", b"as sent".to_vec()),
            "empty-gzip" => ("gzip", Vec::new()),
            _ => ("identity", TEXT.as_bytes().to_vec()),
        };
        let mut response = http::Response::new(full(body));
        response.headers_mut().insert(
            "content-encoding",
            http::HeaderValue::from_str(header).unwrap(),
        );
        response
    })
    .await
}

async fn fetch_decoded(
    transport: &HyperTransport,
    server: &Server,
    path: &str,
) -> Result<Bytes, NetworkError> {
    let response = transport
        .send(
            get(&server.url(path)),
            SendOptions::new().with_decode_content(true),
        )
        .await
        .unwrap();
    read_all(response.into_body()).await
}

#[tokio::test]
async fn every_coding_is_decoded() {
    let server = coding_server().await;
    let transport = HyperTransport::new().unwrap();
    for path in [
        "/gzip",
        "/x-gzip",
        "/deflate",
        "/raw-deflate",
        "/br",
        "/zstd",
        "/identity",
    ] {
        let body = fetch_decoded(&transport, &server, path).await;
        assert_eq!(body.ok().as_deref(), Some(TEXT.as_bytes()), "{path}");
    }
    // Decoded bodies still reach their end, so one connection served them all.
    assert_eq!(server.counts.accepts(), 1);
}

#[tokio::test]
async fn stacked_codings_are_undone_in_reverse_order() {
    let server = coding_server().await;
    let transport = HyperTransport::new().unwrap();
    for path in ["/gzip-br", "/deflate-zstd-gzip"] {
        let body = fetch_decoded(&transport, &server, path).await;
        assert_eq!(body.ok().as_deref(), Some(TEXT.as_bytes()), "{path}");
    }
}

#[tokio::test]
async fn a_corrupt_coding_is_a_decode_error() {
    let server = coding_server().await;
    let transport = HyperTransport::new().unwrap();
    let error = fetch_decoded(&transport, &server, "/corrupt-gzip")
        .await
        .unwrap_err();
    assert!(matches!(error, NetworkError::Decode(_)), "{error:?}");
}

#[tokio::test]
async fn an_unknown_coding_leaves_the_body_as_sent() {
    let server = coding_server().await;
    let transport = HyperTransport::new().unwrap();
    let body = fetch_decoded(&transport, &server, "/unknown")
        .await
        .unwrap();
    assert_eq!(body, "as sent");
}

#[tokio::test]
async fn an_empty_coded_body_stays_empty() {
    let server = coding_server().await;
    let transport = HyperTransport::new().unwrap();
    let body = fetch_decoded(&transport, &server, "/empty-gzip")
        .await
        .unwrap();
    assert!(body.is_empty());
    // A HEAD response names a coding but has no body.
    let request = http::Request::head(server.url("/gzip"))
        .body(RequestBody::empty())
        .unwrap();
    let response = transport
        .send(request, SendOptions::new().with_decode_content(true))
        .await
        .unwrap();
    assert!(read_all(response.into_body()).await.unwrap().is_empty());
}

#[tokio::test]
async fn without_the_option_the_body_comes_as_sent() {
    let server = coding_server().await;
    let transport = HyperTransport::new().unwrap();
    let response = transport
        .send(get(&server.url("/gzip")), SendOptions::new())
        .await
        .unwrap();
    assert_eq!(response.headers()["content-encoding"], "gzip");
    let body = read_all(response.into_body()).await.unwrap();
    assert_eq!(body, encode("gzip", TEXT.as_bytes()).await);
}

/// A body delivered one byte per chunk.
fn trickle(data: Vec<u8>) -> ResponseBody {
    ResponseBody::from_stream(futures_util::stream::iter(
        data.into_iter().map(|b| Ok(Bytes::from(vec![b]))),
    ))
}

#[tokio::test]
async fn decoding_works_one_byte_at_a_time() {
    for (name, coding) in [
        ("gzip", ContentCoding::Gzip),
        ("deflate", ContentCoding::Deflate),
        ("raw-deflate", ContentCoding::Deflate),
        ("br", ContentCoding::Brotli),
        ("zstd", ContentCoding::Zstd),
    ] {
        let encoded = encode(name, TEXT.as_bytes()).await;
        let body = decode(trickle(encoded), &[coding]).unwrap();
        assert_eq!(read_all(body).await.unwrap(), TEXT, "{name}");
    }
}

#[tokio::test]
async fn a_body_error_passes_through_the_decoder_unchanged() {
    let encoded = encode("gzip", TEXT.as_bytes()).await;
    let half = Bytes::from(encoded[..encoded.len() / 2].to_vec());
    let body = ResponseBody::from_stream(futures_util::stream::iter([
        Ok(half),
        Err(NetworkError::LengthMismatch),
    ]));
    let mut decoded = decode(body, &[ContentCoding::Gzip]).unwrap();
    let mut error = None;
    while let Some(item) = decoded.next().await {
        if let Err(e) = item {
            error = Some(e);
            break;
        }
    }
    assert!(
        matches!(error, Some(NetworkError::LengthMismatch)),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_truncated_coding_is_a_decode_error() {
    let encoded = encode("gzip", TEXT.as_bytes()).await;
    let body = ResponseBody::full(encoded[..encoded.len() - 4].to_vec());
    let error = read_all(decode(body, &[ContentCoding::Gzip]).unwrap())
        .await
        .unwrap_err();
    assert!(matches!(error, NetworkError::Decode(_)), "{error:?}");
}

#[tokio::test]
async fn decoding_yields_bytes_before_the_body_is_complete() {
    // The decoder yields the first part before the rest of the body arrives.
    let encoded = encode("gzip", &vec![b'a'; 200_000]).await;
    let split = encoded.len() / 2;
    let (first, rest) = (encoded[..split].to_vec(), encoded[split..].to_vec());
    let (go_tx, go_rx) = tokio::sync::oneshot::channel::<()>();
    let go_rx = std::sync::Mutex::new(Some(go_rx));
    let total = encoded.len();
    let server = raw_server(move |mut stream| {
        let first = first.clone();
        let rest = rest.clone();
        let go = go_rx.lock().unwrap().take();
        async move {
            let _ = read_head(&mut stream).await;
            let head = format!(
                "HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: {total}\r\n\r\n"
            );
            stream.write_all(head.as_bytes()).await.unwrap();
            stream.write_all(&first).await.unwrap();
            if let Some(go) = go {
                let _ = go.await;
            }
            let _ = stream.write_all(&rest).await;
        }
    })
    .await;
    let transport = HyperTransport::new().unwrap();
    let response = transport
        .send(
            get(&server.url("/")),
            SendOptions::new().with_decode_content(true),
        )
        .await
        .unwrap();
    let mut body = response.into_body();
    let first_chunk = body.next().await.unwrap().unwrap();
    assert!(first_chunk.iter().all(|&b| b == b'a'));
    go_tx.send(()).unwrap();
    let mut len = first_chunk.len();
    while let Some(chunk) = body.next().await {
        len += chunk.unwrap().len();
    }
    assert_eq!(len, 200_000);
}

/// `data` in a zstd frame whose window is 2^`window_log` bytes.
async fn zstd_with_window(window_log: u32, data: &[u8]) -> Vec<u8> {
    use async_compression::tokio::write::ZstdEncoder;
    let params = [async_compression::zstd::CParameter::window_log(window_log)];
    let mut encoder = ZstdEncoder::with_quality_and_params(
        Vec::new(),
        async_compression::Level::Default,
        &params,
    );
    encoder.write_all(data).await.unwrap();
    encoder.shutdown().await.unwrap();
    encoder.into_inner()
}

#[tokio::test]
async fn a_zstd_window_over_8_mib_is_refused_and_8_mib_is_accepted() {
    // RFC 9659: a zstd content coding's window is at most 8 MiB.
    let data = vec![b'z'; 64 * 1024];
    let accepted = zstd_with_window(23, &data).await;
    let body = decode(ResponseBody::full(accepted), &[ContentCoding::Zstd]).unwrap();
    assert_eq!(read_all(body).await.unwrap().len(), data.len());

    let refused = zstd_with_window(27, &data).await;
    let body = decode(ResponseBody::full(refused), &[ContentCoding::Zstd]).unwrap();
    let error = read_all(body).await.unwrap_err();
    assert!(matches!(error, NetworkError::Decode(_)), "{error:?}");
}

/// A server answering every request on a connection, one after another: `/coded` with
/// `Content-Encoding: <coding>` and `body` in one chunk of a chunked message whose last
/// chunk comes `delay` later, anything else with "ok".
async fn chunked_coded_server(coding: &'static str, body: Vec<u8>, delay: Duration) -> Server {
    raw_server(move |mut stream| {
        let body = body.clone();
        async move {
            while let Some(head) = read_head(&mut stream).await {
                let (coded, body) = if head.starts_with("GET /coded ") {
                    (true, body.clone())
                } else {
                    (false, b"ok".to_vec())
                };
                let mut message = String::from("HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n");
                if coded {
                    message.push_str(&format!("content-encoding: {coding}\r\n"));
                }
                message.push_str(&format!("\r\n{:x}\r\n", body.len()));
                let mut bytes = message.into_bytes();
                bytes.extend_from_slice(&body);
                bytes.extend_from_slice(b"\r\n");
                if stream.write_all(&bytes).await.is_err() {
                    return;
                }
                if coded {
                    tokio::time::sleep(delay).await;
                }
                if stream.write_all(b"0\r\n\r\n").await.is_err() {
                    return;
                }
            }
        }
    })
    .await
}

/// The text of `url` fetched with `client`, or its error.
async fn text(client: &Client, url: &str) -> Result<String, whatwg_fetch::Error> {
    let mut response = client.fetch(url, RequestInit::default()).await?;
    response.text().await
}

#[tokio::test]
async fn every_zstd_frame_and_gzip_member_of_a_response_is_decoded() {
    for coding in ["zstd", "gzip"] {
        let mut body = encode(coding, b"some mes").await;
        body.extend(encode(coding, b"sage").await);
        let server = chunked_coded_server(coding, body, Duration::ZERO).await;
        let client = Client::builder().build().unwrap();
        let text = text(&client, &server.url("/coded")).await.unwrap();
        assert_eq!(text, "some message", "{coding}");
    }
}

#[tokio::test]
async fn a_message_is_read_to_its_end_after_its_coded_data_and_its_connection_kept() {
    for coding in ["gzip", "deflate", "br", "zstd"] {
        let body = encode(coding, TEXT.as_bytes()).await;
        let server = chunked_coded_server(coding, body, Duration::from_millis(300)).await;
        let client = Client::builder().build().unwrap();
        assert_eq!(text(&client, &server.url("/coded")).await.unwrap(), TEXT);
        assert_eq!(text(&client, &server.url("/next")).await.unwrap(), "ok");
        assert_eq!(
            server.counts.accepts(),
            1,
            "{coding}: the connection was not kept"
        );
    }
}

#[tokio::test]
async fn bytes_after_the_coded_data_in_a_message_are_a_decode_error() {
    for coding in ["gzip", "deflate", "br", "zstd"] {
        let mut body = encode(coding, TEXT.as_bytes()).await;
        body.extend_from_slice(b"\n<!-- appended -->\n");
        let server = chunked_coded_server(coding, body, Duration::ZERO).await;
        let client = Client::builder().build().unwrap();
        let error = text(&client, &server.url("/coded")).await.unwrap_err();
        assert!(
            matches!(error.network_error(), Some(NetworkError::Decode(_))),
            "{coding}: {error:?}"
        );
        // The message was read to its end all the same: the connection serves the next.
        assert_eq!(text(&client, &server.url("/next")).await.unwrap(), "ok");
    }
}

/// A TLS server on 127.0.0.1 answering `/coded` with `Content-Encoding: gzip` and
/// `body`, anything else with "plain", each in a body delimited by the connection's close,
/// which it then closes without a TLS closure alert (`close_notify`), as Python's
/// `http.server` does.
async fn tls_close_delimited_server(pki: &TestPki, body: Vec<u8>) -> Server {
    let acceptor = pki.acceptor(&[b"http/1.1"]);
    raw_server(move |tcp| {
        let acceptor = acceptor.clone();
        let body = body.clone();
        async move {
            let Ok(mut tls) = acceptor.accept(tcp).await else {
                return;
            };
            let Some(head) = read_head(&mut tls).await else {
                return;
            };
            let mut response = if head.starts_with("GET /coded ") {
                let mut bytes = b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\n\r\n".to_vec();
                bytes.extend_from_slice(&body);
                bytes
            } else {
                b"HTTP/1.1 200 OK\r\n\r\nplain".to_vec()
            };
            let _ = tls.write_all(&response).await;
            let _ = tls.flush().await;
            response.clear();
            // The TCP connection closes under the TLS one: no close_notify.
            let (tcp, _) = tls.into_inner();
            drop(tcp);
        }
    })
    .await
}

#[tokio::test]
async fn a_coded_body_ended_by_a_close_without_a_tls_closure_alert_is_whole() {
    let pki = TestPki::new(&["localhost"]);
    let server = tls_close_delimited_server(&pki, encode("gzip", TEXT.as_bytes()).await).await;
    let client = Client::builder()
        .add_root_certificates_pem(pki.ca_pem.clone())
        .resolve("localhost", server.addr)
        .build()
        .unwrap();
    let url = |path: &str| format!("https://localhost:{}{path}", server.addr.port());
    // The coding delimits the body: the missing alert could only confirm its end.
    assert_eq!(text(&client, &url("/coded")).await.unwrap(), TEXT);
    // Without a coding, nothing says where the body ends but the close, and a close
    // without the alert may be a cut (RFC 9112 §9.8): an error that says so.
    let error = text(&client, &url("/plain")).await.unwrap_err();
    assert!(
        format!("{error:#}").contains("without a TLS closure alert"),
        "{error:#}"
    );
}

#[tokio::test]
async fn a_coded_body_cut_by_a_close_without_a_tls_closure_alert_is_an_error() {
    let pki = TestPki::new(&["localhost"]);
    let encoded = encode("gzip", TEXT.as_bytes()).await;
    let cut = encoded[..encoded.len() - 5].to_vec();
    let server = tls_close_delimited_server(&pki, cut).await;
    let client = Client::builder()
        .add_root_certificates_pem(pki.ca_pem.clone())
        .resolve("localhost", server.addr)
        .build()
        .unwrap();
    let url = format!("https://localhost:{}/coded", server.addr.port());
    let error = text(&client, &url).await.unwrap_err();
    assert!(error.network_error().is_some(), "{error:#}");
}
