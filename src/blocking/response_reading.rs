//! [`Response`]: a fetched response whose body is read by blocking calls, from the blocking
//! client's thread.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Read, Write};
use std::net::SocketAddr;
use std::sync::Arc;

use bytes::Bytes;
use url::Url;

use super::body_pump::{BodyReader, from_io, into_io};
use super::runtime_thread::RuntimeThread;
use crate::blob::Blob;
use crate::cookie::SetCookie;
use crate::error::Result;
use crate::form_data::FormData;
use crate::headers::Headers;
use crate::peer::TlsInfo;
use crate::response::ResponseType;
use crate::timing::ResourceTiming;

/// A response of a blocking [`Client`](super::Client): its head, as the async
/// [`Response`](crate::Response) has it, and its body, still on the client's thread, read
/// whole ([`bytes`](Self::bytes), [`text`](Self::text), [`json`](Self::json)) or as it
/// arrives through [`Read`] (and [`copy_to`](Self::copy_to)).
///
/// The body is read once: after a read through [`Read`] has begun, the whole-body methods
/// fail with a `TypeError`, as a second read of a body does. It keeps the client's thread
/// running, so it can be read after the client is dropped; dropping it unread cancels the
/// body.
///
/// ```
/// use std::io::Read;
/// use whatwg_fetch::blocking::Client;
///
/// let client = Client::builder().build()?;
/// let mut response = client.get("data:text/plain,streamed%20text").send()?;
/// assert_eq!(response.headers().get("content-type")?.as_deref(), Some("text/plain"));
/// let mut first = [0; 8];
/// response.read_exact(&mut first)?;
/// assert_eq!(&first, b"streamed");
/// let mut rest = String::new();
/// response.read_to_string(&mut rest)?;
/// assert_eq!(rest, " text");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Response {
    /// The async response; its body is taken when a [`Read`] begins.
    inner: crate::Response,
    /// The body being read through [`Read`], once a read has begun.
    reader: Option<BodyReader>,
    /// The thread the body is read on, kept running while this lives.
    runtime: Arc<RuntimeThread>,
}

impl Response {
    /// `inner`, fetched on `runtime`.
    pub(super) fn new(inner: crate::Response, runtime: Arc<RuntimeThread>) -> Response {
        Response {
            inner,
            reader: None,
            runtime,
        }
    }

