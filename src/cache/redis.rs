//! [`RedisCacheStore`] (the `redis` feature): an [`HttpCacheStore`] on Redis that every
//! client of a fleet shares, so that a response one replica fetched is served to the others.
//!
//! It is built on the [`redis`](https://docs.rs/redis) crate (redis-rs) and its tokio
//! `ConnectionManager`: one multiplexed connection per store that reconnects by itself, a
//! plain command set (`GETRANGE`, `SET … PX`, `DEL`, `TOUCH`, `EVAL`) and the crate's
//! `rust-version`. `fred` was the other candidate: a larger client (pools, its own
//! reconnection policies, many features) than a cache of single-key reads and writes needs.
//! [`RedisCacheStore`]'s documentation says what the store guarantees.

use std::fmt;
use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use ::redis::aio::ConnectionManager;
use sha2::{Digest, Sha256};
use tokio::sync::mpsc;

use super::HttpCacheStore;
use crate::infra::redis::{self, QueueBudget};

/// The first bytes of a value, naming its layout.
const VALUE_MAGIC: &[u8; 8] = b"wfhc\x00\x00\x00\x01";

/// The first bytes of a chunked record's head: a [`Manifest`] naming its chunks.
const MANIFEST_MAGIC: &[u8; 8] = b"wfhm\x00\x00\x00\x01";

/// The bytes of a [`Manifest`]: the tag, the generation, the value's length (`u64`) and the
/// chunk size (`u32`), little-endian.
const MANIFEST_LEN: usize = MANIFEST_MAGIC.len() + GENERATION_LEN + 8 + 4;

/// The bytes of a generation: 16 hexadecimal digits.
const GENERATION_LEN: usize = 16;

/// The smallest chunk, so that a manifest names a bounded number of chunks.
const MIN_CHUNK_BYTES: usize = 4096;

/// The most chunks a manifest may name (a 16 MiB record in 4 KiB chunks; 32 in the default
/// 512 KiB ones); a manifest naming more is corrupt.
const MAX_CHUNKS: usize = 4096;

/// A chunk outlives its record's head by this much, so that a head never names a chunk
/// that expired before it; and a chunk of a record without an expiry has this one until
/// its head is written (which makes it lasting), so that the chunks of a write given up
/// halfway expire too.
const CHUNK_TTL_MARGIN_MS: u64 = 60_000;

/// Deletes a key only while it holds the value read (a corrupt one), so that a record
/// another replica wrote meanwhile stays: told by its length and SHA-1 (Redis's
/// `redis.sha1hex`), so that the value, which may be as large as a record, is not sent
/// back (nor kept in the write queue). Whoever can write to the Redis can replace the
/// value anyway: SHA-1 tells a value changed, which is all it is asked here.
///
/// KEYS: the key. ARGV: the value's length, and its SHA-1 in lowercase hex.
const DELETE_IF_UNCHANGED: &str = r"
if redis.call('STRLEN', KEYS[1]) == tonumber(ARGV[1])
  and redis.sha1hex(redis.call('GET', KEYS[1])) == ARGV[2] then
  return redis.call('DEL', KEYS[1])
end
return 0
";

/// Sets a key, and returns the first bytes of the value it replaced (nil for none, or one
/// that is not a string): as much as tells a manifest apart, where `SET … GET` would return
/// the whole value, which whoever else writes to the Redis may have made any size.
///
/// KEYS: the key, then for a value without an expiry, the chunks it names, which are
/// made lasting with it (they were written expiring, in case the write went no further).
/// ARGV: the value, its expiry in milliseconds (empty for none), and the index of the last
/// byte of the old value returned.
const SET_RETURNING_HEAD: &str = r"
local old = redis.pcall('GETRANGE', KEYS[1], 0, ARGV[3])
if ARGV[2] == '' then
  redis.call('SET', KEYS[1], ARGV[1])
  for i = 2, #KEYS do redis.call('PERSIST', KEYS[i]) end
else
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
end
if type(old) == 'string' and old ~= '' then return old end
return false
";

/// Deletes a key, and returns the first bytes of the value it held, as
/// [`SET_RETURNING_HEAD`] does (where `GETDEL` would return the whole value).
///
/// KEYS: the key. ARGV: the index of the last byte of the old value returned.
const DELETE_RETURNING_HEAD: &str = r"
local old = redis.pcall('GETRANGE', KEYS[1], 0, ARGV[1])
redis.call('DEL', KEYS[1])
if type(old) == 'string' and old ~= '' then return old end
return false
";

