//! Making a connection: resolve the host, connect TCP by Happy Eyeballs or a Unix domain
//! socket (to the origin, or to a proxy: TLS to an `https:` proxy, then a `CONNECT`
//! tunnel, or a SOCKS5 one through `net/socks.rs`), handshake TLS, and hand the stream to
//! an HTTP/1.1 connection (`net/h1.rs`) or start an HTTP/2 connection's task (`net/h2.rs`).
//!
//! Through an HTTP proxy, an `https:` origin is always reached through a `CONNECT`
//! tunnel; an `http:` one is too when its connections are
//! [`http1_only`](super::SendOptions::http1_only) (a WebSocket opening handshake to a
//! `ws:` URL), as [RFC 6455 §4.1] asks of a client behind a proxy and browsers do, since
//! forward proxies seldom pass an `Upgrade` on an absolute-form request. Any other
//! `http:` request goes to the proxy itself, in absolute-form.
//!
//! [RFC 6455 §4.1]: https://www.rfc-editor.org/rfc/rfc6455#section-4.1

use std::collections::HashMap;
use std::io;
use std::net::{IpAddr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use http::HeaderValue;
use http::header::{PROXY_AUTHORIZATION, USER_AGENT};
use rustls_pki_types::ServerName;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWrite, AsyncWriteExt};
use tokio::net::TcpStream;
use tokio::time::Instant;

use super::h1::{self, Http1};
use super::pool::Key;
use super::proxy::{Proxy, ProxyFailed, ProxyKind, ProxyRefused};
use super::resolve::{DnsError, Resolve};
use super::route::Route;
use super::socket::{SocketOptions, connect_tcp};
use super::socks;
use super::timing::ConnectionTiming;
use super::tls::{TlsInfo, TlsSetup};
use crate::error::{BoxError, NetworkError, TimeoutKind};
use crate::infra::digest::DigestChallenge;
use crate::peer::Peer;

/// A caller's resolver: addresses for a lowercase host name, or `None` to ask DNS.
pub(crate) type ResolveFn = Arc<dyn Fn(&str) -> Option<Vec<SocketAddr>> + Send + Sync>;

/// A connection's request handle, by the protocol it speaks.
pub(crate) enum Connected {
    H1(Http1),
    // Without the `http2` feature, no value of this variant can be made.
    #[cfg_attr(not(feature = "http2"), allow(dead_code))]
    H2(super::h2::H2Connection),
}

/// Everything needed to open a connection; built once per transport.
pub(crate) struct Connector {
    /// Host names (lowercase) mapped to addresses; port 0 means the URL's port.
    pub(crate) overrides: HashMap<String, Vec<SocketAddr>>,
    /// Consulted after `overrides`, before `resolver`.
    pub(crate) resolve_fn: Option<ResolveFn>,
    /// Resolves what `overrides` and `resolve_fn` leave: the system resolver by default.
    pub(crate) resolver: Arc<dyn Resolve>,
    pub(crate) socket: SocketOptions,
    pub(crate) tls: TlsSetup,
    pub(crate) h1: h1::Options,
    #[cfg_attr(not(feature = "http2"), allow(dead_code))]
    pub(crate) h2: super::h2::H2Config,
    pub(crate) http2_prior_knowledge: bool,
    /// Whether an origin may share another's HTTP/2 connection (see
    /// `Inner::coalesce`): not with a TLS configuration of the caller's own.
    pub(crate) coalescing: bool,
    pub(crate) connect_timeout: Option<Duration>,
    /// The proxies, in the order given; a [`Key`]'s `proxy` indexes this list.
    pub(crate) proxies: Box<[Proxy]>,
    /// The origin's TLS offering only `http/1.1` by ALPN ([`http1_tls_config`]), for
    /// [`Key::http1_only`] connections; made at the first.
    pub(crate) tls_http1: std::sync::OnceLock<Arc<rustls::ClientConfig>>,
    /// TLS to `https:` proxies ([`proxy_tls_config`]); `None` when there is none.
    pub(crate) proxy_tls: Option<Arc<rustls::ClientConfig>>,
    /// The `User-Agent` of each `CONNECT` to an HTTP proxy, if any.
    pub(crate) proxy_user_agent: Option<HeaderValue>,
}

