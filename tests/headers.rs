//! Headers, header lists and the header sets, against the Fetch Standard and its WPT vectors.

mod common;

use bytes::Bytes;
use proptest::prelude::*;
use whatwg_fetch::ErrorKind;
use whatwg_fetch::headers::{
    Extracted, HeaderList, Headers, HeadersGuard, HeadersInit, cors_unsafe_request_header_names,
    is_cors_non_wildcard_request_header_name, is_cors_safelisted_method,
    is_cors_safelisted_request_header, is_cors_safelisted_response_header_name,
    is_forbidden_method, is_forbidden_request_header, is_forbidden_response_header_name,
    is_header_name, is_header_value, is_no_cors_safelisted_request_header,
    is_privileged_no_cors_request_header_name, normalize_header_value,
};

use common::wpt_json;

/// A header list from header lines as they would arrive on the network (`Name: value`,
/// separated by CRLF), each value stripped of surrounding whitespace as an HTTP parser does.
fn header_block(input: &str) -> HeaderList {
    let mut list = HeaderList::new();
    for line in input.split("\r\n") {
        let (name, value) = line
            .split_once(':')
            .unwrap_or_else(|| panic!("header line without a colon: {line:?}"));
        list.append(name, normalize_header_value(value.as_bytes()));
    }
    list
}

fn assert_type_error<T: std::fmt::Debug>(result: whatwg_fetch::Result<T>, what: &str) {
    match result {
        Err(error) => assert_eq!(error.kind(), ErrorKind::TypeError, "{what}"),
        Ok(value) => panic!("{what}: expected a TypeError, got Ok({value:?})"),
    }
}

fn pairs(headers: &Headers) -> Vec<(String, String)> {
    headers.iter().collect()
}

fn owned(pairs: &[(&str, &str)]) -> Vec<(String, String)> {
    pairs
        .iter()
        .map(|(name, value)| ((*name).to_owned(), (*value).to_owned()))
        .collect()
}

// ---------------------------------------------------------------------------------------------
// WPT vectors

#[test]
fn extract_a_length_matches_wpt() {
    // Each case: {"input": header lines, "output": number or null}. The WPT test
    // (fetch/content-length/parsing.window.js) serves a 42-byte body with those headers:
    // null means fetch rejects (extract a length returned failure); a number is the length of
    // the body read, so 42 also stands for "extract a length returned null" (the whole body is
    // read when the length is unknown).
    let cases = wpt_json("fetch/content-length/resources/content-lengths.json");
    let cases = cases.as_array().expect("an array of cases");
    assert_eq!(cases.len(), 35);
    for case in cases {
        let input = case["input"].as_str().expect("input is a string");
        let length = header_block(input).extract_length();
        match case["output"].as_u64() {
            None => assert_eq!(length, Extracted::Failure, "input {input:?}"),
            Some(expected) => match length {
                Extracted::Value(length) => assert_eq!(length, expected, "input {input:?}"),
                Extracted::Null => assert_eq!(expected, 42, "input {input:?}: null"),
                Extracted::Failure => panic!("input {input:?}: failure, expected {expected}"),
            },
        }
    }
}

#[test]
fn not_cors_safelisted_matches_wpt() {
    // Each case is [name, value]: none is a CORS-safelisted request-header.
    let cases = wpt_json("fetch/api/cors/resources/not-cors-safelisted.json");
    let cases = cases.as_array().expect("an array of cases");
    assert_eq!(cases.len(), 11);
    for case in cases {
        let name = case[0].as_str().expect("name");
        let value = case[1].as_str().expect("value");
        assert!(
            !is_cors_safelisted_request_header(name.as_bytes(), value.as_bytes()),
            "{name}: {value:?} must not be CORS-safelisted"
        );
        let list: HeaderList = [(name, value)].into_iter().collect();
        assert_eq!(
            cors_unsafe_request_header_names(&list),
            vec![name.to_ascii_lowercase().into_bytes()]
        );
    }
}

#[test]
fn determine_nosniff_matches_wpt() {
    // Each case: {"input": header lines, "nosniff": bool}.
    let cases = wpt_json("fetch/nosniff/resources/x-content-type-options.json");
    let cases = cases.as_array().expect("an array of cases");
    assert_eq!(cases.len(), 15);
    for case in cases {
        let input = case["input"].as_str().expect("input is a string");
        let expected = case["nosniff"].as_bool().expect("nosniff is a bool");
        assert_eq!(
            header_block(input).determine_nosniff(),
            expected,
            "input {input:?}"
        );
    }
}

