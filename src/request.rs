//! Requests: the [request](https://fetch.spec.whatwg.org/#concept-request) concept and the
//! [`Request` class](https://fetch.spec.whatwg.org/#request-class) (Fetch § 5.4).
//!
//! [`Request::new`] runs the constructor algorithm of `new Request(input, init)` step by
//! step, so it accepts and rejects exactly what a browser does; [`RequestInit`] is the IDL
//! dictionary, every member an `Option` because an absent member differs from a default.
//!
//! ```
//! use whatwg_fetch::{Request, RequestInit, RequestMode};
//!
//! let request = Request::new("https://api.example/items", RequestInit::default())?;
//! assert_eq!((request.method(), request.mode()), ("GET", RequestMode::Cors));
//! # Ok::<(), whatwg_fetch::Error>(())
//! ```

use std::borrow::Cow;
use std::fmt;
use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use url::Url;

use crate::abort::AbortSignal;
use crate::blob::Blob;
use crate::body::{self, Body, BodyInit};
use crate::environment::Environment;
// The enumeration is the Referrer Policy spec's, defined beside the environment whose
// policy container holds one; requests name it here too.
pub use crate::environment::ReferrerPolicy;
use crate::error::{Error, Result};
use crate::form_data::FormData;
use crate::headers::{self, Headers, HeadersGuard, HeadersInit};

idl_enum! {
    /// [`RequestDestination`](https://fetch.spec.whatwg.org/#requestdestination): the kind
    /// of resource requested.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestDestination, RequestInit};
    ///
    /// let request = Request::new("https://api.example/", RequestInit::default())?;
    /// assert_eq!(request.destination(), RequestDestination::Empty);
    /// assert_eq!(RequestDestination::Script.as_str(), "script");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub enum RequestDestination {
        /// `""`: no particular destination, as for `fetch()`.
        Empty = "",
        /// `"audio"`.
        Audio = "audio",
        /// `"audioworklet"`.
        AudioWorklet = "audioworklet",
        /// `"document"`.
        Document = "document",
        /// `"embed"`.
        Embed = "embed",
        /// `"font"`.
        Font = "font",
        /// `"frame"`.
        Frame = "frame",
        /// `"iframe"`.
        Iframe = "iframe",
        /// `"image"`.
        Image = "image",
        /// `"json"`.
        Json = "json",
        /// `"manifest"`.
        Manifest = "manifest",
        /// `"object"`.
        Object = "object",
        /// `"paintworklet"`.
        PaintWorklet = "paintworklet",
        /// `"report"`.
        Report = "report",
        /// `"script"`.
        Script = "script",
        /// `"sharedworker"`.
        SharedWorker = "sharedworker",
        /// `"style"`.
        Style = "style",
        /// `"text"`.
        Text = "text",
        /// `"track"`.
        Track = "track",
        /// `"video"`.
        Video = "video",
        /// `"worker"`.
        Worker = "worker",
        /// `"xslt"`.
        Xslt = "xslt",
    }
}

idl_enum! {
    /// [`RequestMode`](https://fetch.spec.whatwg.org/#concept-request-mode): whether the
    /// request uses CORS or is restricted to same-origin URLs.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit, RequestMode};
    ///
    /// let init = RequestInit { mode: Some(RequestMode::SameOrigin), ..RequestInit::default() };
    /// let request = Request::new("https://api.example/items", init)?;
    /// assert_eq!(request.mode(), RequestMode::SameOrigin);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub enum RequestMode {
        /// `"navigate"`: only the user agent makes navigation requests.
        Navigate = "navigate",
        /// `"same-origin"`: a cross-origin URL is a network error.
        SameOrigin = "same-origin",
        /// `"no-cors"`: cross-origin responses are opaque.
        NoCors = "no-cors",
        /// `"cors"`: cross-origin requests use the CORS protocol.
        Cors = "cors",
        /// `"websocket"`: a WebSocket's opening handshake, which only the WebSocket API
        /// makes; not a value of the IDL enumeration, and the `Request` constructor
        /// rejects it as it rejects `"navigate"`.
        WebSocket = "websocket",
    }
}

idl_enum! {
    /// [`RequestCredentials`](https://fetch.spec.whatwg.org/#concept-request-credentials-mode):
    /// whether cookies and HTTP authentication travel with the request.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit, RequestCredentials};
    ///
    /// let init = RequestInit { credentials: Some(RequestCredentials::Omit), ..RequestInit::default() };
    /// let request = Request::new("https://api.example/items", init)?;
    /// assert_eq!(request.credentials(), RequestCredentials::Omit);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub enum RequestCredentials {
        /// `"omit"`: never.
        Omit = "omit",
        /// `"same-origin"`: only to same-origin URLs.
        SameOrigin = "same-origin",
        /// `"include"`: always.
        Include = "include",
    }
}

idl_enum! {
    /// [`RequestCache`](https://fetch.spec.whatwg.org/#concept-request-cache-mode): how the
    /// request interacts with the HTTP cache.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit, RequestCache};
    ///
    /// let init = RequestInit { cache: Some(RequestCache::NoStore), ..RequestInit::default() };
    /// let request = Request::new("https://api.example/items", init)?;
    /// assert_eq!(request.cache(), RequestCache::NoStore);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub enum RequestCache {
        /// `"default"`.
        Default = "default",
        /// `"no-store"`.
        NoStore = "no-store",
        /// `"reload"`.
        Reload = "reload",
        /// `"no-cache"`.
        NoCache = "no-cache",
        /// `"force-cache"`.
        ForceCache = "force-cache",
        /// `"only-if-cached"`: only with mode `same-origin`.
        OnlyIfCached = "only-if-cached",
    }
}

idl_enum! {
    /// [`RequestRedirect`](https://fetch.spec.whatwg.org/#concept-request-redirect-mode):
    /// how redirects are handled.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit, RequestRedirect};
    ///
    /// let init = RequestInit { redirect: Some(RequestRedirect::Manual), ..RequestInit::default() };
    /// let request = Request::new("https://api.example/items", init)?;
    /// assert_eq!(request.redirect(), RequestRedirect::Manual);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub enum RequestRedirect {
        /// `"follow"`: follow up to 20 redirects.
        Follow = "follow",
        /// `"error"`: a redirect is a network error.
        Error = "error",
        /// `"manual"`: return the redirect response (opaque in a browser-like environment).
        Manual = "manual",
    }
}

idl_enum! {
    /// [`RequestDuplex`](https://fetch.spec.whatwg.org/#dom-requestinit-duplex).
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestDuplex, RequestInit};
    ///
    /// // `half`, the one value: the whole request is sent before the response is read.
    /// let request = Request::new("https://api.example/", RequestInit::default())?;
    /// assert_eq!(request.duplex(), RequestDuplex::Half);
    /// assert_eq!(RequestDuplex::Half.as_str(), "half");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub enum RequestDuplex {
        /// `"half"`: the whole request is sent before the response is processed.
        Half = "half",
    }
}

idl_enum! {
    /// [`RequestPriority`](https://fetch.spec.whatwg.org/#request-priority).
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit, RequestPriority};
    ///
    /// let init = RequestInit { priority: Some(RequestPriority::Low), ..RequestInit::default() };
    /// let request = Request::new("https://api.example/items", init)?;
    /// assert_eq!(request.priority(), RequestPriority::Low);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub enum RequestPriority {
        /// `"high"`.
        High = "high",
        /// `"low"`.
        Low = "low",
        /// `"auto"`.
        Auto = "auto",
    }
}

/// A request's [referrer](https://fetch.spec.whatwg.org/#concept-request-referrer).
///
/// ```
/// use whatwg_fetch::request::Referrer;
/// use whatwg_fetch::{Request, RequestInit};
///
/// let request = Request::new("https://api.example/", RequestInit::default())?;
/// // `about:client`: the environment's referrer, worked out when fetching.
/// assert_eq!(request.referrer_value(), &Referrer::Client);
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Referrer {
    /// `"no-referrer"`: no `Referer` header.
    NoReferrer,
    /// `"client"`: the environment's default, computed when fetching.
    Client,
    /// A URL.
    Url(Url),
}

/// A request's [origin](https://fetch.spec.whatwg.org/#concept-request-origin).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum RequestOrigin {
    /// `"client"`: the origin of the request's client, resolved when fetching.
    Client,
    /// An origin.
    Origin(url::Origin),
}

/// A request's [response tainting](https://fetch.spec.whatwg.org/#concept-request-response-tainting).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ResponseTainting {
    /// `"basic"`.
    Basic,
    /// `"cors"`.
    Cors,
    /// `"opaque"`.
    Opaque,
}

