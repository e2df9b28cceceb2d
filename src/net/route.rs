//! A request's own route: the proxy it goes through (or none) and the addresses its
//! host names resolve to, over what the transport's own settings say, as curl's
//! `--proxy` and `--resolve` set them for one transfer.
//!
//! A [`Route`] travels in the `http::Request`'s extensions. The transport reads it there
//! and keys the pool by it, so that requests whose routes differ never share a
//! connection: the pool's key carries the route (`None` for a request without one, which
//! then costs nothing to hash or compare), compared by value.

use std::fmt;
use std::hash::{Hash, Hasher};
use std::net::SocketAddr;
use std::sync::Arc;

use super::proxy::Proxy;

/// One request's route to its origin, in place of the transport's: the proxy it goes
/// through, or none, and the addresses some host names resolve to.
///
/// Put it in an `http::Request`'s extensions for [`HyperTransport`](super::HyperTransport)
/// to find (`RequestBuilder::proxy`, `no_proxy`, `resolve` and `resolve_to_addrs` do
/// this); the default route changes nothing.
///
/// - **Proxy.** [`Route::proxy`] sends the request through that proxy, as if the
///   transport had it alone: the proxy's own rules ([`Proxy::http`], [`Proxy::https`],
///   [`Proxy::no_proxy`]) still say which URLs it carries, and a URL it does not carry
///   goes direct. [`Route::no_proxy`] sends the request direct. Either replaces the
///   transport's proxies for this request; credentials, [`Proxy::headers`], `CONNECT`
///   tunnels and SOCKS5 work as for a transport's proxy.
/// - **Resolve.** [`Route::resolve`] and [`Route::resolve_to_addrs`] give the addresses of
///   a host name, before the transport's own overrides and resolver; port 0 means the
///   URL's port. They apply to every name this request's connections look up (the
///   origin's host, a proxy's host, a `socks5:` target) and to no other name.
/// - **Connections.** Requests whose routes differ never share a connection: the pool
///   keeps the connections of each route apart, and reaps and drops them as any other
///   (idle timeout, idle cap, an origin's entry gone with its last connection). Two
///   requests with equal routes (the same proxy URL, credentials and headers, the same
///   overrides) share them. A request with a route neither shares another origin's
///   HTTP/2 connection (coalescing) nor lends its own.
/// - **HTTP/3.** A request with a route never goes over HTTP/3: not through a proxy,
///   which would need CONNECT-UDP, nor under a resolve override, which would otherwise
///   have to follow the origin's `Alt-Svc` to another host. A response on such a route
///   records no `Alt-Svc` for the origin.
/// - **Redirects.** The route stays with the request through redirects: a redirect to
///   another host goes through the same proxy (as curl's `--proxy` does), and an
///   override applies only to the host it names.
/// - **HTTP cache.** A `Client`'s request with a route neither reads nor fills the
///   client's HTTP cache: what it fetched on its route must not answer requests on
///   other routes, nor theirs it.
/// - **Unix sockets.** A transport sending every connection to a Unix domain socket
///   ([`unix_socket`](super::HyperTransportBuilder::unix_socket)) still does so: the
///   route's proxy and overrides are not used.
///
/// ```
/// use std::net::SocketAddr;
/// use whatwg_fetch::net::{Proxy, Route};
///
/// let addr: SocketAddr = "127.0.0.1:8080".parse().unwrap();
/// let route = Route::new()
///     .proxy(Proxy::all("http://proxy.internal:3128")?)
///     .resolve("api.example", addr);
/// let mut request = http::Request::new(());
/// request.extensions_mut().insert(route.clone());
/// assert_eq!(request.extensions().get::<Route>(), Some(&route));
/// assert_ne!(route, Route::new().no_proxy());
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Clone, Default)]
pub struct Route(Arc<RouteParts>);

/// What a [`Route`] holds.
#[derive(Clone, Default)]
struct RouteParts {
    proxy: RouteProxy,
    /// Host names (lowercase) and their addresses, in the order given; a name given
    /// again replaces its addresses.
    overrides: Vec<(String, Vec<SocketAddr>)>,
}

/// Which proxy a route's requests go through.
#[derive(Clone, Default)]
enum RouteProxy {
    /// The transport's proxies, as without a route.
    #[default]
    Transport,
    /// None: direct.
    Direct,
    /// This one, when it carries the request's URL; direct otherwise.
    Via(Proxy),
}

impl Route {
    /// A route that changes nothing: the transport's proxies, the transport's resolution.
    ///
    /// ```
    /// use whatwg_fetch::net::Route;
    ///
    /// let route = Route::new();
    /// assert!(!route.has_proxy() && !route.is_direct());
    /// ```
    pub fn new() -> Route {
        Route::default()
    }

