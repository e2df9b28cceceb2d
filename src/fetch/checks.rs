//! The response checks main fetch and HTTP fetch run: [nosniff](https://fetch.spec.whatwg.org/#x-content-type-options-header)
//! and [MIME type](https://fetch.spec.whatwg.org/#should-response-to-request-be-blocked-due-to-mime-type?)
//! blocking, the [`Cross-Origin-Resource-Policy`](https://fetch.spec.whatwg.org/#cross-origin-resource-policy-header)
//! check, and the helpers they and the referrer rules need from HTML (same site) and
//! [Secure Contexts](https://w3c.github.io/webappsec-secure-contexts/) (potentially
//! trustworthy URLs).

use std::net::IpAddr;

use url::{Host, Origin, Url};

use crate::environment::Environment;
use crate::request::{Request, RequestDestination};
use crate::response::Response;

/// Whether `destination` is [script-like](https://fetch.spec.whatwg.org/#request-destination-script-like):
/// `audioworklet`, `paintworklet`, `script`, `serviceworker`, `sharedworker` or `worker`.
/// (This crate has no `serviceworker` destination.)
pub(crate) fn is_script_like(destination: RequestDestination) -> bool {
    matches!(
        destination,
        RequestDestination::AudioWorklet
            | RequestDestination::PaintWorklet
            | RequestDestination::Script
            | RequestDestination::SharedWorker
            | RequestDestination::Worker
    )
}

/// [Should response to request be blocked due to nosniff?](https://fetch.spec.whatwg.org/#should-response-to-request-be-blocked-due-to-nosniff?)
/// True for **blocked**: the response says `X-Content-Type-Options: nosniff` and its MIME type
/// is not JavaScript for a script-like destination, or not `text/css` for `style`.
pub(crate) fn should_response_be_blocked_due_to_nosniff(
    response: &Response,
    request: &Request,
) -> bool {
    // Step 3. Let destination be request's destination.
    let destination = request.destination;
    // Only a script-like or "style" destination can be blocked (steps 4 and 5): skip
    // reading `X-Content-Type-Options` and parsing the MIME type for any other.
    if !is_script_like(destination) && destination != RequestDestination::Style {
        return false;
    }
    let header_list = response.headers.header_list();
    // Step 1. If determine nosniff with response's header list is false, then return allowed.
    if !header_list.determine_nosniff() {
        return false;
    }
    // Step 2. Let mimeType be the result of extracting a MIME type from response's header
    // list.
    let mime_type = header_list.extract_mime_type();
    // Step 4. If destination is script-like and mimeType is failure or is not a JavaScript
    // MIME type, then return blocked.
    if is_script_like(destination)
        && mime_type
            .as_ref()
            .is_none_or(|mime_type| !mime_type.is_javascript())
    {
        return true;
    }
    // Step 5. If destination is "style" and mimeType is failure or its essence is not
    // "text/css", then return blocked.
    if destination == RequestDestination::Style
        && mime_type
            .as_ref()
            .is_none_or(|mime_type| mime_type.essence() != "text/css")
    {
        return true;
    }
    // Step 6. Return allowed.
    false
}

/// [Should response to request be blocked due to its MIME type?](https://fetch.spec.whatwg.org/#should-response-to-request-be-blocked-due-to-mime-type?)
/// True for **blocked**: a script-like destination given audio, image, video or CSV.
pub(crate) fn should_response_be_blocked_due_to_mime_type(
    response: &Response,
    request: &Request,
) -> bool {
    // Step 3. Let destination be request's destination.
    let destination = request.destination;
    // Only a script-like destination can be blocked (step 4): skip parsing the MIME type
    // for any other.
    if !is_script_like(destination) {
        return false;
    }
    // Step 1. Let mimeType be the result of extracting a MIME type from response's header
    // list.
    // Step 2. If mimeType is failure, then return allowed.
    let Some(mime_type) = response.headers.header_list().extract_mime_type() else {
        return false;
    };
    // Step 4. If destination is script-like and one of the following is true, then return
    // blocked: mimeType's essence starts with "audio/", "image/", or "video/"; mimeType's
    // essence is "text/csv".
    let essence = mime_type.essence();
    if is_script_like(destination)
        && (essence.starts_with("audio/")
            || essence.starts_with("image/")
            || essence.starts_with("video/")
            || essence == "text/csv")
    {
        return true;
    }
    // Step 5. Return allowed.
    false
}

