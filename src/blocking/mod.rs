//! A blocking client, the counterpart of reqwest's `blocking`: each call returns once it is
//! done, for programs and threads that have no async runtime of their own (a command-line
//! tool, a build script, a worker thread, a test).
//!
//! It is the async [`Client`](crate::Client) underneath, and the one fetch algorithm: a
//! [`Client`] here holds an async client and a thread of its own that owns a Tokio runtime
//! (current-thread, driven by that thread). A call sends its fetch to that thread and parks
//! until the response's head comes back; the body stays there and is read from it, chunk
//! by chunk, as the caller asks ([`Response`]'s [`Read`](std::io::Read)), or whole
//! ([`bytes`](Response::bytes), [`text`](Response::text), [`json`](Response::json)) with
//! the async client's limits. Every rule of the standard, every option of the
//! [`ClientBuilder`](crate::ClientBuilder), the errors and their kinds are those of the
//! async client.
//!
//! ```
//! # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
//! # let addr = listener.local_addr().unwrap();
//! # std::thread::spawn(move || {
//! #     use std::io::{Read, Write};
//! #     let (mut socket, _) = listener.accept().unwrap();
//! #     let _ = socket.read(&mut [0; 4096]);
//! #     let _ = socket.write_all(
//! #         b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 9\r\n\r\n{\"id\": 7}",
//! #     );
//! # });
//! use whatwg_fetch::blocking::Client;
//!
//! #[derive(serde::Deserialize)]
//! struct Item {
//!     id: u64,
//! }
//!
//! let client = Client::builder().build()?;
//! let item: Item = client
//!     .get(format!("http://{addr}/items/7"))
//!     .header("accept", "application/json")
//!     .send()?
//!     .error_for_status()?
//!     .json()?;
//! assert_eq!(item.id, 7);
//! # Ok::<(), whatwg_fetch::Error>(())
//! ```
//!
//! # Inside an async runtime
//!
//! The calls work from inside a Tokio runtime too (current-thread or multi-thread, in a
//! task or in `spawn_blocking`): no runtime is started, entered or dropped on the calling
//! thread, so nothing panics where reqwest's blocking client does (its debug builds drop a
//! runtime at each wait: "Cannot drop a runtime in a context where blocking is not
//! allowed"). A call still blocks its thread,
//! and with it every task of a current-thread runtime, until it returns: in async code use
//! the async [`Client`](crate::Client), or call this one in `spawn_blocking`. A server the
//! request goes to must not run on the runtime the call blocks.
//!
//! # The thread
//!
//! The clones of a [`Client`] share its thread and connection pool; a [`Response`] keeps
//! the thread too, so its body can be read after the last client is dropped. The thread
//! ends when the last client and response are: joined where they are dropped, unless that
//! is inside a Tokio runtime, where it is detached and stops by itself (a join would hold
//! the caller's runtime while it stops). The free [`fetch`] and [`get`] share one client,
//! built at their first call, whose thread lasts as long as the process.
//!
//! # Timeouts
//!
//! reqwest's blocking client gives up after 30 seconds by default, on each wait (for the
//! head, for each read of the body). This one does not add a default of its own: the
//! async client's are kept, and they already bound every wait on a peer, 30 seconds for DNS,
//! connect and TLS ([`connect_timeout`](crate::ClientBuilder::connect_timeout)) and 300 for
//! the head and between two reads of the body
//! ([`read_timeout`](crate::ClientBuilder::read_timeout)), while no total limit cuts a long
//! download that is still moving. A total limit, the body included, is
//! [`ClientBuilder::timeout`] for every request or [`RequestBuilder::timeout`] for one; past
//! it the call, or the read of the body, fails with an error that
//! [`is_timeout`](crate::Error::is_timeout).

mod body_pump;
mod request_building;
mod response_reading;
mod runtime_thread;

use std::fmt;
use std::net::SocketAddr;
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use http::Method;
use url::Url;

use crate::cookie::{CookieProvider, CookieStore};
use crate::environment::Environment;
use crate::error::{Error, Result};
use crate::net::{Identity, PoolStats, Proxy, TlsVersion, Transport};
use crate::request::{Request, RequestInfo, RequestInit};
use crate::retry::RetryPolicy;

pub use request_building::RequestBuilder;
pub use response_reading::Response;
use runtime_thread::RuntimeThread;

