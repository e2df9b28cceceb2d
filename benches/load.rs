//! Load benchmark: `fetch()` against raw hyper and reqwest on the workload of
//! `../shared/bench` (764-byte JSON body, N GETs with CONCURRENCY in flight, median req/s).
//!
//! ```text
//! cargo bench -p benches --bench load -- [--n 5000] [--concurrency 50] [--rounds 7]
//!                             [--clients fetch,hyper,reqwest] [--order both|forward|reverse]
//!                             [--min-cpu-ratio R] [--parsed-url] [--sequential]
//! ```
//!
//! `fetch()` and reqwest are handed the URL string, which they parse with the WHATWG URL
//! parser on every call, and hyper-util a `Uri` parsed once; `--parsed-url` hands the first
//! two a `Url` parsed once too.
//!
//! With `--min-cpu-ratio R`, the run is also a regression guard: it exits with status 1 when
//! raw hyper's CPU per request divided by `fetch()`'s, over all passes, is below `R` (say
//! 0.70, some way under what this machine measures, so that noise alone does not trip it).
//!
//! The server runs in this process, on a current-thread runtime in its own thread; the
//! clients run on a multi-thread runtime. The clients take turns round by round (see
//! [`pass`]; `--sequential` runs each client's rounds all at once instead). With `--order
//! both` (the default) the turns go in the given order and then in the reverse order, and
//! each pass is printed.

#[path = "support/clients.rs"]
mod clients;
#[allow(dead_code)]
#[path = "support/jobs.rs"]
mod jobs;
#[allow(dead_code)]
#[path = "support/server.rs"]
mod server;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use clients::Bench;

struct Options {
    n: usize,
    concurrency: usize,
    rounds: usize,
    clients: Vec<&'static str>,
    forward: bool,
    reverse: bool,
    /// Fail when hyper-util's CPU per request over fetch's falls below this.
    min_cpu_ratio: Option<f64>,
    /// Hand fetch() and reqwest a parsed `Url`, as hyper-util gets a parsed `Uri`.
    parsed_url: bool,
    /// Each client's rounds all at once rather than in turn with the others'.
    sequential: bool,
}

const USAGE: &str = "usage: load [--n N] [--concurrency C] [--rounds R] \
[--clients fetch,hyper,reqwest] [--order both|forward|reverse] [--min-cpu-ratio R] \
[--parsed-url] [--sequential]";

fn parse_args() -> Result<Options, String> {
    let mut options = Options {
        n: 5000,
        concurrency: 50,
        rounds: 7,
        clients: clients::ALL.to_vec(),
        forward: true,
        reverse: true,
        min_cpu_ratio: None,
        parsed_url: false,
        sequential: false,
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
            "--parsed-url" => options.parsed_url = true,
            "--sequential" => options.sequential = true,
            "--n" | "-n" => options.n = number(value()?)?,
            "--concurrency" | "-c" => options.concurrency = number(value()?)?,
            "--rounds" => options.rounds = number(value()?)?,
            "--clients" => options.clients = clients::parse_list(&value()?)?,
            "--order" => match value()?.as_str() {
                "both" => (options.forward, options.reverse) = (true, true),
                "forward" => (options.forward, options.reverse) = (true, false),
                "reverse" => (options.forward, options.reverse) = (false, true),
                other => return Err(format!("unknown order {other:?}\n{USAGE}")),
            },
            "--min-cpu-ratio" => {
                let text = value()?;
                let ratio = text
                    .parse::<f64>()
                    .ok()
                    .filter(|ratio| ratio.is_finite() && *ratio > 0.0)
                    .ok_or_else(|| format!("{text:?} is not a positive ratio"))?;
                options.min_cpu_ratio = Some(ratio);
            }
            _ => return Err(format!("unknown argument {arg:?}\n{USAGE}")),
        }
    }
    if options.clients.is_empty() {
        return Err(format!("no clients\n{USAGE}"));
    }
    Ok(options)
}

