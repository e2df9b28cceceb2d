//! A mock [`Transport`] for tests: requests answered by interceptors and recorded, with no
//! network, as undici's `MockAgent` does for Node and wiremock for reqwest.
//!
//! Only with the `mock` feature (off by default).
//!
//! A [`MockTransport`] sits where the network would: a [`Client`](crate::Client) built with
//! [`ClientBuilder::transport`](crate::ClientBuilder::transport) runs the whole fetch
//! algorithm above it (redirects, CORS and its preflights, cookies, the HTTP cache, content
//! decoding, abort signals and timeouts), and only the last step, sending one HTTP request,
//! is answered here.
//!
//! ```
//! use std::sync::Arc;
//! use whatwg_fetch::mock::{MockResponse, MockTransport};
//! use whatwg_fetch::{Client, RequestInit};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), whatwg_fetch::Error> {
//! let mock = MockTransport::new();
//! mock.intercept("GET", "https://api.example/users/1")?
//!     .header("accept", "application/json")
//!     .reply(MockResponse::json(200, &serde_json::json!({ "id": 1, "name": "Ada" })));
//!
//! let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
//! let mut response = client
//!     .fetch("https://api.example/users/1", RequestInit {
//!         headers: Some([("accept", "application/json")].into()),
//!         ..Default::default()
//!     })
//!     .await?;
//! let user: serde_json::Value = response.json().await?;
//! assert_eq!(user["name"], "Ada");
//!
//! // Every request is recorded, and every interceptor has been used.
//! assert_eq!(mock.calls().len(), 1);
//! assert_eq!(mock.calls()[0].uri().path(), "/users/1");
//! mock.assert_all_used();
//! # Ok(())
//! # }
//! ```
//!
//! # Matching
//!
//! [`MockTransport::intercept`] takes a method and a URL, and returns an [`Intercept`] to
//! narrow down further; `reply` registers it. A request matches an interceptor when all of
//! these hold:
//!
//! - **origin**: the URL's scheme, host and port (`https://api.example` is port 443);
//! - **method**: exactly, as the request sends it (fetch upper-cases `get`, `post`, `put`,
//!   `delete`, `head` and `options`, but sends `patch` as written);
//! - **path**: exactly the URL's path, or [`path_prefix`](Intercept::path_prefix), or
//!   [`path_matches`](Intercept::path_matches) with a closure;
//! - **query**: the URL's query pairs, in any order, and no others (no query in the URL
//!   means the request has none), or [`query_matches`](Intercept::query_matches), or
//!   [`any_query`](Intercept::any_query);
//! - **headers**: each [`header`](Intercept::header) present with that value,
//!   [`without_header`](Intercept::without_header) absent, and each
//!   [`headers_match`](Intercept::headers_match) closure satisfied; other headers are
//!   ignored;
//! - **body**: if given, exactly these bytes ([`body`](Intercept::body)), the same JSON
//!   value ([`body_json`](Intercept::body_json)), or a closure
//!   ([`body_matches`](Intercept::body_matches)).
//!
//! Interceptors are tried in the order they were registered; the first that matches and is
//! not used up answers. An interceptor answers once, unless told
//! [`times(n)`](MockScope::times) or [`persist()`](MockScope::persist); it can wait
//! first ([`delay`](MockScope::delay)). It answers with a [`MockResponse`] (status,
//! headers, body), one made by a closure from the request
//! ([`reply_with`](Intercept::reply_with)), or a [`NetworkError`]
//! ([`reply_error`](Intercept::reply_error), for instance [`connection_refused`]).
//!
//! A request body, even a stream, is read whole before matching, up to
//! [`max_body_size`](MockTransport::max_body_size) (16 MiB by default; a larger body fails
//! the request with [`NetworkError::InvalidRequest`]).
//!
//! # Unmatched requests
//!
//! A request that no interceptor matches fails with a [`NetworkError::Connect`] whose
//! source is a [`MockNotMatched`]: the request did not reach any server, as with the
//! network cut off. Its message names the request and the nearest interceptors with what
//! differs:
//!
//! ```text
//! connect failed: no mock interceptor matched GET https://api.example/users/2; nearest:
//! GET https://api.example/users/1 → 200 (path differs)
//! ```
//!
//! No request reaches the network unless asked: with
//! [`passthrough`](MockTransport::passthrough) (a real transport) and
//! [`enable_net_connect`](MockTransport::enable_net_connect) (the hosts allowed), an
//! unmatched request to an allowed host is sent through that transport instead.
//!
//! # Assertions
//!
//! [`calls`](MockTransport::calls) lists every request in order (method, URI, headers,
//! body, and which interceptor answered); [`pending_interceptors`](MockTransport::pending_interceptors)
//! lists the interceptors not used up, and [`assert_all_used`](MockTransport::assert_all_used)
//! panics with that list, as undici's `assertNoPendingInterceptors` throws.

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::Duration;

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Uri};
use http_body_util::BodyExt;
use url::Url;

use crate::error::{Error, NetworkError};
use crate::net::{RequestBody, ResponseBody, SendOptions, Transport, TransportFuture};

/// The default of [`MockTransport::max_body_size`]: 16 MiB.
///
/// ```
/// use whatwg_fetch::mock::{DEFAULT_MAX_BODY_SIZE, MockTransport};
///
/// let mock = MockTransport::new();
/// // Uploads of up to 64 MiB seen whole by the interceptors.
/// mock.max_body_size(DEFAULT_MAX_BODY_SIZE * 4);
/// ```
pub const DEFAULT_MAX_BODY_SIZE: u64 = 16 << 20;

/// How many of the nearest interceptors an unmatched request's error names.
const NEAREST: usize = 3;

/// The most bytes of a body an interceptor's description quotes.
const QUOTED_BODY: usize = 40;

/// A [`Transport`] that answers requests from interceptors and records them (see the
/// [module documentation](self)).
///
/// Cheap to clone: clones share the interceptors and the recorded calls, so a test keeps
/// one and gives the [`Client`](crate::Client) another.
///
/// ```
/// use std::sync::Arc;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::mock::MockTransport;
///
/// let mock = MockTransport::new();
/// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct MockTransport {
    shared: Arc<Shared>,
}

#[derive(Default)]
struct Shared {
    state: Mutex<State>,
}

struct State {
    interceptors: Vec<Arc<Interceptor>>,
    calls: Vec<MockCall>,
    passthrough: Option<Arc<dyn Transport>>,
    net_connect: NetConnect,
    max_body_size: u64,
}

impl Default for State {
    fn default() -> State {
        State {
            interceptors: Vec::new(),
            calls: Vec::new(),
            passthrough: None,
            net_connect: NetConnect::Disabled,
            max_body_size: DEFAULT_MAX_BODY_SIZE,
        }
    }
}

/// Which unmatched requests may go to the passthrough transport.
enum NetConnect {
    Disabled,
    /// Hosts (`example.com`) or hosts with a port (`127.0.0.1:8080`), lowercase.
    Hosts(Vec<String>),
    All,
}

impl NetConnect {
    fn allows(&self, url: &Url) -> bool {
        match self {
            NetConnect::Disabled => false,
            NetConnect::All => true,
            NetConnect::Hosts(hosts) => {
                let host = url.host_str().unwrap_or_default();
                let port = url.port_or_known_default().unwrap_or_default();
                hosts.iter().any(|allowed| {
                    allowed == host
                        || allowed
                            .strip_suffix(&format!(":{port}"))
                            .is_some_and(|allowed| allowed == host)
                })
            }
        }
    }
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl MockTransport {
    /// A mock with no interceptors: every request fails until one is registered. Real
    /// network connections are disabled.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::MockTransport;
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// // Nothing is registered yet: a request fails (and is recorded).
    /// assert!(client.get("https://api.example/").send().await.is_err());
    /// assert_eq!(mock.calls().len(), 1);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn new() -> MockTransport {
        MockTransport::default()
    }

