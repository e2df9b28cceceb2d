//! [HTTP fetch](https://fetch.spec.whatwg.org/#http-fetch),
//! [HTTP-network-or-cache fetch](https://fetch.spec.whatwg.org/#http-network-or-cache-fetch)
//! and [HTTP-network fetch](https://fetch.spec.whatwg.org/#http-network-fetch).
//!
//! HTTP-network fetch is the one place the spec layer meets the network: it turns the
//! request into an `http::Request` for the client's [`Transport`](crate::net::Transport) and
//! the answer back into a [`Response`].

use std::future::Future;
use std::ops::ControlFlow;
#[cfg(debug_assertions)]
use std::pin::Pin;
use std::sync::Arc;
use std::time::SystemTime;

use bytes::Bytes;

use super::http_cache::{self, Completion, HttpCache, StoredResponse};
use super::{CookieJar, FetchContext, FetchParams, cors, network_error, redirect};
use crate::body::Body;
use crate::error::{Error, NetworkError};
use crate::headers::{HeaderList, Headers, HeadersGuard};
use crate::infra::kept::{self, LastText};
use crate::net::{RequestBody, SendOptions};
use crate::request::{
    Referrer, Request, RequestCache, RequestCredentials, RequestMode, RequestRedirect,
    ResponseTainting,
};
use crate::response::{Response, is_redirect_status};
use crate::timing::{ConnectionTimingInfo, NetworkTiming, TimingCell};

/// [HTTP fetch](https://fetch.spec.whatwg.org/#concept-http-fetch).
pub(crate) async fn http_fetch(
    fetch_params: &mut FetchParams<'_>,
    make_cors_preflight: bool,
) -> Response {
    // Step 1. Let request be fetchParams's request.
    // Step 2. Let response and internalResponse be null.
    // Step 3. (Service workers: none here.)
    // Step 4. If response is null, then:
    // Step 4.1. If makeCORSPreflight is true and one of these conditions is true: there is
    // no method cache entry match for request's method using request, and either request's
    // method is not a CORS-safelisted method or request's use-CORS-preflight flag is set;
    // there is at least one item in the CORS-unsafe request-header names with request's
    // header list for which there is no header-name cache entry match using request. Then:
    if make_cors_preflight {
        let request = &fetch_params.request;
        if cors::cors_preflight_needed(request, &fetch_params.context.preflight_cache) {
            // Step 4.1.1. Let preflightResponse be the result of running CORS-preflight
            // fetch given request.
            // Step 4.1.2. If preflightResponse is a network error, then return
            // preflightResponse.
            if let Some(error) = cors_preflight_fetch(fetch_params).await {
                return error;
            }
        }
    }
    // Step 4.2. (Service-workers mode.)
    // Step 4.3. Set response and internalResponse to the result of running
    // HTTP-network-or-cache fetch given fetchParams.
    let mut response = network_or_cache(fetch_params).await;
    let request = &fetch_params.request;
    // Step 4.4. If request's response tainting is "cors" and a CORS check for request and
    // response returns failure, then return a network error.
    if request.response_tainting == ResponseTainting::Cors && !response.is_network_error() {
        if let Err(failure) = cors::cors_check(request, &response) {
            return network_error(NetworkError::from(failure));
        }
    }
    // Step 4.5. If the TAO check for request and response returns failure, then set
    // request's timing allow failed flag.
    if !response.is_network_error() && !cors::tao_check(request, &response) {
        fetch_params.request.timing_allow_failed = true;
    }
    let request = &fetch_params.request;
    // Step 5. If either request's response tainting or response's type is "opaque", and
    // the cross-origin resource policy check returns blocked, then return a network error.
    if (request.response_tainting == ResponseTainting::Opaque
        || response.r#type == crate::ResponseType::Opaque)
        && !response.is_network_error()
        && cors::request_origin(request).is_some_and(|origin| {
            !super::checks::cross_origin_resource_policy_check(
                &origin,
                &request.client,
                request.destination,
                response.internal_response_or_self(),
                false,
            )
        })
    {
        return network_error(NetworkError::Blocked(
            "blocked by Cross-Origin-Resource-Policy".into(),
        ));
    }
    // Step 6. If internalResponse's status is a redirect status:
    if !response.is_network_error() && is_redirect_status(response.status) {
        // Step 6.1. (Navigation timing allow values.)
        // Step 6.2. (RST_STREAM for HTTP/2 bodies.)
        // Step 6.3. Switch on request's redirect mode:
        match request.redirect_mode {
            // "error": Set response to a network error.
            RequestRedirect::Error => {
                response = network_error(NetworkError::RedirectRefused);
            }
            // "manual": If request's mode is "navigate", then set fetchParams's
            // controller's next manual redirect steps. Otherwise, set response to an
            // opaque-redirect filtered response whose internal response is internalResponse.
            RequestRedirect::Manual => {
                // DEVIATION: with no origin (server-side), the actual redirect response is
                // returned, status and Location visible, as Deno and undici do: server code
                // follows redirects itself.
                if request.client.is_browser_like() {
                    response = response.into_opaque_redirect_filtered();
                }
            }
            // "follow": Set response to the result of running HTTP-redirect fetch given
            // fetchParams and response.
            RequestRedirect::Follow => {
                response = Box::pin(redirect::http_redirect_fetch(fetch_params, response)).await;
            }
        }
    }
    // Step 7. Return response.
    response
}

/// HTTP-network-or-cache fetch given `fetch_params`, as HTTP fetch awaits it. A debug build
/// makes its future in a frame of its own and moves it to the heap: such a build gives
/// every future it makes room in the maker's frame, this one (the largest of a fetch) is
/// made inside HTTP fetch's, scheme fetch's and main fetch's, and a redirect chain polls
/// one main fetch inside the other, so 30 redirects took more than a 2 MiB thread's stack.
/// An optimized build's frames are small, and it keeps the future inline.
#[cfg(debug_assertions)]
fn network_or_cache<'a>(
    fetch_params: &'a mut FetchParams<'_>,
) -> Pin<Box<impl Future<Output = Response> + 'a>> {
    Box::pin(http_network_or_cache_fetch(fetch_params, false, false))
}

/// HTTP-network-or-cache fetch given `fetch_params`, as HTTP fetch awaits it (see the debug
/// build's).
#[cfg(not(debug_assertions))]
fn network_or_cache<'a>(
    fetch_params: &'a mut FetchParams<'_>,
) -> impl Future<Output = Response> + 'a {
    http_network_or_cache_fetch(fetch_params, false, false)
}

/// [CORS-preflight fetch](https://fetch.spec.whatwg.org/#cors-preflight-fetch): `None` when
/// the preflight succeeded (and was cached), or the network error to return.
async fn cors_preflight_fetch(fetch_params: &FetchParams<'_>) -> Option<Response> {
    let request = &fetch_params.request;
    // Steps 1–5. Let preflight be a new request for the OPTIONS method, with the
    // `Access-Control-Request-*` headers.
    let mut preflight = cors::cors_preflight_request(request);
    // Step 6. Let response be the result of running HTTP-network-or-cache fetch given a new
    // fetch params whose request is preflight.
    let mut preflight_params = FetchParams {
        request: &mut preflight,
        timing_info: crate::timing::FetchTimingInfo::new(std::time::Instant::now()),
        context: fetch_params.context,
        keepalive_reservation: None,
    };
    let response = Box::pin(http_network_or_cache_fetch(
        &mut preflight_params,
        false,
        false,
    ))
    .await;
    if response.is_network_error() {
        return Some(response);
    }
    // Steps 7–8. Check the response and create cache entries.
    match cors::check_cors_preflight_response(
        request,
        &response,
        &fetch_params.context.preflight_cache,
    ) {
        Ok(()) => None,
        Err(failure) => Some(network_error(NetworkError::from(failure))),
    }
}

/// [HTTP-network-or-cache fetch](https://fetch.spec.whatwg.org/#concept-http-network-or-cache-fetch).
///
/// The steps are split along the spec's groups, each function named for its group:
///
/// | Steps | Function |
/// |---|---|
/// | 1–16, once | [`http_network_or_cache_response`] |
/// | 8.1–8.2 | [`http_network_or_cache_response`], with [`clone_request_body`] |
/// | 8.3 | [`include_credentials`] |
/// | 8.5–8.10 | [`append_content_length`] |
/// | 8.11–8.22 | [`append_http_request_headers`] |
/// | 8.26 | [`look_up_stored_response`] (8.26.2.1: [`use_stale_while_revalidate`]) |
/// | 11 | [`fetch_forward_response`] |
/// | 12–14 | [`set_response_from_http_request`] |
/// | 8.21.2 | [`http_network_or_cache_response`], with the [authentication entries](super::authentication) |
/// | 15 | [`http_network_or_cache_response`], [`answer_digest_challenge`] |
/// | 16 | [`handle_proxy_authentication_status`] |
/// | 17–19 | here |
///
/// Not in the spec: completing an incomplete stored response (partial content) with a
/// range request for the rest, in [`complete_incomplete_stored_response`].
///
/// With no httpCache the steps are the same: the ones that read or write it are skipped.
pub(crate) async fn http_network_or_cache_fetch(
    fetch_params: &mut FetchParams<'_>,
    is_authentication_fetch: bool,
    is_new_connection_fetch: bool,
) -> Response {
    // Steps 1–16.
    let mut response = http_network_or_cache_response(
        fetch_params,
        is_authentication_fetch,
        is_new_connection_fetch,
    )
    .await;
    // Step 17. If all of the following are true: response's status is 421;
    // isNewConnectionFetch is false; request's body is null, or request's body is non-null
    // and request's body's source is non-null, then:
    let request = &fetch_params.request;
    if response.status == 421
        && !is_new_connection_fetch
        && request.body.as_ref().is_none_or(Body::has_source)
    {
        // The misdirected response is done with: its connection closes.
        drop(response);
        // Step 17.1. If fetchParams is canceled, then return the appropriate network error
        // for fetchParams. (A canceled fetch is dropped at its next await instead.)
        // Step 17.2. Set response to the result of running HTTP-network-or-cache fetch given
        // fetchParams, isAuthenticationFetch, and true. (Step 17 of that run does nothing,
        // as isNewConnectionFetch is true; steps 18–19 are this run's.)
        response =
            http_network_or_cache_response(fetch_params, is_authentication_fetch, true).await;
    }
    // Step 18. If isAuthenticationFetch is true, then create an authentication entry for
    // request and the given realm. (Step 15 made it, so that step 8.21.2 of this fetch
    // answered the realm's challenge with it; one the server refused with another 401 is
    // removed.)
    if is_authentication_fetch && response.status == 401 {
        if let Some(credentials) = &fetch_params.request.digest_credentials {
            let origin = fetch_params.request.current_url().origin();
            fetch_params
                .context
                .authentication_entries
                .remove(&origin, credentials);
        }
    }
    // Not in the spec: the client's caps on the bytes a response body may deliver, on
    // what comes from the network or the cache alike (after the cache's own wrapper, so
    // a body cut short is not stored).
    if let Some(body) = response.body.as_mut() {
        let limits = fetch_params.context.body_limits;
        body.limit_size(limits.max_response, limits.max_buffered);
    }
    // Step 19. Return response.
    response
}

