//! The connection pool: per-origin HTTP/1.1 connections with a cap and a FIFO queue,
//! and at most one shared HTTP/2 connection per origin.
//!
//! Accounting. Each origin counts its HTTP/1 connections in `total`: idle ones, ones in
//! use, and ones being connected. Outside the pool lock, a counted connection is always
//! owned by a [`Slot`] guard (inside a [`Pooled`] or alone while connecting); dropping an
//! armed `Slot` frees the count, handing it to the first waiter as a permit to connect.
//! Idle connections sit in the pool without a guard. The lock is a `std::sync::Mutex`
//! held only for short bookkeeping, never across an `.await`, and nothing that could
//! re-enter the pool is dropped or sent while it is held.
//!
//! Statistics ([`PoolStats`]). Each origin counts the connections opened and closed while
//! it is in the pool, and the pool counts them all; an HTTP/1 connection is counted
//! closed when its handle is dropped (a [`Counted`] guard in it, which takes the lock,
//! as nothing is dropped under it), an HTTP/2 one when the pool lets go of it.

use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};

/// The pool's map from origin to its connections. Looked up twice per request (checkout
/// and release), so it hashes with foldhash rather than SipHash: keys are the origins the
/// client itself fetches, so the speed costs no safety that matters here.
type OriginMap = HashMap<Key, Origin, foldhash::fast::RandomState>;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use super::h2::H2Connection;
use http::uri::{Authority, Scheme};
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::h1::Http1;
use super::pipeline::{Held, Pipeline, PipelineConfig, Starter, Ticket};
use super::route::Route;

/// An origin (scheme, host and port), and the proxy that reaches it, if any.
///
/// Keys compare and hash their authority without case, as `http::uri::Authority` does,
/// but faster: `Authority` lowers and hashes one byte at a time, which made the two
/// lookups of each request (checkout and release) cost more than a thousand
/// instructions.
#[derive(Clone, Debug)]
pub(crate) struct Key {
    pub(crate) https: bool,
    /// The URL's authority, as spelled.
    pub(crate) authority: Authority,
    /// The index of the proxy that carries requests to this origin, in the transport's
    /// list, or in a route's (`route`), which has one; `None` for a direct connection.
    pub(crate) proxy: Option<usize>,
    /// The request's own route, when it changes anything for this origin (see
    /// [`Route`]): compared by value, so that requests with different routes never
    /// share a connection. `None` for a request without one, the common case, which
    /// costs nothing more to hash or compare.
    pub(crate) route: Option<Route>,
    /// Whether requests go to that proxy in absolute-form: an `http:` origin through an
    /// HTTP proxy (not a SOCKS5 one, which tunnels), unless `http1_only` (a WebSocket
    /// handshake, which goes through a `CONNECT` tunnel, RFC 6455 §4.1). Follows from
    /// `https`, `proxy` and `http1_only`, so it takes no part in comparing and hashing.
    pub(crate) forward: bool,
    /// Whether the connections are HTTP/1.1 whatever ALPN could pick
    /// ([`SendOptions::http1_only`](super::SendOptions::http1_only)): a pool of their own
    /// beside the origin's, never HTTP/2 and never shared with another origin.
    pub(crate) http1_only: bool,
}

impl PartialEq for Key {
    #[inline]
    fn eq(&self, other: &Key) -> bool {
        let (a, b) = (self.authority.as_str(), other.authority.as_str());
        self.https == other.https
            && self.proxy == other.proxy
            && self.http1_only == other.http1_only
            && self.route == other.route
            // Byte for byte first: almost always enough, and one `memcmp`.
            && (a == b || a.eq_ignore_ascii_case(b))
    }
}

impl Eq for Key {}

impl Hash for Key {
    #[inline]
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.https.hash(state);
        self.proxy.hash(state);
        self.http1_only.hash(state);
        if let Some(route) = &self.route {
            route.hash(state);
        }
        // The authority lowered, as it compares, in one write rather than one per byte.
        let bytes = self.authority.as_str().as_bytes();
        if !bytes.iter().any(u8::is_ascii_uppercase) {
            state.write(bytes);
            return;
        }
        let mut buffer = [0u8; 64];
        match buffer.get_mut(..bytes.len()) {
            Some(lowered) => {
                lowered.copy_from_slice(bytes);
                lowered.make_ascii_lowercase();
                state.write(lowered);
            }
            None => state.write(&bytes.to_ascii_lowercase()),
        }
    }
}

impl Key {
    pub(crate) fn new(scheme: &Scheme, authority: &Authority) -> Key {
        Key {
            https: *scheme == Scheme::HTTPS,
            authority: authority.clone(),
            proxy: None,
            route: None,
            forward: false,
            http1_only: false,
        }
    }

    /// Whether requests go to a proxy in absolute-form (an `http:` origin through an
    /// HTTP proxy, but for `http1_only` connections), rather than to the origin or
    /// through a tunnel.
    pub(crate) fn forwards_to_proxy(&self) -> bool {
        self.forward
    }
}

/// The pool's limits, from the transport's builder.
#[derive(Clone, Debug)]
pub(crate) struct PoolConfig {
    pub(crate) max_per_origin: usize,
    pub(crate) max_idle_per_origin: usize,
    pub(crate) idle_timeout: Option<Duration>,
    /// Whether `https:` connections offer `h2` by ALPN.
    pub(crate) h2_for_https: bool,
    /// Whether `http:` connections speak HTTP/2 by prior knowledge.
    pub(crate) h2_for_http: bool,
    /// The most HTTP/2 connections to one origin: another opens when every stream of
    /// those open is taken.
    pub(crate) max_h2_per_origin: usize,
    /// HTTP/1.1 pipelining, when it is on (see `net/pipeline.rs`).
    pub(crate) pipeline: Option<PipelineConfig>,
}