impl Connector {
    /// Opens a new connection to `key`'s origin within the connect timeout, noting in
    /// `timing` when each step began and ended (the spec's
    /// [record connection timing info](https://fetch.spec.whatwg.org/#record-connection-timing-info)).
    ///
    /// `resolved` are the addresses of the origin's host when they were just looked up
    /// (and `timing` holds when): they are not looked up again.
    pub(crate) async fn connect(
        &self,
        key: &Key,
        timing: &mut ConnectionTiming,
        resolved: Option<Vec<SocketAddr>>,
    ) -> Result<Connected, NetworkError> {
        // A timeout too long to be an `Instant` (`Duration::MAX`) is none.
        let deadline = self
            .connect_timeout
            .and_then(|timeout| Some((Instant::now().checked_add(timeout)?, timeout)));
        let connected = match deadline {
            Some((deadline, timeout)) => {
                let connecting = self.connect_now(key, timing, Some(deadline), resolved);
                tokio::time::timeout_at(deadline, connecting)
                    .await
                    .map_err(|_| NetworkError::Timeout {
                        kind: TimeoutKind::Connect,
                        after: timeout,
                    })?
            }
            None => self.connect_now(key, timing, None, resolved).await,
        }?;
        // Immediately after establishing the connection: TLS included, the HTTP/2
        // preface aside (hyper sends it without waiting for an answer).
        timing.connection_end = Some(std::time::Instant::now());
        Ok(connected)
    }

    /// Routes `key`: the first proxy that carries requests to its origin, if any, and
    /// whether requests then go to that proxy in absolute-form (an `http:` origin through
    /// an HTTP proxy, unless its connections are `http1_only`, which tunnel as an
    /// `https:` origin's do) rather than through a tunnel. A route of the request's own
    /// (`key.route`) that names a proxy, or none, replaces the transport's list: its
    /// proxy is index 0 of a list of one.
    pub(crate) fn route(&self, key: &mut Key) {
        // A Unix domain socket takes every request, proxies aside (as reqwest does).
        #[cfg(unix)]
        if self.socket.unix_socket.is_some() {
            key.proxy = None;
            key.forward = false;
            return;
        }
        let host = key.authority.host();
        let https = key.https;
        key.proxy = match key.route.as_ref().and_then(|route| route.proxy_setting()) {
            None => self
                .proxies
                .iter()
                .position(|proxy| proxy.intercepts_host(https, host)),
            Some(proxy) => proxy
                .filter(|proxy| proxy.intercepts_host(https, host))
                .map(|_| 0),
        };
        // RFC 6455 §4.1: a WebSocket handshake (the one kind of `http1_only` request)
        // asks the proxy for a tunnel, as browsers do, `ws:` as well as `wss:`.
        key.forward = !key.https
            && !key.http1_only
            && self.proxy(key).is_some_and(|proxy| !proxy.kind.is_socks());
    }

    /// The proxy `key` goes through, if any: its route's, or the transport's.
    pub(crate) fn proxy<'a>(&'a self, key: &'a Key) -> Option<&'a Proxy> {
        let index = key.proxy?;
        match key.route.as_ref().and_then(|route| route.proxy_setting()) {
            Some(proxy) => proxy,
            None => self.proxies.get(index),
        }
    }

    /// [`connect`](Self::connect) without its timeout; `deadline` is when that ends, for
    /// Happy Eyeballs to share what is left of it among a host's addresses.
    async fn connect_now(
        &self,
        key: &Key,
        timing: &mut ConnectionTiming,
        deadline: Option<Instant>,
        resolved: Option<Vec<SocketAddr>>,
    ) -> Result<Connected, NetworkError> {
        let host = bare_host(key.authority.host());
        let port = key
            .authority
            .port_u16()
            .unwrap_or(if key.https { 443 } else { 80 });
        if key.proxy.is_some() {
            let proxy = self.proxy(key).ok_or(NetworkError::Other(
                "connection key names a proxy the transport does not have".into(),
            ))?;
            return self
                .connect_via_proxy(proxy, key, host, port, timing, deadline)
                .await;
        }
        #[cfg(unix)]
        if let Some(path) = &self.socket.unix_socket {
            // No name to resolve.
            timing.connection_start = Some(std::time::Instant::now());
            let stream = super::socket::connect_unix(path).await?;
            // A Unix domain socket's peer has no `SocketAddr`.
            return self.handshake_origin(stream, key, host, timing, None).await;
        }
        let (addrs, now) = match resolved {
            Some(addrs) => (addrs, std::time::Instant::now()),
            None => {
                timing.domain_lookup_start = Some(std::time::Instant::now());
                let addrs = self.resolve(key.route.as_ref(), host, port).await?;
                let now = std::time::Instant::now();
                timing.domain_lookup_end = Some(now);
                (addrs, now)
            }
        };
        timing.connection_start = Some(now);
        let tcp = connect_tcp(&addrs, &self.socket, deadline).await?;
        let addr = tcp.peer_addr().ok();
        self.handshake_origin(tcp, key, host, timing, addr).await
    }

