//! Bodies: [Fetch § 2.2.6 Bodies](https://fetch.spec.whatwg.org/#bodies),
//! [§ 5.3 BodyInit unions](https://fetch.spec.whatwg.org/#bodyinit-unions) and the
//! consuming half of the [Body mixin](https://fetch.spec.whatwg.org/#body-mixin).
//!
//! A [`Body`] is the spec's *body*: a stream of [`Bytes`] plus its *source* and *length*. It
//! is pulled, never pushed: bytes are produced only when the reader polls, so a slow reader
//! holds back a fast producer. It implements [`futures_core::Stream`] and
//! [`http_body::Body`].
//!
//! Not in the spec: a body from the network carries caps on the bytes it may deliver,
//! one for every way of reading it and one for reading it whole (see
//! [`ClientBuilder::max_response_body_size`](crate::ClientBuilder::max_response_body_size)
//! and [`ClientBuilder::max_buffered_body_size`](crate::ClientBuilder::max_buffered_body_size));
//! they are counted here, a comparison per chunk, so that they hold however the body is
//! read. Other bodies carry none.
//!
//! ```
//! # tokio_test::block_on(async {
//! use whatwg_fetch::{Request, RequestInit};
//!
//! let init = RequestInit { method: Some("POST".into()), body: Some("payload".into()), ..RequestInit::default() };
//! let mut request = Request::new("https://api.example/", init)?;
//! // A body is read once.
//! assert_eq!(request.text().await?, "payload");
//! assert!(request.body_used() && request.text().await.is_err());
//! # Ok::<(), whatwg_fetch::Error>(())
//! # }).unwrap();
//! ```

use std::collections::VecDeque;
use std::fmt;
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll, Wake, Waker};

use bytes::Bytes;
use futures_core::Stream;
use futures_util::StreamExt;
use sync_wrapper::SyncWrapper;

use crate::blob::{Blob, BlobBytes};
use crate::error::{BoxError, Error, ErrorKind, NetworkError, Result};
use crate::form_data::{self, FormData};
use crate::infra::isomorphic_encode;
use crate::mime::MimeType;

/// A boxed stream of body chunks, as a [`Body`] holds it.
type BoxStream = Pin<Box<dyn Stream<Item = Result<Bytes>> + Send + 'static>>;

/// A boxed stream of a network response's chunks, as a [`Body`] holds it: its errors are
/// [`NetworkError`]s, which reach the reader as `TypeError`s.
type NetworkStream =
    Pin<Box<dyn Stream<Item = std::result::Result<Bytes, NetworkError>> + Send + 'static>>;

/// A [body](https://fetch.spec.whatwg.org/#concept-body): a stream of bytes, with the
/// spec's *source* and *length*.
///
/// Reading a body (polling it as a [`Stream`], or consuming it with [`Body::bytes`],
/// [`Body::text`], [`Body::json`]) marks it *disturbed*; a disturbed body cannot be read
/// again through a [`Request`](crate::request::Request) or
/// [`Response`](crate::response::Response).
///
/// ```
/// # tokio_test::block_on(async {
/// use whatwg_fetch::body::Body;
///
/// let body = Body::from("hello");
/// assert_eq!(body.length(), Some(5));
/// assert_eq!(body.text().await?, "hello");
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
pub struct Body {
    /// <https://fetch.spec.whatwg.org/#concept-body-stream>.
    stream: Inner,
    /// <https://fetch.spec.whatwg.org/#concept-body-source>, initially null.
    ///
    /// A Blob or FormData source is kept as the bytes it serializes to: re-extracting it
    /// (on a redirect) must give the same bytes, boundary included. Bytes of files on disk
    /// stay references to them, read again when the source is.
    source: Option<BlobBytes>,
    /// <https://fetch.spec.whatwg.org/#concept-body-total-bytes>, initially null, which is
    /// [`NONE`] here (no body is `u64::MAX` bytes long): an `Option<u64>` would take 8 bytes
    /// more, and make `Body` larger than 128 bytes now that a source can be on disk.
    length: u64,
    // Not in the spec: the ReadableStream's "disturbed" flag.
    disturbed: bool,
    // Not in the spec: caps on the bytes the body may deliver (set on bodies from the
    // network), and the bytes delivered so far.
    limit: SizeLimit,
    // Not in the spec: whether `limit.max` is the cap that
    // [`Response::set_max_body_size`](crate::Response::set_max_body_size) set, replacing
    // both of the client's (it names the option in the error). Here beside `disturbed`
    // rather than in `SizeLimit`, whose padding would make `Body` 136 bytes and a
    // `Response` 264: past 256 bytes, each move of a `Response` (about twenty per fetch)
    // takes `memcpy`'s slower loop.
    limit_per_response: bool,
}

/// Caps on the bytes a body may deliver: what
/// [`ClientBuilder::max_response_body_size`](crate::ClientBuilder::max_response_body_size),
/// [`ClientBuilder::max_buffered_body_size`](crate::ClientBuilder::max_buffered_body_size)
/// and [`Response::set_max_body_size`](crate::Response::set_max_body_size) set, and the
/// bytes delivered so far. A body carries no cap unless it came from the network.
///
/// `u64::MAX` stands for "none" (no body can pass it), which keeps this small in every
/// [`Body`], moved with it wherever it goes; which option set `max` is the body's
/// `limit_per_response`.
#[derive(Clone, Copy, Debug)]
struct SizeLimit {
    /// At most this many bytes, however the body is read.
    max: u64,
    /// At most this many bytes when the body is read whole (`bytes`, `text`, `json`, ...).
    max_buffered: u64,
    /// The number of bytes the body says it will deliver, when known before reading it
    /// (a `Content-Length` without content codings): a read that a cap forbids fails at
    /// once, without reading.
    declared: u64,
    /// The bytes delivered so far.
    delivered: u64,
}

/// No cap, or no declared size.
const NONE: u64 = u64::MAX;

impl Default for SizeLimit {
    fn default() -> SizeLimit {
        SizeLimit {
            max: NONE,
            max_buffered: NONE,
            declared: NONE,
            delivered: 0,
        }
    }
}

/// The cap one read is held to, and the option that set it (for the error message).
#[derive(Clone, Copy, Debug)]
struct Cap {
    limit: u64,
    option: &'static str,
}

impl SizeLimit {
    /// The cap on a read, `buffered` (the whole body at once) or not: the smaller of the
    /// limits that apply. `per_response` says that `max` is the cap
    /// [`Response::set_max_body_size`](crate::Response::set_max_body_size) set.
    fn cap(&self, buffered: bool, per_response: bool) -> Option<Cap> {
        let (limit, option) = if per_response {
            (self.max, "the limit set with Response::set_max_body_size")
        } else if buffered && self.max_buffered < self.max {
            (self.max_buffered, "max_buffered_body_size")
        } else {
            (self.max, "max_response_body_size")
        };
        (limit != NONE).then_some(Cap { limit, option })
    }
}

impl Cap {
    /// The error of a body that would deliver more than this cap allows.
    fn error(self) -> Error {
        Error::type_error(format!("response body refused by {}", self.option))
            .with_source(NetworkError::BodyTooLarge { limit: self.limit })
            .in_body()
    }
}

/// The error a body's reader gets for the network error that ended the body.
fn body_network_error(error: NetworkError) -> Error {
    Error::network(error).in_body()
}

/// Makes room in `buffer` for `additional` more bytes, doubling its capacity as `Vec`
/// does but never past `room` (what a cap leaves for the read), so that a capped read
/// holds at most its cap rather than the next power of two above it.
fn grow_within(buffer: &mut Vec<u8>, additional: usize, room: usize) {
    let needed = buffer.len().saturating_add(additional);
    if needed <= buffer.capacity() {
        return;
    }
    let target = buffer.capacity().saturating_mul(2).min(room).max(needed);
    buffer.reserve_exact(target - buffer.len());
}

