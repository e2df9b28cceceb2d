//! [`HyperTransportBuilder`]: the options of a [`HyperTransport`], each with its default,
//! and [`build`](HyperTransportBuilder::build), which makes the transport's pool, connector
//! and TLS configuration of them once.

use std::collections::HashMap;
use std::fmt;
use std::net::{IpAddr, SocketAddr};
#[cfg(unix)]
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use http::HeaderValue;
use rustls_pki_types::CertificateDer;
use rustls_pki_types::pem::PemObject;

use super::connect::{Connector, ResolveFn, proxy_tls_config};
use super::h1::HeadLimits;
use super::pin::{PinEntry, PublicKeyPin};
use super::pool::{Pool, PoolConfig};
use super::protocol::ProtocolOptions;
use super::proxy::{Proxy, ProxyKind};
use super::resolve::{Resolve, SystemResolver};
use super::socket::SocketOptions;
use super::tls::{Identity, TlsOptions, TlsVersion};
use super::transport::{HyperTransport, Inner};
use crate::error::{Error, NetworkError};

/// Configures a [`HyperTransport`]. Each option documents its default.
///
/// ```
/// use std::time::Duration;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::net::HyperTransport;
///
/// let transport = HyperTransport::builder()
///     .connect_timeout(Some(Duration::from_secs(5)))
///     .read_timeout(Some(Duration::from_secs(30)))
///     .max_idle_per_origin(16)
///     .build()?;
/// let client = Client::builder().transport(std::sync::Arc::new(transport)).build()?;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Clone)]
pub struct HyperTransportBuilder {
    max_connections_per_origin: usize,
    http2_max_connections_per_origin: usize,
    max_idle_per_origin: usize,
    http1_pipelining: usize,
    pool_idle_timeout: Option<Duration>,
    connect_timeout: Option<Duration>,
    read_timeout: Option<Duration>,
    http2: bool,
    http2_prior_knowledge: bool,
    #[cfg(feature = "http3")]
    http3: bool,
    #[cfg(feature = "http3")]
    http3_prior_knowledge: bool,
    #[cfg(feature = "http3")]
    alt_svc_cache: Option<Arc<super::AltSvcCache>>,
    #[cfg(feature = "http3")]
    tls_early_data: bool,
    #[cfg(feature = "http3")]
    http3_max_idle_timeout: Duration,
    #[cfg(feature = "http3")]
    http3_keep_alive_interval: Duration,
    #[cfg(feature = "http3")]
    http3_keep_alive_timeout: Duration,
    protocol: ProtocolOptions,
    overrides: HashMap<String, Vec<SocketAddr>>,
    resolve_fn: Option<ResolveFn>,
    tls: TlsOptions,
    proxies: Vec<Proxy>,
    proxy_user_agent: Option<HeaderValue>,
    // Connecting: the resolver, Happy Eyeballs and socket options, a Unix socket.
    resolver: Option<Arc<dyn Resolve>>,
    /// Whether a `HickoryResolver` of the system's configuration is made at `build` when
    /// no `resolver` is given.
    #[cfg(feature = "hickory-dns")]
    hickory_dns: bool,
    socket: SocketOptions,
}

/// The default [`HyperTransportBuilder::read_timeout`]: undici's `headersTimeout` and
/// `bodyTimeout`.
const DEFAULT_READ_TIMEOUT: Duration = Duration::from_secs(300);

impl Default for HyperTransportBuilder {
    fn default() -> HyperTransportBuilder {
        HyperTransportBuilder {
            max_connections_per_origin: usize::MAX,
            http2_max_connections_per_origin: 1,
            max_idle_per_origin: usize::MAX,
            http1_pipelining: 1,
            pool_idle_timeout: Some(Duration::from_secs(90)),
            connect_timeout: Some(Duration::from_secs(30)),
            read_timeout: Some(DEFAULT_READ_TIMEOUT),
            http2: cfg!(feature = "http2"),
            http2_prior_knowledge: false,
            #[cfg(feature = "http3")]
            http3: true,
            #[cfg(feature = "http3")]
            http3_prior_knowledge: false,
            #[cfg(feature = "http3")]
            alt_svc_cache: None,
            #[cfg(feature = "http3")]
            tls_early_data: false,
            #[cfg(feature = "http3")]
            http3_max_idle_timeout: super::h3::DEFAULT_IDLE_TIMEOUT,
            #[cfg(feature = "http3")]
            http3_keep_alive_interval: super::h3::DEFAULT_KEEP_ALIVE_INTERVAL,
            #[cfg(feature = "http3")]
            http3_keep_alive_timeout: super::h3::DEFAULT_KEEP_ALIVE_TIMEOUT,
            protocol: ProtocolOptions::default(),
            overrides: HashMap::new(),
            resolve_fn: None,
            tls: TlsOptions::default(),
            proxies: Vec::new(),
            proxy_user_agent: None,
            resolver: None,
            #[cfg(feature = "hickory-dns")]
            hickory_dns: false,
            socket: SocketOptions::default(),
        }
    }
}

impl fmt::Debug for HyperTransportBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HyperTransportBuilder")
            .field(
                "max_connections_per_origin",
                &self.max_connections_per_origin,
            )
            .field(
                "http2_max_connections_per_origin",
                &self.http2_max_connections_per_origin,
            )
            .field("max_idle_per_origin", &self.max_idle_per_origin)
            .field("http1_pipelining", &self.http1_pipelining)
            .field("pool_idle_timeout", &self.pool_idle_timeout)
            .field("connect_timeout", &self.connect_timeout)
            .field("read_timeout", &self.read_timeout)
            .field("http2", &self.http2)
            .field("http2_prior_knowledge", &self.http2_prior_knowledge)
            .field("protocol", &self.protocol)
            .field("overrides", &self.overrides)
            .field("resolve_fn", &self.resolve_fn.is_some())
            .field("tls", &self.tls)
            .field("proxies", &self.proxies)
            .field("proxy_user_agent", &self.proxy_user_agent)
            .field("resolver", &self.resolver.is_some())
            .field("socket", &self.socket)
            .finish_non_exhaustive()
    }
}

impl HyperTransport {
    /// A transport with the defaults of [`HyperTransportBuilder`].
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // One pool for several clients of different policies.
    /// let transport = Arc::new(HyperTransport::new()?);
    /// let api = Client::builder().transport(transport.clone()).build()?;
    /// let crawler = Client::builder().transport(transport).user_agent("crawler/1.0").build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`HyperTransportBuilder::build`].
    pub fn new() -> Result<HyperTransport, Error> {
        HyperTransport::builder().build()
    }

    /// A builder to configure a transport.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// let transport = HyperTransport::builder()
    ///     .connect_timeout(Some(Duration::from_secs(3)))
    ///     .max_idle_per_origin(8)
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn builder() -> HyperTransportBuilder {
        HyperTransportBuilder::default()
    }
}

impl HyperTransportBuilder {
    /// The most HTTP/1.1 connections open at once to one origin, counting those being
    /// connected; further requests wait in a first-come-first-served queue. `0` is
    /// taken as `1`. An HTTP/2 origin uses one connection (see
    /// [`http2_max_connections_per_origin`](Self::http2_max_connections_per_origin)).
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // A crawler that opens at most 4 connections to a site; its other requests wait their turn.
    /// let transport = HyperTransport::builder().max_connections_per_origin(4).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is no limit (`usize::MAX`).
    pub fn max_connections_per_origin(mut self, max: usize) -> HyperTransportBuilder {
        self.max_connections_per_origin = max.max(1);
        self
    }

    /// The most HTTP/2 connections open at once to one origin. With more than one, a
    /// request that finds every stream of the origin's connections taken (the server's
    /// `SETTINGS_MAX_CONCURRENT_STREAMS`) opens another beside them instead of waiting
    /// for a stream to close; requests then go to the newest connection with a stream
    /// free. At the limit, a request waits for a stream, first in, first out. `0` is
    /// taken as `1`.
    ///
    /// Default is 1, as browsers, hyper and reqwest use one connection per origin: a
    /// server may count connections per client, and streams are what HTTP/2 offers
    /// instead. Raise it for a client whose requests in flight outnumber the streams
    /// its server allows.
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// let transport = HyperTransport::builder()
    ///     .http2_max_connections_per_origin(4)
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn http2_max_connections_per_origin(mut self, max: usize) -> HyperTransportBuilder {
        self.http2_max_connections_per_origin = max.max(1);
        self
    }

    /// The most idle HTTP/1.1 connections kept per origin; a connection finishing a
    /// response beyond that is closed.
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // Bursts of 50 requests, between which 8 connections stay open for the next burst.
    /// let transport = HyperTransport::builder().max_idle_per_origin(8).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is no limit (`usize::MAX`), as in reqwest and hyper-util: a burst of `n`
    /// requests in flight leaves `n` connections for the next burst instead of closing
    /// all but a few and opening them again (a TCP and, on `https:`, a TLS handshake
    /// each). Idle connections still close after
    /// [`pool_idle_timeout`](Self::pool_idle_timeout); to bound the number open, use
    /// [`max_connections_per_origin`](Self::max_connections_per_origin).
    pub fn max_idle_per_origin(mut self, max: usize) -> HyperTransportBuilder {
        self.max_idle_per_origin = max;
        self
    }

