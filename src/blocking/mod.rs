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
mod reader_body;
mod request_building;
mod response_reading;
mod runtime_thread;

use std::fmt;
use std::net::{IpAddr, SocketAddr};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use bytes::Bytes;
use http::Method;
use url::Url;

use crate::cache::HttpCacheStore;
use crate::cookie::{CookieProvider, CookieStore};
use crate::environment::Environment;
use crate::error::{Error, Result};
use crate::net::{Identity, PoolStats, Proxy, PublicKeyPin, Resolve, TlsVersion, Transport};
use crate::request::{Request, RequestInfo, RequestInit};
use crate::retry::RetryPolicy;

pub use reader_body::Body;
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
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder()
    ///     .user_agent("report-tool/1.0")
    ///     .timeout(Duration::from_secs(60))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn builder() -> ClientBuilder {
        ClientBuilder::from(crate::Client::builder())
    }

    /// The environment requests are made from.
    ///
    /// ```
    /// use whatwg_fetch::Url;
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().origin(Url::parse("https://app.example/")?).build()?;
    /// assert!(client.environment().is_browser_like());
    /// // By default, a server-side environment: no origin.
    /// assert!(Client::new().environment().origin().is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn environment(&self) -> &Arc<Environment> {
        self.inner.environment()
    }

    /// The cookie store credentialed fetches use, if cookies are enabled (see
    /// [`ClientBuilder::cookie_store`]).
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Sets a cookie, and answers with the `Cookie` each request sends.
    /// #     for stream in listener.incoming() {
    /// #         let mut stream = stream.unwrap();
    /// #         let mut head = vec![0; 4096];
    /// #         let n = stream.read(&mut head).unwrap();
    /// #         let head = String::from_utf8_lossy(&head[..n]).into_owned();
    /// #         let cookie = head.lines().find_map(|l| l.strip_prefix("cookie: ")).unwrap_or("").to_owned();
    /// #         let reply = format!("HTTP/1.1 200 OK\r\nset-cookie: session=42\r\nconnection: close\r\n\
    /// #             content-length: {}\r\n\r\n{cookie}", cookie.len());
    /// #         let _ = stream.write_all(reply.as_bytes());
    /// #     }
    /// # });
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().cookie_store(true).build()?;
    /// client.get(&url).send()?;
    /// let store = client.cookie_store().ok_or("cookies are on")?;
    /// assert_eq!(store.len(), 1);
    /// // A server-side client keeps no cookies unless asked.
    /// assert!(Client::new().cookie_store().is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cookie_store(&self) -> Option<&Arc<CookieStore>> {
        self.inner.cookie_store()
    }

    /// A snapshot of the connection pool's statistics, as
    /// [`Client::pool_stats`](crate::Client::pool_stats) gives them.
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers one request, and keeps the connection open.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
    /// #     std::thread::sleep(std::time::Duration::from_secs(60));
    /// # });
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// assert_eq!(client.get(&url).send()?.text()?, "ok");
    /// // `None` only for a client with a transport of its own.
    /// let stats = client.pool_stats().ok_or("the built-in pool")?;
    /// assert_eq!(stats.connections_opened, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers one request with an item.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 9\r\n\r\n{\"id\": 7}");
    /// # });
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let item: serde_json::Value = client.get(format!("{url}items/7")).send()?.json()?;
    /// assert_eq!(item["id"], 7);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn get(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::GET, url)
    }

    /// A [`RequestBuilder`] for a `POST` to `url` (see [`request`](Self::request)).
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{BufRead, BufReader, Read, Write};
    /// #     // Answers with the request as it came: its head, then its body.
    /// #     let (socket, _) = listener.accept().unwrap();
    /// #     let mut reader = BufReader::new(socket);
    /// #     let mut request = String::new();
    /// #     while !request.ends_with("\r\n\r\n") {
    /// #         if reader.read_line(&mut request).unwrap() == 0 { break; }
    /// #     }
    /// #     let length: usize = request.lines()
    /// #         .find_map(|line| line.strip_prefix("content-length: "))
    /// #         .and_then(|n| n.trim().parse().ok()).unwrap_or(0);
    /// #     let mut body = vec![0; length];
    /// #     reader.read_exact(&mut body).unwrap();
    /// #     request.push_str(&String::from_utf8_lossy(&body));
    /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{request}", request.len());
    /// #     let _ = reader.get_mut().write_all(reply.as_bytes());
    /// # });
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let echoed = client.post(format!("{url}notes")).body("remember the milk").send()?.text()?;
    /// assert!(echoed.starts_with("POST /notes HTTP/1.1\r\n"), "{echoed}");
    /// assert!(echoed.ends_with("\r\n\r\nremember the milk"), "{echoed}");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn post(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::POST, url)
    }

    /// A [`RequestBuilder`] for a `PUT` to `url` (see [`request`](Self::request)).
    ///
    /// ```
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// // Replaces the item whole.
    /// let request = client
    ///     .put("https://api.example/items/7")
    ///     .json(&serde_json::json!({ "name": "seventh", "stock": 3 }))
    ///     .build()?;
    /// assert_eq!(request.method(), "PUT");
    /// assert_eq!(request.headers().get("content-type")?.as_deref(), Some("application/json"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn put(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::PUT, url)
    }

    /// A [`RequestBuilder`] for a `PATCH` to `url` (see [`request`](Self::request)).
    ///
    /// ```
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// // Changes one field of the item.
    /// let request = client
    ///     .patch("https://api.example/items/7")
    ///     .json(&serde_json::json!({ "stock": 2 }))
    ///     .build()?;
    /// assert_eq!(request.method(), "PATCH");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn patch(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::PATCH, url)
    }

    /// A [`RequestBuilder`] for a `DELETE` to `url` (see [`request`](Self::request)).
    ///
    /// ```
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let request = client
    ///     .delete("https://api.example/items/7")
    ///     .bearer_auth("secret-token")
    ///     .build()?;
    /// assert_eq!(request.method(), "DELETE");
    /// assert_eq!(request.url(), "https://api.example/items/7");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn delete(&self, url: impl Into<RequestInfo>) -> RequestBuilder {
        self.request(Method::DELETE, url)
    }

    /// A [`RequestBuilder`] for a `HEAD` to `url` (see [`request`](Self::request)).
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers a HEAD for a 1 MiB resource.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 1048576\r\n\r\n");
    /// # });
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// // The size of a download, without downloading it.
    /// let response = client.head(format!("{url}archive.tar")).send()?;
    /// assert_eq!(response.headers().get("content-length")?.as_deref(), Some("1048576"));
    /// assert_eq!(response.text()?, "");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
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
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{BufRead, BufReader, Read, Write};
    /// #     // Answers with the request as it came: its head, then its body.
    /// #     let (socket, _) = listener.accept().unwrap();
    /// #     let mut reader = BufReader::new(socket);
    /// #     let mut request = String::new();
    /// #     while !request.ends_with("\r\n\r\n") {
    /// #         if reader.read_line(&mut request).unwrap() == 0 { break; }
    /// #     }
    /// #     let length: usize = request.lines()
    /// #         .find_map(|line| line.strip_prefix("content-length: "))
    /// #         .and_then(|n| n.trim().parse().ok()).unwrap_or(0);
    /// #     let mut body = vec![0; length];
    /// #     reader.read_exact(&mut body).unwrap();
    /// #     request.push_str(&String::from_utf8_lossy(&body));
    /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{request}", request.len());
    /// #     let _ = reader.get_mut().write_all(reply.as_bytes());
    /// # });
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// // A request put together first, looked at, then fetched.
    /// let request = client.post(format!("{url}jobs")).body("rebuild").build()?;
    /// assert_eq!(request.headers().get("content-type")?.as_deref(), Some("text/plain;charset=UTF-8"));
    /// let echoed = client.fetch_request(request)?.text()?;
    /// assert!(echoed.starts_with("POST /jobs HTTP/1.1\r\n"), "{echoed}");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
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
/// Each option has a method here that sets the async one (and is documented there);
/// [`ClientBuilder::from`] takes an async builder already set up.
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
/// // A builder the async code set up, for a blocking client with the same options.
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

