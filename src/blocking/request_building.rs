//! [`RequestBuilder`]: the async [`RequestBuilder`](crate::RequestBuilder), sent on the
//! blocking client's thread.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use http::{HeaderMap, HeaderName, HeaderValue};
use serde::Serialize;

use super::Response;
use super::runtime_thread::RuntimeThread;
use crate::abort::AbortSignal;
use crate::body::BodyInit;
use crate::error::Result;
use crate::form_data::FormData;
use crate::request::{
    ReferrerPolicy, Request, RequestCache, RequestCredentials, RequestMode, RequestPriority,
    RequestRedirect,
};

/// A request being put together for a blocking [`Client`](super::Client), then
/// [`send`](Self::send): each method is the async
/// [`RequestBuilder`](crate::RequestBuilder)'s of the same name, and is documented there.
///
/// The first error (a header that is not valid, a query or body that does not serialize)
/// is kept and returned by [`send`](Self::send) and [`build`](Self::build).
///
/// ```
/// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
/// # let addr = listener.local_addr().unwrap();
/// # let server = std::thread::spawn(move || {
/// #     use std::io::{BufRead, BufReader, Read, Write};
/// #     let (socket, _) = listener.accept().unwrap();
/// #     let mut reader = BufReader::new(socket);
/// #     let mut head = String::new();
/// #     while !head.ends_with("\r\n\r\n") {
/// #         if reader.read_line(&mut head).unwrap() == 0 { break; }
/// #     }
/// #     let length: usize = head.lines()
/// #         .find_map(|line| line.strip_prefix("content-length: "))
/// #         .and_then(|n| n.trim().parse().ok()).unwrap_or(0);
/// #     let mut body = vec![0; length];
/// #     reader.read_exact(&mut body).unwrap();
/// #     let answer = format!("{}\n{}", head.lines().next().unwrap(), String::from_utf8(body).unwrap());
/// #     let reply = format!("HTTP/1.1 201 Created\r\ncontent-length: {}\r\n\r\n{answer}", answer.len());
/// #     reader.get_mut().write_all(reply.as_bytes()).unwrap();
/// # });
/// use std::time::Duration;
/// use whatwg_fetch::blocking::Client;
///
/// let client = Client::builder().build()?;
/// let response = client
///     .post(format!("http://{addr}/items"))
///     .query(&[("dry_run", "true")])
///     .bearer_auth("secret-token")
///     .json(&serde_json::json!({ "name": "first" }))
///     .timeout(Duration::from_secs(10))
///     .send()?;
/// assert_eq!(response.status(), 201);
/// assert_eq!(
///     response.text()?,
///     "POST /items?dry_run=true HTTP/1.1\n{\"name\":\"first\"}"
/// );
/// # server.join().unwrap();
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[must_use = "a RequestBuilder does nothing until it is sent"]
pub struct RequestBuilder {
    inner: crate::RequestBuilder,
    runtime: Arc<RuntimeThread>,
}

/// Methods that apply the async builder's method of the same name, documented there.
macro_rules! forward_steps {
    ($( $name:ident($($arg:ident: $ty:ty),*); )*) => {
        $(
            #[doc = concat!(
                "As [`RequestBuilder::", stringify!($name), "`](crate::RequestBuilder::",
                stringify!($name), ")."
            )]
            pub fn $name(self, $($arg: $ty),*) -> RequestBuilder {
                self.map(|inner| inner.$name($($arg),*))
            }
        )*
    };
}

impl RequestBuilder {
    /// The blocking builder over `inner`, sent on `runtime`.
    pub(super) fn new(inner: crate::RequestBuilder, runtime: Arc<RuntimeThread>) -> RequestBuilder {
        RequestBuilder { inner, runtime }
    }

    /// The builder with `step` applied to the async one.
    fn map(self, step: impl FnOnce(crate::RequestBuilder) -> crate::RequestBuilder) -> Self {
        RequestBuilder {
            inner: step(self.inner),
            runtime: self.runtime,
        }
    }

    /// As [`RequestBuilder::header`](crate::RequestBuilder::header): appends a header.
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// let request = client.get("https://example.com/").header("x-trace", "1").build()?;
    /// assert_eq!(request.headers().get("x-trace")?.as_deref(), Some("1"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn header<K, V>(self, name: K, value: V) -> RequestBuilder
    where
        HeaderName: TryFrom<K>,
        <HeaderName as TryFrom<K>>::Error: Into<http::Error>,
        HeaderValue: TryFrom<V>,
        <HeaderValue as TryFrom<V>>::Error: Into<http::Error>,
        K: fmt::Debug + Clone,
    {
        self.map(|inner| inner.header(name, value))
    }

