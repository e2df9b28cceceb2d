//! Proxies: which requests go through one, and how.
//!
//! - An HTTP proxy, spoken to over TCP (`http:`) or over TLS (`https:`): absolute-form
//!   requests for `http:` targets ([RFC 9112 §3.2.2]), [RFC 9110 §9.3.6] `CONNECT`
//!   tunnels for `https:` targets, and for `http:` targets of a WebSocket opening
//!   handshake ([RFC 6455 §4.1]).
//! - A SOCKS5 proxy ([RFC 1928], with [RFC 1929] username/password authentication; see
//!   `net/socks.rs`): a tunnel for every target, in which the request goes as it would
//!   to the origin.
//!
//! [RFC 9112 §3.2.2]: https://httpwg.org/specs/rfc9112.html#absolute-form
//! [RFC 9110 §9.3.6]: https://httpwg.org/specs/rfc9110.html#CONNECT
//! [RFC 6455 §4.1]: https://www.rfc-editor.org/rfc/rfc6455#section-4.1
//! [RFC 1928]: https://www.rfc-editor.org/rfc/rfc1928
//! [RFC 1929]: https://www.rfc-editor.org/rfc/rfc1929

use std::fmt;
use std::net::IpAddr;
use std::sync::Arc;

use http::header::{
    CONNECTION, CONTENT_LENGTH, HOST, PROXY_AUTHORIZATION, TE, TRANSFER_ENCODING, UPGRADE,
};
use http::uri::Authority;
use http::{HeaderMap, HeaderName, HeaderValue, StatusCode};
use percent_encoding::percent_decode_str;

use crate::error::Error;
use crate::infra::digest::{DigestChallenge, DigestCredentials, DigestSession};
use crate::infra::forgiving_base64_encode;

/// A proxy, and which requests it carries.
///
/// [`Proxy::http`] carries requests to `http:` URLs; [`Proxy::https`] carries requests to
/// `https:` URLs; [`Proxy::all`] carries both. How the proxy itself is spoken to is its
/// URL's scheme:
///
/// | Proxy URL | To the proxy | An `http:` request | An `https:` request |
/// |---|---|---|---|
/// | `http://host:port` (port 80 by default; a URL without a scheme, `proxy.local:3128`, is `http:`) | HTTP/1.1 over TCP | in absolute-form, `GET http://host/path HTTP/1.1`; a WebSocket handshake through a `CONNECT host:80` tunnel (below) | through a `CONNECT host:443` tunnel, TLS to the target inside it |
/// | `https://host:port` (port 443) | HTTP/1.1 over TLS, the proxy's certificate checked against the transport's roots | in absolute-form, inside the TLS to the proxy; a WebSocket handshake through a `CONNECT` tunnel inside it | through a `CONNECT` tunnel inside the TLS to the proxy, TLS to the target inside that |
/// | `socks5://host:port` (port 1080) | SOCKS5 ([RFC 1928]); the client resolves the target's name and sends its address | as to the origin (origin-form), through the SOCKS tunnel | TLS to the target through the SOCKS tunnel |
/// | `socks5h://host:port` (port 1080) | SOCKS5; the proxy resolves the target's name, which is sent as is | as for `socks5:` | as for `socks5:` |
///
/// A WebSocket opening handshake to a `ws:` URL (an `http:` request sent
/// [`websocket`](crate::net::SendOptions::websocket) or
/// [`http1_only`](crate::net::SendOptions::http1_only)) through an HTTP proxy goes
/// through a `CONNECT host:port` tunnel, as an `https:` request does, and inside it in
/// origin-form, as to the origin itself: [RFC 6455 §4.1] asks a WebSocket client behind
/// a proxy for a tunnel, browsers open one for `ws:` as for `wss:`, and forward proxies
/// seldom pass an `Upgrade` on an absolute-form request.
///
/// Credentials in the URL's userinfo (percent-decoded) or from [`Proxy::basic_auth`] go
/// to the proxy only, never to the target: as `Proxy-Authorization: Basic …` to an HTTP
/// proxy, as username/password authentication ([RFC 1929]) to a SOCKS5 one; other
/// headers for an HTTP proxy go with [`Proxy::headers`]. The proxy is
/// always spoken to in HTTP/1.1 (an `https:` proxy is offered only `http/1.1` by ALPN);
/// the target's TLS, inside a tunnel, negotiates HTTP/2 as a direct connection would.
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
/// // TLS to the proxy itself; port 443 unless given.
/// let secure = Proxy::https("https://proxy.example")?;
/// assert_eq!(secure.url(), "https://proxy.example:443");
///
/// // SOCKS5, the proxy resolving names, with credentials.
/// let socks = Proxy::all("socks5h://alice:pw@127.0.0.1")?;
/// assert_eq!(socks.url(), "socks5h://127.0.0.1:1080");
///
/// let transport = HyperTransport::builder().proxy(proxy).proxy(socks).build()?;
/// // A scheme no proxy speaks: a TypeError.
/// assert!(Proxy::http("socks4://proxy.internal:1080").is_err());
/// # let _ = (transport, secure);
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
///
/// [RFC 1928]: https://www.rfc-editor.org/rfc/rfc1928
/// [RFC 1929]: https://www.rfc-editor.org/rfc/rfc1929
/// [RFC 6455 §4.1]: https://www.rfc-editor.org/rfc/rfc6455#section-4.1
/// [`HyperTransportBuilder::proxy`]: crate::net::HyperTransportBuilder::proxy
/// [`ClientBuilder::proxy_from_env`]: crate::ClientBuilder::proxy_from_env
#[derive(Clone)]
pub struct Proxy {
    intercept: Intercept,
    /// How the proxy is spoken to: its URL's scheme.
    pub(crate) kind: ProxyKind,
    /// The proxy's host and port (the scheme's default port when the URL has none).
    pub(crate) authority: Authority,
    /// `Proxy-Authorization` for an HTTP proxy, from the URL's userinfo or
    /// [`Proxy::basic_auth`].
    pub(crate) authorization: Option<HeaderValue>,
    /// The same credentials for a SOCKS5 proxy's username/password authentication.
    pub(crate) credentials: Option<Arc<Credentials>>,
    /// Credentials for Digest, from [`Proxy::digest_auth`], and the proxy's last
    /// challenge; shared by the clones of this `Proxy`.
    pub(crate) digest: Option<Arc<ProxyDigest>>,
    /// Header fields of the proxy's own, from [`Proxy::headers`]: on each `CONNECT` and
    /// each request forwarded to an HTTP proxy. `None` when there are none.
    pub(crate) headers: Option<Arc<HeaderMap>>,
    no_proxy: NoProxy,
}

