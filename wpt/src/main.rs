//! `wpt`: runs the web-platform-tests for the Fetch Standard against `whatwg-fetch`.
//!
//! See wpt/README.md. `wpt [options] [paths…]` discovers the tests, starts the WPT server,
//! runs every `.any.js` and `.window.js` file in its own engine process, in the chosen
//! environment (`--environment browser|server`) and global scopes (`--scope`), and compares
//! the results with the expectations of that environment and scope,
//! `wpt/expectations/<environment>-<scope>.json`.

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
use job::{Environment, Job, Scope};
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
    // HTML's server-sent events, whose connection is a fetch.
    "eventsource",
    // The WebSockets Standard, whose opening handshake is a fetch.
    "websockets",
    // XMLHttpRequest's FormData, one of the body types of Fetch.
    "xhr/formdata",
];

/// The per-file deadline, and the one for `META: timeout=long`.
const TIMEOUT_MS: u64 = 10_000;
const TIMEOUT_LONG_MS: u64 = 60_000;

const USAGE: &str = "\
usage: wpt [options] [paths…]      run tests (default: fetch/api, fetch/data-urls,
                                   content-encoding, content-length, content-type,
                                   cross-origin-resource-policy, h1-parsing, metadata, range,
                                   http-cache,
                                   security and stale-while-revalidate under fetch/,
                                   mimesniff, eventsource, websockets and xhr/formdata);
                                   a path is a directory or file under the suite root, a file may
                                   carry its variant (x.any.js?1-10)
       wpt serve [--suite DIR]     start the WPT server and wait (for manual runs)
       wpt list [paths…]           list what would run and what would not

options:
  --environment E        browser (default): the fetch client's origin is the test page's;
                         server: the crate's server-side client, the page URL as base URL only
  --scope S              auto (default): each file once, in a dedicated worker when it runs
                         there, else in a window; worker; window; all: every scope a file runs in
  --suite DIR            suite root (default: $WPT_ROOT, else ../shared/wpt-suite beside
                         the repository, else ~/.cache/whatwg-fetch/wpt, where
                         wpt/setup.sh keeps the suite it fetches)
  -j, --jobs N           files in parallel (default: number of cores)
  --json FILE            write the full report as JSON
  --html FILE            write a static HTML report
  --expectations DIR     expectations directory, one <environment>-<scope>.json per
                         environment and scope (default: wpt/expectations)
  --update               rewrite the expectations of the files run to this run's results, in
                         the file of the environment and scope each ran in
  --strict               unexpected passes fail the run too
  --no-server            use a WPT server that is already running
  --timeout-multiplier F multiply per-file deadlines (default 1)
  -v, --verbose          print every failing subtest as it finishes
";

/// Which global scopes run (`--scope`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
enum ScopeChoice {
    /// Each file once: in a dedicated worker when it runs there, else in a window.
    #[default]
    Auto,
    /// Dedicated workers only.
    Worker,
    /// Windows only.
    Window,
    /// Every scope a file runs in.
    All,
}

impl ScopeChoice {
    fn parse(s: &str) -> Option<ScopeChoice> {
        match s {
            "auto" => Some(ScopeChoice::Auto),
            "worker" => Some(ScopeChoice::Worker),
            "window" => Some(ScopeChoice::Window),
            "all" => Some(ScopeChoice::All),
            _ => None,
        }
    }

    /// The scopes a run with this choice may use, in order.
    fn scopes(self) -> Vec<Scope> {
        match self {
            ScopeChoice::Worker => vec![Scope::Worker],
            ScopeChoice::Window => vec![Scope::Window],
            ScopeChoice::Auto | ScopeChoice::All => vec![Scope::Worker, Scope::Window],
        }
    }

    /// Of the scopes a file runs in (worker first), those that run with this choice.
    fn select(self, scopes: &[Scope]) -> Vec<Scope> {
        match self {
            ScopeChoice::All => scopes.to_vec(),
            ScopeChoice::Auto => scopes.iter().take(1).copied().collect(),
            ScopeChoice::Worker | ScopeChoice::Window => scopes
                .iter()
                .copied()
                .filter(|s| self.scopes().contains(s))
                .collect(),
        }
    }
}

