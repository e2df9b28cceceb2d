//! HTTP proxies: which requests go through one, and how ([RFC 9110 §7.3.2]:
//! absolute-form requests for `http:` targets, [RFC 9110 §9.3.6] `CONNECT` tunnels for
//! `https:` targets).
//!
//! [RFC 9110 §7.3.2]: https://httpwg.org/specs/rfc9110.html#rfc.section.7.3.2
//! [RFC 9110 §9.3.6]: https://httpwg.org/specs/rfc9110.html#CONNECT

use std::fmt;
use std::net::IpAddr;

use http::uri::Authority;
use http::{HeaderValue, StatusCode};
use percent_encoding::percent_decode_str;

use crate::error::Error;
use crate::infra::forgiving_base64_encode;

/// An HTTP proxy, and which requests it carries.
///
/// [`Proxy::http`] carries requests to `http:` URLs (sent to the proxy in absolute-form,
/// `GET http://host/path HTTP/1.1`); [`Proxy::https`] carries requests to `https:` URLs
/// (through a `CONNECT host:443` tunnel, with TLS to the target end to end);
/// [`Proxy::all`] carries both. The proxy itself is spoken to in plain HTTP/1.1: its URL
/// must be `http:` (a URL without a scheme, `proxy.local:3128`, is taken as `http:`).
/// Credentials in the URL's userinfo are sent to the proxy as
/// `Proxy-Authorization: Basic …`, never to the target.
///
/// A transport takes several proxies ([`HyperTransportBuilder::proxy`]); the first that
/// carries a request's URL is used. Nothing is read from the environment unless asked:
/// see [`Proxy::from_env`] and [`ClientBuilder::proxy_from_env`].
///
/// ```
/// use whatwg_fetch::net::{HyperTransport, Proxy};
///
/// let proxy = Proxy::all("http://user:secret@proxy.internal:3128")?
///     .no_proxy("localhost, 127.0.0.1, .internal");
/// assert!(proxy.intercepts(&"https://example.com/".parse().unwrap()));
/// assert!(!proxy.intercepts(&"http://db.internal/".parse().unwrap()));
///
/// let transport = HyperTransport::builder().proxy(proxy).build()?;
/// // Not an http: proxy URL: a TypeError.
/// assert!(Proxy::http("socks5://proxy.internal:1080").is_err());
/// # let _ = transport;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
///
/// [`HyperTransportBuilder::proxy`]: crate::net::HyperTransportBuilder::proxy
/// [`ClientBuilder::proxy_from_env`]: crate::ClientBuilder::proxy_from_env
#[derive(Clone)]
pub struct Proxy {
    intercept: Intercept,
    /// The proxy's host and port (80 when the URL has none).
    pub(crate) authority: Authority,
    /// `Proxy-Authorization`, from the URL's userinfo or [`Proxy::basic_auth`].
    pub(crate) authorization: Option<HeaderValue>,
    no_proxy: NoProxy,
}

/// Which target URLs a proxy carries.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Intercept {
    Http,
    Https,
    All,
}

impl fmt::Debug for Proxy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // The credentials stay out of logs.
        f.debug_struct("Proxy")
            .field("intercept", &self.intercept)
            .field("authority", &self.authority)
            .field("authorization", &self.authorization.is_some())
            .field("no_proxy", &self.no_proxy)
            .finish()
    }
}

impl Proxy {
    /// A proxy for requests to `http:` URLs.
    ///
    /// # Errors
    ///
    /// A [`TypeError`](crate::ErrorKind::TypeError) when `url` does not parse, has no
    /// host, or has a scheme other than `http:`.
    pub fn http(url: &str) -> Result<Proxy, Error> {
        Proxy::new(Intercept::Http, url)
    }

    /// A proxy for requests to `https:` URLs, reached by `CONNECT` tunnels.
    ///
    /// # Errors
    ///
    /// As [`Proxy::http`].
    pub fn https(url: &str) -> Result<Proxy, Error> {
        Proxy::new(Intercept::Https, url)
    }