/// What one client measured in one pass.
#[derive(Default)]
struct Measured {
    rps: Vec<f64>,
    /// Wall time of its rounds, in seconds.
    seconds: f64,
    /// CPU time of the process less the server thread's, and of the server thread, over
    /// its rounds, in seconds.
    client_seconds: Option<f64>,
    server_seconds: Option<f64>,
    /// Requests over its rounds: the probe, the warm-up round and the measured rounds.
    requests: usize,
}

impl Measured {
    fn client_cpu(&self) -> Option<f64> {
        self.client_seconds.map(|cpu| cpu / self.seconds * 100.0)
    }

    fn server_cpu(&self) -> Option<f64> {
        self.server_seconds.map(|cpu| cpu / self.seconds * 100.0)
    }

    /// Client CPU time per request (probe, warm-up and measured rounds), in microseconds:
    /// steadier than req/s on a busy machine, since it does not count time spent waiting.
    fn client_us_per_request(&self) -> Option<f64> {
        self.client_seconds
            .map(|cpu| cpu / self.requests as f64 * 1e6)
    }
}

/// One pass over the clients in `order`: each one's probe and warm-up round, then its
/// measured rounds. Interleaved (the default), the clients take turns round by round —
/// A B A B … — so that a drift of the machine's speed over the pass, which on a shared
/// machine moves a client's figures by several per cent from one second to the next,
/// falls on all of them alike; sequential, each client runs all its rounds before the
/// next starts.
async fn pass(
    order: &[&'static str],
    url: &str,
    options: &Options,
    server_tid: Option<u64>,
) -> Result<Vec<Measured>, String> {
    let url: Arc<str> = Arc::from(url);
    let mut benches = Vec::with_capacity(order.len());
    for name in order {
        let mut bench = Bench::new(name, &url, options.concurrency)?;
        if options.parsed_url {
            bench.parse_url_once(&url)?;
        }
        benches.push(bench);
    }
    let steps: Vec<(usize, usize)> = match options.sequential {
        true => (0..order.len())
            .flat_map(|client| (0..=options.rounds).map(move |round| (client, round)))
            .collect(),
        false => (0..=options.rounds)
            .flat_map(|round| (0..order.len()).map(move |client| (client, round)))
            .collect(),
    };
    let mut measured: Vec<Measured> = order.iter().map(|_| Measured::default()).collect();
    let mut per_body = vec![0; order.len()];
    for (client, round) in steps {
        let (bench, tally) = (&benches[client], &mut measured[client]);
        let (process_before, server_before) =
            (server::cpu_time(None), server::cpu_time(server_tid));
        let start = Instant::now();
        if round == 0 {
            per_body[client] = clients::probe(bench, &url).await?;
            tally.requests += 1;
        }
        let rps = clients::checked_round(
            bench,
            &url,
            options.n,
            options.concurrency,
            per_body[client],
        )
        .await
        .map_err(|error| format!("{}: {error}", order[client]))?;
        tally.seconds += start.elapsed().as_secs_f64();
        tally.requests += options.n;
        let (process_after, server_after) = (server::cpu_time(None), server::cpu_time(server_tid));
        let server = server_after.zip(server_before).map(|(a, b)| a - b);
        let process = process_after.zip(process_before).map(|(a, b)| a - b);
        tally.server_seconds = server
            .zip(tally.server_seconds.or(Some(0.0)))
            .map(|(a, b)| a + b);
        tally.client_seconds = process
            .zip(server)
            .zip(tally.client_seconds.or(Some(0.0)))
            .map(|((process, server), sum)| sum + process - server);
        if round > 0 {
            tally.rps.push(rps);
        }
    }
    Ok(measured)
}

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "?".to_owned(), |value| format!("{value:.0}%"))
}

