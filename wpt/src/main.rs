//! `wpt`: runs the web-platform-tests for the Fetch Standard against `whatwg-fetch`.
//!
//! See wpt/README.md. `wpt [options] [paths…]` discovers the tests, starts the WPT server,
//! runs every `.any.js` file in its own engine process, and compares the results with
//! wpt/expectations.json.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod discover;
mod engine;
mod job;
mod meta;
mod report;
mod results;
mod runner;
mod server;

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use discover::Kind;
use job::Job;
use results::{Expectations, NotRun, Report};

/// What runs when no path is given.
const DEFAULT_PATHS: &[&str] = &[
    "fetch/api",
    "fetch/data-urls",
    "fetch/content-encoding",
    "fetch/content-length",
    "fetch/content-type",
    "fetch/cross-origin-resource-policy",
    "fetch/h1-parsing",
    "fetch/metadata",
    "fetch/range",
    "fetch/http-cache",
    "fetch/security",
    "fetch/stale-while-revalidate",
    "mimesniff",
];

/// The per-file deadline, and the one for `META: timeout=long`.
const TIMEOUT_MS: u64 = 10_000;
const TIMEOUT_LONG_MS: u64 = 60_000;

const USAGE: &str = "\
usage: wpt [options] [paths…]      run tests (default: fetch/api, fetch/data-urls,
                                   content-encoding, content-length, content-type,
                                   cross-origin-resource-policy, h1-parsing, metadata, range,
                                   http-cache,
                                   security and stale-while-revalidate under fetch/, and
                                   mimesniff);
                                   a path is a directory or file under the suite root, a file may
                                   carry its variant (x.any.js?1-10)
       wpt serve [--suite DIR]     start the WPT server and wait (for manual runs)
       wpt list [paths…]           list what would run and what would not

options:
  --suite DIR            suite root (default: $WPT_ROOT, else ~/.cache/whatwg-fetch/wpt)
  -j, --jobs N           files in parallel (default: number of cores)
  --json FILE            write the full report as JSON
  --html FILE            write a static HTML report
  --expectations FILE    expectations file (default: wpt/expectations.json)
  --update               rewrite the expectations of the files run to this run's results
  --strict               unexpected passes fail the run too
  --no-server            use a WPT server that is already running
  --timeout-multiplier F multiply per-file deadlines (default 1)
  -v, --verbose          print every failing subtest as it finishes
";

#[derive(Debug, Default)]
struct Options {
    command: String,
    paths: Vec<String>,
    suite: Option<PathBuf>,
    jobs: Option<usize>,
    json: Option<PathBuf>,
    html: Option<PathBuf>,
    expectations: Option<PathBuf>,
    update: bool,
    strict: bool,
    no_server: bool,
    timeout_multiplier: f64,
    verbose: bool,
}

fn parse_args(args: &[String]) -> Result<Options, String> {
    let mut o = Options {
        command: "run".to_owned(),
        timeout_multiplier: 1.0,
        ..Options::default()
    };
    let mut it = args.iter();
    let mut first = true;
    while let Some(a) = it.next() {
        let mut value = |name: &str| it.next().cloned().ok_or(format!("{name} needs a value"));
        match a.as_str() {
            "serve" | "list" | "run" if first => o.command = a.clone(),
            "--suite" => o.suite = Some(value(a)?.into()),
            "-j" | "--jobs" => {
                o.jobs = Some(value(a)?.parse().map_err(|_| "--jobs needs a number")?)
            }
            "--json" => o.json = Some(value(a)?.into()),
            "--html" => o.html = Some(value(a)?.into()),
            "--expectations" => o.expectations = Some(value(a)?.into()),
            "--timeout-multiplier" => {
                o.timeout_multiplier = value(a)?
                    .parse()
                    .map_err(|_| "--timeout-multiplier needs a number")?
            }
            "--update" => o.update = true,
            "--strict" => o.strict = true,
            "--no-server" => o.no_server = true,
            "-v" | "--verbose" => o.verbose = true,
            "-h" | "--help" => return Err(String::new()),
            s if s.starts_with('-') => return Err(format!("unknown option {s}")),
            s => o.paths.push(s.to_owned()),
        }
        first = false;
    }
    Ok(o)
}

/// `$WPT_CACHE`, else `~/.cache/whatwg-fetch`: where setup.sh puts the venv and the suite.
fn cache_dir() -> PathBuf {
    if let Some(d) = std::env::var_os("WPT_CACHE") {
        return d.into();
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from("."));
    home.join(".cache").join("whatwg-fetch")
}