/// The fields [`Proxy::headers`] leaves out: the transport frames each message and
/// manages each connection itself.
const TRANSPORTS_OWN: [HeaderName; 7] = [
    HOST,
    CONTENT_LENGTH,
    TRANSFER_ENCODING,
    CONNECTION,
    UPGRADE,
    TE,
    HeaderName::from_static("keep-alive"),
];

/// How a proxy is spoken to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ProxyKind {
    /// `http:`: HTTP/1.1 over TCP.
    Http,
    /// `https:`: HTTP/1.1 over TLS to the proxy.
    Https,
    /// `socks5:`: SOCKS5; the client resolves the target's name.
    Socks5,
    /// `socks5h:`: SOCKS5; the proxy resolves the target's name.
    Socks5h,
}

impl ProxyKind {
    fn from_scheme(scheme: &str) -> Option<ProxyKind> {
        Some(match scheme {
            "http" => ProxyKind::Http,
            "https" => ProxyKind::Https,
            "socks5" => ProxyKind::Socks5,
            "socks5h" => ProxyKind::Socks5h,
            _ => return None,
        })
    }

    fn scheme(self) -> &'static str {
        match self {
            ProxyKind::Http => "http",
            ProxyKind::Https => "https",
            ProxyKind::Socks5 => "socks5",
            ProxyKind::Socks5h => "socks5h",
        }
    }

    /// The port when the URL names none: 1080 is SOCKS's (RFC 1928 §3).
    fn default_port(self) -> u16 {
        match self {
            ProxyKind::Http => 80,
            ProxyKind::Https => 443,
            ProxyKind::Socks5 | ProxyKind::Socks5h => 1080,
        }
    }

    /// Whether the proxy speaks SOCKS5 rather than HTTP.
    pub(crate) fn is_socks(self) -> bool {
        matches!(self, ProxyKind::Socks5 | ProxyKind::Socks5h)
    }
}

/// A username and password, as given (percent-decoded from a URL).
#[derive(PartialEq, Eq)]
pub(crate) struct Credentials {
    pub(crate) username: Vec<u8>,
    pub(crate) password: Vec<u8>,
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
            .field("url", &self.url())
            .field("credentials", &self.credentials.is_some())
            .field("digest", &self.digest.is_some())
            // Names only: a value may be a credential.
            .field(
                "headers",
                &self
                    .headers
                    .iter()
                    .flat_map(|headers| headers.keys())
                    .collect::<Vec<_>>(),
            )
            .field("no_proxy", &self.no_proxy)
            .finish()
    }
}

