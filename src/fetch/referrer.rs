//! [Referrer Policy](https://w3c.github.io/webappsec-referrer-policy/): which `Referer` a
//! request sends, and how the `Referrer-Policy` response header changes a request's policy
//! on redirect.

use url::{Origin, Url};

use crate::fetch::checks::is_potentially_trustworthy_url;
use crate::headers::HeaderList;
use crate::request::{Referrer, ReferrerPolicy, Request};
use crate::response::Response;

/// The longest serialized referrer URL sent whole; a longer one is cut down to its origin.
const MAX_REFERRER_URL_LENGTH: usize = 4096;

/// [Main fetch](https://fetch.spec.whatwg.org/#concept-main-fetch)'s step 8: "If request's referrer policy is the empty string, then set request's
/// referrer policy to request's policy container's referrer policy."
///
/// The policy container is the request's environment's: `strict-origin-when-cross-origin`
/// unless the environment was given another.
pub(crate) fn apply_default_referrer_policy(request: &mut Request) {
    if request.referrer_policy == ReferrerPolicy::Empty {
        request.referrer_policy = match request.client.referrer_policy() {
            // A policy container's referrer policy is never the empty string; HTML's default
            // stands in if an environment was given one.
            ReferrerPolicy::Empty => ReferrerPolicy::StrictOriginWhenCrossOrigin,
            policy => policy,
        };
    }
}

/// [Parse a referrer policy from a `Referrer-Policy` header](https://w3c.github.io/webappsec-referrer-policy/#parse-referrer-policy-from-header)
/// of a response's `header_list`: the last token that is a known policy, or
/// [`ReferrerPolicy::Empty`] when there is none or the header does not parse.
pub(crate) fn parse_referrer_policy_from_header(header_list: &HeaderList) -> ReferrerPolicy {
    // Step 1. Let policy-tokens be the result of extracting header list values given
    // `Referrer-Policy` and response's header list.
    let Some(policy_tokens) = extract_referrer_policy_tokens(header_list) else {
        // Null or failure: there is no token to loop over.
        return ReferrerPolicy::Empty;
    };
    // Step 2. Let policy be the empty string.
    let mut policy = ReferrerPolicy::Empty;
    // Step 3. For each token in policy-tokens, if token is a referrer policy and token is not
    // the empty string, then set policy to token.
    for token in policy_tokens {
        if let Ok(parsed) = token.parse::<ReferrerPolicy>() {
            if parsed != ReferrerPolicy::Empty {
                policy = parsed;
            }
        }
    }
    // Step 4. Return policy.
    policy
}

/// [Extracting header list values](https://fetch.spec.whatwg.org/#extract-header-list-values)
/// for `Referrer-Policy`, whose ABNF is `1#( policy-token / extension-token )` with
/// `extension-token = 1*( ALPHA / "-" )`: `None` for null or failure.
fn extract_referrer_policy_tokens(header_list: &HeaderList) -> Option<Vec<&str>> {
    // Step 1. If list does not contain name, then return null.
    if !header_list.contains(b"Referrer-Policy") {
        return None;
    }
    // Step 3. Let values be an empty list.
    let mut values = Vec::new();
    // Step 4. For each header header list contains whose name is name:
    for value in header_list.values(b"Referrer-Policy") {
        // Step 4.1. Let extract be the result of extracting header values from header.
        // Step 4.2. If extract is failure, then return failure.
        let value = std::str::from_utf8(value).ok()?;
        let mut extract = Vec::new();
        // `#` lists allow empty elements, which recipients ignore; `1#` needs one element.
        for element in value.split(',') {
            let element = element.trim_matches([' ', '\t']);
            if element.is_empty() {
                continue;
            }
            if !element
                .bytes()
                .all(|byte| byte.is_ascii_alphabetic() || byte == b'-')
            {
                return None;
            }
            extract.push(element);
        }
        if extract.is_empty() {
            return None;
        }
        // Step 4.3. Append each value in extract, in order, to values.
        values.extend(extract);
    }
    // Step 5. Return values.
    Some(values)
}

