//! An in-memory private [HTTP cache](https://httpwg.org/specs/rfc9111.html), the `httpCache`
//! of [HTTP-network-or-cache fetch](https://fetch.spec.whatwg.org/#http-network-or-cache-fetch).
//!
//! What it does, and what it leaves out:
//!
//! - Only `GET` responses are stored, keyed by whether the request carries credentials
//!   (credentialed and anonymous responses are kept apart, as Firefox does) and the request
//!   URL without its fragment, with the request's values of the response's `Vary` header
//!   names; `Vary: *` is never stored.
//! - Freshness per [RFC 9111 §4.2](https://httpwg.org/specs/rfc9111.html#expiration.model):
//!   `Cache-Control: max-age`, else `Expires` − `Date`, else 10% of `Date` −
//!   `Last-Modified` for the heuristically cacheable statuses (or `public`); the age counts
//!   `Age`, the response delay and the time resident. `s-maxage` is ignored (this cache is
//!   private). A response with `no-cache`, or one that is stale, is validated with
//!   `If-None-Match` / `If-Modified-Since` before it is used (by the caller, HTTP-network-or-
//!   cache fetch). The request directives `no-cache`, `no-store`, `max-age`, `min-fresh`,
//!   `max-stale` (not past `must-revalidate`) and `only-if-cached` (a 504 when nothing is
//!   stored), and `Pragma: no-cache`, are honoured. `stale-while-revalidate` is not: a stale
//!   response is always validated (or refetched) first.
//! - Not stored: `no-store` on the request or the response, requests with `Authorization`
//!   (unless `public`, `s-maxage` or `must-revalidate`), requests with `Range`, partial
//!   content (206), 304 responses (they only freshen a stored one), statuses not
//!   heuristically cacheable without explicit freshness, and responses that would be stale
//!   at once and have no validator. Responses to `POST` with a `Content-Location` are not
//!   stored for `GET`.
//! - `HEAD` is not answered from stored `GET` responses.
//! - A response is stored only once its body has been read to the end (or at once when its
//!   body is known to be empty: a null body status or `Content-Length: 0`, which covers the
//!   usual redirect, whose body a followed redirect never reads), and only if the body
//!   is at most [`HttpCache::DEFAULT_MAX_ENTRY_BYTES`]; an errored or cancelled body stores
//!   nothing.
//! - Bounded by entry count and total bytes; the least recently used entries are evicted.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, SystemTime};

use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;

use crate::body::Body;
use crate::headers::{HeaderList, Headers, HeadersGuard};
use crate::request::{Request, RequestCredentials, ResponseTainting};
use crate::response::{Response, is_null_body_status};

/// A private, in-memory HTTP cache shared by the fetches of one client.
///
/// Thread-safe; [`Default`] gives the limits [`HttpCache::DEFAULT_MAX_ENTRIES`],
/// [`HttpCache::DEFAULT_MAX_BYTES`] and [`HttpCache::DEFAULT_MAX_ENTRY_BYTES`].
///
/// ```
/// use whatwg_fetch::fetch::http_cache::HttpCache;
///
/// let cache = HttpCache::with_limits(100, 1 << 20, 64 << 10);
/// assert!(cache.is_empty());
/// ```
pub struct HttpCache {
    inner: Mutex<Inner>,
    max_entries: usize,
    max_bytes: usize,
    max_entry_bytes: usize,
}

#[derive(Default)]
struct Inner {
    /// Entries by URL (without fragment).
    entries: HashMap<String, Vec<Entry>>,
    /// The number of entries.
    count: usize,
    /// The bytes held by all entries.
    total_bytes: usize,
    /// A counter for recency and entry ids.
    clock: u64,
}

#[derive(Clone)]
struct Entry {
    id: u64,
    /// The request's values for the response's `Vary` names (lowercase).
    vary: Vec<(Vec<u8>, Option<Bytes>)>,
    status: u16,
    status_message: Cow<'static, str>,
    headers: HeaderList,
    body: Bytes,
    request_time: SystemTime,
    response_time: SystemTime,
    last_used: u64,
    size: usize,
}

/// A stored response selected for a request: the spec's `storedResponse`.
pub(crate) struct StoredResponse {
    id: u64,
    url: String,
    /// Whether it is a [stale response](https://fetch.spec.whatwg.org/#concept-stale-response)
    /// (or must be validated before use).
    pub(crate) stale: bool,
    entry: Entry,
}

impl StoredResponse {
    /// The stored response's header list.
    pub(crate) fn header_list(&self) -> &HeaderList {
        &self.entry.headers
    }

