//! [WebSocket](https://websockets.spec.whatwg.org/): a connection of messages both ways,
//! opened by the client's fetch, as a [`Stream`](futures_core::Stream) and a [`Sink`](futures_sink::Sink) of [`Message`]s.
//!
//! The opening handshake is the WebSockets Standard's "establish a WebSocket
//! connection": a fetch in `websocket` mode, so it shares the client's TLS options,
//! proxies, cookie jar, HSTS list and `Origin`, and refuses redirects as browsers do.
//! Frames are RFC 6455's, with `permessage-deflate` (RFC 7692) offered and used when the
//! server accepts it. When the client already holds an HTTP/2 connection to the origin
//! whose server allows extended CONNECT, the WebSocket runs on a stream of it (RFC 8441),
//! as Chrome's and Firefox's do, and otherwise on an HTTP/1.1 connection of its own
//! ([`WebSocket::version`] says which). What a server controls is bounded by [`WebSocketLimits`]: frame
//! and message size, fragments per message, control frames per second, the inflated
//! size of a compressed message, how long a send waits for a server that stops reading,
//! and how long the closing handshake may take.
//!
//! ```no_run
//! # async fn run() -> Result<(), whatwg_fetch::Error> {
//! use futures_util::StreamExt;
//! use whatwg_fetch::Client;
//! use whatwg_fetch::websocket::{CloseCode, Message};
//!
//! let client = Client::new();
//! let mut socket = client
//!     .websocket("wss://echo.example.com/chat")
//!     .protocols(["chat.v2"])
//!     .connect()
//!     .await?;
//! println!("connected, subprotocol {:?}", socket.protocol());
//! socket.send("hello").await?;
//! while let Some(message) = socket.next().await {
//!     match message? {
//!         Message::Text(text) => {
//!             println!("{text}");
//!             break;
//!         }
//!         Message::Binary(data) => println!("{} bytes", data.len()),
//!         Message::Close(frame) => println!("closed by the server: {frame:?}"),
//!         _ => {} // pings are answered by the connection itself
//!     }
//! }
//! socket.close(CloseCode::NORMAL, "done").await?;
//! # Ok(())
//! # }
//! ```
//!
//! A [`WebSocket`] splits into a reader and a writer with
//! [`StreamExt::split`](https://docs.rs/futures-util/latest/futures_util/stream/trait.StreamExt.html#method.split),
//! as a `tokio-tungstenite` stream does.
// The summary line's links name their targets: rustdoc's module lists show it without
// resolving the names the module imports.
#![allow(rustdoc::redundant_explicit_links)]

mod deflate;
mod handshake;
mod protocol;

use std::fmt;
use std::future::poll_fn;
use std::io;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::Bytes;
use futures_core::Stream;
use futures_sink::Sink;
use url::Url;

use crate::client::Client;
use crate::error::{Error, ErrorKind, Result};
use crate::headers::Headers;
use crate::upgrade::Upgraded;

use protocol::{Connection, Ended};

/// The default of [`WebSocketLimits::max_frame_size`]: 16 MiB.
///
/// ```
/// use whatwg_fetch::websocket::{DEFAULT_MAX_FRAME_SIZE, WebSocketLimits};
///
/// let limits = WebSocketLimits::default().max_frame_size(DEFAULT_MAX_FRAME_SIZE / 16);
/// # let _ = limits;
/// ```
pub const DEFAULT_MAX_FRAME_SIZE: usize = 16 << 20;

/// The default of [`WebSocketLimits::max_message_size`]: 64 MiB.
///
/// ```
/// use whatwg_fetch::websocket::{DEFAULT_MAX_MESSAGE_SIZE, WebSocketLimits};
///
/// let limits = WebSocketLimits::default().max_message_size(DEFAULT_MAX_MESSAGE_SIZE / 64);
/// # let _ = limits;
/// ```
pub const DEFAULT_MAX_MESSAGE_SIZE: usize = 64 << 20;

/// The default of [`WebSocketLimits::max_fragments`]: 16,384 frames per message.
///
/// ```
/// use whatwg_fetch::websocket::{DEFAULT_MAX_FRAGMENTS, WebSocketLimits};
///
/// let limits = WebSocketLimits::default().max_fragments(DEFAULT_MAX_FRAGMENTS / 4);
/// # let _ = limits;
/// ```
pub const DEFAULT_MAX_FRAGMENTS: usize = 16_384;

/// The default of [`WebSocketLimits::max_control_frames_per_second`]: 1,000.
///
/// ```
/// use whatwg_fetch::websocket::{DEFAULT_MAX_CONTROL_FRAMES_PER_SECOND, WebSocketLimits};
///
/// let limits = WebSocketLimits::default().max_control_frames_per_second(DEFAULT_MAX_CONTROL_FRAMES_PER_SECOND / 10);
/// # let _ = limits;
/// ```
pub const DEFAULT_MAX_CONTROL_FRAMES_PER_SECOND: u32 = 1_000;

/// The default of [`WebSocketLimits::close_timeout`]: 10 seconds.
///
/// ```
/// use whatwg_fetch::websocket::{DEFAULT_CLOSE_TIMEOUT, WebSocketLimits};
///
/// let limits = WebSocketLimits::default().close_timeout(DEFAULT_CLOSE_TIMEOUT / 5);
/// # let _ = limits;
/// ```
pub const DEFAULT_CLOSE_TIMEOUT: Duration = Duration::from_secs(10);

/// The default of [`WebSocketLimits::send_timeout`]: 30 seconds.
///
/// ```
/// use whatwg_fetch::websocket::{DEFAULT_SEND_TIMEOUT, WebSocketLimits};
///
/// let limits = WebSocketLimits::default().send_timeout(DEFAULT_SEND_TIMEOUT * 2);
/// # let _ = limits;
/// ```
pub const DEFAULT_SEND_TIMEOUT: Duration = Duration::from_secs(30);

