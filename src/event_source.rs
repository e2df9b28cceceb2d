//! [`EventSource`](https://html.spec.whatwg.org/multipage/server-sent-events.html#the-eventsource-interface):
//! server-sent events (HTML Standard §9.2) as a [`Stream`](futures_core::Stream) of [`Event`]s, over the
//! client's fetch, with the standard's reconnection built in.
//!
//! The connection is a fetch of the client's, so it shares its TLS, proxies, cookies and
//! pool; the event stream is parsed by [`crate::event_stream`]. Reconnecting follows the
//! standard's "reestablish the connection" (the `retry` delay, `Last-Event-ID`), with the
//! extra wait its step 3 allows ("optionally, wait some more"): never less than a second
//! between connections, and an exponential back-off while connections keep failing or
//! ending soon after they start, so that a server cannot make a client a flood of
//! requests (see [`EventSource`]'s "Reconnection").
//!
//! ```no_run
//! # async fn run() -> Result<(), whatwg_fetch::Error> {
//! use futures_util::StreamExt;
//! use whatwg_fetch::Client;
//! use whatwg_fetch::event_source::Event;
//!
//! let client = Client::new();
//! let mut events = client.event_source("https://example.com/updates", Default::default())?;
//! while let Some(event) = events.next().await {
//!     match event? {
//!         Event::Open => println!("connected"),
//!         Event::Message(message) => println!("{}: {}", message.r#type(), message.data()),
//!         Event::Reconnecting { after, cause } => println!("reconnecting in {after:?}: {cause:?}"),
//!         _ => {}
//!     }
//! }
//! // The stream ends after an error (the connection failed: a status other than 200, a
//! // type other than text/event-stream, a limit passed) or `close()`.
//! # Ok(())
//! # }
//! ```
// The summary line's links name their targets: rustdoc's module lists show it without
// resolving the names the module imports.
#![allow(rustdoc::redundant_explicit_links)]

use std::fmt;
use std::future::Future;
use std::pin::Pin;
use std::task::{Context, Poll};
use std::time::Duration;

use futures_core::Stream;

use crate::abort::{AbortSignal, Aborted};
use crate::body::Body;
use crate::client::Client;
use crate::error::{Error, NetworkError, Result};
use crate::event_stream::{EventStreamLimits, EventStreamParser, MessageEvent};
use crate::request::{
    Request, RequestCache, RequestCredentials, RequestInfo, RequestInit, RequestMode,
};
use crate::request_builder::RequestBuilder;
use crate::response::Response;

/// The reconnection time before a server sets one with `retry`: 3 seconds, as Chrome and
/// Safari (Firefox waits 5).
///
/// ```
/// use whatwg_fetch::Client;
/// use whatwg_fetch::event_source::DEFAULT_RECONNECTION_TIME;
///
/// let source = Client::new()
///     .event_source("https://stream.example/events", Default::default())?
///     .reconnection_time(DEFAULT_RECONNECTION_TIME * 2);
/// # let _ = source;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub const DEFAULT_RECONNECTION_TIME: Duration = Duration::from_secs(3);

/// The longest the back-off makes a reconnection wait: 60 seconds (a `retry` longer than
/// that is honoured as it is).
///
/// ```
/// use whatwg_fetch::Client;
/// use whatwg_fetch::event_source::DEFAULT_MAX_RECONNECTION_BACKOFF;
///
/// let source = Client::new()
///     .event_source("https://stream.example/events", Default::default())?
///     .max_reconnection_backoff(DEFAULT_MAX_RECONNECTION_BACKOFF * 5);
/// # let _ = source;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub const DEFAULT_MAX_RECONNECTION_BACKOFF: Duration = Duration::from_secs(60);

/// The shortest wait before any reconnection, whatever `retry` said: 1 second. A server
/// that sends `retry: 0` and an event, then closes, is otherwise asked again hundreds of
/// times a second. Firefox keeps a floor of 500 ms (`MIN_RECONNECTION_TIME_VALUE` in
/// `dom/base/EventSource.cpp`); Chrome and Safari keep `retry` as given.
///
/// ```
/// use whatwg_fetch::Client;
/// use whatwg_fetch::event_source::DEFAULT_MIN_RECONNECTION_TIME;
///
/// let source = Client::new()
///     .event_source("https://stream.example/events", Default::default())?
///     .min_reconnection_time(DEFAULT_MIN_RECONNECTION_TIME / 2);
/// # let _ = source;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub const DEFAULT_MIN_RECONNECTION_TIME: Duration = Duration::from_secs(1);

/// How long a connection must stay up for the back-off to start again from the
/// reconnection time: 10 seconds. A connection that ends sooner (or fails) counts as a
/// failed attempt, however many events it delivered.
///
/// ```
/// use whatwg_fetch::Client;
/// use whatwg_fetch::event_source::DEFAULT_STABLE_CONNECTION_TIME;
///
/// let source = Client::new()
///     .event_source("https://stream.example/events", Default::default())?
///     .stable_connection_time(DEFAULT_STABLE_CONNECTION_TIME * 3);
/// # let _ = source;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub const DEFAULT_STABLE_CONNECTION_TIME: Duration = Duration::from_secs(10);

