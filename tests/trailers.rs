//! Response trailer fields at the network layer: the `ResponseBody`'s last frame, after
//! its data, over HTTP/1.1 (a chunked body, alone or pipelined) and HTTP/2; bounded as a
//! head is.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::BodyExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use whatwg_fetch::NetworkError;
use whatwg_fetch::net::{HyperTransport, RequestBody, SendOptions, Transport};

/// A server that answers every request on a connection with `response`, as it is.
async fn raw_server(response: &'static [u8]) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move {
        while let Ok((mut stream, _)) = listener.accept().await {
            tokio::spawn(async move {
                let mut buf = Vec::new();
                let mut chunk = [0; 4096];
                loop {
                    while let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
                        buf.drain(..end + 4);
                        if stream.write_all(response).await.is_err() {
                            return;
                        }
                    }
                    match stream.read(&mut chunk).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => buf.extend_from_slice(&chunk[..n]),
                    }
                }
            });
        }
    });
    url
}

const CHUNKED_WITH_TRAILERS: &[u8] = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\
Trailer: grpc-status, x-checksum\r\n\r\n\
5\r\nhello\r\n6\r\n world\r\n0\r\ngrpc-status: 0\r\nx-checksum: abc123\r\nx-checksum: def\r\n\r\n";

/// The body's data, and its trailers.
async fn read(
    transport: &HyperTransport,
    url: &str,
) -> Result<(Bytes, Option<http::HeaderMap>), NetworkError> {
    let request = http::Request::get(url).body(RequestBody::empty()).unwrap();
    let response = transport.send(request, SendOptions::new()).await?;
    let collected = response.into_body().collect().await?;
    let trailers = collected.trailers().cloned();
    Ok((collected.to_bytes(), trailers))
}

#[tokio::test]
async fn a_chunked_http1_body_ends_with_its_trailers() {
    let url = raw_server(CHUNKED_WITH_TRAILERS).await;
    let transport = HyperTransport::new().unwrap();
    for _ in 0..2 {
        let (data, trailers) = read(&transport, &url).await.unwrap();
        assert_eq!(data, "hello world");
        let trailers = trailers.expect("no trailers");
        assert_eq!(trailers["grpc-status"], "0");
        let sums: Vec<_> = trailers.get_all("x-checksum").iter().collect();
        assert_eq!(sums, ["abc123", "def"]);
    }
}

#[tokio::test]
async fn a_body_without_trailers_has_none() {
    let url =
        raw_server(b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n")
            .await;
    let transport = HyperTransport::new().unwrap();
    let (data, trailers) = read(&transport, &url).await.unwrap();
    assert_eq!(data, "ok");
    assert!(trailers.is_none());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn pipelined_bodies_end_with_their_trailers() {
    let url = raw_server(CHUNKED_WITH_TRAILERS).await;
    let transport = HyperTransport::builder()
        .http1_pipelining(4)
        .max_connections_per_origin(1)
        .build()
        .unwrap();
    let tasks: Vec<_> = (0..4)
        .map(|_| {
            let (transport, url) = (transport.clone(), url.clone());
            tokio::spawn(async move { read(&transport, &url).await })
        })
        .collect();
    for task in tasks {
        let (data, trailers) = task.await.unwrap().unwrap();
        assert_eq!(data, "hello world");
        assert_eq!(trailers.expect("no trailers")["grpc-status"], "0");
    }
}

#[tokio::test]
async fn trailers_past_the_head_limits_fail_the_body() {
    // 3,000 trailer fields: more than `http1_max_headers` allows.
    let mut response =
        b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n".to_vec();
    for i in 0..3000 {
        response.extend_from_slice(format!("x-t{i}: v\r\n").as_bytes());
    }
    response.extend_from_slice(b"\r\n");
    let url = raw_server(Box::leak(response.into_boxed_slice())).await;
    let transport = HyperTransport::new().unwrap();
    let error = read(&transport, &url).await.unwrap_err();
    assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}");
}

#[tokio::test]
async fn an_http2_body_ends_with_its_trailers() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let mut connection = h2::server::handshake(stream).await.unwrap();
        while let Some(Ok((_request, mut respond))) = connection.accept().await {
            tokio::spawn(async move {
                let head = http::Response::builder().status(200).body(()).unwrap();
                let mut send = respond.send_response(head, false).unwrap();
                send.send_data(Bytes::from_static(b"hello"), false).unwrap();
                let mut trailers = http::HeaderMap::new();
                trailers.insert("grpc-status", http::HeaderValue::from_static("0"));
                send.send_trailers(trailers).unwrap();
            });
        }
    });
    let transport = HyperTransport::builder()
        .http2_prior_knowledge(true)
        .read_timeout(Some(Duration::from_secs(10)))
        .build()
        .unwrap();
    let (data, trailers) = read(&transport, &url).await.unwrap();
    assert_eq!(data, "hello");
    assert_eq!(trailers.expect("no trailers")["grpc-status"], "0");
}

