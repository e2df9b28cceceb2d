//! The network layer: one HTTP request out, one response head and streaming body in.
//!
//! This module sits below the Fetch Standard's algorithms and knows none of them: it
//! speaks [`http`] types. The spec's
//! [HTTP-network fetch](https://fetch.spec.whatwg.org/#concept-http-network-fetch) calls
//! a [`Transport`]; [`HyperTransport`] is the default one, with its own connection pool,
//! HTTP/1.1 connections of its own (`net/h1.rs`) and HTTP/2 ones of its own on the h2
//! library (`net/h2.rs`), TLS through rustls, a resolver override, and
//! timeouts. Content decoding ([`decode`]) is an adapter over a [`ResponseBody`], applied
//! only when asked for: one flat pipeline of decoders driven by a loop, at most
//! [`MAX_CONTENT_CODINGS`] of them (see the `decode` module's documentation).
//!
//! A request's way through the files: `net/transport.rs` checks it and gives it a
//! connection, an idle or shared one from `net/pool.rs` or a new one from
//! `net/connect.rs`, then sends it with `net/h1.rs` or `net/h2.rs`; the options it is
//! sent under are set in `net/builder.rs`. `ARCHITECTURE.md` lists every file.
//!
//! The wire protocols are [RFC 9112](https://httpwg.org/specs/rfc9112.html) (HTTP/1.1)
//! and [RFC 9113](https://httpwg.org/specs/rfc9113.html) (HTTP/2), with connection
//! management after [RFC 9112 §9](https://httpwg.org/specs/rfc9112.html#connection.management):
//! persistent connections, and a retry only of a request that provably never reached a
//! reused connection the peer had closed, or an idempotent one whose reused connection
//! closed before its response began (§9.3.1 leaves retrying anything else to the
//! application).
//!
//! # How [`HyperTransport`] works
//!
//! - **Pool.** Keyed by origin (scheme, host, port). Each HTTP/1.1 connection serves one
//!   request at a time and goes back to the pool only when its response body reaches its
//!   end; a body dropped earlier closes its connection. An idle connection is reused
//!   most-recently-used first, once a read that does not wait shows it still open (nothing
//!   polls an idle connection: a server's close is found then). A per-origin cap
//!   ([`HyperTransportBuilder::max_connections_per_origin`]) counts connections in use,
//!   idle and being made; requests beyond it wait in a first-come-first-served queue and
//!   receive either a finished connection or a permit to connect. Every idle connection
//!   is kept by default (no [`HyperTransportBuilder::max_idle_per_origin`] cap), so a
//!   burst of `n` requests in flight leaves `n` connections for the next; idle
//!   connections are closed past [`HyperTransportBuilder::pool_idle_timeout`] by one
//!   background task per transport that holds the pool weakly.
//! - **Pipelining** (opt in, [`HyperTransportBuilder::http1_pipelining`]). A request
//!   that may be sent again goes on the first of its origin's pipelined connections with
//!   room, else on a new one under the cap (which the requests after it may join while it
//!   is made), else in the queue of the least loaded. A pipelined connection has a task
//!   of its own that writes each request as it comes and reads the responses in order,
//!   handing a body over one chunk at a time; the requests a pipeline leaves unanswered
//!   are sent again, once, each on a new connection.
//! - **A request's own route.** A [`Route`] in a request's extensions (its own proxy, or
//!   none, and addresses for host names) takes the place of the transport's proxies and
//!   comes before its resolution, for that request. The pool's key carries it, compared
//!   by value, so connections on different routes are never shared, nor coalesced; such
//!   a request never goes over HTTP/3 and records no `Alt-Svc`.
//! - **Connecting.** A host name is resolved by the request's [`Route`], then the
//!   override map, then
//!   [`HyperTransportBuilder::resolve_with`], then a [`Resolve`] (the
//!   [`SystemResolver`] by default); a failure is a [`NetworkError::Dns`] whose
//!   [`DnsError`] names the host. Its addresses, the first [`MAX_CONNECT_ADDRESSES`] of
//!   them whatever the resolver gave, are raced by Happy Eyeballs
//!   ([RFC 8305](https://www.rfc-editor.org/rfc/rfc8305)): IPv6 and IPv4 alternate,
//!   starting with the family of the first address, and the next attempt starts 250 ms
//!   after the last ([`HyperTransportBuilder::happy_eyeballs_delay`]), or sooner when the
//!   connect timeout left would not give every address a share of it, or as soon as one
//!   fails; the first to connect wins and the others are closed. When all fail, the
//!   [`NetworkError::Connect`]'s [`ConnectError`] lists each address with its error. On
//!   Unix, [`HyperTransportBuilder::unix_socket`] sends every connection to one socket
//!   instead.
//! - **Header values Fetch allows and `http` does not.** A field whose value holds a
//!   control byte other than tab (0x01–0x08, 0x0B, 0x0C, 0x0E–0x1F, 0x7F: a valid Fetch
//!   header value, which [`http::HeaderValue`] refuses) travels beside the header map, as
//!   [`RawFields`] in the request's or response's extensions. HTTP/1.1 writes and reads
//!   such fields as they are; a request holding one goes over HTTP/1.1 even where ALPN or
//!   prior knowledge would pick HTTP/2 or HTTP/3, whose crates cannot carry it. A
//!   [`Transport`] of one's own finds them there.
//! - **New connections.** A request sent with [`SendOptions::new_connection`] gets a
//!   connection of its own: never an idle or HTTP/2 one (at the cap, an idle connection
//!   is closed to make room). Fetch asks for this when it retries a `421 Misdirected
//!   Request`.
//! - **Upgrades.** A `101 Switching Protocols` answering a request's `Upgrade` header
//!   over HTTP/1.1 takes its connection out of the pool and hands it over in the
//!   response's extensions as an [`OnUpgrade`](crate::upgrade::OnUpgrade) (what
//!   [`Response::upgrade`](crate::Response::upgrade) takes); a `101` no request asked
//!   for is a head without a body, its connection closed.
//! - **Heads ended by a close.** A response head that the server ends by closing the
//!   connection, without the empty line, is read as a complete head, as browsers do (a
//!   leniency hyper lacks; see `net/h1.rs`). A body cut short is still an error.
//! - **Retry.** A request is sent again, on a new connection, only when it provably was
//!   not processed:
//!   - a reused idle HTTP/1.1 connection turns out closed before the request is given to
//!     it, or hyper hands the request back unsent (`TrySendError::take_message`) from the
//!     shared HTTP/2 connection;
//!   - HTTP/1.1, once: the connection was reused (it served an earlier request), the
//!     method is idempotent (`GET`, `HEAD`, `OPTIONS`, `TRACE`, `PUT`, `DELETE`;
//!     [RFC 9110 §9.2.2](https://httpwg.org/specs/rfc9110.html#idempotent.methods)), the
//!     body can be sent again (empty or one buffer, never a stream), and the connection
//!     failed (closed, reset, or broken while the request was written) before any byte
//!     of the response arrived, which the connection notes exactly. This is
//!     the keep-alive race, a server closing a persistent connection just as a request
//!     goes out on it; curl and browsers send such a request again too. Under the same
//!     rules, once, a `408 Request Timeout` answered on the reused connection: the same
//!     race, which the server told (Chrome resends it too); a `408` on a new connection,
//!     or on the second try, is the caller's response.
//!   - HTTP/2, once: the server refused the stream with `REFUSED_STREAM`, or cut it with
//!     a `GOAWAY` whose last stream identifier shows it was never processed
//!     ([RFC 9113 §8.7](https://httpwg.org/specs/rfc9113.html#Reliability), §6.8), for
//!     any method, if the body can be sent again.
//!
//!   Nothing else is retried: not a `POST` or `PATCH` that went out, not a stream body,
//!   not a failure of a new connection, not a failure after part of the response, never
//!   a second time. The copy kept to send again (method, URI, headers, the body's
//!   `Bytes`) is made only for a request these rules could retry; on HTTP/1.1 it is
//!   taken before `Host` and the origin-form target are added, into room that its
//!   connection keeps from one request to the next.
//! - **Timeouts.** A new connection has 30 seconds
//!   ([`HyperTransportBuilder::connect_timeout`]); a response head, and each piece of a
//!   body after it, 300 seconds ([`HyperTransportBuilder::read_timeout`]), as in undici.
//!   An HTTP/1.1 connection keeps one timer for all of these waits, set again for each
//!   (see `net/timer.rs`), rather than a new one per request.
//! - **Framing.** The transport frames a request body itself: by its length, or chunked
//!   for a stream on HTTP/1.1. A request whose own `Content-Length` disagrees with its
//!   empty or buffered body, that sets `Transfer-Encoding`, or that has two `Host`
//!   headers is refused with [`NetworkError::InvalidRequest`] before anything is sent; a
//!   stream body under a `Content-Length` must yield exactly that many bytes, or the
//!   request fails and its connection closes before the peer has read a whole message.
//! - **HTTP/2.** An `https:` origin whose server picks `h2` by ALPN (or an `http:` origin
//!   with [`HyperTransportBuilder::http2_prior_knowledge`]) gets one multiplexed
//!   connection. While the first connection to such an origin is being made, other
//!   requests wait for it rather than open their own; if it speaks HTTP/1.1 they connect
//!   in parallel under the cap.
//! - **Tasks.** An HTTP/1.1 connection has no task: the request's own task writes the
//!   request and reads the response head, and the response body reads the rest as it is
//!   read, so a request costs no hand-over between tasks. An HTTP/2 connection has one
//!   task (and hyper adds its own per stream). The pool's lock is never held across an
//!   `.await`.
//! - **Proxies.** With [`HyperTransportBuilder::proxy`], a request whose URL a
//!   [`Proxy`] carries goes through it. Through an HTTP proxy (`http:`, or `https:` with
//!   TLS to the proxy first, offering only `http/1.1`), an `http:` request goes to the
//!   proxy in absolute-form (`GET http://host/path HTTP/1.1`, with `Proxy-Authorization`
//!   when the proxy has credentials), an `https:` one through a `CONNECT host:port`
//!   tunnel on a connection of its own, with TLS and ALPN to the origin inside it; an
//!   `http:` request sent [`http1_only`](SendOptions::http1_only) or as a WebSocket
//!   opening handshake ([`SendOptions::websocket`]) goes through such a tunnel too, in
//!   origin-form inside it (RFC 6455 §4.1); the
//!   `CONNECT` carries the client's `User-Agent`
//!   ([`HyperTransportBuilder::proxy_user_agent`]), and both carry the proxy's own
//!   [`Proxy::headers`]. A
//!   SOCKS5 proxy (`socks5:`, `socks5h:`; RFC 1928 and RFC 1929, in `net/socks.rs`)
//!   opens a tunnel to the origin for either, in which the connection is what a direct
//!   one would be (origin-form, or TLS). A refused tunnel is a [`NetworkError::Connect`]
//!   whose source is a [`ProxyRefused`] or a [`SocksRefused`]; a proxy that cannot be
//!   reached is named in the error. The pool keys such connections by origin and proxy.
//!   With no proxy configured, no request pays for it.
//! - **TLS.** rustls with ring, TLS 1.2 and 1.3, configured once per transport (so a
//!   second connection to a server resumes the session of the first). See [TLS](#tls).
//! - **Header case.** Header names go out as `http::HeaderName` holds them (lowercase);
//!   the only other choice is [`HyperTransportBuilder::http1_title_case_headers`].
//!
//! # TLS
//!
//! A server's certificate chain must end in a trusted root. By default two sets are
//! trusted:
//!
//! - **the system's trust store**
//!   ([`tls_system_roots`](HyperTransportBuilder::tls_system_roots)). On Linux and the
//!   other Unix systems, the certificates OpenSSL would read (Debian's `ca-certificates`
//!   bundle, with a corporate TLS-inspection CA added by `update-ca-certificates`;
//!   `SSL_CERT_FILE` and `SSL_CERT_DIR` replace them when set), found by
//!   `rustls-native-certs` once per process, when the first transport that trusts them is
//!   built, and checked by webpki. On macOS, iOS, Windows and Android, the system's own
//!   verifier through `rustls-platform-verifier`, as in reqwest 0.13: it also applies what
//!   an administrator or user distrusted, enterprise policy and revocation, which the
//!   certificates alone do not carry (on Android the application initializes it first,
//!   as that crate's documentation says).
//! - **the built-in roots** ([`tls_built_in_roots`](HyperTransportBuilder::tls_built_in_roots)):
//!   Mozilla's root program, compiled in by `webpki-roots`. They are what a system
//!   without a store (a container without `ca-certificates`) has; beside a system
//!   verifier they are consulted only for a chain whose issuer it does not know, so a
//!   chain it rejects for another reason (revoked, distrusted) stays rejected.
//!
//! Roots added with [`add_root_certificate_der`](HyperTransportBuilder::add_root_certificate_der)
//! or [`add_root_certificates_pem`](HyperTransportBuilder::add_root_certificates_pem) are
//! trusted beside either or both, or alone with both off. This default is what Chrome
//! (its own root store plus the roots installed locally) and Firefox (Mozilla's roots
//! plus the system's enterprise roots) do; to trust the system only, as curl and
//! reqwest do, turn the built-in roots off.
//!
//! The other TLS options: a client certificate for mutual TLS
//! ([`identity`](HyperTransportBuilder::identity), an [`Identity`]), the versions
//! ([`min_tls_version`](HyperTransportBuilder::min_tls_version),
//! [`max_tls_version`](HyperTransportBuilder::max_tls_version)), for development only
//! [`danger_accept_invalid_certs`](HyperTransportBuilder::danger_accept_invalid_certs)
//! and [`danger_accept_invalid_hostnames`](HyperTransportBuilder::danger_accept_invalid_hostnames),
//! a key log for Wireshark ([`tls_key_log`](HyperTransportBuilder::tls_key_log)),
//! public-key pinning per host ([`pin_public_keys`](HyperTransportBuilder::pin_public_keys)
//! and [`pin_public_keys_only`](HyperTransportBuilder::pin_public_keys_only), with
//! [`PublicKeyPin`] and [`PinMismatch`]), and the
//! escape hatch to a rustls configuration of one's own
//! ([`rustls_config`](HyperTransportBuilder::rustls_config)). A failed handshake is a
//! [`NetworkError::Tls`] whose source, a [`TlsHandshakeError`], names the host and the
//! reason: `TLS handshake with localhost failed: invalid peer certificate: UnknownIssuer`.
//!
//! ```
//! # tokio_test::block_on(async {
//! # use tokio::io::{AsyncReadExt, AsyncWriteExt};
//! # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
//! # let addr = listener.local_addr().unwrap();
//! # tokio::spawn(async move {
//! #     let (mut stream, _) = listener.accept().await.unwrap();
//! #     let _ = stream.read(&mut [0; 4096]).await;
//! #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
//! # });
//! use http_body_util::BodyExt;
//! use whatwg_fetch::net::{HyperTransport, RequestBody, SendOptions, Transport};
//!
//! // The layer below the fetch algorithm: an `http::Request` out, an `http::Response` in.
//! let transport = HyperTransport::new()?;
//! let request = http::Request::get(format!("http://{addr}/")).body(RequestBody::empty())?;
//! let response = transport.send(request, SendOptions::new()).await?;
//! assert_eq!(response.status(), 200);
//! assert_eq!(&response.into_body().collect().await?.to_bytes()[..], b"ok");
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! # }).unwrap();
//! ```

