//! [`RequestBuilder`]: a request put together call by call, as reqwest's is, then fetched by
//! the one fetch algorithm.
//!
//! `client.post(url).bearer_auth(token).json(&value).send().await?` builds the same
//! [`RequestInit`] a caller would write out, makes the [`Request`] with the spec's
//! constructor ([`Request::new_in`], in the client's environment) and fetches it with
//! [`Client::fetch_request`]: there is no second path, so every rule of the standard (the
//! guards on headers, the body's type, CORS, redirects, the cache) holds for a builder's
//! request as it does for `fetch(url, init)`.
//!
//! A builder never fails halfway: a header that is not valid or a value that does not
//! serialize is kept as the builder's error, and [`send`](RequestBuilder::send) or
//! [`build`](RequestBuilder::build) returns it, with what was wrong and where.
//!
//! ```no_run
//! # async fn run() -> Result<(), whatwg_fetch::Error> {
//! use whatwg_fetch::Client;
//!
//! #[derive(serde::Deserialize)]
//! struct Created {
//!     id: u64,
//! }
//!
//! let client = Client::builder().build()?;
//! let created: Created = client
//!     .post("https://api.example.com/items")
//!     .bearer_auth("secret-token")
//!     .query(&[("dry_run", "false")])
//!     .json(&serde_json::json!({ "name": "first" }))
//!     .send()
//!     .await?
//!     .error_for_status()?
//!     .json()
//!     .await?;
//! println!("created {}", created.id);
//! # Ok(())
//! # }
//! ```

use std::fmt;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::Duration;

use http::header::{AUTHORIZATION, CONTENT_TYPE};
use http::{HeaderMap, HeaderName, HeaderValue, Method};
use serde::Serialize;

use crate::abort::AbortSignal;
use crate::blob::Blob;
use crate::body::{Body, BodyInit};
use crate::client::Client;
use crate::error::{Error, Result};
use crate::form_data::{self, MultipartBody};
use crate::infra::digest::DigestCredentials;
use crate::multipart::Form;
use crate::net::{Proxy, Route};
use crate::request::{
    ReferrerPolicy, Request, RequestCache, RequestCredentials, RequestDuplex, RequestInfo,
    RequestInit, RequestMode, RequestPriority, RequestRedirect,
};
use crate::response::Response;

/// A request being put together for a [`Client`]: from [`Client::get`], [`Client::post`],
/// [`Client::request`] and the other methods named after HTTP's, with reqwest's names for
/// each step, then [`send`](Self::send).
///
/// The first error (a header that is not valid, a query or body that does not serialize)
/// is kept and returned by [`send`](Self::send) and [`build`](Self::build); the calls after
/// it change nothing.
///
/// ```no_run
/// # async fn run() -> Result<(), whatwg_fetch::Error> {
/// use std::time::Duration;
/// use whatwg_fetch::Client;
///
/// let client = Client::builder().build()?;
/// let text = client
///     .get("https://example.com/search")
///     .query(&[("q", "fetch standard"), ("page", "2")])
///     .header("accept-language", "en")
///     .timeout(Duration::from_secs(10))
///     .send()
///     .await?
///     .text()
///     .await?;
/// # Ok(())
/// # }
/// ```
#[must_use = "a RequestBuilder does nothing until it is sent"]
pub struct RequestBuilder {
    client: Client,
    method: Method,
    input: RequestInfo,
    /// What the calls after the first set, made by the first that sets anything (a plain
    /// `client.get(url).send()` makes none: no allocation, and a builder small enough to
    /// be made where it is awaited); or the first error a call kept.
    parts: Result<Option<Box<Parts>>>,
}

/// What a builder holds, besides its method and URL, until it is sent.
#[derive(Default)]
struct Parts {
    init: RequestInit,
    /// The header list, in the order given (`RequestInit::headers`' record form).
    headers: Vec<(Vec<u8>, Vec<u8>)>,
    /// `query`'s pairs, `&`-joined and form-encoded, for the URL's query.
    query: String,
    /// Overrides the client's total timeout for this request.
    timeout: Option<Duration>,
    /// The HTTP version the request must go over.
    version: Option<http::Version>,
    /// Whether the body waits for a `100 Continue`, overriding the client.
    expect_continue: Option<Option<Duration>>,
    /// The request's own proxy and resolve overrides, over the client's.
    route: Option<Route>,
    /// The credentials that answer a `Digest` challenge.
    digest: Option<Arc<DigestCredentials>>,
}

impl RequestBuilder {
    /// A builder of a request with `method` to `input`, for `client`.
    #[inline]
    pub(crate) fn new(client: Client, method: Method, input: RequestInfo) -> RequestBuilder {
        RequestBuilder {
            client,
            method,
            input,
            parts: Ok(None),
        }
    }

    /// Applies `f` to the parts, unless an error was kept already; an error `f` returns is
    /// kept.
    fn with(mut self, f: impl FnOnce(&mut Parts) -> Result<()>) -> RequestBuilder {
        if let Ok(parts) = &mut self.parts {
            if let Err(error) = f(parts.get_or_insert_with(Box::default)) {
                self.parts = Err(error);
            }
        }
        self
    }

