//! `cache-tests`: runs the HTTP caching tests of cache-tests.fyi (`http-tests/cache-tests`)
//! against `whatwg-fetch`'s HTTP cache, in the suite's browser mode, and compares the results
//! with the browsers' published ones.
//!
//! See wpt/README.md, "HTTP caching tests (cache-tests.fyi)". The suite's own Node server runs
//! on 127.0.0.1; its test definitions and client engine run in QuickJS with
//! `whatwg-fetch-quickjs`'s `fetch`, backed by a browser-like `Client` (origin
//! `http://localhost:PORT/`) with the HTTP cache on.

#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod compare;
mod server;
mod suite;

use std::collections::BTreeMap;
use std::net::{Ipv4Addr, SocketAddr};
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use compare::{Comparison, Implementation, Results, TestInfo};

const USAGE: &str = "\
usage: cache-tests [--suite DIR] [--out DIR] [--compare-only] [--id TEST_ID]…
  --suite DIR      the suite (default: $CACHE_TESTS_DIR, else ~/.cache/whatwg-fetch/cache-tests;
                   set it up with `bash wpt/cache-tests-setup.sh`)
  --out DIR        where whatwg-fetch.json and comparison.md go (default: target/cache-tests)
  --compare-only   compare the results already in DIR, without running the tests
  --id TEST_ID     run only this test (repeatable), logging its requests and responses";

/// The browsers whose published results (`results/*.json`) are compared.
const BROWSERS: [(&str, &str); 3] = [
    ("Chrome", "chrome.json"),
    ("Firefox", "firefox.json"),
    ("Safari", "safari.json"),
];

struct Options {
    suite: PathBuf,
    out: PathBuf,
    compare_only: bool,
    only: Vec<String>,
}

fn default_suite() -> PathBuf {
    if let Some(dir) = std::env::var_os("CACHE_TESTS_DIR") {
        return PathBuf::from(dir);
    }
    let home = std::env::var_os("HOME")
        .map(PathBuf::from)
        .unwrap_or_default();
    home.join(".cache/whatwg-fetch/cache-tests")
}

fn parse_options(args: impl IntoIterator<Item = String>) -> Result<Options, String> {
    let mut options = Options {
        suite: default_suite(),
        out: Path::new(env!("CARGO_MANIFEST_DIR")).join("../target/cache-tests"),
        compare_only: false,
        only: Vec::new(),
    };
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = || args.next().ok_or(format!("{arg} needs a value\n{USAGE}"));
        match arg.as_str() {
            "--suite" => options.suite = PathBuf::from(value()?),
            "--out" => options.out = PathBuf::from(value()?),
            "--id" => options.only.push(value()?),
            "--compare-only" => options.compare_only = true,
            "-h" | "--help" => return Err(USAGE.to_owned()),
            _ => return Err(format!("unknown argument {arg}\n{USAGE}")),
        }
    }
    Ok(options)
}

fn read_results(path: &Path) -> Result<Results, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_str(&text).map_err(|e| format!("{}: {e}", path.display()))
}

fn write(path: &Path, contents: &str) -> Result<(), String> {
    std::fs::write(path, contents).map_err(|e| format!("writing {}: {e}", path.display()))
}

