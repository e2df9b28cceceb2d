//! `Expect: 100-continue` (`ClientBuilder::expect_continue`,
//! `RequestBuilder::expect_continue`) against servers on 127.0.0.1 that answer it with a
//! `100 Continue`, with a final status before the body, or not at all.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use whatwg_fetch::Client;

/// How the server answers the head of an upload.
#[derive(Clone, Copy)]
enum Server {
    /// `100 Continue` after a pause, then the body is read and its length answered.
    Continue,
    /// `401` at once, without reading the body; the connection is kept.
    Refuse,
    /// Nothing until the whole body has arrived, then its length.
    Ignore,
}

/// What the server saw.
#[derive(Debug)]
struct Seen {
    head: String,
    /// Body bytes that arrived before the server answered the head, if it answers it.
    early_bytes: usize,
    /// Body bytes read in all (for `Refuse`: within a while after the 401).
    body_bytes: usize,
}

async fn start(kind: Server) -> (String, tokio::sync::oneshot::Receiver<Seen>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/upload", listener.local_addr().unwrap());
    let (tell, seen) = tokio::sync::oneshot::channel();
    tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        let (head, mut buffered) = read_head(&mut stream).await;
        let length: usize = head
            .lines()
            .find_map(|line| {
                let (name, value) = line.split_once(':')?;
                name.eq_ignore_ascii_case("content-length")
                    .then(|| value.trim().parse().ok())?
            })
            .unwrap_or(0);
        let seen = match kind {
            Server::Continue => {
                // A pause in which a client that does not wait would send its body.
                let early = read_for(&mut stream, &mut buffered, Duration::from_millis(300)).await;
                stream
                    .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
                    .await
                    .unwrap();
                while buffered.len() < length {
                    let mut chunk = vec![0; 65536];
                    let n = stream.read(&mut chunk).await.unwrap();
                    assert!(n > 0, "the body did not come after the 100");
                    buffered.extend_from_slice(&chunk[..n]);
                }
                let answer = format!("{}", buffered.len());
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{answer}",
                    answer.len()
                );
                stream.write_all(response.as_bytes()).await.unwrap();
                Seen {
                    head,
                    early_bytes: early,
                    body_bytes: buffered.len(),
                }
            }
            Server::Refuse => {
                let early = buffered.len();
                stream
                    .write_all(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n")
                    .await
                    .unwrap();
                read_for(&mut stream, &mut buffered, Duration::from_millis(500)).await;
                Seen {
                    head,
                    early_bytes: early,
                    body_bytes: buffered.len(),
                }
            }
            Server::Ignore => {
                while buffered.len() < length {
                    let mut chunk = vec![0; 65536];
                    let n = stream.read(&mut chunk).await.unwrap();
                    assert!(n > 0);
                    buffered.extend_from_slice(&chunk[..n]);
                }
                let answer = format!("{}", buffered.len());
                let response = format!(
                    "HTTP/1.1 200 OK\r\nContent-Length: {}\r\n\r\n{answer}",
                    answer.len()
                );
                stream.write_all(response.as_bytes()).await.unwrap();
                Seen {
                    head,
                    early_bytes: 0,
                    body_bytes: buffered.len(),
                }
            }
        };
        tell.send(seen).ok();
        // Held open until the client is done with it.
        let mut rest = [0; 1024];
        while let Ok(n) = stream.read(&mut rest).await {
            if n == 0 {
                break;
            }
        }
    });
    (url, seen)
}

/// Reads a request head; it, and the bytes read past it.
async fn read_head(stream: &mut TcpStream) -> (String, Vec<u8>) {
    let mut buf = Vec::new();
    let mut chunk = [0; 4096];
    loop {
        if let Some(end) = buf.windows(4).position(|w| w == b"\r\n\r\n") {
            let head = String::from_utf8_lossy(&buf[..end]).into_owned();
            return (head, buf[end + 4..].to_vec());
        }
        let n = stream.read(&mut chunk).await.unwrap();
        assert!(n > 0, "closed before the head");
        buf.extend_from_slice(&chunk[..n]);
    }
}