    /// Appends a header, as [`Headers::append`](crate::Headers::append) does: a second
    /// value of a name is added to the first, not put in its place. The names and values
    /// `http` takes: `&str`, `String`, [`HeaderName`] and [`HeaderValue`], the constants
    /// of [`header`](crate::header).
    ///
    /// The request's guard still applies when it is made: a browser-like client drops the
    /// [forbidden request-headers](https://fetch.spec.whatwg.org/#forbidden-request-header)
    /// (`Host`, `Cookie`, …), as a browser does; a server-side one sends them.
    ///
    /// ```
    /// # let client = whatwg_fetch::Client::builder().build().unwrap();
    /// use whatwg_fetch::header::{ACCEPT, HeaderValue};
    ///
    /// let request = client
    ///     .get("https://example.com/")
    ///     .header(ACCEPT, HeaderValue::from_static("application/json"))
    ///     .header("x-trace", "1")
    ///     .build()?;
    /// assert_eq!(request.headers().get("accept")?.as_deref(), Some("application/json"));
    ///
    /// // An invalid name is kept as the builder's error.
    /// let error = client.get("https://example.com/").header("bad name", "1").build();
    /// assert!(error.unwrap_err().to_string().contains("bad name"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn header<K, V>(self, name: K, value: V) -> RequestBuilder
    where
        HeaderName: TryFrom<K>,
        <HeaderName as TryFrom<K>>::Error: Into<http::Error>,
        HeaderValue: TryFrom<V>,
        <HeaderValue as TryFrom<V>>::Error: Into<http::Error>,
        K: fmt::Debug + Clone,
    {
        let shown = name.clone();
        self.with(|parts| {
            let name = HeaderName::try_from(name).map_err(|error| {
                Error::type_error(format!("invalid header name {shown:?}: {}", error.into()))
            })?;
            let value = HeaderValue::try_from(value).map_err(|error| {
                Error::type_error(format!(
                    "invalid value for header {}: {}",
                    name.as_str(),
                    error.into()
                ))
            })?;
            parts
                .headers
                .push((name.as_str().as_bytes().to_vec(), value.as_bytes().to_vec()));
            Ok(())
        })
    }