/// What a server may make a [`WebSocket`] hold or do. Not in the standard, which sets no
/// limit: without them a frame header announcing 2^63 bytes, a message of endless
/// fragments, a ping flood or a small compressed message that inflates to gigabytes each
/// grow until the process runs out of memory, and a server that stops reading or never
/// answers a Close keeps the connection, and the task waiting on it, forever.
///
/// Past a limit on what the server sends, the connection fails (RFC 6455 §7.1.7): a Close
/// with the matching code (1009 for sizes, 1008 for a flood) is written, within
/// [`close_timeout`](WebSocketLimits::close_timeout), and then the stream gives an
/// [`ErrorKind::WebSocket`] error whose [`WebSocketError`] names the limit, and ends.
///
/// | What the server controls | Bound | Default |
/// | --- | --- | --- |
/// | bytes of a frame, held from its header on | [`max_frame_size`](WebSocketLimits::max_frame_size) | 16 MiB |
/// | bytes of a message, assembled and inflated | [`max_message_size`](WebSocketLimits::max_message_size) | 64 MiB |
/// | frames of a message | [`max_fragments`](WebSocketLimits::max_fragments) | 16,384 |
/// | control frames a second | [`max_control_frames_per_second`](WebSocketLimits::max_control_frames_per_second) | 1,000 |
/// | pongs queued, however many pings come while the server does not read | one (RFC 6455 §5.5.3 answers the latest) | — |
/// | bytes queued for a server that does not read | 64 KiB and the message being sent (a send waits below that), one pong, one Close | — |
/// | time a send waits for the server to take bytes, without progress | [`send_timeout`](WebSocketLimits::send_timeout) | 30 s |
/// | time from a Close of ours (sent, answering the server's, or failing the connection) to the end | [`close_timeout`](WebSocketLimits::close_timeout) | 10 s |
///
/// Not bounded: how long [`WebSocket::recv`] waits for the server's next message, since
/// a WebSocket may rightly be idle for hours. Bound it with `tokio::time::timeout`, or
/// send pings of your own and expect their pongs. The opening handshake is a fetch, bound
/// by the client's `connect_timeout` and `read_timeout`.
///
/// ```
/// use std::time::Duration;
/// use whatwg_fetch::websocket::WebSocketLimits;
///
/// let limits = WebSocketLimits::default()
///     .max_message_size(1 << 20)
///     .close_timeout(Duration::from_secs(2))
///     .send_timeout(Duration::from_secs(5));
/// assert_eq!(limits.get_max_message_size(), 1 << 20);
/// assert_eq!(limits.get_send_timeout(), Duration::from_secs(5));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WebSocketLimits {
    max_frame_size: usize,
    max_message_size: usize,
    max_fragments: usize,
    max_control_frames_per_second: u32,
    close_timeout: Duration,
    send_timeout: Duration,
}

impl WebSocketLimits {
    /// The largest frame payload, in bytes, refused from its header before any of it is
    /// read. Default [`DEFAULT_MAX_FRAME_SIZE`] (16 MiB).
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::websocket::WebSocketLimits;
    ///
    /// // A chat of short messages: no frame over 1 MiB.
    /// let limits = WebSocketLimits::default().max_frame_size(1 << 20);
    /// let builder = whatwg_fetch::Client::new().websocket("wss://chat.example/").limits(limits);
    /// # let _ = (builder, Duration::ZERO);
    /// ```
    pub fn max_frame_size(mut self, bytes: usize) -> WebSocketLimits {
        self.max_frame_size = bytes;
        self
    }

    /// The largest message, in bytes, its fragments together and, for a compressed
    /// message, once inflated (the decompression-bomb cap). Default
    /// [`DEFAULT_MAX_MESSAGE_SIZE`] (64 MiB).
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::websocket::WebSocketLimits;
    ///
    /// // Messages, compressed or not, of at most 4 MiB once whole.
    /// let limits = WebSocketLimits::default().max_message_size(4 << 20);
    /// let builder = whatwg_fetch::Client::new().websocket("wss://chat.example/").limits(limits);
    /// # let _ = (builder, Duration::ZERO);
    /// ```
    pub fn max_message_size(mut self, bytes: usize) -> WebSocketLimits {
        self.max_message_size = bytes;
        self
    }

    /// The most frames one message may be fragmented into. Default
    /// [`DEFAULT_MAX_FRAGMENTS`] (16,384).
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::websocket::WebSocketLimits;
    ///
    /// // A message in at most 64 frames.
    /// let limits = WebSocketLimits::default().max_fragments(64);
    /// let builder = whatwg_fetch::Client::new().websocket("wss://chat.example/").limits(limits);
    /// # let _ = (builder, Duration::ZERO);
    /// ```
    pub fn max_fragments(mut self, frames: usize) -> WebSocketLimits {
        self.max_fragments = frames;
        self
    }

    /// The most control frames (ping, pong, close) a server may send in a second; a
    /// flood past it fails the connection with 1008. Default
    /// [`DEFAULT_MAX_CONTROL_FRAMES_PER_SECOND`] (1,000).
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::websocket::WebSocketLimits;
    ///
    /// // A server that pings more than 50 times a second is flooding.
    /// let limits = WebSocketLimits::default().max_control_frames_per_second(50);
    /// let builder = whatwg_fetch::Client::new().websocket("wss://chat.example/").limits(limits);
    /// # let _ = (builder, Duration::ZERO);
    /// ```
    pub fn max_control_frames_per_second(mut self, frames: u32) -> WebSocketLimits {
        self.max_control_frames_per_second = frames;
        self
    }

    /// How long the closing handshake may take once a Close of ours is queued: for
    /// [`WebSocket::close`] and `Sink::close`, ours written and (for `close`) the
    /// server's answer read; for a Close of the server's, our answer written before the
    /// server's is delivered; for a connection failed by a limit or a protocol error, the
    /// Close saying so written before the error is delivered. Past it the connection is
    /// dropped, whatever the server does: [`WebSocketError::CloseTimeout`] when we were
    /// waiting for the server's Close, and otherwise the server's Close or the failure,
    /// as due. Default [`DEFAULT_CLOSE_TIMEOUT`] (10 seconds).
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::websocket::WebSocketLimits;
    ///
    /// // Shutting down: give a server 2 s to answer the Close.
    /// let limits = WebSocketLimits::default().close_timeout(Duration::from_secs(2));
    /// let builder = whatwg_fetch::Client::new().websocket("wss://chat.example/").limits(limits);
    /// # let _ = (builder, Duration::ZERO);
    /// ```
    pub fn close_timeout(mut self, timeout: Duration) -> WebSocketLimits {
        self.close_timeout = timeout;
        self
    }

    /// How long a send ([`WebSocket::send`], the `Sink`'s `poll_ready` and `poll_flush`)
    /// may wait for the server to take any byte of what is queued: a server that stops
    /// reading fills the connection's buffers, and then each write waits. The time runs
    /// from the last write the connection took, so a slow link that keeps taking bytes
    /// does not reach it (the operating system reports room in steps: Linux once about
    /// half the socket's send buffer has drained, which over a network takes about a
    /// round trip). Past it the connection is dropped (no Close can reach a server that
    /// does not read) and the send fails with [`WebSocketError::SendTimeout`], as does the
    /// stream. Default [`DEFAULT_SEND_TIMEOUT`] (30 seconds).
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::websocket::WebSocketLimits;
    ///
    /// // A consumer that stops reading for 5 s is gone.
    /// let limits = WebSocketLimits::default().send_timeout(Duration::from_secs(5));
    /// let builder = whatwg_fetch::Client::new().websocket("wss://chat.example/").limits(limits);
    /// # let _ = (builder, Duration::ZERO);
    /// ```
    pub fn send_timeout(mut self, timeout: Duration) -> WebSocketLimits {
        self.send_timeout = timeout;
        self
    }

    /// The frame size limit set.
    ///
    /// ```
    /// use whatwg_fetch::websocket::{DEFAULT_MAX_FRAME_SIZE, WebSocketLimits};
    ///
    /// assert_eq!(WebSocketLimits::default().get_max_frame_size(), DEFAULT_MAX_FRAME_SIZE);
    /// ```
    pub fn get_max_frame_size(&self) -> usize {
        self.max_frame_size
    }

    /// The message size limit set.
    ///
    /// ```
    /// use whatwg_fetch::websocket::WebSocketLimits;
    ///
    /// assert_eq!(WebSocketLimits::default().max_message_size(1024).get_max_message_size(), 1024);
    /// ```
    pub fn get_max_message_size(&self) -> usize {
        self.max_message_size
    }

