//! The public spec checks of the fetch algorithm: bad ports, referrer policy, Subresource
//! Integrity, potentially trustworthy URLs and the CORS-preflight cache.

use url::Url;
use whatwg_fetch::fetch::bad_port::is_bad_port;
use whatwg_fetch::fetch::checks::{
    is_potentially_trustworthy_origin, is_potentially_trustworthy_url, is_script_like,
};
use whatwg_fetch::fetch::cors::{CorsPreflightCache, MAX_AGE_LIMIT};
use whatwg_fetch::fetch::integrity::{
    HashAlgorithm, IntegrityMetadata, apply_algorithm_to_bytes, bytes_match_metadata_list,
    get_the_strongest_metadata, parse_metadata,
};
use whatwg_fetch::fetch::referrer::{
    determine_referrer_from_source, parse_referrer_policy_from_header,
    strip_url_for_use_as_a_referrer,
};
use whatwg_fetch::headers::HeaderList;
use whatwg_fetch::{Environment, ReferrerPolicy, Request, RequestDestination, RequestInit};

fn url(input: &str) -> Url {
    Url::parse(input).unwrap()
}

// Bad ports.

#[test]
fn every_listed_port_is_bad() {
    let listed: [u16; 83] = [
        0, 1, 7, 9, 11, 13, 15, 17, 19, 20, 21, 22, 23, 25, 37, 42, 43, 53, 69, 77, 79, 87, 95,
        101, 102, 103, 104, 109, 110, 111, 113, 115, 117, 119, 123, 135, 137, 139, 143, 161, 179,
        389, 427, 465, 512, 513, 514, 515, 526, 530, 531, 532, 540, 548, 554, 556, 563, 587, 601,
        636, 989, 990, 993, 995, 1719, 1720, 1723, 2049, 3659, 4045, 4190, 5060, 5061, 6000, 6566,
        6665, 6666, 6667, 6668, 6669, 6679, 6697, 10080,
    ];
    for port in listed {
        assert!(is_bad_port(port), "port {port}");
    }
    let bad = (0..=u16::MAX).filter(|&port| is_bad_port(port)).count();
    assert_eq!(bad, listed.len(), "no port outside the table is bad");
}

#[test]
fn common_ports_are_allowed() {
    for port in [80, 443, 3000, 5000, 8000, 8080, 8443, 6670, 10081, 65535] {
        assert!(!is_bad_port(port), "port {port}");
    }
}

// Referrer policy.

const PAGE: &str = "https://user:pass@a.example/dir/page.html?q=1#frag";
const FULL: &str = "https://a.example/dir/page.html?q=1";
const ORIGIN: &str = "https://a.example/";

fn referrer(policy: ReferrerPolicy, target: &str) -> Option<String> {
    determine_referrer_from_source(policy, &url(PAGE), &url(target)).map(String::from)
}

#[test]
fn every_referrer_policy_for_same_origin_cross_origin_and_downgrade() {
    use ReferrerPolicy::*;
    let targets = [
        "https://a.example/other",
        "https://b.example/x",
        "http://b.example/x",
        "http://a.example/x",
    ];
    let cases: [(ReferrerPolicy, [Option<&str>; 4]); 8] = [
        (NoReferrer, [None, None, None, None]),
        (
            NoReferrerWhenDowngrade,
            [Some(FULL), Some(FULL), None, None],
        ),
        (SameOrigin, [Some(FULL), None, None, None]),
        (
            Origin,
            [Some(ORIGIN), Some(ORIGIN), Some(ORIGIN), Some(ORIGIN)],
        ),
        (StrictOrigin, [Some(ORIGIN), Some(ORIGIN), None, None]),
        (
            OriginWhenCrossOrigin,
            [Some(FULL), Some(ORIGIN), Some(ORIGIN), Some(ORIGIN)],
        ),
        (
            StrictOriginWhenCrossOrigin,
            [Some(FULL), Some(ORIGIN), None, None],
        ),
        (UnsafeUrl, [Some(FULL), Some(FULL), Some(FULL), Some(FULL)]),
    ];
    for (policy, expected) in cases {
        for (target, expected) in targets.iter().zip(expected) {
            assert_eq!(
                referrer(policy, target).as_deref(),
                expected,
                "{policy} to {target}"
            );
        }
    }
}

