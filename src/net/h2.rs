//! HTTP/2 ([RFC 9113](https://httpwg.org/specs/rfc9113.html)), all of it in one place: the
//! connection of this crate's own as the pool holds it, the handshake that starts one and
//! the task that runs it (opening the queued requests' streams, keep-alive PINGs, the
//! adaptive window), the sending of a request on it with the rules for sending it again
//! and the mapping of its errors, extended CONNECT, and a response's body as its stream
//! delivers it.
//!
//! Framing, HPACK, stream states and flow control are the [`h2`] library's, the one hyper
//! itself runs on; what is here is what hyper's client adds on top of it, done for this
//! crate's requests and without its dispatch task and the task it spawns for each
//! response. A request queues its head for the connection's task, which opens the queued
//! streams in one go and in order; the request then writes a buffered body at once (h2
//! sends it as the windows allow), streams any other from a task of its own under the
//! stream's flow control, and reads its response straight from the stream.
//!
//! When `MAX_CONCURRENT_STREAMS` are open, h2 holds new streams back until one closes and
//! opens them first in, first out: requests wait for a stream rather than fail, each under
//! its read timeout. The connection is then marked saturated, for the pool to open another
//! beside it when it may (`http2_max_connections_per_origin`).
//!
//! In a build without the `http2` feature, the connection's handle is a type with no
//! values, so that the code around it stays one code and its HTTP/2 paths are provably
//! never taken.

// Without the feature, what only HTTP/2 uses is never reached.
#![cfg_attr(not(feature = "http2"), allow(dead_code))]

use std::borrow::Cow;
use std::sync::Arc;
#[cfg(feature = "http2")]
use std::sync::Mutex;
#[cfg(feature = "http2")]
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
#[cfg(feature = "http2")]
use std::task::{Context, Poll};

#[cfg(feature = "http2")]
use bytes::Bytes;
use http::header::{CONNECTION, CONTENT_LENGTH, TE, TRANSFER_ENCODING, UPGRADE};
use http::{HeaderValue, Request, Response, Uri, Version};
#[cfg(feature = "http2")]
use http_body::{Body, Frame, SizeHint};
use tokio::io::{AsyncRead, AsyncWrite};

#[cfg(feature = "http2")]
use super::protocol::HeadRefused;
use super::protocol::ProtocolOptions;
use super::request_body::RequestBody;
#[cfg(feature = "http2")]
use super::timer::{FAR_FUTURE, ReadTimeout, ReadTimer};
use super::timing::{ConnectionTiming, Recorded};
use super::tls::TlsSetup;
use crate::error::{BoxError, NetworkError, TimeoutKind};
use crate::peer::Peer;

/// hyper's defaults, which this crate has always had and keeps: windows larger than the
/// protocol's 64 KiB, which limit a download to 64 KiB per round trip.
#[cfg(feature = "http2")]
const DEFAULT_CONNECTION_WINDOW: u32 = 5 * 1024 * 1024;
#[cfg(feature = "http2")]
const DEFAULT_STREAM_WINDOW: u32 = 2 * 1024 * 1024;
/// The protocol's own window (RFC 9113 §6.9.2), where the adaptive window starts.
#[cfg(feature = "http2")]
const SPEC_WINDOW: u32 = 65_535;
/// The largest window the protocol allows (RFC 9113 §6.9.1).
#[cfg(feature = "http2")]
const MAX_WINDOW: u32 = (1 << 31) - 1;
/// The frame sizes the protocol allows (RFC 9113 §6.5.2).
#[cfg(feature = "http2")]
const FRAME_SIZES: std::ops::RangeInclusive<u32> = 16_384..=16_777_215;
/// The most bytes of request bodies a connection buffers to send.
#[cfg(feature = "http2")]
const MAX_SEND_BUFFER: usize = 1024 * 1024;
/// Streams opened before the server's `SETTINGS` say how many it takes: the least
/// RFC 9113 §6.5.2 recommends a server allow.
#[cfg(feature = "http2")]
const INITIAL_MAX_SEND_STREAMS: usize = 100;
/// Streams a server may make this client reset for its errors before the connection is
/// closed (h2's defence against a peer that makes a client reset streams endlessly).
#[cfg(feature = "http2")]
const MAX_LOCAL_ERROR_RESETS: usize = 1024;
/// The largest window the adaptive window grows to.
#[cfg(feature = "http2")]
const MAX_ADAPTIVE_WINDOW: u32 = 16 * 1024 * 1024;

/// The settings of the HTTP/2 connections a transport opens, made once from its
/// [`ProtocolOptions`].
#[derive(Clone, Debug)]
pub(crate) struct H2Config {
    #[cfg(feature = "http2")]
    builder: h2::client::Builder,
    #[cfg(feature = "http2")]
    keep_alive: Option<KeepAliveConfig>,
    #[cfg(feature = "http2")]
    adaptive_window: bool,
    /// `SETTINGS_MAX_HEADER_LIST_SIZE`, for the error of a head over it.
    #[cfg(feature = "http2")]
    max_header_list_size: u32,
}

#[cfg(feature = "http2")]
#[derive(Clone, Copy, Debug)]
struct KeepAliveConfig {
    interval: std::time::Duration,
    timeout: std::time::Duration,
    while_idle: bool,
}

impl H2Config {
    /// The settings `options` ask for. Sizes outside what the protocol allows are
    /// brought within it: a frame size to 16 KiB–16 MiB, a window to 2³¹−1.
    pub(crate) fn of(options: &ProtocolOptions) -> H2Config {
        #[cfg(not(feature = "http2"))]
        {
            let _ = options;
            H2Config {}
        }
        #[cfg(feature = "http2")]
        {
            // The adaptive window starts at the protocol's and overrides both sizes.
            let (stream_window, connection_window) = if options.http2_adaptive_window {
                (SPEC_WINDOW, SPEC_WINDOW)
            } else {
                (
                    options
                        .http2_initial_stream_window_size
                        .unwrap_or(DEFAULT_STREAM_WINDOW),
                    options
                        .http2_initial_connection_window_size
                        .unwrap_or(DEFAULT_CONNECTION_WINDOW),
                )
            };
            let frame_size = options
                .http2_max_frame_size
                .unwrap_or(*FRAME_SIZES.start())
                .clamp(*FRAME_SIZES.start(), *FRAME_SIZES.end());
            let mut builder = h2::client::Builder::new();
            builder
                .initial_max_send_streams(INITIAL_MAX_SEND_STREAMS)
                .initial_window_size(stream_window.min(MAX_WINDOW))
                .initial_connection_window_size(connection_window.min(MAX_WINDOW))
                .max_frame_size(frame_size)
                .max_header_list_size(options.http2_max_header_list_size)
                .max_send_buffer_size(MAX_SEND_BUFFER)
                .max_local_error_reset_streams(Some(MAX_LOCAL_ERROR_RESETS))
                .enable_push(false);
            let keep_alive = options
                .http2_keep_alive_interval
                .map(|interval| KeepAliveConfig {
                    // Added to `Instant::now()`: a longer one waits as long as one that
                    // never comes.
                    interval: interval.min(FAR_FUTURE),
                    timeout: options.http2_keep_alive_timeout.min(FAR_FUTURE),
                    while_idle: options.http2_keep_alive_while_idle,
                });
            H2Config {
                builder,
                keep_alive,
                adaptive_window: options.http2_adaptive_window,
                max_header_list_size: options.http2_max_header_list_size,
            }
        }
    }
}

/// An HTTP/2 connection as the pool holds it: the handle its requests are sent on, and
/// what is known of its other end, which each of its responses shares.
#[derive(Clone)]
pub(crate) struct H2Connection {
    pub(crate) tx: H2Sender,
    pub(crate) peer: Option<Arc<Peer>>,
    /// Whether this handle is the one another origin shares (coalescing, RFC 9113
    /// §9.1.1): its server may answer `421 Misdirected Request`.
    pub(crate) shared: bool,
}

impl H2Connection {
    /// Whether the connection can no longer take a request.
    pub(crate) fn is_closed(&self) -> bool {
        self.tx.is_closed()
    }

    /// Whether every stream the server allows is taken: a new request would wait for
    /// one to close.
    pub(crate) fn is_saturated(&self) -> bool {
        self.tx.is_saturated()
    }
}

#[cfg(not(feature = "http2"))]
pub(crate) use without::{H2Body, H2Sender};

#[cfg(not(feature = "http2"))]
mod without {
    use std::task::{Context, Poll};

    use bytes::Bytes;
    use http_body::{Frame, SizeHint};

    use crate::error::NetworkError;

    /// No HTTP/2 connection exists in a build without the `http2` feature: nothing offers
    /// `h2` by ALPN, and prior knowledge is refused when the transport is built.
    #[derive(Clone, Debug)]
    pub(crate) enum H2Sender {}

    impl H2Sender {
        pub(crate) fn is_closed(&self) -> bool {
            match *self {}
        }

        pub(crate) fn is_saturated(&self) -> bool {
            match *self {}
        }
    }

    /// Nor is there an HTTP/2 response body.
    pub(crate) enum H2Body {}

    impl H2Body {
        pub(crate) fn poll_frame(
            &mut self,
            _cx: &mut Context<'_>,
        ) -> Poll<Option<Result<Frame<Bytes>, NetworkError>>> {
            match *self {}
        }

        pub(crate) fn is_end_stream(&self) -> bool {
            match *self {}
        }

        pub(crate) fn size_hint(&self) -> SizeHint {
            match *self {}
        }

        pub(crate) fn read_timer(&mut self) -> Option<&mut Option<crate::net::timer::ReadTimer>> {
            match *self {}
        }
    }
}

/// The handle of an HTTP/2 connection, as the pool hands it out (a clone is one counter).
#[cfg(feature = "http2")]
#[derive(Clone)]
pub(crate) struct H2Sender {
    handle: Arc<Handle>,
}

/// What the pool's handles share; when the last goes, the connection's task lets go of
/// h2's handle, and h2 closes the connection once its streams are done.
#[cfg(feature = "http2")]
struct Handle {
    shared: Arc<Shared>,
}

#[cfg(feature = "http2")]
impl Drop for Handle {
    fn drop(&mut self) {
        self.shared.handles_gone.store(true, Ordering::Release);
        self.shared.task.wake();
    }
}

/// A request waiting for the connection's task to open its stream.
#[cfg(feature = "http2")]
struct Submission {
    head: Request<()>,
    end_of_stream: bool,
    /// An extended CONNECT: sent only if the server allows it.
    tunnel: bool,
    reply: ReplySender,
}

/// A stream opened: its response to come, and its sending side.
#[cfg(feature = "http2")]
type Opened = (Head, h2::SendStream<Bytes>);

/// A stream's response head: h2's future of it, or the head itself when the connection's
/// task found it there as it opened the stream (see [`ReplySender::send`]).
#[cfg(feature = "http2")]
enum Head {
    Pending(h2::client::ResponseFuture),
    Ready(Option<Result<Response<h2::RecvStream>, h2::Error>>),
}

#[cfg(feature = "http2")]
impl Future for Head {
    type Output = Result<Response<h2::RecvStream>, h2::Error>;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        match self.get_mut() {
            Head::Pending(future) => std::pin::Pin::new(future).poll(cx),
            // Taken once; a future polled after it is done may wait for ever.
            Head::Ready(head) => head.take().map_or(Poll::Pending, Poll::Ready),
        }
    }
}

