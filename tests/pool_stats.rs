//! `Client::pool_stats` and `HyperTransport::pool_stats`: the pool's connections per
//! origin (open, idle, in use, queued) and the connections opened and closed.

mod net_support;

use std::sync::Arc;
use std::time::Duration;

use net_support::*;
use whatwg_fetch::net::{HyperTransport, PoolStats, Transport};
use whatwg_fetch::{Client, RequestInit};

/// Runs `test` for at most ten seconds.
async fn bounded<F: std::future::Future>(test: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .expect("the test took more than ten seconds")
}

/// A server that answers only once `n` requests are in it at once, so that `n`
/// concurrent requests need `n` connections.
async fn barrier_server(n: usize) -> Server {
    let barrier = Arc::new(tokio::sync::Barrier::new(n));
    hyper_server(move |_req| {
        let barrier = Arc::clone(&barrier);
        async move {
            barrier.wait().await;
            http::Response::new(full("ok"))
        }
    })
    .await
}

/// Fetches `url` `n` times at once and reads every body.
async fn burst(client: &Client, url: &str, n: usize) {
    let fetches = (0..n).map(|_| async {
        let mut response = client.fetch(url, RequestInit::default()).await.unwrap();
        assert_eq!(response.text().await.unwrap(), "ok");
    });
    futures_util::future::join_all(fetches).await;
}

fn origin_of(server: &Server) -> String {
    format!("http://{}", server.addr)
}

fn stats(client: &Client) -> PoolStats {
    client
        .pool_stats()
        .expect("a client with the built-in transport")
}

#[tokio::test]
async fn a_burst_leaves_one_idle_connection_per_request_it_had_in_flight() {
    bounded(async {
        let server = barrier_server(4).await;
        let client = Client::builder().build().unwrap();
        burst(&client, &server.url("/"), 4).await;
        let stats = stats(&client);
        let origin = stats
            .origin(&origin_of(&server))
            .expect("the origin is pooled");
        assert_eq!(origin.open, 4);
        assert_eq!(origin.idle, 4);
        assert_eq!(origin.in_use, 0);
        assert_eq!(origin.connecting, 0);
        assert_eq!(origin.queued, 0);
        assert!(!origin.http2);
        assert!(!origin.proxied);
        assert_eq!((origin.opened, origin.closed), (4, 0));
        assert_eq!((stats.connections_opened, stats.connections_closed), (4, 0));

        // The next burst reuses them.
        burst(&client, &server.url("/"), 4).await;
        let stats = self::stats(&client);
        assert_eq!(stats.connections_opened, 4);
        assert_eq!(server.counts.accepts(), 4);
    })
    .await;
}

#[tokio::test]
async fn requests_beyond_the_cap_are_counted_as_queued() {
    bounded(async {
        let release = Arc::new(tokio::sync::Semaphore::new(0));
        let server = {
            let release = Arc::clone(&release);
            hyper_server(move |_req| {
                let release = Arc::clone(&release);
                async move {
                    release.acquire().await.unwrap().forget();
                    http::Response::new(full("ok"))
                }
            })
            .await
        };
        let client = Client::builder()
            .max_connections_per_origin(1)
            .build()
            .unwrap();
        let origin = origin_of(&server);
        let url = server.url("/");
        let requests = {
            let client = client.clone();
            tokio::spawn(async move { burst(&client, &url, 3).await })
        };
        // One request on the one connection, two waiting for it.
        assert!(
            eventually(|| {
                stats(&client)
                    .origin(&origin)
                    .is_some_and(|o| (o.in_use, o.queued) == (1, 2))
            })
            .await,
            "{:?}",
            stats(&client)
        );
        release.add_permits(3);
        requests.await.unwrap();
        let stats = stats(&client);
        let origin = stats.origin(&origin).unwrap();
        assert_eq!((origin.open, origin.idle, origin.in_use), (1, 1, 0));
        assert_eq!(origin.queued, 0);
        assert_eq!(stats.connections_opened, 1);
    })
    .await;
}

#[tokio::test]
async fn connections_the_idle_timeout_closes_are_counted_closed() {
    bounded(async {
        let server = barrier_server(2).await;
        let client = Client::builder()
            .pool_idle_timeout(Some(Duration::from_millis(100)))
            .build()
            .unwrap();
        burst(&client, &server.url("/"), 2).await;
        assert_eq!(stats(&client).connections_opened, 2);
        assert!(
            eventually(|| stats(&client).connections_closed == 2).await,
            "{:?}",
            stats(&client)
        );
        let stats = stats(&client);
        assert_eq!(stats.connections_opened, 2);
        // An origin with nothing left leaves the pool, and its numbers with it.
        assert!(stats.origin(&origin_of(&server)).is_none(), "{stats:?}");
    })
    .await;
}

#[tokio::test]
async fn a_body_dropped_before_its_end_closes_its_connection() {
    bounded(async {
        let server =
            hyper_server(|_req| async { http::Response::new(full("a body that is never read")) })
                .await;
        let client = Client::builder().build().unwrap();
        let response = client
            .fetch(server.url("/"), RequestInit::default())
            .await
            .unwrap();
        let origin = origin_of(&server);
        assert_eq!(stats(&client).origin(&origin).map(|o| o.in_use), Some(1));
        drop(response);
        let stats = stats(&client);
        assert_eq!((stats.connections_opened, stats.connections_closed), (1, 1));
    })
    .await;
}

#[tokio::test]
async fn an_http2_origin_shows_its_one_shared_connection() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let server = tls_server(pki.acceptor(&[b"h2"]), |_req| async {
            http::Response::new(full("ok"))
        })
        .await;
        let transport = HyperTransport::builder()
            .tls_built_in_roots(false)
            .tls_system_roots(false)
            .add_root_certificate_der(pki.ca_der.clone())
            .resolve("localhost", server.addr)
            .build()
            .unwrap();
        let url = format!("https://localhost:{}/", server.addr.port());
        for _ in 0..3 {
            let (status, body) = get_text(&transport, &url).await;
            assert_eq!((status.as_u16(), body.as_str()), (200, "ok"));
        }
        let stats = transport.pool_stats();
        let origin = stats
            .origin(&format!("https://localhost:{}", server.addr.port()))
            .expect("the origin is pooled");
        assert!(origin.http2);
        assert_eq!((origin.open, origin.in_use, origin.idle), (1, 1, 0));
        assert_eq!(stats.connections_opened, 1);
    })
    .await;
}

#[tokio::test]
async fn a_client_with_a_transport_of_its_own_has_no_pool_stats() {
    let transport: Arc<dyn Transport> = Arc::new(HyperTransport::new().unwrap());
    let client = Client::builder().transport(transport).build().unwrap();
    assert!(client.pool_stats().is_none());
}
