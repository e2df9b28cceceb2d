//! [`RedisCacheStore`] (the `redis` feature): an [`HttpCacheStore`] on Redis that every
//! client of a fleet shares, so that a response one replica fetched is served to the others.
//!
//! It is built on the [`redis`](https://docs.rs/redis) crate (redis-rs) and its tokio
//! `ConnectionManager`: one multiplexed connection per store that reconnects by itself, a
//! plain command set (`GET`, `SET … PX`, `DEL`, `TOUCH`, `EVAL`) and the crate's
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
use crate::infra::redis;

/// The first bytes of a value, naming its layout.
const VALUE_MAGIC: &[u8; 8] = b"wfhc\x00\x00\x00\x01";

/// Deletes a key only while it holds the value read (a corrupt one), so that a record
/// another replica wrote meanwhile stays.
const DELETE_IF_UNCHANGED: &str =
    "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end return 0";

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
/// - A read ([`get`](HttpCacheStore::get), awaited by a fetch before the network) is bounded by
///   the store's timeout (default [`RedisCacheStore::DEFAULT_TIMEOUT`]): an answer later
///   than that, or an error, is a miss, and the fetch goes to the network.
/// - Writes (`put`, `touch`, `remove`) never wait for Redis: they are queued to the store's
///   own task through a bounded queue, and one that finds it full is dropped (and counted).
///   The task writes them one at a time, in order, each bounded by the write timeout. It
///   runs on the Tokio runtime [`RedisCacheStoreBuilder::build`] was awaited on, and ends
///   when the store is dropped.
/// - Each record expires when its responses are of no more use (the time the cache gives
///   with [`HttpCacheStore::put_expiring`]); a record over the store's limit
///   ([`RedisCacheStoreBuilder::max_record_bytes`]) is not written (and an older one for the
///   same key is removed).
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
    counters: Arc<Counters>,
}

/// Builds a [`RedisCacheStore`]: from [`RedisCacheStore::builder`].
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
}