#[cfg(feature = "http3")]
mod alt_svc;
#[cfg(feature = "http3")]
mod alt_svc_file;
mod builder;
mod connect;
mod decode;
mod fields;
mod h1;
mod h2;
#[cfg(feature = "http3")]
mod h3;
mod happy_eyeballs;
pub(crate) mod pin;
mod pipeline;
mod pool;
mod protocol;
mod proxy;
mod request_body;
mod resolve;
mod response_body;
mod route;
#[cfg(feature = "tower")]
mod service;
mod socket;
mod socks;
mod timer;
mod timing;
mod tls;
mod transport;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;

#[cfg(feature = "http3")]
pub use alt_svc::AltSvcCache;
pub use builder::HyperTransportBuilder;
pub use decode::{
    ACCEPT_ENCODING, ContentCoding, ContentCodings, MAX_CONTENT_CODINGS, decode, decode_response,
    decode_response_with,
};
pub(crate) use fields::is_raw_only;
pub use fields::{InvalidRawField, RawFields};
pub use h2::{ConnectProtocol, ExtendedConnectUnavailable};
pub use happy_eyeballs::MAX_CONNECT_ADDRESSES;
/// hickory's resolver crate (the `hickory-dns` feature), for the configuration of a
/// [`HickoryResolver`]: [`ResolverConfig`](hickory_resolver::config::ResolverConfig),
/// [`ResolverOpts`](hickory_resolver::config::ResolverOpts), [`TokioResolver`](hickory_resolver::TokioResolver).
#[cfg(feature = "hickory-dns")]
pub use hickory_resolver;
pub use pin::{PinMismatch, PublicKeyPin};
pub use pool::{OriginStats, PoolStats};
pub use protocol::HeadRefused;
pub use proxy::{Proxy, ProxyRefused};
pub use request_body::RequestBody;
pub use resolve::{
    DnsError, HTTPS_RECORD_WAIT, HttpsRecord, HttpsRecordsFuture, Resolve, ResolveFuture,
    SystemResolver,
};
#[cfg(feature = "hickory-dns")]
pub use resolve::{HickoryError, HickoryResolver};
pub use response_body::ResponseBody;
pub use route::Route;
#[cfg(feature = "tower")]
pub use service::{ServiceTransport, TransportService};
pub use socket::ConnectError;
pub use socks::{SocksRefusal, SocksRefused};
pub use timing::{ConnectionInfo, ConnectionTiming};
pub use tls::{Identity, TlsHandshakeError, TlsInfo, TlsVersion};
pub use transport::HyperTransport;

