//! Name resolution: the [`Resolve`] trait a caller plugs in, the [`SystemResolver`] used
//! when none is, and the [`DnsError`] that names the host that failed.
//!
//! A host name is answered, in this order, by a literal IP address, the transport's
//! override map ([`HyperTransportBuilder::resolve`](super::HyperTransportBuilder::resolve)),
//! its resolver function
//! ([`resolve_with`](super::HyperTransportBuilder::resolve_with)), and then the resolver
//! ([`resolver`](super::HyperTransportBuilder::resolver)), by default the system's. The
//! addresses go to Happy Eyeballs (see the `happy_eyeballs` module) in the order given.
//!
//! With the `hickory-dns` feature, `hickory.rs` holds a second resolver, hickory's DNS
//! stub resolver (`HickoryResolver`), turned on by `HyperTransportBuilder::hickory_dns`.
//! It also answers for an origin's HTTPS records ([RFC
//! 9460](https://www.rfc-editor.org/rfc/rfc9460)), [`HttpsRecord`], which a resolver may
//! give through [`Resolve::resolve_https`]: the transport learns `h3` and its port from
//! them before the first request, as it does from an `Alt-Svc` field after it.

use std::fmt;
use std::future::Future;
use std::net::SocketAddr;
use std::pin::Pin;
use std::time::Duration;

use crate::error::BoxError;

#[cfg(feature = "hickory-dns")]
mod hickory;
#[cfg(feature = "hickory-dns")]
pub use hickory::{HickoryError, HickoryResolver};

/// The future a [`Resolve`] returns: the addresses of a name, or why there are none.
///
/// ```
/// use whatwg_fetch::net::{Resolve, ResolveFuture};
///
/// /// Every name on this machine.
/// struct Loopback;
/// impl Resolve for Loopback {
///     fn resolve(&self, _: &str) -> ResolveFuture {
///         Box::pin(async { Ok(vec![([127, 0, 0, 1], 0).into()]) })
///     }
/// }
/// ```
pub type ResolveFuture = Pin<Box<dyn Future<Output = Result<Vec<SocketAddr>, BoxError>> + Send>>;

/// The future [`Resolve::resolve_https`] returns: an origin's service bindings, or why
/// there are none.
///
/// ```
/// use whatwg_fetch::net::{HttpsRecord, HttpsRecordsFuture, Resolve, ResolveFuture, SystemResolver};
///
/// /// The system's addresses, and HTTP/3 for every `https:` origin.
/// struct H3Everywhere;
/// impl Resolve for H3Everywhere {
///     fn resolve(&self, name: &str) -> ResolveFuture {
///         SystemResolver.resolve(name)
///     }
///     fn resolve_https(&self, _host: &str, _port: u16) -> Option<HttpsRecordsFuture> {
///         Some(Box::pin(async { Ok(vec![HttpsRecord::new(1, None, vec!["h3".into()], None)]) }))
///     }
/// }
/// ```
pub type HttpsRecordsFuture =
    Pin<Box<dyn Future<Output = Result<Vec<HttpsRecord>, BoxError>> + Send>>;

