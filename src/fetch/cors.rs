//! The [CORS protocol](https://fetch.spec.whatwg.org/#http-cors-protocol) (Fetch § 3.3):
//! the `Origin` request header, the CORS and TAO checks, the CORS-preflight request and the
//! checks on its response, and the [CORS-preflight cache](https://fetch.spec.whatwg.org/#cors-preflight-cache).

use std::sync::{Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use url::{Origin, Url};

use crate::fetch::checks::{is_same_site, origin_scheme};
use crate::fetch::cors_failure::{CorsCheckFailure, PreflightFailure, PreflightFailureReason};
use crate::headers::{
    Extracted, cors_unsafe_request_header_names, is_cors_non_wildcard_request_header_name,
    is_cors_safelisted_method,
};
use crate::request::{
    ReferrerPolicy, Request, RequestCredentials, RequestMode, RequestOrigin, ResponseTainting,
};
use crate::response::{Response, is_ok_status};

/// The imposed limit on a CORS-preflight cache entry's max-age, in seconds: two hours, as in
/// Chromium (Firefox allows a day). A longer `Access-Control-Max-Age` is cut to this.
pub(crate) const MAX_AGE_LIMIT: u64 = 7200;

/// The max-age of a CORS-preflight response without a valid `Access-Control-Max-Age`, in
/// seconds.
const DEFAULT_MAX_AGE: u64 = 5;

/// A request's origin with `client` resolved to its client's origin, as main fetch does
/// before anything here runs; `None` for a `client` origin in a server-side environment,
/// which has no origin.
pub(crate) fn request_origin(request: &Request) -> Option<Origin> {
    match &request.origin {
        RequestOrigin::Origin(origin) => Some(origin.clone()),
        RequestOrigin::Client => request.client.origin().cloned(),
    }
}

/// A request's [redirect-taint](https://fetch.spec.whatwg.org/#concept-request-tainted-origin).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum RedirectTaint {
    /// `same-origin`.
    SameOrigin,
    /// `same-site`.
    SameSite,
    /// `cross-site`.
    CrossSite,
}

/// Compute the [redirect-taint](https://fetch.spec.whatwg.org/#concept-request-tainted-origin)
/// of `request`, whose resolved origin is `origin`.
fn redirect_taint(request: &Request, origin: &Origin) -> RedirectTaint {
    // Step 1. Assert: request's origin is not "client".
    // Step 2. Let lastURL be null.
    let mut last_url: Option<&Url> = None;
    // Step 3. Let taint be "same-origin".
    let mut taint = RedirectTaint::SameOrigin;
    // Step 4. For each url of request's URL list:
    for url in &request.url_list {
        // Step 4.1. If lastURL is null, then set lastURL to url and continue.
        let Some(last) = last_url else {
            last_url = Some(url);
            continue;
        };
        let (url_origin, last_origin) = (url.origin(), last.origin());
        // Step 4.2. If url's origin is not same site with lastURL's origin and request's
        // origin is not same site with lastURL's origin, then return "cross-site".
        if !is_same_site(&url_origin, &last_origin) && !is_same_site(origin, &last_origin) {
            return RedirectTaint::CrossSite;
        }
        // Step 4.3. If url's origin is not same origin with lastURL's origin and request's
        // origin is not same origin with lastURL's origin, then set taint to "same-site".
        if url_origin != last_origin && *origin != last_origin {
            taint = RedirectTaint::SameSite;
        }
        // Step 4.4. Set lastURL to url.
        last_url = Some(url);
    }
    // Step 5. Return taint.
    taint
}

/// [Serializing a request origin](https://fetch.spec.whatwg.org/#serializing-a-request-origin):
/// `null` after a redirect through another origin, else the origin's ASCII serialization;
/// `None` when the request has no origin (a `client` origin in a server-side environment).
pub(crate) fn serialize_request_origin(request: &Request) -> Option<String> {
    // Step 1. Assert: request's origin is not "client".
    let origin = request_origin(request)?;
    // Step 2. If request's redirect-taint is not "same-origin", then return "null".
    if redirect_taint(request, &origin) != RedirectTaint::SameOrigin {
        return Some("null".to_owned());
    }
    // Step 3. Return request's origin, serialized.
    Some(origin.ascii_serialization())
}

/// [Byte-serializing a request origin](https://fetch.spec.whatwg.org/#byte-serializing-a-request-origin):
/// the serialization, isomorphic encoded (it is ASCII).
pub(crate) fn byte_serialize_request_origin(request: &Request) -> Option<Vec<u8>> {
    serialize_request_origin(request).map(String::into_bytes)
}

/// [Append a request `Origin` header](https://fetch.spec.whatwg.org/#append-a-request-origin-header).
///
/// A request with no origin (a `client` origin in a server-side environment) gets no
/// `Origin` header.
pub(crate) fn append_request_origin_header(request: &mut Request) {
    // Step 1. Assert: request's origin is not "client".
    let Some(origin) = request_origin(request) else {
        return;
    };
    // Step 2. Let serializedOrigin be the result of byte-serializing a request origin with
    // request.
    let Some(mut serialized_origin) = byte_serialize_request_origin(request) else {
        return;
    };
    // Step 3. If request's response tainting is "cors" or request's mode is either
    // "websocket" or "webtransport", then append (`Origin`, serializedOrigin) to request's
    // header list. (This crate has no webtransport mode.)
    if request.response_tainting == ResponseTainting::Cors || request.mode == RequestMode::WebSocket
    {
        request
            .headers
            .header_list_mut()
            .append(b"Origin", serialized_origin);
        return;
    }
    // Step 4. Otherwise, if request's method is neither `GET` nor `HEAD`, then:
    if request.method != "GET" && request.method != "HEAD" {
        // Step 4.1. If request's mode is not "cors", then switch on request's referrer
        // policy:
        if request.mode != RequestMode::Cors {
            match request.referrer_policy {
                // "no-referrer": Set serializedOrigin to `null`.
                ReferrerPolicy::NoReferrer => serialized_origin = b"null".to_vec(),
                // "no-referrer-when-downgrade", "strict-origin",
                // "strict-origin-when-cross-origin": If request's origin is a tuple origin,
                // its scheme is "https", and request's current URL's scheme is not "https",
                // then set serializedOrigin to `null`.
                ReferrerPolicy::NoReferrerWhenDowngrade
                | ReferrerPolicy::StrictOrigin
                | ReferrerPolicy::StrictOriginWhenCrossOrigin => {
                    if origin_scheme(&origin) == Some("https")
                        && request.current_url().scheme() != "https"
                    {
                        serialized_origin = b"null".to_vec();
                    }
                }
                // "same-origin": If request's origin is not same origin with request's
                // current URL's origin, then set serializedOrigin to `null`.
                ReferrerPolicy::SameOrigin => {
                    if origin != request.current_url().origin() {
                        serialized_origin = b"null".to_vec();
                    }
                }
                // Otherwise: Do nothing.
                ReferrerPolicy::Empty
                | ReferrerPolicy::Origin
                | ReferrerPolicy::OriginWhenCrossOrigin
                | ReferrerPolicy::UnsafeUrl => {}
            }
        }
        // Step 4.2. Append (`Origin`, serializedOrigin) to request's header list.
        request
            .headers
            .header_list_mut()
            .append(b"Origin", serialized_origin);
    }
}

