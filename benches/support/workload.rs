//! What the `h2`, `https` and `memory` benchmarks share: their command line, the measured
//! loop (probe, warm-up round, measured rounds, CPU of client and server; the clients
//! taking turns round by round as in `load`, or with `--sequential` one after the other)
//! and the printout
//! in the form of `load`: per client the median rate, its rounds, the CPU each side used and
//! the client's CPU per unit, then `fetch / hyper-util-legacy` and `fetch / reqwest` (both
//! above 1 when `fetch()` is ahead), per pass and over all passes.

use std::collections::BTreeMap;
use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use crate::server::cpu_time;

/// The clients, by the names printed in results (as in `load`).
pub const FETCH: &str = "whatwg-fetch";
/// hyper-util's legacy pooled `Client`.
pub const HYPER: &str = "hyper-util-legacy";
/// reqwest 0.13.
pub const REQWEST: &str = "reqwest";

/// The common options, and the benchmark's own ones (`--name value`) in `extra`.
#[derive(Clone)]
pub struct Options {
    /// Jobs per round.
    pub n: usize,
    /// Jobs in flight.
    pub concurrency: usize,
    /// Measured rounds per client and pass.
    pub rounds: usize,
    /// The clients, in the forward order.
    pub clients: Vec<&'static str>,
    /// Run the forward order.
    pub forward: bool,
    /// Run the reverse order.
    pub reverse: bool,
    /// Each client's rounds all at once rather than in turn with the others'.
    pub sequential: bool,
    /// The benchmark's own options, by name without the dashes.
    pub extra: BTreeMap<String, String>,
}