    /// Sets the headers of `headers`: each name they hold replaces the values of that name
    /// given before, and all of its values are kept (reqwest's `headers` does the same).
    ///
    /// ```
    /// # let client = whatwg_fetch::Client::builder().build().unwrap();
    /// use whatwg_fetch::header::{HeaderMap, USER_AGENT};
    ///
    /// let mut headers = HeaderMap::new();
    /// headers.insert(USER_AGENT, "my-app/1.0".parse().unwrap());
    /// let request = client
    ///     .get("https://example.com/")
    ///     .header("user-agent", "replaced")
    ///     .headers(headers)
    ///     .build()?;
    /// assert_eq!(request.headers().get("user-agent")?.as_deref(), Some("my-app/1.0"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn headers(self, headers: HeaderMap) -> RequestBuilder {
        self.with(|parts| {
            parts.headers.retain(|(name, _)| {
                std::str::from_utf8(name).map_or(true, |name| !headers.contains_key(name))
            });
            for (name, value) in &headers {
                parts
                    .headers
                    .push((name.as_str().as_bytes().to_vec(), value.as_bytes().to_vec()));
            }
            Ok(())
        })
    }

    /// Sets `Authorization: Basic …` (RFC 7617) from `username` and an optional
    /// `password`, replacing any `Authorization` set before.
    ///
    /// ```
    /// # let client = whatwg_fetch::Client::builder().build().unwrap();
    /// let request = client
    ///     .get("https://example.com/")
    ///     .basic_auth("aladdin", Some("opensesame"))
    ///     .build()?;
    /// assert_eq!(
    ///     request.headers().get("authorization")?.as_deref(),
    ///     Some("Basic YWxhZGRpbjpvcGVuc2VzYW1l")
    /// );
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn basic_auth<U, P>(self, username: U, password: Option<P>) -> RequestBuilder
    where
        U: fmt::Display,
        P: fmt::Display,
    {
        let credentials = match password {
            Some(password) => format!("{username}:{password}"),
            None => format!("{username}:"),
        };
        let value = format!(
            "Basic {}",
            crate::infra::forgiving_base64_encode(credentials.as_bytes())
        );
        self.authorization(value)
    }

    /// Sets `Authorization: Bearer <token>` (RFC 6750), replacing any `Authorization` set
    /// before.
    ///
    /// ```
    /// # let client = whatwg_fetch::Client::builder().build().unwrap();
    /// let request = client.get("https://example.com/").bearer_auth("abc").build()?;
    /// assert_eq!(request.headers().get("authorization")?.as_deref(), Some("Bearer abc"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn bearer_auth<T: fmt::Display>(self, token: T) -> RequestBuilder {
        self.authorization(format!("Bearer {token}"))
    }

    /// Answers a `401` whose `WWW-Authenticate` offers HTTP Digest authentication
    /// ([RFC 7616](https://www.rfc-editor.org/rfc/rfc7616)) with `username` and
    /// `password`, as curl's `--digest` does; replaces any `Authorization` set before.
    ///
    /// The request goes out without credentials. When the server's `401` offers a
    /// `Digest` challenge, the strongest this client knows (SHA-512-256, then SHA-256,
    /// then MD5, each also `-sess`), the request is sent again with its answer, once (and
    /// once more if that one is answered `stale=true`): a `401` after that is the
    /// response. `qop=auth-int` is answered for a body in memory, `auth` otherwise;
    /// `userhash=true` sends the username hashed. The client keeps the challenge (its
    /// [authentication entries](https://fetch.spec.whatwg.org/#authentication-entries),
    /// at most 64, per origin, realm and credentials), so the next request to the same
    /// origin with the same credentials answers it before being asked, with the next
    /// `nc`.
    ///
    /// - **Basic**: a `401` that offers only `Basic` (or another scheme) is returned as
    ///   it is: the password is never sent in the clear unless
    ///   [`basic_auth`](Self::basic_auth) says so.
    /// - **Redirects**: the credentials are for the request's URL's origin only. A
    ///   redirect to another origin drops them, as it drops `Authorization`; a `401`
    ///   there is returned.
    /// - **Bodies**: a body that cannot be sent twice (a stream) is not sent again: the
    ///   `401` is returned.
    /// - **Credentials mode**: with `credentials: "omit"`, or a cross-origin request of
    ///   a browser-like client not in `"include"`, nothing is answered.
    ///
    /// A proxy's credentials are the [`Proxy`]'s (Basic). See
    /// `examples/digest_auth.rs` for a whole exchange with a server.
    ///
    /// ```
    /// # let client = whatwg_fetch::Client::builder().build().unwrap();
    /// let request = client
    ///     .get("https://example.com/private")
    ///     .bearer_auth("replaced")
    ///     .digest_auth("Mufasa", "Circle of Life")
    ///     .build()?;
    /// // Nothing is sent before the server asks.
    /// assert_eq!(request.headers().get("authorization")?, None);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn digest_auth<U, P>(self, username: U, password: P) -> RequestBuilder
    where
        U: fmt::Display,
        P: fmt::Display,
    {
        let credentials = DigestCredentials {
            username: username.to_string(),
            password: password.to_string(),
        };
        self.with(|parts| {
            parts
                .headers
                .retain(|(name, _)| !name.eq_ignore_ascii_case(b"authorization"));
            parts.digest = Some(Arc::new(credentials));
            Ok(())
        })
    }

    fn authorization(self, value: String) -> RequestBuilder {
        self.with(|parts| {
            // By its bytes, as a header value of Fetch: UTF-8 past ASCII is kept as sent,
            // where `HeaderValue`'s string conversions (http 1.6) refuse it.
            HeaderValue::from_bytes(value.as_bytes()).map_err(|_| {
                Error::type_error(
                    "invalid Authorization credentials: not a valid header value (a control \
                     character, such as a newline)",
                )
            })?;
            parts.digest = None;
            parts
                .headers
                .retain(|(name, _)| !name.eq_ignore_ascii_case(b"authorization"));
            parts.headers.push((
                AUTHORIZATION.as_str().as_bytes().to_vec(),
                value.into_bytes(),
            ));
            Ok(())
        })
    }

    /// Sets the body: anything a [`BodyInit`] is made from (`&str`, `String`, `Vec<u8>`,
    /// [`Bytes`](bytes::Bytes), [`Blob`], [`FormData`](crate::FormData), a stream by
    /// [`BodyInit::stream`]). Its type goes in `Content-Type` unless the request has one, as
    /// the spec's "extract a body" says (`text/plain;charset=UTF-8` for text).
    ///
    /// ```
    /// # let client = whatwg_fetch::Client::builder().build().unwrap();
    /// let request = client.post("https://example.com/notes").body("hello").build()?;
    /// assert_eq!(
    ///     request.headers().get("content-type")?.as_deref(),
    ///     Some("text/plain;charset=UTF-8")
    /// );
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn body(self, body: impl Into<BodyInit>) -> RequestBuilder {
        let body = body.into();
        self.with(|parts| {
            if body.has_null_source() && parts.init.duplex.is_none() {
                // A stream body (or a form holding a `StreamedFile`, which is one) needs
                // `duplex: "half"`, the only value there is.
                parts.init.duplex = Some(RequestDuplex::Half);
            }
            parts.init.body = Some(body);
            Ok(())
        })
    }

    /// Sets the body to `value` serialized as JSON, with `Content-Type: application/json`
    /// unless the request has a `Content-Type` already.
    ///
    /// # Errors
    /// Kept for [`send`](Self::send): a `TypeError` when `value` does not serialize (a map
    /// whose keys are not strings, a `Serialize` that fails), with serde's reason.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let client = whatwg_fetch::Client::builder().build().unwrap();
    /// let mut request = client
    ///     .post("https://example.com/items")
    ///     .json(&serde_json::json!({ "name": "first" }))
    ///     .build()?;
    /// assert_eq!(request.headers().get("content-type")?.as_deref(), Some("application/json"));
    /// assert_eq!(request.text().await?, r#"{"name":"first"}"#);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn json<T: Serialize + ?Sized>(self, value: &T) -> RequestBuilder {
        self.with(|parts| {
            let body = serde_json::to_vec(value).map_err(|error| {
                Error::type_error("the JSON body does not serialize").with_detail(error.to_string())
            })?;
            parts.set_default_content_type("application/json");
            parts.init.body = Some(BodyInit::from(body));
            Ok(())
        })
    }

    /// Sets the body to `value` serialized as a form (`application/x-www-form-urlencoded`,
    /// by `serde_urlencoded`), with that `Content-Type` unless the request has one.
    ///
    /// # Errors
    /// Kept for [`send`](Self::send): a `TypeError` when `value` does not serialize as a
    /// form (a sequence of pairs or a struct of plain values), with the reason.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let client = whatwg_fetch::Client::builder().build().unwrap();
    /// let mut request = client
    ///     .post("https://example.com/login")
    ///     .form(&[("user", "ada"), ("note", "a&b")])
    ///     .build()?;
    /// assert_eq!(request.text().await?, "user=ada&note=a%26b");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn form<T: Serialize + ?Sized>(self, value: &T) -> RequestBuilder {
        self.with(|parts| {
            let body = serde_urlencoded::to_string(value).map_err(|error| {
                Error::type_error("the form body does not serialize").with_detail(error.to_string())
            })?;
            parts.set_default_content_type("application/x-www-form-urlencoded");
            parts.init.body = Some(BodyInit::from(body.into_bytes()));
            Ok(())
        })
    }

    /// Sets the body to `form` as `multipart/form-data` (HTML's encoding, as a
    /// [`FormData`](crate::FormData) body), with `Content-Type: multipart/form-data;
    /// boundary=` and the form's [`boundary`](Form::boundary) unless the request has a
    /// `Content-Type`. A [`multipart::Form`](crate::multipart::Form) is sent with its own
    /// boundary; a `FormData` becomes one, with a fresh boundary.
    ///
    /// The body can be sent again (after a 307 or 308, by a retry) unless the form holds a
    /// part read from a stream ([`StreamedFile`](crate::form_data::StreamedFile),
    /// [`Part::stream`](crate::multipart::Part::stream)), which is read once; it has a
    /// `Content-Length` when every part's length is known, and is sent chunked otherwise.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let client = whatwg_fetch::Client::builder().build().unwrap();
    /// use whatwg_fetch::FormData;
    /// use whatwg_fetch::multipart::Form;
    ///
    /// let form = Form::new().text("title", "a report");
    /// let expected = format!("multipart/form-data; boundary={}", form.boundary());
    /// let request = client.post("https://example.com/upload").multipart(form).build()?;
    /// assert_eq!(request.headers().get("content-type")?.as_deref(), Some(expected.as_str()));
    ///
    /// // A `FormData` is sent the same way.
    /// let mut form = FormData::new();
    /// form.append("title", "a report");
    /// let mut request = client.post("https://example.com/upload").multipart(form).build()?;
    /// let content_type = request.headers().get("content-type")?.unwrap_or_default();
    /// assert!(content_type.starts_with("multipart/form-data; boundary="));
    /// assert!(request.text().await?.contains("\r\n\r\na report\r\n"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn multipart(self, form: impl Into<Form>) -> RequestBuilder {
        let (boundary, form) = form.into().into_parts();
        let body = match form_data::multipart_form_data_body(&form, &boundary) {
            // The payload, in memory or in part in files on disk, read again if needed: an
            // untyped blob, so that the `Content-Type` below is the one sent.
            MultipartBody::Bytes(bytes) => BodyInit::Blob(Blob::from_blob_bytes(bytes)),
            // A form holding a reader: a stream body, of the payload's length if known, as
            // extracting a `FormData` that holds one makes it.
            MultipartBody::Stream { stream, length } => {
                BodyInit::Stream(Body::from_chunks(stream, length))
            }
        };
        self.body(body).with(|parts| {
            parts.set_default_content_type(&format!("multipart/form-data; boundary={boundary}"));
            Ok(())
        })
    }

    /// Appends `query`, serialized as a form (`serde_urlencoded`: a sequence of pairs, a map
    /// or a struct), to the URL's query, after what the URL has already.
    ///
    /// # Errors
    /// Kept for [`send`](Self::send): a `TypeError` when `query` does not serialize, with
    /// the reason.
    ///
    /// ```
    /// # let client = whatwg_fetch::Client::builder().build().unwrap();
    /// let request = client
    ///     .get("https://example.com/search?lang=en")
    ///     .query(&[("q", "a b"), ("page", "2")])
    ///     .build()?;
    /// assert_eq!(request.url(), "https://example.com/search?lang=en&q=a+b&page=2");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn query<T: Serialize + ?Sized>(self, query: &T) -> RequestBuilder {
        self.with(|parts| {
            let encoded = serde_urlencoded::to_string(query).map_err(|error| {
                Error::type_error("the query does not serialize").with_detail(error.to_string())
            })?;
            if !encoded.is_empty() {
                if !parts.query.is_empty() {
                    parts.query.push('&');
                }
                parts.query.push_str(&encoded);
            }
            Ok(())
        })
    }

    /// A total timeout for this request alone, in place of the client's
    /// [`timeout`](crate::ClientBuilder::timeout): from the start of the fetch until the
    /// response's body has been read. Past it, the fetch, or the read of the body, fails
    /// with [`NetworkError::Timeout`](crate::NetworkError::Timeout) of kind
    /// [`Total`](crate::TimeoutKind::Total) (see [`Error::is_timeout`]).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), whatwg_fetch::Error> {
    /// use std::time::Duration;
    /// # let client = whatwg_fetch::Client::builder().build()?;
    /// let response = client
    ///     .get("https://example.com/slow")
    ///     .timeout(Duration::from_millis(500))
    ///     .send()
    ///     .await;
    /// if let Err(error) = &response {
    ///     assert!(error.is_timeout());
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn timeout(self, timeout: Duration) -> RequestBuilder {
        self.with(|parts| {
            parts.timeout = Some(timeout);
            Ok(())
        })
    }

    /// A signal that aborts the request at any stage, with the signal's reason
    /// (`RequestInit::signal`).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::{AbortController, Client};
    ///
    /// let controller = AbortController::new();
    /// let request = Client::new().get("data:,never sent").signal(controller.signal());
    /// // Aborted before it is sent (as by another task, a user's cancel): it fails with the
    /// // signal's reason, an `AbortError` unless another is given.
    /// controller.abort(None);
    /// let error = request.send().await.unwrap_err();
    /// assert!(error.is_abort());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn signal(self, signal: AbortSignal) -> RequestBuilder {
        self.with(|parts| {
            parts.init.signal = Some(signal);
            Ok(())
        })
    }

    /// The request's [mode](https://fetch.spec.whatwg.org/#concept-request-mode)
    /// (`RequestInit::mode`): `cors` by default, `no-cors`, `same-origin`.
    ///
    /// ```
    /// use whatwg_fetch::{Client, RequestMode};
    ///
    /// let client = Client::new();
    /// let request = client.get("https://cdn.example/logo.png").mode(RequestMode::NoCors).build()?;
    /// assert_eq!(request.mode(), RequestMode::NoCors);
    /// // `no-cors` takes only the CORS-safelisted methods: a `PUT` is refused as `new Request` refuses it.
    /// assert!(client.put("https://cdn.example/logo.png").mode(RequestMode::NoCors).build().is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn mode(self, mode: RequestMode) -> RequestBuilder {
        self.with(|parts| {
            parts.init.mode = Some(mode);
            Ok(())
        })
    }

    /// The request's credentials mode (`RequestInit::credentials`): whether cookies and
    /// HTTP authentication go with it.
    ///
    /// ```
    /// use whatwg_fetch::{Client, RequestCredentials};
    ///
    /// let client = Client::new();
    /// // No cookies and no HTTP authentication with this one.
    /// let request = client.get("https://api.example/items").credentials(RequestCredentials::Omit).build()?;
    /// assert_eq!(request.credentials(), RequestCredentials::Omit);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn credentials(self, credentials: RequestCredentials) -> RequestBuilder {
        self.with(|parts| {
            parts.init.credentials = Some(credentials);
            Ok(())
        })
    }

    /// The request's cache mode (`RequestInit::cache`), for a client with an HTTP cache.
    ///
    /// ```
    /// use whatwg_fetch::{Client, RequestCache, RequestMode};
    ///
    /// let client = Client::builder().http_cache(true).build()?;
    /// // Revalidated with the server even when the cached response is fresh.
    /// let request = client.get("https://api.example/items").cache(RequestCache::NoCache).build()?;
    /// assert_eq!(request.cache(), RequestCache::NoCache);
    /// // `only-if-cached` needs a `same-origin` request, as the standard says.
    /// assert!(client.get("https://api.example/items").cache(RequestCache::OnlyIfCached).build().is_err());
    /// let cached_only = client
    ///     .get("https://api.example/items")
    ///     .cache(RequestCache::OnlyIfCached)
    ///     .mode(RequestMode::SameOrigin)
    ///     .build()?;
    /// # let _ = cached_only;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn cache(self, cache: RequestCache) -> RequestBuilder {
        self.with(|parts| {
            parts.init.cache = Some(cache);
            Ok(())
        })
    }

    /// The request's redirect mode (`RequestInit::redirect`): `follow` (the default),
    /// `error` or `manual`.
    ///
    /// ```
    /// use whatwg_fetch::{Client, RequestRedirect};
    ///
    /// let client = Client::new();
    /// // A redirect comes back as the response, for the caller to follow or not.
    /// let request = client.get("https://api.example/items").redirect(RequestRedirect::Manual).build()?;
    /// assert_eq!(request.redirect(), RequestRedirect::Manual);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn redirect(self, redirect: RequestRedirect) -> RequestBuilder {
        self.with(|parts| {
            parts.init.redirect = Some(redirect);
            Ok(())
        })
    }

    /// The request's referrer (`RequestInit::referrer`): a same-origin URL,
    /// `"about:client"`, or `""` for none.
    ///
    /// ```
    /// use whatwg_fetch::{Client, RequestCredentials};
    ///
    /// let client = Client::new();
    /// // No `Referer` at all.
    /// let request = client.get("https://api.example/items").referrer("").build()?;
    /// assert_eq!(request.referrer(), "");
    /// # let _ = RequestCredentials::Omit;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn referrer(self, referrer: impl Into<String>) -> RequestBuilder {
        let referrer = referrer.into();
        self.with(|parts| {
            parts.init.referrer = Some(referrer);
            Ok(())
        })
    }

    /// The request's referrer policy (`RequestInit::referrerPolicy`).
    ///
    /// ```
    /// use whatwg_fetch::{Client, ReferrerPolicy};
    ///
    /// let client = Client::new();
    /// let request = client.get("https://api.example/items").referrer_policy(ReferrerPolicy::StrictOrigin).build()?;
    /// assert_eq!(request.referrer_policy(), ReferrerPolicy::StrictOrigin);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn referrer_policy(self, policy: ReferrerPolicy) -> RequestBuilder {
        self.with(|parts| {
            parts.init.referrer_policy = Some(policy);
            Ok(())
        })
    }

    /// Subresource Integrity metadata the response's body must match
    /// (`RequestInit::integrity`), such as `sha256-…`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::new();
    /// // The SHA-256 of "hello", base64: the body is checked before it is given.
    /// let sri = "sha256-LPJNul+wow4m6DsqxbninhsWHlwfp0JecwQzYpOLmCQ=";
    /// let mut response = client.get("data:,hello").integrity(sri).send().await?;
    /// assert_eq!(response.text().await?, "hello");
    /// // Another body fails the fetch: a network error, not the bytes.
    /// assert!(client.get("data:,tampered").integrity(sri).send().await.is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn integrity(self, integrity: impl Into<String>) -> RequestBuilder {
        let integrity = integrity.into();
        self.with(|parts| {
            parts.init.integrity = Some(integrity);
            Ok(())
        })
    }

    /// Whether the request may outlive its environment (`RequestInit::keepalive`).
    ///
    /// ```
    /// use whatwg_fetch::{Client, RequestCredentials};
    ///
    /// let client = Client::new();
    /// // A beacon that may outlive what sent it (its body is held to 64 KiB).
    /// let request = client.get("https://api.example/items").keepalive(true).build()?;
    /// assert!(request.keepalive());
    /// # let _ = RequestCredentials::Omit;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn keepalive(self, keepalive: bool) -> RequestBuilder {
        self.with(|parts| {
            parts.init.keepalive = Some(keepalive);
            Ok(())
        })
    }

    /// The request's priority hint (`RequestInit::priority`).
    ///
    /// ```
    /// use whatwg_fetch::{Client, RequestPriority};
    ///
    /// let client = Client::new();
    /// let request = client.get("https://api.example/items").priority(RequestPriority::Low).build()?;
    /// assert_eq!(request.priority(), RequestPriority::Low);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn priority(self, priority: RequestPriority) -> RequestBuilder {
        self.with(|parts| {
            parts.init.priority = Some(priority);
            Ok(())
        })
    }

    /// The HTTP version to send the request over, as reqwest's `version` sets it, for
    /// this request and each it is redirected to; by default the connection's (ALPN's
    /// choice, prior knowledge, or HTTP/3 once an origin announced it):
    /// - `Version::HTTP_3`: over HTTP/3 alone, as
    ///   [`http3_prior_knowledge`][http3_prior_knowledge] would for every request. It needs the `http3` feature and an `https:` URL reached directly
    ///   (HTTP/3 goes through no proxy); a server that does not answer over QUIC fails the
    ///   request, nothing falling back to TCP.
    /// - `Version::HTTP_2`: over HTTP/2 alone. A connection that speaks HTTP/1.1 (ALPN's
    ///   choice, or plain `http:` without
    ///   [`http2_prior_knowledge`](crate::ClientBuilder::http2_prior_knowledge)) fails the
    ///   request before it is sent.
    /// - `Version::HTTP_11`: over HTTP/1.1, as
    ///   [`http1_only`](crate::ClientBuilder::http1_only) would for every request.
    ///
    /// A request that goes somewhere else than the network (the cache, `data:`) is
    /// answered as ever; [`Response::version`](crate::Response::version) says what a
    /// response came over. [`build`](Self::build) keeps the version in the request.
    ///
    /// # Errors
    /// [`send`](Self::send) and [`build`](Self::build) fail with a `TypeError` for
    /// HTTP/0.9 and HTTP/1.0, which this client does not send, and for HTTP/3 in a build
    /// without the `http3` feature; [`send`](Self::send) fails with a network error when
    /// the version cannot be had, saying why.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), whatwg_fetch::Error> {
    /// use whatwg_fetch::{Client, Version};
    ///
    /// let client = Client::new();
    /// let response = client
    ///     .get("https://example.com/")
    ///     .version(Version::HTTP_2)
    ///     .send()
    ///     .await?;
    /// assert_eq!(response.version(), Version::HTTP_2);
    /// # Ok(())
    /// # }
    /// ```
    #[cfg_attr(
        feature = "http3",
        doc = "[http3_prior_knowledge]: crate::ClientBuilder::http3_prior_knowledge"
    )]
    #[cfg_attr(
        not(feature = "http3"),
        doc = "[http3_prior_knowledge]: https://docs.rs/whatwg-fetch/latest/whatwg_fetch/struct.ClientBuilder.html#method.http3_prior_knowledge"
    )]
    pub fn version(self, version: http::Version) -> RequestBuilder {
        self.with(|parts| {
            if version == http::Version::HTTP_09 || version == http::Version::HTTP_10 {
                return Err(Error::type_error(format!(
                    "RequestBuilder::version: {version:?} is not sent by this client; \
                     HTTP/1.1, HTTP/2 and HTTP/3 are"
                )));
            }
            if version == http::Version::HTTP_3 && !cfg!(feature = "http3") {
                return Err(Error::type_error(
                    "RequestBuilder::version: HTTP/3 needs whatwg-fetch's `http3` feature",
                ));
            }
            parts.version = Some(version);
            Ok(())
        })
    }

    /// Whether this request's body waits for the server's `100 Continue`, and for how
    /// long, whatever the client's
    /// [`expect_continue`](crate::ClientBuilder::expect_continue) says: `Some(wait)` sends
    /// the head with `Expect: 100-continue` and the body after a `100 Continue` or after
    /// `wait`; `None` sends the body with the head. A final response before the body
    /// (a `401`, a `413`) ends the request without sending it.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), whatwg_fetch::Error> {
    /// use std::time::Duration;
    ///
    /// let client = whatwg_fetch::Client::new();
    /// let response = client
    ///     .put("https://uploads.example/big.bin")
    ///     .body(vec![0u8; 64 << 20])
    ///     .expect_continue(Some(Duration::from_secs(1)))
    ///     .send()
    ///     .await?;
    /// println!("{}", response.status());
    /// # Ok(())
    /// # }
    /// ```
    pub fn expect_continue(self, wait: Option<Duration>) -> RequestBuilder {
        self.with(|parts| {
            parts.expect_continue = Some(wait);
            Ok(())
        })
    }

    /// Sends this request through `proxy`, whatever the client's proxies
    /// ([`ClientBuilder::proxy`](crate::ClientBuilder::proxy),
    /// [`proxy_from_env`](crate::ClientBuilder::proxy_from_env)) say: as if the client had
    /// `proxy` alone, so a URL it does not carry ([`Proxy::http`] for an `https:` URL, a
    /// host in its [`no_proxy`](Proxy::no_proxy) list) goes direct. Credentials,
    /// [`Proxy::headers`], `CONNECT` tunnels for `https:` and SOCKS5 work as for a client's
    /// proxy. A redirect to another host goes through the same proxy, as curl's `--proxy`
    /// does.
    ///
    /// Connections made through it serve only requests routed the same way (the same
    /// proxy URL, credentials and headers): never a request without a proxy of its own,
    /// and never over HTTP/3. See [`Route`] for the whole of it.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let proxy_url = format!("http://{}", listener.local_addr().unwrap());
    /// # let seen = tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let mut head = vec![0; 1024];
    /// #     let n = stream.read(&mut head).await.unwrap();
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// #     String::from_utf8_lossy(&head[..n]).into_owned()
    /// # });
    /// use whatwg_fetch::{Client, net::Proxy};
    ///
    /// let client = Client::new();
    /// let mut response = client
    ///     .get("http://example.test/")
    ///     .proxy(Proxy::http(&proxy_url)?)
    ///     .send()
    ///     .await?;
    /// assert_eq!(response.text().await?, "ok");
    /// // The proxy was asked for the URL in absolute-form.
    /// # assert!(seen.await.unwrap().starts_with("GET http://example.test/ HTTP/1.1\r\n"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn proxy(self, proxy: Proxy) -> RequestBuilder {
        self.with_route(|route| route.proxy(proxy))
    }

    /// Sends this request to its origin directly, whatever the client's proxies say. Its
    /// connections are not shared with requests that go through a proxy to the same
    /// origin.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 1024]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 6\r\n\r\ndirect").await;
    /// # });
    /// use whatwg_fetch::{Client, net::Proxy};
    ///
    /// // Every request of this client goes through a proxy that is not there…
    /// let client = Client::builder()
    ///     .proxy(Proxy::all("http://127.0.0.1:9")?)
    ///     .build()?;
    /// // …but this one goes direct.
    /// let mut response = client.get(url.as_str()).no_proxy().send().await?;
    /// assert_eq!(response.text().await?, "direct");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn no_proxy(self) -> RequestBuilder {
        self.with_route(Route::no_proxy)
    }

    /// Sends this request's connections to `host` (a host name, without case) to `addr`,
    /// rather than to what the client resolves it to: reqwest's
    /// `ClientBuilder::resolve` and curl's `--resolve` for one request. Port 0 means the
    /// URL's port. The TLS server name and the `Host` header stay `host`'s. It comes
    /// before the client's own [`resolve`](crate::ClientBuilder::resolve) and resolver, and
    /// applies to `host` only: after a redirect to another host, that host is resolved as
    /// usual.
    ///
    /// Connections made under it serve only requests with the same overrides, and never
    /// HTTP/3. See [`Route`] for the whole of it.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # let seen = tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let mut head = vec![0; 1024];
    /// #     let n = stream.read(&mut head).await.unwrap();
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// #     String::from_utf8_lossy(&head[..n]).into_owned()
    /// # });
    /// use whatwg_fetch::Client;
    ///
    /// // `addr` is a server on 127.0.0.1; example.test has no address of its own.
    /// let url = format!("http://example.test:{}/", addr.port());
    /// let client = Client::new();
    /// let mut response = client.get(url.as_str()).resolve("example.test", addr).send().await?;
    /// assert_eq!(response.text().await?, "ok");
    /// # assert!(seen.await.unwrap().contains("host: example.test:"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn resolve(self, host: &str, addr: SocketAddr) -> RequestBuilder {
        self.with_route(|route| route.resolve(host, addr))
    }

    /// Sends this request's connections to `host` to `addrs`, raced as resolved addresses
    /// are (Happy Eyeballs), as [`resolve`](Self::resolve) does with one. An empty
    /// `addrs` makes connecting to `host` fail with a
    /// [`NetworkError::Dns`](crate::NetworkError::Dns).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let port = listener.local_addr().unwrap().port();
    /// # tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 1024]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 204 No Content\r\n\r\n").await;
    /// # });
    /// use std::net::SocketAddr;
    /// use whatwg_fetch::Client;
    ///
    /// // Port 0: the URL's port. Nothing listens on [::1], so 127.0.0.1 answers.
    /// let addrs: [SocketAddr; 2] = ["[::1]:0".parse().unwrap(), "127.0.0.1:0".parse().unwrap()];
    /// let url = format!("http://api.test:{port}/");
    /// let response = Client::new()
    ///     .get(url.as_str())
    ///     .resolve_to_addrs("api.test", &addrs)
    ///     .send()
    ///     .await?;
    /// assert_eq!(response.status(), 204);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn resolve_to_addrs(self, host: &str, addrs: &[SocketAddr]) -> RequestBuilder {
        self.with_route(|route| route.resolve_to_addrs(host, addrs))
    }

    /// Applies `f` to the request's route, a new one if it has none yet.
    fn with_route(self, f: impl FnOnce(Route) -> Route) -> RequestBuilder {
        self.with(|parts| {
            parts.route = Some(f(parts.route.take().unwrap_or_default()));
            Ok(())
        })
    }

    /// The request as the spec's constructor makes it, in the client's environment, to
    /// look at, change, or fetch with [`Client::fetch_request`]. A
    /// [`timeout`](Self::timeout) does not go with it: it is [`send`](Self::send)'s.
    ///
    /// ```
    /// use whatwg_fetch::Client;
    ///
    /// let client = Client::new();
    /// let request = client
    ///     .post("https://api.example/items")
    ///     .header("x-trace", "7f3a")
    ///     .body("{}")
    ///     .build()?;
    /// assert_eq!((request.method(), request.url()), ("POST", "https://api.example/items"));
    /// assert_eq!(request.headers().get("x-trace")?.as_deref(), Some("7f3a"));
    /// // A body with `GET` is the constructor's `TypeError`, given here rather than at `send`.
    /// assert!(client.get("https://api.example/items").body("{}").build().is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// The first error the builder kept, or the constructor's (an invalid URL, a method
    /// that is not allowed, a body with `GET`): a `TypeError` that says which.
    pub fn build(self) -> Result<Request> {
        self.into_request().map(|(_, request, _)| request)
    }

    /// Fetches the request and returns the response once its head has arrived, as
    /// [`Client::fetch`] does; the body streams as it is read. The future is `Send` and
    /// `Sync`, as reqwest's `Pending` is.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// let client = whatwg_fetch::Client::new();
    /// let mut response = client.get("data:application/json,{\"ok\":true}").send().await?;
    /// assert_eq!(response.status(), 200);
    /// let value: serde_json::Value = response.json().await?;
    /// assert_eq!(value["ok"], true);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`build`](Self::build), and then as [`Client::fetch`]: a network error, the
    /// timeout, the signal's reason.
    pub async fn send(self) -> Result<Response> {
        let (client, request, timeout) = self.into_request()?;
        let timeout = timeout.or_else(|| client.total_timeout());
        client.fetch_request_within(request, timeout).await
    }

    /// The client, the request made by the spec's constructor, and the builder's own
    /// timeout if it was given one.
    pub(crate) fn into_request(self) -> Result<(Client, Request, Option<Duration>)> {
        let RequestBuilder {
            client,
            method,
            input,
            parts,
        } = self;
        let parts = parts?;
        let timeout = parts.as_ref().and_then(|parts| parts.timeout);
        let request = build_request(&client, method, input, parts)?;
        Ok((client, request, timeout))
    }

    /// A copy of the builder, for sending the same request again; `None` when its body is a
    /// stream (or a form holding a [`StreamedFile`](crate::form_data::StreamedFile)) or it
    /// was given a [`Request`], which can be read once only (or when it kept an error).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// let client = whatwg_fetch::Client::new();
    /// let request = client.get("data:,again").header("x-attempt", "1");
    /// let copy = request.try_clone().expect("a body in memory, or none, can be sent twice");
    /// assert_eq!(request.send().await?.text().await?, "again");
    /// assert_eq!(copy.send().await?.text().await?, "again");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn try_clone(&self) -> Option<RequestBuilder> {
        let parts = match self.parts.as_ref().ok()? {
            Some(parts) => Some(Box::new(parts.try_clone()?)),
            None => None,
        };
        let input = match &self.input {
            RequestInfo::Url(text) => RequestInfo::Url(text.clone()),
            RequestInfo::Parsed(url) => RequestInfo::Parsed(url.clone()),
            // Its body can be taken once only.
            RequestInfo::Request(_) => return None,
        };
        Some(RequestBuilder {
            client: self.client.clone(),
            method: self.method.clone(),
            input,
            parts: Ok(parts),
        })
    }
}

