//! undici's HTTP/1.1 benchmark (`benchmarks/benchmark.js` of nodejs/undici, the workload of
//! the table in its README), done by `fetch()` and the two Rust reference clients against
//! undici's own `benchmarks/server.js`, which `benches/undici/run.sh` starts.
//!
//! ```text
//! cargo bench -p benches --bench undici -- [--url http://127.0.0.1:3042/] [--samples 100]
//!                             [--parallel 100] [--connections 50] [--error-threshold 3]
//!                             [--body-bytes 65536] [--threads N] [--clients fetch,hyper,reqwest]
//! ```
//!
//! What benchmark.js does, under cronometro, and so what this does, client by client:
//!
//! - a sample is `--parallel` GETs of the URL started at once and awaited together (a barrier
//!   between samples); every body is read to its end chunk by chunk and dropped, and a body
//!   of any other length than `--body-bytes` (server.js sends 64 KiB) or a failed request
//!   stops the benchmark with exit status 1;
//! - a warm-up pass of the whole sample loop, then the measured pass; each pass stops after
//!   `--samples` + 1 samples, or earlier: once 10 % of `--samples` are done it checks at every
//!   5 % whether the standard error over the mean is below `--error-threshold` per cent;
//! - req/s = parallel / mean sample time; tolerance ± standard error / mean (the standard
//!   deviation of the population, over the square root of the samples, as cronometro's HDR
//!   histogram gives it).
//!
//! Each client runs alone, one after the other, on a tokio runtime of its own (one worker per
//! CPU, or `--threads`) built for it and dropped after it, as cronometro runs each test in a
//! fresh worker thread. Connections: `fetch()`'s pool is capped at `--connections` per origin
//! (undici's `connections: 50`); hyper-util's legacy client and reqwest have no such cap, so
//! at most `--connections` of their requests are in flight at once (a semaphore), which is
//! what a cap on connections comes to without pipelining — as Node's `http.Agent` with
//! `maxSockets: 50` queues the rest. Timeouts are off, as in benchmark.js (`headersTimeout`
//! and `bodyTimeout` 0): `fetch()`'s read timeout is `None`; the other two have none.
//!
//! Output: the table of undici's `printResults` (slowest first) on stderr, and one JSON line
//! per client on stdout, which run.sh merges with undici's rows.

#[allow(dead_code)]
#[path = "support/jobs.rs"]
mod jobs;

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::Empty;
use hyper_util::client::legacy::{Client as HyperClient, connect::HttpConnector};
use hyper_util::rt::TokioExecutor;
use tokio::sync::Semaphore;
use whatwg_fetch::{Client, ClientBuilder};

struct Options {
    url: String,
    samples: usize,
    parallel: usize,
    connections: usize,
    /// Per cent.
    error_threshold: f64,
    body_bytes: u64,
    /// Runtime workers; `None` for tokio's default, one per CPU.
    threads: Option<usize>,
    clients: Vec<&'static Variant>,
    /// The pipelining depth of `fetch-pipelining` (undici's `PIPELINING`, 10).
    pipelining: usize,
}

/// One client under test: the name printed in results, the short name `--clients` takes,
/// and how it is built.
struct Variant {
    name: &'static str,
    short: &'static str,
    build: fn(&Options) -> Result<Requester, String>,
}

/// The clients, in the order they run. Another variant of one of them — another setting of
/// its builder — is one entry here, as `fetch-pipelining` is.
const VARIANTS: &[Variant] = &[
    Variant {
        name: "whatwg-fetch - fetch",
        short: "fetch",
        build: |options| fetch_with(options, |builder| builder),
    },
    Variant {
        name: "whatwg-fetch - fetch (pipelining)",
        short: "fetch-pipelining",
        build: |options| {
            fetch_with(options, |builder| {
                builder.http1_pipelining(options.pipelining)
            })
        },
    },
    Variant {
        name: "hyper-util - legacy Client",
        short: "hyper",
        build: hyper_client,
    },
    Variant {
        name: "reqwest",
        short: "reqwest",
        build: reqwest_client,
    },
];