    /// Starts an interceptor for `method` requests to `url`: its origin, its path exactly
    /// and its query pairs (in any order, and no others). Narrow it down further with the
    /// [`Intercept`] methods, and register it with [`reply`](Intercept::reply),
    /// [`reply_with`](Intercept::reply_with) or [`reply_error`](Intercept::reply_error).
    ///
    /// `method` is compared exactly with the request's (fetch upper-cases `get`, `post`,
    /// `put`, `delete`, `head` and `options`, but not `patch`); a fragment of `url` is
    /// ignored, as it is never sent.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/search?q=rust&page=2")?
    ///     .reply(MockResponse::new(200).body("results"));
    /// // Another value, or another pair, is another request; the order of the pairs is not.
    /// assert!(client.get("https://api.example/search?q=rust&page=3").send().await.is_err());
    /// let mut response = client.get("https://api.example/search?page=2&q=rust").send().await?;
    /// assert_eq!(response.text().await?, "results");
    ///
    /// // A method that is not a token, or a URL that is not http: or https:, is refused.
    /// assert!(mock.intercept("GET /", "https://api.example/").is_err());
    /// assert!(mock.intercept("GET", "ftp://files.example/").is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// A `TypeError` when `method` is not a valid method token, or `url` is not an
    /// absolute `http:` or `https:` URL.
    pub fn intercept(&self, method: &str, url: &str) -> Result<Intercept, Error> {
        let method = Method::from_bytes(method.as_bytes()).map_err(|error| {
            Error::type_error(format!(
                "mock interceptor: {method:?} is not a valid method"
            ))
            .with_source(error)
        })?;
        let url = Url::parse(url).map_err(|error| {
            Error::type_error(format!("mock interceptor: {url:?} is not a valid URL"))
                .with_source(error)
        })?;
        if !matches!(url.scheme(), "http" | "https") {
            return Err(Error::type_error(format!(
                "mock interceptor: {url} is not an http: or https: URL"
            )));
        }
        Ok(Intercept {
            shared: self.shared.clone(),
            matcher: Matcher {
                origin: url.origin(),
                method,
                path: PathMatch::Exact(url.path().to_owned()),
                query: QueryMatch::Exact(sorted_pairs(&url)),
                headers: Vec::new(),
                body: None,
            },
        })
    }

    /// Sends requests that no interceptor matches through `transport` (a real one, such
    /// as [`HyperTransport`](crate::net::HyperTransport)), when their host is allowed by
    /// [`enable_net_connect`](Self::enable_net_connect) or
    /// [`enable_net_connect_all`](Self::enable_net_connect_all). The request body, already
    /// read for matching, goes out as one buffer.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap().to_string();
    /// # tokio::spawn(async move {
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 4\r\n\r\nlive").await;
    /// #     }
    /// # });
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{CallOutcome, MockResponse, MockTransport};
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// let mock = MockTransport::new();
    /// mock.intercept("GET", &format!("http://{addr}/mocked"))?
    ///     .reply(MockResponse::new(200).body("mocked"));
    /// mock.passthrough(Arc::new(HyperTransport::new()?)).enable_net_connect("127.0.0.1");
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    ///
    /// // `addr`: a server on 127.0.0.1 that answers "live".
    /// let mocked = client.get(format!("http://{addr}/mocked")).send().await?.text().await?;
    /// let live = client.get(format!("http://{addr}/other")).send().await?.text().await?;
    /// assert_eq!((mocked.as_str(), live.as_str()), ("mocked", "live"));
    /// assert_eq!(mock.calls()[1].outcome(), CallOutcome::Passthrough);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is none: an unmatched request fails.
    pub fn passthrough(&self, transport: Arc<dyn Transport>) -> &MockTransport {
        self.shared.lock().passthrough = Some(transport);
        self
    }

    /// Lets unmatched requests to `host` go to the [`passthrough`](Self::passthrough)
    /// transport: a host name or address (`localhost`, `127.0.0.1`, `[::1]`), for any
    /// port, or one with a port (`127.0.0.1:8080`). May be called for several hosts.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap().to_string();
    /// # tokio::spawn(async move {
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 4\r\n\r\nlive").await;
    /// #     }
    /// # });
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{CallOutcome, MockTransport};
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// let mock = MockTransport::new();
    /// mock.passthrough(Arc::new(HyperTransport::new()?));
    /// // `addr`: a server on 127.0.0.1 that answers "live"; only its port is let through.
    /// mock.enable_net_connect(&addr);
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    ///
    /// assert_eq!(client.get(format!("http://{addr}/")).send().await?.text().await?, "live");
    /// // Another host fails without leaving the machine.
    /// assert!(client.get("https://example.com/").send().await.is_err());
    /// assert_eq!(mock.calls()[1].outcome(), CallOutcome::Unmatched);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is no host: no request reaches the network.
    pub fn enable_net_connect(&self, host: &str) -> &MockTransport {
        let host = host.to_ascii_lowercase();
        let mut state = self.shared.lock();
        match &mut state.net_connect {
            NetConnect::Hosts(hosts) => hosts.push(host),
            NetConnect::All => {}
            net_connect @ NetConnect::Disabled => *net_connect = NetConnect::Hosts(vec![host]),
        }
        self
    }

    /// Lets every unmatched request go to the [`passthrough`](Self::passthrough)
    /// transport.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap().to_string();
    /// # tokio::spawn(async move {
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 4\r\n\r\nlive").await;
    /// #     }
    /// # });
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{CallOutcome, MockTransport};
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// let mock = MockTransport::new();
    /// mock.passthrough(Arc::new(HyperTransport::new()?)).enable_net_connect_all();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    ///
    /// // No interceptor at all: every request goes to the network (here, a server on 127.0.0.1).
    /// assert_eq!(client.get(format!("http://{addr}/")).send().await?.text().await?, "live");
    /// assert_eq!(mock.calls()[0].outcome(), CallOutcome::Passthrough);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn enable_net_connect_all(&self) -> &MockTransport {
        self.shared.lock().net_connect = NetConnect::All;
        self
    }

    /// Lets no unmatched request reach the network again: the default.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap().to_string();
    /// # tokio::spawn(async move {
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 4\r\n\r\nlive").await;
    /// #     }
    /// # });
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{CallOutcome, MockTransport};
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// let mock = MockTransport::new();
    /// mock.passthrough(Arc::new(HyperTransport::new()?)).enable_net_connect_all();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// let url = format!("http://{addr}/");
    /// assert_eq!(client.get(&url).send().await?.text().await?, "live");
    ///
    /// // Cut off again: with no interceptor for it, the same request fails.
    /// mock.disable_net_connect();
    /// assert!(client.get(&url).send().await.is_err());
    /// assert_eq!(mock.calls()[1].outcome(), CallOutcome::Unmatched);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn disable_net_connect(&self) -> &MockTransport {
        self.shared.lock().net_connect = NetConnect::Disabled;
        self
    }

    /// The largest request body read for matching; a larger one fails its request with
    /// [`NetworkError::InvalidRequest`] before any interceptor sees it.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::{Client, NetworkError};
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.max_body_size(4);
    /// mock.intercept("POST", "https://api.example/upload")?
    ///     .reply(MockResponse::new(204))
    ///     .persist();
    /// let response = client.post("https://api.example/upload").body("tiny").send().await?;
    /// assert_eq!(response.status(), 204);
    ///
    /// // Five bytes: the request fails before any interceptor sees it, and is not recorded.
    /// let Err(error) = client.post("https://api.example/upload").body("large").send().await else {
    ///     panic!("answered");
    /// };
    /// assert!(matches!(error.network_error(), Some(NetworkError::InvalidRequest(_))));
    /// assert_eq!(mock.calls().len(), 1);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is [`DEFAULT_MAX_BODY_SIZE`], 16 MiB.
    pub fn max_body_size(&self, max: u64) -> &MockTransport {
        self.shared.lock().max_body_size = max;
        self
    }

    /// Every request sent through this transport, in order, whether an interceptor
    /// answered it or not (a request whose body could not be read is not among them).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{CallOutcome, MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("POST", "https://api.example/items")?.reply(MockResponse::new(201));
    /// client.post("https://api.example/items").body("pen").send().await?;
    /// // Unmatched, and recorded all the same.
    /// assert!(client.get("https://api.example/items").send().await.is_err());
    ///
    /// let calls = mock.calls();
    /// assert_eq!(calls.len(), 2);
    /// assert_eq!(calls[0].method(), "POST");
    /// assert_eq!(calls[0].body_text(), "pen");
    /// assert_eq!(calls[1].outcome(), CallOutcome::Unmatched);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn calls(&self) -> Vec<MockCall> {
        self.shared.lock().calls.clone()
    }

    /// Forgets the recorded calls; the interceptors stay.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/health")?
    ///     .reply(MockResponse::new(200))
    ///     .persist();
    /// client.get("https://api.example/health").send().await?;
    /// mock.clear_calls();
    /// assert!(mock.calls().is_empty());
    ///
    /// // The interceptor still answers.
    /// assert_eq!(client.get("https://api.example/health").send().await?.status(), 200);
    /// assert_eq!(mock.calls().len(), 1);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn clear_calls(&self) {
        self.shared.lock().calls.clear();
    }

    /// The interceptors not used up: one that answers `n` times and answered fewer, and
    /// a [persistent](MockScope::persist) one that never answered. Empty when every
    /// interceptor has done its work.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/a")?.reply(MockResponse::new(200)).times(2);
    /// mock.intercept("GET", "https://api.example/b")?.reply(MockResponse::new(200)).persist();
    /// mock.intercept("GET", "https://api.example/c")?.reply(MockResponse::new(200));
    /// client.get("https://api.example/a").send().await?;
    /// client.get("https://api.example/c").send().await?;
    ///
    /// // `/c` has done its work; `/a` answered once of twice, `/b` never.
    /// let pending = mock.pending_interceptors();
    /// let pending: Vec<String> = pending.iter().map(|p| p.to_string()).collect();
    /// assert_eq!(pending, [
    ///     "GET https://api.example/a → 200 (used 1 of 2 times)",
    ///     "GET https://api.example/b → 200 (persistent, never used)",
    /// ]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn pending_interceptors(&self) -> Vec<PendingInterceptor> {
        let interceptors = self.shared.lock().interceptors.clone();
        interceptors
            .iter()
            .filter_map(|interceptor| {
                let usage = interceptor.usage();
                let pending = match usage.times {
                    Times::Exactly(times) => usage.used < times,
                    Times::Persist => usage.used == 0,
                };
                pending.then(|| PendingInterceptor {
                    description: interceptor.to_string(),
                    used: usage.used,
                    times: match usage.times {
                        Times::Exactly(times) => Some(times),
                        Times::Persist => None,
                    },
                })
            })
            .collect()
    }

    /// Asserts that every interceptor has been used up (see
    /// [`pending_interceptors`](Self::pending_interceptors)).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/users/1")?.reply(MockResponse::new(200));
    /// client.get("https://api.example/users/1").send().await?;
    /// // The test asked for everything it meant to.
    /// mock.assert_all_used();
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Panics
    /// When some are pending, with a message listing them:
    ///
    /// ```text
    /// 1 mock interceptor is pending:
    ///   GET https://api.example/users/1 → 200 (used 0 of 1 times)
    /// ```
    #[track_caller]
    // An assertion for tests: panicking, as `assert!` does, is what it is asked to do.
    #[allow(clippy::panic)]
    pub fn assert_all_used(&self) {
        let pending = self.pending_interceptors();
        if pending.is_empty() {
            return;
        }
        let (count, verb) = match pending.len() {
            1 => ("1 mock interceptor".to_owned(), "is"),
            n => (format!("{n} mock interceptors"), "are"),
        };
        let list: Vec<String> = pending.iter().map(|p| format!("  {p}")).collect();
        panic!("{count} {verb} pending:\n{}", list.join("\n"));
    }
}

