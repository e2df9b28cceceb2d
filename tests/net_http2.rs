//! HTTP/2 (`net/h2.rs`) against hyper's HTTP/2 server and scripted peers on 127.0.0.1:
//! streams waiting for `MAX_CONCURRENT_STREAMS`, request bodies under flow control, a
//! request body's own failure, a request given up, trailers, the framing headers, the
//! connection's end when nobody can use it any more, extended CONNECT, the response head
//! limit, keep-alive PINGs, the window and frame settings, and the error of a stream the
//! server resets.

mod net_support;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, StreamBody};
use hyper::body::{Frame, Incoming};
use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use net_support::*;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;
use tokio::sync::Notify;
use whatwg_fetch::net::{
    HyperTransport, HyperTransportBuilder, RequestBody, SendOptions, Transport,
};
use whatwg_fetch::{BoxError, NetworkError, TimeoutKind};

/// Bounds every wait: none of them should come near it.
const LIMIT: Duration = Duration::from_secs(20);

type Handler = Arc<
    dyn Fn(
            http::Request<Incoming>,
        ) -> std::pin::Pin<
            Box<dyn std::future::Future<Output = http::Response<ServerBody>> + Send>,
        > + Send
        + Sync,
>;

/// An HTTP/2 server (prior knowledge, plain TCP) with the settings `configure` gives
/// hyper's builder, calling `handler` for each request; counts its live connections.
async fn h2_server<F, Fut>(
    configure: impl Fn(&mut hyper::server::conn::http2::Builder<TokioExecutor>) + Send + Sync + 'static,
    handler: F,
) -> (String, Arc<AtomicUsize>)
where
    F: Fn(http::Request<Incoming>) -> Fut + Send + Sync + 'static,
    Fut: std::future::Future<Output = http::Response<ServerBody>> + Send + 'static,
{
    let handler: Handler = Arc::new(move |request| Box::pin(handler(request)));
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let live = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&live);
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let handler = Arc::clone(&handler);
            let mut builder = hyper::server::conn::http2::Builder::new(TokioExecutor::new());
            configure(&mut builder);
            let live = Arc::clone(&counted);
            live.fetch_add(1, Ordering::SeqCst);
            tokio::spawn(async move {
                let service = service_fn(move |request| {
                    let handler = Arc::clone(&handler);
                    async move { Ok::<_, Infallible>(handler(request).await) }
                });
                let _ = builder.serve_connection(TokioIo::new(tcp), service).await;
                live.fetch_sub(1, Ordering::SeqCst);
            });
        }
    });
    (format!("http://{addr}"), live)
}

fn transport() -> HyperTransport {
    HyperTransport::builder()
        .http2_prior_knowledge(true)
        .build()
        .unwrap()
}

async fn send(
    transport: &HyperTransport,
    request: http::Request<RequestBody>,
) -> Result<http::Response<whatwg_fetch::net::ResponseBody>, NetworkError> {
    tokio::time::timeout(LIMIT, transport.send(request, SendOptions::new()))
        .await
        .expect("the request ends")
}

