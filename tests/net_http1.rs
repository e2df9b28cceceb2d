//! The HTTP/1.1 transport against servers on 127.0.0.1: pooling, limits, failures,
//! timeouts and streaming.

mod net_support;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::BodyExt;
use net_support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::sync::mpsc;
use whatwg_fetch::net::{HyperTransport, RequestBody, SendOptions, Transport};
use whatwg_fetch::{NetworkError, TimeoutKind};

fn transport() -> HyperTransport {
    HyperTransport::builder()
        .connect_timeout(Some(Duration::from_secs(5)))
        .build()
        .unwrap()
}

#[tokio::test]
async fn sequential_requests_reuse_one_connection() {
    let server = hyper_server(|_req| async { http::Response::new(full("hello")) }).await;
    let transport = transport();
    for _ in 0..5 {
        let (status, body) = get_text(&transport, &server.url("/")).await;
        assert_eq!(status, 200);
        assert_eq!(body, "hello");
    }
    assert_eq!(server.counts.accepts(), 1);
}

#[tokio::test]
async fn request_line_is_origin_form_with_a_host_header() {
    let (server, mut heads) = recording_server(b"HTTP/1.1 204 No Content\r\n\r\n").await;
    let transport = transport();
    let response = transport
        .send(get(&server.url("/a/b?c=d")), SendOptions::new())
        .await
        .unwrap();
    assert_eq!(response.status(), 204);
    let head = heads.recv().await.unwrap();
    assert!(head.starts_with("GET /a/b?c=d HTTP/1.1\r\n"), "{head}");
    assert!(
        head.contains(&format!("host: {}\r\n", server.addr)),
        "{head}"
    );
}

#[tokio::test]
async fn title_case_headers_go_out_in_title_case() {
    let (server, mut heads) = recording_server(b"HTTP/1.1 204 No Content\r\n\r\n").await;
    let transport = HyperTransport::builder()
        .http1_title_case_headers(true)
        .build()
        .unwrap();
    let request = http::Request::get(server.url("/"))
        .header("x-custom-thing", "1")
        .body(RequestBody::empty())
        .unwrap();
    transport.send(request, SendOptions::new()).await.unwrap();
    let head = heads.recv().await.unwrap();
    assert!(head.contains("X-Custom-Thing: 1\r\n"), "{head}");
    assert!(head.contains("Host: "), "{head}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn per_origin_cap_holds_under_200_concurrent_requests() {
    let server = hyper_server(|_req| async {
        tokio::time::sleep(Duration::from_millis(2)).await;
        http::Response::new(full("{\"ok\":true}"))
    })
    .await;
    let transport = HyperTransport::builder()
        .max_connections_per_origin(4)
        .build()
        .unwrap();
    let url = server.url("/");
    let mut tasks = Vec::new();
    for _ in 0..200 {
        let transport = transport.clone();
        let url = url.clone();
        tasks.push(tokio::spawn(
            async move { get_text(&transport, &url).await },
        ));
    }
    for task in tasks {
        let (status, body) = task.await.unwrap();
        assert_eq!(status, 200);
        assert_eq!(body, "{\"ok\":true}");
    }
    assert!(
        server.counts.max_live() <= 4,
        "max live {}",
        server.counts.max_live()
    );
    assert!(server.counts.accepts() >= 1);
}

#[tokio::test]
async fn waiters_are_served_when_connections_fail() {
    // Every connection serves one response and closes: the waiting requests must get
    // permits to connect anew, never hang.
    let server = raw_server(|mut stream| async move {
        if read_head(&mut stream).await.is_some() {
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok")
                .await;
        }
    })
    .await;
    let transport = HyperTransport::builder()
        .max_connections_per_origin(2)
        .build()
        .unwrap();
    let mut tasks = Vec::new();
    for _ in 0..20 {
        let transport = transport.clone();
        let url = server.url("/");
        tasks.push(tokio::spawn(
            async move { get_text(&transport, &url).await },
        ));
    }
    for task in tasks {
        assert_eq!(task.await.unwrap().1, "ok");
    }
    assert_eq!(server.counts.accepts(), 20);
    assert!(server.counts.max_live() <= 2);
}

#[tokio::test]
async fn a_connection_the_server_closed_while_idle_is_not_used() {
    // Keep-alive by the headers, but the server closes each connection shortly after
    // its response.
    let server = raw_server(|mut stream| async move {
        if read_head(&mut stream).await.is_some() {
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                .await;
            tokio::time::sleep(Duration::from_millis(20)).await;
        }
    })
    .await;
    let transport = transport();
    for _ in 0..3 {
        let (status, body) = get_text(&transport, &server.url("/")).await;
        assert_eq!((status.as_u16(), body.as_str()), (200, "ok"));
        // Well past the server's close, so the request cannot race it.
        tokio::time::sleep(Duration::from_millis(200)).await;
    }
    assert_eq!(server.counts.accepts(), 3);
}

#[tokio::test]
async fn a_peer_closing_after_each_response_never_breaks_the_client() {
    // The server closes as soon as each response is out, without saying so. A request
    // that meets the closed connection before sending is retried; one already written
    // when the close arrives fails as a protocol error (it may have been seen, so it is
    // not retried). Nothing hangs, and most requests succeed.
    let server = raw_server(|mut stream| async move {
        if read_head(&mut stream).await.is_some() {
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                .await;
        }
    })
    .await;
    let transport = transport();
    let mut succeeded = 0;
    for _ in 0..20 {
        let result = tokio::time::timeout(
            Duration::from_secs(5),
            transport.send(get(&server.url("/")), SendOptions::new()),
        )
        .await
        .unwrap();
        match result {
            Ok(response) => {
                assert_eq!(read_all(response.into_body()).await.unwrap(), "ok");
                succeeded += 1;
            }
            Err(error) => assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}"),
        }
    }
    assert!(succeeded >= 10, "{succeeded} of 20 succeeded");
}

