//! An in-memory cookie store after [RFC 6265 §5](https://www.rfc-editor.org/rfc/rfc6265#section-5)
//! (user agent requirements), used by fetch's
//! [append a request `Cookie` header](https://fetch.spec.whatwg.org/#append-a-request-cookie-header)
//! and [parse and store response `Set-Cookie` headers](https://fetch.spec.whatwg.org/#parse-and-store-response-set-cookie-headers).
//!
//! Public suffixes are rejected (RFC 6265 §5.3 step 5) with the
//! [Public Suffix List](https://publicsuffix.org/) compiled in: `example.com` cannot set a
//! cookie for `Domain=com` or `Domain=co.uk`.
//!
//! # Limits
//!
//! Whatever a server sends, the store's memory and the `Cookie` header it makes stay
//! bounded, with the limits of
//! [RFC 6265bis](https://httpwg.org/http-extensions/draft-ietf-httpbis-rfc6265bis.html)
//! and the numbers of Chrome:
//! - **Size.** A cookie whose name and value together exceed 4096 bytes is ignored, and so
//!   is an attribute whose value exceeds 1024 bytes (RFC 6265bis §5.6), as in Chrome and
//!   Firefox. A cookie whose domain or path would exceed 1024 bytes (a host or a URL path
//!   that long) is ignored too, so no cookie holds more than 4096 + 2 × 1024 bytes of
//!   text. Parsing a `Set-Cookie` value takes time linear in its length and copies only
//!   what a kept cookie holds.
//! - **Count.** At most [`CookieLimits::max_per_domain`] cookies (default 180) share a
//!   registrable domain and at most [`CookieLimits::max_total`] (default 3300) are stored;
//!   past either, the store "removes excess cookies" (RFC 6265bis §5.7, RFC 6265 §5.3) down
//!   to 150 and 3000: expired cookies first, then those of the crowded domain (non-`Secure`
//!   ones before `Secure` ones), then any, least recently sent or set first.
//!
//! With the defaults the store holds at most 3300 × 6 KiB of cookie text (about 20 MiB, at
//! worst), and a `Cookie` header carries only cookies whose domain is the request host or
//! one of its parent domains, which share the host's registrable domain: at most 180 of
//! them, about 720 KiB at worst, and only from a site that set them itself. Tighten the
//! counts with [`CookieStore::with_limits`]; read the bytes held with
//! [`CookieStore::stored_bytes`].
//!
//! # Saving and loading
//!
//! [`CookieStore::save_json`] writes every unexpired cookie, session cookies included, as a
//! versioned JSON document and [`CookieStore::load_json`] reads it back, every field kept
//! (the order of creation and of use too), so a saved login survives;
//! [`CookieStore::save_json_persistent_only`] leaves session cookies out, as a browser does
//! across a restart. [`CookieStore::load_netscape`] reads curl's `cookies.txt`. Loading
//! drops expired cookies and keeps to the store's limits.
//!
//! # Stores of other kinds
//!
//! A client reads and writes its jar through [`CookieProvider`] when it is given one with
//! [`ClientBuilder::cookie_provider`](crate::ClientBuilder::cookie_provider) (reqwest's
//! name): a trait with methods that may wait, for a store outside the process. With the
//! `redis` feature, `RedisCookieStore` is one on Redis, which every replica of a service
//! (or every worker of a crawler) shares: a cookie set through one is sent by all, with the
//! storage model, order and limits above kept across them.
//!
//! # Reading and editing the jar
//!
//! [`CookieStore::cookies`] lists every cookie as a [`StoredCookie`] (name, value, domain,
//! path, expiry, flags), by domain, then path, then creation; [`CookieStore::remove`] takes
//! one out by domain, path and name, and [`CookieStore::clear`] takes all. [`SetCookie`] is
//! one `Set-Cookie` header as §5.2 parses it, before the store decides whether to keep it:
//! what [`Response::cookies`](crate::Response::cookies) lists.
//!
//! What it does not do:
//! - `SameSite` is parsed and kept ([`SameSite`]) but not enforced: there is no top-level
//!   site or redirect taint to compare with, so every fetch counts as same-site
//!   ("strict-or-less" in fetch's
//!   [determine the same-site mode](https://fetch.spec.whatwg.org/#determine-the-same-site-mode)).
//! - `HttpOnly` is kept but changes nothing: every caller is an HTTP API.
//! - session cookies live as long as the store; a long `Max-Age` or `Expires` is not cut to
//!   400 days (RFC 6265bis §5.5).
//! - from RFC 6265bis, only the rejection of control characters in a name or value (so a
//!   stored cookie always makes a valid `Cookie` header), the `SameSite` attribute, the
//!   size limits and the eviction order above.
//!
//! ```
//! use url::Url;
//! use whatwg_fetch::cookie::CookieStore;
//!
//! let store = CookieStore::default();
//! store.set_cookie_from_header(&Url::parse("https://shop.example/")?, b"cart=7; Path=/");
//! assert_eq!(store.cookie_header_for(&Url::parse("https://shop.example/checkout")?).as_deref(), Some(&b"cart=7"[..]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::fmt;
use std::net::Ipv4Addr;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use url::{Host, Url};

use crate::infra::{days_from_civil, days_in_month, trim_http_tab_or_space};

mod persist;
mod provider;
#[cfg(feature = "redis")]
mod redis;
mod set_cookie;
mod stored_cookie;

pub use provider::{CookieFuture, CookieProvider};
#[cfg(feature = "redis")]
pub use redis::{RedisCookieStats, RedisCookieStore, RedisCookieStoreBuilder};
pub use set_cookie::SetCookie;
pub use stored_cookie::StoredCookie;

/// RFC 6265bis §5.6 step 5: a cookie whose name and value together are longer is ignored.
const MAX_NAME_VALUE_BYTES: usize = 4096;

/// RFC 6265bis §5.6, the attribute algorithm's step 6: an attribute whose value is longer
/// is ignored. Also the most bytes a stored cookie's domain or path holds.
const MAX_ATTRIBUTE_VALUE_BYTES: usize = 1024;

/// The [`SameSite`](https://httpwg.org/http-extensions/draft-ietf-httpbis-rfc6265bis.html#name-the-samesite-attribute-2)
/// attribute of a stored cookie (kept, not enforced).
///
/// ```
/// use url::Url;
/// use whatwg_fetch::cookie::{CookieStore, SameSite};
///
/// let store = CookieStore::default();
/// store.set_cookie_from_header(&Url::parse("https://a.example/")?, b"s=1; SameSite=Strict");
/// let cookie = store.cookies().into_iter().next().expect("stored");
/// assert_eq!(cookie.same_site(), SameSite::Strict);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SameSite {
    /// `SameSite=Strict`.
    Strict,
    /// `SameSite=Lax`.
    Lax,
    /// `SameSite=None`.
    None,
    /// No `SameSite` attribute, or one with another value.
    Default,
}

/// How many cookies a [`CookieStore`] keeps.
///
/// When more cookies than a limit share a registrable domain, or more than a limit are
/// stored in all, the store
/// ["removes excess cookies"](https://httpwg.org/http-extensions/draft-ietf-httpbis-rfc6265bis.html#name-storage-model)
/// down to a lower mark, least recently used first, so that it purges once per batch of
/// new cookies rather than on every one, as Chrome does. The defaults are Chrome's: 180
/// per registrable domain (Firefox keeps 180 too), purged to 150, and 3300 in all, purged
/// to 3000 (Firefox keeps 3000). A site built to fit in browsers fits in them; RFC 6265
/// §6.1 asks for at least 50 per domain and 3000 in all.
///
/// ```
/// use url::Url;
/// use whatwg_fetch::cookie::{CookieLimits, CookieStore};
///
/// let store = CookieStore::with_limits(CookieLimits {
///     max_per_domain: 2,
///     purge_per_domain_to: 2,
///     ..CookieLimits::default()
/// });
/// let url = Url::parse("https://www.example.com/").unwrap();
/// for cookie in ["a=1", "b=2", "c=3"] {
///     store.set_cookie_from_header(&url, cookie.as_bytes());
/// }
/// // The least recently used cookie made room for the newest.
/// assert_eq!(store.cookie_header_for(&url).as_deref(), Some(&b"b=2; c=3"[..]));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CookieLimits {
    /// The most cookies kept for one registrable domain (its eTLD+1: `example.com` for
    /// cookies of `example.com`, `www.example.com` and `a.b.example.com`, as Chrome and
    /// Firefox count; an IP address, or a host that is itself a public suffix, counts on
    /// its own). This also bounds how many cookies one request's `Cookie` header carries.
    ///
    /// Default is 180, as in Chrome and Firefox.
    pub max_per_domain: usize,
    /// How many cookies of a registrable domain are left when it goes over
    /// [`max_per_domain`](Self::max_per_domain). A value above `max_per_domain` counts as
    /// `max_per_domain`.
    ///
    /// Default is 150, as in Chrome.
    pub purge_per_domain_to: usize,
    /// The most cookies kept in all.
    ///
    /// Default is 3300, as in Chrome.
    pub max_total: usize,
    /// How many cookies are left when the store goes over
    /// [`max_total`](Self::max_total). A value above `max_total` counts as `max_total`.
    ///
    /// Default is 3000, as in Chrome.
    pub purge_total_to: usize,
}

impl Default for CookieLimits {
    fn default() -> CookieLimits {
        CookieLimits {
            max_per_domain: 180,
            purge_per_domain_to: 150,
            max_total: 3300,
            purge_total_to: 3000,
        }
    }
}