/// One ServiceMode HTTPS record of an origin ([RFC 9460
/// §2.4.3](https://www.rfc-editor.org/rfc/rfc9460#section-2.4.3)), as a [`Resolve`] gives
/// it from [`resolve_https`](Resolve::resolve_https): an endpoint the origin may be
/// reached at, the protocols it speaks there and its port. AliasMode records are the
/// resolver's to follow: what it returns are the records found at the end of the chain.
///
/// With the `http3` feature, a client whose HTTP/3 is on
/// ([`ClientBuilder::http3`](crate::ClientBuilder::http3)) takes the first record (by
/// [`priority`](Self::priority)) whose [`alpn`](Self::alpn) has `h3` as an alternative
/// service for the origin, as if it had announced `Alt-Svc: h3=":port"` for as long as
/// [`ttl`](Self::ttl): its first request then races QUIC against TCP, falling back as
/// for any alternative.
///
/// ```
/// use std::time::Duration;
/// use whatwg_fetch::net::HttpsRecord;
///
/// // example.com. 300 IN HTTPS 1 . alpn="h3,h2" port=8443
/// let record = HttpsRecord::new(1, None, vec!["h3".into(), "h2".into()], Some(8443))
///     .with_ttl(Duration::from_secs(300));
/// assert!(record.alpn.iter().any(|id| id == "h3"));
/// assert_eq!(record.port, Some(8443));
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct HttpsRecord {
    /// `SvcPriority`: a smaller one is preferred; never 0 (AliasMode).
    pub priority: u16,
    /// The endpoint's name (`TargetName`), lowercase and without the root's final dot;
    /// `None` for `.`, the origin's own host name.
    pub target: Option<String>,
    /// The `alpn` SvcParam: the ALPN protocol ids the endpoint speaks besides its default
    /// (`http/1.1` over TLS, unless `no-default-alpn`), such as `h3` and `h2`.
    pub alpn: Vec<String>,
    /// The `port` SvcParam: the endpoint's port, `None` for the origin's.
    pub port: Option<u16>,
    /// How long the record may be kept: its DNS TTL.
    pub ttl: Duration,
}

impl HttpsRecord {
    /// A record of `priority` (at least 1) for the endpoint `target` (`None`: the
    /// origin's host) speaking `alpn` on `port` (`None`: the origin's), kept for five
    /// minutes unless [`with_ttl`](Self::with_ttl) says otherwise.
    ///
    /// ```
    /// use whatwg_fetch::net::HttpsRecord;
    ///
    /// // `example.com. HTTPS 1 . alpn="h3,h2"`: the origin's host, speaking HTTP/3 and HTTP/2.
    /// let record = HttpsRecord::new(1, None, vec!["h3".into(), "h2".into()], None);
    /// assert_eq!((record.priority, record.target), (1, None));
    /// ```
    pub fn new(
        priority: u16,
        target: Option<String>,
        alpn: Vec<String>,
        port: Option<u16>,
    ) -> HttpsRecord {
        HttpsRecord {
            priority,
            target,
            alpn,
            port,
            ttl: Duration::from_secs(300),
        }
    }

    /// The record, kept for `ttl`.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::net::HttpsRecord;
    ///
    /// let record = HttpsRecord::new(1, Some("edge.example.net".into()), vec!["h3".into()], Some(8443))
    ///     .with_ttl(Duration::from_secs(60));
    /// assert_eq!(record.ttl, Duration::from_secs(60));
    /// ```
    #[must_use]
    pub fn with_ttl(mut self, ttl: Duration) -> HttpsRecord {
        self.ttl = ttl;
        self
    }
}

