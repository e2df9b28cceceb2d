//! HTTP/3 (the `http3` feature) against an HTTP/3 server of the test's own on 127.0.0.1,
//! with a certificate for `localhost` from a CA made for the test.

#[path = "../support/h3_server.rs"]
mod h3_server;
#[path = "../../tests/net_support/mod.rs"]
mod net_support;

use std::sync::atomic::Ordering;
use std::time::Duration;

use std::sync::Arc;
use std::sync::atomic::AtomicBool;

use h3_server::h3_server;
use net_support::TestPki;
use whatwg_fetch::net::AltSvcCache;
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

/// QUIC's handshake is TLS 1.3 alone (RFC 9001 §4.2): prior knowledge with a maximum
/// TLS version below it is refused when the client is built, where it would otherwise
/// fail each request's handshake; discovery alone is not refused, its origins going over
/// TCP.
#[test]
fn prior_knowledge_with_tls_1_2_at_most_is_refused_when_built() {
    use whatwg_fetch::TlsVersion;
    let error = Client::builder()
        .http3_prior_knowledge()
        .max_tls_version(TlsVersion::Tls12)
        .build()
        .unwrap_err();
    let message = format!("{error:#}");
    assert!(message.contains("HTTP/3 needs TLS 1.3"), "{message}");
    assert!(
        Client::builder()
            .http3(true)
            .max_tls_version(TlsVersion::Tls12)
            .build()
            .is_ok()
    );
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

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn public_key_pins_hold_over_http3_too() {
    use whatwg_fetch::NetworkError;
    use whatwg_fetch::net::PublicKeyPin;
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let server = h3_server(pki.cert.clone(), pki.key.clone_key(), 0);
        let pin = PublicKeyPin::from_certificate_der(&pki.cert).unwrap();
        let pinned = |pin: PublicKeyPin| {
            Client::builder()
                .add_root_certificate_der(pki.ca_der.clone())
                .http3_prior_knowledge()
                .pin_public_keys("localhost", [pin])
                .build()
                .unwrap()
        };
        let response = pinned(pin)
            .fetch(server.url("/pinned").as_str(), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.timing().unwrap().next_hop_protocol, "h3");
        // QUIC's TLS runs the same verifier: another key fails the handshake, and no
        // request reaches the server.
        let stranger = PublicKeyPin::from_sha256([0x5a; 32]);
        let error = pinned(stranger)
            .fetch(server.url("/refused").as_str(), RequestInit::default())
            .await
            .unwrap_err();
        assert!(
            matches!(error.network_error(), Some(NetworkError::Tls(_))),
            "{error:?}"
        );
        // quinn keeps the handshake's error as text: the pins are in it.
        let message = format!("{error:#}");
        assert!(
            message.contains("QUIC handshake with localhost"),
            "{message}"
        );
        assert!(message.contains(&pin.to_string()), "{message}");
        assert!(message.contains(&stranger.to_string()), "{message}");
        assert_eq!(server.counts.requests.load(Ordering::SeqCst), 1);
    })
    .await;
}

/// A TLS server over TCP on 127.0.0.1 (HTTP/2 or HTTP/1.1 by ALPN) whose every answer
/// announces `alt_svc`, with the body `tcp`.
async fn tcp_server_announcing(pki: &TestPki, alt_svc: String) -> net_support::Server {
    net_support::tls_server(pki.acceptor(&[b"h2", b"http/1.1"]), move |_request| {
        let alt_svc = alt_svc.clone();
        async move {
            http::Response::builder()
                .header("alt-svc", alt_svc)
                .body(net_support::full("tcp"))
                .unwrap()
        }
    })
    .await
}

