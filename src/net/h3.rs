//! HTTP/3 ([RFC 9114](https://www.rfc-editor.org/rfc/rfc9114)) over QUIC
//! ([RFC 9000](https://www.rfc-editor.org/rfc/rfc9000)), behind the `http3` feature:
//! QUIC on [quinn](https://docs.rs/quinn), with the transport's rustls configuration
//! offering only `h3` by ALPN (TLS 1.3, by QUIC's rule), and HTTP/3's framing and QPACK
//! on the [h3](https://docs.rs/h3) crate over h3-quinn. No hand-written protocol code
//! but a scan of the frame headers of each request stream (see [`FrameScanner`]), which
//! h3 0.0.8 needs to take a body with an empty `DATA` frame in it, and of the streams the
//! server opens (see [`UniScanner`]), which h3 would let grow without bound: this room
//! opens connections, keeps one per origin, sends a request on a stream and reads its
//! response, as `h2.rs` does for HTTP/2.
//!
//! One UDP socket (a quinn endpoint) serves every connection of a transport; it is made
//! at the first connection, on the runtime that asks, since quinn drives it from a task
//! of that runtime.
//!
//! # A path that goes silent, and a server that answers late
//!
//! UDP gives no sign when a path dies (the server killed, reloaded without HTTP/3, UDP
//! dropped on the way): QUIC alone would find out at its idle timeout, 30 seconds of
//! hearing nothing, while the request waits; and the same idle timeout closes a
//! connection whose server is only slow to answer (a long poll), so that a request
//! the server is working on fails, or is sent again. What this does, after Chrome
//! (keep-alive PINGs while streams are open, `QuicConnection`'s PING alarm; a path taken
//! for degrading after some probe timeouts, `QuicNetworkBlackholeDetector`; the
//! alternative service marked broken, with back-off, `BrokenAlternativeServices`):
//!
//! - **Keep-alive.** quinn sends a PING once it has heard nothing from the server for
//!   the keep-alive interval (`http3_keep_alive_interval`, 5 s by default, at most a third
//!   of the idle timeout), so that a connection whose server is silent but alive stays
//!   open past QUIC's idle timeout (`http3_max_idle_timeout`, 30 s). A connection with
//!   no request in flight (none sent and waiting, no response body being read) is
//!   closed by the client after the idle timeout, as QUIC would have closed it, so an
//!   idle connection costs at most a few PINGs.
//! - **A dead path.** A path is dead when something the server must acknowledge (the
//!   request's frames, a PING, a probe: any ack-eliciting frame, RFC 9000 §13.2.1) has
//!   gone unanswered, not one datagram coming back, for the keep-alive timeout
//!   (`http3_keep_alive_timeout`, 1 s by default, and at least four probe timeouts of the
//!   measured round trip, RFC 9002 §6.2.1, so that loss recovery on a long path has its
//!   time). A live server acknowledges within its `max_ack_delay` (25 ms by default), and
//!   quinn repeats what is unacknowledged at each probe timeout, so one second is tens
//!   of chances on any path that still carries packets. A task per connection reads
//!   quinn's counts (datagrams received, ack-eliciting frames sent) every eighth of the
//!   timeout while a request is in flight or an answer owed, every half keep-alive
//!   interval otherwise ([`PathWatch`], [`watch_connection`]). A request sent on a dead
//!   path thus learns it in about a second; one waiting when the path dies, within a
//!   keep-alive interval and that second; an idle connection is found dead the same
//!   way, before a request is put on it. The connection is then closed.
//! - **Marked broken.** A connection to an origin found by `Alt-Svc` whose path is found
//!   dead marks HTTP/3 broken for the origin (`AltSvcCache::mark_broken`: five minutes,
//!   doubling at each failure, up to 48 hours, Chrome's delays), so that its next
//!   requests go over TCP at once, without waiting for a new QUIC connection's head
//!   start.
//!
//! ## When a request goes again
//!
//! A request that failed before its response head is sent again (over TCP for an origin
//! found by `Alt-Svc`, else on a new connection), once, only when it may be
//! ([`MayResend`]), and only if its body can be sent again (empty, or one buffer):
//! - whatever its method, when the server cannot have processed it: it never went out
//!   (the connection had closed, was being closed for being idle, or the handshake it
//!   waited for failed); its 0-RTT data was rejected (RFC 9001 §4.6.2); or the server
//!   refused it unprocessed (`H3_REQUEST_REJECTED`, RFC 9114 §8.1, or a `GOAWAY` before
//!   it was sent, §5.2);
//! - if its method is idempotent (RFC 9110 §9.2.2), when the path went dead under it
//!   and not one datagram came from the server once it could have had it (from half
//!   the connection's smallest round trip after it was sent: what came before was on its
//!   way already), not even the acknowledgement a live server sends within
//!   milliseconds: as far as any client can know, it never reached the server.
//!
//! Any other request fails: one that may have been processed is never sent twice. A
//! long poll whose server acknowledged it and then went silent fails with a
//! [`TimeoutKind::KeepAlive`] error, as a POST sent on a path that went dead does,
//! within about a second rather than at the idle timeout; over TCP, a connection that
//! dies under a request fails it too. (Chrome sends again, over TCP, any request whose
//! QUIC connection failed before the response head; this is stricter.)

// QUIC's packet protection and quinn's own keys come from a crypto provider.
#[cfg(not(any(feature = "aws-lc-rs", feature = "ring")))]
compile_error!(
    "the `http3` feature needs a crypto provider: the `aws-lc-rs` feature (a default one) or `ring`"
);

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::future::Future;
use std::net::{Ipv6Addr, SocketAddr};
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use bytes::{Buf, Bytes};
use http::{Request, Response, Version};
use http_body::{Body, Frame, SizeHint};

use super::RequestBody;
use super::timing::{ConnectionTiming, H3, Recorded};
use crate::error::{BoxError, Error, NetworkError, TimeoutKind};
use crate::peer::{Peer, TlsInfo, TlsVersion};

/// The most bytes of a response head (its QPACK-decoded field section) taken: the same
/// 256 KiB as HTTP/1.1 and HTTP/2 allow, sent to the server as
/// `SETTINGS_MAX_FIELD_SECTION_SIZE` (RFC 9114 §4.2.2).
const MAX_FIELD_SECTION_SIZE: u64 = 256 * 1024;

/// The most bytes a request stream may deliver before its response head is in: the
/// field section's limit and room for the frames around it. The h3 crate keeps a
/// `HEADERS` frame until all of it has come, whatever length it declares, so this is
/// what bounds the memory a server's head can take (see [`Guarded`]).
const HEAD_BUDGET: u64 = MAX_FIELD_SECTION_SIZE + 64 * 1024;

/// The default of how long a connection with nothing to do stays open: QUIC's idle
/// timeout, which both ends agree to (RFC 9000 §10.1; the lower of the two applies).
pub(crate) const DEFAULT_IDLE_TIMEOUT: Duration = Duration::from_secs(30);

/// The default of how long a connection may hear nothing from its server before it
/// sends a PING (`http3_keep_alive_interval`).
pub(crate) const DEFAULT_KEEP_ALIVE_INTERVAL: Duration = Duration::from_secs(5);

/// The default of how long what the server must acknowledge may go unanswered before
/// the connection's path is taken for dead (`http3_keep_alive_timeout`).
pub(crate) const DEFAULT_KEEP_ALIVE_TIMEOUT: Duration = Duration::from_secs(1);

/// The shortest keep-alive interval and keep-alive timeout, and idle time before a
/// connection is closed: shorter, a PING would go out at every packet received, a path
/// be taken for dead between two of them, or a new connection closed before its first
/// request is on it.
const SHORTEST_KEEP_ALIVE: Duration = Duration::from_millis(100);

/// The longest keep-alive interval: a day, far past any idle timeout a server keeps.
const LONGEST_KEEP_ALIVE: Duration = Duration::from_secs(24 * 60 * 60);

/// The timing of a transport's HTTP/3 connections, as its builder sets it (see the
/// module's docs, "A path that goes silent").
#[derive(Clone, Copy, Debug)]
pub(crate) struct H3Timing {
    /// QUIC's idle timeout (`http3_max_idle_timeout`), and how long a connection with no
    /// request in flight stays open (at least 100 ms); under a millisecond, none (QUIC
    /// counts it in milliseconds, and 0 turns it off).
    pub(crate) idle: Duration,
    /// A PING goes out after this long without a packet from the server
    /// (`http3_keep_alive_interval`): at least 100 ms, at most a third of `idle` and a
    /// day.
    pub(crate) keep_alive: Duration,
    /// What the server must acknowledge may go unanswered this long before the path is
    /// taken for dead (`http3_keep_alive_timeout`): at least 100 ms, and at least four
    /// probe timeouts of the connection's round-trip time.
    pub(crate) dead_after: Duration,
}

impl H3Timing {
    /// The timing of the builder's options, held to their bounds.
    pub(crate) fn new(idle: Duration, keep_alive: Duration, dead_after: Duration) -> H3Timing {
        let most = match idle.as_millis() {
            0 => LONGEST_KEEP_ALIVE,
            _ => (idle / 3).min(LONGEST_KEEP_ALIVE),
        };
        H3Timing {
            idle,
            keep_alive: keep_alive.min(most).max(SHORTEST_KEEP_ALIVE),
            dead_after: dead_after.max(SHORTEST_KEEP_ALIVE),
        }
    }

    /// How long a connection with no request in flight stays open; `None`: for ever.
    fn idle_close(&self) -> Option<Duration> {
        (self.idle.as_millis() > 0).then(|| self.idle.max(SHORTEST_KEEP_ALIVE))
    }

    /// How long what the server must acknowledge may go unanswered on `quic`: the
    /// keep-alive timeout, or four of its probe timeouts (RFC 9002 §6.2.1) if that is
    /// longer, so that a long path is not taken for dead while QUIC's own loss recovery
    /// is still at work. quinn tells only the smoothed round-trip time: the probe
    /// timeout is taken as three of them (its variance four times over, RFC 9002 §5.3,
    /// starts at half of it) and the largest ACK delay QUIC knows by default, 25 ms.
    fn dead_after(&self, quic: &quinn::Connection) -> Duration {
        let probe_timeout = quic
            .rtt()
            .saturating_mul(3)
            .saturating_add(Duration::from_millis(25));
        self.dead_after.max(probe_timeout.saturating_mul(4))
    }
}

/// A transport's HTTP/3: its QUIC configuration, its endpoint, and a connection per
/// origin.
pub(crate) struct H3Client {
    config: quinn::ClientConfig,
    timing: H3Timing,
    /// Whether a connection resuming a TLS session may send its first requests as 0-RTT
    /// data ([`H3Client::new`]).
    early_data: bool,
    endpoint: Mutex<Option<quinn::Endpoint>>,
    /// The open connections, by the origin (host and port) they serve.
    connections: Mutex<HashMap<(String, u16), H3Connection>>,
    /// The origins a connection is being made to, so that one is made at a time.
    connecting: Mutex<HashSet<(String, u16)>>,
    /// Per origin, what a request holds while it makes the origin's connection, so that
    /// the requests behind it wait for that one rather than each make its own.
    making: Mutex<HashMap<(String, u16), MakingLock>>,
}

/// What a request holds while it makes an origin's connection.
type MakingLock = Arc<tokio::sync::Mutex<()>>;

impl fmt::Debug for H3Client {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let open = self
            .connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .len();
        f.debug_struct("H3Client")
            .field("connections", &open)
            .finish_non_exhaustive()
    }
}

/// An open HTTP/3 connection: the handle requests open streams with.
#[derive(Clone)]
pub(crate) struct H3Connection {
    /// h3's handle, shared: h3 closes the connection when the last one goes, so the body
    /// of each response keeps one too (see [`H3Body`]).
    send: Arc<h3::client::SendRequest<GuardedOpener, Bytes>>,
    /// The head budgets of the streams opened and not yet sent on.
    budgets: Budgets,
    /// Set by the connection's task once the connection has closed.
    closed: Arc<AtomicBool>,
    /// Why a stream the server opened failed the connection, once one has
    /// ([`Guarded::failed`]): what its requests and bodies fail with.
    failed: Arc<OnceLock<UniFailure>>,
    /// Its requests in flight, and whether its path went silent, which its task watches.
    life: Arc<Life>,
    /// quinn's connection, for what it has received.
    quic: quinn::Connection,
    /// QUIC's idle timeout.
    idle: Duration,
    peer: Option<Arc<Peer>>,
    /// How the handshake of a connection that sent 0-RTT data went; `None` for one made
    /// with the whole handshake first.
    handshake: Option<tokio::sync::watch::Receiver<Handshake>>,
}

/// Where the handshake of a connection sending 0-RTT data stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Handshake {
    /// Under way: what is sent now goes as 0-RTT data.
    Pending,
    /// Done, the server having accepted the 0-RTT data.
    Accepted,
    /// Done, the server having rejected the 0-RTT data (the streams that carried it are
    /// lost), or failed: the connection is closed.
    Rejected,
    /// Not done within the connect timeout: the connection is closed.
    TimedOut(Duration),
}

