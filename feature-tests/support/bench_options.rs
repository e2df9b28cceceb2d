//! What the Redis benchmarks share: their options (`--n`, `--rounds`), an HTTP server on a
//! thread of its own, a sequential `GET`, and the median of a round's figures. A
//! benchmark mounting this module mounts `tests/net_support` as `net_support` too.
// Each benchmark that mounts this module uses some of its helpers, never all.
#![allow(dead_code)]

use whatwg_fetch::{Client, RequestInit};

/// `--n` requests a round, `--rounds` rounds.
pub struct Options {
    pub n: usize,
    pub rounds: usize,
}

/// The options given on the command line, 1,000 requests and 5 rounds by default.
pub fn options() -> Options {
    let mut options = Options { n: 1000, rounds: 5 };
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        let value = |args: &mut dyn Iterator<Item = String>| {
            args.next()
                .and_then(|value| value.parse().ok())
                .unwrap_or_else(|| panic!("{arg} takes a number"))
        };
        match arg.as_str() {
            "--n" => options.n = value(&mut args),
            "--rounds" => options.rounds = value(&mut args),
            // `cargo bench` passes `--bench`.
            _ => {}
        }
    }
    options
}

/// A hyper HTTP/1.1 server on 127.0.0.1, on a thread and runtime of its own (so that its
/// work is not the client's), answering each request with `answer`, given the request's
/// path and its number (from 0): its URL without a path.
pub fn serve_on_a_thread<F>(answer: F) -> String
where
    F: Fn(&str, usize) -> hyper::Response<crate::net_support::ServerBody> + Send + Sync + 'static,
{
    let (server_tx, server_rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        runtime.block_on(async move {
            let answer = std::sync::Arc::new(answer);
            let count = std::sync::Arc::new(std::sync::atomic::AtomicUsize::new(0));
            let server = crate::net_support::hyper_server(move |request| {
                let n = count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let response = answer(request.uri().path(), n);
                async move { response }
            })
            .await;
            server_tx.send(server.url("")).unwrap();
            std::future::pending::<()>().await;
        });
    });
    server_rx.recv().unwrap()
}

/// A `GET` of `url`, its body read to the end.
pub async fn get(client: &Client, url: &str) {
    let mut response = client.fetch(url, RequestInit::default()).await.unwrap();
    assert!(response.ok(), "{url}: {}", response.status());
    response.bytes().await.unwrap();
}

/// Prints a table of `figures` (requests a second, one list of rounds a row, named by
/// `names`): the median of each row, in requests a second and microseconds a request, and
/// every round's.
pub fn print_table(names: &[&str], figures: &[Vec<f64>]) {
    println!(
        "{:<16} {:>12} {:>12}   rounds (req/s)",
        "", "req/s", "µs/req"
    );
    for (name, rounds) in names.iter().zip(figures) {
        let median = median(rounds);
        let rounds: Vec<String> = rounds.iter().map(|r| format!("{r:.0}")).collect();
        println!(
            "{name:<16} {median:>12.0} {:>12.1}   {}",
            1e6 / median,
            rounds.join(" ")
        );
    }
}

/// The median of `values`.
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[sorted.len() / 2]
}
