//! The [header list](https://fetch.spec.whatwg.org/#concept-header-list) and the algorithms
//! the spec runs on one: get, append, set, combine, sort and combine, extract a length, extract
//! a MIME type, determine nosniff.

use bytes::{Bytes, BytesMut};

use super::sets::normalize_header_value;
use crate::error::{Error, Result};
use crate::infra::{
    collect_a_sequence_of_bytes, collect_an_http_quoted_string, is_http_whitespace_byte, is_token,
    isomorphic_decode, trim_http_tab_or_space,
};
use crate::mime::MimeType;

/// A [header list](https://fetch.spec.whatwg.org/#concept-header-list): an ordered list of
/// (name, value) byte pairs, possibly with repeated names.
///
/// Names keep the case they were given (see [`HeaderList::append`]); every lookup is
/// byte-case-insensitive and allocates nothing. The list does not validate: it holds what
/// the fetch algorithms and the network put in it. [`Headers`](super::Headers) is the
/// validating, guarded view scripts use.
///
/// ```
/// use whatwg_fetch::headers::HeaderList;
/// let mut list = HeaderList::new();
/// list.append("Accept", "text/html");
/// list.append("accept", "*/*");
/// assert_eq!(list.get("ACCEPT").as_deref(), Some(&b"text/html, */*"[..]));
/// // The second name reuses the case of the first.
/// assert_eq!(list.iter().nth(1), Some((&b"Accept"[..], &b"*/*"[..])));
/// ```
#[derive(Clone)]
pub struct HeaderList {
    fields: Fields,
}

/// What a [`HeaderList`] holds (in the room of a `Vec`: the box takes its niche).
#[derive(Clone)]
enum Fields {
    /// The headers, in order: (name, value).
    List(Vec<(Bytes, Bytes)>),
    /// The fields of a response as the network layer received them, kept as its map
    /// until the list is changed or borrowed as [`Bytes`]: a response whose headers are
    /// only looked up (as most are) is never converted, value by value, into a list.
    Received(Box<Received>),
}

impl Default for HeaderList {
    fn default() -> HeaderList {
        HeaderList {
            fields: Fields::List(Vec::new()),
        }
    }
}

/// A received header map, every value of which is already
/// [normalized](normalize_header_value), with its list once made.
#[derive(Clone)]
struct Received {
    map: http::HeaderMap,
    list: std::sync::OnceLock<Vec<(Bytes, Bytes)>>,
}

impl std::fmt::Debug for HeaderList {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HeaderList")
            .field("headers", &self.list())
            .finish()
    }
}

impl PartialEq for HeaderList {
    fn eq(&self, other: &HeaderList) -> bool {
        self.len() == other.len() && self.fields().eq(other.fields())
    }
}

impl Eq for HeaderList {}

/// The result of an algorithm that returns null, failure, or a value, as
/// [extract a length](https://fetch.spec.whatwg.org/#header-list-extract-a-length) and
/// [extract header list values](https://fetch.spec.whatwg.org/#extract-header-list-values) do.
///
/// ```
/// use whatwg_fetch::headers::{Extracted, HeaderList};
///
/// let one: HeaderList = [("Content-Length", "42")].into_iter().collect();
/// let two: HeaderList = [("Content-Length", "42, 42")].into_iter().collect();
/// let bad: HeaderList = [("Content-Length", "42, 30")].into_iter().collect();
/// assert_eq!(one.extract_length(), Extracted::Value(42));
/// // The same length twice is one length.
/// assert_eq!(two.extract_length(), Extracted::Value(42));
/// assert_eq!(bad.extract_length(), Extracted::Failure);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Extracted<T> {
    /// The header list does not contain the header (the spec's null); for extract a length,
    /// also a value that is not a decimal number.
    Null,
    /// The header is present but its values conflict or do not parse (the spec's failure).
    Failure,
    /// The extracted value.
    Value(T),
}

impl<T> Extracted<T> {
    /// The value, if there is one: `None` for both null and failure.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// let list: HeaderList = [("Content-Length", "42")].into_iter().collect();
    /// assert_eq!(list.extract_length().value(), Some(42));
    /// ```
    pub fn value(self) -> Option<T> {
        match self {
            Extracted::Value(value) => Some(value),
            Extracted::Null | Extracted::Failure => None,
        }
    }

    /// Whether this is the spec's failure.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// // Two lengths that disagree: the spec's failure.
    /// let list: HeaderList = [("Content-Length", "42"), ("Content-Length", "30")].into_iter().collect();
    /// assert!(list.extract_length().is_failure());
    /// ```
    pub fn is_failure(&self) -> bool {
        matches!(self, Extracted::Failure)
    }

    /// Whether this is the spec's null.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// assert!(HeaderList::new().extract_length().is_null());
    /// ```
    pub fn is_null(&self) -> bool {
        matches!(self, Extracted::Null)
    }
}

impl HeaderList {
    /// An empty header list: « ».
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// let mut list = HeaderList::new();
    /// list.append("Accept", "*/*");
    /// assert_eq!(list.len(), 1);
    /// ```
    pub fn new() -> HeaderList {
        HeaderList::default()
    }

    /// An empty header list with room for `capacity` headers.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// let list = HeaderList::with_capacity(8);
    /// assert!(list.is_empty());
    /// ```
    pub fn with_capacity(capacity: usize) -> HeaderList {
        HeaderList {
            fields: Fields::List(Vec::with_capacity(capacity)),
        }
    }

    /// The number of headers, counting repeated names separately.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// let list: HeaderList = [("vary", "a"), ("Vary", "b")].into_iter().collect();
    /// // Two headers, though one name.
    /// assert_eq!(list.len(), 2);
    /// ```
    pub fn len(&self) -> usize {
        match &self.fields {
            Fields::List(headers) => headers.len(),
            Fields::Received(received) => received.map.len(),
        }
    }

    /// Whether the list has no headers.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// assert!(HeaderList::new().is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Removes every header.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// let mut list: HeaderList = [("a", "1"), ("b", "2")].into_iter().collect();
    /// list.clear();
    /// assert!(list.is_empty());
    /// ```
    pub fn clear(&mut self) {
        match &mut self.fields {
            Fields::List(headers) => headers.clear(),
            Fields::Received(_) => self.fields = Fields::List(Vec::new()),
        }
    }

    /// Removes the headers past the first `len`: those appended after them.
    pub(crate) fn truncate(&mut self, len: usize) {
        if len < self.len() {
            self.list_mut().truncate(len);
        }
    }