    /// A proxy for requests to both `http:` and `https:` URLs.
    ///
    /// # Errors
    ///
    /// As [`Proxy::http`].
    pub fn all(url: &str) -> Result<Proxy, Error> {
        Proxy::new(Intercept::All, url)
    }

    fn new(intercept: Intercept, url: &str) -> Result<Proxy, Error> {
        let url = url.trim();
        let parsed = if url.contains("://") {
            url::Url::parse(url)
        } else {
            url::Url::parse(&format!("http://{url}"))
        }
        .map_err(|e| Error::type_error(format!("invalid proxy URL {url:?}: {e}")))?;
        if parsed.scheme() != "http" {
            return Err(Error::type_error(format!(
                "unsupported proxy URL scheme {:?} in {url:?}: only http: proxies are supported",
                parsed.scheme()
            )));
        }
        let host = match parsed.host() {
            Some(url::Host::Domain(domain)) if !domain.is_empty() => domain.to_owned(),
            Some(url::Host::Ipv4(ip)) => ip.to_string(),
            Some(url::Host::Ipv6(ip)) => format!("[{ip}]"),
            _ => return Err(Error::type_error(format!("proxy URL {url:?} has no host"))),
        };
        let port = parsed.port().unwrap_or(80);
        let authority = Authority::try_from(format!("{host}:{port}"))
            .map_err(|e| Error::type_error(format!("invalid proxy URL {url:?}: {e}")))?;
        let mut proxy = Proxy {
            intercept,
            authority,
            authorization: None,
            no_proxy: NoProxy::default(),
        };
        if !parsed.username().is_empty() || parsed.password().is_some() {
            let username = percent_decode_str(parsed.username()).decode_utf8_lossy();
            let password = percent_decode_str(parsed.password().unwrap_or("")).decode_utf8_lossy();
            proxy = proxy.basic_auth(&username, &password);
        }
        Ok(proxy)
    }

    /// Sends `Proxy-Authorization: Basic base64(username:password)` to the proxy,
    /// replacing credentials from the URL.
    pub fn basic_auth(mut self, username: &str, password: &str) -> Proxy {
        // Base64 (RFC 4648 §4, padded): the same encoding as forgiving-base64 encode.
        let encoded = forgiving_base64_encode(format!("{username}:{password}").as_bytes());
        // Base64 is visible ASCII, always a valid header value.
        if let Ok(mut value) = HeaderValue::try_from(format!("Basic {encoded}")) {
            value.set_sensitive(true);
            self.authorization = Some(value);
        }
        self
    }

    /// Hosts this proxy does not carry, as in curl's `NO_PROXY`: entries separated by
    /// commas (or white space). An entry is
    ///
    /// - `*`: no host at all (the proxy is never used);
    /// - a host name, `example.com` or `.example.com` (also `*.example.com`): that name
    ///   and every name under it, compared without case;
    /// - an IP address (`127.0.0.1`, `::1`, `[::1]`), or a CIDR block (`10.0.0.0/8`):
    ///   a target given by that literal address.
    ///
    /// A `:port` on an entry is ignored: the entry bypasses every port. Calling this
    /// again adds to the list.
    pub fn no_proxy(mut self, list: &str) -> Proxy {
        self.no_proxy.add(list);
        self
    }

    /// Whether this proxy carries a request to `uri` (absolute, `http:` or `https:`).
    pub fn intercepts(&self, uri: &http::Uri) -> bool {
        let https = match uri.scheme_str() {
            Some(scheme) if scheme.eq_ignore_ascii_case("https") => true,
            Some(scheme) if scheme.eq_ignore_ascii_case("http") => false,
            _ => return false,
        };
        match uri.host() {
            Some(host) => self.intercepts_host(https, host),
            None => false,
        }
    }

    /// Whether this proxy carries a request to `host` over `https` or not.
    pub(crate) fn intercepts_host(&self, https: bool, host: &str) -> bool {
        let scheme = match self.intercept {
            Intercept::Http => !https,
            Intercept::Https => https,
            Intercept::All => true,
        };
        scheme && !self.no_proxy.bypasses(host)
    }