/// Steps 1–16 of [HTTP-network-or-cache fetch](https://fetch.spec.whatwg.org/#concept-http-network-or-cache-fetch):
/// everything before the `421 Misdirected Request` retry of step 17, which runs them again.
async fn http_network_or_cache_response(
    fetch_params: &mut FetchParams<'_>,
    is_authentication_fetch: bool,
    is_new_connection_fetch: bool,
) -> Response {
    // Step 1. Let request be fetchParams's request.
    // Steps 2–4. Let httpFetchParams, httpRequest and response be null. (Bound below where
    // the spec first sets them; httpFetchParams is httpRequest with fetchParams's context.)
    // Step 5. Let storedResponse be null.
    // Not in the spec: it may also hold an incomplete stored response (partial content),
    // which is not a storedResponse of the spec: see `look_up_stored_response`.
    // (Boxed: what only a request with an HTTP cache keeps is out of the state of every
    // request's future.)
    let mut stored_response: Option<Box<StoredResponse>> = None;
    // Step 6. Let httpCache be null. (Bound at step 8.24.)
    // Step 7. Let the revalidatingFlag be unset.
    let mut revalidating_flag = false;
    // Step 8. Run these steps, but abort when fetchParams is canceled: (a canceled fetch is
    // dropped at its next await, as in step 9.)
    // Step 8.1. If request's traversable for user prompts is "no-traversable" and
    // request's redirect mode is "error", then set httpFetchParams to fetchParams and
    // httpRequest to request.
    // Step 8.2. Otherwise:
    // Step 8.2.1. Set httpRequest to a clone of request.
    // Steps 8.2.2–8.2.3. Set httpFetchParams to a copy of fetchParams whose request is
    // httpRequest.
    //
    // The clone keeps a spare body for a redirect or an authentication retry (see
    // `clone_request_body`).
    //
    // Step 8.3 is read from request here (httpRequest is request or a clone of it), so
    // that it can say whether httpRequest may be request.
    let include_credentials = include_credentials(fetch_params.request);
    let context = fetch_params.context;
    // DEVIATION: a request without a body whose changes in the steps below can all be
    // undone (see `InPlace`) is httpRequest itself, given back as it was once the steps
    // are over: what a redirect, an authentication retry or step 17's retry sees of
    // request is what they would see beside a clone, without the copy of every field (and
    // its drop) that a clone costs on each fetch.
    let in_place = InPlace::of(fetch_params.request, context, include_credentials);
    let mut clone = None;
    // `request`: request, when httpRequest is a clone of it (the HTTP cache reads both).
    let (http_request, request): (&mut Request, Option<&Request>) = match in_place {
        Some(_) => (&mut *fetch_params.request, None),
        None => {
            let http_request = clone.insert(fetch_params.request.copy_without_body());
            http_request.body = clone_request_body(fetch_params.request);
            (http_request, Some(&*fetch_params.request))
        }
    };
    let keepalive_reservation = &mut fetch_params.keepalive_reservation;
    // Steps 8.3–14 (8.3 above): the response, from the network or the cache.
    let mut response;
    'steps: {
        // Step 8.3. (Above.)
        // Step 8.4. If Cross-Origin-Embedder-Policy allows credentials with request returns
        // false, then set includeCredentials to false. (There is no Cross-Origin-Embedder-Policy
        // here.)
        // Steps 8.5–8.10.
        if let Some(network_error) =
            append_content_length(http_request, context, keepalive_reservation)
        {
            response = network_error;
            break 'steps;
        }
        // Steps 8.11–8.20 and 8.22.
        append_http_request_headers(http_request, context);
        // Step 8.21. If includeCredentials is true, then: (After step 8.22, which appends
        // nothing here, as it waits for a cookie provider.)
        if include_credentials {
            // Step 8.21.1. Append a request `Cookie` header for httpRequest.
            if let Some(cookies) = &context.cookies {
                append_a_request_cookie_header(http_request, cookies).await;
            }
            // Step 8.21.2. If httpRequest's header list does not contain `Authorization`,
            // then: (Only a request with credentials for Digest can have an authentication
            // entry: no other reads the store.)
            let authorization_value = http_request
                .digest_credentials
                .as_ref()
                .filter(|_| !http_request.headers.header_list().contains("authorization"))
                .and_then(|credentials| {
                    // Step 8.21.2.1. Let authorizationValue be null.
                    // Step 8.21.2.2. If there's an authentication entry for httpRequest and
                    // either httpRequest's use-URL-credentials flag is unset or httpRequest's
                    // current URL does not include credentials, then set authorizationValue to
                    // authentication entry. (The entry's answer to its realm's challenge, with
                    // the next `nc`.)
                    context
                        .authentication_entries
                        .authorization_value(http_request, credentials)
                });
            // Step 8.21.2.3. Otherwise, if httpRequest's current URL does include credentials
            // and isAuthenticationFetch is true, set authorizationValue to httpRequest's
            // current URL, converted to an `Authorization` value.
            // DEVIATION: a URL's credentials are not turned into an `Authorization` value
            // (which would be `Basic`, unasked). The `Request` constructor refuses a URL with
            // credentials, and `ClientBuilder::digest_auth_from_url` takes them out of the URL
            // into the request's credentials for Digest, which answer a challenge only, through
            // the authentication entry of step 8.21.2.2.
            // Step 8.21.2.4. If authorizationValue is non-null, then append (`Authorization`,
            // authorizationValue) to httpRequest's header list.
            if let Some(value) = authorization_value {
                http_request
                    .headers
                    .header_list_mut()
                    .push(Bytes::from_static(b"Authorization"), value);
            }
        }
        // Step 8.23. Run the WebDriver BiDi before request sent steps with request. (There is no
        // WebDriver BiDi here.)
        // Step 8.24. Set httpCache to the result of determining the HTTP cache partition, given
        // httpRequest.
        let http_cache = determine_the_http_cache_partition(http_request, context);
        // Step 8.25. If httpCache is null, then set httpRequest's cache mode to "no-store".
        // DEVIATION: the cache mode is kept, so that "only-if-cached" still fails at step 11.1
        // (nothing can be cached) rather than going to the network. Without httpCache the steps
        // that read or write it are skipped instead, as "no-store" would skip them.
        // Step 8.26. If httpRequest's cache mode is neither "no-store" nor "reload", then:
        // Not in the spec: a cache on a store that other caches share (such as one on Redis)
        // that holds nothing for httpRequest asks the store first, so that step 8.26.1 selects
        // what another cache stored.
        // Boxed, and only then: kept out of the state of every other request's future.
        if let Some(http_cache) = http_cache.filter(|http_cache| http_cache.reads_through()) {
            if !matches!(
                http_request.cache_mode,
                RequestCache::NoStore | RequestCache::Reload
            ) {
                Box::pin(http_cache.read_through(http_request, include_credentials)).await;
            }
        }
        // (httpRequest is request itself only where there is no httpCache.)
        debug_assert!(http_cache.is_none() || request.is_some());
        let from_cache = match (http_cache, request) {
            (Some(http_cache), Some(request)) => look_up_stored_response(
                http_cache,
                http_request,
                include_credentials,
                request,
                context,
                &mut stored_response,
                &mut revalidating_flag,
            ),
            _ => None,
        };
        // Step 9. If aborted, then return the appropriate network error for fetchParams. (An
        // aborted fetch is dropped at its next await instead.)
        // Step 10. If response is not null, then run the WebDriver BiDi response started steps
        // with request and response. (There is no WebDriver BiDi here.)
        // Step 11. If response is null, then:
        response = match from_cache {
            Some(response) => response,
            None => {
                fetch_forward_response(
                    http_request,
                    context,
                    http_cache,
                    &mut stored_response,
                    revalidating_flag,
                    include_credentials,
                    is_new_connection_fetch,
                )
                .await
            }
        };
        // Not in the spec: a network error is returned as it is (steps 12–16 set fields of a
        // response from the network or the cache).
        if response.is_network_error() {
            break 'steps;
        }
        // Steps 12–14.
        set_response_from_http_request(
            &mut response,
            http_request,
            include_credentials,
            request.is_some(),
        );
    }
    if let Some(in_place) = in_place {
        in_place.undo(fetch_params.request);
    }
    drop(clone);
    // Not in the spec: a network error is returned as it is (steps 12–16 set fields of a
    // response from the network or the cache).
    if response.is_network_error() {
        return response;
    }
    // Step 15. If response's status is 401, httpRequest's response tainting is not "cors",
    // includeCredentials is true, and request's traversable for user prompts is a
    // traversable navigable:
    // DEVIATION: there is no one to prompt; a request with credentials for Digest
    // (`RequestBuilder::digest_auth`) answers the challenge with them instead, and any
    // other's 401 is returned. An authentication fetch's own 401 is not answered again
    // here (see `answer_digest_challenge`).
    if response.status == 401
        // (httpRequest's response tainting is request's: the steps do not change it.)
        && fetch_params.request.response_tainting != ResponseTainting::Cors
        && include_credentials
        && !is_authentication_fetch
    {
        if let Some(credentials) = fetch_params.request.digest_credentials.clone() {
            // Boxed, and only then: kept out of the state of every other request's future.
            return Box::pin(answer_digest_challenge(fetch_params, response, credentials)).await;
        }
    }
    // Step 16.
    handle_proxy_authentication_status(&mut response);
    response
}