/// The [`RequestInit`](https://fetch.spec.whatwg.org/#requestinit) dictionary.
///
/// Every member is optional: `None` means the member is absent, which the constructor
/// treats differently from any value.
///
/// ```
/// use whatwg_fetch::request::{Request, RequestInit, RequestRedirect};
///
/// let request = Request::new("https://example.com/upload", RequestInit {
///     method: Some("post".into()),
///     body: Some("hello".into()),
///     redirect: Some(RequestRedirect::Manual),
///     ..Default::default()
/// })?;
/// assert_eq!(request.method(), "POST");
/// assert_eq!(request.headers().get("content-type")?.as_deref(), Some("text/plain;charset=UTF-8"));
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Debug, Default)]
pub struct RequestInit {
    /// The method; normalized (`post` becomes `POST`) and checked.
    pub method: Option<String>,
    /// Headers to replace the input's.
    pub headers: Option<HeadersInit>,
    /// The body; [`BodyInit::Null`] is JavaScript's `null`.
    pub body: Option<BodyInit>,
    /// The referrer: a same-origin URL, `"about:client"`, or `""` for none.
    pub referrer: Option<String>,
    /// The referrer policy.
    pub referrer_policy: Option<ReferrerPolicy>,
    /// The mode; `navigate` is a `TypeError`.
    pub mode: Option<RequestMode>,
    /// The credentials mode.
    pub credentials: Option<RequestCredentials>,
    /// The cache mode.
    pub cache: Option<RequestCache>,
    /// The redirect mode.
    pub redirect: Option<RequestRedirect>,
    /// Subresource integrity metadata.
    pub integrity: Option<String>,
    /// Whether the request may outlive its environment.
    pub keepalive: Option<bool>,
    /// A signal that aborts the request. A request made from another request follows the
    /// input's signal unless this is set; pass a signal that never aborts (a fresh
    /// [`AbortController`](crate::abort::AbortController)'s) for JavaScript's `null`.
    pub signal: Option<AbortSignal>,
    /// Required (`half`) when the body is a stream.
    pub duplex: Option<RequestDuplex>,
    /// The priority hint.
    pub priority: Option<RequestPriority>,
    /// JavaScript's `window` member: `Some(None)` is `null`; `Some(Some(()))` stands for any
    /// other value, which is a `TypeError`.
    pub window: Option<Option<()>>,
}

impl RequestInit {
    /// Whether no member is present: the spec's "init is empty".
    ///
    /// ```
    /// use whatwg_fetch::RequestInit;
    ///
    /// assert!(RequestInit::default().is_empty());
    /// assert!(!RequestInit { method: Some("POST".into()), ..RequestInit::default() }.is_empty());
    /// ```
    pub fn is_empty(&self) -> bool {
        let RequestInit {
            method,
            headers,
            body,
            referrer,
            referrer_policy,
            mode,
            credentials,
            cache,
            redirect,
            integrity,
            keepalive,
            signal,
            duplex,
            priority,
            window,
        } = self;
        method.is_none()
            && headers.is_none()
            && body.is_none()
            && referrer.is_none()
            && referrer_policy.is_none()
            && mode.is_none()
            && credentials.is_none()
            && cache.is_none()
            && redirect.is_none()
            && integrity.is_none()
            && keepalive.is_none()
            && signal.is_none()
            && duplex.is_none()
            && priority.is_none()
            && window.is_none()
    }
}

/// A [`RequestInfo`](https://fetch.spec.whatwg.org/#requestinfo): a URL or a [`Request`].
///
/// ```
/// # tokio_test::block_on(async {
/// use whatwg_fetch::{Client, Request, RequestInit, Url};
///
/// let client = Client::new();
/// // A string, a parsed URL or a request: what `fetch(input)` takes.
/// client.fetch("data:,a", RequestInit::default()).await?;
/// client.fetch(Url::parse("data:,b").map_err(|e| whatwg_fetch::Error::type_error(e.to_string()))?, RequestInit::default()).await?;
/// client.fetch(Request::new("data:,c", RequestInit::default())?, RequestInit::default()).await?;
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
#[derive(Debug)]
pub enum RequestInfo {
    /// A URL string, parsed against the environment's base URL.
    Url(String),
    /// A URL already parsed: used as it is, since parsing its serialization against any
    /// base URL gives it back (the URL Standard's parser and serializer are idempotent).
    /// This skips the parse a string costs on every request.
    Parsed(Url),
    /// A request to copy; its body is taken.
    Request(Box<Request>),
}

impl From<&str> for RequestInfo {
    fn from(url: &str) -> RequestInfo {
        RequestInfo::Url(url.to_owned())
    }
}

impl From<String> for RequestInfo {
    fn from(url: String) -> RequestInfo {
        RequestInfo::Url(url)
    }
}

impl From<&String> for RequestInfo {
    fn from(url: &String) -> RequestInfo {
        RequestInfo::Url(url.clone())
    }
}

impl From<Url> for RequestInfo {
    fn from(url: Url) -> RequestInfo {
        RequestInfo::Parsed(url)
    }
}

impl From<&Url> for RequestInfo {
    fn from(url: &Url) -> RequestInfo {
        RequestInfo::Parsed(url.clone())
    }
}

impl From<Request> for RequestInfo {
    fn from(request: Request) -> RequestInfo {
        RequestInfo::Request(Box::new(request))
    }
}

/// The constructor's `input`, borrowed: a URL, or a request whose body may be taken.
enum Input<'a> {
    Url(&'a str),
    Parsed(Url),
    Request(&'a mut Request),
}

/// A [URL list](https://fetch.spec.whatwg.org/#concept-request-url-list), a request's or a
/// response's: shared, so that a copy of the list (HTTP-network-or-cache fetch's
/// httpRequest, the response's list set from its request's) copies no URL; a list changed
/// (a redirect's URL pushed, the current URL's fragment set) is copied first if it is
/// shared.
#[derive(Clone, Default, PartialEq, Eq)]
pub(crate) struct UrlList(Option<Arc<[Url]>>);

impl UrlList {
    /// The list « `url` ».
    pub(crate) fn one(url: Url) -> UrlList {
        UrlList(Some(Arc::from([url])))
    }

    /// Appends `url`.
    pub(crate) fn push(&mut self, url: Url) {
        let mut urls = self.to_vec();
        urls.push(url);
        *self = UrlList::from(urls);
    }

    /// The last URL, to be changed: the list is copied first if it is shared.
    pub(crate) fn last_mut(&mut self) -> Option<&mut Url> {
        let urls = self.0.as_mut()?;
        if Arc::get_mut(urls).is_none() {
            *urls = urls.iter().cloned().collect();
        }
        Arc::get_mut(urls)?.last_mut()
    }
}

impl std::ops::Deref for UrlList {
    type Target = [Url];

    fn deref(&self) -> &[Url] {
        self.0.as_deref().unwrap_or_default()
    }
}

impl From<Vec<Url>> for UrlList {
    fn from(urls: Vec<Url>) -> UrlList {
        UrlList((!urls.is_empty()).then(|| Arc::from(urls)))
    }
}

impl FromIterator<Url> for UrlList {
    fn from_iter<I: IntoIterator<Item = Url>>(urls: I) -> UrlList {
        UrlList::from(urls.into_iter().collect::<Vec<_>>())
    }
}

impl<'a> IntoIterator for &'a UrlList {
    type Item = &'a Url;
    type IntoIter = std::slice::Iter<'a, Url>;

    fn into_iter(self) -> std::slice::Iter<'a, Url> {
        self.iter()
    }
}

impl fmt::Debug for UrlList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// The constructor's input after steps 5.1–5.2: a URL, or the request to copy.
enum Parsed<'a> {
    Url(Url),
    Request(&'a mut Request),
}