/// The connection's task's answer to a request it was handed: the stream opened for it,
/// or why not. It passes from the task to the request as through a one-shot channel, but
/// for one thing: when the request is already waiting, the task polls the stream's
/// response future with the request's waker before handing it over and does not wake the
/// request; h2 wakes it when the head arrives. A request that sends no body thus wakes
/// once for its head, not once for its stream and again for its head.
#[cfg(feature = "http2")]
struct Reply {
    state: Mutex<ReplyState>,
    /// Whether the request has nothing to send once its stream is open (no body, no
    /// tunnel): only then may the answer leave it asleep.
    waits_for_head_only: bool,
}

#[cfg(feature = "http2")]
#[derive(Default)]
struct ReplyState {
    answer: Option<Result<Opened, Refused>>,
    /// The request's task, once it waits.
    waker: Option<std::task::Waker>,
    /// The request no longer waits: an answer is dropped (and a stream with it).
    abandoned: bool,
    /// The task let go of the request without answering.
    unanswered: bool,
}

#[cfg(feature = "http2")]
impl Reply {
    fn state(&self) -> std::sync::MutexGuard<'_, ReplyState> {
        // Nothing panics while it is held; should something have, the state is whole.
        self.state
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The connection's task's end of a [`Reply`].
#[cfg(feature = "http2")]
struct ReplySender(Option<Arc<Reply>>);

#[cfg(feature = "http2")]
impl ReplySender {
    /// Gives the request its answer.
    fn send(mut self, answer: Result<Opened, Refused>) {
        let Some(reply) = self.0.take() else {
            return;
        };
        let mut state = reply.state();
        if state.abandoned {
            drop(state);
            // Dropped here, outside the lock: a stream the request no longer wants is
            // reset by h2.
            drop(answer);
            return;
        }
        let waker = state.waker.as_ref().filter(|_| reply.waits_for_head_only);
        let answer = match (answer, waker) {
            (Ok((Head::Pending(mut head), stream)), Some(waker)) => {
                // The head arriving wakes the request; this answer need not. Polled while
                // the answer is held back, so that the request cannot miss it.
                match std::pin::Pin::new(&mut head).poll(&mut Context::from_waker(waker)) {
                    Poll::Pending => {
                        state.answer = Some(Ok((Head::Pending(head), stream)));
                        return;
                    }
                    Poll::Ready(head) => Ok((Head::Ready(Some(head)), stream)),
                }
            }
            (answer, _) => answer,
        };
        state.answer = Some(answer);
        let waker = state.waker.take();
        drop(state);
        if let Some(waker) = waker {
            waker.wake();
        }
    }
}

#[cfg(feature = "http2")]
impl Drop for ReplySender {
    fn drop(&mut self) {
        if let Some(reply) = self.0.take() {
            let mut state = reply.state();
            state.unanswered = true;
            let waker = state.waker.take();
            drop(state);
            if let Some(waker) = waker {
                waker.wake();
            }
        }
    }
}

/// The request's end of a [`Reply`]: the answer, or `None` if the task let the request go
/// without one.
#[cfg(feature = "http2")]
struct Replied(Arc<Reply>);

#[cfg(feature = "http2")]
impl Future for Replied {
    type Output = Option<Result<Opened, Refused>>;

    fn poll(self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        let mut state = self.0.state();
        if let Some(answer) = state.answer.take() {
            return Poll::Ready(Some(answer));
        }
        if state.unanswered {
            return Poll::Ready(None);
        }
        match &state.waker {
            Some(waker) if waker.will_wake(cx.waker()) => {}
            _ => state.waker = Some(cx.waker().clone()),
        }
        Poll::Pending
    }
}

#[cfg(feature = "http2")]
impl Drop for Replied {
    fn drop(&mut self) {
        let mut state = self.0.state();
        state.abandoned = true;
        let answer = state.answer.take();
        drop(state);
        // Outside the lock: a stream opened for nobody is reset by h2.
        drop(answer);
    }
}

/// A [`Reply`]'s two ends, for a request that sends nothing more once its stream is open
/// if `waits_for_head_only`.
#[cfg(feature = "http2")]
fn reply(waits_for_head_only: bool) -> (ReplySender, Replied) {
    let reply = Arc::new(Reply {
        state: Mutex::default(),
        waits_for_head_only,
    });
    (ReplySender(Some(Arc::clone(&reply))), Replied(reply))
}

/// Why the connection's task did not open a request's stream.
#[cfg(feature = "http2")]
enum Refused {
    /// The connection takes no new stream: the request's head, never sent, and h2's
    /// reason if it gave one.
    Unsent(Box<Request<()>>, Option<h2::Error>),
    /// h2 refused the stream (nothing was written).
    Failed(h2::Error),
    /// An extended CONNECT, and the server does not allow it.
    NoExtendedConnect,
}

/// The requests waiting for their streams, first in, first out.
#[cfg(feature = "http2")]
struct Queue {
    /// False once the connection's task has ended: nothing is queued any more.
    open: bool,
    waiting: std::collections::VecDeque<Submission>,
    /// The read timers of requests whose response head came, for the next requests to
    /// set again rather than make anew (see `net/timer.rs`): at most [`SPARE_TIMERS`].
    spare_timers: Vec<ReadTimer>,
}

/// The most read timers a connection keeps for its next requests: a request takes one
/// as it is queued and gives it back once its response body ends (see [`LentTimer`]), so
/// a connection keeps about as many as it has had requests in flight at once, up to this
/// (a server's `SETTINGS_MAX_CONCURRENT_STREAMS` is 100 or more as a rule, RFC 9113
/// §6.5.2). A kept one holds a waker that does nothing until it is set and polled again.
#[cfg(feature = "http2")]
const SPARE_TIMERS: usize = 128;

#[cfg(feature = "http2")]
impl H2Sender {
    pub(crate) fn is_closed(&self) -> bool {
        self.handle.shared.closed.load(Ordering::Acquire)
    }

    pub(crate) fn is_saturated(&self) -> bool {
        self.handle.shared.saturated.load(Ordering::Relaxed)
    }

    /// The h2 handle, to open a stream on.
    fn shared(&self) -> &Arc<Shared> {
        &self.handle.shared
    }
}

/// What a connection's task and its requests share.
#[cfg(feature = "http2")]
struct Shared {
    /// Set when the connection takes no new stream: its task ended, or a request found a
    /// `GOAWAY` or a connection error.
    closed: AtomicBool,
    /// Set when a keep-alive PING went unanswered and the connection was closed for it,
    /// so that its requests fail with the keep-alive timeout rather than a broken pipe.
    keep_alive_timed_out: AtomicBool,
    /// The keep-alive timeout, for that error's message.
    keep_alive_timeout: std::time::Duration,
    /// The limit on a response head, for the error of one over it.
    max_header_list_size: u32,
    /// Requests whose stream is open: sent, and their response body not done.
    open_streams: AtomicUsize,
    /// The PING in flight and the adaptive window's sample, with keep-alive or the
    /// adaptive window.
    pinger: Option<Mutex<Pinger>>,
    /// Whether bodies count the bytes they receive for the adaptive window.
    adaptive_window: bool,
    /// The requests waiting for the connection's task to open their streams.
    queue: Mutex<Queue>,
    /// The connection's task, woken when a request is queued or the last handle goes.
    task: futures_util::task::AtomicWaker,
    /// Set when the last [`H2Sender`] is gone.
    handles_gone: AtomicBool,
    /// Set while every stream the server allows is taken (a stream waits to open), by
    /// the connection's task, which alone writes it.
    saturated: AtomicBool,
}

#[cfg(feature = "http2")]
impl Shared {
    fn queue(&self) -> std::sync::MutexGuard<'_, Queue> {
        // Nothing panics while it is held; should something have, the queue is whole.
        self.queue
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The connection's one PING in flight, shared by keep-alive (sent by the connection's
/// task) and the adaptive window (sent as data arrives, by the body that reads it).
#[cfg(feature = "http2")]
struct Pinger {
    ping_pong: h2::PingPong,
    /// When the PING in flight went out.
    sent_at: Option<std::time::Instant>,
    /// Adaptive window: bytes received since that PING went out.
    bytes: usize,
    /// Adaptive window: no new sample before this.
    next_sample: std::time::Instant,
}

#[cfg(feature = "http2")]
impl Pinger {
    fn send(&mut self) {
        if self.ping_pong.send_ping(h2::Ping::opaque()).is_ok() {
            self.sent_at = Some(std::time::Instant::now());
        }
    }
}

#[cfg(feature = "http2")]
impl Shared {
    /// Adaptive window: `len` bytes of data arrived; the first data after a sample's
    /// delay starts the next sample with a PING.
    fn record_data(&self, len: usize) {
        if !self.adaptive_window {
            return;
        }
        let Some(pinger) = &self.pinger else { return };
        let Ok(mut pinger) = pinger.lock() else {
            return;
        };
        if pinger.sent_at.is_none() {
            if std::time::Instant::now() < pinger.next_sample {
                return;
            }
            pinger.bytes = 0;
            pinger.send();
        }
        pinger.bytes = pinger.bytes.saturating_add(len);
    }
}

/// A stream counted in [`Shared::open_streams`] until this is dropped.
#[cfg(feature = "http2")]
struct OpenStream(Arc<Shared>);

#[cfg(feature = "http2")]
impl OpenStream {
    fn new(shared: &Arc<Shared>) -> OpenStream {
        shared.open_streams.fetch_add(1, Ordering::Relaxed);
        OpenStream(Arc::clone(shared))
    }
}

#[cfg(feature = "http2")]
impl Drop for OpenStream {
    fn drop(&mut self) {
        self.0.open_streams.fetch_sub(1, Ordering::Relaxed);
    }
}

/// The protocol of an extended `CONNECT` ([RFC 8441](https://www.rfc-editor.org/rfc/rfc8441),
/// its `:protocol` pseudo-header): in the extensions of a `CONNECT` request sent through
/// [`HyperTransport`](super::HyperTransport), it asks for a tunnel on a stream of an open
/// HTTP/2 connection to the request's origin, the way WebSocket runs over HTTP/2.
///
/// A `2xx` answer hands the stream over as an [`Upgraded`](crate::Upgraded) byte stream,
/// through the [`OnUpgrade`](crate::upgrade::OnUpgrade) in the response's extensions, as a
/// `101` over HTTP/1.1 hands over its connection; the connection goes on carrying other
/// requests beside it. Any other answer is the response, with its body.
///
/// The transport never opens a connection for it: the server of a new connection has not
/// yet said whether it allows extended CONNECT (`SETTINGS_ENABLE_CONNECT_PROTOCOL`).
/// Without such a connection the request fails with [`ExtendedConnectUnavailable`], and
/// the caller can take another way (WebSocket over HTTP/1.1).
///
/// ```
/// use whatwg_fetch::net::{ConnectProtocol, RequestBody};
///
/// let mut request = http::Request::connect("https://example.com/chat")
///     .body(RequestBody::empty())
///     .unwrap();
/// request.extensions_mut().insert(ConnectProtocol::new("websocket"));
/// assert_eq!(
///     request.extensions().get::<ConnectProtocol>().unwrap().as_str(),
///     "websocket"
/// );
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ConnectProtocol(Box<str>);

impl ConnectProtocol {
    /// The protocol named `protocol` (`websocket` for WebSocket).
    ///
    /// ```
    /// use whatwg_fetch::net::ConnectProtocol;
    ///
    /// // An extended CONNECT (RFC 8441) for WebSocket, put in a request's extensions.
    /// let mut request = http::Request::connect("https://chat.example/").body(())?;
    /// request.extensions_mut().insert(ConnectProtocol::new("websocket"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn new(protocol: impl Into<Box<str>>) -> ConnectProtocol {
        ConnectProtocol(protocol.into())
    }

