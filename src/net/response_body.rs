//! The response body that crosses the [`Transport`](super::Transport) boundary:
//! [`ResponseBody`]. Bytes leave the socket only when the reader polls, and the connection
//! goes back to the pool only once the body has reached its end.

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll, ready};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;
use http_body::{Body, Frame, SizeHint};
use sync_wrapper::SyncWrapper;

use super::h1::BodyReader;
use super::h2::H2Body;
use super::pool::Pooled;
use super::timer::ReadTimer;
use super::timing::{ConnectionInfo, Recorded};
use crate::error::{NetworkError, TimeoutKind};

type BoxResponseStream = Pin<Box<dyn Stream<Item = Result<Bytes, NetworkError>> + Send>>;

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

/// (`Incoming`, the common variant, is boxed: a response moves through the network
/// layer and into the fetch layer's types some ten times, each a copy of the whole
/// `http::Response`, which the box brings under 256 bytes, where `memcpy` is at its
/// quickest. One allocation per response costs less than those copies of 280 bytes more:
/// `callgrind_fetch`, HTTP/2, 38,589 instructions a request → 38,500; HTTP/1.1, client and
/// server, 33,000 → 32,700.)
enum ResponseInner {
    Empty,
    Full(Option<Bytes>),
    Incoming(Box<IncomingBody>),
    Stream(SyncWrapper<BoxResponseStream>),
    /// A body decoded from another per its content codings (see `net/decode.rs`).
    Decoded(SyncWrapper<Pin<Box<dyn Decoding>>>),
}

/// A body decoded from another: the decoded bytes, and the body they are read from. The
/// decoders (`net/decode.rs`) stand above this room, which names none of them.
pub(crate) trait Decoding: Stream<Item = Result<Bytes, NetworkError>> + Send {
    /// The body being decoded.
    fn source_mut(self: Pin<&mut Self>) -> &mut ResponseBody;

    /// The trailer fields the body being decoded ended with, once, after the decoded
    /// bytes have ended.
    fn take_trailers(self: Pin<&mut Self>) -> Option<http::HeaderMap>;
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
    /// The timer of a body without an HTTP/1 connection or an HTTP/2 stream, made the
    /// first time it waits for bytes; a body with one uses the connection's, and an
    /// HTTP/2 body its request's (see `net/timer.rs`). A body that arrives with its head
    /// never touches any.
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
    /// An HTTP/3 stream's body (see `net/h3.rs`): boxed, as it is four times the size of
    /// the others, which every body would carry.
    #[cfg(feature = "http3")]
    H3(Box<super::h3::H3Body>),
    /// A pipelined HTTP/1.1 body (see `net/pipeline.rs`), handed over by its
    /// connection's task.
    Pipe(super::pipeline::PipeBody),
    /// Nothing: the response's stream is a tunnel now (an extended `CONNECT`'s, see
    /// `net/h2.rs`).
    #[cfg_attr(not(feature = "http2"), allow(dead_code))]
    Tunnel,
}

impl Source {
    fn is_end_stream(&self) -> bool {
        match self {
            Source::H1(reader) => reader.is_end() && !reader.has_trailers(),
            Source::H2(body) => body.is_end_stream(),
            Source::Pipe(body) => body.is_end_stream(),
            #[cfg(feature = "http3")]
            Source::H3(body) => body.is_end_stream(),
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
            Source::Pipe(body) => body.size_hint(),
            #[cfg(feature = "http3")]
            Source::H3(body) => body.size_hint(),
            Source::Tunnel => SizeHint::with_exact(0),
        }
    }
}

impl ResponseBody {
    /// A body with no bytes.
    ///
    /// ```
    /// use http_body::Body as _;
    /// use whatwg_fetch::net::ResponseBody;
    ///
    /// assert!(ResponseBody::empty().is_end_stream());
    /// ```
    pub fn empty() -> ResponseBody {
        ResponseBody {
            inner: ResponseInner::Empty,
        }
    }