/// Resolves host names to addresses, in place of the system resolver.
///
/// [`resolve`](Resolve::resolve) gets the host name in lowercase, without the brackets or
/// port of a URL, and returns its addresses in the order the caller prefers (Happy
/// Eyeballs then interleaves IPv6 and IPv4 ones, starting with the family of the first).
/// An address with port 0 takes the request URL's port. An error, or an empty list,
/// fails the request with [`NetworkError::Dns`](crate::NetworkError::Dns), whose source
/// is a [`DnsError`] naming the host. IP-address literals never reach the resolver.
///
/// A resolver that answers for the `.internal` names of a service registry and asks the
/// system for any other:
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::net::SocketAddr;
/// use std::sync::Arc;
/// use whatwg_fetch::net::{HyperTransport, Resolve, ResolveFuture, SystemResolver};
///
/// struct Registry {
///     api: SocketAddr,
/// }
///
/// impl Resolve for Registry {
///     fn resolve(&self, name: &str) -> ResolveFuture {
///         if name == "api.internal" {
///             let api = self.api;
///             return Box::pin(async move { Ok(vec![api]) });
///         }
///         SystemResolver.resolve(name)
///     }
/// }
///
/// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
/// # let addr = listener.local_addr().unwrap();
/// # tokio::spawn(async move {
/// #     use tokio::io::{AsyncReadExt, AsyncWriteExt};
/// #     let (mut socket, _) = listener.accept().await.unwrap();
/// #     let _ = socket.read(&mut [0; 1024]).await;
/// #     socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi").await.unwrap();
/// # });
/// use whatwg_fetch::net::{RequestBody, SendOptions, Transport};
///
/// // Port 0: the URL's port.
/// let registry = Registry { api: SocketAddr::new([127, 0, 0, 1].into(), 0) };
/// let transport = HyperTransport::builder().resolver(Arc::new(registry)).build().unwrap();
/// let url = format!("http://api.internal:{}/", addr.port());
/// let request = http::Request::get(url).body(RequestBody::empty()).unwrap();
/// let response = transport.send(request, SendOptions::new()).await.unwrap();
/// assert_eq!(response.status(), 200);
/// # });
/// ```
pub trait Resolve: Send + Sync + 'static {
    /// The addresses of `name`, a lowercase host name.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::net::{Resolve, ResolveFuture};
    ///
    /// /// Every name on this machine.
    /// struct Loopback;
    /// impl Resolve for Loopback {
    ///     fn resolve(&self, _: &str) -> ResolveFuture {
    ///         Box::pin(async { Ok(vec![([127, 0, 0, 1], 0).into()]) })
    ///     }
    /// }
    /// let addrs = Loopback.resolve("api.internal").await.map_err(|e| whatwg_fetch::Error::type_error(e.to_string()))?;
    /// assert!(addrs[0].ip().is_loopback());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    ///
    /// Any error; the request fails with
    /// [`NetworkError::Dns`](crate::NetworkError::Dns) whose source is a [`DnsError`]
    /// carrying it.
    fn resolve(&self, name: &str) -> ResolveFuture;

    /// The HTTPS records ([RFC 9460](https://www.rfc-editor.org/rfc/rfc9460)) of the
    /// `https:` origin `host` (lowercase, never an IP address) and `port`: `None` when
    /// this resolver does not look them up (the default), else a future of the
    /// ServiceMode records, AliasMode ones followed. An error or an empty list means
    /// none: the origin is reached as it would be without them. The transport asks only
    /// when HTTP/3 is on and no alternative service is known for the origin, waits for
    /// the answer at most [`HTTPS_RECORD_WAIT`], and asks again after the records' TTL
    /// (five minutes after none).
    ///
    /// [`HickoryResolver`] answers them; a resolver of one's own may too:
    ///
    /// ```
    /// use whatwg_fetch::net::{HttpsRecord, HttpsRecordsFuture, Resolve, ResolveFuture, SystemResolver};
    ///
    /// /// The system's addresses, and HTTP/3 on port 443 for `*.cdn.internal`.
    /// struct Registry;
    ///
    /// impl Resolve for Registry {
    ///     fn resolve(&self, name: &str) -> ResolveFuture {
    ///         SystemResolver.resolve(name)
    ///     }
    ///     fn resolve_https(&self, host: &str, _port: u16) -> Option<HttpsRecordsFuture> {
    ///         let h3 = host.ends_with(".cdn.internal");
    ///         Some(Box::pin(async move {
    ///             Ok(match h3 {
    ///                 true => vec![HttpsRecord::new(1, None, vec!["h3".into()], Some(443))],
    ///                 false => Vec::new(),
    ///             })
    ///         }))
    ///     }
    /// }
    /// # let _ = Registry;
    /// ```
    fn resolve_https(&self, host: &str, port: u16) -> Option<HttpsRecordsFuture> {
        let _ = (host, port);
        None
    }
}

/// The longest a request waits for its origin's HTTPS records
/// ([`Resolve::resolve_https`]) before it goes on without them: one second. A name
/// server that drops questions of a type it does not know holds up no more than the
/// first request to an origin for that long, once in five minutes.
///
/// ```
/// use whatwg_fetch::net::HTTPS_RECORD_WAIT;
///
/// // The longest a first request to an origin waits for its HTTPS records.
/// assert!(HTTPS_RECORD_WAIT.as_secs() <= 1);
/// ```
pub const HTTPS_RECORD_WAIT: Duration = Duration::from_secs(1);

