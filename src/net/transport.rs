//! [`HyperTransport`]: the default [`Transport`], HTTP/1.1 connections of this crate's own
//! (`net/h1.rs`) and HTTP/2 ones (`net/h2.rs`), under a pool of this crate's own. Here a
//! request is checked, given a connection (pooled, shared or new) and sent, and sent again
//! when the retry rules allow it; its HTTP/2 half is in `net/h2.rs`, the transport's
//! options in `net/builder.rs`.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use http::header::{CONTENT_LENGTH, HOST, TRANSFER_ENCODING, UPGRADE};
use http::uri::Scheme;
use http::{HeaderValue, Request, Response, StatusCode, Uri, Version};

use super::connect::{Connected, Connector};
use super::decode::decode_response_with;
use super::h1::{BodyReader, H1Error, Head, HeadLimits, Http1};
use super::h2::{H2Connection, H2Reply, Retry, StreamContext};
use super::pipeline::{PipeError, Pipeline};
use super::pool::{Checkout, Key, Pool, Pooled};
use super::request_body::RequestBody;
use super::response_body::ResponseBody;
use super::route::Route;
use super::timing::{ConnectionTiming, Recorded};
use super::{SendOptions, Transport, TransportFuture};
use crate::error::{NetworkError, TimeoutKind};

/// The default [`Transport`]: HTTP/1.1 and HTTP/2 connections of this crate's own (HTTP/2
/// on the h2 library), TLS through rustls.
///
/// Connections are pooled per origin (scheme, host, port). HTTP/1.1 connections are
/// reused once a response body has been read to its end, capped per origin (requests
/// beyond the cap wait their turn, first come first served), and closed after sitting
/// idle too long. An `https:` origin whose server picks `h2` by ALPN gets one multiplexed
/// HTTP/2 connection that every request shares (more, when every stream is taken, with
/// [`http2_max_connections_per_origin`](super::HyperTransportBuilder::http2_max_connections_per_origin)).
/// As browsers do (RFC 9113 §9.1.1), an `https:` origin without a connection of its own
/// shares another origin's HTTP/2 connection on the same port when its host resolves to
/// that connection's address and the certificate the connection verified names it too;
/// a `421 Misdirected Request` on it sends the request again on a connection of the
/// origin's own, which it keeps. (A TLS configuration of the caller's own,
/// [`rustls_config`](super::HyperTransportBuilder::rustls_config), turns this off: its verifier
/// may judge a host by more than its name.) Cloning is cheap and shares the pool.
///
/// ```
/// # tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap().block_on(async {
/// use std::time::Duration;
/// use whatwg_fetch::net::{HyperTransport, RequestBody, SendOptions, Transport};
///
/// // A one-response server on 127.0.0.1.
/// let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
/// let addr = listener.local_addr().unwrap();
/// tokio::spawn(async move {
///     use tokio::io::{AsyncReadExt, AsyncWriteExt};
///     let (mut socket, _) = listener.accept().await.unwrap();
///     let mut buf = [0; 1024];
///     let _ = socket.read(&mut buf).await;
///     socket.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nhi").await.unwrap();
/// });
///
/// let transport = HyperTransport::builder()
///     .max_connections_per_origin(8)
///     .connect_timeout(Some(Duration::from_secs(5)))
///     .build()
///     .unwrap();
/// let request = http::Request::get(format!("http://{addr}/")).body(RequestBody::empty()).unwrap();
/// let response = transport.send(request, SendOptions::new()).await.unwrap();
/// assert_eq!(response.status(), 200);
/// # });
/// ```
#[derive(Clone)]
pub struct HyperTransport {
    pub(super) inner: Arc<Inner>,
}

pub(super) struct Inner {
    pub(super) pool: Pool,
    pub(super) connector: Connector,
    pub(super) read_timeout: Option<Duration>,
    /// The response head limits, for the message of a request that passed one.
    pub(super) head_limits: HeadLimits,
    /// HTTP/3, when it may be spoken.
    #[cfg(feature = "http3")]
    pub(super) h3: Option<super::h3::H3Client>,
    /// Whether every `https:` request goes over HTTP/3.
    #[cfg(feature = "http3")]
    pub(super) http3_prior_knowledge: bool,
    /// The alternative services `https:` origins announced (RFC 7838), one partition for
    /// the transport, as its HSTS store is the client's.
    #[cfg(feature = "http3")]
    pub(super) alt_svc: Arc<super::alt_svc::AltSvcCache>,
}

/// How long a request to an origin known to speak HTTP/3 waits for a new QUIC
/// connection before it goes over TCP, the QUIC attempt going on for the requests after
/// it: Chrome's delay of the TCP job when QUIC is expected to work.
#[cfg(feature = "http3")]
const HTTP3_HEAD_START: Duration = Duration::from_millis(300);

impl Inner {
    /// The error of a wait past the read timeout.
    pub(super) fn idle_timeout(&self) -> NetworkError {
        NetworkError::Timeout {
            kind: TimeoutKind::Idle,
            after: self.read_timeout.unwrap_or_default(),
        }
    }
}

impl fmt::Debug for HyperTransport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("HyperTransport").finish_non_exhaustive()
    }
}

impl HyperTransport {
    /// A snapshot of the connection pool: per origin, the connections open, idle, in use
    /// and being made, the requests waiting, and the connections opened and closed; see
    /// [`PoolStats`](super::PoolStats). It takes the pool's lock once, for a pass over
    /// the origins; sending requests costs nothing more for it.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// # });
    /// use http_body_util::BodyExt;
    /// use whatwg_fetch::net::{HyperTransport, RequestBody, SendOptions, Transport};
    ///
    /// let transport = HyperTransport::new()?;
    /// let request = http::Request::get(format!("http://{addr}/")).body(RequestBody::empty())?;
    /// transport.send(request, SendOptions::new()).await?.into_body().collect().await?;
    /// let stats = transport.pool_stats();
    /// assert_eq!(stats.connections_opened, 1);
    /// let origin = stats.origin(&format!("http://{addr}")).expect("one connection");
    /// // Read to its end, the response gave its connection back: idle, ready for the next.
    /// assert_eq!((origin.open, origin.idle), (1, 1));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn pool_stats(&self) -> super::pool::PoolStats {
        #[cfg_attr(not(feature = "http3"), allow(unused_mut))]
        let mut stats = self.inner.pool.stats();
        #[cfg(feature = "http3")]
        if let Some(h3) = &self.inner.h3 {
            stats.http3_open = h3.open_connections();
        }
        stats
    }
}

impl Transport for HyperTransport {
    fn send(&self, request: Request<RequestBody>, options: SendOptions) -> TransportFuture {
        // With the `tracing` feature, a DEBUG span per request: `method`, `origin`, then
        // `connection` (`new` when this request opened the connection it went out on,
        // else `reused`), `version` and `status` as the response head arrives.
        #[cfg(feature = "tracing")]
        let span = tracing::debug_span!(
            "http_request",
            method = %request.method(),
            origin = %format_args!(
                "{}://{}{}",
                request.uri().scheme_str().unwrap_or_default(),
                request.uri().host().unwrap_or_default(),
                request.uri().port().map(|port| format!(":{port}")).unwrap_or_default()
            ),
            connection = "reused",
            version = tracing::field::Empty,
            status = tracing::field::Empty,
        );
        // A request an HTTP proxy with credentials for Digest may get in absolute-form:
        // a path of its own, so that no other request pays for it.
        if self
            .inner
            .connector
            .proxies
            .iter()
            .any(|proxy| proxy.digest.is_some())
        {
            let sending = send_with_proxy_digest(Arc::clone(&self.inner), request, options);
            #[cfg(feature = "tracing")]
            let sending = in_span(span, sending);
            return Box::pin(sending);
        }
        // The future of `Inner::send` itself, not one that awaits it: a future is moved
        // whole, and a second layer would move its 1.6 KB once more.
        let sending = Arc::clone(&self.inner).send(request, options);
        #[cfg(feature = "tracing")]
        let sending = in_span(span, sending);
        Box::pin(sending)
    }
}