/// [Determine the HTTP cache partition](https://fetch.spec.whatwg.org/#determine-the-http-cache-partition),
/// given `request`: the client's cache (one partition per client), if it has one.
///
/// Not in the spec: a request with a route of its own (a proxy or addresses of its own,
/// in its transport extensions) has no partition: what it fetched on its route must
/// neither answer requests on other routes nor be answered by theirs.
fn determine_the_http_cache_partition<'a>(
    request: &Request,
    context: &'a FetchContext,
) -> Option<&'a Arc<HttpCache>> {
    // Step 1. Let key be the result of determining the network partition key given
    // request. Step 2. If key is null, then return null. Step 3. Return the unique HTTP
    // cache associated with key. (One key: the client.)
    context
        .http_cache
        .as_ref()
        .filter(|_| request.transport_extensions.is_empty())
}

/// What HTTP-network-or-cache fetch's steps 8.3–14 change in httpRequest, when that is
/// request itself rather than a clone (see `http_network_or_cache_response`), to be undone
/// once they are over: the fields they append to its header list, and its cache mode.
/// Step 12 clones its URL list rather than taking it, and it has no body to send.
///
/// Only for a request whose changes can all be undone so: one without a body, with no
/// HTTP cache (whose lookup and revalidation read request beside httpRequest), and without
/// a field the steps change in place rather than append to (a `Cookie` combined with the
/// cookie store's, a Fetch metadata header set). Every other change the steps make to the
/// header list appends to it.
struct InPlace {
    /// How many fields request's header list had.
    fields: usize,
    cache_mode: RequestCache,
    /// The header list as it was, to check that the undo gives it back.
    #[cfg(debug_assertions)]
    before: HeaderList,
}

impl InPlace {
    /// The undo for `request`, if its changes can be undone.
    fn of(request: &Request, context: &FetchContext, include_credentials: bool) -> Option<InPlace> {
        // (httpRequest's partition is request's: the steps do not change what it reads.)
        if request.body.is_some() || determine_the_http_cache_partition(request, context).is_some()
        {
            return None;
        }
        let cookies = include_credentials && context.cookies.is_some();
        let changed_in_place = |name: &[u8]| {
            (cookies && name.eq_ignore_ascii_case(b"cookie"))
                || name
                    .get(..10)
                    .is_some_and(|prefix| prefix.eq_ignore_ascii_case(b"sec-fetch-"))
        };
        let list = request.headers.header_list();
        if list.iter().any(|(name, _)| changed_in_place(name)) {
            return None;
        }
        Some(InPlace {
            fields: list.len(),
            cache_mode: request.cache_mode,
            #[cfg(debug_assertions)]
            before: list.clone(),
        })
    }

    /// Gives `request` back as it was.
    fn undo(self, request: &mut Request) {
        request.headers.header_list_mut().truncate(self.fields);
        request.cache_mode = self.cache_mode;
        #[cfg(debug_assertions)]
        assert!(
            same_list(&self.before, request.headers.header_list()),
            "HTTP-network-or-cache fetch changed a field of request's header list in place"
        );
    }
}

/// Steps 15.1–15.4 of HTTP-network-or-cache fetch: `response`, a `401` to a request with
/// `credentials` for Digest, answered by the authentication fetch, when one of its
/// `WWW-Authenticate` challenges is a `Digest` challenge this client answers; otherwise
/// `response` as it is.
///
/// One authentication fetch per request, and one more only when its `401` says
/// `stale=true` (RFC 7616 §3.3): a server that answers every `Authorization` with a new
/// challenge gets two authentication fetches at most, and its last `401` is the fetch's
/// response.
async fn answer_digest_challenge(
    fetch_params: &mut FetchParams<'_>,
    mut response: Response,
    credentials: Arc<crate::infra::digest::DigestCredentials>,
) -> Response {
    let origin = fetch_params.request.current_url().origin();
    let mut stale_retry_left = true;
    loop {
        // Step 15.1. Needs testing: multiple `WWW-Authenticate` headers, missing, parsing
        // issues. (Every field is read, each with any number of challenges up to the
        // limits of `infra::digest`; none, one over a limit or one that is not the grammar
        // leaves the 401 as it is, as does one with no `Digest` challenge this client
        // answers. `Basic` is never answered: it goes only when the caller sets it, with
        // `RequestBuilder::basic_auth`, before any challenge.)
        let Some(challenge) = super::authentication::digest_challenge(
            response.headers.header_list().values(b"www-authenticate"),
        ) else {
            return response;
        };
        let request = &mut fetch_params.request;
        // Step 15.2. If request's body is non-null, then:
        if let Some(body) = &request.body {
            // Step 15.2.1. If request's body's source is null, then return a network error.
            // DEVIATION: the 401 is returned as it is, so that the caller sees the
            // server's answer to a body that cannot be sent again (a stream).
            let Some(source) = body.source_bytes().cloned() else {
                return response;
            };
            // Step 15.2.2. Set request's body to the body of the result of safely
            // extracting request's body's source.
            request.body = Some(Body::from_blob_bytes(source));
        }
        // Step 15.3. If request's use-URL-credentials flag is unset or
        // isAuthenticationFetch is true, then:
        // Step 15.3.1. If fetchParams is canceled, then return the appropriate network
        // error for fetchParams. (A canceled fetch is dropped at its next await instead.)
        // Steps 15.3.2–15.3.4. Let username and password be the result of prompting the end
        // user for a username and password; set the username and the password given
        // request's current URL and them.
        // DEVIATION: the username and password are the caller's `credentials`, and the
        // URL is left as it is; the realm's challenge is kept as the authentication entry
        // that step 8.21.2 of the authentication fetch answers with.
        fetch_params.context.authentication_entries.set(
            origin.clone(),
            Arc::clone(&credentials),
            challenge,
        );
        // The 401's body is not read: dropping it closes (or frees) its connection.
        drop(response);
        // Step 15.4. Set response to the result of running HTTP-network-or-cache fetch
        // given fetchParams and true.
        response = http_network_or_cache_fetch(fetch_params, true, false).await;
        // Not in the spec: an authentication fetch's 401 is not answered again (there is
        // no user to ask, and a server that answers each `Authorization` with a new
        // challenge would never be done), but once when its challenge says `stale=true`:
        // the credentials were right and the nonce had expired.
        let stale = response.status == 401
            && super::authentication::digest_challenge(
                response.headers.header_list().values(b"www-authenticate"),
            )
            .is_some_and(|challenge| challenge.stale);
        if !(stale && stale_retry_left) {
            return response;
        }
        stale_retry_left = false;
    }
}

/// The body of httpRequest, the clone of `request` of step 8.2.1 of HTTP-network-or-cache
/// fetch: a clone of request's body, so that a redirect or an authentication retry still has
/// one to send. A body whose source is null cannot be sent twice anyway, so it is moved
/// rather than teed, as the spec encourages.
fn clone_request_body(request: &mut Request) -> Option<Body> {
    match request.body.as_mut() {
        Some(body) if body.has_source() => Some(body.clone_body()),
        // The request keeps a stand-in with no source, so a redirect still sees a stream
        // body that cannot be sent again.
        Some(body) => Some(std::mem::replace(
            body,
            Body::errored(Error::type_error(
                "the request body stream was already sent",
            )),
        )),
        None => None,
    }
}

/// Step 8.3 of [HTTP-network-or-cache fetch](https://fetch.spec.whatwg.org/#concept-http-network-or-cache-fetch):
/// includeCredentials, whether `request` carries credentials (cookies, and the
/// `Authorization` of an authentication entry). The HTTP cache keeps the responses to
/// credentialed and anonymous requests apart by it.
fn include_credentials(request: &Request) -> bool {
    // Step 8.3. Let includeCredentials be true if one of request's credentials mode is
    // "include"; request's credentials mode is "same-origin" and request's response
    // tainting is "basic" is true; otherwise false.
    request.credentials_mode == RequestCredentials::Include
        || (request.credentials_mode == RequestCredentials::SameOrigin
            && request.response_tainting == ResponseTainting::Basic)
}