/// A [request](https://fetch.spec.whatwg.org/#concept-request) and the
/// [`Request`](https://fetch.spec.whatwg.org/#request) object around it.
///
/// `Request` is `Send + Sync`; its body is read once.
///
/// ```
/// # tokio_test::block_on(async {
/// use whatwg_fetch::{Client, Request, RequestInit};
///
/// let init = RequestInit { method: Some("POST".into()), body: Some("hi".into()), ..RequestInit::default() };
/// let mut request = Request::new("https://api.example/echo", init)?;
/// request.headers_mut().set("x-trace", "7f3a")?;
/// assert_eq!((request.method(), request.url()), ("POST", "https://api.example/echo"));
/// # let _ = Client::new();
/// // Fetched with `Client::fetch_request(request)`, or `fetch(request, init)`.
/// assert_eq!(request.text().await?, "hi");
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
pub struct Request {
    /// <https://fetch.spec.whatwg.org/#concept-request-method>, initially `GET`.
    pub(crate) method: Cow<'static, str>,
    /// <https://fetch.spec.whatwg.org/#concept-request-url-list>: the request's URL first,
    /// then every URL it was redirected to.
    pub(crate) url_list: UrlList,
    /// <https://fetch.spec.whatwg.org/#concept-request-header-list>, held by the request's
    /// `Headers` object with its guard.
    pub(crate) headers: Headers,
    /// <https://fetch.spec.whatwg.org/#concept-request-body>, initially null.
    pub(crate) body: Option<Body>,
    /// <https://fetch.spec.whatwg.org/#concept-request-client>.
    pub(crate) client: Arc<Environment>,
    /// <https://fetch.spec.whatwg.org/#request-keepalive-flag>, initially false.
    pub(crate) keepalive: bool,
    /// <https://fetch.spec.whatwg.org/#concept-request-initiator-type>: `fetch` for requests
    /// made by this constructor.
    pub(crate) initiator_type: Option<&'static str>,
    /// <https://fetch.spec.whatwg.org/#concept-request-destination>, initially the empty string.
    pub(crate) destination: RequestDestination,
    /// <https://fetch.spec.whatwg.org/#request-priority>, initially `auto`.
    pub(crate) priority: RequestPriority,
    /// <https://fetch.spec.whatwg.org/#concept-request-origin>, initially `client`.
    pub(crate) origin: RequestOrigin,
    /// <https://fetch.spec.whatwg.org/#concept-request-referrer>, initially `client`.
    pub(crate) referrer: Referrer,
    /// <https://fetch.spec.whatwg.org/#concept-request-referrer-policy>, initially the empty
    /// string.
    pub(crate) referrer_policy: ReferrerPolicy,
    /// <https://fetch.spec.whatwg.org/#concept-request-mode>, initially `no-cors`.
    pub(crate) mode: RequestMode,
    /// <https://fetch.spec.whatwg.org/#use-cors-preflight-flag>, initially unset.
    pub(crate) use_cors_preflight: bool,
    /// <https://fetch.spec.whatwg.org/#concept-request-credentials-mode>, initially
    /// `same-origin`.
    pub(crate) credentials_mode: RequestCredentials,
    /// <https://fetch.spec.whatwg.org/#concept-request-use-url-credentials-flag>, initially
    /// unset.
    pub(crate) use_url_credentials: bool,
    /// <https://fetch.spec.whatwg.org/#concept-request-cache-mode>, initially `default`.
    pub(crate) cache_mode: RequestCache,
    /// <https://fetch.spec.whatwg.org/#concept-request-redirect-mode>, initially `follow`.
    pub(crate) redirect_mode: RequestRedirect,
    /// <https://fetch.spec.whatwg.org/#concept-request-integrity-metadata>, initially the
    /// empty string.
    pub(crate) integrity_metadata: String,
    /// <https://fetch.spec.whatwg.org/#concept-request-reload-navigation-flag>.
    pub(crate) reload_navigation: bool,
    /// <https://fetch.spec.whatwg.org/#concept-request-history-navigation-flag>.
    pub(crate) history_navigation: bool,
    /// <https://fetch.spec.whatwg.org/#unsafe-request-flag>, initially unset.
    pub(crate) unsafe_request: bool,
    /// <https://fetch.spec.whatwg.org/#concept-request-redirect-count>, initially 0.
    pub(crate) redirect_count: u8,
    /// <https://fetch.spec.whatwg.org/#concept-request-response-tainting>, initially `basic`.
    pub(crate) response_tainting: ResponseTainting,
    /// <https://fetch.spec.whatwg.org/#timing-allow-failed>, initially unset.
    pub(crate) timing_allow_failed: bool,
    /// <https://fetch.spec.whatwg.org/#no-cache-prevent-cache-control>, initially unset.
    pub(crate) prevent_no_cache_cache_control_header_modification: bool,
    /// <https://fetch.spec.whatwg.org/#concept-request-traversable-for-user-prompts>: whether
    /// it is `no-traversable` (set by `window: null`).
    pub(crate) no_traversable: bool,
    /// The HTTP version the request must go over, if the caller asked for one
    /// ([`RequestBuilder::version`](crate::RequestBuilder::version)); not the standard's,
    /// which leaves the version to the user agent.
    pub(crate) http_version: Option<http::Version>,
    /// Whether the body waits for a `100 Continue`, and how long, if the caller said so
    /// for this request ([`RequestBuilder::expect_continue`](crate::RequestBuilder::expect_continue));
    /// `None` leaves it to the client. Not the standard's, which sends no `Expect`.
    pub(crate) expect_continue: Option<Option<std::time::Duration>>,
    /// What the request carries to the transport beside itself, put in the extensions of
    /// each `http::Request` it is sent as: a [`Route`](crate::net::Route) of its own
    /// ([`RequestBuilder::proxy`](crate::RequestBuilder::proxy),
    /// [`resolve`](crate::RequestBuilder::resolve)), kept through redirects. Empty by
    /// default, the size of one pointer. Not the standard's.
    pub(crate) transport_extensions: http::Extensions,
    /// Not in the spec: the username and password that answer a `Digest` challenge
    /// ([`RequestBuilder::digest_auth`](crate::RequestBuilder::digest_auth)), where a user
    /// agent would prompt the user (HTTP-network-or-cache fetch, step 15). For the
    /// request's first origin only: a redirect to another drops them.
    pub(crate) digest_credentials: Option<Arc<crate::infra::digest::DigestCredentials>>,
    /// The `Request` object's [signal](https://fetch.spec.whatwg.org/#request-signal).
    pub(crate) signal: RequestSignal,
}

/// A request's signal: the result of creating a dependent abort signal from its source
/// signals. With no source (a request made without a signal, the common case) it can never
/// be aborted, and nothing tells it apart from one not made yet: it is made only when asked
/// for ([`Request::signal`]), once, and a fetch of a request whose signal was never asked for
/// allocates none.
#[derive(Clone, Default)]
pub(crate) struct RequestSignal(OnceLock<AbortSignal>);

impl RequestSignal {
    /// A signal that follows no source signal, made when first asked for.
    pub(crate) fn inert() -> RequestSignal {
        RequestSignal::default()
    }

    /// The result of creating a dependent abort signal from « `source` », or from « » if
    /// there is none.
    pub(crate) fn following(source: Option<&AbortSignal>) -> RequestSignal {
        match source {
            Some(source) => RequestSignal(OnceLock::from(AbortSignal::any([source]))),
            None => RequestSignal::inert(),
        }
    }

    /// The signal, made now if it was not.
    pub(crate) fn get(&self) -> &AbortSignal {
        self.0.get_or_init(|| AbortSignal::any([]))
    }

    /// The signal if it has been made: `None` for one that follows no source and that
    /// nobody has asked for, which can never be aborted.
    pub(crate) fn made(&self) -> Option<&AbortSignal> {
        self.0.get()
    }
}

impl fmt::Debug for RequestSignal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.made() {
            Some(signal) => signal.fmt(f),
            // As the signal it would be: not aborted, dependent, following nothing.
            None => f
                .debug_struct("AbortSignal")
                .field("reason", &None::<Error>)
                .field("dependent", &true)
                .finish(),
        }
    }
}

