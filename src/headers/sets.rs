//! The byte classes, name and value checks, and the spec's sets of methods and headers:
//! [HTTP](https://fetch.spec.whatwg.org/#http), [methods](https://fetch.spec.whatwg.org/#methods)
//! and [headers](https://fetch.spec.whatwg.org/#terminology-headers).

use super::list::{HeaderList, get_decode_and_split_header_value_bytes};
use crate::infra::{collect_a_sequence_of_bytes, is_token, trim_http_whitespace};

pub use crate::infra::{is_http_newline_byte, is_http_tab_or_space_byte, is_http_whitespace_byte};

/// Whether `name` is a [header name](https://fetch.spec.whatwg.org/#header-name): a byte
/// sequence that matches the `field-name` token production.
///
/// ```
/// use whatwg_fetch::headers::is_header_name;
/// assert!(is_header_name(b"Content-Type"));
/// assert!(!is_header_name(b"Content Type"));
/// assert!(!is_header_name(b""));
/// ```
pub fn is_header_name(name: &[u8]) -> bool {
    is_token(name)
}

/// Whether `value` is a [header value](https://fetch.spec.whatwg.org/#header-value): it has no
/// leading or trailing HTTP tab or space bytes and contains no 0x00 (NUL) or HTTP newline bytes.
///
/// ```
/// use whatwg_fetch::headers::is_header_value;
/// assert!(is_header_value(b"text/plain; charset=utf-8"));
/// assert!(is_header_value(b""));
/// assert!(!is_header_value(b" padded"));
/// assert!(!is_header_value(b"two\r\nlines"));
/// ```
pub fn is_header_value(value: &[u8]) -> bool {
    let padded = |byte: Option<&u8>| byte.is_some_and(|&byte| is_http_tab_or_space_byte(byte));
    if padded(value.first()) || padded(value.last()) {
        return false;
    }
    !value
        .iter()
        .any(|&byte| byte == 0 || is_http_newline_byte(byte))
}

/// [Normalize](https://fetch.spec.whatwg.org/#concept-header-value-normalize) a byte sequence
/// `potential_value`: remove any leading and trailing HTTP whitespace bytes.
///
/// Returns a subslice of `potential_value`; nothing is copied.
///
/// ```
/// use whatwg_fetch::headers::normalize_header_value;
/// assert_eq!(normalize_header_value(b"\r\n\t value \t\n"), b"value");
/// ```
pub fn normalize_header_value(potential_value: &[u8]) -> &[u8] {
    trim_http_whitespace(potential_value)
}

/// Whether `method` is a [CORS-safelisted method](https://fetch.spec.whatwg.org/#cors-safelisted-method):
/// `GET`, `HEAD` or `POST` (case-sensitive, as the spec says).
///
/// ```
/// use whatwg_fetch::headers::is_cors_safelisted_method;
///
/// assert!(is_cors_safelisted_method(b"POST"));
/// // A preflight comes first for any other.
/// assert!(!is_cors_safelisted_method(b"PUT"));
/// ```
pub fn is_cors_safelisted_method(method: &[u8]) -> bool {
    matches!(method, b"GET" | b"HEAD" | b"POST")
}

/// Whether `method` is a [forbidden method](https://fetch.spec.whatwg.org/#forbidden-method):
/// a byte-case-insensitive match for `CONNECT`, `TRACE` or `TRACK`.
///
/// ```
/// use whatwg_fetch::headers::is_forbidden_method;
/// assert!(is_forbidden_method(b"trace"));
/// assert!(!is_forbidden_method(b"GET"));
/// ```
pub fn is_forbidden_method(method: &[u8]) -> bool {
    [&b"CONNECT"[..], b"TRACE", b"TRACK"]
        .iter()
        .any(|forbidden| method.eq_ignore_ascii_case(forbidden))
}

/// Whether `name` is a byte-case-insensitive match for one of `names`.
fn matches_one_of(name: &[u8], names: &[&[u8]]) -> bool {
    names
        .iter()
        .any(|candidate| name.eq_ignore_ascii_case(candidate))
}

