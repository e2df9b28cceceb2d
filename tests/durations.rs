//! Every option and API that takes a `Duration` (or milliseconds), given the extremes:
//! `Duration::ZERO`, 1 ns and `Duration::MAX`. None may panic or hang: a deadline past what
//! the clock can hold is no deadline, and a zero one fails at once or not at all.

mod net_support;

use std::convert::Infallible;
use std::net::SocketAddr;
use std::time::Duration;

use hyper::service::service_fn;
use hyper_util::rt::{TokioExecutor, TokioIo};
use net_support::{full, hyper_server};
use tokio::net::TcpListener;
use whatwg_fetch::retry::RetryPolicy;
use whatwg_fetch::{AbortSignal, Client, ClientBuilder, RequestInit};

const EXTREMES: [Duration; 3] = [Duration::ZERO, Duration::from_nanos(1), Duration::MAX];

/// How long any one fetch here may take before the test calls it a hang.
const LIMIT: Duration = Duration::from_secs(10);

/// An HTTP/1.1 server: `/retry` answers 503 with a `Retry-After` of `?SECONDS` (a
/// million years when absent) the first time on each connection, then 200; anything else
/// "ok".
async fn server() -> net_support::Server {
    let calls = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
    hyper_server(move |request| {
        let calls = calls.clone();
        async move {
            let first = calls.fetch_add(1, std::sync::atomic::Ordering::SeqCst) % 2 == 0;
            if request.uri().path() == "/retry" && first {
                let after = request.uri().query().unwrap_or("31556952000000").to_owned();
                return http::Response::builder()
                    .status(503)
                    .header("retry-after", after)
                    .body(full("later"))
                    .unwrap();
            }
            http::Response::new(full("ok"))
        }
    })
    .await
}

/// An HTTP/2 (prior knowledge) server answering "ok".
async fn h2_server() -> SocketAddr {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((tcp, _)) = listener.accept().await {
            tokio::spawn(async move {
                let service =
                    service_fn(|_| async { Ok::<_, Infallible>(http::Response::new(full("ok"))) });
                let _ = hyper::server::conn::http2::Builder::new(TokioExecutor::new())
                    .serve_connection(TokioIo::new(tcp), service)
                    .await;
            });
        }
    });
    addr
}

/// Fetches `url` twice with a client from `builder` (the second on a kept connection,
/// where there is one) and returns whether both gave "ok"; panics on a hang.
async fn fetch_twice(builder: ClientBuilder, url: &str, what: &str) -> bool {
    let client = builder.build().unwrap();
    let mut ok = true;
    for _ in 0..2 {
        let outcome = tokio::time::timeout(LIMIT, async {
            let mut response = client.fetch(url, RequestInit::default()).await?;
            response.text().await
        })
        .await
        .unwrap_or_else(|_| panic!("{what}: the fetch hangs"));
        ok &= outcome.is_ok_and(|text| text == "ok");
    }
    ok
}

/// A `ClientBuilder` option given a duration.
type SetOption = fn(ClientBuilder, Duration) -> ClientBuilder;

#[tokio::test]
async fn client_timeouts_take_any_duration() {
    let server = server().await;
    let url = server.url("/");
    for duration in EXTREMES {
        let options: [(&str, SetOption); 6] = [
            ("timeout", |b, d| b.timeout(d)),
            ("connect_timeout", |b, d| b.connect_timeout(d)),
            ("read_timeout", |b, d| b.read_timeout(d)),
            ("pool_idle_timeout", |b, d| b.pool_idle_timeout(Some(d))),
            ("happy_eyeballs_delay", |b, d| b.happy_eyeballs_delay(d)),
            ("tcp_keepalive", |b, d| b.tcp_keepalive(Some(d))),
        ];
        for (name, set) in options {
            let what = format!("{name}({duration:?})");
            let ok = fetch_twice(set(Client::builder(), duration), &url, &what).await;
            // A deadline that never comes never fails a fetch; a delay or an idle time
            // of any length does not either.
            let may_fail = duration < Duration::from_millis(1)
                && matches!(name, "timeout" | "connect_timeout" | "read_timeout");
            assert!(ok || may_fail, "{what} failed a fetch");
        }
    }
}

#[tokio::test]
async fn http2_keep_alive_takes_any_duration() {
    let addr = h2_server().await;
    let url = format!("http://{addr}/");
    for duration in EXTREMES {
        for while_idle in [false, true] {
            let builder = Client::builder()
                .http2_prior_knowledge(true)
                .http2_keep_alive_interval(Some(duration))
                .http2_keep_alive_timeout(duration)
                .http2_keep_alive_while_idle(while_idle);
            let what = format!("http2_keep_alive_interval and _timeout({duration:?})");
            let ok = fetch_twice(builder, &url, &what).await;
            // A ping every 0 ns that must be answered in 0 ns may close the connection;
            // any longer interval or timeout leaves it be.
            assert!(
                ok || duration < Duration::from_millis(1),
                "{what} failed a fetch"
            );
        }
    }
}

#[tokio::test]
async fn retry_delays_and_retry_after_take_any_duration() {
    let server = server().await;
    for duration in EXTREMES {
        for max in EXTREMES {
            // A `Retry-After` of a million years is more than any `max_delay` but
            // `Duration::MAX`'s: the 503 is the answer then, with no wait.
            for query in ["", "?0", "?1"] {
                let policy = RetryPolicy::new().base_delay(duration).max_delay(max);
                let client = Client::builder().retry(policy).build().unwrap();
                let url = server.url(&format!("/retry{query}"));
                let what = format!("base_delay({duration:?}) max_delay({max:?}) {url}");
                let waits_forever = max == Duration::MAX && query.is_empty();
                let fetch = client.fetch(url.as_str(), RequestInit::default());
                match tokio::time::timeout(Duration::from_secs(3), fetch).await {
                    Ok(response) => {
                        let status = response.unwrap().status();
                        assert!(status == 200 || status == 503, "{what}: {status}");
                    }
                    Err(_) => assert!(waits_forever, "{what}: the fetch hangs"),
                }
            }
        }
    }
}

#[tokio::test]
async fn abort_signal_timeout_takes_any_milliseconds() {
    let server = server().await;
    for milliseconds in [0, 1, u64::MAX] {
        let signal = AbortSignal::timeout_ms(milliseconds);
        let init = RequestInit {
            signal: Some(signal.clone()),
            ..Default::default()
        };
        let client = Client::builder().build().unwrap();
        let url = server.url("/");
        let fetch = client.fetch(url.as_str(), init);
        let outcome = tokio::time::timeout(LIMIT, fetch)
            .await
            .unwrap_or_else(|_| panic!("AbortSignal::timeout({milliseconds}): the fetch hangs"));
        if milliseconds == u64::MAX {
            assert!(outcome.is_ok(), "{outcome:?}");
            assert!(!signal.aborted());
        }
    }
    // The longest timeout is never reached; the shortest is, at once.
    let never = AbortSignal::timeout_ms(u64::MAX);
    let soon = AbortSignal::timeout_ms(0);
    // The same as a `Duration`: MAX, 1 ns (no whole millisecond: at once) and ZERO.
    let never_duration = AbortSignal::timeout(Duration::MAX);
    let nanosecond = AbortSignal::timeout(Duration::from_nanos(1));
    let zero = AbortSignal::timeout(Duration::ZERO);
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(!never.aborted());
    assert!(soon.aborted());
    assert!(!never_duration.aborted());
    assert!(nanosecond.aborted() && zero.aborted());
}
