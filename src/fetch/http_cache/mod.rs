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
//!   `Cache-Control: max-age`, else `Expires` − `Date` (HTTP-dates in any of their three
//!   formats, matched case-insensitively; an invalid `Expires` is in the past), else 10% of `Date` −
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
//! - Kept in memory, and written through to an [`HttpCacheStore`] when the cache has one
//!   (such as [`DiskCacheStore`], a directory), from which a new cache starts: see
//!   `persist`. A store shared by several caches at once (one on Redis) is read through:
//!   a cache holding nothing for a request asks it before the network. Without a store,
//!   the cache ends with its client.
//!
//! The cache is split by what HTTP Caching describes:
//!
//! - this module: the cache, and [constructing responses from it](https://httpwg.org/specs/rfc9111.html#constructing.responses.from.caches)
//!   (RFC 9111 §4): selecting a stored response for a request and making a response of it;
//! - `storage`: [storing responses](https://httpwg.org/specs/rfc9111.html#response.cacheability)
//!   (RFC 9111 §3), the cache key and `Vary` (§4.1), freshening (§4.3.4), invalidation (§4.4),
//!   and eviction;
//! - `freshness`: `Cache-Control` (RFC 9111 §5.2), freshness and age (§4.2), and
//!   `stale-while-revalidate` (RFC 5861);
//! - `persist`: the stores responses are written to, and the record they are written as;
//! - `ranges`: partial content, incomplete stored responses and combining them (RFC 9111
//!   §3.3–3.4), over byte ranges (RFC 9110 §14).

mod freshness;
mod persist;
mod ranges;
mod storage;

use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

use crate::body::Body;
use crate::headers::parse_single_range_header_value;
use crate::headers::{HeaderList, Headers, HeadersGuard};
use crate::request::Request;
use crate::response::{Response, is_null_body_status};

use freshness::{cache_control, current_age, is_stale_while_revalidate, needs_validation};
pub(crate) use freshness::{gateway_timeout, requests_only_if_cached};
pub use persist::{DiskCacheStore, HttpCacheStore, MemoryCacheStore};
pub(crate) use ranges::Completion;
use ranges::{has_content_coding, missing_range, partial_content, resolve_range};
use storage::{Entry, Inner, cache_key, vary_matches};

/// A private, in-memory HTTP cache shared by the fetches of one client.
///
/// Thread-safe; [`Default`] gives the limits [`HttpCache::DEFAULT_MAX_ENTRIES`],
/// [`HttpCache::DEFAULT_MAX_BYTES`] and [`HttpCache::DEFAULT_MAX_ENTRY_BYTES`].
pub struct HttpCache {
    inner: Mutex<Inner>,
    max_entries: usize,
    max_bytes: usize,
    max_entry_bytes: usize,
    /// Not in RFC 9111: where the stored responses are written so that they outlive the
    /// cache, if anywhere.
    store: Option<Arc<dyn HttpCacheStore>>,
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
            store: None,
        }
    }

    /// A cache that writes its stored responses through to `store` and starts with those
    /// `store` holds (the least recently used first, evicted first when they are over the
    /// limits): at most [`HttpCacheStore::max_bytes`] bytes and
    /// [`HttpCache::DEFAULT_MAX_ENTRIES`] responses, each body at most
    /// [`HttpCache::DEFAULT_MAX_ENTRY_BYTES`]. A record the cache cannot read is removed
    /// from `store`.
    pub fn with_store(store: Arc<dyn HttpCacheStore>) -> HttpCache {
        let mut cache = HttpCache::with_limits(
            HttpCache::DEFAULT_MAX_ENTRIES,
            store.max_bytes(),
            HttpCache::DEFAULT_MAX_ENTRY_BYTES,
        );
        let records = store.load();
        cache.store = Some(store);
        cache.load(records);
        cache
    }

    /// The number of stored responses.
    #[cfg(test)]
    pub fn len(&self) -> usize {
        self.lock().count
    }

    /// Whether nothing is stored.
    #[cfg(test)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every stored response.
    #[cfg(test)]
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

    /// Whether the cache's store is [shared](HttpCacheStore::is_shared), so that
    /// [`HttpCache::read_through`] asks it for what the cache does not hold.
    pub(crate) fn reads_through(&self) -> bool {
        self.store.as_ref().is_some_and(|store| store.is_shared())
    }

    /// Not in RFC 9111: when the cache's store is [shared](HttpCacheStore::is_shared) and
    /// the cache holds nothing for `request`'s cache key, asks the store for the key's
    /// record and takes it in, so that [`HttpCache::select`] finds what another cache
    /// stored. The store bounds the time it takes; whatever it answers (nothing, an error,
    /// a record the cache cannot read) is at worst a miss. Only for a `GET` that may be
    /// answered from the cache (`include_credentials` as for [`HttpCache::select`]).
    pub(crate) async fn read_through(&self, request: &Request, include_credentials: bool) {
        debug_assert!(self.reads_through());
        let Some(store) = self.store.as_ref().filter(|store| store.is_shared()) else {
            return;
        };
        if request.method != "GET" || cache_control(request.headers.header_list()).no_store {
            return;
        }
        let key = cache_key(request, include_credentials);
        if self.lock().entries.contains_key(&key) {
            return;
        }
        if let Some(record) = store.get(&key).await {
            self.take_in(&key, &record);
        }
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
        if let Some(store) = &self.store {
            // A mark that is not written only leaves the order on the store behind.
            let _ = store.touch(&url);
        }
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
}

