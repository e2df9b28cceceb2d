//! An in-memory cookie store after [RFC 6265 §5](https://www.rfc-editor.org/rfc/rfc6265#section-5)
//! (user agent requirements), used by fetch's
//! [append a request `Cookie` header](https://fetch.spec.whatwg.org/#append-a-request-cookie-header)
//! and [parse and store response `Set-Cookie` headers](https://fetch.spec.whatwg.org/#parse-and-store-response-set-cookie-headers).
//!
//! Public suffixes are rejected (RFC 6265 §5.3 step 5) with the
//! [Public Suffix List](https://publicsuffix.org/) compiled in: `example.com` cannot set a
//! cookie for `Domain=com` or `Domain=co.uk`.
//!
//! What it does not do:
//! - `SameSite` is parsed and kept ([`SameSite`]) but not enforced: there is no top-level
//!   site or redirect taint to compare with, so every fetch counts as same-site
//!   ("strict-or-less" in fetch's
//!   [determine the same-site mode](https://fetch.spec.whatwg.org/#determine-the-same-site-mode)).
//! - `HttpOnly` is kept but changes nothing: every caller is an HTTP API.
//! - no size or count limits, no eviction beyond expiry; session cookies live as long as
//!   the store.
//! - from RFC 6265bis, only the rejection of control characters in a name or value (so a
//!   stored cookie always makes a valid `Cookie` header) and the `SameSite` attribute.

use std::fmt;
use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{SystemTime, UNIX_EPOCH};

use url::{Host, Url};

/// The [`SameSite`](https://httpwg.org/http-extensions/draft-ietf-httpbis-rfc6265bis.html#name-the-samesite-attribute-2)
/// attribute of a stored cookie (kept, not enforced).
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
    secure_only: bool,
    http_only: bool,
    host_only: bool,
    same_site: SameSite,
}

#[derive(Debug, Default)]
struct Jar {
    cookies: Vec<Cookie>,
    next_creation_time: u64,
}

/// An in-memory cookie store: what a [`Client`](crate::Client) with cookies enabled stores
/// `Set-Cookie` headers in and reads `Cookie` headers from.
///
/// Thread-safe; share one between clients with
/// [`ClientBuilder::cookie_store_with`](crate::client::ClientBuilder::cookie_store_with).
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
}

impl fmt::Debug for CookieStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CookieStore")
            .field("len", &self.len())
            .finish()
    }
}

impl CookieStore {
    fn jar(&self) -> MutexGuard<'_, Jar> {
        // The jar is left consistent at every step, so a poisoned lock is still usable.
        self.jar.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Parses one `Set-Cookie` header `value` received in the response to `url` and stores
    /// the cookie ([RFC 6265 §5.2](https://www.rfc-editor.org/rfc/rfc6265#section-5.2) and
    /// [§5.3](https://www.rfc-editor.org/rfc/rfc6265#section-5.3)). A value the RFC says to
    /// ignore is ignored; an expired cookie deletes the one it replaces.
    pub fn set_cookie_from_header(&self, url: &Url, value: &[u8]) {
        self.set_cookie_at(url, value, now());
    }

    /// The `Cookie` header value to send with a request to `url`: the
    /// [cookie-string](https://www.rfc-editor.org/rfc/rfc6265#section-5.4) of the cookies
    /// that match it, or `None` when there are none.
    pub fn cookie_header_for(&self, url: &Url) -> Option<Vec<u8>> {
        self.cookie_string_at(url, now())
    }

    /// Removes every cookie.
    pub fn clear(&self) {
        self.jar().cookies.clear();
    }

    /// How many cookies are stored, expired ones not counted.
    pub fn len(&self) -> usize {
        let now = now();
        let mut jar = self.jar();
        evict_expired(&mut jar, now);
        jar.cookies.len()
    }

