//! Memory benchmark: the resident memory (`VmRSS` in `/proc/self/status`) a client takes
//! per idle pooled connection and per request in flight, `fetch()` against hyper-util's
//! legacy client, each measured in a fresh child process (this binary run again with
//! `--child`) so that one client's heap never counts for the other, against a hyper
//! HTTP/1.1 server in the parent process.
//!
//! ```text
//! cargo bench -p benches --bench memory -- [--connections 10000] [--in-flight 1000] [--rounds 3]
//!                               [--clients fetch,hyper] [--order both|forward|reverse]
//! ```
//!
//! - **idle**: after one probe request, `--connections` concurrent `GET /hold` requests; the
//!   server holds each until all have arrived, so each has a connection of its own; then
//!   releases them, and once every body is read and the connections sit idle in the pool,
//!   the growth of `VmRSS` over the probe's figure, divided by the connections. Before each
//!   reading glibc's `malloc_trim` hands free pages back (`--trim off` leaves them), so
//!   that the figure is what stays in use, not what the burst of requests left free. The limit
//!   on open files (`RLIMIT_NOFILE`) is raised to its hard limit; when that is still too low
//!   the count is lowered to fit, and the printout says so.
//! - **in flight**: `--in-flight` held requests, released, so that as many connections sit
//!   idle; then as many held requests again, on those pooled connections: the growth of
//!   `VmRSS` while they wait at the server, over the idle figure, divided by the requests.
//!
//! `--serve` starts only the server and prints its address, for running a child by hand:
//! `memory --child whatwg-fetch idle 2000 ADDR` (under heaptrack, say).
//!
//! Run in the parent, each client's child `--rounds` times per pass and order; the printout
//! gives the median KiB per connection or request and `hyper-util / fetch` (above 1 when
//! `fetch()` takes less).

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

use std::collections::BTreeMap;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

use bytes::Bytes;
use http_body_util::Empty;
use hyper_util::client::legacy::{Client as HyperClient, connect::HttpConnector};
use hyper_util::rt::TokioExecutor;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use whatwg_fetch::Client;
use workload::{FETCH, HYPER, Options};

const USAGE: &str = "usage: memory [--connections N] [--in-flight N] [--rounds R] \
[--trim on|off] [--clients fetch,hyper] [--order both|forward|reverse]";

