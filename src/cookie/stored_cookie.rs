//! The cookies of a [`CookieStore`] as a caller reads them: [`CookieStore::cookies`] lists
//! them as [`StoredCookie`]s, copies with the fields of
//! [RFC 6265 §5.3](https://www.rfc-editor.org/rfc/rfc6265#section-5.3), and
//! [`CookieStore::remove`] deletes one by its name, domain and path, the three that make a
//! cookie the one it is (RFC 6265 §5.3 step 11).

use std::fmt;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{Cookie, CookieStore, Jar, SameSite, limit_key, now};

/// A cookie of a [`CookieStore`], as [`CookieStore::cookies`] lists it: a read-only copy
/// taken when the list was made, with the fields of
/// [RFC 6265 §5.3](https://www.rfc-editor.org/rfc/rfc6265#section-5.3).
///
/// A cookie's name, value and path are bytes (a server may send any but control
/// characters); [`name`](Self::name), [`value`](Self::value) and [`path`](Self::path) give
/// them as `&str` when they are UTF-8, and the `_bytes` methods as they are.
///
/// ```
/// use url::Url;
/// use whatwg_fetch::cookie::{CookieStore, SameSite};
///
/// let store = CookieStore::default();
/// let url = Url::parse("https://www.example.com/account").unwrap();
/// store.set_cookie_from_header(&url, b"sid=abc; Secure; HttpOnly; SameSite=Lax");
/// let cookies = store.cookies();
/// let sid = &cookies[0];
/// assert_eq!((sid.name(), sid.value()), (Some("sid"), Some("abc")));
/// assert_eq!((sid.domain(), sid.path()), ("www.example.com", Some("/")));
/// assert!(sid.is_session() && sid.secure() && sid.http_only() && sid.host_only());
/// assert_eq!(sid.same_site(), SameSite::Lax);
/// ```
///
/// Two are equal when every field is, the store's orders of creation and of last use
/// included: the same cookie listed before and after it was sent differs.
#[derive(Clone, PartialEq, Eq)]
pub struct StoredCookie {
    cookie: Cookie,
}

impl StoredCookie {
    /// The cookie's name, when it is UTF-8 (see [`name_bytes`](Self::name_bytes)).
    ///
    /// ```
    /// # use url::Url;
    /// # use whatwg_fetch::cookie::CookieStore;
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://example.com/").unwrap();
    /// store.set_cookie_from_header(&url, b"theme=dark");
    /// store.set_cookie_from_header(&url, b"\xff=1");
    /// let names: Vec<_> = store.cookies().iter().map(|c| c.name().map(str::to_owned)).collect();
    /// assert_eq!(names, [Some("theme".to_owned()), None]);
    /// ```
    pub fn name(&self) -> Option<&str> {
        std::str::from_utf8(&self.cookie.name).ok()
    }

    /// The cookie's name as the server sent it, whitespace around it trimmed.
    ///
    /// ```
    /// # use url::Url;
    /// # use whatwg_fetch::cookie::CookieStore;
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://example.com/").unwrap();
    /// store.set_cookie_from_header(&url, b"\xff=1");
    /// assert_eq!(store.cookies()[0].name_bytes(), b"\xff");
    /// ```
    pub fn name_bytes(&self) -> &[u8] {
        &self.cookie.name
    }

    /// The cookie's value, when it is UTF-8 (see [`value_bytes`](Self::value_bytes)).
    ///
    /// ```
    /// # use url::Url;
    /// # use whatwg_fetch::cookie::CookieStore;
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://example.com/").unwrap();
    /// store.set_cookie_from_header(&url, "greeting=h\u{e9}".as_bytes());
    /// assert_eq!(store.cookies()[0].value(), Some("h\u{e9}"));
    /// ```
    pub fn value(&self) -> Option<&str> {
        std::str::from_utf8(&self.cookie.value).ok()
    }

    /// The cookie's value as the server sent it, whitespace around it trimmed; it may be
    /// empty.
    ///
    /// ```
    /// # use url::Url;
    /// # use whatwg_fetch::cookie::CookieStore;
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://example.com/").unwrap();
    /// store.set_cookie_from_header(&url, b"raw=\xfe\xff");
    /// assert_eq!(store.cookies()[0].value_bytes(), b"\xfe\xff");
    /// ```
    pub fn value_bytes(&self) -> &[u8] {
        &self.cookie.value
    }

