//! Record and replay: run a test suite once against real servers, save the exchanges to a
//! file, then replay them offline, byte for byte, as nock's recorder, Ruby's VCR and
//! undici's `SnapshotAgent` do.
//!
//! Only with the `record` feature (off by default).
//!
//! A [`RecordingTransport`] wraps a real [`Transport`] (a
//! [`HyperTransport`](crate::net::HyperTransport)): each request goes through it, and each
//! exchange (the request's method, URL, headers and body; the response's status, headers
//! and body) is kept, in the order the responses arrive, until
//! [`save`](RecordingTransport::save) writes them to a file. A [`ReplayTransport`] loads
//! that file and answers each request from it, with no network at all: a request nothing
//! recorded matches fails loudly, saying what was recorded nearest.
//!
//! Both stand where the network would, below the whole fetch algorithm: a
//! [`Client`](crate::Client) built with
//! [`ClientBuilder::transport`](crate::ClientBuilder::transport) runs redirects, cookies,
//! the HTTP cache and content decoding above them, live and replayed alike.
//!
//! ```
//! use std::sync::Arc;
//! use whatwg_fetch::Client;
//! use whatwg_fetch::net::{RequestBody, ResponseBody, SendOptions, Transport, TransportFuture};
//! use whatwg_fetch::record::{RecordingTransport, ReplayTransport};
//!
//! /// The "real server" of this example: greets whoever asks.
//! struct Greeter;
//!
//! impl Transport for Greeter {
//!     fn send(&self, request: http::Request<RequestBody>, _: SendOptions) -> TransportFuture {
//!         let greeting = format!("hello from {}", request.uri().path());
//!         Box::pin(async move {
//!             let mut response = http::Response::new(ResponseBody::full(greeting));
//!             response.headers_mut().insert("content-type", "text/plain".parse().unwrap());
//!             Ok(response)
//!         })
//!     }
//! }
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let file = std::env::temp_dir().join(format!("greeter-{}.json", std::process::id()));
//!
//! // Once, against the real server: record, then save.
//! let recorder = RecordingTransport::new(Arc::new(Greeter));
//! let client = Client::builder().transport(Arc::new(recorder.clone())).build()?;
//! let live = client.get("http://greeter.test/ada").send().await?.text().await?;
//! recorder.save(&file)?;
//!
//! // From then on, offline: the same answer, from the file.
//! let replay = ReplayTransport::open(&file)?;
//! let client = Client::builder().transport(Arc::new(replay.clone())).build()?;
//! let replayed = client.get("http://greeter.test/ada").send().await?.text().await?;
//! assert_eq!(replayed, live);
//! println!("{replayed}");
//!
//! // A request that was not recorded fails, naming itself and what was recorded.
//! let error = client.get("http://greeter.test/grace").send().await.unwrap_err();
//! println!("{error:#}");
//! assert!(format!("{error:#}").contains("GET http://greeter.test/grace"));
//!
//! replay.assert_all_used();
//! # std::fs::remove_file(&file)?;
//! # Ok(())
//! # }
//! ```
//!
//! It prints:
//!
//! ```text
//! hello from /ada
//! TypeError: network error for http://greeter.test/grace: connect failed: no recorded exchange matched GET http://greeter.test/grace; recorded for GET: http://greeter.test/ada
//! ```
//!
//! # Recording
//!
//! - **Request bodies** are read whole before the request is sent, up to
//!   [`max_body_size`](RecordingTransport::max_body_size) (16 MiB by default; a larger body
//!   fails its request with [`NetworkError::InvalidRequest`], naming the limit), and go out
//!   as one buffer: a stream body is sent with a `Content-Length` rather than chunked.
//! - **Response bodies** are read whole, as sent (before content decoding, whatever
//!   [`SendOptions::decode_content`] says), up to the same limit (past it, the request
//!   fails with a [`NetworkError::Other`] naming the limit), recorded, and then handed to
//!   the caller, decoded if the options ask for it, from memory. So a response is in the
//!   recording as soon as its head is handed on, and a body that never ends (an event
//!   stream) is not for recording. The response's extensions stay (a `101`'s upgrade
//!   among them); its [`ResponseBody::connection_info`] does not.
//! - **Secrets** are replaced by `[redacted]` in the recording (the request and the
//!   response go through untouched): the values of `Authorization`,
//!   `Proxy-Authorization`, `Cookie` and `Set-Cookie`, in requests and responses alike.
//!   [`redact`](RecordingTransport::redact) adds a header to them,
//!   [`keep_secrets`](RecordingTransport::keep_secrets) empties the list.
//! - **Saving** is [`save`](RecordingTransport::save), by the caller, when the test is
//!   done: nothing is written on drop, as a drop could not report a failure. The file is
//!   written whole to a temporary file beside it, then renamed over it.
//!   [`to_json`](RecordingTransport::to_json) gives the same text without a file.
//! - **Failures** (no connection, a body cut short) are handed on and not recorded.
//!
//! # Replaying
//!
//! A request matches a recorded exchange with the same method and the same URL, exactly
//! as sent (the query in the same order); [`ReplayTransport::match_on`] adds the body or
//! chosen headers ([`Match`]). Among the exchanges a request matches, the first not yet
//! used answers it, and is used: two identical requests recorded with two answers get them
//! in order. [`allow_reuse`](ReplayTransport::allow_reuse) lets the last of them answer
//! again once all are used.
//!
//! The response is the recorded one: its status, reason phrase, version, headers in their
//! order and body, byte for byte, decoded per [`SendOptions::decode_content`] as the
//! network's would be. A request body is read whole before matching, up to
//! [`max_body_size`](ReplayTransport::max_body_size).
//!
//! A request that matches nothing fails with a [`NetworkError::Connect`] whose source is a
//! [`ReplayNotMatched`], naming the request and what was recorded for its method:
//!
//! ```text
//! connect failed: no recorded exchange matched POST https://api.example/users; recorded for POST: https://api.example/users (body differs)
//! ```
//!
//! [`unused`](ReplayTransport::unused) lists the exchanges no request used, and
//! [`assert_all_used`](ReplayTransport::assert_all_used) panics with that list.
//!
//! # The file
//!
//! Pretty-printed JSON (two spaces, a field a line), so that a recording reads and diffs
//! well in review:
//!
//! ```json
//! {
//!   "version": 1,
//!   "exchanges": [
//!     {
//!       "request": {
//!         "method": "POST",
//!         "url": "https://api.example/users",
//!         "headers": [
//!           "content-type: application/json",
//!           "authorization: [redacted]"
//!         ],
//!         "body": "{\"name\":\"Ada\"}"
//!       },
//!       "response": {
//!         "status": 201,
//!         "version": "HTTP/1.1",
//!         "headers": [
//!           "content-type: application/octet-stream",
//!           {
//!             "name": "x-raw",
//!             "value_base64": "/w=="
//!           }
//!         ],
//!         "body_base64": "AAH/"
//!       }
//!     }
//!   ]
//! }
//! ```
//!
//! | Field | What it holds |
//! | --- | --- |
//! | `version` | The format's version, [`FORMAT_VERSION`] (1). A file of another version is refused. |
//! | `exchanges` | The exchanges, in the order their responses arrived. |
//! | `request.method` | The method, as sent (`GET`, `PATCH`, …). |
//! | `request.url` | The absolute URL, as sent (`https://api.example/users?page=2`); no fragment. Read as the URL parser reads it: `http://api.test?q` is matched as the `http://api.test/?q` a client sends. |
//! | `request.headers`, `response.headers` | The header fields in order, each `"name: value"` (a lowercase name, `": "`, the value exactly); a value that is not UTF-8 as `{"name": …, "value_base64": …}`. |
//! | `request.body`, `response.body` | The body as text, when it is UTF-8 (an empty body is `""`). |
//! | `request.body_base64`, `response.body_base64` | Otherwise the body in base64 (RFC 4648, with padding). At most one of the two is given; neither means an empty body. |
//! | `response.status` | The status code (100–999). |
//! | `response.version` | `HTTP/1.0`, `HTTP/1.1`, `HTTP/2.0` or `HTTP/3.0`; optional, `HTTP/1.1` when left out. |
//! | `response.reason` | The HTTP/1 reason phrase, only when the server sent one that is not the status's usual one (`200 Fine`); optional. |
//!
//! A response body is recorded as it came, before content decoding: a gzip body is base64
//! of the gzip bytes, beside its `content-encoding: gzip`. A field not in this table is
//! refused, so that a misspelt one does not go unnoticed; a file that cannot be read says
//! where ([`RecordingFileError`]): the line and column of broken JSON, or the field
//! (`exchanges[2].response.status`) of a wrong value.

use std::borrow::Cow;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