    /// The protocol's name.
    ///
    /// ```
    /// use whatwg_fetch::net::ConnectProtocol;
    ///
    /// assert_eq!(ConnectProtocol::new("websocket").as_str(), "websocket");
    /// ```
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why an extended `CONNECT` (see [`ConnectProtocol`]) could not be sent: no HTTP/2
/// connection to the origin is open, or its server does not allow extended CONNECT. The
/// source of the request's [`NetworkError::Protocol`].
///
/// ```
/// use whatwg_fetch::NetworkError;
/// use whatwg_fetch::net::ExtendedConnectUnavailable;
///
/// fn fall_back(error: &NetworkError) -> bool {
///     matches!(error, NetworkError::Protocol(source)
///         if source.downcast_ref::<ExtendedConnectUnavailable>().is_some())
/// }
/// # let _ = fall_back;
/// ```
#[derive(Debug)]
pub struct ExtendedConnectUnavailable {
    message: &'static str,
}

impl ExtendedConnectUnavailable {
    /// No HTTP/2 connection to the origin is open.
    pub(super) fn no_connection() -> NetworkError {
        ExtendedConnectUnavailable::error(
            "extended CONNECT (RFC 8441) needs an open HTTP/2 connection to the origin whose \
             server allows it (SETTINGS_ENABLE_CONNECT_PROTOCOL), and none is open (a new one's \
             server has not said yet)",
        )
    }

    /// The connection's server does not allow it.
    fn not_allowed() -> NetworkError {
        ExtendedConnectUnavailable::error(
            "extended CONNECT (RFC 8441): the server of the open HTTP/2 connection does not \
             allow it (no SETTINGS_ENABLE_CONNECT_PROTOCOL)",
        )
    }

    fn error(message: &'static str) -> NetworkError {
        NetworkError::Protocol(Box::new(ExtendedConnectUnavailable { message }))
    }
}

impl std::fmt::Display for ExtendedConnectUnavailable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message)
    }
}

impl std::error::Error for ExtendedConnectUnavailable {}

/// Whether `request` is an extended `CONNECT`.
pub(super) fn is_extended_connect<B>(request: &Request<B>) -> bool {
    request.method() == http::Method::CONNECT
        && request.extensions().get::<ConnectProtocol>().is_some()
}

/// Whether `error` is the [`ExtendedConnectUnavailable`] of an extended `CONNECT` that
/// was not sent.
pub(super) fn is_extended_connect_unavailable(error: &NetworkError) -> bool {
    matches!(error, NetworkError::Protocol(source)
        if source.downcast_ref::<ExtendedConnectUnavailable>().is_some())
}

/// The extended `CONNECT` that runs the WebSocket opening handshake `request` (a `GET`
/// with `Upgrade: websocket`, RFC 6455 §4.1) on an HTTP/2 stream, as
/// [RFC 8441 §5](https://www.rfc-editor.org/rfc/rfc8441#section-5) says; `None` for a
/// request with a body, which a handshake never has.
///
/// "The :protocol pseudo-header field MUST be included in the CONNECT request, and it MUST
/// have a value of "websocket"". The target's scheme, path and authority are the
/// request's, as the `:scheme`, `:path` and `:authority` h2 writes from its URI. "[RFC6455]
/// requires the use of Connection and Upgrade header fields that are not part of HTTP/2.
/// They MUST NOT be included in the CONNECT request defined here." "Implementations using
/// this extended CONNECT to bootstrap WebSockets do not do the processing of the
/// Sec-WebSocket-Key and Sec-WebSocket-Accept header fields of [RFC6455] as that
/// functionality has been superseded by the :protocol pseudo-header field": the key is
/// left out too, as Chrome leaves it out. "The Origin [RFC6454], Sec-WebSocket-Version,
/// Sec-WebSocket-Protocol, and Sec-WebSocket-Extensions header fields are used in the
/// CONNECT request and response-header fields as defined in [RFC6455]": kept, with the
/// cookies and every other header of the request's.
pub(super) fn websocket_connect(request: &Request<RequestBody>) -> Option<Request<RequestBody>> {
    if !http_body::Body::is_end_stream(request.body()) {
        return None;
    }
    let mut connect = Request::new(RequestBody::empty());
    *connect.method_mut() = http::Method::CONNECT;
    *connect.uri_mut() = request.uri().clone();
    let headers = connect.headers_mut();
    for (name, value) in request.headers() {
        if name != CONNECTION && name != UPGRADE && name != "sec-websocket-key" {
            headers.append(name, value.clone());
        }
    }
    connect
        .extensions_mut()
        .insert(ConnectProtocol::new("websocket"));
    Some(connect)
}

/// An HTTP/2 connection over `io`, to `peer`, with `config`'s settings: the handshake (the
/// preface and this client's `SETTINGS`), then the connection's task.
pub(super) async fn handshake<T>(
    io: T,
    config: &H2Config,
    peer: Option<Arc<Peer>>,
) -> Result<H2Connection, NetworkError>
where
    T: AsyncRead + AsyncWrite + Unpin + Send + 'static,
{
    // Not reached: without the feature, `h2` is never offered and prior knowledge is
    // refused when the transport is built.
    #[cfg(not(feature = "http2"))]
    {
        let _ = (io, config, peer);
        Err(NetworkError::Other(
            "HTTP/2 is not in this build (its Cargo feature `http2` is off)".into(),
        ))
    }
    #[cfg(feature = "http2")]
    {
        let (send, mut connection) = config
            .builder
            .handshake::<_, Bytes>(io)
            .await
            .map_err(|error| NetworkError::Protocol(Box::new(H2Error::new(error))))?;
        let pinger = match config.keep_alive.is_some() || config.adaptive_window {
            true => connection.ping_pong().map(|ping_pong| {
                Mutex::new(Pinger {
                    ping_pong,
                    sent_at: None,
                    bytes: 0,
                    next_sample: std::time::Instant::now(),
                })
            }),
            false => None,
        };
        let shared = Arc::new(Shared {
            closed: AtomicBool::new(false),
            keep_alive_timed_out: AtomicBool::new(false),
            keep_alive_timeout: config
                .keep_alive
                .map_or(std::time::Duration::ZERO, |keep_alive| keep_alive.timeout),
            max_header_list_size: config.max_header_list_size,
            open_streams: AtomicUsize::new(0),
            pinger,
            adaptive_window: config.adaptive_window,
            queue: Mutex::new(Queue {
                open: true,
                waiting: std::collections::VecDeque::new(),
                spare_timers: Vec::new(),
            }),
            task: futures_util::task::AtomicWaker::new(),
            handles_gone: AtomicBool::new(false),
            saturated: AtomicBool::new(false),
        });
        let task = ConnectionTask {
            connection,
            send: Some(send),
            held: std::collections::VecDeque::new(),
            check_saturation: false,
            shared: Arc::clone(&shared),
            keep_alive: config.keep_alive.map(KeepAlive::new),
            bdp: config.adaptive_window.then(Bdp::new),
        };
        tokio::spawn(task);
        Ok(H2Connection {
            shared: false,
            tx: H2Sender {
                handle: Arc::new(Handle { shared }),
            },
            peer,
        })
    }
}

/// The task of an HTTP/2 connection: reads and writes its frames (h2's `Connection`),
/// sends its keep-alive PINGs and grows its window. It ends when the connection closes
/// (h2 closes it with a `GOAWAY` once no handle is left and no stream open), or when a
/// keep-alive PING goes unanswered.
#[cfg(feature = "http2")]
struct ConnectionTask<T> {
    connection: h2::client::Connection<T, Bytes>,
    /// h2's handle, which the requests' streams are opened on, here, by this task: their
    /// tasks never take h2's lock to open one, and what is queued is opened in one go,
    /// in order. Dropped when the last [`H2Sender`] is.
    send: Option<h2::client::SendRequest<Bytes>>,
    /// Requests taken from the queue and not yet opened (h2 holds one stream back at the
    /// server's `MAX_CONCURRENT_STREAMS` until another closes).
    held: std::collections::VecDeque<Submission>,
    /// Whether a stream was opened, or one waits to open, since [`Shared::saturated`] was
    /// last brought up to date.
    check_saturation: bool,
    shared: Arc<Shared>,
    keep_alive: Option<KeepAlive>,
    bdp: Option<Bdp>,
}

#[cfg(feature = "http2")]
impl<T: AsyncRead + AsyncWrite + Unpin> std::future::Future for ConnectionTask<T> {
    type Output = ();

    fn poll(mut self: std::pin::Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        let this = &mut *self;
        this.shared.task.register(cx.waker());
        if this.send.is_some() && this.shared.handles_gone.load(Ordering::Acquire) {
            this.send = None;
        }
        this.open_streams(cx);
        if this.shared.pinger.is_some() && this.poll_pings(cx).is_ready() {
            // A keep-alive PING went unanswered: the connection is dropped, which fails
            // its streams.
            this.shared
                .keep_alive_timed_out
                .store(true, Ordering::Release);
            this.end();
            return Poll::Ready(());
        }
        match std::pin::Pin::new(&mut this.connection).poll(cx) {
            Poll::Ready(_) => {
                this.end();
                Poll::Ready(())
            }
            Poll::Pending => Poll::Pending,
        }
    }
}

#[cfg(feature = "http2")]
impl<T> ConnectionTask<T> {
    /// Opens the streams of the requests queued, in order, while h2 takes new streams.
    fn open_streams(&mut self, cx: &mut Context<'_>) {
        loop {
            if self.held.is_empty() {
                let mut queue = self.shared.queue();
                if queue.waiting.is_empty() {
                    drop(queue);
                    return self.note_saturation(cx);
                }
                std::mem::swap(&mut self.held, &mut queue.waiting);
            }
            let Some(send) = &mut self.send else {
                return self.refuse_all(None);
            };
            match send.poll_ready(cx) {
                // A stream waits to open on this handle, and h2 lets a handle hold one:
                // the next goes on a fresh handle and waits in h2's own queue of streams
                // to open, first in, first out, under its request's read timeout (the
                // queue here never waits on a stream that may never open).
                Poll::Pending => {
                    *send = send.clone();
                    self.set_saturated(true);
                    self.check_saturation = true;
                    continue;
                }
                Poll::Ready(Err(error)) => {
                    self.shared.closed.store(true, Ordering::Release);
                    return self.refuse_all(Some(error));
                }
                Poll::Ready(Ok(())) => {}
            }
            let Some(submission) = self.held.pop_front() else {
                continue;
            };
            let result = if submission.tunnel && !send.is_extended_connect_protocol_enabled() {
                Err(Refused::NoExtendedConnect)
            } else {
                send.send_request(submission.head, submission.end_of_stream)
                    .map(|(head, stream)| (Head::Pending(head), stream))
                    .map_err(Refused::Failed)
            };
            self.check_saturation = true;
            submission.reply.send(result);
        }
    }