/// A [CORS check](https://fetch.spec.whatwg.org/#concept-cors-check) for `request` and
/// `response`: `Ok` for success.
///
/// # Errors
/// The step that returned failure, with what the response held and the request needed.
pub(crate) fn cors_check(request: &Request, response: &Response) -> Result<(), CorsCheckFailure> {
    let header_list = response.headers.header_list();
    let include = request.credentials_mode == RequestCredentials::Include;
    // Step 1. Let origin be the result of getting `Access-Control-Allow-Origin` from
    // response's header list.
    // Step 2. If origin is null, then return failure.
    let Some(origin) = header_list.get(b"Access-Control-Allow-Origin") else {
        return Err(CorsCheckFailure::NoAllowOrigin {
            origin: origin_in_messages(request),
            credentials: include,
        });
    };
    // Step 3. If request's credentials mode is not "include" and origin is `*`, then return
    // success.
    if !include && origin.as_ref() == b"*" {
        return Ok(());
    }
    // Step 4. If the result of byte-serializing a request origin with request is not origin,
    // then return failure.
    if byte_serialize_request_origin(request).as_deref() != Some(origin.as_ref()) {
        return Err(if origin.as_ref() == b"*" {
            CorsCheckFailure::WildcardWithCredentials {
                origin: origin_in_messages(request),
            }
        } else {
            CorsCheckFailure::AllowOriginMismatch {
                allowed: origin.to_vec(),
                origin: origin_in_messages(request),
                redirect_tainted: request_origin(request).is_some_and(|origin| {
                    redirect_taint(request, &origin) != RedirectTaint::SameOrigin
                }),
            }
        });
    }
    // Step 5. If request's credentials mode is not "include", then return success.
    if !include {
        return Ok(());
    }
    // Step 6. Let credentials be the result of getting `Access-Control-Allow-Credentials`
    // from response's header list.
    let credentials = header_list.get(b"Access-Control-Allow-Credentials");
    // Step 7. If credentials is `true`, then return success.
    if credentials.as_deref() == Some(b"true") {
        return Ok(());
    }
    // Step 8. Return failure.
    Err(CorsCheckFailure::AllowCredentialsNotTrue {
        credentials: credentials.map(|value| value.to_vec()),
    })
}

/// The request's serialized origin as a CORS error names it; a request with none (which
/// never has "cors" response tainting) is named as such.
fn origin_in_messages(request: &Request) -> String {
    serialize_request_origin(request).unwrap_or_else(|| "(none)".to_owned())
}

/// A [TAO check](https://fetch.spec.whatwg.org/#concept-tao-check) for `request` and
/// `response`: true for success.
pub(crate) fn tao_check(request: &Request, response: &Response) -> bool {
    // Step 1. Assert: request's origin is not "client".
    // Step 2. If request's timing allow failed flag is set, then return failure.
    if request.timing_allow_failed {
        return false;
    }
    // Steps 4 and 5 can only return success, and step 7 returns it for a response whose
    // tainting is "basic" once step 6 has not returned failure, which it can only do for a
    // navigation: such a request passes whatever the header says, so it is not read (a
    // lookup by name in the response's header list, on every same-origin response).
    if request.mode != RequestMode::Navigate && request.response_tainting == ResponseTainting::Basic
    {
        return true;
    }
    // Step 3. Let values be the result of getting, decoding, and splitting
    // `Timing-Allow-Origin` from response's header list.
    let values = response
        .headers
        .header_list()
        .get_decode_split(b"Timing-Allow-Origin")
        .unwrap_or_default();
    // Step 4. If values contains "*", then return success.
    if values.iter().any(|value| value == "*") {
        return true;
    }
    // Step 5. If values contains the result of serializing a request origin with request,
    // then return success.
    if let Some(serialized) = serialize_request_origin(request) {
        if values.contains(&serialized) {
            return true;
        }
    }
    // Step 6. If request's mode is "navigate" and request's current URL's origin is not same
    // origin with request's origin, then return failure.
    if request.mode == RequestMode::Navigate
        && request_origin(request).as_ref() != Some(&request.current_url().origin())
    {
        return false;
    }
    // Step 7. If request's response tainting is "basic", then return success.
    // Step 8. Return failure.
    request.response_tainting == ResponseTainting::Basic
}

/// The condition of [HTTP fetch](https://fetch.spec.whatwg.org/#concept-http-fetch)'s step
/// 4.1 under which a CORS-preflight fetch is made (given makeCORSPreflight is true): the
/// cache has no entry for the method where one is needed, or none for some CORS-unsafe
/// request-header name.
pub(crate) fn cors_preflight_needed(request: &Request, cache: &CorsPreflightCache) -> bool {
    // There is no method cache entry match for request's method using request, and either
    // request's method is not a CORS-safelisted method or request's use-CORS-preflight flag
    // is set.
    let method_needs_preflight = !cache.method_cache_entry_match(&request.method, request)
        && (!is_cors_safelisted_method(request.method.as_bytes()) || request.use_cors_preflight);
    // There is at least one item in the CORS-unsafe request-header names with request's
    // header list for which there is no header-name cache entry match using request.
    method_needs_preflight
        || cors_unsafe_request_header_names(request.headers.header_list())
            .iter()
            .any(|name| !cache.header_name_cache_entry_match(name, request))
}

/// Steps 1 to 5 of [CORS-preflight fetch](https://fetch.spec.whatwg.org/#cors-preflight-fetch-0):
/// the `OPTIONS` request sent before `request`.
pub(crate) fn cors_preflight_request(request: &Request) -> Request {
    // Step 1. Let preflight be a new request whose method is `OPTIONS`, URL list is a clone
    // of request's URL list, initiator is request's initiator, destination is request's
    // destination, origin is request's origin, referrer is request's referrer, referrer
    // policy is request's referrer policy, mode is "cors", response tainting is "cors", and
    // WebDriver id is request's WebDriver id.
    // (Requests have no initiator or WebDriver id here. The client is kept: it is the
    // environment whose origin, referrer and partition the preflight shares.)
    let mut preflight = Request::from_url(request.current_url().clone());
    preflight.method = "OPTIONS".into();
    preflight.url_list = request.url_list.clone();
    preflight.client = request.client.clone();
    preflight.destination = request.destination;
    preflight.origin = request.origin.clone();
    preflight.referrer = request.referrer.clone();
    preflight.referrer_policy = request.referrer_policy;
    preflight.mode = RequestMode::Cors;
    preflight.response_tainting = ResponseTainting::Cors;
    // Not in the spec: the preflight takes the request's way to the network (its own
    // proxy or resolve overrides), to reach the server the request will.
    preflight.transport_extensions = request.transport_extensions.clone();
    let header_list = preflight.headers.header_list_mut();
    // Step 2. Append (`Accept`, `*/*`) to preflight's header list.
    header_list.append(b"Accept", b"*/*");
    // Step 3. Append (`Access-Control-Request-Method`, request's method) to preflight's
    // header list.
    header_list.append(b"Access-Control-Request-Method", request.method.as_bytes());
    // Step 4. Let headers be the CORS-unsafe request-header names with request's header list.
    let headers = cors_unsafe_request_header_names(request.headers.header_list());
    // Step 5. If headers is not empty, then:
    if !headers.is_empty() {
        // Step 5.1. Let value be the items in headers separated from each other by `,`.
        let value = headers.join(&b","[..]);
        // Step 5.2. Append (`Access-Control-Request-Headers`, value) to preflight's header
        // list.
        header_list.append(b"Access-Control-Request-Headers", value);
    }
    preflight
}

