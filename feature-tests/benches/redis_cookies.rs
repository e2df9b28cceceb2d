//! What a cookie jar on Redis ([`RedisCookieStore`]) costs a request against the in-memory
//! jar, in one run: see `benches/README.md` ("`redis_cookies`").
//!
//! ```text
//! cargo bench -p whatwg-fetch-feature-tests --bench redis_cookies [-- --n 1000 --rounds 5]
//! ```
//!
//! It starts a `redis-server` of its own on a free port and a hyper HTTP/1.1 server on
//! 127.0.0.1 (on a thread of its own) answering `ok`, and with `/set` a `Set-Cookie:
//! c=<n>` (the same cookie, a new value each time). Every request is sequential on a
//! current-thread runtime, so a figure is a request's latency as well as a rate. Each
//! round measures, in one order and in the other the next round, `n` `GET`s:
//!
//! - **no jar**: cookies off, the network alone;
//! - **memory, send**: an in-memory jar holding five cookies for the host, sent with each;
//! - **redis, send**: a jar on Redis holding the same five;
//! - **memory, set** and **redis, set**: each response sets a cookie, which the fetch
//!   stores before it returns (and the five are sent).

#[path = "../support/bench_options.rs"]
mod bench_options;
#[path = "../../tests/net_support/mod.rs"]
mod net_support;
#[path = "../support/redis_server.rs"]
mod redis_server;

use std::sync::Arc;
use std::time::Instant;

use bench_options::{Options, get, median};
use hyper::Response as HyperResponse;
use net_support::full;
use redis_server::RedisServer;
use whatwg_fetch::Client;
use whatwg_fetch::cookie::{CookieProvider, CookieStore, RedisCookieStore};

fn main() {
    let options = bench_options::options();
    let Some(redis) = RedisServer::start() else {
        std::process::exit(1);
    };
    let base = bench_options::serve_on_a_thread(|path, n| {
        let mut response = HyperResponse::builder();
        if path == "/set" {
            response = response.header("set-cookie", format!("c={n}; Path=/"));
        }
        response.body(full("ok")).unwrap()
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run(&options, &redis, &base));
}

async fn run(options: &Options, redis: &RedisServer, base: &str) {
    let n = options.n;
    let url = url::Url::parse(base).unwrap();
    let five: Vec<Vec<u8>> = (0..5)
        .map(|i| format!("session{i}=0123456789abcdef; Path=/").into_bytes())
        .collect();
    let headers: Vec<&[u8]> = five.iter().map(Vec::as_slice).collect();
    let memory_jar = Arc::new(CookieStore::default());
    memory_jar.set_cookies_from_headers(&url, &headers).await;
    let redis_jar = Arc::new(
        RedisCookieStore::builder(redis.url())
            .build()
            .await
            .unwrap(),
    );
    redis_jar.set_cookies_from_headers(&url, &headers).await;
    // One transport (one connection) under the three clients, so that they differ in their
    // jars alone.
    let transport: Arc<dyn whatwg_fetch::net::Transport> =
        Arc::new(whatwg_fetch::net::HyperTransport::new().unwrap());
    let builder = || Client::builder().transport(transport.clone());
    let none = builder().cookie_store(false).build().unwrap();
    let memory = builder()
        .cookie_store_with(memory_jar.clone())
        .build()
        .unwrap();
    let on_redis = builder()
        .cookie_provider(redis_jar.clone())
        .build()
        .unwrap();
    println!(
        "redis_cookies: {n} sequential GETs a round, {} rounds, redis-server {}",
        options.rounds,
        redis.url()
    );
    let names = [
        "no jar",
        "memory, send",
        "redis, send",
        "memory, set",
        "redis, set",
    ];
    let mut figures: [Vec<f64>; 5] = Default::default();
    let page = format!("{base}/page");
    let set = format!("{base}/set");
    for round in 0..options.rounds {
        let mut order = [0, 1, 2, 3, 4];
        if round % 2 == 1 {
            order.reverse();
        }
        for which in order {
            let (client, url) = match which {
                0 => (&none, &page),
                1 => (&memory, &page),
                2 => (&on_redis, &page),
                3 => (&memory, &set),
                _ => (&on_redis, &set),
            };
            let started = Instant::now();
            for _ in 0..n {
                get(client, url).await;
            }
            figures[which].push(n as f64 / started.elapsed().as_secs_f64());
        }
    }
    bench_options::print_table(&names, &figures);
    let cost = |a: usize, b: usize| 1e6 / median(&figures[b]) - 1e6 / median(&figures[a]);
    println!(
        "sending 5 cookies costs {:.1} µs from memory, {:.1} µs from Redis; storing one, {:.1} µs more in memory, {:.1} µs more on Redis",
        cost(0, 1),
        cost(0, 2),
        cost(1, 3),
        cost(2, 4)
    );
    // The jars alone, without HTTP: `n` reads of the five cookies' header and `n` stores
    // of one `Set-Cookie`, in each jar, medians of the rounds.
    let set_one = [b"c=1; Path=/".as_slice()];
    let mut alone: [Vec<f64>; 4] = Default::default();
    for _ in 0..options.rounds {
        for (which, figures) in alone.iter_mut().enumerate() {
            let started = Instant::now();
            for _ in 0..n {
                match which {
                    0 => drop(CookieProvider::cookie_header_for(&*memory_jar, &url).await),
                    1 => drop(redis_jar.cookie_header_for(&url).await),
                    2 => memory_jar.set_cookies_from_headers(&url, &set_one).await,
                    _ => redis_jar.set_cookies_from_headers(&url, &set_one).await,
                }
            }
            figures.push(n as f64 / started.elapsed().as_secs_f64());
        }
    }
    println!("the jars alone (no HTTP):");
    bench_options::print_table(
        &[
            "memory, read",
            "redis, read",
            "memory, store",
            "redis, store",
        ],
        &alone,
    );
    println!(
        "jar on Redis: {} cookies, {:?}",
        redis_jar.len().await.unwrap(),
        redis_jar.stats()
    );
}