    /// The close timeout set.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::websocket::{DEFAULT_CLOSE_TIMEOUT, WebSocketLimits};
    ///
    /// assert_eq!(WebSocketLimits::default().get_close_timeout(), DEFAULT_CLOSE_TIMEOUT);
    /// assert_eq!(WebSocketLimits::default().close_timeout(Duration::from_secs(1)).get_close_timeout(), Duration::from_secs(1));
    /// ```
    pub fn get_close_timeout(&self) -> Duration {
        self.close_timeout
    }

    /// The send timeout set.
    ///
    /// ```
    /// use whatwg_fetch::websocket::{DEFAULT_SEND_TIMEOUT, WebSocketLimits};
    ///
    /// assert_eq!(WebSocketLimits::default().get_send_timeout(), DEFAULT_SEND_TIMEOUT);
    /// ```
    pub fn get_send_timeout(&self) -> Duration {
        self.send_timeout
    }
}

impl Default for WebSocketLimits {
    fn default() -> WebSocketLimits {
        WebSocketLimits {
            max_frame_size: DEFAULT_MAX_FRAME_SIZE,
            max_message_size: DEFAULT_MAX_MESSAGE_SIZE,
            max_fragments: DEFAULT_MAX_FRAGMENTS,
            max_control_frames_per_second: DEFAULT_MAX_CONTROL_FRAMES_PER_SECOND,
            close_timeout: DEFAULT_CLOSE_TIMEOUT,
            send_timeout: DEFAULT_SEND_TIMEOUT,
        }
    }
}

/// A Close frame's status code (RFC 6455 §7.4).
///
/// ```
/// use whatwg_fetch::websocket::CloseCode;
///
/// assert_eq!(CloseCode::NORMAL, CloseCode(1000));
/// assert!(CloseCode(4000).is_sendable());
/// assert!(!CloseCode::ABNORMAL.is_sendable()); // 1006 is only ever reported
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct CloseCode(pub u16);

impl CloseCode {
    /// 1000: the purpose of the connection is fulfilled.
    pub const NORMAL: CloseCode = CloseCode(1000);
    /// 1001: the endpoint is going away (a server shutting down, a page navigated away).
    pub const GOING_AWAY: CloseCode = CloseCode(1001);
    /// 1002: a protocol error.
    pub const PROTOCOL: CloseCode = CloseCode(1002);
    /// 1003: a type of data the endpoint cannot accept.
    pub const UNSUPPORTED: CloseCode = CloseCode(1003);
    /// 1005: reported when a Close carried no code; never sent.
    pub const NO_STATUS: CloseCode = CloseCode(1005);
    /// 1006: reported when the connection ended without a Close; never sent.
    pub const ABNORMAL: CloseCode = CloseCode(1006);
    /// 1007: a message's data is not consistent with its type (text that is not UTF-8).
    pub const INVALID_DATA: CloseCode = CloseCode(1007);
    /// 1008: a message that violates the endpoint's policy.
    pub const POLICY: CloseCode = CloseCode(1008);
    /// 1009: a message too big to process.
    pub const TOO_BIG: CloseCode = CloseCode(1009);
    /// 1010: the client needed an extension the server did not negotiate.
    pub const EXTENSION: CloseCode = CloseCode(1010);
    /// 1011: the server met an unexpected condition.
    pub const INTERNAL: CloseCode = CloseCode(1011);

    /// Whether an endpoint may send this code in a Close frame: 1000–1003, 1007–1014
    /// (RFC 6455 §7.4.1 and the IANA registry) and 3000–4999 (registered and private).
    ///
    /// ```
    /// use whatwg_fetch::websocket::CloseCode;
    ///
    /// assert!(CloseCode::NORMAL.is_sendable());
    /// assert!(CloseCode(4000).is_sendable());
    /// // 1006 only reports a connection that ended without a Close.
    /// assert!(!CloseCode::ABNORMAL.is_sendable());
    /// ```
    pub fn is_sendable(self) -> bool {
        matches!(self.0, 1000..=1003 | 1007..=1014 | 3000..=4999)
    }
}

impl From<u16> for CloseCode {
    fn from(code: u16) -> CloseCode {
        CloseCode(code)
    }
}

impl fmt::Display for CloseCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A Close frame's body: its code and reason.
///
/// ```
/// use whatwg_fetch::websocket::{CloseCode, CloseFrame};
///
/// let frame = CloseFrame { code: CloseCode::GOING_AWAY, reason: "restarting".into() };
/// assert_eq!(frame.to_string(), "1001 restarting");
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct CloseFrame {
    /// The status code.
    pub code: CloseCode,
    /// Why, in UTF-8: at most 123 bytes.
    pub reason: String,
}

impl fmt::Display for CloseFrame {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.reason.as_str() {
            "" => write!(f, "{}", self.code),
            reason => write!(f, "{} {reason}", self.code),
        }
    }
}

/// A WebSocket message, as received and as sent.
///
/// Strings and byte buffers convert into one, so [`WebSocket::send`] takes either:
///
/// ```
/// use whatwg_fetch::websocket::Message;
///
/// assert_eq!(Message::from("hi"), Message::Text("hi".into()));
/// assert_eq!(Message::from(vec![1u8, 2]), Message::Binary(vec![1u8, 2].into()));
/// assert_eq!(Message::from("hi").into_data(), &b"hi"[..]);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum Message {
    /// A text message (UTF-8, checked on receipt).
    Text(String),
    /// A binary message.
    Binary(Bytes),
    /// A Ping the server sent (answered with a Pong by the connection itself), or one to
    /// send (at most 125 bytes).
    Ping(Bytes),
    /// A Pong: the answer to our Ping, or one the server sent unasked; or one to send.
    Pong(Bytes),
    /// The server's Close (its code and reason, or `None` when it gave none), the last
    /// message a connection yields; or a Close to send, which starts the closing
    /// handshake.
    Close(Option<CloseFrame>),
}

impl Message {
    /// A text message.
    ///
    /// ```
    /// use whatwg_fetch::websocket::Message;
    ///
    /// let message = Message::text("hello");
    /// assert_eq!((message.is_text(), message.as_text()), (true, Some("hello")));
    /// ```
    pub fn text(text: impl Into<String>) -> Message {
        Message::Text(text.into())
    }

    /// A binary message.
    ///
    /// ```
    /// use whatwg_fetch::websocket::Message;
    ///
    /// let message = Message::binary(vec![0u8, 1, 2]);
    /// assert!(message.is_binary());
    /// assert_eq!(&message.into_data()[..], [0, 1, 2]);
    /// ```
    pub fn binary(data: impl Into<Bytes>) -> Message {
        Message::Binary(data.into())
    }

    /// The text of a text message.
    ///
    /// ```
    /// use whatwg_fetch::websocket::Message;
    ///
    /// assert_eq!(Message::text("hi").as_text(), Some("hi"));
    /// assert_eq!(Message::binary(&b"hi"[..]).as_text(), None);
    /// ```
    pub fn as_text(&self) -> Option<&str> {
        match self {
            Message::Text(text) => Some(text),
            _ => None,
        }
    }

