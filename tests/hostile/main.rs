//! Hostile and flaky peers: small servers on 127.0.0.1 that misbehave on purpose.
//!
//! Every case is bounded in time, asserts the error's kind and cause, and then checks
//! that the next request on the same `Client` still works. Memory-sensitive cases assert
//! on bytes delivered or counted, never on timing.

#[path = "../net_support/mod.rs"]
mod net_support;
#[path = "../websocket_support/mod.rs"]
mod websocket_support;

use std::future::Future;
use std::time::Duration;

use whatwg_fetch::{Client, RequestInit};

/// `test`, failing if it takes longer than two minutes: every case here ends well
/// within that even on a slow, busy machine, so reaching it means a hang.
async fn bounded<T>(test: impl Future<Output = T>) -> T {
    tokio::time::timeout(Duration::from_secs(120), test)
        .await
        .expect("the test took too long")
}

/// After a hostile response, the same client still fetches `url`, a plain `200 ok`.
async fn next_request_works(client: &Client, url: &str) {
    let mut response = client.fetch(url, RequestInit::default()).await.unwrap();
    assert_eq!(response.status(), 200);
    assert_eq!(response.text().await.unwrap(), "ok");
}

mod body_limits;
mod codings;
mod cookies;
mod event_stream;
mod framing;
mod held_up;
mod keepalive_race;
mod multipart;
mod pool;
mod timeouts;
mod websocket;
