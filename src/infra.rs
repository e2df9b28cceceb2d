//! The bottom of the crate: the primitives of the [Infra Standard](https://infra.spec.whatwg.org/)
//! and the HTTP lexical pieces of the [Fetch Standard](https://fetch.spec.whatwg.org/#http)
//! and the [MIME Sniffing Standard](https://mimesniff.spec.whatwg.org/#terminology) that the
//! other modules share, each written once:
//!
//! - byte classes: [ASCII whitespace](https://infra.spec.whatwg.org/#ascii-whitespace), the
//!   [HTTP newline](https://fetch.spec.whatwg.org/#http-newline-byte),
//!   [tab or space](https://fetch.spec.whatwg.org/#http-tab-or-space-byte) and
//!   [whitespace](https://fetch.spec.whatwg.org/#http-whitespace-byte) bytes,
//!   [HTTP token code points](https://mimesniff.spec.whatwg.org/#http-token-code-point)
//!   (RFC 9110's `tchar`) and [tokens](is_token), and
//!   [HTTP quoted-string token code points](https://mimesniff.spec.whatwg.org/#http-quoted-string-token-code-point);
//! - [collect a sequence of bytes](collect_a_sequence_of_bytes) or
//!   [of code points](collect_a_sequence_of_code_points),
//!   [collect an HTTP quoted string](collect_an_http_quoted_string), and trimming;
//! - [isomorphic decode](isomorphic_decode) and [encode](isomorphic_encode);
//! - [forgiving-base64](https://infra.spec.whatwg.org/#forgiving-base64) encode and decode
//!   (the spec layer for `data:` URLs and integrity metadata, the network layer for
//!   `Proxy-Authorization`);
//! - the proleptic Gregorian calendar that cookie-dates (RFC 6265bis) and HTTP-dates
//!   (RFC 9110 §5.6.7) are turned into times with ([`days_in_month`], [`days_from_civil`]),
//!   and times into dates with ([`civil_from_days`]);
//! - the largest HTTP `delta-seconds` kept (RFC 9111 §1.2.2, [`MAX_DELTA_SECONDS`]);
//! - HTTP Digest authentication (RFC 7616): the challenges of a `WWW-Authenticate` or
//!   `Proxy-Authenticate` field (RFC 9110 §11) within limits, and the answer to the
//!   strongest `Digest` one (`digest`);
//! - not a standard's: what a thread keeps from one request to the next ([`kept`]), and
//!   the Redis connection of the stores a fleet shares (`redis`, the `redis` feature).
//!
//! This module imports nothing from the rest of the crate, so every layer may use it; it is
//! private, and what is public is re-exported where users find it: the byte classes and
//! [`is_token`] in [`crate::mime`] (the HTTP whitespace bytes also in [`crate::headers`]),
//! forgiving-base64 in [`crate::data_url`].
//!
//! The algorithms run on bytes, with positions as byte offsets. The `&str` forms are thin
//! wrappers for callers that hold a string: every condition the specs use on these code
//! points asks about ASCII code points only, and a UTF-8 byte of a non-ASCII code point is
//! never an ASCII byte, so the byte algorithm stops where the code point algorithm would, on a
//! `char` boundary.

use std::borrow::Cow;

pub(crate) mod digest;
pub(crate) mod kept;
#[cfg(feature = "redis")]
pub(crate) mod redis;

// ---------------------------------------------------------------------------------------------
// Byte classes: https://infra.spec.whatwg.org/#ascii-whitespace, https://fetch.spec.whatwg.org/#http
// and https://mimesniff.spec.whatwg.org/#terminology

/// Whether `byte` is [ASCII whitespace](https://infra.spec.whatwg.org/#ascii-whitespace):
/// U+0009 TAB, U+000A LF, U+000C FF, U+000D CR, or U+0020 SPACE.
#[inline]
pub(crate) fn is_ascii_whitespace(byte: u8) -> bool {
    matches!(byte, b'\t' | b'\n' | b'\x0C' | b'\r' | b' ')
}

/// Whether `byte` is an [HTTP newline byte](https://fetch.spec.whatwg.org/#http-newline-byte):
/// 0x0A (LF) or 0x0D (CR).
///
/// ```
/// use whatwg_fetch::mime::is_http_newline_byte;
///
/// assert!(is_http_newline_byte(b'\r'));
/// assert!(!is_http_newline_byte(b' '));
/// ```
#[inline]
pub fn is_http_newline_byte(byte: u8) -> bool {
    byte == b'\n' || byte == b'\r'
}

/// Whether `byte` is an
/// [HTTP tab or space byte](https://fetch.spec.whatwg.org/#http-tab-or-space-byte):
/// 0x09 (HT) or 0x20 (SP).
///
/// ```
/// use whatwg_fetch::mime::is_http_tab_or_space_byte;
///
/// assert!(is_http_tab_or_space_byte(b'\t'));
/// assert!(!is_http_tab_or_space_byte(b'\n'));
/// ```
#[inline]
pub fn is_http_tab_or_space_byte(byte: u8) -> bool {
    byte == b'\t' || byte == b' '
}

