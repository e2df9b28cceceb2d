//! [HTTP-redirect fetch](https://fetch.spec.whatwg.org/#http-redirect-fetch).

use super::{FetchParams, is_http_scheme, main_fetch, network_error, referrer};
use crate::error::NetworkError;
use crate::headers::{is_cors_non_wildcard_request_header_name, is_request_body_header_name};
use crate::redirect::Decision;
use crate::request::{
    RequestMode, RequestOrigin, RequestRedirect, ResponseTainting, url_includes_credentials,
};
use crate::response::Response;

/// [HTTP-redirect fetch](https://fetch.spec.whatwg.org/#http-redirect-fetch): follow the
/// redirect `response` for fetchParams's request.
pub(crate) async fn http_redirect_fetch(
    fetch_params: &mut FetchParams<'_>,
    response: Response,
) -> Response {
    // Step 1. Let request be fetchParams's request.
    let request = &mut fetch_params.request;
    // Step 2. Let internalResponse be response, if response is not a filtered response;
    // otherwise response's internal response.
    let internal_response = response.internal_response_or_self();
    let status = internal_response.status;
    // Step 3. Let locationURL be internalResponse's location URL given request's current
    // URL's fragment.
    let location_url = internal_response.location_url(request.current_url().fragment());
    let location_url = match location_url {
        // Step 4. If locationURL is null, then return response.
        None => return response,
        Some(location_url) => location_url,
    };
    // Not in the spec: the client's redirect policy (`crate::redirect`), a layer of the
    // crate's own above these steps, as reqwest's is.
    // DEVIATION: a policy that decides by itself (`Policy::none`, `Policy::custom`) is
    // asked here, before steps 5 and 6 check locationURL, so that a policy that stops
    // hands back the redirect response whatever its `Location` says, as redirect mode
    // "manual" does; a custom policy sees the URL a `Location` names whatever its scheme,
    // and is not asked about one that is no URL. The spec's limit (`Policy::limited`, the
    // default) stays in step 7's place, after the checks, so that with it these steps
    // run as written.
    let policy = &fetch_params.context.redirect_policy;
    let browser_like = request.client.is_browser_like();
    let asked_early = policy.redirect_before_location_checks(
        status,
        location_url.as_ref().ok(),
        &request.url_list,
    );
    let decided_early = asked_early.is_some();
    let response = match asked_early {
        Some(action) => match apply_policy(action.decision(), response, browser_like) {
            Ruled::Follow(response) => response,
            Ruled::Return(done) => return done,
        },
        None => response,
    };
    let location_url = match location_url {
        // Step 5. If locationURL is failure, then return a network error.
        Err(_) => {
            let location = response
                .internal_response_or_self()
                .headers
                .header_list()
                .get("location")
                .map(|value| String::from_utf8_lossy(&value).into_owned())
                .unwrap_or_default();
            return network_error(NetworkError::InvalidLocation(location));
        }
        Ok(url) => url,
    };
    // Step 6. If locationURL's scheme is not an HTTP(S) scheme, then return a network
    // error.
    if !is_http_scheme(location_url.scheme()) {
        return network_error(NetworkError::UnsupportedScheme(
            location_url.scheme().to_owned(),
        ));
    }
    // Step 7. If request's redirect count is 20, then return a network error.
    // Not in the spec: the client's redirect policy counts in its place (20 by default),
    // unless it decided above.
    let response = match decided_early {
        true => response,
        false => {
            let decision = policy
                .redirect(status, &location_url, &request.url_list)
                .decision();
            match apply_policy(decision, response, browser_like) {
                Ruled::Follow(response) => response,
                Ruled::Return(done) => return done,
            }
        }
    };
    // Step 8. Increase request's redirect count by 1.
    // (Saturating: a redirect policy may allow more than a `u8` counts.)
    request.redirect_count = request.redirect_count.saturating_add(1);
    // Step 9. If request's mode is "cors", locationURL includes credentials, and request's
    // origin is not same origin with locationURL's origin, then return a network error.
    let location_origin = location_url.origin();
    let origin_is_same = match &request.origin {
        RequestOrigin::Origin(origin) => *origin == location_origin,
        RequestOrigin::Client => !request.client.is_browser_like(),
    };
    if request.mode == RequestMode::Cors
        && url_includes_credentials(&location_url)
        && !origin_is_same
    {
        return network_error(NetworkError::Blocked(
            "a CORS redirect to a URL with credentials".into(),
        ));
    }
    // Step 10. If request's response tainting is "cors" and locationURL includes
    // credentials, then return a network error.
    if request.response_tainting == ResponseTainting::Cors
        && url_includes_credentials(&location_url)
    {
        return network_error(NetworkError::Blocked(
            "a CORS redirect to a URL with credentials".into(),
        ));
    }
    // Step 11. If internalResponse's status is not 303, request's body is non-null, and
    // request's body's source is null, then return a network error.
    if status != 303 && request.body.as_ref().is_some_and(|body| !body.has_source()) {
        return network_error(NetworkError::StreamBodyOnRedirect);
    }
    // Step 12. If one of the following is true — internalResponse's status is 301 or 302
    // and request's method is `POST`; internalResponse's status is 303 and request's
    // method is not `GET` or `HEAD` — then:
    if ((status == 301 || status == 302) && request.method == "POST")
        || (status == 303 && request.method != "GET" && request.method != "HEAD")
    {
        // Step 12.1. Set request's method to `GET` and request's body to null.
        request.method = "GET".into();
        request.body = None;
        // Step 12.2. For each headerName of request-body-header name, delete headerName
        // from request's header list.
        remove_headers(request, is_request_body_header_name);
        // Not in the spec, where `Content-Length` and `Transfer-Encoding` are forbidden
        // request-headers that no caller can set: a server-side caller can set them (the
        // crate's transport refuses a caller's `Transfer-Encoding`, another may not).
        // They describe the body that is now null, so they go with it, as reqwest drops
        // them; kept, they would frame a body that is not sent.
        remove_headers(request, |name| {
            name.eq_ignore_ascii_case(b"content-length")
                || name.eq_ignore_ascii_case(b"transfer-encoding")
        });
    }
    // Step 13. If request's current URL's origin is not same origin with locationURL's
    // origin, then for each headerName of CORS non-wildcard request-header name, delete
    // headerName from request's header list.
    if request.current_url().origin() != location_origin {
        remove_headers(request, is_cors_non_wildcard_request_header_name);
        // Not in the spec, which leaves cookies to the cookie store: a `Cookie` or
        // `Proxy-Authorization` header a server-side caller set is not sent to another
        // origin either, as undici and Deno do.
        remove_headers(request, |name| {
            name.eq_ignore_ascii_case(b"cookie")
                || name.eq_ignore_ascii_case(b"proxy-authorization")
        });
        // Not in the spec either: the caller's credentials for Digest
        // (`RequestBuilder::digest_auth`) are for the request's first origin, as its
        // `Authorization` header is: another origin's challenge is not answered.
        request.digest_credentials = None;
    }
    // Step 14. If request's body is non-null, then set request's body to the body of the
    // result of safely extracting request's body's source. (Bytes of files on disk are
    // read again, and fail the body if the file changed.)
    if let Some(source) = request
        .body
        .as_ref()
        .and_then(|body| body.source_bytes().cloned())
    {
        request.body = Some(crate::body::Body::from_blob_bytes(source));
    }
    // Step 15. Let timingInfo be fetchParams's timing info.
    let timing_info = &mut fetch_params.timing_info;
    // Step 16. Set timingInfo's redirect end time and post-redirect start time to the
    // coarsened shared current time given fetchParams's cross-origin isolated capability.
    let now = std::time::Instant::now();
    timing_info.redirect_end_time = Some(now);
    timing_info.post_redirect_start_time = now;
    // Step 17. If timingInfo's redirect start time is 0, then set timingInfo's redirect
    // start time to timingInfo's start time.
    if timing_info.redirect_start_time.is_none() {
        timing_info.redirect_start_time = Some(timing_info.start_time);
    }
    let request = &mut fetch_params.request;
    // Step 18. Append locationURL to request's URL list.
    request.url_list.push(location_url);
    // Step 19. Invoke set request's referrer policy on redirect on request and
    // internalResponse.
    referrer::set_request_referrer_policy_on_redirect(
        request,
        response.internal_response_or_self(),
    );
    // Step 20. Let recursive be true.
    // Step 21. If request's redirect mode is "manual", then: assert request's mode is
    // "navigate"; set recursive to false.
    let recursive = request.redirect_mode != RequestRedirect::Manual;
    // The redirect response's body is not read: dropping it closes (or frees) its
    // connection before the next request.
    drop(response);
    // Step 22. Return the result of running main fetch given fetchParams and recursive.
    Box::pin(main_fetch(fetch_params, recursive)).await
}