/// Steps 8.5–8.10 of HTTP-network-or-cache fetch: httpRequest's contentLength, its
/// `Content-Length` header, and the keepalive quota it counts against. `Some` is the
/// network error to return.
fn append_content_length(
    http_request: &mut Request,
    context: &FetchContext,
    keepalive_reservation: &mut Option<super::keepalive::KeepaliveReservation>,
) -> Option<Response> {
    // Step 8.5. Let contentLength be httpRequest's body's length, if httpRequest's body is
    // non-null; otherwise null.
    let content_length = http_request.body.as_ref().and_then(Body::length);
    // Step 8.6. Let contentLengthHeaderValue be null.
    // Step 8.7. If httpRequest's body is null and httpRequest's method is `POST` or `PUT`,
    // then set contentLengthHeaderValue to `0`.
    // Step 8.8. If contentLength is non-null, then set contentLengthHeaderValue to
    // contentLength, serialized and isomorphic encoded.
    let content_length_header_value = match content_length {
        Some(length) => Some(Bytes::from(length.to_string())),
        None if http_request.body.is_none()
            && matches!(http_request.method.as_ref(), "POST" | "PUT") =>
        {
            Some(Bytes::from_static(b"0"))
        }
        None => None,
    };
    let header_list = http_request.headers.header_list_mut();
    // Step 8.9. If contentLengthHeaderValue is non-null, then append (`Content-Length`,
    // contentLengthHeaderValue) to httpRequest's header list.
    // DEVIATION: a server-side request may carry its own `Content-Length` (a forbidden
    // request-header only in a browser-like environment): it is not appended a second
    // time, and the network layer refuses one that disagrees with the body, as undici
    // does, rather than send a message out of step with its head.
    if let Some(value) = content_length_header_value {
        if !header_list.contains("content-length") {
            header_list.push(Bytes::from_static(b"Content-Length"), value);
        }
    }
    // Step 8.10. If contentLength is non-null and httpRequest's keepalive is true, then:
    // let inflightKeepaliveBytes be the body lengths of the keepalive fetch records in
    // httpRequest's client's fetch group that are not done; if the sum of contentLength and
    // inflightKeepaliveBytes is greater than 64 kibibytes, then return a network error.
    // (See the `keepalive` module: a fetch reserves its length once, for all its hops.)
    if let Some(length) = content_length.filter(|_| http_request.keepalive) {
        if keepalive_reservation.is_none() {
            match context.keepalive_quota.reserve(length) {
                Some(reservation) => *keepalive_reservation = Some(reservation),
                None => {
                    return Some(network_error(NetworkError::Blocked(
                        "keepalive request bodies in flight would exceed 64 KiB".into(),
                    )));
                }
            }
        }
    }
    None
}

/// Steps 8.11–8.20 and 8.22 of HTTP-network-or-cache fetch: the headers appended to
/// httpRequest before it is looked up in the cache or sent (`Referer`, `Origin`, the Fetch
/// metadata headers, `User-Agent`, the cache mode's, `Accept-Encoding`).
fn append_http_request_headers(http_request: &mut Request, context: &FetchContext) {
    // Step 8.11. If httpRequest's referrer is a URL, then append (`Referer`,
    // referrerValue) to httpRequest's header list.
    if let Referrer::Url(referrer) = &http_request.referrer {
        let value = Bytes::copy_from_slice(referrer.as_str().as_bytes());
        http_request
            .headers
            .header_list_mut()
            .push(Bytes::from_static(b"Referer"), value);
    }
    // Step 8.12. Append a request `Origin` header for httpRequest.
    cors::append_request_origin_header(http_request);
    // Step 8.13. Append the Fetch metadata headers for httpRequest.
    super::metadata::append_the_fetch_metadata_headers_for_a_request(http_request);
    // Step 8.14. (Prefetch.)
    let header_list = http_request.headers.header_list_mut();
    // Which of the names the steps below ask about the list contains: one pass over the
    // list rather than one for each name.
    let contains = Contains::of(header_list);
    // Step 8.15. If httpRequest's header list does not contain `User-Agent`, then user
    // agents should append (`User-Agent`, the environment default `User-Agent` value).
    if !contains.user_agent {
        header_list.push(
            Bytes::from_static(b"User-Agent"),
            context.user_agent.clone(),
        );
    }
    // Step 8.16. If httpRequest's cache mode is "default" and httpRequest's header list
    // contains `If-Modified-Since`, `If-None-Match`, `If-Unmodified-Since`, `If-Match`, or
    // `If-Range`, then set httpRequest's cache mode to "no-store".
    if http_request.cache_mode == RequestCache::Default && contains.conditional {
        http_request.cache_mode = RequestCache::NoStore;
    }
    // Step 8.17. If httpRequest's cache mode is "no-cache", httpRequest's prevent no-cache
    // cache-control header modification flag is unset, and httpRequest's header list does
    // not contain `Cache-Control`, then append (`Cache-Control`, `max-age=0`).
    if http_request.cache_mode == RequestCache::NoCache
        && !http_request.prevent_no_cache_cache_control_header_modification
        && !contains.cache_control
    {
        header_list.push(
            Bytes::from_static(b"Cache-Control"),
            Bytes::from_static(b"max-age=0"),
        );
    }
    // Step 8.18. If httpRequest's cache mode is "no-store" or "reload", then: append
    // (`Pragma`, `no-cache`) and (`Cache-Control`, `no-cache`) if absent.
    if matches!(
        http_request.cache_mode,
        RequestCache::NoStore | RequestCache::Reload
    ) {
        if !contains.pragma {
            header_list.push(
                Bytes::from_static(b"Pragma"),
                Bytes::from_static(b"no-cache"),
            );
        }
        // (Step 8.17 appended none: its cache mode is another.)
        if !contains.cache_control {
            header_list.push(
                Bytes::from_static(b"Cache-Control"),
                Bytes::from_static(b"no-cache"),
            );
        }
    }
    // Step 8.19. If httpRequest's header list contains `Range`, then append
    // (`Accept-Encoding`, `identity`) to httpRequest's header list.
    if contains.range {
        header_list.append("Accept-Encoding", "identity");
    }
    // Step 8.20. Modify httpRequest's header list per HTTP. Do not append a given header if
    // httpRequest's header list contains that header's name. (`Accept-Encoding` here;
    // `Host` and `Connection` are the network layer's.)
    if !contains.accept_encoding && !contains.range {
        header_list.push(
            Bytes::from_static(b"Accept-Encoding"),
            // Every coding the network layer decodes for this client.
            Bytes::from_static(context.codings.accept_encoding().as_bytes()),
        );
    }
    // Step 8.21: see http_network_or_cache_fetch.
    // Step 8.22. (Proxy authentication.)
}

/// Which of the names [`append_http_request_headers`] asks about a header list contains
/// (byte-case-insensitively), found in one pass over it.
#[derive(Default)]
struct Contains {
    user_agent: bool,
    /// `If-Modified-Since`, `If-None-Match`, `If-Unmodified-Since`, `If-Match` or
    /// `If-Range`.
    conditional: bool,
    cache_control: bool,
    pragma: bool,
    range: bool,
    accept_encoding: bool,
}

impl Contains {
    fn of(list: &HeaderList) -> Contains {
        let mut contains = Contains::default();
        for (name, _) in list {
            let is = |wanted: &str| name.eq_ignore_ascii_case(wanted.as_bytes());
            // The names' lengths tell them apart but for three pairs.
            match name.len() {
                5 => contains.range |= is("range"),
                6 => contains.pragma |= is("pragma"),
                8 => contains.conditional |= is("if-match") || is("if-range"),
                10 => contains.user_agent |= is("user-agent"),
                13 => {
                    contains.cache_control |= is("cache-control");
                    contains.conditional |= is("if-none-match");
                }
                15 => contains.accept_encoding |= is("accept-encoding"),
                17 => contains.conditional |= is("if-modified-since"),
                19 => contains.conditional |= is("if-unmodified-since"),
                _ => {}
            }
        }
        contains
    }
}

/// Step 8.26 of HTTP-network-or-cache fetch, given httpCache: select storedResponse for
/// httpRequest and decide whether it answers the request as it is (the response returned)
/// or is validated (the revalidatingFlag set, and `If-None-Match` / `If-Modified-Since`
/// appended to httpRequest).
///
/// Not in the spec: an incomplete stored response (partial content) does not answer a
/// request for all of it. It is kept in `stored_response` for
/// [`complete_incomplete_stored_response`], and httpRequest asks for the rest with a range
/// request; the steps for a storedResponse (8.26.2) are skipped.
fn look_up_stored_response(
    http_cache: &HttpCache,
    http_request: &mut Request,
    include_credentials: bool,
    request: &Request,
    context: &FetchContext,
    stored_response: &mut Option<Box<StoredResponse>>,
    revalidating_flag: &mut bool,
) -> Option<Response> {
    // Step 8.26. If httpRequest's cache mode is neither "no-store" nor "reload", then:
    if matches!(
        http_request.cache_mode,
        RequestCache::NoStore | RequestCache::Reload
    ) {
        return None;
    }
    // Step 8.26.1. Set storedResponse to the result of selecting a response from the
    // httpCache, possibly needing validation, as per the "Constructing Responses from
    // Caches" chapter of HTTP Caching, if any. (This takes `Vary` into account.)
    let stored = stored_response.insert(Box::new(
        http_cache.select(http_request, include_credentials)?,
    ));
    // Not in the spec: an incomplete stored response asks for the rest (see above).
    if stored.is_incomplete() {
        stored.request_the_rest(http_request);
        return None;
    }
    // Step 8.26.2. If storedResponse is non-null, then:
    // Step 8.26.2.1. If cache mode is "default", storedResponse is a stale-while-revalidate
    // response, and httpRequest's client is non-null, then:
    // (The revalidation runs on the current Tokio runtime; without one, the stale response
    // is validated first, as below.)
    let runtime = (http_request.cache_mode == RequestCache::Default
        && stored.stale_while_revalidate)
        .then(tokio::runtime::Handle::try_current)
        .and_then(Result::ok);
    if let Some(runtime) = runtime {
        return Some(use_stale_while_revalidate(
            stored, request, context, &runtime,
        ));
    }
    // Step 8.26.2.2. Otherwise:
    // Step 8.26.2.2.1. If storedResponse is a stale response, then set the revalidatingFlag.
    // (A response that must be validated before use counts.)
    *revalidating_flag = stored.stale || http_request.cache_mode == RequestCache::NoCache;
    // Step 8.26.2.2.2. If the revalidatingFlag is set and httpRequest's cache mode is
    // neither "force-cache" nor "only-if-cached", then:
    if *revalidating_flag
        && !matches!(
            http_request.cache_mode,
            RequestCache::ForceCache | RequestCache::OnlyIfCached
        )
    {
        let stored_headers = stored.header_list();
        let etag = stored_headers.get("etag");
        let last_modified = stored_headers.get("last-modified");
        let header_list = http_request.headers.header_list_mut();
        // Step 8.26.2.2.2.1. If storedResponse's header list contains `ETag`, then append
        // (`If-None-Match`, `ETag`'s value) to httpRequest's header list.
        if let Some(etag) = etag {
            header_list.push(Bytes::from_static(b"If-None-Match"), etag);
        }
        // Step 8.26.2.2.2.2. If storedResponse's header list contains `Last-Modified`, then
        // append (`If-Modified-Since`, `Last-Modified`'s value) to httpRequest's header
        // list.
        if let Some(last_modified) = last_modified {
            header_list.push(Bytes::from_static(b"If-Modified-Since"), last_modified);
        }
        return None;
    }
    // Step 8.26.2.2.3. Otherwise, set response to storedResponse and set response's cache
    // state to "local".
    Some(stored.to_response())
}