/// The [`EventSourceInit`](https://html.spec.whatwg.org/multipage/server-sent-events.html#eventsourceinit)
/// dictionary.
///
/// ```
/// use whatwg_fetch::EventSourceInit;
///
/// let init = EventSourceInit { with_credentials: true, ..Default::default() };
/// # let _ = init;
/// ```
#[derive(Clone, Debug, Default)]
pub struct EventSourceInit {
    /// `withCredentials`: send cookies and HTTP authentication to another origin too (the
    /// request's credentials mode `include` rather than `same-origin`).
    pub with_credentials: bool,
    /// Not in the standard: a signal whose abort fails the connection (the stream gives
    /// the abort reason, then ends), from wherever the signal is held.
    pub signal: Option<AbortSignal>,
}

/// The [`readyState`](https://html.spec.whatwg.org/multipage/server-sent-events.html#dom-eventsource-readystate)
/// of an [`EventSource`].
///
/// ```
/// use whatwg_fetch::Client;
/// use whatwg_fetch::event_source::ReadyState;
///
/// let source = Client::new().event_source("https://stream.example/events", Default::default())?;
/// // Not connected until it is polled.
/// assert_eq!(source.ready_state(), ReadyState::Connecting);
/// assert_eq!(ReadyState::Closed as u16, 2);
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u16)]
pub enum ReadyState {
    /// `CONNECTING` (0): the connection has not yet been established, or it was closed
    /// and is being reestablished.
    Connecting = 0,
    /// `OPEN` (1): the connection is open and dispatching events.
    Open = 1,
    /// `CLOSED` (2): the connection is not open and will not be reestablished.
    Closed = 2,
}

/// What an [`EventSource`] gives: the JavaScript events of the standard, in order.
///
/// ```
/// use whatwg_fetch::event_source::Event;
/// use whatwg_fetch::event_stream::MessageEvent;
///
/// fn describe(event: &Event) -> String {
///     match event {
///         Event::Open => "open".to_owned(),
///         Event::Message(message) => format!("{}: {}", message.r#type(), message.data()),
///         Event::Reconnecting { after, .. } => format!("reconnecting in {after:?}"),
///         _ => "other".to_owned(),
///     }
/// }
/// assert_eq!(describe(&Event::Message(MessageEvent::new("tick", "1", "", ""))), "tick: 1");
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Event {
    /// The `open` event: the connection was announced (a `200` of `text/event-stream`);
    /// the ready state is [`ReadyState::Open`].
    Open,
    /// A `message` event, or one the stream named with an `event` field.
    Message(MessageEvent),
    /// The `error` event of "reestablish the connection": the stream ended (`cause` is
    /// `None`) or the network failed (`cause` says how), and the event source connects
    /// again `after` this delay, with `Last-Event-ID`. The ready state is
    /// [`ReadyState::Connecting`].
    Reconnecting {
        /// The wait before the next attempt: the reconnection time (at least
        /// [`EventSource::min_reconnection_time`]), or more while attempts keep failing
        /// (see [`EventSource`]'s "Reconnection").
        after: Duration,
        /// The network error, if it was one.
        cause: Option<Error>,
    },
}

/// An [`EventSource`](https://html.spec.whatwg.org/multipage/server-sent-events.html#the-eventsource-interface):
/// a connection to a server that sends events, reestablished when it drops, as a
/// [`Stream`] of [`Event`]s.
///
/// Made by [`Client::event_source`] (the standard's constructor: a `GET` with
/// `Accept: text/event-stream`, CORS, no cache), [`EventSource::new`] on the shared
/// default client, or [`RequestBuilder::event_source`] for a request of the caller's
/// own (a header, a token, a `POST` with a body). The first poll starts the fetch.
///
/// Its items: `Ok(`[`Event`]`)` while it runs; `Err` when the connection fails for good
/// (the standard's "fail the connection": a status other than `200`, a `Content-Type`
/// other than `text/event-stream`, a URL that cannot be fetched, an aborted signal, a
/// limit passed), after which it ends. Reconnections are [`Event::Reconnecting`], not
/// errors, and a server that ends the stream normally is reconnected to, as browsers do;
/// [`close`](Self::close) or dropping it ends it. The client's total
/// [`timeout`](crate::ClientBuilder::timeout) does not apply (a stream is meant to last);
/// its [`read_timeout`](crate::ClientBuilder::read_timeout) does, and a connection that
/// times out is reestablished.
///
/// # Reconnection
///
/// The standard waits the reconnection time (the server's `retry`, else
/// [`reconnection_time`](Self::reconnection_time), 3 s) and allows a user agent to "wait
/// some more", in particular with an exponential back-off after failed attempts. This one
/// does, so that no server can turn its clients into a flood, whether it fails them, or
/// answers `retry: 0` and an event and closes at once, again and again (`retry` kept as
/// given, each client would reconnect some 600 times a second):
///
/// - every wait is at least [`min_reconnection_time`](Self::min_reconnection_time)
///   (default 1 s), whatever `retry` says;
/// - a connection that fails, or ends before it has stayed up for
///   [`stable_connection_time`](Self::stable_connection_time) (default 10 s), is a failed
///   attempt, however many events it delivered; from the second such attempt in a row,
///   each wait doubles, up to [`max_reconnection_backoff`](Self::max_reconnection_backoff)
///   (default 60 s), with up to a quarter more at random so that many clients do not come
///   back at once;
/// - only a connection that stays up that long starts the back-off again (or a new event
///   source: the caller's restart).
///
/// A server that closes at once is thus asked again after 1 s, 2 s, 4 s … then about once
/// a minute: 4 connections in its first 10 seconds, where `retry: 0` kept as given makes
/// about 6,800. A `retry` longer than the back-off's cap is honoured as it is.
///
/// ```
/// # tokio_test::block_on(async {
/// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
/// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
/// # let url = format!("http://{}/events", listener.local_addr().unwrap());
/// # tokio::spawn(async move {
/// #     let (mut stream, _) = listener.accept().await.unwrap();
/// #     let _ = stream.read(&mut [0; 1024]).await;
/// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\nid: 1\ndata: hello\n\n").await;
/// #     std::future::pending::<()>().await;
/// # });
/// use futures_util::StreamExt;
/// use whatwg_fetch::event_source::{Event, ReadyState};
/// use whatwg_fetch::Client;
///
/// let mut source = Client::new().event_source(&url, Default::default())?;
/// assert_eq!(source.ready_state(), ReadyState::Connecting);
/// assert!(matches!(source.next().await, Some(Ok(Event::Open))));
/// let Some(Ok(Event::Message(message))) = source.next().await else { panic!() };
/// assert_eq!((message.data(), message.last_event_id()), ("hello", "1"));
/// source.close();
/// assert!(source.next().await.is_none());
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
pub struct EventSource {
    client: Client,
    /// The event source's request, which every connection fetches a copy of.
    request: Request,
    /// The event source's url, serialized.
    url: String,
    with_credentials: bool,
    ready_state: ReadyState,
    /// The event stream's parser, kept across connections for the last event ID string
    /// and the reconnection time.
    parser: EventStreamParser,
    /// The reconnection time until a `retry` field sets one.
    default_reconnection_time: Duration,
    /// The least wait before a reconnection, whatever `retry` says.
    min_reconnection_time: Duration,
    /// The most the back-off makes a reconnection wait.
    max_backoff: Duration,
    /// How long a connection must stay up to end the back-off.
    stable_connection_time: Duration,
    /// Attempts in a row that failed, or whose connection ended before it had stayed up
    /// for `stable_connection_time`.
    failed_attempts: u32,
    /// When the current connection was announced, if it was.
    connected_at: Option<tokio::time::Instant>,
    state: State,
}

