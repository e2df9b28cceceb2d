//! `WWW-Authenticate` / `Proxy-Authenticate` challenges (RFC 9110 §11) through
//! `parse_challenges`, and the answer to the strongest `Digest` challenge among them
//! (RFC 7616). The input is the fields' values, one per line.
//!
//! The parser is crate-private, and `src/infra/digest.rs` uses nothing of the crate, so
//! this target compiles that file itself, as `alt_svc` does its parser's.
//!
//! Checked beyond "no panic": parsing is deterministic; the limits (fields of at most
//! 8 KiB together, 16 challenges, 16 parameters each, values of at most 1 KiB); scheme
//! and parameter names non-empty and lower case, no name twice in a challenge; the
//! strongest challenge is the strongest answerable; its answer is a valid header value,
//! counts `nc` from 1, and parses back as one `Digest` list of parameters naming the
//! challenge's realm and nonce.
#[path = "../../src/infra/digest.rs"]
#[allow(dead_code)]
mod parser;

use parser::{DigestChallenge, DigestCredentials, DigestSession};

/// Parses `data` as challenge fields, one per line, and checks what comes out.
pub fn digest_challenge(data: &[u8]) {
    let fields: Vec<&[u8]> = data.split(|&byte| byte == b'\n').collect();
    let parsed = parser::parse_challenges(fields.iter().copied());
    assert_eq!(
        parsed,
        parser::parse_challenges(fields.iter().copied()),
        "parsing is deterministic"
    );
    let total: usize = fields.iter().map(|field| field.len()).sum();
    if total > parser::MAX_FIELD_BYTES {
        assert!(parsed.is_err(), "fields over 8 KiB are refused");
        return;
    }
    let Ok(challenges) = parsed else {
        return;
    };
    assert!(challenges.len() <= parser::MAX_CHALLENGES);
    for challenge in &challenges {
        assert!(!challenge.scheme.is_empty());
        assert_eq!(challenge.scheme, challenge.scheme.to_ascii_lowercase());
        assert!(challenge.params.len() <= parser::MAX_PARAMS);
        assert!(challenge.token68.is_none() || challenge.params.is_empty());
        for (i, (name, value)) in challenge.params.iter().enumerate() {
            assert!(!name.is_empty());
            assert_eq!(*name, name.to_ascii_lowercase());
            // A value unescaped; its lossy UTF-8 may grow a byte to three.
            assert!(value.len() <= 3 * parser::MAX_PARAM_BYTES);
            assert!(
                challenge.params[..i].iter().all(|(other, _)| other != name),
                "{name} twice"
            );
        }
    }
    let Some(strongest) = DigestChallenge::strongest(&challenges) else {
        assert!(
            challenges
                .iter()
                .all(|challenge| DigestChallenge::from_challenge(challenge).is_none())
        );
        return;
    };
    for challenge in challenges
        .iter()
        .filter_map(DigestChallenge::from_challenge)
    {
        assert!(challenge.algorithm <= strongest.algorithm);
    }
    let credentials = DigestCredentials {
        username: "J\u{e4}s\u{f8}n \"Doe\"".to_owned(),
        password: "Secret, or not?".to_owned(),
    };
    let mut session = DigestSession::new(strongest.clone());
    for (nc, body) in [(1, Some(&b"a body"[..])), (2, None)] {
        let Some(value) = session.authorize(&credentials, "POST", "/a?b=c", body) else {
            // Only `auth-int`, and a body not in memory.
            assert!(body.is_none() && strongest.qop_auth_int && !strongest.qop_auth);
            return;
        };
        assert!(http::HeaderValue::from_str(&value).is_ok(), "{value:?}");
        if strongest.qop_auth || strongest.qop_auth_int {
            assert!(value.contains(&format!("nc={nc:08x}")), "{value}");
        }
        let answer = parser::parse_challenges([value.as_bytes()]).expect("the answer parses");
        assert_eq!(answer.len(), 1, "{value}");
        assert_eq!(answer[0].scheme, "digest");
        assert_eq!(answer[0].param("realm"), Some(strongest.realm.as_str()));
        assert_eq!(answer[0].param("nonce"), Some(strongest.nonce.as_str()));
    }
}