/// The pool, cheap to clone.
#[derive(Clone)]
pub(crate) struct Pool {
    shared: Arc<Shared>,
}

struct Shared {
    origins: Mutex<OriginMap>,
    config: PoolConfig,
    reaper_started: AtomicBool,
    /// Connections opened since the pool was made, to every origin.
    opened: AtomicU64,
    /// Connections closed since the pool was made, to every origin.
    closed: AtomicU64,
}

#[derive(Default)]
struct Origin {
    /// Idle HTTP/1 connections, most recently used last.
    idle: VecDeque<Idle>,
    /// HTTP/1 connections counted against the cap.
    total: usize,
    /// Requests waiting for a connection or a permit, first come first served.
    waiters: VecDeque<oneshot::Sender<Grant>>,
    /// The origin's multiplexed HTTP/2 connection, if it has one: the newest.
    h2: Option<H2Connection>,
    /// Its earlier HTTP/2 connections, still open: taken when the newest has no stream
    /// free (see [`PoolConfig::max_h2_per_origin`]).
    h2_earlier: Vec<H2Connection>,
    /// Whether `h2` is another origin's connection, which this one shares (coalescing,
    /// RFC 9113 §9.1.1): not counted among this origin's connections.
    h2_coalesced: bool,
    /// Whether the origin's server answered a coalesced request `421 Misdirected
    /// Request`: it gets connections of its own from then on.
    no_coalescing: bool,
    /// Whether a new connection will likely speak HTTP/2: an `https:` origin until it
    /// answers in HTTP/1.1. While such a connection is being made, other requests wait
    /// for it rather than open connections of their own.
    h2_likely: bool,
    /// Whether a connection expected to speak HTTP/2 is being made.
    h2_connecting: bool,
    /// When a request last took the HTTP/2 connection.
    h2_used: Option<Instant>,
    /// Connections opened since this origin entered the pool.
    opened: u64,
    /// Connections closed since this origin entered the pool.
    closed: u64,
    /// Its pipelined HTTP/1.1 connections (counted in `total`), oldest first.
    pipes: Vec<Pipeline>,
    /// Whether its server ended a pipeline after its first response: no more are made.
    no_pipelining: bool,
}

impl Origin {
    fn new(h2_likely: bool) -> Origin {
        Origin {
            h2_likely,
            ..Origin::default()
        }
    }

    fn is_unused(&self) -> bool {
        self.total == 0
            && self.idle.is_empty()
            && self.pipes.is_empty()
            && self.waiters.is_empty()
            && self.h2.is_none()
            && self.h2_earlier.is_empty()
    }

    /// The origin's HTTP/2 connections.
    fn h2_count(&self) -> usize {
        usize::from(self.h2.is_some()) + self.h2_earlier.len()
    }

    /// An HTTP/2 connection to send on, if the origin has one open: the newest with a
    /// stream free, else the newest (whose queue the request joins); `None` also when a
    /// new one should be made beside them, every stream being taken and the cap not
    /// reached. The closed ones are let go of (counted in `closed`).
    // Without the `http2` feature an `H2Sender` cannot exist: its paths are dead.
    #[cfg_attr(not(feature = "http2"), allow(unreachable_code))]
    fn h2_for_request(&mut self, max: usize, closed: &mut usize) -> Option<H2Connection> {
        let before = self.h2_earlier.len();
        self.h2_earlier.retain(|h2| !h2.is_closed());
        *closed += before - self.h2_earlier.len();
        if self.h2.as_ref().is_some_and(H2Connection::is_closed) {
            self.h2 = self.h2_earlier.pop();
            if !std::mem::take(&mut self.h2_coalesced) {
                *closed += 1;
            }
        }
        let newest = self.h2.as_ref()?;
        if !newest.is_saturated() {
            return Some(newest.clone());
        }
        if let Some(free) = self.h2_earlier.iter().rev().find(|h2| !h2.is_saturated()) {
            return Some(free.clone());
        }
        if self.h2_count() < max && !self.h2_connecting {
            return None;
        }
        Some(newest.clone())
    }
}

struct Idle {
    tx: Http1,
    since: Instant,
}

/// What a waiter receives.
enum Grant {
    /// A connection that just finished a response.
    Conn(Pooled),
    /// A freed place under the cap: connect a new connection.
    Permit(Slot),
    /// The origin now has an HTTP/2 connection.
    H2(H2Connection),
}

/// What a checkout gives the caller.
pub(crate) enum Checkout {
    /// An idle connection; check [`Http1::is_closed`] before use.
    Idle(Pooled),
    /// A place under the cap: connect, then wrap the connection with [`Pooled::new`];
    /// with the pipeline the new connection is for, if any ([`PendingPipe`]).
    Connect(Slot, Option<PendingPipe>),
    /// The origin's HTTP/2 connection.
    H2(H2Connection),
    /// A pipelined HTTP/1.1 connection, and the request's place in it.
    Pipe(Pipeline, Ticket),
}

/// A pipeline whose connection is being made: what starts it, the handle requests join
/// it by, and the place of the request that makes the connection. Boxed: rare, and
/// kept out of the state of every request's future.
pub(crate) type PendingPipe = Box<(Starter, Pipeline, Ticket)>;