/// Whether `byte` is an
/// [HTTP whitespace byte](https://fetch.spec.whatwg.org/#http-whitespace-byte): an HTTP
/// newline byte or an HTTP tab or space byte (0x09, 0x0A, 0x0D, 0x20).
///
/// ```
/// use whatwg_fetch::mime::is_http_whitespace_byte;
///
/// assert!(is_http_whitespace_byte(b'\n'));
/// assert!(!is_http_whitespace_byte(0x0C)); // form feed is not HTTP whitespace
/// ```
#[inline]
pub fn is_http_whitespace_byte(byte: u8) -> bool {
    is_http_newline_byte(byte) || is_http_tab_or_space_byte(byte)
}

/// Whether `byte` is the byte of an
/// [HTTP token code point](https://mimesniff.spec.whatwg.org/#http-token-code-point):
/// ``!#$%&'*+-.^_`|~`` or an ASCII alphanumeric. These are RFC 9110's
/// [`tchar`](https://httpwg.org/specs/rfc9110.html#tokens).
///
/// ```
/// use whatwg_fetch::mime::is_http_token_byte;
///
/// assert!(is_http_token_byte(b'~'));
/// assert!(!is_http_token_byte(b'('));
/// ```
#[inline]
pub fn is_http_token_byte(byte: u8) -> bool {
    matches!(
        byte,
        b'!' | b'#'
            | b'$'
            | b'%'
            | b'&'
            | b'\''
            | b'*'
            | b'+'
            | b'-'
            | b'.'
            | b'^'
            | b'_'
            | b'`'
            | b'|'
            | b'~'
    ) || byte.is_ascii_alphanumeric()
}

/// Whether `bytes` matches the [`token`](https://httpwg.org/specs/rfc9110.html#tokens)
/// production: one or more [HTTP token bytes](is_http_token_byte).
///
/// A [header name](https://fetch.spec.whatwg.org/#header-name), a
/// [method](https://fetch.spec.whatwg.org/#concept-method), and a MIME type's type, subtype
/// and parameter names (as UTF-8, whose non-ASCII bytes are no token bytes) are exactly the
/// byte sequences for which this is true.
///
/// ```
/// use whatwg_fetch::mime::is_token;
///
/// assert!(is_token(b"Content-Type"));
/// assert!(!is_token(b""));
/// assert!(!is_token(b"bad name"));
/// ```
#[inline]
pub fn is_token(bytes: &[u8]) -> bool {
    !bytes.is_empty() && bytes.iter().copied().all(is_http_token_byte)
}

/// Whether `c` is an
/// [HTTP quoted-string token code point](https://mimesniff.spec.whatwg.org/#http-quoted-string-token-code-point):
/// U+0009 TAB, U+0020 SPACE to U+007E (~), or U+0080 to U+00FF (ÿ).
///
/// A code point, not a byte: U+0080 to U+00FF are one byte each only once isomorphic
/// encoded, so a `&str` is checked `char` by `char`.
#[inline]
pub(crate) fn is_http_quoted_string_token_code_point(c: char) -> bool {
    matches!(c, '\t' | ' '..='~' | '\u{80}'..='\u{ff}')
}

// ---------------------------------------------------------------------------------------------
// Collecting: https://infra.spec.whatwg.org/#collect-a-sequence-of-code-points and
// https://fetch.spec.whatwg.org/#collect-an-http-quoted-string

/// [Collect a sequence of bytes](https://infra.spec.whatwg.org/#collect-a-sequence-of-bytes)
/// meeting `condition` from `input`, given `position`, which moves past them. The result
/// borrows from `input`.
#[inline]
pub(crate) fn collect_a_sequence_of_bytes<'a>(
    input: &'a [u8],
    position: &mut usize,
    condition: impl Fn(u8) -> bool,
) -> &'a [u8] {
    // Step 1. Let result be the empty byte sequence.
    // Step 2. While position doesn't point past the end of input and the byte at position
    // within input meets the condition condition:
    // Step 2.1. Append that byte to the end of result.
    // Step 2.2. Advance position by 1.
    let rest = input.get(*position..).unwrap_or_default();
    let length = rest
        .iter()
        .position(|&byte| !condition(byte))
        .unwrap_or(rest.len());
    *position += length;
    // Step 3. Return result.
    rest.get(..length).unwrap_or_default()
}

/// [Collect a sequence of code points](https://infra.spec.whatwg.org/#collect-a-sequence-of-code-points)
/// meeting `condition` from `input`, given the byte offset `position`, which moves past
/// them: [`collect_a_sequence_of_bytes`] over the UTF-8 bytes.
///
/// `condition` sees bytes, so it must answer alike for every byte from 0x80 up (the bytes of
/// the non-ASCII code points), as every condition in the Fetch and MIME Sniffing Standards
/// does ("not U+003B (;)", "HTTP whitespace"); `position` then stops on a `char` boundary,
/// which debug builds check.
#[inline]
pub(crate) fn collect_a_sequence_of_code_points<'a>(
    input: &'a str,
    position: &mut usize,
    condition: impl Fn(u8) -> bool,
) -> &'a str {
    let start = *position;
    collect_a_sequence_of_bytes(input.as_bytes(), position, condition);
    debug_assert!(
        input.is_char_boundary(*position),
        "the condition split a code point"
    );
    input.get(start..*position).unwrap_or_default()
}

