//! HTTP/1.1 client connections ([RFC 9112](https://httpwg.org/specs/rfc9112.html)), driven
//! by the task that sends the request and then by the response body that reads from it.
//!
//! There is no connection task and no channel: a request is written and its response
//! head read by the future of [`Http1::send`], and the body's bytes by
//! [`BodyReader::poll_data`], which borrows the connection the response body holds (the
//! body gives it back to the pool at its end). An idle connection is polled by nobody;
//! one the peer closed meanwhile is found by [`Http1::is_closed`], which reads it once
//! without waiting, when the pool hands it out or sweeps it.
//!
//! The rules are hyper's, which this replaces for HTTP/1.1 (`net/h2.rs` does as much for
//! HTTP/2):
//!
//! - **Request framing.** An empty body sends no framing header of its own; one buffer is
//!   sent with its `Content-Length`; a stream with the `Content-Length` the caller gave
//!   (which `RequestBody::with_declared_length` holds it to), else chunked. The transport
//!   refuses a caller's `Transfer-Encoding` before this.
//! - **Response heads** are parsed by httparse, after the bytes up to the first empty line
//!   have arrived, at most [`Options::max_head`] bytes and [`Options::max_headers`] fields;
//!   status codes 100 to 999; informational responses (1xx but 101) are skipped, at most
//!   32 of them before the final response. A head
//!   the server ends by closing the connection, without the empty line, is still a head,
//!   as browsers read it (old CGI scripts and embedded servers write such heads).
//! - **Response framing** (RFC 9112 §6.3): no body for `HEAD`, 204 and 304; a
//!   `Transfer-Encoding` whose last coding is `chunked` is chunked, any other is read to
//!   the close, and one in an HTTP/1.0 response is an error; else a `Content-Length` (every
//!   value, comma-separated, the same number, or the response is an error); else the body
//!   runs to the close. A response with both `Transfer-Encoding` and `Content-Length` is
//!   read chunked and its connection is closed after it, as RFC 9112 §6.3 asks.
//! - **Chunked bodies**: sizes in hexadecimal that fit 64 bits, at most 16 KiB of chunk
//!   extensions per body, CRLF line ends; trailer fields are read and dropped, at most
//!   [`Options::max_head`] bytes and [`Options::max_headers`] fields of them.
//! - **Persistence** (§9.3): an HTTP/1.1 response keeps its connection unless a
//!   `Connection` header says `close`; an HTTP/1.0 one only with `keep-alive`; a request
//!   with `Connection: close` or HTTP/1.0, a body read to the close, a request body not
//!   sent in full, or bytes past the end of the response close it.
//! - **Early responses.** While a request body is sent, the response is read too: a
//!   server may answer (a `413`, a `401`) before it has read the body, and a write that
//!   fails after the peer stopped reading does not hide the response it sent.

use std::error::Error as StdError;
use std::fmt;
use std::io;
use std::mem::MaybeUninit;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::{Buf, Bytes, BytesMut};
use http::header::{CONNECTION, CONTENT_LENGTH, HOST, PROXY_AUTHORIZATION, TRANSFER_ENCODING};
use http::uri::Authority;
use http::{HeaderMap, HeaderName, HeaderValue, Method, Request, StatusCode, Version};
use http_body::Body as _;
use sync_wrapper::SyncWrapper;
use tokio::io::{AsyncRead, AsyncWrite};

use super::protocol::{HeadRefused, ProtocolOptions};
use super::request_body::RequestBody;
use super::timer::ReadTimer;
use crate::error::NetworkError;

/// The byte stream of a connection: TCP, TLS, a Unix socket, a tunnel.
pub(crate) trait Io: AsyncRead + AsyncWrite + Send + Unpin {}

impl<T: AsyncRead + AsyncWrite + Send + Unpin> Io for T {}

/// The most informational (1xx) responses read before a request's final response: a peer
/// that sends them without end would keep the request reading until its read timeout.
/// (Servers send one `100 Continue` or a `103 Early Hints` or two.)
const MAX_INFORMATIONAL: u32 = 32;

/// The most bytes of chunk extensions read in one body, as hyper allows.
const MAX_CHUNK_EXTENSIONS: usize = 16 * 1024;

/// The least and most bytes one read asks for; a read that fills what it asked for
/// doubles the next, one that fills less than half halves it.
const MIN_READ: usize = 8 * 1024;
const MAX_READ: usize = 256 * 1024;

/// A buffered chunk of a request body up to this size is copied next to its framing and
/// written with it; a larger one is written from its own buffer.
const COPY_CHUNK: usize = 8 * 1024;

/// What every HTTP/1.1 connection of a transport is configured with.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Options {
    /// Header names in title case (`Content-Type`) rather than as `http` holds them.
    pub(crate) title_case_headers: bool,
    /// The most bytes of a response head (and of a chunked body's trailers).
    pub(crate) max_head: usize,
    /// The most fields in a response head (and in a chunked body's trailers).
    pub(crate) max_headers: usize,
}

impl Options {
    /// The HTTP/1.1 connections' settings of `options`.
    pub(crate) fn of(options: &ProtocolOptions) -> Options {
        Options {
            title_case_headers: options.http1_title_case_headers,
            max_head: usize::try_from(options.http1_max_header_size).unwrap_or(usize::MAX),
            max_headers: options.http1_max_headers,
        }
    }
}

/// What the requests on one HTTP/1.1 connection reuse, rather than make each anew.
#[derive(Default)]
pub(crate) struct Reused {
    /// The read timer, made by the first request that has a read timeout and set again
    /// by each later one and by their response bodies (see `net/timer.rs`).
    pub(crate) read_timer: Option<ReadTimer>,
    /// The `Host` header of the connection's origin, made by the first request that needs
    /// one, and the authority it was made from; later ones share its bytes.
    pub(crate) host: Option<(Authority, HeaderValue)>,
    /// Dropped with the connection: the pool's count of it (a guard of `net/pool.rs`,
    /// which stands above this room), which counts the connection closed then.
    pub(crate) pool_count: Option<Box<dyn Send + Sync>>,
}

/// An HTTP/1.1 connection: one request at a time, written and read by whoever holds it.
///
/// One allocation, moved as a pointer with the response body that holds it.
pub(crate) struct Http1(Box<Conn>);

struct Conn {
    /// `Sync` for the response body that holds the connection; only ever used through
    /// `&mut`.
    io: SyncWrapper<Box<dyn Io>>,
    /// Bytes read and not yet taken: the head being parsed, then the body's.
    read_buf: BytesMut,
    /// The next read's size (see [`MIN_READ`]).
    read_size: usize,
    /// Where the search for the end of the head being read goes on from.
    head_scanned: usize,
    /// Informational responses read for the current request.
    informational: u32,
    /// Whether a `100 Continue` came for the current request.
    continued: bool,
    /// The request head being written, and small pieces of its body.
    write_buf: Vec<u8>,
    write_pos: usize,
    options: Options,
    /// Set once the connection must not serve another request.
    closed: bool,
    /// When the first byte arrived since the last request was sent, if one has.
    response_started: Option<std::time::Instant>,
    reused: Reused,
    /// What is known of the other end, made with the connection; each response on it
    /// gets a clone.
    peer: Option<std::sync::Arc<crate::peer::Peer>>,
}

impl Http1 {
    /// A connection over `io` to `peer`.
    pub(crate) fn new(
        io: impl Io + 'static,
        options: Options,
        peer: Option<std::sync::Arc<crate::peer::Peer>>,
    ) -> Http1 {
        Http1(Box::new(Conn {
            io: SyncWrapper::new(Box::new(io)),
            read_buf: BytesMut::new(),
            read_size: MIN_READ,
            head_scanned: 0,
            informational: 0,
            continued: false,
            write_buf: Vec::new(),
            write_pos: 0,
            options,
            closed: false,
            response_started: None,
            reused: Reused::default(),
            peer,
        }))
    }

    /// What the connection's requests reuse.
    pub(crate) fn reused(&mut self) -> &mut Reused {
        &mut self.0.reused
    }

    /// Whether the connection can no longer serve a request. An idle one is read once,
    /// without waiting: the end of the stream, an error, or bytes nobody asked for (a
    /// server's `408` before it closes, say) mean it is closed.
    pub(crate) fn is_closed(&mut self) -> bool {
        let conn = &mut *self.0;
        if conn.closed {
            return true;
        }
        // Into a few bytes on the stack: any byte at all closes the connection, so none
        // is kept, and no room is made in the read buffer for nothing.
        let mut cx = Context::from_waker(std::task::Waker::noop());
        let mut probe = [0; 8];
        let mut probe = tokio::io::ReadBuf::new(&mut probe);
        match Pin::new(conn.io.get_mut()).poll_read(&mut cx, &mut probe) {
            Poll::Pending => false,
            Poll::Ready(_) => {
                conn.closed = true;
                true
            }
        }
    }

    /// What is known of the other end, for a response on the connection.
    pub(crate) fn peer(&self) -> Option<std::sync::Arc<crate::peer::Peer>> {
        self.0.peer.clone()
    }

    /// The connection as the caller's byte stream, after a `101 Switching Protocols`
    /// answered a request's `Upgrade`: the bytes read past the head come first.
    pub(crate) fn into_upgraded(self) -> crate::upgrade::Upgraded {
        let conn = *self.0;
        // Its pool count (`reused.pool_count`) goes with the rest: the connection is no
        // longer the pool's, and counts as closed there.
        crate::upgrade::Upgraded::new(conn.io.into_inner(), conn.read_buf.freeze())
    }

    /// Marks the connection as one that must not serve another request.
    pub(crate) fn close(&mut self) {
        self.0.closed = true;
    }

    /// Whether any byte arrived on the connection since the last request was sent: once
    /// one has, a failure of that request is a failure of its response, never retried.
    pub(crate) fn response_started(&self) -> bool {
        self.0.response_started.is_some()
    }

    /// When the first byte of the last request's response arrived: the spec's
    /// [final network-response start time](https://fetch.spec.whatwg.org/#fetch-timing-info-final-network-response-start-time),
    /// "immediately after the user agent's HTTP parser receives the first byte of the
    /// response" (of a final response, or of the informational one before it).
    pub(crate) fn response_start(&self) -> Option<std::time::Instant> {
        self.0.response_started
    }

    /// Sends `request` (an absolute URI, the body aside), with `body` and what `head`
    /// adds, and reads its response head, for at most `read_timeout` (on the connection's
    /// own timer, see `net/timer.rs`) from the time it is called.
    ///
    /// The head is written into the connection's buffer here, so that the future holds
    /// only what it needs to go on: the body, and where the exchange is. The request is
    /// left as it is, to be sent again if need be.
    ///
    /// With `expect_continue`, a request whose head says `Expect: 100-continue` (the
    /// transport adds it) sends its body only after a `100 Continue`, or after that wait
    /// without an answer (RFC 9110 §10.1.1); a final response before either ends the
    /// request without its body.
    pub(crate) fn send(
        &mut self,
        request: &Request<RequestBody>,
        body: RequestBody,
        head: &Head<'_>,
        read_timeout: Option<Duration>,
        expect_continue: Option<Duration>,
    ) -> Sending<'_> {
        let conn = &mut *self.0;
        conn.response_started = None;
        conn.informational = 0;
        conn.continued = false;
        conn.write_buf.clear();
        conn.write_pos = 0;
        let outgoing = encode_head(
            &mut conn.write_buf,
            request,
            body,
            head,
            conn.options.title_case_headers,
        );
        let outgoing = match expect_continue {
            Some(wait) => outgoing.map(|outgoing| outgoing.after_continue(wait)),
            None => outgoing,
        };
        let close = request.version() == Version::HTTP_10 || connection_close(request.headers());
        // Out of the connection while it waits, so that the exchange can borrow the rest.
        let mut timer = conn.reused.read_timer.take();
        let armed =
            read_timeout.is_some_and(|timeout| ReadTimer::set(&mut timer, timeout).is_some());
        Sending {
            conn,
            outgoing: Some(outgoing),
            method: Sent::of(request.method()),
            close,
            written: false,
            write_error: None,
            timer,
            armed,
        }
    }
}