use crate::error::NetworkError;

/// The future a [`Transport`] returns: the response head with a body still to be read.
///
/// ```
/// use whatwg_fetch::net::{RequestBody, ResponseBody, SendOptions, Transport, TransportFuture};
///
/// /// Answers every request with `204 No Content`.
/// struct Empty;
/// impl Transport for Empty {
///     fn send(&self, _: http::Request<RequestBody>, _: SendOptions) -> TransportFuture {
///         Box::pin(async {
///             let mut response = http::Response::new(ResponseBody::empty());
///             *response.status_mut() = http::StatusCode::NO_CONTENT;
///             Ok(response)
///         })
///     }
/// }
/// ```
pub type TransportFuture =
    Pin<Box<dyn Future<Output = Result<http::Response<ResponseBody>, NetworkError>> + Send>>;

/// Sends one HTTP request and returns the response head with a streaming body.
///
/// The spec layer holds an `Arc<dyn Transport>`; swap in another implementation to run
/// fetch over another HTTP stack, a mock for tests, or a recording proxy.
///
/// The request's URI is absolute (`http://host:port/path?query`); the transport derives
/// the origin, the `Host` header and the request target from it. Redirects, cookies,
/// caching and content decoding (unless [`SendOptions::decode_content`]) are the
/// caller's business.
///
/// ```
/// use std::sync::Arc;
/// use whatwg_fetch::net::{ResponseBody, RequestBody, SendOptions, Transport, TransportFuture};
///
/// /// Answers every request with `200 OK` and "mock".
/// struct Mock;
///
/// impl Transport for Mock {
///     fn send(&self, _request: http::Request<RequestBody>, _options: SendOptions) -> TransportFuture {
///         Box::pin(async { Ok(http::Response::new(ResponseBody::full("mock"))) })
///     }
/// }
///
/// let transport: Arc<dyn Transport> = Arc::new(Mock);
/// # let response = tokio::runtime::Builder::new_current_thread().build().unwrap()
/// #     .block_on(transport.send(http::Request::new(RequestBody::empty()), SendOptions::new()));
/// # assert!(response.is_ok());
/// ```
pub trait Transport: Send + Sync + 'static {
    /// Sends `request` and resolves to the response head once it arrives.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::net::{ResponseBody, RequestBody, SendOptions, Transport, TransportFuture};
    ///
    /// /// Answers every request with its own path: a test double of a server.
    /// struct Echo;
    /// impl Transport for Echo {
    ///     fn send(&self, request: http::Request<RequestBody>, _: SendOptions) -> TransportFuture {
    ///         let path = request.uri().path().to_owned();
    ///         Box::pin(async move { Ok(http::Response::new(ResponseBody::full(path))) })
    ///     }
    /// }
    ///
    /// let client = whatwg_fetch::Client::builder().transport(std::sync::Arc::new(Echo)).build()?;
    /// assert_eq!(client.get("https://api.example/items").send().await?.text().await?, "/items");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// A [`NetworkError`] saying why no response came: [`Dns`](NetworkError::Dns),
    /// [`Connect`](NetworkError::Connect), [`Tls`](NetworkError::Tls),
    /// [`Protocol`](NetworkError::Protocol), [`Timeout`](NetworkError::Timeout),
    /// [`UnsupportedScheme`](NetworkError::UnsupportedScheme), …
    fn send(&self, request: http::Request<RequestBody>, options: SendOptions) -> TransportFuture;
}