/// Where an [`EventSource`] is.
enum State {
    /// Not started: the first poll fetches.
    Start,
    /// A fetch under way.
    Fetching(Pin<Box<dyn Future<Output = Result<Response>> + Send + Sync>>),
    /// The body of an announced connection, being interpreted.
    Streaming(Body),
    /// Waiting to reestablish the connection; the request's signal ends the wait.
    Waiting(Pin<Box<tokio::time::Sleep>>, Option<Aborted>),
    /// Failed or closed: the stream has ended.
    Closed,
}

impl Client {
    /// The [`new EventSource(url, eventSourceInit)`](https://html.spec.whatwg.org/multipage/server-sent-events.html#dom-eventsource)
    /// constructor: an event source for `url`, resolved against the client's base URL,
    /// over this client. It connects at its first poll.
    ///
    /// # Errors
    /// A `SyntaxError` when `url` does not parse.
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), whatwg_fetch::Error> {
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::{Client, EventSourceInit};
    /// use whatwg_fetch::event_source::Event;
    ///
    /// let client = Client::new();
    /// let init = EventSourceInit { with_credentials: true, ..Default::default() };
    /// let mut source = client.event_source("https://example.com/stream", init)?;
    /// while let Some(event) = source.next().await {
    ///     if let Event::Message(message) = event? {
    ///         println!("{}", message.data());
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn event_source(&self, url: &str, init: EventSourceInit) -> Result<EventSource> {
        EventSource::construct(self, url, init)
    }
}

impl RequestBuilder {
    /// The request as an [`EventSource`]'s: fetched, and fetched again when the
    /// connection drops (with `Last-Event-ID`), its events parsed, as the standard's event
    /// source does for its `GET`. For what the constructor cannot say: a header (a
    /// token), a method and body (a `POST` that answers with events, as streaming APIs
    /// do). `Accept: text/event-stream` is added when the request has no `Accept`, and
    /// the cache mode is `no-store` unless set. The builder's
    /// [`timeout`](RequestBuilder::timeout) does not apply.
    ///
    /// # Errors
    /// The builder's error, or a `TypeError` for a body that cannot be sent twice (a
    /// stream).
    ///
    /// ```no_run
    /// # async fn run() -> Result<(), whatwg_fetch::Error> {
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::event_source::Event;
    ///
    /// let client = Client::new();
    /// let mut source = client
    ///     .post("https://api.example.com/v1/chat")
    ///     .bearer_auth("token")
    ///     .json(&serde_json::json!({ "stream": true }))
    ///     .event_source()?;
    /// while let Some(event) = source.next().await {
    ///     if let Event::Message(message) = event? {
    ///         if message.data() == "[DONE]" {
    ///             break;
    ///         }
    ///         print!("{}", message.data());
    ///     }
    /// }
    /// # Ok(())
    /// # }
    /// ```
    pub fn event_source(self) -> Result<EventSource> {
        let (client, mut request, _timeout) = self.into_request()?;
        if request.body().is_some_and(|body| body.source().is_none()) {
            return Err(Error::type_error(
                "an event source's request is fetched again at each reconnection, \
                 so its body cannot be a stream: give it bytes, a string or JSON",
            ));
        }
        if !request.headers().header_list().contains(b"Accept") {
            request
                .headers_mut()
                .header_list_mut()
                .set(b"Accept", b"text/event-stream");
        }
        let url = request.url().to_owned();
        let with_credentials = request.credentials() == RequestCredentials::Include;
        Ok(EventSource::from_request(
            client,
            request,
            url,
            with_credentials,
        ))
    }
}