/// Prints `fetch / other` for req/s and `other / fetch` for CPU per request (both above 1
/// when `fetch()` is the faster).
fn print_ratios(label: &str, medians: &BTreeMap<&str, f64>, cpu: &BTreeMap<&str, f64>) {
    let Some(fetch) = medians.get(clients::ALL[0]).copied() else {
        return;
    };
    for other in &clients::ALL[1..] {
        if let Some(&base) = medians.get(other) {
            if base > 0.0 {
                eprint!("  {label}: fetch / {other} = {:.3} (req/s)", fetch / base);
                match (cpu.get(clients::ALL[0]), cpu.get(other)) {
                    (Some(&ours), Some(&theirs)) if ours > 0.0 => {
                        eprintln!(", {:.3} (CPU per request, {other} / fetch)", theirs / ours);
                    }
                    _ => eprintln!(),
                }
            }
        }
    }
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
    let url = format!("http://{}/", server.addr);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("client runtime");
    let workers = std::thread::available_parallelism().map_or(1, |p| p.get());
    eprintln!(
        "load: {url}, N={} concurrency={} rounds={} (after 1 probe + 1 warm-up round), \
         client runtime workers={workers}, server: current-thread runtime in this process",
        options.n, options.concurrency, options.rounds
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

    let mut all_rounds: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut all_cpu: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for (label, order) in &passes {
        eprintln!("\npass {label}: {}", order.join(", "));
        let mut medians = BTreeMap::new();
        let mut cpu = BTreeMap::new();
        let measured = match runtime.block_on(pass(order, &url, &options, server.tid)) {
            Ok(measured) => measured,
            Err(error) => {
                eprintln!("{error}");
                std::process::exit(1);
            }
        };
        for (name, measured) in order.iter().zip(measured) {
            let median = clients::median(&measured.rps);
            let us_per_request = measured.client_us_per_request();
            eprintln!(
                "  {name:<18} median {median:>8.0} req/s  rounds {:?}  client CPU {} ({} µs/request) server CPU {}",
                measured.rps,
                percent(measured.client_cpu()),
                us_per_request.map_or_else(|| "?".to_owned(), |us| format!("{us:.1}")),
                percent(measured.server_cpu()),
            );
            medians.insert(*name, median);
            if let Some(us) = us_per_request {
                cpu.insert(*name, us);
                all_cpu.entry(*name).or_default().push(us);
            }
            all_rounds
                .entry(name)
                .or_default()
                .extend_from_slice(&measured.rps);
        }
        print_ratios(label, &medians, &cpu);
    }

    eprintln!("\nall passes (median of every measured round):");
    let mut medians = BTreeMap::new();
    let mut cpu = BTreeMap::new();
    for name in &options.clients {
        let rps = all_rounds.get(name).map_or(&[][..], Vec::as_slice);
        let median = clients::median(rps);
        eprintln!(
            "  {name:<18} median {median:>8.0} req/s over {} rounds",
            rps.len()
        );
        medians.insert(*name, median);
        if let Some(us) = all_cpu.get(name) {
            cpu.insert(*name, clients::median(us));
        }
        println!(
            "{}",
            clients::json_line(name, rps, options.n, options.concurrency)
        );
    }
    print_ratios("all", &medians, &cpu);
    if let Some(min) = options.min_cpu_ratio {
        guard(min, &cpu);
    }
}

/// Exits with status 1 when raw hyper's CPU per request over `fetch()`'s, from `cpu` (the
/// medians over all passes), is below `min`, or cannot be computed.
fn guard(min: f64, cpu: &BTreeMap<&str, f64>) {
    let ratio = match (cpu.get(clients::ALL[0]), cpu.get(clients::ALL[1])) {
        (Some(&fetch), Some(&hyper)) if fetch > 0.0 => hyper / fetch,
        _ => {
            eprintln!(
                "guard: no CPU figures for both {} and {} (run both clients, on Linux)",
                clients::ALL[0],
                clients::ALL[1]
            );
            std::process::exit(1);
        }
    };
    if ratio < min {
        eprintln!(
            "guard: CPU per request {} / fetch = {ratio:.3}, below {min:.3}",
            clients::ALL[1]
        );
        std::process::exit(1);
    }
    eprintln!(
        "guard: CPU per request {} / fetch = {ratio:.3}, at least {min:.3}",
        clients::ALL[1]
    );
}