impl Request {
    /// A new request with the spec's defaults for `url`: method `GET`, no headers, no body,
    /// mode `no-cors`, credentials `same-origin`, in the server-side environment.
    ///
    /// This is the spec's "new request", not the constructor: use [`Request::new`] to get
    /// the constructor's checks and its `cors` default mode.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestMode, Url};
    ///
    /// // The spec's "new request": none of the constructor's checks or defaults.
    /// let request = Request::from_url(Url::parse("https://api.example/items")?);
    /// assert_eq!((request.method(), request.mode()), ("GET", RequestMode::NoCors));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn from_url(url: Url) -> Request {
        Request::from_url_in(Arc::new(Environment::server()), url, RequestSignal::inert())
    }

    // Inlined into the constructor's step 5.4, which then makes the request where it keeps
    // it rather than copy it (456 bytes) out of this call's return.
    #[inline(always)]
    fn from_url_in(client: Arc<Environment>, url: Url, signal: RequestSignal) -> Request {
        let mut headers = Headers::with_guard(HeadersGuard::Request);
        headers.set_filters_forbidden_request_headers(client.is_browser_like());
        Request {
            method: Cow::Borrowed("GET"),
            url_list: UrlList::one(url),
            headers,
            body: None,
            client,
            keepalive: false,
            initiator_type: None,
            destination: RequestDestination::Empty,
            priority: RequestPriority::Auto,
            origin: RequestOrigin::Client,
            referrer: Referrer::Client,
            referrer_policy: ReferrerPolicy::Empty,
            mode: RequestMode::NoCors,
            use_cors_preflight: false,
            credentials_mode: RequestCredentials::SameOrigin,
            use_url_credentials: false,
            cache_mode: RequestCache::Default,
            redirect_mode: RequestRedirect::Follow,
            integrity_metadata: String::new(),
            reload_navigation: false,
            history_navigation: false,
            unsafe_request: false,
            redirect_count: 0,
            response_tainting: ResponseTainting::Basic,
            timing_allow_failed: false,
            prevent_no_cache_cache_control_header_modification: false,
            no_traversable: false,
            http_version: None,
            expect_continue: None,
            transport_extensions: http::Extensions::new(),
            digest_credentials: None,
            signal,
        }
    }

    /// `new Request(input, init)` in the server-side [`Environment`].
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit, RequestMode};
    ///
    /// let request = Request::new(
    ///     "https://api.example/items",
    ///     RequestInit {
    ///         method: Some("post".into()),
    ///         headers: Some(vec![("content-type", "application/json")].into()),
    ///         body: Some(r#"{"name":"lamp"}"#.into()),
    ///         ..RequestInit::default()
    ///     },
    /// )?;
    /// // The method is normalized, the mode `cors`, as `new Request` makes them.
    /// assert_eq!((request.method(), request.mode()), ("POST", RequestMode::Cors));
    /// // A body with `GET` is a `TypeError`.
    /// let get_with_body = RequestInit { body: Some("x".into()), ..RequestInit::default() };
    /// assert!(Request::new("https://api.example/items", get_with_body).is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// A `TypeError` for every case where the constructor throws one: an unparsable URL or
    /// one with credentials, an invalid or forbidden method, mode `navigate`,
    /// `only-if-cached` without `same-origin`, invalid headers, a body on `GET`/`HEAD`, a
    /// stream body without `duplex`, a used input body, a non-null `window`.
    pub fn new(input: impl Into<RequestInfo>, init: RequestInit) -> Result<Request> {
        Request::new_in(&Arc::new(Environment::server()), input, init)
    }

    /// `new Request(input, init)` made from `environment`: its base URL resolves relative
    /// URLs, and its origin (if any) turns on the browser's header and referrer rules.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::{Environment, Request, RequestInit, Url};
    ///
    /// // A relative URL, resolved against the environment's base URL.
    /// let environment = Arc::new(Environment::server().with_base_url(Url::parse("https://api.example/v1/")?));
    /// let request = Request::new_in(&environment, "items/7", RequestInit::default())?;
    /// assert_eq!(request.url(), "https://api.example/v1/items/7");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// As [`Request::new`].
    pub fn new_in(
        environment: &Arc<Environment>,
        input: impl Into<RequestInfo>,
        init: RequestInit,
    ) -> Result<Request> {
        match input.into() {
            RequestInfo::Url(url) => Request::construct(environment, Input::Url(&url), init),
            RequestInfo::Parsed(url) => Request::construct(environment, Input::Parsed(url), init),
            RequestInfo::Request(mut request) => {
                Request::construct(environment, Input::Request(&mut request), init)
            }
        }
    }

    /// `new Request(input, init)` where `input` is a request that stays with the caller:
    /// its body is taken (the input's `body_used()` becomes true) unless `init` has a body.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::{Environment, Request, RequestInit};
    ///
    /// let environment = Arc::new(Environment::server());
    /// let init = RequestInit { method: Some("PUT".into()), body: Some("v2".into()), ..RequestInit::default() };
    /// let mut original = Request::new("https://api.example/doc", init)?;
    /// // A request made from another, with a header of its own: the body moves to it.
    /// let init = RequestInit { headers: Some(vec![("if-match", "\"v1\"")].into()), ..RequestInit::default() };
    /// let mut copy = Request::from_request_in(&environment, &mut original, init)?;
    /// assert!(original.body_used());
    /// assert_eq!(copy.method(), "PUT");
    /// assert_eq!(copy.text().await?, "v2");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`Request::new`], and a `TypeError` if the input's body is already used.
    pub fn from_request_in(
        environment: &Arc<Environment>,
        input: &mut Request,
        init: RequestInit,
    ) -> Result<Request> {
        Request::construct(environment, Input::Request(input), init)
    }

    /// The [`new Request(input, init)`](https://fetch.spec.whatwg.org/#dom-request)
    /// constructor steps.
    fn construct(
        environment: &Arc<Environment>,
        input: Input<'_>,
        init: RequestInit,
    ) -> Result<Request> {
        let init_is_empty = init.is_empty();
        let RequestInit {
            method,
            headers: init_headers,
            body: init_body,
            referrer,
            referrer_policy,
            mode,
            credentials,
            cache,
            redirect,
            integrity,
            keepalive,
            signal: init_signal,
            duplex,
            priority,
            window,
        } = init;

        // Step 1. Let request be null.
        // Step 2. Let fallbackMode be null.
        let mut fallback_mode: Option<RequestMode> = None;
        // Step 3. Let baseURL be this's relevant settings object's API base URL.
        // Step 4. Let signal be null.
        let mut signal: Option<AbortSignal> = None;
        let mut input_request: Option<&mut Request> = None;
        let mut signal_is_made = false;
        // The request of step 5.4 or 6.2, which step 12 makes this's own in place.
        let mut request: Request;
        // Step 5.1. Let parsedURL be the result of parsing input with baseURL.
        // Step 5.2. If parsedURL is failure, then throw a TypeError.
        // (A URL parsed already is what parsing its serialization would give.)
        let input = match input {
            Input::Url(input) => {
                Parsed::Url(environment.parse_url(input).map_err(|error| {
                    Error::type_error(format!("invalid URL {input:?}: {error}"))
                })?)
            }
            Input::Parsed(url) => Parsed::Url(url),
            Input::Request(request) => Parsed::Request(request),
        };
        match input {
            // Step 5. If input is a string, then:
            Parsed::Url(parsed_url) => {
                // Step 5.3. If parsedURL includes credentials, then throw a TypeError.
                if url_includes_credentials(&parsed_url) {
                    return Err(Error::type_error(format!(
                        "URL {:?} includes credentials",
                        parsed_url.as_str()
                    )));
                }
                // Step 5.4. Set request to a new request whose URL is parsedURL.
                // (Its signal is made here, as step 30 would make it: the input has none to
                // follow, so it depends on init["signal"] alone.)
                let dependent = RequestSignal::following(init_signal.as_ref());
                request = Request::from_url_in(environment.clone(), parsed_url, dependent);
                signal_is_made = true;
                // Step 5.5. Set fallbackMode to "cors".
                fallback_mode = Some(RequestMode::Cors);
            }
            // Step 6. Otherwise:
            Parsed::Request(input) => {
                // Step 6.1. Assert: input is a Request object.
                // Step 6.2. Set request to input's request.
                // Step 6.3. Set signal to input's signal.
                signal = input.signal.made().cloned();
                request = input.copy_without_body();
                input_request = Some(input);
            }
        }

        // Step 7. Let origin be this's relevant settings object's origin.
        let origin = environment.origin();
        // Steps 8–9. Let traversableForUserPrompts be "client". (Requests made here have no
        // environment settings object for user prompts.)
        let mut no_traversable = false;
        // Step 10. If init["window"] exists and is non-null, then throw a TypeError.
        if let Some(Some(())) = window {
            return Err(Error::type_error("RequestInit's window must be null"));
        }
        // Step 11. If init["window"] exists, then set traversableForUserPrompts to
        // "no-traversable".
        if window.is_some() {
            no_traversable = true;
        }

        // Step 12. Set request to a new request with the following properties: URL, method,
        // a copy of the header list, unsafe-request flag set, client this's relevant
        // settings object, ..., URL list a clone of request's URL list, initiator type
        // "fetch".
        request.unsafe_request = true;
        request.client = environment.clone();
        request.no_traversable = no_traversable;
        request.initiator_type = Some("fetch");

        // Step 13. If init is not empty, then:
        if !init_is_empty {
            // Step 13.1. If request's mode is "navigate", then set it to "same-origin".
            if request.mode == RequestMode::Navigate {
                request.mode = RequestMode::SameOrigin;
            }
            // Step 13.2. Unset request's reload-navigation flag.
            request.reload_navigation = false;
            // Step 13.3. Unset request's history-navigation flag.
            request.history_navigation = false;
            // Step 13.4. Set request's origin to "client".
            request.origin = RequestOrigin::Client;
            // Step 13.5. Set request's referrer to "client".
            request.referrer = Referrer::Client;
            // Step 13.6. Set request's referrer policy to the empty string.
            request.referrer_policy = ReferrerPolicy::Empty;
            // Step 13.7. Set request's URL to request's current URL.
            // Step 13.8. Set request's URL list to « request's URL ».
            let current_url = request.current_url().clone();
            request.url_list = UrlList::one(current_url);
        }

        // Step 14. If init["referrer"] exists, then:
        if let Some(referrer) = referrer {
            // Step 14.2. If referrer is the empty string, then set request's referrer to
            // "no-referrer".
            if referrer.is_empty() {
                request.referrer = Referrer::NoReferrer;
            } else {
                // Step 14.3.1. Let parsedReferrer be the result of parsing referrer with
                // baseURL.
                // Step 14.3.2. If parsedReferrer is failure, then throw a TypeError.
                let parsed_referrer = environment.parse_url(&referrer).map_err(|error| {
                    Error::type_error(format!("invalid referrer URL {referrer:?}: {error}"))
                })?;
                // Step 14.3.3. If one of the following is true — parsedReferrer's scheme is
                // "about" and path is the string "client"; parsedReferrer's origin is not
                // same origin with origin — then set request's referrer to "client".
                // DEVIATION: with no origin (server-side) there is nothing to be same-origin
                // with, so the URL is kept, as Deno and undici do.
                let is_about_client =
                    parsed_referrer.scheme() == "about" && parsed_referrer.path() == "client";
                let cross_origin = origin.is_some_and(|origin| *origin != parsed_referrer.origin());
                if is_about_client || cross_origin {
                    request.referrer = Referrer::Client;
                } else {
                    // Step 14.3.4. Otherwise, set request's referrer to parsedReferrer.
                    request.referrer = Referrer::Url(parsed_referrer);
                }
            }
        }

        // Step 15. If init["referrerPolicy"] exists, then set request's referrer policy to it.
        if let Some(referrer_policy) = referrer_policy {
            request.referrer_policy = referrer_policy;
        }

        // Step 16. Let mode be init["mode"] if it exists, and fallbackMode otherwise.
        let mode = mode.or(fallback_mode);
        // Step 17. If mode is "navigate", then throw a TypeError.
        if mode == Some(RequestMode::Navigate) {
            return Err(Error::type_error("a Request cannot have mode \"navigate\""));
        }
        // Not a value of the IDL's `RequestMode`, which would throw this TypeError when
        // it converts init.
        if mode == Some(RequestMode::WebSocket) {
            return Err(Error::type_error(
                "a Request cannot have mode \"websocket\": it is the WebSocket API's own",
            ));
        }
        // Step 18. If mode is non-null, set request's mode to mode.
        if let Some(mode) = mode {
            request.mode = mode;
        }

        // Step 19. If init["credentials"] exists, then set request's credentials mode to it.
        if let Some(credentials) = credentials {
            request.credentials_mode = credentials;
        }
        // Step 20. If init["cache"] exists, then set request's cache mode to it.
        if let Some(cache) = cache {
            request.cache_mode = cache;
        }
        // Step 21. If request's cache mode is "only-if-cached" and request's mode is not
        // "same-origin", then throw a TypeError.
        if request.cache_mode == RequestCache::OnlyIfCached
            && request.mode != RequestMode::SameOrigin
        {
            return Err(Error::type_error(
                "cache mode \"only-if-cached\" needs mode \"same-origin\"",
            ));
        }
        // Step 22. If init["redirect"] exists, then set request's redirect mode to it.
        if let Some(redirect) = redirect {
            request.redirect_mode = redirect;
        }
        // Step 23. If init["integrity"] exists, then set request's integrity metadata to it.
        if let Some(integrity) = integrity {
            request.integrity_metadata = integrity;
        }
        // Step 24. If init["keepalive"] exists, then set request's keepalive to it.
        if let Some(keepalive) = keepalive {
            request.keepalive = keepalive;
        }

        // Step 25. If init["method"] exists, then:
        if let Some(method) = method {
            // Step 25.2. If method is not a method or method is a forbidden method, then
            // throw a TypeError.
            if !crate::mime::is_token(method.as_bytes()) {
                return Err(Error::type_error(format!(
                    "{method:?} is not a valid HTTP method"
                )));
            }
            if headers::is_forbidden_method(method.as_bytes()) {
                return Err(Error::type_error(format!(
                    "{method:?} is a forbidden method"
                )));
            }
            // Step 25.3. Normalize method.
            // Step 25.4. Set request's method to method.
            request.method = normalize_method(method);
        }

        // Step 26. If init["signal"] exists, then set signal to it.
        if let Some(init_signal) = init_signal {
            signal = Some(init_signal);
        }
        // Step 27. If init["priority"] exists, then: ... set request's priority to it.
        if let Some(priority) = priority {
            request.priority = priority;
        }

        // Step 28. Set this's request to request.
        // Step 29. Let signals be « signal » if signal is non-null; otherwise « ».
        // Step 30. Set this's signal to the result of creating a dependent abort signal
        // from signals.
        if !signal_is_made {
            request.signal = RequestSignal::following(signal.as_ref());
        }

        // Step 31. Set this's headers to a new Headers object whose header list is
        // request's header list and guard is "request".
        request.headers.set_guard(HeadersGuard::Request);
        request
            .headers
            .set_filters_forbidden_request_headers(environment.is_browser_like());

        // Step 32. If this's request's mode is "no-cors", then:
        if request.mode == RequestMode::NoCors {
            // Step 32.1. If this's request's method is not a CORS-safelisted method, then
            // throw a TypeError.
            if !headers::is_cors_safelisted_method(request.method.as_bytes()) {
                return Err(Error::type_error(format!(
                    "method {:?} is not allowed in mode \"no-cors\"",
                    request.method
                )));
            }
            // Step 32.2. Set this's headers's guard to "request-no-cors".
            request.headers.set_guard(HeadersGuard::RequestNoCors);
        }

        // Step 33. If init is not empty, then:
        if !init_is_empty {
            // Step 33.1. Let headers be a copy of this's headers and its associated header
            // list.
            // Step 33.2. If init["headers"] exists, then set headers to init["headers"].
            let headers = match init_headers {
                Some(init_headers) => init_headers,
                None => HeadersInit::Headers(request.headers.clone()),
            };
            // Step 33.3. Empty this's headers's header list.
            request.headers.header_list_mut().clear();
            match headers {
                // Step 33.4. If headers is a Headers object, then for each header of its
                // header list, append header to this's headers.
                HeadersInit::Headers(headers) => {
                    for (name, value) in headers.header_list().iter() {
                        request.headers.append(name, value)?;
                    }
                }
                // Step 33.5. Otherwise, fill this's headers with headers.
                headers => request.headers.fill(headers)?,
            }
        }

        // Step 34. Let inputBody be input's request's body if input is a Request object;
        // otherwise null.
        let input_has_body = input_request
            .as_ref()
            .is_some_and(|input| input.body.is_some());
        let init_body = init_body.and_then(BodyInit::non_null);
        // Step 35. If either init["body"] exists and is non-null or inputBody is non-null,
        // and request's method is `GET` or `HEAD`, then throw a TypeError.
        if (init_body.is_some() || input_has_body)
            && matches!(request.method.as_ref(), "GET" | "HEAD")
        {
            return Err(Error::type_error(format!(
                "a {} request cannot have a body",
                request.method
            )));
        }

        // Step 36. Let initBody be null.
        let mut init_body_extracted: Option<Body> = None;
        // Step 37. If init["body"] exists and is non-null, then:
        if let Some(init_body) = init_body {
            // Step 37.1. Let bodyWithType be the result of extracting init["body"], with
            // keepalive set to request's keepalive.
            let body_with_type = body::extract_body(init_body, request.keepalive)?;
            // Step 37.2. Set initBody to bodyWithType's body.
            init_body_extracted = Some(body_with_type.body);
            // Step 37.3. Let type be bodyWithType's type.
            // Step 37.4. If type is non-null and this's headers's header list does not
            // contain `Content-Type`, then append (`Content-Type`, type) to this's headers.
            if let Some(r#type) = body_with_type.r#type {
                if !request.headers.header_list().contains("content-type") {
                    request.headers.append(b"Content-Type", &r#type)?;
                }
            }
        }

        // Step 38. Let inputOrInitBody be initBody if it is non-null; otherwise inputBody.
        let input_or_init_body_source_is_null = match (&init_body_extracted, &input_request) {
            (Some(body), _) => Some(!body.has_source()),
            (None, Some(input)) => input.body.as_ref().map(|body| !body.has_source()),
            (None, None) => None,
        };
        // Step 39. If inputOrInitBody is non-null and inputOrInitBody's source is null,
        // then:
        if input_or_init_body_source_is_null == Some(true) {
            // Step 39.1. If initBody is non-null and init["duplex"] does not exist, then
            // throw a TypeError.
            if init_body_extracted.is_some() && duplex.is_none() {
                return Err(Error::type_error(
                    "a request with a stream body needs duplex: \"half\"",
                ));
            }
            // Step 39.2. If this's request's mode is neither "same-origin" nor "cors", then
            // throw a TypeError.
            if !matches!(request.mode, RequestMode::SameOrigin | RequestMode::Cors) {
                return Err(Error::type_error(
                    "a request with a stream body needs mode \"same-origin\" or \"cors\"",
                ));
            }
            // Step 39.3. Set this's request's use-CORS-preflight flag.
            request.use_cors_preflight = true;
        }

        // Step 40. Let finalBody be inputOrInitBody.
        let mut final_body = init_body_extracted;
        // Step 41. If initBody is null and inputBody is non-null, then:
        if final_body.is_none() {
            if let Some(input) = input_request {
                if let Some(input_body) = input.body.as_mut() {
                    // Step 41.1. If inputBody is unusable, then throw a TypeError.
                    // Step 41.2. Set finalBody to the result of creating a proxy for
                    // inputBody.
                    final_body = Some(input_body.take_stream()?);
                }
            }
        }

        // Step 42. Set this's request's body to finalBody.
        request.body = final_body;
        Ok(request)
    }

    /// A copy of this request's fields with no body: the part of "clone a request" that is
    /// not the body, and step 12's copy of the input.
    pub(crate) fn copy_without_body(&self) -> Request {
        Request {
            method: self.method.clone(),
            url_list: self.url_list.clone(),
            // Room for the headers fetching appends (Accept-Encoding, User-Agent, …).
            headers: self.headers.clone_with_spare_capacity(6),
            body: None,
            client: self.client.clone(),
            keepalive: self.keepalive,
            initiator_type: self.initiator_type,
            destination: self.destination,
            priority: self.priority,
            origin: self.origin.clone(),
            referrer: self.referrer.clone(),
            referrer_policy: self.referrer_policy,
            mode: self.mode,
            use_cors_preflight: self.use_cors_preflight,
            credentials_mode: self.credentials_mode,
            use_url_credentials: self.use_url_credentials,
            cache_mode: self.cache_mode,
            redirect_mode: self.redirect_mode,
            integrity_metadata: self.integrity_metadata.clone(),
            reload_navigation: self.reload_navigation,
            history_navigation: self.history_navigation,
            unsafe_request: self.unsafe_request,
            redirect_count: self.redirect_count,
            response_tainting: self.response_tainting,
            timing_allow_failed: self.timing_allow_failed,
            prevent_no_cache_cache_control_header_modification: self
                .prevent_no_cache_cache_control_header_modification,
            no_traversable: self.no_traversable,
            http_version: self.http_version,
            expect_continue: self.expect_continue,
            transport_extensions: self.transport_extensions.clone(),
            digest_credentials: self.digest_credentials.clone(),
            signal: self.signal.clone(),
        }
    }

    /// The request's [current URL](https://fetch.spec.whatwg.org/#concept-request-current-url):
    /// the last URL in its URL list.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// let request = Request::new("https://api.example/items?page=2", RequestInit::default())?;
    /// assert_eq!(request.current_url().query(), Some("page=2"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn current_url(&self) -> &Url {
        // The URL list is never empty: every constructor starts it with one URL.
        &self.url_list[self.url_list.len() - 1]
    }

    /// The [`method`](https://fetch.spec.whatwg.org/#dom-request-method), normalized.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit { method: Some("delete".into()), ..RequestInit::default() })?;
    /// // The standard methods are uppercased; others are kept as they are.
    /// assert_eq!(request.method(), "DELETE");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn method(&self) -> &str {
        &self.method
    }

    /// The [`url`](https://fetch.spec.whatwg.org/#dom-request-url), serialized.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// let request = Request::new("HTTPS://API.example:443/a/../items", RequestInit::default())?;
    /// // Serialized as the URL Standard parses it.
    /// assert_eq!(request.url(), "https://api.example/items");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn url(&self) -> &str {
        self.url_list[0].as_str()
    }

    /// The request's URL list: its URL, then each URL it was redirected to.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// // One URL until the request is fetched and redirected.
    /// let request = Request::new("https://api.example/items", RequestInit::default())?;
    /// assert_eq!(request.url_list().len(), 1);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn url_list(&self) -> &[Url] {
        &self.url_list
    }

    /// The [`headers`](https://fetch.spec.whatwg.org/#dom-request-headers), with guard
    /// `request` (or `request-no-cors`).
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit { headers: Some(vec![("accept", "application/json")].into()), ..RequestInit::default() })?;
    /// assert_eq!(request.headers().get("Accept")?.as_deref(), Some("application/json"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn headers(&self) -> &Headers {
        &self.headers
    }

    /// The headers, mutable: changes go through the guard, as `request.headers.set()` does.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// let mut request = Request::new("https://api.example/items", RequestInit::default())?;
    /// request.headers_mut().append("x-trace", "7f3a")?;
    /// assert_eq!(request.headers().get("x-trace")?.as_deref(), Some("7f3a"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn headers_mut(&mut self) -> &mut Headers {
        &mut self.headers
    }

    /// The [`destination`](https://fetch.spec.whatwg.org/#dom-request-destination).
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestDestination, RequestInit};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit {  ..RequestInit::default() })?;
    /// // Empty for a request made by `fetch()`, as for a script's.
    /// assert_eq!(request.destination(), RequestDestination::Empty);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn destination(&self) -> RequestDestination {
        self.destination
    }

    /// The [`referrer`](https://fetch.spec.whatwg.org/#dom-request-referrer): `""` for no
    /// referrer, `"about:client"` for the default, or the URL.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit {  ..RequestInit::default() })?;
    /// // The default: the environment's referrer, computed when fetching.
    /// assert_eq!(request.referrer(), "about:client");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn referrer(&self) -> &str {
        match &self.referrer {
            // Step 1. If this's request's referrer is "no-referrer", then return the empty
            // string.
            Referrer::NoReferrer => "",
            // Step 2. If this's request's referrer is "client", then return "about:client".
            Referrer::Client => "about:client",
            // Step 3. Return this's request's referrer, serialized.
            Referrer::Url(url) => url.as_str(),
        }
    }

    /// The request's referrer as the spec holds it.
    ///
    /// ```
    /// use whatwg_fetch::request::Referrer;
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit { referrer: Some(String::new()), ..RequestInit::default() })?;
    /// assert_eq!(request.referrer_value(), &Referrer::NoReferrer);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn referrer_value(&self) -> &Referrer {
        &self.referrer
    }

    /// The [`referrerPolicy`](https://fetch.spec.whatwg.org/#dom-request-referrerpolicy).
    ///
    /// ```
    /// use whatwg_fetch::{ReferrerPolicy, Request, RequestInit};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit { referrer_policy: Some(ReferrerPolicy::NoReferrer), ..RequestInit::default() })?;
    /// assert_eq!(request.referrer_policy(), ReferrerPolicy::NoReferrer);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn referrer_policy(&self) -> ReferrerPolicy {
        self.referrer_policy
    }

    /// The [`mode`](https://fetch.spec.whatwg.org/#dom-request-mode).
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit, RequestMode};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit { mode: Some(RequestMode::SameOrigin), ..RequestInit::default() })?;
    /// assert_eq!(request.mode(), RequestMode::SameOrigin);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn mode(&self) -> RequestMode {
        self.mode
    }

    /// The [`credentials`](https://fetch.spec.whatwg.org/#dom-request-credentials) mode.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestCredentials, RequestInit};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit {  ..RequestInit::default() })?;
    /// // `same-origin` unless the init says otherwise.
    /// assert_eq!(request.credentials(), RequestCredentials::SameOrigin);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn credentials(&self) -> RequestCredentials {
        self.credentials_mode
    }

    /// The [`cache`](https://fetch.spec.whatwg.org/#dom-request-cache) mode.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestCache, RequestInit};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit { cache: Some(RequestCache::NoStore), ..RequestInit::default() })?;
    /// assert_eq!(request.cache(), RequestCache::NoStore);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn cache(&self) -> RequestCache {
        self.cache_mode
    }

    /// The [`redirect`](https://fetch.spec.whatwg.org/#dom-request-redirect) mode.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit, RequestRedirect};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit { redirect: Some(RequestRedirect::Error), ..RequestInit::default() })?;
    /// // A redirect fails the fetch with a network error.
    /// assert_eq!(request.redirect(), RequestRedirect::Error);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn redirect(&self) -> RequestRedirect {
        self.redirect_mode
    }

    /// The [`integrity`](https://fetch.spec.whatwg.org/#dom-request-integrity) metadata.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit { integrity: Some("sha256-LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=".into()), ..RequestInit::default() })?;
    /// assert!(request.integrity().starts_with("sha256-"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn integrity(&self) -> &str {
        &self.integrity_metadata
    }

    /// [`keepalive`](https://fetch.spec.whatwg.org/#dom-request-keepalive).
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit { keepalive: Some(true), ..RequestInit::default() })?;
    /// assert!(request.keepalive());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn keepalive(&self) -> bool {
        self.keepalive
    }

    /// [`isReloadNavigation`](https://fetch.spec.whatwg.org/#dom-request-isreloadnavigation).
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit {  ..RequestInit::default() })?;
    /// // Only a browser's navigations are; a request made by a program never is.
    /// assert!(!request.is_reload_navigation());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn is_reload_navigation(&self) -> bool {
        self.reload_navigation
    }

    /// [`isHistoryNavigation`](https://fetch.spec.whatwg.org/#dom-request-ishistorynavigation).
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit {  ..RequestInit::default() })?;
    /// assert!(!request.is_history_navigation());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn is_history_navigation(&self) -> bool {
        self.history_navigation
    }

    /// The [`signal`](https://fetch.spec.whatwg.org/#dom-request-signal): aborts when the
    /// signal the request was made with aborts.
    ///
    /// ```
    /// use whatwg_fetch::{AbortController, Request, RequestInit};
    ///
    /// let controller = AbortController::new();
    /// let init = RequestInit { signal: Some(controller.signal()), ..RequestInit::default() };
    /// let request = Request::new("https://api.example/items", init)?;
    /// assert!(!request.signal().aborted());
    /// controller.abort(None);
    /// // The request's own signal follows the one it was made with.
    /// assert!(request.signal().aborted());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn signal(&self) -> &AbortSignal {
        self.signal.get()
    }

    /// The [`duplex`](https://fetch.spec.whatwg.org/#dom-request-duplex): always `half`.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestDuplex, RequestInit};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit {  ..RequestInit::default() })?;
    /// assert_eq!(request.duplex(), RequestDuplex::Half);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn duplex(&self) -> RequestDuplex {
        RequestDuplex::Half
    }

    /// The priority hint.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit, RequestPriority};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit { priority: Some(RequestPriority::High), ..RequestInit::default() })?;
    /// assert_eq!(request.priority(), RequestPriority::High);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn priority(&self) -> RequestPriority {
        self.priority
    }

    /// The environment the request was made from.
    ///
    /// ```
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// let request = Request::new("https://api.example/items", RequestInit::default())?;
    /// // `Request::new` makes requests from the server-side environment.
    /// assert!(!request.environment().is_browser_like());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn environment(&self) -> &Arc<Environment> {
        &self.client
    }

    /// The body, if any: a stream of bytes (the JavaScript `body` attribute).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// let init = RequestInit { method: Some("POST".into()), body: Some("upload".into()), ..RequestInit::default() };
    /// let mut request = Request::new("https://api.example/items", init)?;
    /// let mut read = Vec::new();
    /// if let Some(body) = request.body() {
    ///     while let Some(chunk) = body.next().await {
    ///         read.extend_from_slice(&chunk?);
    ///     }
    /// }
    /// assert_eq!(read, b"upload");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn body(&mut self) -> Option<&mut Body> {
        self.body.as_mut()
    }

    /// [`bodyUsed`](https://fetch.spec.whatwg.org/#dom-body-bodyused): whether the body has
    /// been read.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// let init = RequestInit { method: Some("POST".into()), body: Some("once".into()), ..RequestInit::default() };
    /// let mut request = Request::new("https://api.example/items", init)?;
    /// assert!(!request.body_used());
    /// request.text().await?;
    /// assert!(request.body_used());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn body_used(&self) -> bool {
        self.body.as_ref().is_some_and(Body::is_disturbed)
    }

    /// [`clone()`](https://fetch.spec.whatwg.org/#dom-request-clone): a copy whose body is a
    /// tee of this one's.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{Request, RequestInit};
    ///
    /// let init = RequestInit { method: Some("POST".into()), body: Some("twice".into()), ..RequestInit::default() };
    /// let mut request = Request::new("https://api.example/items", init)?;
    /// let mut copy = request.try_clone()?;
    /// assert_eq!(copy.text().await?, "twice");
    /// assert_eq!(request.text().await?, "twice");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// A `TypeError` if the body has been used.
    pub fn try_clone(&mut self) -> Result<Request> {
        // Step 1. If this is unusable, then throw a TypeError.
        if self.body_used() {
            return Err(Error::type_error(
                "cannot clone a Request whose body is used",
            ));
        }
        // Step 2. Let clonedRequest be the result of cloning this's request.
        let mut cloned = self.copy_without_body();
        cloned.body = self.body.as_mut().map(Body::clone_body);
        // Step 3. Assert: this's signal is non-null.
        // Step 4. Let clonedSignal be the result of creating a dependent abort signal from
        // « this's signal ».
        cloned.signal = RequestSignal::following(self.signal.made());
        // Step 5. Let clonedRequestObject be the result of creating a Request object, given
        // clonedRequest, this's headers's guard, clonedSignal.
        // Step 6. Return clonedRequestObject.
        Ok(cloned)
    }

    body_mixin!(
        json,
        "use whatwg_fetch::{Request, RequestInit};",
        "Request::new(\"https://api.example/items\", RequestInit {\n    method: Some(\"POST\".into()),\n    body: Some(",
        ".into()),\n    ..RequestInit::default()\n})?"
    );

    /// The URL a body error names: none, as the body is the caller's own.
    fn body_url(&self) -> UrlList {
        UrlList::default()
    }
}