/// [Collect an HTTP quoted string](https://fetch.spec.whatwg.org/#collect-an-http-quoted-string)
/// from `input`, given `position` (which must point at 0x22 (")) and `extract_value`.
///
/// With `extract_value`, the unescaped contents; otherwise the quoted string as it stands in
/// `input`, quotes and backslashes included. `position` ends past the closing quote, or at
/// the end of `input` if there is none. Every delimiter is ASCII, so this is the same as
/// collecting from the isomorphic decoding of `input`.
///
/// Nothing is copied unless an escape splits the value: the raw form and an escape-free
/// value borrow from `input`.
pub(crate) fn collect_an_http_quoted_string<'a>(
    input: &'a [u8],
    position: &mut usize,
    extract_value: bool,
) -> Cow<'a, [u8]> {
    // Step 1. Let positionStart be position.
    let position_start = *position;

    // Step 2. Let value be the empty string.
    // (Kept as the range of input it is while it is one; see `QuotedValue`.)
    let mut value = QuotedValue::new(position_start + 1, extract_value);

    // Step 3. Assert: the code point at position within input is U+0022 (").
    debug_assert_eq!(input.get(*position), Some(&b'"'));

    // Step 4. Advance position by 1.
    *position += 1;

    // Step 5. While true:
    loop {
        // Step 5.1. Append the result of collecting a sequence of code points that are not
        // U+0022 (") or U+005C (\) from input, given position, to value.
        let start = *position;
        collect_a_sequence_of_bytes(input, position, |byte| byte != b'"' && byte != b'\\');
        value.append(input, start, *position);

        // Step 5.2. If position is past the end of input, then break.
        // Step 5.3. Let quoteOrBackslash be the code point at position within input.
        let Some(&quote_or_backslash) = input.get(*position) else {
            break;
        };

        // Step 5.4. Advance position by 1.
        *position += 1;

        // Step 5.5. If quoteOrBackslash is U+005C (\), then:
        if quote_or_backslash == b'\\' {
            // Step 5.5.1. If position is past the end of input, then append U+005C (\) to
            // value and break.
            // (That U+005C is the one just passed.)
            if *position >= input.len() {
                value.append(input, *position - 1, *position);
                break;
            }

            // Step 5.5.2. Append the code point at position within input to value.
            value.append(input, *position, *position + 1);

            // Step 5.5.3. Advance position by 1.
            *position += 1;
        }
        // Step 5.6. Otherwise:
        else {
            // Step 5.6.1. Assert: quoteOrBackslash is U+0022 (").
            debug_assert_eq!(quote_or_backslash, b'"');

            // Step 5.6.2. Break.
            break;
        }
    }

    // Step 6. If extract-value is true, then return value.
    if extract_value {
        return value.into_bytes(input);
    }

    // Step 7. Return the code points from positionStart to position, inclusive, within
    // input.
    Cow::Borrowed(input.get(position_start..*position).unwrap_or_default())
}

/// [`collect_an_http_quoted_string`] on a string, for a MIME type's parameter value.
///
/// Only U+0022 (") and U+005C (\) are looked at, so a code point after a backslash is kept
/// whole: the result is the input without the escaping backslashes, still UTF-8.
pub(crate) fn collect_an_http_quoted_string_from_str<'a>(
    input: &'a str,
    position: &mut usize,
    extract_value: bool,
) -> Cow<'a, str> {
    match collect_an_http_quoted_string(input.as_bytes(), position, extract_value) {
        Cow::Borrowed(bytes) => Cow::Borrowed(std::str::from_utf8(bytes).unwrap_or_default()),
        Cow::Owned(bytes) => Cow::Owned(
            String::from_utf8(bytes)
                .unwrap_or_else(|error| String::from_utf8_lossy(error.as_bytes()).into_owned()),
        ),
    }
}

/// The value an HTTP quoted string collects: a range of the input until an escape splits it,
/// then owned bytes. Appends are ranges of the input; one that continues the range extends
/// it (so a code point after a backslash, appended one byte at a time, stays whole).
enum QuotedValue {
    /// Nothing is collected (the raw form is wanted).
    Unused,
    /// `input[start..end]`.
    Range(usize, usize),
    /// The bytes, once they are no longer one range of the input.
    Owned(Vec<u8>),
}

impl QuotedValue {
    fn new(start: usize, extract_value: bool) -> QuotedValue {
        if extract_value {
            QuotedValue::Range(start, start)
        } else {
            QuotedValue::Unused
        }
    }

    fn append(&mut self, input: &[u8], from: usize, to: usize) {
        if from == to {
            return;
        }
        match self {
            QuotedValue::Unused => {}
            QuotedValue::Range(start, end) => {
                if *end == from {
                    *end = to;
                } else if start == end {
                    *self = QuotedValue::Range(from, to);
                } else {
                    let collected = input.get(*start..*end).unwrap_or_default();
                    let appended = input.get(from..to).unwrap_or_default();
                    let mut owned = Vec::with_capacity(collected.len() + appended.len() + 8);
                    owned.extend_from_slice(collected);
                    owned.extend_from_slice(appended);
                    *self = QuotedValue::Owned(owned);
                }
            }
            QuotedValue::Owned(owned) => {
                owned.extend_from_slice(input.get(from..to).unwrap_or_default());
            }
        }
    }

