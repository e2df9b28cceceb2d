//! The `text/event-stream` format: the HTML Standard's
//! [parsing an event stream](https://html.spec.whatwg.org/multipage/server-sent-events.html#parsing-an-event-stream)
//! and [event stream interpretation](https://html.spec.whatwg.org/multipage/server-sent-events.html#event-stream-interpretation),
//! as a push parser ([`EventStreamParser`]) and as a [`Stream`](futures_core::Stream) of the events of a body the
//! caller already has ([`Response::event_stream`](crate::Response::event_stream)).
//!
//! [`EventSource`](crate::event_source::EventSource) runs this parser on its connection
//! and reconnects; this module knows no network. Every length a server controls is held
//! to an [`EventStreamLimits`]: the parser keeps at most one line and one event's data.
//!
//! ```
//! use whatwg_fetch::event_stream::EventStreamParser;
//!
//! let mut parser = EventStreamParser::new();
//! parser.feed(b"event: price\ndata: 42\n\n")?;
//! let event = parser.next_event().expect("one event");
//! assert_eq!((event.r#type(), event.data()), ("price", "42"));
//! # Ok::<(), whatwg_fetch::Error>(())
//! ```
// The summary line's links name their targets: rustdoc's module lists show it without
// resolving the names the module imports.
#![allow(rustdoc::redundant_explicit_links)]

use std::collections::VecDeque;
use std::fmt;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use bytes::{Buf, BytesMut};
use futures_core::Stream;

use crate::body::Body;
use crate::error::{Error, Result};

/// The default of [`EventStreamLimits::max_line_length`]: 8 MiB.
///
/// ```
/// use whatwg_fetch::event_stream::{DEFAULT_MAX_LINE_LENGTH, EventStreamLimits};
///
/// let limits = EventStreamLimits::default().max_line_length(DEFAULT_MAX_LINE_LENGTH / 8);
/// # let _ = limits;
/// ```
pub const DEFAULT_MAX_LINE_LENGTH: usize = 8 << 20;

/// The default of [`EventStreamLimits::max_event_size`]: 16 MiB.
///
/// ```
/// use whatwg_fetch::event_stream::{DEFAULT_MAX_EVENT_SIZE, EventStreamLimits};
///
/// let limits = EventStreamLimits::default().max_event_size(DEFAULT_MAX_EVENT_SIZE * 2);
/// # let _ = limits;
/// ```
pub const DEFAULT_MAX_EVENT_SIZE: usize = 16 << 20;

/// What a server may make an event stream's parser hold. Not in the standard, which sets
/// no limit: without one, a line that never ends, or an event of endless `data` lines,
/// grows until the process runs out of memory.
///
/// Past a limit the parser fails with a `TypeError` that names it; an
/// [`EventSource`](crate::event_source::EventSource) then fails the connection (it does
/// not reconnect to a server that would send the same again).
///
/// ```
/// use whatwg_fetch::event_stream::{EventStreamLimits, EventStreamParser};
///
/// let limits = EventStreamLimits::default().max_line_length(16);
/// let mut parser = EventStreamParser::with_limits(limits);
/// let error = parser.feed(b"data: a line longer than sixteen bytes\n").unwrap_err();
/// assert!(error.to_string().contains("max_line_length"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct EventStreamLimits {
    max_line_length: usize,
    max_event_size: usize,
}

impl EventStreamLimits {
    /// The longest line, in bytes, without its end of line. Default
    /// [`DEFAULT_MAX_LINE_LENGTH`] (8 MiB): room for a `data` line of a large JSON
    /// document, as streaming APIs send.
    ///
    /// ```
    /// use whatwg_fetch::event_stream::{EventStreamLimits, EventStreamParser};
    ///
    /// let mut parser = EventStreamParser::with_limits(EventStreamLimits::default().max_line_length(16));
    /// // A line longer than that, its end not in sight, fails the stream.
    /// assert!(parser.feed(b"data: this line is far too long").is_err());
    /// ```
    pub fn max_line_length(mut self, bytes: usize) -> EventStreamLimits {
        self.max_line_length = bytes;
        self
    }

    /// The most bytes of one event's data (the data buffer: its `data` lines with a line
    /// feed after each). Default [`DEFAULT_MAX_EVENT_SIZE`] (16 MiB).
    ///
    /// ```
    /// use whatwg_fetch::event_stream::{EventStreamLimits, EventStreamParser};
    ///
    /// let mut parser = EventStreamParser::with_limits(EventStreamLimits::default().max_event_size(8));
    /// // Two lines of four bytes, each with its line feed: ten bytes of data, over eight.
    /// let read = parser.feed(b"data: 1234\ndata: 5678\n\n").and_then(|()| parser.try_next_event());
    /// assert!(read.is_err());
    /// ```
    pub fn max_event_size(mut self, bytes: usize) -> EventStreamLimits {
        self.max_event_size = bytes;
        self
    }
}

impl Default for EventStreamLimits {
    fn default() -> EventStreamLimits {
        EventStreamLimits {
            max_line_length: DEFAULT_MAX_LINE_LENGTH,
            max_event_size: DEFAULT_MAX_EVENT_SIZE,
        }
    }
}