/// Sends `request` through `inner`, answering a forwarding proxy's `407` with Digest
/// ([`Proxy::digest_auth`](super::Proxy::digest_auth)): the request goes with the answer
/// to the proxy's last challenge, if any; a `407` with a `Proxy-Authenticate: Digest`
/// challenge sends it again with the answer, once, and once more when that one is
/// answered `stale=true`. A `407` after that, or one with no challenge this client
/// answers, or to a request whose body cannot be sent again, is the response.
async fn send_with_proxy_digest(
    inner: Arc<Inner>,
    mut request: Request<RequestBody>,
    options: SendOptions,
) -> Result<Response<ResponseBody>, NetworkError> {
    let Some((digest, target)) = inner.forward_digest(&request, &options) else {
        return inner.send(request, options).await;
    };
    let method = request.method().as_str().to_owned();
    let mut answered = false;
    let mut stale_retry_left = true;
    loop {
        if let Some(value) = digest.authorization(&method, &target) {
            request
                .extensions_mut()
                .insert(super::proxy::ProxyDigestAuthorization(value));
        }
        let spare = copy_request(&request);
        let response = Arc::clone(&inner).send(request, options.clone()).await?;
        if response.status() != StatusCode::PROXY_AUTHENTICATION_REQUIRED {
            return Ok(response);
        }
        let challenges = crate::infra::digest::parse_challenges(
            response
                .headers()
                .get_all(http::header::PROXY_AUTHENTICATE)
                .iter()
                .map(HeaderValue::as_bytes),
        );
        let challenge = challenges
            .ok()
            .and_then(|challenges| crate::infra::digest::DigestChallenge::strongest(&challenges));
        let (Some(challenge), Some(again)) = (challenge, spare) else {
            return Ok(response);
        };
        if answered {
            if !(challenge.stale && stale_retry_left) {
                return Ok(response);
            }
            stale_retry_left = false;
        }
        answered = true;
        digest.set_challenge(challenge);
        // The 407's body is not read: dropping it closes (or frees) its connection.
        drop(response);
        request = again;
    }
}

/// A copy of `request` to send again, or `None` when its body cannot be.
fn copy_request(request: &Request<RequestBody>) -> Option<Request<RequestBody>> {
    let mut copy = Request::new(request.body().try_clone()?);
    *copy.method_mut() = request.method().clone();
    *copy.uri_mut() = request.uri().clone();
    *copy.version_mut() = request.version();
    *copy.headers_mut() = request.headers().clone();
    *copy.extensions_mut() = request.extensions().clone();
    Some(copy)
}

/// Runs `sending` in `span`, and records the response's version and status on it.
#[cfg(feature = "tracing")]
async fn in_span(
    span: tracing::Span,
    sending: impl std::future::Future<Output = Result<Response<ResponseBody>, NetworkError>>,
) -> Result<Response<ResponseBody>, NetworkError> {
    let result = tracing::Instrument::instrument(sending, span.clone()).await;
    if let Ok(response) = &result {
        span.record("version", tracing::field::debug(response.version()))
            .record("status", response.status().as_u16());
    }
    result
}

impl Inner {
    /// The credentials for Digest of the proxy `request` is forwarded to in absolute-form,
    /// if it is and the proxy has some, and the request-target it goes with there.
    fn forward_digest(
        &self,
        request: &Request<RequestBody>,
        options: &SendOptions,
    ) -> Option<(Arc<super::proxy::ProxyDigest>, String)> {
        let mut key = origin_key(request.uri()).ok()?;
        key.http1_only =
            options.http1_only || options.websocket || options.version == Some(Version::HTTP_11);
        self.connector.route(&mut key);
        let digest = key
            .forwards_to_proxy()
            .then(|| self.connector.proxy(&key))
            .flatten()?
            .digest
            .clone()?;
        let path = request
            .uri()
            .path_and_query()
            .map(|target| target.as_str())
            .filter(|target| !target.is_empty())
            .unwrap_or("/");
        let target = format!("http://{}{path}", without_userinfo(key.authority.as_str()));
        Some((digest, target))
    }