/// The suite root: `--suite`, else `$WPT_ROOT`, else `<cache>/wpt`.
fn suite_dir(o: &Options) -> PathBuf {
    o.suite
        .clone()
        .or_else(|| std::env::var_os("WPT_ROOT").map(PathBuf::from))
        .unwrap_or_else(|| cache_dir().join("wpt"))
}

fn manifest_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn start_server(suite: &Path) -> Result<server::Server, String> {
    let cache = cache_dir();
    let python = cache.join("venv/bin/python");
    if !python.exists() {
        return Err(format!("{} is missing: run wpt/setup.sh", python.display()));
    }
    let config = server::ServerConfig::new(suite, &cache.join("certs"));
    server::Server::start(
        &python,
        &manifest_dir().join("serve.py"),
        &config,
        &cache.join("wptserve.log"),
    )
}

/// Splits `path?variant` and finds the jobs and not-run files for the given paths.
fn plan(
    suite: &Path,
    paths: &[String],
    multiplier: f64,
) -> Result<(Vec<Job>, Vec<NotRun>), String> {
    let files = discover::discover(suite, paths)?;
    let only_variants: Vec<(&str, &str)> = paths
        .iter()
        .filter_map(|p| p.find(['?', '#']).map(|i| p.split_at(i)))
        .collect();
    let mut jobs = Vec::new();
    let mut not_run = Vec::new();
    for f in files {
        match f.kind {
            Kind::NotRun(reason) => not_run.push(NotRun {
                path: f.path,
                reason,
            }),
            Kind::Any(meta) => {
                let base = if meta.timeout_long {
                    TIMEOUT_LONG_MS
                } else {
                    TIMEOUT_MS
                };
                let timeout = (base as f64 * multiplier.max(0.1)) as u64;
                for variant in meta.runs() {
                    let wanted = only_variants
                        .iter()
                        .filter(|(p, _)| p.trim_matches('/') == f.path)
                        .all(|(_, v)| *v == variant);
                    if wanted {
                        let mut job = Job::new(&f.path, &variant, &meta, timeout)?;
                        job.ca_cert = Some(cache_dir().join("certs/cacert.pem"));
                        jobs.push(job);
                    }
                }
            }
        }
    }
    // The longest files first, so that they do not finish last.
    jobs.sort_by_key(|j| std::cmp::Reverse(j.timeout_ms));
    Ok((jobs, not_run))
}

fn print_changes(title: &str, changes: &[results::Change]) {
    if changes.is_empty() {
        return;
    }
    println!("\n{title} ({}):", changes.len());
    for c in changes.iter().take(300) {
        match &c.subtest {
            Some(s) => println!(
                "  {} | {s} | {}",
                c.id,
                c.detail.lines().next().unwrap_or_default()
            ),
            None => println!(
                "  {} | {}",
                c.id,
                c.detail.lines().next().unwrap_or_default()
            ),
        }
    }
    if changes.len() > 300 {
        println!("  … and {} more", changes.len() - 300);
    }
}