impl fmt::Debug for Request {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Request")
            .field("method", &self.method)
            .field("url", &self.current_url().as_str())
            .field("headers", &self.headers)
            .field("body", &self.body)
            .field("mode", &self.mode)
            .field("credentials", &self.credentials_mode)
            .field("redirect", &self.redirect_mode)
            .finish_non_exhaustive()
    }
}

/// Whether `url` [includes credentials](https://url.spec.whatwg.org/#include-credentials):
/// a username or a password. (Not HTTP-network-or-cache fetch's includeCredentials, which
/// is whether a request carries credentials.)
pub(crate) fn url_includes_credentials(url: &Url) -> bool {
    !url.username().is_empty() || url.password().is_some()
}

/// [Normalize](https://fetch.spec.whatwg.org/#concept-method-normalize) a method: a
/// byte-case-insensitive match for `DELETE`, `GET`, `HEAD`, `OPTIONS`, `POST` or `PUT` is
/// uppercased; any other method is kept as given.
///
/// ```
/// use whatwg_fetch::request::normalize_method;
///
/// assert_eq!(normalize_method("post".to_owned()), "POST");
/// // Only the six standard methods are uppercased.
/// assert_eq!(normalize_method("patch".to_owned()), "patch");
/// ```
pub fn normalize_method(method: String) -> Cow<'static, str> {
    const NORMALIZED: [&str; 6] = ["DELETE", "GET", "HEAD", "OPTIONS", "POST", "PUT"];
    match NORMALIZED
        .iter()
        .find(|known| known.eq_ignore_ascii_case(&method))
    {
        Some(known) => Cow::Borrowed(known),
        None => Cow::Owned(method),
    }
}

