//! [Fetch Metadata Request Headers](https://w3c.github.io/webappsec-fetch-metadata/):
//! `Sec-Fetch-Dest`, `Sec-Fetch-Mode`, `Sec-Fetch-Site` and `Sec-Fetch-User`, which tell a
//! server what kind of request reached it and how its initiator relates to it.
//!
//! HTTP-network-or-cache fetch appends them to every request it sends (step 8.13), a
//! CORS-preflight included, so they describe each hop of a redirect chain.
//!
//! They are sent only from a browser-like environment: a server-side client has no origin,
//! so there is no initiator whose relation to the target `Sec-Fetch-Site` could describe,
//! and its requests stay as they were (see
//! [`append_the_fetch_metadata_headers_for_a_request`]).

use crate::fetch::checks::{is_potentially_trustworthy_url, is_same_site};
use crate::fetch::cors::request_origin;
use crate::request::{Request, RequestDestination};

/// [Append the Fetch metadata headers for a request](https://w3c.github.io/webappsec-fetch-metadata/#abstract-opdef-append-the-fetch-metadata-headers-for-a-request)
/// `r`.
///
/// DEVIATION: Fetch gives every request an origin before it reaches here (populate request
/// from client asserts a client for a "client" origin). A server-side environment has none,
/// so its requests keep "client" and get no `Sec-Fetch-*` headers: nothing initiated them
/// that `Sec-Fetch-Site` could name, and server code (like Deno's) sends none.
pub(crate) fn append_the_fetch_metadata_headers_for_a_request(r: &mut Request) {
    if request_origin(r).is_none() {
        return;
    }
    // Step 1. If r's current URL is not a potentially trustworthy URL, return.
    // (The spec said "r's url" until https://github.com/w3c/webappsec-fetch-metadata/pull/99
    // made it the current URL, as browsers do: after a redirect to plain http the headers
    // are not sent, and after a redirect back to https they are.)
    if !is_potentially_trustworthy_url(r.current_url()) {
        return;
    }
    // Step 2. Set the `Sec-Fetch-Dest` header for r.
    set_the_sec_fetch_dest_header(r);
    // Step 3. Set the `Sec-Fetch-Mode` header for r.
    set_the_sec_fetch_mode_header(r);
    // Step 4. Set the `Sec-Fetch-Site` header for r.
    set_the_sec_fetch_site_header(r);
    // Step 5. Set the `Sec-Fetch-User` header for r.
    set_the_sec_fetch_user_header(r);
}

/// [Set the `Sec-Fetch-Dest` header](https://w3c.github.io/webappsec-fetch-metadata/#abstract-opdef-set-dest)
/// for `r`.
fn set_the_sec_fetch_dest_header(r: &mut Request) {
    // Step 1. Assert: r's current URL is a potentially trustworthy URL.
    debug_assert!(is_potentially_trustworthy_url(r.current_url()));
    // Step 2. Let header be a Structured Field whose value is a token.
    // Step 3. If r's destination is the empty string, set header's value to the string
    // "empty". Otherwise, set header's value to r's destination.
    let header = match r.destination {
        RequestDestination::Empty => "empty",
        destination => destination.as_str(),
    };
    // Step 4. Set a structured field value `Sec-Fetch-Dest`/header in r's header list.
    // (Every destination is a valid token: lowercase ASCII letters.)
    set_a_structured_field_value(r, "Sec-Fetch-Dest", header);
}

/// [Set the `Sec-Fetch-Mode` header](https://w3c.github.io/webappsec-fetch-metadata/#abstract-opdef-set-mode)
/// for `r`.
fn set_the_sec_fetch_mode_header(r: &mut Request) {
    // Step 1. Assert: r's current URL is a potentially trustworthy URL.
    debug_assert!(is_potentially_trustworthy_url(r.current_url()));
    // Step 2. Let header be a Structured Field whose value is a token.
    // Step 3. Set header's value to r's mode.
    let header = r.mode.as_str();
    // Step 4. Set a structured field value `Sec-Fetch-Mode`/header in r's header list.
    set_a_structured_field_value(r, "Sec-Fetch-Mode", header);
}

