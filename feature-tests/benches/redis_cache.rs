//! Cached `GET`s per second from a [`RedisCacheStore`] and from the in-memory cache, and what
//! a miss costs with the store, in one run: see `benches/README.md` ("`redis_cache`").
//!
//! ```text
//! cargo bench -p whatwg-fetch-feature-tests --bench redis_cache [-- --n 1000 --rounds 5]
//! ```
//!
//! It starts a `redis-server` of its own on a free port (Debian's package; `wpt/setup.sh`
//! installs it) and a hyper HTTP/1.1 server on 127.0.0.1 whose responses are fresh for an
//! hour, each its path as the body (a few bytes: the store's cost, not the body's, is what
//! is measured). Every request is sequential, one at a time, on a current-thread runtime
//! (the server on a thread of its own), so a figure is a request's latency as well as a
//! rate. Each round measures, one after the other and in the other order the next round:
//!
//! - **memory**: `n` URLs already in a client's in-memory cache (no store);
//! - **redis**: the same `n` URLs through a new client (its memory empty) on the store,
//!   which another client filled: each a read through to Redis, none to the network;
//! - **miss, no store** and **miss, redis**: `n` URLs never asked for, through a client with
//!   its in-memory cache only and through one on the store: the network, and the network
//!   plus the store's read that finds nothing and its write behind the fetch.
//!
//! Then, for comparison, `n` `GET`s of one stored key straight on the redis crate's
//! multiplexed connection: what a round trip to this Redis costs by itself.
//!
//! The server counts requests: a cached round that reaches it stops the benchmark.

#[path = "../support/bench_options.rs"]
mod bench_options;
#[path = "../../tests/net_support/mod.rs"]
mod net_support;
#[path = "../support/redis_server.rs"]
mod redis_server;

use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use bench_options::{Options, get, median};
use hyper::Response as HyperResponse;
use net_support::full;
use redis_server::RedisServer;
use whatwg_fetch::Client;
use whatwg_fetch::cache::RedisCacheStore;

fn options() -> Options {
    let options = bench_options::options();
    // More would not fit a client's memory cache, 1,024 responses by default (its least
    // recently used go first), and the memory round would go to the network.
    let most = 1024;
    assert!(
        options.n <= most,
        "--n is at most {most}, the entries a client's cache holds"
    );
    options
}

fn main() {
    let options = options();
    let Some(redis) = RedisServer::start() else {
        std::process::exit(1);
    };
    let requests = Arc::new(AtomicUsize::new(0));
    let counted = Arc::clone(&requests);
    let base = bench_options::serve_on_a_thread(move |path, _| {
        counted.fetch_add(1, Ordering::Relaxed);
        HyperResponse::builder()
            .header("cache-control", "max-age=3600")
            .body(full(path.to_owned()))
            .unwrap()
    });
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    runtime.block_on(run(&options, &redis, &base, &requests));
}

async fn run(options: &Options, redis: &RedisServer, base: &str, requests: &AtomicUsize) {
    let n = options.n;
    let store = Arc::new(RedisCacheStore::builder(redis.url()).build().await.unwrap());
    let on_store = || {
        Client::builder()
            .http_cache_store(store.clone())
            .build()
            .unwrap()
    };
    let memory = Client::builder().http_cache(true).build().unwrap();
    let cached: Vec<String> = (0..n).map(|i| format!("{base}/cached/{i}")).collect();
    // The store and the memory cache filled with the same responses.
    let filler = on_store();
    for url in &cached {
        get(&filler, url).await;
        get(&memory, url).await;
    }
    redis.wait_for_keys(n).await;
    println!(
        "redis_cache: {n} sequential GETs a round, {} rounds, redis-server {}",
        options.rounds,
        redis.url()
    );
    let mut figures: [Vec<f64>; 4] = Default::default();
    let names = ["memory", "redis", "miss, no store", "miss, redis"];
    for round in 0..options.rounds {
        let mut order = [0, 1, 2, 3];
        if round % 2 == 1 {
            order.reverse();
        }
        for which in order {
            let before = requests.load(Ordering::Relaxed);
            let started = Instant::now();
            match which {
                0 => get_all(&memory, &cached).await,
                1 => get_all(&on_store(), &cached).await,
                _ => {
                    let fresh: Vec<String> = (0..n)
                        .map(|i| format!("{base}/miss/{round}/{which}/{i}"))
                        .collect();
                    let client = match which {
                        2 => Client::builder().http_cache(true).build().unwrap(),
                        _ => on_store(),
                    };
                    get_all(&client, &fresh).await;
                }
            }
            let took = started.elapsed();
            let reached = requests.load(Ordering::Relaxed) - before;
            let expected = if which < 2 { 0 } else { n };
            assert_eq!(
                reached, expected,
                "{}: requests the server got",
                names[which]
            );
            figures[which].push(n as f64 / took.as_secs_f64());
        }
    }
    bench_options::print_table(&names, &figures);
    let miss_cost = 1e6 / median(&figures[3]) - 1e6 / median(&figures[2]);
    println!(
        "redis / memory (cached): {:.2}x the time a request; a miss on the store costs {miss_cost:.1} µs more than one without it",
        median(&figures[0]) / median(&figures[1])
    );
    // What one round trip to this Redis costs by itself, for comparison: `n` sequential
    // `GET`s of one stored key on a multiplexed connection of the redis crate's.
    let key = redis.keys().into_iter().next().unwrap();
    let mut connection = redis::Client::open(redis.url())
        .unwrap()
        .get_multiplexed_async_connection()
        .await
        .unwrap();
    let started = Instant::now();
    for _ in 0..n {
        let _: Vec<u8> = redis::cmd("GET")
            .arg(&key)
            .query_async(&mut connection)
            .await
            .unwrap();
    }
    let raw = started.elapsed().as_secs_f64() * 1e6 / n as f64;
    println!("a GET alone on the redis crate's multiplexed connection: {raw:.1} µs");
    let stats = store.stats();
    println!("store: {stats:?}");
    // The writes behind the misses, let finish before Redis stops.
    tokio::time::sleep(Duration::from_millis(200)).await;
}

async fn get_all(client: &Client, urls: &[String]) {
    for url in urls {
        get(client, url).await;
    }
}