    /// After the queue is done: whether a stream still waits to open (h2 lets one wait
    /// on the handle, and wakes this task when it opens).
    fn note_saturation(&mut self, cx: &mut Context<'_>) {
        if !self.check_saturation {
            return;
        }
        let Some(send) = &mut self.send else {
            return;
        };
        let saturated = send.poll_ready(cx).is_pending();
        self.set_saturated(saturated);
        // While one waits, each poll looks again (h2 wakes this task when it opens).
        self.check_saturation = saturated;
    }

    fn set_saturated(&self, saturated: bool) {
        // Written only when it changes: requests on other cores read it.
        if self.shared.saturated.load(Ordering::Relaxed) != saturated {
            self.shared.saturated.store(saturated, Ordering::Relaxed);
        }
    }

    /// Gives every request waiting its head back, unsent; the first gets `error` too.
    fn refuse_all(&mut self, mut error: Option<h2::Error>) {
        let mut queue = self.shared.queue();
        let waiting = std::mem::take(&mut queue.waiting);
        drop(queue);
        for submission in self.held.drain(..).chain(waiting) {
            let refused = Refused::Unsent(Box::new(submission.head), error.take());
            submission.reply.send(Err(refused));
        }
    }

    /// The connection is done: it takes nothing more, and what waits is given back.
    fn end(&mut self) {
        self.shared.closed.store(true, Ordering::Release);
        self.shared.queue().open = false;
        self.refuse_all(None);
    }
}

#[cfg(feature = "http2")]
impl<T: AsyncRead + AsyncWrite + Unpin> ConnectionTask<T> {
    /// Takes the answer to the PING in flight, and sends a keep-alive PING when one is
    /// due; ready when a keep-alive PING went unanswered.
    fn poll_pings(&mut self, cx: &mut Context<'_>) -> Poll<()> {
        let Some(pinger) = &self.shared.pinger else {
            return Poll::Pending;
        };
        let Ok(mut pinger) = pinger.lock() else {
            return Poll::Pending;
        };
        let now = std::time::Instant::now();
        let mut window = None;
        if let Some(sent_at) = pinger.sent_at {
            match pinger.ping_pong.poll_pong(cx) {
                Poll::Ready(Ok(_)) => {
                    pinger.sent_at = None;
                    if let Some(keep_alive) = &mut self.keep_alive {
                        keep_alive.answered();
                    }
                    if let Some(bdp) = &mut self.bdp {
                        window = bdp.sample(pinger.bytes, now.saturating_duration_since(sent_at));
                        pinger.next_sample = now + bdp.delay;
                    }
                }
                // The connection is closing: it says why to the streams.
                Poll::Ready(Err(_)) => pinger.sent_at = None,
                Poll::Pending => {}
            }
        }
        let idle = self.shared.open_streams.load(Ordering::Relaxed) == 0;
        let timed_out = match &mut self.keep_alive {
            Some(keep_alive) => keep_alive.poll(cx, &mut pinger, idle),
            None => Poll::Pending,
        };
        drop(pinger);
        if let Some(window) = window {
            self.connection.set_target_window_size(window);
            // Only fails for a size over the protocol's maximum, which the sample stays
            // below.
            let _ = self.connection.set_initial_window_size(window);
        }
        timed_out
    }
}

/// Keep-alive PINGs ([`HyperTransportBuilder::http2_keep_alive_interval`]): one every
/// interval after the last was answered, while a request is open (or always, with
/// `while_idle`); one unanswered within the timeout closes the connection.
///
/// DEVIATION: hyper counts the interval from the last frame read, so a busy connection
/// sends none; here it is counted from the last PING's answer, which on a busy connection
/// costs one 17-byte frame per interval and no clock reading per frame.
///
/// [`HyperTransportBuilder::http2_keep_alive_interval`]: super::HyperTransportBuilder::http2_keep_alive_interval
#[cfg(feature = "http2")]
struct KeepAlive {
    config: KeepAliveConfig,
    state: KeepAliveState,
    sleep: std::pin::Pin<Box<tokio::time::Sleep>>,
}

#[cfg(feature = "http2")]
enum KeepAliveState {
    /// Nothing scheduled: the connection was idle (without `while_idle`), or a PING was
    /// just answered.
    Waiting,
    /// The next PING goes out when the timer passes.
    Scheduled,
    /// A PING is out; the timer is its deadline.
    Sent,
}

#[cfg(feature = "http2")]
impl KeepAlive {
    fn new(config: KeepAliveConfig) -> KeepAlive {
        KeepAlive {
            config,
            state: KeepAliveState::Waiting,
            sleep: Box::pin(tokio::time::sleep(config.interval)),
        }
    }

    fn answered(&mut self) {
        if let KeepAliveState::Sent = self.state {
            self.state = KeepAliveState::Waiting;
        }
    }

    /// Ready when the PING out has gone unanswered past the timeout.
    fn poll(&mut self, cx: &mut Context<'_>, pinger: &mut Pinger, idle: bool) -> Poll<()> {
        let quiet = idle && !self.config.while_idle;
        loop {
            match self.state {
                KeepAliveState::Waiting => {
                    if quiet {
                        return Poll::Pending;
                    }
                    let at = tokio::time::Instant::now() + self.config.interval;
                    self.sleep.as_mut().reset(at);
                    self.state = KeepAliveState::Scheduled;
                }
                KeepAliveState::Scheduled => {
                    if self.sleep.as_mut().poll(cx).is_pending() {
                        return Poll::Pending;
                    }
                    if quiet {
                        self.state = KeepAliveState::Waiting;
                        return Poll::Pending;
                    }
                    // The adaptive window's PING, if one is out, serves as well.
                    if pinger.sent_at.is_none() {
                        pinger.send();
                    }
                    let at = tokio::time::Instant::now() + self.config.timeout;
                    self.sleep.as_mut().reset(at);
                    self.state = KeepAliveState::Sent;
                }
                KeepAliveState::Sent => {
                    return match self.sleep.as_mut().poll(cx) {
                        Poll::Ready(()) => Poll::Ready(()),
                        Poll::Pending => Poll::Pending,
                    };
                }
            }
        }
    }
}

/// The adaptive window ([`HyperTransportBuilder::http2_adaptive_window`]): the
/// bandwidth-delay product estimated from the bytes that arrive within a PING's round
/// trip, and the window grown to twice it while the bandwidth grows and the sample fills
/// two thirds of the window (the estimate gRPC and hyper make). Samples come closer while
/// the window grows and further apart (up to 10 s) while it holds.
///
/// [`HyperTransportBuilder::http2_adaptive_window`]: super::HyperTransportBuilder::http2_adaptive_window
#[cfg(feature = "http2")]
struct Bdp {
    window: u32,
    /// The highest bandwidth seen, in bytes per second.
    max_bandwidth: f64,
    /// The smoothed round-trip time, in seconds.
    rtt: f64,
    /// The wait between samples.
    delay: std::time::Duration,
    /// Samples since the window last grew.
    stable: u32,
}

#[cfg(feature = "http2")]
impl Bdp {
    fn new() -> Bdp {
        Bdp {
            window: SPEC_WINDOW,
            max_bandwidth: 0.0,
            rtt: 0.0,
            delay: std::time::Duration::from_millis(100),
            stable: 0,
        }
    }

    /// A sample: `bytes` arrived within a round trip of `rtt`. Returns the new window
    /// if it grows.
    fn sample(&mut self, bytes: usize, rtt: std::time::Duration) -> Option<u32> {
        if self.window >= MAX_ADAPTIVE_WINDOW {
            self.stabilize();
            return None;
        }
        let rtt = rtt.as_secs_f64();
        // An exponentially weighted average, as TCP's (RFC 6298 §2, α = 1/8).
        self.rtt = if self.rtt == 0.0 {
            rtt
        } else {
            self.rtt + (rtt - self.rtt) / 8.0
        };
        let bandwidth = bytes as f64 / (self.rtt * 1.5).max(f64::MIN_POSITIVE);
        if bandwidth < self.max_bandwidth {
            self.stabilize();
            return None;
        }
        self.max_bandwidth = bandwidth;
        let two_thirds = u64::from(self.window) * 2 / 3;
        if (bytes as u64) < two_thirds {
            self.stabilize();
            return None;
        }
        let grown = (bytes as u64)
            .saturating_mul(2)
            .min(u64::from(MAX_ADAPTIVE_WINDOW));
        self.window = u32::try_from(grown).unwrap_or(MAX_ADAPTIVE_WINDOW);
        self.stable = 0;
        self.delay /= 2;
        Some(self.window)
    }

    fn stabilize(&mut self) {
        if self.delay < std::time::Duration::from_secs(10) {
            self.stable += 1;
            if self.stable >= 2 {
                self.delay *= 4;
                self.stable = 0;
            }
        }
    }
}

/// What a request on a stream is held to, from the transport that sends it.
pub(super) struct StreamContext<'a> {
    /// The read timeout: for the stream to open and then for the response head (the
    /// body has its own, see `net/response_body.rs`).
    pub(super) read_timeout: Option<std::time::Duration>,
    /// For an `https:` origin, the TLS the connection was made with and the origin's host:
    /// a TLS alert that closed the connection is a refusal, not a reason to retry.
    pub(super) tls: Option<(&'a TlsSetup, &'a str)>,
    /// How long a body waits for a `100 Continue` (its head says `Expect:
    /// 100-continue`), if it does (see `SendOptions::expect_continue`).
    pub(super) expect_continue: Option<std::time::Duration>,
}

impl StreamContext<'_> {
    /// The read timeout passed.
    fn idle_timeout(&self) -> NetworkError {
        NetworkError::Timeout {
            kind: TimeoutKind::Idle,
            after: self.read_timeout.unwrap_or_default(),
        }
    }

    /// The TLS alert in `io`, on an `https:` origin's connection.
    fn tls_alert_in(&self, io: &std::io::Error) -> Option<NetworkError> {
        let (tls, host) = self.tls?;
        tls.alert_in(host, io)
    }
}

/// What follows a response head read from a stream.
pub(super) enum H2Reply {
    /// The response's body, read from the stream.
    Body(H2Body),
    /// Nothing: the `2xx` of an extended `CONNECT`, whose stream is the tunnel now (the
    /// response's `OnUpgrade` holds it).
    Tunnel,
}

/// A request whose head is queued for the connection's task to open its stream: what
/// the wait for its response keeps. Made before that wait, so that the request itself is
/// not part of its future (which every request boxes).
#[cfg(feature = "http2")]
struct Submitted {
    tx: H2Sender,
    peer: Option<Arc<Peer>>,
    /// Whether the connection is another origin's, shared (coalescing).
    shared: bool,
    replay: Option<Replay>,
    /// Whether the request is an extended `CONNECT`.
    tunnel: bool,
    body: RequestBody,
    end_of_stream: bool,
    open: Option<OpenStream>,
    request_start: std::time::Instant,
    /// The task's answer: the stream opened, or the head back; or the head at once, when
    /// the connection took no more (boxed: it is rare, and the future keeps this).
    queued: Result<Replied, Box<Request<()>>>,
    /// The read timer, set when there is a read timeout.
    timer: Option<ReadTimer>,
}