#[tokio::test]
async fn requests_past_max_concurrent_streams_wait_their_turn_first_in_first_out() {
    // One stream at a time: the first request is held until the test lets it go.
    let order = Arc::new(Mutex::new(Vec::new()));
    let open = Arc::new(AtomicUsize::new(0));
    let most_open = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(Notify::new());
    let (base, live) = {
        let (order, open, most_open, release) = (
            Arc::clone(&order),
            Arc::clone(&open),
            Arc::clone(&most_open),
            Arc::clone(&release),
        );
        h2_server(
            |builder| {
                builder.max_concurrent_streams(1);
            },
            move |request| {
                let (order, open, most_open, release) = (
                    Arc::clone(&order),
                    Arc::clone(&open),
                    Arc::clone(&most_open),
                    Arc::clone(&release),
                );
                async move {
                    let now = open.fetch_add(1, Ordering::SeqCst) + 1;
                    most_open.fetch_max(now, Ordering::SeqCst);
                    let path = request.uri().path().to_owned();
                    order.lock().unwrap().push(path.clone());
                    if path == "/first" {
                        release.notified().await;
                    }
                    open.fetch_sub(1, Ordering::SeqCst);
                    http::Response::new(full(path))
                }
            },
        )
        .await
    };
    let transport = Arc::new(transport());
    // The first request opens the connection and holds its one stream.
    let first = {
        let (transport, url) = (Arc::clone(&transport), format!("{base}/first"));
        tokio::spawn(async move { get_text(&*transport, &url).await })
    };
    assert!(eventually(|| order.lock().unwrap().len() == 1).await);
    // Three more, sent in this order while the stream is taken.
    let mut waiting = Vec::new();
    for name in ["second", "third", "fourth"] {
        let (transport, url) = (Arc::clone(&transport), format!("{base}/{name}"));
        waiting.push(tokio::spawn(
            async move { get_text(&*transport, &url).await },
        ));
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    // None reached the server: they wait for the stream, not on another connection.
    assert_eq!(order.lock().unwrap().len(), 1);
    release.notify_one();
    assert_eq!(first.await.unwrap().1, "/first");
    for (task, name) in waiting.into_iter().zip(["/second", "/third", "/fourth"]) {
        let (status, body) = task.await.unwrap();
        assert_eq!((status.as_u16(), body.as_str()), (200, name));
    }
    assert_eq!(
        *order.lock().unwrap(),
        ["/first", "/second", "/third", "/fourth"]
    );
    assert_eq!(most_open.load(Ordering::SeqCst), 1);
    assert_eq!(live.load(Ordering::SeqCst), 1, "one connection");
}

/// A server answering each request with its body's length and a checksum of it.
async fn counting_server(
    configure: impl Fn(&mut hyper::server::conn::http2::Builder<TokioExecutor>) + Send + Sync + 'static,
) -> String {
    h2_server(configure, |request| async move {
        let length = request.headers().get("content-length").cloned();
        match request.into_body().collect().await {
            Ok(body) => {
                let body = body.to_bytes();
                let sum = body.iter().fold(0u64, |sum, byte| {
                    sum.wrapping_mul(31).wrapping_add(u64::from(*byte))
                });
                let mut response = http::Response::new(full(format!("{} {sum}", body.len())));
                if let Some(length) = length {
                    response.headers_mut().insert("x-content-length", length);
                }
                response
            }
            Err(error) => http::Response::builder()
                .status(500)
                .body(full(error.to_string()))
                .unwrap(),
        }
    })
    .await
    .0
}

#[tokio::test]
async fn a_streamed_request_body_goes_whole_through_a_small_window() {
    // The protocol's 64 KiB windows: 4 MiB takes dozens of WINDOW_UPDATEs.
    let base = counting_server(|builder| {
        builder
            .initial_stream_window_size(65_535)
            .initial_connection_window_size(65_535);
    })
    .await;
    let chunk: Vec<u8> = (0..=255u8).cycle().take(100_000).collect();
    let chunks = 42;
    let expected = {
        let all: Vec<u8> = chunk
            .iter()
            .copied()
            .cycle()
            .take(chunk.len() * chunks)
            .collect();
        let sum = all.iter().fold(0u64, |sum, byte| {
            sum.wrapping_mul(31).wrapping_add(u64::from(*byte))
        });
        format!("{} {sum}", all.len())
    };
    let chunk = Bytes::from(chunk);
    let stream =
        futures_util::stream::iter((0..chunks).map(move |_| Ok::<_, BoxError>(chunk.clone())));
    let request = http::Request::post(format!("{base}/upload"))
        .body(RequestBody::from_stream(stream))
        .unwrap();
    let transport = transport();
    let response = send(&transport, request).await.unwrap();
    assert_eq!(response.status(), 200);
    // A stream of unknown length carries no Content-Length.
    assert!(!response.headers().contains_key("x-content-length"));
    let body = read_all(response.into_body()).await.unwrap();
    assert_eq!(String::from_utf8_lossy(&body), expected);
}

#[tokio::test]
async fn framing_headers_are_what_http1_would_send() {
    let base = counting_server(|_| {}).await;
    let transport = transport();
    let length = |response: &http::Response<_>| {
        response
            .headers()
            .get("x-content-length")
            .map(|value: &http::HeaderValue| value.to_str().unwrap().to_owned())
    };
    let response = send(&transport, get(&format!("{base}/"))).await.unwrap();
    assert_eq!(length(&response), None, "a GET without a body has none");
    let post = |body: RequestBody| http::Request::post(format!("{base}/")).body(body).unwrap();
    let response = send(&transport, post(RequestBody::empty())).await.unwrap();
    assert_eq!(length(&response).as_deref(), Some("0"));
    let response = send(&transport, post(RequestBody::full("hello")))
        .await
        .unwrap();
    assert_eq!(length(&response).as_deref(), Some("5"));
    assert_eq!(read_all(response.into_body()).await.unwrap(), "5 99162322");
}

#[tokio::test]
async fn a_request_body_that_fails_fails_the_request_with_its_own_error() {
    let base = counting_server(|_| {}).await;
    let stream = futures_util::stream::iter([
        Ok(Bytes::from_static(b"the first part")),
        Err(BoxError::from("the disk is gone")),
    ]);
    let request = http::Request::post(format!("{base}/upload"))
        .body(RequestBody::from_stream(stream))
        .unwrap();
    let transport = transport();
    let error = send(&transport, request).await.unwrap_err();
    let chain = format!("{:#}", whatwg_fetch::Error::from(error));
    assert!(
        chain.contains("the request body's stream failed"),
        "{chain}"
    );
    assert!(chain.contains("the disk is gone"), "{chain}");
    // The connection lives on for the next request.
    let (status, _) = get_text(&transport, &format!("{base}/")).await;
    assert_eq!(status, 200);
}

/// A request body that never ends, noting when it is dropped.
struct Endless {
    dropped: Arc<AtomicBool>,
}

impl futures_core::Stream for Endless {
    type Item = Result<Bytes, BoxError>;

    fn poll_next(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        std::task::Poll::Ready(Some(Ok(Bytes::from_static(&[b'x'; 16 * 1024]))))
    }
}

impl Drop for Endless {
    fn drop(&mut self) {
        self.dropped.store(true, Ordering::SeqCst);
    }
}

#[tokio::test]
async fn a_request_given_up_resets_its_stream_and_stops_sending_its_body() {
    // The server never answers, and reads the body until the stream ends.
    let reset_seen = Arc::new(AtomicBool::new(false));
    let seen = Arc::clone(&reset_seen);
    let (base, _) = h2_server(
        |_| {},
        move |request| {
            let seen = Arc::clone(&seen);
            async move {
                let mut body = request.into_body();
                while let Some(frame) = body.frame().await {
                    if frame.is_err() {
                        seen.store(true, Ordering::SeqCst);
                        break;
                    }
                }
                std::future::pending::<()>().await;
                unreachable!()
            }
        },
    )
    .await;
    let dropped = Arc::new(AtomicBool::new(false));
    let request = http::Request::post(format!("{base}/upload"))
        .body(RequestBody::from_stream(Endless {
            dropped: Arc::clone(&dropped),
        }))
        .unwrap();
    let transport = HyperTransport::builder()
        .http2_prior_knowledge(true)
        .read_timeout(Some(Duration::from_millis(300)))
        .build()
        .unwrap();
    let error = send(&transport, request).await.unwrap_err();
    assert_idle_timeout(&error);
    assert!(
        eventually(|| reset_seen.load(Ordering::SeqCst)).await,
        "the stream is reset"
    );
    assert!(
        eventually(|| dropped.load(Ordering::SeqCst)).await,
        "the body is dropped"
    );
}

#[tokio::test]
async fn response_trailers_arrive_after_the_data() {
    let (base, _) = h2_server(
        |_| {},
        |_request| async move {
            let mut trailers = http::HeaderMap::new();
            trailers.insert("grpc-status", http::HeaderValue::from_static("0"));
            let frames = futures_util::stream::iter([
                Ok::<_, BoxError>(Frame::data(Bytes::from_static(b"data"))),
                Ok(Frame::trailers(trailers)),
            ]);
            http::Response::new(StreamBody::new(frames).boxed())
        },
    )
    .await;
    let transport = transport();
    let response = send(&transport, get(&format!("{base}/"))).await.unwrap();
    let collected = response.into_body().collect().await.unwrap();
    let trailers = collected.trailers().cloned().expect("trailers");
    assert_eq!(trailers["grpc-status"], "0");
    assert_eq!(collected.to_bytes(), "data");
}

#[tokio::test]
async fn the_connection_closes_once_its_transport_and_responses_are_gone() {
    // A body in two parts, the second a while after the first.
    let (base, live) = h2_server(
        |_| {},
        |_request| async move {
            let frames = futures_util::stream::unfold(0, |part| async move {
                match part {
                    0 => Some((
                        Ok::<_, BoxError>(Frame::data(Bytes::from_static(b"one "))),
                        1,
                    )),
                    1 => {
                        tokio::time::sleep(Duration::from_millis(300)).await;
                        Some((Ok(Frame::data(Bytes::from_static(b"two"))), 2))
                    }
                    _ => None,
                }
            });
            http::Response::new(StreamBody::new(frames).boxed())
        },
    )
    .await;
    let transport = transport();
    let response = send(&transport, get(&format!("{base}/"))).await.unwrap();
    assert_eq!(live.load(Ordering::SeqCst), 1);
    // The pool's handle goes; the response being read keeps the connection.
    drop(transport);
    assert_eq!(read_all(response.into_body()).await.unwrap(), "one two");
    assert!(
        eventually(|| live.load(Ordering::SeqCst) == 0).await,
        "the connection closes"
    );
}

#[tokio::test]
async fn an_idle_connection_closes_when_its_transport_is_dropped() {
    let (base, live) = h2_server(
        |_| {},
        |_request| async move { http::Response::new(full("ok")) },
    )
    .await;
    let transport = transport();
    let (status, _) = get_text(&transport, &format!("{base}/")).await;
    assert_eq!(status, 200);
    // Nothing open on it now, and no handle left after this: nothing else will wake it.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(live.load(Ordering::SeqCst), 1);
    drop(transport);
    assert!(
        eventually(|| live.load(Ordering::SeqCst) == 0).await,
        "the connection closes"
    );
}

/// A server that takes extended CONNECT (RFC 8441) when `enabled`: a `CONNECT` with
/// `:protocol` `echo` is answered 200 and its stream echoes what it is sent.
async fn tunnel_server(enabled: bool) -> (String, Arc<AtomicUsize>) {
    h2_server(
        move |builder| {
            if enabled {
                builder.enable_connect_protocol();
            }
        },
        |mut request| async move {
            if request.method() != http::Method::CONNECT {
                return http::Response::new(full("plain"));
            }
            let protocol = request
                .extensions()
                .get::<hyper::ext::Protocol>()
                .map(|protocol| protocol.as_str().to_owned());
            if protocol.as_deref() != Some("echo") {
                return http::Response::builder()
                    .status(400)
                    .body(full(format!("protocol {protocol:?}")))
                    .unwrap();
            }
            let upgrade = hyper::upgrade::on(&mut request);
            tokio::spawn(async move {
                use tokio::io::{AsyncReadExt, AsyncWriteExt};
                let Ok(upgraded) = upgrade.await else { return };
                let mut io = TokioIo::new(upgraded);
                let mut buf = vec![0; 64 * 1024];
                loop {
                    match io.read(&mut buf).await {
                        Ok(0) | Err(_) => break,
                        Ok(n) => {
                            if io.write_all(&buf[..n]).await.is_err() {
                                break;
                            }
                        }
                    }
                }
                let _ = io.shutdown().await;
            });
            http::Response::new(full(""))
        },
    )
    .await
}

/// [`tunnel_server`], and a transport whose connection to it is open, its server's SETTINGS
/// in.
async fn tunnel_server_in_use(enabled: bool) -> (String, Arc<AtomicUsize>, HyperTransport) {
    let (base, live) = tunnel_server(enabled).await;
    let transport = transport();
    assert_eq!(get_text(&transport, &format!("{base}/")).await.1, "plain");
    (base, live, transport)
}

fn extended_connect(base: &str, protocol: &'static str) -> http::Request<RequestBody> {
    let mut request = http::Request::builder()
        .method(http::Method::CONNECT)
        .uri(format!("{base}/chat"))
        .body(RequestBody::empty())
        .unwrap();
    request
        .extensions_mut()
        .insert(whatwg_fetch::net::ConnectProtocol::new(protocol));
    request
}

#[tokio::test]
async fn extended_connect_opens_a_tunnel_on_a_shared_connection() {
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    let (base, live, transport) = tunnel_server_in_use(true).await;
    let response = send(&transport, extended_connect(&base, "echo"))
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.version(), http::Version::HTTP_2);
    let mut tunnel = response
        .extensions()
        .get::<whatwg_fetch::upgrade::OnUpgrade>()
        .and_then(whatwg_fetch::upgrade::OnUpgrade::take)
        .expect("the tunnel is handed over");
    // 1 MiB each way: more than the windows hold, so flow control works both ways.
    let sent: Vec<u8> = (0..=250u8).cycle().take(1024 * 1024).collect();
    let (mut reader, mut writer) = tokio::io::split(tunnel);
    let writing = {
        let sent = sent.clone();
        tokio::spawn(async move {
            writer.write_all(&sent).await.unwrap();
            writer.shutdown().await.unwrap();
            writer
        })
    };
    let mut echoed = Vec::new();
    tokio::time::timeout(LIMIT, reader.read_to_end(&mut echoed))
        .await
        .expect("the echo ends")
        .unwrap();
    assert!(
        echoed == sent,
        "{} bytes echoed of {}",
        echoed.len(),
        sent.len()
    );
    let writer = writing.await.unwrap();
    tunnel = reader.unsplit(writer);
    // Other requests share the connection meanwhile.
    assert_eq!(get_text(&transport, &format!("{base}/")).await.1, "plain");
    assert_eq!(live.load(Ordering::SeqCst), 1, "one connection");
    drop(tunnel);
}