    /// The proxies named by the process environment, as curl reads it: `http_proxy` for
    /// `http:` URLs, `https_proxy` for `https:` URLs, `all_proxy` for both, each
    /// excepting the hosts in `no_proxy`. Each name is also read in upper case
    /// (`HTTPS_PROXY`), the lowercase one winning when both are set; empty values count
    /// as unset. `HTTP_PROXY` is ignored when `REQUEST_METHOD` is set: in a CGI program
    /// it comes from the client's `Proxy:` request header ("httpoxy").
    ///
    /// The result goes to [`HyperTransportBuilder::proxy`], one by one, in order; or
    /// let [`ClientBuilder::proxy_from_env`] do it.
    ///
    /// # Errors
    ///
    /// A [`TypeError`](crate::ErrorKind::TypeError) when a variable holds a URL
    /// [`Proxy::http`] rejects.
    ///
    /// [`HyperTransportBuilder::proxy`]: crate::net::HyperTransportBuilder::proxy
    /// [`ClientBuilder::proxy_from_env`]: crate::ClientBuilder::proxy_from_env
    pub fn from_env() -> Result<Vec<Proxy>, Error> {
        // `vars_os`: `std::env::vars` panics on a value that is not Unicode.
        Proxy::from_env_vars(std::env::vars_os().filter_map(|(name, value)| {
            Some((name.into_string().ok()?, value.into_string().ok()?))
        }))
    }

    /// [`Proxy::from_env`] over the given variables instead of the process environment.
    ///
    /// ```
    /// use whatwg_fetch::net::Proxy;
    ///
    /// let proxies = Proxy::from_env_vars([
    ///     ("HTTPS_PROXY", "http://upper:3128"),
    ///     ("https_proxy", "http://lower:3128"),
    ///     ("NO_PROXY", "localhost"),
    /// ])?;
    /// assert_eq!(proxies.len(), 1);
    /// assert_eq!(proxies[0].url(), "http://lower:3128");
    /// assert!(!proxies[0].intercepts(&"https://localhost/".parse().unwrap()));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Proxy::from_env`].
    pub fn from_env_vars<I, K, V>(vars: I) -> Result<Vec<Proxy>, Error>
    where
        I: IntoIterator<Item = (K, V)>,
        K: AsRef<str>,
        V: AsRef<str>,
    {
        const NAMES: [&str; 9] = [
            "http_proxy",
            "HTTP_PROXY",
            "https_proxy",
            "HTTPS_PROXY",
            "all_proxy",
            "ALL_PROXY",
            "no_proxy",
            "NO_PROXY",
            "REQUEST_METHOD",
        ];
        let mut found: [Option<String>; NAMES.len()] = Default::default();
        for (name, value) in vars {
            if let Some(index) = NAMES.iter().position(|n| *n == name.as_ref()) {
                if let Some(slot) = found.get_mut(index) {
                    *slot = Some(value.as_ref().trim().to_owned());
                }
            }
        }
        let get = |index: usize| {
            found
                .get(index)
                .and_then(|value| value.as_deref())
                .filter(|value| !value.is_empty())
        };
        let cgi = found.get(8).is_some_and(Option::is_some);
        let http = get(0).or(if cgi { None } else { get(1) });
        let https = get(2).or(get(3));
        let all = get(4).or(get(5));
        let no_proxy = get(6).or(get(7)).unwrap_or("");
        let mut proxies = Vec::new();
        for (intercept, url) in [
            (Intercept::Http, http),
            (Intercept::Https, https),
            (Intercept::All, all),
        ] {
            if let Some(url) = url {
                proxies.push(Proxy::new(intercept, url)?.no_proxy(no_proxy));
            }
        }
        Ok(proxies)
    }

    /// The proxy's URL without credentials: `http://host:port`.
    pub fn url(&self) -> String {
        format!("http://{}", self.authority)
    }
}

