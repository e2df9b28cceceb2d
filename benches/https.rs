//! HTTPS/1.1 benchmark: `fetch()` against hyper-util's legacy client over hyper-rustls, both
//! on rustls with aws-lc-rs (key exchange X25519MLKEM768), trusting only a CA made at start-up
//! (rcgen), against a hyper server behind tokio-rustls in this process (TLS 1.3, ALPN
//! `http/1.1`, stateless session tickets).
//!
//! ```text
//! cargo bench -p benches --bench https -- [--n 5000] [--concurrency 50] [--rounds 7]
//!                              [--handshake-n 1000] [--handshake-concurrency 10]
//!                              [--handshake-rounds 5] [--handshake-cap N]
//!                              [--clients fetch,hyper]
//!                              [--order both|forward|reverse] [--workloads reuse,handshake]
//!                              [--sequential]
//! ```
//!
//! 1. **reuse**: the `load` workload over TLS: pooled keep-alive connections (up to
//!    `--concurrency`), N `GET`s of the 764-byte JSON body per round, each parsed;
//! 2. **handshake**: a new connection per request: the server answers every request with
//!    `Connection: close`, so each `GET` pays a TCP connect and a TLS handshake. Both clients
//!    keep rustls's in-memory session cache (the crate builds one `ClientConfig` per
//!    transport; hyper-rustls shares the one it is given), so every handshake after the first
//!    can resume; the server counts handshakes and resumptions and the printout says how
//!    many resumed.
//!
//! reqwest is left out: its TLS features would change the plain-HTTP reqwest that `load`
//! compares with (Cargo unifies a dependency's features across the benchmarks).

#[allow(dead_code)]
#[path = "support/jobs.rs"]
mod jobs;
#[allow(dead_code)]
#[path = "support/server.rs"]
mod server;
#[allow(dead_code)]
#[path = "support/servers.rs"]
mod servers;
#[allow(dead_code)]
#[path = "support/workload.rs"]
mod workload;

use std::sync::Arc;
use std::sync::atomic::Ordering;

use bytes::Bytes;
use http_body_util::Empty;
use hyper_rustls::HttpsConnector;
use hyper_util::client::legacy::{Client as HyperClient, connect::HttpConnector};
use hyper_util::rt::TokioExecutor;
use whatwg_fetch::Client;
use workload::{Contender, FETCH, HYPER, Options};

const USAGE: &str = "usage: https [--n N] [--concurrency C] [--rounds R] [--handshake-n N] \
[--handshake-concurrency C] [--handshake-rounds R] [--handshake-cap N] [--clients fetch,hyper] \
[--order both|forward|reverse] [--workloads reuse,handshake] [--sequential]";

enum TlsClient {
    Fetch(Client),
    Hyper(Box<HyperClient<HttpsConnector<HttpConnector>, Empty<Bytes>>>),
}

impl TlsClient {
    /// `fetch()`'s pool is capped at `cap` connections, as in `load`; hyper-util's has no cap.
    fn new(name: &str, ca: &servers::TestCa, cap: Option<usize>) -> Result<TlsClient, String> {
        if name == FETCH {
            let mut builder = Client::builder()
                .add_root_certificate_der(ca.ca_der.clone())
                .tls_built_in_roots(false)
                .tls_system_roots(false);
            if let Some(cap) = cap {
                builder = builder.max_connections_per_origin(cap);
            }
            let client = builder.build().map_err(|error| error.to_string())?;
            return Ok(TlsClient::Fetch(client));
        }
        let mut http = HttpConnector::new();
        http.set_nodelay(true);
        http.enforce_http(false);
        let connector = hyper_rustls::HttpsConnectorBuilder::new()
            .with_tls_config(ca.client_config())
            .https_only()
            .enable_http1()
            .wrap_connector(http);
        Ok(TlsClient::Hyper(Box::new(
            HyperClient::builder(TokioExecutor::new()).build(connector),
        )))
    }
}

