//! Retries of whole fetches: a [`RetryPolicy`], set with
//! [`ClientBuilder::retry`](crate::ClientBuilder::retry), fetches a request again when
//! it failed in a way that another try may fix, as reqwest-retry's `RetryTransientMiddleware`
//! and undici's `RetryAgent` do.
//!
//! Not in the spec: the Fetch Standard sends a request once (the network layer's own
//! retries aside, below). The rules follow HTTP:
//! [RFC 9110 §9.2.2](https://httpwg.org/specs/rfc9110.html#idempotent.methods) (only
//! idempotent methods may be sent again without the application's say),
//! [§10.2.3](https://httpwg.org/specs/rfc9110.html#field.retry-after) (`Retry-After`),
//! [§15.6.4](https://httpwg.org/specs/rfc9110.html#status.503) (`503 Service Unavailable`) and
//! [RFC 6585 §4](https://www.rfc-editor.org/rfc/rfc6585#section-4) (`429 Too Many Requests`).
//!
//! # What a policy does
//!
//! A client without a policy sends each fetch once and pays nothing for this module. With
//! one, each [`Client::fetch`](crate::Client::fetch) runs the whole
//! [fetch](https://fetch.spec.whatwg.org/#concept-fetch) (redirects, cookies, the HTTP cache,
//! CORS) once per attempt, and after an attempt:
//!
//! 1. **Which requests.** Only a request whose method is in [`RetryPolicy::methods`] (by
//!    default the idempotent ones: `GET`, `HEAD`, `OPTIONS`, `TRACE`, `PUT`, `DELETE`) and
//!    whose body can be sent again is ever fetched twice: no body, or one made from bytes,
//!    a string, a [`Blob`](crate::Blob), [`FormData`](crate::FormData) or a URL's query.
//!    A stream body ([`BodyInit::stream`](crate::BodyInit::stream)) is read as it is sent
//!    and is never retried, whatever the policy says. A `POST` is not retried unless
//!    `methods` names it.
//! 2. **On what.** By default, a response whose status is in [`RetryPolicy::statuses`]
//!    (`429` and `503`), and a network error that another try may not meet again (see
//!    [`RetryPolicy`] for the list). A [classifier](RetryPolicy::classify) can decide
//!    instead, attempt by attempt.
//! 3. **When.** After the response's `Retry-After` (seconds or an HTTP date), or else
//!    after an exponential backoff with full jitter: a random delay between zero and
//!    `base_delay × factor^(n−1)` before retry `n`, at most `max_delay`. A `Retry-After`
//!    longer than `max_delay` is not waited for: the response is returned as it is, as
//!    the server said no sooner try would do.
//! 4. **How often.** At most [`max_attempts`](RetryPolicy::max_attempts) attempts in all,
//!    and within the client's [`RetryBudget`]: retries may add only a share of the first
//!    attempts, so that a failing server is not sent three times its load. When the
//!    attempts or the budget are spent, the last response or error is returned as it is.
//!
//! Only what happens before the fetch resolves is retried: once it has resolved with a
//! response, an error while its body is read reaches the reader as it does without a
//! policy. A response that is retried is dropped, its body unread (which closes an
//! HTTP/1.1 connection, and resets an HTTP/2 stream); the response or error a fetch ends
//! with is exactly what the last attempt alone would give.
//!
//! The rules read each response as the fetch would resolve with it: in a browser-like
//! environment an opaque response (status 0) is never retried, and a CORS response's
//! `Retry-After` counts only when the server exposes it (`Access-Control-Expose-Headers`).
//!
//! # Aborts and timeouts
//!
//! The request's signal and the client's [`timeout`](crate::ClientBuilder::timeout) watch
//! the whole fetch, every attempt and every wait between two: a signal that aborts while
//! the fetch waits to retry rejects at once with the signal's reason, and the total timeout
//! bounds all the attempts together. A retry whose wait would end past that deadline is
//! not made: the last response or error is returned at once rather than a timeout later.
//! [`connect_timeout`](crate::ClientBuilder::connect_timeout) and
//! [`read_timeout`](crate::ClientBuilder::read_timeout) apply to each attempt.
//!
//! # Beside the network layer's retry
//!
//! The network layer sends a request again by itself, once, when a reused keep-alive
//! connection turns out closed before the request was processed (see [`crate::net`]).
//! That happens inside one attempt, is not counted here, and happens with or without a
//! policy.
//!
//! ```
//! use whatwg_fetch::{Client, RetryPolicy};
//!
//! // Idempotent requests tried up to three times on a connection error, a 429 or a 503.
//! let client = Client::builder().retry(RetryPolicy::new()).build()?;
//! # Ok::<(), whatwg_fetch::Error>(())
//! ```

use std::borrow::Cow;
use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, SystemTime};

use tokio::time::Instant;
use url::Url;

use crate::blob::BlobBytes;
use crate::body::Body;
use crate::error::{Error, NetworkError, TimeoutKind};
use crate::fetch::FetchContext;
use crate::net::{HeadRefused, ProxyRefused, SocksRefusal, SocksRefused, TlsHandshakeError};
use crate::request::{Request, normalize_method};
use crate::response::Response;

/// The default of [`RetryPolicy::max_attempts`]: 3 attempts in all, the first and two
/// retries.
///
/// ```
/// use whatwg_fetch::RetryPolicy;
/// use whatwg_fetch::retry::DEFAULT_MAX_ATTEMPTS;
///
/// // Two more tries than the default.
/// let policy = RetryPolicy::new().max_attempts(DEFAULT_MAX_ATTEMPTS + 2);
/// # let _ = policy;
/// ```
pub const DEFAULT_MAX_ATTEMPTS: u32 = 3;

/// The default of [`RetryPolicy::base_delay`]: 100 ms.
///
/// ```
/// use whatwg_fetch::RetryPolicy;
/// use whatwg_fetch::retry::DEFAULT_BASE_DELAY;
///
/// let policy = RetryPolicy::new().base_delay(DEFAULT_BASE_DELAY * 5);
/// # let _ = policy;
/// ```
pub const DEFAULT_BASE_DELAY: Duration = Duration::from_millis(100);

/// The default of [`RetryPolicy::backoff_factor`]: 2.
///
/// ```
/// use whatwg_fetch::RetryPolicy;
/// use whatwg_fetch::retry::DEFAULT_BACKOFF_FACTOR;
///
/// let policy = RetryPolicy::new().backoff_factor(DEFAULT_BACKOFF_FACTOR * 2);
/// # let _ = policy;
/// ```
pub const DEFAULT_BACKOFF_FACTOR: u32 = 2;

/// The default of [`RetryPolicy::max_delay`]: 10 seconds.
///
/// ```
/// use whatwg_fetch::RetryPolicy;
/// use whatwg_fetch::retry::DEFAULT_MAX_DELAY;
///
/// let policy = RetryPolicy::new().max_delay(DEFAULT_MAX_DELAY / 10);
/// # let _ = policy;
/// ```
pub const DEFAULT_MAX_DELAY: Duration = Duration::from_secs(10);

/// The methods retried by default: the idempotent ones of RFC 9110 §9.2.2.
const IDEMPOTENT_METHODS: [&str; 6] = ["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"];

/// The statuses retried by default.
const DEFAULT_STATUSES: [u16; 2] = [429, 503];

