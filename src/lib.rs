//! # whatwg-fetch
//!
//! The [WHATWG Fetch Standard](https://fetch.spec.whatwg.org/) in Rust: `fetch()`,
//! [`Headers`], [`Request`], [`Response`], bodies, [`FormData`], [`Blob`]/[`File`] and
//! [`AbortController`]/[`AbortSignal`], with the semantics browsers, Deno and Node promise —
//! the same guards, defaults and errors — over a network layer of its own built to survive
//! hostile servers.
//!
//! - [Quick start](#quick-start)
//! - [Requests the reqwest way](#requests-the-reqwest-way)
//! - [JSON](#json)
//! - [Forms and files](#forms-and-files)
//! - [Streaming](#streaming)
//! - [Server-sent events](#server-sent-events)
//! - [WebSocket](#websocket)
//! - [Errors](#errors)
//! - [Clients and environments](#clients-and-environments)
//! - [Limits and timeouts](#limits-and-timeouts)
//! - [What is implemented](#what-is-implemented)
//! - [Cargo features](#cargo-features)
//!
//! ## Quick start
//!
//! [`fetch()`] takes a URL (or a [`Request`]) and a [`RequestInit`], and resolves once the
//! response head has arrived; the body is read afterwards, once. The free function shares
//! one pooled [`Client`]; build your own with [`Client::builder`] to configure it.
//!
//! ```
//! use whatwg_fetch::{fetch, RequestInit};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), whatwg_fetch::Error> {
//! // `data:` URLs need no network, so this example runs anywhere.
//! let mut response = fetch("data:text/plain,hello%20world", RequestInit::default()).await?;
//! assert!(response.ok());
//! assert_eq!(response.status(), 200);
//! assert_eq!(response.headers().get("content-type")?.as_deref(), Some("text/plain"));
//! assert_eq!(response.text().await?, "hello world");
//! # Ok(())
//! # }
//! ```
//!
//! Over the network it is the same call; a [`RequestInit`] field that is `None` means what
//! an absent member means in JavaScript:
//!
//! ```no_run
//! use whatwg_fetch::{fetch, RequestInit, RequestRedirect};
//!
//! # async fn run() -> Result<(), whatwg_fetch::Error> {
//! let mut response = fetch("https://example.com/", RequestInit {
//!     method: Some("HEAD".into()),
//!     redirect: Some(RequestRedirect::Manual),
//!     ..Default::default()
//! })
//! .await?;
//! println!("{} {}", response.status(), response.status_text());
//! for (name, value) in response.headers().iter() {
//!     println!("{name}: {value}");
//! }
//! # Ok(())
//! # }
//! ```
//!
//! ## Requests the reqwest way
//!
//! [`Client::get`], [`Client::post`] and the others named after HTTP's methods give a
//! [`RequestBuilder`] with reqwest's names, which makes the same [`Request`] a
//! [`RequestInit`] would and fetches it with the same algorithm;
//! [`Response::error_for_status`] turns a 4xx or 5xx into an [`Error`] that
//! [`is_status`](Error::is_status).
//!
//! ```
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), whatwg_fetch::Error> {
//! use whatwg_fetch::Client;
//!
//! let client = Client::builder().build()?;
//! let text = client
//!     .get("data:text/plain,hello")
//!     .header("accept", "text/plain")
//!     .send()
//!     .await?
//!     .error_for_status()?
//!     .text()
//!     .await?;
//! assert_eq!(text, "hello");
//! # Ok(())
//! # }
//! ```
//!
//! ## JSON
//!
//! `Response::json` reads and parses the body into any serde `DeserializeOwned` type, as
//! JavaScript's `response.json()` and reqwest's do; the spec's static constructor
//! `Response.json(data)` is `Response::from_json`. To send JSON, give the text as the body and
//! say its type, or use [`RequestBuilder::json`].
//!
//! ```
//! use whatwg_fetch::{Request, RequestInit, Response, ResponseInit};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // What a server would answer; `fetch()` gives the same kind of `Response`.
//! let mut response = Response::from_json(&serde_json::json!({ "items": [1, 2, 3] }), ResponseInit::default())?;
//! let listing: serde_json::Value = response.json().await?;
//! assert_eq!(listing["items"][2], 3);
//!
//! // A JSON request body.
//! let request = Request::new("https://api.example/items", RequestInit {
//!     method: Some("POST".into()),
//!     headers: Some([("content-type", "application/json")].into()),
//!     body: Some(serde_json::to_string(&serde_json::json!({ "name": "x" }))?.into()),
//!     ..Default::default()
//! })?;
//! assert_eq!(request.headers().get("content-type")?.as_deref(), Some("application/json"));
//! # Ok(())
//! # }
//! ```
//!
//! A body that is not JSON is a `SyntaxError`, as `response.json()` rejects in JavaScript.
//!
//! ## Forms and files
//!
//! A [`FormData`] body goes out as `multipart/form-data` with a generated boundary; a
//! `url::Url`'s query (URLSearchParams) as `application/x-www-form-urlencoded`; a
//! [`Blob`] or [`File`] as its bytes with its type. `Response::form_data` parses either
//! form type back. reqwest's form calls are in [`multipart`] ([`multipart::Form`],
//! [`multipart::Part`]), over the same `FormData`; the blocking client sends a
//! `std::io::Read` with [`blocking::Body`].
//!
//! ```
//! use whatwg_fetch::{File, FilePropertyBag, FormData, Request, RequestInit};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), whatwg_fetch::Error> {
//! let mut form = FormData::new();
//! form.append("title", "Holiday");
//! let photo = File::new([&b"\x89PNG..."[..]], "beach.png", FilePropertyBag {
//!     r#type: Some("image/png".into()),
//!     ..Default::default()
//! });
//! form.append_blob("photo", photo, None);
//!
//! let mut request = Request::new("https://photos.example/upload", RequestInit {
//!     method: Some("POST".into()),
//!     body: Some(form.into()),
//!     ..Default::default()
//! })?;
//! let content_type = request.headers().get("content-type")?.unwrap_or_default();
//! assert!(content_type.starts_with("multipart/form-data; boundary="));
//!
//! // Reading it back, as a server-side handler would.
//! let parsed = request.form_data().await?;
//! assert_eq!(parsed.get("title").and_then(|value| value.as_str()), Some("Holiday"));
//! assert_eq!(parsed.get("photo").and_then(|value| value.as_file()).map(|file| file.name()), Some("beach.png"));
//! # Ok(())
//! # }
//! ```
//!
//! ## Streaming
//!
//! A response body is pulled from the connection only as it is read: take it with
//! [`Response::take_body`] and read it as a [`futures_core::Stream`] of
//! [`bytes::Bytes`] (it is an [`http_body::Body`] too). An upload can stream as well:
//! [`BodyInit::stream`] with `duplex: Some(RequestDuplex::Half)`, sent with
//! `Transfer-Encoding: chunked` over HTTP/1.1 as it is produced.
//!
//! ```
//! use futures_util::StreamExt;
//! use whatwg_fetch::{fetch, BodyInit, Request, RequestDuplex, RequestInit};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), whatwg_fetch::Error> {
//! let mut response = fetch("data:,a%20body%20read%20in%20chunks", RequestInit::default()).await?;
//! let mut body = response.take_body().expect("a data: URL has a body");
//! let mut received = 0;
//! while let Some(chunk) = body.next().await {
//!     received += chunk?.len();
//! }
//! assert_eq!(received, 21);
//!
//! // A streamed upload: the chunks go out as the stream yields them.
//! let chunks = futures_util::stream::iter(["part 1, ", "part 2"])
//!     .map(|chunk| Ok::<_, std::io::Error>(bytes::Bytes::from(chunk)));
//! let request = Request::new("https://example.com/upload", RequestInit {
//!     method: Some("PUT".into()),
//!     body: Some(BodyInit::stream(chunks)),
//!     duplex: Some(RequestDuplex::Half),
//!     ..Default::default()
//! })?;
//! assert_eq!(request.method(), "PUT");
//! # Ok(())
//! # }
//! ```
//!
//! ## Server-sent events
//!
//! [`EventSource`] is the HTML Standard's: a fetch of the client's (its TLS, proxies,
//! cookies and pool), its `text/event-stream` parsed as the standard says, reconnected
//! after the server's `retry` delay with `Last-Event-ID` when it drops, with a back-off
//! when attempts keep failing and limits on what a server may make it hold. It is a
//! [`Stream`](futures_core::Stream) of [`event_source::Event`]s that ends with an error
//! when the connection fails for good. [`RequestBuilder::event_source`] makes one of a
//! request of the caller's own (a token, a `POST` with a body), and
//! [`Response::event_stream`] parses a body already fetched, without reconnecting.
//!
//! ```no_run
//! use futures_util::StreamExt;
//! use whatwg_fetch::Client;
//! use whatwg_fetch::event_source::Event;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), whatwg_fetch::Error> {
//! let client = Client::new();
//! let mut events = client.get("https://example.com/feed").bearer_auth("token").event_source()?;
//! while let Some(event) = events.next().await {
//!     match event {
//!         Ok(Event::Message(message)) => {
//!             println!("{} #{}: {}", message.r#type(), message.last_event_id(), message.data());
//!         }
//!         Ok(_) => {}
//!         // The last item: the connection failed for good (a status other than 200, say).
//!         Err(error) => println!("closed: {error}"),
//!     }
//! }
//! # Ok(())
//! # }
//! ```
//!
//! ## WebSocket
//!
//! [`Client::websocket`] opens a [`WebSocket`] with the WebSockets Standard's handshake,
//! a fetch of the client's (its TLS, proxies, cookie jar, HSTS; no redirects), offering
//! `permessage-deflate`. The socket is a [`Stream`](futures_core::Stream) and a
//! [`Sink`](futures_sink::Sink) of [`websocket::Message`]s: pings are answered by the
//! connection, the server's Close ends the stream, and [`websocket::WebSocketLimits`]
//! bound what a server may make it hold (frames, messages, fragments, control floods,
//! inflated size, the closing handshake's time).
//!
//! ```no_run
//! use futures_util::StreamExt;
//! use whatwg_fetch::Client;
//! use whatwg_fetch::websocket::Message;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), whatwg_fetch::Error> {
//! let client = Client::new();
//! let mut socket = client
//!     .websocket("wss://example.com/updates")
//!     .protocols(["v2.updates"])
//!     .header("Authorization", "Bearer token")
//!     .connect()
//!     .await?;
//! socket.send("subscribe").await?;
//! while let Some(message) = socket.next().await {
//!     match message? {
//!         Message::Text(text) => println!("{text}"),
//!         Message::Close(frame) => println!("closed: {frame:?}"),
//!         _ => {}
//!     }
//! }
//! # Ok(())
//! # }
//! ```
//!
//! ## Errors
//!
//! Every fallible call returns [`Error`]. [`Error::kind`] names the JavaScript exception
//! the spec throws ([`ErrorKind::TypeError`] for invalid input and for every network
//! error, `RangeError`, `SyntaxError`, `AbortError`, …); for a network error,
//! [`Error::network_error`] says what failed ([`NetworkError`]: DNS, connect, TLS,
//! protocol, timeout, too many redirects, CORS, a body over its size limit, …), and the
//! cause below it is on [`std::error::Error::source`]. The `Display` names the URL and
//! what failed, as `TypeError: network error for http://127.0.0.1:59999/: connect to
//! 127.0.0.1:59999 failed: Connection refused (os error 111)`.
//!
//! ```
//! use whatwg_fetch::{fetch, AbortController, ErrorKind, NetworkError, RequestInit};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() {
//! // A network error is a TypeError, with its reason underneath.
//! let error = fetch("http://127.0.0.1:1/", RequestInit::default()).await.unwrap_err();
//! assert_eq!(error.kind(), ErrorKind::TypeError);
//! assert!(matches!(error.network_error(), Some(NetworkError::BadPort(1))));
//! // Its message names the URL and the reason.
//! assert_eq!(
//!     error.to_string(),
//!     "TypeError: network error for http://127.0.0.1:1/: port 1 is blocked"
//! );
//! assert_eq!(error.url(), Some("http://127.0.0.1:1/"));
//!
//! // An aborted fetch rejects with the signal's reason: an AbortError by default.
//! let controller = AbortController::new();
//! controller.abort(None);
//! let error = fetch("data:,x", RequestInit {
//!     signal: Some(controller.signal()),
//!     ..Default::default()
//! })
//! .await
//! .unwrap_err();
//! assert_eq!(error.kind(), ErrorKind::AbortError);
//! # }
//! ```
//!
//! ## Clients and environments
//!
//! A [`Client`] holds the connection pool, the options and the [`Environment`] its requests
//! are made from. The default environment is **server-side**, like Deno and Node: no
//! origin, no CORS, forbidden request-headers (`Host`, `Cookie`, …) sent as given,
//! `Set-Cookie` visible, no cookie store or HTTP cache unless asked for. Give the client an
//! origin and it is **browser-like**: the request guard drops forbidden headers, `Origin`,
//! `Referer` and `Sec-Fetch-*` are sent, CORS and mixed content are enforced, and a cookie
//! store, an HTTP cache and HSTS are on.
//!
//! ```
//! use std::time::Duration;
//! use whatwg_fetch::Client;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let server_side = Client::builder()
//!     .timeout(Duration::from_secs(30))
//!     .max_connections_per_origin(16)
//!     .user_agent("my-service/1.0")
//!     .build()?;
//! assert!(server_side.cookie_store().is_none());
//!
//! let browser_like = Client::builder()
//!     .origin("https://app.example/".parse()?)
//!     .build()?;
//! assert!(browser_like.cookie_store().is_some());
//! # Ok(())
//! # }
//! ```
//!
//! Below the Fetch algorithms, the network layer ([`net`]) is reached through the
//! [`net::Transport`] trait: the default [`net::HyperTransport`] (its own HTTP/1.1
//! connections and pool, HTTP/2 on the h2 library, rustls, proxies), or your own — a mock for tests, another HTTP
//! stack — with [`ClientBuilder::transport`]. For tests, the `mock` feature's
//! `whatwg_fetch::mock::MockTransport` answers requests from interceptors and records
//! them, with the whole fetch algorithm (redirects, CORS, cookies, the cache) above it, as
//! undici's `MockAgent` does; the `record` feature's `whatwg_fetch::record` records real
//! exchanges to a file and replays them offline, as VCR and undici's `SnapshotAgent` do. [`Request`], [`Response`] and [`Headers`]
//! convert to and from the `http` crate's types (see [`interop`]).
//!
//! ## Limits and timeouts
//!
//! The default client bounds what a server can make it do, and every bound is an option:
//!
//! | What a peer controls | Default | Option |
//! | --- | --- | --- |
//! | time without a byte, waiting for the head or inside the body | 300 s, then `NetworkError::Timeout` | [`ClientBuilder::read_timeout`] |
//! | bytes gathered by `bytes()`, `text()`, `json()`, `blob()`, `form_data()` | 256 MiB, then `NetworkError::BodyTooLarge` | [`ClientBuilder::max_buffered_body_size`], [`Response::set_max_body_size`] |
//! | bytes delivered however the body is read, streams included | no limit | [`ClientBuilder::max_response_body_size`] |
//! | stacked content codings (`Content-Encoding: br, gzip, …`) | 5 (as curl) | — |
//! | redirects | 20 (the spec's) | `RequestInit::redirect` |
//! | cookies a site may set | 4 KiB each, 180 a site, 3,300 in all (as Chrome) | [`cookie::CookieStore::with_limits`] |
//! | response head size and header count | 256 KiB over HTTP/1.1 and HTTP/2 (as Chrome), 2,000 HTTP/1.1 fields (Node's) | [`ClientBuilder::http1_max_header_size`], [`ClientBuilder::http1_max_headers`], [`ClientBuilder::http2_max_header_list_size`] |
//! | a WebSocket's frames, messages, fragments, control frames; a send to a server that stops reading; the closing handshake | 16 MiB, 64 MiB, 16,384, 1,000 a second; 30 s without progress (64 KiB and one message queued, one pong); 10 s | [`websocket::WebSocketLimits`] |
//! | what another writer leaves in the Redis of a shared cache or cookie jar (`redis` feature) | read no further than the store's own values: the largest record and a byte (16 MiB); a domain's cookies, 376 fields of at most 8 KiB and values of at most 64 KiB; larger ones left out and counted | `RedisCacheStoreBuilder::max_record_bytes`, [`cookie::CookieLimits`] |
//! | an event source's reconnections (`retry: 0`, streams that end at once) | 1 s apart at least, doubling to 60 s while connections fail or end within 10 s | [`EventSource::min_reconnection_time`], [`EventSource::max_reconnection_backoff`], [`EventSource::stable_connection_time`] |
//!
//! A request that a server drops on a reused keep-alive connection before answering is
//! sent once more on a new connection when it is idempotent and its body can be replayed,
//! as curl and browsers do; nothing else is ever sent twice, unless the client has a
//! [`retry::RetryPolicy`] ([`ClientBuilder::retry`]): then an idempotent fetch that ends in
//! a `429`, a `503` or a network error another try may get past runs again, after its
//! `Retry-After` or a backoff with jitter, at most 3 times in all and within a budget per
//! client, all inside the client's `timeout`. A request whose framing
//! headers (`Content-Length`, `Transfer-Encoding`, `Host`) disagree with its body is
//! refused with a `TypeError` before anything is sent.
//!
//! ## What is implemented
//!
//! - The Fetch Standard's algorithms as functions named after them, step by step: main
//!   fetch, scheme fetch (`about:`, `blob:`, `data:`, `file:` when enabled, `http(s):`),
//!   HTTP fetch, HTTP-redirect fetch, HTTP-network-or-cache fetch, CORS and preflight (with
//!   its cache), referrer policy, Subresource Integrity, mixed content, Fetch Metadata,
//!   HSTS, the keepalive quota, cross-origin resource policy.
//! - Opt-in retries of whole fetches ([`retry`]): idempotent requests, `Retry-After`,
//!   backoff with jitter, a retry budget per client.
//! - An HTTP cache (RFC 9111: freshness, validation, `Vary`, ranges,
//!   `stale-while-revalidate`) and a cookie store (RFC 6265 with the Public Suffix List).
//! - HTTP/1.1 and HTTP/2 (ALPN or prior knowledge), Happy Eyeballs, rustls with the
//!   system's trust store and the Mozilla roots (or your own, client certificates,
//!   TLS versions), HTTP, HTTPS and SOCKS5 proxies, Unix domain sockets, an async
//!   resolver, gzip/deflate/br/zstd decoding.
//! - Conformance: the web-platform-tests for Fetch run against this crate through an
//!   embedded JavaScript engine; [the README] has the scoreboard, directory by directory.
//!
//!
//! ## Cargo features
//!
//! Every feature but `ring`, `mock`, `record`, `tower`, `tracing`, `hickory-dns`, `redis` and `http3` is on by default; each one off takes its dependencies out of the build
//! ([the README] gives the counts). On docs.rs every feature is built, and each item says
//! the feature it needs.
//!
//! | Feature | What it adds |
//! | --- | --- |
//! | `http2` | HTTP/2, offered by ALPN on `https:` and spoken with prior knowledge (the `h2` crate). Without it, only HTTP/1.1 is offered, and asking for HTTP/2 fails [`ClientBuilder::build`]. |
//! | `gzip`, `deflate`, `brotli`, `zstd` | Decoding each content coding, and naming it in `Accept-Encoding` ([`net::ACCEPT_ENCODING`]); a response in a coding left out is delivered as it came. `zstd` builds the C library libzstd. |
//! | `system-roots` | Trusting the system's certificate store ([`ClientBuilder::tls_system_roots`]). |
//! | `built-in-roots` | Trusting Mozilla's root certificates, compiled in ([`ClientBuilder::tls_built_in_roots`]). With neither roots feature, `https:` works only with roots you add; without any, the handshake fails saying so. |
//! | `aws-lc-rs` | TLS and QUIC on aws-lc-rs (it builds the C library aws-lc), offering the post-quantum hybrid key exchange `X25519MLKEM768` first and `X25519` beside it, as Chrome and Firefox do; [`net::TlsInfo::key_exchange_group`] says which one a connection used. |
//! | `ring` (off by default) | TLS and QUIC on ring, for targets aws-lc does not build on: no post-quantum key exchange. With both, aws-lc-rs is used; with neither, the provider the program installed with `rustls::crypto::CryptoProvider::install_default` (and [`ClientBuilder::build`] fails saying so when there is none). |
//! | `mock` (off by default) | The `mock` module: a `Transport` answering requests from interceptors, for tests. |
//! | `record` (off by default) | The `record` module: a `Transport` recording real exchanges to a JSON file (secrets redacted), and one replaying them offline, byte for byte, for tests. |
//! | `tower` (off by default) | [`Client`] as a `tower::Service` (the `middleware` module) and `ClientBuilder::transport_layer`, for tower layers around whole fetches and around each network request. |
//! | `tracing` (off by default) | A `tracing` span per fetch (`fetch`, at INFO) and per network request (`http_request`, at DEBUG), with the fields [the README]'s "Tracing" lists. |
//! | `hickory-dns` (off by default) | `net::HickoryResolver`, hickory's DNS stub resolver as a `net::Resolve` (the system's name servers, or a configuration of one's own), and `ClientBuilder::hickory_dns` to use it, as reqwest's feature of that name; unlike reqwest's, it is never the default. Needs Rust 1.88. |
//! | `redis` (off by default) | [`cache::RedisCacheStore`][RedisCacheStore] and [`cookie::RedisCookieStore`][RedisCookieStore]: the HTTP cache's responses and the cookie jar on Redis, shared by every client of a fleet (the cache read through before the network and written behind it). |
//! | `http3` (off by default; unstable while the `h3` crates are 0.0.x) | HTTP/3 over QUIC (`quinn`, `h3`): `ClientBuilder::http3_prior_knowledge` for every `https:` request, or `Alt-Svc` discovery raced against TCP (`ClientBuilder::http3`), 0-RTT with `ClientBuilder::tls_early_data`, `net::AltSvcCache` to keep what origins announced. Needs `aws-lc-rs` or `ring`. [`Response::version`] and [`ResourceTiming::next_hop_protocol`] say `HTTP/3` / `h3` for a response that came over it. |
//!
//! The cookie store, the HTTP cache, SOCKS and the rest have no dependencies of their own
//! and are always built; each is off at run time unless its environment or option turns
//! it on.
//!
//! [the README]: https://docs.rs/crate/whatwg-fetch/latest/source/README.md
#![cfg_attr(
    feature = "redis",
    doc = "[RedisCacheStore]: cache::RedisCacheStore",
    doc = "[RedisCookieStore]: cookie::RedisCookieStore"
)]
#![cfg_attr(
    not(feature = "redis"),
    doc = "[RedisCacheStore]: https://docs.rs/whatwg-fetch/latest/whatwg_fetch/cache/struct.RedisCacheStore.html",
    doc = "[RedisCookieStore]: https://docs.rs/whatwg-fetch/latest/whatwg_fetch/cookie/struct.RedisCookieStore.html"
)]
#![deny(missing_docs)]
// docs.rs (`--cfg docsrs`, every feature): each item says the feature it needs.
#![cfg_attr(docsrs, feature(doc_cfg))]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

