//! The data: URL processor and forgiving-base64 against the WPT vectors in
//! fetch/data-urls/resources/, plus properties that must hold for any input.

mod common;

use proptest::prelude::*;
use serde_json::Value;
use url::Url;
use whatwg_fetch::data_url::{
    DataUrl, data_url_processor, forgiving_base64_decode, forgiving_base64_encode,
};

use common::wpt_json;

fn json_bytes(value: &Value) -> Vec<u8> {
    value
        .as_array()
        .unwrap_or_else(|| panic!("expected an array of bytes, got {value}"))
        .iter()
        .map(|byte| {
            byte.as_u64()
                .and_then(|byte| u8::try_from(byte).ok())
                .unwrap_or_else(|| panic!("not a byte: {byte}"))
        })
        .collect()
}

/// Parses `input` with the URL parser, then runs the data: URL processor; a URL that does
/// not parse is a failure, as it is for `fetch()`.
fn process(input: &str) -> Option<DataUrl> {
    let url = Url::parse(input).ok()?;
    data_url_processor(&url)
}

#[test]
fn data_urls_json_all_pass() {
    // Each case is [input, MIME type or null for failure, body bytes (absent on failure)].
    let Value::Array(cases) = wpt_json("fetch/data-urls/resources/data-urls.json") else {
        panic!("data-urls.json is not a JSON array");
    };
    let mut count = 0;
    for case in &cases {
        let input = case[0]
            .as_str()
            .unwrap_or_else(|| panic!("no input in {case}"));
        let result = process(input);
        match &case[1] {
            Value::Null => assert_eq!(result, None, "{input:?} must fail"),
            Value::String(mime_type) => {
                let result = result.unwrap_or_else(|| panic!("{input:?} must not fail"));
                assert_eq!(&result.mime_type.serialize(), mime_type, "{input:?}");
                assert_eq!(result.body, json_bytes(&case[2]), "{input:?}");
            }
            other => panic!("unexpected MIME type {other} for {input:?}"),
        }
        count += 1;
    }
    assert_eq!(count, 72, "data-urls.json holds 72 cases");
}

#[test]
fn base64_json_all_pass() {
    // Each case is [input, decoded bytes or null for failure].
    let Value::Array(cases) = wpt_json("fetch/data-urls/resources/base64.json") else {
        panic!("base64.json is not a JSON array");
    };
    let mut count = 0;
    for case in &cases {
        let input = case[0]
            .as_str()
            .unwrap_or_else(|| panic!("no input in {case}"));
        let expected = match &case[1] {
            Value::Null => None,
            bytes => Some(json_bytes(bytes)),
        };
        assert_eq!(forgiving_base64_decode(input), expected, "{input:?}");

        // base64.any.js also runs every case through a data: URL, where success yields
        // text/plain;charset=US-ASCII.
        let through_url = process(&format!("data:;base64,{input}"));
        assert_eq!(
            through_url.as_ref().map(|data| data.body.clone()),
            expected,
            "data:;base64,{input:?}"
        );
        if let Some(data) = through_url {
            assert_eq!(data.mime_type.serialize(), "text/plain;charset=US-ASCII");
        }
        count += 1;
    }
    assert_eq!(count, 80, "base64.json holds 80 cases");
}

#[test]
fn fragment_is_excluded() {
    let data = process("data:text/plain,a#b,c").unwrap();
    assert_eq!(data.body, b"a");
}

#[test]
fn query_is_part_of_the_body() {
    let data = process("data:,a?b").unwrap();
    assert_eq!(data.body, b"a?b");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn data_url_processor_never_panics(rest in any::<String>()) {
        if let Ok(url) = Url::parse(&format!("data:{rest}")) {
            if let Some(data) = data_url_processor(&url) {
                // The MIME type it returns is always one that survives a round trip.
                prop_assert_eq!(
                    whatwg_fetch::mime::MimeType::parse(&data.mime_type.serialize()),
                    Some(data.mime_type)
                );
            }
        }
    }

    #[test]
    fn data_url_like_inputs_never_panic(
        rest in "[ a-zA-Z/;=\",%0-9+\u{e9}\u{2020}#?\t\n\u{c}]{0,40}"
    ) {
        if let Ok(url) = Url::parse(&format!("data:{rest}")) {
            let _ = data_url_processor(&url);
        }
    }

    #[test]
    fn base64_decode_never_panics(input in any::<String>()) {
        let _ = forgiving_base64_decode(&input);
    }

    #[test]
    fn base64_alphabet_inputs_decode_by_length(input in "[A-Za-z0-9+/= \t\n]{0,24}") {
        let decoded = forgiving_base64_decode(&input);
        let stripped: String = input.chars().filter(|c| !c.is_ascii_whitespace()).collect();
        if !stripped.contains('=') {
            prop_assert_eq!(decoded.is_some(), stripped.len() % 4 != 1);
        }
    }

    #[test]
    fn base64_round_trips(data in proptest::collection::vec(any::<u8>(), 0..64)) {
        let encoded = forgiving_base64_encode(&data);
        prop_assert_eq!(encoded.len() % 4, 0);
        prop_assert_eq!(forgiving_base64_decode(&encoded), Some(data.clone()));
        // Padding is optional on the way in.
        prop_assert_eq!(forgiving_base64_decode(encoded.trim_end_matches('=')), Some(data));
    }
}
