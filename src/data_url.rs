//! `data:` URLs, as the Fetch Standard's
//! [`data:` URL processor](https://fetch.spec.whatwg.org/#data-url-processor) reads them,
//! and the Infra Standard's [forgiving-base64](https://infra.spec.whatwg.org/#forgiving-base64)
//! encode and decode that it relies on.
//!
//! The Fetch Standard replaces the processing requirements of RFC 2397 with these, to match
//! deployed content.

use std::borrow::Cow;

use percent_encoding::percent_decode_str;
use url::{Position, Url};

use crate::mime::{MimeType, collect_a_sequence_of_code_points, isomorphic_decode};

/// A [`data:` URL struct](https://fetch.spec.whatwg.org/#data-url-struct): what the
/// [`data:` URL processor](data_url_processor) makes of a `data:` URL.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DataUrl {
    /// <https://fetch.spec.whatwg.org/#data-url-struct-mime-type>: the MIME type written
    /// before the comma, or `text/plain;charset=US-ASCII` where that is missing or invalid.
    pub mime_type: MimeType,
    /// <https://fetch.spec.whatwg.org/#data-url-struct-body>: the bytes after the comma,
    /// percent-decoded, then forgiving-base64 decoded if the MIME type ended in `;base64`.
    pub body: Vec<u8>,
}

/// The [`data:` URL processor](https://fetch.spec.whatwg.org/#data-url-processor): the MIME
/// type and body of `data_url`, or `None` for the spec's failure.
///
/// It fails when there is no comma after `data:`, or when the body is marked `;base64` and is
/// not [forgiving-base64](forgiving_base64_decode), or (not in the spec, which asserts it
/// cannot happen) when the URL's scheme is not `data`.
///
/// ```
/// use url::Url;
/// use whatwg_fetch::data_url::data_url_processor;
///
/// let url = Url::parse("data:text/html;charset=utf-8;base64,PGI+aGk8L2I+").unwrap();
/// let data = data_url_processor(&url).unwrap();
/// assert_eq!(data.mime_type.serialize(), "text/html;charset=utf-8");
/// assert_eq!(data.body, b"<b>hi</b>");
///
/// let url = Url::parse("data:,Hello%2C%20World!").unwrap();
/// let data = data_url_processor(&url).unwrap();
/// assert_eq!(data.mime_type.serialize(), "text/plain;charset=US-ASCII");
/// assert_eq!(data.body, b"Hello, World!");
///
/// assert_eq!(data_url_processor(&Url::parse("data:text/plain").unwrap()), None);
/// ```
pub fn data_url_processor(data_url: &Url) -> Option<DataUrl> {
    // Step 1. Assert: dataURL's scheme is "data".
    // DEVIATION: this is a public function that any URL can reach, so another scheme is a
    // failure rather than a broken assertion.
    if data_url.scheme() != "data" {
        return None;
    }

    // Step 2. Let input be the result of running the URL serializer on dataURL with exclude
    // fragment set to true.
    let input = &data_url[..Position::AfterQuery];

    // Step 3. Remove the leading "data:" from input.
    let input = input.strip_prefix("data:")?;

    // Step 4. Let position point at the start of input.
    let mut position = 0;

    // Step 5. Let mimeType be the result of collecting a sequence of code points that are not
    // equal to U+002C (,), given position.
    let mime_type = collect_a_sequence_of_code_points(input, &mut position, |c| c != ',');

    // Step 6. Strip leading and trailing ASCII whitespace from mimeType.
    // Note: This will only remove U+0020 SPACE code points, if any.
    let mut mime_type: &str = mime_type.trim_matches(|c: char| c.is_ascii_whitespace());

    // Step 7. If position is past the end of input, then return failure.
    if position >= input.len() {
        return None;
    }

    // Step 8. Advance position by 1.
    position += 1;

    // Step 9. Let encodedBody be the remainder of input.
    let encoded_body = input.get(position..)?;

    // Step 10. Let body be the percent-decoding of encodedBody.
    let mut body: Vec<u8> = percent_decode_str(encoded_body).collect();

    // Step 11. If mimeType ends with U+003B (;), followed by zero or more U+0020 SPACE,
    // followed by an ASCII case-insensitive match for "base64", then:
    if let Some(without_base64) = strip_base64_suffix(mime_type) {
        // Step 11.1. Let stringBody be the isomorphic decode of body.
        let string_body = isomorphic_decode(&body);

        // Step 11.2. Set body to the forgiving-base64 decode of stringBody.
        // Step 11.3. If body is failure, then return failure.
        body = forgiving_base64_decode(&string_body)?;

        // Step 11.4. Remove the last 6 code points from mimeType.
        // Step 11.5. Remove trailing U+0020 SPACE code points from mimeType, if any.
        // Step 11.6. Remove the last U+003B (;) from mimeType.
        mime_type = without_base64;
    }

    // Step 12. If mimeType starts with ";", then prepend "text/plain" to mimeType.
    let mime_type: Cow<'_, str> = if mime_type.starts_with(';') {
        Cow::Owned(format!("text/plain{mime_type}"))
    } else {
        Cow::Borrowed(mime_type)
    };

    // Step 13. Let mimeTypeRecord be the result of parsing mimeType.
    // Step 14. If mimeTypeRecord is failure, then set mimeTypeRecord to
    // text/plain;charset=US-ASCII.
    let mime_type_record = MimeType::parse(&mime_type)
        .unwrap_or_else(|| MimeType::new_unchecked("text", "plain", &[("charset", "US-ASCII")]));

    // Step 15. Return a new data: URL struct whose MIME type is mimeTypeRecord and body is
    // body.
    Some(DataUrl {
        mime_type: mime_type_record,
        body,
    })
}

/// If `mime_type` ends with U+003B (;), zero or more U+0020 SPACE and an ASCII
/// case-insensitive "base64" (step 11 of the data: URL processor), `mime_type` without them:
/// the last 6 code points, then trailing spaces, then the last U+003B (;) removed (steps 11.4
/// to 11.6).
fn strip_base64_suffix(mime_type: &str) -> Option<&str> {
    let split = mime_type.len().checked_sub("base64".len())?;
    let (rest, suffix) = (mime_type.get(..split)?, mime_type.get(split..)?);
    if !suffix.eq_ignore_ascii_case("base64") {
        return None;
    }
    rest.trim_end_matches(' ').strip_suffix(';')
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strip_base64_suffix_follows_steps_11_4_to_11_6() {
        assert_eq!(strip_base64_suffix(";base64"), Some(""));
        assert_eq!(strip_base64_suffix("x/x;  BASE64"), Some("x/x"));
        assert_eq!(
            strip_base64_suffix("x/x;charset=x;base64"),
            Some("x/x;charset=x")
        );
        assert_eq!(strip_base64_suffix("base64"), None);
        assert_eq!(strip_base64_suffix(";base 64"), None);
        assert_eq!(strip_base64_suffix("x;base64x"), None);
        assert_eq!(strip_base64_suffix("\u{e9}se64"), None);
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

    #[test]
    fn other_schemes_are_a_failure() {
        let url = Url::parse("https://example.com/,x").unwrap();
        assert_eq!(data_url_processor(&url), None);
    }
}
