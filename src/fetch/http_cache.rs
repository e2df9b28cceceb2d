//! An in-memory private [HTTP cache](https://httpwg.org/specs/rfc9111.html), the `httpCache`
//! of [HTTP-network-or-cache fetch](https://fetch.spec.whatwg.org/#http-network-or-cache-fetch).
//!
//! What it does, and what it leaves out:
//!
//! - `GET` responses are stored, keyed by whether the request carries credentials
//!   (credentialed and anonymous responses are kept apart, as Firefox does) and the request
//!   URL without its fragment, with the request's values of the response's `Vary` header
//!   names; `Vary: *` is never stored. A response to `POST` or `PATCH` is stored for later
//!   `GET` requests when it has explicit freshness and a `Content-Location` that is the
//!   request URL ([RFC 9110 §9.3.3](https://httpwg.org/specs/rfc9110.html#POST),
//!   [RFC 5789 §2](https://www.rfc-editor.org/rfc/rfc5789#section-2)); a successful one
//!   first invalidates what is stored for the URL, its `Location` and its `Content-Location`
//!   (same origin only).
//! - Freshness per [RFC 9111 §4.2](https://httpwg.org/specs/rfc9111.html#expiration.model):
//!   `Cache-Control: max-age`, else `Expires` − `Date`, else 10% of `Date` −
//!   `Last-Modified` for the heuristically cacheable statuses (or `public`); the age counts
//!   `Age`, the response delay and the time resident. `s-maxage` is ignored (this cache is
//!   private). A response with `no-cache`, or one that is stale, is validated with
//!   `If-None-Match` / `If-Modified-Since` before it is used (by the caller, HTTP-network-or-
//!   cache fetch). The request directives `no-cache`, `no-store`, `max-age`, `min-fresh`,
//!   `max-stale` (not past `must-revalidate`) and `only-if-cached` (a 504 when nothing is
//!   stored), and `Pragma: no-cache`, are honoured. A stale response is validated (or
//!   refetched) before use, except within its `stale-while-revalidate` window
//!   ([RFC 5861](https://httpwg.org/specs/rfc5861.html#stale-while-revalidate)) for a
//!   request in the `default` cache mode: then it is used at once and validated in the
//!   background, on the current Tokio runtime (without one, it is validated first).
//! - Partial content ([RFC 9111 §3.3–3.4](https://httpwg.org/specs/rfc9111.html#incomplete.responses)):
//!   a request with one byte range (`Range: bytes=a-b`, `a-` or `-n`) is answered with a 206
//!   from a stored complete 200 response, or from a stored 206 that holds every byte of the
//!   range. A 206 of one byte range is stored as an incomplete response: the bytes it holds
//!   and where they lie (a 206 holding fewer bytes than its `Content-Range` says keeps
//!   those, from the first position on; one holding more is not stored). Parts of the same
//!   representation that meet or overlap are combined into one when they have the same
//!   strong `ETag`, and become a complete 200 when they cover it all; otherwise the newer
//!   replaces the older. A request for all of an incomplete response whose missing bytes
//!   are at one end asks for those (`Range: bytes=n-` or `bytes=0-m`, with `If-Range` and
//!   the strong `ETag` if there is one): a 206 of exactly those bytes with the same strong
//!   `ETag` and complete length is combined with the stored bytes into a 200 (its body
//!   errors if the 206's content is not the length its `Content-Range` says); any other
//!   206, or a 416, is dropped and the request sent again without `Range`; any other
//!   response is used as it is.
//! - Left out of partial content: a range request that a stored part covers only in part
//!   goes to the network for all of its range (the 206 it gets is then combined as above);
//!   an incomplete response missing bytes at both ends is not completed (a request for all
//!   of it goes out without `Range`, and the 200 replaces it); ranges are neither served
//!   from nor stored for responses with a content coding (the stored bytes are decoded, so
//!   no byte range describes them); requests with several ranges or a unit other than
//!   `bytes` go to the network, and a 206 without a single `Content-Range` (such as
//!   `multipart/byteranges`) is not stored; a 200 whose body errored or was cancelled is not
//!   kept as an incomplete response to complete later.
//! - Not stored: `no-store` on the request or the response, requests with `Authorization`
//!   (unless `public`, `s-maxage` or `must-revalidate`), 304 responses (they only freshen
//!   a stored one), statuses not heuristically cacheable without explicit freshness, and
//!   responses that would be stale at once and have neither a validator nor a
//!   `stale-while-revalidate` window.
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
use crate::error::{Error, NetworkError};
use crate::headers::parse_single_range_header_value;
use crate::headers::{HeaderList, Headers, HeadersGuard};
use crate::request::Request;
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
    /// The stored bytes: the whole content, or for an incomplete response the bytes from
    /// `partial.first` on.
    body: Bytes,
    /// For an incomplete response (stored from a 206), which part of the representation
    /// `body` holds; `None` when the content is complete.
    partial: Option<Extent>,
    request_time: SystemTime,
    response_time: SystemTime,
    last_used: u64,
    size: usize,
}