/// A classifier given to [`RetryPolicy::classify`].
type Classifier = Arc<dyn Fn(&Attempt<'_>) -> RetryDecision + Send + Sync>;

/// When and how often a [`Client`](crate::Client) fetches a request again: set with
/// [`ClientBuilder::retry`](crate::ClientBuilder::retry). See the
/// [module documentation](self) for how a fetch with retries runs.
///
/// The defaults, each with its option:
///
/// | Option | Default |
/// | --- | --- |
/// | [`max_attempts`](Self::max_attempts) | 3 in all |
/// | [`base_delay`](Self::base_delay), [`backoff_factor`](Self::backoff_factor), [`max_delay`](Self::max_delay) | 100 ms, 2, 10 s: waits of up to 100 ms, then 200 ms, …, never more than 10 s |
/// | [`methods`](Self::methods) | `GET`, `HEAD`, `OPTIONS`, `TRACE`, `PUT`, `DELETE` |
/// | [`statuses`](Self::statuses) | `429`, `503` |
/// | [`budget`](Self::budget) | [`RetryBudget::default`]: 20% of first attempts, plus 10 a second |
/// | [`classify`](Self::classify) | none: the rules below |
///
/// The delays are those of gRPC's and Envoy's defaults more than reqwest-retry's (1 s up to
/// 30 minutes) or undici's (500 ms up to 30 s): a retry is meant to get past a blip
/// (a restarting server, a dropped connection) while a caller waits, and a server that
/// needs longer says so with `Retry-After`. Three attempts are what AWS's SDKs and
/// Finagle make by default.
///
/// By default these failures are retried: a status in [`statuses`](Self::statuses); and,
/// before any response, these network errors ([`NetworkError`]):
///
/// - [`Connect`](NetworkError::Connect): refused, reset, unreachable; but not a proxy that
///   answered `CONNECT` with a status other than 502, 503 or 504 ([`ProxyRefused`]), a
///   SOCKS5 proxy that refused the credentials or the request by its rules
///   ([`SocksRefused`]), nor a TLS failure on the way to a proxy;
/// - [`Dns`](NetworkError::Dns): a resolver may fail for a moment (`EAI_AGAIN`, a resolver
///   restarting), and the system's does not tell that apart from a name that does not
///   exist; a name that does not exist then costs `max_attempts` lookups, as in undici
///   (which retries `ENOTFOUND`) and reqwest-retry;
/// - [`Protocol`](NetworkError::Protocol): a connection closed or reset before the
///   response came, a malformed response; not a head over the client's limit
///   ([`HeadRefused`]), which would fail again;
/// - [`Timeout`](NetworkError::Timeout) of kind [`Connect`](TimeoutKind::Connect),
///   [`Idle`](TimeoutKind::Idle) or [`KeepAlive`](TimeoutKind::KeepAlive).
///
/// Never retried by default: [`Tls`](NetworkError::Tls) (an untrusted certificate or a
/// version no one shares fails the same way again), a request blocked or refused by the
/// client ([`BadPort`](NetworkError::BadPort), [`Blocked`](NetworkError::Blocked),
/// [`Cors`](NetworkError::Cors), [`InvalidRequest`](NetworkError::InvalidRequest), ...),
/// redirect errors, [`BodyTooLarge`](NetworkError::BodyTooLarge),
/// [`Integrity`](NetworkError::Integrity), and an abort or the total timeout, which end
/// the fetch.
///
/// ```
/// # tokio_test::block_on(async {
/// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
/// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
/// # let url = format!("http://{}/", listener.local_addr().unwrap());
/// # tokio::spawn(async move {
/// #     // Busy once, then fine.
/// #     for answer in [
/// #         "HTTP/1.1 503 Service Unavailable\r\nretry-after: 0\r\ncontent-length: 0\r\n\r\n",
/// #         "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok",
/// #     ] {
/// #         let (mut stream, _) = listener.accept().await.unwrap();
/// #         let _ = stream.read(&mut [0; 1024]).await;
/// #         let _ = stream.write_all(answer.as_bytes()).await;
/// #     }
/// # });
/// use std::time::Duration;
/// use whatwg_fetch::retry::{RetryDecision, RetryPolicy};
/// use whatwg_fetch::{Client, RequestInit};
///
/// let policy = RetryPolicy::new()
///     .max_attempts(4)
///     .max_delay(Duration::from_secs(5))
///     .statuses([429, 502, 503, 504])
///     // A 500 that says it is passing is retried too.
///     .classify(|attempt| match attempt.response() {
///         Some(response) if response.status() == 500
///             && response.headers().has("x-transient").unwrap_or(false) => RetryDecision::Retry,
///         _ => RetryDecision::Default,
///     });
/// let client = Client::builder().retry(policy).build()?;
/// // The server answers 503 first: the client asks again and gets the 200.
/// let mut response = client.fetch(url.as_str(), RequestInit::default()).await?;
/// assert_eq!(response.text().await?, "ok");
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
#[derive(Clone)]
pub struct RetryPolicy {
    max_attempts: u32,
    base_delay: Duration,
    backoff_factor: u32,
    max_delay: Duration,
    methods: Vec<Cow<'static, str>>,
    statuses: Vec<u16>,
    budget: Option<RetryBudget>,
    classifier: Option<Classifier>,
}

impl Default for RetryPolicy {
    fn default() -> RetryPolicy {
        RetryPolicy {
            max_attempts: DEFAULT_MAX_ATTEMPTS,
            base_delay: DEFAULT_BASE_DELAY,
            backoff_factor: DEFAULT_BACKOFF_FACTOR,
            max_delay: DEFAULT_MAX_DELAY,
            methods: IDEMPOTENT_METHODS
                .iter()
                .map(|method| Cow::Borrowed(*method))
                .collect(),
            statuses: DEFAULT_STATUSES.to_vec(),
            budget: Some(RetryBudget::default()),
            classifier: None,
        }
    }
}

impl fmt::Debug for RetryPolicy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RetryPolicy")
            .field("max_attempts", &self.max_attempts)
            .field("base_delay", &self.base_delay)
            .field("backoff_factor", &self.backoff_factor)
            .field("max_delay", &self.max_delay)
            .field("methods", &self.methods)
            .field("statuses", &self.statuses)
            .field("budget", &self.budget)
            .field("classify", &self.classifier.as_ref().map(|_| ".."))
            .finish()
    }
}

