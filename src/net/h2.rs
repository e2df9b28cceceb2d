//! HTTP/2 ([RFC 9113](https://httpwg.org/specs/rfc9113.html)), all of it in one place:
//! the connection as the pool holds it, the handshake that starts one, and the sending
//! of a request on it, with the rules for sending it again and the mapping of its errors.
//!
//! The handle of an HTTP/2 connection, as the pool and the transport hold it: hyper's
//! `SendRequest`, or, in a build without the `http2` feature, a type with no values, so
//! that the code around it stays one code and its HTTP/2 paths are provably never taken.

use std::sync::Arc;

use http::header::{CONNECTION, CONTENT_LENGTH, TE, TRANSFER_ENCODING, UPGRADE};
use http::{HeaderValue, Request, Response, Uri, Version};
#[cfg(feature = "http2")]
use hyper_util::rt::TokioIo;
use tokio::io::{AsyncRead, AsyncWrite};

use super::SendOptions;
use super::body::{RequestBody, ResponseBody};
use super::connect::{Connected, Connector};
use super::pool::Key;
use super::timer::{ReadTimeout, ReadTimer};
use super::timing::{ConnectionTiming, Recorded};
use super::transport::{HeadLimits, HeadRefused, Inner};
use crate::error::{NetworkError, TimeoutKind};
use crate::peer::Peer;

/// An HTTP/2 connection as the pool holds it: the handle its requests are sent on, and
/// what is known of its other end, which each of its responses shares.
#[derive(Clone)]
pub(crate) struct H2Connection {
    pub(crate) tx: H2Sender,
    pub(crate) peer: Option<std::sync::Arc<crate::peer::Peer>>,
}

impl H2Connection {
    /// Whether the connection can no longer take a request.
    pub(crate) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }
}

#[cfg(feature = "http2")]
pub(crate) type H2Sender = hyper::client::conn::http2::SendRequest<super::RequestBody>;

/// The executor of hyper's HTTP/2 connections: spawns each future on Tokio, boxed.
///
/// hyper spawns a future for every request (the wait for its response) and one for the
/// connection, and both are of one type, an enum as large as the connection's state (a few
/// KiB): spawned as it is, every request's task cell would be that large, and the future
/// copied whole into it and over it again when the task ends. Boxed, it is copied once, into
/// its box, and the task holds a pointer, as hyper-util's executor does it.
#[cfg(feature = "http2")]
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct BoxingExecutor;

#[cfg(feature = "http2")]
impl<F> hyper::rt::Executor<F> for BoxingExecutor
where
    F: std::future::Future + Send + 'static,
    F::Output: Send + 'static,
{
    fn execute(&self, future: F) {
        tokio::spawn(Box::pin(future));
    }
}

#[cfg(not(feature = "http2"))]
pub(crate) use without::H2Sender;

#[cfg(not(feature = "http2"))]
mod without {
    use http::{Request, Response};
    use hyper::body::Incoming;
    use hyper::client::conn::TrySendError;

    use super::super::RequestBody;

    /// No HTTP/2 connection exists in a build without the `http2` feature: nothing offers
    /// `h2` by ALPN, and prior knowledge is refused when the transport is built.
    #[derive(Clone, Debug)]
    pub(crate) enum H2Sender {}

    impl H2Sender {
        pub(crate) fn is_closed(&self) -> bool {
            match *self {}
        }

        pub(crate) async fn ready(&mut self) -> Result<(), hyper::Error> {
            match *self {}
        }

        pub(crate) fn try_send_request(
            &mut self,
            _request: Request<RequestBody>,
        ) -> std::future::Ready<Result<Response<Incoming>, TrySendError<Request<RequestBody>>>>
        {
            match *self {}
        }
    }
}

impl Connector {
    /// An HTTP/2 connection over `io`, to `peer`: the handshake, then the connection's
    /// task.
    pub(super) async fn handshake_h2<T>(
        &self,
        io: T,
        peer: Option<Arc<Peer>>,
    ) -> Result<Connected, NetworkError>
    where
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        // Not reached: without the feature, `h2` is never offered and prior knowledge is
        // refused when the transport is built.
        #[cfg(not(feature = "http2"))]
        {
            let _ = (io, peer);
            Err(NetworkError::Other(
                "HTTP/2 is not in this build (its Cargo feature `http2` is off)".into(),
            ))
        }
        #[cfg(feature = "http2")]
        let (tx, conn) = self
            .h2
            .handshake(TokioIo::new(io))
            .await
            .map_err(|e| NetworkError::Protocol(Box::new(e)))?;
        #[cfg(feature = "http2")]
        tokio::spawn(async move {
            let _ = conn.await;
        });
        #[cfg(feature = "http2")]
        Ok(Connected::H2(H2Connection { tx, peer }))
    }
}