/// The system resolver (`getaddrinfo` on a blocking thread, through
/// `tokio::net::lookup_host`): the default, and a fallback for a [`Resolve`] of one's own.
///
/// Its addresses come sorted by the system, per Destination Address Selection
/// ([RFC 6724 §6](https://www.rfc-editor.org/rfc/rfc6724#section-6)), with port 0.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use whatwg_fetch::net::{Resolve, SystemResolver};
///
/// let addrs = SystemResolver.resolve("localhost").await.unwrap();
/// assert!(addrs.iter().all(|addr| addr.ip().is_loopback()));
/// # });
/// ```
#[derive(Clone, Copy, Debug, Default)]
pub struct SystemResolver;

impl Resolve for SystemResolver {
    fn resolve(&self, name: &str) -> ResolveFuture {
        let name = name.to_owned();
        Box::pin(async move {
            let addrs = tokio::net::lookup_host((name.as_str(), 0)).await?;
            Ok(addrs.collect())
        })
    }
}

/// Why a host name has no addresses: the source of
/// [`NetworkError::Dns`](crate::NetworkError::Dns). Its `Display` names the host
/// (`DNS lookup of example.invalid failed`); the resolver's own error is its
/// [`source`](std::error::Error::source).
///
/// ```
/// # tokio_test::block_on(async {
/// use std::sync::Arc;
/// use whatwg_fetch::net::{DnsError, Resolve, ResolveFuture};
/// use whatwg_fetch::{Client, NetworkError};
///
/// struct Nothing;
/// impl Resolve for Nothing {
///     fn resolve(&self, _: &str) -> ResolveFuture {
///         Box::pin(async { Err("no such name".into()) })
///     }
/// }
/// let client = Client::builder().resolver(Arc::new(Nothing)).build()?;
/// let error = client.get("http://api.internal/").send().await.unwrap_err();
/// let Some(NetworkError::Dns(cause)) = error.network_error() else { panic!("{error:?}") };
/// let dns = cause.downcast_ref::<DnsError>().expect("named");
/// assert_eq!(dns.to_string(), "DNS lookup of api.internal failed");
/// // The resolver's own error is its source.
/// assert_eq!(std::error::Error::source(dns).map(|e| e.to_string()).as_deref(), Some("no such name"));
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub struct DnsError {
    host: Box<str>,
    source: BoxError,
}

impl DnsError {
    pub(crate) fn new(host: &str, source: BoxError) -> DnsError {
        DnsError {
            host: host.into(),
            source,
        }
    }

    /// The host name that was looked up.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::net::{DnsError, Resolve, ResolveFuture};
    /// use whatwg_fetch::{Client, NetworkError};
    ///
    /// /// A resolver that knows no name.
    /// struct Nothing;
    /// impl Resolve for Nothing {
    ///     fn resolve(&self, name: &str) -> ResolveFuture {
    ///         let name = name.to_owned();
    ///         Box::pin(async move { Err(format!("{name} is not known here").into()) })
    ///     }
    /// }
    ///
    /// let client = Client::builder().resolver(Arc::new(Nothing)).build()?;
    /// let error = client.get("http://api.internal/").send().await.unwrap_err();
    /// let Some(NetworkError::Dns(cause)) = error.network_error() else {
    ///     panic!("not a DNS error: {error:?}");
    /// };
    /// assert_eq!(cause.downcast_ref::<DnsError>().map(DnsError::host), Some("api.internal"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn host(&self) -> &str {
        &self.host
    }
}

impl fmt::Display for DnsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "DNS lookup of {} failed", self.host)
    }
}

impl std::error::Error for DnsError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dns_error_names_the_host() {
        let error = DnsError::new("nonexistent.invalid", "no such host".into());
        // Its own part; the reason is its source.
        assert_eq!(
            error.to_string(),
            "DNS lookup of nonexistent.invalid failed"
        );
        assert_eq!(
            crate::error::Chain(&error).to_string(),
            "DNS lookup of nonexistent.invalid failed: no such host"
        );
        assert_eq!(error.host(), "nonexistent.invalid");
        assert!(std::error::Error::source(&error).is_some());
    }
}
