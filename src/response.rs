//! Responses: the [response](https://fetch.spec.whatwg.org/#concept-response) concept, its
//! [filtered responses](https://fetch.spec.whatwg.org/#concept-filtered-response), and the
//! [`Response` class](https://fetch.spec.whatwg.org/#response-class) (Fetch § 5.5).
//!
//! ```
//! # tokio_test::block_on(async {
//! use whatwg_fetch::{Response, ResponseInit};
//!
//! let mut response = Response::new(Some(r#"{"ok": true}"#.into()), ResponseInit::default())?;
//! assert!(response.ok());
//! let value: serde_json::Value = response.json().await?;
//! assert_eq!(value["ok"], true);
//! # Ok::<(), whatwg_fetch::Error>(())
//! # }).unwrap();
//! ```

use std::borrow::Cow;
use std::fmt;
use std::net::SocketAddr;

use bytes::Bytes;
use url::Url;

use crate::body::{self, Body, BodyInit, BodyWithType};
use crate::cookie::SetCookie;
use crate::environment::Environment;
use crate::error::{Error, Result};
use crate::headers::{self, Extracted, HeaderList, Headers, HeadersGuard, HeadersInit};
use crate::peer::{Peer, TlsInfo};
use crate::request::UrlList;
use crate::timing::{ResourceTiming, TimingCell};

idl_enum! {
    /// [`ResponseType`](https://fetch.spec.whatwg.org/#concept-response-type).
    ///
    /// ```
    /// use whatwg_fetch::{Response, ResponseInit, ResponseType};
    ///
    /// assert_eq!(Response::new(None, ResponseInit::default())?.r#type(), ResponseType::Default);
    /// assert_eq!(Response::error().r#type(), ResponseType::Error);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub enum ResponseType {
        /// `"basic"`: a same-origin response; forbidden response-headers are hidden.
        Basic = "basic",
        /// `"cors"`: a cross-origin response that passed the CORS check; only safelisted
        /// and exposed headers are visible.
        Cors = "cors",
        /// `"default"`: a response made by `new Response()`, or fetched with no origin.
        Default = "default",
        /// `"error"`: a network error.
        Error = "error",
        /// `"opaque"`: a `no-cors` cross-origin response; nothing is visible.
        Opaque = "opaque",
        /// `"opaqueredirect"`: a redirect under redirect mode `manual`.
        OpaqueRedirect = "opaqueredirect",
    }
}

/// Whether `status` is a [null body status](https://fetch.spec.whatwg.org/#null-body-status):
/// 101, 103, 204, 205 or 304.
///
/// ```
/// use whatwg_fetch::response::is_null_body_status;
///
/// assert!(is_null_body_status(204) && is_null_body_status(304));
/// assert!(!is_null_body_status(200));
/// ```
pub fn is_null_body_status(status: u16) -> bool {
    matches!(status, 101 | 103 | 204 | 205 | 304)
}

/// Whether `status` is an [ok status](https://fetch.spec.whatwg.org/#ok-status): 200 to 299.
///
/// ```
/// use whatwg_fetch::response::is_ok_status;
///
/// assert!(is_ok_status(299) && !is_ok_status(304));
/// ```
pub fn is_ok_status(status: u16) -> bool {
    (200..=299).contains(&status)
}

/// Whether `status` is a [redirect status](https://fetch.spec.whatwg.org/#redirect-status):
/// 301, 302, 303, 307 or 308.
///
/// ```
/// use whatwg_fetch::response::is_redirect_status;
///
/// assert!(is_redirect_status(308));
/// // 300 and 304 are not redirects to follow.
/// assert!(!is_redirect_status(300) && !is_redirect_status(304));
/// ```
pub fn is_redirect_status(status: u16) -> bool {
    matches!(status, 301 | 302 | 303 | 307 | 308)
}

/// Whether `text` matches the [`reason-phrase`](https://httpwg.org/specs/rfc9112.html#status.line)
/// production: tabs, spaces, visible ASCII and `obs-text` (U+0080 to U+00FF, as a
/// JavaScript ByteString holds bytes).
fn is_reason_phrase(text: &str) -> bool {
    text.chars()
        .all(|c| matches!(c, '\t' | ' ' | '\x21'..='\x7E' | '\u{80}'..='\u{FF}'))
}

/// The [`ResponseInit`](https://fetch.spec.whatwg.org/#responseinit) dictionary, with the
/// IDL defaults: status 200, empty status text, no headers.
///
/// ```
/// use whatwg_fetch::{Response, ResponseInit};
///
/// let init = ResponseInit {
///     status: 404,
///     status_text: "Not Found".into(),
///     headers: Some(vec![("content-type", "text/plain")].into()),
/// };
/// let response = Response::new(Some("no such item".into()), init)?;
/// assert_eq!((response.status(), response.status_text()), (404, "Not Found"));
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Debug)]
pub struct ResponseInit {
    /// The status, 200 to 599.
    pub status: u16,
    /// The status text; must match HTTP's `reason-phrase`.
    pub status_text: String,
    /// The headers.
    pub headers: Option<HeadersInit>,
}

impl Default for ResponseInit {
    fn default() -> ResponseInit {
        ResponseInit {
            status: 200,
            status_text: String::new(),
            headers: None,
        }
    }
}

/// A [response](https://fetch.spec.whatwg.org/#concept-response) and the
/// [`Response`](https://fetch.spec.whatwg.org/#response) object around it.
///
/// A filtered response (types `basic`, `cors`, `opaque`, `opaqueredirect`) shows what the
/// spec lets a page see; its internal response keeps the rest.
///
/// ```
/// # tokio_test::block_on(async {
/// use whatwg_fetch::response::{Response, ResponseInit};
///
/// let mut response = Response::new(Some("hi".into()), ResponseInit { status: 201, ..Default::default() })?;
/// assert!(response.ok());
/// assert_eq!(response.headers().get("content-type")?.as_deref(), Some("text/plain;charset=UTF-8"));
/// assert_eq!(response.text().await?, "hi");
/// assert!(response.body_used());
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
pub struct Response {
    /// <https://fetch.spec.whatwg.org/#concept-response-type>, initially `default`.
    pub(crate) r#type: ResponseType,
    /// <https://fetch.spec.whatwg.org/#concept-response-url-list>, initially « ».
    pub(crate) url_list: UrlList,
    /// <https://fetch.spec.whatwg.org/#concept-response-status>, initially 200.
    pub(crate) status: u16,
    /// <https://fetch.spec.whatwg.org/#concept-response-status-message>, initially empty; a
    /// ByteString, each char one byte (U+0000 to U+00FF).
    pub(crate) status_message: Cow<'static, str>,
    /// <https://fetch.spec.whatwg.org/#concept-response-header-list>, held by the
    /// response's `Headers` object with its guard.
    pub(crate) headers: Headers,
    /// <https://fetch.spec.whatwg.org/#concept-response-body>, initially null. For `basic`
    /// and `cors` filtered responses the body lives here, shared with the internal
    /// response as the spec's "refer to" says.
    pub(crate) body: Option<Body>,
    /// <https://fetch.spec.whatwg.org/#concept-response-cors-exposed-header-name-list>.
    /// A boxed slice rather than a `Vec`: 8 bytes fewer, which keeps a `Response` within
    /// 256 bytes (see `body.rs`'s size test); it is set once, whole.
    pub(crate) cors_exposed_header_names: Box<[Vec<u8>]>,
    /// <https://fetch.spec.whatwg.org/#concept-response-range-requested-flag>.
    pub(crate) range_requested: bool,
    /// <https://fetch.spec.whatwg.org/#response-request-includes-credentials>, initially true.
    pub(crate) request_includes_credentials: bool,
    /// <https://fetch.spec.whatwg.org/#concept-response-timing-allow-passed>.
    pub(crate) timing_allow_passed: bool,
    /// <https://fetch.spec.whatwg.org/#concept-internal-response>, for filtered responses.
    pub(crate) internal_response: Option<Box<Response>>,
    // Not in the spec:
    /// Why a network error happened: what `fetch()` rejects with.
    pub(crate) error: Option<Error>,
    /// The fetch's timing info and the response body info, shared with the body's
    /// stream, on a fetched response (the internal one of a filtered response).
    pub(crate) timing: Option<std::sync::Arc<TimingCell>>,
    /// The HTTP version of the response as the network layer received it, or as the HTTP
    /// cache stored it; HTTP/1.1 for a response that did not come from the network (see
    /// [`Response::version`]). One byte, within the padding after the flags above.
    pub(crate) version: http::Version,
}