/// An [`HttpCacheStore`] on Redis, shared by every client (in this process or another)
/// given a store on the same Redis and prefix. Made with [`RedisCacheStore::builder`].
///
/// The client's cache still keeps what it uses in memory (at most
/// [`RedisCacheStoreBuilder::max_bytes`]), reads a key from Redis only when it holds nothing
/// for it, and writes every change through.
///
/// What it guarantees, and what it leaves to Redis:
///
/// - Keys are the store's prefix (default [`RedisCacheStore::DEFAULT_PREFIX`]) and the
///   SHA-256 of the cache key in hex; a value is a layout tag, a SHA-256 of the rest, the
///   cache key and the record. A value that does not check (truncated, corrupt, another
///   layout, or another key's) is a miss, and is deleted unless it changed meanwhile.
/// - A value larger than the chunk size ([`RedisCacheStoreBuilder::chunk_bytes`], default
///   512 KiB) is written in chunks, each a key of its own named after the record's key and
///   a generation new at each write, so that no Redis command moves more than a chunk and
///   Redis serves other clients between them. The record's key, written last and in one
///   `SET`, holds a manifest naming them: a reader sees the old record or the new one, never
///   a mix of both, and a chunk missing (replaced meanwhile, or evicted) is a miss. The
///   chunks a write replaces are deleted after it; chunks outlive their manifest by a
///   minute, and are written expiring (in a minute) for a record without an expiry, made
///   lasting with its head, so an unfinished write's chunks expire too.
/// - A read ([`get`](HttpCacheStore::get), awaited by a fetch before the network) is bounded by
///   the store's timeout (default [`RedisCacheStore::DEFAULT_TIMEOUT`]): an answer later
///   than that, or an error, is a miss, and the fetch goes to the network.
/// - What Redis holds is anyone's to write, so no reply is larger than the store's own
///   values: a read takes at most one byte more than the largest value the store writes for
///   the key (the record limit, [`RedisCacheStoreBuilder::max_record_bytes`], default
///   16 MiB, with the seal and the cache key), as one `GETRANGE` or as the chunks its
///   manifest names (each read no further than its length, the whole no more than that);
///   a larger value is a miss, counted as `oversized`. A write or a removal reads back
///   only the first 37 bytes of the value it replaces (a manifest's length and one more,
///   to find the chunks to delete), in one script with the `SET` or `DEL`; a `TOUCH`
///   reads as much of the head. Every other command answers with a status or a number.
/// - Writes (`put`, `touch`, `remove`) never wait for Redis: they are queued to the store's
///   own task through a queue bounded in writes
///   ([`RedisCacheStoreBuilder::write_queue`]) and in bytes
///   ([`RedisCacheStoreBuilder::write_queue_bytes`], default 64 MiB), and one that finds
///   it full is dropped (and counted). A corrupt value is deleted by its length and
///   SHA-1, not sent back.
///   The task writes them one at a time, in order, each bounded by the write timeout. It
///   runs on the Tokio runtime [`RedisCacheStoreBuilder::build`] was awaited on, and ends
///   when the store is dropped.
/// - Each record expires when its responses are of no more use (the time the cache gives
///   with [`HttpCacheStore::put_expiring`]; at most 2^31 seconds, as long as RFC 9111
///   §1.2.2 lets a `max-age` count for, and well within what Redis takes); a record over
///   the store's limit ([`RedisCacheStoreBuilder::max_record_bytes`]) is not written (and
///   an older one for the same key is removed).
/// - The total size across replicas is Redis's to bound: give the cache a dedicated instance
///   (or database) with `maxmemory` set and `maxmemory-policy allkeys-lru`, so that Redis
///   evicts the least recently used records when it is full (a local hit `TOUCH`es the
///   record, so the fleet's use counts).
/// - Every error and timeout is counted ([`RedisCacheStore::stats`]) and, with the
///   `tracing` feature, traced at DEBUG; none fails a fetch.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use std::time::Duration;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::cache::RedisCacheStore;
///
/// let store = RedisCacheStore::builder("redis://127.0.0.1:6379/0")
///     .prefix("my-service:http:")
///     .timeout(Duration::from_millis(20))
///     .build()
///     .await?;
/// let store = Arc::new(store);
/// let client = Client::builder().http_cache_store(store.clone()).build()?;
/// let text = client.get("https://example.com/").send().await?.text().await?;
/// println!("{text}\n{:?}", store.stats());
/// # Ok(())
/// # }
/// ```
pub struct RedisCacheStore {
    connection: ConnectionManager,
    prefix: String,
    timeout: Duration,
    max_bytes: usize,
    max_record_bytes: usize,
    writes: mpsc::Sender<Write>,
    /// The bytes of the writes in `writes` and being written.
    queued_bytes: Arc<QueueBudget>,
    counters: Arc<Counters>,
}

/// Builds a [`RedisCacheStore`]: from [`RedisCacheStore::builder`].
///
/// ```
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use whatwg_fetch::cache::RedisCacheStore;
///
/// // Needs a Redis on 127.0.0.1:6379.
/// let store = RedisCacheStore::builder("redis://127.0.0.1:6379/0")
///     .connect_timeout(Duration::from_secs(1))
///     .build()
///     .await?;
/// # let _ = store;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct RedisCacheStoreBuilder {
    url: String,
    prefix: String,
    timeout: Duration,
    write_timeout: Duration,
    connect_timeout: Duration,
    max_bytes: usize,
    max_record_bytes: usize,
    write_queue: usize,
    write_queue_bytes: usize,
    chunk_bytes: usize,
}

/// What a [`RedisCacheStore`] has done since it was made: [`RedisCacheStore::stats`].
///
/// ```
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use whatwg_fetch::cache::RedisCacheStore;
///
/// // Needs a Redis on 127.0.0.1:6379: figures for a metrics exporter.
/// let store = RedisCacheStore::builder("redis://127.0.0.1:6379/0").build().await?;
/// let stats = store.stats();
/// println!("hits {} misses {} errors {}", stats.hits, stats.misses, stats.errors);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RedisCacheStats {
    /// Reads that found a whole record.
    pub hits: u64,
    /// Reads that found nothing, or a value that did not check (see `corrupt`).
    pub misses: u64,
    /// Values that did not check (truncated, corrupt, another layout or key): misses, and
    /// deleted.
    pub corrupt: u64,
    /// Commands that failed or timed out (reads and writes).
    pub errors: u64,
    /// Writes dropped because the queue to the writing task was full (in writes or in
    /// bytes).
    pub dropped_writes: u64,
    /// Records not written because they were over the store's limit, and values in Redis
    /// not read because they were larger than any record under it.
    pub oversized: u64,
}

#[derive(Debug, Default)]
struct Counters {
    hits: AtomicU64,
    misses: AtomicU64,
    corrupt: AtomicU64,
    errors: AtomicU64,
    dropped_writes: AtomicU64,
    oversized: AtomicU64,
}

/// A write queued to the store's task: the Redis key, and what to do.
enum Write {
    /// `SET`, with an expiry in milliseconds when there is one.
    Put(String, Vec<u8>, Option<u64>),
    Touch(String),
    Remove(String),
    /// Deletes the key while it holds this (corrupt) value.
    RemoveCorrupt(String, Corrupt),
}

impl Write {
    /// The bytes the write holds while it waits: its key and its value, or what stands
    /// for one.
    fn bytes(&self) -> usize {
        match self {
            Write::Put(key, value, _) => key.len().saturating_add(value.len()),
            Write::Touch(key) | Write::Remove(key) => key.len(),
            Write::RemoveCorrupt(key, corrupt) => key.len().saturating_add(corrupt.sha1.len()),
        }
    }
}