impl EventSource {
    /// [`Client::event_source`] on the shared default client of [`fetch()`](crate::fetch),
    /// with the default [`EventSourceInit`].
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/events", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // One event whose data is the `Last-Event-ID` the request sent, then the stream stays open.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let mut head = vec![0; 4096];
    /// #     let n = stream.read(&mut head).await.unwrap();
    /// #     let head = String::from_utf8_lossy(&head[..n]).into_owned();
    /// #     let last = head.lines().find_map(|l| l.strip_prefix("last-event-id: ")).unwrap_or("none").to_owned();
    /// #     let event = format!("id: 8\ndata: after {last}\n\n");
    /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n{event}");
    /// #     let _ = stream.write_all(reply.as_bytes()).await;
    /// #     std::future::pending::<()>().await;
    /// # });
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::event_source::{Event, EventSource};
    ///
    /// let mut source = EventSource::new(&url)?;
    /// while let Some(event) = source.next().await {
    ///     if let Event::Message(message) = event? {
    ///         assert_eq!(message.data(), "after none");
    ///         break;
    ///     }
    /// }
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// As [`Client::event_source`], or the default client's build error.
    pub fn new(url: &str) -> Result<EventSource> {
        EventSource::construct(
            crate::client::shared_client()?,
            url,
            EventSourceInit::default(),
        )
    }

    /// The [`EventSource(url, eventSourceInitDict)`](https://html.spec.whatwg.org/multipage/server-sent-events.html#dom-eventsource)
    /// constructor steps.
    fn construct(client: &Client, url: &str, init: EventSourceInit) -> Result<EventSource> {
        // Step 1. Let ev be a new EventSource object.
        // Step 2. Let settings be ev's relevant settings object: the client's environment.
        let settings = client.environment();
        // Step 3. Let urlRecord be the result of encoding-parsing a URL given url,
        // relative to settings.
        // Step 4. If urlRecord is failure, then throw a "SyntaxError" DOMException.
        let url_record = settings.parse_url(url).map_err(|_| {
            Error::new(
                crate::ErrorKind::SyntaxError,
                format!("EventSource: {url:?} is not a valid URL"),
            )
        })?;
        // Step 5. Set ev's url to urlRecord.
        // Step 6. Let corsAttributeState be Anonymous.
        // Step 7. If the value of eventSourceInitDict's withCredentials member is true,
        // then set corsAttributeState to Use Credentials and set ev's withCredentials
        // attribute to true.
        let with_credentials = init.with_credentials;
        // Step 8. Let request be the result of creating a potential-CORS request given
        // urlRecord, the empty string, and corsAttributeState: mode "cors", credentials
        // mode "same-origin" for Anonymous and "include" for Use Credentials.
        // Step 9. Set request's client to settings.
        // Step 10. User agents may set (`Accept`, `text/event-stream`) in request's header
        // list.
        // Step 11. Set request's cache mode to "no-store".
        // Step 12. Set request's initiator type to "other" (timing only; ours records none).
        let mut request = Request::new_in(
            settings,
            RequestInfo::Parsed(url_record.clone()),
            RequestInit {
                headers: Some([("Accept", "text/event-stream")].into()),
                mode: Some(RequestMode::Cors),
                credentials: Some(if with_credentials {
                    RequestCredentials::Include
                } else {
                    RequestCredentials::SameOrigin
                }),
                cache: Some(RequestCache::NoStore),
                signal: init.signal,
                ..RequestInit::default()
            },
        )?;
        // A potential-CORS request is no `Request` object's: its unsafe-request flag is
        // unset, so its headers (`Last-Event-ID` when it reconnects) never cause a
        // CORS-preflight request, as in every browser.
        request.unsafe_request = false;
        // Step 13. Set ev's request to request.
        // Steps 14–15 (the fetch) run at the first poll: a Rust stream does nothing until
        // it is polled.
        // Step 16. Return ev.
        Ok(EventSource::from_request(
            client.clone(),
            request,
            url_record.into(),
            with_credentials,
        ))
    }

    fn from_request(
        client: Client,
        request: Request,
        url: String,
        with_credentials: bool,
    ) -> EventSource {
        EventSource {
            client,
            request,
            url,
            with_credentials,
            ready_state: ReadyState::Connecting,
            parser: EventStreamParser::new(),
            default_reconnection_time: DEFAULT_RECONNECTION_TIME,
            min_reconnection_time: DEFAULT_MIN_RECONNECTION_TIME,
            max_backoff: DEFAULT_MAX_RECONNECTION_BACKOFF,
            stable_connection_time: DEFAULT_STABLE_CONNECTION_TIME,
            failed_attempts: 0,
            connected_at: None,
            state: State::Start,
        }
    }