/// File descriptors kept back for the runtime, stdio and the control requests.
const SPARE_FILES: u64 = 64;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    match args.get(1).map(String::as_str) {
        Some("--child") => std::process::exit(child(args.get(2..).unwrap_or_default())),
        Some("--serve") => serve_only(),
        _ => {}
    }
    let options = Options::parse(
        USAGE,
        (1, 1, 3),
        &[FETCH, HYPER],
        &["connections", "in-flight", "trim"],
    );
    let trim = match options.extra.get("trim").map(String::as_str) {
        None | Some("on") => "trim",
        Some("off") => "no-trim",
        Some(other) => {
            eprintln!("--trim takes on or off, not {other:?}\n{USAGE}");
            std::process::exit(2);
        }
    };
    let files = raise_nofile();
    let wanted = options.number("connections", 10_000);
    // The parent's server holds one descriptor per connection too.
    let connections = wanted.min(usize::try_from(files.saturating_sub(SPARE_FILES)).unwrap_or(0));
    if connections < wanted {
        eprintln!(
            "memory: RLIMIT_NOFILE is {files}: {connections} connections instead of {wanted}"
        );
    }
    let in_flight = options.number("in-flight", 1000).min(connections);
    let server = servers::start(servers::Protocol::Http1);
    eprintln!(
        "memory: server http://{}/ in the parent, each measurement in a fresh child process; \
         RLIMIT_NOFILE {files}; malloc_trim before each reading: {}",
        server.addr,
        if trim == "trim" { "on" } else { "off" }
    );
    for (mode, count) in [("idle", connections), ("in-flight", in_flight)] {
        let what = if mode == "idle" {
            format!("{count} idle pooled connections")
        } else {
            format!("{count} requests in flight on pooled connections")
        };
        eprintln!(
            "\n{mode}: {what}, {} child runs per client and pass",
            options.rounds
        );
        let mut all: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
        for (label, order) in options.passes() {
            eprintln!("pass {label}: {}", order.join(", "));
            let mut medians = BTreeMap::new();
            for name in order {
                let mut per = Vec::new();
                let mut notes = Vec::new();
                for _ in 0..options.rounds {
                    let accepted = server.stats.accepted.load(Ordering::Relaxed);
                    let result = run_child(name, mode, count, &server.addr.to_string(), trim)
                        .unwrap_or_else(|error| {
                            eprintln!("{name} {mode}: {error}");
                            std::process::exit(1);
                        });
                    let opened = server.stats.accepted.load(Ordering::Relaxed) - accepted;
                    let get = |key: &str| result.get(key).copied().unwrap_or(f64::NAN);
                    per.push((get("per_kib") * 100.0).round() / 100.0);
                    notes.push(format!(
                        "base {:.1} MiB, after {:.1} MiB, peak {:.1} MiB, {:.1}s, {} connections, \
                         request future {} bytes ({} in the client's own)",
                        get("base_kib") / 1024.0,
                        get("after_kib") / 1024.0,
                        get("hwm_kib") / 1024.0,
                        get("seconds"),
                        opened.saturating_sub(get("control") as u64),
                        get("future_bytes"),
                        get("send_bytes")
                    ));
                }
                let median = workload::median(&per);
                eprintln!("  {name:<18} median {median:>7.2} KiB each  runs {per:?}");
                for note in notes {
                    eprintln!("      {note}");
                }
                medians.insert(name, median);
                all.entry(name).or_default().extend_from_slice(&per);
            }
            print_ratio(label, &medians);
        }
        let medians: BTreeMap<&str, f64> = all
            .iter()
            .map(|(name, per)| (*name, workload::median(per)))
            .collect();
        for (name, median) in &medians {
            eprintln!("  all: {name:<18} median {median:>7.2} KiB each");
        }
        print_ratio("all", &medians);
    }
}

/// `--serve`: only the server, for running a child by hand (under heaptrack, say): prints
/// its address and serves until killed.
fn serve_only() -> ! {
    raise_nofile();
    let server = servers::start(servers::Protocol::Http1);
    println!("{}", server.addr);
    loop {
        std::thread::park();
    }
}

/// Prints `hyper-util / fetch` of the memory each takes (above 1 when `fetch()` takes less).
fn print_ratio(label: &str, medians: &BTreeMap<&str, f64>) {
    if let (Some(&fetch), Some(&hyper)) = (medians.get(FETCH), medians.get(HYPER)) {
        if fetch > 0.0 {
            eprintln!(
                "  {label}: fetch / {HYPER} = {:.3} (memory, {HYPER} / fetch)",
                hyper / fetch
            );
        } else {
            eprintln!("  {label}: fetch took no measurable memory ({HYPER}: {hyper:.2} KiB)");
        }
    }
}

/// Runs this binary again as a child measuring `name` in `mode`; its `result` line.
fn run_child(
    name: &str,
    mode: &str,
    count: usize,
    addr: &str,
    trim: &str,
) -> Result<BTreeMap<String, f64>, String> {
    let exe = std::env::current_exe().map_err(|error| error.to_string())?;
    let output = std::process::Command::new(exe)
        .args(["--child", name, mode, &count.to_string(), addr, trim])
        .stderr(std::process::Stdio::inherit())
        .output()
        .map_err(|error| format!("cannot run the child: {error}"))?;
    if !output.status.success() {
        return Err(format!("child failed: {}", output.status));
    }
    let stdout = String::from_utf8_lossy(&output.stdout);
    let line = stdout
        .lines()
        .find_map(|line| line.strip_prefix("result "))
        .ok_or("the child printed no result")?;
    Ok(line
        .split_whitespace()
        .filter_map(|pair| {
            let (key, value) = pair.split_once('=')?;
            Some((key.to_owned(), value.parse().ok()?))
        })
        .collect())
}

