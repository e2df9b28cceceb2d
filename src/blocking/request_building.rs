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
use crate::multipart::Form;
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

/// Methods that apply the async builder's method of the same name, documented there; the
/// doc comments written above a step (its example) follow that sentence.
macro_rules! forward_steps {
    ($( $(#[$doc:meta])* $name:ident($($arg:ident: $ty:ty),*); )*) => {
        $(
            #[doc = concat!(
                "As [`RequestBuilder::", stringify!($name), "`](crate::RequestBuilder::",
                stringify!($name), ")."
            )]
            #[doc = ""]
            $(#[$doc])*
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
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// let request = client.get("https://api.example/").basic_auth("ada", Some("secret")).build()?;
    /// assert_eq!(
    ///     request.headers().get("authorization")?.as_deref(),
    ///     Some("Basic YWRhOnNlY3JldA==")
    /// );
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
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
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// let request = client.get("https://api.example/").bearer_auth("secret-token").build()?;
    /// assert_eq!(request.headers().get("authorization")?.as_deref(), Some("Bearer secret-token"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn bearer_auth<T: fmt::Display>(self, token: T) -> RequestBuilder {
        self.map(|inner| inner.bearer_auth(token))
    }

    /// As [`RequestBuilder::json`](crate::RequestBuilder::json): the body, `value` as
    /// JSON.
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
    /// #[derive(serde::Serialize)]
    /// struct NewItem<'a> {
    ///     name: &'a str,
    ///     stock: u32,
    /// }
    ///
    /// let client = Client::builder().build()?;
    /// let echoed = client.post(&url).json(&NewItem { name: "first", stock: 3 }).send()?.text()?;
    /// assert!(echoed.contains("\r\ncontent-type: application/json\r\n"), "{echoed}");
    /// assert!(echoed.ends_with("\r\n\r\n{\"name\":\"first\",\"stock\":3}"), "{echoed}");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn json<T: Serialize + ?Sized>(self, value: &T) -> RequestBuilder {
        self.map(|inner| inner.json(value))
    }

    /// As [`RequestBuilder::form`](crate::RequestBuilder::form): the body, `value` as
    /// `application/x-www-form-urlencoded`.
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
    /// let echoed = client.post(&url).form(&[("user", "ada"), ("note", "a&b")]).send()?.text()?;
    /// assert!(echoed.contains("\r\ncontent-type: application/x-www-form-urlencoded"), "{echoed}");
    /// assert!(echoed.ends_with("\r\n\r\nuser=ada&note=a%26b"), "{echoed}");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn form<T: Serialize + ?Sized>(self, value: &T) -> RequestBuilder {
        self.map(|inner| inner.form(value))
    }

    /// As [`RequestBuilder::query`](crate::RequestBuilder::query): appends `query` to
    /// the URL's query.
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// let request = client
    ///     .get("https://api.example/search?lang=en")
    ///     .query(&[("q", "fetch standard"), ("page", "2")])
    ///     .build()?;
    /// assert_eq!(request.url(), "https://api.example/search?lang=en&q=fetch+standard&page=2");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn query<T: Serialize + ?Sized>(self, query: &T) -> RequestBuilder {
        self.map(|inner| inner.query(query))
    }

    /// As [`RequestBuilder::timeout`](crate::RequestBuilder::timeout): a total timeout for
    /// this request alone, in place of the client's, from the start of the fetch until
    /// its body has been read (through [`Read`](std::io::Read) too).
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # // Accepts the connection and never answers.
    /// # std::thread::spawn(move || { let _kept = listener.accept(); std::thread::sleep(std::time::Duration::from_secs(60)) });
    /// use std::time::Duration;
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// // This request gives up after 200 ms; the server never answers.
    /// let error = client.get(&url).timeout(Duration::from_millis(200)).send().unwrap_err();
    /// assert!(error.is_timeout());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn timeout(self, timeout: Duration) -> RequestBuilder {
        self.map(|inner| inner.timeout(timeout))
    }

    forward_steps! {
        /// ```
        /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
        /// use whatwg_fetch::header::{ACCEPT, HeaderMap, HeaderValue};
        ///
        /// let mut headers = HeaderMap::new();
        /// headers.insert(ACCEPT, HeaderValue::from_static("application/json"));
        /// headers.insert("x-api-version", HeaderValue::from_static("2024-06"));
        /// let request = client.get("https://api.example/items").headers(headers).build()?;
        /// assert_eq!(request.headers().get("x-api-version")?.as_deref(), Some("2024-06"));
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        headers(headers: HeaderMap);
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
        /// let response = client.put(format!("{url}notes/1")).body("remember the milk").send()?;
        /// let echoed = response.text()?;
        /// assert!(echoed.contains("\r\ncontent-type: text/plain;charset=UTF-8\r\n"), "{echoed}");
        /// assert!(echoed.ends_with("\r\n\r\nremember the milk"), "{echoed}");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        body(body: impl Into<BodyInit>);
        /// ```
        /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
        /// use whatwg_fetch::FormData;
        /// use whatwg_fetch::multipart::Form;
        ///
        /// let form = Form::new().text("title", "a report").text("year", "2024");
        /// let expected = format!("multipart/form-data; boundary={}", form.boundary());
        /// let request = client.post("https://example.com/upload").multipart(form).build()?;
        /// assert_eq!(request.headers().get("content-type")?.as_deref(), Some(expected.as_str()));
        ///
        /// // A `FormData` is sent with a fresh boundary.
        /// let mut form = FormData::new();
        /// form.append("title", "a report");
        /// let request = client.post("https://example.com/upload").multipart(form).build()?;
        /// let content_type = request.headers().get("content-type")?.unwrap_or_default();
        /// assert!(content_type.starts_with("multipart/form-data; boundary="));
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        multipart(form: impl Into<Form>);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let url = format!("http://{}/", listener.local_addr().unwrap());
        /// # // Accepts the connection and never answers.
        /// # std::thread::spawn(move || { let _kept = listener.accept(); std::thread::sleep(std::time::Duration::from_secs(60)) });
        /// use std::time::Duration;
        /// use whatwg_fetch::AbortController;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().build()?;
        /// let controller = AbortController::new();
        /// let request = client.get(&url).signal(controller.signal());
        /// // Another thread gives up on the request while it waits for the server.
        /// std::thread::spawn(move || {
        ///     std::thread::sleep(Duration::from_millis(100));
        ///     controller.abort(None);
        /// });
        /// let error = request.send().unwrap_err();
        /// assert!(error.is_abort());
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        signal(signal: AbortSignal);
        /// ```
        /// use whatwg_fetch::blocking::Client;
        /// use whatwg_fetch::{RequestMode, Url};
        ///
        /// let client = Client::builder().origin(Url::parse("https://app.example/")?).build()?;
        /// // A request that must not leave the page's origin: another one is a network error.
        /// let request = client.get("https://tracker.example/pixel").mode(RequestMode::SameOrigin);
        /// assert!(request.send().is_err());
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        mode(mode: RequestMode);
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
        /// use whatwg_fetch::RequestCredentials;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().cookie_store(true).build()?;
        /// client.get(&url).send()?;
        /// assert_eq!(client.get(&url).send()?.text()?, "session=42");
        /// // Without credentials, the stored cookie stays home.
        /// let anonymous = client.get(&url).credentials(RequestCredentials::Omit).send()?;
        /// assert_eq!(anonymous.text()?, "");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        credentials(credentials: RequestCredentials);
        /// ```
        /// # use std::sync::Arc;
        /// # use std::sync::atomic::{AtomicUsize, Ordering};
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let url = format!("http://{}/", listener.local_addr().unwrap());
        /// # let served = Arc::new(AtomicUsize::new(0));
        /// # let count = served.clone();
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Counts the requests it answers, each with a response fresh for a minute.
        /// #     for stream in listener.incoming() {
        /// #         let mut stream = stream.unwrap();
        /// #         let _ = stream.read(&mut [0; 4096]);
        /// #         count.fetch_add(1, Ordering::SeqCst);
        /// #         let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncache-control: max-age=60\r\n\
        /// #             connection: close\r\ncontent-length: 5\r\n\r\nfresh");
        /// #     }
        /// # });
        /// use whatwg_fetch::RequestCache;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().http_cache(true).build()?;
        /// assert_eq!(client.get(&url).send()?.text()?, "fresh");
        /// assert_eq!(client.get(&url).send()?.text()?, "fresh");
        /// assert_eq!(served.load(Ordering::SeqCst), 1);
        /// // `no-cache`: asks the server again, however fresh the stored response.
        /// client.get(&url).cache(RequestCache::NoCache).send()?;
        /// assert_eq!(served.load(Ordering::SeqCst), 2);
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        cache(cache: RequestCache);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let addr = listener.local_addr().unwrap();
        /// # let url = format!("http://{addr}/");
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Sends the client elsewhere.
        /// #     let (mut stream, _) = listener.accept().unwrap();
        /// #     let _ = stream.read(&mut [0; 4096]);
        /// #     let _ = stream.write_all(b"HTTP/1.1 302 Found\r\nlocation: /login\r\ncontent-length: 0\r\n\r\n");
        /// # });
        /// use whatwg_fetch::RequestRedirect;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().build()?;
        /// // An API that should never redirect: one is an error rather than a login page.
        /// let error = client.get(&url).redirect(RequestRedirect::Error).send().unwrap_err();
        /// assert!(error.is_redirect());
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        redirect(redirect: RequestRedirect);
        /// ```
        /// use whatwg_fetch::Url;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().origin(Url::parse("https://app.example/")?).build()?;
        /// // The page the request is made for, rather than the client's own.
        /// let request = client
        ///     .get("https://app.example/api/recommendations")
        ///     .referrer("https://app.example/cart")
        ///     .build()?;
        /// assert_eq!(request.referrer(), "https://app.example/cart");
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        referrer(referrer: impl Into<String>);
        /// ```
        /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
        /// use whatwg_fetch::ReferrerPolicy;
        ///
        /// // No `Referer` at all for this request.
        /// let request = client
        ///     .get("https://cdn.example/logo.png")
        ///     .referrer_policy(ReferrerPolicy::NoReferrer)
        ///     .build()?;
        /// assert_eq!(request.referrer_policy(), ReferrerPolicy::NoReferrer);
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        referrer_policy(policy: ReferrerPolicy);
        /// ```
        /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
        /// // The SHA-256 of "hello": the body must match it.
        /// let hash = "sha256-LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=";
        /// assert_eq!(client.get("data:,hello").integrity(hash).send()?.text()?, "hello");
        /// // Another body fails the fetch.
        /// assert!(client.get("data:,tampered").integrity(hash).send().is_err());
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        integrity(integrity: impl Into<String>);
        /// ```
        /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
        /// // A last report as the program ends; the spec allows such a body 64 KiB at most.
        /// let request = client
        ///     .post("https://telemetry.example/events")
        ///     .body(r#"{"event":"exit"}"#)
        ///     .keepalive(true)
        ///     .build()?;
        /// assert!(request.keepalive());
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        keepalive(keepalive: bool);
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
        /// use std::time::Duration;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().build()?;
        /// // The body waits up to 100 ms for the server's `100 Continue` (this one sends none).
        /// let echoed = client
        ///     .put(format!("{url}upload"))
        ///     .body("large body")
        ///     .expect_continue(Some(Duration::from_millis(100)))
        ///     .send()?
        ///     .text()?;
        /// assert!(echoed.contains("\r\nexpect: 100-continue\r\n"), "{echoed}");
        /// assert!(echoed.ends_with("\r\n\r\nlarge body"), "{echoed}");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        expect_continue(wait: Option<Duration>);
        /// ```
        /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
        /// use whatwg_fetch::RequestPriority;
        ///
        /// // A prefetch that may wait for the requests that matter.
        /// let request = client
        ///     .get("https://app.example/next-page")
        ///     .priority(RequestPriority::Low)
        ///     .build()?;
        /// assert_eq!(request.priority(), RequestPriority::Low);
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        priority(priority: RequestPriority);
        /// ```
        /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
        /// use whatwg_fetch::Version;
        ///
        /// // HTTP/1.1 for this request, whatever ALPN would pick.
        /// let request = client.get("https://example.com/").version(Version::HTTP_11).build()?;
        /// // HTTP/1.0 is not a version this client sends.
        /// assert!(client.get("https://example.com/").version(Version::HTTP_10).build().is_err());
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        version(version: http::Version);
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
        /// let client = Client::builder().build()?;
        /// // `addr`: a forward proxy on this machine, for this request alone.
        /// let head = client
        ///     .get("http://example.com/feed")
        ///     .proxy(Proxy::http(&format!("http://{addr}"))?)
        ///     .send()?
        ///     .text()?;
        /// assert!(head.starts_with("GET http://example.com/feed HTTP/1.1\r\n"), "{head}");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        proxy(proxy: crate::net::Proxy);
        /// ```
        /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        /// # let addr = listener.local_addr().unwrap();
        /// # let url = format!("http://{addr}/");
        /// # std::thread::spawn(move || {
        /// #     use std::io::{Read, Write};
        /// #     // Answers one request.
        /// #     let (mut stream, _) = listener.accept().unwrap();
        /// #     let _ = stream.read(&mut [0; 4096]);
        /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\ndirect");
        /// # });
        /// use whatwg_fetch::Proxy;
        /// use whatwg_fetch::blocking::Client;
        ///
        /// // Every request of this client goes through a proxy that is not there…
        /// let client = Client::builder().proxy(Proxy::all("http://127.0.0.1:9")?).build()?;
        /// // …but this one goes direct.
        /// assert_eq!(client.get(&url).no_proxy().send()?.text()?, "direct");
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
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().build()?;
        /// // `addr` is a server on 127.0.0.1; `api.example` has no address of its own.
        /// let url = format!("http://api.example:{}/", addr.port());
        /// assert_eq!(client.get(&url).resolve("api.example", addr).send()?.text()?, "ok");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        resolve(host: &str, addr: std::net::SocketAddr);
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
        /// # // A port nothing listens on any more.
        /// # let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
        /// use whatwg_fetch::blocking::Client;
        ///
        /// let client = Client::builder().build()?;
        /// // `closed` refuses the connection; the next address, `addr`, answers.
        /// let response = client
        ///     .get("http://api.example/")
        ///     .resolve_to_addrs("api.example", &[closed, addr])
        ///     .send()?;
        /// assert_eq!(response.text()?, "ok");
        /// # Ok::<(), whatwg_fetch::Error>(())
        /// ```
        resolve_to_addrs(host: &str, addrs: &[std::net::SocketAddr]);
    }

    /// The request as the spec's constructor makes it, as
    /// [`RequestBuilder::build`](crate::RequestBuilder::build) does, for
    /// [`Client::fetch_request`](super::Client::fetch_request).
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// // The request as it would be fetched, to look at or to fetch later.
    /// let request = client.post("https://api.example/items").body("first").build()?;
    /// assert_eq!(request.method(), "POST");
    /// assert_eq!(request.headers().get("content-type")?.as_deref(), Some("text/plain;charset=UTF-8"));
    /// // A header that is not valid is the builder's first error, returned here.
    /// assert!(client.get("https://api.example/").header("bad name", "x").build().is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
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
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers one request: created.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 201 Created\r\nlocation: /items/8\r\ncontent-length: 0\r\n\r\n");
    /// # });
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let response = client.post(format!("{url}items")).body("eighth").send()?;
    /// assert_eq!(response.status(), 201);
    /// assert_eq!(response.headers().get("location")?.as_deref(), Some("/items/8"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
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
    ///
    /// ```
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let builder = client.post("data:,sent").body("payload");
    /// // A copy to send again, as a retry would.
    /// let copy = builder.try_clone().ok_or("the body is a stream")?;
    /// assert_eq!(builder.send()?.text()?, "sent");
    /// assert_eq!(copy.send()?.text()?, "sent");
    /// // A builder given a `Request` has none.
    /// let request = client.get("data:,once").build()?;
    /// assert!(client.get(request).try_clone().is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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
