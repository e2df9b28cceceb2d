//! [Mixed Content](https://w3c.github.io/webappsec-mixed-content/): a page served securely
//! does not load resources over an insecure connection.
//!
//! Main fetch asks three questions of this module: whether to upgrade a request (only
//! images, audio and video are upgraded, and `fetch()` makes none), whether to block a
//! request, and whether to block a response. All three concern an environment whose origin
//! is [potentially trustworthy](is_potentially_trustworthy_origin) (a page at `https:`,
//! or on a loopback host): from such an environment, a `fetch()` of an `http:` URL that is
//! not itself potentially trustworthy (such as `http://127.0.0.1/`) is a network error,
//! before anything is sent, and so is a redirect to one. A server-side environment has no
//! origin and restricts nothing.

use url::Url;

use super::checks::{is_potentially_trustworthy_origin, is_potentially_trustworthy_url};
use crate::environment::Environment;
use crate::request::{Request, RequestDestination};
use crate::response::Response;

/// What [categorize settings object](https://w3c.github.io/webappsec-mixed-content/#categorize-settings-object)
/// returns.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum MixedSecurityContexts {
    /// "Prohibits Mixed Security Contexts".
    Prohibits,
    /// "Does Not Restrict Mixed Security Contexts".
    DoesNotRestrict,
}

/// [Does settings prohibit mixed security contexts?](https://w3c.github.io/webappsec-mixed-content/#categorize-settings-object)
/// for the environment `settings`.
fn categorize_settings_object(settings: &Environment) -> MixedSecurityContexts {
    // Step 1. If settings' origin is a potentially trustworthy origin, then return
    // "Prohibits Mixed Security Contexts".
    // (A server-side environment has no origin: nothing to protect.)
    if settings
        .origin()
        .is_some_and(is_potentially_trustworthy_origin)
    {
        return MixedSecurityContexts::Prohibits;
    }
    // Step 2. If settings' global object is a window, then: for each navigable in its
    // document's ancestor navigables, if its active document's origin is potentially
    // trustworthy, return "Prohibits Mixed Security Contexts". (There are no windows or
    // ancestors here.)
    // Step 3. Return "Does Not Restrict Mixed Security Contexts".
    MixedSecurityContexts::DoesNotRestrict
}

/// [Upgrade a mixed content request to a potentially trustworthy URL, if appropriate](https://w3c.github.io/webappsec-mixed-content/#upgrade-algorithm):
/// main fetch step 6.
pub(crate) fn upgrade_a_mixed_content_request(request: &mut Request) {
    let url = request.current_url();
    // Step 1. If one or more of the following conditions is met, return without modifying
    // request: request's URL is a potentially trustworthy URL; request's URL's host is an
    // IP address; categorize settings object returns "Does Not Restrict Mixed Security
    // Contexts" for request's client; request's destination is not "image", "audio", or
    // "video"; request's destination is "image" and request's initiator is "imageset"
    // (there are no initiators here).
    // (The conditions are tested cheapest first: most requests have none of these
    // destinations, and the trustworthiness check reads the URL's origin.)
    if !matches!(
        request.destination,
        RequestDestination::Image | RequestDestination::Audio | RequestDestination::Video
    ) || matches!(url.host(), Some(url::Host::Ipv4(_) | url::Host::Ipv6(_)))
        || categorize_settings_object(&request.client) == MixedSecurityContexts::DoesNotRestrict
        || is_potentially_trustworthy_url(url)
    {
        return;
    }
    // Step 2. If request's URL's scheme is http, set request's URL's scheme to https, and
    // return.
    if url.scheme() == "http" {
        let mut upgraded: Url = url.clone();
        // Changing http to https cannot fail: both are special schemes. A default port
        // (80) goes with it: the URL parser drops a port equal to the scheme's default.
        if upgraded.set_scheme("https").is_ok() {
            if let Some(current) = request.url_list.last_mut() {
                *current = upgraded;
            }
        }
    }
}

/// [Should fetching request be blocked as mixed content?](https://w3c.github.io/webappsec-mixed-content/#should-block-fetch):
/// true for **blocked**.
pub(crate) fn should_fetching_request_be_blocked_as_mixed_content(request: &Request) -> bool {
    // Step 1. Return allowed if one or more of the following conditions are met:
    // categorize settings object returns "Does Not Restrict Mixed Security Contexts" when
    // applied to request's client; request's current URL is a potentially trustworthy URL;
    // the user agent has been instructed to allow mixed content (it has not); request's
    // destination is "document" and its target browsing context has no parent (there are
    // no browsing contexts here).
    if categorize_settings_object(&request.client) == MixedSecurityContexts::DoesNotRestrict
        || is_potentially_trustworthy_url(request.current_url())
    {
        return false;
    }
    // Step 2. Return blocked.
    true
}