/// A copy of a body that is not a stream.
fn clone_body_init(body: &BodyInit) -> Option<BodyInit> {
    Some(match body {
        BodyInit::Bytes(bytes) => BodyInit::Bytes(bytes.clone()),
        BodyInit::Text(text) => BodyInit::Text(text.clone()),
        BodyInit::Blob(blob) => BodyInit::Blob(blob.clone()),
        BodyInit::FormData(form) => BodyInit::FormData(form.clone()),
        BodyInit::UrlSearchParams(pairs) => BodyInit::UrlSearchParams(pairs.clone()),
        BodyInit::Null => BodyInit::Null,
        BodyInit::Stream(_) => return None,
    })
}

impl Parts {
    /// Sets `Content-Type: value` unless a `Content-Type` was given.
    fn set_default_content_type(&mut self, value: &str) {
        let given = self
            .headers
            .iter()
            .any(|(name, _)| name.eq_ignore_ascii_case(CONTENT_TYPE.as_str().as_bytes()));
        if !given {
            self.headers.push((
                CONTENT_TYPE.as_str().as_bytes().to_vec(),
                value.as_bytes().to_vec(),
            ));
        }
    }

    /// A copy of these parts; `None` when the body is a stream, which can be read once only.
    fn try_clone(&self) -> Option<Parts> {
        let body = match &self.init.body {
            Some(body) if body.has_null_source() => return None,
            Some(body) => Some(clone_body_init(body)?),
            None => None,
        };
        let init = RequestInit {
            method: self.init.method.clone(),
            headers: None,
            body,
            referrer: self.init.referrer.clone(),
            referrer_policy: self.init.referrer_policy,
            mode: self.init.mode,
            credentials: self.init.credentials,
            cache: self.init.cache,
            redirect: self.init.redirect,
            integrity: self.init.integrity.clone(),
            keepalive: self.init.keepalive,
            signal: self.init.signal.clone(),
            duplex: self.init.duplex,
            priority: self.init.priority,
            window: self.init.window,
        };
        Some(Parts {
            init,
            headers: self.headers.clone(),
            query: self.query.clone(),
            timeout: self.timeout,
            version: self.version,
            expect_continue: self.expect_continue,
            route: self.route.clone(),
            digest: self.digest.clone(),
        })
    }
}