    /// The message's payload as bytes: the text's UTF-8, the data, or a Close's reason.
    ///
    /// ```
    /// use whatwg_fetch::websocket::Message;
    ///
    /// assert_eq!(&Message::text("héllo").into_data()[..], "héllo".as_bytes());
    /// ```
    pub fn into_data(self) -> Bytes {
        match self {
            Message::Text(text) => Bytes::from(text),
            Message::Binary(data) | Message::Ping(data) | Message::Pong(data) => data,
            Message::Close(frame) => frame.map(|f| Bytes::from(f.reason)).unwrap_or_default(),
        }
    }

    /// Whether this is a text message.
    ///
    /// ```
    /// use whatwg_fetch::websocket::Message;
    ///
    /// assert!(Message::from("json").is_text());
    /// ```
    pub fn is_text(&self) -> bool {
        matches!(self, Message::Text(_))
    }

    /// Whether this is a binary message.
    ///
    /// ```
    /// use whatwg_fetch::websocket::Message;
    ///
    /// assert!(Message::from(bytes::Bytes::from_static(b"\x00")).is_binary());
    /// ```
    pub fn is_binary(&self) -> bool {
        matches!(self, Message::Binary(_))
    }

    /// Whether this is a Close.
    ///
    /// ```
    /// use whatwg_fetch::websocket::Message;
    ///
    /// assert!(Message::Close(None).is_close());
    /// assert!(!Message::text("bye").is_close());
    /// ```
    pub fn is_close(&self) -> bool {
        matches!(self, Message::Close(_))
    }
}

impl From<String> for Message {
    fn from(text: String) -> Message {
        Message::Text(text)
    }
}

impl From<&str> for Message {
    fn from(text: &str) -> Message {
        Message::Text(text.to_owned())
    }
}

impl From<Bytes> for Message {
    fn from(data: Bytes) -> Message {
        Message::Binary(data)
    }
}

impl From<Vec<u8>> for Message {
    fn from(data: Vec<u8>) -> Message {
        Message::Binary(data.into())
    }
}

impl From<&[u8]> for Message {
    fn from(data: &[u8]) -> Message {
        Message::Binary(Bytes::copy_from_slice(data))
    }
}

/// Why a WebSocket failed: the source of an [`ErrorKind::WebSocket`] error, found with
/// [`WebSocketError::of`].
///
/// ```no_run
/// # async fn run() {
/// use whatwg_fetch::Client;
/// use whatwg_fetch::websocket::WebSocketError;
///
/// match Client::new().websocket("wss://example.com/").connect().await {
///     Err(error) => match WebSocketError::of(&error) {
///         Some(WebSocketError::Status(404)) => println!("no WebSocket there"),
///         Some(other) => println!("the handshake failed: {other}"),
///         None => println!("the fetch failed: {error}"),
///     },
///     Ok(_socket) => {}
/// }
/// # }
/// ```
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum WebSocketError {
    /// The server answered the handshake with this status rather than `101`.
    #[error("the server answered {0}, not 101 Switching Protocols")]
    Status(u16),
    /// The `101` lacks `Upgrade: websocket`.
    #[error("the response's Upgrade is {0:?}, not websocket")]
    BadUpgrade(String),
    /// The `101`'s `Connection` lacks `upgrade`.
    #[error("the response's Connection is {0:?}, without upgrade")]
    BadConnection(String),
    /// The `101`'s `Sec-WebSocket-Accept` does not answer our key.
    #[error("the response's Sec-WebSocket-Accept {0:?} does not answer the key sent")]
    BadAccept(String),
    /// We offered subprotocols and the server chose none.
    #[error("the server chose none of the subprotocols offered")]
    ProtocolNotAcknowledged,
    /// The server chose a subprotocol we did not offer (or several).
    #[error("the server chose the subprotocol {0:?}, which was not offered")]
    ProtocolNotOffered(String),
    /// The server selected an extension we did not offer.
    #[error("the server selected the extension {0:?}, which was not offered")]
    ExtensionNotOffered(String),
    /// The server's `permessage-deflate` parameters break RFC 7692.
    #[error("the server's permessage-deflate is invalid: {0}")]
    BadExtension(String),
    /// The server broke RFC 6455 (the connection was failed with 1002).
    #[error("protocol error: {0}")]
    Protocol(String),
    /// A text message or a close reason that is not UTF-8 (failed with 1007).
    #[error("a text message or close reason is not UTF-8")]
    InvalidUtf8,
    /// A frame larger than [`WebSocketLimits::max_frame_size`] (failed with 1009).
    #[error("a frame is larger than max_frame_size ({limit} bytes)")]
    FrameTooLarge {
        /// The limit.
        limit: usize,
    },
    /// A message larger than [`WebSocketLimits::max_message_size`], in its frames or once
    /// inflated (failed with 1009).
    #[error("a message is larger than max_message_size ({limit} bytes)")]
    MessageTooLarge {
        /// The limit.
        limit: usize,
    },
    /// A message in more frames than [`WebSocketLimits::max_fragments`] (failed with 1009).
    #[error("a message has more than max_fragments ({limit}) frames")]
    TooManyFragments {
        /// The limit.
        limit: usize,
    },
    /// More control frames in a second than
    /// [`WebSocketLimits::max_control_frames_per_second`] (failed with 1008).
    #[error("more than max_control_frames_per_second ({limit}) control frames in a second")]
    ControlFlood {
        /// The limit.
        limit: u32,
    },
    /// A message could not be compressed.
    #[error("compressing a message failed: {0}")]
    Compression(String),
    /// The connection ended without a Close (code 1006).
    #[error("the connection ended without a Close frame (1006)")]
    ClosedAbnormally,
    /// The closing handshake did not end within [`WebSocketLimits::close_timeout`]: the
    /// server did not read our Close, or did not answer it; the connection was dropped.
    #[error("the closing handshake did not end within {0:?} (close_timeout)")]
    CloseTimeout(Duration),
    /// The server took no byte of ours for [`WebSocketLimits::send_timeout`] while a
    /// send waited: the connection was dropped.
    #[error("the server took no byte of ours for {0:?} (send_timeout)")]
    SendTimeout(Duration),
    /// A message sent after the closing handshake started, or after the connection ended.
    #[error("the connection is closing or closed: no message can be sent after a Close")]
    AlreadyClosing,
    /// A message that cannot be sent as it is (an oversized ping, a close code that
    /// cannot be sent).
    #[error("{0}")]
    InvalidMessage(String),
    /// The connection failed.
    #[error("the connection failed: {0}")]
    Io(#[source] io::Error),
}

impl WebSocketError {
    /// The [`WebSocketError`] behind `error`, if it is a WebSocket's.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("ws://{}/chat", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // An echo server.
    /// #     use futures_util::{SinkExt, StreamExt};
    /// #     let (tcp, _) = listener.accept().await.unwrap();
    /// #     let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
    /// #     while let Some(Ok(message)) = ws.next().await {
    /// #         if message.is_close() { break; }
    /// #         let _ = ws.send(message).await;
    /// #     }
    /// # });
    /// use whatwg_fetch::websocket::{CloseCode, WebSocketError, WebSocketLimits};
    ///
    /// // A client that takes messages of at most 4 bytes.
    /// let limits = WebSocketLimits::default().max_message_size(4);
    /// let mut socket = whatwg_fetch::Client::new().websocket(&url).limits(limits).connect().await?;
    /// socket.send("too long").await?;
    /// let error = socket.recv().await.expect("an item").unwrap_err();
    /// let cause = WebSocketError::of(&error).expect("a WebSocket's error");
    /// assert!(matches!(cause, WebSocketError::MessageTooLarge { .. }));
    /// assert_eq!(cause.close_code(), Some(CloseCode::TOO_BIG));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn of(error: &Error) -> Option<&WebSocketError> {
        let mut source = std::error::Error::source(error);
        while let Some(cause) = source {
            if let Some(websocket) = cause.downcast_ref::<WebSocketError>() {
                return Some(websocket);
            }
            source = cause.source();
        }
        None
    }

    /// The code the connection is failed with (RFC 6455 §7.4.1), for the errors that
    /// send a Close.
    ///
    /// ```
    /// use whatwg_fetch::websocket::{CloseCode, WebSocketError};
    ///
    /// assert_eq!(WebSocketError::InvalidUtf8.close_code(), Some(CloseCode::INVALID_DATA));
    /// assert_eq!(WebSocketError::Status(404).close_code(), None);
    /// ```
    pub fn close_code(&self) -> Option<CloseCode> {
        match self {
            WebSocketError::Protocol(_) => Some(CloseCode::PROTOCOL),
            WebSocketError::InvalidUtf8 => Some(CloseCode::INVALID_DATA),
            WebSocketError::FrameTooLarge { .. }
            | WebSocketError::MessageTooLarge { .. }
            | WebSocketError::TooManyFragments { .. } => Some(CloseCode::TOO_BIG),
            WebSocketError::ControlFlood { .. } => Some(CloseCode::POLICY),
            _ => None,
        }
    }
}