    /// Whether no cookie is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// [Storage model](https://www.rfc-editor.org/rfc/rfc6265#section-5.3) at time `now`.
    fn set_cookie_at(&self, url: &Url, value: &[u8], now: i64) {
        let Some(request_host) = url.host() else {
            return;
        };
        let Some(parsed) = parse_set_cookie(value, now) else {
            return;
        };
        let canonicalized_host = canonicalized_host(&request_host);
        // Step 1. A user agent MAY ignore a received cookie in its entirety. (It does not.)
        // Step 2. Create a new cookie with name cookie-name, value cookie-value.
        // Step 3. If the cookie-attribute-list contains an attribute with an attribute-name
        // of "Max-Age": set the cookie's persistent-flag to true and its expiry-time to the
        // attribute-value of the last such attribute. Otherwise, if it contains "Expires",
        // likewise with the last "Expires". Otherwise the persistent-flag is false.
        let expiry_time = parsed.max_age.or(parsed.expires);
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
                return;
            }
        }
        // Step 6. If the domain-attribute is non-empty:
        let (host_only, domain) = if !domain_attribute.is_empty() {
            // If the canonicalized request-host does not domain-match the
            // domain-attribute: ignore the cookie entirely and abort these steps.
            if !domain_match(&request_host, &canonicalized_host, &domain_attribute) {
                return;
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
        // Step 8. If the cookie-attribute-list contains "Secure", set the secure-only-flag.
        // RFC 6265bis: a Secure cookie from a non-secure URL is ignored (fetch's isSecure:
        // the scheme is "https").
        if parsed.secure && url.scheme() != "https" {
            return;
        }
        // Step 9. If the cookie-attribute-list contains "HttpOnly", set the http-only-flag.
        // Step 10. (Non-HTTP APIs: every caller here is an HTTP API.)
        let mut jar = self.jar();
        jar.next_creation_time += 1;
        let mut cookie = Cookie {
            name: parsed.name,
            value: parsed.value,
            expiry_time,
            domain,
            path,
            creation_time: jar.next_creation_time,
            secure_only: parsed.secure,
            http_only: parsed.http_only,
            host_only,
            same_site: parsed.same_site,
        };
        // Step 11. If the cookie store contains a cookie with the same name, domain, and
        // path as the newly created cookie: update the creation-time of the newly created
        // cookie to match the creation-time of the old-cookie, and remove the old-cookie
        // from the cookie store.
        if let Some(index) = jar.cookies.iter().position(|old| {
            old.name == cookie.name && old.domain == cookie.domain && old.path == cookie.path
        }) {
            let old = jar.cookies.remove(index);
            cookie.creation_time = old.creation_time;
        }
        // Step 12. Insert the newly created cookie into the cookie store.
        jar.cookies.push(cookie);
        // "The user agent MUST evict all expired cookies from the cookie store if, at any
        // time, an expired cookie exists in the cookie store." (This is how Max-Age=0
        // deletes.)
        evict_expired(&mut jar, now);
    }

    /// The [cookie-string](https://www.rfc-editor.org/rfc/rfc6265#section-5.4) for `url` at
    /// time `now`.
    fn cookie_string_at(&self, url: &Url, now: i64) -> Option<Vec<u8>> {
        let request_host = url.host()?;
        let canonicalized_host = canonicalized_host(&request_host);
        let request_path = url.path().as_bytes();
        let is_secure = url.scheme() == "https";
        let mut jar = self.jar();
        evict_expired(&mut jar, now);
        // Step 1. Let cookie-list be the set of cookies from the cookie store that meets all
        // of the following requirements:
        let mut cookie_list: Vec<&Cookie> = jar
            .cookies
            .iter()
            .filter(|cookie| {
                // Either the cookie's host-only-flag is true and the canonicalized
                // request-host is identical to the cookie's domain, or the host-only-flag
                // is false and the canonicalized request-host domain-matches the cookie's
                // domain.
                let host_ok = if cookie.host_only {
                    canonicalized_host == cookie.domain
                } else {
                    domain_match(&request_host, &canonicalized_host, &cookie.domain)
                };
                // The request-uri's path path-matches the cookie's path.
                // If the cookie's secure-only-flag is true, then the request-uri's scheme
                // must denote a "secure" protocol.
                // (http-only-flag: every caller is an HTTP API.)
                host_ok
                    && path_match(request_path, &cookie.path)
                    && (!cookie.secure_only || is_secure)
            })
            .collect();
        if cookie_list.is_empty() {
            return None;
        }
        // Step 2. Sort the cookie-list: cookies with longer paths are listed before cookies
        // with shorter paths; among cookies with equal-length paths, cookies with earlier
        // creation-times are listed first.
        cookie_list.sort_by(|a, b| {
            b.path
                .len()
                .cmp(&a.path.len())
                .then(a.creation_time.cmp(&b.creation_time))
        });
        // Step 3. (last-access-time: nothing here reads it.)
        // Step 4. Serialize the cookie-list into a cookie-string: output the cookie's name,
        // "=", and the cookie's value; if there is an unprocessed cookie in the list, output
        // "; ".
        let mut cookie_string = Vec::new();
        for (i, cookie) in cookie_list.iter().enumerate() {
            if i > 0 {
                cookie_string.extend_from_slice(b"; ");
            }
            cookie_string.extend_from_slice(&cookie.name);
            cookie_string.push(b'=');
            cookie_string.extend_from_slice(&cookie.value);
        }
        Some(cookie_string)
    }

    #[cfg(test)]
    fn cookies(&self) -> Vec<Cookie> {
        self.jar().cookies.clone()
    }
}