    /// A body of exactly `bytes`, for tests and for transports that buffer.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use http_body_util::BodyExt;
    /// use whatwg_fetch::net::ResponseBody;
    ///
    /// // What a `Transport` of one's own (a cache, a test double) answers with.
    /// let bytes = ResponseBody::full("cached").collect().await?.to_bytes();
    /// assert_eq!(&bytes[..], b"cached");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn full(bytes: impl Into<Bytes>) -> ResponseBody {
        ResponseBody {
            inner: ResponseInner::Full(Some(bytes.into())),
        }
    }

    /// A body streamed from `stream`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use bytes::Bytes;
    /// use http_body_util::BodyExt;
    /// use whatwg_fetch::net::ResponseBody;
    ///
    /// let chunks = futures_util::stream::iter(["a", "b"].map(|chunk| Ok(Bytes::from(chunk))));
    /// let bytes = ResponseBody::from_stream(chunks).collect().await?.to_bytes();
    /// assert_eq!(&bytes[..], b"ab");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
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

    /// The body of an HTTP/3 response. (It holds the data to the `Content-Length`
    /// itself.)
    #[cfg(feature = "http3")]
    pub(crate) fn h3(
        body: super::h3::H3Body,
        read_timeout: Option<Duration>,
        info: Recorded,
    ) -> ResponseBody {
        ResponseBody::from_source(Source::H3(Box::new(body)), None, false, read_timeout, info)
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

    /// The body of a pipelined HTTP/1.1 response. (Its connection's task times its reads
    /// and tells a body cut short from its end.)
    pub(crate) fn pipelined(body: super::pipeline::PipeBody, info: Recorded) -> ResponseBody {
        ResponseBody::from_source(Source::Pipe(body), None, false, None, info)
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
        let mut incoming = Box::new(IncomingBody {
            body,
            conn,
            declared_length,
            read_timeout,
            idle: None,
            armed: false,
            done: false,
            received: 0,
            info,
        });
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
    pub(crate) fn decoded(pipeline: impl Decoding + 'static) -> ResponseBody {
        ResponseBody {
            inner: ResponseInner::Decoded(SyncWrapper::new(Box::pin(pipeline))),
        }
    }

    /// What [`HyperTransport`](super::HyperTransport) knows of the connection this body's
    /// response came over (see [`ConnectionInfo`]); `None` for a body made any other way.
    /// It takes `&mut self` because a decoding body is reached only so.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello").await;
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// # });
    /// use http_body_util::BodyExt;
    /// use whatwg_fetch::net::{HyperTransport, RequestBody, SendOptions, Transport};
    ///
    /// let transport = HyperTransport::new()?;
    /// let request = http::Request::get(format!("http://{addr}/")).body(RequestBody::empty())?;
    /// let mut body = transport.send(request, SendOptions::new()).await?.into_body();
    /// let info = body.connection_info().expect("a response of the transport");
    /// assert_eq!(info.remote_addr, Some(addr));
    /// assert!(!info.secure && !info.reused);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
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
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello").await;
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// # });
    /// use http_body_util::BodyExt;
    /// use whatwg_fetch::net::{HyperTransport, RequestBody, SendOptions, Transport};
    ///
    /// let transport = HyperTransport::new()?;
    /// let request = http::Request::get(format!("http://{addr}/")).body(RequestBody::empty())?;
    /// let mut body = transport.send(request, SendOptions::new()).await?.into_body();
    /// // Plain `http:`: no TLS to tell of.
    /// assert!(body.tls_info().is_none());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn tls_info(&mut self) -> Option<&super::tls::TlsInfo> {
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
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello").await;
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// # });
    /// use http_body_util::BodyExt;
    /// use whatwg_fetch::net::{HyperTransport, RequestBody, SendOptions, Transport};
    ///
    /// let transport = HyperTransport::new()?;
    /// let request = http::Request::get(format!("http://{addr}/")).body(RequestBody::empty())?;
    /// let mut body = transport.send(request, SendOptions::new()).await?.into_body();
    /// body.frame().await;
    /// // The five bytes of `hello`, as they came.
    /// assert_eq!(body.encoded_size(), Some(5));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
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
        let timer = match (&mut self.conn, &mut self.body) {
            (Some(conn), _) => &mut conn.tx.reused().read_timer,
            (None, Source::H2(body)) => body.read_timer().unwrap_or(&mut self.idle),
            (None, _) => &mut self.idle,
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
            // A chunked HTTP/1.1 body's trailer fields come after its end.
            if let Source::H1(reader) = &mut self.body {
                if let Some(trailers) = reader.take_trailers() {
                    return Poll::Ready(Some(Ok(Frame::trailers(trailers))));
                }
            }
            return Poll::Ready(None);
        }
        let polled = match &mut self.body {
            Source::H2(body) => body.poll_frame(cx),
            Source::Pipe(body) => body.poll_frame(cx),
            #[cfg(feature = "http3")]
            Source::H3(body) => body.poll_frame(cx),
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
                        match reader_trailers(&mut self.body) {
                            Some(trailers) => Poll::Ready(Some(Ok(Frame::trailers(trailers)))),
                            None => Poll::Ready(None),
                        }
                    }
                    Poll::Pending => self.pending(cx),
                };
            }
        };
        match polled {
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

/// The trailer fields of an HTTP/1.1 body that ended with some, once.
fn reader_trailers(source: &mut Source) -> Option<http::HeaderMap> {
    match source {
        Source::H1(reader) => reader.take_trailers(),
        _ => None,
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
            ResponseInner::Decoded(pipeline) => {
                let mut pipeline = pipeline.get_mut().as_mut();
                match ready!(pipeline.as_mut().poll_next(cx)) {
                    Some(item) => Poll::Ready(Some(item.map(Frame::data))),
                    // The decoded bytes have ended: then the trailer fields, if any.
                    None => Poll::Ready(pipeline.take_trailers().map(|t| Ok(Frame::trailers(t)))),
                }
            }
        }
    }

    fn is_end_stream(&self) -> bool {
        match &self.inner {
            ResponseInner::Empty => true,
            ResponseInner::Full(bytes) => bytes.as_ref().is_none_or(Bytes::is_empty),
            ResponseInner::Incoming(incoming) => {
                incoming.body.is_end_stream()
                    || (incoming.done
                        && !matches!(&incoming.body, Source::H1(reader) if reader.has_trailers()))
            }
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

    #[test]
    fn a_response_of_the_network_layer_stays_within_256_bytes() {
        // Past 256 bytes each of its moves takes `memcpy`'s slower loop (see
        // `ResponseInner`).
        let size = std::mem::size_of::<http::Response<ResponseBody>>();
        assert!(size <= 256, "{size} bytes");
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
