//! `whatwg_fetch::blocking`: the blocking client against servers on 127.0.0.1, called from
//! plain threads, from inside current-thread and multi-thread Tokio runtimes, its bodies
//! read through `std::io::Read`, its timeouts, and its thread's end.
//!
//! The tests are synchronous (or block inside a runtime), so each server runs on a runtime
//! of its own, on a thread of its own ([`Served`]).

mod net_support;

use std::io::{self, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;
use std::time::{Duration, Instant};

use http_body_util::BodyExt;
use net_support::{
    Server, full, hyper_server, is_closed, raw_server, read_head, request_head_text,
};
use serde::Deserialize;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use whatwg_fetch::blocking::{self, Client};
use whatwg_fetch::{AbortController, ErrorKind, NetworkError, RequestInit, TimeoutKind};

/// The size of `/big`'s body: many chunks of any size a read delivers.
const BIG: usize = 4 << 20;

/// The byte at `index` of `/big`'s body: a pattern no shift or repeat of a chunk keeps.
fn big_byte(index: usize) -> u8 {
    (index % 251) as u8
}

/// A server running on a runtime of its own, on a thread of its own, until dropped.
struct Served {
    server: Server,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<thread::JoinHandle<()>>,
}

impl Served {
    fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    /// Connections open now.
    fn live(&self) -> usize {
        self.server.counts.live.load(Ordering::SeqCst)
    }
}

impl Drop for Served {
    fn drop(&mut self) {
        drop(self.stop.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// Starts the server `start` makes on a new thread's runtime.
fn serve<F, Fut>(start: F) -> Served
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = Server>,
{
    let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
    let (ready, started) = std::sync::mpsc::channel();
    let thread = thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let server = start().await;
            ready.send(server).unwrap();
            let _ = stopped.await;
        });
    });
    let server = started.recv().unwrap();
    Served {
        server,
        stop: Some(stop),
        thread: Some(thread),
    }
}

