//! The keep-alive race: a reused connection closed under a request.
//!
//! A server may close a persistent connection at any moment; a request the client sent on
//! it just then is lost, unanswered. An idempotent request whose reused connection closes
//! before a byte of the response arrives is sent once more, on a new connection (RFC 9110
//! §9.2.2, RFC 9112 §9.3.1), as curl and browsers do; so is one that a reused connection
//! answers with `408 Request Timeout`, as Chrome does, and an HTTP/2 request whose stream
//! the server refused unprocessed (RFC 9113 §8.7). Nothing else is sent twice.
//!
//! The two race patterns run `KEEPALIVE_RACE_REQUESTS` requests when it is set (say 1000),
//! and fewer by default to keep the suite quick.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;
use whatwg_fetch::{Body, BodyInit, Client, ErrorKind, NetworkError, RequestDuplex, RequestInit};

use crate::net_support::{Server, raw_server, read_head};

const OK: &[u8] = b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok";

/// The number of requests a race pattern runs: `KEEPALIVE_RACE_REQUESTS`, or `default`.
fn requests(default: usize) -> usize {
    std::env::var("KEEPALIVE_RACE_REQUESTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(default)
}

/// What a server did with the requests it read.
#[derive(Clone, Default)]
struct Tally {
    answered: Arc<AtomicUsize>,
    /// Read, then dropped with the connection, never answered.
    dropped: Arc<AtomicUsize>,
}

impl Tally {
    fn answered(&self) -> usize {
        self.answered.load(Ordering::SeqCst)
    }

    fn dropped(&self) -> usize {
        self.dropped.load(Ordering::SeqCst)
    }
}

/// Reads one request: its head, and its body by `Content-Length` or chunked. `None` at the
/// end of the stream.
async fn read_request<S: AsyncRead + Unpin>(stream: &mut S) -> Option<(String, Vec<u8>)> {
    let head = read_head(stream).await?;
    let lower = head.to_ascii_lowercase();
    let mut body = Vec::new();
    if let Some(length) = lower
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
        .and_then(|value| value.trim().parse::<usize>().ok())
    {
        body.resize(length, 0);
        stream.read_exact(&mut body).await.ok()?;
    } else if lower.contains("transfer-encoding: chunked") {
        let mut byte = [0u8; 1];
        while !body.ends_with(b"0\r\n\r\n") {
            match stream.read(&mut byte).await {
                Ok(1) => body.push(byte[0]),
                _ => return None,
            }
        }
    }
    Some((head, body))
}

/// A server that answers `per_connection` requests on each connection, then reads the
/// next one and closes the connection without answering it.
async fn closing_after(per_connection: usize, tally: Tally) -> Server {
    raw_server(move |mut stream| {
        let tally = tally.clone();
        async move {
            let mut served = 0;
            while read_request(&mut stream).await.is_some() {
                if served == per_connection {
                    tally.dropped.fetch_add(1, Ordering::SeqCst);
                    return;
                }
                if stream.write_all(OK).await.is_err() {
                    return;
                }
                served += 1;
                tally.answered.fetch_add(1, Ordering::SeqCst);
            }
        }
    })
    .await
}

/// Fetches `url` and reads the body; `Err` with the error's description on failure.
async fn get(client: &Client, url: &str) -> Result<String, whatwg_fetch::Error> {
    let mut response = client.fetch(url, RequestInit::default()).await?;
    response.text().await
}

#[tokio::test]
async fn gets_on_connections_closed_after_reading_them_are_all_answered_on_a_retry() {
    let n = requests(300);
    let tally = Tally::default();
    let server = closing_after(3, tally.clone()).await;
    let client = Client::builder().build().unwrap();
    let url = server.url("/");
    let run = async {
        let mut failures = 0;
        for _ in 0..n {
            if get(&client, &url).await.is_err() {
                failures += 1;
            }
        }
        failures
    };
    let bound = Duration::from_secs(30 + n as u64 / 20);
    let failures = tokio::time::timeout(bound, run).await.unwrap();
    eprintln!(
        "{n} GETs, a connection closed after 3: {failures} failed, {} answered, \
         {} read and dropped (each sent again), {} connections",
        tally.answered(),
        tally.dropped(),
        server.counts.accepts()
    );
    assert_eq!(failures, 0, "{failures} of {n} GETs failed");
    assert_eq!(tally.answered(), n);
    // Every fourth request on a connection was dropped and sent again on a new one.
    assert_eq!(tally.dropped(), (n - 1) / 3);
    assert_eq!(server.counts.accepts(), 1 + tally.dropped());
}

/// A server that closes a connection after `idle` without a request. Like nginx's
/// lingering close, it then reads (and drops, unanswered) whatever requests were already
/// on their way, until the client closes its end: those are the requests the race lost.
async fn closing_when_idle(idle: Duration, tally: Tally) -> Server {
    raw_server(move |mut stream| {
        let tally = tally.clone();
        async move {
            loop {
                match tokio::time::timeout(idle, read_head(&mut stream)).await {
                    Ok(Some(_)) => {
                        if stream.write_all(OK).await.is_err() {
                            return;
                        }
                        tally.answered.fetch_add(1, Ordering::SeqCst);
                    }
                    Ok(None) => return,
                    Err(_) => break,
                }
            }
            let _ = stream.shutdown().await;
            let linger = async {
                while read_head(&mut stream).await.is_some() {
                    tally.dropped.fetch_add(1, Ordering::SeqCst);
                }
            };
            let _ = tokio::time::timeout(Duration::from_secs(2), linger).await;
        }
    })
    .await
}

#[tokio::test]
async fn gets_racing_a_servers_idle_timeout_are_all_answered_on_a_retry() {
    let n = requests(150);
    let tally = Tally::default();
    // The server gives up on a connection after 20 ms; requests come every 18 to 22 ms.
    let server = closing_when_idle(Duration::from_millis(20), tally.clone()).await;
    let client = Client::builder().build().unwrap();
    let url = server.url("/");
    let mut pauses = fastrand::Rng::with_seed(9);
    let run = async {
        let mut failures = 0;
        for _ in 0..n {
            if get(&client, &url).await.is_err() {
                failures += 1;
            }
            tokio::time::sleep(Duration::from_millis(pauses.u64(18..=22))).await;
        }
        failures
    };
    let bound = Duration::from_secs(30 + n as u64 / 10);
    let failures = tokio::time::timeout(bound, run).await.unwrap();
    eprintln!(
        "{n} GETs against a 20 ms idle timeout: {failures} failed, {} answered, \
         {} met a closing connection (each sent again), {} connections",
        tally.answered(),
        tally.dropped(),
        server.counts.accepts()
    );
    assert_eq!(failures, 0, "{failures} of {n} GETs failed");
    assert_eq!(tally.answered(), n);
}

/// A server whose connections answer every request but those `drop_if` picks: it reads
/// those and closes the connection. Counts the requests by method.
async fn dropping(drop_if: fn(&str) -> bool, seen: Arc<std::sync::Mutex<Vec<String>>>) -> Server {
    raw_server(move |mut stream| {
        let seen = seen.clone();
        async move {
            while let Some((head, _body)) = read_request(&mut stream).await {
                let line = head.lines().next().unwrap_or_default().to_owned();
                seen.lock().unwrap().push(line.clone());
                if drop_if(&line) || stream.write_all(OK).await.is_err() {
                    return;
                }
            }
        }
    })
    .await
}

fn count(seen: &std::sync::Mutex<Vec<String>>, prefix: &str) -> usize {
    seen.lock()
        .unwrap()
        .iter()
        .filter(|line| line.starts_with(prefix))
        .count()
}

fn assert_protocol_error(error: &whatwg_fetch::Error) {
    assert_eq!(error.kind(), ErrorKind::TypeError, "{error:?}");
    assert!(
        matches!(error.network_error(), Some(NetworkError::Protocol(_))),
        "{error:?}"
    );
}

#[tokio::test]
async fn a_post_on_a_reused_connection_closed_after_reading_it_is_not_sent_again() {
    let seen = Arc::default();
    let server = dropping(|line| line.starts_with("POST"), Arc::clone(&seen)).await;
    let client = Client::builder().build().unwrap();
    let test = async {
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "ok");
        let post = RequestInit {
            method: Some("POST".into()),
            body: Some("payload".into()),
            ..Default::default()
        };
        let error = client.fetch(server.url("/"), post).await.unwrap_err();
        assert_protocol_error(&error);
        assert_eq!(count(&seen, "POST"), 1, "the POST went out once");
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "ok");
    };
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_put_with_a_stream_body_is_not_sent_again() {
    let seen = Arc::default();
    let server = dropping(|line| line.starts_with("PUT"), Arc::clone(&seen)).await;
    let client = Client::builder().build().unwrap();
    let test = async {
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "ok");
        let chunks = [Ok::<_, std::io::Error>(Bytes::from_static(b"stream"))];
        let put = RequestInit {
            method: Some("PUT".into()),
            body: Some(BodyInit::from(Body::from_stream(
                futures_util::stream::iter(chunks),
            ))),
            duplex: Some(RequestDuplex::Half),
            ..Default::default()
        };
        let error = client.fetch(server.url("/"), put).await.unwrap_err();
        assert_protocol_error(&error);
        assert_eq!(count(&seen, "PUT"), 1, "the PUT went out once");
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "ok");
    };
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_put_with_a_buffered_body_is_sent_again() {
    let seen = Arc::default();
    let server = dropping(|line| line.starts_with("PUT /first"), Arc::clone(&seen)).await;
    let client = Client::builder().build().unwrap();
    let test = async {
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "ok");
        let put = || RequestInit {
            method: Some("PUT".into()),
            body: Some("payload".into()),
            ..Default::default()
        };
        let first = client.fetch(server.url("/first"), put()).await;
        // Dropped on the reused connection, then dropped on the new one too: sent twice,
        // never a third time.
        assert_protocol_error(&first.unwrap_err());
        assert_eq!(count(&seen, "PUT /first"), 2);
        let mut second = client.fetch(server.url("/second"), put()).await.unwrap();
        assert_eq!(second.text().await.unwrap(), "ok");
    };
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_new_connection_closed_after_reading_the_request_is_not_retried() {
    let connections = Arc::new(AtomicUsize::new(0));
    let requests_read = Arc::new(AtomicUsize::new(0));
    let server = {
        let (connections, requests_read) = (Arc::clone(&connections), Arc::clone(&requests_read));
        raw_server(move |mut stream| {
            let first = connections.fetch_add(1, Ordering::SeqCst) == 0;
            let requests_read = Arc::clone(&requests_read);
            async move {
                while read_head(&mut stream).await.is_some() {
                    requests_read.fetch_add(1, Ordering::SeqCst);
                    if first || stream.write_all(OK).await.is_err() {
                        return;
                    }
                }
            }
        })
        .await
    };
    let client = Client::builder().build().unwrap();
    let test = async {
        let error = get(&client, &server.url("/")).await.unwrap_err();
        assert_protocol_error(&error);
        assert_eq!(requests_read.load(Ordering::SeqCst), 1);
        assert_eq!(server.counts.accepts(), 1);
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "ok");
    };
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_connection_reset_after_part_of_the_head_arrived_is_not_retried() {
    let requests_read = Arc::new(AtomicUsize::new(0));
    let server = {
        let requests_read = Arc::clone(&requests_read);
        raw_server(move |mut stream: TcpStream| {
            let requests_read = Arc::clone(&requests_read);
            async move {
                let mut served = 0;
                while read_head(&mut stream).await.is_some() {
                    requests_read.fetch_add(1, Ordering::SeqCst);
                    if served == 1 {
                        // Half a head, then a reset.
                        let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nContent-").await;
                        let _ = stream.set_zero_linger();
                        return;
                    }
                    if stream.write_all(OK).await.is_err() {
                        return;
                    }
                    served += 1;
                }
            }
        })
        .await
    };
    let client = Client::builder().build().unwrap();
    let test = async {
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "ok");
        let error = get(&client, &server.url("/")).await.unwrap_err();
        assert_protocol_error(&error);
        assert_eq!(requests_read.load(Ordering::SeqCst), 2, "sent once");
        assert_eq!(server.counts.accepts(), 1);
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "ok");
    };
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .unwrap();
}