    #[expect(
        clippy::manual_async_fn,
        reason = "an `async fn` keeps its parameters apart from the locals they move into"
    )]
    fn send(
        self: Arc<Self>,
        mut request: Request<RequestBody>,
        mut options: SendOptions,
    ) -> impl Future<Output = Result<Response<ResponseBody>, NetworkError>> + Send + 'static {
        // An `async` block rather than an `async fn`, whose future would keep the request
        // twice: as its parameter and as the local it is moved into.
        async move {
            let own_host = check_framing(&mut request)?;
            let mut key = origin_key(request.uri())?;
            // The request's own route (`Route`), when it changes anything for this origin.
            key.route = request
                .extensions()
                .get::<Route>()
                .filter(|route| {
                    route.changes(key.authority.host(), !self.connector.proxies.is_empty())
                })
                .cloned();
            self.pool.start_reaper();
            // Fields whose values only HTTP/1.1 carries as they are (`RawFields`).
            let raw_fields = check_raw_fields(&request, &options)?;
            // An extended CONNECT goes on an open HTTP/2 connection or nowhere; a
            // WebSocket handshake on one whose server allows it, else over HTTP/1.1.
            let tunnel = super::h2::is_extended_connect(&request);
            if tunnel && raw_fields {
                return Err(NetworkError::InvalidRequest(
                    "an extended CONNECT goes over HTTP/2 alone, which cannot carry a header \
                     value holding a control byte"
                        .into(),
                ));
            }
            // The version the caller asked for, if any (`SendOptions::version`), and
            // HTTP/1.1 for raw fields where ALPN or prior knowledge would pick HTTP/2 (an
            // `http:` origin's connections speak HTTP/1.1 otherwise).
            let http1_only = options.http1_only
                || options.version == Some(Version::HTTP_11)
                || (raw_fields && (key.https || self.connector.http2_prior_knowledge));
            let h2_only = options.version == Some(Version::HTTP_2);
            if options.version == Some(Version::HTTP_3) {
                if key.route.is_some() {
                    return Err(NetworkError::InvalidRequest(
                        "HTTP/3 was asked for a request with a route of its own (a proxy or \
                         resolve override), which never goes over HTTP/3"
                            .into(),
                    ));
                }
                // Boxed: kept out of the state of every other request's future.
                return Box::pin(self.send_h3_only(request, &key, &options, tunnel)).await;
            }
            // HTTP/3 for an `https:` origin reached directly: always with prior knowledge,
            // else when the origin announced it (RFC 7838), TCP taking over if QUIC does
            // not answer in time or fails before the response. Boxed: kept out of the
            // state of every other request's future.
            #[cfg(feature = "http3")]
            let direct_https = self.h3.is_some()
                && !tunnel
                && !raw_fields
                && !options.websocket
                && !http1_only
                && !h2_only
                && key.route.is_none()
                && self.goes_direct(&key);
            #[cfg(feature = "http3")]
            if direct_https {
                if let (Some(h3), true) = (&self.h3, self.http3_prior_knowledge) {
                    return Box::pin(self.send_h3(h3, request, &key, &options)).await;
                }
                match Box::pin(Arc::clone(&self).send_h3_alternative(request, &key, &options))
                    .await?
                {
                    Ok(response) => return Ok(response),
                    Err(back) => request = back,
                }
            }
            if tunnel || (options.websocket && !raw_fields) {
                let mut h2_key = key.clone();
                if !self.connector.proxies.is_empty() || h2_key.route.is_some() {
                    self.connector.route(&mut h2_key);
                }
                // Boxed: kept out of the state of every other request's future.
                match Box::pin(self.send_on_open_h2(request, &h2_key, &options)).await? {
                    Ok(response) => return Ok(response),
                    Err(back) => request = back,
                }
            }
            key.http1_only = http1_only || options.websocket;
            if !self.connector.proxies.is_empty() || key.route.is_some() {
                self.connector.route(&mut key);
            }
            // A request that may be sent again goes on a pipelined connection, when
            // pipelining is on.
            let pipelined = self.pool.pipelines() && !h2_only && pipelinable(&request, &options);
            let mut checkout = self
                .pool
                .checkout_for(&key, options.new_connection, pipelined)
                .await;
            let mut h2_retried = false;
            // Whether the request was sent again after a connection failed under it: once.
            let mut replayed = false;
            // How the connection this request made was made; `None` while it uses one that
            // was there before it.
            // Boxed: rare (a new connection's), and kept out of the request's state.
            let mut fresh: Option<Box<ConnectionTiming>> = None;
            // Whether the request may go on another origin's connection: not when a new
            // connection was asked for, nor when it is sent again after a refusal.
            let mut may_share = !options.new_connection && !key.http1_only;
            loop {
                let mut pooled = match checkout {
                    Checkout::H2(tx) => {
                        // Boxed, as connecting is below: kept out of the HTTP/1.1 fast path's state.
                        let sent = self.send_h2(
                            tx,
                            request,
                            &key,
                            &options,
                            !replayed,
                            fresh.take().map(|t| *t),
                        );
                        // Where to go next is settled before the next await, so that the
                        // result is not kept across it.
                        let new_connection = match Box::pin(sent).await {
                            Ok(response) => {
                                #[cfg(feature = "http3")]
                                if direct_https {
                                    self.note_alt_svc(&key, &response);
                                }
                                return Ok(response);
                            }
                            Err(Retry::Replay(copy)) => {
                                // Refused unprocessed (RFC 9113 §8.7): once more, on a new
                                // connection.
                                replayed = true;
                                may_share = false;
                                request = *copy;
                                true
                            }
                            Err(Retry::Again(back)) if !h2_retried => {
                                // The shared connection closed before taking the request.
                                h2_retried = true;
                                request = *back;
                                options.new_connection
                            }
                            Err(Retry::Again(_)) => {
                                return Err(NetworkError::Protocol(
                                    "HTTP/2 connection closed before the request was sent".into(),
                                ));
                            }
                            Err(Retry::Misdirected(copy)) => {
                                // Not this server's origin after all (RFC 9110
                                // §15.5.20): once more, on a connection of its own.
                                self.pool.refuse_coalescing(&key);
                                replayed = true;
                                request = *copy;
                                false
                            }
                            Err(Retry::Fail(error)) => return Err(error),
                        };
                        checkout = self.pool.checkout(&key, new_connection).await;
                        continue;
                    }
                    // Connecting (DNS, TCP, TLS, the h2 handshake) needs a large future: boxed, so
                    // that sending over a pooled connection does not copy it around.
                    Checkout::Connect(slot, pending_pipe) => {
                        let timing = &mut **fresh.insert(Box::default());
                        // Another origin's HTTP/2 connection may serve this one too; the
                        // addresses looked up to find out are the connection's otherwise.
                        let coalesced = match may_share {
                            true => Box::pin(self.coalesce(&key, timing)).await,
                            false => Coalesced::No,
                        };
                        let resolved = match coalesced {
                            Coalesced::Shared(h2) => {
                                // The requests that joined the pipeline go again.
                                drop(pending_pipe);
                                self.pool.insert_coalesced(&key, &h2);
                                drop(slot);
                                fresh = None;
                                checkout = Checkout::H2(h2);
                                continue;
                            }
                            Coalesced::Resolved(addrs) => Some(addrs),
                            Coalesced::No => None,
                        };
                        #[cfg(feature = "tracing")]
                        tracing::Span::current().record("connection", "new");
                        match Box::pin(self.connector.connect(&key, timing, resolved)).await? {
                            Connected::H1(tx) => {
                                let pooled = Pooled::new(tx, slot);
                                if let Some(pending) = pending_pipe {
                                    let (starter, pipe, ticket) = *pending;
                                    starter.start(pooled);
                                    checkout = Checkout::Pipe(pipe, ticket);
                                    continue;
                                }
                                pooled
                            }
                            Connected::H2(tx) => {
                                // The requests that joined the pipeline go again.
                                drop(pending_pipe);
                                self.pool.insert_h2(&key, &tx);
                                drop(slot);
                                checkout = Checkout::H2(tx);
                                continue;
                            }
                        }
                    }
                    Checkout::Pipe(pipe, ticket) => {
                        // Boxed: kept out of the state of every other request's future.
                        let sent: std::pin::Pin<Box<dyn Future<Output = _> + Send + '_>> =
                            Box::pin(self.send_pipelined(pipe, ticket, &request, &key, own_host));
                        // Where to go next is settled before the next await, so that the
                        // result is not kept across it.
                        match sent.await {
                            Ok((answer, request_start, peer)) => {
                                let info = Recorded {
                                    timing: fresh.take(),
                                    request_start,
                                    response_start: answer.response_start,
                                    alpn: super::timing::HTTP_1_1,
                                    secure: key.https,
                                    peer,
                                };
                                let super::pipeline::Answer { parts, body, .. } = answer;
                                #[cfg(feature = "http3")]
                                if direct_https {
                                    self.note_alt_svc_head(&key, &parts.headers);
                                }
                                let body = ResponseBody::pipelined(body, info);
                                return self.decode(Response::from_parts(parts, body), &options);
                            }
                            // RFC 9112 §9.3.2: the requests a pipeline left unanswered
                            // go again, once, each on a new connection of its own.
                            Err(PipeError::NotAnswered(_)) if !replayed => {
                                replayed = true;
                                fresh = None;
                            }
                            Err(PipeError::NotAnswered(cause)) => {
                                return Err(match cause {
                                    Some(error) => self.h1_request_error(error, &key),
                                    None => NetworkError::Protocol(
                                        "the pipelined HTTP/1.1 connection closed before the \
                                         response"
                                            .into(),
                                    ),
                                });
                            }
                            Err(PipeError::Failed(error)) if error.is_timeout() => {
                                return Err(self.idle_timeout());
                            }
                            Err(PipeError::Failed(error)) => {
                                return Err(self.h1_request_error(error, &key));
                            }
                            Err(PipeError::Invalid(error)) => return Err(error),
                        }
                        checkout = self.pool.checkout(&key, true).await;
                        continue;
                    }
                    Checkout::Idle(mut pooled) => {
                        fresh = None;
                        if pooled.tx.is_closed() {
                            // Closed while idle: the request never touched it.
                            checkout = Checkout::Connect(pooled.into_slot(), None);
                            continue;
                        }
                        pooled
                    }
                };
                if h2_only {
                    pooled.release();
                    return Err(NetworkError::InvalidRequest(
                        format!(
                            "HTTP/2 was asked for (RequestBuilder::version), and the \
                             connection to {} speaks HTTP/1.1",
                            key.authority
                        )
                        .into(),
                    ));
                }
                // A reused connection may have been closed by the peer just as the request
                // went out: when the rules allow sending it again at all, the request keeps
                // its body and the connection gets a copy (a `Bytes` shared, not copied).
                // The request itself is never changed: the target's form and `Host` go
                // into the head as it is written.
                // A body that waits for a `100 Continue` is kept too, for a `417`.
                let keep_alive_race =
                    pooled.reused && !replayed && request.method().is_idempotent();
                let wants_continue = options.expect_continue.is_some();
                let copy = match keep_alive_race || wants_continue {
                    true => request.body().try_clone(),
                    false => None,
                };
                let may_replay = keep_alive_race && copy.is_some();
                // The wait for a `100 Continue`, if any, and whether a `417` may be
                // answered by sending the request again. (Neither `expect` nor `body` is
                // borrowed: a borrowed local keeps its room in the request's future.)
                let (expect, may_drop_expect) = match options.expect_continue {
                    None => (None, false),
                    Some(wait) => {
                        use http_body::Body as _;
                        let empty = request.body().is_end_stream();
                        let wait = expects_continue(&mut request, empty, wait);
                        (wait, wait.is_some() && copy.is_some())
                    }
                };
                let body = copy.unwrap_or_else(|| std::mem::take(request.body_mut()));
                let host = match own_host {
                    true => None,
                    false => Some(connection_host(&mut pooled.tx, &key)?),
                };
                // To a proxy in absolute-form, with its credentials and headers; through
                // a tunnel (`https:`, or `http1_only` as a WebSocket handshake is), the
                // request is the origin's alone, as on a direct connection.
                let forward = key.forwards_to_proxy();
                let proxy = forward.then(|| self.connector.proxy(&key)).flatten();
                let head = Head {
                    absolute: forward.then(|| without_userinfo(key.authority.as_str())),
                    host: host.as_ref(),
                    proxy_authorization: proxy.and_then(|proxy| {
                        proxy.authorization.as_ref().or_else(|| {
                            request
                                .extensions()
                                .get::<super::proxy::ProxyDigestAuthorization>()
                                .map(|digest| &digest.0)
                        })
                    }),
                    proxy_headers: proxy.and_then(|proxy| proxy.headers.as_deref()),
                };
                let request_start = std::time::Instant::now();
                let sent = pooled
                    .tx
                    .send(&request, body, &head, self.read_timeout, expect);
                let error = match sent.await {
                    // RFC 9110 §10.1.1: a `417 Expectation Failed` to a request that
                    // expected a `100 Continue` is sent again without the expectation
                    // (its body, unsent, is still the request's when it could be kept).
                    Ok((parts, _))
                        if may_drop_expect && parts.status == StatusCode::EXPECTATION_FAILED =>
                    {
                        pooled.tx.close();
                        options.expect_continue = None;
                        request.headers_mut().remove(http::header::EXPECT);
                        checkout = Checkout::Connect(pooled.into_slot(), None);
                        continue;
                    }
                    // A `408 Request Timeout` on a reused connection: the server timed the
                    // idle connection out as the request arrived, and says so where the
                    // keep-alive race is silent. The request is sent again on a new
                    // connection under that race's rules (`may_replay`: once, idempotent,
                    // a body that can be sent again), as Chrome's
                    // `HttpNetworkTransaction` resends a 408 on a reused HTTP/1.1
                    // connection; a 408 on a new connection is the caller's.
                    Ok((parts, _)) if may_replay && parts.status == StatusCode::REQUEST_TIMEOUT => {
                        // Not used again, whatever the 408 said; its body goes unread.
                        pooled.tx.close();
                        replayed = true;
                        checkout = Checkout::Connect(pooled.into_slot(), None);
                        continue;
                    }
                    Ok((mut parts, reader)) => {
                        let info = Recorded {
                            timing: fresh,
                            request_start,
                            response_start: pooled
                                .tx
                                .response_start()
                                .unwrap_or_else(std::time::Instant::now),
                            alpn: super::timing::HTTP_1_1,
                            secure: key.https,
                            peer: pooled.tx.peer(),
                        };
                        if parts.status == StatusCode::SWITCHING_PROTOCOLS
                            && request.headers().contains_key(UPGRADE)
                        {
                            // What follows is the protocol the request asked for: the
                            // connection leaves the pool, handed over in the extensions
                            // (`Response::upgrade`), with the bytes read past the head.
                            let upgraded = pooled.into_connection().into_upgraded();
                            parts
                                .extensions
                                .insert(crate::upgrade::OnUpgrade::new(upgraded));
                            let body = ResponseBody::switched(reader, info);
                            return Ok(Response::from_parts(parts, body));
                        }
                        #[cfg(feature = "http3")]
                        if direct_https {
                            self.note_alt_svc_head(&key, &parts.headers);
                        }
                        return self.wrap_h1(parts, reader, pooled, &options, info);
                    }
                    Err(error) => error,
                };
                if error.is_timeout() {
                    return Err(self.idle_timeout());
                }
                // RFC 9110 §9.2.2, RFC 9112 §9.3.1: an idempotent request whose reused
                // connection closed before a byte of the response arrived is sent once
                // more, on a new connection, as curl and browsers do.
                if !(may_replay && !pooled.tx.response_started() && error.is_connection_lost()) {
                    return Err(self.h1_request_error(error, &key));
                }
                replayed = true;
                checkout = Checkout::Connect(pooled.into_slot(), None);
            }
        }
    }

    /// `request` on a stream of an open HTTP/2 connection to `key`'s origin, never a new
    /// one: an extended CONNECT (RFC 8441), or a WebSocket opening handshake
    /// ([`SendOptions::websocket`]) sent as one. The response, or (`Ok(Err)`) the
    /// handshake given back to go over HTTP/1.1: no such connection, its server does not
    /// allow extended CONNECT, or it closed or refused the stream before processing it.
    async fn send_on_open_h2(
        &self,
        request: Request<RequestBody>,
        key: &Key,
        options: &SendOptions,
    ) -> Result<Result<Response<ResponseBody>, Request<RequestBody>>, NetworkError> {
        let open = match options.new_connection {
            true => None,
            false => self.pool.open_h2(key),
        };
        if super::h2::is_extended_connect(&request) {
            let Some(h2) = open else {
                return Err(super::h2::ExtendedConnectUnavailable::no_connection());
            };
            return match self.send_h2(h2, request, key, options, false, None).await {
                Ok(response) => Ok(Ok(response)),
                Err(Retry::Fail(error)) => Err(error),
                // Closed, refused or misdirected before it was processed: no connection
                // to send it on after all.
                Err(_) => Err(super::h2::ExtendedConnectUnavailable::no_connection()),
            };
        }
        let (Some(h2), Some(connect)) = (open, super::h2::websocket_connect(&request)) else {
            return Ok(Err(request));
        };
        match self.send_h2(h2, connect, key, options, true, None).await {
            Ok(response) => Ok(Ok(response)),
            Err(Retry::Fail(error)) if super::h2::is_extended_connect_unavailable(&error) => {
                Ok(Err(request))
            }
            Err(Retry::Fail(error)) => Err(error),
            // Not processed by the server: the handshake goes over HTTP/1.1 instead.
            Err(Retry::Replay(_) | Retry::Again(_) | Retry::Misdirected(_)) => Ok(Err(request)),
        }
    }

    /// `request` over HTTP/3 alone, as the caller asked (`SendOptions::version`): with
    /// prior knowledge, never over TCP. An error, saying why, when HTTP/3 cannot carry it.
    async fn send_h3_only(
        &self,
        request: Request<RequestBody>,
        key: &Key,
        options: &SendOptions,
        tunnel: bool,
    ) -> Result<Response<ResponseBody>, NetworkError> {
        let refused = |why: &str| {
            Err(NetworkError::InvalidRequest(
                format!("HTTP/3 was asked for (RequestBuilder::version), {why}").into(),
            ))
        };
        #[cfg(not(feature = "http3"))]
        {
            let _ = (request, key, options, tunnel);
            refused("and this build has no HTTP/3: it needs whatwg-fetch's `http3` feature")
        }
        #[cfg(feature = "http3")]
        {
            let Some(h3) = &self.h3 else {
                return refused("and this client's HTTP/3 is off (ClientBuilder::http3)");
            };
            if tunnel || options.websocket || options.http1_only {
                return refused("and this request goes over HTTP/1.1 or HTTP/2 alone");
            }
            if !key.https {
                return refused("and HTTP/3 is for `https:` URLs alone");
            }
            if !self.goes_direct(key) {
                return refused(&format!(
                    "and {} is reached through a proxy, which HTTP/3 does not go through",
                    key.authority
                ));
            }
            self.send_h3(h3, request, key, options).await
        }
    }

    /// Whether requests to `key`'s origin go to it directly, through no proxy: HTTP/3's
    /// only way (a proxy would need CONNECT-UDP).
    #[cfg(feature = "http3")]
    fn goes_direct(&self, key: &Key) -> bool {
        if !key.https {
            return false;
        }
        if self.connector.proxies.is_empty() {
            return true;
        }
        let mut routed = key.clone();
        self.connector.route(&mut routed);
        routed.proxy.is_none()
    }

    /// Keeps what the `Alt-Svc` header of `response` (from `key`'s origin over TCP)
    /// announces. Responses over HTTP/3 are read by
    /// [`note_alt_svc_head`](Self::note_alt_svc_head).
    #[cfg(feature = "http3")]
    fn note_alt_svc(&self, key: &Key, response: &Response<ResponseBody>) {
        self.note_alt_svc_head(key, response.headers());
    }

    /// [`note_alt_svc`](Self::note_alt_svc) of a response head's `headers`: the `Alt-Svc`
    /// field lines joined (RFC 9110 §5.3), each alternative's `ma` counted from when the
    /// response was generated (less its `Age`, RFC 7838 §3.1).
    #[cfg(feature = "http3")]
    fn note_alt_svc_head(&self, key: &Key, headers: &http::HeaderMap) {
        // Not from a route of a request's own (`Route`): what a proxy or an overridden
        // address answered says nothing of the origin for other requests.
        if key.route.is_some() {
            return;
        }
        let mut lines = headers.get_all(http::header::ALT_SVC).iter();
        let Some(first) = lines.next() else {
            return;
        };
        let mut value = first.as_bytes().to_vec();
        for line in lines {
            if value.len() > super::alt_svc::MAX_FIELD_VALUE_LEN {
                break;
            }
            value.extend_from_slice(b", ");
            value.extend_from_slice(line.as_bytes());
        }
        let Some(mut alt_svc) = super::alt_svc::parse_alt_svc(&value) else {
            return;
        };
        let age = headers
            .get(http::header::AGE)
            .and_then(|age| age.to_str().ok())
            .and_then(|age| age.parse::<u64>().ok())
            .map_or(Duration::ZERO, Duration::from_secs);
        if let super::alt_svc::AltSvc::Entries(alternatives) = &mut alt_svc {
            for alternative in alternatives.iter_mut() {
                alternative.max_age = alternative.max_age.saturating_sub(age);
            }
        }
        let origin = alt_svc_origin(key);
        self.alt_svc
            .set(&origin, "", alt_svc, std::time::Instant::now());
    }

    /// `request` over HTTP/3 when `key`'s origin announced `h3` and it is not marked
    /// broken: on the origin's open QUIC connection, or a new one if it is made within
    /// [`HTTP3_HEAD_START`] (the attempt goes on after that, for the requests that
    /// follow, and marks the alternative broken if it fails). The request is given back
    /// (`Ok(Err)`) to go over TCP when there is no alternative, when the connection is
    /// not there in time, or when it fails before the response and the request can be
    /// sent again (an idempotent method and a body that can be copied), as Chrome falls
    /// back; the alternative is then marked broken.
    #[cfg(feature = "http3")]
    async fn send_h3_alternative(
        self: Arc<Self>,
        request: Request<RequestBody>,
        key: &Key,
        options: &SendOptions,
    ) -> Result<Result<Response<ResponseBody>, Request<RequestBody>>, NetworkError> {
        let Some(h3) = self.h3.as_ref() else {
            return Ok(Err(request));
        };
        let origin = alt_svc_origin(key);
        let found = self
            .alt_svc
            .lookup(&origin, "", "h3", std::time::Instant::now());
        let found = match found {
            Some(found) => Some(found),
            None => self.h3_from_https_records(&origin).await,
        };
        let Some((alt_host, alt_port)) = found else {
            return Ok(Err(request));
        };
        let host = key.authority.host().to_owned();
        let port = key.authority.port_u16().unwrap_or(443);
        let (connection, timing) = match h3.open(&host, port) {
            Some(connection) if !options.new_connection => (connection, None),
            _ => {
                if !h3.start_connecting(&host, port) {
                    // Another request is making the connection: this one goes over TCP.
                    return Ok(Err(request));
                }
                let (made, connected) = tokio::sync::oneshot::channel();
                let inner = Arc::clone(&self);
                let (host, alt_host) = (host.clone(), alt_host.clone());
                // A connection whose path goes silent marks the alternative broken, with
                // or without a request on it: the requests that follow go over TCP at
                // once.
                let alt_svc = Arc::clone(&self.alt_svc);
                let silent_origin = origin.clone();
                let on_silent: super::h3::OnSilent = Box::new(move || {
                    alt_svc.mark_broken(&silent_origin, "", "h3", std::time::Instant::now());
                });
                tokio::spawn(async move {
                    // Never as 0-RTT data: what an origin announced may not answer, and
                    // its request is to go over TCP then, sent once.
                    let result = inner
                        .connect_h3(&host, port, &alt_host, alt_port, false, Some(on_silent))
                        .await;
                    match &result {
                        Ok(_) => inner.alt_svc.mark_working(&origin, "", "h3"),
                        Err(_) => {
                            inner
                                .alt_svc
                                .mark_broken(&origin, "", "h3", std::time::Instant::now());
                        }
                    }
                    if let Some(h3) = &inner.h3 {
                        h3.finish_connecting(&host, port);
                    }
                    let _ = made.send(result);
                });
                match tokio::time::timeout(HTTP3_HEAD_START, connected).await {
                    Ok(Ok(Ok((connection, timing)))) => (connection, Some(timing)),
                    // Failed, or not there yet: TCP.
                    _ => return Ok(Err(request)),
                }
            }
        };
        // A copy to send over TCP if the request fails before the response and may go
        // again (see `net/h3.rs`, "When a request goes again").
        let copy = copy_of(&request);
        let mut request = request;
        // RFC 7838 §5: "When using an alternative service, clients SHOULD include an
        // Alt-Used header field in all requests that use the alternative service."
        if let Ok(alt_used) = http::HeaderValue::try_from(format!("{alt_host}:{alt_port}")) {
            request.headers_mut().insert(ALT_USED, alt_used);
        }
        let reused = timing.is_none();
        match super::h3::send(&connection, request, self.read_timeout, timing).await {
            Ok((response, info)) => {
                // RFC 7838 §3: a field value received from the origin (which the
                // alternative speaks for) replaces what is cached; `clear` leaves none.
                self.note_alt_svc_head(key, response.headers());
                self.wrap_h3(response, info, options).map(Ok)
            }
            Err(failure) => {
                if reused {
                    // An open connection the server may have let go (`GOAWAY`, an idle
                    // timeout of its own): the next request makes a new one. (One whose
                    // path went silent has marked the alternative broken itself.)
                    h3.forget(&host, port, &connection);
                } else {
                    self.alt_svc.mark_broken(
                        &alt_svc_origin(key),
                        "",
                        "h3",
                        std::time::Instant::now(),
                    );
                }
                match resend(failure.may_resend, copy) {
                    Some(copy) => Ok(Err(copy)),
                    None => Err(failure.error),
                }
            }
        }
    }

    /// The `h3` endpoint of `origin` its HTTPS records give (RFC 9460 §9: an HTTPS
    /// record "may be used as an alternative service"), when the resolver looks them up
    /// ([`Resolve::resolve_https`](super::Resolve::resolve_https)) and they were not asked
    /// for lately: the records' first endpoint whose `alpn` has `h3`, noted in the
    /// alternative-services cache for their TTL, as if the origin had announced it. The
    /// answer is waited for at most [`HTTPS_RECORD_WAIT`](super::HTTPS_RECORD_WAIT).
    #[cfg(feature = "http3")]
    async fn h3_from_https_records(
        &self,
        origin: &super::alt_svc::OriginKey,
    ) -> Option<(String, u16)> {
        use super::alt_svc::{Alternative, MIN_HTTPS_RECORDS_TTL};
        // The resolver first: one that does not look them up costs no lock.
        let records = self.connector.resolve_https(origin.host(), origin.port())?;
        let now = std::time::Instant::now();
        if !self.alt_svc.ask_https_records(origin, now) {
            return None;
        }
        let records = match tokio::time::timeout(super::HTTPS_RECORD_WAIT, records).await {
            Ok(Ok(records)) => records,
            // None, or not in time: the request goes as it would without them.
            Ok(Err(_)) | Err(_) => return None,
        };
        let now = std::time::Instant::now();
        let ask_again = records.iter().map(|record| record.ttl).min();
        let alternatives: Vec<Alternative> = records
            .into_iter()
            .filter(|record| record.priority > 0 && record.alpn.iter().any(|id| id == "h3"))
            .map(|record| Alternative {
                protocol: "h3".to_owned(),
                host: record.target,
                port: record
                    .port
                    .filter(|port| *port != 0)
                    .unwrap_or(origin.port()),
                max_age: record.ttl.max(MIN_HTTPS_RECORDS_TTL),
                persist: false,
            })
            .collect();
        self.alt_svc.note_https_records(
            origin,
            alternatives,
            ask_again.unwrap_or(super::alt_svc::HTTPS_RECORDS_RETRY),
            now,
        );
        self.alt_svc.lookup(origin, "", "h3", now)
    }

    /// A new QUIC connection for the origin `host:port` at its alternative
    /// `alt_host:alt_port`, within the connect timeout, and how it was made; with
    /// `early`, one that may carry its first requests as 0-RTT data (when the client's
    /// `tls_early_data` is on and a TLS session can be resumed). `on_silent` is called if
    /// its path goes silent.
    #[cfg(feature = "http3")]
    async fn connect_h3(
        &self,
        host: &str,
        port: u16,
        alt_host: &str,
        alt_port: u16,
        early: bool,
        on_silent: Option<super::h3::OnSilent>,
    ) -> Result<(super::h3::H3Connection, Box<ConnectionTiming>), NetworkError> {
        let Some(h3) = self.h3.as_ref() else {
            return Err(NetworkError::Other("HTTP/3 is off".into()));
        };
        let mut timing = ConnectionTiming::default();
        let connecting = async {
            timing.domain_lookup_start = Some(std::time::Instant::now());
            let bare = alt_host
                .strip_prefix('[')
                .and_then(|host| host.strip_suffix(']'))
                .unwrap_or(alt_host);
            let addrs = self.connector.resolve(None, bare, alt_port).await?;
            timing.domain_lookup_end = Some(std::time::Instant::now());
            h3.connect(
                host,
                port,
                &addrs,
                &mut timing,
                super::h3::Connect {
                    early,
                    connect_timeout: self.connector.connect_timeout,
                    on_silent,
                },
            )
            .await
        };
        let connection = match self.connector.connect_timeout {
            Some(after) => tokio::time::timeout(after, connecting)
                .await
                .map_err(|_| NetworkError::Timeout {
                    kind: TimeoutKind::Connect,
                    after,
                })??,
            None => connecting.await?,
        };
        Ok((connection, Box::new(timing)))
    }

    /// `request` over HTTP/3 on `h3`: on the origin's open connection, or a new one. A
    /// request that fails before its response is sent once more, on a new connection,
    /// when it may be (see `net/h3.rs`, "When a request goes again"): the server refused
    /// it, its 0-RTT data was rejected, or the path went silent before the server heard
    /// it.
    #[cfg(feature = "http3")]
    async fn send_h3(
        &self,
        h3: &super::h3::H3Client,
        request: Request<RequestBody>,
        key: &Key,
        options: &SendOptions,
    ) -> Result<Response<ResponseBody>, NetworkError> {
        let host = key.authority.host();
        let port = key.authority.port_u16().unwrap_or(443);
        // One request makes the origin's connection; the others wait for it (and then
        // queue for its streams), as HTTP/2's do. The lock is let go once it is made.
        let mut making = None;
        let open = match options.new_connection {
            true => None,
            false => match h3.open(host, port) {
                Some(connection) => Some(connection),
                None => {
                    making = Some(h3.making(host, port).lock_owned().await);
                    h3.open(host, port)
                }
            },
        };
        let copy = copy_of(&request);
        let (connection, timing) = match open {
            Some(connection) => (connection, None),
            None => {
                let (connection, timing) =
                    self.connect_h3(host, port, host, port, true, None).await?;
                (connection, Some(timing))
            }
        };
        drop(making);
        let sent = match super::h3::send(&connection, request, self.read_timeout, timing).await {
            Ok(sent) => sent,
            Err(failure) => {
                let Some(copy) = resend(failure.may_resend, copy) else {
                    return Err(failure.error);
                };
                h3.forget(host, port, &connection);
                let (connection, timing) =
                    self.connect_h3(host, port, host, port, false, None).await?;
                super::h3::send(&connection, copy, self.read_timeout, Some(timing))
                    .await
                    .map_err(|failure| failure.error)?
            }
        };
        let (response, info) = sent;
        self.wrap_h3(response, info, options)
    }

    /// An HTTP/3 response, whose body is read from its stream.
    #[cfg(feature = "http3")]
    fn wrap_h3(
        &self,
        response: Response<super::h3::H3Body>,
        info: Recorded,
        options: &SendOptions,
    ) -> Result<Response<ResponseBody>, NetworkError> {
        let (parts, body) = response.into_parts();
        let body = ResponseBody::h3(body, self.read_timeout, info);
        self.decode(Response::from_parts(parts, body), options)
    }

    /// Sends `request` on the pipelined connection `pipe`, in the place `ticket` holds
    /// there: its response head, when the request went out, and the connection's peer.
    async fn send_pipelined(
        &self,
        pipe: Pipeline,
        ticket: super::pipeline::Ticket,
        request: &Request<RequestBody>,
        key: &Key,
        own_host: bool,
    ) -> Result<
        (
            super::pipeline::Answer,
            std::time::Instant,
            Option<Arc<crate::peer::Peer>>,
        ),
        PipeError,
    > {
        // `pipelinable` let only a body that can be copied through.
        let body = request.body().try_clone().unwrap_or_default();
        let host = match own_host {
            true => None,
            false => Some(pipe.host(&key.authority).ok_or_else(|| {
                PipeError::Invalid(NetworkError::Other(
                    "request URI host is not a valid header".into(),
                ))
            })?),
        };
        let forward = key.forwards_to_proxy();
        let proxy = forward.then(|| self.connector.proxy(key)).flatten();
        let head = Head {
            absolute: forward.then(|| without_userinfo(key.authority.as_str())),
            host: host.as_ref(),
            proxy_authorization: proxy.and_then(|proxy| {
                proxy.authorization.as_ref().or_else(|| {
                    request
                        .extensions()
                        .get::<super::proxy::ProxyDigestAuthorization>()
                        .map(|digest| &digest.0)
                })
            }),
            proxy_headers: proxy.and_then(|proxy| proxy.headers.as_deref()),
        };
        let message = super::h1::encode_message(request, body, &head, pipe.title_case())
            .map_err(PipeError::Failed)?;
        let request_start = std::time::Instant::now();
        let method = super::h1::Sent::of(request.method());
        let answer = pipe.send(message, method, ticket).await?;
        Ok((answer, request_start, pipe.peer()))
    }

    /// An HTTP/1.1 response, whose body `reader` reads from `conn`.
    fn wrap_h1(
        &self,
        parts: http::response::Parts,
        reader: BodyReader,
        conn: Pooled,
        options: &SendOptions,
        info: Recorded,
    ) -> Result<Response<ResponseBody>, NetworkError> {
        let body = ResponseBody::h1(reader, conn, self.read_timeout, info);
        self.decode(Response::from_parts(parts, body), options)
    }

    /// `response`, decoded if `options` ask for it.
    pub(super) fn decode(
        &self,
        response: Response<ResponseBody>,
        options: &SendOptions,
    ) -> Result<Response<ResponseBody>, NetworkError> {
        // A response that names no coding is passed on as it is, without the call (and
        // its copies of the response in and out) that would find the same.
        if options.decode_content
            && response
                .headers()
                .contains_key(http::header::CONTENT_ENCODING)
        {
            // More codings than are decoded is a network error; the body is dropped
            // unread, which closes an HTTP/1 connection and resets an HTTP/2 stream.
            decode_response_with(response, options.decode_codings)
        } else {
            Ok(response)
        }
    }
}