/// `name` set up for `server`, trusting `ca`; `cap` caps `fetch()`'s connections.
fn contender(
    name: &str,
    ca: &servers::TestCa,
    server: &servers::Running,
    cap: Option<usize>,
) -> Result<Contender, String> {
    let url: Arc<str> = Arc::from(format!("https://{}/", server.addr));
    let uri: hyper::Uri = url.parse().map_err(|error| format!("{error}"))?;
    let client = Arc::new(TlsClient::new(name, ca, cap)?);
    let job = move || {
        let (client, url, uri) = (client.clone(), url.clone(), uri.clone());
        async move {
            match &*client {
                TlsClient::Fetch(client) => jobs::fetch_items(client, &url).await,
                TlsClient::Hyper(client) => jobs::hyper_items(client, &uri).await,
            }
        }
    };
    let stats = server.stats.clone();
    Ok(Contender::new(
        job,
        move || {
            vec![
                stats.accepted.load(Ordering::Relaxed),
                stats.handshakes.load(Ordering::Relaxed),
                stats.resumed.load(Ordering::Relaxed),
            ]
        },
        |grown| match grown {
            [accepted, handshakes, resumed] => format!(
                "connections {accepted}, TLS handshakes {handshakes}, resumed {resumed} \
                 ({:.1}%)",
                *resumed as f64 * 100.0 / (*handshakes).max(1) as f64
            ),
            _ => String::new(),
        },
    ))
}

fn main() {
    let options = Options::parse(
        USAGE,
        (5000, 50, 7),
        &[FETCH, HYPER],
        &[
            "handshake-n",
            "handshake-concurrency",
            "handshake-rounds",
            "handshake-cap",
            "workloads",
        ],
    );
    let workloads = options
        .extra
        .get("workloads")
        .cloned()
        .unwrap_or_else(|| "reuse,handshake".to_owned());
    let ca = servers::TestCa::new();
    let config = ca.server_config();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("client runtime");
    let workers = std::thread::available_parallelism().map_or(1, |p| p.get());
    for workload in workloads.split(',').filter(|w| !w.is_empty()) {
        match workload {
            "reuse" => {
                let server = servers::start(servers::Protocol::Tls {
                    config: config.clone(),
                    keep_alive: true,
                });
                eprintln!(
                    "\nreuse: https://{}/ keep-alive, N={} concurrency={} rounds={} \
                     (after 1 probe + 1 warm-up round), client runtime workers={workers}",
                    server.addr, options.n, options.concurrency, options.rounds
                );
                workload::run_passes(
                    &runtime,
                    &options,
                    ("req/s", "request", 1.0),
                    server.tid,
                    |name| contender(name, &ca, &server, Some(options.concurrency)),
                );
            }
            "handshake" => {
                let server = servers::start(servers::Protocol::Tls {
                    config: config.clone(),
                    keep_alive: false,
                });
                let mut handshake = options.clone();
                handshake.n = options.number("handshake-n", 1000);
                handshake.concurrency = options.number("handshake-concurrency", 10);
                handshake.rounds = options.number("handshake-rounds", 5);
                // Uncapped, as hyper-util's pool is: each request opens a connection of its
                // own anyway. `--handshake-cap N` caps `fetch()`'s at N.
                let cap = options
                    .extra
                    .contains_key("handshake-cap")
                    .then(|| options.number("handshake-cap", handshake.concurrency));
                eprintln!(
                    "\nhandshake: https://{}/ answering `Connection: close`, a new connection \
                     per request, N={} concurrency={} rounds={} (after 1 probe + 1 warm-up \
                     round), client runtime workers={workers}",
                    server.addr, handshake.n, handshake.concurrency, handshake.rounds
                );
                workload::run_passes(
                    &runtime,
                    &handshake,
                    ("req/s", "request", 1.0),
                    server.tid,
                    |name| contender(name, &ca, &server, cap),
                );
            }
            other => {
                eprintln!("unknown workload {other:?}\n{USAGE}");
                std::process::exit(2);
            }
        }
    }
}