impl fmt::Debug for MockTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.shared.lock();
        f.debug_struct("MockTransport")
            .field("interceptors", &state.interceptors.len())
            .field("calls", &state.calls.len())
            .field("passthrough", &state.passthrough.is_some())
            .finish_non_exhaustive()
    }
}

impl Transport for MockTransport {
    fn send(&self, request: http::Request<RequestBody>, options: SendOptions) -> TransportFuture {
        let shared = self.shared.clone();
        Box::pin(async move { shared.send(request, options).await })
    }
}

impl Shared {
    async fn send(
        self: Arc<Shared>,
        request: http::Request<RequestBody>,
        options: SendOptions,
    ) -> Result<http::Response<ResponseBody>, NetworkError> {
        let max_body_size = self.lock().max_body_size;
        let (parts, body) = request.into_parts();
        let body = read_body(body, max_body_size).await?;
        let mut call = MockCall {
            method: parts.method,
            uri: parts.uri,
            headers: parts.headers,
            body,
            outcome: CallOutcome::Unmatched,
        };
        let url = Url::parse(&call.uri.to_string()).ok();
        let interceptors = self.lock().interceptors.clone();
        // The first interceptor that matches and still has an answer left; the claim is
        // made under the interceptor's own lock, so that two requests racing for its last
        // answer cannot both have it.
        let found = url.as_ref().and_then(|url| {
            interceptors
                .iter()
                .find(|interceptor| interceptor.matcher.matches(&call, url) && interceptor.claim())
        });
        if let Some(interceptor) = found {
            call.outcome = CallOutcome::Matched(interceptor.index);
            self.lock().calls.push(call.clone());
            let delay = interceptor.usage().delay;
            if let Some(delay) = delay {
                tokio::time::sleep(delay).await;
            }
            let response = interceptor.reply.respond(&call)?;
            return if options.decode_content {
                crate::net::decode_response_with(response, options.decode_codings)
            } else {
                Ok(response)
            };
        }
        // Unmatched: through to the network if this host is allowed, or an error.
        let (passthrough, allowed) = {
            let state = self.lock();
            let allowed = url
                .as_ref()
                .is_some_and(|url| state.net_connect.allows(url));
            (state.passthrough.clone(), allowed)
        };
        if let (Some(transport), true) = (passthrough.as_ref(), allowed) {
            call.outcome = CallOutcome::Passthrough;
            self.lock().calls.push(call.clone());
            let mut forwarded = http::Request::new(RequestBody::full(call.body));
            *forwarded.method_mut() = call.method;
            *forwarded.uri_mut() = call.uri;
            *forwarded.version_mut() = parts.version;
            *forwarded.headers_mut() = call.headers;
            return transport.send(forwarded, options).await;
        }
        self.lock().calls.push(call.clone());
        // An allowed host with a passthrough transport went through above.
        let network = if allowed {
            NetConnectNote::NoPassthrough
        } else {
            NetConnectNote::Disabled
        };
        Err(NetworkError::Connect(Box::new(MockNotMatched::new(
            &call,
            url.as_ref(),
            &interceptors,
            network,
        ))))
    }
}

/// Reads a request body whole, up to `max` bytes.
async fn read_body(mut body: RequestBody, max: u64) -> Result<Bytes, NetworkError> {
    let too_large = || {
        NetworkError::InvalidRequest(Cow::Owned(format!(
            "request body larger than the mock transport's limit of {max} bytes \
             (MockTransport::max_body_size)"
        )))
    };
    if http_body::Body::size_hint(&body)
        .exact()
        .is_some_and(|length| length > max)
    {
        return Err(too_large());
    }
    let mut bytes = BytesMut::new();
    while let Some(frame) = body.frame().await {
        // An error from a stream body aborts the request, as it does over a connection.
        let frame = frame.map_err(NetworkError::Protocol)?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let length = bytes.len().saturating_add(data.len());
        if !u64::try_from(length).is_ok_and(|length| length <= max) {
            return Err(too_large());
        }
        bytes.extend_from_slice(&data);
    }
    Ok(bytes.freeze())
}

/// The query pairs of `url`, decoded and sorted, so that their order does not matter.
fn sorted_pairs(url: &Url) -> Vec<(String, String)> {
    let mut pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
    pairs.sort();
    pairs
}

/// An interceptor being built: what a request must look like. Register it with
/// [`reply`](Intercept::reply), [`reply_with`](Intercept::reply_with) or
/// [`reply_error`](Intercept::reply_error); made by [`MockTransport::intercept`].
///
/// ```
/// # tokio_test::block_on(async {
/// use std::sync::Arc;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::mock::{MockResponse, MockTransport};
///
/// let mock = MockTransport::new();
/// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
/// // What the request must look like, then what it gets.
/// mock.intercept("POST", "https://api.example/users")?
///     .header("content-type", "application/json")
///     .reply(MockResponse::new(201));
/// let response = client.post("https://api.example/users").json(&serde_json::json!({"name": "Ada"})).send().await?;
/// assert_eq!(response.status(), 201);
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
#[must_use = "an interceptor is registered only by reply, reply_with or reply_error"]
pub struct Intercept {
    shared: Arc<Shared>,
    matcher: Matcher,
}