/// A cookie in the store, with the fields of
/// [RFC 6265 §5.3](https://www.rfc-editor.org/rfc/rfc6265#section-5.3).
#[derive(Clone, Debug, PartialEq, Eq)]
struct Cookie {
    name: Vec<u8>,
    value: Vec<u8>,
    /// Seconds since the Unix epoch; `None` for a session cookie (persistent-flag false).
    expiry_time: Option<i64>,
    domain: String,
    path: Vec<u8>,
    /// Not in the RFC as such: creation order, for a stable "earlier creation-times first".
    creation_time: u64,
    /// Not in the RFC as such: the jar's access counter when the cookie was last set or
    /// sent, for "the earliest last-access-time first"; a counter orders accesses strictly
    /// and does not move with the system clock.
    last_access_time: u64,
    secure_only: bool,
    http_only: bool,
    host_only: bool,
    same_site: SameSite,
}

impl Cookie {
    /// A cookie is "expired" if it has an expiry date in the past (RFC 6265bis §5.7).
    fn is_expired(&self, now: i64) -> bool {
        self.expiry_time.is_some_and(|expiry| expiry <= now)
    }

    /// The bytes of text the cookie holds.
    fn text_bytes(&self) -> usize {
        self.name.len() + self.value.len() + self.domain.len() + self.path.len()
    }

    /// The eviction order among cookies of the same removal priority: the earliest
    /// last-access-time first, then (for a total order) the earliest creation.
    fn access_order(&self) -> (u64, u64) {
        (self.last_access_time, self.creation_time)
    }
}

/// The cookies, grouped by the registrable domain the per-domain limit counts in
/// ([`limit_key`]), so that storing and retrieving look at one site's cookies only.
#[derive(Debug, Default)]
struct Jar {
    groups: HashMap<String, Vec<Cookie>>,
    /// How many cookies `groups` holds.
    len: usize,
    /// The bytes of text they hold ([`Cookie::text_bytes`]).
    bytes: usize,
    /// No stored cookie expires before this; `None` when none has an expiry-time. May be
    /// earlier than the earliest expiry after removals: a sweep then finds the true one.
    earliest_expiry: Option<i64>,
    next_creation_time: u64,
    access_clock: u64,
}

impl Jar {
    /// A jar that holds `group`, the cookies of the registrable domain `key` (a store that
    /// keeps its groups elsewhere works on one group at a time in a jar of its own).
    #[cfg_attr(not(feature = "redis"), allow(dead_code))]
    fn of_group(key: String, group: Vec<Cookie>) -> Jar {
        let mut jar = Jar {
            len: group.len(),
            bytes: group.iter().map(Cookie::text_bytes).sum(),
            earliest_expiry: group.iter().fold(None, |e, c| earliest(e, c.expiry_time)),
            ..Jar::default()
        };
        if !group.is_empty() {
            jar.groups.insert(key, group);
        }
        jar
    }

    /// Empties the jar.
    fn clear(&mut self) {
        self.groups.clear();
        self.len = 0;
        self.bytes = 0;
        self.earliest_expiry = None;
    }

    /// The next tick of the access counter: the "current date and time" of a
    /// last-access-time.
    fn tick(&mut self) -> u64 {
        self.access_clock = self.access_clock.wrapping_add(1);
        self.access_clock
    }

    /// "The user agent MUST evict all expired cookies from the cookie store if, at any
    /// time, an expired cookie exists in the cookie store." (RFC 6265bis §5.7.) Looks at
    /// every cookie only when one may have expired since the last sweep.
    fn evict_expired(&mut self, now: i64) {
        if self.earliest_expiry.is_none_or(|earliest| earliest > now) {
            return;
        }
        let (mut len, mut bytes, mut earliest_expiry) = (0, 0, None);
        self.groups.retain(|_, group| {
            group.retain(|cookie| !cookie.is_expired(now));
            for cookie in group.iter() {
                len += 1;
                bytes += cookie.text_bytes();
                earliest_expiry = earliest(earliest_expiry, cookie.expiry_time);
            }
            !group.is_empty()
        });
        self.len = len;
        self.bytes = bytes;
        self.earliest_expiry = earliest_expiry;
    }

    /// RFC 6265 §5.3 steps 11–12 (RFC 6265bis §5.7 steps 23–24), then the removal of
    /// excess cookies: stores `cookie` at time `now`.
    fn store(&mut self, mut cookie: Cookie, now: i64, limits: &CookieLimits) {
        self.evict_expired(now);
        let key = limit_key(&cookie.domain).to_owned();
        let group = self.groups.entry(key.clone()).or_default();
        // Step 11. If the cookie store contains a cookie with the same name, domain, and
        // path as the newly created cookie: update the creation-time of the newly created
        // cookie to match the creation-time of the old-cookie, and remove the old-cookie
        // from the cookie store.
        if let Some(index) = group.iter().position(|old| {
            old.name == cookie.name && old.domain == cookie.domain && old.path == cookie.path
        }) {
            let old = group.swap_remove(index);
            cookie.creation_time = old.creation_time;
            self.len = self.len.saturating_sub(1);
            self.bytes = self.bytes.saturating_sub(old.text_bytes());
        }
        // Step 12. Insert the newly created cookie into the cookie store. An expired cookie
        // would be evicted at once (this is how Max-Age=0 deletes), so it is left out.
        if cookie.is_expired(now) {
            if group.is_empty() {
                self.groups.remove(&key);
            }
            return;
        }
        self.len += 1;
        self.bytes += cookie.text_bytes();
        self.earliest_expiry = earliest(self.earliest_expiry, cookie.expiry_time);
        group.push(cookie);
        // "At any time, the user agent MAY 'remove excess cookies' from the cookie store if
        // the number of cookies sharing a domain field exceeds some implementation-defined
        // upper bound (such as 50 cookies)." The "domain" is the registrable domain, as in
        // Chrome and Firefox, so subdomains cannot multiply a site's share.
        if group.len() > limits.max_per_domain {
            let target = limits.purge_per_domain_to.min(limits.max_per_domain);
            self.remove_excess_in_domain(&key, target);
        }
        // "At any time, the user agent MAY 'remove excess cookies' from the cookie store if
        // the cookie store exceeds some predetermined upper bound (such as 3000 cookies)."
        if self.len > limits.max_total {
            self.remove_excess_in_store(limits.purge_total_to.min(limits.max_total));
        }
    }

    /// [Remove excess cookies](https://httpwg.org/http-extensions/draft-ietf-httpbis-rfc6265bis.html#name-storage-model)
    /// of the registrable domain `key` until `target` are left. "When the user agent
    /// removes excess cookies from the cookie store, the user agent MUST evict cookies in
    /// the following priority order:" (RFC 6265bis §5.7)
    /// 1. Expired cookies. (None: the jar was swept before the cookie was stored.)
    /// 2. Cookies whose secure-only-flag is false, and which share a domain field with more
    ///    than a predetermined number of other cookies.
    /// 3. Cookies that share a domain field with more than a predetermined number of other
    ///    cookies.
    ///
    /// "If two cookies have the same removal priority, the user agent MUST evict the cookie
    /// with the earliest last-access-time first." RFC 6265 §5.3 has the same order without
    /// priority 2.
    fn remove_excess_in_domain(&mut self, key: &str, target: usize) {
        let Some(group) = self.groups.get_mut(key) else {
            return;
        };
        let excess = group.len().saturating_sub(target);
        // Non-secure cookies sort first (priority 2), then by last access.
        group.sort_unstable_by_key(|cookie| (cookie.secure_only, cookie.access_order()));
        let removed: usize = group.drain(..excess).map(|c| c.text_bytes()).sum();
        if group.is_empty() {
            self.groups.remove(key);
        }
        self.len = self.len.saturating_sub(excess);
        self.bytes = self.bytes.saturating_sub(removed);
    }

    /// [Remove excess cookies](https://httpwg.org/http-extensions/draft-ietf-httpbis-rfc6265bis.html#name-storage-model)
    /// of the whole store until `target` are left: RFC 6265bis §5.7 priority 4, "All
    /// cookies" (RFC 6265 §5.3 priority 3), the earliest last-access-time first. (No domain
    /// holds more than its limit, so priorities 2 and 3 have nothing to remove; expired
    /// cookies were swept before the new one was stored.) Linear in the number of cookies,
    /// and run once per `max_total - target` new cookies.
    fn remove_excess_in_store(&mut self, target: usize) {
        let excess = self.len.saturating_sub(target);
        if excess == 0 {
            return;
        }
        let mut orders: Vec<(u64, u64)> = self
            .groups
            .values()
            .flatten()
            .map(Cookie::access_order)
            .collect();
        if excess >= orders.len() {
            self.clear();
            return;
        }
        // The `excess`-th earliest access: it and every earlier one go.
        let Some(index) = excess.checked_sub(1) else {
            return;
        };
        let (_, last_out, _) = orders.select_nth_unstable(index);
        let last_out = *last_out;
        let (mut len, mut bytes) = (0, 0);
        self.groups.retain(|_, group| {
            group.retain(|cookie| cookie.access_order() > last_out);
            len += group.len();
            bytes += group.iter().map(Cookie::text_bytes).sum::<usize>();
            !group.is_empty()
        });
        self.len = len;
        self.bytes = bytes;
    }
}

/// The earlier of two optional expiry-times, `None` meaning none.
fn earliest(a: Option<i64>, b: Option<i64>) -> Option<i64> {
    match (a, b) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// The "domain" the per-domain limit counts cookies in, for a cookie's `domain`: its
/// registrable domain (eTLD+1) on the Public Suffix List, as Chrome and Firefox count; the
/// domain itself when it has none (an IP address, or a public suffix such as `localhost`
/// that is a host-only cookie's host).
fn limit_key(domain: &str) -> &str {
    if domain.starts_with('[') || domain.parse::<Ipv4Addr>().is_ok() {
        return domain;
    }
    psl::domain(domain.as_bytes())
        .and_then(|registrable| domain.len().checked_sub(registrable.as_bytes().len()))
        .and_then(|start| domain.get(start..))
        .unwrap_or(domain)
}

/// The [`limit_key`]s under which the cookies that may match a request to `host` are
/// stored: those of `host` and of each parent domain a `Domain` attribute could name.
fn limit_keys_for_host<'a>(host: &Host<&str>, canonicalized_host: &'a str) -> Vec<&'a str> {
    let mut keys = vec![limit_key(canonicalized_host)];
    if !matches!(host, Host::Domain(_)) {
        return keys;
    }
    // A parent domain is what follows a "."; a `Domain` attribute longer than 1024 bytes
    // is never stored, so longer parents need no look.
    let parents = canonicalized_host
        .match_indices('.')
        .filter_map(|(dot, _)| canonicalized_host.get(dot + 1..))
        .filter(|parent| !parent.is_empty() && parent.len() <= MAX_ATTRIBUTE_VALUE_BYTES);
    for parent in parents {
        let key = limit_key(parent);
        if !keys.contains(&key) {
            keys.push(key);
        }
    }
    keys
}