#[test]
fn a_request_queued_on_a_connection_the_peer_closed_is_sent_again() {
    // Arranges for the request to be queued on an idle connection whose close has
    // arrived but not yet been read by hyper: hyper then hands the request back unsent,
    // and it goes out again on a new connection.
    //
    // A blocking server runs on its own thread. While a task holds the client's
    // single-threaded runtime still, the server first writes to a signal socket the test
    // waits on, then closes the idle connection. Once the runtime moves again, both
    // events are ready together and the test's own future runs first: it queues the
    // request before the connection's task reads the close.
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let signal_listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let signal_addr = signal_listener.local_addr().unwrap();
    let (close_tx, close_rx) = std::sync::mpsc::channel::<()>();
    let server = std::thread::spawn(move || {
        let respond = |stream: &mut std::net::TcpStream| {
            let mut head = Vec::new();
            let mut byte = [0u8; 1];
            while !head.ends_with(b"\r\n\r\n") {
                assert_eq!(stream.read(&mut byte).unwrap(), 1);
                head.push(byte[0]);
            }
            stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                .unwrap();
        };
        let (mut signal, _) = signal_listener.accept().unwrap();
        let (mut first, _) = listener.accept().unwrap();
        respond(&mut first);
        close_rx.recv().unwrap();
        signal.write_all(b"!").unwrap();
        std::thread::sleep(Duration::from_millis(50));
        drop(first);
        let (mut second, _) = listener.accept().unwrap();
        respond(&mut second);
        // The first request's connection and one more: the request was sent again.
        listener.set_nonblocking(true).unwrap();
        std::thread::sleep(Duration::from_millis(100));
        assert!(listener.accept().is_err());
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async {
        let mut signal = tokio::net::TcpStream::connect(signal_addr).await.unwrap();
        let transport = transport();
        let url = format!("http://{addr}/");
        assert_eq!(get_text(&transport, &url).await.1, "ok");
        // Let the connection go idle.
        tokio::time::sleep(Duration::from_millis(50)).await;
        tokio::spawn(async {
            std::thread::sleep(Duration::from_millis(400));
        });
        close_tx.send(()).unwrap();
        let mut byte = [0u8; 1];
        signal.read_exact(&mut byte).await.unwrap();
        assert_eq!(get_text(&transport, &url).await.1, "ok");
    });
    server.join().unwrap();
}

#[tokio::test]
async fn a_dropped_body_closes_its_connection() {
    let server =
        hyper_server(|_req| async { http::Response::new(full(vec![b'x'; 256 * 1024])) }).await;
    let transport = transport();
    let response = transport
        .send(get(&server.url("/")), SendOptions::new())
        .await
        .unwrap();
    drop(response);
    let (status, body) = get_text(&transport, &server.url("/")).await;
    assert_eq!(status, 200);
    assert_eq!(body.len(), 256 * 1024);
    assert_eq!(server.counts.accepts(), 2);
    // The dropped connection is closed, not left open on the server.
    assert!(eventually(|| server.counts.live.load(Ordering::SeqCst) == 1).await);
}

#[tokio::test]
async fn a_head_response_frees_its_connection_at_once() {
    let server = hyper_server(|_req| async {
        let mut response = http::Response::new(full(""));
        response
            .headers_mut()
            .insert("content-length", http::HeaderValue::from_static("1000"));
        response
    })
    .await;
    let transport = transport();
    for _ in 0..3 {
        let request = http::Request::head(server.url("/"))
            .body(RequestBody::empty())
            .unwrap();
        let response = transport.send(request, SendOptions::new()).await.unwrap();
        // The body is never read, yet the connection is reused.
        drop(response);
    }
    assert_eq!(server.counts.accepts(), 1);
}

/// The error a GET fails with when the server answers with `response` and closes.
async fn response_error(response: &'static [&'static [u8]]) -> NetworkError {
    let server = scripted_server(response).await;
    transport()
        .send(get(&server.url("/")), SendOptions::new())
        .await
        .unwrap_err()
}