fn discovering(pki: &TestPki, connect_timeout: Duration) -> Client {
    Client::builder()
        .add_root_certificate_der(pki.ca_der.clone())
        .resolve("localhost", std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
        .connect_timeout(connect_timeout)
        .build()
        .unwrap()
}

/// The protocol a `GET` of `url` went over, and its body.
async fn get(client: &Client, url: &str) -> (String, String) {
    let mut response = client.fetch(url, RequestInit::default()).await.unwrap();
    assert_eq!(response.status(), 200);
    let protocol = response.timing().unwrap().next_hop_protocol.to_string();
    (protocol, response.text().await.unwrap())
}

/// The body of the first `GET` of `url` to go over HTTP/3, once `url`'s origin has
/// announced it: the next request if its connection is made within the head start, else
/// one of the requests after it (the connection being made on), the ones before it
/// going over TCP.
async fn until_over_h3(client: &Client, url: &str) -> String {
    let mut over_tcp = 0;
    loop {
        let (protocol, body) = get(client, url).await;
        if protocol == "h3" {
            eprintln!("over TCP while the QUIC connection was being made: {over_tcp}");
            return body;
        }
        assert_eq!((protocol.as_str(), body.as_str()), ("h2", "tcp"));
        over_tcp += 1;
        assert!(over_tcp < 50, "never over HTTP/3");
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_origin_announcing_h3_is_asked_over_quic_next() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let quic = h3_server(pki.cert.clone(), pki.key.clone_key(), 0);
        let tcp =
            tcp_server_announcing(&pki, format!("h3=\":{}\"; ma=3600", quic.addr.port())).await;
        let client = discovering(&pki, Duration::from_secs(5));
        let url = format!("https://localhost:{}/page", tcp.addr.port());
        // Over TCP, which announces HTTP/3 on the server's UDP port.
        assert_eq!(
            get(&client, &url).await,
            ("h2".to_owned(), "tcp".to_owned())
        );
        assert_eq!(until_over_h3(&client, &url).await, "GET /page 0");
        assert_eq!(get(&client, &url).await.0, "h3");
        assert_eq!(quic.counts.connections.load(Ordering::SeqCst), 1);
        assert_eq!(client.pool_stats().unwrap().http3_open, 1);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_asking_for_http3_goes_over_quic_at_once_and_never_over_tcp() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let quic = h3_server(pki.cert.clone(), pki.key.clone_key(), 0);
        let client = discovering(&pki, Duration::from_millis(500));
        // No announcement, no prior knowledge: the request's own version.
        let mut response = client
            .get(quic.url("/asked"))
            .version(whatwg_fetch::Version::HTTP_3)
            .send()
            .await
            .unwrap();
        assert_eq!(response.version(), whatwg_fetch::Version::HTTP_3);
        assert_eq!(response.text().await.unwrap(), "GET /asked 0");
        // A server over TCP alone: a request asking for HTTP/3 fails, unsent over TCP;
        // one that does not ask goes over TCP.
        let requests = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = std::sync::Arc::clone(&requests);
        let tcp = net_support::tls_server(pki.acceptor(&[b"h2"]), move |_request| {
            counted.fetch_add(1, Ordering::SeqCst);
            async { http::Response::new(net_support::full("tcp")) }
        })
        .await;
        let url = format!("https://localhost:{}/", tcp.addr.port());
        let asked = client
            .get(&url)
            .version(whatwg_fetch::Version::HTTP_3)
            .send()
            .await;
        let message = format!("{:#}", asked.unwrap_err());
        assert!(message.contains("connect timeout of 500ms"), "{message}");
        assert_eq!(
            get(&client, &url).await,
            ("h2".to_owned(), "tcp".to_owned())
        );
        assert_eq!(
            requests.load(Ordering::SeqCst),
            1,
            "only the request that did not ask"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_to_an_alternative_name_it_in_alt_used() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let quic = h3_server(pki.cert.clone(), pki.key.clone_key(), 0);
        let port = quic.addr.port();
        let tcp = tcp_server_announcing(&pki, format!("h3=\":{port}\"")).await;
        let client = discovering(&pki, Duration::from_secs(5));
        let url = format!("https://localhost:{}/alt-used", tcp.addr.port());
        assert_eq!(get(&client, &url).await.0, "h2");
        // RFC 7838 §5: the alternative's host (the origin's, as the field names none)
        // and port.
        assert_eq!(
            until_over_h3(&client, &url).await,
            format!("localhost:{port}")
        );
        // With prior knowledge the origin itself is asked: no alternative, no header.
        let client = prior_knowledge(&pki);
        let mut response = client.get(quic.url("/alt-used")).send().await.unwrap();
        assert_eq!(response.text().await.unwrap(), "none");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alt_svc_clear_received_over_http3_sends_the_next_request_over_tcp() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let quic = h3_server(pki.cert.clone(), pki.key.clone_key(), 0);
        let tcp = tcp_server_announcing(&pki, format!("h3=\":{}\"", quic.addr.port())).await;
        let client = discovering(&pki, Duration::from_secs(5));
        let origin = format!("https://localhost:{}", tcp.addr.port());
        assert_eq!(get(&client, &format!("{origin}/")).await.0, "h2");
        until_over_h3(&client, &format!("{origin}/")).await;
        // The alternative's answer clears the origin's alternatives (RFC 7838 §3).
        assert_eq!(
            get(&client, &format!("{origin}/clear")).await,
            ("h3".to_owned(), "GET /clear 0".to_owned())
        );
        // So the next request goes over TCP, whose answer announces h3 again.
        assert_eq!(get(&client, &format!("{origin}/")).await.0, "h2");
        assert_eq!(get(&client, &format!("{origin}/")).await.0, "h3");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_udp_blocked_no_request_fails_and_the_alternative_is_marked_broken() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        // A UDP port that takes every datagram and answers none: QUIC blackholed.
        let blackhole = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        let port = blackhole.local_addr().unwrap().port();
        let datagrams = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counted = std::sync::Arc::clone(&datagrams);
        tokio::spawn(async move {
            let mut buffer = vec![0; 65536];
            while blackhole.recv_from(&mut buffer).await.is_ok() {
                counted.fetch_add(1, Ordering::SeqCst);
            }
        });
        let tcp = tcp_server_announcing(&pki, format!("h3=\":{port}\"")).await;
        let connect_timeout = Duration::from_millis(800);
        let client = discovering(&pki, connect_timeout);
        let url = format!("https://localhost:{}/", tcp.addr.port());
        assert_eq!(get(&client, &url).await.0, "h2");
        // The next request tries QUIC, waits the head start, then goes over TCP.
        let started = std::time::Instant::now();
        assert_eq!(
            get(&client, &url).await,
            ("h2".to_owned(), "tcp".to_owned())
        );
        eprintln!(
            "UDP blackholed: the request after the announcement took {:?}",
            started.elapsed()
        );
        assert!(datagrams.load(Ordering::SeqCst) > 0, "QUIC was tried");
        // The attempt goes on until the connect timeout, then marks h3 broken.
        tokio::time::sleep(connect_timeout + Duration::from_millis(400)).await;
        let tried = datagrams.load(Ordering::SeqCst);
        for _ in 0..3 {
            let started = std::time::Instant::now();
            assert_eq!(get(&client, &url).await.0, "h2");
            eprintln!(
                "UDP blackholed, h3 broken: a request took {:?}",
                started.elapsed()
            );
        }
        assert_eq!(
            datagrams.load(Ordering::SeqCst),
            tried,
            "not tried again while broken"
        );
        assert_eq!(client.pool_stats().unwrap().http3_open, 0);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_response_head_without_end_fails_at_the_limit_without_being_kept() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        // A HEADERS frame (type 0x01) declaring 1 GiB (a 4-byte varint), then 64 KiB
        // pieces of it until the client stops reading.
        let mut head = vec![0x01, 0x80 | 0x40, 0x00, 0x00, 0x00];
        head.extend(std::iter::repeat_n(b'a', 64 * 1024 - head.len()));
        let (server, written) =
            h3_server::h3_raw_server(pki.cert.clone(), pki.key.clone_key(), head, 16 * 1024);
        let client = prior_knowledge(&pki);
        let error = client
            .fetch(server.url("/").as_str(), RequestInit::default())
            .await
            .unwrap_err();
        let message = format!("{error:#}");
        assert!(
            message.contains("HTTP/3 response head is over 256 KiB"),
            "{message}"
        );
        // What the server could write before the client stopped it: the client's head
        // budget and QUIC's windows, far from the 1 GiB declared.
        tokio::time::sleep(Duration::from_millis(200)).await;
        let written = written.load(Ordering::SeqCst);
        eprintln!("an endless HTTP/3 head: {written} bytes written before the client stopped it");
        assert!(written < 16 << 20, "{written} bytes written");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_on_a_connection_the_server_closed_goes_on_a_new_one() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let server =
            h3_server::h3_server_closing(pki.cert.clone(), pki.key.clone_key(), 0, Some(1));
        let client = prior_knowledge(&pki);
        for path in ["/one", "/two", "/three"] {
            let text = client
                .get(server.url(path))
                .send()
                .await
                .unwrap()
                .text()
                .await
                .unwrap();
            assert_eq!(text, format!("GET {path} 0"));
            // Each connection closes after its first answer.
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        assert_eq!(server.counts.connections.load(Ordering::SeqCst), 3);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_server_resetting_every_stream_fails_the_request_and_never_hangs() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let server = h3_server::h3_resetting_server(pki.cert.clone(), pki.key.clone_key());
        let client = prior_knowledge(&pki);
        let error = client.get(server.url("/")).send().await.unwrap_err();
        let message = format!("{error:#}");
        assert!(message.contains("network error"), "{message}");
        // And a POST, whose body cannot be sent again: one stream only.
        let before = server.counts.requests.load(Ordering::SeqCst);
        let error = client
            .post(server.url("/"))
            .body(whatwg_fetch::Body::from_stream(futures_util::stream::iter(
                [Ok::<_, std::io::Error>(bytes::Bytes::from("streamed"))],
            )))
            .send()
            .await
            .unwrap_err();
        assert!(format!("{error:#}").contains("network error"));
        assert_eq!(server.counts.requests.load(Ordering::SeqCst), before + 1);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_flood_of_alternatives_is_ignored_whole() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let quic = h3_server(pki.cert.clone(), pki.key.clone_key(), 0);
        // The real alternative first, then 2,000 more: 40 KB, over the 4 KiB read.
        let mut flood = format!("h3=\":{}\"", quic.addr.port());
        for port in 1..=2000 {
            flood.push_str(&format!(", h3=\"a{port}.example:{port}\""));
        }
        let tcp = tcp_server_announcing(&pki, flood).await;
        let client = discovering(&pki, Duration::from_secs(5));
        let url = format!("https://localhost:{}/", tcp.addr.port());
        for _ in 0..3 {
            assert_eq!(get(&client, &url).await.0, "h2");
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        assert_eq!(quic.counts.connections.load(Ordering::SeqCst), 0);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn requests_past_the_servers_max_streams_wait_for_a_stream_and_all_succeed() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        // Two request streams at once, each answered after 100 ms.
        let server = h3_server::h3_server_limited(pki.cert.clone(), pki.key.clone_key(), 2);
        let client = prior_knowledge(&pki);
        let url = server.url("/slow");
        let started = std::time::Instant::now();
        let requests = (0..8).map(|_| {
            let (client, url) = (client.clone(), url.clone());
            tokio::spawn(async move { client.get(url).send().await.unwrap().text().await.unwrap() })
        });
        for request in futures_util::future::join_all(requests).await {
            assert_eq!(request.unwrap(), "GET /slow 0");
        }
        let took = started.elapsed();
        eprintln!("8 requests through 2 streams of 100 ms: {took:?}");
        // Four waves of two, on the one connection.
        assert!(took >= Duration::from_millis(400), "{took:?}");
        assert_eq!(server.counts.connections.load(Ordering::SeqCst), 1);
        assert_eq!(server.counts.requests.load(Ordering::SeqCst), 8);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_saved_alt_svc_cache_takes_the_next_run_over_http3_without_asking_again() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let quic = h3_server(pki.cert.clone(), pki.key.clone_key(), 0);
        let port = quic.addr.port();
        // Over TCP, announcing HTTP/3 while `announcing` holds.
        let announcing = Arc::new(AtomicBool::new(true));
        let announces = Arc::clone(&announcing);
        let tcp = net_support::tls_server(pki.acceptor(&[b"h2"]), move |_request| {
            let mut response = http::Response::builder();
            if announces.load(Ordering::SeqCst) {
                response = response.header("alt-svc", format!("h3=\":{port}\"; ma=3600"));
            }
            async move { response.body(net_support::full("tcp")).unwrap() }
        })
        .await;
        let url = format!("https://localhost:{}/", tcp.addr.port());
        let with_cache = |cache: Arc<AltSvcCache>| {
            Client::builder()
                .add_root_certificate_der(pki.ca_der.clone())
                .resolve("localhost", std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
                .alt_svc_cache(cache)
                .build()
                .unwrap()
        };
        let cache = Arc::new(AltSvcCache::new());
        let first_run = with_cache(Arc::clone(&cache));
        assert_eq!(get(&first_run, &url).await.0, "h2");
        assert_eq!(cache.len(), 1);
        let mut file = Vec::new();
        cache.save(&mut file).unwrap();
        let file = String::from_utf8(file).unwrap();
        let line = file.lines().nth(1).unwrap();
        let origin = format!("h1 localhost {} ", tcp.addr.port());
        assert!(
            line.starts_with(&format!("{origin}h3 localhost {port} \"")),
            "{file}"
        );
        assert!(line.ends_with("\" 0 0"), "{file}");
        drop(first_run);
        // The next run, with the cache loaded from the file: the origin announces
        // nothing any more, and the requests go over HTTP/3 all the same.
        announcing.store(false, Ordering::SeqCst);
        let next_run = with_cache(Arc::new(AltSvcCache::load(file.as_bytes()).unwrap()));
        assert_eq!(until_over_h3(&next_run, &url).await, "GET / 0");
        assert_eq!(quic.counts.connections.load(Ordering::SeqCst), 1);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_alt_svc_protocol_id_cannot_write_a_record_for_another_origin() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        // A protocol-id that percent-decodes to a line break and the first four fields of
        // a record, which the rest of its line in the file would complete: bank.example,
        // an origin this server does not speak for, at evil.example:8443. Then an
        // alternative of its own.
        let alt_svc = concat!(
            "x%0Ah1%20bank.example%20443%20h3=\"evil.example:8443\"; ma=3600, ",
            "h3=\":4433\"; ma=3600"
        );
        let tcp = tcp_server_announcing(&pki, alt_svc.to_owned()).await;
        let cache = Arc::new(AltSvcCache::new());
        let client = Client::builder()
            .add_root_certificate_der(pki.ca_der.clone())
            .resolve("localhost", std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
            .alt_svc_cache(Arc::clone(&cache))
            .build()
            .unwrap();
        let url = format!("https://localhost:{}/", tcp.addr.port());
        assert_eq!(get(&client, &url).await.0, "h2");
        assert_eq!(cache.len(), 1);
        let mut file = Vec::new();
        cache.save(&mut file).unwrap();
        let file = String::from_utf8(file).unwrap();
        // The server's own alternative alone is written, and read back.
        let records: Vec<&str> = file.lines().filter(|line| !line.starts_with('#')).collect();
        assert_eq!(records.len(), 1, "{file}");
        let own = format!("h1 localhost {} h3 localhost 4433 \"", tcp.addr.port());
        assert!(records[0].starts_with(&own), "{file}");
        assert!(!file.contains("bank.example"), "{file}");
        assert_eq!(AltSvcCache::load(file.as_bytes()).unwrap().len(), 1);
    })
    .await;
}

#[test]
fn an_alt_svc_cache_reads_curls_file_and_writes_what_curl_reads() {
    // As curl 7.88 writes its `--alt-svc` file, the dates moved far ahead, with lines
    // that are not records around them.
    let curls = concat!(
        "# Your alt-svc cache. https://curl.se/docs/alt-svc.html\n",
        "# This file was generated by libcurl! Edit at your own risk.\n",
        "h1 localhost 18443 h3 localhost 4433 \"20901205 00:40:47\" 0 0\n",
        "h1 localhost 18443 h3 alt.example 8443 \"20901205 23:40:47\" 1 0\n",
        "h1 localhost 18443 h2 localhost 443 \"20901205 23:40:47\" 0 0\n",
        "h2 [::1] 443 h3 [::1] 443 \"20901205 23:40:47\" 0 0\n",
        "h2 Example.COM 443 h3 example.com 443 \"20001205 23:40:47\" 0 0\n",
        "h2 example.net 0 h3 example.net 443 \"20901205 23:40:47\" 0 0\n",
        "h2 example.net 443 h3 example.net 443 \"20900230 23:40:47\" 0 0\n",
        "h2 example.net 443 h3 exa mple.net 443 \"20901205 23:40:47\" 0 0\n",
        "h2 example.org 443 h3 example.org 443 \"20901205 23:40:47\" 0 0 extra\n",
        "   \n",
    );
    let cache = AltSvcCache::load(curls.as_bytes()).unwrap();
    // localhost:18443 and [::1]:443; the expired, the port 0, the 30th of February, the
    // host with a space and the line with a field too many are skipped.
    assert_eq!(cache.len(), 2);
    let mut saved = Vec::new();
    cache.save(&mut saved).unwrap();
    let saved = String::from_utf8(saved).unwrap();
    let records: Vec<&str> = saved
        .lines()
        .filter(|line| !line.starts_with('#'))
        .collect();
    assert_eq!(
        records,
        [
            "h1 [::1] 443 h3 [::1] 443 \"20901205 23:40:47\" 0 0",
            "h1 localhost 18443 h3 localhost 4433 \"20901205 00:40:47\" 0 0",
            "h1 localhost 18443 h3 alt.example 8443 \"20901205 23:40:47\" 1 0",
            "h1 localhost 18443 h2 localhost 443 \"20901205 23:40:47\" 0 0",
        ]
    );
    // What it wrote, it reads back the same.
    let again = AltSvcCache::load(saved.as_bytes()).unwrap();
    let mut resaved = Vec::new();
    again.save(&mut resaved).unwrap();
    assert_eq!(String::from_utf8(resaved).unwrap(), saved);
}

#[test]
fn an_alt_svc_file_past_the_limits_is_read_within_them() {
    // A line of 1 MB, then 3,000 origins of 20 alternatives each.
    let mut file = format!(
        "h1 {} 443 h3 a.example 443 \"20901205 23:40:47\" 0 0\n",
        "a".repeat(1 << 20)
    );
    for origin in 0..3_000 {
        for port in 1..=20 {
            file.push_str(&format!(
                "h1 o{origin}.example 443 h3 o{origin}.example {port} \"20901205 23:40:47\" 0 0\n"
            ));
        }
    }
    let cache = AltSvcCache::load(file.as_bytes()).unwrap();
    assert_eq!(cache.len(), 1_000);
    let mut saved = Vec::new();
    cache.save(&mut saved).unwrap();
    let saved = String::from_utf8(saved).unwrap();
    let records = saved.lines().filter(|line| !line.starts_with('#'));
    assert_eq!(records.count(), 16_000);
    assert!(!saved.contains("aaaa"));
}

/// A client with prior knowledge of HTTP/3 for `localhost`, reached at `addr`, sending 0-RTT
/// data with `early_data`.
fn early(pki: &TestPki, addr: std::net::SocketAddr, early_data: bool) -> Client {
    early_builder(pki, addr, early_data).build().unwrap()
}

fn early_builder(
    pki: &TestPki,
    addr: std::net::SocketAddr,
    early_data: bool,
) -> whatwg_fetch::ClientBuilder {
    Client::builder()
        .add_root_certificate_der(pki.ca_der.clone())
        .resolve("localhost", addr)
        .http3_prior_knowledge()
        .tls_early_data(early_data)
}

/// A server taking 0-RTT data (`h3_server_early`) behind a relay, the relay's port, and
/// a client sending 0-RTT data (`tune` sets the rest) whose first request went over a
/// connection the server has closed since: its next connection resumes the session.
async fn resumable(
    pki: &TestPki,
    too_early: bool,
    tune: impl FnOnce(whatwg_fetch::ClientBuilder) -> whatwg_fetch::ClientBuilder,
) -> (h3_server::H3Server, h3_server::UdpRelay, u16, Client) {
    let server = h3_server::h3_server_early(pki.cert.clone(), pki.key.clone_key(), too_early);
    let relay = h3_server::udp_relay(server.addr).await;
    let port = relay.addr.port();
    let client = tune(early_builder(pki, relay.addr, true)).build().unwrap();
    // No session to resume yet: no 0-RTT data.
    let first = early_get(&client, port, "/first", 0).await;
    assert_eq!(first, (200, "GET /first 0".to_owned()));
    assert_eq!(relay.early_bytes.load(Ordering::SeqCst), 0);
    until_closed(&client).await;
    (server, relay, port, client)
}

/// `GET`s `path` of `localhost` at `port`, with `pad` bytes of header, and the body.
async fn early_get(client: &Client, port: u16, path: &str, pad: usize) -> (u16, String) {
    let mut response = client
        .get(format!("https://localhost:{port}{path}"))
        .header("x-pad", "p".repeat(pad))
        .send()
        .await
        .unwrap();
    assert_eq!(response.version(), whatwg_fetch::Version::HTTP_3);
    (response.status(), response.text().await.unwrap())
}

/// Waits for the client's HTTP/3 connections to be closed (by the server).
async fn until_closed(client: &Client) {
    while client.pool_stats().unwrap().http3_open > 0 {
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_early_data_a_resumed_connection_sends_safe_requests_as_0rtt_data_alone() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let (server, relay, port, client) = resumable(&pki, false, |builder| builder).await;
        // The second resumes it, and its GET goes as 0-RTT data, 3 KB of header and all
        // (2,250 bytes once Huffman-coded).
        let second = early_get(&client, port, "/second", 3_000).await;
        assert_eq!(second, (200, "GET /second 0".to_owned()));
        let sent_early = relay.early_bytes.load(Ordering::SeqCst);
        assert!(sent_early > 2_250, "{sent_early} bytes of 0-RTT data");
        until_closed(&client).await;
        // A POST waits for the handshake: no more than the control streams go early.
        let mut response = client
            .post(format!("https://localhost:{port}/echo"))
            .body(vec![b'b'; 6_000])
            .send()
            .await
            .unwrap();
        assert_eq!(response.bytes().await.unwrap().len(), 6_000);
        let more = relay.early_bytes.load(Ordering::SeqCst) - sent_early;
        assert!(more < 1_000, "{more} bytes of 0-RTT data for a POST");
        assert_eq!(server.counts.connections.load(Ordering::SeqCst), 3);
        // Off by default: a client resuming a session sends nothing early.
        let sent_early = relay.early_bytes.load(Ordering::SeqCst);
        let client = early(&pki, relay.addr, false);
        for path in ["/third", "/fourth"] {
            assert_eq!(early_get(&client, port, path, 3_000).await.0, 200);
            until_closed(&client).await;
        }
        assert_eq!(relay.early_bytes.load(Ordering::SeqCst), sent_early);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_whose_0rtt_data_is_rejected_is_sent_again_on_a_whole_connection() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let (_server, relay, port, client) = resumable(&pki, false, |builder| builder).await;
        // Another server behind the same address, which knows nothing of the session:
        // it rejects the 0-RTT data, and the request is sent again.
        let other = h3_server::h3_server_early(pki.cert.clone(), pki.key.clone_key(), false);
        relay.retarget(other.addr);
        let second = early_get(&client, port, "/second", 0).await;
        assert_eq!(second, (200, "GET /second 0".to_owned()));
        assert!(
            relay.early_bytes.load(Ordering::SeqCst) > 0,
            "0-RTT was tried"
        );
        // The connection that tried, closed, and the one made whole.
        assert_eq!(other.counts.connections.load(Ordering::SeqCst), 2);
        assert_eq!(other.counts.requests.load(Ordering::SeqCst), 1);
        // A POST waits for the handshake: rejected, it was never sent, and goes once on
        // a connection made whole.
        until_closed(&client).await;
        let third = h3_server::h3_server_early(pki.cert.clone(), pki.key.clone_key(), false);
        relay.retarget(third.addr);
        let tried = relay.early_bytes.load(Ordering::SeqCst);
        let mut response = client
            .post(format!("https://localhost:{port}/echo"))
            .body("once")
            .send()
            .await
            .unwrap();
        assert_eq!(response.text().await.unwrap(), "once");
        assert!(
            relay.early_bytes.load(Ordering::SeqCst) > tried,
            "0-RTT was tried"
        );
        assert_eq!(third.counts.connections.load(Ordering::SeqCst), 2);
        assert_eq!(third.counts.requests.load(Ordering::SeqCst), 1);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_425_too_early_is_sent_again_after_the_handshake_only_if_it_went_early() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        // The first request of each connection but the first is answered 425.
        let (server, relay, port, client) = resumable(&pki, true, |builder| builder).await;
        // Sent early, answered 425, sent again on the same connection once it is whole.
        let second = early_get(&client, port, "/second", 0).await;
        assert_eq!(second, (200, "GET /second 0".to_owned()));
        assert!(relay.early_bytes.load(Ordering::SeqCst) > 0);
        assert_eq!(server.counts.connections.load(Ordering::SeqCst), 2);
        assert_eq!(server.counts.requests.load(Ordering::SeqCst), 3);
        // Sent early and answered 425 again once the handshake is done: sent once more
        // only, the second 425 the caller's.
        until_closed(&client).await;
        let before = server.counts.requests.load(Ordering::SeqCst);
        assert_eq!(early_get(&client, port, "/too-early", 0).await.0, 425);
        assert_eq!(server.counts.requests.load(Ordering::SeqCst) - before, 2);
        // Not sent early: the 425 is the caller's (RFC 8470 §5.2).
        let without = early(&pki, relay.addr, false);
        assert_eq!(early_get(&without, port, "/third", 0).await.0, 425);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_sent_as_0rtt_data_to_a_server_gone_silent_fails_at_the_connect_timeout() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let (_server, relay, port, client) = resumable(&pki, false, |builder| {
            builder.connect_timeout(Duration::from_millis(400))
        })
        .await;
        // Nothing answers any more: the request goes early, then waits no longer than
        // the handshake may take, as a request on a connection made whole would.
        let silent = tokio::net::UdpSocket::bind("127.0.0.1:0").await.unwrap();
        relay.retarget(silent.local_addr().unwrap());
        let started = std::time::Instant::now();
        let failed = client
            .get(format!("https://localhost:{port}/second"))
            .send()
            .await;
        let took = started.elapsed();
        let message = format!("{:#}", failed.unwrap_err());
        assert!(message.contains("connect timeout of 400ms"), "{message}");
        assert!(
            relay.early_bytes.load(Ordering::SeqCst) > 0,
            "0-RTT was tried"
        );
        // The 0-RTT connection's handshake, then one made whole, each at most 400 ms.
        assert!(took < Duration::from_secs(3), "{took:?}");
    })
    .await;
}

/// An HTTP/3 frame as a server writes it (RFC 9114 §7.1): its type and length as
/// one-byte variable-length integers (both under 64 here), then its payload.
fn frame(kind: u8, payload: &[u8]) -> Vec<u8> {
    assert!(kind < 64 && payload.len() < 64);
    let mut frame = vec![kind, payload.len() as u8];
    frame.extend_from_slice(payload);
    frame
}

/// A `HEADERS` frame of `:status: 200` alone: the QPACK field section's prefix (no
/// dynamic table: a Required Insert Count and a Delta Base of 0), then the static
/// table's entry 25 as an indexed field line (RFC 9204 §4.5.2, Appendix A).
fn headers_200() -> Vec<u8> {
    frame(0x01, &[0x00, 0x00, 0xc0 | 25])
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn empty_data_frames_in_a_body_are_skipped_and_the_connection_lives_on() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        // RFC 9114 §7.2.1 allows a DATA frame of no bytes anywhere in a body; Caddy
        // sends one in the middle of a body it compresses on the fly. Here: before the
        // first bytes, between two pieces (twice, the second with its type and length
        // as two-byte integers, RFC 9000 §16), and after the last.
        let mut response = headers_200();
        response.extend(frame(0x00, b""));
        response.extend(frame(0x00, b"hello "));
        response.extend(frame(0x00, b""));
        response.extend([0x40, 0x00, 0x40, 0x00]);
        response.extend(frame(0x00, b"world"));
        response.extend(frame(0x00, b""));
        let (server, _) =
            h3_server::h3_raw_server(pki.cert.clone(), pki.key.clone_key(), response, 1);
        let client = prior_knowledge(&pki);
        for _ in 0..2 {
            let mut response = client.get(server.url("/")).send().await.unwrap();
            assert_eq!(response.status(), 200);
            assert_eq!(response.text().await.unwrap(), "hello world");
        }
        // Both on the first connection: it was not torn down.
        assert_eq!(server.counts.connections.load(Ordering::SeqCst), 1);
        assert_eq!(server.counts.requests.load(Ordering::SeqCst), 2);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_whose_stream_ends_inside_a_data_frame_fails_and_the_next_request_goes_on() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        // A DATA frame declaring 16 bytes, 5 of them sent before the stream's end (RFC
        // 9114 §7.1: a truncated frame is an error). h3 0.0.8 takes the end for the body's,
        // then asserts, reading on for trailers: a panic in the reading task.
        let mut response = headers_200();
        response.extend([0x00, 0x10]);
        response.extend(b"short");
        let (server, _) =
            h3_server::h3_raw_server(pki.cert.clone(), pki.key.clone_key(), response, 1);
        let client = prior_knowledge(&pki);
        for _ in 0..2 {
            let mut response = client.get(server.url("/")).send().await.unwrap();
            assert_eq!(response.status(), 200);
            let error = response.text().await.unwrap_err();
            let message = format!("{error:#}");
            assert!(
                message.contains("11 bytes before the end of a frame's payload"),
                "{message}"
            );
        }
    })
    .await;
}

/// The error codes of RFC 9114 §8.1 a client closes a connection with here.
const H3_EXCESSIVE_LOAD: u64 = 0x107;
const H3_ID_ERROR: u64 = 0x108;

/// The head of a frame of a reserved type (0x21, RFC 9114 §7.2.8), which a client must
/// skip, declaring `length` bytes (an eight-byte length, RFC 9000 §16).
fn reserved_frame_header(length: u64) -> Vec<u8> {
    let mut header = vec![0x21];
    header.extend((length | 0xc0 << 56).to_be_bytes());
    header
}

/// Asserts that `error`, a request's on a connection the client closed for what the
/// server sent, is a network error (a `TypeError`, the server having broken HTTP/3) that
/// says so and names what the server sent (`cause`), not in the words of h3, which knows
/// the failure only as an internal error of the QUIC layer, as if the server had sent it.
fn assert_closed_by_the_client_for(error: &whatwg_fetch::Error, cause: &str) {
    let message = format!("{error:#}");
    eprintln!("{message}");
    assert_eq!(
        error.kind(),
        whatwg_fetch::ErrorKind::TypeError,
        "{message}"
    );
    assert!(
        matches!(
            error.network_error(),
            Some(whatwg_fetch::NetworkError::Protocol(_))
        ),
        "{message}"
    );
    assert!(
        message.contains(&format!(
            "the HTTP/3 connection was closed by this client: {cause}"
        )),
        "{message}"
    );
    assert!(
        !message.contains("Remote error") && !message.contains("quic trait"),
        "{message}"
    );
}

/// A response head and the first byte of a ten-byte DATA frame: the request stays in
/// flight as long as its stream is open.
fn response_in_flight() -> Vec<u8> {
    let mut response = headers_200();
    response.extend([0x00, 0x0a, b'x']);
    response
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_frame_on_the_control_stream_closes_the_connection_at_the_limit() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        // After its SETTINGS, a frame declaring 4 GiB, its payload in 1 MiB pieces, up to
        // 32 MiB, while a request is in flight. h3 keeps a frame other than DATA until all
        // of it has come, and reads on: the client would keep it all.
        let mut flood = reserved_frame_header(1 << 32);
        flood.resize(1 << 20, 0);
        let own = h3_server::OwnStream {
            on: h3_server::Uni::Control,
            bytes: flood,
            times: 32,
            then_finish: false,
            after: Duration::ZERO,
        };
        let (server, seen) = h3_server::h3_uni_server(
            pki.cert.clone(),
            pki.key.clone_key(),
            response_in_flight(),
            own,
        );
        let client = prior_knowledge(&pki);
        // Before the response head or in its body, as the client reads the control stream.
        let error = async { client.get(server.url("/")).send().await?.text().await }
            .await
            .unwrap_err();
        assert_closed_by_the_client_for(
            &error,
            "on the server's control stream, an HTTP/3 frame of type 0x21 declares 4294967296 \
             bytes, over the client's limit of 327680 (RFC 9114 §10.5, H3_EXCESSIVE_LOAD)",
        );
        assert_eq!(seen.closed_with().await, H3_EXCESSIVE_LOAD);
        // What the server could write before the client closed the connection: QUIC's
        // stream window (1.25 MB), far from the 32 MiB it tried.
        let written = seen.written.load(Ordering::SeqCst);
        eprintln!("an endless frame on the control stream: {written} bytes written");
        assert!(written < 4 << 20, "{written} bytes written");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn frames_under_the_limit_on_the_control_stream_are_skipped_and_the_connection_lives_on() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        // Eight frames of 300 KiB each (the limit is 320 KiB): 2.4 MB, twice QUIC's
        // stream window, so that the server has written them all only once the client has
        // read most of them. The body ends after them.
        let mut frames = reserved_frame_header(300 * 1024);
        frames.resize(frames.len() + 300 * 1024, 0);
        let own = h3_server::OwnStream {
            on: h3_server::Uni::Control,
            bytes: frames.clone(),
            times: 8,
            then_finish: true,
            after: Duration::ZERO,
        };
        let mut response = headers_200();
        response.extend(frame(0x00, b"hello"));
        let (server, seen) =
            h3_server::h3_uni_server(pki.cert.clone(), pki.key.clone_key(), response, own);
        let client = prior_knowledge(&pki);
        for _ in 0..2 {
            let mut response = client.get(server.url("/")).send().await.unwrap();
            assert_eq!(response.text().await.unwrap(), "hello");
        }
        assert_eq!(seen.written.load(Ordering::SeqCst), 8 * frames.len());
        assert_eq!(server.counts.connections.load(Ordering::SeqCst), 1);
        assert_eq!(*seen.close_code.lock().unwrap(), None);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_stream_the_client_never_allowed_closes_the_connection_with_h3_id_error() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        // A push stream (type 0x01) for push ID 0, and a response on it: the client sends
        // no MAX_PUSH_ID, so no push is allowed (RFC 9114 §4.6).
        let mut push = vec![0x01, 0x00];
        push.extend(headers_200());
        let own = h3_server::OwnStream {
            on: h3_server::Uni::Stream,
            bytes: push,
            times: 1,
            then_finish: false,
            after: Duration::ZERO,
        };
        let (server, seen) = h3_server::h3_uni_server(
            pki.cert.clone(),
            pki.key.clone_key(),
            response_in_flight(),
            own,
        );
        let client = prior_knowledge(&pki);
        let error = async { client.get(server.url("/")).send().await?.text().await }
            .await
            .unwrap_err();
        assert_closed_by_the_client_for(&error, "the server opened a push stream");
        assert_eq!(seen.closed_with().await, H3_ID_ERROR);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_body_cut_by_a_failed_connection_names_the_failure_not_its_content_length() {
    use whatwg_fetch::NetworkError;
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        // A head with `content-length: 1000000` (QPACK: `:status: 200`, static entry 25,
        // then a literal of static entry 4's name, `content-length`, RFC 9204 §4.5.4),
        // and five bytes of the body; the stream left open.
        let mut head = vec![0x00, 0x00, 0xc0 | 25, 0x50 | 4, 7];
        head.extend(b"1000000");
        let mut response = frame(0x01, &head);
        response.extend(frame(0x00, b"hello"));
        // Once the client has read them, a frame over the limit on the control stream.
        let mut flood = reserved_frame_header(1 << 32);
        flood.resize(64 * 1024, 0);
        let own = h3_server::OwnStream {
            on: h3_server::Uni::Control,
            bytes: flood,
            times: 1,
            then_finish: false,
            after: Duration::from_millis(200),
        };
        let (server, seen) =
            h3_server::h3_uni_server(pki.cert.clone(), pki.key.clone_key(), response, own);
        let client = prior_knowledge(&pki);
        let mut response = client.get(server.url("/")).send().await.unwrap();
        assert_eq!(response.content_length(), Some(1_000_000));
        assert_eq!(
            response.chunk().await.unwrap().as_deref(),
            Some(&b"hello"[..])
        );
        let error = response.chunk().await.unwrap_err();
        assert!(error.is_body(), "{error:#}");
        // The connection's failure, not the body's length, which only followed from it.
        assert!(
            !matches!(error.network_error(), Some(NetworkError::LengthMismatch)),
            "{error:#}"
        );
        assert_closed_by_the_client_for(
            &error,
            "on the server's control stream, an HTTP/3 frame of type 0x21 declares 4294967296 \
             bytes",
        );
        assert_eq!(seen.closed_with().await, H3_EXCESSIVE_LOAD);
    })
    .await;
}

/// A client discovering HTTP/3 by `Alt-Svc`, with a QUIC idle timeout of `idle`.
fn discovering_with_idle(pki: &TestPki, idle: Duration) -> Client {
    Client::builder()
        .add_root_certificate_der(pki.ca_der.clone())
        .resolve("localhost", std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
        .connect_timeout(Duration::from_secs(5))
        .http3_max_idle_timeout(idle)
        .build()
        .unwrap()
}

/// An origin over TCP announcing HTTP/3 at a relay to a QUIC server, and a client (QUIC
/// idle timeout `idle`) whose requests to it go over HTTP/3, on one connection through
/// the relay: the relay, to make the path go silent, the servers, the client and the
/// origin's URL.
async fn over_h3_through_a_relay(
    pki: &TestPki,
    idle: Duration,
) -> (
    h3_server::UdpRelay,
    h3_server::H3Server,
    net_support::Server,
    Client,
    String,
) {
    let quic = h3_server(pki.cert.clone(), pki.key.clone_key(), 0);
    let relay = h3_server::udp_relay(quic.addr).await;
    let tcp = tcp_server_announcing(pki, format!("h3=\":{}\"", relay.addr.port())).await;
    let client = discovering_with_idle(pki, idle);
    let url = format!("https://localhost:{}/", tcp.addr.port());
    assert_eq!(get(&client, &url).await.0, "h2");
    assert_eq!(until_over_h3(&client, &url).await, "GET / 0");
    assert_eq!(quic.counts.connections.load(Ordering::SeqCst), 1);
    (relay, quic, tcp, client, url)
}

/// The QUIC idle timeout of the tests of a path gone silent: the time the client took to
/// find a dead path before, here shortened from its 30 s default.
const SILENT_PATH_IDLE: Duration = Duration::from_secs(4);

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_gone_silent_sends_the_next_get_over_tcp_within_about_a_second() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let (relay, quic, _tcp, client, url) =
            over_h3_through_a_relay(&pki, SILENT_PATH_IDLE).await;
        let served = quic.counts.requests.load(Ordering::SeqCst);
        // Every datagram is dropped from now on, both ways.
        relay.go_silent();
        let died = std::time::Instant::now();
        let answer = get(&client, &url).await;
        let took = died.elapsed();
        eprintln!("the path went silent: the first request was answered over TCP {took:?} later");
        assert_eq!(answer, ("h2".to_owned(), "tcp".to_owned()));
        assert!(took < Duration::from_secs(2), "{took:?}");
        // The server never had it: it went out on the dead path, and again over TCP.
        assert_eq!(quic.counts.requests.load(Ordering::SeqCst), served);
        // HTTP/3 is marked broken for the origin: the next requests go over TCP at once,
        // with no QUIC attempt's head start first.
        for _ in 0..2 {
            let started = std::time::Instant::now();
            assert_eq!(get(&client, &url).await.0, "h2");
            let took = started.elapsed();
            assert!(took < Duration::from_millis(250), "{took:?}");
        }
        assert_eq!(quic.counts.connections.load(Ordering::SeqCst), 1);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_post_on_a_path_gone_silent_fails_within_about_a_second_and_marks_h3_broken() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let (relay, _quic, _tcp, client, url) =
            over_h3_through_a_relay(&pki, SILENT_PATH_IDLE).await;
        relay.go_silent();
        let died = std::time::Instant::now();
        // Not idempotent: it went out on the path, which may have carried it to the
        // server, and it is not sent again.
        let error = client
            .post(&url)
            .body("an order")
            .send()
            .await
            .expect_err("a POST lost on a dead path");
        let took = died.elapsed();
        eprintln!("the path went silent: a POST failed {took:?} later: {error:#}");
        assert!(took < Duration::from_secs(2), "{took:?}");
        assert!(error.is_timeout(), "{error:#}");
        // And HTTP/3 is marked broken for the origin.
        let started = std::time::Instant::now();
        assert_eq!(
            get(&client, &url).await,
            ("h2".to_owned(), "tcp".to_owned())
        );
        let took = started.elapsed();
        assert!(took < Duration::from_millis(250), "{took:?}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_after_longer_than_the_idle_timeout_comes_once_over_the_same_connection() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let server = h3_server(pki.cert.clone(), pki.key.clone_key(), 0);
        // The server answers after 2.5 s of silence, over twice the idle timeout: a
        // long poll. Over TCP the request would simply wait.
        let idle = Duration::from_secs(1);
        let client = Client::builder()
            .add_root_certificate_der(pki.ca_der.clone())
            .resolve("localhost", std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
            .http3_prior_knowledge()
            .http3_max_idle_timeout(idle)
            .build()
            .unwrap();
        // A first request makes the connection, which the long polls then reuse.
        let mut first = client.get(server.url("/first")).send().await.unwrap();
        assert_eq!(first.text().await.unwrap(), "GET /first 0");
        let started = std::time::Instant::now();
        let get = async {
            let mut response = client.get(server.url("/delay/2500")).send().await?;
            let text = response.text().await;
            eprintln!(
                "the long-polling GET: {:?} after {:?}",
                text,
                started.elapsed()
            );
            text
        };
        let post = async {
            let mut response = client
                .post(server.url("/delay/2500"))
                .body("an order")
                .send()
                .await?;
            let text = response.text().await;
            eprintln!(
                "the long-polling POST: {:?} after {:?}",
                text,
                started.elapsed()
            );
            text
        };
        let (get, post) = tokio::join!(get, post);
        let took = started.elapsed();
        let requests = server.counts.requests.load(Ordering::SeqCst);
        let connections = server.counts.connections.load(Ordering::SeqCst);
        eprintln!(
            "answers after 2.5 s of silence, idle timeout {idle:?}: {took:?}, \
             {requests} requests and {connections} connections served; {get:?}, {post:?}"
        );
        assert_eq!(get.unwrap(), "GET /delay/2500 0");
        assert_eq!(post.unwrap(), "POST /delay/2500 8");
        // Each request ran once, on the first connection.
        assert_eq!(requests, 3);
        assert_eq!(connections, 1);
        assert!(took < Duration::from_millis(3500), "{took:?}");
    })
    .await;
}

/// The head of a frame of type `kind` (under 64) declaring `length` bytes (an eight-byte
/// length, RFC 9000 §16).
fn frame_header(kind: u8, length: u64) -> Vec<u8> {
    assert!(kind < 64);
    let mut header = vec![kind];
    header.extend((length | 0xc0 << 56).to_be_bytes());
    header
}

/// A response head, `hello` as its body, then the head of a frame of type `kind`
/// declaring 4 GiB, then its payload in 64 KiB pieces (the rest of the server's writes,
/// up to 32 MiB) until the client stops reading.
fn endless_frame_after_the_body(kind: u8) -> (Vec<u8>, usize) {
    let mut response = headers_200();
    response.extend(frame(0x00, b"hello"));
    response.extend(frame_header(kind, 1 << 32));
    response.resize(64 * 1024, 0);
    (response, 512)
}

/// The error of the body of a response from a server that sends a frame of type `kind`
/// declaring 4 GiB after it ([`endless_frame_after_the_body`]), once it is checked to name
/// the frame and the client's limit and the server to have been stopped short of 4 MiB
/// (QUIC's stream window, 1.25 MB, against the 32 MiB it tries).
async fn body_error_past_an_endless_frame(
    pki: &TestPki,
    client: &Client,
    kind: u8,
) -> whatwg_fetch::Error {
    let (response, times) = endless_frame_after_the_body(kind);
    let (server, written) =
        h3_server::h3_raw_server(pki.cert.clone(), pki.key.clone_key(), response, times);
    let mut response = client.get(server.url("/")).send().await.unwrap();
    assert_eq!(response.status(), 200);
    let error = response.text().await.unwrap_err();
    let message = format!("{error:#}");
    let expected = format!(
        "an HTTP/3 frame of type {kind:#x} declares 4294967296 bytes, over the client's limit of 327680"
    );
    assert!(message.contains(&expected), "{message}");
    tokio::time::sleep(Duration::from_millis(200)).await;
    let written = written.load(Ordering::SeqCst);
    eprintln!("an endless frame of type {kind:#x} after the body: {written} bytes written");
    assert!(written < 4 << 20, "{written} bytes written");
    error
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endless_frame_after_the_body_fails_the_body_at_the_limit() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        // A frame of a reserved type (0x21, RFC 9114 §7.2.8), which a client must skip;
        // h3 keeps a frame other than DATA until all of it has come, whatever length it
        // declares.
        let client = prior_knowledge(&pki);
        let error = body_error_past_an_endless_frame(&pki, &client, 0x21).await;
        assert!(error.is_body(), "{error:#}");
    })
    .await;
}