/// A new response for a stored entry at `now`: cloned headers with `Age` set to its
/// current age, and a body of the stored bytes; for a range, a 206 (Partial Content) of
/// those bytes with its `Content-Range` and `Content-Length`.
fn entry_response(entry: &Entry, serve: Serve, now: SystemTime) -> Response {
    let mut headers = entry.headers.clone();
    let age = current_age(&entry.headers, entry.request_time, entry.response_time, now);
    headers.set("Age", age.as_secs().to_string());
    if let Serve::Range(first, last) = serve {
        return partial_content(entry, first, last, headers);
    }
    let body = if entry.body.is_empty() && is_null_body_status(entry.status) {
        None
    } else {
        Some(Body::from_bytes(entry.body.clone()))
    };
    let mut response = Response::from_network(
        entry.status,
        entry.status_message.clone(),
        Headers::from_header_list(headers, HeadersGuard::Immutable),
        body,
        Vec::new(),
    );
    response.version = entry.version;
    response
}

#[cfg(test)]
mod test_support {
    //! Helpers for the tests of the cache's modules.

    use std::borrow::Cow;
    use std::time::{Duration, SystemTime};

    use bytes::Bytes;

    use super::ranges::Extent;
    use super::storage::Entry;
    use crate::headers::HeaderList;

    pub(super) fn list(headers: &[(&str, &str)]) -> HeaderList {
        headers.iter().copied().collect()
    }

    pub(super) fn at(seconds: u64) -> SystemTime {
        SystemTime::UNIX_EPOCH + Duration::from_secs(1_700_000_000 + seconds)
    }

    pub(super) fn date(seconds: u64) -> String {
        httpdate::fmt_http_date(at(seconds))
    }

    pub(super) fn entry(headers: HeaderList, status: u16) -> Entry {
        Entry {
            id: 0,
            vary: Vec::new(),
            status,
            status_message: Cow::Borrowed(""),
            version: http::Version::HTTP_11,
            headers,
            body: Bytes::from_static(b"body"),
            partial: None,
            request_time: at(0),
            response_time: at(0),
            last_used: 0,
            size: 0,
        }
    }

    pub(super) fn part(
        body: &'static str,
        first: u64,
        complete_length: Option<u64>,
        etag: &str,
    ) -> Entry {
        let mut part = entry(list(&[("ETag", etag)]), 206);
        part.body = Bytes::from_static(body.as_bytes());
        part.partial = Some(Extent {
            first,
            complete_length,
        });
        part
    }
}

#[cfg(test)]
mod tests {
    use bytes::Bytes;

    use super::test_support::{at, entry, list};
    use super::*;

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
}