/// Routes: `/text` (`hello`), `/json` (`{"id":7,"name":"Ada"}`), `/status/N`, `/slow/MS`
/// (answers after MS milliseconds), `/big` ([`BIG`] bytes of [`big_byte`]), and anything
/// else echoes the request line, headers and body.
fn server() -> Served {
    serve(|| {
        hyper_server(|request| async move {
            let path = request.uri().path().to_owned();
            let mut parts = path.trim_start_matches('/').splitn(2, '/');
            match (parts.next().unwrap_or_default(), parts.next()) {
                ("text", _) => http::Response::new(full("hello")),
                ("json", _) => http::Response::builder()
                    .header("content-type", "application/json")
                    .body(full(r#"{"id":7,"name":"Ada"}"#))
                    .unwrap(),
                ("status", Some(status)) => http::Response::builder()
                    .status(status.parse::<u16>().unwrap())
                    .body(full("a problem"))
                    .unwrap(),
                ("slow", Some(ms)) => {
                    tokio::time::sleep(Duration::from_millis(ms.parse().unwrap())).await;
                    http::Response::new(full("late"))
                }
                ("big", _) => http::Response::new(full((0..BIG).map(big_byte).collect::<Vec<_>>())),
                _ => {
                    let mut text = request_head_text(&request);
                    let body = request.into_body().collect().await.unwrap().to_bytes();
                    text.push('\n');
                    text.push_str(&String::from_utf8_lossy(&body));
                    http::Response::new(full(text))
                }
            }
        })
    })
}

/// A server that sends a head promising `length` bytes, then `sent` of them, then closes
/// the connection after `then`, or when the client closes it.
fn short_body_server(length: usize, sent: usize, then: Duration) -> Served {
    serve(move || {
        raw_server(move |mut stream| async move {
            if read_head(&mut stream).await.is_none() {
                return;
            }
            let head = format!("HTTP/1.1 200 OK\r\ncontent-length: {length}\r\n\r\n");
            let _ = stream.write_all(head.as_bytes()).await;
            let _ = stream.write_all(&vec![b'x'; sent]).await;
            let _ = stream.flush().await;
            tokio::select! {
                () = tokio::time::sleep(then) => {}
                _ = is_closed(&mut stream) => {}
            }
        })
    })
}

/// The number of chunks [`many_chunks_server`] sends: more than a Tokio task's
/// cooperative budget (128) allows it to receive without yielding.
const CHUNKS: usize = 1000;

/// A server that sends a chunked body of [`CHUNKS`] chunks of 64 bytes, each of
/// [`big_byte`]s at its place, flushed one by one.
fn many_chunks_server() -> Served {
    serve(|| {
        raw_server(|mut stream| async move {
            if read_head(&mut stream).await.is_none() {
                return;
            }
            let head = "HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n";
            let _ = stream.write_all(head.as_bytes()).await;
            for chunk in 0..CHUNKS {
                let bytes: Vec<u8> = (chunk * 64..(chunk + 1) * 64).map(big_byte).collect();
                let mut framed = b"40\r\n".to_vec();
                framed.extend_from_slice(&bytes);
                framed.extend_from_slice(b"\r\n");
                if stream.write_all(&framed).await.is_err() {
                    return;
                }
                let _ = stream.flush().await;
            }
            let _ = stream.write_all(b"0\r\n\r\n").await;
            let _ = is_closed(&mut stream).await;
        })
    })
}

/// Reads [`many_chunks_server`]'s body through `Read` and checks it.
fn read_many_chunks(served: &Served, client: &Client) {
    let mut response = client.get(served.url("/")).send().unwrap();
    let (body, _) = read_in_pieces(&mut response).unwrap();
    assert_eq!(body.len(), CHUNKS * 64);
    assert!(
        body.iter()
            .enumerate()
            .all(|(index, &byte)| byte == big_byte(index))
    );
}

fn client() -> Client {
    Client::builder().build().unwrap()
}

/// Reads `response` through `Read` to its end, in reads of 8 KiB, and returns the bytes
/// and the number of reads that returned some.
fn read_in_pieces(response: &mut impl Read) -> io::Result<(Vec<u8>, usize)> {
    let mut body = Vec::new();
    let mut reads = 0;
    let mut buf = [0; 8192];
    loop {
        let n = response.read(&mut buf)?;
        if n == 0 {
            return Ok((body, reads));
        }
        reads += 1;
        body.extend_from_slice(&buf[..n]);
    }
}

/// Checks that `body` is `/big`'s.
fn assert_big(body: &[u8]) {
    assert_eq!(body.len(), BIG);
    if let Some(at) = (0..BIG).find(|&index| body[index] != big_byte(index)) {
        panic!("byte {at} differs");
    }
}

#[derive(Debug, Deserialize, PartialEq)]
struct Person {
    id: u64,
    name: String,
}

/// What the blocking tests inside runtimes do: a GET, a JSON GET, and `/big` through `Read`.
fn get_text_json_and_stream(served: &Served, client: &Client) {
    assert_eq!(
        client
            .get(served.url("/text"))
            .send()
            .unwrap()
            .text()
            .unwrap(),
        "hello"
    );
    let person: Person = client
        .get(served.url("/json"))
        .send()
        .unwrap()
        .json()
        .unwrap();
    assert_eq!(person.name, "Ada");
    let mut response = client.get(served.url("/big")).send().unwrap();
    let (body, _) = read_in_pieces(&mut response).unwrap();
    assert_big(&body);
}

#[test]
fn a_get_reads_text_and_json_from_a_plain_thread() {
    let served = server();
    let client = client();
    let response = client.get(served.url("/text")).send().unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.status_code(), Some(http::StatusCode::OK));
    assert_eq!(response.url(), served.url("/text"));
    assert_eq!(response.content_length(), Some(5));
    assert_eq!(response.text().unwrap(), "hello");

    let response = client.get(served.url("/json")).send().unwrap();
    assert_eq!(
        response.headers().get("content-type").unwrap().as_deref(),
        Some("application/json")
    );
    let person: Person = response.json().unwrap();
    assert_eq!(
        person,
        Person {
            id: 7,
            name: "Ada".into()
        }
    );
}

#[test]
fn the_free_functions_fetch_on_the_shared_client() {
    let served = server();
    assert_eq!(
        blocking::get(served.url("/text")).unwrap().text().unwrap(),
        "hello"
    );
    let init = RequestInit {
        method: Some("PUT".into()),
        body: Some("put body".into()),
        ..Default::default()
    };
    let echoed = blocking::fetch(served.url("/echo"), init)
        .unwrap()
        .text()
        .unwrap();
    assert!(echoed.starts_with("PUT /echo\n"), "{echoed}");
    assert!(echoed.ends_with("\nput body"), "{echoed}");
}

#[test]
fn a_post_sends_json_with_a_bearer_token_and_a_query() {
    let served = server();
    let echoed = client()
        .post(served.url("/items"))
        .bearer_auth("secret-token")
        .query(&[("dry_run", "true"), ("tag", "a b")])
        .json(&serde_json::json!({ "name": "first" }))
        .send()
        .unwrap()
        .error_for_status()
        .unwrap()
        .text()
        .unwrap();
    assert!(
        echoed.starts_with("POST /items?dry_run=true&tag=a+b\n"),
        "{echoed}"
    );
    assert!(
        echoed.contains("\nauthorization: Bearer secret-token\n"),
        "{echoed}"
    );
    assert!(
        echoed.contains("\ncontent-type: application/json\n"),
        "{echoed}"
    );
    assert!(echoed.ends_with("\n{\"name\":\"first\"}"), "{echoed}");
}

#[test]
fn a_body_of_many_chunks_streams_through_read_byte_for_byte() {
    let served = server();
    let mut response = client().get(served.url("/big")).send().unwrap();
    assert_eq!(response.content_length(), Some(BIG as u64));
    let (body, reads) = read_in_pieces(&mut response).unwrap();
    assert_big(&body);
    assert!(reads > 1, "{reads} reads");
    // At its end, a read gives 0 again.
    assert_eq!(response.read(&mut [0; 16]).unwrap(), 0);
}

#[test]
fn copy_to_writes_the_whole_body() {
    let served = server();
    let mut response = client().get(served.url("/big")).send().unwrap();
    let mut out = Vec::new();
    assert_eq!(response.copy_to(&mut out).unwrap(), BIG as u64);
    assert_big(&out);
}

#[test]
fn a_whole_body_read_after_a_read_through_read_is_a_type_error() {
    let served = server();
    let mut response = client().get(served.url("/big")).send().unwrap();
    let mut first = [0; 10];
    response.read_exact(&mut first).unwrap();
    let error = response.bytes().unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
}

#[test]
fn a_body_cut_short_fails_a_read_with_the_crate_error_inside() {
    // The connection closes after 50,000 of the 100,000 bytes promised.
    let served = short_body_server(100_000, 50_000, Duration::ZERO);
    let mut response = client().get(served.url("/")).send().unwrap();
    let mut read = 0;
    let mut buf = [0; 4096];
    let error = loop {
        match response.read(&mut buf) {
            Ok(0) => panic!("a cut body read as whole, {read} bytes"),
            Ok(n) => read += n,
            Err(error) => break error,
        }
    };
    assert_eq!(read, 50_000, "every byte sent is read before the error");
    assert_eq!(error.kind(), io::ErrorKind::Other);
    let inner = error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<whatwg_fetch::Error>())
        .expect("the crate's error inside");
    assert_eq!(inner.kind(), ErrorKind::TypeError);
    assert!(inner.network_error().is_some(), "{inner:?}");
    // The read after gives the same error again, not an end.
    let again = response.read(&mut buf).unwrap_err();
    assert!(
        again
            .get_ref()
            .and_then(|inner| inner.downcast_ref::<whatwg_fetch::Error>())
            .is_some()
    );
    // `copy_to` gives the crate's error itself.
    let mut response = client().get(served.url("/")).send().unwrap();
    let error = response.copy_to(&mut io::sink()).unwrap_err();
    assert!(error.network_error().is_some(), "{error:?}");
}