/// An HTTP/2 server (prior knowledge, over TCP) that refuses with `REFUSED_STREAM` the
/// streams `refuse` picks, given the request and the stream's number on its connection
/// (from 0), and answers the others with "ok".
async fn h2_refusing(
    refuse: fn(&http::Request<h2::RecvStream>, usize) -> bool,
    tally: Tally,
) -> Server {
    raw_server(move |stream| {
        let tally = tally.clone();
        async move {
            let Ok(mut connection) = h2::server::handshake(stream).await else {
                return;
            };
            let mut index = 0;
            while let Some(Ok((request, mut respond))) = connection.accept().await {
                if refuse(&request, index) {
                    respond.send_reset(h2::Reason::REFUSED_STREAM);
                    tally.dropped.fetch_add(1, Ordering::SeqCst);
                } else {
                    let tally = tally.clone();
                    tokio::spawn(async move {
                        let mut body = request.into_body();
                        while let Some(Ok(chunk)) = body.data().await {
                            let _ = body.flow_control().release_capacity(chunk.len());
                        }
                        let Ok(mut send) = respond.send_response(http::Response::new(()), false)
                        else {
                            return;
                        };
                        if send.send_data(Bytes::from_static(b"ok"), true).is_ok() {
                            tally.answered.fetch_add(1, Ordering::SeqCst);
                        }
                    });
                }
                index += 1;
            }
        }
    })
    .await
}