/// One unit of an origin's connection count. Dropping it frees the count.
pub(crate) struct Slot {
    shared: Arc<Shared>,
    key: Key,
    armed: bool,
    /// Whether this slot makes the connection the origin's other requests wait for,
    /// expecting HTTP/2.
    h2_connect: bool,
}

/// A checked-out HTTP/1 connection. Dropping it closes the connection; call
/// [`Pooled::release`] to give it back.
pub(crate) struct Pooled {
    pub(crate) tx: Http1,
    slot: Slot,
    /// Whether this connection served an earlier request.
    pub(crate) reused: bool,
}

impl Pool {
    pub(crate) fn new(config: PoolConfig) -> Pool {
        Pool {
            shared: Arc::new(Shared {
                origins: Mutex::new(OriginMap::default()),
                config,
                reaper_started: AtomicBool::new(false),
                opened: AtomicU64::new(0),
                closed: AtomicU64::new(0),
            }),
        }
    }

    /// A snapshot of the pool's connections per origin, and its totals: one pass over
    /// the origins under the lock.
    pub(crate) fn stats(&self) -> PoolStats {
        let origins = {
            let origins = self.shared.lock();
            origins
                .iter()
                .map(|(key, origin)| {
                    let open = usize::try_from(origin.opened.saturating_sub(origin.closed))
                        .unwrap_or(usize::MAX);
                    let h2 = origin.h2_count();
                    let idle = origin.idle.len()
                        + origin.pipes.iter().filter(|pipe| pipe.load() == 0).count();
                    OriginStats {
                        origin: format!(
                            "{}://{}",
                            if key.https { "https" } else { "http" },
                            key.authority
                        ),
                        proxied: key.proxy.is_some(),
                        open,
                        idle,
                        in_use: open.saturating_sub(idle),
                        connecting: origin.total.saturating_sub(open.saturating_sub(h2)),
                        queued: origin.waiters.iter().filter(|w| !w.is_closed()).count(),
                        http2: origin.h2_count() > 0,
                        opened: origin.opened,
                        closed: origin.closed,
                    }
                })
                .collect()
        };
        PoolStats {
            origins,
            connections_opened: self.shared.opened.load(Ordering::Relaxed),
            connections_closed: self.shared.closed.load(Ordering::Relaxed),
            http3_open: 0,
        }
    }

    /// Starts the task that closes idle connections past the idle timeout, once. It
    /// holds the pool weakly and ends with it. Call from inside a Tokio runtime.
    pub(crate) fn start_reaper(&self) {
        let Some(timeout) = self.shared.config.idle_timeout else {
            return;
        };
        if self.shared.reaper_started.load(Ordering::Relaxed)
            || self.shared.reaper_started.swap(true, Ordering::AcqRel)
        {
            return;
        }
        let Ok(handle) = tokio::runtime::Handle::try_current() else {
            self.shared.reaper_started.store(false, Ordering::Release);
            return;
        };
        let weak = Arc::downgrade(&self.shared);
        let period = (timeout / 2).max(Duration::from_millis(50));
        handle.spawn(reap(weak, period));
    }

    /// Finds a connection for `key`: the origin's HTTP/2 connection, an idle HTTP/1
    /// connection, a permit to connect a new one, or a place in the queue until one
    /// of those frees up. With `new_connection`, only a permit to connect will do: the
    /// HTTP/2 connection and idle connections are passed over, and an idle connection
    /// handed over from the queue is closed to make room.
    // Without the `http2` feature an `H2Sender` cannot exist: its paths are dead.
    #[cfg_attr(not(feature = "http2"), allow(unreachable_code, unused_variables))]
    pub(crate) async fn checkout(&self, key: &Key, new_connection: bool) -> Checkout {
        self.checkout_for(key, new_connection, false).await
    }

    /// Whether HTTP/1.1 pipelining is on.
    pub(crate) fn pipelines(&self) -> bool {
        self.shared.config.pipeline.is_some()
    }