#[test]
fn error_for_status_turns_a_404_into_a_status_error_and_ref_keeps_the_body() {
    let served = server();
    let client = client();
    let error = client
        .get(served.url("/status/404"))
        .send()
        .unwrap()
        .error_for_status()
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::HttpStatus);
    assert_eq!(error.status(), Some(http::StatusCode::NOT_FOUND));
    assert_eq!(error.url(), Some(served.url("/status/404").as_str()));

    let response = client.get(served.url("/status/503")).send().unwrap();
    let error = response.error_for_status_ref().unwrap_err();
    assert_eq!(error.status(), Some(http::StatusCode::SERVICE_UNAVAILABLE));
    assert_eq!(response.text().unwrap(), "a problem");

    let fine = client.get(served.url("/text")).send().unwrap();
    assert!(fine.error_for_status_ref().is_ok());
}

#[test]
fn a_request_timeout_fires_before_the_head() {
    let served = server();
    let started = Instant::now();
    let error = client()
        .get(served.url("/slow/5000"))
        .timeout(Duration::from_millis(200))
        .send()
        .unwrap_err();
    assert!(error.is_timeout(), "{error:?}");
    assert!(matches!(
        error.network_error(),
        Some(NetworkError::Timeout {
            kind: TimeoutKind::Total,
            ..
        })
    ));
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn a_request_timeout_fires_while_the_body_is_read() {
    // The head and 10 bytes come at once, the rest never.
    let served = short_body_server(1000, 10, Duration::from_secs(10));
    let started = Instant::now();
    let mut response = client()
        .get(served.url("/"))
        .timeout(Duration::from_millis(300))
        .send()
        .unwrap();
    let mut buf = [0; 100];
    assert_eq!(response.read(&mut buf).unwrap(), 10);
    let error = response.read(&mut buf).unwrap_err();
    assert_eq!(error.kind(), io::ErrorKind::TimedOut);
    let inner = error
        .get_ref()
        .and_then(|inner| inner.downcast_ref::<whatwg_fetch::Error>())
        .expect("the crate's error inside");
    assert!(inner.is_timeout(), "{inner:?}");
    assert!(
        started.elapsed() < Duration::from_secs(5),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn the_client_timeout_applies_when_a_request_sets_none() {
    let served = server();
    let client = Client::builder()
        .timeout(Duration::from_millis(200))
        .build()
        .unwrap();
    let error = client.get(served.url("/slow/5000")).send().unwrap_err();
    assert!(error.is_timeout(), "{error:?}");
    // A request's own timeout replaces it.
    let response = client
        .get(served.url("/slow/300"))
        .timeout(Duration::from_secs(5))
        .send()
        .unwrap();
    assert_eq!(response.text().unwrap(), "late");
}

#[test]
fn a_signal_aborted_from_another_thread_ends_a_send_waiting_for_its_head() {
    let served = server();
    let controller = AbortController::new();
    let signal = controller.signal();
    let aborter = thread::spawn(move || {
        thread::sleep(Duration::from_millis(200));
        controller.abort(None);
    });
    let started = Instant::now();
    let error = client()
        .get(served.url("/slow/5000"))
        .signal(signal)
        .send()
        .unwrap_err();
    aborter.join().unwrap();
    assert!(error.is_abort(), "{error:?}");
    assert!(
        started.elapsed() < Duration::from_secs(3),
        "{:?}",
        started.elapsed()
    );
}

#[test]
fn client_new_and_default_fetch_from_a_plain_thread() {
    let served = server();
    for client in [Client::new(), Client::default()] {
        get_text_json_and_stream(&served, &client);
    }
}

#[tokio::test]
async fn client_new_fetches_inside_a_current_thread_runtime() {
    let served = server();
    // Made, used and dropped in the runtime's own task.
    let client = Client::new();
    get_text_json_and_stream(&served, &client);
    drop(client);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn client_new_fetches_inside_a_multi_thread_runtime_and_in_spawn_blocking() {
    let served = std::sync::Arc::new(server());
    let client = Client::new();
    get_text_json_and_stream(&served, &client);
    let served_blocking = served.clone();
    tokio::task::spawn_blocking(move || {
        get_text_json_and_stream(&served_blocking, &Client::default())
    })
    .await
    .unwrap();
    drop(client);
}

#[tokio::test]
async fn calls_work_inside_a_current_thread_tokio_test() {
    let served = server();
    // Built, used and dropped inside the runtime, in the test's own task.
    let client = client();
    get_text_json_and_stream(&served, &client);
    // More chunks than the task's cooperative budget allows it to receive without
    // yielding, which a blocking read never does.
    read_many_chunks(&many_chunks_server(), &client);
    drop(client);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn calls_work_inside_a_multi_thread_runtime_in_a_task_and_in_spawn_blocking() {
    let served = std::sync::Arc::new(server());
    let client = client();
    get_text_json_and_stream(&served, &client);

    let (in_task, in_blocking) = (client.clone(), client.clone());
    let served_task = served.clone();
    tokio::spawn(async move {
        get_text_json_and_stream(&served_task, &in_task);
        read_many_chunks(&many_chunks_server(), &in_task);
    })
    .await
    .unwrap();
    let served_blocking = served.clone();
    tokio::task::spawn_blocking(move || get_text_json_and_stream(&served_blocking, &in_blocking))
        .await
        .unwrap();
    drop(client);
}

#[test]
fn a_client_made_outside_a_runtime_is_dropped_inside_one_without_panic() {
    let served = server();
    let client = client();
    let response = client.get(served.url("/text")).send().unwrap();
    for flavor in ["current_thread", "multi_thread"] {
        let runtime = match flavor {
            "current_thread" => tokio::runtime::Builder::new_current_thread(),
            _ => tokio::runtime::Builder::new_multi_thread(),
        }
        .enable_all()
        .build()
        .unwrap();
        let client = client.clone();
        runtime.block_on(async move {
            // The last of the clones made here; the one outside keeps the thread.
            drop(client);
        });
    }
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(async move {
        // The last client and the last response, dropped in a task.
        drop(client);
        assert_eq!(response.text().unwrap(), "hello");
    });
}

#[test]
fn a_response_is_read_after_its_client_is_dropped() {
    let served = server();
    let client = client();
    let mut streamed = client.get(served.url("/big")).send().unwrap();
    let whole = client.get(served.url("/json")).send().unwrap();
    drop(client);
    let (body, _) = read_in_pieces(&mut streamed).unwrap();
    assert_big(&body);
    let person: Person = whole.json().unwrap();
    assert_eq!(person.id, 7);
}

/// Waits until `condition` holds, for at most five seconds.
fn eventually(condition: impl Fn() -> bool) -> bool {
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if condition() {
            return true;
        }
        thread::sleep(Duration::from_millis(10));
    }
    condition()
}

#[test]
fn dropping_the_last_client_stops_its_thread_and_closes_its_connections() {
    let served = server();
    let client = client();
    assert_eq!(
        client
            .get(served.url("/text"))
            .send()
            .unwrap()
            .text()
            .unwrap(),
        "hello"
    );
    // The connection is idle in the pool, kept for 90 seconds while the client lives.
    thread::sleep(Duration::from_millis(100));
    assert_eq!(served.live(), 1);
    let copy = client.clone();
    drop(client);
    thread::sleep(Duration::from_millis(100));
    assert_eq!(served.live(), 1, "a clone keeps the pool");
    drop(copy);
    assert!(
        eventually(|| served.live() == 0),
        "the pooled connection is still open"
    );
}

#[test]
fn a_response_dropped_unread_closes_its_connection() {
    let served = short_body_server(1_000_000, 1000, Duration::from_secs(10));
    let client = client();
    let response = client.get(served.url("/")).send().unwrap();
    assert!(eventually(|| served.live() == 1));
    drop(response);
    assert!(
        eventually(|| served.live() == 0),
        "the unread body's connection is open"
    );
}

#[test]
fn a_reader_dropped_mid_body_closes_its_connection() {
    let served = short_body_server(1_000_000, 100_000, Duration::from_secs(10));
    let client = client();
    let mut response = client.get(served.url("/")).send().unwrap();
    let mut buf = [0; 1000];
    response.read_exact(&mut buf).unwrap();
    drop(response);
    assert!(
        eventually(|| served.live() == 0),
        "the read body's connection is open"
    );
}

#[test]
fn a_head_request_and_a_request_builder_clone_work() {
    let served = server();
    let client = client();
    let mut response = client.head(served.url("/text")).send().unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.read(&mut [0; 10]).unwrap(), 0);

    let builder = client.post(served.url("/again")).body("same body");
    let copy = builder.try_clone().expect("a text body can be cloned");
    for builder in [builder, copy] {
        let echoed = builder.send().unwrap().text().unwrap();
        assert!(echoed.ends_with("\nsame body"), "{echoed}");
    }
}

#[tokio::test]
async fn a_server_on_the_callers_runtime_is_reached_from_spawn_blocking() {
    // The server's tasks run on this runtime, which the call must not block: it runs in
    // `spawn_blocking`, as the module documentation says.
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let _ = stream.read(&mut [0; 4096]).await;
        let _ = stream
            .write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok")
            .await;
        let _ = stream.read(&mut [0; 1]).await;
    });
    let text = tokio::task::spawn_blocking(move || {
        let client = client();
        client.get(format!("http://{addr}/")).send()?.text()
    })
    .await
    .unwrap()
    .unwrap();
    assert_eq!(text, "ok");
}

/// A transport that panics: in `send`, or in its body's first poll.
struct Panicking {
    in_body: bool,
}

impl whatwg_fetch::net::Transport for Panicking {
    fn send(
        &self,
        _request: http::Request<whatwg_fetch::net::RequestBody>,
        _options: whatwg_fetch::net::SendOptions,
    ) -> whatwg_fetch::net::TransportFuture {
        let in_body = self.in_body;
        Box::pin(async move {
            assert!(in_body, "the transport broke");
            let body = futures_util::stream::poll_fn(|_| -> std::task::Poll<Option<_>> {
                panic!("the body broke")
            });
            Ok(http::Response::new(
                whatwg_fetch::net::ResponseBody::from_stream(body),
            ))
        })
    }
}

/// A panic in code the client runs on its thread (a transport, a cookie provider) fails
/// the call, or the read, with an error that says so and carries the panic's message; the
/// thread lives on, and the next call works.
#[test]
fn a_panic_on_the_clients_thread_is_an_error_that_says_so() {
    for in_body in [false, true] {
        let client = blocking::Client::builder()
            .transport(std::sync::Arc::new(Panicking { in_body }))
            .build()
            .unwrap();
        let error = match client.get("http://panic.test/").send() {
            Err(error) => error,
            Ok(mut response) => {
                let mut body = Vec::new();
                let error = response.read_to_end(&mut body).unwrap_err();
                *error
                    .into_inner()
                    .unwrap()
                    .downcast::<whatwg_fetch::Error>()
                    .unwrap()
            }
        };
        let message = error.to_string();
        let broke = if in_body {
            "the body broke"
        } else {
            "the transport broke"
        };
        assert!(
            message.contains("panicked") && message.contains(broke),
            "{message}"
        );
        assert_eq!(
            client
                .get("data:,still%20here")
                .send()
                .unwrap()
                .text()
                .unwrap(),
            "still here"
        );
    }
}

/// Whether `error` or an error in its chain of sources is an `io::Error` of `kind` saying
/// `message`.
fn caused_by_io(
    error: &(dyn std::error::Error + 'static),
    kind: io::ErrorKind,
    message: &str,
) -> bool {
    let mut next = Some(error);
    while let Some(error) = next {
        if let Some(io) = error.downcast_ref::<io::Error>() {
            if io.kind() == kind && io.to_string() == message {
                return true;
            }
        }
        next = error.source();
    }
    false
}

/// The text of `error` and every source under it, one after the other.
fn chain_text(error: &(dyn std::error::Error + 'static)) -> String {
    let mut text = error.to_string();
    let mut next = error.source();
    while let Some(error) = next {
        text.push_str(": ");
        text.push_str(&error.to_string());
        next = error.source();
    }
    text
}

/// A reader that counts the bytes it has given.
struct Counted<R> {
    inner: R,
    given: std::sync::Arc<std::sync::atomic::AtomicU64>,
}

impl<R: Read> Read for Counted<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.given.fetch_add(n as u64, Ordering::SeqCst);
        Ok(n)
    }
}

/// A reader of `before` bytes of [`big_byte`]s, then `error`.
struct FailingAfter {
    at: usize,
    before: usize,
    error: Option<io::Error>,
}

impl Read for FailingAfter {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.at == self.before {
            return Err(self
                .error
                .take()
                .unwrap_or_else(|| io::Error::other("read again after its error")));
        }
        let n = buf.len().min(self.before - self.at);
        for (offset, byte) in buf[..n].iter_mut().enumerate() {
            *byte = big_byte(self.at + offset);
        }
        self.at += n;
        Ok(n)
    }
}