#[derive(Debug, Default)]
struct Options {
    command: String,
    environment: Environment,
    scope: ScopeChoice,
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
            "--environment" => {
                let v = value(a)?;
                o.environment = Environment::parse(&v)
                    .ok_or(format!("--environment is browser or server, not {v}"))?
            }
            "--scope" => {
                let v = value(a)?;
                o.scope = ScopeChoice::parse(&v)
                    .ok_or(format!("--scope is auto, worker, window or all, not {v}"))?
            }
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

/// The suite root: `--suite`, else where every test looks for it (`$WPT_ROOT`, then the pinned
/// suite at `../shared/wpt-suite` beside the repository, then `<cache>/wpt`, where setup.sh
/// keeps the one it fetches).
fn suite_dir(o: &Options) -> Result<PathBuf, String> {
    match &o.suite {
        Some(suite) => Ok(suite.clone()),
        None => locate_wpt_suite(&manifest_dir().join("..")),
    }
}

include!("../../tests/common/wpt_suite.rs");

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

/// Why a file that runs in `scopes` does not run with `choice`.
fn not_selected(scopes: &[Scope]) -> String {
    let names: Vec<&str> = scopes.iter().map(|s| s.name()).collect();
    format!(
        "runs only in the {} scope (--scope {} or all)",
        names.join(" and "),
        names.join("/")
    )
}

/// The expectations directory: `--expectations`, else `wpt/expectations`.
fn expectations_dir(o: &Options) -> PathBuf {
    o.expectations
        .clone()
        .unwrap_or_else(|| manifest_dir().join("expectations"))
}

/// Splits `path?variant` and finds the jobs and not-run files for the given paths, in
/// `environment` and the scopes of `choice`.
fn plan(
    suite: &Path,
    paths: &[String],
    multiplier: f64,
    environment: Environment,
    choice: ScopeChoice,
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
            Kind::Run(meta, scopes) => {
                let selected = choice.select(&scopes);
                if selected.is_empty() {
                    not_run.push(NotRun {
                        path: f.path,
                        reason: not_selected(&scopes),
                    });
                    continue;
                }
                let base = if meta.timeout_long {
                    TIMEOUT_LONG_MS
                } else {
                    TIMEOUT_MS
                };
                let timeout = (base as f64 * multiplier.max(0.1)) as u64;
                for &scope in &selected {
                    for variant in meta.runs() {
                        let wanted = only_variants
                            .iter()
                            .filter(|(p, _)| p.trim_matches('/') == f.path)
                            .all(|(_, v)| *v == variant);
                        if !wanted {
                            continue;
                        }
                        let mut job =
                            Job::new(&f.path, &variant, &meta, timeout, scope, environment)?;
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
                "  {} {} | {s} | {}",
                c.scope.name(),
                c.id,
                c.detail.lines().next().unwrap_or_default()
            ),
            None => println!(
                "  {} {} | {}",
                c.scope.name(),
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
    let suite = suite_dir(&o)?;
    if !suite.join("resources/testharness.js").exists() {
        return Err(format!(
            "no WPT suite at {} (no resources/testharness.js; see wpt/README.md)",
            suite.display()
        ));
    }
    let paths: Vec<String> = if o.paths.is_empty() {
        DEFAULT_PATHS.iter().map(|s| (*s).to_owned()).collect()
    } else {
        o.paths.clone()
    };
    let (jobs, not_run) = plan(&suite, &paths, o.timeout_multiplier, o.environment, o.scope)?;

    if o.command == "list" {
        for j in &jobs {
            println!("RUN      {:<6} {}", j.scope.name(), j.id);
        }
        for n in &not_run {
            println!("NOT RUN  {} ({})", n.path, n.reason);
        }
        println!(
            "{} runs ({} environment), {} files not run",
            jobs.len(),
            o.environment.name(),
            not_run.len()
        );
        return Ok(ExitCode::SUCCESS);
    }
    if o.command == "serve" {
        let _server = start_server(&suite)?;
        println!(
            "serving {} as http://web-platform.test:8000 (ports 8000 8001 8443 8444 9000, WebSocket 8888 8889, all on 127.0.0.1); Ctrl-C stops",
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
    let started = std::time::Instant::now();
    println!(
        "wpt: {} runs in the {} environment, scope {}",
        jobs.len(),
        o.environment.name(),
        scope_label(o.scope)
    );
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let files = rt.block_on(runner::run_all(exe, jobs, parallel, |f, n, total| {
        let passed = f.subtests.iter().filter(|s| s.status == "PASS").count();
        println!(
            "[{n:>4}/{total}] {:<7} {passed:>3}/{:<3} {:<6} {} ({:.1}s){}",
            f.harness,
            f.subtests.len(),
            f.scope.name(),
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

    let elapsed = started.elapsed();

    let report = Report {
        suite: suite.display().to_string(),
        environment: o.environment,
        scopes: o.scope.scopes(),
        files,
        not_run,
    };
    let dir = expectations_dir(&o);
    let mut diff = results::Diff::default();
    let mut expectations = Vec::new();
    for &scope in &report.scopes {
        let path = results::expectations_file(&dir, o.environment, scope);
        let e = read_expectations(&path)?;
        let files: Vec<_> = report
            .files
            .iter()
            .filter(|f| f.scope == scope)
            .cloned()
            .collect();
        let d = results::diff(&e, &files);
        diff.regressions.extend(d.regressions);
        diff.unexpected_passes.extend(d.unexpected_passes);
        diff.stale.extend(d.stale);
        expectations.push((scope, path, e, files));
    }

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
        for (_, path, mut e, files) in expectations {
            if files.is_empty() {
                continue;
            }
            results::update(&mut e, &files);
            let json = serde_json::to_string_pretty(&e).map_err(|e| e.to_string())? + "\n";
            if let Some(parent) = path.parent() {
                std::fs::create_dir_all(parent)
                    .map_err(|e| format!("{}: {e}", parent.display()))?;
            }
            std::fs::write(&path, json).map_err(|e| format!("{}: {e}", path.display()))?;
            println!("expectations updated: {}", path.display());
        }
        return Ok(ExitCode::SUCCESS);
    }
    let (_, total) = report::summarize(&report, None);
    println!(
        "\nwpt ({} environment, scope {}): {} of {} subtests pass ({:.1}%) in {:.0} s; {} regressions, {} unexpected passes",
        o.environment.name(),
        scope_label(o.scope),
        total.passed,
        total.subtests,
        total.percent(),
        elapsed.as_secs_f64(),
        diff.regressions.len(),
        diff.unexpected_passes.len()
    );
    if !diff.regressions.is_empty() || (o.strict && !diff.unexpected_passes.is_empty()) {
        return Ok(ExitCode::FAILURE);
    }
    Ok(ExitCode::SUCCESS)
}

fn scope_label(choice: ScopeChoice) -> &'static str {
    match choice {
        ScopeChoice::Auto => "auto (worker, else window)",
        ScopeChoice::Worker => "worker",
        ScopeChoice::Window => "window",
        ScopeChoice::All => "all (worker and window)",
    }
}

/// The expectations in `path`; none when the file does not exist.
fn read_expectations(path: &Path) -> Result<Expectations, String> {
    match std::fs::read_to_string(path) {
        Ok(s) => serde_json::from_str(&s).map_err(|e| format!("{}: {e}", path.display())),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Expectations::new()),
        Err(e) => Err(format!("{}: {e}", path.display())),
    }
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

    #[test]
    fn parses_environment_and_scope() {
        let args = |a: &[&str]| a.iter().map(|s| (*s).to_owned()).collect::<Vec<_>>();
        let o = parse_args(&args(&[])).unwrap();
        assert_eq!(
            (o.environment, o.scope),
            (Environment::Browser, ScopeChoice::Auto)
        );
        let o = parse_args(&args(&["--environment", "server", "--scope", "all", "x"])).unwrap();
        assert_eq!(
            (o.environment, o.scope),
            (Environment::Server, ScopeChoice::All)
        );
        assert_eq!(o.paths, ["x"]);
        for (scope, choice) in [
            ("auto", ScopeChoice::Auto),
            ("worker", ScopeChoice::Worker),
            ("window", ScopeChoice::Window),
        ] {
            assert_eq!(
                parse_args(&args(&["--scope", scope])).unwrap().scope,
                choice
            );
        }
        assert!(parse_args(&args(&["--environment", "node"])).is_err());
        assert!(parse_args(&args(&["--scope", "shadowrealm"])).is_err());
        assert!(parse_args(&args(&["--scope"])).is_err());
        let o = parse_args(&args(&["--expectations", "exp"])).unwrap();
        assert_eq!(expectations_dir(&o), PathBuf::from("exp"));
        assert_eq!(
            expectations_dir(&Options::default()),
            manifest_dir().join("expectations")
        );
    }

    /// A suite with an `.any.js` file for both scopes, a window-only `.any.js`, a `.window.js`
    /// that runs, one that needs a document, and an `.html` file.
    fn suite() -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("fetch/x");
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("a.any.js"), "test(() => {});").unwrap();
        std::fs::write(
            d.join("b.any.js"),
            "// META: global=window\ntest(() => {});",
        )
        .unwrap();
        std::fs::write(d.join("c.window.js"), "promise_test(() => fetch('x'));").unwrap();
        std::fs::write(d.join("d.window.js"), "document.body.append('x');").unwrap();
        std::fs::write(d.join("e.html"), "").unwrap();
        dir
    }

    /// The planned runs (location, scope) and the files not run (path, reason).
    type Planned = (Vec<(String, Scope)>, Vec<(String, String)>);

    fn planned(choice: ScopeChoice) -> Planned {
        let dir = suite();
        let (jobs, not_run) = plan(
            dir.path(),
            &["fetch".to_owned()],
            1.0,
            Environment::Server,
            choice,
        )
        .unwrap();
        assert!(jobs.iter().all(|j| j.environment == Environment::Server));
        let mut jobs: Vec<_> = jobs.into_iter().map(|j| (j.location, j.scope)).collect();
        jobs.sort();
        let not_run = not_run.into_iter().map(|n| (n.path, n.reason)).collect();
        (jobs, not_run)
    }

    #[test]
    fn window_only_files_run_in_the_window_variant_by_default() {
        let at = |name: &str| format!("http://web-platform.test:8000/fetch/x/{name}");
        let (jobs, not_run) = planned(ScopeChoice::Auto);
        assert_eq!(
            jobs,
            [
                (at("a.any.worker.js"), Scope::Worker),
                (at("b.any.html"), Scope::Window),
                (at("c.window.html"), Scope::Window),
            ]
        );
        let reasons: Vec<(&str, &str)> = not_run
            .iter()
            .map(|(p, r)| (p.as_str(), r.as_str()))
            .collect();
        assert_eq!(
            reasons,
            [
                (
                    "fetch/x/d.window.js",
                    "window test that needs a real document (uses `document`); the window scope has no DOM"
                ),
                ("fetch/x/e.html", "document test (.html)"),
            ]
        );
    }

    #[test]
    fn each_scope_choice_runs_its_scopes_and_says_why_the_rest_does_not() {
        let (all, _) = planned(ScopeChoice::All);
        let scopes: Vec<Scope> = all.iter().map(|(_, s)| *s).collect();
        assert_eq!(
            scopes,
            [Scope::Window, Scope::Worker, Scope::Window, Scope::Window]
        );
        let (window, _) = planned(ScopeChoice::Window);
        assert_eq!(window.len(), 3);
        assert!(window.iter().all(|(_, s)| *s == Scope::Window));
        let (worker, not_run) = planned(ScopeChoice::Worker);
        assert_eq!(worker.len(), 1);
        assert!(not_run.contains(&(
            "fetch/x/b.any.js".to_owned(),
            "runs only in the window scope (--scope window or all)".to_owned()
        )));
        assert!(not_run.iter().any(|(p, _)| p == "fetch/x/c.window.js"));
    }
}
