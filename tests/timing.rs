//! `Response::timing`: the Fetch Standard's fetch timing info, read as Resource Timing's
//! `PerformanceResourceTiming`, over new and reused connections, redirects, content
//! codings and TLS. Only the order of the times is checked, never their size.

mod net_support;

use std::time::Duration;

use net_support::*;
use tokio::io::AsyncWriteExt;
use whatwg_fetch::{Client, RequestInit, ResourceTiming, Response};

/// Runs `test` for at most ten seconds.
async fn bounded<F: std::future::Future>(test: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(10), test)
        .await
        .expect("the test took more than ten seconds")
}

/// A server answering `/` with "hello" and anything else with a redirect to `target`.
async fn redirecting_server(target: String) -> Server {
    hyper_server(move |req| {
        let target = target.clone();
        async move {
            if req.uri().path() == "/" {
                return http::Response::new(full("hello"));
            }
            http::Response::builder()
                .status(302)
                .header("location", target)
                .body(full(""))
                .unwrap()
        }
    })
    .await
}

/// `GET /` from `server` with a default client.
async fn fetch_root(server: &Server) -> Response {
    let client = Client::builder().build().unwrap();
    client
        .fetch(server.url("/"), RequestInit::default())
        .await
        .unwrap()
}

/// The response's timing, which a fetched `http:` response always has.
fn timing(response: &Response) -> ResourceTiming {
    response.timing().expect("a fetched response has timing")
}

/// Asserts that the times of `timing` come in Resource Timing's order, the body's end
/// included.
fn assert_in_order(timing: &ResourceTiming) {
    let times = [
        ("redirect_end", timing.redirect_end),
        ("fetch_start", timing.fetch_start),
        ("domain_lookup_start", timing.domain_lookup_start),
        ("domain_lookup_end", timing.domain_lookup_end),
        ("connect_start", timing.connect_start),
        ("connect_end", timing.connect_end),
        ("request_start", timing.request_start),
        ("response_start", timing.response_start),
        (
            "response_end",
            timing.response_end().expect("the body has been read"),
        ),
    ];
    assert!(timing.redirect_start <= timing.redirect_end, "{timing:?}");
    for pair in times.windows(2) {
        let [(earlier_name, earlier), (later_name, later)] = pair else {
            unreachable!()
        };
        assert!(
            earlier <= later,
            "{earlier_name} ({earlier:?}) after {later_name} ({later:?}): {timing:?}"
        );
    }
}

#[tokio::test]
async fn a_redirect_chain_over_a_new_connection_then_a_reused_one_keeps_its_times_in_order() {
    bounded(async {
        let target = redirecting_server(String::new()).await;
        let origin = redirecting_server(target.url("/")).await;
        let client = Client::builder().build().unwrap();

        // First: both origins get new connections.
        let mut response = client
            .fetch(origin.url("/redirect"), RequestInit::default())
            .await
            .unwrap();
        let first = timing(&response);
        assert_eq!(response.text().await.unwrap(), "hello");
        assert!(response.redirected());
        assert_in_order(&first);
        assert!(!first.connection_reused);
        assert_eq!(first.next_hop_protocol, "http/1.1");
        // A redirect starts with the fetch and ends where the fetch of the final URL
        // starts.
        assert_eq!(first.redirect_start, Duration::ZERO);
        assert_eq!(first.redirect_end, first.fetch_start);
        assert!(first.connect_start >= first.fetch_start);
        assert_eq!(first.secure_connection_start, Duration::ZERO);
        assert_eq!(first.worker_start, Duration::ZERO);

        // Then: both connections are reused, and their times are the fetch's start.
        let mut response = client
            .fetch(origin.url("/redirect"), RequestInit::default())
            .await
            .unwrap();
        let second = timing(&response);
        assert_eq!(response.text().await.unwrap(), "hello");
        assert_in_order(&second);
        assert!(second.connection_reused);
        assert_eq!(second.next_hop_protocol, "http/1.1");
        for time in [
            second.domain_lookup_start,
            second.domain_lookup_end,
            second.connect_start,
            second.connect_end,
        ] {
            assert_eq!(time, second.fetch_start, "{second:?}");
        }
        assert_eq!(second.secure_connection_start, Duration::ZERO);
        assert_eq!(origin.counts.accepts(), 1);
        assert_eq!(target.counts.accepts(), 1);
    })
    .await;
}

#[tokio::test]
async fn a_fetch_without_redirects_has_no_redirect_times() {
    bounded(async {
        let server = redirecting_server(String::new()).await;
        let mut response = fetch_root(&server).await;
        let timing = timing(&response);
        assert_eq!(timing.response_end(), None, "the body is not read yet");
        response.bytes().await.unwrap();
        assert_in_order(&timing);
        assert_eq!(timing.redirect_start, Duration::ZERO);
        assert_eq!(timing.redirect_end, Duration::ZERO);
        assert_eq!(timing.fetch_start, Duration::ZERO);
        assert_eq!(timing.encoded_body_size(), 5);
        assert_eq!(timing.decoded_body_size(), 5);
    })
    .await;
}