impl H2Connection {
    /// Sends `request` on a stream of this connection and waits for the response head:
    /// the head, what follows it, and what is known of the connection. With
    /// `may_replay`, a request with a body that can be sent again comes back as
    /// [`Retry::Replay`] when the server refuses its stream unprocessed.
    ///
    /// The head is queued for the connection's task here, when this is called; the
    /// future waits for the stream and then for the response.
    pub(super) fn send<'a>(
        self,
        request: Request<RequestBody>,
        context: StreamContext<'a>,
        may_replay: bool,
        fresh: Option<ConnectionTiming>,
    ) -> impl Future<Output = Result<(Response<H2Reply>, Recorded), Retry>> + Send + 'a {
        #[cfg(not(feature = "http2"))]
        {
            let _ = (request, context, may_replay, fresh);
            async move { match self.tx {} }
        }
        #[cfg(feature = "http2")]
        {
            match self.submit(request, &context, may_replay) {
                Ok(submitted) => {
                    futures_util::future::Either::Left(submitted.response(context, fresh))
                }
                Err(error) => futures_util::future::Either::Right(std::future::ready(Err(error))),
            }
        }
    }

    /// Queues `request`'s head for the connection's task, which opens its stream.
    #[cfg(feature = "http2")]
    fn submit(
        self,
        mut request: Request<RequestBody>,
        context: &StreamContext<'_>,
        may_replay: bool,
    ) -> Result<Submitted, Retry> {
        if let Some(refused) = super::fields::refused_over(&request, "HTTP/2") {
            return Err(Retry::Fail(refused));
        }
        let H2Connection { tx, peer, shared } = self;
        prepare_h2(&mut request);
        let replay = if may_replay {
            Replay::of(&request)
        } else {
            None
        };
        let tunnel = request
            .extensions_mut()
            .remove::<ConnectProtocol>()
            .filter(|_| request.method() == http::Method::CONNECT);
        let (parts, body) = request.into_parts();
        let end_of_stream = body.is_end_stream();
        let mut head = Request::from_parts(parts, ());
        if let Some(protocol) = &tunnel {
            if !end_of_stream {
                return Err(Retry::Fail(NetworkError::InvalidRequest(
                    "an extended CONNECT carries no body: what goes through the tunnel is \
                     written to it once it is open"
                        .into(),
                )));
            }
            head.extensions_mut()
                .insert(h2::ext::Protocol::from(protocol.as_str()));
        } else {
            set_content_length(&mut head, &body);
        }
        // Counted only where keep-alive needs to know (a count all requests touch would be
        // one more cache line between cores).
        let open = tx
            .shared()
            .pinger
            .is_some()
            .then(|| OpenStream::new(tx.shared()));
        let request_start = std::time::Instant::now();
        // The connection's task opens the stream: h2 opens streams first in, first out,
        // holding back those past the server's `MAX_CONCURRENT_STREAMS`.
        // The tunnel's stream stays open for what goes through it.
        let head_only = end_of_stream && tunnel.is_none();
        let (reply, replied) = reply(head_only);
        let submission = Submission {
            head,
            end_of_stream: head_only,
            tunnel: tunnel.is_some(),
            reply,
        };
        let (queued, mut timer) = {
            let mut queue = tx.shared().queue();
            // A timer of its own, as streams share the connection: one an earlier request
            // gave back, if there is one.
            let timer = match context.read_timeout {
                Some(_) => queue.spare_timers.pop(),
                None => None,
            };
            let queued = if queue.open {
                queue.waiting.push_back(submission);
                Ok(replied)
            } else {
                Err(Box::new(submission.head))
            };
            (queued, timer)
        };
        if queued.is_ok() {
            tx.shared().task.wake();
        }
        // The read timeout runs from here: the wait for the stream, then for the head.
        if let Some(timeout) = context.read_timeout {
            ReadTimer::set(&mut timer, timeout);
        }
        Ok(Submitted {
            tx,
            peer,
            shared,
            replay,
            tunnel: tunnel.is_some(),
            body,
            end_of_stream,
            open,
            request_start,
            queued,
            timer,
        })
    }
}

#[cfg(feature = "http2")]
impl Submitted {
    /// Waits for the stream, sends the body, and waits for the response head. (An
    /// `async` block rather than an `async fn`, whose future would keep `self` twice: as
    /// its parameter and as the local it is moved into.)
    #[expect(
        clippy::manual_async_fn,
        reason = "an `async` block keeps its parameters apart from the locals they move into"
    )]
    fn response<'a>(
        mut self,
        context: StreamContext<'a>,
        fresh: Option<ConnectionTiming>,
    ) -> impl Future<Output = Result<(Response<H2Reply>, Recorded), Retry>> + Send + 'a {
        async move {
            let context = &context;
            let refused = match self.queued {
                Ok(replied) => {
                    let Ok(replied) = ReadTimeout::new(replied, self.timer.as_mut()).await else {
                        // Given up: the task drops the stream if it opens it.
                        return Err(Retry::Fail(context.idle_timeout()));
                    };
                    match replied {
                        Some(Ok(opened)) => Ok(opened),
                        Some(Err(refused)) => Err(refused),
                        // The task ended and gave nothing back: not reached (it gives every
                        // head back), but the request was never sent either way.
                        None => Err(Refused::Failed(h2::Error::from(h2::Reason::REFUSED_STREAM))),
                    }
                }
                Err(head) => Err(Refused::Unsent(head, None)),
            };
            let tx = &self.tx;
            let (response, mut stream) = match refused {
                Ok(opened) => opened,
                Err(Refused::Unsent(head, error)) => {
                    // A `GOAWAY` or a failed connection: the request never left.
                    tx.shared().closed.store(true, Ordering::Release);
                    // A TLS alert closed the connection: a refusal, not a reason to retry.
                    let io = error.as_ref().and_then(h2::Error::get_io);
                    if let Some(tls) = io.and_then(|io| context.tls_alert_in(io)) {
                        return Err(Retry::Fail(tls));
                    }
                    let (parts, ()) = head.into_parts();
                    return Err(Retry::Again(Box::new(Request::from_parts(
                        parts, self.body,
                    ))));
                }
                Err(Refused::NoExtendedConnect) => {
                    return Err(Retry::Fail(ExtendedConnectUnavailable::not_allowed()));
                }
                // Refused before anything was written.
                Err(Refused::Failed(error)) => {
                    tx.shared().closed.store(true, Ordering::Release);
                    return Err(match self.replay {
                        Some(copy) => Retry::Again(Box::new(copy.into_request())),
                        None => Retry::Fail(request_error(tx, error, context)),
                    });
                }
            };
            // The body: one buffer is handed to h2 whole, which sends it as the windows allow
            // (it is in memory already); a stream is sent from a task of its own under the
            // stream's flow control, while the response is awaited here.
            // (A tunnel's stream is kept for it.)
            let mut upload = None;
            let mut kept = None;
            // A body that waits for a `100 Continue` goes once one comes or the wait
            // passes; a final response first leaves it unsent (RFC 9110 §10.1.1), the
            // stream reset when the response is done with.
            let mut response = response;
            let refused_first = match context.expect_continue.filter(|_| !self.end_of_stream) {
                Some(wait) => !await_continue(&mut response, wait).await,
                None => false,
            };
            if refused_first {
                drop(stream);
            } else if self.end_of_stream {
                kept = self.tunnel.then_some(stream);
            } else {
                match self.body.into_full() {
                    Ok(bytes) => {
                        // An error means the stream is already reset: the response says why.
                        let _ = stream.send_data(bytes, true);
                    }
                    Err(body) => {
                        let failed = Arc::new(Mutex::new(None));
                        let (cancel, cancelled) = tokio::sync::oneshot::channel();
                        tokio::spawn(send_body(body, stream, Arc::clone(&failed), cancelled));
                        upload = Some(Upload {
                            failed,
                            cancel: Some(cancel),
                        });
                    }
                }
            }
            let result = ReadTimeout::new(response, self.timer.as_mut()).await;
            let result = match result {
                Ok(result) => result,
                Err(()) => return Err(Retry::Fail(context.idle_timeout())),
            };
            // Done waiting for the head: the timer goes on to bound the body's waits, and
            // back to the connection for its next request once the body ends (at once for
            // anything but a body).
            let lent = LentTimer {
                timer: self.timer.take(),
                tx: self.tx,
            };
            match result {
                Ok(response) => {
                    if let Some(upload) = &mut upload {
                        upload.cancel = None;
                    }
                    let info = Recorded {
                        timing: fresh.map(Box::new),
                        request_start: self.request_start,
                        response_start: std::time::Instant::now(),
                        alpn: super::timing::H2,
                        secure: context.tls.is_some(),
                        peer: self.peer,
                    };
                    let (mut parts, recv) = response.into_parts();
                    if self.shared && parts.status == http::StatusCode::MISDIRECTED_REQUEST {
                        if let Some(copy) = self.replay {
                            return Err(Retry::Misdirected(Box::new(copy.into_request())));
                        }
                    }
                    if let Some(send) = kept.filter(|_| parts.status.is_success()) {
                        // The stream is the tunnel now (RFC 8441 §5), handed over as a `101`'s
                        // connection is.
                        let tunnel = H2Tunnel {
                            send,
                            recv,
                            read: Bytes::new(),
                            _open: self.open,
                        };
                        let upgraded = crate::upgrade::Upgraded::new(tunnel, Bytes::new());
                        parts
                            .extensions
                            .insert(crate::upgrade::OnUpgrade::new(upgraded));
                        return Ok((Response::from_parts(parts, H2Reply::Tunnel), info));
                    }
                    let body = H2Body {
                        recv,
                        open: self.open,
                        lent: Some(lent),
                        data_done: false,
                        expected: parts
                            .headers
                            .get(CONTENT_LENGTH)
                            .and_then(|length| length.to_str().ok())
                            .and_then(|length| length.parse().ok()),
                        received: 0,
                    };
                    Ok((Response::from_parts(parts, H2Reply::Body(body)), info))
                }
                Err(error) => {
                    if let Some(failed) = upload.as_mut().and_then(Upload::failure) {
                        return Err(Retry::Fail(failed));
                    }
                    match self.replay {
                        Some(copy) if refused_unprocessed(&error) => {
                            Err(Retry::Replay(Box::new(copy.into_request())))
                        }
                        _ => Err(Retry::Fail(request_error(&lent.tx, error, context))),
                    }
                }
            }
        }
    }
}