/// Seconds since the Unix epoch now.
fn now() -> i64 {
    match SystemTime::now().duration_since(UNIX_EPOCH) {
        Ok(since) => i64::try_from(since.as_secs()).unwrap_or(i64::MAX),
        Err(before) => i64::try_from(before.duration().as_secs()).map_or(i64::MIN, |s| -s),
    }
}

fn evict_expired(jar: &mut Jar, now: i64) {
    jar.cookies
        .retain(|cookie| cookie.expiry_time.is_none_or(|expiry| expiry > now));
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

/// A `Set-Cookie` value parsed per [§5.2](https://www.rfc-editor.org/rfc/rfc6265#section-5.2):
/// the name, value and the last of each attribute (what §5.3 reads).
#[derive(Debug, PartialEq, Eq)]
struct ParsedCookie {
    name: Vec<u8>,
    value: Vec<u8>,
    expires: Option<i64>,
    max_age: Option<i64>,
    domain: Option<String>,
    path: Option<Vec<u8>>,
    secure: bool,
    http_only: bool,
    same_site: SameSite,
}

/// Removes leading and trailing WSP (SP and HTAB).
fn trim_wsp(bytes: &[u8]) -> &[u8] {
    let start = bytes
        .iter()
        .position(|&b| b != b' ' && b != b'\t')
        .unwrap_or(bytes.len());
    let end = bytes
        .iter()
        .rposition(|&b| b != b' ' && b != b'\t')
        .map_or(start, |i| i + 1);
    bytes.get(start..end).unwrap_or_default()
}

/// Splits at the first `byte`: (before, Some(after)) or (all, None).
fn split_once(bytes: &[u8], byte: u8) -> (&[u8], Option<&[u8]>) {
    match bytes.iter().position(|&b| b == byte) {
        Some(i) => (bytes.get(..i).unwrap_or_default(), bytes.get(i + 1..)),
        None => (bytes, None),
    }
}

/// [The Set-Cookie header](https://www.rfc-editor.org/rfc/rfc6265#section-5.2): parse a
/// set-cookie-string at time `now`, or `None` to ignore it.
fn parse_set_cookie(set_cookie_string: &[u8], now: i64) -> Option<ParsedCookie> {
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
    // value string.
    let (name, value) = (trim_wsp(name), trim_wsp(value));
    // Step 5. If the name string is empty, ignore the set-cookie-string entirely.
    if name.is_empty() {
        return None;
    }
    // RFC 6265bis: if the name or value contains a control character other than HTAB,
    // ignore the set-cookie-string entirely.
    let is_ctl = |&b: &u8| (b < 0x20 && b != b'\t') || b == 0x7F;
    if name.iter().any(is_ctl) || value.iter().any(is_ctl) {
        return None;
    }
    // Step 6. The cookie-name is the name string, and the cookie-value is the value string.
    let mut cookie = ParsedCookie {
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
        let attribute_name = trim_wsp(attribute_name);
        let attribute_value = trim_wsp(attribute_value.unwrap_or_default());
        // 5. Process the attribute-name and attribute-value (case-insensitively).
        let attribute_name = attribute_name.to_ascii_lowercase();
        match attribute_name.as_slice() {
            // §5.2.1 The Expires attribute: let the expiry-time be the result of parsing
            // the attribute-value as cookie-date. If it fails, ignore the cookie-av.
            b"expires" => {
                if let Some(expiry_time) = parse_cookie_date(attribute_value) {
                    cookie.expires = Some(expiry_time);
                }
            }
            // §5.2.2 The Max-Age attribute.
            b"max-age" => {
                if let Some(expiry_time) = parse_max_age(attribute_value, now) {
                    cookie.max_age = Some(expiry_time);
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
                cookie.same_site = match attribute_value.to_ascii_lowercase().as_slice() {
                    b"strict" => SameSite::Strict,
                    b"lax" => SameSite::Lax,
                    b"none" => SameSite::None,
                    _ => SameSite::Default,
                };
            }
            _ => {}
        }
    }
    Some(cookie)
}

/// [§5.2.2 The Max-Age attribute](https://www.rfc-editor.org/rfc/rfc6265#section-5.2.2):
/// the expiry-time, or `None` to ignore the cookie-av.
fn parse_max_age(attribute_value: &[u8], now: i64) -> Option<i64> {
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
    // If delta-seconds is less than or equal to zero (0), let expiry-time be the earliest
    // representable date and time. Otherwise, let the expiry-time be the current date and
    // time plus delta-seconds seconds.
    if negative || delta_seconds <= 0 {
        Some(i64::MIN)
    } else {
        Some(now.saturating_add(delta_seconds))
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
    if day > days_in_month(year, month) {
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

fn days_in_month(year: u32, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm).
fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
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
            NOW,
        )
        .unwrap();
        assert_eq!(c.name, b"a");
        assert_eq!(c.value, b"b c");
        assert_eq!(c.path.as_deref(), Some(&b"/x"[..]));
        assert_eq!(c.domain.as_deref(), Some("example.com"));
        assert!(c.secure && c.http_only);
        assert_eq!(c.same_site, SameSite::Lax);
        assert_eq!(c.max_age, Some(NOW + 10));
    }

    #[test]
    fn ignores_what_the_rfc_ignores() {
        assert_eq!(parse_set_cookie(b"novalue", NOW), None);
        assert_eq!(parse_set_cookie(b"=v", NOW), None);
        assert_eq!(parse_set_cookie(b"a=b\x01", NOW), None);
        assert!(parse_set_cookie(b"a=", NOW).is_some());
        // A relative Path is the default path; an empty Domain is ignored.
        let c = parse_set_cookie(b"a=b; Path=rel; Domain=", NOW).unwrap();
        assert_eq!((c.path, c.domain), (None, None));
        // Bad Max-Age values are ignored.
        for bad in ["+5", "5s", "", "1.5"] {
            let c = parse_set_cookie(format!("a=b; Max-Age={bad}").as_bytes(), NOW).unwrap();
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
        assert_eq!(store.cookies().len(), 3);
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