    /// The handshakes with `key`'s origin over `io`, a socket whose peer is at `addr`:
    /// TLS for `https:` (then HTTP/2 or HTTP/1.1 as ALPN picked), else HTTP/2 with prior
    /// knowledge or HTTP/1.1.
    async fn handshake_origin<T>(
        &self,
        io: T,
        key: &Key,
        host: &str,
        timing: &mut ConnectionTiming,
        addr: Option<SocketAddr>,
    ) -> Result<Connected, NetworkError>
    where
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        if key.https {
            self.handshake_tls(io, key, host, timing, addr).await
        } else if self.http2_prior_knowledge && !key.http1_only {
            super::h2::handshake(io, &self.h2, peer(addr, None))
                .await
                .map(Connected::H2)
        } else {
            self.handshake_h1(io, peer(addr, None)).await
        }
    }

    /// A connection through `proxy`:
    ///
    /// - an HTTP proxy (`http:`, or `https:` with TLS to the proxy first): the proxy
    ///   itself for an `http:` origin (the requests then go in absolute-form), or a
    ///   `CONNECT` tunnel to an `https:` one, with TLS to the origin inside it, or to an
    ///   `http:` one whose connections are `http1_only`, with HTTP/1.1 inside it;
    /// - a SOCKS5 proxy: a tunnel to the origin, then as a direct connection would.
    async fn connect_via_proxy(
        &self,
        proxy: &Proxy,
        key: &Key,
        host: &str,
        port: u16,
        timing: &mut ConnectionTiming,
        deadline: Option<Instant>,
    ) -> Result<Connected, NetworkError> {
        match proxy.kind {
            ProxyKind::Http | ProxyKind::Https => {
                // A `407` with a `Digest` challenge, to a proxy with credentials for it:
                // answered on a new connection, once, and once more for `stale=true`.
                let mut answered = false;
                let mut stale_retry_left = true;
                loop {
                    let connected = self
                        .through_http_proxy_once(proxy, key, host, port, timing, deadline)
                        .await;
                    let (Err(error), Some(digest)) = (&connected, &proxy.digest) else {
                        return connected;
                    };
                    let Some(challenge) = digest_challenge_of(error) else {
                        return connected;
                    };
                    if answered {
                        if !(challenge.stale && stale_retry_left) {
                            return connected;
                        }
                        stale_retry_left = false;
                    }
                    answered = true;
                    digest.set_challenge(challenge);
                }
            }
            ProxyKind::Socks5 | ProxyKind::Socks5h => {
                self.through_socks(proxy, key, host, port, timing, deadline)
                    .await
            }
        }
    }

    /// A connection to the HTTP(S) `proxy` (TLS to an `https:` one), then through it.
    async fn through_http_proxy_once(
        &self,
        proxy: &Proxy,
        key: &Key,
        host: &str,
        port: u16,
        timing: &mut ConnectionTiming,
        deadline: Option<Instant>,
    ) -> Result<Connected, NetworkError> {
        let tcp = self.connect_proxy(proxy, key, timing, deadline).await?;
        let addr = tcp.peer_addr().ok();
        if proxy.kind == ProxyKind::Http {
            return self
                .through_http_proxy(tcp, proxy, key, host, port, timing, addr)
                .await;
        }
        // The proxy's TLS is not recorded: only the origin's is the response's.
        let tls = self.handshake_proxy_tls(tcp, proxy).await?;
        self.through_http_proxy(tls, proxy, key, host, port, timing, addr)
            .await
    }

    /// TCP to `proxy`; failures say it was the proxy that could not be reached. The
    /// domain lookup and the connection in `timing` are the proxy's (its first hop).
    async fn connect_proxy(
        &self,
        proxy: &Proxy,
        key: &Key,
        timing: &mut ConnectionTiming,
        deadline: Option<Instant>,
    ) -> Result<TcpStream, NetworkError> {
        let proxy_host = bare_host(proxy.authority.host());
        // A proxy's authority always has a port (its scheme's default at least).
        let proxy_port = proxy.authority.port_u16().unwrap_or(80);
        if timing.domain_lookup_start.is_none() {
            timing.domain_lookup_start = Some(std::time::Instant::now());
        }
        let addrs = self
            .resolve(key.route.as_ref(), proxy_host, proxy_port)
            .await
            .map_err(|error| {
                naming_proxy(error, || {
                    format!("resolve proxy {} failed", proxy.authority)
                })
            })?;
        let now = std::time::Instant::now();
        timing.domain_lookup_end = Some(now);
        timing.connection_start = Some(now);
        connect_tcp(&addrs, &self.socket, deadline)
            .await
            .map_err(|error| {
                naming_proxy(error, || {
                    format!("connect to proxy {} failed", proxy.authority)
                })
            })
    }

    /// TLS to an `https:` proxy, offering only HTTP/1.1.
    async fn handshake_proxy_tls(
        &self,
        tcp: TcpStream,
        proxy: &Proxy,
    ) -> Result<tokio_rustls::client::TlsStream<TcpStream>, NetworkError> {
        let failed = |source: BoxError| {
            NetworkError::Tls(Box::new(ProxyFailed::new(
                format!("TLS handshake with proxy {} failed", proxy.url()),
                source,
            )))
        };
        let config = match &self.proxy_tls {
            Some(config) => Arc::clone(config),
            // A request's own `https:` proxy (`Route::proxy`) on a transport without one.
            None => proxy_tls_config(&self.tls.config),
        };
        let server_name = ServerName::try_from(bare_host(proxy.authority.host()).to_owned())
            .map_err(|e| failed(Box::new(e)))?;
        tokio_rustls::TlsConnector::from(config)
            .connect(server_name, tcp)
            .await
            .map_err(|e| failed(super::tls::mismatch_or_io(e)))
    }

    /// Over `io`, an HTTP proxy's connection (to the proxy at `addr`): as it is when
    /// `key`'s requests go to the proxy in absolute-form ([`Key::forwards_to_proxy`]),
    /// else through a `CONNECT` tunnel to the origin and then as a direct connection
    /// would be (TLS to an `https:` origin, HTTP/1.1 to an `http1_only` `http:` one).
    #[expect(
        clippy::too_many_arguments,
        reason = "the steps of one connection, each named; a struct would only rename them"
    )]
    async fn through_http_proxy<T>(
        &self,
        mut io: T,
        proxy: &Proxy,
        key: &Key,
        host: &str,
        port: u16,
        timing: &mut ConnectionTiming,
        addr: Option<SocketAddr>,
    ) -> Result<Connected, NetworkError>
    where
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        if key.forwards_to_proxy() {
            return self.handshake_h1(io, peer(addr, None)).await;
        }
        connect_tunnel(&mut io, key, port, proxy, self.proxy_user_agent.as_ref()).await?;
        self.handshake_origin(io, key, host, timing, addr).await
    }

    /// A SOCKS5 tunnel to the origin, then what a direct connection speaks: TLS for
    /// `https:`, HTTP/1.1 in origin-form (or HTTP/2 by prior knowledge) for `http:`.
    async fn through_socks(
        &self,
        proxy: &Proxy,
        key: &Key,
        host: &str,
        port: u16,
        timing: &mut ConnectionTiming,
        deadline: Option<Instant>,
    ) -> Result<Connected, NetworkError> {
        let shown = format!("{}:{port}", key.authority.host());
        let (target, target_port) = match host.parse::<IpAddr>() {
            Ok(ip) => (socks::Target::Ip(ip), port),
            // `socks5h:`: the proxy resolves the name; the client never does.
            Err(_) if proxy.kind == ProxyKind::Socks5h => (socks::Target::Name(host), port),
            // `socks5:`: resolved here, before the proxy is reached, as a direct
            // connection would be (overrides included); the first address is sent, as
            // curl does.
            Err(_) => {
                timing.domain_lookup_start = Some(std::time::Instant::now());
                let addrs = self.resolve(key.route.as_ref(), host, port).await?;
                let addr = addrs
                    .first()
                    .ok_or_else(|| NetworkError::Dns(format!("no addresses for {host}").into()))?;
                (socks::Target::Ip(addr.ip()), addr.port())
            }
        };
        let mut tcp = self.connect_proxy(proxy, key, timing, deadline).await?;
        socks::handshake(&mut tcp, proxy, target, target_port, &shown).await?;
        let addr = tcp.peer_addr().ok();
        self.handshake_origin(tcp, key, host, timing, addr).await
    }

    /// TLS to `host` over `io` (a socket whose peer is at `addr`), then HTTP/2 or
    /// HTTP/1.1 as ALPN picked; what the handshake settled on is recorded with `addr` as
    /// the connection's [`Peer`]. A failure is a [`NetworkError::Tls`] whose source, a
    /// `TlsHandshakeError`, names the host and the reason.
    async fn handshake_tls<T>(
        &self,
        io: T,
        key: &Key,
        host: &str,
        timing: &mut ConnectionTiming,
        addr: Option<SocketAddr>,
    ) -> Result<Connected, NetworkError>
    where
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        let server_name = ServerName::try_from(host.to_owned())
            .map_err(|e| TlsSetup::server_name_error(host, e))?;
        // Immediately before the handshake that secures the connection to the origin.
        timing.secure_connection_start = Some(std::time::Instant::now());
        // A connection that must speak HTTP/1.1 offers nothing else.
        let config = match key.http1_only {
            true => Arc::clone(
                self.tls_http1
                    .get_or_init(|| http1_tls_config(&self.tls.config)),
            ),
            false => Arc::clone(&self.tls.config),
        };
        let tls = tokio_rustls::TlsConnector::from(config)
            .connect(server_name, io)
            .await
            .map_err(|e| self.tls.handshake_error(host, e))?;
        let connection = tls.get_ref().1;
        let h2 = connection.alpn_protocol() == Some(b"h2".as_slice());
        // Once per connection: its responses share it. A resumed session's key is
        // checked against the host's pins here (a full handshake's was by the verifier).
        let peer = peer(addr, self.tls.connection_info(host, connection)?);
        if h2 {
            super::h2::handshake(tls, &self.h2, peer)
                .await
                .map(Connected::H2)
        } else {
            self.handshake_h1(tls, peer).await
        }
    }

    /// The addresses of `host`: a literal IP address as is, the addresses `route` (the
    /// request's own) gives it, else an override of the transport's if there is one,
    /// else the resolver function's answer, else the resolver's.
    pub(super) async fn resolve(
        &self,
        route: Option<&Route>,
        host: &str,
        port: u16,
    ) -> Result<Vec<SocketAddr>, NetworkError> {
        if let Ok(ip) = host.parse::<IpAddr>() {
            return Ok(vec![SocketAddr::new(ip, port)]);
        }
        let lower;
        let name = if host.bytes().any(|b| b.is_ascii_uppercase()) {
            lower = host.to_ascii_lowercase();
            lower.as_str()
        } else {
            host
        };
        let with_port = |addr: &SocketAddr| match addr.port() {
            0 => SocketAddr::new(addr.ip(), port),
            _ => *addr,
        };
        // Whoever answers, no address at all is the name's failure to resolve.
        let some = |addrs: &[SocketAddr]| match addrs {
            [] => Err(NetworkError::Dns(Box::new(DnsError::new(
                name,
                "no addresses".into(),
            )))),
            addrs => Ok(addrs.iter().map(with_port).collect()),
        };
        if let Some(addrs) = route.and_then(|route| route.addresses(name)) {
            return some(addrs);
        }
        if let Some(addrs) = self.overrides.get(name) {
            return some(addrs);
        }
        if let Some(addrs) = self.resolve_fn.as_ref().and_then(|f| f(name)) {
            return some(&addrs);
        }
        let addrs = self
            .resolver
            .resolve(name)
            .await
            .map_err(|e| NetworkError::Dns(Box::new(DnsError::new(name, e))))?;
        some(&addrs)
    }

    /// The HTTPS records of the `https:` origin `host`:`port` (see
    /// [`Resolve::resolve_https`]), when the resolver looks them up and answers for the
    /// host: not for an IP address, nor a host the override map or the resolver function
    /// answers for, whose addresses the caller chose.
    #[cfg(feature = "http3")]
    pub(super) fn resolve_https(
        &self,
        host: &str,
        port: u16,
    ) -> Option<super::resolve::HttpsRecordsFuture> {
        if host.parse::<IpAddr>().is_ok() || host.starts_with('[') {
            return None;
        }
        let name = host.to_ascii_lowercase();
        if self.overrides.contains_key(name.as_str())
            || self.resolve_fn.as_ref().and_then(|f| f(&name)).is_some()
        {
            return None;
        }
        self.resolver.resolve_https(&name, port)
    }

    /// An HTTP/1.1 connection over `io`, to `peer`.
    async fn handshake_h1<T>(
        &self,
        io: T,
        peer: Option<Arc<Peer>>,
    ) -> Result<Connected, NetworkError>
    where
        T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
    {
        // No handshake, and no task: the connection is driven by its requests.
        Ok(Connected::H1(Http1::new(io, self.h1, peer)))
    }
}

