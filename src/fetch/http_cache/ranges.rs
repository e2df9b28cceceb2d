//! Partial content: serving a byte range from a stored response, storing a 206 (Partial
//! Content) as an [incomplete response](https://httpwg.org/specs/rfc9111.html#incomplete.responses)
//! and completing it with a range request for the rest (RFC 9111 §3.3), and
//! [combining](https://httpwg.org/specs/rfc9111.html#combining.responses) parts of one
//! representation (§3.4, [RFC 9110 §15.3.7.3](https://httpwg.org/specs/rfc9110.html#combining.byte.ranges)),
//! over [byte ranges](https://httpwg.org/specs/rfc9110.html#byte.ranges) (RFC 9110 §14.1.2)
//! and [`Content-Range`](https://httpwg.org/specs/rfc9110.html#field.content-range) (§14.4).
//! What is left out is listed in the [module above](super).

use std::borrow::Cow;
use std::sync::Arc;
use std::time::SystemTime;

use bytes::{Bytes, BytesMut};
use futures_util::StreamExt;

use super::storage::{CachingBody, Entry, is_storable, update_headers};
use super::{HttpCache, StoredResponse};
use crate::body::Body;
use crate::error::{Error, NetworkError};
use crate::headers::{HeaderList, Headers, HeadersGuard};
use crate::request::Request;
use crate::response::Response;

/// Where the bytes of an incomplete stored response lie in the representation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Extent {
    /// The position of the first stored byte.
    pub(super) first: u64,
    /// The representation's complete length, if the `Content-Range` said it.
    pub(super) complete_length: Option<u64>,
}

impl Entry {
    /// The positions of the stored bytes: from the first, up to (not including) the end.
    pub(super) fn held(&self) -> (u64, u64) {
        let first = self.partial.map_or(0, |extent| extent.first);
        (first, first.saturating_add(self.body.len() as u64))
    }

    /// The representation's complete length, if known.
    pub(super) fn complete_length(&self) -> Option<u64> {
        match self.partial {
            Some(extent) => extent.complete_length,
            None => Some(self.body.len() as u64),
        }
    }
}

impl StoredResponse {
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

impl HttpCache {
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
            version: entry.version,
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
        let mut response = Response::from_network(
            200,
            "OK",
            Headers::from_header_list(headers, HeadersGuard::Immutable),
            Some(body),
            Vec::new(),
        );
        response.version = entry.version;
        Completion::Combined(response)
    }
}

/// A 206 (Partial Content) response of the bytes from `first` to `last`, inclusive, of a
/// stored entry, with `headers` (the stored ones, `Age` set) given the range's
/// [`Content-Range`](https://httpwg.org/specs/rfc9110.html#field.content-range) and
/// `Content-Length`.
pub(super) fn partial_content(
    entry: &Entry,
    first: u64,
    last: u64,
    mut headers: HeaderList,
) -> Response {
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
    let mut response = Response::from_network(
        206,
        "Partial Content",
        Headers::from_header_list(headers, HeadersGuard::Immutable),
        Some(Body::from_bytes(bytes)),
        Vec::new(),
    );
    response.version = entry.version;
    response
}

/// Combines a stored response with a new incomplete one for the same request, as
/// [RFC 9111 §3.4](https://httpwg.org/specs/rfc9111.html#combining.responses) allows: when
/// both have the same strong validator and complete length and their bytes overlap or
/// meet, the result holds the bytes of both, with the stored header fields replaced by the
/// new response's; otherwise the new response replaces the stored one.
pub(super) fn combine(old: &Entry, new: Entry) -> Entry {
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
pub(super) fn completed(mut entry: Entry) -> Entry {
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
pub(super) fn missing_range(entry: &Entry) -> Option<(u64, Option<u64>)> {
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
pub(super) fn resolve_range(
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
pub(super) fn content_range(headers: &HeaderList) -> Option<(u64, u64, Option<u64>)> {
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
pub(super) fn has_content_coding(headers: &HeaderList) -> bool {
    headers.values(b"content-encoding").any(|value| {
        value.split(|&byte| byte == b',').any(|coding| {
            !coding.trim_ascii().is_empty()
                && !coding.trim_ascii().eq_ignore_ascii_case(b"identity")
        })
    })
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

#[cfg(test)]
mod tests {
    use super::super::test_support::{at, entry, list, part};
    use super::super::{Serve, entry_response};
    use super::*;

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
}
