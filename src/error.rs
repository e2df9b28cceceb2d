//! Errors that name the JavaScript exception the Fetch Standard throws.
//!
//! Every fallible operation in this crate returns [`Error`]. Its [`kind`](Error::kind)
//! says which exception a browser would throw for the same input — a `TypeError` for an
//! invalid header name, a `RangeError` for a status of 600, an `AbortError` when a signal
//! fires — so code written against the spec's prose can match on it. The network cause,
//! if any, is on [`std::error::Error::source`] and on [`Error::network_error`].

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// A boxed error that can cross threads: the cause behind an [`Error`].
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A `Result` whose error is this crate's [`Error`].
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Which JavaScript exception the spec throws for an error.
///
/// The names match the JavaScript constructors (`TypeError`, `RangeError`, `SyntaxError`)
/// and the [`DOMException`](https://webidl.spec.whatwg.org/#idl-DOMException-error-names)
/// names (`AbortError`, `TimeoutError`, `InvalidStateError`, `NotSupportedError`,
/// `NotFoundError`, `NotReadableError`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// A JavaScript `TypeError`: invalid arguments, a network error, a used body.
    TypeError,
    /// A JavaScript `RangeError`: a status outside its range.
    RangeError,
    /// A JavaScript `SyntaxError`: a body that is not valid JSON.
    SyntaxError,
    /// A `DOMException` named `AbortError`: the operation was aborted.
    AbortError,
    /// A `DOMException` named `TimeoutError`: the operation timed out.
    TimeoutError,
    /// A `DOMException` named `InvalidStateError`.
    InvalidStateError,
    /// A `DOMException` named `NotSupportedError`.
    NotSupportedError,
    /// A `DOMException` named `NotFoundError`: a file on disk that a blob refers to is gone
    /// (the File API's [NotFound](https://w3c.github.io/FileAPI/#NotFoundFR) failure
    /// reason).
    NotFoundError,
    /// A `DOMException` named `NotReadableError`: a file on disk that a blob refers to
    /// changed since, or cannot be read (the File API's
    /// [SnapshotState](https://w3c.github.io/FileAPI/#SnapshotStateFR) and
    /// [FileLock](https://w3c.github.io/FileAPI/#FileLockFR) failure reasons).
    NotReadableError,
    /// An abort reason supplied by the caller that is none of the above; the caller's
    /// value is available through [`Error::payload`].
    Custom,
    /// Not an exception of the spec's: a response whose status is a client or server
    /// error (400–599), which the caller asked to have as an error with
    /// [`Response::error_for_status`](crate::Response::error_for_status). Its
    /// [`status`](Error::status) says which.
    HttpStatus,
}

impl ErrorKind {
    /// The JavaScript name of the exception: `"TypeError"`, `"AbortError"`, and so on.
    pub fn js_name(self) -> &'static str {
        match self {
            ErrorKind::TypeError => "TypeError",
            ErrorKind::RangeError => "RangeError",
            ErrorKind::SyntaxError => "SyntaxError",
            ErrorKind::AbortError => "AbortError",
            ErrorKind::TimeoutError => "TimeoutError",
            ErrorKind::InvalidStateError => "InvalidStateError",
            ErrorKind::NotSupportedError => "NotSupportedError",
            ErrorKind::NotFoundError => "NotFoundError",
            ErrorKind::NotReadableError => "NotReadableError",
            ErrorKind::Custom | ErrorKind::HttpStatus => "Error",
        }
    }

    /// Whether the spec throws this as a `DOMException` rather than a JavaScript
    /// built-in error.
    pub fn is_dom_exception(self) -> bool {
        matches!(
            self,
            ErrorKind::AbortError
                | ErrorKind::TimeoutError
                | ErrorKind::InvalidStateError
                | ErrorKind::NotSupportedError
                | ErrorKind::NotFoundError
                | ErrorKind::NotReadableError
        )
    }
}

impl fmt::Display for ErrorKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.js_name())
    }
}

