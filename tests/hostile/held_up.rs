//! Cases that already held: oversized heads, smuggling, injection, redirect loops, leaks,
//! the HTTP cache's bounds and malformed responses. They are here so that they keep holding.
//!
//! Covered by other tests, and so not repeated here:
//! - 20 redirects followed and the 21st a `TooManyRedirects`: `tests/fetch_http.rs`
//!   `twenty_redirects_are_followed_and_twenty_one_fail` (below, a loop to itself, counting
//!   the requests the server saw).
//! - `Authorization` removed on a cross-origin redirect and kept on a same-origin one:
//!   `tests/fetch_http.rs` `cross_origin_redirect_strips_credentials_headers`,
//!   `redirect_method_rewriting_matrix` (below, `Cookie` and `Proxy-Authorization`).
//! - garbage, truncated and short responses: `tests/net_http1.rs`
//!   `a_garbage_response_is_a_protocol_error`, `a_truncated_chunked_body_is_a_protocol_error`,
//!   `a_body_shorter_than_its_content_length_is_a_length_mismatch`,
//!   `a_null_body_response_that_carries_a_body_is_not_reused`; `tests/fetch_http.rs`
//!   `garbage_and_truncated_responses_are_type_errors`.
//! - pool places given back by cancelled waiters, abandoned requests and unread bodies, and
//!   the per-origin cap under 200 concurrent requests: `tests/net_pool.rs`
//!   `a_cancelled_waiter_gives_up_its_place`, `an_abandoned_request_frees_its_connection`,
//!   `unread_bodies_never_hold_places_under_the_cap`; `tests/net_http1.rs`
//!   `per_origin_cap_holds_under_200_concurrent_requests`.
//! - header names and values with CR, LF or NUL refused by `Headers`: `tests/headers.rs`
//!   (below, through `fetch`, with nothing reaching the server).
//! - the HTTP cache's least-recently-used eviction by count and by bytes, inside the cache:
//!   `src/fetch/http_cache/storage.rs` `the_least_recently_used_entries_are_evicted_beyond_the_limits`
//!   (below, the same bounds through a `Client`).
//!
//! The test profile inherits the dev profile's `overflow-checks = true`, so arithmetic that
//! overflowed on any input below would panic here.

use crate::next_request_works;
use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use hyper::body::Incoming;
use hyper::{Request as HyperRequest, Response as HyperResponse};
use tokio::io::AsyncWriteExt;
use tokio::net::{TcpSocket, TcpStream};
use whatwg_fetch::{AbortController, Client, ErrorKind, HeadersInit, NetworkError, RequestInit};

use crate::net_support::{Server, eventually, full, hyper_server, raw_server, read_head};

const TIME_LIMIT: Duration = Duration::from_secs(30);

/// The HTTP cache's limits, as `ClientBuilder::http_cache` documents them: 1,024 responses,
/// 64 MiB in all, 8 MiB a body.
const CACHE_MAX_ENTRIES: usize = 1024;
const CACHE_MAX_BYTES: usize = 64 << 20;
const CACHE_MAX_ENTRY_BYTES: usize = 8 << 20;

/// The request target of a request head.
fn path_of(head: &str) -> &str {
    head.split_whitespace().nth(1).unwrap_or_default()
}

const OK: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";

// --- Oversized response heads ----------------------------------------------------------

/// More than the client reads of a head it refuses (hyper's read buffer stops at about
/// 400 KiB) and the socket buffers between it and the server hold, and far less than the
/// heads below: what the server can write before the client closes.
const BOUNDED_READ: usize = 4 << 20;

/// The send buffer of the streaming server's connections: small, so that what it has
/// written is little more than what the client has read.
const SEND_BUFFER: u32 = 16 * 1024;

/// A server on 127.0.0.1 whose connections have a small send buffer. `/ok` is answered
/// with "ok"; any other request gets `prefix` and then `line` again and again, up to
/// `total` bytes, then the end of the head. It counts what it wrote and whether it wrote
/// it all.
struct StreamingHeadServer {
    addr: SocketAddr,
    written: Arc<AtomicUsize>,
    wrote_everything: Arc<AtomicBool>,
    done: Arc<AtomicBool>,
}

impl StreamingHeadServer {
    async fn start(prefix: &'static [u8], line: Vec<u8>, total: usize) -> StreamingHeadServer {
        let socket = TcpSocket::new_v4().unwrap();
        socket.set_send_buffer_size(SEND_BUFFER).unwrap();
        socket.bind("127.0.0.1:0".parse().unwrap()).unwrap();
        let listener = socket.listen(64).unwrap();
        let server = StreamingHeadServer {
            addr: listener.local_addr().unwrap(),
            written: Arc::default(),
            wrote_everything: Arc::default(),
            done: Arc::default(),
        };
        let (written, wrote_everything, done) = (
            server.written.clone(),
            server.wrote_everything.clone(),
            server.done.clone(),
        );
        let line = Arc::new(line);
        tokio::spawn(async move {
            while let Ok((stream, _)) = listener.accept().await {
                let (written, wrote_everything, done, line) = (
                    written.clone(),
                    wrote_everything.clone(),
                    done.clone(),
                    line.clone(),
                );
                tokio::spawn(async move {
                    stream_head(stream, prefix, &line, total, &written, &wrote_everything).await;
                    done.store(true, Ordering::SeqCst);
                });
            }
        });
        server
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }
}

