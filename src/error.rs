//! Errors that name the JavaScript exception the Fetch Standard throws.
//!
//! Every fallible operation in this crate returns [`Error`]. Its [`kind`](Error::kind)
//! says which exception a browser would throw for the same input — a `TypeError` for an
//! invalid header name, a `RangeError` for a status of 600, an `AbortError` when a signal
//! fires — so code written against the spec's prose can match on it. The network cause,
//! if any, is on [`std::error::Error::source`] and on [`Error::network_error`].
//!
//! ```
//! # tokio_test::block_on(async {
//! use whatwg_fetch::{Client, ErrorKind};
//!
//! let error = Client::new().get("data:,x").header("bad name", "v").send().await.unwrap_err();
//! assert_eq!(error.kind(), ErrorKind::TypeError);
//! // Not a network error: the request was never made.
//! assert!(error.network_error().is_none());
//! # });
//! ```

use std::any::Any;
use std::borrow::Cow;
use std::fmt;
use std::sync::Arc;

/// A boxed error that can cross threads: the cause behind an [`Error`].
///
/// ```
/// use whatwg_fetch::{BoxError, Error};
///
/// let cause: BoxError = "the disk is full".into();
/// let error = Error::type_error("the cache cannot be written").with_source(cause);
/// assert!(std::error::Error::source(&error).is_some());
/// ```
pub type BoxError = Box<dyn std::error::Error + Send + Sync + 'static>;

/// A `Result` whose error is this crate's [`Error`].
///
/// ```
/// fn parse_port(text: &str) -> whatwg_fetch::Result<u16> {
///     text.parse().map_err(|_| whatwg_fetch::Error::type_error(format!("{text:?} is not a port")))
/// }
/// assert_eq!(parse_port("8080")?, 8080);
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Which JavaScript exception the spec throws for an error.
///
/// The names match the JavaScript constructors (`TypeError`, `RangeError`, `SyntaxError`)
/// and the [`DOMException`](https://webidl.spec.whatwg.org/#idl-DOMException-error-names)
/// names (`AbortError`, `TimeoutError`, `InvalidStateError`, `NotSupportedError`,
/// `NotFoundError`, `NotReadableError`).
///
/// ```
/// # tokio_test::block_on(async {
/// use whatwg_fetch::{Client, ErrorKind, Response, ResponseInit};
///
/// // The exception JavaScript would throw, for a binding to throw it or a caller to match.
/// let bad_status = Response::new(None, ResponseInit { status: 99, ..ResponseInit::default() });
/// assert_eq!(bad_status.unwrap_err().kind(), ErrorKind::RangeError);
/// let bad_url = Client::new().get("not a url").send().await.unwrap_err();
/// assert_eq!(bad_url.kind(), ErrorKind::TypeError);
/// assert_eq!(ErrorKind::TypeError.to_string(), "TypeError");
/// # });
/// ```
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
    /// Not an exception of the spec's: [`Response::upgrade`](crate::Response::upgrade) on a
    /// response that has no connection to hand over (not a `101 Switching Protocols`,
    /// or taken already). Its [`status`](Error::status) is the response's.
    Upgrade,
    /// Not an exception of the spec's: a [WebSocket](crate::websocket) failed, in its
    /// opening handshake (the server's answer lacked what RFC 6455 requires) or after it
    /// (a protocol error, a limit passed, the connection lost). Its source is a
    /// [`WebSocketError`](crate::websocket::WebSocketError) that says which, and its
    /// message says it too.
    WebSocket,
}