/// Maps an error h2 reports on `tx` before the response head arrived: the keep-alive
/// timeout, a TLS alert, a head over the limit (with a message naming the limit and the
/// option that sets it; h2's own error stays its source), else a
/// [`NetworkError::Protocol`].
#[cfg(feature = "http2")]
fn request_error(tx: &H2Sender, error: h2::Error, context: &StreamContext<'_>) -> NetworkError {
    let shared = tx.shared();
    if shared.keep_alive_timed_out.load(Ordering::Acquire) {
        return NetworkError::Timeout {
            kind: TimeoutKind::KeepAlive,
            after: shared.keep_alive_timeout,
        };
    }
    if let Some(tls) = error.get_io().and_then(|io| context.tls_alert_in(io)) {
        return tls;
    }
    // h2 resets a stream whose header block passes SETTINGS_MAX_HEADER_LIST_SIZE with
    // PROTOCOL_ERROR, as it does a malformed one, and tells them apart to no caller.
    let reset_here = error.is_library()
        && error.is_reset()
        && error.reason() == Some(h2::Reason::PROTOCOL_ERROR);
    if !reset_here {
        return NetworkError::Protocol(Box::new(H2Error::new(error)));
    }
    let limit = shared.max_header_list_size;
    NetworkError::Protocol(Box::new(HeadRefused {
        message: format!(
            "HTTP/2 response head refused: larger than {limit} bytes (see \
             http2_max_header_list_size) or malformed"
        ),
        version: Version::HTTP_2,
        limit,
        source: Box::new(H2Error::new(error)),
    }))
}

/// The stream of an extended `CONNECT` answered `2xx`, as a byte stream both ways: reads
/// take its `DATA` (and give its window back), writes send `DATA` as the windows allow,
/// shutting down ends the stream's sending side. Dropped, it resets the stream.
#[cfg(feature = "http2")]
struct H2Tunnel {
    send: h2::SendStream<Bytes>,
    recv: h2::RecvStream,
    /// Data received and not yet read.
    read: Bytes,
    _open: Option<OpenStream>,
}

#[cfg(feature = "http2")]
fn tunnel_error(error: h2::Error) -> std::io::Error {
    match error.is_io() {
        true => error
            .into_io()
            .unwrap_or_else(|| std::io::ErrorKind::BrokenPipe.into()),
        false => std::io::Error::other(H2Error::new(error)),
    }
}

#[cfg(feature = "http2")]
impl AsyncRead for H2Tunnel {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> Poll<std::io::Result<()>> {
        let this = &mut *self;
        while this.read.is_empty() {
            match std::task::ready!(this.recv.poll_data(cx)) {
                Some(Ok(data)) => {
                    let _ = this.recv.flow_control().release_capacity(data.len());
                    this.read = data;
                }
                // The server ended its side.
                None => return Poll::Ready(Ok(())),
                Some(Err(error)) if error.reason() == Some(h2::Reason::NO_ERROR) => {
                    return Poll::Ready(Ok(()));
                }
                Some(Err(error)) => return Poll::Ready(Err(tunnel_error(error))),
            }
        }
        let n = buf.remaining().min(this.read.len());
        buf.put_slice(&this.read.split_to(n));
        Poll::Ready(Ok(()))
    }
}

#[cfg(feature = "http2")]
impl AsyncWrite for H2Tunnel {
    fn poll_write(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<std::io::Result<usize>> {
        if buf.is_empty() {
            return Poll::Ready(Ok(0));
        }
        let send = &mut self.send;
        let mut available = send.capacity();
        if available == 0 {
            send.reserve_capacity(buf.len());
            available = match send.poll_capacity(cx) {
                Poll::Ready(Some(Ok(granted))) => granted,
                Poll::Ready(Some(Err(error))) => return Poll::Ready(Err(tunnel_error(error))),
                Poll::Ready(None) => {
                    return Poll::Ready(Err(std::io::ErrorKind::BrokenPipe.into()));
                }
                Poll::Pending => {
                    if let Poll::Ready(reset) = send.poll_reset(cx) {
                        let error = match reset {
                            Ok(reason) => h2::Error::from(reason),
                            Err(error) => error,
                        };
                        return Poll::Ready(Err(tunnel_error(error)));
                    }
                    return Poll::Pending;
                }
            };
        }
        let n = available.min(buf.len());
        match send.send_data(Bytes::copy_from_slice(&buf[..n]), false) {
            Ok(()) => Poll::Ready(Ok(n)),
            Err(error) => Poll::Ready(Err(tunnel_error(error))),
        }
    }

    fn poll_flush(
        self: std::pin::Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<std::io::Result<()>> {
        // The connection's task writes what is sent.
        Poll::Ready(Ok(()))
    }

    fn poll_shutdown(
        mut self: std::pin::Pin<&mut Self>,
        _cx: &mut Context<'_>,
    ) -> Poll<std::io::Result<()>> {
        // Ends the sending side (`END_STREAM`); a second time it is already ended.
        let _ = self.send.send_data(Bytes::new(), true);
        Poll::Ready(Ok(()))
    }
}

/// Waits for a `100 Continue` on `response`'s stream, for at most `wait`: `false` when
/// the final response came first (then kept in `response`).
#[cfg(feature = "http2")]
async fn await_continue(response: &mut Head, wait: std::time::Duration) -> bool {
    let mut sleep = std::pin::pin!(tokio::time::sleep(wait));
    std::future::poll_fn(|cx| {
        let Head::Pending(future) = response else {
            return Poll::Ready(false);
        };
        while let Poll::Ready(Some(Ok(informational))) = future.poll_informational(cx) {
            if informational.status() == http::StatusCode::CONTINUE {
                return Poll::Ready(true);
            }
        }
        if let Poll::Ready(head) = std::pin::Pin::new(&mut *future).poll(cx) {
            *response = Head::Ready(Some(head));
            return Poll::Ready(false);
        }
        sleep.as_mut().poll(cx).map(|()| true)
    })
    .await
}

/// The body of a request being streamed by [`send_body`], as its request sees it.
#[cfg(feature = "http2")]
struct Upload {
    /// The body's own error, if it failed.
    failed: Arc<Mutex<Option<BoxError>>>,
    /// Dropped unsent once the response has come: the body goes on. Sent when the
    /// request is given up (dropped, or past the read timeout): the stream is reset.
    cancel: Option<tokio::sync::oneshot::Sender<()>>,
}

#[cfg(feature = "http2")]
impl Upload {
    /// The request failed because its body did: that error.
    fn failure(&mut self) -> Option<NetworkError> {
        let error = self.failed.lock().ok()?.take()?;
        Some(NetworkError::Protocol(Box::new(H2Error {
            message: Cow::Borrowed("the request body's stream failed"),
            source: Some(error),
        })))
    }
}

#[cfg(feature = "http2")]
impl Drop for Upload {
    fn drop(&mut self) {
        if let Some(cancel) = self.cancel.take() {
            let _ = cancel.send(());
        }
    }
}

/// Sends a streamed request body on its stream, each chunk as the stream's and the
/// connection's windows allow (never more buffered than one chunk). Ends at the body's
/// end, when the server resets the stream, or when the request is given up; a body that
/// fails resets the stream and leaves its error in `failed`.
#[cfg(feature = "http2")]
async fn send_body(
    mut body: RequestBody,
    mut stream: h2::SendStream<Bytes>,
    failed: Arc<Mutex<Option<BoxError>>>,
    mut cancelled: tokio::sync::oneshot::Receiver<()>,
) {
    let mut watch_cancel = true;
    loop {
        let next = std::future::poll_fn(|cx| {
            if watch_cancel {
                match std::pin::Pin::new(&mut cancelled).poll(cx) {
                    Poll::Ready(Ok(())) => return Poll::Ready(Err(h2::Reason::CANCEL)),
                    Poll::Ready(Err(_)) => watch_cancel = false,
                    Poll::Pending => {}
                }
            }
            if let Poll::Ready(reset) = stream.poll_reset(cx) {
                return Poll::Ready(Err(reset.unwrap_or(h2::Reason::CANCEL)));
            }
            std::pin::Pin::new(&mut body).poll_frame(cx).map(Ok)
        })
        .await;
        let frame = match next {
            Ok(frame) => frame,
            Err(h2::Reason::CANCEL) => {
                stream.send_reset(h2::Reason::CANCEL);
                return;
            }
            // Reset by the server: its reason reaches the request.
            Err(_) => return,
        };
        let mut data = match frame {
            None => {
                let _ = stream.send_data(Bytes::new(), true);
                return;
            }
            Some(Err(error)) => {
                if let Ok(mut slot) = failed.lock() {
                    *slot = Some(error);
                }
                stream.send_reset(h2::Reason::CANCEL);
                return;
            }
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) => data,
                // A request body has no trailers here.
                Err(_) => continue,
            },
        };
        let end = body.is_end_stream();
        while !data.is_empty() {
            // What the windows granted and is not used yet; else a wait for more (h2 says
            // only when its grant grows).
            let mut granted = stream.capacity();
            if granted == 0 {
                stream.reserve_capacity(data.len());
                granted = match std::future::poll_fn(|cx| stream.poll_capacity(cx)).await {
                    Some(Ok(granted)) => granted,
                    // Reset or closed: the response says why.
                    Some(Err(_)) | None => return,
                };
            }
            let piece = data.split_to(granted.min(data.len()));
            if stream.send_data(piece, end && data.is_empty()).is_err() {
                return;
            }
        }
        if end {
            return;
        }
    }
}

/// A response body read from its HTTP/2 stream: its data, each chunk's window given back
/// as it is taken, then its trailers.
#[cfg(feature = "http2")]
pub(crate) struct H2Body {
    recv: h2::RecvStream,
    /// Counts the stream as open until the body is done.
    open: Option<OpenStream>,
    /// Whether the data is done and the trailers are next.
    data_done: bool,
    /// The response's `Content-Length`, if it declared one (h2 holds the data to it): a
    /// stream cut short is then a length mismatch, and what is left of it the size hint.
    expected: Option<u64>,
    /// The bytes of data taken so far.
    received: u64,
    /// The request's read timer, for the body's waits; given back to the connection when
    /// the body ends.
    lent: Option<LentTimer>,
}

/// A request's read timer, lent to it by its connection (see `net/timer.rs`): it bounds
/// the wait for the response head, then each wait of the body, and goes back to the
/// connection's spares when dropped, for a later request to set again. A connection
/// keeps as many as it has had requests in flight at once, up to [`SPARE_TIMERS`], so
/// that requests in flight neither make a timer nor put one into the runtime's timer
/// wheel and take it out again (each a lock of the wheel, which every worker thread
/// takes as it parks).
#[cfg(feature = "http2")]
struct LentTimer {
    timer: Option<ReadTimer>,
    tx: H2Sender,
}

#[cfg(feature = "http2")]
impl Drop for LentTimer {
    fn drop(&mut self) {
        if let Some(mut timer) = self.timer.take() {
            // The waker of the task that last waited on it goes, so that a kept timer keeps
            // no finished task's memory alive.
            timer.forget_waker();
            let mut queue = self.tx.shared().queue();
            if queue.spare_timers.len() < SPARE_TIMERS {
                queue.spare_timers.push(timer);
            }
        }
    }
}

#[cfg(feature = "http2")]
impl H2Body {
    /// The timer for the body's waits: the request's, until the body ends.
    pub(crate) fn read_timer(&mut self) -> Option<&mut Option<ReadTimer>> {
        self.lent.as_mut().map(|lent| &mut lent.timer)
    }