    /// The cookie's domain: the host that set it for a [host-only](Self::host_only) cookie,
    /// else its `Domain` attribute (lowercase, without a leading `.`), which subdomains
    /// match too.
    ///
    /// ```
    /// # use url::Url;
    /// # use whatwg_fetch::cookie::CookieStore;
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://www.example.com/").unwrap();
    /// store.set_cookie_from_header(&url, b"site=1; Domain=.Example.com");
    /// let cookie = &store.cookies()[0];
    /// assert_eq!((cookie.domain(), cookie.host_only()), ("example.com", false));
    /// ```
    pub fn domain(&self) -> &str {
        &self.cookie.domain
    }

    /// The cookie's path, when it is UTF-8 (see [`path_bytes`](Self::path_bytes)): its
    /// `Path` attribute, or the
    /// [default-path](https://www.rfc-editor.org/rfc/rfc6265#section-5.1.4) of the URL
    /// that set it.
    ///
    /// ```
    /// # use url::Url;
    /// # use whatwg_fetch::cookie::CookieStore;
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://example.com/shop/cart").unwrap();
    /// store.set_cookie_from_header(&url, b"cart=3");
    /// assert_eq!(store.cookies()[0].path(), Some("/shop"));
    /// ```
    pub fn path(&self) -> Option<&str> {
        std::str::from_utf8(&self.cookie.path).ok()
    }

    /// The cookie's path as bytes; it always starts with `/`.
    ///
    /// ```
    /// # use url::Url;
    /// # use whatwg_fetch::cookie::CookieStore;
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://example.com/").unwrap();
    /// store.set_cookie_from_header(&url, b"a=1; Path=/docs");
    /// assert_eq!(store.cookies()[0].path_bytes(), b"/docs");
    /// ```
    pub fn path_bytes(&self) -> &[u8] {
        &self.cookie.path
    }

    /// When the cookie expires (its expiry-time, from `Max-Age` or else `Expires`), or
    /// `None` for a [session cookie](Self::is_session). A listed cookie has not expired
    /// when the list was made.
    ///
    /// ```
    /// # use std::time::{Duration, SystemTime};
    /// # use url::Url;
    /// # use whatwg_fetch::cookie::CookieStore;
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://example.com/").unwrap();
    /// store.set_cookie_from_header(&url, b"a=1; Expires=Wed, 01 Jan 2070 00:00:00 GMT");
    /// let expires = store.cookies()[0].expires().unwrap();
    /// assert_eq!(expires, SystemTime::UNIX_EPOCH + Duration::from_secs(3_155_760_000));
    /// ```
    pub fn expires(&self) -> Option<SystemTime> {
        self.cookie.expiry_time.map(system_time)
    }

    /// Whether this is a session cookie: one set without `Max-Age` or `Expires` (its
    /// persistent-flag is false), which a browser forgets when it closes and this store
    /// keeps as long as it lives ([`CookieStore::save_json`] saves it too).
    ///
    /// ```
    /// # use url::Url;
    /// # use whatwg_fetch::cookie::CookieStore;
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://example.com/").unwrap();
    /// store.set_cookie_from_header(&url, b"sid=1");
    /// store.set_cookie_from_header(&url, b"lang=en; Max-Age=86400");
    /// let sessions: Vec<bool> = store.cookies().iter().map(|c| c.is_session()).collect();
    /// assert_eq!(sessions, [true, false]);
    /// ```
    pub fn is_session(&self) -> bool {
        self.cookie.expiry_time.is_none()
    }

    /// Whether the cookie was set with `Secure` (its secure-only-flag): it is sent over
    /// `https:` only.
    ///
    /// ```
    /// # use url::Url;
    /// # use whatwg_fetch::cookie::CookieStore;
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://example.com/").unwrap();
    /// store.set_cookie_from_header(&url, b"a=1; Secure");
    /// assert!(store.cookies()[0].secure());
    /// ```
    pub fn secure(&self) -> bool {
        self.cookie.secure_only
    }