/// The longest `CONNECT` response head read from a proxy.
const MAX_CONNECT_HEAD: usize = 16 * 1024;

/// Asks the proxy at the other end of `tcp` for a tunnel to `key`'s origin
/// ([RFC 9110 §9.3.6](https://httpwg.org/specs/rfc9110.html#CONNECT)): any 2xx answer
/// opens it, anything else is refused.
async fn connect_tunnel<T>(
    tcp: &mut T,
    key: &Key,
    port: u16,
    proxy: &Proxy,
    user_agent: Option<&HeaderValue>,
) -> Result<(), NetworkError>
where
    T: AsyncRead + AsyncWrite + Unpin,
{
    // The authority-form target: host and port, never userinfo. An IPv6 host keeps
    // its brackets.
    let target = format!("{}:{port}", key.authority.host());
    // The answer to the proxy's last `Digest` challenge, if it has credentials for it.
    let digest = proxy
        .digest
        .as_ref()
        .and_then(|digest| digest.authorization("CONNECT", &target));
    let head = connect_head(&target, proxy, digest.as_ref(), user_agent);
    let io_failed = |error: io::Error| {
        NetworkError::Connect(Box::new(ProxyFailed::new(
            format!("CONNECT {target} through proxy {} failed", proxy.url()),
            Box::new(error),
        )))
    };
    tcp.write_all(&head).await.map_err(io_failed)?;

    let mut buf = Vec::with_capacity(512);
    let end = loop {
        let mut chunk = [0u8; 512];
        let read = tcp.read(&mut chunk).await.map_err(io_failed)?;
        if read == 0 {
            return Err(NetworkError::Protocol(
                format!(
                    "proxy {} closed the connection before answering CONNECT {target}",
                    proxy.url()
                )
                .into(),
            ));
        }
        // Only the new bytes, and the three before them an end could start in: a proxy
        // answering a byte at a time is then read in time linear in its head.
        let from = buf.len().saturating_sub(3);
        buf.extend_from_slice(chunk.get(..read).unwrap_or_default());
        if let Some(end) = memchr::memmem::find(buf.get(from..).unwrap_or_default(), b"\r\n\r\n") {
            break from + end + 4;
        }
        if buf.len() > MAX_CONNECT_HEAD {
            return Err(NetworkError::Protocol(
                format!(
                    "the answer of proxy {} to CONNECT {target} has a head larger than {} bytes",
                    proxy.url(),
                    MAX_CONNECT_HEAD
                )
                .into(),
            ));
        }
    };
    let status = connect_status(&buf).ok_or_else(|| {
        NetworkError::Protocol(
            format!(
                "the answer of proxy {} to CONNECT {target} is not an HTTP/1 response",
                proxy.url()
            )
            .into(),
        )
    })?;
    if !status.is_success() {
        let mut refused = ProxyRefused::new(status, proxy.url(), target);
        // What `connect_head` wrote: the proxy's credentials (Basic, or the answer to its
        // last Digest challenge), or a `Proxy-Authorization` of its own headers.
        refused.offered_credentials = proxy.authorization.is_some()
            || digest.is_some()
            || proxy
                .headers
                .as_deref()
                .is_some_and(|headers| headers.contains_key(PROXY_AUTHORIZATION));
        if status == http::StatusCode::PROXY_AUTHENTICATION_REQUIRED && proxy.digest.is_some() {
            refused.digest_challenge = proxy_digest_challenge(buf.get(..end).unwrap_or_default());
        }
        return Err(NetworkError::Connect(Box::new(refused)));
    }
    // The origin speaks only after the client (its TLS client hello, or its request):
    // anything already here is not the origin's.
    if buf.len() > end {
        return Err(NetworkError::Protocol(
            format!(
                "proxy {} sent data after accepting CONNECT {target}, before the tunnel was used",
                proxy.url()
            )
            .into(),
        ));
    }
    Ok(())
}