/// The error reading the body fails with when the server answers with `response` and
/// closes.
async fn body_error(response: &'static [&'static [u8]]) -> NetworkError {
    let server = scripted_server(response).await;
    let response = transport()
        .send(get(&server.url("/")), SendOptions::new())
        .await
        .unwrap();
    read_all(response.into_body()).await.unwrap_err()
}

#[tokio::test]
async fn a_garbage_response_is_a_protocol_error() {
    let error = response_error(&[b"this is not http\r\n\r\n"]).await;
    assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}");
}

#[tokio::test]
async fn a_connection_closed_before_the_response_is_a_protocol_error() {
    let error = response_error(&[b""]).await;
    assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}");
}

#[tokio::test]
async fn a_truncated_chunked_body_is_a_protocol_error() {
    let error =
        body_error(&[b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhel"]).await;
    assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}");
}

#[tokio::test]
async fn a_body_shorter_than_its_content_length_is_a_length_mismatch() {
    let error = body_error(&[b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort"]).await;
    assert!(matches!(error, NetworkError::LengthMismatch), "{error:?}");
}

#[tokio::test]
async fn a_stalled_response_head_hits_the_read_timeout() {
    let server = raw_server(|mut stream| async move {
        let _ = read_head(&mut stream).await;
        tokio::time::sleep(Duration::from_secs(5)).await;
    })
    .await;
    let transport = HyperTransport::builder()
        .read_timeout(Some(Duration::from_millis(100)))
        .build()
        .unwrap();
    let error = transport
        .send(get(&server.url("/")), SendOptions::new())
        .await
        .unwrap_err();
    assert_idle_timeout(&error);
}

#[tokio::test]
async fn a_stalled_body_hits_the_read_timeout() {
    let server = raw_server(|mut stream| async move {
        let _ = read_head(&mut stream).await;
        let _ = stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc")
            .await;
        tokio::time::sleep(Duration::from_secs(5)).await;
    })
    .await;
    let transport = HyperTransport::builder()
        .read_timeout(Some(Duration::from_millis(150)))
        .build()
        .unwrap();
    let response = transport
        .send(get(&server.url("/")), SendOptions::new())
        .await
        .unwrap();
    let mut body = response.into_body();
    assert_eq!(body.next().await.unwrap().unwrap(), "abc");
    let error = body.next().await.unwrap().unwrap_err();
    assert_idle_timeout(&error);
    assert!(body.next().await.is_none());
}

#[tokio::test]
async fn a_listener_that_never_accepts_hits_the_connect_timeout() {
    // A listener with a backlog of one that never accepts: once its queue is full,
    // further handshakes get no answer.
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
    let listener = socket.listen(1).unwrap();
    let addr = listener.local_addr().unwrap();
    let mut fillers = Vec::new();
    for _ in 0..8 {
        if let Ok(Ok(stream)) = tokio::time::timeout(
            Duration::from_millis(100),
            tokio::net::TcpStream::connect(addr),
        )
        .await
        {
            fillers.push(stream);
        }
    }
    let transport = HyperTransport::builder()
        .connect_timeout(Some(Duration::from_millis(200)))
        .build()
        .unwrap();
    let started = std::time::Instant::now();
    let error = transport
        .send(get(&format!("http://{addr}/")), SendOptions::new())
        .await
        .unwrap_err();
    assert!(
        matches!(
            error,
            NetworkError::Timeout {
                kind: TimeoutKind::Connect,
                ..
            }
        ),
        "{error:?}"
    );
    assert!(started.elapsed() < Duration::from_secs(3));
    drop(listener);
}

#[tokio::test]
async fn a_refused_connection_is_a_connect_error() {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    drop(listener);
    let error = transport()
        .send(get(&format!("http://{addr}/")), SendOptions::new())
        .await
        .unwrap_err();
    assert!(matches!(error, NetworkError::Connect(_)), "{error:?}");
}

#[tokio::test]
async fn resolver_overrides_map_names_to_addresses() {
    let server = hyper_server(|req| async move {
        let host = req.headers()["host"].to_str().unwrap().to_owned();
        http::Response::new(full(host))
    })
    .await;
    let transport = HyperTransport::builder()
        .resolve("Web-Platform.Test", server.addr)
        .resolve("other.test", std::net::SocketAddr::new(server.addr.ip(), 0))
        .build()
        .unwrap();
    let (_, host) = get_text(&transport, "http://web-platform.test:1/").await;
    assert_eq!(host, "web-platform.test:1");
    let url = format!("http://other.test:{}/", server.addr.port());
    let (_, host) = get_text(&transport, &url).await;
    assert_eq!(host, format!("other.test:{}", server.addr.port()));
}

#[tokio::test]
async fn each_request_on_a_reused_connection_sends_the_host_of_its_own_url() {
    let server = hyper_server(|req| async move {
        let hosts: Vec<_> = req.headers().get_all("host").iter().collect();
        http::Response::new(full(format!("{hosts:?}")))
    })
    .await;
    let transport = HyperTransport::builder()
        .resolve("web-platform.test", server.addr)
        .build()
        .unwrap();
    let port = server.addr.port();
    // Authorities that differ only in case share a connection, not a `Host` header.
    for host in [
        "web-platform.test",
        "Web-Platform.TEST",
        "web-platform.test",
    ] {
        let url = format!("http://{host}:{port}/");
        let (_, seen) = tokio::time::timeout(Duration::from_secs(10), get_text(&transport, &url))
            .await
            .unwrap();
        assert_eq!(seen, format!("[\"{host}:{port}\"]"));
    }
    assert_eq!(server.counts.accepts(), 1);
}

#[tokio::test]
async fn a_callers_own_host_header_is_sent_once_as_it_is() {
    let server = hyper_server(|req| async move {
        let hosts: Vec<_> = req.headers().get_all("host").iter().collect();
        http::Response::new(full(format!("{hosts:?}")))
    })
    .await;
    let transport = transport();
    for _ in 0..2 {
        let mut request = get(&server.url("/"));
        request
            .headers_mut()
            .insert("host", http::HeaderValue::from_static("other.test"));
        let test = transport.send(request, SendOptions::new());
        let response = tokio::time::timeout(Duration::from_secs(10), test)
            .await
            .unwrap()
            .unwrap();
        let body = read_all(response.into_body()).await.unwrap();
        assert_eq!(body, "[\"other.test\"]");
    }
    let (_, seen) = get_text(&transport, &server.url("/")).await;
    assert_eq!(seen, format!("[\"{}\"]", server.addr));
    assert_eq!(server.counts.accepts(), 1);
}

#[tokio::test]
async fn other_schemes_are_refused() {
    let error = transport()
        .send(get("ftp://127.0.0.1/"), SendOptions::new())
        .await
        .unwrap_err();
    assert!(
        matches!(error, NetworkError::UnsupportedScheme(_)),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_streamed_upload_goes_out_chunked_as_it_is_produced() {
    let (seen_tx, mut seen_rx) = mpsc::unbounded_channel::<Vec<u8>>();
    let server = raw_server(move |mut stream| {
        let seen_tx = seen_tx.clone();
        async move {
            let head = read_head(&mut stream).await.unwrap();
            seen_tx.send(head.into_bytes()).unwrap();
            let mut buf = vec![0u8; 1024];
            let mut body = Vec::new();
            while !body.ends_with(b"0\r\n\r\n") {
                let n = stream.read(&mut buf).await.unwrap();
                if n == 0 {
                    break;
                }
                body.extend_from_slice(&buf[..n]);
                seen_tx.send(buf[..n].to_vec()).unwrap();
            }
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 4\r\n\r\ndone")
                .await;
        }
    })
    .await;
    let (chunk_tx, chunk_rx) = mpsc::channel::<Result<Bytes, std::io::Error>>(1);
    let upload = RequestBody::from_stream(tokio_stream(chunk_rx));
    let request = http::Request::post(server.url("/upload"))
        .body(upload)
        .unwrap();
    let transport = transport();
    let pending = tokio::spawn(async move { transport.send(request, SendOptions::new()).await });

    let head = String::from_utf8(seen_rx.recv().await.unwrap()).unwrap();
    assert!(head.contains("transfer-encoding: chunked\r\n"), "{head}");
    chunk_tx.send(Ok(Bytes::from("first"))).await.unwrap();
    // The first chunk reaches the server while the stream is still open.
    let mut arrived = Vec::new();
    while !String::from_utf8_lossy(&arrived).contains("first") {
        arrived.extend(seen_rx.recv().await.unwrap());
    }
    assert_eq!(String::from_utf8_lossy(&arrived), "5\r\nfirst\r\n");
    chunk_tx.send(Ok(Bytes::from("second"))).await.unwrap();
    drop(chunk_tx);
    let response = pending.await.unwrap().unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(read_all(response.into_body()).await.unwrap(), "done");
}

#[tokio::test]
async fn a_download_is_pulled_only_as_it_is_read() {
    // An endless body: the server produces only what the client's reading lets
    // through the connection, so what it produced stays bounded while nobody reads.
    let produced = Arc::new(AtomicUsize::new(0));
    let counter = produced.clone();
    let server = hyper_server(move |_req| {
        let counter = counter.clone();
        async move {
            let chunk = Bytes::from(vec![b'x'; 64 * 1024]);
            let stream = futures_util::stream::repeat_with(move || {
                counter.fetch_add(chunk.len(), Ordering::SeqCst);
                Ok::<_, whatwg_fetch::BoxError>(hyper::body::Frame::data(chunk.clone()))
            });
            http::Response::new(BodyExt::boxed(http_body_util::StreamBody::new(stream)))
        }
    })
    .await;
    let transport = transport();
    let response = transport
        .send(get(&server.url("/")), SendOptions::new())
        .await
        .unwrap();
    let mut body = response.into_body();
    // The server stops once the connection's buffers are full.
    let mut last = usize::MAX;
    let settled = eventually(|| {
        let now = produced.load(Ordering::SeqCst);
        let same = now == last;
        last = now;
        same
    })
    .await;
    assert!(settled, "the server kept producing while nobody read");
    let idle = produced.load(Ordering::SeqCst);
    assert!(idle < 64 * 1024 * 1024, "produced {idle} bytes unread");
    let mut read = 0;
    while read < idle + 4 * 1024 * 1024 {
        read += body.next().await.unwrap().unwrap().len();
    }
    assert!(produced.load(Ordering::SeqCst) > idle);
    drop(body);
}

/// A `Stream` over a Tokio channel receiver.
fn tokio_stream<T: Send + 'static>(
    mut rx: mpsc::Receiver<T>,
) -> impl futures_core::Stream<Item = T> + Send + 'static {
    futures_util::stream::poll_fn(move |cx| rx.poll_recv(cx))
}

#[tokio::test]
async fn the_system_resolver_answers_for_localhost() {
    let server = hyper_server(|_req| async { http::Response::new(full("ok")) }).await;
    let url = format!("http://localhost:{}/", server.addr.port());
    let (_, body) = get_text(&transport(), &url).await;
    assert_eq!(body, "ok");
}

#[tokio::test]
async fn addresses_are_tried_in_order_until_one_connects() {
    let server = hyper_server(|_req| async { http::Response::new(full("ok")) }).await;
    let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let closed_addr = closed.local_addr().unwrap();
    drop(closed);
    let transport = HyperTransport::builder()
        .resolve_to_addrs("multi.test", &[closed_addr, server.addr])
        .build()
        .unwrap();
    let (_, body) = get_text(&transport, "http://multi.test/").await;
    assert_eq!(body, "ok");
}

#[tokio::test]
async fn an_upload_stream_error_fails_the_request() {
    let server = raw_server(|mut stream| async move {
        let _ = read_head(&mut stream).await;
        let mut buf = [0u8; 1024];
        while let Ok(n) = stream.read(&mut buf).await {
            if n == 0 {
                break;
            }
        }
    })
    .await;
    let chunks: Vec<Result<Bytes, std::io::Error>> = vec![
        Ok(Bytes::from("part")),
        Err(std::io::Error::other("upload source failed")),
    ];
    let request = http::Request::post(server.url("/"))
        .body(RequestBody::from_stream(futures_util::stream::iter(chunks)))
        .unwrap();
    let error = tokio::time::timeout(
        Duration::from_secs(5),
        transport().send(request, SendOptions::new()),
    )
    .await
    .unwrap()
    .unwrap_err();
    assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}");
    // The caller's error is in the source chain.
    let mut source = std::error::Error::source(&error);
    let mut found = false;
    while let Some(cause) = source {
        found |= cause.to_string().contains("upload source failed");
        source = cause.source();
    }
    assert!(found, "{error:?}");
}

#[tokio::test]
async fn a_resolver_function_answers_whole_domains() {
    let server = hyper_server(|req| async move {
        let host = req.headers()["host"].to_str().unwrap().to_owned();
        http::Response::new(full(host))
    })
    .await;
    let addr = server.addr;
    let transport = HyperTransport::builder()
        .resolve_with(move |host| host.ends_with(".wpt.test").then(|| vec![addr]))
        .build()
        .unwrap();
    for host in ["www.wpt.test", "WWW2.wpt.test"] {
        let (_, seen) = get_text(&transport, &format!("http://{host}/")).await;
        assert_eq!(seen, host);
    }
}

#[tokio::test]
async fn a_request_the_peer_read_before_closing_is_not_sent_again() {
    // The server answers the first request, then reads the second and closes without
    // answering: the second may have had effects, so it fails instead of going out again.
    let server = raw_server(|mut stream| async move {
        if read_head(&mut stream).await.is_some() {
            let _ = stream
                .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                .await;
        }
        let _ = read_head(&mut stream).await;
    })
    .await;
    let transport = transport();
    assert_eq!(get_text(&transport, &server.url("/")).await.1, "ok");
    let request = http::Request::post(server.url("/"))
        .body(RequestBody::from("payload"))
        .unwrap();
    let error = transport
        .send(request, SendOptions::new())
        .await
        .unwrap_err();
    assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}");
    assert_eq!(server.counts.accepts(), 1);
}

#[tokio::test]
async fn a_get_sent_again_after_its_reused_connection_closed_is_the_same_request() {
    // Each connection answers one request, then reads the next and closes without
    // answering: the keep-alive race. The GET goes out again, byte for byte, on a new
    // connection.
    let (heads, mut seen) = mpsc::unbounded_channel();
    let server = raw_server(move |mut stream| {
        let heads = heads.clone();
        async move {
            if let Some(head) = read_head(&mut stream).await {
                let _ = heads.send(head);
                let _ = stream
                    .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
                    .await;
            }
            if let Some(head) = read_head(&mut stream).await {
                let _ = heads.send(head);
            }
        }
    })
    .await;
    let transport = transport();
    let test = async {
        assert_eq!(get_text(&transport, &server.url("/first")).await.1, "ok");
        let mut request = get(&server.url("/again?q=1"));
        request
            .headers_mut()
            .insert("x-custom", http::HeaderValue::from_static("kept"));
        let response = transport.send(request, SendOptions::new()).await.unwrap();
        assert_eq!(read_all(response.into_body()).await.unwrap(), "ok");
    };
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .unwrap();
    let first = seen.recv().await.unwrap();
    assert!(first.starts_with("GET /first "), "{first}");
    let lost = seen.recv().await.unwrap();
    let again = seen.recv().await.unwrap();
    assert_eq!(again, lost);
    assert!(again.starts_with("GET /again?q=1 HTTP/1.1\r\n"), "{again}");
    let lower = again.to_ascii_lowercase();
    assert_eq!(lower.matches("\r\nhost: ").count(), 1, "{again}");
    assert_eq!(
        lower.matches("\r\nx-custom: kept\r\n").count(),
        1,
        "{again}"
    );
    assert_eq!(server.counts.accepts(), 2);
}

#[tokio::test]
async fn a_null_body_response_that_carries_a_body_is_not_reused() {
    // A 204 (or 205, or 304) has no body whatever its headers say; bytes a server sends
    // after one anyway would be read as the next response on that connection.
    let server = raw_server(|mut stream| async move {
        while let Some(head) = read_head(&mut stream).await {
            if head.starts_with("GET /null") {
                let head = b"HTTP/1.1 204 No Content\r\nContent-Length: 11\r\n\r\n";
                if stream.write_all(head).await.is_err() {
                    return;
                }
                // The stray body comes a little later, as from a server that writes the
                // head and the content separately.
                tokio::time::sleep(Duration::from_millis(100)).await;
                if stream.write_all(b"hello-world").await.is_err() {
                    return;
                }
            } else if stream
                .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
                .await
                .is_err()
            {
                return;
            }
        }
    })
    .await;
    let transport = transport();
    let (status, body) = get_text(&transport, &server.url("/null")).await;
    assert_eq!((status.as_u16(), body.as_str()), (204, ""));
    let (status, body) = get_text(&transport, &server.url("/next")).await;
    assert_eq!((status.as_u16(), body.as_str()), (200, "ok"));
    assert_eq!(server.counts.accepts(), 2);
}

/// A server that answers each request on a connection with the next of `responses`,
/// written as is, and closes the connection after the last.
async fn scripted_server(responses: &'static [&'static [u8]]) -> Server {
    raw_server(move |mut stream| async move {
        for response in responses {
            if read_head(&mut stream).await.is_none() {
                return;
            }
            let _ = stream.write_all(response).await;
        }
    })
    .await
}