#[test]
fn extract_a_mime_type_matches_wpt() {
    // Each case: {"contentType": [values], "mimeType": string, "encoding": string or null,
    // "documentContentType": string}. The WPT test (fetch/content-type/response.window.js)
    // sends the values as separate Content-Type headers and as one combined header, and
    // checks a body's Blob type, which is the serialized result of extract a MIME type
    // ("mimeType"). "encoding" and "documentContentType" are what an HTML document loaded
    // from the response reports; they are checked here only as far as they follow from the
    // MIME type: the encoding is the charset parameter (each expected encoding's name is a
    // case-insensitive match for the label), and for these text/html and text/plain inputs a
    // document's content type is the essence.
    let cases = wpt_json("fetch/content-type/resources/content-types.json");
    let cases = cases.as_array().expect("an array of cases");
    assert_eq!(cases.len(), 20);
    for case in cases {
        let values: Vec<&str> = case["contentType"]
            .as_array()
            .expect("contentType is an array")
            .iter()
            .map(|value| value.as_str().expect("a string"))
            .collect();
        let expected_mime_type = case["mimeType"].as_str().expect("mimeType");
        let expected_encoding = case["encoding"].as_str();
        let document_content_type = case["documentContentType"].as_str().expect("string");

        let separate: HeaderList = values.iter().map(|value| ("Content-Type", value)).collect();
        let combined: HeaderList = [("Content-Type", values.join(", "))].into_iter().collect();
        for list in [separate, combined] {
            let mime_type = list
                .extract_mime_type()
                .unwrap_or_else(|| panic!("{values:?}: failure"));
            assert_eq!(mime_type.serialize(), expected_mime_type, "{values:?}");
            assert_eq!(
                mime_type.parameter("charset").map(str::to_ascii_lowercase),
                expected_encoding.map(str::to_ascii_lowercase),
                "{values:?}: charset"
            );
            assert_eq!(mime_type.essence(), document_content_type, "{values:?}");
        }

        // The same through Headers.append, as the test's Request and Response cases do.
        let mut headers = Headers::new();
        for value in &values {
            headers.append("Content-Type", value).expect("valid");
        }
        let mime_type = headers
            .header_list()
            .extract_mime_type()
            .expect("a MIME type");
        assert_eq!(mime_type.serialize(), expected_mime_type, "{values:?}");
    }
}

// ---------------------------------------------------------------------------------------------
// The header list

#[test]
fn extract_a_mime_type_follows_the_spec_examples() {
    let serialized = |values: &[&str]| {
        let list: HeaderList = values.iter().map(|value| ("Content-Type", value)).collect();
        list.extract_mime_type()
            .map(|mime_type| mime_type.serialize())
    };
    assert_eq!(
        serialized(&["text/plain;charset=gbk, text/html"]).as_deref(),
        Some("text/html")
    );
    assert_eq!(
        serialized(&["text/html;charset=gbk;a=b, text/html;x=y"]).as_deref(),
        Some("text/html;x=y;charset=gbk")
    );
    assert_eq!(
        serialized(&["text/html;charset=gbk;a=b", "text/html;x=y"]).as_deref(),
        Some("text/html;x=y;charset=gbk")
    );
    assert_eq!(
        serialized(&["text/html;charset=gbk", "x/x", "text/html;x=y"]).as_deref(),
        Some("text/html;x=y")
    );
    assert_eq!(
        serialized(&["text/html", "cannot-parse"]).as_deref(),
        Some("text/html")
    );
    assert_eq!(
        serialized(&["text/html", "*/*"]).as_deref(),
        Some("text/html")
    );
    assert_eq!(serialized(&["text/html", ""]).as_deref(), Some("text/html"));
    assert_eq!(serialized(&["cannot-parse"]), None);
    assert_eq!(serialized(&["*/*"]), None);
    assert_eq!(HeaderList::new().extract_mime_type(), None);
}

#[test]
fn get_decode_and_split_follows_the_spec_examples() {
    let split = |headers: &[(&str, &str)]| {
        let list: HeaderList = headers.iter().copied().collect();
        list.get_decode_split("a")
    };
    let strings = |items: &[&str]| Some(items.iter().map(|item| (*item).to_owned()).collect());
    assert_eq!(split(&[("A", "nosniff,")]), strings(&["nosniff", ""]));
    assert_eq!(
        split(&[("A", "nosniff"), ("B", "sniff"), ("A", "")]),
        strings(&["nosniff", ""])
    );
    assert_eq!(split(&[("A", ""), ("B", "sniff")]), strings(&[""]));
    assert_eq!(split(&[("B", "sniff")]), None);
    assert_eq!(
        split(&[("A", "text/html;\", x/x")]),
        strings(&["text/html;\", x/x"])
    );
    assert_eq!(
        split(&[("A", "text/html;\""), ("A", "x/x")]),
        strings(&["text/html;\", x/x"])
    );
    assert_eq!(
        split(&[("A", "x/x;test=\"hi\",y/y")]),
        strings(&["x/x;test=\"hi\"", "y/y"])
    );
    assert_eq!(
        split(&[("A", "x/x;test=\"hi\""), ("C", "**bingo**"), ("A", "y/y")]),
        strings(&["x/x;test=\"hi\"", "y/y"])
    );
    assert_eq!(
        split(&[("A", "x / x,,,1")]),
        strings(&["x / x", "", "", "1"])
    );
    assert_eq!(
        split(&[("A", "x / x"), ("A", ","), ("A", "1")]),
        strings(&["x / x", "", "", "1"])
    );
    assert_eq!(split(&[("A", "\"1,2\", 3")]), strings(&["\"1,2\"", "3"]));
    assert_eq!(
        split(&[("A", "\"1,2\""), ("D", "4"), ("A", "3")]),
        strings(&["\"1,2\"", "3"])
    );
    // Isomorphic decoding: each byte is one code point.
    let list: HeaderList = [(&b"A"[..], &b"\xE9, \xFF"[..])].into_iter().collect();
    assert_eq!(
        list.get_decode_split("a"),
        Some(vec!["\u{e9}".to_owned(), "\u{ff}".to_owned()])
    );
}

