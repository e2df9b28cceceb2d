//! The load workload of `../shared/bench` (its `rust/src/bin/client.rs`, same steps), for
//! `fetch()` and the two Rust reference clients.
//!
//! One probe request, one warm-up round, then the measured rounds; a round is N `GET`s with
//! CONCURRENCY workers pulling from one shared counter; every body is read in full, parsed
//! as JSON (`serde_json::Value`) and its `items` counted; a wrong total fails the round.

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use bytes::Bytes;
use http_body_util::Empty;
use hyper_util::client::legacy::{Client as HyperClient, connect::HttpConnector};
use hyper_util::rt::TokioExecutor;
use whatwg_fetch::Client;

/// The clients, by the names printed in results.
pub const ALL: [&str; 3] = ["whatwg-fetch", "hyper-util-legacy", "reqwest"];

/// `fetch()` with HTTP/1.1 pipelining, [`PIPELINING`] deep: named only when asked for.
pub const PIPELINED: &str = "whatwg-fetch-pipelined";

/// The pipelining depth of [`PIPELINED`]: undici's benchmark's.
pub const PIPELINING: usize = 10;

/// The printed name for a name or short name (`fetch`, `hyper`, `reqwest`,
/// `fetch-pipelined`).
pub fn canonical(name: &str) -> Result<&'static str, String> {
    match name {
        "whatwg-fetch" | "fetch" => Ok(ALL[0]),
        "hyper-util-legacy" | "hyper" => Ok(ALL[1]),
        "reqwest" => Ok(ALL[2]),
        "whatwg-fetch-pipelined" | "fetch-pipelined" => Ok(PIPELINED),
        other => Err(format!(
            "unknown client {other:?} (expected fetch, hyper, reqwest or fetch-pipelined)"
        )),
    }
}

/// Parses a comma-separated list of client names.
pub fn parse_list(list: &str) -> Result<Vec<&'static str>, String> {
    list.split(',')
        .filter(|name| !name.is_empty())
        .map(canonical)
        .collect()
}

/// One client under test. Each keeps up to CONCURRENCY connections alive.
// Built once per client and cloned once per worker: its size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone)]
pub enum Bench {
    /// `Client::fetch()`, its pool capped at CONCURRENCY connections per origin; given
    /// the URL string, or a clone of the `Url` parsed once (see [`Bench::parse_url_once`]).
    Fetch(Client, Option<url::Url>),
    /// reqwest 0.13 without TLS, as the shared anchors build it; the URL string or a parsed
    /// `Url`, as for `fetch()`.
    Reqwest(reqwest::Client, Option<url::Url>),
    /// hyper-util's legacy pooled `Client`, HTTP/1.1, TCP_NODELAY.
    Hyper(HyperClient<HttpConnector, Empty<Bytes>>, hyper::Uri),
}

impl Bench {
    /// Builds the client named `name` for requests to `url`.
    pub fn new(name: &str, url: &str, concurrency: usize) -> Result<Bench, String> {
        Ok(match canonical(name)? {
            "whatwg-fetch" => Bench::Fetch(
                Client::builder()
                    .max_connections_per_origin(concurrency)
                    .build()
                    .map_err(|error| error.to_string())?,
                None,
            ),
            PIPELINED => Bench::Fetch(
                Client::builder()
                    .max_connections_per_origin(concurrency)
                    .http1_pipelining(PIPELINING)
                    .build()
                    .map_err(|error| error.to_string())?,
                None,
            ),
            "reqwest" => Bench::Reqwest(
                reqwest::Client::builder()
                    .no_proxy()
                    .pool_max_idle_per_host(usize::MAX)
                    .build()
                    .map_err(|error| error.to_string())?,
                None,
            ),
            _ => {
                let mut connector = HttpConnector::new();
                connector.set_nodelay(true); // reqwest sets TCP_NODELAY too
                let client = HyperClient::builder(TokioExecutor::new()).build(connector);
                let uri = url.parse().map_err(|error| format!("{error}"))?;
                Bench::Hyper(client, uri)
            }
        })
    }