/// A value that did not check, as [`DELETE_IF_UNCHANGED`] tells it: its length and SHA-1
/// (hex); and the manifest it is, when it is a chunked record's head, whose chunks go
/// after it.
struct Corrupt {
    len: usize,
    sha1: String,
    manifest: Option<Manifest>,
}

impl RedisCacheStore {
    /// The default prefix of the store's keys: `whatwg-fetch:cache:`.
    pub const DEFAULT_PREFIX: &'static str = "whatwg-fetch:cache:";
    /// The default bound on a read, after which it is a miss: 50 ms.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(50);
    /// The default bound on a write: 1 s.
    pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_secs(1);
    /// The default bound on connecting (in [`RedisCacheStoreBuilder::build`], and each
    /// reconnection): 1 s.
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
    /// The default largest record written: 16 MiB (a record holds a URL's responses, one
    /// per `Vary`'d request, each body at most 8 MiB).
    pub const DEFAULT_MAX_RECORD_BYTES: usize = 16 << 20;
    /// The default number of writes waiting for the store's task: 1,024.
    pub const DEFAULT_WRITE_QUEUE: usize = 1024;
    /// The default most bytes of writes (their values and keys) waiting for the store's
    /// task, or being written: 64 MiB, four records of the default largest, where 1,024
    /// of them would be 16 GiB.
    pub const DEFAULT_WRITE_QUEUE_BYTES: usize = 64 << 20;
    /// The default largest value written as one key, and the size of the chunks of a
    /// larger one: 512 KiB.
    pub const DEFAULT_CHUNK_BYTES: usize = 512 << 10;

    /// A builder for a store on the Redis at `url` (`redis://[[user]:password@]host[:port][/db]`,
    /// or `rediss://` with the redis crate's TLS features, or `redis+unix:///path`), with
    /// the defaults above.
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::cache::RedisCacheStore;
    ///
    /// let store = RedisCacheStore::builder("redis://127.0.0.1:6379/0").build().await?;
    /// let client = Client::builder().http_cache_store(Arc::new(store)).build()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn builder(url: impl Into<String>) -> RedisCacheStoreBuilder {
        RedisCacheStoreBuilder {
            url: url.into(),
            prefix: RedisCacheStore::DEFAULT_PREFIX.to_owned(),
            timeout: RedisCacheStore::DEFAULT_TIMEOUT,
            write_timeout: RedisCacheStore::DEFAULT_WRITE_TIMEOUT,
            connect_timeout: RedisCacheStore::DEFAULT_CONNECT_TIMEOUT,
            max_bytes: crate::fetch::http_cache::HttpCache::DEFAULT_MAX_BYTES,
            max_record_bytes: RedisCacheStore::DEFAULT_MAX_RECORD_BYTES,
            write_queue: RedisCacheStore::DEFAULT_WRITE_QUEUE,
            write_queue_bytes: RedisCacheStore::DEFAULT_WRITE_QUEUE_BYTES,
            chunk_bytes: RedisCacheStore::DEFAULT_CHUNK_BYTES,
        }
    }

    /// What the store has done since it was made: hits, misses, errors, dropped writes.
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     let (mut stream, _) = listener.accept().await.unwrap();
    /// #     let _ = stream.read(&mut [0; 4096]).await;
    /// #     let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncache-control: max-age=3600\r\n\
    /// #         content-length: 5\r\n\r\nhello").await;
    /// # });
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use std::sync::Arc;
    /// use std::time::Duration;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::cache::RedisCacheStore;
    ///
    /// let store = Arc::new(RedisCacheStore::builder("redis://127.0.0.1:6379/0").build().await?);
    /// // `url`: a server on 127.0.0.1 that answers once, cacheable for an hour.
    /// let replica = Client::builder().http_cache_store(store.clone()).build()?;
    /// assert_eq!(replica.get(&url).send().await?.text().await?, "hello");
    /// // The response is written behind the fetch: give the write a moment.
    /// tokio::time::sleep(Duration::from_millis(100)).await;
    ///
    /// // Another replica, its memory empty, is served from Redis.
    /// let other = Client::builder().http_cache_store(store.clone()).build()?;
    /// assert_eq!(other.get(&url).send().await?.text().await?, "hello");
    /// let stats = store.stats();
    /// assert_eq!((stats.misses, stats.hits, stats.errors), (1, 1, 0));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn stats(&self) -> RedisCacheStats {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        let counters = &*self.counters;
        RedisCacheStats {
            hits: load(&counters.hits),
            misses: load(&counters.misses),
            corrupt: load(&counters.corrupt),
            errors: load(&counters.errors),
            dropped_writes: load(&counters.dropped_writes),
            oversized: load(&counters.oversized),
        }
    }

    /// The prefix of the store's keys.
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use whatwg_fetch::cache::RedisCacheStore;
    ///
    /// let store = RedisCacheStore::builder("redis://127.0.0.1:6379/0").build().await?;
    /// assert_eq!(store.prefix(), RedisCacheStore::DEFAULT_PREFIX);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn prefix(&self) -> &str {
        &self.prefix
    }

    /// The Redis key of a cache key: the prefix and the SHA-256 of the cache key, in hex.
    fn redis_key(&self, key: &str) -> String {
        let mut redis_key = String::with_capacity(self.prefix.len() + 64);
        redis_key.push_str(&self.prefix);
        for byte in Sha256::digest(key.as_bytes()) {
            redis_key.push(char::from(HEX[usize::from(byte >> 4)]));
            redis_key.push(char::from(HEX[usize::from(byte & 0xf)]));
        }
        redis_key
    }

    /// Queues `write` for the store's task; a full queue (in writes or in bytes) drops it.
    fn queue(&self, write: Write) {
        let bytes = write.bytes();
        let queued = self.queued_bytes.take(bytes)
            && match self.writes.try_send(write) {
                Ok(()) => true,
                Err(_) => {
                    self.queued_bytes.release(bytes);
                    false
                }
            };
        if !queued {
            self.counters.dropped_writes.fetch_add(1, Ordering::Relaxed);
            #[cfg(feature = "tracing")]
            tracing::debug!(
                target: "whatwg_fetch::cache::redis",
                "Redis cache store: write queue full, write dropped"
            );
        }
    }
}