#[tokio::test]
async fn extended_connect_without_the_servers_setting_is_a_clear_error() {
    let (base, _, transport) = tunnel_server_in_use(false).await;
    let error = send(&transport, extended_connect(&base, "echo"))
        .await
        .unwrap_err();
    assert!(is_unavailable(&error), "{error:?}");
    let why = match &error {
        NetworkError::Protocol(source) => source.to_string(),
        other => panic!("{other:?}"),
    };
    assert!(why.contains("SETTINGS_ENABLE_CONNECT_PROTOCOL"), "{why}");
}

#[tokio::test]
async fn extended_connect_opens_no_connection_of_its_own() {
    let (base, live) = tunnel_server(true).await;
    let transport = transport();
    let error = send(&transport, extended_connect(&base, "echo"))
        .await
        .unwrap_err();
    assert!(is_unavailable(&error), "{error:?}");
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(live.load(Ordering::SeqCst), 0);
    // Nor does it go over HTTP/1.1.
    let server = hyper_server(|_request| async move { http::Response::new(full("h1")) }).await;
    let h1 = HyperTransport::new().unwrap();
    assert_eq!(get_text(&h1, &server.url("/")).await.1, "h1");
    let error = send(&h1, extended_connect(&server.url(""), "echo"))
        .await
        .unwrap_err();
    assert!(is_unavailable(&error), "{error:?}");
}

