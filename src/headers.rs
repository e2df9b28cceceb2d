//! The [`Headers` class](https://fetch.spec.whatwg.org/#headers-class) and the
//! [header](https://fetch.spec.whatwg.org/#terminology-headers) concepts of the Fetch Standard.
//!
//! - [`HeaderList`]: the spec's header list, an ordered multimap of byte names and values with
//!   its algorithms (get, get-decode-and-split, append, set, combine, sort and combine, extract
//!   a length, extract a MIME type, determine nosniff, extract header list values).
//! - The checks and sets, as functions on bytes: [`is_header_name`], [`is_header_value`],
//!   [`normalize_header_value`], [`is_forbidden_request_header`],
//!   [`is_forbidden_response_header_name`], [`is_forbidden_method`],
//!   [`is_cors_safelisted_request_header`], [`cors_unsafe_request_header_names`] and the rest.
//! - [`Headers`]: the object scripts see, a header list behind a [`HeadersGuard`].
//!
//! Names and values are bytes: the IDL type is `ByteString`, so a JavaScript binding converts
//! strings to bytes (and rejects code points above U+00FF) before calling in.
//!
//! # Forbidden request-headers and the environment
//!
//! Under the `request` guard the spec silently drops [forbidden
//! request-headers](is_forbidden_request_header) (`Host`, `Cookie`, `Sec-*`, …), so that a web
//! page cannot forge what the user agent controls. A server-side runtime has no such user
//! agent to protect (Deno and Node send what the program asks), so whether a `Headers` object
//! under the `request` guard filters them is a per-object setting,
//! [`Headers::filters_forbidden_request_headers`], which the `Request` constructor sets from
//! its environment. It defaults to `true`, the spec's behaviour. The other guards behave the
//! same in every environment: `response` always drops `Set-Cookie`/`Set-Cookie2`, and
//! `request-no-cors` always keeps only no-CORS-safelisted headers.
//!
//! ```
//! use whatwg_fetch::Headers;
//!
//! let mut headers = Headers::new();
//! headers.append("Accept", "text/html")?;
//! headers.append("accept", "*/*")?;
//! assert_eq!(headers.get("ACCEPT")?.as_deref(), Some("text/html, */*"));
//! # Ok::<(), whatwg_fetch::Error>(())
//! ```

use bytes::Bytes;

use crate::error::{Error, Result};

mod list;
mod sets;

pub use list::{Extracted, HeaderList, Iter as HeaderListIter, get_decode_and_split_header_value};
pub use sets::{
    PRIVILEGED_NO_CORS_REQUEST_HEADER_NAMES, build_a_content_range,
    convert_header_names_to_a_sorted_lowercase_set, cors_unsafe_request_header_names,
    is_cors_non_wildcard_request_header_name, is_cors_safelisted_method,
    is_cors_safelisted_request_header, is_cors_safelisted_response_header_name,
    is_cors_unsafe_request_header_byte, is_forbidden_method, is_forbidden_request_header,
    is_forbidden_response_header_name, is_header_name, is_header_value, is_http_newline_byte,
    is_http_tab_or_space_byte, is_http_whitespace_byte, is_no_cors_safelisted_request_header,
    is_no_cors_safelisted_request_header_name, is_privileged_no_cors_request_header_name,
    is_request_body_header_name, normalize_header_value, parse_single_range_header_value,
};

/// A [headers guard](https://fetch.spec.whatwg.org/#headers-guard): what a [`Headers`] object
/// lets scripts change.
///
/// ```
/// use whatwg_fetch::{Headers, HeadersGuard};
///
/// let mut headers = Headers::with_guard(HeadersGuard::Response);
/// // The `response` guard drops what a response may not set itself.
/// headers.append("set-cookie", "a=1")?;
/// headers.append("content-type", "text/plain")?;
/// assert!(!headers.has("set-cookie")? && headers.has("content-type")?);
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum HeadersGuard {
    /// `"immutable"`: every change is a `TypeError` (the headers of a fetched response).
    Immutable,
    /// `"request"`: forbidden request-headers are ignored, if the object
    /// [filters them](Headers::filters_forbidden_request_headers).
    Request,
    /// `"request-no-cors"`: only no-CORS-safelisted request-headers are kept.
    RequestNoCors,
    /// `"response"`: forbidden response-header names are ignored.
    Response,
    /// `"none"`: no restriction beyond valid names and values. The guard of `new Headers()`.
    #[default]
    None,
}