// ----------------------------------------------------------------------------------------
// The Body mixin, shared with Response
// ----------------------------------------------------------------------------------------

/// The synchronous half of [consume body](https://fetch.spec.whatwg.org/#concept-body-consume-body):
/// the unusable check, then the body taken out so the read can run on its own.
pub(crate) fn consume_body(body: &mut Option<Body>) -> Result<Option<Body>> {
    match body.as_mut() {
        // Step 1. If object is unusable, then return a promise rejected with a TypeError.
        Some(body) if body.is_disturbed() => Err(Error::type_error("body has already been used")),
        Some(body) => body.take_stream().map(Some),
        // Step 5. If object's body is null, then run successSteps with an empty byte
        // sequence.
        None => Ok(None),
    }
}

/// The body's bytes, for the consuming methods of the Body mixin. The last URL of
/// `url_list`, when it has one, is the URL the body came from: a network error that ends
/// the read names it (an abort reason stays the very value it was). (The list is shared,
/// not copied: naming a URL no read needs copies none.)
pub(crate) async fn read_bytes(body: Result<Option<Body>>, url_list: UrlList) -> Result<Bytes> {
    let bytes = match body? {
        Some(body) => body.bytes().await,
        None => Ok(Bytes::new()),
    };
    bytes.map_err(|error| naming_url(error, url_list.last()))
}