#[test]
fn downgrade_means_trustworthy_to_untrustworthy() {
    // http to http is no downgrade; nor is https to a loopback http server.
    let http_page = url("http://a.example/p");
    let to = |target: &str, policy| {
        determine_referrer_from_source(policy, &http_page, &url(target)).map(String::from)
    };
    assert_eq!(
        to("http://b.example/", ReferrerPolicy::StrictOrigin).as_deref(),
        Some("http://a.example/")
    );
    assert_eq!(
        to("http://b.example/", ReferrerPolicy::NoReferrerWhenDowngrade).as_deref(),
        Some("http://a.example/p")
    );
    assert_eq!(
        referrer(ReferrerPolicy::StrictOrigin, "http://127.0.0.1:8000/").as_deref(),
        Some(ORIGIN)
    );
    assert_eq!(
        referrer(ReferrerPolicy::StrictOrigin, "http://localhost/").as_deref(),
        Some(ORIGIN)
    );
}

#[test]
fn stripping_for_use_as_a_referrer() {
    let stripped = |input: &str, origin_only: bool| {
        strip_url_for_use_as_a_referrer(&url(input), origin_only).map(String::from)
    };
    assert_eq!(
        stripped("https://u:p@a.example:8443/x/y?z#f", false).as_deref(),
        Some("https://a.example:8443/x/y?z")
    );
    assert_eq!(
        stripped("https://u:p@a.example:8443/x/y?z#f", true).as_deref(),
        Some("https://a.example:8443/")
    );
    assert_eq!(
        stripped("file:///home/me/page.html#x", false).as_deref(),
        Some("file:///home/me/page.html")
    );
    for local in [
        "about:blank",
        "about:client",
        "blob:https://a.example/id",
        "data:,hi",
    ] {
        assert_eq!(stripped(local, false), None, "{local}");
        assert_eq!(stripped(local, true), None, "{local}");
    }
}

#[test]
fn referrer_over_4096_bytes_becomes_its_origin() {
    let base = "https://a.example/";
    let exactly = format!("{base}?{}", "q".repeat(4096 - base.len() - 1));
    assert_eq!(exactly.len(), 4096);
    let over = format!("{exactly}q");
    let send = |source: &str, policy| {
        determine_referrer_from_source(policy, &url(source), &url("https://a.example/x"))
            .map(String::from)
    };
    assert_eq!(
        send(&exactly, ReferrerPolicy::UnsafeUrl).as_deref(),
        Some(exactly.as_str())
    );
    assert_eq!(
        send(&over, ReferrerPolicy::UnsafeUrl).as_deref(),
        Some(base)
    );
    assert_eq!(
        send(&over, ReferrerPolicy::StrictOriginWhenCrossOrigin).as_deref(),
        Some(base)
    );
    // Credentials and the fragment are stripped before the length is measured.
    let with_extras = format!("https://user:password@a.example/?{}#frag", "q".repeat(4077));
    assert_eq!(
        send(&with_extras, ReferrerPolicy::UnsafeUrl).as_deref(),
        Some(exactly.as_str())
    );
}

#[test]
fn referrer_policy_header_takes_the_last_known_token() {
    let parse = |values: &[&str]| {
        let list: HeaderList = values.iter().map(|v| ("Referrer-Policy", *v)).collect();
        parse_referrer_policy_from_header(&list)
    };
    assert_eq!(parse(&[]), ReferrerPolicy::Empty);
    assert_eq!(parse(&["unsafe-url"]), ReferrerPolicy::UnsafeUrl);
    assert_eq!(
        parse(&["unsafe-url, no-referrer"]),
        ReferrerPolicy::NoReferrer
    );
    assert_eq!(
        parse(&["no-referrer", "origin-when-cross-origin"]),
        ReferrerPolicy::OriginWhenCrossOrigin
    );
    // Unknown tokens are skipped so new policies can fall back to older ones.
    assert_eq!(
        parse(&["strict-origin, some-future-policy"]),
        ReferrerPolicy::StrictOrigin
    );
    assert_eq!(parse(&["some-future-policy"]), ReferrerPolicy::Empty);
    // A value outside the header's grammar is ignored whole.
    assert_eq!(parse(&["origin, no referrer"]), ReferrerPolicy::Empty);
}