/// A [`MessageEvent`](https://html.spec.whatwg.org/multipage/comms.html#the-messageevent-interface)
/// of an event stream: what the HTML Standard's "dispatch the event" makes of the buffers.
///
/// ```
/// use whatwg_fetch::event_stream::EventStreamParser;
///
/// let mut parser = EventStreamParser::new();
/// parser.feed(b"event: update\nid: 7\ndata: {\"n\": 1}\n\n")?;
/// let event = parser.next_event().unwrap();
/// assert_eq!(event.r#type(), "update");
/// assert_eq!(event.data(), "{\"n\": 1}");
/// assert_eq!(event.last_event_id(), "7");
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MessageEvent {
    /// The event's type: `"message"`, or the stream's `event` field.
    r#type: String,
    /// The data buffer, less its last line feed.
    data: String,
    /// The serialization of the origin of the stream's final URL; empty for a stream
    /// whose origin is not known (a parser fed by hand).
    origin: String,
    /// The event source's last event ID string when the event was dispatched: shared
    /// with the parser and the events before, as a server may set an ID as long as a line
    /// and then send any number of events under it.
    last_event_id: Arc<str>,
}

impl MessageEvent {
    /// A message event of type `type` with `data`, as a test or a mock builds one.
    ///
    /// ```
    /// use whatwg_fetch::event_stream::MessageEvent;
    ///
    /// // As a test's mock stream gives one.
    /// let event = MessageEvent::new("update", r#"{"id": 3}"#, "3", "https://stream.example");
    /// assert_eq!((event.r#type(), event.last_event_id()), ("update", "3"));
    /// ```
    pub fn new(
        r#type: impl Into<String>,
        data: impl Into<String>,
        last_event_id: impl Into<String>,
        origin: impl Into<String>,
    ) -> MessageEvent {
        MessageEvent {
            r#type: r#type.into(),
            data: data.into(),
            origin: origin.into(),
            last_event_id: Arc::from(last_event_id.into()),
        }
    }

    /// The event's type: `"message"` unless the stream named another with an `event`
    /// field (the JavaScript event's `type`).
    ///
    /// ```
    /// use whatwg_fetch::event_stream::EventStreamParser;
    ///
    /// let mut parser = EventStreamParser::new();
    /// parser.feed(b"data: a\n\nevent: price\ndata: b\n\n")?;
    /// let types: Vec<String> = std::iter::from_fn(|| parser.next_event()).map(|event| event.r#type().to_owned()).collect();
    /// assert_eq!(types, ["message", "price"]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    #[doc(alias = "event")]
    #[doc(alias = "event_type")]
    pub fn r#type(&self) -> &str {
        &self.r#type
    }

    /// The event's data: its `data` lines joined with line feeds.
    ///
    /// ```
    /// use whatwg_fetch::event_stream::EventStreamParser;
    ///
    /// let mut parser = EventStreamParser::new();
    /// parser.feed(b"data: line one\ndata: line two\n\n")?;
    /// assert_eq!(parser.next_event().map(|event| event.data().to_owned()).as_deref(), Some("line one\nline two"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn data(&self) -> &str {
        &self.data
    }

    /// The event's data, taken.
    ///
    /// ```
    /// use whatwg_fetch::event_stream::MessageEvent;
    ///
    /// let data: String = MessageEvent::new("message", "payload", "", "").into_data();
    /// assert_eq!(data, "payload");
    /// ```
    pub fn into_data(self) -> String {
        self.data
    }

    /// The event's data parsed as JSON, as streaming APIs send it.
    ///
    /// # Errors
    /// A `SyntaxError` when the data is not JSON of type `T`.
    ///
    /// ```
    /// use whatwg_fetch::event_stream::MessageEvent;
    ///
    /// #[derive(serde::Deserialize)]
    /// struct Delta {
    ///     text: String,
    /// }
    /// let event = MessageEvent::new("message", r#"{"text": "hi"}"#, "", "");
    /// assert_eq!(event.json::<Delta>()?.text, "hi");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn json<T: serde::de::DeserializeOwned>(&self) -> Result<T> {
        serde_json::from_str(&self.data).map_err(|error| {
            Error::new(
                crate::ErrorKind::SyntaxError,
                format!(
                    "the data of a {:?} event is not the JSON expected",
                    self.r#type
                ),
            )
            .with_source(error)
        })
    }

    /// The serialization of the origin of the event stream's final URL (after
    /// redirects), as `https://example.com`; empty when the parser was fed by hand.
    ///
    /// ```
    /// use whatwg_fetch::event_stream::MessageEvent;
    ///
    /// let event = MessageEvent::new("message", "x", "", "https://stream.example");
    /// assert_eq!(event.origin(), "https://stream.example");
    /// ```
    pub fn origin(&self) -> &str {
        &self.origin
    }

    /// The last event ID the stream set with an `id` field, at this event; empty if none.
    ///
    /// ```
    /// use whatwg_fetch::event_stream::EventStreamParser;
    ///
    /// let mut parser = EventStreamParser::new();
    /// parser.feed(b"id: 1\ndata: a\n\ndata: b\n\nid\ndata: c\n\n")?;
    /// let ids: Vec<String> = std::iter::from_fn(|| parser.next_event()).map(|event| event.last_event_id().to_owned()).collect();
    /// // An ID stays until another `id` field, an empty one clearing it.
    /// assert_eq!(ids, ["1", "1", ""]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    #[doc(alias = "id")]
    pub fn last_event_id(&self) -> &str {
        &self.last_event_id
    }

    /// The last event ID as the stream holds it, shared with the events before and after
    /// it under the same `id` field: two events whose IDs are [`Arc::ptr_eq`] have the
    /// same ID without comparing it, so a caller that hands events on (to another thread,
    /// or a script) can send an ID once rather than copy it with each event, which for an
    /// ID as long as a line and many short events under it is the most of the work.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::event_stream::EventStreamParser;
    ///
    /// let mut parser = EventStreamParser::new();
    /// parser.feed(b"id: 7\ndata: a\n\ndata: b\n\nid: 8\ndata: c\n\n")?;
    /// let [a, b, c] = [(); 3].map(|()| parser.next_event().unwrap());
    /// assert!(Arc::ptr_eq(&a.shared_last_event_id(), &b.shared_last_event_id()));
    /// assert!(!Arc::ptr_eq(&b.shared_last_event_id(), &c.shared_last_event_id()));
    /// assert_eq!(&*c.shared_last_event_id(), "8");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    #[doc(alias = "id")]
    pub fn shared_last_event_id(&self) -> Arc<str> {
        Arc::clone(&self.last_event_id)
    }
}