/// Raises the soft limit on open files to the hard one; returns the soft limit now.
fn raise_nofile() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: getrlimit and setrlimit only read and write the struct passed.
    unsafe {
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut limit) != 0 {
            return 1024;
        }
        if limit.rlim_cur < limit.rlim_max {
            let raised = libc::rlimit {
                rlim_cur: limit.rlim_max,
                rlim_max: limit.rlim_max,
            };
            if libc::setrlimit(libc::RLIMIT_NOFILE, &raised) == 0 {
                limit = raised;
            }
        }
    }
    limit.rlim_cur
}

/// The clients, with nothing but their defaults changed (no pool cap, idle connections
/// kept 90 s in both).
enum MemClient {
    Fetch(Client),
    Hyper(Box<HyperClient<HttpConnector, Empty<Bytes>>>),
}

impl MemClient {
    async fn get(self: Arc<Self>, url: Arc<str>, uri: hyper::Uri) -> Result<u64, String> {
        match &*self {
            MemClient::Fetch(client) => jobs::fetch_items(client, &url).await,
            MemClient::Hyper(client) => jobs::hyper_items(client, &uri).await,
        }
    }
}

/// The child: `NAME MODE COUNT ADDR [trim|no-trim]`; prints `result key=value ...`, returns
/// the exit status.
fn child(args: &[String]) -> i32 {
    let (name, mode, count, addr, trim) = match args {
        [name, mode, count, addr] => (name, mode, count, addr, true),
        [name, mode, count, addr, trim] => (name, mode, count, addr, trim == "trim"),
        _ => {
            eprintln!("child: expected NAME MODE COUNT ADDR [trim|no-trim]");
            return 2;
        }
    };
    let Ok(count) = count.parse::<usize>() else {
        eprintln!("child: bad count {count:?}");
        return 2;
    };
    raise_nofile();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("client runtime");
    match runtime.block_on(child_run(name, mode, count, addr, trim)) {
        Ok(line) => {
            println!("result {line}");
            // Exit with the client and its connections still alive, so that a heap
            // profiler's "leaked" report is the live memory of the last reading.
            std::process::exit(0)
        }
        Err(error) => {
            eprintln!("child {name} {mode}: {error}");
            1
        }
    }
}

async fn child_run(
    name: &str,
    mode: &str,
    count: usize,
    addr: &str,
    trim: bool,
) -> Result<String, String> {
    let client = Arc::new(if name == FETCH {
        MemClient::Fetch(Client::builder().build().map_err(|e| e.to_string())?)
    } else {
        let mut connector = HttpConnector::new();
        connector.set_nodelay(true);
        MemClient::Hyper(Box::new(
            HyperClient::builder(TokioExecutor::new()).build(connector),
        ))
    });
    let root: Arc<str> = Arc::from(format!("http://{addr}/"));
    let hold: Arc<str> = Arc::from(format!("http://{addr}/hold"));
    let hold_uri: hyper::Uri = hold.parse().map_err(|error| format!("{error}"))?;
    // What each request's task holds inline, before anything it allocates.
    let (future_bytes, send_bytes) = match &*client {
        MemClient::Fetch(fetch) => (
            std::mem::size_of_val(&jobs::fetch_items(fetch, &hold)),
            std::mem::size_of_val(&fetch.fetch(&*hold, whatwg_fetch::RequestInit::default())),
        ),
        MemClient::Hyper(hyper) => (
            std::mem::size_of_val(&jobs::hyper_items(hyper, &hold_uri)),
            std::mem::size_of_val(&hyper.get(hold_uri.clone())),
        ),
    };
    let mut control = Control { addr, requests: 0 };
    let start = Instant::now();
    let root_uri = root.parse().map_err(|error| format!("{error}"))?;
    client.clone().get(root.clone(), root_uri).await?;
    settle(trim).await;
    let base = rss()?;
    let (after, before) = if mode == "idle" {
        let held = hold_all(&client, &hold, &hold_uri, count, &mut control).await?;
        control.get("/release").await?;
        finish(held, count).await?;
        settle(trim).await;
        (rss()?, base)
    } else {
        // Open `count` connections and leave them idle, then hold as many requests on them.
        let held = hold_all(&client, &hold, &hold_uri, count, &mut control).await?;
        control.get("/release").await?;
        finish(held, count).await?;
        settle(trim).await;
        let idle = rss()?;
        let held = hold_all(&client, &hold, &hold_uri, count, &mut control).await?;
        settle(trim).await;
        let in_flight = rss()?;
        control.get("/release").await?;
        finish(held, count).await?;
        (in_flight, idle)
    };
    let per_kib = (after - before) / count as f64;
    Ok(format!(
        "per_kib={per_kib:.3} base_kib={before} after_kib={after} hwm_kib={} seconds={:.2} \
         control={} future_bytes={future_bytes} send_bytes={send_bytes}",
        workload::status_kib("VmHWM").unwrap_or(f64::NAN),
        start.elapsed().as_secs_f64(),
        control.requests
    ))
}

