//! `headers`: [`Headers`] with arbitrary names and values under each guard, the header
//! list algorithms below it, and the round trip through [`http::HeaderMap`].
//!
//! Binary input: a guard byte (see [`GUARDS`]), then operations, each an op byte and
//! two byte strings (a length byte, then the bytes): a name and a value. The op byte modulo
//! 8: append, set, delete, get/has, `getSetCookie()`, iterate, `HeaderMap` round trip,
//! header list queries.
//!
//! Checked, under guard "none" (the others may drop a header on purpose): what `append`
//! accepts is then there with its normalized value; what `set` accepts is then the only
//! value; what `delete` accepts is then gone. Under every guard: iteration gives valid,
//! lowercase, sorted names and values without NUL, CR or LF; a conversion to `HeaderMap` and back
//! iterates the same; an immutable guard changes nothing.

use bytes::Bytes;
use whatwg_fetch::headers::{
    HeadersGuard, get_decode_and_split_header_value, is_header_name, normalize_header_value,
};
use whatwg_fetch::{Headers, HeadersInit};

use crate::{MAX_INPUT, Reader};

const GUARDS: [HeadersGuard; 5] = [
    HeadersGuard::None,
    HeadersGuard::Request,
    HeadersGuard::RequestNoCors,
    HeadersGuard::Response,
    HeadersGuard::Immutable,
];

fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    needle.is_empty()
        || haystack
            .windows(needle.len())
            .any(|window| window == needle)
}

fn check_iteration(headers: &Headers) {
    let pairs: Vec<(String, Bytes)> = headers.iter_bytes().collect();
    for pair in pairs.windows(2) {
        if let [(a, _), (b, _)] = pair {
            assert!(a <= b, "names out of order: {a:?} before {b:?}");
            assert!(a != b || a == "set-cookie", "{a:?} not combined");
        }
    }
    for (name, value) in &pairs {
        assert!(
            is_header_name(name.as_bytes()),
            "iterated an invalid name {name:?}"
        );
        assert!(
            !name.bytes().any(|b| b.is_ascii_uppercase()),
            "name {name:?} not lowercase"
        );
        // A combined value may end in `, ` (a value, then an empty one), so it need not be
        // a header value; it never holds the bytes no header value holds.
        assert!(
            !value.iter().any(|b| matches!(b, b'\0' | b'\r' | b'\n')),
            "iterated a value with NUL, CR or LF: {value:?}"
        );
    }
    assert_eq!(headers.iter().len(), pairs.len());
    assert_eq!(headers.keys().count(), pairs.len());
}

/// `pairs` as `new Headers(headers)` makes them: each combined value appended, and so
/// normalized (`a` and `` combine to `a, `, which becomes `a,`).
fn renormalized(pairs: &[(String, Bytes)]) -> Vec<(String, Bytes)> {
    pairs
        .iter()
        .map(|(name, value)| {
            let value = Bytes::copy_from_slice(normalize_header_value(value));
            (name.clone(), value)
        })
        .collect()
}

fn check_header_map(headers: &Headers) {
    let Ok(map) = http::HeaderMap::try_from(headers) else {
        return;
    };
    let back = Headers::from(&map);
    let before: Vec<(String, Bytes)> = headers.iter_bytes().collect();
    let after: Vec<(String, Bytes)> = back.iter_bytes().collect();
    assert_eq!(before, after, "headers change through http::HeaderMap");
    let again = Headers::from_init(HeadersInit::from(&map)).expect("headers from a HeaderMap");
    let again: Vec<(String, Bytes)> = again.iter_bytes().collect();
    assert_eq!(
        renormalized(&before),
        again,
        "headers change through HeadersInit::from(HeaderMap)"
    );
}

fn query_header_list(headers: &Headers, name: &[u8], value: &[u8]) {
    let list = headers.header_list();
    let _ = list.get_decode_split(name);
    let _ = list.extract_header_list_values(name);
    let _ = list.extract_length();
    if let Some(mime) = list.extract_mime_type() {
        let _ = mime.serialize();
    }
    let _ = list.determine_nosniff();
    let _ = list.sort_and_combine();
    let _ = get_decode_and_split_header_value(value);
    let mut copy = list.clone();
    copy.combine(name, value);
    copy.set(name, value);
    copy.delete(name);
    assert!(!copy.contains(name), "a deleted name is still there");
}

/// The `headers` target.
pub fn headers(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let mut reader = Reader::new(data);
    let guard = GUARDS
        .get(usize::from(reader.byte()) % GUARDS.len())
        .copied()
        .unwrap_or_default();
    let mut headers = Headers::with_guard(guard);
    let checks = guard == HeadersGuard::None;
    while !reader.is_empty() {
        let op = reader.byte() % 8;
        let name = reader.string();
        let value = reader.string();
        let before: Vec<(String, Bytes)> = headers.iter_bytes().collect();
        match op {
            0 => {
                if headers.append(name, value).is_ok() && checks {
                    let got = headers.get_bytes(name).ok().flatten().unwrap_or_default();
                    assert!(
                        contains(&got, normalize_header_value(value)),
                        "appended {value:?} to {name:?} but got {got:?}"
                    );
                }
            }
            1 => {
                if headers.set(name, value).is_ok() && checks {
                    let got = headers.get_bytes(name).ok().flatten();
                    assert_eq!(
                        got.as_deref(),
                        Some(normalize_header_value(value)),
                        "set {name:?} but get differs"
                    );
                }
            }
            2 => {
                if headers.delete(name).is_ok() && checks {
                    assert_eq!(
                        headers.has(name).ok(),
                        Some(false),
                        "deleted {name:?} is still there"
                    );
                }
            }
            3 => {
                let got = headers.get_bytes(name);
                let has = headers.has(name);
                assert_eq!(got.is_ok(), is_header_name(name));
                if let (Ok(got), Ok(has)) = (got, has) {
                    assert_eq!(got.is_some(), has, "get and has disagree on {name:?}");
                }
                let _ = headers.get(name);
            }
            4 => {
                let cookies = headers.get_set_cookie_bytes();
                assert_eq!(cookies.len(), headers.get_set_cookie().len());
            }
            5 => check_iteration(&headers),
            6 => check_header_map(&headers),
            _ => query_header_list(&headers, name, value),
        }
        if guard == HeadersGuard::Immutable {
            let after: Vec<(String, Bytes)> = headers.iter_bytes().collect();
            assert_eq!(before, after, "immutable headers changed");
        }
    }
    check_iteration(&headers);
    check_header_map(&headers);
    let clone = headers.clone();
    let copied = Headers::from_init(HeadersInit::from(&clone));
    if let Ok(copied) = copied {
        if guard == HeadersGuard::None {
            let a: Vec<(String, Bytes)> = headers.iter_bytes().collect();
            let b: Vec<(String, Bytes)> = copied.iter_bytes().collect();
            assert_eq!(renormalized(&a), b, "a copy through HeadersInit differs");
        }
    }
}