    /// A new response for the stored one: cloned headers with an updated `Age`, and a
    /// body of the stored bytes.
    pub(crate) fn to_response(&self) -> Response {
        entry_response(&self.entry, SystemTime::now())
    }
}

impl Default for HttpCache {
    fn default() -> HttpCache {
        HttpCache::with_limits(
            HttpCache::DEFAULT_MAX_ENTRIES,
            HttpCache::DEFAULT_MAX_BYTES,
            HttpCache::DEFAULT_MAX_ENTRY_BYTES,
        )
    }
}

impl std::fmt::Debug for HttpCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let inner = self.lock();
        f.debug_struct("HttpCache")
            .field("entries", &inner.count)
            .field("bytes", &inner.total_bytes)
            .field("max_entries", &self.max_entries)
            .field("max_bytes", &self.max_bytes)
            .finish_non_exhaustive()
    }
}

impl HttpCache {
    /// The default maximum number of stored responses: 1,024.
    pub const DEFAULT_MAX_ENTRIES: usize = 1024;
    /// The default maximum of bytes (bodies and headers) held: 64 MiB.
    pub const DEFAULT_MAX_BYTES: usize = 64 << 20;
    /// The default maximum body size of one stored response: 8 MiB.
    pub const DEFAULT_MAX_ENTRY_BYTES: usize = 8 << 20;

    /// A cache holding at most `max_entries` responses and `max_bytes` bytes, each response
    /// body at most `max_entry_bytes`.
    pub fn with_limits(max_entries: usize, max_bytes: usize, max_entry_bytes: usize) -> HttpCache {
        HttpCache {
            inner: Mutex::new(Inner::default()),
            max_entries,
            max_bytes,
            max_entry_bytes,
        }
    }

    /// The number of stored responses.
    pub fn len(&self) -> usize {
        self.lock().count
    }