impl RetryPolicy {
    /// A policy with the defaults documented on each option (see [`RetryPolicy`]).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use std::sync::Arc;
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # let served = Arc::new(AtomicUsize::new(0));
    /// # let count = served.clone();
    /// # tokio::spawn(async move {
    /// #     // Unavailable the first 2 times, then fine.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let n = count.fetch_add(1, Ordering::SeqCst);
    /// #         let reply: &[u8] = if n < 2 {
    /// #             b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
    /// #         } else {
    /// #             b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok"
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::time::Duration;
    /// use whatwg_fetch::{Client, RetryPolicy};
    ///
    /// let client = Client::builder().retry(RetryPolicy::new().base_delay(Duration::from_millis(1))).build()?;
    /// // Two 503s, then the answer: three attempts, the default most.
    /// let response = client.get(&url).send().await?;
    /// assert_eq!(response.status(), 200);
    /// assert_eq!(served.load(Ordering::SeqCst), 3);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn new() -> RetryPolicy {
        RetryPolicy::default()
    }

    /// The most attempts a fetch makes, the first one included: `1` never retries, and
    /// `0` counts as `1`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use std::sync::Arc;
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # let served = Arc::new(AtomicUsize::new(0));
    /// # let count = served.clone();
    /// # tokio::spawn(async move {
    /// #     // Unavailable the first 5 times, then fine.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let n = count.fetch_add(1, Ordering::SeqCst);
    /// #         let reply: &[u8] = if n < 5 {
    /// #             b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
    /// #         } else {
    /// #             b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok"
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::time::Duration;
    /// use whatwg_fetch::{Client, RetryPolicy};
    ///
    /// let client = Client::builder().retry(RetryPolicy::new().max_attempts(2).base_delay(Duration::from_millis(1))).build()?;
    /// // Still unavailable after two attempts: the last response is the answer.
    /// let response = client.get(&url).send().await?;
    /// assert_eq!((response.status(), served.load(Ordering::SeqCst)), (503, 2));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is 3 ([`DEFAULT_MAX_ATTEMPTS`]).
    pub fn max_attempts(mut self, attempts: u32) -> RetryPolicy {
        self.max_attempts = attempts.max(1);
        self
    }

    /// The longest wait before the first retry: its delay is drawn between zero and this
    /// (full jitter), and each later one between zero and `factor` times the previous
    /// bound, up to [`max_delay`](Self::max_delay). Not used when a response says how long
    /// to wait with `Retry-After`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::RetryPolicy;
    ///
    /// // A service that recovers in seconds, not milliseconds.
    /// let policy = RetryPolicy::new().base_delay(Duration::from_millis(500)).max_delay(Duration::from_secs(5));
    /// let client = whatwg_fetch::Client::builder().retry(policy).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is 100 ms ([`DEFAULT_BASE_DELAY`]).
    pub fn base_delay(mut self, delay: Duration) -> RetryPolicy {
        self.base_delay = delay;
        self
    }

    /// How much the bound of the backoff grows from one retry to the next (see
    /// [`base_delay`](Self::base_delay)); `1` keeps it at `base_delay`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::RetryPolicy;
    ///
    /// // The same bound before every retry: up to 200 ms each time.
    /// let policy = RetryPolicy::new().base_delay(Duration::from_millis(200)).backoff_factor(1);
    /// # let _ = policy;
    /// ```
    ///
    /// Default is 2 ([`DEFAULT_BACKOFF_FACTOR`]).
    pub fn backoff_factor(mut self, factor: u32) -> RetryPolicy {
        self.backoff_factor = factor;
        self
    }

    /// The longest the client waits before a retry: the bound of the backoff stops
    /// growing there, and a response whose `Retry-After` asks for longer is returned as it
    /// is rather than retried sooner than the server said.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::RetryPolicy;
    ///
    /// // An interactive call: never wait more than a second, even when `Retry-After` asks.
    /// let policy = RetryPolicy::new().max_delay(Duration::from_secs(1));
    /// # let _ = policy;
    /// ```
    ///
    /// Default is 10 seconds ([`DEFAULT_MAX_DELAY`]).
    pub fn max_delay(mut self, delay: Duration) -> RetryPolicy {
        self.max_delay = delay;
        self
    }

    /// The methods that may be retried, instead of the default set; each is
    /// [normalized](crate::request::normalize_method) (`"get"` is `GET`) and compared with
    /// the request's method. Naming `POST` or `PATCH` says that sending such a request
    /// twice does no harm (an idempotency key, an upsert); a request with a stream body is
    /// still never retried.
    ///
    /// ```
    /// use whatwg_fetch::RetryPolicy;
    ///
    /// // This API's POSTs carry an idempotency key: sending one twice does no harm.
    /// let policy = RetryPolicy::new().methods(["GET", "PUT", "DELETE", "post"]);
    /// # let _ = policy;
    /// ```
    ///
    /// Default is the idempotent methods of RFC 9110 §9.2.2: `GET`, `HEAD`, `OPTIONS`,
    /// `TRACE`, `PUT`, `DELETE`.
    pub fn methods<I, S>(mut self, methods: I) -> RetryPolicy
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.methods = methods
            .into_iter()
            .map(|method| normalize_method(method.into()))
            .collect();
        self
    }

    /// The response statuses that are retried, instead of the default set. Add `502` and
    /// `504` for a gateway whose upstream restarts (`[429, 502, 503, 504]`), as undici's
    /// `RetryAgent` does (with `500`).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use std::sync::Arc;
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # let served = Arc::new(AtomicUsize::new(0));
    /// # let count = served.clone();
    /// # tokio::spawn(async move {
    /// #     // Unavailable the first 1 times, then fine.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let n = count.fetch_add(1, Ordering::SeqCst);
    /// #         let reply: &[u8] = if n < 1 {
    /// #             b"HTTP/1.1 502 Bad Gateway\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
    /// #         } else {
    /// #             b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok"
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::time::Duration;
    /// use whatwg_fetch::{Client, RetryPolicy};
    ///
    /// let policy = RetryPolicy::new().statuses([429, 502, 503, 504]).base_delay(Duration::from_millis(1));
    /// let client = Client::builder().retry(policy).build()?;
    /// assert_eq!(client.get(&url).send().await?.status(), 200);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is `429 Too Many Requests` and `503 Service Unavailable`: the two statuses
    /// by which a server says that a later try may succeed, and for which it may say when
    /// with `Retry-After`.
    pub fn statuses<I>(mut self, statuses: I) -> RetryPolicy
    where
        I: IntoIterator<Item = u16>,
    {
        self.statuses = statuses.into_iter().collect();
        self
    }

    /// The client's retry budget, or `None` for none (every retry the other options allow
    /// is made). Each client built with this policy keeps its own.
    ///
    /// ```
    /// use whatwg_fetch::{RetryBudget, RetryPolicy};
    ///
    /// // During an outage, retries add at most 10% to the traffic (and 5 a second besides).
    /// let policy = RetryPolicy::new().budget(Some(RetryBudget::new(0.1, 5)));
    /// # let _ = policy;
    /// ```
    ///
    /// Default is [`RetryBudget::default`]: retries add at most 20% to the first attempts,
    /// besides 10 a second.
    pub fn budget(mut self, budget: Option<RetryBudget>) -> RetryPolicy {
        self.budget = budget;
        self
    }

    /// Decides, after each attempt of a request that may be retried, whether to retry it:
    /// `classify` sees the [`Attempt`] (the request, the response or the error) and
    /// returns a [`RetryDecision`]; [`RetryDecision::Default`] leaves it to the rules of
    /// [`RetryPolicy`]. It is asked after a successful response too, but not about a
    /// request that cannot be retried (a method not in [`methods`](Self::methods), a
    /// stream body) nor after the last attempt; a retry it asks for is still held to the
    /// budget and the client's total timeout.
    ///
    /// It runs on the task that awaits the fetch, between two attempts: it should be quick,
    /// and it must not read the response's body.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use std::sync::Arc;
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # let served = Arc::new(AtomicUsize::new(0));
    /// # let count = served.clone();
    /// # tokio::spawn(async move {
    /// #     // Unavailable the first 1 times, then fine.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let n = count.fetch_add(1, Ordering::SeqCst);
    /// #         let reply: &[u8] = if n < 1 {
    /// #             b"HTTP/1.1 500 Internal Server Error\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
    /// #         } else {
    /// #             b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok"
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::time::Duration;
    /// use whatwg_fetch::retry::RetryDecision;
    /// use whatwg_fetch::{Client, RetryPolicy};
    ///
    /// // This service's 500s are transient; its other errors are not.
    /// let policy = RetryPolicy::new().base_delay(Duration::from_millis(1)).classify(|attempt| match attempt.status() {
    ///     Some(500) => RetryDecision::Retry,
    ///     _ => RetryDecision::Default,
    /// });
    /// let client = Client::builder().retry(policy).build()?;
    /// assert_eq!(client.get(&url).send().await?.status(), 200);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is none: the rules alone decide.
    pub fn classify<F>(mut self, classify: F) -> RetryPolicy
    where
        F: Fn(&Attempt<'_>) -> RetryDecision + Send + Sync + 'static,
    {
        self.classifier = Some(Arc::new(classify));
        self
    }

    /// A copy of `request` to send again, if the policy may ever retry it: its method is
    /// one the policy retries and its body can be sent again.
    fn replay(&self, request: &Request) -> Option<Replay> {
        if self.max_attempts < 2 || !self.methods.contains(&request.method) {
            return None;
        }
        let body = match &request.body {
            None => None,
            // A body used before the fetch fails the first attempt as it would alone.
            Some(body) if body.is_disturbed() => return None,
            // A stream has no source: what was sent is gone.
            Some(body) => Some(body.source_bytes()?.clone()),
        };
        Some(Replay {
            request: request.copy_without_body(),
            body,
        })
    }

    /// Whether the rules of the policy retry `response` (a network error or not).
    fn retries(&self, response: &Response) -> bool {
        if response.is_network_error() {
            return response
                .network_error_cause()
                .and_then(Error::network_error)
                .is_some_and(is_transient);
        }
        self.statuses.contains(&response.status())
    }

    /// How long to wait before retry `retry` (1 for the first) after `response`: its
    /// `Retry-After`, or the backoff; `None` when the `Retry-After` asks for longer than
    /// the policy waits.
    fn delay(
        &self,
        response: &Response,
        retry: u32,
        rng: &mut Option<fastrand::Rng>,
    ) -> Option<Duration> {
        match retry_after(response, SystemTime::now()) {
            Some(delay) if delay <= self.max_delay => Some(delay),
            Some(_) => None,
            None => Some(self.backoff(retry, rng.get_or_insert_with(fastrand::Rng::new))),
        }
    }

    /// The bound of the backoff before retry `retry` (1 for the first):
    /// `base_delay × factor^(retry−1)`, at most `max_delay`.
    fn backoff_bound(&self, retry: u32) -> Duration {
        let exponent = retry.saturating_sub(1);
        self.backoff_factor
            .checked_pow(exponent)
            .and_then(|growth| self.base_delay.checked_mul(growth))
            .map_or(self.max_delay, |bound| bound.min(self.max_delay))
    }

    /// The delay before retry `retry`: drawn uniformly between zero and the bound ("full
    /// jitter", which spreads the retries of many clients that failed at once over the
    /// whole interval; see AWS's "Exponential Backoff And Jitter").
    fn backoff(&self, retry: u32, rng: &mut fastrand::Rng) -> Duration {
        let bound = u64::try_from(self.backoff_bound(retry).as_nanos()).unwrap_or(u64::MAX);
        Duration::from_nanos(rng.u64(0..=bound))
    }
}