impl ErrorKind {
    /// The JavaScript name of the exception: `"TypeError"`, `"AbortError"`, and so on.
    ///
    /// ```
    /// use whatwg_fetch::ErrorKind;
    ///
    /// // What a JavaScript binding throws: a built-in error, or a DOMException of this name.
    /// assert_eq!(ErrorKind::TypeError.js_name(), "TypeError");
    /// assert_eq!(ErrorKind::AbortError.js_name(), "AbortError");
    /// ```
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
            ErrorKind::Custom
            | ErrorKind::HttpStatus
            | ErrorKind::Upgrade
            | ErrorKind::WebSocket => "Error",
        }
    }

    /// Whether the spec throws this as a `DOMException` rather than a JavaScript
    /// built-in error.
    ///
    /// ```
    /// use whatwg_fetch::ErrorKind;
    ///
    /// assert!(ErrorKind::AbortError.is_dom_exception());
    /// assert!(!ErrorKind::TypeError.is_dom_exception());
    /// ```
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
///
/// ```
/// # tokio_test::block_on(async {
/// # let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
/// # let url = format!("http://{}/", closed.local_addr().unwrap());
/// # drop(closed);
/// use whatwg_fetch::{Client, NetworkError};
///
/// // `url`: a port on 127.0.0.1 that nothing listens on.
/// let error = Client::new().get(&url).send().await.unwrap_err();
/// match error.network_error() {
///     Some(NetworkError::Connect(_)) => {}
///     Some(NetworkError::Dns(_)) => panic!("127.0.0.1 needs no DNS"),
///     other => panic!("{other:?}"),
/// }
/// # });
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum NetworkError {
    /// The URL's scheme is not one fetch can handle.
    #[error("unsupported URL scheme {0:?}")]
    UnsupportedScheme(String),
    /// The URL's port is on the spec's [bad port](https://fetch.spec.whatwg.org/#bad-port) list.
    #[error("port {0} is blocked")]
    BadPort(u16),
    /// A redirect chain longer than 20 (the spec's limit), or than the limit of the
    /// client's [redirect policy](crate::redirect::Policy::limited).
    #[error("more than {max} redirects")]
    TooManyRedirects {
        /// The most redirects followed in a row.
        max: usize,
    },
    /// The client's [custom redirect policy](crate::redirect::Policy::custom) failed the
    /// fetch at a redirect, with its error as the source.
    #[error("the redirect policy refused a redirect")]
    RedirectPolicy(#[source] BoxError),
    /// A redirect was refused because the request's redirect mode is `error`.
    #[error("redirect refused: the request's redirect mode is \"error\"")]
    RedirectRefused,
    /// A redirect's `Location` could not be parsed as a URL.
    #[error("invalid Location header {0:?}")]
    InvalidLocation(String),
    /// A redirect to a plain `http:` URL, refused by a client made
    /// [`https_only`](crate::ClientBuilder::https_only) (after HSTS had its chance to
    /// upgrade it). The first request's own `http:` URL is [`Blocked`](Self::Blocked)
    /// instead.
    #[error("redirect to a plain http: URL refused: the client is https_only")]
    RedirectToHttp,
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
    #[error("DNS lookup failed")]
    Dns(#[source] BoxError),
    /// The connection could not be established.
    #[error("connect failed")]
    Connect(#[source] BoxError),
    /// The TLS handshake failed (its source, a
    /// [`TlsHandshakeError`](crate::net::TlsHandshakeError), names the host and the
    /// reason), or a builder's TLS options cannot be used.
    #[error("TLS handshake failed")]
    Tls(#[source] BoxError),
    /// The peer broke the HTTP protocol or closed the connection early.
    #[error("HTTP protocol error")]
    Protocol(#[source] BoxError),
    /// A response body whose content coding could not be decoded.
    #[error("content decoding failed")]
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
    #[error("transport layer failed")]
    Layer(#[source] BoxError),
}

/// The first word of an error message, lowercased: `connect` for both `connect failed` and
/// `connect to 127.0.0.1:1 failed: …`, so that a label its cause restates is written once.
fn first_word(text: &str) -> Option<String> {
    text.split([' ', '/']).next().map(str::to_ascii_lowercase)
}

/// Writes `: message` for each error in a chain of causes, skipping one whose message the
/// previous one already ends with (a cause that wraps an error it also quotes).
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

/// Any error and its chain of causes on one line, as `{:#}` of this crate's [`Error`]
/// writes them: for an error at hand that is not an `Error`, such as the
/// [`NetworkError`] of [`Error::network_error`].
///
/// A label its cause restates (`connect failed` over `connect to 127.0.0.1:1 failed`) is
/// written once.
///
/// ```
/// use whatwg_fetch::NetworkError;
/// use whatwg_fetch::error::Chain;
///
/// let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
/// let error = NetworkError::Connect(Box::new(refused));
/// assert_eq!(error.to_string(), "connect failed");
/// assert_eq!(Chain(&error).to_string(), "connect failed: refused");
/// ```
#[derive(Clone, Copy)]
pub struct Chain<'a>(pub &'a (dyn std::error::Error + 'static));

impl fmt::Display for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let label = self.0.to_string();
        let cause = self.0.source();
        let restated =
            cause.is_some_and(|cause| first_word(&cause.to_string()) == first_word(&label));
        if !restated {
            f.write_str(&label)?;
        }
        match cause {
            Some(cause) if restated => {
                let first = cause.to_string();
                f.write_str(&first)?;
                write_causes(f, &first, cause.source())
            }
            _ => write_causes(f, &label, cause),
        }
    }
}

impl fmt::Debug for Chain<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

/// Which of a client's timeouts fired.
///
/// ```
/// use whatwg_fetch::TimeoutKind;
///
/// // Named as the option that set the limit is named.
/// assert_eq!(TimeoutKind::Connect.to_string(), "connect");
/// assert_eq!(TimeoutKind::Idle.to_string(), "idle");
/// ```
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
    /// A keep-alive PING went unanswered: an HTTP/2 one
    /// ([`http2_keep_alive_timeout`](crate::ClientBuilder::http2_keep_alive_timeout)), or
    /// on HTTP/3 what the server had to acknowledge, its path gone silent
    /// (`http3_keep_alive_timeout`, with the `http3` Cargo feature).
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
            "waiting for the server to answer a PING",
            "http2_keep_alive_timeout, http3_keep_alive_timeout",
        ),
    };
    format!("{kind} timeout of {after:?} elapsed {waiting} ({option})")
}

/// The error type of this crate.
///
/// Cheap to clone: an abort reason or a body error can be handed to several waiters.
///
/// ```
/// # tokio_test::block_on(async {
/// use whatwg_fetch::{Client, ErrorKind};
///
/// let error = Client::new().get("data:,x").header("bad name", "v").send().await.unwrap_err();
/// // What JavaScript would throw, and a message that says what and where.
/// assert_eq!(error.kind(), ErrorKind::TypeError);
/// assert!(error.to_string().starts_with("TypeError: "));
/// # });
/// ```
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
    /// What the error says after its message and URL: the reason of a cause that is not
    /// kept as a source (serde's, for a body that is not JSON).
    detail: Option<Box<str>>,
}

impl Error {
    /// An error of `kind` with a message saying what was wrong.
    ///
    /// ```
    /// use whatwg_fetch::{Error, ErrorKind};
    ///
    /// // A `Transport` or a cookie provider saying why it could not go on.
    /// let error = Error::new(ErrorKind::InvalidStateError, "the store is closed");
    /// assert_eq!((error.kind(), error.message()), (ErrorKind::InvalidStateError, "the store is closed"));
    /// ```
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
                detail: None,
            }),
        }
    }

    /// A `TypeError` with `message`.
    ///
    /// ```
    /// let error = whatwg_fetch::Error::type_error("the URL has no host");
    /// assert_eq!(error.kind(), whatwg_fetch::ErrorKind::TypeError);
    /// assert_eq!(error.to_string(), "TypeError: the URL has no host");
    /// ```
    pub fn type_error(message: impl Into<Cow<'static, str>>) -> Error {
        Error::new(ErrorKind::TypeError, message)
    }

    /// A `RangeError` with `message`.
    ///
    /// ```
    /// let error = whatwg_fetch::Error::range_error("status 99 is outside the range 200 to 599");
    /// assert_eq!(error.kind(), whatwg_fetch::ErrorKind::RangeError);
    /// ```
    pub fn range_error(message: impl Into<Cow<'static, str>>) -> Error {
        Error::new(ErrorKind::RangeError, message)
    }

    /// An `AbortError` `DOMException`, the default reason of an aborted signal.
    ///
    /// ```
    /// use whatwg_fetch::{AbortController, Error};
    ///
    /// let controller = AbortController::new();
    /// controller.abort(Some(Error::abort_error()));
    /// assert!(controller.signal().reason().is_some_and(|reason| reason.is_abort()));
    /// ```
    pub fn abort_error() -> Error {
        Error::new(ErrorKind::AbortError, "This operation was aborted")
    }

    /// A `TimeoutError` `DOMException`, the reason of a signal from
    /// [`AbortSignal::timeout`](crate::AbortSignal::timeout).
    ///
    /// ```
    /// let error = whatwg_fetch::Error::timeout_error();
    /// assert_eq!(error.kind(), whatwg_fetch::ErrorKind::TimeoutError);
    /// // A `TimeoutError` is a cancellation too, as `AbortSignal.timeout()` makes it.
    /// assert!(error.is_abort());
    /// ```
    pub fn timeout_error() -> Error {
        Error::new(ErrorKind::TimeoutError, "The operation timed out")
    }

    /// A network error: a `TypeError` whose source is `cause`.
    ///
    /// ```
    /// use whatwg_fetch::{Error, NetworkError};
    ///
    /// // What a `Transport` returns for a request it could not send.
    /// let error = Error::network(NetworkError::Other("the upstream is draining".into()));
    /// assert_eq!(error.kind(), whatwg_fetch::ErrorKind::TypeError);
    /// assert!(matches!(error.network_error(), Some(NetworkError::Other(_))));
    /// ```
    pub fn network(cause: NetworkError) -> Error {
        Error::type_error("network error").with_source(cause)
    }

    /// An error of kind [`ErrorKind::Custom`] carrying a caller's value, for abort reasons
    /// that are not exceptions (`controller.abort("why")` in JavaScript).
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::{AbortController, Error};
    ///
    /// // An abort reason that is the caller's own value, given back as it was.
    /// #[derive(Debug, PartialEq)]
    /// struct Shutdown { grace_seconds: u32 }
    ///
    /// let controller = AbortController::new();
    /// controller.abort(Some(Error::custom("shutting down", Arc::new(Shutdown { grace_seconds: 5 }))));
    /// let reason = controller.signal().reason().expect("aborted");
    /// let payload = reason.payload().and_then(|payload| payload.downcast_ref::<Shutdown>());
    /// assert_eq!(payload, Some(&Shutdown { grace_seconds: 5 }));
    /// ```
    pub fn custom(
        message: impl Into<Cow<'static, str>>,
        payload: Arc<dyn Any + Send + Sync>,
    ) -> Error {
        Error::new(ErrorKind::Custom, message).with_payload(payload)
    }

    /// This error with `source` as its cause.
    ///
    /// ```
    /// use std::error::Error as _;
    /// use whatwg_fetch::Error;
    ///
    /// let io = std::io::Error::new(std::io::ErrorKind::PermissionDenied, "cache.db is read-only");
    /// let error = Error::type_error("the cache cannot be written").with_source(io);
    /// assert_eq!(error.source().map(|source| source.to_string()).as_deref(), Some("cache.db is read-only"));
    /// ```
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
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::Error;
    ///
    /// let error = Error::abort_error().with_payload(Arc::new(42u32));
    /// assert_eq!(error.payload().and_then(|payload| payload.downcast_ref::<u32>()), Some(&42));
    /// ```
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

    /// The error of [`Response::upgrade`](crate::Response::upgrade): `why` the response
    /// with `status` to `url` has no connection to hand over.
    pub(crate) fn upgrade(status: u16, why: &str, url: Option<&url::Url>) -> Error {
        let inner = Error::new(ErrorKind::Upgrade, why.to_owned()).into_inner();
        Error {
            inner: Arc::new(Inner {
                status: http::StatusCode::from_u16(status).ok(),
                url: url.map(|url| url.as_str().into()),
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

    /// This error saying `detail` after its message and URL.
    pub(crate) fn with_detail(self, detail: impl Into<Box<str>>) -> Error {
        let inner = self.into_inner();
        Error {
            inner: Arc::new(Inner {
                detail: Some(detail.into()),
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
                detail: shared.detail.clone(),
            },
        }
    }

    /// Which JavaScript exception the spec throws here.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Client, ErrorKind};
    ///
    /// // The exception JavaScript's `fetch()` would throw: here a `TypeError` for a bad URL.
    /// let error = Client::new().get("http://exa mple.com/").send().await.unwrap_err();
    /// assert_eq!(error.kind(), ErrorKind::TypeError);
    /// # });
    /// ```
    pub fn kind(&self) -> ErrorKind {
        self.inner.kind
    }

    /// The message, without the cause.
    ///
    /// ```
    /// let error = whatwg_fetch::Error::type_error("the URL has no host");
    /// assert_eq!(error.message(), "the URL has no host");
    /// ```
    pub fn message(&self) -> &str {
        &self.inner.message
    }

    /// The URL whose fetch failed, for the error a [`fetch`](crate::fetch) rejects with
    /// when the fetch ends in a network error: the request's current URL, the last one
    /// of its redirects.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let url = format!("http://{}/items", closed.local_addr().unwrap());
    /// # drop(closed);
    /// // `url`: a port on 127.0.0.1 that nothing listens on.
    /// let error = whatwg_fetch::Client::new().get(&url).send().await.unwrap_err();
    /// assert_eq!(error.url(), Some(url.as_str()));
    /// # });
    /// ```
    pub fn url(&self) -> Option<&str> {
        self.inner.url.as_deref()
    }

    /// The value attached with [`Error::with_payload`] or [`Error::custom`], if any.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::Error;
    ///
    /// let error = Error::custom("cancelled by the user", Arc::new("tab closed"));
    /// assert_eq!(error.payload().and_then(|payload| payload.downcast_ref::<&str>()), Some(&"tab closed"));
    /// assert!(Error::abort_error().payload().is_none());
    /// ```
    pub fn payload(&self) -> Option<&Arc<dyn Any + Send + Sync>> {
        self.inner.payload.as_ref()
    }

    /// The network error behind a rejected fetch, if any: the first [`NetworkError`] in the
    /// chain of sources.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Client, NetworkError};
    ///
    /// # let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    /// # let url = format!("http://{}/items", closed.local_addr().unwrap());
    /// # drop(closed);
    /// // `url`: a port on 127.0.0.1 that nothing listens on.
    /// let error = Client::new().get(&url).send().await.unwrap_err();
    /// match error.network_error() {
    ///     Some(NetworkError::Connect(cause)) => eprintln!("connection refused: {cause}"),
    ///     other => panic!("another error: {other:?}"),
    /// }
    /// # });
    /// ```
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
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{AbortController, Client};
    ///
    /// let controller = AbortController::new();
    /// controller.abort(None);
    /// let error = Client::new().get("data:,x").signal(controller.signal()).send().await.unwrap_err();
    /// assert!(error.is_abort());
    /// # });
    /// ```
    pub fn is_abort(&self) -> bool {
        matches!(self.kind(), ErrorKind::AbortError | ErrorKind::TimeoutError)
    }

    /// Whether a timeout ended the fetch or the read of its body, whichever timed out: a
    /// client's or a request's total [`timeout`](crate::ClientBuilder::timeout), the
    /// [`connect_timeout`](crate::ClientBuilder::connect_timeout), the
    /// [`read_timeout`](crate::ClientBuilder::read_timeout), an unanswered HTTP/2 PING
    /// (all [`NetworkError::Timeout`]), an [`AbortSignal::timeout`](crate::AbortSignal::timeout)
    /// (a `TimeoutError`), tower's timeout layer around the transport (with the `tower`
    /// feature), or an I/O error that timed out.
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
                #[cfg(feature = "tower")]
                if cause.is::<tower::timeout::error::Elapsed>() {
                    return true;
                }
                cause
                    .downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::TimedOut)
            })
    }

    /// Whether the request could not be made: an invalid URL, method, header or body given
    /// to a builder or to [`Request::new`](crate::Request::new) (a `TypeError` with no
    /// network error, before anything was sent), as reqwest's `is_builder`.
    ///
    /// ```
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let error = client.get("http://example.com/").header("bad name", "x").build().unwrap_err();
    /// assert!(error.is_builder() && !error.is_request());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn is_builder(&self) -> bool {
        self.kind() == ErrorKind::TypeError
            && self.network_error().is_none()
            && !self.inner.in_body
            && self.inner.status.is_none()
    }

    /// Whether the fetch failed before a response came, as reqwest's `is_request`: any
    /// network error that is not a redirect's and did not end the read of a body (a refused
    /// connection is both this and [`is_connect`](Self::is_connect), as in reqwest).
    ///
    /// ```
    /// use whatwg_fetch::{Error, NetworkError};
    ///
    /// let error = Error::network(NetworkError::Connect("refused".into()));
    /// assert!(error.is_request() && error.is_connect());
    /// ```
    pub fn is_request(&self) -> bool {
        self.network_error().is_some() && !self.inner.in_body && !self.is_redirect()
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

    /// Whether the host name did not resolve ([`NetworkError::Dns`]), as reqwest's
    /// `is_dns`; such an error is a connect error too.
    ///
    /// ```
    /// use whatwg_fetch::{Error, NetworkError};
    ///
    /// let error = Error::network(NetworkError::Dns("no such host".into()));
    /// assert!(error.is_dns() && error.is_connect());
    /// ```
    pub fn is_dns(&self) -> bool {
        matches!(self.network_error(), Some(NetworkError::Dns(_)))
    }

    /// This error without the URL it names, for a log that must not show one (its query
    /// may hold a token), as reqwest's `without_url`. The causes still say what they say.
    ///
    /// ```
    /// use whatwg_fetch::{Error, NetworkError};
    ///
    /// let error = Error::network(NetworkError::BadPort(25));
    /// assert_eq!(error.without_url().url(), None);
    /// ```
    pub fn without_url(self) -> Error {
        if self.inner.url.is_none() {
            return self;
        }
        let inner = self.into_inner();
        Error {
            inner: Arc::new(Inner { url: None, ..inner }),
        }
    }

    /// Whether a redirect ended the fetch: more than 20 (or the redirect policy's limit), one
    /// refused by the redirect policy, by the request's redirect mode `error` or, to a
    /// plain `http:` URL, by an [`https_only`](crate::ClientBuilder::https_only) client, an
    /// invalid `Location`, or one that needed a streamed body again.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/old", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 302 Found\r\nlocation: /new\r\ncontent-length: 0\r\n\r\n").await;
    /// # });
    /// use whatwg_fetch::{Client, RequestRedirect};
    ///
    /// // `url` answers with a redirect, which this request does not accept.
    /// let error = Client::new().get(&url).redirect(RequestRedirect::Error).send().await.unwrap_err();
    /// assert!(error.is_redirect());
    /// # });
    /// ```
    pub fn is_redirect(&self) -> bool {
        matches!(
            self.network_error(),
            Some(
                NetworkError::TooManyRedirects { .. }
                    | NetworkError::RedirectPolicy(_)
                    | NetworkError::RedirectRefused
                    | NetworkError::InvalidLocation(_)
                    | NetworkError::RedirectToHttp
                    | NetworkError::StreamBodyOnRedirect
            )
        )
    }

    /// Whether the body could not be decoded: a content coding that did not decode (or too
    /// many of them), or a body that is not the JSON asked for (a `SyntaxError`).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let mut response = Response::new(Some("<html>".into()), ResponseInit::default())?;
    /// let error = response.json::<serde_json::Value>().await.unwrap_err();
    /// assert!(error.is_decode());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
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
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // Promises 100 bytes, sends 5, and closes the connection.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nhello").await;
    /// # });
    /// let mut response = whatwg_fetch::Client::new().get(&url).send().await?;
    /// // The head came; the body did not come whole.
    /// let error = response.text().await.unwrap_err();
    /// assert!(error.is_body());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn is_body(&self) -> bool {
        self.inner.in_body
    }

    /// Whether this is the error of a response whose status is a client or server error,
    /// from [`Response::error_for_status`](crate::Response::error_for_status).
    ///
    /// ```
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let response = Response::new(None, ResponseInit { status: 503, ..ResponseInit::default() })?;
    /// let error = response.error_for_status().unwrap_err();
    /// assert!(error.is_status());
    /// assert_eq!(error.status(), Some(whatwg_fetch::StatusCode::SERVICE_UNAVAILABLE));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn is_status(&self) -> bool {
        self.inner.kind == ErrorKind::HttpStatus
    }

    /// Whether [`Response::upgrade`](crate::Response::upgrade) found no connection to hand
    /// over ([`ErrorKind::Upgrade`]), as reqwest's `is_upgrade`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// let response = whatwg_fetch::Response::new(None, Default::default())?;
    /// let error = response.upgrade().await.unwrap_err();
    /// assert!(error.is_upgrade());
    /// assert_eq!(error.status(), Some(whatwg_fetch::StatusCode::OK));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn is_upgrade(&self) -> bool {
        self.inner.kind == ErrorKind::Upgrade
    }

    /// Whether a [WebSocket](crate::websocket) failed ([`ErrorKind::WebSocket`]): its
    /// handshake's answer, or the connection after it. A fetch error of the handshake
    /// (DNS, connect, TLS) keeps its own kind.
    ///
    /// ```no_run
    /// # async fn run() {
    /// let result = whatwg_fetch::Client::new().websocket("wss://example.com/").connect().await;
    /// if let Err(error) = result {
    ///     if error.is_websocket() {
    ///         println!("not a WebSocket server: {error}");
    ///     }
    /// }
    /// # }
    /// ```
    pub fn is_websocket(&self) -> bool {
        self.inner.kind == ErrorKind::WebSocket
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

    /// The [`NetworkError`] that is this error's own source, which its `Display` names.
    fn displayed_network_error(&self) -> Option<&NetworkError> {
        self.inner.source.as_ref()?.downcast_ref::<NetworkError>()
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
    ///
    /// ```
    /// let error = whatwg_fetch::Error::abort_error();
    /// let copy = error.clone();
    /// assert!(error.same(&copy));
    /// // Equal in every field, but another error.
    /// assert!(!error.same(&whatwg_fetch::Error::abort_error()));
    /// ```
    pub fn same(&self, other: &Error) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

/// What `main` prints for an `Err` it returns: with `{:?}`, the message (as `{}` says it),
/// then each cause under it on a line of its own, as `anyhow` and `std::error::Report` write
/// a chain; with `{:#?}`, the error's fields.
///
/// ```
/// use whatwg_fetch::{Error, NetworkError};
///
/// let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
/// let error = Error::network(NetworkError::Connect(Box::new(refused)));
/// assert_eq!(
///     format!("{error:?}"),
///     "TypeError: network error: connect failed\n\nCaused by:\n    refused"
/// );
/// assert!(format!("{error:#?}").starts_with("Error {\n    kind: TypeError,"));
/// ```
impl fmt::Debug for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if !f.alternate() {
            return self.report(f);
        }
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

impl Error {
    /// `{:?}`: the message, then its causes one per line, a cause that says nothing new
    /// (empty, or the end of the line above) left out.
    fn report(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")?;
        let mut previous = self.to_string();
        let mut causes = Vec::new();
        for cause in self.causes_reported() {
            let message = cause.to_string();
            if !message.is_empty() && !previous.ends_with(&message) {
                causes.push(message.clone());
            }
            previous = message;
        }
        let numbered = causes.len() > 1;
        if !causes.is_empty() {
            f.write_str("\n\nCaused by:")?;
        }
        for (index, cause) in causes.iter().enumerate() {
            let (prefix, indent) = if numbered {
                (format!("{index:>5}: "), "       ")
            } else {
                (String::from("    "), "    ")
            };
            write!(f, "\n{prefix}")?;
            for (line_number, line) in cause.lines().enumerate() {
                if line_number > 0 {
                    write!(f, "\n{indent}")?;
                }
                f.write_str(line)?;
            }
        }
        Ok(())
    }

    /// The causes `{:?}` lists: the chain of [`std::error::Error::source`].
    fn causes_reported(&self) -> impl Iterator<Item = &(dyn std::error::Error + 'static)> {
        std::iter::successors(std::error::Error::source(self), |error| error.source())
    }
}

/// What an error says, by one rule: **each error in a chain says its own part, and its
/// cause is on [`source`](std::error::Error::source)**, so a report that prints the chain
/// (`anyhow`'s `{:#}` and `{:?}`, `eyre`, a loop over `source()`) says nothing twice.
///
/// - `{}`: the kind, the message, the URL whose fetch failed, and for a network error what
///   failed: `TypeError: network error for http://127.0.0.1:1/: connect failed`.
/// - `{:#}`: all of that and the whole chain of causes on one line, a label its cause
///   restates written once: `TypeError: network error for http://127.0.0.1:1/: connect to
///   127.0.0.1:1 failed: Connection refused (os error 111)`.
///
/// The [`NetworkError`] a `{}` names is not on the chain again: `source()` starts at its
/// cause (and [`Error::network_error`] gives the `NetworkError` itself).
///
/// ```
/// use whatwg_fetch::{Error, NetworkError};
///
/// let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
/// let error = Error::network(NetworkError::Connect(Box::new(refused)));
/// assert_eq!(error.to_string(), "TypeError: network error: connect failed");
/// assert_eq!(format!("{error:#}"), "TypeError: network error: connect failed: refused");
/// let cause = std::error::Error::source(&error).unwrap();
/// assert_eq!(cause.to_string(), "refused");
/// ```
impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.inner.kind, self.inner.message)?;
        if let Some(url) = &self.inner.url {
            write!(f, " for {url}")?;
        }
        if let Some(detail) = &self.inner.detail {
            write!(f, ": {detail}")?;
        }
        let network = self.displayed_network_error();
        if !f.alternate() {
            if let Some(network) = network {
                write!(f, ": {network}")?;
            }
            return Ok(());
        }
        match network {
            Some(network) => write!(f, ": {}", Chain(network)),
            None => write_causes(f, &self.inner.message, std::error::Error::source(self)),
        }
    }
}