    pub(crate) fn poll_frame(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, NetworkError>>> {
        if !self.data_done {
            match self.recv.poll_data(cx) {
                Poll::Ready(Some(Ok(data))) => {
                    // Taken: the window it held is the server's again.
                    let _ = self.recv.flow_control().release_capacity(data.len());
                    let length = u64::try_from(data.len()).unwrap_or(u64::MAX);
                    self.received = self.received.saturating_add(length);
                    if let Some(open) = &self.open {
                        open.0.record_data(data.len());
                    }
                    return Poll::Ready(Some(Ok(Frame::data(data))));
                }
                Poll::Ready(Some(Err(error))) => return Poll::Ready(self.failed(error)),
                Poll::Ready(None) => self.data_done = true,
                Poll::Pending => return Poll::Pending,
            }
        }
        match self.recv.poll_trailers(cx) {
            Poll::Ready(Ok(trailers)) => {
                self.open = None;
                self.lent = None;
                Poll::Ready(trailers.map(|trailers| Ok(Frame::trailers(trailers))))
            }
            Poll::Ready(Err(error)) => Poll::Ready(self.failed(error)),
            Poll::Pending => Poll::Pending,
        }
    }

    /// The stream failed: how that reads to the body's reader.
    fn failed(&mut self, error: h2::Error) -> Option<Result<Frame<Bytes>, NetworkError>> {
        self.lent = None;
        if let Some(open) = self.open.take() {
            if open.0.keep_alive_timed_out.load(Ordering::Acquire) {
                return Some(Err(NetworkError::Timeout {
                    kind: TimeoutKind::KeepAlive,
                    after: open.0.keep_alive_timeout,
                }));
            }
        }
        // The code of a server's `RST_STREAM` (or `GOAWAY`) that closed the stream without
        // blaming anyone.
        let quiet_close = error.reason().filter(|reason| {
            matches!(*reason, h2::Reason::NO_ERROR | h2::Reason::CANCEL) && error.is_remote()
        });
        let closed_quietly = quiet_close.is_some();
        if closed_quietly && self.recv.is_end_stream() {
            // An early response (RFC 9113 §8.1): its stream ended, then the server reset
            // the rest of the exchange.
            return None;
        }
        let cut = closed_quietly
            || error
                .get_io()
                .is_some_and(|io| io.kind() == std::io::ErrorKind::UnexpectedEof);
        Some(Err(if self.expected.is_some() && cut {
            NetworkError::LengthMismatch
        } else if let Some(reason) = quiet_close {
            // Whatever its data, never a whole body: its `END_STREAM` never came.
            NetworkError::Protocol(
                format!(
                    "the server closed the HTTP/2 stream ({}) before the end of its body",
                    error_code(reason)
                )
                .into(),
            )
        } else {
            NetworkError::Protocol(Box::new(H2Error::new(error)))
        }))
    }

    pub(crate) fn is_end_stream(&self) -> bool {
        self.recv.is_end_stream()
    }

    /// What is left of the body: exactly what its `Content-Length` leaves, if it declared
    /// one; without one, nothing once the stream has ended.
    pub(crate) fn size_hint(&self) -> SizeHint {
        if self.data_done {
            return SizeHint::with_exact(0);
        }
        match self.expected {
            // h2 holds the data to the declared length, so what is left is the rest of
            // it, whether or not it has arrived; asked without a look at the stream, whose
            // lock the connection's task takes for every frame. (A stream that ended with
            // its head, a `HEAD`'s or a `304`'s, never gets here: its body is done from the
            // start, see `ResponseBody::from_source`.)
            Some(expected) => SizeHint::with_exact(expected.saturating_sub(self.received)),
            None if self.recv.is_end_stream() => SizeHint::with_exact(0),
            None => SizeHint::default(),
        }
    }
}

/// An error of an HTTP/2 connection or stream: what failed, and the h2 library's error
/// (or the I/O error under it) as its source.
#[derive(Debug)]
pub(crate) struct H2Error {
    message: Cow<'static, str>,
    source: Option<BoxError>,
}

impl H2Error {
    #[cfg(feature = "http2")]
    fn new(error: h2::Error) -> H2Error {
        let message = describe(&error);
        // The I/O error itself, where there is one: h2's keeps only its kind and text.
        let source: BoxError = match error.is_io() {
            true => match error.into_io() {
                Some(io) => Box::new(io),
                None => "an I/O error".into(),
            },
            false => Box::new(error),
        };
        H2Error {
            message,
            source: Some(source),
        }
    }
}

/// What `error` says, with the error code of the `RST_STREAM` or `GOAWAY` behind it named
/// (h2's own text gives only the code's description: "stream no longer needed" for
/// `CANCEL`), and who sent it.
#[cfg(feature = "http2")]
fn describe(error: &h2::Error) -> Cow<'static, str> {
    let Some(reason) = error.reason() else {
        return Cow::Borrowed("http2 error");
    };
    let code = error_code(reason);
    let message = match (error.is_reset(), error.is_go_away(), error.is_remote()) {
        (true, _, true) => format!("the server reset the HTTP/2 stream ({code})"),
        (true, _, false) => format!("the HTTP/2 stream was reset by this client ({code})"),
        (_, true, true) => format!("the server closed the HTTP/2 connection (GOAWAY {code})"),
        (_, true, false) => {
            format!("the HTTP/2 connection was closed by this client (GOAWAY {code})")
        }
        _ => format!("http2 error ({code})"),
    };
    Cow::Owned(message)
}

/// The name of an HTTP/2 error code (RFC 9113 §7), or its number for a code without one.
#[cfg(feature = "http2")]
fn error_code(reason: h2::Reason) -> String {
    match u32::from(reason) {
        // h2 names these, and only these.
        0..=13 => format!("{reason:?}"),
        code => format!("error code {code:#x}"),
    }
}

impl std::fmt::Display for H2Error {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for H2Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source.as_deref().map(|source| source as _)
    }
}

pub(super) enum Retry {
    /// The request never left; here it is back.
    Again(Box<Request<RequestBody>>),
    /// The server of another origin's connection, shared by this one, answered `421
    /// Misdirected Request`; here is a copy to send on a connection of its own.
    Misdirected(Box<Request<RequestBody>>),
    /// The server refused the request's stream without processing it; here is a copy to
    /// send on a new connection.
    Replay(Box<Request<RequestBody>>),
    Fail(NetworkError),
}

/// What it takes to send an HTTP/2 request again: method, target, headers and a body that
/// can be sent again (extensions are not kept). The request's head goes to h2, which
/// takes it; the copy shares the header values and the body's [`Bytes`], and copies none.
/// (An HTTP/1.1 request is kept whole instead, see `net/h1.rs`.)
struct Replay {
    method: http::Method,
    uri: Uri,
    version: Version,
    /// The fields, shared with the thread's last request's copy when they are the same
    /// (see [`replay_fields`]).
    headers: Fields,
    body: RequestBody,
}

/// A request's header fields, in order, shared.
type Fields = Arc<[(http::HeaderName, HeaderValue)]>;

/// The most fields, and bytes of names and values, a thread keeps a copy of for its next
/// request's [`Replay`] to share.
const KEPT_FIELDS: usize = 32;
const KEPT_BYTES: usize = 4096;

std::thread_local! {
    /// The fields of the thread's last [`Replay`] (of at most [`KEPT_FIELDS`] fields and
    /// [`KEPT_BYTES`] bytes): the next request with the same fields shares them.
    static LAST_REPLAYED: std::cell::RefCell<Option<Fields>> =
        const { std::cell::RefCell::new(None) };
}

/// A copy of `map`'s fields for a [`Replay`]. A client sends the same fields request after
/// request (its default headers, a token), and every request keeps a copy for the rare one
/// that a server refuses unprocessed: the thread's last copy is shared when the fields
/// are the same, which finding out costs a pass over them rather than a copy of each and
/// an allocation. What the thread keeps (a credential among it, maybe) lasts until its
/// next request with other fields.
fn replay_fields(map: &http::HeaderMap) -> Fields {
    let copy = || -> Fields {
        map.iter()
            .map(|(name, value)| (name.clone(), value.clone()))
            .collect()
    };
    crate::infra::kept::with_slot(&LAST_REPLAYED, |last| {
        if let Some(kept) = last.as_ref().filter(|kept| same_fields(kept, map)) {
            return Arc::clone(kept);
        }
        let fields = copy();
        let size: usize = fields
            .iter()
            .map(|(name, value)| name.as_str().len().saturating_add(value.len()))
            .fold(0, usize::saturating_add);
        *last = (fields.len() <= KEPT_FIELDS && size <= KEPT_BYTES).then(|| Arc::clone(&fields));
        fields
    })
    // While the thread's storage is being torn down, or (never) borrowed twice.
    .unwrap_or_else(copy)
}

/// Whether `map` holds `kept`'s fields, in order. A value the two share (a clone of the
/// same `Bytes`, as a client's repeated fields are) is found equal without reading it.
fn same_fields(kept: &[(http::HeaderName, HeaderValue)], map: &http::HeaderMap) -> bool {
    kept.len() == map.len()
        && kept
            .iter()
            .zip(map)
            .all(|((kept_name, kept_value), (name, value))| {
                let (a, b) = (kept_value.as_bytes(), value.as_bytes());
                kept_name == name
                    && kept_value.is_sensitive() == value.is_sensitive()
                    && a.len() == b.len()
                    && (a.as_ptr() == b.as_ptr() || a == b)
            })
}

impl Replay {
    /// What it takes to send `request` again, if its body can be sent again (empty or one
    /// buffer, never a stream).
    fn of(request: &Request<RequestBody>) -> Option<Replay> {
        let body = request.body().try_clone()?;
        let headers = replay_fields(request.headers());
        Some(Replay {
            method: request.method().clone(),
            uri: request.uri().clone(),
            version: request.version(),
            headers,
            body,
        })
    }

    /// The request again.
    fn into_request(self) -> Request<RequestBody> {
        let mut request = Request::new(self.body);
        *request.method_mut() = self.method;
        *request.uri_mut() = self.uri;
        *request.version_mut() = self.version;
        let headers = request.headers_mut();
        headers.reserve(self.headers.len());
        for (name, value) in self.headers.iter() {
            headers.append(name.clone(), value.clone());
        }
        request
    }
}

/// Whether an HTTP/2 server refused a stream without processing it: a `RST_STREAM` with
/// `REFUSED_STREAM` (RFC 9113 §8.7), or a `GOAWAY` whose last stream identifier is below
/// the stream's (§6.8; the h2 library gives a stream the `GOAWAY`'s error only then, or
/// when the stream was opened after it).
#[cfg(feature = "http2")]
fn refused_unprocessed(error: &h2::Error) -> bool {
    error.is_remote() && (error.is_go_away() || error.reason() == Some(h2::Reason::REFUSED_STREAM))
}

/// HTTP/2 forbids connection-specific header fields (RFC 9113 §8.2.2).
fn prepare_h2(request: &mut Request<RequestBody>) {
    let headers = request.headers_mut();
    // Usually there are none: one pass over the names finds out, where removing each by name
    // would hash it six times.
    if headers.keys().any(is_connection_specific) {
        remove_connection_specific(headers);
    }
    *request.version_mut() = Version::HTTP_2;
}