    /// Sends the request through `proxy`, whatever the transport's proxies are: as if
    /// the transport had `proxy` alone, so a URL that `proxy` does not carry
    /// ([`Proxy::http`] for an `https:` URL, a host in its
    /// [`no_proxy`](Proxy::no_proxy) list) goes direct. Replaces an earlier
    /// [`proxy`](Route::proxy) or [`no_proxy`](Route::no_proxy).
    ///
    /// ```
    /// use whatwg_fetch::net::{Proxy, Route};
    ///
    /// let route = Route::new().proxy(Proxy::all("socks5h://127.0.0.1:1080")?);
    /// assert!(route.has_proxy());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn proxy(mut self, proxy: Proxy) -> Route {
        Arc::make_mut(&mut self.0).proxy = RouteProxy::Via(proxy);
        self
    }

    /// Sends the request to its origin directly, whatever the transport's proxies are.
    /// Replaces an earlier [`proxy`](Route::proxy).
    ///
    /// ```
    /// use whatwg_fetch::net::Route;
    ///
    /// assert!(Route::new().no_proxy().is_direct());
    /// ```
    pub fn no_proxy(mut self) -> Route {
        Arc::make_mut(&mut self.0).proxy = RouteProxy::Direct;
        self
    }

    /// Sends the request's connections to `host` (a host name, without case) to
    /// `addr`, rather than to what the transport would resolve it to; port 0 in `addr`
    /// means the URL's port. Replaces the addresses given earlier for `host`.
    ///
    /// ```
    /// use whatwg_fetch::net::Route;
    ///
    /// let route = Route::new().resolve("Example.test", "127.0.0.1:0".parse().unwrap());
    /// assert_eq!(route.addresses("example.test"), Some(&["127.0.0.1:0".parse().unwrap()][..]));
    /// ```
    pub fn resolve(self, host: &str, addr: SocketAddr) -> Route {
        self.resolve_to_addrs(host, &[addr])
    }

    /// Sends the request's connections to `host` (a host name, without case) to
    /// `addrs`, raced as resolved addresses are (Happy Eyeballs), rather than to what the
    /// transport would resolve it to; port 0 means the URL's port. Replaces the
    /// addresses given earlier for `host`; an empty `addrs` makes connecting to `host`
    /// fail with [`NetworkError::Dns`](crate::NetworkError::Dns).
    ///
    /// ```
    /// use whatwg_fetch::net::Route;
    ///
    /// let addrs = ["[::1]:8443".parse().unwrap(), "127.0.0.1:8443".parse().unwrap()];
    /// let route = Route::new().resolve_to_addrs("api.test", &addrs);
    /// assert_eq!(route.addresses("API.test"), Some(&addrs[..]));
    /// assert_eq!(route.addresses("other.test"), None);
    /// ```
    pub fn resolve_to_addrs(mut self, host: &str, addrs: &[SocketAddr]) -> Route {
        let name = host.trim_end_matches('.').to_ascii_lowercase();
        let overrides = &mut Arc::make_mut(&mut self.0).overrides;
        match overrides.iter_mut().find(|(known, _)| *known == name) {
            Some((_, known)) => *known = addrs.to_vec(),
            None => overrides.push((name, addrs.to_vec())),
        }
        self
    }

    /// Whether this route names a proxy of its own ([`Route::proxy`]).
    ///
    /// ```
    /// use whatwg_fetch::net::{Proxy, Route};
    ///
    /// assert!(Route::new().proxy(Proxy::all("http://proxy.internal:3128")?).has_proxy());
    /// assert!(!Route::new().has_proxy());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn has_proxy(&self) -> bool {
        matches!(self.0.proxy, RouteProxy::Via(_))
    }

    /// Whether this route goes direct whatever the transport's proxies
    /// ([`Route::no_proxy`]).
    ///
    /// ```
    /// use whatwg_fetch::net::{Proxy, Route};
    ///
    /// // `no_proxy` after `proxy` replaces it.
    /// let route = Route::new().proxy(Proxy::all("http://proxy.internal:3128")?).no_proxy();
    /// assert!(route.is_direct() && !route.has_proxy());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn is_direct(&self) -> bool {
        matches!(self.0.proxy, RouteProxy::Direct)
    }

    /// The addresses this route gives `host` (without case), if it names it.
    ///
    /// ```
    /// use std::net::SocketAddr;
    /// use whatwg_fetch::net::Route;
    ///
    /// let addr = SocketAddr::from(([10, 0, 0, 7], 443));
    /// let route = Route::new().resolve("API.internal", addr);
    /// assert_eq!(route.addresses("api.internal"), Some(&[addr][..]));
    /// ```
    pub fn addresses(&self, host: &str) -> Option<&[SocketAddr]> {
        let host = host.trim_end_matches('.');
        self.0
            .overrides
            .iter()
            .find(|(name, _)| name.eq_ignore_ascii_case(host))
            .map(|(_, addrs)| addrs.as_slice())
    }

    /// Whether the route changes anything for a request to `host` on a transport with
    /// proxies of its own (`transport_proxies`) or not: a proxy setting of its own,
    /// addresses for `host`, or (through the transport's proxies) addresses for any
    /// name, which might be a proxy's. A route that changes nothing leaves the request
    /// in the pool of requests without one.
    pub(crate) fn changes(&self, host: &str, transport_proxies: bool) -> bool {
        !matches!(self.0.proxy, RouteProxy::Transport)
            || (transport_proxies && !self.0.overrides.is_empty())
            || self.addresses(host).is_some()
    }

    /// What this route says of the proxy: `None` to leave it to the transport, else the
    /// proxy to use (`Some(None)` for none).
    pub(crate) fn proxy_setting(&self) -> Option<Option<&Proxy>> {
        match &self.0.proxy {
            RouteProxy::Transport => None,
            RouteProxy::Direct => Some(None),
            RouteProxy::Via(proxy) => Some(Some(proxy)),
        }
    }
}