#[tokio::test]
async fn extended_connect_never_waits_for_a_place_among_the_origins_connections() {
    // The origin's one connection is busy with a response whose body is unread: an
    // extended CONNECT is refused at once, not queued for a connection it cannot use.
    let server = hyper_server(|_request| async move { http::Response::new(full("held")) }).await;
    let h1 = HyperTransport::builder()
        .max_connections_per_origin(1)
        .build()
        .unwrap();
    let held = send(&h1, get(&server.url("/"))).await.unwrap();
    let error = send(&h1, extended_connect(&server.url(""), "echo"))
        .await
        .unwrap_err();
    assert!(is_unavailable(&error), "{error:?}");
    drop(held);
}

#[tokio::test]
async fn an_extended_connect_refused_by_the_server_is_its_response() {
    let (base, _, transport) = tunnel_server_in_use(true).await;
    let response = send(&transport, extended_connect(&base, "other"))
        .await
        .unwrap();
    assert_eq!(response.status(), 400);
    assert!(
        response
            .extensions()
            .get::<whatwg_fetch::upgrade::OnUpgrade>()
            .is_none()
    );
    let body = read_all(response.into_body()).await.unwrap();
    assert_eq!(body, "protocol Some(\"other\")");
}

fn is_unavailable(error: &NetworkError) -> bool {
    matches!(error, NetworkError::Protocol(source)
        if source.downcast_ref::<whatwg_fetch::net::ExtendedConnectUnavailable>().is_some())
}

#[tokio::test]
async fn the_read_timeout_holds_for_every_request_of_a_connection() {
    // A connection's requests take turns with its timers: each wait gets the whole read
    // timeout, neither cut short by an earlier wait's deadline nor left without one.
    let (base, live) = h2_server(
        |_| {},
        |request| async move {
            if request.uri().path() == "/hang" {
                std::future::pending::<()>().await;
            }
            http::Response::new(full("ok"))
        },
    )
    .await;
    let timeout = Duration::from_millis(300);
    let transport = HyperTransport::builder()
        .http2_prior_knowledge(true)
        .read_timeout(Some(timeout))
        .build()
        .unwrap();
    for _ in 0..3 {
        assert_eq!(get_text(&transport, &format!("{base}/ok")).await.1, "ok");
        let started = std::time::Instant::now();
        let error = send(&transport, get(&format!("{base}/hang")))
            .await
            .unwrap_err();
        assert_idle_timeout(&error);
        assert!(started.elapsed() >= timeout, "{:?}", started.elapsed());
    }
    assert_eq!(live.load(Ordering::SeqCst), 1, "one connection");
}

#[tokio::test]
async fn each_wait_of_an_http2_body_gets_the_whole_read_timeout() {
    // The body waits with the timer its request waited for the head with: each pause
    // shorter than the read timeout passes, on each request of the connection, and a body
    // that then stalls fails once the read timeout has passed since its last chunk.
    let (base, live) = h2_server(
        |_| {},
        |_request| async move {
            let frames = futures_util::stream::unfold(0, |sent| async move {
                if sent == 3 {
                    std::future::pending::<()>().await;
                }
                tokio::time::sleep(Duration::from_millis(200)).await;
                Some((Ok::<_, BoxError>(Frame::data(Bytes::from("x"))), sent + 1))
            });
            http::Response::new(StreamBody::new(frames).boxed())
        },
    )
    .await;
    let timeout = Duration::from_millis(300);
    let transport = HyperTransport::builder()
        .http2_prior_knowledge(true)
        .read_timeout(Some(timeout))
        .build()
        .unwrap();
    for _ in 0..2 {
        let mut body = send(&transport, get(&format!("{base}/")))
            .await
            .unwrap()
            .into_body();
        for _ in 0..3 {
            let frame = body.frame().await.unwrap().unwrap();
            assert_eq!(frame.into_data().unwrap(), "x");
        }
        let started = std::time::Instant::now();
        let error = tokio::time::timeout(LIMIT, body.frame())
            .await
            .expect("the body ends")
            .unwrap()
            .unwrap_err();
        assert_idle_timeout(&error);
        assert!(started.elapsed() >= timeout, "{:?}", started.elapsed());
    }
    assert_eq!(live.load(Ordering::SeqCst), 1, "one connection");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn many_requests_at_once_on_many_threads_all_get_their_answers() {
    // Bodiless requests are answered without being woken for their stream (the head's
    // arrival wakes them), those with a body are woken to send it: mixed, on four threads,
    // past the server's 8 streams at once, every one gets its own answer.
    let (base, live) = h2_server(
        |builder| {
            builder.max_concurrent_streams(8);
        },
        |request| async move {
            let path = request.uri().path().to_owned();
            let body = request.into_body().collect().await.unwrap().to_bytes();
            http::Response::new(full(format!("{path} {}", body.len())))
        },
    )
    .await;
    let transport = Arc::new(
        HyperTransport::builder()
            .http2_prior_knowledge(true)
            .build()
            .unwrap(),
    );
    let tasks: Vec<_> = (0..32)
        .map(|task| {
            let (transport, base) = (Arc::clone(&transport), base.clone());
            tokio::spawn(async move {
                for request in 0..40 {
                    let path = format!("/{task}/{request}");
                    let (sent, expected) = match request % 4 {
                        0 => {
                            let body = RequestBody::full(Bytes::from(vec![b'x'; request]));
                            let post = http::Request::post(format!("{base}{path}"))
                                .body(body)
                                .unwrap();
                            (post, format!("{path} {request}"))
                        }
                        _ => (get(&format!("{base}{path}")), format!("{path} 0")),
                    };
                    let response = send(&transport, sent).await.unwrap();
                    let body = read_all(response.into_body()).await.unwrap();
                    assert_eq!(body, expected);
                }
            })
        })
        .collect();
    for task in tasks {
        tokio::time::timeout(LIMIT, task)
            .await
            .expect("every request is answered")
            .unwrap();
    }
    assert_eq!(live.load(Ordering::SeqCst), 1, "one connection");
}

/// A response whose head carries `size` bytes of header values, in fields of 8 KiB.
fn response_with_head_of(size: usize) -> http::Response<ServerBody> {
    let mut response = http::Response::new(full("ok"));
    let value = "v".repeat(8 * 1024);
    for index in 0..size.div_ceil(value.len()) {
        let name = http::HeaderName::try_from(format!("x-large-{index}")).unwrap();
        let value = http::HeaderValue::try_from(value.as_str()).unwrap();
        response.headers_mut().insert(name, value);
    }
    response
}

/// An HTTP/2 server (prior knowledge, on plain TCP) answering each request with a head
/// of the size its path names: `/204800` is 200 KiB of header values.
async fn h2_server_with_heads() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service = service_fn(|req: http::Request<hyper::body::Incoming>| async move {
                    let size = req
                        .uri()
                        .path()
                        .trim_start_matches('/')
                        .parse()
                        .unwrap_or(0);
                    Ok::<_, Infallible>(response_with_head_of(size))
                });
                let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .max_send_buf_size(4 * 1024 * 1024)
                    .serve_connection(TokioIo::new(tcp), service)
                    .await;
            });
        }
    });
    addr
}