/// The request a builder describes, made by the spec's constructor: `method` and `input`
/// with what the calls set (`parts`, if any).
fn build_request(
    client: &Client,
    method: Method,
    input: RequestInfo,
    parts: Option<Box<Parts>>,
) -> Result<Request> {
    // GET is the constructor's default; a request given as the input keeps its own method
    // unless another is asked for.
    let method = (method != Method::GET).then(|| method.as_str().to_owned());
    let (input, url_digest) = match client.digest_auth_from_url() {
        true => take_url_credentials(client, input)?,
        false => (input, None),
    };
    let Some(parts) = parts else {
        let init = RequestInit {
            method,
            ..RequestInit::default()
        };
        let mut request = Request::new_in(client.environment(), input, init)?;
        request.digest_credentials = url_digest;
        return Ok(request);
    };
    let Parts {
        mut init,
        headers,
        query,
        timeout: _,
        version,
        expect_continue,
        route,
        digest,
    } = *parts;
    init.method = method;
    let input = if query.is_empty() {
        input
    } else {
        let mut url = match input {
            RequestInfo::Url(text) => client
                .environment()
                .parse_url(&text)
                .map_err(|error| Error::type_error(format!("invalid URL {text:?}: {error}")))?,
            RequestInfo::Parsed(url) => url,
            // A request made from another one takes that one's URL as it is.
            RequestInfo::Request(_) => {
                return Err(Error::type_error(
                    "query() needs a URL: this builder was given a Request, whose URL is its own",
                ));
            }
        };
        let joined = match url.query() {
            Some(existing) if !existing.is_empty() => format!("{existing}&{query}"),
            _ => query,
        };
        url.set_query(Some(&joined));
        RequestInfo::Parsed(url)
    };
    if !headers.is_empty() {
        init.headers = Some(crate::headers::HeadersInit::Record(headers));
    }
    let mut request = Request::new_in(client.environment(), input, init)?;
    if version.is_some() {
        request.http_version = version;
    }
    request.expect_continue = expect_continue;
    if let Some(route) = route {
        request.transport_extensions.insert(route);
    }
    request.digest_credentials = digest.or(url_digest);
    Ok(request)
}