/// The policies of an [embedder policy value](https://html.spec.whatwg.org/multipage/browsers.html#embedder-policy-value).
///
/// No embedder policy can be configured yet, so only `unsafe-none` is ever used outside
/// tests; the other values keep the check's steps whole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(dead_code)]
pub(crate) enum EmbedderPolicyValue {
    /// `unsafe-none`: the default.
    UnsafeNone,
    /// `require-corp`.
    RequireCorp,
    /// `credentialless`.
    Credentialless,
}

/// The [cross-origin resource policy check](https://fetch.spec.whatwg.org/#cross-origin-resource-policy-check):
/// true for **allowed**, false for **blocked**.
///
/// `origin` is the request's origin, `environment` its client, `destination` its destination
/// and `response` the internal response.
///
/// DEVIATION: environments have no embedder policy here, so it is always `unsafe-none` with
/// no report-only value, and no violation reports are queued; the check comes down to one
/// internal check with `unsafe-none`.
pub(crate) fn cross_origin_resource_policy_check(
    origin: &Origin,
    environment: &Environment,
    destination: RequestDestination,
    response: &Response,
    for_navigation: bool,
) -> bool {
    // Step 1. Set forNavigation to false if it is not given.
    // Step 2. Let embedderPolicy be settingsObject's policy container's embedder policy.
    // (The settings object and the destination would only be needed for reports.)
    let _ = (environment, destination);
    let embedder_policy_value = EmbedderPolicyValue::UnsafeNone;
    // Step 3. If the cross-origin resource policy internal check with origin, "unsafe-none",
    // response, and forNavigation returns blocked, then return blocked.
    if !cross_origin_resource_policy_internal_check(
        origin,
        EmbedderPolicyValue::UnsafeNone,
        response,
        for_navigation,
    ) {
        return false;
    }
    // Step 4. If the cross-origin resource policy internal check with origin, embedderPolicy's
    // report only value, response, and forNavigation returns blocked, then queue a
    // cross-origin embedder policy CORP violation report with response, settingsObject,
    // destination, and true.
    // (No report-only value, no reporting.)
    // Step 5. If the cross-origin resource policy internal check with origin, embedderPolicy's
    // value, response, and forNavigation returns allowed, then return allowed.
    if cross_origin_resource_policy_internal_check(
        origin,
        embedder_policy_value,
        response,
        for_navigation,
    ) {
        return true;
    }
    // Step 6. Queue a cross-origin embedder policy CORP violation report with response,
    // settingsObject, destination, and false.
    // (No reporting.)
    // Step 7. Return blocked.
    false
}

/// The [cross-origin resource policy internal check](https://fetch.spec.whatwg.org/#cross-origin-resource-policy-internal-check):
/// true for **allowed**.
pub(crate) fn cross_origin_resource_policy_internal_check(
    origin: &Origin,
    embedder_policy_value: EmbedderPolicyValue,
    response: &Response,
    for_navigation: bool,
) -> bool {
    // Step 1. If forNavigation is true and embedderPolicyValue is "unsafe-none", then return
    // allowed.
    if for_navigation && embedder_policy_value == EmbedderPolicyValue::UnsafeNone {
        return true;
    }
    // Step 2. Let policy be the result of getting `Cross-Origin-Resource-Policy` from
    // response's header list.
    let policy = response
        .headers
        .header_list()
        .get(b"Cross-Origin-Resource-Policy");
    // Step 3. If policy is neither `same-origin`, `same-site`, nor `cross-origin`, then set
    // policy to null.
    let mut policy: Option<&[u8]> = policy.as_deref().and_then(|policy| {
        [&b"same-origin"[..], b"same-site", b"cross-origin"]
            .into_iter()
            .find(|known| *known == policy)
    });
    // Step 4. If policy is null, then switch on embedderPolicyValue:
    if policy.is_none() {
        match embedder_policy_value {
            // "unsafe-none": Do nothing.
            EmbedderPolicyValue::UnsafeNone => {}
            // "credentialless": Set policy to `same-origin` if response's
            // request-includes-credentials is true, or forNavigation is true.
            EmbedderPolicyValue::Credentialless => {
                if response.request_includes_credentials || for_navigation {
                    policy = Some(b"same-origin");
                }
            }
            // "require-corp": Set policy to `same-origin`.
            EmbedderPolicyValue::RequireCorp => policy = Some(b"same-origin"),
        }
    }
    // The response's URL: the last URL of its URL list, if any.
    let response_url = response.url_list.last();
    // Step 5. Switch on policy:
    match policy {
        // null, `cross-origin`: Return allowed.
        None | Some(b"cross-origin") => true,
        // `same-origin`: If origin is same origin with response's URL's origin, then return
        // allowed. Otherwise, return blocked.
        Some(b"same-origin") => response_url.is_some_and(|url| *origin == url.origin()),
        // `same-site`: If all of the following are true — origin is schemelessly same site
        // with response's URL's origin; origin's scheme is "https" or response's URL's scheme
        // is not "https" — then return allowed. Otherwise, return blocked.
        Some(_) => response_url.is_some_and(|url| {
            is_schemelessly_same_site(origin, &url.origin())
                && (origin_scheme(origin) == Some("https") || url.scheme() != "https")
        }),
    }
}

