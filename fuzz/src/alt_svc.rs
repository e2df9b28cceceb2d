//! `Alt-Svc` field values (RFC 7838 §3) through `parse_alt_svc`, and what they parse to
//! through an `AltSvcCache`. The whole input is one field value.
//!
//! The parser and the cache are crate-private, and `src/net/alt_svc.rs` uses nothing of
//! the crate but `std`, `http` and `url`, so this target compiles that file itself (the one target
//! that reaches past the public API: the parser has none).
//!
//! Checked beyond "no panic": the limits (a value over 4 KiB ignored; 1 to 16
//! alternatives; protocol-ids of at most 64 bytes, hosts of at most 255; no port 0; `ma`
//! at most 2^31 seconds); a parsed value written out again parses to the same
//! alternatives; the cache gives the first `h3` alternative that is fresh, none while
//! `h3` is marked broken, the same again once it works, and none after `clear`.
#[path = "../../src/net/alt_svc.rs"]
#[allow(dead_code)]
mod parser;

use std::time::{Duration, Instant};

use parser::{AltSvc, AltSvcCache, Alternative, OriginKey};

/// Parses `data` as an `Alt-Svc` field value and checks what comes out.
pub fn alt_svc(data: &[u8]) {
    let parsed = parser::parse_alt_svc(data);
    assert_eq!(
        parsed,
        parser::parse_alt_svc(data),
        "parsing is deterministic"
    );
    if data.len() > parser::MAX_FIELD_VALUE_LEN {
        assert_eq!(parsed, None, "a value over 4 KiB is ignored");
        return;
    }
    let Some(parsed) = parsed else {
        return;
    };
    if let AltSvc::Entries(alternatives) = &parsed {
        assert!(!alternatives.is_empty() && alternatives.len() <= parser::MAX_ALTERNATIVES);
        for alternative in alternatives {
            assert!(!alternative.protocol.is_empty());
            assert!(alternative.protocol.len() <= parser::MAX_PROTOCOL_ID_LEN);
            if let Some(host) = &alternative.host {
                assert!(!host.is_empty() && host.len() <= parser::MAX_HOST_LEN);
            }
            assert_ne!(alternative.port, 0);
            assert!(alternative.max_age <= Duration::from_secs(1 << 31));
        }
        let written = serialize(alternatives);
        assert_eq!(
            parser::parse_alt_svc(written.as_bytes()).as_ref(),
            (written.len() <= parser::MAX_FIELD_VALUE_LEN).then_some(&parsed),
            "{written:?} written out again parses the same"
        );
    }
    check_cache(parsed);
}

/// Sets `parsed` in a cache and checks the lookups of `h3` after it.
fn check_cache(parsed: AltSvc) {
    let cache = AltSvcCache::new();
    let origin = OriginKey::new("https", "origin.example", 443);
    let now = Instant::now();
    // What a lookup of `h3` must give: the first `h3` alternative with a non-zero `ma` on
    // a port the origin's (443) may change to, one below 1024.
    let expected = match &parsed {
        AltSvc::Clear => None,
        AltSvc::Entries(alternatives) => alternatives
            .iter()
            .find(|alternative| {
                alternative.protocol == "h3"
                    && !alternative.max_age.is_zero()
                    && alternative.port < 1024
            })
            .map(|alternative| {
                let host = alternative.host.as_deref().unwrap_or(origin.host());
                (host.to_owned(), alternative.port)
            }),
    };
    cache.set(&origin, "", parsed.clone(), now);
    assert_eq!(cache.lookup(&origin, "", "h3", now), expected);
    assert_eq!(cache.lookup(&origin, "other", "h3", now), None);
    cache.mark_broken(&origin, "", "h3", now);
    assert_eq!(cache.lookup(&origin, "", "h3", now), None);
    cache.mark_working(&origin, "", "h3");
    assert_eq!(cache.lookup(&origin, "", "h3", now), expected);
    cache.set(&origin, "", AltSvc::Clear, now);
    assert_eq!(cache.lookup(&origin, "", "h3", now), None);
}

/// `alternatives` written out as an `Alt-Svc` field value.
fn serialize(alternatives: &[Alternative]) -> String {
    let mut value = String::new();
    for alternative in alternatives {
        if !value.is_empty() {
            value.push_str(", ");
        }
        // §3: octets not allowed in tokens, and `%`, percent-encoded in uppercase.
        for &byte in alternative.protocol.as_bytes() {
            if byte.is_ascii_alphanumeric() || b"!#$&'*+-.^_`|~".contains(&byte) {
                value.push(char::from(byte));
            } else {
                value.push_str(&format!("%{byte:02X}"));
            }
        }
        value.push_str("=\"");
        for c in alternative.host.as_deref().unwrap_or("").chars() {
            if c == '"' || c == '\\' {
                value.push('\\');
            }
            value.push(c);
        }
        value.push_str(&format!(
            ":{}\"; ma={}",
            alternative.port,
            alternative.max_age.as_secs()
        ));
        if alternative.persist {
            value.push_str("; persist=1");
        }
    }
    value
}