/// A server that answers each request with what it received: its `content-length` and
/// `transfer-encoding` (or `-`), the body's length, and whether the body is [`big_byte`]s.
fn upload_server() -> Served {
    serve(|| {
        hyper_server(|request| async move {
            let header = |name: &str| {
                request
                    .headers()
                    .get(name)
                    .map_or("-".to_owned(), |value| value.to_str().unwrap().to_owned())
            };
            let (length, coding) = (header("content-length"), header("transfer-encoding"));
            let Ok(body) = request.into_body().collect().await else {
                return http::Response::new(full("the body broke"));
            };
            let body = body.to_bytes();
            let pattern = body
                .iter()
                .enumerate()
                .all(|(index, &byte)| byte == big_byte(index));
            http::Response::new(full(format!("{length} {coding} {} {pattern}", body.len())))
        })
    })
}

#[test]
fn a_reader_body_arrives_whole_with_or_without_a_length() {
    let served = upload_server();
    let client = client();
    let size = 1_000_000;
    let pattern = || FailingAfter {
        at: 0,
        before: size,
        error: None,
    };
    // Of no known length: chunked.
    let reader = pattern().take(size as u64);
    let body = blocking::Body::new(reader);
    assert_eq!(body.len(), None);
    let answer = client.put(served.url("/upload")).body(body).send().unwrap();
    assert_eq!(answer.text().unwrap(), format!("- chunked {size} true"));
    // Sized: under its `Content-Length`.
    let reader = pattern().take(size as u64);
    let answer = client
        .put(served.url("/upload"))
        .body(blocking::Body::sized(reader, size as u64))
        .send()
        .unwrap();
    assert_eq!(answer.text().unwrap(), format!("{size} - {size} true"));
    // An empty reader.
    let answer = client
        .put(served.url("/upload"))
        .body(blocking::Body::sized(io::empty(), 0))
        .send()
        .unwrap();
    assert_eq!(answer.text().unwrap(), "0 - 0 true");
}

