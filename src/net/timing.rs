//! What the network layer tells the layer above about the connection a response came
//! over: the [connection timing info](https://fetch.spec.whatwg.org/#connection-timing-info)
//! of the Fetch Standard, whether the connection was reused, and when the request went
//! out and its response began.
//!
//! [`HyperTransport`](super::HyperTransport) records it in the response's
//! [`ResponseBody`](super::ResponseBody) (see [`ResponseBody::connection_info`](super::ResponseBody::connection_info)),
//! so that nothing is allocated for it: a handful of `Instant::now()` calls per request,
//! and a few more per new connection.

use std::time::Instant;

/// When the steps of making a connection began and ended: the spec's
/// [connection timing info](https://fetch.spec.whatwg.org/#connection-timing-info), as
/// instants. `None` stands for the spec's 0: the step did not happen (no name to
/// resolve through a Unix socket, no TLS on `http:`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ConnectionTiming {
    /// <https://fetch.spec.whatwg.org/#connection-timing-info-domain-lookup-start-time>:
    /// before the host (or the proxy's host) was resolved.
    pub domain_lookup_start: Option<Instant>,
    /// <https://fetch.spec.whatwg.org/#connection-timing-info-domain-lookup-end-time>:
    /// once its addresses were known.
    pub domain_lookup_end: Option<Instant>,
    /// <https://fetch.spec.whatwg.org/#connection-timing-info-connection-start-time>:
    /// before the first TCP connect (or the Unix socket's).
    pub connection_start: Option<Instant>,
    /// <https://fetch.spec.whatwg.org/#connection-timing-info-connection-end-time>: once
    /// the connection was established, proxy tunnel and TLS handshake included.
    pub connection_end: Option<Instant>,
    /// <https://fetch.spec.whatwg.org/#connection-timing-info-secure-connection-start-time>:
    /// before the TLS handshake with the origin; `None` without TLS to the origin.
    pub secure_connection_start: Option<Instant>,
}

/// What [`HyperTransport`](super::HyperTransport) knows of the connection a response came
/// over and of the request on it. Read it with
/// [`ResponseBody::connection_info`](super::ResponseBody::connection_info).
#[derive(Clone, Copy, Debug)]
#[non_exhaustive]
pub struct ConnectionInfo {
    /// How the connection was made. For a reused connection, the timing of when it was
    /// made for an earlier request is not kept: every field is `None`.
    pub timing: ConnectionTiming,
    /// The connection's [ALPN negotiated protocol](https://fetch.spec.whatwg.org/#connection-timing-info-alpn-negotiated-protocol):
    /// `"h2"` or `"http/1.1"` (the protocol in use, whether ALPN picked it or not).
    pub alpn_negotiated_protocol: &'static str,
    /// Whether the connection to the origin is secured by TLS (an `https:` origin,
    /// directly or through a proxy's tunnel), reused or not.
    pub secure: bool,
    /// Whether the connection was there before this request: an idle pooled HTTP/1.1
    /// connection, or an HTTP/2 connection this request did not make.
    pub reused: bool,
    /// When the request was handed to the connection.
    pub request_start: Instant,
    /// When the response head had been received.
    pub response_start: Instant,
}

/// The ALPN protocol ID of HTTP/1.1 ([RFC 7301 §6](https://www.rfc-editor.org/rfc/rfc7301#section-6)).
pub(crate) const HTTP_1_1: &str = "http/1.1";

/// The ALPN protocol ID of HTTP/2 ([RFC 9113 §3.2](https://httpwg.org/specs/rfc9113.html#versioning)).
pub(crate) const H2: &str = "h2";