    /// The headers in order, as (name, value) with the names' stored case.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// let list: HeaderList = [("X-B", "2"), ("x-a", "1")].into_iter().collect();
    /// // As stored: in order, the names in the case they were given.
    /// let pairs: Vec<(&[u8], &[u8])> = list.iter().collect();
    /// assert_eq!(pairs, [(&b"X-B"[..], &b"2"[..]), (&b"x-a"[..], &b"1"[..])]);
    /// ```
    pub fn iter(&self) -> Iter<'_> {
        Iter {
            inner: self.list().iter(),
        }
    }

    /// The headers in order, as cheap clones of the stored [`Bytes`].
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// let list: HeaderList = [("etag", "\"v1\"")].into_iter().collect();
    /// let (name, value) = list.iter_bytes().next().expect("one header");
    /// // `Bytes` handles: kept past the list, without copying.
    /// let kept: bytes::Bytes = value.clone();
    /// assert_eq!((&name[..], &kept[..]), (&b"etag"[..], &b"\"v1\""[..]));
    /// ```
    pub fn iter_bytes(
        &self,
    ) -> impl ExactSizeIterator<Item = (&Bytes, &Bytes)> + DoubleEndedIterator {
        self.list().iter().map(|(name, value)| (name, value))
    }

    /// The values of the headers named `name` (byte-case-insensitively), in order.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// let list: HeaderList = [("Set-Cookie", "a=1"), ("x", "y"), ("set-cookie", "b=2")].into_iter().collect();
    /// assert_eq!(list.values(b"SET-COOKIE").collect::<Vec<_>>(), [&b"a=1"[..], b"b=2"]);
    /// ```
    pub fn values<'a>(&'a self, name: &'a [u8]) -> impl Iterator<Item = &'a [u8]> + 'a {
        self.fields()
            .filter(move |(header_name, _)| header_name.eq_ignore_ascii_case(name))
            .map(|(_, value)| value)
    }

    /// Whether the list [contains](https://fetch.spec.whatwg.org/#header-list-contains) a header
    /// whose name is a byte-case-insensitive match for `name`.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// let list: HeaderList = [("Content-Type", "text/plain")].into_iter().collect();
    /// assert!(list.contains("content-type") && !list.contains("content-length"));
    /// ```
    pub fn contains(&self, name: impl AsRef<[u8]>) -> bool {
        let name = name.as_ref();
        match &self.fields {
            Fields::List(headers) => position(headers, name).is_some(),
            Fields::Received(_) => self
                .fields()
                .any(|(header_name, _)| header_name.eq_ignore_ascii_case(name)),
        }
    }

    /// [Get](https://fetch.spec.whatwg.org/#concept-header-list-get) `name`: null, or the values
    /// of all headers named `name`, separated from each other by 0x2C 0x20, in order.
    ///
    /// A single value is returned without copying.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// let list: HeaderList = [("Accept", "text/html"), ("accept", "*/*")].into_iter().collect();
    /// assert_eq!(list.get("ACCEPT").as_deref(), Some(&b"text/html, */*"[..]));
    /// assert_eq!(list.get("range"), None);
    /// ```
    pub fn get(&self, name: impl AsRef<[u8]>) -> Option<Bytes> {
        let name = name.as_ref();
        // A received map's values are not `Bytes` until its list is made: they are copied.
        let single = match &self.fields {
            Fields::Received(received) if received.list.get().is_none() => None,
            _ => Some(
                self.list()
                    .iter()
                    .filter(|(header_name, _)| header_name.eq_ignore_ascii_case(name))
                    .map(|(_, value)| value),
            ),
        };
        // Step 1. If list does not contain name, then return null.
        // Step 2. Return the values of all headers in list whose name is a byte-case-insensitive
        // match for name, separated from each other by 0x2C 0x20, in order.
        if let Some(mut values) = single {
            let first = values.next()?;
            if values.next().is_none() {
                return Some(first.clone());
            }
        }
        let mut values = self.values(name);
        let mut combined = values.next()?.to_vec();
        for value in values {
            combined.extend_from_slice(b", ");
            combined.extend_from_slice(value);
        }
        Some(Bytes::from(combined))
    }

    /// [Get, decode, and split](https://fetch.spec.whatwg.org/#concept-header-list-get-decode-split)
    /// `name`: null, or the combined value split on commas outside quoted strings, each item
    /// isomorphic decoded and stripped of HTTP tabs and spaces.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    /// let list: HeaderList = [("A", "nosniff,"), ("B", "sniff"), ("A", "\"1,2\", 3")].into_iter().collect();
    /// assert_eq!(list.get_decode_split("a"), Some(vec!["nosniff".into(), "".into(), "\"1,2\"".into(), "3".into()]));
    /// assert_eq!(list.get_decode_split("c"), None);
    /// ```
    pub fn get_decode_split(&self, name: impl AsRef<[u8]>) -> Option<Vec<String>> {
        self.get_decode_split_bytes(name.as_ref()).map(|values| {
            values
                .iter()
                .map(|value| isomorphic_decode(value).into_owned())
                .collect()
        })
    }

    /// [Get, decode, and split](https://fetch.spec.whatwg.org/#concept-header-list-get-decode-split)
    /// without the decoding: isomorphic decoding maps each byte to one code point, so splitting
    /// the bytes gives the same items, still encoded.
    pub(crate) fn get_decode_split_bytes(&self, name: &[u8]) -> Option<Vec<Vec<u8>>> {
        // Step 1. Let value be the result of getting name from list.
        // Step 2. If value is null, then return null.
        let value = self.get(name)?;
        // Step 3. Return the result of getting, decoding, and splitting value.
        Some(get_decode_and_split_header_value_bytes(&value))
    }

    /// [Append](https://fetch.spec.whatwg.org/#concept-header-list-append) the header
    /// (`name`, `value`). If the list already contains `name`, the new header takes the case of
    /// the first such header's name.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// let mut list = HeaderList::new();
    /// list.append("X-Tag", "a");
    /// // The name takes the case of the first header of that name.
    /// list.append("x-tag", "b");
    /// let names: Vec<&[u8]> = list.iter().map(|(name, _)| name).collect();
    /// assert_eq!(names, [&b"X-Tag"[..], b"X-Tag"]);
    /// ```
    pub fn append(&mut self, name: impl AsRef<[u8]>, value: impl AsRef<[u8]>) {
        let name = name.as_ref();
        let value = Bytes::copy_from_slice(value.as_ref());
        let headers = self.list_mut();
        // Step 1. If list contains name, then set name to the first such header's name.
        let name = match find(headers, name) {
            Some(existing) => existing.clone(),
            None => Bytes::copy_from_slice(name),
        };
        // Step 2. Append (name, value) to list.
        headers.push((name, value));
    }

    /// [Delete](https://fetch.spec.whatwg.org/#concept-header-list-delete) `name`: remove all
    /// headers whose name is a byte-case-insensitive match for `name`.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// let mut list: HeaderList = [("a", "1"), ("A", "2"), ("b", "3")].into_iter().collect();
    /// list.delete("a");
    /// assert_eq!(list.len(), 1);
    /// ```
    pub fn delete(&mut self, name: impl AsRef<[u8]>) {
        let name = name.as_ref();
        self.list_mut()
            .retain(|(header_name, _)| !header_name.eq_ignore_ascii_case(name));
    }

    /// [Set](https://fetch.spec.whatwg.org/#concept-header-list-set) the header (`name`,
    /// `value`): replace the value of the first header named `name` and remove the others, or
    /// append it.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// let mut list: HeaderList = [("a", "1"), ("b", "2"), ("A", "3")].into_iter().collect();
    /// list.set("a", "new");
    /// // The first `a` keeps its place, the other goes.
    /// let pairs: Vec<(&[u8], &[u8])> = list.iter().collect();
    /// assert_eq!(pairs, [(&b"a"[..], &b"new"[..]), (&b"b"[..], &b"2"[..])]);
    /// ```
    pub fn set(&mut self, name: impl AsRef<[u8]>, value: impl AsRef<[u8]>) {
        let name = name.as_ref();
        let value = Bytes::copy_from_slice(value.as_ref());
        let headers = self.list_mut();
        // Step 1. If list contains name, then set the value of the first such header to value
        // and remove the others.
        if let Some(first) = position(headers, name) {
            let mut index = 0;
            let mut value = Some(value);
            headers.retain_mut(|(header_name, header_value)| {
                let keep = if index == first {
                    if let Some(value) = value.take() {
                        *header_value = value;
                    }
                    true
                } else {
                    !header_name.eq_ignore_ascii_case(name)
                };
                index += 1;
                keep
            });
        } else {
            // Step 2. Otherwise, append (name, value) to list.
            headers.push((Bytes::copy_from_slice(name), value));
        }
    }

    /// [Combine](https://fetch.spec.whatwg.org/#concept-header-list-combine) the header
    /// (`name`, `value`): append `, value` to the first header named `name`, or append it.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    ///
    /// let mut list: HeaderList = [("vary", "Accept")].into_iter().collect();
    /// list.combine("Vary", "Cookie");
    /// assert_eq!(list.len(), 1);
    /// assert_eq!(list.get("vary").as_deref(), Some(&b"Accept, Cookie"[..]));
    /// ```
    pub fn combine(&mut self, name: impl AsRef<[u8]>, value: impl AsRef<[u8]>) {
        let name = name.as_ref();
        let value = value.as_ref();
        let headers = self.list_mut();
        // Step 1. If list contains name, then set the value of the first such header to its
        // value, followed by 0x2C 0x20, followed by value.
        if let Some((_, header_value)) = headers
            .iter_mut()
            .find(|(header_name, _)| header_name.eq_ignore_ascii_case(name))
        {
            let mut combined = Vec::with_capacity(header_value.len() + 2 + value.len());
            combined.extend_from_slice(header_value);
            combined.extend_from_slice(b", ");
            combined.extend_from_slice(value);
            *header_value = Bytes::from(combined);
        } else {
            // Step 2. Otherwise, append (name, value) to list.
            headers.push((Bytes::copy_from_slice(name), Bytes::copy_from_slice(value)));
        }
    }

    /// [Sort and combine](https://fetch.spec.whatwg.org/#concept-header-list-sort-and-combine):
    /// a new list with byte-lowercased names in ascending byte order, each name once with its
    /// values combined, except `set-cookie`, whose values stay separate headers in order.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    /// let list: HeaderList =
    ///     [("X-B", "1"), ("Set-Cookie", "a=1"), ("x-a", "2"), ("x-b", "3"), ("set-cookie", "b=2")]
    ///         .into_iter()
    ///         .collect();
    /// let sorted: Vec<_> = list.sort_and_combine().iter().map(|(n, v)| (n.to_vec(), v.to_vec())).collect();
    /// assert_eq!(sorted, [
    ///     (b"set-cookie".to_vec(), b"a=1".to_vec()),
    ///     (b"set-cookie".to_vec(), b"b=2".to_vec()),
    ///     (b"x-a".to_vec(), b"2".to_vec()),
    ///     (b"x-b".to_vec(), b"1, 3".to_vec()),
    /// ]);
    /// ```
    pub fn sort_and_combine(&self) -> HeaderList {
        // Step 1. Let headers be a header list.
        let mut headers = HeaderList::with_capacity(self.len());
        // Step 2. Let names be the result of convert header names to a sorted-lowercase set with
        // all the names of the headers in list.
        // (Each header is paired with its lowercased name and the list sorted stably, so each
        // name's values stay together and in order: the same result as getting each name.)
        let mut lowercased: Vec<(Bytes, &Bytes)> = self
            .list()
            .iter()
            .map(|(name, value)| (lowercase_name(name), value))
            .collect();
        lowercased.sort_by(|(a, _), (b, _)| a.cmp(b));
        // Step 3. For each name of names:
        let mut rest = lowercased.as_slice();
        while let Some(((name, _), _)) = rest.split_first() {
            let count = rest.iter().take_while(|(other, _)| other == name).count();
            let (group, after) = rest.split_at(count);
            rest = after;
            if name.as_ref() == b"set-cookie" {
                // Step 3.1. If name is `set-cookie`, then:
                // Step 3.1.1. Let values be a list of all values of headers in list whose name is
                // a byte-case-insensitive match for name, in order.
                // Step 3.1.2. For each value of values: append (name, value) to headers.
                for (_, value) in group {
                    headers.push(name.clone(), Bytes::clone(value));
                }
            } else {
                // Step 3.2. Otherwise:
                // Step 3.2.1. Let value be the result of getting name from list.
                // Step 3.2.2. Assert: value is non-null.
                // Step 3.2.3. Append (name, value) to headers.
                let value = match group {
                    [(_, value)] => Bytes::clone(value),
                    _ => {
                        let mut combined = Vec::new();
                        for (index, (_, value)) in group.iter().enumerate() {
                            if index > 0 {
                                combined.extend_from_slice(b", ");
                            }
                            combined.extend_from_slice(value);
                        }
                        Bytes::from(combined)
                    }
                };
                headers.push(name.clone(), value);
            }
        }
        // Step 4. Return headers.
        headers
    }

    /// [Extract header list values](https://fetch.spec.whatwg.org/#extract-header-list-values)
    /// given `name`: null if the list does not contain `name`, failure if a header's value does
    /// not match the ABNF for `name`, or the values.
    ///
    /// The ABNF is known for the headers fetch reads this way:
    /// `Access-Control-Allow-Methods`, `Access-Control-Allow-Headers`,
    /// `Access-Control-Expose-Headers` and `Content-Encoding` are `#token` lists (each item a
    /// value, empty items ignored); `Access-Control-Max-Age` is a single `delta-seconds`;
    /// `Location`, `Access-Control-Allow-Origin` and `Access-Control-Allow-Credentials` are
    /// single values taken whole. For any other name each header's value is one value.
    ///
    /// ```
    /// use whatwg_fetch::headers::{Extracted, HeaderList};
    /// let list: HeaderList = [("Access-Control-Allow-Methods", "PUT, ,PATCH"), ("Location", "/a"), ("Location", "/b")]
    ///     .into_iter()
    ///     .collect();
    /// assert_eq!(
    ///     list.extract_header_list_values("access-control-allow-methods"),
    ///     Extracted::Value(vec!["PUT".into(), "PATCH".into()]),
    /// );
    /// assert_eq!(list.extract_header_list_values("Location"), Extracted::Failure);
    /// assert_eq!(list.extract_header_list_values("Access-Control-Max-Age"), Extracted::Null);
    /// ```
    pub fn extract_header_list_values(&self, name: impl AsRef<[u8]>) -> Extracted<Vec<Bytes>> {
        let name = name.as_ref();
        // Step 1. If list does not contain name, then return null.
        if !self.contains(name) {
            return Extracted::Null;
        }
        let grammar = HeaderGrammar::of(name);
        // Step 2. If the ABNF for name allows a single header and list contains more than one,
        // then return failure.
        if grammar.is_single() && self.values(name).nth(1).is_some() {
            return Extracted::Failure;
        }
        // Step 3. Let values be an empty list.
        let mut values = Vec::new();
        // Step 4. For each header header list contains whose name is name:
        for (header_name, value) in self.fields() {
            if !header_name.eq_ignore_ascii_case(name) {
                continue;
            }
            // Step 4.1. Let extract be the result of extracting header values from header.
            // Step 4.2. If extract is failure, then return failure.
            // Step 4.3. Append each value in extract, in order, to values.
            if !grammar.extract_header_values(value, &mut values) {
                return Extracted::Failure;
            }
        }
        // Step 5. Return values.
        Extracted::Value(values)
    }

    /// [Extract a length](https://fetch.spec.whatwg.org/#header-list-extract-a-length) from the
    /// `Content-Length` headers: null when absent or not a decimal number, failure when the
    /// values disagree, or the length.
    ///
    /// ```
    /// use whatwg_fetch::headers::{Extracted, HeaderList};
    /// let list: HeaderList = [("Content-Length", "42, 42")].into_iter().collect();
    /// assert_eq!(list.extract_length(), Extracted::Value(42));
    /// let list: HeaderList = [("Content-Length", "42"), ("Content-Length", "30")].into_iter().collect();
    /// assert_eq!(list.extract_length(), Extracted::Failure);
    /// ```
    pub fn extract_length(&self) -> Extracted<u64> {
        // Step 1. Let values be the result of getting, decoding, and splitting `Content-Length`
        // from headers.
        // Step 2. If values is null, then return null.
        let Some(values) = self.get_decode_split_bytes(b"Content-Length") else {
            return Extracted::Null;
        };
        // Step 3. Let candidateValue be null.
        let mut candidate_value: Option<&[u8]> = None;
        // Step 4. For each value of values:
        for value in &values {
            match candidate_value {
                // Step 4.1. If candidateValue is null, then set candidateValue to value.
                None => candidate_value = Some(value),
                // Step 4.2. Otherwise, if value is not candidateValue, return failure.
                Some(candidate) if candidate != value.as_slice() => return Extracted::Failure,
                Some(_) => {}
            }
        }
        // Step 5. If candidateValue is the empty string or has a code point that is not an
        // ASCII digit, then return null.
        let Some(candidate_value) = candidate_value else {
            return Extracted::Null;
        };
        if candidate_value.is_empty() || !candidate_value.iter().all(u8::is_ascii_digit) {
            return Extracted::Null;
        }
        // Step 6. Return candidateValue, interpreted as decimal number.
        // DEVIATION: the spec's number is unbounded; a length beyond u64::MAX cannot describe
        // any body, so it is treated as failure rather than wrapped or saturated.
        let mut length: u64 = 0;
        for &digit in candidate_value {
            match length
                .checked_mul(10)
                .and_then(|length| length.checked_add(u64::from(digit - b'0')))
            {
                Some(next) => length = next,
                None => return Extracted::Failure,
            }
        }
        Extracted::Value(length)
    }

    /// [Extract a MIME type](https://fetch.spec.whatwg.org/#concept-header-extract-mime-type)
    /// from the `Content-Type` headers: `None` for failure.
    ///
    /// The last parsable type other than `*/*` wins; a `charset` seen on an earlier value with
    /// the same essence is kept when the winner has none.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    /// let list: HeaderList = [("Content-Type", "text/html;charset=gbk;a=b"), ("Content-Type", "text/html;x=y")]
    ///     .into_iter()
    ///     .collect();
    /// let mime_type = list.extract_mime_type().map(|mime_type| mime_type.serialize());
    /// assert_eq!(mime_type.as_deref(), Some("text/html;x=y;charset=gbk"));
    /// ```
    pub fn extract_mime_type(&self) -> Option<MimeType> {
        // Step 1. Let charset be null.
        let mut charset: Option<String> = None;
        // Step 2. Let essence be null.
        let mut essence: Option<String> = None;
        // Step 3. Let mimeType be null.
        let mut mime_type: Option<MimeType> = None;
        // Step 4. Let values be the result of getting, decoding, and splitting `Content-Type`
        // from headers.
        // Step 5. If values is null, then return failure.
        let values = self.get_decode_split_bytes(b"Content-Type")?;
        // Step 6. For each value of values:
        for value in &values {
            // Step 6.1. Let temporaryMimeType be the result of parsing value.
            // Step 6.2. If temporaryMimeType is failure or its essence is "*/*", then continue.
            let Some(temporary_mime_type) = MimeType::parse_bytes(value) else {
                continue;
            };
            let temporary_essence = temporary_mime_type.essence();
            if temporary_essence == "*/*" {
                continue;
            }
            // Step 6.3. Set mimeType to temporaryMimeType.
            let mut new_mime_type = temporary_mime_type;
            if essence.as_deref() != Some(temporary_essence.as_str()) {
                // Step 6.4. If mimeType's essence is not essence, then:
                // Step 6.4.1. Set charset to null.
                // Step 6.4.2. If mimeType's parameters["charset"] exists, then set charset to
                // mimeType's parameters["charset"].
                charset = new_mime_type.parameter("charset").map(str::to_owned);
                // Step 6.4.3. Set essence to mimeType's essence.
                essence = Some(temporary_essence);
            } else if new_mime_type.parameter("charset").is_none() {
                // Step 6.5. Otherwise, if mimeType's parameters["charset"] does not exist, and
                // charset is non-null, set mimeType's parameters["charset"] to charset.
                if let Some(charset) = &charset {
                    // Cannot fail: charset is the value of a parameter the parser accepted.
                    let _ = new_mime_type.set_parameter("charset", charset);
                }
            }
            mime_type = Some(new_mime_type);
        }
        // Step 7. If mimeType is null, then return failure.
        // Step 8. Return mimeType.
        mime_type
    }

    /// [Determine nosniff](https://fetch.spec.whatwg.org/#determine-nosniff): whether the first
    /// `X-Content-Type-Options` value is an ASCII case-insensitive match for `nosniff`.
    ///
    /// ```
    /// use whatwg_fetch::headers::HeaderList;
    /// let list: HeaderList = [("X-Content-Type-Options", "NOSNIFF, whatever")].into_iter().collect();
    /// assert!(list.determine_nosniff());
    /// ```
    pub fn determine_nosniff(&self) -> bool {
        // Step 1. Let values be the result of getting, decoding, and splitting
        // `X-Content-Type-Options` from list.
        // Step 2. If values is null, then return false.
        let Some(values) = self.get_decode_split_bytes(b"X-Content-Type-Options") else {
            return false;
        };
        // Step 3. If values[0] is an ASCII case-insensitive match for "nosniff", then return true.
        // Step 4. Return false.
        values
            .first()
            .is_some_and(|first| first.eq_ignore_ascii_case(b"nosniff"))
    }

    /// A copy with room for `extra` more headers, so appending them does not reallocate.
    pub(crate) fn clone_with_spare_capacity(&self, extra: usize) -> HeaderList {
        let list = self.list();
        let mut headers = Vec::with_capacity(list.len() + extra);
        headers.extend(list.iter().cloned());
        HeaderList {
            fields: Fields::List(headers),
        }
    }

    /// Appends without looking for an existing name: for building a list whose names are
    /// already consistent (a copy, a conversion).
    pub(crate) fn push(&mut self, name: Bytes, value: Bytes) {
        match &mut self.fields {
            Fields::List(headers) => headers.push((name, value)),
            Fields::Received(_) => self.list_mut().push((name, value)),
        }
    }

    /// The fields of a response's header map as the network layer received them, with
    /// lowercase names (as a map's are) and each value [normalized](normalize_header_value)
    /// (a map with a value that is not is made into a list now).
    ///
    /// Kept as the map: reading the list looks the names up in it; only changing the list,
    /// or borrowing its fields as [`Bytes`] ([`iter`](Self::iter),
    /// [`iter_bytes`](Self::iter_bytes)), makes the list, once.
    pub(crate) fn from_received(map: http::HeaderMap) -> HeaderList {
        // Normalized: neither its first byte nor its last is HTTP whitespace.
        let normalized = map.values().all(|value| {
            let value = value.as_bytes();
            !value
                .first()
                .is_some_and(|&byte| is_http_whitespace_byte(byte))
                && !value
                    .last()
                    .is_some_and(|&byte| is_http_whitespace_byte(byte))
        });
        if !normalized {
            return HeaderList::from(&map);
        }
        HeaderList {
            fields: Fields::Received(Box::new(Received {
                map,
                list: std::sync::OnceLock::new(),
            })),
        }
    }

    /// The list's fields in order, as byte slices, without making a received map's list.
    fn fields(&self) -> FieldsIter<'_> {
        match &self.fields {
            Fields::List(headers) => FieldsIter::List(headers.iter()),
            Fields::Received(received) => match received.list.get() {
                Some(list) => FieldsIter::List(list.iter()),
                None => FieldsIter::Map(received.map.iter()),
            },
        }
    }

    /// The list's fields in order, a received map's list made if it was not.
    fn list(&self) -> &[(Bytes, Bytes)] {
        match &self.fields {
            Fields::List(headers) => headers,
            Fields::Received(received) => received.list.get_or_init(|| received.to_list()),
        }
    }

    /// The list, to be changed: a received map made into it first.
    fn list_mut(&mut self) -> &mut Vec<(Bytes, Bytes)> {
        if let Fields::Received(received) = &mut self.fields {
            let list = received.list.take().unwrap_or_else(|| received.to_list());
            self.fields = Fields::List(list);
        }
        match &mut self.fields {
            Fields::List(headers) => headers,
            // Made a list just above.
            Fields::Received(_) => unreachable!("a received map is made a list above"),
        }
    }
}