/// A limit on the retries of one client as a whole, so that a failing server gets a
/// little more than its load rather than `max_attempts` times it: a token bucket, as
/// Finagle's `RetryBudget` and tower's `TpsBudget` keep.
///
/// Each fetch the client makes deposits `ratio` of a retry; each retry withdraws one. On
/// top of those, `min_per_second` retries a second are allowed whatever the traffic, so
/// that a client making few requests can still retry them. Deposits and withdrawals count
/// for [`RetryBudget::WINDOW`] (10 s), then expire: over any 10 seconds, a client makes
/// at most `ratio × fetches + 10 × min_per_second` retries. When the budget is spent, a
/// fetch that would have been retried ends with its last response or error, as it is.
///
/// ```
/// use whatwg_fetch::retry::{RetryBudget, RetryPolicy};
///
/// // Retries add at most 10% to the requests, with no allowance of their own.
/// let policy = RetryPolicy::new().budget(Some(RetryBudget::new(0.1, 0)));
/// # let _ = policy;
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RetryBudget {
    ratio: f64,
    min_per_second: u32,
}

impl RetryBudget {
    /// How long a deposit or a withdrawal counts: 10 seconds, as in Finagle and tower.
    pub const WINDOW: Duration = Duration::from_secs(WINDOW_SECONDS);

    /// A budget allowing `ratio` retries per fetch (`0.2`: one retry for five fetches; a
    /// ratio that is negative or not a number counts as `0`, and one above 1,000 as
    /// 1,000), and besides those `min_per_second` retries a second.
    ///
    /// ```
    /// use whatwg_fetch::RetryBudget;
    ///
    /// let budget = RetryBudget::new(0.2, 10);
    /// assert_eq!((budget.ratio(), budget.min_per_second()), (0.2, 10));
    /// // A ratio that is not a number counts as none.
    /// assert_eq!(RetryBudget::new(f64::NAN, 0).ratio(), 0.0);
    /// ```
    pub fn new(ratio: f64, min_per_second: u32) -> RetryBudget {
        RetryBudget {
            ratio: if ratio.is_nan() {
                0.0
            } else {
                ratio.clamp(0.0, 1000.0)
            },
            min_per_second,
        }
    }

    /// The retries allowed per fetch.
    ///
    /// ```
    /// use whatwg_fetch::RetryBudget;
    ///
    /// assert_eq!(RetryBudget::default().ratio(), 0.2);
    /// ```
    pub fn ratio(&self) -> f64 {
        self.ratio
    }

    /// The retries allowed a second whatever the traffic.
    ///
    /// ```
    /// use whatwg_fetch::RetryBudget;
    ///
    /// assert_eq!(RetryBudget::default().min_per_second(), 10);
    /// ```
    pub fn min_per_second(&self) -> u32 {
        self.min_per_second
    }
}

/// Finagle's and tower's defaults: 20% of the requests, and 10 retries a second.
impl Default for RetryBudget {
    fn default() -> RetryBudget {
        RetryBudget::new(0.2, 10)
    }
}

/// One attempt of a fetch, as a [classifier](RetryPolicy::classify) sees it: the request,
/// which attempt it was, and what it ended in: a response or a network error.
///
/// ```
/// use whatwg_fetch::RetryPolicy;
/// use whatwg_fetch::retry::RetryDecision;
///
/// // Seen by a classifier after each attempt.
/// let policy = RetryPolicy::new().classify(|attempt| {
///     eprintln!("attempt {} of {} {}: {:?}", attempt.number(), attempt.method(), attempt.url(), attempt.status());
///     RetryDecision::Default
/// });
/// # let _ = policy;
/// ```
pub struct Attempt<'a> {
    request: &'a Request,
    number: u32,
    response: &'a Response,
}