    /// Hands `fetch()` and reqwest a clone of `url` parsed once for each request, as
    /// hyper-util is always handed a parsed `Uri`, rather than the string that they parse
    /// with the WHATWG URL parser on every call.
    #[allow(
        dead_code,
        reason = "used by the load benchmark; benches/bench_client.rs includes this file too"
    )]
    pub fn parse_url_once(&mut self, url: &str) -> Result<(), String> {
        let parsed = url::Url::parse(url).map_err(|error| format!("{url}: {error}"))?;
        match self {
            Bench::Fetch(_, slot) | Bench::Reqwest(_, slot) => *slot = Some(parsed),
            Bench::Hyper(..) => {}
        }
        Ok(())
    }

    /// One request: the number of `items` in the JSON body.
    async fn get_items(&self, url: &str) -> Result<usize, String> {
        let items = match self {
            Bench::Fetch(client, Some(parsed)) => {
                super::jobs::fetch_items_of(client, parsed.clone()).await
            }
            Bench::Fetch(client, None) => super::jobs::fetch_items(client, url).await,
            Bench::Reqwest(client, Some(parsed)) => {
                super::jobs::reqwest_items_of(client, parsed.clone()).await
            }
            Bench::Reqwest(client, None) => super::jobs::reqwest_items(client, url).await,
            Bench::Hyper(client, uri) => super::jobs::hyper_items(client, uri).await,
        }?;
        usize::try_from(items).map_err(|error| error.to_string())
    }
}

/// One round: `n` requests, `concurrency` in flight. Returns (seconds, items counted).
async fn round(
    bench: &Bench,
    url: &Arc<str>,
    n: usize,
    concurrency: usize,
) -> Result<(f64, usize), String> {
    let next = Arc::new(AtomicUsize::new(0));
    let start = Instant::now();
    let mut tasks = Vec::with_capacity(concurrency);
    for _ in 0..concurrency {
        let (bench, url, next) = (bench.clone(), url.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let mut counted = 0usize;
            while next.fetch_add(1, Ordering::Relaxed) < n {
                counted += bench.get_items(&url).await?;
            }
            Ok::<usize, String>(counted)
        }));
    }
    let mut counted = 0;
    for task in tasks {
        counted += task.await.map_err(|error| error.to_string())??;
    }
    Ok((start.elapsed().as_secs_f64(), counted))
}

/// The probe request: the number of items one body holds, which every round checks.
pub async fn probe(bench: &Bench, url: &Arc<str>) -> Result<usize, String> {
    bench
        .get_items(url)
        .await
        .map_err(|error| format!("probe request failed: {error}"))
}

/// One round of `n` requests whose bodies each hold `per_body` items: its req/s.
pub async fn checked_round(
    bench: &Bench,
    url: &Arc<str>,
    n: usize,
    concurrency: usize,
    per_body: usize,
) -> Result<f64, String> {
    let (seconds, counted) = round(bench, url, n, concurrency)
        .await
        .map_err(|error| format!("request failed: {error}"))?;
    if counted != n * per_body {
        return Err(format!(
            "counted {counted} items, expected {}",
            n * per_body
        ));
    }
    Ok((n as f64 / seconds).round())
}

/// Probe, warm-up round, then `rounds` measured rounds: the req/s of each measured round.
#[allow(
    dead_code,
    reason = "used by benches/bench_client.rs; the load benchmark runs its rounds itself"
)]
pub async fn run(
    bench: &Bench,
    url: &str,
    n: usize,
    concurrency: usize,
    rounds: usize,
) -> Result<Vec<f64>, String> {
    let url: Arc<str> = Arc::from(url);
    let per_body = probe(bench, &url).await?;
    let mut rps = Vec::with_capacity(rounds);
    for r in 0..=rounds {
        let measured = checked_round(bench, &url, n, concurrency, per_body).await?;
        if r > 0 {
            rps.push(measured);
        }
    }
    Ok(rps)
}

/// The median (mean of the middle two for an even count); 0 for none.
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let m = sorted.len() / 2;
    match sorted.len() {
        0 => 0.0,
        len if len % 2 == 1 => sorted[m],
        _ => (sorted[m - 1] + sorted[m]) / 2.0,
    }
}

/// The result line of the comparison's client contract.
pub fn json_line(client: &str, rps: &[f64], n: usize, concurrency: usize) -> String {
    let workers = std::thread::available_parallelism().map_or(1, |p| p.get());
    let mut line = serde_json::json!({
        "client": client,
        "rps_median": median(rps),
        "rounds": rps,
        "n": n,
        "concurrency": concurrency,
        "runtime_workers": workers,
    });
    if client == ALL[0] {
        line["version"] = env!("CARGO_PKG_VERSION").into();
    }
    line.to_string()
}
