//! Retries of whole fetches (`ClientBuilder::retry`, `RetryPolicy`): against flaky servers
//! on 127.0.0.1 that count the attempts they receive, and, where the waits themselves are
//! the point, against a scripted transport on tokio's paused clock.

mod net_support;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use futures_util::StreamExt;
use net_support::{Server, TestPki, raw_server, read_head};
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::time::Instant;
use whatwg_fetch::abort::AbortController;
use whatwg_fetch::net::{
    HyperTransport, RequestBody, Resolve, ResolveFuture, ResponseBody, SendOptions, Transport,
    TransportFuture,
};
use whatwg_fetch::retry::{RetryBudget, RetryDecision, RetryPolicy};
use whatwg_fetch::{
    BodyInit, Client, Error, ErrorKind, NetworkError, RequestDuplex, RequestInit, TimeoutKind,
};

/// Every test ends within this (of paused time, in the tests that pause it).
const BOUND: Duration = Duration::from_secs(20);

async fn bounded<T>(future: impl Future<Output = T>) -> T {
    tokio::time::timeout(BOUND, future)
        .await
        .expect("the test did not end in time")
}

fn ms(milliseconds: u64) -> Duration {
    Duration::from_millis(milliseconds)
}

/// Asserts that `elapsed`, on tokio's paused clock, is `expected` (the timer counts whole
/// milliseconds, and may round a wait up by one).
fn assert_close(elapsed: Duration, expected: Duration) {
    assert!(
        elapsed >= expected && elapsed <= expected + ms(1),
        "{elapsed:?}, not {expected:?}"
    );
}

/// The default policy with waits short enough for a test (the budget's own minimum of 10
/// retries a second covers every test but the budget's).
fn quick() -> RetryPolicy {
    RetryPolicy::new().base_delay(ms(1))
}

fn client(policy: RetryPolicy) -> Client {
    Client::builder().retry(policy).build().unwrap()
}

fn with_method(method: &str, body: Option<BodyInit>) -> RequestInit {
    RequestInit {
        method: Some(method.into()),
        body,
        ..Default::default()
    }
}

// ----------------------------------------------------------------------------------------
// A flaky server
// ----------------------------------------------------------------------------------------

/// A request as a [`flaky_server`] received it.
#[derive(Clone, Debug)]
struct Received {
    head: String,
    body: Vec<u8>,
}

impl Received {
    fn method(&self) -> &str {
        self.head.split(' ').next().unwrap_or_default()
    }

    fn path(&self) -> &str {
        self.head.split(' ').nth(1).unwrap_or_default()
    }
}

/// A server that answers each request with what `answer` returns for it, given the
/// request's number (from 1, over every connection) and the request: a whole response,
/// written as is, or `""` to close the connection without answering. Each connection
/// serves one request, so every attempt is a request the server sees.
struct Flaky {
    server: Server,
    received: Arc<Mutex<Vec<Received>>>,
}

impl Flaky {
    fn url(&self, path: &str) -> String {
        self.server.url(path)
    }

    /// The requests received so far.
    fn received(&self) -> Vec<Received> {
        self.received.lock().unwrap().clone()
    }

    /// The number of attempts received so far.
    fn attempts(&self) -> usize {
        self.received.lock().unwrap().len()
    }
}

async fn flaky_server<F>(answer: F) -> Flaky
where
    F: Fn(usize, &Received) -> String + Send + Sync + 'static,
{
    let received = Arc::new(Mutex::new(Vec::<Received>::new()));
    let server_received = received.clone();
    let answer = Arc::new(answer);
    let server = raw_server(move |mut stream| {
        let (received, answer) = (server_received.clone(), answer.clone());
        async move {
            let Some(request) = read_request(&mut stream).await else {
                return;
            };
            let number = {
                let mut received = received.lock().unwrap();
                received.push(request.clone());
                received.len()
            };
            let response = answer(number, &request);
            if !response.is_empty() {
                let _ = stream.write_all(response.as_bytes()).await;
            }
        }
    })
    .await;
    Flaky { server, received }
}

/// Reads one request: its head, then a body framed by `Content-Length` or chunked.
async fn read_request<S: AsyncRead + Unpin>(stream: &mut S) -> Option<Received> {
    let head = read_head(stream).await?;
    let lower = head.to_ascii_lowercase();
    let mut body = Vec::new();
    if let Some(length) = lower
        .lines()
        .find_map(|line| line.strip_prefix("content-length:"))
    {
        body.resize(length.trim().parse().ok()?, 0);
        stream.read_exact(&mut body).await.ok()?;
    } else if lower.contains("transfer-encoding: chunked") {
        // Kept raw, up to the last chunk.
        let mut byte = [0u8; 1];
        while !body.ends_with(b"0\r\n\r\n") {
            stream.read_exact(&mut byte).await.ok()?;
            body.push(byte[0]);
        }
    }
    Some(Received { head, body })
}