/// A WebSocket connection, opened by [`Client::websocket`] or [`WebSocket::connect`]:
/// a [`Stream`] of the server's messages and a [`Sink`] of ours.
///
/// Pings are answered as they arrive (only the latest, when several wait, as RFC 6455
/// §5.5.3 allows) and also yielded, for a caller that watches them. After the server's
/// Close, which is answered and yielded as [`Message::Close`], the stream ends. An error
/// (a limit passed, a protocol error, the connection lost) is yielded once, and the
/// stream ends after it. Every wait on the server but the one for its next message, and
/// every buffer, is bounded by [`WebSocketLimits`].
///
/// ```no_run
/// # async fn run() -> Result<(), whatwg_fetch::Error> {
/// use futures_util::{SinkExt, StreamExt};
/// use whatwg_fetch::websocket::{Message, WebSocket};
///
/// let socket = WebSocket::connect("wss://example.com/feed").await?;
/// let (mut writer, mut reader) = socket.split();
/// writer.send(Message::text("subscribe")).await?;
/// while let Some(message) = reader.next().await {
///     println!("{:?}", message?);
/// }
/// # Ok(())
/// # }
/// ```
pub struct WebSocket {
    connection: Connection<Upgraded>,
    url: Url,
    protocol: String,
    extensions: String,
    headers: Headers,
    version: http::Version,
}