/// The parser of an event stream: bytes in, [`MessageEvent`]s out, exactly as the HTML
/// Standard's "interpret the event stream" (UTF-8 with one leading BOM ignored; CRLF, LF
/// and CR ends of line; the `data`, `event`, `id` and `retry` fields; comments; an event
/// dispatched at a blank line, an incomplete one discarded at the end).
///
/// It parses lazily: [`feed`](Self::feed) keeps the bytes and
/// [`next_event`](Self::next_event) reads lines until the next event, so it never holds
/// more than the bytes fed and not yet read, one line and one event.
///
/// ```
/// use whatwg_fetch::event_stream::EventStreamParser;
///
/// let mut parser = EventStreamParser::new();
/// // Bytes arrive in any pieces; an event is complete at its blank line.
/// parser.feed(b"data: first\r\ndata: sec")?;
/// assert!(parser.next_event().is_none());
/// parser.feed(b"ond\r\n\r\n: a comment\nretry: 1500\n")?;
/// assert_eq!(parser.next_event().unwrap().data(), "first\nsecond");
/// assert!(parser.next_event().is_none());
/// assert_eq!(parser.reconnection_time(), Some(std::time::Duration::from_millis(1500)));
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub struct EventStreamParser {
    limits: EventStreamLimits,
    /// Bytes fed and not yet read as lines.
    pending: BytesMut,
    /// How far into `pending` a line end was looked for already (a long line is scanned
    /// once, not again at every feed).
    scanned: usize,
    /// The last line ended with a CR: a LF right after it belongs to that end of line.
    after_cr: bool,
    /// Whether the start of the stream was read, with its byte order mark if any.
    bom_done: bool,
    /// The standard's data buffer.
    data: String,
    /// The standard's event type buffer.
    event_type: String,
    /// The standard's last event ID buffer. Shared, not copied, by the last event ID
    /// string and the events: an ID may be as long as a line, and each blank line and
    /// each event would otherwise copy it.
    last_event_id_buffer: Arc<str>,
    /// The event source's last event ID string: the buffer at the last dispatch.
    last_event_id: Arc<str>,
    /// The last valid `retry` field: the event stream's reconnection time.
    reconnection_time: Option<Duration>,
    /// Events made at a blank line and not yet taken (at most one: parsing stops there).
    ready: VecDeque<MessageEvent>,
    /// The origin the events carry.
    origin: String,
    /// Whether the parser failed: it reads nothing more.
    failed: bool,
}

