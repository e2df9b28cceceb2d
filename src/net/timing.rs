//! What the network layer tells the layer above about the connection a response came
//! over: the [connection timing info](https://fetch.spec.whatwg.org/#connection-timing-info)
//! of the Fetch Standard, whether the connection was reused, and when the request went
//! out and its response began.
//!
//! [`HyperTransport`](super::HyperTransport) records it in the response's
//! [`ResponseBody`](super::ResponseBody) (see [`ResponseBody::connection_info`](super::ResponseBody::connection_info)),
//! so that nothing is allocated for it per request: two `Instant::now()` calls per
//! request and one `Arc` clone (of what is known of the connection's peer), and five and
//! one small box per new connection, with that `Arc`.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Instant;

use crate::peer::Peer;

/// When the steps of making a connection began and ended: the spec's
/// [connection timing info](https://fetch.spec.whatwg.org/#connection-timing-info), as
/// instants. `None` stands for the spec's 0: the step did not happen (no name to
/// resolve through a Unix socket, no TLS on `http:`).
///
/// ```
/// # tokio_test::block_on(async {
/// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
/// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
/// # let addr = listener.local_addr().unwrap();
/// # tokio::spawn(async move {
/// #     let (mut stream, _) = listener.accept().await.unwrap();
/// #     let _ = stream.read(&mut [0; 4096]).await;
/// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
/// #     let _ = stream.read(&mut [0; 4096]).await;
/// # });
/// use whatwg_fetch::net::{HyperTransport, RequestBody, SendOptions, Transport};
///
/// let transport = HyperTransport::new()?;
/// let request = http::Request::get(format!("http://{addr}/")).body(RequestBody::empty())?;
/// let mut body = transport.send(request, SendOptions::new()).await?.into_body();
/// let info = body.connection_info().expect("a response of the transport");
/// // A new connection to an address: no name to resolve, no TLS on `http:`.
/// assert!(info.timing.connection_start.is_some() && info.timing.connection_end.is_some());
/// assert!(info.timing.secure_connection_start.is_none());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
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
///
/// ```
/// # tokio_test::block_on(async {
/// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
/// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
/// # let addr = listener.local_addr().unwrap();
/// # tokio::spawn(async move {
/// #     let (mut stream, _) = listener.accept().await.unwrap();
/// #     let _ = stream.read(&mut [0; 4096]).await;
/// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
/// #     let _ = stream.read(&mut [0; 4096]).await;
/// # });
/// use whatwg_fetch::net::{HyperTransport, RequestBody, SendOptions, Transport};
///
/// let transport = HyperTransport::new()?;
/// let request = http::Request::get(format!("http://{addr}/")).body(RequestBody::empty())?;
/// let mut body = transport.send(request, SendOptions::new()).await?.into_body();
/// let info = body.connection_info().expect("a response of the transport");
/// assert_eq!((info.remote_addr, info.alpn_negotiated_protocol), (Some(addr), "http/1.1"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # }).unwrap();
/// ```
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
    /// connection, or an HTTP/2 connection this request did not make. The timing of when
    /// it was made is then not given.
    pub reused: bool,
    /// When the request was handed to the connection.
    pub request_start: Instant,
    /// When the response head had been received.
    pub response_start: Instant,
    /// The address of the socket's peer: the origin's, or for a request through a proxy
    /// (HTTP, HTTPS or SOCKS5, tunnel or not) the proxy's, as reqwest's `remote_addr`
    /// gives it. `None` over a Unix domain socket. The same for every request on the
    /// connection.
    pub remote_addr: Option<SocketAddr>,
}

/// A [`ConnectionInfo`] as a response body keeps it: small, as the body is moved whole a
/// few times before it is boxed. The timing of a new connection (one per connection, not
/// per request) is behind a box; a reused connection has none.
pub(crate) struct Recorded {
    pub(crate) timing: Option<Box<ConnectionTiming>>,
    pub(crate) request_start: Instant,
    pub(crate) response_start: Instant,
    /// The ALPN protocol ID of the protocol the response came over ([`HTTP_1_1`],
    /// [`H2`], `h3`).
    pub(crate) alpn: &'static str,
    pub(crate) secure: bool,
    /// What is known of the connection's other end, shared by every response on it;
    /// `None` when nothing is (a Unix domain socket without TLS).
    pub(crate) peer: Option<Arc<Peer>>,
}

impl Recorded {
    /// What the layer above reads.
    pub(crate) fn info(&self) -> ConnectionInfo {
        ConnectionInfo {
            timing: self.timing.as_deref().copied().unwrap_or_default(),
            alpn_negotiated_protocol: self.alpn,
            secure: self.secure,
            reused: self.timing.is_none(),
            request_start: self.request_start,
            response_start: self.response_start,
            remote_addr: self.peer.as_ref().and_then(|peer| peer.addr),
        }
    }
}

/// The ALPN protocol ID of HTTP/1.1 ([RFC 7301 §6](https://www.rfc-editor.org/rfc/rfc7301#section-6)).
pub(crate) const HTTP_1_1: &str = "http/1.1";

/// The ALPN protocol ID of HTTP/2 ([RFC 9113 §3.2](https://httpwg.org/specs/rfc9113.html#versioning)).
#[cfg_attr(not(feature = "http2"), allow(dead_code))]
pub(crate) const H2: &str = "h2";

/// The ALPN protocol ID of HTTP/3 ([RFC 9114 §3.1](https://www.rfc-editor.org/rfc/rfc9114#section-3.1)).
#[cfg(feature = "http3")]
pub(crate) const H3: &str = "h3";