impl std::error::Error for Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        if let Some(network) = self.displayed_network_error() {
            return std::error::Error::source(network);
        }
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
        // The network error is said by the error itself, so not on the chain again.
        assert_eq!(
            error.to_string(),
            "TypeError: network error: port 25 is blocked"
        );
        assert!(std::error::Error::source(&error).is_none());
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
        let error = Error::custom("reason", Arc::new(42_u32))
            .with_source(NetworkError::TooManyRedirects { max: 20 });
        assert_eq!(error.kind(), ErrorKind::Custom);
        let payload = error.payload().and_then(|p| p.downcast_ref::<u32>());
        assert_eq!(payload, Some(&42));
    }

    /// An error whose message already says what failed, over an I/O error.
    #[derive(Debug)]
    struct Described(std::io::Error);

    impl fmt::Display for Described {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("connect to 127.0.0.1:1 failed")
        }
    }

    impl std::error::Error for Described {
        fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
            Some(&self.0)
        }
    }

    #[test]
    fn each_error_of_a_chain_says_its_own_part_and_the_alternate_form_says_all_once() {
        let refused = || std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        // A network error says its label; the cause is its source.
        let bare = NetworkError::Connect(Box::new(refused()));
        assert_eq!(bare.to_string(), "connect failed");
        let error = Error::network(bare);
        assert_eq!(
            error.to_string(),
            "TypeError: network error: connect failed"
        );
        assert_eq!(
            format!("{error:#}"),
            "TypeError: network error: connect failed: refused"
        );
        // A cause that restates the label stands for it in the alternate form.
        let described = Error::network(NetworkError::Connect(Box::new(Described(refused()))));
        let url = url::Url::parse("http://127.0.0.1:1/a").unwrap();
        let described = described.with_url(&url);
        assert_eq!(
            described.to_string(),
            "TypeError: network error for http://127.0.0.1:1/a: connect failed"
        );
        assert_eq!(
            format!("{described:#}"),
            "TypeError: network error for http://127.0.0.1:1/a: connect to 127.0.0.1:1 failed: refused"
        );
        // The chain, as a reporter prints it: no part twice.
        let mut chain = vec![described.to_string()];
        let mut cause = std::error::Error::source(&described);
        while let Some(error) = cause {
            chain.push(error.to_string());
            cause = error.source();
        }
        assert_eq!(
            chain,
            [
                "TypeError: network error for http://127.0.0.1:1/a: connect failed",
                "connect to 127.0.0.1:1 failed",
                "refused"
            ]
        );
    }

    #[test]
    fn kind_names_match_javascript() {
        assert_eq!(ErrorKind::TypeError.js_name(), "TypeError");
        assert!(ErrorKind::AbortError.is_dom_exception());
        assert!(!ErrorKind::RangeError.is_dom_exception());
    }

    #[test]
    fn debug_says_the_message_and_each_cause_on_a_line_as_main_prints_it() {
        let refused = std::io::Error::new(std::io::ErrorKind::ConnectionRefused, "refused");
        let url = url::Url::parse("http://127.0.0.1:2/").unwrap();
        let error = Error::network(NetworkError::Connect(Box::new(Described(refused))));
        let error = error.with_url(&url);
        assert_eq!(
            format!("{error:?}"),
            "TypeError: network error for http://127.0.0.1:2/: connect failed\n\n\
             Caused by:\n    0: connect to 127.0.0.1:1 failed\n    1: refused"
        );
        // A cause of several lines keeps them under its own number.
        let two_lines = std::io::Error::other("first line\nsecond line");
        let error = Error::type_error("bad").with_source(two_lines);
        assert_eq!(
            format!("{error:?}"),
            "TypeError: bad\n\nCaused by:\n    first line\n    second line"
        );
        // No cause: the message alone. The fields stay one `{:#?}` away.
        let error = Error::type_error("bad");
        assert_eq!(format!("{error:?}"), "TypeError: bad");
        assert_eq!(
            format!("{error:#?}"),
            "Error {\n    kind: TypeError,\n    message: \"bad\",\n}"
        );
    }
}