impl Received {
    /// The map's fields as a list.
    #[cold]
    fn to_list(&self) -> Vec<(Bytes, Bytes)> {
        match HeaderList::from(&self.map).fields {
            Fields::List(headers) => headers,
            Fields::Received(received) => received.to_list(),
        }
    }
}

/// The index of the first header of `headers` whose name matches `name`.
fn position(headers: &[(Bytes, Bytes)], name: &[u8]) -> Option<usize> {
    headers
        .iter()
        .position(|(header_name, _)| header_name.eq_ignore_ascii_case(name))
}

/// The stored name of the first header of `headers` whose name matches `name`.
fn find<'a>(headers: &'a [(Bytes, Bytes)], name: &[u8]) -> Option<&'a Bytes> {
    headers
        .iter()
        .find(|(header_name, _)| header_name.eq_ignore_ascii_case(name))
        .map(|(header_name, _)| header_name)
}

/// The fields of a [`HeaderList`], from its list or from the map it received.
enum FieldsIter<'a> {
    List(std::slice::Iter<'a, (Bytes, Bytes)>),
    Map(http::header::Iter<'a, http::HeaderValue>),
}

impl<'a> Iterator for FieldsIter<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        match self {
            FieldsIter::List(fields) => fields
                .next()
                .map(|(name, value)| (name.as_ref(), value.as_ref())),
            FieldsIter::Map(fields) => fields
                .next()
                .map(|(name, value)| (name.as_str().as_bytes(), value.as_bytes())),
        }
    }
}