impl WebSocket {
    /// Connects to `url` with the shared default client of [`fetch()`](crate::fetch):
    /// [`Client::websocket`]`(url).connect()`.
    ///
    /// # Errors
    /// As [`WebSocketBuilder::connect`], or the default client's build error.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), whatwg_fetch::Error> {
    /// let mut socket = whatwg_fetch::websocket::WebSocket::connect("wss://example.com/").await?;
    /// socket.send("hi").await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn connect(url: &str) -> Result<WebSocket> {
        crate::client::shared_client()?
            .websocket(url)
            .connect()
            .await
    }

    /// The URL, after the `http`→`ws` mapping: the `url` attribute.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let addr = listener.local_addr().unwrap();
    /// # tokio::spawn(async move {
    /// #     let (tcp, _) = listener.accept().await.unwrap();
    /// #     let _ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
    /// #     std::future::pending::<()>().await;
    /// # });
    /// // An `http:` URL is taken as `ws:`, as the constructor maps it.
    /// let socket = whatwg_fetch::Client::new().websocket(&format!("http://{addr}/live")).connect().await?;
    /// assert_eq!(socket.url().as_str(), format!("ws://{addr}/live"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn url(&self) -> &Url {
        &self.url
    }

    /// The subprotocol the server chose, or `""`: the `protocol` attribute.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("ws://{}/chat", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // An echo server.
    /// #     use futures_util::{SinkExt, StreamExt};
    /// #     let (tcp, _) = listener.accept().await.unwrap();
    /// #     let choose = |_: &tokio_tungstenite::tungstenite::handshake::server::Request,
    /// #                   mut response: tokio_tungstenite::tungstenite::handshake::server::Response| {
    /// #         response.headers_mut().insert("sec-websocket-protocol", "chat.v2".parse().unwrap());
    /// #         response.headers_mut().insert("x-server", "echo/1".parse().unwrap());
    /// #         Ok(response)
    /// #     };
    /// #     let mut ws = tokio_tungstenite::accept_hdr_async(tcp, choose).await.unwrap();
    /// #     while let Some(Ok(message)) = ws.next().await {
    /// #         if message.is_close() { break; }
    /// #         let _ = ws.send(message).await;
    /// #     }
    /// # });
    /// let socket = whatwg_fetch::Client::new()
    ///     .websocket(&url)
    ///     .protocols(["chat.v2", "chat.v1"])
    ///     .connect()
    ///     .await?;
    /// assert_eq!(socket.protocol(), "chat.v2");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn protocol(&self) -> &str {
        &self.protocol
    }

    /// The extensions in use, as the server accepted them (`"permessage-deflate"` and
    /// its parameters), or `""`: the `extensions` attribute.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("ws://{}/chat", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // An echo server.
    /// #     use futures_util::{SinkExt, StreamExt};
    /// #     let (tcp, _) = listener.accept().await.unwrap();
    /// #     let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
    /// #     while let Some(Ok(message)) = ws.next().await {
    /// #         if message.is_close() { break; }
    /// #         let _ = ws.send(message).await;
    /// #     }
    /// # });
    /// // This server negotiates no extension; one that takes `permessage-deflate` says so here.
    /// let socket = whatwg_fetch::Client::new().websocket(&url).connect().await?;
    /// assert_eq!(socket.extensions(), "");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn extensions(&self) -> &str {
        &self.extensions
    }

    /// The headers of the server's `101 Switching Protocols` (of its `200` over HTTP/2).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("ws://{}/chat", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // An echo server.
    /// #     use futures_util::{SinkExt, StreamExt};
    /// #     let (tcp, _) = listener.accept().await.unwrap();
    /// #     let choose = |_: &tokio_tungstenite::tungstenite::handshake::server::Request,
    /// #                   mut response: tokio_tungstenite::tungstenite::handshake::server::Response| {
    /// #         response.headers_mut().insert("sec-websocket-protocol", "chat.v2".parse().unwrap());
    /// #         response.headers_mut().insert("x-server", "echo/1".parse().unwrap());
    /// #         Ok(response)
    /// #     };
    /// #     let mut ws = tokio_tungstenite::accept_hdr_async(tcp, choose).await.unwrap();
    /// #     while let Some(Ok(message)) = ws.next().await {
    /// #         if message.is_close() { break; }
    /// #         let _ = ws.send(message).await;
    /// #     }
    /// # });
    /// let socket = whatwg_fetch::Client::new().websocket(&url).protocol("chat.v2").connect().await?;
    /// assert_eq!(socket.headers().get("x-server")?.as_deref(), Some("echo/1"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn headers(&self) -> &Headers {
        &self.headers
    }

    /// The HTTP version the WebSocket runs over: HTTP/1.1, on a connection of its own, or
    /// HTTP/2, on a stream of a connection it shares with the client's other requests to
    /// the origin (RFC 8441). It takes HTTP/2 when the client already holds an HTTP/2
    /// connection to the origin whose server allows it (`SETTINGS_ENABLE_CONNECT_PROTOCOL`),
    /// as Chrome and Firefox do; the messages and the closing handshake are the same
    /// either way.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), whatwg_fetch::Error> {
    /// use whatwg_fetch::{Client, Version};
    ///
    /// let client = Client::new();
    /// // An https: request first: the origin's server picks HTTP/2 by ALPN.
    /// client.get("https://example.com/").send().await?;
    /// let socket = client.websocket("wss://example.com/chat").connect().await?;
    /// if socket.version() == Version::HTTP_2 {
    ///     println!("on a stream of the connection the request above opened");
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn version(&self) -> http::Version {
        self.version
    }

    /// Bytes of frames queued and not yet written to the connection: what the
    /// `bufferedAmount` attribute tracks (here after framing and compression). At most
    /// 64 KiB and the message being sent, and one pong and one Close of the connection's:
    /// a send waits, [`WebSocketLimits::send_timeout`] at most, for the server to take the
    /// rest.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("ws://{}/chat", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // An echo server.
    /// #     use futures_util::{SinkExt, StreamExt};
    /// #     let (tcp, _) = listener.accept().await.unwrap();
    /// #     let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
    /// #     while let Some(Ok(message)) = ws.next().await {
    /// #         if message.is_close() { break; }
    /// #         let _ = ws.send(message).await;
    /// #     }
    /// # });
    /// let mut socket = whatwg_fetch::Client::new().websocket(&url).connect().await?;
    /// socket.send("hello").await?;
    /// // `send` returns once the message is written: nothing left queued.
    /// assert_eq!(socket.buffered_amount(), 0);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn buffered_amount(&self) -> usize {
        self.connection.buffered()
    }

    /// Sends `message` and writes it out: waits while the server does not take bytes,
    /// [`WebSocketLimits::send_timeout`] at most without progress (and, for a Close,
    /// [`WebSocketLimits::close_timeout`] at most in all).
    ///
    /// # Errors
    /// An [`ErrorKind::WebSocket`] error: the connection failed, the closing handshake
    /// has started or the connection ended ([`WebSocketError::AlreadyClosing`]), a ping
    /// or Close that cannot be sent as it is ([`WebSocketError::InvalidMessage`]), or a
    /// server that took nothing for the send timeout ([`WebSocketError::SendTimeout`]) or
    /// did not take a Close in the close timeout ([`WebSocketError::CloseTimeout`]).
    ///
    /// ```no_run
    /// # async fn run(mut socket: whatwg_fetch::websocket::WebSocket) -> Result<(), whatwg_fetch::Error> {
    /// socket.send("hello").await?;
    /// socket.send(vec![1u8, 2, 3]).await?;
    /// # Ok(())
    /// # }
    /// ```
    pub async fn send(&mut self, message: impl Into<Message>) -> Result<()> {
        let message = message.into();
        poll_fn(|cx| self.connection.poll_ready(cx))
            .await
            .map_err(|e| self.error(e))?;
        self.connection.send(message).map_err(|e| self.error(e))?;
        poll_fn(|cx| self.connection.poll_flush(cx))
            .await
            .map_err(|e| self.error(e))
    }

    /// The next message: [`StreamExt::next`](https://docs.rs/futures-util/latest/futures_util/stream/trait.StreamExt.html#method.next)
    /// without the import. `None` once the connection is closed.
    ///
    /// Waits for the server's next message with no time limit (an idle WebSocket is not a
    /// broken one: bound the wait with `tokio::time::timeout` if yours should not be), but
    /// for a Close of ours to be written (one answering the server's, or one failing the
    /// connection), at most [`WebSocketLimits::close_timeout`], before the server's Close
    /// or the failure is delivered.
    ///
    /// ```no_run
    /// # async fn run(mut socket: whatwg_fetch::websocket::WebSocket) -> Result<(), whatwg_fetch::Error> {
    /// use std::time::Duration;
    ///
    /// match tokio::time::timeout(Duration::from_secs(60), socket.recv()).await {
    ///     Ok(Some(message)) => println!("{:?}", message?),
    ///     Ok(None) => println!("closed"),
    ///     Err(_) => println!("a quiet minute"),
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub async fn recv(&mut self) -> Option<Result<Message>> {
        poll_fn(|cx| Pin::new(&mut *self).poll_next(cx)).await
    }

    /// The closing handshake: sends a Close with `code` and `reason`, then reads until the
    /// server's Close (messages that arrive before it are dropped), all within
    /// [`WebSocketLimits::close_timeout`] whatever the server does: one that does not read
    /// our Close is given up at the timeout as one that does not answer it.
    ///
    /// Gives how the connection closed, as a browser's `close` event reports it: the
    /// server's Close frame (`None` when it carried no code); or, when the connection
    /// ended without one, before `close` was called or during it (the server dropped
    /// the connection, or it had failed), a frame with [`CloseCode::ABNORMAL`] (1006) and
    /// no reason, a code no Close carries. A connection that had closed already gives its
    /// close again, and nothing is sent.
    ///
    /// # Errors
    /// An [`ErrorKind::WebSocket`] error: a code that cannot be sent or a reason over 123
    /// bytes ([`WebSocketError::InvalidMessage`], nothing sent), the closing handshake
    /// past the timeout ([`WebSocketError::CloseTimeout`]), or a protocol error or limit
    /// the server's frames broke meanwhile.
    ///
    /// ```no_run
    /// # async fn run(socket: whatwg_fetch::websocket::WebSocket) -> Result<(), whatwg_fetch::Error> {
    /// use whatwg_fetch::websocket::CloseCode;
    ///
    /// let answer = socket.close(CloseCode::NORMAL, "bye").await?;
    /// println!("the server closed with {answer:?}");
    /// # Ok(())
    /// # }
    /// ```
    pub async fn close(mut self, code: CloseCode, reason: &str) -> Result<Option<CloseFrame>> {
        let frame = CloseFrame {
            code,
            reason: reason.to_owned(),
        };
        // Queued, not waited for: reading writes it, within the close timeout.
        self.connection
            .start_close(Some(frame))
            .map_err(|e| self.error(e))?;
        let abnormal = || {
            Some(CloseFrame {
                code: CloseCode::ABNORMAL,
                reason: String::new(),
            })
        };
        loop {
            match poll_fn(|cx| self.connection.poll_next(cx)).await {
                Some(Ok(Message::Close(frame))) => return Ok(frame),
                Some(Ok(_)) => {}
                // The connection ended without the server's Close: that is how it closed.
                Some(Err(WebSocketError::ClosedAbnormally | WebSocketError::Io(_))) => {
                    return Ok(abnormal());
                }
                Some(Err(e)) => return Err(self.error(e)),
                None => {
                    return Ok(match self.connection.ended() {
                        Some(Ended::Clean(frame)) => frame.clone(),
                        _ => abnormal(),
                    });
                }
            }
        }
    }

    /// `error` as the crate's error, naming the URL.
    fn error(&self, error: WebSocketError) -> Error {
        connection_error(error, &self.url)
    }
}