/// Runs [`fetch()`](https://fetch.spec.whatwg.org/#fetch-method) on a shared, lazily built
/// default blocking [`Client`], and returns once the response's head has arrived.
///
/// # Errors
/// As [`Client::fetch`].
///
/// ```
/// use whatwg_fetch::RequestInit;
///
/// let response = whatwg_fetch::blocking::fetch("data:,hello", RequestInit::default())?;
/// assert_eq!(response.text()?, "hello");
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub fn fetch(input: impl Into<RequestInfo>, init: RequestInit) -> Result<Response> {
    shared_client()?.fetch(input, init)
}

/// A `GET` of `url` on the shared default blocking [`Client`] of [`fetch()`], as reqwest's
/// `blocking::get`: for a one-off request; build a [`Client`] for more.
///
/// # Errors
/// As [`Client::fetch`].
///
/// ```
/// let text = whatwg_fetch::blocking::get("data:,hello")?.text()?;
/// assert_eq!(text, "hello");
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub fn get(url: impl Into<RequestInfo>) -> Result<Response> {
    shared_client()?.get(url).send()
}

/// The blocking client the free functions share, built once.
fn shared_client() -> Result<&'static Client> {
    static DEFAULT: OnceLock<Result<Client>> = OnceLock::new();
    DEFAULT
        .get_or_init(|| Client::builder().build())
        .as_ref()
        .map_err(Error::clone)
}

/// A client whose calls block until they are done: an async [`Client`](crate::Client) on a
/// thread of its own (see the [module documentation](self)).
///
/// Cheap to clone: clones share the thread and the connection pool. Build one with
/// [`Client::builder`], or from an async [`ClientBuilder`](crate::ClientBuilder) with
/// [`ClientBuilder::from`].
///
/// ```
/// use whatwg_fetch::blocking::Client;
///
/// let client = Client::builder().build()?;
/// let response = client.get("data:text/plain,hello").send()?;
/// assert_eq!(response.status(), 200);
/// assert_eq!(response.text()?, "hello");
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Clone)]
pub struct Client {
    /// The async client the fetches run on.
    inner: crate::Client,
    /// The thread they run on.
    runtime: Arc<RuntimeThread>,
}