impl fmt::Debug for RedisCacheStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisCacheStore")
            .field("prefix", &self.prefix)
            .field("timeout", &self.timeout)
            .field("max_bytes", &self.max_bytes)
            .field("max_record_bytes", &self.max_record_bytes)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl RedisCacheStoreBuilder {
    /// The prefix of every key the store writes. Stores with the same prefix on the same
    /// Redis share their records. Default: [`RedisCacheStore::DEFAULT_PREFIX`].
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use whatwg_fetch::cache::RedisCacheStore;
    ///
    /// // The replicas of this service share one cache, apart from other services' on this Redis.
    /// let store = RedisCacheStore::builder("redis://127.0.0.1:6379/0")
    ///     .prefix("my-service:http:")
    ///     .build()
    ///     .await?;
    /// assert_eq!(store.prefix(), "my-service:http:");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn prefix(mut self, prefix: impl Into<String>) -> RedisCacheStoreBuilder {
        self.prefix = prefix.into();
        self
    }

    /// How long a fetch waits for Redis to answer a read before it goes to the network.
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use std::time::Duration;
    /// use whatwg_fetch::cache::RedisCacheStore;
    ///
    /// // A Redis in the same rack: a read slower than 10 ms is a miss, and the fetch goes on.
    /// let store = RedisCacheStore::builder("redis://127.0.0.1:6379/0")
    ///     .timeout(Duration::from_millis(10))
    ///     .build()
    ///     .await?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default: [`RedisCacheStore::DEFAULT_TIMEOUT`] (50 ms).
    pub fn timeout(mut self, timeout: Duration) -> RedisCacheStoreBuilder {
        self.timeout = timeout;
        self
    }

    /// How long the store's task waits for a write before it counts an error and goes on
    /// to the next. Default: [`RedisCacheStore::DEFAULT_WRITE_TIMEOUT`] (1 s).
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use std::time::Duration;
    /// use whatwg_fetch::cache::RedisCacheStore;
    ///
    /// // A busy Redis: each write has 5 s before it counts as an error.
    /// let store = RedisCacheStore::builder("redis://127.0.0.1:6379/0")
    ///     .write_timeout(Duration::from_secs(5))
    ///     .build()
    ///     .await?;
    /// println!("{} errors so far", store.stats().errors);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn write_timeout(mut self, timeout: Duration) -> RedisCacheStoreBuilder {
        self.write_timeout = timeout;
        self
    }

    /// How long connecting to Redis may take, in [`build`](Self::build) and each time the
    /// connection is made again. Default: [`RedisCacheStore::DEFAULT_CONNECT_TIMEOUT`] (1 s).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use std::time::Duration;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::cache::RedisCacheStore;
    ///
    /// // With no Redis within 200 ms at start-up, a cache of this client's own.
    /// let store = RedisCacheStore::builder("redis://127.0.0.1:6379/0")
    ///     .connect_timeout(Duration::from_millis(200))
    ///     .build()
    ///     .await;
    /// let client = match store {
    ///     Ok(store) => Client::builder().http_cache_store(Arc::new(store)).build()?,
    ///     Err(error) => {
    ///         eprintln!("no shared cache: {error}");
    ///         Client::new()
    ///     }
    /// };
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn connect_timeout(mut self, timeout: Duration) -> RedisCacheStoreBuilder {
        self.connect_timeout = timeout;
        self
    }

    /// The most bytes of responses the client's cache keeps in its own memory (see
    /// [`HttpCacheStore::max_bytes`]); Redis holds what it is given room for. Default:
    /// 64 MiB, the cache's default.
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use whatwg_fetch::cache::{HttpCacheStore, RedisCacheStore};
    ///
    /// // Each replica keeps 16 MiB of responses in its memory; Redis holds what it has room for.
    /// let store = RedisCacheStore::builder("redis://127.0.0.1:6379/0")
    ///     .max_bytes(16 << 20)
    ///     .build()
    ///     .await?;
    /// assert_eq!(store.max_bytes(), 16 << 20);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn max_bytes(mut self, max_bytes: usize) -> RedisCacheStoreBuilder {
        self.max_bytes = max_bytes;
        self
    }

    /// The largest record (a URL's responses) written to Redis; a larger one is not, and
    /// its key's older record is removed. Default:
    /// [`RedisCacheStore::DEFAULT_MAX_RECORD_BYTES`] (16 MiB).
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use whatwg_fetch::cache::RedisCacheStore;
    ///
    /// // Large downloads stay out of Redis: a URL's responses are shared up to 1 MiB.
    /// let store = RedisCacheStore::builder("redis://127.0.0.1:6379/0")
    ///     .max_record_bytes(1 << 20)
    ///     .build()
    ///     .await?;
    /// println!("{} records too large to share", store.stats().oversized);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn max_record_bytes(mut self, max_record_bytes: usize) -> RedisCacheStoreBuilder {
        self.max_record_bytes = max_record_bytes;
        self
    }

    /// How many writes may wait for the store's task; one more is dropped. Default:
    /// [`RedisCacheStore::DEFAULT_WRITE_QUEUE`] (1,024); at least 1. The bytes they hold
    /// are bounded too: [`write_queue_bytes`](Self::write_queue_bytes).
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use whatwg_fetch::cache::RedisCacheStore;
    ///
    /// // At most 256 writes wait for a slow Redis; more are dropped, and counted.
    /// let store = RedisCacheStore::builder("redis://127.0.0.1:6379/0")
    ///     .write_queue(256)
    ///     .build()
    ///     .await?;
    /// println!("{} writes dropped", store.stats().dropped_writes);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn write_queue(mut self, writes: usize) -> RedisCacheStoreBuilder {
        self.write_queue = writes.max(1);
        self
    }

    /// How many bytes of writes (the records, or what stands for them, and their keys) may
    /// wait for the store's task, the one being written included; a write that would pass
    /// them is dropped (and counted in [`RedisCacheStats::dropped_writes`]), unless none
    /// waits: a record larger than this is still written, alone. Where
    /// [`write_queue`](Self::write_queue) bounds the writes a slow Redis leaves waiting,
    /// this bounds the memory they take. Default:
    /// [`RedisCacheStore::DEFAULT_WRITE_QUEUE_BYTES`] (64 MiB).
    ///
    /// ```no_run
    /// # async fn run() -> std::io::Result<()> {
    /// use whatwg_fetch::cache::RedisCacheStore;
    ///
    /// // Records of up to 1 MiB, and at most 8 MiB of them waiting for Redis.
    /// let store = RedisCacheStore::builder("redis://127.0.0.1:6379/0")
    ///     .max_record_bytes(1 << 20)
    ///     .write_queue_bytes(8 << 20)
    ///     .build()
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn write_queue_bytes(mut self, bytes: usize) -> RedisCacheStoreBuilder {
        self.write_queue_bytes = bytes;
        self
    }

    /// The largest value written as one Redis key; a larger one is written in chunks of
    /// this size, under a manifest (see [`RedisCacheStore`]). Default:
    /// [`RedisCacheStore::DEFAULT_CHUNK_BYTES`] (512 KiB); at least 4 KiB, and large
    /// enough that a record is at most 4,096 chunks.
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use whatwg_fetch::cache::RedisCacheStore;
    ///
    /// // A Redis serving many small requests: no command moves more than 64 KiB of a record.
    /// let store = RedisCacheStore::builder("redis://127.0.0.1:6379/0")
    ///     .chunk_bytes(64 << 10)
    ///     .build()
    ///     .await?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn chunk_bytes(mut self, chunk_bytes: usize) -> RedisCacheStoreBuilder {
        self.chunk_bytes = chunk_bytes;
        self
    }

    /// Connects to Redis and starts the store's writing task, on the current Tokio runtime
    /// (the store's connection and task live there: keep that runtime running while the
    /// store is used).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::io::ErrorKind;
    /// use whatwg_fetch::cache::RedisCacheStore;
    ///
    /// // Refused before connecting: not a Redis URL. The error names it, without its password.
    /// let built = RedisCacheStore::builder("https://user:s3cret@cache.internal/").build().await;
    /// let Err(error) = built else {
    ///     panic!("a store on an https: URL");
    /// };
    /// assert_eq!(error.kind(), ErrorKind::InvalidInput);
    /// assert!(error.to_string().contains("https://user:***@cache.internal/"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// An I/O error naming the URL (without its password) when the URL is not a Redis URL
    /// (`InvalidInput`), when there is no Tokio runtime (`Other`), or when Redis cannot be
    /// reached within the connect timeout (`TimedOut`, or the connection's error).
    pub async fn build(self) -> io::Result<RedisCacheStore> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| io::Error::other("RedisCacheStore::build must run on a Tokio runtime"))?;
        let connection = redis::connect("RedisCacheStore", &self.url, self.connect_timeout).await?;
        let counters = Arc::new(Counters::default());
        let queued_bytes = Arc::new(QueueBudget::new(self.write_queue_bytes));
        let (writes, queue) = mpsc::channel(self.write_queue);
        // Chunks small enough to keep the manifest's bound, and no smaller than the least.
        let most = self.max_record_bytes.saturating_add(1 << 16);
        let chunk_bytes = self
            .chunk_bytes
            .max(MIN_CHUNK_BYTES)
            .max(most.div_ceil(MAX_CHUNKS));
        runtime.spawn(write_behind(
            connection.clone(),
            queue,
            Arc::clone(&queued_bytes),
            self.write_timeout,
            chunk_bytes,
            Arc::clone(&counters),
        ));
        Ok(RedisCacheStore {
            connection,
            prefix: self.prefix,
            timeout: self.timeout,
            max_bytes: self.max_bytes,
            max_record_bytes: self.max_record_bytes,
            writes,
            queued_bytes,
            counters,
        })
    }
}

