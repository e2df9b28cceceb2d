//! `data:` URLs, as the Fetch Standard's
//! [`data:` URL processor](https://fetch.spec.whatwg.org/#data-url-processor) reads them,
//! and the Infra Standard's [forgiving-base64](https://infra.spec.whatwg.org/#forgiving-base64)
//! encode and decode that it relies on.
//!
//! The Fetch Standard replaces the processing requirements of RFC 2397 with these, to match
//! deployed content.
//!
//! ```
//! use whatwg_fetch::Url;
//! use whatwg_fetch::data_url::{data_url_processor, forgiving_base64_decode};
//!
//! let url = Url::parse("data:text/plain;base64,aGVsbG8=")?;
//! let data = data_url_processor(&url).ok_or("not a data: URL")?;
//! assert_eq!((data.mime_type.essence(), data.body.as_slice()), ("text/plain".to_owned(), &b"hello"[..]));
//! assert_eq!(forgiving_base64_decode(" aGV sbG8 "), Some(b"hello".to_vec()));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::borrow::Cow;

use percent_encoding::percent_decode_str;
use url::{Position, Url};

use crate::infra::{
    collect_a_sequence_of_code_points, is_ascii_whitespace, isomorphic_decode, trim_code_points,
};
pub use crate::infra::{forgiving_base64_decode, forgiving_base64_encode};
use crate::mime::MimeType;

/// A [`data:` URL struct](https://fetch.spec.whatwg.org/#data-url-struct): what the
/// [`data:` URL processor](data_url_processor) makes of a `data:` URL.
///
/// ```
/// use whatwg_fetch::Url;
/// use whatwg_fetch::data_url::data_url_processor;
///
/// let data = data_url_processor(&Url::parse("data:,a%20b")?).ok_or("not a data: URL")?;
/// // No type given: `text/plain;charset=US-ASCII`.
/// assert_eq!(data.mime_type.to_string(), "text/plain;charset=US-ASCII");
/// assert_eq!(data.body, b"a b");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
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
    let mime_type = collect_a_sequence_of_code_points(input, &mut position, |b| b != b',');

    // Step 6. Strip leading and trailing ASCII whitespace from mimeType.
    // Note: This will only remove U+0020 SPACE code points, if any.
    let mut mime_type: &str = trim_code_points(mime_type, is_ascii_whitespace);

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
    fn other_schemes_are_a_failure() {
        let url = Url::parse("https://example.com/,x").unwrap();
        assert_eq!(data_url_processor(&url), None);
    }
}