#[test]
fn header_list_append_reuses_the_first_name_case() {
    let mut list = HeaderList::new();
    list.append("X-Thing", "1");
    list.append("x-thing", "2");
    list.append("Other", "3");
    list.append("X-THING", "4");
    let names: Vec<&[u8]> = list.iter().map(|(name, _)| name).collect();
    assert_eq!(names, [&b"X-Thing"[..], b"X-Thing", b"Other", b"X-Thing"]);
    assert_eq!(list.get("x-THING").as_deref(), Some(&b"1, 2, 4"[..]));
    assert!(list.contains("other"));
    assert!(!list.contains("missing"));
    assert_eq!(list.get("missing"), None);
}

#[test]
fn header_list_set_replaces_the_first_and_removes_the_rest() {
    let mut list: HeaderList = [("A", "1"), ("B", "2"), ("a", "3"), ("C", "4")]
        .into_iter()
        .collect();
    list.set("A", "new");
    let headers: Vec<(&[u8], &[u8])> = list.iter().collect();
    assert_eq!(
        headers,
        [(&b"A"[..], &b"new"[..]), (b"B", b"2"), (b"C", b"4")]
    );
    list.set("D", "5");
    assert_eq!(list.iter().last(), Some((&b"D"[..], &b"5"[..])));
    list.delete("b");
    assert!(!list.contains("B"));
    assert_eq!(list.len(), 3);
}

#[test]
fn header_list_combine() {
    let mut list: HeaderList = [("Accept", "a"), ("X", "1"), ("accept", "b")]
        .into_iter()
        .collect();
    list.combine("ACCEPT", "c");
    let headers: Vec<(&[u8], &[u8])> = list.iter().collect();
    assert_eq!(
        headers,
        [
            (&b"Accept"[..], &b"a, c"[..]),
            (b"X", b"1"),
            (b"Accept", b"b")
        ]
    );
    list.combine("New", "v");
    assert_eq!(list.get("new").as_deref(), Some(&b"v"[..]));
}

#[test]
fn sort_and_combine_sorts_lowercases_and_keeps_set_cookie_apart() {
    let list: HeaderList = [
        ("Zeta", "z"),
        ("Set-Cookie", "a=1"),
        ("alpha", "1"),
        ("ALPHA", "2"),
        ("set-cookie", "b=2, c=3"),
        ("Beta", ""),
    ]
    .into_iter()
    .collect();
    let combined: Vec<(Vec<u8>, Vec<u8>)> = list
        .sort_and_combine()
        .iter()
        .map(|(name, value)| (name.to_vec(), value.to_vec()))
        .collect();
    let expected: Vec<(Vec<u8>, Vec<u8>)> = [
        ("alpha", "1, 2"),
        ("beta", ""),
        ("set-cookie", "a=1"),
        ("set-cookie", "b=2, c=3"),
        ("zeta", "z"),
    ]
    .iter()
    .map(|(name, value)| (name.as_bytes().to_vec(), value.as_bytes().to_vec()))
    .collect();
    assert_eq!(combined, expected);
}

#[test]
fn extract_header_list_values() {
    let list: HeaderList = [
        ("Access-Control-Allow-Headers", "X-A, ,x-b"),
        ("access-control-allow-headers", "*"),
        ("Access-Control-Allow-Methods", "GET, bad method"),
        ("Access-Control-Max-Age", "600"),
        ("Location", "/a,b"),
        ("X-Other", "1, 2"),
    ]
    .into_iter()
    .collect();
    let bytes = |items: &[&str]| {
        Extracted::Value(
            items
                .iter()
                .map(|item| Bytes::copy_from_slice(item.as_bytes()))
                .collect::<Vec<_>>(),
        )
    };
    assert_eq!(
        list.extract_header_list_values("Access-Control-Allow-Headers"),
        bytes(&["X-A", "x-b", "*"])
    );
    assert_eq!(
        list.extract_header_list_values("Access-Control-Allow-Methods"),
        Extracted::Failure
    );
    assert_eq!(
        list.extract_header_list_values("Access-Control-Max-Age"),
        bytes(&["600"])
    );
    assert_eq!(
        list.extract_header_list_values("location"),
        bytes(&["/a,b"])
    );
    assert_eq!(list.extract_header_list_values("x-other"), bytes(&["1, 2"]));
    assert!(
        list.extract_header_list_values("Content-Encoding")
            .is_null()
    );

    let twice: HeaderList = [
        ("Access-Control-Max-Age", "1"),
        ("Access-Control-Max-Age", "1"),
    ]
    .into_iter()
    .collect();
    assert!(
        twice
            .extract_header_list_values("Access-Control-Max-Age")
            .is_failure()
    );
    let not_digits: HeaderList = [("Access-Control-Max-Age", "-1")].into_iter().collect();
    assert!(
        not_digits
            .extract_header_list_values("Access-Control-Max-Age")
            .is_failure()
    );
}