/// The answer of a proxy that refused to open a `CONNECT` tunnel: the source of the
/// [`NetworkError::Connect`](crate::NetworkError::Connect) a request through it fails
/// with. `407 Proxy Authentication Required` means the proxy wants (other) credentials.
///
/// ```
/// # fn check(error: &whatwg_fetch::Error) -> Option<u16> {
/// use std::error::Error as _;
/// use whatwg_fetch::net::ProxyRefused;
///
/// let refused = error.network_error()?.source()?.downcast_ref::<ProxyRefused>()?;
/// Some(refused.status().as_u16())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct ProxyRefused {
    status: StatusCode,
    target: String,
}

impl ProxyRefused {
    pub(crate) fn new(status: StatusCode, target: String) -> ProxyRefused {
        ProxyRefused { status, target }
    }

    /// The status the proxy answered `CONNECT` with.
    pub fn status(&self) -> StatusCode {
        self.status
    }
}

impl fmt::Display for ProxyRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "proxy refused to tunnel to {}: {}",
            self.target, self.status
        )?;
        if self.status == StatusCode::PROXY_AUTHENTICATION_REQUIRED {
            f.write_str(" (the proxy requires authentication; give credentials in the proxy URL)")?;
        }
        Ok(())
    }
}

impl std::error::Error for ProxyRefused {}

/// A `no_proxy` list.
#[derive(Clone, Debug, Default)]
struct NoProxy {
    /// `*`: every host.
    all: bool,
    /// Addresses and CIDR blocks: (network, prefix length).
    ips: Vec<(IpAddr, u8)>,
    /// Lowercase host names, without a leading dot.
    domains: Vec<String>,
}

impl NoProxy {
    fn add(&mut self, list: &str) {
        for entry in list.split(|c: char| c == ',' || c.is_ascii_whitespace()) {
            let entry = entry.trim();
            if entry.is_empty() {
                continue;
            }
            if entry == "*" {
                self.all = true;
                continue;
            }
            if let Some(ip) = parse_ip_entry(entry) {
                self.ips.push(ip);
                continue;
            }
            let name = entry
                .strip_prefix("*.")
                .or_else(|| entry.strip_prefix('.'))
                .unwrap_or(entry);
            // `host:port`: the port is ignored.
            let name = match name.rsplit_once(':') {
                Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
                _ => name,
            };
            let name = name.trim_end_matches('.');
            if !name.is_empty() {
                self.domains.push(name.to_ascii_lowercase());
            }
        }
    }

    /// Whether a request to `host` (as in a URI: IPv6 in brackets) skips the proxy.
    fn bypasses(&self, host: &str) -> bool {
        if self.all {
            return true;
        }
        let bare = host
            .strip_prefix('[')
            .and_then(|h| h.strip_suffix(']'))
            .unwrap_or(host);
        if let Ok(ip) = bare.parse::<IpAddr>() {
            return self
                .ips
                .iter()
                .any(|&(network, prefix)| in_network(ip, network, prefix));
        }
        let host = host.trim_end_matches('.').as_bytes();
        self.domains.iter().any(|domain| {
            let domain = domain.as_bytes();
            if host.len() == domain.len() {
                return host.eq_ignore_ascii_case(domain);
            }
            host.len() > domain.len()
                && host
                    .get(host.len() - domain.len()..)
                    .is_some_and(|tail| tail.eq_ignore_ascii_case(domain))
                && host.get(host.len() - domain.len() - 1) == Some(&b'.')
        })
    }
}

/// An IP address (bare or in brackets, with an ignored `:port`) or a CIDR block.
fn parse_ip_entry(entry: &str) -> Option<(IpAddr, u8)> {
    if let Some((network, prefix)) = entry.split_once('/') {
        let network: IpAddr = network.parse().ok()?;
        let prefix: u8 = prefix.parse().ok()?;
        let max = if network.is_ipv4() { 32 } else { 128 };
        return (prefix <= max).then_some((network, prefix));
    }
    let full = |ip: IpAddr| (ip, if ip.is_ipv4() { 32 } else { 128 });
    if let Ok(ip) = entry.parse::<IpAddr>() {
        return Some(full(ip));
    }
    if let Some(rest) = entry.strip_prefix('[') {
        let (ip, _) = rest.split_once(']')?;
        return ip.parse().ok().map(full);
    }
    let (ip, port) = entry.rsplit_once(':')?;
    if !port.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    ip.parse::<std::net::Ipv4Addr>()
        .ok()
        .map(|ip| full(IpAddr::V4(ip)))
}

