//! HTTP/3 against HTTP/2 through `fetch()`, both over TLS 1.3 to servers on 127.0.0.1: see
//! `benches/README.md` ("`h3`").
//!
//! ```text
//! cargo bench -p whatwg-fetch-feature-tests --bench h3 [-- --n 1000 --rounds 5]
//! ```
//!
//! The servers (quinn + h3, and hyper over rustls with ALPN `h2`) share a certificate for
//! `localhost` and run on a runtime of their own, on other threads; the client runs on a
//! current-thread runtime on the main thread, whose CPU time alone is counted (Linux's
//! `/proc/thread-self/schedstat`). Each round, in one order and in the other the next:
//!
//! - **json**: `n` sequential `GET`s of a 254-byte JSON document, each read whole;
//! - **download**: one `GET` of 64 MiB, read chunk by chunk and kept nowhere.
//!
//! The clients: `http3_prior_knowledge()`, and the default client (HTTP/2 by ALPN; the
//! server announces no HTTP/3). Each has its connection open before the first round.

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

async fn run(options: &bench_options::Options, pki: &TestPki, quic_port: u16, tcp_port: u16) {
    let builder = || {
        Client::builder()
            .add_root_certificate_der(pki.ca_der.clone())
            .resolve("localhost", std::net::SocketAddr::from(([127, 0, 0, 1], 0)))
    };
    let clients = [
        (
            "h3",
            builder().http3_prior_knowledge().build().unwrap(),
            format!("https://localhost:{quic_port}"),
        ),
        (
            "h2",
            builder().http3(false).build().unwrap(),
            format!("https://localhost:{tcp_port}"),
        ),
    ];
    for (protocol, client, base) in &clients {
        let mut response = client
            .fetch(format!("{base}/json").as_str(), RequestInit::default())
            .await
            .unwrap();
        assert_eq!(response.timing().unwrap().next_hop_protocol, *protocol);
        response.bytes().await.unwrap();
    }
    let n = options.n;
    println!(
        "h3: {n} sequential GETs of {} bytes and one of 64 MiB a round, {} rounds",
        h3_server::JSON.len(),
        options.rounds
    );
    // Per client: json req/s, json CPU µs/request, download MiB/s, download CPU ms/MiB.
    let mut figures: [[Vec<f64>; 4]; 2] = Default::default();
    for round in 0..options.rounds {
        let mut order = [0, 1];
        if round % 2 == 1 {
            order.reverse();
        }
        for which in order {
            let (_, client, base) = &clients[which];
            let url = format!("{base}/json");
            let (started, cpu) = (Instant::now(), thread_cpu_ns());
            for _ in 0..n {
                bench_options::get(client, &url).await;
            }
            let (seconds, cpu) = (
                started.elapsed().as_secs_f64(),
                thread_cpu_ns().saturating_sub(cpu),
            );
            figures[which][0].push(n as f64 / seconds);
            figures[which][1].push(cpu as f64 / 1e3 / n as f64);
            let url = format!("{base}/download");
            let (started, cpu) = (Instant::now(), thread_cpu_ns());
            let mut response = client
                .fetch(url.as_str(), RequestInit::default())
                .await
                .unwrap();
            let mut received = 0;
            while let Some(chunk) = response.chunk().await.unwrap() {
                received += chunk.len();
            }
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
        "{:<4} {:>14} {:>18} {:>16} {:>20}",
        "", "json req/s", "json CPU µs/req", "download MiB/s", "download CPU ms/MiB"
    );
    for (which, (protocol, _, _)) in clients.iter().enumerate() {
        let [a, b, c, d] = &figures[which];
        println!(
            "{protocol:<4} {:>14.0} {:>18.1} {:>16.0} {:>20.2}",
            median(a),
            median(b),
            median(c),
            median(d)
        );
    }
    let ratio = |k: usize| median(&figures[1][k]) / median(&figures[0][k]);
    println!(
        "h2 / h3: json CPU per request {:.2}, download CPU per MiB {:.2} (above 1: h3 costs less)",
        ratio(1),
        ratio(3)
    );
}