impl H3Connection {
    /// Whether the connection has closed: its task has ended, or a request or body on it
    /// met a connection error ([`H3Connection::stream_error`]), which h3 closes the
    /// connection for once its task runs next.
    pub(crate) fn is_closed(&self) -> bool {
        self.closed.load(Ordering::Acquire)
    }

    /// How many datagrams the connection has received from its server so far.
    fn heard(&self) -> u64 {
        self.quic.stats().udp_rx.datagrams
    }

    /// Whether the connection was closed because its path went silent: how long what the
    /// server had to acknowledge went unanswered (see [`PathWatch`]), or quinn's idle
    /// timeout, if quinn closed it for hearing nothing that long.
    pub(crate) fn silent(&self) -> Option<Duration> {
        self.life
            .silent()
            .or_else(|| match self.quic.close_reason() {
                Some(quinn::ConnectionError::TimedOut) => Some(self.idle),
                _ => None,
            })
    }

    /// Where the handshake stands: [`Handshake::Accepted`] for a connection made without
    /// 0-RTT data.
    fn handshake(&self) -> Handshake {
        self.handshake
            .as_ref()
            .map_or(Handshake::Accepted, |handshake| *handshake.borrow())
    }

    /// Whether what is sent now goes as 0-RTT data.
    pub(crate) fn in_early_data(&self) -> bool {
        self.handshake() == Handshake::Pending
    }

    /// A stream's error on this connection as a network error (see [`stream_error_on`]).
    fn stream_error(&self, error: h3::error::StreamError) -> NetworkError {
        stream_error_on(&self.closed, &self.failed, error)
    }

    /// Waits for the handshake to be done; an error if it failed.
    async fn handshake_done(&self) -> Result<(), NetworkError> {
        let Some(mut handshake) = self.handshake.clone() else {
            return Ok(());
        };
        let done = handshake
            .wait_for(|state| *state != Handshake::Pending)
            .await
            .map(|state| *state)
            .unwrap_or(Handshake::Rejected);
        match done {
            Handshake::Accepted | Handshake::Pending => Ok(()),
            failed => Err(early_data_error(failed)),
        }
    }
}

/// The error of a request whose connection's 0-RTT handshake went as `handshake` says.
fn early_data_error(handshake: Handshake) -> NetworkError {
    match handshake {
        Handshake::TimedOut(after) => NetworkError::Timeout {
            kind: TimeoutKind::Connect,
            after,
        },
        _ => NetworkError::Connect(
            "the HTTP/3 server did not take the 0-RTT data of a resumed connection".into(),
        ),
    }
}

impl H3Client {
    /// HTTP/3 with `tls`, the transport's configuration: the same roots, verifier, client
    /// identity and key log, offering `h3` alone by ALPN. With `early_data`, a connection
    /// resuming a TLS session may send 0-RTT data (see [`H3Client::connect`]).
    /// `timing` is QUIC's idle timeout and the keep-alive's.
    ///
    /// # Errors
    /// A `TypeError` when the configuration cannot carry QUIC: it does not allow TLS 1.3.
    pub(crate) fn new(
        tls: &rustls::ClientConfig,
        early_data: bool,
        timing: H3Timing,
    ) -> Result<H3Client, Error> {
        let mut tls = tls.clone();
        tls.alpn_protocols = vec![b"h3".to_vec()];
        // 0-RTT data may be replayed (RFC 9001 §9.2): sent only when asked for, and then
        // only for safe requests (see `send`).
        tls.enable_early_data = early_data;
        let quic = quinn::crypto::rustls::QuicClientConfig::try_from(tls).map_err(|error| {
            Error::type_error(format!(
                "HTTP/3 needs TLS 1.3, which the TLS configuration does not allow: {error}"
            ))
        })?;
        let mut config = quinn::ClientConfig::new(Arc::new(quic));
        let mut transport = quinn::TransportConfig::default();
        // Past QUIC's largest (2^62 ms), none: the server's applies.
        transport.max_idle_timeout(quinn::IdleTimeout::try_from(timing.idle).ok());
        // quinn sends a PING once it has heard nothing for this long, with or without
        // requests: a connection without any is closed after the idle timeout (see
        // `watch_connection`), and so costs at most three.
        transport.keep_alive_interval(Some(timing.keep_alive));
        config.transport_config(Arc::new(transport));
        Ok(H3Client {
            config,
            timing,
            early_data,
            endpoint: Mutex::new(None),
            connections: Mutex::new(HashMap::new()),
            connecting: Mutex::new(HashSet::new()),
            making: Mutex::new(HashMap::new()),
        })
    }

    /// The open connection to `host` and `port`, if there is one.
    pub(crate) fn open(&self, host: &str, port: u16) -> Option<H3Connection> {
        let mut connections = self
            .connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let key = (host.to_owned(), port);
        match connections.get(&key) {
            Some(connection) if connection.is_closed() => {
                connections.remove(&key);
                None
            }
            Some(connection) => Some(connection.clone()),
            None => None,
        }
    }

    /// Lets go of `connection`, the origin's, after a request failed on it: the next
    /// request to the origin makes a new one.
    pub(crate) fn forget(&self, host: &str, port: u16, connection: &H3Connection) {
        let mut connections = self
            .connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        let key = (host.to_owned(), port);
        if connections
            .get(&key)
            .is_some_and(|open| Arc::ptr_eq(&open.closed, &connection.closed))
        {
            connections.remove(&key);
        }
    }

    /// How many connections are open.
    pub(crate) fn open_connections(&self) -> usize {
        let mut connections = self
            .connections
            .lock()
            .unwrap_or_else(PoisonError::into_inner);
        connections.retain(|_, connection| !connection.is_closed());
        connections.len()
    }

    /// The lock a request holds while it makes the connection to `host` and `port`.
    pub(crate) fn making(&self, host: &str, port: u16) -> MakingLock {
        let mut making = self.making.lock().unwrap_or_else(PoisonError::into_inner);
        // Origins no request is connecting to are let go, so that the map stays small.
        if making.len() >= 64 {
            making.retain(|_, lock| Arc::strong_count(lock) > 1);
        }
        Arc::clone(making.entry((host.to_owned(), port)).or_default())
    }

    /// Notes that a connection to the origin `host` and `port` is being made: `false`
    /// when one already is.
    pub(crate) fn start_connecting(&self, host: &str, port: u16) -> bool {
        self.connecting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert((host.to_owned(), port))
    }

    /// Notes that the connection to `host` and `port` is made, or failed.
    pub(crate) fn finish_connecting(&self, host: &str, port: u16) {
        self.connecting
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&(host.to_owned(), port));
    }

    /// A new connection for the origin `host` and `port`, at the first of `addrs` (its
    /// own, or an alternative's) that answers, with `host` as the TLS server name: the
    /// certificate must be valid for the origin (RFC 7838 §2.1). It is kept for the
    /// origin's requests that follow; `timing` notes when it began and was established.
    /// The caller bounds the time it takes.
    ///
    /// With `how.early` (and the client's early data on), a connection that can resume a
    /// TLS session of the server's is made at once, its handshake going on while its
    /// first requests go as 0-RTT data (RFC 9001 §4.6.1); a handshake not done within
    /// `how.connect_timeout` closes it, as does a server rejecting that data: RFC 9001
    /// §4.6.2, "the client therefore MUST reset the state of all streams, including
    /// application state bound to those streams", HTTP/3's control streams among them.
    /// The transport sends its requests again on a connection made whole.
    ///
    /// A task watches the connection until it ends ([`watch_connection`]): its path, and
    /// its idle time; `how.on_silent` is called if its path goes silent.
    pub(crate) async fn connect(
        &self,
        host: &str,
        port: u16,
        addrs: &[SocketAddr],
        timing: &mut ConnectionTiming,
        how: Connect,
    ) -> Result<H3Connection, NetworkError> {
        let Connect {
            early,
            connect_timeout,
            mut on_silent,
        } = how;
        let endpoint = self.endpoint()?;
        let server_name = host
            .strip_prefix('[')
            .and_then(|host| host.strip_suffix(']'))
            .unwrap_or(host);
        let start = Instant::now();
        timing.connection_start = Some(start);
        // QUIC's handshake is TLS's: the secure connection starts with the connection.
        timing.secure_connection_start = Some(start);
        let mut last_error = None;
        for addr in addrs {
            let connecting = match endpoint.connect_with(self.config.clone(), *addr, server_name) {
                Ok(connecting) => connecting,
                Err(error) => {
                    last_error = Some(NetworkError::Connect(Box::new(error)));
                    continue;
                }
            };
            let attempt = match early && self.early_data {
                true => connecting.into_0rtt(),
                false => Err(connecting),
            };
            let (connection, accepted) = match attempt {
                Ok((connection, accepted)) => (connection, Some(accepted)),
                Err(connecting) => match connecting.await {
                    Ok(connection) => (connection, None),
                    Err(error) => {
                        last_error = Some(quic_error(host, error));
                        continue;
                    }
                },
            };
            let quic = connection.clone();
            let peer = Some(Arc::new(Peer {
                addr: Some(connection.remote_address()),
                tls: tls_info(&connection),
            }));
            let budgets = Budgets::default();
            let inner = h3_quinn::Connection::new(connection);
            let opener = GuardedOpener {
                inner: h3::quic::Connection::<Bytes>::opener(&inner),
                budgets: budgets.clone(),
            };
            let failed = Arc::new(OnceLock::new());
            let guarded = Guarded {
                inner,
                opener,
                failed: Arc::clone(&failed),
            };
            let built = h3::client::builder()
                .max_field_section_size(MAX_FIELD_SECTION_SIZE)
                .build::<_, _, Bytes>(guarded)
                .await;
            let (mut driver, send) = match built {
                Ok(built) => built,
                Err(error) => {
                    last_error = Some(NetworkError::Protocol(Box::new(error)));
                    continue;
                }
            };
            timing.connection_end = Some(Instant::now());
            let closed = Arc::new(AtomicBool::new(false));
            let handshake = accepted
                .map(|accepted| watch_handshake(accepted, quic.clone(), &closed, connect_timeout));
            let life = Arc::new(Life::new());
            // The connection's control streams, GOAWAY and close, its path and its idle
            // time: watched until it ends.
            tokio::spawn(watch_connection(
                Box::pin(std::future::poll_fn(move |cx| driver.poll_close(cx))),
                quic.clone(),
                Watched {
                    closed: Arc::clone(&closed),
                    life: Arc::clone(&life),
                    handshake: handshake.clone(),
                    on_silent: on_silent.take(),
                },
                self.timing,
            ));
            let connection = H3Connection {
                send: Arc::new(send),
                budgets,
                closed,
                failed,
                life,
                quic,
                idle: self.timing.idle,
                peer,
                handshake,
            };
            self.connections
                .lock()
                .unwrap_or_else(PoisonError::into_inner)
                .insert((host.to_owned(), port), connection.clone());
            return Ok(connection);
        }
        Err(last_error.unwrap_or_else(|| {
            NetworkError::Connect(format!("{host} has no address to connect to").into())
        }))
    }

    /// The transport's endpoint, made at the first connection.
    fn endpoint(&self) -> Result<quinn::Endpoint, NetworkError> {
        let mut endpoint = self.endpoint.lock().unwrap_or_else(PoisonError::into_inner);
        if let Some(endpoint) = endpoint.as_ref() {
            return Ok(endpoint.clone());
        }
        // One socket for both families where the system allows it, else IPv4 alone.
        let made = quinn::Endpoint::client(SocketAddr::from((Ipv6Addr::UNSPECIFIED, 0)))
            .or_else(|_| quinn::Endpoint::client(SocketAddr::from(([0, 0, 0, 0], 0))))
            .map_err(|error| NetworkError::Connect(Box::new(error)))?;
        *endpoint = Some(made.clone());
        Ok(made)
    }
}

/// Follows the handshake of `connection`, which sends 0-RTT data: what `accepted`
/// resolves to, or a timeout after `connect_timeout`. A connection whose 0-RTT data was
/// rejected, or whose handshake failed or timed out, is closed (`closed` set), so that
/// no request is sent on it again.
fn watch_handshake(
    accepted: quinn::ZeroRttAccepted,
    quic: quinn::Connection,
    closed: &Arc<AtomicBool>,
    connect_timeout: Option<Duration>,
) -> tokio::sync::watch::Receiver<Handshake> {
    let (done, handshake) = tokio::sync::watch::channel(Handshake::Pending);
    let closed = Arc::clone(closed);
    tokio::spawn(async move {
        let outcome = match connect_timeout {
            Some(after) => match tokio::time::timeout(after, accepted).await {
                Ok(true) => Handshake::Accepted,
                Ok(false) => Handshake::Rejected,
                Err(_) => Handshake::TimedOut(after),
            },
            None => match accepted.await {
                true => Handshake::Accepted,
                false => Handshake::Rejected,
            },
        };
        if outcome != Handshake::Accepted {
            closed.store(true, Ordering::Release);
            quic.close(0u32.into(), b"0-RTT data not taken");
        }
        let _ = done.send(outcome);
    });
    handshake
}