/// The head of a `CONNECT` to `target` through `proxy`: `Host`, then the client's
/// `User-Agent` and the proxy's credentials, then the proxy's own headers, which replace
/// either of those two when they have one of the same name (see [`Proxy::headers`]).
/// Names are in title case, as browsers and curl write a `CONNECT`'s.
fn connect_head(
    target: &str,
    proxy: &Proxy,
    digest: Option<&HeaderValue>,
    user_agent: Option<&HeaderValue>,
) -> Vec<u8> {
    let own = proxy.headers.as_deref();
    let overridden = |name: &http::HeaderName| own.is_some_and(|own| own.contains_key(name));
    let mut head = Vec::with_capacity(128);
    head.extend_from_slice(b"CONNECT ");
    head.extend_from_slice(target.as_bytes());
    head.extend_from_slice(b" HTTP/1.1\r\nHost: ");
    head.extend_from_slice(target.as_bytes());
    head.extend_from_slice(b"\r\n");
    if let Some(user_agent) = user_agent.filter(|_| !overridden(&USER_AGENT)) {
        h1::write_field(&mut head, &USER_AGENT, user_agent, true);
    }
    if let Some(authorization) = proxy
        .authorization
        .as_ref()
        .or(digest)
        .filter(|_| !overridden(&PROXY_AUTHORIZATION))
    {
        h1::write_field(&mut head, &PROXY_AUTHORIZATION, authorization, true);
    }
    for (name, value) in own.into_iter().flatten() {
        h1::write_field(&mut head, name, value, true);
    }
    head.extend_from_slice(b"\r\n");
    head
}