impl Intercept {
    /// Matches a request whose path starts with `prefix` (`/static/` matches
    /// `/static/app.js`), instead of the URL's path exactly. The path is compared as it is
    /// sent, percent-encoded.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://cdn.example/")?
    ///     .path_prefix("/static/")
    ///     .reply(MockResponse::new(200).body("asset"))
    ///     .persist();
    /// for asset in ["/static/app.js", "/static/css/site.css"] {
    ///     let url = format!("https://cdn.example{asset}");
    ///     assert_eq!(client.get(url).send().await?.status(), 200);
    /// }
    /// assert!(client.get("https://cdn.example/index.html").send().await.is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn path_prefix(mut self, prefix: impl Into<String>) -> Intercept {
        self.matcher.path = PathMatch::Prefix(prefix.into());
        self
    }

    /// Matches a request whose path (percent-encoded, as sent) `matches` accepts, instead
    /// of the URL's path exactly.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// // `/users/` and a number.
    /// mock.intercept("GET", "https://api.example/")?
    ///     .path_matches(|path| {
    ///         path.strip_prefix("/users/")
    ///             .is_some_and(|id| id.parse::<u32>().is_ok())
    ///     })
    ///     .reply(MockResponse::new(200))
    ///     .persist();
    /// assert_eq!(client.get("https://api.example/users/42").send().await?.status(), 200);
    /// assert!(client.get("https://api.example/users/me").send().await.is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn path_matches(
        mut self,
        matches: impl Fn(&str) -> bool + Send + Sync + 'static,
    ) -> Intercept {
        self.matcher.path = PathMatch::Fn(Arc::new(matches));
        self
    }

    /// Matches a request whose query pairs (decoded, in the order sent) `matches` accepts,
    /// instead of the URL's pairs exactly.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// // A `q` of "rust programming", whatever else the query holds.
    /// mock.intercept("GET", "https://api.example/search")?
    ///     .query_matches(|pairs| {
    ///         pairs.iter().any(|(name, value)| name == "q" && value == "rust programming")
    ///     })
    ///     .reply(MockResponse::new(200))
    ///     .persist();
    /// let url = "https://api.example/search?page=2&q=rust+programming";
    /// assert_eq!(client.get(url).send().await?.status(), 200);
    /// assert!(client.get("https://api.example/search?q=go").send().await.is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn query_matches(
        mut self,
        matches: impl Fn(&[(String, String)]) -> bool + Send + Sync + 'static,
    ) -> Intercept {
        self.matcher.query = QueryMatch::Fn(Arc::new(matches));
        self
    }

    /// Matches a request whatever its query.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/items")?
    ///     .any_query()
    ///     .reply(MockResponse::new(200))
    ///     .persist();
    /// for url in ["https://api.example/items?page=3&sort=name", "https://api.example/items"] {
    ///     assert_eq!(client.get(url).send().await?.status(), 200);
    /// }
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn any_query(mut self) -> Intercept {
        self.matcher.query = QueryMatch::Any;
        self
    }

    /// Matches a request with a header `name` (any case) whose value is `value`: one of
    /// the values, or all of them joined by `, `.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/me")?
    ///     .header("Authorization", "Bearer t0k3n")
    ///     .reply(MockResponse::new(200));
    /// let me = "https://api.example/me";
    /// assert!(client.get(me).bearer_auth("expired").send().await.is_err());
    /// assert_eq!(client.get(me).bearer_auth("t0k3n").send().await?.status(), 200);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn header(mut self, name: &str, value: impl AsRef<[u8]>) -> Intercept {
        self.matcher.headers.push(HeaderMatch::Equals(
            name.to_ascii_lowercase(),
            Bytes::copy_from_slice(value.as_ref()),
        ));
        self
    }

    /// Matches a request without a header `name` (any case).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// // A 401 for a request without credentials; one with them is for another interceptor.
    /// mock.intercept("GET", "https://api.example/me")?
    ///     .without_header("authorization")
    ///     .reply(MockResponse::new(401))
    ///     .persist();
    /// assert_eq!(client.get("https://api.example/me").send().await?.status(), 401);
    /// assert!(client.get("https://api.example/me").bearer_auth("t0k3n").send().await.is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn without_header(mut self, name: &str) -> Intercept {
        self.matcher
            .headers
            .push(HeaderMatch::Absent(name.to_ascii_lowercase()));
        self
    }

    /// Matches a request whose headers `matches` accepts.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder()
    ///     .user_agent("my-app/1.0")
    ///     .transport(Arc::new(mock.clone()))
    ///     .build()?;
    /// mock.intercept("GET", "https://api.example/")?
    ///     .headers_match(|headers| {
    ///         let agent = headers.get("user-agent");
    ///         agent.is_some_and(|agent| agent.as_bytes().starts_with(b"my-app/"))
    ///     })
    ///     .reply(MockResponse::new(200));
    /// assert_eq!(client.get("https://api.example/").send().await?.status(), 200);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn headers_match(
        mut self,
        matches: impl Fn(&HeaderMap) -> bool + Send + Sync + 'static,
    ) -> Intercept {
        self.matcher
            .headers
            .push(HeaderMatch::Fn(Arc::new(matches)));
        self
    }

    /// Matches a request whose body is exactly `body`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("POST", "https://api.example/echo")?
    ///     .body("ping")
    ///     .reply(MockResponse::new(200).body("pong"));
    /// assert!(client.post("https://api.example/echo").body("PING").send().await.is_err());
    /// let mut response = client.post("https://api.example/echo").body("ping").send().await?;
    /// assert_eq!(response.text().await?, "pong");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn body(mut self, body: impl Into<Bytes>) -> Intercept {
        self.matcher.body = Some(BodyMatch::Exact(body.into()));
        self
    }

    /// Matches a request whose body parses as JSON equal to `value` (whatever its spacing
    /// and the order of its members).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("POST", "https://api.example/users")?
    ///     .body_json(serde_json::json!({ "name": "Ada", "admin": false }))
    ///     .reply(MockResponse::new(201));
    /// // The members in another order, spaced otherwise: the same value.
    /// let response = client
    ///     .post("https://api.example/users")
    ///     .header("content-type", "application/json")
    ///     .body(r#"{ "admin": false, "name": "Ada" }"#)
    ///     .send()
    ///     .await?;
    /// assert_eq!(response.status(), 201);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn body_json(mut self, value: serde_json::Value) -> Intercept {
        self.matcher.body = Some(BodyMatch::Json(value));
        self
    }

    /// Matches a request whose body `matches` accepts.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("POST", "https://api.example/upload")?
    ///     .body_matches(|body| body.len() <= 1024)
    ///     .reply(MockResponse::new(204))
    ///     .persist();
    /// let upload = "https://api.example/upload";
    /// assert_eq!(client.post(upload).body(vec![0; 100]).send().await?.status(), 204);
    /// assert!(client.post(upload).body(vec![0; 4096]).send().await.is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn body_matches(
        mut self,
        matches: impl Fn(&[u8]) -> bool + Send + Sync + 'static,
    ) -> Intercept {
        self.matcher.body = Some(BodyMatch::Fn(Arc::new(matches)));
        self
    }

    /// Registers the interceptor, answering with `response`; once, unless the returned
    /// [`MockScope`] says otherwise.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/status")?
    ///     .reply(MockResponse::new(200).body("up"));
    /// assert_eq!(client.get("https://api.example/status").send().await?.text().await?, "up");
    /// // Once only: a second request has no answer.
    /// assert!(client.get("https://api.example/status").send().await.is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn reply(self, response: MockResponse) -> MockScope {
        self.register(Reply::Response(response))
    }

    /// Registers the interceptor, answering with the response `respond` makes of the
    /// request.
    ///
    /// ```
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// // Echoes the request body.
    /// mock.intercept("POST", "http://echo.test/")?
    ///     .reply_with(|call| MockResponse::new(200).body(call.body().clone()))
    ///     .persist();
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn reply_with(
        self,
        respond: impl Fn(&MockCall) -> MockResponse + Send + Sync + 'static,
    ) -> MockScope {
        self.register(Reply::With(Arc::new(respond)))
    }

    /// Registers the interceptor, failing the request with the network error `error`
    /// makes (a [`NetworkError`] cannot be cloned, so each answer makes its own), such
    /// as [`connection_refused`]. The fetch rejects with a `TypeError` whose
    /// [`network_error`](Error::network_error) is it.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::{Client, ErrorKind, NetworkError};
    /// use whatwg_fetch::mock::{MockTransport, connection_refused};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/")?.reply_error(connection_refused);
    /// let Err(error) = client.get("https://api.example/").send().await else {
    ///     panic!("answered");
    /// };
    /// assert_eq!(error.kind(), ErrorKind::TypeError);
    /// assert!(matches!(error.network_error(), Some(NetworkError::Connect(_))));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn reply_error(
        self,
        error: impl Fn() -> NetworkError + Send + Sync + 'static,
    ) -> MockScope {
        self.register(Reply::Error(Arc::new(error)))
    }

    fn register(self, reply: Reply) -> MockScope {
        let mut state = self.shared.lock();
        let interceptor = Arc::new(Interceptor {
            index: state.interceptors.len(),
            matcher: self.matcher,
            reply,
            usage: Mutex::new(Usage {
                times: Times::Exactly(1),
                used: 0,
                delay: None,
            }),
        });
        state.interceptors.push(interceptor.clone());
        MockScope { interceptor }
    }
}

impl fmt::Debug for Intercept {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("Intercept")
            .field(&format_args!("{}", self.matcher))
            .finish()
    }
}