enum Inner {
    /// A stream that is already closed.
    Empty,
    /// A stream that enqueues these bytes, then closes.
    Bytes(Bytes),
    /// Any other stream.
    Stream(SyncWrapper<BoxStream>),
    /// A response body from the network, read as the reader polls.
    Net(SyncWrapper<NetworkStream>),
    /// One branch of a [tee](https://streams.spec.whatwg.org/#readable-stream-tee).
    Tee(TeeBranch),
    /// A stream that errored.
    Errored(Error),
}

impl Body {
    /// An empty body: its stream closes at once, its length is 0.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::Body;
    ///
    /// let body = Body::empty();
    /// assert_eq!(body.length(), Some(0));
    /// assert!(body.bytes().await?.is_empty());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn empty() -> Body {
        Body {
            stream: Inner::Empty,
            source: Some(BlobBytes::default()),
            length: 0,
            disturbed: false,
            limit: SizeLimit::default(),
            limit_per_response: false,
        }
    }

    /// A body holding `bytes`: the spec's
    /// [byte sequence as a body](https://fetch.spec.whatwg.org/#byte-sequence-as-a-body).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::Body;
    ///
    /// let body = Body::from_bytes("payload");
    /// // Known length, and a source it can be sent again from (after a redirect, say).
    /// assert_eq!(body.length(), Some(7));
    /// assert!(body.source().is_some());
    /// assert_eq!(body.text().await?, "payload");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn from_bytes(bytes: impl Into<Bytes>) -> Body {
        let bytes = bytes.into();
        Body {
            length: bytes.len() as u64,
            source: Some(BlobBytes::Memory(bytes.clone())),
            stream: if bytes.is_empty() {
                Inner::Empty
            } else {
                Inner::Bytes(bytes)
            },
            disturbed: false,
            limit: SizeLimit::default(),
            limit_per_response: false,
        }
    }

    /// A body of `bytes`, a byte sequence that may be in part on disk: its source is
    /// `bytes` and its stream reads them as it is polled (see [`BlobBytes::stream`]), so
    /// that it can be read again from its source.
    pub(crate) fn from_blob_bytes(bytes: BlobBytes) -> Body {
        let bytes = match bytes {
            BlobBytes::Memory(bytes) => return Body::from_bytes(bytes),
            bytes => bytes,
        };
        Body {
            length: bytes.len(),
            stream: Inner::Stream(SyncWrapper::new(bytes.clone().stream())),
            source: Some(bytes),
            disturbed: false,
            limit: SizeLimit::default(),
            limit_per_response: false,
        }
    }

    /// A body read from `stream`, whose length is `length` if known: its source is null,
    /// as a stream body's is, so it cannot be sent again.
    pub(crate) fn from_chunks(stream: crate::blob::ChunkStream, length: Option<u64>) -> Body {
        Body {
            stream: Inner::Stream(SyncWrapper::new(stream)),
            source: None,
            length: length.unwrap_or(NONE),
            disturbed: false,
            limit: SizeLimit::default(),
            limit_per_response: false,
        }
    }

    /// A body read from `stream`: its source and length are null, so a redirect that
    /// needs it again fails, as the spec says.
    ///
    /// Each item is one chunk; an `Err` errors the stream and is what a reader gets.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use bytes::Bytes;
    /// use whatwg_fetch::Body;
    ///
    /// let chunks = futures_util::stream::iter(["one ", "two"].map(|chunk| Ok::<_, std::io::Error>(Bytes::from(chunk))));
    /// let body = Body::from_stream(chunks);
    /// // A stream is read once: no length, no source to send again.
    /// assert_eq!((body.length(), body.source().is_none()), (None, true));
    /// assert_eq!(body.text().await?, "one two");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn from_stream<S, E>(stream: S) -> Body
    where
        S: Stream<Item = std::result::Result<Bytes, E>> + Send + 'static,
        E: Into<BoxError>,
    {
        Body {
            stream: Inner::Stream(SyncWrapper::new(Box::pin(
                stream.map(|chunk| chunk.map_err(into_error)),
            ))),
            source: None,
            length: NONE,
            disturbed: false,
            limit: SizeLimit::default(),
            limit_per_response: false,
        }
    }

    /// A body read from `stream`, whose chunks may be anything that converts into
    /// [`Bytes`] (`Vec<u8>`, `String`, `&'static str`, ...): reqwest's `Body::wrap_stream`.
    /// As [`from_stream`](Self::from_stream), it has no length and cannot be sent again.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::Body;
    ///
    /// let lines = futures_util::stream::iter(["one\n", "two\n"].map(Ok::<_, std::io::Error>));
    /// assert_eq!(Body::wrap_stream(lines).text().await?, "one\ntwo\n");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn wrap_stream<S, T, E>(stream: S) -> Body
    where
        S: Stream<Item = std::result::Result<T, E>> + Send + 'static,
        T: Into<Bytes>,
        E: Into<BoxError>,
    {
        Body::from_stream(stream.map(|chunk| chunk.map(Into::into)))
    }

    /// A body read from a network response's body (such as a
    /// [`net::ResponseBody`](crate::net::ResponseBody)), chunk by chunk as it is polled; its
    /// source and length are null, as a network response's are.
    ///
    /// An error of the stream errors the body with a `TypeError` whose cause is the
    /// [`NetworkError`].
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use bytes::Bytes;
    /// use whatwg_fetch::{Body, NetworkError};
    ///
    /// // A transport's body that breaks off: the reader gets a `TypeError` naming the cause.
    /// let chunks = futures_util::stream::iter([Ok(Bytes::from_static(b"par")), Err(NetworkError::LengthMismatch)]);
    /// let error = Body::from_network(chunks).bytes().await.unwrap_err();
    /// assert!(matches!(error.network_error(), Some(NetworkError::LengthMismatch)));
    /// # });
    /// ```
    pub fn from_network<S>(body: S) -> Body
    where
        S: Stream<Item = std::result::Result<Bytes, NetworkError>> + Send + 'static,
    {
        Body {
            stream: Inner::Net(SyncWrapper::new(Box::pin(body))),
            source: None,
            length: NONE,
            disturbed: false,
            limit: SizeLimit::default(),
            limit_per_response: false,
        }
    }

    /// A body whose stream is already errored with `error`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Body, Error};
    ///
    /// let body = Body::errored(Error::type_error("the upload was cancelled"));
    /// assert_eq!(body.bytes().await.unwrap_err().message(), "the upload was cancelled");
    /// # });
    /// ```
    pub fn errored(error: Error) -> Body {
        Body {
            stream: Inner::Errored(error),
            source: None,
            length: NONE,
            disturbed: false,
            limit: SizeLimit::default(),
            limit_per_response: false,
        }
    }

    /// The body's [length](https://fetch.spec.whatwg.org/#concept-body-total-bytes): known
    /// for bytes, strings, blobs and form data, `None` for streams.
    ///
    /// ```
    /// use whatwg_fetch::Body;
    ///
    /// assert_eq!(Body::from_bytes(vec![0u8; 1024]).length(), Some(1024));
    /// ```
    pub fn length(&self) -> Option<u64> {
        (self.length != NONE).then_some(self.length)
    }

    /// Sets the body's length: a network layer that knows the `Content-Length` says so.
    /// (`Some(u64::MAX)`, a length no body has, reads back as `None`.)
    ///
    /// ```
    /// use bytes::Bytes;
    /// use whatwg_fetch::Body;
    ///
    /// // A stream whose length a `Content-Length` said.
    /// let chunks = futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::from_static(b"hello"))]);
    /// let mut body = Body::from_stream(chunks);
    /// body.set_length(Some(5));
    /// assert_eq!(body.length(), Some(5));
    /// ```
    pub fn set_length(&mut self, length: Option<u64>) {
        self.length = length.unwrap_or(NONE);
    }

    /// Not in the spec: caps the bytes this body may deliver at `max` however it is read,
    /// and at `max_buffered` when it is read whole; `None` is no cap. Past a cap the body
    /// errors with a `TypeError` whose cause is [`NetworkError::BodyTooLarge`].
    pub(crate) fn limit_size(&mut self, max: Option<u64>, max_buffered: Option<u64>) {
        self.limit.max = max.unwrap_or(NONE);
        self.limit.max_buffered = max_buffered.unwrap_or(NONE);
        self.limit_per_response = false;
    }

    /// Not in the spec: caps the bytes this body may deliver at `max` however it is read,
    /// replacing the caps of [`Body::limit_size`]; `None` lifts them.
    pub(crate) fn set_max_size(&mut self, max: Option<u64>) {
        self.limit.max = max.unwrap_or(NONE);
        self.limit.max_buffered = NONE;
        self.limit_per_response = true;
    }

    /// Not in the spec: holds this body to `other`'s size limits (see
    /// [`ClientBuilder::max_response_body_size`](crate::ClientBuilder::max_response_body_size)
    /// and [`ClientBuilder::max_buffered_body_size`](crate::ClientBuilder::max_buffered_body_size)),
    /// counted over the bytes this body delivers.
    ///
    /// For a body whose bytes are `other`'s passed through a reader of their own: a
    /// JavaScript binding hands a response's body to a script as a `ReadableStream`, and
    /// reads that stream back whole when the script calls `text()`. Read so, the body is
    /// refused where the response's own would have been, not buffered without a limit.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Body, BodyInit, Response, ResponseInit};
    ///
    /// let mut response = Response::new(Some(BodyInit::from("twelve bytes")), ResponseInit::default())?;
    /// response.set_max_body_size(Some(8));
    /// let chunks = [Ok::<_, std::io::Error>(bytes::Bytes::from("twelve bytes"))];
    /// let mut relayed = Body::from_stream(futures_util::stream::iter(chunks));
    /// relayed.limit_like(response.body().unwrap());
    /// assert!(relayed.text().await.is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn limit_like(&mut self, other: &Body) {
        self.limit = SizeLimit {
            delivered: 0,
            ..other.limit
        };
        self.limit_per_response = other.limit_per_response;
    }

    /// Not in the spec: the number of bytes the body will deliver, when it is known before
    /// reading (a `Content-Length` without content codings): a read that a cap forbids
    /// then fails before reading anything.
    pub(crate) fn set_declared_size(&mut self, declared: Option<u64>) {
        self.limit.declared = declared.unwrap_or(NONE);
    }

    /// The bytes the body will deliver when known before reading: its length, or else the
    /// size declared by [`set_declared_size`](Self::set_declared_size).
    pub(crate) fn known_size(&self) -> Option<u64> {
        self.length()
            .or((self.limit.declared != NONE).then_some(self.limit.declared))
    }

    /// A body that reads this one through `adapter`, a stream that watches its chunks
    /// (for an abort signal, a cache, a keepalive quota) without changing them; the new
    /// body keeps this one's length and size limits, which this one gives up.
    pub(crate) fn wrap<S>(mut self, adapter: impl FnOnce(Body) -> S) -> Body
    where
        S: Stream<Item = Result<Bytes>> + Send + 'static,
    {
        let length = self.length;
        let limit = std::mem::take(&mut self.limit);
        let limit_per_response = std::mem::take(&mut self.limit_per_response);
        let mut body = Body::from_stream(adapter(self));
        body.length = length;
        body.limit = limit;
        body.limit_per_response = limit_per_response;
        body
    }

    /// The body's [source](https://fetch.spec.whatwg.org/#concept-body-source) as bytes:
    /// `None` for a stream body, which cannot be sent twice, and for a source with bytes in
    /// a file on disk (a [`File::from_path`](crate::File::from_path) or a form holding one),
    /// which are not in memory to give.
    ///
    /// ```
    /// use whatwg_fetch::Body;
    ///
    /// let body = Body::from_bytes("again");
    /// assert_eq!(body.source().map(|bytes| &bytes[..]), Some(&b"again"[..]));
    /// ```
    pub fn source(&self) -> Option<&Bytes> {
        self.source.as_ref().and_then(BlobBytes::in_memory)
    }

    /// Whether the body's [source](https://fetch.spec.whatwg.org/#concept-body-source) is
    /// non-null: it can be sent again, from memory or from disk.
    pub(crate) fn has_source(&self) -> bool {
        self.source.is_some()
    }

    /// The body's source, for [safely extracting](https://fetch.spec.whatwg.org/#bodyinit-safely-extract)
    /// it again later.
    pub(crate) fn source_bytes(&self) -> Option<&BlobBytes> {
        self.source.as_ref()
    }

    /// Whether the stream has been read from or cancelled
    /// ([disturbed](https://streams.spec.whatwg.org/#is-readable-stream-disturbed)).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::Body;
    ///
    /// let mut body = Body::from_bytes("abc");
    /// assert!(!body.is_disturbed());
    /// body.next().await;
    /// assert!(body.is_disturbed());
    /// # });
    /// ```
    pub fn is_disturbed(&self) -> bool {
        self.disturbed
    }

    /// Marks the stream disturbed without reading it: what cancelling a stream does.
    ///
    /// ```
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let mut response = Response::new(Some("not wanted".into()), ResponseInit::default())?;
    /// if let Some(body) = response.body() {
    ///     body.cancel();
    /// }
    /// // Cancelled is used: the body cannot be read any more.
    /// assert!(response.body_used());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn cancel(&mut self) {
        self.disturbed = true;
        self.stream = Inner::Empty;
    }

    /// Takes this body's stream, source and length into a new body, leaving this one
    /// disturbed and empty: what reading a body to its end through a reader does to the
    /// object that held it.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::Body;
    ///
    /// let mut body = Body::from_bytes("moved");
    /// let taken = body.take_stream()?;
    /// assert!(body.is_disturbed());
    /// assert!(body.take_stream().is_err());
    /// assert_eq!(taken.text().await?, "moved");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// A `TypeError` if this body is already disturbed
    /// ([unusable](https://fetch.spec.whatwg.org/#body-unusable)).
    pub fn take_stream(&mut self) -> Result<Body> {
        if self.disturbed {
            return Err(Error::type_error("body has already been used"));
        }
        self.disturbed = true;
        let stream = std::mem::replace(&mut self.stream, Inner::Empty);
        Ok(Body {
            stream,
            source: self.source.clone(),
            length: self.length,
            disturbed: false,
            limit: self.limit,
            limit_per_response: self.limit_per_response,
        })
    }

    /// [Clone](https://fetch.spec.whatwg.org/#concept-body-clone) a body: tee its stream,
    /// keep the first branch here and return a body with the second.
    ///
    /// Bytes-backed bodies share their bytes; stream bodies are teed, and a chunk read by
    /// one branch is buffered for the other until it reads it.
    ///
    /// Not in the spec: a body not yet read whose source has bytes on disk is not teed:
    /// the clone reads its source again, so that neither branch holds the file in memory
    /// for the other. Both read the same bytes, or fail as the file changed.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use bytes::Bytes;
    /// use whatwg_fetch::Body;
    ///
    /// let chunks = futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::from_static(b"teed"))]);
    /// let mut body = Body::from_stream(chunks);
    /// let copy = body.clone_body();
    /// assert_eq!(copy.text().await?, "teed");
    /// assert_eq!(body.text().await?, "teed");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn clone_body(&mut self) -> Body {
        if let Some(source @ BlobBytes::Segments(_)) = &self.source {
            if !self.disturbed {
                let mut clone = Body::from_blob_bytes(source.clone());
                clone.limit = self.limit;
                clone.limit_per_response = self.limit_per_response;
                return clone;
            }
        }
        // Step 1. Let « out1, out2 » be the result of teeing body's stream.
        let (out1, out2) = tee(std::mem::replace(&mut self.stream, Inner::Empty));
        // Step 2. Set body's stream to out1.
        self.stream = out1;
        // Step 3. Return a body whose stream is out2 and other members are copied from body.
        Body {
            stream: out2,
            source: self.source.clone(),
            length: self.length,
            disturbed: false,
            limit: self.limit,
            limit_per_response: self.limit_per_response,
        }
    }

    /// Reads the whole body: the spec's
    /// [fully read](https://fetch.spec.whatwg.org/#body-fully-read).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::Body;
    ///
    /// assert_eq!(&Body::from_bytes(&b"\x01\x02"[..]).bytes().await?[..], b"\x01\x02");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// The error the stream ended with.
    pub async fn bytes(mut self) -> Result<Bytes> {
        self.disturbed = true;
        let cap = self.limit.cap(true, self.limit_per_response);
        match std::mem::replace(&mut self.stream, Inner::Empty) {
            Inner::Empty => return Ok(Bytes::new()),
            Inner::Bytes(bytes) => {
                return match cap {
                    Some(cap)
                        if self.limit.delivered.saturating_add(bytes.len() as u64) > cap.limit =>
                    {
                        Err(cap.error())
                    }
                    _ => Ok(bytes),
                };
            }
            Inner::Errored(error) => return Err(error),
            stream => self.stream = stream,
        }
        // What the cap leaves for this read: the buffer never grows past it.
        let room = cap.map_or(usize::MAX, |cap| {
            usize::try_from(cap.limit.saturating_sub(self.limit.delivered)).unwrap_or(usize::MAX)
        });
        let mut first: Option<Bytes> = None;
        let mut buffer: Option<Vec<u8>> = None;
        while let Some(chunk) = std::future::poll_fn(|cx| self.poll_chunk(cx, cap)).await {
            let chunk = chunk?;
            if let Some(buffer) = buffer.as_mut() {
                grow_within(buffer, chunk.len(), room);
                buffer.extend_from_slice(&chunk);
            } else if let Some(previous) = first.take() {
                let mut joined = Vec::with_capacity(previous.len() + chunk.len());
                joined.extend_from_slice(&previous);
                joined.extend_from_slice(&chunk);
                buffer = Some(joined);
            } else {
                first = Some(chunk);
            }
        }
        Ok(match (buffer, first) {
            (Some(buffer), _) => Bytes::from(buffer),
            (None, Some(first)) => first,
            (None, None) => Bytes::new(),
        })
    }

    /// Reads the whole body and [UTF-8 decodes](https://encoding.spec.whatwg.org/#utf-8-decode)
    /// it: a leading BOM is dropped, invalid sequences become U+FFFD.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::Body;
    ///
    /// // A leading byte order mark is dropped, as UTF-8 decode says.
    /// assert_eq!(Body::from_bytes(&b"\xEF\xBB\xBFhi"[..]).text().await?, "hi");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// The error the stream ended with.
    pub async fn text(self) -> Result<String> {
        Ok(crate::blob::utf8_decode(&self.bytes().await?))
    }

    /// Reads the whole body and [parses it as JSON](https://infra.spec.whatwg.org/#parse-json-bytes-to-a-javascript-value).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::Body;
    ///
    /// let numbers: Vec<u8> = Body::from_bytes("[1, 2, 3]").json().await?;
    /// assert_eq!(numbers, [1, 2, 3]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// The stream's error, or a `SyntaxError` if the bytes are not JSON of type `T`.
    pub async fn json<T: serde::de::DeserializeOwned + Send + 'static>(self) -> Result<T> {
        parse_json_from_bytes(&self.bytes().await?)
    }

    /// The next chunk, held to `cap`: a chunk that would take the bytes delivered past it
    /// errors the body instead (and so does a declared size past it, before reading).
    fn poll_chunk(
        &mut self,
        cx: &mut Context<'_>,
        cap: Option<Cap>,
    ) -> Poll<Option<Result<Bytes>>> {
        self.disturbed = true;
        if let Some(cap) = cap {
            if self.limit.delivered == 0
                && self.limit.declared != NONE
                && self.limit.declared > cap.limit
                && !matches!(self.stream, Inner::Empty | Inner::Errored(_))
            {
                return self.too_large(cap);
            }
        }
        let polled = match &mut self.stream {
            Inner::Empty => return Poll::Ready(None),
            Inner::Bytes(bytes) => {
                let bytes = std::mem::take(bytes);
                self.stream = Inner::Empty;
                Poll::Ready(Some(Ok(bytes)))
            }
            Inner::Errored(error) => return Poll::Ready(Some(Err(error.clone()))),
            Inner::Stream(stream) => stream.get_mut().as_mut().poll_next(cx),
            Inner::Net(body) => body
                .get_mut()
                .as_mut()
                .poll_next(cx)
                .map(|chunk| chunk.map(|chunk| chunk.map_err(body_network_error))),
            Inner::Tee(branch) => branch.poll_next(cx),
        };
        match polled {
            Poll::Ready(None) => {
                self.stream = Inner::Empty;
                Poll::Ready(None)
            }
            Poll::Ready(Some(Err(error))) => {
                self.stream = Inner::Errored(error.clone());
                Poll::Ready(Some(Err(error)))
            }
            // An empty chunk is no chunk: keep polling so readers never see one.
            Poll::Ready(Some(Ok(chunk))) if chunk.is_empty() => {
                cx.waker().wake_by_ref();
                Poll::Pending
            }
            Poll::Ready(Some(Ok(chunk))) => {
                let delivered = self.limit.delivered.saturating_add(chunk.len() as u64);
                match cap {
                    Some(cap) if delivered > cap.limit => self.too_large(cap),
                    _ => {
                        self.limit.delivered = delivered;
                        Poll::Ready(Some(Ok(chunk)))
                    }
                }
            }
            Poll::Pending => Poll::Pending,
        }
    }

    /// Errors the body for passing `cap`; the stream is dropped (closing its connection).
    fn too_large(&mut self, cap: Cap) -> Poll<Option<Result<Bytes>>> {
        let error = cap.error();
        self.stream = Inner::Errored(error.clone());
        Poll::Ready(Some(Err(error)))
    }
}