    /// [`checkout`](Pool::checkout), for a request that may be pipelined (see
    /// `net/pipeline.rs`) when `pipelined` says so: with pipelining on, unless the origin
    /// may speak HTTP/2 or its server refused a pipeline, the first of its pipelined
    /// connections with room, else a new one (under the cap), which the requests after
    /// it may join while it is made, else the least loaded, whose queue the request
    /// joins; with none, what a request that is not pipelined gets.
    #[cfg_attr(not(feature = "http2"), allow(unreachable_code, unused_variables))]
    pub(crate) async fn checkout_for(
        &self,
        key: &Key,
        new_connection: bool,
        pipelined: bool,
    ) -> Checkout {
        let pipeline = self.shared.config.pipeline.filter(|_| pipelined);
        loop {
            let receiver = {
                let mut evicted = Vec::new();
                let mut origins = self.shared.lock();
                let origin = match origins.get_mut(key) {
                    Some(origin) => origin,
                    None => origins
                        .entry(key.clone())
                        .or_insert_with(|| Origin::new(self.shared.h2_likely(key))),
                };
                // Another HTTP/2 connection beside the origin's when every stream of
                // theirs is taken.
                let mut h2_beside = false;
                if !new_connection && origin.h2_count() > 0 {
                    if let Some(h2) = self.shared.h2_for_request(origin) {
                        return Checkout::H2(h2);
                    }
                    h2_beside = origin.h2.is_some();
                }
                if h2_beside {
                    if origin.total >= self.shared.config.max_per_origin {
                        // No room for another: the request waits for a stream.
                        if let Some(h2) = origin.h2.clone() {
                            return Checkout::H2(h2);
                        }
                    }
                    origin.total += 1;
                    origin.h2_connecting = true;
                    let mut slot = self.shared.slot(key);
                    slot.h2_connect = true;
                    drop(origins);
                    drop(evicted);
                    return Checkout::Connect(slot, None);
                }
                // Not while a new connection may speak HTTP/2: until one has spoken
                // HTTP/1.1, requests wait for it as they would without pipelining.
                let pipeline = pipeline.filter(|_| !origin.no_pipelining && !origin.h2_likely);
                if let Some(config) = pipeline {
                    origin.pipes.retain(|pipe| !pipe.is_closed());
                    if let Some(pipe) = origin.pipes.iter().find(|pipe| pipe.has_room()) {
                        let ticket = pipe.reserve();
                        return Checkout::Pipe(pipe.clone(), ticket);
                    }
                    if origin.total < self.shared.config.max_per_origin {
                        // A new connection, which the requests after this one may join
                        // while it is being made.
                        origin.total += 1;
                        let (pipe, starter, ticket) = Pipeline::new(config, &key.authority);
                        origin.pipes.push(pipe.clone());
                        let slot = self.shared.slot(key);
                        drop(origins);
                        drop(evicted);
                        return Checkout::Connect(slot, Some(Box::new((starter, pipe, ticket))));
                    }
                    if let Some(pipe) = origin.pipes.iter().min_by_key(|pipe| pipe.load()) {
                        let ticket = pipe.reserve();
                        return Checkout::Pipe(pipe.clone(), ticket);
                    }
                }
                let expired_before = if origin.idle.is_empty() {
                    None
                } else {
                    self.shared.expired_before()
                };
                // A new connection takes an idle one's place only when the cap is reached.
                let take_idle =
                    !new_connection || origin.total >= self.shared.config.max_per_origin;
                let mut found = None;
                if take_idle {
                    while let Some(mut idle) = origin.idle.pop_back() {
                        if idle.tx.is_closed() || expired_before.is_some_and(|t| idle.since < t) {
                            evicted.push(self.shared.evict(key, origin, idle));
                            continue;
                        }
                        found = Some(idle.tx);
                        break;
                    }
                }
                if let Some(tx) = found {
                    let slot = self.shared.slot(key);
                    drop(origins);
                    drop(evicted);
                    if new_connection {
                        // Closed to make room for the new connection.
                        drop(tx);
                        return Checkout::Connect(slot, None);
                    }
                    return Checkout::Idle(Pooled {
                        tx,
                        slot,
                        reused: true,
                    });
                }
                if origin.total < self.shared.config.max_per_origin && !origin.h2_connecting {
                    origin.total += 1;
                    let mut slot = self.shared.slot(key);
                    if origin.h2_likely {
                        origin.h2_connecting = true;
                        slot.h2_connect = true;
                    }
                    drop(origins);
                    drop(evicted);
                    return Checkout::Connect(slot, None);
                }
                let (sender, receiver) = oneshot::channel();
                origin.waiters.push_back(sender);
                drop(origins);
                drop(evicted);
                receiver
            };
            match receiver.await {
                // Its place under the cap is this request's: the connection closes.
                Ok(Grant::Conn(pooled)) if new_connection => {
                    return Checkout::Connect(pooled.into_slot(), None);
                }
                Ok(Grant::Conn(pooled)) => return Checkout::Idle(pooled),
                Ok(Grant::H2(_)) if new_connection => continue,
                Ok(Grant::H2(tx)) => return Checkout::H2(tx),
                Ok(Grant::Permit(mut slot)) => {
                    let mut pending = None;
                    // The origin may have gained an HTTP/2 connection meanwhile.
                    let h2 = {
                        let mut origins = self.shared.lock();
                        match origins.get_mut(key) {
                            Some(origin) => match &origin.h2 {
                                Some(h2) if !h2.is_closed() && !new_connection => Some(h2.clone()),
                                _ => {
                                    if origin.h2_likely && !origin.h2_connecting {
                                        origin.h2_connecting = true;
                                        slot.h2_connect = true;
                                    }
                                    if let Some(config) = pipeline
                                        .filter(|_| !origin.no_pipelining && !origin.h2_likely)
                                    {
                                        let (pipe, starter, ticket) =
                                            Pipeline::new(config, &key.authority);
                                        origin.pipes.push(pipe.clone());
                                        pending = Some(Box::new((starter, pipe, ticket)));
                                    }
                                    None
                                }
                            },
                            None => None,
                        }
                    };
                    return match h2 {
                        Some(h2) => {
                            drop(slot);
                            Checkout::H2(h2)
                        }
                        None => Checkout::Connect(slot, pending),
                    };
                }
                // The pool only drops a waiter's sender after removing it from the
                // queue without sending, which it never does; try again regardless.
                Err(_) => continue,
            }
        }
    }

    /// An open HTTP/2 connection of `key`'s origin, if the pool holds one, as
    /// [`checkout`](Pool::checkout) would give it, but neither waiting nor taking a place
    /// under the cap when there is none: what an extended CONNECT (RFC 8441) goes on or
    /// does without. With every stream of every connection taken, the newest, whose queue
    /// the request joins.
    // Without the `http2` feature an `H2Sender` cannot exist: its paths are dead.
    #[cfg_attr(not(feature = "http2"), allow(unreachable_code, unused_variables))]
    pub(crate) fn open_h2(&self, key: &Key) -> Option<H2Connection> {
        let mut origins = self.shared.lock();
        let origin = origins.get_mut(key)?;
        if origin.h2_count() == 0 {
            return None;
        }
        self.shared.h2_for_request(origin).or_else(|| {
            let newest = origin.h2.clone()?;
            self.shared.mark_h2_used(origin);
            Some(newest)
        })
    }

