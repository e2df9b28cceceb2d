//! Timing: the Fetch Standard's [fetch timing info](https://fetch.spec.whatwg.org/#fetch-timing-info),
//! [connection timing info](https://fetch.spec.whatwg.org/#connection-timing-info) and
//! [response body info](https://fetch.spec.whatwg.org/#response-body-info), read through
//! [`ResourceTiming`], which has the shape of W3C Resource Timing's
//! [`PerformanceResourceTiming`](https://w3c.github.io/resource-timing/#sec-performanceresourcetiming).
//!
//! A fetch keeps its timing info as the spec does; at fetch response handover it is put
//! in a `TimingCell` that the response and its body's stream share, so that the end of
//! the body and its sizes, known only once the body has been read, can be read from the
//! response afterwards: [`Response::timing`](crate::Response::timing).
//!
//! Not in the spec: times are [`Instant`]s, not `DOMHighResTimeStamp`s, and are not
//! coarsened (there is no cross-origin isolation to protect here); the spec's 0 ("did not
//! happen") is `None`.
//!
//! ```
//! # tokio_test::block_on(async {
//! # use tokio::io::{AsyncReadExt, AsyncWriteExt};
//! # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
//! # let url = format!("http://{}/", listener.local_addr().unwrap());
//! # tokio::spawn(async move {
//! #     let (mut stream, _) = listener.accept().await.unwrap();
//! #     let _ = stream.read(&mut [0; 4096]).await;
//! #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 1\r\n\r\nx").await;
//! # });
//! let mut response = whatwg_fetch::Client::new().get(&url).send().await?;
//! response.text().await?;
//! let timing = response.timing().expect("a fetched response");
//! assert_eq!(timing.decoded_body_size(), 1);
//! # Ok::<(), whatwg_fetch::Error>(())
//! # }).unwrap();
//! ```

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, PoisonError};
use std::time::{Duration, Instant};

/// A [fetch timing info](https://fetch.spec.whatwg.org/#fetch-timing-info). The times the
/// spec defaults to 0 are `None` until set.
#[derive(Clone, Copy, Debug)]
pub(crate) struct FetchTimingInfo {
    /// <https://fetch.spec.whatwg.org/#fetch-timing-info-start-time>.
    pub(crate) start_time: Instant,
    /// <https://fetch.spec.whatwg.org/#fetch-timing-info-redirect-start-time>.
    pub(crate) redirect_start_time: Option<Instant>,
    /// <https://fetch.spec.whatwg.org/#fetch-timing-info-redirect-end-time>.
    pub(crate) redirect_end_time: Option<Instant>,
    /// <https://fetch.spec.whatwg.org/#fetch-timing-info-post-redirect-start-time>.
    pub(crate) post_redirect_start_time: Instant,
    /// <https://fetch.spec.whatwg.org/#fetch-timing-info-final-service-worker-start-time>:
    /// always 0, as there are no service workers.
    pub(crate) final_service_worker_start_time: Option<Instant>,
    /// <https://fetch.spec.whatwg.org/#fetch-timing-info-final-network-request-start-time>.
    pub(crate) final_network_request_start_time: Option<Instant>,
    /// <https://fetch.spec.whatwg.org/#fetch-timing-info-final-network-response-start-time>.
    pub(crate) final_network_response_start_time: Option<Instant>,
    /// <https://fetch.spec.whatwg.org/#fetch-timing-info-final-connection-timing-info>,
    /// initially null.
    pub(crate) final_connection_timing_info: Option<ConnectionTimingInfo>,
    // Not in the spec:
    /// Whether the final network request went over a connection that was there before it.
    pub(crate) connection_reused: bool,
    /// Whether this is an [opaque timing info](https://fetch.spec.whatwg.org/#create-an-opaque-timing-info):
    /// the body sizes are then hidden too, as Resource Timing hides them.
    pub(crate) opaque: bool,
}

impl FetchTimingInfo {
    /// A new fetch timing info whose start time and post-redirect start time are `now`
    /// (step 7 of [fetch](https://fetch.spec.whatwg.org/#concept-fetch)).
    pub(crate) fn new(now: Instant) -> FetchTimingInfo {
        FetchTimingInfo {
            start_time: now,
            redirect_start_time: None,
            redirect_end_time: None,
            post_redirect_start_time: now,
            final_service_worker_start_time: None,
            final_network_request_start_time: None,
            final_network_response_start_time: None,
            final_connection_timing_info: None,
            connection_reused: false,
            opaque: false,
        }
    }