impl Proxy {
    /// A proxy for requests to `http:` URLs. `url` is the proxy's: `http:`, `https:`,
    /// `socks5:` or `socks5h:` (see [`Proxy`]).
    ///
    /// ```
    /// use whatwg_fetch::Proxy;
    ///
    /// let proxy = Proxy::http("http://proxy.internal:3128")?;
    /// assert!(proxy.intercepts(&"http://example.com/".parse()?));
    /// assert!(!proxy.intercepts(&"https://example.com/".parse()?));
    /// // A scheme no proxy here speaks is refused at once.
    /// assert!(Proxy::http("socks4://proxy.internal:1080").is_err());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`TypeError`](crate::ErrorKind::TypeError) when `url` does not parse, has no
    /// host, has another scheme, or (for SOCKS5) a username or password longer than
    /// 255 bytes.
    pub fn http(url: &str) -> Result<Proxy, Error> {
        Proxy::new(Intercept::Http, url).map_err(Error::type_error)
    }

    /// A proxy for requests to `https:` URLs: through a `CONNECT` tunnel (HTTP proxies)
    /// or a SOCKS5 one.
    ///
    /// ```
    /// use whatwg_fetch::Proxy;
    ///
    /// let proxy = Proxy::https("socks5h://127.0.0.1:1080")?;
    /// assert!(proxy.intercepts(&"https://example.com/".parse()?));
    /// assert!(!proxy.intercepts(&"http://example.com/".parse()?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Proxy::http`].
    pub fn https(url: &str) -> Result<Proxy, Error> {
        Proxy::new(Intercept::Https, url).map_err(Error::type_error)
    }

    /// A proxy for requests to both `http:` and `https:` URLs.
    ///
    /// ```
    /// use whatwg_fetch::Proxy;
    ///
    /// let proxy = Proxy::all("http://proxy.internal:3128")?;
    /// assert!(proxy.intercepts(&"http://example.com/".parse()?) && proxy.intercepts(&"https://example.com/".parse()?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    ///
    /// As [`Proxy::http`].
    pub fn all(url: &str) -> Result<Proxy, Error> {
        Proxy::new(Intercept::All, url).map_err(Error::type_error)
    }

    /// The proxy at `url`, or a message saying why not. The message never shows the
    /// URL's credentials.
    fn new(intercept: Intercept, url: &str) -> Result<Proxy, String> {
        let url = url.trim();
        let shown = without_userinfo(url);
        let parsed = if url.contains("://") {
            url::Url::parse(url)
        } else {
            url::Url::parse(&format!("http://{url}"))
        }
        .map_err(|e| format!("invalid proxy URL {shown:?}: {e}"))?;
        let kind = ProxyKind::from_scheme(parsed.scheme()).ok_or_else(|| {
            format!(
                "unsupported proxy URL scheme {:?} in {shown:?}: the supported schemes are \
                 http:, https:, socks5: and socks5h:",
                parsed.scheme()
            )
        })?;
        let host = match parsed.host() {
            // `socks5:` is not a special scheme: its host comes out opaque (neither
            // lowercased nor read as an IPv4 address), so it is parsed as an `http:` one.
            Some(url::Host::Domain(domain)) if kind.is_socks() => {
                url::Host::parse(domain).map_err(|e| format!("invalid proxy URL {shown:?}: {e}"))?
            }
            Some(host) => host.to_owned(),
            None => return Err(format!("proxy URL {shown:?} has no host")),
        };
        let host = match host {
            url::Host::Domain(domain) if !domain.is_empty() => domain,
            url::Host::Ipv4(ip) => ip.to_string(),
            url::Host::Ipv6(ip) => format!("[{ip}]"),
            url::Host::Domain(_) => return Err(format!("proxy URL {shown:?} has no host")),
        };
        let port = parsed.port().unwrap_or(kind.default_port());
        let authority = Authority::try_from(format!("{host}:{port}"))
            .map_err(|e| format!("invalid proxy URL {shown:?}: {e}"))?;
        let mut proxy = Proxy {
            intercept,
            kind,
            authority,
            authorization: None,
            credentials: None,
            digest: None,
            headers: None,
            no_proxy: NoProxy::default(),
        };
        if !parsed.username().is_empty() || parsed.password().is_some() {
            let username: Vec<u8> = percent_decode_str(parsed.username()).collect();
            let password: Vec<u8> = percent_decode_str(parsed.password().unwrap_or("")).collect();
            if kind.is_socks() && (username.len() > 255 || password.len() > 255) {
                // RFC 1929 §2: each is sent after a one-byte length.
                return Err(format!(
                    "proxy URL {shown:?}: a SOCKS5 username or password longer than 255 bytes"
                ));
            }
            proxy = proxy.with_credentials(username, password);
        }
        Ok(proxy)
    }