fn h2_client() -> Client {
    Client::builder()
        .http2_prior_knowledge(true)
        .build()
        .unwrap()
}

#[tokio::test]
async fn an_http2_stream_refused_unprocessed_is_sent_again_on_a_new_connection() {
    let tally = Tally::default();
    // Each connection answers its first stream and refuses the rest.
    let server = h2_refusing(|_, index| index > 0, tally.clone()).await;
    let client = h2_client();
    let test = async {
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "ok");
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "ok");
        assert_eq!((tally.answered(), tally.dropped()), (2, 1));
        assert_eq!(server.counts.accepts(), 2);
        // Any method: the server says it did not process the stream.
        let post = RequestInit {
            method: Some("POST".into()),
            body: Some("payload".into()),
            ..Default::default()
        };
        let mut response = client.fetch(server.url("/"), post).await.unwrap();
        assert_eq!(response.text().await.unwrap(), "ok");
        assert_eq!((tally.answered(), tally.dropped()), (3, 2));
        assert_eq!(server.counts.accepts(), 3);
    };
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .unwrap();
}

#[tokio::test]
async fn an_http2_stream_refused_twice_or_with_a_stream_body_fails() {
    let tally = Tally::default();
    // Refuses every POST; answers the rest.
    let server = h2_refusing(|request, _| request.method() == "POST", tally.clone()).await;
    let client = h2_client();
    let test = async {
        let chunks = [Ok::<_, std::io::Error>(Bytes::from_static(b"stream"))];
        let streamed = RequestInit {
            method: Some("POST".into()),
            body: Some(BodyInit::from(Body::from_stream(
                futures_util::stream::iter(chunks),
            ))),
            duplex: Some(RequestDuplex::Half),
            ..Default::default()
        };
        let error = client.fetch(server.url("/"), streamed).await.unwrap_err();
        assert_protocol_error(&error);
        assert_eq!(tally.dropped(), 1, "a stream body is not sent again");
        let buffered = RequestInit {
            method: Some("POST".into()),
            body: Some("payload".into()),
            ..Default::default()
        };
        let error = client.fetch(server.url("/"), buffered).await.unwrap_err();
        assert_protocol_error(&error);
        assert_eq!(tally.dropped(), 3, "sent again once, not twice");
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "ok");
    };
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .unwrap();
}