/// Steps 8.26.2.1.1–8.26.2.1.7 of HTTP-network-or-cache fetch: the response for a
/// stale-while-revalidate `stored_response`, used at once while a fetch of `request` on
/// `runtime` revalidates it.
fn use_stale_while_revalidate(
    stored_response: &StoredResponse,
    request: &Request,
    context: &FetchContext,
    runtime: &tokio::runtime::Handle,
) -> Response {
    // Step 8.26.2.1.1. Set response to storedResponse.
    // Step 8.26.2.1.2. Set response's cache state to "local".
    let response = stored_response.to_response();
    // Step 8.26.2.1.3. Let revalidateRequest be a clone of request. (A request whose
    // response is stored is a GET: it has no body.)
    let mut revalidate_request = request.copy_without_body();
    // Step 8.26.2.1.4. Set revalidateRequest's cache mode set to "no-cache".
    revalidate_request.cache_mode = RequestCache::NoCache;
    // Step 8.26.2.1.5. Set revalidateRequest's prevent no-cache cache-control header
    // modification flag.
    revalidate_request.prevent_no_cache_cache_control_header_modification = true;
    // Step 8.26.2.1.6. Set revalidateRequest's service-workers mode set to "none". (There
    // are no service workers.)
    // Step 8.26.2.1.7. In parallel, run main fetch given a new fetch params whose request
    // is revalidateRequest.
    runtime.spawn(revalidate(revalidate_request, context.clone()));
    response
}

/// The in-parallel [main fetch](https://fetch.spec.whatwg.org/#concept-main-fetch) of
/// step 8.26.2.1.7 of HTTP-network-or-cache fetch, revalidating a stale-while-revalidate
/// response: "this fetch is only meant to update the state of httpCache", so its response
/// body is read to the end (which is when the cache stores a response) and dropped.
fn revalidate(
    request: Request,
    context: FetchContext,
) -> std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>> {
    Box::pin(async move {
        let mut request = request;
        let mut fetch_params = FetchParams {
            request: &mut request,
            timing_info: crate::timing::FetchTimingInfo::new(std::time::Instant::now()),
            context: &context,
            keepalive_reservation: None,
        };
        let mut response = super::main_fetch(&mut fetch_params, false).await;
        // Read to the end without keeping the bytes: the cache keeps its own copy.
        if let Some(mut body) = response.body.take() {
            while let Some(Ok(_)) = futures_util::StreamExt::next(&mut body).await {}
        }
    })
}

/// Step 11 of HTTP-network-or-cache fetch, when response is null: forwardResponse from the
/// network, and what it means for httpCache (invalidation, freshening a validated
/// storedResponse, storing).
async fn fetch_forward_response(
    http_request: &mut Request,
    context: &FetchContext,
    http_cache: Option<&Arc<HttpCache>>,
    stored_response: &mut Option<Box<StoredResponse>>,
    revalidating_flag: bool,
    include_credentials: bool,
    is_new_connection_fetch: bool,
) -> Response {
    // Step 11.1. If httpRequest's cache mode is "only-if-cached", then return a network
    // error.
    if http_request.cache_mode == RequestCache::OnlyIfCached {
        return network_error(NetworkError::Blocked(
            "only-if-cached and nothing is cached".into(),
        ));
    }
    // Not in the spec: per HTTP Caching (RFC 9111 §5.2.1.7), a request
    // `Cache-Control: only-if-cached` that nothing stored answers gets a 504 (Gateway
    // Timeout) from httpCache. (Without httpCache, the request goes out as it is.)
    if http_cache.is_some() && http_cache::requests_only_if_cached(http_request) {
        return http_cache::gateway_timeout();
    }
    // Step 11.2. Let forwardResponse be the result of running HTTP-network fetch given
    // httpFetchParams, includeCredentials, and isNewConnectionFetch.
    // (With an httpCache, the time the request goes out is kept for HTTP Caching's age
    // calculation.)
    let http_cache = http_cache.map(|http_cache| (http_cache, SystemTime::now()));
    let mut forward_response = http_network_fetch(
        http_request,
        context,
        include_credentials,
        is_new_connection_fetch,
    )
    .await;
    // Steps 11.3–11.5.2 invalidate, freshen and store in httpCache: without one, response
    // is forwardResponse (step 11.5.1).
    let Some((http_cache, request_time)) = http_cache else {
        return forward_response;
    };
    // Not in the spec: the response to the request for the rest of an incomplete stored
    // response is combined with it.
    if let Some(incomplete) = stored_response.take_if(|stored| stored.is_incomplete()) {
        // Boxed, and only then: kept out of the state of every other request's future.
        match Box::pin(complete_incomplete_stored_response(
            http_cache,
            *incomplete,
            http_request,
            forward_response,
            request_time,
            context,
            include_credentials,
            is_new_connection_fetch,
        ))
        .await
        {
            ControlFlow::Break(combined) => return combined,
            ControlFlow::Continue(response) => forward_response = response,
        }
    }
    let response_time = SystemTime::now();
    if forward_response.is_network_error() {
        return forward_response;
    }
    // Step 11.3. If httpRequest's method is unsafe and forwardResponse's status is in the
    // range 200 to 399, inclusive, invalidate appropriate stored responses in httpCache, as
    // per the "Invalidating Stored Responses" chapter of HTTP Caching, and set
    // storedResponse to null.
    if !matches!(
        http_request.method.as_ref(),
        "GET" | "HEAD" | "OPTIONS" | "TRACE"
    ) && (200..=399).contains(&forward_response.status)
    {
        http_cache.invalidate(http_request, &forward_response);
        *stored_response = None;
    }
    // Step 11.4. If the revalidatingFlag is set and forwardResponse's status is 304, then:
    if revalidating_flag && forward_response.status == 304 {
        if let Some(stored_response) = stored_response.take() {
            // Step 11.4.1. Update storedResponse's header list using forwardResponse's
            // header list, as per the "Freshening Stored Responses upon Validation" chapter
            // of HTTP Caching. (This updates the stored response in cache as well.)
            // Step 11.4.2. Set response to storedResponse.
            // Step 11.4.3. Set response's cache state to "validated".
            return http_cache.freshen(
                *stored_response,
                forward_response.headers.header_list(),
                request_time,
                response_time,
            );
        }
    }
    // Step 11.5. If response is null, then:
    // Step 11.5.2. Store httpRequest and forwardResponse in httpCache, as per the "Storing
    // Responses in Caches" chapter of HTTP Caching. (Once its body has been read to the
    // end; not for a "no-store" request.)
    if http_request.cache_mode != RequestCache::NoStore {
        http_cache.store(
            http_request,
            include_credentials,
            &mut forward_response,
            request_time,
            response_time,
        );
    }
    // Step 11.5.1. Set response to forwardResponse.
    forward_response
}

/// Not a step of the spec, which leaves partial content to HTTP Caching: completes an
/// `incomplete` stored response with `forward_response`, the answer to httpRequest made a
/// range request for the rest by [`look_up_stored_response`]
/// ([RFC 9111 §3.4](https://httpwg.org/specs/rfc9111.html#combining.responses)).
///
/// `Break` is the combined response, which step 11 returns as it is (the cache stores it
/// once its body has been read); `Continue` is the forwardResponse step 11 goes on with:
/// `forward_response` itself when it is not a 206 or 416, or, when the 206 cannot be
/// combined, the response to httpRequest sent again without `Range` (HTTP-network fetch
/// given `context`, `include_credentials` and `is_new_connection_fetch`, as in step 11.2).
#[expect(
    clippy::too_many_arguments,
    reason = "sending httpRequest again takes all of step 11.2's arguments"
)]
async fn complete_incomplete_stored_response(
    http_cache: &Arc<HttpCache>,
    incomplete: StoredResponse,
    http_request: &mut Request,
    forward_response: Response,
    request_time: SystemTime,
    context: &FetchContext,
    include_credentials: bool,
    is_new_connection_fetch: bool,
) -> ControlFlow<Response, Response> {
    match http_cache.complete(incomplete, http_request, forward_response, request_time) {
        Completion::Combined(response) => ControlFlow::Break(response),
        Completion::Forward(response) => ControlFlow::Continue(response),
        // A 206 that cannot be combined, or a 416: the request for all of it goes out
        // again, without `Range`.
        Completion::Refetch => ControlFlow::Continue(
            http_network_fetch(
                http_request,
                context,
                include_credentials,
                is_new_connection_fetch,
            )
            .await,
        ),
    }
}