    /// As [`RequestBuilder::basic_auth`](crate::RequestBuilder::basic_auth): sets
    /// `Authorization: Basic …`.
    pub fn basic_auth<U, P>(self, username: U, password: Option<P>) -> RequestBuilder
    where
        U: fmt::Display,
        P: fmt::Display,
    {
        self.map(|inner| inner.basic_auth(username, password))
    }

    /// As [`RequestBuilder::digest_auth`](crate::RequestBuilder::digest_auth): answers a
    /// `401`'s `Digest` challenge with `username` and `password`.
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build().unwrap();
    /// let request = client.get("https://example.com/").digest_auth("ada", "secret").build()?;
    /// assert_eq!(request.headers().get("authorization")?, None);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn digest_auth<U, P>(self, username: U, password: P) -> RequestBuilder
    where
        U: fmt::Display,
        P: fmt::Display,
    {
        self.map(|inner| inner.digest_auth(username, password))
    }

    /// As [`RequestBuilder::bearer_auth`](crate::RequestBuilder::bearer_auth): sets
    /// `Authorization: Bearer <token>`.
    pub fn bearer_auth<T: fmt::Display>(self, token: T) -> RequestBuilder {
        self.map(|inner| inner.bearer_auth(token))
    }

    /// As [`RequestBuilder::json`](crate::RequestBuilder::json): the body, `value` as
    /// JSON.
    pub fn json<T: Serialize + ?Sized>(self, value: &T) -> RequestBuilder {
        self.map(|inner| inner.json(value))
    }

    /// As [`RequestBuilder::form`](crate::RequestBuilder::form): the body, `value` as
    /// `application/x-www-form-urlencoded`.
    pub fn form<T: Serialize + ?Sized>(self, value: &T) -> RequestBuilder {
        self.map(|inner| inner.form(value))
    }

    /// As [`RequestBuilder::query`](crate::RequestBuilder::query): appends `query` to
    /// the URL's query.
    pub fn query<T: Serialize + ?Sized>(self, query: &T) -> RequestBuilder {
        self.map(|inner| inner.query(query))
    }

    /// As [`RequestBuilder::timeout`](crate::RequestBuilder::timeout): a total timeout for
    /// this request alone, in place of the client's, from the start of the fetch until
    /// its body has been read (through [`Read`](std::io::Read) too).
    pub fn timeout(self, timeout: Duration) -> RequestBuilder {
        self.map(|inner| inner.timeout(timeout))
    }

    forward_steps! {
        headers(headers: HeaderMap);
        body(body: impl Into<BodyInit>);
        multipart(form: FormData);
        signal(signal: AbortSignal);
        mode(mode: RequestMode);
        credentials(credentials: RequestCredentials);
        cache(cache: RequestCache);
        redirect(redirect: RequestRedirect);
        referrer(referrer: impl Into<String>);
        referrer_policy(policy: ReferrerPolicy);
        integrity(integrity: impl Into<String>);
        keepalive(keepalive: bool);
        expect_continue(wait: Option<Duration>);
        priority(priority: RequestPriority);
        version(version: http::Version);
        proxy(proxy: crate::net::Proxy);
        no_proxy();
        resolve(host: &str, addr: std::net::SocketAddr);
        resolve_to_addrs(host: &str, addrs: &[std::net::SocketAddr]);
    }

    /// The request as the spec's constructor makes it, as
    /// [`RequestBuilder::build`](crate::RequestBuilder::build) does, for
    /// [`Client::fetch_request`](super::Client::fetch_request).
    ///
    /// # Errors
    /// The first error the builder kept, or the constructor's: a `TypeError` that says
    /// which.
    pub fn build(self) -> Result<Request> {
        self.inner.build()
    }

    /// Fetches the request and returns the response once its head has arrived; the body
    /// is read from the response afterwards.
    ///
    /// # Errors
    /// As [`RequestBuilder::send`](crate::RequestBuilder::send): the builder's error, a
    /// network error, the timeout, the signal's reason. A `TypeError` too if the client's
    /// thread has stopped.
    pub fn send(self) -> Result<Response> {
        let inner = self.inner;
        let response = self.runtime.run(inner.send())??;
        Ok(Response::new(response, self.runtime))
    }

    /// A copy of the builder, as
    /// [`RequestBuilder::try_clone`](crate::RequestBuilder::try_clone) makes one: `None`
    /// when its body is a stream or it was given a [`Request`] (or it kept an error).
    pub fn try_clone(&self) -> Option<RequestBuilder> {
        Some(RequestBuilder {
            inner: self.inner.try_clone()?,
            runtime: self.runtime.clone(),
        })
    }
}

impl fmt::Debug for RequestBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&self.inner, f)
    }
}
