//! Connection reuse under steady load.
//!
//! A client with `n` requests in flight to one origin needs `n` connections. With the
//! default pool every one of them stays idle between requests, so after the first burst
//! no request waits for a new connection (nor, on `https:`, a TLS handshake), even when
//! the load comes in bursts with every connection idle in between. The number of requests
//! after warm-up is `POOL_REQUESTS` when set (say 10000), 2,000 by default.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use whatwg_fetch::{Client, RequestInit};

use crate::net_support::{full, hyper_server};

/// Runs `requests` GETs of `url` from `in_flight` tasks at a time, each body read to its
/// end. Returns the number that failed.
async fn load(client: &Client, url: &str, requests: usize, in_flight: usize) -> usize {
    let next = Arc::new(AtomicUsize::new(0));
    let failures = Arc::new(AtomicUsize::new(0));
    let workers = (0..in_flight).map(|_| {
        let (client, url) = (client.clone(), url.to_owned());
        let (next, failures) = (Arc::clone(&next), Arc::clone(&failures));
        tokio::spawn(async move {
            while next.fetch_add(1, Ordering::Relaxed) < requests {
                let ok = match client.fetch(url.as_str(), RequestInit::default()).await {
                    Ok(mut response) => response.text().await.is_ok_and(|text| text == "ok"),
                    Err(_) => false,
                };
                if !ok {
                    failures.fetch_add(1, Ordering::Relaxed);
                }
            }
        })
    });
    for worker in futures_util::future::join_all(workers).await {
        worker.unwrap();
    }
    failures.load(Ordering::Relaxed)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_steady_load_reuses_the_connections_of_its_first_burst() {
    const IN_FLIGHT: usize = 200;
    const BURST: usize = 5 * IN_FLIGHT;
    let requests = std::env::var("POOL_REQUESTS")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(2_000);
    let server = hyper_server(|_request| async { http::Response::new(full("ok")) }).await;
    let client = Client::builder().build().unwrap();
    let url = server.url("/");
    let test = async {
        // Warm-up: one burst at full load.
        assert_eq!(load(&client, &url, BURST, IN_FLIGHT).await, 0);
        let warm = server.counts.accepts();
        // Then bursts one after another: each ends with every connection idle.
        let mut left = requests;
        while left > 0 {
            let burst = left.min(BURST);
            assert_eq!(load(&client, &url, burst, IN_FLIGHT).await, 0);
            left -= burst;
        }
        let after = server.counts.accepts() - warm;
        eprintln!(
            "{IN_FLIGHT} in flight: {warm} connections in warm-up, {after} new in the next \
             {requests} requests"
        );
        // Each request holds at most one connection, and a new one is made only when no
        // idle one is left: kept idle, the connections never outnumber the requests in
        // flight, however the requests interleave.
        assert!(
            server.counts.accepts() <= IN_FLIGHT,
            "{} connections for {IN_FLIGHT} requests in flight ({after} after warm-up)",
            server.counts.accepts()
        );
    };
    tokio::time::timeout(Duration::from_secs(120), test)
        .await
        .unwrap();
}