/// Steps 12–14 of HTTP-network-or-cache fetch: what `response` records of httpRequest.
fn set_response_from_http_request(
    response: &mut Response,
    http_request: &mut Request,
    include_credentials: bool,
    http_request_is_a_clone: bool,
) {
    // Step 12. Set response's URL list to a clone of httpRequest's URL list.
    // (A clone of request is not used after these steps: its URL list moves.)
    response.url_list = match http_request_is_a_clone {
        true => std::mem::take(&mut http_request.url_list),
        false => http_request.url_list.clone(),
    };
    // Step 13. If httpRequest's header list contains `Range`, then set response's
    // range-requested flag.
    if http_request.headers.header_list().contains("range") {
        response.range_requested = true;
    }
    // Step 14. Set response's request-includes-credentials to includeCredentials.
    response.request_includes_credentials = include_credentials;
}

/// Step 16 of HTTP-network-or-cache fetch: a `407 Proxy Authentication Required`
/// response, which a user agent may answer by prompting for credentials. There is no one
/// to prompt here: a 407 becomes a network error.
fn handle_proxy_authentication_status(response: &mut Response) {
    // Step 16. If response's status is 407, then:
    // Step 16.1. If request's traversable for user prompts is "no-traversable", then return
    // a network error.
    if response.status == 407 {
        *response = network_error(NetworkError::Blocked(
            "proxy authentication required".into(),
        ));
    }
    // Steps 16.2–16.5. (Prompting for proxy credentials.)
}

/// [HTTP-network fetch](https://fetch.spec.whatwg.org/#http-network-fetch): send `request`
/// through the client's transport.
async fn http_network_fetch(
    request: &mut Request,
    context: &super::FetchContext,
    include_credentials: bool,
    force_new_connection: bool,
) -> Response {
    // Steps 1–3 and 5. (Offline clients, network partition keys.)
    // Step 4. Let timingInfo be fetchParams's timing info. (What steps 8.2, 8.4 and 8.5
    // set in it the transport measures: `from_http_response` keeps it on the response for
    // fetch response handover.)
    // Step 6. Let newConnection be "yes" if forceNewConnection is true; otherwise "no".
    // Step 7. Switch on request's mode: obtain a connection given networkPartitionKey,
    // request's current URL, includeCredentials, and newConnection (the transport's pool).
    // Step 8.3. If connection is an HTTP/1.x connection, request's body is non-null, and
    // request's body's source is null, then return a network error.
    // DEVIATION: a server-side client sends stream bodies over HTTP/1.1 with chunked
    // encoding, as Deno and undici do; a browser-like one refuses them on plain http (h2
    // needs TLS here), as browsers do.
    let streaming_body = request.body.as_ref().is_some_and(|body| !body.has_source());
    if streaming_body
        && request.client.is_browser_like()
        && request.current_url().scheme() == "http"
    {
        return network_error(NetworkError::Blocked(
            "streaming request bodies need HTTP/2".into(),
        ));
    }
    // Step 8.5. Set response to the result of making an HTTP request over connection using
    // request.
    let http_request = match to_http_request(request) {
        Ok(http_request) => http_request,
        Err(error) => return Response::network_error(error),
    };
    // The network layer decodes the body per its `Content-Encoding`, as steps 10–17's
    // handle content codings says: a body with a coding it does not know is left as
    // sent.
    // DEVIATION: a response naming more than `net::MAX_CONTENT_CODINGS` (5) codings,
    // `identity` aside, is a network error (`TooManyContentCodings`), as in curl and
    // undici, where the spec would decode any number
    // (<https://github.com/whatwg/fetch/issues/1933> proposes a limit).
    // Step 7, "websocket": obtain a WebSocket connection, given request's current URL:
    // an HTTP/1.1 connection (a pool of WebSocket connections beside the origin's), as an
    // HTTP/2 one carries no `Upgrade`.
    // DEVIATION: or a stream of the origin's open HTTP/2 connection, when its server
    // allows extended CONNECT, by which RFC 8441 runs a WebSocket over HTTP/2, as Chrome
    // and Firefox do (the standard's "obtain a WebSocket connection" predates it; see
    // `SendOptions::websocket`). The WebSocket then shares the connection rather than
    // opening one of its own.
    let options = SendOptions::new()
        .with_decode_content(true)
        .with_decode_codings(context.codings)
        .with_new_connection(force_new_connection)
        .with_websocket(request.mode == RequestMode::WebSocket)
        .with_version(request.http_version)
        // DEVIATION: an upload may wait for the server's `100 Continue`, as curl's do,
        // when the caller asks (browsers send no `Expect`; the header is a forbidden
        // request-header, which the network layer adds).
        .with_expect_continue(request.expect_continue.unwrap_or(context.expect_continue));
    let http_response = match context.transport.send(http_request, options).await {
        Ok(response) => response,
        Err(error) => return network_error(error),
    };
    // Step 17 (done before the body is read, as its result does not depend on it). If
    // includeCredentials is true, then the user agent should parse and store response
    // `Set-Cookie` headers given request and response.
    // The response's `Strict-Transport-Security`, if it came over https (RFC 6797 §8.1:
    // only over a secure transport without errors, which a TLS error would have stopped).
    if let Some(hsts) = &context.hsts {
        if request.current_url().scheme() == "https" {
            hsts.process_header(
                request.current_url(),
                http_response
                    .headers()
                    .get_all(http::header::STRICT_TRANSPORT_SECURITY)
                    .iter()
                    .map(http::HeaderValue::as_bytes),
                std::time::SystemTime::now(),
            );
        }
    }
    if include_credentials {
        if let Some(cookies) = &context.cookies {
            parse_and_store_response_set_cookie_headers(request, http_response.headers(), cookies)
                .await;
        }
    }
    // Steps 10–16 and 18. Set response's body to a new body whose stream is pulled from the
    // connection, decoded per its content codings.
    from_http_response(http_response)
}

/// [Append a request `Cookie` header](https://fetch.spec.whatwg.org/#append-a-request-cookie-header)
/// for `request`, from `cookies`.
async fn append_a_request_cookie_header(request: &mut Request, cookies: &CookieJar) {
    // Step 1. If the user agent is configured to disable cookies for request, then it
    // should return. (A client without a cookie store never gets here.)
    // Step 2. Let sameSite be the result of determining the same-site mode for request.
    // (SameSite is not enforced: see the `cookie` module.)
    // Step 3. Let isSecure be true if request's current URL's scheme is "https".
    // Step 4. Let httpOnlyAllowed be true.
    // Step 5. Let cookies be the result of running retrieve cookies given isSecure,
    // request's current URL's host, request's current URL's path, httpOnlyAllowed, and
    // sameSite.
    // Step 6. If cookies is empty, then return.
    // Step 7. Let value be the result of running serialize cookies given cookies.
    let value = match cookies {
        CookieJar::Store(store) => store.cookie_header_for(request.current_url()),
        CookieJar::Provider(provider) => provider.cookie_header_for(request.current_url()).await,
    };
    let Some(value) = value else {
        return;
    };
    // Step 8. Append (`Cookie`, value) to request's header list.
    let header_list = request.headers.header_list_mut();
    // DEVIATION: a server-side request may carry its own `Cookie` header (it is a
    // forbidden request-header only in a browser-like environment); the stored cookies
    // join it in one header, as RFC 6265 §5.4 allows only one `Cookie` header per request.
    if header_list.contains("cookie") {
        let mut combined = Vec::new();
        for existing in header_list.values(b"cookie") {
            combined.extend_from_slice(existing);
            combined.extend_from_slice(b"; ");
        }
        combined.extend_from_slice(&value);
        header_list.set("Cookie", combined);
        return;
    }
    header_list.push(Bytes::from_static(b"Cookie"), Bytes::from(value));
}

/// [Parse and store response `Set-Cookie` headers](https://fetch.spec.whatwg.org/#parse-and-store-response-set-cookie-headers)
/// given `request` and the response's `headers`, into `cookies`.
async fn parse_and_store_response_set_cookie_headers(
    request: &Request,
    headers: &http::HeaderMap,
    cookies: &CookieJar,
) {
    // Step 1. If the user agent is configured to disable cookies for request, then it
    // should return. (A client without a cookie store never gets here.)
    // Steps 2–5. allowNonHostOnlyCookieForPublicSuffix is false (there is no public
    // suffix list); isSecure is whether the current URL is https; httpOnlyAllowed is true;
    // sameSiteStrictOrLaxAllowed is not enforced.
    // Step 6. For each header of response's header list: if header's name is not a
    // byte-case-insensitive match for `Set-Cookie`, then continue; parse and store a
    // cookie given header's value and request's current URL; garbage collect cookies.
    let url = request.current_url();
    match cookies {
        CookieJar::Store(store) => {
            for value in headers.get_all(http::header::SET_COOKIE) {
                store.set_cookie_from_header(url, value.as_bytes());
            }
        }
        CookieJar::Provider(provider) => {
            let values: Vec<&[u8]> = headers
                .get_all(http::header::SET_COOKIE)
                .iter()
                .map(http::HeaderValue::as_bytes)
                .collect();
            if !values.is_empty() {
                provider.set_cookies_from_headers(url, &values).await;
            }
        }
    }
}

