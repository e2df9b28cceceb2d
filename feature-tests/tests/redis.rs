//! `cache::RedisCacheStore` (the `redis` feature) against a real `redis-server`, started by
//! each test on a free port of 127.0.0.1 and stopped after it, and an in-process HTTP server
//! that counts the requests it gets. Without `redis-server` (Debian's package of that name;
//! `wpt/setup.sh` installs it), each test says so loudly and passes.

#[path = "../../tests/net_support/mod.rs"]
mod net_support;
#[path = "../support/redis_server.rs"]
mod redis_server;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use net_support::{cache_server, full, hyper_server, large_body};
use redis_server::{Gate, RedisServer, counting_proxy, delaying_proxy, gated_proxy};
use whatwg_fetch::cache::{HttpCacheStore, RedisCacheStats, RedisCacheStore};
use whatwg_fetch::{Client, RequestCache, RequestInit};

fn client(store: &Arc<RedisCacheStore>) -> Client {
    Client::builder()
        .http_cache_store(store.clone())
        .build()
        .unwrap()
}

/// The body of a `GET` of `url`, read to the end (which is when it is stored).
async fn get(client: &Client, url: &str) -> String {
    let mut response = client.fetch(url, RequestInit::default()).await.unwrap();
    assert!(response.ok(), "{url}: {}", response.status());
    response.text().await.unwrap()
}

async fn store(redis: &RedisServer) -> Arc<RedisCacheStore> {
    Arc::new(RedisCacheStore::builder(redis.url()).build().await.unwrap())
}

async fn bounded<F: std::future::Future>(test: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(60), test)
        .await
        .expect("test timed out")
}