#[tokio::test]
async fn a_head_ended_by_the_close_is_a_response() {
    let server =
        scripted_server(&[b"HTTP/1.0 200 NANANA\nCONTENT-LENGTH:  0\nfoo: 1\nfoo: 2\n"]).await;
    let response = transport()
        .send(get(&server.url("/")), SendOptions::new())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(whatwg_fetch::net::status_text(&response), "NANANA");
    let foo: Vec<_> = response.headers().get_all("foo").iter().collect();
    assert_eq!(foo, ["1", "2"]);
    assert_eq!(read_all(response.into_body()).await.unwrap(), "");

    // Cut short in the middle of a line, or after a CR.
    for head in [
        &b"HTTP/1.1 280 HELLO\r\nfoo: 3"[..],
        b"HTTP/1.1 280 HELLO\r\nfoo: 3\r",
    ] {
        let server = raw_server(move |mut stream| async move {
            if read_head(&mut stream).await.is_some() {
                let _ = stream.write_all(head).await;
            }
        })
        .await;
        let response = transport()
            .send(get(&server.url("/")), SendOptions::new())
            .await
            .unwrap();
        assert_eq!(response.status(), 280);
        assert_eq!(response.headers()["foo"], "3");
        assert_eq!(read_all(response.into_body()).await.unwrap(), "");
    }
}