impl HttpCacheStore for RedisCacheStore {
    /// Nothing: a shared store is read key by key, when a request asks for one.
    fn load(&self) -> Vec<(String, Vec<u8>)> {
        Vec::new()
    }

    fn put(&self, key: &str, record: &[u8]) -> io::Result<()> {
        self.put_expiring(key, record, None)
    }

    fn put_expiring(&self, key: &str, record: &[u8], ttl: Option<Duration>) -> io::Result<()> {
        let redis_key = self.redis_key(key);
        if record.len() > self.max_record_bytes {
            self.counters.oversized.fetch_add(1, Ordering::Relaxed);
            self.queue(Write::Remove(redis_key));
            return Ok(());
        }
        let ttl = match ttl {
            // Of no more use to anyone: what is there goes.
            Some(ttl) if ttl.is_zero() => {
                self.queue(Write::Remove(redis_key));
                return Ok(());
            }
            // As long as Redis takes: 2^31 seconds at most.
            Some(ttl) => Some(redis::expiry_millis(ttl)),
            None => None,
        };
        self.queue(Write::Put(redis_key, seal(key, record), ttl));
        Ok(())
    }

    fn touch(&self, key: &str) -> io::Result<()> {
        self.queue(Write::Touch(self.redis_key(key)));
        Ok(())
    }

    fn remove(&self, key: &str) -> io::Result<()> {
        self.queue(Write::Remove(self.redis_key(key)));
        Ok(())
    }

    fn max_bytes(&self) -> usize {
        self.max_bytes
    }

    fn is_shared(&self) -> bool {
        true
    }