#[test]
fn a_response_cached_by_one_client_is_served_to_another_in_another_runtime() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let server_runtime = tokio::runtime::Runtime::new().unwrap();
    let (server, log) = server_runtime.block_on(cache_server());
    let url = server.url("/page");
    let redis_url = redis.url();
    // Each client on a thread and runtime of its own, with a store of its own: as two
    // processes would be.
    let fetch_in_a_runtime_of_its_own = |wait_for_write: bool| {
        let (url, redis_url) = (url.clone(), redis_url.clone());
        let redis = &redis;
        std::thread::scope(|scope| {
            scope
                .spawn(move || {
                    let runtime = tokio::runtime::Builder::new_current_thread()
                        .enable_all()
                        .build()
                        .unwrap();
                    runtime.block_on(async {
                        let store = RedisCacheStore::builder(redis_url).build().await.unwrap();
                        let store = Arc::new(store);
                        let text = get(&client(&store), &url).await;
                        if wait_for_write {
                            redis.wait_for_keys(1).await;
                        }
                        (text, store.stats())
                    })
                })
                .join()
                .unwrap()
        })
    };
    let (text, first) = fetch_in_a_runtime_of_its_own(true);
    assert_eq!(text, "/page");
    assert_eq!((first.hits, first.misses, first.errors), (0, 1, 0));
    let (text, second) = fetch_in_a_runtime_of_its_own(false);
    assert_eq!(text, "/page");
    assert_eq!((second.hits, second.misses, second.errors), (1, 0, 0));
    assert_eq!(
        log.count("/page"),
        1,
        "the second client was served from Redis"
    );
    drop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_redis_stopped_fetches_go_to_the_network_and_errors_are_counted() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let (server, log) = cache_server().await;
        let store = store(&redis).await;
        get(&client(&store), &server.url("/a")).await;
        redis.wait_for_keys(1).await;
        redis.stop();
        let before = store.stats();
        for path in ["/a", "/b", "/c"] {
            // A new client each time: its cache holds nothing, so it asks Redis first.
            let started = Instant::now();
            assert_eq!(get(&client(&store), &server.url(path)).await, path);
            let took = started.elapsed();
            assert!(took < Duration::from_secs(2), "{path} took {took:?}");
        }
        assert_eq!(log.count("/a"), 2);
        assert_eq!((log.count("/b"), log.count("/c")), (1, 1));
        let after = store.stats();
        assert!(after.errors > before.errors, "{before:?} then {after:?}");
        assert_eq!(after.hits, before.hits);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_redis_costs_a_fetch_no_more_than_the_timeout() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let (server, log) = cache_server().await;
        let slow = Arc::new(AtomicBool::new(false));
        let delay = Duration::from_secs(2);
        let proxy = delaying_proxy(redis.addr(), slow.clone(), delay).await;
        let timeout = Duration::from_millis(50);
        let store = RedisCacheStore::builder(format!("redis://{proxy}/0"))
            .timeout(timeout)
            .build()
            .await
            .unwrap();
        let store = Arc::new(store);
        // The network's time for the same kind of request, without Redis.
        let uncached = Client::builder().http_cache(false).build().unwrap();
        let started = Instant::now();
        get(&uncached, &server.url("/warm")).await;
        let network = started.elapsed();

        slow.store(true, Ordering::SeqCst);
        for path in ["/x", "/y"] {
            let started = Instant::now();
            assert_eq!(get(&client(&store), &server.url(path)).await, path);
            let took = started.elapsed();
            eprintln!(
                "slow Redis: {path} took {took:?} (timeout {timeout:?}, network {network:?})"
            );
            // Cut short by the store's timeout, far from Redis's delay: a bound with room
            // for a loaded machine, where the time itself is for the benchmark to say.
            assert!(
                took < delay / 2,
                "{path} took {took:?} with Redis {delay:?} slow"
            );
            assert_eq!(log.count(path), 1);
        }
        assert!(store.stats().errors >= 2, "{:?}", store.stats());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_redis_leaves_no_more_bytes_of_writes_waiting_than_the_budget() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let slow = Arc::new(AtomicBool::new(false));
        let proxy = delaying_proxy(redis.addr(), slow.clone(), Duration::from_secs(2)).await;
        const BUDGET: usize = 8 << 20;
        let store = RedisCacheStore::builder(format!("redis://{proxy}/0"))
            .write_queue_bytes(BUDGET)
            .build()
            .await
            .unwrap();
        // Redis slow: the first write waits for it, and the others queue behind it (far
        // fewer than the 1,024 writes the queue takes).
        slow.store(true, Ordering::SeqCst);
        const RECORDS: usize = 32;
        let record = vec![b'x'; 1 << 20];
        for index in 0..RECORDS {
            store.put(&format!("record {index}"), &record).unwrap();
        }
        let stats = store.stats();
        eprintln!("{RECORDS} records of 1 MiB with a budget of 8 MiB: {stats:?}");
        // Each record is a little over 1 MiB with its seal and key: at most 8 wait.
        assert!(
            stats.dropped_writes >= (RECORDS - BUDGET / record.len()) as u64,
            "{stats:?}"
        );

        // Redis fast again: once the writes waiting are done, their bytes are free.
        slow.store(false, Ordering::SeqCst);
        let deadline = Instant::now() + Duration::from_secs(20);
        loop {
            let before = store.stats().dropped_writes;
            store.put("after", &record).unwrap();
            if store.stats().dropped_writes == before {
                break;
            }
            assert!(Instant::now() < deadline, "{:?}", store.stats());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        let other = self::store(&redis).await;
        let deadline = Instant::now() + Duration::from_secs(20);
        while other.get("after").await.is_none() {
            assert!(Instant::now() < deadline, "{:?}", store.stats());
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupt_or_truncated_value_is_a_miss_and_is_replaced() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let (server, log) = cache_server().await;
        let url = server.url("/page");
        let store = store(&redis).await;
        get(&client(&store), &url).await;
        let keys = redis.wait_for_keys(1).await;
        let key = &keys[0];
        let value: Vec<u8> = redis::cmd("GET")
            .arg(key)
            .query(&mut redis.connection())
            .unwrap();
        let mut flipped = value.clone();
        if let Some(byte) = flipped.last_mut() {
            *byte ^= 0x55;
        }
        let truncated = value[..value.len() / 2].to_vec();
        for (what, bad) in [("flipped", flipped), ("truncated", truncated)] {
            let () = redis::cmd("SET")
                .arg(key)
                .arg(&bad)
                .query(&mut redis.connection())
                .unwrap();
            let before = (log.count("/page"), store.stats());
            assert_eq!(get(&client(&store), &url).await, "/page");
            let after = store.stats();
            assert_eq!(log.count("/page"), before.0 + 1, "{what}: from the network");
            assert_eq!(after.corrupt, before.1.corrupt + 1, "{what}");
            // The bad value goes, and the response just fetched takes its place.
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                let now: Option<Vec<u8>> = redis::cmd("GET")
                    .arg(key)
                    .query(&mut redis.connection())
                    .unwrap();
                if now.as_ref().is_some_and(|now| *now != bad) {
                    break;
                }
                assert!(Instant::now() < deadline, "{what}: not replaced");
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
        }
        // And it is whole again: served from Redis.
        let count = log.count("/page");
        get(&client(&store), &url).await;
        assert_eq!(log.count("/page"), count);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_value_in_redis_larger_than_the_limit_is_not_read() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let (server, log) = cache_server().await;
        let url = server.url("/page");
        let store = RedisCacheStore::builder(redis.url())
            .max_record_bytes(500)
            .build()
            .await
            .unwrap();
        let store = Arc::new(store);
        get(&client(&store), &url).await;
        let keys = redis.wait_for_keys(1).await;
        // 1 MiB under the key, written behind the store's back: the store reads no more
        // of it than its largest value, and goes to the network.
        let () = redis::cmd("SET")
            .arg(&keys[0])
            .arg(vec![b'x'; 1 << 20])
            .query(&mut redis.connection())
            .unwrap();
        let before = store.stats();
        assert_eq!(get(&client(&store), &url).await, "/page");
        assert_eq!(log.count("/page"), 2, "from the network");
        let after = store.stats();
        assert_eq!(after.oversized, before.oversized + 1);
        assert_eq!(after.corrupt, before.corrupt);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_record_over_the_store_limit_is_not_stored() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let (server, log) = cache_server().await;
        let store = RedisCacheStore::builder(redis.url())
            .max_record_bytes(500)
            .build()
            .await
            .unwrap();
        let store = Arc::new(store);
        get(&client(&store), &server.url("/big")).await;
        // A small one after it, written behind it in order: once it is there, the big
        // one would be too.
        get(&client(&store), &server.url("/small")).await;
        redis.wait_for_keys(1).await;
        assert_eq!(store.stats().oversized, 1);
        get(&client(&store), &server.url("/big")).await;
        assert_eq!(log.count("/big"), 2, "not served from Redis");
        get(&client(&store), &server.url("/small")).await;
        assert_eq!(log.count("/small"), 1, "served from Redis");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_max_age_past_what_redis_can_expire_is_written_and_read_by_another_store() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        // 10^17 seconds: in milliseconds, past any expiry Redis takes.
        let requests = Arc::new(AtomicUsize::new(0));
        let counted = requests.clone();
        let server = hyper_server(move |_| {
            let count = counted.fetch_add(1, Ordering::SeqCst) + 1;
            async move {
                hyper::Response::builder()
                    .header("cache-control", "max-age=99999999999999999")
                    .body(full(format!("response {count}")))
                    .unwrap()
            }
        })
        .await;
        let url = server.url("/forever");
        let store = store(&redis).await;
        assert_eq!(get(&client(&store), &url).await, "response 1");
        let keys = redis.wait_for_keys(1).await;
        // Kept as long as a delta-seconds counts for: 2^31 seconds.
        let ttl: i64 = redis::cmd("PTTL")
            .arg(&keys[0])
            .query(&mut redis.connection())
            .unwrap();
        assert!(0 < ttl && ttl <= (1 << 31) * 1000, "a TTL of {ttl} ms");
        assert_eq!(store.stats().errors, 0, "{:?}", store.stats());

        // Another store, another client: served from Redis.
        let other = self::store(&redis).await;
        assert_eq!(get(&client(&other), &url).await, "response 1");
        assert_eq!(requests.load(Ordering::SeqCst), 1);
        assert_eq!(other.stats().hits, 1, "{:?}", other.stats());
    })
    .await;
}