    /// The reconnection time until the server sets one with a `retry` field. Default
    /// [`DEFAULT_RECONNECTION_TIME`] (3 s).
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::Client;
    ///
    /// // Until the server says otherwise with `retry`, wait 10 s before reconnecting.
    /// let source = Client::new()
    ///     .event_source("https://stream.example/events", Default::default())?
    ///     .reconnection_time(Duration::from_secs(10));
    /// # let _ = source;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn reconnection_time(mut self, time: Duration) -> EventSource {
        self.default_reconnection_time = time;
        self
    }

    /// The longest the back-off makes a reconnection wait. When attempts keep failing
    /// (a network error, or a connection that ends before
    /// [`stable_connection_time`](Self::stable_connection_time)), each wait doubles, from
    /// the reconnection time (at least
    /// [`min_reconnection_time`](Self::min_reconnection_time)) up to this, with up to a
    /// quarter more at random so that many clients do not come back at once (see
    /// "Reconnection" above). Default [`DEFAULT_MAX_RECONNECTION_BACKOFF`] (60 s).
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::Client;
    ///
    /// // A service that may be down for minutes: back off up to 5 minutes between attempts.
    /// let source = Client::new()
    ///     .event_source("https://stream.example/events", Default::default())?
    ///     .max_reconnection_backoff(Duration::from_secs(300));
    /// # let _ = source;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn max_reconnection_backoff(mut self, max: Duration) -> EventSource {
        self.max_backoff = max;
        self
    }

    /// The least wait before any reconnection, whatever the server's `retry` says, and
    /// where the back-off starts from when the reconnection time is shorter. Default
    /// [`DEFAULT_MIN_RECONNECTION_TIME`] (1 s); `Duration::ZERO` keeps `retry` as given,
    /// as Chrome does (the back-off still grows from the reconnection time, or from
    /// nothing after `retry: 0`).
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::Client;
    ///
    /// // A server of one's own, trusted to send a sensible `retry`.
    /// let source = Client::new()
    ///     .event_source("http://127.0.0.1:8080/events", Default::default())?
    ///     .min_reconnection_time(Duration::from_millis(100));
    /// # let _ = source;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn min_reconnection_time(mut self, min: Duration) -> EventSource {
        self.min_reconnection_time = min;
        self
    }

    /// How long a connection must stay up for the back-off to start again from the
    /// reconnection time; one that ends sooner (or fails) is a failed attempt, however
    /// many events it delivered, and the next wait doubles (see "Reconnection" above).
    /// Default [`DEFAULT_STABLE_CONNECTION_TIME`] (10 s).
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::Client;
    ///
    /// // A stream that a proxy cuts every 5 s is still a healthy one.
    /// let source = Client::new()
    ///     .event_source("http://127.0.0.1:8080/events", Default::default())?
    ///     .stable_connection_time(Duration::from_secs(4));
    /// # let _ = source;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn stable_connection_time(mut self, time: Duration) -> EventSource {
        self.stable_connection_time = time;
        self
    }

    /// The limits on what the server's stream may make the parser hold; past one the
    /// connection fails.
    ///
    /// ```
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::event_stream::EventStreamLimits;
    ///
    /// // A feed of small events: refuse a line over 64 KiB and an event over 256 KiB.
    /// let limits = EventStreamLimits::default().max_line_length(64 << 10).max_event_size(256 << 10);
    /// let source = Client::new()
    ///     .event_source("https://stream.example/events", Default::default())?
    ///     .limits(limits);
    /// # let _ = source;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn limits(mut self, limits: EventStreamLimits) -> EventSource {
        let last_event_id = self.parser.last_event_id().to_owned();
        self.parser = EventStreamParser::with_limits(limits);
        self.parser.set_last_event_id(last_event_id);
        self
    }

    /// Starts from `id` as the last event ID, sent as `Last-Event-ID` from the first
    /// request on: to resume a stream after a restart, from an ID kept elsewhere.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/events", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // One event whose data is the `Last-Event-ID` the request sent, then the stream stays open.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let mut head = vec![0; 4096];
    /// #     let n = stream.read(&mut head).await.unwrap();
    /// #     let head = String::from_utf8_lossy(&head[..n]).into_owned();
    /// #     let last = head.lines().find_map(|l| l.strip_prefix("last-event-id: ")).unwrap_or("none").to_owned();
    /// #     let event = format!("id: 8\ndata: after {last}\n\n");
    /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n{event}");
    /// #     let _ = stream.write_all(reply.as_bytes()).await;
    /// #     std::future::pending::<()>().await;
    /// # });
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::event_source::Event;
    ///
    /// // Resume where the last run stopped: the server gets `Last-Event-ID: 7`.
    /// let mut source = Client::new().event_source(&url, Default::default())?.last_event_id("7");
    /// while let Some(event) = source.next().await {
    ///     if let Event::Message(message) = event? {
    ///         assert_eq!(message.data(), "after 7");
    ///         break;
    ///     }
    /// }
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn last_event_id(mut self, id: impl Into<String>) -> EventSource {
        self.parser.set_last_event_id(id);
        self
    }

    /// The [`url`](https://html.spec.whatwg.org/multipage/server-sent-events.html#dom-eventsource-url)
    /// attribute: the serialization of the event source's URL.
    ///
    /// ```
    /// use whatwg_fetch::Client;
    ///
    /// let source = Client::new().event_source("https://stream.example/a/../events", Default::default())?;
    /// assert_eq!(source.url(), "https://stream.example/events");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn url(&self) -> &str {
        &self.url
    }

    /// The [`withCredentials`](https://html.spec.whatwg.org/multipage/server-sent-events.html#dom-eventsource-withcredentials)
    /// attribute.
    ///
    /// ```
    /// use whatwg_fetch::{Client, EventSourceInit};
    ///
    /// let init = EventSourceInit { with_credentials: true, ..EventSourceInit::default() };
    /// let source = Client::new().event_source("https://stream.example/events", init)?;
    /// assert!(source.with_credentials());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn with_credentials(&self) -> bool {
        self.with_credentials
    }

    /// The [`readyState`](https://html.spec.whatwg.org/multipage/server-sent-events.html#dom-eventsource-readystate)
    /// attribute.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/events", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // One event whose data is the `Last-Event-ID` the request sent, then the stream stays open.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let mut head = vec![0; 4096];
    /// #     let n = stream.read(&mut head).await.unwrap();
    /// #     let head = String::from_utf8_lossy(&head[..n]).into_owned();
    /// #     let last = head.lines().find_map(|l| l.strip_prefix("last-event-id: ")).unwrap_or("none").to_owned();
    /// #     let event = format!("id: 8\ndata: after {last}\n\n");
    /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n{event}");
    /// #     let _ = stream.write_all(reply.as_bytes()).await;
    /// #     std::future::pending::<()>().await;
    /// # });
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::event_source::{Event, ReadyState};
    ///
    /// let mut source = Client::new().event_source(&url, Default::default())?;
    /// assert_eq!(source.ready_state(), ReadyState::Connecting);
    /// assert!(matches!(source.next().await, Some(Ok(Event::Open))));
    /// assert_eq!(source.ready_state(), ReadyState::Open);
    /// source.close();
    /// assert_eq!(source.ready_state(), ReadyState::Closed);
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn ready_state(&self) -> ReadyState {
        self.ready_state
    }

    /// The event source's last event ID string: the `id` of the last event dispatched,
    /// sent as `Last-Event-ID` when reconnecting.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/events", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // One event whose data is the `Last-Event-ID` the request sent, then the stream stays open.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let mut head = vec![0; 4096];
    /// #     let n = stream.read(&mut head).await.unwrap();
    /// #     let head = String::from_utf8_lossy(&head[..n]).into_owned();
    /// #     let last = head.lines().find_map(|l| l.strip_prefix("last-event-id: ")).unwrap_or("none").to_owned();
    /// #     let event = format!("id: 8\ndata: after {last}\n\n");
    /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n{event}");
    /// #     let _ = stream.write_all(reply.as_bytes()).await;
    /// #     std::future::pending::<()>().await;
    /// # });
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::event_source::Event;
    ///
    /// let mut source = Client::new().event_source(&url, Default::default())?;
    /// while let Some(event) = source.next().await {
    ///     if let Event::Message(_) = event? {
    ///         break;
    ///     }
    /// }
    /// // Keep it to resume from later with `last_event_id`.
    /// assert_eq!(source.current_last_event_id(), "8");
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn current_last_event_id(&self) -> &str {
        self.parser.last_event_id()
    }

    /// The [`close()`](https://html.spec.whatwg.org/multipage/server-sent-events.html#dom-eventsource-close)
    /// method steps: abort any fetch of this event source and set its ready state to
    /// `CLOSED`. The stream ends; events not yet taken are dropped.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/events", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     // One event whose data is the `Last-Event-ID` the request sent, then the stream stays open.
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let mut head = vec![0; 4096];
    /// #     let n = stream.read(&mut head).await.unwrap();
    /// #     let head = String::from_utf8_lossy(&head[..n]).into_owned();
    /// #     let last = head.lines().find_map(|l| l.strip_prefix("last-event-id: ")).unwrap_or("none").to_owned();
    /// #     let event = format!("id: 8\ndata: after {last}\n\n");
    /// #     let reply = format!("HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n{event}");
    /// #     let _ = stream.write_all(reply.as_bytes()).await;
    /// #     std::future::pending::<()>().await;
    /// # });
    /// use futures_util::StreamExt;
    /// use whatwg_fetch::Client;
    ///
    /// let mut source = Client::new().event_source(&url, Default::default())?;
    /// source.next().await;
    /// source.close();
    /// // The stream ends: no more events, no reconnection.
    /// assert!(source.next().await.is_none());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn close(&mut self) {
        // Step 1. Abort any instances of the fetch algorithm started for this EventSource
        // object: dropping the fetch, or the body, aborts it.
        self.state = State::Closed;
        // Step 2. Set this's readyState attribute to CLOSED.
        self.ready_state = ReadyState::Closed;
    }

    /// The fetch of one connection: a copy of the event source's request, with
    /// `Last-Event-ID` when there is a last event ID.
    fn fetch(&mut self) -> Result<State> {
        let mut request = self.request.try_clone()?;
        // Step 5.3 of reestablish the connection. If the EventSource object's last event
        // ID string is not the empty string, then: Let lastEventIDValue be the EventSource
        // object's last event ID string, encoded as UTF-8. Set (`Last-Event-ID`,
        // lastEventIDValue) in request's header list.
        // DEVIATION: each connection fetches a copy of the request, so an ID the server
        // cleared since (an empty `id`) sends no header, as in Chrome and Firefox, where
        // the standard's request would keep the header of an earlier connection.
        // An ID holding a control character other than tab (U+0001–U+0008, U+000B,
        // U+000C, U+000E–U+001F, U+007F) is a valid Fetch header value too: it goes as
        // it is, over HTTP/1.1 (see `net::RawFields`).
        let last_event_id = self.parser.last_event_id();
        if !last_event_id.is_empty() {
            request
                .headers_mut()
                .header_list_mut()
                .set(b"Last-Event-ID", last_event_id.as_bytes());
        }
        self.connected_at = None;
        let client = self.client.clone();
        Ok(State::Fetching(Box::pin(async move {
            client.fetch_request_within(request, None).await
        })))
    }

    /// The processResponse steps of the constructor's step 15, given the response `res`.
    fn process_response(&mut self, res: Result<Response>) -> Option<Result<Event>> {
        match res {
            // Step 15.1. If res is an aborted network error, then fail the connection.
            Err(error) if error.is_abort() => Some(Err(self.fail_the_connection(error))),
            // Step 15.2. Otherwise, if res is a network error, then reestablish the
            // connection, unless the user agent knows that to be futile, in which case
            // the user agent may fail the connection.
            Err(error) if is_futile(&error) => Some(Err(self.fail_the_connection(error))),
            Err(error) => Some(Ok(self.reestablish_the_connection(Some(error)))),
            Ok(mut res) => {
                // Step 15.3. Otherwise, if res's status is not 200, or if res's
                // `Content-Type` is not `text/event-stream`, then fail the connection.
                if res.status() != 200 {
                    let error = Error::type_error(format!(
                        "EventSource: the response's status is {}, not 200",
                        res.status()
                    ))
                    .with_url(&self.request_url());
                    return Some(Err(self.fail_the_connection(error)));
                }
                let mime_type = res.headers().header_list().extract_mime_type();
                if mime_type.as_ref().map(|m| m.essence()).as_deref() != Some("text/event-stream") {
                    let error = Error::type_error(format!(
                        "EventSource: the response's Content-Type is {}, not text/event-stream",
                        mime_type.map_or_else(|| "missing".to_owned(), |m| m.serialize())
                    ))
                    .with_url(&self.request_url());
                    return Some(Err(self.fail_the_connection(error)));
                }
                // Step 15.4. Otherwise, announce the connection and interpret res's body
                // line by line.
                let origin = res
                    .url_list()
                    .last()
                    .map(|url| url.origin().ascii_serialization())
                    .unwrap_or_default();
                self.parser.restart();
                self.parser.set_origin(origin);
                self.connected_at = Some(tokio::time::Instant::now());
                // The parser's limits bound what the stream holds, however long it runs.
                res.set_max_body_size(None);
                self.state = State::Streaming(res.take_body().unwrap_or_else(Body::empty));
                self.announce_the_connection()
            }
        }
    }

    /// [Announce the connection](https://html.spec.whatwg.org/multipage/server-sent-events.html#announce-the-connection):
    /// "queue a task which, if the readyState attribute is set to a value other than
    /// CLOSED, sets the readyState attribute to OPEN and fires an event named open".
    fn announce_the_connection(&mut self) -> Option<Result<Event>> {
        if self.ready_state == ReadyState::Closed {
            return None;
        }
        self.ready_state = ReadyState::Open;
        Some(Ok(Event::Open))
    }

    /// [Reestablish the connection](https://html.spec.whatwg.org/multipage/server-sent-events.html#reestablish-the-connection).
    fn reestablish_the_connection(&mut self, cause: Option<Error>) -> Event {
        // Step 1. Queue a task to run the following steps: If the readyState attribute is
        // set to CLOSED, abort the task. Set the readyState attribute to CONNECTING. Fire
        // an event named error at the EventSource object.
        self.ready_state = ReadyState::Connecting;
        // Step 2. Wait a delay equal to the reconnection time of the event source.
        let reconnection_time = self
            .parser
            .reconnection_time()
            .unwrap_or(self.default_reconnection_time);
        // Step 3. Optionally, wait some more. In particular, if the previous attempt
        // failed, then user agents might introduce an exponential backoff delay to avoid
        // overloading a potentially already overloaded server.
        // Here: at least the least reconnection time, whatever `retry` said; and an
        // attempt failed when its connection failed or ended before it had stayed up for
        // the stable connection time (events or not: a server that sends one and closes
        // is the flood to guard against). Only a connection that stayed up resets it.
        let stayed_up = self
            .connected_at
            .take()
            .is_some_and(|at| at.elapsed() >= self.stable_connection_time);
        if stayed_up {
            self.failed_attempts = 0;
        } else {
            self.failed_attempts = self.failed_attempts.saturating_add(1);
        }
        let after = reconnection_delay(
            reconnection_time.max(self.min_reconnection_time),
            self.failed_attempts,
            self.max_backoff,
        );
        // Step 4. Wait until the aforementioned task has run, if it has not yet run: the
        // caller takes the event before the next poll waits.
        let aborted = self
            .request
            .signal()
            .can_abort()
            .then(|| self.request.signal().aborted_future());
        self.state = State::Waiting(Box::pin(tokio::time::sleep(after)), aborted);
        Event::Reconnecting { after, cause }
    }

    /// [Fail the connection](https://html.spec.whatwg.org/multipage/server-sent-events.html#fail-the-connection):
    /// "queue a task which, if the readyState attribute is set to a value other than
    /// CLOSED, sets the readyState attribute to CLOSED and fires an event named error".
    /// The error is the event, and the stream ends after it.
    fn fail_the_connection(&mut self, error: Error) -> Error {
        self.ready_state = ReadyState::Closed;
        self.state = State::Closed;
        error
    }

    fn request_url(&self) -> url::Url {
        self.request.current_url().clone()
    }
}

