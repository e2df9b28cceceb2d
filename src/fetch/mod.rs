//! [Fetching](https://fetch.spec.whatwg.org/#fetching): the fetch algorithm, main fetch
//! and fetch response handover, plus the spec checks they run (bad ports, referrer, CORS,
//! integrity, nosniff) in submodules.
//!
//! The algorithms return a network-error [`Response`] as the spec does, so "if response is
//! a network error" reads as written. Aborting is done from outside: the `fetch()` method
//! races these futures against the request's signal and drops them when it fires, which
//! ends every stage (DNS, connect, TLS, headers) at once.

pub(crate) mod authentication;
pub(crate) mod bad_port;
pub(crate) mod checks;
pub(crate) mod cors;
pub(crate) mod cors_failure;
pub(crate) mod hsts;
pub(crate) mod http;
pub(crate) mod http_cache;
pub(crate) mod integrity;
pub(crate) mod keepalive;
pub(crate) mod metadata;
pub(crate) mod mixed_content;
pub(crate) mod redirect;
pub(crate) mod referrer;
pub(crate) mod scheme;

use std::sync::Arc;

use bytes::Bytes;

use crate::error::{Error, NetworkError};
use crate::net::Transport;
use crate::request::{
    Request, RequestDestination, RequestMode, RequestOrigin, RequestRedirect, ResponseTainting,
};
use crate::response::{Response, is_null_body_status};
use crate::timing::{FetchTimingInfo, TimingCell, clamp_and_coarsen_connection_timing_info};

/// What a fetch needs from the client that runs it: the network, and the options that
/// shape the requests it sends. Clones share the network, the caches and the cookie store.
#[derive(Clone)]
pub(crate) struct FetchContext {
    /// The network layer HTTP-network fetch sends requests through.
    pub(crate) transport: Arc<dyn Transport>,
    /// The HTTP cache, if the client has one.
    pub(crate) http_cache: Option<Arc<http_cache::HttpCache>>,
    /// The environment default `User-Agent` value.
    pub(crate) user_agent: Bytes,
    /// Whether `file:` URLs may be fetched.
    pub(crate) allow_file_urls: bool,
    /// The `Accept-Language` appended to requests without one, if any.
    pub(crate) accept_language: Option<Bytes>,
    /// The CORS-preflight cache.
    pub(crate) preflight_cache: Arc<cors::CorsPreflightCache>,
    /// The cookie store credentialed fetches read and write; `None` disables cookies.
    pub(crate) cookies: Option<CookieJar>,
    /// The known HSTS hosts; `None` disables HSTS.
    pub(crate) hsts: Option<Arc<hsts::HstsStore>>,
    /// The keepalive quota of the client's fetch group.
    pub(crate) keepalive_quota: Arc<keepalive::KeepaliveQuota>,
    /// The caps on response bodies from the network.
    pub(crate) body_limits: BodyLimits,
    /// Not in the spec: the client's redirect policy, consulted by HTTP-redirect fetch.
    pub(crate) redirect_policy: crate::redirect::Policy,
    /// Not in the spec: whether a request to a plain `http:` URL is refused
    /// ([`ClientBuilder::https_only`](crate::ClientBuilder::https_only)).
    pub(crate) https_only: bool,
    /// Not in the spec: the content codings the client asks for and decodes.
    pub(crate) codings: crate::net::ContentCodings,
    /// Not in the spec: how long a request body waits for a `100 Continue`
    /// ([`ClientBuilder::expect_continue`](crate::ClientBuilder::expect_continue)), unless
    /// the request says otherwise.
    pub(crate) expect_continue: Option<std::time::Duration>,
    /// The client's [authentication entries](https://fetch.spec.whatwg.org/#authentication-entries)
    /// (HTTP Digest), read only for requests with credentials for it.
    pub(crate) authentication_entries: Arc<authentication::AuthenticationEntries>,
}