    /// Authenticates to the proxy with `username` and `password`, replacing credentials
    /// from the URL: `Proxy-Authorization: Basic base64(username:password)` to an HTTP
    /// proxy, username/password authentication ([RFC 1929]) to a SOCKS5 proxy, where
    /// each must fit in 255 bytes or connecting fails.
    ///
    /// ```
    /// use whatwg_fetch::{Client, Proxy};
    ///
    /// let proxy = Proxy::all("http://proxy.internal:3128")?.basic_auth("build-agent", "s3cret");
    /// // The credentials never show in the proxy's URL (nor in errors and logs).
    /// assert_eq!(proxy.url(), "http://proxy.internal:3128");
    /// let client = Client::builder().proxy(proxy).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    ///
    /// [RFC 1929]: https://www.rfc-editor.org/rfc/rfc1929
    pub fn basic_auth(self, username: &str, password: &str) -> Proxy {
        self.with_credentials(username.as_bytes().to_vec(), password.as_bytes().to_vec())
    }

    /// Authenticates to an HTTP proxy with HTTP Digest ([RFC 7616]), replacing credentials
    /// from the URL or [`basic_auth`](Self::basic_auth): requests go without
    /// `Proxy-Authorization` until the proxy answers `407 Proxy Authentication Required`
    /// with a `Proxy-Authenticate: Digest` challenge. A request forwarded to the proxy
    /// (an `http:` URL, in absolute-form) is then sent again, once, with the answer (once
    /// more for `stale=true`), and the requests after it answer the proxy's last challenge
    /// before being asked, with the next `nc`; a `407` after that is the response, which
    /// the fetch algorithm makes a network error. The strongest challenge is answered
    /// (SHA-512-256, SHA-256, MD5, each also `-sess`; `qop=auth`, or none); a proxy that
    /// offers only `Basic` gets nothing. A body that cannot be sent twice (a stream) is
    /// not sent again.
    ///
    /// A `CONNECT` that opens a tunnel (for an `https:` URL, or a WebSocket handshake) is
    /// answered the same way, on a new connection to the proxy, the request-target being
    /// the tunnel's `host:port`; a `407` after that fails the request with a
    /// [`ProxyRefused`]. A SOCKS5 proxy gets no credentials from this.
    ///
    /// ```
    /// use whatwg_fetch::Proxy;
    ///
    /// let proxy = Proxy::http("http://user:ignored@proxy.internal:3128")?
    ///     .digest_auth("alice", "secret");
    /// // The credentials stay out of logs.
    /// assert!(!format!("{proxy:?}").contains("secret"));
    /// let client = whatwg_fetch::Client::builder().proxy(proxy).build()?;
    /// # let _ = client;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// [RFC 7616]: https://www.rfc-editor.org/rfc/rfc7616
    pub fn digest_auth(mut self, username: &str, password: &str) -> Proxy {
        self.authorization = None;
        self.credentials = None;
        self.digest = Some(Arc::new(ProxyDigest {
            credentials: DigestCredentials {
                username: username.to_owned(),
                password: password.to_owned(),
            },
            session: std::sync::Mutex::default(),
        }));
        self
    }