fn h2_client() -> HyperTransportBuilder {
    HyperTransport::builder().http2_prior_knowledge(true)
}

#[tokio::test]
async fn an_http2_response_head_of_200_kib_is_accepted_by_default() {
    let addr = h2_server_with_heads().await;
    let transport = h2_client().build().unwrap();
    let status = send_status(&transport, &format!("http://{addr}/{}", 200 * 1024)).await;
    assert_eq!(status.unwrap(), 200);
}

#[tokio::test]
async fn an_http2_response_head_of_300_kib_is_a_clear_error_and_the_connection_lives_on() {
    let addr = h2_server_with_heads().await;
    let transport = h2_client().build().unwrap();
    let error = send_status(&transport, &format!("http://{addr}/{}", 300 * 1024))
        .await
        .unwrap_err();
    assert!(matches!(error, NetworkError::Protocol(_)), "{error:?}");
    let message = std::error::Error::source(&error).unwrap().to_string();
    assert!(
        message.contains("262144") && message.contains("http2_max_header_list_size"),
        "{message}"
    );
    // A stream error: the next request on the same connection is answered.
    let status = send_status(&transport, &format!("http://{addr}/{}", 1024)).await;
    assert_eq!(status.unwrap(), 200);
}

#[tokio::test]
async fn the_http2_header_list_limit_can_be_lowered_and_raised() {
    let addr = h2_server_with_heads().await;
    let lowered = h2_client()
        .http2_max_header_list_size(16 * 1024)
        .build()
        .unwrap();
    let url = format!("http://{addr}/{}", 24 * 1024);
    assert!(matches!(
        send_status(&lowered, &url).await,
        Err(NetworkError::Protocol(_))
    ));
    let raised = h2_client()
        .http2_max_header_list_size(1024 * 1024)
        .build()
        .unwrap();
    let url = format!("http://{addr}/{}", 400 * 1024);
    assert_eq!(send_status(&raised, &url).await.unwrap(), 200);
}

/// A peer that opens an HTTP/2 connection (its SETTINGS, and the acknowledgement of the
/// client's) and then reads nothing and answers nothing, PINGs included.
async fn h2_peer_that_goes_silent() -> Server {
    raw_server(|mut stream| async move {
        let mut preface = [0u8; 24];
        if stream.read_exact(&mut preface).await.is_err() {
            return;
        }
        // An empty SETTINGS frame, then a SETTINGS acknowledgement (RFC 9113 §6.5).
        let frames = [
            0, 0, 0, 4, 0, 0, 0, 0, 0, //
            0, 0, 0, 4, 1, 0, 0, 0, 0,
        ];
        let _ = stream.write_all(&frames).await;
        std::future::pending::<()>().await;
    })
    .await
}

#[tokio::test]
async fn an_unanswered_keep_alive_ping_fails_the_request_before_the_read_timeout() {
    let server = h2_peer_that_goes_silent().await;
    let transport = h2_client()
        .read_timeout(Some(Duration::from_secs(600)))
        .http2_keep_alive_interval(Duration::from_millis(100))
        .http2_keep_alive_timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let error = send_status(&transport, &server.url("/")).await.unwrap_err();
    assert!(
        matches!(
            error,
            NetworkError::Timeout {
                kind: TimeoutKind::KeepAlive,
                ..
            }
        ),
        "{error:?}"
    );
}

#[tokio::test]
async fn without_keep_alive_pings_a_silent_peer_holds_the_request() {
    let server = h2_peer_that_goes_silent().await;
    let transport = h2_client().build().unwrap();
    let waited = tokio::time::timeout(
        Duration::from_millis(800),
        transport.send(get(&server.url("/")), SendOptions::new()),
    )
    .await;
    assert!(waited.is_err(), "the request should still be waiting");
}

#[tokio::test]
async fn http2_window_and_frame_settings_still_carry_a_large_body() {
    let (base, _) = h2_server(
        |_| {},
        |_request| async { http::Response::new(full(vec![7u8; 3 * 1024 * 1024])) },
    )
    .await;
    for transport in [
        h2_client()
            .http2_initial_stream_window_size(64 * 1024)
            .http2_initial_connection_window_size(128 * 1024)
            .http2_max_frame_size(64 * 1024)
            .build()
            .unwrap(),
        h2_client().http2_adaptive_window(true).build().unwrap(),
    ] {
        let body = tokio::time::timeout(LIMIT, async {
            let response = transport
                .send(get(&format!("{base}/")), SendOptions::new())
                .await
                .unwrap();
            read_all(response.into_body()).await.unwrap()
        })
        .await
        .unwrap();
        assert_eq!(body.len(), 3 * 1024 * 1024);
    }
}