    fn get<'a>(
        &'a self,
        key: &'a str,
    ) -> Pin<Box<dyn Future<Output = Option<Vec<u8>>> + Send + 'a>> {
        Box::pin(async move {
            let redis_key = self.redis_key(key);
            let mut connection = self.connection.clone();
            // At most one byte more than the largest value the store writes for `key`:
            // what Redis holds is read no further than that, whatever it is.
            let most = sealed_len(key, self.max_record_bytes).max(MANIFEST_LEN);
            let read = read_value(&mut connection, &redis_key, most);
            let (value, manifest) = match tokio::time::timeout(self.timeout, read).await {
                Ok(Ok(read)) => read,
                Ok(Err(error)) => {
                    count_error(&self.counters, "GET", &error);
                    return None;
                }
                Err(_) => {
                    count_error(&self.counters, "GET", &"timed out");
                    return None;
                }
            };
            let value = match value {
                // An absent key reads as empty, which no value the store writes is; a
                // chunk missing is a record replaced or evicted meanwhile.
                Read::Absent | Read::ChunkMissing => {
                    self.counters.misses.fetch_add(1, Ordering::Relaxed);
                    return None;
                }
                Read::Oversized => {
                    // Larger than the store writes: not read, and a miss.
                    self.counters.misses.fetch_add(1, Ordering::Relaxed);
                    self.counters.oversized.fetch_add(1, Ordering::Relaxed);
                    return None;
                }
                Read::Value(value) => value,
            };
            match unseal(key, &value) {
                Some(record) => {
                    self.counters.hits.fetch_add(1, Ordering::Relaxed);
                    Some(record.to_vec())
                }
                None => {
                    self.counters.misses.fetch_add(1, Ordering::Relaxed);
                    self.counters.corrupt.fetch_add(1, Ordering::Relaxed);
                    #[cfg(feature = "tracing")]
                    tracing::debug!(
                        target: "whatwg_fetch::cache::redis",
                        key = %redis_key,
                        "Redis cache store: a value that does not check, deleted"
                    );
                    // A chunked record's head is its manifest.
                    let head = manifest.as_ref().map_or(value, Manifest::encode);
                    let corrupt = Corrupt {
                        len: head.len(),
                        sha1: redis::sha1_hex(&head),
                        manifest,
                    };
                    self.queue(Write::RemoveCorrupt(redis_key, corrupt));
                    None
                }
            }
        })
    }
}

/// What reading a record's key found.
enum Read {
    Absent,
    /// A value longer than the store writes for the key.
    Oversized,
    /// A chunked record one of whose chunks is gone or not the length its manifest says.
    ChunkMissing,
    /// The value, its chunks joined.
    Value(Vec<u8>),
}

/// Reads the value at `key`, at most `most` bytes of it, its chunks joined when it is a
/// chunked record's manifest (which is returned too).
async fn read_value(
    connection: &mut ConnectionManager,
    key: &str,
    most: usize,
) -> Result<(Read, Option<Manifest>), ::redis::RedisError> {
    let mut command = ::redis::cmd("GETRANGE");
    command.arg(key).arg(0).arg(most);
    let head: Vec<u8> = command.query_async(connection).await?;
    if head.is_empty() {
        return Ok((Read::Absent, None));
    }
    if head.len() > most {
        return Ok((Read::Oversized, None));
    }
    let Some(manifest) = Manifest::decode(&head) else {
        return Ok((Read::Value(head), None));
    };
    if manifest.total > most {
        return Ok((Read::Oversized, Some(manifest)));
    }
    // Each chunk read no further than its length, all in one round trip.
    let mut pipe = ::redis::pipe();
    for (chunk_key, length) in manifest.chunks(key) {
        pipe.cmd("GETRANGE")
            .arg(chunk_key)
            .arg(0)
            .arg(length.saturating_sub(1));
    }
    let chunks: Vec<Vec<u8>> = pipe.query_async(connection).await?;
    let lengths: Vec<usize> = manifest.chunks(key).map(|(_, length)| length).collect();
    if chunks.len() != lengths.len()
        || chunks
            .iter()
            .zip(&lengths)
            .any(|(chunk, &length)| chunk.len() != length)
    {
        return Ok((Read::ChunkMissing, Some(manifest)));
    }
    Ok((Read::Value(chunks.concat()), Some(manifest)))
}

/// The head of a chunked record: its chunks are `<key>:<generation>:<index>`, `chunk`
/// bytes each but the last, `total` bytes in all.
#[derive(Clone, Debug, PartialEq, Eq)]
struct Manifest {
    generation: [u8; GENERATION_LEN],
    total: usize,
    chunk: usize,
}

impl Manifest {
    /// A manifest for a value of `total` bytes in chunks of `chunk`, with a generation of
    /// its own.
    fn new(total: usize, chunk: usize) -> Manifest {
        static WRITES: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |since| since.as_nanos());
        let mut hasher = Sha256::new();
        hasher.update(nanos.to_le_bytes());
        hasher.update(std::process::id().to_le_bytes());
        hasher.update(WRITES.fetch_add(1, Ordering::Relaxed).to_le_bytes());
        let mut generation = [0; GENERATION_LEN];
        for (digit, byte) in generation.chunks_mut(2).zip(hasher.finalize()) {
            if let [high, low] = digit {
                *high = HEX[usize::from(byte >> 4)];
                *low = HEX[usize::from(byte & 0xf)];
            }
        }
        Manifest {
            generation,
            total,
            chunk,
        }
    }

    fn encode(&self) -> Vec<u8> {
        let mut value = Vec::with_capacity(MANIFEST_LEN);
        value.extend_from_slice(MANIFEST_MAGIC);
        value.extend_from_slice(&self.generation);
        value.extend_from_slice(&(self.total as u64).to_le_bytes());
        value.extend_from_slice(&u32::try_from(self.chunk).unwrap_or(u32::MAX).to_le_bytes());
        value
    }

    /// The manifest `value` is, if it is one whose chunks are within the bounds.
    fn decode(value: &[u8]) -> Option<Manifest> {
        if value.len() != MANIFEST_LEN {
            return None;
        }
        let rest = value.strip_prefix(MANIFEST_MAGIC.as_slice())?;
        let (generation, rest) = rest.split_at_checked(GENERATION_LEN)?;
        let (total, chunk) = rest.split_at_checked(8)?;
        let total = usize::try_from(u64::from_le_bytes(total.try_into().ok()?)).ok()?;
        let chunk = usize::try_from(u32::from_le_bytes(chunk.try_into().ok()?)).ok()?;
        if !generation.iter().all(u8::is_ascii_hexdigit)
            || chunk < MIN_CHUNK_BYTES
            || total <= chunk
            || total.div_ceil(chunk) > MAX_CHUNKS
        {
            return None;
        }
        Some(Manifest {
            generation: generation.try_into().ok()?,
            total,
            chunk,
        })
    }

    /// Each chunk's key and length, for the record at `key`.
    fn chunks<'a>(&'a self, key: &'a str) -> impl Iterator<Item = (String, usize)> + 'a {
        let generation = String::from_utf8_lossy(&self.generation);
        (0..self.total.div_ceil(self.chunk)).map(move |index| {
            let start = index.saturating_mul(self.chunk);
            let length = self.chunk.min(self.total.saturating_sub(start));
            (format!("{key}:{generation}:{index}"), length)
        })
    }
}

