//! `mime_type`: MIME type parsing and serialization, and
//! [extract a MIME type](https://fetch.spec.whatwg.org/#concept-header-extract-mime-type)
//! over `Content-Type` headers.
//!
//! The whole input is parsed as one MIME type (as bytes, and as a string when it is
//! UTF-8); each line is also one `Content-Type` value of a header list. The first line
//! split at its first `=` is a parameter to set on what parsed.
//!
//! Checked: what parses serializes to a string that parses to the same MIME type and
//! serializes the same (and as bytes); the byte and string parsers agree on ASCII; a
//! parameter that [`MimeType::set_parameter`] accepts survives a round trip.

use whatwg_fetch::headers::HeaderList;
use whatwg_fetch::mime::{MimeType, is_javascript_mime_type_essence_match};

use crate::{MAX_INPUT, lines};

/// Parse → serialize → parse gives the same MIME type and the same serialization.
fn check_round_trip(mime: &MimeType) {
    let serialized = mime.serialize();
    let Some(again) = MimeType::parse(&serialized) else {
        panic!("{serialized:?}, the serialization of {mime:?}, does not parse");
    };
    assert_eq!(&again, mime, "{serialized:?} parses to another MIME type");
    assert_eq!(again.serialize(), serialized, "serialization is not stable");
    let bytes = mime.serialize_to_bytes();
    assert_eq!(
        MimeType::parse_bytes(&bytes).as_ref(),
        Some(mime),
        "the byte serialization parses to another MIME type"
    );
    assert_eq!(
        mime.to_string(),
        serialized,
        "Display differs from serialize()"
    );
    // The predicates and accessors, for panics.
    let essence = mime.essence();
    assert_eq!(essence, format!("{}/{}", mime.type_(), mime.subtype()));
    let _ = (
        mime.is_image(),
        mime.is_audio_or_video(),
        mime.is_font(),
        mime.is_zip_based(),
        mime.is_archive(),
        mime.is_xml(),
        mime.is_html(),
        mime.is_scriptable(),
        mime.is_javascript(),
        mime.is_json(),
        is_javascript_mime_type_essence_match(&essence),
    );
    for (name, value) in mime.parameters() {
        assert_eq!(
            mime.parameter(name),
            Some(value),
            "parameter {name:?} not found"
        );
    }
}

/// The `mime_type` target.
pub fn mime_type(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let from_bytes = MimeType::parse_bytes(data);
    if let Some(mime) = &from_bytes {
        check_round_trip(mime);
    }
    if let Ok(string) = std::str::from_utf8(data) {
        let from_string = MimeType::parse(string);
        if let Some(mime) = &from_string {
            check_round_trip(mime);
        }
        if string.is_ascii() {
            assert_eq!(
                from_string, from_bytes,
                "the string and byte parsers disagree"
            );
        }
        let _ = is_javascript_mime_type_essence_match(string);
    }

    // Each line a `Content-Type` value.
    let mut header_list = HeaderList::new();
    for line in lines(data) {
        header_list.append("Content-Type", line);
    }
    if let Some(mime) = header_list.extract_mime_type() {
        check_round_trip(&mime);
    }

    // A parameter from the first line.
    if let Some(mut mime) = from_bytes {
        let first = lines(data).next().unwrap_or_default();
        let text = String::from_utf8_lossy(first);
        let (name, value) = text.split_once('=').unwrap_or((&text, ""));
        if mime.set_parameter(name, value).is_ok() {
            check_round_trip(&mime);
            let lower = name.to_ascii_lowercase();
            assert_eq!(
                mime.parameter(&lower),
                Some(value),
                "a set parameter is missing"
            );
        }
        let _ = mime.remove_parameter(name);
        check_round_trip(&mime);
    }
}