/// `input` without the credentials of its URL, and those credentials, percent-decoded, for
/// Digest ([`ClientBuilder::digest_auth_from_url`](crate::ClientBuilder::digest_auth_from_url)).
/// A request given as the input is kept as it is.
fn take_url_credentials(
    client: &Client,
    input: RequestInfo,
) -> Result<(RequestInfo, Option<Arc<DigestCredentials>>)> {
    let mut url = match input {
        RequestInfo::Url(text) => client
            .environment()
            .parse_url(&text)
            .map_err(|error| Error::type_error(format!("invalid URL {text:?}: {error}")))?,
        RequestInfo::Parsed(url) => url,
        RequestInfo::Request(_) => return Ok((input, None)),
    };
    if url.username().is_empty() && url.password().is_none() {
        return Ok((RequestInfo::Parsed(url), None));
    }
    let decode = |text: &str| {
        percent_encoding::percent_decode_str(text)
            .decode_utf8_lossy()
            .into_owned()
    };
    let credentials = DigestCredentials {
        username: decode(url.username()),
        password: decode(url.password().unwrap_or_default()),
    };
    // A URL with a host has a username and password to set.
    let _ = url.set_username("");
    let _ = url.set_password(None);
    Ok((RequestInfo::Parsed(url), Some(Arc::new(credentials))))
}

impl fmt::Debug for RequestBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut debug = f.debug_struct("RequestBuilder");
        debug
            .field("method", &self.method)
            .field("input", &self.input);
        match &self.parts {
            Ok(Some(parts)) => debug.field(
                "headers",
                &parts
                    .headers
                    .iter()
                    .map(|(name, _)| String::from_utf8_lossy(name))
                    .collect::<Vec<_>>(),
            ),
            Ok(None) => &mut debug,
            Err(error) => debug.field("error", error),
        }
        .finish_non_exhaustive()
    }
}