use bytes::{Bytes, BytesMut};
use http::{HeaderMap, HeaderName, HeaderValue, Method, StatusCode, Version};
use http_body_util::BodyExt;
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use serde_json::{Map, Value};

use crate::error::NetworkError;
use crate::infra::{forgiving_base64_decode, forgiving_base64_encode};
use crate::net::{RequestBody, ResponseBody, SendOptions, Transport, TransportFuture};

/// The default of [`RecordingTransport::max_body_size`] and
///
/// ```
/// use std::sync::Arc;
/// use whatwg_fetch::net::HyperTransport;
/// use whatwg_fetch::record::{DEFAULT_MAX_BODY_SIZE, RecordingTransport};
///
/// // Recordings of a service with large bodies: four times the default.
/// let recorder = RecordingTransport::new(Arc::new(HyperTransport::new()?));
/// recorder.max_body_size(DEFAULT_MAX_BODY_SIZE * 4);
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
///
/// [`ReplayTransport::max_body_size`]: 16 MiB.
pub const DEFAULT_MAX_BODY_SIZE: u64 = 16 << 20;

/// The version of the file format this build writes and reads: the file's `version`.
///
/// ```
/// use std::sync::Arc;
/// use whatwg_fetch::net::HyperTransport;
/// use whatwg_fetch::record::{FORMAT_VERSION, RecordingTransport};
///
/// let recorder = RecordingTransport::new(Arc::new(HyperTransport::new()?));
/// let file: serde_json::Value = serde_json::from_str(&recorder.to_json()).map_err(|e| whatwg_fetch::Error::type_error(e.to_string()))?;
/// assert_eq!(file["version"], FORMAT_VERSION);
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub const FORMAT_VERSION: u64 = 1;

/// What a secret header's value becomes in a recording.
///
/// ```
/// use whatwg_fetch::record::REDACTED;
///
/// // What an `Authorization` or a `Cookie` reads in a recording, never the secret.
/// assert_eq!(REDACTED, "[redacted]");
/// ```
pub const REDACTED: &str = "[redacted]";

/// The headers redacted by default, in requests and responses alike.
const SECRETS: [&str; 4] = [
    "authorization",
    "proxy-authorization",
    "cookie",
    "set-cookie",
];

/// How many recorded URLs an unmatched request's error names.
const NEAREST: usize = 5;

// ---------------------------------------------------------------------------------------
// Exchanges

/// One recorded exchange: a request and the response it had.
///
/// ```
/// use whatwg_fetch::record::ReplayTransport;
///
/// let replay = ReplayTransport::from_json(r#"{
///   "version": 1,
///   "exchanges": [{
///     "request": { "method": "GET", "url": "http://api.test/", "headers": ["accept: */*"] },
///     "response": { "status": 200, "headers": ["content-type: text/plain"], "body": "hi" }
///   }]
/// }"#)?;
/// let exchange = &replay.exchanges()[0];
/// assert_eq!(exchange.method(), "GET");
/// assert_eq!(exchange.response_body().as_ref(), b"hi");
/// assert_eq!(exchange.to_string(), "#0 GET http://api.test/ → 200");
/// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Exchange {
    index: usize,
    method: Method,
    url: String,
    request_headers: HeaderMap,
    request_body: Bytes,
    status: StatusCode,
    version: Version,
    reason: Option<Bytes>,
    response_headers: HeaderMap,
    response_body: Bytes,
}

impl Exchange {
    /// Its place in the recording, from 0.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::record::ReplayTransport;
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [
    ///   { "request": { "method": "GET", "url": "http://api.test/a" },
    ///     "response": { "status": 200 } },
    ///   { "request": { "method": "GET", "url": "http://api.test/b" },
    ///     "response": { "status": 200 } }
    /// ] }"#)?;
    /// let client = Client::builder().transport(Arc::new(replay.clone())).build()?;
    /// client.get("http://api.test/b").send().await?;
    /// // What is left is the first exchange of the file.
    /// let unused = replay.unused();
    /// assert_eq!((unused.len(), unused[0].index()), (1, 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn index(&self) -> usize {
        self.index
    }

