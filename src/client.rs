//! [`Client`]: where `fetch()` runs — an environment, a network, and options — and the
//! [`fetch()` method](https://fetch.spec.whatwg.org/#fetch-method) itself.
//!
//! ```
//! # tokio_test::block_on(async {
//! use std::time::Duration;
//! use whatwg_fetch::Client;
//!
//! let client = Client::builder().timeout(Duration::from_secs(30)).build()?;
//! assert_eq!(client.get("data:,hi").send().await?.text().await?, "hi");
//! # Ok::<(), whatwg_fetch::Error>(())
//! # }).unwrap();
//! ```

use std::fmt;
use std::future::Future;
use std::net::{IpAddr, SocketAddr};
#[cfg(unix)]
use std::path::PathBuf;
use std::pin::Pin;
use std::sync::{Arc, Mutex, OnceLock};
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;
use futures_util::future::Either;
use http::Method;
use tokio::time::{Instant, Sleep};
use url::Url;

use crate::abort::{AbortSignal, Aborted, AlgorithmHandle};
use crate::body::Body;
use crate::cache::HttpCacheStore;
use crate::cookie::{CookieProvider, CookieStore};
use crate::environment::Environment;
use crate::error::{Error, NetworkError, Result, TimeoutKind};
use crate::fetch::{CookieJar, FetchContext, cors::CorsPreflightCache};
use crate::net::{
    HyperTransport, HyperTransportBuilder, Identity, PoolStats, Proxy, PublicKeyPin, Resolve,
    TlsVersion, Transport,
};
use crate::request::{Request, RequestInfo, RequestInit};
use crate::request_builder::RequestBuilder;
use crate::response::Response;
use crate::retry::{Retrier, RetryPolicy};

/// The `User-Agent` sent when a request has none: this crate's name and version.
///
/// ```
/// use whatwg_fetch::Client;
/// use whatwg_fetch::client::DEFAULT_USER_AGENT;
///
/// // This crate's, followed by the program's own.
/// let client = Client::builder().user_agent(format!("{DEFAULT_USER_AGENT} inventory-sync/2.1")).build()?;
/// assert!(DEFAULT_USER_AGENT.starts_with("whatwg-fetch/"));
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub const DEFAULT_USER_AGENT: &str = concat!("whatwg-fetch/", env!("CARGO_PKG_VERSION"));

/// The default of [`ClientBuilder::max_buffered_body_size`]: 256 MiB.
///
/// ```
/// use whatwg_fetch::Client;
/// use whatwg_fetch::client::DEFAULT_MAX_BUFFERED_BODY_SIZE;
///
/// // Four times the default, for a service known to answer with large documents.
/// let client = Client::builder().max_buffered_body_size(Some(DEFAULT_MAX_BUFFERED_BODY_SIZE * 4)).build()?;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub const DEFAULT_MAX_BUFFERED_BODY_SIZE: u64 = 256 << 20;

/// Runs [`fetch()`](https://fetch.spec.whatwg.org/#fetch-method) on a shared, lazily built
/// default [`Client`]: server-side environment, pooled connections, default options.
///
/// # Errors
/// As [`Client::fetch`].
///
/// ```no_run
/// # async fn run() -> Result<(), whatwg_fetch::Error> {
/// use whatwg_fetch::{RequestInit, fetch};
///
/// let mut response = fetch("https://example.com/", RequestInit::default()).await?;
/// println!("{} {}", response.status(), response.text().await?);
/// # Ok(())
/// # }
/// ```
pub async fn fetch(input: impl Into<RequestInfo>, init: RequestInit) -> Result<Response> {
    shared_client()?.fetch(input, init).await
}

/// A `GET` of `url` on the shared default [`Client`] of [`fetch()`], as reqwest's `get`:
/// for a one-off request; build a [`Client`] for more.
///
/// # Errors
/// As [`Client::fetch`].
///
/// ```no_run
/// # async fn run() -> Result<(), whatwg_fetch::Error> {
/// let body = whatwg_fetch::get("https://example.com/").await?.text().await?;
/// # Ok(())
/// # }
/// ```
pub async fn get(url: impl Into<RequestInfo>) -> Result<Response> {
    shared_client()?.get(url).send().await
}

/// The default client the free functions share, built once.
pub(crate) fn shared_client() -> Result<&'static Client> {
    static DEFAULT: OnceLock<Result<Client>> = OnceLock::new();
    DEFAULT
        .get_or_init(|| Client::builder().build())
        .as_ref()
        .map_err(Error::clone)
}

/// The transport of a [`Client::new`] whose built-in transport could not be made: every
/// request fails saying why.
struct Unbuilt {
    reason: String,
}

impl Transport for Unbuilt {
    fn send(
        &self,
        _request: http::Request<crate::net::RequestBody>,
        _options: crate::net::SendOptions,
    ) -> crate::net::TransportFuture {
        let error =
            NetworkError::Other(format!("the client could not be built: {}", self.reason).into());
        Box::pin(std::future::ready(Err(error)))
    }
}

/// [`Client::new`].
impl Default for Client {
    fn default() -> Client {
        Client::new()
    }
}

/// Fetches with one environment, one connection pool and one set of options.
///
/// Cheap to clone: clones share the pool. Build one with [`Client::builder`].
///
/// ```
/// # tokio_test::block_on(async {
/// use whatwg_fetch::{Client, RequestInit};
///
/// let client = Client::builder().build()?;
/// let mut response = client.fetch("data:,Hello%2C%20World!", RequestInit::default()).await?;
/// assert_eq!(response.text().await?, "Hello, World!");
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
#[derive(Clone)]
pub struct Client {
    inner: Arc<ClientInner>,
}

struct ClientInner {
    environment: Arc<Environment>,
    context: FetchContext,
    /// Headers every request gets unless it has its own of the name.
    default_headers: http::HeaderMap,
    total_timeout: Option<Duration>,
    retry: Option<Retrier>,
    /// Whether a builder's URL with credentials answers Digest with them.
    digest_auth_from_url: bool,
    /// The built-in transport, for its pool statistics; `None` with a custom one.
    hyper: Option<HyperTransport>,
}