    /// Whether the cookie was set with `HttpOnly` (its http-only-flag). Kept, but it
    /// changes nothing here: every caller of this store is an HTTP API.
    ///
    /// ```
    /// # use url::Url;
    /// # use whatwg_fetch::cookie::CookieStore;
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://example.com/").unwrap();
    /// store.set_cookie_from_header(&url, b"a=1; HttpOnly");
    /// assert!(store.cookies()[0].http_only());
    /// ```
    pub fn http_only(&self) -> bool {
        self.cookie.http_only
    }

    /// Whether the cookie is sent to its [domain](Self::domain) only (its host-only-flag:
    /// set without a `Domain` attribute), not to subdomains.
    ///
    /// ```
    /// # use url::Url;
    /// # use whatwg_fetch::cookie::CookieStore;
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://www.example.com/").unwrap();
    /// store.set_cookie_from_header(&url, b"a=1");
    /// store.set_cookie_from_header(&url, b"b=2; Domain=example.com");
    /// let host_only: Vec<bool> = store.cookies().iter().map(|c| c.host_only()).collect();
    /// // Listed by domain: example.com's cookie first.
    /// assert_eq!(host_only, [false, true]);
    /// ```
    pub fn host_only(&self) -> bool {
        self.cookie.host_only
    }

    /// The cookie's `SameSite` attribute ([`SameSite::Default`] without one); kept, not
    /// enforced (see the [module documentation](super)).
    ///
    /// ```
    /// # use url::Url;
    /// # use whatwg_fetch::cookie::{CookieStore, SameSite};
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://example.com/").unwrap();
    /// store.set_cookie_from_header(&url, b"a=1; SameSite=Strict");
    /// assert_eq!(store.cookies()[0].same_site(), SameSite::Strict);
    /// ```
    pub fn same_site(&self) -> SameSite {
        self.cookie.same_site
    }
}

impl fmt::Debug for StoredCookie {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        f.debug_struct("StoredCookie")
            .field("name", &text(&self.cookie.name))
            .field("value", &text(&self.cookie.value))
            .field("domain", &self.cookie.domain)
            .field("path", &text(&self.cookie.path))
            .field("expires", &self.expires())
            .field("secure", &self.cookie.secure_only)
            .field("http_only", &self.cookie.http_only)
            .field("host_only", &self.cookie.host_only)
            .field("same_site", &self.cookie.same_site)
            .finish()
    }
}

/// Seconds since the Unix epoch as a `SystemTime`. A time beyond what the platform holds
/// (a `Max-Age` near `i64::MAX` seconds, where a `SystemTime` holds less) is brought
/// toward the epoch by halving until it fits: still centuries away, never a panic.
pub(super) fn system_time(seconds: i64) -> SystemTime {
    let mut magnitude = Duration::from_secs(seconds.unsigned_abs());
    loop {
        let time = if seconds >= 0 {
            UNIX_EPOCH.checked_add(magnitude)
        } else {
            UNIX_EPOCH.checked_sub(magnitude)
        };
        match time {
            Some(time) => return time,
            // Ends at zero, which is the epoch itself.
            None => magnitude /= 2,
        }
    }
}

/// `cookies` as a store lists them: by domain, then path (bytewise), then creation.
pub(super) fn listing(cookies: impl Iterator<Item = Cookie>) -> Vec<StoredCookie> {
    let mut cookies: Vec<StoredCookie> = cookies.map(|cookie| StoredCookie { cookie }).collect();
    cookies.sort_by(|a, b| {
        let (a, b) = (&a.cookie, &b.cookie);
        a.domain
            .cmp(&b.domain)
            .then_with(|| a.path.cmp(&b.path))
            .then(a.creation_time.cmp(&b.creation_time))
    });
    cookies
}

impl Jar {
    /// Removes the cookie named `name` whose domain is `domain` and path is `path`, if the
    /// jar holds one.
    fn remove(&mut self, domain: &str, path: &[u8], name: &[u8]) -> bool {
        let key = limit_key(domain);
        let Some(group) = self.groups.get_mut(key) else {
            return false;
        };
        let Some(index) = group
            .iter()
            .position(|c| c.name == name && c.domain == domain && c.path == path)
        else {
            return false;
        };
        let removed = group.swap_remove(index);
        if group.is_empty() {
            self.groups.remove(key);
        }
        self.len = self.len.saturating_sub(1);
        self.bytes = self.bytes.saturating_sub(removed.text_bytes());
        true
    }
}