    /// The open HTTP/2 connections of the pool's other `https:` origins on `key`'s port,
    /// reached directly, that `key`'s requests might share (coalescing): none when `key`
    /// is not such an origin itself, or its server refused a shared connection.
    // Without the `http2` feature an `H2Sender` cannot exist: its paths are dead.
    #[cfg_attr(not(feature = "http2"), allow(unreachable_code, unused_variables))]
    pub(crate) fn h2_to_share(&self, key: &Key) -> Vec<H2Connection> {
        // Neither through a proxy nor on a route of the request's own (`Route`).
        if !key.https || key.proxy.is_some() || key.route.is_some() {
            return Vec::new();
        }
        let port = |key: &Key| key.authority.port_u16().unwrap_or(443);
        let origins = self.shared.lock();
        if origins.get(key).is_some_and(|origin| origin.no_coalescing) {
            return Vec::new();
        }
        origins
            .iter()
            .filter(|(other, origin)| {
                other.https
                    && other.proxy.is_none()
                    && other.route.is_none()
                    && port(other) == port(key)
                    && *other != key
                    && !origin.h2_coalesced
            })
            .flat_map(|(_, origin)| origin.h2.iter().chain(&origin.h2_earlier))
            .filter(|h2| !h2.is_closed() && !h2.is_saturated())
            .cloned()
            .collect()
    }

    /// Records `tx`, another origin's HTTP/2 connection, as `key`'s too (coalesced), and
    /// hands it to every waiter.
    pub(crate) fn insert_coalesced(&self, key: &Key, tx: &H2Connection) {
        self.install_h2(key, tx, true);
    }

    /// The server of `key` answered a request on another origin's connection `421
    /// Misdirected Request` (RFC 9110 §15.5.20): it no longer shares one.
    pub(crate) fn refuse_coalescing(&self, key: &Key) {
        let mut origins = self.shared.lock();
        let origin = origins.entry(key.clone()).or_default();
        origin.no_coalescing = true;
        if std::mem::take(&mut origin.h2_coalesced) {
            origin.h2 = origin.h2_earlier.pop();
        }
    }

    /// Records `tx` as the origin's HTTP/2 connection and hands it to every waiter.
    pub(crate) fn insert_h2(&self, key: &Key, tx: &H2Connection) {
        self.install_h2(key, tx, false);
    }

    /// Makes `tx` the HTTP/2 connection `key`'s requests take, `coalesced` when it is
    /// another origin's, and hands it to every waiter.
    // Without the `http2` feature an `H2Sender` cannot exist: its paths are dead.
    #[cfg_attr(not(feature = "http2"), allow(unreachable_code, unused_variables))]
    fn install_h2(&self, key: &Key, tx: &H2Connection, coalesced: bool) {
        let waiters = {
            let mut origins = self.shared.lock();
            let origin = origins.entry(key.clone()).or_default();
            if let Some(earlier) = origin.h2.take() {
                if std::mem::take(&mut origin.h2_coalesced) {
                    // Another origin's: it keeps it.
                } else if earlier.is_closed() {
                    self.shared.count_closed(origin);
                } else {
                    // Opened beside it, when its every stream was taken: both are used.
                    origin.h2_earlier.push(earlier);
                }
            }
            // A connection made anew (a request sent again on one of its own) goes beside
            // the others too: the oldest are let go of past the cap.
            let max = self.shared.config.max_h2_per_origin;
            while origin.h2_earlier.len() >= max {
                origin.h2_earlier.remove(0);
                self.shared.count_closed(origin);
            }
            if !coalesced {
                self.shared.count_opened(origin);
            }
            origin.h2 = Some(tx.clone());
            origin.h2_coalesced = coalesced;
            origin.h2_used = Some(Instant::now());
            origin.h2_likely = true;
            origin.h2_connecting = false;
            std::mem::take(&mut origin.waiters)
        };
        for waiter in waiters {
            // A waiter that gave up just drops the grant; an HTTP/2 handle holds no count.
            let _ = waiter.send(Grant::H2(tx.clone()));
        }
    }
}

impl Shared {
    /// [`Origin::h2_for_request`] under the pool's cap, the closed connections it lets go
    /// of counted, and the one it gives marked used.
    fn h2_for_request(&self, origin: &mut Origin) -> Option<H2Connection> {
        let mut closed = 0;
        let h2 = origin.h2_for_request(self.config.max_h2_per_origin, &mut closed);
        for _ in 0..closed {
            self.count_closed(origin);
        }
        if h2.is_some() {
            self.mark_h2_used(origin);
        }
        h2
    }

    /// Notes that a request took one of `origin`'s HTTP/2 connections now, for the idle
    /// timeout.
    fn mark_h2_used(&self, origin: &mut Origin) {
        if self.config.idle_timeout.is_some() {
            origin.h2_used = Some(Instant::now());
        }
    }