/// Whether `byte` is a [CORS-unsafe request-header byte](https://fetch.spec.whatwg.org/#cors-unsafe-request-header-byte).
///
/// ```
/// use whatwg_fetch::headers::is_cors_unsafe_request_header_byte;
///
/// assert!(is_cors_unsafe_request_header_byte(b'"'));
/// assert!(!is_cors_unsafe_request_header_byte(b'a'));
/// ```
pub fn is_cors_unsafe_request_header_byte(byte: u8) -> bool {
    // byte is less than 0x20 and is not 0x09 HT
    (byte < 0x20 && byte != 0x09)
        // byte is 0x22 ("), 0x28 (left parenthesis), 0x29 (right parenthesis), 0x3A (:), 0x3C (<),
        // 0x3E (>), 0x3F (?), 0x40 (@), 0x5B ([), 0x5C (\), 0x5D (]), 0x7B ({), 0x7D (}), or 0x7F DEL.
        || matches!(
            byte,
            0x22 | 0x28 | 0x29 | 0x3A | 0x3C | 0x3E | 0x3F | 0x40 | 0x5B | 0x5C | 0x5D | 0x7B | 0x7D | 0x7F
        )
}

/// Whether the header (`name`, `value`) is a
/// [CORS-safelisted request-header](https://fetch.spec.whatwg.org/#cors-safelisted-request-header).
///
/// ```
/// use whatwg_fetch::headers::is_cors_safelisted_request_header;
/// assert!(is_cors_safelisted_request_header(b"Content-Type", b"text/plain;charset=UTF-8"));
/// assert!(!is_cors_safelisted_request_header(b"Content-Type", b"application/json"));
/// assert!(is_cors_safelisted_request_header(b"range", b"bytes=0-"));
/// assert!(!is_cors_safelisted_request_header(b"range", b"bytes=-500"));
/// ```
pub fn is_cors_safelisted_request_header(name: &[u8], value: &[u8]) -> bool {
    // Step 1. If value's length is greater than 128, then return false.
    if value.len() > 128 {
        return false;
    }
    // Step 2. Byte-lowercase name and switch on the result:
    if name.eq_ignore_ascii_case(b"accept") {
        // `accept`: If value contains a CORS-unsafe request-header byte, then return false.
        if value
            .iter()
            .any(|&byte| is_cors_unsafe_request_header_byte(byte))
        {
            return false;
        }
    } else if name.eq_ignore_ascii_case(b"accept-language")
        || name.eq_ignore_ascii_case(b"content-language")
    {
        // `accept-language`, `content-language`: If value contains a byte that is not in the
        // range 0x30 (0) to 0x39 (9), inclusive, is not in the range 0x41 (A) to 0x5A (Z),
        // inclusive, is not in the range 0x61 (a) to 0x7A (z), inclusive, and is not 0x20 (SP),
        // 0x2A (*), 0x2C (,), 0x2D (-), 0x2E (.), 0x3B (;), or 0x3D (=), then return false.
        if !value.iter().all(|&byte| {
            byte.is_ascii_alphanumeric()
                || matches!(byte, 0x20 | 0x2A | 0x2C | 0x2D | 0x2E | 0x3B | 0x3D)
        }) {
            return false;
        }
    } else if name.eq_ignore_ascii_case(b"content-type") {
        // `content-type`:
        // Step 1. If value contains a CORS-unsafe request-header byte, then return false.
        if value
            .iter()
            .any(|&byte| is_cors_unsafe_request_header_byte(byte))
        {
            return false;
        }
        // Step 2. Let mimeType be the result of parsing the result of isomorphic decoding value.
        // Step 3. If mimeType is failure, then return false.
        let Some(mime_type) = crate::mime::MimeType::parse_bytes(value) else {
            return false;
        };
        // Step 4. If mimeType's essence is not "application/x-www-form-urlencoded",
        // "multipart/form-data", or "text/plain", then return false.
        if !matches!(
            mime_type.essence().as_str(),
            "application/x-www-form-urlencoded" | "multipart/form-data" | "text/plain"
        ) {
            return false;
        }
    } else if name.eq_ignore_ascii_case(b"range") {
        // `range`:
        // Step 1. Let rangeValue be the result of parsing a single range header value given
        // value and false.
        // Step 2. If rangeValue is failure, then return false.
        let Some((range_start, _)) = parse_single_range_header_value(value, false) else {
            return false;
        };
        // Step 3. If rangeValue[0] is null, then return false.
        if range_start.is_none() {
            return false;
        }
    } else {
        // Otherwise: Return false.
        return false;
    }
    // Step 3. Return true.
    true
}