    /// How long an idle connection is kept before it is closed; `None` keeps it until
    /// the peer closes it.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // A server that closes connections idle for 60 s: close them first, so that no request
    /// // goes out on a connection the server is closing.
    /// let transport = HyperTransport::builder()
    ///     .pool_idle_timeout(Some(Duration::from_secs(50)))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is 90 seconds, as in reqwest.
    pub fn pool_idle_timeout(mut self, timeout: Option<Duration>) -> HyperTransportBuilder {
        self.pool_idle_timeout = timeout;
        self
    }

    /// The longest a new connection may take: name resolution, TCP connect, TLS and
    /// HTTP/2 handshakes. Past it, the request fails with
    /// [`NetworkError::Timeout`] with [`TimeoutKind::Connect`](crate::TimeoutKind::Connect).
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // Gives up on a host that does not answer after 5 s of DNS, TCP and TLS together.
    /// let transport = HyperTransport::builder()
    ///     .connect_timeout(Some(Duration::from_secs(5)))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is 30 seconds.
    pub fn connect_timeout(mut self, timeout: Option<Duration>) -> HyperTransportBuilder {
        self.connect_timeout = timeout;
        self
    }

    /// The longest to wait for the response head once the request is handed to a
    /// connection (sending the request body included), and then between two pieces of
    /// the response body. Past it, the request or the
    /// body fails with [`NetworkError::Timeout`] with [`TimeoutKind::Idle`](crate::TimeoutKind::Idle). `None` waits
    /// as long as the connection stays open.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # // Accepts the connection and never answers.
    /// # tokio::spawn(async move { let _kept = listener.accept().await; std::future::pending::<()>().await });
    /// use std::sync::Arc;
    /// use std::time::Duration;
    /// use whatwg_fetch::net::HyperTransport;
    /// use whatwg_fetch::{Client, NetworkError, TimeoutKind};
    ///
    /// let transport = HyperTransport::builder()
    ///     .read_timeout(Some(Duration::from_millis(200)))
    ///     .build()?;
    /// let client = Client::builder().transport(Arc::new(transport)).build()?;
    /// // The server takes the request and says nothing.
    /// let error = client.get(&url).send().await.unwrap_err();
    /// assert!(matches!(
    ///     error.network_error(),
    ///     Some(NetworkError::Timeout { kind: TimeoutKind::Idle, .. })
    /// ));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is 300 seconds, undici's `headersTimeout` and `bodyTimeout`, so that a
    /// peer that accepts and never answers cannot hold a request forever (reqwest has no
    /// default read timeout).
    pub fn read_timeout(mut self, timeout: Option<Duration>) -> HyperTransportBuilder {
        self.read_timeout = timeout;
        self
    }

    /// Whether to offer `h2` by ALPN on `https:` connections (HTTP/1.1 is always
    /// offered).
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // HTTP/1.1 on `https:` too: a server whose HTTP/2 misbehaves.
    /// let transport = HyperTransport::builder().http2(false).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `true` with the `http2` Cargo feature (a default one); without it,
    /// turning this or [`http2_prior_knowledge`](Self::http2_prior_knowledge) on fails
    /// [`build`](Self::build).
    pub fn http2(mut self, enabled: bool) -> HyperTransportBuilder {
        self.http2 = enabled;
        self
    }

    /// Whether to speak HTTP/2 without negotiation on `http:` connections ("prior
    /// knowledge", RFC 9113 §3.3).
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // An `http:` service that speaks HTTP/2 only (h2c), as gRPC servers do.
    /// let transport = HyperTransport::builder().http2_prior_knowledge(true).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `false`.
    pub fn http2_prior_knowledge(mut self, enabled: bool) -> HyperTransportBuilder {
        self.http2_prior_knowledge = enabled;
        self
    }

    /// Whether `https:` origins may be reached over HTTP/3 (QUIC), as browsers do: an
    /// origin that announces `h3` in an `Alt-Svc` response header (RFC 7838) over TCP is
    /// asked over QUIC next, TCP taking over when QUIC does not answer (the `http3`
    /// Cargo feature, unstable while the h3 crates are).
    ///
    /// With a resolver that looks up HTTPS records (RFC 9460;
    /// [`Resolve::resolve_https`](super::Resolve::resolve_https), which the
    /// [`HickoryResolver`](super::HickoryResolver) of the `hickory-dns` feature does), an
    /// origin whose record lists `h3` is asked over QUIC from its first request, at the
    /// record's endpoint and port, as Chrome and Firefox do: the record stands for an
    /// `Alt-Svc` the origin has not sent yet, raced against TCP and fallen back from the
    /// same way, until its TTL ends or the origin's own `Alt-Svc` replaces it. The first
    /// request to an origin waits for the records at most
    /// [`HTTPS_RECORD_WAIT`](super::HTTPS_RECORD_WAIT); they are asked for again after
    /// their TTL, or five minutes after finding none.
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // TCP only, even to origins that announce HTTP/3: a network that drops UDP.
    /// let transport = HyperTransport::builder().http3(false).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `true` with the feature. Never through a proxy, nor on a request's own
    /// [`Route`](super::Route), and never with a maximum TLS version below 1.3 (QUIC is
    /// TLS 1.3 only).
    #[cfg(feature = "http3")]
    pub fn http3(mut self, enabled: bool) -> HyperTransportBuilder {
        self.http3 = enabled;
        self
    }

    /// Whether `https:` URLs speak HTTP/3 without discovery: every request to an
    /// `https:` origin (not through a proxy, nor on a request's own
    /// [`Route`](super::Route)) goes over QUIC, and a QUIC failure is the request's (reqwest's `http3_prior_knowledge`). For servers known to speak HTTP/3.
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // Servers known to speak HTTP/3: QUIC from the first request, no TCP first.
    /// let transport = HyperTransport::builder().http3_prior_knowledge(true).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `false`. [`build`](Self::build) fails when the TLS options exclude
    /// TLS 1.3.
    #[cfg(feature = "http3")]
    pub fn http3_prior_knowledge(mut self, enabled: bool) -> HyperTransportBuilder {
        self.http3_prior_knowledge = enabled;
        self
    }

    /// The cache of what origins announced by `Alt-Svc` (the `http3` Cargo feature):
    /// `cache`, rather than one of the transport's own. Given to several transports,
    /// what one learns the others use; [saved](super::AltSvcCache::save) and
    /// [loaded](super::AltSvcCache::load) again, it outlives the process, so that the
    /// first request of the next run goes over HTTP/3 at once.
    ///
    /// Default is an empty cache of the transport's own.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::net::{AltSvcCache, HyperTransportBuilder};
    ///
    /// let cache = Arc::new(AltSvcCache::new());
    /// let transport = HyperTransportBuilder::default()
    ///     .alt_svc_cache(Arc::clone(&cache))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    #[cfg(feature = "http3")]
    pub fn alt_svc_cache(mut self, cache: Arc<super::AltSvcCache>) -> HyperTransportBuilder {
        self.alt_svc_cache = Some(cache);
        self
    }

    /// Whether a new HTTP/3 connection that resumes a TLS session may send its first
    /// requests as 0-RTT data ("early data", RFC 9001 §4.6.1), saving the round trip of
    /// the handshake (reqwest's name; the `http3` Cargo feature).
    ///
    /// 0-RTT data can be replayed by an attacker (RFC 9001 §9.2, RFC 8470), so only safe
    /// requests without a body (`GET`, `HEAD`, `OPTIONS`, `TRACE`) go early; any other
    /// waits for the handshake. Only for origins known to speak HTTP/3 (with
    /// [`http3_prior_knowledge`](Self::http3_prior_knowledge), or a request asking for
    /// HTTP/3): an origin found by `Alt-Svc` gets the whole handshake, whose failure sends
    /// its request over TCP. A `425 Too Early` answer sends the request again once the
    /// handshake is done (RFC 8470 §5.2); 0-RTT data the server rejects, or a handshake
    /// not done within the [connect timeout](Self::connect_timeout), sends it again on a
    /// connection made whole.
    ///
    /// Default is `false`.
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransportBuilder;
    ///
    /// let transport = HyperTransportBuilder::default()
    ///     .http3_prior_knowledge(true)
    ///     .tls_early_data(true)
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    #[cfg(feature = "http3")]
    pub fn tls_early_data(mut self, enabled: bool) -> HyperTransportBuilder {
        self.tls_early_data = enabled;
        self
    }

    /// How long an HTTP/3 connection may go without a packet from its server before it
    /// is closed: QUIC's idle timeout (RFC 9000 §10.1), which both ends announce and of
    /// which the lower applies (the `http3` Cargo feature). reqwest's name. A connection
    /// with requests in flight sends PINGs to stay open (see
    /// [`http3_keep_alive_interval`](Self::http3_keep_alive_interval)); one without any
    /// is closed after this long too (at least 100 ms). Zero turns it off, as in QUIC: the
    /// server's idle timeout applies alone, and a connection without requests stays open.
    /// It also bounds a handshake with a server that stops answering, before the server's
    /// own is known: zero with no [`connect_timeout`](Self::connect_timeout) leaves such a
    /// handshake nothing to end it but the caller's abort.
    ///
    /// Default is 30 seconds.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::net::HyperTransportBuilder;
    ///
    /// let transport = HyperTransportBuilder::default()
    ///     .http3_max_idle_timeout(Duration::from_secs(60))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    #[cfg(feature = "http3")]
    pub fn http3_max_idle_timeout(mut self, timeout: Duration) -> HyperTransportBuilder {
        self.http3_max_idle_timeout = timeout;
        self
    }