/// `name` byte-lowercased, reusing the stored bytes when it already is.
fn lowercase_name(name: &Bytes) -> Bytes {
    if name.iter().any(u8::is_ascii_uppercase) {
        Bytes::from(name.to_ascii_lowercase())
    } else {
        name.clone()
    }
}

/// [Get, decode, and split](https://fetch.spec.whatwg.org/#header-value-get-decode-and-split)
/// a header value, on bytes: the items are the isomorphic encodings of the spec's strings.
pub(crate) fn get_decode_and_split_header_value_bytes(value: &[u8]) -> Vec<Vec<u8>> {
    // Step 1. Let input be the result of isomorphic decoding value.
    let input = value;
    // Step 2. Let position be a position variable for input, initially pointing at the start of
    // input.
    let mut position = 0;
    // Step 3. Let values be a list of strings, initially « ».
    let mut values = Vec::new();
    // Step 4. Let temporaryValue be the empty string.
    let mut temporary_value = Vec::new();
    // Step 5. While true:
    loop {
        // Step 5.1. Append the result of collecting a sequence of code points that are not
        // U+0022 (") or U+002C (,) from input, given position, to temporaryValue.
        temporary_value.extend_from_slice(collect_a_sequence_of_bytes(
            input,
            &mut position,
            |byte| byte != b'"' && byte != b',',
        ));
        // Step 5.2. If position is not past the end of input and the code point at position
        // within input is U+0022 ("):
        if input.get(position) == Some(&b'"') {
            // Step 5.2.1. Append the result of collecting an HTTP quoted string from input,
            // given position, to temporaryValue.
            temporary_value.extend_from_slice(&collect_an_http_quoted_string(
                input,
                &mut position,
                false,
            ));
            // Step 5.2.2. If position is not past the end of input, then continue.
            if position < input.len() {
                continue;
            }
        }
        // Step 5.3. Remove all HTTP tab or space from the start and end of temporaryValue.
        let trimmed = trim_http_tab_or_space(&temporary_value);
        // Step 5.4. Append temporaryValue to values.
        // Step 5.5. Set temporaryValue to the empty string.
        values.push(trimmed.to_vec());
        temporary_value.clear();
        // Step 5.6. If position is past the end of input, then return values.
        // Step 5.7. Assert: the code point at position within input is U+002C (,).
        if position >= input.len() {
            return values;
        }
        debug_assert_eq!(input.get(position), Some(&b','));
        // Step 5.8. Advance position by 1.
        position += 1;
    }
}