#[test]
fn extract_a_length_edge_cases() {
    let length = |values: &[&str]| {
        let list: HeaderList = values
            .iter()
            .map(|value| ("Content-Length", value))
            .collect();
        list.extract_length()
    };
    assert_eq!(HeaderList::new().extract_length(), Extracted::Null);
    assert_eq!(length(&["0"]), Extracted::Value(0));
    assert_eq!(
        length(&["18446744073709551615"]),
        Extracted::Value(u64::MAX)
    );
    // Beyond u64: no body can have this length.
    assert_eq!(length(&["18446744073709551616"]), Extracted::Failure);
    assert_eq!(length(&["+1"]), Extracted::Null);
    assert_eq!(Extracted::Value(3).value(), Some(3));
    assert_eq!(Extracted::<u64>::Failure.value(), None);
}

// ---------------------------------------------------------------------------------------------
// Names, values and the sets

#[test]
fn header_name_and_value_checks() {
    assert!(is_header_name(b"X-Custom_1.2~!#$%&'*+^`|"));
    for bad in [
        &b""[..],
        b"a b",
        b"a:b",
        b"a\0",
        b"(",
        b"\xE9",
        b"a\"",
        b"a/b",
        b"a@b",
    ] {
        assert!(!is_header_name(bad), "{bad:?}");
    }
    assert!(is_header_value(b""));
    assert!(is_header_value(b"a\x01b\x7F\xFF"));
    assert!(is_header_value(b"inner  \t space"));
    for bad in [&b" a"[..], b"a ", b"\ta", b"a\t", b"a\0b", b"a\rb", b"a\nb"] {
        assert!(!is_header_value(bad), "{bad:?}");
    }
    assert_eq!(normalize_header_value(b" \t\r\n"), b"");
    assert_eq!(normalize_header_value(b"\n a b \r"), b"a b");
    assert_eq!(normalize_header_value(b"\x0Ca\x0B"), b"\x0Ca\x0B");
}

#[test]
fn forbidden_request_headers() {
    for name in [
        "Accept-Charset",
        "accept-encoding",
        "Access-Control-Request-Headers",
        "Access-Control-Request-Method",
        "Connection",
        "Content-Length",
        "Cookie",
        "Cookie2",
        "Date",
        "DNT",
        "Expect",
        "Host",
        "Keep-Alive",
        "Origin",
        "Referer",
        "Set-Cookie",
        "TE",
        "Trailer",
        "Transfer-Encoding",
        "Upgrade",
        "Via",
        "Proxy-Authorization",
        "proxy-",
        "Sec-Fetch-Dest",
        "SEC-",
    ] {
        assert!(is_forbidden_request_header(name.as_bytes(), b"x"), "{name}");
    }
    for name in [
        "Accept",
        "Proxy",
        "Sec",
        "X-Forwarded-For",
        "Cookies",
        "Referrer",
    ] {
        assert!(
            !is_forbidden_request_header(name.as_bytes(), b"x"),
            "{name}"
        );
    }
    for name in [
        "X-HTTP-Method",
        "x-http-method-override",
        "X-Method-Override",
    ] {
        let name = name.as_bytes();
        assert!(is_forbidden_request_header(name, b"TRACE"));
        assert!(is_forbidden_request_header(name, b"get, connect"));
        assert!(is_forbidden_request_header(name, b"\"x\",  track  "));
        assert!(!is_forbidden_request_header(name, b"GET, PATCH"));
        assert!(!is_forbidden_request_header(name, b"\"TRACE\""));
        assert!(!is_forbidden_request_header(name, b""));
    }
    assert!(is_forbidden_method(b"CONNECT"));
    assert!(is_forbidden_method(b"tRaCk"));
    assert!(!is_forbidden_method(b"TRACES"));
    assert!(is_forbidden_response_header_name(b"set-cookie"));
    assert!(is_forbidden_response_header_name(b"SET-COOKIE2"));
    assert!(!is_forbidden_response_header_name(b"Cookie"));
}

