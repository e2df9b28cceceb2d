//! `fetch()` as a client of the cross-language HTTP benchmark in `../shared/bench`, following
//! its client contract:
//!
//! ```text
//! cargo build --release -p benches --example bench_client
//! target/release/examples/bench_client [--clients fetch,hyper,reqwest,fetch-pipelined] URL N CONCURRENCY [ROUNDS]
//! ```
//!
//! One probe request, one warm-up round, then ROUNDS (default 7) measured rounds of N `GET URL`
//! with CONCURRENCY in flight; every body is parsed as JSON and its `items` counted. Prints one
//! JSON line per client, `{"client": "whatwg-fetch", "rps_median": ..., "rounds": [...]}`,
//! and exits non-zero if a request fails or a count is wrong. By default only `fetch()` is
//! measured; `--clients` adds the Rust reference clients built with the same profile, and
//! `fetch-pipelined`, `fetch()` with HTTP/1.1 pipelining 10 deep (undici's benchmark's depth).

#[path = "support/clients.rs"]
mod clients;
#[allow(dead_code)]
#[path = "support/jobs.rs"]
mod jobs;

const USAGE: &str = "usage: bench_client [--clients fetch,hyper,reqwest,fetch-pipelined] URL N CONCURRENCY [ROUNDS]";

fn parse_args() -> Result<(Vec<&'static str>, String, usize, usize, usize), String> {
    let mut names = vec![clients::ALL[0]];
    let mut positional = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        if arg == "--clients" {
            let list = args.next().ok_or_else(|| USAGE.to_owned())?;
            names = clients::parse_list(&list)?;
        } else {
            positional.push(arg);
        }
    }
    let number = |index: usize, default: Option<usize>| match positional.get(index) {
        Some(text) => text
            .parse::<usize>()
            .ok()
            .filter(|n| *n > 0)
            .ok_or_else(|| format!("{text:?} is not a positive number\n{USAGE}")),
        None => default.ok_or_else(|| USAGE.to_owned()),
    };
    let url = positional
        .first()
        .cloned()
        .ok_or_else(|| USAGE.to_owned())?;
    Ok((
        names,
        url,
        number(1, None)?,
        number(2, None)?,
        number(3, Some(7))?,
    ))
}

#[tokio::main]
async fn main() {
    let (names, url, n, concurrency, rounds) = match parse_args() {
        Ok(parsed) => parsed,
        Err(message) => {
            eprintln!("{message}");
            std::process::exit(2);
        }
    };
    for name in names {
        let measured = match clients::Bench::new(name, &url, concurrency) {
            Ok(bench) => clients::run(&bench, &url, n, concurrency, rounds).await,
            Err(error) => Err(error),
        };
        match measured {
            Ok(rps) => println!("{}", clients::json_line(name, &rps, n, concurrency)),
            Err(error) => {
                eprintln!("{name}: {error}");
                std::process::exit(1);
            }
        }
    }
}