/// The cookie store of a client with cookies enabled.
#[derive(Clone, Debug)]
pub(crate) enum CookieJar {
    /// The crate's in-memory store, read and written in place.
    Store(Arc<crate::cookie::CookieStore>),
    /// A store behind the [`CookieProvider`](crate::cookie::CookieProvider) trait, awaited.
    Provider(Arc<dyn crate::cookie::CookieProvider>),
}

/// Which fetch main fetch's step 12 runs.
enum Route {
    /// Scheme fetch.
    Scheme,
    /// HTTP fetch, with or without a CORS preflight.
    Http { cors_preflight: bool },
}

impl Route {
    /// Scheme fetch given a request whose current URL is `url`. For an HTTP(S) URL, scheme
    /// fetch returns the result of running HTTP fetch given fetchParams, and that is what
    /// runs: HTTP fetch is then awaited at main fetch's one place for it, without scheme
    /// fetch's future around it.
    fn scheme_fetch(url: &url::Url) -> Route {
        match is_http_scheme(url.scheme()) {
            true => Route::Http {
                cors_preflight: false,
            },
            false => Route::Scheme,
        }
    }
}

/// Not in the spec: the caps on the bytes a response body from the network (or the HTTP
/// cache) may deliver, set by [`ClientBuilder::max_response_body_size`] and
/// [`ClientBuilder::max_buffered_body_size`].
///
/// [`ClientBuilder::max_response_body_size`]: crate::ClientBuilder::max_response_body_size
/// [`ClientBuilder::max_buffered_body_size`]: crate::ClientBuilder::max_buffered_body_size
#[derive(Clone, Copy, Debug)]
pub(crate) struct BodyLimits {
    /// At most this many bytes, however the body is read.
    pub(crate) max_response: Option<u64>,
    /// At most this many bytes when the body is read whole.
    pub(crate) max_buffered: Option<u64>,
}

/// [Fetch params](https://fetch.spec.whatwg.org/#fetch-params): the request being fetched and
/// the client context it is fetched in.
pub(crate) struct FetchParams<'a> {
    /// <https://fetch.spec.whatwg.org/#fetch-params-request>. Borrowed from the caller of
    /// [`fetch`], which keeps it where it was made: a request (456 bytes) moved into each
    /// future that takes it is copied each time.
    pub(crate) request: &'a mut Request,
    /// <https://fetch.spec.whatwg.org/#fetch-params-timing-info>.
    pub(crate) timing_info: FetchTimingInfo,
    // Not in the spec: the client's network and options.
    pub(crate) context: &'a FetchContext,
    /// This fetch's share of the fetch group's keepalive quota, once a keepalive request
    /// with a body went out (HTTP-network-or-cache fetch step 8.10).
    pub(crate) keepalive_reservation: Option<keepalive::KeepaliveReservation>,
}

/// A [network error](https://fetch.spec.whatwg.org/#concept-network-error) for `cause`.
pub(crate) fn network_error(cause: NetworkError) -> Response {
    Response::network_error(Error::network(cause))
}

/// Whether `scheme` is an [HTTP(S) scheme](https://fetch.spec.whatwg.org/#http-scheme).
pub(crate) fn is_http_scheme(scheme: &str) -> bool {
    scheme == "http" || scheme == "https"
}