/// A response that closes its connection.
fn respond(status: &str, headers: &[(&str, &str)], body: &str) -> String {
    let mut response = format!(
        "HTTP/1.1 {status}\r\nconnection: close\r\ncontent-length: {}\r\n",
        body.len()
    );
    for (name, value) in headers {
        response.push_str(&format!("{name}: {value}\r\n"));
    }
    response.push_str("\r\n");
    response.push_str(body);
    response
}

fn ok() -> String {
    respond("200 OK", &[], "ok")
}

fn busy() -> String {
    respond("503 Service Unavailable", &[], "busy")
}

/// Closes the connection without answering.
const CLOSE: &str = "";

// ----------------------------------------------------------------------------------------
// Transports that count or script the attempts
// ----------------------------------------------------------------------------------------

/// A transport that counts the requests handed to the network below it.
struct Counting {
    inner: HyperTransport,
    sends: AtomicUsize,
}

impl Counting {
    fn new() -> Arc<Counting> {
        Arc::new(Counting {
            inner: HyperTransport::builder().build().unwrap(),
            sends: AtomicUsize::new(0),
        })
    }

    fn sends(&self) -> usize {
        self.sends.load(Ordering::SeqCst)
    }
}

impl Transport for Counting {
    fn send(&self, request: http::Request<RequestBody>, options: SendOptions) -> TransportFuture {
        self.sends.fetch_add(1, Ordering::SeqCst);
        self.inner.send(request, options)
    }
}