/// [Get, decode, and split](https://fetch.spec.whatwg.org/#header-value-get-decode-and-split)
/// a header value: split on commas outside quoted strings, each item isomorphic decoded and
/// stripped of HTTP tabs and spaces.
///
/// The spec keeps this for a few blessed call sites; most code wants
/// [`HeaderList::get_decode_split`].
///
/// ```
/// use whatwg_fetch::headers::get_decode_and_split_header_value;
///
/// let items = get_decode_and_split_header_value(b"text/html, \"a,b\" , x");
/// assert_eq!(items, ["text/html", "\"a,b\"", "x"]);
/// ```
pub fn get_decode_and_split_header_value(value: &[u8]) -> Vec<String> {
    get_decode_and_split_header_value_bytes(value)
        .iter()
        .map(|item| isomorphic_decode(item).into_owned())
        .collect()
}

/// The ABNF of a header's value, as far as
/// [extract header values](https://fetch.spec.whatwg.org/#extract-header-values) needs it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum HeaderGrammar {
    /// `#token`: a comma-separated list of tokens; empty items are ignored.
    TokenList,
    /// `delta-seconds`, a single header: `1*DIGIT`.
    DeltaSeconds,
    /// A single header whose value is taken whole.
    Single,
    /// Unknown: each header's value is one value.
    Any,
}