#[test]
fn a_sized_reader_that_gives_fewer_bytes_fails_and_one_with_more_is_read_to_its_length() {
    let served = upload_server();
    let client = client();
    let short = io::repeat(b'x').take(1000);
    let error = client
        .put(served.url("/upload"))
        .body(blocking::Body::sized(short, 5000))
        .send()
        .unwrap_err();
    let text = chain_text(&error);
    assert!(
        text.contains("ended after 1000 bytes, fewer than the 5000"),
        "{text}"
    );
    // A reader with more than its length: the length is sent, and the reader is not asked
    // for more, which here would wait until the test ends (as a socket or a pipe may).
    let (release, more) = std::sync::mpsc::channel::<()>();
    let asked = Arc::new(AtomicUsize::new(0));
    let reader = BlocksAfter {
        left: 100_000,
        asked: Arc::clone(&asked),
        release: more,
    };
    let answer = Client::builder()
        .timeout(Duration::from_secs(20))
        .build()
        .unwrap()
        .put(served.url("/upload"))
        .body(blocking::Body::sized(reader, 100_000))
        .send()
        .unwrap();
    assert_eq!(answer.text().unwrap(), "100000 - 100000 false");
    assert_eq!(asked.load(Ordering::SeqCst), 0, "read past its length");
    drop(release);
    // The client is still good for the next request.
    let exact = io::repeat(b'x').take(1000);
    let answer = client
        .put(served.url("/upload"))
        .body(blocking::Body::sized(exact, 1000))
        .send()
        .unwrap();
    assert_eq!(answer.text().unwrap(), "1000 - 1000 false");
}

