//! HTTP/1.1 pipelining (`HyperTransportBuilder::http1_pipelining`) against servers on
//! 127.0.0.1 that answer requests in order, as RFC 9112 §9.3.2 asks, and that end
//! pipelines in every way a server can: `Connection: close` mid-pipeline, HTTP/1.0, a
//! response that cannot be read, silence.

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::BodyExt;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use whatwg_fetch::NetworkError;
use whatwg_fetch::net::{HyperTransport, RequestBody, SendOptions, Transport};

/// How a server answers one request.
#[derive(Clone)]
struct Reply {
    /// The whole response, head and body.
    bytes: Vec<u8>,
    /// Waited before it is written.
    delay: Duration,
    /// The connection is closed after it.
    close: bool,
    /// Nothing is written, and the connection is left open.
    silent: bool,
}

/// `200 OK` whose body is the request's path.
fn echo(path: &str) -> Reply {
    Reply {
        bytes: format!(
            "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{path}",
            path.len()
        )
        .into_bytes(),
        delay: Duration::ZERO,
        close: false,
        silent: false,
    }
}

/// What a server answers a request: `(connection, index on the connection, path)`.
type Answer = dyn Fn(usize, usize, &str) -> Reply + Send + Sync;

/// What the server saw of one request.
#[derive(Clone, Debug)]
struct Seen {
    connection: usize,
    method: String,
    path: String,
    /// How many requests of the connection were in flight (arrived and not answered,
    /// this one counted) when this one was answered.
    in_flight: usize,
}

/// A server that reads requests as they come and answers each connection's in order,
/// with what `answer(connection, index on the connection, path)` says.
struct Server {
    addr: std::net::SocketAddr,
    seen: Arc<Mutex<Vec<Seen>>>,
    accepted: Arc<Mutex<usize>>,
}

impl Server {
    async fn start(answer: impl Fn(usize, usize, &str) -> Reply + Send + Sync + 'static) -> Server {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let accepted = Arc::new(Mutex::new(0));
        let answer = Arc::new(answer);
        let (seen2, accepted2) = (Arc::clone(&seen), Arc::clone(&accepted));
        tokio::spawn(async move {
            loop {
                let Ok((stream, _)) = listener.accept().await else {
                    return;
                };
                let connection = {
                    let mut accepted = accepted2.lock().unwrap();
                    *accepted += 1;
                    *accepted - 1
                };
                let answer = Arc::clone(&answer);
                let seen = Arc::clone(&seen2);
                tokio::spawn(serve(stream, connection, answer, seen));
            }
        });
        Server {
            addr,
            seen,
            accepted,
        }
    }

    fn url(&self, path: &str) -> String {
        format!("http://{}{path}", self.addr)
    }

    fn seen(&self) -> Vec<Seen> {
        self.seen.lock().unwrap().clone()
    }

    fn accepted(&self) -> usize {
        *self.accepted.lock().unwrap()
    }
}

/// One connection: requests are read as they arrive, and answered one after another.
async fn serve(
    stream: TcpStream,
    connection: usize,
    answer: Arc<Answer>,
    seen: Arc<Mutex<Vec<Seen>>>,
) {
    let (mut read, mut write) = stream.into_split();
    let (requests, mut incoming) = tokio::sync::mpsc::unbounded_channel::<(String, String)>();
    let arrived = Arc::new(Mutex::new(0usize));
    let arrived_reader = Arc::clone(&arrived);
    tokio::spawn(async move {
        let mut buf = Vec::new();
        let mut chunk = [0u8; 4096];
        loop {
            while let Some(end) = find(&buf, b"\r\n\r\n") {
                let head = String::from_utf8_lossy(&buf[..end]).into_owned();
                let length = head
                    .lines()
                    .find_map(|line| {
                        let (name, value) = line.split_once(':')?;
                        name.eq_ignore_ascii_case("content-length")
                            .then(|| value.trim().parse::<usize>().ok())?
                    })
                    .unwrap_or(0);
                if buf.len() < end + 4 + length {
                    break;
                }
                buf.drain(..end + 4 + length);
                let mut words = head.split(' ');
                let method = words.next().unwrap_or_default().to_owned();
                let path = words.next().unwrap_or_default().to_owned();
                *arrived_reader.lock().unwrap() += 1;
                if requests.send((method, path)).is_err() {
                    return;
                }
            }
            match read.read(&mut chunk).await {
                Ok(0) | Err(_) => return,
                Ok(n) => buf.extend_from_slice(&chunk[..n]),
            }
        }
    });
    let mut index = 0;
    while let Some((method, path)) = incoming.recv().await {
        let reply = answer(connection, index, &path);
        index += 1;
        tokio::time::sleep(reply.delay).await;
        seen.lock().unwrap().push(Seen {
            connection,
            method,
            path,
            in_flight: *arrived.lock().unwrap() - (index - 1),
        });
        if reply.silent {
            // Holds the connection open, answering nothing more.
            std::future::pending::<()>().await;
        }
        if write.write_all(&reply.bytes).await.is_err() {
            return;
        }
        if reply.close {
            write.shutdown().await.ok();
            return;
        }
    }
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack
        .windows(needle.len())
        .position(|window| window == needle)
}