/// The future of [`Http1::send`].
pub(crate) struct Sending<'c> {
    conn: &'c mut Conn,
    /// What is left to write after the head; taken once the exchange is over.
    outgoing: Option<Result<Outgoing, H1Error>>,
    method: Sent,
    /// Whether the request asked to close the connection after it.
    close: bool,
    /// Whether the whole request has been written and flushed.
    written: bool,
    /// The error that stopped writing the request; the response may still come.
    write_error: Option<io::Error>,
    /// The connection's read timer, while the exchange waits.
    timer: Option<ReadTimer>,
    armed: bool,
}

/// What a response's framing depends on in the request's method.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Sent {
    Head,
    Connect,
    Other,
}

impl Sent {
    pub(crate) fn of(method: &Method) -> Sent {
        if *method == Method::HEAD {
            Sent::Head
        } else if *method == Method::CONNECT {
            Sent::Connect
        } else {
            Sent::Other
        }
    }
}

impl Future for Sending<'_> {
    type Output = Result<(http::response::Parts, BodyReader), H1Error>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let this = &mut *self;
        if let Some(Err(_)) = &this.outgoing {
            // The request could not be framed: nothing was written.
            if let Some(Err(error)) = this.outgoing.take() {
                return Poll::Ready(Err(error));
            }
        }
        let Some(Ok(outgoing)) = this.outgoing.as_mut() else {
            return Poll::Ready(Err(H1Error::new(Kind::Closed, "polled after it ended")));
        };
        let polled = this.conn.poll_exchange(
            cx,
            outgoing,
            this.method,
            &mut this.written,
            &mut this.write_error,
        );
        let result = match polled {
            Poll::Pending => {
                let elapsed = this.armed
                    && this
                        .timer
                        .as_mut()
                        .is_some_and(|timer| timer.poll_elapsed(cx));
                if !elapsed {
                    return Poll::Pending;
                }
                this.conn.closed = true;
                Err(H1Error::new(Kind::Timeout, "read timeout"))
            }
            Poll::Ready(result) => result,
        };
        if !this.written && result.is_ok() {
            if let Some(Ok(outgoing)) = &this.outgoing {
                this.written = this.conn.end_held_back_body(cx, outgoing);
            }
        }
        this.outgoing = None;
        this.conn.reused.read_timer = this.timer.take();
        let (response, mut reader) = result?;
        if this.close || !this.written {
            // A request body not sent in full leaves the peer mid-message.
            reader.keep_alive = false;
        }
        if !reader.keep_alive && reader.kind_is_end() {
            this.conn.closed = true;
        }
        Poll::Ready(Ok((response, reader)))
    }
}

impl Drop for Sending<'_> {
    fn drop(&mut self) {
        if self.outgoing.is_some() {
            // Dropped mid-exchange: the connection is out of step.
            self.conn.closed = true;
        }
        if let Some(timer) = self.timer.take() {
            self.conn.reused.read_timer = Some(timer);
        }
    }
}

/// The steps of a pipelined connection (`net/pipeline.rs`), whose task writes the
/// requests one after another and reads their responses in the same order.
impl Http1 {
    /// Adds a whole request message ([`encode_message`]) to what is left to write.
    pub(crate) fn queue(&mut self, message: &[u8]) {
        let conn = &mut *self.0;
        if conn.write_pos == conn.write_buf.len() {
            conn.write_buf.clear();
            conn.write_pos = 0;
        }
        conn.write_buf.extend_from_slice(message);
    }

    /// Whether some of what was queued is not written yet.
    pub(crate) fn has_queued(&self) -> bool {
        self.0.write_pos < self.0.write_buf.len()
    }

    /// Writes what is queued, and flushes it.
    pub(crate) fn poll_write_queued(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), H1Error>> {
        let conn = &mut *self.0;
        while conn.write_pos < conn.write_buf.len() {
            let rest = conn.write_buf.get(conn.write_pos..).unwrap_or_default();
            conn.write_pos += ready!(poll_write(&mut conn.io, cx, rest))?;
        }
        conn.write_buf.clear();
        conn.write_pos = 0;
        ready!(Pin::new(conn.io.get_mut()).poll_flush(cx)).map_err(H1Error::io)?;
        Poll::Ready(Ok(()))
    }

    /// Starts reading the next response: the bytes already read past the last one are
    /// its first.
    pub(crate) fn start_response(&mut self) {
        let conn = &mut *self.0;
        conn.informational = 0;
        conn.head_scanned = 0;
        conn.response_started = (!conn.read_buf.is_empty()).then(std::time::Instant::now);
    }

    /// Reads the next final response head, as [`Http1::send`] does; `method` is its
    /// request's.
    pub(crate) fn poll_response_head(
        &mut self,
        cx: &mut Context<'_>,
        method: Sent,
    ) -> Poll<Result<(http::response::Parts, BodyReader), H1Error>> {
        self.0.poll_head(cx, method)
    }

    /// The bytes read and not yet taken.
    pub(crate) fn buffered(&self) -> usize {
        self.0.read_buf.len()
    }

    /// While no request is in flight: ready once the peer sent a byte or closed (or the
    /// connection failed), which closes the connection.
    pub(crate) fn poll_idle(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let conn = &mut *self.0;
        if conn.closed || !conn.read_buf.is_empty() {
            conn.closed = true;
            return Poll::Ready(());
        }
        let mut probe = [0; 8];
        let mut probe = tokio::io::ReadBuf::new(&mut probe);
        ready!(Pin::new(conn.io.get_mut()).poll_read(cx, &mut probe)).ok();
        conn.closed = true;
        Poll::Ready(())
    }
}

impl Outgoing {
    /// What goes out after the head of a request that waits for a `100 Continue`, for
    /// at most `wait`: a body, held back; nothing, as it is.
    #[cold]
    #[inline(never)]
    fn after_continue(self, wait: Duration) -> Outgoing {
        match self {
            body @ (Outgoing::Full(_) | Outgoing::Stream { .. }) => {
                Outgoing::AwaitContinue(Box::new((body, Box::pin(tokio::time::sleep(wait)))))
            }
            other => other,
        }
    }
}

/// The whole message of `request` with `head`, for a pipelined connection: its head,
/// then `body`, which must be empty or one buffer.
pub(crate) fn encode_message(
    request: &Request<RequestBody>,
    body: RequestBody,
    head: &Head<'_>,
    title_case: bool,
) -> Result<Vec<u8>, H1Error> {
    let mut message = Vec::new();
    match encode_head(&mut message, request, body, head, title_case)? {
        Outgoing::Done => {}
        Outgoing::Full(bytes) => message.extend_from_slice(&bytes),
        Outgoing::Stream { .. } | Outgoing::AwaitContinue(_) => {
            return Err(H1Error::new(
                Kind::Request,
                "a request body streamed is not pipelined",
            ));
        }
    }
    Ok(message)
}

/// What goes out after the head.
enum Outgoing {
    /// Nothing more, or nothing more after `pending`.
    Done,
    /// The body, once a `100 Continue` has come or the wait has passed (boxed: rare,
    /// and kept out of every request's state).
    AwaitContinue(Box<(Outgoing, Pin<Box<tokio::time::Sleep>>)>),
    /// One buffer, sent as it is.
    Full(Bytes),
    /// A stream, sent as it comes, chunked or not; a large piece of it waits in
    /// `pending` while it is written.
    Stream {
        body: RequestBody,
        chunked: bool,
        pending: Option<Bytes>,
    },
}

/// What HTTP/1.1 adds to a request's head (RFC 9112 §3.2): the form of its target, and
/// the fields the transport supplies.
pub(crate) struct Head<'a> {
    /// The request target: the URI's path and query (origin-form), or, to a forward
    /// proxy, `http://` and this authority (userinfo removed) before them (absolute-form).
    pub(crate) absolute: Option<&'a str>,
    /// `Host`, written first, unless the request has its own.
    pub(crate) host: Option<&'a HeaderValue>,
    /// A proxy's `Proxy-Authorization`, unless the request or `proxy_headers` has one.
    pub(crate) proxy_authorization: Option<&'a HeaderValue>,
    /// A forward proxy's own headers ([`Proxy::headers`](super::Proxy::headers)): a
    /// `Proxy-*` one replaces the request's of its name, any other is sent unless the
    /// request has its name.
    pub(crate) proxy_headers: Option<&'a HeaderMap>,
}

