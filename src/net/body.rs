//! The bodies that cross the [`Transport`](super::Transport) boundary.
//!
//! [`RequestBody`] goes out: empty, one buffer, or a stream sent with backpressure
//! (HTTP/1 `Transfer-Encoding: chunked` when its length is unknown). [`ResponseBody`]
//! comes in: bytes leave the socket only when the reader polls, and the connection goes
//! back to the pool only once the body has reached its end.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;
use http_body::{Body, Frame, SizeHint};
use sync_wrapper::SyncWrapper;

use super::decode::Pipeline;
use super::h1::{BodyReader, H1Error};
use super::h2::H2Body;
use super::pool::Pooled;
use super::timer::ReadTimer;
use super::timing::{ConnectionInfo, Recorded};
use crate::error::{BoxError, NetworkError, TimeoutKind};

type BoxRequestStream = Pin<Box<dyn Stream<Item = Result<Bytes, BoxError>> + Send>>;
type BoxResponseStream = Pin<Box<dyn Stream<Item = Result<Bytes, NetworkError>> + Send>>;

/// A request body: empty, one buffer, or a stream of chunks.
///
/// The empty and buffered forms cost no allocation beyond the [`Bytes`] itself and are
/// sent with a `Content-Length`; a stream has no known length and goes out over HTTP/1
/// as `Transfer-Encoding: chunked` (unless the request carries its own
/// `Content-Length`), pulled one chunk at a time as the connection can take it.
///
/// ```
/// use whatwg_fetch::net::RequestBody;
/// use http_body::Body;
///
/// assert!(RequestBody::empty().is_end_stream());
/// assert_eq!(RequestBody::from("hello").size_hint().exact(), Some(5));
/// ```
pub struct RequestBody {
    inner: RequestInner,
}

enum RequestInner {
    Empty,
    Full(Option<Bytes>),
    Stream(SyncWrapper<BoxRequestStream>),
    /// A stream sent under a `Content-Length` the caller set: it must yield exactly that
    /// many bytes (see [`RequestBody::with_declared_length`]). Boxed: a request body is
    /// moved several times on the way to the connection, and this rare case would double
    /// its size.
    Declared(Box<DeclaredStream>),
}

/// A stream held to a declared length.
struct DeclaredStream {
    stream: SyncWrapper<BoxRequestStream>,
    /// The declared length, for the error messages.
    declared: u64,
    /// Bytes still owed.
    remaining: u64,
    /// The chunk that completes the declared length, held back until the stream shows
    /// that it ends there.
    last: Option<Bytes>,
    /// Set once the stream ended, failed or was found too long.
    done: bool,
}

impl RequestBody {
    /// A body with no bytes.
    pub fn empty() -> RequestBody {
        RequestBody {
            inner: RequestInner::Empty,
        }
    }

    /// A body of exactly `bytes`.
    pub fn full(bytes: impl Into<Bytes>) -> RequestBody {
        let bytes = bytes.into();
        if bytes.is_empty() {
            return RequestBody::empty();
        }
        RequestBody {
            inner: RequestInner::Full(Some(bytes)),
        }
    }

    /// A body streamed from `stream`, one chunk at a time, as the peer takes them.
    ///
    /// An error from the stream aborts the request: the connection is closed and the
    /// transport reports a [`NetworkError::Protocol`] whose source chain holds it.
    pub fn from_stream<S, E>(stream: S) -> RequestBody
    where
        S: Stream<Item = Result<Bytes, E>> + Send + 'static,
        E: Into<BoxError>,
    {
        RequestBody {
            inner: RequestInner::Stream(SyncWrapper::new(Box::pin(MapErr { stream }))),
        }
    }
}