/// Writes one HTTP/2 frame.
async fn write_frame(stream: &mut TcpStream, kind: u8, flags: u8, id: u32, payload: &[u8]) {
    let length = u32::try_from(payload.len()).unwrap().to_be_bytes();
    let mut frame = vec![length[1], length[2], length[3], kind, flags];
    frame.extend_from_slice(&id.to_be_bytes());
    frame.extend_from_slice(payload);
    let _ = stream.write_all(&frame).await;
}

/// A hand-written HTTP/2 server (prior knowledge): the first connection answers its first
/// stream, then meets the next with a `GOAWAY` whose last stream identifier is the first
/// stream's; later connections answer every stream. Each answer is a bare `200`.
async fn h2_going_away(tally: Tally) -> Server {
    let connections = Arc::new(AtomicUsize::new(0));
    raw_server(move |mut stream| {
        let tally = tally.clone();
        let first_connection = connections.fetch_add(1, Ordering::SeqCst) == 0;
        async move {
            let mut preface = [0u8; 24];
            if stream.read_exact(&mut preface).await.is_err() {
                return;
            }
            const SETTINGS: u8 = 0x4;
            write_frame(&mut stream, SETTINGS, 0, 0, &[]).await;
            let mut streams = 0;
            loop {
                let mut header = [0u8; 9];
                if stream.read_exact(&mut header).await.is_err() {
                    return;
                }
                let length = usize::from(header[0]) << 16
                    | usize::from(header[1]) << 8
                    | usize::from(header[2]);
                let (kind, flags) = (header[3], header[4]);
                let id =
                    u32::from_be_bytes([header[5], header[6], header[7], header[8]]) & 0x7fff_ffff;
                let mut payload = vec![0u8; length];
                if stream.read_exact(&mut payload).await.is_err() {
                    return;
                }
                match kind {
                    // SETTINGS, not an acknowledgement: acknowledge it.
                    SETTINGS if flags & 0x1 == 0 => {
                        write_frame(&mut stream, SETTINGS, 0x1, 0, &[]).await;
                    }
                    // HEADERS: a new stream.
                    0x1 => {
                        streams += 1;
                        if first_connection && streams > 1 {
                            // GOAWAY: nothing after stream 1 was processed.
                            let mut goaway = 1u32.to_be_bytes().to_vec();
                            goaway.extend_from_slice(&0u32.to_be_bytes());
                            write_frame(&mut stream, 0x7, 0, 0, &goaway).await;
                            tally.dropped.fetch_add(1, Ordering::SeqCst);
                        } else {
                            // `:status: 200` (static table index 8), END_HEADERS and
                            // END_STREAM.
                            write_frame(&mut stream, 0x1, 0x5, id, &[0x88]).await;
                            tally.answered.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                    // PING: answer it.
                    0x6 if flags & 0x1 == 0 => {
                        write_frame(&mut stream, 0x6, 0x1, 0, &payload).await;
                    }
                    _ => {}
                }
            }
        }
    })
    .await
}

#[tokio::test]
async fn an_http2_stream_past_a_goaways_last_stream_is_sent_again_on_a_new_connection() {
    let tally = Tally::default();
    let server = h2_going_away(tally.clone()).await;
    let client = h2_client();
    let test = async {
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "");
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "");
        assert_eq!((tally.answered(), tally.dropped()), (2, 1));
        assert_eq!(server.counts.accepts(), 2);
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "");
        assert_eq!(server.counts.accepts(), 2);
    };
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .unwrap();
}