/// An in-memory cookie store: what a [`Client`](crate::Client) with cookies enabled stores
/// `Set-Cookie` headers in and reads `Cookie` headers from.
///
/// Thread-safe; share one between clients with
/// [`ClientBuilder::cookie_store_with`](crate::client::ClientBuilder::cookie_store_with).
/// Its size is bounded: see [`CookieLimits`] and the [module documentation](self).
///
/// ```
/// use url::Url;
/// use whatwg_fetch::cookie::CookieStore;
///
/// let store = CookieStore::default();
/// let url = Url::parse("https://example.com/a/b").unwrap();
/// store.set_cookie_from_header(&url, b"id=1; Path=/a");
/// store.set_cookie_from_header(&url, b"theme=dark; Path=/");
/// assert_eq!(store.cookie_header_for(&url).as_deref(), Some(&b"id=1; theme=dark"[..]));
/// let other = Url::parse("https://example.com/").unwrap();
/// assert_eq!(store.cookie_header_for(&other).as_deref(), Some(&b"theme=dark"[..]));
/// ```
#[derive(Default)]
pub struct CookieStore {
    jar: Mutex<Jar>,
    limits: CookieLimits,
}

impl fmt::Debug for CookieStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CookieStore")
            .field("len", &self.len())
            .field("limits", &self.limits)
            .finish()
    }
}

impl CookieStore {
    /// An empty store that keeps at most as many cookies as `limits` says (the
    /// [`Default`] store keeps [`CookieLimits::default`]).
    ///
    /// ```
    /// use whatwg_fetch::cookie::{CookieLimits, CookieStore};
    ///
    /// // A crawler's jar: a few cookies per site, a few thousand in all.
    /// let limits = CookieLimits { max_per_domain: 20, purge_per_domain_to: 15, ..CookieLimits::default() };
    /// let store = CookieStore::with_limits(limits);
    /// assert_eq!(store.limits().max_per_domain, 20);
    /// ```
    pub fn with_limits(limits: CookieLimits) -> CookieStore {
        CookieStore {
            jar: Mutex::default(),
            limits,
        }
    }

    /// The limits this store keeps to.
    ///
    /// ```
    /// use whatwg_fetch::cookie::{CookieLimits, CookieStore};
    ///
    /// assert_eq!(CookieStore::default().limits(), CookieLimits::default());
    /// ```
    pub fn limits(&self) -> CookieLimits {
        self.limits
    }

    fn jar(&self) -> MutexGuard<'_, Jar> {
        // The jar is left consistent at every step, so a poisoned lock is still usable.
        self.jar.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Parses one `Set-Cookie` header `value` received in the response to `url` and stores
    /// the cookie ([RFC 6265 §5.2](https://www.rfc-editor.org/rfc/rfc6265#section-5.2) and
    /// [§5.3](https://www.rfc-editor.org/rfc/rfc6265#section-5.3)). A value the RFC says to
    /// ignore is ignored; an expired cookie deletes the one it replaces. A cookie over the
    /// size limits is ignored, and past the count limits the least recently used cookies
    /// make room (see [`CookieLimits`]).
    ///
    /// ```
    /// use url::Url;
    /// use whatwg_fetch::cookie::CookieStore;
    ///
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://shop.example/cart")?;
    /// store.set_cookie_from_header(&url, b"cart=7; Path=/; Secure; HttpOnly");
    /// // A value the RFC says to ignore (no `=`) is ignored.
    /// store.set_cookie_from_header(&url, b"garbage");
    /// assert_eq!(store.len(), 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn set_cookie_from_header(&self, url: &Url, value: &[u8]) {
        self.set_cookie_at(url, value, now());
    }

    /// The `Cookie` header value to send with a request to `url`: the
    /// [cookie-string](https://www.rfc-editor.org/rfc/rfc6265#section-5.4) of the cookies
    /// that match it, or `None` when there are none. The cookies count as used now, for
    /// the eviction order.
    ///
    /// ```
    /// use url::Url;
    /// use whatwg_fetch::cookie::CookieStore;
    ///
    /// let store = CookieStore::default();
    /// store.set_cookie_from_header(&Url::parse("https://shop.example/")?, b"id=1; Secure");
    /// assert_eq!(store.cookie_header_for(&Url::parse("https://shop.example/a")?).as_deref(), Some(&b"id=1"[..]));
    /// // Not over plain `http:`, as the cookie is `Secure`.
    /// assert_eq!(store.cookie_header_for(&Url::parse("http://shop.example/a")?), None);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn cookie_header_for(&self, url: &Url) -> Option<Vec<u8>> {
        self.cookie_string_at(url, now())
    }

    /// Removes every cookie.
    ///
    /// ```
    /// use url::Url;
    /// use whatwg_fetch::cookie::CookieStore;
    ///
    /// let store = CookieStore::default();
    /// store.set_cookie_from_header(&Url::parse("https://a.example/")?, b"x=1");
    /// store.clear();
    /// assert!(store.is_empty());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn clear(&self) {
        self.jar().clear();
    }

    /// How many cookies are stored, expired ones not counted.
    ///
    /// ```
    /// use url::Url;
    /// use whatwg_fetch::cookie::CookieStore;
    ///
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://a.example/")?;
    /// store.set_cookie_from_header(&url, b"x=1");
    /// store.set_cookie_from_header(&url, b"y=2");
    /// // The same name again replaces the cookie.
    /// store.set_cookie_from_header(&url, b"x=3");
    /// assert_eq!(store.len(), 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn len(&self) -> usize {
        let mut jar = self.jar();
        jar.evict_expired(now());
        jar.len
    }

    /// Whether no cookie is stored.
    ///
    /// ```
    /// use whatwg_fetch::cookie::CookieStore;
    ///
    /// assert!(CookieStore::default().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The bytes of cookie text the store holds, expired cookies not counted: the names,
    /// values, domains and paths of its cookies (not the bookkeeping around them, a few
    /// dozen bytes per cookie).
    ///
    /// ```
    /// use url::Url;
    /// use whatwg_fetch::cookie::CookieStore;
    ///
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://example.com/").unwrap();
    /// store.set_cookie_from_header(&url, b"id=12345");
    /// assert_eq!(store.stored_bytes(), "id".len() + "12345".len() + "example.com".len() + "/".len());
    /// // Over 4096 bytes of name and value: ignored.
    /// store.set_cookie_from_header(&url, format!("big={}", "x".repeat(5000)).as_bytes());
    /// assert_eq!(store.len(), 1);
    /// ```
    pub fn stored_bytes(&self) -> usize {
        let mut jar = self.jar();
        jar.evict_expired(now());
        jar.bytes
    }

    /// [Storage model](https://www.rfc-editor.org/rfc/rfc6265#section-5.3) at time `now`.
    fn set_cookie_at(&self, url: &Url, value: &[u8], now: i64) {
        // Steps 1–10.
        let Some(mut cookie) = new_cookie(url, value, now) else {
            return;
        };
        let mut jar = self.jar();
        jar.next_creation_time += 1;
        cookie.creation_time = jar.next_creation_time;
        // RFC 6265bis §5.7 step 5: set the creation-time and the last-access-time to the
        // current date and time.
        cookie.last_access_time = jar.tick();
        // Steps 11–12, and the removal of expired and excess cookies.
        jar.store(cookie, now, &self.limits);
    }

    /// The [cookie-string](https://www.rfc-editor.org/rfc/rfc6265#section-5.4) for `url` at
    /// time `now`.
    fn cookie_string_at(&self, url: &Url, now: i64) -> Option<Vec<u8>> {
        let retrieval = Retrieval::of(url)?;
        let mut jar = self.jar();
        jar.evict_expired(now);
        // Step 1. Let cookie-list be the set of cookies from the cookie store that meets all
        // of the following requirements: (A matching cookie's domain is the request host
        // or a parent of it, so only the groups of those are looked at.)
        // Each cookie as (path length, creation-time, group, index in the group).
        let mut cookie_list: Vec<(usize, u64, &str, usize)> = Vec::new();
        for key in retrieval.keys() {
            let Some(group) = jar.groups.get(key) else {
                continue;
            };
            for (index, cookie) in group.iter().enumerate() {
                if retrieval.matches(cookie) {
                    cookie_list.push((cookie.path.len(), cookie.creation_time, key, index));
                }
            }
        }
        if cookie_list.is_empty() {
            return None;
        }
        // Step 2. Sort the cookie-list: cookies with longer paths are listed before cookies
        // with shorter paths; among cookies with equal-length paths, cookies with earlier
        // creation-times are listed first.
        cookie_list.sort_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        // Step 3. Update the last-access-time of each cookie in the cookie-list to the
        // current date and time.
        let last_access_time = jar.tick();
        for &(_, _, key, index) in &cookie_list {
            if let Some(cookie) = jar.groups.get_mut(key).and_then(|g| g.get_mut(index)) {
                cookie.last_access_time = last_access_time;
            }
        }
        // Step 4. Serialize the cookie-list into a cookie-string.
        let jar = &*jar;
        Some(serialize_cookie_list(cookie_list.iter().filter_map(
            |&(_, _, key, index)| jar.groups.get(key).and_then(|g| g.get(index)),
        )))
    }

    /// The stored cookies in creation order, for tests to compare whole.
    #[cfg(test)]
    fn cookies_by_creation(&self) -> Vec<Cookie> {
        let mut cookies: Vec<Cookie> = self.jar().groups.values().flatten().cloned().collect();
        cookies.sort_by_key(|cookie| cookie.creation_time);
        cookies
    }
}