/// The [CORS-unsafe request-header names](https://fetch.spec.whatwg.org/#cors-unsafe-request-header-names)
/// of `headers`: byte-lowercased, deduplicated and sorted.
///
/// ```
/// use whatwg_fetch::headers::{HeaderList, cors_unsafe_request_header_names};
/// let list: HeaderList = [("Accept", "*/*"), ("X-Custom", "1"), ("Content-Type", "application/json")]
///     .into_iter()
///     .collect();
/// assert_eq!(cors_unsafe_request_header_names(&list), vec![b"content-type".to_vec(), b"x-custom".to_vec()]);
/// ```
pub fn cors_unsafe_request_header_names(headers: &HeaderList) -> Vec<Vec<u8>> {
    // Step 1. Let unsafeNames be a new list.
    let mut unsafe_names: Vec<&[u8]> = Vec::new();
    // Step 2. Let potentiallyUnsafeNames be a new list.
    let mut potentially_unsafe_names: Vec<&[u8]> = Vec::new();
    // Step 3. Let safelistValueSize be 0.
    let mut safelist_value_size: usize = 0;
    // Step 4. For each header of headers:
    for (name, value) in headers.iter() {
        if !is_cors_safelisted_request_header(name, value) {
            // Step 4.1. If header is not a CORS-safelisted request-header, then append header's
            // name to unsafeNames.
            unsafe_names.push(name);
        } else {
            // Step 4.2. Otherwise, append header's name to potentiallyUnsafeNames and increase
            // safelistValueSize by header's value's length.
            potentially_unsafe_names.push(name);
            safelist_value_size = safelist_value_size.saturating_add(value.len());
        }
    }
    // Step 5. If safelistValueSize is greater than 1024, then for each name of
    // potentiallyUnsafeNames, append name to unsafeNames.
    if safelist_value_size > 1024 {
        unsafe_names.extend(potentially_unsafe_names);
    }
    // Step 6. Return the result of convert header names to a sorted-lowercase set with
    // unsafeNames.
    convert_header_names_to_a_sorted_lowercase_set(unsafe_names)
}

/// [Convert header names to a sorted-lowercase set](https://fetch.spec.whatwg.org/#convert-header-names-to-a-sorted-lowercase-set):
/// byte-lowercase each name, drop duplicates, and sort with byte less than.
///
/// ```
/// use whatwg_fetch::headers::convert_header_names_to_a_sorted_lowercase_set;
///
/// let set = convert_header_names_to_a_sorted_lowercase_set([&b"X-B"[..], b"x-a", b"x-b"]);
/// assert_eq!(set, [b"x-a".to_vec(), b"x-b".to_vec()]);
/// ```
pub fn convert_header_names_to_a_sorted_lowercase_set<'a>(
    header_names: impl IntoIterator<Item = &'a [u8]>,
) -> Vec<Vec<u8>> {
    // Step 1. Let headerNamesSet be a new ordered set.
    // Step 2. For each name of headerNames, append the result of byte-lowercasing name to
    // headerNamesSet.
    let mut header_names_set: Vec<Vec<u8>> = header_names
        .into_iter()
        .map(<[u8]>::to_ascii_lowercase)
        .collect();
    // Step 3. Return the result of sorting headerNamesSet in ascending order with byte less than.
    header_names_set.sort_unstable();
    header_names_set.dedup();
    header_names_set
}

/// Whether `name` is a [CORS non-wildcard request-header name](https://fetch.spec.whatwg.org/#cors-non-wildcard-request-header-name):
/// `Authorization`.
///
/// ```
/// use whatwg_fetch::headers::is_cors_non_wildcard_request_header_name;
///
/// // `Access-Control-Allow-Headers: *` does not cover `Authorization`.
/// assert!(is_cors_non_wildcard_request_header_name(b"Authorization"));
/// assert!(!is_cors_non_wildcard_request_header_name(b"x-trace"));
/// ```
pub fn is_cors_non_wildcard_request_header_name(name: &[u8]) -> bool {
    name.eq_ignore_ascii_case(b"authorization")
}

/// The [privileged no-CORS request-header names](https://fetch.spec.whatwg.org/#privileged-no-cors-request-header-name).
///
/// ```
/// use whatwg_fetch::headers::{PRIVILEGED_NO_CORS_REQUEST_HEADER_NAMES, is_privileged_no_cors_request_header_name};
///
/// assert!(PRIVILEGED_NO_CORS_REQUEST_HEADER_NAMES.iter().all(|name| is_privileged_no_cors_request_header_name(name)));
/// ```
pub const PRIVILEGED_NO_CORS_REQUEST_HEADER_NAMES: &[&[u8]] = &[b"Range"];