/// Defines a Web IDL enumeration: a Rust enum whose variants map one to one to the IDL
/// strings, with `as_str`, `Display` and `FromStr` (a `TypeError` for any other string, as
/// Web IDL's conversion throws).
macro_rules! idl_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $value:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$variant_meta])* $variant, )+
        }

        impl $name {
            /// The IDL string for this value.
            ///
            #[doc = concat!(
                "```\nuse whatwg_fetch::", stringify!($name), ";\n\n",
                "// Each value and its IDL string, both ways, as JavaScript passes them.\n",
                "for value in [", $( stringify!($name), "::", stringify!($variant), ", ", )+ "] {\n",
                "    assert_eq!(value.as_str().parse::<", stringify!($name), ">()?, value);\n",
                "}\n",
                "# Ok::<(), whatwg_fetch::Error>(())\n```",
            )]
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $value, )+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = crate::Error;

            /// Parses the IDL string.
            ///
            /// # Errors
            /// A `TypeError` for a string that is not one of the enumeration's values.
            fn from_str(value: &str) -> Result<Self, Self::Err> {
                match value {
                    $( $value => Ok($name::$variant), )+
                    _ => Err(crate::Error::type_error(format!(
                        "{value:?} is not a valid value for enumeration {}",
                        stringify!($name)
                    ))),
                }
            }
        }
    };
}