#[tokio::test]
async fn a_head_ended_by_the_close_on_a_reused_connection() {
    let server = scripted_server(&[
        b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nfirst",
        b"HTTP/1.1 201 Created\r\nx: y\r\n",
    ])
    .await;
    let transport = transport();
    let (status, body) = get_text(&transport, &server.url("/1")).await;
    assert_eq!((status.as_u16(), body.as_str()), (200, "first"));
    let (status, body) = get_text(&transport, &server.url("/2")).await;
    assert_eq!((status.as_u16(), body.as_str()), (201, ""));
    assert_eq!(server.counts.accepts(), 1, "both on one connection");
}

#[tokio::test]
async fn a_body_cut_short_is_still_an_error() {
    let server = scripted_server(&[b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nab"]).await;
    let response = transport()
        .send(get(&server.url("/")), SendOptions::new())
        .await
        .unwrap();
    assert!(read_all(response.into_body()).await.is_err());
    // A head with a declared body the close cuts off: the body is short, not empty.
    let server = scripted_server(&[b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n"]).await;
    let response = transport()
        .send(get(&server.url("/")), SendOptions::new())
        .await
        .unwrap();
    assert!(read_all(response.into_body()).await.is_err());
}

#[tokio::test]
async fn a_server_sending_informational_responses_without_end_is_cut_off() {
    let server = raw_server(|mut stream| async move {
        let _ = read_head(&mut stream).await;
        // 100 Continue for as long as the client reads.
        while stream
            .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
            .await
            .is_ok()
        {}
    })
    .await;
    let error = tokio::time::timeout(
        Duration::from_secs(5),
        transport().send(get(&server.url("/")), SendOptions::new()),
    )
    .await
    .unwrap()
    .unwrap_err();
    assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}");
    assert!(said(&error).contains("informational"), "{error:?}");
}

/// `response` as [`scripted_server`]'s one response, for a test that builds it.
fn one_response(response: Vec<u8>) -> &'static [&'static [u8]] {
    Box::leak(Box::new([&*Box::leak(response.into_boxed_slice())]))
}

#[tokio::test]
async fn chunk_extensions_past_16_kib_fail_the_body() {
    let mut response = b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1;".to_vec();
    response.extend(std::iter::repeat_n(b'x', 20 * 1024));
    response.extend_from_slice(b"\r\na\r\n0\r\n\r\n");
    let error = body_error(one_response(response)).await;
    assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}");
    assert!(said(&error).contains("extensions"), "{error:?}");
}

#[tokio::test]
async fn trailers_past_the_head_limits_fail_the_body() {
    for (trailers, expected) in [
        // Larger than the 256 KiB a head may have.
        (
            format!("x-big: {}\r\n", "v".repeat(300 * 1024)),
            "too large",
        ),
        // More fields than the 2,000 a head may have.
        (
            (0..2100).map(|i| format!("x-{i}: v\r\n")).collect(),
            "too many",
        ),
    ] {
        let response = format!(
            "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n{trailers}\r\n"
        );
        let error = body_error(one_response(response.into_bytes())).await;
        assert!(said(&error).contains(expected), "{error:?}");
    }
}