impl<T: Transport + ?Sized> Transport for Arc<T> {
    fn send(&self, request: http::Request<RequestBody>, options: SendOptions) -> TransportFuture {
        (**self).send(request, options)
    }
}

impl<T: Transport + ?Sized> Transport for Box<T> {
    fn send(&self, request: http::Request<RequestBody>, options: SendOptions) -> TransportFuture {
        (**self).send(request, options)
    }
}

/// Per-request choices the spec layer makes.
///
/// ```
/// use whatwg_fetch::net::SendOptions;
/// let options = SendOptions::new().with_decode_content(true);
/// assert!(options.decode_content);
/// ```
#[derive(Clone, Debug, Default)]
#[non_exhaustive]
pub struct SendOptions {
    /// Decode the response body per its `Content-Encoding` (see [`decode_response`]);
    /// the headers stay as received. Default is `false`: the body comes as sent.
    pub decode_content: bool,
    /// Send the request over a new connection, never a pooled or shared one: what
    /// [HTTP-network fetch](https://fetch.spec.whatwg.org/#concept-http-network-fetch) asks
    /// for when a `421 Misdirected Request` is retried. Default is `false`.
    pub new_connection: bool,
    /// The codings [`decode_content`](SendOptions::decode_content) decodes: a body in
    /// another comes as sent. Default is every coding this build has.
    pub decode_codings: ContentCodings,
    /// Send the request over HTTP/1.1, whatever ALPN or prior knowledge would pick: on a
    /// connection offering only `http/1.1` by ALPN, of a pool of its own beside the
    /// origin's, never on an HTTP/2 connection (the origin's or one it shares). What a
    /// WebSocket opening handshake needs ([obtain a WebSocket
    /// connection](https://websockets.spec.whatwg.org/#concept-websocket-connection-obtain)),
    /// as an HTTP/2 connection carries no `Upgrade`.
    ///
    /// Through an HTTP proxy ([`Proxy`]), such a request to an `http:` origin goes
    /// through a `CONNECT host:port` tunnel, as one to an `https:` origin does, rather
    /// than to the proxy in absolute-form: [RFC 6455
    /// §4.1](https://www.rfc-editor.org/rfc/rfc6455#section-4.1) asks a WebSocket client
    /// behind a proxy for a tunnel, and browsers open one for `ws:` as for `wss:`, since
    /// forward proxies seldom pass an `Upgrade` on. The `CONNECT` carries the proxy's
    /// credentials and [`Proxy::headers`]; the request inside it, in origin-form, carries
    /// neither. Default is `false`.
    pub http1_only: bool,
    /// The request is a WebSocket opening handshake (RFC 6455 §4.1: a `GET` with
    /// `Upgrade: websocket`), and may run on a stream of an HTTP/2 connection as RFC 8441
    /// bootstraps WebSockets, as Chrome and Firefox do: when the pool holds an open HTTP/2
    /// connection to the request's origin whose server allows extended CONNECT
    /// (`SETTINGS_ENABLE_CONNECT_PROTOCOL`), the request goes on it as a `CONNECT` with
    /// `:protocol` `websocket` (without its `Upgrade`, `Connection` and
    /// `Sec-WebSocket-Key`, which RFC 8441 §5 leaves out), and a `2xx` answer hands the
    /// stream over in the response's [`OnUpgrade`](crate::upgrade::OnUpgrade), as a `101`
    /// hands over a connection. Otherwise, and when that connection closes before taking
    /// the request, it goes as [`http1_only`](SendOptions::http1_only) says. No HTTP/2
    /// connection is opened for it: a new one's server has not yet said whether it allows
    /// extended CONNECT. Default is `false`.
    ///
    /// ```
    /// use whatwg_fetch::net::SendOptions;
    /// let options = SendOptions::new().with_websocket(true);
    /// assert!(options.websocket);
    /// ```
    pub websocket: bool,
    /// The HTTP version the request must go over, when the caller asked for one
    /// ([`RequestBuilder::version`](crate::RequestBuilder::version)): `HTTP_3`
    /// sends it over HTTP/3 alone, as [prior knowledge][http3_prior_knowledge] would (with
    /// the `http3` feature, a client whose [`http3`][http3] is on, and no proxy for its
    /// origin); `HTTP_2` over HTTP/2 alone, failing before it is sent when the connection
    /// speaks HTTP/1.1; `HTTP_11` as [`http1_only`](SendOptions::http1_only) does. `None`
    /// (the default) leaves it to ALPN, prior knowledge and `Alt-Svc`.
    ///
    #[cfg_attr(
        feature = "http3",
        doc = "[http3_prior_knowledge]: crate::ClientBuilder::http3_prior_knowledge",
        doc = "[http3]: crate::ClientBuilder::http3"
    )]
    #[cfg_attr(
        not(feature = "http3"),
        doc = "[http3_prior_knowledge]: https://docs.rs/whatwg-fetch/latest/whatwg_fetch/struct.ClientBuilder.html#method.http3_prior_knowledge",
        doc = "[http3]: https://docs.rs/whatwg-fetch/latest/whatwg_fetch/struct.ClientBuilder.html#method.http3"
    )]
    ///
    /// ```
    /// use whatwg_fetch::net::SendOptions;
    /// let options = SendOptions::new().with_version(Some(http::Version::HTTP_2));
    /// assert_eq!(options.version, Some(http::Version::HTTP_2));
    /// ```
    pub version: Option<http::Version>,
    /// Send the request's body only after the server has said it wants it: the head goes
    /// with `Expect: 100-continue`, and the body after a `100 Continue`, or after this
    /// wait without one (servers that do not know the expectation never answer it; curl
    /// waits 1 s). A final response that comes first (a `401`, a `413`, a redirect) ends
    /// the request without its body, so that an upload refused costs nothing; an
    /// HTTP/1.1 connection is then closed, as the server may still wait for the body its
    /// head announced, and an HTTP/2 stream reset once the response is read (HTTP/3 sends
    /// the body at once); a `417 Expectation Failed` sends the request again without the
    /// expectation (HTTP/1.1), on a new connection, when its body could be kept. Only a request with
    /// a body, not HTTP/1.0, and without another `Expect` of its own waits; it is never
    /// pipelined. Default is `None`: the body goes with the head.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::net::SendOptions;
    /// let options = SendOptions::new().with_expect_continue(Some(Duration::from_secs(1)));
    /// assert_eq!(options.expect_continue, Some(Duration::from_secs(1)));
    /// ```
    pub expect_continue: Option<std::time::Duration>,
}