    fn with_credentials(mut self, username: Vec<u8>, password: Vec<u8>) -> Proxy {
        self.digest = None;
        // Base64 (RFC 4648 §4, padded): the same encoding as forgiving-base64 encode.
        let mut pair = Vec::with_capacity(username.len() + 1 + password.len());
        pair.extend_from_slice(&username);
        pair.push(b':');
        pair.extend_from_slice(&password);
        let encoded = forgiving_base64_encode(&pair);
        // Base64 is visible ASCII, always a valid header value.
        self.authorization =
            HeaderValue::try_from(format!("Basic {encoded}"))
                .ok()
                .map(|mut value| {
                    value.set_sensitive(true);
                    value
                });
        self.credentials = Some(Arc::new(Credentials { username, password }));
        self
    }
    /// Header fields for the proxy itself, sent on every request it handles, as reqwest's
    /// `Proxy::headers` and curl's `CURLOPT_PROXYHEADER` do: on the `CONNECT` that opens a
    /// tunnel (for an `https:` target, or a WebSocket handshake's `http:` one), and on
    /// each request forwarded to it in absolute-form (any other `http:` target). For a `Proxy-Authorization` of a scheme other
    /// than Basic, say, or a tag the proxy routes or bills by. A SOCKS5 proxy speaks no
    /// HTTP and gets none of them; the target never sees them through a tunnel.
    ///
    /// When they collide with what else is sent:
    ///
    /// - on `CONNECT`, which is the proxy's alone, they win: a `User-Agent` here replaces
    ///   the client's, a `Proxy-Authorization` the URL's or [`basic_auth`](Self::basic_auth)
    ///   credentials;
    /// - on a forwarded request, which is the caller's, the proxy's win for the `Proxy-*`
    ///   fields (`Proxy-Authorization` included), whose values replace the request's own;
    ///   for any other name the request has, the request's values are sent and the
    ///   proxy's are not.
    ///
    /// The fields the transport frames messages and manages connections with (`Host`,
    /// `Content-Length`, `Transfer-Encoding`, `Connection`, `Upgrade`, `TE`, `Keep-Alive`)
    /// are left out. Values of `Proxy-Authorization` are marked sensitive. Called again,
    /// the headers are added to those given before, a name given again replacing the
    /// values it had.
    ///
    /// ```
    /// use http::{HeaderMap, HeaderValue};
    /// use whatwg_fetch::net::Proxy;
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert("proxy-authorization", HeaderValue::from_static("Bearer c2VjcmV0"));
    /// headers.insert("x-proxy-region", HeaderValue::from_static("eu-west"));
    /// let proxy = Proxy::all("http://proxy.internal:3128")?.headers(headers);
    /// // The value stays out of logs; the name does not.
    /// let shown = format!("{proxy:?}");
    /// assert!(shown.contains("x-proxy-region") && !shown.contains("c2VjcmV0"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn headers(mut self, headers: HeaderMap) -> Proxy {
        let mut own = self
            .headers
            .take()
            .map(Arc::unwrap_or_clone)
            .unwrap_or_default();
        let kept = |name: &HeaderName| !TRANSPORTS_OWN.contains(name);
        for name in headers.keys().filter(|name| kept(name)) {
            own.remove(name);
        }
        for (name, value) in headers.iter().filter(|(name, _)| kept(name)) {
            own.append(name.clone(), value.clone());
        }
        if let http::header::Entry::Occupied(mut entry) = own.entry(PROXY_AUTHORIZATION) {
            for value in entry.iter_mut() {
                value.set_sensitive(true);
            }
        }
        self.headers = (!own.is_empty()).then(|| Arc::new(own));
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
    ///
    /// ```
    /// use whatwg_fetch::Proxy;
    ///
    /// let proxy = Proxy::all("http://proxy.internal:3128")?.no_proxy("localhost, .corp.example, 10.0.0.0/8");
    /// assert!(proxy.intercepts(&"https://example.com/".parse()?));
    /// assert!(!proxy.intercepts(&"https://wiki.corp.example/".parse()?));
    /// assert!(!proxy.intercepts(&"http://10.1.2.3:8080/".parse()?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn no_proxy(mut self, list: &str) -> Proxy {
        self.no_proxy.add(list);
        self
    }

    /// Whether this proxy carries a request to `uri` (absolute, `http:` or `https:`).
    ///
    /// ```
    /// use whatwg_fetch::Proxy;
    ///
    /// let proxy = Proxy::https("http://proxy.internal:3128")?.no_proxy("localhost");
    /// assert!(proxy.intercepts(&"https://api.example/".parse()?));
    /// assert!(!proxy.intercepts(&"https://localhost:8443/".parse()?));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
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

    /// Whether `other` is the same proxy, reached the same way: the same URL, the same
    /// credentials and headers, carrying the same URLs. Connections made through one
    /// may serve requests routed through the other.
    pub(crate) fn same_route(&self, other: &Proxy) -> bool {
        self.kind == other.kind
            && self.intercept == other.intercept
            && self.authority == other.authority
            && self.authorization == other.authorization
            && self.credentials == other.credentials
            && self.headers == other.headers
            && self.no_proxy == other.no_proxy
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
    /// A value is a proxy URL as [`Proxy`] takes it: `http://`, `https://`, `socks5://`
    /// or `socks5h://` (`ALL_PROXY=socks5h://127.0.0.1:1080`), or `host:port` for an
    /// HTTP proxy.
    ///
    /// The result goes to [`HyperTransportBuilder::proxy`], one by one, in order; or
    /// let [`ClientBuilder::proxy_from_env`] do it.
    ///
    /// ```
    /// use whatwg_fetch::Proxy;
    ///
    /// // With `https_proxy=http://proxy.internal:3128` in the environment, one proxy for `https:`.
    /// for proxy in Proxy::from_env()? {
    ///     println!("through {}", proxy.url());
    /// }
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// A [`TypeError`](crate::ErrorKind::TypeError) naming the variable when it holds a
    /// URL [`Proxy::http`] rejects, such as one with a scheme no proxy here speaks
    /// (`socks4://`).
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
    ///     ("https_proxy", "https://lower:8443"),
    ///     ("ALL_PROXY", "socks5h://127.0.0.1:1080"),
    ///     ("NO_PROXY", "localhost"),
    /// ])?;
    /// assert_eq!(proxies.len(), 2);
    /// assert_eq!(proxies[0].url(), "https://lower:8443");
    /// assert_eq!(proxies[1].url(), "socks5h://127.0.0.1:1080");
    /// assert!(!proxies[0].intercepts(&"https://localhost/".parse().unwrap()));
    ///
    /// let error = Proxy::from_env_vars([("ALL_PROXY", "socks4://127.0.0.1:1080")]).unwrap_err();
    /// assert!(error.message().contains("ALL_PROXY"));
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
        // The variable's name and its value, if set and not empty.
        let get = |index: usize| {
            let value = found
                .get(index)
                .and_then(|value| value.as_deref())
                .filter(|value| !value.is_empty())?;
            Some((NAMES.get(index).copied().unwrap_or_default(), value))
        };
        let cgi = found.get(8).is_some_and(Option::is_some);
        let http = get(0).or(if cgi { None } else { get(1) });
        let https = get(2).or(get(3));
        let all = get(4).or(get(5));
        let no_proxy = get(6).or(get(7)).map_or("", |(_, list)| list);
        let mut proxies = Vec::new();
        for (intercept, var) in [
            (Intercept::Http, http),
            (Intercept::Https, https),
            (Intercept::All, all),
        ] {
            if let Some((name, url)) = var {
                let proxy = Proxy::new(intercept, url)
                    .map_err(|message| Error::type_error(format!("{name}: {message}")))?;
                proxies.push(proxy.no_proxy(no_proxy));
            }
        }
        Ok(proxies)
    }

    /// The proxy's URL without credentials, with its port: `http://host:port`,
    /// `https://…`, `socks5://…` or `socks5h://…`.
    ///
    /// ```
    /// use whatwg_fetch::Proxy;
    ///
    /// assert_eq!(Proxy::all("http://user:pass@proxy.internal")?.url(), "http://proxy.internal:80");
    /// assert_eq!(Proxy::all("socks5h://127.0.0.1:1080")?.url(), "socks5h://127.0.0.1:1080");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn url(&self) -> String {
        format!("{}://{}", self.kind.scheme(), self.authority)
    }
}