impl PartialEq for Route {
    fn eq(&self, other: &Route) -> bool {
        if Arc::ptr_eq(&self.0, &other.0) {
            return true;
        }
        let proxies = match (&self.0.proxy, &other.0.proxy) {
            (RouteProxy::Transport, RouteProxy::Transport)
            | (RouteProxy::Direct, RouteProxy::Direct) => true,
            (RouteProxy::Via(a), RouteProxy::Via(b)) => a.same_route(b),
            _ => false,
        };
        proxies && self.0.overrides == other.0.overrides
    }
}

impl Eq for Route {}

impl Hash for Route {
    /// The proxy's URL and the overridden names: equal routes hash alike; routes that
    /// differ only in credentials, headers or addresses collide, and compare apart.
    fn hash<H: Hasher>(&self, state: &mut H) {
        match &self.0.proxy {
            RouteProxy::Transport => state.write_u8(0),
            RouteProxy::Direct => state.write_u8(1),
            RouteProxy::Via(proxy) => {
                state.write_u8(2);
                state.write(proxy.authority.as_str().as_bytes());
            }
        }
        for (name, _) in &self.0.overrides {
            state.write(name.as_bytes());
        }
    }
}

impl fmt::Debug for Route {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut route = f.debug_struct("Route");
        match &self.0.proxy {
            RouteProxy::Transport => route.field("proxy", &"transport's"),
            RouteProxy::Direct => route.field("proxy", &"none"),
            // `Proxy`'s `Debug` leaves its credentials out.
            RouteProxy::Via(proxy) => route.field("proxy", proxy),
        };
        route.field("resolve", &self.0.overrides).finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::hash_map::DefaultHasher;

    fn hash(route: &Route) -> u64 {
        let mut hasher = DefaultHasher::new();
        route.hash(&mut hasher);
        hasher.finish()
    }

    #[test]
    fn routes_built_alike_are_equal_and_hash_alike() {
        let addr: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let build = || {
            Route::new()
                .proxy(Proxy::all("http://u:p@proxy.test:3128").unwrap())
                .resolve("a.test", addr)
        };
        assert_eq!(build(), build());
        assert_eq!(hash(&build()), hash(&build()));
    }

    #[test]
    fn routes_differing_in_credentials_proxy_or_addresses_are_not_equal() {
        let addr: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let proxy = || Proxy::all("http://proxy.test:3128").unwrap();
        let plain = Route::new().proxy(proxy());
        assert_ne!(plain, Route::new().proxy(proxy().basic_auth("u", "p")));
        assert_ne!(
            plain,
            Route::new().proxy(Proxy::all("http://other.test:3128").unwrap())
        );
        let mut headers = http::HeaderMap::new();
        headers.insert("x-tag", http::HeaderValue::from_static("a"));
        assert_ne!(plain, Route::new().proxy(proxy().headers(headers)));
        assert_ne!(plain, Route::new().no_proxy());
        assert_ne!(Route::new(), Route::new().no_proxy());
        assert_ne!(
            Route::new().resolve("a.test", addr),
            Route::new().resolve("a.test", "127.0.0.1:2".parse().unwrap())
        );
    }

    #[test]
    fn a_name_given_again_replaces_its_addresses() {
        let first: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let second: SocketAddr = "127.0.0.2:1".parse().unwrap();
        let route = Route::new()
            .resolve("A.test.", first)
            .resolve("a.test", second);
        assert_eq!(route.addresses("a.test"), Some(&[second][..]));
        assert_eq!(route, Route::new().resolve("a.test", second));
    }

    #[test]
    fn a_route_changes_only_what_it_names() {
        let addr: SocketAddr = "127.0.0.1:1".parse().unwrap();
        let route = Route::new().resolve("a.test", addr);
        assert!(route.changes("A.test", false));
        assert!(!route.changes("b.test", false));
        // Through the transport's proxies, the name may be a proxy's.
        assert!(route.changes("b.test", true));
        assert!(Route::new().no_proxy().changes("b.test", false));
        assert!(!Route::new().changes("a.test", true));
    }
}