/// The scheme of a tuple origin.
pub(crate) fn origin_scheme(origin: &Origin) -> Option<&str> {
    match origin {
        Origin::Tuple(scheme, _, _) => Some(scheme),
        Origin::Opaque(_) => None,
    }
}

/// The [registrable domain](https://url.spec.whatwg.org/#host-registrable-domain) of `host`:
/// its public suffix on the [Public Suffix List](https://publicsuffix.org/) (compiled in, from
/// the `psl` crate) and the label before it; `None` for an IP address, an opaque host, or a
/// host that is itself a public suffix.
pub(crate) fn registrable_domain(host: &Host<String>) -> Option<String> {
    // Step 1. If host's public suffix is null or host's public suffix equals host, then
    // return null. (The public suffix of a host that is not a domain is null; `psl` returns
    // no registrable domain when the host is its public suffix.)
    let Host::Domain(domain) = host else {
        return None;
    };
    // Step 2. Let trailingDot be "." if host ends with "."; otherwise the empty string.
    // Step 3. Let registrableDomain be the registrable domain determined by running the
    // Public Suffix List algorithm with host as domain.
    // Step 4. Assert: registrableDomain is an ASCII string that ends with trailingDot.
    // (`psl` keeps the trailing dot of a fully qualified host on the result. Hosts are
    // lowercase and IDNA-encoded by the URL parser, as the list's lookup expects.)
    let registrable_domain = psl::domain(domain.as_bytes())?;
    let registrable_domain = std::str::from_utf8(registrable_domain.as_bytes()).ok()?;
    debug_assert_eq!(
        registrable_domain.ends_with('.'),
        domain.ends_with('.'),
        "the registrable domain of {domain:?} keeps its trailing dot"
    );
    // Step 5. Return registrableDomain.
    Some(registrable_domain.to_owned())
}

/// Whether two origins are [schemelessly same site](https://html.spec.whatwg.org/multipage/browsers.html#schemelessly-same-site).
pub(crate) fn is_schemelessly_same_site(a: &Origin, b: &Origin) -> bool {
    match (a, b) {
        // Step 1. If A and B are the same opaque origin, then return true.
        (Origin::Opaque(_), Origin::Opaque(_)) => a == b,
        // Step 2. If A and B are both tuple origins, then:
        (Origin::Tuple(_, host_a, _), Origin::Tuple(_, host_b, _)) => {
            // Step 2.1. Let hostA be A's host, and let hostB be B's host.
            // Step 2.2. If hostA equals hostB and hostA's registrable domain is null, then
            // return true.
            // Step 2.3. If hostA's registrable domain equals hostB's registrable domain and is
            // non-null, then return true.
            match registrable_domain(host_a) {
                None => host_a == host_b,
                Some(domain) => registrable_domain(host_b).as_ref() == Some(&domain),
            }
        }
        // Step 3. Return false.
        _ => false,
    }
}