async fn stream_head(
    mut stream: TcpStream,
    prefix: &[u8],
    line: &[u8],
    total: usize,
    written: &AtomicUsize,
    wrote_everything: &AtomicBool,
) {
    while let Some(head) = read_head(&mut stream).await {
        if path_of(&head) == "/ok" {
            if stream.write_all(OK).await.is_err() {
                return;
            }
            continue;
        }
        if stream.write_all(prefix).await.is_err() {
            return;
        }
        let mut sent = prefix.len();
        while sent < total {
            if stream.write_all(line).await.is_err() {
                return;
            }
            sent += line.len();
            written.store(sent, Ordering::SeqCst);
        }
        wrote_everything.store(true, Ordering::SeqCst);
        let _ = stream.write_all(b"\r\ncontent-length: 0\r\n\r\n").await;
        return;
    }
}

/// Fetches a head of `total` bytes from a streaming server: the fetch must fail with a
/// protocol error, the server must have been cut off long before the end, and the same
/// client must then fetch `/ok`.
async fn a_head_is_refused_early(prefix: &'static [u8], line: Vec<u8>, total: usize) -> usize {
    let server = StreamingHeadServer::start(prefix, line, total).await;
    let client = Client::builder().build().unwrap();
    let error = client
        .fetch(server.url("/huge"), RequestInit::default())
        .await
        .unwrap_err();
    assert_eq!(error.kind(), ErrorKind::TypeError);
    assert!(
        matches!(error.network_error(), Some(NetworkError::Protocol(_))),
        "{error:?}"
    );
    // The client closed the connection: the server's next write failed.
    assert!(eventually(|| server.done.load(Ordering::SeqCst)).await);
    assert!(!server.wrote_everything.load(Ordering::SeqCst));
    let written = server.written.load(Ordering::SeqCst);
    next_request_works(&client, &server.url("/ok")).await;
    written
}