    /// [Create an opaque timing info](https://fetch.spec.whatwg.org/#create-an-opaque-timing-info)
    /// for this one: a new fetch timing info whose start time and post-redirect start
    /// time are this one's start time.
    pub(crate) fn create_an_opaque_timing_info(&self) -> FetchTimingInfo {
        FetchTimingInfo {
            opaque: true,
            ..FetchTimingInfo::new(self.start_time)
        }
    }
}

/// A [connection timing info](https://fetch.spec.whatwg.org/#connection-timing-info).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ConnectionTimingInfo {
    /// <https://fetch.spec.whatwg.org/#connection-timing-info-domain-lookup-start-time>.
    pub(crate) domain_lookup_start_time: Option<Instant>,
    /// <https://fetch.spec.whatwg.org/#connection-timing-info-domain-lookup-end-time>.
    pub(crate) domain_lookup_end_time: Option<Instant>,
    /// <https://fetch.spec.whatwg.org/#connection-timing-info-connection-start-time>.
    pub(crate) connection_start_time: Option<Instant>,
    /// <https://fetch.spec.whatwg.org/#connection-timing-info-connection-end-time>.
    pub(crate) connection_end_time: Option<Instant>,
    /// <https://fetch.spec.whatwg.org/#connection-timing-info-secure-connection-start-time>.
    pub(crate) secure_connection_start_time: Option<Instant>,
    /// <https://fetch.spec.whatwg.org/#connection-timing-info-alpn-negotiated-protocol>,
    /// initially the empty byte sequence.
    pub(crate) alpn_negotiated_protocol: &'static str,
    // Not in the spec:
    /// Whether the connection is secured by TLS to the origin.
    pub(crate) secure: bool,
}

/// [Clamp and coarsen connection timing info](https://fetch.spec.whatwg.org/#clamp-and-coarsen-connection-timing-info)
/// given `timing_info` and `default_start_time`. (Times are not coarsened here: see the
/// module documentation.)
pub(crate) fn clamp_and_coarsen_connection_timing_info(
    timing_info: &ConnectionTimingInfo,
    default_start_time: Instant,
) -> ConnectionTimingInfo {
    // Step 1. If timingInfo's connection start time is less than defaultStartTime, then
    // return a new connection timing info whose domain lookup start time, domain lookup
    // end time, connection start time, connection end time and secure connection start
    // time are defaultStartTime, and ALPN negotiated protocol is timingInfo's ALPN
    // negotiated protocol. (A connection made for an earlier request, whose times were
    // not kept, counts as started before.)
    if timing_info
        .connection_start_time
        .is_none_or(|start| start < default_start_time)
    {
        return ConnectionTimingInfo {
            domain_lookup_start_time: Some(default_start_time),
            domain_lookup_end_time: Some(default_start_time),
            connection_start_time: Some(default_start_time),
            connection_end_time: Some(default_start_time),
            // DEVIATION: 0 for a connection without TLS, as Resource Timing's
            // secureConnectionStart is ("if a secure transport is not used, return 0"),
            // rather than defaultStartTime, which would say a handshake took place.
            secure_connection_start_time: timing_info.secure.then_some(default_start_time),
            alpn_negotiated_protocol: timing_info.alpn_negotiated_protocol,
            secure: timing_info.secure,
        };
    }
    // Step 2. Return a new connection timing info whose times are the result of coarsen
    // time given timingInfo's, and ALPN negotiated protocol is timingInfo's.
    // DEVIATION: secure connection start time is timingInfo's secure connection start
    // time, where the spec's text coarsens its connection end time (a slip: Resource
    // Timing's secureConnectionStart is the start of the handshake).
    *timing_info
}