/// The body of a `GET` of `url` with `cache`, as bytes.
async fn get_bytes(client: &Client, url: &str, cache: RequestCache) -> Vec<u8> {
    let init = RequestInit {
        cache: Some(cache),
        ..RequestInit::default()
    };
    let mut response = client.fetch(url, init).await.unwrap();
    assert!(response.ok(), "{url}: {}", response.status());
    response.bytes().await.unwrap().to_vec()
}

/// Waits (at most 10 s) until Redis holds more than `count` keys.
async fn wait_for_more_keys_than(redis: &RedisServer, count: usize) -> Vec<String> {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        let keys = redis.keys();
        if keys.len() > count || Instant::now() > deadline {
            return keys;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_large_record_is_written_in_chunks_read_whole_and_replaced_at_once() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let (server, log) = cache_server().await;
        let url = server.url("/large");
        let chunked = || {
            RedisCacheStore::builder(redis.url())
                .chunk_bytes(64 * 1024)
                .build()
        };
        let store = Arc::new(chunked().await.unwrap());
        let body = get_bytes(&client(&store), &url, RequestCache::Default).await;
        assert_eq!(body, large_body());
        // The head and 300 KiB (and the head of the record) in 64 KiB chunks: 5 chunks.
        let keys = wait_for_more_keys_than(&redis, 5).await;
        assert_eq!(keys.len(), 6, "{keys:?}");
        let head = keys.iter().min_by_key(|key| key.len()).unwrap().clone();
        assert!(
            keys.iter()
                .all(|key| *key == head || key.starts_with(&format!("{head}:")))
        );

        // Another store, another client: served whole from the chunks.
        let other = Arc::new(chunked().await.unwrap());
        let body = get_bytes(&client(&other), &url, RequestCache::Default).await;
        assert_eq!(body, large_body());
        assert_eq!(log.count("/large"), 1);
        assert_eq!(other.stats().hits, 1);

        // Stored again (a reload): new chunks under a new manifest, the old ones deleted.
        get_bytes(&client(&store), &url, RequestCache::Reload).await;
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut after = redis.keys();
        while (after.len() != 6 || after.iter().any(|key| keys.contains(key) && *key != head))
            && Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
            after = redis.keys();
        }
        assert_eq!(after.len(), 6, "{after:?}");
        assert!(
            after.iter().all(|key| *key == head || !keys.contains(key)),
            "old chunks left: {keys:?} then {after:?}"
        );

        // A chunk gone (evicted, say): a miss, and the network.
        let chunk = after.iter().find(|key| **key != head).unwrap();
        let () = redis::cmd("DEL")
            .arg(chunk)
            .query(&mut redis.connection())
            .unwrap();
        let body = get_bytes(&client(&other), &url, RequestCache::Default).await;
        assert_eq!(body, large_body());
        assert_eq!(log.count("/large"), 3);
        assert_eq!(other.stats().corrupt, 0, "a missing chunk is no corruption");

        // A chunk flipped: a miss, counted as corrupt, the record and its chunks deleted
        // (then stored anew from the network's answer).
        // The record stored anew is whole once its chunks are all there and the old
        // record's are gone: six keys counted while it is written may mix the two.
        let deadline = Instant::now() + Duration::from_secs(10);
        let mut keys = redis.keys();
        while (keys.len() != 6 || keys.iter().any(|key| after.contains(key) && *key != head))
            && Instant::now() < deadline
        {
            tokio::time::sleep(Duration::from_millis(10)).await;
            keys = redis.keys();
        }
        let chunk = keys.iter().find(|key| **key != head).unwrap();
        let () = redis::cmd("SETRANGE")
            .arg(chunk)
            .arg(100)
            .arg("!")
            .query::<i64>(&mut redis.connection())
            .map(drop)
            .unwrap();
        let fresh = Arc::new(chunked().await.unwrap());
        let body = get_bytes(&client(&fresh), &url, RequestCache::Default).await;
        assert_eq!(body, large_body());
        assert_eq!(log.count("/large"), 4);
        assert_eq!(fresh.stats().corrupt, 1);
        let deadline = Instant::now() + Duration::from_secs(10);
        while redis.keys().contains(chunk) && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert!(
            !redis.keys().contains(chunk),
            "the corrupt record's chunks go"
        );
    })
    .await;
}

