//! `redis_cache`: what another writer leaves under a record's key in the Redis of a
//! `cache::RedisCacheStore` (the `redis` feature), read back when a client's HTTP cache
//! holds nothing for a URL: the value's layout (a tag, a SHA-256 of the rest, the cache
//! key and the record), a manifest and the chunks it names, and the record the cache then
//! decodes into a response.
//!
//! Each input gets a store of its own (a prefix of its own, on the process's
//! `redis-server`, see `redis_server.rs`; records of at most 8 KiB, so that inputs cross
//! the limit) and a client over a network that answers every request with a fresh `200`.
//! The target plants the input under the key of `http://fuzz.test/page`'s record, as bits
//! 0–1 of byte 0 say, and fetches that URL:
//!
//! - 0: the rest as the value, raw;
//! - 1: the rest as the record, sealed as the store seals one (past the hash check);
//! - 2: the record of the learned response with the rest written over it from the offset
//!   in bytes 1–2 (little-endian), sealed: records close to real ones;
//! - 3: as 2 (the record made longer than 4 KiB with zeros), then cut into chunks of 4 KiB
//!   under a manifest, which bits 2–4 of byte 0 spoil:
//!   0 not, 1 a total one byte longer, 2 one shorter, 3 the last chunk gone, 4 the first
//!   chunk a byte short, 5 a chunk size under 4 KiB, 6 a generation that is not hex, 7 the
//!   manifest one byte longer.
//!
//! The cache key and a real record are learned once, from a response the store wrote.
//!
//! Checked: the fetch ends within 5 seconds with the network's response or the store's; a
//! response served without the network comes from a value that checks (the tag, the
//! hash, the key, and for a manifest every chunk whole) no larger than the store's limit,
//! and was counted as a hit; every read is counted, and no command fails.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};
use std::time::Duration;

use sha2::{Digest, Sha256};
use whatwg_fetch::cache::RedisCacheStore;
use whatwg_fetch::net::{RequestBody, ResponseBody, SendOptions, Transport, TransportFuture};
use whatwg_fetch::{Client, RequestInit};

use crate::redis_server::{fresh_prefix, redis_server};
use crate::{MAX_INPUT, input_runtime};

/// The target's database on the process's `redis-server`.
const DB: u8 = 1;

/// The URL every input fetches.
const URL: &str = "http://fuzz.test/page";

/// The store's layouts, as `src/cache/redis.rs` writes them.
const VALUE_MAGIC: &[u8; 8] = b"wfhc\x00\x00\x00\x01";
const MANIFEST_MAGIC: &[u8; 8] = b"wfhm\x00\x00\x00\x01";
const CHUNK: usize = 4096;

/// The record limit of the stores: small, so that inputs cross it.
const MAX_RECORD_BYTES: usize = 8 << 10;

/// The network: a fresh `200` to every request, counted.
#[derive(Default)]
struct Network {
    sent: AtomicUsize,
}

impl Transport for Network {
    fn send(&self, _: http::Request<RequestBody>, _: SendOptions) -> TransportFuture {
        self.sent.fetch_add(1, Ordering::SeqCst);
        Box::pin(async {
            http::Response::builder()
                .header("cache-control", "max-age=3600")
                .header("content-type", "text/plain")
                .body(ResponseBody::full(b"from the network".to_vec()))
                .map_err(|error| whatwg_fetch::NetworkError::Protocol(error.into()))
        })
    }
}

/// What is learned once: the cache key of [`URL`] and the record the cache wrote for it.
struct Learned {
    cache_key: Vec<u8>,
    record: Vec<u8>,
}

/// A store of its own, on a prefix of its own.
async fn store(url: &str) -> Arc<RedisCacheStore> {
    let store = RedisCacheStore::builder(url)
        .prefix(fresh_prefix("redis_cache"))
        .max_record_bytes(MAX_RECORD_BYTES)
        .timeout(Duration::from_secs(2))
        .build()
        .await
        .expect("a store on the target's redis-server");
    Arc::new(store)
}

fn client(store: &Arc<RedisCacheStore>, network: &Arc<Network>) -> Client {
    Client::builder()
        .http_cache_store(store.clone())
        .transport(network.clone() as Arc<dyn Transport>)
        .build()
        .expect("a client")
}