/// Whether `name` is a [privileged no-CORS request-header name](https://fetch.spec.whatwg.org/#privileged-no-cors-request-header-name):
/// `Range`.
///
/// ```
/// use whatwg_fetch::headers::is_privileged_no_cors_request_header_name;
///
/// assert!(is_privileged_no_cors_request_header_name(b"range"));
/// assert!(!is_privileged_no_cors_request_header_name(b"accept"));
/// ```
pub fn is_privileged_no_cors_request_header_name(name: &[u8]) -> bool {
    matches_one_of(name, PRIVILEGED_NO_CORS_REQUEST_HEADER_NAMES)
}

/// Whether `name` is a [CORS-safelisted response-header name](https://fetch.spec.whatwg.org/#cors-safelisted-response-header-name),
/// given `list`, the names a response exposes with `Access-Control-Expose-Headers`.
///
/// ```
/// use whatwg_fetch::headers::is_cors_safelisted_response_header_name;
/// let none: &[&[u8]] = &[];
/// assert!(is_cors_safelisted_response_header_name(b"Content-Length", none));
/// assert!(is_cors_safelisted_response_header_name(b"x-exposed", &[b"X-Exposed"]));
/// assert!(!is_cors_safelisted_response_header_name(b"set-cookie", &[b"Set-Cookie"]));
/// ```
pub fn is_cors_safelisted_response_header_name<T: AsRef<[u8]>>(name: &[u8], list: &[T]) -> bool {
    matches_one_of(
        name,
        &[
            b"Cache-Control",
            b"Content-Language",
            b"Content-Length",
            b"Content-Type",
            b"Expires",
            b"Last-Modified",
            b"Pragma",
        ],
    ) || list.iter().any(|item| {
        // Any item in list that is not a forbidden response-header name.
        let item = item.as_ref();
        !is_forbidden_response_header_name(item) && name.eq_ignore_ascii_case(item)
    })
}

/// Whether `name` is a [no-CORS-safelisted request-header name](https://fetch.spec.whatwg.org/#no-cors-safelisted-request-header-name):
/// `Accept`, `Accept-Language`, `Content-Language` or `Content-Type`.
///
/// ```
/// use whatwg_fetch::headers::is_no_cors_safelisted_request_header_name;
///
/// assert!(is_no_cors_safelisted_request_header_name(b"Content-Language"));
/// assert!(!is_no_cors_safelisted_request_header_name(b"x-trace"));
/// ```
pub fn is_no_cors_safelisted_request_header_name(name: &[u8]) -> bool {
    matches_one_of(
        name,
        &[
            b"Accept",
            b"Accept-Language",
            b"Content-Language",
            b"Content-Type",
        ],
    )
}

/// Whether (`name`, `value`) is a
/// [no-CORS-safelisted request-header](https://fetch.spec.whatwg.org/#no-cors-safelisted-request-header).
///
/// ```
/// use whatwg_fetch::headers::is_no_cors_safelisted_request_header;
///
/// assert!(is_no_cors_safelisted_request_header(b"content-type", b"text/plain"));
/// // Safelisted by name, but not with this value.
/// assert!(!is_no_cors_safelisted_request_header(b"content-type", b"application/json"));
/// ```
pub fn is_no_cors_safelisted_request_header(name: &[u8], value: &[u8]) -> bool {
    // Step 1. If name is not a no-CORS-safelisted request-header name, then return false.
    if !is_no_cors_safelisted_request_header_name(name) {
        return false;
    }
    // Step 2. Return whether (name, value) is a CORS-safelisted request-header.
    is_cors_safelisted_request_header(name, value)
}