#[tokio::test]
async fn a_100_mb_response_head_is_refused_after_a_bounded_read() {
    tokio::time::timeout(TIME_LIMIT, async {
        // Headers of 64 KiB each.
        let mut line = b"x-filler: ".to_vec();
        line.extend(std::iter::repeat_n(b'f', 64 * 1024));
        line.extend_from_slice(b"\r\n");
        let written = a_head_is_refused_early(b"HTTP/1.1 200 OK\r\n", line, 100 << 20).await;
        assert!(written < BOUNDED_READ, "{written} bytes written");
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_10_mb_header_value_is_refused_after_a_bounded_read() {
    tokio::time::timeout(TIME_LIMIT, async {
        let line = vec![b'v'; 16 * 1024];
        let written =
            a_head_is_refused_early(b"HTTP/1.1 200 OK\r\nx-value: ", line, 10 << 20).await;
        assert!(written < BOUNDED_READ, "{written} bytes written");
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn a_head_of_100_000_headers_is_refused_after_a_bounded_read() {
    tokio::time::timeout(TIME_LIMIT, async {
        // 100,000 headers of 100 bytes each.
        let mut line = b"x-header: ".to_vec();
        line.extend(std::iter::repeat_n(b'h', 88));
        line.extend_from_slice(b"\r\n");
        let written = a_head_is_refused_early(b"HTTP/1.1 200 OK\r\n", line, 100_000 * 100).await;
        // Fewer than 40,000 of the 100,000 headers were sent.
        assert!(written < BOUNDED_READ, "{written} bytes written");
    })
    .await
    .unwrap();
}

// --- Response smuggling ----------------------------------------------------------------

/// A second response written right after each case's response: a client that framed the
/// case wrongly, or reused its connection, would take it for the answer to its next
/// request.
const SMUGGLED: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 9\r\n\r\nsmuggled!";

/// What a framing case must give: a protocol error, or this body.
enum Framing {
    Refused,
    Body(&'static str),
}

const SMUGGLING: &[(&str, &[u8], Framing)] = &[
    // RFC 9112 §6.3 rule 3: Transfer-Encoding overrides Content-Length (and the connection
    // is not reused, below).
    (
        "Content-Length then Transfer-Encoding",
        b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        Framing::Body("hello"),
    ),
    (
        "Transfer-Encoding then a longer Content-Length",
        b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ncontent-length: 50\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        Framing::Body("hello"),
    ),
    (
        "two differing Content-Lengths",
        b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\ncontent-length: 6\r\n\r\nhello!",
        Framing::Refused,
    ),
    (
        "a list of differing Content-Lengths",
        b"HTTP/1.1 200 OK\r\ncontent-length: 5, 6\r\n\r\nhello!",
        Framing::Refused,
    ),
    (
        "a negative Content-Length",
        b"HTTP/1.1 200 OK\r\ncontent-length: -1\r\n\r\nhello",
        Framing::Refused,
    ),
    (
        "a hexadecimal Content-Length",
        b"HTTP/1.1 200 OK\r\ncontent-length: 0x5\r\n\r\nhello",
        Framing::Refused,
    ),
    (
        "a signed Content-Length",
        b"HTTP/1.1 200 OK\r\ncontent-length: +5\r\n\r\nhello",
        Framing::Refused,
    ),
    (
        "an obs-fold header line",
        b"HTTP/1.1 200 OK\r\nx-folded: a\r\n b\r\ncontent-length: 5\r\n\r\nhello",
        Framing::Refused,
    ),
    (
        "an obs-fold Content-Length",
        b"HTTP/1.1 200 OK\r\ncontent-length:\r\n 5\r\n\r\nhello",
        Framing::Refused,
    ),
];

#[tokio::test]
async fn response_smuggling_variants_never_put_a_connection_out_of_step() {
    tokio::time::timeout(TIME_LIMIT, async {
        // `/case/N` gets case N and the smuggled response; any later request on that
        // connection gets "reused". `/next` on any other connection gets "fresh".
        let server = raw_server(|mut stream| async move {
            let mut served_a_case = false;
            while let Some(head) = read_head(&mut stream).await {
                let path = path_of(&head);
                let reply: Vec<u8> = if let Some(n) = path.strip_prefix("/case/") {
                    served_a_case = true;
                    let case = n.parse().ok().and_then(|n: usize| SMUGGLING.get(n));
                    [case.map_or(&b""[..], |case| case.1), SMUGGLED].concat()
                } else if served_a_case {
                    b"HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\nreused".to_vec()
                } else {
                    b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nfresh".to_vec()
                };
                if stream.write_all(&reply).await.is_err() {
                    return;
                }
            }
        })
        .await;
        let client = Client::builder().build().unwrap();
        for (n, (what, _, framing)) in SMUGGLING.iter().enumerate() {
            let result = client
                .fetch(server.url(&format!("/case/{n}")), RequestInit::default())
                .await;
            match (framing, result) {
                (Framing::Refused, Err(error)) => {
                    assert_eq!(error.kind(), ErrorKind::TypeError, "{what}");
                    assert!(
                        matches!(error.network_error(), Some(NetworkError::Protocol(_))),
                        "{what}: {error:?}"
                    );
                }
                (Framing::Body(expected), Ok(mut response)) => {
                    assert_eq!(response.text().await.unwrap(), *expected, "{what}");
                }
                (_, result) => panic!("{what}: {:?}", result.map(|r| r.status())),
            }
            // The next request goes out on another connection and gets its own answer.
            let mut next = client
                .fetch(server.url("/next"), RequestInit::default())
                .await
                .unwrap();
            assert_eq!(next.text().await.unwrap(), "fresh", "after {what}");
        }
    })
    .await
    .unwrap();
}

// --- CR, LF and NUL injection ----------------------------------------------------------

#[tokio::test]
async fn cr_lf_and_nul_in_a_header_or_the_method_are_refused_before_connecting() {
    tokio::time::timeout(TIME_LIMIT, async {
        let server = raw_server(|mut stream| async move {
            while read_head(&mut stream).await.is_some() {
                if stream.write_all(OK).await.is_err() {
                    return;
                }
            }
        })
        .await;
        let client = Client::builder().build().unwrap();
        let headers: &[(&str, &str)] = &[
            ("x-a", "v\r\nInjected: 1"),
            ("x-a", "v\nInjected: 1"),
            ("x-a", "v\rInjected: 1"),
            ("x-a", "v\0x"),
            ("x-a\r\nInjected", "1"),
            ("x-a\n", "1"),
            ("x\0a", "1"),
        ];
        for &(name, value) in headers {
            let init = RequestInit {
                headers: Some(HeadersInit::from(vec![(name, value)])),
                ..Default::default()
            };
            let error = client.fetch(server.url("/"), init).await.unwrap_err();
            assert_eq!(error.kind(), ErrorKind::TypeError, "{name:?}: {value:?}");
        }
        for method in [
            "GET\r\nInjected: 1",
            "GET / HTTP/1.1\r\n\r\nGET",
            "G\0T",
            "GET\n",
        ] {
            let init = RequestInit {
                method: Some(method.into()),
                ..Default::default()
            };
            let error = client.fetch(server.url("/"), init).await.unwrap_err();
            assert_eq!(error.kind(), ErrorKind::TypeError, "{method:?}");
        }
        // Headers the client adds itself are checked too.
        let with_user_agent = Client::builder()
            .user_agent("agent\r\nInjected: 1")
            .build()
            .unwrap();
        let with_language = Client::builder()
            .accept_language(Some("en\r\nInjected: 1"))
            .build()
            .unwrap();
        for client in [&with_user_agent, &with_language] {
            let error = client
                .fetch(server.url("/"), RequestInit::default())
                .await
                .unwrap_err();
            assert_eq!(error.kind(), ErrorKind::TypeError);
        }
        assert_eq!(server.counts.accepts(), 0, "a connection was opened");
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn cr_lf_and_nul_in_a_url_never_reach_the_request_line() {
    tokio::time::timeout(TIME_LIMIT, async {
        let heads = Arc::new(Mutex::new(Vec::new()));
        let seen = heads.clone();
        let server = raw_server(move |mut stream| {
            let seen = seen.clone();
            async move {
                while let Some(head) = read_head(&mut stream).await {
                    seen.lock().unwrap().push(head);
                    if stream.write_all(OK).await.is_err() {
                        return;
                    }
                }
            }
        })
        .await;
        let client = Client::builder().build().unwrap();
        // The URL parser removes tabs and newlines and percent-encodes what may not stand
        // in a path or query (URL Standard, basic URL parser): the request line is whole.
        let targets = [
            ("/a\r\nInjected: 1", "/aInjected:%201"),
            (
                "/a\r\n\r\nGET /smuggled HTTP/1.1",
                "/aGET%20/smuggled%20HTTP/1.1",
            ),
            ("/a\0b", "/a%00b"),
            ("/?q=\r\nInjected: 1", "/?q=Injected:%201"),
        ];
        for (path, target) in targets {
            next_request_works(&client, &server.url(path)).await;
            let head = heads.lock().unwrap().pop().unwrap();
            let request_line = head.lines().next().unwrap_or_default().to_owned();
            assert_eq!(request_line, format!("GET {target} HTTP/1.1"));
            assert!(
                !head.to_ascii_lowercase().contains("\ninjected"),
                "{head:?}"
            );
        }
        // A host with a forbidden code point is no URL at all.
        let port = server.addr.port();
        for host in [
            "exa\0mple.test",
            "exa%00mple.test",
            "a%0D%0Ab.test",
            "a b.test",
        ] {
            let error = client
                .fetch(format!("http://{host}:{port}/"), RequestInit::default())
                .await
                .unwrap_err();
            assert_eq!(error.kind(), ErrorKind::TypeError, "{host:?}");
        }
        assert_eq!(heads.lock().unwrap().len(), 0);
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await
    .unwrap();
}

// --- Redirects -------------------------------------------------------------------------

#[tokio::test]
async fn a_redirect_loop_stops_after_20_redirects() {
    tokio::time::timeout(TIME_LIMIT, async {
        let requests = Arc::new(AtomicUsize::new(0));
        let counted = requests.clone();
        let server = hyper_server(move |request: HyperRequest<Incoming>| {
            let counted = counted.clone();
            async move {
                if request.uri().path() == "/loop" {
                    counted.fetch_add(1, Ordering::SeqCst);
                    return HyperResponse::builder()
                        .status(302)
                        .header("location", "/loop")
                        .body(full(""))
                        .unwrap();
                }
                HyperResponse::new(full("ok"))
            }
        })
        .await;
        let client = Client::builder().build().unwrap();
        let error = client
            .fetch(server.url("/loop"), RequestInit::default())
            .await
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        assert!(
            matches!(
                error.network_error(),
                Some(NetworkError::TooManyRedirects { max: 20 })
            ),
            "{error:?}"
        );
        // The first request and 20 redirects; the 21st redirect is not followed.
        assert_eq!(requests.load(Ordering::SeqCst), 21);
        next_request_works(&client, &server.url("/ok")).await;
    })
    .await
    .unwrap();
}

/// Answers `/echo` with the request's credential headers, one `name: value` a line;
/// `/same` and `/cross?URL` redirect with a 307 to its own `/echo` and to URL.
async fn credentials_server() -> Server {
    hyper_server(|request: HyperRequest<Incoming>| async move {
        let redirect = |location: String| {
            HyperResponse::builder()
                .status(307)
                .header("location", location)
                .body(full(""))
                .unwrap()
        };
        match request.uri().path() {
            "/same" => redirect("/echo".to_owned()),
            "/cross" => redirect(request.uri().query().unwrap_or_default().to_owned()),
            _ => {
                let mut echo = String::new();
                for name in ["authorization", "cookie", "proxy-authorization", "x-kept"] {
                    for value in request.headers().get_all(name) {
                        echo.push_str(&format!("{name}: {}\n", value.to_str().unwrap()));
                    }
                }
                HyperResponse::new(full(echo))
            }
        }
    })
    .await
}

#[tokio::test]
async fn a_cross_origin_redirect_drops_cookie_and_proxy_authorization_headers() {
    tokio::time::timeout(TIME_LIMIT, async {
        let origin = credentials_server().await;
        let other = credentials_server().await;
        let client = Client::builder().build().unwrap();
        let with_credentials = || RequestInit {
            headers: Some(HeadersInit::from(vec![
                ("Authorization", "Bearer secret"),
                ("Cookie", "session=secret"),
                ("Proxy-Authorization", "Basic c2VjcmV0"),
                ("X-Kept", "1"),
            ])),
            ..Default::default()
        };
        let mut same = client
            .fetch(origin.url("/same"), with_credentials())
            .await
            .unwrap();
        assert_eq!(
            same.text().await.unwrap(),
            "authorization: Bearer secret\ncookie: session=secret\n\
             proxy-authorization: Basic c2VjcmV0\nx-kept: 1\n"
        );
        let cross = format!("/cross?{}", other.url("/echo"));
        let mut response = client
            .fetch(origin.url(&cross), with_credentials())
            .await
            .unwrap();
        assert_eq!(response.url(), other.url("/echo"));
        assert_eq!(response.text().await.unwrap(), "x-kept: 1\n");
    })
    .await
    .unwrap();
}

// --- Cancelled requests leak nothing -----------------------------------------------------

/// The client ends of this process's TCP connections to `port` on 127.0.0.1: descriptors
/// in /proc/self/fd that are sockets whose remote end, per /proc/net/tcp, is that port.
/// (A count of every descriptor would move with the other tests of this binary.)
#[cfg(target_os = "linux")]
fn client_sockets_to(port: u16) -> usize {
    use std::collections::HashSet;
    let table = std::fs::read_to_string("/proc/net/tcp").unwrap();
    let remote_port = format!(":{port:04X}");
    let inodes: HashSet<String> = table
        .lines()
        .skip(1)
        .filter_map(|line| {
            let fields: Vec<&str> = line.split_whitespace().collect();
            let remote = fields.get(2)?;
            remote
                .ends_with(&remote_port)
                .then(|| fields.get(9).map(|inode| format!("socket:[{inode}]")))
                .flatten()
        })
        .collect();
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(Result::ok)
        .filter_map(|entry| std::fs::read_link(entry.path()).ok())
        .filter(|target| inodes.contains(target.to_string_lossy().as_ref()))
        .count()
}

#[cfg(target_os = "linux")]
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ten_thousand_requests_with_half_cancelled_leak_no_sockets_or_pool_places() {
    const CAP: usize = 16;
    tokio::time::timeout(TIME_LIMIT, async {
        // `/hang` is answered only when the test ends: every fetch of it is cancelled.
        let (release, released) = tokio::sync::watch::channel(false);
        let server = hyper_server(move |request: HyperRequest<Incoming>| {
            let mut released = released.clone();
            async move {
                if request.uri().path() == "/hang" {
                    let _ = released.wait_for(|released| *released).await;
                }
                HyperResponse::new(full("ok"))
            }
        })
        .await;
        let port = server.addr.port();
        assert_eq!(client_sockets_to(port), 0);
        let client = Client::builder()
            .max_connections_per_origin(CAP)
            .build()
            .unwrap();
        let in_flight = Arc::new(tokio::sync::Semaphore::new(200));
        let mut tasks = tokio::task::JoinSet::new();
        for i in 0..10_000_u64 {
            let permit = in_flight.clone().acquire_owned().await.unwrap();
            let (client, hang, ok) = (client.clone(), server.url("/hang"), server.url("/ok"));
            tasks.spawn(async move {
                let _permit = permit;
                match i % 4 {
                    // Aborted at whatever stage it reached: queued for a connection,
                    // connecting, or waiting for the head.
                    0 => {
                        let controller = AbortController::new();
                        let init = RequestInit {
                            signal: Some(controller.signal()),
                            ..Default::default()
                        };
                        let abort = async {
                            tokio::time::sleep(Duration::from_micros(100 * (i % 50))).await;
                            controller.abort(None);
                            std::future::pending::<()>().await;
                        };
                        tokio::select! {
                            result = client.fetch(hang, init) => {
                                assert_eq!(result.unwrap_err().kind(), ErrorKind::AbortError);
                            }
                            () = abort => {}
                        }
                    }
                    // Dropped at whatever stage it reached, the response included.
                    1 => {
                        let fetch = client.fetch(ok, RequestInit::default());
                        let _ =
                            tokio::time::timeout(Duration::from_micros(50 * (i % 40)), fetch).await;
                    }
                    // The response's body dropped unread.
                    2 => drop(client.fetch(ok, RequestInit::default()).await.unwrap()),
                    _ => {
                        let mut response = client.fetch(ok, RequestInit::default()).await.unwrap();
                        assert_eq!(response.text().await.unwrap(), "ok");
                    }
                }
            });
        }
        while let Some(result) = tasks.join_next().await {
            result.unwrap();
        }
        // Every place under the cap is free: a burst of twice the cap all completes.
        let mut burst = tokio::task::JoinSet::new();
        for _ in 0..2 * CAP {
            let (client, ok) = (client.clone(), server.url("/ok"));
            burst.spawn(async move { next_request_works(&client, &ok).await });
        }
        while let Some(result) = burst.join_next().await {
            result.unwrap();
        }
        // Only pooled connections remain, at most the cap; none once the client is gone.
        let pooled = client_sockets_to(port);
        assert!((1..=CAP).contains(&pooled), "{pooled} sockets open");
        drop(client);
        assert!(eventually(|| client_sockets_to(port) == 0).await);
        let _ = release.send(true);
    })
    .await
    .unwrap();
}

// --- The HTTP cache's bounds -------------------------------------------------------------

/// Answers every request with a fresh response (`max-age=3600`): `/size/N/…` with N bytes,
/// anything else with its path. Counts the requests per path.
async fn cacheable_server() -> (Server, Arc<Mutex<HashMap<String, usize>>>) {
    let counts = Arc::new(Mutex::new(HashMap::<String, usize>::new()));
    let counted = counts.clone();
    let server = hyper_server(move |request: HyperRequest<Incoming>| {
        let counted = counted.clone();
        async move {
            let path = request.uri().path().to_owned();
            *counted.lock().unwrap().entry(path.clone()).or_default() += 1;
            let size = path
                .strip_prefix("/size/")
                .and_then(|rest| rest.split('/').next())
                .and_then(|size| size.parse::<usize>().ok());
            let body = match size {
                Some(size) => vec![b'x'; size],
                None => path.into_bytes(),
            };
            HyperResponse::builder()
                .header("cache-control", "max-age=3600")
                .body(full(body))
                .unwrap()
        }
    })
    .await;
    (server, counts)
}

/// Fetches `path` and reads its body to the end (a response is stored only then).
async fn fetch_whole(client: &Client, server: &Server, path: &str) {
    let mut response = client
        .fetch(server.url(path), RequestInit::default())
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    response.bytes().await.unwrap();
}

fn count(counts: &Mutex<HashMap<String, usize>>, path: &str) -> usize {
    counts
        .lock()
        .unwrap()
        .get(path)
        .copied()
        .unwrap_or_default()
}

#[tokio::test]
async fn the_http_cache_keeps_at_most_its_entry_limit() {
    tokio::time::timeout(TIME_LIMIT, async {
        let (server, counts) = cacheable_server().await;
        let client = Client::builder().http_cache(true).build().unwrap();
        let limit = CACHE_MAX_ENTRIES;
        for i in 0..=limit {
            fetch_whole(&client, &server, &format!("/entry/{i}")).await;
        }
        // The newest is served from the cache; the least recently used made room for it.
        fetch_whole(&client, &server, &format!("/entry/{limit}")).await;
        assert_eq!(count(&counts, &format!("/entry/{limit}")), 1);
        fetch_whole(&client, &server, "/entry/0").await;
        assert_eq!(count(&counts, "/entry/0"), 2);
    })
    .await
    .unwrap();
}

#[tokio::test]
async fn the_http_cache_keeps_to_its_byte_limits() {
    tokio::time::timeout(TIME_LIMIT, async {
        let (server, counts) = cacheable_server().await;
        let client = Client::builder().http_cache(true).build().unwrap();
        // A response over the per-response limit is never stored; one at it is.
        let over = format!("/size/{}/over", CACHE_MAX_ENTRY_BYTES + 1);
        let at = format!("/size/{}/at", CACHE_MAX_ENTRY_BYTES);
        for path in [&over, &over, &at, &at] {
            fetch_whole(&client, &server, path).await;
        }
        assert_eq!((count(&counts, &over), count(&counts, &at)), (2, 1));
        // Responses of 6 MiB, more of them than the total limit holds: the least recently
        // used go.
        let size = 6 << 20;
        let fit = CACHE_MAX_BYTES / size;
        for i in 0..=fit {
            fetch_whole(&client, &server, &format!("/size/{size}/{i}")).await;
        }
        fetch_whole(&client, &server, &format!("/size/{size}/{fit}")).await;
        assert_eq!(count(&counts, &format!("/size/{size}/{fit}")), 1);
        fetch_whole(&client, &server, &format!("/size/{size}/0")).await;
        assert_eq!(count(&counts, &format!("/size/{size}/0")), 2);
    })
    .await
    .unwrap();
}

// --- Malformed responses -----------------------------------------------------------------

/// What a malformed response gives: `fetch()` rejects, or its body errors, with a
/// `TypeError` whose network error the function accepts; or it is a response with this
/// status and body.
enum Outcome {
    FetchFails(fn(&NetworkError) -> bool),
    BodyFails(fn(&NetworkError) -> bool),
    Answers(u16, &'static [u8]),
}
use Outcome::{Answers, BodyFails, FetchFails};

fn protocol(error: &NetworkError) -> bool {
    matches!(error, NetworkError::Protocol(_))
}

fn decode(error: &NetworkError) -> bool {
    matches!(error, NetworkError::Decode(_))
}

fn invalid_location(error: &NetworkError) -> bool {
    matches!(error, NetworkError::InvalidLocation(_))
}

fn unsupported_scheme(error: &NetworkError) -> bool {
    matches!(error, NetworkError::UnsupportedScheme(_))
}

/// Responses written as they are, the connection closed after each.
const MALFORMED: &[(&str, &[u8], Outcome)] = &[
    ("nothing", b"", FetchFails(protocol)),
    ("status line cut short", b"HTTP/1.1", FetchFails(protocol)),
    ("no status code", b"HTTP/1.1 \r\n\r\n", FetchFails(protocol)),
    ("no reason phrase", b"HTTP/1.1 200\r\n\r\n", Answers(200, b"")),
    ("four-digit status", b"HTTP/1.1 2000 OK\r\n\r\n", FetchFails(protocol)),
    ("huge status", b"HTTP/1.1 99999999999999999999 OK\r\n\r\n", FetchFails(protocol)),
    ("status 099", b"HTTP/1.1 099 OK\r\n\r\n", FetchFails(protocol)),
    ("status 600", b"HTTP/1.1 600 Odd\r\ncontent-length: 0\r\n\r\n", Answers(600, b"")),
    ("status 999", b"HTTP/1.1 999 Odd\r\ncontent-length: 0\r\n\r\n", Answers(999, b"")),
    ("status 000", b"HTTP/1.1 000 Zero\r\n\r\n", FetchFails(protocol)),
    ("negative status", b"HTTP/1.1 -200 OK\r\n\r\n", FetchFails(protocol)),
    ("two-digit status", b"HTTP/1.1 20 OK\r\n\r\n", FetchFails(protocol)),
    ("letters in status", b"HTTP/1.1 2OO OK\r\n\r\n", FetchFails(protocol)),
    ("HTTP/2.0 version", b"HTTP/2.0 200 OK\r\n\r\n", FetchFails(protocol)),
    ("HTTP/9.9 version", b"HTTP/9.9 200 OK\r\n\r\n", FetchFails(protocol)),
    ("two spaces", b"HTTP/1.1  200 OK\r\n\r\n", FetchFails(protocol)),
    ("lowercase version", b"http/1.1 200 OK\r\n\r\n", FetchFails(protocol)),
    ("bare LF lines", b"HTTP/1.1 200 OK\ncontent-length: 2\n\nok", Answers(200, b"ok")),
    ("NUL in reason", b"HTTP/1.1 200 O\0K\r\ncontent-length: 0\r\n\r\n", FetchFails(protocol)),
    ("non-ASCII reason", b"HTTP/1.1 200 \xff\xfe\r\ncontent-length: 0\r\n\r\n", Answers(200, b"")),
    ("ICY status line", b"ICY 200 OK\r\n\r\n", FetchFails(protocol)),
    ("leading empty lines", b"\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok", Answers(200, b"ok")),
    ("1xx then close", b"HTTP/1.1 100 Continue\r\n\r\n", FetchFails(protocol)),
    // As browsers do, and as fetch/security/1xx-response.any.js checks (whatwg/fetch#1397).
    ("unsolicited 101", b"HTTP/1.1 101 Switching Protocols\r\nupgrade: x\r\nconnection: upgrade\r\n\r\nxyz", Answers(101, b"")),
    ("header without colon", b"HTTP/1.1 200 OK\r\nFoo\r\n\r\n", FetchFails(protocol)),
    ("space in header name", b"HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n", FetchFails(protocol)),
    ("empty header name", b"HTTP/1.1 200 OK\r\n: x\r\n\r\n", FetchFails(protocol)),
    ("NUL in header value", b"HTTP/1.1 200 OK\r\nX: a\0b\r\n\r\n", FetchFails(protocol)),
    ("bare CR in header value", b"HTTP/1.1 200 OK\r\nX: a\rb\r\n\r\n", FetchFails(protocol)),
    ("non-ASCII header value", b"HTTP/1.1 200 OK\r\nX: \xff\xfe\r\ncontent-length: 0\r\n\r\n", Answers(200, b"")),
    ("Content-Length over u64", b"HTTP/1.1 200 OK\r\ncontent-length: 99999999999999999999999\r\n\r\nx", FetchFails(protocol)),
    ("Content-Length u64::MAX", b"HTTP/1.1 200 OK\r\ncontent-length: 18446744073709551615\r\n\r\nx", FetchFails(protocol)),
    ("Content-Length with a space", b"HTTP/1.1 200 OK\r\ncontent-length: 1 2\r\n\r\nx", FetchFails(protocol)),
    ("empty Content-Length", b"HTTP/1.1 200 OK\r\ncontent-length: \r\n\r\nx", FetchFails(protocol)),
    ("unknown Transfer-Encoding", b"HTTP/1.1 200 OK\r\ntransfer-encoding: foo\r\n\r\nread to the close", Answers(200, b"read to the close")),
    ("chunked in HTTP/1.0", b"HTTP/1.0 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n", FetchFails(protocol)),
    ("gzip that is not gzip", b"HTTP/1.1 200 OK\r\ncontent-encoding: gzip\r\ncontent-length: 9\r\n\r\nnot gzip!", BodyFails(decode)),
    ("br that is not br", b"HTTP/1.1 200 OK\r\ncontent-encoding: br\r\ncontent-length: 6\r\n\r\n\xff\xff\xff\xff\xff\xff", BodyFails(decode)),
    ("chunk size not hex", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n", BodyFails(protocol)),
    ("chunk size overflow", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nffffffffffffffffff\r\nhello\r\n0\r\n\r\n", BodyFails(protocol)),
    ("chunk size 2^64", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n10000000000000000\r\nhello\r\n0\r\n\r\n", BodyFails(protocol)),
    ("chunk size 2^60 cut short", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\nfffffffffffffff\r\nhello", BodyFails(protocol)),
    ("negative chunk size", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n-1\r\nhello\r\n0\r\n\r\n", BodyFails(protocol)),
    ("chunk extension", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5;name=value\r\nhello\r\n0\r\n\r\n", Answers(200, b"hello")),
    ("NUL in chunk extension", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5;\0\r\nhello\r\n0\r\n\r\n", Answers(200, b"hello")),
    ("chunk without its CRLF", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhelloXX0\r\n\r\n", BodyFails(protocol)),
    ("space before chunk size", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n 5\r\nhello\r\n0\r\n\r\n", BodyFails(protocol)),
    ("0x chunk size", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n0x5\r\nhello\r\n0\r\n\r\n", BodyFails(protocol)),
    ("chunk longer than its size", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n3\r\nhello\r\n0\r\n\r\n", BodyFails(protocol)),
    ("empty chunk size line", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n\r\nhello\r\n0\r\n\r\n", BodyFails(protocol)),
    ("chunk size with g", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n1g\r\nhello\r\n0\r\n\r\n", BodyFails(protocol)),
    ("trailer junk", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nbad trailer line\r\n\r\n", BodyFails(protocol)),
    ("NUL in trailer", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX: \0\r\n\r\n", BodyFails(protocol)),
    ("trailers never end", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\nX: y\r\n", BodyFails(protocol)),
    ("last chunk without CRLF", b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n", BodyFails(protocol)),
    ("body longer than Content-Length", b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok and more", Answers(200, b"ok")),
    ("Location not a URL", b"HTTP/1.1 302 Found\r\nlocation: http://[::1\r\ncontent-length: 0\r\n\r\n", FetchFails(invalid_location)),
    ("Location with raw bytes", b"HTTP/1.1 302 Found\r\nlocation: /\xff\xfe\r\ncontent-length: 0\r\n\r\n", Answers(200, b"ok")),
    ("Location to another scheme", b"HTTP/1.1 302 Found\r\nlocation: javascript:alert(1)\r\ncontent-length: 0\r\n\r\n", FetchFails(unsupported_scheme)),
    ("204 with a chunked body", b"HTTP/1.1 204 No Content\r\ntransfer-encoding: chunked\r\n\r\nzz\r\n", Answers(204, b"")),
    ("HEAD-less 304 with Content-Length", b"HTTP/1.1 304 Not Modified\r\ncontent-length: 5\r\n\r\nhello", Answers(304, b"")),
];

/// Panics on the thread that runs [`MALFORMED`]: the client's tasks run there too.
static MALFORMED_PANICS: AtomicUsize = AtomicUsize::new(0);
const MALFORMED_THREAD: &str = "held-up-malformed-responses";

#[test]
fn sixty_malformed_responses_fail_cleanly_and_nothing_panics() {
    assert!(MALFORMED.len() >= 60);
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::thread::current().name() == Some(MALFORMED_THREAD) {
            MALFORMED_PANICS.fetch_add(1, Ordering::SeqCst);
        }
        previous(info);
    }));
    // One thread runs the server, the client and its connections' tasks: a panic in any
    // of them is counted, even where a task swallows it.
    let thread = std::thread::Builder::new()
        .name(MALFORMED_THREAD.to_owned())
        .spawn(|| {
            tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap()
                .block_on(async { tokio::time::timeout(TIME_LIMIT, malformed_responses()).await })
                .unwrap();
        })
        .unwrap();
    thread.join().unwrap();
    assert_eq!(MALFORMED_PANICS.load(Ordering::SeqCst), 0);
}

async fn malformed_responses() {
    let server = raw_server(|mut stream| async move {
        let Some(head) = read_head(&mut stream).await else {
            return;
        };
        let case = path_of(&head)
            .strip_prefix("/case/")
            .and_then(|n| n.parse::<usize>().ok())
            .and_then(|n| MALFORMED.get(n));
        let reply = match case {
            Some((_, bytes, _)) => bytes,
            None => &b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok"[..],
        };
        let _ = stream.write_all(reply).await;
    })
    .await;
    let client = Client::builder().build().unwrap();
    for (n, (what, _, outcome)) in MALFORMED.iter().enumerate() {
        let result = client
            .fetch(server.url(&format!("/case/{n}")), RequestInit::default())
            .await;
        match (outcome, result) {
            (FetchFails(expected), Err(error)) => {
                assert_eq!(error.kind(), ErrorKind::TypeError, "{what}");
                assert!(
                    error.network_error().is_some_and(expected),
                    "{what}: {error:?}"
                );
            }
            (BodyFails(expected), Ok(mut response)) => {
                let error = response.bytes().await.unwrap_err();
                assert_eq!(error.kind(), ErrorKind::TypeError, "{what}");
                assert!(
                    error.network_error().is_some_and(expected),
                    "{what}: {error:?}"
                );
            }
            (Answers(status, body), Ok(mut response)) => {
                assert_eq!(response.status(), *status, "{what}");
                assert_eq!(response.bytes().await.unwrap(), *body, "{what}");
            }
            (_, result) => panic!("{what}: {:?}", result.map(|r| r.status())),
        }
        next_request_works(&client, &server.url("/ok")).await;
    }
}