/// Not in the spec: the timing info of a fetch and its response body info, shared by the
/// response and its body's stream. The body's stream adds to the sizes as it delivers
/// chunks and sets the end when it ends; fetch response handover sets the timing info.
/// It also carries what the network layer knows of the connection's other end (and a
/// `101`'s connection, handed over), as it is the one allocation a response from the network has of its own (a `Response` has no
/// room left within 256 bytes, see `body.rs`).
#[derive(Debug, Default)]
pub(crate) struct TimingCell {
    /// The fetch's timing info, set at fetch response handover (see [`Self::set_info`]).
    /// A lock that no one else holds when it is set, rather than a `OnceLock`, whose
    /// one-time initialization costs some 160 instructions, twice as many.
    info: Mutex<Option<FetchTimingInfo>>,
    /// The timing of the network request the response came from, recorded by
    /// HTTP-network fetch: the final connection timing info (not yet clamped), the final
    /// network-request and network-response start times, and whether the connection
    /// was reused. `None` for a response that did not come from the network.
    pub(crate) network: Option<NetworkTiming>,
    /// <https://fetch.spec.whatwg.org/#fetch-timing-info-encoded-body-size>.
    pub(crate) encoded_size: AtomicU64,
    /// <https://fetch.spec.whatwg.org/#fetch-timing-info-decoded-body-size>.
    pub(crate) decoded_size: AtomicU64,
    /// The unsafe end time of processResponseEndOfBody in
    /// [fetch response handover](https://fetch.spec.whatwg.org/#fetch-finale): when the
    /// body ended (read to its end, or failed). Nanoseconds since [`time_base`], 0 until
    /// set: a compare-and-swap where a `OnceLock` would run its one-time initialization
    /// for every response.
    end: AtomicU64,
    /// The peer of the connection the response came over, shared with every response on
    /// that connection: its address and its TLS (see
    /// [`Response::remote_addr`](crate::Response::remote_addr)). `None` for a response
    /// that did not come from the network.
    pub(crate) peer: Option<std::sync::Arc<crate::peer::Peer>>,
    /// The connection of a `101 Switching Protocols` response, handed over by the network
    /// layer for [`Response::upgrade`](crate::Response::upgrade); `None` for any other.
    pub(crate) upgrade: Option<crate::upgrade::OnUpgrade>,
    /// Not in the spec: the trailer fields the body ended with, if it had some (see
    /// [`Response::trailers`](crate::Response::trailers)). Boxed: rare.
    pub(crate) trailers: OnceLock<Box<http::HeaderMap>>,
}

/// What HTTP-network fetch records of the request it made.
#[derive(Clone, Copy, Debug)]
pub(crate) struct NetworkTiming {
    pub(crate) connection_timing_info: ConnectionTimingInfo,
    pub(crate) network_request_start_time: Instant,
    pub(crate) network_response_start_time: Instant,
    pub(crate) connection_reused: bool,
}

impl TimingCell {
    /// A cell for a response from the network, over a connection to `peer`, with the
    /// connection it hands over (`upgrade`), if any.
    pub(crate) fn from_network(
        network: Option<NetworkTiming>,
        peer: Option<std::sync::Arc<crate::peer::Peer>>,
        upgrade: Option<crate::upgrade::OnUpgrade>,
    ) -> TimingCell {
        TimingCell {
            network,
            peer,
            upgrade,
            ..TimingCell::default()
        }
    }

    /// The body delivered `decoded` more bytes; `encoded` is what it received so far as
    /// sent, when known.
    pub(crate) fn add_chunk(&self, decoded: usize, encoded: Option<u64>) {
        let total = self
            .decoded_size
            .load(Ordering::Relaxed)
            .saturating_add(decoded as u64);
        self.decoded_size.store(total, Ordering::Relaxed);
        self.encoded_size
            .store(encoded.unwrap_or(total), Ordering::Relaxed);
    }

    /// The body ended: the end time is now, unless it was set before.
    pub(crate) fn end_of_body(&self) {
        let base = time_base();
        let since = Instant::now().saturating_duration_since(base).as_nanos();
        // 0 stands for "not set": an end at the base itself is a nanosecond later.
        let since = u64::try_from(since).unwrap_or(u64::MAX).max(1);
        let _ = self
            .end
            .compare_exchange(0, since, Ordering::Relaxed, Ordering::Relaxed);
    }

    /// When the body ended, once it has.
    pub(crate) fn end(&self) -> Option<Instant> {
        match self.end.load(Ordering::Relaxed) {
            0 => None,
            since => time_base().checked_add(Duration::from_nanos(since)),
        }
    }