    /// The request's method.
    ///
    /// ```
    /// use whatwg_fetch::record::ReplayTransport;
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [{
    ///   "request": { "method": "PATCH", "url": "http://api.test/users/1" },
    ///   "response": { "status": 204 }
    /// }] }"#)?;
    /// assert_eq!(replay.exchanges()[0].method(), http::Method::PATCH);
    /// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
    /// ```
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The request's absolute URL, as sent.
    ///
    /// ```
    /// use whatwg_fetch::record::ReplayTransport;
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [{
    ///   "request": { "method": "GET", "url": "https://api.example/users?sort=name&page=2" },
    ///   "response": { "status": 200 }
    /// }] }"#)?;
    /// let exchange = &replay.exchanges()[0];
    /// // Whole, its query's pairs in the order they were sent.
    /// assert_eq!(exchange.url(), "https://api.example/users?sort=name&page=2");
    /// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
    /// ```
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The request's headers, secrets [redacted](REDACTED).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use whatwg_fetch::net::{RequestBody, ResponseBody, SendOptions, Transport, TransportFuture};
    /// # struct Api;
    /// # impl Transport for Api {
    /// #     fn send(&self, _: http::Request<RequestBody>, _: SendOptions) -> TransportFuture {
    /// #         Box::pin(async {
    /// #             let mut response = http::Response::new(ResponseBody::full("ok"));
    /// #             let headers = response.headers_mut();
    /// #             headers.insert("content-type", "text/plain".parse().unwrap());
    /// #             headers.insert("set-cookie", "session=abc; HttpOnly".parse().unwrap());
    /// #             Ok(response)
    /// #         })
    /// #     }
    /// # }
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::record::RecordingTransport;
    ///
    /// // `Api`: a transport standing for a real server, which answers "ok".
    /// let recorder = RecordingTransport::new(Arc::new(Api));
    /// let client = Client::builder().transport(Arc::new(recorder.clone())).build()?;
    /// client
    ///     .get("https://api.example/me")
    ///     .bearer_auth("t0k3n")
    ///     .header("x-trace-id", "7")
    ///     .send()
    ///     .await?;
    /// let exchange = &recorder.exchanges()[0];
    /// // The server was sent the token; the recording keeps none of it.
    /// assert_eq!(exchange.request_headers()["authorization"], "[redacted]");
    /// assert_eq!(exchange.request_headers()["x-trace-id"], "7");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn request_headers(&self) -> &HeaderMap {
        &self.request_headers
    }

    /// The request's body (empty when there was none).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use whatwg_fetch::net::{RequestBody, ResponseBody, SendOptions, Transport, TransportFuture};
    /// # struct Api;
    /// # impl Transport for Api {
    /// #     fn send(&self, _: http::Request<RequestBody>, _: SendOptions) -> TransportFuture {
    /// #         Box::pin(async {
    /// #             let mut response = http::Response::new(ResponseBody::full("ok"));
    /// #             let headers = response.headers_mut();
    /// #             headers.insert("content-type", "text/plain".parse().unwrap());
    /// #             headers.insert("set-cookie", "session=abc; HttpOnly".parse().unwrap());
    /// #             Ok(response)
    /// #         })
    /// #     }
    /// # }
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::record::RecordingTransport;
    ///
    /// // `Api`: a transport standing for a real server, which answers "ok".
    /// let recorder = RecordingTransport::new(Arc::new(Api));
    /// let client = Client::builder().transport(Arc::new(recorder.clone())).build()?;
    /// client.post("https://api.example/users").body(r#"{"name":"Ada"}"#).send().await?;
    /// client.get("https://api.example/users").send().await?;
    /// let exchanges = recorder.exchanges();
    /// assert_eq!(exchanges[0].request_body().as_ref(), br#"{"name":"Ada"}"#);
    /// assert!(exchanges[1].request_body().is_empty());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn request_body(&self) -> &Bytes {
        &self.request_body
    }

    /// The response's status.
    ///
    /// ```
    /// use whatwg_fetch::record::ReplayTransport;
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [{
    ///   "request": { "method": "GET", "url": "http://api.test/missing" },
    ///   "response": { "status": 404, "body": "not found" }
    /// }] }"#)?;
    /// assert_eq!(replay.exchanges()[0].status(), http::StatusCode::NOT_FOUND);
    /// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
    /// ```
    pub fn status(&self) -> StatusCode {
        self.status
    }

    /// The HTTP version the response came over.
    ///
    /// ```
    /// use whatwg_fetch::record::ReplayTransport;
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [
    ///   { "request": { "method": "GET", "url": "https://a.test/" },
    ///     "response": { "status": 200, "version": "HTTP/2.0" } },
    ///   { "request": { "method": "GET", "url": "https://b.test/" },
    ///     "response": { "status": 200 } }
    /// ] }"#)?;
    /// let exchanges = replay.exchanges();
    /// assert_eq!(exchanges[0].version(), http::Version::HTTP_2);
    /// // Left out of the file: HTTP/1.1.
    /// assert_eq!(exchanges[1].version(), http::Version::HTTP_11);
    /// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
    /// ```
    pub fn version(&self) -> Version {
        self.version
    }

    /// The response's headers, secrets [redacted](REDACTED).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use whatwg_fetch::net::{RequestBody, ResponseBody, SendOptions, Transport, TransportFuture};
    /// # struct Api;
    /// # impl Transport for Api {
    /// #     fn send(&self, _: http::Request<RequestBody>, _: SendOptions) -> TransportFuture {
    /// #         Box::pin(async {
    /// #             let mut response = http::Response::new(ResponseBody::full("ok"));
    /// #             let headers = response.headers_mut();
    /// #             headers.insert("content-type", "text/plain".parse().unwrap());
    /// #             headers.insert("set-cookie", "session=abc; HttpOnly".parse().unwrap());
    /// #             Ok(response)
    /// #         })
    /// #     }
    /// # }
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::record::RecordingTransport;
    ///
    /// // `Api`: a transport standing for a real server, which answers "ok".
    /// let recorder = RecordingTransport::new(Arc::new(Api));
    /// let client = Client::builder().transport(Arc::new(recorder.clone())).build()?;
    /// let response = client.get("https://api.example/login").send().await?;
    /// // The client had the cookie; the recording keeps none of it.
    /// assert_eq!(response.cookies().count(), 1);
    /// let exchange = &recorder.exchanges()[0];
    /// assert_eq!(exchange.response_headers()["set-cookie"], "[redacted]");
    /// assert_eq!(exchange.response_headers()["content-type"], "text/plain");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn response_headers(&self) -> &HeaderMap {
        &self.response_headers
    }

    /// The response's body, as it came (before content decoding).
    ///
    /// ```
    /// use whatwg_fetch::record::ReplayTransport;
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [{
    ///   "request": { "method": "GET", "url": "https://api.example/greeting" },
    ///   "response": {
    ///     "status": 200,
    ///     "headers": ["content-encoding: gzip"],
    ///     "body_base64": "H4sIAAAAAAACA8tIzcnJBwCGphA2BQAAAA=="
    ///   }
    /// }] }"#)?;
    /// // "hello" gzipped, as the server sent it: a client replaying it reads "hello".
    /// let body = replay.exchanges()[0].response_body().clone();
    /// assert_eq!(body[..2], [0x1f, 0x8b]);
    /// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
    /// ```
    pub fn response_body(&self) -> &Bytes {
        &self.response_body
    }

    /// The response as the network gave it, its body from memory.
    fn to_response(&self) -> Result<http::Response<ResponseBody>, NetworkError> {
        let mut response = http::Response::new(ResponseBody::full(self.response_body.clone()));
        *response.status_mut() = self.status;
        *response.version_mut() = self.version;
        *response.headers_mut() = self.response_headers.clone();
        if let Some(reason) = &self.reason {
            let reason = hyper::ext::ReasonPhrase::try_from(reason.clone()).map_err(|_| {
                NetworkError::Protocol("recorded reason phrase is not valid".into())
            })?;
            response.extensions_mut().insert(reason);
        }
        Ok(response)
    }
}

/// `#2 GET https://api.example/users → 200`.
impl fmt::Display for Exchange {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "#{} {} {} → {}",
            self.index,
            self.method,
            self.url,
            self.status.as_u16()
        )
    }
}

// ---------------------------------------------------------------------------------------
// Recording

/// A [`Transport`] that sends each request through another and records the exchange (see
/// the [module documentation](self)).
///
/// Cheap to clone: clones share the recording, so a test keeps one to
/// [`save`](Self::save) and gives the [`Client`](crate::Client) another.
///
/// ```no_run
/// use std::sync::Arc;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::net::HyperTransport;
/// use whatwg_fetch::record::RecordingTransport;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let recorder = RecordingTransport::new(Arc::new(HyperTransport::new()?));
/// let client = Client::builder().transport(Arc::new(recorder.clone())).build()?;
/// client.get("https://example.com/").send().await?.text().await?;
/// recorder.save("tests/recordings/example.json")?;
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct RecordingTransport {
    shared: Arc<Recorder>,
}

struct Recorder {
    inner: Arc<dyn Transport>,
    state: Mutex<RecordState>,
}

struct RecordState {
    exchanges: Vec<Exchange>,
    /// Lowercase header names.
    redact: Vec<String>,
    max_body_size: u64,
}

impl Recorder {
    fn lock(&self) -> MutexGuard<'_, RecordState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl RecordingTransport {
    /// Records the exchanges of requests sent through `inner`, secrets redacted.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::net::HyperTransport;
    /// use whatwg_fetch::record::RecordingTransport;
    ///
    /// // Records what the real network answers, to replay it offline later.
    /// let recorder = RecordingTransport::new(Arc::new(HyperTransport::new()?));
    /// let client = whatwg_fetch::Client::builder().transport(Arc::new(recorder.clone())).build()?;
    /// assert!(recorder.to_json().contains("\"exchanges\""));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn new(inner: Arc<dyn Transport>) -> RecordingTransport {
        RecordingTransport {
            shared: Arc::new(Recorder {
                inner,
                state: Mutex::new(RecordState {
                    exchanges: Vec::new(),
                    redact: SECRETS.iter().map(|name| (*name).to_owned()).collect(),
                    max_body_size: DEFAULT_MAX_BODY_SIZE,
                }),
            }),
        }
    }

    /// Also redacts header `name` (any case), in requests and responses, in the exchanges
    /// recorded from now on: its values become [`[redacted]`](REDACTED).
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use whatwg_fetch::net::HyperTransport;
    /// use whatwg_fetch::record::RecordingTransport;
    ///
    /// let recorder = RecordingTransport::new(Arc::new(HyperTransport::new()?));
    /// recorder.redact("x-api-key");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn redact(&self, name: &str) -> &RecordingTransport {
        let name = name.to_ascii_lowercase();
        let mut state = self.shared.lock();
        if !state.redact.contains(&name) {
            state.redact.push(name);
        }
        self
    }

    /// Redacts nothing in the exchanges recorded from now on, not even the default
    /// secrets (`Authorization`, `Proxy-Authorization`, `Cookie`, `Set-Cookie`); a later
    /// [`redact`](Self::redact) adds to the empty list. For recordings that never leave
    /// the machine.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use whatwg_fetch::net::HyperTransport;
    /// use whatwg_fetch::record::RecordingTransport;
    ///
    /// let recorder = RecordingTransport::new(Arc::new(HyperTransport::new()?));
    /// recorder.keep_secrets().redact("authorization");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn keep_secrets(&self) -> &RecordingTransport {
        self.shared.lock().redact.clear();
        self
    }

    /// The largest request body, and the largest response body, recorded; a larger one
    /// fails its request. Default is [`DEFAULT_MAX_BODY_SIZE`], 16 MiB.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use whatwg_fetch::net::HyperTransport;
    /// use whatwg_fetch::record::RecordingTransport;
    ///
    /// let recorder = RecordingTransport::new(Arc::new(HyperTransport::new()?));
    /// recorder.max_body_size(64 << 20);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn max_body_size(&self, max: u64) -> &RecordingTransport {
        self.shared.lock().max_body_size = max;
        self
    }

    /// The exchanges recorded so far, in order.
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use whatwg_fetch::net::HyperTransport;
    /// use whatwg_fetch::record::RecordingTransport;
    ///
    /// let recorder = RecordingTransport::new(Arc::new(HyperTransport::new()?));
    /// assert!(recorder.exchanges().is_empty());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn exchanges(&self) -> Vec<Exchange> {
        self.shared.lock().exchanges.clone()
    }

    /// The recording as the file's text (see [the file](self#the-file)).
    ///
    /// ```
    /// # use std::sync::Arc;
    /// # use whatwg_fetch::net::HyperTransport;
    /// use whatwg_fetch::record::RecordingTransport;
    ///
    /// let recorder = RecordingTransport::new(Arc::new(HyperTransport::new()?));
    /// assert_eq!(recorder.to_json(), "{\n  \"version\": 1,\n  \"exchanges\": []\n}\n");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn to_json(&self) -> String {
        let exchanges = self.exchanges();
        to_json(&exchanges)
    }

    /// Writes the recording to `path` (see [the file](self#the-file)): whole, to a
    /// temporary file beside it first, renamed over it. Blocks while it writes.
    ///
    /// ```no_run
    /// # use std::sync::Arc;
    /// # use whatwg_fetch::net::HyperTransport;
    /// use whatwg_fetch::record::RecordingTransport;
    ///
    /// let recorder = RecordingTransport::new(Arc::new(HyperTransport::new()?));
    /// // … requests through a client on `recorder` …
    /// recorder.save("tests/recordings/users.json")?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    ///
    /// # Errors
    /// A [`RecordingFileError::Io`] naming the file when it cannot be written.
    pub fn save(&self, path: impl AsRef<Path>) -> Result<(), RecordingFileError> {
        let path = path.as_ref();
        let io = |source| RecordingFileError::Io {
            path: path.to_path_buf(),
            source,
        };
        let mut temporary = path.as_os_str().to_owned();
        temporary.push(format!(".{}.tmp", std::process::id()));
        let temporary = PathBuf::from(temporary);
        std::fs::write(&temporary, self.to_json()).map_err(io)?;
        std::fs::rename(&temporary, path).map_err(|error| {
            let _ = std::fs::remove_file(&temporary);
            io(error)
        })
    }
}