/// Where the bytes of an incomplete stored response lie in the representation.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Extent {
    /// The position of the first stored byte.
    first: u64,
    /// The representation's complete length, if the `Content-Range` said it.
    complete_length: Option<u64>,
}

impl Entry {
    /// The positions of the stored bytes: from the first, up to (not including) the end.
    fn held(&self) -> (u64, u64) {
        let first = self.partial.map_or(0, |extent| extent.first);
        (first, first.saturating_add(self.body.len() as u64))
    }

    /// The representation's complete length, if known.
    fn complete_length(&self) -> Option<u64> {
        match self.partial {
            Some(extent) => extent.complete_length,
            None => Some(self.body.len() as u64),
        }
    }
}

/// How a selected stored response answers the request.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Serve {
    /// The stored response as it is.
    Whole,
    /// A 206 (Partial Content) of the bytes from the first to the last position, inclusive.
    Range(u64, u64),
    /// The stored response is incomplete and the request asks for all of it: the rest is
    /// asked for with a range request and combined with it.
    Rest,
}

/// A stored response selected for a request: the spec's `storedResponse`.
pub(crate) struct StoredResponse {
    id: u64,
    url: String,
    /// Whether it is a [stale response](https://fetch.spec.whatwg.org/#concept-stale-response)
    /// (or must be validated before use).
    pub(crate) stale: bool,
    /// Whether it is a [stale-while-revalidate response](https://fetch.spec.whatwg.org/#concept-stale-while-revalidate-response):
    /// stale, but within its `stale-while-revalidate` window, so it may be used while it is
    /// revalidated in the background.
    pub(crate) stale_while_revalidate: bool,
    entry: Entry,
    serve: Serve,
}

impl StoredResponse {
    /// The stored response's header list.
    pub(crate) fn header_list(&self) -> &HeaderList {
        &self.entry.headers
    }

    /// A new response for the stored one: cloned headers with an updated `Age`, and a
    /// body of the stored bytes (a 206 of the requested range, for a range request).
    pub(crate) fn to_response(&self) -> Response {
        entry_response(&self.entry, self.serve, SystemTime::now())
    }

    /// Whether the stored response is [incomplete](https://httpwg.org/specs/rfc9111.html#incomplete.responses)
    /// and the request asks for all of it: then it cannot answer the request itself, but
    /// can be completed with a range request for the rest (see
    /// [`StoredResponse::request_the_rest`] and [`HttpCache::complete`]).
    pub(crate) fn is_incomplete(&self) -> bool {
        self.serve == Serve::Rest
    }

    /// Makes `request` a range request for what the incomplete stored response lacks, as
    /// [RFC 9111 §3.3](https://httpwg.org/specs/rfc9111.html#incomplete.responses) allows:
    /// `Range` for the missing bytes at the end (or at the start), and `If-Range` with the
    /// stored strong entity tag, if it has one, so that a changed representation comes
    /// back whole.
    pub(crate) fn request_the_rest(&self, request: &mut Request) {
        let Some((first, last)) = missing_range(&self.entry) else {
            return;
        };
        let range = match last {
            Some(last) => format!("bytes={first}-{last}"),
            None => format!("bytes={first}-"),
        };
        let header_list = request.headers.header_list_mut();
        header_list.set("Range", range);
        if let Some(etag) = strong_entity_tag(&self.entry.headers) {
            header_list.set("If-Range", etag);
        }
    }
}