impl EventStreamParser {
    /// A parser with the default [`EventStreamLimits`].
    ///
    /// ```
    /// use whatwg_fetch::event_stream::EventStreamParser;
    ///
    /// let mut parser = EventStreamParser::new();
    /// parser.feed(b"data: hello\n\n")?;
    /// assert_eq!(parser.next_event().map(|event| event.into_data()).as_deref(), Some("hello"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn new() -> EventStreamParser {
        EventStreamParser::with_limits(EventStreamLimits::default())
    }

    /// A parser held to `limits`.
    ///
    /// ```
    /// use whatwg_fetch::event_stream::{EventStreamLimits, EventStreamParser};
    ///
    /// // A feed of small events: a line over 64 KiB is not one of them.
    /// let parser = EventStreamParser::with_limits(EventStreamLimits::default().max_line_length(64 * 1024));
    /// # let _ = parser;
    /// ```
    pub fn with_limits(limits: EventStreamLimits) -> EventStreamParser {
        EventStreamParser {
            limits,
            pending: BytesMut::new(),
            scanned: 0,
            after_cr: false,
            bom_done: false,
            data: String::new(),
            event_type: String::new(),
            last_event_id_buffer: Arc::from(""),
            last_event_id: Arc::from(""),
            reconnection_time: None,
            ready: VecDeque::new(),
            origin: String::new(),
            failed: false,
        }
    }

    /// The origin the events carry (the serialization of the stream's final URL's origin).
    ///
    /// ```
    /// use whatwg_fetch::event_stream::EventStreamParser;
    ///
    /// let mut parser = EventStreamParser::new();
    /// parser.set_origin("https://stream.example");
    /// parser.feed(b"data: x\n\n")?;
    /// assert_eq!(parser.next_event().map(|event| event.origin().to_owned()).as_deref(), Some("https://stream.example"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn set_origin(&mut self, origin: impl Into<String>) {
        self.origin = origin.into();
    }

    /// The start of a new stream of the same event source: the bytes, the data and event
    /// type buffers and the byte order mark start again; the last event ID and the
    /// reconnection time stay.
    ///
    /// DEVIATION: the standard associates a last event ID buffer with each stream, empty at
    /// its start, so an event without an `id` field on a reconnected stream would reset
    /// the event source's last event ID. Browsers start the buffer at the event source's
    /// last event ID string instead, and WPT (`format-field-id-2.any.js`) expects it.
    ///
    /// ```
    /// use whatwg_fetch::event_stream::EventStreamParser;
    ///
    /// let mut parser = EventStreamParser::new();
    /// parser.feed(b"id: 41\ndata: first\n\ndata: cut sh")?;
    /// assert!(parser.next_event().is_some());
    /// // The connection dropped: the next stream starts clean, the last event ID stays.
    /// parser.restart();
    /// parser.feed(b"data: second\n\n")?;
    /// let event = parser.next_event().expect("an event");
    /// assert_eq!((event.data(), event.last_event_id()), ("second", "41"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn restart(&mut self) {
        self.pending.clear();
        self.scanned = 0;
        self.after_cr = false;
        self.bom_done = false;
        self.data.clear();
        self.event_type.clear();
        self.last_event_id_buffer = Arc::clone(&self.last_event_id);
        self.ready.clear();
        self.failed = false;
    }

    /// The event source's last event ID string: the `id` of the last event dispatched
    /// (empty if none, or if the stream cleared it).
    ///
    /// ```
    /// use whatwg_fetch::event_stream::EventStreamParser;
    ///
    /// let mut parser = EventStreamParser::new();
    /// parser.feed(b"id: 7\ndata: x\n\n")?;
    /// parser.next_event();
    /// // What `Last-Event-ID` carries when the event source reconnects.
    /// assert_eq!(parser.last_event_id(), "7");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn last_event_id(&self) -> &str {
        &self.last_event_id
    }

    /// Sets the last event ID, as an event source resumed from a stored one starts
    /// (`Last-Event-ID` on its first request).
    ///
    /// ```
    /// use whatwg_fetch::event_stream::EventStreamParser;
    ///
    /// let mut parser = EventStreamParser::new();
    /// // Resuming from an ID stored by an earlier run.
    /// parser.set_last_event_id("1024");
    /// parser.feed(b"data: next\n\n")?;
    /// assert_eq!(parser.next_event().map(|event| event.last_event_id().to_owned()).as_deref(), Some("1024"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn set_last_event_id(&mut self, id: impl Into<String>) {
        self.last_event_id = Arc::from(id.into());
        self.last_event_id_buffer = Arc::clone(&self.last_event_id);
    }

    /// The event stream's reconnection time, from the last valid `retry` field; `None`
    /// when the stream sent none.
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::event_stream::EventStreamParser;
    ///
    /// let mut parser = EventStreamParser::new();
    /// assert_eq!(parser.reconnection_time(), None);
    /// parser.feed(b"retry: 2500\n\n")?;
    /// parser.next_event();
    /// assert_eq!(parser.reconnection_time(), Some(Duration::from_millis(2500)));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn reconnection_time(&self) -> Option<Duration> {
        self.reconnection_time
    }

    /// Takes `bytes` of the stream. Nothing is parsed until
    /// [`next_event`](Self::next_event) asks.
    ///
    /// ```
    /// use whatwg_fetch::event_stream::EventStreamParser;
    ///
    /// let mut parser = EventStreamParser::new();
    /// // Bytes come in any pieces: an event is complete at its blank line.
    /// parser.feed(b"event: tick\nda")?;
    /// assert!(parser.next_event().is_none());
    /// parser.feed(b"ta: 1\n\n")?;
    /// assert_eq!(parser.next_event().map(|event| event.r#type().to_owned()).as_deref(), Some("tick"));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// A `TypeError` naming the limit when the line being read is longer than
    /// [`max_line_length`](EventStreamLimits::max_line_length) with its end not in sight,
    /// or after an earlier error.
    pub fn feed(&mut self, bytes: &[u8]) -> Result<()> {
        self.check_failed()?;
        self.pending.extend_from_slice(bytes);
        if self.ready.is_empty() {
            // Parse until the next event, so that a line that never ends is caught here
            // rather than kept.
            self.parse()?;
        }
        Ok(())
    }

    /// The next complete event, if the bytes fed hold one. Each call parses on from where
    /// the last one stopped.
    ///
    /// ```
    /// use whatwg_fetch::event_stream::EventStreamParser;
    ///
    /// let mut parser = EventStreamParser::new();
    /// parser.feed(b": a comment\ndata: a\n\ndata: b\n\n")?;
    /// let mut data = Vec::new();
    /// while let Some(event) = parser.next_event() {
    ///     data.push(event.into_data());
    /// }
    /// assert_eq!(data, ["a", "b"]);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn next_event(&mut self) -> Option<MessageEvent> {
        if self.ready.is_empty() && !self.failed {
            // An error is kept in `failed` and given by the next `feed` or `try_next_event`.
            let _ = self.parse();
        }
        self.ready.pop_front()
    }

    /// [`next_event`](Self::next_event) that reports a limit passed.
    ///
    /// ```
    /// use whatwg_fetch::event_stream::{EventStreamLimits, EventStreamParser};
    ///
    /// let mut parser = EventStreamParser::with_limits(EventStreamLimits::default().max_event_size(4));
    /// parser.feed(b"data: 12\n\ndata: 123456\n\n")?;
    /// assert_eq!(parser.try_next_event()?.map(|event| event.into_data()).as_deref(), Some("12"));
    /// // The second event's data is over the limit: an error, where `next_event` says `None`.
    /// assert!(parser.try_next_event().is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    ///
    /// # Errors
    /// As [`feed`](Self::feed), and when an event's data passes
    /// [`max_event_size`](EventStreamLimits::max_event_size).
    pub fn try_next_event(&mut self) -> Result<Option<MessageEvent>> {
        if self.ready.is_empty() {
            self.check_failed()?;
            self.parse()?;
        }
        Ok(self.ready.pop_front())
    }

    /// The end of the stream: "any pending data must be discarded" (an incomplete event,
    /// and a last line without an end of line, are not dispatched).
    ///
    /// ```
    /// use whatwg_fetch::event_stream::EventStreamParser;
    ///
    /// let mut parser = EventStreamParser::new();
    /// parser.feed(b"data: complete\n\ndata: never finished\n")?;
    /// parser.finish();
    /// assert_eq!(parser.next_event().map(|event| event.into_data()).as_deref(), Some("complete"));
    /// // An event without its blank line is discarded at the end of the stream.
    /// assert!(parser.next_event().is_none());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn finish(&mut self) {
        self.pending.clear();
        self.scanned = 0;
        self.data.clear();
        self.event_type.clear();
    }

    fn check_failed(&self) -> Result<()> {
        if self.failed {
            return Err(Error::type_error(
                "the event stream failed earlier: its parser reads nothing more",
            ));
        }
        Ok(())
    }

    fn fail(&mut self, message: String) -> Error {
        self.failed = true;
        self.pending.clear();
        self.data.clear();
        Error::type_error(message)
    }

    /// Reads lines from `pending` until an event is ready or no whole line is left.
    fn parse(&mut self) -> Result<()> {
        // "One leading U+FEFF BYTE ORDER MARK character must be ignored if any are
        // present": the UTF-8 decode algorithm's BOM sniffing.
        if !self.bom_done {
            const BOM: &[u8] = b"\xEF\xBB\xBF";
            let n = self.pending.len().min(BOM.len());
            if self.pending[..n] != BOM[..n] {
                self.bom_done = true;
            } else if n == BOM.len() {
                self.pending.advance(BOM.len());
                self.bom_done = true;
            } else {
                // A prefix of the BOM: wait for the rest.
                return Ok(());
            }
        }
        while self.ready.is_empty() {
            if self.after_cr && !self.pending.is_empty() {
                // The LF of a CRLF whose CR ended the last line.
                if self.pending[0] == b'\n' {
                    self.pending.advance(1);
                }
                self.after_cr = false;
            }
            let Some(offset) = memchr::memchr2(b'\r', b'\n', &self.pending[self.scanned..]) else {
                self.scanned = self.pending.len();
                if self.pending.len() > self.limits.max_line_length {
                    return Err(self.fail(format!(
                        "an event stream line is longer than {} bytes, \
                         EventStreamLimits::max_line_length",
                        self.limits.max_line_length
                    )));
                }
                return Ok(());
            };
            let end = self.scanned + offset;
            if end > self.limits.max_line_length {
                return Err(self.fail(format!(
                    "an event stream line of {end} bytes is longer than {} bytes, \
                     EventStreamLimits::max_line_length",
                    self.limits.max_line_length
                )));
            }
            let line = self.pending.split_to(end + 1).freeze();
            self.after_cr = line[end] == b'\r';
            self.scanned = 0;
            self.process_line(&line[..end])?;
        }
        Ok(())
    }

    /// One line, as "Lines must be processed, in the order they are received, as follows".
    fn process_line(&mut self, line: &[u8]) -> Result<()> {
        // "Streams must be decoded using the UTF-8 decode algorithm": line ends are ASCII,
        // so decoding each line alone gives the same characters as decoding the stream.
        // If the line is empty (a blank line): Dispatch the event, as defined below.
        if line.is_empty() {
            self.dispatch_the_event();
            return Ok(());
        }
        // If the line starts with a U+003A COLON character (:): Ignore the line.
        if line[0] == b':' {
            return Ok(());
        }
        let (field, value) = match memchr::memchr(b':', line) {
            // If the line contains a U+003A COLON character (:): Collect the characters on
            // the line before the first U+003A COLON character (:), and let field be that
            // string. Collect the characters on the line after the first U+003A COLON
            // character (:), and let value be that string. If value starts with a U+0020
            // SPACE character, remove it from value.
            Some(colon) => {
                let value = &line[colon + 1..];
                let value = value.strip_prefix(b" ").unwrap_or(value);
                (&line[..colon], value)
            }
            // Otherwise, the string is not empty but does not contain a U+003A COLON
            // character (:): Process the field using the whole line as the field name, and
            // the empty string as the field value.
            None => (line, &b""[..]),
        };
        self.process_the_field(field, value)
    }

    /// The steps to process the field: "Field names must be compared literally, with no
    /// case folding performed."
    fn process_the_field(&mut self, field: &[u8], value: &[u8]) -> Result<()> {
        match field {
            // Set the event type buffer to field value.
            b"event" => {
                self.event_type.clear();
                self.event_type.push_str(&String::from_utf8_lossy(value));
            }
            // Append the field value to the data buffer, then append a single U+000A LINE
            // FEED (LF) character to the data buffer.
            b"data" => {
                let value = String::from_utf8_lossy(value);
                let size = self
                    .data
                    .len()
                    .saturating_add(value.len())
                    .saturating_add(1);
                if size > self.limits.max_event_size {
                    return Err(self.fail(format!(
                        "an event's data is larger than {} bytes, \
                         EventStreamLimits::max_event_size",
                        self.limits.max_event_size
                    )));
                }
                self.data.push_str(&value);
                self.data.push('\n');
            }
            // If the field value does not contain U+0000 NULL, then set the last event ID
            // buffer to the field value. Otherwise, ignore the field.
            b"id" if !value.contains(&0) => {
                self.last_event_id_buffer = Arc::from(String::from_utf8_lossy(value));
            }
            // If the field value consists of only ASCII digits, then interpret the field
            // value as an integer in base ten, and set the event stream's reconnection time
            // to that integer. Otherwise, ignore the field.
            b"retry" if !value.is_empty() && value.iter().all(u8::is_ascii_digit) => {
                // Digits past u64's range: the longest time there is.
                let ms = std::str::from_utf8(value)
                    .ok()
                    .and_then(|digits| digits.parse::<u64>().ok())
                    .unwrap_or(u64::MAX);
                self.reconnection_time = Some(Duration::from_millis(ms));
            }
            // Otherwise: The field is ignored.
            _ => {}
        }
        Ok(())
    }

    /// [Dispatch the event](https://html.spec.whatwg.org/multipage/server-sent-events.html#dispatchMessage),
    /// the web browsers' steps, less the task: the event is made ready for the caller.
    fn dispatch_the_event(&mut self) {
        // Step 1. Set the last event ID string of the event source to the value of the
        // last event ID buffer. The buffer does not get reset, so the last event ID string
        // of the event source remains set to this value until the next time it is set by
        // the server.
        self.last_event_id = Arc::clone(&self.last_event_id_buffer);
        // Step 2. If the data buffer is an empty string, set the data buffer and the event
        // type buffer to the empty string and return.
        if self.data.is_empty() {
            self.event_type.clear();
            return;
        }
        // Step 3. If the data buffer's last character is a U+000A LINE FEED (LF)
        // character, then remove the last character from the data buffer.
        if self.data.ends_with('\n') {
            self.data.pop();
        }
        // Step 4. Let event be the result of creating an event using MessageEvent, in the
        // relevant realm of the EventSource object.
        // Step 5. Initialize event's type attribute to "message", its data attribute to
        // data, its origin attribute to the serialization of the origin of the event
        // stream's final URL (i.e., the URL after redirects), and its lastEventId attribute
        // to the last event ID string of the event source.
        // Step 6. If the event type buffer has a value other than the empty string, change
        // the type of the newly created event to equal the value of the event type buffer.
        // Step 7. Set the data buffer and the event type buffer to the empty string.
        let r#type = if self.event_type.is_empty() {
            String::from("message")
        } else {
            std::mem::take(&mut self.event_type)
        };
        let event = MessageEvent {
            r#type,
            data: std::mem::take(&mut self.data),
            origin: self.origin.clone(),
            last_event_id: Arc::clone(&self.last_event_id),
        };
        // Step 8. Queue a task which, if the readyState attribute is set to a value other
        // than CLOSED, dispatches the newly created event at the EventSource object: the
        // caller takes it with `next_event`, and an `EventSource` gives it unless closed.
        self.ready.push_back(event);
    }
}