/// A `Content-Length` for a body of known length, unless the request has one: for any
/// body but an empty one of a method that defines no meaning for a body (RFC 9110 §8.6),
/// as HTTP/1.1 sends it (h2 then holds the body to it).
fn set_content_length(head: &mut Request<()>, body: &RequestBody) {
    let Some(length) = http_body::Body::size_hint(body).exact() else {
        return;
    };
    let no_meaning = matches!(
        *head.method(),
        http::Method::GET | http::Method::HEAD | http::Method::DELETE | http::Method::CONNECT
    );
    if length == 0 && no_meaning {
        return;
    }
    head.headers_mut()
        .entry(CONTENT_LENGTH)
        .or_insert_with(|| HeaderValue::from(length));
}

/// Whether `name` is one of the fields [`remove_connection_specific`] looks at.
fn is_connection_specific(name: &http::HeaderName) -> bool {
    // Names compared as names: a standard one against a name `http` does not know is
    // unequal at once, where comparing with a `str` would spell it out first.
    static KEEP_ALIVE: http::HeaderName = http::HeaderName::from_static("keep-alive");
    static PROXY_CONNECTION: http::HeaderName = http::HeaderName::from_static("proxy-connection");
    name == CONNECTION
        || name == TRANSFER_ENCODING
        || name == UPGRADE
        || name == TE
        || *name == KEEP_ALIVE
        || *name == PROXY_CONNECTION
}

/// Removes the connection-specific fields HTTP/2 forbids (RFC 9113 §8.2.2), keeping
/// `TE: trailers`.
fn remove_connection_specific(headers: &mut http::HeaderMap) {
    for name in [CONNECTION, TRANSFER_ENCODING, UPGRADE] {
        headers.remove(name);
    }
    headers.remove("keep-alive");
    headers.remove("proxy-connection");
    if headers
        .get(TE)
        .is_some_and(|te| !te.as_bytes().eq_ignore_ascii_case(b"trailers"))
    {
        headers.remove(TE);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn request_with(fields: &[(&'static str, &'static str)]) -> Request<RequestBody> {
        let mut request = Request::new(RequestBody::empty());
        *request.uri_mut() = Uri::from_static("https://example.com/a");
        for (name, value) in fields {
            request
                .headers_mut()
                .append(*name, HeaderValue::from_static(value));
        }
        request
    }

    #[test]
    fn a_replay_shares_the_fields_of_the_last_one_when_they_are_the_same() {
        let fields = [
            ("accept", "*/*"),
            ("user-agent", "x"),
            ("accept", "text/html"),
        ];
        let first = Replay::of(&request_with(&fields)).unwrap();
        let second = Replay::of(&request_with(&fields)).unwrap();
        assert!(Arc::ptr_eq(&first.headers, &second.headers));
        // Another value, another order, a sensitive value: a copy of their own.
        for other in [
            request_with(&[
                ("accept", "*/*"),
                ("user-agent", "y"),
                ("accept", "text/html"),
            ]),
            request_with(&[
                ("user-agent", "x"),
                ("accept", "*/*"),
                ("accept", "text/html"),
            ]),
            {
                let mut request = request_with(&fields);
                for value in request.headers_mut().values_mut() {
                    value.set_sensitive(true);
                }
                request
            },
        ] {
            let replay = Replay::of(&other).unwrap();
            assert!(!Arc::ptr_eq(&first.headers, &replay.headers));
            let again = replay.into_request();
            assert_eq!(again.headers(), other.headers());
            assert!(
                again
                    .headers()
                    .iter()
                    .zip(other.headers())
                    .all(|((_, a), (_, b))| a.is_sensitive() == b.is_sensitive())
            );
            assert_eq!(again.uri(), other.uri());
        }
    }

    #[test]
    fn the_fields_of_a_large_head_are_not_kept_for_the_next_replay() {
        let large = "v".repeat(KEPT_BYTES);
        let mut request = request_with(&[("accept", "*/*")]);
        request
            .headers_mut()
            .append("x-large", HeaderValue::from_str(&large).unwrap());
        let first = Replay::of(&request).unwrap();
        let second = Replay::of(&request).unwrap();
        assert!(!Arc::ptr_eq(&first.headers, &second.headers));
        assert_eq!(second.into_request().headers(), request.headers());
    }

    /// A waker that counts its wakes.
    #[cfg(feature = "http2")]
    fn counting_waker() -> (std::task::Waker, Arc<std::sync::atomic::AtomicUsize>) {
        struct Count(Arc<std::sync::atomic::AtomicUsize>);
        impl std::task::Wake for Count {
            fn wake(self: Arc<Self>) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        let count = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let waker = std::task::Waker::from(Arc::new(Count(Arc::clone(&count))));
        (waker, count)
    }

    #[cfg(feature = "http2")]
    fn poll_replied(replied: &mut Replied, waker: &std::task::Waker) -> Poll<Option<bool>> {
        let polled = std::pin::Pin::new(replied).poll(&mut Context::from_waker(waker));
        polled.map(|answer| answer.map(|answer| answer.is_ok()))
    }

    #[cfg(feature = "http2")]
    #[test]
    fn an_answer_before_the_request_waits_is_there_when_it_does() {
        let (reply, mut replied) = reply(true);
        reply.send(Err(Refused::NoExtendedConnect));
        let (waker, wakes) = counting_waker();
        assert_eq!(poll_replied(&mut replied, &waker), Poll::Ready(Some(false)));
        assert_eq!(wakes.load(Ordering::SeqCst), 0);
    }

    #[cfg(feature = "http2")]
    #[test]
    fn a_refusal_wakes_the_waiting_request() {
        // Only an opened stream's head may wake the request in the answer's place.
        let (reply, mut replied) = reply(true);
        let (waker, wakes) = counting_waker();
        assert_eq!(poll_replied(&mut replied, &waker), Poll::Pending);
        reply.send(Err(Refused::NoExtendedConnect));
        assert_eq!(wakes.load(Ordering::SeqCst), 1);
        assert_eq!(poll_replied(&mut replied, &waker), Poll::Ready(Some(false)));
    }

    #[cfg(feature = "http2")]
    #[test]
    fn a_request_let_go_unanswered_is_woken_and_told() {
        let (reply, mut replied) = reply(true);
        let (waker, wakes) = counting_waker();
        assert_eq!(poll_replied(&mut replied, &waker), Poll::Pending);
        drop(reply);
        assert_eq!(wakes.load(Ordering::SeqCst), 1);
        assert_eq!(poll_replied(&mut replied, &waker), Poll::Ready(None));
    }

    #[cfg(feature = "http2")]
    #[test]
    fn an_answer_to_a_request_that_gave_up_is_dropped() {
        let (reply, replied) = reply(true);
        drop(replied);
        let kept = Arc::clone(reply.0.as_ref().unwrap());
        reply.send(Err(Refused::NoExtendedConnect));
        assert!(kept.state().answer.is_none());
    }

    #[test]
    fn prepare_h2_drops_connection_headers() {
        let mut request = Request::get("https://example.com/")
            .header("connection", "keep-alive")
            .header("te", "gzip")
            .body(RequestBody::empty())
            .unwrap();
        prepare_h2(&mut request);
        assert!(request.headers().is_empty());
        assert_eq!(request.version(), Version::HTTP_2);

        let mut request = Request::get("https://example.com/")
            .header("accept", "*/*")
            .header("te", "trailers")
            .header("keep-alive", "timeout=5")
            .body(RequestBody::empty())
            .unwrap();
        prepare_h2(&mut request);
        let names: Vec<&str> = request.headers().keys().map(|n| n.as_str()).collect();
        assert_eq!(names, ["accept", "te"]);
    }

    #[test]
    fn a_websocket_handshake_becomes_an_extended_connect() {
        let handshake = Request::get("https://example.com/chat?room=1")
            .header("upgrade", "websocket")
            .header("connection", "Upgrade")
            .header("sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ==")
            .header("sec-websocket-version", "13")
            .header("sec-websocket-protocol", "chat, superchat")
            .header("origin", "https://example.com")
            .header("cookie", "a=1")
            .body(RequestBody::empty())
            .unwrap();
        let connect = websocket_connect(&handshake).unwrap();
        assert_eq!(connect.method(), http::Method::CONNECT);
        assert_eq!(connect.uri(), "https://example.com/chat?room=1");
        assert_eq!(
            connect.extensions().get::<ConnectProtocol>(),
            Some(&ConnectProtocol::new("websocket"))
        );
        assert!(is_extended_connect(&connect));
        let names: Vec<&str> = connect.headers().keys().map(|n| n.as_str()).collect();
        assert_eq!(
            names,
            [
                "sec-websocket-version",
                "sec-websocket-protocol",
                "origin",
                "cookie"
            ]
        );
        // A handshake never has a body: a request with one is not sent this way.
        let with_body = Request::get("https://example.com/")
            .body(RequestBody::full("x"))
            .unwrap();
        assert!(websocket_connect(&with_body).is_none());
    }

    #[test]
    fn content_length_is_set_as_http1_sets_it() {
        let length = |method: http::Method, body: RequestBody| {
            let mut head = Request::builder().method(method).body(()).unwrap();
            set_content_length(&mut head, &body);
            head.headers()
                .get(CONTENT_LENGTH)
                .map(|value| value.to_str().unwrap().to_owned())
        };
        assert_eq!(length(http::Method::GET, RequestBody::empty()), None);
        assert_eq!(
            length(http::Method::POST, RequestBody::empty()).as_deref(),
            Some("0")
        );
        assert_eq!(
            length(http::Method::GET, RequestBody::full("abc")).as_deref(),
            Some("3")
        );
        let stream =
            RequestBody::from_stream(futures_util::stream::empty::<Result<Bytes, BoxError>>());
        assert_eq!(length(http::Method::POST, stream), None);
    }

    #[cfg(feature = "http2")]
    #[test]
    fn the_adaptive_window_grows_while_samples_fill_it_and_stops_at_its_ceiling() {
        let mut bdp = Bdp::new();
        let rtt = std::time::Duration::from_millis(10);
        // A sample that fills the window doubles it; one below two thirds keeps it.
        assert_eq!(bdp.sample(65_535, rtt), Some(131_070));
        assert_eq!(bdp.sample(1_000, rtt), None);
        let mut window = 0;
        for _ in 0..64 {
            if let Some(grown) = bdp.sample(usize::MAX / 4, rtt) {
                window = grown;
            }
        }
        assert_eq!(window, MAX_ADAPTIVE_WINDOW);
        // A zero round trip divides by nothing.
        let mut bdp = Bdp::new();
        assert!(bdp.sample(100_000, std::time::Duration::ZERO).is_some());
    }

    #[cfg(feature = "http2")]
    #[test]
    fn out_of_range_settings_are_brought_within_the_protocol() {
        let options = ProtocolOptions {
            http2_max_frame_size: Some(1),
            http2_initial_stream_window_size: Some(u32::MAX),
            http2_initial_connection_window_size: Some(u32::MAX),
            ..ProtocolOptions::default()
        };
        // h2's builder asserts on these: made without a panic.
        let _ = H2Config::of(&options);
        let options = ProtocolOptions {
            http2_max_frame_size: Some(u32::MAX),
            ..ProtocolOptions::default()
        };
        let _ = H2Config::of(&options);
    }
}