/// Reads whatever comes for `wait` (or until the close) into `buf`: how many bytes
/// were there at the start.
async fn read_for(stream: &mut TcpStream, buf: &mut Vec<u8>, wait: Duration) -> usize {
    let before = buf.len();
    let deadline = Instant::now() + wait;
    let mut chunk = vec![0; 65536];
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        match tokio::time::timeout(left, stream.read(&mut chunk)).await {
            Ok(Ok(n)) if n > 0 => buf.extend_from_slice(&chunk[..n]),
            _ => return buf.len().max(before),
        }
    }
}

const UPLOAD: usize = 1 << 20;

#[tokio::test]
async fn the_body_waits_for_the_100_continue() {
    let (url, seen) = start(Server::Continue).await;
    let client = Client::builder()
        .expect_continue(Some(Duration::from_secs(5)))
        .build()
        .unwrap();
    let mut response = client
        .put(&url)
        .body(vec![7u8; UPLOAD])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), UPLOAD.to_string());
    let seen = seen.await.unwrap();
    assert!(
        seen.head
            .to_ascii_lowercase()
            .contains("expect: 100-continue"),
        "{}",
        seen.head
    );
    assert_eq!(seen.early_bytes, 0, "body bytes came before the 100");
    assert_eq!(seen.body_bytes, UPLOAD);
}

#[tokio::test]
async fn a_final_status_before_the_100_skips_the_body() {
    let (url, seen) = start(Server::Refuse).await;
    let client = Client::builder()
        .expect_continue(Some(Duration::from_secs(5)))
        .build()
        .unwrap();
    let response = client
        .put(&url)
        .body(vec![7u8; UPLOAD])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    let seen = seen.await.unwrap();
    // Not a byte of the megabyte went out.
    assert_eq!(seen.body_bytes, 0, "{seen:?}");
}

#[tokio::test]
async fn a_final_status_first_ends_a_chunked_body_empty_and_keeps_the_connection() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/upload", listener.local_addr().unwrap());
    let server = tokio::spawn(async move {
        let (mut stream, _) = listener.accept().await.unwrap();
        // The upload's head: refused at once.
        let (head, mut rest) = read_head(&mut stream).await;
        assert!(
            head.to_ascii_lowercase()
                .contains("transfer-encoding: chunked"),
            "{head}"
        );
        stream
            .write_all(b"HTTP/1.1 401 Unauthorized\r\nContent-Length: 0\r\n\r\n")
            .await
            .unwrap();
        // Its body ends, empty: the last chunk alone, then the next request's head.
        while rest.windows(4).filter(|w| *w == b"\r\n\r\n").count() < 2 {
            let mut chunk = [0; 4096];
            let n = stream.read(&mut chunk).await.unwrap();
            assert!(
                n > 0,
                "the connection closed: {:?}",
                String::from_utf8_lossy(&rest)
            );
            rest.extend_from_slice(&chunk[..n]);
        }
        let rest = String::from_utf8_lossy(&rest).into_owned();
        assert!(
            rest.starts_with("0\r\n\r\nGET /next HTTP/1.1\r\n"),
            "{rest:?}"
        );
        stream
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 4\r\n\r\nnext")
            .await
            .unwrap();
        // Held open until the client is done with it.
        let mut rest = [0; 1024];
        while let Ok(n) = stream.read(&mut rest).await {
            if n == 0 {
                break;
            }
        }
    });
    let client = Client::builder()
        .expect_continue(Some(Duration::from_secs(5)))
        .build()
        .unwrap();
    // A stream of unknown length: chunked.
    let chunks = futures_util::stream::iter(
        (0..16).map(|_| Ok::<_, std::io::Error>(bytes::Bytes::from(vec![7u8; 65536]))),
    );
    let response = client
        .put(&url)
        .body(whatwg_fetch::Body::from_stream(chunks))
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 401);
    drop(response);
    // The same connection: the server accepts one.
    let mut next = client
        .get(url.replace("/upload", "/next"))
        .send()
        .await
        .unwrap();
    assert_eq!(next.text().await.unwrap(), "next");
    drop(client);
    server.await.unwrap();
}