impl Client {
    /// A client with every option at its default, as reqwest's `blocking::Client::new()`.
    ///
    /// It never panics, as [`Client::new`](crate::Client::new) does not: where building
    /// fails (the TLS configuration cannot be made, or the client's thread cannot be
    /// started for the system's limit on threads or file descriptors), the client is still
    /// returned and each of its calls fails with an error that says why. Use
    /// [`Client::builder`] and [`ClientBuilder::build`] to get that error at once instead.
    ///
    /// ```
    /// let client = whatwg_fetch::blocking::Client::new();
    /// let response = client.get("data:,hello").send()?;
    /// assert_eq!(response.text()?, "hello");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn new() -> Client {
        Client {
            inner: crate::Client::new(),
            runtime: RuntimeThread::start().unwrap_or_else(RuntimeThread::not_started),
        }
    }

    /// A builder with the defaults of the async [`ClientBuilder`](crate::ClientBuilder).
    pub fn builder() -> ClientBuilder {
        ClientBuilder::from(crate::Client::builder())
    }

    /// The environment requests are made from.
    pub fn environment(&self) -> &Arc<Environment> {
        self.inner.environment()
    }

    /// The cookie store credentialed fetches use, if cookies are enabled (see
    /// [`ClientBuilder::cookie_store`]).
    pub fn cookie_store(&self) -> Option<&Arc<CookieStore>> {
        self.inner.cookie_store()
    }

    /// A snapshot of the connection pool's statistics, as
    /// [`Client::pool_stats`](crate::Client::pool_stats) gives them.
    pub fn pool_stats(&self) -> Option<PoolStats> {
        self.inner.pool_stats()
    }

    /// A [`RequestBuilder`] for a request with `method` to `url`, put together call by
    /// call and fetched with [`send`](RequestBuilder::send).
    ///
    /// ```
    /// use whatwg_fetch::Method;
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let response = client.request(Method::GET, "data:,hello").send()?;
    /// assert_eq!(response.text()?, "hello");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn request(&self, method: Method, url: impl Into<RequestInfo>) -> RequestBuilder {
        RequestBuilder::new(self.inner.request(method, url), self.runtime.clone())
    }

    /// A [`RequestBuilder`] for a `GET` to `url` (see [`request`](Self::request)).
    pub fn get(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::GET, url)
    }

    /// A [`RequestBuilder`] for a `POST` to `url` (see [`request`](Self::request)).
    pub fn post(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::POST, url)
    }

    /// A [`RequestBuilder`] for a `PUT` to `url` (see [`request`](Self::request)).
    pub fn put(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::PUT, url)
    }

    /// A [`RequestBuilder`] for a `PATCH` to `url` (see [`request`](Self::request)).
    pub fn patch(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::PATCH, url)
    }

    /// A [`RequestBuilder`] for a `DELETE` to `url` (see [`request`](Self::request)).
    pub fn delete(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::DELETE, url)
    }

    /// A [`RequestBuilder`] for a `HEAD` to `url` (see [`request`](Self::request)).
    pub fn head(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::HEAD, url)
    }

    /// The [`fetch(input, init)`](https://fetch.spec.whatwg.org/#fetch-method) method, as
    /// [`Client::fetch`](crate::Client::fetch) runs it: returns once the response's head
    /// has arrived; the body is read from the response afterwards.
    ///
    /// # Errors
    /// As [`Client::fetch`](crate::Client::fetch): the constructor's `TypeError`, a
    /// `TypeError` whose [`network_error`](Error::network_error) says why for a network
    /// error or a timeout, the signal's reason when it aborts. A `TypeError` too if the
    /// client's thread has stopped.
    ///
    /// ```
    /// use whatwg_fetch::RequestInit;
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let init = RequestInit { method: Some("POST".into()), ..Default::default() };
    /// // A `data:` URL answers every method alike, as scheme fetch says.
    /// let response = client.fetch("data:,posted", init)?;
    /// assert_eq!(response.text()?, "posted");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn fetch(&self, input: impl Into<RequestInfo>, init: RequestInit) -> Result<Response> {
        let client = self.inner.clone();
        let input = input.into();
        let response = self
            .runtime
            .run(async move { client.fetch(input, init).await })??;
        Ok(Response::new(response, self.runtime.clone()))
    }

    /// Fetches an already constructed [`Request`], as
    /// [`Client::fetch_request`](crate::Client::fetch_request) does.
    ///
    /// # Errors
    /// As [`fetch`](Self::fetch), less the constructor's errors.
    pub fn fetch_request(&self, request: Request) -> Result<Response> {
        let client = self.inner.clone();
        let response = self
            .runtime
            .run(async move { client.fetch_request(request).await })??;
        Ok(Response::new(response, self.runtime.clone()))
    }
}

/// [`Client::new`].
impl Default for Client {
    fn default() -> Client {
        Client::new()
    }
}

impl fmt::Debug for Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Client")
            .field("inner", &self.inner)
            .field("runtime", &self.runtime)
            .finish()
    }
}

/// Builds a blocking [`Client`]: an async [`ClientBuilder`](crate::ClientBuilder) under
/// it, so that every option is the async one, with its default.
///
/// The options used most have a method here that sets the async one (and is documented
/// there); any other is set on an async builder, which [`ClientBuilder::from`] takes.
///
/// ```
/// use std::time::Duration;
/// use whatwg_fetch::blocking::{Client, ClientBuilder};
///
/// let client = Client::builder()
///     .connect_timeout(Duration::from_secs(5))
///     .timeout(Duration::from_secs(60))
///     .user_agent("my-tool/1.0")
///     .build()?;
///
/// // An option without a method here, on the async builder.
/// let tuned = ClientBuilder::from(whatwg_fetch::Client::builder().http2_adaptive_window(true))
///     .timeout(Duration::from_secs(60))
///     .build()?;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[must_use = "a ClientBuilder does nothing until it is built"]
pub struct ClientBuilder {
    inner: crate::ClientBuilder,
}

impl From<crate::ClientBuilder> for ClientBuilder {
    /// A blocking builder with the options `builder` has set.
    fn from(builder: crate::ClientBuilder) -> ClientBuilder {
        ClientBuilder { inner: builder }
    }
}

impl Default for ClientBuilder {
    fn default() -> ClientBuilder {
        Client::builder()
    }
}

impl fmt::Debug for ClientBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClientBuilder")
            .field("inner", &self.inner)
            .finish()
    }
}

/// Methods that set the async builder's option of the same name, documented there.
macro_rules! forward_options {
    ($( $name:ident($($arg:ident: $ty:ty),*); )*) => {
        $(
            #[doc = concat!(
                "Sets [`ClientBuilder::", stringify!($name), "`](crate::ClientBuilder::",
                stringify!($name), "), which says what it does and its default."
            )]
            pub fn $name(self, $($arg: $ty),*) -> ClientBuilder {
                ClientBuilder { inner: self.inner.$name($($arg),*) }
            }
        )*
    };
}