impl CookieStore {
    /// Every cookie the store holds, as copies taken now: expired cookies are evicted
    /// first, session cookies are listed too. Ordered by [domain](StoredCookie::domain),
    /// then [path](StoredCookie::path_bytes) (bytewise), then the order in which they were
    /// created. Listing does not count as using a cookie: it leaves the order in which the
    /// store evicts them as it was.
    ///
    /// The copies hold at most what [`stored_bytes`](Self::stored_bytes) says plus a few
    /// dozen bytes each; with the default limits, 3300 cookies.
    ///
    /// ```
    /// use url::Url;
    /// use whatwg_fetch::cookie::CookieStore;
    ///
    /// let store = CookieStore::default();
    /// let shop = Url::parse("https://shop.example/cart/view").unwrap();
    /// store.set_cookie_from_header(&shop, b"cart=3");
    /// store.set_cookie_from_header(&shop, b"sid=1; Path=/");
    /// let news = Url::parse("https://news.example/").unwrap();
    /// store.set_cookie_from_header(&news, b"seen=42; Max-Age=3600");
    /// let listed: Vec<_> = store
    ///     .cookies()
    ///     .iter()
    ///     .map(|c| format!("{} {} {}", c.domain(), c.path().unwrap(), c.name().unwrap()))
    ///     .collect();
    /// assert_eq!(listed, ["news.example / seen", "shop.example / sid", "shop.example /cart cart"]);
    /// ```
    pub fn cookies(&self) -> Vec<StoredCookie> {
        self.cookies_at(now())
    }

    /// [`CookieStore::cookies`] at time `now`.
    fn cookies_at(&self, now: i64) -> Vec<StoredCookie> {
        let mut jar = self.jar();
        jar.evict_expired(now);
        listing(jar.groups.values().flatten().cloned())
    }

    /// Removes the cookie named `name` with domain `domain` and path `path` (as
    /// [`StoredCookie`] gives them; a leading `.` of `domain` and its case do not matter),
    /// and says whether there was one. A store holds at most one cookie for each name,
    /// domain and path.
    ///
    /// ```
    /// use url::Url;
    /// use whatwg_fetch::cookie::CookieStore;
    ///
    /// let store = CookieStore::default();
    /// let url = Url::parse("https://example.com/").unwrap();
    /// store.set_cookie_from_header(&url, b"sid=1");
    /// store.set_cookie_from_header(&url, b"lang=en");
    /// assert!(store.remove("example.com", "/", "sid"));
    /// assert!(!store.remove("example.com", "/", "sid"), "already gone");
    /// assert_eq!(store.cookie_header_for(&url).as_deref(), Some(&b"lang=en"[..]));
    /// ```
    pub fn remove(&self, domain: &str, path: impl AsRef<[u8]>, name: impl AsRef<[u8]>) -> bool {
        let domain = domain.strip_prefix('.').unwrap_or(domain);
        let domain = domain.to_ascii_lowercase();
        let mut jar = self.jar();
        jar.evict_expired(now());
        jar.remove(&domain, path.as_ref(), name.as_ref())
    }
}

#[cfg(test)]
mod tests {
    use url::Url;

    use super::*;

    const NOW: i64 = 1_700_000_000;

    fn url(text: &str) -> Url {
        Url::parse(text).unwrap()
    }

    fn listed(store: &CookieStore, now: i64) -> Vec<String> {
        store
            .cookies_at(now)
            .iter()
            .map(|c| format!("{} {} {}", c.domain(), c.path().unwrap(), c.name().unwrap()))
            .collect()
    }