    fn into_bytes(self, input: &[u8]) -> Cow<'_, [u8]> {
        match self {
            QuotedValue::Unused => Cow::Borrowed(&[]),
            QuotedValue::Range(start, end) => {
                Cow::Borrowed(input.get(start..end).unwrap_or_default())
            }
            QuotedValue::Owned(owned) => Cow::Owned(owned),
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Trimming: "strip leading and trailing …" (Infra), "remove any leading and trailing …" (Fetch)

/// `bytes` without the leading and trailing bytes that meet `condition`.
#[inline]
pub(crate) fn trim_bytes(bytes: &[u8], condition: impl Fn(u8) -> bool) -> &[u8] {
    let start = bytes
        .iter()
        .position(|&byte| !condition(byte))
        .unwrap_or(bytes.len());
    trim_trailing_bytes(bytes.get(start..).unwrap_or_default(), condition)
}

/// `bytes` without the trailing bytes that meet `condition`.
#[inline]
pub(crate) fn trim_trailing_bytes(bytes: &[u8], condition: impl Fn(u8) -> bool) -> &[u8] {
    let end = bytes
        .iter()
        .rposition(|&byte| !condition(byte))
        .map_or(0, |last| last + 1);
    bytes.get(..end).unwrap_or_default()
}

/// `bytes` without leading and trailing [HTTP whitespace bytes](is_http_whitespace_byte), as
/// [normalizing](https://fetch.spec.whatwg.org/#concept-header-value-normalize) a header
/// value does.
#[inline]
pub(crate) fn trim_http_whitespace(bytes: &[u8]) -> &[u8] {
    trim_bytes(bytes, is_http_whitespace_byte)
}

/// `bytes` without leading and trailing [HTTP tab or space bytes](is_http_tab_or_space_byte).
#[inline]
pub(crate) fn trim_http_tab_or_space(bytes: &[u8]) -> &[u8] {
    trim_bytes(bytes, is_http_tab_or_space_byte)
}

/// [`trim_bytes`] on a string, for a `condition` that holds for ASCII bytes only (so the
/// string is cut on `char` boundaries).
#[inline]
pub(crate) fn trim_code_points(input: &str, condition: impl Fn(u8) -> bool) -> &str {
    let start = input
        .bytes()
        .position(|byte| !condition(byte))
        .unwrap_or(input.len());
    trim_trailing_code_points(input.get(start..).unwrap_or_default(), condition)
}

/// [`trim_trailing_bytes`] on a string, for a `condition` that holds for ASCII bytes only.
#[inline]
pub(crate) fn trim_trailing_code_points(input: &str, condition: impl Fn(u8) -> bool) -> &str {
    let end = input
        .bytes()
        .rposition(|byte| !condition(byte))
        .map_or(0, |last| last + 1);
    input.get(..end).unwrap_or_default()
}

// ---------------------------------------------------------------------------------------------
// Isomorphic decode and encode: https://infra.spec.whatwg.org/#isomorphic-decode

/// [Isomorphic decode](https://infra.spec.whatwg.org/#isomorphic-decode) `input`: each byte
/// becomes the code point of the same value (U+0000 to U+00FF). An ASCII `input`, whose
/// isomorphic decoding is its UTF-8 decoding, is borrowed.
pub(crate) fn isomorphic_decode(input: &[u8]) -> Cow<'_, str> {
    if input.is_ascii() {
        return Cow::Borrowed(std::str::from_utf8(input).unwrap_or_default());
    }
    // Return a string whose code point length is equal to input's length and whose code
    // points have the same values as the values of input's bytes, in the same order.
    Cow::Owned(input.iter().map(|&byte| char::from(byte)).collect())
}

/// [Isomorphic encode](https://infra.spec.whatwg.org/#isomorphic-encode) `input`, an
/// isomorphic string: each code point becomes the byte of the same value. An ASCII `input`,
/// whose isomorphic encoding is its UTF-8 encoding, is borrowed.
///
/// Infra asserts that `input` has no code point above U+00FF, and the callers only pass
/// strings that have none: a [serialized MIME type](crate::mime::MimeType::serialize) (its
/// parts are HTTP token and HTTP quoted-string token code points), for
/// `serialize_to_bytes`, and a `Blob`'s type (a serialized MIME type, or ASCII), for the
/// `Content-Type` of extract a body, of a blob: URL response and of a multipart/form-data
/// file part. Debug builds check it. In a release build such a code point is written as its
/// UTF-8 bytes (see [`isomorphic_encode_lenient`]).
pub(crate) fn isomorphic_encode(input: &str) -> Cow<'_, [u8]> {
    // Step 1. Assert: input contains no code points greater than U+00FF.
    debug_assert!(
        input.chars().all(|c| u32::from(c) <= 0xFF),
        "{input:?} is not an isomorphic string"
    );
    // Step 2. Return a byte sequence whose length is equal to input's code point length and
    // whose bytes have the same values as the values of input's code points, in the same
    // order.
    isomorphic_encode_lenient(input)
}