/// [Should response to request be blocked as mixed content?](https://w3c.github.io/webappsec-mixed-content/#should-block-response):
/// true for **blocked**.
pub(crate) fn should_response_to_request_be_blocked_as_mixed_content(
    request: &Request,
    response: &Response,
) -> bool {
    // Step 1. Return allowed if one or more of the following conditions are met:
    // categorize settings object returns "Does Not Restrict Mixed Content" when applied to
    // request's client; response's url is a potentially trustworthy URL; the user agent
    // has been instructed to allow mixed content; request's destination is "document" and
    // its target browsing context has no parent. (A response without a URL, such as one
    // made by the fetch itself, came over no connection: allowed.)
    if categorize_settings_object(&request.client) == MixedSecurityContexts::DoesNotRestrict
        || response
            .url_list
            .last()
            .is_none_or(is_potentially_trustworthy_url)
    {
        return false;
    }
    // Step 2. Return blocked.
    true
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::request::RequestInit;

    fn request_from(page: Option<&str>, url: &str) -> Request {
        let environment = Arc::new(match page {
            Some(page) => Environment::browser(Url::parse(page).unwrap()),
            None => Environment::server(),
        });
        Request::new_in(&environment, url, RequestInit::default()).unwrap()
    }

    #[test]
    fn a_secure_page_may_not_fetch_insecure_urls() {
        let blocked = |page: Option<&str>, url: &str| {
            should_fetching_request_be_blocked_as_mixed_content(&request_from(page, url))
        };
        let secure = Some("https://app.example/");
        assert!(blocked(secure, "http://api.example/"));
        assert!(!blocked(secure, "https://api.example/"));
        // Loopback and localhost URLs are potentially trustworthy.
        assert!(!blocked(secure, "http://127.0.0.1:8080/"));
        assert!(!blocked(secure, "http://localhost:8080/"));
        assert!(!blocked(secure, "data:,x"));
        // An insecure page, and a server-side client, restrict nothing.
        assert!(!blocked(Some("http://app.example/"), "http://api.example/"));
        assert!(!blocked(None, "http://api.example/"));
        // A page on localhost counts as secure.
        assert!(blocked(Some("http://localhost/"), "http://api.example/"));
    }

    #[test]
    fn a_response_from_an_insecure_url_is_blocked_on_a_secure_page() {
        let request = request_from(Some("https://app.example/"), "https://api.example/");
        let mut response = Response::new(None, crate::response::ResponseInit::default()).unwrap();
        assert!(!should_response_to_request_be_blocked_as_mixed_content(
            &request, &response
        ));
        response.url_list = vec![Url::parse("https://api.example/").unwrap()].into();
        assert!(!should_response_to_request_be_blocked_as_mixed_content(
            &request, &response
        ));
        response.url_list = vec![Url::parse("http://api.example/").unwrap()].into();
        assert!(should_response_to_request_be_blocked_as_mixed_content(
            &request, &response
        ));
        let server_side = request_from(None, "https://api.example/");
        assert!(!should_response_to_request_be_blocked_as_mixed_content(
            &server_side,
            &response
        ));
    }

    #[test]
    fn only_images_audio_and_video_are_upgraded() {
        let mut request = request_from(Some("https://app.example/"), "http://cdn.example/a.png");
        upgrade_a_mixed_content_request(&mut request);
        assert_eq!(request.current_url().as_str(), "http://cdn.example/a.png");
        request.destination = RequestDestination::Image;
        upgrade_a_mixed_content_request(&mut request);
        assert_eq!(request.current_url().as_str(), "https://cdn.example/a.png");
        // Not from an insecure page, and never an IP address.
        let mut insecure = request_from(Some("http://app.example/"), "http://cdn.example/a.png");
        insecure.destination = RequestDestination::Image;
        upgrade_a_mixed_content_request(&mut insecure);
        assert_eq!(insecure.current_url().scheme(), "http");
        let mut ip = request_from(Some("https://app.example/"), "http://192.0.2.1/a.png");
        ip.destination = RequestDestination::Video;
        upgrade_a_mixed_content_request(&mut ip);
        assert_eq!(ip.current_url().scheme(), "http");
    }
}