/// Which of `keys` holds the record of `path` (a value holds its cache key, with the URL).
fn key_holding(redis: &RedisServer, keys: &[String], path: &str) -> String {
    keys.iter()
        .find(|key| {
            let value: Vec<u8> = redis::cmd("GET")
                .arg(key)
                .query(&mut redis.connection())
                .unwrap();
            value.windows(path.len() + 1).any(|window| {
                window.starts_with(path.as_bytes()) && !window[path.len()].is_ascii_alphanumeric()
            })
        })
        .unwrap_or_else(|| panic!("no record of {path} in {keys:?}"))
        .clone()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_value_planted_under_a_record_is_not_read_back_when_the_record_is_written_again() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let (server, log) = cache_server().await;
        let (proxy, from_redis) = counting_proxy(redis.addr()).await;
        let through_proxy = |max_record_bytes| {
            RedisCacheStore::builder(format!("redis://{proxy}/0"))
                .max_record_bytes(max_record_bytes)
                .build()
        };
        // Records of up to 64 KiB; and a store that takes 500 bytes at most, to which
        // `/big` (1,000 bytes) is a record to remove.
        let store = Arc::new(through_proxy(64 << 10).await.unwrap());
        let small = Arc::new(through_proxy(500).await.unwrap());
        get(&client(&store), &server.url("/page")).await;
        get(&client(&store), &server.url("/big")).await;
        let keys = redis.wait_for_keys(2).await;
        let page = key_holding(&redis, &keys, "/page");
        let big = key_holding(&redis, &keys, "/big");
        // 32 MiB under each record's key, behind the stores' backs (`SETRANGE` pads the
        // value with zeros: the test itself sends a few bytes).
        const PLANTED: usize = 32 << 20;
        for key in [&page, &big] {
            let _: i64 = redis::cmd("SETRANGE")
                .arg(key)
                .arg(PLANTED - 1)
                .arg("x")
                .query(&mut redis.connection())
                .unwrap();
        }
        from_redis.store(0, Ordering::SeqCst);
        // Each a miss (larger than any record the store writes), then from the network;
        // then `/page` is written again over the planted value and `/big`, over the small
        // store's limit, is removed.
        get(&client(&store), &server.url("/page")).await;
        get(&client(&small), &server.url("/big")).await;
        assert_eq!((log.count("/page"), log.count("/big")), (2, 2));
        // A write after each, in the same store's queue: once both are there, the writes
        // before them are done, their replies read.
        get(&client(&store), &server.url("/after-page")).await;
        get(&client(&small), &server.url("/after-big")).await;
        redis.wait_for_keys(3).await;
        let mut connection = redis.connection();
        let page_len: usize = redis::cmd("STRLEN")
            .arg(&page)
            .query(&mut connection)
            .unwrap();
        assert!(0 < page_len && page_len < 1 << 20, "{page_len} bytes at /page");
        let big_exists: bool = redis::cmd("EXISTS")
            .arg(&big)
            .query(&mut connection)
            .unwrap();
        assert!(!big_exists, "/big's planted value is still there");
        let read = from_redis.load(Ordering::SeqCst);
        eprintln!(
            "Redis sent the stores {read} bytes for two reads and two writes over {PLANTED} planted bytes each"
        );
        // The reads take no more than the largest record (64 KiB) and a little; the
        // writes, nothing of the values they replace but a manifest's length.
        assert!(read < 1 << 20, "Redis sent the stores {read} bytes");
        // And the record written over the planted value is whole: another client reads it.
        get(&client(&store), &server.url("/page")).await;
        assert_eq!(log.count("/page"), 2);
        assert_eq!(store.stats().errors, 0, "{:?}", store.stats());
    })
    .await;
}

