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
//!   answer, so this one returns them all;
//! - HTTPS records (RFC 9460): an AliasMode chain is followed for at most
//!   [`MAX_ALIAS_HOPS`] names, at most [`MAX_HTTPS_RECORDS`] ServiceMode records are
//!   kept, of at most [`MAX_ALPN_IDS`] ALPN ids each, and the transport waits for them
//!   at most [`HTTPS_RECORD_WAIT`](super::HTTPS_RECORD_WAIT).

use std::error::Error as StdError;
use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use hickory_resolver::TokioResolver;
use hickory_resolver::config::{ResolverConfig, ResolverOpts};
use hickory_resolver::net::runtime::TokioRuntimeProvider;
use hickory_resolver::net::{DnsError as HickoryDnsError, NetError, NoRecords};
use hickory_resolver::proto::op::ResponseCode;
use hickory_resolver::proto::rr::rdata::svcb::{SVCB, SvcParamKey, SvcParamValue};
use hickory_resolver::proto::rr::{Name, RData, RecordType};

use super::{HttpsRecord, HttpsRecordsFuture, Resolve, ResolveFuture};
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
///
/// It also looks up an origin's HTTPS records ([`Resolve::resolve_https`]): a client
/// whose HTTP/3 is on then takes an `h3` endpoint from them for its first request. Turn
/// that off with [`https_records`](Self::https_records).
#[derive(Clone)]
pub struct HickoryResolver {
    resolver: Arc<TokioResolver>,
    https_records: bool,
}

/// The most AliasMode records followed from an origin's name (RFC 9460 §2.4.2: "clients
/// MUST ... limit the length of alias chains"; §3: chains "SHOULD" stay short): a chain
/// longer than this, or one that loops, gives no records.
pub const MAX_ALIAS_HOPS: usize = 8;

/// The most ServiceMode HTTPS records kept from one answer (by priority); the rest are
/// dropped.
pub const MAX_HTTPS_RECORDS: usize = 16;

/// The most ALPN ids kept from one record's `alpn`.
pub const MAX_ALPN_IDS: usize = 16;

/// The SvcParamKeys this resolver understands (RFC 9460 §8: a record whose `mandatory`
/// names another "MUST" be ignored): `mandatory`, `alpn`, `no-default-alpn`, `port`,
/// and the address hints, which it may leave unused (§7.3).
fn understood(key: SvcParamKey) -> bool {
    matches!(
        key,
        SvcParamKey::Mandatory
            | SvcParamKey::Alpn
            | SvcParamKey::NoDefaultAlpn
            | SvcParamKey::Port
            | SvcParamKey::Ipv4Hint
            | SvcParamKey::Ipv6Hint
    )
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
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::net::HickoryResolver;
    /// use whatwg_fetch::net::hickory_resolver::config::{NameServerConfig, ResolverConfig, ResolverOpts};
    ///
    /// // Two name servers of one's own, asked with a 2 s timeout per attempt.
    /// let servers = [[10, 0, 0, 2], [10, 0, 0, 3]].map(|ip| NameServerConfig::udp_and_tcp(ip.into()));
    /// let mut options = ResolverOpts::default();
    /// options.timeout = Duration::from_secs(2);
    /// let resolver = HickoryResolver::new(ResolverConfig::from_name_servers(servers.to_vec()), options)?;
    /// let client = whatwg_fetch::Client::builder().resolver(std::sync::Arc::new(resolver)).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
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
            https_records: true,
        }
    }

    /// Whether this resolver looks up HTTPS records ([`Resolve::resolve_https`]), so that
    /// a client whose HTTP/3 is on learns an origin's `h3` endpoint before its first
    /// request. On by default; off, such a client learns of HTTP/3 from `Alt-Svc` alone.
    ///
    /// ```
    /// use whatwg_fetch::net::{HickoryResolver, Resolve};
    /// use whatwg_fetch::net::hickory_resolver::config::{ResolverConfig, ResolverOpts};
    ///
    /// let resolver = HickoryResolver::new(ResolverConfig::default(), ResolverOpts::default())
    ///     .unwrap()
    ///     .https_records(false);
    /// assert!(resolver.resolve_https("example.com", 443).is_none());
    /// ```
    #[must_use]
    pub fn https_records(mut self, enabled: bool) -> HickoryResolver {
        self.https_records = enabled;
        self
    }
}

/// The name whose HTTPS records say how to reach the `https:` origin `host`:`port` ([RFC
/// 9460 §9.1](https://www.rfc-editor.org/rfc/rfc9460#section-9.1): Port Prefix Naming,
/// "with one modification: if the scheme is "https" and the port is 443, then the
/// client's original QNAME is equal to the service name (i.e., the origin's hostname),
/// without any prefix labels"), absolute, so that no search domain is tried.
fn https_query_name(host: &str, port: u16) -> String {
    let host = host.trim_end_matches('.');
    match port {
        443 => format!("{host}."),
        port => format!("_{port}._https.{host}."),
    }
}