/// Writes the request line and header fields of `request` and `head` into `buf` and
/// says how the body follows: an empty body sends no framing header; a buffered one is
/// copied after the head when small, with its `Content-Length` unless the caller gave
/// one; a stream goes with the caller's `Content-Length`, else chunked.
// Inlined into its two callers (`Http1::send`, `encode_message` for pipelines): a call
// out of line per request on the one-at-a-time path otherwise.
#[inline(always)]
fn encode_head(
    buf: &mut Vec<u8>,
    request: &Request<RequestBody>,
    body: RequestBody,
    head: &Head<'_>,
    title_case: bool,
) -> Result<Outgoing, H1Error> {
    let headers = request.headers();
    buf.reserve(64 + headers.len() * 32);
    buf.extend_from_slice(request.method().as_str().as_bytes());
    buf.push(b' ');
    if let Some(authority) = head.absolute {
        buf.extend_from_slice(b"http://");
        buf.extend_from_slice(authority.as_bytes());
    }
    match request.uri().path_and_query() {
        Some(target) if !target.as_str().is_empty() => {
            buf.extend_from_slice(target.as_str().as_bytes())
        }
        _ => buf.push(b'/'),
    }
    buf.extend_from_slice(match request.version() {
        Version::HTTP_10 => b" HTTP/1.0\r\n",
        _ => b" HTTP/1.1\r\n",
    });
    if let Some(host) = head.host {
        write_field(buf, &HOST, host, title_case);
    }
    // The fields whose values a `HeaderValue` cannot hold, as they are: `RawFields` has
    // refused NUL, CR and LF, and the transport any name the message is framed by.
    let raw = request
        .extensions()
        .get::<super::RawFields>()
        .filter(|raw| !raw.is_empty());
    match head.proxy_headers.filter(|own| !own.is_empty()) {
        None => {
            for (name, value) in headers {
                write_field(buf, name, value, title_case);
            }
            for (name, value) in raw.iter().flat_map(|raw| raw.iter()) {
                write_raw_field(buf, name, value, title_case);
            }
        }
        Some(own) => {
            // The proxy's `Proxy-*` fields win; the request's win for any other name.
            for (name, value) in headers {
                if !(is_proxy_field(name) && own.contains_key(name)) {
                    write_field(buf, name, value, title_case);
                }
            }
            for (name, value) in raw.iter().flat_map(|raw| raw.iter()) {
                if !(is_proxy_field(name) && own.contains_key(name)) {
                    write_raw_field(buf, name, value, title_case);
                }
            }
            let requests = |name: &HeaderName| {
                headers.contains_key(name) || raw.is_some_and(|raw| raw.contains(name))
            };
            for (name, value) in own {
                if is_proxy_field(name) || !requests(name) {
                    write_field(buf, name, value, title_case);
                }
            }
        }
    }
    if let Some(authorization) = head.proxy_authorization {
        let given =
            |map: Option<&HeaderMap>| map.is_some_and(|map| map.contains_key(PROXY_AUTHORIZATION));
        let raw_given = raw.is_some_and(|raw| raw.contains(&PROXY_AUTHORIZATION));
        if !given(Some(headers)) && !given(head.proxy_headers) && !raw_given {
            write_field(buf, &PROXY_AUTHORIZATION, authorization, title_case);
        }
    }
    let has_length = headers.contains_key(CONTENT_LENGTH);
    let outgoing = match body.into_full() {
        Ok(bytes) => {
            if !has_length {
                write_name(buf, &CONTENT_LENGTH, title_case);
                buf.extend_from_slice(b": ");
                buf.extend_from_slice(itoa(bytes.len() as u64, &mut [0; 20]));
                buf.extend_from_slice(b"\r\n");
            }
            Outgoing::Full(bytes)
        }
        Err(body) if body.is_end_stream() => Outgoing::Done,
        Err(body) if has_length => Outgoing::Stream {
            body,
            chunked: false,
            pending: None,
        },
        Err(_) if request.version() == Version::HTTP_10 => {
            return Err(H1Error::new(
                Kind::Request,
                "a request body of unknown length cannot be sent over HTTP/1.0 without a \
                 Content-Length",
            ));
        }
        Err(body) => {
            write_name(buf, &TRANSFER_ENCODING, title_case);
            buf.extend_from_slice(b": chunked\r\n");
            Outgoing::Stream {
                body,
                chunked: true,
                pending: None,
            }
        }
    };
    buf.extend_from_slice(b"\r\n");
    if let Outgoing::Full(bytes) = &outgoing {
        if bytes.len() <= COPY_CHUNK {
            buf.extend_from_slice(bytes);
            return Ok(Outgoing::Done);
        }
    }
    Ok(outgoing)
}

/// Whether `name` is one of the `Proxy-*` fields, which are for the proxy a request goes
/// through (`Proxy-Authorization`, `Proxy-Connection`, ...).
fn is_proxy_field(name: &HeaderName) -> bool {
    name.as_str().starts_with("proxy-")
}

/// Writes one header field.
pub(crate) fn write_field(
    buf: &mut Vec<u8>,
    name: &HeaderName,
    value: &HeaderValue,
    title_case: bool,
) {
    write_name(buf, name, title_case);
    buf.extend_from_slice(b": ");
    buf.extend_from_slice(value.as_bytes());
    buf.extend_from_slice(b"\r\n");
}

/// Writes one header field of [`RawFields`](super::RawFields), whose value holds no NUL,
/// CR or LF.
fn write_raw_field(buf: &mut Vec<u8>, name: &HeaderName, value: &[u8], title_case: bool) {
    write_name(buf, name, title_case);
    buf.extend_from_slice(b": ");
    buf.extend_from_slice(value);
    buf.extend_from_slice(b"\r\n");
}

/// Writes a header name, in title case if asked (`content-type` → `Content-Type`).
fn write_name(buf: &mut Vec<u8>, name: &HeaderName, title_case: bool) {
    if !title_case {
        buf.extend_from_slice(name.as_str().as_bytes());
        return;
    }
    let mut upper = true;
    for &byte in name.as_str().as_bytes() {
        buf.push(if upper {
            byte.to_ascii_uppercase()
        } else {
            byte
        });
        upper = byte == b'-';
    }
}