/// Steps 7 and 8 of [CORS-preflight fetch](https://fetch.spec.whatwg.org/#cors-preflight-fetch-0):
/// whether the preflight `response` allows `request`, and if so, the cache entries it
/// creates or refreshes.
///
/// # Errors
/// The step that returned a network error (see [`PreflightFailureReason`]): the CORS check
/// or the status, an unparsable `Access-Control-Allow-Methods` or
/// `Access-Control-Allow-Headers`, a method or a header name that is not allowed.
pub(crate) fn check_cors_preflight_response(
    request: &Request,
    response: &Response,
    cache: &CorsPreflightCache,
) -> Result<(), PreflightFailure> {
    let fail = |reason| {
        Err(PreflightFailure {
            method: request.method.to_string(),
            reason,
        })
    };
    // Step 7. If a CORS check for request and response returns success and response's status
    // is an ok status, then:
    // Step 8. Otherwise, return a network error.
    let cors = cors_check(request, response);
    if !is_ok_status(response.status) {
        return fail(PreflightFailureReason::Status {
            status: response.status,
            cors: cors.err(),
        });
    }
    if let Err(cors) = cors {
        return fail(PreflightFailureReason::CorsCheck(cors));
    }
    let header_list = response.headers.header_list();
    let value_of = |name: &str| header_list.get(name).map(|value| value.to_vec());
    // Step 7.1. Let methods be the result of extracting header list values given
    // `Access-Control-Allow-Methods` and response's header list.
    let methods = header_list.extract_header_list_values(b"Access-Control-Allow-Methods");
    // Step 7.2. Let headerNames be the result of extracting header list values given
    // `Access-Control-Allow-Headers` and response's header list.
    let header_names = header_list.extract_header_list_values(b"Access-Control-Allow-Headers");
    // Step 7.3. If either methods or headerNames is failure, return a network error.
    let unparsable = |header: &'static str| PreflightFailureReason::Unparsable {
        header,
        value: value_of(header).unwrap_or_default(),
    };
    let (methods, header_names) = match (methods, header_names) {
        (Extracted::Failure, _) => {
            return fail(unparsable("Access-Control-Allow-Methods"));
        }
        (_, Extracted::Failure) => {
            return fail(unparsable("Access-Control-Allow-Headers"));
        }
        (methods, header_names) => (methods.value(), header_names.value().unwrap_or_default()),
    };
    // Step 7.4. If methods is null and request's use-CORS-preflight flag is set, then set
    // methods to a new list containing request's method.
    let methods: Vec<Vec<u8>> = match methods {
        Some(methods) => methods.into_iter().map(|method| method.to_vec()).collect(),
        None if request.use_cors_preflight => vec![request.method.as_bytes().to_vec()],
        None => Vec::new(),
    };
    let header_names: Vec<Vec<u8>> = header_names.into_iter().map(|name| name.to_vec()).collect();
    let include = request.credentials_mode == RequestCredentials::Include;
    let contains_star = |list: &[Vec<u8>]| list.iter().any(|item| item == b"*");
    // Step 7.5. If request's method is not in methods, request's method is not a
    // CORS-safelisted method, and request's credentials mode is "include" or methods does
    // not contain `*`, then return a network error.
    let method = request.method.as_bytes();
    if !methods.iter().any(|item| item == method)
        && !is_cors_safelisted_method(method)
        && (include || !contains_star(&methods))
    {
        return fail(PreflightFailureReason::MethodNotAllowed {
            allowed: value_of("Access-Control-Allow-Methods"),
            wildcard: contains_star(&methods),
        });
    }
    let is_allowed_name = |name: &[u8]| {
        header_names
            .iter()
            .any(|item| item.eq_ignore_ascii_case(name))
    };
    // Step 7.6. If one of request's header list's names is a CORS non-wildcard request-header
    // name and is not a byte-case-insensitive match for an item in headerNames, then return a
    // network error.
    if let Some((name, _)) =
        request.headers.header_list().iter().find(|(name, _)| {
            is_cors_non_wildcard_request_header_name(name) && !is_allowed_name(name)
        })
    {
        return fail(PreflightFailureReason::NonWildcardHeaderNotListed {
            name: name.to_vec(),
            allowed: value_of("Access-Control-Allow-Headers"),
        });
    }
    // Step 7.7. For each unsafeName of the CORS-unsafe request-header names with request's
    // header list, if unsafeName is not a byte-case-insensitive match for an item in
    // headerNames and request's credentials mode is "include" or headerNames does not contain
    // `*`, return a network error.
    for unsafe_name in cors_unsafe_request_header_names(request.headers.header_list()) {
        if !is_allowed_name(&unsafe_name) && (include || !contains_star(&header_names)) {
            return fail(PreflightFailureReason::HeaderNotAllowed {
                name: unsafe_name.to_vec(),
                allowed: value_of("Access-Control-Allow-Headers"),
                wildcard: contains_star(&header_names),
            });
        }
    }
    // Step 7.8. Let max-age be the result of extracting header list values given
    // `Access-Control-Max-Age` and response's header list.
    // Step 7.9. If max-age is failure or null, then set max-age to 5.
    let max_age = match header_list.extract_header_list_values(b"Access-Control-Max-Age") {
        Extracted::Value(values) => values.first().map_or(DEFAULT_MAX_AGE, |value| {
            parse_delta_seconds(value).unwrap_or(DEFAULT_MAX_AGE)
        }),
        Extracted::Null | Extracted::Failure => DEFAULT_MAX_AGE,
    };
    // Step 7.10. If max-age is greater than an imposed limit on max-age, then set max-age to
    // the imposed limit.
    let max_age = max_age.min(MAX_AGE_LIMIT);
    // Step 7.11. If the user agent does not provide for a cache, then return response.
    // (It does.)
    let mut entries = cache.entries();
    let now = Instant::now();
    let expiry = now + Duration::from_secs(max_age);
    let key = CacheKey::of(request);
    // Step 7.12. For each method in methods for which there is a method cache entry match
    // using request, set matching entry's max-age to max-age.
    // Step 7.13. For each method in methods for which there is no method cache entry match
    // using request, create a new cache entry with request, max-age, method, and null.
    for method in &methods {
        let mut matched = false;
        for entry in entries.iter_mut() {
            if entry.matches_method(&key, method, now) {
                entry.expiry = expiry;
                matched = true;
            }
        }
        if !matched {
            entries.push(key.entry(expiry, Some(method.clone()), None));
        }
    }
    // Step 7.14. For each headerName in headerNames for which there is a header-name cache
    // entry match using request, set matching entry's max-age to max-age.
    // Step 7.15. For each headerName in headerNames for which there is no header-name cache
    // entry match using request, create a new cache entry with request, max-age, null, and
    // headerName.
    for header_name in &header_names {
        let mut matched = false;
        for entry in entries.iter_mut() {
            if entry.matches_header_name(&key, header_name, now) {
                entry.expiry = expiry;
                matched = true;
            }
        }
        if !matched {
            entries.push(key.entry(expiry, None, Some(header_name.clone())));
        }
    }
    // Step 7.16. Return response.
    Ok(())
}