/// Why a fetch ended in a [network error](https://fetch.spec.whatwg.org/#concept-network-error).
///
/// `fetch()` rejects a network error with a [`ErrorKind::TypeError`] whose
/// [`source`](std::error::Error::source) is one of these.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NetworkError {
    /// The URL's scheme is not one fetch can handle.
    #[error("unsupported URL scheme {0:?}")]
    UnsupportedScheme(String),
    /// The URL's port is on the spec's [bad port](https://fetch.spec.whatwg.org/#bad-port) list.
    #[error("port {0} is blocked")]
    BadPort(u16),
    /// A redirect chain longer than 20.
    #[error("more than 20 redirects")]
    TooManyRedirects,
    /// A redirect was refused because the request's redirect mode is `error`.
    #[error("redirect refused: the request's redirect mode is \"error\"")]
    RedirectRefused,
    /// A redirect's `Location` could not be parsed as a URL.
    #[error("invalid Location header {0:?}")]
    InvalidLocation(String),
    /// A redirect needed the request body again, but the body was a stream.
    #[error("cannot follow a redirect that needs a streamed request body again")]
    StreamBodyOnRedirect,
    /// A `data:` URL that the data: URL processor rejects.
    #[error("invalid data: URL")]
    InvalidDataUrl,
    /// A `blob:` URL with no entry in the blob URL store, or a non-GET request for one.
    #[error("invalid blob: URL")]
    InvalidBlobUrl,
    /// A `file:` URL while file fetches are disabled, or a file that cannot be read.
    #[error("file: URL refused or unreadable")]
    File(#[source] Option<std::io::Error>),
    /// A request blocked by the spec's policy checks (mixed content, CORS, mode, and so on).
    #[error("blocked: {0}")]
    Blocked(Cow<'static, str>),
    /// A CORS check or preflight failed.
    #[error("CORS check failed: {0}")]
    Cors(Cow<'static, str>),
    /// The response body did not match the request's integrity metadata.
    #[error("integrity metadata does not match the response body")]
    Integrity,
    /// Name resolution failed.
    #[error("{}", Described("DNS lookup failed", .0.as_ref()))]
    Dns(#[source] BoxError),
    /// The connection could not be established.
    #[error("{}", Described("connect failed", .0.as_ref()))]
    Connect(#[source] BoxError),
    /// The TLS handshake failed (its source, a
    /// [`TlsHandshakeError`](crate::net::TlsHandshakeError), names the host and the
    /// reason), or a builder's TLS options cannot be used.
    #[error("{}", Described("TLS handshake failed", .0.as_ref()))]
    Tls(#[source] BoxError),
    /// The peer broke the HTTP protocol or closed the connection early.
    #[error("{}", Described("HTTP protocol error", .0.as_ref()))]
    Protocol(#[source] BoxError),
    /// A response body whose content coding could not be decoded.
    #[error("{}", Described("content decoding failed", .0.as_ref()))]
    Decode(#[source] BoxError),
    /// A response naming more content codings than are decoded: `count` codings (not
    /// counting `identity`) where at most `max`
    /// ([`MAX_CONTENT_CODINGS`](crate::net::MAX_CONTENT_CODINGS)) are allowed.
    #[error("{count} stacked content codings, more than the {max} allowed")]
    TooManyContentCodings {
        /// How many codings the response named, `identity` aside.
        count: usize,
        /// The most allowed.
        max: usize,
    },
    /// A response body larger than a limit on what it may deliver: see
    /// [`ClientBuilder::max_response_body_size`](crate::ClientBuilder::max_response_body_size),
    /// [`ClientBuilder::max_buffered_body_size`](crate::ClientBuilder::max_buffered_body_size)
    /// and [`Response::set_max_body_size`](crate::Response::set_max_body_size).
    #[error("response body larger than {limit} bytes")]
    BodyTooLarge {
        /// The limit in bytes that the body would have passed.
        limit: u64,
    },
    /// A response body shorter or longer than its `Content-Length`.
    #[error("response body length does not match Content-Length")]
    LengthMismatch,
    /// A configured timeout fired: `kind` says which, `after` how long it was.
    #[error("{}", describe_timeout(*kind, *after))]
    Timeout {
        /// Which timeout fired.
        kind: TimeoutKind,
        /// The timeout as configured.
        after: std::time::Duration,
    },
    /// A request the network layer refuses to send as given, such as one whose
    /// `Content-Length` disagrees with its body: sent, it would leave the peer out of step.
    #[error("request refused: {0}")]
    InvalidRequest(Cow<'static, str>),
    /// Any other network failure.
    #[error("{0}")]
    Other(Cow<'static, str>),
    /// A tower layer around the transport (see `ClientBuilder::transport_layer`, with the
    /// `tower` feature) failed the request with an error of its own, its source: a
    /// timeout, a refused rate limit, a signing error.
    #[error("{}", Described("transport layer failed", .0.as_ref()))]
    Layer(#[source] BoxError),
}

/// A network error's label followed by what its cause chain says, for the `Display` of
/// the variants that carry a cause: `connect failed: Connection refused (os error 111)`.
///
/// A cause that already says what failed (`connect to 127.0.0.1:1 failed: …`, whose first
/// word is the label's) stands without the label, and a cause whose message already ends
/// with its own cause's is not repeated.
struct Described<'a>(&'static str, &'a (dyn std::error::Error + 'static));

impl fmt::Display for Described<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let Described(label, cause) = *self;
        let first = cause.to_string();
        let first_word = |text: &str| text.split([' ', '/']).next().map(str::to_ascii_lowercase);
        if first_word(&first) != first_word(label) {
            write!(f, "{label}: ")?;
        }
        f.write_str(&first)?;
        write_causes(f, &first, cause.source())
    }
}

/// Writes `: message` for each error in a chain of causes, skipping one whose message the
/// previous one already ends with.
fn write_causes(
    f: &mut fmt::Formatter<'_>,
    previous: &str,
    mut cause: Option<&(dyn std::error::Error + 'static)>,
) -> fmt::Result {
    let mut previous = previous.to_owned();
    while let Some(error) = cause {
        let message = error.to_string();
        if !message.is_empty() && !previous.ends_with(&message) {
            write!(f, ": {message}")?;
        }
        previous = message;
        cause = error.source();
    }
    Ok(())
}

/// Which of a client's timeouts fired.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum TimeoutKind {
    /// Establishing the connection (DNS, TCP, TLS) took too long
    /// ([`connect_timeout`](crate::ClientBuilder::connect_timeout)).
    Connect,
    /// The whole fetch took too long ([`timeout`](crate::ClientBuilder::timeout)).
    Total,
    /// No bytes arrived for too long, waiting for the head or inside the body
    /// ([`read_timeout`](crate::ClientBuilder::read_timeout)).
    Idle,
    /// An HTTP/2 keep-alive PING went unanswered
    /// ([`http2_keep_alive_timeout`](crate::ClientBuilder::http2_keep_alive_timeout)).
    KeepAlive,
}

impl fmt::Display for TimeoutKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            TimeoutKind::Connect => "connect",
            TimeoutKind::Total => "total",
            TimeoutKind::Idle => "idle",
            TimeoutKind::KeepAlive => "keep-alive",
        })
    }
}

/// `connect timeout of 30s elapsed while connecting (connect_timeout)`: which timeout,
/// how long it was, what it was waiting for and the option that sets it.
fn describe_timeout(kind: TimeoutKind, after: std::time::Duration) -> String {
    let (waiting, option) = match kind {
        TimeoutKind::Connect => ("while connecting", "connect_timeout"),
        TimeoutKind::Total => ("for the whole fetch", "timeout"),
        TimeoutKind::Idle => ("with no byte from the server", "read_timeout"),
        TimeoutKind::KeepAlive => (
            "waiting for the answer to an HTTP/2 PING",
            "http2_keep_alive_timeout",
        ),
    };
    format!("{kind} timeout of {after:?} elapsed {waiting} ({option})")
}

/// The error type of this crate.
///
/// Cheap to clone: an abort reason or a body error can be handed to several waiters.
#[derive(Clone)]
pub struct Error {
    inner: Arc<Inner>,
}

struct Inner {
    kind: ErrorKind,
    message: Cow<'static, str>,
    source: Option<Arc<dyn std::error::Error + Send + Sync + 'static>>,
    payload: Option<Arc<dyn Any + Send + Sync>>,
    /// Not in the spec: the URL whose fetch ended in this network error.
    url: Option<Box<str>>,
    /// Not in the spec: the status of an [`ErrorKind::HttpStatus`] error.
    status: Option<http::StatusCode>,
    /// Not in the spec: the error ended the read of a response's body, after its head.
    in_body: bool,
}

impl Error {
    /// An error of `kind` with a message saying what was wrong.
    pub fn new(kind: ErrorKind, message: impl Into<Cow<'static, str>>) -> Error {
        Error {
            inner: Arc::new(Inner {
                kind,
                message: message.into(),
                source: None,
                payload: None,
                url: None,
                status: None,
                in_body: false,
            }),
        }
    }

    /// A `TypeError` with `message`.
    pub fn type_error(message: impl Into<Cow<'static, str>>) -> Error {
        Error::new(ErrorKind::TypeError, message)
    }

    /// A `RangeError` with `message`.
    pub fn range_error(message: impl Into<Cow<'static, str>>) -> Error {
        Error::new(ErrorKind::RangeError, message)
    }

    /// An `AbortError` `DOMException`, the default reason of an aborted signal.
    pub fn abort_error() -> Error {
        Error::new(ErrorKind::AbortError, "This operation was aborted")
    }

    /// A `TimeoutError` `DOMException`, the reason of a signal from
    /// [`AbortSignal::timeout`](crate::AbortSignal::timeout).
    pub fn timeout_error() -> Error {
        Error::new(ErrorKind::TimeoutError, "The operation timed out")
    }

    /// A network error: a `TypeError` whose source is `cause`.
    pub fn network(cause: NetworkError) -> Error {
        Error::type_error("network error").with_source(cause)
    }

    /// An error of kind [`ErrorKind::Custom`] carrying a caller's value, for abort reasons
    /// that are not exceptions (`controller.abort("why")` in JavaScript).
    pub fn custom(
        message: impl Into<Cow<'static, str>>,
        payload: Arc<dyn Any + Send + Sync>,
    ) -> Error {
        Error::new(ErrorKind::Custom, message).with_payload(payload)
    }

    /// This error with `source` as its cause.
    pub fn with_source(self, source: impl Into<BoxError>) -> Error {
        let source: BoxError = source.into();
        let inner = self.into_inner();
        Error {
            inner: Arc::new(Inner {
                source: Some(Arc::from(source)),
                ..inner
            }),
        }
    }

    /// This error carrying `payload`, a value the caller wants back unchanged (the
    /// JavaScript value of an abort reason, for example).
    pub fn with_payload(self, payload: Arc<dyn Any + Send + Sync>) -> Error {
        let inner = self.into_inner();
        Error {
            inner: Arc::new(Inner {
                payload: Some(payload),
                ..inner
            }),
        }
    }

    /// The error of [`Response::error_for_status`](crate::Response::error_for_status):
    /// `status` (with its reason phrase, `reason`) answered `url`.
    pub(crate) fn http_status(status: http::StatusCode, reason: &str, url: &str) -> Error {
        let class = if status.is_client_error() {
            "client error"
        } else {
            "server error"
        };
        let reason = match reason {
            "" => status.canonical_reason().unwrap_or_default(),
            reason => reason,
        };
        let message = format!("HTTP status {class} ({} {reason})", status.as_u16());
        let inner = Error::new(ErrorKind::HttpStatus, message).into_inner();
        Error {
            inner: Arc::new(Inner {
                status: Some(status),
                url: (!url.is_empty()).then(|| url.into()),
                ..inner
            }),
        }
    }

    /// This network error as one that ended the read of a response's body (see
    /// [`Error::is_body`]).
    pub(crate) fn in_body(self) -> Error {
        if self.inner.in_body {
            return self;
        }
        let inner = self.into_inner();
        Error {
            inner: Arc::new(Inner {
                in_body: true,
                ..inner
            }),
        }
    }

    /// This error naming `url` as the URL whose fetch failed (see [`Error::url`]).
    pub(crate) fn with_url(self, url: &url::Url) -> Error {
        let inner = self.into_inner();
        Error {
            inner: Arc::new(Inner {
                url: Some(url.as_str().into()),
                ..inner
            }),
        }
    }

    fn into_inner(self) -> Inner {
        match Arc::try_unwrap(self.inner) {
            Ok(inner) => inner,
            Err(shared) => Inner {
                kind: shared.kind,
                message: shared.message.clone(),
                source: shared.source.clone(),
                payload: shared.payload.clone(),
                url: shared.url.clone(),
                status: shared.status,
                in_body: shared.in_body,
            },
        }
    }

    /// Which JavaScript exception the spec throws here.
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The message, without the cause.
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The URL whose fetch failed, for the error a [`fetch`](crate::fetch) rejects with
    /// when the fetch ends in a network error: the request's current URL, the last one
    /// of its redirects.
    pub fn url(&self) -> Option<&str> {
        self.inner.url.as_deref()
    }

    /// The value attached with [`Error::with_payload`] or [`Error::custom`], if any.
    pub fn payload(&self) -> Option<&Arc<dyn Any + Send + Sync>> {
        self.inner.payload.as_ref()
    }

    /// The network error behind a rejected fetch, if any: the first [`NetworkError`] in the
    /// chain of sources.
    pub fn network_error(&self) -> Option<&NetworkError> {
        let mut source: Option<&(dyn std::error::Error + 'static)> = match &self.inner.source {
            Some(source) => Some(source.as_ref()),
            None => None,
        };
        while let Some(error) = source {
            if let Some(network) = error.downcast_ref::<NetworkError>() {
                return Some(network);
            }
            source = error.source();
        }
        None
    }

    /// Whether this is an `AbortError` or a `TimeoutError`: the fetch was cancelled.
    pub fn is_abort(&self) -> bool {
        matches!(self.kind(), ErrorKind::AbortError | ErrorKind::TimeoutError)
    }

    /// Whether a timeout ended the fetch or the read of its body, whichever timed out: a
    /// client's or a request's total [`timeout`](crate::ClientBuilder::timeout), the
    /// [`connect_timeout`](crate::ClientBuilder::connect_timeout), the
    /// [`read_timeout`](crate::ClientBuilder::read_timeout), an unanswered HTTP/2 PING
    /// (all [`NetworkError::Timeout`]), an [`AbortSignal::timeout`](crate::AbortSignal::timeout)
    /// (a `TimeoutError`), or an I/O error that timed out.
    ///
    /// ```
    /// use whatwg_fetch::{Error, NetworkError, TimeoutKind};
    ///
    /// let after = std::time::Duration::from_secs(1);
    /// let error = Error::network(NetworkError::Timeout { kind: TimeoutKind::Total, after });
    /// assert!(error.is_timeout() && !error.is_connect());
    /// assert!(Error::timeout_error().is_timeout());
    /// ```
    pub fn is_timeout(&self) -> bool {
        self.kind() == ErrorKind::TimeoutError
            || matches!(self.network_error(), Some(NetworkError::Timeout { .. }))
            || self.causes().any(|cause| {
                cause
                    .downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
            })
    }

    /// Whether the connection could not be made: the name did not resolve, the connect
    /// failed or timed out, or the TLS handshake failed.
    ///
    /// ```
    /// use whatwg_fetch::{Error, NetworkError};
    ///
    /// let error = Error::network(NetworkError::Connect("refused".into()));
    /// assert!(error.is_connect());
    /// ```
    pub fn is_connect(&self) -> bool {
        matches!(
            self.network_error(),
            Some(
                NetworkError::Dns(_)
                    | NetworkError::Connect(_)
                    | NetworkError::Tls(_)
                    | NetworkError::Timeout {
                        kind: TimeoutKind::Connect,
                        ..
                    }
            )
        )
    }

    /// Whether a redirect ended the fetch: more than 20, one refused by the request's
    /// redirect mode `error`, an invalid `Location`, or one that needed a streamed body
    /// again.
    pub fn is_redirect(&self) -> bool {
        matches!(
            self.network_error(),
            Some(
                NetworkError::TooManyRedirects
                    | NetworkError::RedirectRefused
                    | NetworkError::InvalidLocation(_)
                    | NetworkError::StreamBodyOnRedirect
            )
        )
    }

    /// Whether the body could not be decoded: a content coding that did not decode (or too
    /// many of them), or a body that is not the JSON asked for (a `SyntaxError`).
    pub fn is_decode(&self) -> bool {
        self.kind() == ErrorKind::SyntaxError
            || matches!(
                self.network_error(),
                Some(NetworkError::Decode(_) | NetworkError::TooManyContentCodings { .. })
            )
    }

    /// Whether the error ended the read of a response's body, after its head had arrived:
    /// the connection failed or timed out in the middle of it, it was shorter or longer
    /// than its `Content-Length`, it passed a size limit, or it did not decode.
    pub fn is_body(&self) -> bool {
        self.inner.in_body
    }

    /// Whether this is the error of a response whose status is a client or server error,
    /// from [`Response::error_for_status`](crate::Response::error_for_status).
    pub fn is_status(&self) -> bool {
        self.inner.kind == ErrorKind::HttpStatus
    }

    /// The status of an error from
    /// [`Response::error_for_status`](crate::Response::error_for_status).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Response, ResponseInit, StatusCode};
    ///
    /// let response = Response::new(None, ResponseInit { status: 404, ..Default::default() })?;
    /// let error = response.error_for_status().unwrap_err();
    /// assert!(error.is_status());
    /// assert_eq!(error.status(), Some(StatusCode::NOT_FOUND));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn status(&self) -> Option<http::StatusCode> {
        self.inner.status
    }

    /// The chain of causes under this error: its source, the source's source, and so on.
    fn causes(&self) -> impl Iterator<Item = &(dyn std::error::Error + 'static)> {
        let first: Option<&(dyn std::error::Error + 'static)> = match &self.inner.source {
            Some(source) => Some(source.as_ref()),
            None => None,
        };
        std::iter::successors(first, |error| error.source())
    }

    /// Whether both errors are the same value: clones of one error compare equal.
    pub fn same(&self, other: &Error) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("Error");
        debug.field("kind", &self.inner.kind);
        debug.field("message", &self.inner.message);
        if let Some(source) = &self.inner.source {
            debug.field("source", source);
        }
        if self.inner.payload.is_some() {
            debug.field("payload", &"..");
        }
        if let Some(url) = &self.inner.url {
            debug.field("url", url);
        }
        debug.finish()
    }
}

