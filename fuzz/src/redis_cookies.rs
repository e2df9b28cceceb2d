//! `redis_cookies`: what another writer leaves in the Redis of a `cookie::RedisCookieStore`
//! (the `redis` feature): a registrable domain's hash (its fields and their values, each
//! a cookie's JSON to the store), the set of domains and the count, read back for a
//! request's `Cookie` header, for a listing and for the count, and read and changed again
//! by the next `Set-Cookie` or sweep (the store's Lua scripts, its decoding of a value
//! into a cookie of its field and domain).
//!
//! Each input gets a store of its own (a prefix of its own, on the process's
//! `redis-server`, see `redis_server.rs`), with small limits (4 cookies a domain, 8 in
//! all) so that the reads' bounds are crossed. The input is operations, an op byte each
//! (mod 8) and then its operands: a byte, or a string (a length byte, then as many bytes).
//! `u` picks one of [`URLS`] and `d` the domain of that URL's cookies (mod 4):
//!
//! - 0 `u s`: the store sets `s` as a `Set-Cookie` value of a response from `u`;
//! - 1 `d f v`: `HSET` of field `f` to `v` in `d`'s hash, behind the store's back;
//! - 2 `d i o s`: the `i`th field of `d`'s hash (in sorted order) gets `s` written over its
//!   value at offset `o` (a byte): values close to real cookies;
//! - 3 `d n b`: `HSET` of a field `big` in `d`'s hash to `n` KiB of byte `b` (up to 255
//!   KiB: past the 64 KiB a read takes);
//! - 4 `s`: `SADD` of `s` to the set of domains;
//! - 5 `s`: `SET` of the count to `s`;
//! - 6 `u`: the store's `Cookie` header for `u`, checked;
//! - 7: the store's listing (`cookies()`) and count (`len()`), checked.
//!
//! Checked: every operation ends within 5 seconds; a `Cookie` header is a non-empty
//! header value no longer than the cookies a read takes can make; a listing holds no
//! more cookies than a read takes.

use std::sync::Arc;
use std::time::Duration;

use url::Url;
use whatwg_fetch::cookie::{CookieLimits, CookieProvider, RedisCookieStore};
use whatwg_fetch::headers::is_header_value;

use crate::redis_server::{fresh_prefix, redis_server};
use crate::{MAX_INPUT, Reader, input_runtime};

/// The URLs, each with the domain whose hash holds its cookies.
const URLS: [(&str, &str); 4] = [
    ("https://sub.example.com/a/b", "example.com"),
    ("http://127.0.0.1/x", "127.0.0.1"),
    ("https://www.example.co.uk/", "example.co.uk"),
    ("http://localhost:8080/p/", "localhost"),
];

/// The store's limits: small, so that the reads' bounds (twice them, and 16 more) are
/// crossed.
const LIMITS: CookieLimits = CookieLimits {
    max_per_domain: 4,
    purge_per_domain_to: 3,
    max_total: 8,
    purge_total_to: 6,
};

/// The target's database on the process's `redis-server`.
const DB: u8 = 2;

/// At most this many operations per input.
const MAX_OPS: usize = 64;

/// Runs `step` on the input's runtime, failing past 5 seconds.
fn within<T>(
    runtime: &tokio::runtime::Runtime,
    what: &str,
    step: impl std::future::Future<Output = T>,
) -> T {
    runtime
        .block_on(async { tokio::time::timeout(Duration::from_secs(5), step).await })
        .unwrap_or_else(|_| panic!("{what} took more than 5 seconds"))
}