/// `url` with its userinfo, if any, left out: for messages.
fn without_userinfo(url: &str) -> String {
    let (scheme, rest) = match url.split_once("://") {
        Some((scheme, rest)) => (Some(scheme), rest),
        None => (None, url),
    };
    let authority_end = rest.find(['/', '?', '#']).unwrap_or(rest.len());
    let (authority, path) = rest.split_at(authority_end);
    let host = match authority.rsplit_once('@') {
        Some((_, host)) => host,
        None => return url.to_owned(),
    };
    match scheme {
        Some(scheme) => format!("{scheme}://…@{host}{path}"),
        None => format!("…@{host}{path}"),
    }
}

/// An HTTP proxy's credentials for Digest ([`Proxy::digest_auth`]) and the session on its
/// last challenge.
pub(crate) struct ProxyDigest {
    credentials: DigestCredentials,
    session: std::sync::Mutex<Option<DigestSession>>,
}

impl ProxyDigest {
    /// The `Proxy-Authorization` value for a request with `method` to `target` (its
    /// absolute-form request-target), answering the proxy's last challenge with the next
    /// `nc`; `None` before the first challenge.
    pub(crate) fn authorization(&self, method: &str, target: &str) -> Option<HeaderValue> {
        let mut session = self
            .session
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let value = session
            .as_mut()?
            .authorize(&self.credentials, method, target, None)?;
        // As bytes: a realm past ASCII is echoed as the server sent it (obs-text), which
        // `HeaderValue`'s string conversions refuse.
        let mut value = HeaderValue::from_maybe_shared(bytes::Bytes::from(value)).ok()?;
        value.set_sensitive(true);
        Some(value)
    }

    /// Keeps `challenge`, from the proxy's `407`, in place of the last one.
    pub(crate) fn set_challenge(&self, challenge: DigestChallenge) {
        *self
            .session
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) =
            Some(DigestSession::new(challenge));
    }
}

