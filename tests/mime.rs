//! MIME type parsing and serialization against the WPT vectors in
//! mimesniff/mime-types/resources/, plus properties that must hold for any input.

mod common;

use proptest::prelude::*;
use serde_json::Value;
use whatwg_fetch::ErrorKind;
use whatwg_fetch::mime::{
    MimeType, is_http_newline_byte, is_http_tab_or_space_byte, is_http_token_byte,
    is_http_whitespace_byte, is_token,
};

use common::wpt_json;

/// Runs every `{ "input": ..., "output": ... }` object of a mime-types JSON file (the strings
/// between them are section comments) and returns how many there were.
///
/// An `output` of null means parsing fails; otherwise parsing succeeds and serializes to
/// `output`. Inputs that are isomorphic strings are also run through `parse_bytes`.
fn run_mime_type_vectors(path: &str) -> usize {
    let Value::Array(entries) = wpt_json(path) else {
        panic!("{path} is not a JSON array");
    };
    let mut count = 0;
    for entry in &entries {
        let case = match entry {
            Value::String(_) => continue,
            Value::Object(case) => case,
            other => panic!("unexpected entry in {path}: {other}"),
        };
        let input = case["input"]
            .as_str()
            .unwrap_or_else(|| panic!("no input in {case:?}"));
        let expected = match &case["output"] {
            Value::Null => None,
            Value::String(output) => Some(output.as_str()),
            other => panic!("unexpected output {other} in {path}"),
        };

        let parsed = MimeType::parse(input);
        assert_eq!(
            parsed.as_ref().map(MimeType::serialize).as_deref(),
            expected,
            "parse({input:?})"
        );
        match (&parsed, input.parse::<MimeType>()) {
            (Some(mime), Ok(from_str)) => assert_eq!(mime, &from_str),
            (None, Err(error)) => assert_eq!(error.kind(), ErrorKind::TypeError),
            (parsed, from_str) => {
                panic!("parse and from_str disagree on {input:?}: {parsed:?} vs {from_str:?}")
            }
        }
        if let Some(mime) = &parsed {
            assert_eq!(mime.to_string(), mime.serialize());
        }

        if input.chars().all(|c| u32::from(c) <= 0xff) {
            let bytes: Vec<u8> = input.chars().filter_map(|c| u8::try_from(c).ok()).collect();
            let from_bytes = MimeType::parse_bytes(&bytes);
            assert_eq!(from_bytes, parsed, "parse_bytes({bytes:?})");
            if let (Some(mime), Some(output)) = (&from_bytes, expected) {
                let output_bytes: Vec<u8> = output
                    .chars()
                    .filter_map(|c| u8::try_from(c).ok())
                    .collect();
                assert_eq!(mime.serialize_to_bytes(), output_bytes);
            }
        }
        count += 1;
    }
    count
}

#[test]
fn mime_types_json_all_pass() {
    let count = run_mime_type_vectors("mimesniff/mime-types/resources/mime-types.json");
    assert_eq!(count, 74, "mime-types.json holds 74 cases");
}

#[test]
fn generated_mime_types_json_all_pass() {
    let count = run_mime_type_vectors("mimesniff/mime-types/resources/generated-mime-types.json");
    assert_eq!(count, 881, "generated-mime-types.json holds 881 cases");
}

#[test]
fn accessors_expose_the_record() {
    let mime = MimeType::parse("Text/HTML;Charset=\"UTF-8\";q=\"a\\\"b\"").unwrap();
    assert_eq!(mime.type_(), "text");
    assert_eq!(mime.subtype(), "html");
    assert_eq!(mime.essence(), "text/html");
    assert_eq!(
        mime.parameters().collect::<Vec<_>>(),
        [("charset", "UTF-8"), ("q", "a\"b")]
    );
    assert_eq!(mime.parameter("CHARSET"), Some("UTF-8"));
    assert_eq!(mime.parameter("missing"), None);
    assert_eq!(mime.serialize(), "text/html;charset=UTF-8;q=\"a\\\"b\"");
}

#[test]
fn set_parameter_replaces_in_place_and_appends_new_names() {
    let mut mime = MimeType::parse("text/plain;a=1;b=2").unwrap();
    mime.set_parameter("A", "x y").unwrap();
    mime.set_parameter("c", "").unwrap();
    assert_eq!(mime.serialize(), "text/plain;a=\"x y\";b=2;c=\"\"");
    assert_eq!(mime.remove_parameter("B"), Some("2".to_owned()));
    assert_eq!(mime.remove_parameter("b"), None);
    assert_eq!(mime.serialize(), "text/plain;a=\"x y\";c=\"\"");
    assert_eq!(MimeType::parse(&mime.serialize()), Some(mime));
}