#[tokio::test]
async fn a_server_that_never_answers_gets_the_body_after_the_wait() {
    let (url, seen) = start(Server::Ignore).await;
    let client = Client::builder()
        .expect_continue(Some(Duration::from_millis(300)))
        .build()
        .unwrap();
    let started = Instant::now();
    let mut response = client
        .put(&url)
        .body(vec![7u8; UPLOAD])
        .send()
        .await
        .unwrap();
    assert_eq!(response.text().await.unwrap(), UPLOAD.to_string());
    assert!(started.elapsed() >= Duration::from_millis(290));
    let seen = seen.await.unwrap();
    assert!(
        seen.head
            .to_ascii_lowercase()
            .contains("expect: 100-continue")
    );
}

#[tokio::test]
async fn a_request_may_turn_it_off_and_bodiless_requests_never_wait() {
    let (url, seen) = start(Server::Ignore).await;
    let client = Client::builder()
        .expect_continue(Some(Duration::from_secs(30)))
        .build()
        .unwrap();
    let started = Instant::now();
    let mut response = client
        .put(&url)
        .body(vec![7u8; 1000])
        .expect_continue(None)
        .send()
        .await
        .unwrap();
    assert_eq!(response.text().await.unwrap(), "1000");
    assert!(started.elapsed() < Duration::from_secs(10));
    let seen = seen.await.unwrap();
    assert!(
        !seen.head.to_ascii_lowercase().contains("expect"),
        "{}",
        seen.head
    );

    let (url, seen) = start(Server::Ignore).await;
    let mut response = client.get(&url).send().await.unwrap();
    assert_eq!(response.text().await.unwrap(), "0");
    let seen = seen.await.unwrap();
    assert!(
        !seen.head.to_ascii_lowercase().contains("expect"),
        "{}",
        seen.head
    );
}

#[tokio::test]
async fn off_by_default() {
    let (url, seen) = start(Server::Ignore).await;
    let mut response = Client::new().post(&url).body("x").send().await.unwrap();
    assert_eq!(response.text().await.unwrap(), "1");
    let seen = seen.await.unwrap();
    assert!(
        !seen.head.to_ascii_lowercase().contains("expect"),
        "{}",
        seen.head
    );
}

#[tokio::test]
async fn a_417_sends_the_request_again_without_the_expectation() {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/upload", listener.local_addr().unwrap());
    let server = tokio::spawn(async move {
        // First: refused expectation.
        let (mut first, _) = listener.accept().await.unwrap();
        let (head, _) = read_head(&mut first).await;
        assert!(
            head.to_ascii_lowercase().contains("expect: 100-continue"),
            "{head}"
        );
        first
            .write_all(b"HTTP/1.1 417 Expectation Failed\r\nContent-Length: 0\r\n\r\n")
            .await
            .unwrap();
        // Then the request again, with its body and no expectation.
        let (mut second, _) = listener.accept().await.unwrap();
        let (head, mut body) = read_head(&mut second).await;
        read_for(&mut second, &mut body, Duration::from_millis(300)).await;
        second
            .write_all(b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
            .await
            .unwrap();
        (head, body.len())
    });
    let client = Client::builder()
        .expect_continue(Some(Duration::from_secs(5)))
        .build()
        .unwrap();
    let mut response = client.put(&url).body(vec![1u8; 5000]).send().await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "ok");
    let (head, body) = server.await.unwrap();
    assert!(!head.to_ascii_lowercase().contains("expect"), "{head}");
    assert_eq!(body, 5000);
}