/// What a [`Scripted`] transport does with one request.
enum Outcome {
    /// Answers with this status and headers, and the body "attempt N".
    Respond(u16, Vec<(&'static str, String)>),
    /// Fails with this error.
    Fail(NetworkError),
    /// Never answers.
    Hang,
}

type Script = Box<dyn Fn(usize) -> Outcome + Send + Sync>;

/// A transport that answers the `n`th request (from 1) as its script says, and notes the
/// time (tokio's clock, paused in these tests) of each.
struct Scripted {
    script: Script,
    sent_at: Mutex<Vec<Instant>>,
}

impl Scripted {
    fn new(script: impl Fn(usize) -> Outcome + Send + Sync + 'static) -> Arc<Scripted> {
        Arc::new(Scripted {
            script: Box::new(script),
            sent_at: Mutex::new(Vec::new()),
        })
    }

    fn sent_at(&self) -> Vec<Instant> {
        self.sent_at.lock().unwrap().clone()
    }

    fn sends(&self) -> usize {
        self.sent_at.lock().unwrap().len()
    }
}

impl Transport for Scripted {
    fn send(&self, _request: http::Request<RequestBody>, _options: SendOptions) -> TransportFuture {
        let number = {
            let mut sent_at = self.sent_at.lock().unwrap();
            sent_at.push(Instant::now());
            sent_at.len()
        };
        let outcome = (self.script)(number);
        Box::pin(async move {
            match outcome {
                Outcome::Respond(status, headers) => {
                    let mut response = http::Response::builder().status(status);
                    for (name, value) in headers {
                        response = response.header(name, value);
                    }
                    Ok(response
                        .body(ResponseBody::full(format!("attempt {number}")))
                        .unwrap())
                }
                Outcome::Fail(error) => Err(error),
                Outcome::Hang => std::future::pending().await,
            }
        })
    }
}

fn scripted_client(transport: &Arc<Scripted>, policy: RetryPolicy) -> Client {
    Client::builder()
        .transport(transport.clone())
        .retry(policy)
        .build()
        .unwrap()
}

const MOCK_URL: &str = "http://mock.test/";

fn busy_for(seconds: &str) -> Outcome {
    Outcome::Respond(503, vec![("retry-after", seconds.to_owned())])
}

// ----------------------------------------------------------------------------------------
// Which requests, on what
// ----------------------------------------------------------------------------------------

#[tokio::test]
async fn a_client_without_a_policy_sends_each_fetch_once() {
    bounded(async {
        let server = flaky_server(|_, _| busy()).await;
        let client = Client::builder().build().unwrap();
        let response = client
            .fetch(server.url("/"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 503);
        assert_eq!(server.attempts(), 1);

        let closing = flaky_server(|_, _| CLOSE.to_owned()).await;
        let error = client
            .fetch(closing.url("/"), RequestInit::default())
            .await
            .unwrap_err();
        assert!(matches!(
            error.network_error(),
            Some(NetworkError::Protocol(_))
        ));
        assert_eq!(closing.attempts(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_server_that_fails_twice_then_answers_is_fetched_on_the_third_attempt() {
    bounded(async {
        let server = flaky_server(|number, _| match number {
            1 | 2 => CLOSE.to_owned(),
            _ => ok(),
        })
        .await;
        let client = client(quick());
        let mut response = client
            .fetch(server.url("/flaky"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(response.text().await.unwrap(), "ok");
        assert_eq!(server.attempts(), 3);
        assert!(
            server
                .received()
                .iter()
                .all(|request| request.path() == "/flaky")
        );
    })
    .await;
}

#[tokio::test]
async fn the_attempts_stop_at_the_maximum_and_the_last_response_is_returned_as_it_is() {
    bounded(async {
        let server = flaky_server(|number, _| {
            respond(
                "503 Service Unavailable",
                &[("x-attempt", &number.to_string())],
                &format!("busy {number}"),
            )
        })
        .await;
        let mut response = client(quick())
            .fetch(server.url("/"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(server.attempts(), 3);
        // The last response, whole, as a single fetch of it would give it.
        assert_eq!(response.status(), 503);
        assert_eq!(response.status_text(), "Service Unavailable");
        assert_eq!(
            response.headers().get("x-attempt").unwrap().as_deref(),
            Some("3")
        );
        assert_eq!(response.text().await.unwrap(), "busy 3");

        let five = flaky_server(|_, _| busy()).await;
        let response = client(quick().max_attempts(5))
            .fetch(five.url("/"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 503);
        assert_eq!(five.attempts(), 5);
    })
    .await;
}

#[tokio::test]
async fn a_status_outside_the_policy_is_not_retried_unless_named() {
    bounded(async {
        let gateway = || respond("502 Bad Gateway", &[], "");
        let server =
            flaky_server(move |number, _| if number == 1 { gateway() } else { ok() }).await;
        let response = client(quick())
            .fetch(server.url("/"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 502);
        assert_eq!(server.attempts(), 1);

        let server =
            flaky_server(move |number, _| if number == 1 { gateway() } else { ok() }).await;
        let response = client(quick().statuses([429, 502, 503, 504]))
            .fetch(server.url("/"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(server.attempts(), 2);
    })
    .await;
}

#[tokio::test]
async fn a_post_is_never_retried_by_default() {
    bounded(async {
        let server = flaky_server(|_, _| busy()).await;
        let client = client(quick());
        let response = client
            .fetch(server.url("/"), with_method("POST", Some("order".into())))
            .await
            .unwrap();
        assert_eq!(response.status(), 503);
        assert_eq!(server.attempts(), 1);

        // Nor when the connection drops before an answer: the order may have been taken.
        let closing = flaky_server(|_, _| CLOSE.to_owned()).await;
        let error = client
            .fetch(closing.url("/"), with_method("POST", Some("order".into())))
            .await
            .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        assert_eq!(closing.attempts(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_post_is_retried_with_its_body_once_the_policy_names_it() {
    bounded(async {
        let server = flaky_server(|number, _| if number == 1 { busy() } else { ok() }).await;
        let response = client(quick().methods(["GET", "POST"]))
            .fetch(server.url("/"), with_method("POST", Some("order 7".into())))
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let received = server.received();
        assert_eq!(received.len(), 2);
        assert!(received.iter().all(|request| request.method() == "POST"));
        assert!(received.iter().all(|request| request.body == b"order 7"));
    })
    .await;
}

#[tokio::test]
async fn a_retried_put_sends_the_same_body_and_headers_again() {
    bounded(async {
        let server = flaky_server(|number, _| if number == 1 { busy() } else { ok() }).await;
        let init = RequestInit {
            method: Some("PUT".into()),
            headers: Some([("content-type", "text/plain"), ("x-key", "42")].into()),
            body: Some("the same bytes".into()),
            ..Default::default()
        };
        let response = client(quick())
            .fetch(server.url("/item"), init)
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let received = server.received();
        assert_eq!(received.len(), 2);
        for request in &received {
            assert_eq!(request.method(), "PUT");
            assert_eq!(request.body, b"the same bytes");
            let head = request.head.to_ascii_lowercase();
            assert!(head.contains("x-key: 42"), "{head}");
            assert!(head.contains("content-length: 14"), "{head}");
        }
    })
    .await;
}

#[tokio::test]
async fn a_stream_body_is_never_retried() {
    bounded(async {
        let server = flaky_server(|_, _| busy()).await;
        let chunks = futures_util::stream::iter(["part 1, ", "part 2"])
            .map(|chunk| Ok::<_, std::io::Error>(Bytes::from(chunk)));
        let init = RequestInit {
            method: Some("PUT".into()),
            body: Some(BodyInit::stream(chunks)),
            duplex: Some(RequestDuplex::Half),
            ..Default::default()
        };
        let response = client(quick().methods(["PUT", "POST"]))
            .fetch(server.url("/upload"), init)
            .await
            .unwrap();
        assert_eq!(response.status(), 503);
        assert_eq!(server.attempts(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_tls_certificate_error_is_not_retried() {
    bounded(async {
        // A certificate from a CA the client does not trust.
        let pki = TestPki::new(&["localhost"]);
        let server = net_support::tls_server(pki.acceptor(&[b"http/1.1"]), |_| async {
            http::Response::new(net_support::full("never"))
        })
        .await;
        let client = Client::builder()
            .resolve("localhost", server.addr)
            .retry(quick())
            .build()
            .unwrap();
        let url = format!("https://localhost:{}/", server.addr.port());
        let error = client.fetch(url, RequestInit::default()).await.unwrap_err();
        assert!(
            matches!(error.network_error(), Some(NetworkError::Tls(_))),
            "{error}"
        );
        assert_eq!(server.counts.accepts(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_response_head_over_the_limit_is_not_retried() {
    bounded(async {
        // Every answer has a head of 300 KiB, over the 256 KiB the client reads.
        let attempts = Arc::new(AtomicUsize::new(0));
        let counted = attempts.clone();
        let server = raw_server(move |mut stream| {
            let counted = counted.clone();
            async move {
                if read_head(&mut stream).await.is_none() {
                    return;
                }
                counted.fetch_add(1, Ordering::SeqCst);
                let mut head = String::from("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n");
                for index in 0..300 {
                    head.push_str(&format!("x-large-{index}: {}\r\n", "v".repeat(1024)));
                }
                head.push_str("\r\n");
                let _ = stream.write_all(head.as_bytes()).await;
            }
        })
        .await;
        let error = client(quick())
            .fetch(server.url("/"), RequestInit::default())
            .await
            .unwrap_err();
        let Some(NetworkError::Protocol(source)) = error.network_error() else {
            panic!("{error}");
        };
        assert!(source.is::<whatwg_fetch::net::HeadRefused>(), "{error}");
        assert_eq!(attempts.load(Ordering::SeqCst), 1);
    })
    .await;
}

#[tokio::test]
async fn a_cors_failure_is_not_retried_even_on_a_status_the_policy_retries() {
    bounded(async {
        // A 503 without Access-Control-Allow-Origin fails the CORS check.
        let server = flaky_server(|_, _| busy()).await;
        let client = Client::builder()
            .origin("http://app.test/".parse().unwrap())
            .retry(quick())
            .build()
            .unwrap();
        let error = client
            .fetch(server.url("/"), RequestInit::default())
            .await
            .unwrap_err();
        assert!(
            matches!(error.network_error(), Some(NetworkError::Cors(_))),
            "{error}"
        );
        assert_eq!(server.attempts(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_refused_connection_is_retried_up_to_the_maximum() {
    bounded(async {
        // A port nothing listens on any more.
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let addr = listener.local_addr().unwrap();
        drop(listener);
        let transport = Counting::new();
        let client = Client::builder()
            .transport(transport.clone())
            .retry(quick())
            .build()
            .unwrap();
        let error = client
            .fetch(format!("http://{addr}/"), RequestInit::default())
            .await
            .unwrap_err();
        assert!(
            matches!(error.network_error(), Some(NetworkError::Connect(_))),
            "{error}"
        );
        assert_eq!(transport.sends(), 3);
    })
    .await;
}

/// A resolver that fails its first `failures` lookups, then answers with `addr`.
struct FlakyResolver {
    failures: usize,
    lookups: AtomicUsize,
    addr: SocketAddr,
}

impl Resolve for FlakyResolver {
    fn resolve(&self, _name: &str) -> ResolveFuture {
        let lookup = self.lookups.fetch_add(1, Ordering::SeqCst) + 1;
        let answer = if lookup <= self.failures {
            Err("temporary failure in name resolution".into())
        } else {
            Ok(vec![self.addr])
        };
        Box::pin(async move { answer })
    }
}

#[tokio::test]
async fn a_failed_dns_lookup_is_retried() {
    bounded(async {
        let server = flaky_server(|_, _| ok()).await;
        let resolver = Arc::new(FlakyResolver {
            failures: 2,
            lookups: AtomicUsize::new(0),
            addr: server.server.addr,
        });
        let client = Client::builder()
            .resolver(resolver.clone())
            .retry(quick())
            .build()
            .unwrap();
        let url = format!("http://flaky-dns.test:{}/", server.server.addr.port());
        let response = client.fetch(url, RequestInit::default()).await.unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(resolver.lookups.load(Ordering::SeqCst), 3);
        assert_eq!(server.attempts(), 1);
    })
    .await;
}

#[tokio::test]
async fn the_network_errors_retried_are_those_another_try_may_get_past() {
    bounded(async {
        type MakeError = fn() -> NetworkError;
        let cases: Vec<(&str, MakeError, usize)> = vec![
            (
                "connect",
                || NetworkError::Connect("connection reset".into()),
                3,
            ),
            ("dns", || NetworkError::Dns("SERVFAIL".into()), 3),
            (
                "protocol",
                || NetworkError::Protocol("connection closed before message completed".into()),
                3,
            ),
            (
                "connect timeout",
                || NetworkError::Timeout {
                    kind: TimeoutKind::Connect,
                    after: Duration::from_secs(30),
                },
                3,
            ),
            (
                "tls",
                || NetworkError::Tls("invalid peer certificate: UnknownIssuer".into()),
                1,
            ),
            (
                "invalid request",
                || NetworkError::InvalidRequest("Content-Length disagrees with the body".into()),
                1,
            ),
            (
                "body too large",
                || NetworkError::BodyTooLarge { limit: 1 },
                1,
            ),
            ("other", || NetworkError::Other("unsupported".into()), 1),
        ];
        for (name, make, expected) in cases {
            let transport = Scripted::new(move |_| Outcome::Fail(make()));
            let client = scripted_client(&transport, quick());
            let error = client
                .fetch(MOCK_URL, RequestInit::default())
                .await
                .unwrap_err();
            assert_eq!(error.kind(), ErrorKind::TypeError, "{name}");
            assert!(error.network_error().is_some(), "{name}");
            assert_eq!(transport.sends(), expected, "{name}");
        }
    })
    .await;
}

// ----------------------------------------------------------------------------------------
// When: Retry-After, backoff, the total timeout
// ----------------------------------------------------------------------------------------

#[tokio::test]
async fn a_503_with_retry_after_is_fetched_again_after_it() {
    bounded(async {
        let server = flaky_server(|number, _| match number {
            1 => respond("503 Service Unavailable", &[("retry-after", "1")], ""),
            2 => respond("429 Too Many Requests", &[("retry-after", "0")], ""),
            _ => ok(),
        })
        .await;
        // A backoff this long would end the test by its bound: the waits are Retry-After's.
        let policy = RetryPolicy::new().base_delay(Duration::from_secs(60));
        let response = client(policy)
            .fetch(server.url("/"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(server.attempts(), 3);
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn the_wait_before_a_retry_is_what_retry_after_says() {
    bounded(async {
        let transport = Scripted::new(|number| match number {
            1 => busy_for("1"),
            _ => Outcome::Respond(200, vec![]),
        });
        let policy = RetryPolicy::new().base_delay(Duration::from_secs(60));
        let mut response = scripted_client(&transport, policy)
            .fetch(MOCK_URL, RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.text().await.unwrap(), "attempt 2");
        let sent_at = transport.sent_at();
        assert_eq!(sent_at.len(), 2);
        // tokio's paused clock, which moves only by the waits.
        let waited = sent_at[1] - sent_at[0];
        assert!(waited >= ms(1000) && waited < ms(1100), "{waited:?}");
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_retry_after_date_is_waited_for_until_that_date() {
    bounded(async {
        let date = httpdate::fmt_http_date(SystemTime::now() + Duration::from_secs(3));
        let transport = Scripted::new(move |number| match number {
            1 => busy_for(&date),
            _ => Outcome::Respond(200, vec![]),
        });
        let policy = RetryPolicy::new().base_delay(Duration::from_secs(60));
        let response = scripted_client(&transport, policy)
            .fetch(MOCK_URL, RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let sent_at = transport.sent_at();
        assert_eq!(sent_at.len(), 2);
        // The date has whole seconds: between two and three seconds from the first try.
        let waited = sent_at[1] - sent_at[0];
        assert!(waited >= ms(1900) && waited <= ms(3000), "{waited:?}");
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn a_retry_after_beyond_the_max_delay_ends_the_fetch_with_that_response() {
    bounded(async {
        let transport = Scripted::new(|number| match number {
            1 => busy_for("3600"),
            _ => Outcome::Respond(200, vec![]),
        });
        let start = Instant::now();
        let response = scripted_client(&transport, quick())
            .fetch(MOCK_URL, RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 503);
        assert_eq!(
            response.headers().get("retry-after").unwrap().as_deref(),
            Some("3600")
        );
        assert_eq!(transport.sends(), 1);
        assert_eq!(Instant::now(), start, "no wait at all");
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn the_backoff_waits_grow_and_stay_within_their_bounds() {
    bounded(async {
        let transport = Scripted::new(|_| Outcome::Fail(NetworkError::Dns("SERVFAIL".into())));
        let policy = RetryPolicy::new()
            .max_attempts(6)
            .base_delay(ms(100))
            .backoff_factor(2)
            .max_delay(ms(500))
            .budget(None);
        let error = scripted_client(&transport, policy)
            .fetch(MOCK_URL, RequestInit::default())
            .await
            .unwrap_err();
        assert!(matches!(error.network_error(), Some(NetworkError::Dns(_))));
        let sent_at = transport.sent_at();
        assert_eq!(sent_at.len(), 6);
        let bounds = [ms(100), ms(200), ms(400), ms(500), ms(500)];
        for (pair, bound) in sent_at.windows(2).zip(bounds) {
            let waited = pair[1] - pair[0];
            // tokio's timer counts whole milliseconds, rounding a wait up.
            assert!(waited <= bound + ms(1), "{waited:?} > {bound:?}");
        }
    })
    .await;
}

#[tokio::test(start_paused = true)]
async fn the_total_timeout_bounds_all_the_attempts_and_the_waits_together() {
    bounded(async {
        // Each wait of 3 s fits once in 5 s: the second would end past the deadline, so the
        // fetch ends with the second response at once rather than a timeout later.
        let transport = Scripted::new(|_| busy_for("3"));
        let client = Client::builder()
            .transport(transport.clone())
            .timeout(Duration::from_secs(5))
            .retry(quick().max_attempts(10))
            .build()
            .unwrap();
        let start = Instant::now();
        let mut response = client
            .fetch(MOCK_URL, RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 503);
        assert_eq!(response.text().await.unwrap(), "attempt 2");
        assert_eq!(transport.sends(), 2);
        assert_close(Instant::now() - start, Duration::from_secs(3));

        // An attempt still running at the deadline ends the fetch with the timeout.
        let transport = Scripted::new(|number| match number {
            1 => busy_for("3"),
            _ => Outcome::Hang,
        });
        let client = Client::builder()
            .transport(transport.clone())
            .timeout(Duration::from_secs(5))
            .retry(quick())
            .build()
            .unwrap();
        let start = Instant::now();
        let error = client
            .fetch(MOCK_URL, RequestInit::default())
            .await
            .unwrap_err();
        assert!(
            matches!(
                error.network_error(),
                Some(NetworkError::Timeout {
                    kind: TimeoutKind::Total,
                    ..
                })
            ),
            "{error}"
        );
        assert_eq!(transport.sends(), 2);
        assert_close(Instant::now() - start, Duration::from_secs(5));
    })
    .await;
}

// ----------------------------------------------------------------------------------------
// Aborts
// ----------------------------------------------------------------------------------------

#[tokio::test(start_paused = true)]
async fn an_abort_during_the_wait_rejects_with_the_signals_reason_at_once() {
    bounded(async {
        let transport = Scripted::new(|_| busy_for("15"));
        let client = scripted_client(&transport, quick().max_delay(Duration::from_secs(60)));
        let controller = AbortController::new();
        let init = RequestInit {
            signal: Some(controller.signal()),
            ..Default::default()
        };
        let start = Instant::now();
        let fetching = tokio::spawn(async move { client.fetch(MOCK_URL, init).await });
        // Two seconds into the fifteen-second wait.
        tokio::time::sleep(Duration::from_secs(2)).await;
        assert_eq!(transport.sends(), 1);
        let reason = Error::custom("shutting down", Arc::new("shutdown"));
        controller.abort(Some(reason.clone()));
        let error = fetching.await.unwrap().unwrap_err();
        assert!(error.same(&reason), "{error}");
        assert_close(Instant::now() - start, Duration::from_secs(2));
        assert_eq!(transport.sends(), 1);
    })
    .await;
}

#[tokio::test]
async fn an_abort_while_a_flaky_server_is_waited_on_rejects_with_the_signals_reason() {
    // Bounded well below the server's Retry-After of 15 s: only an abort that cuts
    // through the wait ends the test in time.
    tokio::time::timeout(Duration::from_secs(10), async {
        let (seen_tx, mut seen) = tokio::sync::mpsc::unbounded_channel();
        let server = flaky_server(move |_, _| {
            let _ = seen_tx.send(());
            respond("503 Service Unavailable", &[("retry-after", "15")], "")
        })
        .await;
        let client = client(quick().max_delay(Duration::from_secs(60)));
        let controller = AbortController::new();
        let init = RequestInit {
            signal: Some(controller.signal()),
            ..Default::default()
        };
        let url = server.url("/");
        let fetching = tokio::spawn(async move { client.fetch(url, init).await });
        seen.recv().await.unwrap();
        // Let the response reach the client, which then waits.
        tokio::time::sleep(ms(100)).await;
        controller.abort(None);
        let error = fetching.await.unwrap().unwrap_err();
        assert_eq!(error.kind(), ErrorKind::AbortError);
        assert_eq!(server.attempts(), 1);
    })
    .await
    .expect("the abort did not cut through the wait");
}

// ----------------------------------------------------------------------------------------
// The budget
// ----------------------------------------------------------------------------------------

#[tokio::test]
async fn the_budget_bounds_the_retries_of_many_failing_requests() {
    bounded(async {
        let server = flaky_server(|_, _| busy()).await;
        // Half a retry per fetch, no allowance of its own.
        let budget = RetryBudget::new(0.5, 0);
        let client = client(quick().budget(Some(budget)));
        let fetches = 20;
        for _ in 0..fetches {
            let response = client
                .fetch(server.url("/"), RequestInit::default())
                .await
                .unwrap();
            // A fetch the budget stops ends with its last response, as it is.
            assert_eq!(response.status(), 503);
        }
        let retries = server.attempts() - fetches;
        // At most half a retry per fetch, where the attempts alone would allow two.
        assert!(
            retries <= fetches / 2,
            "{retries} retries for {fetches} fetches"
        );
        assert!(retries > 0, "the budget allows some retries");

        // Without a budget, every fetch makes all its attempts.
        let unlimited = flaky_server(|_, _| busy()).await;
        let client = self::client(quick().budget(None));
        for _ in 0..fetches {
            client
                .fetch(unlimited.url("/"), RequestInit::default())
                .await
                .unwrap();
        }
        assert_eq!(unlimited.attempts(), fetches * 3);
    })
    .await;
}

#[tokio::test]
async fn concurrent_failing_fetches_share_one_budget() {
    bounded(async {
        let server = flaky_server(|_, _| busy()).await;
        let client = client(quick().budget(Some(RetryBudget::new(0.2, 0))));
        let fetches = 30;
        let all = (0..fetches).map(|_| {
            let (client, url) = (client.clone(), server.url("/"));
            tokio::spawn(async move { client.fetch(url, RequestInit::default()).await })
        });
        for fetching in futures_util::future::join_all(all).await {
            assert_eq!(fetching.unwrap().unwrap().status(), 503);
        }
        let retries = server.attempts() - fetches;
        assert!(
            retries <= fetches / 5,
            "{retries} retries for {fetches} fetches"
        );
    })
    .await;
}

// ----------------------------------------------------------------------------------------
// The classifier, and what runs inside each attempt
// ----------------------------------------------------------------------------------------

#[tokio::test]
async fn a_classifier_sees_each_attempt_and_its_decision_is_followed() {
    bounded(async {
        let server = flaky_server(|number, _| match number {
            1 => respond("500 Internal Server Error", &[("x-transient", "1")], ""),
            _ => ok(),
        })
        .await;
        let seen = Arc::new(Mutex::new(Vec::new()));
        let log = seen.clone();
        let policy = quick().classify(move |attempt| {
            log.lock().unwrap().push((
                attempt.method().to_owned(),
                attempt.url().path().to_owned(),
                attempt.number(),
                attempt.status(),
            ));
            match attempt.response() {
                Some(response)
                    if response.status() == 500
                        && response.headers().has("x-transient").unwrap() =>
                {
                    RetryDecision::Retry
                }
                _ => RetryDecision::Default,
            }
        });
        let response = client(policy)
            .fetch(server.url("/classified"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(server.attempts(), 2);
        // Asked after every attempt but the last allowed, a success too.
        let url = |number, status| ("GET".to_owned(), "/classified".to_owned(), number, status);
        assert_eq!(
            *seen.lock().unwrap(),
            [url(1, Some(500)), url(2, Some(200))]
        );
    })
    .await;
}

#[tokio::test]
async fn a_classifier_can_stop_a_retry_or_set_its_wait_and_sees_network_errors() {
    bounded(async {
        // Stop: a 503 the rules would retry.
        let server = flaky_server(|_, _| busy()).await;
        let policy = quick().classify(|_| RetryDecision::Stop);
        let response = client(policy)
            .fetch(server.url("/"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 503);
        assert_eq!(server.attempts(), 1);

        // RetryAfter: a 404 the rules would not.
        let server = flaky_server(|number, _| match number {
            1 => respond("404 Not Found", &[], ""),
            _ => ok(),
        })
        .await;
        let policy = quick().classify(|attempt| match attempt.status() {
            Some(404) => RetryDecision::RetryAfter(ms(5)),
            _ => RetryDecision::Default,
        });
        let response = client(policy)
            .fetch(server.url("/"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(server.attempts(), 2);

        // A network error reaches the classifier as the error the fetch would reject with.
        let server = flaky_server(|number, _| match number {
            1 => CLOSE.to_owned(),
            _ => ok(),
        })
        .await;
        let errors = Arc::new(Mutex::new(Vec::new()));
        let log = errors.clone();
        let policy = quick().classify(move |attempt| {
            if let Some(error) = attempt.error() {
                log.lock().unwrap().push((
                    error.kind(),
                    matches!(attempt.network_error(), Some(NetworkError::Protocol(_))),
                    attempt.response().is_none() && attempt.status().is_none(),
                ));
            }
            RetryDecision::Default
        });
        let response = client(policy)
            .fetch(server.url("/"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert_eq!(
            *errors.lock().unwrap(),
            [(ErrorKind::TypeError, true, true)]
        );
    })
    .await;
}

#[tokio::test]
async fn a_classifier_is_not_asked_about_a_request_that_cannot_be_retried() {
    bounded(async {
        let server = flaky_server(|_, _| busy()).await;
        let asked = Arc::new(AtomicUsize::new(0));
        let count = asked.clone();
        let policy = quick().classify(move |_| {
            count.fetch_add(1, Ordering::SeqCst);
            RetryDecision::Retry
        });
        let response = client(policy)
            .fetch(server.url("/"), with_method("POST", Some("x".into())))
            .await
            .unwrap();
        assert_eq!(response.status(), 503);
        assert_eq!(server.attempts(), 1);
        assert_eq!(asked.load(Ordering::SeqCst), 0);
    })
    .await;
}

#[tokio::test]
async fn each_attempt_follows_the_redirects_again_from_the_first_url() {
    bounded(async {
        let ends = Arc::new(AtomicUsize::new(0));
        let end_count = ends.clone();
        let server = flaky_server(move |_, request| match request.path() {
            "/start" => respond("302 Found", &[("location", "/end")], ""),
            _ => {
                if end_count.fetch_add(1, Ordering::SeqCst) == 0 {
                    busy()
                } else {
                    ok()
                }
            }
        })
        .await;
        let response = client(quick())
            .fetch(server.url("/start"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        assert!(response.redirected());
        assert_eq!(response.url(), server.url("/end"));
        let paths: Vec<String> = server
            .received()
            .iter()
            .map(|request| request.path().to_owned())
            .collect();
        assert_eq!(paths, ["/start", "/end", "/start", "/end"]);
    })
    .await;
}

#[tokio::test]
async fn cookies_set_by_a_retried_response_are_sent_with_the_next_attempt() {
    bounded(async {
        let server = flaky_server(|number, _| match number {
            1 => respond(
                "503 Service Unavailable",
                &[("set-cookie", "session=abc")],
                "",
            ),
            _ => ok(),
        })
        .await;
        let client = Client::builder()
            .cookie_store(true)
            .retry(quick())
            .build()
            .unwrap();
        let init = RequestInit {
            credentials: Some(whatwg_fetch::RequestCredentials::Include),
            ..Default::default()
        };
        let response = client.fetch(server.url("/"), init).await.unwrap();
        assert_eq!(response.status(), 200);
        let received = server.received();
        assert_eq!(received.len(), 2);
        let second = received[1].head.to_ascii_lowercase();
        assert!(second.contains("cookie: session=abc"), "{second}");
    })
    .await;
}

#[tokio::test]
async fn a_client_with_a_policy_still_serves_requests_after_giving_up() {
    bounded(async {
        let server = flaky_server(|number, _| if number <= 3 { busy() } else { ok() }).await;
        let client = client(quick());
        let first = client
            .fetch(server.url("/"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(first.status(), 503);
        let mut second = client
            .fetch(server.url("/"), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(second.text().await.unwrap(), "ok");
        assert_eq!(server.attempts(), 4);
    })
    .await;
}