impl Response {
    /// A new response with the spec's defaults: type `default`, status 200, no headers, no
    /// body.
    fn new_response(guard: HeadersGuard) -> Response {
        Response {
            r#type: ResponseType::Default,
            url_list: UrlList::default(),
            status: 200,
            status_message: Cow::Borrowed(""),
            headers: Headers::with_guard(guard),
            body: None,
            cors_exposed_header_names: Box::default(),
            range_requested: false,
            request_includes_credentials: true,
            timing_allow_passed: false,
            internal_response: None,
            error: None,
            timing: None,
            version: http::Version::HTTP_11,
        }
    }

    /// A [network error](https://fetch.spec.whatwg.org/#concept-network-error): type
    /// `error`, status 0, no headers, no body; `cause` is what `fetch()` rejects with.
    pub(crate) fn network_error(cause: Error) -> Response {
        let mut response = Response::new_response(HeadersGuard::Immutable);
        response.r#type = ResponseType::Error;
        response.status = 0;
        response.error = Some(cause);
        response
    }

    /// `new Response(body, init)`: the [constructor steps](https://fetch.spec.whatwg.org/#dom-response).
    ///
    /// ```
    /// use whatwg_fetch::{ErrorKind, Response, ResponseInit};
    ///
    /// // A response made by the program, for a mock server or a service worker–style cache.
    /// let response = Response::new(
    ///     Some(r#"{"ok":true}"#.into()),
    ///     ResponseInit {
    ///         status: 201,
    ///         status_text: "Created".into(),
    ///         headers: Some(vec![("content-type", "application/json")].into()),
    ///     },
    /// )?;
    /// assert_eq!((response.status(), response.status_text()), (201, "Created"));
    /// // A status outside 200–599 is a `RangeError`, as in JavaScript.
    /// let error = Response::new(None, ResponseInit { status: 600, ..ResponseInit::default() }).unwrap_err();
    /// assert_eq!(error.kind(), ErrorKind::RangeError);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// A `RangeError` for a status outside 200–599; a `TypeError` for a status text that
    /// is not a reason phrase, invalid headers, or a body with a null body status (101,
    /// 103, 204, 205, 304).
    pub fn new(body: Option<BodyInit>, init: ResponseInit) -> Result<Response> {
        // Step 1. Set this's response to a new response.
        // Step 2. Set this's headers to a new Headers object whose header list is this's
        // response's header list and guard is "response".
        let mut response = Response::new_response(HeadersGuard::Response);
        // Step 3. Let bodyWithType be null.
        // Step 4. If body is non-null, then set bodyWithType to the result of extracting body.
        let body_with_type = match body.and_then(BodyInit::non_null) {
            Some(body) => Some(body::extract_body(body, false)?),
            None => None,
        };
        // Step 5. Perform initialize a response given this, init, and bodyWithType.
        response.initialize(init, body_with_type)?;
        Ok(response)
    }

    /// [Initialize a response](https://fetch.spec.whatwg.org/#initialize-a-response).
    fn initialize(&mut self, init: ResponseInit, body: Option<BodyWithType>) -> Result<()> {
        // Step 1. If init["status"] is not in the range 200 to 599, inclusive, then throw a
        // RangeError.
        if !(200..=599).contains(&init.status) {
            return Err(Error::range_error(format!(
                "status {} is outside the range 200 to 599",
                init.status
            )));
        }
        // Step 2. If init["statusText"] is not the empty string and does not match the
        // reason-phrase token production, then throw a TypeError.
        if !init.status_text.is_empty() && !is_reason_phrase(&init.status_text) {
            return Err(Error::type_error(format!(
                "status text {:?} is not a valid reason phrase",
                init.status_text
            )));
        }
        // Step 3. Set response's response's status to init["status"].
        self.status = init.status;
        // Step 4. Set response's response's status message to init["statusText"].
        self.status_message = Cow::Owned(init.status_text);
        // Step 5. If init["headers"] exists, then fill response's headers with
        // init["headers"].
        if let Some(headers) = init.headers {
            self.headers.fill(headers)?;
        }
        // Step 6. If body is non-null, then:
        if let Some(BodyWithType { body, r#type }) = body {
            // Step 6.1. If response's status is a null body status, then throw a TypeError.
            if is_null_body_status(self.status) {
                return Err(Error::type_error(format!(
                    "a response with status {} cannot have a body",
                    self.status
                )));
            }
            // Step 6.2. Set response's body to body's body.
            self.body = Some(body);
            // Step 6.3. If body's type is non-null and response's header list does not
            // contain `Content-Type`, then append (`Content-Type`, body's type) to
            // response's header list.
            if let Some(r#type) = r#type {
                if !self.headers.header_list().contains("content-type") {
                    self.headers
                        .header_list_mut()
                        .append("Content-Type", &r#type);
                }
            }
        }
        Ok(())
    }

    /// [`Response.error()`](https://fetch.spec.whatwg.org/#dom-response-error): a network
    /// error with immutable headers.
    ///
    /// ```
    /// use whatwg_fetch::{Response, ResponseType};
    ///
    /// let response = Response::error();
    /// assert_eq!((response.r#type(), response.status()), (ResponseType::Error, 0));
    /// assert!(!response.ok());
    /// ```
    pub fn error() -> Response {
        Response::network_error(Error::type_error("Response.error()"))
    }

    /// [`Response.redirect(url, status)`](https://fetch.spec.whatwg.org/#dom-response-redirect)
    /// in the server-side environment: `url` must be absolute.
    ///
    /// ```
    /// use whatwg_fetch::Response;
    ///
    /// let response = Response::redirect("https://example.com/new", 301)?;
    /// assert_eq!(response.status(), 301);
    /// assert_eq!(response.headers().get("location")?.as_deref(), Some("https://example.com/new"));
    /// // A status that is not a redirect status is a `RangeError`.
    /// assert!(Response::redirect("https://example.com/new", 200).is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// A `TypeError` for an unparsable URL; a `RangeError` if `status` is not a redirect
    /// status.
    pub fn redirect(url: &str, status: u16) -> Result<Response> {
        Response::redirect_in(&Environment::server(), url, status)
    }

    /// [`Response.redirect(url, status)`](https://fetch.spec.whatwg.org/#dom-response-redirect),
    /// parsing `url` against `environment`'s base URL.
    ///
    /// ```
    /// use whatwg_fetch::{Environment, Response, Url};
    ///
    /// let environment = Environment::server().with_base_url(Url::parse("https://example.com/docs/")?);
    /// let response = Response::redirect_in(&environment, "../new", 308)?;
    /// assert_eq!(response.headers().get("location")?.as_deref(), Some("https://example.com/new"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Response::redirect`].
    pub fn redirect_in(environment: &Environment, url: &str, status: u16) -> Result<Response> {
        // Step 1. Let parsedURL be the result of parsing url with current settings
        // object's API base URL.
        // Step 2. If parsedURL is failure, then throw a TypeError.
        let parsed_url = environment
            .parse_url(url)
            .map_err(|error| Error::type_error(format!("invalid URL {url:?}: {error}")))?;
        // Step 3. If status is not a redirect status, then throw a RangeError.
        if !is_redirect_status(status) {
            return Err(Error::range_error(format!(
                "{status} is not a redirect status"
            )));
        }
        // Step 4. Let responseObject be the result of creating a Response object, given a
        // new response, "immutable", and the current realm.
        let mut response = Response::new_response(HeadersGuard::Immutable);
        // Step 5. Set responseObject's response's status to status.
        response.status = status;
        // Step 6. Let value be parsedURL, serialized and isomorphic encoded.
        // Step 7. Append (`Location`, value) to responseObject's response's header list.
        response
            .headers
            .header_list_mut()
            .append("Location", parsed_url.as_str());
        // Step 8. Return responseObject.
        Ok(response)
    }

    /// [`Response.json(data, init)`](https://fetch.spec.whatwg.org/#dom-response-json), the
    /// static constructor: a response whose body is `data` serialized as JSON, typed
    /// `application/json`. (In Rust a static and an instance method cannot share a name,
    /// and [`json`](Self::json) is the body's reader, as in JavaScript and reqwest.)
    ///
    /// # Errors
    /// A `TypeError` if `data` cannot be serialized, and the errors of [`Response::new`]
    /// for `init`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let mut response = Response::from_json(&[1, 2, 3], ResponseInit::default())?;
    /// assert_eq!(response.headers().get("content-type")?.as_deref(), Some("application/json"));
    /// assert_eq!(response.json::<Vec<u8>>().await?, [1, 2, 3]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn from_json<T: serde::Serialize + ?Sized>(
        data: &T,
        init: ResponseInit,
    ) -> Result<Response> {
        // Step 1. Let bytes the result of running serialize a JavaScript value to JSON
        // bytes on data.
        let bytes = serde_json::to_vec(data).map_err(|error| {
            Error::type_error("value cannot be serialized as JSON").with_source(error)
        })?;
        // Step 2. Let body be the result of extracting bytes.
        let body = body::extract_body(BodyInit::Bytes(bytes.into()), false)?;
        // Step 3. Let responseObject be the result of creating a Response object, given a
        // new response, "response", and the current realm.
        let mut response = Response::new_response(HeadersGuard::Response);
        // Step 4. Perform initialize a response given responseObject, init, and (body,
        // "application/json").
        let body = BodyWithType {
            body: body.body,
            r#type: Some(Bytes::from_static(b"application/json")),
        };
        response.initialize(init, Some(body))?;
        // Step 5. Return responseObject.
        Ok(response)
    }

    /// A response made by a network layer: status, status message, headers and body as
    /// received, for `url_list`. The headers get guard `immutable`, as a fetched
    /// response's do.
    pub(crate) fn from_network(
        status: u16,
        status_message: impl Into<Cow<'static, str>>,
        headers: Headers,
        body: Option<Body>,
        url_list: Vec<Url>,
    ) -> Response {
        let mut response = Response::new_response(HeadersGuard::Immutable);
        response.status = status;
        response.status_message = status_message.into();
        response.headers = headers;
        response.headers.set_guard(HeadersGuard::Immutable);
        response.body = body;
        response.url_list = UrlList::from(url_list);
        response
    }

    /// Whether this is a [network error](https://fetch.spec.whatwg.org/#concept-network-error).
    pub(crate) fn is_network_error(&self) -> bool {
        self.r#type == ResponseType::Error
    }

    /// Names `url` in this network error's cause as the URL whose fetch failed.
    pub(crate) fn set_network_error_url(&mut self, url: &url::Url) {
        if let Some(error) = self.error.take() {
            self.error = Some(error.with_url(url));
        }
    }

    /// Why this network error happened, if it is one.
    pub(crate) fn network_error_cause(&self) -> Option<&Error> {
        self.error.as_ref()
    }

    /// The [`type`](https://fetch.spec.whatwg.org/#dom-response-type).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Client, ResponseType};
    ///
    /// // A server-side client's responses are `basic`; a browser-like one's to another origin
    /// // are `cors` or `opaque`, as a page's are.
    /// let response = Client::new().get("data:,x").send().await?;
    /// assert_eq!(response.r#type(), ResponseType::Basic);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn r#type(&self) -> ResponseType {
        self.r#type
    }