    /// How long an HTTP/3 connection may hear nothing from its server before it sends a
    /// PING (the `http3` Cargo feature): so that a request the server answers late (a long
    /// poll) keeps its connection open past the idle timeout, and a path that goes silent
    /// is found (see [`http3_keep_alive_timeout`](Self::http3_keep_alive_timeout)). A
    /// connection with no request in flight sends them too, until it is closed for being
    /// idle.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // Long polls through a NAT that forgets a UDP flow after 30 s of silence.
    /// let transport = HyperTransport::builder()
    ///     .http3_keep_alive_interval(Duration::from_secs(15))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is 5 seconds; at least 100 ms, at most a third of the
    /// [idle timeout](Self::http3_max_idle_timeout) and at most a day.
    #[cfg(feature = "http3")]
    pub fn http3_keep_alive_interval(mut self, interval: Duration) -> HyperTransportBuilder {
        self.http3_keep_alive_interval = interval;
        self
    }

    /// How long what an HTTP/3 server must acknowledge (a PING, a request) may go
    /// unanswered, not one packet coming back, before the connection's path is taken for
    /// dead (the `http3` Cargo feature): the connection is closed; its requests that may
    /// go again (one that never reached the server, or an idempotent one that nothing
    /// was heard of) go over TCP when the origin announced HTTP/3 by `Alt-Svc`, or on a
    /// new connection, and the others fail with a [`TimeoutKind::KeepAlive`] error; an
    /// origin found by `Alt-Svc` is marked as not speaking HTTP/3 for a while (five
    /// minutes, then twice as long at each failure, up to 48 hours).
    ///
    /// Default is 1 second; at least 100 ms, and at least four probe timeouts
    /// (RFC 9002 §6.2) of the connection's round-trip time.
    ///
    /// [`TimeoutKind::KeepAlive`]: crate::TimeoutKind::KeepAlive
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::net::HyperTransportBuilder;
    ///
    /// // A path with a long round trip (a satellite link): more time before a silence
    /// // means it is dead.
    /// let transport = HyperTransportBuilder::default()
    ///     .http3_keep_alive_interval(Duration::from_secs(10))
    ///     .http3_keep_alive_timeout(Duration::from_secs(5))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    #[cfg(feature = "http3")]
    pub fn http3_keep_alive_timeout(mut self, timeout: Duration) -> HyperTransportBuilder {
        self.http3_keep_alive_timeout = timeout;
        self
    }

    /// Whether HTTP/1.1 header names go out in title case (`Content-Type`) rather than
    /// as `http::HeaderName` stores them (lowercase). A caller's own casing is not kept:
    /// `http::HeaderMap` does not keep it.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # tokio::spawn(async move {
    /// #     // Answers with the request's head, as it came.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let mut head = vec![0; 4096];
    /// #     let n = stream.read(&mut head).await.unwrap();
    /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-length: {n}\r\n\r\n");
    /// #     let _ = stream.write_all(&[reply.as_bytes(), &head[..n]].concat()).await;
    /// # });
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // For an old server that matches `X-Request-Id` but not `x-request-id`.
    /// let transport = HyperTransport::builder().http1_title_case_headers(true).build()?;
    /// let client = Client::builder().transport(Arc::new(transport)).build()?;
    /// let head = client.get(&url).header("x-request-id", "7").send().await?.text().await?;
    /// assert!(head.contains("\r\nX-Request-Id: 7\r\n"), "{head}");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is `false`.
    pub fn http1_title_case_headers(mut self, enabled: bool) -> HyperTransportBuilder {
        self.protocol.http1_title_case_headers = enabled;
        self
    }

    /// HTTP/1.1 pipelining ([RFC 9112
    /// §9.3.2](https://httpwg.org/specs/rfc9112.html#pipelining)): up to `depth` requests
    /// in flight on one connection, each written without waiting for the responses
    /// before it, which come back in the same order. `0` and `1` pipeline nothing.
    ///
    /// Only requests that may be sent again are pipelined: a `GET`, `HEAD`, `OPTIONS`,
    /// `PUT`, `DELETE` or `TRACE` whose body is empty or one buffer of at most 64 KiB,
    /// with no `Connection`, `Upgrade` or `Expect` header of its own; any other request
    /// goes on a connection of its own, as without pipelining. A request goes on the
    /// first of its origin's pipelined connections with fewer than `depth` requests in
    /// flight; with none, on a new connection while
    /// [`max_connections_per_origin`](Self::max_connections_per_origin) allows, else in
    /// the queue of the least loaded. A pipeline the server ends early (`Connection:
    /// close`, a connection closed, a response that cannot be read) gives back the
    /// requests it had not answered, and each is sent once more on a connection of its
    /// own; a server that ends a pipeline after its first response (HTTP/1.0 servers do)
    /// is sent no more pipelined requests. An origin that speaks HTTP/2 multiplexes its
    /// requests instead.
    ///
    /// When not to: a response waits for every response before it on its connection, so
    /// one slow response (a long poll, a large download, a body read slowly) holds up the
    /// requests behind it (head-of-line blocking), and the read timeout counts from the
    /// time a request's turn comes; some proxies and old servers mishandle pipelined
    /// requests, and browsers do not send them. Pipelining pays for many small requests
    /// to one HTTP/1.1 server that answers them quickly, in order, over few connections:
    /// fewer writes and reads per request, and fewer connections for the same load.
    ///
    /// Default is `1`: no pipelining.
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// let transport = HyperTransport::builder()
    ///     .http1_pipelining(10)
    ///     .max_connections_per_origin(50)
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn http1_pipelining(mut self, depth: usize) -> HyperTransportBuilder {
        self.http1_pipelining = depth.max(1);
        self
    }