/// What a connection calls once, when its path goes silent: it marks HTTP/3 broken for
/// the origin (the transport's alternative services).
pub(crate) type OnSilent = Box<dyn FnOnce() + Send>;

/// How [`H3Client::connect`] makes a connection.
pub(crate) struct Connect {
    /// Whether its first requests may go as 0-RTT data.
    pub(crate) early: bool,
    /// How long its handshake may take when they do.
    pub(crate) connect_timeout: Option<Duration>,
    /// Called if its path goes silent.
    pub(crate) on_silent: Option<OnSilent>,
}

/// What a connection's requests and the task watching it share.
struct Life {
    /// How many requests are in flight: from the sending of each until its response's
    /// body is done or dropped. [`CLOSING`] once the connection is closed for being idle.
    in_flight: AtomicUsize,
    /// When the last request in flight ended (at first, when the connection was made).
    idle_since: Mutex<Instant>,
    /// Set when the path went silent: how long what the server had to acknowledge had
    /// gone unanswered.
    silent: Mutex<Option<Duration>>,
    /// Wakes the task when a request starts or ends being in flight.
    changed: tokio::sync::Notify,
}

/// [`Life::in_flight`] of a connection closed for being idle: no request goes on it.
const CLOSING: usize = usize::MAX;

impl Life {
    fn new() -> Life {
        Life {
            in_flight: AtomicUsize::new(0),
            idle_since: Mutex::new(Instant::now()),
            silent: Mutex::new(None),
            changed: tokio::sync::Notify::new(),
        }
    }

    fn idle_since(&self) -> Instant {
        *self
            .idle_since
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn silent(&self) -> Option<Duration> {
        *self.silent.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Notes that the path went silent, what the server had to acknowledge unanswered
    /// for `unanswered`, and tells `on_silent` (once).
    fn went_silent(&self, unanswered: Duration, on_silent: &mut Option<OnSilent>) {
        self.silent
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_or_insert(unanswered);
        if let Some(on_silent) = on_silent.take() {
            on_silent();
        }
    }

    /// Closes the connection for being idle, unless a request is in flight: whether it
    /// did. A request that comes after finds it closing, and never goes on it.
    fn close_if_idle(&self) -> bool {
        self.in_flight
            .compare_exchange(0, CLOSING, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }
}

/// A request in flight on a connection: from the sending of the request until its
/// response's body is done or dropped.
struct InFlight(Arc<Life>);

impl InFlight {
    /// A request in flight on the connection of `life`; `None` if it is being closed for
    /// being idle.
    fn new(life: &Arc<Life>) -> Option<InFlight> {
        let before = life
            .in_flight
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |in_flight| {
                (in_flight != CLOSING).then(|| in_flight.saturating_add(1))
            })
            .ok()?;
        if before == 0 {
            life.changed.notify_one();
        }
        Some(InFlight(Arc::clone(life)))
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        if self.0.in_flight.fetch_sub(1, Ordering::AcqRel) == 1 {
            *self
                .0
                .idle_since
                .lock()
                .unwrap_or_else(PoisonError::into_inner) = Instant::now();
            self.0.changed.notify_one();
        }
    }
}

/// What [`watch_connection`] shares with the connection it watches.
struct Watched {
    closed: Arc<AtomicBool>,
    life: Arc<Life>,
    handshake: Option<tokio::sync::watch::Receiver<Handshake>>,
    on_silent: Option<OnSilent>,
}

/// h3's driver of a connection (its control streams, GOAWAY and close), which resolves
/// when the connection ends.
type Driving = Pin<Box<dyn Future<Output = h3::error::ConnectionError> + Send>>;

/// Drives and watches a connection until it ends:
/// - its path, found dead when what the server must acknowledge goes unanswered for
///   the keep-alive timeout ([`PathWatch`]): the connection is closed, marked silent for
///   its requests, and `on_silent` told;
/// - its idle time: with no request in flight for the idle timeout, it is closed.
///
/// It wakes when a request starts or ends being in flight, every eighth of the
/// keep-alive timeout while one is in flight or the server owes an answer, else every
/// half of the keep-alive interval (to see the PINGs quinn sends then) and at the end of
/// the idle timeout.
async fn watch_connection(
    mut driving: Driving,
    quic: quinn::Connection,
    watched: Watched,
    timing: H3Timing,
) {
    let Watched {
        closed,
        life,
        handshake,
        mut on_silent,
    } = watched;
    let mut path = PathWatch::new(&quic.stats());
    loop {
        let now = Instant::now();
        let busy = life.in_flight.load(Ordering::Acquire) > 0 || path.owed();
        let step = match busy {
            true => timing.dead_after / 8,
            false => timing.keep_alive / 2,
        };
        let mut wake = now.checked_add(step);
        if !busy {
            let idle_until = timing
                .idle_close()
                .and_then(|idle| life.idle_since().checked_add(idle));
            wake = match (wake, idle_until) {
                (Some(wake), Some(idle_until)) => Some(wake.min(idle_until)),
                (wake, idle_until) => wake.or(idle_until),
            };
        }
        let sleep = async {
            match wake {
                Some(wake) => tokio::time::sleep_until(wake.into()).await,
                None => std::future::pending().await,
            }
        };
        tokio::select! {
            _ = &mut driving => break,
            () = sleep => {}
            () = life.changed.notified() => {}
        }
        let now = Instant::now();
        // The path, once the handshake is done: the connect timeout bounds it before.
        let handshaking = handshake
            .as_ref()
            .is_some_and(|handshake| *handshake.borrow() == Handshake::Pending);
        if !handshaking {
            if let Some(unanswered) = path.check(&quic.stats(), now, timing.dead_after(&quic)) {
                life.went_silent(unanswered, &mut on_silent);
                closed.store(true, Ordering::Release);
                quic.close(H3_NO_ERROR, b"no answer from the server");
                break;
            }
        }
        let idle_for = now.saturating_duration_since(life.idle_since());
        let idle = timing.idle_close().is_some_and(|idle| idle_for >= idle);
        if idle && life.close_if_idle() {
            closed.store(true, Ordering::Release);
            quic.close(H3_NO_ERROR, b"idle");
            break;
        }
    }
    // quinn's own idle timeout: nothing heard for that long, PINGs and all.
    if let Some(quinn::ConnectionError::TimedOut) = quic.close_reason() {
        life.went_silent(timing.idle, &mut on_silent);
    }
    closed.store(true, Ordering::Release);
}

/// `H3_NO_ERROR` (RFC 9114 §8.1), the code of a connection closed for nothing wrong.
const H3_NO_ERROR: quinn::VarInt = quinn::VarInt::from_u32(0x100);

/// Finds a connection's path dead: something the server must acknowledge was sent (a
/// PING, a request: any frame but ACK, PADDING and CONNECTION_CLOSE, RFC 9000 §13.2.1),
/// and not one datagram came from the server since, for the keep-alive timeout. A live
/// server acknowledges within its `max_ack_delay` (25 ms by default, RFC 9000 §18.2),
/// and quinn repeats what is unacknowledged at each probe timeout (RFC 9002 §6.2), so a
/// path that carries anything answers long before. It reads quinn's counts: the
/// datagrams received and the ack-eliciting frames sent.
struct PathWatch {
    /// Datagrams received, at the last look.
    received: u64,
    /// Ack-eliciting frames sent, at the last look.
    eliciting: u64,
    /// Since when (as first seen) something sent has waited for the server's answer.
    owed_since: Option<Instant>,
}

impl PathWatch {
    fn new(stats: &quinn::ConnectionStats) -> PathWatch {
        PathWatch {
            received: stats.udp_rx.datagrams,
            eliciting: ack_eliciting(stats),
            owed_since: None,
        }
    }

    /// Whether the server owes an answer.
    fn owed(&self) -> bool {
        self.owed_since.is_some()
    }

    /// Notes what `stats` shows at `now`: how long the server has left what it owes
    /// unanswered, once that is `dead_after` or more.
    fn check(
        &mut self,
        stats: &quinn::ConnectionStats,
        now: Instant,
        dead_after: Duration,
    ) -> Option<Duration> {
        let received = stats.udp_rx.datagrams;
        let eliciting = ack_eliciting(stats);
        if received != self.received {
            self.received = received;
            self.eliciting = eliciting;
            self.owed_since = None;
            return None;
        }
        if eliciting != self.eliciting {
            self.eliciting = eliciting;
            self.owed_since.get_or_insert(now);
        }
        let unanswered = now.saturating_duration_since(self.owed_since?);
        (unanswered >= dead_after).then_some(unanswered)
    }
}

/// The ack-eliciting frames quinn has sent, less the PING of each MTU probe, which a path
/// drops for its size alone (RFC 8899).
fn ack_eliciting(stats: &quinn::ConnectionStats) -> u64 {
    let sent = &stats.frame_tx;
    [
        sent.ack_frequency,
        sent.crypto,
        sent.data_blocked,
        sent.datagram,
        sent.max_data,
        sent.max_stream_data,
        sent.max_streams_bidi,
        sent.max_streams_uni,
        sent.new_connection_id,
        sent.new_token,
        sent.path_challenge,
        sent.path_response,
        sent.ping,
        sent.reset_stream,
        sent.retire_connection_id,
        sent.stream_data_blocked,
        sent.streams_blocked_bidi,
        sent.streams_blocked_uni,
        sent.stop_sending,
        sent.stream,
    ]
    .iter()
    .fold(0u64, |total, count| total.wrapping_add(*count))
    .wrapping_sub(stats.path.sent_plpmtud_probes)
}

/// Whether `request` may go as 0-RTT data, which an attacker can replay (RFC 9001 §9.2):
/// a safe method (RFC 9110 §9.2.1) and no body, as RFC 8470 §2.1 advises.
fn may_go_early(request: &http::request::Parts, body: &RequestBody) -> bool {
    request.method.is_safe() && body.is_end_stream()
}

/// A request that failed on an HTTP/3 connection before its response head: why, and
/// whether it may be sent again (see the module's docs, "When a request goes again").
#[derive(Debug)]
pub(crate) struct H3Failure {
    pub(crate) error: NetworkError,
    pub(crate) may_resend: MayResend,
}

/// Which requests that failed may be sent again, by what is known of whether the server
/// processed them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MayResend {
    /// Any: the server cannot have processed it. It never went out (the connection had
    /// closed, or was closing, or it waited for a handshake that failed), its 0-RTT data
    /// was rejected, or the server refused it unprocessed (`H3_REQUEST_REJECTED`, or a
    /// `GOAWAY` before it was sent; RFC 9114 §4.1.1, §5.2).
    Any,
    /// An idempotent one (RFC 9110 §9.2.2): the path went silent under it, and not one
    /// datagram came from the server once it could have had it (see [`hearing`]), not
    /// even the acknowledgement a live server sends within its `max_ack_delay`.
    Idempotent,
    /// None: the server may have processed it.
    No,
}

impl H3Failure {
    /// A failure that may not be sent again.
    fn no(error: NetworkError) -> H3Failure {
        H3Failure {
            error,
            may_resend: MayResend::No,
        }
    }