#[test]
fn cors_safelisted_sets() {
    assert!(is_cors_safelisted_method(b"GET"));
    assert!(is_cors_safelisted_method(b"HEAD"));
    assert!(is_cors_safelisted_method(b"POST"));
    assert!(!is_cors_safelisted_method(b"get"));
    assert!(!is_cors_safelisted_method(b"PUT"));

    for (name, value) in [
        ("Accept", "text/html, */*; q=0.8"),
        ("accept-language", "en-US,en;q=0.5"),
        ("Content-Language", "de-DE"),
        ("Content-Type", "text/plain;charset=UTF-8"),
        ("content-type", "multipart/form-data; boundary=x"),
        ("Content-Type", "application/x-www-form-urlencoded"),
        ("Range", "bytes=0-"),
        ("Range", "bytes=10-20"),
    ] {
        assert!(
            is_cors_safelisted_request_header(name.as_bytes(), value.as_bytes()),
            "{name}: {value}"
        );
    }
    for (name, value) in [
        ("Accept", "a@b"),
        ("Accept", "\x7F"),
        ("Accept-Language", "en_US"),
        ("Content-Type", "text/plain; x=\"a\""),
        ("Content-Type", "text/json"),
        ("Content-Type", "nonsense"),
        ("Range", "bytes=-5"),
        ("Range", "bytes=5-1"),
        ("Range", "bytes = 0-"),
        ("Range", "bytes=0-1,3-4"),
        ("Authorization", "x"),
    ] {
        assert!(
            !is_cors_safelisted_request_header(name.as_bytes(), value.as_bytes()),
            "{name}: {value}"
        );
    }
    // The 128-byte limit.
    let long = "a".repeat(128);
    assert!(is_cors_safelisted_request_header(
        b"Accept",
        long.as_bytes()
    ));
    let longer = "a".repeat(129);
    assert!(!is_cors_safelisted_request_header(
        b"Accept",
        longer.as_bytes()
    ));

    assert!(is_no_cors_safelisted_request_header(b"Accept", b"*/*"));
    assert!(!is_no_cors_safelisted_request_header(b"Range", b"bytes=0-"));
    assert!(is_privileged_no_cors_request_header_name(b"range"));
    assert!(is_cors_non_wildcard_request_header_name(b"AUTHORIZATION"));
    assert!(!is_cors_non_wildcard_request_header_name(b"Accept"));

    assert!(is_cors_safelisted_response_header_name::<&[u8]>(
        b"Pragma",
        &[]
    ));
    assert!(is_cors_safelisted_response_header_name::<&[u8]>(
        b"expires",
        &[]
    ));
    assert!(!is_cors_safelisted_response_header_name::<&[u8]>(
        b"X-Other",
        &[]
    ));
    assert!(is_cors_safelisted_response_header_name(
        b"x-other",
        &["X-Other"]
    ));
    assert!(!is_cors_safelisted_response_header_name(
        b"Set-Cookie2",
        &["set-cookie2"]
    ));
}

#[test]
fn cors_unsafe_request_header_names_counts_safelisted_bytes() {
    // 9 safelisted values of 114 bytes: 1026 > 1024, so all become unsafe.
    let value = "a".repeat(114);
    let mut list = HeaderList::new();
    for _ in 0..8 {
        list.append("Accept", &value);
    }
    list.append("Content-Language", "de");
    assert!(cors_unsafe_request_header_names(&list).is_empty());
    list.append("Accept-Language", &value);
    assert_eq!(
        cors_unsafe_request_header_names(&list),
        vec![
            b"accept".to_vec(),
            b"accept-language".to_vec(),
            b"content-language".to_vec()
        ]
    );
    let list: HeaderList = [("X-B", "1"), ("x-a", "2"), ("X-A", "3"), ("Accept", "*/*")]
        .into_iter()
        .collect();
    assert_eq!(
        cors_unsafe_request_header_names(&list),
        vec![b"x-a".to_vec(), b"x-b".to_vec()]
    );
}

// ---------------------------------------------------------------------------------------------
// Headers: errors

#[test]
fn every_invalid_name_is_a_type_error() {
    let mut headers = Headers::new();
    for name in [&b""[..], b"a b", b"a:", b"\xE9", b"(x)", b"a\r\n"] {
        assert_type_error(headers.append(name, "v"), "append");
        assert_type_error(headers.set(name, "v"), "set");
        assert_type_error(headers.delete(name), "delete");
        assert_type_error(headers.get(name), "get");
        assert_type_error(headers.get_bytes(name), "get_bytes");
        assert_type_error(headers.has(name), "has");
    }
    assert!(headers.header_list().is_empty());
}

#[test]
fn every_invalid_value_is_a_type_error() {
    let mut headers = Headers::new();
    for value in [&b"a\0b"[..], b"a\rb", b"a\nb", b"\0"] {
        assert_type_error(headers.append("X", value), "append");
        assert_type_error(headers.set("X", value), "set");
    }
    assert!(headers.header_list().is_empty());
    // Surrounding whitespace is normalized away, not rejected.
    headers
        .append("X", " \t\r\nvalue\n\r\t ")
        .expect("normalized");
    assert_eq!(headers.get("x").expect("valid").as_deref(), Some("value"));
    headers.set("Y", "\n").expect("normalized to empty");
    assert_eq!(headers.get("y").expect("valid").as_deref(), Some(""));
}

#[test]
fn immutable_guard_throws_on_every_change() {
    let mut headers = Headers::with_guard(HeadersGuard::Immutable);
    assert_type_error(headers.append("Accept", "*/*"), "append");
    assert_type_error(headers.set("Accept", "*/*"), "set");
    assert_type_error(headers.delete("Accept"), "delete");
    assert_type_error(headers.append("bad name", "*/*"), "append, bad name");
    // Reading is fine.
    assert_eq!(headers.get("Accept").expect("valid name"), None);
    assert!(!headers.has("Accept").expect("valid name"));
    assert_eq!(headers.guard(), HeadersGuard::Immutable);
}

