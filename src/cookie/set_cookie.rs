//! One `Set-Cookie` header as [RFC 6265 §5.2](https://www.rfc-editor.org/rfc/rfc6265#section-5.2)
//! (RFC 6265bis §5.6) parses it: [`SetCookie`], what
//! [`Response::cookies`](crate::Response::cookies) lists and what the store's
//! [storage model](https://www.rfc-editor.org/rfc/rfc6265#section-5.3) reads.

use std::fmt;
use std::time::{Duration, SystemTime};

use super::stored_cookie::system_time;
use super::{SameSite, parse_set_cookie};

/// A `Set-Cookie` header value parsed as
/// [RFC 6265 §5.2](https://www.rfc-editor.org/rfc/rfc6265#section-5.2) says, with the size
/// limits of RFC 6265bis §5.6: the cookie's name and value and the last valid value of each
/// attribute. It is what the server asked for, before the
/// [storage model](https://www.rfc-editor.org/rfc/rfc6265#section-5.3) decides whether a
/// store keeps it (a `Domain` the host does not match, a public suffix or `Secure` over
/// `http:` are refused there, not here).
///
/// [`Response::cookies`](crate::Response::cookies) lists a response's; [`SetCookie::parse`]
/// parses one value.
///
/// ```
/// use std::time::Duration;
/// use whatwg_fetch::cookie::{SameSite, SetCookie};
///
/// let cookie = SetCookie::parse("sid=abc; Max-Age=3600; Path=/; Secure; HttpOnly; SameSite=Lax")
///     .unwrap();
/// assert_eq!((cookie.name(), cookie.value()), (Some("sid"), Some("abc")));
/// assert_eq!(cookie.max_age(), Some(Duration::from_secs(3600)));
/// assert_eq!(cookie.path(), Some("/"));
/// assert!(cookie.secure() && cookie.http_only());
/// assert_eq!(cookie.same_site(), SameSite::Lax);
/// // A value without "=" is ignored entirely, as the RFC says.
/// assert!(SetCookie::parse("no-equals-sign").is_none());
/// ```
#[derive(Clone, PartialEq, Eq)]
pub struct SetCookie {
    pub(super) name: Vec<u8>,
    pub(super) value: Vec<u8>,
    /// The last valid `Expires`, in seconds since the Unix epoch.
    pub(super) expires: Option<i64>,
    /// The last valid `Max-Age`, in delta-seconds (zero or negative: expire at once).
    pub(super) max_age: Option<i64>,
    /// The last non-empty `Domain`, without its leading ".", lowercase.
    pub(super) domain: Option<String>,
    /// The last `Path`; `None` for one that does not start with "/" (the default-path).
    pub(super) path: Option<Vec<u8>>,
    pub(super) secure: bool,
    pub(super) http_only: bool,
    pub(super) same_site: SameSite,
}

impl SetCookie {
    /// Parses one `Set-Cookie` header value (a set-cookie-string), or `None` when the RFC
    /// says to ignore it entirely: no `=` in its first part, an empty name, a name and value
    /// over 4096 bytes together, or a control character in either. An attribute the RFC
    /// says to ignore (an unparsable `Expires` or `Max-Age`, an empty `Domain`, a value over
    /// 1024 bytes) is skipped and the rest kept. Linear in the value's length.
    ///
    /// ```
    /// use whatwg_fetch::cookie::SetCookie;
    ///
    /// let cookie = SetCookie::parse(b"lang=en; Max-Age=soon; Domain=").unwrap();
    /// assert_eq!((cookie.max_age(), cookie.domain()), (None, None));
    /// assert!(SetCookie::parse(b"=no-name").is_none());
    /// assert!(SetCookie::parse(b"a=b\x07").is_none());
    /// ```
    pub fn parse(set_cookie_string: impl AsRef<[u8]>) -> Option<SetCookie> {
        parse_set_cookie(set_cookie_string.as_ref())
    }

    /// The cookie's name, when it is UTF-8 (see [`name_bytes`](Self::name_bytes)).
    ///
    /// ```
    /// # use whatwg_fetch::cookie::SetCookie;
    /// assert_eq!(SetCookie::parse(" sid = 1 ").unwrap().name(), Some("sid"));
    /// assert_eq!(SetCookie::parse(b"\xff=1").unwrap().name(), None);
    /// ```
    pub fn name(&self) -> Option<&str> {
        std::str::from_utf8(&self.name).ok()
    }

    /// The cookie's name as sent, whitespace around it trimmed; never empty.
    ///
    /// ```
    /// # use whatwg_fetch::cookie::SetCookie;
    /// assert_eq!(SetCookie::parse(b"\xff=1").unwrap().name_bytes(), b"\xff");
    /// ```
    pub fn name_bytes(&self) -> &[u8] {
        &self.name
    }

    /// The cookie's value, when it is UTF-8 (see [`value_bytes`](Self::value_bytes)).
    ///
    /// ```
    /// # use whatwg_fetch::cookie::SetCookie;
    /// assert_eq!(SetCookie::parse("sid = abc ; Path=/").unwrap().value(), Some("abc"));
    /// ```
    pub fn value(&self) -> Option<&str> {
        std::str::from_utf8(&self.value).ok()
    }

    /// The cookie's value as sent, whitespace around it trimmed; it may be empty.
    ///
    /// ```
    /// # use whatwg_fetch::cookie::SetCookie;
    /// assert_eq!(SetCookie::parse(b"sid=\xfe").unwrap().value_bytes(), b"\xfe");
    /// assert_eq!(SetCookie::parse(b"sid=").unwrap().value_bytes(), b"");
    /// ```
    pub fn value_bytes(&self) -> &[u8] {
        &self.value
    }

