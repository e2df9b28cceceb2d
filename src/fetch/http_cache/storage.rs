//! Storing responses in the cache and removing them:
//! [RFC 9111 §3](https://httpwg.org/specs/rfc9111.html#response.cacheability) (whether a
//! response may be stored) and [§3.2](https://httpwg.org/specs/rfc9111.html#update)
//! (updating stored header fields), the cache key with
//! [`Vary`](https://httpwg.org/specs/rfc9111.html#caching.negotiated.responses) (§4.1),
//! [freshening](https://httpwg.org/specs/rfc9111.html#freshening.responses) (§4.3.4) and
//! [invalidation](https://httpwg.org/specs/rfc9111.html#invalidation) (§4.4); responses to
//! `POST` and `PATCH` stored for `GET` ([RFC 9110 §9.3.3](https://httpwg.org/specs/rfc9110.html#POST),
//! [RFC 5789 §2](https://www.rfc-editor.org/rfc/rfc5789#section-2)). Eviction (least
//! recently used, by entry count and bytes) is this cache's own: RFC 9111 leaves it to the
//! cache.

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;

use super::freshness::{
    cache_control, freshness_lifetime, is_heuristically_cacheable, time_of_use,
};
use super::persist::{decode_entries, encode_entries};
use super::ranges::{Extent, combine, completed, content_range, has_content_coding};
use super::{HttpCache, StoredResponse, entry_response};
use crate::body::Body;
use crate::headers::HeaderList;
use crate::request::Request;
use crate::response::{Response, is_null_body_status};

/// The stored responses, behind the cache's lock.
#[derive(Default)]
pub(super) struct Inner {
    /// Entries by URL (without fragment).
    pub(super) entries: HashMap<String, Vec<Entry>>,
    /// The number of entries.
    pub(super) count: usize,
    /// The bytes held by all entries.
    pub(super) total_bytes: usize,
    /// A counter for recency and entry ids.
    pub(super) clock: u64,
}

/// A stored response, with what it was stored for.
#[derive(Clone)]
pub(super) struct Entry {
    pub(super) id: u64,
    /// The request's values for the response's `Vary` names (lowercase).
    pub(super) vary: Vec<(Vec<u8>, Option<Bytes>)>,
    pub(super) status: u16,
    pub(super) status_message: Cow<'static, str>,
    /// The HTTP version the response came with, which a response served from this entry
    /// has (see `Response::version`).
    pub(super) version: http::Version,
    pub(super) headers: HeaderList,
    /// The stored bytes: the whole content, or for an incomplete response the bytes from
    /// `partial.first` on.
    pub(super) body: Bytes,
    /// For an incomplete response (stored from a 206), which part of the representation
    /// `body` holds; `None` when the content is complete.
    pub(super) partial: Option<Extent>,
    pub(super) request_time: SystemTime,
    pub(super) response_time: SystemTime,
    pub(super) last_used: u64,
    pub(super) size: usize,
}