/// [Storage model](https://www.rfc-editor.org/rfc/rfc6265#section-5.3) steps 1–10: the
/// cookie a `Set-Cookie` header `value` received in the response to `url` at time `now`
/// makes, or `None` when it is to be ignored. Its creation-time and last-access-time are
/// left at 0, for the store that keeps it to set (steps 11–12 are the store's).
fn new_cookie(url: &Url, value: &[u8], now: i64) -> Option<Cookie> {
    let request_host = url.host()?;
    let parsed = parse_set_cookie(value)?;
    let canonicalized_host = canonicalized_host(&request_host);
    // Step 1. A user agent MAY ignore a received cookie in its entirety. It ignores one
    // from a host longer than an attribute value may be (a domain name has at most 253
    // bytes), so that no stored domain is longer.
    if canonicalized_host.len() > MAX_ATTRIBUTE_VALUE_BYTES {
        return None;
    }
    // Step 2. Create a new cookie with name cookie-name, value cookie-value.
    // Step 3. If the cookie-attribute-list contains an attribute with an attribute-name
    // of "Max-Age": set the cookie's persistent-flag to true and its expiry-time to the
    // attribute-value of the last such attribute. Otherwise, if it contains "Expires",
    // likewise with the last "Expires". Otherwise the persistent-flag is false.
    let expiry_time = parsed
        .max_age
        .map(|delta_seconds| max_age_expiry_time(delta_seconds, now))
        .or(parsed.expires);
    // Step 4. If the cookie-attribute-list contains an attribute with an attribute-name
    // of "Domain", let the domain-attribute be the attribute-value of the last such
    // attribute. Otherwise, let the domain-attribute be the empty string.
    let mut domain_attribute = parsed.domain.unwrap_or_default();
    // Step 5. If the user agent is configured to reject "public suffixes" and the
    // domain-attribute is a public suffix (on the Public Suffix List, compiled in):
    if !domain_attribute.is_empty() && is_public_suffix(&domain_attribute) {
        // If the domain-attribute is identical to the canonicalized request-host: let
        // the domain-attribute be the empty string.
        if domain_attribute == canonicalized_host {
            domain_attribute = String::new();
        } else {
            // Otherwise: ignore the cookie entirely and abort these steps.
            return None;
        }
    }
    // Step 6. If the domain-attribute is non-empty:
    let (host_only, domain) = if !domain_attribute.is_empty() {
        // If the canonicalized request-host does not domain-match the
        // domain-attribute: ignore the cookie entirely and abort these steps.
        if !domain_match(&request_host, &canonicalized_host, &domain_attribute) {
            return None;
        }
        // Otherwise: set the cookie's host-only-flag to false and its domain to the
        // domain-attribute.
        (false, domain_attribute)
    } else {
        // Otherwise: set the cookie's host-only-flag to true and its domain to the
        // canonicalized request-host.
        (true, canonicalized_host)
    };
    // Step 7. If the cookie-attribute-list contains "Path", set the cookie's path to the
    // attribute-value of the last such attribute; otherwise to the default-path of the
    // request-uri.
    let path = parsed.path.unwrap_or_else(|| default_path(url));
    // (Step 1 again: a default-path longer than a `Path` attribute may be is ignored
    // with its cookie, so that no stored path is longer.)
    if path.len() > MAX_ATTRIBUTE_VALUE_BYTES {
        return None;
    }
    // Step 8. If the cookie-attribute-list contains "Secure", set the secure-only-flag.
    // RFC 6265bis: a Secure cookie from a non-secure URL is ignored (fetch's isSecure:
    // the scheme is "https").
    if parsed.secure && url.scheme() != "https" {
        return None;
    }
    // Step 9. If the cookie-attribute-list contains "HttpOnly", set the http-only-flag.
    // Step 10. (Non-HTTP APIs: every caller here is an HTTP API.)
    Some(Cookie {
        name: parsed.name,
        value: parsed.value,
        expiry_time,
        domain,
        path,
        creation_time: 0,
        last_access_time: 0,
        secure_only: parsed.secure,
        http_only: parsed.http_only,
        host_only,
        same_site: parsed.same_site,
    })
}

/// What [retrieving cookies](https://www.rfc-editor.org/rfc/rfc6265#section-5.4) for a
/// request URL looks at.
struct Retrieval<'a> {
    request_host: Host<&'a str>,
    canonicalized_host: String,
    request_path: &'a [u8],
    is_secure: bool,
}

impl<'a> Retrieval<'a> {
    /// The retrieval for `url`; `None` for a URL without a host, which has no cookies.
    fn of(url: &'a Url) -> Option<Retrieval<'a>> {
        let request_host = url.host()?;
        Some(Retrieval {
            canonicalized_host: canonicalized_host(&request_host),
            request_host,
            request_path: url.path().as_bytes(),
            is_secure: url.scheme() == "https",
        })
    }

    /// The [`limit_key`]s of the groups that may hold a matching cookie.
    fn keys(&self) -> Vec<&str> {
        limit_keys_for_host(&self.request_host, &self.canonicalized_host)
    }

    /// Step 1's requirements: whether `cookie` goes in the cookie-list (expiry aside: the
    /// caller has evicted expired cookies).
    fn matches(&self, cookie: &Cookie) -> bool {
        // Either the cookie's host-only-flag is true and the canonicalized request-host is
        // identical to the cookie's domain, or the host-only-flag is false and the
        // canonicalized request-host domain-matches the cookie's domain.
        let host_ok = if cookie.host_only {
            self.canonicalized_host == cookie.domain
        } else {
            domain_match(&self.request_host, &self.canonicalized_host, &cookie.domain)
        };
        // The request-uri's path path-matches the cookie's path.
        // If the cookie's secure-only-flag is true, then the request-uri's scheme must
        // denote a "secure" protocol.
        // (http-only-flag: every caller is an HTTP API.)
        host_ok
            && path_match(self.request_path, &cookie.path)
            && (!cookie.secure_only || self.is_secure)
    }
}

/// [Retrieval](https://www.rfc-editor.org/rfc/rfc6265#section-5.4) step 4: serialize the
/// (sorted) cookie-list into a cookie-string: output the cookie's name, "=", and the
/// cookie's value; if there is an unprocessed cookie in the list, output "; ".
fn serialize_cookie_list<'c>(cookie_list: impl Iterator<Item = &'c Cookie>) -> Vec<u8> {
    let mut cookie_string = Vec::new();
    for (i, cookie) in cookie_list.enumerate() {
        if i > 0 {
            cookie_string.extend_from_slice(b"; ");
        }
        cookie_string.extend_from_slice(&cookie.name);
        cookie_string.push(b'=');
        cookie_string.extend_from_slice(&cookie.value);
    }
    cookie_string
}

/// Seconds since the Unix epoch now.
fn now() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(since) => i64::try_from(since.as_secs()).unwrap_or(i64::MAX),
        Err(before) => i64::try_from(before.duration().as_secs()).map_or(i64::MIN, |s| -s),
    }
}

/// The [canonicalized host name](https://www.rfc-editor.org/rfc/rfc6265#section-5.1.2):
/// the URL parser already lowercases and punycodes domains.
fn canonicalized_host(host: &Host<&str>) -> String {
    host.to_string()
}

/// Whether `domain` (lowercase, as a `Domain` attribute is kept) is a public suffix: the
/// whole of it is a rule of the Public Suffix List, or matches the list's default rule `*`
/// (a single label, such as `com` or `localhost`).
fn is_public_suffix(domain: &str) -> bool {
    let domain = domain.strip_suffix('.').unwrap_or(domain);
    if domain.is_empty() || domain.parse::<std::net::IpAddr>().is_ok() {
        return false;
    }
    psl::suffix(domain.as_bytes()).is_some_and(|suffix| suffix.as_bytes() == domain.as_bytes())
}

/// [Domain matching](https://www.rfc-editor.org/rfc/rfc6265#section-5.1.3): whether the
/// request host (`string`) domain-matches `domain_string`.
fn domain_match(host: &Host<&str>, string: &str, domain_string: &str) -> bool {
    // The domain string and the string are identical.
    if string == domain_string {
        return true;
    }
    // Or all of: the domain string is a suffix of the string; the last character of the
    // string that is not included in the domain string is "."; the string is a host name
    // (i.e., not an IP address).
    matches!(host, Host::Domain(_))
        && string
            .strip_suffix(domain_string)
            .is_some_and(|rest| rest.ends_with('.'))
}

/// The [default-path](https://www.rfc-editor.org/rfc/rfc6265#section-5.1.4) of `url`.
fn default_path(url: &Url) -> Vec<u8> {
    // Step 1. Let uri-path be the path portion of the request-uri if such a portion
    // exists (and empty otherwise).
    let uri_path = url.path().as_bytes();
    // Step 2. If the uri-path is empty or if the first character of the uri-path is not a
    // "/" character, output "/" and skip the remaining steps.
    if uri_path.first() != Some(&b'/') {
        return b"/".to_vec();
    }
    // Step 3. If the uri-path contains no more than one "/" character, output "/" and skip
    // the remaining step.
    // Step 4. Output the characters of the uri-path from the first character up to, but
    // not including, the right-most "/".
    match uri_path.iter().rposition(|&b| b == b'/') {
        Some(0) | None => b"/".to_vec(),
        Some(last) => uri_path.get(..last).unwrap_or(b"/").to_vec(),
    }
}

