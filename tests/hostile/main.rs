//! Hostile and flaky peers: small servers on 127.0.0.1 that misbehave on purpose.
//!
//! Every case is bounded in time, asserts the error's kind and cause, and then checks
//! that the next request on the same `Client` still works. Memory-sensitive cases assert
//! on bytes delivered or counted, never on timing.

#[path = "../net_support/mod.rs"]
mod net_support;

mod body_limits;
mod codings;
mod cookies;
mod framing;
mod held_up;
mod keepalive_race;
mod multipart;
mod pool;
mod timeouts;