/// The wait before reconnecting after `failed_attempts` attempts in a row that failed:
/// `base` (the reconnection time, raised to the least one) after none or one, then
/// doubling from it up to `max` (or `base`, if longer), with up to a quarter more at
/// random.
fn reconnection_delay(base: Duration, failed_attempts: u32, max: Duration) -> Duration {
    if failed_attempts <= 1 {
        return base;
    }
    let cap = max.max(base);
    let doubled = base
        .checked_mul(1u32 << (failed_attempts - 1).min(20))
        .unwrap_or(cap)
        .min(cap);
    let jitter = doubled.mul_f64(fastrand::f64() / 4.0);
    doubled
        .saturating_add(jitter)
        .min(cap.saturating_add(cap / 4))
}

/// Whether reconnecting after `error` is known to be futile: the same request would fail
/// the same way (a URL fetch cannot handle, a port it blocks, CORS, a redirect it refuses,
/// an integrity mismatch, an error that is no network error at all). A DNS, connect, TLS
/// or protocol failure, a timeout or a dropped connection may pass, and is reconnected.
fn is_futile(error: &Error) -> bool {
    match error.network_error() {
        None => true,
        Some(cause) => matches!(
            cause,
            NetworkError::UnsupportedScheme(_)
                | NetworkError::BadPort(_)
                | NetworkError::TooManyRedirects { .. }
                | NetworkError::RedirectPolicy(_)
                | NetworkError::RedirectRefused
                | NetworkError::InvalidLocation(_)
                | NetworkError::RedirectToHttp
                | NetworkError::StreamBodyOnRedirect
                | NetworkError::InvalidDataUrl
                | NetworkError::InvalidBlobUrl
                | NetworkError::File(_)
                | NetworkError::Blocked(_)
                | NetworkError::Cors(_)
                | NetworkError::Integrity
        ),
    }
}