/// The `redis_cookies` target.
pub fn redis_cookies(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let Some(server) = redis_server() else {
        return;
    };
    let mut connection = server.connection(DB);
    // What the stores of earlier inputs wrote goes; what they still write lands under
    // their own prefixes.
    let () = connection.run(&redis::cmd("FLUSHDB")).expect("FLUSHDB");
    let runtime = input_runtime();
    let store = within(&runtime, "building a store", async {
        RedisCookieStore::builder(server.url(DB))
            .prefix(fresh_prefix("redis_cookies"))
            .limits(LIMITS)
            .timeout(Duration::from_secs(2))
            .write_timeout(Duration::from_secs(2))
            .build()
            .await
    })
    .expect("a store on the target's redis-server");
    let store = Arc::new(store);
    let prefix = store.prefix().to_owned();
    let site = |d: u8| {
        let (_, domain) = URLS[usize::from(d) % URLS.len()];
        format!("{prefix}site:{domain}")
    };
    let url = |u: u8| {
        let (url, _) = URLS[usize::from(u) % URLS.len()];
        Url::parse(url).expect("a URL")
    };
    // The most a `Cookie` header can hold: the fields a read takes of two domains, each a
    // cookie of at most 4,096 bytes of name and value, with "; " between them.
    let most_per_site = LIMITS.max_per_domain * 2 + 16;
    let longest_header = 2 * most_per_site * (4096 + 3);
    let mut input = Reader::new(data);
    for _ in 0..MAX_OPS {
        if input.is_empty() {
            break;
        }
        match input.byte() % 8 {
            0 => {
                let (u, value) = (input.byte(), input.string());
                let url = url(u);
                within(
                    &runtime,
                    "storing a cookie",
                    store.set_cookies_from_headers(&url, &[value]),
                );
            }
            1 => {
                let (d, field, value) = (input.byte(), input.string(), input.string());
                let _: redis::RedisResult<i64> =
                    connection.run(redis::cmd("HSET").arg(site(d)).arg(field).arg(value));
            }
            2 => {
                let (d, i, offset, over) =
                    (input.byte(), input.byte(), input.byte(), input.string());
                let key = site(d);
                let mut fields: Vec<Vec<u8>> = connection
                    .run(redis::cmd("HKEYS").arg(&key))
                    .unwrap_or_default();
                fields.sort();
                if fields.is_empty() {
                    continue;
                }
                let field = &fields[usize::from(i) % fields.len()];
                let mut value: Vec<u8> = connection
                    .run(redis::cmd("HGET").arg(&key).arg(field))
                    .unwrap_or_default();
                let offset = usize::from(offset).min(value.len());
                let end = offset + over.len();
                value.resize(value.len().max(end), b' ');
                value[offset..end].copy_from_slice(over);
                let _: redis::RedisResult<i64> =
                    connection.run(redis::cmd("HSET").arg(&key).arg(field).arg(value));
            }
            3 => {
                let (d, kib, byte) = (input.byte(), input.byte(), input.byte());
                let _: redis::RedisResult<i64> =
                    connection.run(redis::cmd("HSET").arg(site(d)).arg("big").arg(vec![
                        byte;
                        usize::from(
                            kib
                        ) << 10
                    ]));
            }
            4 => {
                let member = input.string();
                let _: redis::RedisResult<i64> =
                    connection.run(redis::cmd("SADD").arg(format!("{prefix}sites")).arg(member));
            }
            5 => {
                let count = input.string();
                let _: redis::RedisResult<()> =
                    connection.run(redis::cmd("SET").arg(format!("{prefix}count")).arg(count));
            }
            6 => {
                let url = url(input.byte());
                if let Some(header) =
                    within(&runtime, "a Cookie header", store.cookie_header_for(&url))
                {
                    assert!(!header.is_empty(), "an empty Cookie header");
                    assert!(
                        is_header_value(&header),
                        "a Cookie header that is not a header value: {:?}",
                        String::from_utf8_lossy(&header)
                    );
                    assert!(
                        header.len() <= longest_header,
                        "a Cookie header of {} bytes",
                        header.len()
                    );
                }
            }
            _ => {
                if let Ok(cookies) = within(&runtime, "a listing", store.cookies()) {
                    let most = LIMITS.max_total * 2 + 16;
                    assert!(cookies.len() <= most, "{} cookies listed", cookies.len());
                }
                let _ = within(&runtime, "the count", store.len());
            }
        }
    }
}