// ---------------------------------------------------------------------------------------
// A `408 Request Timeout` on a reused HTTP/1.1 connection
//
// A server that times a kept-alive connection out may answer the request that arrives
// just then with a `408` and close, rather than close silently: the same race, told. As
// Chrome does (`HttpNetworkTransaction` resends on a 408 over a reused connection), the
// request is sent once more on a new connection, under the keep-alive race's rules.

const TIMED_OUT: &[u8] =
    b"HTTP/1.1 408 Request Timeout\r\nconnection: close\r\ncontent-length: 7\r\n\r\ntimeout";

/// A server whose `n`th connection answers its requests with `scripts[n]`, one response
/// a request, closing after a response that says `connection: close` (and after the
/// last); connections past the scripts answer `200 ok`. Notes each request line read, with
/// the connection it came on.
async fn scripted(
    scripts: Vec<Vec<&'static [u8]>>,
    seen: Arc<std::sync::Mutex<Vec<(usize, String)>>>,
) -> Server {
    let scripts = Arc::new(scripts);
    let connections = Arc::new(AtomicUsize::new(0));
    raw_server(move |mut stream| {
        let index = connections.fetch_add(1, Ordering::SeqCst);
        let script = scripts.get(index).cloned().unwrap_or_else(|| vec![OK; 16]);
        let seen = Arc::clone(&seen);
        async move {
            for response in script {
                let Some((head, _)) = read_request(&mut stream).await else {
                    return;
                };
                let line = head.lines().next().unwrap_or_default().to_owned();
                seen.lock().unwrap().push((index, line));
                if stream.write_all(response).await.is_err()
                    || response
                        .to_ascii_lowercase()
                        .windows(17)
                        .any(|w| w == b"connection: close")
                {
                    return;
                }
            }
        }
    })
    .await
}

/// Fetches `url` with `init`: the status and the body's text.
async fn status_and_text(client: &Client, url: &str, init: RequestInit) -> (u16, String) {
    let mut response = client.fetch(url, init).await.unwrap();
    (response.status(), response.text().await.unwrap())
}