/// `TypeError: network error for http://127.0.0.1:1/: connect to 127.0.0.1:1 failed:
/// Connection refused (os error 111)`: the kind and the message, the URL whose fetch
/// failed if known, and for an error with a network cause what that cause says (which
/// [`source`](std::error::Error::source) also gives, as an error value).
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.inner.kind, self.inner.message)?;
        if let Some(url) = &self.inner.url {
            write!(f, " for {url}")?;
        }
        if let Some(network) = self.network_error() {
            write!(f, ": {network}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match &self.inner.source {
            Some(source) => Some(source.as_ref()),
            None => None,
        }
    }
}

impl From<NetworkError> for Error {
    fn from(cause: NetworkError) -> Error {
        Error::network(cause)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn network_error_is_a_type_error_with_its_cause() {
        let error = Error::network(NetworkError::BadPort(25));
        assert_eq!(error.kind(), ErrorKind::TypeError);
        assert!(matches!(
            error.network_error(),
            Some(NetworkError::BadPort(25))
        ));
        assert!(std::error::Error::source(&error).is_some());
    }

    #[test]
    fn clones_are_the_same_error() {
        let error = Error::abort_error();
        let clone = error.clone();
        assert!(error.same(&clone));
        assert!(!error.same(&Error::abort_error()));
        assert!(error.is_abort());
    }

    #[test]
    fn payload_survives_with_source() {
        let error =
            Error::custom("reason", Arc::new(42_u32)).with_source(NetworkError::TooManyRedirects);
        assert_eq!(error.kind(), ErrorKind::Custom);
        let payload = error.payload().and_then(|p| p.downcast_ref::<u32>());
        assert_eq!(payload, Some(&42));
    }

    /// An error whose message already says what failed, over an I/O error.
    #[derive(Debug)]
    struct Described(std::io::Error);

    impl fmt::Display for Described {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "connect to 127.0.0.1:1 failed: {}", self.0)
        }
    }

    impl std::error::Error for Described {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn a_network_error_with_a_cause_says_what_the_cause_says_once() {
        let refused = || std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        // A bare cause gets the variant's label.
        let bare = NetworkError::Connect(Box::new(refused()));
        assert_eq!(bare.to_string(), "connect failed: refused");
        // A cause that says what failed stands alone, and its own cause, already in its
        // message, is not repeated.
        let described = NetworkError::Connect(Box::new(Described(refused())));
        assert_eq!(
            described.to_string(),
            "connect to 127.0.0.1:1 failed: refused"
        );
        let error = Error::network(described);
        assert_eq!(
            error.to_string(),
            "TypeError: network error: connect to 127.0.0.1:1 failed: refused"
        );
        let url = url::Url::parse("http://127.0.0.1:1/a").unwrap();
        assert_eq!(
            error.with_url(&url).to_string(),
            "TypeError: network error for http://127.0.0.1:1/a: connect to 127.0.0.1:1 failed: refused"
        );
    }

    #[test]
    fn kind_names_match_javascript() {
        assert_eq!(ErrorKind::TypeError.js_name(), "TypeError");
        assert!(ErrorKind::AbortError.is_dom_exception());
        assert!(!ErrorKind::RangeError.is_dom_exception());
    }
}