impl fmt::Debug for RecordingTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.shared.lock();
        f.debug_struct("RecordingTransport")
            .field("exchanges", &state.exchanges.len())
            .field("redact", &state.redact)
            .field("max_body_size", &state.max_body_size)
            .finish_non_exhaustive()
    }
}

impl Transport for RecordingTransport {
    fn send(&self, request: http::Request<RequestBody>, options: SendOptions) -> TransportFuture {
        let shared = self.shared.clone();
        Box::pin(async move { shared.send(request, options).await })
    }
}

impl Recorder {
    async fn send(
        self: Arc<Recorder>,
        request: http::Request<RequestBody>,
        options: SendOptions,
    ) -> Result<http::Response<ResponseBody>, NetworkError> {
        let max = self.lock().max_body_size;
        let (parts, body) = request.into_parts();
        let request_body = read_request_body(body, max, "RecordingTransport").await?;
        let method = parts.method.clone();
        let url = parts.uri.to_string();
        let request_headers = parts.headers.clone();
        let request = http::Request::from_parts(parts, RequestBody::full(request_body.clone()));
        // The body as it came, decoded below (once recorded) if the caller asked.
        let mut raw = options.clone();
        raw.decode_content = false;
        let response = self.inner.send(request, raw).await?;
        let (parts, body) = response.into_parts();
        let response_body = read_response_body(body, max).await?;
        {
            let mut state = self.lock();
            let redact = |headers: &HeaderMap| redacted(headers, &state.redact);
            let exchange = Exchange {
                index: state.exchanges.len(),
                method,
                url,
                request_headers: redact(&request_headers),
                request_body,
                status: parts.status,
                version: parts.version,
                reason: parts
                    .extensions
                    .get::<hyper::ext::ReasonPhrase>()
                    .map(|reason| Bytes::copy_from_slice(reason.as_bytes())),
                response_headers: redact(&parts.headers),
                response_body: response_body.clone(),
            };
            state.exchanges.push(exchange);
        }
        let response = http::Response::from_parts(parts, ResponseBody::full(response_body));
        if options.decode_content {
            crate::net::decode_response_with(response, options.decode_codings)
        } else {
            Ok(response)
        }
    }
}

/// `headers` with the values of those named in `redact` replaced.
fn redacted(headers: &HeaderMap, redact: &[String]) -> HeaderMap {
    let mut out = HeaderMap::with_capacity(headers.len());
    for (name, value) in headers {
        let value = if redact.iter().any(|secret| secret == name.as_str()) {
            HeaderValue::from_static(REDACTED)
        } else {
            value.clone()
        };
        out.append(name.clone(), value);
    }
    out
}

/// Reads a request body whole, up to `max` bytes.
async fn read_request_body(
    mut body: RequestBody,
    max: u64,
    who: &'static str,
) -> Result<Bytes, NetworkError> {
    let too_large = || {
        NetworkError::InvalidRequest(Cow::Owned(format!(
            "request body larger than the {who}'s limit of {max} bytes ({who}::max_body_size)"
        )))
    };
    if http_body::Body::size_hint(&body)
        .exact()
        .is_some_and(|length| length > max)
    {
        return Err(too_large());
    }
    let mut bytes = BytesMut::new();
    while let Some(frame) = body.frame().await {
        // An error from a stream body aborts the request, as it does over a connection.
        let frame = frame.map_err(NetworkError::Protocol)?;
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let length = bytes.len().saturating_add(data.len());
        if !u64::try_from(length).is_ok_and(|length| length <= max) {
            return Err(too_large());
        }
        bytes.extend_from_slice(&data);
    }
    Ok(bytes.freeze())
}

/// Reads a response body whole, up to `max` bytes.
async fn read_response_body(mut body: ResponseBody, max: u64) -> Result<Bytes, NetworkError> {
    let mut bytes = BytesMut::new();
    while let Some(frame) = body.frame().await {
        let Ok(data) = frame?.into_data() else {
            continue;
        };
        let length = bytes.len().saturating_add(data.len());
        if !u64::try_from(length).is_ok_and(|length| length <= max) {
            return Err(NetworkError::Other(Cow::Owned(format!(
                "response body larger than the RecordingTransport's limit of {max} bytes \
                 (RecordingTransport::max_body_size)"
            ))));
        }
        bytes.extend_from_slice(&data);
    }
    Ok(bytes.freeze())
}

// ---------------------------------------------------------------------------------------
// Replaying

/// What a request must share with a recorded exchange to be answered by it: its method and
/// URL always; with [`body`](Match::body), its body; with [`header`](Match::header), the
/// values of that header.
///
/// ```
/// use whatwg_fetch::record::{Match, ReplayTransport};
///
/// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [] }"#)?;
/// replay.match_on(Match::new().body().header("content-type"));
/// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Match {
    body: bool,
    /// Lowercase.
    headers: Vec<String>,
}