/// A [`Headers`](https://fetch.spec.whatwg.org/#headers) object: a
/// [header list](HeaderList) with a [guard](HeadersGuard).
///
/// The methods are the IDL operations; names and values are bytes (anything
/// `AsRef<[u8]>`, so `&str` works). Iteration follows [sort and
/// combine](HeaderList::sort_and_combine): lowercase names in byte order, values combined,
/// `set-cookie` values separate.
///
/// ```
/// use whatwg_fetch::headers::Headers;
/// # fn main() -> whatwg_fetch::Result<()> {
/// let mut headers = Headers::new();
/// headers.append("Accept", "text/html")?;
/// headers.append("accept", "*/*")?;
/// headers.append("Set-Cookie", "a=1")?;
/// headers.append("Set-Cookie", "b=2")?;
/// assert_eq!(headers.get("ACCEPT")?.as_deref(), Some("text/html, */*"));
/// assert_eq!(headers.get_set_cookie(), ["a=1", "b=2"]);
/// let pairs: Vec<(String, String)> = headers.iter().collect();
/// assert_eq!(pairs, [
///     ("accept".to_owned(), "text/html, */*".to_owned()),
///     ("set-cookie".to_owned(), "a=1".to_owned()),
///     ("set-cookie".to_owned(), "b=2".to_owned()),
/// ]);
/// assert!(headers.append("Bad Name", "x").is_err());
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
pub struct Headers {
    /// <https://fetch.spec.whatwg.org/#concept-headers-header-list>, initially empty.
    header_list: HeaderList,
    /// <https://fetch.spec.whatwg.org/#concept-headers-guard>; `new Headers()` sets "none".
    guard: HeadersGuard,
    // Not in the spec:
    /// Whether the `request` guard ignores forbidden request-headers; true by default, false
    /// for requests made by a server-side runtime. See the [module docs](self).
    filters_forbidden_request_headers: bool,
}

impl Default for Headers {
    /// Empty headers with guard [`HeadersGuard::None`], as `new Headers()`.
    fn default() -> Headers {
        Headers::with_guard(HeadersGuard::None)
    }
}

/// The [`HeadersInit`](https://fetch.spec.whatwg.org/#typedefdef-headersinit) union: what
/// `new Headers(init)` and the `headers` members of `RequestInit` and `ResponseInit` take.
///
/// Build one with `.into()` from `Vec<(K, V)>` or `[(K, V); N]` (any `K, V: AsRef<[u8]>`),
/// `Vec<Vec<Vec<u8>>>`, [`Headers`] or [`http::HeaderMap`].
///
/// ```
/// use whatwg_fetch::{Headers, HeadersInit};
///
/// // Pairs, as a `record<ByteString, ByteString>` is.
/// let init: HeadersInit = vec![("accept", "application/json"), ("x-trace", "1")].into();
/// assert_eq!(Headers::from_init(init)?.get("accept")?.as_deref(), Some("application/json"));
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Clone, Debug)]
pub enum HeadersInit {
    /// `sequence<sequence<ByteString>>`: each inner sequence must have exactly two items, a
    /// name and a value, or filling throws a `TypeError`.
    Sequence(Vec<Vec<Vec<u8>>>),
    /// `record<ByteString, ByteString>`: (name, value) pairs appended in order. (A JavaScript
    /// record has unique keys; the binding that converts one keeps the last value of each.)
    Record(Vec<(Vec<u8>, Vec<u8>)>),
    /// A `Headers` object. JavaScript converts it to the sequence form through its iterator,
    /// so it fills in [sort and combine](HeaderList::sort_and_combine) order, with lowercase
    /// names and combined values.
    Headers(Headers),
}

