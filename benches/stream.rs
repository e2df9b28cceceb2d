//! Streaming download benchmark: a large body read chunk by chunk through `fetch()`'s body
//! stream against raw hyper-util's legacy client; and the peak memory of reading a 1 GiB body
//! through `fetch()` without keeping it.
//!
//! ```text
//! cargo bench -p benches --bench stream -- [--size-mib 256] [--rounds 7] [--memory-mib 1024]
//!                               [--clients fetch,hyper] [--order both|forward|reverse]
//! ```
//!
//! The server (in this process, current-thread runtime in its own thread) generates the body
//! in 64 KiB chunks, with a `Content-Length`; nothing is stored whole on either side.

#[path = "support/server.rs"]
mod server;

use std::time::Instant;

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::{BodyExt, Empty};
use hyper_util::client::legacy::{Client as HyperClient, connect::HttpConnector};
use hyper_util::rt::TokioExecutor;
use whatwg_fetch::{Client, RequestInit};

const MIB: u64 = 1024 * 1024;

struct Options {
    size_mib: u64,
    rounds: usize,
    memory_mib: u64,
    clients: Vec<&'static str>,
    forward: bool,
    reverse: bool,
}

const USAGE: &str = "usage: stream [--size-mib MIB] [--rounds R] [--memory-mib MIB] \
[--clients fetch,hyper] [--order both|forward|reverse]";

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        size_mib: 256,
        rounds: 7,
        memory_mib: 1024,
        clients: vec![FETCH, HYPER],
        forward: true,
        reverse: true,
    };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .ok_or_else(|| format!("{arg} needs a value\n{USAGE}"))
        };
        let number = |text: String| {
            text.parse::<u64>()
                .ok()
                .filter(|n| *n > 0)
                .ok_or_else(|| format!("{text:?} is not a positive number"))
        };
        match arg.as_str() {
            "--bench" => {} // passed by `cargo bench`
            "--size-mib" => options.size_mib = number(value()?)?,
            "--rounds" => {
                options.rounds = usize::try_from(number(value()?)?).map_err(|e| e.to_string())?;
            }
            "--memory-mib" => options.memory_mib = number(value()?)?,
            "--clients" => {
                options.clients = value()?
                    .split(',')
                    .filter(|name| !name.is_empty())
                    .map(|name| match name {
                        "fetch" | FETCH => Ok(FETCH),
                        "hyper" | HYPER => Ok(HYPER),
                        other => Err(format!("unknown client {other:?}\n{USAGE}")),
                    })
                    .collect::<Result<_, _>>()?;
            }
            "--order" => match value()?.as_str() {
                "both" => (options.forward, options.reverse) = (true, true),
                "forward" => (options.forward, options.reverse) = (true, false),
                "reverse" => (options.forward, options.reverse) = (false, true),
                other => return Err(format!("unknown order {other:?}\n{USAGE}")),
            },
            _ => return Err(format!("unknown argument {arg:?}\n{USAGE}")),
        }
    }
    Ok(options)
}

const FETCH: &str = "whatwg-fetch";
const HYPER: &str = "hyper-util-legacy";

// Built once per measurement: its size does not matter.
#[allow(clippy::large_enum_variant)]
enum Downloader {
    Fetch(Client),
    Hyper(HyperClient<HttpConnector, Empty<Bytes>>),
}

/// Bytes and chunks received.
struct Received {
    bytes: u64,
    chunks: u64,
}

impl Downloader {
    fn new(name: &str) -> Result<Downloader, String> {
        if name == FETCH {
            let client = Client::builder()
                .max_connections_per_origin(50)
                .build()
                .map_err(|error| error.to_string())?;
            Ok(Downloader::Fetch(client))
        } else {
            let mut connector = HttpConnector::new();
            connector.set_nodelay(true);
            Ok(Downloader::Hyper(
                HyperClient::builder(TokioExecutor::new()).build(connector),
            ))
        }
    }

    /// Reads the whole body chunk by chunk, keeping nothing.
    async fn download(&self, url: &str) -> Result<Received, String> {
        let mut received = Received {
            bytes: 0,
            chunks: 0,
        };
        match self {
            Downloader::Fetch(client) => {
                let mut response = client
                    .fetch(url, RequestInit::default())
                    .await
                    .map_err(|error| error.to_string())?;
                if response.status() != 200 {
                    return Err(format!("status {}", response.status()));
                }
                let body = response.body().ok_or("response has no body")?;
                while let Some(chunk) = body.next().await {
                    let chunk = chunk.map_err(|error| error.to_string())?;
                    received.bytes += chunk.len() as u64;
                    received.chunks += 1;
                }
            }
            Downloader::Hyper(client) => {
                let uri = url.parse().map_err(|error| format!("{error}"))?;
                let response = client.get(uri).await.map_err(|error| error.to_string())?;
                if response.status() != 200 {
                    return Err(format!("status {}", response.status()));
                }
                let mut body = response.into_body();
                while let Some(frame) = body.frame().await {
                    let frame = frame.map_err(|error| error.to_string())?;
                    if let Ok(data) = frame.into_data() {
                        received.bytes += data.len() as u64;
                        received.chunks += 1;
                    }
                }
            }
        }
        Ok(received)
    }
}

/// A `kB` figure from `/proc/self/status` (`VmHWM` = peak RSS, `VmRSS` = current RSS), in MiB.
fn status_mib(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status
        .lines()
        .find(|line| line.starts_with(field) && line[field.len()..].starts_with(':'))?;
    let kib: f64 = line[field.len() + 1..]
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()?;
    Some(kib / 1024.0)
}

