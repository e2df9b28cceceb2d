//! HTTP/3 against HTTP/2 through `fetch()`, both over TLS 1.3 to servers on 127.0.0.1, and
//! reqwest's HTTP/3 client beside them: see `benches/README.md` ("`h3`").
//!
//! ```text
//! cargo bench -p whatwg-fetch-feature-tests --bench h3 [-- --n 1000 --rounds 5]
//! cd benches/h3-reqwest && cargo bench [-- --n 1000 --rounds 5]
//! ```
//!
//! The servers (quinn + h3, and hyper over rustls with ALPN `h2`) share a certificate for
//! `localhost` and run on a runtime of their own, on other threads; the client runs on a
//! current-thread runtime on the main thread, whose CPU time alone is counted (Linux's
//! `/proc/thread-self/schedstat`). Each round, client after client, in one order and in the
//! reverse order the next:
//!
//! - **json**: `n` sequential `GET`s of a 254-byte JSON document, each read whole;
//! - **download**: one `GET` of 64 MiB, read chunk by chunk and kept nowhere.
//!
//! The clients: `fetch()` with `http3_prior_knowledge()` (**fetch-h3**), `fetch()` with the
//! default client (**fetch-h2**: HTTP/2 by ALPN; the server announces no HTTP/3), and, only
//! where the file is built with `--cfg reqwest_unstable` (as `benches/h3-reqwest` builds it,
//! the flag reqwest's `http3` feature needs), reqwest with `http3_prior_knowledge()`
//! (**reqwest-h3**). Each has its connection open, and its protocol checked, before the
//! first round.

#[path = "../support/bench_options.rs"]
mod bench_options;
#[path = "../support/h3_server.rs"]
mod h3_server;
#[path = "../../tests/net_support/mod.rs"]
mod net_support;

use std::time::Instant;

use bench_options::median;
use net_support::TestPki;
use whatwg_fetch::{Client, RequestInit};

/// Nanoseconds this thread has run on a CPU.
fn thread_cpu_ns() -> u64 {
    std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|stat| stat.split_whitespace().next()?.parse().ok())
        .unwrap_or(0)
}

fn main() {
    let options = bench_options::options();
    let pki = TestPki::new(&["localhost"]);
    let (cert, key) = (pki.cert.clone(), pki.key.clone_key());
    let acceptor = pki.acceptor(&[b"h2"]);
    let (ports_tx, ports_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let quic = h3_server::h3_server(cert, key, 0);
            let tcp = net_support::tls_server(acceptor, |request| async move {
                let body = match request.uri().path() {
                    "/download" => h3_server::download(),
                    _ => bytes::Bytes::from_static(h3_server::JSON.as_bytes()),
                };
                http::Response::builder()
                    .header("content-type", "application/json")
                    .body(net_support::full(body))
                    .unwrap()
            })
            .await;
            ports_tx.send((quic.addr.port(), tcp.addr.port())).unwrap();
            std::future::pending::<()>().await;
        });
    });
    let (quic_port, tcp_port) = ports_rx.recv().unwrap();
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run(&options, &pki, quic_port, tcp_port));
}

/// A client under measurement, and where it sends its requests.
struct Contender {
    /// Its name in the results.
    name: &'static str,
    /// The protocol its requests must go over: `h3` or `h2`.
    protocol: &'static str,
    client: BenchClient,
    /// `https://localhost:PORT` of the server it speaks to.
    base: String,
}

enum BenchClient {
    Fetch(Client),
    /// Built only with `--cfg reqwest_unstable`, which reqwest's `http3` feature needs.
    #[cfg(reqwest_unstable)]
    Reqwest(reqwest::Client),
}

impl BenchClient {
    /// The protocol a `GET` of `url` went over (`h3`, `h2`, …), its body read whole.
    async fn protocol(&self, url: &str) -> &'static str {
        match self {
            BenchClient::Fetch(client) => {
                let mut response = client.fetch(url, RequestInit::default()).await.unwrap();
                let protocol = response.timing().unwrap().next_hop_protocol;
                response.bytes().await.unwrap();
                protocol
            }
            #[cfg(reqwest_unstable)]
            BenchClient::Reqwest(client) => {
                let response = reqwest_get(client, url).await;
                let protocol = match response.version() {
                    http::Version::HTTP_3 => "h3",
                    http::Version::HTTP_2 => "h2",
                    _ => "http/1.1 or older",
                };
                response.bytes().await.unwrap();
                protocol
            }
        }
    }

    /// A `GET` of `url`, its body read whole.
    async fn get(&self, url: &str) {
        match self {
            BenchClient::Fetch(client) => bench_options::get(client, url).await,
            #[cfg(reqwest_unstable)]
            BenchClient::Reqwest(client) => {
                reqwest_get(client, url).await.bytes().await.unwrap();
            }
        }
    }

    /// A `GET` of `url`, its body read chunk by chunk and kept nowhere: the bytes it had.
    async fn download(&self, url: &str) -> usize {
        let mut received = 0;
        match self {
            BenchClient::Fetch(client) => {
                let mut response = client.fetch(url, RequestInit::default()).await.unwrap();
                while let Some(chunk) = response.chunk().await.unwrap() {
                    received += chunk.len();
                }
            }
            #[cfg(reqwest_unstable)]
            BenchClient::Reqwest(client) => {
                let mut response = reqwest_get(client, url).await;
                while let Some(chunk) = response.chunk().await.unwrap() {
                    received += chunk.len();
                }
            }
        }
        received
    }
}