#[test]
fn invalid_parts_are_type_errors_and_change_nothing() {
    let mut mime = MimeType::new("text", "plain").unwrap();
    for (name, value) in [("", "x"), ("a b", "x"), ("a", "\u{100}"), ("a", "\n")] {
        let error = mime.set_parameter(name, value).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
    }
    assert_eq!(mime.serialize(), "text/plain");
    for (type_, subtype) in [
        ("", "plain"),
        ("text", ""),
        ("te xt", "plain"),
        ("text", "pl/ain"),
    ] {
        let error = MimeType::new(type_, subtype).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
    }
    assert_eq!(
        "nope".parse::<MimeType>().unwrap_err().kind(),
        ErrorKind::TypeError
    );
}

#[test]
fn byte_predicates_match_the_fetch_standard() {
    let whitespace: Vec<u8> = (0..=255u8)
        .filter(|&b| is_http_whitespace_byte(b))
        .collect();
    assert_eq!(whitespace, b"\t\n\r ");
    let newline: Vec<u8> = (0..=255u8).filter(|&b| is_http_newline_byte(b)).collect();
    assert_eq!(newline, b"\n\r");
    let tab_or_space: Vec<u8> = (0..=255u8)
        .filter(|&b| is_http_tab_or_space_byte(b))
        .collect();
    assert_eq!(tab_or_space, b"\t ");
    let token: Vec<u8> = (0..=255u8).filter(|&b| is_http_token_byte(b)).collect();
    assert_eq!(
        token,
        b"!#$%&'*+-.0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ^_`abcdefghijklmnopqrstuvwxyz|~"
    );
    assert!(is_token(b"X-Custom_Header.1"));
    assert!(!is_token(b""));
    assert!(!is_token(b"a:b"));
    assert!(!is_token("\u{e9}".as_bytes()));
}

/// Strings close to MIME type syntax, so that the parser's branches are reached often.
fn mime_like() -> impl Strategy<Value = String> {
    proptest::string::string_regex(
        "[ \t\r\n]{0,2}[a-zA-Z0-9+.\\-]{0,6}/?[a-zA-Z0-9+.\\-]{0,6}[ \t]{0,2}(;[ \t\n]{0,2}[a-zA-Z0-9=\\-]{0,5}=?(\"([^\"\\\\]|\\\\.){0,4}\"?)?[a-zA-Z0-9 \t\u{80}-\u{ff}\u{100}\"\\\\()=,]{0,5}){0,4}[ \t\r\n]{0,2}",
    )
    .unwrap()
}

fn check_round_trip(mime: &MimeType) {
    let serialized = mime.serialize();
    assert_eq!(
        MimeType::parse(&serialized).as_ref(),
        Some(mime),
        "{serialized:?}"
    );
    assert_eq!(
        MimeType::parse_bytes(&mime.serialize_to_bytes()).as_ref(),
        Some(mime)
    );
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn parse_never_panics_and_round_trips(input in any::<String>()) {
        if let Some(mime) = MimeType::parse(&input) {
            check_round_trip(&mime);
        }
    }

    #[test]
    fn parse_mime_like_round_trips(input in mime_like()) {
        if let Some(mime) = MimeType::parse(&input) {
            check_round_trip(&mime);
        }
    }

    #[test]
    fn parse_bytes_never_panics_and_round_trips(input in proptest::collection::vec(any::<u8>(), 0..64)) {
        if let Some(mime) = MimeType::parse_bytes(&input) {
            check_round_trip(&mime);
        }
    }

    #[test]
    fn set_parameter_keeps_the_round_trip(name in "[-a-zA-Z0-9!#]{0,4}", value in "[\t -~\u{80}-\u{ff}\u{100}]{0,6}") {
        let mut mime = MimeType::new("a", "b").unwrap();
        let accepted = mime.set_parameter(&name, &value).is_ok();
        prop_assert_eq!(accepted, !name.is_empty() && value.chars().all(|c| u32::from(c) <= 0xff));
        check_round_trip(&mime);
    }
}

#[test]
fn mime_type_groups() {
    let parse = |s: &str| MimeType::parse(s).unwrap();
    assert!(parse("IMAGE/svg+xml").is_image());
    assert!(parse("image/svg+xml").is_xml());
    assert!(parse("image/svg+xml").is_scriptable());
    assert!(parse("application/ogg").is_audio_or_video());
    assert!(parse("video/mp4").is_audio_or_video());
    assert!(!parse("application/oggx").is_audio_or_video());
    assert!(parse("font/woff2").is_font());
    assert!(parse("application/vnd.ms-opentype").is_font());
    assert!(parse("application/epub+zip").is_zip_based());
    assert!(!parse("application/epub+zip").is_archive());
    assert!(parse("application/x-gzip").is_archive());
    assert!(parse("text/html;charset=utf-8").is_html());
    assert!(parse("application/pdf").is_scriptable());
    assert!(!parse("text/plain").is_scriptable());
    assert!(parse("text/x-JavaScript").is_javascript());
    assert!(!parse("text/javascript2").is_javascript());
    assert!(parse("application/ld+json").is_json());
    assert!(parse("text/json").is_json());
    assert!(!parse("text/jsonx").is_json());
    assert!(whatwg_fetch::mime::is_javascript_mime_type_essence_match(
        "APPLICATION/ECMASCRIPT"
    ));
}