/// `copy`, the copy of a request that failed over HTTP/3 before its response, if it may
/// be sent again as `may_resend` says: any request, or an idempotent one (RFC 9110
/// §9.2.2).
#[cfg(feature = "http3")]
fn resend(
    may_resend: super::h3::MayResend,
    copy: Option<Request<RequestBody>>,
) -> Option<Request<RequestBody>> {
    match may_resend {
        super::h3::MayResend::Any => copy,
        super::h3::MayResend::Idempotent => copy.filter(|copy| copy.method().is_idempotent()),
        super::h3::MayResend::No => None,
    }
}

/// A copy of `request` to send again after its first attempt failed before a response,
/// whatever its method, if its body can be copied (an empty one or one buffer, never a
/// stream). Extensions are not kept.
#[cfg(feature = "http3")]
fn copy_of(request: &Request<RequestBody>) -> Option<Request<RequestBody>> {
    let body = request.body().try_clone()?;
    let mut copy = Request::new(body);
    *copy.method_mut() = request.method().clone();
    *copy.uri_mut() = request.uri().clone();
    *copy.version_mut() = request.version();
    *copy.headers_mut() = request.headers().clone();
    Some(copy)
}

/// `Alt-Used` (RFC 7838 §5): the alternative service a request was sent to.
#[cfg(feature = "http3")]
const ALT_USED: http::HeaderName = http::HeaderName::from_static("alt-used");