fn pipelining(depth: usize, connections: usize) -> HyperTransport {
    HyperTransport::builder()
        .http1_pipelining(depth)
        .max_connections_per_origin(connections)
        .connect_timeout(Some(Duration::from_secs(5)))
        .build()
        .unwrap()
}

fn get(url: &str) -> http::Request<RequestBody> {
    http::Request::get(url).body(RequestBody::empty()).unwrap()
}

/// Sends `GET /0` … `GET /{n-1}` at once; each response's status and body, in order.
async fn get_all(
    transport: &HyperTransport,
    server: &Server,
    n: usize,
) -> Vec<Result<(u16, Bytes, Instant), NetworkError>> {
    let tasks: Vec<_> = (0..n)
        .map(|i| {
            let transport = transport.clone();
            let url = server.url(&format!("/{i}"));
            tokio::spawn(async move {
                let response = transport.send(get(&url), SendOptions::new()).await?;
                let status = response.status().as_u16();
                let body = response.into_body().collect().await?.to_bytes();
                Ok((status, body, Instant::now()))
            })
        })
        .collect();
    let mut results = Vec::new();
    for task in tasks {
        results.push(task.await.unwrap());
    }
    results
}

/// Gives the tasks that start requests time to queue them all, in order.
async fn settle() {
    tokio::time::sleep(Duration::from_millis(50)).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_are_written_without_waiting_and_answered_in_order() {
    let server = Server::start(|_, index, path| Reply {
        // The first answer waits, so that the requests behind it arrive first.
        delay: Duration::from_millis(if index == 0 { 200 } else { 0 }),
        ..echo(path)
    })
    .await;
    let transport = pipelining(8, 1);
    let results = get_all(&transport, &server, 8).await;
    for (i, result) in results.iter().enumerate() {
        let (status, body, _) = result.as_ref().unwrap();
        assert_eq!(*status, 200);
        assert_eq!(body, &format!("/{i}").into_bytes()[..]);
    }
    assert_eq!(server.accepted(), 1);
    let seen = server.seen();
    assert_eq!(seen.len(), 8);
    // All eight were on the wire before the first was answered; each response went to
    // its own request (every body is its request's path).
    assert_eq!(seen[0].in_flight, 8, "{seen:?}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_first_response_holds_up_the_ones_behind_it() {
    let server = Server::start(|_, index, path| Reply {
        delay: Duration::from_millis(if index == 0 { 400 } else { 0 }),
        ..echo(path)
    })
    .await;
    let transport = pipelining(4, 1);
    let started = Instant::now();
    let tasks: Vec<_> = (0..4)
        .map(|i| {
            let transport = transport.clone();
            let url = server.url(&format!("/{i}"));
            tokio::spawn(async move {
                let response = transport.send(get(&url), SendOptions::new()).await?;
                let body = response.into_body().collect().await?.to_bytes();
                Ok::<_, NetworkError>((body, Instant::now()))
            })
        })
        .collect();
    let mut done = Vec::new();
    for task in tasks {
        done.push(task.await.unwrap().unwrap());
    }
    // Head-of-line blocking: the quick answers behind the slow one wait for it, and
    // each comes back to its own request.
    for (body, at) in &done {
        assert!(
            at.duration_since(started) >= Duration::from_millis(390),
            "a response arrived before the slow one ({body:?} after {:?})",
            at.duration_since(started)
        );
    }
    for (i, (body, _)) in done.iter().enumerate() {
        assert_eq!(body, &format!("/{i}").into_bytes()[..]);
    }
    assert_eq!(server.accepted(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn connection_close_mid_pipeline_sends_the_unanswered_again_on_new_connections() {
    // The first connection answers two requests, the second with `Connection: close`,
    // and closes with the others written and unanswered; later connections answer all.
    let server = Server::start(|connection, index, path| {
        let mut reply = echo(path);
        if connection == 0 && index == 1 {
            reply.bytes = format!(
                "HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{path}",
                path.len()
            )
            .into_bytes();
            reply.close = true;
        }
        reply.delay = Duration::from_millis(if connection == 0 && index == 0 {
            100
        } else {
            0
        });
        reply
    })
    .await;
    let transport = pipelining(6, 8);
    // The first request opens the pipeline; the five after it join it.
    let first = {
        let transport = transport.clone();
        let url = server.url("/0");
        tokio::spawn(async move { transport.send(get(&url), SendOptions::new()).await })
    };
    settle().await;
    let results = get_all_from(&transport, &server, 1..6).await;
    let first = first.await.unwrap().unwrap();
    assert_eq!(first.into_body().collect().await.unwrap().to_bytes(), "/0");
    for (i, result) in (1..6).zip(results) {
        let (status, body, _) = result.unwrap();
        assert_eq!(status, 200);
        assert_eq!(body, format!("/{i}").into_bytes());
    }
    let seen = server.seen();
    let on_first: Vec<_> = seen.iter().filter(|seen| seen.connection == 0).collect();
    assert_eq!(on_first.len(), 2, "{seen:?}");
    // Each of the four unanswered went again once, on a new connection of its own.
    assert_eq!(server.accepted(), 5, "{seen:?}");
    for i in 0..6 {
        let path = format!("/{i}");
        let answered: Vec<_> = seen.iter().filter(|seen| seen.path == path).collect();
        assert_eq!(answered.len(), 1, "{path}: {seen:?}");
    }
    let mut later: Vec<_> = seen
        .iter()
        .map(|seen| seen.connection)
        .filter(|&c| c > 0)
        .collect();
    later.sort_unstable();
    assert_eq!(later, [1, 2, 3, 4], "{seen:?}");
}

/// Sends `GET /{i}` for each `i` of `range` at once, after the one already sent.
async fn get_all_from(
    transport: &HyperTransport,
    server: &Server,
    range: std::ops::Range<usize>,
) -> Vec<Result<(u16, Vec<u8>, Instant), NetworkError>> {
    let tasks: Vec<_> = range
        .map(|i| {
            let transport = transport.clone();
            let url = server.url(&format!("/{i}"));
            tokio::spawn(async move {
                let response = transport.send(get(&url), SendOptions::new()).await?;
                let status = response.status().as_u16();
                let body = response.into_body().collect().await?.to_bytes();
                Ok((status, body.to_vec(), Instant::now()))
            })
        })
        .collect();
    let mut results = Vec::new();
    for task in tasks {
        results.push(task.await.unwrap());
    }
    results
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_http_1_0_server_gets_each_request_once_and_no_more_pipelines() {
    // Answers in HTTP/1.0 without keep-alive, and closes after each response.
    let server = Server::start(|_, _, path| Reply {
        bytes: format!(
            "HTTP/1.0 200 OK\r\nContent-Length: {}\r\n\r\n{path}",
            path.len()
        )
        .into_bytes(),
        delay: Duration::from_millis(50),
        close: true,
        silent: false,
    })
    .await;
    let transport = pipelining(4, 8);
    let first = {
        let transport = transport.clone();
        let url = server.url("/0");
        tokio::spawn(async move { transport.send(get(&url), SendOptions::new()).await })
    };
    settle().await;
    let results = get_all_from(&transport, &server, 1..4).await;
    let first = first.await.unwrap().unwrap();
    assert_eq!(first.into_body().collect().await.unwrap().to_bytes(), "/0");
    for (i, result) in (1..4).zip(results) {
        assert_eq!(result.unwrap().1, format!("/{i}").into_bytes());
    }
    let accepted = server.accepted();
    // Later requests are not pipelined: each connection carries one request.
    let results = get_all_from(&transport, &server, 4..8).await;
    for (i, result) in (4..8).zip(results) {
        assert_eq!(result.unwrap().1, format!("/{i}").into_bytes());
    }
    let seen = server.seen();
    assert_eq!(server.accepted(), accepted + 4, "{seen:?}");
    for seen in seen.iter().filter(|seen| seen.connection >= accepted) {
        assert_eq!(seen.in_flight, 1, "{seen:?}");
    }
    // Every path answered once.
    for i in 0..8 {
        let path = format!("/{i}");
        assert_eq!(seen.iter().filter(|seen| seen.path == path).count(), 1);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_that_cannot_be_framed_fails_its_own_request_only() {
    let server = Server::start(|connection, index, path| {
        let mut reply = echo(path);
        if connection == 0 && index == 1 {
            reply.bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\nxx".to_vec();
        }
        reply.delay = Duration::from_millis(if connection == 0 && index == 0 {
            100
        } else {
            0
        });
        reply
    })
    .await;
    let transport = pipelining(4, 8);
    let first = {
        let transport = transport.clone();
        let url = server.url("/0");
        tokio::spawn(async move { transport.send(get(&url), SendOptions::new()).await })
    };
    settle().await;
    let results = get_all_from(&transport, &server, 1..4).await;
    let first = first.await.unwrap().unwrap();
    assert_eq!(first.into_body().collect().await.unwrap().to_bytes(), "/0");
    // The second answered on the first connection fails; the others are answered.
    let (failed, answered): (Vec<_>, Vec<_>) = (1..4).zip(results).partition(|(_, r)| r.is_err());
    assert_eq!(failed.len(), 1);
    let failed = failed.into_iter().next().unwrap().1.unwrap_err();
    assert!(
        matches!(failed, NetworkError::Protocol(_)),
        "{failed:?}: {failed}"
    );
    let mut chain = failed.to_string();
    let mut source = std::error::Error::source(&failed);
    while let Some(cause) = source {
        chain.push_str(&format!(": {cause}"));
        source = cause.source();
    }
    assert!(chain.contains("Content-Length"), "{chain}");
    for (i, result) in answered {
        assert_eq!(result.unwrap().1, format!("/{i}").into_bytes());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_that_may_not_be_sent_again_are_not_pipelined() {
    let server = Server::start(|_, _, path| Reply {
        delay: Duration::from_millis(30),
        ..echo(path)
    })
    .await;
    let transport = pipelining(8, 1);
    let tasks: Vec<_> = (0..4)
        .map(|i| {
            let transport = transport.clone();
            let url = server.url(&format!("/{i}"));
            tokio::spawn(async move {
                let request = http::Request::post(url)
                    .body(RequestBody::full("payload"))
                    .unwrap();
                let response = transport.send(request, SendOptions::new()).await.unwrap();
                response.into_body().collect().await.unwrap().to_bytes()
            })
        })
        .collect();
    for (i, task) in tasks.into_iter().enumerate() {
        assert_eq!(task.await.unwrap(), format!("/{i}").into_bytes());
    }
    // One connection, one request on it at a time.
    for seen in server.seen() {
        assert_eq!(seen.method, "POST");
        assert_eq!(seen.in_flight, 1, "{seen:?}");
    }
    assert_eq!(server.accepted(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_never_answered_times_out_and_the_ones_behind_go_again() {
    let server = Server::start(|connection, index, path| {
        let mut reply = echo(path);
        reply.silent = connection == 0 && index == 0;
        reply
    })
    .await;
    let transport = HyperTransport::builder()
        .http1_pipelining(4)
        .max_connections_per_origin(8)
        .read_timeout(Some(Duration::from_millis(300)))
        .build()
        .unwrap();
    let first = {
        let transport = transport.clone();
        let url = server.url("/0");
        tokio::spawn(async move { transport.send(get(&url), SendOptions::new()).await })
    };
    settle().await;
    let results = get_all_from(&transport, &server, 1..4).await;
    let failed = first.await.unwrap().unwrap_err();
    assert!(matches!(failed, NetworkError::Timeout { .. }), "{failed:?}");
    for (i, result) in (1..4).zip(results) {
        assert_eq!(result.unwrap().1, format!("/{i}").into_bytes());
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_dropped_unread_is_read_past_and_the_pipeline_goes_on() {
    let server = Server::start(|_, index, path| {
        let body = if index == 0 {
            vec![b'x'; 10_000]
        } else {
            path.as_bytes().to_vec()
        };
        let mut bytes =
            format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len()).into_bytes();
        bytes.extend_from_slice(&body);
        Reply {
            bytes,
            delay: Duration::from_millis(if index == 0 { 100 } else { 0 }),
            close: false,
            silent: false,
        }
    })
    .await;
    let transport = pipelining(4, 1);
    let first = {
        let transport = transport.clone();
        let url = server.url("/0");
        tokio::spawn(async move {
            // The head only: the body is dropped unread.
            let response = transport.send(get(&url), SendOptions::new()).await.unwrap();
            response.status()
        })
    };
    settle().await;
    let results = get_all_from(&transport, &server, 1..4).await;
    assert_eq!(first.await.unwrap(), 200);
    for (i, result) in (1..4).zip(results) {
        assert_eq!(result.unwrap().1, format!("/{i}").into_bytes());
    }
    assert_eq!(server.accepted(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn large_bodies_arrive_whole_through_ten_deep_pipelines() {
    // undici's benchmark: 64 KiB bodies; here each one's bytes tell which it is.
    let server = Server::start(|_, _, path| {
        let n: usize = path[1..].parse().unwrap();
        let body: Vec<u8> = (0..65_536)
            .map(|i| ((i * 31 + n * 7) % 251) as u8)
            .collect();
        let mut bytes =
            format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len()).into_bytes();
        bytes.extend_from_slice(&body);
        Reply {
            bytes,
            delay: Duration::ZERO,
            close: false,
            silent: false,
        }
    })
    .await;
    let transport = pipelining(10, 5);
    for _round in 0..3 {
        let results = get_all(&transport, &server, 100).await;
        for (n, result) in results.into_iter().enumerate() {
            let (status, body, _) = result.unwrap();
            assert_eq!(status, 200);
            let expected: Vec<u8> = (0..65_536)
                .map(|i| ((i * 31 + n * 7) % 251) as u8)
                .collect();
            assert!(body == expected, "body {n} differs");
        }
    }
    assert!(server.accepted() <= 5, "{}", server.accepted());
    // Several requests were on one connection at once.
    assert!(server.seen().iter().any(|seen| seen.in_flight > 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_client_pipelines_fetches_end_to_end() {
    let server = Server::start(|_, index, path| Reply {
        delay: Duration::from_millis(if index == 0 { 100 } else { 0 }),
        ..echo(path)
    })
    .await;
    let client = whatwg_fetch::Client::builder()
        .http1_pipelining(4)
        .max_connections_per_origin(1)
        .build()
        .unwrap();
    let tasks: Vec<_> = (0..4)
        .map(|i| {
            let client = client.clone();
            let url = server.url(&format!("/{i}"));
            tokio::spawn(async move { client.get(&url).send().await?.text().await })
        })
        .collect();
    for (i, task) in tasks.into_iter().enumerate() {
        assert_eq!(task.await.unwrap().unwrap(), format!("/{i}"));
    }
    assert_eq!(server.accepted(), 1);
    assert!(server.seen().iter().any(|seen| seen.in_flight > 1));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_body_dropped_unread_ends_the_pipeline_and_the_rest_go_again() {
    // The first answer's 4 MiB body is more than is read for nobody (256 KiB).
    let server = Server::start(|connection, index, path| {
        let body = if connection == 0 && index == 0 {
            vec![b'x'; 4 << 20]
        } else {
            path.as_bytes().to_vec()
        };
        let mut bytes =
            format!("HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n", body.len()).into_bytes();
        bytes.extend_from_slice(&body);
        Reply {
            bytes,
            delay: Duration::from_millis(if connection == 0 && index == 0 {
                100
            } else {
                0
            }),
            close: false,
            silent: false,
        }
    })
    .await;
    let transport = pipelining(4, 8);
    let first = {
        let transport = transport.clone();
        let url = server.url("/0");
        tokio::spawn(async move {
            let response = transport.send(get(&url), SendOptions::new()).await.unwrap();
            response.status()
        })
    };
    settle().await;
    let results = get_all_from(&transport, &server, 1..4).await;
    assert_eq!(first.await.unwrap(), 200);
    for (i, result) in (1..4).zip(results) {
        assert_eq!(result.unwrap().1, format!("/{i}").into_bytes());
    }
    // Each of the three went again on a connection of its own.
    assert_eq!(server.accepted(), 4, "{:?}", server.seen());
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_cut_short_fails_its_own_request_and_the_rest_go_again() {
    let server = Server::start(|connection, index, path| {
        let mut reply = echo(path);
        if connection == 0 && index == 0 {
            // 1,000 bytes promised, 10 sent, then the close.
            reply.bytes = b"HTTP/1.1 200 OK\r\nContent-Length: 1000\r\n\r\n0123456789".to_vec();
            reply.close = true;
            reply.delay = Duration::from_millis(100);
        }
        reply
    })
    .await;
    let transport = pipelining(4, 8);
    let first = {
        let transport = transport.clone();
        let url = server.url("/0");
        tokio::spawn(async move {
            let response = transport.send(get(&url), SendOptions::new()).await?;
            response
                .into_body()
                .collect()
                .await
                .map(|body| body.to_bytes())
        })
    };
    settle().await;
    let results = get_all_from(&transport, &server, 1..4).await;
    let cut = first.await.unwrap().unwrap_err();
    assert!(matches!(cut, NetworkError::LengthMismatch), "{cut:?}");
    for (i, result) in (1..4).zip(results) {
        assert_eq!(result.unwrap().1, format!("/{i}").into_bytes());
    }
}
