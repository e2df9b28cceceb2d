//! `cookie::RedisCookieStore` (the `redis` feature) against a real `redis-server`, started
//! by each test on a free port of 127.0.0.1 and stopped after it, and an in-process HTTP
//! server: `/set?<cookie>` answers with that `Set-Cookie`, every path with the `Cookie`
//! header it got. Without `redis-server` (Debian's package of that name; `wpt/setup.sh`
//! installs it), each test says so loudly and passes.

#[path = "../../tests/net_support/mod.rs"]
mod net_support;
#[path = "../support/redis_server.rs"]
mod redis_server;

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use net_support::{Server, full, hyper_server};
use redis_server::{Gate, RedisServer, counting_proxy, delaying_proxy, gated_proxy};
use url::Url;
use whatwg_fetch::cookie::{CookieLimits, CookieProvider, RedisCookieStore};
use whatwg_fetch::{Client, RequestInit};

/// The server: `/set?<cookie>` sets the (percent-decoded) cookie; every answer's body is
/// the request's `Cookie` header, or nothing.
async fn cookie_server() -> Server {
    hyper_server(|request| async move {
        let cookie = request
            .headers()
            .get(http::header::COOKIE)
            .map(|value| value.to_str().unwrap().to_owned())
            .unwrap_or_default();
        let mut response = http::Response::new(full(cookie));
        if request.uri().path() == "/set" {
            let query = request.uri().query().unwrap_or_default();
            let set: String = url::form_urlencoded::parse(format!("c={query}").as_bytes())
                .map(|(_, value)| value.into_owned())
                .collect();
            response
                .headers_mut()
                .insert(http::header::SET_COOKIE, set.parse().unwrap());
        }
        response
    })
    .await
}

fn client(jar: &Arc<RedisCookieStore>) -> Client {
    Client::builder()
        .cookie_provider(jar.clone())
        .build()
        .unwrap()
}

/// The `Cookie` header the server got for a `GET` of `url`.
async fn get(client: &Client, url: &str) -> String {
    let mut response = client.fetch(url, RequestInit::default()).await.unwrap();
    assert!(response.ok(), "{url}: {}", response.status());
    response.text().await.unwrap()
}

async fn jar(redis: &RedisServer) -> Arc<RedisCookieStore> {
    Arc::new(
        RedisCookieStore::builder(redis.url())
            .build()
            .await
            .unwrap(),
    )
}

async fn bounded<F: std::future::Future>(test: F) -> F::Output {
    tokio::time::timeout(Duration::from_secs(60), test)
        .await
        .expect("test timed out")
}

/// Sets `header` as if a response from `url` carried it.
async fn set(jar: &RedisCookieStore, url: &str, header: &str) {
    let url = Url::parse(url).unwrap();
    jar.set_cookies_from_headers(&url, &[header.as_bytes()])
        .await;
}

async fn header_for(jar: &RedisCookieStore, url: &str) -> Option<String> {
    let url = Url::parse(url).unwrap();
    jar.cookie_header_for(&url)
        .await
        .map(|value| String::from_utf8(value).unwrap())
}

/// Sets the cookie `a=1` of `127.0.0.1` through `jar`: the key of the domain's hash and
/// the cookie's field in it.
async fn one_cookie(redis: &RedisServer, jar: &RedisCookieStore) -> (String, Vec<u8>) {
    set(jar, "http://127.0.0.1/", "a=1").await;
    let key = format!("{}site:127.0.0.1", RedisCookieStore::DEFAULT_PREFIX);
    (key, fields(redis, "127.0.0.1").pop().unwrap())
}

/// The fields of a registrable domain's hash, its version left out.
fn fields(redis: &RedisServer, domain: &str) -> Vec<Vec<u8>> {
    let fields: Vec<Vec<u8>> = redis::cmd("HKEYS")
        .arg(format!("{}site:{domain}", RedisCookieStore::DEFAULT_PREFIX))
        .query(&mut redis.connection())
        .unwrap();
    fields.into_iter().filter(|field| field != b"#v").collect()
}