/// The `Proxy-Authorization` a request forwarded to a proxy with credentials for Digest
/// carries in its extensions: written only when the request goes to the proxy in
/// absolute-form, never into a tunnel.
#[derive(Clone, Debug)]
pub(crate) struct ProxyDigestAuthorization(pub(crate) HeaderValue);

/// The answer of an HTTP proxy that refused to open a `CONNECT` tunnel: the source of
/// the [`NetworkError::Connect`](crate::NetworkError::Connect) a request through it fails
/// with. `407 Proxy Authentication Required` means the proxy wants (other) credentials.
/// A SOCKS5 proxy's refusal is a [`SocksRefused`](crate::net::SocksRefused).
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
    /// The proxy's URL, without credentials.
    proxy: String,
    target: String,
    /// The strongest `Digest` challenge of a `407`, for a proxy with credentials for it.
    pub(crate) digest_challenge: Option<Box<DigestChallenge>>,
    /// Whether the `CONNECT` carried a `Proxy-Authorization`: a `407` then turned down
    /// credentials, rather than asked for some.
    pub(crate) offered_credentials: bool,
}

impl ProxyRefused {
    pub(crate) fn new(status: StatusCode, proxy: String, target: String) -> ProxyRefused {
        ProxyRefused {
            status,
            proxy,
            target,
            digest_challenge: None,
            offered_credentials: false,
        }
    }

    /// The status the proxy answered `CONNECT` with.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # tokio::spawn(async move {
    /// #     // A proxy that refuses every CONNECT.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n").await;
    /// # });
    /// use whatwg_fetch::net::{Proxy, ProxyRefused};
    /// use whatwg_fetch::{Client, NetworkError};
    ///
    /// let client = Client::builder().proxy(Proxy::https(&format!("http://{addr}"))?).build()?;
    /// let error = client.get("https://example.com/").send().await.unwrap_err();
    /// let Some(NetworkError::Connect(cause)) = error.network_error() else {
    ///     panic!("not a connect error: {error:?}");
    /// };
    /// let refused = cause.downcast_ref::<ProxyRefused>().expect("the proxy's refusal");
    /// assert_eq!(refused.status(), whatwg_fetch::StatusCode::FORBIDDEN);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The proxy's URL, without credentials (as [`Proxy::url`]).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # tokio::spawn(async move {
    /// #     // A proxy that refuses every CONNECT.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n").await;
    /// # });
    /// use whatwg_fetch::net::{Proxy, ProxyRefused};
    /// use whatwg_fetch::{Client, NetworkError};
    ///
    /// let client = Client::builder().proxy(Proxy::https(&format!("http://{addr}"))?).build()?;
    /// let error = client.get("https://example.com/").send().await.unwrap_err();
    /// let Some(NetworkError::Connect(cause)) = error.network_error() else {
    ///     panic!("not a connect error: {error:?}");
    /// };
    /// let refused = cause.downcast_ref::<ProxyRefused>().expect("the proxy's refusal");
    /// assert_eq!(refused.proxy(), format!("http://{addr}"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn proxy(&self) -> &str {
        &self.proxy
    }
}

impl fmt::Display for ProxyRefused {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `proxy http://127.0.0.1:3128 refused CONNECT example.com:443: 407 Proxy
        // Authentication Required`.
        write!(
            f,
            "proxy {} refused CONNECT {}: {}",
            self.proxy, self.target, self.status
        )?;
        if self.status == StatusCode::PROXY_AUTHENTICATION_REQUIRED {
            // Credentials sent and turned down are not fixed by giving credentials.
            f.write_str(match self.offered_credentials {
                true => " (the proxy rejected the credentials sent)",
                false => {
                    " (the proxy requires authentication; give credentials in the proxy URL, \
                     or with Proxy::basic_auth or Proxy::digest_auth)"
                }
            })?;
        }
        Ok(())
    }
}

impl std::error::Error for ProxyRefused {}

/// A step of reaching a proxy that failed (resolving its name, connecting to it, the TLS
/// handshake with it): says which proxy, and keeps the cause as its source.
#[derive(Debug)]
pub(crate) struct ProxyFailed {
    /// What failed, naming the proxy: `connect to proxy 127.0.0.1:3128 failed`.
    what: String,
    source: crate::BoxError,
}

impl ProxyFailed {
    pub(crate) fn new(what: String, source: crate::BoxError) -> ProxyFailed {
        ProxyFailed { what, source }
    }
}

impl fmt::Display for ProxyFailed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.what)
    }
}

impl std::error::Error for ProxyFailed {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        Some(&*self.source)
    }
}