/// A registered interceptor: how many times it answers, and after what delay.
///
/// ```
/// use std::time::Duration;
/// use whatwg_fetch::mock::{MockResponse, MockTransport};
///
/// let mock = MockTransport::new();
/// mock.intercept("GET", "http://api.test/flaky")?
///     .reply(MockResponse::new(503))
///     .times(2)
///     .delay(Duration::from_millis(10));
/// mock.intercept("GET", "http://api.test/flaky")?.reply(MockResponse::new(200));
/// assert_eq!(mock.pending_interceptors().len(), 2);
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub struct MockScope {
    interceptor: Arc<Interceptor>,
}

impl MockScope {
    /// Answers `n` requests, then lets later ones go to the next interceptor that
    /// matches. Default is once.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// // Unavailable twice, then fine.
    /// mock.intercept("GET", "https://api.example/flaky")?.reply(MockResponse::new(503)).times(2);
    /// mock.intercept("GET", "https://api.example/flaky")?.reply(MockResponse::new(200));
    /// let mut statuses = Vec::new();
    /// for _ in 0..3 {
    ///     statuses.push(client.get("https://api.example/flaky").send().await?.status());
    /// }
    /// assert_eq!(statuses, [503, 503, 200]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn times(self, n: usize) -> MockScope {
        self.interceptor.usage().times = Times::Exactly(n);
        self
    }

    /// Answers every request that matches, for as long as the mock lives.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/config")?
    ///     .reply(MockResponse::new(200))
    ///     .persist();
    /// for _ in 0..5 {
    ///     assert_eq!(client.get("https://api.example/config").send().await?.status(), 200);
    /// }
    /// // Used at least once: not pending.
    /// assert!(mock.pending_interceptors().is_empty());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn persist(self) -> MockScope {
        self.interceptor.usage().times = Times::Persist;
        self
    }

    /// Waits `delay` before answering (the request is recorded at once): a slow server,
    /// for testing timeouts and abort signals, which cut the wait short. Default is no
    /// delay.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// use std::time::Duration;
    ///
    /// mock.intercept("GET", "https://api.example/slow")?
    ///     .reply(MockResponse::new(200))
    ///     .delay(Duration::from_secs(10));
    /// let request = client.get("https://api.example/slow").timeout(Duration::from_millis(50));
    /// let Err(error) = request.send().await else {
    ///     panic!("answered");
    /// };
    /// assert!(error.is_timeout());
    /// // The request was recorded all the same.
    /// assert_eq!(mock.calls().len(), 1);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn delay(self, delay: Duration) -> MockScope {
        self.interceptor.usage().delay = Some(delay);
        self
    }

    /// Which interceptor this is: its place in the order of registration, from 0, as
    /// [`CallOutcome::Matched`] names it.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{CallOutcome, MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// let ok = MockResponse::new(200);
    /// let users = mock.intercept("GET", "https://api.example/users")?.reply(ok.clone());
    /// let items = mock.intercept("GET", "https://api.example/items")?.reply(ok);
    /// assert_eq!((users.index(), items.index()), (0, 1));
    ///
    /// client.get("https://api.example/items").send().await?;
    /// assert_eq!(mock.calls()[0].outcome(), CallOutcome::Matched(items.index()));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn index(&self) -> usize {
        self.interceptor.index
    }
}

impl fmt::Debug for MockScope {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple("MockScope")
            .field(&format_args!("{}", self.interceptor))
            .finish()
    }
}

/// The response an interceptor answers with: a status, headers and a body.
///
/// Its status and headers are checked when it is sent: a status outside 100–999 or a header
/// that is not valid HTTP makes the request fail with [`NetworkError::Protocol`], as such a
/// response from a server would.
///
/// ```
/// use whatwg_fetch::mock::MockResponse;
///
/// let created = MockResponse::new(201)
///     .header("location", "/users/2")
///     .header("content-type", "text/plain")
///     .body("created");
/// let listing = MockResponse::json(200, &serde_json::json!([1, 2, 3]));
/// ```
#[derive(Clone, Debug)]
pub struct MockResponse {
    status: u16,
    headers: Vec<(Bytes, Bytes)>,
    body: Bytes,
}

impl MockResponse {
    /// A response with `status`, no headers and an empty body.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("DELETE", "https://api.example/users/1")?.reply(MockResponse::new(204));
    /// let mut response = client.delete("https://api.example/users/1").send().await?;
    /// assert_eq!(response.status(), 204);
    /// assert_eq!(response.text().await?, "");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn new(status: u16) -> MockResponse {
        MockResponse {
            status,
            headers: Vec::new(),
            body: Bytes::new(),
        }
    }

    /// A response with `status`, `Content-Type: application/json` and `value` as its
    /// body. A typed value becomes one with `serde_json::to_value`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// #[derive(serde::Serialize)]
    /// struct User {
    ///     id: u32,
    ///     name: &'static str,
    /// }
    ///
    /// let ada = serde_json::to_value(User { id: 1, name: "Ada" })?;
    /// mock.intercept("GET", "https://api.example/users/1")?.reply(MockResponse::json(200, &ada));
    /// let mut response = client.get("https://api.example/users/1").send().await?;
    /// assert_eq!(response.headers().get("content-type")?.as_deref(), Some("application/json"));
    /// let user: serde_json::Value = response.json().await?;
    /// assert_eq!(user["name"], "Ada");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn json(status: u16, value: &serde_json::Value) -> MockResponse {
        MockResponse::new(status)
            .header("content-type", "application/json")
            .body(value.to_string())
    }

    /// This response with the header `name: value` added after the others (several with
    /// one name are several fields, as `Set-Cookie` needs).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("POST", "https://app.example/login")?.reply(
    ///     MockResponse::new(200)
    ///         .header("set-cookie", "session=abc; Path=/; HttpOnly")
    ///         .header("set-cookie", "theme=dark; Path=/"),
    /// );
    /// let response = client.post("https://app.example/login").send().await?;
    /// let names: Vec<String> = response
    ///     .cookies()
    ///     .filter_map(|cookie| cookie.name().map(str::to_owned))
    ///     .collect();
    /// assert_eq!(names, ["session", "theme"]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn header(mut self, name: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> MockResponse {
        self.headers.push((
            Bytes::copy_from_slice(name.as_ref()),
            Bytes::copy_from_slice(value.as_ref()),
        ));
        self
    }

    /// This response with `body`. The body is sent as given: with a `Content-Encoding`
    /// header it is decoded as a server's would be.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/greeting")?.reply(
    ///     MockResponse::new(200)
    ///         .header("content-type", "text/plain; charset=utf-8")
    ///         .body("¡hola!"),
    /// );
    /// let mut response = client.get("https://api.example/greeting").send().await?;
    /// assert_eq!(response.text().await?, "¡hola!");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn body(mut self, body: impl Into<Bytes>) -> MockResponse {
        self.body = body.into();
        self
    }

    /// The status.
    ///
    /// ```
    /// use whatwg_fetch::mock::MockResponse;
    ///
    /// let response = MockResponse::new(404).body("not found");
    /// assert_eq!(response.status(), 404);
    /// ```
    pub fn status(&self) -> u16 {
        self.status
    }

    fn to_http(&self) -> Result<http::Response<ResponseBody>, NetworkError> {
        let invalid = |what: String| NetworkError::Protocol(what.into());
        let status = StatusCode::from_u16(self.status)
            .map_err(|_| invalid(format!("mock response status {} is invalid", self.status)))?;
        let mut headers = HeaderMap::with_capacity(self.headers.len());
        for (name, value) in &self.headers {
            let header_name = HeaderName::from_bytes(name).map_err(|_| {
                invalid(format!(
                    "mock response header name {:?} is invalid",
                    String::from_utf8_lossy(name)
                ))
            })?;
            let header_value = HeaderValue::from_maybe_shared(value.clone()).map_err(|_| {
                invalid(format!(
                    "mock response header {header_name} has an invalid value {:?}",
                    String::from_utf8_lossy(value)
                ))
            })?;
            headers.append(header_name, header_value);
        }
        let mut response = http::Response::new(ResponseBody::full(self.body.clone()));
        *response.status_mut() = status;
        *response.headers_mut() = headers;
        Ok(response)
    }
}

/// One request the mock received.
///
/// ```
/// # tokio_test::block_on(async {
/// use std::sync::Arc;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::mock::{MockResponse, MockTransport};
///
/// let mock = MockTransport::new();
/// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
/// mock.intercept("GET", "https://api.example/users/1")?.reply(MockResponse::new(200));
/// client.get("https://api.example/users/1").header("x-trace", "7f3a").send().await?;
/// let calls = mock.calls();
/// assert_eq!((calls[0].method().as_str(), calls[0].header("x-trace")), ("GET", Some("7f3a")));
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct MockCall {
    method: Method,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
    outcome: CallOutcome,
}