impl Default for Body {
    fn default() -> Body {
        Body::empty()
    }
}

impl fmt::Debug for Body {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let stream = match &self.stream {
            Inner::Empty => "empty",
            Inner::Bytes(_) => "bytes",
            Inner::Stream(_) | Inner::Net(_) => "stream",
            Inner::Tee(_) => "tee",
            Inner::Errored(_) => "errored",
        };
        f.debug_struct("Body")
            .field("stream", &stream)
            .field("length", &self.length())
            .field("disturbed", &self.disturbed)
            .finish()
    }
}

impl Stream for Body {
    type Item = Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        let cap = this.limit.cap(false, this.limit_per_response);
        this.poll_chunk(cx, cap)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match &self.stream {
            Inner::Empty => (0, Some(0)),
            Inner::Bytes(_) => (1, Some(1)),
            _ => (0, None),
        }
    }
}

impl http_body::Body for Body {
    type Data = Bytes;
    type Error = Error;

    fn poll_frame(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>>>> {
        let this = self.get_mut();
        let cap = this.limit.cap(false, this.limit_per_response);
        this.poll_chunk(cx, cap)
            .map(|chunk| chunk.map(|chunk| chunk.map(http_body::Frame::data)))
    }

    fn is_end_stream(&self) -> bool {
        matches!(self.stream, Inner::Empty)
    }

    fn size_hint(&self) -> http_body::SizeHint {
        match (&self.stream, self.length()) {
            (Inner::Empty, _) => http_body::SizeHint::with_exact(0),
            (Inner::Bytes(bytes), _) => http_body::SizeHint::with_exact(bytes.len() as u64),
            (_, Some(length)) => http_body::SizeHint::with_exact(length),
            (_, None) => http_body::SizeHint::default(),
        }
    }
}

impl From<Bytes> for Body {
    fn from(bytes: Bytes) -> Body {
        Body::from_bytes(bytes)
    }
}

impl From<Vec<u8>> for Body {
    fn from(bytes: Vec<u8>) -> Body {
        Body::from_bytes(bytes)
    }
}

impl From<String> for Body {
    fn from(text: String) -> Body {
        Body::from_bytes(text)
    }
}

impl From<&'static str> for Body {
    fn from(text: &'static str) -> Body {
        Body::from_bytes(Bytes::from_static(text.as_bytes()))
    }
}