/// The origin of `key` as the alternative-services cache keys it.
#[cfg(feature = "http3")]
fn alt_svc_origin(key: &Key) -> super::alt_svc::OriginKey {
    let host = key.authority.host();
    let bare = host
        .strip_prefix('[')
        .and_then(|host| host.strip_suffix(']'))
        .unwrap_or(host);
    super::alt_svc::OriginKey::new("https", bare, key.authority.port_u16().unwrap_or(443))
}

/// Whether `request` carries [`RawFields`](super::RawFields), which the transport sends
/// over HTTP/1.1 alone.
///
/// DEVIATION: Chrome and Firefox send a header value holding a control byte other than
/// tab (0x01–0x08, 0x0B, 0x0C, 0x0E–0x1F, 0x7F, which Fetch allows) as it is over HTTP/2
/// and HTTP/3 too. The `h2` and `h3` crates take only `http::HeaderValue`s, which refuse
/// those bytes, so such a request goes over HTTP/1.1 instead, on a connection of its own
/// where ALPN or prior knowledge would pick HTTP/2 or HTTP/3 (as a WebSocket handshake
/// does), rather than fail or go without the field.
///
/// # Errors
///
/// [`NetworkError::InvalidRequest`] for a raw field of a name the connection frames or
/// keeps the message by (`Content-Length`, `Transfer-Encoding`, `Host`, `Connection`, …),
/// which the transport reads from the header map alone, and for raw fields in a request
/// the caller sends over HTTP/2 or HTTP/3 alone ([`SendOptions::version`]).
fn check_raw_fields(
    request: &Request<RequestBody>,
    options: &SendOptions,
) -> Result<bool, NetworkError> {
    let Some(fields) = request
        .extensions()
        .get::<super::RawFields>()
        .filter(|fields| !fields.is_empty())
    else {
        return Ok(false);
    };
    if let Some((name, _)) = fields
        .iter()
        .find(|(name, _)| super::fields::frames_the_message(name))
    {
        return Err(NetworkError::InvalidRequest(
            format!(
                "the value of header {name} holds a control byte: the connection frames \
                 the message by it, so it must be a plain header value"
            )
            .into(),
        ));
    }
    let forced = options
        .version
        .filter(|version| *version == Version::HTTP_2 || *version == Version::HTTP_3);
    if let (Some(version), Some((name, _))) = (forced, fields.iter().next()) {
        return Err(NetworkError::InvalidRequest(
            format!(
                "the value of header {name} holds a control byte, which this client sends \
                 over HTTP/1.1 only, and the request asks for {version:?}"
            )
            .into(),
        ));
    }
    Ok(true)
}