/// Whether `ip` is in `network`/`prefix`.
fn in_network(ip: IpAddr, network: IpAddr, prefix: u8) -> bool {
    match (ip, network) {
        (IpAddr::V4(ip), IpAddr::V4(network)) => {
            let mask = u32::MAX.checked_shl(32 - u32::from(prefix)).unwrap_or(0);
            u32::from(ip) & mask == u32::from(network) & mask
        }
        (IpAddr::V6(ip), IpAddr::V6(network)) => {
            let mask = u128::MAX.checked_shl(128 - u32::from(prefix)).unwrap_or(0);
            u128::from(ip) & mask == u128::from(network) & mask
        }
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn userinfo_becomes_basic_authorization() {
        let proxy = Proxy::http("http://Aladdin:open%20sesame@proxy:8080").unwrap();
        assert_eq!(proxy.authority, "proxy:8080");
        assert_eq!(
            proxy.authorization.unwrap(),
            "Basic QWxhZGRpbjpvcGVuIHNlc2FtZQ=="
        );
        let proxy = Proxy::http("http://proxy").unwrap();
        assert_eq!(proxy.authority, "proxy:80");
        assert!(proxy.authorization.is_none());
    }

    #[test]
    fn proxy_urls_must_be_http() {
        for url in [
            "https://proxy:443",
            "socks5://proxy:1080",
            "http://",
            "http://[::1",
            "",
        ] {
            let error = Proxy::all(url).unwrap_err();
            assert_eq!(error.kind(), crate::ErrorKind::TypeError, "{url}");
        }
        assert_eq!(
            Proxy::all("proxy.local:3128").unwrap().url(),
            "http://proxy.local:3128"
        );
        assert_eq!(
            Proxy::all("http://[::1]:3128").unwrap().url(),
            "http://[::1]:3128"
        );
    }

    #[test]
    fn no_proxy_matches_suffixes_addresses_and_star() {
        let mut list = NoProxy::default();
        list.add(
            "example.com, .example.org,*.example.net localhost:8080 10.0.0.0/8,::1,192.168.1.2:80",
        );
        for host in [
            "example.com",
            "EXAMPLE.com",
            "a.example.com",
            "example.org",
            "b.a.example.org",
            "x.example.net",
            "localhost",
            "10.1.2.3",
            "[::1]",
            "192.168.1.2",
            "example.com.",
        ] {
            assert!(list.bypasses(host), "{host}");
        }
        for host in [
            "notexample.com",
            "example.co",
            "com",
            "11.0.0.1",
            "[::2]",
            "192.168.1.3",
        ] {
            assert!(!list.bypasses(host), "{host}");
        }
        let mut all = NoProxy::default();
        all.add("*");
        assert!(all.bypasses("anything.test"));
    }

    #[test]
    fn intercept_follows_the_scheme() {
        let http = Proxy::http("proxy:1").unwrap();
        let https = Proxy::https("proxy:1").unwrap();
        let all = Proxy::all("proxy:1").unwrap();
        let plain: http::Uri = "http://a.test/".parse().unwrap();
        let secure: http::Uri = "https://a.test/".parse().unwrap();
        assert!(http.intercepts(&plain) && !http.intercepts(&secure));
        assert!(!https.intercepts(&plain) && https.intercepts(&secure));
        assert!(all.intercepts(&plain) && all.intercepts(&secure));
        let ftp: http::Uri = "ftp://a.test/".parse().unwrap();
        assert!(!all.intercepts(&ftp));
    }
}