impl HeaderGrammar {
    fn of(name: &[u8]) -> HeaderGrammar {
        let is = |candidate: &[u8]| name.eq_ignore_ascii_case(candidate);
        if is(b"Access-Control-Allow-Methods")
            || is(b"Access-Control-Allow-Headers")
            || is(b"Access-Control-Expose-Headers")
            || is(b"Content-Encoding")
        {
            HeaderGrammar::TokenList
        } else if is(b"Access-Control-Max-Age") {
            HeaderGrammar::DeltaSeconds
        } else if is(b"Location")
            || is(b"Access-Control-Allow-Origin")
            || is(b"Access-Control-Allow-Credentials")
        {
            HeaderGrammar::Single
        } else {
            HeaderGrammar::Any
        }
    }

    fn is_single(self) -> bool {
        matches!(self, HeaderGrammar::DeltaSeconds | HeaderGrammar::Single)
    }

    /// [Extract header values](https://fetch.spec.whatwg.org/#extract-header-values): append the
    /// values parsed from `value` to `values`, or return false for failure.
    fn extract_header_values(self, value: &[u8], values: &mut Vec<Bytes>) -> bool {
        // Step 1. If parsing header's value, per the ABNF for header's name, fails, then return
        // failure.
        // Step 2. Return one or more values resulting from parsing header's value, per the ABNF
        // for header's name.
        match self {
            HeaderGrammar::TokenList => {
                // #element => [ element ] *( OWS "," OWS [ element ] ), where recipients ignore
                // empty elements.
                let mut items = Vec::new();
                for item in value.split(|&byte| byte == b',') {
                    let item = trim_http_tab_or_space(item);
                    if item.is_empty() {
                        continue;
                    }
                    if !is_token(item) {
                        return false;
                    }
                    items.push(Bytes::copy_from_slice(item));
                }
                values.extend(items);
                true
            }
            HeaderGrammar::DeltaSeconds => {
                if value.is_empty() || !value.iter().all(u8::is_ascii_digit) {
                    return false;
                }
                values.push(Bytes::copy_from_slice(value));
                true
            }
            HeaderGrammar::Single | HeaderGrammar::Any => {
                values.push(Bytes::copy_from_slice(value));
                true
            }
        }
    }
}