/// Waits (at most 10 s) until `ready` holds.
async fn until(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !ready() {
        assert!(Instant::now() < deadline, "waited 10 s for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_write_redis_holds_past_the_write_timeout_is_given_up_and_never_read_half_written() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let (server, log) = cache_server().await;
        let gate = Gate::new();
        let proxy = gated_proxy(redis.addr(), gate.clone(), |_| {}).await;
        let writer = RedisCacheStore::builder(format!("redis://{proxy}/0"))
            .chunk_bytes(64 << 10)
            .write_timeout(Duration::from_millis(200))
            .build()
            .await
            .unwrap();
        let writer = Arc::new(writer);
        let reader = store(&redis).await;
        // A record of five chunks, whole in Redis.
        let old = vec![b'o'; 300 << 10];
        writer.put("record", &old).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        while reader.get("record").await.as_deref() != Some(&old[..]) {
            assert!(Instant::now() < deadline, "{:?}", writer.stats());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(writer.stats().errors, 0);

        // Redis takes the first chunk of the next record and half of the second, and
        // then nothing more until the gate opens.
        gate.close_after(100 << 10);
        let new = vec![b'n'; 300 << 10];
        writer.put("record", &new).unwrap();
        until("the write to be held", || gate.held() > 0).await;
        // Given up at the write timeout, with Redis still holding it: counted as an error.
        until("the write to be given up", || writer.stats().errors >= 1).await;
        assert!(gate.held() > 0);
        // Its half-written chunks are not read: the old record is, whole.
        assert_eq!(reader.get("record").await.as_deref(), Some(&old[..]));
        assert_eq!(reader.stats().corrupt, 0);

        // A fetch through the held store is not held by the write waiting: its read is a
        // miss at the read timeout, and it goes to the network while the gate still holds.
        assert_eq!(get(&client(&writer), &server.url("/page")).await, "/page");
        assert_eq!(log.count("/page"), 1);
        assert!(
            gate.held() > 0,
            "the write still held when the fetch is done"
        );

        // The gate opens: what was held reaches Redis (the rest of the second chunk, and
        // the deletion of the chunks written) and is not read either.
        gate.open();
        until("the held bytes to pass", || gate.held() == 0).await;
        let newer = vec![b'w'; 300 << 10];
        writer.put("record", &newer).unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let read = reader.get("record").await;
            assert!(
                read.as_deref() != Some(&new[..]),
                "the record given up is read"
            );
            if read.as_deref() == Some(&newer[..]) {
                break;
            }
            // Else the old record, or a miss: a read that took the old head as the new one
            // replaced it finds the old chunks deleted (or it passed the read timeout).
            assert!(
                read.is_none() || read.as_deref() == Some(&old[..]),
                "neither the old record nor the newer one"
            );
            assert!(Instant::now() < deadline, "{:?}", writer.stats());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // No chunk of the record given up is left: the head and five chunks of the last
        // record, and the page's record.
        let deadline = Instant::now() + Duration::from_secs(10);
        while redis.keys().len() != 7 {
            assert!(Instant::now() < deadline, "keys: {:?}", redis.keys());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        eprintln!("writes held past the write timeout: {:?}", writer.stats());
    })
    .await;
}

/// The type of what Redis holds at `key`.
fn key_type(redis: &RedisServer, key: &str) -> String {
    redis::cmd("TYPE")
        .arg(key)
        .query(&mut redis.connection())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_key_of_another_type_is_a_miss_counted_as_an_error_and_a_write_replaces_it() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let store = RedisCacheStore::builder(redis.url())
            .chunk_bytes(4096)
            .build()
            .await
            .unwrap();
        store.put("record", b"a record").unwrap();
        let key = redis.wait_for_keys(1).await.remove(0);
        let record = b"the record written over it".to_vec();
        // Whoever else writes to the Redis leaves a list, then a hash, under the key:
        // Redis answers WRONGTYPE to the read, which is a miss counted as an error. A
        // write (which reads back the head it replaces with a `pcall`) replaces it.
        for (kind, plant) in [("list", "RPUSH"), ("hash", "HSET")] {
            let mut connection = redis.connection();
            let () = redis::cmd("DEL")
                .arg(&key)
                .query::<i64>(&mut connection)
                .map(drop)
                .unwrap();
            let mut command = redis::cmd(plant);
            command.arg(&key);
            if plant == "HSET" {
                command.arg("field");
            }
            let _: i64 = command.arg("value").query(&mut connection).unwrap();
            let before = store.stats();
            assert_eq!(store.get("record").await, None, "{kind}");
            let after = store.stats();
            assert_eq!(after.errors, before.errors + 1, "{kind}: {after:?}");
            assert_eq!(
                (after.hits, after.corrupt),
                (before.hits, before.corrupt),
                "{kind}"
            );
            store.put("record", &record).unwrap();
            until("the write", || key_type(&redis, &key) == "string").await;
            assert_eq!(store.get("record").await.as_deref(), Some(&record[..]));
            assert_eq!(store.stats().errors, after.errors, "{kind}: the write");
        }

        // A chunk of a chunked record made a list: a miss counted as an error; a write
        // replaces the record.
        let chunked = vec![b'c'; 10_000];
        store.put("record", &chunked).unwrap();
        let keys = wait_for_more_keys_than(&redis, 3).await;
        assert_eq!(keys.len(), 4, "{keys:?}");
        let chunk = keys.iter().find(|name| **name != key).unwrap();
        let mut connection = redis.connection();
        let () = redis::cmd("DEL")
            .arg(chunk)
            .query::<i64>(&mut connection)
            .map(drop)
            .unwrap();
        let _: i64 = redis::cmd("RPUSH")
            .arg(chunk)
            .arg("x")
            .query(&mut connection)
            .unwrap();
        let before = store.stats();
        assert_eq!(store.get("record").await, None);
        let after = store.stats();
        assert_eq!(after.errors, before.errors + 1, "{after:?}");
        assert_eq!(after.hits, before.hits);
        // The write deletes the chunks of the record it replaces, the list among them.
        store.put("record", &record).unwrap();
        until("the chunks to go", || redis.keys() == [key.clone()]).await;
        assert_eq!(store.get("record").await.as_deref(), Some(&record[..]));
        assert_eq!(store.stats().errors, after.errors, "{:?}", store.stats());
    })
    .await;
}