#[test]
fn environment_referrer_policy_defaults_to_strict_origin_when_cross_origin() {
    assert_eq!(
        Environment::server().referrer_policy(),
        ReferrerPolicy::StrictOriginWhenCrossOrigin
    );
    let page = Environment::browser(url("https://a.example/"))
        .with_referrer_policy(ReferrerPolicy::NoReferrer);
    assert_eq!(page.referrer_policy(), ReferrerPolicy::NoReferrer);
}

// Potentially trustworthy URLs.

#[test]
fn potentially_trustworthy() {
    assert!(is_potentially_trustworthy_url(&url("https://a.example/")));
    assert!(is_potentially_trustworthy_url(&url("http://127.0.0.53/")));
    assert!(is_potentially_trustworthy_url(&url("http://[::1]:8080/")));
    assert!(is_potentially_trustworthy_url(&url("http://x.localhost/")));
    assert!(is_potentially_trustworthy_url(&url("about:srcdoc")));
    assert!(!is_potentially_trustworthy_url(&url("http://a.example/")));
    assert!(!is_potentially_trustworthy_url(&url("about:client")));
    assert!(is_potentially_trustworthy_origin(
        &url("wss://a.example/").origin()
    ));
    assert!(!is_potentially_trustworthy_origin(&url("data:,x").origin()));
}

#[test]
fn script_like_destinations() {
    for destination in [
        RequestDestination::Script,
        RequestDestination::Worker,
        RequestDestination::SharedWorker,
        RequestDestination::AudioWorklet,
        RequestDestination::PaintWorklet,
    ] {
        assert!(is_script_like(destination), "{destination:?}");
    }
    for destination in [
        RequestDestination::Empty,
        RequestDestination::Style,
        RequestDestination::Xslt,
        RequestDestination::Image,
        RequestDestination::Document,
    ] {
        assert!(!is_script_like(destination), "{destination:?}");
    }
}

// Subresource Integrity.

const SCRIPT: &[u8] = b"alert('Hello, world.');";
const SHA256: &str = "qznLcsROx4GACP2dm0UCKCzCG+HiZ1guq6ZZDob/Tng=";
const SHA384: &str = "H8BRh8j48O9oYatfu5AZzq6A9RINhZO5H16dQZngK7T62em8MUt1FLm52t+eX6xO";
const SHA512: &str =
    "Q2bFTOhEALkN8hOms2FKTDLy7eugP2zFZ1T8LCvX42Fp3WoNr3bjZSAHeOsHrbV1Fu9/A0EzCinRE7Af1ofPrw==";

#[test]
fn digests_of_the_spec_example_script() {
    assert_eq!(
        apply_algorithm_to_bytes(HashAlgorithm::Sha256, SCRIPT),
        SHA256
    );
    assert_eq!(
        apply_algorithm_to_bytes(HashAlgorithm::Sha384, SCRIPT),
        SHA384
    );
    assert_eq!(
        apply_algorithm_to_bytes(HashAlgorithm::Sha512, SCRIPT),
        SHA512
    );
}

#[test]
fn each_algorithm_matches_its_digest() {
    for metadata in [
        format!("sha256-{SHA256}"),
        format!("sha384-{SHA384}"),
        format!("sha512-{SHA512}"),
        format!("SHA384-{SHA384}"),
        format!("  sha384-{SHA384}\n"),
        format!("sha384-{SHA384}?some-option"),
        format!("sha384-{SHA384}?opt1?opt2"),
    ] {
        assert!(bytes_match_metadata_list(SCRIPT, &metadata), "{metadata}");
        assert!(
            !bytes_match_metadata_list(b"alert('Goodbye');", &metadata),
            "{metadata}"
        );
    }
}