impl Attempt<'_> {
    /// The request as the caller gave it: its method, URL (before any redirect), headers.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use std::sync::Arc;
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # let served = Arc::new(AtomicUsize::new(0));
    /// # let count = served.clone();
    /// # tokio::spawn(async move {
    /// #     // Unavailable the first 1 times, then fine.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let n = count.fetch_add(1, Ordering::SeqCst);
    /// #         let reply: &[u8] = if n < 1 {
    /// #             b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
    /// #         } else {
    /// #             b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok"
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::sync::Mutex;
    /// use std::time::Duration;
    /// use whatwg_fetch::retry::RetryDecision;
    /// use whatwg_fetch::{Client, RetryPolicy};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let policy = RetryPolicy::new().base_delay(Duration::from_millis(1)).classify(move |attempt| {
    ///     log.lock().unwrap().push(attempt.request().headers().has("x-trace").unwrap_or(false));
    ///     RetryDecision::Default
    /// });
    /// let client = Client::builder().retry(policy).build()?;
    /// client.get(&url).send().await?;
    /// // The request as given, each time.
    /// assert_eq!(*seen.lock().unwrap(), [false, false]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn request(&self) -> &Request {
        self.request
    }

    /// The request's method.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use std::sync::Arc;
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # let served = Arc::new(AtomicUsize::new(0));
    /// # let count = served.clone();
    /// # tokio::spawn(async move {
    /// #     // Unavailable the first 1 times, then fine.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let n = count.fetch_add(1, Ordering::SeqCst);
    /// #         let reply: &[u8] = if n < 1 {
    /// #             b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
    /// #         } else {
    /// #             b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok"
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::sync::Mutex;
    /// use std::time::Duration;
    /// use whatwg_fetch::retry::RetryDecision;
    /// use whatwg_fetch::{Client, RetryPolicy};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let policy = RetryPolicy::new().base_delay(Duration::from_millis(1)).classify(move |attempt| {
    ///     log.lock().unwrap().push(attempt.method().to_owned());
    ///     RetryDecision::Default
    /// });
    /// let client = Client::builder().retry(policy).build()?;
    /// client.get(&url).send().await?;
    /// assert_eq!(*seen.lock().unwrap(), ["GET", "GET"]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn method(&self) -> &str {
        &self.request.method
    }

    /// The request's URL, before any redirect.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use std::sync::Arc;
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # let served = Arc::new(AtomicUsize::new(0));
    /// # let count = served.clone();
    /// # tokio::spawn(async move {
    /// #     // Unavailable the first 1 times, then fine.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let n = count.fetch_add(1, Ordering::SeqCst);
    /// #         let reply: &[u8] = if n < 1 {
    /// #             b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
    /// #         } else {
    /// #             b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok"
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::sync::Mutex;
    /// use std::time::Duration;
    /// use whatwg_fetch::retry::RetryDecision;
    /// use whatwg_fetch::{Client, RetryPolicy};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let policy = RetryPolicy::new().base_delay(Duration::from_millis(1)).classify(move |attempt| {
    ///     log.lock().unwrap().push(attempt.url().path().to_owned());
    ///     RetryDecision::Default
    /// });
    /// let client = Client::builder().retry(policy).build()?;
    /// client.get(&url).send().await?;
    /// assert_eq!(*seen.lock().unwrap(), ["/", "/"]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn url(&self) -> &Url {
        self.request.current_url()
    }

    /// Which attempt this was: 1 for the first.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use std::sync::Arc;
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # let served = Arc::new(AtomicUsize::new(0));
    /// # let count = served.clone();
    /// # tokio::spawn(async move {
    /// #     // Unavailable the first 1 times, then fine.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let n = count.fetch_add(1, Ordering::SeqCst);
    /// #         let reply: &[u8] = if n < 1 {
    /// #             b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
    /// #         } else {
    /// #             b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok"
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::sync::Mutex;
    /// use std::time::Duration;
    /// use whatwg_fetch::retry::RetryDecision;
    /// use whatwg_fetch::{Client, RetryPolicy};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let policy = RetryPolicy::new().base_delay(Duration::from_millis(1)).classify(move |attempt| {
    ///     log.lock().unwrap().push(attempt.number());
    ///     RetryDecision::Default
    /// });
    /// let client = Client::builder().retry(policy).build()?;
    /// client.get(&url).send().await?;
    /// // Asked after the 503 of the first attempt and the 200 of the second.
    /// assert_eq!(*seen.lock().unwrap(), [1, 2]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn number(&self) -> u32 {
        self.number
    }

    /// The response the attempt ended in (after redirects and filtering, as the fetch
    /// would resolve with it), or `None` for a network error. Its body must not be read.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use std::sync::Arc;
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # let served = Arc::new(AtomicUsize::new(0));
    /// # let count = served.clone();
    /// # tokio::spawn(async move {
    /// #     // Unavailable the first 1 times, then fine.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let n = count.fetch_add(1, Ordering::SeqCst);
    /// #         let reply: &[u8] = if n < 1 {
    /// #             b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
    /// #         } else {
    /// #             b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok"
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::sync::Mutex;
    /// use std::time::Duration;
    /// use whatwg_fetch::retry::RetryDecision;
    /// use whatwg_fetch::{Client, RetryPolicy};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let policy = RetryPolicy::new().base_delay(Duration::from_millis(1)).classify(move |attempt| {
    ///     log.lock().unwrap().push(attempt.response().map(|response| response.status_text().to_owned()));
    ///     RetryDecision::Default
    /// });
    /// let client = Client::builder().retry(policy).build()?;
    /// client.get(&url).send().await?;
    /// assert_eq!(*seen.lock().unwrap(), [Some("Service Unavailable".to_owned()), Some("OK".to_owned())]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn response(&self) -> Option<&Response> {
        (!self.response.is_network_error()).then_some(self.response)
    }

    /// The response's status, or `None` for a network error.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use std::sync::Arc;
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # let served = Arc::new(AtomicUsize::new(0));
    /// # let count = served.clone();
    /// # tokio::spawn(async move {
    /// #     // Unavailable the first 1 times, then fine.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let n = count.fetch_add(1, Ordering::SeqCst);
    /// #         let reply: &[u8] = if n < 1 {
    /// #             b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
    /// #         } else {
    /// #             b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok"
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::sync::Mutex;
    /// use std::time::Duration;
    /// use whatwg_fetch::retry::RetryDecision;
    /// use whatwg_fetch::{Client, RetryPolicy};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let policy = RetryPolicy::new().base_delay(Duration::from_millis(1)).classify(move |attempt| {
    ///     log.lock().unwrap().push(attempt.status());
    ///     RetryDecision::Default
    /// });
    /// let client = Client::builder().retry(policy).build()?;
    /// client.get(&url).send().await?;
    /// assert_eq!(*seen.lock().unwrap(), [Some(503), Some(200)]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn status(&self) -> Option<u16> {
        self.response().map(Response::status)
    }

    /// The error the attempt ended in (what the fetch would reject with), or `None` when
    /// a response came.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use std::sync::Arc;
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # let served = Arc::new(AtomicUsize::new(0));
    /// # let count = served.clone();
    /// # tokio::spawn(async move {
    /// #     // Unavailable the first 1 times, then fine.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let n = count.fetch_add(1, Ordering::SeqCst);
    /// #         let reply: &[u8] = if n < 1 {
    /// #             b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
    /// #         } else {
    /// #             b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok"
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::sync::Mutex;
    /// use std::time::Duration;
    /// use whatwg_fetch::retry::RetryDecision;
    /// use whatwg_fetch::{Client, RetryPolicy};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let policy = RetryPolicy::new().base_delay(Duration::from_millis(1)).classify(move |attempt| {
    ///     log.lock().unwrap().push(attempt.error().is_some());
    ///     RetryDecision::Default
    /// });
    /// let client = Client::builder().retry(policy).build()?;
    /// client.get(&url).send().await?;
    /// // Responses both times: no error.
    /// assert_eq!(*seen.lock().unwrap(), [false, false]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn error(&self) -> Option<&Error> {
        self.response.network_error_cause()
    }

    /// The network error behind [`error`](Self::error), if any.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use std::sync::Arc;
    /// # use std::sync::atomic::{AtomicUsize, Ordering};
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # let served = Arc::new(AtomicUsize::new(0));
    /// # let count = served.clone();
    /// # tokio::spawn(async move {
    /// #     // Unavailable the first 1 times, then fine.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let n = count.fetch_add(1, Ordering::SeqCst);
    /// #         let reply: &[u8] = if n < 1 {
    /// #             b"HTTP/1.1 503 Service Unavailable\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
    /// #         } else {
    /// #             b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 2\r\n\r\nok"
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// use std::sync::Mutex;
    /// use std::time::Duration;
    /// use whatwg_fetch::retry::RetryDecision;
    /// use whatwg_fetch::{Client, RetryPolicy};
    ///
    /// let seen = Arc::new(Mutex::new(Vec::new()));
    /// let log = seen.clone();
    /// let policy = RetryPolicy::new().base_delay(Duration::from_millis(1)).classify(move |attempt| {
    ///     log.lock().unwrap().push(attempt.network_error().is_some());
    ///     RetryDecision::Default
    /// });
    /// let client = Client::builder().retry(policy).build()?;
    /// client.get(&url).send().await?;
    /// assert_eq!(*seen.lock().unwrap(), [false, false]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn network_error(&self) -> Option<&NetworkError> {
        self.error().and_then(Error::network_error)
    }
}

impl fmt::Debug for Attempt<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Attempt")
            .field("method", &self.method())
            .field("url", &self.url().as_str())
            .field("number", &self.number)
            .field("status", &self.status())
            .field("error", &self.error())
            .finish()
    }
}

/// What a [classifier](RetryPolicy::classify) decides after an attempt.
///
/// ```
/// use whatwg_fetch::RetryPolicy;
/// use whatwg_fetch::retry::RetryDecision;
///
/// // A 409 of this API is worth one more try; anything else as the rules say.
/// let policy = RetryPolicy::new().classify(|attempt| match attempt.status() {
///     Some(409) => RetryDecision::Retry,
///     _ => RetryDecision::Default,
/// });
/// # let _ = policy;
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub enum RetryDecision {
    /// The policy's rules decide (see [`RetryPolicy`]).
    #[default]
    Default,
    /// Retry, after the response's `Retry-After` or else the backoff, as for a status
    /// the policy retries: a `Retry-After` longer than
    /// [`max_delay`](RetryPolicy::max_delay) still ends the fetch with this response.
    Retry,
    /// Retry after exactly this long, whatever the response says and
    /// [`max_delay`](RetryPolicy::max_delay).
    RetryAfter(Duration),
    /// Do not retry: the fetch ends with this response or error.
    Stop,
}

