//! HTTP/2 benchmark: `fetch()` against hyper-util's legacy client (`http2_only`) and reqwest
//! (`http2_prior_knowledge`), all speaking h2c with prior knowledge (RFC 9113 §3.3) to a
//! hyper HTTP/2 server in this process.
//!
//! ```text
//! cargo bench -p benches --bench h2 -- [--n 5000] [--concurrency 100] [--rounds 7] [--size-mib 64]
//!                           [--download-rounds 7] [--clients fetch,hyper,reqwest]
//!                           [--order both|forward|reverse] [--workloads json,download]
//!                           [--sequential] [--head bare|fetch]
//! ```
//!
//! 1. **json**: one connection, `--concurrency` streams in flight on it, N `GET`s of the
//!    764-byte JSON body per round, each parsed and its `items` counted (the `load`
//!    workload, multiplexed);
//! 2. **download**: a `--size-mib` MiB body over one stream, read chunk by chunk, keeping
//!    nothing: MiB/s and client CPU per MiB. Every client keeps hyper's HTTP/2 defaults
//!    (16 KiB frames, 2 MiB stream and 5 MiB connection windows, no adaptive window).
//!
//! `--head fetch` has hyper-util's and reqwest's requests carry the four fields `fetch()`
//! sends on every request (`Accept`, `Accept-Language`, `User-Agent`, `Accept-Encoding`), so
//! that every client sends the same head and the server decodes the same; by default
//! (`bare`) they send what they send by themselves.

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
use hyper_util::client::legacy::{Client as HyperClient, connect::HttpConnector};
use hyper_util::rt::TokioExecutor;
use whatwg_fetch::Client;
use workload::{Contender, FETCH, HYPER, Options, REQWEST};

const USAGE: &str = "usage: h2 [--n N] [--concurrency C] [--rounds R] [--size-mib MIB] \
[--download-rounds R] [--clients fetch,hyper,reqwest] [--order both|forward|reverse] \
[--workloads json,download] [--sequential] [--head bare|fetch]";

/// The three clients, each speaking HTTP/2 with prior knowledge.
enum H2Client {
    Fetch(Client),
    /// With the head its requests carry, if not hyper-util's own.
    Hyper(
        Box<HyperClient<HttpConnector, Empty<Bytes>>>,
        Option<http::HeaderMap>,
    ),
    Reqwest(reqwest::Client),
}

impl H2Client {
    /// The client `name`; with `fetch_head`, hyper-util and reqwest send the fields
    /// `fetch()` does.
    fn new(name: &str, fetch_head: bool) -> Result<H2Client, String> {
        let head = fetch_head.then(jobs::fetch_request_head);
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
                H2Client::Hyper(
                    Box::new(
                        HyperClient::builder(TokioExecutor::new())
                            .http2_only(true)
                            .build(connector),
                    ),
                    head,
                )
            }
            _ => H2Client::Reqwest(
                reqwest::Client::builder()
                    .no_proxy()
                    .http2_prior_knowledge()
                    .default_headers(head.unwrap_or_default())
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
    fetch_head: bool,
) -> Result<Contender, String> {
    let url: Arc<str> = Arc::from(format!("http://{}{path}", server.addr));
    let uri: hyper::Uri = url.parse().map_err(|error| format!("{error}"))?;
    let client = Arc::new(H2Client::new(name, fetch_head)?);
    let job = move || {
        let (client, url, uri) = (client.clone(), url.clone(), uri.clone());
        async move {
            match (&*client, download) {
                (H2Client::Fetch(client), false) => jobs::fetch_items(client, &url).await,
                (H2Client::Fetch(client), true) => jobs::fetch_bytes(client, &url).await,
                (H2Client::Hyper(client, head), false) => {
                    jobs::hyper_items_with(client, &uri, head.as_ref()).await
                }
                (H2Client::Hyper(client, _), true) => jobs::hyper_bytes(client, &uri).await,
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
        &["size-mib", "download-rounds", "workloads", "head"],
    );
    let fetch_head = match options.extra.get("head").map(String::as_str) {
        None | Some("bare") => false,
        Some("fetch") => true,
        Some(other) => {
            eprintln!("unknown head {other:?}\n{USAGE}");
            std::process::exit(2);
        }
    };
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
         client runtime workers={workers}; head: {}",
        server.addr,
        if fetch_head {
            "fetch()'s four fields on every client's requests"
        } else {
            "each client's own"
        }
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
                    |name| contender(name, &server, "/", false, fetch_head),
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
                    |name| contender(name, &server, &path, true, fetch_head),
                );
            }
            other => {
                eprintln!("unknown workload {other:?}\n{USAGE}");
                std::process::exit(2);
            }
        }
    }
}