/// Whether the header (`name`, `value`) is a
/// [forbidden request-header](https://fetch.spec.whatwg.org/#forbidden-request-header).
///
/// ```
/// use whatwg_fetch::headers::is_forbidden_request_header;
/// assert!(is_forbidden_request_header(b"Host", b"example.com"));
/// assert!(is_forbidden_request_header(b"Sec-Fetch-Mode", b"cors"));
/// assert!(is_forbidden_request_header(b"X-HTTP-Method-Override", b"GET, trace"));
/// assert!(!is_forbidden_request_header(b"X-HTTP-Method-Override", b"PATCH"));
/// assert!(!is_forbidden_request_header(b"Accept", b"*/*"));
/// ```
pub fn is_forbidden_request_header(name: &[u8], value: &[u8]) -> bool {
    // Step 1. If name is a byte-case-insensitive match for one of: [...] then return true.
    if matches_one_of(
        name,
        &[
            b"Accept-Charset",
            b"Accept-Encoding",
            b"Access-Control-Request-Headers",
            b"Access-Control-Request-Method",
            b"Connection",
            b"Content-Length",
            b"Cookie",
            b"Cookie2",
            b"Date",
            b"DNT",
            b"Expect",
            b"Host",
            b"Keep-Alive",
            b"Origin",
            b"Referer",
            b"Set-Cookie",
            b"TE",
            b"Trailer",
            b"Transfer-Encoding",
            b"Upgrade",
            b"Via",
        ],
    ) {
        return true;
    }
    // Step 2. If name when byte-lowercased starts with `proxy-` or `sec-`, then return true.
    let starts_with_ignore_case = |prefix: &[u8]| {
        name.get(..prefix.len())
            .is_some_and(|start| start.eq_ignore_ascii_case(prefix))
    };
    if starts_with_ignore_case(b"proxy-") || starts_with_ignore_case(b"sec-") {
        return true;
    }
    // Step 3. If name is a byte-case-insensitive match for one of: `X-HTTP-Method`,
    // `X-HTTP-Method-Override`, `X-Method-Override`, then:
    if matches_one_of(
        name,
        &[
            b"X-HTTP-Method",
            b"X-HTTP-Method-Override",
            b"X-Method-Override",
        ],
    ) {
        // Step 3.1. Let parsedValues be the result of getting, decoding, and splitting value.
        // Step 3.2. For each method of parsedValues: if the isomorphic encoding of method is a
        // forbidden method, then return true.
        // (Splitting the bytes directly is the same as decoding, splitting and encoding again,
        // as isomorphic decoding maps each byte to one code point and back.)
        if get_decode_and_split_header_value_bytes(value)
            .iter()
            .any(|method| is_forbidden_method(method))
        {
            return true;
        }
    }
    // Step 4. Return false.
    false
}

/// Whether `name` is a [forbidden response-header name](https://fetch.spec.whatwg.org/#forbidden-response-header-name):
/// `Set-Cookie` or `Set-Cookie2`.
///
/// ```
/// use whatwg_fetch::headers::is_forbidden_response_header_name;
///
/// assert!(is_forbidden_response_header_name(b"Set-Cookie"));
/// assert!(!is_forbidden_response_header_name(b"content-type"));
/// ```
pub fn is_forbidden_response_header_name(name: &[u8]) -> bool {
    matches_one_of(name, &[b"Set-Cookie", b"Set-Cookie2"])
}

/// Whether `name` is a [request-body-header name](https://fetch.spec.whatwg.org/#request-body-header-name):
/// `Content-Encoding`, `Content-Language`, `Content-Location` or `Content-Type`.
///
/// ```
/// use whatwg_fetch::headers::is_request_body_header_name;
///
/// // Dropped when a redirect turns a POST into a GET.
/// assert!(is_request_body_header_name(b"Content-Type"));
/// assert!(!is_request_body_header_name(b"accept"));
/// ```
pub fn is_request_body_header_name(name: &[u8]) -> bool {
    matches_one_of(
        name,
        &[
            b"Content-Encoding",
            b"Content-Language",
            b"Content-Location",
            b"Content-Type",
        ],
    )
}