async fn run_suite(options: &Options) -> Result<(Vec<TestInfo>, Results), String> {
    let results_path = options.out.join("whatwg-fetch.json");
    if options.compare_only {
        let listed = suite::run(
            &suite::Plan {
                suite: &options.suite,
                base: None,
                only: &[],
            },
            whatwg_fetch::Client::builder()
                .build()
                .map_err(|e| format!("client: {e}"))?,
        )
        .await?;
        return Ok((listed.tests, read_results(&results_path)?));
    }
    let server = server::start(&options.suite).await?;
    let base = format!("http://localhost:{}", server.port);
    let origin = url::Url::parse(&format!("{base}/")).map_err(|e| format!("{base}: {e}"))?;
    // A page at the server's origin, as the browser mode runs: the suite's server names
    // itself `localhost` (in `Location` and `Content-Location`), which goes to 127.0.0.1.
    let client = whatwg_fetch::Client::builder()
        .origin(origin)
        .http_cache(true)
        .resolve(
            "localhost",
            SocketAddr::from((Ipv4Addr::LOCALHOST, server.port)),
        )
        .build()
        .map_err(|e| format!("client: {e}"))?;
    eprintln!(
        "cache-tests: running {} against {base}",
        options.suite.display()
    );
    let run = suite::run(
        &suite::Plan {
            suite: &options.suite,
            base: Some(&base),
            only: &options.only,
        },
        client,
    )
    .await?;
    drop(server);
    let results = run.results.ok_or("the suite gave no results")?;
    std::fs::create_dir_all(&options.out)
        .map_err(|e| format!("creating {}: {e}", options.out.display()))?;
    if options.only.is_empty() {
        let json = serde_json::to_string_pretty(&results).map_err(|e| e.to_string())?;
        write(&results_path, &(json + "\n"))?;
    }
    Ok((run.tests, results))
}

async fn main_async(options: Options) -> Result<(), String> {
    let (order, results) = run_suite(&options).await?;
    if !options.only.is_empty() {
        for (id, outcome) in &results {
            println!(
                "{id}: {}",
                serde_json::to_string(outcome).unwrap_or_default()
            );
        }
        return Ok(());
    }
    let mut implementations = vec![Implementation {
        name: "whatwg-fetch".into(),
        results,
    }];
    for (name, file) in BROWSERS {
        implementations.push(Implementation {
            name: name.into(),
            results: read_results(&options.suite.join("results").join(file))?,
        });
    }
    let tests: BTreeMap<String, TestInfo> = order
        .iter()
        .map(|test| (test.id.clone(), test.clone()))
        .collect();
    let comparison = Comparison {
        tests: &tests,
        order: &order,
        implementations: &implementations,
    };
    let report = options.out.join("comparison.md");
    write(&report, &comparison.markdown())?;
    println!("Tests the browser mode runs, passed per implementation:\n");
    print!("{}", comparison.counts_table());
    let differing = comparison.differing_from_all();
    println!("\nDiffering from all three browsers ({}):", differing.len());
    for test in differing {
        let ours = implementations
            .first()
            .and_then(|i| i.results.get(&test.id))
            .map_or("not run", |o| if o.passed() { "pass" } else { "fail" });
        println!(
            "  {} ({:?}, ours: {ours}): {}",
            test.id, test.kind, test.name
        );
    }
    println!(
        "\nresults: {}\ncomparison: {}",
        options.out.join("whatwg-fetch.json").display(),
        report.display()
    );
    Ok(())
}

fn main() -> ExitCode {
    let options = match parse_options(std::env::args().skip(1)) {
        Ok(options) => options,
        Err(message) => {
            eprintln!("{message}");
            return ExitCode::from(2);
        }
    };
    let tokio = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(tokio) => tokio,
        Err(e) => {
            eprintln!("cache-tests: tokio runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    match tokio.block_on(main_async(options)) {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("cache-tests: {message}");
            ExitCode::FAILURE
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_name_the_suite_the_output_and_the_tests_to_run() {
        let args = [
            "--suite",
            "/s",
            "--out",
            "/o",
            "--id",
            "a",
            "--id",
            "b",
            "--compare-only",
        ];
        let options = parse_options(args.map(String::from)).unwrap();
        assert_eq!(options.suite, Path::new("/s"));
        assert_eq!(options.out, Path::new("/o"));
        assert_eq!(options.only, ["a", "b"]);
        assert!(options.compare_only);
        assert!(parse_options(["--suite".to_owned()]).is_err());
        assert!(parse_options(["--bogus".to_owned()]).is_err());
    }
}