    /// The last `Expires` attribute that parses as a
    /// [cookie-date](https://www.rfc-editor.org/rfc/rfc6265#section-5.1.1), if any. A
    /// store prefers [`max_age`](Self::max_age) when both are there.
    ///
    /// ```
    /// # use std::time::{Duration, SystemTime};
    /// # use whatwg_fetch::cookie::SetCookie;
    /// let cookie = SetCookie::parse("a=1; Expires=Sun, 06 Nov 1994 08:49:37 GMT").unwrap();
    /// assert_eq!(cookie.expires(), Some(SystemTime::UNIX_EPOCH + Duration::from_secs(784_111_777)));
    /// assert_eq!(SetCookie::parse("a=1; Expires=tomorrow").unwrap().expires(), None);
    /// ```
    pub fn expires(&self) -> Option<SystemTime> {
        self.expires.map(system_time)
    }

    /// The last valid `Max-Age` attribute, if any: how long the cookie lives from when it
    /// is received. A `Max-Age` of zero or less is [`Duration::ZERO`]: the cookie expires
    /// at once, which is how a server deletes one.
    ///
    /// ```
    /// # use std::time::Duration;
    /// # use whatwg_fetch::cookie::SetCookie;
    /// assert_eq!(SetCookie::parse("a=1; Max-Age=60").unwrap().max_age(), Some(Duration::from_secs(60)));
    /// assert_eq!(SetCookie::parse("a=1; Max-Age=-1").unwrap().max_age(), Some(Duration::ZERO));
    /// assert_eq!(SetCookie::parse("a=1; Max-Age=1.5").unwrap().max_age(), None);
    /// ```
    pub fn max_age(&self) -> Option<Duration> {
        self.max_age
            .map(|delta_seconds| Duration::from_secs(u64::try_from(delta_seconds).unwrap_or(0)))
    }

    /// The last non-empty `Domain` attribute, if any, as the RFC keeps it: lowercase,
    /// without a leading `.`.
    ///
    /// ```
    /// # use whatwg_fetch::cookie::SetCookie;
    /// assert_eq!(SetCookie::parse("a=1; Domain=.Example.COM").unwrap().domain(), Some("example.com"));
    /// ```
    pub fn domain(&self) -> Option<&str> {
        self.domain.as_deref()
    }

    /// The last `Path` attribute, when there is one that starts with `/` and it is UTF-8
    /// (see [`path_bytes`](Self::path_bytes)); without one a store uses the
    /// [default-path](https://www.rfc-editor.org/rfc/rfc6265#section-5.1.4) of the URL.
    ///
    /// ```
    /// # use whatwg_fetch::cookie::SetCookie;
    /// assert_eq!(SetCookie::parse("a=1; Path=/docs").unwrap().path(), Some("/docs"));
    /// assert_eq!(SetCookie::parse("a=1; Path=relative").unwrap().path(), None);
    /// ```
    pub fn path(&self) -> Option<&str> {
        self.path
            .as_deref()
            .and_then(|path| std::str::from_utf8(path).ok())
    }

    /// The last `Path` attribute that starts with `/`, as bytes.
    ///
    /// ```
    /// # use whatwg_fetch::cookie::SetCookie;
    /// assert_eq!(SetCookie::parse(b"a=1; Path=/\xff").unwrap().path_bytes(), Some(&b"/\xff"[..]));
    /// ```
    pub fn path_bytes(&self) -> Option<&[u8]> {
        self.path.as_deref()
    }

    /// Whether the `Secure` attribute is there: the cookie is for `https:` only.
    ///
    /// ```
    /// # use whatwg_fetch::cookie::SetCookie;
    /// assert!(SetCookie::parse("a=1; secure").unwrap().secure());
    /// ```
    pub fn secure(&self) -> bool {
        self.secure
    }

    /// Whether the `HttpOnly` attribute is there.
    ///
    /// ```
    /// # use whatwg_fetch::cookie::SetCookie;
    /// assert!(SetCookie::parse("a=1; HttpOnly").unwrap().http_only());
    /// ```
    pub fn http_only(&self) -> bool {
        self.http_only
    }

    /// The last `SameSite` attribute: [`SameSite::Default`] without one, or for a value
    /// other than `Strict`, `Lax` or `None`.
    ///
    /// ```
    /// # use whatwg_fetch::cookie::{SameSite, SetCookie};
    /// assert_eq!(SetCookie::parse("a=1; SameSite=none").unwrap().same_site(), SameSite::None);
    /// assert_eq!(SetCookie::parse("a=1; SameSite=maybe").unwrap().same_site(), SameSite::Default);
    /// ```
    pub fn same_site(&self) -> SameSite {
        self.same_site
    }
}

impl fmt::Debug for SetCookie {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = |bytes: &[u8]| String::from_utf8_lossy(bytes).into_owned();
        f.debug_struct("SetCookie")
            .field("name", &text(&self.name))
            .field("value", &text(&self.value))
            .field("expires", &self.expires())
            .field("max_age", &self.max_age())
            .field("domain", &self.domain)
            .field("path", &self.path.as_deref().map(text))
            .field("secure", &self.secure)
            .field("http_only", &self.http_only)
            .field("same_site", &self.same_site)
            .finish()
    }
}