impl MockCall {
    /// The method.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("PUT", "https://api.example/users/1")?.reply(MockResponse::new(204));
    /// client.put("https://api.example/users/1").body("Ada").send().await?;
    /// assert_eq!(mock.calls()[0].method(), "PUT");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The absolute URI, as sent (`https://api.example/users?page=2`).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/users?page=2")?.reply(MockResponse::new(200));
    /// client.get("https://api.example/users?page=2#top").send().await?;
    /// let call = &mock.calls()[0];
    /// // Absolute, and without the fragment, which is never sent.
    /// assert_eq!(call.uri().to_string(), "https://api.example/users?page=2");
    /// assert_eq!(call.uri().query(), Some("page=2"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn uri(&self) -> &Uri {
        &self.uri
    }

    /// The headers, as fetch sent them (`Accept`, `User-Agent`, `Cookie`, …).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/")?.reply(MockResponse::new(200));
    /// client.get("https://api.example/").header("x-request-id", "42").send().await?;
    /// let headers = mock.calls()[0].headers().clone();
    /// assert_eq!(headers["x-request-id"], "42");
    /// // With those fetch adds.
    /// assert_eq!(headers["accept"], "*/*");
    /// assert!(headers.contains_key("user-agent"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn headers(&self) -> &HeaderMap {
        &self.headers
    }

    /// The value of header `name`, if it has exactly one that is text.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/")?.reply(MockResponse::new(200));
    /// client.get("https://api.example/").header("accept", "application/json").send().await?;
    /// let call = &mock.calls()[0];
    /// assert_eq!(call.header("accept"), Some("application/json"));
    /// assert_eq!(call.header("cookie"), None);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn header(&self, name: &str) -> Option<&str> {
        let mut values = self.headers.get_all(name).iter();
        match (values.next(), values.next()) {
            (Some(value), None) => value.to_str().ok(),
            _ => None,
        }
    }

    /// The body, read whole (empty when there was none).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("POST", "https://api.example/blobs")?.reply(MockResponse::new(201));
    /// mock.intercept("GET", "https://api.example/blobs")?.reply(MockResponse::new(200));
    /// client.post("https://api.example/blobs").body(vec![0, 1, 255]).send().await?;
    /// client.get("https://api.example/blobs").send().await?;
    /// let calls = mock.calls();
    /// assert_eq!(calls[0].body().as_ref(), [0, 1, 255]);
    /// assert!(calls[1].body().is_empty());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn body(&self) -> &Bytes {
        &self.body
    }

    /// The body as text, with invalid UTF-8 replaced.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("POST", "https://api.example/login")?.reply(MockResponse::new(200));
    /// client.post("https://api.example/login").form(&[("user", "Ada Lovelace")]).send().await?;
    /// assert_eq!(mock.calls()[0].body_text(), "user=Ada+Lovelace");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn body_text(&self) -> Cow<'_, str> {
        String::from_utf8_lossy(&self.body)
    }

    /// Who answered.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{CallOutcome, MockCall, MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/a")?.reply(MockResponse::new(200));
    /// client.get("https://api.example/a").send().await?;
    /// assert!(client.get("https://api.example/b").send().await.is_err());
    /// let outcomes: Vec<CallOutcome> = mock.calls().iter().map(MockCall::outcome).collect();
    /// assert_eq!(outcomes, [CallOutcome::Matched(0), CallOutcome::Unmatched]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn outcome(&self) -> CallOutcome {
        self.outcome
    }
}

/// Who answered a [`MockCall`].
///
/// ```
/// # tokio_test::block_on(async {
/// use std::sync::Arc;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::mock::{MockResponse, MockTransport};
///
/// let mock = MockTransport::new();
/// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
/// use whatwg_fetch::mock::CallOutcome;
///
/// mock.intercept("GET", "https://api.example/a")?.reply(MockResponse::new(200));
/// client.get("https://api.example/a").send().await?;
/// let _ = client.get("https://api.example/b").send().await;
/// let outcomes: Vec<CallOutcome> = mock.calls().iter().map(|call| call.outcome()).collect();
/// assert_eq!(outcomes, [CallOutcome::Matched(0), CallOutcome::Unmatched]);
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum CallOutcome {
    /// The interceptor registered `n`th, from 0 (see [`MockScope::index`]).
    Matched(usize),
    /// The [passthrough](MockTransport::passthrough) transport.
    Passthrough,
    /// Nobody: the request failed with a [`MockNotMatched`].
    Unmatched,
}

/// An interceptor not used up, from [`MockTransport::pending_interceptors`]; its `Display`
/// describes it: `GET https://api.example/users/1 → 200 (used 0 of 1 times)`.
///
/// ```
/// # tokio_test::block_on(async {
/// use std::sync::Arc;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::mock::{MockResponse, MockTransport};
///
/// let mock = MockTransport::new();
/// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
/// mock.intercept("GET", "https://api.example/users/1")?.reply(MockResponse::new(200));
/// // Never requested: still pending at the end of the test.
/// let pending = mock.pending_interceptors();
/// assert_eq!(pending[0].to_string(), "GET https://api.example/users/1 → 200 (used 0 of 1 times)");
/// # let _ = client;
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct PendingInterceptor {
    description: String,
    used: usize,
    times: Option<usize>,
}

impl PendingInterceptor {
    /// What the interceptor matches and answers: `GET https://api.example/users/1 → 200`.
    ///
    /// ```
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// mock.intercept("GET", "https://api.example/users?page=1")?
    ///     .header("accept", "application/json")
    ///     .reply(MockResponse::new(200));
    /// assert_eq!(
    ///     mock.pending_interceptors()[0].description(),
    ///     "GET https://api.example/users?page=1 [accept: application/json] → 200"
    /// );
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn description(&self) -> &str {
        &self.description
    }

    /// How many requests it answered.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/")?.reply(MockResponse::new(200)).times(3);
    /// client.get("https://api.example/").send().await?;
    /// assert_eq!(mock.pending_interceptors()[0].used(), 1);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn used(&self) -> usize {
        self.used
    }

    /// How many it was to answer; `None` for a [persistent](MockScope::persist) one.
    ///
    /// ```
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// mock.intercept("GET", "https://api.example/a")?.reply(MockResponse::new(200)).times(3);
    /// mock.intercept("GET", "https://api.example/b")?.reply(MockResponse::new(200)).persist();
    /// let pending = mock.pending_interceptors();
    /// let times: Vec<Option<usize>> = pending.iter().map(|p| p.times()).collect();
    /// assert_eq!(times, [Some(3), None]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn times(&self) -> Option<usize> {
        self.times
    }
}

impl fmt::Display for PendingInterceptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.times {
            Some(times) => write!(
                f,
                "{} (used {} of {times} times)",
                self.description, self.used
            ),
            None => write!(f, "{} (persistent, never used)", self.description),
        }
    }
}

/// Why a request had no answer: no interceptor matched it and it could not go to the
/// network. The source of the [`NetworkError::Connect`] it fails with; its message names
/// the request and the nearest interceptors, with what differs.
///
/// ```
/// # tokio_test::block_on(async {
/// use std::sync::Arc;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::mock::{MockResponse, MockTransport};
///
/// let mock = MockTransport::new();
/// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
/// use whatwg_fetch::NetworkError;
/// use whatwg_fetch::mock::MockNotMatched;
///
/// mock.intercept("GET", "https://api.example/users/1")?.reply(MockResponse::new(200));
/// let error = client.get("https://api.example/users/2").send().await.unwrap_err();
/// let Some(NetworkError::Connect(cause)) = error.network_error() else { panic!("{error:?}") };
/// let not_matched = cause.downcast_ref::<MockNotMatched>().expect("the mock's");
/// assert_eq!(not_matched.url(), "https://api.example/users/2");
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct MockNotMatched {
    method: Method,
    url: String,
    nearest: Vec<String>,
    registered: usize,
    network: NetConnectNote,
}

/// What the network options said about an unmatched request.
#[derive(Clone, Copy, Debug)]
enum NetConnectNote {
    /// Its host is not enabled (the default for all).
    Disabled,
    /// Its host is enabled, but there is no passthrough transport.
    NoPassthrough,
}