/// A QPACK field line of a literal name (under 7 bytes) and a literal value (under 127),
/// neither Huffman-coded (RFC 9204 §4.5.6).
fn literal_field(name: &str, value: &str) -> Vec<u8> {
    assert!(name.len() < 7 && value.len() < 127);
    let mut line = vec![0x20 | name.len() as u8];
    line.extend(name.as_bytes());
    line.push(value.len() as u8);
    line.extend(value.as_bytes());
    line
}

/// A `HEADERS` frame of trailers: the QPACK prefix (no dynamic table), then `fields`.
fn trailers_frame(fields: &[Vec<u8>]) -> Vec<u8> {
    let section: Vec<u8> = [0x00, 0x00]
        .into_iter()
        .chain(fields.iter().flatten().copied())
        .collect();
    let mut frame = frame_header(0x01, section.len() as u64);
    frame.extend(section);
    frame
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn trailers_over_http3_come_after_the_body_and_past_the_limit_fail_it() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        let client = prior_knowledge(&pki);
        // Trailers under the limit: delivered after the body.
        let mut response = headers_200();
        response.extend(frame(0x00, b"hello"));
        response.extend(trailers_frame(&[literal_field("grpc-s", "0")]));
        let (server, _) =
            h3_server::h3_raw_server(pki.cert.clone(), pki.key.clone_key(), response, 1);
        let mut response = client.get(server.url("/")).send().await.unwrap();
        assert_eq!(response.text().await.unwrap(), "hello");
        let trailers = response.trailers().await.unwrap().expect("no trailers");
        assert_eq!(trailers["grpc-s"], "0");
        // A field section of 2,400 fields of 135 bytes each as RFC 9114 §4.2.2 counts
        // them (name, value and 32): 324,000, over the 262,144 allowed, in a frame of
        // 252,002 bytes, under the limit of a frame's payload.
        let value = "v".repeat(100);
        let fields: Vec<_> = (0..2_400).map(|_| literal_field("x-t", &value)).collect();
        let mut response = headers_200();
        response.extend(frame(0x00, b"hello"));
        response.extend(trailers_frame(&fields));
        let (server, _) =
            h3_server::h3_raw_server(pki.cert.clone(), pki.key.clone_key(), response, 1);
        let mut response = client.get(server.url("/")).send().await.unwrap();
        let error = response.text().await.unwrap_err();
        let message = format!("{error:#}");
        assert!(error.is_body(), "{message}");
        assert!(
            matches!(
                error.network_error(),
                Some(whatwg_fetch::NetworkError::Protocol(_))
            ),
            "{message}"
        );
        assert!(
            message.contains("the HTTP/3 response trailers are over 256 KiB"),
            "{message}"
        );
        // A HEADERS frame of trailers declaring 4 GiB, the server sending on: refused at
        // its header, the server stopped.
        body_error_past_an_endless_frame(&pki, &client, 0x01).await;
    })
    .await;
}