/// The consuming methods of the [Body mixin](https://fetch.spec.whatwg.org/#body-mixin),
/// for a type with `body: Option<Body>` and `headers: Headers` fields; `$json` names the
/// JSON method (`json` for both: `Response`'s static constructor is `from_json`).
macro_rules! body_mixin {
    // `$uses`: the `use` line of an example; `$make` and `$made`: the Rust around a body's
    // expression that makes a `mut value` with that body.
    ($json:ident, $uses:literal, $make:literal, $made:literal) => {
        fn consume(&mut self) -> $crate::Result<Option<$crate::body::Body>> {
            $crate::request::consume_body(&mut self.body)
        }

        /// [`bytes()`](https://fetch.spec.whatwg.org/#dom-body-bytes): the whole body.
        ///
        /// The body is marked used at once; the returned future owns it.
        ///
        #[doc = concat!(
            "```\n# tokio_test::block_on(async {\n", $uses, "\n\n",
            "let mut value = ", $make, "b\"\\x00\\x01binary\".to_vec()", $made, ";\n",
            "assert_eq!(&value.bytes().await?[..], b\"\\x00\\x01binary\");\n",
            "// A body is read once: the second read is a `TypeError`.\n",
            "assert!(value.body_used());\n",
            "assert!(value.bytes().await.is_err());\n",
            "# Ok::<(), whatwg_fetch::Error>(())\n# }).unwrap();\n```",
        )]
        ///
        /// # Errors
        /// A `TypeError` if the body is used, or the stream's error.
        pub fn bytes(
            &mut self,
        ) -> impl std::future::Future<Output = $crate::Result<bytes::Bytes>> + Send + 'static {
            $crate::request::read_bytes(self.consume(), self.body_url())
        }

        /// [`text()`](https://fetch.spec.whatwg.org/#dom-body-text): the body, UTF-8
        /// decoded.
        ///
        #[doc = concat!(
            "```\n# tokio_test::block_on(async {\n", $uses, "\n\n",
            "let mut value = ", $make, "b\"caf\\xC3\\xA9 \\xFF\".to_vec()", $made, ";\n",
            "// Bytes that are not UTF-8 decode to U+FFFD, as `TextDecoder` does.\n",
            "assert_eq!(value.text().await?, \"café \\u{FFFD}\");\n",
            "# Ok::<(), whatwg_fetch::Error>(())\n# }).unwrap();\n```",
        )]
        ///
        /// # Errors
        /// As [`bytes`](Self::bytes).
        pub fn text(
            &mut self,
        ) -> impl std::future::Future<Output = $crate::Result<String>> + Send + 'static {
            $crate::request::read_text(self.consume(), self.body_url())
        }

        /// [`json()`](https://fetch.spec.whatwg.org/#dom-body-json): the body parsed as
        /// JSON.
        ///
        #[doc = concat!(
            "```\n# tokio_test::block_on(async {\n", $uses, "\n\n",
            "#[derive(serde::Deserialize)]\nstruct Item {\n    id: u32,\n    name: String,\n}\n\n",
            "let mut value = ", $make, "r#\"{\"id\": 7, \"name\": \"lamp\"}\"#", $made, ";\n",
            "let item: Item = value.json().await?;\n",
            "assert_eq!((item.id, item.name.as_str()), (7, \"lamp\"));\n\n",
            "let mut value = ", $make, "\"[1, 2,\"", $made, ";\n",
            "let error = value.json::<Vec<u32>>().await.unwrap_err();\n",
            "assert_eq!(error.kind(), whatwg_fetch::ErrorKind::SyntaxError);\n",
            "# Ok::<(), whatwg_fetch::Error>(())\n# }).unwrap();\n```",
        )]
        ///
        /// # Errors
        /// As [`bytes`](Self::bytes), and a `SyntaxError` for a body that is not JSON or
        /// not of type `T`, whose message says serde's reason (what was expected, at which
        /// line and column) and, for a response, its URL.
        pub fn $json<T: serde::de::DeserializeOwned + Send + 'static>(
            &mut self,
        ) -> impl std::future::Future<Output = $crate::Result<T>> + Send + 'static {
            $crate::request::read_json(self.consume(), self.body_url())
        }

        /// [`blob()`](https://fetch.spec.whatwg.org/#dom-body-blob): the body as a
        /// [`Blob`](crate::Blob) typed with the MIME type of the headers.
        ///
        #[doc = concat!(
            "```\n# tokio_test::block_on(async {\n", $uses, "\n\n",
            "// A string body is typed `text/plain;charset=UTF-8`.\n",
            "let mut value = ", $make, "\"notes\"", $made, ";\n",
            "let blob = value.blob().await?;\n",
            "assert_eq!((blob.size(), blob.r#type()), (5, \"text/plain;charset=UTF-8\"));\n",
            "# Ok::<(), whatwg_fetch::Error>(())\n# }).unwrap();\n```",
        )]
        ///
        /// # Errors
        /// As [`bytes`](Self::bytes).
        pub fn blob(
            &mut self,
        ) -> impl std::future::Future<Output = $crate::Result<$crate::Blob>> + Send + 'static {
            let mime_type = self.headers.header_list().extract_mime_type();
            $crate::request::read_blob(self.consume(), mime_type, self.body_url())
        }

        /// [`formData()`](https://fetch.spec.whatwg.org/#dom-body-formdata): the body
        /// parsed by its `Content-Type`.
        ///
        #[doc = concat!(
            "```\n# tokio_test::block_on(async {\n", $uses, "\n\n",
            "// A `URLSearchParams`-style body is typed `application/x-www-form-urlencoded`.\n",
            "let params = vec![(\"q\".to_owned(), \"rust http\".to_owned()), (\"page\".to_owned(), \"2\".to_owned())];\n",
            "let mut value = ", $make, "whatwg_fetch::BodyInit::UrlSearchParams(params)", $made, ";\n",
            "let form = value.form_data().await?;\n",
            "assert_eq!(form.get(\"q\").and_then(|value| value.as_str()), Some(\"rust http\"));\n",
            "# Ok::<(), whatwg_fetch::Error>(())\n# }).unwrap();\n```",
        )]
        ///
        /// # Errors
        /// As [`bytes`](Self::bytes), and a `TypeError` when the type is not a form type or
        /// the body does not parse.
        pub fn form_data(
            &mut self,
        ) -> impl std::future::Future<Output = $crate::Result<$crate::FormData>> + Send + 'static {
            let mime_type = self.headers.header_list().extract_mime_type();
            $crate::request::read_form_data(self.consume(), mime_type, self.body_url())
        }
    };
}