impl Stream for EventSource {
    type Item = Result<Event>;

    fn poll_next(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = &mut *self;
        loop {
            match &mut this.state {
                State::Closed => return Poll::Ready(None),
                State::Start => match this.fetch() {
                    Ok(state) => this.state = state,
                    Err(error) => return Poll::Ready(Some(Err(this.fail_the_connection(error)))),
                },
                State::Fetching(fetch) => {
                    let Poll::Ready(res) = fetch.as_mut().poll(cx) else {
                        return Poll::Pending;
                    };
                    this.state = State::Closed;
                    if let Some(item) = this.process_response(res) {
                        return Poll::Ready(Some(item));
                    }
                }
                State::Streaming(body) => {
                    // Events already in the bytes read come first.
                    match this.parser.try_next_event() {
                        Ok(Some(event)) => {
                            return Poll::Ready(Some(Ok(Event::Message(event))));
                        }
                        Ok(None) => {}
                        Err(error) => {
                            let error = error.with_url(&this.request_url());
                            return Poll::Ready(Some(Err(this.fail_the_connection(error))));
                        }
                    }
                    match Pin::new(body).poll_next(cx) {
                        Poll::Pending => return Poll::Pending,
                        Poll::Ready(Some(Ok(chunk))) => {
                            if let Err(error) = this.parser.feed(&chunk) {
                                let error = error.with_url(&this.request_url());
                                return Poll::Ready(Some(Err(this.fail_the_connection(error))));
                            }
                        }
                        // processEventSourceEndOfBody: if res is not a network error, then
                        // reestablish the connection. The body ended, or failed after the
                        // response (the connection dropped): the response was no network
                        // error, so both reconnect. "Once the end of the file is reached,
                        // any pending data must be discarded."
                        Poll::Ready(None) => {
                            this.parser.finish();
                            return Poll::Ready(Some(Ok(this.reestablish_the_connection(None))));
                        }
                        Poll::Ready(Some(Err(error))) if error.is_abort() => {
                            return Poll::Ready(Some(Err(this.fail_the_connection(error))));
                        }
                        Poll::Ready(Some(Err(error))) => {
                            this.parser.finish();
                            let event = this.reestablish_the_connection(Some(error));
                            return Poll::Ready(Some(Ok(event)));
                        }
                    }
                }
                State::Waiting(sleep, aborted) => {
                    if let Some(aborted) = aborted {
                        if let Poll::Ready(reason) = Pin::new(aborted).poll(cx) {
                            return Poll::Ready(Some(Err(this.fail_the_connection(reason))));
                        }
                    }
                    if sleep.as_mut().poll(cx).is_pending() {
                        return Poll::Pending;
                    }
                    // Step 5. Queue a task to run the following steps: If the EventSource
                    // object's readyState attribute is not set to CONNECTING, then return.
                    // … Fetch request and process the response obtained in this fashion,
                    // if any, as described earlier in this section.
                    match this.fetch() {
                        Ok(state) => this.state = state,
                        Err(error) => {
                            return Poll::Ready(Some(Err(this.fail_the_connection(error))));
                        }
                    }
                }
            }
        }
    }
}