/// A request kept to be sent again: its fields and its body's bytes.
struct Replay {
    request: Request,
    body: Option<BlobBytes>,
}

impl Replay {
    /// A new copy of the request, with its body.
    fn request(&self) -> Request {
        let mut request = self.request.copy_without_body();
        request.body = self.body.clone().map(Body::from_blob_bytes);
        request
    }
}

/// A client's [`RetryPolicy`] with the state its requests share: what the client keeps.
pub(crate) struct Retrier {
    policy: RetryPolicy,
    budget: Option<Budget>,
}

impl Retrier {
    pub(crate) fn new(policy: RetryPolicy) -> Retrier {
        let budget = policy
            .budget
            .map(|budget| Budget::new(budget, Instant::now()));
        Retrier { policy, budget }
    }

    /// [Fetch](https://fetch.spec.whatwg.org/#concept-fetch) `request`, again as the
    /// policy says: the fetch's response (a network error or not) once no retry is to be
    /// made. `deadline` is the client's total timeout, which no wait may pass.
    ///
    /// Boxed, so that the future of a fetch on a client without a policy stays the size it
    /// was.
    pub(crate) fn fetch<'a>(
        &'a self,
        request: Request,
        context: &'a FetchContext,
        deadline: Option<Instant>,
    ) -> Pin<Box<dyn Future<Output = Response> + Send + 'a>> {
        Box::pin(self.fetch_with_retries(request, context, deadline))
    }

    async fn fetch_with_retries(
        &self,
        request: Request,
        context: &FetchContext,
        deadline: Option<Instant>,
    ) -> Response {
        // Every fetch adds to the budget, those that cannot be retried too: the budget is
        // a share of the client's traffic.
        if let Some(budget) = &self.budget {
            budget.deposit(Instant::now());
        }
        let mut request = request;
        let Some(replay) = self.policy.replay(&request) else {
            return crate::fetch::fetch(&mut request, context).await;
        };
        let mut number = 1;
        let mut rng = None;
        loop {
            let response = crate::fetch::fetch(&mut request, context).await;
            let attempt = Attempt {
                request: &replay.request,
                number,
                response: &response,
            };
            let Some(delay) = self.delay_before_retry(&attempt, deadline, &mut rng) else {
                return response;
            };
            // The response is dropped unread: its body is cancelled and its connection
            // closed, rather than read to its end for a connection to reuse.
            drop(response);
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            number = number.saturating_add(1);
            request = replay.request();
        }
    }

    /// How long to wait before retrying after `attempt`, or `None` to end the fetch with
    /// it.
    fn delay_before_retry(
        &self,
        attempt: &Attempt<'_>,
        deadline: Option<Instant>,
        rng: &mut Option<fastrand::Rng>,
    ) -> Option<Duration> {
        let policy = &self.policy;
        if attempt.number >= policy.max_attempts {
            return None;
        }
        let decision = match &policy.classifier {
            Some(classify) => classify(attempt),
            None => RetryDecision::Default,
        };
        let delay = match decision {
            RetryDecision::Stop => return None,
            RetryDecision::RetryAfter(delay) => delay,
            RetryDecision::Retry => policy.delay(attempt.response, attempt.number, rng)?,
            RetryDecision::Default if policy.retries(attempt.response) => {
                policy.delay(attempt.response, attempt.number, rng)?
            }
            RetryDecision::Default => return None,
        };
        let now = Instant::now();
        // A wait that would end past the total timeout gives up now, with this response.
        if let Some(deadline) = deadline {
            if now.checked_add(delay).is_none_or(|end| end >= deadline) {
                return None;
            }
        }
        // The budget last: a retry withdraws only when it is made.
        if let Some(budget) = &self.budget {
            if !budget.withdraw(now) {
                return None;
            }
        }
        Some(delay)
    }
}

/// Whether a network error may not happen again on another try (see [`RetryPolicy`]).
fn is_transient(error: &NetworkError) -> bool {
    match error {
        NetworkError::Dns(_) => true,
        // A head the client refused to read would be refused again.
        NetworkError::Protocol(source) => !source.is::<HeadRefused>(),
        NetworkError::Connect(source) => is_transient_connect_error(source.as_ref()),
        NetworkError::Timeout { kind, .. } => matches!(
            kind,
            TimeoutKind::Connect | TimeoutKind::Idle | TimeoutKind::KeepAlive
        ),
        _ => false,
    }
}