type Held = Vec<tokio::task::JoinHandle<Result<u64, String>>>;

/// Sends `count` `GET /hold` at once and waits until the server holds them all.
async fn hold_all(
    client: &Arc<MemClient>,
    url: &Arc<str>,
    uri: &hyper::Uri,
    count: usize,
    control: &mut Control<'_>,
) -> Result<Held, String> {
    let held: Held = (0..count)
        .map(|_| tokio::spawn(client.clone().get(url.clone(), uri.clone())))
        .collect();
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        tokio::time::sleep(Duration::from_millis(50)).await;
        let arrived: usize = control.get("/arrived").await?.trim().parse().unwrap_or(0);
        if arrived >= count {
            return Ok(held);
        }
        if Instant::now() > deadline {
            return Err(format!("only {arrived} of {count} held requests arrived"));
        }
    }
}

/// Waits for every held request; each must have counted the body's items.
async fn finish(held: Held, count: usize) -> Result<(), String> {
    let mut done = 0;
    for task in held {
        if task.await.map_err(|error| error.to_string())?? > 0 {
            done += 1;
        }
    }
    if done != count {
        return Err(format!("{done} of {count} held requests counted items"));
    }
    Ok(())
}

/// Lets the runtime's tasks settle before a reading; with `trim`, then hands the
/// allocator's free pages back to the system, so that the reading counts memory in use
/// rather than what the last burst of requests left free in glibc's heap.
async fn settle(trim: bool) {
    tokio::time::sleep(Duration::from_millis(500)).await;
    #[cfg(target_env = "gnu")]
    if trim {
        // SAFETY: malloc_trim only releases free memory, under the allocator's own locks.
        unsafe {
            libc::malloc_trim(0);
        }
    }
    #[cfg(not(target_env = "gnu"))]
    let _ = trim;
}

fn rss() -> Result<f64, String> {
    workload::status_kib("VmRSS").ok_or_else(|| "no VmRSS in /proc/self/status".to_owned())
}

/// Control requests (`/arrived`, `/release`) on a connection of their own each, outside
/// the client under test.
struct Control<'a> {
    addr: &'a str,
    requests: u64,
}

impl Control<'_> {
    async fn get(&mut self, path: &str) -> Result<String, String> {
        self.requests += 1;
        let mut stream = tokio::net::TcpStream::connect(self.addr)
            .await
            .map_err(|error| format!("control connection: {error}"))?;
        let request = format!(
            "GET {path} HTTP/1.1\r\nhost: {}\r\nconnection: close\r\n\r\n",
            self.addr
        );
        stream
            .write_all(request.as_bytes())
            .await
            .map_err(|error| error.to_string())?;
        let mut response = String::new();
        stream
            .read_to_string(&mut response)
            .await
            .map_err(|error| error.to_string())?;
        let body = response
            .split_once("\r\n\r\n")
            .map(|(_, body)| body.to_owned())
            .ok_or("control response has no body")?;
        Ok(body)
    }
}