    /// Whether nothing is stored.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every stored response.
    pub fn clear(&self) {
        let mut inner = self.lock();
        inner.entries.clear();
        inner.count = 0;
        inner.total_bytes = 0;
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves consistent data (every update is
        // completed before it can panic), so a poisoned lock is used as is.
        self.inner
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Selects a stored response for `request`, possibly needing validation, per
    /// [RFC 9111 §4](https://httpwg.org/specs/rfc9111.html#constructing.responses.from.caches).
    pub(crate) fn select(&self, request: &Request) -> Option<StoredResponse> {
        if !is_cacheable_request(request) || cache_control(request.headers.header_list()).no_store {
            return None;
        }
        let url = cache_key(request);
        let now = SystemTime::now();
        let mut inner = self.lock();
        inner.clock += 1;
        let clock = inner.clock;
        let entries = inner.entries.get_mut(&url)?;
        let entry = entries
            .iter_mut()
            .find(|entry| vary_matches(entry, request.headers.header_list()))?;
        entry.last_used = clock;
        let entry = entry.clone();
        drop(inner);
        let stale = needs_validation(&entry, request.headers.header_list(), now);
        Some(StoredResponse {
            id: entry.id,
            url,
            stale,
            entry,
        })
    }

    /// [Freshens](https://httpwg.org/specs/rfc9111.html#freshening.responses) `stored` with
    /// the headers of a 304 response, in the cache too, and returns the updated response.
    pub(crate) fn freshen(
        &self,
        stored: StoredResponse,
        not_modified: &HeaderList,
        request_time: SystemTime,
        response_time: SystemTime,
    ) -> Response {
        let mut entry = stored.entry;
        update_headers(&mut entry.headers, not_modified);
        entry.request_time = request_time;
        entry.response_time = response_time;
        let mut inner = self.lock();
        if let Some(stored_entry) = inner
            .entries
            .get_mut(&stored.url)
            .and_then(|entries| entries.iter_mut().find(|entry| entry.id == stored.id))
        {
            stored_entry.headers = entry.headers.clone();
            stored_entry.request_time = request_time;
            stored_entry.response_time = response_time;
        }
        drop(inner);
        entry_response(&entry, response_time)
    }

    /// [Invalidates](https://httpwg.org/specs/rfc9111.html#invalidation) the stored responses
    /// for the target URL of an unsafe request, and for its response's `Location` and
    /// `Content-Location` when they are same origin.
    pub(crate) fn invalidate(&self, request: &Request, response: &Response) {
        let target = request.current_url();
        let mut urls = vec![url_without_fragment(target)];
        for name in ["location", "content-location"] {
            if let Some(value) = response.headers.header_list().get(name) {
                if let Ok(url) = target.join(&String::from_utf8_lossy(&value)) {
                    if url.origin() == target.origin() {
                        urls.push(url_without_fragment(&url));
                    }
                }
            }
        }
        let mut inner = self.lock();
        for url in urls {
            for include_credentials in [false, true] {
                let key = credentials_key(include_credentials, &url);
                if let Some(entries) = inner.entries.remove(&key) {
                    inner.count -= entries.len();
                    inner.total_bytes -= entries.iter().map(|entry| entry.size).sum::<usize>();
                }
            }
        }
    }

    /// Stores `response` for `request` once its body has been read to the end, if
    /// [RFC 9111 §3](https://httpwg.org/specs/rfc9111.html#response.cacheability) allows it:
    /// the body is wrapped so that its bytes are kept as they are read.
    pub(crate) fn store(
        self: &Arc<Self>,
        request: &Request,
        response: &mut Response,
        request_time: SystemTime,
        response_time: SystemTime,
    ) {
        let header_list = response.headers.header_list();
        if !is_cacheable_request(request)
            || !is_storable(
                response.status,
                header_list,
                request.headers.header_list(),
                SystemTime::now(),
            )
        {
            return;
        }
        let Some(vary) = vary_values(header_list, request.headers.header_list()) else {
            return;
        };
        let entry = Entry {
            id: 0,
            vary,
            status: response.status,
            status_message: response.status_message.clone(),
            headers: header_list.clone(),
            body: Bytes::new(),
            request_time,
            response_time,
            last_used: 0,
            size: 0,
        };
        let url = cache_key(request);
        let body = match response.body.take() {
            None => {
                self.insert(url, entry);
                return;
            }
            // A body known to be empty (a null body status, or `Content-Length: 0`, as
            // redirects often have) is stored at once: a followed redirect is never read.
            Some(body)
                if is_null_body_status(response.status)
                    || header_list.extract_length().value() == Some(0) =>
            {
                self.insert(url.clone(), entry);
                response.body = Some(body);
                return;
            }
            Some(body) => body,
        };
        response.body = Some(Body::from_stream(CachingBody {
            body,
            cache: Arc::clone(self),
            pending: Some((url, entry, BytesMut::new())),
        }));
    }

    /// Inserts `entry` for `url`, replacing what the same request would select, and
    /// evicts the least recently used entries beyond the limits.
    fn insert(&self, url: String, mut entry: Entry) {
        entry.size = entry.body.len()
            + entry
                .headers
                .iter_bytes()
                .map(|(name, value)| name.len() + value.len())
                .sum::<usize>();
        if entry.size > self.max_bytes || self.max_entries == 0 {
            return;
        }
        let mut inner = self.lock();
        let inner = &mut *inner;
        inner.clock += 1;
        entry.id = inner.clock;
        entry.last_used = inner.clock;
        let entries = inner.entries.entry(url).or_default();
        // A stored response with the same Vary'd request values is replaced.
        if let Some(index) = entries.iter().position(|stored| stored.vary == entry.vary) {
            let old = entries.swap_remove(index);
            inner.count -= 1;
            inner.total_bytes -= old.size;
        }
        inner.count += 1;
        inner.total_bytes += entry.size;
        entries.push(entry);
        while inner.count > self.max_entries || inner.total_bytes > self.max_bytes {
            if !evict_least_recently_used(inner) {
                break;
            }
        }
    }
}

/// Removes the least recently used entry; false when there is none.
fn evict_least_recently_used(inner: &mut Inner) -> bool {
    let oldest = inner
        .entries
        .iter()
        .flat_map(|(url, entries)| {
            entries
                .iter()
                .enumerate()
                .map(move |(index, entry)| (entry.last_used, url, index))
        })
        .min_by_key(|(last_used, _, _)| *last_used)
        .map(|(_, url, index)| (url.clone(), index));
    let Some((url, index)) = oldest else {
        return false;
    };
    let Some(entries) = inner.entries.get_mut(&url) else {
        return false;
    };
    if index < entries.len() {
        let old = entries.swap_remove(index);
        inner.count -= 1;
        inner.total_bytes -= old.size;
    }
    if entries.is_empty() {
        inner.entries.remove(&url);
    }
    true
}

/// A response body that keeps its bytes as they are read, and stores the response when
/// the stream ends; an error, a body over the size limit, or a body dropped before its end
/// stores nothing.
struct CachingBody {
    body: Body,
    cache: Arc<HttpCache>,
    pending: Option<(String, Entry, BytesMut)>,
}

impl futures_core::Stream for CachingBody {
    type Item = crate::error::Result<Bytes>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        let this = &mut *self;
        let item = std::task::ready!(this.body.poll_next_unpin(cx));
        match &item {
            Some(Ok(bytes)) => {
                let max = this.cache.max_entry_bytes;
                if let Some((_, _, buffer)) = this.pending.as_mut() {
                    if buffer.len() + bytes.len() > max {
                        this.pending = None;
                    } else {
                        buffer.extend_from_slice(bytes);
                    }
                }
            }
            Some(Err(_)) => this.pending = None,
            None => {
                if let Some((url, mut entry, buffer)) = this.pending.take() {
                    entry.body = buffer.freeze();
                    this.cache.insert(url, entry);
                }
            }
        }
        std::task::Poll::Ready(item)
    }
}

/// Whether `request` has the request directive `Cache-Control: only-if-cached`
/// ([RFC 9111 §5.2.1.7](https://httpwg.org/specs/rfc9111.html#cache-request-directive.only-if-cached)):
/// when nothing stored can answer it, the cache answers 504 (Gateway Timeout).
pub(crate) fn requests_only_if_cached(request: &Request) -> bool {
    cache_control(request.headers.header_list()).only_if_cached
}

/// A 504 (Gateway Timeout) response, the cache's answer to `only-if-cached` when it has
/// nothing.
pub(crate) fn gateway_timeout() -> Response {
    Response::from_network(
        504,
        "Gateway Timeout",
        Headers::from_header_list(HeaderList::new(), HeadersGuard::Immutable),
        None,
        Vec::new(),
    )
}

/// The cache key of `request`: whether it carries credentials (responses to credentialed
/// and anonymous requests are kept apart, as Firefox does), and its current URL without
/// fragment.
fn cache_key(request: &Request) -> String {
    credentials_key(
        includes_credentials(request),
        &url_without_fragment(request.current_url()),
    )
}

fn credentials_key(include_credentials: bool, url: &str) -> String {
    let prefix = if include_credentials { "c " } else { "a " };
    let mut key = String::with_capacity(prefix.len() + url.len());
    key.push_str(prefix);
    key.push_str(url);
    key
}

/// The `includeCredentials` of HTTP-network-or-cache fetch.
fn includes_credentials(request: &Request) -> bool {
    request.credentials_mode == RequestCredentials::Include
        || (request.credentials_mode == RequestCredentials::SameOrigin
            && request.response_tainting == ResponseTainting::Basic)
}

fn url_without_fragment(url: &url::Url) -> String {
    match url.fragment() {
        Some(_) => url[..url::Position::AfterQuery].to_owned(),
        None => url.as_str().to_owned(),
    }
}

/// Whether the cache is consulted and written for `request` at all: `GET` without
/// `Range` (ranges are not stored or served from stored full responses).
fn is_cacheable_request(request: &Request) -> bool {
    request.method == "GET" && !request.headers.header_list().contains("range")
}

/// The parsed `Cache-Control` directives of a header list.
#[derive(Debug, Default, PartialEq)]
struct CacheControl {
    max_age: Option<u64>,
    s_maxage: bool,
    no_store: bool,
    no_cache: bool,
    must_revalidate: bool,
    public: bool,
    /// `max-stale`: `Some(None)` without an argument (any staleness).
    max_stale: Option<Option<u64>>,
    min_fresh: Option<u64>,
    only_if_cached: bool,
}

/// Parses every `Cache-Control` header of `headers` (names are case-insensitive; an
/// invalid `max-age` counts as 0, i.e. stale, as RFC 9111 §4.2.1 advises; a repeated one
/// takes the first).
fn cache_control(headers: &HeaderList) -> CacheControl {
    let mut directives = CacheControl::default();
    for value in headers.values(b"cache-control") {
        for directive in value.split(|&byte| byte == b',') {
            let directive = String::from_utf8_lossy(directive);
            let (name, argument) = match directive.split_once('=') {
                Some((name, argument)) => (name.trim(), Some(argument.trim().trim_matches('"'))),
                None => (directive.trim(), None),
            };
            match name.to_ascii_lowercase().as_str() {
                "max-age" if directives.max_age.is_none() => {
                    directives.max_age =
                        Some(argument.and_then(|age| age.parse().ok()).unwrap_or(0));
                }
                "s-maxage" => directives.s_maxage = true,
                "max-stale" => {
                    directives.max_stale = Some(argument.and_then(|stale| stale.parse().ok()));
                }
                "min-fresh" => {
                    directives.min_fresh = argument.and_then(|fresh| fresh.parse().ok());
                }
                "no-store" => directives.no_store = true,
                "no-cache" => directives.no_cache = true,
                "must-revalidate" => directives.must_revalidate = true,
                "public" => directives.public = true,
                "only-if-cached" => directives.only_if_cached = true,
                _ => {}
            }
        }
    }
    directives
}

/// An HTTP-date header value, if it parses.
fn date_header(headers: &HeaderList, name: &str) -> Option<SystemTime> {
    let value = headers.get(name)?;
    httpdate::parse_http_date(std::str::from_utf8(&value).ok()?.trim()).ok()
}

/// Whether `status` is [heuristically cacheable](https://httpwg.org/specs/rfc9110.html#rfc.section.15.1).
fn is_heuristically_cacheable(status: u16) -> bool {
    matches!(
        status,
        200 | 203 | 204 | 300 | 301 | 308 | 404 | 405 | 410 | 414 | 501
    )
}

/// The [freshness lifetime](https://httpwg.org/specs/rfc9111.html#calculating.freshness.lifetime)
/// of a response with `status` and `headers`, received at `response_time`.
fn freshness_lifetime(status: u16, headers: &HeaderList, response_time: SystemTime) -> Duration {
    let directives = cache_control(headers);
    // If the cache is not shared, s-maxage is ignored; max-age comes first.
    if let Some(max_age) = directives.max_age {
        return Duration::from_secs(max_age);
    }
    let date = date_header(headers, "date").unwrap_or(response_time);
    // Otherwise, if the Expires header field is present, its value minus the value of the
    // Date header field (an invalid Expires means already expired).
    if headers.contains("expires") {
        return date_header(headers, "expires")
            .and_then(|expires| expires.duration_since(date).ok())
            .unwrap_or(Duration::ZERO);
    }
    // Otherwise, a heuristic freshness lifetime: 10% of the time since Last-Modified.
    if is_heuristically_cacheable(status) || directives.public {
        if let Some(last_modified) = date_header(headers, "last-modified") {
            if let Ok(since) = date.duration_since(last_modified) {
                return since / 10;
            }
        }
    }
    Duration::ZERO
}

/// The [current age](https://httpwg.org/specs/rfc9111.html#age.calculations) at `now` of a
/// response with `headers`, requested at `request_time` and received at `response_time`.
fn current_age(
    headers: &HeaderList,
    request_time: SystemTime,
    response_time: SystemTime,
    now: SystemTime,
) -> Duration {
    let age_value = headers
        .get("age")
        .and_then(|age| std::str::from_utf8(&age).ok()?.trim().parse::<u64>().ok())
        .map_or(Duration::ZERO, Duration::from_secs);
    let date_value = date_header(headers, "date").unwrap_or(response_time);
    let apparent_age = response_time
        .duration_since(date_value)
        .unwrap_or(Duration::ZERO);
    let response_delay = response_time
        .duration_since(request_time)
        .unwrap_or(Duration::ZERO);
    let corrected_age_value = age_value.saturating_add(response_delay);
    let corrected_initial_age = apparent_age.max(corrected_age_value);
    let resident_time = now.duration_since(response_time).unwrap_or(Duration::ZERO);
    corrected_initial_age.saturating_add(resident_time)
}

/// Whether `entry` must be validated before it answers a request with `request_headers`
/// at `now`: it is stale (beyond what the request's `max-stale` allows), it says
/// `no-cache`, or the request asks for validation (`no-cache`, `Pragma: no-cache`,
/// `max-age`, `min-fresh`).
fn needs_validation(entry: &Entry, request_headers: &HeaderList, now: SystemTime) -> bool {
    let response = cache_control(&entry.headers);
    let request = cache_control(request_headers);
    if response.no_cache
        || request.no_cache
        || (!request_headers.contains("cache-control")
            && request_headers
                .values(b"pragma")
                .any(|value| value.eq_ignore_ascii_case(b"no-cache")))
    {
        return true;
    }
    let age = current_age(&entry.headers, entry.request_time, entry.response_time, now);
    let lifetime = freshness_lifetime(entry.status, &entry.headers, entry.response_time);
    if request
        .max_age
        .is_some_and(|max_age| age > Duration::from_secs(max_age))
    {
        return true;
    }
    if request
        .min_fresh
        .is_some_and(|min_fresh| lifetime < age.saturating_add(Duration::from_secs(min_fresh)))
    {
        return true;
    }
    if lifetime > age {
        return false;
    }
    // Stale: usable only within the request's max-stale, and never with must-revalidate.
    match request.max_stale {
        Some(max_stale) if !response.must_revalidate => {
            max_stale.is_some_and(|max_stale| age - lifetime > Duration::from_secs(max_stale))
        }
        _ => true,
    }
}

/// Whether a response may be [stored](https://httpwg.org/specs/rfc9111.html#response.cacheability).
fn is_storable(
    status: u16,
    headers: &HeaderList,
    request_headers: &HeaderList,
    now: SystemTime,
) -> bool {
    let directives = cache_control(headers);
    if matches!(status, 206 | 304) || directives.no_store || cache_control(request_headers).no_store
    {
        return false;
    }
    if request_headers.contains("authorization")
        && !(directives.public || directives.s_maxage || directives.must_revalidate)
    {
        return false;
    }
    let explicit = directives.max_age.is_some() || headers.contains("expires");
    if !explicit && !directives.public && !is_heuristically_cacheable(status) {
        return false;
    }
    // A response that is stale at once and cannot be validated is of no use.
    let has_validator = headers.contains("etag") || headers.contains("last-modified");
    has_validator || freshness_lifetime(status, headers, now) > Duration::ZERO
}

/// The request's values for the response's `Vary` names, or `None` for `Vary: *`.
fn vary_values(
    response_headers: &HeaderList,
    request_headers: &HeaderList,
) -> Option<Vec<(Vec<u8>, Option<Bytes>)>> {
    let mut vary = Vec::new();
    for value in response_headers.values(b"vary") {
        for name in value.split(|&byte| byte == b',') {
            let name = name.trim_ascii().to_ascii_lowercase();
            if name.is_empty() {
                continue;
            }
            if name == b"*" {
                return None;
            }
            let value = request_headers.get(&name);
            vary.push((name, value));
        }
    }
    Some(vary)
}

/// Whether the request headers match the values `entry` was stored with.
fn vary_matches(entry: &Entry, request_headers: &HeaderList) -> bool {
    entry
        .vary
        .iter()
        .all(|(name, value)| request_headers.get(name) == *value)
}

/// Updates a stored header list with a 304's headers, as
/// [RFC 9111 §3.2](https://httpwg.org/specs/rfc9111.html#update) says: every field of the
/// 304 replaces the stored ones of that name, except `Content-Length`.
fn update_headers(stored: &mut HeaderList, not_modified: &HeaderList) {
    let mut replaced: Vec<Vec<u8>> = Vec::new();
    for (name, _) in not_modified.iter_bytes() {
        let lower = name.to_ascii_lowercase();
        if lower == b"content-length" || replaced.contains(&lower) {
            continue;
        }
        stored.delete(&lower);
        replaced.push(lower);
    }
    for (name, value) in not_modified.iter_bytes() {
        if !name.eq_ignore_ascii_case(b"content-length") {
            stored.push(name.clone(), value.clone());
        }
    }
}

/// A new response for a stored entry at `now`: cloned headers with `Age` set to its
/// current age, and a body of the stored bytes.
fn entry_response(entry: &Entry, now: SystemTime) -> Response {
    let mut headers = entry.headers.clone();
    let age = current_age(&entry.headers, entry.request_time, entry.response_time, now);
    headers.set("Age", age.as_secs().to_string());
    let body = if entry.body.is_empty() && is_null_body_status(entry.status) {
        None
    } else {
        Some(Body::from_bytes(entry.body.clone()))
    };
    Response::from_network(
        entry.status,
        entry.status_message.clone(),
        Headers::from_header_list(headers, HeadersGuard::Immutable),
        body,
        Vec::new(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(headers: &[(&str, &str)]) -> HeaderList {
        headers.iter().copied().collect()
    }

    fn at(seconds: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + seconds)
    }

    fn date(seconds: u64) -> String {
        httpdate::fmt_http_date(at(seconds))
    }

    fn entry(headers: HeaderList, status: u16) -> Entry {
        Entry {
            id: 0,
            vary: Vec::new(),
            status,
            status_message: Cow::Borrowed(""),
            headers,
            body: Bytes::from_static(b"body"),
            request_time: at(0),
            response_time: at(0),
            last_used: 0,
            size: 0,
        }
    }

    #[test]
    fn max_age_comes_before_expires_and_s_maxage_is_ignored() {
        let headers = list(&[
            ("Cache-Control", "s-maxage=10, max-age=100"),
            ("Date", &date(0)),
            ("Expires", &date(5)),
        ]);
        assert_eq!(
            freshness_lifetime(200, &headers, at(0)),
            Duration::from_secs(100)
        );
        let headers = list(&[("Cache-Control", "s-maxage=10")]);
        assert_eq!(freshness_lifetime(200, &headers, at(0)), Duration::ZERO);
    }

    #[test]
    fn expires_counts_from_date_and_an_invalid_one_is_already_expired() {
        let headers = list(&[("Date", &date(0)), ("Expires", &date(60))]);
        assert_eq!(
            freshness_lifetime(200, &headers, at(30)),
            Duration::from_secs(60)
        );
        let headers = list(&[("Date", &date(0)), ("Expires", "0")]);
        assert_eq!(freshness_lifetime(200, &headers, at(0)), Duration::ZERO);
    }

    #[test]
    fn heuristic_freshness_is_a_tenth_of_the_age_of_last_modified_for_some_statuses() {
        let headers = list(&[("Date", &date(1000)), ("Last-Modified", &date(0))]);
        assert_eq!(
            freshness_lifetime(200, &headers, at(1000)),
            Duration::from_secs(100)
        );
        assert_eq!(
            freshness_lifetime(404, &headers, at(1000)),
            Duration::from_secs(100)
        );
        assert_eq!(freshness_lifetime(500, &headers, at(1000)), Duration::ZERO);
        assert_eq!(freshness_lifetime(302, &headers, at(1000)), Duration::ZERO);
    }

    #[test]
    fn current_age_adds_age_delay_and_resident_time() {
        let headers = list(&[("Age", "100"), ("Date", &date(10))]);
        // Requested at 10, received at 12: corrected age 102, then 20 s resident.
        assert_eq!(
            current_age(&headers, at(10), at(12), at(32)),
            Duration::from_secs(122)
        );
        // A Date far in the past makes the apparent age win.
        let headers = list(&[("Date", &date(0))]);
        assert_eq!(
            current_age(&headers, at(500), at(500), at(500)),
            Duration::from_secs(500)
        );
    }

    #[test]
    fn stale_and_no_cache_responses_need_validation() {
        let now = at(10);
        let fresh = entry(list(&[("Cache-Control", "max-age=60")]), 200);
        assert!(!needs_validation(&fresh, &HeaderList::new(), now));
        let aged = entry(list(&[("Cache-Control", "max-age=60"), ("Age", "60")]), 200);
        assert!(needs_validation(&aged, &HeaderList::new(), now));
        let no_cache = entry(list(&[("Cache-Control", "max-age=60, no-cache")]), 200);
        assert!(needs_validation(&no_cache, &HeaderList::new(), now));
    }

    #[test]
    fn request_directives_ask_for_validation_or_allow_staleness() {
        let now = at(10);
        let fresh = entry(list(&[("Cache-Control", "max-age=60")]), 200);
        for request in [
            list(&[("Cache-Control", "no-cache")]),
            list(&[("Pragma", "no-cache")]),
            list(&[("Cache-Control", "max-age=5")]),
            list(&[("Cache-Control", "min-fresh=55")]),
        ] {
            assert!(needs_validation(&fresh, &request, now));
        }
        // Pragma is ignored when Cache-Control is present.
        let request = list(&[("Pragma", "no-cache"), ("Cache-Control", "max-age=60")]);
        assert!(!needs_validation(&fresh, &request, now));
        let stale = entry(list(&[("Cache-Control", "max-age=5")]), 200);
        assert!(!needs_validation(
            &stale,
            &list(&[("Cache-Control", "max-stale=10")]),
            now
        ));
        assert!(needs_validation(
            &stale,
            &list(&[("Cache-Control", "max-stale=1")]),
            now
        ));
        let must_revalidate = entry(
            list(&[("Cache-Control", "max-age=5, must-revalidate")]),
            200,
        );
        assert!(needs_validation(
            &must_revalidate,
            &list(&[("Cache-Control", "max-stale")]),
            now
        ));
    }

    #[test]
    fn what_is_not_stored() {
        let now = at(0);
        let none = HeaderList::new();
        let fresh = list(&[("Cache-Control", "max-age=60")]);
        assert!(is_storable(200, &fresh, &none, now));
        assert!(is_storable(500, &fresh, &none, now));
        assert!(!is_storable(206, &fresh, &none, now));
        assert!(!is_storable(304, &fresh, &none, now));
        assert!(!is_storable(
            200,
            &list(&[("Cache-Control", "max-age=60, no-store")]),
            &none,
            now
        ));
        assert!(!is_storable(
            200,
            &fresh,
            &list(&[("Cache-Control", "no-store")]),
            now
        ));
        let authorized = list(&[("Authorization", "Basic x")]);
        assert!(!is_storable(200, &fresh, &authorized, now));
        assert!(is_storable(
            200,
            &list(&[("Cache-Control", "max-age=60, public")]),
            &authorized,
            now
        ));
        // Not heuristically cacheable, without explicit freshness.
        assert!(!is_storable(500, &list(&[("ETag", "\"x\"")]), &none, now));
        // Stale at once and without a validator.
        assert!(!is_storable(200, &none, &none, now));
        assert!(is_storable(200, &list(&[("ETag", "\"x\"")]), &none, now));
    }

    #[test]
    fn vary_records_request_values_and_star_is_not_stored() {
        let request = list(&[("Accept-Language", "fr")]);
        let vary = vary_values(&list(&[("Vary", "accept-language, X-Missing")]), &request);
        let vary = vary.unwrap();
        assert_eq!(
            vary,
            [
                (b"accept-language".to_vec(), Some(Bytes::from_static(b"fr"))),
                (b"x-missing".to_vec(), None),
            ]
        );
        let mut stored = entry(HeaderList::new(), 200);
        stored.vary = vary;
        assert!(vary_matches(&stored, &request));
        assert!(!vary_matches(&stored, &list(&[("Accept-Language", "de")])));
        assert!(!vary_matches(
            &stored,
            &list(&[("Accept-Language", "fr"), ("X-Missing", "1")])
        ));
        assert!(vary_values(&list(&[("Vary", "Accept, *")]), &request).is_none());
    }

    #[test]
    fn a_304_replaces_headers_but_not_content_length() {
        let mut stored = list(&[
            ("Content-Length", "4"),
            ("ETag", "\"a\""),
            ("X-Old", "1"),
            ("X-Kept", "k"),
        ]);
        update_headers(
            &mut stored,
            &list(&[("Content-Length", "0"), ("X-Old", "2"), ("X-Old", "3")]),
        );
        assert_eq!(stored.get("content-length").as_deref(), Some(&b"4"[..]));
        assert_eq!(stored.get("x-old").as_deref(), Some(&b"2, 3"[..]));
        assert_eq!(stored.get("x-kept").as_deref(), Some(&b"k"[..]));
    }

    #[test]
    fn the_least_recently_used_entries_are_evicted_beyond_the_limits() {
        let cache = HttpCache::with_limits(2, 1 << 20, 1 << 20);
        let store = |url: &str| cache.insert(url.to_owned(), entry(HeaderList::new(), 200));
        store("a");
        store("b");
        // Touch "a" so that "b" is the least recently used.
        {
            let mut inner = cache.lock();
            inner.clock += 1;
            let clock = inner.clock;
            if let Some(entries) = inner.entries.get_mut("a") {
                entries[0].last_used = clock;
            }
        }
        store("c");
        assert_eq!(cache.len(), 2);
        let inner = cache.lock();
        assert!(inner.entries.contains_key("a"));
        assert!(!inner.entries.contains_key("b"));
        assert!(inner.entries.contains_key("c"));
        drop(inner);
        // By bytes: each entry is 4 bytes of body; a limit of 10 keeps two.
        let cache = HttpCache::with_limits(100, 10, 10);
        for url in ["a", "b", "c"] {
            cache.insert(url.to_owned(), entry(HeaderList::new(), 200));
        }
        assert_eq!(cache.len(), 2);
        assert!(cache.lock().total_bytes <= 10);
        // Replacing an entry with the same Vary'd values does not add one.
        cache.insert("c".to_owned(), entry(HeaderList::new(), 200));
        assert_eq!(cache.len(), 2);
        cache.clear();
        assert!(cache.is_empty());
    }

    #[test]
    fn the_served_response_has_an_age_and_the_stored_body() {
        let stored = entry(list(&[("Cache-Control", "max-age=60")]), 200);
        let response = entry_response(&stored, at(7));
        assert_eq!(response.status, 200);
        assert_eq!(
            response.headers.header_list().get("age").as_deref(),
            Some(&b"7"[..])
        );
        assert_eq!(
            response
                .body
                .as_ref()
                .and_then(Body::source)
                .map(Bytes::as_ref),
            Some(&b"body"[..])
        );
    }
}