    /// Counts a connection to `origin` opened.
    fn count_opened(&self, origin: &mut Origin) {
        origin.opened = origin.opened.saturating_add(1);
        self.opened.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a connection to `origin` closed.
    fn count_closed(&self, origin: &mut Origin) {
        origin.closed = origin.closed.saturating_add(1);
        self.closed.fetch_add(1, Ordering::Relaxed);
    }

    /// Counts a connection to `key` closed, its origin's count too if it is still in
    /// the pool.
    fn connection_closed(&self, key: &Key) {
        let mut origins = self.lock();
        match origins.get_mut(key) {
            Some(origin) => self.count_closed(origin),
            None => {
                self.closed.fetch_add(1, Ordering::Relaxed);
            }
        }
    }

    fn lock(&self) -> MutexGuard<'_, OriginMap> {
        // The lock guards plain bookkeeping that stays consistent between statements,
        // so a poisoned lock is still usable.
        self.origins
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    fn slot(self: &Arc<Self>, key: &Key) -> Slot {
        Slot {
            shared: Arc::clone(self),
            key: key.clone(),
            armed: true,
            h2_connect: false,
        }
    }

    /// Whether a new connection to `key` will likely speak HTTP/2.
    fn h2_likely(&self, key: &Key) -> bool {
        if key.http1_only {
            false
        } else if key.https {
            self.config.h2_for_https
        } else {
            // An HTTP proxy is spoken to in HTTP/1.1; a SOCKS5 tunnel carries what a
            // direct connection would.
            self.config.h2_for_http && !key.forwards_to_proxy()
        }
    }

    /// The connection expected to speak HTTP/2 failed or spoke HTTP/1.1: let the
    /// requests that waited for it connect, up to the cap.
    fn h2_connect_ended(self: &Arc<Self>, key: &Key, spoke_h1: bool) {
        let mut grants = Vec::new();
        {
            let mut origins = self.lock();
            let Some(origin) = origins.get_mut(key) else {
                return;
            };
            origin.h2_connecting = false;
            if spoke_h1 {
                origin.h2_likely = false;
            }
            while origin.total < self.config.max_per_origin {
                let Some(waiter) = origin.waiters.pop_front() else {
                    break;
                };
                origin.total += 1;
                grants.push((waiter, self.slot(key)));
            }
        }
        for (waiter, slot) in grants {
            // A waiter that gave up hands the permit back; dropping it here, outside
            // the lock, passes it on.
            let _ = waiter.send(Grant::Permit(slot));
        }
    }

    /// The instant before which an idle connection has expired.
    fn expired_before(&self) -> Option<Instant> {
        let timeout = self.config.idle_timeout?;
        Instant::now().checked_sub(timeout)
    }

    /// Removes an idle connection's count under the lock. Returns what must be dropped
    /// after the lock is released: the connection, and a freed count for a waiter.
    fn evict(
        self: &Arc<Self>,
        key: &Key,
        origin: &mut Origin,
        idle: Idle,
    ) -> (Http1, Option<Slot>) {
        if origin.waiters.is_empty() {
            origin.total = origin.total.saturating_sub(1);
            (idle.tx, None)
        } else {
            // Dropped after the lock, this slot hands the count to the first waiter.
            (idle.tx, Some(self.slot(key)))
        }
    }

    /// Frees one count of `key`: the first waiter still waiting gets it as a permit;
    /// with no waiter, the count goes down.
    fn free(self: &Arc<Self>, key: &Key) {
        let mut permit = Grant::Permit(self.slot(key));
        loop {
            let waiter = {
                let mut origins = self.lock();
                let Some(origin) = origins.get_mut(key) else {
                    disarm(&mut permit);
                    return;
                };
                match origin.waiters.pop_front() {
                    Some(waiter) => waiter,
                    None => {
                        origin.total = origin.total.saturating_sub(1);
                        if origin.is_unused() {
                            origins.remove(key);
                        }
                        disarm(&mut permit);
                        return;
                    }
                }
            };
            match waiter.send(permit) {
                Ok(()) => return,
                Err(back) => permit = back,
            }
        }
    }

    /// Gives a finished connection to the first waiter, or keeps it idle.
    fn release(self: &Arc<Self>, pooled: Pooled) {
        // Usually there is no waiter, and the connection goes straight to the idle list:
        // looked up by the key it holds, not a copy (its authority's bytes are shared, and
        // a copy costs two atomic counts).
        let mut grant = {
            let mut origins = self.lock();
            match origins.get_mut(&pooled.slot.key) {
                Some(origin) if origin.waiters.is_empty() => {
                    if let Some(over_the_cap) = self.keep_idle(origin, pooled) {
                        drop(origins);
                        drop(over_the_cap);
                    }
                    return;
                }
                _ => Grant::Conn(pooled),
            }
        };
        let key = match &grant {
            Grant::Conn(pooled) => pooled.slot.key.clone(),
            _ => return,
        };
        loop {
            let waiter = {
                let mut origins = self.lock();
                let origin = origins.entry(key.clone()).or_default();
                match origin.waiters.pop_front() {
                    Some(waiter) => waiter,
                    None => {
                        let pooled = match grant {
                            Grant::Conn(pooled) => pooled,
                            mut other => {
                                // Only connections travel through here.
                                disarm(&mut other);
                                return;
                            }
                        };
                        if let Some(over_the_cap) = self.keep_idle(origin, pooled) {
                            drop(origins);
                            drop(over_the_cap);
                        }
                        return;
                    }
                }
            };
            match waiter.send(grant) {
                Ok(()) => return,
                Err(back) => grant = back,
            }
        }
    }

    /// Puts `pooled` on `origin`'s idle list, or, past the idle cap, gives it back to be
    /// closed once the pool's lock is let go.
    #[inline(always)]
    fn keep_idle(&self, origin: &mut Origin, mut pooled: Pooled) -> Option<Pooled> {
        pooled.slot.armed = false;
        if origin.idle.len() < self.config.max_idle_per_origin {
            origin.idle.push_back(Idle {
                tx: pooled.tx,
                since: Instant::now(),
            });
            return None;
        }
        origin.total = origin.total.saturating_sub(1);
        Some(pooled)
    }

    /// Closes idle connections past the idle timeout, and closed ones.
    fn evict_expired(self: &Arc<Self>) {
        let expired_before = self.expired_before();
        let mut evicted = Vec::new();
        let mut h2_evicted = Vec::new();
        {
            let mut origins = self.lock();
            for (key, origin) in origins.iter_mut() {
                let mut kept = VecDeque::with_capacity(origin.idle.len());
                while let Some(mut idle) = origin.idle.pop_front() {
                    if idle.tx.is_closed() || expired_before.is_some_and(|t| idle.since < t) {
                        evicted.push(self.evict(key, origin, idle));
                    } else {
                        kept.push_back(idle);
                    }
                }
                origin.idle = kept;
                let h2_expired = origin
                    .h2_used
                    .zip(expired_before)
                    .is_some_and(|(used, before)| used < before);
                if origin.h2.as_ref().is_some_and(|h2| h2.is_closed()) || h2_expired {
                    // A body still being read holds its own handle: the connection
                    // closes once the last one ends.
                    h2_evicted.extend(origin.h2.take());
                    origin.h2_used = None;
                    if !std::mem::take(&mut origin.h2_coalesced) {
                        self.count_closed(origin);
                    }
                }
                // The earlier connections beside it: closed ones, and all of them when
                // the origin's HTTP/2 has been idle past the timeout.
                let mut earlier = std::mem::take(&mut origin.h2_earlier);
                let before = earlier.len();
                if h2_expired {
                    h2_evicted.append(&mut earlier);
                } else {
                    earlier.retain(|h2| !h2.is_closed());
                }
                for _ in earlier.len()..before {
                    self.count_closed(origin);
                }
                origin.h2_earlier = earlier;
                origin.pipes.retain(|pipe| !pipe.is_closed());
            }
            origins.retain(|_, origin| !origin.is_unused());
        }
        drop(evicted);
        drop(h2_evicted);
    }
}

/// Makes a grant's slot, if any, free nothing when dropped: its count was already
/// settled under the lock.
fn disarm(grant: &mut Grant) {
    match grant {
        Grant::Conn(pooled) => pooled.slot.armed = false,
        Grant::Permit(slot) => slot.armed = false,
        Grant::H2(_) => {}
    }
}

async fn reap(shared: Weak<Shared>, period: Duration) {
    let Some(start) = Instant::now().checked_add(period) else {
        // An idle timeout too long to ever pass.
        return;
    };
    let mut interval = tokio::time::interval_at(start, period);
    interval.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    loop {
        interval.tick().await;
        let Some(shared) = shared.upgrade() else {
            return;
        };
        shared.evict_expired();
    }
}

impl Drop for Slot {
    fn drop(&mut self) {
        if self.armed {
            self.armed = false;
            if self.h2_connect {
                self.shared.h2_connect_ended(&self.key, false);
            }
            self.shared.free(&self.key);
        }
    }
}

/// Counts an HTTP/1 connection closed when it is dropped: kept in its handle.
struct Counted {
    /// Weak: idle connections sit in the pool, which must not keep itself alive.
    shared: Weak<Shared>,
    key: Key,
}

impl Drop for Counted {
    fn drop(&mut self) {
        if let Some(shared) = self.shared.upgrade() {
            shared.connection_closed(&self.key);
        }
    }
}

impl Pooled {
    /// Wraps a new connection made under `slot`.
    pub(crate) fn new(mut tx: Http1, mut slot: Slot) -> Pooled {
        {
            let mut origins = slot.shared.lock();
            let origin = origins.entry(slot.key.clone()).or_default();
            slot.shared.count_opened(origin);
        }
        tx.reused().pool_count = Some(Box::new(Counted {
            shared: Arc::downgrade(&slot.shared),
            key: slot.key.clone(),
        }));
        if slot.h2_connect {
            slot.h2_connect = false;
            slot.shared.h2_connect_ended(&slot.key, true);
        }
        Pooled {
            tx,
            slot,
            reused: false,
        }
    }