impl Inner {
    /// Sends `request` on an HTTP/2 connection. With `may_replay`, a request with a
    /// body that can be sent again comes back as [`Retry::Replay`] when the server refuses
    /// its stream unprocessed.
    pub(super) async fn send_h2(
        &self,
        connection: H2Connection,
        mut request: Request<RequestBody>,
        key: &Key,
        options: &SendOptions,
        may_replay: bool,
        fresh: Option<ConnectionTiming>,
    ) -> Result<Response<ResponseBody>, Retry> {
        let H2Connection { mut tx, peer } = connection;
        prepare_h2(&mut request);
        if let Err(error) = tx.ready().await {
            // A TLS alert closed the connection: a refusal, not a reason to retry.
            if let Some(tls) = self.tls_alert(&error, key) {
                return Err(Retry::Fail(tls));
            }
            return Err(Retry::Again(Box::new(request)));
        }
        let replay = if may_replay {
            Replay::of(&request)
        } else {
            None
        };
        let request_start = std::time::Instant::now();
        let sent = tx.try_send_request(request);
        // A timer of its own: streams share the connection.
        let mut timer = None;
        let timer = self
            .read_timeout
            .and_then(|timeout| ReadTimer::set(&mut timer, timeout));
        let result = ReadTimeout::new(sent, timer)
            .await
            .map_err(|_| Retry::Fail(self.idle_timeout()))?;
        match result {
            Ok(response) => {
                let info = Recorded {
                    timing: fresh.map(Box::new),
                    request_start,
                    response_start: std::time::Instant::now(),
                    h2: true,
                    secure: key.https,
                    peer,
                };
                self.wrap(response, Some(tx), options, info)
                    .map_err(Retry::Fail)
            }
            Err(mut error) => match error.take_message() {
                Some(back) => Err(Retry::Again(Box::new(back))),
                None => {
                    let error = error.into_error();
                    match replay {
                        Some(copy) if refused_unprocessed(&error) => {
                            Err(Retry::Replay(Box::new(copy.into_request())))
                        }
                        _ => Err(Retry::Fail(self.request_error(error, key))),
                    }
                }
            },
        }
    }

    /// An HTTP/2 response.
    fn wrap(
        &self,
        response: Response<hyper::body::Incoming>,
        h2: Option<H2Sender>,
        options: &SendOptions,
        info: Recorded,
    ) -> Result<Response<ResponseBody>, NetworkError> {
        let (parts, body) = response.into_parts();
        let declared_length = parts.headers.contains_key(CONTENT_LENGTH);
        let body = ResponseBody::incoming(body, h2, declared_length, self.read_timeout, info);
        self.decode(Response::from_parts(parts, body), options)
    }

    /// Maps an error hyper reports before the response head from `key`'s origin
    /// arrived: a TLS alert is a [`NetworkError::Tls`] (see [`Inner::tls_alert`]).
    /// Other errors are mapped by [`HeadLimits::request_error`].
    fn request_error(&self, error: hyper::Error, key: &Key) -> NetworkError {
        match self.tls_alert(&error, key) {
            Some(tls) => tls,
            None => self.head_limits.request_error(error),
        }
    }
}

pub(super) enum Retry {
    /// The request never left; here it is back.
    Again(Box<Request<RequestBody>>),
    /// The server refused the request's stream without processing it; here is a copy to
    /// send on a new connection.
    Replay(Box<Request<RequestBody>>),
    Fail(NetworkError),
}

/// What it takes to send an HTTP/2 request again: method, target, headers and a body that
/// can be sent again (extensions are not kept). hyper takes the request it sends; the
/// copy shares the header values and the body's [`Bytes`](bytes::Bytes), and copies none.
/// (An HTTP/1.1 request is kept whole instead, see `net/h1.rs`.)
struct Replay {
    method: http::Method,
    uri: Uri,
    version: Version,
    headers: Vec<(http::HeaderName, HeaderValue)>,
    body: RequestBody,
}

impl Replay {
    /// What it takes to send `request` again, if its body can be sent again (empty or one
    /// buffer, never a stream).
    fn of(request: &Request<RequestBody>) -> Option<Replay> {
        let body = request.body().try_clone()?;
        let headers = request
            .headers()
            .iter()
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect();
        Some(Replay {
            method: request.method().clone(),
            uri: request.uri().clone(),
            version: request.version(),
            headers,
            body,
        })
    }

    /// The request again.
    fn into_request(self) -> Request<RequestBody> {
        let mut request = Request::new(self.body);
        *request.method_mut() = self.method;
        *request.uri_mut() = self.uri;
        *request.version_mut() = self.version;
        let headers = request.headers_mut();
        headers.reserve(self.headers.len());
        for (name, value) in self.headers {
            headers.append(name, value);
        }
        request
    }
}