/// A stream error as this crate's [`Error`]: an `Error` passes through unchanged (an abort
/// reason stays the same value), anything else becomes a `TypeError` with it as the cause.
fn into_error(error: impl Into<BoxError>) -> Error {
    let error: BoxError = error.into();
    match error.downcast::<Error>() {
        Ok(error) => *error,
        Err(other) => Error::type_error("body stream errored").with_source(other),
    }
}

// ----------------------------------------------------------------------------------------
// Tee
// ----------------------------------------------------------------------------------------

/// [ReadableStreamDefaultTee](https://streams.spec.whatwg.org/#abstract-opdef-readablestreamdefaulttee)
/// for a Rust stream: whichever branch pulls reads one chunk from the source and enqueues
/// it into both branches. A branch that is dropped is cancelled; the source is dropped only
/// when both are.
fn tee(stream: Inner) -> (Inner, Inner) {
    match stream {
        Inner::Empty => (Inner::Empty, Inner::Empty),
        Inner::Bytes(bytes) => (Inner::Bytes(bytes.clone()), Inner::Bytes(bytes)),
        Inner::Errored(error) => (Inner::Errored(error.clone()), Inner::Errored(error)),
        Inner::Stream(stream) => tee_stream(stream.into_inner()),
        Inner::Net(body) => tee_stream(Box::pin(
            body.into_inner()
                .map(|chunk| chunk.map_err(body_network_error)),
        )),
        Inner::Tee(branch) => tee_stream(Box::pin(branch)),
    }
}