/// A server allowing two streams per connection, holding every request until the test
/// lets them go; counts the requests it has seen.
async fn two_stream_server() -> (String, Arc<AtomicUsize>, Arc<AtomicUsize>, Arc<Notify>) {
    let seen = Arc::new(AtomicUsize::new(0));
    let release = Arc::new(Notify::new());
    let (counted, released) = (Arc::clone(&seen), Arc::clone(&release));
    let (base, live) = h2_server(
        |builder| {
            builder.max_concurrent_streams(2);
        },
        move |_request| {
            let (seen, release) = (Arc::clone(&counted), Arc::clone(&released));
            async move {
                let notified = release.notified();
                seen.fetch_add(1, Ordering::SeqCst);
                notified.await;
                http::Response::new(full("ok"))
            }
        },
    )
    .await;
    (base, live, seen, release)
}

/// Sends `count` requests, each a while after the one before, and gives their tasks.
async fn staggered(
    transport: &Arc<HyperTransport>,
    url: &str,
    count: usize,
) -> Vec<tokio::task::JoinHandle<(http::StatusCode, String)>> {
    let mut tasks = Vec::new();
    for _ in 0..count {
        let (transport, url) = (Arc::clone(transport), url.to_owned());
        tasks.push(tokio::spawn(
            async move { get_text(&*transport, &url).await },
        ));
        tokio::time::sleep(Duration::from_millis(60)).await;
    }
    tasks
}

/// Lets every request go, those still waiting for a stream included, and checks that
/// each was answered.
async fn answer_all(
    tasks: Vec<tokio::task::JoinHandle<(http::StatusCode, String)>>,
    release: &Notify,
) {
    while !tasks.iter().all(tokio::task::JoinHandle::is_finished) {
        release.notify_waiters();
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
    for task in tasks {
        assert_eq!(task.await.unwrap().1, "ok");
    }
}

#[tokio::test]
async fn a_saturated_connection_gets_another_beside_it_up_to_the_cap() {
    let (base, live, seen, release) = two_stream_server().await;
    let transport = Arc::new(
        HyperTransport::builder()
            .http2_prior_knowledge(true)
            .http2_max_connections_per_origin(3)
            .build()
            .unwrap(),
    );
    // Two streams each: the third request waits on the first connection, which the
    // fourth then finds saturated and opens a second for; and so on, up to three.
    let tasks = staggered(&transport, &format!("{base}/"), 8).await;
    assert!(eventually(|| seen.load(Ordering::SeqCst) == 6).await);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        seen.load(Ordering::SeqCst),
        6,
        "three connections of two streams"
    );
    assert_eq!(live.load(Ordering::SeqCst), 3);
    let stats = transport.pool_stats();
    assert_eq!(stats.origins.len(), 1);
    assert!(stats.origins[0].http2);
    answer_all(tasks, &release).await;
}

#[tokio::test]
async fn by_default_an_origin_keeps_one_http2_connection_and_requests_wait_for_streams() {
    let (base, live, seen, release) = two_stream_server().await;
    let transport = Arc::new(transport());
    let tasks = staggered(&transport, &format!("{base}/"), 5).await;
    assert!(eventually(|| seen.load(Ordering::SeqCst) == 2).await);
    tokio::time::sleep(Duration::from_millis(100)).await;
    assert_eq!(
        seen.load(Ordering::SeqCst),
        2,
        "two streams, the rest waiting"
    );
    assert_eq!(live.load(Ordering::SeqCst), 1);
    answer_all(tasks, &release).await;
    assert_eq!(live.load(Ordering::SeqCst), 1);
}

/// An HTTPS server speaking HTTP/2 at `bind`, presenting the certificate of each name in
/// `certificates` to a client asking for that name (SNI). Answers each request with the
/// number of its connection and the host it asked for (`"1 a.test"`), or, with
/// `misdirect`, `421 Misdirected Request` to a request whose host is not the
/// connection's SNI name. Gives its address, how many connections it accepted and how many
/// requests it answered 421.
async fn h2_tls_server(
    bind: std::net::SocketAddr,
    certificates: &[(&str, &TestPki)],
    misdirect: bool,
) -> (std::net::SocketAddr, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let provider = rustls::crypto::aws_lc_rs::default_provider();
    let mut resolver = rustls::server::ResolvesServerCertUsingSni::new();
    for (name, pki) in certificates {
        let key = provider
            .key_provider
            .load_private_key(pki.key.clone_key())
            .unwrap();
        let certified = rustls::sign::CertifiedKey::new(vec![pki.cert.clone()], key);
        resolver.add(name, certified).unwrap();
    }
    let mut config = rustls::ServerConfig::builder_with_provider(Arc::new(provider))
        .with_safe_default_protocol_versions()
        .unwrap()
        .with_no_client_auth()
        .with_cert_resolver(Arc::new(resolver));
    config.alpn_protocols = vec![b"h2".to_vec()];
    let acceptor = tokio_rustls::TlsAcceptor::from(Arc::new(config));
    let listener = TcpListener::bind(bind).await.unwrap();
    let addr = listener.local_addr().unwrap();
    let accepted = Arc::new(AtomicUsize::new(0));
    let misdirected = Arc::new(AtomicUsize::new(0));
    let (counted, refused) = (Arc::clone(&accepted), Arc::clone(&misdirected));
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            let number = counted.fetch_add(1, Ordering::SeqCst) + 1;
            let (acceptor, refused) = (acceptor.clone(), Arc::clone(&refused));
            tokio::spawn(async move {
                let Ok(tls) = acceptor.accept(tcp).await else {
                    return;
                };
                let sni = tls.get_ref().1.server_name().unwrap_or_default().to_owned();
                let service = service_fn(move |request: http::Request<Incoming>| {
                    let host = request.uri().host().unwrap_or_default().to_owned();
                    let response = if misdirect && host != sni {
                        refused.fetch_add(1, Ordering::SeqCst);
                        http::Response::builder()
                            .status(421)
                            .body(full(""))
                            .unwrap()
                    } else {
                        http::Response::new(full(format!("{number} {host}")))
                    };
                    async move { Ok::<_, Infallible>(response) }
                });
                let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(tls), service)
                    .await;
            });
        }
    });
    (addr, accepted, misdirected)
}