/// `fetch()` through a `Client` capped at `--connections` per origin, timeouts off, its
/// builder then handed to `tune`.
fn fetch_with(
    options: &Options,
    tune: impl FnOnce(ClientBuilder) -> ClientBuilder,
) -> Result<Requester, String> {
    let builder = Client::builder()
        .max_connections_per_origin(options.connections)
        .read_timeout(None);
    let client = tune(builder).build().map_err(|error| error.to_string())?;
    let url: Arc<str> = Arc::from(options.url.as_str());
    Ok(Arc::new(move || -> Request {
        let (client, url) = (client.clone(), url.clone());
        Box::pin(async move { jobs::fetch_bytes(&client, &url).await })
    }))
}

/// hyper-util's legacy pooled client, HTTP/1.1, `TCP_NODELAY`; at most `--connections`
/// requests in flight.
fn hyper_client(options: &Options) -> Result<Requester, String> {
    let mut connector = HttpConnector::new();
    connector.set_nodelay(true);
    let client: HyperClient<HttpConnector, Empty<Bytes>> =
        HyperClient::builder(TokioExecutor::new()).build(connector);
    let uri: hyper::Uri = options
        .url
        .parse()
        .map_err(|error| format!("{}: {error}", options.url))?;
    let permits = Arc::new(Semaphore::new(options.connections));
    Ok(Arc::new(move || -> Request {
        let (client, uri, permits) = (client.clone(), uri.clone(), permits.clone());
        Box::pin(async move {
            let _permit = permits.acquire().await.map_err(|error| error.to_string())?;
            jobs::hyper_bytes(&client, &uri).await
        })
    }))
}

/// reqwest 0.13 without TLS, no proxy; at most `--connections` requests in flight.
fn reqwest_client(options: &Options) -> Result<Requester, String> {
    let client = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(usize::MAX)
        .build()
        .map_err(|error| error.to_string())?;
    let url: Arc<str> = Arc::from(options.url.as_str());
    let permits = Arc::new(Semaphore::new(options.connections));
    Ok(Arc::new(move || -> Request {
        let (client, url, permits) = (client.clone(), url.clone(), permits.clone());
        Box::pin(async move {
            let _permit = permits.acquire().await.map_err(|error| error.to_string())?;
            jobs::reqwest_bytes(&client, &url).await
        })
    }))
}

/// One GET of the URL, its body read to the end and dropped: the bytes read.
type Request = Pin<Box<dyn Future<Output = Result<u64, String>> + Send>>;
type Requester = Arc<dyn Fn() -> Request + Send + Sync>;