impl Default for EventStreamParser {
    fn default() -> EventStreamParser {
        EventStreamParser::new()
    }
}

impl fmt::Debug for EventStreamParser {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventStreamParser")
            .field("limits", &self.limits)
            .field("pending", &self.pending.len())
            .field("last_event_id", &self.last_event_id)
            .field("reconnection_time", &self.reconnection_time)
            .finish_non_exhaustive()
    }
}

/// The events of one response's body, as a [`Stream`]: from
/// [`Response::event_stream`](crate::Response::event_stream). It ends when the body does
/// (a normal end, not an error; an incomplete last event is discarded) and gives the
/// body's error, or a limit passed, as its last item. It does not reconnect: that is
/// [`EventSource`](crate::event_source::EventSource)'s job.
///
/// ```
/// # tokio_test::block_on(async {
/// use futures_util::StreamExt;
/// use whatwg_fetch::{Response, ResponseInit};
///
/// let body = "data: one\n\ndata: two\n\n";
/// let mut events = Response::new(Some(body.into()), ResponseInit::default())?.event_stream();
/// let mut data = Vec::new();
/// while let Some(event) = events.next().await {
///     data.push(event?.into_data());
/// }
/// assert_eq!(data, ["one", "two"]);
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
pub struct EventStream {
    body: Option<Body>,
    parser: EventStreamParser,
}

