//! [`HickoryResolver`]: hickory's DNS stub resolver
//! ([hickory-resolver](https://docs.rs/hickory-resolver)) as a [`Resolve`], the `hickory-dns`
//! feature. It speaks DNS itself (RFC 1035) over UDP and TCP to the name servers of its
//! configuration, by default the system's (`/etc/resolv.conf` on Unix), and caches the
//! answers by their TTL, where the [`SystemResolver`](super::SystemResolver) asks
//! `getaddrinfo` on a blocking thread.
//!
//! What a name server controls and where it is bounded:
//! - the size of an answer: hickory reads at most its EDNS payload size (1,232 bytes) from
//!   a UDP datagram and retries a truncated answer over TCP, whose message length is a
//!   16-bit field;
//! - the time it takes: each query waits [`ResolverOpts::timeout`] (default 5 s, or
//!   resolv.conf's `timeout`) and is sent [`ResolverOpts::attempts`] times;
//! - the number of addresses: an answer may list hundreds (over TCP), each a connection
//!   attempt for Happy Eyeballs; the connect path tries at most
//!   [`MAX_CONNECT_ADDRESSES`](crate::net::MAX_CONNECT_ADDRESSES) of any resolver's
//!   answer, so this one returns them all.

use std::error::Error as StdError;
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;

use hickory_resolver::TokioResolver;
use hickory_resolver::config::{ResolverConfig, ResolverOpts};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::net::{DnsError as HickoryDnsError, NetError, NoRecords};
use hickory_resolver::proto::op::ResponseCode;

use super::{Resolve, ResolveFuture};
use crate::error::{Error, NetworkError};

/// Where the system's DNS configuration is read from, for the error that says it could not
/// be.
#[cfg(all(unix, not(target_os = "android"), not(target_vendor = "apple")))]
const SYSTEM_CONF: &str = "/etc/resolv.conf";
#[cfg(windows)]
const SYSTEM_CONF: &str = "the Windows registry";
#[cfg(not(any(
    windows,
    all(unix, not(target_os = "android"), not(target_vendor = "apple"))
)))]
const SYSTEM_CONF: &str = "the system's network configuration";

/// hickory's DNS resolver as a [`Resolve`] (the `hickory-dns` feature): what reqwest's
/// `hickory_dns(true)` uses. Turn it on for a client with
/// [`ClientBuilder::hickory_dns`](crate::ClientBuilder::hickory_dns), or give one of your
/// own configuration to [`ClientBuilder::resolver`](crate::ClientBuilder::resolver).
///
/// Its addresses come in the order hickory gives them (by default AAAA before A, queried
/// together: [`LookupIpStrategy::Ipv6AndIpv4`](hickory_resolver::config::LookupIpStrategy)),
/// with port 0, so that the URL's port is used; all of them, of which the connect path
/// tries at most [`MAX_CONNECT_ADDRESSES`](crate::net::MAX_CONNECT_ADDRESSES). A failed
/// lookup fails the request with
/// [`NetworkError::Dns`], whose [`DnsError`](super::DnsError) names the host and has a
/// [`HickoryError`] as its source.
///
/// hickory's types are re-exported as
/// [`whatwg_fetch::net::hickory_resolver`](crate::net::hickory_resolver), so that a
/// configuration of one's own needs no dependency of its own (and no second version of
/// hickory in the build):
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::sync::Arc;
/// use std::time::Duration;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::net::HickoryResolver;
/// use whatwg_fetch::net::hickory_resolver::config::{NameServerConfig, ResolverConfig, ResolverOpts};
///
/// // A name server of one's own, say a service registry's on 127.0.0.1, port 53.
/// let config = ResolverConfig::from_name_servers(vec![NameServerConfig::udp_and_tcp(
///     [127, 0, 0, 1].into(),
/// )]);
/// let mut options = ResolverOpts::default();
/// options.timeout = Duration::from_secs(1);
/// let resolver = HickoryResolver::new(config, options).unwrap();
/// let client = Client::builder().resolver(Arc::new(resolver)).build().unwrap();
/// # let _ = client;
/// # });
/// ```
#[derive(Clone)]
pub struct HickoryResolver {
    resolver: Arc<TokioResolver>,
}