#[test]
fn fill_rejects_sequences_that_are_not_pairs() {
    for sequence in [
        vec![vec![]],
        vec![vec![b"a".to_vec()]],
        vec![vec![b"a".to_vec(), b"b".to_vec(), b"c".to_vec()]],
        vec![vec![b"a".to_vec(), b"b".to_vec()], vec![b"c".to_vec()]],
    ] {
        assert_type_error(Headers::from_init(sequence), "sequence");
    }
    assert_type_error(
        Headers::from_init(vec![vec![b"bad name".to_vec(), b"b".to_vec()]]),
        "sequence, bad name",
    );
    assert_type_error(Headers::from_init([("X", "a\nb")]), "record, bad value");
    assert_type_error(
        Headers::try_from(HeadersInit::Record(vec![(b"".to_vec(), b"v".to_vec())])),
        "record, empty name",
    );
    let headers = Headers::from_init(vec![vec![b"a".to_vec(), b"1".to_vec()]]).expect("a pair");
    assert_eq!(headers.get("A").expect("valid").as_deref(), Some("1"));
}

// ---------------------------------------------------------------------------------------------
// Headers: behaviour

#[test]
fn get_combines_and_set_cookie_stays_separate() {
    let mut headers = Headers::new();
    headers.append("Accept", "a").expect("valid");
    headers.append("ACCEPT", "b").expect("valid");
    headers.append("Set-Cookie", "x=1; Path=/").expect("valid");
    headers.append("set-cookie", "y=2, z=3").expect("valid");
    assert_eq!(
        headers.get("accept").expect("valid").as_deref(),
        Some("a, b")
    );
    assert_eq!(
        headers.get("Set-Cookie").expect("valid").as_deref(),
        Some("x=1; Path=/, y=2, z=3")
    );
    assert_eq!(headers.get_set_cookie(), ["x=1; Path=/", "y=2, z=3"]);
    assert_eq!(
        headers.get_set_cookie_bytes(),
        [
            Bytes::from_static(b"x=1; Path=/"),
            Bytes::from_static(b"y=2, z=3")
        ]
    );
    assert!(Headers::new().get_set_cookie().is_empty());
    assert_eq!(
        pairs(&headers),
        owned(&[
            ("accept", "a, b"),
            ("set-cookie", "x=1; Path=/"),
            ("set-cookie", "y=2, z=3"),
        ])
    );
}

#[test]
fn iteration_is_sorted_lowercase_and_combined() {
    let headers = Headers::from_init([
        ("X-Zed", "1"),
        ("Content-Type", "text/plain"),
        ("x-zed", "2"),
        ("A", "\u{e9}"),
        ("b", ""),
    ])
    .expect("valid");
    let expected = owned(&[
        ("a", "\u{e9}"),
        ("b", ""),
        ("content-type", "text/plain"),
        ("x-zed", "1, 2"),
    ]);
    assert_eq!(pairs(&headers), expected);
    assert_eq!(headers.entries().collect::<Vec<_>>(), expected);
    assert_eq!(
        headers.keys().collect::<Vec<_>>(),
        ["a", "b", "content-type", "x-zed"]
    );
    assert_eq!(
        headers.values().collect::<Vec<_>>(),
        ["\u{e9}", "", "text/plain", "1, 2"]
    );
    assert_eq!(headers.iter().len(), 4);
    let via_into_iter: Vec<(String, String)> = (&headers).into_iter().collect();
    assert_eq!(via_into_iter, expected);

    // Bytes are exact; the String forms are lossy UTF-8.
    let mut raw = Headers::new();
    raw.append("X", b"\xFFok").expect("valid");
    assert_eq!(
        raw.iter_bytes().collect::<Vec<_>>(),
        [("x".to_owned(), Bytes::from_static(b"\xFFok"))]
    );
    assert_eq!(
        raw.get_bytes("x").expect("valid"),
        Some(Bytes::from_static(b"\xFFok"))
    );
    assert_eq!(raw.get("x").expect("valid").as_deref(), Some("\u{FFFD}ok"));
    // The header list keeps the case and order given.
    let list: Vec<(&[u8], &[u8])> = headers.header_list().iter().collect();
    assert_eq!(list.first(), Some(&(&b"X-Zed"[..], &b"1"[..])));
    assert_eq!(list.get(2), Some(&(&b"X-Zed"[..], &b"2"[..])));
}

#[test]
fn set_delete_has() {
    let mut headers = Headers::from_init([("A", "1"), ("B", "2"), ("a", "3")]).expect("valid");
    headers.set("a", "4").expect("valid");
    assert_eq!(pairs(&headers), owned(&[("a", "4"), ("b", "2")]));
    assert!(headers.has("B").expect("valid"));
    headers.delete("b").expect("valid");
    assert!(!headers.has("B").expect("valid"));
    headers.delete("missing").expect("deleting nothing is fine");
    assert_eq!(headers.header_list().len(), 1);
}

#[test]
fn none_guard_accepts_forbidden_headers() {
    let mut headers = Headers::new();
    headers.append("Host", "example.com").expect("valid");
    headers.append("Set-Cookie", "a=1").expect("valid");
    headers.set("Sec-Fetch-Mode", "cors").expect("valid");
    assert_eq!(headers.header_list().len(), 3);
    assert_eq!(headers.guard(), HeadersGuard::None);
    assert_eq!(Headers::default().guard(), HeadersGuard::None);
}