#[tokio::test]
async fn a_flood_of_empty_data_frames_is_read_a_few_chunks_per_poll() {
    bounded(async {
        let pki = TestPki::new(&["localhost"]);
        // 262,144 empty DATA frames (512 KiB, some 400 QUIC packets, under QUIC's stream
        // window), then `hello`, and the end of the stream.
        let mut response = headers_200();
        response.extend(std::iter::repeat_n([0x00, 0x00], 256 * 1024).flatten());
        response.extend(frame(0x00, b"hello"));
        let (server, _) =
            h3_server::h3_raw_server(pki.cert.clone(), pki.key.clone_key(), response, 1);
        let client = prior_knowledge(&pki);
        let mut response = client.get(server.url("/")).send().await.unwrap();
        // The whole flood in the client's buffers before the body is read: nothing the
        // reader waits for lets the runtime's other tasks run meanwhile.
        while server.counts.delivered.load(Ordering::SeqCst) == 0 {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // Another task on the same thread, counting its turns.
        let turns = Arc::new(std::sync::atomic::AtomicUsize::new(0));
        let counting = Arc::clone(&turns);
        let other = tokio::spawn(async move {
            loop {
                counting.fetch_add(1, Ordering::SeqCst);
                tokio::task::yield_now().await;
            }
        });
        tokio::task::yield_now().await;
        let before = turns.load(Ordering::SeqCst);
        assert_eq!(response.text().await.unwrap(), "hello");
        let turns = turns.load(Ordering::SeqCst) - before;
        other.abort();
        // The reader yields after 16 chunks of nothing but empty frames: the other task
        // had a turn each time, some 25 turns for 400 chunks.
        eprintln!("a flood of empty DATA frames: the other task had {turns} turns");
        assert!(turns >= 8, "{turns} turns");
    })
    .await;
}