/// `n` in decimal, in `room`.
fn itoa(mut n: u64, room: &mut [u8; 20]) -> &[u8] {
    let mut at = room.len();
    loop {
        at -= 1;
        room[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    &room[at..]
}

/// Whether a `Connection` header asks to close.
fn connection_close(headers: &HeaderMap) -> bool {
    headers.get_all(CONNECTION).iter().any(|value| {
        value
            .as_bytes()
            .split(|&b| b == b',')
            .any(|token| token.trim_ascii().eq_ignore_ascii_case(b"close"))
    })
}

/// Whether a `Connection` value asks to keep the connection alive.
fn connection_keep_alive(value: &HeaderValue) -> bool {
    value
        .as_bytes()
        .split(|&b| b == b',')
        .any(|token| token.trim_ascii().eq_ignore_ascii_case(b"keep-alive"))
}

impl Conn {
    /// Writes what is left of the request and reads the response head, whichever can go
    /// on, until the head has arrived.
    fn poll_exchange(
        &mut self,
        cx: &mut Context<'_>,
        outgoing: &mut Outgoing,
        method: Sent,
        written: &mut bool,
        write_error: &mut Option<io::Error>,
    ) -> Poll<Result<(http::response::Parts, BodyReader), H1Error>> {
        let awaiting_continue = matches!(outgoing, Outgoing::AwaitContinue(_)) && !self.continued;
        if !*written && write_error.is_none() {
            match self.poll_write_request(cx, outgoing) {
                Poll::Ready(Ok(())) => *written = true,
                Poll::Ready(Err(error)) if error.kind == Kind::Request => {
                    // The caller's body failed: the request is not sent.
                    self.closed = true;
                    return Poll::Ready(Err(error));
                }
                Poll::Ready(Err(error)) => {
                    *write_error = Some(error.into_io());
                }
                Poll::Pending => {}
            }
        }
        match self.poll_head(cx, method) {
            Poll::Ready(Ok(head)) => Poll::Ready(Ok(head)),
            Poll::Ready(Err(error)) => {
                self.closed = true;
                // The peer closed without a response after the write failed: the write's
                // error says more (a reset, a broken pipe).
                match (error.kind, write_error.take()) {
                    (Kind::Closed, Some(write)) => Poll::Ready(Err(H1Error::io(write))),
                    _ => Poll::Ready(Err(error)),
                }
            }
            Poll::Pending => {
                if awaiting_continue && self.continued {
                    // A `100 Continue` just came: polled again at once, out with the body.
                    cx.waker().wake_by_ref();
                }
                Poll::Pending
            }
        }
    }

    /// Writes the request: the buffered head (with a small body), then the body.
    fn poll_write_request(
        &mut self,
        cx: &mut Context<'_>,
        outgoing: &mut Outgoing,
    ) -> Poll<Result<(), H1Error>> {
        loop {
            // What is buffered: the head, a chunk's framing, small pieces of the body.
            while self.write_pos < self.write_buf.len() {
                let rest = self.write_buf.get(self.write_pos..).unwrap_or_default();
                self.write_pos += ready!(poll_write(&mut self.io, cx, rest))?;
            }
            match outgoing {
                Outgoing::Done => {
                    ready!(Pin::new(self.io.get_mut()).poll_flush(cx)).map_err(H1Error::io)?;
                    return Poll::Ready(Ok(()));
                }
                Outgoing::AwaitContinue(waiting) => {
                    ready!(Pin::new(self.io.get_mut()).poll_flush(cx)).map_err(H1Error::io)?;
                    if !self.continued && waiting.1.as_mut().poll(cx).is_pending() {
                        return Poll::Pending;
                    }
                    // RFC 9110 §10.1.1: a client that does not see a 100 in time may send
                    // the content anyway.
                    if let Outgoing::AwaitContinue(waiting) =
                        std::mem::replace(outgoing, Outgoing::Done)
                    {
                        *outgoing = waiting.0;
                    }
                }
                Outgoing::Full(bytes) => {
                    while bytes.has_remaining() {
                        let n = ready!(poll_write(&mut self.io, cx, bytes))?;
                        bytes.advance(n);
                    }
                    *outgoing = Outgoing::Done;
                }
                Outgoing::Stream {
                    body,
                    chunked,
                    pending,
                } => {
                    if let Some(data) = pending {
                        // A large piece, from its own buffer; then its chunk's line end.
                        while data.has_remaining() {
                            let n = ready!(poll_write(&mut self.io, cx, data))?;
                            data.advance(n);
                        }
                        *pending = None;
                        self.write_buf.clear();
                        self.write_pos = 0;
                        if *chunked {
                            self.write_buf.extend_from_slice(b"\r\n");
                        }
                        continue;
                    }
                    let frame = match Pin::new(&mut *body).poll_frame(cx) {
                        Poll::Ready(frame) => frame,
                        Poll::Pending => {
                            // What was written may sit in a TLS layer's buffer: out with
                            // it before waiting for the body.
                            ready!(Pin::new(self.io.get_mut()).poll_flush(cx))
                                .map_err(H1Error::io)?;
                            return Poll::Pending;
                        }
                    };
                    self.write_buf.clear();
                    self.write_pos = 0;
                    match frame {
                        Some(Ok(frame)) => {
                            // Trailers are not sent.
                            let Ok(data) = frame.into_data() else {
                                continue;
                            };
                            if data.is_empty() {
                                continue;
                            }
                            if *chunked {
                                let size = format!("{:X}\r\n", data.len());
                                self.write_buf.extend_from_slice(size.as_bytes());
                            }
                            if data.len() > COPY_CHUNK {
                                *pending = Some(data);
                                continue;
                            }
                            self.write_buf.extend_from_slice(&data);
                            if *chunked {
                                self.write_buf.extend_from_slice(b"\r\n");
                            }
                        }
                        Some(Err(error)) => {
                            return Poll::Ready(Err(H1Error {
                                kind: Kind::Request,
                                message: "the request body's stream failed",
                                source: Some(error),
                            }));
                        }
                        None => {
                            if *chunked {
                                self.write_buf.extend_from_slice(b"0\r\n\r\n");
                            }
                            *outgoing = Outgoing::Done;
                        }
                    }
                }
            }
        }
    }

    /// A final response came to a request whose body waits for a `100 Continue`: a
    /// chunked body not yet begun ends here, empty (its last chunk, RFC 9112 §7.1), so
    /// that the message is whole and the connection may serve the next request, as RFC
    /// 9110 §10.1.1 lets a client that "will not send the content". Whether it was
    /// written whole; a body of a declared length cannot end early, and its connection
    /// closes.
    #[cold]
    #[inline(never)]
    fn end_held_back_body(&mut self, cx: &mut Context<'_>, outgoing: &Outgoing) -> bool {
        let Outgoing::AwaitContinue(waiting) = outgoing else {
            return false;
        };
        let chunked_not_begun = matches!(
            waiting.0,
            Outgoing::Stream {
                chunked: true,
                pending: None,
                ..
            }
        );
        if !chunked_not_begun || self.write_pos < self.write_buf.len() {
            return false;
        }
        const LAST_CHUNK: &[u8] = b"0\r\n\r\n";
        // Once, without waiting: the few bytes go at once on a connection that took the
        // head, and if they do not, the connection closes as it would have.
        matches!(
            poll_write(&mut self.io, cx, LAST_CHUNK),
            Poll::Ready(Ok(n)) if n == LAST_CHUNK.len()
        ) && matches!(
            Pin::new(self.io.get_mut()).poll_flush(cx),
            Poll::Ready(Ok(()))
        )
    }

    /// Reads once into `read_buf`: the count of new bytes, 0 at the end of the stream.
    fn poll_fill(&mut self, cx: &mut Context<'_>) -> Poll<io::Result<usize>> {
        let want = self.read_size;
        if self.read_buf.capacity() - self.read_buf.len() < want / 2 {
            self.read_buf.reserve(want);
        }
        let room = self.read_buf.capacity() - self.read_buf.len();
        let n = ready!(tokio_util::io::poll_read_buf(
            Pin::new(self.io.get_mut()),
            cx,
            &mut self.read_buf
        ))?;
        if n >= room && self.read_size < MAX_READ {
            self.read_size *= 2;
        } else if n < room / 2 && self.read_size > MIN_READ {
            self.read_size /= 2;
        }
        Poll::Ready(Ok(n))
    }

    /// Reads until a final response head has arrived, and parses it. (Inlined into its
    /// two callers, the one-at-a-time exchange and a pipeline's task, as it was into the
    /// first alone.)
    #[inline(always)]
    fn poll_head(
        &mut self,
        cx: &mut Context<'_>,
        method: Sent,
    ) -> Poll<Result<(http::response::Parts, BodyReader), H1Error>> {
        loop {
            // Empty lines before a status line are skipped (RFC 9112 §2.2).
            while let Some(skip) = match self.read_buf.first() {
                Some(b'\n') => Some(1),
                Some(b'\r') if self.read_buf.get(1) == Some(&b'\n') => Some(2),
                _ => None,
            } {
                self.read_buf.advance(skip);
                self.head_scanned = 0;
            }
            if let Some(end) = head_end(&self.read_buf, self.head_scanned) {
                self.head_scanned = 0;
                if end > self.options.max_head {
                    return Poll::Ready(Err(H1Error::new(Kind::HeadTooLarge, "head too large")));
                }
                let head = self.read_buf.split_to(end).freeze();
                // httparse has checked the status line: `HTTP/1.x 100 ...`.
                let hundred = head.get(9..12) == Some(b"100");
                match parse_head(head, &self.options, method)? {
                    Some(parsed) => return Poll::Ready(Ok(parsed)),
                    // An informational response: the next head follows.
                    None => {
                        self.continued |= hundred;
                        self.informational += 1;
                        if self.informational > MAX_INFORMATIONAL {
                            return Poll::Ready(Err(H1Error::new(
                                Kind::Parse,
                                "more than 32 informational (1xx) responses to one request",
                            )));
                        }
                        continue;
                    }
                }
            }
            self.head_scanned = self.read_buf.len().saturating_sub(2);
            if self.read_buf.len() >= self.options.max_head {
                return Poll::Ready(Err(H1Error::new(Kind::HeadTooLarge, "head too large")));
            }
            let n = ready!(self.poll_fill(cx)).map_err(H1Error::io)?;
            if n > 0 {
                if self.response_started.is_none() {
                    self.response_started = Some(std::time::Instant::now());
                }
                continue;
            }
            // The end of the stream.
            self.closed = true;
            if self.read_buf.is_empty() {
                return Poll::Ready(Err(H1Error::new(
                    Kind::Closed,
                    "connection closed before the response",
                )));
            }
            // A head the close ends: finish its line and the head (see the module
            // documentation), once.
            let ending: &[u8] = match self.read_buf.as_ref() {
                [.., b'\r', b'\n'] => b"\r\n",
                [.., b'\n'] => b"\n",
                [.., b'\r'] => b"\n\r\n",
                _ => b"\r\n\r\n",
            };
            self.read_buf.extend_from_slice(ending);
            let Some(end) = head_end(&self.read_buf, 0) else {
                return Poll::Ready(Err(H1Error::new(
                    Kind::Closed,
                    "connection closed before the response head ended",
                )));
            };
            let head = self.read_buf.split_to(end).freeze();
            return match parse_head(head, &self.options, method)? {
                Some(parsed) => Poll::Ready(Ok(parsed)),
                None => Poll::Ready(Err(H1Error::new(
                    Kind::Closed,
                    "connection closed after an informational response",
                ))),
            };
        }
    }
}

/// Writes some of `bytes` to `io`: how many went out, never 0.
fn poll_write(
    io: &mut SyncWrapper<Box<dyn Io>>,
    cx: &mut Context<'_>,
    bytes: &[u8],
) -> Poll<Result<usize, H1Error>> {
    let n = ready!(Pin::new(io.get_mut()).poll_write(cx, bytes)).map_err(H1Error::io)?;
    if n == 0 {
        return Poll::Ready(Err(H1Error::io(io::ErrorKind::WriteZero.into())));
    }
    Poll::Ready(Ok(n))
}

/// Where the first empty line in `buf` ends (`\r\n\r\n`, `\n\n` or `\n\r\n`), looking from
/// `from` on.
fn head_end(buf: &[u8], from: usize) -> Option<usize> {
    let from = from.min(buf.len());
    memchr::memchr_iter(b'\n', buf.get(from..)?).find_map(|i| {
        let i = from + i;
        let before = |back: usize| i.checked_sub(back).and_then(|j| buf.get(j)).copied();
        match (before(2), before(1)) {
            (_, Some(b'\n')) | (Some(b'\n'), Some(b'\r')) => Some(i + 1),
            _ => None,
        }
    })
}

/// Parses a whole response `head`; `None` for an informational (1xx) response, which is
/// skipped.
///
/// A field value may hold any byte but NUL, CR and LF, as browsers read it: httparse and
/// `HeaderValue` refuse the other control bytes (0x01–0x08, 0x0B, 0x0C, 0x0E–0x1F, 0x7F),
/// so a head httparse refuses for a value is read again from a copy with those bytes of
/// its field lines masked, and the fields holding them go to the response's
/// [`RawFields`](super::RawFields). A head without them, nearly every one, is read once.
fn parse_head(
    head: Bytes,
    options: &Options,
    method: Sent,
) -> Result<Option<(http::response::Parts, BodyReader)>, H1Error> {
    // As many fields as most heads have, on the stack; a head with more is parsed again
    // with room for the limit, on the heap.
    let room = options.max_headers.min(STACK_FIELDS);
    match parse_head_from(&head, &head, method, room)? {
        Parsed::Head(parsed) => Ok(parsed),
        refused => parse_head_again(head, options, method, room, refused),
    }
}

/// [`parse_head`] after httparse refused `head` as `refused` says: with the control bytes
/// of its values masked, or with room for more fields, or both.
#[cold]
#[inline(never)]
fn parse_head_again(
    head: Bytes,
    options: &Options,
    method: Sent,
    mut room: usize,
    mut refused: Parsed,
) -> Result<Option<(http::response::Parts, BodyReader)>, H1Error> {
    let mut masked: Option<Vec<u8>> = None;
    loop {
        match refused {
            Parsed::Head(parsed) => return Ok(parsed),
            Parsed::ValueRefused(_) if masked.is_none() => {
                masked = Some(mask_raw_only_bytes(&head));
            }
            Parsed::ValueRefused(error) => {
                return Err(H1Error {
                    kind: Kind::Parse,
                    message: "malformed response head",
                    source: Some(Box::new(error)),
                });
            }
            Parsed::TooManyFields if room < options.max_headers => room = options.max_headers,
            Parsed::TooManyFields => {
                return Err(H1Error::new(Kind::HeadTooLarge, "too many header fields"));
            }
        }
        let read = masked.as_deref().unwrap_or(&head);
        refused = parse_head_from(read, &head, method, room)?;
    }
}

/// How many header fields [`parse_head`] parses on the stack.
const STACK_FIELDS: usize = 100;

/// What [`parse_head_from`] made of a head.
enum Parsed {
    /// The head, or `None` for an informational response.
    Head(Option<(http::response::Parts, BodyReader)>),
    /// httparse refused a field value's byte.
    ValueRefused(httparse::Error),
    /// The head has more fields than there was room for.
    TooManyFields,
}

/// A copy of `head` whose field lines (after the status line) have each byte a Fetch
/// header value may hold and httparse refuses replaced by `!`, which it takes, so that
/// httparse finds the same fields at the same offsets.
fn mask_raw_only_bytes(head: &[u8]) -> Vec<u8> {
    let mut masked = head.to_vec();
    let fields = masked
        .iter()
        .position(|&byte| byte == b'\n')
        .unwrap_or(masked.len());
    for byte in masked.iter_mut().skip(fields) {
        if super::fields::is_raw_only(*byte) {
            *byte = b'!';
        }
    }
    masked
}

/// Parses the response head `read`, which is `head` or [a masked copy of
/// it](mask_raw_only_bytes), with room for `room` fields: the fields' names and values are
/// taken from `head`, at the offsets httparse finds them in `read`.
fn parse_head_from(
    read: &[u8],
    head: &Bytes,
    method: Sent,
    room: usize,
) -> Result<Parsed, H1Error> {
    let mut on_stack = [const { MaybeUninit::<httparse::Header<'_>>::uninit() }; STACK_FIELDS];
    let mut on_heap = Vec::new();
    let fields: &mut [MaybeUninit<httparse::Header<'_>>] = if room <= STACK_FIELDS {
        on_stack.get_mut(..room).unwrap_or_default()
    } else {
        on_heap.resize_with(room, MaybeUninit::uninit);
        &mut on_heap
    };
    let mut response = httparse::Response::new(&mut []);
    match httparse::ParserConfig::default().parse_response_with_uninit_headers(
        &mut response,
        read,
        fields,
    ) {
        Ok(httparse::Status::Complete(len)) if len == read.len() => {}
        Ok(_) => {
            return Err(H1Error::new(Kind::Parse, "malformed response head"));
        }
        Err(httparse::Error::TooManyHeaders) => return Ok(Parsed::TooManyFields),
        Err(error @ httparse::Error::HeaderValue) => return Ok(Parsed::ValueRefused(error)),
        Err(error) => {
            return Err(H1Error {
                kind: Kind::Parse,
                message: "malformed response head",
                source: Some(Box::new(error)),
            });
        }
    }
    let code = response.code.unwrap_or_default();
    let status =
        StatusCode::from_u16(code).map_err(|_| H1Error::new(Kind::Parse, "invalid status code"))?;
    if status.is_informational() && code != 101 {
        return Ok(Parsed::Head(None));
    }
    let version = match response.version {
        Some(1) => Version::HTTP_11,
        _ => Version::HTTP_10,
    };
    let mut keep_alive = version == Version::HTTP_11;
    let mut saw_close = false;
    let mut headers = HeaderMap::with_capacity(response.headers.len());
    // Where `read` is `head`, each slice of it is one of `head`; otherwise the bytes of
    // `head` at the same offsets. Names are only read, so they are borrowed; values are
    // kept, so they share `head`.
    let same = std::ptr::eq(read, head.as_ref());
    let at = |part: &[u8]| {
        let from = (part.as_ptr() as usize).wrapping_sub(read.as_ptr() as usize);
        from.min(head.len())..from.saturating_add(part.len()).min(head.len())
    };
    fn name_in<'a>(head: &'a [u8], read: &[u8], same: bool, part: &'a str) -> &'a [u8] {
        if same {
            return part.as_bytes();
        }
        let from = (part.as_ptr() as usize).wrapping_sub(read.as_ptr() as usize);
        head.get(from..from.saturating_add(part.len()))
            .unwrap_or_default()
    }
    let original_name = |part| name_in(head, read, same, part);
    let original = |part: &[u8]| match same {
        true => head.slice_ref(part),
        false => head.slice(at(part)),
    };
    // The names with a value holding a masked byte: every field of theirs goes to the raw
    // fields, so that the fields of a name keep their order among themselves.
    let mut raw_names: Option<Vec<HeaderName>> = None;
    if !same {
        for field in response.headers.iter() {
            if original(field.value)
                .iter()
                .any(|&byte| super::fields::is_raw_only(byte))
            {
                let name = HeaderName::from_bytes(original_name(field.name))
                    .map_err(|_| H1Error::new(Kind::Parse, "invalid header name"))?;
                if super::fields::frames_the_message(&name) {
                    return Err(H1Error::new(
                        Kind::Parse,
                        "a control byte in a header field the response is framed by",
                    ));
                }
                let names = raw_names.get_or_insert_default();
                if !names.contains(&name) {
                    names.push(name);
                }
            }
        }
    }
    let mut raw: Option<super::RawFields> = None;
    for field in response.headers.iter() {
        let name = HeaderName::from_bytes(original_name(field.name))
            .map_err(|_| H1Error::new(Kind::Parse, "invalid header name"))?;
        let value = original(field.value);
        if raw_names
            .as_ref()
            .is_some_and(|names| names.contains(&name))
        {
            raw.get_or_insert_default()
                .push(name, value)
                .map_err(|_| H1Error::new(Kind::Parse, "invalid header value"))?;
            continue;
        }
        // SAFETY: httparse has checked the value: tab, visible ASCII, space and bytes from
        // 0x80 up, which is what a `HeaderValue` may hold (hyper relies on the same). A
        // value read from a masked copy held no masked byte (its name would be a raw
        // one), so it is the bytes httparse checked. The call is unsafe only in that the
        // `http` crate does not check again.
        let value = unsafe { HeaderValue::from_maybe_shared_unchecked(value) };
        if name == CONNECTION {
            // Once any `Connection` line asks to close, a later `keep-alive` does not undo
            // it.
            if saw_close || connection_close_value(&value) {
                saw_close = true;
                keep_alive = false;
            } else if !keep_alive {
                keep_alive = connection_keep_alive(&value);
            }
        }
        headers.append(name, value);
    }
    let mut parts = http::Response::new(()).into_parts().0;
    parts.status = status;
    parts.version = version;
    if let Some(reason) = response.reason {
        if Some(reason) != status.canonical_reason() {
            if let Ok(reason) = hyper::ext::ReasonPhrase::try_from(reason.as_bytes()) {
                parts.extensions.insert(reason);
            }
        }
    }
    if let Some(raw) = raw {
        parts.extensions.insert(raw);
    }
    let kind = body_kind(&headers, version, status, method, &mut keep_alive)?;
    parts.headers = headers;
    Ok(Parsed::Head(Some((parts, BodyReader { kind, keep_alive }))))
}

/// Whether one `Connection` value asks to close.
fn connection_close_value(value: &HeaderValue) -> bool {
    value
        .as_bytes()
        .split(|&b| b == b',')
        .any(|token| token.trim_ascii().eq_ignore_ascii_case(b"close"))
}

/// Whether `headers` declare a body: a `Transfer-Encoding`, or a `Content-Length` other
/// than 0.
fn declares_a_body(headers: &HeaderMap) -> bool {
    headers.contains_key(TRANSFER_ENCODING)
        || headers
            .get_all(CONTENT_LENGTH)
            .iter()
            .any(|value| value.as_bytes().iter().any(|&b| b != b'0'))
}

/// How a response's body is framed (RFC 9112 §6.3).
fn body_kind(
    headers: &HeaderMap,
    version: Version,
    status: StatusCode,
    method: Sent,
    keep_alive: &mut bool,
) -> Result<BodyKind, H1Error> {
    if status == StatusCode::SWITCHING_PROTOCOLS {
        // What follows is not HTTP: the caller gets the head, and the connection when the
        // request asked for the upgrade (the transport hands it over).
        *keep_alive = false;
        return Ok(BodyKind::End);
    }
    // A 204, 205 or 304 response has no body whatever its headers say (RFC 9112 §6.3,
    // RFC 9110 §15.3.6). A server that declares one anyway may send it, even after the
    // head, and the next response would be read from those bytes: such a connection is
    // not used again.
    if matches!(status.as_u16(), 204 | 205 | 304) && declares_a_body(headers) {
        *keep_alive = false;
    }
    if matches!(status.as_u16(), 204 | 304) || method == Sent::Head {
        return Ok(BodyKind::End);
    }
    if method == Sent::Connect && status.is_success() {
        // A tunnel, not a response body: the connection is the caller's no longer.
        *keep_alive = false;
        return Ok(BodyKind::End);
    }
    if headers.contains_key(TRANSFER_ENCODING) {
        if version == Version::HTTP_10 {
            return Err(H1Error::new(
                Kind::Parse,
                "Transfer-Encoding in an HTTP/1.0 response",
            ));
        }
        let chunked = headers
            .get_all(TRANSFER_ENCODING)
            .iter()
            .next_back()
            .and_then(|value| value.as_bytes().rsplit(|&b| b == b',').next())
            .is_some_and(|last| last.trim_ascii().eq_ignore_ascii_case(b"chunked"));
        if !chunked {
            *keep_alive = false;
            return Ok(BodyKind::Close);
        }
        if headers.contains_key(CONTENT_LENGTH) {
            // Both: the length is ignored, and the connection is not trusted again.
            *keep_alive = false;
        }
        return Ok(BodyKind::Chunked(Chunked::default()));
    }
    let mut length: Option<u64> = None;
    for value in headers.get_all(CONTENT_LENGTH) {
        for item in value.as_bytes().split(|&b| b == b',') {
            let item = item.trim_ascii();
            let parsed = (!item.is_empty() && item.len() <= 19)
                .then(|| {
                    item.iter().try_fold(0u64, |n, &digit| {
                        digit
                            .is_ascii_digit()
                            .then(|| n * 10 + u64::from(digit - b'0'))
                    })
                })
                .flatten();
            match (parsed, length) {
                (Some(parsed), None) => length = Some(parsed),
                (Some(parsed), Some(length)) if parsed == length => {}
                _ => {
                    return Err(H1Error::new(
                        Kind::Parse,
                        "invalid or conflicting Content-Length",
                    ));
                }
            }
        }
    }
    Ok(match length {
        Some(0) => BodyKind::End,
        Some(length) => BodyKind::Length(length),
        None => {
            *keep_alive = false;
            BodyKind::Close
        }
    })
}

/// Reads a response body from the connection it came over.
pub(crate) struct BodyReader {
    kind: BodyKind,
    /// Whether the connection may serve another request after the body.
    keep_alive: bool,
}

enum BodyKind {
    /// This many bytes more.
    Length(u64),
    Chunked(Chunked),
    /// Up to the end of the stream.
    Close,
    /// Read to its end.
    End,
    /// Read to its end, a chunked body's trailer fields not yet taken.
    Trailers(Box<HeaderMap>),
}

impl BodyReader {
    /// Whether the body has been read to its end.
    pub(crate) fn is_end(&self) -> bool {
        self.kind_is_end()
    }

    fn kind_is_end(&self) -> bool {
        matches!(self.kind, BodyKind::End | BodyKind::Trailers(_))
    }

    /// The bytes left, if known.
    pub(crate) fn remaining(&self) -> Option<u64> {
        match self.kind {
            BodyKind::Length(length) => Some(length),
            BodyKind::End | BodyKind::Trailers(_) => Some(0),
            BodyKind::Chunked(_) | BodyKind::Close => None,
        }
    }

    /// The trailer fields the body ended with, if any, once: after its end.
    pub(crate) fn take_trailers(&mut self) -> Option<HeaderMap> {
        if !self.has_trailers() {
            return None;
        }
        match std::mem::replace(&mut self.kind, BodyKind::End) {
            BodyKind::Trailers(trailers) => Some(*trailers),
            _ => None,
        }
    }

    /// Whether trailer fields wait to be taken.
    pub(crate) fn has_trailers(&self) -> bool {
        matches!(self.kind, BodyKind::Trailers(_))
    }

    /// Whether the connection may serve another request after the body, as far as the
    /// response and its request say.
    pub(crate) fn keeps_alive(&self) -> bool {
        self.keep_alive
    }

    /// Whether the body was framed by a `Content-Length`.
    pub(crate) fn is_sized(&self) -> bool {
        matches!(self.kind, BodyKind::Length(_))
    }

    /// Whether the connection can serve another request now that the body has ended:
    /// nothing asked to close it and no byte came after the response.
    pub(crate) fn reusable(&self, conn: &Http1) -> bool {
        self.keep_alive && self.kind_is_end() && conn.0.read_buf.is_empty() && !conn.0.closed
    }

    /// The body's next bytes, read from `conn`.
    pub(crate) fn poll_data(
        &mut self,
        conn: &mut Http1,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Bytes, H1Error>>> {
        let conn = &mut *conn.0;
        loop {
            match &mut self.kind {
                BodyKind::End | BodyKind::Trailers(_) => return Poll::Ready(None),
                BodyKind::Length(left) => {
                    if !conn.read_buf.is_empty() {
                        let take = conn
                            .read_buf
                            .len()
                            .min(usize::try_from(*left).unwrap_or(usize::MAX));
                        let data = conn.read_buf.split_to(take).freeze();
                        *left -= take as u64;
                        if *left == 0 {
                            self.kind = BodyKind::End;
                        }
                        return Poll::Ready(Some(Ok(data)));
                    }
                    if ready!(conn.poll_fill(cx)).map_err(H1Error::io)? == 0 {
                        conn.closed = true;
                        return Poll::Ready(Some(Err(H1Error::new(
                            Kind::BodyCut,
                            "connection closed before the body's Content-Length was read",
                        ))));
                    }
                }
                BodyKind::Close => {
                    if !conn.read_buf.is_empty() {
                        return Poll::Ready(Some(Ok(conn.read_buf.split().freeze())));
                    }
                    let filled = ready!(conn.poll_fill(cx)).map_err(|error| {
                        // TLS says "unexpected EOF" for a close without a closure alert
                        // (`close_notify`): the close is this body's end, but RFC 9112
                        // §9.8 counts such a body complete only with the alert, since a
                        // cut connection looks the same. It is an error of its own, which
                        // a content coding that delimits the body itself may forgive
                        // (see `net/decode.rs`).
                        if error.kind() == io::ErrorKind::UnexpectedEof {
                            conn.closed = true;
                            H1Error {
                                kind: Kind::IncompleteClose,
                                message: "the connection closed without a TLS closure alert (close_notify), so a body delimited by the close may be cut short (RFC 9112 §9.8)",
                                source: Some(Box::new(error)),
                            }
                        } else {
                            H1Error::io(error)
                        }
                    })?;
                    if filled == 0 {
                        conn.closed = true;
                        self.kind = BodyKind::End;
                        return Poll::Ready(None);
                    }
                }
                BodyKind::Chunked(chunked) => {
                    let data = chunked.decode(&mut conn.read_buf, &conn.options)?;
                    if chunked.ended() {
                        self.kind = match chunked.take_trailers() {
                            Some(trailers) => BodyKind::Trailers(trailers),
                            None => BodyKind::End,
                        };
                    }
                    if let Some(data) = data {
                        return Poll::Ready(Some(Ok(data)));
                    }
                    if self.kind_is_end() {
                        return Poll::Ready(None);
                    }
                    if ready!(conn.poll_fill(cx)).map_err(H1Error::io)? == 0 {
                        conn.closed = true;
                        return Poll::Ready(Some(Err(H1Error::new(
                            Kind::BodyCut,
                            "connection closed before the chunked body's last chunk",
                        ))));
                    }
                }
            }
        }
    }
}

/// A chunked body's decoder (RFC 9112 §7.1): framing in, the chunks' data out.
#[derive(Default)]
struct Chunked {
    state: ChunkState,
    /// The size of the chunk being read, or the bytes of it left.
    size: u64,
    /// Whether the size line has a digit yet.
    digits: bool,
    /// Bytes of chunk extensions read in this body.
    extensions: usize,
    /// The trailer section read so far (checked, once the body has ended), and its
    /// count of fields.
    trailers: Vec<u8>,
    trailer_fields: usize,
}

#[derive(Default, Clone, Copy, PartialEq, Eq)]
enum ChunkState {
    /// The chunk size's hex digits.
    #[default]
    Size,
    /// Spaces or tabs after the size.
    SizeSpace,
    /// A chunk extension, up to the CR.
    Extension,
    /// The LF of the size line.
    SizeLf,
    /// The chunk's data.
    Data,
    DataCr,
    DataLf,
    /// At the start of a trailer line, or of the final empty line.
    TrailerStart,
    /// Inside a trailer field line.
    Trailer,
    TrailerLf,
    /// The LF of the final empty line.
    EndLf,
    End,
}

impl Chunked {
    /// Checks the trailer section: a malformed field is an error, as in a head. (Its
    /// bytes and its count of fields are bounded as a head's are, see
    /// [`Chunked::step`].) It is kept for [`Chunked::take_trailers`].
    fn check_trailers(&mut self) -> Result<(), H1Error> {
        if self.trailers.is_empty() {
            return Ok(());
        }
        self.trailers.extend_from_slice(b"\r\n");
        match self.parse_trailers() {
            Some(_) => Ok(()),
            None => Err(H1Error::new(Kind::Chunk, "malformed trailer field")),
        }
    }

    /// The trailer fields, parsed from the section read; `None` if it is malformed.
    fn parse_trailers(&self) -> Option<HeaderMap> {
        let mut fields = vec![httparse::EMPTY_HEADER; self.trailer_fields];
        let Ok(httparse::Status::Complete((_, fields))) =
            httparse::parse_headers(&self.trailers, &mut fields)
        else {
            return None;
        };
        let mut map = HeaderMap::with_capacity(fields.len());
        for field in fields.iter() {
            let name = HeaderName::from_bytes(field.name.as_bytes()).ok()?;
            let value = HeaderValue::from_bytes(field.value).ok()?;
            // By entry, not `append`: a call of `HeaderMap::append` more in the crate
            // kept it from being inlined into the parsing of every response head.
            match map.entry(name) {
                http::header::Entry::Occupied(mut entry) => entry.append(value),
                http::header::Entry::Vacant(entry) => {
                    entry.insert(value);
                }
            }
        }
        Some(map)
    }

    /// The trailer fields of a body that has ended with some, once.
    #[cold]
    fn take_trailers(&mut self) -> Option<Box<HeaderMap>> {
        if self.trailers.is_empty() {
            return None;
        }
        let fields = self.parse_trailers();
        self.trailers = Vec::new();
        fields.map(Box::new)
    }

    fn ended(&self) -> bool {
        self.state == ChunkState::End
    }

    /// Reads framing from `buf` up to some data, which it returns, or until `buf` is
    /// empty or the body's end; then reads on past the data's framing as far as `buf`
    /// goes, so that the end of a body whose last chunk has arrived is seen with it.
    fn decode(&mut self, buf: &mut BytesMut, options: &Options) -> Result<Option<Bytes>, H1Error> {
        let mut data = None;
        loop {
            if self.state == ChunkState::End {
                return Ok(data);
            }
            if self.state == ChunkState::Data {
                if data.is_some() || buf.is_empty() {
                    return Ok(data);
                }
                let take = buf
                    .len()
                    .min(usize::try_from(self.size).unwrap_or(usize::MAX));
                data = Some(buf.split_to(take).freeze());
                self.size -= take as u64;
                if self.size == 0 {
                    self.state = ChunkState::DataCr;
                }
                continue;
            }
            let Some(&byte) = buf.first() else {
                return Ok(data);
            };
            buf.advance(1);
            self.step(byte, options)?;
        }
    }

    fn step(&mut self, byte: u8, options: &Options) -> Result<(), H1Error> {
        use ChunkState::*;
        let invalid = |message| Err(H1Error::new(Kind::Chunk, message));
        self.state = match (self.state, byte) {
            (Size, b'0'..=b'9' | b'a'..=b'f' | b'A'..=b'F') => {
                let digit = match byte {
                    b'0'..=b'9' => byte - b'0',
                    b'a'..=b'f' => byte - b'a' + 10,
                    _ => byte - b'A' + 10,
                };
                self.digits = true;
                self.size = match self
                    .size
                    .checked_mul(16)
                    .and_then(|size| size.checked_add(u64::from(digit)))
                {
                    Some(size) => size,
                    None => return invalid("chunk size overflows 64 bits"),
                };
                Size
            }
            (Size, _) if !self.digits => return invalid("chunk size line without a size"),
            (Size | SizeSpace, b' ' | b'\t') => SizeSpace,
            (Size | SizeSpace, b';') => Extension,
            (Size | SizeSpace, b'\r') => SizeLf,
            (Size | SizeSpace, _) => return invalid("invalid byte in a chunk size line"),
            (Extension, b'\r') => SizeLf,
            (Extension, b'\n') => return invalid("LF without CR in a chunk extension"),
            (Extension, _) => {
                self.extensions += 1;
                if self.extensions >= MAX_CHUNK_EXTENSIONS {
                    return invalid("chunk extensions over 16 KiB");
                }
                Extension
            }
            (SizeLf, b'\n') => {
                self.digits = false;
                if self.size == 0 { TrailerStart } else { Data }
            }
            (SizeLf, _) => return invalid("chunk size line without LF"),
            (Data, _) => Data,
            (DataCr, b'\r') => DataLf,
            (DataCr, _) => return invalid("chunk data without CRLF after it"),
            (DataLf, b'\n') => Size,
            (DataLf, _) => return invalid("chunk data without CRLF after it"),
            (TrailerStart, b'\r') => EndLf,
            (TrailerStart | Trailer, _) => {
                if self.state == TrailerStart {
                    self.trailer_fields += 1;
                    if self.trailer_fields > options.max_headers {
                        return invalid("too many trailer fields");
                    }
                }
                if self.trailers.len() >= options.max_head {
                    return invalid("trailers too large");
                }
                self.trailers.push(byte);
                if byte == b'\r' { TrailerLf } else { Trailer }
            }
            (TrailerLf, b'\n') => {
                self.trailers.push(byte);
                TrailerStart
            }
            (TrailerLf, _) => return invalid("trailer line without LF"),
            (EndLf, b'\n') => {
                self.check_trailers()?;
                End
            }
            (EndLf, _) => return invalid("chunked body's last line without LF"),
            (End, _) => End,
        };
        Ok(())
    }
}

/// What went wrong on an HTTP/1.1 connection.
#[derive(Debug)]
pub(crate) struct H1Error {
    kind: Kind,
    message: &'static str,
    source: Option<Box<dyn StdError + Send + Sync>>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    /// The connection closed before a byte of the response arrived.
    Closed,
    /// Reading or writing failed.
    Io,
    /// The response head passed a limit.
    HeadTooLarge,
    /// The response head is malformed.
    Parse,
    /// The body ended before its framing said it would.
    BodyCut,
    /// A chunked body's framing is malformed.
    Chunk,
    /// The request could not be sent as it is: its body failed, or it cannot be framed.
    Request,
    /// The read timeout passed before the response head arrived.
    Timeout,
    /// A body delimited by the connection's close ended without a TLS closure alert.
    IncompleteClose,
}

impl H1Error {
    fn new(kind: Kind, message: &'static str) -> H1Error {
        H1Error {
            kind,
            message,
            source: None,
        }
    }

    /// The read timeout passed before the response arrived.
    pub(crate) fn timeout() -> H1Error {
        H1Error::new(Kind::Timeout, "read timeout")
    }

    /// The connection ended before the body did.
    pub(crate) fn closed() -> H1Error {
        H1Error::new(Kind::BodyCut, "the connection ended before the body")
    }

    fn io(error: io::Error) -> H1Error {
        H1Error {
            kind: Kind::Io,
            message: "connection failed",
            source: Some(Box::new(error)),
        }
    }

    /// The I/O error underneath, or one that says what this says.
    fn into_io(self) -> io::Error {
        match self.source.map(|source| source.downcast::<io::Error>()) {
            Some(Ok(io)) => *io,
            _ => io::Error::other(self.message),
        }
    }

    /// Whether the connection went away under the request: it closed before a byte of
    /// the response, or was reset, or broke while the request was written.
    pub(crate) fn is_connection_lost(&self) -> bool {
        match self.kind {
            Kind::Closed => true,
            Kind::Io => self.io_kind().is_some_and(|kind| {
                matches!(
                    kind,
                    io::ErrorKind::ConnectionReset
                        | io::ErrorKind::ConnectionAborted
                        | io::ErrorKind::BrokenPipe
                        | io::ErrorKind::UnexpectedEof
                )
            }),
            _ => false,
        }
    }

    fn io_kind(&self) -> Option<io::ErrorKind> {
        self.source
            .as_ref()
            .and_then(|source| source.downcast_ref::<io::Error>())
            .map(io::Error::kind)
    }

    /// Whether the read timeout passed before the response head arrived.
    pub(crate) fn is_timeout(&self) -> bool {
        self.kind == Kind::Timeout
    }

    /// Whether the response head passed [`Options::max_head`] or [`Options::max_headers`].
    pub(crate) fn is_head_too_large(&self) -> bool {
        self.kind == Kind::HeadTooLarge
    }

    /// Whether a body delimited by the connection's close ended without a TLS closure
    /// alert: complete, or cut short by whoever closed the connection.
    pub(crate) fn is_incomplete_close(&self) -> bool {
        self.kind == Kind::IncompleteClose
    }

    /// Whether a body ended before its framing said it would.
    pub(crate) fn is_body_cut(&self) -> bool {
        self.kind == Kind::BodyCut
            || (self.kind == Kind::Io && self.io_kind() == Some(io::ErrorKind::UnexpectedEof))
    }
}

impl fmt::Display for H1Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.kind {
            Kind::Io => f.write_str("HTTP/1.1 connection failed"),
            Kind::Request => f.write_str(self.message),
            Kind::Closed | Kind::BodyCut | Kind::Timeout | Kind::IncompleteClose => {
                f.write_str(self.message)
            }
            Kind::HeadTooLarge | Kind::Parse => {
                write!(f, "invalid HTTP/1.1 response head: {}", self.message)
            }
            Kind::Chunk => write!(f, "invalid chunked response body: {}", self.message),
        }
    }
}

impl StdError for H1Error {
    fn source(&self) -> Option<&(dyn StdError + 'static)> {
        self.source
            .as_deref()
            .map(|source| source as &(dyn StdError + 'static))
    }
}

/// The limits on an HTTP/1.1 response head, kept to say which one a response passed.
/// (An HTTP/2 connection keeps its own, see `net/h2.rs`.)
#[derive(Clone, Copy, Debug)]
pub(crate) struct HeadLimits {
    http1_max_header_size: u32,
    http1_max_headers: usize,
}

impl HeadLimits {
    pub(crate) fn of(protocol: &ProtocolOptions) -> HeadLimits {
        HeadLimits {
            http1_max_header_size: protocol.http1_max_header_size,
            http1_max_headers: protocol.http1_max_headers,
        }
    }

    /// Maps an error on an HTTP/1.1 connection before the response head arrived, as
    /// `request_error` (`net/h2.rs`) does for HTTP/2.
    pub(crate) fn request_error(&self, error: H1Error) -> NetworkError {
        if !error.is_head_too_large() {
            return NetworkError::Protocol(Box::new(error));
        }
        NetworkError::Protocol(Box::new(HeadRefused {
            message: format!(
                "HTTP/1.1 response head larger than {} bytes or with more than {} header \
                 fields (see http1_max_header_size, http1_max_headers)",
                self.http1_max_header_size, self.http1_max_headers
            ),
            version: Version::HTTP_11,
            limit: self.http1_max_header_size,
            source: Box::new(error),
        }))
    }
}

/// Whether `error` ended an HTTP/1.1 body delimited by the connection's close whose TLS
/// connection closed without a closure alert (`close_notify`): complete, or cut short by
/// whoever closed the connection (RFC 9112 §9.8).
pub(crate) fn is_incomplete_close(error: &NetworkError) -> bool {
    match error {
        NetworkError::Protocol(source) => source
            .downcast_ref::<H1Error>()
            .is_some_and(H1Error::is_incomplete_close),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ORIGIN: Head<'static> = Head {
        absolute: None,
        host: None,
        proxy_authorization: None,
        proxy_headers: None,
    };

    const OPTIONS: Options = Options {
        title_case_headers: false,
        max_head: 1024,
        max_headers: 8,
    };

    fn chunks(input: &[u8]) -> Result<(Vec<u8>, bool), H1Error> {
        let mut decoder = Chunked::default();
        let mut buf = BytesMut::from(input);
        let mut out = Vec::new();
        while let Some(data) = decoder.decode(&mut buf, &OPTIONS)? {
            out.extend_from_slice(&data);
        }
        Ok((out, decoder.ended()))
    }

    #[test]
    fn chunked_bodies_decode_to_their_data() {
        assert_eq!(
            chunks(b"5\r\nhello\r\n1;ext=1\r\n!\r\n0\r\n\r\n").unwrap(),
            (b"hello!".to_vec(), true)
        );
        assert_eq!(
            chunks(b"A \t\r\n0123456789\r\n0\r\nX-Trailer: 1\r\n\r\n").unwrap(),
            (b"0123456789".to_vec(), true)
        );
        // Not yet ended: the last chunk has not arrived.
        assert_eq!(chunks(b"2\r\nab\r\n").unwrap(), (b"ab".to_vec(), false));
    }

    #[test]
    fn malformed_chunk_framing_is_refused() {
        for input in [
            &b"\r\n"[..],
            b"X\r\n",
            b"-1\r\n",
            b"1 2\r\n",
            b"1\n",
            b"1;a\nb\r\n",
            b"1\r\nab",
            b"1\r\na\n",
            b"f0000000000000003\r\n",
            b"0\r\nA: b\r\r",
            b"0\r\nbad trailer line\r\n\r\n",
            b"0\r\nX: \0\r\n\r\n",
        ] {
            assert!(
                chunks(input).is_err(),
                "{:?}",
                String::from_utf8_lossy(input)
            );
        }
    }

    #[test]
    fn chunk_extensions_and_trailers_are_limited() {
        let mut long = b"1;".to_vec();
        long.extend(std::iter::repeat_n(b'x', MAX_CHUNK_EXTENSIONS));
        assert!(chunks(&long).is_err());
        let mut trailers = b"0\r\n".to_vec();
        for i in 0..9 {
            trailers.extend_from_slice(format!("T{i}: v\r\n").as_bytes());
        }
        assert!(chunks(&trailers).is_err());
        let mut big = b"0\r\nT: ".to_vec();
        big.extend(std::iter::repeat_n(b'v', 1100));
        assert!(chunks(&big).is_err());
    }

    #[test]
    fn head_end_finds_the_first_empty_line() {
        assert_eq!(head_end(b"HTTP/1.1 200 OK\r\n\r\nbody", 0), Some(19));
        assert_eq!(head_end(b"HTTP/1.1 200 OK\n\nbody", 0), Some(17));
        assert_eq!(head_end(b"HTTP/1.1 200 OK\n\r\n", 0), Some(18));
        assert_eq!(head_end(b"HTTP/1.1 200 OK\r\nA: b\r\n", 0), None);
        assert_eq!(head_end(b"HTTP/1.1 200 OK\r\n\r\n", 15), Some(19));
    }

    fn parse(
        head: &'static [u8],
        method: Method,
    ) -> Result<Option<(http::response::Parts, BodyReader)>, H1Error> {
        parse_head(Bytes::from_static(head), &OPTIONS, Sent::of(&method))
    }

    #[test]
    fn a_header_value_keeps_what_a_fetch_header_value_may_hold_and_nothing_else() {
        let (parts, _) = parse(
            b"HTTP/1.1 200 OK\r\nX-A: tab\tand \x80\xff bytes\r\nContent-Length: 0\r\n\r\n",
            Method::GET,
        )
        .unwrap()
        .unwrap();
        assert_eq!(parts.headers["x-a"].as_bytes(), b"tab\tand \x80\xff bytes");
        assert!(parts.extensions.get::<super::super::RawFields>().is_none());
        for head in [
            &b"HTTP/1.1 200 OK\r\nX-A: a\x00b\r\n\r\n"[..],
            b"HTTP/1.1 200 OK\r\nX-A: a\rb\r\n\r\n",
            // A control byte in a name is no more a name for it.
            b"HTTP/1.1 200 OK\r\nX-\x01: ab\r\nX-B: a\x01b\r\n\r\n",
        ] {
            match parse_head(Bytes::from_static(head), &OPTIONS, Sent::Other) {
                Err(error) => assert!(matches!(error.kind, Kind::Parse), "{head:?}"),
                Ok(_) => panic!("{head:?} was accepted"),
            }
        }
    }

    #[test]
    fn every_byte_of_a_value_goes_to_the_map_or_the_raw_fields_or_fails_the_head() {
        // What makes `HeaderValue::from_maybe_shared_unchecked` in `parse_head` sound: a
        // value goes into the map only when the `http` crate would take it.
        for byte in 0..=u8::MAX {
            let head = [
                &b"HTTP/1.1 200 OK\r\nX-A: a"[..],
                &[byte],
                &b"b\r\nX-B: plain\r\nContent-Length: 0\r\n\r\n"[..],
            ]
            .concat();
            let parsed = parse_head(Bytes::from(head), &OPTIONS, Sent::Other);
            let by_http = HeaderValue::from_bytes(&[b'a', byte, b'b']).is_ok();
            let raw = super::super::fields::is_raw_only(byte);
            match parsed {
                Ok(Some((parts, _))) => {
                    assert_eq!(parts.headers["x-b"], "plain", "byte {byte:#04x}");
                    let fields = parts.extensions.get::<super::super::RawFields>();
                    if by_http {
                        assert_eq!(parts.headers["x-a"].as_bytes(), [b'a', byte, b'b']);
                        assert!(fields.is_none(), "byte {byte:#04x}");
                    } else {
                        assert!(raw, "byte {byte:#04x} taken, neither by http nor raw");
                        assert!(!parts.headers.contains_key("x-a"), "byte {byte:#04x}");
                        let fields: Vec<_> = fields
                            .expect("the raw field")
                            .iter()
                            .map(|(name, value)| (name.as_str(), value.to_vec()))
                            .collect();
                        assert_eq!(fields, [("x-a", vec![b'a', byte, b'b'])]);
                    }
                }
                _ => assert!(
                    !by_http && !raw,
                    "byte {byte:#04x} refused, taken by http or raw"
                ),
            }
        }
    }

    #[test]
    fn response_framing_follows_rfc_9112() {
        // (head, bytes of body left if known, whether the connection is kept)
        let cases: [(&'static [u8], Option<u64>, bool); 11] = [
            (
                b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
                Some(5),
                true,
            ),
            (
                b"HTTP/1.1 200 OK\r\nContent-Length: 5, 5\r\n\r\n",
                Some(5),
                true,
            ),
            (b"HTTP/1.1 200 OK\r\n\r\n", None, false),
            (b"HTTP/1.1 101 Switching Protocols\r\n\r\n", Some(0), false),
            // No body, and, since it declares one, the connection is not used again.
            (
                b"HTTP/1.1 204 No Content\r\nContent-Length: 5\r\n\r\n",
                Some(0),
                false,
            ),
            (
                b"HTTP/1.1 204 No Content\r\nContent-Length: 0\r\n\r\n",
                Some(0),
                true,
            ),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\nContent-Length: 5\r\n\r\n",
                None,
                false,
            ),
            (
                b"HTTP/1.1 200 OK\r\nTransfer-Encoding: gzip\r\n\r\n",
                None,
                false,
            ),
            (
                b"HTTP/1.0 200 OK\r\nContent-Length: 1\r\n\r\n",
                Some(1),
                false,
            ),
            (
                b"HTTP/1.0 200 OK\r\nConnection: keep-alive\r\nContent-Length: 1\r\n\r\n",
                Some(1),
                true,
            ),
            (
                b"HTTP/1.1 200 OK\r\nConnection: close\r\nConnection: keep-alive\r\n\
                  Content-Length: 1\r\n\r\n",
                Some(1),
                false,
            ),
        ];
        for (head, remaining, keep_alive) in cases {
            let (_, reader) = parse(head, Method::GET).unwrap().unwrap();
            let text = String::from_utf8_lossy(head);
            assert_eq!(reader.remaining(), remaining, "{text}");
            assert_eq!(reader.keep_alive, keep_alive, "{text}");
        }
        let (_, head) = parse(
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n",
            Method::HEAD,
        )
        .unwrap()
        .unwrap();
        assert_eq!(head.remaining(), Some(0));
        for bad in [
            &b"HTTP/1.1 200 OK\r\nContent-Length: 5, 6\r\n\r\n"[..],
            b"HTTP/1.1 200 OK\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: +5\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nContent-Length: 99999999999999999999\r\n\r\n",
            b"HTTP/1.0 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n",
            b"HTTP/1.1 099 Low\r\n\r\n",
            b"HTTP/1.1 200 OK\r\nA: 1\r\nA: 2\r\nA: 3\r\nA: 4\r\nA: 5\r\nA: 6\r\nA: 7\r\nA: 8\r\nA: 9\r\n\r\n",
        ] {
            let head: &'static [u8] = Box::leak(bad.to_vec().into_boxed_slice());
            assert!(parse(head, Method::GET).is_err(), "{}", String::from_utf8_lossy(bad));
        }
        assert!(
            parse(
                b"HTTP/1.1 103 Early Hints\r\nLink: </a>\r\n\r\n",
                Method::GET
            )
            .unwrap()
            .is_none()
        );
    }

    #[test]
    fn a_forward_proxy_gets_the_absolute_form_host_and_credentials() {
        let request = Request::get("http://user:pw@Example.com:8080/a?b=c")
            .header("accept", "*/*")
            .body(RequestBody::empty())
            .unwrap();
        let host = HeaderValue::from_static("Example.com:8080");
        let authorization = HeaderValue::from_static("Basic dTpw");
        let head = Head {
            absolute: Some("Example.com:8080"),
            host: Some(&host),
            proxy_authorization: Some(&authorization),
            proxy_headers: None,
        };
        let mut buf = Vec::new();
        encode_head(&mut buf, &request, RequestBody::empty(), &head, false).unwrap();
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "GET http://Example.com:8080/a?b=c HTTP/1.1\r\nhost: Example.com:8080\r\n\
             accept: */*\r\nproxy-authorization: Basic dTpw\r\n\r\n"
        );
        // The request's own credentials stay the only ones.
        let request = Request::get("http://example.com/")
            .header("proxy-authorization", "Basic b3du")
            .body(RequestBody::empty())
            .unwrap();
        let mut buf = Vec::new();
        encode_head(&mut buf, &request, RequestBody::empty(), &head, false).unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert_eq!(text.matches("proxy-authorization").count(), 1, "{text}");
        assert!(text.contains("Basic b3du"), "{text}");
    }

    #[test]
    fn a_forward_proxys_own_headers_win_for_proxy_fields_only() {
        let request = Request::get("http://example.com/")
            .header("proxy-authorization", "Basic b3du")
            .header("x-tag", "request")
            .header("accept", "*/*")
            .body(RequestBody::empty())
            .unwrap();
        let mut own = HeaderMap::new();
        own.insert(
            "proxy-authorization",
            HeaderValue::from_static("Bearer dG9r"),
        );
        own.insert("x-tag", HeaderValue::from_static("proxy"));
        own.append("x-route", HeaderValue::from_static("a"));
        own.append("x-route", HeaderValue::from_static("b"));
        let credentials = HeaderValue::from_static("Basic dTpw");
        let head = Head {
            absolute: Some("example.com"),
            host: None,
            proxy_authorization: Some(&credentials),
            proxy_headers: Some(&own),
        };
        let mut buf = Vec::new();
        encode_head(&mut buf, &request, RequestBody::empty(), &head, false).unwrap();
        assert_eq!(
            String::from_utf8(buf).unwrap(),
            "GET http://example.com/ HTTP/1.1\r\nx-tag: request\r\naccept: */*\r\n\
             proxy-authorization: Bearer dG9r\r\nx-route: a\r\nx-route: b\r\n\r\n"
        );
        // Without a `Proxy-Authorization` of their own, the credentials are sent.
        own.remove("proxy-authorization");
        let head = Head {
            absolute: Some("example.com"),
            host: None,
            proxy_authorization: Some(&credentials),
            proxy_headers: Some(&own),
        };
        let request = Request::get("http://example.com/")
            .body(RequestBody::empty())
            .unwrap();
        let mut buf = Vec::new();
        encode_head(&mut buf, &request, RequestBody::empty(), &head, false).unwrap();
        let text = String::from_utf8(buf).unwrap();
        assert!(
            text.contains("proxy-authorization: Basic dTpw\r\n"),
            "{text}"
        );
        assert!(text.contains("x-tag: proxy\r\n"), "{text}");
    }

    #[test]
    fn a_reason_phrase_other_than_the_canonical_one_is_kept() {
        let (parts, _) = parse(b"HTTP/1.1 200 Fine\r\n\r\n", Method::GET)
            .unwrap()
            .unwrap();
        let reason = parts.extensions.get::<hyper::ext::ReasonPhrase>().unwrap();
        assert_eq!(reason.as_bytes(), b"Fine");
        let (parts, _) = parse(b"HTTP/1.1 200 OK\r\n\r\n", Method::GET)
            .unwrap()
            .unwrap();
        assert!(parts.extensions.get::<hyper::ext::ReasonPhrase>().is_none());
    }

    #[test]
    fn request_heads_are_written_with_their_framing() {
        let head = |mut request: Request<RequestBody>, title_case: bool| {
            let body = std::mem::take(request.body_mut());
            let mut buf = Vec::new();
            let origin = Head {
                absolute: None,
                host: None,
                proxy_authorization: None,
                proxy_headers: None,
            };
            let outgoing = encode_head(&mut buf, &request, body, &origin, title_case).unwrap();
            (
                String::from_utf8(buf).unwrap(),
                matches!(outgoing, Outgoing::Stream { chunked: true, .. }),
            )
        };
        let get = Request::get("/a?b")
            .header("x-one", "1")
            .body(RequestBody::empty())
            .unwrap();
        assert_eq!(
            head(get, false),
            ("GET /a?b HTTP/1.1\r\nx-one: 1\r\n\r\n".into(), false)
        );
        let post = Request::post("http://h:8/p")
            .header("content-type", "a/b")
            .body(RequestBody::full("hi"))
            .unwrap();
        assert_eq!(
            head(post, true),
            (
                "POST /p HTTP/1.1\r\nContent-Type: a/b\r\nContent-Length: 2\r\n\r\nhi".into(),
                false
            )
        );
        let stream = RequestBody::from_stream(futures_util::stream::iter([Ok::<_, io::Error>(
            Bytes::from("x"),
        )]));
        let put = Request::put("/").body(stream).unwrap();
        assert_eq!(
            head(put, false),
            (
                "PUT / HTTP/1.1\r\ntransfer-encoding: chunked\r\n\r\n".into(),
                true
            )
        );
    }

    /// A peer on the other end of a pipe of `capacity` bytes: reads a request whole (its
    /// chunked body decoded), then answers `response`.
    async fn exchange_over_pipe(
        capacity: usize,
        request: Request<RequestBody>,
        response: &'static [u8],
    ) -> (
        Vec<u8>,
        Result<(http::response::Parts, BodyReader), H1Error>,
    ) {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (client, mut server) = tokio::io::duplex(capacity);
        let peer = tokio::spawn(async move {
            let mut seen = Vec::new();
            let mut buf = [0; 4096];
            while !seen.ends_with(b"0\r\n\r\n") {
                let n = server.read(&mut buf).await.unwrap();
                assert!(n > 0, "the request ended early");
                seen.extend_from_slice(&buf[..n]);
            }
            server.write_all(response).await.unwrap();
            seen
        });
        let mut conn = Http1::new(client, OPTIONS, None);
        let mut request = request;
        let body = std::mem::take(request.body_mut());
        let result = conn.send(&request, body, &ORIGIN, None, None).await;
        (peer.await.unwrap(), result)
    }

    #[tokio::test]
    async fn large_stream_chunks_go_out_whole_through_a_narrow_pipe() {
        let pieces: Vec<Bytes> = (0..3u8)
            .map(|i| Bytes::from(vec![b'a' + i; 20_000]))
            .collect();
        let stream = futures_util::stream::iter(pieces.clone().into_iter().map(Ok::<_, io::Error>));
        let request = Request::put("/")
            .body(RequestBody::from_stream(stream))
            .unwrap();
        let (seen, result) = exchange_over_pipe(
            100,
            request,
            b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n",
        )
        .await;
        let (parts, reader) = result.unwrap();
        assert_eq!(parts.status, 200);
        assert!(reader.is_end());
        let body_at = head_end(&seen, 0).unwrap();
        let mut chunked = Chunked::default();
        let mut buf = BytesMut::from(&seen[body_at..]);
        let mut body = Vec::new();
        while let Some(data) = chunked.decode(&mut buf, &OPTIONS).unwrap() {
            body.extend_from_slice(&data);
        }
        assert!(chunked.ended());
        assert_eq!(body, pieces.concat());
    }

    #[tokio::test]
    async fn a_response_before_the_body_is_sent_ends_the_upload_and_the_connection() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (client, mut server) = tokio::io::duplex(1024);
        let peer = tokio::spawn(async move {
            let mut buf = [0; 256];
            let _ = server.read(&mut buf).await.unwrap();
            server
                .write_all(b"HTTP/1.1 413 Content Too Large\r\ncontent-length: 0\r\n\r\n")
                .await
                .unwrap();
            // Never reads the body.
            tokio::time::sleep(Duration::from_secs(60)).await;
        });
        let endless =
            futures_util::stream::repeat_with(|| Ok::<_, io::Error>(Bytes::from(vec![0; 4096])));
        let request = Request::post("/").body(RequestBody::empty()).unwrap();
        let body = RequestBody::from_stream(endless);
        let mut conn = Http1::new(client, OPTIONS, None);
        let sent = conn.send(&request, body, &ORIGIN, None, None);
        let (parts, reader) = tokio::time::timeout(Duration::from_secs(5), sent)
            .await
            .unwrap()
            .unwrap();
        assert_eq!(parts.status, 413);
        assert!(!reader.reusable(&conn));
        assert!(conn.is_closed());
        peer.abort();
    }

    #[tokio::test]
    async fn endless_informational_responses_are_cut_off() {
        use tokio::io::{AsyncReadExt, AsyncWriteExt};
        let (client, mut server) = tokio::io::duplex(64 * 1024);
        let peer = tokio::spawn(async move {
            let mut buf = [0; 256];
            let _ = server.read(&mut buf).await;
            while server
                .write_all(b"HTTP/1.1 100 Continue\r\n\r\n")
                .await
                .is_ok()
            {}
        });
        let request = Request::get("/").body(RequestBody::empty()).unwrap();
        let mut conn = Http1::new(client, OPTIONS, None);
        let sent = conn.send(&request, RequestBody::empty(), &ORIGIN, None, None);
        let Err(error) = tokio::time::timeout(Duration::from_secs(5), sent)
            .await
            .unwrap()
        else {
            panic!("a response after endless informational ones");
        };
        assert!(error.to_string().contains("informational"), "{error}");
        drop(conn);
        peer.abort();

        // A few are read past.
        let (client, mut server) = tokio::io::duplex(64 * 1024);
        let peer = tokio::spawn(async move {
            let mut buf = [0; 256];
            let _ = server.read(&mut buf).await;
            let mut answer = b"HTTP/1.1 100 Continue\r\n\r\n".repeat(3);
            answer.extend_from_slice(b"HTTP/1.1 103 Early Hints\r\nlink: </s>\r\n\r\n");
            answer.extend_from_slice(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
            server.write_all(&answer).await.unwrap();
            server
        });
        let mut conn = Http1::new(client, OPTIONS, None);
        let (parts, _) = conn
            .send(&request, RequestBody::empty(), &ORIGIN, None, None)
            .await
            .unwrap();
        assert_eq!(parts.status, 200);
        drop(peer.await.unwrap());
    }
}