#[test]
fn request_guard_ignores_forbidden_request_headers() {
    let mut headers = Headers::with_guard(HeadersGuard::Request);
    assert!(headers.filters_forbidden_request_headers());
    headers
        .append("Host", "example.com")
        .expect("ignored, not an error");
    headers.set("Cookie", "a=1").expect("ignored");
    headers.append("Sec-Anything", "1").expect("ignored");
    headers
        .append("X-HTTP-Method-Override", "TRACE")
        .expect("ignored");
    headers
        .append("X-HTTP-Method-Override", "PATCH")
        .expect("kept");
    headers.append("Set-Cookie", "a=1").expect("ignored");
    headers.append("Accept", "*/*").expect("kept");
    headers
        .append("Range", "bytes=0-")
        .expect("kept: only no-cors drops it");
    assert_eq!(
        pairs(&headers),
        owned(&[
            ("accept", "*/*"),
            ("range", "bytes=0-"),
            ("x-http-method-override", "PATCH"),
        ])
    );
    headers.delete("Host").expect("ignored");
    headers.delete("Accept").expect("deleted");
    assert!(!headers.has("Accept").expect("valid"));
    // Validation errors come before the guard.
    assert_type_error(headers.append("Host", "a\0"), "invalid value");
}

#[test]
fn response_guard_ignores_forbidden_response_header_names() {
    let mut headers = Headers::with_guard(HeadersGuard::Response);
    headers.append("Set-Cookie", "a=1").expect("ignored");
    headers.set("set-cookie2", "a=1").expect("ignored");
    headers.append("Host", "example.com").expect("kept");
    headers.append("Cookie", "a=1").expect("kept");
    assert_eq!(
        pairs(&headers),
        owned(&[("cookie", "a=1"), ("host", "example.com")])
    );
    assert!(headers.get_set_cookie().is_empty());
}

#[test]
fn request_no_cors_guard_keeps_only_no_cors_safelisted_headers() {
    let mut headers = Headers::with_guard(HeadersGuard::RequestNoCors);
    headers.append("Accept", "*/*").expect("kept");
    headers.append("Content-Type", "text/plain").expect("kept");
    headers
        .append("Content-Type", "application/json")
        .expect("ignored: combined value is not safelisted");
    headers.append("X-Custom", "1").expect("ignored");
    headers.append("Range", "bytes=0-").expect("ignored");
    headers.set("Content-Language", "@").expect("ignored");
    headers.set("Accept-Language", "en").expect("kept");
    assert_eq!(
        pairs(&headers),
        owned(&[
            ("accept", "*/*"),
            ("accept-language", "en"),
            ("content-type", "text/plain"),
        ])
    );

    // The combined value counts against the 128-byte limit.
    let sixty = "a".repeat(60);
    headers.append("Content-Language", &sixty).expect("kept");
    headers
        .append("Content-Language", &sixty)
        .expect("kept: 122 bytes");
    headers
        .append("Content-Language", "abcdef")
        .expect("ignored: 130 bytes");
    assert_eq!(
        headers.get("content-language").expect("valid"),
        Some(format!("{sixty}, {sixty}"))
    );

    // delete only touches no-CORS-safelisted and privileged names.
    headers.delete("X-Custom").expect("ignored");
    headers.delete("Accept").expect("deleted");
    assert!(!headers.has("Accept").expect("valid"));
    headers.delete("Range").expect("allowed, nothing to delete");
}

#[test]
fn headers_init_from_headers_uses_iteration_order() {
    let mut source = Headers::new();
    source.append("B-Name", "1").expect("valid");
    source.append("a-name", "2").expect("valid");
    source.append("b-name", "3").expect("valid");
    source.append("Set-Cookie", "s=1").expect("valid");
    source.append("Set-Cookie", "t=2").expect("valid");
    let copy = Headers::from_init(&source).expect("valid");
    let list: Vec<(&[u8], &[u8])> = copy.header_list().iter().collect();
    assert_eq!(
        list,
        [
            (&b"a-name"[..], &b"2"[..]),
            (b"b-name", b"1, 3"),
            (b"set-cookie", b"s=1"),
            (b"set-cookie", b"t=2"),
        ]
    );
    let moved = Headers::try_from(HeadersInit::from(source)).expect("valid");
    assert_eq!(pairs(&moved), pairs(&copy));
}

#[test]
fn from_iterator_skips_invalid_pairs() {
    let headers: Headers = [
        ("Good", "1"),
        ("bad name", "2"),
        ("Other", "a\nb"),
        ("good", "3"),
    ]
    .into_iter()
    .collect();
    assert_eq!(pairs(&headers), owned(&[("good", "1, 3")]));
}