impl fmt::Debug for EventSource {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("EventSource")
            .field("url", &self.url)
            .field("with_credentials", &self.with_credentials)
            .field("ready_state", &self.ready_state)
            .field("last_event_id", &self.parser.last_event_id())
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_doubles_from_the_second_failed_attempt_and_is_capped() {
        let base = Duration::from_secs(1);
        let max = Duration::from_secs(60);
        assert_eq!(reconnection_delay(base, 0, max), base);
        assert_eq!(reconnection_delay(base, 1, max), base);
        let second = reconnection_delay(base, 2, max);
        assert!(second >= base * 2 && second <= base * 10 / 4, "{second:?}");
        let third = reconnection_delay(base, 3, max);
        assert!(third >= base * 4 && third <= base * 5, "{third:?}");
        for failed in 4..200 {
            assert!(reconnection_delay(base, failed, max) <= max * 5 / 4);
        }
        assert!(reconnection_delay(base, 199, max) >= max);
        // From nothing, nothing: `min_reconnection_time(ZERO)` and `retry: 0`.
        assert_eq!(reconnection_delay(Duration::ZERO, 9, max), Duration::ZERO);
        // A server's longer `retry` is honoured.
        let long = Duration::from_secs(600);
        assert!(reconnection_delay(long, 9, max) >= long);
        assert_eq!(reconnection_delay(Duration::MAX, 9, max), Duration::MAX);
    }
}