impl Match {
    /// Method and URL: the default.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::record::{Match, ReplayTransport};
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [{
    ///   "request": { "method": "POST", "url": "https://api.example/users", "body": "Ada" },
    ///   "response": { "status": 201 }
    /// }] }"#)?;
    /// let client = Client::builder().transport(Arc::new(replay.clone())).build()?;
    /// replay.match_on(Match::new());
    /// // Another body, the same method and URL: answered.
    /// let response = client.post("https://api.example/users").body("Grace").send().await?;
    /// assert_eq!(response.status(), 201);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn new() -> Match {
        Match::default()
    }

    /// Also the body, byte for byte.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::record::{Match, ReplayTransport};
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [
    ///   { "request": { "method": "POST", "url": "https://api.example/users", "body": "Ada" },
    ///     "response": { "status": 201, "body": "/users/1" } },
    ///   { "request": { "method": "POST", "url": "https://api.example/users", "body": "Grace" },
    ///     "response": { "status": 201, "body": "/users/2" } }
    /// ] }"#)?;
    /// let client = Client::builder().transport(Arc::new(replay.clone())).build()?;
    /// replay.match_on(Match::new().body());
    /// // The second exchange answers, for its body, though the first is not used.
    /// let mut response = client.post("https://api.example/users").body("Grace").send().await?;
    /// assert_eq!(response.text().await?, "/users/2");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn body(mut self) -> Match {
        self.body = true;
        self
    }

    /// Also header `name` (any case): the same values in the same order, or absent from
    /// both. A header [redacted](REDACTED) when recorded matches only `[redacted]`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::record::{Match, ReplayTransport};
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [
    ///   { "request": { "method": "GET", "url": "https://example.com/",
    ///                  "headers": ["accept-language: en"] },
    ///     "response": { "status": 200, "body": "hello" } },
    ///   { "request": { "method": "GET", "url": "https://example.com/",
    ///                  "headers": ["accept-language: fr"] },
    ///     "response": { "status": 200, "body": "bonjour" } }
    /// ] }"#)?;
    /// let client = Client::builder().transport(Arc::new(replay.clone())).build()?;
    /// replay.match_on(Match::new().header("Accept-Language"));
    /// let request = client.get("https://example.com/").header("accept-language", "fr");
    /// assert_eq!(request.send().await?.text().await?, "bonjour");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn header(mut self, name: &str) -> Match {
        self.headers.push(name.to_ascii_lowercase());
        self
    }

    /// What differs between `request` and `exchange`, beyond method and URL.
    fn differences(&self, request: &Incoming, exchange: &Exchange) -> Vec<String> {
        let mut differences = Vec::new();
        if self.body && request.body != exchange.request_body {
            differences.push("body differs".to_owned());
        }
        for name in &self.headers {
            let sent = request.headers.get_all(name.as_str()).iter();
            let recorded = exchange.request_headers.get_all(name.as_str()).iter();
            if !sent.eq(recorded) {
                differences.push(format!("header {name} differs"));
            }
        }
        differences
    }
}

/// A [`Transport`] that answers requests from a recording, never from the network (see the
/// [module documentation](self)).
///
/// Cheap to clone: clones share the recording and which exchanges are used, so a test
/// keeps one to [`assert_all_used`](Self::assert_all_used) and gives the
/// [`Client`](crate::Client) another.
///
/// ```no_run
/// use std::sync::Arc;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::record::ReplayTransport;
///
/// # #[tokio::main(flavor = "current_thread")]
/// # async fn main() -> Result<(), Box<dyn std::error::Error>> {
/// let replay = ReplayTransport::open("tests/recordings/example.json")?;
/// let client = Client::builder().transport(Arc::new(replay.clone())).build()?;
/// client.get("https://example.com/").send().await?.text().await?;
/// replay.assert_all_used();
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
pub struct ReplayTransport {
    shared: Arc<Replayer>,
}

struct Replayer {
    state: Mutex<ReplayState>,
}

struct ReplayState {
    exchanges: Vec<Exchange>,
    /// How many requests each exchange answered.
    used: Vec<usize>,
    matching: Match,
    reuse: bool,
    max_body_size: u64,
}

impl Replayer {
    fn lock(&self) -> MutexGuard<'_, ReplayState> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// A request being replayed.
struct Incoming {
    method: Method,
    url: String,
    headers: HeaderMap,
    body: Bytes,
}

impl ReplayTransport {
    /// Loads the recording at `path`.
    ///
    /// ```no_run
    /// use whatwg_fetch::record::ReplayTransport;
    ///
    /// let replay = ReplayTransport::open("tests/recordings/users.json")?;
    /// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
    /// ```
    ///
    /// # Errors
    /// A [`RecordingFileError`] naming the file: it cannot be read, is not JSON (with the
    /// line and column), or holds a wrong value (with the field).
    pub fn open(path: impl AsRef<Path>) -> Result<ReplayTransport, RecordingFileError> {
        let path = path.as_ref();
        let text = std::fs::read_to_string(path).map_err(|source| RecordingFileError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        let exchanges = parse(&text).map_err(|error| error.in_file(path))?;
        Ok(ReplayTransport::from_exchanges(exchanges))
    }

    /// Loads a recording from its text (see [the file](self#the-file)).
    ///
    /// ```
    /// use whatwg_fetch::record::ReplayTransport;
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [] }"#)?;
    /// assert!(replay.exchanges().is_empty());
    ///
    /// let error = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [{}] }"#);
    /// assert_eq!(
    ///     error.unwrap_err().to_string(),
    ///     "invalid recording: exchanges[0]: missing field `request`"
    /// );
    /// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
    /// ```
    ///
    /// # Errors
    /// A [`RecordingFileError`]: the text is not JSON (with the line and column), or holds
    /// a wrong value (with the field).
    pub fn from_json(text: &str) -> Result<ReplayTransport, RecordingFileError> {
        Ok(ReplayTransport::from_exchanges(parse(text)?))
    }

    fn from_exchanges(exchanges: Vec<Exchange>) -> ReplayTransport {
        ReplayTransport {
            shared: Arc::new(Replayer {
                state: Mutex::new(ReplayState {
                    used: vec![0; exchanges.len()],
                    exchanges,
                    matching: Match::new(),
                    reuse: false,
                    max_body_size: DEFAULT_MAX_BODY_SIZE,
                }),
            }),
        }
    }

    /// What a request must share with an exchange to be answered by it. Default is
    /// [`Match::new()`]: method and URL.
    ///
    /// ```
    /// use whatwg_fetch::record::{Match, ReplayTransport};
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [] }"#)?;
    /// replay.match_on(Match::new().body());
    /// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
    /// ```
    pub fn match_on(&self, matching: Match) -> &ReplayTransport {
        self.shared.lock().matching = matching;
        self
    }

    /// Lets a request whose matching exchanges are all used have the last of them again,
    /// rather than fail. Default is off: each exchange answers once.
    ///
    /// ```
    /// use whatwg_fetch::record::ReplayTransport;
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [] }"#)?;
    /// replay.allow_reuse();
    /// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
    /// ```
    pub fn allow_reuse(&self) -> &ReplayTransport {
        self.shared.lock().reuse = true;
        self
    }

    /// The largest request body read for matching; a larger one fails its request with
    /// [`NetworkError::InvalidRequest`]. Default is [`DEFAULT_MAX_BODY_SIZE`], 16 MiB.
    ///
    /// ```
    /// use whatwg_fetch::record::ReplayTransport;
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [] }"#)?;
    /// replay.max_body_size(64 << 20);
    /// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
    /// ```
    pub fn max_body_size(&self, max: u64) -> &ReplayTransport {
        self.shared.lock().max_body_size = max;
        self
    }

    /// The recorded exchanges, in order.
    ///
    /// ```
    /// use whatwg_fetch::record::ReplayTransport;
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [] }"#)?;
    /// assert_eq!(replay.exchanges().len(), 0);
    /// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
    /// ```
    pub fn exchanges(&self) -> Vec<Exchange> {
        self.shared.lock().exchanges.clone()
    }

    /// The exchanges no request has used, in order.
    ///
    /// ```
    /// use whatwg_fetch::record::ReplayTransport;
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [{
    ///   "request": { "method": "GET", "url": "http://api.test/" },
    ///   "response": { "status": 204 }
    /// }] }"#)?;
    /// assert_eq!(replay.unused()[0].to_string(), "#0 GET http://api.test/ → 204");
    /// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
    /// ```
    pub fn unused(&self) -> Vec<Exchange> {
        let state = self.shared.lock();
        state
            .exchanges
            .iter()
            .zip(&state.used)
            .filter(|(_, used)| **used == 0)
            .map(|(exchange, _)| exchange.clone())
            .collect()
    }

    /// Asserts that every exchange has been used (see [`unused`](Self::unused)).
    ///
    /// ```
    /// use whatwg_fetch::record::ReplayTransport;
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [] }"#)?;
    /// replay.assert_all_used();
    /// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
    /// ```
    ///
    /// # Panics
    /// When some are unused, with a message listing them:
    ///
    /// ```text
    /// 1 recorded exchange is unused:
    ///   #1 GET https://api.example/users/2 → 200
    /// ```
    #[track_caller]
    // An assertion for tests: panicking, as `assert!` does, is what it is asked to do.
    #[allow(clippy::panic)]
    pub fn assert_all_used(&self) {
        let unused = self.unused();
        if unused.is_empty() {
            return;
        }
        let (count, verb) = match unused.len() {
            1 => ("1 recorded exchange".to_owned(), "is"),
            n => (format!("{n} recorded exchanges"), "are"),
        };
        let list: Vec<String> = unused.iter().map(|e| format!("  {e}")).collect();
        panic!("{count} {verb} unused:\n{}", list.join("\n"));
    }
}

impl fmt::Debug for ReplayTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let state = self.shared.lock();
        f.debug_struct("ReplayTransport")
            .field("exchanges", &state.exchanges.len())
            .field("matching", &state.matching)
            .field("reuse", &state.reuse)
            .finish_non_exhaustive()
    }
}

impl Transport for ReplayTransport {
    fn send(&self, request: http::Request<RequestBody>, options: SendOptions) -> TransportFuture {
        let shared = self.shared.clone();
        Box::pin(async move { shared.send(request, options).await })
    }
}

impl Replayer {
    async fn send(
        self: Arc<Replayer>,
        request: http::Request<RequestBody>,
        options: SendOptions,
    ) -> Result<http::Response<ResponseBody>, NetworkError> {
        let max = self.lock().max_body_size;
        let (parts, body) = request.into_parts();
        let request = Incoming {
            body: read_request_body(body, max, "ReplayTransport").await?,
            url: parts.uri.to_string(),
            method: parts.method,
            headers: parts.headers,
        };
        let response = {
            let mut state = self.lock();
            let matches: Vec<usize> = state
                .exchanges
                .iter()
                .filter(|exchange| {
                    exchange.method == request.method
                        && exchange.url == request.url
                        && state.matching.differences(&request, exchange).is_empty()
                })
                .map(Exchange::index)
                .collect();
            let chosen = matches
                .iter()
                .copied()
                .find(|&index| state.used.get(index) == Some(&0))
                .or_else(|| matches.last().copied().filter(|_| state.reuse));
            match chosen.and_then(|index| Some((index, state.exchanges.get(index)?))) {
                Some((index, exchange)) => {
                    let response = exchange.to_response();
                    if let Some(used) = state.used.get_mut(index) {
                        *used = used.saturating_add(1);
                    }
                    response?
                }
                None => {
                    return Err(NetworkError::Connect(Box::new(ReplayNotMatched::new(
                        &request, &state,
                    ))));
                }
            }
        };
        if options.decode_content {
            crate::net::decode_response_with(response, options.decode_codings)
        } else {
            Ok(response)
        }
    }
}