#[test]
fn http_header_map_round_trip() {
    let mut map = http::HeaderMap::new();
    map.append("x-b", http::HeaderValue::from_static("1"));
    map.append("set-cookie", http::HeaderValue::from_static("a=1"));
    map.append("x-b", http::HeaderValue::from_static("2"));
    map.append("set-cookie", http::HeaderValue::from_static("b=2"));
    map.append(
        "x-a",
        http::HeaderValue::from_bytes(b" padded ").expect("valid"),
    );
    let headers = Headers::from(&map);
    assert_eq!(headers.guard(), HeadersGuard::None);
    // HeaderMap's own iteration order, values normalized.
    let list: Vec<(&[u8], &[u8])> = headers.header_list().iter().collect();
    assert_eq!(
        list,
        [
            (&b"x-b"[..], &b"1"[..]),
            (b"x-b", b"2"),
            (b"set-cookie", b"a=1"),
            (b"set-cookie", b"b=2"),
            (b"x-a", b"padded"),
        ]
    );
    let back = http::HeaderMap::try_from(&headers).expect("valid for http");
    let back_pairs: Vec<(&str, &[u8])> = back
        .iter()
        .map(|(name, value)| (name.as_str(), value.as_bytes()))
        .collect();
    assert_eq!(
        back_pairs,
        [
            ("x-b", &b"1"[..]),
            ("x-b", b"2"),
            ("set-cookie", b"a=1"),
            ("set-cookie", b"b=2"),
            ("x-a", b"padded"),
        ]
    );
    let from_owned = Headers::from(map.clone());
    assert_eq!(pairs(&from_owned), pairs(&headers));
    let init = Headers::from_init(map).expect("valid");
    assert_eq!(pairs(&init), pairs(&headers));
}

#[test]
fn http_header_map_rejects_bytes_http_does_not_allow() {
    let mut headers = Headers::new();
    headers
        .append("X", b"a\x01b")
        .expect("a valid fetch header value");
    assert_type_error(http::HeaderMap::try_from(&headers), "control byte");
    let mut headers = Headers::new();
    headers
        .append("X", b"\x7F")
        .expect("a valid fetch header value");
    assert_type_error(http::HeaderMap::try_from(headers), "DEL");
    let list: HeaderList = [("bad name", "v")].into_iter().collect();
    assert_type_error(http::HeaderMap::try_from(&list), "bad name in a raw list");
}

// ---------------------------------------------------------------------------------------------
// No panics on any input

proptest! {
    #[test]
    fn arbitrary_bytes_never_panic(
        operations in proptest::collection::vec(
            (0u8..6, proptest::collection::vec(any::<u8>(), 0..12), proptest::collection::vec(any::<u8>(), 0..40)),
            0..12,
        ),
        guard in 0u8..5,
    ) {
        let guard = match guard {
            0 => HeadersGuard::Immutable,
            1 => HeadersGuard::Request,
            2 => HeadersGuard::RequestNoCors,
            3 => HeadersGuard::Response,
            _ => HeadersGuard::None,
        };
        let mut headers = Headers::with_guard(guard);
        let mut list = HeaderList::new();
        for (operation, name, value) in &operations {
            let result = match operation {
                0 => headers.append(name, value),
                1 => headers.set(name, value),
                2 => headers.delete(name),
                3 => headers.get(name).map(drop),
                4 => headers.has(name).map(drop),
                _ => headers.get_bytes(name).map(drop),
            };
            if let Err(error) = result {
                prop_assert_eq!(error.kind(), ErrorKind::TypeError);
            }
            // Every header the object holds is valid.
            for (name, value) in headers.header_list().iter() {
                prop_assert!(is_header_name(name));
                prop_assert!(is_header_value(value));
            }
            // Raw header lists take any bytes.
            list.append(name, value);
            list.append(b"Content-Type", value);
            list.append(b"Content-Length", value);
            list.append(b"X-Content-Type-Options", value);
            let _ = is_forbidden_request_header(name, value);
            let _ = is_cors_safelisted_request_header(name, value);
            let _ = is_cors_safelisted_request_header(b"content-type", value);
            let _ = is_cors_safelisted_request_header(b"range", value);
        }
        let _ = headers.iter().count();
        let _ = headers.iter_bytes().count();
        let _ = headers.get_set_cookie();
        let _ = list.extract_length();
        let _ = list.extract_mime_type().map(|mime_type| mime_type.serialize());
        let _ = list.determine_nosniff();
        let _ = list.sort_and_combine();
        let _ = list.extract_header_list_values(b"Access-Control-Allow-Headers");
        let _ = list.get_decode_split(b"Content-Type");
        let _ = cors_unsafe_request_header_names(&list);
        let _ = http::HeaderMap::try_from(&list);
    }

    #[test]
    fn extract_a_length_and_mime_type_on_any_values(
        values in proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..30), 0..5),
    ) {
        let length: HeaderList = values.iter().map(|value| (&b"Content-Length"[..], value)).collect();
        let _ = length.extract_length();
        let content_type: HeaderList = values.iter().map(|value| (&b"Content-Type"[..], value)).collect();
        if let Some(mime_type) = content_type.extract_mime_type() {
            prop_assert_ne!(mime_type.essence(), "*/*");
        }
    }

    #[test]
    fn extract_a_length_of_a_number_is_the_number(length in any::<u64>(), copies in 1usize..4) {
        let value = vec![length.to_string(); copies].join(", ");
        let list: HeaderList = [("Content-Length", value)].into_iter().collect();
        prop_assert_eq!(list.extract_length(), Extracted::Value(length));
    }
}