impl MockNotMatched {
    fn new(
        call: &MockCall,
        url: Option<&Url>,
        interceptors: &[Arc<Interceptor>],
        network: NetConnectNote,
    ) -> MockNotMatched {
        // The interceptors by how far they are from the request: the fewest differences
        // first, a different origin counting more than anything else; in order of
        // registration among equals.
        let mut ranked: Vec<(usize, String)> = match url {
            Some(url) => interceptors
                .iter()
                .map(|interceptor| {
                    let mut differences = interceptor.matcher.differences(call, url);
                    let used = interceptor.usage().used;
                    if interceptor.usage().remaining() == Some(0) {
                        differences.push(Cow::Owned(format!("used up after {used} answers")));
                    }
                    let mut score = differences.len();
                    if interceptor.matcher.origin != url.origin() {
                        score = score.saturating_add(10);
                    }
                    (score, format!("{interceptor} ({})", differences.join(", ")))
                })
                .collect(),
            None => Vec::new(),
        };
        ranked.sort_by_key(|(score, _)| *score);
        MockNotMatched {
            method: call.method.clone(),
            url: call.uri.to_string(),
            nearest: ranked
                .into_iter()
                .take(NEAREST)
                .map(|(_, description)| description)
                .collect(),
            registered: interceptors.len(),
            network,
        }
    }

    /// The request's method.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::{Client, NetworkError};
    /// use whatwg_fetch::mock::{MockNotMatched, MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/users/1")?.reply(MockResponse::new(200));
    /// let Err(error) = client.delete("https://api.example/users/2").send().await else {
    ///     panic!("answered");
    /// };
    /// let Some(NetworkError::Connect(source)) = error.network_error() else {
    ///     panic!("another error: {error}");
    /// };
    /// let not_matched = source.downcast_ref::<MockNotMatched>().ok_or("another source")?;
    /// assert_eq!(not_matched.method(), "DELETE");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The request's URL.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::{Client, NetworkError};
    /// use whatwg_fetch::mock::{MockNotMatched, MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/users/1")?.reply(MockResponse::new(200));
    /// let Err(error) = client.delete("https://api.example/users/2").send().await else {
    ///     panic!("answered");
    /// };
    /// let Some(NetworkError::Connect(source)) = error.network_error() else {
    ///     panic!("another error: {error}");
    /// };
    /// let not_matched = source.downcast_ref::<MockNotMatched>().ok_or("another source")?;
    /// assert_eq!(not_matched.url(), "https://api.example/users/2");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The nearest interceptors (at most three), each described with what differs:
    /// `GET https://api.example/users/1 → 200 (path differs)`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::{Client, NetworkError};
    /// use whatwg_fetch::mock::{MockNotMatched, MockResponse, MockTransport};
    ///
    /// let mock = MockTransport::new();
    /// let client = Client::builder().transport(Arc::new(mock.clone())).build()?;
    /// mock.intercept("GET", "https://api.example/users/1")?.reply(MockResponse::new(200));
    /// let Err(error) = client.delete("https://api.example/users/2").send().await else {
    ///     panic!("answered");
    /// };
    /// let Some(NetworkError::Connect(source)) = error.network_error() else {
    ///     panic!("another error: {error}");
    /// };
    /// let not_matched = source.downcast_ref::<MockNotMatched>().ok_or("another source")?;
    /// assert_eq!(
    ///     not_matched.nearest(),
    ///     ["GET https://api.example/users/1 → 200 (method differs, path differs)"]
    /// );
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn nearest(&self) -> &[String] {
        &self.nearest
    }
}

impl fmt::Display for MockNotMatched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no mock interceptor matched {} {}",
            self.method, self.url
        )?;
        if self.registered == 0 {
            f.write_str("; no interceptors are registered")?;
        } else {
            write!(f, "; nearest: {}", self.nearest.join("; "))?;
        }
        match self.network {
            NetConnectNote::Disabled => Ok(()),
            NetConnectNote::NoPassthrough => f.write_str(
                "; its host is enabled for network connections, but the mock has no \
                 passthrough transport",
            ),
        }
    }
}

impl std::error::Error for MockNotMatched {}

/// A network error as a refused TCP connection gives: a [`NetworkError::Connect`] over an
/// I/O error of kind [`ConnectionRefused`](std::io::ErrorKind::ConnectionRefused), for
/// [`Intercept::reply_error`].
///
/// ```
/// use whatwg_fetch::mock::{MockTransport, connection_refused};
///
/// let mock = MockTransport::new();
/// mock.intercept("GET", "http://down.test/")?.reply_error(connection_refused);
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub fn connection_refused() -> NetworkError {
    NetworkError::Connect(Box::new(std::io::Error::new(
        std::io::ErrorKind::ConnectionRefused,
        "Connection refused (mock)",
    )))
}

/// A registered interceptor.
struct Interceptor {
    /// Its place in the order of registration.
    index: usize,
    matcher: Matcher,
    reply: Reply,
    usage: Mutex<Usage>,
}

impl Interceptor {
    fn usage(&self) -> MutexGuard<'_, Usage> {
        self.usage.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Takes one of its answers, if it has one left.
    fn claim(&self) -> bool {
        let mut usage = self.usage();
        if usage.remaining() == Some(0) {
            return false;
        }
        usage.used = usage.used.saturating_add(1);
        true
    }
}

impl fmt::Display for Interceptor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} → {}", self.matcher, self.reply)
    }
}

struct Usage {
    times: Times,
    used: usize,
    delay: Option<Duration>,
}

impl Usage {
    /// Answers left: `None` for a persistent interceptor.
    fn remaining(&self) -> Option<usize> {
        match self.times {
            Times::Exactly(times) => Some(times.saturating_sub(self.used)),
            Times::Persist => None,
        }
    }
}

enum Times {
    Exactly(usize),
    Persist,
}

/// What a request must look like.
struct Matcher {
    origin: url::Origin,
    method: Method,
    path: PathMatch,
    query: QueryMatch,
    headers: Vec<HeaderMatch>,
    body: Option<BodyMatch>,
}

type Predicate<T> = Arc<dyn Fn(&T) -> bool + Send + Sync>;

enum PathMatch {
    Exact(String),
    Prefix(String),
    Fn(Predicate<str>),
}

enum QueryMatch {
    /// Sorted.
    Exact(Vec<(String, String)>),
    Any,
    Fn(Predicate<[(String, String)]>),
}

enum HeaderMatch {
    /// A lowercase name and the value.
    Equals(String, Bytes),
    /// A lowercase name.
    Absent(String),
    Fn(Predicate<HeaderMap>),
}

enum BodyMatch {
    Exact(Bytes),
    Json(serde_json::Value),
    Fn(Predicate<[u8]>),
}

impl Matcher {
    fn matches(&self, call: &MockCall, url: &Url) -> bool {
        self.origin == url.origin()
            && self.method == call.method
            && self.path_matches(url)
            && self.query_matches(url)
            && self
                .headers
                .iter()
                .all(|header| header.matches(&call.headers))
            && self
                .body
                .as_ref()
                .is_none_or(|body| body.matches(&call.body))
    }

    /// What differs between the request and this matcher, the origin first.
    fn differences(&self, call: &MockCall, url: &Url) -> Vec<Cow<'static, str>> {
        let mut differences = Vec::new();
        if self.origin != url.origin() {
            differences.push(Cow::Borrowed("origin differs"));
        }
        if self.method != call.method {
            differences.push(Cow::Borrowed("method differs"));
        }
        if !self.path_matches(url) {
            differences.push(Cow::Borrowed("path differs"));
        }
        if !self.query_matches(url) {
            differences.push(Cow::Borrowed("query differs"));
        }
        for header in &self.headers {
            if !header.matches(&call.headers) {
                differences.push(match header {
                    HeaderMatch::Equals(name, _) => Cow::Owned(format!("header {name} differs")),
                    HeaderMatch::Absent(name) => Cow::Owned(format!("header {name} is present")),
                    HeaderMatch::Fn(_) => Cow::Borrowed("headers closure refused"),
                });
            }
        }
        if let Some(body) = &self.body {
            if !body.matches(&call.body) {
                differences.push(Cow::Borrowed("body differs"));
            }
        }
        differences
    }

    fn path_matches(&self, url: &Url) -> bool {
        match &self.path {
            PathMatch::Exact(path) => url.path() == path,
            PathMatch::Prefix(prefix) => url.path().starts_with(prefix.as_str()),
            PathMatch::Fn(matches) => matches(url.path()),
        }
    }

    fn query_matches(&self, url: &Url) -> bool {
        match &self.query {
            QueryMatch::Exact(pairs) => sorted_pairs(url) == *pairs,
            QueryMatch::Any => true,
            QueryMatch::Fn(matches) => {
                let pairs: Vec<(String, String)> = url.query_pairs().into_owned().collect();
                matches(&pairs)
            }
        }
    }
}