/// The strongest `Digest` challenge of the `Proxy-Authenticate` fields of a `407` to a
/// `CONNECT` (`head`, at most [`MAX_CONNECT_HEAD`] bytes and 64 fields), if any.
fn proxy_digest_challenge(head: &[u8]) -> Option<Box<DigestChallenge>> {
    let mut fields = [httparse::EMPTY_HEADER; 64];
    let mut response = httparse::Response::new(&mut fields);
    response.parse(head).ok()?;
    let values = response
        .headers
        .iter()
        .filter(|field| field.name.eq_ignore_ascii_case("proxy-authenticate"))
        .map(|field| field.value);
    let challenges = crate::infra::digest::parse_challenges(values).ok()?;
    DigestChallenge::strongest(&challenges).map(Box::new)
}

/// The `Digest` challenge a proxy's refusal of a `CONNECT` carries, if any.
fn digest_challenge_of(error: &NetworkError) -> Option<DigestChallenge> {
    let NetworkError::Connect(source) = error else {
        return None;
    };
    let refused = source.downcast_ref::<ProxyRefused>()?;
    refused.digest_challenge.as_deref().cloned()
}

/// The status code of the response head in `head` (`HTTP/1.x NNN reason`).
fn connect_status(head: &[u8]) -> Option<http::StatusCode> {
    let line_end = memchr::memchr(b'\n', head)?;
    let line = head.get(..line_end)?;
    let rest = line
        .strip_prefix(b"HTTP/1.1 ")
        .or_else(|| line.strip_prefix(b"HTTP/1.0 "))?;
    let code = rest.get(..3)?;
    if rest.get(3).is_some_and(|&b| b != b' ' && b != b'\r') {
        return None;
    }
    http::StatusCode::from_bytes(code).ok()
}