#[test]
fn base64url_digests_match_with_or_without_padding() {
    let url_safe = SHA256.replace('+', "-").replace('/', "_");
    assert!(bytes_match_metadata_list(
        SCRIPT,
        &format!("sha256-{url_safe}")
    ));
    let unpadded = url_safe.trim_end_matches('=');
    assert!(bytes_match_metadata_list(
        SCRIPT,
        &format!("sha256-{unpadded}")
    ));
    let unpadded = SHA512.trim_end_matches('=');
    assert!(bytes_match_metadata_list(
        SCRIPT,
        &format!("sha512-{unpadded}")
    ));
}

#[test]
fn strongest_algorithm_wins() {
    // A wrong SHA-256 does not matter next to a right SHA-512 …
    let wrong256 = "sha256-AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA=";
    assert!(bytes_match_metadata_list(
        SCRIPT,
        &format!("{wrong256} sha512-{SHA512}")
    ));
    // … but a right SHA-256 does not rescue a wrong SHA-384.
    assert!(!bytes_match_metadata_list(
        SCRIPT,
        &format!("sha256-{SHA256} sha384-{SHA512}")
    ));
    // Any of several digests of the strongest algorithm may match.
    assert!(bytes_match_metadata_list(
        SCRIPT,
        &format!("sha384-{} sha384-{SHA384}", SHA384.to_lowercase())
    ));
    let parsed = parse_metadata(&format!("sha512-a sha256-{SHA256} sha512-b sha384-c"));
    let strongest = get_the_strongest_metadata(&parsed);
    assert_eq!(
        strongest,
        [
            &IntegrityMetadata {
                algorithm: HashAlgorithm::Sha512,
                value: "a".into()
            },
            &IntegrityMetadata {
                algorithm: HashAlgorithm::Sha512,
                value: "b".into()
            },
        ]
    );
}

#[test]
fn digests_are_case_sensitive() {
    assert!(!bytes_match_metadata_list(
        SCRIPT,
        &format!("sha384-{}", SHA384.to_uppercase())
    ));
}

#[test]
fn empty_or_unknown_metadata_matches_anything() {
    for metadata in [
        "",
        "   ",
        "md5-xyz",
        "sha1-abc sha-256-def",
        "sha256",
        "not metadata at all",
    ] {
        let parsed = parse_metadata(metadata);
        let matches = bytes_match_metadata_list(b"anything", metadata);
        // An algorithm with no value parses but matches nothing.
        assert_eq!(matches, parsed.is_empty(), "{metadata:?}");
    }
    assert!(bytes_match_metadata_list(b"anything", "md5-xyz sha1-abc"));
    assert!(!bytes_match_metadata_list(b"anything", "sha256"));
}

#[test]
fn malformed_tokens_are_ignored() {
    // Tokens whose algorithm is not known are skipped, and the rest still decides.
    let metadata = format!("sha-384-x ?sha256 -sha512 sha384-{SHA384} md5-{SHA256}");
    assert_eq!(parse_metadata(&metadata).len(), 1);
    assert!(bytes_match_metadata_list(SCRIPT, &metadata));
    // A digest that is not base64 never matches.
    assert!(!bytes_match_metadata_list(SCRIPT, "sha384-!!!!"));
    assert!(!bytes_match_metadata_list(
        SCRIPT,
        &format!("sha384-{SHA384}-extra")
    ));
}

// CORS-preflight cache.

#[test]
fn empty_preflight_cache_matches_nothing() {
    let cache = CorsPreflightCache::new();
    let request = Request::new("https://b.example/api", RequestInit::default()).unwrap();
    assert!(cache.is_empty());
    assert!(!cache.method_cache_entry_match("GET", &request));
    assert!(!cache.header_name_cache_entry_match(b"x-custom", &request));
    cache.clear_cache_entries(&request);
    cache.clear();
    assert_eq!(cache.len(), 0);
    assert_eq!(MAX_AGE_LIMIT, 7200);
}

#[test]
fn preflight_cache_is_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<CorsPreflightCache>();
}