/// A chunked record's head as the store writes it: the tag, the generation (16 hex
/// digits), the record's length (`u64`) and the chunk size (`u32`), little-endian.
fn manifest(generation: &str, total: u64, chunk: u32) -> Vec<u8> {
    let mut head = b"wfhm\x00\x00\x00\x01".to_vec();
    head.extend_from_slice(generation.as_bytes());
    head.extend_from_slice(&total.to_le_bytes());
    head.extend_from_slice(&chunk.to_le_bytes());
    head
}

/// Writes `count` chunks of `length` bytes named after `key` and `generation`, inside
/// Redis: the test sends a few bytes.
fn plant_chunks(redis: &RedisServer, key: &str, generation: &str, count: usize, length: usize) {
    let _: redis::Value = redis::cmd("EVAL")
        .arg(format!(
            "local value = string.rep('x', {length}) \
             for i = 0, {count} - 1 do redis.call('SET', KEYS[1] .. ':{generation}:' .. i, value) end"
        ))
        .arg(1)
        .arg(key)
        .query(&mut redis.connection())
        .unwrap();
}

/// Plants at `key` a manifest of `count` chunks of 4 KiB (the chunks too, named after
/// `generation`), and reads the record through `store`, which misses it: the bytes Redis
/// sent the store for the read (`from_redis` counting them), and its stats before and
/// after.
async fn read_planted(
    redis: &RedisServer,
    store: &RedisCacheStore,
    from_redis: &AtomicU64,
    (key, generation, count): (&str, &str, usize),
) -> (u64, RedisCacheStats, RedisCacheStats) {
    plant_chunks(redis, key, generation, count, 4096);
    let () = redis::cmd("SET")
        .arg(key)
        .arg(manifest(generation, count as u64 * 4096, 4096))
        .query(&mut redis.connection())
        .unwrap();
    from_redis.store(0, Ordering::SeqCst);
    let before = store.stats();
    assert_eq!(store.get("record").await, None);
    let read = from_redis.load(Ordering::SeqCst);
    (read, before, store.stats())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_manifest_naming_more_than_a_record_or_too_many_chunks_is_not_read() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let (proxy, from_redis) = counting_proxy(redis.addr()).await;
        // Read timeouts long enough that reading every chunk would not be cut short.
        let through_proxy = |max_record_bytes| {
            RedisCacheStore::builder(format!("redis://{proxy}/0"))
                .max_record_bytes(max_record_bytes)
                .timeout(Duration::from_secs(20))
                .build()
        };
        let small = through_proxy(64 << 10).await.unwrap();
        let large = through_proxy(32 << 20).await.unwrap();
        small.put("record", b"a record").unwrap();
        let key = redis.wait_for_keys(1).await.remove(0);

        // 1 MiB in 256 chunks of 4 KiB, each small, where the store's records are at most
        // 64 KiB: the head is read, and nothing of the chunks.
        let planted = (key.as_str(), "0123456789abcdef", 256);
        let (read, before, after) = read_planted(&redis, &small, &from_redis, planted).await;
        eprintln!("a manifest of 1 MiB over a limit of 64 KiB: {read} bytes read, {after:?}");
        assert_eq!(after.oversized, before.oversized + 1, "{after:?}");
        assert_eq!(after.misses, before.misses + 1, "{after:?}");
        assert_eq!(
            (after.corrupt, after.errors),
            (before.corrupt, before.errors)
        );
        assert!(read < 4096, "Redis sent the store {read} bytes");

        // 4,097 chunks of 4 KiB (16 MiB, under the other store's limit of 32 MiB): more
        // than a manifest may name, so the head does not check, and no chunk is read.
        let planted = (key.as_str(), "fedcba9876543210", 4097);
        let (read, before, after) = read_planted(&redis, &large, &from_redis, planted).await;
        eprintln!("a manifest naming 4,097 chunks: {read} bytes read, {after:?}");
        assert_eq!(after.corrupt, before.corrupt + 1, "{after:?}");
        assert_eq!(after.misses, before.misses + 1, "{after:?}");
        assert_eq!(
            (after.oversized, after.errors),
            (before.oversized, before.errors)
        );
        assert!(read < 4096, "Redis sent the store {read} bytes");
    })
    .await;
}