/// `error`, from reaching a proxy, with `what` failed (naming the proxy) in front of its
/// cause: `connect to proxy 127.0.0.1:3128 failed: Connection refused (os error 111)`.
fn naming_proxy(error: NetworkError, what: impl FnOnce() -> String) -> NetworkError {
    let named = |source: BoxError| Box::new(ProxyFailed::new(what(), source));
    match error {
        NetworkError::Dns(source) => NetworkError::Dns(named(source)),
        // One address tried: the proxy's name and that attempt's error say it all.
        NetworkError::Connect(source) => match source.downcast::<super::socket::ConnectError>() {
            Ok(connect) => match connect.into_single_error() {
                Ok(error) => NetworkError::Connect(named(Box::new(error))),
                Err(connect) => NetworkError::Connect(named(Box::new(connect))),
            },
            Err(source) => NetworkError::Connect(named(source)),
        },
        other => other,
    }
}

/// The TLS configuration for the hop to an `https:` proxy: the transport's (the same
/// roots and settings) offering only `http/1.1` by ALPN, since the proxy is spoken to in
/// HTTP/1.1 (the origin's own TLS, inside a tunnel, still offers `h2`). Made once per
/// transport.
pub(crate) fn proxy_tls_config(tls: &Arc<rustls::ClientConfig>) -> Arc<rustls::ClientConfig> {
    let mut config = rustls::ClientConfig::clone(tls);
    config.alpn_protocols = vec![b"http/1.1".to_vec()];
    Arc::new(config)
}