    /// Gives the connection back to the pool, unless it is closed.
    pub(crate) fn release(mut self) {
        if self.tx.is_closed() {
            return;
        }
        self.reused = true;
        let shared = Arc::clone(&self.slot.shared);
        shared.release(self);
    }

    /// Gives up the connection but keeps its place under the cap.
    pub(crate) fn into_slot(self) -> Slot {
        self.slot
    }

    /// Takes the connection out of the pool for good (a `101`'s, handed to the caller):
    /// its place under the cap is freed.
    pub(crate) fn into_connection(self) -> Http1 {
        let Pooled { tx, slot, .. } = self;
        drop(slot);
        tx
    }
}

/// A pipelined connection's task holds its connection in the pool's `Pooled`, which
/// frees its place under the cap when the task ends.
impl Held for Pooled {
    fn tx(&mut self) -> &mut Http1 {
        &mut self.tx
    }

    fn refuse_pipelining(&self) {
        let mut origins = self.slot.shared.lock();
        if let Some(origin) = origins.get_mut(&self.slot.key) {
            origin.no_pipelining = true;
        }
    }
}

/// A snapshot of a [`HyperTransport`](super::HyperTransport)'s connection pool, from
/// [`HyperTransport::pool_stats`](super::HyperTransport::pool_stats) or
/// [`Client::pool_stats`](crate::Client::pool_stats): plain numbers, cheap to take (one
/// pass over the origins under the pool's lock), to export to metrics.
///
/// `connections_opened` and `connections_closed` only grow: export them as counters. The
/// numbers per origin are gauges, and an origin is listed only while the pool has
/// something of it (a connection, idle or in use or being made, or a request waiting):
/// its own `opened` and `closed` count from when it last entered the pool.
///
/// ```
/// let client = whatwg_fetch::Client::new();
/// let stats = client.pool_stats().expect("the built-in transport");
/// // Nothing sent yet: no connection, no origin.
/// assert_eq!((stats.connections_opened, stats.origins.len()), (0, 0));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct PoolStats {
    /// The origins the pool has connections to or requests waiting for, in no order.
    pub origins: Vec<OriginStats>,
    /// The connections opened since the transport was built, to every origin.
    pub connections_opened: u64,
    /// The connections closed since the transport was built, to every origin: by the
    /// idle timeout, by the peer, by a body dropped before its end, by an error.
    pub connections_closed: u64,
    /// The HTTP/3 (QUIC) connections open, to every origin: always 0 without the `http3`
    /// feature. They are kept apart from the TCP connections counted above.
    pub http3_open: usize,
}