/// Refuses a request whose framing headers would disagree with its body, so that the
/// peer never reads a message out of step with what is sent (RFC 9112 §6, RFC 9110
/// §8.6): a `Content-Length` other than the length of an empty or buffered body, or
/// not one number; a `Transfer-Encoding` (the transport frames the body itself, by its
/// length or chunked, as undici insists and browsers forbid the header); more than one
/// `Host`. A stream body under a `Content-Length` is held to it (see
/// [`RequestBody::with_declared_length`]).
///
/// Returns whether the request carries its own `Host`, which this looks for anyway.
fn check_framing(request: &mut Request<RequestBody>) -> Result<bool, NetworkError> {
    let headers = request.headers();
    // One pass over the names, cheaper than three lookups that miss: most requests carry
    // none of these (`Host` is added later).
    if !headers
        .keys()
        .any(|name| name == CONTENT_LENGTH || name == TRANSFER_ENCODING || name == HOST)
    {
        return Ok(false);
    }
    if let Some(value) = headers.get(TRANSFER_ENCODING) {
        return Err(NetworkError::InvalidRequest(
            format!(
                "Transfer-Encoding: {value:?} set by the caller; the transport frames the \
                 body itself"
            )
            .into(),
        ));
    }
    let mut hosts = headers.get_all(HOST).iter();
    let own_host = hosts.next().is_some();
    if own_host && hosts.next().is_some() {
        return Err(NetworkError::InvalidRequest(
            "more than one Host header".into(),
        ));
    }
    let mut declared: Option<u64> = None;
    for value in headers.get_all(CONTENT_LENGTH) {
        for item in value.as_bytes().split(|&b| b == b',') {
            let length = parse_length(item.trim_ascii()).ok_or_else(|| {
                NetworkError::InvalidRequest(
                    format!("Content-Length: {value:?} is not one length").into(),
                )
            })?;
            if declared.is_some_and(|declared| declared != length) {
                return Err(NetworkError::InvalidRequest(
                    "Content-Length headers with different lengths".into(),
                ));
            }
            declared = Some(length);
        }
    }
    let Some(declared) = declared else {
        return Ok(own_host);
    };
    if request.body().is_stream() {
        let body = std::mem::take(request.body_mut());
        *request.body_mut() = body.with_declared_length(declared);
        return Ok(own_host);
    }
    let actual = http_body::Body::size_hint(request.body()).exact();
    if actual != Some(declared) {
        return Err(NetworkError::InvalidRequest(
            format!(
                "Content-Length: {declared} does not match the body's {} bytes",
                actual.unwrap_or_default()
            )
            .into(),
        ));
    }
    Ok(own_host)
}