impl HttpCache {
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
            self.write_through(&inner, &stored.url);
        }
        drop(inner);
        entry_response(&entry, stored.serve, response_time)
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
                    self.write_through(&inner, &key);
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
            version: response.version,
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
    fn insert(&self, url: String, entry: Entry) {
        // An incomplete response without bytes is of no use.
        if (entry.partial.is_some() && entry.body.is_empty()) || self.max_entries == 0 {
            return;
        }
        let mut inner = self.lock();
        let evicted = self.insert_locked(&mut inner, url.clone(), entry);
        self.write_through(&inner, &url);
        for key in evicted {
            self.write_eviction(&inner, &key);
        }
    }

    /// [`HttpCache::insert`] under the lock: the keys of the entries evicted to make room.
    fn insert_locked(&self, inner: &mut Inner, url: String, mut entry: Entry) -> Vec<String> {
        let mut evicted = Vec::new();
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
        entry.size = entry_size(&entry);
        if entry.size > self.max_bytes || entry.body.len() > self.max_entry_bytes {
            if entries.is_empty() {
                inner.entries.remove(&url);
            }
            return evicted;
        }
        inner.clock += 1;
        entry.id = inner.clock;
        entry.last_used = inner.clock;
        inner.count += 1;
        inner.total_bytes += entry.size;
        entries.push(entry);
        self.evict_beyond_limits(inner, &mut evicted);
        evicted
    }

    /// Evicts the least recently used entries while the cache is over its limits, adding
    /// their keys to `evicted`.
    fn evict_beyond_limits(&self, inner: &mut Inner, evicted: &mut Vec<String>) {
        while inner.count > self.max_entries || inner.total_bytes > self.max_bytes {
            match evict_least_recently_used(inner) {
                Some(key) => evicted.push(key),
                None => break,
            }
        }
    }

    /// Writes what is stored for `key` through to the cache's store, if it has one: its
    /// record, to expire when none of its responses is of use any more (see
    /// [`time_of_use`]), or its removal when nothing is stored. A record that is not written
    /// only leaves the store behind the cache (see `persist`).
    fn write_through(&self, inner: &Inner, key: &str) {
        let Some(store) = &self.store else {
            return;
        };
        let _ = match inner.entries.get(key) {
            Some(entries) if !entries.is_empty() => {
                let now = SystemTime::now();
                let ttl = entries
                    .iter()
                    .map(|entry| {
                        time_of_use(
                            entry.status,
                            &entry.headers,
                            entry.request_time,
                            entry.response_time,
                            now,
                        )
                    })
                    .max();
                store.put_expiring(key, &encode_entries(entries), ttl)
            }
            _ => store.remove(key),
        };
    }

    /// Writes an eviction of `key`'s responses through to the cache's store, as
    /// [`HttpCache::write_through`] does, unless the store is shared: the cache made room in
    /// its own memory, and the others' use of the record is not this cache's to end (a
    /// shared store bounds its own size).
    fn write_eviction(&self, inner: &Inner, key: &str) {
        if self.store.as_ref().is_some_and(|store| store.is_shared()) {
            return;
        }
        self.write_through(inner, key);
    }

    /// Takes in the records of the cache's store, least recently used first, and evicts
    /// beyond the limits; a record that cannot be read, or whose responses are over the
    /// limits, is written back as it is now (removed, or without what was evicted).
    pub(super) fn load(&self, records: Vec<(String, Vec<u8>)>) {
        let mut inner = self.lock();
        let inner = &mut *inner;
        let mut changed = Vec::new();
        for (key, record) in records {
            let Some(entries) = decode_entries(&record) else {
                changed.push(key);
                continue;
            };
            if !self.take_in_locked(inner, &key, entries) {
                changed.push(key);
            }
        }
        let mut evicted = Vec::new();
        self.evict_beyond_limits(inner, &mut evicted);
        for key in changed {
            self.write_through(inner, &key);
        }
        for key in evicted {
            self.write_eviction(inner, &key);
        }
    }

    /// Takes in `record`, which the cache's shared store holds for `key` (see
    /// [`HttpCache::read_through`]), unless the cache holds responses for `key` by now (a
    /// fetch that ran meanwhile stored them), and evicts beyond the limits. Whether the
    /// cache holds responses of it now: a record the cache cannot read is a miss, and a
    /// response over the limits is left out. Nothing is written back: the record came from the store, and a
    /// record the cache cannot read may be another version's, read by other caches.
    pub(super) fn take_in(&self, key: &str, record: &[u8]) -> bool {
        let Some(entries) = decode_entries(record) else {
            return false;
        };
        let mut inner = self.lock();
        let inner = &mut *inner;
        if inner.entries.contains_key(key) {
            return false;
        }
        // A response over the limits is left out; the others are taken.
        self.take_in_locked(inner, key, entries);
        let mut evicted = Vec::new();
        self.evict_beyond_limits(inner, &mut evicted);
        for key in evicted {
            self.write_eviction(inner, &key);
        }
        inner.entries.contains_key(key)
    }

    /// Adds the decoded responses of `key`'s record to the cache, as the most recently
    /// used; `false` when one of them is over the limits (and was left out).
    fn take_in_locked(&self, inner: &mut Inner, key: &str, entries: Vec<Entry>) -> bool {
        let mut whole = true;
        for mut entry in entries {
            entry.size = entry_size(&entry);
            if entry.size > self.max_bytes || entry.body.len() > self.max_entry_bytes {
                whole = false;
                continue;
            }
            inner.clock += 1;
            entry.id = inner.clock;
            entry.last_used = inner.clock;
            inner.count += 1;
            inner.total_bytes += entry.size;
            inner.entries.entry(key.to_owned()).or_default().push(entry);
        }
        whole
    }
}

/// The bytes an entry counts for: its body and its header fields.
fn entry_size(entry: &Entry) -> usize {
    entry.body.len()
        + entry
            .headers
            .iter_bytes()
            .map(|(name, value)| name.len() + value.len())
            .sum::<usize>()
}

/// Removes the least recently used entry and returns its key; `None` when there is none.
fn evict_least_recently_used(inner: &mut Inner) -> Option<String> {
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
    let (url, index) = oldest?;
    let entries = inner.entries.get_mut(&url)?;
    if index < entries.len() {
        let old = entries.swap_remove(index);
        inner.count -= 1;
        inner.total_bytes -= old.size;
    }
    if entries.is_empty() {
        inner.entries.remove(&url);
    }
    Some(url)
}

/// A response body that keeps its bytes as they are read, and stores the response when
/// the stream ends; an error, a body over the size limit, or a body dropped before its end
/// stores nothing.
pub(super) struct CachingBody {
    pub(super) body: Body,
    pub(super) cache: Arc<HttpCache>,
    /// The most bytes stored: beyond them nothing is.
    pub(super) limit: usize,
    pub(super) pending: Option<(String, Entry, BytesMut)>,
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

/// The cache key of `request`: whether it carries credentials (`include_credentials`, the
/// fetch's includeCredentials: responses to credentialed and anonymous requests are kept
/// apart, as Firefox does), and its current URL without fragment.
pub(super) fn cache_key(request: &Request, include_credentials: bool) -> String {
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

/// Whether a response may be [stored](https://httpwg.org/specs/rfc9111.html#response.cacheability).
pub(super) fn is_storable(
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
pub(super) fn vary_matches(entry: &Entry, request_headers: &HeaderList) -> bool {
    entry
        .vary
        .iter()
        .all(|(name, value)| request_headers.get(name) == *value)
}

/// Updates a stored header list with a 304's headers, as
/// [RFC 9111 §3.2](https://httpwg.org/specs/rfc9111.html#update) says: every field of the
/// 304 replaces the stored ones of that name, except `Content-Length`.
pub(super) fn update_headers(stored: &mut HeaderList, not_modified: &HeaderList) {
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

#[cfg(test)]
mod tests {
    use super::super::test_support::{at, entry, list};
    use super::*;

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