/// [Fetch](https://fetch.spec.whatwg.org/#concept-fetch) `request`: run main fetch and
/// return its response (a filtered response, or a network error).
pub(crate) async fn fetch(request: &mut Request, context: &FetchContext) -> Response {
    // Step 1. Assert: request's mode is "navigate" or processEarlyHintsResponse is null.
    // Steps 2–3. Let taskDestination be null; let crossOriginIsolatedCapability be false.
    // Step 4. Populate request from client given request.
    populate_request_from_client(request);
    // Steps 5–6. (Task destinations: this implementation is async.)
    // Step 7. Let timingInfo be a new fetch timing info whose start time and post-redirect
    // start time are the coarsened shared current time.
    let timing_info = FetchTimingInfo::new(std::time::Instant::now());
    // Step 8. Let fetchParams be a new fetch params whose request is request.
    // Step 9. If request's body is a byte sequence, then set request's body to request's
    // body as a body. (Bodies are always bodies here.)
    // Step 10. (WebDriver BiDi.)
    // Step 11. (Preloaded resources: there is no document to preload for.)
    // Step 12. If request's header list does not contain `Accept`, then:
    if !request.headers.header_list().contains("accept") {
        // Step 12.1. Let value be `*/*`.
        // Step 12.3. Otherwise, the user agent should set value to the first matching
        // statement, if any, switching on request's destination.
        let value: &'static [u8] = match request.destination {
            RequestDestination::Document
            | RequestDestination::Frame
            | RequestDestination::Iframe => {
                b"text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8"
            }
            RequestDestination::Image => b"image/png,image/svg+xml,image/*;q=0.8,*/*;q=0.5",
            RequestDestination::Json => b"application/json,*/*;q=0.5",
            RequestDestination::Style => b"text/css,*/*;q=0.1",
            RequestDestination::Text => b"text/plain,*/*;q=0.5",
            _ => b"*/*",
        };
        // Step 12.4. Append (`Accept`, value) to request's header list.
        request
            .headers
            .header_list_mut()
            .push(Bytes::from_static(b"Accept"), Bytes::from_static(value));
    }
    // Step 13. (Accept-Language: emulated languages only.)
    // Step 14. If request's header list does not contain `Accept-Language`, then user
    // agents should append (`Accept-Language`, an appropriate header value). A library has
    // no user language to announce: the client's value (default `*`, as Deno and undici
    // send) stands for "any".
    if let Some(value) = &context.accept_language {
        if !request.headers.header_list().contains("accept-language") {
            request
                .headers
                .header_list_mut()
                .push(Bytes::from_static(b"Accept-Language"), value.clone());
        }
    }
    // Steps 15–16. (Internal priority and fetch records.)
    let mut fetch_params = FetchParams {
        request,
        timing_info,
        context,
        keepalive_reservation: None,
    };
    // Step 17. Run main fetch given fetchParams.
    let mut response = main_fetch(&mut fetch_params, false).await;
    fetch_response_handover_timing(&fetch_params, &mut response);
    // Not in the spec: a network error names the URL that failed, for its message.
    if response.is_network_error() {
        response.set_network_error_url(fetch_params.request.current_url());
    }
    // The request's done flag is set at the end of the response body (fetch response
    // handover's processResponseEndOfBody): a keepalive reservation lasts until then.
    if let Some(reservation) = fetch_params.keepalive_reservation.take() {
        keepalive::hold_until_end_of_body(&mut response, reservation);
    }
    response
}