/// `tls` offering only `http/1.1` by ALPN, for origin connections that must speak
/// HTTP/1.1. A configuration of the caller's own that offers no ALPN keeps offering none.
pub(crate) fn http1_tls_config(tls: &Arc<rustls::ClientConfig>) -> Arc<rustls::ClientConfig> {
    let mut config = rustls::ClientConfig::clone(tls);
    if !config.alpn_protocols.is_empty() {
        config.alpn_protocols = vec![b"http/1.1".to_vec()];
    }
    Arc::new(config)
}

/// What is known of a connection's other end, in the one `Arc` its responses share; `None`
/// when nothing is (a Unix domain socket without TLS), which allocates nothing.
fn peer(addr: Option<SocketAddr>, tls: Option<TlsInfo>) -> Option<Arc<Peer>> {
    if addr.is_none() && tls.is_none() {
        return None;
    }
    Some(Arc::new(Peer { addr, tls }))
}

/// A host without the brackets of an IPv6 literal.
fn bare_host(host: &str) -> &str {
    host.strip_prefix('[')
        .and_then(|h| h.strip_suffix(']'))
        .unwrap_or(host)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn connect_status_reads_the_status_line() {
        assert_eq!(
            connect_status(b"HTTP/1.1 200 Connection established\r\n\r\n"),
            Some(http::StatusCode::OK)
        );
        assert_eq!(
            connect_status(b"HTTP/1.0 407\r\n\r\n"),
            Some(http::StatusCode::PROXY_AUTHENTICATION_REQUIRED)
        );
        assert_eq!(connect_status(b"HTTP/1.1 2000 OK\r\n"), None);
        assert_eq!(connect_status(b"SSH-2.0\r\n"), None);
        assert_eq!(connect_status(b"HTTP/1.1 20"), None);
    }

    #[test]
    fn a_connect_head_carries_the_user_agent_credentials_and_the_proxys_headers() {
        let user_agent = HeaderValue::from_static("my-app/1.0");
        let proxy = Proxy::all("http://u:p@proxy:3128").unwrap();
        assert_eq!(
            String::from_utf8(connect_head("a.test:443", &proxy, None, Some(&user_agent))).unwrap(),
            "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\nUser-Agent: my-app/1.0\r\n\
             Proxy-Authorization: Basic dTpw\r\n\r\n"
        );
        let mut own = http::HeaderMap::new();
        own.insert(
            "proxy-authorization",
            HeaderValue::from_static("Bearer dA=="),
        );
        own.insert("x-proxy-region", HeaderValue::from_static("eu"));
        let proxy = proxy.headers(own);
        assert_eq!(
            String::from_utf8(connect_head("[::1]:8443", &proxy, None, Some(&user_agent))).unwrap(),
            "CONNECT [::1]:8443 HTTP/1.1\r\nHost: [::1]:8443\r\nUser-Agent: my-app/1.0\r\n\
             Proxy-Authorization: Bearer dA==\r\nX-Proxy-Region: eu\r\n\r\n"
        );
        let plain = Proxy::all("http://proxy:3128").unwrap();
        assert_eq!(
            String::from_utf8(connect_head("a.test:443", &plain, None, None)).unwrap(),
            "CONNECT a.test:443 HTTP/1.1\r\nHost: a.test:443\r\n\r\n"
        );
    }

    #[test]
    fn ipv6_brackets_are_stripped() {
        assert_eq!(bare_host("[::1]"), "::1");
        assert_eq!(bare_host("example.com"), "example.com");
    }
}