/// [Path matching](https://www.rfc-editor.org/rfc/rfc6265#section-5.1.4): whether
/// `request_path` path-matches `cookie_path`.
fn path_match(request_path: &[u8], cookie_path: &[u8]) -> bool {
    // The cookie-path and the request-path are identical.
    if request_path == cookie_path {
        return true;
    }
    // Or the cookie-path is a prefix of the request-path, and either the last character of
    // the cookie-path is "/", or the first character of the request-path that is not
    // included in the cookie-path is "/".
    request_path
        .strip_prefix(cookie_path)
        .is_some_and(|rest| cookie_path.last() == Some(&b'/') || rest.first() == Some(&b'/'))
}

/// Splits at the first `byte`: (before, Some(after)) or (all, None).
fn split_once(bytes: &[u8], byte: u8) -> (&[u8], Option<&[u8]>) {
    match bytes.iter().position(|&b| b == byte) {
        Some(i) => (bytes.get(..i).unwrap_or_default(), bytes.get(i + 1..)),
        None => (bytes, None),
    }
}

/// [The Set-Cookie header](https://www.rfc-editor.org/rfc/rfc6265#section-5.2): parse a
/// set-cookie-string, or `None` to ignore it.
fn parse_set_cookie(set_cookie_string: &[u8]) -> Option<SetCookie> {
    // Step 1. If the set-cookie-string contains a %x3B (";") character: the
    // name-value-pair string consists of the characters up to, but not including, the
    // first ";", and the unparsed-attributes consist of the remainder (including the ";").
    // Otherwise the name-value-pair string is the whole and unparsed-attributes is empty.
    let (name_value_pair, mut unparsed_attributes) = split_once(set_cookie_string, b';');
    // Step 2. If the name-value-pair string lacks a "=" character, ignore the
    // set-cookie-string entirely.
    // Step 3. The (possibly empty) name string consists of the characters up to, but not
    // including, the first "=", and the (possibly empty) value string consists of the
    // characters after the first "=".
    let (name, value) = split_once(name_value_pair, b'=');
    let value = value?;
    // Step 4. Remove any leading or trailing WSP characters from the name string and the
    // value string. (WSP is SP and HTAB, RFC 5234: the HTTP tab or space bytes.)
    let (name, value) = (trim_http_tab_or_space(name), trim_http_tab_or_space(value));
    // Step 5. If the name string is empty, ignore the set-cookie-string entirely.
    if name.is_empty() {
        return None;
    }
    // RFC 6265bis §5.6 step 5: if the sum of the lengths of the name string and the value
    // string is more than 4096 octets, abort this algorithm and ignore the
    // set-cookie-string entirely. (Checked before anything is copied.)
    if name.len() + value.len() > MAX_NAME_VALUE_BYTES {
        return None;
    }
    // RFC 6265bis: if the name or value contains a control character other than HTAB,
    // ignore the set-cookie-string entirely.
    let is_ctl = |&b: &u8| (b < 0x20 && b != b'\t') || b == 0x7F;
    if name.iter().any(is_ctl) || value.iter().any(is_ctl) {
        return None;
    }
    // Step 6. The cookie-name is the name string, and the cookie-value is the value string.
    let mut cookie = SetCookie {
        name: name.to_vec(),
        value: value.to_vec(),
        expires: None,
        max_age: None,
        domain: None,
        path: None,
        secure: false,
        http_only: false,
        same_site: SameSite::Default,
    };
    // The user agent MUST use an algorithm equivalent to the following to process the
    // unparsed-attributes: if the unparsed-attributes string is empty, skip the rest.
    while let Some(rest) = unparsed_attributes {
        // 1. Discard the leading ";". 2. If the remaining unparsed-attributes contains a
        // ";", consume the characters up to, but not including, it; otherwise consume the
        // remainder. Let the cookie-av string be the characters consumed.
        let (cookie_av, next) = split_once(rest, b';');
        unparsed_attributes = next;
        // 3. If the cookie-av string contains "=", the attribute-name is the characters up
        // to the first "=" and the attribute-value those after it; otherwise the
        // attribute-name is the entire cookie-av string and the attribute-value is empty.
        let (attribute_name, attribute_value) = split_once(cookie_av, b'=');
        // 4. Remove any leading or trailing WSP characters from both.
        let attribute_name = trim_http_tab_or_space(attribute_name);
        let attribute_value = trim_http_tab_or_space(attribute_value.unwrap_or_default());
        // RFC 6265bis §5.6 step 6: if the attribute-value is longer than 1024 octets,
        // ignore the cookie-av string and return to step 1 of this algorithm.
        if attribute_value.len() > MAX_ATTRIBUTE_VALUE_BYTES {
            continue;
        }
        // 5. Process the attribute-name and attribute-value (case-insensitively). (A name
        // longer than any known one is none of them; the others are compared in place.)
        let mut lowercase_name = [0u8; 8];
        let attribute_name = match lowercase_name.get_mut(..attribute_name.len()) {
            Some(buffer) => {
                buffer.copy_from_slice(attribute_name);
                buffer.make_ascii_lowercase();
                &*buffer
            }
            None => &[],
        };
        match attribute_name {
            // §5.2.1 The Expires attribute: let the expiry-time be the result of parsing
            // the attribute-value as cookie-date. If it fails, ignore the cookie-av.
            b"expires" => {
                if let Some(expiry_time) = parse_cookie_date(attribute_value) {
                    cookie.expires = Some(expiry_time);
                }
            }
            // §5.2.2 The Max-Age attribute.
            b"max-age" => {
                if let Some(delta_seconds) = parse_max_age(attribute_value) {
                    cookie.max_age = Some(delta_seconds);
                }
            }
            // §5.2.3 The Domain attribute. If the attribute-value is empty, the user agent
            // SHOULD ignore the cookie-av entirely. If its first character is ".", let
            // cookie-domain be the attribute-value without the leading "."; convert the
            // cookie-domain to lower case.
            b"domain" if !attribute_value.is_empty() => {
                let domain = attribute_value
                    .strip_prefix(b".")
                    .unwrap_or(attribute_value);
                cookie.domain = Some(String::from_utf8_lossy(domain).to_ascii_lowercase());
            }
            // §5.2.4 The Path attribute. If the attribute-value is empty or its first
            // character is not "/", let cookie-path be the default-path (`None`);
            // otherwise the attribute-value.
            b"path" => {
                cookie.path =
                    (attribute_value.first() == Some(&b'/')).then(|| attribute_value.to_vec());
            }
            // §5.2.5 The Secure attribute.
            b"secure" => cookie.secure = true,
            // §5.2.6 The HttpOnly attribute.
            b"httponly" => cookie.http_only = true,
            // RFC 6265bis: the SameSite attribute, "Strict", "Lax" or "None"
            // case-insensitively; anything else is "Default".
            b"samesite" => {
                let is = |name: &[u8]| attribute_value.eq_ignore_ascii_case(name);
                cookie.same_site = if is(b"strict") {
                    SameSite::Strict
                } else if is(b"lax") {
                    SameSite::Lax
                } else if is(b"none") {
                    SameSite::None
                } else {
                    SameSite::Default
                };
            }
            _ => {}
        }
    }
    Some(cookie)
}

/// [§5.2.2 The Max-Age attribute](https://www.rfc-editor.org/rfc/rfc6265#section-5.2.2):
/// the delta-seconds (negative for a value starting with "-"), or `None` to ignore the
/// cookie-av. The expiry-time it gives is [`max_age_expiry_time`]'s: it depends on when
/// the cookie is stored, so the parsed form keeps the delta, as [`SetCookie::max_age`]
/// shows it.
fn parse_max_age(attribute_value: &[u8]) -> Option<i64> {
    // If the first character of the attribute-value is not a DIGIT or a "-" character,
    // ignore the cookie-av. If the remainder of attribute-value contains a non-DIGIT
    // character, ignore the cookie-av.
    let (negative, digits) = match attribute_value.split_first() {
        Some((b'-', rest)) => (true, rest),
        Some((first, _)) if first.is_ascii_digit() => (false, attribute_value),
        _ => return None,
    };
    if !digits.iter().all(u8::is_ascii_digit) {
        return None;
    }
    // Let delta-seconds be the attribute-value converted to an integer.
    let delta_seconds = digits.iter().fold(0i64, |n, &d| {
        n.saturating_mul(10).saturating_add(i64::from(d - b'0'))
    });
    Some(if negative {
        delta_seconds.saturating_neg()
    } else {
        delta_seconds
    })
}

/// The rest of [§5.2.2](https://www.rfc-editor.org/rfc/rfc6265#section-5.2.2): the
/// expiry-time of a `Max-Age` of `delta_seconds` received at time `now`.
fn max_age_expiry_time(delta_seconds: i64, now: i64) -> i64 {
    // If delta-seconds is less than or equal to zero (0), let expiry-time be the earliest
    // representable date and time. Otherwise, let the expiry-time be the current date and
    // time plus delta-seconds seconds.
    if delta_seconds <= 0 {
        i64::MIN
    } else {
        now.saturating_add(delta_seconds)
    }
}