/// The timing steps of [fetch response handover](https://fetch.spec.whatwg.org/#fetch-finale)
/// given `fetch_params` and `response`: the timing info goes where
/// [`Response::timing`] reads it, with the end of the body (processResponseEndOfBody's
/// unsafe end time) and its sizes, which the body's stream adds as it is read.
///
/// Not in the spec, which takes the final connection timing info and the final network
/// request and response start times in HTTP-network fetch: they are recorded on the
/// response there (see `http::from_http_response`) and taken here, from the response the
/// fetch returns, which is the same one.
fn fetch_response_handover_timing(fetch_params: &FetchParams<'_>, response: &mut Response) {
    // Step 4.2.1 (of processResponseEndOfBody's report timing steps). If fetchParams's
    // request's URL's scheme is not an HTTP(S) scheme, then return. (Nor is there timing
    // for a network error here.)
    let url = fetch_params.request.url_list.first();
    if response.is_network_error() || !url.is_some_and(|url| is_http_scheme(url.scheme())) {
        return;
    }
    // Step 1. Let timingInfo be fetchParams's timing info. (Set below in the response's
    // cell, where the steps change it.)
    let no_body = response.body.is_none() && response.internal_response_or_self().body.is_none();
    let internal_response = response.internal_response_mut();
    // A response not from the network (the HTTP cache's) gets its cell here.
    let cell = internal_response
        .timing
        .get_or_insert_with(|| Arc::new(TimingCell::default()));
    // A response without a body has ended with its head.
    if no_body {
        cell.end_of_body();
    }
    let timing_allow_passed = internal_response.timing_allow_passed;
    cell.set_info(&fetch_params.timing_info, |timing_info| {
        // HTTP-network fetch step 8.2: set timingInfo's final connection timing info to
        // the result of calling clamp and coarsen connection timing info with connection's
        // timing info, timingInfo's post-redirect start time, and fetchParams's
        // cross-origin isolated capability.
        if let Some(network) = &cell.network {
            timing_info.final_connection_timing_info =
                Some(clamp_and_coarsen_connection_timing_info(
                    &network.connection_timing_info,
                    timing_info.post_redirect_start_time,
                ));
            // HTTP-network fetch step 8.4: set timingInfo's final network-request start
            // time.
            timing_info.final_network_request_start_time = Some(network.network_request_start_time);
            // HTTP-network fetch step 8.5: set timingInfo's final network-response start
            // time once the HTTP parser received the response.
            // DEVIATION: over HTTP/2, taken when the whole head has been parsed, not at its
            // first byte: hyper gives no earlier hook. (Over HTTP/1.1 it is the first
            // byte's.)
            timing_info.final_network_response_start_time =
                Some(network.network_response_start_time);
            // Not in the spec: whether the connection was reused.
            timing_info.connection_reused = network.connection_reused;
        }
        // Step 4.2.5. If response's timing allow passed flag is not set, then set
        // timingInfo to the result of creating an opaque timing info for timingInfo.
        if !timing_allow_passed {
            *timing_info = timing_info.create_an_opaque_timing_info();
        }
    });
}

/// [Populate request from client](https://fetch.spec.whatwg.org/#populate-request-from-client).
fn populate_request_from_client(request: &mut Request) {
    // Step 1. (Traversable for user prompts: there are no user prompts here.)
    // Step 2. If request's origin is "client":
    if request.origin == RequestOrigin::Client {
        // Step 2.1. Assert: request's client is non-null.
        // Step 2.2. Set request's origin to request's client's origin.
        // A server-side client has no origin: the request keeps "client", which no URL is
        // same origin with, and main fetch treats every URL as its own.
        if let Some(origin) = request.client.origin() {
            request.origin = RequestOrigin::Origin(origin.clone());
        }
    }
    // Step 3. (Policy container: the environment's referrer policy is applied in main
    // fetch.)
}

/// Whether `request`'s current URL is same origin with its origin. In a server-side
/// environment (no origin) every URL counts as same origin: there is no page whose origin
/// CORS would protect.
pub(crate) fn is_same_origin_with_request(request: &Request, url: &url::Url) -> bool {
    match &request.origin {
        RequestOrigin::Origin(origin) => *origin == url.origin(),
        RequestOrigin::Client => !request.client.is_browser_like(),
    }
}