/// Not in the spec: a redirect response as the client's redirect policy ruled on it.
enum Ruled {
    /// To be followed.
    Follow(Response),
    /// Not followed: the fetch's response (the redirect response, or a network error).
    Return(Response),
}

/// Not in the spec: what the client's redirect policy's `decision` makes of the redirect
/// `response`.
fn apply_policy(decision: Decision, response: Response, browser_like: bool) -> Ruled {
    match decision {
        Decision::Follow => Ruled::Follow(response),
        Decision::TooMany(max) => {
            Ruled::Return(network_error(NetworkError::TooManyRedirects { max }))
        }
        Decision::Error(error) => Ruled::Return(network_error(NetworkError::RedirectPolicy(error))),
        // The redirect response is the fetch's, as redirect mode "manual" has it: as is for
        // a server-side client, an opaque-redirect filtered response for a browser-like
        // one.
        Decision::Stop if browser_like => Ruled::Return(response.into_opaque_redirect_filtered()),
        Decision::Stop => Ruled::Return(response),
    }
}

/// Deletes every header whose name matches `predicate` from request's header list.
fn remove_headers(request: &mut crate::request::Request, predicate: impl Fn(&[u8]) -> bool) {
    let names: Vec<Vec<u8>> = request
        .headers
        .header_list()
        .iter()
        .filter(|(name, _)| predicate(name))
        .map(|(name, _)| name.to_vec())
        .collect();
    for name in names {
        request.headers.header_list_mut().delete(&name);
    }
}