/// The store's task: the queued writes, one at a time and in order, until the store (the
/// queue's sender) is dropped.
async fn write_behind(
    mut connection: ConnectionManager,
    mut queue: mpsc::Receiver<Write>,
    queued_bytes: Arc<QueueBudget>,
    timeout: Duration,
    chunk_bytes: usize,
    counters: Arc<Counters>,
) {
    while let Some(write) = queue.recv().await {
        let bytes = write.bytes();
        let mut writer = Writer {
            connection: &mut connection,
            timeout,
        };
        let written = match write {
            Write::Put(key, value, ttl) => writer.put(&key, value, ttl, chunk_bytes).await,
            Write::Touch(key) => writer.touch(&key).await,
            Write::Remove(key) => writer.remove(&key).await,
            Write::RemoveCorrupt(key, corrupt) => writer.remove_corrupt(&key, corrupt).await,
        };
        queued_bytes.release(bytes);
        if let Err((command, error)) = written {
            count_error(&counters, command, &error);
        }
    }
}

/// A failed command's name and error.
type Failed = (&'static str, String);

/// The store's task's writes, each command bounded by the write timeout.
struct Writer<'a> {
    connection: &'a mut ConnectionManager,
    timeout: Duration,
}

impl Writer<'_> {
    async fn run<T: ::redis::FromRedisValue>(
        &mut self,
        name: &'static str,
        command: &::redis::Cmd,
    ) -> Result<T, Failed> {
        let run = command.query_async(&mut *self.connection);
        match tokio::time::timeout(self.timeout, run).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => Err((name, error.to_string())),
            Err(_) => Err((name, "timed out".to_owned())),
        }
    }

    /// Writes `value` at `key`, in chunks under a manifest when it is larger than
    /// `chunk_bytes`, the manifest (or the value) last; then deletes the chunks of the
    /// record it replaced.
    async fn put(
        &mut self,
        key: &str,
        value: Vec<u8>,
        ttl: Option<u64>,
        chunk_bytes: usize,
    ) -> Result<(), Failed> {
        let (head, manifest) = if value.len() <= chunk_bytes {
            (value, None)
        } else {
            let manifest = Manifest::new(value.len(), chunk_bytes);
            if Manifest::decode(&manifest.encode()).is_none() {
                // More chunks than a manifest may name (a cache key of tens of KiB).
                return Err(("SET", "a record too large to write in chunks".to_owned()));
            }
            // Expiring, a record without an expiry's too, until the head is written.
            let chunk_ttl = ttl.map_or(CHUNK_TTL_MARGIN_MS, |ttl| {
                ttl.saturating_add(CHUNK_TTL_MARGIN_MS)
            });
            for ((chunk_key, _), piece) in manifest.chunks(key).zip(value.chunks(chunk_bytes)) {
                let mut command = ::redis::cmd("SET");
                command.arg(&chunk_key).arg(piece).arg("PX").arg(chunk_ttl);
                if let Err(failed) = self.run::<()>("SET", &command).await {
                    // What was written of this record goes (or expires) with it.
                    let _ = self.delete_chunks(key, &manifest).await;
                    return Err(failed);
                }
            }
            (manifest.encode(), Some(manifest))
        };
        // `SET … GET` would read back the whole value replaced, which may be any size.
        // Without an expiry, the chunks are made lasting with the head.
        let lasting: Vec<String> = match (&manifest, ttl) {
            (Some(manifest), None) => manifest.chunks(key).map(|(chunk, _)| chunk).collect(),
            _ => Vec::new(),
        };
        let mut command = ::redis::cmd("EVAL");
        command
            .arg(SET_RETURNING_HEAD)
            .arg(1 + lasting.len())
            .arg(key)
            .arg(&lasting)
            .arg(head)
            .arg(ttl.map(|ttl| ttl.to_string()).unwrap_or_default())
            .arg(MANIFEST_LEN);
        let replaced: Option<Vec<u8>> = self.run("SET", &command).await?;
        match replaced.as_deref().and_then(Manifest::decode) {
            Some(old) if Some(&old) != manifest.as_ref() => self.delete_chunks(key, &old).await,
            _ => Ok(()),
        }
    }

    /// Marks `key` (and a chunked record's chunks) as used, for Redis's LRU eviction:
    /// reading the head is itself a use.
    async fn touch(&mut self, key: &str) -> Result<(), Failed> {
        let mut command = ::redis::cmd("GETRANGE");
        command.arg(key).arg(0).arg(MANIFEST_LEN);
        let head: Vec<u8> = self.run("GETRANGE", &command).await?;
        let Some(manifest) = Manifest::decode(&head) else {
            return Ok(());
        };
        let keys: Vec<String> = manifest
            .chunks(key)
            .map(|(chunk_key, _)| chunk_key)
            .collect();
        for batch in keys.chunks(256) {
            let mut command = ::redis::cmd("TOUCH");
            command.arg(batch);
            self.run::<i64>("TOUCH", &command).await?;
        }
        Ok(())
    }

    /// Deletes `key`, and a chunked record's chunks.
    async fn remove(&mut self, key: &str) -> Result<(), Failed> {
        // `GETDEL` would read back the whole value, which may be any size.
        let mut command = ::redis::cmd("EVAL");
        command
            .arg(DELETE_RETURNING_HEAD)
            .arg(1)
            .arg(key)
            .arg(MANIFEST_LEN);
        let removed: Option<Vec<u8>> = self.run("DEL", &command).await?;
        match removed.as_deref().and_then(Manifest::decode) {
            Some(manifest) => self.delete_chunks(key, &manifest).await,
            None => Ok(()),
        }
    }

    /// Deletes `key` while it holds the `corrupt` value (a corrupt record, or the manifest
    /// of one), and then the manifest's chunks.
    async fn remove_corrupt(&mut self, key: &str, corrupt: Corrupt) -> Result<(), Failed> {
        let mut command = ::redis::cmd("EVAL");
        command
            .arg(DELETE_IF_UNCHANGED)
            .arg(1)
            .arg(key)
            .arg(corrupt.len)
            .arg(&corrupt.sha1);
        let deleted: i64 = self.run("EVAL", &command).await?;
        match corrupt.manifest {
            Some(manifest) if deleted == 1 => self.delete_chunks(key, &manifest).await,
            _ => Ok(()),
        }
    }

    /// Deletes the chunks `manifest` names for the record at `key`.
    async fn delete_chunks(&mut self, key: &str, manifest: &Manifest) -> Result<(), Failed> {
        let keys: Vec<String> = manifest
            .chunks(key)
            .map(|(chunk_key, _)| chunk_key)
            .collect();
        for batch in keys.chunks(256) {
            let mut command = ::redis::cmd("DEL");
            command.arg(batch);
            self.run::<i64>("DEL", &command).await?;
        }
        Ok(())
    }
}