/// [Parse a single range header value](https://fetch.spec.whatwg.org/#simple-range-header-value)
/// from `value`: `Some((start, end))` with either bound possibly absent, or `None` for failure.
///
/// A bound too large for a `u64` is a failure.
///
/// ```
/// use whatwg_fetch::headers::parse_single_range_header_value;
/// assert_eq!(parse_single_range_header_value(b"bytes=0-499", false), Some((Some(0), Some(499))));
/// assert_eq!(parse_single_range_header_value(b"bytes=-500", false), Some((None, Some(500))));
/// assert_eq!(parse_single_range_header_value(b"bytes = 5 -", true), Some((Some(5), None)));
/// assert_eq!(parse_single_range_header_value(b"bytes=5-1", false), None);
/// ```
pub fn parse_single_range_header_value(
    value: &[u8],
    allow_whitespace: bool,
) -> Option<(Option<u64>, Option<u64>)> {
    // Step 1. Let data be the isomorphic decoding of value.
    // (Every delimiter below is ASCII, so the bytes are read directly.)
    let data = value;
    // Step 2. If data does not start with "bytes", then return failure.
    if !data.starts_with(b"bytes") {
        return None;
    }
    // Step 3. Let position be a position variable for data, initially pointing at the 5th code
    // point of data.
    // (That is, just past "bytes".)
    let mut position = b"bytes".len();
    let collect_tab_or_space = |position: &mut usize| {
        if allow_whitespace {
            collect_a_sequence_of_bytes(data, position, is_http_tab_or_space_byte);
        }
    };
    // The code point at position within data is `delimiter`: advance position by 1;
    // otherwise failure (`None`).
    let advance_past = |position: &mut usize, delimiter: u8| -> Option<()> {
        if data.get(*position) != Some(&delimiter) {
            return None;
        }
        *position += 1;
        Some(())
    };
    // Collect a sequence of code points that are ASCII digits from data given position, and
    // interpret it as decimal number if it is not the empty string, otherwise null; failure
    // (`None`) if the number does not fit in a u64.
    let collect_decimal_or_null = |position: &mut usize| -> Option<Option<u64>> {
        let digits = collect_a_sequence_of_bytes(data, position, |byte| byte.is_ascii_digit());
        if digits.is_empty() {
            return Some(None);
        }
        let mut number: u64 = 0;
        for &digit in digits {
            number = number
                .checked_mul(10)?
                .checked_add(u64::from(digit - b'0'))?;
        }
        Some(Some(number))
    };
    // Step 4. If allowWhitespace is true, collect a sequence of code points that are HTTP tab or
    // space, from data given position.
    collect_tab_or_space(&mut position);
    // Step 5. If the code point at position within data is not U+003D (=), then return failure.
    // Step 6. Advance position by 1.
    advance_past(&mut position, b'=')?;
    // Step 7. If allowWhitespace is true, collect a sequence of code points that are HTTP tab or
    // space, from data given position.
    collect_tab_or_space(&mut position);
    // Step 8. Let rangeStart be the result of collecting a sequence of code points that are ASCII
    // digits, from data given position.
    // Step 9. Let rangeStartValue be rangeStart, interpreted as decimal number, if rangeStart is
    // not the empty string; otherwise null.
    let range_start_value = collect_decimal_or_null(&mut position)?;
    // Step 10. If allowWhitespace is true, collect a sequence of code points that are HTTP tab
    // or space, from data given position.
    collect_tab_or_space(&mut position);
    // Step 11. If the code point at position within data is not U+002D (-), then return failure.
    // Step 12. Advance position by 1.
    advance_past(&mut position, b'-')?;
    // Step 13. If allowWhitespace is true, collect a sequence of code points that are HTTP tab
    // or space, from data given position.
    collect_tab_or_space(&mut position);
    // Step 14. Let rangeEnd be the result of collecting a sequence of code points that are ASCII
    // digits, from data given position.
    // Step 15. Let rangeEndValue be rangeEnd, interpreted as decimal number, if rangeEnd is not
    // the empty string; otherwise null.
    let range_end_value = collect_decimal_or_null(&mut position)?;
    // Step 16. If position is not past the end of data, then return failure.
    if position < data.len() {
        return None;
    }
    match (range_start_value, range_end_value) {
        // Step 17. If rangeEndValue and rangeStartValue are null, then return failure.
        (None, None) => None,
        // Step 18. If rangeStartValue and rangeEndValue are numbers, and rangeStartValue is
        // greater than rangeEndValue, then return failure.
        (Some(start), Some(end)) if start > end => None,
        // Step 19. Return (rangeStartValue, rangeEndValue).
        range => Some(range),
    }
}

/// [Build a content range](https://fetch.spec.whatwg.org/#build-a-content-range) given
/// `range_start`, `range_end` and `full_length`: `bytes <start>-<end>/<length>`.
///
/// ```
/// use whatwg_fetch::headers::build_a_content_range;
/// assert_eq!(build_a_content_range(0, 499, 1234), b"bytes 0-499/1234");
/// ```
pub fn build_a_content_range(range_start: u64, range_end: u64, full_length: u64) -> Vec<u8> {
    // Step 1. Let contentRange be `bytes `.
    // Step 2-6. Append rangeStart, 0x2D (-), rangeEnd, 0x2F (/), fullLength, each integer
    // serialized and isomorphic encoded.
    // Step 7. Return contentRange.
    format!("bytes {range_start}-{range_end}/{full_length}").into_bytes()
}