impl Client {
    /// A client with every option at its default, as reqwest's `Client::new()`.
    ///
    /// Building with the defaults fails only when the TLS configuration cannot be made (no
    /// root certificate could be loaded at all, say). Rather than panic as reqwest does,
    /// such a client is still returned, and each of its fetches fails with a network error
    /// that says why; use [`Client::builder`] and [`ClientBuilder::build`] to get that
    /// error at once instead.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// let client = whatwg_fetch::Client::new();
    /// let response = client.get("data:,hello").send().await?;
    /// assert_eq!(response.status(), 200);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn new() -> Client {
        ClientBuilder::default().build().unwrap_or_else(|error| {
            let unbuilt = Arc::new(Unbuilt {
                reason: format!("{error:#}"),
            });
            ClientBuilder::default().assemble(unbuilt, None)
        })
    }

    /// A builder with the defaults documented on each option.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::builder()
    ///     .user_agent("inventory-sync/2.1")
    ///     .timeout(Duration::from_secs(30))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn builder() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// The environment requests are made from.
    ///
    /// ```
    /// use whatwg_fetch::{Client, Url};
    ///
    /// // The default client is server-side: no origin, so no CORS.
    /// assert!(!Client::new().environment().is_browser_like());
    /// let page = Url::parse("https://app.example/")?;
    /// let client = Client::builder().origin(page).build()?;
    /// assert_eq!(client.environment().origin().map(|o| o.ascii_serialization()).as_deref(), Some("https://app.example"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn environment(&self) -> &Arc<Environment> {
        &self.inner.environment
    }

    /// Whether a builder's URL with credentials answers Digest with them
    /// ([`ClientBuilder::digest_auth_from_url`]).
    pub(crate) fn digest_auth_from_url(&self) -> bool {
        self.inner.digest_auth_from_url
    }

    /// The client's total timeout ([`ClientBuilder::timeout`]).
    pub(crate) fn total_timeout(&self) -> Option<Duration> {
        self.inner.total_timeout
    }

    /// A [`RequestBuilder`] for a request with `method` to `url`, put together call by
    /// call and fetched with [`send`](RequestBuilder::send), as reqwest's
    /// `Client::request` makes one.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Client, Method};
    ///
    /// let client = Client::builder().build()?;
    /// let mut response = client.request(Method::GET, "data:,hello").send().await?;
    /// assert_eq!(response.text().await?, "hello");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn request(&self, method: Method, url: impl Into<RequestInfo>) -> RequestBuilder {
        RequestBuilder::new(self.clone(), method, url.into())
    }

    /// A [`RequestBuilder`] for a `GET` to `url` (see [`request`](Self::request)).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// let client = whatwg_fetch::Client::new();
    /// let mut response = client.get("data:text/plain,hello").send().await?;
    /// assert_eq!(response.headers().get("content-type")?.as_deref(), Some("text/plain"));
    /// assert_eq!(response.text().await?, "hello");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn get(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::GET, url)
    }

    /// A [`RequestBuilder`] for a `POST` to `url` (see [`request`](Self::request)).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), whatwg_fetch::Error> {
    /// # let client = whatwg_fetch::Client::builder().build()?;
    /// let response = client
    ///     .post("https://api.example.com/items")
    ///     .json(&serde_json::json!({ "name": "first" }))
    ///     .send()
    ///     .await?
    ///     .error_for_status()?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn post(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::POST, url)
    }

    /// A [`RequestBuilder`] for a `PUT` to `url` (see [`request`](Self::request)).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let base = format!("http://{}", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // Answers each request with its method and path.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let mut head = vec![0; 4096];
    /// #         let n = stream.read(&mut head).await.unwrap();
    /// #         let head = String::from_utf8_lossy(&head[..n]).into_owned();
    /// #         let line: Vec<&str> = head.lines().next().unwrap_or("").split(' ').take(2).collect();
    /// #         let said = line.join(" ");
    /// #         let reply = format!("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{said}", said.len());
    /// #         let _ = stream.write_all(reply.as_bytes()).await;
    /// #     }
    /// # });
    /// let client = whatwg_fetch::Client::new();
    /// let mut response = client.put(format!("{base}/items/7")).send().await?;
    /// assert_eq!(response.text().await?, "PUT /items/7");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn put(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::PUT, url)
    }

    /// A [`RequestBuilder`] for a `PATCH` to `url` (see [`request`](Self::request)).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let base = format!("http://{}", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // Answers each request with its method and path.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let mut head = vec![0; 4096];
    /// #         let n = stream.read(&mut head).await.unwrap();
    /// #         let head = String::from_utf8_lossy(&head[..n]).into_owned();
    /// #         let line: Vec<&str> = head.lines().next().unwrap_or("").split(' ').take(2).collect();
    /// #         let said = line.join(" ");
    /// #         let reply = format!("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{said}", said.len());
    /// #         let _ = stream.write_all(reply.as_bytes()).await;
    /// #     }
    /// # });
    /// let client = whatwg_fetch::Client::new();
    /// let mut response = client.patch(format!("{base}/items/7")).send().await?;
    /// assert_eq!(response.text().await?, "PATCH /items/7");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn patch(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::PATCH, url)
    }

    /// A [`RequestBuilder`] for a `DELETE` to `url` (see [`request`](Self::request)).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let base = format!("http://{}", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // Answers each request with its method and path.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let mut head = vec![0; 4096];
    /// #         let n = stream.read(&mut head).await.unwrap();
    /// #         let head = String::from_utf8_lossy(&head[..n]).into_owned();
    /// #         let line: Vec<&str> = head.lines().next().unwrap_or("").split(' ').take(2).collect();
    /// #         let said = line.join(" ");
    /// #         let reply = format!("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{said}", said.len());
    /// #         let _ = stream.write_all(reply.as_bytes()).await;
    /// #     }
    /// # });
    /// let client = whatwg_fetch::Client::new();
    /// let mut response = client.delete(format!("{base}/items/7")).send().await?;
    /// assert_eq!(response.text().await?, "DELETE /items/7");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn delete(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::DELETE, url)
    }

    /// A [`RequestBuilder`] for a `HEAD` to `url` (see [`request`](Self::request)).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let base = format!("http://{}", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // Answers each request with its method and path.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let mut head = vec![0; 4096];
    /// #         let n = stream.read(&mut head).await.unwrap();
    /// #         let head = String::from_utf8_lossy(&head[..n]).into_owned();
    /// #         let line: Vec<&str> = head.lines().next().unwrap_or("").split(' ').take(2).collect();
    /// #         let said = line.join(" ");
    /// #         let reply = format!("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{said}", said.len());
    /// #         let _ = stream.write_all(reply.as_bytes()).await;
    /// #     }
    /// # });
    /// let client = whatwg_fetch::Client::new();
    /// let mut response = client.head(format!("{base}/items/7")).send().await?;
    /// assert_eq!(response.status(), 200);
    /// // A response to `HEAD` has no body, whatever its head says.
    /// assert_eq!(response.text().await?, "");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn head(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::HEAD, url)
    }

    /// A snapshot of the connection pool's statistics, for exporting to metrics: per
    /// origin, the connections open, idle, in use and being made, the requests waiting
    /// for one, and the connections opened and closed; see [`PoolStats`]. `None` for a
    /// client built with a [`transport`](ClientBuilder::transport) of its own.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # tokio::spawn(async move {
    /// #     use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// #     let (mut socket, _) = listener.accept().await.unwrap();
    /// #     let mut buf = [0; 1024];
    /// #     let _ = socket.read(&mut buf).await;
    /// #     socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi").await.unwrap();
    /// #     let _ = socket.read(&mut buf).await;
    /// # });
    /// use whatwg_fetch::{Client, RequestInit};
    ///
    /// let client = Client::builder().build()?;
    /// let url = format!("http://{addr}/");
    /// client.fetch(url.as_str(), RequestInit::default()).await?.text().await?;
    /// let stats = client.pool_stats().expect("the built-in transport");
    /// let origin = stats.origin(&format!("http://{addr}")).expect("one connection");
    /// assert_eq!((origin.open, origin.idle, origin.in_use), (1, 1, 0));
    /// assert_eq!(stats.connections_opened, 1);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn pool_stats(&self) -> Option<PoolStats> {
        self.inner.hyper.as_ref().map(HyperTransport::pool_stats)
    }

    /// The cookie store credentialed fetches use, if cookies are enabled (see
    /// [`ClientBuilder::cookie_store`]) in the crate's in-memory store; `None` for a
    /// client given a [`cookie_provider`](ClientBuilder::cookie_provider).
    ///
    /// ```
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::builder().cookie_store(true).build()?;
    /// let store = client.cookie_store().expect("cookies are on");
    /// assert!(store.is_empty());
    /// // A server-side client keeps no cookies unless asked.
    /// assert!(Client::new().cookie_store().is_none());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn cookie_store(&self) -> Option<&Arc<CookieStore>> {
        match &self.inner.context.cookies {
            Some(CookieJar::Store(store)) => Some(store),
            Some(CookieJar::Provider(_)) | None => None,
        }
    }

    /// The [`fetch(input, init)`](https://fetch.spec.whatwg.org/#fetch-method) method:
    /// construct a request, fetch it, and return the response once its head has arrived.
    /// The body streams as it is read.
    ///
    /// The request is constructed when this is called, as `fetch()` constructs it before
    /// it returns its promise; the future fetches it. (Not an `async fn`, whose future
    /// would keep `init`, some 900 bytes, and move it in and out again before the request
    /// is made: the future is [`fetch_request`](Self::fetch_request)'s own.)
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Client, RequestInit};
    ///
    /// let client = Client::new();
    /// let init = RequestInit { method: Some("GET".into()), ..RequestInit::default() };
    /// let mut response = client.fetch("data:application/json,[1,2,3]", init).await?;
    /// assert!(response.ok());
    /// let numbers: Vec<u32> = response.json().await?;
    /// assert_eq!(numbers, [1, 2, 3]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// - the `TypeError` of [`Request::new`] for an invalid `input` or `init`;
    /// - a `TypeError` whose [`network_error`](Error::network_error) says why for a
    ///   network error (DNS, connect, TLS, protocol, bad port, CORS, too many redirects, a
    ///   client timeout as [`NetworkError::Timeout`]);
    /// - the signal's reason (an `AbortError` by default) when the request's signal aborts
    ///   before the response arrives. A signal that aborts later errors the body instead.
    pub fn fetch(
        &self,
        input: impl Into<RequestInfo>,
        init: RequestInit,
    ) -> impl Future<Output = Result<Response>> + Send + Sync + '_ {
        // Step 1. Let p be a new promise.
        // Step 2. Let requestObject be the result of invoking the initial value of Request
        // as constructor with input and init as arguments. If this throws an exception,
        // reject p with it and return p.
        match Request::new_in(&self.inner.environment, input, init) {
            Ok(request) => {
                Either::Left(self.fetch_request_within(request, self.inner.total_timeout))
            }
            Err(error) => Either::Right(std::future::ready(Err(error))),
        }
    }

    /// Fetches an already constructed [`Request`]: the steps of the `fetch()` method after
    /// the request object is made.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Client, Request, RequestInit};
    ///
    /// // A request made once, then fetched (a clone of it, so that it can be fetched again).
    /// let mut request = Request::new("data:,hello", RequestInit::default())?;
    /// let client = Client::new();
    /// let mut response = client.fetch_request(request.try_clone()?).await?;
    /// assert_eq!(response.text().await?, "hello");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`Client::fetch`], less the constructor's errors.
    #[doc(alias = "execute")]
    pub fn fetch_request(
        &self,
        request: Request,
    ) -> impl Future<Output = Result<Response>> + Send + Sync + '_ {
        self.fetch_request_within(request, self.inner.total_timeout)
    }

    /// [`fetch_request`](Self::fetch_request) with `total_timeout` in place of the
    /// client's [`timeout`](ClientBuilder::timeout): a request builder's own.
    ///
    /// Not an `async fn`: the future is [`fetch_steps`](Self::fetch_steps)'s own, not one
    /// more layer that would hold the request and move it into that one.
    ///
    /// `Sync` as well as `Send`, as reqwest's `Pending` is, so that a caller may hold it
    /// where `Sync` is asked (a field of a `Sync` type, another `Sync` future). Inside, it
    /// holds futures boxed as `dyn Future + Send` (a [`Transport`]'s, a cookie provider's,
    /// the HTTP cache store's), which are not: `SyncFuture` makes the whole `Sync` at no
    /// cost, as it hands out no `&` to what it wraps.
    pub(crate) fn fetch_request_within(
        &self,
        request: Request,
        total_timeout: Option<Duration>,
    ) -> impl Future<Output = Result<Response>> + Send + Sync + '_ {
        // Not in the spec: with the `tracing` feature, a span for the fetch.
        #[cfg(feature = "tracing")]
        let fetching =
            crate::trace::in_fetch_span(request, move |r| self.fetch_steps(r, total_timeout));
        #[cfg(not(feature = "tracing"))]
        let fetching = self.fetch_steps(request, total_timeout);
        sync_wrapper::SyncFuture::new(fetching)
    }

    /// The steps of [`fetch_request`](Self::fetch_request), with the total timeout that
    /// applies. (An `async` block rather than an `async fn`, whose future would keep the
    /// request twice, as its parameter and as the local it is moved into: 472 bytes more
    /// in every fetch's state, and copied.)
    #[expect(
        clippy::manual_async_fn,
        reason = "an `async` block keeps its parameters apart from the locals they move into"
    )]
    fn fetch_steps(
        &self,
        mut request: Request,
        total_timeout: Option<Duration>,
    ) -> impl std::future::Future<Output = Result<Response>> + Send + '_ {
        async move {
            // Not in the spec: the client's default headers, for those the request lacks.
            if !self.inner.default_headers.is_empty() {
                add_default_headers(&mut request, &self.inner.default_headers)?;
            }
            // Step 3. Let request be requestObject's request.
            // (A signal not made yet follows no source: it is not aborted and never will be.)
            let signal = request.signal.made().cloned();
            // Step 4. If requestObject's signal is aborted, then abort the fetch() call with p,
            // request, null, and requestObject's signal's abort reason. Return p.
            if let Some(reason) = signal.as_ref().and_then(AbortSignal::reason) {
                return Err(reason);
            }
            let deadline = total_timeout
                // A timeout past what an `Instant` holds never comes: no deadline.
                .and_then(|timeout| Instant::now().checked_add(timeout));
            // Steps 5–12. Add the abort steps to requestObject's signal, then fetch request
            // with processResponse. Aborting drops the fetch wherever it is (resolving,
            // connecting, waiting for headers) and rejects with the signal's reason.
            // The URL a total timeout names, kept only when there is one.
            let can_abort = signal.as_ref().is_some_and(AbortSignal::can_abort);
            if !can_abort && deadline.is_none() && self.inner.retry.is_none() {
                // Nothing can abort this fetch, nor retry it: the fetch's own future, awaited
                // where it is made rather than moved into the watch below.
                let response = crate::fetch::fetch(&mut request, &self.inner.context).await;
                return process_response(response);
            }
            // Watched below, or carried by the response: made now if it was not.
            let signal = signal.unwrap_or_else(|| request.signal.get().clone());
            let timed_url = deadline.map(|_| request.current_url().clone());
            // Not in the spec: a retry policy fetches again after a failure (see `crate::retry`);
            // the abort and the deadline below watch all the attempts and the waits between.
            let fetching = match &self.inner.retry {
                Some(retry) => Either::Left(retry.fetch(request, &self.inner.context, deadline)),
                None => Either::Right(crate::fetch::fetch(&mut request, &self.inner.context)),
            };
            let response = if can_abort || deadline.is_some() {
                tokio::select! {
                    biased;
                    reason = signal.aborted_future(), if can_abort => return Err(reason),
                    () = sleep_until(deadline) => {
                        let error = total_timeout_error(total_timeout);
                        return Err(match &timed_url {
                            Some(url) => error.with_url(url),
                            None => error,
                        });
                    }
                    response = fetching => response,
                }
            } else {
                // Nothing can abort this fetch: no need to watch for it.
                fetching.await
            };
            let response = process_response(response)?;
            if !can_abort && deadline.is_none() {
                return Ok(response);
            }
            Ok(abortable(response, signal, deadline.zip(total_timeout)))
        }
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("environment", &self.inner.environment)
            .field("total_timeout", &self.inner.total_timeout)
            .finish_non_exhaustive()
    }
}

/// processResponse given `response`, the steps of the `fetch()` method that turn it into a
/// result (before an abortable body is set up).
fn process_response(response: Response) -> Result<Response> {
    // Step 12.3.1. If locallyAborted is true, then abort these steps.
    // Step 12.3.2. If response's aborted flag is set, then reject p with the abort reason.
    // Step 12.3.3. If response is a network error, then reject p with a TypeError.
    if response.is_network_error() {
        return Err(response
            .network_error_cause()
            .cloned()
            .unwrap_or_else(|| Error::type_error("network error")));
    }
    // Step 12.3.4. Set responseObject to the result of creating a Response object, given
    // response, "immutable", and relevantRealm.
    // Step 12.3.5. Resolve p with responseObject.
    Ok(response)
}

async fn sleep_until(deadline: Option<Instant>) {
    match deadline {
        Some(deadline) => tokio::time::sleep_until(deadline).await,
        None => std::future::pending().await,
    }
}

/// The response with its body made to end in the signal's reason if the signal aborts
/// while the body is still being read ("abort the fetch() call" errors the response's
/// stream), and in a total-timeout error past the deadline (given with the timeout it
/// ends).
///
/// Aborting also drops the body at once, from an abort algorithm, as "abort fetch"
/// terminates the ongoing fetch: its connection closes even if nobody reads the body.
fn abortable(
    mut response: Response,
    signal: AbortSignal,
    deadline: Option<(Instant, Duration)>,
) -> Response {
    let slot = response.body_slot_mut();
    if let Some(body) = slot.take() {
        *slot = Some(body.wrap(|body| {
            let body = Arc::new(Mutex::new(Some(body)));
            let held = Arc::clone(&body);
            // A poll of the body in progress holds the lock: it sees the abort at its next
            // poll instead, which this must not wait for (abort() may be called from inside
            // that poll).
            let algorithm = signal.add_algorithm(move |_| {
                if let Ok(mut slot) = held.try_lock() {
                    drop(slot.take());
                }
            });
            if algorithm.is_none() {
                // Already aborted: the first read gives the reason.
                drop(take_body(&body));
            }
            AbortableBody {
                body,
                aborted: signal.aborted_future(),
                algorithm,
                signal,
                deadline: deadline
                    .map(|(deadline, after)| (Box::pin(tokio::time::sleep_until(deadline)), after)),
                done: false,
            }
        }));
    }
    response
}

/// Takes the body out of its slot (a poisoned lock still holds it).
fn take_body(slot: &Mutex<Option<Body>>) -> Option<Body> {
    slot.lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .take()
}

/// The error of a fetch or body past the client's total timeout.
fn total_timeout_error(after: Option<Duration>) -> Error {
    Error::network(NetworkError::Timeout {
        kind: TimeoutKind::Total,
        after: after.unwrap_or_default(),
    })
}

/// A response body that races the request's signal and the client's deadline.
struct AbortableBody {
    /// The body, until the signal's abort algorithm takes it (and drops it) or it ends.
    body: Arc<Mutex<Option<Body>>>,
    aborted: Aborted,
    /// The abort algorithm that drops the body, removed when this is dropped.
    algorithm: Option<AlgorithmHandle>,
    signal: AbortSignal,
    deadline: Option<(Pin<Box<Sleep>>, Duration)>,
    done: bool,
}