    /// Speaks only HTTP/1.1: no `h2` offered by ALPN and no HTTP/2 prior knowledge.
    /// The same as `http2(false).http2_prior_knowledge(false)`.
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // Through a middlebox that mangles HTTP/2.
    /// let transport = HyperTransport::builder().http1_only().build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn http1_only(self) -> HyperTransportBuilder {
        self.http2(false).http2_prior_knowledge(false)
    }

    /// The largest HTTP/1.1 response head accepted, in bytes: the status line and every
    /// header field (and a chunked body's trailer section). A larger head fails the
    /// request with a [`NetworkError::Protocol`] whose message says the head is too large.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # tokio::spawn(async move {
    /// #     // Answers with a 4 KiB header field.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let head = format!("HTTP/1.1 200 OK\r\nx-big: {}\r\ncontent-length: 0\r\n\r\n", "x".repeat(4096));
    /// #     let _ = stream.write_all(head.as_bytes()).await;
    /// # });
    /// use std::sync::Arc;
    /// use whatwg_fetch::net::HyperTransport;
    /// use whatwg_fetch::{Client, NetworkError};
    ///
    /// // The server answers with a 4 KiB header field: past the limit.
    /// let transport = HyperTransport::builder().http1_max_header_size(1024).build()?;
    /// let client = Client::builder().transport(Arc::new(transport)).build()?;
    /// let error = client.get(&url).send().await.unwrap_err();
    /// assert!(matches!(error.network_error(), Some(NetworkError::Protocol(_))));
    /// assert!(format!("{error:#}").contains("head too large"), "{error:#}");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is 256 KiB, Chrome's limit, and the same as
    /// [`http2_max_header_list_size`](Self::http2_max_header_list_size).
    pub fn http1_max_header_size(mut self, max: u32) -> HyperTransportBuilder {
        self.protocol.http1_max_header_size = max;
        self
    }

    /// The most header fields an HTTP/1.1 response head may have; more fail the request
    /// with a [`NetworkError::Protocol`].
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # tokio::spawn(async move {
    /// #     // Answers with 10 header fields.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let fields: String = (0..9).map(|i| format!("x-field-{i}: {i}\r\n")).collect();
    /// #     let head = format!("HTTP/1.1 200 OK\r\n{fields}content-length: 0\r\n\r\n");
    /// #     let _ = stream.write_all(head.as_bytes()).await;
    /// # });
    /// use std::sync::Arc;
    /// use whatwg_fetch::net::HyperTransport;
    /// use whatwg_fetch::{Client, NetworkError};
    ///
    /// // The server answers with 10 header fields: past the limit.
    /// let transport = HyperTransport::builder().http1_max_headers(5).build()?;
    /// let client = Client::builder().transport(Arc::new(transport)).build()?;
    /// let error = client.get(&url).send().await.unwrap_err();
    /// assert!(matches!(error.network_error(), Some(NetworkError::Protocol(_))));
    /// assert!(format!("{error:#}").contains("too many header fields"), "{error:#}");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is 2,000, Node's (`maxHeadersCount`); browsers count no fields, bounding
    /// the head's bytes alone ([`http1_max_header_size`](Self::http1_max_header_size)).
    /// hyper's and reqwest's 100 turns away heads browsers read (a server echoing a
    /// request's 250 fields). Up to 100 fields are parsed on the stack; a head with more is
    /// parsed again with room for the limit on the heap.
    pub fn http1_max_headers(mut self, max: usize) -> HyperTransportBuilder {
        self.protocol.http1_max_headers = max;
        self
    }

    /// The largest HTTP/2 response head accepted: the `SETTINGS_MAX_HEADER_LIST_SIZE`
    /// this client advertises, counted as RFC 9113 §6.5.2 does (each field's name and
    /// value plus 32 bytes). A larger head fails the request with a
    /// [`NetworkError::Protocol`] that names this limit.
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // A service whose responses carry heads of more than 256 KiB (many `Set-Cookie`s).
    /// let transport = HyperTransport::builder().http2_max_header_list_size(1 << 20).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is 256 KiB, as Chrome and Deno advertise (hyper's own default is 16 KiB,
    /// which large `Content-Security-Policy` or `Set-Cookie` heads exceed).
    pub fn http2_max_header_list_size(mut self, max: u32) -> HyperTransportBuilder {
        self.protocol.http2_max_header_list_size = max;
        self
    }

    /// The HTTP/2 flow-control window of each stream (`SETTINGS_INITIAL_WINDOW_SIZE`), in
    /// bytes, at most 2³¹−1 (a larger one is taken as that).
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // Large downloads over a fast path with a long round trip: more in flight per stream.
    /// let transport = HyperTransport::builder()
    ///     .http2_initial_stream_window_size(8 << 20)
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `None`: 2 MiB (hyper's default).
    pub fn http2_initial_stream_window_size(
        mut self,
        size: impl Into<Option<u32>>,
    ) -> HyperTransportBuilder {
        self.protocol.http2_initial_stream_window_size = size.into();
        self
    }

    /// The HTTP/2 flow-control window of a whole connection, in bytes, at most 2³¹−1 (a
    /// larger one is taken as that).
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // Several large downloads at once on one connection.
    /// let transport = HyperTransport::builder()
    ///     .http2_initial_connection_window_size(32 << 20)
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `None`: 5 MiB (hyper's default).
    pub fn http2_initial_connection_window_size(
        mut self,
        size: impl Into<Option<u32>>,
    ) -> HyperTransportBuilder {
        self.protocol.http2_initial_connection_window_size = size.into();
        self
    }

    /// Whether HTTP/2 windows grow with the measured bandwidth-delay product (BDP
    /// estimation by PING), overriding the two window sizes above.
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // Windows that follow the path, for downloads over links of unknown speed.
    /// let transport = HyperTransport::builder().http2_adaptive_window(true).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `false`.
    pub fn http2_adaptive_window(mut self, enabled: bool) -> HyperTransportBuilder {
        self.protocol.http2_adaptive_window = enabled;
        self
    }

    /// The largest HTTP/2 frame payload this client accepts
    /// (`SETTINGS_MAX_FRAME_SIZE`), within the protocol's 16 KiB to 16 MiB (a size outside
    /// is taken as the nearer bound); `None` keeps the protocol's 16 KiB.
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // Fewer, larger DATA frames for bulk transfers.
    /// let transport = HyperTransport::builder().http2_max_frame_size(1 << 20).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `None`.
    pub fn http2_max_frame_size(mut self, size: impl Into<Option<u32>>) -> HyperTransportBuilder {
        self.protocol.http2_max_frame_size = size.into();
        self
    }

    /// How often to send an HTTP/2 keep-alive PING on a connection, counted from the
    /// last PING's answer; `None` sends none. A PING unanswered within
    /// [`http2_keep_alive_timeout`](Self::http2_keep_alive_timeout) closes the
    /// connection, failing its requests.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // Finds a connection a NAT dropped within 25 s, instead of at the next request.
    /// let transport = HyperTransport::builder()
    ///     .http2_keep_alive_interval(Duration::from_secs(20))
    ///     .http2_keep_alive_timeout(Duration::from_secs(5))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `None`.
    pub fn http2_keep_alive_interval(
        mut self,
        interval: impl Into<Option<Duration>>,
    ) -> HyperTransportBuilder {
        self.protocol.http2_keep_alive_interval = interval.into();
        self
    }

    /// How long to wait for a keep-alive PING's acknowledgement before the connection is
    /// closed. Applies only with an
    /// [`http2_keep_alive_interval`](Self::http2_keep_alive_interval).
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // A server far away: 30 s for a PING's answer before the connection is taken for dead.
    /// let transport = HyperTransport::builder()
    ///     .http2_keep_alive_interval(Duration::from_secs(60))
    ///     .http2_keep_alive_timeout(Duration::from_secs(30))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is 20 seconds.
    pub fn http2_keep_alive_timeout(mut self, timeout: Duration) -> HyperTransportBuilder {
        self.protocol.http2_keep_alive_timeout = timeout;
        self
    }

    /// Whether keep-alive PINGs are sent while a connection has no request in flight too
    /// (otherwise only while it has).
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // Keeps a pooled connection open through a NAT between bursts of requests.
    /// let transport = HyperTransport::builder()
    ///     .http2_keep_alive_interval(Duration::from_secs(20))
    ///     .http2_keep_alive_while_idle(true)
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `false`.
    pub fn http2_keep_alive_while_idle(mut self, enabled: bool) -> HyperTransportBuilder {
        self.protocol.http2_keep_alive_while_idle = enabled;
        self
    }

    /// Resolves `host` to `addr` instead of asking DNS. A port of 0 means the request
    /// URL's port. Names compare ASCII case-insensitively.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # tokio::spawn(async move {
    /// #     // Answers one request with `ok`.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// # });
    /// use std::net::SocketAddr;
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // `api.example` is this machine, whatever DNS says; port 0 keeps the URL's.
    /// let transport = HyperTransport::builder()
    ///     .resolve("api.example", SocketAddr::from(([127, 0, 0, 1], 0)))
    ///     .build()?;
    /// let client = Client::builder().transport(Arc::new(transport)).build()?;
    /// let url = format!("http://api.example:{}/", addr.port());
    /// assert_eq!(client.get(&url).send().await?.text().await?, "ok");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn resolve(self, host: &str, addr: SocketAddr) -> HyperTransportBuilder {
        self.resolve_to_addrs(host, &[addr])
    }

    /// Resolves `host` to `addrs`, tried in order, instead of asking DNS. A port of 0
    /// means the request URL's port; an empty `addrs` makes connecting to `host` fail with
    /// a [`NetworkError::Dns`](crate::NetworkError::Dns), as a name without addresses does.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # tokio::spawn(async move {
    /// #     // Answers one request with `ok`.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// # });
    /// # // A port nothing listens on any more.
    /// # let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // `closed` refuses the connection; the next address, `addr`, answers.
    /// let transport = HyperTransport::builder()
    ///     .resolve_to_addrs("api.example", &[closed, addr])
    ///     .build()?;
    /// let client = Client::builder().transport(Arc::new(transport)).build()?;
    /// assert_eq!(client.get("http://api.example/").send().await?.text().await?, "ok");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn resolve_to_addrs(mut self, host: &str, addrs: &[SocketAddr]) -> HyperTransportBuilder {
        self.overrides
            .insert(host.to_ascii_lowercase(), addrs.to_vec());
        self
    }

    /// Resolves host names with `resolve` before asking DNS: it gets the lowercase name
    /// and returns its addresses (a port of 0 means the request URL's port), or `None`
    /// to fall through to the [`resolver`](Self::resolver). Names given to [`resolve`](Self::resolve) are answered
    /// first. For instance, every subdomain of a test domain to one address:
    ///
    /// ```
    /// use std::net::SocketAddr;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// let local: SocketAddr = "127.0.0.1:0".parse().unwrap();
    /// let transport = HyperTransport::builder()
    ///     .resolve_with(move |host| {
    ///         (host == "web-platform.test" || host.ends_with(".web-platform.test"))
    ///             .then(|| vec![local])
    ///     })
    ///     .build();
    /// assert!(transport.is_ok());
    /// ```
    ///
    /// Default is `None`: DNS through the system resolver.
    pub fn resolve_with<F>(mut self, resolve: F) -> HyperTransportBuilder
    where
        F: Fn(&str) -> Option<Vec<SocketAddr>> + Send + Sync + 'static,
    {
        self.resolve_fn = Some(Arc::new(resolve));
        self
    }

    // TLS: trust, identity, versions, and the escape hatch to rustls (see `net/tls.rs`).

    /// Whether to trust the system's trust store: on Linux the certificates OpenSSL would
    /// read (Debian's `ca-certificates`, a corporate CA installed with
    /// `update-ca-certificates`, or the files `SSL_CERT_FILE` and `SSL_CERT_DIR` name),
    /// read once per process; on macOS, Windows and Android the system's own verifier,
    /// through `rustls-platform-verifier`. See the [`net` module's
    /// documentation](super#tls) for how it combines with the built-in roots.
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // The built-in Mozilla roots only: the same trust on every machine.
    /// let transport = HyperTransport::builder().tls_system_roots(false).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `true` with the `system-roots` Cargo feature (a default one); without
    /// it, turning this on fails the build of the client.
    pub fn tls_system_roots(mut self, enabled: bool) -> HyperTransportBuilder {
        self.tls.system_roots = enabled;
        self
    }

    /// Whether to trust the Mozilla root certificates compiled in by `webpki-roots`. With
    /// [`tls_system_roots`](Self::tls_system_roots) on, they are consulted for a chain
    /// whose issuer the system does not know, and alone when the system's store is
    /// empty; turn them off to trust the system only, as curl and reqwest do.
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// # let der = rcgen::generate_simple_self_signed(vec!["ca.internal".to_owned()]).unwrap().cert.der().to_vec();
    /// // A private CA's root alone (`der`, as `std::fs::read("ca.der")?` reads it): neither the
    /// // built-in roots nor the system's.
    /// let transport = HyperTransport::builder()
    ///     .tls_built_in_roots(false)
    ///     .tls_system_roots(false)
    ///     .add_root_certificate_der(der)
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `true` with the `built-in-roots` Cargo feature (a default one); without
    /// it, turning this on fails the build of the client.
    pub fn tls_built_in_roots(mut self, enabled: bool) -> HyperTransportBuilder {
        self.tls.built_in_roots = enabled;
        self
    }

    /// Trusts one more root certificate, DER-encoded, besides the system's and the
    /// built-in ones (or alone, with both off).
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// # let der = rcgen::generate_simple_self_signed(vec!["ca.internal".to_owned()]).unwrap().cert.der().to_vec();
    /// // `der`: a private CA's root, as `std::fs::read("ca.der")?` reads it, trusted beside
    /// // the others.
    /// let transport = HyperTransport::builder().add_root_certificate_der(der).build()?;
    /// // Bytes that are not a certificate fail the build.
    /// let garbled = HyperTransport::builder()
    ///     .add_root_certificate_der(b"not DER".to_vec())
    ///     .build();
    /// assert!(garbled.is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn add_root_certificate_der(mut self, der: impl Into<Vec<u8>>) -> HyperTransportBuilder {
        self.tls.extra_roots.push(CertificateDer::from(der.into()));
        self
    }

    /// Trusts every certificate in a PEM document, as
    /// [`add_root_certificate_der`](Self::add_root_certificate_der) does one.
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// # let pem = rcgen::generate_simple_self_signed(vec!["ca.internal".to_owned()]).unwrap().cert.pem();
    /// // `pem`: a private CA's certificates, as `std::fs::read("ca.pem")?` reads them.
    /// let transport = HyperTransport::builder()
    ///     .add_root_certificates_pem(pem.as_bytes())?
    ///     .build()?;
    /// // A document that holds no certificate is refused at once.
    /// assert!(HyperTransport::builder().add_root_certificates_pem(b"no certificate").is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) with a
    /// [`NetworkError::Tls`] source when the PEM is malformed or holds no certificate.
    pub fn add_root_certificates_pem(mut self, pem: &[u8]) -> Result<HyperTransportBuilder, Error> {
        let mut found = false;
        for cert in CertificateDer::pem_slice_iter(pem) {
            let cert = cert.map_err(|e| Error::network(NetworkError::Tls(Box::new(e))))?;
            self.tls.extra_roots.push(cert);
            found = true;
        }
        if !found {
            return Err(Error::network(NetworkError::Tls(
                "no certificate in the PEM document".into(),
            )));
        }
        Ok(self)
    }

    /// The client certificate and key presented to a server that asks for one (mutual
    /// TLS, RFC 8446 §4.4.2). A server that requires one refuses a client without it: a
    /// [`NetworkError::Tls`] naming the alert (in TLS 1.3 the refusal comes after the
    /// client's side of the handshake, so the error comes from the first request).
    ///
    /// ```no_run
    /// use whatwg_fetch::net::{HyperTransport, Identity};
    ///
    /// let pem = std::fs::read("client.pem").unwrap(); // certificate chain and key
    /// let transport = HyperTransport::builder().identity(Identity::from_pem(&pem)?).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is none.
    pub fn identity(mut self, identity: Identity) -> HyperTransportBuilder {
        self.tls.identity = Some(identity);
        self
    }

    /// The oldest TLS version offered. A server that speaks none of the versions allowed
    /// fails the handshake with a [`NetworkError::Tls`] that says so.
    ///
    /// ```
    /// use whatwg_fetch::net::{HyperTransport, TlsVersion};
    ///
    /// // TLS 1.3 only, as a policy may require.
    /// let transport = HyperTransport::builder().min_tls_version(TlsVersion::Tls13).build()?;
    /// // A minimum above the maximum fails the build.
    /// let none = HyperTransport::builder()
    ///     .min_tls_version(TlsVersion::Tls13)
    ///     .max_tls_version(TlsVersion::Tls12)
    ///     .build();
    /// assert!(none.is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is [`TlsVersion::Tls12`].
    pub fn min_tls_version(mut self, version: TlsVersion) -> HyperTransportBuilder {
        self.tls.min_version = version;
        self
    }

    /// The newest TLS version offered.
    ///
    /// ```
    /// use whatwg_fetch::net::{HyperTransport, TlsVersion};
    ///
    /// // An appliance whose TLS 1.3 is broken.
    /// let transport = HyperTransport::builder().max_tls_version(TlsVersion::Tls12).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is [`TlsVersion::Tls13`].
    pub fn max_tls_version(mut self, version: TlsVersion) -> HyperTransportBuilder {
        self.tls.max_version = version;
        self
    }

    /// **For development only**: accepts any server certificate, self-signed, expired,
    /// for another name or from an unknown issuer, so that anyone on the path can read
    /// and change the traffic. The handshake's signatures are still checked against the
    /// certificate presented. Prefer adding the development CA with
    /// [`add_root_certificate_der`](Self::add_root_certificate_der).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let made = rcgen::generate_simple_self_signed(vec!["localhost".to_owned()]).unwrap();
    /// # let cert = made.cert.der().clone();
    /// # let key = rustls_pki_types::PrivateKeyDer::try_from(made.signing_key.serialize_der()).unwrap();
    /// # let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    /// # let config = rustls::ServerConfig::builder_with_provider(provider)
    /// #     .with_safe_default_protocol_versions().unwrap()
    /// #     .with_no_client_auth()
    /// #     .with_single_cert(vec![cert.clone()], key).unwrap();
    /// # let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let port = listener.local_addr().unwrap().port();
    /// # tokio::spawn(async move {
    /// #     // Answers each request that completes the handshake with `ok`.
    /// #     while let Ok((stream, _)) = listener.accept().await {
    /// #         let Ok(mut tls) = acceptor.accept(stream).await else { continue };
    /// #         let _ = tls.read(&mut [0; 4096]).await;
    /// #         let _ = tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// #         let _ = tls.shutdown().await;
    /// #     }
    /// # });
    /// use std::sync::Arc;
    /// use whatwg_fetch::net::HyperTransport;
    /// use whatwg_fetch::{Client, NetworkError};
    ///
    /// // A test server's self-signed certificate, on a developer's machine only.
    /// let url = format!("https://127.0.0.1:{port}/");
    /// let transport = HyperTransport::builder().danger_accept_invalid_certs(true).build()?;
    /// let client = Client::builder().transport(Arc::new(transport)).build()?;
    /// assert_eq!(client.get(&url).send().await?.text().await?, "ok");
    /// // Checked, the certificate fails the handshake.
    /// let error = Client::new().get(&url).send().await.unwrap_err();
    /// assert!(matches!(error.network_error(), Some(NetworkError::Tls(_))));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is `false`.
    pub fn danger_accept_invalid_certs(mut self, accept: bool) -> HyperTransportBuilder {
        self.tls.accept_invalid_certs = accept;
        self
    }

    /// **For development only**: accepts a trusted certificate whatever host names it is
    /// for, so that any certificate a trusted CA issued, for any site, is taken for the
    /// server's. The chain is still checked. (With the system's verifier on macOS and
    /// Windows, a certificate that is both for another name and otherwise invalid may be
    /// reported for its name, and so accepted.)
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let made = rcgen::generate_simple_self_signed(vec!["somewhere.else".to_owned()]).unwrap();
    /// # let cert = made.cert.der().clone();
    /// # let key = rustls_pki_types::PrivateKeyDer::try_from(made.signing_key.serialize_der()).unwrap();
    /// # let provider = std::sync::Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    /// # let config = rustls::ServerConfig::builder_with_provider(provider)
    /// #     .with_safe_default_protocol_versions().unwrap()
    /// #     .with_no_client_auth()
    /// #     .with_single_cert(vec![cert.clone()], key).unwrap();
    /// # let acceptor = tokio_rustls::TlsAcceptor::from(std::sync::Arc::new(config));
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let port = listener.local_addr().unwrap().port();
    /// # tokio::spawn(async move {
    /// #     // Answers each request that completes the handshake with `ok`.
    /// #     while let Ok((stream, _)) = listener.accept().await {
    /// #         let Ok(mut tls) = acceptor.accept(stream).await else { continue };
    /// #         let _ = tls.read(&mut [0; 4096]).await;
    /// #         let _ = tls.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// #         let _ = tls.shutdown().await;
    /// #     }
    /// # });
    /// use std::sync::Arc;
    /// use whatwg_fetch::net::HyperTransport;
    /// use whatwg_fetch::{Client, NetworkError};
    ///
    /// // `cert` is trusted, but for `somewhere.else`, not for 127.0.0.1.
    /// let url = format!("https://127.0.0.1:{port}/");
    /// let trusting = || HyperTransport::builder().add_root_certificate_der(cert.to_vec());
    /// let transport = trusting().danger_accept_invalid_hostnames(true).build()?;
    /// let client = Client::builder().transport(Arc::new(transport)).build()?;
    /// assert_eq!(client.get(&url).send().await?.text().await?, "ok");
    /// // With the names checked, the handshake fails.
    /// let strict = Client::builder().transport(Arc::new(trusting().build()?)).build()?;
    /// let error = strict.get(&url).send().await.unwrap_err();
    /// assert!(matches!(error.network_error(), Some(NetworkError::Tls(_))));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is `false`.
    pub fn danger_accept_invalid_hostnames(mut self, accept: bool) -> HyperTransportBuilder {
        self.tls.accept_invalid_hostnames = accept;
        self
    }

    /// Whether to write the TLS secrets of each connection to the file that the
    /// `SSLKEYLOGFILE` environment variable names, read when the transport is built, in
    /// the NSS key log format that Wireshark reads to decrypt a capture (as curl and
    /// browsers do with the same variable). Nothing is written when the variable is not
    /// set. Anyone who can read the file can decrypt the traffic.
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // Run with `SSLKEYLOGFILE=/tmp/keys.log`, and give Wireshark that file to read a capture.
    /// let transport = HyperTransport::builder().tls_key_log(true).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `false`: the variable is not even read.
    pub fn tls_key_log(mut self, enabled: bool) -> HyperTransportBuilder {
        self.tls.key_log = enabled;
        self
    }

    /// Pins the public keys `host`'s server may have: a TLS connection to `host` is made
    /// only if the key in the server's certificate is one of `pins`, **on top of** the
    /// usual validation of its chain and name (curl's `CURLOPT_PINNEDPUBLICKEY`, reqwest
    /// #298). Each pin is the SHA-256 digest of a DER `SubjectPublicKeyInfo`: a
    /// [`PublicKeyPin`], or its 32 bytes (`[u8; 32]`). See
    /// [`pin_public_keys_only`](Self::pin_public_keys_only) for a server no root vouches
    /// for.
    ///
    /// - **What is pinned** is the key of the server's own certificate (the end entity),
    ///   as curl pins it, not an intermediate's or the root's: a certificate reissued for
    ///   the same key passes, a new key does not. [`PublicKeyPin::from_certificate_der`]
    ///   gives the pin of a certificate.
    /// - **Several pins** for a host (this called again for it adds to them): any one
    ///   matching suffices, so a key's replacement can be pinned before it is put in
    ///   service, as RFC 7469 §4.3 advises keeping a backup pin.
    /// - **`host`** is a name (compared in ASCII lowercase, a final dot ignored), an IP
    ///   address (`127.0.0.1`, `::1` or `[::1]`), or `*.` and a name: every host one
    ///   label below it (`*.example.com` pins `a.example.com`, not `example.com` nor
    ///   `a.b.example.com`). A host's own pins win over a pattern's. Several hosts, each
    ///   with its own pins, by calling this for each. Hosts without pins are unaffected.
    /// - **Every connection** to the host: HTTP/1.1 and HTTP/2, HTTP/3 (its QUIC
    ///   handshake runs the same verifier), a session resumed (checked again on the
    ///   certificate the session was made with), and TLS to an `https:` proxy whose own
    ///   host is pinned (the pins of an origin reached through the proxy apply to the
    ///   origin's TLS inside the tunnel). An HTTP/2 connection made for another origin
    ///   carries a pinned host's requests (coalescing) only if its key is one of the
    ///   host's pins.
    ///
    /// A key that is not pinned fails the connection before any request is sent on it,
    /// with a [`NetworkError::Tls`] whose [`TlsHandshakeError`](super::TlsHandshakeError)
    /// has a [`PinMismatch`](super::PinMismatch) as its source, naming the host, the key
    /// seen and the pins expected (`the server's public key sha256//n4bQ…= is not among
    /// the pins for example.com: sha256//YhKJ…=`);
    /// [`PinMismatch::find`](super::PinMismatch::find) finds it on a fetch's error.
    /// (Over HTTP/3, quinn keeps a failed handshake's error as text alone: the
    /// [`NetworkError::Tls`] says the same pins, but carries no `PinMismatch` value.)
    ///
    /// ```no_run
    /// use whatwg_fetch::net::{HyperTransport, PublicKeyPin};
    ///
    /// let current: PublicKeyPin = "sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE=".parse()?;
    /// let backup: PublicKeyPin = "sha256//Vjs8r4z+80wjNcr1YKepWQboSIRi63WsWXhIMN+eWys=".parse()?;
    /// let transport = HyperTransport::builder()
    ///     .pin_public_keys("api.example.com", [current, backup])
    ///     .pin_public_keys("*.cdn.example.com", [[0x2a; 32]])
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is no pins. [`build`](Self::build) fails for a `host` that is none of the
    /// above, for a host given no pin at all, and with
    /// [`rustls_config`](Self::rustls_config) (whose verifier is the caller's own).
    pub fn pin_public_keys<I>(mut self, host: &str, pins: I) -> HyperTransportBuilder
    where
        I: IntoIterator,
        I::Item: Into<PublicKeyPin>,
    {
        self.tls.pins.push(PinEntry {
            host: host.to_owned(),
            pins: pins.into_iter().map(Into::into).collect(),
            only: false,
        });
        self
    }

    /// Pins the public keys of `host` **instead of** validating its certificate: a
    /// connection to `host` is made if the key in the server's certificate is one of
    /// `pins`, whoever issued the certificate, for whatever names, and whenever it
    /// expires. For a server of one's own with a self-signed certificate or a private
    /// CA's, with no root to add (curl's `--pinnedpubkey` with `--insecure`). Only
    /// `host` (or the hosts its `*.` pattern covers) is spared the validation; other
    /// hosts are validated as usual. Otherwise as
    /// [`pin_public_keys`](Self::pin_public_keys), whose pins it adds to; a host given to
    /// both is pins-only.
    ///
    /// The handshake still proves that the server holds the private key of the pinned
    /// public key, so no one else can pose as it; what is lost is what a CA adds:
    /// expiry, revocation, and a name bound to the key. An HTTP/2 connection made this
    /// way carries no other origin's requests but those of a host pinned the same way to
    /// the same key.
    ///
    /// ```no_run
    /// use whatwg_fetch::net::{HyperTransport, PublicKeyPin};
    ///
    /// // The pin of the device's self-signed certificate, noted when it was installed.
    /// let pin: PublicKeyPin = "sha256//YhKJKSzoTt2b5FP18fvpHo7fJYqQCjAa3HWY3tvRMwE=".parse()?;
    /// let transport = HyperTransport::builder()
    ///     .pin_public_keys_only("192.168.1.20", [pin])
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is no pins.
    pub fn pin_public_keys_only<I>(mut self, host: &str, pins: I) -> HyperTransportBuilder
    where
        I: IntoIterator,
        I::Item: Into<PublicKeyPin>,
    {
        self.tls.pins.push(PinEntry {
            host: host.to_owned(),
            pins: pins.into_iter().map(Into::into).collect(),
            only: true,
        });
        self
    }

    /// The escape hatch to rustls: uses `config` for every TLS connection instead of the
    /// configuration the options above build. The transport's other options (timeouts,
    /// resolver, proxies, pool, `http2` when `config` has no ALPN protocols) still apply.
    ///
    /// Ignored with it: [`tls_system_roots`](Self::tls_system_roots),
    /// [`tls_built_in_roots`](Self::tls_built_in_roots), the added roots,
    /// [`identity`](Self::identity), [`min_tls_version`](Self::min_tls_version),
    /// [`max_tls_version`](Self::max_tls_version), the `danger_` options and
    /// [`tls_key_log`](Self::tls_key_log): `config` has its own. Public-key pins
    /// ([`pin_public_keys`](Self::pin_public_keys)) cannot be added to it:
    /// [`build`](Self::build) fails with both. If `config` offers no
    /// ALPN protocols, `h2` and `http/1.1` are offered per [`http2`](Self::http2);
    /// otherwise its list decides whether HTTP/2 is spoken.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// # let ca = rcgen::generate_simple_self_signed(vec!["ca.internal".to_owned()]).unwrap().cert.der().clone();
    /// // A configuration of one's own: a private CA (`ca`) as the only root.
    /// let mut roots = rustls::RootCertStore::empty();
    /// roots.add(ca)?;
    /// let provider = Arc::new(rustls::crypto::aws_lc_rs::default_provider());
    /// let config = rustls::ClientConfig::builder_with_provider(provider)
    ///     .with_safe_default_protocol_versions()?
    ///     .with_root_certificates(roots)
    ///     .with_no_client_auth();
    /// let config = Arc::new(config);
    /// let transport = HyperTransport::builder().rustls_config(config.clone()).build()?;
    /// // Pins need the transport's own verifier, which the configuration replaces.
    /// let pinned = HyperTransport::builder()
    ///     .rustls_config(config)
    ///     .pin_public_keys("api.example", [[0x2a; 32]])
    ///     .build();
    /// assert!(pinned.is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// Default is `None`: the configuration is built from the options.
    pub fn rustls_config(mut self, config: Arc<rustls::ClientConfig>) -> HyperTransportBuilder {
        self.tls.rustls_config = Some(config);
        self
    }

    /// The former name of [`rustls_config`](Self::rustls_config).
    #[doc(hidden)]
    pub fn tls_config(self, config: Arc<rustls::ClientConfig>) -> HyperTransportBuilder {
        self.rustls_config(config)
    }

    /// Sends the requests that `proxy` carries through it (see [`Proxy`]). May be
    /// called several times: the first proxy that carries a request's URL is used, and
    /// a request no proxy carries connects directly. Connections through a proxy are
    /// pooled apart from direct ones.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # tokio::spawn(async move {
    /// #     // Answers with the request's head, as it came.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let mut head = vec![0; 4096];
    /// #     let n = stream.read(&mut head).await.unwrap();
    /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-length: {n}\r\n\r\n");
    /// #     let _ = stream.write_all(&[reply.as_bytes(), &head[..n]].concat()).await;
    /// # });
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::{HyperTransport, Proxy};
    ///
    /// // `addr`: a forward proxy on this machine.
    /// let transport = HyperTransport::builder()
    ///     .proxy(Proxy::http(&format!("http://{addr}"))?)
    ///     .build()?;
    /// let client = Client::builder().transport(Arc::new(transport)).build()?;
    /// // The request goes to the proxy, its target in absolute form.
    /// let head = client.get("http://example.com/feed").send().await?.text().await?;
    /// assert!(head.starts_with("GET http://example.com/feed HTTP/1.1\r\n"), "{head}");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is no proxy; the environment is not read (see [`Proxy::from_env`]).
    pub fn proxy(mut self, proxy: Proxy) -> HyperTransportBuilder {
        self.proxies.push(proxy);
        self
    }

    /// Forgets the proxies given to [`proxy`](Self::proxy) before: connections go
    /// direct, unless a proxy is given after it.
    ///
    /// ```
    /// use whatwg_fetch::net::{HyperTransport, Proxy};
    ///
    /// let transport = HyperTransport::builder()
    ///     .proxy(Proxy::all("http://proxy.internal:3128")?)
    ///     .no_proxy()
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn no_proxy(mut self) -> HyperTransportBuilder {
        self.proxies.clear();
        self
    }

    /// The `User-Agent` sent on each `CONNECT` to an HTTP proxy (the request that opens
    /// a tunnel for an `https:` target), as reqwest and curl send their client's: some
    /// proxies refuse a `CONNECT` without one. Requests forwarded to a proxy carry their
    /// own `User-Agent`, if any, and not this. A [`Proxy::headers`] `User-Agent` replaces
    /// it for that proxy.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let (seen, connect) = std::sync::mpsc::channel();
    /// # tokio::spawn(async move {
    /// #     // A proxy that hands over the head of the CONNECT it gets, then refuses it.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let mut head = vec![0; 4096];
    /// #     let n = stream.read(&mut head).await.unwrap();
    /// #     seen.send(String::from_utf8_lossy(&head[..n]).into_owned()).unwrap();
    /// #     let _ = stream.write_all(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n").await;
    /// # });
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::header::HeaderValue;
    /// use whatwg_fetch::net::{HyperTransport, Proxy};
    ///
    /// // `addr`: a proxy that wants to know who opens tunnels through it.
    /// let transport = HyperTransport::builder()
    ///     .proxy(Proxy::all(&format!("http://{addr}"))?)
    ///     .proxy_user_agent(Some(HeaderValue::from_static("inventory-sync/2.1")))
    ///     .build()?;
    /// let client = Client::builder().transport(Arc::new(transport)).build()?;
    /// assert!(client.get("https://example.com/").send().await.is_err());
    /// let connect = connect.recv()?;
    /// assert!(connect.starts_with("CONNECT example.com:443 HTTP/1.1\r\n"), "{connect}");
    /// assert!(connect.contains("\r\nUser-Agent: inventory-sync/2.1\r\n"), "{connect}");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is `None`: no `User-Agent` on `CONNECT`, as the transport adds none to
    /// requests either. A [`Client`](crate::Client) sets it to its
    /// [`user_agent`](crate::ClientBuilder::user_agent).
    pub fn proxy_user_agent(mut self, user_agent: Option<HeaderValue>) -> HyperTransportBuilder {
        self.proxy_user_agent = user_agent;
        self
    }

    /// Resolves host names with `resolver` instead of the system resolver: names the
    /// [`resolve`](Self::resolve) map and the [`resolve_with`](Self::resolve_with)
    /// function leave unanswered go to it (see [`Resolve`] for an example). It is also
    /// asked for the address of a proxy.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # tokio::spawn(async move {
    /// #     // Answers one request with `ok`.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// # });
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::{HyperTransport, Resolve, ResolveFuture};
    ///
    /// /// Every name is this machine: a stand-in for DNS in tests.
    /// struct Loopback;
    ///
    /// impl Resolve for Loopback {
    ///     fn resolve(&self, _name: &str) -> ResolveFuture {
    ///         Box::pin(async { Ok(vec![([127, 0, 0, 1], 0).into()]) })
    ///     }
    /// }
    ///
    /// let transport = HyperTransport::builder().resolver(Arc::new(Loopback)).build()?;
    /// let client = Client::builder().transport(Arc::new(transport)).build()?;
    /// let url = format!("http://api.example:{}/", addr.port());
    /// assert_eq!(client.get(&url).send().await?.text().await?, "ok");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is the [`SystemResolver`] (`getaddrinfo` through tokio).
    pub fn resolver(mut self, resolver: Arc<dyn Resolve>) -> HyperTransportBuilder {
        self.resolver = Some(resolver);
        self
    }

    /// Resolves host names with hickory's DNS resolver
    /// ([`HickoryResolver::from_system_conf`](super::HickoryResolver::from_system_conf):
    /// the system's name servers, asked over UDP and TCP by the transport's own tasks, and
    /// answers cached by their TTL) instead of `getaddrinfo`, as reqwest's
    /// `hickory_dns(true)`. The system's configuration (`/etc/resolv.conf` on Unix) is read
    /// once, by [`build`](Self::build). A resolver given to [`resolver`](Self::resolver)
    /// takes its place, whatever the order of the calls; the [`resolve`](Self::resolve)
    /// map and the [`resolve_with`](Self::resolve_with) function are asked first, as
    /// always. A failed lookup is a [`NetworkError::Dns`] whose
    /// [`DnsError`](super::DnsError)'s source is a [`HickoryError`](super::HickoryError).
    ///
    /// With the `http3` feature, it also looks up an origin's HTTPS records (RFC 9460),
    /// so that an origin that speaks HTTP/3 is asked over QUIC from its first request
    /// (see [`http3`](Self::http3) and
    /// [`HickoryResolver::https_records`](super::HickoryResolver::https_records)).
    ///
    /// Unlike reqwest's, the `hickory-dns` feature does not turn it on by itself, so a
    /// dependency that turns the feature on changes no client's resolver, and there is no
    /// `no_hickory_dns` to undo it: `hickory_dns(false)` is the default.
    ///
    /// ```no_run
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// let transport = HyperTransport::builder().hickory_dns(true).build()?;
    /// # let _ = transport;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `false`: the [`SystemResolver`]. With the `hickory-dns` feature only.
    #[cfg(feature = "hickory-dns")]
    pub fn hickory_dns(mut self, enabled: bool) -> HyperTransportBuilder {
        self.hickory_dns = enabled;
        self
    }

    /// The Connection Attempt Delay of Happy Eyeballs
    /// ([RFC 8305 §5](https://www.rfc-editor.org/rfc/rfc8305#section-5)): when a host has
    /// several addresses, the next one is tried this long after the last attempt started,
    /// or as soon as an attempt fails, while no attempt has connected. The addresses are ordered so that IPv6 and IPv4 alternate, starting with the
    /// family of the first one resolved (§4); the first to connect wins and the other
    /// attempts are closed. All of it stays within the
    /// [`connect_timeout`](Self::connect_timeout), and every address gets a try within
    /// it: when what is left of the timeout, shared among the addresses not yet tried,
    /// is shorter than the delay, the next attempt starts after that share instead (at
    /// least 10 ms after the last), so that two addresses and a 100 ms timeout give the
    /// second a try after 50 ms.
    ///
    /// Held within RFC 8305's bounds: a delay under 100 ms (its Minimum Connection
    /// Attempt Delay, which spares a lossy network a burst of SYNs) is taken as 100 ms,
    /// one over 2 seconds (its Maximum) as 2 seconds.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // A network whose IPv6 often hangs: the next address is tried after 100 ms, not 250.
    /// let transport = HyperTransport::builder()
    ///     .happy_eyeballs_delay(Duration::from_millis(100))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is 250 ms, RFC 8305's recommendation (Chrome and hyper-util wait 300 ms,
    /// curl 200 ms).
    pub fn happy_eyeballs_delay(mut self, delay: Duration) -> HyperTransportBuilder {
        self.socket.happy_eyeballs_delay = super::happy_eyeballs::connection_attempt_delay(delay);
        self
    }

    /// The local IP address to bind sockets to before connecting (the source address of
    /// the connections). A host's addresses of the other family are not tried; a host
    /// with none of this family fails with [`NetworkError::Connect`] whose
    /// [`ConnectError`](super::ConnectError) says why.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let url = format!("http://{addr}/");
    /// # tokio::spawn(async move {
    /// #     // Answers one request with `ok`.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// # });
    /// use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
    /// use std::sync::Arc;
    /// use whatwg_fetch::net::HyperTransport;
    /// use whatwg_fetch::{Client, NetworkError};
    ///
    /// // Connections from one interface's address (here the loopback's).
    /// let transport = HyperTransport::builder()
    ///     .local_address(Some(IpAddr::V4(Ipv4Addr::LOCALHOST)))
    ///     .build()?;
    /// let client = Client::builder().transport(Arc::new(transport)).build()?;
    /// assert_eq!(client.get(&url).send().await?.text().await?, "ok");
    /// // From an IPv6 address, the host's one IPv4 address is not tried.
    /// let v6 = HyperTransport::builder()
    ///     .local_address(Some(IpAddr::V6(Ipv6Addr::LOCALHOST)))
    ///     .build()?;
    /// let client = Client::builder().transport(Arc::new(v6)).build()?;
    /// let error = client.get(&url).send().await.unwrap_err();
    /// assert!(matches!(error.network_error(), Some(NetworkError::Connect(_))));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default is `None`: the system picks.
    pub fn local_address(mut self, address: Option<IpAddr>) -> HyperTransportBuilder {
        self.socket.local_address = address;
        self
    }

    /// Turns on TCP keep-alive (`SO_KEEPALIVE`) with this idle time before the first
    /// probe (`TCP_KEEPIDLE`, whole seconds from 1 to 32,767: a time outside is taken as
    /// the nearest); the interval between probes and their count stay the system's. An idle pooled connection whose peer has vanished is then found dead
    /// rather than kept until it is used.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // Finds a pooled connection whose peer vanished (a NAT or firewall that forgot it).
    /// let transport = HyperTransport::builder()
    ///     .tcp_keepalive(Some(Duration::from_secs(60)))
    ///     .build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `None`: no keep-alive probes, as in hyper-util and libcurl (reqwest
    /// probes after 15 s idle, undici and the curl tool after 60 s).
    pub fn tcp_keepalive(mut self, idle: Option<Duration>) -> HyperTransportBuilder {
        self.socket.tcp_keepalive = idle;
        self
    }

    /// Whether to set `TCP_NODELAY`, sending small writes at once instead of holding
    /// them for Nagle's algorithm.
    ///
    /// ```
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // An upload written in many small pieces: let Nagle's algorithm gather them.
    /// let transport = HyperTransport::builder().tcp_nodelay(false).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// Default is `true`, as in reqwest, undici and browsers.
    pub fn tcp_nodelay(mut self, enabled: bool) -> HyperTransportBuilder {
        self.socket.tcp_nodelay = enabled;
        self
    }

    /// Sends every connection to the Unix domain socket at `path` instead of over TCP,
    /// whatever the request's host: an `http:` request speaks HTTP/1.1 on it (or HTTP/2
    /// with [`http2_prior_knowledge`](Self::http2_prior_knowledge)), an `https:` one TLS
    /// with the URL's host as the server name, and HTTP/2 if ALPN picks it. As with
    /// reqwest's `ClientBuilder::unix_socket`, nothing is resolved, and proxies and the
    /// TCP options ([`local_address`](Self::local_address),
    /// [`tcp_keepalive`](Self::tcp_keepalive), [`tcp_nodelay`](Self::tcp_nodelay),
    /// [`happy_eyeballs_delay`](Self::happy_eyeballs_delay)) do not apply. Connections
    /// are still pooled per origin. A socket that cannot be reached fails the request
    /// with [`NetworkError::Connect`] (`connect to unix socket /run/app.sock failed: No
    /// such file or directory (os error 2)`).
    ///
    /// Unix only. Default is `None`: TCP.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let path = std::env::temp_dir().join(format!("whatwg-fetch-doc-{}.sock", std::process::id()));
    /// # let _ = std::fs::remove_file(&path);
    /// # let listener = tokio::net::UnixListener::bind(&path).unwrap();
    /// # tokio::spawn(async move {
    /// #     // Answers one request with `ok`.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// # });
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::HyperTransport;
    ///
    /// // A daemon's API on a socket (`path`), as Docker's is at `/var/run/docker.sock`.
    /// let transport = HyperTransport::builder().unix_socket(&path).build()?;
    /// let client = Client::builder().transport(Arc::new(transport)).build()?;
    /// // The URL's host goes in `Host`; nothing is resolved.
    /// assert_eq!(client.get("http://localhost/version").send().await?.text().await?, "ok");
    /// # let _ = std::fs::remove_file(&path);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    #[cfg(unix)]
    pub fn unix_socket(mut self, path: impl Into<PathBuf>) -> HyperTransportBuilder {
        self.socket.unix_socket = Some(path.into());
        self
    }

    /// Builds the transport.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use std::time::Duration;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::{HyperTransport, PublicKeyPin};
    ///
    /// let transport = HyperTransport::builder()
    ///     .connect_timeout(Some(Duration::from_secs(5)))
    ///     .build()?;
    /// // Clients send through it; clones of it share its pool.
    /// let client = Client::builder().transport(Arc::new(transport)).build()?;
    /// // Options that cannot be used are refused here, not at the first request.
    /// let unpinned = HyperTransport::builder()
    ///     .pin_public_keys("api.example", Vec::<PublicKeyPin>::new())
    ///     .build();
    /// assert!(unpinned.is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) with a
    /// [`NetworkError::Tls`] source when the TLS options cannot be used: an invalid root
    /// certificate, a minimum TLS version above the maximum,
    /// (with the built-in roots off) a system trust store that cannot be read, or
    /// [public-key pins](Self::pin_public_keys) for a host that is not one, without a
    /// pin, or beside a [`rustls_config`](Self::rustls_config). With
    /// `hickory_dns(true)` (the `hickory-dns` feature), one with a [`NetworkError::Other`]
    /// source when the system's DNS configuration cannot be read or used, as
    /// `HickoryResolver::from_system_conf` says.
    ///
    /// No root to trust at all (the system's and the built-in roots off, none added) is
    /// not an error here, as in reqwest: the transport is built, and each TLS connection
    /// then fails with a [`NetworkError::Tls`] that says so.
    pub fn build(self) -> Result<HyperTransport, Error> {
        if !cfg!(feature = "http2") && (self.http2 || self.http2_prior_knowledge) {
            return Err(Error::network(NetworkError::Other(
                "http2 or http2_prior_knowledge: HTTP/2 is not in this build (its Cargo \
                 feature `http2` is off)"
                    .into(),
            )));
        }
        let tls = self.tls.build(self.http2)?;
        #[cfg(feature = "http3")]
        let h3 = match tls.allows_tls13() {
            // QUIC's handshake is TLS 1.3 alone: a maximum below it leaves HTTP/3 nothing
            // to speak (quinn checks the cipher suites only, not the versions).
            Some(false) => Err(Error::network(NetworkError::Tls(
                "HTTP/3 needs TLS 1.3, which max_tls_version does not allow".into(),
            ))),
            _ => super::h3::H3Client::new(
                &tls.config,
                self.tls_early_data,
                super::h3::H3Timing::new(
                    self.http3_max_idle_timeout,
                    self.http3_keep_alive_interval,
                    self.http3_keep_alive_timeout,
                ),
            ),
        };
        #[cfg(feature = "http3")]
        let h3 = match h3 {
            Ok(h3) if self.http3 || self.http3_prior_knowledge => Some(h3),
            Ok(_) => None,
            Err(error) if self.http3_prior_knowledge => return Err(error),
            // Discovery only: without TLS 1.3, every origin goes over TCP.
            Err(_) => None,
        };
        let h2_for_https = tls.config.alpn_protocols.iter().any(|p| p == b"h2");
        let proxy_tls = self
            .proxies
            .iter()
            .any(|proxy| proxy.kind == ProxyKind::Https)
            .then(|| proxy_tls_config(&tls.config));
        let h1 = super::h1::Options::of(&self.protocol);
        let h2 = super::h2::H2Config::of(&self.protocol);
        // Not with a caller's own verifier (it may judge a host by more than its name),
        // nor over a Unix domain socket (no address to compare, nothing to resolve).
        #[cfg(unix)]
        let coalescing = !tls.is_callers() && self.socket.unix_socket.is_none();
        #[cfg(not(unix))]
        let coalescing = !tls.is_callers();
        let resolver: Arc<dyn Resolve> = match self.resolver {
            Some(resolver) => resolver,
            #[cfg(feature = "hickory-dns")]
            None if self.hickory_dns => {
                Arc::new(super::resolve::HickoryResolver::from_system_conf()?)
            }
            None => Arc::new(SystemResolver),
        };
        Ok(HyperTransport {
            inner: Arc::new(Inner {
                pool: Pool::new(PoolConfig {
                    max_per_origin: self.max_connections_per_origin,
                    max_idle_per_origin: self.max_idle_per_origin,
                    idle_timeout: self.pool_idle_timeout,
                    h2_for_https,
                    h2_for_http: self.http2_prior_knowledge,
                    max_h2_per_origin: self.http2_max_connections_per_origin,
                    pipeline: (self.http1_pipelining > 1).then_some(
                        super::pipeline::PipelineConfig {
                            depth: self.http1_pipelining,
                            read_timeout: self.read_timeout,
                            idle_timeout: self.pool_idle_timeout,
                            title_case: self.protocol.http1_title_case_headers,
                        },
                    ),
                }),
                connector: Connector {
                    overrides: self.overrides,
                    resolve_fn: self.resolve_fn,
                    resolver,
                    socket: self.socket,
                    tls,
                    h1,
                    h2,
                    http2_prior_knowledge: self.http2_prior_knowledge,
                    coalescing,
                    connect_timeout: self.connect_timeout,
                    proxy_tls,
                    tls_http1: std::sync::OnceLock::new(),
                    proxies: self.proxies.into_boxed_slice(),
                    proxy_user_agent: self.proxy_user_agent,
                },
                read_timeout: self.read_timeout,
                head_limits: HeadLimits::of(&self.protocol),
                #[cfg(feature = "http3")]
                h3,
                #[cfg(feature = "http3")]
                http3_prior_knowledge: self.http3_prior_knowledge,
                #[cfg(feature = "http3")]
                alt_svc: self.alt_svc_cache.unwrap_or_default(),
            }),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_default_read_timeout_is_300_seconds() {
        let builder = HyperTransportBuilder::default();
        assert_eq!(builder.read_timeout, Some(Duration::from_secs(300)));
        assert_eq!(builder.read_timeout(None).read_timeout, None);
    }

    #[test]
    fn the_default_pool_keeps_every_idle_connection_for_90_seconds() {
        let builder = HyperTransportBuilder::default();
        assert_eq!(builder.max_idle_per_origin, usize::MAX);
        assert_eq!(builder.pool_idle_timeout, Some(Duration::from_secs(90)));
    }

    #[test]
    fn pem_without_certificates_is_an_error() {
        let result = HyperTransport::builder().add_root_certificates_pem(b"nothing");
        assert!(result.is_err());
    }
}