fn tee_stream(source: BoxStream) -> (Inner, Inner) {
    let shared = Arc::new(Mutex::new(TeeState {
        source: Some(source),
        queues: [VecDeque::new(), VecDeque::new()],
        cancelled: [false, false],
        ended: false,
    }));
    let wakers = Arc::new(TeeWakers::default());
    let branch = |index| {
        Inner::Tee(TeeBranch {
            shared: shared.clone(),
            wakers: wakers.clone(),
            index,
        })
    };
    (branch(0), branch(1))
}

struct TeeState {
    source: Option<BoxStream>,
    queues: [VecDeque<Result<Bytes>>; 2],
    cancelled: [bool; 2],
    ended: bool,
}

/// The wakers of both branches: the source is polled with a waker that wakes both, since
/// either branch may be the one waiting on it.
#[derive(Default)]
struct TeeWakers {
    wakers: Mutex<[Option<Waker>; 2]>,
}

impl TeeWakers {
    fn lock(&self) -> MutexGuard<'_, [Option<Waker>; 2]> {
        self.wakers
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}

impl Wake for TeeWakers {
    fn wake(self: Arc<Self>) {
        self.wake_by_ref();
    }

    fn wake_by_ref(self: &Arc<Self>) {
        let wakers = std::mem::take(&mut *self.lock());
        for waker in wakers.into_iter().flatten() {
            waker.wake();
        }
    }
}

struct TeeBranch {
    shared: Arc<Mutex<TeeState>>,
    wakers: Arc<TeeWakers>,
    index: usize,
}

impl TeeBranch {
    fn state(&self) -> MutexGuard<'_, TeeState> {
        self.shared
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner())
    }

    fn poll_next(&mut self, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes>>> {
        let index = self.index;
        let other = 1 - index;
        let mut state = self.state();
        if let Some(chunk) = state.queues[index].pop_front() {
            return Poll::Ready(Some(chunk));
        }
        if state.ended {
            return Poll::Ready(None);
        }
        // Register before polling, so a wake-up that races the poll is not lost.
        self.wakers.lock()[index] = Some(cx.waker().clone());
        let waker = Waker::from(self.wakers.clone());
        let polled = match state.source.as_mut() {
            Some(source) => source.as_mut().poll_next(&mut Context::from_waker(&waker)),
            None => Poll::Ready(None),
        };
        match polled {
            Poll::Pending => Poll::Pending,
            Poll::Ready(None) => {
                state.ended = true;
                state.source = None;
                drop(state);
                self.wake_other(other);
                Poll::Ready(None)
            }
            Poll::Ready(Some(chunk)) => {
                let failed = chunk.is_err();
                if !state.cancelled[other] {
                    state.queues[other].push_back(chunk.clone());
                }
                if failed {
                    state.ended = true;
                    state.source = None;
                }
                drop(state);
                self.wake_other(other);
                Poll::Ready(Some(chunk))
            }
        }
    }

    fn wake_other(&self, other: usize) {
        let waker = self.wakers.lock()[other].take();
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

impl Stream for TeeBranch {
    type Item = Result<Bytes>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Bytes>>> {
        TeeBranch::poll_next(self.get_mut(), cx)
    }
}

impl Drop for TeeBranch {
    fn drop(&mut self) {
        let index = self.index;
        let mut state = self.state();
        state.cancelled[index] = true;
        state.queues[index].clear();
        if state.cancelled[1 - index] {
            // Both branches cancelled: cancel the source.
            state.source = None;
        }
    }
}

// ----------------------------------------------------------------------------------------
// Extract a body
// ----------------------------------------------------------------------------------------

/// The [`BodyInit`](https://fetch.spec.whatwg.org/#bodyinit) union: what a request or
/// response body can be made from.
///
/// ```
/// use whatwg_fetch::{BodyInit, Request, RequestInit};
///
/// // Text, bytes, a blob, a form, URL search parameters or a stream: what `body` takes.
/// for body in [BodyInit::from("text"), BodyInit::from(vec![0u8, 1]), BodyInit::UrlSearchParams(vec![("q".into(), "x".into())])] {
///     let init = RequestInit { method: Some("POST".into()), body: Some(body), ..RequestInit::default() };
///     Request::new("https://api.example/", init)?;
/// }
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum BodyInit {
    /// A byte sequence (`BufferSource` in JavaScript).
    Bytes(Bytes),
    /// A string, sent as UTF-8 with type `text/plain;charset=UTF-8`.
    Text(String),
    /// A [`Blob`], sent with its type.
    Blob(Blob),
    /// A [`FormData`], sent as `multipart/form-data` with a fresh boundary.
    FormData(FormData),
    /// URL search parameters (`URLSearchParams`), sent as
    /// `application/x-www-form-urlencoded;charset=UTF-8`.
    UrlSearchParams(Vec<(String, String)>),
    /// A stream: sent without a known length; it cannot be sent again on a redirect.
    Stream(Body),
    /// JavaScript's `null`: a member that is present but holds no body. Where the spec
    /// tells an absent member from a null one (a `RequestInit` with only `body: null` is
    /// not empty), pass this; everywhere else it means no body.
    Null,
}

impl From<Bytes> for BodyInit {
    fn from(bytes: Bytes) -> BodyInit {
        BodyInit::Bytes(bytes)
    }
}

impl From<Vec<u8>> for BodyInit {
    fn from(bytes: Vec<u8>) -> BodyInit {
        BodyInit::Bytes(bytes.into())
    }
}

impl From<&'static [u8]> for BodyInit {
    fn from(bytes: &'static [u8]) -> BodyInit {
        BodyInit::Bytes(Bytes::from_static(bytes))
    }
}

impl From<String> for BodyInit {
    fn from(text: String) -> BodyInit {
        BodyInit::Text(text)
    }
}

impl From<&str> for BodyInit {
    fn from(text: &str) -> BodyInit {
        BodyInit::Text(text.to_owned())
    }
}

impl From<Blob> for BodyInit {
    fn from(blob: Blob) -> BodyInit {
        BodyInit::Blob(blob)
    }
}

impl From<FormData> for BodyInit {
    fn from(form: FormData) -> BodyInit {
        BodyInit::FormData(form)
    }
}

impl From<Body> for BodyInit {
    fn from(body: Body) -> BodyInit {
        BodyInit::Stream(body)
    }
}

impl From<&url::Url> for BodyInit {
    /// The URL's query as URL search parameters.
    fn from(url: &url::Url) -> BodyInit {
        BodyInit::UrlSearchParams(url.query_pairs().into_owned().collect())
    }
}

impl BodyInit {
    /// A stream body from any stream of byte chunks.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use bytes::Bytes;
    /// use whatwg_fetch::{BodyInit, Request, RequestDuplex, RequestInit};
    ///
    /// let chunks = futures_util::stream::iter(["a", "b"].map(|chunk| Ok::<_, std::io::Error>(Bytes::from(chunk))));
    /// // A stream body needs `duplex: "half"`, as in JavaScript.
    /// let init = RequestInit {
    ///     method: Some("POST".into()),
    ///     body: Some(BodyInit::stream(chunks)),
    ///     duplex: Some(RequestDuplex::Half),
    ///     ..RequestInit::default()
    /// };
    /// let mut request = Request::new("https://api.example/upload", init)?;
    /// assert_eq!(request.text().await?, "ab");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn stream<S, E>(stream: S) -> BodyInit
    where
        S: Stream<Item = std::result::Result<Bytes, E>> + Send + 'static,
        E: Into<BoxError>,
    {
        BodyInit::Stream(Body::from_stream(stream))
    }

    /// `None` for [`BodyInit::Null`], the body otherwise.
    ///
    /// ```
    /// use whatwg_fetch::BodyInit;
    ///
    /// assert!(BodyInit::Null.non_null().is_none());
    /// assert!(BodyInit::from("x").non_null().is_some());
    /// ```
    pub fn non_null(self) -> Option<BodyInit> {
        match self {
            BodyInit::Null => None,
            body => Some(body),
        }
    }

    /// Whether this is a stream body (a `ReadableStream` in JavaScript).
    ///
    /// ```
    /// use bytes::Bytes;
    /// use whatwg_fetch::BodyInit;
    ///
    /// let chunks = futures_util::stream::iter([Ok::<_, std::io::Error>(Bytes::from_static(b"x"))]);
    /// assert!(BodyInit::stream(chunks).is_stream());
    /// assert!(!BodyInit::from("x").is_stream());
    /// ```
    pub fn is_stream(&self) -> bool {
        matches!(self, BodyInit::Stream(_))
    }

    /// Whether the body extracted from this has a null source, so that it can be sent
    /// once only and needs `duplex: "half"`: a stream, or a form holding a
    /// [`StreamedFile`](crate::form_data::StreamedFile).
    pub(crate) fn has_null_source(&self) -> bool {
        match self {
            BodyInit::Stream(_) => true,
            BodyInit::FormData(form) => form.has_streamed_file(),
            _ => false,
        }
    }
}

/// A [body with type](https://fetch.spec.whatwg.org/#body-with-type): what
/// [`extract_body`] returns.
///
/// ```
/// use whatwg_fetch::body::extract_body;
///
/// let extracted = extract_body("plain".into(), false)?;
/// assert_eq!(extracted.r#type.as_deref(), Some(&b"text/plain;charset=UTF-8"[..]));
/// assert_eq!(extracted.body.length(), Some(5));
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Debug)]
pub struct BodyWithType {
    /// The body.
    pub body: Body,
    /// Its `Content-Type`, if the source has one.
    pub r#type: Option<Bytes>,
}