    /// The [`url`](https://fetch.spec.whatwg.org/#dom-response-url): the last URL of the
    /// URL list without its fragment, or `""` if there is none.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// let response = whatwg_fetch::Client::new().get("data:,hello#part").send().await?;
    /// // The last URL of the fetch, without its fragment.
    /// assert_eq!(response.url(), "data:,hello");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn url(&self) -> Cow<'_, str> {
        match self.url_list.last() {
            None => Cow::Borrowed(""),
            Some(url) if url.fragment().is_none() => Cow::Borrowed(url.as_str()),
            Some(url) => {
                let mut url = url.clone();
                url.set_fragment(None);
                Cow::Owned(url.into())
            }
        }
    }

    /// The response's [URL list](https://fetch.spec.whatwg.org/#concept-response-url-list).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// let response = whatwg_fetch::Client::new().get("data:,hello").send().await?;
    /// // One URL, as nothing redirected; each redirect adds the URL it went to.
    /// assert_eq!(response.url_list().len(), 1);
    /// assert!(!response.redirected());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn url_list(&self) -> &[Url] {
        &self.url_list
    }

    /// [`redirected`](https://fetch.spec.whatwg.org/#dom-response-redirected): whether the
    /// URL list has more than one URL.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/old", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // `/old` moved to `/new`.
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let mut head = vec![0; 4096];
    /// #         let n = stream.read(&mut head).await.unwrap();
    /// #         let reply: &[u8] = if head[..n].starts_with(b"GET /old ") {
    /// #             b"HTTP/1.1 301 Moved Permanently\r\nlocation: /new\r\nconnection: close\r\ncontent-length: 0\r\n\r\n"
    /// #         } else {
    /// #             b"HTTP/1.1 200 OK\r\nconnection: close\r\ncontent-length: 3\r\n\r\nnew"
    /// #         };
    /// #         let _ = stream.write_all(reply).await;
    /// #     }
    /// # });
    /// let response = whatwg_fetch::Client::new().get(&url).send().await?;
    /// assert!(response.redirected());
    /// assert!(response.url().ends_with("/new"));
    /// assert_eq!(response.url_list().len(), 2);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn redirected(&self) -> bool {
        self.url_list.len() > 1
    }

    /// The [`status`](https://fetch.spec.whatwg.org/#dom-response-status).
    ///
    /// ```
    /// use whatwg_fetch::{Response, ResponseInit, StatusCode};
    ///
    /// let response = Response::new(None, ResponseInit { status: 404, ..ResponseInit::default() })?;
    /// assert_eq!(response.status(), 404);
    /// assert_eq!(StatusCode::from_u16(response.status()).ok(), Some(StatusCode::NOT_FOUND));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn status(&self) -> u16 {
        self.status
    }

    /// [`ok`](https://fetch.spec.whatwg.org/#dom-response-ok): whether the status is 200
    /// to 299.
    ///
    /// ```
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let created = Response::new(None, ResponseInit { status: 201, ..ResponseInit::default() })?;
    /// let missing = Response::new(None, ResponseInit { status: 404, ..ResponseInit::default() })?;
    /// assert!(created.ok() && !missing.ok());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn ok(&self) -> bool {
        is_ok_status(self.status)
    }

    /// The status as an [`http::StatusCode`], as reqwest's `status()` gives it; `None`
    /// only for the status 0 of the opaque responses a browser-like client's `no-cors`
    /// and `manual` redirect requests get, which no HTTP status is.
    ///
    /// ```
    /// use whatwg_fetch::{Response, ResponseInit, StatusCode};
    ///
    /// let response = Response::new(None, ResponseInit { status: 204, ..Default::default() })?;
    /// assert_eq!(response.status_code(), Some(StatusCode::NO_CONTENT));
    /// // `status()` is the spec's number, which compares with a `StatusCode` too.
    /// assert!(response.status() == StatusCode::NO_CONTENT);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn status_code(&self) -> Option<http::StatusCode> {
        http::StatusCode::from_u16(self.status).ok()
    }

    /// This response, or an [`ErrorKind::HttpStatus`](crate::ErrorKind::HttpStatus) error
    /// when its status is a client or server error (400–599), as reqwest's
    /// `error_for_status` does: the error names the status, its reason phrase and the
    /// response's URL ([`Error::status`], [`Error::url`]). The response and its body are
    /// dropped with it; [`error_for_status_ref`](Self::error_for_status_ref) keeps them.
    ///
    /// # Errors
    /// The status error, for a status from 400 to 599.
    ///
    /// ```
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let fine = Response::new(None, ResponseInit::default())?;
    /// assert!(fine.error_for_status().is_ok());
    ///
    /// let missing = Response::new(None, ResponseInit { status: 404, ..Default::default() })?;
    /// let error = missing.error_for_status().unwrap_err();
    /// assert_eq!(error.to_string(), "Error: HTTP status client error (404 Not Found)");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn error_for_status(self) -> Result<Response> {
        match self.status_error() {
            Some(error) => Err(error),
            None => Ok(self),
        }
    }

    /// [`error_for_status`](Self::error_for_status) that keeps the response: for reading
    /// the body of an error response (a problem document) after the check.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let body = r#"{"title": "Out of stock"}"#;
    /// let mut response = Response::new(Some(body.into()), ResponseInit { status: 409, ..ResponseInit::default() })?;
    /// if let Err(error) = response.error_for_status_ref() {
    ///     assert_eq!(error.status(), Some(whatwg_fetch::StatusCode::CONFLICT));
    ///     // The response is still here, its body unread: the server's explanation.
    ///     let problem: serde_json::Value = response.json().await?;
    ///     assert_eq!(problem["title"], "Out of stock");
    /// }
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// The status error, for a status from 400 to 599.
    pub fn error_for_status_ref(&self) -> Result<&Response> {
        match self.status_error() {
            Some(error) => Err(error),
            None => Ok(self),
        }
    }

    /// The error of a status from 400 to 599.
    fn status_error(&self) -> Option<Error> {
        let status = http::StatusCode::from_u16(self.status).ok()?;
        (status.is_client_error() || status.is_server_error())
            .then(|| Error::http_status(status, &self.status_message, &self.url()))
    }

    /// The length of the body in bytes when it is known before it is read: the
    /// `Content-Length` of a body that is not content-decoded, the length of a body made
    /// from bytes, or 0 for no body; `None` for a body whose length only its end will say
    /// (chunked, decoded, a stream).
    ///
    /// ```
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let response = Response::new(Some("hello".into()), ResponseInit::default())?;
    /// assert_eq!(response.content_length(), Some(5));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn content_length(&self) -> Option<u64> {
        match &self.body {
            Some(body) => body.known_size(),
            None => Some(0),
        }
    }

    /// The [`statusText`](https://fetch.spec.whatwg.org/#dom-response-statustext).
    ///
    /// ```
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let init = ResponseInit { status: 418, status_text: "I'm a teapot".into(), ..ResponseInit::default() };
    /// assert_eq!(Response::new(None, init)?.status_text(), "I'm a teapot");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn status_text(&self) -> &str {
        &self.status_message
    }

    /// The [`headers`](https://fetch.spec.whatwg.org/#dom-response-headers).
    ///
    /// ```
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let init = ResponseInit {
    ///     headers: Some(vec![("cache-control", "max-age=60"), ("x-request-id", "7f3a")].into()),
    ///     ..ResponseInit::default()
    /// };
    /// let response = Response::new(Some("hi".into()), init)?;
    /// assert_eq!(response.headers().get("X-Request-Id")?.as_deref(), Some("7f3a"));
    /// // A string body brings its own `Content-Type`.
    /// assert_eq!(response.headers().get("content-type")?.as_deref(), Some("text/plain;charset=UTF-8"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn headers(&self) -> &Headers {
        &self.headers
    }

    /// The cookies this response's `Set-Cookie` headers ask for, parsed as
    /// [RFC 6265 §5.2](https://www.rfc-editor.org/rfc/rfc6265#section-5.2) (RFC 6265bis
    /// §5.6) says, in the order of the headers, as reqwest's `Response::cookies` lists them.
    /// A value the RFC says to ignore (no `=`, an empty name, over 4096 bytes, a control
    /// character) is skipped; so there is at most one cookie per `Set-Cookie` header, and
    /// the head the client accepted bounds how many there are. Each is parsed when the
    /// iterator reaches it, in time linear in its length.
    ///
    /// These are what the server sent, not what a cookie store kept: a store may still
    /// refuse one (a `Domain` the host does not match, `Secure` over `http:`); read the
    /// store itself with [`CookieStore::cookies`](crate::cookie::CookieStore::cookies).
    ///
    /// **Server-side only.** A response of a browser-like client (one given an
    /// [`origin`](crate::ClientBuilder::origin)) hides `Set-Cookie` from its
    /// [headers](Self::headers), as the Fetch Standard's
    /// [filtered responses](https://fetch.spec.whatwg.org/#concept-filtered-response-basic)
    /// do for a page, so there the list is always empty (its cookie store still gets the
    /// cookies); so it is for a response made with [`Response::new`], whose `response`
    /// guard drops `Set-Cookie`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await?;
    /// # let url = format!("http://{}/", listener.local_addr()?);
    /// # tokio::spawn(async move {
    /// #     let (mut socket, _) = listener.accept().await.unwrap();
    /// #     let mut head = [0u8; 1024];
    /// #     let _ = socket.read(&mut head).await;
    /// #     socket.write_all(b"HTTP/1.1 200 OK\r\nSet-Cookie: sid=1; HttpOnly\r\n\
    /// #         Set-Cookie: lang=en; Max-Age=3600\r\nContent-Length: 0\r\n\r\n").await.unwrap();
    /// # });
    /// use std::time::Duration;
    /// use whatwg_fetch::Client;
    ///
    /// let response = Client::new().get(&url).send().await?;
    /// let cookies: Vec<_> = response.cookies().collect();
    /// assert_eq!(cookies.len(), 2);
    /// assert_eq!((cookies[0].name(), cookies[0].value()), (Some("sid"), Some("1")));
    /// assert!(cookies[0].http_only());
    /// assert_eq!(cookies[1].max_age(), Some(Duration::from_secs(3600)));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn cookies(&self) -> impl Iterator<Item = SetCookie> + '_ {
        self.headers
            .header_list()
            .values(b"Set-Cookie")
            .filter_map(SetCookie::parse)
    }

    /// The headers, mutable: changes go through the guard (`immutable` for fetched
    /// responses, `response` for constructed ones).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Client, Response, ResponseInit};
    ///
    /// let mut made = Response::new(None, ResponseInit::default())?;
    /// made.headers_mut().set("cache-control", "no-store")?;
    /// assert_eq!(made.headers().get("cache-control")?.as_deref(), Some("no-store"));
    /// // A fetched response's headers are immutable, as in JavaScript.
    /// let mut fetched = Client::new().get("data:,x").send().await?;
    /// assert!(fetched.headers_mut().set("cache-control", "no-store").is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn headers_mut(&mut self) -> &mut Headers {
        &mut self.headers
    }

    /// The body, if any: a stream of bytes (the JavaScript `body` attribute).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let mut response = Response::new(Some("streamed".into()), ResponseInit::default())?;
    /// let body = response.body().expect("a body");
    /// let mut read = Vec::new();
    /// while let Some(chunk) = body.next().await {
    ///     read.extend_from_slice(&chunk?);
    /// }
    /// assert_eq!(read, b"streamed");
    /// assert!(response.body_used());
    /// assert!(Response::error().body().is_none());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn body(&mut self) -> Option<&mut Body> {
        self.body.as_mut()
    }

    /// Takes the body out, leaving none: for handing a response's stream to other code.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let mut response = Response::new(Some("handed on".into()), ResponseInit::default())?;
    /// let body = response.take_body().expect("a body");
    /// // The body goes on by itself (to a file, another response); the response keeps its head.
    /// let rebuilt = Response::new(Some(body.into()), ResponseInit::default())?.text().await?;
    /// assert_eq!(rebuilt, "handed on");
    /// assert!(response.body().is_none());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn take_body(&mut self) -> Option<Body> {
        self.body.take()
    }

    /// The next chunk of the body as it arrives, `None` at its end (or for a response
    /// without a body), as reqwest's `Response::chunk`: a loop over it streams the body
    /// without holding it whole. The body is then used (`body_used()`), as a read of its
    /// stream makes it.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let mut response = Response::new(Some("hello".into()), ResponseInit::default())?;
    /// let mut received = Vec::new();
    /// while let Some(chunk) = response.chunk().await? {
    ///     received.extend_from_slice(&chunk);
    /// }
    /// assert_eq!(received, b"hello");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// The body's error: the network failed, the body passed a size limit or did not
    /// decode; a network error names the response's URL.
    pub async fn chunk(&mut self) -> Result<Option<Bytes>> {
        let Some(body) = self.body.as_mut() else {
            return Ok(None);
        };
        let next = futures_util::StreamExt::next(body).await;
        match next {
            Some(Ok(chunk)) => Ok(Some(chunk)),
            None => Ok(None),
            // The URL is read only for an error: a chunk copies none.
            Some(Err(error)) => Err(match self.url_list.last() {
                Some(url) if error.url().is_none() && error.network_error().is_some() => {
                    error.with_url(url)
                }
                _ => error,
            }),
        }
    }

    /// The trailer fields the body ended with (RFC 9110 §6.5: sent after the body, as
    /// gRPC's status or a checksum is), as hyper's `Frame::trailers` carries them: over
    /// HTTP/1.1 (a chunked body's), HTTP/2 and HTTP/3. What is left of the body is read
    /// first, its data dropped (read the body before, with [`chunk`](Self::chunk),
    /// `bytes()` or `text()`, to keep it). `None` when the body had none, for a response
    /// not from the network, for an opaque response, and for a body whose content coding
    /// was decoded (the decoder passes on data only). The fields are bounded as a head's
    /// are (`http1_max_header_size`, `http2_max_header_list_size`).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), whatwg_fetch::Error> {
    /// let client = whatwg_fetch::Client::new();
    /// let mut response = client.post("https://grpc-web.example/Service/Call").send().await?;
    /// let message = response.bytes().await?;
    /// let status = response
    ///     .trailers()
    ///     .await?
    ///     .and_then(|trailers| trailers.get("grpc-status").cloned());
    /// println!("{} bytes, grpc-status {status:?}", message.len());
    /// # Ok(())
    /// # }
    /// ```
    ///
    /// # Errors
    /// The body's error, if reading what was left of it failed.
    pub async fn trailers(&mut self) -> Result<Option<http::HeaderMap>> {
        if matches!(
            self.r#type,
            ResponseType::Opaque | ResponseType::OpaqueRedirect
        ) {
            return Ok(None);
        }
        while self.chunk().await?.is_some() {}
        Ok(self.received_trailers())
    }

    /// The trailer fields the body ended with, once it has been read to its end.
    pub(crate) fn received_trailers(&self) -> Option<http::HeaderMap> {
        let cell = self.internal_response_or_self().timing.as_ref();
        cell.and_then(|cell| cell.trailers.get())
            .map(|trailers| (**trailers).clone())
    }

    /// The body as a [`Stream`](futures_core::Stream) of chunks, as reqwest's
    /// `Response::bytes_stream`: the [`Body`] itself (an empty one for a response without
    /// a body).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let response = Response::new(Some("hello".into()), ResponseInit::default())?;
    /// let mut stream = response.bytes_stream();
    /// let mut received = Vec::new();
    /// while let Some(chunk) = stream.next().await {
    ///     received.extend_from_slice(&chunk?);
    /// }
    /// assert_eq!(received, b"hello");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn bytes_stream(mut self) -> Body {
        self.body.take().unwrap_or_else(Body::empty)
    }

    /// The body as a `text/event-stream`: a [`Stream`](futures_core::Stream) of its
    /// [`MessageEvent`](crate::event_stream::MessageEvent)s, parsed as the HTML Standard's
    /// event stream interpretation does, for a response the caller fetched itself (a `POST`
    /// that answers with server-sent events, as streaming APIs do). It ends when the body
    /// does, without an error; it does not reconnect (an
    /// [`EventSource`](crate::event_source::EventSource) does). The events' origin is that
    /// of the response's URL. The status and `Content-Type` are the caller's to check.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let response = Response::new(Some("data: hello\n\ndata: world\n\n".into()), ResponseInit::default())?;
    /// let mut events = response.event_stream();
    /// while let Some(event) = events.next().await {
    ///     println!("{}", event?.data());
    /// }
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn event_stream(mut self) -> crate::event_stream::EventStream {
        let origin = self
            .url_list()
            .last()
            .map(|url| url.origin().ascii_serialization())
            .unwrap_or_default();
        crate::event_stream::EventStream::new(
            self.body.take(),
            origin,
            crate::event_stream::EventStreamLimits::default(),
        )
    }

    /// Not in the spec: caps the bytes this response's body may deliver at `max`, however
    /// it is read, in place of the client's
    /// [`max_response_body_size`](crate::ClientBuilder::max_response_body_size) and
    /// [`max_buffered_body_size`](crate::ClientBuilder::max_buffered_body_size); `None`
    /// lifts every limit, so that a body known to be large can be read whole. Call it
    /// before reading the body: the bytes read before count against the new limit. Past
    /// the limit the body errors with a `TypeError` whose
    /// [`network_error`](crate::Error::network_error) is
    /// [`NetworkError::BodyTooLarge`](crate::NetworkError::BodyTooLarge). A response
    /// without a body is left as it is.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{NetworkError, Response, ResponseInit};
    ///
    /// let mut response = Response::new(Some("twelve bytes".into()), ResponseInit::default())?;
    /// response.set_max_body_size(Some(5));
    /// let error = response.bytes().await.unwrap_err();
    /// assert!(matches!(error.network_error(), Some(NetworkError::BodyTooLarge { limit: 5 })));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn set_max_body_size(&mut self, max: Option<u64>) {
        if let Some(body) = self.body.as_mut() {
            body.set_max_size(max);
        }
    }

    /// The fetch's timing, shaped as Resource Timing's `PerformanceResourceTiming` (see
    /// [`ResourceTiming`]): for a response fetched from an `http:` or `https:` URL, `None`
    /// for one made with [`Response::new`] or fetched from another scheme.
    ///
    /// The body's end and sizes are filled in as the body is read: take the timing
    /// before or after reading, and read those fields after.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # tokio::spawn(async move {
    /// #     use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// #     let (mut socket, _) = listener.accept().await.unwrap();
    /// #     let mut buf = [0; 1024];
    /// #     let _ = socket.read(&mut buf).await;
    /// #     socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello").await.unwrap();
    /// # });
    /// use whatwg_fetch::{Client, RequestInit};
    ///
    /// let client = Client::builder().build()?;
    /// let mut response = client.fetch(format!("http://{addr}/"), RequestInit::default()).await?;
    /// let timing = response.timing().expect("fetched over http");
    /// assert_eq!(timing.next_hop_protocol, "http/1.1");
    /// assert!(timing.connect_start <= timing.connect_end);
    /// assert!(timing.connect_end <= timing.request_start);
    /// assert_eq!(response.text().await?, "hello");
    /// assert_eq!(timing.decoded_body_size(), 5);
    /// assert!(timing.response_end() >= Some(timing.response_start));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn timing(&self) -> Option<ResourceTiming> {
        let cell = self.internal_response_or_self().timing.as_ref()?;
        ResourceTiming::of(cell)
    }

    /// What the network layer knows of the other end of the connection this response
    /// came over: made once per connection, shared by every response on it.
    fn peer(&self) -> Option<&Peer> {
        self.internal_response_or_self()
            .timing
            .as_ref()?
            .peer
            .as_deref()
    }

    /// The address of the peer of the socket this response came over, as reqwest's
    /// `Response::remote_addr`: the server's, or, for a request through a proxy (HTTP,
    /// HTTPS or SOCKS5, for an `http:` URL or through a tunnel to an `https:` one), the
    /// proxy's, as the socket's peer is the proxy. Every response on a connection (a
    /// reused HTTP/1.1 one, the streams of an HTTP/2 one) has the same.
    ///
    /// `None` for a response that did not come from the network: made with
    /// [`Response::new`], fetched from a `data:`, `blob:` or `about:` URL, served from
    /// the HTTP cache, or answered by a mock transport; and for one over a Unix domain
    /// socket, which has no such address.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # tokio::spawn(async move {
    /// #     use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// #     let (mut socket, _) = listener.accept().await.unwrap();
    /// #     let mut buf = [0; 1024];
    /// #     let _ = socket.read(&mut buf).await;
    /// #     socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await.unwrap();
    /// # });
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let response = client.get(format!("http://{addr}/")).send().await?;
    /// assert_eq!(response.remote_addr(), Some(addr));
    /// // Over plain `http:`, there is no TLS to tell of.
    /// assert!(response.tls_info().is_none());
    ///
    /// let response = client.get("data:,hello").send().await?;
    /// assert_eq!(response.remote_addr(), None);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn remote_addr(&self) -> Option<SocketAddr> {
        self.peer()?.addr
    }

    /// The TLS this `https:` response came over: the protocol version, the cipher suite
    /// and the server's certificate chain (see [`TlsInfo`]), as reqwest gives them with
    /// `ClientBuilder::tls_info(true)`. It is recorded for every TLS connection, when it
    /// is made, and shared by every response on it, so there is no option to turn on.
    /// Through a proxy's tunnel it is the origin's TLS, never the proxy's.
    ///
    /// `None` over plain `http:` (through an `https:` proxy too), and for a response
    /// that did not come from the network (see [`remote_addr`](Self::remote_addr)).
    ///
    /// ```no_run
    /// # async fn run() -> whatwg_fetch::Result<()> {
    /// use whatwg_fetch::TlsVersion;
    ///
    /// let response = whatwg_fetch::get("https://example.com/").await?;
    /// let tls = response.tls_info().expect("fetched over https");
    /// assert!(tls.version() >= TlsVersion::Tls12);
    /// println!("{} {}", tls.version(), tls.cipher_suite());
    /// let leaf = tls.peer_certificate().expect("the server's certificate");
    /// assert_eq!(leaf.first(), Some(&0x30)); // DER: a SEQUENCE
    /// # Ok(())
    /// # }
    /// ```
    pub fn tls_info(&self) -> Option<&TlsInfo> {
        self.peer()?.tls.as_ref()
    }

    /// The connection of a `101 Switching Protocols` response, as
    /// [`AsyncRead`](tokio::io::AsyncRead) + [`AsyncWrite`](tokio::io::AsyncWrite): what
    /// reqwest's `Response::upgrade` gives, for a protocol of one's own over HTTP/1.1's
    /// `Upgrade` (RFC 9110 §7.8).
    ///
    /// The request asks with its own `Upgrade` and `Connection: upgrade` headers, which a
    /// server-side client sends as given (a browser-like one drops them: they are
    /// [forbidden request-headers](https://fetch.spec.whatwg.org/#forbidden-request-header)).
    /// A `101` answering it takes its connection out of the pool: reads give the bytes the
    /// server sent after the head first, then the connection's. A `101` that no request
    /// asked for is never handed over.
    ///
    /// HTTP/2 has no `101` (RFC 9113 §8.6): an `https:` server that picks `h2` answers the
    /// request as any other; [`ClientBuilder::http1_only`](crate::ClientBuilder::http1_only)
    /// keeps the request on HTTP/1.1. With an HTTP cache, ask for
    /// [`RequestCache::NoStore`](crate::RequestCache::NoStore), so that no stored response
    /// answers in the server's place.
    ///
    /// # Errors
    /// An [`ErrorKind::Upgrade`](crate::ErrorKind::Upgrade) error ([`Error::is_upgrade`])
    /// naming the status and the URL, for a response that is not a `101` handed over (or
    /// whose connection a clone of it took already).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # tokio::spawn(async move {
    /// #     use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// #     let (mut socket, _) = listener.accept().await.unwrap();
    /// #     let mut head = vec![0; 1024];
    /// #     let _ = socket.read(&mut head).await;
    /// #     socket.write_all(b"HTTP/1.1 101 Switching Protocols\r\nupgrade: echo\r\nconnection: upgrade\r\n\r\n").await.unwrap();
    /// #     let mut byte = [0; 4];
    /// #     socket.read_exact(&mut byte).await.unwrap();
    /// #     socket.write_all(&byte).await.unwrap();
    /// # });
    /// # let url = format!("http://{addr}/");
    /// use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::builder().build()?;
    /// let response = client
    ///     .get(url)
    ///     .header("connection", "upgrade")
    ///     .header("upgrade", "echo")
    ///     .send()
    ///     .await?;
    /// assert_eq!(response.status(), 101);
    /// let mut connection = response.upgrade().await?;
    /// connection.write_all(b"ping").await?;
    /// let mut echoed = [0; 4];
    /// connection.read_exact(&mut echoed).await?;
    /// assert_eq!(&echoed, b"ping");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub async fn upgrade(self) -> Result<crate::Upgraded> {
        let response = self.internal_response_or_self();
        let url = response.url_list.last();
        let handed = response
            .timing
            .as_ref()
            .and_then(|cell| cell.upgrade.as_ref())
            .and_then(crate::upgrade::OnUpgrade::take);
        if let Some(upgraded) = handed {
            return Ok(upgraded);
        }
        let status = response.status;
        let why = if status == 101 {
            "upgrade(): this 101 response has no connection to hand over (the request \
             sent no Upgrade header, or a clone of the response took it)"
                .to_owned()
        } else {
            let reason = http::StatusCode::from_u16(status)
                .ok()
                .and_then(|status| status.canonical_reason())
                .unwrap_or_default();
            let over_h2 = response
                .timing
                .as_ref()
                .and_then(|cell| cell.network.as_ref())
                .is_some_and(|network| {
                    network.connection_timing_info.alpn_negotiated_protocol == "h2"
                });
            let hint = if over_h2 {
                " (it came over HTTP/2, which has no 101: keep the request on HTTP/1.1 \
                 with ClientBuilder::http1_only)"
            } else {
                ""
            };
            format!(
                "upgrade(): the response is {status} {reason}, not 101 Switching Protocols{hint}"
            )
        };
        Err(Error::upgrade(status, &why, url))
    }

    /// The HTTP version of the response, as reqwest's `Response::version`: HTTP/3 for one
    /// that came over HTTP/3 (the `http3` feature), HTTP/2 for one that came over HTTP/2,
    /// HTTP/1.0 for an HTTP/1.0 server's response (its status line says `HTTP/1.0`),
    /// HTTP/1.1 otherwise. A response served from the HTTP cache has the
    /// version of the network response it was stored from. One that did not come from the
    /// network at all (made with [`Response::new`], fetched from a `data:`, `blob:` or
    /// `about:` URL) has HTTP/1.1, as reqwest's default; a mock transport's is the
    /// version of the `http::Response` it answers with (HTTP/1.1 unless it sets one).
    ///
    /// A filtered response (`basic`, `cors`, `opaque`) gives its internal response's, as
    /// [`remote_addr`](Self::remote_addr) does: the version says nothing the filter hides.
    ///
    /// ```
    /// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # tokio::spawn(async move {
    /// #     use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// #     let (mut socket, _) = listener.accept().await.unwrap();
    /// #     let mut buf = [0; 1024];
    /// #     let _ = socket.read(&mut buf).await;
    /// #     socket.write_all(b"HTTP/1.0 200 OK\r\ncontent-length: 2\r\n\r\nok").await.unwrap();
    /// # });
    /// use whatwg_fetch::{Client, Version};
    ///
    /// let client = Client::builder().build()?;
    /// let response = client.get(format!("http://{addr}/")).send().await?;
    /// assert_eq!(response.version(), Version::HTTP_10);
    ///
    /// let response = client.get("data:,hello").send().await?;
    /// assert_eq!(response.version(), Version::HTTP_11);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn version(&self) -> http::Version {
        self.internal_response_or_self().version
    }

    /// [`bodyUsed`](https://fetch.spec.whatwg.org/#dom-body-bodyused).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let mut response = Response::new(Some("once".into()), ResponseInit::default())?;
    /// assert!(!response.body_used());
    /// response.text().await?;
    /// assert!(response.body_used());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn body_used(&self) -> bool {
        self.body.as_ref().is_some_and(Body::is_disturbed)
    }

    /// [Clone a response](https://fetch.spec.whatwg.org/#concept-response-clone): the same
    /// fields, the body teed.
    fn clone_response(&mut self) -> Response {
        // Step 1. If response is a filtered response, then return a new identical filtered
        // response whose internal response is a clone of response's internal response.
        let internal_response = self
            .internal_response
            .as_mut()
            .map(|internal| Box::new(internal.clone_response()));
        // Step 2. Let newResponse be a copy of response, except for its body.
        // Step 3. If response's body is non-null, then set newResponse's body to the
        // result of cloning response's body.
        // Step 4. Return newResponse.
        Response {
            r#type: self.r#type,
            url_list: self.url_list.clone(),
            status: self.status,
            status_message: self.status_message.clone(),
            headers: self.headers.clone(),
            body: self.body.as_mut().map(Body::clone_body),
            cors_exposed_header_names: self.cors_exposed_header_names.clone(),
            range_requested: self.range_requested,
            request_includes_credentials: self.request_includes_credentials,
            timing_allow_passed: self.timing_allow_passed,
            internal_response,
            error: self.error.clone(),
            timing: self.timing.clone(),
            version: self.version,
        }
    }

    /// [`clone()`](https://fetch.spec.whatwg.org/#dom-response-clone): a copy whose body is
    /// a tee of this one's.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let mut response = Response::new(Some("twice".into()), ResponseInit::default())?;
    /// // Both read the same bytes: one to cache, one to use.
    /// let mut copy = response.try_clone()?;
    /// assert_eq!(response.text().await?, "twice");
    /// assert_eq!(copy.text().await?, "twice");
    /// // A used body cannot be cloned.
    /// assert!(response.try_clone().is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// A `TypeError` if the body has been used.
    pub fn try_clone(&mut self) -> Result<Response> {
        // Step 1. If this is unusable, then throw a TypeError.
        if self.body_used() {
            return Err(Error::type_error(
                "cannot clone a Response whose body is used",
            ));
        }
        // Step 2. Let clonedResponse be the result of cloning this's response.
        // Step 3. Return the result of creating a Response object, given clonedResponse,
        // this's headers's guard.
        Ok(self.clone_response())
    }

    body_mixin!(
        json,
        "use whatwg_fetch::{Response, ResponseInit};",
        "Response::new(Some(",
        ".into()), ResponseInit::default())?"
    );

    /// The URL list whose last URL a body error names: the response's (shared, not
    /// copied), when it has one to show.
    fn body_url(&self) -> UrlList {
        self.url_list.clone()
    }

    /// The body parsed as JSON: the old name of [`json`](Self::json).
    ///
    /// # Errors
    /// As [`json`](Self::json).
    #[deprecated(
        note = "renamed `json`, as in JavaScript and reqwest; the static constructor is `Response::from_json`"
    )]
    pub fn json_body<T: serde::de::DeserializeOwned + Send + 'static>(
        &mut self,
    ) -> impl std::future::Future<Output = Result<T>> + Send + 'static {
        self.json()
    }

    // ------------------------------------------------------------------------------------
    // Filtered responses
    // ------------------------------------------------------------------------------------

    /// A filtered response of `r#type` around `self`, sharing its URL list, status and
    /// status message, with `headers` as its header list.
    fn filtered(mut self, r#type: ResponseType, headers: Headers) -> Response {
        debug_assert!(self.internal_response.is_none() && !self.is_network_error());
        let mut filtered = Response::new_response(HeadersGuard::Immutable);
        filtered.r#type = r#type;
        filtered.url_list = self.url_list.clone();
        filtered.status = self.status;
        filtered.status_message = self.status_message.clone();
        filtered.headers = headers;
        filtered.headers.set_guard(HeadersGuard::Immutable);
        filtered.cors_exposed_header_names = self.cors_exposed_header_names.clone();
        filtered.range_requested = self.range_requested;
        filtered.request_includes_credentials = self.request_includes_credentials;
        filtered.timing_allow_passed = self.timing_allow_passed;
        if matches!(r#type, ResponseType::Basic | ResponseType::Cors) {
            filtered.body = self.body.take();
        }
        filtered.internal_response = Some(Box::new(self));
        filtered
    }

    /// A [basic filtered response](https://fetch.spec.whatwg.org/#concept-filtered-response-basic):
    /// type `basic`, without the headers whose names are forbidden response-header names.
    pub(crate) fn into_basic_filtered(self) -> Response {
        let headers = filter_headers(&self.headers, |name| {
            !headers::is_forbidden_response_header_name(name)
        });
        self.filtered(ResponseType::Basic, headers)
    }

    /// A [CORS filtered response](https://fetch.spec.whatwg.org/#concept-filtered-response-cors):
    /// type `cors`, with only CORS-safelisted response-headers given the CORS-exposed
    /// header-name list.
    pub(crate) fn into_cors_filtered(self) -> Response {
        let exposed = &self.cors_exposed_header_names;
        let headers = filter_headers(&self.headers, |name| {
            headers::is_cors_safelisted_response_header_name(name, exposed)
        });
        self.filtered(ResponseType::Cors, headers)
    }

    /// Types this response `basic` without filtering it: what a server-side fetch (no
    /// origin, so no page to hide `Set-Cookie` from) returns. A basic filtered response
    /// that kept every header would show exactly this, so none is made.
    pub(crate) fn make_basic_unfiltered(&mut self) {
        self.r#type = ResponseType::Basic;
    }

    /// The internal response of a filtered response, or this response itself.
    pub(crate) fn internal_response_or_self(&self) -> &Response {
        self.internal_response.as_deref().unwrap_or(self)
    }

    /// As [`Response::internal_response_or_self`], mutable.
    pub(crate) fn internal_response_mut(&mut self) -> &mut Response {
        match self.internal_response {
            Some(ref mut internal) => internal,
            None => self,
        }
    }

    /// Where the internal response's body is: on this response for unfiltered, `basic` and
    /// `cors` responses (which share it), on the internal response for opaque ones.
    pub(crate) fn body_slot_mut(&mut self) -> &mut Option<Body> {
        match (self.r#type, self.internal_response.as_mut()) {
            (ResponseType::Opaque | ResponseType::OpaqueRedirect, Some(internal)) => {
                &mut internal.body
            }
            _ => &mut self.body,
        }
    }

    /// An [opaque filtered response](https://fetch.spec.whatwg.org/#concept-filtered-response-opaque):
    /// type `opaque`, URL list « », status 0, no headers, no body.
    pub(crate) fn into_opaque_filtered(self) -> Response {
        let mut filtered = self.filtered(ResponseType::Opaque, Headers::new());
        filtered.url_list = UrlList::default();
        filtered.status = 0;
        filtered.status_message = Cow::Borrowed("");
        filtered
    }

    /// An [opaque-redirect filtered response](https://fetch.spec.whatwg.org/#concept-filtered-response-opaque-redirect):
    /// type `opaqueredirect`, status 0, no headers, no body; the URL list is kept.
    pub(crate) fn into_opaque_redirect_filtered(self) -> Response {
        let mut filtered = self.filtered(ResponseType::OpaqueRedirect, Headers::new());
        filtered.status = 0;
        filtered.status_message = Cow::Borrowed("");
        filtered
    }

    /// The response's [location URL](https://fetch.spec.whatwg.org/#concept-response-location-url)
    /// given the request's fragment: `None` when the status is not a redirect status or
    /// there is no `Location`, `Some(Err)` when it does not parse.
    pub(crate) fn location_url(&self, request_fragment: Option<&str>) -> Option<Result<Url>> {
        // Step 1. If response's status is not a redirect status, then return null.
        if !is_redirect_status(self.status) {
            return None;
        }
        // Step 2. Let location be the result of extracting header list values given
        // `Location` and response's header list.
        let location = match self
            .headers
            .header_list()
            .extract_header_list_values("location")
        {
            Extracted::Null => return None,
            Extracted::Failure => return Some(Err(Error::type_error("invalid Location header"))),
            Extracted::Value(values) => values,
        };
        // Step 3. If location is a header value, then set location to the result of
        // parsing location with response's URL.
        let [location] = location.as_slice() else {
            return Some(Err(Error::type_error("more than one Location value")));
        };
        // The header value is bytes and the URL parser takes a string: UTF-8 sequences are
        // decoded, and any other byte is percent-encoded as itself (as browsers do), not
        // replaced with U+FFFD.
        let location = utf8_or_percent_encoded(location);
        let base = self.url_list.last();
        let mut parsed = match Url::options().base_url(base).parse(&location) {
            Ok(url) => url,
            Err(error) => {
                return Some(Err(Error::type_error(format!(
                    "invalid Location {location:?}: {error}"
                ))));
            }
        };
        // Step 4. If location is a URL whose fragment is null, then set location's
        // fragment to requestFragment.
        if parsed.fragment().is_none() {
            parsed.set_fragment(request_fragment);
        }
        // Step 5. Return location.
        Some(Ok(parsed))
    }
}