fn run(o: Options) -> Result<ExitCode, String> {
    let suite = suite_dir(&o);
    if !suite.join("resources/testharness.js").exists() {
        return Err(format!(
            "no WPT suite at {} (see wpt/README.md: pass --suite DIR, set WPT_ROOT, or run wpt/setup.sh --fetch-suite)",
            suite.display()
        ));
    }
    let paths: Vec<String> = if o.paths.is_empty() {
        DEFAULT_PATHS.iter().map(|s| (*s).to_owned()).collect()
    } else {
        o.paths.clone()
    };
    let (jobs, not_run) = plan(&suite, &paths, o.timeout_multiplier)?;

    if o.command == "list" {
        for j in &jobs {
            println!("RUN      {}", j.id);
        }
        for n in &not_run {
            println!("NOT RUN  {} ({})", n.path, n.reason);
        }
        println!("{} runs, {} files not run", jobs.len(), not_run.len());
        return Ok(ExitCode::SUCCESS);
    }
    if o.command == "serve" {
        let _server = start_server(&suite)?;
        println!(
            "serving {} as http://web-platform.test:8000 (ports 8000 8001 8443 8444 9000, all on 127.0.0.1); Ctrl-C stops",
            suite.display()
        );
        loop {
            std::thread::sleep(std::time::Duration::from_secs(3600));
        }
    }
    let mut server = if o.no_server {
        None
    } else {
        Some(start_server(&suite)?)
    };

    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let parallel = o
        .jobs
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(2, |n| n.get()));
    let verbose = o.verbose;
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let files = rt.block_on(runner::run_all(exe, jobs, parallel, |f, n, total| {
        let passed = f.subtests.iter().filter(|s| s.status == "PASS").count();
        println!(
            "[{n:>4}/{total}] {:<7} {passed:>3}/{:<3} {} ({:.1}s){}",
            f.harness,
            f.subtests.len(),
            f.id,
            f.duration_ms as f64 / 1000.0,
            f.message
                .as_ref()
                .filter(|_| f.harness != "OK")
                .map(|m| format!(" — {}", m.lines().next().unwrap_or_default()))
                .unwrap_or_default()
        );
        if verbose {
            for s in f.subtests.iter().filter(|s| s.status != "PASS") {
                println!(
                    "           {} {} — {}",
                    s.status,
                    s.name,
                    s.message
                        .as_deref()
                        .unwrap_or("")
                        .lines()
                        .next()
                        .unwrap_or("")
                );
            }
        }
    }));
    if let Some(s) = server.as_mut() {
        s.stop();
    }

    let report = Report {
        suite: suite.display().to_string(),
        files,
        not_run,
    };
    let exp_path = o
        .expectations
        .clone()
        .unwrap_or_else(|| manifest_dir().join("expectations.json"));
    let mut expectations: Expectations = match std::fs::read_to_string(&exp_path) {
        Ok(s) => serde_json::from_str(&s).map_err(|e| format!("{}: {e}", exp_path.display()))?,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Expectations::new(),
        Err(e) => return Err(format!("{}: {e}", exp_path.display())),
    };
    let diff = results::diff(&expectations, &report.files);

    println!("\n{}", report::summary_table(&report));
    print_changes("REGRESSIONS", &diff.regressions);
    print_changes(
        "UNEXPECTED PASSES (run with --update to record them)",
        &diff.unexpected_passes,
    );
    print_changes("STALE EXPECTATIONS", &diff.stale);

    if let Some(p) = &o.json {
        let json = serde_json::to_string_pretty(&report).map_err(|e| e.to_string())?;
        std::fs::write(p, json).map_err(|e| format!("{}: {e}", p.display()))?;
        println!("JSON report: {}", p.display());
    }
    if let Some(p) = &o.html {
        std::fs::write(p, report::html(&report, &diff))
            .map_err(|e| format!("{}: {e}", p.display()))?;
        println!("HTML report: {}", p.display());
    }
    if o.update {
        results::update(&mut expectations, &report.files);
        let json = serde_json::to_string_pretty(&expectations).map_err(|e| e.to_string())? + "\n";
        std::fs::write(&exp_path, json).map_err(|e| format!("{}: {e}", exp_path.display()))?;
        println!("expectations updated: {}", exp_path.display());
        return Ok(ExitCode::SUCCESS);
    }
    let (_, total) = report::summarize(&report);
    println!(
        "\nwpt: {} of {} subtests pass ({:.1}%); {} regressions, {} unexpected passes",
        total.passed,
        total.subtests,
        total.percent(),
        diff.regressions.len(),
        diff.unexpected_passes.len()
    );
    if !diff.regressions.is_empty() || (o.strict && !diff.unexpected_passes.is_empty()) {
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    // The hidden child mode: `wpt run-one JOB_JSON`.
    if args.first().map(String::as_str) == Some("run-one") {
        let Some(job) = args
            .get(1)
            .and_then(|j| serde_json::from_str::<Job>(j).ok())
        else {
            eprintln!("run-one needs a job");
            return ExitCode::from(2);
        };
        engine::run_one(job);
    }
    let o = match parse_args(&args) {
        Ok(o) => o,
        Err(e) => {
            if !e.is_empty() {
                eprintln!("wpt: {e}");
            }
            eprint!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match run(o) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("wpt: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_options_and_paths() {
        let a: Vec<String> = [
            "-j",
            "3",
            "--update",
            "fetch/api",
            "--json",
            "r.json",
            "mimesniff",
        ]
        .map(String::from)
        .to_vec();
        let o = parse_args(&a).unwrap();
        assert_eq!(o.jobs, Some(3));
        assert!(o.update);
        assert_eq!(o.paths, ["fetch/api", "mimesniff"]);
        assert_eq!(o.json, Some(PathBuf::from("r.json")));
        assert_eq!(parse_args(&["serve".to_owned()]).unwrap().command, "serve");
        assert!(parse_args(&["--bogus".to_owned()]).is_err());
        assert!(parse_args(&["-j".to_owned()]).is_err());
    }
}