impl ClientBuilder {
    /// The longest a whole fetch may take, body included, as
    /// [`ClientBuilder::timeout`](crate::ClientBuilder::timeout) says; a request can set
    /// its own with [`RequestBuilder::timeout`].
    ///
    /// Default is no limit, as for the async client: unlike reqwest's blocking client (30
    /// seconds), no total limit is added, while the connect and read timeouts still bound
    /// each wait (see [Timeouts](self#timeouts)).
    pub fn timeout(self, timeout: Duration) -> ClientBuilder {
        ClientBuilder {
            inner: self.inner.timeout(timeout),
        }
    }

    forward_options! {
        origin(url: Url);
        environment(environment: Environment);
        user_agent(user_agent: impl Into<Bytes>);
        accept_language(accept_language: Option<impl Into<Bytes>>);
        connect_timeout(timeout: Duration);
        read_timeout(timeout: impl Into<Option<Duration>>);
        retry(policy: RetryPolicy);
        max_response_body_size(max: Option<u64>);
        max_buffered_body_size(max: Option<u64>);
        max_connections_per_origin(max: usize);
        max_idle_per_origin(max: usize);
        pool_idle_timeout(timeout: Option<Duration>);
        http1_only();
        http1_pipelining(depth: usize);
        expect_continue(wait: Option<Duration>);
        http2_prior_knowledge(enabled: bool);
        proxy(proxy: Proxy);
        proxy_from_env(enabled: bool);
        resolve(host: &str, addr: SocketAddr);
        add_root_certificates_pem(pem: impl Into<Vec<u8>>);
        add_root_certificate_der(der: impl Into<Vec<u8>>);
        tls_built_in_roots(enabled: bool);
        tls_system_roots(enabled: bool);
        identity(identity: Identity);
        min_tls_version(version: TlsVersion);
        danger_accept_invalid_certs(accept: bool);
        cookie_store(enabled: bool);
        cookie_store_with(store: Arc<CookieStore>);
        http_cache(enabled: bool);
        hsts(enabled: bool);
        digest_auth_from_url(enabled: bool);
        allow_file_urls(allowed: bool);
        transport(transport: Arc<dyn Transport>);
    }

    #[cfg(feature = "http3")]
    forward_options! {
        http3(enabled: bool);
        http3_prior_knowledge();
        alt_svc_cache(cache: Arc<crate::net::AltSvcCache>);
        tls_early_data(enabled: bool);
    }

    /// Sets [`ClientBuilder::cookie_provider`](crate::ClientBuilder::cookie_provider),
    /// which says what it does. The client's thread awaits the provider's futures.
    pub fn cookie_provider<C: CookieProvider + 'static>(self, provider: Arc<C>) -> ClientBuilder {
        ClientBuilder {
            inner: self.inner.cookie_provider(provider),
        }
    }

    /// Builds the client and starts its thread.
    ///
    /// # Errors
    /// As [`ClientBuilder::build`](crate::ClientBuilder::build), and a `TypeError` when the
    /// thread cannot be started or its runtime built (the system's limit on threads or
    /// file descriptors), with the system's error as its source.
    pub fn build(self) -> Result<Client> {
        let inner = self.inner.build()?;
        let runtime = RuntimeThread::start()?;
        Ok(Client { inner, runtime })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_blocking_types_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Client>();
        assert_send_sync::<ClientBuilder>();
        assert_send_sync::<Response>();
    }

    #[test]
    fn a_client_whose_thread_did_not_start_fails_each_call_with_why() {
        let reason =
            Error::type_error("cannot spawn the blocking client's thread: no threads left");
        let client = Client {
            inner: crate::Client::new(),
            runtime: RuntimeThread::not_started(reason),
        };
        for error in [
            client.get("data:,hello").send().unwrap_err(),
            client
                .fetch("data:,hello", RequestInit::default())
                .unwrap_err(),
        ] {
            assert_eq!(error.kind(), crate::ErrorKind::TypeError);
            assert!(error.to_string().contains("no threads left"), "{error}");
        }
    }

    #[test]
    fn a_request_builder_can_move_to_another_thread() {
        fn assert_send<T: Send>() {}
        assert_send::<RequestBuilder>();
    }
}