/// [Set the `Sec-Fetch-Site` header](https://w3c.github.io/webappsec-fetch-metadata/#abstract-opdef-set-site)
/// for `r`.
fn set_the_sec_fetch_site_header(r: &mut Request) {
    // Step 1. Assert: r's current URL is a potentially trustworthy URL.
    debug_assert!(is_potentially_trustworthy_url(r.current_url()));
    // Step 2. Let header be a Structured Field whose value is a token.
    // Steps 3–5.
    let Some(header) = sec_fetch_site(r) else {
        return;
    };
    // Step 6. Set a structured field value `Sec-Fetch-Site`/header in r's header list.
    set_a_structured_field_value(r, "Sec-Fetch-Site", header.as_str());
}

/// The value of [`Sec-Fetch-Site`](https://w3c.github.io/webappsec-fetch-metadata/#sec-fetch-site-header).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SecFetchSite {
    /// `same-origin`: every URL of the request's URL list is same origin with its origin.
    SameOrigin,
    /// `same-site`: every URL is same site with the request's origin, some not same origin.
    SameSite,
    /// `cross-site`: some URL is not same site with the request's origin.
    CrossSite,
}

impl SecFetchSite {
    /// The header's token.
    pub(crate) fn as_str(self) -> &'static str {
        match self {
            SecFetchSite::SameOrigin => "same-origin",
            SecFetchSite::SameSite => "same-site",
            SecFetchSite::CrossSite => "cross-site",
        }
    }
}

/// Steps 3–5 of [set the `Sec-Fetch-Site` header](https://w3c.github.io/webappsec-fetch-metadata/#abstract-opdef-set-site):
/// the relation between `r`'s origin and every URL of its URL list; `None` (no header) for a
/// request without an origin.
pub(crate) fn sec_fetch_site(r: &Request) -> Option<SecFetchSite> {
    let origin = request_origin(r)?;
    // Step 3. Set header's value to `same-origin`.
    let mut header = SecFetchSite::SameOrigin;
    // Step 4. If r is a navigation request that was explicitly caused by a user's
    // interaction with the user agent, then set header's value to `none`. (There is no user
    // here: no request is one, so the value is never `none`.)
    // Step 5. If header's value is not `none`, then for each url in r's URL list:
    for url in &r.url_list {
        let url_origin = url.origin();
        // Step 5.1. If url is same origin with r's origin, continue.
        if url_origin == origin {
            continue;
        }
        // Step 5.2. Set header's value to `cross-site`.
        header = SecFetchSite::CrossSite;
        // Step 5.3. If r's origin is not same site with url's origin, then break.
        if !is_same_site(&origin, &url_origin) {
            break;
        }
        // Step 5.4. Set header's value to `same-site`.
        header = SecFetchSite::SameSite;
    }
    Some(header)
}

/// [Set the `Sec-Fetch-User` header](https://w3c.github.io/webappsec-fetch-metadata/#abstract-opdef-set-user)
/// for `r`.
fn set_the_sec_fetch_user_header(r: &mut Request) {
    // Step 1. Assert: r's current URL is a potentially trustworthy URL.
    debug_assert!(is_potentially_trustworthy_url(r.current_url()));
    // Step 2. If r is not a navigation request, or if r's user-activation is false, return.
    // (A request's user-activation is false unless HTML's "create navigation params by
    // fetching" sets it; nothing here does, so this always returns.)
    let user_activation = false;
    if !is_navigation_request(r) || !user_activation {
        return;
    }
    // Step 3. Let header be a Structured Field whose value is a token.
    // Step 4. Set header's value to true.
    // Step 5. Set a structured field value `Sec-Fetch-User`/header in r's header list.
    // (The Structured Field boolean true serializes as `?1`.)
    set_a_structured_field_value(r, "Sec-Fetch-User", "?1");
}

/// Whether `r` is a [navigation request](https://fetch.spec.whatwg.org/#navigation-request):
/// its destination is "document", "embed", "frame", "iframe", or "object".
fn is_navigation_request(r: &Request) -> bool {
    matches!(
        r.destination,
        RequestDestination::Document
            | RequestDestination::Embed
            | RequestDestination::Frame
            | RequestDestination::Iframe
            | RequestDestination::Object
    )
}