impl EventStream {
    /// The events of `body`, whose events carry `origin`, held to `limits`.
    pub(crate) fn new(body: Option<Body>, origin: String, limits: EventStreamLimits) -> Self {
        let mut parser = EventStreamParser::with_limits(limits);
        parser.set_origin(origin);
        EventStream { body, parser }
    }

    /// The stream held to `limits` in place of the defaults; call it before the first read.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::event_stream::EventStreamLimits;
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let response = Response::new(Some("data: 0123456789\n\n".into()), ResponseInit::default())?;
    /// let mut events = response.event_stream().limits(EventStreamLimits::default().max_event_size(4));
    /// assert!(events.next().await.expect("an item").is_err());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn limits(mut self, limits: EventStreamLimits) -> EventStream {
        self.parser.limits = limits;
        self
    }

    /// The stream's reconnection time, from its last `retry` field so far.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let body = "retry: 3000\nid: 9\ndata: hello\n\n";
    /// let response = Response::new(Some(body.into()), ResponseInit::default())?;
    /// let mut events = response.event_stream();
    /// events.next().await;
    /// assert_eq!(events.reconnection_time(), Some(std::time::Duration::from_secs(3)));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn reconnection_time(&self) -> Option<Duration> {
        self.parser.reconnection_time()
    }

    /// The last event ID so far.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::{Response, ResponseInit};
    ///
    /// let body = "retry: 3000\nid: 9\ndata: hello\n\n";
    /// let response = Response::new(Some(body.into()), ResponseInit::default())?;
    /// let mut events = response.event_stream();
    /// events.next().await;
    /// assert_eq!(events.last_event_id(), "9");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn last_event_id(&self) -> &str {
        self.parser.last_event_id()
    }
}