const USAGE: &str = "usage: undici [--url URL] [--samples N] [--parallel N] [--connections N] \
[--error-threshold PERCENT] [--body-bytes N] [--threads N] [--pipelining N] \
[--clients fetch,fetch-pipelining,hyper,reqwest]";

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        url: "http://127.0.0.1:3042/".to_owned(),
        samples: 100,
        parallel: 100,
        connections: 50,
        error_threshold: 3.0,
        body_bytes: 64 * 1024,
        threads: None,
        clients: VARIANTS.iter().collect(),
        pipelining: 10,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))
        };
        let number = |text: String| {
            text.parse::<usize>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{text:?} is not a positive number"))
        };
        match arg.as_str() {
            "--bench" => {} // passed by `cargo bench`
            "--url" => options.url = value()?,
            "--samples" => options.samples = number(value()?)?,
            "--parallel" => options.parallel = number(value()?)?,
            "--connections" => options.connections = number(value()?)?,
            "--body-bytes" => options.body_bytes = number(value()?)? as u64,
            "--threads" => options.threads = Some(number(value()?)?),
            "--error-threshold" => {
                let text = value()?;
                options.error_threshold = text
                    .parse::<f64>()
                    .ok()
                    .filter(|percent| (0.0..=100.0).contains(percent))
                    .ok_or_else(|| format!("{text:?} is not a percentage (0 never stops early)"))?;
            }
            "--clients" => {
                options.clients = value()?
                    .split(',')
                    .filter(|name| !name.is_empty())
                    .map(|name| {
                        VARIANTS
                            .iter()
                            .find(|variant| variant.short == name || variant.name == name)
                            .ok_or_else(|| {
                                let known: Vec<_> = VARIANTS.iter().map(|v| v.short).collect();
                                format!("unknown client {name:?} (expected {})", known.join(", "))
                            })
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--pipelining" => options.pipelining = number(value()?)?,
            _ => return Err(format!("unknown argument {arg:?}\n{USAGE}")),
        }
    }
    if options.clients.is_empty() {
        return Err(format!("no clients\n{USAGE}"));
    }
    Ok(options)
}

/// One sample: `parallel` requests started at once, all awaited; its duration in ns.
async fn sample(requester: &Requester, options: &Options) -> Result<f64, String> {
    let start = Instant::now();
    let tasks: Vec<_> = (0..options.parallel)
        .map(|_| tokio::spawn(requester()))
        .collect();
    for task in tasks {
        let bytes = task
            .await
            .map_err(|error| format!("request task failed: {error}"))?
            .map_err(|error| format!("request failed: {error}"))?;
        if bytes != options.body_bytes {
            return Err(format!(
                "a body of {bytes} bytes, expected {}",
                options.body_bytes
            ));
        }
    }
    Ok(start.elapsed().as_nanos() as f64)
}

/// What a pass measured: its sample times, in ns.
struct Stats {
    samples: Vec<f64>,
}

impl Stats {
    fn mean(&self) -> f64 {
        self.samples.iter().sum::<f64>() / self.samples.len() as f64
    }

    /// The standard deviation of the population over √n, as cronometro's tracker has it.
    fn standard_error(&self) -> f64 {
        let mean = self.mean();
        let n = self.samples.len() as f64;
        let variance = self
            .samples
            .iter()
            .map(|value| (value - mean) * (value - mean))
            .sum::<f64>()
            / n;
        variance.sqrt() / n.sqrt()
    }

    fn tolerance(&self) -> f64 {
        self.standard_error() / self.mean()
    }

    fn rps(&self, parallel: usize) -> f64 {
        parallel as f64 * 1e9 / self.mean()
    }
}

/// One pass of the sample loop with cronometro's stopping rule (its `handleTestIteration`):
/// `total` = `--samples`; after each sample, once at least 10 % of `total` are done and at
/// each 5 % step, stop if standard error / mean < the threshold; else stop after `total` + 1.
async fn pass(requester: &Requester, options: &Options) -> Result<Stats, String> {
    let total = options.samples;
    let threshold = options.error_threshold / 100.0;
    let mut stats = Stats {
        samples: Vec::with_capacity(total + 1),
    };
    loop {
        let nanos = sample(requester, options)
            .await
            .map_err(|error| format!("sample {}: {error}", stats.samples.len() + 1))?;
        stats.samples.push(nanos);
        let executed = stats.samples.len();
        // The same floating-point steps as cronometro's, so the same samples are checked.
        let completed = (executed as f64 / total as f64 * 10_000.0).floor() as u64;
        if threshold > 0.0
            && completed >= 1000
            && completed % 500 == 0
            && stats.tolerance() < threshold
        {
            return Ok(stats);
        }
        if executed > total {
            return Ok(stats);
        }
    }
}

/// One client's result.
struct Measured {
    name: &'static str,
    stats: Stats,
}

/// Builds the client on a runtime of its own, runs the warm-up pass and the measured pass.
fn measure(variant: &'static Variant, options: &Options) -> Result<Measured, String> {
    let mut builder = tokio::runtime::Builder::new_multi_thread();
    if let Some(threads) = options.threads {
        builder.worker_threads(threads);
    }
    let runtime = builder
        .enable_all()
        .build()
        .map_err(|error| format!("runtime: {error}"))?;
    let stats = runtime.block_on(async {
        let requester = (variant.build)(options)?;
        let warm_up = pass(&requester, options)
            .await
            .map_err(|error| format!("warm-up {error}"))?;
        eprintln!(
            "  {}: warm-up {} samples ({:.2} req/sec)",
            variant.name,
            warm_up.samples.len(),
            warm_up.rps(options.parallel)
        );
        pass(&requester, options).await
    })?;
    runtime.shutdown_background();
    Ok(Measured {
        name: variant.name,
        stats,
    })
}

/// The rows of undici's `printResults`: slowest first, each against the slowest.
fn rows(measured: &[Measured], parallel: usize) -> Vec<[String; 5]> {
    let mut sorted: Vec<&Measured> = measured.iter().collect();
    sorted.sort_by(|a, b| b.stats.mean().total_cmp(&a.stats.mean()));
    let slowest = sorted.first().map_or(0.0, |m| m.stats.mean());
    sorted
        .iter()
        .map(|m| {
            let relative = (slowest / m.stats.mean() - 1.0) * 100.0;
            [
                m.name.to_owned(),
                m.stats.samples.len().to_string(),
                format!("{:.2} req/sec", m.stats.rps(parallel)),
                format!("± {:.2} %", m.stats.tolerance() * 100.0),
                if relative > 0.0 {
                    format!("+ {relative:.2} %")
                } else {
                    "-".to_owned()
                },
            ]
        })
        .collect()
}

/// The rows as Node's `console.table` draws them.
fn print_table(rows: &[[String; 5]]) {
    const HEADERS: [&str; 6] = [
        "(index)",
        "Tests",
        "Samples",
        "Result",
        "Tolerance",
        "Difference with slowest",
    ];
    let cells: Vec<[String; 6]> = rows
        .iter()
        .enumerate()
        .map(|(index, [name, samples, result, tolerance, difference])| {
            [
                index.to_string(),
                format!("'{name}'"),
                samples.clone(),
                format!("'{result}'"),
                format!("'{tolerance}'"),
                format!("'{difference}'"),
            ]
        })
        .collect();
    let widths: Vec<usize> = (0..6)
        .map(|column| {
            cells
                .iter()
                .map(|row| row[column].chars().count())
                .chain([HEADERS[column].chars().count()])
                .max()
                .unwrap_or(0)
                + 2
        })
        .collect();
    let rule = |left: &str, middle: &str, right: &str| {
        let parts: Vec<String> = widths.iter().map(|w| "─".repeat(*w)).collect();
        format!("{left}{}{right}", parts.join(middle))
    };
    let line = |row: &[&str]| {
        let parts: Vec<String> = row
            .iter()
            .zip(&widths)
            .map(|(cell, width)| format!(" {cell:<w$} ", w = width - 2))
            .collect();
        format!("│{}│", parts.join("│"))
    };
    eprintln!("{}", rule("┌", "┬", "┐"));
    eprintln!("{}", line(&HEADERS));
    eprintln!("{}", rule("├", "┼", "┤"));
    for row in &cells {
        let row: Vec<&str> = row.iter().map(String::as_str).collect();
        eprintln!("{}", line(&row));
    }
    eprintln!("{}", rule("└", "┴", "┘"));
}

fn main() {
    let options = match parse_args() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    let workers = options.threads.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    eprintln!(
        "undici: at most {} samples of {} GETs of {} ({} bytes each), at most {} \
         connections, error threshold {} %, runtime workers {workers}",
        options.samples + 1,
        options.parallel,
        options.url,
        options.body_bytes,
        options.connections,
        options.error_threshold,
    );
    let mut measured = Vec::with_capacity(options.clients.len());
    for variant in &options.clients {
        match measure(variant, &options) {
            Ok(result) => measured.push(result),
            Err(error) => {
                eprintln!("undici: {}: {error}", variant.name);
                std::process::exit(1);
            }
        }
    }
    print_table(&rows(&measured, options.parallel));
    for m in &measured {
        let line = serde_json::json!({
            "client": m.name,
            "source": "cargo bench --bench undici",
            "samples": m.stats.samples.len(),
            "rps": (m.stats.rps(options.parallel) * 100.0).round() / 100.0,
            "tolerance_pct": (m.stats.tolerance() * 10_000.0).round() / 100.0,
            "mean_ms": m.stats.mean() / 1e6,
            "parallel": options.parallel,
            "connections": options.connections,
            "runtime_workers": workers,
        });
        println!("{line}");
    }
}