#[tokio::test]
async fn a_gzip_body_counts_its_encoded_and_decoded_sizes_apart() {
    bounded(async {
        let text = "timing ".repeat(200);
        let gzipped = {
            use async_compression::tokio::write::GzipEncoder;
            let mut encoder = GzipEncoder::new(Vec::new());
            encoder.write_all(text.as_bytes()).await.unwrap();
            encoder.shutdown().await.unwrap();
            encoder.into_inner()
        };
        let encoded_length = gzipped.len() as u64;
        let server = hyper_server(move |_req| {
            let gzipped = gzipped.clone();
            async move {
                http::Response::builder()
                    .header("content-encoding", "gzip")
                    .body(full(gzipped))
                    .unwrap()
            }
        })
        .await;
        let mut response = fetch_root(&server).await;
        let timing = timing(&response);
        assert_eq!(response.text().await.unwrap(), text);
        assert_eq!(timing.encoded_body_size(), encoded_length);
        assert_eq!(timing.decoded_body_size(), text.len() as u64);
        assert!(timing.encoded_body_size() < timing.decoded_body_size());
        assert_in_order(&timing);
    })
    .await;
}

#[tokio::test]
async fn a_response_without_a_body_ends_with_its_head() {
    bounded(async {
        let server = hyper_server(|_req| async {
            http::Response::builder()
                .status(204)
                .body(full(""))
                .unwrap()
        })
        .await;
        let response = fetch_root(&server).await;
        let timing = timing(&response);
        assert!(timing.response_end().is_some());
        assert_in_order(&timing);
        assert_eq!(timing.decoded_body_size(), 0);
    })
    .await;
}

#[tokio::test]
async fn responses_not_fetched_over_http_have_no_timing() {
    bounded(async {
        let constructed = Response::new(Some("x".into()), Default::default()).unwrap();
        assert!(constructed.timing().is_none());
        let client = Client::builder().build().unwrap();
        let data = client
            .fetch("data:,hello", RequestInit::default())
            .await
            .unwrap();
        assert!(data.timing().is_none());
    })
    .await;
}

/// A client trusting `pki` and sending `localhost` to `addr`.
fn tls_client(pki: &TestPki, addr: std::net::SocketAddr) -> Client {
    Client::builder()
        .tls_built_in_roots(false)
        .tls_system_roots(false)
        .add_root_certificate_der(pki.ca_der.clone())
        .resolve("localhost", addr)
        .build()
        .unwrap()
}

#[tokio::test]
async fn a_tls_connection_has_a_secure_connection_start_between_connect_start_and_end() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        for (alpn, protocol) in [
            (&[b"http/1.1".as_slice()][..], "http/1.1"),
            (&[b"h2".as_slice(), b"http/1.1".as_slice()][..], "h2"),
        ] {
            let server = tls_server(pki.acceptor(alpn), |_req| async {
                http::Response::new(full("secure"))
            })
            .await;
            let client = tls_client(&pki, server.addr);
            let url = format!("https://localhost:{}/", server.addr.port());
            let mut response = client
                .fetch(url.as_str(), RequestInit::default())
                .await
                .unwrap();
            let first = timing(&response);
            assert_eq!(response.text().await.unwrap(), "secure");
            assert_in_order(&first);
            assert_eq!(first.next_hop_protocol, protocol);
            assert!(!first.connection_reused);
            assert!(first.secure_connection_start > Duration::ZERO, "{first:?}");
            assert!(first.connect_start <= first.secure_connection_start);
            assert!(first.secure_connection_start <= first.connect_end);

            // Reused: the handshake is the fetch's start, as every connection time is.
            let mut response = client
                .fetch(url.as_str(), RequestInit::default())
                .await
                .unwrap();
            let second = timing(&response);
            response.text().await.unwrap();
            assert_in_order(&second);
            assert!(second.connection_reused, "{protocol}");
            assert_eq!(second.next_hop_protocol, protocol);
            assert_eq!(second.secure_connection_start, second.fetch_start);
            assert_eq!(server.counts.accepts(), 1);
        }
    })
    .await;
}

#[tokio::test]
async fn response_start_is_when_the_first_byte_of_the_head_arrived() {
    bounded(async {
        // The status line at once, the rest of the head and the body 1.5 s later.
        let server = raw_server(|mut stream| async move {
            let _ = read_head(&mut stream).await;
            let _ = stream.write_all(b"HTTP/1.1 200 OK\r\n").await;
            tokio::time::sleep(Duration::from_millis(1500)).await;
            let _ = stream
                .write_all(b"content-length: 5\r\nconnection: close\r\n\r\nhello")
                .await;
        })
        .await;
        let mut response = fetch_root(&server).await;
        assert_eq!(response.text().await.unwrap(), "hello");
        let timing = timing(&response);
        assert_in_order(&timing);
        let end = timing.response_end().unwrap();
        assert!(
            end - timing.response_start >= Duration::from_secs(1),
            "response_start {:?}, response_end {end:?}: the first byte came 1.5 s before the end",
            timing.response_start
        );
    })
    .await;
}