/// The body `transport` gets for `url`, its `{port}` replaced by `port`.
async fn body_at(transport: &HyperTransport, url: &str, port: u16) -> String {
    get_text(transport, &url.replace("{port}", &port.to_string()))
        .await
        .1
}

/// A transport trusting `pki`'s CA, with each of `names` resolved to its address.
fn tls_transport(pki: &[&TestPki], names: &[(&str, std::net::SocketAddr)]) -> HyperTransport {
    let mut builder = HyperTransport::builder().tls_built_in_roots(false);
    for pki in pki {
        builder = builder.add_root_certificate_der(pki.ca_der.clone());
    }
    for (name, addr) in names {
        builder = builder.resolve(name, *addr);
    }
    builder.build().unwrap()
}

/// A server whose certificate names a.test and b.test, both resolved to it, and a
/// transport that has made its first request, to a.test, on connection 1. Gives the
/// transport, the port, and the server's counts of connections and of 421s.
async fn two_names_one_server(
    misdirect: bool,
) -> (HyperTransport, u16, Arc<AtomicUsize>, Arc<AtomicUsize>) {
    let pki = TestPki::new(&["a.test", "b.test"]);
    let localhost = "127.0.0.1:0".parse().unwrap();
    let (addr, accepted, misdirected) =
        h2_tls_server(localhost, &[("a.test", &pki), ("b.test", &pki)], misdirect).await;
    let transport = tls_transport(&[&pki], &[("a.test", addr), ("b.test", addr)]);
    let port = addr.port();
    assert_eq!(
        body_at(&transport, "https://a.test:{port}/", port).await,
        "1 a.test"
    );
    (transport, port, accepted, misdirected)
}

#[tokio::test]
async fn an_origin_shares_a_connection_whose_certificate_covers_it_at_its_address() {
    let (transport, port, accepted, _) = two_names_one_server(false).await;
    // b.test resolves to the same address, and the certificate names it: one connection.
    let b = get_text(&transport, &format!("https://b.test:{port}/")).await;
    assert_eq!(b.1, "1 b.test");
    assert_eq!(
        body_at(&transport, "https://b.test:{port}/", port).await,
        "1 b.test"
    );
    assert_eq!(accepted.load(Ordering::SeqCst), 1);
    let stats = transport.pool_stats();
    assert_eq!(stats.origins.len(), 2);
    assert!(stats.origins.iter().all(|origin| origin.http2));
    assert_eq!(stats.connections_opened, 1);
}