/// Why a request had no answer from a [`ReplayTransport`]: no recorded exchange matched
/// it, or those that did were used. The source of the [`NetworkError::Connect`] it fails
/// with; its message names the request and what was recorded for its method.
///
/// ```
/// use whatwg_fetch::net::{RequestBody, SendOptions, Transport};
/// use whatwg_fetch::record::{ReplayNotMatched, ReplayTransport};
///
/// # tokio::runtime::Builder::new_current_thread().build().unwrap().block_on(async {
/// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [{
///   "request": { "method": "GET", "url": "http://api.test/a" },
///   "response": { "status": 200 }
/// }] }"#)?;
/// let request = http::Request::get("http://api.test/b").body(RequestBody::empty()).unwrap();
/// let error = replay.send(request, SendOptions::new()).await.unwrap_err();
/// let source = std::error::Error::source(&error).unwrap();
/// let not_matched = source.downcast_ref::<ReplayNotMatched>().unwrap();
/// assert_eq!(not_matched.url(), "http://api.test/b");
/// assert_eq!(
///     not_matched.to_string(),
///     "no recorded exchange matched GET http://api.test/b; recorded for GET: http://api.test/a"
/// );
/// # Ok::<(), whatwg_fetch::record::RecordingFileError>(())
/// # }).unwrap();
/// ```
#[derive(Clone, Debug)]
pub struct ReplayNotMatched {
    method: Method,
    url: String,
    nearest: Vec<String>,
    /// How many more were recorded past the nearest.
    more: usize,
    /// Set when nothing was recorded for the method: the nearest are of other methods.
    other_methods: bool,
}

impl ReplayNotMatched {
    fn new(request: &Incoming, state: &ReplayState) -> ReplayNotMatched {
        let same_method: Vec<&Exchange> = state
            .exchanges
            .iter()
            .filter(|exchange| exchange.method == request.method)
            .collect();
        let other_methods = same_method.is_empty();
        let mut nearest: Vec<String> = Vec::new();
        let mut push = |line: String| {
            if !nearest.contains(&line) {
                nearest.push(line);
            }
        };
        if other_methods {
            for exchange in &state.exchanges {
                push(format!("{} {}", exchange.method, exchange.url));
            }
        } else {
            // The same URL first: the likeliest to be what was meant.
            let (same_url, others): (Vec<&Exchange>, Vec<&Exchange>) = same_method
                .into_iter()
                .partition(|exchange| exchange.url == request.url);
            for exchange in same_url {
                let mut differences = state.matching.differences(request, exchange);
                if differences.is_empty() {
                    differences.push("used".to_owned());
                }
                push(format!("{} ({})", exchange.url, differences.join(", ")));
            }
            for exchange in others {
                push(exchange.url.clone());
            }
        }
        let more = nearest.len().saturating_sub(NEAREST);
        nearest.truncate(NEAREST);
        ReplayNotMatched {
            method: request.method.clone(),
            url: request.url.clone(),
            nearest,
            more,
            other_methods,
        }
    }

    /// The request's method.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::{Client, NetworkError};
    /// use whatwg_fetch::record::{Match, ReplayNotMatched, ReplayTransport};
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [{
    ///   "request": { "method": "POST", "url": "https://api.example/users", "body": "Ada" },
    ///   "response": { "status": 201 }
    /// }] }"#)?;
    /// let client = Client::builder().transport(Arc::new(replay.clone())).build()?;
    /// replay.match_on(Match::new().body());
    /// let Err(error) = client.post("https://api.example/users").body("Grace").send().await else {
    ///     panic!("answered");
    /// };
    /// let Some(NetworkError::Connect(source)) = error.network_error() else {
    ///     panic!("another error: {error}");
    /// };
    /// let not_matched = source.downcast_ref::<ReplayNotMatched>().ok_or("another source")?;
    /// assert_eq!(not_matched.method(), "POST");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn method(&self) -> &Method {
        &self.method
    }

    /// The request's URL.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::{Client, NetworkError};
    /// use whatwg_fetch::record::{Match, ReplayNotMatched, ReplayTransport};
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [{
    ///   "request": { "method": "POST", "url": "https://api.example/users", "body": "Ada" },
    ///   "response": { "status": 201 }
    /// }] }"#)?;
    /// let client = Client::builder().transport(Arc::new(replay.clone())).build()?;
    /// replay.match_on(Match::new().body());
    /// let Err(error) = client.post("https://api.example/users").body("Grace").send().await else {
    ///     panic!("answered");
    /// };
    /// let Some(NetworkError::Connect(source)) = error.network_error() else {
    ///     panic!("another error: {error}");
    /// };
    /// let not_matched = source.downcast_ref::<ReplayNotMatched>().ok_or("another source")?;
    /// assert_eq!(not_matched.url(), "https://api.example/users");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn url(&self) -> &str {
        &self.url
    }

    /// What was recorded nearest (at most five): the URLs recorded for the request's
    /// method, the same URL first with what differs (`https://api.example/a (body
    /// differs)`); or, when nothing was recorded for it, the method and URL of each
    /// exchange.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use whatwg_fetch::{Client, NetworkError};
    /// use whatwg_fetch::record::{Match, ReplayNotMatched, ReplayTransport};
    ///
    /// let replay = ReplayTransport::from_json(r#"{ "version": 1, "exchanges": [{
    ///   "request": { "method": "POST", "url": "https://api.example/users", "body": "Ada" },
    ///   "response": { "status": 201 }
    /// }] }"#)?;
    /// let client = Client::builder().transport(Arc::new(replay.clone())).build()?;
    /// replay.match_on(Match::new().body());
    /// let Err(error) = client.post("https://api.example/users").body("Grace").send().await else {
    ///     panic!("answered");
    /// };
    /// let Some(NetworkError::Connect(source)) = error.network_error() else {
    ///     panic!("another error: {error}");
    /// };
    /// let not_matched = source.downcast_ref::<ReplayNotMatched>().ok_or("another source")?;
    /// assert_eq!(not_matched.nearest(), ["https://api.example/users (body differs)"]);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn nearest(&self) -> &[String] {
        &self.nearest
    }
}

impl fmt::Display for ReplayNotMatched {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "no recorded exchange matched {} {}",
            self.method, self.url
        )?;
        if self.nearest.is_empty() {
            return f.write_str("; the recording holds no exchanges");
        }
        if self.other_methods {
            write!(
                f,
                "; nothing was recorded for {}; recorded: {}",
                self.method,
                self.nearest.join(", ")
            )?;
        } else {
            write!(
                f,
                "; recorded for {}: {}",
                self.method,
                self.nearest.join(", ")
            )?;
        }
        if self.more > 0 {
            write!(f, ", and {} more", self.more)?;
        }
        Ok(())
    }
}

impl std::error::Error for ReplayNotMatched {}

// ---------------------------------------------------------------------------------------
// The file

/// Why a recording could not be saved or loaded: each names the file (when there is one)
/// and where in it.
///
/// ```
/// use whatwg_fetch::record::{RecordingFileError, ReplayTransport};
///
/// let error = ReplayTransport::from_json("{\n  \"version\": 1,\n  \"exchanges\": [,]\n}")
///     .unwrap_err();
/// assert!(matches!(error, RecordingFileError::Json { line: 3, .. }));
/// assert_eq!(
///     error.to_string(),
///     "invalid recording: not JSON at line 3, column 17: expected value at line 3 column 17"
/// );
/// ```
#[derive(Debug)]
#[non_exhaustive]
pub enum RecordingFileError {
    /// The file could not be read or written.
    Io {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The text is not JSON.
    Json {
        /// The file, if it was read from one.
        path: Option<PathBuf>,
        /// The line of the error, from 1.
        line: usize,
        /// The column of the error, from 1.
        column: usize,
        /// serde_json's error.
        source: serde_json::Error,
    },
    /// The JSON is not a recording: a field is missing, unknown, or holds a wrong value.
    Invalid {
        /// The file, if it was read from one.
        path: Option<PathBuf>,
        /// Where: `exchanges[2].response.status`, or `version`.
        field: String,
        /// What is wrong.
        message: String,
    },
}

impl RecordingFileError {
    fn in_file(self, file: &Path) -> RecordingFileError {
        match self {
            RecordingFileError::Json {
                line,
                column,
                source,
                ..
            } => RecordingFileError::Json {
                path: Some(file.to_path_buf()),
                line,
                column,
                source,
            },
            RecordingFileError::Invalid { field, message, .. } => RecordingFileError::Invalid {
                path: Some(file.to_path_buf()),
                field,
                message,
            },
            io @ RecordingFileError::Io { .. } => io,
        }
    }
}

impl fmt::Display for RecordingFileError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let recording = |f: &mut fmt::Formatter<'_>, path: &Option<PathBuf>| match path {
            Some(path) => write!(f, "invalid recording {}: ", path.display()),
            None => f.write_str("invalid recording: "),
        };
        match self {
            RecordingFileError::Io { path, source } => {
                write!(f, "recording {}: {source}", path.display())
            }
            RecordingFileError::Json {
                path,
                line,
                column,
                source,
            } => {
                recording(f, path)?;
                write!(f, "not JSON at line {line}, column {column}: {source}")
            }
            RecordingFileError::Invalid {
                path,
                field,
                message,
            } => {
                recording(f, path)?;
                write!(f, "{field}: {message}")
            }
        }
    }
}