#[tokio::test]
async fn response_trailers_come_after_the_body_through_fetch() {
    let url = raw_server(CHUNKED_WITH_TRAILERS).await;
    let client = whatwg_fetch::Client::new();
    // Read first, then asked for.
    let mut response = client.get(&url).send().await.unwrap();
    assert_eq!(response.text().await.unwrap(), "hello world");
    let trailers = response.trailers().await.unwrap().expect("no trailers");
    assert_eq!(trailers["grpc-status"], "0");
    assert_eq!(trailers.get_all("x-checksum").iter().count(), 2);
    // Asked for with the body unread: it is read through.
    let mut response = client.get(&url).send().await.unwrap();
    let trailers = response.trailers().await.unwrap().expect("no trailers");
    assert_eq!(trailers["x-checksum"], "abc123");
    // None without them.
    let plain = raw_server(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok").await;
    let mut response = client.get(&plain).send().await.unwrap();
    assert_eq!(response.trailers().await.unwrap(), None);
    let mut response = client.get("data:,hi").send().await.unwrap();
    assert_eq!(response.trailers().await.unwrap(), None);
}

#[tokio::test]
async fn a_decoded_body_still_ends_with_its_trailers() {
    // "hello world", gzip-encoded (RFC 1952, mtime 0), in two chunks, then trailers.
    const GZIP: &[u8] = &[
        0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0xcb, 0x48, 0xcd, 0xc9, 0xc9,
        0x57, 0x28, 0xcf, 0x2f, 0xca, 0x49, 0x01, 0x00, 0x85, 0x11, 0x4a, 0x0d, 0x0b, 0x00, 0x00,
        0x00,
    ];
    let (first, second) = GZIP.split_at(10);
    let mut message = b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\
Content-Encoding: gzip\r\nTrailer: x-checksum\r\n\r\n"
        .to_vec();
    for part in [first, second] {
        message.extend_from_slice(format!("{:x}\r\n", part.len()).as_bytes());
        message.extend_from_slice(part);
        message.extend_from_slice(b"\r\n");
    }
    message.extend_from_slice(b"0\r\nx-checksum: abc123\r\n\r\n");
    let url = raw_server(Box::leak(message.into_boxed_slice())).await;
    let client = whatwg_fetch::Client::new();
    for _ in 0..2 {
        let mut response = client.get(&url).send().await.unwrap();
        assert_eq!(response.text().await.unwrap(), "hello world");
        let trailers = response.trailers().await.unwrap().expect("no trailers");
        assert_eq!(trailers["x-checksum"], "abc123");
    }
    // At the network layer too, decoded by `decode_response`.
    let transport = HyperTransport::new().unwrap();
    let request = http::Request::get(&url).body(RequestBody::empty()).unwrap();
    let response = transport
        .send(request, SendOptions::new().with_decode_content(true))
        .await
        .unwrap();
    let collected = response.into_body().collect().await.unwrap();
    assert_eq!(collected.trailers().unwrap()["x-checksum"], "abc123");
    assert_eq!(collected.to_bytes(), "hello world");
}