/// The cache key and the record of a response to [`URL`], from what a store wrote.
fn learn(server: &crate::redis_server::RedisServer) -> Learned {
    let mut connection = server.connection(DB);
    let runtime = input_runtime();
    let store = runtime.block_on(store(&server.url(DB)));
    let network = Arc::new(Network::default());
    runtime.block_on(async {
        let mut response = client(&store, &network)
            .fetch(URL, RequestInit::default())
            .await
            .expect("the network's response");
        response.bytes().await.expect("its body");
    });
    // The store writes behind the fetch, on its task: run the runtime until it has.
    for _ in 0..1000 {
        let keys: Vec<Vec<u8>> = connection
            .run(redis::cmd("KEYS").arg(format!("{}*", store.prefix())))
            .expect("KEYS");
        if let Some(key) = keys.first() {
            let value: Vec<u8> = connection.run(redis::cmd("GET").arg(key)).expect("GET");
            let rest = value.get(VALUE_MAGIC.len() + 32..).unwrap_or_default();
            let (length, rest) = rest.split_at(8.min(rest.len()));
            let length = u64::from_le_bytes(length.try_into().expect("a length")) as usize;
            let (cache_key, record) = rest.split_at(length.min(rest.len()));
            return Learned {
                cache_key: cache_key.to_vec(),
                record: record.to_vec(),
            };
        }
        runtime.block_on(async { tokio::time::sleep(Duration::from_millis(5)).await });
    }
    panic!(
        "the store wrote no record for {URL}: {:?}, {} requests",
        store.stats(),
        network.sent.load(Ordering::SeqCst)
    );
}

/// `record` sealed for `cache_key` as the store seals it.
fn seal(cache_key: &[u8], record: &[u8]) -> Vec<u8> {
    let mut rest = Vec::with_capacity(8 + cache_key.len() + record.len());
    rest.extend_from_slice(&(cache_key.len() as u64).to_le_bytes());
    rest.extend_from_slice(cache_key);
    rest.extend_from_slice(record);
    let mut value = VALUE_MAGIC.to_vec();
    value.extend_from_slice(&Sha256::digest(&rest));
    value.extend_from_slice(&rest);
    value
}

/// Whether `value` checks as a value the store wrote for `cache_key`.
fn checks(cache_key: &[u8], value: &[u8]) -> bool {
    let Some(rest) = value.strip_prefix(VALUE_MAGIC.as_slice()) else {
        return false;
    };
    let (hash, rest) = rest.split_at(32.min(rest.len()));
    if Sha256::digest(rest).as_slice() != hash || rest.len() < 8 {
        return false;
    }
    let (length, rest) = rest.split_at(8);
    let length = u64::from_le_bytes(length.try_into().unwrap_or_default());
    usize::try_from(length)
        .ok()
        .and_then(|length| rest.get(..length))
        .is_some_and(|key| key == cache_key)
}

/// What an input plants: the values of keys (the record's key first), and the value the
/// store may serve a response from (the record's whole value), if any.
struct Planted {
    values: Vec<(String, Vec<u8>)>,
    whole: Option<Vec<u8>>,
}

fn plant(data: &[u8], redis_key: &str, learned: &Learned) -> Planted {
    let mode = data.first().copied().unwrap_or(0) % 4;
    let rest = data.get(1..).unwrap_or_default();
    // The learned record with the input written over it, at least `least` bytes long.
    let near = |least: usize| {
        let offset = usize::from(u16::from_le_bytes([
            rest.first().copied().unwrap_or(0),
            rest.get(1).copied().unwrap_or(0),
        ]));
        let over = rest.get(2..).unwrap_or_default();
        let mut record = learned.record.clone();
        let offset = offset.min(record.len());
        let end = offset.saturating_add(over.len());
        record.resize(record.len().max(end).max(least), 0);
        record[offset..end].copy_from_slice(over);
        seal(&learned.cache_key, &record)
    };
    match mode {
        0 => Planted {
            values: vec![(redis_key.to_owned(), rest.to_vec())],
            whole: Some(rest.to_vec()),
        },
        1 => {
            let value = seal(&learned.cache_key, rest);
            Planted {
                values: vec![(redis_key.to_owned(), value.clone())],
                whole: Some(value),
            }
        }
        2 => {
            let value = near(0);
            Planted {
                values: vec![(redis_key.to_owned(), value.clone())],
                whole: Some(value),
            }
        }
        _ => {
            let spoil = (data.first().copied().unwrap_or(0) >> 2) % 8;
            // A manifest names at least two chunks.
            chunked(redis_key, near(CHUNK + 1), spoil)
        }
    }
}