    #[test]
    fn cookies_are_listed_by_domain_then_path_then_creation() {
        let store = CookieStore::default();
        let b = url("http://b.example/x/y");
        let a = url("http://a.example/");
        store.set_cookie_at(&b, b"z=1; Path=/x", NOW);
        store.set_cookie_at(&b, b"y=1; Path=/", NOW);
        store.set_cookie_at(&a, b"late=1; Path=/p", NOW);
        store.set_cookie_at(&b, b"a=1; Path=/x", NOW);
        store.set_cookie_at(&a, b"early=1; Path=/", NOW);
        assert_eq!(
            listed(&store, NOW),
            [
                "a.example / early",
                "a.example /p late",
                "b.example / y",
                "b.example /x z",
                "b.example /x a",
            ]
        );
        // Replacing a cookie keeps its creation-time, so its place.
        store.set_cookie_at(&b, b"z=2; Path=/x", NOW);
        assert_eq!(listed(&store, NOW)[3], "b.example /x z");
        assert_eq!(store.cookies_at(NOW)[3].value(), Some("2"));
    }

    #[test]
    fn expired_cookies_are_evicted_before_listing() {
        let store = CookieStore::default();
        let u = url("http://example.com/");
        store.set_cookie_at(&u, b"short=1; Max-Age=10", NOW);
        store.set_cookie_at(&u, b"session=1", NOW);
        store.set_cookie_at(&u, b"long=1; Max-Age=1000", NOW);
        assert_eq!(store.cookies_at(NOW + 9).len(), 3);
        let later = store.cookies_at(NOW + 10);
        let names: Vec<_> = later.iter().map(|c| c.name().unwrap()).collect();
        assert_eq!(names, ["session", "long"]);
        assert_eq!(
            store.jar().len,
            2,
            "evicted from the store, not only the list"
        );
        assert_eq!(
            later[1].expires(),
            Some(UNIX_EPOCH + Duration::from_secs(u64::try_from(NOW + 1000).unwrap()))
        );
        assert_eq!(later[0].expires(), None);
    }

    #[test]
    fn listing_does_not_count_as_use() {
        let store = CookieStore::with_limits(crate::cookie::CookieLimits {
            max_per_domain: 2,
            purge_per_domain_to: 2,
            ..Default::default()
        });
        let u = url("http://example.com/");
        store.set_cookie_at(&u, b"a=1", NOW);
        store.set_cookie_at(&u, b"b=1", NOW);
        let _ = store.cookies_at(NOW);
        // a is still the least recently used: it makes room.
        store.set_cookie_at(&u, b"c=1", NOW);
        assert_eq!(listed(&store, NOW), ["example.com / b", "example.com / c"]);
    }

    #[test]
    fn remove_takes_one_cookie_and_keeps_the_counts() {
        let store = CookieStore::default();
        let www = url("http://www.example.com/a/b");
        store.set_cookie_at(&www, b"sid=1", NOW);
        store.set_cookie_at(&www, b"sid=2; Path=/", NOW);
        store.set_cookie_at(&www, b"sid=3; Domain=example.com; Path=/", NOW);
        let bytes = store.jar().bytes;
        // Name, domain and path must all match.
        assert!(!store.remove("www.example.com", "/", "SID"));
        assert!(!store.remove("other.example", "/", "sid"));
        assert!(!store.remove("www.example.com", "/a/", "sid"));
        assert!(store.remove("www.example.com", "/", "sid"));
        assert_eq!(store.jar().len, 2);
        assert_eq!(store.jar().bytes, bytes - "sid2www.example.com/".len());
        // A leading dot and upper case are as the Domain attribute has them.
        assert!(store.remove(".Example.COM", b"/", b"sid"));
        let left = store.cookies_at(NOW);
        assert_eq!(left.len(), 1);
        assert_eq!(
            (left[0].domain(), left[0].path(), left[0].value()),
            ("www.example.com", Some("/a"), Some("1"))
        );
        assert!(store.remove(left[0].domain(), left[0].path_bytes(), left[0].name_bytes()));
        assert!(store.is_empty());
        assert!(
            store.jar().groups.is_empty(),
            "no empty group is left behind"
        );
    }

    #[test]
    fn times_out_of_range_are_clamped_not_a_panic() {
        assert_eq!(system_time(0), UNIX_EPOCH);
        assert_eq!(system_time(-1), UNIX_EPOCH - Duration::from_secs(1));
        assert!(system_time(i64::MAX) > UNIX_EPOCH + Duration::from_secs(1 << 40));
        let _ = system_time(i64::MIN);
    }
}