/// A `Content-Length` value: one or more digits (RFC 9110 §8.6), that fits a `u64`.
fn parse_length(digits: &[u8]) -> Option<u64> {
    if digits.is_empty() {
        return None;
    }
    digits.iter().try_fold(0u64, |length, &digit| {
        if !digit.is_ascii_digit() {
            return None;
        }
        length.checked_mul(10)?.checked_add(u64::from(digit - b'0'))
    })
}

/// Whether `request` may go on a pipelined connection (see `net/pipeline.rs`): one that
/// may be sent again if the pipeline ends before its response (an idempotent method, a
/// body empty or one buffer of at most [`PIPELINED_BODY`] bytes), that keeps the
/// connection as it is (no `Connection`, `Upgrade` or `Expect` of its own, not HTTP/1.0),
/// and that asks for no connection of its own.
fn pipelinable(request: &Request<RequestBody>, options: &SendOptions) -> bool {
    use http_body::Body as _;
    let headers = request.headers();
    request.method().is_idempotent()
        && request.version() != Version::HTTP_10
        && !options.new_connection
        && !options.websocket
        && !options.http1_only
        && options.expect_continue.is_none()
        && !headers.contains_key(http::header::CONNECTION)
        && !headers.contains_key(UPGRADE)
        && !headers.contains_key(http::header::EXPECT)
        && !request.body().is_stream()
        && request
            .body()
            .size_hint()
            .exact()
            .is_some_and(|length| length <= PIPELINED_BODY)
}

/// The wait for a `100 Continue` before the body goes out, if `wait` is one and
/// the request has a body to hold back, adding its `Expect: 100-continue` (RFC 9110
/// §10.1.1) unless it has it already (sent again, or the caller's); a request with
/// another `Expect` of its own, or in HTTP/1.0, which has no 100, sends its body at once.
#[cold]
#[inline(never)]
fn expects_continue(
    request: &mut Request<RequestBody>,
    body_empty: bool,
    wait: Duration,
) -> Option<Duration> {
    if body_empty || request.version() == Version::HTTP_10 {
        return None;
    }
    if let Some(expect) = request.headers().get(http::header::EXPECT) {
        return expect
            .as_bytes()
            .eq_ignore_ascii_case(b"100-continue")
            .then_some(wait);
    }
    request.headers_mut().insert(
        http::header::EXPECT,
        HeaderValue::from_static("100-continue"),
    );
    Some(wait)
}

/// The largest request body pipelined: it is copied into the connection's write buffer.
const PIPELINED_BODY: u64 = 64 * 1024;

/// The origin of an absolute request URI.
fn origin_key(uri: &Uri) -> Result<Key, NetworkError> {
    let scheme = uri
        .scheme()
        .ok_or(NetworkError::Other("request URI is not absolute".into()))?;
    if *scheme != Scheme::HTTP && *scheme != Scheme::HTTPS {
        return Err(NetworkError::UnsupportedScheme(scheme.as_str().to_owned()));
    }
    let authority = uri
        .authority()
        .ok_or(NetworkError::Other("request URI has no host".into()))?;
    Ok(Key::new(scheme, authority))
}

/// The `Host` header of `key`'s origin: its authority without userinfo (RFC 9112 §3.2).
fn host_header(key: &Key) -> Result<HeaderValue, NetworkError> {
    HeaderValue::from_str(without_userinfo(key.authority.as_str()))
        .map_err(|_| NetworkError::Other("request URI host is not a valid header".into()))
}

/// The `Host` header of the connection `tx` to `key`'s origin: made once per connection,
/// and shared (its bytes are not copied) by each request on it. The pool compares
/// authorities without case; a request whose authority is spelled otherwise gets its own.
fn connection_host(tx: &mut Http1, key: &Key) -> Result<HeaderValue, NetworkError> {
    if let Some((authority, host)) = &tx.reused().host {
        if authority.as_str() == key.authority.as_str() {
            return Ok(host.clone());
        }
        return host_header(key);
    }
    let host = host_header(key)?;
    tx.reused().host = Some((key.authority.clone(), host.clone()));
    Ok(host)
}

/// An authority without its userinfo, which is never sent (RFC 9110 §4.2.4).
fn without_userinfo(authority: &str) -> &str {
    authority.rsplit('@').next().unwrap_or(authority)
}