impl<K: AsRef<[u8]>, V: AsRef<[u8]>> FromIterator<(K, V)> for HeaderList {
    /// A list with each pair [appended](HeaderList::append), unvalidated.
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> HeaderList {
        let mut list = HeaderList::new();
        list.extend(iter);
        list
    }
}

impl<K: AsRef<[u8]>, V: AsRef<[u8]>> Extend<(K, V)> for HeaderList {
    /// [Appends](HeaderList::append) each pair, unvalidated.
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, iter: I) {
        for (name, value) in iter {
            self.append(name, value);
        }
    }
}

impl From<&http::HeaderMap> for HeaderList {
    /// The headers of `map` in its iteration order (each name's values together, in order),
    /// with lowercase names and each value [normalized](normalize_header_value).
    fn from(map: &http::HeaderMap) -> HeaderList {
        // More than a few values are copied into one buffer that they then share: two
        // allocations for the lot (the buffer and, once it is split, its count) rather than
        // one per value. A few are copied one by one, which costs less than splitting does
        // (`callgrind_fetch --typical-headers` measures both).
        if map.len() <= FEW_VALUES {
            return list_of(map, Bytes::copy_from_slice);
        }
        let size = map
            .values()
            .map(|value| normalize_header_value(value.as_bytes()).len())
            .sum();
        let mut values = BytesMut::with_capacity(size);
        for value in map.values() {
            values.extend_from_slice(normalize_header_value(value.as_bytes()));
        }
        // The map is the same as when the buffer was filled, value for value, so the buffer
        // holds each value's bytes in turn; the last value takes what is left.
        list_of(map, |value| match value.len() < values.len() {
            true => values.split_to(value.len()).freeze(),
            false => std::mem::take(&mut values).freeze(),
        })
    }
}

/// The headers of `map` in its iteration order, each value normalized and then made
/// `Bytes` by `bytes_of`.
fn list_of(map: &http::HeaderMap, mut bytes_of: impl FnMut(&[u8]) -> Bytes) -> HeaderList {
    let mut list = HeaderList::with_capacity(map.len());
    let mut previous: Option<(&http::HeaderName, Bytes)> = None;
    for (name, value) in map {
        // Reuse one allocation for a name's repeated values.
        let name_bytes = match &previous {
            Some((previous_name, bytes)) if *previous_name == name => bytes.clone(),
            _ => name_bytes(name),
        };
        previous = Some((name, name_bytes.clone()));
        list.push(
            name_bytes,
            bytes_of(normalize_header_value(value.as_bytes())),
        );
    }
    list
}

/// Up to how many values [`HeaderList::from`] a `HeaderMap` copies one by one.
const FEW_VALUES: usize = 3;

/// The bytes of a header name: shared static bytes for the names responses carry most,
/// a copy for any other. (The names are looked for in the order of how often responses
/// carry them, so that the commonest are found after a comparison or two.)
fn name_bytes(name: &http::HeaderName) -> Bytes {
    const COMMON: [&str; 24] = [
        "content-type",
        "content-length",
        "date",
        "server",
        "cache-control",
        "etag",
        "last-modified",
        "content-encoding",
        "vary",
        "expires",
        "accept-ranges",
        "set-cookie",
        "connection",
        "keep-alive",
        "transfer-encoding",
        "location",
        "age",
        "via",
        "access-control-allow-origin",
        "strict-transport-security",
        "x-content-type-options",
        "x-frame-options",
        "content-language",
        "content-range",
    ];
    let name = name.as_str();
    match COMMON.iter().find(|common| **common == name) {
        Some(common) => Bytes::from_static(common.as_bytes()),
        None => Bytes::copy_from_slice(name.as_bytes()),
    }
}

impl TryFrom<&HeaderList> for http::HeaderMap {
    type Error = Error;

    /// A map with every header of `list`, in order.
    ///
    /// # Errors
    ///
    /// [`ErrorKind::TypeError`](crate::ErrorKind::TypeError) if a name is not a valid
    /// [`http::HeaderName`] or a value not a valid [`http::HeaderValue`] (the `http` crate
    /// rejects control bytes other than tab, and 0x7F, that a header value may hold).
    fn try_from(list: &HeaderList) -> Result<http::HeaderMap> {
        if let Fields::Received(received) = &list.fields {
            return Ok(received.map.clone());
        }
        let mut map = http::HeaderMap::with_capacity(list.len());
        for (name, value) in list.iter_bytes() {
            let header_name = http::HeaderName::from_bytes(name).map_err(|_| {
                Error::type_error(format!(
                    "{:?} is not a valid HTTP header name",
                    String::from_utf8_lossy(name)
                ))
            })?;
            // The value's bytes are shared, not copied.
            let header_value =
                http::HeaderValue::from_maybe_shared(value.clone()).map_err(|_| {
                    Error::type_error(format!(
                        "{:?} is not a valid HTTP header value",
                        String::from_utf8_lossy(value)
                    ))
                })?;
            map.append(header_name, header_value);
        }
        Ok(map)
    }
}

impl IntoIterator for HeaderList {
    type Item = (Bytes, Bytes);
    type IntoIter = std::vec::IntoIter<(Bytes, Bytes)>;

    /// The headers in order, as owned (name, value) pairs.
    fn into_iter(mut self) -> std::vec::IntoIter<(Bytes, Bytes)> {
        std::mem::take(self.list_mut()).into_iter()
    }
}

impl<'a> IntoIterator for &'a HeaderList {
    type Item = (&'a [u8], &'a [u8]);
    type IntoIter = Iter<'a>;

    fn into_iter(self) -> Iter<'a> {
        self.iter()
    }
}

/// An iterator over the headers of a [`HeaderList`] as (name, value) byte slices, from
/// [`HeaderList::iter`].
///
/// ```
/// use whatwg_fetch::headers::HeaderList;
///
/// let list: HeaderList = [("A", "1")].into_iter().collect();
/// assert_eq!(list.iter().next(), Some((&b"A"[..], &b"1"[..])));
/// ```
#[derive(Clone, Debug)]
pub struct Iter<'a> {
    inner: std::slice::Iter<'a, (Bytes, Bytes)>,
}

impl<'a> Iterator for Iter<'a> {
    type Item = (&'a [u8], &'a [u8]);