/// Whether two origins are [same site](https://html.spec.whatwg.org/multipage/browsers.html#same-site).
pub(crate) fn is_same_site(a: &Origin, b: &Origin) -> bool {
    match (a, b) {
        // Step 1. If A and B are the same opaque origin, then return true.
        (Origin::Opaque(_), Origin::Opaque(_)) => a == b,
        // Step 2. If A and B are both tuple origins, then: if A's scheme is not B's scheme,
        // return false; if A and B are schemelessly same site, return true.
        (Origin::Tuple(scheme_a, _, _), Origin::Tuple(scheme_b, _, _)) => {
            scheme_a == scheme_b && is_schemelessly_same_site(a, b)
        }
        // Step 3. Return false.
        _ => false,
    }
}

/// [Is url potentially trustworthy?](https://w3c.github.io/webappsec-secure-contexts/#potentially-trustworthy-url)
pub(crate) fn is_potentially_trustworthy_url(url: &Url) -> bool {
    // Step 1. If url is "about:blank" or "about:srcdoc", return "Potentially Trustworthy".
    if url.scheme() == "about"
        && url.query().is_none()
        && url.fragment().is_none()
        && matches!(url.path(), "blank" | "srcdoc")
    {
        return true;
    }
    // Step 2. If url's scheme is "data", return "Potentially Trustworthy".
    if url.scheme() == "data" {
        return true;
    }
    // DEVIATION: the URL Standard leaves a `file:` URL's origin to the implementation and
    // `url::Url::origin` makes it opaque, which step 1 of the origin check would call not
    // trustworthy; its step 6 ("If origin's scheme is "file"") is what is meant, so it is
    // applied here.
    if url.scheme() == "file" {
        return true;
    }
    // Step 3. Return the result of executing § 3.1 Is origin potentially trustworthy? on
    // url's origin.
    is_potentially_trustworthy_origin(&url.origin())
}