impl fmt::Debug for EventStream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventStream")
            .field("parser", &self.parser)
            .field("ended", &self.body.is_none())
            .finish()
    }
}

impl Stream for EventStream {
    type Item = Result<MessageEvent>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            match this.parser.try_next_event() {
                Ok(Some(event)) => return Poll::Ready(Some(Ok(event))),
                Ok(None) => {}
                Err(error) => {
                    this.body = None;
                    return Poll::Ready(Some(Err(error)));
                }
            }
            let Some(body) = this.body.as_mut() else {
                return Poll::Ready(None);
            };
            match Pin::new(body).poll_next(cx) {
                Poll::Ready(Some(Ok(chunk))) => {
                    if let Err(error) = this.parser.feed(&chunk) {
                        this.body = None;
                        return Poll::Ready(Some(Err(error)));
                    }
                }
                Poll::Ready(Some(Err(error))) => {
                    this.body = None;
                    this.parser.finish();
                    return Poll::Ready(Some(Err(error)));
                }
                Poll::Ready(None) => {
                    this.body = None;
                    this.parser.finish();
                    return Poll::Ready(None);
                }
                Poll::Pending => return Poll::Pending,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use bytes::Bytes;

    fn chunks(input: &[u8], size: usize) -> Vec<Bytes> {
        input
            .chunks(size.max(1))
            .map(Bytes::copy_from_slice)
            .collect()
    }

    /// Every event of `input` fed in pieces of `size` bytes, as (type, data, id).
    fn parse_in(input: &[u8], size: usize) -> Vec<(String, String, String)> {
        let mut parser = EventStreamParser::new();
        let mut out = Vec::new();
        for chunk in chunks(input, size) {
            parser.feed(&chunk).unwrap();
            while let Some(e) = parser.next_event() {
                out.push((e.r#type, e.data, e.last_event_id.to_string()));
            }
        }
        parser.finish();
        out
    }

    /// The same events however the bytes are cut.
    fn parse(input: &[u8]) -> Vec<(String, String, String)> {
        let whole = parse_in(input, input.len());
        for size in 1..8 {
            assert_eq!(parse_in(input, size), whole, "cut in pieces of {size}");
        }
        whole
    }

    fn ev(t: &str, d: &str, id: &str) -> (String, String, String) {
        (t.into(), d.into(), id.into())
    }

    #[test]
    fn the_three_ends_of_line_and_a_crlf_cut_between_chunks() {
        assert_eq!(
            parse(b"data: a\r\ndata: b\rdata: c\n\r\ndata:d\r\r"),
            [ev("message", "a\nb\nc", ""), ev("message", "d", "")]
        );
    }

    #[test]
    fn one_leading_bom_is_ignored_and_a_second_is_part_of_the_field_name() {
        assert_eq!(
            parse(b"\xEF\xBB\xBFdata: 1\n\n\xEF\xBB\xBFdata: 2\n\ndata: 3\n\n"),
            [ev("message", "1", ""), ev("message", "3", "")]
        );
        assert_eq!(
            parse(b"\xEF\xBB\xBF\xEF\xBB\xBFdata: 1\n\ndata: 2\n\n"),
            [ev("message", "2", "")]
        );
    }

    #[test]
    fn fields_comments_and_a_leading_space() {
        assert_eq!(
            parse(b": comment\ndata\ndata:  two spaces\nData: no\nevent: e\n\n"),
            [ev("e", "\n two spaces", "")]
        );
        // A field name without a colon and an unknown field are ignored.
        assert_eq!(
            parse(b"foo: bar\nevent\ndata: x\n\n"),
            [ev("message", "x", "")]
        );
    }

    #[test]
    fn an_event_without_data_sets_the_id_but_is_not_dispatched() {
        let mut parser = EventStreamParser::new();
        parser.feed(b"id: 3\nevent: x\n\ndata: y\n\n").unwrap();
        let e = parser.next_event().unwrap();
        assert_eq!(
            (e.r#type(), e.data(), e.last_event_id()),
            ("message", "y", "3")
        );
    }

    #[test]
    fn an_id_with_nul_is_ignored_and_an_empty_id_resets() {
        assert_eq!(
            parse(b"id: 1\ndata: a\n\nid: x\0y\ndata: b\n\nid\ndata: c\n\n"),
            [
                ev("message", "a", "1"),
                ev("message", "b", "1"),
                ev("message", "c", "")
            ]
        );
    }

    #[test]
    fn retry_takes_only_ascii_digits() {
        let mut parser = EventStreamParser::new();
        parser
            .feed(b"retry: 1000\nretry: 12x\nretry:\nretry: -1\nretry: 99999999999999999999999\n")
            .unwrap();
        assert!(parser.next_event().is_none());
        assert_eq!(
            parser.reconnection_time(),
            Some(Duration::from_millis(u64::MAX))
        );
        parser.feed(b"retry: 03000\n").unwrap();
        parser.next_event();
        assert_eq!(
            parser.reconnection_time(),
            Some(Duration::from_millis(3000))
        );
    }

    #[test]
    fn invalid_utf8_is_replaced_and_a_split_character_is_whole() {
        let mut input = "data: \u{2026}".as_bytes().to_vec();
        input.extend_from_slice(b"\xFF\n\n");
        assert_eq!(parse(&input), [ev("message", "\u{2026}\u{FFFD}", "")]);
    }

    #[test]
    fn an_incomplete_event_and_line_at_the_end_are_discarded() {
        assert_eq!(parse(b"data: a\n\ndata: b\n"), [ev("message", "a", "")]);
        assert_eq!(parse(b"data: a\n\ndata: b"), [ev("message", "a", "")]);
    }

    #[test]
    fn a_line_past_its_limit_fails_before_its_end_arrives() {
        let limits = EventStreamLimits::default().max_line_length(10);
        let mut parser = EventStreamParser::with_limits(limits);
        parser.feed(b"data: 0123").unwrap();
        let error = parser.feed(b"45678").unwrap_err();
        assert!(error.to_string().contains("max_line_length"), "{error}");
        // Nothing more is read, and what was held is let go.
        assert!(parser.feed(b"\n\n").is_err());
        assert_eq!(parser.pending.len(), 0);
        // A line of exactly the limit passes.
        let mut parser = EventStreamParser::with_limits(limits);
        parser.feed(b"data: 0123\n\n").unwrap();
        assert_eq!(parser.next_event().unwrap().data(), "0123");
    }

    #[test]
    fn an_event_past_its_size_fails() {
        let limits = EventStreamLimits::default().max_event_size(8);
        let mut parser = EventStreamParser::with_limits(limits);
        parser.feed(b"data: 123\ndata: 4567\n").unwrap_err();
        let mut parser = EventStreamParser::with_limits(limits);
        parser.feed(b"data: 123\ndata: 456\n\n").unwrap();
        assert_eq!(parser.try_next_event().unwrap().unwrap().data(), "123\n456");
    }

    #[test]
    fn parsing_stops_at_each_event_so_a_chunk_of_many_holds_one() {
        let input = b"data: x\n\n".repeat(1000);
        let mut parser = EventStreamParser::new();
        parser.feed(&input).unwrap();
        assert_eq!(parser.ready.len(), 1);
        let mut n = 0;
        while parser.next_event().is_some() {
            n += 1;
            assert!(parser.ready.len() <= 1);
        }
        assert_eq!(n, 1000);
    }

    #[test]
    fn restart_keeps_the_last_event_id() {
        let mut parser = EventStreamParser::new();
        parser
            .feed(b"id: 5\ndata: a\n\ndata: partial\nevent: t\n")
            .unwrap();
        parser.next_event();
        parser.restart();
        parser.feed(b"data: b\n\n").unwrap();
        let e = parser.next_event().unwrap();
        assert_eq!(
            (e.r#type(), e.data(), e.last_event_id()),
            ("message", "b", "5")
        );
    }

    #[test]
    fn a_long_id_is_shared_by_the_events_under_it_not_copied() {
        // An ID as long as a line, then blank lines and events under it: each dispatch and
        // each event shares the one ID, where copying it would be a line's length of work
        // and memory per blank line.
        let mut parser = EventStreamParser::new();
        let id = "i".repeat(1 << 20);
        parser.feed(format!("id: {id}\n").as_bytes()).unwrap();
        parser.feed(&[b'\n'; 4096]).unwrap();
        let mut events = Vec::new();
        parser.feed(b"data: a\n\ndata: b\n\n").unwrap();
        while let Some(event) = parser.next_event() {
            events.push(event);
        }
        assert_eq!(events.len(), 2);
        assert_eq!(events[0].last_event_id(), id);
        assert!(Arc::ptr_eq(
            &events[0].last_event_id,
            &events[1].last_event_id
        ));
        assert!(Arc::ptr_eq(&events[1].last_event_id, &parser.last_event_id));
        // A restart keeps it, shared too.
        parser.restart();
        parser.feed(b"data: c\n\n").unwrap();
        let event = parser.next_event().unwrap();
        assert!(Arc::ptr_eq(&event.last_event_id, &events[0].last_event_id));
        // And a new `id` field replaces it.
        parser.feed(b"id: 2\ndata: d\n\n").unwrap();
        assert_eq!(parser.next_event().unwrap().last_event_id(), "2");
    }

    #[tokio::test]
    async fn a_response_as_an_event_stream_ends_without_an_error() {
        use futures_util::StreamExt;
        let response = crate::Response::new(
            Some("data: 1\n\nevent: end\ndata: 2\n\ndata: lost".into()),
            crate::ResponseInit::default(),
        )
        .unwrap();
        let events: Vec<_> = response.event_stream().collect().await;
        let events: Vec<_> = events.into_iter().map(|e| e.unwrap()).collect();
        assert_eq!(events.len(), 2);
        assert_eq!((events[1].r#type(), events[1].data()), ("end", "2"));
    }
}