/// [Set request's referrer policy on redirect](https://w3c.github.io/webappsec-referrer-policy/#set-requests-referrer-policy-on-redirect)
/// from the `Referrer-Policy` header of `actual_response`.
pub(crate) fn set_request_referrer_policy_on_redirect(
    request: &mut Request,
    actual_response: &Response,
) {
    // Step 1. Let policy be the result of executing § 8.1 Parse a referrer policy from a
    // Referrer-Policy header on actualResponse.
    let policy = parse_referrer_policy_from_header(actual_response.headers.header_list());
    // Step 2. If policy is not the empty string, then set request's referrer policy to
    // policy.
    if policy != ReferrerPolicy::Empty {
        request.referrer_policy = policy;
    }
}

/// [Strip url for use as a referrer](https://w3c.github.io/webappsec-referrer-policy/#strip-url):
/// `url` without credentials and fragment, and with `origin_only` also without path and
/// query; `None` ("no referrer") for a URL with a local scheme (`about`, `blob`, `data`).
pub(crate) fn strip_url_for_use_as_a_referrer(url: &Url, origin_only: bool) -> Option<Url> {
    // Step 1. Assert: url is a URL.
    let mut url = url.clone();
    // Step 2. If url's scheme is a local scheme, then return no referrer.
    if matches!(url.scheme(), "about" | "blob" | "data") {
        return None;
    }
    // Step 3. Set url's username to the empty string.
    // Step 4. Set url's password to the empty string.
    // (These fail only for URLs that cannot have credentials, which then have none.)
    let _ = url.set_username("");
    let _ = url.set_password(None);
    // Step 5. Set url's fragment to null.
    url.set_fragment(None);
    // Step 6. If the origin-only flag is true, then:
    if origin_only {
        // Step 6.1. Set url's path to « the empty string ».
        url.set_path("");
        // Step 6.2. Set url's query to null.
        url.set_query(None);
    }
    // Step 7. Return url.
    Some(url)
}

/// [Determine request's Referrer](https://w3c.github.io/webappsec-referrer-policy/#determine-requests-referrer):
/// the URL to send as `Referer`, or `None` for no referrer.
///
/// A `client` referrer is the environment's document or worker URL, its
/// [base URL](crate::environment::Environment::base_url). A server-side environment has no
/// document, so it has no referrer; neither has one whose origin is opaque.
pub(crate) fn determine_request_referrer(request: &Request) -> Option<Url> {
    // Step 1. Let policy be request's referrer policy.
    let policy = request.referrer_policy;
    // Step 2. Let environment be request's client.
    let environment = &request.client;
    // Step 3. Switch on request's referrer:
    let referrer_source = match &request.referrer {
        // "client":
        Referrer::Client => {
            // Step 3.1. If environment's global object is a Window object, then: let
            // document be the associated Document of environment's global object; if
            // document's origin is an opaque origin, return no referrer; (...) let
            // referrerSource be document's URL.
            // Step 3.2. Otherwise, let referrerSource be environment's creation URL.
            // A server-side environment has no global object, no document and no creation
            // URL: no referrer.
            match environment.origin() {
                None | Some(Origin::Opaque(_)) => return None,
                Some(Origin::Tuple(..)) => environment.base_url()?,
            }
        }
        // a URL: Let referrerSource be request's referrer.
        Referrer::Url(url) => url,
        // Note: If request's referrer is "no-referrer", Fetch will not call into this
        // algorithm.
        Referrer::NoReferrer => return None,
    };
    determine_referrer_from_source(policy, referrer_source, request.current_url())
}