impl SendOptions {
    /// The defaults: no content decoding.
    ///
    /// ```
    /// use whatwg_fetch::net::SendOptions;
    ///
    /// let options = SendOptions::new();
    /// // A transport hands back bodies as sent unless asked to decode them.
    /// assert!(!options.decode_content);
    /// ```
    pub fn new() -> SendOptions {
        SendOptions::default()
    }

    /// These options with [`decode_content`](SendOptions::decode_content) set.
    ///
    /// ```
    /// use whatwg_fetch::net::SendOptions;
    ///
    /// assert!(SendOptions::new().with_decode_content(true).decode_content);
    /// ```
    pub fn with_decode_content(mut self, decode_content: bool) -> SendOptions {
        self.decode_content = decode_content;
        self
    }

    /// These options with [`decode_codings`](SendOptions::decode_codings) set.
    ///
    /// ```
    /// use whatwg_fetch::net::{ContentCodings, SendOptions};
    ///
    /// // Decoded, but only in the codings named: here none, so bodies come as sent.
    /// let options = SendOptions::new().with_decode_content(true).with_decode_codings(ContentCodings::none());
    /// assert_eq!(options.decode_codings, ContentCodings::none());
    /// ```
    pub fn with_decode_codings(mut self, codings: ContentCodings) -> SendOptions {
        self.decode_codings = codings;
        self
    }