/// [`isomorphic_encode`] without the assertion: a code point above U+00FF, which no caller
/// passes, becomes its UTF-8 bytes. Nothing is lost, and each byte that adds is 0x80 or more,
/// so it can never forge a delimiter, CR, LF or NUL; keeping the low byte of the code point
/// instead (as Node.js's `latin1` once did for request paths, CVE-2018-12116) turns U+010A
/// into LF and splits a request.
fn isomorphic_encode_lenient(input: &str) -> Cow<'_, [u8]> {
    if input.is_ascii() {
        return Cow::Borrowed(input.as_bytes());
    }
    let mut bytes = Vec::with_capacity(input.len());
    for c in input.chars() {
        match u8::try_from(c) {
            Ok(byte) => bytes.push(byte),
            Err(_) => bytes.extend_from_slice(c.encode_utf8(&mut [0; 4]).as_bytes()),
        }
    }
    Cow::Owned(bytes)
}

// ---------------------------------------------------------------------------------------------
// Forgiving-base64: https://infra.spec.whatwg.org/#forgiving-base64

/// [Forgiving-base64 decode](https://infra.spec.whatwg.org/#forgiving-base64-decode) `data`,
/// or `None` for the spec's failure.
///
/// Unlike strict RFC 4648 decoding, ASCII whitespace anywhere is ignored, padding is
/// optional, and the unused bits of the last code point need not be zero.
///
/// ```
/// use whatwg_fetch::data_url::forgiving_base64_decode;
///
/// assert_eq!(forgiving_base64_decode(" aGk= "), Some(b"hi".to_vec()));
/// assert_eq!(forgiving_base64_decode("aGk"), Some(b"hi".to_vec()));
/// assert_eq!(forgiving_base64_decode("YQ"), forgiving_base64_decode("YR"));
/// assert_eq!(forgiving_base64_decode("a"), None);
/// ```
pub fn forgiving_base64_decode(data: &str) -> Option<Vec<u8>> {
    // Step 1. Remove all ASCII whitespace from data.
    let data: String = data.chars().filter(|c| !c.is_ascii_whitespace()).collect();
    let mut data: &str = &data;

    // Step 2. If data's code point length divides by 4 leaving no remainder, then:
    if data.chars().count() % 4 == 0 {
        // Step 2.1. If data ends with one or two U+003D (=) code points, then remove them
        // from data.
        data = data
            .strip_suffix("==")
            .or_else(|| data.strip_suffix('='))
            .unwrap_or(data);
    }

    // Step 3. If data's code point length divides by 4 leaving a remainder of 1, then return
    // failure.
    if data.chars().count() % 4 == 1 {
        return None;
    }

    // Step 4. If data contains a code point that is not one of U+002B (+), U+002F (/), or an
    // ASCII alphanumeric, then return failure.
    // (So from here on data is ASCII and each byte is one code point.)
    if !data
        .chars()
        .all(|c| c == '+' || c == '/' || c.is_ascii_alphanumeric())
    {
        return None;
    }

    // Step 5. Let output be an empty byte sequence.
    let mut output = Vec::with_capacity(data.len() / 4 * 3 + 2);

    // Step 6. Let buffer be an empty buffer that can have bits appended to it.
    let mut buffer: u32 = 0;
    let mut buffer_bits: u32 = 0;

    // Step 7. Let position be a position variable for data, initially pointing at the start
    // of data.
    // Step 8. While position does not point past the end of data:
    for code_point in data.bytes() {
        // Step 8.1. Find the code point pointed to by position in the second column of Table
        // 1: The Base 64 Alphabet of RFC 4648. Let n be the number given in the first cell of
        // the same row.
        let n = base64_value(code_point)?;

        // Step 8.2. Append the six bits corresponding to n, most significant bit first, to
        // buffer.
        buffer = (buffer << 6) | u32::from(n);
        buffer_bits += 6;

        // Step 8.3. If buffer has accumulated 24 bits, interpret them as three 8-bit
        // big-endian numbers. Append three bytes with values equal to those numbers to
        // output, in the same order, and then empty buffer.
        if buffer_bits == 24 {
            let [_, first, second, third] = buffer.to_be_bytes();
            output.extend_from_slice(&[first, second, third]);
            buffer = 0;
            buffer_bits = 0;
        }

        // Step 8.4. Advance position by 1.
    }

    // Step 9. If buffer is not empty, it contains either 12 or 18 bits. If it contains 12
    // bits, then discard the last four and interpret the remaining eight as an 8-bit
    // big-endian number. If it contains 18 bits, then discard the last two and interpret the
    // remaining 16 as two 8-bit big-endian numbers. Append the one or two bytes with values
    // equal to those one or two numbers to output, in the same order.
    match buffer_bits {
        12 => {
            let [_, _, _, first] = (buffer >> 4).to_be_bytes();
            output.push(first);
        }
        18 => {
            let [_, _, first, second] = (buffer >> 2).to_be_bytes();
            output.extend_from_slice(&[first, second]);
        }
        _ => debug_assert_eq!(buffer_bits, 0),
    }

    Some(output)
}