pub mod abort;
pub mod blob;
pub mod blob_url;
pub mod blocking;
pub mod body;
pub mod cache;
pub mod client;
#[doc = include_str!("coming_from_reqwest.md")]
pub mod coming_from_reqwest {}
pub mod cookie;
pub mod data_url;
pub mod environment;
pub mod error;
pub mod event_source;
pub mod event_stream;
pub(crate) mod fetch;
pub mod form_data;
pub mod headers;
mod infra;
pub mod interop;
#[cfg(feature = "tower")]
pub mod middleware;
pub mod mime;
#[cfg(feature = "mock")]
pub mod mock;
pub mod multipart;
pub mod net;
mod peer;
#[cfg(feature = "record")]
pub mod record;
pub mod redirect;
pub mod request;
pub mod request_builder;
pub mod response;
pub mod retry;
pub mod timing;
#[cfg(feature = "tracing")]
mod trace;
pub mod upgrade;
pub mod websocket;

pub use abort::{AbortController, AbortSignal};
pub use blob::{Blob, BlobPropertyBag, File, FilePropertyBag};
pub use blob_url::BlobUrlStore;
pub use body::{Body, BodyInit};
pub use client::{Client, ClientBuilder, fetch, get};
pub use cookie::CookieStore;
pub use environment::Environment;
pub use error::{BoxError, Error, ErrorKind, NetworkError, Result, TimeoutKind};
pub use event_source::{EventSource, EventSourceInit};
pub use form_data::{FormData, FormDataEntryValue};
pub use headers::{Headers, HeadersGuard, HeadersInit};
/// The `http` crate's header names, values and map, as reqwest re-exports them: for
/// [`RequestBuilder::header`] and [`RequestBuilder::headers`].
pub use http::header;
pub use http::{Method, StatusCode, Version};
pub use mime::MimeType;
/// The option types a [`ClientBuilder`] takes, at the crate root as reqwest has them.
pub use net::{Identity, PoolStats, Proxy, Resolve, TlsVersion};
/// What TLS an `https:` response came over: see [`Response::tls_info`].
pub use peer::TlsInfo;
pub use request::{
    ReferrerPolicy, Request, RequestCache, RequestCredentials, RequestDestination, RequestDuplex,
    RequestInfo, RequestInit, RequestMode, RequestPriority, RequestRedirect,
};
pub use request_builder::RequestBuilder;
pub use response::{Response, ResponseInit, ResponseType};
pub use retry::{RetryBudget, RetryPolicy};
pub use timing::ResourceTiming;
pub use upgrade::Upgraded;
pub use url::Url;
pub use websocket::{WebSocket, WebSocketBuilder};

/// The README's examples, compiled and run as doctests: with the features they use, as
/// `cargo test --workspace` builds the crate (the `no_run` ones also run against local
/// servers, in `feature-tests/tests/doc_examples.rs`).
#[cfg(all(
    doctest,
    feature = "mock",
    feature = "record",
    feature = "tower",
    feature = "redis",
    feature = "http3"
))]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