impl std::error::Error for RecordingFileError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            RecordingFileError::Io { source, .. } => Some(source),
            RecordingFileError::Json { source, .. } => Some(source),
            RecordingFileError::Invalid { .. } => None,
        }
    }
}

/// The file's text for `exchanges`.
fn to_json(exchanges: &[Exchange]) -> String {
    let mut text = serde_json::to_string_pretty(&FileOut(exchanges))
        .unwrap_or_else(|error| format!("{{\"error\": {:?}}}", error.to_string()));
    text.push('\n');
    text
}

struct FileOut<'a>(&'a [Exchange]);
struct ExchangeOut<'a>(&'a Exchange);
struct RequestOut<'a>(&'a Exchange);
struct ResponseOut<'a>(&'a Exchange);
struct HeadersOut<'a>(&'a HeaderMap);
struct HeaderOut<'a>(&'a HeaderName, &'a HeaderValue);

impl Serialize for FileOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("version", &FORMAT_VERSION)?;
        let exchanges: Vec<ExchangeOut<'_>> = self.0.iter().map(ExchangeOut).collect();
        map.serialize_entry("exchanges", &exchanges)?;
        map.end()
    }
}

impl Serialize for ExchangeOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut map = serializer.serialize_map(Some(2))?;
        map.serialize_entry("request", &RequestOut(self.0))?;
        map.serialize_entry("response", &ResponseOut(self.0))?;
        map.end()
    }
}

impl Serialize for RequestOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let exchange = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("method", exchange.method.as_str())?;
        map.serialize_entry("url", &exchange.url)?;
        map.serialize_entry("headers", &HeadersOut(&exchange.request_headers))?;
        body_entry(&mut map, &exchange.request_body)?;
        map.end()
    }
}

impl Serialize for ResponseOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let exchange = self.0;
        let mut map = serializer.serialize_map(None)?;
        map.serialize_entry("status", &exchange.status.as_u16())?;
        map.serialize_entry("version", version_name(exchange.version))?;
        if let Some(reason) = &exchange.reason {
            // Each byte one character, as a JavaScript ByteString (`status_text` does).
            let reason: String = reason.iter().map(|&byte| char::from(byte)).collect();
            map.serialize_entry("reason", &reason)?;
        }
        map.serialize_entry("headers", &HeadersOut(&exchange.response_headers))?;
        body_entry(&mut map, &exchange.response_body)?;
        map.end()
    }
}

/// `body` as text when it is UTF-8, else `body_base64`.
fn body_entry<M: SerializeMap>(map: &mut M, body: &[u8]) -> Result<(), M::Error> {
    match std::str::from_utf8(body) {
        Ok(text) => map.serialize_entry("body", text),
        Err(_) => map.serialize_entry("body_base64", &forgiving_base64_encode(body)),
    }
}

impl Serialize for HeadersOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let mut seq = serializer.serialize_seq(Some(self.0.len()))?;
        for (name, value) in self.0 {
            seq.serialize_element(&HeaderOut(name, value))?;
        }
        seq.end()
    }
}

impl Serialize for HeaderOut<'_> {
    fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let HeaderOut(name, value) = *self;
        match std::str::from_utf8(value.as_bytes()) {
            Ok(text) => serializer.serialize_str(&format!("{name}: {text}")),
            Err(_) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("name", name.as_str())?;
                map.serialize_entry("value_base64", &forgiving_base64_encode(value.as_bytes()))?;
                map.end()
            }
        }
    }
}

fn version_name(version: Version) -> &'static str {
    match version {
        Version::HTTP_09 => "HTTP/0.9",
        Version::HTTP_10 => "HTTP/1.0",
        Version::HTTP_2 => "HTTP/2.0",
        Version::HTTP_3 => "HTTP/3.0",
        _ => "HTTP/1.1",
    }
}

/// The exchanges of a recording's text.
fn parse(text: &str) -> Result<Vec<Exchange>, RecordingFileError> {
    // serde_json counts an error just past a newline (the text ending there) as column 0;
    // this error's columns count from 1, where that one is.
    let value: Value = serde_json::from_str(text).map_err(|source| RecordingFileError::Json {
        path: None,
        line: source.line().max(1),
        column: source.column().max(1),
        source,
    })?;
    parse_file(&value).map_err(|(field, message)| RecordingFileError::Invalid {
        path: None,
        field,
        message,
    })
}

/// A wrong value: the field's path, and what is wrong.
type Invalid = (String, String);

/// A JSON object being read, with its path for errors.
struct Object<'a> {
    map: &'a Map<String, Value>,
    path: String,
}