/// The name `name` as [`HttpsRecord::target`] has it: lowercase, without the final dot.
fn target_text(name: &Name) -> String {
    let mut text = name.to_lowercase().to_ascii();
    if text.ends_with('.') {
        text.pop();
    }
    text
}

/// `svcb` as an [`HttpsRecord`] for the origin host, its effective TargetName being
/// `owner` for `.`; `None` if it is AliasMode or has a mandatory key this resolver does
/// not understand (RFC 9460 §8).
fn service_record(svcb: &SVCB, owner: Option<&str>, ttl: u32) -> Option<HttpsRecord> {
    if svcb.svc_priority == 0 {
        return None;
    }
    let mut alpn = Vec::new();
    let mut port = None;
    for (_, value) in &svcb.svc_params {
        match value {
            // §8: "In a ServiceMode RR, a SvcParamKey is considered "mandatory" if the RR
            // will not function correctly for clients that ignore this SvcParamKey."
            SvcParamValue::Mandatory(mandatory)
                if !mandatory.0.iter().all(|key| understood(*key)) =>
            {
                return None;
            }
            SvcParamValue::Alpn(ids) => {
                alpn = ids.0.iter().take(MAX_ALPN_IDS).cloned().collect();
            }
            SvcParamValue::Port(value) => port = Some(*value),
            _ => {}
        }
    }
    // §2.5.2: "For ServiceMode SVCB RRs, if TargetName has the value ".", then the owner
    // name of this record MUST be used as the effective TargetName."
    // DEVIATION: for a record at a port-prefixed name (`_8443._https.example.com`),
    // whose owner holds no addresses, `.` is the origin's host.
    let target = match svcb.target_name.is_root() {
        true => owner.map(str::to_owned),
        false => Some(target_text(&svcb.target_name)),
    };
    Some(
        HttpsRecord::new(svcb.svc_priority, target, alpn, port)
            .with_ttl(Duration::from_secs(u64::from(ttl))),
    )
}