impl HickoryResolver {
    /// A resolver of the system's DNS configuration: its name servers, search domains
    /// and options (`ndots`, `timeout`, `attempts`) from `/etc/resolv.conf` on Unix, the
    /// registry on Windows, the system configuration on macOS and Android.
    ///
    /// ```no_run
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::net::HickoryResolver;
    ///
    /// let resolver = HickoryResolver::from_system_conf()?;
    /// let client = Client::builder().resolver(Arc::new(resolver)).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`TypeError`](crate::ErrorKind::TypeError) whose
    /// [`network_error`](Error::network_error) is [`NetworkError::Other`], saying which file
    /// could not be read or why its content cannot be used (no `nameserver` line):
    /// `hickory DNS resolver: cannot read /etc/resolv.conf: No such file or directory (os
    /// error 2)`.
    pub fn from_system_conf() -> Result<HickoryResolver, Error> {
        #[cfg(all(unix, not(target_os = "android"), not(target_vendor = "apple")))]
        {
            HickoryResolver::from_resolv_conf(std::path::Path::new(SYSTEM_CONF))
        }
        #[cfg(not(all(unix, not(target_os = "android"), not(target_vendor = "apple"))))]
        {
            let (config, options) = hickory_resolver::system_conf::read_system_conf()
                .map_err(|e| config_error(format!("cannot use {SYSTEM_CONF}: {e}")))?;
            HickoryResolver::new(config, options)
        }
    }

    /// A resolver of the resolv.conf at `path` (what
    /// [`from_system_conf`](Self::from_system_conf) reads on Unix), each failure naming
    /// the file.
    #[cfg(all(unix, not(target_os = "android"), not(target_vendor = "apple")))]
    fn from_resolv_conf(path: &std::path::Path) -> Result<HickoryResolver, Error> {
        let path_shown = path.display();
        let bytes = std::fs::read(path)
            .map_err(|e| config_error(format!("cannot read {path_shown}: {e}")))?;
        let (config, options) = hickory_resolver::system_conf::parse_resolv_conf(bytes)
            .map_err(|e| config_error(format!("cannot use {path_shown}: {e}")))?;
        HickoryResolver::new(config, options)
    }

    /// A resolver of `config` (the name servers and search domains) and `options`
    /// (timeouts, attempts, the order of A and AAAA lookups, the cache), hickory's
    /// [`ResolverConfig`] and [`ResolverOpts`]; see the example on [`HickoryResolver`].
    ///
    /// # Errors
    ///
    /// A [`TypeError`](crate::ErrorKind::TypeError) whose
    /// [`network_error`](Error::network_error) is [`NetworkError::Other`], with hickory's
    /// reason, when hickory cannot build a resolver of them.
    pub fn new(config: ResolverConfig, options: ResolverOpts) -> Result<HickoryResolver, Error> {
        let resolver = TokioResolver::builder_with_config(config, TokioRuntimeProvider::default())
            .with_options(options)
            .build()
            .map_err(|e| config_error(format!("cannot build a resolver: {e}")))?;
        Ok(HickoryResolver::from_resolver(resolver))
    }

    /// A resolver over one built with hickory's own builder
    /// ([`TokioResolver::builder_with_config`]), for what [`new`](Self::new) does not
    /// reach (hosts files, opportunistic encryption).
    ///
    /// ```
    /// use whatwg_fetch::net::HickoryResolver;
    /// use whatwg_fetch::net::hickory_resolver::TokioResolver;
    /// use whatwg_fetch::net::hickory_resolver::config::{CLOUDFLARE, ResolverConfig};
    /// use whatwg_fetch::net::hickory_resolver::net::runtime::TokioRuntimeProvider;
    ///
    /// let config = ResolverConfig::udp_and_tcp(&CLOUDFLARE);
    /// let resolver = TokioResolver::builder_with_config(config, TokioRuntimeProvider::default())
    ///     .build()
    ///     .unwrap();
    /// let resolver = HickoryResolver::from_resolver(resolver);
    /// # let _ = resolver;
    /// ```
    pub fn from_resolver(resolver: TokioResolver) -> HickoryResolver {
        HickoryResolver {
            resolver: Arc::new(resolver),
        }
    }
}

impl fmt::Debug for HickoryResolver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HickoryResolver").finish_non_exhaustive()
    }
}

impl Resolve for HickoryResolver {
    fn resolve(&self, name: &str) -> ResolveFuture {
        let resolver = Arc::clone(&self.resolver);
        let name = name.to_owned();
        Box::pin(async move {
            let lookup = resolver
                .lookup_ip(name.as_str())
                .await
                .map_err(|error| HickoryError { error })?;
            Ok(lookup.iter().map(|ip| SocketAddr::new(ip, 0)).collect())
        })
    }
}