/// A `no_proxy` list.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
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
    fn proxy_urls_name_a_scheme_spoken_here() {
        for url in [
            "socks4://proxy:1080",
            "ftp://proxy:21",
            "http://",
            "socks5://",
            "http://[::1",
            "",
        ] {
            let error = Proxy::all(url).unwrap_err();
            assert_eq!(error.kind(), crate::ErrorKind::TypeError, "{url}");
        }
        for (url, expected, kind) in [
            (
                "proxy.local:3128",
                "http://proxy.local:3128",
                ProxyKind::Http,
            ),
            ("http://[::1]:3128", "http://[::1]:3128", ProxyKind::Http),
            (
                "HTTPS://Proxy.Local",
                "https://proxy.local:443",
                ProxyKind::Https,
            ),
            ("https://proxy:8443", "https://proxy:8443", ProxyKind::Https),
            (
                "socks5://Proxy.Local",
                "socks5://proxy.local:1080",
                ProxyKind::Socks5,
            ),
            (
                "socks5://127.1:80",
                "socks5://127.0.0.1:80",
                ProxyKind::Socks5,
            ),
            (
                "socks5h://[::1]:9050",
                "socks5h://[::1]:9050",
                ProxyKind::Socks5h,
            ),
        ] {
            let proxy = Proxy::all(url).unwrap();
            assert_eq!(proxy.url(), expected, "{url}");
            assert_eq!(proxy.kind, kind, "{url}");
        }
    }

    #[test]
    fn socks_credentials_are_percent_decoded_bytes_of_at_most_255() {
        let proxy = Proxy::all("socks5h://al%69ce:p%40ss%FF@proxy").unwrap();
        let credentials = proxy.credentials.unwrap();
        assert_eq!(credentials.username, b"alice");
        assert_eq!(credentials.password, b"p@ss\xff");
        let long = "u".repeat(256);
        let error = Proxy::all(&format!("socks5://{long}:pw@proxy")).unwrap_err();
        assert!(error.message().contains("255"), "{}", error.message());
        // An HTTP proxy's Basic credentials have no such limit.
        assert!(Proxy::all(&format!("http://{long}:pw@proxy")).is_ok());
    }

    #[test]
    fn messages_leave_the_credentials_out() {
        let error = Proxy::all("socks4://user:hunter2@proxy:1080").unwrap_err();
        assert!(!error.message().contains("hunter2"), "{}", error.message());
        assert!(error.message().contains("socks4"), "{}", error.message());
        assert_eq!(without_userinfo("http://u:p@h:1/a@b"), "http://…@h:1/a@b");
        assert_eq!(without_userinfo("u:p@h:1"), "…@h:1");
        assert_eq!(without_userinfo("http://h:1/a@b"), "http://h:1/a@b");
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
    fn a_proxys_own_headers_leave_out_the_transports_and_hide_credentials() {
        let mut headers = HeaderMap::new();
        for name in [
            "host",
            "content-length",
            "transfer-encoding",
            "connection",
            "upgrade",
            "te",
            "keep-alive",
        ] {
            headers.insert(HeaderName::from_static(name), HeaderValue::from_static("1"));
        }
        headers.insert("x-tag", HeaderValue::from_static("one"));
        headers.append("x-route", HeaderValue::from_static("a"));
        headers.insert(
            PROXY_AUTHORIZATION,
            HeaderValue::from_static("Negotiate YII="),
        );
        let proxy = Proxy::all("http://proxy:3128").unwrap().headers(headers);
        let own = proxy.headers.as_deref().unwrap();
        let names: Vec<&str> = own.keys().map(HeaderName::as_str).collect();
        assert_eq!(names, ["x-tag", "x-route", "proxy-authorization"]);
        assert!(own[PROXY_AUTHORIZATION].is_sensitive());
        assert!(!format!("{proxy:?}").contains("YII="));

        // Again: a name given again replaces its values, the others stay.
        let mut more = HeaderMap::new();
        more.append("x-route", HeaderValue::from_static("b"));
        more.append("x-route", HeaderValue::from_static("c"));
        let proxy = proxy.headers(more);
        let own = proxy.headers.as_deref().unwrap();
        assert_eq!(own["x-tag"], "one");
        let routes: Vec<&HeaderValue> = own.get_all("x-route").iter().collect();
        assert_eq!(routes, ["b", "c"]);

        // Nothing left: none at all.
        let mut framing = HeaderMap::new();
        framing.insert("content-length", HeaderValue::from_static("5"));
        let proxy = Proxy::all("http://proxy:3128").unwrap().headers(framing);
        assert!(proxy.headers.is_none());
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