impl Drop for AbortableBody {
    fn drop(&mut self) {
        if let Some(algorithm) = self.algorithm.take() {
            self.signal.remove_algorithm(algorithm);
        }
    }
}

impl Stream for AbortableBody {
    type Item = Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes>>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        if let Poll::Ready(reason) = Pin::new(&mut this.aborted).poll(cx) {
            this.done = true;
            drop(take_body(&this.body));
            return Poll::Ready(Some(Err(reason)));
        }
        if let Some((deadline, after)) = this.deadline.as_mut() {
            if deadline.as_mut().poll(cx).is_ready() {
                this.done = true;
                drop(take_body(&this.body));
                return Poll::Ready(Some(Err(total_timeout_error(Some(*after)).in_body())));
            }
        }
        // Not held across an await: a poll of the body, which the abort algorithm may wait
        // for on another thread.
        let mut slot = this
            .body
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(body) = slot.as_mut() else {
            // Taken by the abort algorithm, which runs once the reason is set.
            this.done = true;
            let reason = this.signal.reason().unwrap_or_else(Error::abort_error);
            return Poll::Ready(Some(Err(reason)));
        };
        let polled = Pin::new(body).poll_next(cx);
        if matches!(polled, Poll::Ready(None) | Poll::Ready(Some(Err(_)))) {
            this.done = true;
        }
        polled
    }
}

/// Builds a [`Client`]. Every option has a documented default.
///
/// ```
/// use std::time::Duration;
/// use whatwg_fetch::Client;
///
/// let client = Client::builder()
///     .max_connections_per_origin(8)
///     .connect_timeout(Duration::from_secs(5))
///     .timeout(Duration::from_secs(30))
///     .user_agent("my-app/1.0")
///     .build()?;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub struct ClientBuilder {
    environment: Environment,
    /// Whether requests may send a `Referer` (see [`ClientBuilder::referer`]).
    referer: bool,
    transport: Option<Arc<dyn Transport>>,
    http_cache: Option<bool>,
    http_cache_store: Option<Arc<dyn HttpCacheStore>>,
    hsts: Option<bool>,
    hyper: HyperTransportBuilder,
    user_agent: Bytes,
    accept_language: Option<Bytes>,
    total_timeout: Option<Duration>,
    body_limits: crate::fetch::BodyLimits,
    allow_file_urls: bool,
    pem_roots: Vec<Vec<u8>>,
    proxy_from_env: bool,
    cookie_store: CookieChoice,
    retry: Option<RetryPolicy>,
    redirect_policy: crate::redirect::Policy,
    https_only: bool,
    digest_auth_from_url: bool,
    default_headers: http::HeaderMap,
    codings: crate::net::ContentCodings,
    /// How long request bodies wait for a `100 Continue`, if they do.
    expect_continue: Option<Duration>,
    #[cfg(feature = "tower")]
    transport_layers: Vec<WrapTransport>,
}

/// A layer given to [`ClientBuilder::transport_layer`], put around the transport by
/// [`ClientBuilder::build`].
#[cfg(feature = "tower")]
type WrapTransport = Box<dyn FnOnce(Arc<dyn Transport>) -> Arc<dyn Transport> + Send + Sync>;

/// What [`ClientBuilder::cookie_store`] and [`ClientBuilder::cookie_store_with`] chose.
enum CookieChoice {
    /// Enabled for a browser-like environment, disabled for a server-side one.
    Default,
    Disabled,
    Enabled,
    Shared(Arc<CookieStore>),
    Provider(Arc<dyn CookieProvider>),
}

impl Default for ClientBuilder {
    fn default() -> ClientBuilder {
        ClientBuilder {
            environment: Environment::server(),
            referer: true,
            transport: None,
            http_cache: None,
            http_cache_store: None,
            hsts: None,
            hyper: HyperTransport::builder(),
            user_agent: Bytes::from_static(DEFAULT_USER_AGENT.as_bytes()),
            accept_language: Some(Bytes::from_static(b"*")),
            total_timeout: None,
            body_limits: crate::fetch::BodyLimits {
                max_response: None,
                max_buffered: Some(DEFAULT_MAX_BUFFERED_BODY_SIZE),
            },
            allow_file_urls: false,
            pem_roots: Vec::new(),
            proxy_from_env: false,
            cookie_store: CookieChoice::Default,
            retry: None,
            redirect_policy: crate::redirect::Policy::default(),
            https_only: false,
            digest_auth_from_url: false,
            default_headers: http::HeaderMap::new(),
            codings: crate::net::ContentCodings::available(),
            expect_continue: None,
            #[cfg(feature = "tower")]
            transport_layers: Vec::new(),
        }
    }
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("environment", &self.environment)
            .field("user_agent", &self.user_agent)
            .field("total_timeout", &self.total_timeout)
            .field("allow_file_urls", &self.allow_file_urls)
            .field("proxy_from_env", &self.proxy_from_env)
            .finish_non_exhaustive()
    }
}