/// What a [`RedisCacheStore`] has done since it was made: [`RedisCacheStore::stats`].
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
    /// Writes dropped because the queue to the writing task was full.
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
    RemoveCorrupt(String, Vec<u8>),
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

    /// A builder for a store on the Redis at `url` (`redis://[[user]:password@]host[:port][/db]`,
    /// or `rediss://` with the redis crate's TLS features, or `redis+unix:///path`), with
    /// the defaults above.
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
        }
    }

    /// What the store has done since it was made: hits, misses, errors, dropped writes.
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

    /// Queues `write` for the store's task; a full queue drops it.
    fn queue(&self, write: Write) {
        if self.writes.try_send(write).is_err() {
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
    pub fn prefix(mut self, prefix: impl Into<String>) -> RedisCacheStoreBuilder {
        self.prefix = prefix.into();
        self
    }

    /// How long a fetch waits for Redis to answer a read before it goes to the network.
    /// Default: [`RedisCacheStore::DEFAULT_TIMEOUT`] (50 ms).
    pub fn timeout(mut self, timeout: Duration) -> RedisCacheStoreBuilder {
        self.timeout = timeout;
        self
    }

    /// How long the store's task waits for a write before it counts an error and goes on
    /// to the next. Default: [`RedisCacheStore::DEFAULT_WRITE_TIMEOUT`] (1 s).
    pub fn write_timeout(mut self, timeout: Duration) -> RedisCacheStoreBuilder {
        self.write_timeout = timeout;
        self
    }

    /// How long connecting to Redis may take, in [`build`](Self::build) and each time the
    /// connection is made again. Default: [`RedisCacheStore::DEFAULT_CONNECT_TIMEOUT`] (1 s).
    pub fn connect_timeout(mut self, timeout: Duration) -> RedisCacheStoreBuilder {
        self.connect_timeout = timeout;
        self
    }

    /// The most bytes of responses the client's cache keeps in its own memory (see
    /// [`HttpCacheStore::max_bytes`]); Redis holds what it is given room for. Default:
    /// 64 MiB, the cache's default.
    pub fn max_bytes(mut self, max_bytes: usize) -> RedisCacheStoreBuilder {
        self.max_bytes = max_bytes;
        self
    }

    /// The largest record (a URL's responses) written to Redis; a larger one is not, and
    /// its key's older record is removed. Default:
    /// [`RedisCacheStore::DEFAULT_MAX_RECORD_BYTES`] (16 MiB).
    pub fn max_record_bytes(mut self, max_record_bytes: usize) -> RedisCacheStoreBuilder {
        self.max_record_bytes = max_record_bytes;
        self
    }

    /// How many writes may wait for the store's task; one more is dropped. Default:
    /// [`RedisCacheStore::DEFAULT_WRITE_QUEUE`] (1,024); at least 1.
    pub fn write_queue(mut self, writes: usize) -> RedisCacheStoreBuilder {
        self.write_queue = writes.max(1);
        self
    }

    /// Connects to Redis and starts the store's writing task, on the current Tokio runtime
    /// (the store's connection and task live there: keep that runtime running while the
    /// store is used).
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
        let (writes, queue) = mpsc::channel(self.write_queue);
        runtime.spawn(write_behind(
            connection.clone(),
            queue,
            self.write_timeout,
            Arc::clone(&counters),
        ));
        Ok(RedisCacheStore {
            connection,
            prefix: self.prefix,
            timeout: self.timeout,
            max_bytes: self.max_bytes,
            max_record_bytes: self.max_record_bytes,
            writes,
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
            Some(ttl) => Some(u64::try_from(ttl.as_millis()).unwrap_or(u64::MAX).max(1)),
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
            let most = sealed_len(key, self.max_record_bytes);
            let mut command = ::redis::cmd("GETRANGE");
            command.arg(&redis_key).arg(0).arg(most);
            let read = command.query_async::<Vec<u8>>(&mut connection);
            let value = match tokio::time::timeout(self.timeout, read).await {
                // An absent key reads as empty, which no value the store writes is.
                Ok(Ok(value)) => Some(value).filter(|value| !value.is_empty()),
                Ok(Err(error)) => {
                    count_error(&self.counters, "GET", &error);
                    return None;
                }
                Err(_) => {
                    count_error(&self.counters, "GET", &"timed out");
                    return None;
                }
            };
            let Some(value) = value else {
                self.counters.misses.fetch_add(1, Ordering::Relaxed);
                return None;
            };
            if value.len() > most {
                // Larger than the store writes: not read, and a miss.
                self.counters.misses.fetch_add(1, Ordering::Relaxed);
                self.counters.oversized.fetch_add(1, Ordering::Relaxed);
                return None;
            }
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
                    self.queue(Write::RemoveCorrupt(redis_key, value));
                    None
                }
            }
        })
    }
}

/// The store's task: the queued writes, one at a time and in order, until the store (the
/// queue's sender) is dropped.
async fn write_behind(
    mut connection: ConnectionManager,
    mut queue: mpsc::Receiver<Write>,
    timeout: Duration,
    counters: Arc<Counters>,
) {
    while let Some(write) = queue.recv().await {
        let (name, command) = match write {
            Write::Put(key, value, ttl) => {
                let mut command = ::redis::cmd("SET");
                command.arg(key).arg(value);
                if let Some(ttl) = ttl {
                    command.arg("PX").arg(ttl);
                }
                ("SET", command)
            }
            Write::Touch(key) => {
                let mut command = ::redis::cmd("TOUCH");
                command.arg(key);
                ("TOUCH", command)
            }
            Write::Remove(key) => {
                let mut command = ::redis::cmd("DEL");
                command.arg(key);
                ("DEL", command)
            }
            Write::RemoveCorrupt(key, value) => {
                let mut command = ::redis::cmd("EVAL");
                command.arg(DELETE_IF_UNCHANGED).arg(1).arg(key).arg(value);
                ("EVAL", command)
            }
        };
        let written = command.query_async::<::redis::Value>(&mut connection);
        match tokio::time::timeout(timeout, written).await {
            Ok(Ok(_)) => {}
            Ok(Err(error)) => count_error(&counters, name, &error),
            Err(_) => count_error(&counters, name, &"timed out"),
        }
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
}