/// What [`HttpCache::complete`] made of the response to a request for the rest of an
/// incomplete stored response.
pub(crate) enum Completion {
    /// The stored and the new bytes combined: the complete response.
    Combined(Response),
    /// Neither a 206 nor a 416: a response of its own, to be used (and stored) as any other.
    Forward(Response),
    /// A 206 that cannot be combined with the stored bytes, or a 416 (Range Not
    /// Satisfiable): the request must be sent again without `Range`.
    Refetch,
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
    ///
    /// A request with one byte range (`Range: bytes=…`) is answered from a stored complete
    /// 200 response or an incomplete one that holds all of the range; a request without
    /// `Range` that finds an incomplete response gets it to complete (see
    /// [`StoredResponse::is_incomplete`]).
    ///
    /// `include_credentials` is the fetch's includeCredentials: responses to credentialed
    /// and anonymous requests are kept apart.
    pub(crate) fn select(
        &self,
        request: &Request,
        include_credentials: bool,
    ) -> Option<StoredResponse> {
        let request_headers = request.headers.header_list();
        if request.method != "GET" || cache_control(request_headers).no_store {
            return None;
        }
        let range = match request_headers.get("range") {
            None => None,
            // Only a single byte range is answered from the cache.
            Some(value) => Some(parse_single_range_header_value(&value, true)?),
        };
        let url = cache_key(request, include_credentials);
        let now = SystemTime::now();
        let mut inner = self.lock();
        inner.clock += 1;
        let clock = inner.clock;
        let entries = inner.entries.get_mut(&url)?;
        let entry = entries
            .iter_mut()
            .find(|entry| vary_matches(entry, request.headers.header_list()))?;
        let serve = match range {
            Some((start, end)) => {
                // RFC 9111 §3.3: an incomplete response answers only a range wholly
                // within it; ranges are served from 200 responses only.
                if (entry.partial.is_none() && entry.status != 200)
                    || has_content_coding(&entry.headers)
                {
                    return None;
                }
                let (first, last) = resolve_range(start, end, entry.complete_length())?;
                let (held_first, held_end) = entry.held();
                if first < held_first || last >= held_end {
                    return None;
                }
                Serve::Range(first, last)
            }
            None if entry.partial.is_some() => {
                // Completed only when the missing bytes are at one end.
                missing_range(entry)?;
                Serve::Rest
            }
            None => Serve::Whole,
        };
        entry.last_used = clock;
        let entry = entry.clone();
        drop(inner);
        let stale = needs_validation(&entry, request_headers, now);
        let stale_while_revalidate = stale
            && serve == Serve::Whole
            && is_stale_while_revalidate(&entry, request_headers, now);
        Some(StoredResponse {
            id: entry.id,
            url,
            stale,
            stale_while_revalidate,
            entry,
            serve,
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
        entry_response(&entry, stored.serve, response_time)
    }

    /// Completes an incomplete stored response with `forward`, the response to
    /// `request` made a range request for the rest by
    /// [`StoredResponse::request_the_rest`], as
    /// [RFC 9111 §3.4](https://httpwg.org/specs/rfc9111.html#combining.responses) and
    /// [RFC 9110 §15.3.7.3](https://httpwg.org/specs/rfc9110.html#combining.byte.ranges)
    /// allow: only a 206 with the same strong validator and the same complete length that
    /// holds exactly the missing bytes is combined. The combined response is a 200 whose
    /// header fields are the stored ones replaced by the 206's (but `Content-Range`),
    /// stored again once its body has been read to the end.
    ///
    /// The `Range` and `If-Range` the request got are removed from it again.
    pub(crate) fn complete(
        self: &Arc<Self>,
        stored: StoredResponse,
        request: &mut Request,
        mut forward: Response,
        request_time: SystemTime,
    ) -> Completion {
        let response_time = SystemTime::now();
        let header_list = request.headers.header_list_mut();
        header_list.delete("range");
        header_list.delete("if-range");
        match forward.status {
            206 => {}
            // The stored bytes were all there is (its complete length was not known): the
            // request for all of it is sent again.
            416 => return Completion::Refetch,
            _ => return Completion::Forward(forward),
        }
        let forward_headers = forward.headers.header_list();
        let entry = &stored.entry;
        let (Some((first, last, Some(complete_length))), Some((missing_first, missing_last))) =
            (content_range(forward_headers), missing_range(entry))
        else {
            return Completion::Refetch;
        };
        // The 206 must hold exactly the missing bytes: up to the end, or up to the first
        // stored byte.
        let held_first = entry.held().0;
        let end = if held_first == 0 {
            complete_length
        } else {
            held_first
        };
        let combinable = same_strong_validator(&entry.headers, forward_headers)
            && !has_content_coding(forward_headers)
            && entry
                .complete_length()
                .is_none_or(|length| length == complete_length)
            && first == missing_first
            && missing_last.is_none_or(|missing_last| missing_last == last)
            && last.checked_add(1) == Some(end);
        let Some(network_body) = forward.body.take().filter(|_| combinable) else {
            return Completion::Refetch;
        };
        let mut headers = entry.headers.clone();
        update_headers(&mut headers, forward_headers);
        headers.delete("content-range");
        headers.set("Content-Length", complete_length.to_string());
        let (head, tail) = if held_first == 0 {
            (entry.body.clone(), Bytes::new())
        } else {
            (Bytes::new(), entry.body.clone())
        };
        let body = Body::from_stream(CombinedBody {
            head: Some(head),
            body: network_body,
            remaining: last - first + 1,
            tail: Some(tail),
            finished: false,
        });
        let combined = Entry {
            id: 0,
            vary: entry.vary.clone(),
            status: 200,
            status_message: Cow::Borrowed("OK"),
            headers: headers.clone(),
            body: Bytes::new(),
            partial: None,
            request_time,
            response_time,
            last_used: 0,
            size: 0,
        };
        let storable = is_storable(
            200,
            &headers,
            request.headers.header_list(),
            SystemTime::now(),
        );
        let body = if storable {
            Body::from_stream(CachingBody {
                body,
                cache: Arc::clone(self),
                limit: self.max_entry_bytes,
                pending: Some((stored.url, combined, BytesMut::new())),
            })
        } else {
            body
        };
        Completion::Combined(Response::from_network(
            200,
            "OK",
            Headers::from_header_list(headers, HeadersGuard::Immutable),
            Some(body),
            Vec::new(),
        ))
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
    ///
    /// A 206 (Partial Content) of one byte range is stored as an
    /// [incomplete response](https://httpwg.org/specs/rfc9111.html#incomplete.responses)
    /// (combined with a stored part of the same representation where
    /// [RFC 9111 §3.4](https://httpwg.org/specs/rfc9111.html#combining.responses) allows);
    /// a response to `POST` or `PATCH` is stored for later `GET` requests when it says so.
    /// `include_credentials` is the fetch's includeCredentials, as for [`HttpCache::select`].
    pub(crate) fn store(
        self: &Arc<Self>,
        request: &Request,
        include_credentials: bool,
        response: &mut Response,
        request_time: SystemTime,
        response_time: SystemTime,
    ) {
        let header_list = response.headers.header_list();
        if !is_storable_for_get(request, response.status, header_list)
            || !is_storable(
                response.status,
                header_list,
                request.headers.header_list(),
                SystemTime::now(),
            )
        {
            return;
        }
        // A 206 is kept with where its bytes lie, and at most as many bytes as its
        // Content-Range says it holds. One with content codings is not: its range would be
        // of the encoded bytes.
        let (partial, limit) = if response.status == 206 {
            let Some((first, last, complete_length)) = content_range(header_list) else {
                return;
            };
            if has_content_coding(header_list) {
                return;
            }
            let declared = usize::try_from((last - first).saturating_add(1)).unwrap_or(usize::MAX);
            (
                Some(Extent {
                    first,
                    complete_length,
                }),
                declared.min(self.max_entry_bytes),
            )
        } else {
            (None, self.max_entry_bytes)
        };
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
            partial,
            request_time,
            response_time,
            last_used: 0,
            size: 0,
        };
        let url = cache_key(request, include_credentials);
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
        response.body = Some(body.wrap(|body| CachingBody {
            body,
            cache: Arc::clone(self),
            limit,
            pending: Some((url, entry, BytesMut::new())),
        }));
    }

    /// Inserts `entry` for `url`, replacing what the same request would select (or
    /// combining with it, for an incomplete response), and evicts the least recently used
    /// entries beyond the limits.
    fn insert(&self, url: String, mut entry: Entry) {
        // An incomplete response without bytes is of no use.
        if (entry.partial.is_some() && entry.body.is_empty()) || self.max_entries == 0 {
            return;
        }
        let mut inner = self.lock();
        let inner = &mut *inner;
        let entries = inner.entries.entry(url.clone()).or_default();
        // A stored response with the same Vary'd request values is replaced, or combined
        // with when both hold parts of the same representation.
        if let Some(index) = entries.iter().position(|stored| stored.vary == entry.vary) {
            let old = entries.swap_remove(index);
            inner.count -= 1;
            inner.total_bytes -= old.size;
            entry = combine(&old, entry);
        }
        entry = completed(entry);
        entry.size = entry.body.len()
            + entry
                .headers
                .iter_bytes()
                .map(|(name, value)| name.len() + value.len())
                .sum::<usize>();
        if entry.size > self.max_bytes || entry.body.len() > self.max_entry_bytes {
            if entries.is_empty() {
                inner.entries.remove(&url);
            }
            return;
        }
        inner.clock += 1;
        entry.id = inner.clock;
        entry.last_used = inner.clock;
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

/// Combines a stored response with a new incomplete one for the same request, as
/// [RFC 9111 §3.4](https://httpwg.org/specs/rfc9111.html#combining.responses) allows: when
/// both have the same strong validator and complete length and their bytes overlap or
/// meet, the result holds the bytes of both, with the stored header fields replaced by the
/// new response's; otherwise the new response replaces the stored one.
fn combine(old: &Entry, new: Entry) -> Entry {
    let Some(extent) = new.partial else {
        return new;
    };
    let (old_first, old_end) = old.held();
    let (new_first, new_end) = new.held();
    let combinable = same_strong_validator(&old.headers, &new.headers)
        && (old.partial.is_some() || old.status == 200)
        && !has_content_coding(&old.headers)
        && match (old.complete_length(), extent.complete_length) {
            (Some(old_length), Some(new_length)) => old_length == new_length,
            _ => true,
        }
        && new_first <= old_end
        && old_first <= new_end;
    if !combinable {
        return new;
    }
    let complete_length = old.complete_length().or(extent.complete_length);
    // The bytes of the one that starts first, then those of the other beyond them.
    let (lower, upper) = if old_first <= new_first {
        (old, &new)
    } else {
        (&new, old)
    };
    let (first, lower_end) = lower.held();
    let (upper_first, upper_end) = upper.held();
    let mut body = BytesMut::from(&lower.body[..]);
    if upper_end > lower_end {
        let skip = lower_end
            .checked_sub(upper_first)
            .and_then(|skip| usize::try_from(skip).ok())
            .unwrap_or(usize::MAX);
        body.extend_from_slice(upper.body.get(skip..).unwrap_or_default());
    }
    let mut headers = old.headers.clone();
    update_headers(&mut headers, &new.headers);
    Entry {
        headers,
        body: body.freeze(),
        partial: Some(Extent {
            first,
            complete_length,
        }),
        ..new
    }
}

/// An incomplete entry that holds the whole representation made a complete 200: its
/// `Content-Range` goes and its `Content-Length` is the complete length.
fn completed(mut entry: Entry) -> Entry {
    if let Some(extent) = entry.partial {
        let length = entry.body.len() as u64;
        if extent.first == 0 && extent.complete_length == Some(length) {
            entry.partial = None;
            entry.status = 200;
            entry.status_message = Cow::Borrowed("OK");
            entry.headers.delete("content-range");
            entry.headers.set("Content-Length", length.to_string());
        }
    }
    entry
}

/// The bytes an incomplete stored response lacks, when they are at one end of it:
/// `(first, None)` for those from `first` to the end, `(0, Some(last))` for those up to
/// `last`. `None` when it is complete or lacks bytes at both ends.
fn missing_range(entry: &Entry) -> Option<(u64, Option<u64>)> {
    let extent = entry.partial?;
    let (first, end) = entry.held();
    if first == 0 {
        return Some((end, None));
    }
    if extent.complete_length == Some(end) {
        return Some((0, Some(first - 1)));
    }
    None
}

/// The first and last positions, inclusive, that a single byte range of `Range` (as
/// [parsed](https://fetch.spec.whatwg.org/#simple-range-header-value)) asks for in a
/// representation of `complete_length`, per
/// [RFC 9110 §14.1.2](https://httpwg.org/specs/rfc9110.html#byte.ranges); `None` when it
/// is unsatisfiable or needs the length, which is unknown.
fn resolve_range(
    start: Option<u64>,
    end: Option<u64>,
    complete_length: Option<u64>,
) -> Option<(u64, u64)> {
    match (start, end) {
        // byte-range-spec: a last-pos beyond the end means the end.
        (Some(first), Some(last)) => match complete_length {
            Some(length) if first >= length => None,
            Some(length) => Some((first, last.min(length - 1))),
            None => Some((first, last)),
        },
        // byte-range-spec without last-pos: to the end.
        (Some(first), None) => {
            let length = complete_length?;
            (first < length).then(|| (first, length - 1))
        }
        // suffix-byte-range-spec: the last `suffix` bytes (all, if fewer).
        (None, Some(suffix)) => {
            let length = complete_length?;
            (suffix > 0 && length > 0).then(|| (length - suffix.min(length), length - 1))
        }
        (None, None) => None,
    }
}

/// The `Content-Range` of a 206 holding one byte range,
/// [RFC 9110 §14.4](https://httpwg.org/specs/rfc9110.html#field.content-range): the first
/// and last positions and the complete length (`None` for `*`); `None` when it is absent,
/// not of bytes, or invalid.
fn content_range(headers: &HeaderList) -> Option<(u64, u64, Option<u64>)> {
    fn number(digits: &str) -> Option<u64> {
        if digits.is_empty() || !digits.bytes().all(|byte| byte.is_ascii_digit()) {
            return None;
        }
        digits.parse().ok()
    }
    let value = headers.get("content-range")?;
    let value = std::str::from_utf8(&value).ok()?.trim();
    let (unit, range) = value.split_once(' ')?;
    if !unit.eq_ignore_ascii_case("bytes") {
        return None;
    }
    let (range, length) = range.trim_start().split_once('/')?;
    let (first, last) = range.split_once('-')?;
    let (first, last) = (number(first)?, number(last)?);
    let complete_length = match length {
        "*" => None,
        length => Some(number(length)?),
    };
    // Invalid: a last position before the first, or not within the complete length.
    if last < first || complete_length.is_some_and(|length| last >= length) {
        return None;
    }
    Some((first, last, complete_length))
}

/// The `ETag` of `headers` if it is a strong validator (not `W/`).
fn strong_entity_tag(headers: &HeaderList) -> Option<Bytes> {
    headers.get("etag").filter(|etag| !etag.starts_with(b"W/"))
}

/// Whether two header lists have the same strong validator, which parts of a
/// representation must share to be combined
/// ([RFC 9110 §15.3.7.3](https://httpwg.org/specs/rfc9110.html#combining.byte.ranges)).
fn same_strong_validator(a: &HeaderList, b: &HeaderList) -> bool {
    matches!((strong_entity_tag(a), strong_entity_tag(b)), (Some(a), Some(b)) if a == b)
}

/// Whether `headers` name a content coding other than `identity`: the stored bytes are
/// then decoded ones, which no byte range of the representation describes.
fn has_content_coding(headers: &HeaderList) -> bool {
    headers.values(b"content-encoding").any(|value| {
        value.split(|&byte| byte == b',').any(|coding| {
            !coding.trim_ascii().is_empty()
                && !coding.trim_ascii().eq_ignore_ascii_case(b"identity")
        })
    })
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
    /// The most bytes stored: beyond them nothing is.
    limit: usize,
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
                if let Some((_, _, buffer)) = this.pending.as_mut() {
                    if buffer.len() + bytes.len() > this.limit {
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

/// The body of a completed response: the stored bytes before (`head`) or after (`tail`)
/// the network's, which must be exactly `remaining` bytes: more or fewer error the stream.
struct CombinedBody {
    head: Option<Bytes>,
    body: Body,
    remaining: u64,
    tail: Option<Bytes>,
    finished: bool,
}

impl futures_core::Stream for CombinedBody {
    type Item = crate::error::Result<Bytes>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        let this = &mut *self;
        if let Some(head) = this.head.take().filter(|head| !head.is_empty()) {
            return std::task::Poll::Ready(Some(Ok(head)));
        }
        if !this.finished {
            let mismatch = || {
                Error::network(NetworkError::Other(Cow::Borrowed(
                    "the range response's content does not match its Content-Range",
                )))
            };
            match std::task::ready!(this.body.poll_next_unpin(cx)) {
                Some(Ok(bytes)) => {
                    return std::task::Poll::Ready(Some(
                        match this.remaining.checked_sub(bytes.len() as u64) {
                            Some(remaining) => {
                                this.remaining = remaining;
                                Ok(bytes)
                            }
                            None => {
                                this.finished = true;
                                this.tail = None;
                                Err(mismatch())
                            }
                        },
                    ));
                }
                Some(Err(error)) => {
                    this.finished = true;
                    this.tail = None;
                    return std::task::Poll::Ready(Some(Err(error)));
                }
                None => {
                    this.finished = true;
                    if this.remaining != 0 {
                        this.tail = None;
                        return std::task::Poll::Ready(Some(Err(mismatch())));
                    }
                }
            }
        }
        std::task::Poll::Ready(this.tail.take().filter(|tail| !tail.is_empty()).map(Ok))
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

/// The cache key of `request`: whether it carries credentials (`include_credentials`, the
/// fetch's includeCredentials: responses to credentialed and anonymous requests are kept
/// apart, as Firefox does), and its current URL without fragment.
fn cache_key(request: &Request, include_credentials: bool) -> String {
    credentials_key(
        include_credentials,
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

fn url_without_fragment(url: &url::Url) -> String {
    match url.fragment() {
        Some(_) => url[..url::Position::AfterQuery].to_owned(),
        None => url.as_str().to_owned(),
    }
}

/// Whether a response with `status` and `headers` to `request` may be stored for later
/// `GET` requests: a response to `GET`, or one to `POST` or `PATCH` with explicit freshness
/// and a `Content-Location` that is the request's target URI
/// ([RFC 9110 §9.3.3](https://httpwg.org/specs/rfc9110.html#POST),
/// [RFC 5789 §2](https://www.rfc-editor.org/rfc/rfc5789#section-2)).
fn is_storable_for_get(request: &Request, status: u16, headers: &HeaderList) -> bool {
    match request.method.as_ref() {
        "GET" => true,
        "POST" | "PATCH" => {
            let target = request.current_url();
            status != 206
                && (cache_control(headers).max_age.is_some() || headers.contains("expires"))
                && headers.get("content-location").is_some_and(|value| {
                    target
                        .join(&String::from_utf8_lossy(&value))
                        .is_ok_and(|url| url_without_fragment(&url) == url_without_fragment(target))
                })
        }
        _ => false,
    }
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
    /// `stale-while-revalidate` (RFC 5861 §3): seconds a stale response may still be used
    /// while it is revalidated in the background.
    stale_while_revalidate: Option<u64>,
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
                "stale-while-revalidate" => {
                    directives.stale_while_revalidate =
                        argument.and_then(|window| window.parse().ok());
                }
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
        200 | 203 | 204 | 206 | 300 | 301 | 308 | 404 | 405 | 410 | 414 | 501
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

/// Whether a stored response that needs validation may still be used while it is validated
/// in the background: it is stale only by age, by less than its `stale-while-revalidate`
/// window ([RFC 5861 §3](https://httpwg.org/specs/rfc5861.html#stale-while-revalidate)),
/// and neither the response (`no-cache`, `must-revalidate`) nor the request (`no-cache`,
/// `Pragma: no-cache`, `max-age`, `min-fresh`) asks for a validated response.
fn is_stale_while_revalidate(entry: &Entry, request_headers: &HeaderList, now: SystemTime) -> bool {
    let response = cache_control(&entry.headers);
    let request = cache_control(request_headers);
    let Some(window) = response.stale_while_revalidate else {
        return false;
    };
    if response.no_cache
        || response.must_revalidate
        || request.no_cache
        || request.max_age.is_some()
        || request.min_fresh.is_some()
        || request_headers
            .values(b"pragma")
            .any(|value| value.eq_ignore_ascii_case(b"no-cache"))
    {
        return false;
    }
    let age = current_age(&entry.headers, entry.request_time, entry.response_time, now);
    let lifetime = freshness_lifetime(entry.status, &entry.headers, entry.response_time);
    age >= lifetime && age - lifetime < Duration::from_secs(window)
}

/// Whether a response may be [stored](https://httpwg.org/specs/rfc9111.html#response.cacheability).
fn is_storable(
    status: u16,
    headers: &HeaderList,
    request_headers: &HeaderList,
    now: SystemTime,
) -> bool {
    let directives = cache_control(headers);
    if status == 304 || directives.no_store || cache_control(request_headers).no_store {
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
    // A response that is stale at once and cannot be validated is of no use, unless it may
    // be used stale while it is revalidated.
    let has_validator = headers.contains("etag") || headers.contains("last-modified");
    has_validator
        || freshness_lifetime(status, headers, now) > Duration::ZERO
        || directives
            .stale_while_revalidate
            .is_some_and(|window| window > 0)
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
/// current age, and a body of the stored bytes; for a range, a 206 (Partial Content) of
/// those bytes with its `Content-Range` and `Content-Length`.
fn entry_response(entry: &Entry, serve: Serve, now: SystemTime) -> Response {
    let mut headers = entry.headers.clone();
    let age = current_age(&entry.headers, entry.request_time, entry.response_time, now);
    headers.set("Age", age.as_secs().to_string());
    if let Serve::Range(first, last) = serve {
        let held_first = entry.held().0;
        let position = |at: Option<u64>| at.and_then(|at| usize::try_from(at).ok());
        let bytes = position(first.checked_sub(held_first))
            .zip(position(
                last.checked_sub(held_first)
                    .and_then(|at| at.checked_add(1)),
            ))
            .and_then(|(start, end)| entry.body.get(start..end).map(|_| (start, end)))
            .map(|(start, end)| entry.body.slice(start..end))
            .unwrap_or_default();
        let complete_length = entry
            .complete_length()
            .map_or_else(|| "*".to_owned(), |length| length.to_string());
        headers.delete("content-range");
        headers.set(
            "Content-Range",
            format!("bytes {first}-{last}/{complete_length}"),
        );
        headers.set("Content-Length", bytes.len().to_string());
        return Response::from_network(
            206,
            "Partial Content",
            Headers::from_header_list(headers, HeadersGuard::Immutable),
            Some(Body::from_bytes(bytes)),
            Vec::new(),
        );
    }
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
            partial: None,
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
        assert!(is_storable(206, &fresh, &none, now));
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
        let response = entry_response(&stored, Serve::Whole, at(7));
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

    fn part(body: &'static str, first: u64, complete_length: Option<u64>, etag: &str) -> Entry {
        let mut part = entry(list(&[("ETag", etag)]), 206);
        part.body = Bytes::from_static(body.as_bytes());
        part.partial = Some(Extent {
            first,
            complete_length,
        });
        part
    }

    #[test]
    fn byte_ranges_resolve_against_the_complete_length() {
        assert_eq!(resolve_range(Some(0), Some(1), Some(10)), Some((0, 1)));
        assert_eq!(resolve_range(Some(5), Some(100), Some(10)), Some((5, 9)));
        assert_eq!(resolve_range(Some(10), Some(12), Some(10)), None);
        assert_eq!(resolve_range(Some(3), None, Some(10)), Some((3, 9)));
        assert_eq!(resolve_range(Some(3), None, None), None);
        assert_eq!(resolve_range(None, Some(4), Some(10)), Some((6, 9)));
        assert_eq!(resolve_range(None, Some(40), Some(10)), Some((0, 9)));
        assert_eq!(resolve_range(None, Some(0), Some(10)), None);
        assert_eq!(resolve_range(None, Some(4), None), None);
        // Without a complete length, only a byte-range-spec with both positions.
        assert_eq!(resolve_range(Some(2), Some(4), None), Some((2, 4)));
    }

    #[test]
    fn content_range_is_one_valid_byte_range() {
        let parse = |value: &str| content_range(&list(&[("Content-Range", value)]));
        assert_eq!(parse("bytes 4-9/10"), Some((4, 9, Some(10))));
        assert_eq!(parse("Bytes 0-0/*"), Some((0, 0, None)));
        for invalid in [
            "bytes 4-9/9",
            "bytes 9-4/10",
            "bytes */10",
            "bytes 4-/10",
            "bytes +4-9/10",
            "items 0-1/2",
            "bytes 0-1",
        ] {
            assert_eq!(parse(invalid), None, "{invalid}");
        }
        assert_eq!(content_range(&HeaderList::new()), None);
    }

    #[test]
    fn only_a_strong_entity_tag_is_a_validator_for_combining() {
        let strong = list(&[("ETag", "\"a\"")]);
        let weak = list(&[("ETag", "W/\"a\"")]);
        assert!(same_strong_validator(&strong, &strong.clone()));
        assert!(!same_strong_validator(&weak, &weak.clone()));
        assert!(!same_strong_validator(&strong, &list(&[("ETag", "\"b\"")])));
        assert!(!same_strong_validator(
            &HeaderList::new(),
            &HeaderList::new()
        ));
    }

    #[test]
    fn parts_that_meet_are_combined_and_a_whole_one_is_complete() {
        let old = part("2345", 2, Some(10), "\"a\"");
        // Overlapping, before the stored part.
        let combined = combine(&old, part("012", 0, Some(10), "\"a\""));
        assert_eq!(&combined.body[..], b"012345");
        assert_eq!(combined.held(), (0, 6));
        // Meeting it, after.
        let combined = combine(&combined, part("6789", 6, Some(10), "\"a\""));
        assert_eq!(&combined.body[..], b"0123456789");
        let complete = completed(combined);
        assert_eq!(complete.partial, None);
        assert_eq!(complete.status, 200);
        assert_eq!(
            complete.headers.get("content-length").as_deref(),
            Some(&b"10"[..])
        );
        // A gap, another validator, or another length: the new part replaces the old.
        for new in [
            part("89", 8, Some(10), "\"a\""),
            part("67", 6, Some(10), "\"b\""),
            part("67", 6, Some(12), "\"a\""),
        ] {
            let expected = new.body.clone();
            assert_eq!(combine(&old, new).body, expected);
        }
    }

    #[test]
    fn the_missing_bytes_are_asked_for_when_they_are_at_one_end() {
        assert_eq!(
            missing_range(&part("0123", 0, Some(10), "\"a\"")),
            Some((4, None))
        );
        assert_eq!(
            missing_range(&part("0123", 0, None, "\"a\"")),
            Some((4, None))
        );
        assert_eq!(
            missing_range(&part("6789", 6, Some(10), "\"a\"")),
            Some((0, Some(5)))
        );
        assert_eq!(missing_range(&part("45", 4, Some(10), "\"a\"")), None);
        assert_eq!(missing_range(&entry(HeaderList::new(), 200)), None);
    }

    #[test]
    fn a_range_is_served_as_a_206_of_the_stored_bytes() {
        let stored = part("2345", 2, Some(10), "\"a\"");
        let response = entry_response(&stored, Serve::Range(3, 4), at(0));
        assert_eq!(response.status, 206);
        let headers = response.headers.header_list();
        assert_eq!(
            headers.get("content-range").as_deref(),
            Some(&b"bytes 3-4/10"[..])
        );
        assert_eq!(headers.get("content-length").as_deref(), Some(&b"2"[..]));
        assert_eq!(
            response
                .body
                .as_ref()
                .and_then(Body::source)
                .map(Bytes::as_ref),
            Some(&b"34"[..])
        );
    }

    #[test]
    fn post_and_patch_responses_are_stored_for_get_only_when_they_say_so() {
        let request = |method: &str| {
            let mut request =
                Request::from_url(url::Url::parse("https://example.com/a?q").unwrap());
            request.method = Cow::Owned(method.to_owned());
            request
        };
        let fresh_here = list(&[
            ("Cache-Control", "max-age=60"),
            ("Content-Location", "/a?q"),
        ]);
        assert!(is_storable_for_get(&request("POST"), 200, &fresh_here));
        assert!(is_storable_for_get(&request("PATCH"), 200, &fresh_here));
        assert!(!is_storable_for_get(&request("PUT"), 200, &fresh_here));
        assert!(!is_storable_for_get(&request("POST"), 206, &fresh_here));
        let elsewhere = list(&[("Cache-Control", "max-age=60"), ("Content-Location", "/b")]);
        assert!(!is_storable_for_get(&request("POST"), 200, &elsewhere));
        let not_fresh = list(&[("Content-Location", "https://example.com/a?q")]);
        assert!(!is_storable_for_get(&request("POST"), 200, &not_fresh));
        assert!(is_storable_for_get(
            &request("GET"),
            200,
            &HeaderList::new()
        ));
    }
}