/// `left` bytes of `x`, then a read that waits for `release` (counted in `asked`).
struct BlocksAfter {
    left: usize,
    asked: Arc<AtomicUsize>,
    release: std::sync::mpsc::Receiver<()>,
}

impl Read for BlocksAfter {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.left == 0 {
            self.asked.fetch_add(1, Ordering::SeqCst);
            let _ = self.release.recv();
            return Ok(0);
        }
        let n = buf.len().min(self.left);
        buf[..n].fill(b'x');
        self.left -= n;
        Ok(n)
    }
}

#[test]
fn a_failing_reader_fails_the_request_with_its_error_as_source() {
    let served = upload_server();
    let client = client();
    for sized in [false, true] {
        let reader = FailingAfter {
            at: 0,
            before: 300_000,
            error: Some(io::Error::new(
                io::ErrorKind::PermissionDenied,
                "disk on fire",
            )),
        };
        let body = if sized {
            blocking::Body::sized(reader, 1_000_000)
        } else {
            blocking::Body::new(reader)
        };
        let error = client
            .put(served.url("/upload"))
            .body(body)
            .send()
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        assert!(
            caused_by_io(&error, io::ErrorKind::PermissionDenied, "disk on fire"),
            "{}",
            chain_text(&error)
        );
    }
}

#[test]
fn a_reader_body_is_not_sent_again_on_a_307() {
    let served = serve(|| {
        hyper_server(|request| async move {
            let _ = request.into_body().collect().await;
            http::Response::builder()
                .status(307)
                .header("location", "/text")
                .body(full(""))
                .unwrap()
        })
    });
    let given = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let reader = Counted {
        inner: io::repeat(b'x').take(100_000),
        given: given.clone(),
    };
    let error = client()
        .post(served.url("/old"))
        .body(blocking::Body::sized(reader, 100_000))
        .send()
        .unwrap_err();
    assert!(
        matches!(
            error.network_error(),
            Some(NetworkError::StreamBodyOnRedirect)
        ),
        "{error:?}"
    );
    // Read once, for the first request only.
    assert_eq!(given.load(Ordering::SeqCst), 100_000);
}