#[tokio::test]
async fn a_request_asking_for_a_new_connection_shares_none() {
    let (transport, port, accepted, _) = two_names_one_server(false).await;
    let request = get(&format!("https://b.test:{port}/"));
    let options = SendOptions::new().with_new_connection(true);
    let response = tokio::time::timeout(LIMIT, transport.send(request, options))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(read_all(response.into_body()).await.unwrap(), "2 b.test");
    assert_eq!(accepted.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn an_origin_at_another_address_gets_its_own_connection() {
    let pki = TestPki::new(&["a.test", "b.test"]);
    let names = [("a.test", &pki), ("b.test", &pki)];
    let (first, accepted_first, _) =
        h2_tls_server("127.0.0.1:0".parse().unwrap(), &names, false).await;
    // The same port on another loopback address: another server.
    let other = std::net::SocketAddr::new("127.0.0.2".parse().unwrap(), first.port());
    let (second, accepted_second, _) = h2_tls_server(other, &names, false).await;
    let transport = tls_transport(&[&pki], &[("a.test", first), ("b.test", second)]);
    let port = first.port();
    assert_eq!(
        body_at(&transport, "https://a.test:{port}/", port).await,
        "1 a.test"
    );
    assert_eq!(
        body_at(&transport, "https://b.test:{port}/", port).await,
        "1 b.test"
    );
    assert_eq!(accepted_first.load(Ordering::SeqCst), 1);
    assert_eq!(accepted_second.load(Ordering::SeqCst), 1);
}

#[tokio::test]
async fn a_misdirected_request_goes_again_on_a_connection_of_its_own() {
    let (transport, port, accepted, misdirected) = two_names_one_server(true).await;
    // Shared at first; the 421 sends it again on b.test's own connection, which b.test
    // keeps from then on.
    let (status, body) = get_text(&transport, &format!("https://b.test:{port}/")).await;
    assert_eq!((status.as_u16(), body.as_str()), (200, "2 b.test"));
    assert_eq!(
        body_at(&transport, "https://b.test:{port}/", port).await,
        "2 b.test"
    );
    assert_eq!(
        body_at(&transport, "https://a.test:{port}/", port).await,
        "1 a.test"
    );
    assert_eq!(accepted.load(Ordering::SeqCst), 2);
    assert_eq!(
        misdirected.load(Ordering::SeqCst),
        1,
        "shared once, then not"
    );
}

/// Resolves every name to one address, counting the lookups of each.
struct Counting {
    addr: std::net::SocketAddr,
    lookups: Mutex<std::collections::HashMap<String, usize>>,
}

impl whatwg_fetch::net::Resolve for Counting {
    fn resolve(&self, name: &str) -> whatwg_fetch::net::ResolveFuture {
        *self
            .lookups
            .lock()
            .unwrap()
            .entry(name.to_owned())
            .or_default() += 1;
        let addr = self.addr;
        Box::pin(async move { Ok(vec![addr]) })
    }
}

#[tokio::test]
async fn an_origin_the_certificate_does_not_name_gets_its_own_connection_and_no_second_lookup() {
    let (pki_a, pki_b) = (TestPki::new(&["a.test"]), TestPki::new(&["b.test"]));
    let localhost = "127.0.0.1:0".parse().unwrap();
    let (addr, accepted, _) =
        h2_tls_server(localhost, &[("a.test", &pki_a), ("b.test", &pki_b)], false).await;
    let resolver = Arc::new(Counting {
        addr,
        lookups: Mutex::new(std::collections::HashMap::new()),
    });
    let transport = HyperTransport::builder()
        .tls_built_in_roots(false)
        .add_root_certificate_der(pki_a.ca_der.clone())
        .add_root_certificate_der(pki_b.ca_der.clone())
        .resolver(Arc::clone(&resolver) as Arc<dyn whatwg_fetch::net::Resolve>)
        .build()
        .unwrap();
    let port = addr.port();
    assert_eq!(
        body_at(&transport, "https://a.test:{port}/", port).await,
        "1 a.test"
    );
    // b.test is looked up to see whether a.test's connection could serve it (it cannot:
    // the certificate does not name it), and its own connection goes to that answer.
    assert_eq!(
        body_at(&transport, "https://b.test:{port}/", port).await,
        "2 b.test"
    );
    let lookups = resolver.lookups.lock().unwrap().clone();
    assert_eq!(lookups.get("b.test"), Some(&1), "{lookups:?}");
    assert_eq!(lookups.get("a.test"), Some(&1), "{lookups:?}");
    assert_eq!(accepted.load(Ordering::SeqCst), 2);
}

#[tokio::test]
async fn a_server_that_allows_no_stream_fails_requests_and_holds_no_connections_for_it() {
    // SETTINGS_MAX_CONCURRENT_STREAMS = 0: the first stream of a connection, sent before
    // the server's SETTINGS arrive, is refused; sent again on a new connection, refused
    // again: a clear error, never a wait for ever.
    let (base, live) = h2_server(
        |builder| {
            builder.max_concurrent_streams(0);
        },
        |_request| async move { http::Response::new(full("never")) },
    )
    .await;
    let transport = HyperTransport::builder()
        .http2_prior_knowledge(true)
        .http2_max_connections_per_origin(2)
        .read_timeout(Some(Duration::from_millis(300)))
        .build()
        .unwrap();
    for _ in 0..5 {
        let error = send(&transport, get(&format!("{base}/")))
            .await
            .unwrap_err();
        let refused = matches!(&error, NetworkError::Protocol(source)
            if format!("{source:?}").contains("REFUSED_STREAM"));
        let timed_out = matches!(
            error,
            NetworkError::Timeout {
                kind: TimeoutKind::Idle,
                ..
            }
        );
        assert!(refused || timed_out, "{error:?}");
    }
    // The pool keeps no more than its cap of them open.
    assert!(
        eventually(|| live.load(Ordering::SeqCst) <= 2).await,
        "{} open",
        live.load(Ordering::SeqCst)
    );
}

#[tokio::test]
async fn http2_prior_knowledge_speaks_h2_over_plain_tcp() {
    let (base, _) = h2_server(
        |_| {},
        |request| async move { http::Response::new(full(format!("{:?}", request.version()))) },
    )
    .await;
    let (_, body) = get_text(&transport(), &format!("{base}/")).await;
    assert_eq!(body, "HTTP/2.0");
}

/// An HTTP/2 server (prior knowledge, over TCP) that resets each stream with the error code
/// its path gives in decimal (`8` for `CANCEL`, RFC 9113 §7): before the response head at
/// `/before-head/CODE`; at `/in-body/CODE` after a head without `Content-Length` and the
/// data `partial`, once `go_on` is notified (the client has read that data).
async fn h2_resetting(go_on: Arc<Notify>) -> Server {
    raw_server(move |stream| {
        let go_on = Arc::clone(&go_on);
        async move {
            let Ok(mut connection) = h2::server::handshake(stream).await else {
                return;
            };
            while let Some(Ok((request, mut respond))) = connection.accept().await {
                let path = request.uri().path().to_owned();
                let (when, code) = path
                    .trim_start_matches('/')
                    .split_once('/')
                    .unwrap_or_default();
                let reason = h2::Reason::from(code.parse::<u32>().unwrap_or(2));
                if when == "before-head" {
                    respond.send_reset(reason);
                    continue;
                }
                let go_on = Arc::clone(&go_on);
                tokio::spawn(async move {
                    let Ok(mut send) = respond.send_response(http::Response::new(()), false) else {
                        return;
                    };
                    let _ = send.send_data(Bytes::from_static(b"partial"), false);
                    go_on.notified().await;
                    send.send_reset(reason);
                });
            }
        }
    })
    .await
}

#[tokio::test]
async fn a_stream_the_server_resets_fails_with_the_code_the_server_sent() {
    let go_on = Arc::new(Notify::new());
    let server = h2_resetting(Arc::clone(&go_on)).await;
    let client = whatwg_fetch::Client::builder()
        .http2_prior_knowledge(true)
        .build()
        .unwrap();
    // Before the response head: the request fails. (`REFUSED_STREAM` is sent again and
    // refused again, see tests/hostile/keepalive_race.rs; the others are not.)
    // (The codes in the URLs are numbers: the messages must name them.)
    for (number, code) in [(8, "CANCEL"), (2, "INTERNAL_ERROR")] {
        let url = server.url(&format!("/before-head/{number}"));
        let error = tokio::time::timeout(LIMIT, client.get(url).send())
            .await
            .expect("the request ends")
            .unwrap_err();
        assert!(
            matches!(error.network_error(), Some(NetworkError::Protocol(_))),
            "{error:#}"
        );
        let said = format!("{error:#}");
        assert!(said.contains(code), "{code}: {said}");
    }
    // In the body: its read fails.
    for (number, code) in [(8, "CANCEL"), (2, "INTERNAL_ERROR")] {
        let url = server.url(&format!("/in-body/{number}"));
        let mut response = tokio::time::timeout(LIMIT, client.get(url).send())
            .await
            .expect("the head comes")
            .unwrap();
        let chunk = response.chunk().await.unwrap();
        assert_eq!(chunk.as_deref(), Some(&b"partial"[..]));
        go_on.notify_one();
        let error = tokio::time::timeout(LIMIT, response.chunk())
            .await
            .expect("the body ends")
            .unwrap_err();
        assert!(error.is_body(), "{error:#}");
        let said = format!("{error:#}");
        assert!(
            said.contains(code) && !said.contains("NO_ERROR"),
            "{code}: {said}"
        );
    }
}