/// Counts a failed command and traces it (the `tracing` feature) at DEBUG.
fn count_error(counters: &Counters, command: &'static str, error: &dyn fmt::Display) {
    counters.errors.fetch_add(1, Ordering::Relaxed);
    #[cfg(feature = "tracing")]
    tracing::debug!(
        target: "whatwg_fetch::cache::redis",
        command,
        %error,
        "Redis cache store: command failed"
    );
    #[cfg(not(feature = "tracing"))]
    let _ = (command, error);
}

const HEX: &[u8; 16] = b"0123456789abcdef";

/// A value as the store writes it: [`VALUE_MAGIC`], the SHA-256 of the rest, and the rest:
/// the cache key's length (a little-endian `u64`), the cache key and the record.
fn seal(key: &str, record: &[u8]) -> Vec<u8> {
    let mut rest = Vec::with_capacity(8 + key.len() + record.len());
    rest.extend_from_slice(&(key.len() as u64).to_le_bytes());
    rest.extend_from_slice(key.as_bytes());
    rest.extend_from_slice(record);
    let mut value = Vec::with_capacity(VALUE_MAGIC.len() + 32 + rest.len());
    value.extend_from_slice(VALUE_MAGIC);
    value.extend_from_slice(&Sha256::digest(&rest));
    value.extend_from_slice(&rest);
    value
}

/// The length of the value [`seal`] writes for `key` and a record of `record_len` bytes.
fn sealed_len(key: &str, record_len: usize) -> usize {
    (VALUE_MAGIC.len() + 32 + 8)
        .saturating_add(key.len())
        .saturating_add(record_len)
}

/// The record of a value [`seal`] wrote for `key`, or `None` when the value does not check.
fn unseal<'a>(key: &str, value: &'a [u8]) -> Option<&'a [u8]> {
    let value = value.strip_prefix(VALUE_MAGIC.as_slice())?;
    let (hash, rest) = value.split_at_checked(32)?;
    if Sha256::digest(rest).as_slice() != hash {
        return None;
    }
    let (length, rest) = rest.split_at_checked(8)?;
    let length = usize::try_from(u64::from_le_bytes(length.try_into().ok()?)).ok()?;
    let (stored_key, record) = rest.split_at_checked(length)?;
    (stored_key == key.as_bytes()).then_some(record)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sealed_value_opens_only_whole_and_for_its_own_key() {
        let value = seal("a http://example.com/", b"record");
        assert_eq!(
            unseal("a http://example.com/", &value),
            Some(&b"record"[..])
        );
        assert_eq!(unseal("c http://example.com/", &value), None);
        for length in 0..value.len() {
            assert_eq!(unseal("a http://example.com/", &value[..length]), None);
        }
        let mut flipped = value.clone();
        if let Some(last) = flipped.last_mut() {
            *last ^= 1;
        }
        assert_eq!(unseal("a http://example.com/", &flipped), None);
    }

    #[test]
    fn a_manifest_reads_back_and_names_chunks_that_add_up() {
        let manifest = Manifest::new(10_000, 4096);
        let value = manifest.encode();
        assert_eq!(value.len(), MANIFEST_LEN);
        assert_eq!(Manifest::decode(&value), Some(manifest.clone()));
        let chunks: Vec<(String, usize)> = manifest.chunks("k").collect();
        let generation = String::from_utf8_lossy(&manifest.generation).into_owned();
        assert_eq!(
            chunks,
            [
                (format!("k:{generation}:0"), 4096),
                (format!("k:{generation}:1"), 4096),
                (format!("k:{generation}:2"), 1808)
            ]
        );
        assert_ne!(Manifest::new(10_000, 4096).generation, manifest.generation);
        // Truncated, too small a chunk, too many chunks, or not larger than one chunk.
        assert_eq!(Manifest::decode(&value[..MANIFEST_LEN - 1]), None);
        for (total, chunk) in [(10_000, 4095), (4096 * 4097, 4096), (4096, 4096)] {
            let bad = Manifest {
                total,
                chunk,
                ..manifest.clone()
            };
            assert_eq!(Manifest::decode(&bad.encode()), None, "{total} {chunk}");
        }
    }
}