/// Steps 1–12 of [main fetch](https://fetch.spec.whatwg.org/#concept-main-fetch), up to
/// the fetch step 12 runs: which one (scheme fetch, or HTTP fetch with or without a CORS
/// preflight), or the response already settled (a network error). Apart from
/// [`main_fetch`], so that what these steps hold is gone before the fetch is awaited
/// rather than kept in its future's state all the while.
#[expect(
    clippy::result_large_err,
    reason = "the `Err` is the response the steps settle on (a network error), moved once \
              into main fetch's: boxing it would allocate for every such response"
)]
fn main_fetch_route(fetch_params: &mut FetchParams<'_>) -> Result<Route, Response> {
    // Step 1. Let request be fetchParams's request.
    let request = &mut fetch_params.request;
    // Step 2. Let response be null.
    let mut response: Option<Response> = None;
    // Step 3. (local-URLs-only flag: never set by this API.)
    // Step 4. TODO(spec): Run report Content Security Policy violations for request.
    // Step 5. TODO(spec): Upgrade request to a potentially trustworthy URL, if appropriate
    // (HTTPS upgrades of navigations and HSTS-like policies).
    // Step 6. Upgrade a mixed content request to a potentially trustworthy URL, if
    // appropriate.
    mixed_content::upgrade_a_mixed_content_request(request);
    // Step 7. If should request be blocked due to a bad port, should fetching request be
    // blocked as mixed content, should request be blocked by Content Security Policy, or
    // should request be blocked by Integrity Policy Policy returns blocked, then set
    // response to a network error. (There are no content security or integrity policies.)
    if bad_port::should_request_be_blocked_due_to_bad_port(request) {
        let port = request.current_url().port_or_known_default().unwrap_or(0);
        response = Some(network_error(NetworkError::BadPort(port)));
    } else if mixed_content::should_fetching_request_be_blocked_as_mixed_content(request) {
        response = Some(network_error(NetworkError::Blocked(
            format!(
                "mixed content: {} is not potentially trustworthy and the client's origin is",
                request.current_url()
            )
            .into(),
        )));
    }
    // Step 8. If request's referrer policy is the empty string, then set request's
    // referrer policy to request's policy container's referrer policy.
    referrer::apply_default_referrer_policy(request);
    // Step 9. If request's referrer is not "no-referrer", then set request's referrer to
    // the result of invoking determine request's referrer.
    if request.referrer != crate::request::Referrer::NoReferrer {
        request.referrer = match referrer::determine_request_referrer(request) {
            Some(url) => crate::request::Referrer::Url(url),
            None => crate::request::Referrer::NoReferrer,
        };
    }
    // Step 10. Set request's current URL's scheme to "https" if all of the following are
    // true: its scheme is "http"; its host is a domain; its host's public suffix is not
    // "localhost" or "localhost."; matching the host per Known HSTS Host Domain Name
    // Matching results in a superdomain match with an asserted includeSubDomains
    // directive or a congruent match. (Or DNS finds an HTTPS RR: not looked up here.)
    if let Some(hsts) = &fetch_params.context.hsts {
        if hsts.should_upgrade(request.current_url(), std::time::SystemTime::now()) {
            if let Some(current) = request.url_list.last_mut() {
                // From one special scheme to another: cannot fail. A default port goes
                // with it (http's 80 becomes https's 443); an explicit one is kept.
                let _ = current.set_scheme("https");
            }
        }
    }
    // Not in the spec: a client made `https_only` refuses a plain `http:` URL, a redirect
    // to one included, once HSTS has had its chance to upgrade it. Reached by a redirect
    // (the URL list holds more than the request's URL), it is a redirect refused, as
    // reqwest classes it.
    if response.is_none()
        && fetch_params.context.https_only
        && request.current_url().scheme() == "http"
    {
        response = Some(network_error(match request.url_list.len() > 1 {
            true => NetworkError::RedirectToHttp,
            false => NetworkError::Blocked(
                format!(
                    "{} is not https: and the client is https_only",
                    request.current_url()
                )
                .into(),
            ),
        }));
    }
    // Step 11. If recursive is false, then run the remaining steps in parallel.
    // Step 12. If response is null, then set response to the result of running the steps
    // corresponding to the first matching statement:
    // (Which fetch runs is settled first, so that each is awaited at one place: a debug
    // build gives every await of a future its own room in the frame, and a redirect
    // chain stacks one main fetch's frame per hop.)
    match response {
        Some(response) => Err(response),
        None => {
            let current_url = request.current_url();
            let same_origin = is_same_origin_with_request(request, current_url);
            if (same_origin && request.response_tainting == ResponseTainting::Basic)
                || current_url.scheme() == "data"
                || matches!(request.mode, RequestMode::Navigate | RequestMode::WebSocket)
            {
                // Set request's response tainting to "basic". Return the result of running
                // scheme fetch given fetchParams.
                let route = Route::scheme_fetch(current_url);
                request.response_tainting = ResponseTainting::Basic;
                Ok(route)
            } else if request.mode == RequestMode::SameOrigin {
                // request's mode is "same-origin": Return a network error.
                Err(network_error(NetworkError::Blocked(
                    "cross-origin request in mode \"same-origin\"".into(),
                )))
            } else if request.mode == RequestMode::NoCors {
                // If request's redirect mode is not "follow", then return a network error.
                if request.redirect_mode != RequestRedirect::Follow {
                    Err(network_error(NetworkError::Blocked(
                        "a no-cors request must follow redirects".into(),
                    )))
                } else {
                    // Set request's response tainting to "opaque". Return the result of
                    // running scheme fetch given fetchParams.
                    let route = Route::scheme_fetch(current_url);
                    request.response_tainting = ResponseTainting::Opaque;
                    Ok(route)
                }
            } else if !is_http_scheme(current_url.scheme()) {
                // request's current URL's scheme is not an HTTP(S) scheme: Return a network
                // error.
                Err(network_error(NetworkError::Blocked(
                    format!("cross-origin {}: request", current_url.scheme()).into(),
                )))
            } else if request.use_cors_preflight
                || (request.unsafe_request
                    && (!crate::headers::is_cors_safelisted_method(request.method.as_bytes())
                        || !crate::headers::cors_unsafe_request_header_names(
                            request.headers.header_list(),
                        )
                        .is_empty()))
            {
                // Set request's response tainting to "cors".
                request.response_tainting = ResponseTainting::Cors;
                // Let corsWithPreflightResponse be the result of running HTTP fetch given
                // fetchParams and true.
                Ok(Route::Http {
                    cors_preflight: true,
                })
            } else {
                // Otherwise: Set request's response tainting to "cors". Return the result of
                // running HTTP fetch given fetchParams.
                request.response_tainting = ResponseTainting::Cors;
                Ok(Route::Http {
                    cors_preflight: false,
                })
            }
        }
    }
}