/// Whether an HTTP/2 server refused a stream without processing it: a `RST_STREAM` with
/// `REFUSED_STREAM` (RFC 9113 §8.7), or a `GOAWAY` whose last stream identifier is below
/// the stream's (§6.8; the h2 library gives a stream the `GOAWAY`'s error only then, or
/// when the stream was opened after it).
fn refused_unprocessed(error: &hyper::Error) -> bool {
    #[cfg(feature = "http2")]
    return h2_cause(error).is_some_and(|h2| {
        h2.is_remote() && (h2.is_go_away() || h2.reason() == Some(h2::Reason::REFUSED_STREAM))
    });
    #[cfg(not(feature = "http2"))]
    return {
        let _ = error;
        false
    };
}

/// The h2 library's error behind `error`, if any.
#[cfg(feature = "http2")]
fn h2_cause(error: &hyper::Error) -> Option<&h2::Error> {
    let mut source = std::error::Error::source(error);
    while let Some(cause) = source {
        if let Some(h2) = cause.downcast_ref::<h2::Error>() {
            return Some(h2);
        }
        source = cause.source();
    }
    None
}

impl HeadLimits {
    /// Maps an error hyper reports before the response head arrived. A head over a limit
    /// gets a message naming the limit and the option that sets it; hyper's own error
    /// stays its source.
    fn request_error(&self, error: hyper::Error) -> NetworkError {
        // The one timer hyper runs for this crate is HTTP/2's keep-alive PING's.
        if error.is_timeout() {
            return NetworkError::Timeout {
                kind: TimeoutKind::KeepAlive,
                after: self.http2_keep_alive_timeout,
            };
        }
        let (message, version, limit) = if reset_here_for_protocol_error(&error) {
            // h2 resets a stream whose header block passes SETTINGS_MAX_HEADER_LIST_SIZE
            // with PROTOCOL_ERROR, as it does a malformed one, and tells them apart to
            // no caller.
            let message = format!(
                "HTTP/2 response head refused: larger than {} bytes (see \
                 http2_max_header_list_size) or malformed",
                self.http2_max_header_list_size
            );
            (message, Version::HTTP_2, self.http2_max_header_list_size)
        } else {
            return NetworkError::Protocol(Box::new(error));
        };
        NetworkError::Protocol(Box::new(HeadRefused {
            message,
            version,
            limit,
            source: Box::new(error),
        }))
    }
}

/// Whether this client reset an HTTP/2 stream with `PROTOCOL_ERROR`, which is what the h2
/// library does to a response head it will not take.
fn reset_here_for_protocol_error(error: &hyper::Error) -> bool {
    #[cfg(feature = "http2")]
    return h2_cause(error).is_some_and(|h2| {
        h2.is_library() && h2.is_reset() && h2.reason() == Some(h2::Reason::PROTOCOL_ERROR)
    });
    #[cfg(not(feature = "http2"))]
    return {
        let _ = error;
        false
    };
}

/// HTTP/2 forbids connection-specific header fields (RFC 9113 §8.2.2).
fn prepare_h2(request: &mut Request<RequestBody>) {
    let headers = request.headers_mut();
    // Usually there are none: one pass over the names finds out, where removing each by name
    // would hash it six times.
    if headers.keys().any(is_connection_specific) {
        remove_connection_specific(headers);
    }
    *request.version_mut() = Version::HTTP_2;
}

/// Whether `name` is one of the fields [`remove_connection_specific`] looks at.
fn is_connection_specific(name: &http::HeaderName) -> bool {
    name == CONNECTION
        || name == TRANSFER_ENCODING
        || name == UPGRADE
        || name == TE
        || name == "keep-alive"
        || name == "proxy-connection"
}

/// Removes the connection-specific fields HTTP/2 forbids (RFC 9113 §8.2.2), keeping
/// `TE: trailers`.
fn remove_connection_specific(headers: &mut http::HeaderMap) {
    for name in [CONNECTION, TRANSFER_ENCODING, UPGRADE] {
        headers.remove(name);
    }
    headers.remove("keep-alive");
    headers.remove("proxy-connection");
    if headers
        .get(TE)
        .is_some_and(|te| !te.as_bytes().eq_ignore_ascii_case(b"trailers"))
    {
        headers.remove(TE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prepare_h2_drops_connection_headers() {
        let mut request = Request::get("https://example.com/")
            .header("connection", "keep-alive")
            .header("te", "gzip")
            .body(RequestBody::empty())
            .unwrap();
        prepare_h2(&mut request);
        assert!(request.headers().is_empty());
        assert_eq!(request.version(), Version::HTTP_2);

        let mut request = Request::get("https://example.com/")
            .header("accept", "*/*")
            .header("te", "trailers")
            .header("keep-alive", "timeout=5")
            .body(RequestBody::empty())
            .unwrap();
        prepare_h2(&mut request);
        let names: Vec<&str> = request.headers().keys().map(|n| n.as_str()).collect();
        assert_eq!(names, ["accept", "te"]);
    }
}