/// The time to live of `key` in milliseconds, as `PTTL` gives it (-1 for none).
fn pttl(redis: &RedisServer, key: &str) -> i64 {
    redis::cmd("PTTL")
        .arg(key)
        .query(&mut redis.connection())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_chunks_of_a_record_without_an_expiry_last_once_it_is_written_and_expire_if_not() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let value = vec![b'v'; 300 << 10];
        // Written whole: the head and its five chunks last, as the record does.
        let store = RedisCacheStore::builder(redis.url())
            .chunk_bytes(64 << 10)
            .build()
            .await
            .unwrap();
        store.put("whole", &value).unwrap();
        let whole = redis.wait_for_keys(6).await;
        for key in &whole {
            assert_eq!(pttl(&redis, key), -1, "{key}");
        }
        assert_eq!(store.get("whole").await.as_deref(), Some(&value[..]));

        // A write Redis holds after its first chunk, given up at the write timeout (and its
        // chunks' deletion held too): what it wrote expires within the minute.
        let gate = Gate::new();
        let proxy = gated_proxy(redis.addr(), gate.clone(), |_| {}).await;
        let writer = RedisCacheStore::builder(format!("redis://{proxy}/0"))
            .chunk_bytes(64 << 10)
            .write_timeout(Duration::from_millis(200))
            .build()
            .await
            .unwrap();
        gate.close_after(100 << 10);
        writer.put("held", &value).unwrap();
        until("the write to be given up", || writer.stats().errors >= 1).await;
        let left: Vec<String> = redis
            .keys()
            .into_iter()
            .filter(|key| !whole.contains(key))
            .collect();
        assert_eq!(left.len(), 1, "the first chunk alone: {left:?}");
        let ttl = pttl(&redis, &left[0]);
        assert!(ttl > 0 && ttl <= 60_000, "{}: {ttl} ms", left[0]);
        assert_eq!(writer.get("held").await, None);
    })
    .await;
}