impl Options {
    /// Parses the command line; `known` lists the benchmark's own options (each takes a
    /// value) and `clients` the clients it can run. Exits with status 2 on a bad argument.
    pub fn parse(
        usage: &str,
        defaults: (usize, usize, usize),
        clients: &[&'static str],
        known: &[&str],
    ) -> Options {
        match Options::try_parse(defaults, clients, known) {
            Ok(options) => options,
            Err(message) => {
                eprintln!("{message}\n{usage}");
                std::process::exit(2);
            }
        }
    }

    fn try_parse(
        (n, concurrency, rounds): (usize, usize, usize),
        clients: &[&'static str],
        known: &[&str],
    ) -> Result<Options, String> {
        let mut options = Options {
            n,
            concurrency,
            rounds,
            clients: clients.to_vec(),
            forward: true,
            reverse: true,
            sequential: false,
            extra: BTreeMap::new(),
        };
        let mut args = std::env::args().skip(1);
        while let Some(arg) = args.next() {
            let mut value = || args.next().ok_or_else(|| format!("{arg} needs a value"));
            let number = |text: String| {
                text.parse::<usize>()
                    .ok()
                    .filter(|n| *n > 0)
                    .ok_or_else(|| format!("{text:?} is not a positive number"))
            };
            match arg.as_str() {
                "--bench" => {} // passed by `cargo bench`
                "--sequential" => options.sequential = true,
                "--n" | "-n" => options.n = number(value()?)?,
                "--concurrency" | "-c" => options.concurrency = number(value()?)?,
                "--rounds" => options.rounds = number(value()?)?,
                "--clients" => {
                    options.clients = value()?
                        .split(',')
                        .filter(|name| !name.is_empty())
                        .map(|name| {
                            let name = match name {
                                "fetch" => FETCH,
                                "hyper" => HYPER,
                                other => other,
                            };
                            clients
                                .iter()
                                .find(|known| **known == name)
                                .copied()
                                .ok_or_else(|| format!("unknown client {name:?}"))
                        })
                        .collect::<Result<_, _>>()?;
                }
                "--order" => match value()?.as_str() {
                    "both" => (options.forward, options.reverse) = (true, true),
                    "forward" => (options.forward, options.reverse) = (true, false),
                    "reverse" => (options.forward, options.reverse) = (false, true),
                    other => return Err(format!("unknown order {other:?}")),
                },
                other => match other.strip_prefix("--") {
                    Some(name) if known.contains(&name) => {
                        let text = value()?;
                        options.extra.insert(name.to_owned(), text);
                    }
                    _ => return Err(format!("unknown argument {arg:?}")),
                },
            }
        }
        if options.clients.is_empty() {
            return Err("no clients".to_owned());
        }
        Ok(options)
    }

    /// The benchmark's own option `name` as a positive number, or `default`.
    pub fn number(&self, name: &str, default: usize) -> usize {
        match self.extra.get(name) {
            None => default,
            Some(text) => match text.parse::<usize>() {
                Ok(n) if n > 0 => n,
                _ => {
                    eprintln!("--{name}: {text:?} is not a positive number");
                    std::process::exit(2);
                }
            },
        }
    }

    /// The passes: ("forward", clients) and/or ("reverse", clients reversed).
    pub fn passes(&self) -> Vec<(&'static str, Vec<&'static str>)> {
        let mut passes = Vec::new();
        if self.forward {
            passes.push(("forward", self.clients.clone()));
        }
        if self.reverse {
            let mut reversed = self.clients.clone();
            reversed.reverse();
            passes.push(("reverse", reversed));
        }
        passes
    }
}

/// What one client measured in one pass.
pub struct Measured {
    /// Units per second of each measured round.
    pub rates: Vec<f64>,
    /// The client's CPU use (the process less the server thread), 100 = one core.
    pub client_cpu: Option<f64>,
    /// The server thread's CPU use.
    pub server_cpu: Option<f64>,
    /// Client CPU time per unit (probe, warm-up and measured rounds), in microseconds.
    pub client_us_per_unit: Option<f64>,
    /// Anything else worth printing (connections opened, TLS resumptions, ...).
    pub note: String,
}

type Round = Pin<Box<dyn Future<Output = Result<u64, String>> + Send>>;
type Note = Box<dyn Fn(&[u64]) -> String>;

/// One client, set up for a pass: its job, and the server's counters it reports on.
pub struct Contender {
    /// A round of `n` jobs with `concurrency` in flight (`n` = 1, `concurrency` = 1: the
    /// probe): the sum of their check values.
    round: Box<dyn Fn(usize, usize) -> Round>,
    /// The server's counters now (connections, handshakes, …).
    counters: Box<dyn Fn() -> Vec<u64>>,
    /// The note printed for the counters' growth over the client's rounds.
    note: Note,
}

impl Contender {
    /// A client whose every job returns a check value (items counted, bytes read); each
    /// round's total must be `n` times the probe's.
    pub fn new<F, Fut>(
        job: F,
        counters: impl Fn() -> Vec<u64> + 'static,
        note: impl Fn(&[u64]) -> String + 'static,
    ) -> Contender
    where
        F: Fn() -> Fut + Clone + Send + Sync + 'static,
        Fut: Future<Output = Result<u64, String>> + Send + 'static,
    {
        Contender {
            round: Box::new(move |n, concurrency| Box::pin(round(job.clone(), n, concurrency))),
            counters: Box::new(counters),
            note: Box::new(note),
        }
    }
}

/// `n` jobs with `concurrency` in flight: the sum of their check values.
async fn round<F, Fut>(job: F, n: usize, concurrency: usize) -> Result<u64, String>
where
    F: Fn() -> Fut + Clone + Send + Sync + 'static,
    Fut: Future<Output = Result<u64, String>> + Send + 'static,
{
    let next = Arc::new(AtomicUsize::new(0));
    let mut tasks = Vec::with_capacity(concurrency);
    for _ in 0..concurrency.min(n) {
        let (job, next) = (job.clone(), next.clone());
        tasks.push(tokio::spawn(async move {
            let mut total = 0u64;
            while next.fetch_add(1, Ordering::Relaxed) < n {
                total += job().await?;
            }
            Ok::<u64, String>(total)
        }));
    }
    let mut total = 0;
    for task in tasks {
        total += task.await.map_err(|error| error.to_string())??;
    }
    Ok(total)
}

/// What a pass adds up for one client over its rounds.
#[derive(Default)]
struct Tally {
    rates: Vec<f64>,
    seconds: f64,
    client_seconds: f64,
    server_seconds: f64,
    /// Whether both CPU readings were there for every round.
    cpu: bool,
    counters: Vec<u64>,
    per_job: u64,
}

/// One pass over `contenders`: each one's probe and warm-up round, then `rounds` measured
/// rounds of `n` jobs with `concurrency` in flight. The clients take turns round by round
/// (A B A B …) so that a drift of the machine's speed falls on all of them alike; with
/// `sequential`, each runs all its rounds before the next. `units` is what one job counts
/// for in the rate (1 request, or the MiB it downloads).
async fn pass(
    contenders: &[Contender],
    options: &Options,
    units: f64,
    server_tid: Option<u64>,
) -> Result<Vec<Measured>, String> {
    let (n, concurrency, rounds) = (options.n, options.concurrency, options.rounds);
    let steps: Vec<(usize, usize)> = match options.sequential {
        true => (0..contenders.len())
            .flat_map(|client| (0..=rounds).map(move |round| (client, round)))
            .collect(),
        false => (0..=rounds)
            .flat_map(|round| (0..contenders.len()).map(move |client| (client, round)))
            .collect(),
    };
    let mut tallies: Vec<Tally> = contenders
        .iter()
        .map(|_| Tally {
            cpu: true,
            ..Tally::default()
        })
        .collect();
    for (client, r) in steps {
        let (contender, tally) = (&contenders[client], &mut tallies[client]);
        let counters_before = (contender.counters)();
        let (process_before, server_before) = (cpu_time(None), cpu_time(server_tid));
        let start = Instant::now();
        if r == 0 {
            tally.per_job = (contender.round)(1, 1)
                .await
                .map_err(|error| format!("probe failed: {error}"))?;
        }
        let round_start = Instant::now();
        let total = (contender.round)(n, concurrency).await?;
        let round_seconds = round_start.elapsed().as_secs_f64();
        tally.seconds += start.elapsed().as_secs_f64();
        match (
            process_before.zip(cpu_time(None)),
            server_before.zip(cpu_time(server_tid)),
        ) {
            (Some((p0, p1)), Some((s0, s1))) => {
                tally.client_seconds += (p1 - p0) - (s1 - s0);
                tally.server_seconds += s1 - s0;
            }
            _ => tally.cpu = false,
        }
        let counters_after = (contender.counters)();
        tally.counters.resize(counters_after.len(), 0);
        for ((sum, after), before) in tally
            .counters
            .iter_mut()
            .zip(&counters_after)
            .zip(&counters_before)
        {
            *sum += after - before;
        }
        if total != n as u64 * tally.per_job {
            return Err(format!(
                "round {r}: counted {total}, expected {}",
                n as u64 * tally.per_job
            ));
        }
        if r > 0 {
            let rate = n as f64 * units / round_seconds;
            tally.rates.push(if rate >= 100.0 {
                rate.round()
            } else {
                (rate * 10.0).round() / 10.0
            });
        }
    }
    let done = (1 + n * (rounds + 1)) as f64 * units;
    Ok(contenders
        .iter()
        .zip(tallies)
        .map(|(contender, tally)| {
            let cpu = |seconds: f64| tally.cpu.then(|| seconds / tally.seconds * 100.0);
            Measured {
                client_cpu: cpu(tally.client_seconds),
                server_cpu: cpu(tally.server_seconds),
                client_us_per_unit: tally.cpu.then(|| tally.client_seconds / done * 1e6),
                note: (contender.note)(&tally.counters),
                rates: tally.rates,
            }
        })
        .collect())
}

/// Runs every pass of `options` on `runtime`, each with the clients `make` sets up (given a
/// client's name), and prints per pass and over all passes in the form of `load`. `unit`
/// names the rate's unit ("req/s", "MiB/s"), `per` what CPU time is counted per
/// ("request", "MiB") and `units` how many of those one job is. Exits with status 1 when a
/// measurement fails.
pub fn run_passes(
    runtime: &tokio::runtime::Runtime,
    options: &Options,
    (unit, per, units): (&str, &str, f64),
    server_tid: Option<u64>,
    mut make: impl FnMut(&'static str) -> Result<Contender, String>,
) {
    let fail = |error: String| -> ! {
        eprintln!("{error}");
        std::process::exit(1);
    };
    let mut all_rates: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    let mut all_cpu: BTreeMap<&str, Vec<f64>> = BTreeMap::new();
    for (label, order) in options.passes() {
        eprintln!("\npass {label}: {}", order.join(", "));
        let contenders: Vec<Contender> = order
            .iter()
            .map(|name| make(name).map_err(|error| format!("{name}: {error}")))
            .collect::<Result<_, _>>()
            .unwrap_or_else(|error| fail(error));
        let measured = runtime
            .block_on(pass(&contenders, options, units, server_tid))
            .unwrap_or_else(|error| fail(error));
        drop(contenders);
        let mut medians = BTreeMap::new();
        let mut cpu = BTreeMap::new();
        for (name, measured) in order.into_iter().zip(measured) {
            let median = median(&measured.rates);
            eprintln!(
                "  {name:<18} median {median:>8} {unit}  rounds {:?}  client CPU {} ({} µs/{per}) \
                 server CPU {}{}",
                measured.rates,
                percent(measured.client_cpu),
                measured
                    .client_us_per_unit
                    .map_or_else(|| "?".to_owned(), |us| format!("{us:.1}")),
                percent(measured.server_cpu),
                if measured.note.is_empty() {
                    String::new()
                } else {
                    format!("  {}", measured.note)
                }
            );
            medians.insert(name, median);
            if let Some(us) = measured.client_us_per_unit {
                cpu.insert(name, us);
                all_cpu.entry(name).or_default().push(us);
            }
            all_rates
                .entry(name)
                .or_default()
                .extend_from_slice(&measured.rates);
        }
        print_ratios(label, unit, per, &medians, &cpu);
    }
    eprintln!("\nall passes (median of every measured round; CPU: median of the passes):");
    let mut medians = BTreeMap::new();
    let mut cpu = BTreeMap::new();
    for name in &options.clients {
        let rates = all_rates.get(name).map_or(&[][..], Vec::as_slice);
        let median = median(rates);
        let us = all_cpu.get(name).map(|us| self::median(us));
        eprintln!(
            "  {name:<18} median {median:>8} {unit} over {} rounds, {} µs/{per}",
            rates.len(),
            us.map_or_else(|| "?".to_owned(), |us| format!("{us:.1}"))
        );
        medians.insert(*name, median);
        if let Some(us) = us {
            cpu.insert(*name, us);
        }
    }
    print_ratios("all", unit, per, &medians, &cpu);
}

/// Prints `fetch / other` of the rate and `other / fetch` of CPU per unit (both above 1
/// when `fetch()` is ahead).
pub fn print_ratios(
    label: &str,
    unit: &str,
    per: &str,
    medians: &BTreeMap<&str, f64>,
    cpu: &BTreeMap<&str, f64>,
) {
    let Some(fetch) = medians.get(FETCH).copied() else {
        return;
    };
    for other in [HYPER, REQWEST] {
        if let Some(&base) = medians.get(other) {
            if base > 0.0 {
                eprint!("  {label}: fetch / {other} = {:.3} ({unit})", fetch / base);
                match (cpu.get(FETCH), cpu.get(other)) {
                    (Some(&ours), Some(&theirs)) if ours > 0.0 => {
                        eprintln!(", {:.3} (CPU per {per}, {other} / fetch)", theirs / ours);
                    }
                    _ => eprintln!(),
                }
            }
        }
    }
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

fn percent(value: Option<f64>) -> String {
    value.map_or_else(|| "?".to_owned(), |value| format!("{value:.0}%"))
}

/// A `kB` figure from `/proc/self/status` (`VmHWM` = peak RSS, `VmRSS` = current RSS), in
/// KiB.
pub fn status_kib(field: &str) -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|line| {
        line.strip_prefix(field)
            .is_some_and(|rest| rest.starts_with(':'))
    })?;
    line.get(field.len() + 1..)?
        .trim()
        .trim_end_matches("kB")
        .trim()
        .parse()
        .ok()
}