#[tokio::test]
async fn a_408_on_a_reused_connection_is_sent_again_on_a_new_one() {
    let seen = Arc::default();
    let server = scripted(vec![vec![OK, TIMED_OUT], vec![OK]], Arc::clone(&seen)).await;
    let client = Client::builder().build().unwrap();
    let test = async {
        assert_eq!(get(&client, &server.url("/one")).await.unwrap(), "ok");
        let (status, text) =
            status_and_text(&client, &server.url("/two"), RequestInit::default()).await;
        assert_eq!((status, text.as_str()), (200, "ok"));
        assert_eq!(server.counts.accepts(), 2);
        assert_eq!(
            *seen.lock().unwrap(),
            [
                (0, "GET /one HTTP/1.1".to_owned()),
                (0, "GET /two HTTP/1.1".to_owned()),
                (1, "GET /two HTTP/1.1".to_owned()),
            ]
        );
    };
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_408_on_a_new_connection_is_returned_as_it_is() {
    let seen = Arc::default();
    let server = scripted(vec![vec![TIMED_OUT]], Arc::clone(&seen)).await;
    let client = Client::builder().build().unwrap();
    let test = async {
        let (status, text) =
            status_and_text(&client, &server.url("/"), RequestInit::default()).await;
        assert_eq!((status, text.as_str()), (408, "timeout"));
        assert_eq!(server.counts.accepts(), 1);
        assert_eq!(seen.lock().unwrap().len(), 1);
    };
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_408_again_on_the_new_connection_is_returned_without_a_third_try() {
    let seen = Arc::default();
    let server = scripted(
        vec![vec![OK, TIMED_OUT], vec![TIMED_OUT]],
        Arc::clone(&seen),
    )
    .await;
    let client = Client::builder().build().unwrap();
    let test = async {
        assert_eq!(get(&client, &server.url("/one")).await.unwrap(), "ok");
        let (status, text) =
            status_and_text(&client, &server.url("/two"), RequestInit::default()).await;
        assert_eq!((status, text.as_str()), (408, "timeout"));
        assert_eq!(server.counts.accepts(), 2);
        assert_eq!(seen.lock().unwrap().len(), 3, "{:?}", seen.lock().unwrap());
        // The client goes on, on a third connection.
        assert_eq!(get(&client, &server.url("/three")).await.unwrap(), "ok");
        assert_eq!(server.counts.accepts(), 3);
    };
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_408_to_a_post_on_a_reused_connection_is_returned_not_sent_again() {
    let seen = Arc::default();
    let server = scripted(vec![vec![OK, TIMED_OUT]], Arc::clone(&seen)).await;
    let client = Client::builder().build().unwrap();
    let test = async {
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "ok");
        let post = RequestInit {
            method: Some("POST".into()),
            body: Some("payload".into()),
            ..Default::default()
        };
        let (status, _) = status_and_text(&client, &server.url("/post"), post).await;
        assert_eq!(status, 408);
        assert_eq!(count_lines(&seen, "POST"), 1, "the POST went out once");
        assert_eq!(server.counts.accepts(), 1);
    };
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .unwrap();
}

#[tokio::test]
async fn a_408_to_a_put_with_a_stream_body_is_returned_not_sent_again() {
    let seen = Arc::default();
    let server = scripted(vec![vec![OK, TIMED_OUT]], Arc::clone(&seen)).await;
    let client = Client::builder().build().unwrap();
    let test = async {
        assert_eq!(get(&client, &server.url("/")).await.unwrap(), "ok");
        let chunks = [Ok::<_, std::io::Error>(Bytes::from_static(b"stream"))];
        let put = RequestInit {
            method: Some("PUT".into()),
            body: Some(BodyInit::from(Body::from_stream(
                futures_util::stream::iter(chunks),
            ))),
            duplex: Some(RequestDuplex::Half),
            ..Default::default()
        };
        let (status, _) = status_and_text(&client, &server.url("/put"), put).await;
        assert_eq!(status, 408);
        assert_eq!(count_lines(&seen, "PUT"), 1, "the PUT went out once");
    };
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .unwrap();
}

/// The requests in `seen` whose line starts with `prefix`.
fn count_lines(seen: &std::sync::Mutex<Vec<(usize, String)>>, prefix: &str) -> usize {
    seen.lock()
        .unwrap()
        .iter()
        .filter(|(_, line)| line.starts_with(prefix))
        .count()
}