impl Headers {
    /// Empty headers with guard [`HeadersGuard::None`]:
    /// [`new Headers()`](https://fetch.spec.whatwg.org/#dom-headers).
    ///
    /// ```
    /// use whatwg_fetch::Headers;
    ///
    /// let mut headers = Headers::new();
    /// headers.append("Accept", "application/json")?;
    /// headers.append("Accept", "text/plain")?;
    /// assert_eq!(headers.get("accept")?.as_deref(), Some("application/json, text/plain"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn new() -> Headers {
        Headers::default()
    }

    /// Empty headers with `guard`; forbidden request-headers are
    /// [filtered](Headers::filters_forbidden_request_headers) under the `request` guard.
    ///
    /// ```
    /// use whatwg_fetch::ErrorKind;
    /// use whatwg_fetch::headers::{Headers, HeadersGuard};
    /// let mut headers = Headers::with_guard(HeadersGuard::Immutable);
    /// let error = headers.append("Accept", "*/*").unwrap_err();
    /// assert_eq!(error.kind(), ErrorKind::TypeError);
    /// ```
    pub fn with_guard(guard: HeadersGuard) -> Headers {
        Headers {
            header_list: HeaderList::new(),
            guard,
            filters_forbidden_request_headers: true,
        }
    }

    /// [`new Headers(init)`](https://fetch.spec.whatwg.org/#dom-headers): guard "none", then
    /// [fill](https://fetch.spec.whatwg.org/#concept-headers-fill) with `init`.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) if a sequence item does not have
    /// exactly two items, or a name is not a [header name](is_header_name), or a value (after
    /// [normalizing](normalize_header_value)) is not a [header value](is_header_value).
    ///
    /// ```
    /// use whatwg_fetch::headers::Headers;
    /// # fn main() -> whatwg_fetch::Result<()> {
    /// let headers = Headers::from_init([("Content-Type", "text/xml"), ("Breaking-Bad", "<3")])?;
    /// assert_eq!(headers.get("content-type")?.as_deref(), Some("text/xml"));
    /// let error = Headers::from_init(vec![vec![b"just-a-name".to_vec()]]).unwrap_err();
    /// assert_eq!(error.kind(), whatwg_fetch::ErrorKind::TypeError);
    /// # Ok(())
    /// # }
    /// ```
    pub fn from_init(init: impl Into<HeadersInit>) -> Result<Headers> {
        // Step 1. Set this's guard to "none".
        let mut headers = Headers::new();
        // Step 2. If init is given, then fill this with init.
        headers.fill(init.into())?;
        Ok(headers)
    }

    /// Headers over an existing `header_list` with `guard`, as a `Request` or `Response`
    /// object's headers are.
    pub(crate) fn from_header_list(header_list: HeaderList, guard: HeadersGuard) -> Headers {
        Headers {
            header_list,
            guard,
            filters_forbidden_request_headers: true,
        }
    }

    /// The [guard](https://fetch.spec.whatwg.org/#concept-headers-guard).
    ///
    /// ```
    /// use whatwg_fetch::{Headers, HeadersGuard, Response};
    ///
    /// assert_eq!(Headers::new().guard(), HeadersGuard::None);
    /// // A network error's headers can never change.
    /// assert_eq!(Response::error().headers().guard(), HeadersGuard::Immutable);
    /// ```
    pub fn guard(&self) -> HeadersGuard {
        self.guard
    }

    /// A copy whose header list has room for `extra` more headers.
    pub(crate) fn clone_with_spare_capacity(&self, extra: usize) -> Headers {
        Headers {
            header_list: self.header_list.clone_with_spare_capacity(extra),
            guard: self.guard,
            filters_forbidden_request_headers: self.filters_forbidden_request_headers,
        }
    }

    /// Sets the guard, as the `Request` and `Response` constructors and `Response.error()` do.
    pub(crate) fn set_guard(&mut self, guard: HeadersGuard) {
        self.guard = guard;
    }

    /// Whether, under the `request` guard, [forbidden request-headers](is_forbidden_request_header)
    /// are ignored as the spec says (`true`, the default) or kept (`false`, for a server-side
    /// runtime, which has no user agent to protect). No other guard looks at it.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// // A request made server-side keeps what a browser would drop (`Host`, `Cookie`, …).
    /// let init = RequestInit { headers: Some(vec![("cookie", "a=1")].into()), ..RequestInit::default() };
    /// let request = Request::new("https://api.example/", init)?;
    /// assert!(!request.headers().filters_forbidden_request_headers());
    /// assert_eq!(request.headers().get("cookie")?.as_deref(), Some("a=1"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn filters_forbidden_request_headers(&self) -> bool {
        self.filters_forbidden_request_headers
    }

    /// Sets [`filters_forbidden_request_headers`](Headers::filters_forbidden_request_headers).
    /// The `Request` constructor decides it from its environment.
    pub(crate) fn set_filters_forbidden_request_headers(&mut self, filters: bool) {
        self.filters_forbidden_request_headers = filters;
    }

    /// The [header list](https://fetch.spec.whatwg.org/#concept-headers-header-list), exact:
    /// names in the case they were first given, in order.
    ///
    /// ```
    /// use whatwg_fetch::Headers;
    ///
    /// let headers = Headers::from_init([("X-B", "2"), ("x-a", "1"), ("X-B", "3")])?;
    /// // The list as given: names in their case, in order, not combined.
    /// let names: Vec<&[u8]> = headers.header_list().iter_bytes().map(|(name, _)| &name[..]).collect();
    /// assert_eq!(names, [&b"X-B"[..], b"x-a", b"X-B"]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn header_list(&self) -> &HeaderList {
        &self.header_list
    }

    /// The header list, for the algorithms that change it without a guard.
    pub(crate) fn header_list_mut(&mut self) -> &mut HeaderList {
        &mut self.header_list
    }

    /// The header list, giving up the guard.
    ///
    /// ```
    /// use whatwg_fetch::Headers;
    ///
    /// let list = Headers::from_init([("accept", "*/*")])?.into_header_list();
    /// assert_eq!(list.len(), 1);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn into_header_list(self) -> HeaderList {
        self.header_list
    }

    /// [Validate](https://fetch.spec.whatwg.org/#headers-validate) the header (`name`, `value`):
    /// `Ok(false)` when the guard says to ignore it.
    fn validate(&self, name: &[u8], value: &[u8]) -> Result<bool> {
        // Step 1. If name is not a header name or value is not a header value, then throw a
        // TypeError.
        if !is_header_name(name) {
            return Err(invalid_name(name));
        }
        if !is_header_value(value) {
            return Err(Error::type_error(format!(
                "{:?} is not a valid header value",
                String::from_utf8_lossy(value)
            )));
        }
        match self.guard {
            // Step 2. If headers's guard is "immutable", then throw a TypeError.
            HeadersGuard::Immutable => Err(Error::type_error("headers are immutable")),
            // Step 3. If headers's guard is "request" and (name, value) is a forbidden
            // request-header, then return false.
            HeadersGuard::Request
                if self.filters_forbidden_request_headers
                    && is_forbidden_request_header(name, value) =>
            {
                Ok(false)
            }
            // Step 4. If headers's guard is "response" and name is a forbidden response-header
            // name, then return false.
            HeadersGuard::Response if is_forbidden_response_header_name(name) => Ok(false),
            // Step 5. Return true.
            _ => Ok(true),
        }
    }

    /// [Append](https://fetch.spec.whatwg.org/#concept-headers-append) the header (`name`,
    /// `value`): the [`append(name, value)`](https://fetch.spec.whatwg.org/#dom-headers-append)
    /// method. `value` is [normalized](normalize_header_value) first; the guard may ignore the
    /// header.
    ///
    /// ```
    /// use whatwg_fetch::{ErrorKind, Headers};
    ///
    /// let mut headers = Headers::new();
    /// // The value is normalized: leading and trailing whitespace goes.
    /// headers.append("Cache-Control", "  no-cache ")?;
    /// headers.append("Cache-Control", "no-store")?;
    /// assert_eq!(headers.get("cache-control")?.as_deref(), Some("no-cache, no-store"));
    /// // A name with a space is not a header name.
    /// assert_eq!(headers.append("bad name", "x").unwrap_err().kind(), ErrorKind::TypeError);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) if `name` is not a header name,
    /// the normalized `value` is not a header value, or the guard is "immutable".
    pub fn append(&mut self, name: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Result<()> {
        let name = name.as_ref();
        // Step 1. Normalize value.
        let value = normalize_header_value(value.as_ref());
        // Step 2. If validating (name, value) for headers returns false, then return.
        if !self.validate(name, value)? {
            return Ok(());
        }
        // Step 3. If headers's guard is "request-no-cors":
        if self.guard == HeadersGuard::RequestNoCors {
            // Step 3.1. Let temporaryValue be the result of getting name from headers's header
            // list.
            // Step 3.2. If temporaryValue is null, then set temporaryValue to value.
            // Step 3.3. Otherwise, set temporaryValue to temporaryValue, followed by 0x2C 0x20,
            // followed by value.
            let safelisted = match self.header_list.get(name) {
                None => is_no_cors_safelisted_request_header(name, value),
                Some(existing) => {
                    let mut temporary_value = Vec::with_capacity(existing.len() + 2 + value.len());
                    temporary_value.extend_from_slice(&existing);
                    temporary_value.extend_from_slice(b", ");
                    temporary_value.extend_from_slice(value);
                    is_no_cors_safelisted_request_header(name, &temporary_value)
                }
            };
            // Step 3.4. If (name, temporaryValue) is not a no-CORS-safelisted request-header,
            // then return.
            if !safelisted {
                return Ok(());
            }
        }
        // Step 4. Append (name, value) to headers's header list.
        self.header_list.append(name, value);
        // Step 5. If headers's guard is "request-no-cors", then remove privileged no-CORS
        // request-headers from headers.
        if self.guard == HeadersGuard::RequestNoCors {
            self.remove_privileged_no_cors_request_headers();
        }
        Ok(())
    }

    /// [Fill](https://fetch.spec.whatwg.org/#concept-headers-fill) these headers with `object`,
    /// [appending](Headers::append) each header.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) if a sequence item does not have
    /// exactly two items, or [`append`](Headers::append) throws. Headers appended before the
    /// error stay.
    pub(crate) fn fill(&mut self, object: HeadersInit) -> Result<()> {
        match object {
            // Step 1. If object is a sequence, then for each header of object:
            HeadersInit::Sequence(sequence) => {
                for header in sequence {
                    // Step 1.1. If header's size is not 2, then throw a TypeError.
                    let [name, value] = header.as_slice() else {
                        return Err(Error::type_error(format!(
                            "a header must be a [name, value] pair, got {} items",
                            header.len()
                        )));
                    };
                    // Step 1.2. Append (header[0], header[1]) to headers.
                    self.append(name, value)?;
                }
            }
            // Step 2. Otherwise, object is a record, then for each key → value of object,
            // append (key, value) to headers.
            HeadersInit::Record(record) => {
                for (key, value) in record {
                    self.append(key, value)?;
                }
            }
            // A Headers object reaches fill as a sequence, through its iterator.
            HeadersInit::Headers(headers) => {
                for (name, value) in headers.header_list.sort_and_combine() {
                    self.append(name, value)?;
                }
            }
        }
        Ok(())
    }

    /// [Remove privileged no-CORS request-headers](https://fetch.spec.whatwg.org/#concept-headers-remove-privileged-no-cors-request-headers).
    pub(crate) fn remove_privileged_no_cors_request_headers(&mut self) {
        // Step 1. For each headerName of privileged no-CORS request-header names:
        for header_name in PRIVILEGED_NO_CORS_REQUEST_HEADER_NAMES {
            // Step 1.1. Delete headerName from headers's header list.
            self.header_list.delete(header_name);
        }
    }

    /// The [`delete(name)`](https://fetch.spec.whatwg.org/#dom-headers-delete) method: removes
    /// every header named `name`, unless the guard says to ignore it.
    ///
    /// ```
    /// use whatwg_fetch::Headers;
    ///
    /// let mut headers = Headers::from_init([("x-a", "1"), ("X-A", "2"), ("x-b", "3")])?;
    /// headers.delete("X-a")?;
    /// assert!(!headers.has("x-a")?);
    /// assert!(headers.has("x-b")?);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) if `name` is not a header name or
    /// the guard is "immutable".
    pub fn delete(&mut self, name: impl AsRef<[u8]>) -> Result<()> {
        let name = name.as_ref();
        // Step 1. If validating (name, ``) for this returns false, then return.
        if !self.validate(name, b"")? {
            return Ok(());
        }
        // Step 2. If this's guard is "request-no-cors", name is not a no-CORS-safelisted
        // request-header name, and name is not a privileged no-CORS request-header name, then
        // return.
        if self.guard == HeadersGuard::RequestNoCors
            && !is_no_cors_safelisted_request_header_name(name)
            && !is_privileged_no_cors_request_header_name(name)
        {
            return Ok(());
        }
        // Step 3. If this's header list does not contain name, then return.
        if !self.header_list.contains(name) {
            return Ok(());
        }
        // Step 4. Delete name from this's header list.
        self.header_list.delete(name);
        // Step 5. If this's guard is "request-no-cors", then remove privileged no-CORS
        // request-headers from this.
        if self.guard == HeadersGuard::RequestNoCors {
            self.remove_privileged_no_cors_request_headers();
        }
        Ok(())
    }

    /// The [`get(name)`](https://fetch.spec.whatwg.org/#dom-headers-get) method, as bytes:
    /// `None` if there is no such header, else the values joined by `, `, exact.
    ///
    /// ```
    /// use whatwg_fetch::Headers;
    ///
    /// let headers = Headers::from_init(vec![(b"x-raw".to_vec(), b"caf\xE9".to_vec())])?;
    /// // The bytes exactly as they came (here Latin-1), where `get` would decode them as UTF-8.
    /// assert_eq!(headers.get_bytes("x-raw")?.as_deref(), Some(&b"caf\xE9"[..]));
    /// assert_eq!(headers.get("x-raw")?.as_deref(), Some("caf\u{FFFD}"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) if `name` is not a header name.
    pub fn get_bytes(&self, name: impl AsRef<[u8]>) -> Result<Option<Bytes>> {
        let name = name.as_ref();
        // Step 1. If name is not a header name, then throw a TypeError.
        if !is_header_name(name) {
            return Err(invalid_name(name));
        }
        // Step 2. Return the result of getting name from this's header list.
        Ok(self.header_list.get(name))
    }

    /// The [`get(name)`](https://fetch.spec.whatwg.org/#dom-headers-get) method, as a string:
    /// [`get_bytes`](Headers::get_bytes) decoded as UTF-8, with invalid sequences replaced by
    /// U+FFFD. (A JavaScript `ByteString` is the isomorphic decoding of the bytes instead; a
    /// binding should call `get_bytes`.)
    ///
    /// ```
    /// use whatwg_fetch::Headers;
    ///
    /// let headers = Headers::from_init([("Content-Type", "text/html"), ("Vary", "Accept"), ("vary", "Cookie")])?;
    /// assert_eq!(headers.get("content-type")?.as_deref(), Some("text/html"));
    /// // Several headers of one name come as one value, joined by ", ".
    /// assert_eq!(headers.get("Vary")?.as_deref(), Some("Accept, Cookie"));
    /// assert_eq!(headers.get("etag")?, None);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) if `name` is not a header name.
    pub fn get(&self, name: impl AsRef<[u8]>) -> Result<Option<String>> {
        Ok(self.get_bytes(name)?.map(|value| lossy(&value)))
    }

    /// The [`getSetCookie()`](https://fetch.spec.whatwg.org/#dom-headers-getsetcookie) method,
    /// as bytes: the values of every `Set-Cookie` header, in order, never combined.
    ///
    /// ```
    /// use whatwg_fetch::Headers;
    ///
    /// let headers = Headers::from_init([("set-cookie", "a=1"), ("set-cookie", "b=2; Path=/")])?;
    /// assert_eq!(headers.get_set_cookie_bytes(), [&b"a=1"[..], b"b=2; Path=/"]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn get_set_cookie_bytes(&self) -> Vec<Bytes> {
        // Step 1. If this's header list does not contain `Set-Cookie`, then return « ».
        // Step 2. Return the values of all headers in this's header list whose name is a
        // byte-case-insensitive match for `Set-Cookie`, in order.
        self.header_list
            .iter_bytes()
            .filter(|(name, _)| name.eq_ignore_ascii_case(b"Set-Cookie"))
            .map(|(_, value)| value.clone())
            .collect()
    }

    /// The [`getSetCookie()`](https://fetch.spec.whatwg.org/#dom-headers-getsetcookie) method:
    /// [`get_set_cookie_bytes`](Headers::get_set_cookie_bytes) decoded as lossy UTF-8.
    ///
    /// ```
    /// use whatwg_fetch::Headers;
    ///
    /// let headers = Headers::from_init([("set-cookie", "a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT"), ("set-cookie", "b=2")])?;
    /// // Never joined with ", ", which an `Expires` date holds too.
    /// assert_eq!(headers.get_set_cookie(), ["a=1; Expires=Wed, 21 Oct 2026 07:28:00 GMT", "b=2"]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn get_set_cookie(&self) -> Vec<String> {
        self.header_list.values(b"Set-Cookie").map(lossy).collect()
    }

    /// The [`has(name)`](https://fetch.spec.whatwg.org/#dom-headers-has) method: whether there
    /// is a header named `name`.
    ///
    /// ```
    /// use whatwg_fetch::Headers;
    ///
    /// let headers = Headers::from_init([("Authorization", "Bearer t0k3n")])?;
    /// assert!(headers.has("authorization")?);
    /// assert!(!headers.has("cookie")?);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) if `name` is not a header name.
    pub fn has(&self, name: impl AsRef<[u8]>) -> Result<bool> {
        let name = name.as_ref();
        // Step 1. If name is not a header name, then throw a TypeError.
        if !is_header_name(name) {
            return Err(invalid_name(name));
        }
        // Step 2. Return true if this's header list contains name; otherwise false.
        Ok(self.header_list.contains(name))
    }

    /// The [`set(name, value)`](https://fetch.spec.whatwg.org/#dom-headers-set) method: replaces
    /// every header named `name` with one (`name`, `value`). `value` is
    /// [normalized](normalize_header_value) first; the guard may ignore the header.
    ///
    /// ```
    /// use whatwg_fetch::Headers;
    ///
    /// let mut headers = Headers::from_init([("accept", "text/html"), ("accept", "*/*")])?;
    /// headers.set("Accept", "application/json")?;
    /// assert_eq!(headers.get("accept")?.as_deref(), Some("application/json"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) if `name` is not a header name,
    /// the normalized `value` is not a header value, or the guard is "immutable".
    pub fn set(&mut self, name: impl AsRef<[u8]>, value: impl AsRef<[u8]>) -> Result<()> {
        let name = name.as_ref();
        // Step 1. Normalize value.
        let value = normalize_header_value(value.as_ref());
        // Step 2. If validating (name, value) for this returns false, then return.
        if !self.validate(name, value)? {
            return Ok(());
        }
        // Step 3. If this's guard is "request-no-cors" and (name, value) is not a
        // no-CORS-safelisted request-header, then return.
        if self.guard == HeadersGuard::RequestNoCors
            && !is_no_cors_safelisted_request_header(name, value)
        {
            return Ok(());
        }
        // Step 4. Set (name, value) in this's header list.
        self.header_list.set(name, value);
        // Step 5. If this's guard is "request-no-cors", then remove privileged no-CORS
        // request-headers from this.
        if self.guard == HeadersGuard::RequestNoCors {
            self.remove_privileged_no_cors_request_headers();
        }
        Ok(())
    }

    /// The [value pairs to iterate over](https://fetch.spec.whatwg.org/#headers-class): the
    /// [sort and combine](HeaderList::sort_and_combine) of the header list, as (lowercase
    /// name, value decoded as lossy UTF-8).
    ///
    /// ```
    /// use whatwg_fetch::Headers;
    ///
    /// let headers = Headers::from_init([("X-B", "2"), ("x-a", "1"), ("X-B", "3")])?;
    /// // Sorted, lowercase, combined: what JavaScript's iterator gives.
    /// let pairs: Vec<(String, String)> = headers.iter().collect();
    /// assert_eq!(pairs, [("x-a".into(), "1".into()), ("x-b".into(), "2, 3".into())]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn iter(&self) -> Iter {
        Iter {
            inner: self.header_list.sort_and_combine().into_iter(),
        }
    }

    /// The same pairs as [`iter`](Headers::iter) with exact byte values.
    ///
    /// ```
    /// use whatwg_fetch::Headers;
    ///
    /// let headers = Headers::from_init(vec![(b"x-raw".to_vec(), b"\xFF".to_vec())])?;
    /// let (name, value) = headers.iter_bytes().next().expect("one header");
    /// assert_eq!((name.as_str(), &value[..]), ("x-raw", &b"\xFF"[..]));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn iter_bytes(&self) -> IterBytes {
        IterBytes {
            inner: self.header_list.sort_and_combine().into_iter(),
        }
    }

    /// `entries()`: the same as [`iter`](Headers::iter).
    ///
    /// ```
    /// use whatwg_fetch::Headers;
    ///
    /// let headers = Headers::from_init([("accept", "*/*")])?;
    /// assert_eq!(headers.entries().collect::<Vec<_>>(), [("accept".to_owned(), "*/*".to_owned())]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn entries(&self) -> Iter {
        self.iter()
    }

    /// `keys()`: the names of [`iter`](Headers::iter), `set-cookie` once per value.
    ///
    /// ```
    /// use whatwg_fetch::Headers;
    ///
    /// let headers = Headers::from_init([("set-cookie", "a=1"), ("Accept", "*/*"), ("set-cookie", "b=2")])?;
    /// assert_eq!(headers.keys().collect::<Vec<_>>(), ["accept", "set-cookie", "set-cookie"]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn keys(&self) -> impl Iterator<Item = String> {
        self.iter().map(|(name, _)| name)
    }

    /// `values()`: the values of [`iter`](Headers::iter).
    ///
    /// ```
    /// use whatwg_fetch::Headers;
    ///
    /// let headers = Headers::from_init([("x-b", "2"), ("x-a", "1")])?;
    /// assert_eq!(headers.values().collect::<Vec<_>>(), ["1", "2"]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn values(&self) -> impl Iterator<Item = String> {
        self.iter().map(|(_, value)| value)
    }
}