/// Steps 4 to 7 of [Determine request's Referrer](https://w3c.github.io/webappsec-referrer-policy/#determine-requests-referrer),
/// once the referrer source is known: the referrer a request to `current_url` under `policy`
/// sends for `referrer_source`, or `None` for no referrer.
///
/// The empty policy is read as the default, `strict-origin-when-cross-origin`; fetch always
/// replaces it before asking.
pub(crate) fn determine_referrer_from_source(
    policy: ReferrerPolicy,
    referrer_source: &Url,
    current_url: &Url,
) -> Option<Url> {
    // Step 4. Let request's referrerURL be the result of stripping referrerSource for use as
    // a referrer.
    let referrer_url = strip_url_for_use_as_a_referrer(referrer_source, false);
    // Step 5. Let referrerOrigin be the result of stripping referrerSource for use as a
    // referrer, with the origin-only flag set to true.
    let referrer_origin = strip_url_for_use_as_a_referrer(referrer_source, true);
    // Step 6. If the result of serializing referrerURL is a string whose length is greater
    // than 4096, set referrerURL to referrerOrigin.
    let referrer_url = match referrer_url {
        Some(url) if url.as_str().len() > MAX_REFERRER_URL_LENGTH => referrer_origin.clone(),
        referrer_url => referrer_url,
    };
    // Stripping returns no referrer only for a local scheme, and then both are no referrer,
    // which every branch below returns as it is.
    let referrer_url = referrer_url?;
    let referrer_origin = referrer_origin?;
    // Step 7. The user agent MAY alter referrerURL or referrerOrigin at this point to enforce
    // arbitrary policy considerations in the interests of minimizing data leakage.
    // (It does not.)
    let is_same_origin = || referrer_url.origin() == current_url.origin();
    let is_downgrade = || {
        is_potentially_trustworthy_url(&referrer_url)
            && !is_potentially_trustworthy_url(current_url)
    };
    // Step 8. Execute the statements corresponding to the value of policy:
    match policy {
        // "no-referrer": Return no referrer.
        ReferrerPolicy::NoReferrer => None,
        // "origin": Return referrerOrigin.
        ReferrerPolicy::Origin => Some(referrer_origin),
        // "unsafe-url": Return referrerURL.
        ReferrerPolicy::UnsafeUrl => Some(referrer_url),
        // "strict-origin":
        ReferrerPolicy::StrictOrigin => {
            // Step 1. If referrerURL is a potentially trustworthy URL and request's current
            // URL is not a potentially trustworthy URL, then return no referrer.
            if is_downgrade() {
                return None;
            }
            // Step 2. Return referrerOrigin.
            Some(referrer_origin)
        }
        // "strict-origin-when-cross-origin":
        ReferrerPolicy::StrictOriginWhenCrossOrigin | ReferrerPolicy::Empty => {
            // Step 1. If the origin of referrerURL and the origin of request's current URL are
            // the same, then return referrerURL.
            if is_same_origin() {
                return Some(referrer_url);
            }
            // Step 2. If referrerURL is a potentially trustworthy URL and request's current
            // URL is not a potentially trustworthy URL, then return no referrer.
            if is_downgrade() {
                return None;
            }
            // Step 3. Return referrerOrigin.
            Some(referrer_origin)
        }
        // "same-origin":
        ReferrerPolicy::SameOrigin => {
            // Step 1. If the origin of referrerURL and the origin of request's current URL are
            // the same, then return referrerURL.
            if is_same_origin() {
                return Some(referrer_url);
            }
            // Step 2. Return no referrer.
            None
        }
        // "origin-when-cross-origin":
        ReferrerPolicy::OriginWhenCrossOrigin => {
            // Step 1. If the origin of referrerURL and the origin of request's current URL are
            // the same, then return referrerURL.
            if is_same_origin() {
                return Some(referrer_url);
            }
            // Step 2. Return referrerOrigin.
            Some(referrer_origin)
        }
        // "no-referrer-when-downgrade":
        ReferrerPolicy::NoReferrerWhenDowngrade => {
            // Step 1. If referrerURL is a potentially trustworthy URL and request's current
            // URL is not a potentially trustworthy URL, then return no referrer.
            if is_downgrade() {
                return None;
            }
            // Step 2. Return referrerURL.
            Some(referrer_url)
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::environment::Environment;
    use crate::headers::{Headers, HeadersGuard};

    const PAGE: &str = "https://user:pw@a.example/dir/page.html?q=1#frag";
    const FULL: &str = "https://a.example/dir/page.html?q=1";
    const ORIGIN: &str = "https://a.example/";

    fn url(input: &str) -> Url {
        Url::parse(input).unwrap()
    }

    fn request_in(environment: Environment, target: &str, referrer: Referrer) -> Request {
        let mut request = Request::from_url(url(target));
        request.client = Arc::new(environment);
        request.referrer = referrer;
        request
    }

    fn page() -> Environment {
        Environment::browser(url(PAGE))
    }

    fn referrer_for(policy: ReferrerPolicy, target: &str) -> Option<String> {
        let mut request = request_in(page(), target, Referrer::Client);
        request.referrer_policy = policy;
        determine_request_referrer(&request).map(String::from)
    }

    /// The referrer a request to `target` under `policy` sends from `source`.
    fn referrer_from(source: &str, policy: ReferrerPolicy, target: &str) -> Option<String> {
        determine_referrer_from_source(policy, &url(source), &url(target)).map(String::from)
    }

    #[test]
    fn every_policy_same_origin_cross_origin_and_downgrade() {
        use ReferrerPolicy::*;
        let same = "https://a.example/other";
        let cross = "https://b.example/x";
        let downgrade = "http://b.example/x";
        let same_host_downgrade = "http://a.example/x";
        // (policy, same-origin, cross-origin, downgrade, same host over http)
        let cases: [(ReferrerPolicy, [Option<&str>; 4]); 9] = [
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
            // The empty policy reads as the default.
            (Empty, [Some(FULL), Some(ORIGIN), None, None]),
        ];
        for (policy, expected) in cases {
            let actual = [same, cross, downgrade, same_host_downgrade]
                .map(|target| referrer_for(policy, target));
            let expected = expected.map(|value| value.map(str::to_owned));
            assert_eq!(actual, expected, "policy {policy:?}");
        }
    }

    #[test]
    fn http_referrer_to_https_is_not_a_downgrade() {
        let environment = Environment::browser(url("http://a.example/p"));
        let mut request = request_in(environment, "https://b.example/", Referrer::Client);
        request.referrer_policy = ReferrerPolicy::NoReferrerWhenDowngrade;
        assert_eq!(
            determine_request_referrer(&request).map(String::from),
            Some("http://a.example/p".to_owned())
        );
        request.referrer_policy = ReferrerPolicy::StrictOrigin;
        assert_eq!(
            determine_request_referrer(&request).map(String::from),
            Some("http://a.example/".to_owned())
        );
    }

    #[test]
    fn downgrade_means_trustworthy_to_untrustworthy() {
        // http to http is no downgrade …
        let http_page = "http://a.example/p";
        assert_eq!(
            referrer_from(http_page, ReferrerPolicy::StrictOrigin, "http://b.example/").as_deref(),
            Some("http://a.example/")
        );
        assert_eq!(
            referrer_from(
                http_page,
                ReferrerPolicy::NoReferrerWhenDowngrade,
                "http://b.example/"
            )
            .as_deref(),
            Some(http_page)
        );
        // … nor is https to a loopback http server, which is potentially trustworthy.
        for loopback in ["http://127.0.0.1:8000/", "http://localhost/"] {
            assert_eq!(
                referrer_from(PAGE, ReferrerPolicy::StrictOrigin, loopback).as_deref(),
                Some(ORIGIN),
                "{loopback}"
            );
        }
    }

    #[test]
    fn url_referrer_is_stripped() {
        let referrer = Referrer::Url(url("https://u:p@a.example/r?x#y"));
        let mut request = request_in(Environment::server(), "https://a.example/", referrer);
        request.referrer_policy = ReferrerPolicy::UnsafeUrl;
        assert_eq!(
            determine_request_referrer(&request).map(String::from),
            Some("https://a.example/r?x".to_owned())
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
    fn no_referrer_cases() {
        // "no-referrer" as the referrer.
        let request = request_in(page(), "https://a.example/", Referrer::NoReferrer);
        assert_eq!(determine_request_referrer(&request), None);
        // A server-side client has no document.
        let request = request_in(
            Environment::server(),
            "https://a.example/",
            Referrer::Client,
        );
        assert_eq!(determine_request_referrer(&request), None);
        // Nor has a client whose origin is opaque.
        let opaque = Environment::browser(url("data:text/html,hi"));
        let request = request_in(opaque, "https://a.example/", Referrer::Client);
        assert_eq!(determine_request_referrer(&request), None);
        // A local-scheme referrer is never sent.
        for local in ["about:blank", "blob:https://a.example/id", "data:,x"] {
            let referrer = Referrer::Url(url(local));
            let mut request = request_in(Environment::server(), "https://a.example/", referrer);
            request.referrer_policy = ReferrerPolicy::UnsafeUrl;
            assert_eq!(determine_request_referrer(&request), None, "{local}");
        }
    }

    #[test]
    fn referrer_longer_than_4096_is_cut_to_its_origin() {
        let base = "https://a.example/";
        let target = "https://a.example/x";
        let fits = format!("{base}?{}", "q".repeat(4096 - base.len() - 1));
        assert_eq!(fits.len(), 4096);
        let too_long = format!("{fits}q");
        let send = |source: &str, policy| referrer_from(source, policy, target);
        assert_eq!(send(&fits, ReferrerPolicy::UnsafeUrl), Some(fits.clone()));
        assert_eq!(
            send(&too_long, ReferrerPolicy::UnsafeUrl).as_deref(),
            Some(base)
        );
        assert_eq!(
            send(&too_long, ReferrerPolicy::StrictOriginWhenCrossOrigin).as_deref(),
            Some(base)
        );
        // The limit applies to the stripped URL: credentials and the fragment do not count.
        let with_extras = format!("https://user:password@a.example/?{}#frag", "q".repeat(4077));
        assert_eq!(send(&with_extras, ReferrerPolicy::UnsafeUrl), Some(fits));
    }

    #[test]
    fn default_policy_comes_from_the_environment() {
        assert_eq!(
            Environment::server().referrer_policy(),
            ReferrerPolicy::StrictOriginWhenCrossOrigin
        );
        let mut request = request_in(page(), "https://a.example/", Referrer::Client);
        apply_default_referrer_policy(&mut request);
        assert_eq!(
            request.referrer_policy,
            ReferrerPolicy::StrictOriginWhenCrossOrigin
        );
        let environment = page().with_referrer_policy(ReferrerPolicy::NoReferrer);
        let mut request = request_in(environment, "https://a.example/", Referrer::Client);
        apply_default_referrer_policy(&mut request);
        assert_eq!(request.referrer_policy, ReferrerPolicy::NoReferrer);
        // A request's own policy wins.
        let environment = page().with_referrer_policy(ReferrerPolicy::NoReferrer);
        let mut request = request_in(environment, "https://a.example/", Referrer::Client);
        request.referrer_policy = ReferrerPolicy::UnsafeUrl;
        apply_default_referrer_policy(&mut request);
        assert_eq!(request.referrer_policy, ReferrerPolicy::UnsafeUrl);
    }

    fn response_with(headers: &[(&str, &str)]) -> Response {
        let mut list = Headers::with_guard(HeadersGuard::None);
        for (name, value) in headers {
            list.header_list_mut().append(name, value);
        }
        Response::from_network(302, String::new(), list, None, Vec::new())
    }

    #[test]
    fn redirect_updates_the_policy_from_the_header() {
        let mut request = request_in(page(), "https://a.example/", Referrer::Client);
        request.referrer_policy = ReferrerPolicy::UnsafeUrl;
        set_request_referrer_policy_on_redirect(&mut request, &response_with(&[]));
        assert_eq!(request.referrer_policy, ReferrerPolicy::UnsafeUrl);
        set_request_referrer_policy_on_redirect(
            &mut request,
            &response_with(&[("Referrer-Policy", "unknown")]),
        );
        assert_eq!(request.referrer_policy, ReferrerPolicy::UnsafeUrl);
        set_request_referrer_policy_on_redirect(
            &mut request,
            &response_with(&[
                ("Referrer-Policy", "origin"),
                ("Referrer-Policy", "no-referrer, new-policy"),
            ]),
        );
        assert_eq!(request.referrer_policy, ReferrerPolicy::NoReferrer);
    }

    #[test]
    fn referrer_policy_header_takes_the_last_known_token() {
        let parse = |values: &[&str]| {
            let list: HeaderList = values
                .iter()
                .map(|value| ("Referrer-Policy", *value))
                .collect();
            parse_referrer_policy_from_header(&list)
        };
        assert_eq!(parse(&[]), ReferrerPolicy::Empty);
        assert_eq!(parse(&["same-origin"]), ReferrerPolicy::SameOrigin);
        assert_eq!(parse(&[" origin ,, "]), ReferrerPolicy::Origin);
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
        // Tokens are case-sensitive.
        assert_eq!(parse(&["No-Referrer"]), ReferrerPolicy::Empty);
        // A value outside the header's grammar makes the whole header fail.
        assert_eq!(parse(&["origin, no referrer"]), ReferrerPolicy::Empty);
        assert_eq!(parse(&["origin, bad_token"]), ReferrerPolicy::Empty);
        assert_eq!(parse(&["origin", ""]), ReferrerPolicy::Empty);
        assert_eq!(parse(&["\"origin\""]), ReferrerPolicy::Empty);
    }
}