    /// A failure before the request went out.
    fn unsent() -> H3Failure {
        H3Failure {
            error: NetworkError::Connect(
                "the HTTP/3 connection closed before the request was sent".into(),
            ),
            may_resend: MayResend::Any,
        }
    }
}

impl From<NetworkError> for H3Failure {
    fn from(error: NetworkError) -> H3Failure {
        H3Failure::no(error)
    }
}

/// Sends `request` on a new stream of `connection` and resolves to the response once its
/// head has arrived, each wait bounded by `read_timeout`, with what is known of the
/// exchange for its body. `timing` is the connection's, when this request opened it.
///
/// # Errors
/// The failure, and whether the request may be sent again ([`MayResend`]).
pub(crate) async fn send(
    connection: &H3Connection,
    request: Request<RequestBody>,
    read_timeout: Option<Duration>,
    timing: Option<Box<ConnectionTiming>>,
) -> Result<(Response<H3Body>, Recorded), H3Failure> {
    // In flight until its response's body is done: the connection is not closed for
    // being idle under it, and its path is watched.
    let in_flight = match connection.is_closed() {
        true => None,
        false => InFlight::new(&connection.life),
    };
    let Some(in_flight) = in_flight else {
        return Err(H3Failure::unsent());
    };
    if let Some(refused) = super::fields::refused_over(&request, "HTTP/3") {
        return Err(H3Failure::no(refused));
    }
    let (mut parts, body) = request.into_parts();
    // RFC 9114 §4.2: no connection-specific fields; the authority is `:authority`.
    for name in [
        http::header::CONNECTION,
        http::header::TRANSFER_ENCODING,
        http::header::UPGRADE,
        http::header::HOST,
        http::HeaderName::from_static("keep-alive"),
        http::HeaderName::from_static("proxy-connection"),
    ] {
        parts.headers.remove(name);
    }
    if parts
        .headers
        .get(http::header::TE)
        .is_some_and(|te| te != "trailers")
    {
        parts.headers.remove(http::header::TE);
    }
    parts.version = Version::HTTP_3;
    // A request that may not go as 0-RTT data waits for the handshake: lost with it, it
    // was never sent.
    if connection.in_early_data() && !may_go_early(&parts, &body) {
        if let Err(lost) = within(read_timeout, connection.handshake_done()).await? {
            return Err(H3Failure {
                error: lost,
                may_resend: MayResend::Any,
            });
        }
    }
    let request_start = Instant::now();
    // RFC 8470 §5.2: a request sent as 0-RTT data and answered `425 Too Early` is sent
    // again once the handshake is done, when it is no longer early.
    let again = connection.in_early_data().then(|| copy_head(&parts));
    let exchanging = async {
        match (exchange(connection, parts, body, read_timeout).await, again) {
            (Ok((head, _)), Some(again)) if head.status() == http::StatusCode::TOO_EARLY => {
                within(read_timeout, connection.handshake_done()).await??;
                exchange(connection, again, RequestBody::empty(), read_timeout).await
            }
            (exchanged, _) => exchanged,
        }
    };
    let (exchanged, heard) = hearing(connection, exchanging).await;
    let (head, receiving) = match exchanged {
        Ok(exchanged) => exchanged,
        Err(ExchangeError::Unsent(error)) => {
            return Err(H3Failure {
                error,
                may_resend: MayResend::Any,
            });
        }
        Err(ExchangeError::Failed(error)) => return Err(failure(connection, error, heard).await),
    };
    let response_start = Instant::now();
    let (parts, ()) = head.into_parts();
    let expected = parts
        .headers
        .get(http::header::CONTENT_LENGTH)
        .and_then(|value| value.to_str().ok())
        .and_then(|value| value.parse::<u64>().ok());
    let body = H3Body {
        recv: receiving,
        data_done: false,
        done: false,
        expected,
        received: 0,
        _connection: Arc::clone(&connection.send),
        in_flight: Some(in_flight),
        closed: Arc::clone(&connection.closed),
        failed: Arc::clone(&connection.failed),
    };
    let info = Recorded {
        timing,
        request_start,
        response_start,
        alpn: H3,
        secure: true,
        peer: connection.peer.clone(),
    };
    Ok((Response::from_parts(parts, body), info))
}

/// How a request's exchange failed: before it went out, or after.
#[derive(Debug)]
enum ExchangeError {
    /// The request never went out: it may be sent again, whatever its method.
    Unsent(NetworkError),
    /// Anything else, the request perhaps sent.
    Failed(NetworkError),
}

impl From<NetworkError> for ExchangeError {
    fn from(error: NetworkError) -> ExchangeError {
        ExchangeError::Failed(error)
    }
}

/// `exchanging`, a request's exchange on `connection`, and how many datagrams had come
/// from the server by the time it could first have answered the request: half the
/// connection's smallest round trip after it began. What came before that was on its way
/// before the server could have had the request, and says nothing of it.
async fn hearing<F: Future>(connection: &H3Connection, exchanging: F) -> (F::Output, u64) {
    let grace = connection.quic.min_rtt() / 2;
    tokio::pin!(exchanging);
    let mut heard = None;
    loop {
        tokio::select! {
            exchanged = &mut exchanging => {
                return (exchanged, heard.unwrap_or_else(|| connection.heard()));
            }
            () = tokio::time::sleep(grace), if heard.is_none() => {
                heard = Some(connection.heard());
            }
        }
    }
}

/// What a request that failed with `error` on `connection` may do next; the server had
/// sent `heard` datagrams by the time it could first have answered it (see [`hearing`]).
async fn failure(connection: &H3Connection, error: NetworkError, heard: u64) -> H3Failure {
    // A request lost with the 0-RTT data that carried it says why.
    if let Err(lost) = connection.handshake_done().await {
        return H3Failure {
            error: lost,
            may_resend: MayResend::Any,
        };
    }
    if let Some(unanswered) = connection.silent() {
        return H3Failure {
            error: NetworkError::Timeout {
                kind: TimeoutKind::KeepAlive,
                after: unanswered,
            },
            may_resend: match connection.heard() == heard {
                true => MayResend::Idempotent,
                false => MayResend::No,
            },
        };
    }
    H3Failure {
        may_resend: match refused(&error) {
            true => MayResend::Any,
            false => MayResend::No,
        },
        error,
    }
}

/// Whether `error` is the server's refusal of a request it did not process: its stream
/// reset or stopped with `H3_REQUEST_REJECTED` ("a server rejected a request without
/// performing any application processing", RFC 9114 §8.1), or a `GOAWAY` received before
/// it was sent (h3 then sends nothing).
fn refused(error: &NetworkError) -> bool {
    let NetworkError::Protocol(source) = error else {
        return false;
    };
    match source.downcast_ref::<h3::error::StreamError>() {
        Some(h3::error::StreamError::RemoteTerminate { code, .. }) => {
            *code == h3::error::Code::H3_REQUEST_REJECTED
        }
        Some(h3::error::StreamError::RemoteClosing { .. }) => true,
        _ => false,
    }
}

/// Sends the request `parts` and `body` on a new stream of `connection`, and resolves to
/// the response head once it has arrived, with the stream to read the body from.
async fn exchange(
    connection: &H3Connection,
    parts: http::request::Parts,
    body: RequestBody,
    read_timeout: Option<Duration>,
) -> Result<(Response<()>, h3::client::RequestStream<GuardedRecv, Bytes>), ExchangeError> {
    let mut send_request = (*connection.send).clone();
    // h3 refuses to open a stream on a connection that has failed (one that a malformed
    // frame on another stream closed an instant ago, before the pool saw it): the request
    // never went out. A HEADERS frame that h3 could not write whole cannot have been
    // processed either.
    let stream = within(
        read_timeout,
        send_request.send_request(Request::from_parts(parts, ())),
    )
    .await?
    .map_err(|error| ExchangeError::Unsent(connection.stream_error(error)))?;
    Ok(exchange_on(connection, stream, body, read_timeout).await?)
}

/// The rest of a request's exchange, once its stream is open and its head written: its
/// body, then the response head.
async fn exchange_on(
    connection: &H3Connection,
    stream: h3::client::RequestStream<GuardedBidi, Bytes>,
    body: RequestBody,
    read_timeout: Option<Duration>,
) -> Result<(Response<()>, h3::client::RequestStream<GuardedRecv, Bytes>), NetworkError> {
    let budget = connection.budgets.take(stream.id());
    let (mut sending, mut receiving) = stream.split();
    let mut upload = None;
    if body.is_end_stream() {
        within(read_timeout, sending.finish())
            .await?
            .map_err(|error| connection.stream_error(error))?;
    } else {
        match body.into_full() {
            Ok(bytes) => {
                within(read_timeout, sending.send_data(bytes))
                    .await?
                    .map_err(|error| connection.stream_error(error))?;
                within(read_timeout, sending.finish())
                    .await?
                    .map_err(|error| connection.stream_error(error))?;
            }
            // A stream is sent as it yields, beside the response.
            Err(body) => {
                let (failed, failure) = tokio::sync::oneshot::channel();
                let (cancel, cancelled) = tokio::sync::oneshot::channel();
                tokio::spawn(send_body(sending, body, failed, cancelled));
                upload = Some(Upload {
                    failed: failure,
                    cancel: Some(cancel),
                });
            }
        }
    }
    // The head, unless the body fails first: the server may never answer a request cut
    // short, and its error is the body's.
    let received = within(read_timeout, async {
        match upload.as_mut() {
            None => Ok(receiving.recv_response().await),
            Some(upload) => tokio::select! {
                head = receiving.recv_response() => Ok(head),
                Ok(error) = &mut upload.failed => Err(body_failed(error)),
            },
        }
    })
    .await;
    let received = match received {
        Ok(Ok(received)) => received,
        Ok(Err(failed)) => return Err(failed),
        Err(timeout) => return Err(timeout),
    };
    if received.is_err() {
        // The server ended the stream under a body that had failed: the body's error.
        if let Some(failed) = upload.as_mut().and_then(Upload::failure) {
            return Err(failed);
        }
    }
    let head = match received {
        Ok(head) => head,
        Err(_) if budget.as_ref().is_some_and(|budget| budget.spent()) => {
            return Err(field_section_over_the_limit("head is"));
        }
        Err(error) => return Err(connection.stream_error(error)),
    };
    // The head is in: the body is bounded by what its reader takes.
    if let Some(budget) = budget {
        budget.lift();
    }
    // And a request body still being sent goes on: its cancel is dropped unsent.
    if let Some(upload) = upload.as_mut() {
        upload.cancel = None;
    }
    Ok((head, receiving))
}

/// A copy of a request head: its method, target, version and fields.
fn copy_head(parts: &http::request::Parts) -> http::request::Parts {
    let mut copy = Request::new(());
    *copy.method_mut() = parts.method.clone();
    *copy.uri_mut() = parts.uri.clone();
    *copy.version_mut() = parts.version;
    *copy.headers_mut() = parts.headers.clone();
    copy.into_parts().0
}

/// The body of a request being streamed by [`send_body`], as its request sees it.
struct Upload {
    /// The body's own error, if it failed.
    failed: tokio::sync::oneshot::Receiver<BoxError>,
    /// Dropped unsent once the response head has come: the body goes on. Sent when the
    /// request is given up first (dropped, or past the read timeout): the stream is reset.
    cancel: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Upload {
    /// The request failed because its body did: that error, the same as over HTTP/1.1
    /// and HTTP/2.
    fn failure(&mut self) -> Option<NetworkError> {
        let error = self.failed.try_recv().ok()?;
        Some(body_failed(error))
    }
}

impl Drop for Upload {
    fn drop(&mut self) {
        if let Some(cancel) = self.cancel.take() {
            let _ = cancel.send(());
        }
    }
}

/// The error of a request whose body's stream failed with `error`.
fn body_failed(error: BoxError) -> NetworkError {
    NetworkError::Protocol(Box::new(H3Error {
        message: "the request body's stream failed",
        source: Some(error),
    }))
}

/// An error of an HTTP/3 request: what failed, and why.
#[derive(Debug)]
struct H3Error {
    message: &'static str,
    source: Option<BoxError>,
}

impl fmt::Display for H3Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message)
    }
}