/// A `TypeError` for an invalid header name.
fn invalid_name(name: &[u8]) -> Error {
    Error::type_error(format!(
        "{:?} is not a valid header name",
        String::from_utf8_lossy(name)
    ))
}

/// `bytes` as UTF-8, with invalid sequences replaced by U+FFFD.
fn lossy(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The iterator of [`Headers::iter`]: (lowercase name, lossy UTF-8 value) in sort-and-combine
/// order.
///
/// ```
/// use whatwg_fetch::Headers;
///
/// let headers = Headers::from_init([("b", "2"), ("a", "1")])?;
/// let names: Vec<String> = headers.iter().map(|(name, _)| name).collect();
/// assert_eq!(names, ["a", "b"]);
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Debug)]
pub struct Iter {
    inner: std::vec::IntoIter<(Bytes, Bytes)>,
}

impl Iterator for Iter {
    type Item = (String, String);

    fn next(&mut self) -> Option<(String, String)> {
        self.inner
            .next()
            .map(|(name, value)| (lossy(&name), lossy(&value)))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl ExactSizeIterator for Iter {}

/// The iterator of [`Headers::iter_bytes`]: (lowercase name, exact value) in
/// sort-and-combine order.
///
/// ```
/// use whatwg_fetch::Headers;
///
/// let headers = Headers::from_init([("a", "1")])?;
/// let values: Vec<bytes::Bytes> = headers.iter_bytes().map(|(_, value)| value).collect();
/// assert_eq!(values, [bytes::Bytes::from_static(b"1")]);
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Debug)]
pub struct IterBytes {
    inner: std::vec::IntoIter<(Bytes, Bytes)>,
}