/// Whether a connect error may not happen again: not when a proxy answered with a refusal
/// that will stand, nor when a TLS handshake (to an HTTPS proxy) failed.
fn is_transient_connect_error(source: &(dyn std::error::Error + 'static)) -> bool {
    let mut cause = Some(source);
    while let Some(error) = cause {
        if error.is::<TlsHandshakeError>() {
            return false;
        }
        if let Some(refused) = error.downcast_ref::<ProxyRefused>() {
            // The proxy could not reach the origin, or is itself overloaded.
            return matches!(refused.status().as_u16(), 502..=504);
        }
        if let Some(refused) = error.downcast_ref::<SocksRefused>() {
            // RFC 1928 §6: 1 general failure, 3 network unreachable, 4 host unreachable,
            // 5 connection refused, 6 TTL expired. Not 2 (not allowed by its rules), 7 or
            // 8 (not supported), nor a refused authentication.
            return matches!(refused.reason(), SocksRefusal::Reply(1 | 3..=6));
        }
        cause = error.source();
    }
    true
}

/// The delay a response's `Retry-After` asks for
/// ([RFC 9110 §10.2.3](https://httpwg.org/specs/rfc9110.html#field.retry-after)), its
/// first one if it has several: `None` for a network error, no header, or a value that is
/// neither delay-seconds nor an HTTP-date. A date in the past is no delay.
fn retry_after(response: &Response, now: SystemTime) -> Option<Duration> {
    if response.is_network_error() {
        return None;
    }
    let value = response
        .headers()
        .header_list()
        .values(b"retry-after")
        .next()?;
    parse_retry_after(value, now)
}

/// Parses a `Retry-After` value: `Retry-After = HTTP-date / delay-seconds`, where
/// `delay-seconds = 1*DIGIT`.
fn parse_retry_after(value: &[u8], now: SystemTime) -> Option<Duration> {
    let value = value.trim_ascii();
    if value.is_empty() {
        return None;
    }
    if value.iter().all(u8::is_ascii_digit) {
        // More seconds than a u64 holds is as good as forever.
        let seconds = value.iter().try_fold(0u64, |seconds, digit| {
            seconds
                .checked_mul(10)?
                .checked_add(u64::from(digit - b'0'))
        });
        return Some(Duration::from_secs(seconds.unwrap_or(u64::MAX)));
    }
    let date = httpdate::parse_http_date(std::str::from_utf8(value).ok()?).ok()?;
    Some(date.duration_since(now).unwrap_or(Duration::ZERO))
}

/// How many seconds a deposit or a withdrawal counts in a [`Budget`].
const WINDOW_SECONDS: u64 = 10;

/// A retry, in the thousandths a [`Budget`] counts in.
const ONE_RETRY: i64 = 1000;

/// The state of a client's [`RetryBudget`]: what was deposited and withdrawn in each of the
/// last [`WINDOW_SECONDS`] seconds, in thousandths of a retry.
struct Budget {
    start: Instant,
    /// What a fetch deposits: `ratio` retries.
    deposit: i64,
    /// What `min_per_second` allows over the window.
    reserve: i64,
    slots: Mutex<Slots>,
}

/// One balance per second of the window, a ring indexed by the second since the budget's
/// start.
struct Slots {
    /// The second of the latest deposit or withdrawal.
    second: u64,
    balances: [i64; WINDOW_SECONDS as usize],
}

impl Budget {
    fn new(budget: RetryBudget, now: Instant) -> Budget {
        // The ratio is within 0..=1000, so this is at most a million.
        let deposit = (budget.ratio * ONE_RETRY as f64).round() as i64;
        let reserve = i64::from(budget.min_per_second)
            .saturating_mul(WINDOW_SECONDS as i64)
            .saturating_mul(ONE_RETRY);
        Budget {
            start: now,
            deposit,
            reserve,
            slots: Mutex::new(Slots {
                second: 0,
                balances: [0; WINDOW_SECONDS as usize],
            }),
        }
    }

    /// The slots, moved on to the second of `now`: the seconds that left the window since
    /// the last move are emptied.
    fn slots_at(&self, now: Instant) -> (std::sync::MutexGuard<'_, Slots>, usize) {
        let second = now.saturating_duration_since(self.start).as_secs();
        let mut slots = self.slots.lock().unwrap_or_else(PoisonError::into_inner);
        if second > slots.second {
            let passed = second - slots.second;
            if passed >= WINDOW_SECONDS {
                slots.balances = [0; WINDOW_SECONDS as usize];
            } else {
                for past in slots.second + 1..=second {
                    if let Some(balance) = slots.balances.get_mut(slot_index(past)) {
                        *balance = 0;
                    }
                }
            }
            slots.second = second;
        }
        // A clock that went back (it cannot, but) uses the latest second.
        let index = slot_index(slots.second);
        (slots, index)
    }

    /// A fetch's deposit.
    fn deposit(&self, now: Instant) {
        let (mut slots, index) = self.slots_at(now);
        if let Some(balance) = slots.balances.get_mut(index) {
            *balance = balance.saturating_add(self.deposit);
        }
    }

    /// Withdraws one retry if the window holds one: whether the retry may be made.
    fn withdraw(&self, now: Instant) -> bool {
        let (mut slots, index) = self.slots_at(now);
        let available = slots
            .balances
            .iter()
            .fold(self.reserve, |sum, balance| sum.saturating_add(*balance));
        if available < ONE_RETRY {
            return false;
        }
        if let Some(balance) = slots.balances.get_mut(index) {
            *balance = balance.saturating_sub(ONE_RETRY);
        }
        true
    }
}

/// The slot of a second in the ring.
fn slot_index(second: u64) -> usize {
    // Below WINDOW_SECONDS, so it fits.
    (second % WINDOW_SECONDS) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn ms(milliseconds: u64) -> Duration {
        Duration::from_millis(milliseconds)
    }

    #[test]
    fn the_backoff_bound_grows_by_the_factor_up_to_the_max_delay() {
        let policy = RetryPolicy::new();
        let bounds: Vec<Duration> = (1..=9).map(|retry| policy.backoff_bound(retry)).collect();
        assert_eq!(
            bounds,
            [
                ms(100),
                ms(200),
                ms(400),
                ms(800),
                ms(1600),
                ms(3200),
                ms(6400),
                ms(10_000),
                ms(10_000)
            ]
        );
        let policy = RetryPolicy::new()
            .base_delay(ms(50))
            .backoff_factor(3)
            .max_delay(ms(1000));
        let bounds: Vec<Duration> = (1..=5).map(|retry| policy.backoff_bound(retry)).collect();
        assert_eq!(bounds, [ms(50), ms(150), ms(450), ms(1000), ms(1000)]);
    }

    #[test]
    fn the_backoff_bound_saturates_at_the_max_delay_for_any_retry_number() {
        let policy = RetryPolicy::new()
            .base_delay(Duration::from_secs(u64::MAX / 2))
            .max_delay(Duration::MAX);
        assert_eq!(policy.backoff_bound(1), Duration::from_secs(u64::MAX / 2));
        assert_eq!(policy.backoff_bound(3), Duration::MAX);
        assert_eq!(RetryPolicy::new().backoff_bound(u32::MAX), ms(10_000));
        // A factor of 1 keeps the base; 0 leaves only the first retry a wait.
        let flat = RetryPolicy::new().backoff_factor(1);
        assert_eq!(flat.backoff_bound(u32::MAX), ms(100));
        let none = RetryPolicy::new().backoff_factor(0);
        assert_eq!(none.backoff_bound(1), ms(100));
        assert_eq!(none.backoff_bound(2), Duration::ZERO);
    }

    #[test]
    fn the_jittered_backoff_stays_within_the_bound_and_spreads_over_it() {
        let policy = RetryPolicy::new();
        let mut rng = fastrand::Rng::with_seed(7);
        for retry in 1..=4 {
            let bound = policy.backoff_bound(retry);
            let delays: Vec<Duration> = (0..200).map(|_| policy.backoff(retry, &mut rng)).collect();
            assert!(delays.iter().all(|delay| *delay <= bound), "{delays:?}");
            // Full jitter: both halves of the interval are drawn.
            assert!(delays.iter().any(|delay| *delay < bound / 2), "{delays:?}");
            assert!(delays.iter().any(|delay| *delay > bound / 2), "{delays:?}");
        }
        let none = RetryPolicy::new().base_delay(Duration::ZERO);
        assert_eq!(none.backoff(1, &mut rng), Duration::ZERO);
        let huge = RetryPolicy::new()
            .max_delay(Duration::MAX)
            .backoff_factor(u32::MAX);
        assert!(huge.backoff(5, &mut rng) <= Duration::MAX);
    }

    #[test]
    fn retry_after_is_read_as_seconds_or_an_http_date() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_445_412_480);
        assert_eq!(
            parse_retry_after(b"120", now),
            Some(Duration::from_secs(120))
        );
        assert_eq!(parse_retry_after(b" 0 ", now), Some(Duration::ZERO));
        // 2015-10-21 07:28:00 GMT is 1,445,412,480 seconds after the epoch.
        let date = b"Wed, 21 Oct 2015 07:30:00 GMT";
        assert_eq!(parse_retry_after(date, now), Some(Duration::from_secs(120)));
        // The obsolete forms of RFC 9110 §5.6.7 too.
        let rfc850 = b"Wednesday, 21-Oct-15 07:29:00 GMT";
        assert_eq!(
            parse_retry_after(rfc850, now),
            Some(Duration::from_secs(60))
        );
        // A date past is no wait.
        let past = b"Wed, 21 Oct 2015 07:00:00 GMT";
        assert_eq!(parse_retry_after(past, now), Some(Duration::ZERO));
        // Too many seconds to count is forever, not an error.
        let forever = b"99999999999999999999999";
        assert_eq!(
            parse_retry_after(forever, now),
            Some(Duration::from_secs(u64::MAX))
        );
        for invalid in [&b""[..], b"  ", b"-1", b"1.5", b"soon", b"120s", b"\xff"] {
            assert_eq!(parse_retry_after(invalid, now), None, "{invalid:?}");
        }
    }

    fn response(status: u16, headers: &[(&str, &str)]) -> Response {
        let init = crate::ResponseInit {
            status,
            headers: Some(headers.to_vec().into()),
            ..Default::default()
        };
        Response::new(None, init).unwrap()
    }

    fn network_error(cause: NetworkError) -> Response {
        Response::network_error(Error::network(cause))
    }

    #[test]
    fn a_retry_after_within_the_max_delay_is_waited_and_a_longer_one_ends_the_fetch() {
        let policy = RetryPolicy::new().max_delay(Duration::from_secs(5));
        let mut rng = Some(fastrand::Rng::with_seed(1));
        let busy = response(503, &[("retry-after", "5")]);
        assert_eq!(
            policy.delay(&busy, 1, &mut rng),
            Some(Duration::from_secs(5))
        );
        let longer = response(503, &[("retry-after", "6")]);
        assert_eq!(policy.delay(&longer, 1, &mut rng), None);
        // The first of several; an unreadable one leaves the backoff.
        let several = response(429, &[("retry-after", "1"), ("retry-after", "600")]);
        assert_eq!(
            policy.delay(&several, 1, &mut rng),
            Some(Duration::from_secs(1))
        );
        let unreadable = response(503, &[("retry-after", "later")]);
        let delay = policy.delay(&unreadable, 1, &mut rng);
        assert!(delay.is_some_and(|delay| delay <= ms(100)), "{delay:?}");
    }

    #[test]
    fn the_default_rules_retry_the_statuses_and_the_transient_network_errors() {
        let policy = RetryPolicy::new();
        assert!(policy.retries(&response(503, &[])));
        assert!(policy.retries(&response(429, &[])));
        for status in [200, 404, 500, 502, 504] {
            assert!(!policy.retries(&response(status, &[])), "{status}");
        }
        let gateways = RetryPolicy::new().statuses([502, 503, 504]);
        assert!(gateways.retries(&response(502, &[])));
        assert!(!gateways.retries(&response(429, &[])));

        let io = |kind| -> crate::BoxError { Box::new(std::io::Error::from(kind)) };
        let transient = [
            NetworkError::Connect(io(std::io::ErrorKind::ConnectionRefused)),
            NetworkError::Dns("no such host".into()),
            NetworkError::Protocol(io(std::io::ErrorKind::ConnectionReset)),
            NetworkError::Timeout {
                kind: TimeoutKind::Connect,
                after: ms(1),
            },
            NetworkError::Timeout {
                kind: TimeoutKind::Idle,
                after: ms(1),
            },
        ];
        for error in transient {
            let shown = error.to_string();
            assert!(policy.retries(&network_error(error)), "{shown}");
        }
        let lasting = [
            NetworkError::Tls("invalid peer certificate: UnknownIssuer".into()),
            NetworkError::BadPort(25),
            NetworkError::Blocked("mixed content".into()),
            NetworkError::Cors("no Access-Control-Allow-Origin".into()),
            NetworkError::InvalidRequest("Content-Length disagrees with the body".into()),
            NetworkError::BodyTooLarge { limit: 1 },
            NetworkError::TooManyRedirects { max: 20 },
            NetworkError::Integrity,
            NetworkError::Timeout {
                kind: TimeoutKind::Total,
                after: ms(1),
            },
            NetworkError::Other("other".into()),
        ];
        for error in lasting {
            let shown = error.to_string();
            assert!(!policy.retries(&network_error(error)), "{shown}");
        }
    }

    #[test]
    fn a_refusal_by_a_proxy_is_retried_only_when_it_may_pass() {
        let refused = |status: u16| {
            NetworkError::Connect(Box::new(ProxyRefused::new(
                http::StatusCode::from_u16(status).unwrap(),
                "http://127.0.0.1:3128".into(),
                "example.com:443".into(),
            )))
        };
        assert!(is_transient(&refused(503)));
        assert!(is_transient(&refused(502)));
        assert!(!is_transient(&refused(407)));
        assert!(!is_transient(&refused(403)));
    }

    fn get(url: &str) -> Request {
        Request::new(url, crate::RequestInit::default()).unwrap()
    }

    fn with_body(method: &str, body: crate::BodyInit) -> Request {
        let init = crate::RequestInit {
            method: Some(method.into()),
            body: Some(body),
            duplex: Some(crate::RequestDuplex::Half),
            ..Default::default()
        };
        Request::new("http://example.test/", init).unwrap()
    }

    #[test]
    fn only_requests_of_the_methods_with_a_body_to_send_again_are_replayed() {
        let policy = RetryPolicy::new();
        assert!(policy.replay(&get("http://example.test/")).is_some());
        assert!(policy.replay(&with_body("PUT", "text".into())).is_some());
        assert!(
            policy
                .replay(&with_body(
                    "DELETE",
                    crate::Blob::new([&b"x"[..]], Default::default()).into()
                ))
                .is_some()
        );
        assert!(policy.replay(&with_body("POST", "text".into())).is_none());
        assert!(policy.replay(&with_body("PATCH", "text".into())).is_none());
        let stream = || {
            crate::BodyInit::stream(futures_util::stream::iter([Ok::<_, std::io::Error>(
                Bytes::from_static(b"chunk"),
            )]))
        };
        assert!(policy.replay(&with_body("PUT", stream())).is_none());
        // Naming POST lets it be retried, but never with a stream body.
        let posts = RetryPolicy::new().methods(["post", "GET"]);
        assert!(posts.replay(&with_body("POST", "text".into())).is_some());
        assert!(posts.replay(&with_body("POST", stream())).is_none());
        assert!(posts.replay(&with_body("PUT", "text".into())).is_none());
        // One attempt needs no copy.
        let once = RetryPolicy::new().max_attempts(0);
        assert!(once.replay(&get("http://example.test/")).is_none());
    }

    #[tokio::test]
    async fn a_replayed_request_sends_the_same_body_and_headers_again() {
        let mut original = with_body("PUT", "the same bytes".into());
        original.headers_mut().set("x-key", "1").unwrap();
        let replay = RetryPolicy::new().replay(&original).unwrap();
        for _ in 0..2 {
            let mut copy = replay.request();
            assert_eq!(copy.method(), "PUT");
            assert_eq!(copy.url(), "http://example.test/");
            assert_eq!(copy.headers().get("x-key").unwrap().as_deref(), Some("1"));
            assert_eq!(copy.body().and_then(|body| body.length()), Some(14));
            assert_eq!(copy.text().await.unwrap(), "the same bytes");
        }
    }

    #[test]
    fn the_budget_allows_its_ratio_of_the_deposits() {
        let start = Instant::now();
        let budget = Budget::new(RetryBudget::new(0.2, 0), start);
        assert!(!budget.withdraw(start), "nothing deposited yet");
        for _ in 0..10 {
            budget.deposit(start);
        }
        assert!(budget.withdraw(start));
        assert!(budget.withdraw(start));
        assert!(!budget.withdraw(start), "two retries for ten fetches");
        // Deposits later in the window add up with the earlier ones.
        for _ in 0..5 {
            budget.deposit(start + Duration::from_secs(9));
        }
        assert!(budget.withdraw(start + Duration::from_secs(9)));
        assert!(!budget.withdraw(start + Duration::from_secs(9)));
    }

    #[test]
    fn the_budget_forgets_what_left_the_window() {
        let start = Instant::now();
        let budget = Budget::new(RetryBudget::new(0.5, 0), start);
        for _ in 0..4 {
            budget.deposit(start);
        }
        // Ten seconds later the deposits have expired.
        assert!(!budget.withdraw(start + Duration::from_secs(10)));
        for _ in 0..4 {
            budget.deposit(start + Duration::from_secs(10));
        }
        assert!(budget.withdraw(start + Duration::from_secs(11)));
        assert!(budget.withdraw(start + Duration::from_secs(11)));
        assert!(!budget.withdraw(start + Duration::from_secs(11)));
        // The withdrawals expire with the deposits, long after.
        for _ in 0..2 {
            budget.deposit(start + Duration::from_secs(1000));
        }
        assert!(budget.withdraw(start + Duration::from_secs(1000)));
    }

    #[test]
    fn the_budget_allows_its_minimum_a_second_without_deposits() {
        let start = Instant::now();
        let budget = Budget::new(RetryBudget::new(0.0, 2), start);
        // Two a second over the ten-second window: twenty.
        for _ in 0..20 {
            assert!(budget.withdraw(start + Duration::from_secs(1)));
        }
        assert!(!budget.withdraw(start + Duration::from_secs(1)));
        // Deposits add nothing at a ratio of 0.
        budget.deposit(start + Duration::from_secs(2));
        assert!(!budget.withdraw(start + Duration::from_secs(2)));
        // Once the withdrawals leave the window, the reserve is whole again.
        assert!(budget.withdraw(start + Duration::from_secs(11)));
    }

    #[test]
    fn a_budget_ratio_out_of_range_is_held_within_it() {
        assert_eq!(RetryBudget::new(f64::NAN, 0).ratio(), 0.0);
        assert_eq!(RetryBudget::new(-1.0, 0).ratio(), 0.0);
        assert_eq!(RetryBudget::new(1e12, 0).ratio(), 1000.0);
        let start = Instant::now();
        let budget = Budget::new(RetryBudget::new(f64::INFINITY, u32::MAX), start);
        budget.deposit(start);
        assert!(budget.withdraw(start));
    }
}