/// [Forgiving-base64 encode](https://infra.spec.whatwg.org/#forgiving-base64-encode) `data`:
/// the base64 of RFC 4648 section 4, with `=` padding.
///
/// ```
/// use whatwg_fetch::data_url::{forgiving_base64_decode, forgiving_base64_encode};
///
/// assert_eq!(forgiving_base64_encode(b"hi"), "aGk=");
/// assert_eq!(forgiving_base64_decode(&forgiving_base64_encode(b"\xff\x00")).unwrap(), b"\xff\x00");
/// ```
pub fn forgiving_base64_encode(data: &[u8]) -> String {
    // Apply the base64 algorithm defined in section 4 of RFC 4648 to data and return the
    // result.
    let mut output = String::with_capacity(data.len().div_ceil(3) * 4);
    for chunk in data.chunks(3) {
        let [first, second, third] = match *chunk {
            [a, b, c] => [a, b, c],
            [a, b] => [a, b, 0],
            [a] => [a, 0, 0],
            _ => continue,
        };
        let group = u32::from_be_bytes([0, first, second, third]);
        let sextets = [group >> 18, group >> 12, group >> 6, group];
        // A chunk of n bytes gives n + 1 alphabet code points, then padding up to 4.
        for (index, sextet) in sextets.into_iter().enumerate() {
            if index <= chunk.len() {
                output.push(char::from(BASE64_ALPHABET[(sextet & 0x3f) as usize]));
            } else {
                output.push('=');
            }
        }
    }
    output
}

/// Table 1: The Base 64 Alphabet of RFC 4648, indexed by value.
const BASE64_ALPHABET: &[u8; 64] =
    b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/// The value of `code_point` in Table 1: The Base 64 Alphabet of RFC 4648.
fn base64_value(code_point: u8) -> Option<u8> {
    match code_point {
        b'A'..=b'Z' => Some(code_point - b'A'),
        b'a'..=b'z' => Some(code_point - b'a' + 26),
        b'0'..=b'9' => Some(code_point - b'0' + 52),
        b'+' => Some(62),
        b'/' => Some(63),
        _ => None,
    }
}

// ---------------------------------------------------------------------------------------------
// HTTP delta-seconds: https://httpwg.org/specs/rfc9111.html#delta-seconds

/// The largest `delta-seconds` kept: 2^31 seconds. RFC 9111 §1.2.2: "If a cache receives a
/// delta-seconds value greater than the greatest integer it can represent, or if any of
/// its subsequent calculations overflows, the cache MUST consider the value to be
/// 2147483648 (2^31) or the greatest positive integer it can conveniently represent."
pub(crate) const MAX_DELTA_SECONDS: u64 = 1 << 31;

// ---------------------------------------------------------------------------------------------
// The proleptic Gregorian calendar, for cookie-dates and HTTP-dates.