    fn next(&mut self) -> Option<Self::Item> {
        self.inner
            .next()
            .map(|(name, value)| (name.as_ref(), value.as_ref()))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        self.inner.size_hint()
    }
}

impl DoubleEndedIterator for Iter<'_> {
    fn next_back(&mut self) -> Option<Self::Item> {
        self.inner
            .next_back()
            .map(|(name, value)| (name.as_ref(), value.as_ref()))
    }
}

impl ExactSizeIterator for Iter<'_> {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_header_map_becomes_a_list_of_its_values_each_trimmed_and_whole() {
        let mut map = http::HeaderMap::new();
        map.append(
            "content-type",
            http::HeaderValue::from_static(" text/plain "),
        );
        map.append("x-empty", http::HeaderValue::from_static(""));
        map.append("set-cookie", http::HeaderValue::from_static("a=1"));
        map.append("set-cookie", http::HeaderValue::from_static("\tb=2"));
        map.append("x-last", http::HeaderValue::from_static("  "));
        assert!(map.len() > FEW_VALUES);
        let list = HeaderList::from(&map);
        let pairs: Vec<(&[u8], &[u8])> = list.iter().collect();
        assert_eq!(
            pairs,
            [
                (&b"content-type"[..], &b"text/plain"[..]),
                (b"x-empty", b""),
                (b"set-cookie", b"a=1"),
                (b"set-cookie", b"b=2"),
                (b"x-last", b""),
            ]
        );
    }

    #[test]
    fn a_header_map_of_few_values_or_none_becomes_its_list() {
        let mut map = http::HeaderMap::new();
        assert!(HeaderList::from(&map).is_empty());
        map.append("etag", http::HeaderValue::from_static("\"x\""));
        map.append("vary", http::HeaderValue::from_static(" origin"));
        let list = HeaderList::from(&map);
        assert_eq!(
            list.iter().collect::<Vec<_>>(),
            [(&b"etag"[..], &b"\"x\""[..]), (b"vary", b"origin")]
        );
    }

    /// A map with repeated names, some in upper case where the network layer would have
    /// lowercased them: what a response's received headers look like.
    fn received_map() -> http::HeaderMap {
        let mut map = http::HeaderMap::new();
        map.append("content-type", http::HeaderValue::from_static("text/plain"));
        map.append("set-cookie", http::HeaderValue::from_static("a=1"));
        map.append("x-empty", http::HeaderValue::from_static(""));
        map.append("set-cookie", http::HeaderValue::from_static("b=2"));
        map.append("content-length", http::HeaderValue::from_static("42"));
        map
    }

    #[test]
    fn a_received_map_reads_as_the_list_made_from_it() {
        let map = received_map();
        let made = HeaderList::from(&map);
        let received = HeaderList::from_received(map.clone());
        assert!(matches!(received.fields, Fields::Received(_)));
        assert_eq!(received.len(), made.len());
        assert!(!received.is_empty());
        for name in [
            "Set-Cookie",
            "content-type",
            "X-EMPTY",
            "content-length",
            "absent",
        ] {
            assert_eq!(received.get(name), made.get(name), "{name}");
            assert_eq!(received.contains(name), made.contains(name), "{name}");
            assert_eq!(
                received.values(name.as_bytes()).collect::<Vec<_>>(),
                made.values(name.as_bytes()).collect::<Vec<_>>(),
                "{name}"
            );
            assert_eq!(
                received.extract_header_list_values(name),
                made.extract_header_list_values(name),
                "{name}"
            );
        }
        assert_eq!(
            received.get("set-cookie").as_deref(),
            Some(&b"a=1, b=2"[..])
        );
        assert_eq!(received.extract_length(), Extracted::Value(42));
        assert_eq!(
            received.extract_mime_type().map(|mime| mime.serialize()),
            Some("text/plain".to_owned())
        );
        // Looked up only: still the map.
        assert!(matches!(received.fields, Fields::Received(_)));
        assert_eq!(received, made);
        assert_eq!(made, received);
        assert_eq!(
            http::HeaderMap::try_from(&received).ok(),
            http::HeaderMap::try_from(&made).ok()
        );
        assert_eq!(format!("{received:?}"), format!("{made:?}"));
        // Borrowed as `Bytes`: its list is made, once, and read from then on.
        assert_eq!(
            received.iter().collect::<Vec<_>>(),
            made.iter().collect::<Vec<_>>()
        );
        assert_eq!(received.get("content-type"), made.get("content-type"));
        assert_eq!(received.sort_and_combine(), made.sort_and_combine());
        assert_eq!(
            received.clone().into_iter().collect::<Vec<_>>(),
            made.clone().into_iter().collect::<Vec<_>>()
        );
    }

    #[test]
    fn a_received_map_changed_becomes_a_list_with_the_change() {
        let map = received_map();
        for change in [
            (|list: &mut HeaderList| list.append("Set-Cookie", "c=3")) as fn(&mut HeaderList),
            |list| list.set("content-type", "text/html"),
            |list| list.delete("SET-COOKIE"),
            |list| list.combine("x-empty", "1"),
            |list| list.push(Bytes::from_static(b"x-raw"), Bytes::from_static(b"\x01")),
            |list| list.clear(),
        ] {
            let mut made = HeaderList::from(&map);
            let mut received = HeaderList::from_received(map.clone());
            // A list made before the change (borrowed as `Bytes`) is the one changed.
            let _ = received.iter_bytes().count();
            change(&mut made);
            change(&mut received);
            assert!(matches!(received.fields, Fields::List(_)));
            assert_eq!(
                received.iter().collect::<Vec<_>>(),
                made.iter().collect::<Vec<_>>()
            );
            let mut unread = HeaderList::from_received(map.clone());
            change(&mut unread);
            assert_eq!(unread, made);
        }
    }

    #[test]
    fn a_received_value_that_is_not_normalized_makes_the_list_at_once() {
        let mut map = received_map();
        map.append("x-padded", http::HeaderValue::from_static(" padded\t"));
        let received = HeaderList::from_received(map);
        assert!(matches!(received.fields, Fields::List(_)));
        assert_eq!(received.get("x-padded").as_deref(), Some(&b"padded"[..]));
        assert_eq!(received.get("content-length").as_deref(), Some(&b"42"[..]));
    }

    #[test]
    fn a_header_list_takes_the_room_of_a_vec() {
        assert_eq!(
            std::mem::size_of::<HeaderList>(),
            std::mem::size_of::<Vec<(Bytes, Bytes)>>()
        );
    }
}
