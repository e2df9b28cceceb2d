//! HTTP/3 (the `http3` feature) against an HTTP/3 server of the test's own on 127.0.0.1,
//! with a certificate for `localhost` from a CA made for the test.

#[path = "../support/h3_server.rs"]
mod h3_server;
#[path = "../../tests/net_support/mod.rs"]
mod net_support;

use std::sync::atomic::Ordering;
use std::time::Duration;

use h3_server::h3_server;
use net_support::TestPki;
use whatwg_fetch::{Client, RequestInit};

fn prior_knowledge(pki: &TestPki) -> Client {
    Client::builder()
        .add_root_certificate_der(pki.ca_der.clone())
        .resolve("localhost", std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
        .http3_prior_knowledge()
        .build()
        .unwrap()
}

async fn bounded<F: std::future::Future>(test: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(30), test)
        .await
        .expect("test timed out")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_prior_knowledge_requests_go_over_http3_on_one_connection() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let server = h3_server(pki.cert.clone(), pki.key.clone_key(), 0);
        let client = prior_knowledge(&pki);
        let mut response = client
            .fetch(server.url("/first").as_str(), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.status(), 200);
        let timing = response.timing().unwrap();
        assert_eq!(timing.next_hop_protocol, "h3");
        assert_eq!(response.text().await.unwrap(), "GET /first 0");
        // A body, buffered and streamed.
        let text = client
            .post(server.url("/upload"))
            .body("twelve bytes")
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(text, "POST /upload 12");
        let chunks = futures_util::stream::iter(
            ["one ", "two ", "three"]
                .map(|chunk| Ok::<_, std::io::Error>(bytes::Bytes::from(chunk))),
        );
        let echoed = client
            .post(server.url("/echo"))
            .body(whatwg_fetch::Body::from_stream(chunks))
            .send()
            .await
            .unwrap()
            .text()
            .await
            .unwrap();
        assert_eq!(echoed, "one two three");
        // A large body, read whole.
        let large = client
            .get(server.url("/large"))
            .send()
            .await
            .unwrap()
            .bytes()
            .await
            .unwrap();
        assert_eq!(large.len(), 1 << 20);
        assert_eq!(server.counts.requests.load(Ordering::SeqCst), 4);
        assert_eq!(
            server.counts.connections.load(Ordering::SeqCst),
            1,
            "every request on the first connection"
        );
        assert_eq!(client.pool_stats().unwrap().http3_open, 1);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_prior_knowledge_a_server_not_answering_over_udp_fails_the_request() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        // A UDP port nobody listens on: QUIC's packets go unanswered (ICMP aside).
        let port = std::net::UdpSocket::bind("127.0.0.1:0")
            .unwrap()
            .local_addr()
            .unwrap()
            .port();
        let client = Client::builder()
            .add_root_certificate_der(pki.ca_der.clone())
            .connect_timeout(Duration::from_millis(500))
            .http3_prior_knowledge()
            .build()
            .unwrap();
        let error = client
            .fetch(
                format!("https://localhost:{port}/").as_str(),
                RequestInit::default(),
            )
            .await
            .unwrap_err();
        let message = format!("{error:#}");
        assert!(message.contains("connect timeout of 500ms"), "{message}");
    })
    .await;
}