/// An HTTP/2 server (prior knowledge, on the `h2` crate) that answers each upload as
/// `continue_first` says: a `100 Continue` after a pause, then the body read and its
/// length answered; or at once `413`, then whatever body comes counted for a while. What
/// it saw of each request: whether it expected a 100, and the body bytes that came.
async fn h2_server(
    continue_first: bool,
) -> (String, tokio::sync::mpsc::UnboundedReceiver<(bool, usize)>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/upload", listener.local_addr().unwrap());
    let (tell, seen) = tokio::sync::mpsc::unbounded_channel();
    tokio::spawn(async move {
        let (stream, _) = listener.accept().await.unwrap();
        let mut connection = h2::server::handshake(stream).await.unwrap();
        while let Some(Ok((request, mut respond))) = connection.accept().await {
            let tell = tell.clone();
            tokio::spawn(async move {
                let expects = request
                    .headers()
                    .get("expect")
                    .is_some_and(|value| value == "100-continue");
                let mut body = request.into_body();
                let mut received = 0;
                if continue_first {
                    tokio::time::sleep(Duration::from_millis(200)).await;
                    let hundred = http::Response::builder().status(100).body(()).unwrap();
                    respond.send_informational(hundred).unwrap();
                    while let Some(Ok(data)) = body.data().await {
                        received += data.len();
                        let _ = body.flow_control().release_capacity(data.len());
                    }
                    let answer = format!("{received}");
                    let head = http::Response::builder().status(200).body(()).unwrap();
                    let mut send = respond.send_response(head, false).unwrap();
                    send.send_data(answer.into(), true).unwrap();
                } else {
                    let head = http::Response::builder().status(413).body(()).unwrap();
                    let mut send = respond.send_response(head, false).unwrap();
                    send.send_data("too large".into(), true).unwrap();
                    let deadline = Instant::now() + Duration::from_millis(300);
                    while let Ok(Some(Ok(data))) =
                        tokio::time::timeout_at(deadline.into(), body.data()).await
                    {
                        received += data.len();
                        let _ = body.flow_control().release_capacity(data.len());
                    }
                }
                tell.send((expects, received)).ok();
            });
        }
    });
    (url, seen)
}

fn h2_client(wait: Duration) -> Client {
    Client::builder()
        .http2_prior_knowledge(true)
        .expect_continue(Some(wait))
        .build()
        .unwrap()
}

#[tokio::test]
async fn over_http2_the_body_goes_after_the_100() {
    let (url, mut seen) = h2_server(true).await;
    let client = h2_client(Duration::from_secs(20));
    let started = Instant::now();
    let mut response = client
        .put(&url)
        .body(vec![3u8; UPLOAD])
        .send()
        .await
        .unwrap();
    assert_eq!(response.version(), http::Version::HTTP_2);
    assert_eq!(response.text().await.unwrap(), UPLOAD.to_string());
    // Well before the wait: the 100 let the body go.
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    assert_eq!(seen.recv().await.unwrap(), (true, UPLOAD));
}

#[tokio::test]
async fn over_http2_a_final_status_first_ends_the_request_without_the_body() {
    let (url, mut seen) = h2_server(false).await;
    let client = h2_client(Duration::from_secs(20));
    let started = Instant::now();
    let mut response = client
        .put(&url)
        .body(vec![3u8; UPLOAD])
        .send()
        .await
        .unwrap();
    assert_eq!(response.status(), 413);
    assert_eq!(response.text().await.unwrap(), "too large");
    assert!(
        started.elapsed() < Duration::from_secs(10),
        "{:?}",
        started.elapsed()
    );
    // Not a byte of the body went out.
    assert_eq!(seen.recv().await.unwrap(), (true, 0));
    // The connection serves the next request.
    let mut again = client.put(&url).body("x").send().await.unwrap();
    assert_eq!(again.status(), 413);
    assert_eq!(again.text().await.unwrap(), "too large");
}