/// A [`NetworkError::Other`] of the resolver's configuration, naming the resolver.
fn config_error(reason: String) -> Error {
    Error::network(NetworkError::Other(
        format!("hickory DNS resolver: {reason}").into(),
    ))
}

/// Why hickory found no address for a name: the source of the [`DnsError`](super::DnsError)
/// of a [`HickoryResolver`]'s failed lookup.
///
/// Its `Display` says the reason in a few words (`no such name (NXDOMAIN)`, `no name
/// server answered in time`), or hickory's own message; it has no
/// [`source`](std::error::Error::source), as hickory's message already says its causes.
/// [`net_error`](Self::net_error) gives hickory's error itself, to match on.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use whatwg_fetch::net::{HickoryError, HickoryResolver, Resolve};
/// use whatwg_fetch::net::hickory_resolver::config::{NameServerConfig, ResolverConfig, ResolverOpts};
///
/// // A name server that refuses every query: nothing listens on this TCP port.
/// let closed = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap();
/// let mut server = NameServerConfig::tcp(closed.ip());
/// server.connections[0].port = closed.port();
/// let config = ResolverConfig::from_name_servers(vec![server]);
/// let resolver = HickoryResolver::new(config, ResolverOpts::default()).unwrap();
///
/// let error = resolver.resolve("app.example").await.unwrap_err();
/// let error = error.downcast_ref::<HickoryError>().unwrap();
/// assert!(!error.is_nx_domain());
/// # });
/// ```
#[derive(Debug)]
pub struct HickoryError {
    error: NetError,
}

impl HickoryError {
    /// hickory's error: [`NetError`](hickory_resolver::net::NetError).
    pub fn net_error(&self) -> &NetError {
        &self.error
    }

    /// Whether the name server answered that the name does not exist (NXDOMAIN, RFC 1035
    /// §4.1.1's RCODE 3), rather than that it has no address, or not answering at all.
    pub fn is_nx_domain(&self) -> bool {
        matches!(
            &self.error,
            NetError::Dns(HickoryDnsError::NoRecordsFound(NoRecords {
                response_code: ResponseCode::NXDomain,
                ..
            }))
        )
    }

    /// Whether no name server answered within the resolver's timeout
    /// ([`ResolverOpts::timeout`], for each of its attempts).
    pub fn is_timeout(&self) -> bool {
        matches!(&self.error, NetError::Timeout)
    }
}

impl fmt::Display for HickoryError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match &self.error {
            NetError::Dns(HickoryDnsError::NoRecordsFound(no_records)) => {
                match no_records.response_code {
                    ResponseCode::NXDomain => f.write_str("no such name (NXDOMAIN)"),
                    ResponseCode::NoError => f.write_str("no A or AAAA record"),
                    code => write!(f, "no address, the name server answered {code}"),
                }
            }
            NetError::Dns(HickoryDnsError::ResponseCode(code)) => {
                write!(f, "the name server answered {code}")
            }
            NetError::Timeout => f.write_str("no name server answered in time"),
            // hickory's messages say their causes in themselves ("io error: …").
            error => write!(f, "{error}"),
        }
    }
}

impl StdError for HickoryError {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_resolv_conf_that_cannot_be_used_is_named_in_the_error() {
        let missing = std::env::temp_dir().join("whatwg-fetch-no-such-resolv.conf");
        let error = HickoryResolver::from_resolv_conf(&missing).unwrap_err();
        assert!(
            matches!(error.network_error(), Some(NetworkError::Other(_))),
            "{error:?}"
        );
        let message = error.to_string();
        assert!(
            message.contains("hickory DNS resolver: cannot read"),
            "{message}"
        );
        assert!(
            message.contains("whatwg-fetch-no-such-resolv.conf"),
            "{message}"
        );

        let empty = std::env::temp_dir().join(format!(
            "whatwg-fetch-empty-resolv-{}.conf",
            std::process::id()
        ));
        std::fs::write(&empty, "search example.com\n").unwrap();
        let error = HickoryResolver::from_resolv_conf(&empty).unwrap_err();
        let _ = std::fs::remove_file(&empty);
        let message = error.to_string();
        assert!(message.contains("cannot use"), "{message}");
        assert!(message.contains("no nameservers"), "{message}");
    }
}