/// [Set a structured field value](https://fetch.spec.whatwg.org/#concept-header-list-set-structured-header)
/// (`name`, `value`) in `r`'s header list, for a value already serialized: set (`name`,
/// `value`).
fn set_a_structured_field_value(r: &mut Request, name: &'static str, value: &'static str) {
    // Step 1. Let serializedValue be the result of executing the serializing structured
    // fields algorithm on structuredValue. (Tokens and booleans serialize as themselves.)
    // Step 2. Set (name, serializedValue) in list.
    r.headers.header_list_mut().set(name, value);
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use url::Url;

    use super::*;
    use crate::environment::Environment;
    use crate::request::{RequestMode, RequestOrigin};

    const PAGE: &str = "https://web-platform.test:8443/fetch/page.html";

    /// A request from a page at `PAGE`, with origin resolved as main fetch does, along
    /// `urls` (its URL list after redirects).
    fn request_along(urls: &[&str]) -> Request {
        let page = Url::parse(PAGE).unwrap();
        let mut request = Request::from_url(Url::parse(urls[0]).unwrap());
        request.url_list = urls.iter().map(|url| Url::parse(url).unwrap()).collect();
        request.origin = RequestOrigin::Origin(page.origin());
        request.client = Arc::new(Environment::browser(page));
        request.mode = RequestMode::Cors;
        request
    }

    fn site(urls: &[&str]) -> Option<&'static str> {
        sec_fetch_site(&request_along(urls)).map(SecFetchSite::as_str)
    }

    fn header(request: &Request, name: &str) -> Option<String> {
        request
            .headers
            .header_list()
            .get(name)
            .map(|value| String::from_utf8(value.to_vec()).unwrap())
    }

    #[test]
    fn site_of_a_single_url() {
        assert_eq!(
            site(&["https://web-platform.test:8443/a"]),
            Some("same-origin")
        );
        assert_eq!(
            site(&["https://www.web-platform.test:8443/a"]),
            Some("same-site")
        );
        // Another port is another origin, but the same site.
        assert_eq!(
            site(&["https://web-platform.test:8444/a"]),
            Some("same-site")
        );
        assert_eq!(
            site(&["https://not-web-platform.test:8443/a"]),
            Some("cross-site")
        );
        // Another scheme is another site.
        assert_eq!(
            site(&["http://web-platform.test:8000/a"]),
            Some("cross-site")
        );
    }

    #[test]
    fn trailing_dot_hosts_are_cross_site() {
        // `web-platform.test.` is another host, whose registrable domain keeps the dot.
        assert_eq!(
            site(&["https://web-platform.test.:8443/a"]),
            Some("cross-site")
        );
        assert_eq!(
            site(&["https://www.web-platform.test.:8443/a"]),
            Some("cross-site")
        );
    }

    #[test]
    fn site_walks_the_whole_url_list() {
        // Same origin → same site → same origin: same-site.
        assert_eq!(
            site(&[
                "https://web-platform.test:8443/a",
                "https://www.web-platform.test:8443/b",
                "https://web-platform.test:8443/c",
            ]),
            Some("same-site")
        );
        // A cross-site hop anywhere makes the whole chain cross-site, even back home.
        assert_eq!(
            site(&[
                "https://web-platform.test:8443/a",
                "https://not-web-platform.test:8443/b",
                "https://web-platform.test:8443/c",
            ]),
            Some("cross-site")
        );
        // A cross-site hop before a same-site one is not undone by it.
        assert_eq!(
            site(&[
                "https://not-web-platform.test:8443/a",
                "https://www.web-platform.test:8443/b",
            ]),
            Some("cross-site")
        );
        assert_eq!(
            site(&[
                "https://web-platform.test:8443/a",
                "https://web-platform.test:8443/b",
            ]),
            Some("same-origin")
        );
    }

    #[test]
    fn site_uses_the_public_suffix_list() {
        let mut request = request_along(&["https://b.github.io/"]);
        let page = Url::parse("https://a.github.io/").unwrap();
        request.origin = RequestOrigin::Origin(page.origin());
        assert_eq!(sec_fetch_site(&request), Some(SecFetchSite::CrossSite));
        request.url_list = vec![Url::parse("https://www.a.github.io/").unwrap()].into();
        assert_eq!(sec_fetch_site(&request), Some(SecFetchSite::SameSite));
    }

    #[test]
    fn headers_of_a_fetch() {
        let mut request = request_along(&["https://www.web-platform.test:8443/a"]);
        append_the_fetch_metadata_headers_for_a_request(&mut request);
        assert_eq!(header(&request, "sec-fetch-dest").as_deref(), Some("empty"));
        assert_eq!(header(&request, "sec-fetch-mode").as_deref(), Some("cors"));
        assert_eq!(
            header(&request, "sec-fetch-site").as_deref(),
            Some("same-site")
        );
        assert_eq!(header(&request, "sec-fetch-user"), None);
    }

    #[test]
    fn headers_carry_destination_and_mode() {
        let mut request = request_along(&["https://web-platform.test:8443/a"]);
        request.destination = RequestDestination::Image;
        request.mode = RequestMode::NoCors;
        append_the_fetch_metadata_headers_for_a_request(&mut request);
        assert_eq!(header(&request, "sec-fetch-dest").as_deref(), Some("image"));
        assert_eq!(
            header(&request, "sec-fetch-mode").as_deref(),
            Some("no-cors")
        );
        // Appending again (a retry of the same request) sets, never duplicates.
        append_the_fetch_metadata_headers_for_a_request(&mut request);
        assert_eq!(
            request
                .headers
                .header_list()
                .values(b"sec-fetch-mode")
                .count(),
            1
        );
    }

    #[test]
    fn navigation_requests_without_user_activation_get_no_sec_fetch_user() {
        let mut request = request_along(&["https://web-platform.test:8443/a"]);
        request.destination = RequestDestination::Document;
        request.mode = RequestMode::Navigate;
        append_the_fetch_metadata_headers_for_a_request(&mut request);
        assert_eq!(
            header(&request, "sec-fetch-dest").as_deref(),
            Some("document")
        );
        assert_eq!(
            header(&request, "sec-fetch-mode").as_deref(),
            Some("navigate")
        );
        assert_eq!(header(&request, "sec-fetch-user"), None);
    }

    #[test]
    fn only_potentially_trustworthy_urls_get_headers() {
        // Plain http to a non-loopback host: nothing.
        let mut request = request_along(&["http://web-platform.test:8000/a"]);
        append_the_fetch_metadata_headers_for_a_request(&mut request);
        assert!(header(&request, "sec-fetch-mode").is_none());
        // A redirect from https to http: nothing on the http hop.
        let mut request = request_along(&[
            "https://web-platform.test:8443/a",
            "http://web-platform.test:8000/b",
        ]);
        append_the_fetch_metadata_headers_for_a_request(&mut request);
        assert!(header(&request, "sec-fetch-site").is_none());
        // Back to https: sent again, cross-site because of the http hop.
        let mut request = request_along(&[
            "https://web-platform.test:8443/a",
            "http://web-platform.test:8000/b",
            "https://web-platform.test:8443/c",
        ]);
        append_the_fetch_metadata_headers_for_a_request(&mut request);
        assert_eq!(
            header(&request, "sec-fetch-site").as_deref(),
            Some("cross-site")
        );
        // Loopback http is potentially trustworthy.
        let mut request = request_along(&["http://127.0.0.1:8000/a"]);
        append_the_fetch_metadata_headers_for_a_request(&mut request);
        assert_eq!(
            header(&request, "sec-fetch-site").as_deref(),
            Some("cross-site")
        );
    }

    #[test]
    fn server_side_requests_get_no_headers() {
        let mut request = Request::from_url(Url::parse("https://example.com/").unwrap());
        assert_eq!(request.origin, RequestOrigin::Client);
        assert!(!request.client.is_browser_like());
        append_the_fetch_metadata_headers_for_a_request(&mut request);
        assert!(request.headers.header_list().is_empty());
        assert_eq!(sec_fetch_site(&request), None);
    }
}
