//! The request body that crosses the [`Transport`](super::Transport) boundary:
//! [`RequestBody`], empty, one buffer, or a stream sent with backpressure (HTTP/1
//! `Transfer-Encoding: chunked` when its length is unknown).

use std::fmt;
use std::pin::Pin;
use std::task::{Context, Poll, ready};

use bytes::Bytes;
use futures_core::Stream;
use http_body::{Body, Frame, SizeHint};
use sync_wrapper::SyncWrapper;

use crate::error::BoxError;

type BoxRequestStream = Pin<Box<dyn Stream<Item = Result<Bytes, BoxError>> + Send>>;

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
    ///
    /// ```
    /// use http_body::Body as _;
    /// use whatwg_fetch::net::RequestBody;
    ///
    /// let body = RequestBody::empty();
    /// assert!(body.is_end_stream());
    /// ```
    pub fn empty() -> RequestBody {
        RequestBody {
            inner: RequestInner::Empty,
        }
    }

    /// A body of exactly `bytes`.
    ///
    /// ```
    /// use http_body::Body as _;
    /// use whatwg_fetch::net::RequestBody;
    ///
    /// let body = RequestBody::full(r#"{"id": 7}"#);
    /// assert_eq!(body.size_hint().exact(), Some(9));
    /// ```
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
    /// transport reports a [`NetworkError::Protocol`](crate::error::NetworkError::Protocol)
    /// whose source chain holds it.
    ///
    /// ```
    /// use bytes::Bytes;
    /// use http_body::Body as _;
    /// use whatwg_fetch::net::RequestBody;
    ///
    /// let chunks = futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::from_static(b"part"))]);
    /// let body = RequestBody::from_stream(chunks);
    /// // Its length is not known before it is sent: chunked over HTTP/1.1.
    /// assert_eq!(body.size_hint().exact(), None);
    /// ```
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

#[cfg(test)]
mod tests {
    use super::*;
    use http_body_util::BodyExt;

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
}