/// Methods that set the async builder's option of the same name, documented there; the
/// doc comments written above an option (its example) follow that sentence.
macro_rules! forward_options {
    ($( $(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*); )*) => {
        $(
            #[doc = concat!(
                "Sets [`ClientBuilder::", stringify!($name), "`](crate::ClientBuilder::",
                stringify!($name), "), which says what it does and its default."
            )]
            #[doc = ""]
            $(#[$doc])*
            pub fn $name(self, $($arg: $ty),*) -> ClientBuilder {
                ClientBuilder { inner: self.inner.$name($($arg),*) }
            }
        )*
    };
}

impl ClientBuilder {
    /// A builder with the defaults documented on each option: the same as
    /// [`Client::builder`] and [`ClientBuilder::default`].
    ///
    /// ```
    /// use whatwg_fetch::blocking::ClientBuilder;
    ///
    /// let client = ClientBuilder::new().user_agent("inventory-sync/2.1").build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn new() -> ClientBuilder {
        Client::builder()
    }

    /// The longest a whole fetch may take, body included, as
    /// [`ClientBuilder::timeout`](crate::ClientBuilder::timeout) says; a request can set
    /// its own with [`RequestBuilder::timeout`].
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Sends the head and the start of the body, then nothing more.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nstart");
    /// #     std::thread::sleep(std::time::Duration::from_secs(60));
    /// # });
    /// use std::time::Duration;
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().timeout(Duration::from_millis(300)).build()?;
    /// let response = client.get(&url).send()?;
    /// // The head came in time; the rest of the body does not.
    /// let error = response.text().unwrap_err();
    /// assert!(error.is_timeout());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
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
        /// ```
        /// use whatwg_fetch::Url;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder()
        ///     .origin(Url::parse("https://app.example/index.html")?)
        ///     .build()?;
        /// // Relative URLs resolve against the page, as a script's do.
        /// let request = client.get("/api/items").build()?;
        /// assert_eq!(request.url(), "https://app.example/api/items");
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        origin(url: Url);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        /// use whatwg_fetch::{Environment, Url};
        ///
        /// // Server-side (no origin, no CORS), with relative URLs resolved against an API's root.
        /// let api = Url::parse("https://api.example/v1/")?;
        /// let client = Client::builder()
        ///     .environment(Environment::server().with_base_url(api))
        ///     .build()?;
        /// assert_eq!(client.get("items?page=2").build()?.url(), "https://api.example/v1/items?page=2");
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        environment(environment: Environment);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let url = format!("http://{}/", listener.local_addr().unwrap());
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Answers with the value of the request's user-agent field.
        /// #     let (mut stream, _) = listener.accept().unwrap();
        /// #     let mut head = vec![0; 4096];
        /// #     let n = stream.read(&mut head).unwrap();
        /// #     let head = String::from_utf8_lossy(&head[..n]).into_owned();
        /// #     let value = head.lines()
        /// #         .find_map(|line| line.split_once(':').filter(|(n, _)| n.eq_ignore_ascii_case("user-agent")))
        /// #         .map_or("", |(_, value)| value.trim()).to_owned();
        /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{value}", value.len());
        /// #     let _ = stream.write_all(reply.as_bytes());
        /// # });
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().user_agent("inventory-sync/2.1").build()?;
        /// assert_eq!(client.get(&url).send()?.text()?, "inventory-sync/2.1");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        user_agent(user_agent: impl Into<Bytes>);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let url = format!("http://{}/", listener.local_addr().unwrap());
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Answers with the value of the request's accept-language field.
        /// #     let (mut stream, _) = listener.accept().unwrap();
        /// #     let mut head = vec![0; 4096];
        /// #     let n = stream.read(&mut head).unwrap();
        /// #     let head = String::from_utf8_lossy(&head[..n]).into_owned();
        /// #     let value = head.lines()
        /// #         .find_map(|line| line.split_once(':').filter(|(n, _)| n.eq_ignore_ascii_case("accept-language")))
        /// #         .map_or("", |(_, value)| value.trim()).to_owned();
        /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{value}", value.len());
        /// #     let _ = stream.write_all(reply.as_bytes());
        /// # });
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().accept_language(Some("fr-CH, fr;q=0.9")).build()?;
        /// assert_eq!(client.get(&url).send()?.text()?, "fr-CH, fr;q=0.9");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        accept_language(accept_language: Option<impl Into<Bytes>>);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let url = format!("http://{}/", listener.local_addr().unwrap());
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Answers each request with the value of its x-api-key field.
        /// #     for stream in listener.incoming() {
        /// #         let mut stream = stream.unwrap();
        /// #         let mut head = vec![0; 4096];
        /// #         let n = stream.read(&mut head).unwrap();
        /// #         let head = String::from_utf8_lossy(&head[..n]).into_owned();
        /// #         let value = head.lines()
        /// #             .find_map(|line| line.split_once(':').filter(|(n, _)| n.eq_ignore_ascii_case("x-api-key")))
        /// #             .map_or("", |(_, value)| value.trim()).to_owned();
        /// #         let reply = format!("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: {}\r\n\r\n{value}", value.len());
        /// #         let _ = stream.write_all(reply.as_bytes());
        /// #     }
        /// # });
        /// use whatwg_fetch::blocking::Client;
        /// use whatwg_fetch::header::{HeaderMap, HeaderValue};
        ///
        /// let mut headers = HeaderMap::new();
        /// headers.insert("x-api-key", HeaderValue::from_static("team-key"));
        /// let client = Client::builder().default_headers(headers).build()?;
        /// assert_eq!(client.get(&url).send()?.text()?, "team-key");
        /// // A request's own header of that name wins.
        /// assert_eq!(client.get(&url).header("x-api-key", "own-key").send()?.text()?, "own-key");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        default_headers(headers: http::HeaderMap);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let url = format!("http://{}/", listener.local_addr().unwrap());
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Answers one request with a redirect.
        /// #     let (mut stream, _) = listener.accept().unwrap();
        /// #     let _ = stream.read(&mut [0; 4096]);
        /// #     let _ = stream.write_all(b"HTTP/1.1 302 Found\r\nlocation: /login\r\ncontent-length: 0\r\n\r\n");
        /// # });
        /// use whatwg_fetch::blocking::Client;
        /// use whatwg_fetch::redirect;
        ///
        /// // Redirects are not followed: the 302 is the response.
        /// let client = Client::builder().redirect(redirect::Policy::none()).build()?;
        /// let response = client.get(&url).send()?;
        /// assert_eq!(response.status(), 302);
        /// assert_eq!(response.headers().get("location")?.as_deref(), Some("/login"));
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        redirect(policy: crate::redirect::Policy);
        /// ```
        /// use whatwg_fetch::NetworkError;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().https_only(true).build()?;
        /// // Refused before any connection is made.
        /// let error = client.get("http://example.com/").send().unwrap_err();
        /// assert!(matches!(error.network_error(), Some(NetworkError::Blocked(_))));
        /// // `data:` URLs are no network request, and are not affected.
        /// assert_eq!(client.get("data:,local").send()?.text()?, "local");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        https_only(enabled: bool);
        /// ```
        /// use std::time::Duration;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // Gives up on a host that does not answer within 3 s (DNS, TCP and TLS together).
        /// let client = Client::builder().connect_timeout(Duration::from_secs(3)).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        connect_timeout(timeout: Duration);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let url = format!("http://{}/", listener.local_addr().unwrap());
        /// # // Accepts the connection and never answers.
        /// # std::thread::spawn(move || { let _kept = listener.accept(); std::thread::sleep(std::time::Duration::from_secs(60)) });
        /// use std::time::Duration;
        /// use whatwg_fetch::blocking::Client;
        /// use whatwg_fetch::{NetworkError, TimeoutKind};
        ///
        /// let client = Client::builder().read_timeout(Duration::from_millis(200)).build()?;
        /// // The server takes the request and says nothing.
        /// let error = client.get(&url).send().unwrap_err();
        /// assert!(matches!(
        ///     error.network_error(),
        ///     Some(NetworkError::Timeout { kind: TimeoutKind::Idle, .. })
        /// ));
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        read_timeout(timeout: impl Into<Option<Duration>>);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let addr = listener.local_addr().unwrap();
        /// # let url = format!("http://{addr}/");
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Busy once, then fine.
        /// #     for answer in [
        /// #         "HTTP/1.1 503 Service Unavailable\r\nretry-after: 0\r\ncontent-length: 0\r\n\r\n",
        /// #         "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok",
        /// #     ] {
        /// #         let (mut stream, _) = listener.accept().unwrap();
        /// #         let _ = stream.read(&mut [0; 4096]);
        /// #         let _ = stream.write_all(answer.as_bytes());
        /// #     }
        /// # });
        /// use whatwg_fetch::RetryPolicy;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().retry(RetryPolicy::new().max_attempts(3)).build()?;
        /// // The server answers 503 first: the client asks again and gets the 200.
        /// assert_eq!(client.get(&url).send()?.text()?, "ok");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        retry(policy: RetryPolicy);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let url = format!("http://{}/", listener.local_addr().unwrap());
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Answers each request with a body of 2,000 bytes.
        /// #     for stream in listener.incoming() {
        /// #         let mut stream = stream.unwrap();
        /// #         let _ = stream.read(&mut [0; 4096]);
        /// #         let body = "x".repeat(2000);
        /// #         let head = format!("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: {}\r\n\r\n", body.len());
        /// #         let _ = stream.write_all(format!("{head}{body}").as_bytes());
        /// #     }
        /// # });
        /// use std::io::Read;
        /// use whatwg_fetch::NetworkError;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().max_response_body_size(Some(1024)).build()?;
        /// // The 2,000-byte body is refused, read whole or as a stream.
        /// let error = client.get(&url).send()?.text().unwrap_err();
        /// assert!(matches!(error.network_error(), Some(NetworkError::BodyTooLarge { limit: 1024 })));
        /// assert!(client.get(&url).send()?.read_to_end(&mut Vec::new()).is_err());
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        max_response_body_size(max: Option<u64>);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let url = format!("http://{}/", listener.local_addr().unwrap());
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Answers each request with a body of 2,000 bytes.
        /// #     for stream in listener.incoming() {
        /// #         let mut stream = stream.unwrap();
        /// #         let _ = stream.read(&mut [0; 4096]);
        /// #         let body = "x".repeat(2000);
        /// #         let head = format!("HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: {}\r\n\r\n", body.len());
        /// #         let _ = stream.write_all(format!("{head}{body}").as_bytes());
        /// #     }
        /// # });
        /// use std::io::Read;
        /// use whatwg_fetch::NetworkError;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().max_buffered_body_size(Some(1024)).build()?;
        /// // The 2,000-byte body is too large to read whole…
        /// let error = client.get(&url).send()?.text().unwrap_err();
        /// assert!(matches!(error.network_error(), Some(NetworkError::BodyTooLarge { limit: 1024 })));
        /// // …and is read as a stream.
        /// let mut body = Vec::new();
        /// client.get(&url).send()?.read_to_end(&mut body)?;
        /// assert_eq!(body.len(), 2000);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        max_buffered_body_size(max: Option<u64>);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // At most 4 connections to a site; further requests wait their turn.
        /// let client = Client::builder().max_connections_per_origin(4).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        max_connections_per_origin(max: usize);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // Keeps 4 connections to a site open between bursts of requests.
        /// let client = Client::builder().max_idle_per_origin(4).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        max_idle_per_origin(max: usize);
        /// ```
        /// use std::time::Duration;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // A server that closes connections idle for 60 s: close them first.
        /// let client = Client::builder()
        ///     .pool_idle_timeout(Some(Duration::from_secs(50)))
        ///     .build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        pool_idle_timeout(timeout: Option<Duration>);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // Through a middlebox that mangles HTTP/2.
        /// let client = Client::builder().http1_only().build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http1_only();
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // Many small requests to one HTTP/1.1 server that answers them in order.
        /// let client = Client::builder().http1_pipelining(8).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http1_pipelining(depth: usize);
        /// ```
        /// use std::time::Duration;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // Large uploads: the body waits up to 1 s for the server to refuse it (a 401, a 413).
        /// let client = Client::builder().expect_continue(Some(Duration::from_secs(1))).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        expect_continue(wait: Option<Duration>);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // An `http:` service that speaks HTTP/2 only (h2c), as gRPC servers do.
        /// let client = Client::builder().http2_prior_knowledge(true).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http2_prior_knowledge(enabled: bool);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // For an old server that matches `Content-Type` but not `content-type`.
        /// let client = Client::builder().http1_title_case_headers(true).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http1_title_case_headers(enabled: bool);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // Response heads up to 64 KiB, for a server that sends long cookies.
        /// let client = Client::builder().http1_max_header_size(64 * 1024).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http1_max_header_size(max: u32);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().http1_max_headers(200).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http1_max_headers(max: usize);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // A second HTTP/2 connection to an origin once the first's streams are all taken.
        /// let client = Client::builder().http2_max_connections_per_origin(2).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http2_max_connections_per_origin(max: usize);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().http2_max_header_list_size(64 * 1024).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http2_max_header_list_size(max: u32);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // 1 MiB in flight per stream, for large downloads over a long link.
        /// let client = Client::builder().http2_initial_stream_window_size(1 << 20).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http2_initial_stream_window_size(size: impl Into<Option<u32>>);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().http2_initial_connection_window_size(4 << 20).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http2_initial_connection_window_size(size: impl Into<Option<u32>>);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().http2_adaptive_window(true).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http2_adaptive_window(enabled: bool);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().http2_max_frame_size(1 << 20).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http2_max_frame_size(size: impl Into<Option<u32>>);
        /// ```
        /// use std::time::Duration;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // A PING every 20 seconds, through a NAT that forgets quiet connections.
        /// let client = Client::builder().http2_keep_alive_interval(Duration::from_secs(20)).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http2_keep_alive_interval(interval: impl Into<Option<Duration>>);
        /// ```
        /// use std::time::Duration;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder()
        ///     .http2_keep_alive_interval(Duration::from_secs(20))
        ///     .http2_keep_alive_timeout(Duration::from_secs(5))
        ///     .build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http2_keep_alive_timeout(timeout: Duration);
        /// ```
        /// use std::time::Duration;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder()
        ///     .http2_keep_alive_interval(Duration::from_secs(20))
        ///     .http2_keep_alive_while_idle(true)
        ///     .build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http2_keep_alive_while_idle(enabled: bool);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let addr = listener.local_addr().unwrap();
        /// # let url = format!("http://{addr}/");
        /// # std::thread::spawn(move || {
        /// #     use std::io::{BufRead, BufReader, Read, Write};
        /// #     // Answers with the request as it came: its head, then its body.
        /// #     let (socket, _) = listener.accept().unwrap();
        /// #     let mut reader = BufReader::new(socket);
        /// #     let mut request = String::new();
        /// #     while !request.ends_with("\r\n\r\n") {
        /// #         if reader.read_line(&mut request).unwrap() == 0 { break; }
        /// #     }
        /// #     let length: usize = request.lines()
        /// #         .find_map(|line| line.strip_prefix("content-length: "))
        /// #         .and_then(|n| n.trim().parse().ok()).unwrap_or(0);
        /// #     let mut body = vec![0; length];
        /// #     reader.read_exact(&mut body).unwrap();
        /// #     request.push_str(&String::from_utf8_lossy(&body));
        /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{request}", request.len());
        /// #     let _ = reader.get_mut().write_all(reply.as_bytes());
        /// # });
        /// use whatwg_fetch::Proxy;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // `addr`: a forward proxy on this machine.
        /// let client = Client::builder().proxy(Proxy::http(&format!("http://{addr}"))?).build()?;
        /// // The request goes to the proxy, its target in absolute form.
        /// let head = client.get("http://example.com/feed").send()?.text()?;
        /// assert!(head.starts_with("GET http://example.com/feed HTTP/1.1\r\n"), "{head}");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        proxy(proxy: Proxy);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // `https_proxy=http://proxy.internal:3128`, `no_proxy=localhost` and the like.
        /// let client = Client::builder().proxy_from_env(true).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        proxy_from_env(enabled: bool);
        /// ```
        /// use whatwg_fetch::Url;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // A page's client that never sends the page's URL.
        /// let page = Url::parse("https://app.example/account")?;
        /// let client = Client::builder().origin(page).referer(false).build()?;
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        referer(enabled: bool);
        /// ```
        /// use whatwg_fetch::Proxy;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // A builder shared by several clients; this one goes direct.
        /// let shared = || Client::builder().proxy(Proxy::all("http://proxy.internal:3128").unwrap());
        /// let direct = shared().no_proxy().build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        no_proxy();
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let addr = listener.local_addr().unwrap();
        /// # let url = format!("http://{addr}/");
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Answers one request.
        /// #     let (mut stream, _) = listener.accept().unwrap();
        /// #     let _ = stream.read(&mut [0; 4096]);
        /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
        /// # });
        /// use std::net::{IpAddr, SocketAddr};
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // `api.example` is this machine, whatever DNS says; port 0 keeps the URL's.
        /// let client = Client::builder()
        ///     .resolve("api.example", SocketAddr::from(([127, 0, 0, 1], 0)))
        ///     .build()?;
        /// let url = format!("http://api.example:{}/", addr.port());
        /// assert_eq!(client.get(&url).send()?.text()?, "ok");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        resolve(host: &str, addr: SocketAddr);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let addr = listener.local_addr().unwrap();
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Answers one request.
        /// #     let (mut stream, _) = listener.accept().unwrap();
        /// #     let _ = stream.read(&mut [0; 4096]);
        /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
        /// # });
        /// use std::net::SocketAddr;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // A port nothing listens on any more, then this machine's server: tried in turn.
        /// let closed = std::net::TcpListener::bind("127.0.0.1:0")?.local_addr()?;
        /// let local = SocketAddr::from(([127, 0, 0, 1], 0));
        /// let client = Client::builder().resolve_to_addrs("api.example", &[closed, local]).build()?;
        /// let url = format!("http://api.example:{}/", addr.port());
        /// assert_eq!(client.get(&url).send()?.text()?, "ok");
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        resolve_to_addrs(host: &str, addrs: &[SocketAddr]);
        /// ```
        /// use std::sync::Arc;
        /// use whatwg_fetch::blocking::Client;
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
        resolver(resolver: Arc<dyn Resolve>);
        /// ```
        /// use std::time::Duration;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().happy_eyeballs_delay(Duration::from_millis(250)).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        happy_eyeballs_delay(delay: Duration);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let url = format!("http://{}/", listener.local_addr().unwrap());
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Answers with the address the connection came from.
        /// #     let (mut stream, peer) = listener.accept().unwrap();
        /// #     let _ = stream.read(&mut [0; 4096]);
        /// #     let ip = peer.ip().to_string();
        /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n{ip}", ip.len());
        /// #     let _ = stream.write_all(reply.as_bytes());
        /// # });
        /// use std::net::IpAddr;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // Connections leave from this address of the machine's.
        /// let client = Client::builder().local_address(Some(IpAddr::from([127, 0, 0, 1]))).build()?;
        /// assert_eq!(client.get(&url).send()?.text()?, "127.0.0.1");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        local_address(address: Option<IpAddr>);
        /// ```
        /// use std::time::Duration;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().tcp_keepalive(Some(Duration::from_secs(60))).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        tcp_keepalive(idle: Option<Duration>);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().tcp_nodelay(false).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        tcp_nodelay(enabled: bool);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// # let pem = rcgen::generate_simple_self_signed(vec!["ca.internal".to_owned()]).unwrap().cert.pem();
        /// // `pem`: the private CA's certificates, as `std::fs::read("ca.pem")?` reads them.
        /// let client = Client::builder().add_root_certificates_pem(pem).build()?;
        /// // A document that holds no certificate fails the build, not the first request.
        /// assert!(Client::builder().add_root_certificates_pem("no certificate").build().is_err());
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        add_root_certificates_pem(pem: impl Into<Vec<u8>>);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// # let der = rcgen::generate_simple_self_signed(vec!["ca.internal".to_owned()]).unwrap().cert.der().to_vec();
        /// // `der`: one DER-encoded root, as `std::fs::read("ca.der")?` reads it.
        /// let client = Client::builder().add_root_certificate_der(der).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        add_root_certificate_der(der: impl Into<Vec<u8>>);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // The system's trust store only, as curl.
        /// let client = Client::builder().tls_built_in_roots(false).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        tls_built_in_roots(enabled: bool);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // The built-in Mozilla roots only: the same on every machine.
        /// let client = Client::builder().tls_system_roots(false).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        tls_system_roots(enabled: bool);
        /// ```
        /// use whatwg_fetch::Identity;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// # let made = rcgen::generate_simple_self_signed(vec!["client.internal".to_owned()]).unwrap();
        /// # let pem = format!("{}{}", made.cert.pem(), made.signing_key.serialize_pem());
        /// // `pem`: the client's certificate chain and its private key, as `std::fs::read` reads them.
        /// let client = Client::builder().identity(Identity::from_pem(pem.as_bytes())?).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        identity(identity: Identity);
        /// ```
        /// use whatwg_fetch::TlsVersion;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // TLS 1.3 only, as a policy may require.
        /// let client = Client::builder().min_tls_version(TlsVersion::Tls13).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        min_tls_version(version: TlsVersion);
        /// ```
        /// use whatwg_fetch::TlsVersion;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // For a server whose TLS 1.3 is broken.
        /// let client = Client::builder().max_tls_version(TlsVersion::Tls12).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        max_tls_version(version: TlsVersion);
        /// ```
        /// # let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
        /// # let cert = made.cert.der().clone();
        /// # let key = rustls_pki_types::PrivateKeyDer::try_from(made.signing_key.serialize_der()).unwrap();
        /// # let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        /// # let config = std::sync::Arc::new(rustls::ServerConfig::builder_with_provider(provider)
        /// #     .with_safe_default_protocol_versions().unwrap()
        /// #     .with_no_client_auth()
        /// #     .with_single_cert(vec![cert.clone()], key).unwrap());
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let port = listener.local_addr().unwrap().port();
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Answers each request whose handshake completes with `ok`.
        /// #     for stream in listener.incoming() {
        /// #         let Ok(stream) = stream else { continue };
        /// #         let connection = rustls::ServerConnection::new(config.clone()).unwrap();
        /// #         let mut tls = rustls::StreamOwned::new(connection, stream);
        /// #         if tls.read(&mut [0; 4096]).is_err() { continue }
        /// #         let _ = tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok");
        /// #         tls.conn.send_close_notify();
        /// #         let _ = tls.flush();
        /// #     }
        /// # });
        /// use whatwg_fetch::NetworkError;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // A test server's self-signed certificate, on a developer's machine only.
        /// let url = format!("https://127.0.0.1:{port}/");
        /// let client = Client::builder().danger_accept_invalid_certs(true).build()?;
        /// assert_eq!(client.get(&url).send()?.text()?, "ok");
        /// // Checked, the certificate fails the handshake.
        /// let error = Client::new().get(&url).send().unwrap_err();
        /// assert!(matches!(error.network_error(), Some(NetworkError::Tls(_))));
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        danger_accept_invalid_certs(accept: bool);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // A development build only: a trusted certificate for another name passes.
        /// let client = Client::builder().danger_accept_invalid_hostnames(cfg!(debug_assertions)).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        danger_accept_invalid_hostnames(accept: bool);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // Writes to the file `SSLKEYLOGFILE` names, when it is set.
        /// let client = Client::builder().tls_key_log(true).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        tls_key_log(enabled: bool);
        /// ```
        /// use std::sync::Arc;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// # let ca = rcgen::generate_simple_self_signed(vec!["ca.internal".to_owned()]).unwrap();
        /// # #[cfg(feature = "aws-lc-rs")] {
        /// // Trusts one private CA (`ca`), and nothing else.
        /// let mut roots = rustls::RootCertStore::empty();
        /// roots.add(ca.cert.der().clone())?;
        /// let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
        /// let config = rustls::ClientConfig::builder_with_provider(provider)
        ///     .with_safe_default_protocol_versions()?
        ///     .with_root_certificates(roots)
        ///     .with_no_client_auth();
        /// let client = Client::builder().rustls_config(Arc::new(config)).build()?;
        /// # }
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        rustls_config(config: Arc<rustls::ClientConfig>);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let url = format!("http://{}/", listener.local_addr().unwrap());
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Sets a cookie, and answers with the `Cookie` each request sends.
        /// #     for stream in listener.incoming() {
        /// #         let mut stream = stream.unwrap();
        /// #         let mut head = vec![0; 4096];
        /// #         let n = stream.read(&mut head).unwrap();
        /// #         let head = String::from_utf8_lossy(&head[..n]).into_owned();
        /// #         let cookie = head.lines().find_map(|l| l.strip_prefix("cookie: ")).unwrap_or("").to_owned();
        /// #         let reply = format!("HTTP/1.1 200 OK\r\nset-cookie: session=42\r\nconnection: close\r\n\
        /// #             content-length: {}\r\n\r\n{cookie}", cookie.len());
        /// #         let _ = stream.write_all(reply.as_bytes());
        /// #     }
        /// # });
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().cookie_store(true).build()?;
        /// assert_eq!(client.get(&url).send()?.text()?, "");
        /// // The second request sends the cookie the first response set.
        /// assert_eq!(client.get(&url).send()?.text()?, "session=42");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        cookie_store(enabled: bool);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let url = format!("http://{}/", listener.local_addr().unwrap());
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Sets a cookie, and answers with the `Cookie` each request sends.
        /// #     for stream in listener.incoming() {
        /// #         let mut stream = stream.unwrap();
        /// #         let mut head = vec![0; 4096];
        /// #         let n = stream.read(&mut head).unwrap();
        /// #         let head = String::from_utf8_lossy(&head[..n]).into_owned();
        /// #         let cookie = head.lines().find_map(|l| l.strip_prefix("cookie: ")).unwrap_or("").to_owned();
        /// #         let reply = format!("HTTP/1.1 200 OK\r\nset-cookie: session=42\r\nconnection: close\r\n\
        /// #             content-length: {}\r\n\r\n{cookie}", cookie.len());
        /// #         let _ = stream.write_all(reply.as_bytes());
        /// #     }
        /// # });
        /// use std::sync::Arc;
        /// use whatwg_fetch::blocking::Client;
        /// use whatwg_fetch::cookie::CookieStore;
        ///
        /// let store = Arc::new(CookieStore::default());
        /// let one = Client::builder().cookie_store_with(store.clone()).build()?;
        /// let two = Client::builder().cookie_store_with(store.clone()).build()?;
        /// one.get(&url).send()?;
        /// assert_eq!(store.len(), 1);
        /// // The cookie the first client got, the second sends.
        /// assert_eq!(two.get(&url).send()?.text()?, "session=42");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        cookie_store_with(store: Arc<CookieStore>);
        /// ```
        /// # use std::sync::Arc;
        /// # use std::sync::atomic::{AtomicUsize, Ordering};
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let url = format!("http://{}/", listener.local_addr().unwrap());
        /// # let served = Arc::new(AtomicUsize::new(0));
        /// # let count = served.clone();
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     for stream in listener.incoming() {
        /// #         let mut stream = stream.unwrap();
        /// #         let _ = stream.read(&mut [0; 4096]);
        /// #         count.fetch_add(1, Ordering::SeqCst);
        /// #         let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncache-control: max-age=60\r\n\
        /// #             connection: close\r\ncontent-length: 5\r\n\r\nfresh");
        /// #     }
        /// # });
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().http_cache(true).build()?;
        /// for _ in 0..3 {
        ///     // `Cache-Control: max-age=60`: the first response serves the next two.
        ///     assert_eq!(client.get(&url).send()?.text()?, "fresh");
        /// }
        /// assert_eq!(served.load(Ordering::SeqCst), 1);
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http_cache(enabled: bool);
        /// ```
        /// use std::sync::Arc;
        /// use whatwg_fetch::blocking::Client;
        /// use whatwg_fetch::cache::DiskCacheStore;
        ///
        /// # let dir = std::env::temp_dir().join(format!("whatwg-fetch-doc-blocking-cache-{}", std::process::id()));
        /// // Responses kept on disk, up to 256 MiB, for the clients of this run and the next.
        /// let store = Arc::new(DiskCacheStore::open(&dir, 256 << 20)?);
        /// let client = Client::builder().http_cache_store(store).build()?;
        /// # let _ = std::fs::remove_dir_all(&dir);
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        http_cache_store(store: Arc<dyn HttpCacheStore>);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // Upgrades `http:` requests to the hosts that asked for `https:` only.
        /// let client = Client::builder().hsts(true).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        hsts(enabled: bool);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // A URL such as `http://ada:secret@camera.local/` answers a `Digest` challenge.
        /// let client = Client::builder().digest_auth_from_url(true).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        digest_auth_from_url(enabled: bool);
        /// ```
        /// use whatwg_fetch::Url;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let path = std::env::temp_dir().join(format!("whatwg-fetch-doc-blocking-{}.txt", std::process::id()));
        /// std::fs::write(&path, "from disk")?;
        /// let url = Url::from_file_path(&path).map_err(|()| "not an absolute path")?;
        ///
        /// let client = Client::builder().allow_file_urls(true).build()?;
        /// assert_eq!(client.get(url.as_str()).send()?.text()?, "from disk");
        /// // Off (the default), a `file:` URL is a network error.
        /// assert!(Client::new().get(url.as_str()).send().is_err());
        /// # std::fs::remove_file(&path)?;
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        allow_file_urls(allowed: bool);
        /// ```
        /// use std::sync::Arc;
        /// use whatwg_fetch::blocking::Client;
        /// use whatwg_fetch::net::{RequestBody, ResponseBody, SendOptions, Transport, TransportFuture};
        ///
        /// /// Answers every request with `200 OK` and "canned", as a test's stand-in for the network.
        /// struct Canned;
        ///
        /// impl Transport for Canned {
        ///     fn send(&self, _request: http::Request<RequestBody>, _options: SendOptions) -> TransportFuture {
        ///         Box::pin(async { Ok(http::Response::new(ResponseBody::full("canned"))) })
        ///     }
        /// }
        ///
        /// let client = Client::builder().transport(Arc::new(Canned)).build()?;
        /// assert_eq!(client.get("https://api.example/items").send()?.text()?, "canned");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        transport(transport: Arc<dyn Transport>);
    }

    #[cfg(feature = "http3")]
    forward_options! {
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // Origins that announce HTTP/3 by `Alt-Svc` are asked over QUIC next.
        /// let client = Client::builder().http3(true).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http3(enabled: bool);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // Servers known to speak HTTP/3: QUIC from the first request.
        /// let client = Client::builder().http3_prior_knowledge().build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http3_prior_knowledge();
        /// ```
        /// use std::sync::Arc;
        /// use whatwg_fetch::blocking::Client;
        /// use whatwg_fetch::net::AltSvcCache;
        ///
        /// // Two clients that learn from each other which origins speak HTTP/3.
        /// let cache = Arc::new(AltSvcCache::new());
        /// let one = Client::builder().http3(true).alt_svc_cache(cache.clone()).build()?;
        /// let two = Client::builder().http3(true).alt_svc_cache(cache).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        alt_svc_cache(cache: Arc<crate::net::AltSvcCache>);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // Resumed HTTP/3 connections send their first `GET`s without waiting for the handshake.
        /// let client = Client::builder().http3(true).tls_early_data(true).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        tls_early_data(enabled: bool);
        /// ```
        /// use std::time::Duration;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().http3(true).http3_max_idle_timeout(Duration::from_secs(30)).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http3_max_idle_timeout(timeout: Duration);
        /// ```
        /// use std::time::Duration;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().http3(true).http3_keep_alive_interval(Duration::from_secs(15)).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http3_keep_alive_interval(interval: Duration);
        /// ```
        /// use std::time::Duration;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder()
        ///     .http3(true)
        ///     .http3_keep_alive_interval(Duration::from_secs(15))
        ///     .http3_keep_alive_timeout(Duration::from_secs(5))
        ///     .build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        http3_keep_alive_timeout(timeout: Duration);
    }

    #[cfg(feature = "gzip")]
    forward_options! {
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // `gzip` neither asked for in `Accept-Encoding` nor decoded.
        /// let client = Client::builder().gzip(false).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        gzip(enabled: bool);
    }

    #[cfg(feature = "deflate")]
    forward_options! {
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().deflate(false).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        deflate(enabled: bool);
    }

    #[cfg(feature = "brotli")]
    forward_options! {
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().brotli(false).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        brotli(enabled: bool);
    }

    #[cfg(feature = "zstd")]
    forward_options! {
        /// ```
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().zstd(false).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        zstd(enabled: bool);
    }

    #[cfg(unix)]
    forward_options! {
        /// ```
        /// # let path = std::env::temp_dir().join(format!("whatwg-fetch-doc-blocking-{}.sock", std::process::id()));
        /// # let _ = std::fs::remove_file(&path);
        /// # let listener = std::os::unix::net::UnixListener::bind(&path).unwrap();
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     let (mut stream, _) = listener.accept().unwrap();
        /// #     let _ = stream.read(&mut [0; 1024]);
        /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
        /// # });
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // A server listening on `path`, as the Docker daemon does on /var/run/docker.sock.
        /// let client = Client::builder().unix_socket(&path).build()?;
        /// assert_eq!(client.get("http://localhost/_ping").send()?.text()?, "ok");
        /// # let _ = std::fs::remove_file(&path);
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        unix_socket(path: impl Into<std::path::PathBuf>);
    }

    #[cfg(feature = "hickory-dns")]
    forward_options! {
        /// ```no_run
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().hickory_dns(true).build()?;
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        hickory_dns(enabled: bool);
    }

    /// Sets [`ClientBuilder::resolve_with`](crate::ClientBuilder::resolve_with), which says
    /// what it does and its default.
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers one request.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok");
    /// # });
    /// use whatwg_fetch::blocking::Client;
    ///
    /// // Every name under `.test` is the server at `addr`; other names are asked of DNS.
    /// let client = Client::builder()
    ///     .resolve_with(move |host| host.ends_with(".test").then(|| vec![addr]))
    ///     .build()?;
    /// let url = format!("http://api.test:{}/", addr.port());
    /// assert_eq!(client.get(&url).send()?.text()?, "ok");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn resolve_with<F>(self, resolve: F) -> ClientBuilder
    where
        F: Fn(&str) -> Option<Vec<SocketAddr>> + Send + Sync + 'static,
    {
        ClientBuilder {
            inner: self.inner.resolve_with(resolve),
        }
    }

    /// Sets [`ClientBuilder::pin_public_keys`](crate::ClientBuilder::pin_public_keys),
    /// which says what it does and its default.
    ///
    /// ```
    /// use whatwg_fetch::blocking::Client;
    /// use whatwg_fetch::net::PublicKeyPin;
    ///
    /// // The certificate of `example.com` must be valid and carry this key.
    /// let pin: PublicKeyPin = "sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE=".parse()?;
    /// let client = Client::builder().pin_public_keys("example.com", [pin]).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn pin_public_keys<I>(self, host: &str, pins: I) -> ClientBuilder
    where
        I: IntoIterator,
        I::Item: Into<PublicKeyPin>,
    {
        ClientBuilder {
            inner: self.inner.pin_public_keys(host, pins),
        }
    }

    /// Sets [`ClientBuilder::pin_public_keys_only`](crate::ClientBuilder::pin_public_keys_only),
    /// which says what it does and its default.
    ///
    /// ```
    /// # let made = rcgen::generate_simple_self_signed(vec!["127.0.0.1".to_owned()]).unwrap();
    /// # let cert = made.cert.der().clone();
    /// # let key = rustls_pki_types::PrivateKeyDer::try_from(made.signing_key.serialize_der()).unwrap();
    /// # let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    /// # let config = std::sync::Arc::new(rustls::ServerConfig::builder_with_provider(provider)
    /// #     .with_safe_default_protocol_versions().unwrap()
    /// #     .with_no_client_auth()
    /// #     .with_single_cert(vec![cert.clone()], key).unwrap());
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let port = listener.local_addr().unwrap().port();
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers each request whose handshake completes with `ok`.
    /// #     for stream in listener.incoming() {
    /// #         let Ok(stream) = stream else { continue };
    /// #         let connection = rustls::ServerConnection::new(config.clone()).unwrap();
    /// #         let mut tls = rustls::StreamOwned::new(connection, stream);
    /// #         if tls.read(&mut [0; 4096]).is_err() { continue }
    /// #         let _ = tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok");
    /// #         tls.conn.send_close_notify();
    /// #         let _ = tls.flush();
    /// #     }
    /// # });
    /// use whatwg_fetch::blocking::Client;
    /// use whatwg_fetch::net::PublicKeyPin;
    ///
    /// // A device's self-signed certificate (`cert`), trusted for its key alone.
    /// let pin = PublicKeyPin::from_certificate_der(&cert)?;
    /// let client = Client::builder().pin_public_keys_only("127.0.0.1", [pin]).build()?;
    /// assert_eq!(client.get(format!("https://127.0.0.1:{port}/")).send()?.text()?, "ok");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn pin_public_keys_only<I>(self, host: &str, pins: I) -> ClientBuilder
    where
        I: IntoIterator,
        I::Item: Into<PublicKeyPin>,
    {
        ClientBuilder {
            inner: self.inner.pin_public_keys_only(host, pins),
        }
    }

    /// Sets [`ClientBuilder::transport_layer`](crate::ClientBuilder::transport_layer),
    /// which says what it does and its default. The layer's service runs on the client's
    /// thread, as the transport does.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::blocking::Client;
    /// use whatwg_fetch::net::{RequestBody, ResponseBody, SendOptions, Transport, TransportFuture};
    ///
    /// /// Answers each request with its `x-signature` field, as a test's stand-in for the network.
    /// struct Echo;
    ///
    /// impl Transport for Echo {
    ///     fn send(&self, request: http::Request<RequestBody>, _options: SendOptions) -> TransportFuture {
    ///         let signature = request.headers().get("x-signature").map(|value| value.as_bytes().to_vec());
    ///         Box::pin(async move { Ok(http::Response::new(ResponseBody::full(signature.unwrap_or_default()))) })
    ///     }
    /// }
    ///
    /// // Signs each request with what it asks for: here its path.
    /// fn sign(mut request: http::Request<RequestBody>) -> http::Request<RequestBody> {
    ///     let signature = format!("sig({})", request.uri().path());
    ///     if let Ok(value) = http::HeaderValue::try_from(signature) {
    ///         request.headers_mut().insert("x-signature", value);
    ///     }
    ///     request
    /// }
    ///
    /// let client = Client::builder()
    ///     .transport(Arc::new(Echo))
    ///     .transport_layer(tower::ServiceBuilder::new().map_request(sign))
    ///     .build()?;
    /// assert_eq!(client.get("https://api.example/items").send()?.text()?, "sig(/items)");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    #[cfg(feature = "tower")]
    pub fn transport_layer<L>(self, layer: L) -> ClientBuilder
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
        ClientBuilder {
            inner: self.inner.transport_layer(layer),
        }
    }

    /// Sets [`ClientBuilder::cookie_provider`](crate::ClientBuilder::cookie_provider),
    /// which says what it does. The client's thread awaits the provider's futures.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::blocking::Client;
    /// use whatwg_fetch::cookie::CookieStore;
    ///
    /// // The in-memory store is a provider too; a Redis one shares cookies across a fleet.
    /// let client = Client::builder().cookie_provider(Arc::new(CookieStore::default())).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn cookie_provider<C: CookieProvider + 'static>(self, provider: Arc<C>) -> ClientBuilder {
        ClientBuilder {
            inner: self.inner.cookie_provider(provider),
        }
    }

    /// Builds the client and starts its thread.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().timeout(Duration::from_secs(60)).build()?;
    /// assert_eq!(client.get("data:,ready").send()?.text()?, "ready");
    /// // Options that cannot be used fail here, not at the first request.
    /// assert!(Client::builder().add_root_certificates_pem("no certificate").build().is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
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
        assert_send::<Body>();
    }
}