impl<'a> Object<'a> {
    fn new(value: &'a Value, path: String, allowed: &[&str]) -> Result<Object<'a>, Invalid> {
        let Some(map) = value.as_object() else {
            return Err((
                place(&path),
                format!("expected an object, found {}", kind(value)),
            ));
        };
        if let Some(unknown) = map.keys().find(|key| !allowed.contains(&key.as_str())) {
            return Err((
                place(&path),
                format!(
                    "unknown field `{unknown}`, expected one of {}",
                    allowed
                        .iter()
                        .map(|name| format!("`{name}`"))
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        Ok(Object { map, path })
    }

    fn field(&self, name: &str) -> String {
        if self.path.is_empty() {
            name.to_owned()
        } else {
            format!("{}.{name}", self.path)
        }
    }

    fn get(&self, name: &str) -> Option<&'a Value> {
        self.map.get(name)
    }

    fn required(&self, name: &str) -> Result<&'a Value, Invalid> {
        self.get(name)
            .ok_or_else(|| (place(&self.path), format!("missing field `{name}`")))
    }

    fn string(&self, name: &str) -> Result<&'a str, Invalid> {
        let value = self.required(name)?;
        value.as_str().ok_or_else(|| {
            (
                self.field(name),
                format!("expected a string, found {}", kind(value)),
            )
        })
    }

    fn optional_string(&self, name: &str) -> Result<Option<&'a str>, Invalid> {
        match self.get(name) {
            None => Ok(None),
            Some(_) => self.string(name).map(Some),
        }
    }

    fn headers(&self) -> Result<HeaderMap, Invalid> {
        let field = self.field("headers");
        let Some(value) = self.get("headers") else {
            return Ok(HeaderMap::new());
        };
        let Some(entries) = value.as_array() else {
            return Err((field, format!("expected an array, found {}", kind(value))));
        };
        let mut headers = HeaderMap::with_capacity(entries.len());
        for (i, entry) in entries.iter().enumerate() {
            let path = format!("{field}[{i}]");
            let (name, value): (&str, Cow<'_, [u8]>) = match entry {
                Value::String(line) => {
                    let Some((name, value)) = line.split_once(": ") else {
                        return Err((path, format!("expected \"name: value\", found {line:?}")));
                    };
                    (name, Cow::Borrowed(value.as_bytes()))
                }
                Value::Object(_) => {
                    let object = Object::new(entry, path.clone(), &["name", "value_base64"])?;
                    let name = object.string("name")?;
                    let encoded = object.string("value_base64")?;
                    let value = forgiving_base64_decode(encoded).ok_or_else(|| {
                        (object.field("value_base64"), "not valid base64".to_owned())
                    })?;
                    (name, Cow::Owned(value))
                }
                other => {
                    return Err((
                        path,
                        format!(
                            "expected \"name: value\" or {{\"name\", \"value_base64\"}}, found {}",
                            kind(other)
                        ),
                    ));
                }
            };
            let header_name = HeaderName::from_bytes(name.as_bytes())
                .map_err(|_| (path.clone(), format!("{name:?} is not a valid header name")))?;
            let header_value = HeaderValue::from_bytes(&value).map_err(|_| {
                (
                    path.clone(),
                    format!(
                        "{:?} is not a valid header value",
                        String::from_utf8_lossy(&value)
                    ),
                )
            })?;
            headers.append(header_name, header_value);
        }
        Ok(headers)
    }

    fn body(&self) -> Result<Bytes, Invalid> {
        match (self.get("body"), self.get("body_base64")) {
            (Some(_), Some(_)) => Err((
                self.field("body_base64"),
                "only one of `body` and `body_base64` may be given".to_owned(),
            )),
            (Some(_), None) => Ok(Bytes::copy_from_slice(self.string("body")?.as_bytes())),
            (None, Some(_)) => {
                let encoded = self.string("body_base64")?;
                forgiving_base64_decode(encoded)
                    .map(Bytes::from)
                    .ok_or_else(|| (self.field("body_base64"), "not valid base64".to_owned()))
            }
            (None, None) => Ok(Bytes::new()),
        }
    }
}

/// How an error names the object at `path`: the file itself is at the empty path.
fn place(path: &str) -> String {
    if path.is_empty() {
        "the file".to_owned()
    } else {
        path.to_owned()
    }
}

/// What a JSON value is, for errors.
fn kind(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

fn parse_file(value: &Value) -> Result<Vec<Exchange>, Invalid> {
    let file = Object::new(value, String::new(), &["version", "exchanges"])?;
    let version = file.required("version")?;
    if version.as_u64() != Some(FORMAT_VERSION) {
        return Err((
            "version".to_owned(),
            format!(
                "version {version} is not supported: this build reads version {FORMAT_VERSION}"
            ),
        ));
    }
    let exchanges = file.required("exchanges")?;
    let Some(exchanges) = exchanges.as_array() else {
        return Err((
            "exchanges".to_owned(),
            format!("expected an array, found {}", kind(exchanges)),
        ));
    };
    exchanges
        .iter()
        .enumerate()
        .map(|(index, value)| parse_exchange(index, value))
        .collect()
}

fn parse_exchange(index: usize, value: &Value) -> Result<Exchange, Invalid> {
    let exchange = Object::new(
        value,
        format!("exchanges[{index}]"),
        &["request", "response"],
    )?;
    let request = Object::new(
        exchange.required("request")?,
        exchange.field("request"),
        &["method", "url", "headers", "body", "body_base64"],
    )?;
    let response = Object::new(
        exchange.required("response")?,
        exchange.field("response"),
        &[
            "status",
            "version",
            "reason",
            "headers",
            "body",
            "body_base64",
        ],
    )?;

    let method = request.string("method")?;
    let method = Method::from_bytes(method.as_bytes()).map_err(|_| {
        (
            request.field("method"),
            format!("{method:?} is not a valid method"),
        )
    })?;
    let written = request.string("url")?;
    // Kept as the URL parser serializes it, as a request's URL is sent: a URL written
    // `http://api.test?q` (no path) is the `http://api.test/?q` a client asks for, and is
    // matched as that, not never.
    let url = match url::Url::parse(written) {
        Ok(mut url) => {
            url.set_fragment(None);
            String::from(url)
        }
        Err(_) => {
            return Err((
                request.field("url"),
                format!("{written:?} is not an absolute URL"),
            ));
        }
    };

    let status = response.required("status")?;
    let status = status
        .as_u64()
        .and_then(|code| u16::try_from(code).ok())
        .and_then(|code| StatusCode::from_u16(code).ok())
        .ok_or_else(|| {
            (
                response.field("status"),
                format!("{status} is not an HTTP status (100–999)"),
            )
        })?;
    let version = match response.optional_string("version")? {
        None | Some("HTTP/1.1") => Version::HTTP_11,
        Some("HTTP/0.9") => Version::HTTP_09,
        Some("HTTP/1.0") => Version::HTTP_10,
        Some("HTTP/2.0") => Version::HTTP_2,
        Some("HTTP/3.0") => Version::HTTP_3,
        Some(other) => {
            return Err((
                response.field("version"),
                format!(
                    "{other:?} is not one of \"HTTP/1.0\", \"HTTP/1.1\", \"HTTP/2.0\", \"HTTP/3.0\""
                ),
            ));
        }
    };
    let reason = match response.optional_string("reason")? {
        None => None,
        Some(reason) => {
            let bytes: Option<Vec<u8>> = reason
                .chars()
                .map(|c| u8::try_from(u32::from(c)).ok())
                .collect();
            let bytes = bytes
                .filter(|bytes| hyper::ext::ReasonPhrase::try_from(bytes.as_slice()).is_ok())
                .ok_or_else(|| {
                    (
                        response.field("reason"),
                        format!("{reason:?} is not a valid reason phrase"),
                    )
                })?;
            Some(Bytes::from(bytes))
        }
    };

    Ok(Exchange {
        index,
        method,
        url,
        request_headers: request.headers()?,
        request_body: request.body()?,
        status,
        version,
        reason,
        response_headers: response.headers()?,
        response_body: response.body()?,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exchange() -> Exchange {
        let mut headers = HeaderMap::new();
        headers.append("content-type", HeaderValue::from_static("text/plain"));
        headers.append("x-raw", HeaderValue::from_bytes(b"\xff\xfe").unwrap());
        headers.append("x-spaced", HeaderValue::from_static(" a: b "));
        Exchange {
            index: 0,
            method: Method::PATCH,
            url: "http://api.test/a?b=1".into(),
            request_headers: HeaderMap::new(),
            request_body: Bytes::from_static(b"\x00\xff"),
            status: StatusCode::CREATED,
            version: Version::HTTP_10,
            reason: Some(Bytes::from_static(b"Made \xe9")),
            response_headers: headers,
            response_body: Bytes::from_static("caf\u{e9}".as_bytes()),
        }
    }

    #[test]
    fn an_exchange_survives_its_file() {
        let text = to_json(&[exchange()]);
        let parsed = parse(&text).unwrap();
        let (before, after) = (exchange(), &parsed[0]);
        assert_eq!(after.method, before.method);
        assert_eq!(after.url, before.url);
        assert_eq!(after.request_body, before.request_body);
        assert_eq!(after.status, before.status);
        assert_eq!(after.version, before.version);
        assert_eq!(after.reason, before.reason);
        assert_eq!(after.response_headers, before.response_headers);
        assert_eq!(after.response_body, before.response_body);
        assert!(text.contains("\"body_base64\": \"AP8=\""), "{text}");
        assert!(text.contains("\"body\": \"café\""), "{text}");
        assert!(text.contains("\"x-spaced:  a: b \""), "{text}");
        assert!(text.contains("\"value_base64\": \"//4=\""), "{text}");
    }

    #[test]
    fn broken_json_counts_columns_from_one() {
        for (text, line, column) in [("{\n", 2, 1), ("{\n  \"version\": 1,\n", 3, 1), ("", 1, 1)] {
            match parse(text) {
                Err(RecordingFileError::Json {
                    line: got_line,
                    column: got_column,
                    ..
                }) => assert_eq!((got_line, got_column), (line, column), "{text:?}"),
                other => panic!("{text:?}: {other:?}"),
            }
        }
    }

    #[test]
    fn wrong_values_name_their_field() {
        let cases = [
            (r#"{"version": 2, "exchanges": []}"#, "version"),
            (r#"{"exchanges": []}"#, "the file"),
            ("[]", "the file"),
            (
                r#"{"version": 1, "exchanges": [], "extra": true}"#,
                "the file",
            ),
            (
                r#"{"version": 1, "exchanges": [{"request": {"method": "GET", "url": "/rel"}, "response": {"status": 200}}]}"#,
                "exchanges[0].request.url",
            ),
            (
                r#"{"version": 1, "exchanges": [{"request": {"method": "GET", "url": "http://a.test/"}, "response": {"status": 1000}}]}"#,
                "exchanges[0].response.status",
            ),
            (
                r#"{"version": 1, "exchanges": [{"request": {"method": "GET", "url": "http://a.test/", "headers": ["nocolon"]}, "response": {"status": 200}}]}"#,
                "exchanges[0].request.headers[0]",
            ),
            (
                r#"{"version": 1, "exchanges": [{"request": {"method": "GET", "url": "http://a.test/"}, "response": {"status": 200, "body_base64": "!!"}}]}"#,
                "exchanges[0].response.body_base64",
            ),
            (
                r#"{"version": 1, "exchanges": [{"request": {"method": "GET", "url": "http://a.test/", "bodyy": ""}, "response": {"status": 200}}]}"#,
                "exchanges[0].request",
            ),
        ];
        for (text, expected) in cases {
            match parse(text) {
                Err(RecordingFileError::Invalid { field, .. }) => assert_eq!(field, expected),
                other => panic!("{text}: {other:?}"),
            }
        }
    }
}