/// [Is origin potentially trustworthy?](https://w3c.github.io/webappsec-secure-contexts/#potentially-trustworthy-origin)
pub(crate) fn is_potentially_trustworthy_origin(origin: &Origin) -> bool {
    // Step 1. If origin is an opaque origin, return "Not Trustworthy".
    // Step 2. Assert: origin is a tuple origin.
    let Origin::Tuple(scheme, host, _) = origin else {
        return false;
    };
    // Step 3. If origin's scheme is either "https" or "wss", return "Potentially
    // Trustworthy".
    if scheme == "https" || scheme == "wss" {
        return true;
    }
    // Step 4. If origin's host matches one of the CIDR notations 127.0.0.0/8 or ::1/128,
    // return "Potentially Trustworthy".
    match host {
        Host::Ipv4(address) if IpAddr::V4(*address).is_loopback() => return true,
        Host::Ipv6(address) if IpAddr::V6(*address).is_loopback() => return true,
        // Step 5. If the user agent conforms to the name resolution rules in
        // [let-localhost-be-localhost] and one of the following is true: origin's host is
        // "localhost" or "localhost."; origin's host ends with ".localhost" or
        // ".localhost."; then return "Potentially Trustworthy".
        Host::Domain(domain)
            if matches!(domain.as_str(), "localhost" | "localhost.")
                || domain.ends_with(".localhost")
                || domain.ends_with(".localhost.") =>
        {
            return true;
        }
        _ => {}
    }
    // Step 6. If origin's scheme is "file", return "Potentially Trustworthy".
    if scheme == "file" {
        return true;
    }
    // Step 7. If origin's scheme component is one which the user agent considers to be
    // authenticated, return "Potentially Trustworthy".
    // Step 8. If origin has been configured as a trustworthy origin, return "Potentially
    // Trustworthy".
    // (No others.)
    // Step 9. Return "Not Trustworthy".
    false
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::headers::{Headers, HeadersGuard};

    /// Where the pinned WPT suite is, found as every test finds it.
    mod wpt_suite {
        include!(concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/common/wpt_suite.rs"
        ));
    }

    fn response(url: &str, headers: &[(&str, &str)]) -> Response {
        let mut list = Headers::with_guard(HeadersGuard::None);
        for (name, value) in headers {
            list.header_list_mut().append(name, value);
        }
        Response::from_network(
            200,
            String::new(),
            list,
            None,
            vec![Url::parse(url).unwrap()],
        )
    }

    fn request(destination: RequestDestination) -> Request {
        let mut request = Request::from_url(Url::parse("https://a.example/x").unwrap());
        request.destination = destination;
        request
    }

    fn origin(url: &str) -> Origin {
        Url::parse(url).unwrap().origin()
    }

    #[test]
    fn nosniff_blocks_script_without_a_javascript_type() {
        let script = request(RequestDestination::Script);
        let nosniff = |content_type: Option<&str>| {
            let mut headers = vec![("X-Content-Type-Options", "nosniff")];
            if let Some(content_type) = content_type {
                headers.push(("Content-Type", content_type));
            }
            response("https://a.example/x", &headers)
        };
        assert!(should_response_be_blocked_due_to_nosniff(
            &nosniff(Some("text/plain")),
            &script
        ));
        assert!(should_response_be_blocked_due_to_nosniff(
            &nosniff(None),
            &script
        ));
        assert!(!should_response_be_blocked_due_to_nosniff(
            &nosniff(Some("text/javascript;charset=utf-8")),
            &script
        ));
        assert!(!should_response_be_blocked_due_to_nosniff(
            &nosniff(Some("application/ecmascript")),
            &request(RequestDestination::Worker)
        ));
        // Without nosniff, anything goes.
        let sniffable = response("https://a.example/x", &[("Content-Type", "text/plain")]);
        assert!(!should_response_be_blocked_due_to_nosniff(
            &sniffable, &script
        ));
        // Other destinations are not considered.
        assert!(!should_response_be_blocked_due_to_nosniff(
            &nosniff(Some("text/plain")),
            &request(RequestDestination::Image)
        ));
        assert!(!should_response_be_blocked_due_to_nosniff(
            &nosniff(None),
            &request(RequestDestination::Empty)
        ));
    }

    #[test]
    fn nosniff_blocks_scripts_per_the_wpt_header_vectors() {
        // fetch/nosniff/parsing-nosniff.window.js loads a script served as text/html with
        // each header block; it must be blocked exactly when the block means nosniff.
        let suite = wpt_suite::locate_wpt_suite(env!("CARGO_MANIFEST_DIR").as_ref())
            .unwrap_or_else(|message| panic!("the WPT test vectors are missing: {message}"));
        let path = suite.join("fetch/nosniff/resources/x-content-type-options.json");
        let text = std::fs::read_to_string(&path)
            .unwrap_or_else(|error| panic!("cannot read WPT vectors {}: {error}", path.display()));
        let cases: Vec<serde_json::Value> = serde_json::from_str(&text).unwrap();
        assert_eq!(cases.len(), 15);
        let script = request(RequestDestination::Script);
        for case in cases {
            let input = case["input"].as_str().unwrap();
            let nosniff = case["nosniff"].as_bool().unwrap();
            let mut headers = vec![("Content-Type", "text/html")];
            for line in input.split("\r\n") {
                let (name, value) = line.split_once(':').unwrap();
                headers.push((name, value.trim_matches([' ', '\t'])));
            }
            let response = response("https://a.example/x", &headers);
            assert_eq!(
                should_response_be_blocked_due_to_nosniff(&response, &script),
                nosniff,
                "input {input:?}"
            );
        }
    }

    #[test]
    fn nosniff_blocks_style_that_is_not_css() {
        let style = request(RequestDestination::Style);
        let with = |content_type: &str| {
            response(
                "https://a.example/x",
                &[
                    ("X-Content-Type-Options", "NoSniff"),
                    ("Content-Type", content_type),
                ],
            )
        };
        assert!(should_response_be_blocked_due_to_nosniff(
            &with("text/html"),
            &style
        ));
        assert!(should_response_be_blocked_due_to_nosniff(
            &with("text/javascript"),
            &style
        ));
        assert!(!should_response_be_blocked_due_to_nosniff(
            &with("TEXT/CSS; charset=utf-8"),
            &style
        ));
    }

    #[test]
    fn mime_type_blocks_media_and_csv_for_scripts() {
        let script = request(RequestDestination::Script);
        for blocked in ["image/png", "audio/mpeg", "video/mp4", "text/csv"] {
            let response = response("https://a.example/x", &[("Content-Type", blocked)]);
            assert!(
                should_response_be_blocked_due_to_mime_type(&response, &script),
                "{blocked}"
            );
            assert!(!should_response_be_blocked_due_to_mime_type(
                &response,
                &request(RequestDestination::Image)
            ));
        }
        for allowed in ["text/plain", "application/json", "text/javascript"] {
            let response = response("https://a.example/x", &[("Content-Type", allowed)]);
            assert!(!should_response_be_blocked_due_to_mime_type(
                &response, &script
            ));
        }
        let no_type = response("https://a.example/x", &[]);
        assert!(!should_response_be_blocked_due_to_mime_type(
            &no_type, &script
        ));
    }

    #[test]
    fn corp_same_origin_same_site_and_cross_origin() {
        let environment = Environment::server();
        let check = |origin_url: &str, response_url: &str, policy: Option<&str>| {
            let headers: Vec<(&str, &str)> = policy
                .map(|policy| vec![("Cross-Origin-Resource-Policy", policy)])
                .unwrap_or_default();
            cross_origin_resource_policy_check(
                &origin(origin_url),
                &environment,
                RequestDestination::Image,
                &response(response_url, &headers),
                false,
            )
        };
        // No header, an unknown value, or a list of values: allowed.
        assert!(check("https://a.example", "https://b.test/", None));
        assert!(check("https://a.example", "https://b.test/", Some("bogus")));
        assert!(check(
            "https://a.example",
            "https://b.test/",
            Some("same-site, same-origin")
        ));
        // Values are case-sensitive.
        assert!(check(
            "https://a.example",
            "https://b.test/",
            Some("Same-Origin")
        ));
        assert!(check(
            "https://a.example",
            "https://b.test/",
            Some("cross-origin")
        ));
        // same-origin
        assert!(check(
            "https://a.example",
            "https://a.example/img",
            Some("same-origin")
        ));
        assert!(!check(
            "https://a.example",
            "https://www.a.example/img",
            Some("same-origin")
        ));
        // same-site
        assert!(check(
            "https://a.example",
            "https://www.a.example/img",
            Some("same-site")
        ));
        assert!(!check(
            "https://a.example",
            "https://b.example/img",
            Some("same-site")
        ));
        // A secure response does not match a non-secure initiator, but the reverse does.
        assert!(!check(
            "http://a.example",
            "https://www.a.example/img",
            Some("same-site")
        ));
        assert!(check(
            "https://a.example",
            "http://www.a.example/img",
            Some("same-site")
        ));
    }

    #[test]
    fn corp_internal_check_with_embedder_policies() {
        let cross = response("https://b.test/", &[]);
        let a = origin("https://a.example");
        assert!(cross_origin_resource_policy_internal_check(
            &a,
            EmbedderPolicyValue::UnsafeNone,
            &cross,
            false
        ));
        assert!(!cross_origin_resource_policy_internal_check(
            &a,
            EmbedderPolicyValue::RequireCorp,
            &cross,
            false
        ));
        // request-includes-credentials is true by default.
        assert!(!cross_origin_resource_policy_internal_check(
            &a,
            EmbedderPolicyValue::Credentialless,
            &cross,
            false
        ));
        // Navigations with unsafe-none are always allowed.
        let same_origin_only = response(
            "https://b.test/",
            &[("Cross-Origin-Resource-Policy", "same-origin")],
        );
        assert!(cross_origin_resource_policy_internal_check(
            &a,
            EmbedderPolicyValue::UnsafeNone,
            &same_origin_only,
            true
        ));
    }

    #[test]
    fn registrable_domains_follow_the_public_suffix_list() {
        let domain = |host: &str| registrable_domain(&Host::Domain(host.to_owned()));
        // Hosts under no listed suffix fall back to the list's implicit `*` rule.
        assert_eq!(domain("www.a.example").as_deref(), Some("a.example"));
        assert_eq!(domain("a.example").as_deref(), Some("a.example"));
        assert_eq!(domain("a.example.").as_deref(), Some("a.example."));
        assert_eq!(domain("localhost"), None);
        // The URL Standard's examples (https://url.spec.whatwg.org/#example-host-psl).
        assert_eq!(domain("com"), None);
        assert_eq!(domain("example.com").as_deref(), Some("example.com"));
        assert_eq!(
            domain("sub.www.example.com").as_deref(),
            Some("example.com")
        );
        assert_eq!(domain("example.com.").as_deref(), Some("example.com."));
        assert_eq!(domain("github.io"), None);
        assert_eq!(
            domain("whatwg.github.io").as_deref(),
            Some("whatwg.github.io")
        );
        assert_eq!(domain("xn--kgbechtv"), None);
        assert_eq!(
            domain("sub.example.xn--kgbechtv").as_deref(),
            Some("example.xn--kgbechtv")
        );
        // Multi-label public suffixes.
        assert_eq!(domain("a.example.co.uk").as_deref(), Some("example.co.uk"));
        assert_eq!(domain("co.uk"), None);
        assert_eq!(
            registrable_domain(&Host::Ipv4("127.0.0.1".parse().unwrap())),
            None
        );
    }

    #[test]
    fn same_site_rules() {
        assert!(is_same_site(
            &origin("https://a.example"),
            &origin("https://www.a.example:8443")
        ));
        assert!(!is_same_site(
            &origin("http://a.example"),
            &origin("https://a.example")
        ));
        assert!(is_schemelessly_same_site(
            &origin("http://a.example"),
            &origin("https://a.example")
        ));
        assert!(is_same_site(
            &origin("http://127.0.0.1:1"),
            &origin("http://127.0.0.1:2")
        ));
        assert!(!is_same_site(
            &origin("http://127.0.0.1"),
            &origin("http://127.0.0.2")
        ));
        assert!(!is_same_site(
            &origin("https://a.example.co.uk"),
            &origin("https://b.example2.co.uk")
        ));
        assert!(!is_same_site(
            &origin("https://a.github.io"),
            &origin("https://b.github.io")
        ));
        assert!(!is_same_site(
            &origin("https://a.example"),
            &origin("https://a.example.")
        ));
        let opaque = origin("data:text/plain,x");
        assert!(is_same_site(&opaque, &opaque.clone()));
        assert!(!is_same_site(&opaque, &origin("data:text/plain,x")));
        assert!(!is_same_site(&opaque, &origin("https://a.example")));
    }

    #[test]
    fn potentially_trustworthy_urls() {
        let trustworthy = |url: &str| is_potentially_trustworthy_url(&Url::parse(url).unwrap());
        for url in [
            "https://example.com/",
            "wss://example.com/",
            "http://127.0.0.1/",
            "http://127.255.0.1:8080/",
            "http://[::1]/",
            "http://localhost:3000/",
            "http://localhost./",
            "http://app.localhost/",
            "file:///tmp/x",
            "data:text/plain,hi",
            "about:blank",
            "about:srcdoc",
            // A blob: URL's origin is its inner URL's.
            "blob:https://example.com/uuid",
        ] {
            assert!(trustworthy(url), "{url}");
        }
        for url in [
            "http://example.com/",
            "ws://example.com/",
            "http://128.0.0.1/",
            "http://[::2]/",
            "http://localhost.example/",
            "about:blank#x",
            "about:client",
            "blob:http://example.com/uuid",
            "ftp://example.com/",
        ] {
            assert!(!trustworthy(url), "{url}");
        }
    }

    #[test]
    fn potentially_trustworthy_origins() {
        assert!(is_potentially_trustworthy_origin(&origin(
            "wss://a.example/"
        )));
        assert!(is_potentially_trustworthy_origin(&origin(
            "http://127.0.0.53/"
        )));
        assert!(is_potentially_trustworthy_origin(&origin(
            "http://[::1]:8080/"
        )));
        assert!(is_potentially_trustworthy_origin(&origin(
            "http://x.localhost/"
        )));
        assert!(!is_potentially_trustworthy_origin(&origin(
            "http://a.example/"
        )));
        // An opaque origin is never trustworthy, though a data: URL is.
        assert!(!is_potentially_trustworthy_origin(&origin("data:,x")));
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
}