impl RequestBody {
    /// A copy of this body to send again, if it can be: an empty body or one buffer (a
    /// [`Bytes`] clone, no copy of the bytes), never a stream, and never a buffer already
    /// handed out.
    pub(crate) fn try_clone(&self) -> Option<RequestBody> {
        match &self.inner {
            RequestInner::Empty => Some(RequestBody::empty()),
            RequestInner::Full(Some(bytes)) => Some(RequestBody {
                inner: RequestInner::Full(Some(bytes.clone())),
            }),
            RequestInner::Full(None) | RequestInner::Stream(_) | RequestInner::Declared(_) => None,
        }
    }

    /// The body's one buffer, or the body itself if it is not one buffer.
    pub(crate) fn into_full(self) -> Result<Bytes, RequestBody> {
        match self.inner {
            RequestInner::Full(Some(bytes)) => Ok(bytes),
            inner => Err(RequestBody { inner }),
        }
    }

    /// Whether the body is a stream, of a length known only once it ends.
    pub(crate) fn is_stream(&self) -> bool {
        matches!(
            self.inner,
            RequestInner::Stream(_) | RequestInner::Declared(_)
        )
    }

    /// This body held to `length` bytes, the `Content-Length` its request declares. A
    /// stream that ends early or yields more fails with an error that aborts the request,
    /// so the peer never sees a body out of step with its head; the chunk that completes
    /// the length is held back until the stream ends. (The HTTP/1.1 connection writes
    /// what the stream yields after the declared `Content-Length`; this is what keeps the
    /// two in step.) An empty or buffered body is returned as it is: its length is checked
    /// before sending.
    pub(crate) fn with_declared_length(self, length: u64) -> RequestBody {
        match self.inner {
            RequestInner::Stream(stream) => RequestBody {
                inner: RequestInner::Declared(Box::new(DeclaredStream {
                    stream,
                    declared: length,
                    remaining: length,
                    last: None,
                    done: false,
                })),
            },
            inner => RequestBody { inner },
        }
    }
}

impl DeclaredStream {
    fn poll_frame(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        if self.done {
            return Poll::Ready(None);
        }
        loop {
            let polled = ready!(self.stream.get_mut().as_mut().poll_next(cx));
            match polled {
                Some(Ok(chunk)) if chunk.is_empty() => continue,
                Some(Ok(chunk)) => {
                    let length = chunk.len() as u64;
                    if self.last.is_some() || length > self.remaining {
                        return self.fail(format!(
                            "request body is longer than its Content-Length of {} bytes",
                            self.declared
                        ));
                    }
                    self.remaining -= length;
                    if self.remaining == 0 {
                        // Sent only once the stream shows it ends here.
                        self.last = Some(chunk);
                        continue;
                    }
                    return Poll::Ready(Some(Ok(Frame::data(chunk))));
                }
                Some(Err(error)) => {
                    self.done = true;
                    return Poll::Ready(Some(Err(error)));
                }
                None => {
                    self.done = true;
                    if let Some(last) = self.last.take() {
                        return Poll::Ready(Some(Ok(Frame::data(last))));
                    }
                    if self.remaining > 0 {
                        return self.fail(format!(
                            "request body ended {} bytes short of its Content-Length of {} bytes",
                            self.remaining, self.declared
                        ));
                    }
                    return Poll::Ready(None);
                }
            }
        }
    }

    fn fail(&mut self, message: String) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        self.done = true;
        self.last = None;
        Poll::Ready(Some(Err(message.into())))
    }
}

impl Default for RequestBody {
    fn default() -> RequestBody {
        RequestBody::empty()
    }
}

impl fmt::Debug for RequestBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.inner {
            RequestInner::Empty => f.write_str("RequestBody::Empty"),
            RequestInner::Full(bytes) => f
                .debug_tuple("RequestBody::Full")
                .field(&bytes.as_ref().map_or(0, Bytes::len))
                .finish(),
            RequestInner::Stream(_) => f.write_str("RequestBody::Stream"),
            RequestInner::Declared(declared) => f
                .debug_tuple("RequestBody::Stream")
                .field(&declared.declared)
                .finish(),
        }
    }
}