    /// Sets the fetch's timing info, at fetch response handover: `info`, as `finish`
    /// leaves it (made in place, where a copy to change and then a copy to store would
    /// move it twice); a cell that has one already (one the HTTP cache handed out before)
    /// keeps it.
    pub(crate) fn set_info(
        &self,
        info: &FetchTimingInfo,
        finish: impl FnOnce(&mut FetchTimingInfo),
    ) {
        let mut slot = self.info.lock().unwrap_or_else(PoisonError::into_inner);
        if slot.is_none() {
            finish(slot.insert(*info));
        }
    }

    /// The fetch's timing info, once fetch response handover has set it.
    pub(crate) fn info(&self) -> Option<FetchTimingInfo> {
        *self.info.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The instant the end times of bodies ([`TimingCell::end_of_body`]) count from: the
/// first time one was asked for.
fn time_base() -> Instant {
    static BASE: OnceLock<Instant> = OnceLock::new();
    *BASE.get_or_init(Instant::now)
}

/// A response's timing, shaped as W3C Resource Timing's
/// [`PerformanceResourceTiming`](https://w3c.github.io/resource-timing/#sec-performanceresourcetiming),
/// with its attribute names in snake case.
///
/// Every time is a [`Duration`] since [`start_time`](Self::start_time), the instant the
/// fetch started (Resource Timing measures from a page's time origin; a fetch here has no
/// page). [`Duration::ZERO`] stands for Resource Timing's 0: the step did not happen
/// (`redirect_start` without a redirect, `secure_connection_start` without TLS). The
/// times, in order, for a fetch over the network:
///
/// `redirect_start ≤ redirect_end ≤ fetch_start ≤ domain_lookup_start ≤ domain_lookup_end
/// ≤ connect_start ≤ secure_connection_start ≤ connect_end ≤ request_start ≤
/// response_start ≤ response_end`.
///
/// Over a connection made for an earlier request, the connection times are `fetch_start`,
/// as the Fetch Standard's *clamp and coarsen connection timing info* has it. A response
/// from the HTTP cache has no connection times (they are `fetch_start`), no request or
/// response start (0), and no `next_hop_protocol`.
///
/// The body's end and sizes are known once the body has been read (or has failed):
/// [`response_end`](Self::response_end), [`encoded_body_size`](Self::encoded_body_size)
/// and [`decoded_body_size`](Self::decoded_body_size) read them when called, from state the
/// body shares, so a `ResourceTiming` taken before reading the body sees them afterwards.
///
/// When the response fails the timing allow check (a cross-origin response without
/// `Timing-Allow-Origin`, in a browser-like environment), only `start_time` and
/// `fetch_start` are given, as Resource Timing does.
///
/// ```
/// # tokio_test::block_on(async {
/// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
/// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
/// # let url = format!("http://{}/", listener.local_addr().unwrap());
/// # tokio::spawn(async move {
/// #     let (mut stream, _) = listener.accept().await.unwrap();
/// #     let _ = stream.read(&mut [0; 4096]).await;
/// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok").await;
/// # });
/// let mut response = whatwg_fetch::Client::new().get(&url).send().await?;
/// response.text().await?;
/// let timing = response.timing().expect("fetched");
/// assert!(timing.response_end().is_some());
/// assert_eq!(timing.encoded_body_size(), 2);
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct ResourceTiming {
    /// When the fetch started: `startTime`.
    pub start_time: Instant,
    /// `redirectStart`: when the first redirected fetch started (`start_time`), if the
    /// fetch was redirected; 0 otherwise.
    pub redirect_start: Duration,
    /// `redirectEnd`: when the last redirect was followed; 0 without a redirect.
    pub redirect_end: Duration,
    /// `fetchStart`: when the fetch of the final URL started (after the last redirect).
    pub fetch_start: Duration,
    /// `workerStart`: always 0, as there are no service workers.
    pub worker_start: Duration,
    /// `domainLookupStart`: before the host was resolved.
    pub domain_lookup_start: Duration,
    /// `domainLookupEnd`: once its addresses were known.
    pub domain_lookup_end: Duration,
    /// `connectStart`: before the connection was started.
    pub connect_start: Duration,
    /// `connectEnd`: once the connection was established (TLS included).
    pub connect_end: Duration,
    /// `secureConnectionStart`: before the TLS handshake; 0 without TLS.
    pub secure_connection_start: Duration,
    /// `requestStart`: when the request was handed to the connection.
    pub request_start: Duration,
    /// `responseStart`: when the response head had arrived.
    pub response_start: Duration,
    /// `nextHopProtocol`: the connection's ALPN protocol ID, `"http/1.1"`, `"h2"` or
    /// (with the `http3` feature) `"h3"`; empty when the response did not come from the
    /// network.
    pub next_hop_protocol: &'static str,
    /// Not in Resource Timing: whether the request went over a connection that was
    /// there before it (a pooled HTTP/1.1 connection, or a shared HTTP/2 one).
    pub connection_reused: bool,
    cell: std::sync::Arc<TimingCell>,
}

impl ResourceTiming {
    /// Resource Timing's attributes for the timing info in `cell`, if it has one.
    pub(crate) fn of(cell: &std::sync::Arc<TimingCell>) -> Option<ResourceTiming> {
        let info = cell.info()?;
        let since = |time: Option<Instant>| {
            time.map_or(Duration::ZERO, |time| {
                time.saturating_duration_since(info.start_time)
            })
        };
        let fetch_start = since(Some(info.post_redirect_start_time));
        let connection = info.final_connection_timing_info;
        let or_fetch_start = |time: Option<Instant>| match time {
            Some(time) => since(Some(time)),
            None => fetch_start,
        };
        Some(ResourceTiming {
            start_time: info.start_time,
            redirect_start: since(info.redirect_start_time),
            redirect_end: since(info.redirect_end_time),
            fetch_start,
            worker_start: since(info.final_service_worker_start_time),
            domain_lookup_start: or_fetch_start(
                connection.and_then(|c| c.domain_lookup_start_time.or(c.connection_start_time)),
            ),
            domain_lookup_end: or_fetch_start(
                connection.and_then(|c| c.domain_lookup_end_time.or(c.connection_start_time)),
            ),
            connect_start: or_fetch_start(connection.and_then(|c| c.connection_start_time)),
            connect_end: or_fetch_start(connection.and_then(|c| c.connection_end_time)),
            secure_connection_start: since(connection.and_then(|c| c.secure_connection_start_time)),
            request_start: since(info.final_network_request_start_time),
            response_start: since(info.final_network_response_start_time),
            next_hop_protocol: connection.map_or("", |c| c.alpn_negotiated_protocol),
            connection_reused: info.connection_reused,
            cell: std::sync::Arc::clone(cell),
        })
    }

    /// `responseEnd`: when the body ended (read to its end, or failed), or when the
    /// response arrived for a response without a body; `None` while the body is being
    /// read, or if it is dropped unread.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 11\r\n\r\nhello world").await;
    /// # });
    /// let mut response = whatwg_fetch::Client::new().get(&url).send().await?;
    /// assert!(response.timing().and_then(|timing| timing.response_end()).is_none());
    /// response.text().await?;
    /// // Set once the body was read to its end.
    /// assert!(response.timing().and_then(|timing| timing.response_end()).is_some());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn response_end(&self) -> Option<Duration> {
        let end = self.cell.end()?;
        Some(end.saturating_duration_since(self.start_time))
    }

    /// `encodedBodySize`: the bytes of the body received so far as they were sent, before
    /// content decoding (the whole body's once it has been read).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 11\r\n\r\nhello world").await;
    /// # });
    /// let mut response = whatwg_fetch::Client::new().get(&url).send().await?;
    /// response.text().await?;
    /// assert_eq!(response.timing().map(|timing| timing.encoded_body_size()), Some(11));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn encoded_body_size(&self) -> u64 {
        if self.is_opaque() {
            return 0;
        }
        self.cell.encoded_size.load(Ordering::Relaxed)
    }

    /// `decodedBodySize`: the bytes of the body delivered so far, after content decoding
    /// (the whole body's once it has been read).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 11\r\n\r\nhello world").await;
    /// # });
    /// let mut response = whatwg_fetch::Client::new().get(&url).send().await?;
    /// response.text().await?;
    /// // No content coding: as many bytes delivered as received.
    /// assert_eq!(response.timing().map(|timing| timing.decoded_body_size()), Some(11));
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn decoded_body_size(&self) -> u64 {
        if self.is_opaque() {
            return 0;
        }
        self.cell.decoded_size.load(Ordering::Relaxed)
    }

    fn is_opaque(&self) -> bool {
        self.cell.info().is_some_and(|info| info.opaque)
    }
}