/// [Extract](https://fetch.spec.whatwg.org/#concept-bodyinit-extract) a body with type
/// from `object`.
///
/// # Errors
/// A `TypeError` for a stream body when `keepalive` is true, or for a stream that is
/// already disturbed.
///
/// ```
/// use whatwg_fetch::body::extract_body;
/// use whatwg_fetch::BodyInit;
///
/// // What `new Request(url, { body })` makes of a body: the bytes and the type they imply.
/// let extracted = extract_body(BodyInit::UrlSearchParams(vec![("q".into(), "a b".into())]), false)?;
/// assert_eq!(extracted.r#type.as_deref(), Some(&b"application/x-www-form-urlencoded;charset=UTF-8"[..]));
/// assert_eq!(extracted.body.length(), Some(5));
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub fn extract_body(object: BodyInit, keepalive: bool) -> Result<BodyWithType> {
    // Steps 1–5 (choosing the stream) are folded into the switch below: a byte source
    // becomes a bytes-backed stream, a stream stays itself.
    // Step 7. Let source be null.
    let source: BlobBytes;
    // Step 9. Let type be null.
    let mut r#type: Option<Bytes> = None;
    // Step 10. Switch on object:
    match object {
        // Blob: Set source to object. Set length to object's size. If object's type
        // attribute is not the empty byte sequence, set type to its value.
        BodyInit::Blob(blob) => {
            if !blob.r#type().is_empty() {
                r#type = Some(Bytes::copy_from_slice(&isomorphic_encode(blob.r#type())));
            }
            source = blob.blob_bytes().clone();
        }
        // byte sequence / BufferSource: Set source to (a copy of) object.
        BodyInit::Bytes(bytes) => source = BlobBytes::Memory(bytes),
        // Not in the spec: null is no BodyInit; callers skip it, and it extracts as nothing.
        BodyInit::Null => source = BlobBytes::default(),
        // FormData: Set action to this step: run the multipart/form-data encoding
        // algorithm, with object's entry list and UTF-8. Set source to object. Set length to
        // unclear, see html/6424 for improving this. Set type to `multipart/form-data;
        // boundary=`, followed by the multipart/form-data boundary string generated by the
        // multipart/form-data encoding algorithm.
        BodyInit::FormData(form) => {
            let boundary = form_data::generate_boundary();
            r#type = Some(Bytes::from(format!(
                "multipart/form-data; boundary={boundary}"
            )));
            match form_data::multipart_form_data_body(&form, &boundary) {
                // The payload's bytes, in memory or in part in files on disk: the source,
                // read again on a redirect.
                form_data::MultipartBody::Bytes(bytes) => source = bytes,
                // DEVIATION: a form holding a `StreamedFile` reads its reader once, so its
                // body is a stream's: a null source (it cannot follow a redirect that
                // needs it again), and a length only if every part's is known. As the
                // ReadableStream branch below, it cannot be a keepalive request's.
                form_data::MultipartBody::Stream { stream, length } => {
                    if keepalive {
                        return Err(Error::type_error(
                            "a keepalive request cannot have a form body read from a reader",
                        ));
                    }
                    return Ok(BodyWithType {
                        body: Body::from_chunks(stream, length),
                        r#type,
                    });
                }
            }
        }
        // URLSearchParams: Set source to the result of running the
        // application/x-www-form-urlencoded serializer with object's list.
        BodyInit::UrlSearchParams(list) => {
            let serialized = url::form_urlencoded::Serializer::new(String::new())
                .extend_pairs(list.iter())
                .finish();
            source = BlobBytes::Memory(Bytes::from(serialized));
            r#type = Some(Bytes::from_static(
                b"application/x-www-form-urlencoded;charset=UTF-8",
            ));
        }
        // scalar value string: Set source to the UTF-8 encoding of object. Set type to
        // `text/plain;charset=UTF-8`.
        BodyInit::Text(text) => {
            source = BlobBytes::Memory(Bytes::from(text));
            r#type = Some(Bytes::from_static(b"text/plain;charset=UTF-8"));
        }
        // ReadableStream: If keepalive is true, then throw a TypeError. If object is
        // disturbed or locked, then throw a TypeError.
        BodyInit::Stream(body) => {
            if keepalive {
                return Err(Error::type_error(
                    "a keepalive request cannot have a stream body",
                ));
            }
            if body.is_disturbed() {
                return Err(Error::type_error("the body stream is disturbed"));
            }
            return Ok(BodyWithType { body, r#type: None });
        }
    }
    // Step 11. If source is a byte sequence, then set action to a step that returns source
    // and length to source's length.
    // Steps 12–14. The stream enqueues source and closes; return (body, type). (Bytes of
    // files on disk are read as the stream is pulled.)
    Ok(BodyWithType {
        body: Body::from_blob_bytes(source),
        r#type,
    })
}

// ----------------------------------------------------------------------------------------
// Consuming
// ----------------------------------------------------------------------------------------