/// The request as the network layer takes it: method, URL without fragment, the header
/// list in order, and the body.
fn to_http_request(request: &mut Request) -> Result<http::Request<RequestBody>, Error> {
    let url = request.current_url();
    let uri = uri_of(url)
        .map_err(|error| Error::type_error(format!("URL {url} cannot be sent: {error}")))?;
    let method = http::Method::from_bytes(request.method.as_bytes()).map_err(|error| {
        Error::type_error(format!("method {:?} cannot be sent", request.method)).with_source(error)
    })?;
    let list = request.headers.header_list();
    let (headers, raw_fields) = match header_map_of(list) {
        Ok(headers) => (headers, None),
        // A value a `HeaderValue` cannot hold, and Fetch allows (a control byte): its
        // fields go beside the map.
        Err(error) => split_raw_fields(list).ok_or(error)?,
    };
    // httpRequest is used once: its body is handed to the connection. A body with a
    // source in memory goes as one buffer; a stream, or a source with bytes on disk, is
    // pulled chunk by chunk as the connection takes it (under the `Content-Length` of its
    // known length, which the transport holds it to).
    let body = match request.body.take() {
        None => RequestBody::empty(),
        Some(body) => match body.source() {
            Some(source) => RequestBody::full(source.clone()),
            None => RequestBody::from_stream(body),
        },
    };
    let mut http_request = http::Request::new(body);
    *http_request.method_mut() = method;
    *http_request.uri_mut() = uri;
    *http_request.headers_mut() = headers;
    if let Some(raw_fields) = raw_fields {
        http_request.extensions_mut().insert(raw_fields);
    }
    // Not in the spec: what the request carries for the transport (its own route).
    if !request.transport_extensions.is_empty() {
        http_request
            .extensions_mut()
            .extend(request.transport_extensions.clone());
    }
    Ok(http_request)
}

/// The header map of `list` without the fields of the names with a value that holds a
/// byte Fetch allows and `http::HeaderValue` refuses (0x01–0x08, 0x0B, 0x0C, 0x0E–0x1F,
/// 0x7F), and those fields, in order, as [`RawFields`](crate::net::RawFields) for the
/// transport to send as they are. `None` when `list` has no such value, or a name or value
/// that is not one at all.
fn split_raw_fields(list: &HeaderList) -> Option<(http::HeaderMap, Option<crate::net::RawFields>)> {
    let raw_only = |value: &[u8]| value.iter().any(|&byte| crate::net::is_raw_only(byte));
    let mut raw_names: Vec<http::HeaderName> = Vec::new();
    for (name, value) in list.iter_bytes() {
        if raw_only(value) {
            let name = http::HeaderName::from_bytes(name).ok()?;
            if !raw_names.contains(&name) {
                raw_names.push(name);
            }
        }
    }
    if raw_names.is_empty() {
        return None;
    }
    let mut map = http::HeaderMap::with_capacity(list.len());
    let mut raw = crate::net::RawFields::new();
    for (name, value) in list.iter_bytes() {
        let name = http::HeaderName::from_bytes(name).ok()?;
        if raw_names.contains(&name) {
            raw.push(name, value.clone()).ok()?;
        } else {
            map.append(
                name,
                http::HeaderValue::from_maybe_shared(value.clone()).ok()?,
            );
        }
    }
    Some((map, Some(raw)))
}

/// The `http::Uri` of an HTTP(S) `url`, without its fragment.
///
/// Made from its parts: the scheme is one of two constants, the authority the one copy,
/// and the path `/` a constant, where parsing the whole serialization copies it, then
/// splits it (one allocation more) and scans it again.
///
/// As with header maps, each thread keeps the last URL it was given, up to its fragment,
/// and once that URL comes again, the `Uri` made for it: the same URL after that gets a
/// copy (the authority and path shared, no allocation). A URL seen once costs a copy of its
/// text into room the thread keeps, not a copy of its `Uri`.
fn uri_of(url: &url::Url) -> Result<http::Uri, Box<dyn std::error::Error + Send + Sync>> {
    use url::Position;
    let scheme = match url.scheme() {
        "http" => http::uri::Scheme::HTTP,
        "https" => http::uri::Scheme::HTTPS,
        _ => return Ok(url[..Position::AfterQuery].parse::<http::Uri>()?),
    };
    let key = &url[..Position::AfterQuery];
    kept::with_slot(&LAST_URI, |last| {
        if let Some(uri) = last.get(key) {
            return Ok(uri.clone());
        }
        let made = uri_from_parts(url, scheme.clone());
        last.note(key, KEPT_BYTES, || made.as_ref().ok().cloned());
        made
    })
    // While the thread's storage is being torn down, or (never) borrowed twice.
    .unwrap_or_else(|| uri_from_parts(url, scheme))
}

/// The `http::Uri` of an HTTP(S) `url` with that `scheme`, made from its parts.
fn uri_from_parts(
    url: &url::Url,
    scheme: http::uri::Scheme,
) -> Result<http::Uri, Box<dyn std::error::Error + Send + Sync>> {
    use url::Position;
    let authority = &url[Position::BeforeUsername..Position::AfterPort];
    let authority =
        http::uri::Authority::from_maybe_shared(Bytes::copy_from_slice(authority.as_bytes()))?;
    let path_and_query = match &url[Position::BeforePath..Position::AfterQuery] {
        "/" => http::uri::PathAndQuery::from_static("/"),
        other => {
            http::uri::PathAndQuery::from_maybe_shared(Bytes::copy_from_slice(other.as_bytes()))?
        }
    };
    let mut parts = http::uri::Parts::default();
    parts.scheme = Some(scheme);
    parts.authority = Some(authority);
    parts.path_and_query = Some(path_and_query);
    Ok(http::Uri::from_parts(parts)?)
}

/// The largest header list [`header_map_of`] keeps for the next request: 32 fields of at
/// most 4 KiB in all, so that what a thread keeps stays small.
const KEPT_FIELDS: usize = 32;
const KEPT_BYTES: usize = 4096;

thread_local! {
    /// The last header list [`header_map_of`] kept on this thread, and its map.
    static LAST_KEPT: std::cell::RefCell<Option<(HeaderList, http::HeaderMap)>> =
        const { std::cell::RefCell::new(None) };
    /// The last URL [`uri_of`] was given on this thread, up to its fragment, and its `Uri`
    /// once it was given twice running.
    static LAST_URI: std::cell::RefCell<LastText<http::Uri>> =
        const { std::cell::RefCell::new(LastText::new()) };
}

/// The `http::HeaderMap` of a request's header list, for the transport.
///
/// A client's requests mostly carry the same header list (its default `Accept`,
/// `Accept-Language`, `User-Agent` and `Accept-Encoding`, and the same few of the caller's
/// own), and building a map costs two allocations, a name parse and a hash per field. So
/// each thread keeps the last small list it converted and its map: a request whose list
/// is equal byte for byte gets a copy of that map (two allocations, the values' bytes
/// shared) instead. Any other list is converted and kept in its place, so what a thread
/// keeps (a credential header among it, maybe) lasts until its next request.
fn header_map_of(list: &HeaderList) -> Result<http::HeaderMap, Error> {
    kept::with_slot(&LAST_KEPT, |last| {
        if let Some((previous, map)) = last.as_ref() {
            if same_list(previous, list) {
                return Ok(map.clone());
            }
        }
        let map = http::HeaderMap::try_from(list)?;
        let size: usize = list
            .iter()
            .map(|(name, value)| name.len() + value.len())
            .sum();
        *last = match list.len() <= KEPT_FIELDS && size <= KEPT_BYTES {
            true => Some((list.clone(), map.clone())),
            false => None,
        };
        Ok(map)
    })
    // While the thread's storage is being torn down, or (never) borrowed twice.
    .unwrap_or_else(|| http::HeaderMap::try_from(list))
}

/// Whether two header lists are equal, byte for byte. A field the lists share (a clone of
/// the same `Bytes`, or the same static name) is found equal without reading its bytes.
fn same_list(a: &HeaderList, b: &HeaderList) -> bool {
    let same = |a: &Bytes, b: &Bytes| a.len() == b.len() && (a.as_ptr() == b.as_ptr() || a == b);
    a.len() == b.len()
        && a.iter_bytes()
            .zip(b.iter_bytes())
            .all(|((a_name, a_value), (b_name, b_value))| {
                same(a_name, b_name) && same(a_value, b_value)
            })
}