impl From<Bytes> for RequestBody {
    fn from(bytes: Bytes) -> RequestBody {
        RequestBody::full(bytes)
    }
}

impl From<Vec<u8>> for RequestBody {
    fn from(bytes: Vec<u8>) -> RequestBody {
        RequestBody::full(bytes)
    }
}

impl From<String> for RequestBody {
    fn from(text: String) -> RequestBody {
        RequestBody::full(text)
    }
}

impl From<&'static str> for RequestBody {
    fn from(text: &'static str) -> RequestBody {
        RequestBody::full(Bytes::from_static(text.as_bytes()))
    }
}

impl From<&'static [u8]> for RequestBody {
    fn from(bytes: &'static [u8]) -> RequestBody {
        RequestBody::full(Bytes::from_static(bytes))
    }
}

impl Body for RequestBody {
    type Data = Bytes;
    type Error = BoxError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, BoxError>>> {
        match &mut self.inner {
            RequestInner::Empty => Poll::Ready(None),
            RequestInner::Full(bytes) => Poll::Ready(bytes.take().map(|b| Ok(Frame::data(b)))),
            RequestInner::Stream(stream) => loop {
                match ready!(stream.get_mut().as_mut().poll_next(cx)) {
                    // An empty chunk would end a chunked message early: skip it.
                    Some(Ok(chunk)) if chunk.is_empty() => continue,
                    Some(Ok(chunk)) => return Poll::Ready(Some(Ok(Frame::data(chunk)))),
                    Some(Err(error)) => return Poll::Ready(Some(Err(error))),
                    None => return Poll::Ready(None),
                }
            },
            RequestInner::Declared(declared) => declared.poll_frame(cx),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.inner {
            RequestInner::Empty => true,
            RequestInner::Full(bytes) => bytes.is_none(),
            RequestInner::Stream(_) => false,
            RequestInner::Declared(declared) => declared.done,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.inner {
            RequestInner::Empty => SizeHint::with_exact(0),
            RequestInner::Full(bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            RequestInner::Stream(_) => SizeHint::default(),
            RequestInner::Declared(declared) => SizeHint::with_exact(declared.declared),
        }
    }
}

pin_project_lite::pin_project! {
    /// A stream whose error type is boxed.
    struct MapErr<S> {
        #[pin]
        stream: S,
    }
}

impl<S, E> Stream for MapErr<S>
where
    S: Stream<Item = Result<Bytes, E>>,
    E: Into<BoxError>,
{
    type Item = Result<Bytes, BoxError>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        self.project()
            .stream
            .poll_next(cx)
            .map(|item| item.map(|r| r.map_err(Into::into)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.stream.size_hint()
    }
}

/// A response body, pulled from the connection only as it is read.
///
/// It is both an [`http_body::Body`] and a [`Stream`] of data chunks (trailers are
/// skipped by the `Stream` view). Errors are [`NetworkError`]s:
/// [`LengthMismatch`](NetworkError::LengthMismatch) when the peer closes before the
/// declared `Content-Length`, [`Protocol`](NetworkError::Protocol) for a broken chunked
/// body, [`Timeout`](NetworkError::Timeout)`(`[`Idle`](TimeoutKind::Idle)`)` when the read
/// timeout passes without a byte, and [`Decode`](NetworkError::Decode) for a corrupt
/// content coding (see [`decode`](super::decode)).
///
/// A body read to its end returns its HTTP/1 connection to the pool; a body dropped
/// earlier closes the connection instead, so an unread body never leaks one.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// use http_body_util::BodyExt;
/// use whatwg_fetch::net::ResponseBody;
///
/// let body = ResponseBody::full("{}");
/// assert_eq!(body.collect().await.unwrap().to_bytes(), "{}");
/// # });
/// ```
pub struct ResponseBody {
    inner: ResponseInner,
}

#[expect(
    clippy::large_enum_variant,
    reason = "`Incoming` is the common variant: boxing it would allocate for every response \
              to save bytes on the rare ones"
)]
enum ResponseInner {
    Empty,
    Full(Option<Bytes>),
    Incoming(IncomingBody),
    Stream(SyncWrapper<BoxResponseStream>),
    /// A body decoded from another per its content codings (see `net/decode.rs`).
    Decoded(SyncWrapper<Pin<Box<Pipeline>>>),
}

/// The body of a response read from a connection: HTTP/1.1 or HTTP/2.
struct IncomingBody {
    body: Source,
    /// The HTTP/1 connection the body is read from, given back to the pool at the end of
    /// the body.
    conn: Option<Pooled>,
    /// Whether the response declared a `Content-Length`: an early close is then a
    /// length mismatch rather than a broken message.
    declared_length: bool,
    /// The read timeout.
    read_timeout: Option<Duration>,
    /// The timer of a body without an HTTP/1 connection, made the first time it waits for
    /// bytes; a body with one uses the connection's (see `net/timer.rs`). A body that
    /// arrives with its head never touches either.
    idle: Option<ReadTimer>,
    /// Whether the timer is set for the current wait: cleared by each frame, so that it
    /// is set again (to the read timeout from then) only when the body next waits.
    armed: bool,
    /// Set after an error or the end: the body yields nothing more.
    done: bool,
    /// The bytes of the body received so far, as sent (before any content decoding).
    received: u64,
    /// The connection the response came over, and when its request went out.
    info: Recorded,
}

/// Where an [`IncomingBody`]'s bytes come from.
enum Source {
    /// An HTTP/1.1 body, read from the connection in `IncomingBody::conn`.
    H1(BodyReader),
    #[cfg_attr(not(feature = "http2"), allow(dead_code))]
    /// An HTTP/2 stream's body (see `net/h2.rs`), which keeps its connection open while
    /// it is read.
    H2(H2Body),
    /// Nothing: the response's stream is a tunnel now (an extended `CONNECT`'s, see
    /// `net/h2.rs`).
    #[cfg_attr(not(feature = "http2"), allow(dead_code))]
    Tunnel,
}

impl Source {
    fn is_end_stream(&self) -> bool {
        match self {
            Source::H1(reader) => reader.is_end(),
            Source::H2(body) => body.is_end_stream(),
            Source::Tunnel => true,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match self {
            Source::H1(reader) => match reader.remaining() {
                Some(left) => SizeHint::with_exact(left),
                None => SizeHint::default(),
            },
            Source::H2(body) => body.size_hint(),
            Source::Tunnel => SizeHint::with_exact(0),
        }
    }
}

impl ResponseBody {
    /// A body with no bytes.
    pub fn empty() -> ResponseBody {
        ResponseBody {
            inner: ResponseInner::Empty,
        }
    }

    /// A body of exactly `bytes`, for tests and for transports that buffer.
    pub fn full(bytes: impl Into<Bytes>) -> ResponseBody {
        ResponseBody {
            inner: ResponseInner::Full(Some(bytes.into())),
        }
    }

    /// A body streamed from `stream`.
    pub fn from_stream<S>(stream: S) -> ResponseBody
    where
        S: Stream<Item = Result<Bytes, NetworkError>> + Send + 'static,
    {
        ResponseBody {
            inner: ResponseInner::Stream(SyncWrapper::new(Box::pin(stream))),
        }
    }

    /// The body of an HTTP/2 response. (It tells a stream cut short from its end
    /// itself.)
    #[cfg_attr(not(feature = "http2"), allow(dead_code))]
    pub(crate) fn h2(body: H2Body, read_timeout: Option<Duration>, info: Recorded) -> ResponseBody {
        ResponseBody::from_source(Source::H2(body), None, false, read_timeout, info)
    }

    /// The empty body of an extended `CONNECT`'s `2xx`, whose stream was handed over:
    /// what is known of the response's connection.
    #[cfg_attr(not(feature = "http2"), allow(dead_code))]
    pub(crate) fn tunnel(info: Recorded) -> ResponseBody {
        ResponseBody::from_source(Source::Tunnel, None, false, None, info)
    }

    /// The body of an HTTP/1.1 response, read by `reader` from `conn`.
    pub(crate) fn h1(
        reader: BodyReader,
        conn: Pooled,
        read_timeout: Option<Duration>,
        info: Recorded,
    ) -> ResponseBody {
        let declared_length = reader.is_sized();
        ResponseBody::from_source(
            Source::H1(reader),
            Some(conn),
            declared_length,
            read_timeout,
            info,
        )
    }

    /// The empty body of a `101 Switching Protocols` whose connection was handed over
    /// (see `crate::upgrade`): what is known of the response's connection, and no
    /// connection to give back.
    pub(crate) fn switched(reader: BodyReader, info: Recorded) -> ResponseBody {
        ResponseBody::from_source(Source::H1(reader), None, false, None, info)
    }

    fn from_source(
        body: Source,
        conn: Option<Pooled>,
        declared_length: bool,
        read_timeout: Option<Duration>,
        info: Recorded,
    ) -> ResponseBody {
        let mut incoming = IncomingBody {
            body,
            conn,
            declared_length,
            read_timeout,
            idle: None,
            armed: false,
            done: false,
            received: 0,
            info,
        };
        if incoming.body.is_end_stream() {
            // Nothing to read (HEAD, 204, 304, `Content-Length: 0`): the connection is
            // free as soon as the head has arrived.
            incoming.finish();
        }
        ResponseBody {
            inner: ResponseInner::Incoming(incoming),
        }
    }

    /// `pipeline`, the body that decodes another.
    pub(crate) fn decoded(pipeline: Pipeline) -> ResponseBody {
        ResponseBody {
            inner: ResponseInner::Decoded(SyncWrapper::new(Box::pin(pipeline))),
        }
    }

    /// What [`HyperTransport`](super::HyperTransport) knows of the connection this body's
    /// response came over (see [`ConnectionInfo`]); `None` for a body made any other way.
    /// It takes `&mut self` because a decoding body is reached only so.
    pub fn connection_info(&mut self) -> Option<ConnectionInfo> {
        match &mut self.inner {
            ResponseInner::Incoming(incoming) => Some(incoming.info.info()),
            ResponseInner::Decoded(pipeline) => {
                pipeline.get_mut().as_mut().source_mut().connection_info()
            }
            ResponseInner::Empty | ResponseInner::Full(_) | ResponseInner::Stream(_) => None,
        }
    }

    /// The TLS of the connection this body's response came over, as
    /// [`HyperTransport`](super::HyperTransport) recorded it when the connection was made
    /// (see [`TlsInfo`](super::TlsInfo)); `None` without TLS to the origin, or for a body
    /// made any other way.
    pub fn tls_info(&mut self) -> Option<&super::TlsInfo> {
        match &mut self.inner {
            ResponseInner::Incoming(incoming) => incoming.info.peer.as_ref()?.tls.as_ref(),
            ResponseInner::Decoded(pipeline) => pipeline.get_mut().as_mut().source_mut().tls_info(),
            ResponseInner::Empty | ResponseInner::Full(_) | ResponseInner::Stream(_) => None,
        }
    }

    /// What is known of the other end of the connection this body's response came over,
    /// shared with every response on it.
    pub(crate) fn peer(&mut self) -> Option<std::sync::Arc<crate::peer::Peer>> {
        match &mut self.inner {
            ResponseInner::Incoming(incoming) => incoming.info.peer.clone(),
            ResponseInner::Decoded(pipeline) => pipeline.get_mut().as_mut().source_mut().peer(),
            ResponseInner::Empty | ResponseInner::Full(_) | ResponseInner::Stream(_) => None,
        }
    }

    /// The bytes of the body read from the connection so far, as they were sent, before
    /// any content decoding: the spec's
    /// [encoded size](https://fetch.spec.whatwg.org/#fetch-timing-info-encoded-body-size)
    /// of a response body. `None` for a body not read from a connection.
    pub fn encoded_size(&mut self) -> Option<u64> {
        match &mut self.inner {
            ResponseInner::Incoming(incoming) => Some(incoming.received),
            ResponseInner::Decoded(pipeline) => {
                pipeline.get_mut().as_mut().source_mut().encoded_size()
            }
            ResponseInner::Empty | ResponseInner::Full(_) | ResponseInner::Stream(_) => None,
        }
    }
}

impl Default for ResponseBody {
    fn default() -> ResponseBody {
        ResponseBody::empty()
    }
}

impl fmt::Debug for ResponseBody {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = match &self.inner {
            ResponseInner::Empty => "Empty",
            ResponseInner::Full(_) => "Full",
            ResponseInner::Incoming(_) => "Incoming",
            ResponseInner::Stream(_) => "Stream",
            ResponseInner::Decoded(_) => "Decoded",
        };
        f.debug_tuple("ResponseBody").field(&name).finish()
    }
}

impl IncomingBody {
    /// The body ended cleanly: give the connection back, if it can serve another request.
    fn finish(&mut self) {
        self.done = true;
        self.idle = None;
        if let Some(mut conn) = self.conn.take() {
            if let Source::H1(reader) = &self.body {
                if !reader.reusable(&conn.tx) {
                    conn.tx.close();
                }
            }
            conn.release();
        }
    }

    /// The body failed: close the connection.
    fn fail(&mut self, error: NetworkError) -> Poll<Option<Result<Frame<Bytes>, NetworkError>>> {
        self.done = true;
        self.idle = None;
        self.conn = None;
        Poll::Ready(Some(Err(error)))
    }

    /// While the body waits for bytes: whether the read timeout has passed since it
    /// began to wait, after the head or the last frame. The timer is set here, when there
    /// is a wait, not for every frame.
    fn idle_timer_elapsed(&mut self, cx: &mut Context<'_>) -> bool {
        let Some(timeout) = self.read_timeout else {
            return false;
        };
        let timer = match &mut self.conn {
            Some(conn) => &mut conn.tx.reused().read_timer,
            None => &mut self.idle,
        };
        if !self.armed {
            // Outside a Tokio runtime there is no timer to wait on.
            if ReadTimer::set(timer, timeout).is_none() {
                return false;
            }
            self.armed = true;
        }
        timer.as_mut().is_some_and(|timer| timer.poll_elapsed(cx))
    }

    fn poll_frame(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, NetworkError>>> {
        if self.done {
            return Poll::Ready(None);
        }
        let body = match &mut self.body {
            Source::H2(body) => body,
            Source::Tunnel => return Poll::Ready(None),
            Source::H1(reader) => {
                let Some(conn) = self.conn.as_mut() else {
                    return Poll::Ready(None);
                };
                let polled = reader.poll_data(&mut conn.tx, cx);
                let end = reader.is_end();
                return match polled {
                    Poll::Ready(Some(Ok(data))) => {
                        self.received = self.received.saturating_add(data.len() as u64);
                        if end {
                            self.finish();
                        } else {
                            self.armed = false;
                        }
                        Poll::Ready(Some(Ok(Frame::data(data))))
                    }
                    Poll::Ready(Some(Err(error))) => {
                        let error = if self.declared_length && error.is_body_cut() {
                            NetworkError::LengthMismatch
                        } else {
                            NetworkError::Protocol(Box::new(error))
                        };
                        self.fail(error)
                    }
                    Poll::Ready(None) => {
                        self.finish();
                        Poll::Ready(None)
                    }
                    Poll::Pending => self.pending(cx),
                };
            }
        };
        match body.poll_frame(cx) {
            Poll::Ready(Some(Ok(frame))) => {
                if let Some(data) = frame.data_ref() {
                    self.received = self.received.saturating_add(data.len() as u64);
                }
                if self.body.is_end_stream() {
                    self.finish();
                } else {
                    self.armed = false;
                }
                Poll::Ready(Some(Ok(frame)))
            }
            Poll::Ready(Some(Err(error))) => self.fail(error),
            Poll::Ready(None) => {
                self.finish();
                Poll::Ready(None)
            }
            Poll::Pending => self.pending(cx),
        }
    }

    /// The body waits for bytes: fails it if the read timeout has passed.
    fn pending(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, NetworkError>>> {
        if self.idle_timer_elapsed(cx) {
            let after = self.read_timeout.unwrap_or_default();
            return self.fail(NetworkError::Timeout {
                kind: TimeoutKind::Idle,
                after,
            });
        }
        Poll::Pending
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

impl Body for ResponseBody {
    type Data = Bytes;
    type Error = NetworkError;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, NetworkError>>> {
        match &mut self.inner {
            ResponseInner::Empty => Poll::Ready(None),
            ResponseInner::Full(bytes) => Poll::Ready(
                bytes
                    .take()
                    .filter(|b| !b.is_empty())
                    .map(|b| Ok(Frame::data(b))),
            ),
            ResponseInner::Incoming(incoming) => incoming.poll_frame(cx),
            ResponseInner::Stream(stream) => stream
                .get_mut()
                .as_mut()
                .poll_next(cx)
                .map(|item| item.map(|r| r.map(Frame::data))),
            ResponseInner::Decoded(pipeline) => pipeline
                .get_mut()
                .as_mut()
                .poll_next(cx)
                .map(|item| item.map(|r| r.map(Frame::data))),
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.inner {
            ResponseInner::Empty => true,
            ResponseInner::Full(bytes) => bytes.as_ref().is_none_or(Bytes::is_empty),
            ResponseInner::Incoming(incoming) => incoming.done || incoming.body.is_end_stream(),
            ResponseInner::Stream(_) | ResponseInner::Decoded(_) => false,
        }
    }

    fn size_hint(&self) -> SizeHint {
        match &self.inner {
            ResponseInner::Empty => SizeHint::with_exact(0),
            ResponseInner::Full(bytes) => {
                SizeHint::with_exact(bytes.as_ref().map_or(0, |b| b.len() as u64))
            }
            ResponseInner::Incoming(incoming) if incoming.done => SizeHint::with_exact(0),
            ResponseInner::Incoming(incoming) => incoming.body.size_hint(),
            ResponseInner::Stream(_) | ResponseInner::Decoded(_) => SizeHint::default(),
        }
    }
}

impl Stream for ResponseBody {
    type Item = Result<Bytes, NetworkError>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        loop {
            match ready!(self.as_mut().poll_frame(cx)) {
                Some(Ok(frame)) => match frame.into_data() {
                    Ok(data) if data.is_empty() => continue,
                    Ok(data) => return Poll::Ready(Some(Ok(data))),
                    // Trailers: not part of the byte stream.
                    Err(_trailers) => continue,
                },
                Some(Err(error)) => return Poll::Ready(Some(Err(error))),
                None => return Poll::Ready(None),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

    fn assert_send_sync<T: Send + Sync>() {}

    #[test]
    fn bodies_are_send_and_sync() {
        assert_send_sync::<RequestBody>();
        assert_send_sync::<ResponseBody>();
    }

    #[tokio::test]
    async fn full_request_body_yields_once_with_exact_size() {
        let mut body = RequestBody::from("abc");
        assert_eq!(body.size_hint().exact(), Some(3));
        assert!(!body.is_end_stream());
        let frame = body.frame().await.and_then(|f| f.ok());
        assert_eq!(
            frame.and_then(|f| f.into_data().ok()),
            Some(Bytes::from("abc"))
        );
        assert!(body.is_end_stream());
        assert!(body.frame().await.is_none());
    }

    #[tokio::test]
    async fn empty_full_body_is_empty() {
        let body = RequestBody::full(Vec::new());
        assert!(body.is_end_stream());
        assert_eq!(body.size_hint().exact(), Some(0));
    }

    #[tokio::test]
    async fn stream_request_body_skips_empty_chunks() {
        let chunks: Vec<Result<Bytes, std::io::Error>> =
            vec![Ok(Bytes::from("a")), Ok(Bytes::new()), Ok(Bytes::from("b"))];
        let body = RequestBody::from_stream(futures_util::stream::iter(chunks));
        assert_eq!(body.size_hint().exact(), None);
        let collected = body.collect().await.map(|c| c.to_bytes()).ok();
        assert_eq!(collected, Some(Bytes::from("ab")));
    }

    /// Collects a stream body of `chunks` held to `declared` bytes: the bytes it yields,
    /// and whether it ended in an error.
    async fn declared(chunks: &[&'static str], declared: u64) -> (Vec<u8>, bool) {
        let chunks: Vec<Result<Bytes, std::io::Error>> = chunks
            .iter()
            .map(|chunk| Ok(Bytes::from_static(chunk.as_bytes())))
            .collect();
        let mut body = RequestBody::from_stream(futures_util::stream::iter(chunks))
            .with_declared_length(declared);
        assert_eq!(body.size_hint().exact(), Some(declared));
        let mut bytes = Vec::new();
        while let Some(frame) = body.frame().await {
            match frame {
                Ok(frame) => bytes.extend_from_slice(&frame.into_data().unwrap()),
                Err(_) => return (bytes, true),
            }
        }
        assert!(body.is_end_stream());
        (bytes, false)
    }

    #[tokio::test]
    async fn a_stream_of_its_declared_length_goes_through() {
        assert_eq!(
            declared(&["ab", "", "c"], 3).await,
            (b"abc".to_vec(), false)
        );
        assert_eq!(declared(&[], 0).await, (Vec::new(), false));
    }

    #[tokio::test]
    async fn a_stream_shorter_than_declared_fails_at_its_end() {
        assert_eq!(declared(&["ab"], 3).await, (b"ab".to_vec(), true));
        assert_eq!(declared(&[], 1).await, (Vec::new(), true));
    }

    #[tokio::test]
    async fn a_stream_longer_than_declared_fails_before_its_last_declared_byte() {
        // The chunk that completes the length is held until the stream ends.
        assert_eq!(declared(&["ab", "c", "d"], 3).await, (b"ab".to_vec(), true));
        assert_eq!(declared(&["abcd"], 3).await, (Vec::new(), true));
        assert_eq!(declared(&["a"], 0).await, (Vec::new(), true));
    }

    #[test]
    fn only_empty_and_buffered_bodies_can_be_sent_again() {
        assert!(RequestBody::empty().try_clone().is_some());
        let full = RequestBody::from("abc").try_clone().unwrap();
        assert_eq!(full.size_hint().exact(), Some(3));
        let stream = futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::from("a"))]);
        assert!(RequestBody::from_stream(stream).try_clone().is_none());
    }

    #[tokio::test]
    async fn response_body_streams_bytes() {
        use futures_util::StreamExt;
        let chunks: Vec<Result<Bytes, NetworkError>> =
            vec![Ok(Bytes::from("x")), Ok(Bytes::from("y"))];
        let mut body = ResponseBody::from_stream(futures_util::stream::iter(chunks));
        assert_eq!(
            body.next().await.and_then(|r| r.ok()),
            Some(Bytes::from("x"))
        );
        assert_eq!(
            body.next().await.and_then(|r| r.ok()),
            Some(Bytes::from("y"))
        );
        assert!(body.next().await.is_none());
    }
}