/// [Parse JSON from bytes](https://infra.spec.whatwg.org/#parse-json-bytes-to-a-javascript-value):
/// UTF-8 decode, then parse.
///
/// # Errors
/// A `SyntaxError` when the text is not JSON (or not of type `T`).
pub(crate) fn parse_json_from_bytes<T: serde::de::DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match serde_json::from_slice(bytes) {
        Ok(value) => Ok(value),
        // Invalid UTF-8 decodes to U+FFFD before parsing: retry on the decoded text so a
        // string holding a replacement character still parses.
        Err(_) if std::str::from_utf8(bytes).is_err() => {
            serde_json::from_str(&crate::blob::utf8_decode(bytes)).map_err(json_error)
        }
        Err(error) => Err(json_error(error)),
    }
}

/// `SyntaxError: body is not valid JSON: expected value at line 1 column 1`: serde's reason
/// is what the error says after its message (not a source: it is said already).
fn json_error(error: serde_json::Error) -> Error {
    Error::new(ErrorKind::SyntaxError, "body is not valid JSON").with_detail(error.to_string())
}

/// The `formData()` steps after the body is read: parse `bytes` by `mime_type`.
///
/// # Errors
/// A `TypeError` when the MIME type is neither `multipart/form-data` (with a boundary)
/// nor `application/x-www-form-urlencoded`, or when the multipart body is malformed.
pub(crate) fn package_form_data(bytes: &[u8], mime_type: Option<&MimeType>) -> Result<FormData> {
    // Step 1. Let mimeType be the result of get the MIME type with this.
    // Step 2. If mimeType is non-null, then switch on mimeType's essence:
    if let Some(mime_type) = mime_type {
        match mime_type.essence().as_str() {
            "multipart/form-data" => {
                // Parse bytes, using the value of the `boundary` parameter from mimeType.
                // If that fails for some reason, then throw a TypeError.
                let Some(boundary) = mime_type.parameter("boundary") else {
                    return Err(Error::type_error(
                        "multipart/form-data body without a boundary parameter",
                    ));
                };
                return form_data::multipart_form_data_parse(bytes, boundary.as_bytes());
            }
            "application/x-www-form-urlencoded" => {
                // Let entries be the result of parsing bytes. Return a new FormData object
                // whose entry list is entries.
                return Ok(form_data::urlencoded_parse(bytes));
            }
            _ => {}
        }
    }
    // Step 3. Throw a TypeError.
    Err(Error::type_error(match mime_type {
        Some(mime_type) => format!("cannot parse a body of type {mime_type} as form data"),
        None => "cannot parse a body without a Content-Type as form data".to_owned(),
    }))
}