/// A response made from what the network layer returned.
fn from_http_response(http_response: http::Response<crate::net::ResponseBody>) -> Response {
    let status = http_response.status().as_u16();
    let status_message = crate::net::status_text(&http_response);
    let (mut parts, mut body) = http_response.into_parts();
    // Kept as the map it is until the list is changed or its fields borrowed as `Bytes`.
    let mut list = HeaderList::from_received(std::mem::take(&mut parts.headers));
    // The fields whose values hold a control byte (HTTP/1.1 reads them, a `HeaderValue`
    // cannot hold them), after the others.
    if let Some(raw) = parts.extensions.remove::<crate::net::RawFields>() {
        for (name, value) in raw.iter() {
            let value = value.slice_ref(crate::headers::normalize_header_value(value));
            list.push(Bytes::copy_from_slice(name.as_str().as_bytes()), value);
        }
    }
    let headers = Headers::from_header_list(list, HeadersGuard::Immutable);
    // HTTP-network fetch steps 8.2 (final connection timing info), 8.4 (final
    // network-request start time) and 8.5 (final network-response start time), as the
    // transport measured them: kept for fetch response handover, which sets them in
    // fetchParams's timing info (see `fetch_response_handover_timing`).
    let network = body.connection_info().map(|info| NetworkTiming {
        connection_timing_info: ConnectionTimingInfo {
            domain_lookup_start_time: info.timing.domain_lookup_start,
            domain_lookup_end_time: info.timing.domain_lookup_end,
            connection_start_time: info.timing.connection_start,
            connection_end_time: info.timing.connection_end,
            secure_connection_start_time: info.timing.secure_connection_start,
            alpn_negotiated_protocol: info.alpn_negotiated_protocol,
            secure: info.secure,
        },
        network_request_start_time: info.request_start,
        network_response_start_time: info.response_start,
        connection_reused: info.reused,
    });
    // Not in the spec: the connection's peer (its address and TLS), one `Arc` shared with
    // every response on the connection, for `Response::remote_addr` and `tls_info`.
    // The connection of a `101` answering the request's `Upgrade`: in "websocket" mode,
    // the WebSocket connection (HTTP-network fetch step 11's "if request's mode is
    // "websocket" and status is 101, then break"); otherwise, not in the spec, for
    // `Response::upgrade`. Or the stream of a `2xx` answering an extended CONNECT over
    // HTTP/2 (RFC 8441), a WebSocket's in "websocket" mode. The network layer hands over
    // only what a request asked for.
    let upgrade = parts.extensions.remove::<crate::upgrade::OnUpgrade>();
    let cell = Arc::new(TimingCell::from_network(network, body.peer(), upgrade));
    // Not in the spec: the size the body will have, when the network layer knows it
    // before reading (a `Content-Length` of a body left as sent, not one that is
    // decoded), so that a size limit can fail the first read without reading.
    let declared = http_body::Body::size_hint(&body).exact();
    // Steps 10–18: the response body info's encoded and decoded sizes grow with each
    // chunk, and processResponseEndOfBody's end time is taken at its end.
    let mut body = Body::from_network(Metered {
        body,
        cell: Arc::clone(&cell),
    });
    body.set_declared_size(declared);
    let mut response =
        Response::from_network(status, status_message, headers, Some(body), Vec::new());
    response.timing = Some(cell);
    // Not in the spec: the HTTP version, for `Response::version`.
    response.version = parts.version;
    response
}

/// A response body from the network that records, in the response's [`TimingCell`], the
/// [response body info](https://fetch.spec.whatwg.org/#response-body-info)'s encoded and
/// decoded sizes as it delivers chunks, and the end time when it ends (to its end, or
/// with an error). It lives inside the body's existing box: nothing more is allocated.
struct Metered {
    body: crate::net::ResponseBody,
    cell: Arc<TimingCell>,
}

impl futures_core::Stream for Metered {
    type Item = Result<Bytes, NetworkError>;

    fn poll_next(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<Option<Self::Item>> {
        use std::task::Poll;
        let this = &mut *self;
        loop {
            let frame = http_body::Body::poll_frame(std::pin::Pin::new(&mut this.body), cx);
            let polled = match frame {
                Poll::Ready(Some(Ok(frame))) => match frame.into_data() {
                    Ok(chunk) if chunk.is_empty() => continue,
                    Ok(chunk) => Poll::Ready(Some(Ok(chunk))),
                    Err(frame) => {
                        // Not in the spec: the trailer fields, for `Response::trailers`.
                        if let Ok(trailers) = frame.into_trailers() {
                            let _ = this.cell.trailers.set(Box::new(trailers));
                        }
                        continue;
                    }
                },
                Poll::Ready(Some(Err(error))) => Poll::Ready(Some(Err(error))),
                Poll::Ready(None) => Poll::Ready(None),
                Poll::Pending => Poll::Pending,
            };
            match &polled {
                Poll::Ready(Some(Ok(chunk))) => {
                    // Step 18 (as bytes are transmitted): increase response's body info's
                    // encoded size by bytes's length; set bytes to the result of handling
                    // content codings; increase its decoded size by bytes's length.
                    let encoded = this.body.encoded_size();
                    this.cell.add_chunk(chunk.len(), encoded);
                }
                Poll::Ready(_) => this.cell.end_of_body(),
                Poll::Pending => {}
            }
            return polled;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn list(fields: &[(&str, &str)]) -> HeaderList {
        fields.iter().copied().collect()
    }

    fn fields(map: &http::HeaderMap) -> Vec<(String, String)> {
        map.iter()
            .map(|(name, value)| {
                let value = String::from_utf8_lossy(value.as_bytes()).into_owned();
                (name.as_str().to_owned(), value)
            })
            .collect()
    }

    #[test]
    fn a_uri_made_from_parts_is_the_one_parsed_from_the_serialization() {
        for input in [
            "http://example.com/",
            "https://example.com:8443/a/b?c=d&e#fragment",
            "http://user:pass@example.com:8080/x?y",
            "http://[::1]:3000/",
            "http://127.0.0.1/%20?%7B%22a%22%7D",
            "https://xn--nxasmq6b.example/path/",
            "http://example.com/?",
            "http://example.com/#",
        ] {
            let url = url::Url::parse(input).unwrap();
            let parsed: http::Uri = url[..url::Position::AfterQuery].parse().unwrap();
            // Made, then the kept one.
            for _ in 0..2 {
                let made = uri_of(&url).unwrap();
                assert_eq!(made, parsed, "{input}");
                assert_eq!(made.to_string(), parsed.to_string(), "{input}");
            }
        }
        // A URL given once is kept without its `Uri`; given again (a fragment makes no
        // difference), with it.
        let kept = || {
            LAST_URI.with(|last| {
                let last = last.borrow();
                let (key, uri) = last.parts();
                Some((key.to_owned(), uri.map(|uri| uri.to_string())))
            })
        };
        let expected = "http://example.com/a?b".to_owned();
        let url = url::Url::parse("http://example.com/a?b#c").unwrap();
        assert_eq!(uri_of(&url).unwrap().to_string(), expected);
        assert_eq!(kept(), Some((expected.clone(), None)));
        let url = url::Url::parse("http://example.com/a?b#other").unwrap();
        assert_eq!(uri_of(&url).unwrap().to_string(), expected);
        assert_eq!(kept(), Some((expected.clone(), Some(expected.clone()))));
        assert_eq!(uri_of(&url).unwrap().to_string(), expected);
        let url = url::Url::parse("http://example.com/other").unwrap();
        assert_eq!(
            uri_of(&url).unwrap().to_string(),
            "http://example.com/other"
        );
        assert_eq!(kept(), Some(("http://example.com/other".to_owned(), None)));
        // Another scheme is parsed whole, as before.
        let url = url::Url::parse("ftp://example.com/file").unwrap();
        assert_eq!(uri_of(&url).unwrap().scheme_str(), Some("ftp"));
    }

    #[test]
    fn a_kept_header_map_is_given_only_to_an_equal_list() {
        let first = list(&[("Accept", "*/*"), ("X-Token", "a"), ("accept", "text/html")]);
        let expected = fields(&http::HeaderMap::try_from(&first).unwrap());
        assert_eq!(fields(&header_map_of(&first).unwrap()), expected);
        // Equal lists, made apart: the kept map.
        let again = list(&[("Accept", "*/*"), ("X-Token", "a"), ("accept", "text/html")]);
        assert_eq!(fields(&header_map_of(&again).unwrap()), expected);
        // One value of the same length changed, then one field fewer: maps of their own.
        let changed = list(&[("Accept", "*/*"), ("X-Token", "b"), ("accept", "text/html")]);
        assert_eq!(
            fields(&header_map_of(&changed).unwrap()),
            [("accept", "*/*"), ("accept", "text/html"), ("x-token", "b")]
                .map(|(name, value)| (name.to_owned(), value.to_owned()))
        );
        let shorter = list(&[("Accept", "*/*"), ("X-Token", "b")]);
        assert_eq!(header_map_of(&shorter).unwrap().len(), 2);
        assert!(header_map_of(&list(&[])).unwrap().is_empty());
    }

    #[test]
    fn a_list_that_cannot_be_a_header_map_fails_after_one_that_could() {
        let good = list(&[("Accept", "*/*")]);
        assert!(header_map_of(&good).is_ok());
        let bad = list(&[("Accept", "*/*\u{1}")]);
        let error = header_map_of(&bad).unwrap_err();
        assert!(
            error.to_string().contains("not a valid HTTP header value"),
            "{error}"
        );
        assert!(header_map_of(&bad).is_err());
        assert_eq!(header_map_of(&good).unwrap().len(), 1);
    }

    #[test]
    fn a_large_list_is_converted_but_not_kept() {
        let large_value = "x".repeat(KEPT_BYTES + 1);
        let large = list(&[("X-Large", large_value.as_str())]);
        assert_eq!(header_map_of(&large).unwrap().len(), 1);
        let kept = LAST_KEPT.with(|last| last.borrow().as_ref().map(|(list, _)| list.len()));
        assert_eq!(kept, None);
        let many: HeaderList = (0..=KEPT_FIELDS).map(|i| (format!("x-{i}"), "v")).collect();
        assert_eq!(header_map_of(&many).unwrap().len(), KEPT_FIELDS + 1);
        let kept = LAST_KEPT.with(|last| last.borrow().as_ref().map(|(list, _)| list.len()));
        assert_eq!(kept, None);
        let small = list(&[("Accept", "*/*")]);
        header_map_of(&small).unwrap();
        let kept = LAST_KEPT.with(|last| last.borrow().as_ref().map(|(list, _)| list.len()));
        assert_eq!(kept, Some(1));
    }
}