impl HeaderMatch {
    fn matches(&self, headers: &HeaderMap) -> bool {
        match self {
            HeaderMatch::Equals(name, value) => {
                let values = headers.get_all(name.as_str());
                values.iter().any(|v| v.as_bytes() == value.as_ref()) || {
                    let joined: Vec<&[u8]> = values.iter().map(HeaderValue::as_bytes).collect();
                    joined.len() > 1 && joined.join(&b", "[..]) == value.as_ref()
                }
            }
            HeaderMatch::Absent(name) => !headers.contains_key(name.as_str()),
            HeaderMatch::Fn(matches) => matches(headers),
        }
    }
}

impl BodyMatch {
    fn matches(&self, body: &[u8]) -> bool {
        match self {
            BodyMatch::Exact(expected) => body == expected.as_ref(),
            BodyMatch::Json(expected) => {
                serde_json::from_slice::<serde_json::Value>(body).is_ok_and(|v| v == *expected)
            }
            BodyMatch::Fn(matches) => matches(body),
        }
    }
}

/// `GET https://api.example/users?page=2 [accept: application/json] [body "…"]`.
impl fmt::Display for Matcher {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} {}", self.method, self.origin.ascii_serialization())?;
        match &self.path {
            PathMatch::Exact(path) => f.write_str(path)?,
            PathMatch::Prefix(prefix) => write!(f, "{prefix}*")?,
            PathMatch::Fn(_) => f.write_str("<path closure>")?,
        }
        match &self.query {
            QueryMatch::Exact(pairs) if pairs.is_empty() => {}
            QueryMatch::Exact(pairs) => {
                let query = url::form_urlencoded::Serializer::new(String::new())
                    .extend_pairs(pairs)
                    .finish();
                write!(f, "?{query}")?;
            }
            QueryMatch::Any => f.write_str("?*")?,
            QueryMatch::Fn(_) => f.write_str("?<query closure>")?,
        }
        for header in &self.headers {
            match header {
                HeaderMatch::Equals(name, value) => {
                    write!(f, " [{name}: {}]", quote(value))?;
                }
                HeaderMatch::Absent(name) => write!(f, " [no {name}]")?,
                HeaderMatch::Fn(_) => f.write_str(" [headers closure]")?,
            }
        }
        match &self.body {
            None => Ok(()),
            Some(BodyMatch::Exact(body)) => write!(f, " [body {:?}]", quote(body)),
            Some(BodyMatch::Json(value)) => {
                write!(f, " [JSON body {}]", quote(value.to_string().as_bytes()))
            }
            Some(BodyMatch::Fn(_)) => f.write_str(" [body closure]"),
        }
    }
}

/// `bytes` as text, cut after [`QUOTED_BODY`] characters.
fn quote(bytes: &[u8]) -> String {
    let text = String::from_utf8_lossy(bytes);
    let mut chars = text.chars();
    let mut quoted: String = chars.by_ref().take(QUOTED_BODY).collect();
    if chars.next().is_some() {
        quoted.push('…');
    }
    quoted
}

/// How an interceptor answers.
enum Reply {
    Response(MockResponse),
    With(Arc<dyn Fn(&MockCall) -> MockResponse + Send + Sync>),
    Error(Arc<dyn Fn() -> NetworkError + Send + Sync>),
}

impl Reply {
    fn respond(&self, call: &MockCall) -> Result<http::Response<ResponseBody>, NetworkError> {
        match self {
            Reply::Response(response) => response.to_http(),
            Reply::With(respond) => respond(call).to_http(),
            Reply::Error(error) => Err(error()),
        }
    }
}

impl fmt::Display for Reply {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reply::Response(response) => write!(f, "{}", response.status),
            Reply::With(_) => f.write_str("<reply closure>"),
            Reply::Error(error) => write!(f, "error: {}", crate::error::Chain(&error())),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    fn call(method: &str, uri: &str) -> MockCall {
        MockCall {
            method: Method::from_bytes(method.as_bytes()).unwrap(),
            uri: uri.parse().unwrap(),
            headers: HeaderMap::new(),
            body: Bytes::new(),
            outcome: CallOutcome::Unmatched,
        }
    }

    #[test]
    fn the_origin_counts_the_default_port() {
        let mock = MockTransport::new();
        let intercept = mock.intercept("GET", "https://api.example/a").unwrap();
        let request = call("GET", "https://api.example:443/a");
        assert!(
            intercept
                .matcher
                .matches(&request, &url("https://api.example:443/a"))
        );
        assert!(
            !intercept
                .matcher
                .matches(&request, &url("https://api.example:8443/a"))
        );
        assert!(
            !intercept
                .matcher
                .matches(&request, &url("http://api.example/a"))
        );
    }

    #[test]
    fn query_pairs_match_in_any_order_and_no_others() {
        let mock = MockTransport::new();
        let intercept = mock.intercept("GET", "http://api.test/s?b=2&a=1").unwrap();
        let request = call("GET", "http://api.test/s");
        let matches = |u: &str| intercept.matcher.matches(&request, &url(u));
        assert!(matches("http://api.test/s?a=1&b=2"));
        assert!(matches("http://api.test/s?b=2&a=%31"));
        assert!(!matches("http://api.test/s?a=1&b=2&c=3"));
        assert!(!matches("http://api.test/s?a=1"));
        let bare = mock.intercept("GET", "http://api.test/s").unwrap();
        assert!(bare.matcher.matches(&request, &url("http://api.test/s")));
        assert!(bare.matcher.matches(&request, &url("http://api.test/s?")));
        assert!(
            !bare
                .matcher
                .matches(&request, &url("http://api.test/s?a=1"))
        );
    }

    #[test]
    fn a_header_matches_one_value_or_all_joined() {
        let mut headers = HeaderMap::new();
        headers.append("accept", HeaderValue::from_static("text/html"));
        headers.append("accept", HeaderValue::from_static("*/*"));
        let equals = |value: &str| {
            HeaderMatch::Equals("accept".into(), Bytes::copy_from_slice(value.as_bytes()))
        };
        assert!(equals("*/*").matches(&headers));
        assert!(equals("text/html, */*").matches(&headers));
        assert!(!equals("text/plain").matches(&headers));
        assert!(HeaderMatch::Absent("cookie".into()).matches(&headers));
        assert!(!HeaderMatch::Absent("accept".into()).matches(&headers));
    }

    #[test]
    fn net_connect_allows_a_host_for_any_port_or_with_its_port() {
        let hosts = NetConnect::Hosts(vec!["localhost".into(), "127.0.0.1:8080".into()]);
        assert!(hosts.allows(&url("http://localhost:1234/")));
        assert!(hosts.allows(&url("http://127.0.0.1:8080/")));
        assert!(!hosts.allows(&url("http://127.0.0.1:8081/")));
        assert!(!hosts.allows(&url("http://example.com/")));
        assert!(!NetConnect::Disabled.allows(&url("http://localhost/")));
        assert!(NetConnect::All.allows(&url("http://example.com/")));
    }

    #[test]
    fn an_interceptor_describes_what_it_matches() {
        let mock = MockTransport::new();
        let scope = mock
            .intercept("POST", "https://api.example/users?b=2&a=1")
            .unwrap()
            .header("Content-Type", "application/json")
            .without_header("cookie")
            .body_json(serde_json::json!({ "name": "x" }))
            .reply(MockResponse::new(201));
        assert_eq!(
            scope.interceptor.to_string(),
            r#"POST https://api.example/users?a=1&b=2 [content-type: application/json] [no cookie] [JSON body {"name":"x"}] → 201"#
        );
        let prefix = mock
            .intercept("GET", "http://127.0.0.1:8080/x")
            .unwrap()
            .path_prefix("/static/")
            .any_query()
            .body(vec![b'a'; 50])
            .reply_error(connection_refused);
        assert_eq!(
            prefix.interceptor.to_string(),
            format!(
                "GET http://127.0.0.1:8080/static/*?* [body \"{}…\"] → error: connect failed: Connection refused (mock)",
                "a".repeat(40)
            )
        );
    }

    #[test]
    fn a_bad_method_or_url_is_a_type_error() {
        let mock = MockTransport::new();
        for (method, url) in [
            ("GE T", "http://a.test/"),
            ("GET", "not a url"),
            ("GET", "ftp://a.test/"),
            ("GET", "data:,x"),
        ] {
            let error = mock.intercept(method, url).unwrap_err();
            assert_eq!(error.kind(), crate::ErrorKind::TypeError, "{method} {url}");
        }
    }

    #[test]
    fn an_invalid_status_or_header_is_a_protocol_error() {
        for response in [
            MockResponse::new(1000),
            MockResponse::new(99),
            MockResponse::new(200).header("bad name", "x"),
            MockResponse::new(200).header("x", "a\nb"),
        ] {
            assert!(
                matches!(response.to_http(), Err(NetworkError::Protocol(_))),
                "{response:?}"
            );
        }
    }
}