#[test]
fn a_large_reader_is_read_only_as_fast_as_the_server_takes_it() {
    const SIZE: u64 = 64 << 20;
    // At most this much read from the reader and not yet received by the server: what
    // the kernel's socket buffers hold, and a chunk or two; a quarter of the body.
    const AHEAD: u64 = 16 << 20;
    let given = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let widest = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
    let (seen, most) = (given.clone(), widest.clone());
    let served = serve(move || {
        raw_server(move |mut stream| {
            let (seen, most) = (seen.clone(), most.clone());
            async move {
                if read_head(&mut stream).await.is_none() {
                    return;
                }
                let mut received = 0u64;
                let mut buf = vec![0; 16 * 1024];
                let mut reads = 0;
                while received < SIZE {
                    // Slowly at first: the client fills every buffer and must wait.
                    if reads < 20 {
                        tokio::time::sleep(Duration::from_millis(25)).await;
                    }
                    reads += 1;
                    let ahead = seen.load(Ordering::SeqCst).saturating_sub(received);
                    most.fetch_max(ahead, Ordering::SeqCst);
                    match stream.read(&mut buf).await {
                        Ok(0) | Err(_) => return,
                        Ok(n) => received += n as u64,
                    }
                }
                let reply = format!(
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{received}",
                    received.to_string().len()
                );
                let _ = stream.write_all(reply.as_bytes()).await;
                let _ = is_closed(&mut stream).await;
            }
        })
    });
    let reader = Counted {
        inner: io::repeat(b'x').take(SIZE),
        given,
    };
    let answer = client()
        .put(served.url("/upload"))
        .body(blocking::Body::sized(reader, SIZE))
        .send()
        .unwrap();
    assert_eq!(answer.text().unwrap(), SIZE.to_string());
    let widest = widest.load(Ordering::SeqCst);
    assert!(
        widest <= AHEAD,
        "{widest} bytes were read from the reader ahead of the server"
    );
}

/// Sends `request` and reads its response's text.
fn text_of(request: blocking::RequestBuilder) -> String {
    request.send().unwrap().text().unwrap()
}

#[test]
fn default_headers_are_sent_unless_a_request_has_its_own() {
    let served = server();
    let mut headers = http::HeaderMap::new();
    headers.insert("x-api-key", http::HeaderValue::from_static("team-key"));
    headers.insert("accept", http::HeaderValue::from_static("application/json"));
    let client = blocking::Client::builder()
        .default_headers(headers)
        .build()
        .unwrap();
    let echoed = text_of(client.get(served.url("/echo")));
    assert!(echoed.contains("\nx-api-key: team-key\n"), "{echoed}");
    assert!(echoed.contains("\naccept: application/json\n"), "{echoed}");
    let echoed = text_of(
        client
            .get(served.url("/echo"))
            .header("x-api-key", "own-key"),
    );
    assert!(echoed.contains("\nx-api-key: own-key\n"), "{echoed}");
    assert!(!echoed.contains("team-key"), "{echoed}");
}

#[test]
fn https_only_refuses_http_and_a_redirect_policy_rules_redirects() {
    let served = serve(|| {
        hyper_server(|request| async move {
            if request.uri().path() == "/old" {
                return http::Response::builder()
                    .status(302)
                    .header("location", "/new")
                    .body(full(""))
                    .unwrap();
            }
            http::Response::new(full("new"))
        })
    });
    let strict = blocking::Client::builder()
        .https_only(true)
        .build()
        .unwrap();
    let error = strict.get(served.url("/new")).send().unwrap_err();
    assert!(
        matches!(error.network_error(), Some(NetworkError::Blocked(_))),
        "{error:?}"
    );
    assert_eq!(
        strict.get("data:,local").send().unwrap().text().unwrap(),
        "local"
    );

    let followed = client().get(served.url("/old")).send().unwrap();
    assert!(followed.redirected());
    let manual = blocking::Client::builder()
        .redirect(whatwg_fetch::redirect::Policy::none())
        .build()
        .unwrap();
    let response = manual.get(served.url("/old")).send().unwrap();
    assert_eq!(response.status(), 302);
    assert_eq!(
        response.headers().get("location").unwrap().as_deref(),
        Some("/new")
    );
}