impl Inner {
    /// Sends `request` on an HTTP/2 connection (see `net/h2.rs`) and makes the response's
    /// body of its stream. With `may_replay`, a request with a body that can be sent
    /// again comes back as [`Retry::Replay`] when the server refuses its stream
    /// unprocessed. The head is queued when this is called, so that the future (boxed by
    /// every request, and under 1 KiB: see `the_future_of_a_request_stays_under_1_kib`)
    /// does not keep the request.
    fn send_h2<'a>(
        &'a self,
        connection: H2Connection,
        mut request: Request<RequestBody>,
        key: &'a Key,
        options: &'a SendOptions,
        may_replay: bool,
        fresh: Option<ConnectionTiming>,
    ) -> impl Future<Output = Result<Response<ResponseBody>, Retry>> + Send + 'a {
        let expect_continue = options.expect_continue.and_then(|wait| {
            use http_body::Body as _;
            let empty = request.body().is_end_stream();
            expects_continue(&mut request, empty, wait)
        });
        let context = StreamContext {
            read_timeout: self.read_timeout,
            tls: tls_host(key).map(|host| (&self.connector.tls, host)),
            expect_continue,
        };
        // A map rather than an `async` block, which would keep the stream's future twice:
        // as what it captures and as what it awaits.
        let sent = connection.send(request, context, may_replay, fresh);
        futures_util::FutureExt::map(sent, move |sent| {
            let (response, info) = sent?;
            let (parts, reply) = response.into_parts();
            let body = match reply {
                H2Reply::Body(body) => ResponseBody::h2(body, self.read_timeout, info),
                H2Reply::Tunnel => {
                    return Ok(Response::from_parts(parts, ResponseBody::tunnel(info)));
                }
            };
            self.decode(Response::from_parts(parts, body), options)
                .map_err(Retry::Fail)
        })
    }

    /// The same for an HTTP/1.1 connection's error.
    fn h1_request_error(&self, error: H1Error, key: &Key) -> NetworkError {
        match self.tls_alert(&error, key) {
            Some(tls) => tls,
            None => self.head_limits.request_error(error),
        }
    }

    /// The [`NetworkError::Tls`] for a TLS failure on an `https:` connection after the
    /// client's side of the handshake: in TLS 1.3 a server that refuses the client's
    /// certificate (or the lack of one) says so only then.
    pub(super) fn tls_alert(
        &self,
        error: &(dyn std::error::Error + 'static),
        key: &Key,
    ) -> Option<NetworkError> {
        let host = tls_host(key)?;
        self.connector.tls.alert_after_handshake(host, error)
    }

    /// An open HTTP/2 connection of another origin that `key`'s requests may share, as
    /// browsers share them (RFC 9113 §9.1.1): to an `https:` origin on the same port,
    /// reached directly, at an address `key`'s host resolves to, whose certificate (its
    /// chain verified when it was made) is valid for `key`'s host too. Asks DNS only
    /// when the pool holds a candidate; a transport with a TLS configuration of the
    /// caller's own (whose verifier may judge a host by more than its name) never shares.
    ///
    /// The lookup is the connection's, and noted in `timing` as such.
    async fn coalesce(&self, key: &Key, timing: &mut ConnectionTiming) -> Coalesced {
        if !self.connector.coalescing {
            return Coalesced::No;
        }
        let candidates = self.pool.h2_to_share(key);
        let Some(host) = tls_host(key).filter(|_| !candidates.is_empty()) else {
            return Coalesced::No;
        };
        let port = key.authority.port_u16().unwrap_or(443);
        timing.domain_lookup_start = Some(std::time::Instant::now());
        // A failure here is the connection's to report, when it looks again.
        let Ok(addrs) = self.connector.resolve(key.route.as_ref(), host, port).await else {
            return Coalesced::No;
        };
        timing.domain_lookup_end = Some(std::time::Instant::now());
        let shared = candidates.into_iter().find(|h2| {
            h2.peer.as_ref().is_some_and(|peer| {
                peer.addr.is_some_and(|addr| addrs.contains(&addr))
                    && peer
                        .tls
                        .as_ref()
                        .is_some_and(|tls| super::tls::certificate_covers(tls, host))
            })
        });
        match shared {
            Some(shared) => Coalesced::Shared(super::h2::H2Connection {
                shared: true,
                ..shared
            }),
            None => Coalesced::Resolved(addrs),
        }
    }
}

/// What [`Inner::coalesce`] found.
enum Coalesced {
    /// Another origin's connection to share.
    Shared(super::h2::H2Connection),
    /// None to share; the addresses the origin's host resolved to, for its connection.
    Resolved(Vec<std::net::SocketAddr>),
    /// None to share, and nothing looked up.
    No,
}

/// The host of `key`'s origin as its TLS server name knows it, for an `https:` one.
fn tls_host(key: &Key) -> Option<&str> {
    if !key.https {
        return None;
    }
    let host = key.authority.host();
    Some(
        host.strip_prefix('[')
            .and_then(|host| host.strip_suffix(']'))
            .unwrap_or(host),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Boxed for every request: past 1 KiB, glibc's `malloc` leaves its per-thread cache
    /// for the shared bins and first merges every small free chunk (`malloc_consolidate`),
    /// which cost 1.6 % of the load benchmark's client CPU.
    #[test]
    fn the_future_of_a_request_stays_under_1_kib() {
        let transport = HyperTransport::new().unwrap();
        let request = Request::get("http://127.0.0.1:1/")
            .body(RequestBody::empty())
            .unwrap();
        let future = Arc::clone(&transport.inner).send(request, SendOptions::new());
        let size = std::mem::size_of_val(&future);
        assert!(size < 1000, "{size} bytes");
    }

    /// The future of a request on an HTTP/2 connection, boxed for every one too: under
    /// 1 KiB as well. (Its size, from its type: no connection is needed.)
    #[test]
    fn the_future_of_an_http2_request_stays_under_1_kib() {
        fn size_of_return<A, R>(_: impl Fn(A) -> R) -> usize {
            std::mem::size_of::<R>()
        }
        type Args = (
            &'static Inner,
            H2Connection,
            Request<RequestBody>,
            &'static Key,
            &'static SendOptions,
        );
        let size = size_of_return(|(inner, connection, request, key, options): Args| {
            inner.send_h2(connection, request, key, options, true, None)
        });
        assert!(size < 1000, "{size} bytes");
    }

    #[test]
    fn origin_key_rejects_other_schemes() {
        let uri: Uri = "ftp://example.com/".parse().unwrap();
        assert!(matches!(
            origin_key(&uri),
            Err(NetworkError::UnsupportedScheme(s)) if s == "ftp"
        ));
        let uri: Uri = "/relative".parse().unwrap();
        assert!(matches!(origin_key(&uri), Err(NetworkError::Other(_))));
    }

    #[test]
    fn the_host_header_and_a_proxys_target_leave_userinfo_out() {
        let key = origin_key(&"http://user:pw@Example.com:8080/a".parse().unwrap()).unwrap();
        assert_eq!(host_header(&key).unwrap(), "Example.com:8080");
        assert_eq!(without_userinfo(key.authority.as_str()), "Example.com:8080");
        assert_eq!(without_userinfo("example.com"), "example.com");
    }

    fn request(headers: &[(&str, &str)], body: RequestBody) -> Request<RequestBody> {
        let mut request = Request::post("http://example.com/").body(body).unwrap();
        for (name, value) in headers {
            request.headers_mut().append(
                http::HeaderName::from_bytes(name.as_bytes()).unwrap(),
                HeaderValue::from_str(value).unwrap(),
            );
        }
        request
    }

    fn refused(headers: &[(&str, &str)], body: RequestBody) -> bool {
        matches!(
            check_framing(&mut request(headers, body)),
            Err(NetworkError::InvalidRequest(_))
        )
    }

    #[test]
    fn check_framing_keeps_a_content_length_equal_to_the_body() {
        let mut ok = request(&[("content-length", "3")], RequestBody::from("abc"));
        assert!(check_framing(&mut ok).is_ok());
        let mut empty = request(&[("content-length", "0")], RequestBody::empty());
        assert!(check_framing(&mut empty).is_ok());
        let mut repeated = request(
            &[("content-length", "3"), ("content-length", "3, 3")],
            RequestBody::from("abc"),
        );
        assert!(check_framing(&mut repeated).is_ok());
        let mut none = request(&[("host", "a.test")], RequestBody::from("abc"));
        assert!(check_framing(&mut none).is_ok());
    }

    #[test]
    fn check_framing_refuses_what_would_put_the_peer_out_of_step() {
        assert!(refused(&[("content-length", "20")], RequestBody::empty()));
        assert!(refused(
            &[("content-length", "2")],
            RequestBody::from("abc")
        ));
        assert!(refused(
            &[("content-length", "3"), ("content-length", "4")],
            RequestBody::from("abc")
        ));
        for garbage in ["", "+3", "3 3", "0x3", "-1", "99999999999999999999999"] {
            assert!(
                refused(&[("content-length", garbage)], RequestBody::from("abc")),
                "{garbage:?}"
            );
        }
        assert!(refused(
            &[("transfer-encoding", "chunked")],
            RequestBody::from("abc")
        ));
        assert!(refused(
            &[("host", "a.test"), ("host", "b.test")],
            RequestBody::empty()
        ));
    }

    #[test]
    fn check_framing_holds_a_stream_to_its_content_length() {
        let stream = futures_util::stream::iter([Ok::<_, std::io::Error>(bytes::Bytes::new())]);
        let mut streamed = request(&[("content-length", "7")], RequestBody::from_stream(stream));
        assert!(check_framing(&mut streamed).is_ok());
        let hint = http_body::Body::size_hint(streamed.body());
        assert_eq!(hint.exact(), Some(7));
    }
}
