//! [`Response`]: a fetched response whose body is read by blocking calls, from the blocking
//! client's thread.

use std::borrow::Cow;
use std::fmt;
use std::io::{self, Read, Write};
use std::sync::Arc;

use bytes::Bytes;

use super::body_pump::{BodyReader, from_io, into_io};
use super::runtime_thread::RuntimeThread;
use crate::error::Result;
use crate::headers::Headers;
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