/// reqwest's HTTP/3 client: prior knowledge, trusting the test's CA only as an added root,
/// on ring (installed as the process's rustls provider, which reqwest takes before its own
/// aws-lc-rs) as `fetch()` and the servers are.
#[cfg(reqwest_unstable)]
fn reqwest_h3_client(pki: &TestPki) -> reqwest::Client {
    let _ = rustls::crypto::aws_lc_rs::default_provider().install_default();
    reqwest::Client::builder()
        .add_root_certificate(reqwest::Certificate::from_der(&pki.ca_der).unwrap())
        .resolve("localhost", std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
        .http3_prior_knowledge()
        .build()
        .unwrap()
}

/// A `GET` of `url` by reqwest over HTTP/3 (each request asks for it, as reqwest's
/// `http3_prior_knowledge` requires), its status checked.
#[cfg(reqwest_unstable)]
async fn reqwest_get(client: &reqwest::Client, url: &str) -> reqwest::Response {
    let response = client
        .get(url)
        .version(http::Version::HTTP_3)
        .send()
        .await
        .unwrap();
    assert!(
        response.status().is_success(),
        "{url}: {}",
        response.status()
    );
    response
}

async fn run(options: &bench_options::Options, pki: &TestPki, quic_port: u16, tcp_port: u16) {
    let builder = || {
        Client::builder()
            .add_root_certificate_der(pki.ca_der.clone())
            .resolve("localhost", std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
    };
    let (quic, tcp) = (
        format!("https://localhost:{quic_port}"),
        format!("https://localhost:{tcp_port}"),
    );
    let contenders = [
        Contender {
            name: "fetch-h3",
            protocol: "h3",
            client: BenchClient::Fetch(builder().http3_prior_knowledge().build().unwrap()),
            base: quic.clone(),
        },
        Contender {
            name: "fetch-h2",
            protocol: "h2",
            client: BenchClient::Fetch(builder().http3(false).build().unwrap()),
            base: tcp,
        },
        #[cfg(reqwest_unstable)]
        Contender {
            name: "reqwest-h3",
            protocol: "h3",
            client: BenchClient::Reqwest(reqwest_h3_client(pki)),
            base: quic,
        },
    ];
    for contender in &contenders {
        let url = format!("{}/json", contender.base);
        let protocol = contender.client.protocol(&url).await;
        assert_eq!(protocol, contender.protocol, "{}", contender.name);
    }
    let n = options.n;
    println!(
        "h3: {n} sequential GETs of {} bytes and one of 64 MiB a round, {} rounds",
        h3_server::JSON.len(),
        options.rounds
    );
    // Per client: json req/s, json CPU µs/request, download MiB/s, download CPU ms/MiB.
    let mut figures: Vec<[Vec<f64>; 4]> = contenders.iter().map(|_| Default::default()).collect();
    for round in 0..options.rounds {
        let mut order: Vec<usize> = (0..contenders.len()).collect();
        if round % 2 == 1 {
            order.reverse();
        }
        for which in order {
            let Contender { client, base, .. } = &contenders[which];
            let url = format!("{base}/json");
            let (started, cpu) = (Instant::now(), thread_cpu_ns());
            for _ in 0..n {
                client.get(&url).await;
            }
            let (seconds, cpu) = (
                started.elapsed().as_secs_f64(),
                thread_cpu_ns().saturating_sub(cpu),
            );
            figures[which][0].push(n as f64 / seconds);
            figures[which][1].push(cpu as f64 / 1e3 / n as f64);
            let url = format!("{base}/download");
            let (started, cpu) = (Instant::now(), thread_cpu_ns());
            let received = client.download(&url).await;
            assert_eq!(received, 64 << 20);
            let (seconds, cpu) = (
                started.elapsed().as_secs_f64(),
                thread_cpu_ns().saturating_sub(cpu),
            );
            figures[which][2].push(64.0 / seconds);
            figures[which][3].push(cpu as f64 / 1e6 / 64.0);
        }
    }
    println!(
        "{:<10} {:>14} {:>18} {:>16} {:>20}",
        "", "json req/s", "json CPU µs/req", "download MiB/s", "download CPU ms/MiB"
    );
    for (contender, [a, b, c, d]) in contenders.iter().zip(&figures) {
        println!(
            "{:<10} {:>14.0} {:>18.1} {:>16.0} {:>20.2}",
            contender.name,
            median(a),
            median(b),
            median(c),
            median(d)
        );
    }
    // Every round's figures, for the spread the medians hide.
    let rounds = |values: &[f64], precision: usize| {
        let values: Vec<String> = values.iter().map(|v| format!("{v:.precision$}")).collect();
        values.join(" ")
    };
    for (contender, [a, b, c, d]) in contenders.iter().zip(&figures) {
        println!(
            "{:<10} rounds: json req/s {} | µs/req {} | MiB/s {} | ms/MiB {}",
            contender.name,
            rounds(a, 0),
            rounds(b, 1),
            rounds(c, 0),
            rounds(d, 2)
        );
    }
    let ratio = |which: usize, k: usize| median(&figures[which][k]) / median(&figures[0][k]);
    for (which, contender) in contenders.iter().enumerate().skip(1) {
        println!(
            "{} / {}: json CPU per request {:.2}, download CPU per MiB {:.2} (above 1: {} costs less)",
            contender.name,
            contenders[0].name,
            ratio(which, 1),
            ratio(which, 3),
            contenders[0].name
        );
    }
}