    /// The [`status`](https://fetch.spec.whatwg.org/#dom-response-status).
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers one request: not found.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 14\r\n\r\nno such report");
    /// # });
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let response = client.get(format!("{url}reports/2019")).send()?;
    /// assert_eq!(response.status(), 404);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn status(&self) -> u16 {
        self.inner.status()
    }

    /// The status as an [`http::StatusCode`], as
    /// [`Response::status_code`](crate::Response::status_code) gives it.
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers one request: not found.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 14\r\n\r\nno such report");
    /// # });
    /// use whatwg_fetch::StatusCode;
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let response = client.get(format!("{url}reports/2019")).send()?;
    /// assert_eq!(response.status_code(), Some(StatusCode::NOT_FOUND));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn status_code(&self) -> Option<http::StatusCode> {
        self.inner.status_code()
    }

    /// The [`statusText`](https://fetch.spec.whatwg.org/#dom-response-statustext).
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers one request: down.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 503 Down For Maintenance\r\ncontent-length: 0\r\n\r\n");
    /// # });
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let response = client.get(&url).send()?;
    /// // The reason phrase as the server wrote it.
    /// assert_eq!(response.status_text(), "Down For Maintenance");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn status_text(&self) -> &str {
        self.inner.status_text()
    }

    /// [`ok`](https://fetch.spec.whatwg.org/#dom-response-ok): whether the status is 200
    /// to 299.
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers one request: not found.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 14\r\n\r\nno such report");
    /// # });
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// assert!(client.get("data:,fine").send()?.ok());
    /// let response = client.get(format!("{url}reports/2019")).send()?;
    /// // A 404 is a response, not an error: `ok` tells it apart.
    /// assert!(!response.ok());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn ok(&self) -> bool {
        self.inner.ok()
    }

    /// The [`headers`](https://fetch.spec.whatwg.org/#dom-response-headers).
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers one request, with its rate limit.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nx-ratelimit-remaining: 41\r\ncontent-length: 0\r\n\r\n");
    /// # });
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let response = client.get(&url).send()?;
    /// assert_eq!(response.headers().get("x-ratelimit-remaining")?.as_deref(), Some("41"));
    /// // Names are case-insensitive.
    /// assert!(response.headers().has("X-RateLimit-Remaining")?);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn headers(&self) -> &Headers {
        self.inner.headers()
    }

    /// The [`url`](https://fetch.spec.whatwg.org/#dom-response-url): the last URL of the
    /// redirect chain, without its fragment.
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// // Without the fragment, which is never sent.
    /// let response = client.get("data:,hello#greeting").send()?;
    /// assert_eq!(response.url(), "data:,hello");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn url(&self) -> Cow<'_, str> {
        self.inner.url()
    }

    /// [`redirected`](https://fetch.spec.whatwg.org/#dom-response-redirected): whether a
    /// redirect was followed.
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Moved, then there.
    /// #     for answer in [
    /// #         "HTTP/1.1 301 Moved Permanently\r\nlocation: /v2/items\r\nconnection: close\r\ncontent-length: 0\r\n\r\n",
    /// #         "HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok",
    /// #     ] {
    /// #         let (mut stream, _) = listener.accept().unwrap();
    /// #         let _ = stream.read(&mut [0; 4096]);
    /// #         let _ = stream.write_all(answer.as_bytes());
    /// #     }
    /// # });
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let response = client.get(format!("{url}v1/items")).send()?;
    /// assert!(response.redirected());
    /// // The URL the response came from: time to update the one asked for.
    /// assert_eq!(response.url(), format!("{url}v2/items"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn redirected(&self) -> bool {
        self.inner.redirected()
    }

    /// The length of the body when it is known before it is read, as
    /// [`Response::content_length`](crate::Response::content_length) says.
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// let response = client.get("data:,hello").send()?;
    /// // Known before the body is read (from `Content-Length`, or here the URL itself).
    /// assert_eq!(response.content_length(), Some(5));
    /// assert_eq!(response.text()?, "hello");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn content_length(&self) -> Option<u64> {
        self.inner.content_length()
    }

    /// The fetch's timing, as [`Response::timing`](crate::Response::timing) gives it.
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers one request.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello");
    /// # });
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let response = client.get(&url).send()?;
    /// let timing = response.timing().ok_or("fetched over HTTP")?;
    /// assert_eq!(timing.next_hop_protocol, "http/1.1");
    /// assert!(timing.connect_end <= timing.request_start);
    /// assert!(timing.request_start <= timing.response_start);
    /// // A `data:` URL has none: nothing went over the network.
    /// assert!(client.get("data:,hello").send()?.timing().is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn timing(&self) -> Option<ResourceTiming> {
        self.inner.timing()
    }

    /// The HTTP version the response came over, as
    /// [`Response::version`](crate::Response::version) says.
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers one request, in HTTP/1.0.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nok");
    /// # });
    /// use whatwg_fetch::Version;
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// assert_eq!(client.get(&url).send()?.version(), Version::HTTP_10);
    /// // A response that did not come over the network says HTTP/1.1.
    /// assert_eq!(client.get("data:,hello").send()?.version(), Version::HTTP_11);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn version(&self) -> http::Version {
        self.inner.version()
    }

    /// The address of the peer the response came from (the server's, or a proxy's), as
    /// [`Response::remote_addr`](crate::Response::remote_addr) says; `None` for a response
    /// that did not come from the network.
    ///
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
    /// let response = client.get(&url).send()?;
    /// assert_eq!(response.remote_addr(), Some(addr));
    /// // Over plain `http:`, there is no TLS to tell of.
    /// assert!(response.tls_info().is_none());
    /// assert_eq!(client.get("data:,hello").send()?.remote_addr(), None);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn remote_addr(&self) -> Option<SocketAddr> {
        self.inner.remote_addr()
    }

    /// The TLS this `https:` response came over (version, cipher suite, the server's
    /// certificate chain), as [`Response::tls_info`](crate::Response::tls_info) says;
    /// `None` over plain `http:` and for a response that did not come from the network.
    ///
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
    /// use whatwg_fetch::TlsVersion;
    /// use whatwg_fetch::blocking::Client;
    ///
    /// // A test server's self-signed certificate (`cert`), on a developer's machine only.
    /// let client = Client::builder().danger_accept_invalid_certs(true).build()?;
    /// let response = client.get(format!("https://127.0.0.1:{port}/")).send()?;
    /// let tls = response.tls_info().ok_or("fetched over https")?;
    /// assert!(tls.version() >= TlsVersion::Tls12);
    /// assert_eq!(tls.peer_certificate(), Some(cert.as_ref()));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn tls_info(&self) -> Option<&TlsInfo> {
        self.inner.tls_info()
    }

    /// The [`type`](https://fetch.spec.whatwg.org/#dom-response-type), as
    /// [`Response::type`](crate::Response::type) says.
    ///
    /// ```
    /// use whatwg_fetch::ResponseType;
    /// use whatwg_fetch::blocking::Client;
    ///
    /// // A server-side client's responses are `basic`; a browser-like one's to another
    /// // origin are `cors` or `opaque`, as a page's are.
    /// let response = Client::new().get("data:,x").send()?;
    /// assert_eq!(response.r#type(), ResponseType::Basic);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn r#type(&self) -> ResponseType {
        self.inner.r#type()
    }

    /// The response's [URL list](https://fetch.spec.whatwg.org/#concept-response-url-list):
    /// the URL asked for, then each one a redirect went to.
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// let response = client.get("data:,hello").send()?;
    /// // One URL, as nothing redirected.
    /// assert_eq!(response.url_list().len(), 1);
    /// assert_eq!(response.url_list()[0].scheme(), "data");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn url_list(&self) -> &[Url] {
        self.inner.url_list()
    }

    /// The cookies the response sets (its `Set-Cookie` fields, parsed), as
    /// [`Response::cookies`](crate::Response::cookies) gives them: server-side only.
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Sets two cookies.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nset-cookie: sid=1; HttpOnly\r\n\
    /// #         set-cookie: lang=en; Max-Age=3600\r\ncontent-length: 0\r\n\r\n");
    /// # });
    /// use std::time::Duration;
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let response = Client::new().get(&url).send()?;
    /// let cookies: Vec<_> = response.cookies().collect();
    /// assert_eq!(cookies.len(), 2);
    /// assert_eq!((cookies[0].name(), cookies[0].value()), (Some("sid"), Some("1")));
    /// assert!(cookies[0].http_only());
    /// assert_eq!(cookies[1].max_age(), Some(Duration::from_secs(3600)));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn cookies(&self) -> impl Iterator<Item = SetCookie> + '_ {
        self.inner.cookies()
    }

    /// The headers, mutable, as [`Response::headers_mut`](crate::Response::headers_mut)
    /// gives them: a fetched response's guard is `immutable`, as in JavaScript.
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// let mut response = client.get("data:,x").send()?;
    /// assert!(response.headers_mut().set("cache-control", "no-store").is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn headers_mut(&mut self) -> &mut Headers {
        self.inner.headers_mut()
    }
    /// Caps the bytes the body may deliver, as
    /// [`Response::set_max_body_size`](crate::Response::set_max_body_size) does: before
    /// the body is read.
    ///
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
    /// use whatwg_fetch::NetworkError;
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let mut response = client.get(&url).send()?;
    /// // This one response may bring at most 1 KiB; its body has 2,000 bytes.
    /// response.set_max_body_size(Some(1024));
    /// let error = response.text().unwrap_err();
    /// assert!(matches!(error.network_error(), Some(NetworkError::BodyTooLarge { limit: 1024 })));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn set_max_body_size(&mut self, max: Option<u64>) {
        self.inner.set_max_body_size(max);
    }

    /// This response, or an [`ErrorKind::HttpStatus`](crate::ErrorKind::HttpStatus) error
    /// when its status is 400 to 599, as
    /// [`Response::error_for_status`](crate::Response::error_for_status) says; the body is
    /// dropped with it.
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers one request: not found.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 14\r\n\r\nno such report");
    /// # });
    /// use whatwg_fetch::StatusCode;
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// assert_eq!(client.get("data:,fine").send()?.error_for_status()?.text()?, "fine");
    /// // A 404 becomes an error, for `?` to pass on.
    /// let response = client.get(format!("{url}reports/2019")).send()?;
    /// let error = response.error_for_status().unwrap_err();
    /// assert!(error.is_status());
    /// assert_eq!(error.status(), Some(StatusCode::NOT_FOUND));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// The status error, for a status from 400 to 599.
    pub fn error_for_status(self) -> Result<Response> {
        self.inner.error_for_status_ref()?;
        Ok(self)
    }

    /// [`error_for_status`](Self::error_for_status) that keeps the response, for reading
    /// the body of an error response.
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // Answers one request: not found.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 404 Not Found\r\ncontent-length: 14\r\n\r\nno such report");
    /// # });
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let response = client.get(format!("{url}reports/2019")).send()?;
    /// assert!(response.error_for_status_ref().is_err());
    /// // The response is still there, and its body says why.
    /// assert_eq!(response.text()?, "no such report");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// The status error, for a status from 400 to 599.
    pub fn error_for_status_ref(&self) -> Result<&Response> {
        self.inner.error_for_status_ref()?;
        Ok(self)
    }

    /// [`bytes()`](https://fetch.spec.whatwg.org/#dom-body-bytes): the whole body, read on
    /// the client's thread, held to the client's
    /// [`max_buffered_body_size`](crate::ClientBuilder::max_buffered_body_size).
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// let response = client.get("data:application/octet-stream;base64,AAEC/w==").send()?;
    /// assert_eq!(response.bytes()?.as_ref(), [0x00, 0x01, 0x02, 0xff]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`Response::bytes`](crate::Response::bytes): the body's error, or a `TypeError`
    /// if a read through [`Read`] has begun.
    pub fn bytes(mut self) -> Result<Bytes> {
        let reading = self.inner.bytes();
        self.runtime.run(reading)?
    }

    /// [`text()`](https://fetch.spec.whatwg.org/#dom-body-text): the whole body, UTF-8
    /// decoded.
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// // Percent-encoded UTF-8, decoded.
    /// let response = client.get("data:text/plain;charset=utf-8,caf%C3%A9").send()?;
    /// assert_eq!(response.text()?, "café");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`bytes`](Self::bytes).
    pub fn text(mut self) -> Result<String> {
        let reading = self.inner.text();
        self.runtime.run(reading)?
    }

    /// [`json()`](https://fetch.spec.whatwg.org/#dom-body-json): the whole body parsed as
    /// JSON into `T`.
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// #[derive(serde::Deserialize)]
    /// struct Item {
    ///     id: u64,
    ///     tags: Vec<String>,
    /// }
    ///
    /// let response = client.get(r#"data:application/json,{"id":7,"tags":["a","b"]}"#).send()?;
    /// let item: Item = response.json()?;
    /// assert_eq!((item.id, item.tags.len()), (7, 2));
    /// // A body that is not JSON of that type is a `SyntaxError`.
    /// assert!(client.get("data:,not json").send()?.json::<Item>().is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`bytes`](Self::bytes), and a `SyntaxError` when the body is not JSON of type `T`.
    pub fn json<T: serde::de::DeserializeOwned + Send + 'static>(mut self) -> Result<T> {
        let reading = self.inner.json();
        self.runtime.run(reading)?
    }

    /// [`blob()`](https://fetch.spec.whatwg.org/#dom-body-blob): the whole body as a
    /// [`Blob`] typed with the MIME type of the headers.
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// let response = client.get("data:image/svg+xml,%3Csvg%2F%3E").send()?;
    /// let blob = response.blob()?;
    /// assert_eq!((blob.size(), blob.r#type()), (6, "image/svg+xml"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`bytes`](Self::bytes).
    pub fn blob(mut self) -> Result<Blob> {
        let reading = self.inner.blob();
        self.runtime.run(reading)?
    }

    /// [`formData()`](https://fetch.spec.whatwg.org/#dom-body-formdata): the whole body
    /// parsed by its `Content-Type`.
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// let response = client
    ///     .get("data:application/x-www-form-urlencoded,q=rust+http&page=2")
    ///     .send()?;
    /// let form = response.form_data()?;
    /// assert_eq!(form.get("q").and_then(|value| value.as_str()), Some("rust http"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`bytes`](Self::bytes), and a `TypeError` when the type is not a form type or
    /// the body does not parse.
    pub fn form_data(mut self) -> Result<FormData> {
        let reading = self.inner.form_data();
        self.runtime.run(reading)?
    }
    /// Writes the rest of the body to `writer` as it arrives, and returns how many bytes
    /// were written.
    ///
    /// # Errors
    /// The body's error, as [`Read`] gives it (the crate's [`Error`](crate::Error) itself), or a
    /// `TypeError` whose source is the writer's [`io::Error`].
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// let mut response = client.get("data:,copied").send()?;
    /// let mut out = Vec::new();
    /// assert_eq!(response.copy_to(&mut out)?, 6);
    /// assert_eq!(out, b"copied");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn copy_to<W: Write + ?Sized>(&mut self, writer: &mut W) -> Result<u64> {
        io::copy(self, writer).map_err(from_io)
    }

    /// The trailer fields the body ended with, as
    /// [`Response::trailers`](crate::Response::trailers) gives them: what is left of the
    /// body is read first, its data dropped (read it before, through [`Read`], to keep
    /// it). `None` when the body had none.
    ///
    /// ```
    /// # let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # std::thread::spawn(move || {
    /// #     use std::io::{Read, Write};
    /// #     // A chunked body, then a trailer field.
    /// #     let (mut stream, _) = listener.accept().unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]);
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\ntrailer: x-checksum\r\n\r\n\
    /// #         5\r\nhello\r\n0\r\nx-checksum: 5d41\r\n\r\n");
    /// # });
    /// use std::io::Read;
    /// use whatwg_fetch::blocking::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let mut response = client.get(&url).send()?;
    /// let mut body = String::new();
    /// response.read_to_string(&mut body)?;
    /// assert_eq!(body, "hello");
    /// let trailers = response.trailers()?.ok_or("the body ended with trailers")?;
    /// assert_eq!(trailers.get("x-checksum").map(|value| value.as_bytes()), Some(&b"5d41"[..]));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// The body's error, if reading what was left of it failed.
    pub fn trailers(&mut self) -> Result<Option<http::HeaderMap>> {
        if matches!(
            self.inner.r#type(),
            ResponseType::Opaque | ResponseType::OpaqueRedirect
        ) {
            return Ok(None);
        }
        io::copy(self, &mut io::sink()).map_err(from_io)?;
        Ok(self.inner.received_trailers())
    }

    /// [`bodyUsed`](https://fetch.spec.whatwg.org/#dom-body-bodyused): whether a read of
    /// the body (through [`Read`] too) has begun.
    ///
    /// ```
    /// use std::io::Read;
    ///
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// let mut response = client.get("data:,hello").send()?;
    /// assert!(!response.body_used());
    /// response.read_exact(&mut [0; 2])?;
    /// assert!(response.body_used());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn body_used(&self) -> bool {
        self.inner.body_used()
    }

    /// [`clone()`](https://fetch.spec.whatwg.org/#dom-response-clone): a copy whose body
    /// is a tee of this one's, as [`Response::try_clone`](crate::Response::try_clone)
    /// makes it.
    ///
    /// ```
    /// # let client = whatwg_fetch::blocking::Client::builder().build()?;
    /// let mut response = client.get("data:,twice").send()?;
    /// // Both read the same bytes: one to keep, one to use.
    /// let copy = response.try_clone()?;
    /// assert_eq!(response.text()?, "twice");
    /// assert_eq!(copy.text()?, "twice");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// A `TypeError` if the body has been used (a read through [`Read`] has begun).
    pub fn try_clone(&mut self) -> Result<Response> {
        let inner = self.inner.try_clone()?;
        Ok(Response::new(inner, self.runtime.clone()))
    }
    /// The reader of the body, started at the first read.
    fn reader(&mut self) -> Result<Option<&mut BodyReader>> {
        if self.reader.is_none() {
            let Some(body) = self.inner.body() else {
                // No body (a `HEAD`, a 204): read as empty.
                return Ok(None);
            };
            // The response's body is left disturbed, as a reader leaves it.
            let body = body.take_stream()?;
            self.reader = Some(BodyReader::start(&self.runtime, body)?);
        }
        Ok(self.reader.as_mut())
    }
}

/// The body, read as it arrives: a read waits for the next chunk only when the one in hand
/// is used up, and returns 0 at the body's end.
///
/// An error of the body (a network error, a timeout, the signal's reason, a limit) is an
/// [`io::Error`] whose [inner error](io::Error::get_ref) is the crate's [`Error`](crate::Error), of kind
/// [`TimedOut`](io::ErrorKind::TimedOut) for a timeout and
/// [`Other`](io::ErrorKind::Other) for the others; each read after it gives it again.
impl Read for Response {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        match self.reader() {
            Ok(Some(reader)) => reader.read(buf),
            Ok(None) => Ok(0),
            Err(error) => Err(into_io(error)),
        }
    }
}

impl Drop for Response {
    fn drop(&mut self) {
        // An unread body is dropped where it is polled, on the client's thread, and so
        // cancelled there; a reader's is dropped by its task once the reader is gone.
        if let Some(body) = self.inner.take_body() {
            if !body.is_disturbed() {
                let _ = self.runtime.spawn(async move { drop(body) });
            }
        }
    }
}

impl fmt::Debug for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Response")
            .field("inner", &self.inner)
            .field("reader", &self.reader)
            .finish()
    }
}