/// The error of a connection failed after its handshake.
fn connection_error(error: WebSocketError, url: &Url) -> Error {
    Error::new(ErrorKind::WebSocket, format!("WebSocket failed: {error}"))
        .with_source(error)
        .with_url(url)
}

impl Stream for WebSocket {
    type Item = Result<Message>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Result<Message>>> {
        let this = &mut *self;
        this.connection
            .poll_next(cx)
            .map(|next| next.map(|item| item.map_err(|e| connection_error(e, &this.url))))
    }
}

impl Sink<Message> for WebSocket {
    type Error = Error;

    fn poll_ready(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        let this = &mut *self;
        this.connection
            .poll_ready(cx)
            .map_err(|e| connection_error(e, &this.url))
    }

    fn start_send(mut self: Pin<&mut Self>, message: Message) -> Result<()> {
        let this = &mut *self;
        this.connection
            .send(message)
            .map_err(|e| connection_error(e, &this.url))
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        let this = &mut *self;
        this.connection
            .poll_flush(cx)
            .map_err(|e| connection_error(e, &this.url))
    }

    /// Sends a Close with 1000 (unless one is out already) and writes it, within
    /// [`WebSocketLimits::close_timeout`] (else [`WebSocketError::CloseTimeout`], and the
    /// connection is dropped): the server's answering Close is read from the stream,
    /// which then ends.
    fn poll_close(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Result<()>> {
        let this = &mut *self;
        // A connection that failed or ended has nothing to close.
        if !this.connection.close_sent() && this.connection.is_over() {
            return Poll::Ready(Ok(()));
        }
        let close = CloseFrame {
            code: CloseCode::NORMAL,
            reason: String::new(),
        };
        this.connection
            .start_close(Some(close))
            .map_err(|e| connection_error(e, &this.url))?;
        this.connection
            .poll_flush(cx)
            .map_err(|e| connection_error(e, &this.url))
    }
}

/// A dropped connection says goodbye: a Close (1001, going away, when none was sent) and
/// the lingering close of RFC 6455 §7.1.1, in a task of the current tokio runtime, at
/// most a second (without a runtime, the connection is just closed).
impl Drop for WebSocket {
    fn drop(&mut self) {
        if let Ok(runtime) = tokio::runtime::Handle::try_current() {
            if let Some(linger) = self.connection.linger() {
                runtime.spawn(linger);
            }
        }
    }
}

impl fmt::Debug for WebSocket {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebSocket")
            .field("url", &self.url.as_str())
            .field("protocol", &self.protocol)
            .field("extensions", &self.extensions)
            .finish_non_exhaustive()
    }
}

/// The options of a WebSocket's opening handshake, from [`Client::websocket`]; it
/// connects with [`connect`](WebSocketBuilder::connect).
///
/// ```no_run
/// # async fn run() -> Result<(), whatwg_fetch::Error> {
/// use whatwg_fetch::Client;
/// use whatwg_fetch::websocket::WebSocketLimits;
///
/// let socket = Client::new()
///     .websocket("wss://example.com/graphql")
///     .protocol("graphql-transport-ws")
///     .header("Authorization", "Bearer token")
///     .limits(WebSocketLimits::default().max_message_size(1 << 20))
///     .connect()
///     .await?;
/// # let _ = socket;
/// # Ok(())
/// # }
/// ```
#[must_use = "a WebSocketBuilder does nothing until connect() is awaited"]
pub struct WebSocketBuilder {
    client: Client,
    url: String,
    protocols: Vec<String>,
    headers: Vec<(String, String)>,
    limits: WebSocketLimits,
    permessage_deflate: bool,
    /// The first invalid option, reported by `connect`.
    error: Option<Error>,
}

impl Client {
    /// A WebSocket to `url` (`ws:`, `wss:`, or `http:`/`https:` which become them),
    /// resolved against the client's base URL, opened over this client's fetch: its TLS
    /// options, proxies, cookie jar and HSTS list. Connect it with
    /// [`WebSocketBuilder::connect`].
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), whatwg_fetch::Error> {
    /// let client = whatwg_fetch::Client::new();
    /// let mut socket = client.websocket("wss://example.com/").connect().await?;
    /// socket.send("hello").await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn websocket(&self, url: &str) -> WebSocketBuilder {
        WebSocketBuilder {
            client: self.clone(),
            url: url.to_owned(),
            protocols: Vec::new(),
            headers: Vec::new(),
            limits: WebSocketLimits::default(),
            permessage_deflate: true,
            error: None,
        }
    }
}

impl WebSocketBuilder {
    /// Offers the subprotocols `protocols`, in order of preference: the constructor's
    /// `protocols` argument (`Sec-WebSocket-Protocol`). Replaces those offered before.
    ///
    /// ```
    /// let client = whatwg_fetch::Client::new();
    /// let url = client.websocket("wss://chat.example/").protocols(["chat.v2", "chat.v1"]).check()?;
    /// # let _ = url;
    /// // A subprotocol offered twice is the constructor's `SyntaxError`.
    /// assert!(client.websocket("wss://chat.example/").protocols(["v1", "v1"]).check().is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn protocols<I>(mut self, protocols: I) -> WebSocketBuilder
    where
        I: IntoIterator,
        I::Item: Into<String>,
    {
        self.protocols = protocols.into_iter().map(Into::into).collect();
        self
    }