impl Blob {
    /// The blob's [get stream](https://w3c.github.io/FileAPI/#blob-get-stream): a body
    /// that yields its bytes. A blob's bytes on disk are read as the body is pulled, 64 KiB
    /// at a time; a file that changed since the `File` was made errors the body with a
    /// `NotReadableError` (see [`Blob::read_bytes`]).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::Blob;
    ///
    /// let mut stream = Blob::from_bytes(&b"streamed"[..], "").stream();
    /// let mut read = Vec::new();
    /// while let Some(chunk) = stream.next().await {
    ///     read.extend_from_slice(&chunk?);
    /// }
    /// assert_eq!(read, b"streamed");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn stream(&self) -> Body {
        Body::from_blob_bytes(self.blob_bytes().clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_fits_in_128_bytes_so_a_response_fits_in_256() {
        // A `Response` (a `Body` and 128 bytes more) is moved about twenty times per
        // fetch; past 256 bytes each move takes `memcpy`'s slower loop.
        assert!(std::mem::size_of::<Body>() <= 128);
        assert!(std::mem::size_of::<crate::Response>() <= 256);
    }

    #[test]
    fn a_capped_buffer_grows_by_doubling_but_never_past_the_cap() {
        let room = 1_000_000;
        let mut buffer = Vec::with_capacity(1024);
        let chunk = [0u8; 4096];
        while buffer.len() + chunk.len() <= room {
            grow_within(&mut buffer, chunk.len(), room);
            buffer.extend_from_slice(&chunk);
            assert!(buffer.capacity() <= room, "capacity {}", buffer.capacity());
        }
        // Uncapped, it doubles.
        let mut buffer = Vec::with_capacity(1024);
        grow_within(&mut buffer, 1025, usize::MAX);
        assert!(buffer.capacity() >= 2048);
    }

    fn chunks(parts: &[&'static str]) -> Body {
        let items: Vec<Result<Bytes>> = parts
            .iter()
            .map(|part| Ok(Bytes::from_static(part.as_bytes())))
            .collect();
        Body::from_stream(futures_util::stream::iter(items))
    }

    #[tokio::test]
    async fn stream_chunks_concatenate() {
        assert_eq!(chunks(&["a", "", "bc"]).text().await.unwrap(), "abc");
    }

    #[tokio::test]
    async fn text_strips_bom_and_replaces_invalid_bytes() {
        let body = Body::from(b"\xEF\xBB\xBFa\xFFb".to_vec());
        assert_eq!(body.text().await.unwrap(), "a\u{FFFD}b");
    }

    #[tokio::test]
    async fn take_twice_is_a_type_error() {
        let mut body = Body::from("x");
        let taken = body.take_stream().unwrap();
        assert!(body.is_disturbed());
        assert_eq!(body.take_stream().unwrap_err().kind(), ErrorKind::TypeError);
        assert_eq!(taken.text().await.unwrap(), "x");
    }

    #[tokio::test]
    async fn tee_gives_both_branches_every_chunk() {
        let mut body = chunks(&["one", "two", "three"]);
        let clone = body.clone_body();
        assert_eq!(clone.text().await.unwrap(), "onetwothree");
        assert_eq!(body.text().await.unwrap(), "onetwothree");
    }

    #[tokio::test]
    async fn tee_interleaved_reads() {
        let mut first = chunks(&["1", "2", "3"]);
        let mut second = first.clone_body();
        assert_eq!(first.next().await.unwrap().unwrap(), "1");
        assert_eq!(second.next().await.unwrap().unwrap(), "1");
        assert_eq!(second.next().await.unwrap().unwrap(), "2");
        assert_eq!(first.next().await.unwrap().unwrap(), "2");
        drop(second);
        assert_eq!(first.next().await.unwrap().unwrap(), "3");
        assert!(first.next().await.is_none());
    }

    #[tokio::test]
    async fn tee_of_a_tee() {
        let mut a = chunks(&["x", "y"]);
        let mut b = a.clone_body();
        let c = b.clone_body();
        assert_eq!(c.text().await.unwrap(), "xy");
        assert_eq!(a.text().await.unwrap(), "xy");
        assert_eq!(b.text().await.unwrap(), "xy");
    }

    #[tokio::test]
    async fn tee_propagates_errors_to_both_branches() {
        let items: Vec<Result<Bytes>> =
            vec![Ok(Bytes::from_static(b"a")), Err(Error::abort_error())];
        let mut body = Body::from_stream(futures_util::stream::iter(items));
        let clone = body.clone_body();
        let error = clone.bytes().await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::AbortError);
        let other = body.bytes().await.unwrap_err();
        assert!(error.same(&other), "both branches see the same reason");
    }

    #[tokio::test]
    async fn tee_waits_for_a_pending_source() {
        let (sender, receiver) = tokio::sync::mpsc::channel::<Result<Bytes>>(1);
        let stream = futures_util::stream::unfold(receiver, |mut receiver| async move {
            receiver.recv().await.map(|item| (item, receiver))
        });
        let mut body = Body::from_stream(stream);
        let clone = body.clone_body();
        let reader = tokio::spawn(clone.text());
        let other = tokio::spawn(body.text());
        tokio::task::yield_now().await;
        sender.send(Ok(Bytes::from_static(b"late"))).await.unwrap();
        drop(sender);
        assert_eq!(reader.await.unwrap().unwrap(), "late");
        assert_eq!(other.await.unwrap().unwrap(), "late");
    }

    #[tokio::test]
    async fn stream_errors_keep_their_identity() {
        let reason = Error::abort_error();
        let items: Vec<Result<Bytes>> = vec![Err(reason.clone())];
        let body = Body::from_stream(futures_util::stream::iter(items));
        assert!(body.bytes().await.unwrap_err().same(&reason));
    }

    #[tokio::test]
    async fn foreign_stream_errors_become_type_errors() {
        let items: Vec<std::io::Result<Bytes>> = vec![Err(std::io::Error::other("boom"))];
        let body = Body::from_stream(futures_util::stream::iter(items));
        assert_eq!(body.bytes().await.unwrap_err().kind(), ErrorKind::TypeError);
    }

    fn network(items: Vec<std::result::Result<Bytes, NetworkError>>) -> Body {
        Body::from_network(futures_util::stream::iter(items))
    }

    #[tokio::test]
    async fn a_network_body_errors_with_a_type_error_caused_by_the_network_error() {
        let body = network(vec![
            Ok(Bytes::from_static(b"a")),
            Err(NetworkError::LengthMismatch),
        ]);
        assert_eq!(body.length(), None);
        assert!(body.source().is_none());
        let error = body.bytes().await.unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        assert!(matches!(
            error.network_error(),
            Some(NetworkError::LengthMismatch)
        ));
    }

    #[tokio::test]
    async fn a_cloned_network_body_gives_both_branches_its_chunks_and_its_error() {
        let mut body = network(vec![
            Ok(Bytes::from_static(b"a")),
            Ok(Bytes::from_static(b"b")),
            Err(NetworkError::LengthMismatch),
        ]);
        let mut clone = body.clone_body();
        assert_eq!(clone.next().await.unwrap().unwrap(), "a");
        assert_eq!(body.next().await.unwrap().unwrap(), "a");
        assert_eq!(body.next().await.unwrap().unwrap(), "b");
        let error = body.next().await.unwrap().unwrap_err();
        assert!(matches!(
            error.network_error(),
            Some(NetworkError::LengthMismatch)
        ));
        assert_eq!(clone.next().await.unwrap().unwrap(), "b");
        let other = clone.next().await.unwrap().unwrap_err();
        assert!(error.same(&other), "both branches see the same error");
    }

    #[tokio::test]
    async fn a_network_body_is_held_to_its_caps() {
        let mut body = network(vec![
            Ok(Bytes::from_static(b"abc")),
            Ok(Bytes::from_static(b"def")),
        ]);
        body.limit_size(Some(5), None);
        assert_eq!(too_large(&body.bytes().await.unwrap_err()), Some(5));
    }

    #[test]
    fn extract_text_sets_type_and_length() {
        let extracted = extract_body(BodyInit::from("héllo"), false).unwrap();
        assert_eq!(
            extracted.r#type.as_deref(),
            Some(&b"text/plain;charset=UTF-8"[..])
        );
        assert_eq!(extracted.body.length(), Some(6));
    }

    #[tokio::test]
    async fn extract_url_search_params() {
        let params = BodyInit::UrlSearchParams(vec![("a b".into(), "c&d".into())]);
        let extracted = extract_body(params, false).unwrap();
        assert_eq!(
            extracted.r#type.as_deref(),
            Some(&b"application/x-www-form-urlencoded;charset=UTF-8"[..])
        );
        assert_eq!(extracted.body.text().await.unwrap(), "a+b=c%26d");
    }

    #[test]
    fn extract_stream_with_keepalive_is_a_type_error() {
        let error = extract_body(BodyInit::Stream(chunks(&["x"])), true).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
    }

    #[test]
    fn extract_disturbed_stream_is_a_type_error() {
        let mut body = chunks(&["x"]);
        body.cancel();
        let error = extract_body(BodyInit::Stream(body), false).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
    }

    #[test]
    fn stream_body_has_no_source_or_length() {
        let body = chunks(&["x"]);
        assert!(body.source().is_none());
        assert_eq!(body.length(), None);
    }

    #[test]
    fn json_errors_are_syntax_errors() {
        let error = parse_json_from_bytes::<serde_json::Value>(b"{").unwrap_err();
        assert_eq!(error.kind(), ErrorKind::SyntaxError);
        let value: serde_json::Value = parse_json_from_bytes(b"\xEF\xBB\xBF[1]").unwrap();
        assert_eq!(value, serde_json::json!([1]));
    }

    #[test]
    fn form_data_needs_a_form_type() {
        let error = package_form_data(b"a=b", None).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        let text = MimeType::parse("text/plain").unwrap();
        assert_eq!(
            package_form_data(b"a=b", Some(&text)).unwrap_err().kind(),
            ErrorKind::TypeError
        );
    }

    fn too_large(error: &Error) -> Option<u64> {
        match error.network_error() {
            Some(NetworkError::BodyTooLarge { limit }) => Some(*limit),
            _ => None,
        }
    }

    #[tokio::test]
    async fn a_body_without_limits_delivers_everything() {
        assert_eq!(chunks(&["abc", "def"]).bytes().await.unwrap(), "abcdef");
    }

    #[tokio::test]
    async fn a_chunk_past_the_cap_errors_the_body_and_it_stays_errored() {
        let mut body = chunks(&["abc", "def", "g"]);
        body.limit_size(Some(5), None);
        assert_eq!(body.next().await.unwrap().unwrap(), "abc");
        let error = body.next().await.unwrap().unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        assert_eq!(too_large(&error), Some(5));
        let again = body.next().await.unwrap().unwrap_err();
        assert!(error.same(&again));
    }

    #[tokio::test]
    async fn the_buffered_cap_holds_only_whole_reads() {
        let mut streamed = chunks(&["abc", "def"]);
        streamed.limit_size(None, Some(4));
        let mut total = 0;
        while let Some(chunk) = streamed.next().await {
            total += chunk.unwrap().len();
        }
        assert_eq!(total, 6);
        let mut whole = chunks(&["abc", "def"]);
        whole.limit_size(None, Some(4));
        assert_eq!(too_large(&whole.bytes().await.unwrap_err()), Some(4));
        // The smaller cap applies to a whole read; exactly at it is fine.
        let mut whole = chunks(&["abc", "def"]);
        whole.limit_size(Some(6), Some(100));
        assert_eq!(whole.bytes().await.unwrap(), "abcdef");
        let mut bytes = Body::from("abcdef");
        bytes.limit_size(Some(5), None);
        assert_eq!(too_large(&bytes.bytes().await.unwrap_err()), Some(5));
    }

    #[tokio::test]
    async fn a_declared_size_past_the_cap_fails_before_polling() {
        let polled = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let seen = polled.clone();
        let mut body = Body::from_stream(futures_util::stream::poll_fn(move |_| {
            seen.store(true, std::sync::atomic::Ordering::SeqCst);
            Poll::Ready(Some(Ok::<_, Error>(Bytes::from_static(b"x"))))
        }));
        body.set_declared_size(Some(10));
        body.limit_size(None, Some(9));
        assert_eq!(too_large(&body.bytes().await.unwrap_err()), Some(9));
        assert!(!polled.load(std::sync::atomic::Ordering::SeqCst));
    }

    #[tokio::test]
    async fn a_per_body_limit_replaces_both_caps() {
        let mut body = chunks(&["abc", "def"]);
        body.limit_size(Some(1), Some(1));
        body.set_max_size(None);
        assert_eq!(body.bytes().await.unwrap(), "abcdef");
        let mut body = chunks(&["abc", "def"]);
        body.limit_size(None, None);
        body.set_max_size(Some(4));
        assert_eq!(too_large(&body.bytes().await.unwrap_err()), Some(4));
    }

    #[tokio::test]
    async fn limits_follow_a_taken_wrapped_or_cloned_body() {
        let mut body = chunks(&["abc", "def"]);
        body.limit_size(None, Some(4));
        let mut taken = body.take_stream().unwrap();
        let clone = taken.clone_body();
        assert_eq!(too_large(&clone.bytes().await.unwrap_err()), Some(4));
        let wrapped = taken.wrap(|inner| inner);
        assert_eq!(too_large(&wrapped.bytes().await.unwrap_err()), Some(4));
    }

    #[test]
    fn body_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Body>();
        assert_send_sync::<BodyInit>();
    }
}