impl std::error::Error for H3Error {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        self.source
            .as_deref()
            .map(|source| source as &(dyn std::error::Error + 'static))
    }
}

/// Sends a streamed request body on `sending`, then finishes the stream. A body that
/// fails resets it (`H3_REQUEST_CANCELLED`), so that the server never takes a cut body
/// whole, and leaves its error in `failed`; `cancelled` resets it too, when the request
/// is given up before its response. Each wait (the body's next chunk, the stream's flow
/// control) ends at the cancel; once the response has come, the body goes on for as
/// long as the server takes it.
async fn send_body(
    mut sending: h3::client::RequestStream<h3_quinn::SendStream<Bytes>, Bytes>,
    mut body: RequestBody,
    failed: tokio::sync::oneshot::Sender<BoxError>,
    cancelled: tokio::sync::oneshot::Receiver<()>,
) {
    // Resolves when the request is given up; never when the cancel is dropped unsent.
    let cancel = async {
        if cancelled.await.is_err() {
            std::future::pending::<()>().await;
        }
    };
    tokio::pin!(cancel);
    loop {
        let frame = tokio::select! {
            () = &mut cancel => break,
            frame = std::future::poll_fn(|cx| std::pin::Pin::new(&mut body).poll_frame(cx)) => frame,
        };
        let sent = match frame {
            Some(Ok(frame)) => match frame.into_data() {
                Ok(data) => tokio::select! {
                    () = &mut cancel => break,
                    sent = sending.send_data(data) => sent,
                },
                Err(frame) => match frame.into_trailers() {
                    Ok(trailers) => tokio::select! {
                        () = &mut cancel => break,
                        sent = sending.send_trailers(trailers) => sent,
                    },
                    Err(_) => continue,
                },
            },
            Some(Err(error)) => {
                let _ = failed.send(error);
                break;
            }
            None => {
                tokio::select! {
                    () = &mut cancel => break,
                    _ = sending.finish() => {}
                }
                return;
            }
        };
        // Stopped or reset by the server, or the connection gone: the response says why.
        if sent.is_err() {
            return;
        }
    }
    sending.stop_stream(h3::error::Code::H3_REQUEST_CANCELLED);
}

/// `future`, bounded by `timeout` when there is one.
async fn within<F: Future>(
    timeout: Option<Duration>,
    future: F,
) -> Result<F::Output, NetworkError> {
    match timeout {
        Some(after) => {
            tokio::time::timeout(after, future)
                .await
                .map_err(|_| NetworkError::Timeout {
                    kind: TimeoutKind::Idle,
                    after,
                })
        }
        None => Ok(future.await),
    }
}

/// A response body read from an HTTP/3 stream: its DATA frames, then its trailers.
pub(crate) struct H3Body {
    recv: h3::client::RequestStream<GuardedRecv, Bytes>,
    data_done: bool,
    done: bool,
    /// The response's `Content-Length`, to which the data is held (RFC 9114 §4.1.2).
    expected: Option<u64>,
    received: u64,
    /// The connection's handle, which keeps it open while the body is read: h3 closes a
    /// connection when its last handle goes (the transport's, once the client is
    /// dropped), whatever its streams still carry. As over HTTP/2, a connection closes
    /// once its transport and the bodies of its responses are gone.
    _connection: Arc<h3::client::SendRequest<GuardedOpener, Bytes>>,
    /// The request, in flight until the body is done or dropped.
    in_flight: Option<InFlight>,
    /// The connection's flag of being closed, set when the body meets a connection error.
    closed: Arc<AtomicBool>,
    /// The connection's [`H3Connection::failed`].
    failed: Arc<OnceLock<UniFailure>>,
}

impl H3Body {
    pub(crate) fn poll_frame(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, NetworkError>>> {
        if self.done {
            return Poll::Ready(None);
        }
        if !self.data_done {
            match self.recv.poll_recv_data(cx) {
                Poll::Ready(Ok(Some(mut data))) => {
                    let data = data.copy_to_bytes(data.remaining());
                    self.received = self.received.saturating_add(data.len() as u64);
                    if self
                        .expected
                        .is_some_and(|expected| self.received > expected)
                    {
                        return Poll::Ready(Some(Err(self.fail(NetworkError::LengthMismatch))));
                    }
                    return Poll::Ready(Some(Ok(Frame::data(data))));
                }
                Poll::Ready(Ok(None)) => {
                    self.data_done = true;
                    if self
                        .expected
                        .is_some_and(|expected| self.received != expected)
                    {
                        return Poll::Ready(Some(Err(self.fail(NetworkError::LengthMismatch))));
                    }
                }
                Poll::Ready(Err(error)) => {
                    // Cut short of its `Content-Length` by the server's quiet close, the
                    // body is of the wrong length, as a connection's end makes it over
                    // HTTP/1.1 and a quiet `RST_STREAM` or `GOAWAY` over HTTP/2. Cut by
                    // anything else (a connection that failed, the server's reset with an
                    // error), it is what cut it, with or without a length.
                    let cut_quietly = self.expected.is_some() && closed_quietly(&error);
                    let error = stream_error_on(&self.closed, &self.failed, error);
                    let error = match cut_quietly {
                        true => NetworkError::LengthMismatch,
                        false => error,
                    };
                    return Poll::Ready(Some(Err(self.fail(error))));
                }
                Poll::Pending => return Poll::Pending,
            }
        }
        match self.recv.poll_recv_trailers(cx) {
            Poll::Ready(Ok(trailers)) => {
                self.done = true;
                self.in_flight = None;
                Poll::Ready(trailers.map(|trailers| Ok(Frame::trailers(trailers))))
            }
            // Trailers over the limit of a head, said as the head's limit is said.
            Poll::Ready(Err(h3::error::StreamError::HeaderTooBig { .. })) => {
                let error = field_section_over_the_limit("trailers are");
                Poll::Ready(Some(Err(self.fail(error))))
            }
            Poll::Ready(Err(error)) => {
                let error = stream_error_on(&self.closed, &self.failed, error);
                Poll::Ready(Some(Err(self.fail(error))))
            }
            Poll::Pending => Poll::Pending,
        }
    }

    /// Ends the body with `error`, telling the server to stop sending.
    fn fail(&mut self, error: NetworkError) -> NetworkError {
        self.done = true;
        self.in_flight = None;
        self.recv
            .stop_sending(h3::error::Code::H3_REQUEST_CANCELLED);
        error
    }

    pub(crate) fn is_end_stream(&self) -> bool {
        self.done
    }

    pub(crate) fn size_hint(&self) -> SizeHint {
        match self.expected {
            Some(expected) => SizeHint::with_exact(expected.saturating_sub(self.received)),
            None => SizeHint::default(),
        }
    }
}

impl Drop for H3Body {
    fn drop(&mut self) {
        // A body dropped before its end: the server stops sending it (RFC 9114 §4.1.1).
        if !self.done {
            self.recv
                .stop_sending(h3::error::Code::H3_REQUEST_CANCELLED);
        }
    }
}

/// Whether `error` is the server's close, blaming no one, of a body's stream or of its
/// connection: the stream reset with `H3_NO_ERROR` or `H3_REQUEST_CANCELLED`, or the
/// connection closed with `H3_NO_ERROR` (RFC 9114 §8.1). HTTP/2's `NO_ERROR` and `CANCEL`
/// are taken the same way (see `H2Body::failed`).
fn closed_quietly(error: &h3::error::StreamError) -> bool {
    use h3::error::{Code, ConnectionError, StreamError};
    use h3::quic::ConnectionErrorIncoming;
    match error {
        StreamError::RemoteTerminate { code, .. } => {
            *code == Code::H3_NO_ERROR || *code == Code::H3_REQUEST_CANCELLED
        }
        // (Variants h3 marks `non_exhaustive`, matched by field.)
        StreamError::ConnectionError {
            0:
                ConnectionError::Remote {
                    0: ConnectionErrorIncoming::ApplicationClose { error_code },
                    ..
                },
            ..
        } => *error_code == Code::H3_NO_ERROR.value(),
        _ => false,
    }
}

/// What a request stream may still deliver before its response head is in; lifted
/// (`u64::MAX`) once the head is.
#[derive(Debug)]
struct HeadBudget(AtomicU64);

impl HeadBudget {
    /// Takes `bytes` from the budget: `false` when they are more than is left, which
    /// spends it all.
    fn take(&self, bytes: u64) -> bool {
        let taken = self
            .0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |left| match left {
                u64::MAX => Some(u64::MAX),
                left => left.checked_sub(bytes),
            });
        if taken.is_err() {
            self.0.store(0, Ordering::Release);
        }
        taken.is_ok()
    }

    /// Spends what is left of the budget, unless it was lifted.
    fn spend(&self) {
        let _ = self
            .0
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |left| {
                (left != u64::MAX).then_some(0)
            });
    }

    fn spent(&self) -> bool {
        self.0.load(Ordering::Acquire) == 0
    }

    fn lift(&self) {
        self.0.store(u64::MAX, Ordering::Release);
    }
}

/// The head budgets of a connection's request streams, by stream, from when a stream is
/// opened (inside h3) until its request takes it.
#[derive(Clone, Default)]
struct Budgets(Arc<Mutex<HashMap<h3::quic::StreamId, Arc<HeadBudget>>>>);

impl Budgets {
    /// A new budget for the stream `id`.
    fn open(&self, id: h3::quic::StreamId) -> Arc<HeadBudget> {
        let budget = Arc::new(HeadBudget(AtomicU64::new(HEAD_BUDGET)));
        let mut budgets = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        // A stream opened and never taken (its request failed first) is let go here.
        if budgets.len() >= 64 {
            budgets.retain(|_, budget| Arc::strong_count(budget) > 1);
        }
        budgets.insert(id, Arc::clone(&budget));
        budget
    }

    /// The budget of the stream `id`, for its request.
    fn take(&self, id: h3::quic::StreamId) -> Option<Arc<HeadBudget>> {
        self.0
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(&id)
    }
}

/// h3-quinn's connection with every request stream held to [`HEAD_BUDGET`] bytes until
/// its response head is in: past it the stream fails, rather than h3 buffering a
/// `HEADERS` frame of any declared length; and the streams the server opens read through
/// a [`UniScanner`], which fails the connection rather than let h3 buffer them.
struct Guarded {
    inner: h3_quinn::Connection,
    /// Opens the guarded streams: for h3's request handles, and for the connection.
    opener: GuardedOpener,
    /// Why a stream the server opened failed the connection, once one has: the code h3
    /// is to close it with.
    failed: Arc<OnceLock<UniFailure>>,
}

/// [`Guarded`]'s opener of streams, which h3's request handles share.
#[derive(Clone)]
pub(crate) struct GuardedOpener {
    inner: h3_quinn::OpenStreams,
    budgets: Budgets,
}

/// A stream of a [`Guarded`] connection, held to its head budget: a request stream, or
/// its receiving half once split.
pub(crate) struct GuardedStream<S> {
    inner: S,
    budget: Arc<HeadBudget>,
    /// Whether a read is in flight: the last `poll_data` was pending. h3-quinn's stream
    /// then lies inside that read, where its `stop_sending` cannot reach it (it unwraps
    /// the stream, and panics), so none is asked of it (see `stop_sending` below).
    reading: bool,
    /// The stream's frames as they arrive, its empty `DATA` frames taken out.
    frames: FrameScanner,
}

/// A request stream of a [`Guarded`] connection.
pub(crate) type GuardedBidi = GuardedStream<h3_quinn::BidiStream<Bytes>>;

/// The receiving half of a [`GuardedBidi`].
pub(crate) type GuardedRecv = GuardedStream<h3_quinn::RecvStream>;

impl h3::quic::OpenStreams<Bytes> for GuardedOpener {
    type BidiStream = GuardedBidi;
    type SendStream = h3_quinn::SendStream<Bytes>;