impl Iterator for IterBytes {
    type Item = (String, Bytes);

    fn next(&mut self) -> Option<(String, Bytes)> {
        self.inner.next().map(|(name, value)| (lossy(&name), value))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl ExactSizeIterator for IterBytes {}

impl IntoIterator for &Headers {
    type Item = (String, String);
    type IntoIter = Iter;

    fn into_iter(self) -> Iter {
        self.iter()
    }
}

impl<K: AsRef<[u8]>, V: AsRef<[u8]>> FromIterator<(K, V)> for Headers {
    /// Headers with guard "none" and each pair [appended](Headers::append).
    ///
    /// A pair that `append` rejects (an invalid name or value) is skipped; use
    /// [`Headers::from_init`] to get the `TypeError` instead.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Headers {
        let mut headers = Headers::new();
        for (name, value) in iter {
            // Skipping is the documented behaviour of this infallible conversion.
            let _ = headers.append(name, value);
        }
        headers
    }
}

impl TryFrom<HeadersInit> for Headers {
    type Error = Error;

    /// [`Headers::from_init`].
    ///
    /// # Errors
    ///
    /// As [`Headers::from_init`].
    fn try_from(init: HeadersInit) -> Result<Headers> {
        Headers::from_init(init)
    }
}

impl From<&http::HeaderMap> for Headers {
    /// Headers with guard "none" holding `map`'s headers in its iteration order, values
    /// [normalized](normalize_header_value).
    fn from(map: &http::HeaderMap) -> Headers {
        Headers::from_header_list(HeaderList::from(map), HeadersGuard::None)
    }
}

impl From<http::HeaderMap> for Headers {
    /// As `From<&http::HeaderMap>`.
    fn from(map: http::HeaderMap) -> Headers {
        Headers::from(&map)
    }
}

impl TryFrom<&Headers> for http::HeaderMap {
    type Error = Error;