impl ClientBuilder {
    /// A builder with the defaults documented on each option: the same as
    /// [`Client::builder`] and [`ClientBuilder::default`].
    ///
    /// ```
    /// use whatwg_fetch::ClientBuilder;
    ///
    /// let client = ClientBuilder::new().user_agent("inventory-sync/2.1").build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn new() -> ClientBuilder {
        ClientBuilder::default()
    }

    /// Makes requests from a browser-like environment at `url`: its origin turns on CORS,
    /// the `Origin`, `Referer` and `Sec-Fetch-*` headers, forbidden request-headers and
    /// response tainting, exactly as a page at `url` sees them; relative URLs resolve
    /// against it.
    ///
    /// ```
    /// use whatwg_fetch::{Client, Url};
    ///
    /// let client = Client::builder()
    ///     .origin(Url::parse("https://app.example/index.html")?)
    ///     .build()?;
    /// // Relative URLs resolve against the page, as a script's do.
    /// let request = client.get("/api/items").build()?;
    /// assert_eq!(request.url(), "https://app.example/api/items");
    /// // A server-side client has no page to resolve them against.
    /// assert!(Client::new().get("/api/items").build().is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Default is the server-side environment: no origin, no base URL.
    pub fn origin(mut self, url: Url) -> ClientBuilder {
        self.environment = Environment::browser(url);
        self
    }

    /// Makes requests from `environment`.
    ///
    /// ```
    /// use whatwg_fetch::{Client, Environment, Url};
    ///
    /// // Server-side (no origin, no CORS), with relative URLs resolved against an API's root.
    /// let api = Url::parse("https://api.example/v1/")?;
    /// let client = Client::builder()
    ///     .environment(Environment::server().with_base_url(api))
    ///     .build()?;
    /// assert_eq!(client.get("items?page=2").build()?.url(), "https://api.example/v1/items?page=2");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn environment(mut self, environment: Environment) -> ClientBuilder {
        self.environment = environment;
        self
    }

    /// Whether requests send a `Referer`, as reqwest's `referer`: with `false`, the
    /// environment's referrer policy (its policy container's, which a request without a
    /// policy of its own follows) is `no-referrer`, whatever [`origin`](Self::origin) or
    /// [`environment`](Self::environment) made it; a request that sets its own
    /// [`referrer_policy`](crate::RequestBuilder::referrer_policy) still has it, as does a
    /// redirect whose `Referrer-Policy` header sets one (the spec's "set request's
    /// referrer policy on redirect"). With
    /// `true`, the spec decides: a browser-like client sends the page's URL as its
    /// policy says, and a server-side one has no page, so no `Referer`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let page = format!("http://{}/app/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // Answers each request with its head.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let mut head = vec![0; 4096];
    /// #         let n = stream.read(&mut head).await.unwrap_or(0);
    /// #         let head = String::from_utf8_lossy(&head[..n]).to_lowercase();
    /// #         let reply = format!("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{head}", head.len());
    /// #         let _ = stream.write_all(reply.as_bytes()).await;
    /// #     }
    /// # });
    /// use whatwg_fetch::{Client, Url};
    ///
    /// // A page's client, which would send the page's URL to its own origin.
    /// let client = Client::builder().origin(Url::parse(&page)?).referer(false).build()?;
    /// let head = client.get("data.json").send().await?.text().await?;
    /// assert!(!head.contains("referer:"), "{head}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is `true`.
    pub fn referer(mut self, enabled: bool) -> ClientBuilder {
        self.referer = enabled;
        self
    }

    /// Whether the client keeps an in-memory private
    /// [HTTP cache](https://httpwg.org/specs/rfc9111.html) (RFC 9111) that fetches use as the
    /// spec's HTTP-network-or-cache fetch says, honouring each request's cache mode. It holds
    /// at most 1,024 responses and 64 MiB, each body at most 8 MiB, and evicts the least
    /// recently used.
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
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         count.fetch_add(1, Ordering::SeqCst);
    /// #         let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncache-control: max-age=60\r\n\
    /// #             connection: close\r\ncontent-length: 5\r\n\r\nfresh").await;
    /// #     }
    /// # });
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::builder().http_cache(true).build()?;
    /// for _ in 0..3 {
    ///     // `Cache-Control: max-age=60`: the first response serves the next two.
    ///     assert_eq!(client.get(&url).send().await?.text().await?, "fresh");
    /// }
    /// assert_eq!(served.load(Ordering::SeqCst), 1);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is on for a browser-like environment (see [`ClientBuilder::origin`]) and off
    /// for a server-side one, as in Deno and undici, which have no HTTP cache; without a
    /// cache every request behaves as cache mode `"no-store"`.
    pub fn http_cache(mut self, enabled: bool) -> ClientBuilder {
        self.http_cache = Some(enabled);
        self
    }

    /// Turns the HTTP cache on (see [`http_cache`](Self::http_cache)) and writes its
    /// responses through to `store`, so that they outlive the client: a client made later
    /// with the same store (or a [`DiskCacheStore`](crate::cache::DiskCacheStore) on the
    /// same directory) starts with them. The cache then holds at most the store's
    /// [`max_bytes`](HttpCacheStore::max_bytes); see [`crate::cache`]. `http_cache(false)`
    /// still turns the cache off.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::cache::DiskCacheStore;
    ///
    /// # let dir = std::env::temp_dir().join(format!("whatwg-fetch-doc-cache-{}", std::process::id()));
    /// // Responses kept on disk, up to 256 MiB, for the clients of this run and the next.
    /// let store = Arc::new(DiskCacheStore::open(&dir, 256 << 20)?);
    /// let client = Client::builder().http_cache_store(store).build()?;
    /// # let _ = std::fs::remove_dir_all(&dir);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Default is none: the cache, if on, is in memory only.
    pub fn http_cache_store(mut self, store: Arc<dyn HttpCacheStore>) -> ClientBuilder {
        self.http_cache_store = Some(store);
        self
    }

    /// Whether the client keeps the hosts that sent `Strict-Transport-Security` over
    /// `https:` (HSTS, RFC 6797) and upgrades later `http:` requests to them (and to their
    /// subdomains, with `includeSubDomains`) to `https:`, as main fetch step 10 says. The
    /// store is in memory and starts empty; a policy lasts at most a year.
    ///
    /// ```
    /// // Upgrades `http:` requests to the hosts that asked for `https:` only.
    /// let client = whatwg_fetch::Client::builder().hsts(true).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is on for a browser-like environment and off for a server-side one.
    pub fn hsts(mut self, enabled: bool) -> ClientBuilder {
        self.hsts = Some(enabled);
        self
    }

    /// The `User-Agent` sent when a request sets none, and on each `CONNECT` to an HTTP
    /// proxy (see [`HyperTransportBuilder::proxy_user_agent`]).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // Answers with the value of the request's user-agent field.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let mut head = vec![0; 4096];
    /// #     let n = stream.read(&mut head).await.unwrap();
    /// #     let head = String::from_utf8_lossy(&head[..n]).into_owned();
    /// #     let value = head.lines()
    /// #         .find_map(|line| line.split_once(':').filter(|(n, _)| n.eq_ignore_ascii_case("user-agent")))
    /// #         .map_or("", |(_, value)| value.trim()).to_owned();
    /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{value}", value.len());
    /// #     let _ = stream.write_all(reply.as_bytes()).await;
    /// # });
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::builder().user_agent("inventory-sync/2.1").build()?;
    /// assert_eq!(client.get(&url).send().await?.text().await?, "inventory-sync/2.1");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is [`DEFAULT_USER_AGENT`] (`whatwg-fetch/<version>`).
    pub fn user_agent(mut self, user_agent: impl Into<Bytes>) -> ClientBuilder {
        self.user_agent = user_agent.into();
        self
    }

    /// The `Accept-Language` sent when a request sets none; `None` sends none.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // Answers with the value of the request's accept-language field.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let mut head = vec![0; 4096];
    /// #     let n = stream.read(&mut head).await.unwrap();
    /// #     let head = String::from_utf8_lossy(&head[..n]).into_owned();
    /// #     let value = head.lines()
    /// #         .find_map(|line| line.split_once(':').filter(|(n, _)| n.eq_ignore_ascii_case("accept-language")))
    /// #         .map_or("", |(_, value)| value.trim()).to_owned();
    /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{value}", value.len());
    /// #     let _ = stream.write_all(reply.as_bytes()).await;
    /// # });
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::builder().accept_language(Some("fr-CH, fr;q=0.9")).build()?;
    /// assert_eq!(client.get(&url).send().await?.text().await?, "fr-CH, fr;q=0.9");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is `*` (any language), as Deno and undici send.
    pub fn accept_language(mut self, accept_language: Option<impl Into<Bytes>>) -> ClientBuilder {
        self.accept_language = accept_language.map(Into::into);
        self
    }

    /// Headers every request gets, unless it has one of the same name of its own (as
    /// reqwest's `default_headers`): an API key, an `Accept`, a tracing header.
    ///
    /// They are added to the request's `Headers` as a caller's would be, so the same
    /// rules apply: a browser-like client leaves out the forbidden request-headers, and a
    /// `no-cors` request keeps only CORS-safelisted ones.
    ///
    /// ```
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::header::{ACCEPT, HeaderMap, HeaderValue};
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
    /// headers.insert("x-api-key", HeaderValue::from_static("secret"));
    /// let client = Client::builder().default_headers(headers).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is none.
    pub fn default_headers(mut self, headers: http::HeaderMap) -> ClientBuilder {
        self.default_headers = headers;
        self
    }

    /// How redirects are followed: see [`redirect::Policy`](crate::redirect::Policy). A
    /// request's own [`RequestRedirect`](crate::RequestRedirect) still rules first:
    /// `error` and `manual` never reach the policy.
    ///
    /// ```
    /// use whatwg_fetch::{Client, redirect};
    ///
    /// let client = Client::builder().redirect(redirect::Policy::limited(5)).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is the spec's: at most 20 redirects.
    pub fn redirect(mut self, policy: crate::redirect::Policy) -> ClientBuilder {
        self.redirect_policy = policy;
        self
    }

    /// Refuses every request to a plain `http:` URL with a network error
    /// ([`NetworkError::Blocked`]), and every redirect to one with a redirect error
    /// ([`NetworkError::RedirectToHttp`], [`Error::is_redirect`]); a URL that HSTS upgrades
    /// to `https:` passes. `data:`, `blob:` and `file:` URLs are not network requests and
    /// are not affected.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Client, NetworkError};
    ///
    /// let client = Client::builder().https_only(true).build()?;
    /// let error = client.get("http://example.com/").send().await.unwrap_err();
    /// assert!(matches!(error.network_error(), Some(NetworkError::Blocked(_))));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is `false`.
    pub fn https_only(mut self, enabled: bool) -> ClientBuilder {
        self.https_only = enabled;
        self
    }

    /// Takes the username and password of a URL with credentials
    /// (`http://user:pass@host/`) given to a [`RequestBuilder`]
    /// (`client.get(url)`, …) as its [`digest_auth`](crate::RequestBuilder::digest_auth),
    /// as curl's `--digest` takes them: percent-decoded and out of the URL, so the
    /// request's URL has none and they go only as the answer to a `Digest` challenge,
    /// never as `Basic`. Credentials given with `digest_auth` win over the URL's.
    ///
    /// Off, such a URL is a `TypeError`, as the `Request` constructor throws (step 5.3 of
    /// [`new Request`](https://fetch.spec.whatwg.org/#dom-request)), and it stays one for
    /// [`Client::fetch`] and a [`Request`] made by the caller either way.
    ///
    /// ```
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::builder().digest_auth_from_url(true).build()?;
    /// let request = client.get("http://ada:s%3Dcret@127.0.0.1:8080/status").build()?;
    /// assert_eq!(request.url(), "http://127.0.0.1:8080/status");
    /// assert_eq!(request.headers().get("authorization")?, None);
    ///
    /// let strict = Client::builder().build()?;
    /// assert!(strict.get("http://ada:secret@127.0.0.1:8080/").build().is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `false`.
    pub fn digest_auth_from_url(mut self, enabled: bool) -> ClientBuilder {
        self.digest_auth_from_url = enabled;
        self
    }

    /// Whether gzip bodies are decoded and `gzip` named in `Accept-Encoding`, as reqwest's
    /// `gzip`; off, a gzip body comes as sent (its `Content-Encoding` says so). Only with
    /// the `gzip` feature, as only then is there a decoder.
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().gzip(false).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `true`.
    #[cfg(feature = "gzip")]
    pub fn gzip(mut self, enabled: bool) -> ClientBuilder {
        self.codings = self.codings.with(crate::net::ContentCoding::Gzip, enabled);
        self
    }

    /// As [`gzip`](Self::gzip), for `deflate` (the `deflate` feature).
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().deflate(false).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    #[cfg(feature = "deflate")]
    pub fn deflate(mut self, enabled: bool) -> ClientBuilder {
        self.codings = self
            .codings
            .with(crate::net::ContentCoding::Deflate, enabled);
        self
    }

    /// As [`gzip`](Self::gzip), for Brotli, `br` (the `brotli` feature).
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().brotli(false).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    #[cfg(feature = "brotli")]
    pub fn brotli(mut self, enabled: bool) -> ClientBuilder {
        self.codings = self
            .codings
            .with(crate::net::ContentCoding::Brotli, enabled);
        self
    }

    /// As [`gzip`](Self::gzip), for `zstd` (the `zstd` feature).
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().zstd(false).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    #[cfg(feature = "zstd")]
    pub fn zstd(mut self, enabled: bool) -> ClientBuilder {
        self.codings = self.codings.with(crate::net::ContentCoding::Zstd, enabled);
        self
    }

    /// The longest a whole fetch may take, body included; past it the fetch or its body
    /// fails with [`NetworkError::Timeout`] with [`TimeoutKind::Total`].
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # // Accepts the connection and never answers.
    /// # tokio::spawn(async move { let _kept = listener.accept().await; std::future::pending::<()>().await });
    /// use std::time::Duration;
    /// use whatwg_fetch::{Client, NetworkError, TimeoutKind};
    ///
    /// let client = Client::builder().timeout(Duration::from_millis(200)).build()?;
    /// let error = client.get(&url).send().await.unwrap_err();
    /// assert!(error.is_timeout());
    /// assert!(matches!(
    ///     error.network_error(),
    ///     Some(NetworkError::Timeout { kind: TimeoutKind::Total, .. })
    /// ));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is no limit.
    pub fn timeout(mut self, timeout: Duration) -> ClientBuilder {
        self.total_timeout = Some(timeout);
        self
    }

    /// Fetches a request again after a failure that another try may get past, as
    /// `policy` says (see [`RetryPolicy`] for what is retried, when and how often). The
    /// [`timeout`](Self::timeout) bounds all the attempts and the waits between them
    /// together, and the request's signal aborts them all.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::{Client, RetryPolicy};
    ///
    /// let client = Client::builder()
    ///     .retry(RetryPolicy::new().max_attempts(3).base_delay(Duration::from_millis(100)))
    ///     .timeout(Duration::from_secs(10))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is none: every fetch is sent once, and costs nothing more than without
    /// this option. (The network layer's resending of a request that a closing keep-alive
    /// connection lost before processing it is not this, and happens either way.)
    pub fn retry(mut self, policy: RetryPolicy) -> ClientBuilder {
        self.retry = Some(policy);
        self
    }

    /// The most bytes a response body from the network may deliver, however it is read:
    /// as a stream ([`Response::body`], [`http_body::Body`]) or whole
    /// ([`bytes`](Response::bytes), [`text`](Response::text), [`json`](Response::json),
    /// [`blob`](Response::blob), [`form_data`](Response::form_data)). The bytes counted are
    /// the decoded ones, after content codings are undone, so a small compressed body that
    /// expands without end is stopped too. The body delivers chunks while they keep it
    /// within the limit; the chunk that would pass it errors the body instead, with a
    /// `TypeError` whose [`network_error`](Error::network_error) is
    /// [`NetworkError::BodyTooLarge`]. A response whose `Content-Length` (without content
    /// codings) is over the limit fails at its first read, before a byte is read. A body
    /// of exactly the limit is read whole.
    ///
    /// Only bodies from the network (or from the HTTP cache) are limited: not a
    /// [`Response::new`] body, nor `data:`, `blob:` or `file:` URLs. One response can
    /// change its limit with [`Response::set_max_body_size`] before its body is read.
    ///
    /// Default is `None`: no limit, as in reqwest, undici (whose `maxResponseSize` is
    /// opt-in), Deno and browsers. Reads of the whole body are still held to
    /// [`max_buffered_body_size`](Self::max_buffered_body_size).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 1024]).await;
    /// #     let body = "x".repeat(2000);
    /// #     let head = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n", body.len());
    /// #     let _ = stream.write_all(head.as_bytes()).await;
    /// #     let _ = stream.write_all(body.as_bytes()).await;
    /// # });
    /// use whatwg_fetch::{Client, NetworkError, RequestInit};
    ///
    /// let client = Client::builder().max_response_body_size(Some(1024)).build()?;
    /// let mut response = client.fetch(url.as_str(), RequestInit::default()).await?;
    /// let error = response.text().await.unwrap_err();
    /// assert!(matches!(error.network_error(), Some(NetworkError::BodyTooLarge { limit: 1024 })));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn max_response_body_size(mut self, max: Option<u64>) -> ClientBuilder {
        self.body_limits.max_response = max;
        self
    }

    /// The most bytes a response body from the network may deliver when it is read whole,
    /// into memory: by [`bytes`](Response::bytes), [`text`](Response::text),
    /// [`json`](Response::json), [`blob`](Response::blob) or
    /// [`form_data`](Response::form_data) (and by a request's `integrity` check). Past it
    /// the read fails with a `TypeError` whose [`network_error`](Error::network_error) is
    /// [`NetworkError::BodyTooLarge`], without the rest being read; a `Content-Length`
    /// (without content codings) over it fails at once. Reading the body as a stream is
    /// not limited by this, only by
    /// [`max_response_body_size`](Self::max_response_body_size).
    ///
    /// A stream keeps no more than a chunk or two in memory however long it is, so only
    /// whole reads get a default: without one, a hostile or broken server (an endless
    /// chunked or close-delimited body, or 1.6 KB of Brotli that decodes to 1 GiB) grows a
    /// `text()` until the process runs out of memory. reqwest and undici have no default
    /// limit; browsers have none on bodies, though their JavaScript engines cap a string
    /// at about 512 MiB to 1 GiB; ureq caps `read_to_string` and `read_to_vec` at 10 MB,
    /// and Tornado's `max_body_size` is 100 MB. 256 MiB leaves room for any body a
    /// program means to hold in memory while bounding what a server can make it hold;
    /// stream anything larger, or raise or lift this.
    ///
    /// As [`max_response_body_size`](Self::max_response_body_size), only bodies from the
    /// network are limited, and [`Response::set_max_body_size`] replaces this for one
    /// response.
    ///
    /// ```
    /// // `text()`, `json()` and the rest hold at most 16 MiB; streams are not limited.
    /// let client = whatwg_fetch::Client::builder().max_buffered_body_size(Some(16 << 20)).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is 256 MiB ([`DEFAULT_MAX_BUFFERED_BODY_SIZE`]); `None` is no limit.
    pub fn max_buffered_body_size(mut self, max: Option<u64>) -> ClientBuilder {
        self.body_limits.max_buffered = max;
        self
    }

    /// The longest DNS, TCP connect and TLS handshake may take together; past it the fetch
    /// fails with [`NetworkError::Timeout`] with [`TimeoutKind::Connect`].
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let client = whatwg_fetch::Client::builder().connect_timeout(Duration::from_secs(3)).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::connect_timeout`], which this sets.
    ///
    /// [`HyperTransportBuilder::connect_timeout`]: crate::net::HyperTransportBuilder::connect_timeout
    pub fn connect_timeout(mut self, timeout: Duration) -> ClientBuilder {
        self.hyper = self.hyper.connect_timeout(Some(timeout));
        self
    }

    /// The longest to wait for the response head, and then between two pieces of the
    /// body; past it the fetch or its body fails with
    /// [`NetworkError::Timeout`] with [`TimeoutKind::Idle`]. Takes a `Duration`, or `None`
    /// for no limit.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let client = whatwg_fetch::Client::builder().read_timeout(Duration::from_secs(30)).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::read_timeout`], which this sets.
    ///
    /// [`HyperTransportBuilder::read_timeout`]: crate::net::HyperTransportBuilder::read_timeout
    pub fn read_timeout(mut self, timeout: impl Into<Option<Duration>>) -> ClientBuilder {
        self.hyper = self.hyper.read_timeout(timeout.into());
        self
    }

    /// The most HTTP/2 connections open at once to one origin: another opens beside them
    /// when every stream of theirs is taken.
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().http2_max_connections_per_origin(2).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http2_max_connections_per_origin`], which this sets.
    ///
    /// [`HyperTransportBuilder::http2_max_connections_per_origin`]: crate::net::HyperTransportBuilder::http2_max_connections_per_origin
    pub fn http2_max_connections_per_origin(mut self, max: usize) -> ClientBuilder {
        self.hyper = self.hyper.http2_max_connections_per_origin(max);
        self
    }

    /// The most connections open at once to one origin; further requests wait their turn.
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().max_connections_per_origin(8).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::max_connections_per_origin`], which this sets.
    ///
    /// [`HyperTransportBuilder::max_connections_per_origin`]: crate::net::HyperTransportBuilder::max_connections_per_origin
    pub fn max_connections_per_origin(mut self, max: usize) -> ClientBuilder {
        self.hyper = self.hyper.max_connections_per_origin(max);
        self
    }

    /// The most idle connections kept per origin.
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().max_idle_per_origin(4).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::max_idle_per_origin`], which this sets.
    ///
    /// [`HyperTransportBuilder::max_idle_per_origin`]: crate::net::HyperTransportBuilder::max_idle_per_origin
    pub fn max_idle_per_origin(mut self, max: usize) -> ClientBuilder {
        self.hyper = self.hyper.max_idle_per_origin(max);
        self
    }

    /// How long an idle connection is kept; `None` keeps it until the peer closes it.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let client = whatwg_fetch::Client::builder().pool_idle_timeout(Some(Duration::from_secs(30))).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::pool_idle_timeout`], which this sets.
    ///
    /// [`HyperTransportBuilder::pool_idle_timeout`]: crate::net::HyperTransportBuilder::pool_idle_timeout
    pub fn pool_idle_timeout(mut self, timeout: Option<Duration>) -> ClientBuilder {
        self.hyper = self.hyper.pool_idle_timeout(timeout);
        self
    }

    /// Whether `http:` URLs speak HTTP/2 without negotiation.
    ///
    /// ```
    /// // An `http:` service that speaks HTTP/2 only (h2c), as gRPC servers do.
    /// let client = whatwg_fetch::Client::builder().http2_prior_knowledge(true).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http2_prior_knowledge`], which this sets.
    ///
    /// [`HyperTransportBuilder::http2_prior_knowledge`]: crate::net::HyperTransportBuilder::http2_prior_knowledge
    pub fn http2_prior_knowledge(mut self, enabled: bool) -> ClientBuilder {
        self.hyper = self.hyper.http2_prior_knowledge(enabled);
        self
    }

    /// Whether `https:` origins that announce HTTP/3 by `Alt-Svc` are reached over QUIC
    /// (the `http3` Cargo feature).
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().http3(true).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http3`], which this sets.
    ///
    /// [`HyperTransportBuilder::http3`]: crate::net::HyperTransportBuilder::http3
    #[cfg(feature = "http3")]
    pub fn http3(mut self, enabled: bool) -> ClientBuilder {
        self.hyper = self.hyper.http3(enabled);
        self
    }

    /// Whether `https:` URLs speak HTTP/3 without discovery (reqwest's
    /// `http3_prior_knowledge`; the `http3` Cargo feature).
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().http3_prior_knowledge().build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http3_prior_knowledge`], which this sets.
    ///
    /// [`HyperTransportBuilder::http3_prior_knowledge`]: crate::net::HyperTransportBuilder::http3_prior_knowledge
    #[cfg(feature = "http3")]
    pub fn http3_prior_knowledge(mut self) -> ClientBuilder {
        self.hyper = self.hyper.http3_prior_knowledge(true);
        self
    }

    /// The cache of the `Alt-Svc` alternatives origins announced, by which requests go
    /// over HTTP/3: one to share between clients, or to save and load from one run to
    /// the next (the `http3` Cargo feature; curl's name for it is the alt-svc cache).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::AltSvcCache;
    ///
    /// // Two clients that learn from each other which origins speak HTTP/3.
    /// let cache = Arc::new(AltSvcCache::new());
    /// let one = Client::builder().http3(true).alt_svc_cache(cache.clone()).build()?;
    /// let two = Client::builder().http3(true).alt_svc_cache(cache).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::alt_svc_cache`], which this sets; the file format:
    /// [`AltSvcCache`](crate::net::AltSvcCache).
    ///
    /// [`HyperTransportBuilder::alt_svc_cache`]: crate::net::HyperTransportBuilder::alt_svc_cache
    #[cfg(feature = "http3")]
    pub fn alt_svc_cache(mut self, cache: Arc<crate::net::AltSvcCache>) -> ClientBuilder {
        self.hyper = self.hyper.alt_svc_cache(cache);
        self
    }

    /// Whether new HTTP/3 connections resuming a TLS session send their first safe
    /// requests as 0-RTT data (reqwest's `tls_early_data`; the `http3` Cargo feature).
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().http3(true).tls_early_data(true).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::tls_early_data`], which this sets.
    ///
    /// [`HyperTransportBuilder::tls_early_data`]: crate::net::HyperTransportBuilder::tls_early_data
    #[cfg(feature = "http3")]
    pub fn tls_early_data(mut self, enabled: bool) -> ClientBuilder {
        self.hyper = self.hyper.tls_early_data(enabled);
        self
    }

    /// How long an HTTP/3 connection may go without a packet from its server (QUIC's idle
    /// timeout; reqwest's name; the `http3` Cargo feature).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let client = whatwg_fetch::Client::builder().http3(true).http3_max_idle_timeout(Duration::from_secs(30)).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http3_max_idle_timeout`], which this sets.
    ///
    /// [`HyperTransportBuilder::http3_max_idle_timeout`]: crate::net::HyperTransportBuilder::http3_max_idle_timeout
    #[cfg(feature = "http3")]
    pub fn http3_max_idle_timeout(mut self, timeout: Duration) -> ClientBuilder {
        self.hyper = self.hyper.http3_max_idle_timeout(timeout);
        self
    }

    /// How long an HTTP/3 connection may hear nothing from its server before it sends a
    /// PING (the `http3` Cargo feature).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let client = whatwg_fetch::Client::builder().http3(true).http3_keep_alive_interval(Duration::from_secs(10)).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http3_keep_alive_interval`], which this sets.
    ///
    /// [`HyperTransportBuilder::http3_keep_alive_interval`]: crate::net::HyperTransportBuilder::http3_keep_alive_interval
    #[cfg(feature = "http3")]
    pub fn http3_keep_alive_interval(mut self, interval: Duration) -> ClientBuilder {
        self.hyper = self.hyper.http3_keep_alive_interval(interval);
        self
    }

    /// How long what an HTTP/3 server must acknowledge may go unanswered before the
    /// connection's path is taken for dead (the `http3` Cargo feature).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let client = whatwg_fetch::Client::builder().http3(true).http3_keep_alive_timeout(Duration::from_secs(5)).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http3_keep_alive_timeout`], which this sets.
    ///
    /// [`HyperTransportBuilder::http3_keep_alive_timeout`]: crate::net::HyperTransportBuilder::http3_keep_alive_timeout
    #[cfg(feature = "http3")]
    pub fn http3_keep_alive_timeout(mut self, timeout: Duration) -> ClientBuilder {
        self.hyper = self.hyper.http3_keep_alive_timeout(timeout);
        self
    }

    /// Speaks only HTTP/1.1: `h2` is not offered by ALPN on `https:` connections.
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().http1_only().build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http1_only`], which this sets.
    ///
    /// [`HyperTransportBuilder::http1_only`]: crate::net::HyperTransportBuilder::http1_only
    pub fn http1_only(mut self) -> ClientBuilder {
        self.hyper = self.hyper.http1_only();
        self
    }

    /// Uploads that wait for the server's go-ahead: a request with a body sends its head
    /// with `Expect: 100-continue` and its body only after a `100 Continue`, or after
    /// `wait` without an answer (servers that do not know the expectation never send
    /// one; curl waits 1 s). A final response that comes first (a `401`, a `413`, a
    /// redirect) ends the request without sending the body, so that a refused upload
    /// costs nothing. Over HTTP/1.1 a streamed body of no declared length (chunked)
    /// then ends at once, empty, and the connection goes on serving requests; a body
    /// whose length the head declared cannot end early, and its connection is closed,
    /// as the server may still expect those bytes. Over HTTP/2 the stream is reset once
    /// the response has been read, and the connection goes on. A `417 Expectation Failed` sends the request
    /// again without the expectation (HTTP/1.1). `None` sends bodies with their heads;
    /// [`RequestBuilder::expect_continue`] decides for one request.
    ///
    /// A redirect that keeps the body (`307`, `308`) waits again; a retry
    /// ([`retry`](Self::retry)) too. Such requests are never pipelined. HTTP/3 sends the
    /// body at once.
    ///
    /// Default is `None`.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let client = whatwg_fetch::Client::builder()
    ///     .expect_continue(Some(Duration::from_secs(1)))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn expect_continue(mut self, wait: Option<Duration>) -> ClientBuilder {
        self.expect_continue = wait;
        self
    }

    /// HTTP/1.1 pipelining: up to `depth` requests in flight on one connection, written
    /// without waiting for the responses before them. Off by default; read when not to
    /// use it (a slow response holds up those behind it) before turning it on.
    ///
    /// What it does, which requests it takes, its limits and its default: the
    /// transport's [`HyperTransportBuilder::http1_pipelining`], which this sets.
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder()
    ///     .http1_pipelining(10)
    ///     .max_connections_per_origin(50)
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// [`HyperTransportBuilder::http1_pipelining`]: crate::net::HyperTransportBuilder::http1_pipelining
    pub fn http1_pipelining(mut self, depth: usize) -> ClientBuilder {
        self.hyper = self.hyper.http1_pipelining(depth);
        self
    }

    /// Whether HTTP/1.1 header names go out in title case (`Content-Type`).
    ///
    /// ```
    /// // For an old server that matches `Content-Type` but not `content-type`.
    /// let client = whatwg_fetch::Client::builder().http1_title_case_headers(true).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http1_title_case_headers`], which this sets.
    ///
    /// [`HyperTransportBuilder::http1_title_case_headers`]: crate::net::HyperTransportBuilder::http1_title_case_headers
    pub fn http1_title_case_headers(mut self, enabled: bool) -> ClientBuilder {
        self.hyper = self.hyper.http1_title_case_headers(enabled);
        self
    }

    /// The largest HTTP/1.1 response head accepted, in bytes; a larger one fails the
    /// fetch with a [`NetworkError::Protocol`] naming this limit.
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().http1_max_header_size(64 * 1024).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http1_max_header_size`], which this sets.
    ///
    /// [`HyperTransportBuilder::http1_max_header_size`]: crate::net::HyperTransportBuilder::http1_max_header_size
    pub fn http1_max_header_size(mut self, max: u32) -> ClientBuilder {
        self.hyper = self.hyper.http1_max_header_size(max);
        self
    }

    /// The most header fields an HTTP/1.1 response may have.
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().http1_max_headers(200).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http1_max_headers`], which this sets.
    ///
    /// [`HyperTransportBuilder::http1_max_headers`]: crate::net::HyperTransportBuilder::http1_max_headers
    pub fn http1_max_headers(mut self, max: usize) -> ClientBuilder {
        self.hyper = self.hyper.http1_max_headers(max);
        self
    }

    /// The largest HTTP/2 response head accepted (`SETTINGS_MAX_HEADER_LIST_SIZE`); a
    /// larger one fails the fetch with a [`NetworkError::Protocol`] naming this limit.
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().http2_max_header_list_size(64 * 1024).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http2_max_header_list_size`], which this sets.
    ///
    /// [`HyperTransportBuilder::http2_max_header_list_size`]: crate::net::HyperTransportBuilder::http2_max_header_list_size
    pub fn http2_max_header_list_size(mut self, max: u32) -> ClientBuilder {
        self.hyper = self.hyper.http2_max_header_list_size(max);
        self
    }

    /// The HTTP/2 flow-control window of each stream, in bytes.
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().http2_initial_stream_window_size(1 << 20).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http2_initial_stream_window_size`], which this sets.
    ///
    /// [`HyperTransportBuilder::http2_initial_stream_window_size`]: crate::net::HyperTransportBuilder::http2_initial_stream_window_size
    pub fn http2_initial_stream_window_size(
        mut self,
        size: impl Into<Option<u32>>,
    ) -> ClientBuilder {
        self.hyper = self.hyper.http2_initial_stream_window_size(size);
        self
    }

    /// The HTTP/2 flow-control window of a connection, in bytes.
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().http2_initial_connection_window_size(4 << 20).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http2_initial_connection_window_size`], which this sets.
    ///
    /// [`HyperTransportBuilder::http2_initial_connection_window_size`]: crate::net::HyperTransportBuilder::http2_initial_connection_window_size
    pub fn http2_initial_connection_window_size(
        mut self,
        size: impl Into<Option<u32>>,
    ) -> ClientBuilder {
        self.hyper = self.hyper.http2_initial_connection_window_size(size);
        self
    }

    /// Whether HTTP/2 windows follow the measured bandwidth-delay product.
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().http2_adaptive_window(true).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http2_adaptive_window`], which this sets.
    ///
    /// [`HyperTransportBuilder::http2_adaptive_window`]: crate::net::HyperTransportBuilder::http2_adaptive_window
    pub fn http2_adaptive_window(mut self, enabled: bool) -> ClientBuilder {
        self.hyper = self.hyper.http2_adaptive_window(enabled);
        self
    }

    /// The largest HTTP/2 frame payload accepted (`SETTINGS_MAX_FRAME_SIZE`).
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().http2_max_frame_size(64 * 1024).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http2_max_frame_size`], which this sets.
    ///
    /// [`HyperTransportBuilder::http2_max_frame_size`]: crate::net::HyperTransportBuilder::http2_max_frame_size
    pub fn http2_max_frame_size(mut self, size: impl Into<Option<u32>>) -> ClientBuilder {
        self.hyper = self.hyper.http2_max_frame_size(size);
        self
    }

    /// How often to send an HTTP/2 keep-alive PING; a PING unanswered within
    /// [`http2_keep_alive_timeout`](Self::http2_keep_alive_timeout) closes the connection.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let client = whatwg_fetch::Client::builder().http2_keep_alive_interval(Duration::from_secs(20))
    ///     .http2_keep_alive_timeout(Duration::from_secs(5))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http2_keep_alive_interval`], which this sets.
    ///
    /// [`HyperTransportBuilder::http2_keep_alive_interval`]: crate::net::HyperTransportBuilder::http2_keep_alive_interval
    pub fn http2_keep_alive_interval(
        mut self,
        interval: impl Into<Option<Duration>>,
    ) -> ClientBuilder {
        self.hyper = self.hyper.http2_keep_alive_interval(interval);
        self
    }

    /// How long to wait for a keep-alive PING's acknowledgement.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let client = whatwg_fetch::Client::builder().http2_keep_alive_interval(Duration::from_secs(20))
    ///     .http2_keep_alive_timeout(Duration::from_secs(5))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http2_keep_alive_timeout`], which this sets.
    ///
    /// [`HyperTransportBuilder::http2_keep_alive_timeout`]: crate::net::HyperTransportBuilder::http2_keep_alive_timeout
    pub fn http2_keep_alive_timeout(mut self, timeout: Duration) -> ClientBuilder {
        self.hyper = self.hyper.http2_keep_alive_timeout(timeout);
        self
    }

    /// Whether keep-alive PINGs go out while no request is in flight too.
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let client = whatwg_fetch::Client::builder().http2_keep_alive_interval(Duration::from_secs(20))
    ///     .http2_keep_alive_while_idle(true)
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::http2_keep_alive_while_idle`], which this sets.
    ///
    /// [`HyperTransportBuilder::http2_keep_alive_while_idle`]: crate::net::HyperTransportBuilder::http2_keep_alive_while_idle
    pub fn http2_keep_alive_while_idle(mut self, enabled: bool) -> ClientBuilder {
        self.hyper = self.hyper.http2_keep_alive_while_idle(enabled);
        self
    }

    /// Resolves `host` to `addr` instead of asking DNS (a port of 0 keeps the URL's port).
    /// [`RequestBuilder::resolve`] decides for one request.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let port = listener.local_addr().unwrap().port();
    /// # tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// # });
    /// use std::net::SocketAddr;
    /// use whatwg_fetch::Client;
    ///
    /// // `api.example` is this machine, whatever DNS says; port 0 keeps the URL's.
    /// let client = Client::builder()
    ///     .resolve("api.example", SocketAddr::from(([127, 0, 0, 1], 0)))
    ///     .build()?;
    /// let url = format!("http://api.example:{port}/");
    /// assert_eq!(client.get(&url).send().await?.text().await?, "ok");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::resolve`], which this sets.
    ///
    /// [`HyperTransportBuilder::resolve`]: crate::net::HyperTransportBuilder::resolve
    pub fn resolve(mut self, host: &str, addr: SocketAddr) -> ClientBuilder {
        self.hyper = self.hyper.resolve(host, addr);
        self
    }

    /// Sends connections to `host` to `addrs` instead of asking DNS, raced as resolved
    /// addresses are (Happy Eyeballs); a port of 0 keeps the URL's. An empty `addrs`
    /// makes connecting to `host` fail with a [`NetworkError::Dns`].
    /// [`RequestBuilder::resolve_to_addrs`] does the same for one request.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let port = listener.local_addr().unwrap().port();
    /// # tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// # });
    /// use std::net::SocketAddr;
    /// use whatwg_fetch::Client;
    ///
    /// // Nothing listens on [::1] here, so 127.0.0.1 answers.
    /// let addrs: [SocketAddr; 2] = ["[::1]:0".parse()?, "127.0.0.1:0".parse()?];
    /// let client = Client::builder().resolve_to_addrs("api.example", &addrs).build()?;
    /// let url = format!("http://api.example:{port}/");
    /// assert_eq!(client.get(&url).send().await?.text().await?, "ok");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::resolve_to_addrs`], which this sets.
    ///
    /// [`HyperTransportBuilder::resolve_to_addrs`]: crate::net::HyperTransportBuilder::resolve_to_addrs
    pub fn resolve_to_addrs(mut self, host: &str, addrs: &[SocketAddr]) -> ClientBuilder {
        self.hyper = self.hyper.resolve_to_addrs(host, addrs);
        self
    }

    /// Resolves host names with `resolve` before asking DNS: it gets the lowercase name and
    /// returns its addresses (a port of 0 keeps the URL's port), or `None` to ask DNS. Names
    /// given to [`resolve`](Self::resolve) are answered first.
    ///
    /// ```
    /// use std::net::SocketAddr;
    /// use whatwg_fetch::Client;
    ///
    /// let local = SocketAddr::from(([127, 0, 0, 1], 0));
    /// let client = Client::builder()
    ///     .resolve_with(move |host| host.ends_with(".test").then(|| vec![local]))
    ///     .build();
    /// assert!(client.is_ok());
    /// ```
    ///
    /// Default is `None`: DNS through the system resolver.
    pub fn resolve_with<F>(mut self, resolve: F) -> ClientBuilder
    where
        F: Fn(&str) -> Option<Vec<SocketAddr>> + Send + Sync + 'static,
    {
        self.hyper = self.hyper.resolve_with(resolve);
        self
    }

    /// Resolves host names with `resolver` instead of the system resolver, after
    /// [`resolve`](Self::resolve) and [`resolve_with`](Self::resolve_with); a failure is
    /// a `TypeError` whose [`network_error`](Error::network_error) is
    /// [`NetworkError::Dns`]. See [`Resolve`] for an example.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::{Resolve, ResolveFuture, SystemResolver};
    ///
    /// /// Names under `.internal` from a registry, the rest from the system.
    /// struct Registry;
    ///
    /// impl Resolve for Registry {
    ///     fn resolve(&self, name: &str) -> ResolveFuture {
    ///         if name.ends_with(".internal") {
    ///             return Box::pin(async { Ok(vec![([10, 0, 0, 7], 0).into()]) });
    ///         }
    ///         SystemResolver.resolve(name)
    ///     }
    /// }
    ///
    /// let client = Client::builder().resolver(Arc::new(Registry)).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::resolver`], which this sets.
    ///
    /// [`HyperTransportBuilder::resolver`]: crate::net::HyperTransportBuilder::resolver
    pub fn resolver(mut self, resolver: Arc<dyn Resolve>) -> ClientBuilder {
        self.hyper = self.hyper.resolver(resolver);
        self
    }

    /// Resolves host names with hickory's DNS resolver instead of `getaddrinfo`:
    /// reqwest's `hickory_dns`.
    ///
    /// ```no_run
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::builder().hickory_dns(true).build()?;
    /// # let _ = client;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default (and why there is no `no_hickory_dns`):
    /// the transport's [`HyperTransportBuilder::hickory_dns`], which this sets.
    #[cfg(feature = "hickory-dns")]
    pub fn hickory_dns(mut self, enabled: bool) -> ClientBuilder {
        self.hyper = self.hyper.hickory_dns(enabled);
        self
    }

    /// The Connection Attempt Delay of Happy Eyeballs (RFC 8305): with several addresses
    /// for a host, the next is tried this long after the last attempt started, or at once
    /// when an attempt fails; IPv6 and IPv4 alternate, and the first to connect wins.
    /// Held between 100 ms and 2 s (RFC 8305's bounds); see
    /// [`HyperTransportBuilder::happy_eyeballs_delay`].
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let client = whatwg_fetch::Client::builder().happy_eyeballs_delay(Duration::from_millis(250)).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::happy_eyeballs_delay`], which this sets.
    ///
    /// [`HyperTransportBuilder::happy_eyeballs_delay`]: crate::net::HyperTransportBuilder::happy_eyeballs_delay
    pub fn happy_eyeballs_delay(mut self, delay: Duration) -> ClientBuilder {
        self.hyper = self.hyper.happy_eyeballs_delay(delay);
        self
    }

    /// The local IP address connections are made from; a host's addresses of the other
    /// family are not tried.
    ///
    /// ```
    /// use std::net::IpAddr;
    ///
    /// let client = whatwg_fetch::Client::builder().local_address(Some(IpAddr::from([127, 0, 0, 1]))).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::local_address`], which this sets.
    ///
    /// [`HyperTransportBuilder::local_address`]: crate::net::HyperTransportBuilder::local_address
    pub fn local_address(mut self, address: Option<IpAddr>) -> ClientBuilder {
        self.hyper = self.hyper.local_address(address);
        self
    }

    /// Turns on TCP keep-alive probes after this much idle time, in whole seconds from 1
    /// to 32,767 (what `TCP_KEEPIDLE` takes; a time outside is taken as the nearest).
    ///
    /// ```
    /// use std::time::Duration;
    ///
    /// let client = whatwg_fetch::Client::builder().tcp_keepalive(Some(Duration::from_secs(60))).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::tcp_keepalive`], which this sets.
    ///
    /// [`HyperTransportBuilder::tcp_keepalive`]: crate::net::HyperTransportBuilder::tcp_keepalive
    pub fn tcp_keepalive(mut self, idle: Option<Duration>) -> ClientBuilder {
        self.hyper = self.hyper.tcp_keepalive(idle);
        self
    }

    /// Whether to set `TCP_NODELAY` (no Nagle delay on small writes).
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().tcp_nodelay(false).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::tcp_nodelay`], which this sets.
    ///
    /// [`HyperTransportBuilder::tcp_nodelay`]: crate::net::HyperTransportBuilder::tcp_nodelay
    pub fn tcp_nodelay(mut self, enabled: bool) -> ClientBuilder {
        self.hyper = self.hyper.tcp_nodelay(enabled);
        self
    }

    /// Sends every request to the Unix domain socket at `path` instead of over TCP,
    /// whatever its URL's host: reqwest's `unix_socket`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let path = std::env::temp_dir().join(format!("whatwg-fetch-doc-{}.sock", std::process::id()));
    /// # let _ = std::fs::remove_file(&path);
    /// # let listener = tokio::net::UnixListener::bind(&path).unwrap();
    /// # tokio::spawn(async move {
    /// #     use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 1024]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// # });
    /// use whatwg_fetch::{Client, RequestInit};
    ///
    /// // A server listening on `path`, as the Docker daemon does on /var/run/docker.sock.
    /// let client = Client::builder().unix_socket(&path).build()?;
    /// let mut response = client.fetch("http://localhost/_ping", RequestInit::default()).await?;
    /// assert_eq!(response.text().await?, "ok");
    /// # let _ = std::fs::remove_file(&path);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::unix_socket`], which this sets.
    ///
    /// [`HyperTransportBuilder::unix_socket`]: crate::net::HyperTransportBuilder::unix_socket
    #[cfg(unix)]
    pub fn unix_socket(mut self, path: impl Into<PathBuf>) -> ClientBuilder {
        self.hyper = self.hyper.unix_socket(path);
        self
    }

    /// Trusts every certificate in a PEM document as a root, besides the system's and the
    /// built-in ones. The document is read by [`build`](Self::build).
    ///
    /// ```
    /// use whatwg_fetch::Client;
    ///
    /// # let pem = rcgen::generate_simple_self_signed(vec!["ca.internal".to_owned()]).unwrap().cert.pem();
    /// // `pem`: the private CA's certificates, as `std::fs::read("ca.pem")?` reads them.
    /// let client = Client::builder().add_root_certificates_pem(pem).build()?;
    /// // A document that holds no certificate fails the build, not the first request.
    /// assert!(Client::builder().add_root_certificates_pem("no certificate").build().is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn add_root_certificates_pem(mut self, pem: impl Into<Vec<u8>>) -> ClientBuilder {
        self.pem_roots.push(pem.into());
        self
    }

    /// Trusts one more root certificate, DER-encoded, besides the system's and the built-in
    /// ones.
    ///
    /// ```
    /// use whatwg_fetch::Client;
    ///
    /// # let der = rcgen::generate_simple_self_signed(vec!["ca.internal".to_owned()]).unwrap().cert.der().to_vec();
    /// // `der`: one DER-encoded root, as `std::fs::read("ca.der")?` reads it.
    /// let client = Client::builder().add_root_certificate_der(der).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::add_root_certificate_der`], which this sets.
    ///
    /// [`HyperTransportBuilder::add_root_certificate_der`]: crate::net::HyperTransportBuilder::add_root_certificate_der
    pub fn add_root_certificate_der(mut self, der: impl Into<Vec<u8>>) -> ClientBuilder {
        self.hyper = self.hyper.add_root_certificate_der(der);
        self
    }

    /// Sends the requests `proxy` carries through it: reqwest's `proxy`, for `http:`,
    /// `https:`, `socks5:` and `socks5h:` proxies (see [`Proxy`]).
    /// [`RequestBuilder::proxy`] and [`RequestBuilder::no_proxy`] decide for one request.
    ///
    /// ```
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::Proxy;
    ///
    /// let client = Client::builder()
    ///     .proxy(Proxy::https("socks5h://127.0.0.1:1080")?)
    ///     .proxy(Proxy::all("http://proxy.internal:3128")?.no_proxy("localhost"))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::proxy`], which this sets.
    ///
    /// [`HyperTransportBuilder::proxy`]: crate::net::HyperTransportBuilder::proxy
    pub fn proxy(mut self, proxy: Proxy) -> ClientBuilder {
        self.hyper = self.hyper.proxy(proxy);
        self
    }

    /// Whether to use the proxies the environment names (`http_proxy`, `https_proxy`,
    /// `all_proxy`, `no_proxy`, as [`Proxy::from_env`] reads them; a value may be an
    /// `http://`, `https://`, `socks5://` or `socks5h://` URL), after any given to
    /// [`proxy`](Self::proxy). The variables are read by [`build`](Self::build).
    ///
    /// ```
    /// // `https_proxy=http://proxy.internal:3128`, `no_proxy=localhost` and the like.
    /// let client = whatwg_fetch::Client::builder().proxy_from_env(true).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `false`: the environment is never read unless asked.
    pub fn proxy_from_env(mut self, enabled: bool) -> ClientBuilder {
        self.proxy_from_env = enabled;
        self
    }

    /// Uses no proxy: forgets those given to [`proxy`](Self::proxy) before, and turns
    /// [`proxy_from_env`](Self::proxy_from_env) off, as reqwest's `no_proxy` does.
    /// Proxies given after it are used. [`RequestBuilder::no_proxy`] decides for one
    /// request.
    ///
    /// ```
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::Proxy;
    ///
    /// // A builder shared by several clients; this one goes direct.
    /// let shared = || Client::builder().proxy(Proxy::all("http://proxy.internal:3128").unwrap());
    /// let direct = shared().no_proxy().build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default: no proxy is given, and the environment is not read.
    pub fn no_proxy(mut self) -> ClientBuilder {
        self.hyper = self.hyper.no_proxy();
        self.proxy_from_env = false;
        self
    }

    // TLS: see `HyperTransportBuilder`, which these are forwarded to.

    /// Whether to trust the Mozilla root certificates built into the crate: beside the
    /// system's store, for a chain whose issuer the system does not know, and alone where
    /// the system has no store (see [`net`'s TLS section](crate::net#tls)). Turn off to
    /// trust the system only, as curl and reqwest do.
    ///
    /// ```
    /// // The system's trust store only, as curl.
    /// let client = whatwg_fetch::Client::builder().tls_built_in_roots(false).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::tls_built_in_roots`], which this sets.
    ///
    /// [`HyperTransportBuilder::tls_built_in_roots`]: crate::net::HyperTransportBuilder::tls_built_in_roots
    pub fn tls_built_in_roots(mut self, enabled: bool) -> ClientBuilder {
        self.hyper = self.hyper.tls_built_in_roots(enabled);
        self
    }

    /// Whether to trust the system's trust store (Debian's `ca-certificates` and a
    /// corporate CA installed beside them, read once per process; on macOS and Windows the
    /// system's own verifier): see [`HyperTransportBuilder::tls_system_roots`].
    ///
    /// ```
    /// // The built-in Mozilla roots only: the same on every machine.
    /// let client = whatwg_fetch::Client::builder().tls_system_roots(false).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::tls_system_roots`], which this sets.
    ///
    /// [`HyperTransportBuilder::tls_system_roots`]: crate::net::HyperTransportBuilder::tls_system_roots
    pub fn tls_system_roots(mut self, enabled: bool) -> ClientBuilder {
        self.hyper = self.hyper.tls_system_roots(enabled);
        self
    }

    /// The client certificate and key for a server that asks for one (mutual TLS): see
    /// [`HyperTransportBuilder::identity`].
    ///
    /// ```
    /// use whatwg_fetch::{Client, Identity};
    ///
    /// # let made = rcgen::generate_simple_self_signed(vec!["client.internal".to_owned()]).unwrap();
    /// # let pem = format!("{}{}", made.cert.pem(), made.signing_key.serialize_pem());
    /// // `pem`: the client's certificate chain and its private key, as `std::fs::read` reads them.
    /// let client = Client::builder().identity(Identity::from_pem(pem.as_bytes())?).build()?;
    /// // A document without a key is refused when the identity is made.
    /// assert!(Identity::from_pem(b"no PEM here").is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::identity`], which this sets.
    ///
    /// [`HyperTransportBuilder::identity`]: crate::net::HyperTransportBuilder::identity
    pub fn identity(mut self, identity: Identity) -> ClientBuilder {
        self.hyper = self.hyper.identity(identity);
        self
    }

    /// The oldest TLS version offered; a server that speaks none of those allowed fails
    /// with a [`NetworkError::Tls`] that says so.
    ///
    /// ```
    /// use whatwg_fetch::TlsVersion;
    ///
    /// let client = whatwg_fetch::Client::builder().min_tls_version(TlsVersion::Tls13).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::min_tls_version`], which this sets.
    ///
    /// [`HyperTransportBuilder::min_tls_version`]: crate::net::HyperTransportBuilder::min_tls_version
    pub fn min_tls_version(mut self, version: TlsVersion) -> ClientBuilder {
        self.hyper = self.hyper.min_tls_version(version);
        self
    }

    /// The newest TLS version offered.
    ///
    /// ```
    /// use whatwg_fetch::TlsVersion;
    ///
    /// let client = whatwg_fetch::Client::builder().max_tls_version(TlsVersion::Tls12).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::max_tls_version`], which this sets.
    ///
    /// [`HyperTransportBuilder::max_tls_version`]: crate::net::HyperTransportBuilder::max_tls_version
    pub fn max_tls_version(mut self, version: TlsVersion) -> ClientBuilder {
        self.hyper = self.hyper.max_tls_version(version);
        self
    }

    /// **For development only**: accepts any server certificate (self-signed, expired,
    /// for another name, from an unknown issuer), so that anyone on the path can read and
    /// change the traffic: see [`HyperTransportBuilder::danger_accept_invalid_certs`].
    ///
    /// ```
    /// // A test server's self-signed certificate, on a developer's machine only.
    /// let client = whatwg_fetch::Client::builder()
    ///     .danger_accept_invalid_certs(cfg!(debug_assertions))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::danger_accept_invalid_certs`], which this sets.
    ///
    /// [`HyperTransportBuilder::danger_accept_invalid_certs`]: crate::net::HyperTransportBuilder::danger_accept_invalid_certs
    pub fn danger_accept_invalid_certs(mut self, accept: bool) -> ClientBuilder {
        self.hyper = self.hyper.danger_accept_invalid_certs(accept);
        self
    }

    /// **For development only**: accepts a trusted certificate whatever host names it is
    /// for: see [`HyperTransportBuilder::danger_accept_invalid_hostnames`].
    ///
    /// ```
    /// let client = whatwg_fetch::Client::builder().danger_accept_invalid_hostnames(cfg!(debug_assertions)).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::danger_accept_invalid_hostnames`], which this sets.
    ///
    /// [`HyperTransportBuilder::danger_accept_invalid_hostnames`]: crate::net::HyperTransportBuilder::danger_accept_invalid_hostnames
    pub fn danger_accept_invalid_hostnames(mut self, accept: bool) -> ClientBuilder {
        self.hyper = self.hyper.danger_accept_invalid_hostnames(accept);
        self
    }

    /// Whether to write TLS secrets to the file `SSLKEYLOGFILE` names (read by
    /// [`build`](Self::build)), for Wireshark: see
    /// [`HyperTransportBuilder::tls_key_log`].
    ///
    /// ```
    /// // Writes to the file `SSLKEYLOGFILE` names, when it is set.
    /// let client = whatwg_fetch::Client::builder().tls_key_log(true).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::tls_key_log`], which this sets.
    ///
    /// [`HyperTransportBuilder::tls_key_log`]: crate::net::HyperTransportBuilder::tls_key_log
    pub fn tls_key_log(mut self, enabled: bool) -> ClientBuilder {
        self.hyper = self.hyper.tls_key_log(enabled);
        self
    }

    /// Pins the public keys `host`'s server may have (reqwest #298, curl's
    /// `CURLOPT_PINNEDPUBLICKEY`): a connection to `host` is made only if the key of the
    /// server's own certificate is one of `pins` (SHA-256 digests of its DER
    /// `SubjectPublicKeyInfo`, [`PublicKeyPin`]s or `[u8; 32]`), on top of the usual
    /// validation. Any one pin matching suffices; `host` is a name, an IP address or a
    /// `*.example.com` pattern of one label; several hosts by calling this for each.
    /// A key not pinned fails the fetch with a TLS error whose
    /// [`PinMismatch`](crate::net::PinMismatch) names the host, the key seen and the pins.
    ///
    /// ```no_run
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::{PinMismatch, PublicKeyPin};
    ///
    /// # async fn run() -> whatwg_fetch::Result<()> {
    /// let pin: PublicKeyPin = "sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE=".parse()?;
    /// let client = Client::builder().pin_public_keys("example.com", [pin]).build()?;
    /// match client.get("https://example.com/").send().await {
    ///     Err(error) if PinMismatch::find(&error).is_some() => eprintln!("{error:#}"),
    ///     other => println!("{}", other?.status()),
    /// }
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::pin_public_keys`], which this sets.
    ///
    /// [`HyperTransportBuilder::pin_public_keys`]: crate::net::HyperTransportBuilder::pin_public_keys
    pub fn pin_public_keys<I>(mut self, host: &str, pins: I) -> ClientBuilder
    where
        I: IntoIterator,
        I::Item: Into<PublicKeyPin>,
    {
        self.hyper = self.hyper.pin_public_keys(host, pins);
        self
    }

    /// Pins the public keys of `host` instead of validating its certificate: for a
    /// server with a self-signed certificate or a private CA's, whose key is known. Only
    /// `host` is spared the validation; the handshake still proves the server holds the
    /// pinned key.
    ///
    /// ```no_run
    /// use whatwg_fetch::Client;
    ///
    /// # fn run(pin: whatwg_fetch::net::PublicKeyPin) -> whatwg_fetch::Result<()> {
    /// let client = Client::builder().pin_public_keys_only("nas.home.arpa", [pin]).build()?;
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::pin_public_keys_only`], which this sets.
    ///
    /// [`HyperTransportBuilder::pin_public_keys_only`]: crate::net::HyperTransportBuilder::pin_public_keys_only
    pub fn pin_public_keys_only<I>(mut self, host: &str, pins: I) -> ClientBuilder
    where
        I: IntoIterator,
        I::Item: Into<PublicKeyPin>,
    {
        self.hyper = self.hyper.pin_public_keys_only(host, pins);
        self
    }

    /// The escape hatch to rustls: `config` for every TLS connection instead of the one
    /// the TLS options above build, while the client's other options (timeouts, resolver,
    /// proxies, pool) still apply. The roots, [`identity`](Self::identity), the TLS
    /// versions, the `danger_` options and [`tls_key_log`](Self::tls_key_log) are then
    /// ignored (and [public-key pins](Self::pin_public_keys) refused); a `config` without
    /// ALPN protocols gets `h2` and `http/1.1`. See
    /// [`HyperTransportBuilder::rustls_config`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    ///
    /// # let ca = rcgen::generate_simple_self_signed(vec!["ca.internal".to_owned()]).unwrap();
    /// # #[cfg(feature = "aws-lc-rs")] {
    /// // Trusts one private CA (`ca`), and nothing else.
    /// let mut roots = rustls::RootCertStore::empty();
    /// roots.add(ca.cert.der().clone())?;
    /// let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    /// let config = rustls::ClientConfig::builder_with_provider(provider)
    ///     .with_safe_default_protocol_versions()
    ///     ?
    ///     .with_root_certificates(roots)
    ///     .with_no_client_auth();
    /// let client = Client::builder().rustls_config(Arc::new(config)).build()?;
    /// # }
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// What it does, its limits and its default: the transport's
    /// [`HyperTransportBuilder::rustls_config`], which this sets.
    ///
    /// [`HyperTransportBuilder::rustls_config`]: crate::net::HyperTransportBuilder::rustls_config
    pub fn rustls_config(mut self, config: Arc<rustls::ClientConfig>) -> ClientBuilder {
        self.hyper = self.hyper.rustls_config(config);
        self
    }

    /// Whether `file:` URLs may be fetched (`GET` only).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Client, Url};
    ///
    /// let path = std::env::temp_dir().join(format!("whatwg-fetch-doc-{}.txt", std::process::id()));
    /// std::fs::write(&path, "from disk")?;
    /// let url = Url::from_file_path(&path).map_err(|()| "not an absolute path")?;
    ///
    /// let client = Client::builder().allow_file_urls(true).build()?;
    /// assert_eq!(client.get(url.as_str()).send().await?.text().await?, "from disk");
    /// // Off (the default), a `file:` URL is a network error.
    /// assert!(Client::new().get(url.as_str()).send().await.is_err());
    /// # std::fs::remove_file(&path)?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is `false`: a `file:` URL is a network error.
    pub fn allow_file_urls(mut self, allowed: bool) -> ClientBuilder {
        self.allow_file_urls = allowed;
        self
    }

    /// Whether the client keeps cookies: with a cookie store, credentialed fetches (see
    /// [`RequestCredentials`](crate::RequestCredentials)) send a `Cookie` header from it
    /// and store the response's `Set-Cookie` headers in it, as a browser does (see
    /// [`crate::cookie`] for what the store implements). `true` gives the client a new
    /// empty store; `false` disables cookies.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // Sets a cookie, then answers with the `Cookie` the next request sends.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let mut head = vec![0; 4096];
    /// #         let n = stream.read(&mut head).await.unwrap();
    /// #         let head = String::from_utf8_lossy(&head[..n]).into_owned();
    /// #         let cookie = head.lines().find_map(|l| l.strip_prefix("cookie: ")).unwrap_or("").to_owned();
    /// #         let reply = format!("HTTP/1.1 200 OK\r\nset-cookie: session=42\r\nconnection: close\r\n\
    /// #             content-length: {}\r\n\r\n{cookie}", cookie.len());
    /// #         let _ = stream.write_all(reply.as_bytes()).await;
    /// #     }
    /// # });
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::builder().cookie_store(true).build()?;
    /// assert_eq!(client.get(&url).send().await?.text().await?, "");
    /// // The second request sends the cookie the first response set.
    /// assert_eq!(client.get(&url).send().await?.text().await?, "session=42");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is enabled for a browser-like client (one made with
    /// [`origin`](Self::origin), or an [`environment`](Self::environment) with an origin),
    /// disabled for a server-side one, as in Deno, undici and reqwest.
    pub fn cookie_store(mut self, enabled: bool) -> ClientBuilder {
        self.cookie_store = if enabled {
            CookieChoice::Enabled
        } else {
            CookieChoice::Disabled
        };
        self
    }

    /// Keeps cookies in `store`, which other clients (or the caller) may share: see
    /// [`cookie_store`](Self::cookie_store).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::cookie::CookieStore;
    ///
    /// let store = Arc::new(CookieStore::default());
    /// let one = Client::builder().cookie_store_with(store.clone()).build()?;
    /// let two = Client::builder().cookie_store_with(store.clone()).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn cookie_store_with(mut self, store: Arc<CookieStore>) -> ClientBuilder {
        self.cookie_store = CookieChoice::Shared(store);
        self
    }

    /// Keeps cookies in `provider`, a store behind the [`CookieProvider`] trait (reqwest's
    /// `cookie_provider`): one shared by a fleet on Redis (`cookie::RedisCookieStore`, the
    /// `redis` feature), or one of the caller's. Fetches await it: see the trait for what
    /// a store must do.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::cookie::CookieStore;
    ///
    /// // The in-memory store is a provider too (`cookie_store_with` reads it in place).
    /// let client = Client::builder().cookie_provider(Arc::new(CookieStore::default())).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn cookie_provider<C: CookieProvider + 'static>(
        mut self,
        provider: Arc<C>,
    ) -> ClientBuilder {
        self.cookie_store = CookieChoice::Provider(provider);
        self
    }

    /// Sends requests through `transport` instead of the built-in hyper pool; the
    /// connection options above then do not apply.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::time::Duration;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // One connection pool, configured once, shared by clients of different policies.
    /// let pool = Arc::new(HyperTransport::builder().read_timeout(Some(Duration::from_secs(30))).build()?);
    /// let api = Client::builder().transport(pool.clone()).user_agent("api-client").build()?;
    /// let crawler = Client::builder().transport(pool).user_agent("crawler").build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn transport(mut self, transport: Arc<dyn Transport>) -> ClientBuilder {
        self.transport = Some(transport);
        self
    }

    /// Puts the tower `layer` around every network request: below redirects, the HTTP
    /// cache and cookies, one call per hop of a redirect chain (and per revalidation), with
    /// the request as it goes out (`Host` aside, which the transport adds) and the response
    /// head as it comes in, its body still streaming. For signing each request, logging,
    /// a timeout or a rate limit per hop; to wrap whole fetches, put layers around the
    /// [`Client`] itself (see [`crate::middleware`]).
    ///
    /// The layer wraps a [`TransportService`](crate::net::TransportService) over the
    /// transport ([`transport`](Self::transport) or the built-in one), and the client
    /// calls the result as a [`Transport`] (a [`ServiceTransport`](crate::net::ServiceTransport)):
    /// an error of the layer is a `TypeError` whose
    /// [`network_error`](Error::network_error) is [`NetworkError::Layer`], unless it is a
    /// [`NetworkError`] itself. Called again, the new layer wraps those before it; a
    /// `tower::ServiceBuilder` is one layer made of several.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::mock::{MockResponse, MockTransport};
    /// use whatwg_fetch::net::RequestBody;
    /// use whatwg_fetch::{Client, RequestInit};
    ///
    /// // Signs each request with what it asks for: here its path, at each hop.
    /// fn sign(mut request: http::Request<RequestBody>) -> http::Request<RequestBody> {
    ///     let signature = format!("sig({})", request.uri().path());
    ///     if let Ok(value) = http::HeaderValue::try_from(signature) {
    ///         request.headers_mut().insert("x-signature", value);
    ///     }
    ///     request
    /// }
    ///
    /// let mock = MockTransport::new();
    /// mock.intercept("GET", "https://api.example/old")?
    ///     .reply(MockResponse::new(301).header("location", "/new"));
    /// mock.intercept("GET", "https://api.example/new")?.reply(MockResponse::new(200));
    ///
    /// let client = Client::builder()
    ///     .transport(Arc::new(mock.clone()))
    ///     .transport_layer(tower::ServiceBuilder::new().map_request(sign))
    ///     .build()?;
    /// let response = client.fetch("https://api.example/old", RequestInit::default()).await?;
    /// assert!(response.redirected());
    /// let calls = mock.calls();
    /// assert_eq!(calls[0].header("x-signature"), Some("sig(/old)"));
    /// assert_eq!(calls[1].header("x-signature"), Some("sig(/new)"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// With the `tower` feature. Default is no layer.
    #[cfg(feature = "tower")]
    pub fn transport_layer<L>(mut self, layer: L) -> ClientBuilder
    where
        L: tower_layer::Layer<crate::net::TransportService> + Send + Sync + 'static,
        L::Service: tower_service::Service<
                http::Request<crate::net::RequestBody>,
                Response = http::Response<crate::net::ResponseBody>,
            > + Clone
            + Send
            + 'static,
        <L::Service as tower_service::Service<http::Request<crate::net::RequestBody>>>::Error:
            Into<crate::error::BoxError>,
        <L::Service as tower_service::Service<http::Request<crate::net::RequestBody>>>::Future:
            Send + 'static,
    {
        self.transport_layers.push(Box::new(move |transport| {
            let service = layer.layer(crate::net::TransportService::new(transport));
            Arc::new(crate::net::ServiceTransport::new(service))
        }));
        self
    }

    /// Builds the client.
    ///
    /// ```
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::builder().user_agent("example/1.0").build()?;
    /// // An option that cannot be honoured fails here rather than at the first request.
    /// assert!(Client::builder().add_root_certificates_pem("-----BEGIN CERTIFICATE-----\nnot base64!\n").build().is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// A `TypeError` when a PEM root certificate cannot be read, the TLS configuration
    /// cannot be built (see [`HyperTransportBuilder::build`]), or (with [`proxy_from_env`](Self::proxy_from_env)) a proxy
    /// variable holds a URL [`Proxy::http`] rejects, or (with `hickory_dns(true)`) the
    /// system's DNS configuration cannot be read.
    pub fn build(mut self) -> Result<Client> {
        let mut built_in = None;
        let transport: Arc<dyn Transport> = match self.transport.take() {
            Some(transport) => transport,
            None => {
                // The client's `User-Agent` goes on each `CONNECT` to a proxy too.
                let hyper = std::mem::replace(&mut self.hyper, HyperTransport::builder());
                let mut hyper = hyper.proxy_user_agent(
                    http::HeaderValue::from_maybe_shared(self.user_agent.clone()).ok(),
                );
                for pem in &self.pem_roots {
                    hyper = hyper.add_root_certificates_pem(pem)?;
                }
                if self.proxy_from_env {
                    for proxy in Proxy::from_env()? {
                        hyper = hyper.proxy(proxy);
                    }
                }
                let hyper = hyper.build()?;
                built_in = Some(hyper.clone());
                Arc::new(hyper)
            }
        };
        Ok(self.assemble(transport, built_in))
    }

    /// The client of these options over `transport` (`built_in` when it is the built-in
    /// one): what is left of [`build`](Self::build) once the transport is made, which
    /// cannot fail.
    fn assemble(self, transport: Arc<dyn Transport>, built_in: Option<HyperTransport>) -> Client {
        #[cfg(feature = "tower")]
        let transport = self
            .transport_layers
            .into_iter()
            .fold(transport, |transport, wrap| wrap(transport));
        let cookies = match self.cookie_store {
            CookieChoice::Default if self.environment.is_browser_like() => {
                Some(CookieJar::Store(Arc::new(CookieStore::default())))
            }
            CookieChoice::Default | CookieChoice::Disabled => None,
            CookieChoice::Enabled => Some(CookieJar::Store(Arc::new(CookieStore::default()))),
            CookieChoice::Shared(store) => Some(CookieJar::Store(store)),
            CookieChoice::Provider(provider) => Some(CookieJar::Provider(provider)),
        };
        let http_cache = match (self.http_cache, self.http_cache_store) {
            (Some(false), _) => None,
            (_, Some(store)) => Some(Arc::new(crate::fetch::http_cache::HttpCache::with_store(
                store,
            ))),
            (enabled, None) => enabled
                .unwrap_or_else(|| self.environment.is_browser_like())
                .then(|| Arc::new(crate::fetch::http_cache::HttpCache::default())),
        };
        let hsts = self
            .hsts
            .unwrap_or_else(|| self.environment.is_browser_like())
            .then(|| Arc::new(crate::fetch::hsts::HstsStore::default()));
        Client {
            inner: Arc::new(ClientInner {
                environment: Arc::new(match self.referer {
                    true => self.environment,
                    false => self
                        .environment
                        .with_referrer_policy(crate::request::ReferrerPolicy::NoReferrer),
                }),
                context: FetchContext {
                    transport,
                    http_cache,
                    user_agent: self.user_agent,
                    accept_language: self.accept_language,
                    allow_file_urls: self.allow_file_urls,
                    preflight_cache: Arc::new(CorsPreflightCache::default()),
                    cookies,
                    hsts,
                    keepalive_quota: Arc::default(),
                    body_limits: self.body_limits,
                    redirect_policy: self.redirect_policy,
                    https_only: self.https_only,
                    codings: self.codings,
                    expect_continue: self.expect_continue,
                    authentication_entries: Arc::default(),
                },
                default_headers: self.default_headers,
                total_timeout: self.total_timeout,
                retry: self.retry.map(Retrier::new),
                digest_auth_from_url: self.digest_auth_from_url,
                hyper: built_in,
            }),
        }
    }
}

/// Appends to `request`'s headers each of `defaults` whose name it has none of, as
/// `Headers.append` would: the headers' guard drops what it does not allow.
fn add_default_headers(request: &mut Request, defaults: &http::HeaderMap) -> Result<()> {
    let headers = request.headers_mut();
    for name in defaults.keys() {
        if headers.has(name.as_str())? {
            continue;
        }
        for value in defaults.get_all(name) {
            headers.append(name.as_str(), value.as_bytes())?;
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn client_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Client>();
        assert_send_sync::<Response>();
        assert_send_sync::<Error>();
    }
}