    fn poll_open_bidi(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<GuardedBidi, h3::quic::StreamErrorIncoming>> {
        use h3::quic::SendStream;
        match h3::quic::OpenStreams::<Bytes>::poll_open_bidi(&mut self.inner, cx) {
            Poll::Ready(Ok(stream)) => {
                let budget = self.budgets.open(stream.send_id());
                Poll::Ready(Ok(GuardedStream {
                    inner: stream,
                    budget,
                    reading: false,
                    frames: FrameScanner::default(),
                }))
            }
            Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
            Poll::Pending => Poll::Pending,
        }
    }

    fn poll_open_send(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Self::SendStream, h3::quic::StreamErrorIncoming>> {
        h3::quic::OpenStreams::<Bytes>::poll_open_send(&mut self.inner, cx)
    }

    fn close(&mut self, code: h3::error::Code, reason: &[u8]) {
        h3::quic::OpenStreams::<Bytes>::close(&mut self.inner, code, reason);
    }
}

impl h3::quic::OpenStreams<Bytes> for Guarded {
    type BidiStream = GuardedBidi;
    type SendStream = h3_quinn::SendStream<Bytes>;

    fn poll_open_bidi(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<GuardedBidi, h3::quic::StreamErrorIncoming>> {
        self.opener.poll_open_bidi(cx)
    }

    fn poll_open_send(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Self::SendStream, h3::quic::StreamErrorIncoming>> {
        self.opener.poll_open_send(cx)
    }

    /// Closes the connection with `code`, or, when a stream the server opened failed it,
    /// with that stream's code and reason: h3 knows the failure only as an error of the
    /// QUIC layer, and closes with `H3_INTERNAL_ERROR` for it.
    fn close(&mut self, code: h3::error::Code, reason: &[u8]) {
        let (code, reason) = match self.failed.get() {
            Some(failure) => (failure.code, failure.reason.as_bytes()),
            None => (code, reason),
        };
        h3::quic::OpenStreams::<Bytes>::close(&mut self.opener, code, reason);
    }
}

impl h3::quic::Connection<Bytes> for Guarded {
    type RecvStream = GuardedUni;
    type OpenStreams = GuardedOpener;

    fn poll_accept_recv(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<GuardedUni, h3::quic::ConnectionErrorIncoming>> {
        use h3::quic::RecvStream;
        match h3::quic::Connection::<Bytes>::poll_accept_recv(&mut self.inner, cx) {
            Poll::Ready(Ok(stream)) => Poll::Ready(Ok(GuardedUni {
                id: stream.recv_id(),
                inner: stream,
                reading: false,
                scanner: UniScanner::default(),
                failed: Arc::clone(&self.failed),
            })),
            Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
            Poll::Pending => Poll::Pending,
        }
    }

    fn poll_accept_bidi(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<GuardedBidi, h3::quic::ConnectionErrorIncoming>> {
        match h3::quic::Connection::<Bytes>::poll_accept_bidi(&mut self.inner, cx) {
            // A server opens no request stream (RFC 9114 §6.1): none is taken.
            Poll::Ready(Ok(stream)) => Poll::Ready(Ok(GuardedStream {
                inner: stream,
                budget: Arc::new(HeadBudget(AtomicU64::new(0))),
                reading: false,
                frames: FrameScanner::default(),
            })),
            Poll::Ready(Err(error)) => Poll::Ready(Err(error)),
            Poll::Pending => Poll::Pending,
        }
    }

    fn opener(&self) -> GuardedOpener {
        self.opener.clone()
    }
}

impl h3::quic::SendStream<Bytes> for GuardedBidi {
    fn poll_ready(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), h3::quic::StreamErrorIncoming>> {
        self.inner.poll_ready(cx)
    }

    fn send_data<T: Into<h3::quic::WriteBuf<Bytes>>>(
        &mut self,
        data: T,
    ) -> Result<(), h3::quic::StreamErrorIncoming> {
        self.inner.send_data(data)
    }

    fn poll_finish(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<(), h3::quic::StreamErrorIncoming>> {
        self.inner.poll_finish(cx)
    }

    fn reset(&mut self, reset_code: u64) {
        self.inner.reset(reset_code);
    }

    fn send_id(&self) -> h3::quic::StreamId {
        self.inner.send_id()
    }
}

/// The data of a guarded stream, held to its budget (past it, an error), less its empty
/// `DATA` frames (see [`FrameScanner`]).
impl<S: h3::quic::RecvStream<Buf = Bytes>> h3::quic::RecvStream for GuardedStream<S> {
    type Buf = Bytes;

    fn poll_data(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Option<Bytes>, h3::quic::StreamErrorIncoming>> {
        if self.frames.ended {
            return Poll::Ready(Ok(None));
        }
        if let Some(error) = self.frames.refused.take() {
            return Poll::Ready(Err(unknown(error)));
        }
        let GuardedStream {
            inner,
            budget,
            reading,
            frames,
        } = self;
        poll_scanned(inner, reading, cx, |chunk| {
            let Some(data) = chunk else {
                return frames.end().map_err(unknown);
            };
            if !budget.take(data.len() as u64) {
                return Err(unknown(format!(
                    "the response head passed {HEAD_BUDGET} bytes"
                )));
            }
            frames.scan(data).map(Some).map_err(|error| {
                // Before the head is in, this is the head's limit speaking.
                budget.spend();
                unknown(error)
            })
        })
    }

    /// Tells the server to stop sending (`STOP_SENDING`), unless a read is in flight:
    /// h3-quinn holds the stream inside it and would panic. The body stopped then is
    /// being dropped (a timeout or an abort ending it while it waits for data), and
    /// quinn stops a stream dropped before its end itself, with code 0, which the server
    /// takes as `H3_NO_ERROR` (RFC 9114 §8.1: an unknown code is treated as such).
    fn stop_sending(&mut self, error_code: u64) {
        if !self.reading {
            self.inner.stop_sending(error_code);
        }
    }

    fn recv_id(&self) -> h3::quic::StreamId {
        self.inner.recv_id()
    }
}

impl h3::quic::BidiStream<Bytes> for GuardedBidi {
    type SendStream = h3_quinn::SendStream<Bytes>;
    type RecvStream = GuardedRecv;

    fn split(self) -> (h3_quinn::SendStream<Bytes>, GuardedRecv) {
        let (send, recv) = self.inner.split();
        let recv = GuardedStream {
            inner: recv,
            budget: self.budget,
            reading: self.reading,
            frames: self.frames,
        };
        (send, recv)
    }
}

/// A unidirectional stream the server opened (RFC 9114 §6.2), read through a
/// [`UniScanner`].
pub(crate) struct GuardedUni {
    inner: h3_quinn::RecvStream,
    /// The stream's ID, taken when it was accepted: h3-quinn's `recv_id`, like its
    /// `stop_sending`, panics while a read is in flight.
    id: h3::quic::StreamId,
    /// Whether a read is in flight (see [`GuardedStream`]'s).
    reading: bool,
    scanner: UniScanner,
    /// The connection's [`Guarded::failed`], which this stream sets when it fails it.
    failed: Arc<OnceLock<UniFailure>>,
}

/// The data of a stream the server opened, as [`UniScanner`] hands it on; a stream that
/// breaks its rules fails the connection.
impl h3::quic::RecvStream for GuardedUni {
    type Buf = Bytes;

    fn poll_data(
        &mut self,
        cx: &mut Context<'_>,
    ) -> Poll<Result<Option<Bytes>, h3::quic::StreamErrorIncoming>> {
        if self.scanner.ended() {
            return Poll::Ready(Ok(None));
        }
        let GuardedUni {
            inner,
            reading,
            scanner,
            failed,
            ..
        } = self;
        poll_scanned(inner, reading, cx, |chunk| {
            let Some(data) = chunk else {
                // On the control stream, an error h3 closes the connection for anyway
                // (`H3_CLOSED_CRITICAL_STREAM`, RFC 9114 §6.2.1).
                return scanner.end().map_err(unknown);
            };
            scanner.scan(data).map(Some).map_err(|failure| {
                // h3 takes an internal error of the QUIC layer for the connection's, on
                // any stream, and closes it; `Guarded::close` gives it this code.
                let reason = failure.reason.clone();
                let _ = failed.set(failure);
                h3::quic::StreamErrorIncoming::ConnectionErrorIncoming {
                    connection_error: h3::quic::ConnectionErrorIncoming::InternalError(reason),
                }
            })
        })
    }

    /// Tells the server to stop sending, unless a read is in flight (see
    /// [`GuardedStream`]'s `stop_sending`). h3 stops a stream of an unknown type once it
    /// has read the type, no read in flight then.
    fn stop_sending(&mut self, error_code: u64) {
        if !self.reading {
            self.inner.stop_sending(error_code);
        }
    }

    fn recv_id(&self) -> h3::quic::StreamId {
        self.id
    }
}

/// Why a stream the server opened fails the connection: the error code to close it with,
/// and the reason, which the requests on the connection fail with (see
/// [`stream_error_on`]).
#[derive(Debug)]
struct UniFailure {
    code: h3::error::Code,
    reason: String,
}

/// The stream type of the control stream (RFC 9114 §6.2.1).
const CONTROL_STREAM: u64 = 0x00;

/// The stream type of a push stream (RFC 9114 §6.2.2).
const PUSH_STREAM: u64 = 0x01;

/// A unidirectional stream the server opened, read as it arrives (RFC 9114 §6.2: its
/// type, a variable-length integer, then what the type says), for what h3 0.0.8 would
/// keep of it without bound, or take without the error RFC 9114 asks for. By its type:
///
/// - **Control** (0x00, §6.2.1): h3 reads its frames for as long as the connection lives,
///   and keeps each frame other than `DATA` until all of it has come, whatever length it
///   declares, a frame of an unknown type too (which it then skips, §7.2.8): a server
///   declaring 4 GiB and sending on has the client keep all it sends, and QUIC grants it
///   more as h3 reads. Its frames are held to [`MAX_FRAME_PAYLOAD`] (a [`FrameScanner`]
///   that takes nothing out); past it, the connection is closed with `H3_EXCESSIVE_LOAD`.
///   RFC 9114 §10.5 allows it: "Implementations SHOULD track the use of these features
///   and set limits on their use. An endpoint MAY treat activity that is suspicious as a
///   connection error of type H3_EXCESSIVE_LOAD", unknown protocol elements among them.
/// - **Push** (0x01): "A client MUST treat receipt of a push stream as a connection error
///   of type H3_ID_ERROR when no MAX_PUSH_ID frame has been sent" (§4.6), and this client
///   sends none (h3 0.0.8 cannot). h3 drops the stream (quinn stops it) without the
///   error: the connection is closed here with `H3_ID_ERROR`.
/// - **QPACK encoder and decoder** (0x02, 0x03; RFC 9204 §4.2): h3 0.0.8 reads neither
///   past its type. What follows waits in quinn's receive buffer, which takes no more
///   than the stream's flow-control window, as quinn grants more only as the stream is
///   read. (The client announces no dynamic table, `SETTINGS_QPACK_MAX_TABLE_CAPACITY`
///   being 0 unless sent, RFC 9204 §5, so the encoder stream has nothing to carry but a
///   capacity of 0.) Handed on as they come.
/// - **Any other**: "Recipients of unknown stream types MUST either abort reading of the
///   stream or discard incoming data without further processing" (§6.2); h3 aborts
///   reading (`STOP_SENDING` with `H3_STREAM_CREATION_ERROR`) once it has the type, and
///   drops the stream. Handed on as they come.
///
/// Memory: the bytes of a stream type (8 at most), then on the control stream a
/// [`FrameScanner`]'s.
#[derive(Default)]
struct UniScanner {
    kind: UniKind,
}

/// A [`UniScanner`]'s stream, by its type.
enum UniKind {
    /// The type's bytes in so far, not yet a whole variable-length integer.
    Unread { bytes: [u8; 8], held: usize },
    /// The control stream: its frames scanned.
    Control(FrameScanner),
    /// Another type: handed on unscanned.
    Other,
}

impl Default for UniKind {
    fn default() -> UniKind {
        UniKind::Unread {
            bytes: [0; 8],
            held: 0,
        }
    }
}

impl UniScanner {
    /// `chunk`, the stream's next bytes, as h3 is to read them: all of them, but on the
    /// control stream the start of a frame header at its end (held back, see
    /// [`FrameScanner::scan`]).
    ///
    /// # Errors
    /// The connection's failure: a push stream, or a frame on the control stream
    /// declaring more than [`MAX_FRAME_PAYLOAD`].
    fn scan(&mut self, chunk: Bytes) -> Result<Bytes, UniFailure> {
        let (bytes, held) = match &mut self.kind {
            UniKind::Control(frames) => return frames.scan(chunk).map_err(excessive_load),
            UniKind::Other => return Ok(chunk),
            UniKind::Unread { bytes, held } => (bytes, held),
        };
        // The stream type, handed on as it comes (eight bytes always hold a whole one).
        let more = bytes.len().saturating_sub(*held).min(chunk.len());
        if let (Some(into), Some(from)) = (bytes.get_mut(*held..*held + more), chunk.get(..more)) {
            into.copy_from_slice(from);
        }
        let Some((kind, size)) = read_varint(bytes.get(..*held + more).unwrap_or_default()) else {
            *held += more;
            return Ok(chunk);
        };
        // The bytes of the type in this chunk; the stream's frames, if any, after them.
        let here = size.saturating_sub(*held).min(chunk.len());
        match kind {
            // RFC 9114 §6.2.1: frames, SETTINGS first, for as long as the connection lives.
            CONTROL_STREAM => {
                let mut frames = FrameScanner {
                    control: true,
                    ..FrameScanner::default()
                };
                let rest = frames.scan(chunk.slice(here..)).map_err(excessive_load)?;
                self.kind = UniKind::Control(frames);
                let mut kept = Kept::default();
                kept.push(&chunk, 0, here);
                kept.push(&rest, 0, rest.len());
                Ok(kept.into_bytes())
            }
            // RFC 9114 §4.6: no MAX_PUSH_ID was sent, so no push stream is allowed.
            PUSH_STREAM => Err(UniFailure {
                code: h3::error::Code::H3_ID_ERROR,
                reason: "the server opened a push stream, and the client allows none: it \
                         sends no MAX_PUSH_ID (RFC 9114 §4.6, H3_ID_ERROR)"
                    .to_owned(),
            }),
            // QPACK's streams, left unread by h3; RFC 9114 §6.2: an unknown type's, whose
            // reading h3 aborts.
            _ => {
                self.kind = UniKind::Other;
                Ok(chunk)
            }
        }
    }

    /// What is left to hand on at the end of the stream (see [`FrameScanner::end`]).
    ///
    /// # Errors
    /// The control stream ended inside a frame's payload.
    fn end(&mut self) -> Result<Option<Bytes>, String> {
        match &mut self.kind {
            UniKind::Control(frames) => frames.end(),
            _ => Ok(None),
        }
    }

    /// Whether the stream has ended and what was held back was handed on.
    fn ended(&self) -> bool {
        matches!(&self.kind, UniKind::Control(frames) if frames.ended)
    }
}

/// The failure of a frame on the control stream over [`MAX_FRAME_PAYLOAD`], `error` saying
/// which.
fn excessive_load(error: String) -> UniFailure {
    UniFailure {
        code: h3::error::Code::H3_EXCESSIVE_LOAD,
        reason: format!(
            "on the server's control stream, {error} (RFC 9114 §10.5, H3_EXCESSIVE_LOAD)"
        ),
    }
}

/// The most chunks a stream reads in one poll while each holds nothing but empty `DATA`
/// frames (see [`poll_scanned`]).
const CHUNKS_PER_POLL: usize = 16;

/// Reads `inner`'s chunks through `scan`, which makes of each what h3 is to read of it, and
/// of the stream's end (`None`) what is left: a chunk of which nothing is to be read (empty
/// `DATA` frames, the start of a frame header held back) is not handed on, and the next one
/// is read. A peer sending nothing else is read from for [`CHUNKS_PER_POLL`] chunks a poll,
/// and the task then yields, so that it cannot hold a thread. `reading` is kept to whether
/// a read is in flight.
fn poll_scanned<S: h3::quic::RecvStream<Buf = Bytes>>(
    inner: &mut S,
    reading: &mut bool,
    cx: &mut Context<'_>,
    mut scan: impl FnMut(Option<Bytes>) -> Result<Option<Bytes>, h3::quic::StreamErrorIncoming>,
) -> Poll<Result<Option<Bytes>, h3::quic::StreamErrorIncoming>> {
    for _ in 0..CHUNKS_PER_POLL {
        let polled = inner.poll_data(cx);
        *reading = polled.is_pending();
        let chunk = match polled {
            Poll::Ready(Ok(chunk)) => chunk,
            polled => return polled,
        };
        let end = chunk.is_none();
        match scan(chunk) {
            Ok(Some(kept)) if kept.is_empty() && !end => continue,
            scanned => return Poll::Ready(scanned),
        }
    }
    cx.waker().wake_by_ref();
    Poll::Pending
}

/// The error of a response's head or trailers past [`MAX_FIELD_SECTION_SIZE`]: `what`
/// says which, with its verb ("head is", "trailers are").
fn field_section_over_the_limit(what: &str) -> NetworkError {
    NetworkError::Protocol(
        format!(
            "the HTTP/3 response {what} over {} KiB (the client's limit)",
            MAX_FIELD_SECTION_SIZE / 1024
        )
        .into(),
    )
}

/// An error of a stream's own, for h3.
fn unknown(error: String) -> h3::quic::StreamErrorIncoming {
    h3::quic::StreamErrorIncoming::Unknown(error.into())
}

/// The longest payload of a frame other than `DATA` taken on a request stream or on the
/// server's control stream: what bounds h3's buffer of it, as h3 keeps a frame until all
/// of it has come, whatever length it declares. A `HEADERS` frame of trailers is at most
/// [`MAX_FIELD_SECTION_SIZE`]; [`HEAD_BUDGET`] leaves room over that for a frame of an
/// extension. (The response head is held to its own budget before it.) The frames
/// HTTP/3 sends on a control stream are far shorter (`SETTINGS`, `GOAWAY`: a few
/// variable-length integers), and so are those of its extensions (`PRIORITY_UPDATE`, RFC
/// 9218 §7.2; `ORIGIN`, RFC 9412, a list of origins): one limit serves both.
const MAX_FRAME_PAYLOAD: u64 = HEAD_BUDGET;

/// The frames of a request stream as they arrive (RFC 9114 §7.1: a type and a length,
/// each a variable-length integer, then the payload), scanned so that the empty `DATA`
/// frames among them are taken out before h3 reads them, and the other frames held to
/// [`MAX_FRAME_PAYLOAD`]. On the server's control stream (see [`UniScanner`]), the
/// frames are held to that limit alone.
///
/// An empty `DATA` frame is legal anywhere in a body (RFC 9114 §7.2.1), and carries
/// nothing; Caddy sends one in the middle of a body it compresses on the fly. h3 0.0.8
/// (the latest release) takes one for the end of the body: `poll_recv_data` answers "no
/// more data", the trailers are read next, and the `DATA` frame after it is a connection
/// error (`H3_FRAME_UNEXPECTED`), which closes the connection and every request on it.
/// Taken out here, they never reach h3. (The fix belongs in h3, and is offered there;
/// this stays until a release has it.)
///
/// Memory: the bytes of one frame header at most (16), held back until the header is
/// whole, for it may be an empty `DATA` frame's.
#[derive(Default)]
struct FrameScanner {
    /// The bytes of a frame header not all in yet.
    header: [u8; 16],
    /// How many bytes of `header` are in.
    held: usize,
    /// The bytes of the current frame's payload still to come, passed on as they are.
    payload: u64,
    /// Set at a frame that runs to the end of the stream (WebTransport's, which h3
    /// knows, and a response stream never carries): the rest is passed on unscanned.
    unframed: bool,
    /// Set on the control stream: an empty `DATA` frame is handed on like any other, for
    /// h3 to refuse (RFC 9114 §7.2.1: "If a DATA frame is received on a control stream,
    /// the recipient MUST respond with a connection error of type H3_FRAME_UNEXPECTED").
    control: bool,
    /// Set once the stream has ended and what was held back was handed on.
    ended: bool,
    /// On a request stream, the error of a frame over [`MAX_FRAME_PAYLOAD`] that came in
    /// one chunk behind bytes to hand on (a response head, a body's data): those go
    /// first, and the stream's next read is this error. Failing at once would fail the
    /// response's head for a frame behind it.
    refused: Option<String>,
}

/// A frame header as [`FrameScanner`] reads it.
enum FrameHeader {
    /// Not all in yet.
    Partial,
    /// Its type, its payload's length, and its own length in bytes.
    Whole { kind: u64, length: u64, size: usize },
}

/// The frame type of `DATA` (RFC 9114 §7.2.1).
const DATA_FRAME: u64 = 0x00;

/// The frame type h3 reads as the start of a WebTransport stream, which has no length.
const WEBTRANSPORT_STREAM_FRAME: u64 = 0x41;

impl FrameScanner {
    /// `chunk`, the stream's next bytes, less the empty `DATA` frames in it and the start
    /// of a frame header at its end (held back), with the header held back from before
    /// it if that is not an empty `DATA` frame's. Empty when nothing is left to hand on.
    ///
    /// # Errors
    /// A frame other than `DATA` declaring a payload over [`MAX_FRAME_PAYLOAD`].
    fn scan(&mut self, chunk: Bytes) -> Result<Bytes, String> {
        let mut kept = Kept::default();
        let mut at = 0;
        // Where the bytes of `chunk` to hand on start.
        let mut run = 0;
        while at < chunk.len() && !self.unframed {
            let rest = chunk.get(at..).unwrap_or_default();
            if self.payload > 0 {
                let passed = usize::try_from(self.payload)
                    .map_or(rest.len(), |payload| payload.min(rest.len()));
                at += passed;
                self.payload -= passed as u64;
                continue;
            }
            // A frame header: what was held back, then this chunk. (Sixteen bytes always
            // hold a whole one, so what is held back is less.)
            let mut header = self.header;
            let more = (header.len() - self.held).min(rest.len());
            if let (Some(into), Some(from)) = (
                header.get_mut(self.held..self.held + more),
                rest.get(..more),
            ) {
                into.copy_from_slice(from);
            }
            match read_frame_header(header.get(..self.held + more).unwrap_or_default()) {
                FrameHeader::Partial => {
                    // The rest of the chunk starts a header: held back.
                    kept.push(&chunk, run, at);
                    self.header = header;
                    self.held += more;
                    at += more;
                    run = at;
                }
                FrameHeader::Whole { kind, length, size } => {
                    // What was held back was not a whole header: some of it is here.
                    let here = size.saturating_sub(self.held);
                    if kind == DATA_FRAME && length == 0 && !self.control {
                        // Nothing to hand on: the header is dropped, held part and all.
                        kept.push(&chunk, run, at);
                        run = at + here;
                    } else {
                        if kind != DATA_FRAME && length > MAX_FRAME_PAYLOAD {
                            let error = format!(
                                "an HTTP/3 frame of type {kind:#x} declares {length} bytes, \
                                 over the client's limit of {MAX_FRAME_PAYLOAD}"
                            );
                            kept.push(&chunk, run, at);
                            let kept = kept.into_bytes();
                            if kept.is_empty() || self.control {
                                return Err(error);
                            }
                            self.refused = Some(error);
                            return Ok(kept);
                        }
                        // The held part goes first (`at` is 0 here, and so is `run`).
                        kept.push_held(self.header.get(..self.held).unwrap_or_default());
                        self.payload = length;
                        self.unframed = kind == WEBTRANSPORT_STREAM_FRAME;
                    }
                    self.held = 0;
                    at += here;
                }
            }
        }
        kept.push(&chunk, run, chunk.len());
        Ok(kept.into_bytes())
    }

    /// What is left to hand on at the end of the stream: a frame header cut short, which
    /// h3 reads as the error it is.
    ///
    /// # Errors
    /// The stream ended inside a frame's payload: "if the last frame on the stream was
    /// truncated, this MUST be treated as a connection error of type H3_FRAME_ERROR" (RFC
    /// 9114 §7.1). h3 0.0.8 takes the end of a `DATA` frame cut short for the end of the
    /// body, then asserts (a panic) when it reads on for trailers; it never sees it.
    /// DEVIATION: the request fails with this error, and the connection is left to live:
    /// its other requests are the peer's to answer or not.
    fn end(&mut self) -> Result<Option<Bytes>, String> {
        self.ended = true;
        if self.payload > 0 && !self.unframed {
            return Err(format!(
                "the server ended the HTTP/3 stream {} bytes before the end of a frame's \
                 payload (RFC 9114 §7.1)",
                self.payload
            ));
        }
        let held = self.header.get(..self.held).unwrap_or_default();
        Ok((!held.is_empty()).then(|| Bytes::copy_from_slice(held)))
    }
}

/// A frame header at the start of `bytes` (at most 16 of them): a type and a length, each
/// a variable-length integer (RFC 9000 §16). WebTransport's frame has a type alone.
fn read_frame_header(bytes: &[u8]) -> FrameHeader {
    let Some((kind, kind_size)) = read_varint(bytes) else {
        return FrameHeader::Partial;
    };
    if kind == WEBTRANSPORT_STREAM_FRAME {
        return FrameHeader::Whole {
            kind,
            length: 0,
            size: kind_size,
        };
    }
    match bytes.get(kind_size..).and_then(read_varint) {
        Some((length, length_size)) => FrameHeader::Whole {
            kind,
            length,
            size: kind_size + length_size,
        },
        None => FrameHeader::Partial,
    }
}

/// A variable-length integer at the start of `bytes` (RFC 9000 §16) and its length in
/// bytes; `None` when not all of it is there.
fn read_varint(bytes: &[u8]) -> Option<(u64, usize)> {
    let first = *bytes.first()?;
    let size = 1usize << (first >> 6);
    let rest = bytes.get(1..size)?;
    let value = rest.iter().fold(u64::from(first & 0x3f), |value, &byte| {
        (value << 8) | u64::from(byte)
    });
    Some((value, size))
}

/// The pieces of a chunk a [`FrameScanner`] hands on, joined: one piece is handed on as
/// it is, without a copy.
#[derive(Default)]
struct Kept {
    first: Option<Bytes>,
    joined: Option<bytes::BytesMut>,
}

impl Kept {
    /// Hands on the bytes of `chunk` from `start` to `end`.
    fn push(&mut self, chunk: &Bytes, start: usize, end: usize) {
        if let Some(piece) = chunk.get(start..end).filter(|piece| !piece.is_empty()) {
            self.add(chunk.slice_ref(piece));
        }
    }

    /// Hands on the held-back start of a frame header, now known to be no empty frame's.
    fn push_held(&mut self, held: &[u8]) {
        if !held.is_empty() {
            self.add(Bytes::copy_from_slice(held));
        }
    }

    fn add(&mut self, piece: Bytes) {
        if let Some(joined) = &mut self.joined {
            joined.extend_from_slice(&piece);
            return;
        }
        match self.first.take() {
            None => self.first = Some(piece),
            Some(first) => {
                let mut joined = bytes::BytesMut::with_capacity(first.len() + piece.len());
                joined.extend_from_slice(&first);
                joined.extend_from_slice(&piece);
                self.joined = Some(joined);
            }
        }
    }

    fn into_bytes(self) -> Bytes {
        match (self.joined, self.first) {
            (Some(joined), _) => joined.freeze(),
            (None, Some(first)) => first,
            (None, None) => Bytes::new(),
        }
    }
}

/// A stream's error as a network error, the connection marked closed when it is a
/// connection error: h3 found the connection broken (on this stream or another: a
/// malformed frame, say) and will close it, but only once the connection's task runs, and
/// a request put on it before then fails with that error, never sent. Marked at once, the
/// connection gets no more requests.
///
/// A connection error on a connection that a stream the server opened failed (`failed`,
/// see [`UniFailure`]) is that failure: h3 knows it only as an internal error of the QUIC
/// layer, and would say "Remote error: InternalError in the quic trait implementation"
/// of what the client did for what the server sent.
fn stream_error_on(
    closed: &AtomicBool,
    failed: &OnceLock<UniFailure>,
    error: h3::error::StreamError,
) -> NetworkError {
    if !matches!(error, h3::error::StreamError::ConnectionError { .. }) {
        return NetworkError::Protocol(Box::new(error));
    }
    closed.store(true, Ordering::Release);
    match failed.get() {
        Some(failure) => NetworkError::Protocol(Box::new(H3Error {
            message: "the HTTP/3 connection was closed by this client",
            source: Some(failure.reason.clone().into()),
        })),
        None => NetworkError::Protocol(Box::new(error)),
    }
}

/// A failed QUIC connection attempt to `host` as a network error: a TLS error as TLS,
/// a timeout as the connection's, anything else as connecting's.
fn quic_error(host: &str, error: quinn::ConnectionError) -> NetworkError {
    match error {
        quinn::ConnectionError::TransportError(ref transport)
            if transport.code.to_string().contains("TLS")
                || u64::from(transport.code) & 0xff00 == 0x0100 =>
        {
            NetworkError::Tls(format!("QUIC handshake with {host}: {error}").into())
        }
        quinn::ConnectionError::TimedOut => NetworkError::Connect(
            format!("QUIC connection to {host} timed out (no answer over UDP)").into(),
        ),
        other => NetworkError::Connect(format!("QUIC connection to {host}: {other}").into()),
    }
}

/// What the handshake of `connection` settled on: TLS 1.3, its cipher suite when quinn
/// tells it, and the server's certificates.
fn tls_info(connection: &quinn::Connection) -> Option<TlsInfo> {
    let certificates = connection
        .peer_identity()
        .and_then(|identity| {
            identity
                .downcast::<Vec<rustls::pki_types::CertificateDer<'static>>>()
                .ok()
        })
        .map(|certificates| {
            certificates
                .iter()
                .map(|certificate| certificate.as_ref().to_vec())
                .collect()
        })
        .unwrap_or_default();
    // QUIC v1 packet protection starts with TLS_AES_128_GCM_SHA256 (RFC 9001 §5); quinn
    // does not say which suite or key exchange group the handshake chose, so they are left
    // unnamed.
    Some(TlsInfo::new(
        TlsVersion::Tls13,
        "unknown",
        0,
        None,
        certificates,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// What `scanner` hands on of `stream` cut into `pieces` of `size` bytes.
    fn scanned(stream: &[u8], size: usize) -> Result<Vec<u8>, String> {
        let mut scanner = FrameScanner::default();
        let mut out = Vec::new();
        for piece in stream.chunks(size) {
            out.extend_from_slice(&scanner.scan(Bytes::copy_from_slice(piece))?);
        }
        if let Some(rest) = scanner.end()? {
            out.extend_from_slice(&rest);
        }
        Ok(out)
    }

    #[test]
    fn a_stream_that_ends_inside_a_frames_payload_is_an_error() {
        // A DATA frame declaring 16 bytes, 5 of them sent: h3 would take the end for the
        // body's, then panic reading on for trailers.
        let mut stream = vec![0x01, 0x03, 0x00, 0x00, 0xd9, 0x00, 0x10];
        stream.extend_from_slice(b"short");
        for size in [1, 3, stream.len()] {
            let error = scanned(&stream, size).unwrap_err();
            assert!(
                error.contains("11 bytes before the end of a frame's payload"),
                "{error}"
            );
        }
        // A frame header cut short is handed on, for h3 to read as the error it is.
        assert_eq!(scanned(&[0x00, 0x40], 1).unwrap(), [0x00, 0x40]);
    }

    #[test]
    fn empty_data_frames_are_taken_out_however_the_stream_is_cut() {
        let headers = [0x01, 0x03, 0x00, 0x00, 0xd9];
        let mut stream = headers.to_vec();
        stream.extend([0x00, 0x00]);
        stream.extend([0x00, 0x03, b'a', b'b', b'c']);
        // Type and length on two, four and eight bytes: empty all the same.
        stream.extend([0x40, 0x00, 0x40, 0x00]);
        stream.extend([0x80, 0, 0, 0, 0x00]);
        stream.extend([0xc0, 0, 0, 0, 0, 0, 0, 0, 0xc0, 0, 0, 0, 0, 0, 0, 0]);
        // A DATA frame whose payload looks like empty frames: kept whole.
        stream.extend([0x00, 0x04, 0x00, 0x00, 0x00, 0x00]);
        // An unknown frame (a reserved type, RFC 9114 §7.2.8) with a payload, and trailers.
        stream.extend([0x21, 0x02, 0x00, 0x00]);
        stream.extend(headers);
        stream.extend([0x00, 0x00]);
        let mut expected = headers.to_vec();
        expected.extend([0x00, 0x03, b'a', b'b', b'c']);
        expected.extend([0x00, 0x04, 0x00, 0x00, 0x00, 0x00]);
        expected.extend([0x21, 0x02, 0x00, 0x00]);
        expected.extend(headers);
        for size in 1..=stream.len() {
            assert_eq!(
                scanned(&stream, size).unwrap(),
                expected,
                "pieces of {size}"
            );
        }
    }

    #[test]
    fn a_chunk_of_other_frames_alone_is_handed_on_as_it_is() {
        let chunk = Bytes::from_static(&[0x01, 0x01, 0xd9, 0x00, 0x02, b'h', b'i']);
        let mut scanner = FrameScanner::default();
        let kept = scanner.scan(chunk.clone()).unwrap();
        assert_eq!(kept, chunk);
        assert_eq!(kept.as_ptr(), chunk.as_ptr(), "not copied");
    }

    #[test]
    fn a_header_cut_by_the_end_of_the_stream_is_handed_on_for_h3_to_refuse() {
        // A DATA frame's type, and the first byte of a two-byte length.
        assert_eq!(scanned(&[0x00, 0x40], 1).unwrap(), [0x00, 0x40]);
        assert_eq!(scanned(&[0x00], 1).unwrap(), [0x00]);
    }

    #[test]
    fn a_frame_other_than_data_over_the_limit_is_an_error() {
        // A reserved type declaring 1 GiB (an eight-byte length).
        let one_gib = [0xc0, 0x00, 0x00, 0x00, 0x40, 0x00, 0x00, 0x00];
        let mut stream = vec![0x21];
        stream.extend(one_gib);
        let error = scanned(&stream, 2).unwrap_err();
        assert!(
            error.contains("type 0x21 declares 1073741824 bytes"),
            "{error}"
        );
        // Behind a frame in the same chunk: that frame is handed on first, and the error
        // kept for the stream's next read.
        let mut stream = vec![0x01, 0x03, 0x00, 0x00, 0xd9, 0x21];
        stream.extend(one_gib);
        let mut scanner = FrameScanner::default();
        let kept = scanner.scan(Bytes::copy_from_slice(&stream)).unwrap();
        assert_eq!(kept, stream.get(..5).unwrap());
        let refused = scanner.refused.take().unwrap();
        assert!(
            refused.contains("type 0x21 declares 1073741824"),
            "{refused}"
        );
        // DATA may be as long as it likes: its bytes are handed on as they come (a stream
        // that ends before them all is an error of its own, below).
        let mut stream = vec![0x00];
        stream.extend(one_gib);
        stream.push(b'x');
        let mut scanner = FrameScanner::default();
        let mut handed_on = Vec::new();
        for piece in stream.chunks(3) {
            let kept = scanner.scan(Bytes::copy_from_slice(piece)).unwrap();
            handed_on.extend_from_slice(&kept);
        }
        assert_eq!(handed_on, stream);
    }

    /// quinn's counts with `received` datagrams in, and `pings` PINGs and `probes` MTU
    /// probes (a PING each) out.
    fn stats(received: u64, pings: u64, probes: u64) -> quinn::ConnectionStats {
        let mut stats = quinn::ConnectionStats::default();
        stats.udp_rx.datagrams = received;
        stats.frame_tx.ping = pings + probes;
        stats.path.sent_plpmtud_probes = probes;
        stats
    }

    #[test]
    fn a_path_is_dead_when_what_it_owes_goes_unanswered_for_the_timeout() {
        let start = Instant::now();
        let at = |millis| start + Duration::from_millis(millis);
        let dead_after = Duration::from_millis(1000);
        let mut path = PathWatch::new(&stats(10, 0, 0));
        // Nothing sent: silence is no sign of anything, however long.
        assert_eq!(path.check(&stats(10, 0, 0), at(5_000), dead_after), None);
        assert!(!path.owed());
        // A PING goes out, and is answered.
        assert_eq!(path.check(&stats(10, 1, 0), at(5_100), dead_after), None);
        assert!(path.owed());
        assert_eq!(path.check(&stats(11, 1, 0), at(5_200), dead_after), None);
        assert!(!path.owed());
        // Another, never answered, and the probes after it: dead a second after the first
        // was seen.
        assert_eq!(path.check(&stats(11, 2, 0), at(6_000), dead_after), None);
        assert_eq!(path.check(&stats(11, 3, 0), at(6_500), dead_after), None);
        assert_eq!(
            path.check(&stats(11, 4, 0), at(7_000), dead_after),
            Some(dead_after)
        );
    }

    #[test]
    fn an_mtu_probe_lost_for_its_size_owes_nothing() {
        let start = Instant::now();
        let mut path = PathWatch::new(&stats(1, 0, 0));
        for (seconds, probes) in [(1, 1), (2, 2), (3, 3)] {
            let now = start + Duration::from_secs(seconds);
            let unanswered = path.check(&stats(1, 0, probes), now, Duration::from_millis(100));
            assert_eq!(unanswered, None);
        }
        assert!(!path.owed());
    }

    #[test]
    fn the_keep_alive_is_held_to_its_bounds() {
        let second = Duration::from_secs(1);
        let timing = H3Timing::new(30 * second, 5 * second, second);
        assert_eq!((timing.keep_alive, timing.dead_after), (5 * second, second));
        // At most a third of the idle timeout, at least 100 ms; any duration is taken.
        let timing = H3Timing::new(3 * second, 5 * second, Duration::ZERO);
        assert_eq!(timing.keep_alive, second);
        assert_eq!(timing.dead_after, SHORTEST_KEEP_ALIVE);
        let timing = H3Timing::new(Duration::from_millis(1), Duration::ZERO, Duration::MAX);
        assert_eq!(timing.keep_alive, SHORTEST_KEEP_ALIVE);
        assert_eq!(timing.dead_after, Duration::MAX);
        assert_eq!(timing.idle_close(), Some(SHORTEST_KEEP_ALIVE));
        // No idle timeout (under a millisecond is none, as QUIC counts): a day at most.
        for idle in [Duration::ZERO, Duration::from_micros(999), Duration::MAX] {
            let timing = H3Timing::new(idle, Duration::MAX, Duration::MAX);
            assert_eq!(timing.keep_alive, LONGEST_KEEP_ALIVE);
        }
        assert_eq!(
            H3Timing::new(Duration::ZERO, second, second).idle_close(),
            None
        );
    }

    /// What a [`UniScanner`] hands on of `stream` cut into `pieces` of `size` bytes.
    fn uni_scanned(stream: &[u8], size: usize) -> Result<Vec<u8>, UniFailure> {
        let mut scanner = UniScanner::default();
        let mut out = Vec::new();
        for piece in stream.chunks(size) {
            out.extend_from_slice(&scanner.scan(Bytes::copy_from_slice(piece))?);
        }
        if let Some(rest) = scanner.end().unwrap() {
            out.extend_from_slice(&rest);
        }
        Ok(out)
    }

    #[test]
    fn a_control_stream_is_handed_on_whole_however_it_is_cut() {
        // The type (0x00), SETTINGS, an empty DATA frame (h3's to refuse there: not taken
        // out), a frame of a reserved type at the limit, and a GOAWAY.
        let mut stream = vec![0x00, 0x04, 0x02, 0x06, 0x10, 0x00, 0x00];
        stream.extend([0x21, 0x80, 0x05, 0x00, 0x00]);
        stream.resize(stream.len() + 320 * 1024, 0);
        stream.extend([0x07, 0x01, 0x00]);
        for size in [1, 2, 3, 7, 1000, stream.len()] {
            assert_eq!(
                uni_scanned(&stream, size).unwrap(),
                stream,
                "pieces of {size}"
            );
        }
    }

    #[test]
    fn a_frame_over_the_limit_on_the_control_stream_fails_the_connection() {
        // The type on two bytes, SETTINGS, then a reserved type declaring one byte more
        // than the limit.
        let mut stream = vec![0x40, 0x00, 0x04, 0x00, 0x21, 0x80, 0x05, 0x00, 0x01];
        stream.resize(stream.len() + 64, 0);
        for size in 1..=stream.len() {
            let failure = uni_scanned(&stream, size).unwrap_err();
            assert_eq!(failure.code, h3::error::Code::H3_EXCESSIVE_LOAD);
            assert!(
                failure.reason.contains("type 0x21 declares 327681 bytes"),
                "{failure:?}"
            );
        }
    }

    #[test]
    fn a_push_stream_fails_the_connection_with_h3_id_error() {
        for stream in [&[0x01, 0x00][..], &[0x40, 0x01, 0x00]] {
            for size in 1..=stream.len() {
                let failure = uni_scanned(stream, size).unwrap_err();
                assert_eq!(failure.code, h3::error::Code::H3_ID_ERROR);
            }
        }
    }

    #[test]
    fn qpack_and_unknown_streams_are_handed_on_unscanned() {
        // What would be a frame declaring 4 GiB, after the QPACK encoder and decoder
        // stream types, a reserved one (RFC 9114 §6.2.3) and WebTransport's.
        let huge = [0x21, 0xc0, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00];
        for kind in [&[0x02][..], &[0x03], &[0x21], &[0x40, 0x54]] {
            let mut stream = kind.to_vec();
            stream.extend(huge);
            for size in 1..=stream.len() {
                assert_eq!(uni_scanned(&stream, size).unwrap(), stream);
            }
        }
    }

    #[test]
    fn a_webtransport_stream_is_passed_on_unscanned() {
        let stream = [0x40, 0x41, 0x00, 0x00, 0x00, 0x00];
        assert_eq!(scanned(&stream, 1).unwrap(), stream);
    }
}