/// [§5.1.1 Dates](https://www.rfc-editor.org/rfc/rfc6265#section-5.1.1): a cookie-date as
/// seconds since the Unix epoch, or `None` on failure.
fn parse_cookie_date(cookie_date: &[u8]) -> Option<i64> {
    // delimiter = %x09 / %x20-2F / %x3B-40 / %x5B-60 / %x7B-7E
    let is_delimiter =
        |b: &u8| matches!(*b, 0x09 | 0x20..=0x2F | 0x3B..=0x40 | 0x5B..=0x60 | 0x7B..=0x7E);
    let mut time: Option<(u32, u32, u32)> = None;
    let mut day_of_month: Option<u32> = None;
    let mut month: Option<u32> = None;
    let mut year: Option<u32> = None;
    // Step 1. Using the grammar below, divide the cookie-date into date-tokens.
    // Step 2. Process each date-token sequentially in the order the date-tokens appear.
    for token in cookie_date.split(is_delimiter).filter(|t| !t.is_empty()) {
        // Step 2.1. If the found-time flag is not set and the token matches the time
        // production, set the found-time flag and the hour-, minute- and second-value.
        if time.is_none() {
            if let Some(found) = parse_time(token) {
                time = Some(found);
                continue;
            }
        }
        // Step 2.2. If the found-day-of-month flag is not set and the date-token matches
        // the day-of-month production (1*2DIGIT ( non-digit *OCTET )).
        if day_of_month.is_none() {
            if let Some(found) = leading_digits(token, 1, 2) {
                day_of_month = Some(found);
                continue;
            }
        }
        // Step 2.3. If the found-month flag is not set and the date-token matches the
        // month production, set the month-value to the month denoted by the date-token.
        if month.is_none() {
            if let Some(found) = parse_month(token) {
                month = Some(found);
                continue;
            }
        }
        // Step 2.4. If the found-year flag is not set and the date-token matches the year
        // production (2*4DIGIT ( non-digit *OCTET )).
        if year.is_none() {
            if let Some(found) = leading_digits(token, 2, 4) {
                year = Some(found);
                continue;
            }
        }
    }
    let mut year = year?;
    // Step 3. If the year-value is greater than or equal to 70 and less than or equal to
    // 99, increment the year-value by 1900.
    if (70..=99).contains(&year) {
        year += 1900;
    }
    // Step 4. If the year-value is greater than or equal to 0 and less than or equal to
    // 69, increment the year-value by 2000.
    if year <= 69 {
        year += 2000;
    }
    // Step 5. Abort these steps and fail to parse the cookie-date if: at least one of the
    // found-day-of-month, found-month, found-year, or found-time flags is not set; the
    // day-of-month-value is less than 1 or greater than 31; the year-value is less than
    // 1601; the hour-value is greater than 23; the minute-value is greater than 59; the
    // second-value is greater than 59.
    let (hour, minute, second) = time?;
    let day = day_of_month?;
    let month = month?;
    if !(1..=31).contains(&day) || year < 1601 || hour > 23 || minute > 59 || second > 59 {
        return None;
    }
    // Step 6. Let the parsed-cookie-date be the date whose day-of-month, month, year,
    // hour, minute, and second (in UTC) are the values above. If no such date exists,
    // abort these steps and fail to parse the cookie-date.
    if day > days_in_month(i64::from(year), month) {
        return None;
    }
    // Step 7. Return the parsed-cookie-date as the result of this algorithm.
    let days = days_from_civil(i64::from(year), i64::from(month), i64::from(day));
    Some(days * 86_400 + i64::from(hour * 3600 + minute * 60 + second))
}

/// `min`–`max` digits at the start of `token`, followed by nothing or a non-digit.
fn leading_digits(token: &[u8], min: usize, max: usize) -> Option<u32> {
    let count = token.iter().take_while(|b| b.is_ascii_digit()).count();
    if count < min || count > max {
        return None;
    }
    token
        .get(..count)?
        .iter()
        .try_fold(0u32, |n, &d| Some(n * 10 + u32::from(d - b'0')))
}

/// The time production: hms-time = time-field ":" time-field ":" time-field, time-field =
/// 1*2DIGIT, then nothing or a non-digit and anything.
fn parse_time(token: &[u8]) -> Option<(u32, u32, u32)> {
    let mut fields = [0u32; 3];
    let mut rest = token;
    for (i, field) in fields.iter_mut().enumerate() {
        let count = rest.iter().take_while(|b| b.is_ascii_digit()).count();
        if !(1..=2).contains(&count) {
            return None;
        }
        *field = leading_digits(rest, 1, 2)?;
        rest = rest.get(count..)?;
        if i < 2 {
            rest = rest.strip_prefix(b":")?;
        }
    }
    Some((fields[0], fields[1], fields[2]))
}