/// A `delta-seconds` value as a number, saturating: any value beyond the imposed limit is
/// cut to it anyway.
fn parse_delta_seconds(value: &[u8]) -> Option<u64> {
    if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
        return None;
    }
    Some(value.iter().fold(0u64, |seconds, &digit| {
        seconds
            .saturating_mul(10)
            .saturating_add(u64::from(digit - b'0'))
    }))
}

/// Main fetch's step setting a response's
/// [CORS-exposed header-name list](https://fetch.spec.whatwg.org/#concept-response-cors-exposed-header-name-list)
/// from `Access-Control-Expose-Headers`, for a request whose response tainting is `cors`
/// (for any other request this does nothing).
pub(crate) fn set_cors_exposed_header_names(request: &Request, response: &mut Response) {
    // Step 14.1. If request's response tainting is "cors", then:
    if request.response_tainting != ResponseTainting::Cors {
        return;
    }
    // Step 14.1.1. Let headerNames be the result of extracting header list values given
    // `Access-Control-Expose-Headers` and response's header list.
    let header_list = response.headers.header_list();
    let header_names = header_list.extract_header_list_values(b"Access-Control-Expose-Headers");
    let Extracted::Value(header_names) = header_names else {
        // Step 14.1.3. Otherwise, if headerNames is non-null or failure, ...: null and
        // failure leave the list as it is.
        return;
    };
    // Step 14.1.2. If request's credentials mode is not "include" and headerNames contains
    // `*`, then set response's CORS-exposed header-name list to all unique header names in
    // response's header list.
    if request.credentials_mode != RequestCredentials::Include
        && header_names.iter().any(|name| name.as_ref() == b"*")
    {
        let mut unique: Vec<Vec<u8>> = Vec::new();
        for (name, _) in header_list.iter() {
            if !unique.iter().any(|seen| seen.eq_ignore_ascii_case(name)) {
                unique.push(name.to_vec());
            }
        }
        response.cors_exposed_header_names = unique.into_boxed_slice();
        return;
    }
    // Step 14.1.3. Otherwise, if headerNames is non-null or failure, then set response's
    // CORS-exposed header-name list to headerNames.
    response.cors_exposed_header_names =
        header_names.into_iter().map(|name| name.to_vec()).collect();
}

/// The [CORS-preflight cache](https://fetch.spec.whatwg.org/#concept-cache): what earlier
/// CORS-preflight responses allowed, so that a request they cover can skip its preflight.
///
/// Entries live for their `Access-Control-Max-Age` (5 seconds by default, at most
/// [`MAX_AGE_LIMIT`]). The cache is shared between threads; a client holds one.
#[derive(Debug, Default)]
pub(crate) struct CorsPreflightCache {
    entries: Mutex<Vec<CacheEntry>>,
}

/// A [cache entry](https://fetch.spec.whatwg.org/#cache-entry).
#[derive(Clone, Debug)]
struct CacheEntry {
    /// <https://fetch.spec.whatwg.org/#concept-cache-key>: the network partition key, here
    /// the serialization of the client's origin (`None` without one).
    key: Option<String>,
    /// <https://fetch.spec.whatwg.org/#concept-cache-origin>.
    byte_serialized_origin: Option<Vec<u8>>,
    /// <https://fetch.spec.whatwg.org/#concept-cache-url>.
    url: Url,
    /// <https://fetch.spec.whatwg.org/#concept-cache-max-age>, as the moment the entry
    /// expires.
    expiry: Instant,
    /// <https://fetch.spec.whatwg.org/#concept-cache-credentials>.
    credentials: bool,
    /// <https://fetch.spec.whatwg.org/#concept-cache-method>: null, `*` or a method.
    method: Option<Vec<u8>>,
    /// <https://fetch.spec.whatwg.org/#concept-cache-header-name>: null, `*` or a header name.
    header_name: Option<Vec<u8>>,
}

/// What a [cache entry match](https://fetch.spec.whatwg.org/#concept-cache-match) compares
/// with a request: computed once per lookup.
struct CacheKey {
    /// The result of determining the network partition key given request.
    // DEVIATION: the network partition key is (top-level site, null); with no nested
    // navigables the top-level site is the client's origin, kept as its serialization.
    key: Option<String>,
    /// The result of byte-serializing a request origin with request.
    byte_serialized_origin: Option<Vec<u8>>,
    /// Request's current URL.
    url: Url,
    /// Whether request's credentials mode is "include".
    include: bool,
}

impl CacheKey {
    fn of(request: &Request) -> CacheKey {
        CacheKey {
            key: request
                .client
                .origin()
                .map(|origin| origin.ascii_serialization()),
            byte_serialized_origin: byte_serialize_request_origin(request),
            url: request.current_url().clone(),
            include: request.credentials_mode == RequestCredentials::Include,
        }
    }

    /// [Create a new cache entry](https://fetch.spec.whatwg.org/#concept-cache-create-entry)
    /// (step 1; the caller appends it).
    fn entry(
        &self,
        expiry: Instant,
        method: Option<Vec<u8>>,
        header_name: Option<Vec<u8>>,
    ) -> CacheEntry {
        CacheEntry {
            key: self.key.clone(),
            byte_serialized_origin: self.byte_serialized_origin.clone(),
            url: self.url.clone(),
            expiry,
            credentials: self.include,
            method,
            header_name,
        }
    }
}

impl CacheEntry {
    /// Whether the entry is for the same partition, origin and URL as `key`.
    fn is_for(&self, key: &CacheKey) -> bool {
        self.key == key.key
            && self.byte_serialized_origin == key.byte_serialized_origin
            && self.url == key.url
    }

    /// A [cache entry match](https://fetch.spec.whatwg.org/#concept-cache-match), for an
    /// entry that has not expired.
    fn matches(&self, key: &CacheKey, now: Instant) -> bool {
        self.expiry > now && self.is_for(key) && (self.credentials || !key.include)
    }

    /// The entry part of a [method cache entry match](https://fetch.spec.whatwg.org/#concept-cache-match-method):
    /// a cache entry match whose method is `method` or `*`.
    fn matches_method(&self, key: &CacheKey, method: &[u8], now: Instant) -> bool {
        self.matches(key, now)
            && self
                .method
                .as_deref()
                .is_some_and(|entry_method| entry_method == method || entry_method == b"*")
    }