/// The days of `month` (1 for January) in `year`, proleptic Gregorian.
pub(crate) fn days_in_month(year: i64, month: u32) -> u32 {
    match month {
        2 if (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 => 29,
        2 => 28,
        4 | 6 | 9 | 11 => 30,
        _ => 31,
    }
}

/// Days since 1970-01-01 of the proleptic Gregorian date `year`-`month`-`day` (`month` 1
/// for January), by Howard Hinnant's `days_from_civil`.
pub(crate) fn days_from_civil(year: i64, month: i64, day: i64) -> i64 {
    let year = if month <= 2 { year - 1 } else { year };
    let era = year.div_euclid(400);
    let year_of_era = year - era * 400;
    let month_index = (month + 9) % 12;
    let day_of_year = (153 * month_index + 2) / 5 + day - 1;
    let day_of_era = year_of_era * 365 + year_of_era / 4 - year_of_era / 100 + day_of_year;
    era * 146_097 + day_of_era - 719_468
}

/// The proleptic Gregorian date (`year`, `month` 1 for January, `day`) of `days` since
/// 1970-01-01, by Howard Hinnant's `civil_from_days`: the inverse of
/// [`days_from_civil`]. For the dates of years 1 to 9999 (`days` from -719,162 to
/// 2,932,896); outside them the arithmetic saturates rather than overflow.
#[cfg_attr(not(feature = "http3"), allow(dead_code))]
pub(crate) fn civil_from_days(days: i64) -> (i64, u32, u32) {
    let days = days.clamp(-719_162, 2_932_896).saturating_add(719_468);
    let era = days.div_euclid(146_097);
    let day_of_era = days - era * 146_097;
    let year_of_era =
        (day_of_era - day_of_era / 1_460 + day_of_era / 36_524 - day_of_era / 146_096) / 365;
    let day_of_year = day_of_era - (365 * year_of_era + year_of_era / 4 - year_of_era / 100);
    let month_index = (5 * day_of_year + 2) / 153;
    let day = day_of_year - (153 * month_index + 2) / 5 + 1;
    let month = if month_index < 10 {
        month_index + 3
    } else {
        month_index - 9
    };
    let year = year_of_era + era * 400 + i64::from(month <= 2);
    // In range by construction: a month of 1 to 12, a day of 1 to 31.
    let month = u32::try_from(month).unwrap_or(1);
    let day = u32::try_from(day).unwrap_or(1);
    (year, month, day)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn civil_from_days_inverts_days_from_civil() {
        assert_eq!(civil_from_days(0), (1970, 1, 1));
        assert_eq!(civil_from_days(-1), (1969, 12, 31));
        assert_eq!(civil_from_days(11_016), (2000, 2, 29));
        assert_eq!(civil_from_days(20_791), (2026, 12, 4));
        for days in (-719_162..=2_932_896).step_by(97) {
            let (year, month, day) = civil_from_days(days);
            assert_eq!(
                days_from_civil(year, i64::from(month), i64::from(day)),
                days
            );
            assert!(day >= 1 && day <= days_in_month(year, month));
        }
    }

    /// The bytes 0x00 to 0xFF for which `class` holds.
    fn members(class: impl Fn(u8) -> bool) -> Vec<u8> {
        (0..=255u8).filter(|&byte| class(byte)).collect()
    }

    // The public byte classes and `is_token` are checked against the Fetch Standard and
    // RFC 9110 through their public paths, in tests/mime.rs
    // (`byte_predicates_match_the_fetch_standard`).

    #[test]
    fn ascii_whitespace_is_infras_set() {
        // U+0009 TAB, U+000A LF, U+000C FF, U+000D CR, or U+0020 SPACE.
        assert_eq!(members(is_ascii_whitespace), b"\t\n\x0C\r ");
    }

    #[test]
    fn quoted_string_token_code_points_are_tab_visible_ascii_space_and_latin_1() {
        let members: Vec<char> = ('\0'..='\u{2ff}')
            .filter(|&c| is_http_quoted_string_token_code_point(c))
            .collect();
        let expected: Vec<char> = std::iter::once('\t')
            .chain(' '..='~')
            .chain('\u{80}'..='\u{ff}')
            .collect();
        assert_eq!(members, expected);
    }

    #[test]
    fn collect_a_sequence_of_bytes_stops_at_the_first_byte_that_fails() {
        let input = b"  abc;d";
        let mut position = 0;
        assert_eq!(
            collect_a_sequence_of_bytes(input, &mut position, is_http_tab_or_space_byte),
            b"  "
        );
        assert_eq!(position, 2);
        assert_eq!(
            collect_a_sequence_of_bytes(input, &mut position, |byte| byte != b';'),
            b"abc"
        );
        assert_eq!(position, 5);
        // Nothing meets the condition: nothing is collected and position stays.
        assert_eq!(
            collect_a_sequence_of_bytes(input, &mut position, |byte| byte != b';'),
            b""
        );
        assert_eq!(position, 5);
        // Up to the end, and past it.
        position = 6;
        assert_eq!(
            collect_a_sequence_of_bytes(input, &mut position, |_| true),
            b"d"
        );
        assert_eq!(position, 7);
        assert_eq!(
            collect_a_sequence_of_bytes(input, &mut position, |_| true),
            b""
        );
        assert_eq!(position, 7);
    }

    #[test]
    fn collect_a_sequence_of_code_points_steps_over_multibyte_code_points() {
        let input = "\u{e9}\u{1f4a9}x/y";
        let mut position = 0;
        let collected = collect_a_sequence_of_code_points(input, &mut position, |b| b != b'/');
        assert_eq!(collected, "\u{e9}\u{1f4a9}x");
        assert_eq!(input.get(position..), Some("/y"));
        // A condition that fails for non-ASCII bytes stops before the code point.
        let mut position = 0;
        let collected = collect_a_sequence_of_code_points(" \u{e9}", &mut position, |b| b == b' ');
        assert_eq!((collected, position), (" ", 1));
    }

    /// The examples table under
    /// <https://fetch.spec.whatwg.org/#collect-an-http-quoted-string>: input, output,
    /// output with extract-value set to true, and the final position variable value.
    const QUOTED_STRING_EXAMPLES: [(&str, &str, &str, usize); 3] = [
        ("\"\\", "\"\\", "\\", 2),
        ("\"Hello\" World", "\"Hello\"", "Hello", 7),
        (
            "\"Hello \\\\ World\\\"\"",
            "\"Hello \\\\ World\\\"\"",
            "Hello \\ World\"",
            18,
        ),
    ];

    #[test]
    fn collect_an_http_quoted_string_matches_the_spec_examples() {
        for (input, output, extracted, end) in QUOTED_STRING_EXAMPLES {
            let mut position = 0;
            let raw = collect_an_http_quoted_string(input.as_bytes(), &mut position, false);
            assert_eq!((&*raw, position), (output.as_bytes(), end), "{input:?}");
            let mut position = 0;
            let value = collect_an_http_quoted_string(input.as_bytes(), &mut position, true);
            assert_eq!(
                (&*value, position),
                (extracted.as_bytes(), end),
                "{input:?}"
            );

            let mut position = 0;
            let raw = collect_an_http_quoted_string_from_str(input, &mut position, false);
            assert_eq!((&*raw, position), (output, end), "{input:?}");
            let mut position = 0;
            let value = collect_an_http_quoted_string_from_str(input, &mut position, true);
            assert_eq!((&*value, position), (extracted, end), "{input:?}");
        }
    }

    #[test]
    fn collect_an_http_quoted_string_copies_only_when_an_escape_splits_the_value() {
        let cases: [(&[u8], &[u8], bool); 6] = [
            (b"\"plain\";x", b"plain", false),
            (b"\"\"", b"", false),
            (b"\"unterminated", b"unterminated", false),
            (b"\"trailing\\", b"trailing\\", false),
            (b"\"\\a\"", b"a", false),
            (b"\"a\\bc\"", b"abc", true),
        ];
        for (input, value, copied) in cases {
            let mut position = 0;
            let collected = collect_an_http_quoted_string(input, &mut position, true);
            assert_eq!(&*collected, value, "{:?}", String::from_utf8_lossy(input));
            assert_eq!(matches!(collected, Cow::Owned(_)), copied);
            let mut position = 0;
            let raw = collect_an_http_quoted_string(input, &mut position, false);
            assert!(matches!(raw, Cow::Borrowed(_)));
        }
    }

    #[test]
    fn collect_an_http_quoted_string_from_the_middle_of_a_string() {
        // A backslash before a multibyte code point escapes the whole code point.
        let input = "a=\"\u{e9}\\\u{2020}\\\u{e9}x\";b";
        let mut position = 2;
        let value = collect_an_http_quoted_string_from_str(input, &mut position, true);
        assert_eq!(value, "\u{e9}\u{2020}\u{e9}x");
        assert_eq!(input.get(position..), Some(";b"));
        let mut position = 2;
        let raw = collect_an_http_quoted_string_from_str(input, &mut position, false);
        assert_eq!(raw, "\"\u{e9}\\\u{2020}\\\u{e9}x\"");
    }

    #[test]
    fn trimming_removes_only_the_class_and_only_at_the_ends() {
        assert_eq!(trim_http_whitespace(b"\n\t a \r"), b"a");
        assert_eq!(trim_http_whitespace(b" a \x0C b "), b"a \x0C b");
        assert_eq!(trim_http_whitespace(b" \r\n "), b"");
        assert_eq!(trim_http_tab_or_space(b"\t a b \t"), b"a b");
        assert_eq!(trim_http_tab_or_space(b"\r a \n"), b"\r a \n");
        assert_eq!(trim_http_tab_or_space(b""), b"");
        assert_eq!(
            trim_trailing_bytes(b" a ", is_http_tab_or_space_byte),
            b" a"
        );
        assert_eq!(
            trim_code_points(" \u{e9} \t", is_http_whitespace_byte),
            "\u{e9}"
        );
        assert_eq!(trim_code_points("\x0C", is_ascii_whitespace), "");
        assert_eq!(
            trim_trailing_code_points("\u{e9} \n", is_http_whitespace_byte),
            "\u{e9}"
        );
    }

    #[test]
    fn isomorphic_round_trip() {
        let bytes: Vec<u8> = (0..=255).collect();
        let decoded = isomorphic_decode(&bytes);
        assert_eq!(decoded.chars().count(), 256);
        assert!(decoded.chars().map(u32::from).eq(0..=255));
        assert_eq!(isomorphic_encode(&decoded), bytes);
    }

    #[test]
    fn isomorphic_coding_of_ascii_borrows() {
        assert!(matches!(
            isomorphic_decode(b"text/plain"),
            Cow::Borrowed("text/plain")
        ));
        assert!(matches!(
            isomorphic_encode("text/plain"),
            Cow::Borrowed(b"text/plain")
        ));
        assert_eq!(isomorphic_decode(b"\xe9"), "\u{e9}");
        assert_eq!(&*isomorphic_encode("\u{e9}"), b"\xe9");
    }

    #[test]
    fn isomorphic_encode_writes_a_code_point_above_u00ff_as_utf_8_never_as_its_low_byte() {
        // U+010A's low byte is LF; it must not appear.
        assert_eq!(
            &*isomorphic_encode_lenient("a\u{e9}\u{10a}\u{2020}"),
            b"a\xe9\xc4\x8a\xe2\x80\xa0"
        );
    }

    #[test]
    #[cfg(debug_assertions)]
    #[should_panic(expected = "is not an isomorphic string")]
    fn isomorphic_encode_asserts_its_input_is_isomorphic() {
        let _ = isomorphic_encode("\u{100}");
    }

    #[test]
    fn encode_matches_rfc_4648_test_vectors() {
        // RFC 4648 section 10.
        let vectors = [
            ("", ""),
            ("f", "Zg=="),
            ("fo", "Zm8="),
            ("foo", "Zm9v"),
            ("foob", "Zm9vYg=="),
            ("fooba", "Zm9vYmE="),
            ("foobar", "Zm9vYmFy"),
        ];
        for (input, output) in vectors {
            assert_eq!(forgiving_base64_encode(input.as_bytes()), output);
            assert_eq!(
                forgiving_base64_decode(output),
                Some(input.as_bytes().to_vec())
            );
        }
    }

    #[test]
    fn alphabet_and_values_agree() {
        for (value, &code_point) in BASE64_ALPHABET.iter().enumerate() {
            assert_eq!(base64_value(code_point), u8::try_from(value).ok());
        }
    }
}