    /// These options with [`http1_only`](SendOptions::http1_only) set.
    ///
    /// ```
    /// use whatwg_fetch::net::SendOptions;
    ///
    /// assert!(SendOptions::new().with_http1_only(true).http1_only);
    /// ```
    pub fn with_http1_only(mut self, http1_only: bool) -> SendOptions {
        self.http1_only = http1_only;
        self
    }

    /// These options with [`websocket`](SendOptions::websocket) set.
    ///
    /// ```
    /// use whatwg_fetch::net::SendOptions;
    ///
    /// assert!(SendOptions::new().with_websocket(true).websocket);
    /// ```
    pub fn with_websocket(mut self, websocket: bool) -> SendOptions {
        self.websocket = websocket;
        self
    }

    /// These options with [`new_connection`](SendOptions::new_connection) set.
    ///
    /// ```
    /// use whatwg_fetch::net::SendOptions;
    ///
    /// // A request that must not share a connection with the others (a fresh one, not pooled).
    /// assert!(SendOptions::new().with_new_connection(true).new_connection);
    /// ```
    pub fn with_new_connection(mut self, new_connection: bool) -> SendOptions {
        self.new_connection = new_connection;
        self
    }

    /// These options with [`expect_continue`](SendOptions::expect_continue) set.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::net::SendOptions;
    ///
    /// let options = SendOptions::new().with_expect_continue(Some(Duration::from_secs(1)));
    /// assert_eq!(options.expect_continue, Some(Duration::from_secs(1)));
    /// ```
    pub fn with_expect_continue(mut self, wait: Option<std::time::Duration>) -> SendOptions {
        self.expect_continue = wait;
        self
    }