#[test]
fn a_cookie_set_through_one_client_is_sent_by_another_in_another_runtime() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    let server_runtime = tokio::runtime::Runtime::new().unwrap();
    let server = server_runtime.block_on(cookie_server());
    let redis_url = redis.url();
    // Each client on a thread and runtime of its own, with a store of its own: as two
    // processes would be.
    let fetch_in_a_runtime_of_its_own = |url: String| {
        let redis_url = redis_url.clone();
        std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()
                .unwrap();
            runtime.block_on(async {
                let jar = Arc::new(RedisCookieStore::builder(redis_url).build().await.unwrap());
                let sent = get(&client(&jar), &url).await;
                (sent, jar.stats())
            })
        })
        .join()
        .unwrap()
    };
    let (sent, first) =
        fetch_in_a_runtime_of_its_own(server.url("/set?sid=abc;%20Path=/;%20HttpOnly"));
    assert_eq!(sent, "");
    assert_eq!((first.writes, first.errors), (1, 0), "{first:?}");
    let (sent, second) =
        fetch_in_a_runtime_of_its_own(server.url("/set?theme=dark;%20Max-Age=3600"));
    assert_eq!(sent, "sid=abc", "the session cookie is shared");
    assert_eq!(second.errors, 0, "{second:?}");
    let (sent, _) = fetch_in_a_runtime_of_its_own(server.url("/page"));
    assert_eq!(sent, "sid=abc; theme=dark");
    // Replaced by another replica: one cookie, the new value, the first creation-time.
    let (_, _) = fetch_in_a_runtime_of_its_own(server.url("/set?sid=def"));
    let (sent, _) = fetch_in_a_runtime_of_its_own(server.url("/page"));
    assert_eq!(sent, "sid=def; theme=dark");
    // Deleted by another: Max-Age=0.
    let (_, _) = fetch_in_a_runtime_of_its_own(server.url("/set?theme=;%20Max-Age=0"));
    let (sent, _) = fetch_in_a_runtime_of_its_own(server.url("/page"));
    assert_eq!(sent, "sid=def");
    drop(server);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_jar_keeps_the_in_memory_stores_rules() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let jar = jar(&redis).await;
        let page = "https://www.example.com/a/b";
        set(&jar, page, "host=1").await;
        set(&jar, page, "parent=2; Domain=example.com; Path=/").await;
        set(&jar, page, "secure=3; Secure; Path=/a").await;
        set(&jar, page, "public=4; Domain=com").await;
        set(&jar, "http://www.example.com/", "insecure=5; Secure").await;
        assert_eq!(
            header_for(&jar, "https://www.example.com/a/b/c")
                .await
                .as_deref(),
            Some("host=1; secure=3; parent=2")
        );
        assert_eq!(
            header_for(&jar, "http://other.example.com/")
                .await
                .as_deref(),
            Some("parent=2")
        );
        assert_eq!(header_for(&jar, "https://example.org/").await, None);
        let listed: Vec<String> = jar
            .cookies()
            .await
            .unwrap()
            .iter()
            .map(|c| format!("{} {} {}", c.domain(), c.path().unwrap(), c.name().unwrap()))
            .collect();
        assert_eq!(
            listed,
            [
                "example.com / parent",
                "www.example.com /a host",
                "www.example.com /a secure"
            ]
        );
        assert_eq!(jar.len().await.unwrap(), 3);
        jar.clear().await.unwrap();
        assert_eq!(jar.len().await.unwrap(), 0);
        assert_eq!(header_for(&jar, page).await, None);
        assert!(
            redis
                .keys_with_prefix(RedisCookieStore::DEFAULT_PREFIX)
                .is_empty()
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn concurrent_writers_lose_no_cookie_and_keep_the_per_domain_limit() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        // Two stores (two connections, as two replicas) setting cookies of one domain at
        // once: every change reads, applies and writes only if nobody wrote in between.
        let one = jar(&redis).await;
        let two = jar(&redis).await;
        let write = |jar: Arc<RedisCookieStore>, name: &'static str| async move {
            for i in 0..40 {
                set(&jar, "https://example.com/", &format!("{name}{i}={i}")).await;
            }
        };
        let (a, b) = tokio::join!(
            tokio::spawn(write(one.clone(), "a")),
            tokio::spawn(write(two.clone(), "b"))
        );
        a.unwrap();
        b.unwrap();
        let (one_stats, two_stats) = (one.stats(), two.stats());
        eprintln!("concurrent writers: {one_stats:?} {two_stats:?}");
        assert_eq!(one_stats.errors + two_stats.errors, 0);
        assert_eq!(fields(&redis, "example.com").len(), 80, "no cookie lost");
        assert_eq!(one.len().await.unwrap(), 80, "the count is exact");

        // With a limit of 10 a domain: never more, whoever writes.
        let limits = CookieLimits {
            max_per_domain: 10,
            purge_per_domain_to: 10,
            ..CookieLimits::default()
        };
        let limited = |prefix: &'static str| {
            RedisCookieStore::builder(redis.url())
                .prefix(prefix)
                .limits(limits)
                .build()
        };
        let one = Arc::new(limited("limited:").await.unwrap());
        let two = Arc::new(limited("limited:").await.unwrap());
        let (a, b) = tokio::join!(
            tokio::spawn(write(one.clone(), "a")),
            tokio::spawn(write(two.clone(), "b"))
        );
        a.unwrap();
        b.unwrap();
        let held: Vec<Vec<u8>> = redis::cmd("HKEYS")
            .arg("limited:site:example.com")
            .query::<Vec<Vec<u8>>>(&mut redis.connection())
            .unwrap()
            .into_iter()
            .filter(|field| field != b"#v")
            .collect();
        assert_eq!(held.len(), 10);
        assert_eq!(one.len().await.unwrap(), 10);
        // The most recently set are those kept: of each writer, its last ones (however
        // the two writers' cookies interleaved in time).
        let sent = header_for(&one, "https://example.com/").await.unwrap();
        let mut kept = 0;
        for writer in ["a", "b"] {
            let indices: Vec<usize> = (0..40)
                .filter(|i| sent.split("; ").any(|c| c == format!("{writer}{i}={i}")))
                .collect();
            kept += indices.len();
            if let Some(first) = indices.first() {
                assert_eq!(indices, (*first..40).collect::<Vec<_>>(), "{sent}");
            }
        }
        assert_eq!(kept, 10, "{sent}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_total_the_least_recently_used_cookies_of_the_jar_go() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let jar = RedisCookieStore::builder(redis.url())
            .limits(CookieLimits {
                max_total: 20,
                purge_total_to: 15,
                ..CookieLimits::default()
            })
            .build()
            .await
            .unwrap();
        for site in 0..21 {
            set(&jar, &format!("https://site{site}.example/"), "id=1").await;
        }
        // The purge runs on the store's task, after the 21st cookie.
        let deadline = Instant::now() + Duration::from_secs(10);
        while jar.len().await.unwrap() > 15 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(jar.len().await.unwrap(), 15, "{:?}", jar.stats());
        assert_eq!(jar.cookies().await.unwrap().len(), 15);
        assert_eq!(jar.stats().purges, 1);
        assert_eq!(header_for(&jar, "https://site0.example/").await, None);
        assert_eq!(header_for(&jar, "https://site5.example/").await, None);
        assert_eq!(
            header_for(&jar, "https://site6.example/").await.as_deref(),
            Some("id=1")
        );
        assert_eq!(
            header_for(&jar, "https://site20.example/").await.as_deref(),
            Some("id=1")
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_count_that_is_not_a_count_is_counted_again_and_the_total_still_holds() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        // What may be left under the count: not a number, a key of another type, and the
        // largest `i64` (which `INCRBY` cannot add to).
        let plants: [(&str, &[&str]); 3] = [
            ("not a number", &["SET", "x"]),
            ("another type", &["RPUSH", "x"]),
            ("i64::MAX", &["SET", "9223372036854775807"]),
        ];
        for (index, (what, plant)) in plants.into_iter().enumerate() {
            let prefix = format!("count-{index}:");
            let count = format!("{prefix}count");
            let plant = |connection: &mut redis::Connection| {
                let () = redis::cmd("DEL").arg(&count).query(connection).unwrap();
                let _: redis::Value = redis::cmd(plant[0])
                    .arg(&count)
                    .arg(plant[1])
                    .query(connection)
                    .unwrap();
            };
            let jar = RedisCookieStore::builder(redis.url())
                .prefix(&prefix)
                .limits(CookieLimits {
                    max_total: 20,
                    purge_total_to: 15,
                    ..CookieLimits::default()
                })
                .build()
                .await
                .unwrap();
            set(&jar, "https://site0.example/", "id=1").await;
            plant(&mut redis.connection());
            for site in 1..60 {
                set(&jar, &format!("https://site{site}.example/"), "id=1").await;
            }
            // The purges run on the store's task: wait until the last is done (the count
            // and the listing agree, and stay so).
            let deadline = Instant::now() + Duration::from_secs(10);
            loop {
                let len = jar.len().await.unwrap();
                if len <= 20 && len == jar.cookies().await.unwrap().len() {
                    tokio::time::sleep(Duration::from_millis(100)).await;
                    if jar.len().await.unwrap() == len {
                        break;
                    }
                }
                assert!(Instant::now() < deadline, "count {what}: {:?}", jar.stats());
                tokio::time::sleep(Duration::from_millis(10)).await;
            }
            let (len, listed, stats) = (
                jar.len().await.unwrap(),
                jar.cookies().await.unwrap().len(),
                jar.stats(),
            );
            eprintln!("count {what}: {len} counted, {listed} listed (max_total 20); {stats:?}");
            assert!(len <= 20, "count {what}: {len} cookies; {stats:?}");
            assert_eq!(listed, len, "count {what}: {stats:?}");
            assert!(stats.purges >= 1, "count {what}: {stats:?}");
            assert_eq!(stats.errors, 0, "count {what}: {stats:?}");

            // Planted again and read at once: counted again, and set.
            plant(&mut redis.connection());
            assert_eq!(jar.len().await.unwrap(), listed, "count {what}");
            let kept: String = redis::cmd("GET")
                .arg(&count)
                .query(&mut redis.connection())
                .unwrap();
            assert_eq!(kept, listed.to_string(), "count {what}");
        }
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_domain_with_more_fields_than_a_read_takes_still_takes_cookies_and_is_trimmed() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        // The default limit: 180 cookies a domain, a read taking 376 fields.
        let limit = CookieLimits::default().max_per_domain;
        let jar = jar(&redis).await;
        set(&jar, "https://example.com/", "a=1").await;
        // 1,000 fields that are no cookies, behind the store's back.
        let key = format!("{}site:example.com", RedisCookieStore::DEFAULT_PREFIX);
        eval(
            &redis,
            "for i = 1, 1000 do redis.call('HSET', KEYS[1], 'junk' .. i, 'x') end",
            &[&key],
        );
        let started = Instant::now();
        set(&jar, "https://example.com/", "b=1").await;
        let took = started.elapsed();
        let stats = jar.stats();
        let left = fields(&redis, "example.com").len();
        eprintln!("a set over 1,000 junk fields took {took:?}, left {left} fields; {stats:?}");
        assert_eq!(stats.errors, 0, "{stats:?}");
        assert_eq!(
            header_for(&jar, "https://example.com/").await.as_deref(),
            Some("a=1; b=1")
        );
        // What was no cookie is gone, whichever fields the first read took.
        assert!(left <= limit, "{left} fields left");
        assert_eq!(left, 2);
        assert_eq!(jar.len().await.unwrap(), 2);

        // 400 cookies, written by a store with a larger limit: past what a read takes of
        // the domain. One more from a store with the default limit is stored, and the
        // least recently used of those read go, down to the limit.
        let larger = RedisCookieStore::builder(redis.url())
            .prefix("larger:")
            .limits(CookieLimits {
                max_per_domain: 400,
                purge_per_domain_to: 400,
                ..CookieLimits::default()
            })
            .build()
            .await
            .unwrap();
        let headers: Vec<String> = (0..400).map(|i| format!("c{i}=1")).collect();
        let headers: Vec<&[u8]> = headers.iter().map(|header| header.as_bytes()).collect();
        let url = Url::parse("https://example.org/").unwrap();
        larger.set_cookies_from_headers(&url, &headers).await;
        let key = "larger:site:example.org";
        let held = |redis: &RedisServer| -> usize {
            redis::cmd("HLEN")
                .arg(key)
                .query(&mut redis.connection())
                .unwrap()
        };
        assert_eq!(held(&redis), 400);
        let default = RedisCookieStore::builder(redis.url())
            .prefix("larger:")
            .build()
            .await
            .unwrap();
        set(&default, "https://example.org/", "new=1").await;
        let stats = default.stats();
        assert_eq!(stats.errors, 0, "{stats:?}");
        let sent = header_for(&default, "https://example.org/").await.unwrap();
        let sent: Vec<&str> = sent.split("; ").collect();
        assert!(sent.contains(&"new=1"), "{sent:?}");
        assert!(held(&redis) <= limit, "{} fields left", held(&redis));
        // The least recently used of what a read takes go first: the last set stays.
        assert!(sent.contains(&"c399=1"), "{sent:?}");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_redis_stopped_fetches_succeed_without_cookies_and_errors_are_counted() {
    let Some(mut redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let server = cookie_server().await;
        let jar = jar(&redis).await;
        let client = client(&jar);
        get(&client, &server.url("/set?sid=1")).await;
        assert_eq!(get(&client, &server.url("/page")).await, "sid=1");
        redis.stop();
        let before = jar.stats();
        for path in ["/set?other=2", "/page"] {
            let started = Instant::now();
            assert_eq!(get(&client, &server.url(path)).await, "");
            let took = started.elapsed();
            assert!(took < Duration::from_secs(3), "{path} took {took:?}");
        }
        let after = jar.stats();
        assert!(
            after.errors >= before.errors + 2,
            "{before:?} then {after:?}"
        );
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_slow_redis_costs_a_fetch_no_more_than_the_timeouts() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let server = cookie_server().await;
        let slow = Arc::new(AtomicBool::new(false));
        let delay = Duration::from_secs(3);
        let proxy = delaying_proxy(redis.addr(), slow.clone(), delay).await;
        let (timeout, write_timeout) = (Duration::from_millis(50), Duration::from_millis(200));
        let jar = RedisCookieStore::builder(format!("redis://{proxy}/0"))
            .timeout(timeout)
            .write_timeout(write_timeout)
            .build()
            .await
            .unwrap();
        let jar = Arc::new(jar);
        let client = client(&jar);
        get(&client, &server.url("/set?sid=1")).await;
        slow.store(true, Ordering::SeqCst);
        for path in ["/page", "/set?other=2"] {
            let started = Instant::now();
            assert_eq!(get(&client, &server.url(path)).await, "");
            let took = started.elapsed();
            eprintln!("slow Redis: {path} took {took:?} (timeouts {timeout:?}, {write_timeout:?})");
            // Cut short by the store's timeouts, far from Redis's delay: a bound with room
            // for a loaded machine, where the time itself is for the benchmark to say.
            assert!(
                took < delay / 2,
                "{path} took {took:?} with Redis {delay:?} slow"
            );
        }
        assert!(jar.stats().errors >= 2, "{:?}", jar.stats());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_corrupt_value_is_left_out_and_removed_by_the_next_change() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let jar = jar(&redis).await;
        set(&jar, "https://example.com/", "good=1").await;
        let key = format!("{}site:example.com", RedisCookieStore::DEFAULT_PREFIX);
        let good = fields(&redis, "example.com").pop().unwrap();
        let value: Vec<u8> = redis::cmd("HGET")
            .arg(&key)
            .arg(&good)
            .query(&mut redis.connection())
            .unwrap();
        let mut connection = redis.connection();
        // Garbage; a cookie truncated; a cookie under another cookie's field.
        let () = redis::cmd("HSET")
            .arg(&key)
            .arg("11:example.com1:/junk")
            .arg("not json")
            .arg("11:example.com1:/cut")
            .arg(&value[..value.len() / 2])
            .arg("11:example.com1:/moved")
            .arg(&value)
            .query(&mut connection)
            .unwrap();
        assert_eq!(
            header_for(&jar, "https://example.com/").await.as_deref(),
            Some("good=1")
        );
        assert!(jar.stats().corrupt >= 3, "{:?}", jar.stats());
        // The read queued a sweep of the domain, which removes them.
        let deadline = Instant::now() + Duration::from_secs(10);
        while fields(&redis, "example.com").len() > 1 && Instant::now() < deadline {
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(fields(&redis, "example.com"), [good]);
        assert_eq!(jar.len().await.unwrap(), 1, "the count holds what is left");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn session_cookies_are_shared_or_kept_for_the_lifetime_chosen() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let shared = jar(&redis).await;
        set(&shared, "https://example.com/", "sid=1").await;
        let listed = shared.cookies().await.unwrap();
        assert!(listed[0].is_session());

        let timed = RedisCookieStore::builder(redis.url())
            .prefix("timed:")
            .session_cookie_lifetime(Duration::from_secs(3600))
            .build()
            .await
            .unwrap();
        set(&timed, "https://example.com/", "sid=1").await;
        let listed = timed.cookies().await.unwrap();
        let expires = listed[0].expires().unwrap();
        let left = expires
            .duration_since(std::time::SystemTime::now())
            .unwrap();
        assert!(left > Duration::from_secs(3500) && left <= Duration::from_secs(3600));
        // A jar under another prefix is another jar.
        assert_eq!(
            header_for(&shared, "https://example.com/").await.as_deref(),
            Some("sid=1")
        );
        let other = RedisCookieStore::builder(redis.url())
            .prefix("other:")
            .build()
            .await
            .unwrap();
        assert_eq!(header_for(&other, "https://example.com/").await, None);
    })
    .await;
}

/// Runs `script` (Lua) on the test's own connection, with `keys`: to make values of many
/// MiB inside Redis without the test sending them.
fn eval(redis: &RedisServer, script: &str, keys: &[&str]) {
    let _: redis::Value = redis::cmd("EVAL")
        .arg(script)
        .arg(keys.len())
        .arg(keys)
        .query(&mut redis.connection())
        .unwrap();
}

/// 32 MiB: what the tests plant, behind the store's back.
const PLANTED: usize = 32 << 20;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_oversized_field_in_a_domains_hash_is_left_out_counted_and_removed() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let server = cookie_server().await;
        let (proxy, from_redis) = counting_proxy(redis.addr()).await;
        let jar = RedisCookieStore::builder(format!("redis://{proxy}/0"))
            .build()
            .await
            .unwrap();
        let jar = Arc::new(jar);
        let client = client(&jar);
        get(&client, &server.url("/set?sid=1")).await;
        assert_eq!(get(&client, &server.url("/page")).await, "sid=1");
        // 32 MiB in a field of the domain's hash, next to the real cookie.
        let key = format!("{}site:127.0.0.1", RedisCookieStore::DEFAULT_PREFIX);
        eval(
            &redis,
            &format!("redis.call('HSET', KEYS[1], 'junk', string.rep('x', {PLANTED}))"),
            &[&key],
        );
        from_redis.store(0, Ordering::SeqCst);
        // Every fetch still sends the real cookie, reading no more than cookies can be.
        for _ in 0..3 {
            assert_eq!(get(&client, &server.url("/page")).await, "sid=1");
        }
        // The read queued a sweep of the domain, which removes the field.
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let there: bool = redis::cmd("HEXISTS")
                .arg(&key)
                .arg("junk")
                .query(&mut redis.connection())
                .unwrap();
            if !there {
                break;
            }
            assert!(Instant::now() < deadline, "not removed: {:?}", jar.stats());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        // A write after it, in the same order: once it is stored, every reply before it
        // has been read.
        get(&client, &server.url("/set?after=1")).await;
        let read = from_redis.load(Ordering::SeqCst);
        eprintln!("Redis sent the jar {read} bytes for three fetches and a sweep over a field of {PLANTED} bytes");
        assert!(read < 1 << 20, "Redis sent the jar {read} bytes");
        let stats = jar.stats();
        assert!(stats.oversized >= 1, "{stats:?}");
        assert_eq!(stats.errors, 0, "{stats:?}");
        assert_eq!(get(&client, &server.url("/page")).await, "sid=1; after=1");
        assert_eq!(fields(&redis, "127.0.0.1").len(), 2);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_listing_and_the_count_read_no_more_than_a_jar_holds() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let (proxy, from_redis) = counting_proxy(redis.addr()).await;
        let jar = RedisCookieStore::builder(format!("redis://{proxy}/0"))
            .build()
            .await
            .unwrap();
        set(&jar, "https://example.com/", "id=1").await;
        // A domain of 32 MiB in the set of domains, and the count made 32 MiB of digits
        // (no count: the jar is counted again).
        let sites = format!("{}sites", RedisCookieStore::DEFAULT_PREFIX);
        let count = format!("{}count", RedisCookieStore::DEFAULT_PREFIX);
        eval(
            &redis,
            &format!(
                "redis.call('SADD', KEYS[1], string.rep('x', {PLANTED})) \
                 redis.call('SET', KEYS[2], string.rep('1', {PLANTED}))"
            ),
            &[&sites, &count],
        );
        from_redis.store(0, Ordering::SeqCst);
        let listed = jar.cookies().await.unwrap();
        assert_eq!(listed.len(), 1);
        assert_eq!(jar.len().await.unwrap(), 1, "a count of 32 MiB of digits");
        let read = from_redis.load(Ordering::SeqCst);
        eprintln!(
            "Redis sent the jar {read} bytes for a listing and a count over {PLANTED} bytes each"
        );
        assert!(read < 1 << 20, "Redis sent the jar {read} bytes");
    })
    .await;
}

