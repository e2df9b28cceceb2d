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

use std::collections::{HashMap, VecDeque};
use std::hash::{Hash, Hasher};

/// The pool's map from origin to its connections. Looked up twice per request (checkout
/// and release), so it hashes with foldhash rather than SipHash: keys are the origins the
/// client itself fetches, so the speed costs no safety that matters here.
type OriginMap = HashMap<Key, Origin, foldhash::fast::RandomState>;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::time::Duration;

use super::http2::H2Sender;
use http::uri::{Authority, Scheme};
use tokio::sync::oneshot;
use tokio::time::Instant;

use super::io::Http1;

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
    /// list; `None` for a direct connection.
    pub(crate) proxy: Option<usize>,
    /// Whether requests go to that proxy in absolute-form: an `http:` origin through an
    /// HTTP proxy (not a SOCKS5 one, which tunnels). Follows from `https` and `proxy`,
    /// so it takes no part in comparing and hashing.
    pub(crate) forward: bool,
}

impl PartialEq for Key {
    fn eq(&self, other: &Key) -> bool {
        let (a, b) = (self.authority.as_str(), other.authority.as_str());
        self.https == other.https
            && self.proxy == other.proxy
            // Byte for byte first: almost always enough, and one `memcmp`.
            && (a == b || a.eq_ignore_ascii_case(b))
    }
}

impl Eq for Key {}

impl Hash for Key {
    fn hash<H: Hasher>(&self, state: &mut H) {
        self.https.hash(state);
        self.proxy.hash(state);
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
            forward: false,
        }
    }

    /// Whether requests go to a proxy in absolute-form (an `http:` origin through an
    /// HTTP proxy), rather than to the origin or through a tunnel.
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
}

#[derive(Default)]
struct Origin {
    /// Idle HTTP/1 connections, most recently used last.
    idle: VecDeque<Idle>,
    /// HTTP/1 connections counted against the cap.
    total: usize,
    /// Requests waiting for a connection or a permit, first come first served.
    waiters: VecDeque<oneshot::Sender<Grant>>,
    /// The origin's multiplexed HTTP/2 connection, if it has one.
    h2: Option<H2Sender>,
    /// Whether a new connection will likely speak HTTP/2: an `https:` origin until it
    /// answers in HTTP/1.1. While such a connection is being made, other requests wait
    /// for it rather than open connections of their own.
    h2_likely: bool,
    /// Whether a connection expected to speak HTTP/2 is being made.
    h2_connecting: bool,
    /// When a request last took the HTTP/2 connection.
    h2_used: Option<Instant>,
}

impl Origin {
    fn new(h2_likely: bool) -> Origin {
        Origin {
            h2_likely,
            ..Origin::default()
        }
    }

    fn is_unused(&self) -> bool {
        self.total == 0 && self.idle.is_empty() && self.waiters.is_empty() && self.h2.is_none()
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
    H2(H2Sender),
}

/// What a checkout gives the caller.
pub(crate) enum Checkout {
    /// An idle connection; await `ready()` before use.
    Idle(Pooled),
    /// A place under the cap: connect, then wrap the connection with [`Pooled::new`].
    Connect(Slot),
    /// The origin's HTTP/2 connection.
    H2(H2Sender),
}

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
            }),
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
                if let Some(h2) = origin.h2.as_ref().filter(|_| !new_connection) {
                    if !h2.is_closed() {
                        let h2 = h2.clone();
                        if self.shared.config.idle_timeout.is_some() {
                            origin.h2_used = Some(Instant::now());
                        }
                        return Checkout::H2(h2);
                    }
                    origin.h2 = None;
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
                    while let Some(idle) = origin.idle.pop_back() {
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
                        return Checkout::Connect(slot);
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
                    return Checkout::Connect(slot);
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
                    return Checkout::Connect(pooled.into_slot());
                }
                Ok(Grant::Conn(pooled)) => return Checkout::Idle(pooled),
                Ok(Grant::H2(_)) if new_connection => continue,
                Ok(Grant::H2(tx)) => return Checkout::H2(tx),
                Ok(Grant::Permit(mut slot)) => {
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
                        None => Checkout::Connect(slot),
                    };
                }
                // The pool only drops a waiter's sender after removing it from the
                // queue without sending, which it never does; try again regardless.
                Err(_) => continue,
            }
        }
    }

    /// Records `tx` as the origin's HTTP/2 connection and hands it to every waiter.
    // Without the `http2` feature an `H2Sender` cannot exist: its paths are dead.
    #[cfg_attr(not(feature = "http2"), allow(unreachable_code, unused_variables))]
    pub(crate) fn insert_h2(&self, key: &Key, tx: &H2Sender) {
        let waiters = {
            let mut origins = self.shared.lock();
            let origin = origins.entry(key.clone()).or_default();
            origin.h2 = Some(tx.clone());
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
        if key.https {
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
        let key = pooled.slot.key.clone();
        let mut grant = Grant::Conn(pooled);
        loop {
            let waiter = {
                let mut origins = self.lock();
                let origin = origins.entry(key.clone()).or_default();
                match origin.waiters.pop_front() {
                    Some(waiter) => waiter,
                    None => {
                        let mut pooled = match grant {
                            Grant::Conn(pooled) => pooled,
                            mut other => {
                                // Only connections travel through here.
                                disarm(&mut other);
                                return;
                            }
                        };
                        pooled.slot.armed = false;
                        if origin.idle.len() < self.config.max_idle_per_origin {
                            origin.idle.push_back(Idle {
                                tx: pooled.tx,
                                since: Instant::now(),
                            });
                            return;
                        }
                        origin.total = origin.total.saturating_sub(1);
                        drop(origins);
                        // Over the idle cap: close it.
                        drop(pooled);
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

    /// Closes idle connections past the idle timeout, and closed ones.
    fn evict_expired(self: &Arc<Self>) {
        let expired_before = self.expired_before();
        let mut evicted = Vec::new();
        let mut h2_evicted = Vec::new();
        {
            let mut origins = self.lock();
            for (key, origin) in origins.iter_mut() {
                let mut kept = VecDeque::with_capacity(origin.idle.len());
                while let Some(idle) = origin.idle.pop_front() {
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
                }
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

impl Pooled {
    /// Wraps a new connection made under `slot`.
    pub(crate) fn new(tx: Http1, mut slot: Slot) -> Pooled {
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