    /// A map with every header of the header list, in order.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) for a value the `http` crate
    /// rejects: a header value may hold control bytes (other than NUL, CR, LF) and 0x7F, which
    /// [`http::HeaderValue`] does not allow.
    fn try_from(headers: &Headers) -> Result<http::HeaderMap> {
        http::HeaderMap::try_from(&headers.header_list)
    }
}

impl TryFrom<Headers> for http::HeaderMap {
    type Error = Error;

    /// As `TryFrom<&Headers>`.
    ///
    /// # Errors
    ///
    /// As `TryFrom<&Headers>`.
    fn try_from(headers: Headers) -> Result<http::HeaderMap> {
        http::HeaderMap::try_from(&headers.header_list)
    }
}

impl<K: AsRef<[u8]>, V: AsRef<[u8]>> From<Vec<(K, V)>> for HeadersInit {
    /// The record form: each (name, value) appended in order.
    fn from(pairs: Vec<(K, V)>) -> HeadersInit {
        HeadersInit::Record(
            pairs
                .into_iter()
                .map(|(name, value)| (name.as_ref().to_vec(), value.as_ref().to_vec()))
                .collect(),
        )
    }
}

impl<K: AsRef<[u8]>, V: AsRef<[u8]>, const N: usize> From<[(K, V); N]> for HeadersInit {
    /// The record form: each (name, value) appended in order.
    fn from(pairs: [(K, V); N]) -> HeadersInit {
        HeadersInit::Record(
            pairs
                .into_iter()
                .map(|(name, value)| (name.as_ref().to_vec(), value.as_ref().to_vec()))
                .collect(),
        )
    }
}

impl From<Vec<Vec<Vec<u8>>>> for HeadersInit {
    /// The sequence form, checked for pairs when filling.
    fn from(sequence: Vec<Vec<Vec<u8>>>) -> HeadersInit {
        HeadersInit::Sequence(sequence)
    }
}

impl From<Headers> for HeadersInit {
    fn from(headers: Headers) -> HeadersInit {
        HeadersInit::Headers(headers)
    }
}

impl From<&Headers> for HeadersInit {
    fn from(headers: &Headers) -> HeadersInit {
        HeadersInit::Headers(headers.clone())
    }
}

impl From<http::HeaderMap> for HeadersInit {
    /// A [`Headers`] holding the map's headers.
    fn from(map: http::HeaderMap) -> HeadersInit {
        HeadersInit::Headers(Headers::from(&map))
    }
}

impl From<&http::HeaderMap> for HeadersInit {
    /// A [`Headers`] holding the map's headers.
    fn from(map: &http::HeaderMap) -> HeadersInit {
        HeadersInit::Headers(Headers::from(map))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_guard_keeps_forbidden_request_headers_when_not_filtering() {
        let mut headers = Headers::with_guard(HeadersGuard::Request);
        headers.set_filters_forbidden_request_headers(false);
        assert!(!headers.filters_forbidden_request_headers());
        headers.append("Host", "example.com").unwrap();
        headers.append("Cookie", "a=1").unwrap();
        headers.set("X-HTTP-Method-Override", "TRACE").unwrap();
        assert_eq!(headers.header_list().len(), 3);
        headers.delete("Cookie").unwrap();
        assert!(!headers.has("Cookie").unwrap());
        // The flag only concerns the request guard.
        headers.set_guard(HeadersGuard::Response);
        headers.append("Set-Cookie", "a=1").unwrap();
        assert!(!headers.has("Set-Cookie").unwrap());
    }

    #[test]
    fn request_guard_ignores_deleting_forbidden_request_headers() {
        let list: HeaderList = [("Host", "example.com"), ("Accept", "*/*")]
            .into_iter()
            .collect();
        let mut headers = Headers::from_header_list(list, HeadersGuard::Request);
        headers.delete("host").unwrap();
        assert!(headers.has("Host").unwrap());
        headers.set("Host", "other.example").unwrap();
        assert_eq!(headers.get("host").unwrap().as_deref(), Some("example.com"));
    }

    #[test]
    fn request_no_cors_changes_remove_privileged_headers() {
        // A privileged Range header survives until unprivileged code changes the headers.
        let list: HeaderList = [("Range", "bytes=0-"), ("Accept", "*/*")]
            .into_iter()
            .collect();
        let mut headers = Headers::from_header_list(list.clone(), HeadersGuard::RequestNoCors);
        headers.append("X-Ignored", "1").unwrap();
        assert!(
            headers.has("Range").unwrap(),
            "an ignored append changes nothing"
        );
        headers.append("Accept-Language", "en").unwrap();
        assert!(!headers.has("Range").unwrap());

        let mut headers = Headers::from_header_list(list.clone(), HeadersGuard::RequestNoCors);
        headers.set("Content-Type", "text/plain").unwrap();
        assert!(!headers.has("Range").unwrap());

        let mut headers = Headers::from_header_list(list.clone(), HeadersGuard::RequestNoCors);
        headers.delete("Content-Language").unwrap();
        assert!(
            headers.has("Range").unwrap(),
            "deleting nothing returns early"
        );
        headers.delete("Accept").unwrap();
        assert!(!headers.has("Range").unwrap());

        let mut headers = Headers::from_header_list(list, HeadersGuard::RequestNoCors);
        headers.delete("range").unwrap();
        assert_eq!(headers.header_list().len(), 1);
    }

    #[test]
    fn header_list_mut_bypasses_the_guard() {
        let mut headers = Headers::with_guard(HeadersGuard::Immutable);
        headers.header_list_mut().append("Set-Cookie", "a=1");
        assert_eq!(headers.get_set_cookie(), ["a=1"]);
        assert_eq!(headers.into_header_list().len(), 1);
    }
}