/// The ServiceMode HTTPS records of `host`:`port`, AliasMode records followed for at
/// most [`MAX_ALIAS_HOPS`] names, sorted by priority, at most [`MAX_HTTPS_RECORDS`].
async fn https_records(
    resolver: &TokioResolver,
    host: &str,
    port: u16,
) -> Result<Vec<HttpsRecord>, NetError> {
    let mut name = https_query_name(host, port);
    // The effective TargetName of `.`: the origin's host at first, the alias target after.
    let mut owner: Option<String> = None;
    for _ in 0..=MAX_ALIAS_HOPS {
        let lookup = match resolver.lookup(name.as_str(), RecordType::HTTPS).await {
            Ok(lookup) => lookup,
            // No record: nothing to learn.
            Err(NetError::Dns(HickoryDnsError::NoRecordsFound(_))) => return Ok(Vec::new()),
            Err(error) => return Err(error),
        };
        let mut alias = None;
        let mut records = Vec::new();
        for record in lookup.answers() {
            let RData::HTTPS(https) = &record.data else {
                continue;
            };
            // §2.4.2: "If an RRSet contains a record in AliasMode, the recipient MUST
            // ignore any ServiceMode records in the set."
            if https.0.svc_priority == 0 {
                alias.get_or_insert_with(|| https.0.target_name.clone());
                continue;
            }
            if let Some(record) = service_record(&https.0, owner.as_deref(), record.ttl) {
                records.push(record);
            }
        }
        match alias {
            // §2.4.2: an AliasMode record whose TargetName is "." means the service is
            // not available or does not exist.
            Some(target) if target.is_root() => return Ok(Vec::new()),
            Some(target) => {
                let target = target_text(&target);
                owner = Some(target.clone());
                name = format!("{target}.");
            }
            None => {
                records.sort_by_key(|record| record.priority);
                records.truncate(MAX_HTTPS_RECORDS);
                return Ok(records);
            }
        }
    }
    Ok(Vec::new())
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

    /// The origin's HTTPS records; meanwhile, its addresses are looked up too, into
    /// hickory's cache, so that a connection over TCP does not wait for them after.
    fn resolve_https(&self, host: &str, port: u16) -> Option<HttpsRecordsFuture> {
        if !self.https_records {
            return None;
        }
        let resolver = Arc::clone(&self.resolver);
        let host = host.to_owned();
        Some(Box::pin(async move {
            let addresses = Arc::clone(&resolver);
            let name = host.clone();
            tokio::spawn(async move {
                let _ = addresses.lookup_ip(name.as_str()).await;
            });
            https_records(&resolver, &host, port)
                .await
                .map_err(|error| HickoryError { error }.into())
        }))
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
    ///
    /// ```
    /// use whatwg_fetch::net::{HickoryError, HickoryResolver, Resolve};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// // Asks the system's name servers: not run here, where there may be no network.
    /// let resolver = HickoryResolver::from_system_conf()?;
    /// if let Err(error) = resolver.resolve("no-such-host.invalid").await {
    ///     if let Some(hickory) = error.downcast_ref::<HickoryError>() {
    ///         // hickory's own error, for what this type does not say.
    ///         eprintln!("{}", hickory.net_error());
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn net_error(&self) -> &NetError {
        &self.error
    }

    /// Whether the name server answered that the name does not exist (NXDOMAIN, RFC 1035
    /// §4.1.1's RCODE 3), rather than that it has no address, or not answering at all.
    ///
    /// ```
    /// use whatwg_fetch::net::{HickoryError, HickoryResolver, Resolve};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// // Asks the system's name servers: not run here, where there may be no network.
    /// let resolver = HickoryResolver::from_system_conf()?;
    /// if let Err(error) = resolver.resolve("no-such-host.invalid").await {
    ///     if let Some(hickory) = error.downcast_ref::<HickoryError>() {
    ///         // `.invalid` names never exist (RFC 6761): NXDOMAIN.
    ///         assert!(hickory.is_nx_domain());
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
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
    ///
    /// ```
    /// use whatwg_fetch::net::{HickoryError, HickoryResolver, Resolve};
    ///
    /// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
    /// // Asks the system's name servers: not run here, where there may be no network.
    /// let resolver = HickoryResolver::from_system_conf()?;
    /// if let Err(error) = resolver.resolve("no-such-host.invalid").await {
    ///     if let Some(hickory) = error.downcast_ref::<HickoryError>() {
    ///         // A network without DNS gives a timeout instead.
    ///         if hickory.is_timeout() { eprintln!("no name server answered"); }
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
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
    use hickory_resolver::proto::rr::rdata::svcb::{Alpn, Mandatory};

    fn svcb(priority: u16, target: &str, params: Vec<(SvcParamKey, SvcParamValue)>) -> SVCB {
        SVCB::new(priority, Name::from_ascii(target).unwrap(), params)
    }

    fn alpn(ids: &[&str]) -> (SvcParamKey, SvcParamValue) {
        let ids = ids.iter().map(|id| id.to_string()).collect();
        (SvcParamKey::Alpn, SvcParamValue::Alpn(Alpn(ids)))
    }

    #[test]
    fn the_query_name_has_a_port_prefix_but_for_443() {
        assert_eq!(https_query_name("example.com", 443), "example.com.");
        assert_eq!(https_query_name("example.com.", 443), "example.com.");
        assert_eq!(
            https_query_name("api.example.com", 8443),
            "_8443._https.api.example.com."
        );
    }

    #[test]
    fn a_service_record_gives_its_alpn_port_target_and_ttl() {
        let record = service_record(
            &svcb(
                2,
                "Svc.Example.NET.",
                vec![
                    alpn(&["h3", "h2"]),
                    (SvcParamKey::Port, SvcParamValue::Port(8443)),
                ],
            ),
            None,
            300,
        )
        .unwrap();
        assert_eq!(record.priority, 2);
        assert_eq!(record.target.as_deref(), Some("svc.example.net"));
        assert_eq!(record.alpn, ["h3", "h2"]);
        assert_eq!(record.port, Some(8443));
        assert_eq!(record.ttl, Duration::from_secs(300));

        // `.`: the origin's host at first, the alias target after an alias.
        let dot = svcb(1, ".", vec![alpn(&["h3"])]);
        assert_eq!(service_record(&dot, None, 60).unwrap().target, None);
        assert_eq!(
            service_record(&dot, Some("cdn.example.net"), 60)
                .unwrap()
                .target
                .as_deref(),
            Some("cdn.example.net")
        );
        assert_eq!(service_record(&dot, None, 60).unwrap().port, None);
    }

    #[test]
    fn alias_records_and_unknown_mandatory_keys_give_no_service_record() {
        assert!(service_record(&svcb(0, "alias.example.net.", Vec::new()), None, 60).is_none());
        let mandatory = |keys: Vec<SvcParamKey>| {
            svcb(
                1,
                ".",
                vec![
                    (
                        SvcParamKey::Mandatory,
                        SvcParamValue::Mandatory(Mandatory(keys)),
                    ),
                    alpn(&["h3"]),
                ],
            )
        };
        // RFC 9460 §8: a mandatory key this client does not understand.
        assert!(service_record(&mandatory(vec![SvcParamKey::EchConfigList]), None, 60).is_none());
        assert!(service_record(&mandatory(vec![SvcParamKey::Key(65300)]), None, 60).is_none());
        // Ones it does.
        assert!(
            service_record(
                &mandatory(vec![SvcParamKey::Alpn, SvcParamKey::Port]),
                None,
                60
            )
            .is_some()
        );
    }

    #[test]
    fn at_most_16_alpn_ids_are_kept() {
        let ids: Vec<String> = (0..100).map(|n| format!("p{n}")).collect();
        let ids: Vec<&str> = ids.iter().map(String::as_str).collect();
        let record = service_record(&svcb(1, ".", vec![alpn(&ids)]), None, 60).unwrap();
        assert_eq!(record.alpn.len(), MAX_ALPN_IDS);
    }

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