impl PoolStats {
    /// The statistics of `origin` (`scheme://host:port` as requested, e.g.
    /// `"http://127.0.0.1:8080"`; the port only when the URL had one), if the pool has
    /// something of it. Through a proxy an origin may be listed once per proxy, and once
    /// per request's own [`Route`]: the first is returned.
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
    /// let client = whatwg_fetch::Client::new();
    /// client.get(&format!("http://{addr}/")).send().await?.text().await?;
    /// let stats = client.pool_stats().expect("the built-in transport");
    /// assert_eq!(stats.origin(&format!("http://{addr}")).map(|origin| origin.open), Some(1));
    /// assert!(stats.origin("http://elsewhere.example").is_none());
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// # }).unwrap();
    /// ```
    pub fn origin(&self, origin: &str) -> Option<&OriginStats> {
        self.origins
            .iter()
            .find(|stats| stats.origin.eq_ignore_ascii_case(origin))
    }
}

/// One origin's part of [`PoolStats`].
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
/// let client = whatwg_fetch::Client::new();
/// client.get(&format!("http://{addr}/")).send().await?.text().await?;
/// let stats = client.pool_stats().expect("the built-in transport");
/// let origin = &stats.origins[0];
/// assert_eq!((origin.origin.as_str(), origin.proxied), (format!("http://{addr}").as_str(), false));
/// assert_eq!((origin.open, origin.idle, origin.in_use, origin.queued), (1, 1, 0, 0));
/// # Ok::<(), whatwg_fetch::Error>(())
/// # }).unwrap();
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct OriginStats {
    /// The origin, `scheme://authority` as the request URL spelled its authority (e.g.
    /// `"https://example.com"`, `"http://127.0.0.1:8080"`).
    pub origin: String,
    /// Whether its connections go through a proxy.
    pub proxied: bool,
    /// The connections open: idle or in use (an HTTP/2 connection counts as one).
    pub open: usize,
    /// The idle HTTP/1.1 connections, waiting for a request.
    pub idle: usize,
    /// The connections in use: an HTTP/1.1 connection from the request's send until its
    /// response body ends, and the HTTP/2 connection while the pool holds it.
    pub in_use: usize,
    /// The connections being made (resolving, connecting, in a TLS handshake).
    pub connecting: usize,
    /// The requests waiting for a connection: queued behind
    /// [`max_connections_per_origin`](super::HyperTransportBuilder::max_connections_per_origin),
    /// or for the HTTP/2 connection being made.
    pub queued: usize,
    /// Whether the origin has an HTTP/2 connection.
    pub http2: bool,
    /// The connections opened since this origin entered the pool.
    pub opened: u64,
    /// The connections closed since this origin entered the pool.
    pub closed: u64,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::hash::BuildHasher;

    fn key(authority: &str) -> Key {
        Key::new(&Scheme::HTTP, &authority.parse::<Authority>().unwrap())
    }

    #[test]
    fn keys_compare_and_hash_their_authority_without_case() {
        let hasher = foldhash::fast::RandomState::default();
        let long = format!("user@{}.test:8080", "Sub".repeat(30));
        for (a, b) in [
            ("example.test:8080", "Example.TEST:8080"),
            ("u@a.test", "U@A.test"),
            (long.as_str(), long.to_ascii_lowercase().as_str()),
        ] {
            assert_eq!(key(a), key(b), "{a} {b}");
            assert_eq!(hasher.hash_one(key(a)), hasher.hash_one(key(b)), "{a} {b}");
        }
        assert_ne!(key("example.test:8080"), key("example.test:8081"));
        assert_ne!(key("a.test"), key("u@a.test"));
        let mut https = key("a.test");
        https.https = true;
        assert_ne!(key("a.test"), https);
        let mut proxied = key("a.test");
        proxied.proxy = Some(0);
        assert_ne!(key("a.test"), proxied);
    }
}