/// `bytes` as a string for the URL parser: valid UTF-8 decoded, every byte of an invalid
/// sequence percent-encoded (`%FF`).
fn utf8_or_percent_encoded(bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len());
    for chunk in bytes.utf8_chunks() {
        out.push_str(chunk.valid());
        for byte in chunk.invalid() {
            out.push_str(&format!("%{byte:02X}"));
        }
    }
    out
}

/// A copy of `headers` holding only the headers whose name passes `keep`, with guard
/// `immutable`: the header list of a filtered response.
fn filter_headers(headers: &Headers, keep: impl Fn(&[u8]) -> bool) -> Headers {
    let list: HeaderList = headers
        .header_list()
        .iter()
        .filter(|(name, _)| keep(name))
        .collect();
    Headers::from_header_list(list, HeadersGuard::Immutable)
}

impl From<Response> for BodyInit {
    /// The response's body as a stream, to send on as a request's (reqwest's
    /// `Body::from(Response)`): read as the request is sent, never held whole. A length
    /// known before the body is read ([`Response::content_length`]) goes with it, so the
    /// request carries a `Content-Length`, and a body that then ends short fails the
    /// request rather than sending less; without one the body is sent as it comes
    /// (chunked over HTTP/1.1). A response without a body gives an empty one. As any
    /// stream, it cannot be sent again on a redirect that needs it (307, 308).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{BodyInit, Request, RequestDuplex, RequestInit, Response, ResponseInit};
    ///
    /// // A download handed on as an upload, chunk by chunk.
    /// let downloaded = Response::new(Some("report".into()), ResponseInit::default())?;
    /// let init = RequestInit {
    ///     method: Some("PUT".into()),
    ///     body: Some(BodyInit::from(downloaded)),
    ///     duplex: Some(RequestDuplex::Half),
    ///     ..RequestInit::default()
    /// };
    /// let mut upload = Request::new("https://archive.example/reports/1", init)?;
    /// assert_eq!(upload.text().await?, "report");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    fn from(mut response: Response) -> BodyInit {
        let length = response.content_length();
        let mut body = response.take_body().unwrap_or_else(Body::empty);
        body.set_length(length);
        BodyInit::Stream(body)
    }
}