#[test]
fn a_response_tells_its_peer_address_version_type_and_urls() {
    let served = server();
    let client = client();
    let response = client.get(served.url("/text")).send().unwrap();
    assert_eq!(response.remote_addr(), Some(served.server.addr));
    assert!(response.tls_info().is_none(), "plain http has no TLS");
    assert_eq!(response.version(), http::Version::HTTP_11);
    assert_eq!(response.r#type(), whatwg_fetch::ResponseType::Basic);
    assert_eq!(response.url_list().len(), 1);
    assert_eq!(response.url_list()[0].as_str(), served.url("/text"));
    let response = client.get("data:,x").send().unwrap();
    assert_eq!(response.remote_addr(), None);
}

#[test]
fn an_https_response_tells_its_tls() {
    let pki = net_support::TestPki::new(&["localhost"]);
    let acceptor = pki.acceptor(&[b"http/1.1"]);
    let served = serve(move || {
        net_support::tls_server(acceptor, |_| async { http::Response::new(full("ok")) })
    });
    let addr = served.server.addr;
    let client = blocking::Client::builder()
        .tls_built_in_roots(false)
        .add_root_certificates_pem(pki.ca_pem.as_bytes())
        .resolve("localhost", addr)
        .build()
        .unwrap();
    let response = client
        .get(format!("https://localhost:{}/", addr.port()))
        .send()
        .unwrap();
    assert_eq!(response.remote_addr(), Some(addr));
    let tls = response.tls_info().expect("an https response has TLS info");
    assert!(tls.version() >= whatwg_fetch::TlsVersion::Tls12);
    assert_eq!(tls.peer_certificate(), Some(pki.cert.as_ref()));
    assert_eq!(response.text().unwrap(), "ok");
}

#[test]
fn a_response_gives_its_cookies_and_trailers_and_is_cloned() {
    let served = serve(|| {
        raw_server(|mut stream| async move {
            if read_head(&mut stream).await.is_none() {
                return;
            }
            let _ = stream
                .write_all(
                    b"HTTP/1.1 200 OK\r\nset-cookie: sid=1; HttpOnly\r\n\
                      transfer-encoding: chunked\r\ntrailer: x-checksum\r\n\r\n\
                      5\r\nhello\r\n0\r\nx-checksum: 5d41\r\n\r\n",
                )
                .await;
            let _ = is_closed(&mut stream).await;
        })
    });
    let mut response = client().get(served.url("/")).send().unwrap();
    let cookies: Vec<_> = response.cookies().collect();
    assert_eq!(cookies.len(), 1);
    assert_eq!(cookies[0].name(), Some("sid"));
    assert!(
        response.headers_mut().set("x-mine", "1").is_err(),
        "immutable"
    );
    let copy = response.try_clone().unwrap();
    assert!(!response.body_used());
    let mut body = String::new();
    response.read_to_string(&mut body).unwrap();
    assert_eq!(body, "hello");
    assert!(response.body_used());
    assert!(
        response.try_clone().is_err(),
        "a used body cannot be cloned"
    );
    let trailers = response.trailers().unwrap().expect("the body's trailers");
    assert_eq!(trailers["x-checksum"], "5d41");
    assert_eq!(copy.text().unwrap(), "hello");
}

#[test]
fn a_response_body_reads_as_a_blob_or_form_data() {
    let client = client();
    let blob = client
        .get("data:text/csv,a%2Cb")
        .send()
        .unwrap()
        .blob()
        .unwrap();
    assert_eq!((blob.size(), blob.r#type()), (3, "text/csv"));
    let form = client
        .get("data:application/x-www-form-urlencoded,q=rust+http&page=2")
        .send()
        .unwrap()
        .form_data()
        .unwrap();
    assert_eq!(form.get("page").and_then(|value| value.as_str()), Some("2"));
}

#[test]
fn the_transport_options_of_the_async_builder_are_set_on_the_blocking_one() {
    let served = server();
    let addr = served.server.addr;
    let mut builder = blocking::Client::builder()
        .http1_title_case_headers(true)
        .http1_max_header_size(64 * 1024)
        .http1_max_headers(200)
        .http2_max_connections_per_origin(2)
        .http2_max_header_list_size(64 * 1024)
        .http2_initial_stream_window_size(1 << 20)
        .http2_initial_connection_window_size(4 << 20)
        .http2_adaptive_window(false)
        .http2_max_frame_size(1 << 15)
        .http2_keep_alive_interval(Duration::from_secs(20))
        .http2_keep_alive_timeout(Duration::from_secs(5))
        .http2_keep_alive_while_idle(false)
        .happy_eyeballs_delay(Duration::from_millis(250))
        .local_address(Some(std::net::IpAddr::from([127, 0, 0, 1])))
        .tcp_keepalive(Some(Duration::from_secs(60)))
        .tcp_nodelay(true)
        .max_tls_version(whatwg_fetch::TlsVersion::Tls13)
        .danger_accept_invalid_hostnames(false)
        .tls_key_log(false)
        .gzip(true)
        .deflate(true)
        .brotli(true)
        .zstd(true)
        .resolve_with(move |host| (host == "api.test").then(|| vec![addr]));
    builder = builder.pin_public_keys("pinned.test", [[0u8; 32]]);
    let client = builder.build().unwrap();
    let echoed = text_of(client.get(format!("http://api.test:{}/echo", addr.port())));
    assert!(echoed.starts_with("GET /echo\n"), "{echoed}");
    // Title case goes out on the wire; hyper's server reads names in lowercase.
    assert!(echoed.contains("\naccept-encoding: "), "{echoed}");
}

#[cfg(feature = "tower")]
#[test]
fn a_transport_layer_wraps_each_network_request() {
    let served = server();
    let client = blocking::Client::builder()
        .transport_layer(tower::ServiceBuilder::new().map_request(
            |mut request: http::Request<whatwg_fetch::net::RequestBody>| {
                request
                    .headers_mut()
                    .insert("x-layer", http::HeaderValue::from_static("signed"));
                request
            },
        ))
        .build()
        .unwrap();
    let echoed = text_of(client.get(served.url("/echo")));
    assert!(echoed.contains("\nx-layer: signed\n"), "{echoed}");
}