fn mib(value: Option<f64>) -> String {
    value.map_or_else(|| "?".to_owned(), |value| format!("{value:.1} MiB"))
}

fn fail(message: String) -> ! {
    eprintln!("{message}");
    std::process::exit(1);
}

async fn checked(downloader: &Downloader, url: &str, expected: u64) -> Received {
    match downloader.download(url).await {
        Ok(received) if received.bytes == expected => received,
        Ok(received) => fail(format!(
            "received {} bytes, expected {expected}",
            received.bytes
        )),
        Err(error) => fail(format!("download failed: {error}")),
    }
}

/// Peak RSS around a `memory_mib` download through `fetch()`, after a 64 MiB warm-up.
async fn memory(base: &str, memory_mib: u64) {
    let downloader = Downloader::new(FETCH).unwrap_or_else(|error| fail(error));
    let at_start = status_mib("VmHWM");
    let warm_up = 64 * MIB;
    checked(&downloader, &format!("{base}bytes/{warm_up}"), warm_up).await;
    let before = status_mib("VmHWM");
    let size = memory_mib * MIB;
    let start = Instant::now();
    let received = checked(&downloader, &format!("{base}bytes/{size}"), size).await;
    let seconds = start.elapsed().as_secs_f64();
    let after = status_mib("VmHWM");
    eprintln!(
        "memory: fetch() read {memory_mib} MiB in {} chunks ({:.0} MiB/s), keeping none",
        received.chunks,
        size as f64 / MIB as f64 / seconds
    );
    eprintln!(
        "  peak RSS (VmHWM): at start {}, after a 64 MiB warm-up {}, after {memory_mib} MiB {}",
        mib(at_start),
        mib(before),
        mib(after)
    );
    eprintln!(
        "  peak RSS growth over the {memory_mib} MiB download: {}; since start: {}; VmRSS now {}",
        mib(after.zip(before).map(|(a, b)| a - b)),
        mib(after.zip(at_start).map(|(a, b)| a - b)),
        mib(status_mib("VmRSS"))
    );
}

fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let m = sorted.len() / 2;
    match sorted.len() {
        0 => 0.0,
        len if len % 2 == 1 => sorted[m],
        _ => (sorted[m - 1] + sorted[m]) / 2.0,
    }
}

/// One client: a warm-up download, then `rounds` timed ones; MiB/s of each.
async fn throughput(
    name: &str,
    url: &str,
    size: u64,
    rounds: usize,
    server_tid: Option<u64>,
) -> f64 {
    let downloader = Downloader::new(name).unwrap_or_else(|error| fail(error));
    checked(&downloader, url, size).await;
    let (process_before, server_before) = (server::cpu_time(None), server::cpu_time(server_tid));
    let all = Instant::now();
    let mut speeds = Vec::with_capacity(rounds);
    let mut chunks = 0;
    for _ in 0..rounds {
        let start = Instant::now();
        chunks += checked(&downloader, url, size).await.chunks;
        speeds.push((size as f64 / MIB as f64 / start.elapsed().as_secs_f64()).round());
    }
    let seconds = all.elapsed().as_secs_f64();
    let server_cpu = server::cpu_percent(server_before, server::cpu_time(server_tid), seconds);
    let process_cpu = server::cpu_percent(process_before, server::cpu_time(None), seconds);
    let client_cpu = process_cpu.zip(server_cpu).map(|(p, s)| p - s);
    let show = |value: Option<f64>| value.map_or_else(|| "?".to_owned(), |v| format!("{v:.0}%"));
    eprintln!(
        "  {name:<18} median {:>6.0} MiB/s  rounds {speeds:?}  mean chunk {:.1} KiB  \
         client CPU {} server CPU {}",
        median(&speeds),
        (size * rounds as u64) as f64 / chunks.max(1) as f64 / 1024.0,
        show(client_cpu),
        show(server_cpu)
    );
    median(&speeds)
}

fn main() {
    let options = match parse_args() {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    let server = server::start();
    let base = format!("http://{}/", server.addr);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("client runtime");

    // Memory first, while the peak RSS is still the process's own start-up figure.
    runtime.block_on(memory(&base, options.memory_mib));

    let size = options.size_mib * MIB;
    let url = format!("{base}bytes/{size}");
    eprintln!(
        "\nthroughput: {} MiB body in {} KiB server chunks, 1 warm-up + {} rounds per client",
        options.size_mib,
        server::CHUNK / 1024,
        options.rounds
    );
    let mut passes: Vec<(&str, Vec<&'static str>)> = Vec::new();
    if options.forward {
        passes.push(("forward", options.clients.clone()));
    }
    if options.reverse {
        let mut reversed = options.clients.clone();
        reversed.reverse();
        passes.push(("reverse", reversed));
    }
    for (label, order) in passes {
        eprintln!("pass {label}:");
        let speeds: Vec<(&str, f64)> = order
            .iter()
            .map(|name| {
                let speed =
                    runtime.block_on(throughput(name, &url, size, options.rounds, server.tid));
                (*name, speed)
            })
            .collect();
        let find = |wanted: &str| {
            speeds
                .iter()
                .find(|(name, _)| *name == wanted)
                .map(|(_, speed)| *speed)
        };
        if let (Some(fetch), Some(hyper)) = (find(FETCH), find(HYPER)) {
            eprintln!("  {label}: fetch / hyper = {:.3}", fetch / hyper);
        }
    }
}