/// `value` in chunks under a manifest at `redis_key`, spoiled as `spoil` says.
fn chunked(redis_key: &str, value: Vec<u8>, spoil: u8) -> Planted {
    let generation = if spoil == 6 {
        "0123456789abcdeZ"
    } else {
        "0123456789abcdef"
    };
    let chunk = if spoil == 5 { CHUNK - 1 } else { CHUNK };
    let total = match spoil {
        1 => value.len() + 1,
        2 => value.len() - 1,
        _ => value.len(),
    };
    let mut manifest = MANIFEST_MAGIC.to_vec();
    manifest.extend_from_slice(generation.as_bytes());
    manifest.extend_from_slice(&(total as u64).to_le_bytes());
    manifest.extend_from_slice(&(chunk as u32).to_le_bytes());
    if spoil == 7 {
        manifest.push(0);
    }
    let mut values = vec![(redis_key.to_owned(), manifest)];
    let pieces: Vec<&[u8]> = value.chunks(chunk).collect();
    for (index, piece) in pieces.iter().enumerate() {
        if spoil == 3 && index + 1 == pieces.len() {
            continue;
        }
        let piece = if spoil == 4 && index == 0 {
            &piece[..piece.len() - 1]
        } else {
            piece
        };
        values.push((format!("{redis_key}:{generation}:{index}"), piece.to_vec()));
    }
    Planted {
        values,
        whole: (spoil == 0).then_some(value),
    }
}

/// The `redis_cache` target.
pub fn redis_cache(data: &[u8]) {
    if data.len() > MAX_INPUT {
        return;
    }
    let Some(server) = redis_server() else {
        return;
    };
    static LEARNED: OnceLock<Learned> = OnceLock::new();
    let learned = LEARNED.get_or_init(|| learn(server));
    let mut connection = server.connection(DB);
    // What the stores of earlier inputs wrote goes; what they still write lands under
    // their own prefixes.
    let () = connection.run(&redis::cmd("FLUSHDB")).expect("FLUSHDB");
    let runtime = input_runtime();
    let store = runtime.block_on(store(&server.url(DB)));
    let redis_key = {
        let mut key = store.prefix().to_owned();
        for byte in Sha256::digest(&learned.cache_key) {
            key.push_str(&format!("{byte:02x}"));
        }
        key
    };
    let planted = plant(data, &redis_key, learned);
    for (key, value) in &planted.values {
        let () = connection
            .run(redis::cmd("SET").arg(key).arg(value))
            .expect("SET");
    }
    let network = Arc::new(Network::default());
    let fetched = runtime.block_on(async {
        let client = client(&store, &network);
        tokio::time::timeout(Duration::from_secs(5), async {
            let mut response = client.fetch(URL, RequestInit::default()).await?;
            let body = response.bytes().await;
            Ok::<_, whatwg_fetch::Error>((response.status(), body))
        })
        .await
    });
    let Ok(fetched) = fetched else {
        panic!("a fetch through the store took more than 5 seconds");
    };
    let (status, _body) = fetched.expect("the store's response or the network's");
    let stats = store.stats();
    assert!(stats.hits + stats.misses >= 1, "no read: {stats:?}");
    assert_eq!(stats.errors, 0, "{stats:?}");
    let from_the_store = network.sent.load(Ordering::SeqCst) == 0;
    if from_the_store {
        assert_eq!(stats.hits, 1, "a response without the network: {stats:?}");
        let whole = planted.whole.as_deref().unwrap_or_default();
        assert!(
            checks(&learned.cache_key, whole),
            "a response served from a value that does not check"
        );
        assert!(
            whole.len() <= MAX_RECORD_BYTES + 64 + learned.cache_key.len(),
            "a value of {} bytes served",
            whole.len()
        );
    } else {
        assert_eq!(status, 200);
    }
}
