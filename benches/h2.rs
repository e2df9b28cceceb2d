//! HTTP/2 benchmark: `fetch()` against hyper-util's legacy client (`http2_only`) and reqwest
//! (`http2_prior_knowledge`), all speaking h2c with prior knowledge (RFC 9113 §3.3) to a
//! hyper HTTP/2 server in this process.
//!
//! ```text
//! cargo bench -p benches --bench h2 -- [--n 5000] [--concurrency 100] [--rounds 7] [--size-mib 64]
//!                           [--download-rounds 7] [--clients fetch,hyper,reqwest]
//!                           [--order both|forward|reverse] [--workloads json,download]
//!                           [--sequential]
//! ```
//!
//! 1. **json**: one connection, `--concurrency` streams in flight on it, N `GET`s of the
//!    764-byte JSON body per round, each parsed and its `items` counted (the `load`
//!    workload, multiplexed);
//! 2. **download**: a `--size-mib` MiB body over one stream, read chunk by chunk, keeping
//!    nothing: MiB/s and client CPU per MiB. Every client keeps hyper's HTTP/2 defaults
//!    (16 KiB frames, 2 MiB stream and 5 MiB connection windows, no adaptive window).

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
use hyper_util::client::legacy::{Client as HyperClient, connect::HttpConnector};
use hyper_util::rt::TokioExecutor;
use whatwg_fetch::Client;
use workload::{Contender, FETCH, HYPER, Options, REQWEST};

const USAGE: &str = "usage: h2 [--n N] [--concurrency C] [--rounds R] [--size-mib MIB] \
[--download-rounds R] [--clients fetch,hyper,reqwest] [--order both|forward|reverse] \
[--workloads json,download] [--sequential]";

/// The three clients, each speaking HTTP/2 with prior knowledge.
enum H2Client {
    Fetch(Client),
    Hyper(Box<HyperClient<HttpConnector, Empty<Bytes>>>),
    Reqwest(reqwest::Client),
}

impl H2Client {
    fn new(name: &str) -> Result<H2Client, String> {
        Ok(match name {
            FETCH => H2Client::Fetch(
                Client::builder()
                    .http2_prior_knowledge(true)
                    .build()
                    .map_err(|error| error.to_string())?,
            ),
            HYPER => {
                let mut connector = HttpConnector::new();
                connector.set_nodelay(true);
                H2Client::Hyper(Box::new(
                    HyperClient::builder(TokioExecutor::new())
                        .http2_only(true)
                        .build(connector),
                ))
            }
            _ => H2Client::Reqwest(
                reqwest::Client::builder()
                    .no_proxy()
                    .http2_prior_knowledge()
                    .build()
                    .map_err(|error| error.to_string())?,
            ),
        })
    }
}

/// `name` set up for jobs on `path` of `server`, with `download` choosing the job.
fn contender(
    name: &str,
    server: &servers::Running,
    path: &str,
    download: bool,
) -> Result<Contender, String> {
    let url: Arc<str> = Arc::from(format!("http://{}{path}", server.addr));
    let uri: hyper::Uri = url.parse().map_err(|error| format!("{error}"))?;
    let client = Arc::new(H2Client::new(name)?);
    let job = move || {
        let (client, url, uri) = (client.clone(), url.clone(), uri.clone());
        async move {
            match (&*client, download) {
                (H2Client::Fetch(client), false) => jobs::fetch_items(client, &url).await,
                (H2Client::Fetch(client), true) => jobs::fetch_bytes(client, &url).await,
                (H2Client::Hyper(client), false) => jobs::hyper_items(client, &uri).await,
                (H2Client::Hyper(client), true) => jobs::hyper_bytes(client, &uri).await,
                (H2Client::Reqwest(client), false) => jobs::reqwest_items(client, &url).await,
                (H2Client::Reqwest(client), true) => jobs::reqwest_bytes(client, &url).await,
            }
        }
    };
    let stats = server.stats.clone();
    Ok(Contender::new(
        job,
        move || vec![stats.accepted.load(Ordering::Relaxed)],
        |grown| format!("connections {}", grown.first().copied().unwrap_or(0)),
    ))
}

fn main() {
    let options = Options::parse(
        USAGE,
        (5000, 100, 7),
        &[FETCH, HYPER, REQWEST],
        &["size-mib", "download-rounds", "workloads"],
    );
    let workloads = options
        .extra
        .get("workloads")
        .cloned()
        .unwrap_or_else(|| "json,download".to_owned());
    let size_mib = options.number("size-mib", 64);
    let server = servers::start(servers::Protocol::H2c);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("client runtime");
    let workers = std::thread::available_parallelism().map_or(1, |p| p.get());
    eprintln!(
        "h2: h2c (prior knowledge) server on {}, current-thread runtime in this process; \
         client runtime workers={workers}",
        server.addr
    );
    for workload in workloads.split(',').filter(|w| !w.is_empty()) {
        match workload {
            "json" => {
                eprintln!(
                    "\njson: one connection, N={} with {} streams in flight, rounds={} \
                     (after 1 probe + 1 warm-up round)",
                    options.n, options.concurrency, options.rounds
                );
                workload::run_passes(
                    &runtime,
                    &options,
                    ("req/s", "request", 1.0),
                    server.tid,
                    |name| contender(name, &server, "/", false),
                );
            }
            "download" => {
                let mut download = options.clone();
                (download.n, download.concurrency) = (1, 1);
                download.rounds = options.number("download-rounds", 7);
                let path = format!("/bytes/{}", size_mib * 1024 * 1024);
                eprintln!(
                    "\ndownload: {size_mib} MiB over one h2 stream, {} server chunks of {} KiB, \
                     rounds={} (after 1 probe + 1 warm-up)",
                    size_mib * 1024 * 1024 / server::CHUNK,
                    server::CHUNK / 1024,
                    download.rounds
                );
                workload::run_passes(
                    &runtime,
                    &download,
                    ("MiB/s", "MiB", size_mib as f64),
                    server.tid,
                    |name| contender(name, &server, &path, true),
                );
            }
            other => {
                eprintln!("unknown workload {other:?}\n{USAGE}");
                std::process::exit(2);
            }
        }
    }
}