/// The month production: the first three characters name a month, case-insensitively.
fn parse_month(token: &[u8]) -> Option<u32> {
    const MONTHS: [&[u8; 3]; 12] = [
        b"jan", b"feb", b"mar", b"apr", b"may", b"jun", b"jul", b"aug", b"sep", b"oct", b"nov",
        b"dec",
    ];
    let prefix = token.get(..3)?.to_ascii_lowercase();
    MONTHS
        .iter()
        .position(|m| m.as_slice() == prefix.as_slice())
        .and_then(|i| u32::try_from(i + 1).ok())
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    const NOW: i64 = 1_700_000_000;

    fn url(s: &str) -> Url {
        Url::parse(s).unwrap()
    }

    fn header(store: &CookieStore, u: &str, now: i64) -> Option<String> {
        store
            .cookie_string_at(&url(u), now)
            .map(|v| String::from_utf8(v).unwrap())
    }

    #[test]
    fn parses_name_value_and_attributes() {
        let c = parse_set_cookie(
            b" a = b c ; Path=/x; DOMAIN=.Example.COM; secure; HttpOnly; SameSite=lax; Max-Age=10",
        )
        .unwrap();
        assert_eq!(c.name, b"a");
        assert_eq!(c.value, b"b c");
        assert_eq!(c.path.as_deref(), Some(&b"/x"[..]));
        assert_eq!(c.domain.as_deref(), Some("example.com"));
        assert!(c.secure && c.http_only);
        assert_eq!(c.same_site, SameSite::Lax);
        assert_eq!(c.max_age, Some(10));
    }

    #[test]
    fn ignores_what_the_rfc_ignores() {
        assert_eq!(parse_set_cookie(b"novalue"), None);
        assert_eq!(parse_set_cookie(b"=v"), None);
        assert_eq!(parse_set_cookie(b"a=b\x01"), None);
        assert!(parse_set_cookie(b"a=").is_some());
        // A relative Path is the default path; an empty Domain is ignored.
        let c = parse_set_cookie(b"a=b; Path=rel; Domain=").unwrap();
        assert_eq!((c.path, c.domain), (None, None));
        // Bad Max-Age values are ignored.
        for bad in ["+5", "5s", "", "1.5"] {
            let c = parse_set_cookie(format!("a=b; Max-Age={bad}").as_bytes()).unwrap();
            assert_eq!(c.max_age, None, "{bad}");
        }
    }

    #[test]
    fn parses_cookie_dates() {
        let expected = 784_111_777; // 1994-11-06 08:49:37 UTC
        for date in [
            "Sun, 06 Nov 1994 08:49:37 GMT",
            "Sunday, 06-Nov-94 08:49:37 GMT",
            "Sun Nov  6 08:49:37 1994",
            "6 nov 1994 8:49:37",
        ] {
            assert_eq!(parse_cookie_date(date.as_bytes()), Some(expected), "{date}");
        }
        assert_eq!(parse_cookie_date(b"Thu, 01 Jan 1970 00:00:00 GMT"), Some(0));
        assert_eq!(
            parse_cookie_date(b"Wed, 01 Jan 2070 00:00:00 GMT"),
            Some(3_155_760_000)
        );
        for bad in [
            "",
            "31 Feb 2000 00:00:00",
            "32 Jan 2000 00:00:00",
            "01 Jan 1600 00:00:00",
            "01 Jan 2000 24:00:00",
            "01 Jan 2000",
            "01 Foo 2000 00:00:00",
        ] {
            assert_eq!(parse_cookie_date(bad.as_bytes()), None, "{bad}");
        }
    }

    #[test]
    fn default_path_and_path_match() {
        assert_eq!(default_path(&url("http://a/")), b"/");
        assert_eq!(default_path(&url("http://a/x")), b"/");
        assert_eq!(default_path(&url("http://a/x/y")), b"/x");
        assert_eq!(default_path(&url("http://a/x/y/")), b"/x/y");
        assert!(path_match(b"/x", b"/x"));
        assert!(path_match(b"/x/y", b"/x"));
        assert!(path_match(b"/x/y", b"/x/"));
        assert!(path_match(b"/anything", b"/"));
        assert!(!path_match(b"/xy", b"/x"));
        assert!(!path_match(b"/", b"/x"));
    }

    #[test]
    fn stores_and_sends_with_sorting() {
        let store = CookieStore::default();
        let u = url("http://example.com/a/b/c");
        store.set_cookie_at(&u, b"first=1; Path=/", NOW);
        store.set_cookie_at(&u, b"deep=2; Path=/a/b", NOW);
        store.set_cookie_at(&u, b"second=3", NOW); // default path /a/b
        assert_eq!(
            header(&store, "http://example.com/a/b/c", NOW).as_deref(),
            Some("deep=2; second=3; first=1")
        );
        assert_eq!(
            header(&store, "http://example.com/", NOW).as_deref(),
            Some("first=1")
        );
        assert_eq!(header(&store, "http://other.com/", NOW), None);
        assert_eq!(store.len(), 3);
        store.clear();
        assert!(store.is_empty());
    }

    #[test]
    fn replaces_same_name_domain_and_path_keeping_creation_time() {
        let store = CookieStore::default();
        let u = url("http://example.com/");
        store.set_cookie_at(&u, b"a=1", NOW);
        store.set_cookie_at(&u, b"b=2", NOW);
        store.set_cookie_at(&u, b"a=3", NOW);
        assert_eq!(
            header(&store, "http://example.com/", NOW).as_deref(),
            Some("a=3; b=2")
        );
        // Another path is another cookie.
        store.set_cookie_at(&u, b"a=4; Path=/p", NOW);
        assert_eq!(store.cookies_by_creation().len(), 3);
    }

    #[test]
    fn expiry_and_deletion() {
        let store = CookieStore::default();
        let u = url("http://example.com/");
        store.set_cookie_at(&u, b"a=1; Max-Age=10", NOW);
        store.set_cookie_at(&u, b"b=2; Expires=Thu, 01 Jan 1970 00:00:00 GMT", NOW);
        // Max-Age wins over Expires.
        store.set_cookie_at(
            &u,
            b"c=3; Expires=Thu, 01 Jan 1970 00:00:00 GMT; Max-Age=100",
            NOW,
        );
        store.set_cookie_at(
            &u,
            b"d=4; Max-Age=100; Expires=Thu, 01 Jan 1970 00:00:00 GMT",
            NOW,
        );
        assert_eq!(
            header(&store, "http://example.com/", NOW).as_deref(),
            Some("a=1; c=3; d=4")
        );
        assert_eq!(
            header(&store, "http://example.com/", NOW + 10).as_deref(),
            Some("c=3; d=4")
        );
        // Max-Age=0 or negative deletes.
        store.set_cookie_at(&u, b"c=x; Max-Age=0", NOW);
        store.set_cookie_at(&u, b"d=x; Max-Age=-1", NOW);
        assert_eq!(header(&store, "http://example.com/", NOW), None);
    }

    #[test]
    fn public_suffixes_are_rejected_as_cookie_domains() {
        let store = CookieStore::default();
        store.set_cookie_at(&url("http://www.example.com/"), b"a=1; Domain=com", NOW);
        store.set_cookie_at(
            &url("http://shop.example.co.uk/"),
            b"b=2; Domain=co.uk",
            NOW,
        );
        store.set_cookie_at(
            &url("http://user.github.io/"),
            b"c=3; Domain=github.io",
            NOW,
        );
        assert!(store.is_empty(), "no cookie for a public suffix");
        // The registrable domain itself is fine.
        store.set_cookie_at(
            &url("http://shop.example.co.uk/"),
            b"d=4; Domain=example.co.uk",
            NOW,
        );
        assert_eq!(
            header(&store, "http://other.example.co.uk/", NOW).as_deref(),
            Some("d=4")
        );
        assert_eq!(header(&store, "http://example2.co.uk/", NOW), None);
        // A public suffix that is the request host itself gives a host-only cookie.
        let store = CookieStore::default();
        store.set_cookie_at(&url("http://localhost/"), b"e=5; Domain=localhost", NOW);
        assert_eq!(
            header(&store, "http://localhost/", NOW).as_deref(),
            Some("e=5")
        );
        assert_eq!(header(&store, "http://a.localhost/", NOW), None);
        assert!(is_public_suffix("com") && is_public_suffix("co.uk") && is_public_suffix("com."));
        assert!(!is_public_suffix("example.com") && !is_public_suffix("127.0.0.1"));
    }

    #[test]
    fn host_only_and_domain_cookies() {
        let store = CookieStore::default();
        let sub = url("http://www.example.com/");
        store.set_cookie_at(&sub, b"host=1", NOW);
        store.set_cookie_at(&sub, b"dom=2; Domain=example.com", NOW);
        // A Domain the request host does not domain-match is rejected.
        store.set_cookie_at(&sub, b"bad=3; Domain=other.com", NOW);
        store.set_cookie_at(&sub, b"bad=4; Domain=ww.example.com", NOW);
        assert_eq!(
            header(&store, "http://www.example.com/", NOW).as_deref(),
            Some("host=1; dom=2")
        );
        assert_eq!(
            header(&store, "http://example.com/", NOW).as_deref(),
            Some("dom=2")
        );
        assert_eq!(
            header(&store, "http://a.b.example.com/", NOW).as_deref(),
            Some("dom=2")
        );
        assert_eq!(header(&store, "http://notexample.com/", NOW), None);
        // IP addresses only match themselves.
        let ip = url("http://127.0.0.1/");
        store.set_cookie_at(&ip, b"ip=1; Domain=0.0.1", NOW);
        store.set_cookie_at(&ip, b"ip=2; Domain=127.0.0.1", NOW);
        assert_eq!(
            header(&store, "http://127.0.0.1/", NOW).as_deref(),
            Some("ip=2")
        );
    }

    #[test]
    fn secure_cookies() {
        let store = CookieStore::default();
        store.set_cookie_at(&url("http://example.com/"), b"a=1; Secure", NOW);
        assert!(store.is_empty());
        store.set_cookie_at(&url("https://example.com/"), b"a=1; Secure", NOW);
        store.set_cookie_at(&url("https://example.com/"), b"b=2", NOW);
        assert_eq!(
            header(&store, "http://example.com/", NOW).as_deref(),
            Some("b=2")
        );
        assert_eq!(
            header(&store, "https://example.com/", NOW).as_deref(),
            Some("a=1; b=2")
        );
    }

    #[test]
    fn urls_without_a_host_have_no_cookies() {
        let store = CookieStore::default();
        store.set_cookie_at(&url("data:,x"), b"a=1", NOW);
        assert!(store.is_empty());
        assert_eq!(header(&store, "data:,x", NOW), None);
    }

    /// How many cookies the jar holds, without sweeping at the real time.
    fn count(store: &CookieStore) -> usize {
        store.jar().len
    }

    /// The names of the stored cookies, in creation order.
    fn names(store: &CookieStore) -> Vec<String> {
        store
            .cookies_by_creation()
            .into_iter()
            .map(|c| String::from_utf8(c.name).unwrap())
            .collect()
    }

    fn limits(max_per_domain: usize, purge_per_domain_to: usize) -> CookieLimits {
        CookieLimits {
            max_per_domain,
            purge_per_domain_to,
            ..CookieLimits::default()
        }
    }

    #[test]
    fn default_limits_are_chromes() {
        let limits = CookieStore::default().limits();
        assert_eq!(
            (
                limits.max_per_domain,
                limits.purge_per_domain_to,
                limits.max_total,
                limits.purge_total_to
            ),
            (180, 150, 3300, 3000)
        );
    }

    #[test]
    fn a_cookie_over_4096_bytes_of_name_and_value_is_ignored() {
        let store = CookieStore::default();
        let u = url("http://example.com/");
        // 4096 bytes in all is kept, whitespace around them not counted.
        let fits = format!("n= {} ; Path=/", "v".repeat(4095));
        store.set_cookie_at(&u, fits.as_bytes(), NOW);
        assert_eq!(count(&store), 1);
        // One more byte, in the name or in the value, and it is ignored entirely: it
        // neither stores nor replaces the cookie of the same name.
        store.set_cookie_at(&u, format!("n={}", "v".repeat(4096)).as_bytes(), NOW);
        store.set_cookie_at(&u, format!("{}=v", "n".repeat(4096)).as_bytes(), NOW);
        store.set_cookie_at(
            &u,
            format!("big={}; Path=/", "x".repeat(350 * 1024)).as_bytes(),
            NOW,
        );
        let cookies = store.cookies_by_creation();
        assert_eq!(cookies.len(), 1);
        assert_eq!(cookies[0].value.len(), 4095);
        assert_eq!(store.stored_bytes(), 1 + 4095 + "example.com".len() + 1);
    }

    #[test]
    fn an_attribute_value_over_1024_bytes_is_ignored() {
        let long = "x".repeat(1025);
        let c = parse_set_cookie(
            format!(
                "a=b; Path=/kept; Path=/{long}; Domain=example.com; Domain={long}.example.com; \
                 Max-Age=10; Max-Age=1{long}; SameSite=Lax; SameSite={long}"
            )
            .as_bytes(),
        )
        .unwrap();
        // The last attribute of each name whose value fits is the one that counts.
        assert_eq!(c.path.as_deref(), Some(&b"/kept"[..]));
        assert_eq!(c.domain.as_deref(), Some("example.com"));
        assert_eq!(c.max_age, Some(10));
        assert_eq!(c.same_site, SameSite::Lax);
        // 1024 bytes is kept.
        let path = format!("/{}", "p".repeat(1023));
        let c = parse_set_cookie(format!("a=b; Path={path}").as_bytes()).unwrap();
        assert_eq!(c.path.as_deref(), Some(path.as_bytes()));
    }

    #[test]
    fn a_cookie_whose_default_path_or_host_is_over_1024_bytes_is_ignored() {
        let store = CookieStore::default();
        let deep = format!("http://example.com/{}/page", "d".repeat(1100));
        store.set_cookie_at(&url(&deep), b"a=1", NOW);
        assert_eq!(count(&store), 0);
        // With a Path attribute, the long URL path does not matter.
        store.set_cookie_at(&url(&deep), b"a=1; Path=/", NOW);
        assert_eq!(count(&store), 1);
        let long_host = format!("http://{}.example.com/", "h".repeat(1100));
        store.set_cookie_at(&url(&long_host), b"b=2", NOW);
        assert_eq!(count(&store), 1);
        assert_eq!(header(&store, &long_host, NOW), None);
    }

    #[test]
    fn a_header_of_many_attributes_parses_to_the_last_of_each() {
        // Work is linear in the header's length: 100,000 attributes, empty or unknown.
        let mut value = b"a=b; Path=/first".to_vec();
        for _ in 0..50_000 {
            value.extend_from_slice(b"; ;x-unknown-attribute=1");
        }
        value.extend_from_slice(b"; PATH=/last; HTTPONLY");
        let c = parse_set_cookie(&value).unwrap();
        assert_eq!(c.path.as_deref(), Some(&b"/last"[..]));
        assert!(c.http_only);
    }

    #[test]
    fn past_the_per_domain_limit_the_least_recently_used_go_down_to_the_lower_mark() {
        let store = CookieStore::default();
        let u = url("http://www.example.com/");
        for i in 0..180 {
            store.set_cookie_at(&u, format!("c{i}=v").as_bytes(), NOW);
        }
        assert_eq!(count(&store), 180);
        // Setting c0..c9 again makes them recently used.
        for i in 0..10 {
            store.set_cookie_at(&u, format!("c{i}=w").as_bytes(), NOW);
        }
        assert_eq!(count(&store), 180);
        store.set_cookie_at(&u, b"new=1", NOW);
        assert_eq!(count(&store), 150, "181 > 180 purges to 150");
        // The 31 least recently used went: c10..c40.
        let kept = names(&store);
        for i in (0..10).chain(41..180) {
            assert!(kept.contains(&format!("c{i}")), "c{i} kept");
        }
        assert!(kept.contains(&"new".to_owned()));
        // Another site's cookies are untouched.
        store.set_cookie_at(&url("http://other.org/"), b"o=1", NOW);
        assert_eq!(
            header(&store, "http://other.org/", NOW).as_deref(),
            Some("o=1")
        );
    }

    #[test]
    fn the_per_domain_limit_counts_the_registrable_domain() {
        let store = CookieStore::with_limits(limits(3, 3));
        // Host-only cookies of two subdomains and a Domain cookie: all example.com's.
        store.set_cookie_at(&url("http://a.example.com/"), b"a=1", NOW);
        store.set_cookie_at(&url("http://b.example.com/"), b"b=2", NOW);
        store.set_cookie_at(
            &url("http://c.example.com/"),
            b"c=3; Domain=example.com",
            NOW,
        );
        // Other registrable domains count on their own, public-suffix hosts and IP
        // addresses alone.
        store.set_cookie_at(&url("http://example.co.uk/"), b"d=4", NOW);
        store.set_cookie_at(&url("http://other.co.uk/"), b"e=5", NOW);
        store.set_cookie_at(&url("http://localhost/"), b"f=6", NOW);
        store.set_cookie_at(&url("http://127.0.0.1/"), b"g=7", NOW);
        store.set_cookie_at(&url("http://127.0.0.2/"), b"h=8", NOW);
        store.set_cookie_at(&url("http://[::1]/"), b"i=9", NOW);
        assert_eq!(count(&store), 9);
        // A fourth example.com cookie evicts the least recently used of the three.
        store.set_cookie_at(&url("http://d.example.com/"), b"j=10", NOW);
        assert_eq!(count(&store), 9);
        assert!(!names(&store).contains(&"a".to_owned()));
        assert_eq!(
            header(&store, "http://c.example.com/", NOW).as_deref(),
            Some("c=3")
        );
        assert_eq!(header(&store, "http://[::1]/", NOW).as_deref(), Some("i=9"));
    }

    #[test]
    fn sending_a_cookie_makes_it_recently_used() {
        let store = CookieStore::with_limits(limits(3, 3));
        let u = url("http://example.com/");
        store.set_cookie_at(&u, b"a=1; Path=/a", NOW);
        store.set_cookie_at(&u, b"b=2; Path=/b", NOW);
        store.set_cookie_at(&u, b"c=3; Path=/c", NOW);
        // a and b are sent (in that order of time); c is now the least recently used.
        assert_eq!(
            header(&store, "http://example.com/a", NOW).as_deref(),
            Some("a=1")
        );
        assert_eq!(
            header(&store, "http://example.com/b", NOW).as_deref(),
            Some("b=2")
        );
        store.set_cookie_at(&u, b"d=4", NOW);
        assert_eq!(names(&store), ["a", "b", "d"]);
        // Then a is the least recently used.
        store.set_cookie_at(&u, b"e=5", NOW);
        assert_eq!(names(&store), ["b", "d", "e"]);
        // Replacing a cookie uses it too.
        store.set_cookie_at(&u, b"b=22; Path=/b", NOW);
        store.set_cookie_at(&u, b"f=6", NOW);
        assert_eq!(names(&store), ["b", "e", "f"]);
    }

    #[test]
    fn a_crowded_domain_loses_non_secure_cookies_before_secure_ones() {
        let store = CookieStore::with_limits(limits(4, 2));
        let https = url("https://example.com/");
        let http = url("http://example.com/");
        store.set_cookie_at(&https, b"s1=1; Secure", NOW);
        store.set_cookie_at(&https, b"s2=1; Secure", NOW);
        store.set_cookie_at(&http, b"n1=1", NOW);
        store.set_cookie_at(&http, b"n2=1", NOW);
        // Five is over four: three go, both non-secure ones first, although the secure
        // ones are older, then the least recently used secure one.
        store.set_cookie_at(&https, b"s3=1; Secure", NOW);
        assert_eq!(names(&store), ["s2", "s3"]);
    }

    #[test]
    fn expired_cookies_are_evicted_before_any_live_one() {
        let store = CookieStore::with_limits(limits(3, 1));
        let u = url("http://example.com/");
        store.set_cookie_at(&u, b"old=1", NOW);
        store.set_cookie_at(&u, b"short=1; Max-Age=10", NOW);
        store.set_cookie_at(&u, b"mid=1", NOW);
        // At NOW + 10 the short-lived cookie has expired: it goes, and the fourth cookie
        // fits without any live cookie being purged.
        store.set_cookie_at(&u, b"new=1", NOW + 10);
        assert_eq!(names(&store), ["old", "mid", "new"]);
        assert_eq!(count(&store), 3);
    }

    #[test]
    fn past_the_total_limit_the_least_recently_used_of_all_sites_go() {
        let store = CookieStore::default();
        // 3300 cookies over 33 sites, 100 each: at the limit, nothing purged.
        for site in 0..33 {
            let u = url(&format!("http://site{site}.example/"));
            for i in 0..100 {
                store.set_cookie_at(&u, format!("c{i}=v").as_bytes(), NOW);
            }
        }
        assert_eq!(count(&store), 3300);
        // site0 is used again: its cookies are now the most recently used.
        assert!(header(&store, "http://site0.example/", NOW).is_some());
        store.set_cookie_at(&url("http://new.example/"), b"n=1", NOW);
        // 3301 > 3300 purges to 3000: the 301 least recently used are the cookies of
        // site1, site2 and site3 and the first of site4's.
        assert_eq!(count(&store), 3000);
        for site in 1..=3 {
            assert!(header(&store, &format!("http://site{site}.example/"), NOW).is_none());
        }
        assert_eq!(
            header(&store, "http://site4.example/", NOW)
                .unwrap()
                .split("; ")
                .count(),
            99
        );
        assert_eq!(
            header(&store, "http://site0.example/", NOW)
                .unwrap()
                .split("; ")
                .count(),
            100
        );
        assert_eq!(
            header(&store, "http://new.example/", NOW).as_deref(),
            Some("n=1")
        );
        let bytes: usize = store
            .cookies_by_creation()
            .iter()
            .map(Cookie::text_bytes)
            .sum();
        assert_eq!(store.jar().bytes, bytes);
    }

    #[test]
    fn many_sites_setting_many_cookies_stay_under_both_limits() {
        let store = CookieStore::default();
        for round in 0..10 {
            for site in 0..60 {
                let u = url(&format!("http://www.site{site}.example/"));
                for i in 0..95 {
                    let value = format!("r{round}c{i}=v; Domain=site{site}.example");
                    store.set_cookie_at(&u, value.as_bytes(), NOW);
                    let jar = store.jar();
                    assert!(jar.len <= 3300);
                    assert!(jar.groups.values().all(|group| group.len() <= 180));
                }
            }
        }
        let bytes: usize = store
            .cookies_by_creation()
            .iter()
            .map(Cookie::text_bytes)
            .sum();
        assert_eq!(store.jar().bytes, bytes);
    }

    #[test]
    fn stored_bytes_follow_replacement_expiry_and_clear() {
        let store = CookieStore::default();
        let u = url("http://example.com/");
        let size = |name: &str, value: &str| name.len() + value.len() + "example.com/".len();
        store.set_cookie_at(&u, b"a=1", NOW);
        store.set_cookie_at(&u, b"b=22", NOW);
        assert_eq!(store.jar().bytes, size("a", "1") + size("b", "22"));
        store.set_cookie_at(&u, b"a=4444", NOW);
        assert_eq!(store.jar().bytes, size("a", "4444") + size("b", "22"));
        store.set_cookie_at(&u, b"a=x; Max-Age=0", NOW);
        assert_eq!(store.jar().bytes, size("b", "22"));
        store.clear();
        assert_eq!((store.stored_bytes(), store.len()), (0, 0));
    }

    #[test]
    fn limits_of_zero_keep_nothing_and_low_marks_above_the_limit_act_as_the_limit() {
        let store = CookieStore::with_limits(CookieLimits {
            max_total: 0,
            ..CookieLimits::default()
        });
        store.set_cookie_at(&url("http://example.com/"), b"a=1", NOW);
        assert_eq!(count(&store), 0);
        let store = CookieStore::with_limits(limits(2, 10));
        for name in ["a", "b", "c"] {
            store.set_cookie_at(
                &url("http://example.com/"),
                format!("{name}=1").as_bytes(),
                NOW,
            );
        }
        assert_eq!(names(&store), ["b", "c"]);
    }

    proptest! {
        #[test]
        fn never_panics_on_any_set_cookie(value in proptest::collection::vec(any::<u8>(), 0..200)) {
            let store = CookieStore::default();
            let u = url("https://www.example.com/a/b");
            store.set_cookie_from_header(&u, &value);
            if let Some(header) = store.cookie_header_for(&u) {
                prop_assert!(http::HeaderValue::from_bytes(&header).is_ok());
            }
            let _ = parse_cookie_date(&value);
        }

        #[test]
        fn never_panics_on_attribute_soup(
            attrs in proptest::collection::vec(
                ("(?i)(expires|max-age|domain|path|secure|httponly|samesite|x)", "[ -~]{0,30}"),
                0..6,
            ),
        ) {
            let mut value = b"n=v".to_vec();
            for (name, v) in attrs {
                value.extend_from_slice(format!("; {name}={v}").as_bytes());
            }
            let store = CookieStore::default();
            store.set_cookie_from_header(&url("https://www.example.com/"), &value);
            let _ = store.cookie_header_for(&url("https://www.example.com/"));
        }
    }
}