/// `error`, the error of a body read from `url`: a network error names the URL (an abort
/// reason stays the very value it was).
fn naming_url(error: Error, url: Option<&Url>) -> Error {
    match url {
        Some(url) if error.url().is_none() && error.network_error().is_some() => {
            error.with_url(url)
        }
        _ => error,
    }
}

pub(crate) async fn read_text(body: Result<Option<Body>>, url_list: UrlList) -> Result<String> {
    Ok(crate::blob::utf8_decode(&read_bytes(body, url_list).await?))
}

/// The `json()` steps: `url`, as for [`read_bytes`], is also named by the error of a body
/// that is not JSON.
pub(crate) async fn read_json<T: serde::de::DeserializeOwned + Send + 'static>(
    body: Result<Option<Body>>,
    url_list: UrlList,
) -> Result<T> {
    // The one URL for both errors.
    let bytes = read_bytes(body, url_list.clone()).await?;
    body::parse_json_from_bytes(&bytes).map_err(|error| match url_list.last() {
        Some(url) => error.with_url(url),
        None => error,
    })
}

pub(crate) async fn read_blob(
    body: Result<Option<Body>>,
    mime_type: Option<crate::mime::MimeType>,
    url_list: UrlList,
) -> Result<Blob> {
    let bytes = read_bytes(body, url_list).await?;
    // Return a Blob whose contents are bytes and whose type attribute is the result of get
    // the MIME type with this.
    let r#type = mime_type
        .map(|mime_type| mime_type.serialize())
        .unwrap_or_default();
    Ok(Blob::with_raw_type(bytes, r#type))
}

pub(crate) async fn read_form_data(
    body: Result<Option<Body>>,
    mime_type: Option<crate::mime::MimeType>,
    url_list: UrlList,
) -> Result<FormData> {
    let bytes = read_bytes(body, url_list).await?;
    body::package_form_data(&bytes, mime_type.as_ref())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ErrorKind;

    /// A request is moved often (into and out of the fetch's futures): what it carries
    /// for the transport and its Digest credentials add one pointer each to it, no more
    /// (472 bytes with the features the tests are built with, 8 of them the transport's
    /// extensions and 8 the credentials).
    #[test]
    #[cfg(target_pointer_width = "64")]
    fn a_request_stays_within_472_bytes() {
        assert_eq!(std::mem::size_of::<http::Extensions>(), 8);
        assert_eq!(
            std::mem::size_of::<Option<Arc<crate::infra::digest::DigestCredentials>>>(),
            8
        );
        let size = std::mem::size_of::<Request>();
        assert!(size <= 472, "{size} bytes");
    }

    fn request(url: &str, init: RequestInit) -> Result<Request> {
        Request::new(url, init)
    }

    #[test]
    fn normalize_method_uppercases_only_known_methods() {
        assert_eq!(normalize_method("post".into()), "POST");
        assert_eq!(normalize_method("patch".into()), "patch");
        assert_eq!(normalize_method("GeT".into()), "GET");
    }

    #[test]
    fn a_parsed_url_is_used_as_it_is() {
        let url = Url::parse("https://example.com/a/../b?q=1#f").unwrap();
        let from_url = Request::new(&url, RequestInit::default()).unwrap();
        let from_string = request(url.as_str(), RequestInit::default()).unwrap();
        assert_eq!(from_url.url(), from_string.url());
        assert_eq!(from_url.url(), "https://example.com/b?q=1#f");
        // Relative to a browser-like environment, a parsed URL stays what it is.
        let page = Arc::new(Environment::browser(
            Url::parse("https://app.example/x/").unwrap(),
        ));
        let in_page = Request::new_in(&page, url.clone(), RequestInit::default()).unwrap();
        assert_eq!(in_page.url(), url.as_str());
        // Credentials are still refused.
        let with_credentials = Url::parse("https://user:pass@example.com/").unwrap();
        let error = Request::new(with_credentials, RequestInit::default()).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
    }

    #[test]
    fn defaults_of_a_url_request() {
        let request = request("https://example.com/a#frag", RequestInit::default()).unwrap();
        assert_eq!(request.method(), "GET");
        assert_eq!(request.url(), "https://example.com/a#frag");
        assert_eq!(request.mode(), RequestMode::Cors);
        assert_eq!(request.credentials(), RequestCredentials::SameOrigin);
        assert_eq!(request.cache(), RequestCache::Default);
        assert_eq!(request.redirect(), RequestRedirect::Follow);
        assert_eq!(request.referrer(), "about:client");
        assert_eq!(request.referrer_policy(), ReferrerPolicy::Empty);
        assert_eq!(request.destination(), RequestDestination::Empty);
        assert_eq!(request.duplex(), RequestDuplex::Half);
        assert!(!request.keepalive());
        assert!(!request.signal().aborted());
    }

    #[test]
    fn constructor_type_errors() {
        let cases: Vec<(&str, RequestInit)> = vec![
            ("not a url", RequestInit::default()),
            ("/relative", RequestInit::default()),
            ("https://user:pass@example.com/", RequestInit::default()),
            ("https://user@example.com/", RequestInit::default()),
            (
                "https://example.com/",
                RequestInit {
                    method: Some("bad method".into()),
                    ..Default::default()
                },
            ),
            (
                "https://example.com/",
                RequestInit {
                    method: Some("CONNECT".into()),
                    ..Default::default()
                },
            ),
            (
                "https://example.com/",
                RequestInit {
                    method: Some("trace".into()),
                    ..Default::default()
                },
            ),
            (
                "https://example.com/",
                RequestInit {
                    mode: Some(RequestMode::Navigate),
                    ..Default::default()
                },
            ),
            (
                "https://example.com/",
                RequestInit {
                    mode: Some(RequestMode::WebSocket),
                    ..Default::default()
                },
            ),
            (
                "https://example.com/",
                RequestInit {
                    cache: Some(RequestCache::OnlyIfCached),
                    ..Default::default()
                },
            ),
            (
                "https://example.com/",
                RequestInit {
                    body: Some("x".into()),
                    ..Default::default()
                },
            ),
            (
                "https://example.com/",
                RequestInit {
                    method: Some("HEAD".into()),
                    body: Some("x".into()),
                    ..Default::default()
                },
            ),
            (
                "https://example.com/",
                RequestInit {
                    window: Some(Some(())),
                    ..Default::default()
                },
            ),
            (
                "https://example.com/",
                RequestInit {
                    referrer: Some("http://[".into()),
                    ..Default::default()
                },
            ),
            (
                "https://example.com/",
                RequestInit {
                    mode: Some(RequestMode::NoCors),
                    method: Some("PUT".into()),
                    ..Default::default()
                },
            ),
            (
                "https://example.com/",
                RequestInit {
                    method: Some("POST".into()),
                    body: Some(BodyInit::stream(
                        futures_util::stream::empty::<Result<Bytes>>(),
                    )),
                    ..Default::default()
                },
            ),
            (
                "https://example.com/",
                RequestInit {
                    method: Some("POST".into()),
                    mode: Some(RequestMode::NoCors),
                    duplex: Some(RequestDuplex::Half),
                    body: Some(BodyInit::stream(
                        futures_util::stream::empty::<Result<Bytes>>(),
                    )),
                    ..Default::default()
                },
            ),
            (
                "https://example.com/",
                RequestInit {
                    method: Some("POST".into()),
                    keepalive: Some(true),
                    duplex: Some(RequestDuplex::Half),
                    body: Some(BodyInit::stream(
                        futures_util::stream::empty::<Result<Bytes>>(),
                    )),
                    ..Default::default()
                },
            ),
        ];
        for (index, (url, init)) in cases.into_iter().enumerate() {
            let error = request(url, init).expect_err(&format!("case {index} ({url}) should fail"));
            assert_eq!(error.kind(), ErrorKind::TypeError, "case {index}: {error}");
        }
    }

    #[test]
    fn only_if_cached_with_same_origin_is_allowed() {
        let init = RequestInit {
            cache: Some(RequestCache::OnlyIfCached),
            mode: Some(RequestMode::SameOrigin),
            ..Default::default()
        };
        assert!(request("https://example.com/", init).is_ok());
    }

    #[test]
    fn stream_body_with_duplex_sets_the_preflight_flag() {
        let init = RequestInit {
            method: Some("POST".into()),
            duplex: Some(RequestDuplex::Half),
            body: Some(BodyInit::stream(
                futures_util::stream::empty::<Result<Bytes>>(),
            )),
            ..Default::default()
        };
        let request = request("https://example.com/", init).unwrap();
        assert!(request.use_cors_preflight);
        assert!(request.headers().get("content-type").unwrap().is_none());
    }

    #[test]
    fn null_window_and_null_body_are_allowed() {
        let init = RequestInit {
            window: Some(None),
            body: Some(BodyInit::Null),
            ..Default::default()
        };
        let request = request("https://example.com/", init).unwrap();
        assert!(request.no_traversable);
        assert!(request.body.is_none());
    }

    #[test]
    fn referrer_rules() {
        let empty = request(
            "https://a.example/",
            RequestInit {
                referrer: Some(String::new()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(empty.referrer(), "");
        let client = request(
            "https://a.example/",
            RequestInit {
                referrer: Some("about:client".into()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(client.referrer(), "about:client");
        // Server-side: no origin to compare with, the URL is kept.
        let url = request(
            "https://a.example/",
            RequestInit {
                referrer: Some("https://b.example/page".into()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(url.referrer(), "https://b.example/page");
        // Browser-like: a cross-origin referrer falls back to the client.
        let page = Arc::new(Environment::browser(
            Url::parse("https://a.example/index.html").unwrap(),
        ));
        let cross = Request::new_in(
            &page,
            "/x",
            RequestInit {
                referrer: Some("https://b.example/page".into()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(cross.referrer(), "about:client");
        let same = Request::new_in(
            &page,
            "/x",
            RequestInit {
                referrer: Some("/from".into()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(same.referrer(), "https://a.example/from");
        assert_eq!(same.url(), "https://a.example/x");
    }

    #[tokio::test]
    async fn body_sets_content_type_and_reads_once() {
        let mut request = request(
            "https://example.com/",
            RequestInit {
                method: Some("POST".into()),
                body: Some("hi".into()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(
            request.headers().get("content-type").unwrap().as_deref(),
            Some("text/plain;charset=UTF-8")
        );
        assert!(!request.body_used());
        let text = request.text();
        assert!(request.body_used(), "used as soon as text() is called");
        assert_eq!(text.await.unwrap(), "hi");
        assert_eq!(
            request.text().await.unwrap_err().kind(),
            ErrorKind::TypeError
        );
        assert_eq!(
            request.try_clone().unwrap_err().kind(),
            ErrorKind::TypeError
        );
    }

    #[tokio::test]
    async fn explicit_content_type_is_kept() {
        let headers = HeadersInit::from(vec![("Content-Type", "application/x-thing")]);
        let mut request = request(
            "https://example.com/",
            RequestInit {
                method: Some("POST".into()),
                headers: Some(headers),
                body: Some("hi".into()),
                ..Default::default()
            },
        )
        .unwrap();
        assert_eq!(
            request.headers().get("content-type").unwrap().as_deref(),
            Some("application/x-thing")
        );
        let blob = request.blob().await.unwrap();
        assert_eq!(blob.r#type(), "application/x-thing");
    }

    #[tokio::test]
    async fn request_from_request_takes_the_body() {
        let mut input = request(
            "https://example.com/",
            RequestInit {
                method: Some("POST".into()),
                body: Some("payload".into()),
                ..Default::default()
            },
        )
        .unwrap();
        let environment = Arc::new(Environment::server());
        let mut copy =
            Request::from_request_in(&environment, &mut input, RequestInit::default()).unwrap();
        assert!(input.body_used());
        assert_eq!(copy.method(), "POST");
        assert_eq!(copy.text().await.unwrap(), "payload");
        // A used input cannot be copied again.
        let error =
            Request::from_request_in(&environment, &mut input, RequestInit::default()).unwrap_err();
        assert_eq!(error.kind(), ErrorKind::TypeError);
        // Unless the init brings its own body.
        let init = RequestInit {
            body: Some("other".into()),
            ..Default::default()
        };
        let mut replaced = Request::from_request_in(&environment, &mut input, init).unwrap();
        assert_eq!(replaced.text().await.unwrap(), "other");
    }

    #[test]
    fn non_empty_init_resets_navigation_state() {
        let mut input = request("https://example.com/", RequestInit::default()).unwrap();
        input.mode = RequestMode::Navigate;
        input.reload_navigation = true;
        let environment = Arc::new(Environment::server());
        let copy =
            Request::from_request_in(&environment, &mut input, RequestInit::default()).unwrap();
        assert_eq!(copy.mode(), RequestMode::Navigate);
        assert!(copy.is_reload_navigation());
        let init = RequestInit {
            cache: Some(RequestCache::NoStore),
            ..Default::default()
        };
        let copy = Request::from_request_in(&environment, &mut input, init).unwrap();
        assert_eq!(copy.mode(), RequestMode::SameOrigin);
        assert!(!copy.is_reload_navigation());
    }

    #[tokio::test]
    async fn clone_tees_the_body() {
        let mut request = request(
            "https://example.com/",
            RequestInit {
                method: Some("PUT".into()),
                body: Some("data".into()),
                ..Default::default()
            },
        )
        .unwrap();
        let mut clone = request.try_clone().unwrap();
        assert_eq!(clone.text().await.unwrap(), "data");
        assert_eq!(request.text().await.unwrap(), "data");
    }

    #[test]
    fn signal_follows_the_input_and_the_init() {
        let controller = crate::abort::AbortController::new();
        let mut input = request(
            "https://example.com/",
            RequestInit {
                signal: Some(controller.signal()),
                ..Default::default()
            },
        )
        .unwrap();
        let environment = Arc::new(Environment::server());
        let copy =
            Request::from_request_in(&environment, &mut input, RequestInit::default()).unwrap();
        let clone = input.try_clone().unwrap();
        controller.abort(None);
        assert!(input.signal().aborted());
        assert!(copy.signal().aborted());
        assert!(clone.signal().aborted());
        assert_eq!(
            copy.signal().reason().map(|reason| reason.kind()),
            Some(ErrorKind::AbortError)
        );
    }

    #[test]
    fn browser_like_requests_drop_forbidden_headers() {
        let init = || RequestInit {
            headers: Some(HeadersInit::from(vec![
                ("Host", "evil.example"),
                ("X-Ok", "1"),
            ])),
            ..Default::default()
        };
        let server = request("https://example.com/", init()).unwrap();
        assert!(server.headers().has("host").unwrap());
        let page = Arc::new(Environment::browser(
            Url::parse("https://example.com/").unwrap(),
        ));
        let browser = Request::new_in(&page, "/", init()).unwrap();
        assert!(!browser.headers().has("host").unwrap());
        assert!(browser.headers().has("x-ok").unwrap());
    }

    #[test]
    fn no_cors_guard_keeps_only_safelisted_headers() {
        let init = RequestInit {
            mode: Some(RequestMode::NoCors),
            headers: Some(HeadersInit::from(vec![
                ("Accept", "text/html"),
                ("X-Custom", "1"),
            ])),
            ..Default::default()
        };
        let request = request("https://example.com/", init).unwrap();
        assert!(request.headers().has("accept").unwrap());
        assert!(!request.headers().has("x-custom").unwrap());
    }

    #[test]
    fn idl_enums_parse_their_strings() {
        assert_eq!(
            "no-cors".parse::<RequestMode>().unwrap(),
            RequestMode::NoCors
        );
        assert_eq!("".parse::<ReferrerPolicy>().unwrap(), ReferrerPolicy::Empty);
        assert_eq!(
            "bogus".parse::<RequestCache>().unwrap_err().kind(),
            ErrorKind::TypeError
        );
        assert_eq!(RequestRedirect::Manual.to_string(), "manual");
    }

    #[test]
    fn request_is_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<Request>();
        assert_send_sync::<RequestInit>();
    }
}