/// [Main fetch](https://fetch.spec.whatwg.org/#concept-main-fetch).
pub(crate) async fn main_fetch(fetch_params: &mut FetchParams<'_>, recursive: bool) -> Response {
    // Steps 1–12, but the fetch step 12 runs (see `main_fetch_route`).
    let route = main_fetch_route(fetch_params);
    let mut response = match route {
        Err(response) => response,
        Ok(Route::Scheme) => scheme::scheme_fetch(fetch_params).await,
        Ok(Route::Http { cors_preflight }) => {
            let response = http::http_fetch(fetch_params, cors_preflight).await;
            // (After HTTP fetch with a CORS preflight:) If corsWithPreflightResponse is a
            // network error, then clear cache entries using request. Return
            // corsWithPreflightResponse.
            if cors_preflight && response.is_network_error() {
                fetch_params
                    .context
                    .preflight_cache
                    .clear_cache_entries(fetch_params.request);
            }
            response
        }
    };
    let request = &mut fetch_params.request;
    // Step 13. If recursive is true, then return response.
    if recursive {
        return response;
    }
    // Step 14. If response is not a network error and response is not a filtered response,
    // then:
    if !response.is_network_error() && response.internal_response.is_none() {
        // Step 14.1. If request's response tainting is "cors", then set the CORS-exposed
        // header-name list.
        if request.response_tainting == ResponseTainting::Cors {
            cors::set_cors_exposed_header_names(request, &mut response);
        }
        // Step 14.2. Set response to the following filtered response with response as its
        // internal response, depending on request's response tainting.
        match request.response_tainting {
            ResponseTainting::Basic if request.client.is_browser_like() => {
                response = response.into_basic_filtered();
            }
            // DEVIATION: with no origin (server-side), the basic filter keeps
            // `Set-Cookie`: there is no page to hide it from, and server code reads it, as
            // in Deno and undici. (Typed in place: the response is not moved.)
            ResponseTainting::Basic => response.make_basic_unfiltered(),
            ResponseTainting::Cors => response = response.into_cors_filtered(),
            ResponseTainting::Opaque => response = response.into_opaque_filtered(),
        }
    }
    // Step 15. Let internalResponse be response, if response is a network error;
    // otherwise response's internal response.
    // Step 16. If internalResponse's URL list is empty, then set it to a clone of request's
    // URL list.
    {
        let internal_response = response.internal_response_mut();
        if internal_response.url_list.is_empty() {
            internal_response.url_list = request.url_list.clone();
        }
    }
    if response.url_list.is_empty()
        && matches!(
            response.r#type,
            crate::ResponseType::Basic | crate::ResponseType::Cors
        )
    {
        response.url_list = request.url_list.clone();
    }
    // Steps 17–18. (Redirect taint and navigation timing allow values.)
    // Step 19. If request's timing allow failed flag is unset, then set internalResponse's
    // timing allow passed flag.
    if !request.timing_allow_failed {
        response.internal_response_mut().timing_allow_passed = true;
    }
    // Step 20. If response is not a network error and any of the following returns blocked
    // — mixed content, CSP, MIME type, nosniff — then set response and internalResponse to
    // a network error.
    if !response.is_network_error() {
        let internal_response = response.internal_response_or_self();
        if mixed_content::should_response_to_request_be_blocked_as_mixed_content(
            request,
            internal_response,
        ) {
            response = network_error(NetworkError::Blocked(
                "mixed content: the response came over an insecure connection".into(),
            ));
        } else if checks::should_response_be_blocked_due_to_mime_type(internal_response, request)
            || checks::should_response_be_blocked_due_to_nosniff(internal_response, request)
        {
            response = network_error(NetworkError::Blocked(
                "response blocked by its MIME type".into(),
            ));
        }
    }
    // Step 21. If response's type is "opaque", internalResponse's status is a range
    // status, internalResponse's range-requested flag is set, and request's header list
    // does not contain `Range`, then set response and internalResponse to a network error.
    if response.r#type == crate::ResponseType::Opaque {
        let internal_response = response.internal_response_or_self();
        if matches!(internal_response.status, 206 | 416)
            && internal_response.range_requested
            && !request.headers.header_list().contains("range")
        {
            response = network_error(NetworkError::Blocked(
                "a ranged opaque response to a request without Range".into(),
            ));
        }
    }
    // Step 22. If response is not a network error and either request's method is `HEAD`
    // or `CONNECT`, or internalResponse's status is a null body status, set
    // internalResponse's body to null and disregard any enqueuing toward it.
    if !response.is_network_error()
        && (request.method == "HEAD"
            || request.method == "CONNECT"
            || is_null_body_status(response.internal_response_or_self().status))
    {
        *response.body_slot_mut() = None;
    }
    // Step 23. If request's integrity metadata is not the empty string, then:
    if !request.integrity_metadata.is_empty() && !response.is_network_error() {
        // Step 23.1. Let processBodyError be this step: run fetch response handover given
        // fetchParams and a network error.
        // Step 23.2. If response's body is null, then run processBodyError and abort these
        // steps.
        let Some(body) = response.body.take() else {
            return network_error(NetworkError::Integrity);
        };
        // Step 23.3–4. Fully read response's body given processBody and processBodyError.
        let bytes = match body.bytes().await {
            Ok(bytes) => bytes,
            Err(_) => return network_error(NetworkError::Integrity),
        };
        // processBody: If bytes do not match request's integrity metadata, then run
        // processBodyError and abort these steps.
        if !integrity::bytes_match_metadata_list(&bytes, &request.integrity_metadata) {
            return network_error(NetworkError::Integrity);
        }
        // Set response's body to bytes as a body. Run fetch response handover given
        // fetchParams and response.
        response.body = Some(crate::body::Body::from_bytes(bytes));
    }
    // Step 24. Otherwise, run fetch response handover given fetchParams and response.
    response
}