    /// The entry part of a [header-name cache entry match](https://fetch.spec.whatwg.org/#concept-cache-match-header):
    /// a cache entry match whose header name is a byte-case-insensitive match for
    /// `header_name`, or is `*` when `header_name` is not a CORS non-wildcard request-header
    /// name.
    fn matches_header_name(&self, key: &CacheKey, header_name: &[u8], now: Instant) -> bool {
        self.matches(key, now)
            && self.header_name.as_deref().is_some_and(|entry_name| {
                entry_name.eq_ignore_ascii_case(header_name)
                    || (entry_name == b"*"
                        && !is_cors_non_wildcard_request_header_name(header_name))
            })
    }
}

impl CorsPreflightCache {
    /// The entries, with expired ones removed ("Cache entries must be removed after the
    /// seconds specified in their max-age field have passed since storing the entry").
    fn entries(&self) -> MutexGuard<'_, Vec<CacheEntry>> {
        // An entry list is valid after any panic mid-update: take it as it is.
        let mut entries = self.entries.lock().unwrap_or_else(PoisonError::into_inner);
        let now = Instant::now();
        entries.retain(|entry| entry.expiry > now);
        entries
    }

    /// Whether there is a [method cache entry match](https://fetch.spec.whatwg.org/#concept-cache-match-method)
    /// for `method` using `request`.
    pub(crate) fn method_cache_entry_match(&self, method: &str, request: &Request) -> bool {
        let key = CacheKey::of(request);
        let now = Instant::now();
        self.entries()
            .iter()
            .any(|entry| entry.matches_method(&key, method.as_bytes(), now))
    }

    /// Whether there is a [header-name cache entry match](https://fetch.spec.whatwg.org/#concept-cache-match-header)
    /// for `header_name` using `request`.
    pub(crate) fn header_name_cache_entry_match(
        &self,
        header_name: &[u8],
        request: &Request,
    ) -> bool {
        let key = CacheKey::of(request);
        let now = Instant::now();
        self.entries()
            .iter()
            .any(|entry| entry.matches_header_name(&key, header_name, now))
    }

    /// [Create a new cache entry](https://fetch.spec.whatwg.org/#concept-cache-create-entry)
    /// with `request`, `max_age` (seconds), `method` and `header_name`, and append it.
    #[cfg(test)]
    pub(crate) fn create_new_cache_entry(
        &self,
        request: &Request,
        max_age: u64,
        method: Option<&[u8]>,
        header_name: Option<&[u8]>,
    ) {
        // Step 1. Let entry be a cache entry, initialized as follows: (...)
        let expiry = Instant::now() + Duration::from_secs(max_age.min(MAX_AGE_LIMIT));
        let entry = CacheKey::of(request).entry(
            expiry,
            method.map(<[u8]>::to_vec),
            header_name.map(<[u8]>::to_vec),
        );
        // Step 2. Append entry to the user agent's CORS-preflight cache.
        self.entries().push(entry);
    }

    /// [Clear cache entries](https://fetch.spec.whatwg.org/#concept-cache-clear) for
    /// `request`: remove those for its partition, its origin and its current URL.
    pub(crate) fn clear_cache_entries(&self, request: &Request) {
        let key = CacheKey::of(request);
        self.entries().retain(|entry| !entry.is_for(&key));
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::environment::Environment;
    use crate::headers::{Headers, HeadersGuard};

    const PAGE: &str = "https://a.example/page";

    fn page() -> Arc<Environment> {
        Arc::new(Environment::browser(Url::parse(PAGE).unwrap()))
    }

    fn new_request(method: &str, url: &str) -> Request {
        let mut request = Request::from_url(Url::parse(url).unwrap());
        request.client = page();
        request.method = method.to_owned().into();
        request
    }

    fn cors_request(method: &str, url: &str) -> Request {
        let mut request = new_request(method, url);
        request.mode = RequestMode::Cors;
        request.response_tainting = ResponseTainting::Cors;
        request
    }

    fn response(status: u16, headers: &[(&str, &str)]) -> Response {
        let mut list = Headers::with_guard(HeadersGuard::None);
        for (name, value) in headers {
            list.header_list_mut().append(name, value);
        }
        Response::from_network(
            status,
            String::new(),
            list,
            None,
            vec![Url::parse("https://b.example/api").unwrap()],
        )
    }

    /// Whether the CORS check returns success.
    fn passes(request: &Request, response: &Response) -> bool {
        cors_check(request, response).is_ok()
    }

    #[test]
    fn each_failing_step_of_the_cors_check_is_told_apart() {
        let mut request = cors_request("GET", "https://b.example/api");
        let origin = || "https://a.example".to_owned();
        assert_eq!(
            cors_check(&request, &response(200, &[])),
            Err(CorsCheckFailure::NoAllowOrigin {
                origin: origin(),
                credentials: false
            })
        );
        assert_eq!(
            cors_check(
                &request,
                &response(200, &[("Access-Control-Allow-Origin", "https://c.example")])
            ),
            Err(CorsCheckFailure::AllowOriginMismatch {
                allowed: b"https://c.example".to_vec(),
                origin: origin(),
                redirect_tainted: false
            })
        );
        request.credentials_mode = RequestCredentials::Include;
        assert_eq!(
            cors_check(
                &request,
                &response(200, &[("Access-Control-Allow-Origin", "*")])
            ),
            Err(CorsCheckFailure::WildcardWithCredentials { origin: origin() })
        );
        assert_eq!(
            cors_check(
                &request,
                &response(
                    200,
                    &[ALLOW_ORIGIN, ("Access-Control-Allow-Credentials", "yes")]
                )
            ),
            Err(CorsCheckFailure::AllowCredentialsNotTrue {
                credentials: Some(b"yes".to_vec())
            })
        );
        assert_eq!(
            cors_check(&request, &response(200, &[ALLOW_ORIGIN])),
            Err(CorsCheckFailure::AllowCredentialsNotTrue { credentials: None })
        );
        // A redirect through another origin taints the request: its origin is "null".
        request.credentials_mode = RequestCredentials::SameOrigin;
        request
            .url_list
            .push(Url::parse("https://c.example/moved").unwrap());
        assert_eq!(
            cors_check(&request, &response(200, &[ALLOW_ORIGIN])),
            Err(CorsCheckFailure::AllowOriginMismatch {
                allowed: b"https://a.example".to_vec(),
                origin: "null".to_owned(),
                redirect_tainted: true
            })
        );
    }

    #[test]
    fn a_preflight_that_fails_both_status_and_cors_check_says_both() {
        let request = cors_request("PUT", "https://b.example/api");
        let failure = check_cors_preflight_response(
            &request,
            &response(405, &[]),
            &CorsPreflightCache::default(),
        )
        .unwrap_err();
        assert_eq!(failure.method, "PUT");
        assert!(matches!(
            failure.reason,
            PreflightFailureReason::Status {
                status: 405,
                cors: Some(CorsCheckFailure::NoAllowOrigin { .. })
            }
        ));
    }

    fn origin_header(request: &Request) -> Option<String> {
        request
            .headers
            .header_list()
            .get(b"Origin")
            .map(|value| String::from_utf8(value.to_vec()).unwrap())
    }

    fn with_origin_header(mut request: Request) -> Option<String> {
        append_request_origin_header(&mut request);
        origin_header(&request)
    }

    #[test]
    fn serialized_origin_is_null_after_a_cross_origin_redirect() {
        let mut request = new_request("GET", "https://a.example/x");
        assert_eq!(
            serialize_request_origin(&request).as_deref(),
            Some("https://a.example")
        );
        // Through another origin of the same site and back: same-site taint.
        request
            .url_list
            .push(Url::parse("https://www.a.example/y").unwrap());
        request
            .url_list
            .push(Url::parse("https://b.a.example/z").unwrap());
        let origin = request_origin(&request).unwrap();
        assert_eq!(redirect_taint(&request, &origin), RedirectTaint::SameSite);
        assert_eq!(serialize_request_origin(&request).as_deref(), Some("null"));
        // Through another site: cross-site.
        let mut request = new_request("GET", "https://b.example/x");
        request
            .url_list
            .push(Url::parse("https://c.example/y").unwrap());
        assert_eq!(redirect_taint(&request, &origin), RedirectTaint::CrossSite);
        // A redirect from the request's own origin elsewhere is still same-origin.
        let mut request = new_request("GET", "https://a.example/x");
        request
            .url_list
            .push(Url::parse("https://b.example/y").unwrap());
        assert_eq!(redirect_taint(&request, &origin), RedirectTaint::SameOrigin);
    }

    #[test]
    fn server_side_requests_have_no_origin() {
        let mut request = Request::from_url(Url::parse("https://b.example/").unwrap());
        request.method = "POST".into();
        request.response_tainting = ResponseTainting::Cors;
        assert_eq!(serialize_request_origin(&request), None);
        assert_eq!(with_origin_header(request), None);
    }

    #[test]
    fn explicit_origin_is_used() {
        let mut request = Request::from_url(Url::parse("https://b.example/").unwrap());
        request.origin =
            RequestOrigin::Origin(Url::parse("https://c.example:8443/").unwrap().origin());
        request.response_tainting = ResponseTainting::Cors;
        assert_eq!(
            with_origin_header(request).as_deref(),
            Some("https://c.example:8443")
        );
    }

    #[test]
    fn origin_header_for_cors_and_for_unsafe_methods() {
        // CORS tainting: always, even for GET.
        assert_eq!(
            with_origin_header(cors_request("GET", "https://b.example/")).as_deref(),
            Some("https://a.example")
        );
        // Basic or opaque tainting: not for GET and HEAD.
        assert_eq!(
            with_origin_header(new_request("GET", "https://a.example/")),
            None
        );
        assert_eq!(
            with_origin_header(new_request("HEAD", "https://b.example/")),
            None
        );
        // But for POST and others.
        assert_eq!(
            with_origin_header(new_request("POST", "https://a.example/")).as_deref(),
            Some("https://a.example")
        );
        let mut no_cors = new_request("PUT", "https://b.example/");
        no_cors.response_tainting = ResponseTainting::Opaque;
        assert_eq!(
            with_origin_header(no_cors).as_deref(),
            Some("https://a.example")
        );
    }

    #[test]
    fn origin_header_follows_the_referrer_policy_outside_cors() {
        let with_policy = |policy: ReferrerPolicy, url: &str, mode: RequestMode| {
            let mut request = new_request("POST", url);
            request.referrer_policy = policy;
            request.mode = mode;
            with_origin_header(request)
        };
        let null = Some("null".to_owned());
        let origin = Some("https://a.example".to_owned());
        assert_eq!(
            with_policy(
                ReferrerPolicy::NoReferrer,
                "https://a.example/",
                RequestMode::NoCors
            ),
            null
        );
        // In cors mode the policy is not consulted.
        assert_eq!(
            with_policy(
                ReferrerPolicy::NoReferrer,
                "https://a.example/",
                RequestMode::Cors
            ),
            origin
        );
        for policy in [
            ReferrerPolicy::NoReferrerWhenDowngrade,
            ReferrerPolicy::StrictOrigin,
            ReferrerPolicy::StrictOriginWhenCrossOrigin,
        ] {
            assert_eq!(
                with_policy(policy, "http://b.example/", RequestMode::NoCors),
                null,
                "{policy:?}"
            );
            assert_eq!(
                with_policy(policy, "https://b.example/", RequestMode::NoCors),
                origin,
                "{policy:?}"
            );
        }
        assert_eq!(
            with_policy(
                ReferrerPolicy::SameOrigin,
                "https://b.example/",
                RequestMode::NoCors
            ),
            null
        );
        assert_eq!(
            with_policy(
                ReferrerPolicy::SameOrigin,
                "https://a.example/",
                RequestMode::SameOrigin
            ),
            origin
        );
        for policy in [
            ReferrerPolicy::Origin,
            ReferrerPolicy::OriginWhenCrossOrigin,
            ReferrerPolicy::UnsafeUrl,
        ] {
            assert_eq!(
                with_policy(policy, "http://b.example/", RequestMode::NoCors),
                origin,
                "{policy:?}"
            );
        }
    }

    #[test]
    fn cors_check_with_wildcard_and_credentials() {
        let mut request = cors_request("GET", "https://b.example/api");
        assert!(!passes(&request, &response(200, &[])));
        assert!(passes(
            &request,
            &response(200, &[("Access-Control-Allow-Origin", "*")])
        ));
        assert!(passes(
            &request,
            &response(200, &[("Access-Control-Allow-Origin", "https://a.example")])
        ));
        assert!(!passes(
            &request,
            &response(
                200,
                &[("Access-Control-Allow-Origin", "https://a.example/")]
            )
        ));
        assert!(!passes(
            &request,
            &response(200, &[("Access-Control-Allow-Origin", "null")])
        ));
        // Two values combine into one that matches nothing.
        assert!(!passes(
            &request,
            &response(
                200,
                &[
                    ("Access-Control-Allow-Origin", "*"),
                    ("Access-Control-Allow-Origin", "*")
                ]
            )
        ));
        request.credentials_mode = RequestCredentials::Include;
        assert!(!passes(
            &request,
            &response(
                200,
                &[
                    ("Access-Control-Allow-Origin", "*"),
                    ("Access-Control-Allow-Credentials", "true")
                ]
            )
        ));
        assert!(!passes(
            &request,
            &response(200, &[("Access-Control-Allow-Origin", "https://a.example")])
        ));
        assert!(!passes(
            &request,
            &response(
                200,
                &[
                    ("Access-Control-Allow-Origin", "https://a.example"),
                    ("Access-Control-Allow-Credentials", "TRUE")
                ]
            )
        ));
        assert!(passes(
            &request,
            &response(
                200,
                &[
                    ("Access-Control-Allow-Origin", "https://a.example"),
                    ("Access-Control-Allow-Credentials", "true")
                ]
            )
        ));
    }

    #[test]
    fn tao_check_rules() {
        let request = cors_request("GET", "https://b.example/api");
        assert!(!tao_check(&request, &response(200, &[])));
        assert!(tao_check(
            &request,
            &response(200, &[("Timing-Allow-Origin", "https://c.example, *")])
        ));
        assert!(tao_check(
            &request,
            &response(200, &[("Timing-Allow-Origin", "https://a.example")])
        ));
        let basic = new_request("GET", "https://a.example/x");
        assert!(tao_check(&basic, &response(200, &[])));
        let mut navigate = new_request("GET", "https://b.example/x");
        navigate.mode = RequestMode::Navigate;
        assert!(!tao_check(&navigate, &response(200, &[])));
        // Once a hop failed, the rest of the chain fails too, whatever it allows.
        let mut failed = cors_request("GET", "https://b.example/api");
        failed.timing_allow_failed = true;
        assert!(!tao_check(
            &failed,
            &response(200, &[("Timing-Allow-Origin", "*")])
        ));
    }

    #[test]
    fn preflight_request_carries_method_and_unsafe_header_names() {
        let mut request = cors_request("PUT", "https://b.example/api");
        request.referrer_policy = ReferrerPolicy::NoReferrer;
        let list = request.headers.header_list_mut();
        list.append(b"X-B", b"1");
        list.append(b"Accept", b"text/plain");
        list.append(b"x-a", b"2");
        list.append(b"Content-Type", b"application/json");
        let preflight = cors_preflight_request(&request);
        assert_eq!(preflight.method, "OPTIONS");
        assert_eq!(preflight.url_list, request.url_list);
        assert_eq!(preflight.mode, RequestMode::Cors);
        assert_eq!(preflight.response_tainting, ResponseTainting::Cors);
        assert_eq!(preflight.referrer_policy, ReferrerPolicy::NoReferrer);
        assert_eq!(preflight.origin, request.origin);
        assert!(Arc::ptr_eq(&preflight.client, &request.client));
        let headers: Vec<(String, String)> = preflight
            .headers
            .header_list()
            .iter()
            .map(|(name, value)| {
                (
                    String::from_utf8(name.to_vec()).unwrap(),
                    String::from_utf8(value.to_vec()).unwrap(),
                )
            })
            .collect();
        let expected = [
            ("Accept", "*/*"),
            ("Access-Control-Request-Method", "PUT"),
            ("Access-Control-Request-Headers", "content-type,x-a,x-b"),
        ]
        .map(|(name, value)| (name.to_owned(), value.to_owned()));
        assert_eq!(headers, expected);
        // No unsafe headers, no Access-Control-Request-Headers.
        let preflight = cors_preflight_request(&cors_request("DELETE", "https://b.example/"));
        assert!(
            !preflight
                .headers
                .header_list()
                .contains(b"Access-Control-Request-Headers")
        );
    }

    const ALLOW_ORIGIN: (&str, &str) = ("Access-Control-Allow-Origin", "https://a.example");

    fn check(request: &Request, headers: &[(&str, &str)]) -> Result<(), PreflightFailure> {
        check_cors_preflight_response(
            request,
            &response(200, headers),
            &CorsPreflightCache::default(),
        )
    }

    #[test]
    fn preflight_needs_the_cors_check_and_an_ok_status() {
        let request = cors_request("PUT", "https://b.example/api");
        let cache = CorsPreflightCache::default();
        let allow = [ALLOW_ORIGIN, ("Access-Control-Allow-Methods", "PUT")];
        assert!(matches!(
            check_cors_preflight_response(&request, &response(204, &allow), &cache),
            Ok(())
        ));
        assert!(matches!(
            check_cors_preflight_response(&request, &response(302, &allow), &cache),
            Err(PreflightFailure {
                reason: PreflightFailureReason::Status {
                    status: 302,
                    cors: None
                },
                ..
            })
        ));
        assert!(matches!(
            check(&request, &[("Access-Control-Allow-Methods", "PUT")]),
            Err(PreflightFailure {
                reason: PreflightFailureReason::CorsCheck(CorsCheckFailure::NoAllowOrigin { .. }),
                ..
            })
        ));
    }

    #[test]
    fn preflight_methods() {
        let put = cors_request("PUT", "https://b.example/api");
        assert!(check(&put, &[ALLOW_ORIGIN]).is_err());
        assert!(
            check(
                &put,
                &[ALLOW_ORIGIN, ("Access-Control-Allow-Methods", "GET, POST")]
            )
            .is_err()
        );
        assert!(
            check(
                &put,
                &[ALLOW_ORIGIN, ("Access-Control-Allow-Methods", "GET, PUT")]
            )
            .is_ok()
        );
        // Methods are case-sensitive.
        assert!(
            check(
                &put,
                &[ALLOW_ORIGIN, ("Access-Control-Allow-Methods", "put")]
            )
            .is_err()
        );
        assert!(check(&put, &[ALLOW_ORIGIN, ("Access-Control-Allow-Methods", "*")]).is_ok());
        // An unparsable list is a network error, even for a safelisted method.
        let post = cors_request("POST", "https://b.example/api");
        assert!(check(&post, &[ALLOW_ORIGIN]).is_ok());
        assert!(
            check(
                &post,
                &[ALLOW_ORIGIN, ("Access-Control-Allow-Methods", "PO ST")]
            )
            .is_err()
        );
        assert!(
            check(
                &post,
                &[ALLOW_ORIGIN, ("Access-Control-Allow-Headers", "a b")]
            )
            .is_err()
        );
        // With credentials, `*` is just a method named `*`.
        let mut put = put;
        put.credentials_mode = RequestCredentials::Include;
        let credentialed = [ALLOW_ORIGIN, ("Access-Control-Allow-Credentials", "true")];
        let with = |methods: &str| {
            let mut headers = credentialed.to_vec();
            headers.push(("Access-Control-Allow-Methods", methods));
            check(&put, &headers)
        };
        assert!(with("*").is_err());
        assert!(with("*, PUT").is_ok());
    }

    #[test]
    fn preflight_header_names() {
        let mut request = cors_request("GET", "https://b.example/api");
        request.headers.header_list_mut().append(b"X-Custom", b"1");
        assert!(check(&request, &[ALLOW_ORIGIN]).is_err());
        assert!(
            check(
                &request,
                &[ALLOW_ORIGIN, ("Access-Control-Allow-Headers", "x-custom")]
            )
            .is_ok()
        );
        assert!(
            check(
                &request,
                &[ALLOW_ORIGIN, ("Access-Control-Allow-Headers", "*")]
            )
            .is_ok()
        );
        // Authorization must be named, even with `*`.
        request
            .headers
            .header_list_mut()
            .append(b"Authorization", b"Bearer x");
        assert!(
            check(
                &request,
                &[ALLOW_ORIGIN, ("Access-Control-Allow-Headers", "*")]
            )
            .is_err()
        );
        assert!(
            check(
                &request,
                &[
                    ALLOW_ORIGIN,
                    ("Access-Control-Allow-Headers", "*, authorization")
                ]
            )
            .is_ok()
        );
        // With credentials, `*` is not a wildcard.
        request.credentials_mode = RequestCredentials::Include;
        let credentialed = |allowed: &str| {
            check(
                &request,
                &[
                    ALLOW_ORIGIN,
                    ("Access-Control-Allow-Credentials", "true"),
                    ("Access-Control-Allow-Headers", allowed),
                ],
            )
        };
        assert!(credentialed("*, authorization").is_err());
        assert!(credentialed("Authorization, X-CUSTOM").is_ok());
    }

    #[test]
    fn preflight_populates_the_cache() {
        let cache = CorsPreflightCache::default();
        let mut request = cors_request("PUT", "https://b.example/api");
        request.headers.header_list_mut().append(b"X-A", b"1");
        assert!(cors_preflight_needed(&request, &cache));
        let preflight = response(
            200,
            &[
                ALLOW_ORIGIN,
                ("Access-Control-Allow-Methods", "PUT, PATCH"),
                ("Access-Control-Allow-Headers", "x-a"),
                ("Access-Control-Max-Age", "600"),
            ],
        );
        check_cors_preflight_response(&request, &preflight, &cache).unwrap();
        assert_eq!(cache.entries().len(), 3);
        assert!(cache.method_cache_entry_match("PUT", &request));
        assert!(cache.method_cache_entry_match("PATCH", &request));
        assert!(!cache.method_cache_entry_match("DELETE", &request));
        assert!(cache.header_name_cache_entry_match(b"X-a", &request));
        assert!(!cache.header_name_cache_entry_match(b"x-b", &request));
        assert!(!cors_preflight_needed(&request, &cache));
        // The same preflight again refreshes rather than duplicates.
        check_cors_preflight_response(&request, &preflight, &cache).unwrap();
        assert_eq!(cache.entries().len(), 3);
        // Another URL, or a credentialed request, has no entry.
        let other = cors_request("PUT", "https://b.example/other");
        assert!(!cache.method_cache_entry_match("PUT", &other));
        let mut credentialed = cors_request("PUT", "https://b.example/api");
        credentialed.credentials_mode = RequestCredentials::Include;
        assert!(!cache.method_cache_entry_match("PUT", &credentialed));
        // Clearing removes the entries for the request's origin and URL.
        cache.clear_cache_entries(&other);
        assert_eq!(cache.entries().len(), 3);
        cache.clear_cache_entries(&request);
        assert!(cache.entries().is_empty());
    }

    #[test]
    fn credentialed_entries_serve_uncredentialed_requests() {
        let cache = CorsPreflightCache::default();
        let mut credentialed = cors_request("PUT", "https://b.example/api");
        credentialed.credentials_mode = RequestCredentials::Include;
        cache.create_new_cache_entry(&credentialed, 60, Some(b"PUT"), None);
        assert!(cache.method_cache_entry_match("PUT", &credentialed));
        let plain = cors_request("PUT", "https://b.example/api");
        assert!(cache.method_cache_entry_match("PUT", &plain));
    }

    #[test]
    fn wildcard_cache_entries() {
        let cache = CorsPreflightCache::default();
        let request = cors_request("PUT", "https://b.example/api");
        cache.create_new_cache_entry(&request, 60, Some(b"*"), Some(b"*"));
        cache.create_new_cache_entry(&request, 60, None, Some(b"*"));
        assert!(cache.method_cache_entry_match("DELETE", &request));
        assert!(cache.header_name_cache_entry_match(b"x-anything", &request));
        assert!(!cache.header_name_cache_entry_match(b"authorization", &request));
    }

    #[test]
    fn an_empty_cache_matches_nothing() {
        let cache = CorsPreflightCache::default();
        let request = cors_request("PUT", "https://b.example/api");
        assert!(!cache.method_cache_entry_match("PUT", &request));
        assert!(!cache.header_name_cache_entry_match(b"x-custom", &request));
        cache.clear_cache_entries(&request);
        assert!(cache.entries().is_empty());
    }

    #[test]
    fn safelisted_requests_need_no_preflight() {
        let cache = CorsPreflightCache::default();
        let get = cors_request("GET", "https://b.example/api");
        assert!(!cors_preflight_needed(&get, &cache));
        let mut flagged = cors_request("GET", "https://b.example/api");
        flagged.use_cors_preflight = true;
        assert!(cors_preflight_needed(&flagged, &cache));
        // With the flag and no Access-Control-Allow-Methods, the method itself is cached.
        check_cors_preflight_response(&flagged, &response(200, &[ALLOW_ORIGIN]), &cache).unwrap();
        assert!(cache.method_cache_entry_match("GET", &flagged));
        assert!(!cors_preflight_needed(&flagged, &cache));
    }

    #[test]
    fn max_age_defaults_and_limits() {
        assert_eq!(parse_delta_seconds(b"600"), Some(600));
        assert_eq!(
            parse_delta_seconds(b"99999999999999999999999"),
            Some(u64::MAX)
        );
        assert_eq!(parse_delta_seconds(b"-1"), None);
        assert_eq!(parse_delta_seconds(b""), None);
        let cache = CorsPreflightCache::default();
        let request = cors_request("PUT", "https://b.example/api");
        // max-age 0: allowed once, but nothing stays cached.
        let zero = response(
            200,
            &[
                ALLOW_ORIGIN,
                ("Access-Control-Allow-Methods", "PUT"),
                ("Access-Control-Max-Age", "0"),
            ],
        );
        check_cors_preflight_response(&request, &zero, &cache).unwrap();
        assert!(!cache.method_cache_entry_match("PUT", &request));
        // An invalid max-age falls back to 5 seconds.
        let invalid = response(
            200,
            &[
                ALLOW_ORIGIN,
                ("Access-Control-Allow-Methods", "PUT"),
                ("Access-Control-Max-Age", "soon"),
            ],
        );
        check_cors_preflight_response(&request, &invalid, &cache).unwrap();
        assert!(cache.method_cache_entry_match("PUT", &request));
    }

    #[test]
    fn exposed_header_names() {
        let mut request = cors_request("GET", "https://b.example/api");
        let exposed = |request: &Request, headers: &[(&str, &str)]| {
            let mut response = response(200, headers);
            set_cors_exposed_header_names(request, &mut response);
            response
                .cors_exposed_header_names
                .iter()
                .map(|name| String::from_utf8(name.clone()).unwrap())
                .collect::<Vec<_>>()
        };
        assert!(exposed(&request, &[]).is_empty());
        assert_eq!(
            exposed(&request, &[("Access-Control-Expose-Headers", "X-A, x-b")]),
            ["X-A", "x-b"]
        );
        assert!(exposed(&request, &[("Access-Control-Expose-Headers", "x a")]).is_empty());
        let wildcard = [
            ("Access-Control-Expose-Headers", "*"),
            ("X-One", "1"),
            ("x-one", "2"),
            ("X-Two", "3"),
        ];
        assert_eq!(
            exposed(&request, &wildcard),
            ["Access-Control-Expose-Headers", "X-One", "X-Two"]
        );
        request.credentials_mode = RequestCredentials::Include;
        assert_eq!(exposed(&request, &wildcard), ["*"]);
        // Only for CORS tainting.
        let basic = new_request("GET", "https://a.example/");
        assert!(exposed(&basic, &wildcard).is_empty());
    }
}