    /// Offers the subprotocol `protocol` after those offered before.
    ///
    /// ```
    /// let client = whatwg_fetch::Client::new();
    /// let builder = client.websocket("wss://chat.example/").protocol("chat.v2").protocol("chat.v1");
    /// assert!(builder.check().is_ok());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn protocol(mut self, protocol: impl Into<String>) -> WebSocketBuilder {
        self.protocols.push(protocol.into());
        self
    }

    /// Adds a header to the handshake's request (an `Authorization`, an `Origin` of the
    /// caller's choosing). The handshake's own (`Upgrade`, `Connection` and the
    /// `Sec-WebSocket-*` headers) are refused: `connect` says so.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("ws://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     let (tcp, _) = listener.accept().await.unwrap();
    /// #     // Refuses a handshake without the right token.
    /// #     let check = |request: &tokio_tungstenite::tungstenite::handshake::server::Request,
    /// #                  response: tokio_tungstenite::tungstenite::handshake::server::Response| {
    /// #         match request.headers().get("authorization").map(|v| v.as_bytes()) {
    /// #             Some(b"Bearer t0k3n") => Ok(response),
    /// #             _ => Err(http::Response::builder().status(401).body(None).unwrap()),
    /// #         }
    /// #     };
    /// #     let _ws = tokio_tungstenite::accept_hdr_async(tcp, check).await;
    /// #     std::future::pending::<()>().await;
    /// # });
    /// let socket = whatwg_fetch::Client::new()
    ///     .websocket(&url)
    ///     .header("authorization", "Bearer t0k3n")
    ///     .connect()
    ///     .await?;
    /// # let _ = socket;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn header(mut self, name: &str, value: &str) -> WebSocketBuilder {
        if self.error.is_none() {
            match check_header(name, value) {
                Ok(()) => self.headers.push((name.to_owned(), value.to_owned())),
                Err(error) => self.error = Some(error),
            }
        }
        self
    }

    /// Limits on what the server may make the connection hold or do.
    ///
    /// ```
    /// use whatwg_fetch::websocket::WebSocketLimits;
    ///
    /// let limits = WebSocketLimits::default().max_message_size(1 << 20);
    /// let builder = whatwg_fetch::Client::new().websocket("wss://chat.example/").limits(limits);
    /// # let _ = builder;
    /// ```
    pub fn limits(mut self, limits: WebSocketLimits) -> WebSocketBuilder {
        self.limits = limits;
        self
    }

    /// Whether to offer `permessage-deflate` (offered by default, as browsers do).
    ///
    /// ```
    /// // Messages already compressed (images, archives) gain nothing from deflate.
    /// let builder = whatwg_fetch::Client::new().websocket("wss://media.example/").permessage_deflate(false);
    /// # let _ = builder;
    /// ```
    pub fn permessage_deflate(mut self, enabled: bool) -> WebSocketBuilder {
        self.permessage_deflate = enabled;
        self
    }

    /// The [`WebSocket(url, protocols)`](https://websockets.spec.whatwg.org/#dom-websocket-websocket)
    /// constructor's checks without connecting: the URL as the handshake will use it
    /// (`http`→`ws`, `https`→`wss`, resolved against the client's base URL), or the error
    /// [`connect`](WebSocketBuilder::connect) would fail with before any network I/O. For
    /// an API that, as the constructor does, throws at once and connects in the background.
    ///
    /// ```
    /// let client = whatwg_fetch::Client::new();
    /// let url = client.websocket("https://example.com/chat").check()?;
    /// assert_eq!(url.as_str(), "wss://example.com/chat");
    /// let twice = client.websocket("wss://example.com/").protocols(["a", "a"]).check();
    /// assert!(twice.is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// As the first two cases of [`connect`](WebSocketBuilder::connect)'s errors.
    pub fn check(&self) -> Result<Url> {
        if let Some(error) = &self.error {
            return Err(error.clone());
        }
        // The constructor's steps 1–7, then step 9 (step 8 turns a string into a list).
        let url = handshake::parse_websocket_url(self.client.environment(), &self.url)?;
        handshake::check_protocols(&self.protocols)?;
        Ok(url)
    }

    /// The opening handshake: the
    /// [`WebSocket(url, protocols)`](https://websockets.spec.whatwg.org/#dom-websocket-websocket)
    /// constructor's checks, then a fetch in `websocket` mode whose `101` (over HTTP/2, whose
    /// `200`) is validated.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("ws://{}/chat", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // An echo server.
    /// #     use futures_util::{SinkExt, StreamExt};
    /// #     let (tcp, _) = listener.accept().await.unwrap();
    /// #     let mut ws = tokio_tungstenite::accept_async(tcp).await.unwrap();
    /// #     while let Some(Ok(message)) = ws.next().await {
    /// #         if message.is_close() { break; }
    /// #         let _ = ws.send(message).await;
    /// #     }
    /// # });
    /// let mut socket = whatwg_fetch::Client::new().websocket(&url).connect().await?;
    /// socket.send("ping?").await?;
    /// let answer = socket.recv().await.expect("an answer")?;
    /// assert_eq!(answer.as_text(), Some("ping?"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// - a `SyntaxError` for a URL that does not parse, is not `ws`/`wss`/`http`/`https`
    ///   or has a fragment, or a subprotocol that is not a token or is given twice;
    /// - a `TypeError` for a header the builder refused;
    /// - the fetch's error (DNS, connect, TLS, a redirect, which the handshake refuses);
    /// - an [`ErrorKind::WebSocket`] error whose [`WebSocketError`] says what the server's
    ///   answer lacked (a status other than `101`, a bad `Sec-WebSocket-Accept`, a
    ///   subprotocol or extension not offered).
    pub async fn connect(self) -> Result<WebSocket> {
        let url = self.check()?;
        // Step 10. Establish a WebSocket connection given urlRecord, protocols, and client.
        let options = handshake::Options {
            permessage_deflate: self.permessage_deflate,
            headers: self.headers,
        };
        let established = handshake::establish_a_websocket_connection(
            &self.client,
            &url,
            &self.protocols,
            options,
        )
        .await?;
        let extensions = established
            .deflate
            .as_ref()
            .map(deflate::describe)
            .unwrap_or_default();
        let deflate = established.deflate.map(deflate::Deflate::new);
        Ok(WebSocket {
            connection: Connection::new(established.upgraded, Bytes::new(), self.limits, deflate),
            url,
            protocol: established.protocol,
            extensions,
            headers: established.headers,
            version: established.version,
        })
    }
}

impl fmt::Debug for WebSocketBuilder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("WebSocketBuilder")
            .field("url", &self.url)
            .field("protocols", &self.protocols)
            .field("limits", &self.limits)
            .field("permessage_deflate", &self.permessage_deflate)
            .finish_non_exhaustive()
    }
}

/// A caller's handshake header: a valid name and value, and not one the handshake sets.
fn check_header(name: &str, value: &str) -> Result<()> {
    const OWN: [&str; 7] = [
        "upgrade",
        "connection",
        "sec-websocket-key",
        "sec-websocket-version",
        "sec-websocket-protocol",
        "sec-websocket-extensions",
        "sec-websocket-accept",
    ];
    if http::HeaderName::from_bytes(name.as_bytes()).is_err() {
        return Err(Error::type_error(format!(
            "WebSocket: {name:?} is not a valid header name"
        )));
    }
    // By its bytes, as a header value of Fetch: UTF-8 past ASCII is kept as given, where
    // `HeaderValue`'s string conversions (http 1.6) refuse it.
    if http::HeaderValue::from_bytes(value.as_bytes()).is_err() {
        return Err(Error::type_error(format!(
            "WebSocket: the value of {name} is not a valid header value (no control \
             characters, newlines included)"
        )));
    }
    if OWN.iter().any(|own| own.eq_ignore_ascii_case(name)) {
        return Err(Error::type_error(format!(
            "WebSocket: the handshake sets {name} itself; offer subprotocols with \
             protocols() and turn compression off with permessage_deflate(false)"
        )));
    }
    Ok(())
}