/// Whether `haystack` holds `needle`.
fn contains(haystack: &[u8], needle: &[u8]) -> bool {
    haystack
        .windows(needle.len())
        .any(|window| window == needle)
}

/// Waits (at most 10 s) until `ready` holds.
async fn until(what: &str, mut ready: impl FnMut() -> bool) {
    let deadline = Instant::now() + Duration::from_secs(10);
    while !ready() {
        assert!(Instant::now() < deadline, "waited 10 s for {what}");
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// The value of `field` in the hash at `key`.
fn hget(redis: &RedisServer, key: &str, field: &[u8]) -> Option<Vec<u8>> {
    redis::cmd("HGET")
        .arg(key)
        .arg(field)
        .query(&mut redis.connection())
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_writer_that_always_gets_in_first_makes_the_store_give_up_after_eight_attempts() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let server = cookie_server().await;
        // Two values of the cookie `a` as the store writes them.
        let direct = jar(&redis).await;
        let (key, field) = one_cookie(&redis, &direct).await;
        let first = hget(&redis, &key, &field).unwrap();
        set(&direct, "http://127.0.0.1/", "a=2").await;
        let second = hget(&redis, &key, &field).unwrap();
        // Another writer that changes the cookie between each read and each change the
        // store makes (the change names the count's key; the read does not): every
        // change finds the cookie changed since it was read.
        let count_key = format!("{}count", RedisCookieStore::DEFAULT_PREFIX).into_bytes();
        let interfered = Arc::new(AtomicUsize::new(0));
        let (url, counter, interfering_key) = (redis.url(), interfered.clone(), key.clone());
        let (written, values) = (field.clone(), [first.clone(), second.clone()]);
        let proxy = gated_proxy(redis.addr(), Gate::new(), move |request| {
            if contains(request, &count_key) && contains(request, interfering_key.as_bytes()) {
                let turn = counter.fetch_add(1, Ordering::SeqCst);
                let mut connection = redis::Client::open(url.as_str())
                    .unwrap()
                    .get_connection()
                    .unwrap();
                let _: i64 = redis::cmd("HSET")
                    .arg(&interfering_key)
                    .arg(&written)
                    .arg(&values[turn % 2])
                    .query(&mut connection)
                    .unwrap();
            }
        })
        .await;
        // A write timeout far past eight round trips: the attempts end it, not the time.
        let jar = RedisCookieStore::builder(format!("redis://{proxy}/0"))
            .write_timeout(Duration::from_secs(20))
            .build()
            .await
            .unwrap();
        let jar = Arc::new(jar);
        // The fetch is done once the store gives up.
        get(&client(&jar), &server.url("/set?a=3")).await;
        let stats = jar.stats();
        eprintln!("a writer always first: {stats:?}");
        assert_eq!(stats.conflicts, 8, "{stats:?}");
        assert_eq!(stats.errors, 1, "given up, and counted: {stats:?}");
        assert_eq!(stats.writes, 0, "{stats:?}");
        assert_eq!(interfered.load(Ordering::SeqCst), 8);
        // What Redis holds is the other writer's.
        let now = hget(&redis, &key, &field).unwrap();
        assert!(now == first || now == second);
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_purge_lock_left_by_a_replica_that_stopped_expires_and_a_later_purge_runs() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let limits = CookieLimits {
            max_total: 5,
            purge_total_to: 3,
            ..CookieLimits::default()
        };
        // The purge's lock lives ten write timeouts: 1 s.
        let write_timeout = Duration::from_millis(100);
        let lock = format!("{}purge", RedisCookieStore::DEFAULT_PREFIX);
        // A replica whose Redis hears nothing more from it once it has taken the lock.
        let gate = Gate::new();
        let closing = gate.clone();
        let marker = lock.clone().into_bytes();
        let proxy = gated_proxy(redis.addr(), gate.clone(), move |request| {
            if contains(request, &marker) {
                closing.close_after(request.len() as u64);
            }
        })
        .await;
        let stopped = RedisCookieStore::builder(format!("redis://{proxy}/0"))
            .limits(limits)
            .write_timeout(write_timeout)
            .build()
            .await
            .unwrap();
        for site in 0..6 {
            set(&stopped, &format!("https://site{site}.example/"), "id=1").await;
        }
        until("the lock to be taken", || {
            redis::cmd("EXISTS")
                .arg(&lock)
                .query::<bool>(&mut redis.connection())
                .unwrap()
        })
        .await;
        let ttl: i64 = redis::cmd("PTTL")
            .arg(&lock)
            .query(&mut redis.connection())
            .unwrap();
        assert!(0 < ttl && ttl <= 1000, "the lock's TTL: {ttl} ms");
        until("the purge to be held", || gate.held() > 0).await;

        // Another replica past the total meanwhile: its purge finds the lock taken and
        // leaves the jar as it is.
        let live = RedisCookieStore::builder(redis.url())
            .limits(limits)
            .write_timeout(write_timeout)
            .build()
            .await
            .unwrap();
        set(&live, "https://site6.example/", "id=1").await;
        until("the lock to expire", || {
            !redis::cmd("EXISTS")
                .arg(&lock)
                .query::<bool>(&mut redis.connection())
                .unwrap()
        })
        .await;
        assert_eq!(live.stats().purges, 0, "{:?}", live.stats());
        assert_eq!(live.len().await.unwrap(), 7);
        // The stopped replica's purge was given up at its timeout, and counted.
        assert!(stopped.stats().errors >= 1, "{:?}", stopped.stats());

        // Once it expired, the next purge runs.
        set(&live, "https://site7.example/", "id=1").await;
        let deadline = Instant::now() + Duration::from_secs(10);
        while live.len().await.unwrap() > 3 {
            assert!(Instant::now() < deadline, "{:?}", live.stats());
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
        assert_eq!(live.stats().purges, 1, "{:?}", live.stats());
        assert!(gate.held() > 0, "the stopped replica is still cut off");
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_past_the_queues_byte_budget_is_dropped_and_counted() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let direct = jar(&redis).await;
        let (key, field) = one_cookie(&redis, &direct).await;
        // Last used two minutes ago (a use writes a new time after one), and a value
        // beside it that is not a cookie (a read queues a sweep of the domain for it).
        let mut cookie: serde_json::Value =
            serde_json::from_slice(&hget(&redis, &key, &field).unwrap()).unwrap();
        let used = cookie["last_access"].as_u64().unwrap() - 120_000_000;
        cookie["last_access"] = used.into();
        cookie["creation"] = used.into();
        let () = redis::cmd("HSET")
            .arg(&key)
            .arg(&field)
            .arg(cookie.to_string())
            .arg("junk")
            .arg("not a cookie")
            .query::<i64>(&mut redis.connection())
            .map(drop)
            .unwrap();

        // Redis hears the read, then nothing more until the gate opens: the sweep the
        // read queues waits, holding its bytes.
        let gate = Gate::new();
        let armed = Arc::new(AtomicBool::new(false));
        let (closing, arming) = (gate.clone(), armed.clone());
        let proxy = gated_proxy(redis.addr(), gate.clone(), move |request| {
            if arming.swap(false, Ordering::SeqCst) {
                closing.close_after(request.len() as u64);
            }
        })
        .await;
        // Room for the sweep (the domain's name) and not for the last-access-time update
        // beside it (the cookie twice, and its field).
        const BUDGET: usize = 100;
        let jar = RedisCookieStore::builder(format!("redis://{proxy}/0"))
            .task_queue_bytes(BUDGET)
            .write_timeout(Duration::from_secs(20))
            .timeout(Duration::from_secs(20))
            .build()
            .await
            .unwrap();
        armed.store(true, Ordering::SeqCst);
        assert_eq!(
            header_for(&jar, "http://127.0.0.1/").await.as_deref(),
            Some("a=1")
        );
        let stats = jar.stats();
        eprintln!("a sweep waiting and an update past a budget of {BUDGET} bytes: {stats:?}");
        assert_eq!(stats.dropped_tasks, 1, "{stats:?}");
        until("the sweep to be held", || gate.held() > 0).await;
        let stored = |redis: &RedisServer| -> u64 {
            let value = hget(redis, &key, &field).unwrap();
            let cookie: serde_json::Value = serde_json::from_slice(&value).unwrap();
            cookie["last_access"].as_u64().unwrap()
        };
        assert_eq!(stored(&redis), used, "the update was dropped");

        // The gate open, the sweep done: the next read's update is alone in the queue,
        // and goes (a task larger than the budget goes when none waits).
        gate.open();
        until("the sweep", || fields(&redis, "127.0.0.1").len() == 1).await;
        header_for(&jar, "http://127.0.0.1/").await;
        until("the update", || stored(&redis) > used).await;
        assert_eq!(jar.stats().dropped_tasks, 1, "{:?}", jar.stats());
        assert_eq!(jar.stats().errors, 0, "{:?}", jar.stats());
    })
    .await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_cookie_set_over_a_corrupt_value_of_its_own_field_is_stored_at_once() {
    let Some(redis) = RedisServer::start() else {
        return;
    };
    bounded(async {
        let jar = jar(&redis).await;
        let (key, field) = one_cookie(&redis, &jar).await;
        // The cookie's own field made garbage behind the store's back.
        let () = redis::cmd("HSET")
            .arg(&key)
            .arg(&field)
            .arg("not a cookie")
            .query::<i64>(&mut redis.connection())
            .map(drop)
            .unwrap();
        let before = jar.stats();
        set(&jar, "http://127.0.0.1/", "a=2").await;
        let after = jar.stats();
        assert_eq!(after.errors, before.errors, "{after:?}");
        assert_eq!(after.conflicts, before.conflicts, "{after:?}");
        assert_eq!(after.writes, before.writes + 1, "{after:?}");
        assert_eq!(
            header_for(&jar, "http://127.0.0.1/").await.as_deref(),
            Some("a=2")
        );
        assert_eq!(fields(&redis, "127.0.0.1"), [field]);
        assert_eq!(jar.len().await.unwrap(), 1, "{:?}", jar.stats());
    })
    .await;
}