impl fmt::Debug for Response {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Response")
            .field("type", &self.r#type)
            .field("url", &self.url())
            .field("status", &self.status)
            .field("status_text", &self.status_message)
            .field("headers", &self.headers)
            .field("body", &self.body)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    #[test]
    fn status_range_is_checked() {
        for status in [0, 199, 600, 999] {
            let error = Response::new(
                None,
                ResponseInit {
                    status,
                    ..Default::default()
                },
            )
            .unwrap_err();
            assert_eq!(error.kind(), ErrorKind::RangeError, "status {status}");
        }
        for status in [200, 404, 599] {
            assert!(
                Response::new(
                    None,
                    ResponseInit {
                        status,
                        ..Default::default()
                    }
                )
                .is_ok()
            );
        }
    }

    #[test]
    fn status_text_must_be_a_reason_phrase() {
        for text in ["\n", "a\rb", "\u{100}", "\0"] {
            let init = ResponseInit {
                status_text: text.into(),
                ..Default::default()
            };
            assert_eq!(
                Response::new(None, init).unwrap_err().kind(),
                ErrorKind::TypeError,
                "{text:?}"
            );
        }
        let init = ResponseInit {
            status_text: "OK \t\u{FF}~".into(),
            ..Default::default()
        };
        assert_eq!(
            Response::new(None, init).unwrap().status_text(),
            "OK \t\u{FF}~"
        );
    }

    #[test]
    fn null_body_status_with_a_body_is_a_type_error() {
        for status in [204, 205, 304] {
            let init = ResponseInit {
                status,
                ..Default::default()
            };
            let error = Response::new(Some("x".into()), init).unwrap_err();
            assert_eq!(error.kind(), ErrorKind::TypeError);
            assert!(
                Response::new(
                    None,
                    ResponseInit {
                        status,
                        ..Default::default()
                    }
                )
                .is_ok()
            );
            assert!(
                Response::new(
                    Some(BodyInit::Null),
                    ResponseInit {
                        status,
                        ..Default::default()
                    }
                )
                .is_ok()
            );
        }
    }

    #[test]
    fn error_response() {
        let mut response = Response::error();
        assert_eq!(response.r#type(), ResponseType::Error);
        assert_eq!(response.status(), 0);
        assert!(!response.ok());
        assert_eq!(response.url(), "");
        assert_eq!(
            response.headers_mut().append("a", "b").unwrap_err().kind(),
            ErrorKind::TypeError,
            "immutable guard"
        );
    }

    #[test]
    fn redirect_response() {
        let response = Response::redirect("https://example.com/next", 301).unwrap();
        assert_eq!(response.status(), 301);
        assert_eq!(
            response.headers().get("location").unwrap().as_deref(),
            Some("https://example.com/next")
        );
        assert_eq!(
            Response::redirect("https://example.com/", 200)
                .unwrap_err()
                .kind(),
            ErrorKind::RangeError
        );
        assert_eq!(
            Response::redirect("not a url", 302).unwrap_err().kind(),
            ErrorKind::TypeError
        );
        let page = Environment::browser(Url::parse("https://example.com/dir/page").unwrap());
        let relative = Response::redirect_in(&page, "other", 307).unwrap();
        assert_eq!(
            relative.headers().get("location").unwrap().as_deref(),
            Some("https://example.com/dir/other")
        );
    }

    #[tokio::test]
    async fn json_response() {
        let mut response =
            Response::from_json(&serde_json::json!({"a": 1}), ResponseInit::default()).unwrap();
        assert_eq!(
            response.headers().get("content-type").unwrap().as_deref(),
            Some("application/json")
        );
        let value: serde_json::Value = response.json().await.unwrap();
        assert_eq!(value, serde_json::json!({"a": 1}));
        let init = ResponseInit {
            headers: Some(HeadersInit::from(vec![(
                "Content-Type",
                "application/x-custom",
            )])),
            ..Default::default()
        };
        let custom = Response::from_json(&[1, 2], init).unwrap();
        assert_eq!(
            custom.headers().get("content-type").unwrap().as_deref(),
            Some("application/x-custom")
        );
        let error = Response::from_json(
            &(),
            ResponseInit {
                status: 204,
                ..Default::default()
            },
        )
        .unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
    }

    #[tokio::test]
    async fn clone_and_body_used() {
        let mut response = Response::new(Some("body".into()), ResponseInit::default()).unwrap();
        let mut clone = response.try_clone().unwrap();
        assert_eq!(response.text().await.unwrap(), "body");
        assert!(response.body_used());
        assert!(!clone.body_used());
        assert_eq!(
            response.try_clone().unwrap_err().kind(),
            ErrorKind::TypeError
        );
        assert_eq!(
            response.text().await.unwrap_err().kind(),
            ErrorKind::TypeError
        );
        assert_eq!(clone.text().await.unwrap(), "body");
    }

    #[tokio::test]
    async fn empty_body_reads_as_empty() {
        let mut response = Response::new(None, ResponseInit::default()).unwrap();
        assert_eq!(response.text().await.unwrap(), "");
        assert!(!response.body_used(), "a null body is never used");
        assert_eq!(response.bytes().await.unwrap().len(), 0);
    }

    #[tokio::test]
    async fn blob_takes_the_mime_type() {
        let init = ResponseInit {
            headers: Some(HeadersInit::from(vec![(
                "Content-Type",
                "TEXT/HTML; charset=\"utf-8\"",
            )])),
            ..Default::default()
        };
        let mut response = Response::new(Some("<p>".into()), init).unwrap();
        let blob = response.blob().await.unwrap();
        assert_eq!(blob.r#type(), "text/html;charset=utf-8");
        assert_eq!(blob.size(), 3);
    }

    #[tokio::test]
    async fn form_data_urlencoded() {
        let init = ResponseInit {
            headers: Some(HeadersInit::from(vec![(
                "Content-Type",
                "application/x-www-form-urlencoded",
            )])),
            ..Default::default()
        };
        let mut response = Response::new(Some("a=1&b=x+y".into()), init).unwrap();
        let form = response.form_data().await.unwrap();
        assert!(form.has("a"));
        let mut plain = Response::new(Some("a=1".into()), ResponseInit::default()).unwrap();
        assert_eq!(
            plain.form_data().await.unwrap_err().kind(),
            ErrorKind::TypeError
        );
    }

    fn network_response() -> Response {
        let mut headers = Headers::new();
        headers.append("Content-Type", "text/plain").unwrap();
        headers.append("Set-Cookie", "a=b").unwrap();
        headers.append("X-Secret", "1").unwrap();
        headers.append("X-Exposed", "2").unwrap();
        let url = Url::parse("https://example.com/a#frag").unwrap();
        Response::from_network(200, "OK", headers, Some(Body::from("x")), vec![url])
    }

    #[test]
    fn basic_filter_hides_set_cookie() {
        let response = network_response().into_basic_filtered();
        assert_eq!(response.r#type(), ResponseType::Basic);
        assert!(!response.headers().has("set-cookie").unwrap());
        assert!(response.headers().has("x-secret").unwrap());
        assert_eq!(response.url(), "https://example.com/a");
        assert!(response.body.is_some());
        assert!(
            response
                .internal_response
                .as_ref()
                .is_some_and(|internal| internal.headers().has("set-cookie").unwrap())
        );
    }

    #[test]
    fn cors_filter_keeps_safelisted_and_exposed() {
        let mut response = network_response();
        response.cors_exposed_header_names = vec![b"x-exposed".to_vec()].into_boxed_slice();
        let response = response.into_cors_filtered();
        assert_eq!(response.r#type(), ResponseType::Cors);
        assert!(response.headers().has("content-type").unwrap());
        assert!(response.headers().has("x-exposed").unwrap());
        assert!(!response.headers().has("x-secret").unwrap());
        assert!(!response.headers().has("set-cookie").unwrap());
    }

    #[test]
    fn opaque_filters_hide_everything() {
        let opaque = network_response().into_opaque_filtered();
        assert_eq!(opaque.r#type(), ResponseType::Opaque);
        assert_eq!(opaque.status(), 0);
        assert_eq!(opaque.url(), "");
        assert!(opaque.body.is_none());
        assert!(!opaque.headers().has("content-type").unwrap());
        let redirect = network_response().into_opaque_redirect_filtered();
        assert_eq!(redirect.r#type(), ResponseType::OpaqueRedirect);
        assert_eq!(redirect.status(), 0);
        assert_eq!(redirect.url(), "https://example.com/a");
    }

    #[test]
    fn location_url_rules() {
        let mut headers = Headers::new();
        headers.append("Location", "/next").unwrap();
        let url = Url::parse("https://example.com/a/b").unwrap();
        let response = Response::from_network(302, String::new(), headers, None, vec![url]);
        let location = response.location_url(Some("keep")).unwrap().unwrap();
        assert_eq!(location.as_str(), "https://example.com/next#keep");
        let ok = Response::from_network(200, String::new(), Headers::new(), None, Vec::new());
        assert!(ok.location_url(None).is_none());
    }

    #[test]
    fn location_bytes_that_are_not_utf8_are_percent_encoded() {
        let url = Url::parse("http://example.com/a/b").unwrap();
        for (location, expected) in [
            (&b"top.txt?\xff"[..], "http://example.com/a/top.txt?%FF"),
            (
                b"top.txt?\xe2\x98\x83",
                "http://example.com/a/top.txt?%E2%98%83",
            ),
            (
                b"top.txt?%\xe2\x98\x83",
                "http://example.com/a/top.txt?%%E2%98%83",
            ),
            (b"/\xc3\xa9\xc3", "http://example.com/%C3%A9%C3"),
        ] {
            let mut headers = Headers::new();
            headers.append("Location", location).unwrap();
            let response =
                Response::from_network(301, String::new(), headers, None, vec![url.clone()]);
            let parsed = response.location_url(None).unwrap().unwrap();
            assert_eq!(parsed.as_str(), expected, "{location:?}");
        }
    }

    #[test]
    fn response_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Response>();
    }
}