    /// These options with [`version`](SendOptions::version) set.
    ///
    /// ```
    /// use whatwg_fetch::net::SendOptions;
    ///
    /// let options = SendOptions::new().with_version(Some(http::Version::HTTP_11));
    /// assert_eq!(options.version, Some(http::Version::HTTP_11));
    /// ```
    pub fn with_version(mut self, version: Option<http::Version>) -> SendOptions {
        self.version = version;
        self
    }
}

/// The status text of a response as received: HTTP/1's reason phrase (the transport keeps
/// a non-canonical one in the response's extensions as a `hyper::ext::ReasonPhrase`, as
/// hyper does, and drops a canonical one, which is restored here), and the empty string for HTTP/2, which has none.
///
/// ```
/// use whatwg_fetch::net::status_text;
///
/// let response = http::Response::builder().status(404).body(())?;
/// // No reason phrase kept apart: the canonical one.
/// assert_eq!(status_text(&response), "Not Found");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn status_text<B>(response: &http::Response<B>) -> std::borrow::Cow<'static, str> {
    if response.version() >= http::Version::HTTP_2 {
        return std::borrow::Cow::Borrowed("");
    }
    match response.extensions().get::<hyper::ext::ReasonPhrase>() {
        // A reason phrase is bytes; each byte is one char, as a JavaScript ByteString.
        Some(reason) => std::borrow::Cow::Owned(
            reason
                .as_bytes()
                .iter()
                .map(|&byte| char::from(byte))
                .collect(),
        ),
        None => {
            std::borrow::Cow::Borrowed(response.status().canonical_reason().unwrap_or_default())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_send_sync<T: Send + Sync>() {}

    /// A transport, its builder and the bodies go between tasks and threads.
    #[test]
    fn the_layers_public_types_are_send_and_sync() {
        assert_send_sync::<HyperTransport>();
        assert_send_sync::<HyperTransportBuilder>();
        assert_send_sync::<RequestBody>();
        assert_send_sync::<ResponseBody>();
    }
}
