//! [`RedisCookieStore`] (the `redis` feature): a cookie jar on Redis that every client of a
//! fleet shares, so that a cookie one process was set is sent by the others, with the
//! same storage model, matching and limits as the in-memory [`CookieStore`](super::CookieStore).
//!
//! It is built on the [`redis`](https://docs.rs/redis) crate's tokio `ConnectionManager`, as
//! `cache::RedisCacheStore` is. Every change to a registrable domain's cookies is one Lua
//! script that applies only if the cookies it changes are still as they were read and the
//! domain stays within its limit, so that two replicas setting cookies at once never lose
//! one's or break the limit; the script is sent with `EVAL`, which Redis compiles once and
//! keeps and the store then names by its SHA-1 (`EVALSHA`).

use std::collections::HashMap;
use std::fmt;
use std::io;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ::redis::aio::ConnectionManager;
use tokio::sync::mpsc;
use url::Url;

use super::persist::{cookie_from_json, cookie_to_json};
use super::provider::{CookieFuture, CookieProvider};
use super::stored_cookie::listing;
use super::{
    Cookie, CookieLimits, Jar, Retrieval, StoredCookie, limit_key, new_cookie, now,
    serialize_cookie_list,
};
use crate::infra::redis::{self, QueueBudget};

/// Applies a change to one registrable domain's hash if every field it changes still
/// holds what was read, and if the domain then holds no more cookies than its limit; so
/// that changes to different cookies of a domain apply side by side, and one made from a
/// stale read is made again. The limit stops only a change that grows the hash: one that
/// removes as much as it adds always applies, so that a hash left past the limit (by
/// whoever else writes to the Redis) can be brought back under it.
///
/// KEYS: the domain's hash, the count, the set of domains. ARGV: the domain, the most
/// cookies the domain may hold, then for each field: the field, what was read (`=` and
/// the value, or `-` for nothing), and what to write (`+` and the value, `-` to delete,
/// `x` to delete a value that was not a cookie, which the count may not hold). Returns
/// the new count of cookies in all; -1 when a field changed since it was read, and -3
/// when the change would grow the hash past the limit (neither applies); or -2 when it
/// applied but the count is not a count (as [`RECOUNT`] says; below 0 after drift, say),
/// which the store then counts again. `INCRBY` runs under `pcall`: Redis does not undo a
/// script's writes when a later command fails, so a count that is not a number must not
/// fail the script after the cookies are written.
const APPLY: &str = r"
local added = 0
local removed = 0
local cleared = 0
for i = 3, #ARGV, 3 do
  local current = redis.call('HGET', KEYS[1], ARGV[i])
  if current then
    if ARGV[i + 1] ~= '=' .. current then return -1 end
    if ARGV[i + 2] == '-' then removed = removed + 1 end
    if ARGV[i + 2] == 'x' then cleared = cleared + 1 end
  else
    if ARGV[i + 1] ~= '-' then return -1 end
    if ARGV[i + 2] ~= '-' and ARGV[i + 2] ~= 'x' then added = added + 1 end
  end
end
local length = redis.call('HLEN', KEYS[1])
local new_length = length + added - removed - cleared
if new_length > length and new_length > tonumber(ARGV[2]) then return -3 end
for i = 3, #ARGV, 3 do
  if ARGV[i + 2] == '-' or ARGV[i + 2] == 'x' then
    redis.call('HDEL', KEYS[1], ARGV[i])
  else
    redis.call('HSET', KEYS[1], ARGV[i], string.sub(ARGV[i + 2], 2))
  end
end
if redis.call('HLEN', KEYS[1]) == 0 then
  redis.call('SREM', KEYS[3], ARGV[1])
else
  redis.call('SADD', KEYS[3], ARGV[1])
end
local count = redis.pcall('INCRBY', KEYS[2], added - removed)
if type(count) ~= 'number' or count < 0 or count >= 1e15 then return -2 end
return count
";

/// Updates cookies' last-access-times: each field's value is replaced only while it is
/// the one read. KEYS: the domain's hash. ARGV: field, value read, new value, ...
const TOUCH: &str = r"
for i = 1, #ARGV, 3 do
  if redis.call('HGET', KEYS[1], ARGV[i]) == ARGV[i + 1] then
    redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 2])
  end
end
return 0
";

/// Sets the count to the fields of every domain's hash, and returns it; with `ARGV[2]`
/// `1`, only when the count is not a count, and else returns the count (absent is 0).
///
/// A count is a whole number of at most 15 digits, which Lua's numbers (doubles) hold
/// exactly; whoever else writes to the Redis may leave anything under its key (not a
/// number, a larger one, a key of another type, which `SET` replaces), and the store
/// counts again rather than fail or trust it.
///
/// KEYS: the set of domains, the count. ARGV: the prefix of the domains' hashes, and `1`
/// to keep a count that is one.
const RECOUNT: &str = r"
if ARGV[2] == '1' then
  local count = redis.pcall('GETRANGE', KEYS[2], 0, 15)
  if count == '' then return 0 end
  if type(count) == 'string' and #count <= 15 and string.match(count, '^%d+$') then
    return tonumber(count)
  end
end
local total = 0
for _, domain in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  total = total + redis.call('HLEN', ARGV[1] .. domain)
end
redis.call('SET', KEYS[2], total)
return total
";

/// Deletes every key of the store. KEYS: the set of domains, the count. ARGV: the prefix
/// of the domains' hashes.
const CLEAR: &str = r"
for _, domain in ipairs(redis.call('SMEMBERS', KEYS[1])) do
  redis.call('DEL', ARGV[1] .. domain)
end
redis.call('DEL', KEYS[1], KEYS[2])
return 0
";

/// Reads registrable domains' hashes, leaving out what is larger than a cookie the store
/// writes, so that the reply holds no more than cookies can be: a field longer than
/// `ARGV[1]` or a value longer than `ARGV[2]` is left out (and deleted when `ARGV[5]` is
/// `1`: no store writes it, so no change to the domain can clash with it), as is every
/// field past the `ARGV[3]`th of a hash or the `ARGV[4]`th in all. `HKEYS` and `HSTRLEN`
/// measure the fields and values inside Redis, without copying a value.
///
/// KEYS: the hashes. Returns, for each: the fields left out as too large, the fields left
/// out past the counts, and the fields read with their values, one after the other.
const READ: &str = r"
local longest_field = tonumber(ARGV[1])
local longest_value = tonumber(ARGV[2])
local most_per_site = tonumber(ARGV[3])
local most = tonumber(ARGV[4])
local remove = ARGV[5] == '1'
local sites = {}
for k = 1, #KEYS do
  local too_large, past_counts, read = 0, 0, {}
  for _, field in ipairs(redis.call('HKEYS', KEYS[k])) do
    local length = redis.call('HSTRLEN', KEYS[k], field)
    if #field > longest_field or length > longest_value then
      too_large = too_large + 1
      if remove then redis.call('HDEL', KEYS[k], field) end
    elseif #read >= 2 * most_per_site or most <= 0 then
      past_counts = past_counts + 1
    else
      read[#read + 1] = field
      read[#read + 1] = redis.call('HGET', KEYS[k], field)
      most = most - 1
    end
  end
  sites[k] = {too_large, past_counts, read}
end
return sites
";

/// Lists the registrable domains of the set of domains, at most `ARGV[2]` of them and
/// none longer than `ARGV[1]` (no cookie's domain is), scanning no further than that.
///
/// KEYS: the set of domains. Returns the domains left out (as far as the scan went), and
/// the domains.
const LIST: &str = r"
local longest = tonumber(ARGV[1])
local most = tonumber(ARGV[2])
local domains, seen, left_out, cursor = {}, {}, 0, '0'
repeat
  local page = redis.call('SSCAN', KEYS[1], cursor, 'COUNT', 256)
  cursor = page[1]
  for _, domain in ipairs(page[2]) do
    if #domain > longest or #domains >= most then
      left_out = left_out + 1
    elseif not seen[domain] then
      seen[domain] = true
      domains[#domains + 1] = domain
    end
  end
until cursor == '0' or #domains >= most
return {left_out, domains}
";

/// The longest field the store writes: a cookie's domain and path (each at most 1,024
/// bytes, after its length) and its name (at most 4,096 bytes with its value), under
/// 6,200 bytes. A longer one is no cookie of the store's.
const MAX_FIELD_BYTES: usize = 8 << 10;

/// The longest value the store writes: a cookie's JSON, whose name, value, domain and
/// path (6,144 bytes at most) take at most six bytes each (`\u0001`; a name or value that
/// is not UTF-8 is an array of numbers, at most four bytes each) and whose other members
/// a few hundred: under 37 KiB. A longer one is no cookie of the store's.
const MAX_VALUE_BYTES: usize = 64 << 10;

/// The longest registrable domain in the set of domains: a cookie's domain is at most
/// 1,024 bytes.
const MAX_DOMAIN_BYTES: usize = 1024;

/// A cookie is "used" (its last-access-time moved) in Redis at most this often: a fetch
/// that sends it only writes when its time is older, as Chrome writes its cookie database
/// (`kLastAccessThreshold`, 5 minutes there).
const ACCESS_INTERVAL_MICROS: u64 = 60_000_000;

/// How many times a change is read again and retried when another writer changed the
/// same registrable domain's cookies in between.
const MAX_ATTEMPTS: usize = 8;

/// A cookie jar on Redis, shared by every client (in this process or another) given a
/// store on the same Redis and prefix: a cookie set through one is sent by all. Made with
/// [`RedisCookieStore::builder`]; given to a client with
/// [`ClientBuilder::cookie_provider`](crate::ClientBuilder::cookie_provider).
///
/// It keeps the rules of the in-memory [`CookieStore`](super::CookieStore) (RFC 6265's
/// storage model, matching and order, the size limits and [`CookieLimits`]), across
/// replicas:
///
/// - **Layout.** The cookies of one registrable domain (what the per-domain limit counts)
///   are one Redis hash, `<prefix>site:<domain>`; each cookie a field (its domain, path and
///   name) holding the cookie as JSON (the fields of
///   [`CookieStore::save_json`](super::CookieStore::save_json)). `<prefix>sites` lists the
///   domains and `<prefix>count` counts the cookies. On Redis Cluster give a prefix with a
///   hash tag (`{cookies}:`), so that the keys share a slot.
/// - **Atomic changes.** Storing a response's cookies reads the domain's hash, applies the
///   storage model (replacing a cookie keeps its creation-time; expired cookies go; past
///   [`CookieLimits::max_per_domain`] the least recently used make room), and writes the
///   difference with a script that applies only if every cookie it changes is still as it
///   was read and the domain stays within its limit, else reads again (a few times at
///   most). Two replicas setting different cookies at once both land at the first try;
///   the same cookie, or a full domain, costs the later one a second read. The per-domain
///   limit holds whoever writes.
/// - **The total.** The count changes in the same script. When it passes
///   [`CookieLimits::max_total`], the store's task counts the jar again (at once, in a
///   script) and, if it is still over, removes the least recently used cookies of the whole
///   jar (expired ones first) down to [`CookieLimits::purge_total_to`], under a lock that
///   keeps replicas from doing it twice. A count that is not one (anything but a whole
///   number of at most 15 digits: whoever else writes to the Redis may leave anything
///   there) never fails a change: the cookies are written, the jar is counted again at
///   once and the count set, and the purge follows as usual.
/// - **Use.** A cookie sent counts as used, for that order; the store writes its new
///   last-access-time (from its own task, never delaying the fetch) when the stored one is
///   more than a minute old, rather than at every request. The task's queue is bounded in
///   tasks and in bytes ([`RedisCookieStoreBuilder::task_queue`],
///   [`RedisCookieStoreBuilder::task_queue_bytes`]): what does not fit is dropped, and
///   counted.
/// - **Times.** Creation- and last-access-times are microseconds since the Unix epoch, so
///   replicas order them alike (keep their clocks in step, as for `Expires`).
/// - **Session cookies** (no `Max-Age` or `Expires`) are shared too, kept until the jar is
///   cleared, so that a login one replica made serves all; or kept for a time with
///   [`RedisCookieStoreBuilder::session_cookie_lifetime`]. A separate prefix is a separate
///   jar: one per account, per tenant or per run.
/// - **Bounded reads.** Whoever else writes to the Redis may leave anything under the
///   store's keys, so no reply is larger than what the store itself writes. A read takes,
///   of each registrable domain's hash, at most twice
///   [`CookieLimits::max_per_domain`] fields and 16 more (376 by default), each field at
///   most 8 KiB and each value at most 64 KiB (no cookie the store writes is larger): at
///   most 27 MiB for a domain by default, where cookies take a few KiB. A field or value
///   larger than that is left out and counted (`oversized` in
///   [`RedisCookieStore::stats`]), and removed by the next change to its domain (a read
///   that finds one queues that change); fields past the count are left out and counted,
///   and a change to their domain (queued too) reads the hash again after it is made,
///   each time removing what it read that is not a cookie and the cookies past the
///   domain's limit, until a read takes every field. A change that grows a hash past the
///   limit is refused, one that does not always applies: a domain left with too many
///   fields still takes new cookies.
///   [`cookies`](RedisCookieStore::cookies) and a purge list at most twice
///   [`CookieLimits::max_total`] and 16 more domains (each at most 1,024 bytes) and read
///   as many fields in all. Every other command (and [`len`](RedisCookieStore::len),
///   which reads at most 16 bytes of the count inside Redis) answers with a status or a
///   number. Sizes and counts are measured inside Redis, by Lua scripts (`HKEYS`,
///   `HSTRLEN`, `SSCAN`): a value crosses the network only when it fits.
/// - **Faults.** Reading is bounded by the store's timeout (default
///   [`RedisCookieStore::DEFAULT_TIMEOUT`]) and storing by the write timeout (default
///   [`RedisCookieStore::DEFAULT_WRITE_TIMEOUT`]); the fetch waits for both, so that the
///   next request sees a cookie just set. An error, a timeout or a value that does not
///   read back as a cookie never fails a fetch: it sends no cookies, or keeps none (a
///   corrupt value is removed by the next change to its domain), and is counted
///   ([`RedisCookieStore::stats`]) and, with the `tracing` feature, traced at DEBUG.
///
/// ```no_run
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::sync::Arc;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::cookie::RedisCookieStore;
///
/// let jar = RedisCookieStore::builder("redis://127.0.0.1:6379/0")
///     .prefix("crawler:account-42:cookies:")
///     .build()
///     .await?;
/// let jar = Arc::new(jar);
/// let client = Client::builder().cookie_provider(jar.clone()).build()?;
/// client.post("https://example.com/login").form(&[("user", "42")]).send().await?;
/// // Every client on this jar, in any process, now sends the login cookie.
/// println!("{:?}", jar.cookies().await?);
/// # Ok(())
/// # }
/// ```
pub struct RedisCookieStore {
    shared: Arc<Shared>,
    tasks: mpsc::Sender<Task>,
    timeout: Duration,
    session_cookie_lifetime: Option<Duration>,
}

/// What the store and its task share.
struct Shared {
    connection: ConnectionManager,
    /// The SHA-1 of [`APPLY`], [`TOUCH`], [`READ`], [`LIST`] and [`RECOUNT`], to run them
    /// by `EVALSHA`.
    apply_sha: String,
    touch_sha: String,
    read_sha: String,
    list_sha: String,
    recount_sha: String,
    prefix: String,
    limits: CookieLimits,
    write_timeout: Duration,
    /// The bytes of the tasks waiting for the store's task, and of the one it runs.
    queued_bytes: QueueBudget,
    counters: Counters,
}

/// Builds a [`RedisCookieStore`]: from [`RedisCookieStore::builder`].
///
/// ```
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use std::time::Duration;
/// use whatwg_fetch::cookie::RedisCookieStore;
///
/// // Needs a Redis on 127.0.0.1:6379.
/// let store = RedisCookieStore::builder("redis://127.0.0.1:6379/0")
///     .connect_timeout(Duration::from_secs(1))
///     .build()
///     .await?;
/// # let _ = store;
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Debug)]
#[must_use]
pub struct RedisCookieStoreBuilder {
    url: String,
    prefix: String,
    timeout: Duration,
    write_timeout: Duration,
    connect_timeout: Duration,
    limits: CookieLimits,
    session_cookie_lifetime: Option<Duration>,
    task_queue: usize,
    task_queue_bytes: usize,
}

/// What a [`RedisCookieStore`] has done since it was made: [`RedisCookieStore::stats`].
///
/// ```
/// # async fn run() -> Result<(), Box<dyn std::error::Error>> {
/// use whatwg_fetch::cookie::RedisCookieStore;
///
/// // Needs a Redis on 127.0.0.1:6379: figures for a metrics exporter.
/// let store = RedisCookieStore::builder("redis://127.0.0.1:6379/0").build().await?;
/// let stats = store.stats();
/// println!("reads {} writes {} conflicts {}", stats.reads, stats.writes, stats.conflicts);
/// # Ok(())
/// # }
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct RedisCookieStats {
    /// `Cookie` headers read (one per credentialed request).
    pub reads: u64,
    /// Changes written: a response's cookies for one registrable domain, a sweep of
    /// expired cookies, or a purge's removals from one domain.
    pub writes: u64,
    /// Changes read again because another writer changed the same domain's cookies first.
    pub conflicts: u64,
    /// Values that did not read back as a cookie of their field: left out, and removed by
    /// the next change to their domain.
    pub corrupt: u64,
    /// Purges of the whole jar past [`CookieLimits::max_total`].
    pub purges: u64,
    /// Commands that failed or timed out, and changes given up after too many conflicts.
    pub errors: u64,
    /// Tasks (last-access-time updates, sweeps, purges) dropped because the store's task
    /// had too many waiting (in tasks or in bytes).
    pub dropped_tasks: u64,
    /// Fields of a domain's hash (or domains of the jar's list) left out of a read because
    /// they were larger than any the store writes (removed by the next change to their
    /// domain), or past the most a read takes (see [`RedisCookieStore`]'s "Bounded reads").
    pub oversized: u64,
}

#[derive(Debug, Default)]
struct Counters {
    reads: AtomicU64,
    writes: AtomicU64,
    conflicts: AtomicU64,
    corrupt: AtomicU64,
    purges: AtomicU64,
    errors: AtomicU64,
    dropped_tasks: AtomicU64,
    oversized: AtomicU64,
}

/// Work for the store's task, off the fetch's path.
enum Task {
    /// Moves last-access-times: the domain's hash, and its cookies' new values.
    Touch(String, Vec<Touched>),
    /// Removes a domain's expired (and corrupt) cookies.
    Sweep(String),
    /// Brings the jar back under its total.
    Purge,
}

impl Task {
    /// The bytes the task holds while it waits: its keys, fields and values.
    fn bytes(&self) -> usize {
        match self {
            Task::Touch(key, touched) => touched
                .iter()
                .map(|(field, read, used)| field.len() + read.len() + used.len())
                .fold(key.len(), usize::saturating_add),
            Task::Sweep(domain) => domain.len(),
            Task::Purge => 0,
        }
    }
}

/// A cookie whose last-access-time moves: its field, its value as read, and its value
/// with the new time.
type Touched = (Vec<u8>, Vec<u8>, Vec<u8>);

/// Where a purge looks for cookies to remove: (whether unexpired, last access, creation),
/// then the domain's index, the field, its value as read, and how it goes. Values that are
/// not cookies and expired cookies sort first.
type PurgeOrder<'a> = ((bool, u64, u64), usize, &'a [u8], &'a [u8], Write);

/// One registrable domain's hash as read: its cookies by field, with the values as read;
/// the fields whose value is not a cookie apart, with theirs.
#[derive(Default)]
struct Site {
    cookies: Vec<(Vec<u8>, Vec<u8>, Cookie)>,
    corrupt: Vec<(Vec<u8>, Vec<u8>)>,
    /// Fields left out as larger than any the store writes, which a change removes.
    oversized: usize,
    /// Fields left out past the most a read takes, which a change reads again and removes
    /// (after what it read).
    unread: usize,
}

/// A change to one field of a domain's hash: the field, its value as read (`None` for
/// none), and what to write.
type Change = (Vec<u8>, Option<Vec<u8>>, Write);

/// What a [`Change`] writes.
#[derive(Clone)]
enum Write {
    /// This cookie's value.
    Cookie(Vec<u8>),
    /// Nothing: the cookie goes.
    Delete,
    /// Nothing: the value, which was not a cookie, goes (not counted as a cookie).
    Clear,
}

/// What [`APPLY`] did with a change to a domain.
enum Applied {
    /// The change is made: the jar's count of cookies now.
    Count(usize),
    /// A field changed since it was read: nothing is made, and reading again may.
    Conflict,
    /// The change would grow the domain's hash past its limit: nothing is made, and
    /// reading again helps only when the read took every field (another writer's cookies
    /// are then read and make room).
    OverLimit,
}

impl RedisCookieStore {
    /// The default prefix of the store's keys: `whatwg-fetch:cookies:`.
    pub const DEFAULT_PREFIX: &'static str = "whatwg-fetch:cookies:";
    /// The default bound on reading a request's cookies, after which it goes without:
    /// 50 ms.
    pub const DEFAULT_TIMEOUT: Duration = Duration::from_millis(50);
    /// The default bound on storing a response's cookies, retries included: 500 ms.
    pub const DEFAULT_WRITE_TIMEOUT: Duration = Duration::from_millis(500);
    /// The default bound on connecting (in [`RedisCookieStoreBuilder::build`], and each
    /// reconnection): 1 s.
    pub const DEFAULT_CONNECT_TIMEOUT: Duration = Duration::from_secs(1);
    /// The default number of tasks waiting for the store's task: 1,024.
    pub const DEFAULT_TASK_QUEUE: usize = 1024;
    /// The default most bytes of tasks (the cookies a last-access-time update rewrites,
    /// mostly) waiting for the store's task, or being run: 16 MiB, a few KiB for each of
    /// 1,024 tasks, where a read of the largest cookies could queue MiBs each.
    pub const DEFAULT_TASK_QUEUE_BYTES: usize = 16 << 20;

    /// A builder for a store on the Redis at `url` (`redis://[[user]:password@]host[:port][/db]`,
    /// or `redis+unix:///path`), with the defaults above and [`CookieLimits::default`].
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::cookie::RedisCookieStore;
    ///
    /// let jar = Arc::new(RedisCookieStore::builder("redis://127.0.0.1:6379/0").build().await?);
    /// let client = Client::builder().cookie_provider(jar).build()?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn builder(url: impl Into<String>) -> RedisCookieStoreBuilder {
        RedisCookieStoreBuilder {
            url: url.into(),
            prefix: RedisCookieStore::DEFAULT_PREFIX.to_owned(),
            timeout: RedisCookieStore::DEFAULT_TIMEOUT,
            write_timeout: RedisCookieStore::DEFAULT_WRITE_TIMEOUT,
            connect_timeout: RedisCookieStore::DEFAULT_CONNECT_TIMEOUT,
            limits: CookieLimits::default(),
            session_cookie_lifetime: None,
            task_queue: RedisCookieStore::DEFAULT_TASK_QUEUE,
            task_queue_bytes: RedisCookieStore::DEFAULT_TASK_QUEUE_BYTES,
        }
    }

    /// What the store has done since it was made.
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nset-cookie: session=abc; Max-Age=3600\r\n\
    /// #             connection: close\r\ncontent-length: 0\r\n\r\n").await;
    /// #     }
    /// # });
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::cookie::RedisCookieStore;
    ///
    /// let jar = Arc::new(RedisCookieStore::builder("redis://127.0.0.1:6379/0").build().await?);
    /// let client = Client::builder().cookie_provider(jar.clone()).build()?;
    /// // `url`: a server on 127.0.0.1 that sets `session=abc`.
    /// client.get(&url).send().await?;
    /// client.get(&url).send().await?;
    /// // Two requests read their cookies; the responses' cookies were written.
    /// let stats = jar.stats();
    /// assert_eq!(stats.reads, 2);
    /// assert!(stats.writes >= 1 && stats.errors == 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn stats(&self) -> RedisCookieStats {
        let load = |counter: &AtomicU64| counter.load(Ordering::Relaxed);
        let counters = &self.shared.counters;
        RedisCookieStats {
            reads: load(&counters.reads),
            writes: load(&counters.writes),
            conflicts: load(&counters.conflicts),
            corrupt: load(&counters.corrupt),
            purges: load(&counters.purges),
            errors: load(&counters.errors),
            dropped_tasks: load(&counters.dropped_tasks),
            oversized: load(&counters.oversized),
        }
    }

    /// The prefix of the store's keys.
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use whatwg_fetch::cookie::RedisCookieStore;
    ///
    /// let jar = RedisCookieStore::builder("redis://127.0.0.1:6379/0").build().await?;
    /// assert_eq!(jar.prefix(), RedisCookieStore::DEFAULT_PREFIX);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn prefix(&self) -> &str {
        &self.shared.prefix
    }

    /// The limits the store keeps to.
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use whatwg_fetch::cookie::{CookieLimits, RedisCookieStore};
    ///
    /// let jar = RedisCookieStore::builder("redis://127.0.0.1:6379/0").build().await?;
    /// assert_eq!(jar.limits(), CookieLimits::default());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn limits(&self) -> CookieLimits {
        self.shared.limits
    }

    /// Every unexpired cookie of the jar, as [`CookieStore::cookies`](super::CookieStore::cookies)
    /// lists them: by domain, then path, then creation. Listing does not count as use.
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nset-cookie: session=abc; Max-Age=3600\r\n\
    /// #             connection: close\r\ncontent-length: 0\r\n\r\n").await;
    /// #     }
    /// # });
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::cookie::RedisCookieStore;
    ///
    /// let jar = Arc::new(RedisCookieStore::builder("redis://127.0.0.1:6379/0").build().await?);
    /// let client = Client::builder().cookie_provider(jar.clone()).build()?;
    /// // `url`: a server on 127.0.0.1 that sets `session=abc`.
    /// client.get(&url).send().await?;
    /// let cookies = jar.cookies().await?;
    /// assert_eq!((cookies[0].name(), cookies[0].value()), (Some("session"), Some("abc")));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// An I/O error when Redis fails or does not answer within the write timeout.
    pub async fn cookies(&self) -> io::Result<Vec<StoredCookie>> {
        let shared = &self.shared;
        let now = now();
        let (_, read) = shared.bounded("EVAL", shared.read_every_site()).await?;
        Ok(listing(
            read.into_iter()
                .flat_map(|site| site.cookies)
                .map(|(_, _, cookie)| cookie)
                .filter(|cookie| !cookie.is_expired(now)),
        ))
    }

    /// How many cookies the jar holds (expired ones not yet removed included): the count
    /// the store keeps, counted again first when it is not a count (whoever else writes to
    /// the Redis may leave anything under its key).
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nset-cookie: session=abc; Max-Age=3600\r\n\
    /// #             connection: close\r\ncontent-length: 0\r\n\r\n").await;
    /// #     }
    /// # });
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::cookie::RedisCookieStore;
    ///
    /// let jar = Arc::new(RedisCookieStore::builder("redis://127.0.0.1:6379/0").build().await?);
    /// let client = Client::builder().cookie_provider(jar.clone()).build()?;
    /// // `url`: a server on 127.0.0.1 that sets `session=abc`.
    /// client.get(&url).send().await?;
    /// assert_eq!(jar.len().await?, 1);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// An I/O error when Redis fails or does not answer within the write timeout.
    pub async fn len(&self) -> io::Result<usize> {
        let shared = &self.shared;
        shared.bounded("EVAL", shared.recount(true)).await
    }

    /// Removes every cookie of the jar (every key with the store's prefix that it wrote).
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nset-cookie: session=abc; Max-Age=3600\r\n\
    /// #             connection: close\r\ncontent-length: 0\r\n\r\n").await;
    /// #     }
    /// # });
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::cookie::RedisCookieStore;
    ///
    /// let jar = Arc::new(RedisCookieStore::builder("redis://127.0.0.1:6379/0").build().await?);
    /// let client = Client::builder().cookie_provider(jar.clone()).build()?;
    /// // `url`: a server on 127.0.0.1 that sets `session=abc`.
    /// client.get(&url).send().await?;
    /// jar.clear().await?;
    /// assert_eq!(jar.len().await?, 0);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// An I/O error when Redis fails or does not answer within the write timeout.
    pub async fn clear(&self) -> io::Result<()> {
        let shared = &self.shared;
        let mut command = ::redis::cmd("EVAL");
        command
            .arg(CLEAR)
            .arg(2)
            .arg(shared.key("sites"))
            .arg(shared.key("count"))
            .arg(shared.key("site:"));
        shared
            .within_command::<::redis::Value>("EVAL", command)
            .await?;
        Ok(())
    }

    /// The `Cookie` header for `url` at time `now` (seconds) and `now_micros`.
    async fn cookie_header_at(&self, url: &Url, now: i64, now_micros: u64) -> Option<Vec<u8>> {
        let shared = &self.shared;
        shared.counters.reads.fetch_add(1, Ordering::Relaxed);
        let retrieval = Retrieval::of(url)?;
        let domains: Vec<String> = retrieval.keys().into_iter().map(str::to_owned).collect();
        let read = shared.read_sites(&domains, usize::MAX, false);
        let read = match tokio::time::timeout(self.timeout, read).await {
            Ok(Ok(read)) => read,
            Ok(Err(error)) => {
                shared.count_error("EVAL", &error);
                return None;
            }
            Err(_) => {
                shared.count_error("EVAL", &"timed out");
                return None;
            }
        };
        // Retrieval step 1, with the domains' cookies (expired ones left out, and their
        // domain swept by the store's task).
        let mut cookie_list: Vec<(&[u8], &[u8], &Cookie, &str)> = Vec::new();
        for (domain, site) in domains.iter().zip(&read) {
            if site
                .cookies
                .iter()
                .any(|(_, _, cookie)| cookie.is_expired(now))
                || !site.corrupt.is_empty()
                || site.oversized > 0
                || site.unread > 0
            {
                self.queue(Task::Sweep(domain.clone()));
            }
            for (field, value, cookie) in &site.cookies {
                if !cookie.is_expired(now) && retrieval.matches(cookie) {
                    cookie_list.push((field, value, cookie, domain));
                }
            }
        }
        if cookie_list.is_empty() {
            return None;
        }
        // Step 2. Sort the cookie-list: longer paths first; among equal-length paths,
        // earlier creation-times first.
        cookie_list.sort_by(|a, b| {
            b.2.path
                .len()
                .cmp(&a.2.path.len())
                .then(a.2.creation_time.cmp(&b.2.creation_time))
        });
        // Step 3. Update the last-access-time of each cookie in the cookie-list to the
        // current date and time. (In Redis when the stored one is older than the interval,
        // from the store's task.)
        let mut touches: HashMap<&str, Vec<Touched>> = HashMap::new();
        for &(field, value, cookie, domain) in &cookie_list {
            if cookie
                .last_access_time
                .saturating_add(ACCESS_INTERVAL_MICROS)
                < now_micros
            {
                let mut used = cookie.clone();
                used.last_access_time = now_micros;
                touches.entry(domain).or_default().push((
                    field.to_vec(),
                    value.to_vec(),
                    encode(&used),
                ));
            }
        }
        for (domain, touched) in touches {
            self.queue(Task::Touch(shared.site_key(domain), touched));
        }
        // Step 4. Serialize the cookie-list into a cookie-string.
        Some(serialize_cookie_list(
            cookie_list.iter().map(|&(_, _, cookie, _)| cookie),
        ))
    }

    /// Stores the cookies of `headers`, received from `url`, at time `now` (seconds) and
    /// `now_micros`.
    async fn set_cookies_at(&self, url: &Url, headers: &[&[u8]], now: i64, now_micros: u64) {
        let shared = &self.shared;
        // Storage model steps 1–10 for each header, then steps 11–12 per registrable domain.
        let mut by_domain: Vec<(String, Vec<Cookie>)> = Vec::new();
        for (order, header) in (0u64..).zip(headers) {
            let Some(mut cookie) = new_cookie(url, header, now) else {
                continue;
            };
            if cookie.expiry_time.is_none() {
                if let Some(lifetime) = self.session_cookie_lifetime {
                    let seconds = i64::try_from(lifetime.as_secs()).unwrap_or(i64::MAX);
                    cookie.expiry_time = Some(now.saturating_add(seconds));
                }
            }
            // RFC 6265bis §5.7 step 5: the creation-time and the last-access-time are the
            // current date and time (a microsecond apart, to keep the headers' order).
            cookie.creation_time = now_micros.saturating_add(order);
            cookie.last_access_time = cookie.creation_time;
            let domain = limit_key(&cookie.domain);
            match by_domain.iter_mut().find(|(key, _)| key == domain) {
                Some((_, cookies)) => cookies.push(cookie),
                None => by_domain.push((domain.to_owned(), vec![cookie])),
            }
        }
        for (domain, cookies) in by_domain {
            let stored = shared.store_in_domain(&domain, &cookies, now);
            let count = match tokio::time::timeout(shared.write_timeout, stored).await {
                Ok(Ok(count)) => count,
                Ok(Err(error)) => {
                    shared.count_error("EVAL", &error);
                    continue;
                }
                Err(_) => {
                    shared.count_error("EVAL", &"timed out");
                    continue;
                }
            };
            if count.is_some_and(|count| count > shared.limits.max_total) {
                self.queue(Task::Purge);
            }
        }
    }

    /// Queues `task` for the store's task; a full queue (in tasks or in bytes) drops it.
    fn queue(&self, task: Task) {
        let queued_bytes = &self.shared.queued_bytes;
        let bytes = task.bytes();
        let queued = queued_bytes.take(bytes)
            && match self.tasks.try_send(task) {
                Ok(()) => true,
                Err(_) => {
                    queued_bytes.release(bytes);
                    false
                }
            };
        if !queued {
            self.shared
                .counters
                .dropped_tasks
                .fetch_add(1, Ordering::Relaxed);
        }
    }
}

impl CookieProvider for RedisCookieStore {
    fn cookie_header_for<'a>(&'a self, url: &'a Url) -> CookieFuture<'a, Option<Vec<u8>>> {
        Box::pin(self.cookie_header_at(url, now(), now_micros()))
    }

    fn set_cookies_from_headers<'a>(
        &'a self,
        url: &'a Url,
        headers: &'a [&'a [u8]],
    ) -> CookieFuture<'a, ()> {
        Box::pin(self.set_cookies_at(url, headers, now(), now_micros()))
    }
}

impl fmt::Debug for RedisCookieStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("RedisCookieStore")
            .field("prefix", &self.shared.prefix)
            .field("limits", &self.shared.limits)
            .field("timeout", &self.timeout)
            .field("stats", &self.stats())
            .finish_non_exhaustive()
    }
}

impl RedisCookieStoreBuilder {
    /// The prefix of every key the store writes. Stores with the same prefix on the same
    /// Redis share one jar. Default: [`RedisCookieStore::DEFAULT_PREFIX`].
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use whatwg_fetch::cookie::RedisCookieStore;
    ///
    /// // A jar of its own for each account a crawler logs in as.
    /// let jar = RedisCookieStore::builder("redis://127.0.0.1:6379/0")
    ///     .prefix("crawler:account-42:cookies:")
    ///     .build()
    ///     .await?;
    /// assert_eq!(jar.prefix(), "crawler:account-42:cookies:");
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn prefix(mut self, prefix: impl Into<String>) -> RedisCookieStoreBuilder {
        self.prefix = prefix.into();
        self
    }

    /// How long a fetch waits for Redis to give its cookies before it goes without.
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use std::time::Duration;
    /// use whatwg_fetch::cookie::RedisCookieStore;
    ///
    /// // A Redis in the same rack: with no cookies within 10 ms, a request goes without.
    /// let jar = RedisCookieStore::builder("redis://127.0.0.1:6379/0")
    ///     .timeout(Duration::from_millis(10))
    ///     .build()
    ///     .await?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// Default: [`RedisCookieStore::DEFAULT_TIMEOUT`] (50 ms).
    pub fn timeout(mut self, timeout: Duration) -> RedisCookieStoreBuilder {
        self.timeout = timeout;
        self
    }

    /// How long a fetch waits for its response's cookies to be stored (retries included)
    /// before it goes on without them; also the bound on each command of the store's task
    /// and of [`cookies`](RedisCookieStore::cookies), [`len`](RedisCookieStore::len) and
    /// [`clear`](RedisCookieStore::clear). Default:
    /// [`RedisCookieStore::DEFAULT_WRITE_TIMEOUT`] (500 ms).
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use std::time::Duration;
    /// use whatwg_fetch::cookie::RedisCookieStore;
    ///
    /// // A busy Redis: a response's cookies have 2 s to be stored before the fetch goes on.
    /// let jar = RedisCookieStore::builder("redis://127.0.0.1:6379/0")
    ///     .write_timeout(Duration::from_secs(2))
    ///     .build()
    ///     .await?;
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn write_timeout(mut self, timeout: Duration) -> RedisCookieStoreBuilder {
        self.write_timeout = timeout;
        self
    }

    /// How long connecting to Redis may take, in [`build`](Self::build) and each time the
    /// connection is made again. Default: [`RedisCookieStore::DEFAULT_CONNECT_TIMEOUT`]
    /// (1 s).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::sync::Arc;
    /// use std::time::Duration;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::cookie::RedisCookieStore;
    ///
    /// // With no Redis within 200 ms at start-up, a jar of this client's own.
    /// let jar = RedisCookieStore::builder("redis://127.0.0.1:6379/0")
    ///     .connect_timeout(Duration::from_millis(200))
    ///     .build()
    ///     .await;
    /// let client = match jar {
    ///     Ok(jar) => Client::builder().cookie_provider(Arc::new(jar)).build()?,
    ///     Err(error) => {
    ///         eprintln!("no shared jar: {error}");
    ///         Client::builder().cookie_store(true).build()?
    ///     }
    /// };
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn connect_timeout(mut self, timeout: Duration) -> RedisCookieStoreBuilder {
        self.connect_timeout = timeout;
        self
    }

    /// How many cookies the jar keeps, per registrable domain and in all, across every
    /// store on it (give them all the same). Default: [`CookieLimits::default`].
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use whatwg_fetch::cookie::{CookieLimits, RedisCookieStore};
    ///
    /// // A jar shared by many clients, visiting many sites: room for 10,000 cookies.
    /// let limits = CookieLimits {
    ///     max_total: 10_000,
    ///     purge_total_to: 9_000,
    ///     ..CookieLimits::default()
    /// };
    /// let jar = RedisCookieStore::builder("redis://127.0.0.1:6379/0")
    ///     .limits(limits)
    ///     .build()
    ///     .await?;
    /// assert_eq!(jar.limits().max_total, 10_000);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn limits(mut self, limits: CookieLimits) -> RedisCookieStoreBuilder {
        self.limits = limits;
        self
    }

    /// Keeps a session cookie (one without `Max-Age` or `Expires`) for `lifetime` from when
    /// it was last set, rather than until the jar is cleared: it is stored with that
    /// expiry-time (and then listed as persistent). Default: `None`, kept until cleared.
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// # use tokio::io::{AsyncReadExt, AsyncWriteExt};
    /// # let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    /// # let url = format!("http://{}/", listener.local_addr().unwrap());
    /// # tokio::spawn(async move {
    /// #     while let Ok((mut stream, _)) = listener.accept().await {
    /// #         let _ = stream.read(&mut [0; 4096]).await;
    /// #         let _ = stream.write_all(b"HTTP/1.1 200 OK\r\nset-cookie: session=abc\r\n\
    /// #             connection: close\r\ncontent-length: 0\r\n\r\n").await;
    /// #     }
    /// # });
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use std::sync::Arc;
    /// use std::time::Duration;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::cookie::RedisCookieStore;
    ///
    /// let jar = RedisCookieStore::builder("redis://127.0.0.1:6379/0")
    ///     .session_cookie_lifetime(Duration::from_secs(24 * 60 * 60))
    ///     .build()
    ///     .await?;
    /// let jar = Arc::new(jar);
    /// let client = Client::builder().cookie_provider(jar.clone()).build()?;
    /// // `url`: a server on 127.0.0.1 that sets `session=abc`, a session cookie.
    /// client.get(&url).send().await?;
    /// // Kept for a day, not until the jar is cleared.
    /// let cookies = jar.cookies().await?;
    /// assert!(!cookies[0].is_session() && cookies[0].expires().is_some());
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn session_cookie_lifetime(
        mut self,
        lifetime: impl Into<Option<Duration>>,
    ) -> RedisCookieStoreBuilder {
        self.session_cookie_lifetime = lifetime.into();
        self
    }

    /// How many tasks (last-access-time updates, sweeps, purges) may wait for the store's
    /// task; one more is dropped. Default: [`RedisCookieStore::DEFAULT_TASK_QUEUE`]; at
    /// least 1. The bytes they hold are bounded too:
    /// [`task_queue_bytes`](Self::task_queue_bytes).
    ///
    /// ```no_run
    /// # tokio_test::block_on(async {
    /// // Needs a Redis on 127.0.0.1:6379.
    /// use whatwg_fetch::cookie::RedisCookieStore;
    ///
    /// // At most 64 tasks wait for a slow Redis; more are dropped, and counted.
    /// let jar = RedisCookieStore::builder("redis://127.0.0.1:6379/0")
    ///     .task_queue(64)
    ///     .build()
    ///     .await?;
    /// println!("{} tasks dropped", jar.stats().dropped_tasks);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    pub fn task_queue(mut self, tasks: usize) -> RedisCookieStoreBuilder {
        self.task_queue = tasks.max(1);
        self
    }

    /// How many bytes of tasks (the keys, fields and cookies they carry: a last-access-time
    /// update rewrites each cookie a request sent) may wait for the store's task, the one
    /// it runs included; a task that would pass them is dropped (and counted in
    /// [`RedisCookieStats::dropped_tasks`]), unless none waits. Where
    /// [`task_queue`](Self::task_queue) bounds the tasks a slow Redis leaves waiting, this
    /// bounds the memory they take. Default:
    /// [`RedisCookieStore::DEFAULT_TASK_QUEUE_BYTES`] (16 MiB).
    ///
    /// ```no_run
    /// # async fn run() -> std::io::Result<()> {
    /// use whatwg_fetch::cookie::RedisCookieStore;
    ///
    /// // At most 1 MiB of last-access-time updates waiting for Redis.
    /// let jar = RedisCookieStore::builder("redis://127.0.0.1:6379/0")
    ///     .task_queue_bytes(1 << 20)
    ///     .build()
    ///     .await?;
    /// # Ok(())
    /// # }
    /// ```
    pub fn task_queue_bytes(mut self, bytes: usize) -> RedisCookieStoreBuilder {
        self.task_queue_bytes = bytes;
        self
    }

    /// Connects to Redis and starts the store's task, on the current Tokio runtime (the
    /// store's connection and task live there: keep that runtime running while the store
    /// is used).
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use std::io::ErrorKind;
    /// use whatwg_fetch::cookie::RedisCookieStore;
    ///
    /// // Refused before connecting: not a Redis URL. The error names it, without its password.
    /// let built = RedisCookieStore::builder("https://user:s3cret@jar.internal/").build().await;
    /// let Err(error) = built else {
    ///     panic!("a jar on an https: URL");
    /// };
    /// assert_eq!(error.kind(), ErrorKind::InvalidInput);
    /// assert!(error.to_string().contains("https://user:***@jar.internal/"));
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// # }).unwrap();
    /// ```
    ///
    /// # Errors
    /// An I/O error naming the URL (without its password) when the URL is not a Redis URL
    /// (`InvalidInput`), when there is no Tokio runtime (`Other`), or when Redis cannot be
    /// reached within the connect timeout (`TimedOut`, or the connection's error).
    pub async fn build(self) -> io::Result<RedisCookieStore> {
        let runtime = tokio::runtime::Handle::try_current()
            .map_err(|_| io::Error::other("RedisCookieStore::build must run on a Tokio runtime"))?;
        let connection =
            redis::connect("RedisCookieStore", &self.url, self.connect_timeout).await?;
        let shared = Arc::new(Shared {
            connection,
            apply_sha: redis::sha1_hex(APPLY.as_bytes()),
            touch_sha: redis::sha1_hex(TOUCH.as_bytes()),
            read_sha: redis::sha1_hex(READ.as_bytes()),
            list_sha: redis::sha1_hex(LIST.as_bytes()),
            recount_sha: redis::sha1_hex(RECOUNT.as_bytes()),
            prefix: self.prefix,
            limits: self.limits,
            write_timeout: self.write_timeout,
            queued_bytes: QueueBudget::new(self.task_queue_bytes),
            counters: Counters::default(),
        });
        let (tasks, queue) = mpsc::channel(self.task_queue);
        runtime.spawn(run_tasks(Arc::clone(&shared), queue));
        Ok(RedisCookieStore {
            shared,
            tasks,
            timeout: self.timeout,
            session_cookie_lifetime: self.session_cookie_lifetime,
        })
    }
}

impl Shared {
    /// The key `name` under the store's prefix.
    fn key(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }

    /// The hash of the registrable domain `domain`.
    fn site_key(&self, domain: &str) -> String {
        format!("{}site:{domain}", self.prefix)
    }

    /// The most fields a read takes of one domain's hash: twice the per-domain limit
    /// (which the store keeps), and 16 more.
    fn most_fields_per_site(&self) -> usize {
        self.limits
            .max_per_domain
            .saturating_mul(2)
            .saturating_add(16)
    }

    /// The most domains a listing takes, and fields in all: twice the jar's limit (which
    /// the store keeps, a purge at a time), and 16 more.
    fn most_in_all(&self) -> usize {
        self.limits.max_total.saturating_mul(2).saturating_add(16)
    }

    /// The registrable domains of the jar, by [`LIST`]: at most [`Self::most_in_all`],
    /// each at most [`MAX_DOMAIN_BYTES`].
    async fn list_sites(&self) -> Result<Vec<String>, ::redis::RedisError> {
        let (left_out, domains): (u64, Vec<String>) = self
            .run_script(LIST, &self.list_sha, |command| {
                command
                    .arg(1)
                    .arg(self.key("sites"))
                    .arg(MAX_DOMAIN_BYTES)
                    .arg(self.most_in_all());
            })
            .await?;
        self.counters
            .oversized
            .fetch_add(left_out, Ordering::Relaxed);
        Ok(domains)
    }

    /// Every registrable domain of the jar and its hash, as far as [`Self::most_in_all`]
    /// domains and fields in all go: 64 domains at a time.
    async fn read_every_site(&self) -> Result<(Vec<String>, Vec<Site>), ::redis::RedisError> {
        let mut domains = self.list_sites().await?;
        let mut sites = Vec::with_capacity(domains.len());
        let mut left = self.most_in_all();
        for chunk in domains.chunks(64) {
            if left == 0 {
                break;
            }
            let read = self.read_sites(chunk, left, false).await?;
            let fields: usize = read
                .iter()
                .map(|site| site.cookies.len() + site.corrupt.len())
                .sum();
            left = left.saturating_sub(fields);
            sites.extend(read);
        }
        domains.truncate(sites.len());
        Ok((domains, sites))
    }

    /// Runs `command`, bounded by the write timeout.
    async fn within_command<T: ::redis::FromRedisValue>(
        &self,
        name: &'static str,
        command: ::redis::Cmd,
    ) -> io::Result<T> {
        let mut connection = self.connection.clone();
        self.bounded(
            name,
            async move { command.query_async(&mut connection).await },
        )
        .await
    }

    /// Awaits `work` (Redis commands called `name` in errors), bounded by the write
    /// timeout, counting a failure.
    async fn bounded<T>(
        &self,
        name: &'static str,
        work: impl std::future::Future<Output = Result<T, ::redis::RedisError>>,
    ) -> io::Result<T> {
        match tokio::time::timeout(self.write_timeout, work).await {
            Ok(Ok(value)) => Ok(value),
            Ok(Err(error)) => {
                self.count_error(name, &error);
                Err(io::Error::other(format!(
                    "RedisCookieStore: {name}: {error}"
                )))
            }
            Err(_) => {
                self.count_error(name, &"timed out");
                Err(io::Error::new(
                    io::ErrorKind::TimedOut,
                    format!(
                        "RedisCookieStore: {name} took more than {:?}",
                        self.write_timeout
                    ),
                ))
            }
        }
    }

    /// The hashes of `domains`, read in one round trip by [`READ`]: at most
    /// [`Self::most_fields_per_site`] fields of each and `most` in all, none larger than a
    /// cookie the store writes ([`MAX_FIELD_BYTES`], [`MAX_VALUE_BYTES`]); with `remove`,
    /// the larger ones are deleted.
    async fn read_sites(
        &self,
        domains: &[String],
        most: usize,
        remove: bool,
    ) -> Result<Vec<Site>, ::redis::RedisError> {
        if domains.is_empty() {
            return Ok(Vec::new());
        }
        let hashes: Vec<(u64, u64, Vec<Vec<u8>>)> = self
            .run_script(READ, &self.read_sha, |command| {
                command.arg(domains.len());
                for domain in domains {
                    command.arg(self.site_key(domain));
                }
                command
                    .arg(MAX_FIELD_BYTES)
                    .arg(MAX_VALUE_BYTES)
                    .arg(self.most_fields_per_site())
                    .arg(u64::try_from(most).unwrap_or(u64::MAX))
                    .arg(if remove { "1" } else { "0" });
            })
            .await?;
        Ok(domains
            .iter()
            .zip(hashes)
            .map(|(domain, (too_large, past_counts, read))| {
                let left_out = too_large.saturating_add(past_counts);
                self.counters
                    .oversized
                    .fetch_add(left_out, Ordering::Relaxed);
                let mut site = self.decode_site(domain, read);
                site.oversized = usize::try_from(too_large).unwrap_or(usize::MAX);
                site.unread = usize::try_from(past_counts).unwrap_or(usize::MAX);
                site
            })
            .collect())
    }

    /// A domain's hash as cookies (its fields and values one after the other), counting
    /// the values that are not.
    fn decode_site(&self, domain: &str, read: Vec<Vec<u8>>) -> Site {
        let mut site = Site::default();
        let mut read = read.into_iter();
        while let (Some(field), Some(value)) = (read.next(), read.next()) {
            match decode(domain, &field, &value) {
                Some(cookie) => site.cookies.push((field, value, cookie)),
                None => {
                    self.counters.corrupt.fetch_add(1, Ordering::Relaxed);
                    site.corrupt.push((field, value));
                }
            }
        }
        site
    }

    /// Storage model steps 11–12 for `cookies` of the registrable domain `domain` at time
    /// `now`, with the removal of its expired, corrupt and excess cookies: read, apply,
    /// write if unchanged, else again. A hash with more fields than a read takes is read
    /// and trimmed again after the cookies are stored, until the read takes every field
    /// (what is not a cookie goes first, then cookies past the limit by the storage model's
    /// order), as far as [`MAX_ATTEMPTS`] go. The jar's new count, or `None` when nothing
    /// changed.
    async fn store_in_domain(
        &self,
        domain: &str,
        cookies: &[Cookie],
        now: i64,
    ) -> Result<Option<usize>, ::redis::RedisError> {
        // The total is the purge's: here only the domain's limit applies.
        let limits = CookieLimits {
            max_total: usize::MAX,
            purge_total_to: usize::MAX,
            ..self.limits
        };
        let mut to_store = cookies;
        let mut stored = None;
        for _ in 0..MAX_ATTEMPTS {
            // What is too large to be a cookie goes as it is read.
            let site = self
                .read_sites(std::slice::from_ref(&domain.to_owned()), usize::MAX, true)
                .await?
                .pop()
                .unwrap_or_default();
            let mut old: HashMap<Vec<u8>, (Vec<u8>, Cookie)> = HashMap::new();
            let mut group = Vec::with_capacity(site.cookies.len());
            for (field, value, cookie) in site.cookies {
                group.push(cookie.clone());
                old.insert(field, (value, cookie));
            }
            let mut jar = Jar::of_group(domain.to_owned(), group);
            for cookie in to_store {
                jar.store(cookie.clone(), now, &limits);
            }
            // A store of nothing still sweeps expired cookies, and a domain past its limit
            // (left so by whoever else writes to the Redis) loses its excess cookies.
            jar.evict_expired(now);
            if jar
                .groups
                .get(domain)
                .is_some_and(|group| group.len() > limits.max_per_domain)
            {
                let target = limits.purge_per_domain_to.min(limits.max_per_domain);
                jar.remove_excess_in_domain(domain, target);
            }
            let new = jar.groups.remove(domain).unwrap_or_default();
            let mut corrupt: HashMap<Vec<u8>, Vec<u8>> = site.corrupt.into_iter().collect();
            let mut changes: Vec<Change> = Vec::new();
            for cookie in &new {
                let field = field_of(cookie);
                match old.remove(&field) {
                    Some((_, ref same)) if same == cookie => {}
                    Some((read, _)) => {
                        changes.push((field, Some(read), Write::Cookie(encode(cookie))));
                    }
                    // A value under the cookie's field that is not a cookie is written
                    // over, as read: a change naming the field twice (cleared, and
                    // written from nothing) would never apply. The count takes the
                    // value replaced for the cookie it was, as a purge counts again.
                    None => {
                        let read = corrupt.remove(&field);
                        changes.push((field, read, Write::Cookie(encode(cookie))));
                    }
                }
            }
            // What the jar no longer holds, and what was not a cookie, goes.
            changes.extend(
                old.into_iter()
                    .map(|(field, (read, _))| (field, Some(read), Write::Delete)),
            );
            changes.extend(
                corrupt
                    .into_iter()
                    .map(|(field, read)| (field, Some(read), Write::Clear)),
            );
            if changes.is_empty() {
                return Ok(stored);
            }
            match self
                .apply(domain, self.limits.max_per_domain, &changes)
                .await?
            {
                // Stored; and when the read left fields out, read again to trim them.
                Applied::Count(count) => {
                    stored = Some(count);
                    if site.unread == 0 {
                        return Ok(stored);
                    }
                    to_store = &[];
                }
                Applied::Conflict => {
                    self.counters.conflicts.fetch_add(1, Ordering::Relaxed);
                }
                // Another writer's cookies, which the next read takes.
                Applied::OverLimit if site.unread == 0 => {
                    self.counters.conflicts.fetch_add(1, Ordering::Relaxed);
                }
                // Reading the same fields again would make the same change.
                Applied::OverLimit => {
                    return Err(::redis::RedisError::from((
                        ::redis::ErrorKind::Client,
                        "the domain is past its limit",
                    )));
                }
            }
        }
        // Stored, with fields still to trim: the next change to the domain goes on.
        if stored.is_some() {
            return Ok(stored);
        }
        Err(::redis::RedisError::from((
            ::redis::ErrorKind::Client,
            "gave up after repeated conflicts",
        )))
    }

    /// Runs [`APPLY`] with `changes` to `domain`, which may then hold at most `max`
    /// cookies (or, when it held more, no more than it did).
    async fn apply(
        &self,
        domain: &str,
        max: usize,
        changes: &[Change],
    ) -> Result<Applied, ::redis::RedisError> {
        let count: i64 = self
            .run_script(APPLY, &self.apply_sha, |command| {
                command
                    .arg(3)
                    .arg(self.site_key(domain))
                    .arg(self.key("count"))
                    .arg(self.key("sites"))
                    .arg(domain)
                    .arg(u64::try_from(max).unwrap_or(u64::MAX));
                for (field, read, new) in changes {
                    command.arg(field).arg(tagged(b'=', read.as_deref()));
                    match new {
                        Write::Cookie(value) => command.arg(tagged(b'+', Some(value))),
                        Write::Delete => command.arg("-"),
                        Write::Clear => command.arg("x"),
                    };
                }
            })
            .await?;
        match count {
            -1 => return Ok(Applied::Conflict),
            -3 => return Ok(Applied::OverLimit),
            _ => {}
        }
        self.counters.writes.fetch_add(1, Ordering::Relaxed);
        match usize::try_from(count) {
            Ok(count) => Ok(Applied::Count(count)),
            // Applied, but the count was not a count: counted again, at once.
            Err(_) => self.recount(false).await.map(Applied::Count),
        }
    }

    /// Runs [`RECOUNT`]: the jar's count of cookies, counted again and set, or with
    /// `keep`, counted again only when the count is not one.
    async fn recount(&self, keep: bool) -> Result<usize, ::redis::RedisError> {
        let count: u64 = self
            .run_script(RECOUNT, &self.recount_sha, |command| {
                command
                    .arg(2)
                    .arg(self.key("sites"))
                    .arg(self.key("count"))
                    .arg(self.key("site:"))
                    .arg(if keep { "1" } else { "0" });
            })
            .await?;
        Ok(usize::try_from(count).unwrap_or(usize::MAX))
    }

    /// Runs the Lua `script` (whose SHA-1 is `sha`) with the keys and arguments `args`
    /// adds: by `EVALSHA`, so that its text crosses the network once, and by `EVAL` when
    /// Redis does not have it (after a restart or `SCRIPT FLUSH`), which loads it again.
    async fn run_script<T: ::redis::FromRedisValue>(
        &self,
        script: &'static str,
        sha: &str,
        args: impl Fn(&mut ::redis::Cmd),
    ) -> Result<T, ::redis::RedisError> {
        let mut connection = self.connection.clone();
        let mut command = ::redis::cmd("EVALSHA");
        command.arg(sha);
        args(&mut command);
        match command.query_async(&mut connection).await {
            Err(error)
                if error.kind()
                    == ::redis::ErrorKind::Server(::redis::ServerErrorKind::NoScript) =>
            {
                let mut command = ::redis::cmd("EVAL");
                command.arg(script);
                args(&mut command);
                command.query_async(&mut connection).await
            }
            ran => ran,
        }
    }

    /// [Removes excess cookies](https://httpwg.org/http-extensions/draft-ietf-httpbis-rfc6265bis.html#name-storage-model)
    /// of the whole jar down to [`CookieLimits::purge_total_to`]: expired (and corrupt)
    /// cookies first, then the earliest last-access-time first, one domain's removals per
    /// script. Runs under a lock key, so that one replica purges at a time; a domain that
    /// changed meanwhile is left for the next purge.
    async fn purge(&self, now: i64) -> Result<(), ::redis::RedisError> {
        let lock = self.key("purge");
        let mut connection = self.connection.clone();
        let mut take = ::redis::cmd("SET");
        take.arg(&lock)
            .arg(1)
            .arg("NX")
            .arg("PX")
            .arg(redis::expiry_millis(self.write_timeout.saturating_mul(10)));
        let taken: Option<String> = take.query_async(&mut connection).await?;
        if taken.is_none() {
            return Ok(());
        }
        let result = self.purge_locked(now).await;
        let mut release = ::redis::cmd("DEL");
        release.arg(&lock);
        let _: Result<i64, _> = release.query_async(&mut connection).await;
        result
    }

    async fn purge_locked(&self, now: i64) -> Result<(), ::redis::RedisError> {
        // The count drifts from the cookies when a value it counted turns out not to be a
        // cookie (or one it did not count goes): count them again first, at once.
        if self.recount(false).await? <= self.limits.max_total {
            return Ok(());
        }
        let (domains, sites) = self.read_every_site().await?;
        let total: usize = sites.iter().map(|site| site.cookies.len()).sum();
        if total <= self.limits.max_total {
            return Ok(());
        }
        self.counters.purges.fetch_add(1, Ordering::Relaxed);
        let target = self.limits.purge_total_to.min(self.limits.max_total);
        let corrupt: usize = sites.iter().map(|site| site.corrupt.len()).sum();
        let excess = total.saturating_sub(target).saturating_add(corrupt);
        // Every cookie in the order of removal.
        let mut order: Vec<PurgeOrder<'_>> = Vec::with_capacity(total);
        for (index, site) in sites.iter().enumerate() {
            for (field, value) in &site.corrupt {
                order.push(((false, 0, 0), index, field, value, Write::Clear));
            }
            for (field, value, cookie) in &site.cookies {
                let (access, creation) = cookie.access_order();
                let key = (!cookie.is_expired(now), access, creation);
                order.push((key, index, field, value, Write::Delete));
            }
        }
        order.sort_unstable_by_key(|&(key, ..)| key);
        let mut removals: Vec<Vec<Change>> = vec![Vec::new(); sites.len()];
        for (_, index, field, value, write) in order.into_iter().take(excess) {
            if let Some(changes) = removals.get_mut(index) {
                changes.push((field.to_vec(), Some(value.to_vec()), write));
            }
        }
        for (domain, changes) in domains.iter().zip(&removals) {
            // A domain changed since it was read keeps its cookies until the next purge.
            if !changes.is_empty()
                && !matches!(
                    self.apply(domain, usize::MAX, changes).await?,
                    Applied::Count(_)
                )
            {
                self.counters.conflicts.fetch_add(1, Ordering::Relaxed);
            }
        }
        Ok(())
    }

    /// Counts a failed command and traces it (the `tracing` feature) at DEBUG.
    fn count_error(&self, command: &'static str, error: &dyn fmt::Display) {
        self.counters.errors.fetch_add(1, Ordering::Relaxed);
        #[cfg(feature = "tracing")]
        tracing::debug!(
            target: "whatwg_fetch::cookie::redis",
            command,
            %error,
            "Redis cookie store: command failed"
        );
        #[cfg(not(feature = "tracing"))]
        let _ = (command, error);
    }
}

/// The store's task: queued touches, sweeps and purges, one at a time, each bounded by
/// the write timeout, until the store (the queue's sender) is dropped.
async fn run_tasks(shared: Arc<Shared>, mut queue: mpsc::Receiver<Task>) {
    while let Some(task) = queue.recv().await {
        let bytes = task.bytes();
        let (name, done) = match task {
            Task::Touch(key, touched) => {
                let done =
                    shared.run_script::<::redis::Value>(TOUCH, &shared.touch_sha, |command| {
                        command.arg(1).arg(&key);
                        for (field, read, used) in &touched {
                            command.arg(field).arg(read).arg(used);
                        }
                    });
                (
                    "EVAL",
                    tokio::time::timeout(shared.write_timeout, async { done.await.map(|_| ()) })
                        .await,
                )
            }
            Task::Sweep(domain) => {
                let swept = shared.store_in_domain(&domain, &[], now());
                (
                    "EVAL",
                    tokio::time::timeout(shared.write_timeout, async { swept.await.map(|_| ()) })
                        .await,
                )
            }
            Task::Purge => {
                let purged = shared.purge(now());
                (
                    "purge",
                    tokio::time::timeout(shared.write_timeout.saturating_mul(10), purged).await,
                )
            }
        };
        shared.queued_bytes.release(bytes);
        match done {
            Ok(Ok(())) => {}
            Ok(Err(error)) => shared.count_error(name, &error),
            Err(_) => shared.count_error(name, &"timed out"),
        }
    }
}

/// A cookie's field in its domain's hash: what makes it the cookie it is (RFC 6265 §5.3
/// step 11), its domain, path and name, each but the last after its length (so a field
/// starts with a digit).
fn field_of(cookie: &Cookie) -> Vec<u8> {
    let mut field =
        Vec::with_capacity(cookie.domain.len() + cookie.path.len() + cookie.name.len() + 12);
    field.extend_from_slice(cookie.domain.len().to_string().as_bytes());
    field.push(b':');
    field.extend_from_slice(cookie.domain.as_bytes());
    field.extend_from_slice(cookie.path.len().to_string().as_bytes());
    field.push(b':');
    field.extend_from_slice(&cookie.path);
    field.extend_from_slice(&cookie.name);
    field
}

/// A cookie as its field's value: the JSON of [`CookieStore::save_json`](super::CookieStore::save_json)'s cookies.
fn encode(cookie: &Cookie) -> Vec<u8> {
    cookie_to_json(cookie).to_string().into_bytes()
}

/// The cookie a field's value holds, if it is one (as a loaded cookie is checked), of that
/// field and of the domain `domain`.
fn decode(domain: &str, field: &[u8], value: &[u8]) -> Option<Cookie> {
    let json = serde_json::from_slice(value).ok()?;
    let cookie = cookie_from_json(&json).ok()?;
    (field_of(&cookie) == field && limit_key(&cookie.domain) == domain).then_some(cookie)
}

/// A field's value as [`APPLY`] takes it: `tag` and the value, or `-` for none.
fn tagged(tag: u8, value: Option<&[u8]>) -> Vec<u8> {
    match value {
        Some(value) => {
            let mut tagged = Vec::with_capacity(value.len() + 1);
            tagged.push(tag);
            tagged.extend_from_slice(value);
            tagged
        }
        None => b"-".to_vec(),
    }
}

/// Microseconds since the Unix epoch now: creation- and last-access-times in Redis, which
/// every replica orders alike.
fn now_micros() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |since| {
            u64::try_from(since.as_micros()).unwrap_or(u64::MAX)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cookie(url: &str, header: &str) -> Cookie {
        let url = Url::parse(url).unwrap();
        new_cookie(&url, header.as_bytes(), 1_000).unwrap()
    }

    #[test]
    fn a_value_reads_back_only_as_the_cookie_of_its_field_and_domain() {
        let a = cookie(
            "https://www.example.com/a/b",
            "id=1; Domain=example.com; Secure",
        );
        let value = encode(&a);
        assert_eq!(
            decode("example.com", &field_of(&a), &value),
            Some(a.clone())
        );
        assert_eq!(decode("example.org", &field_of(&a), &value), None);
        let b = cookie("https://www.example.com/a/b", "other=1; Domain=example.com");
        assert_eq!(decode("example.com", &field_of(&b), &value), None);
        for length in 0..value.len() {
            assert_eq!(decode("example.com", &field_of(&a), &value[..length]), None);
        }
    }

    #[test]
    fn fields_tell_apart_what_the_storage_model_tells_apart() {
        let fields = [
            field_of(&cookie("https://example.com/", "a=1; Path=/b")),
            field_of(&cookie("https://example.com/", "a=1; Path=/")),
            field_of(&cookie("https://example.com/", "b=1; Path=/")),
            field_of(&cookie("https://x.example.com/", "a=1; Path=/b")),
        ];
        for (i, a) in fields.iter().enumerate() {
            for b in fields.get(i + 1..).unwrap() {
                assert_ne!(a, b);
            }
            assert!(a.first().is_some_and(u8::is_ascii_digit));
        }
        // A value replacing one keeps its field, as does the same name, domain and path
        // with a `Domain` attribute (not part of what makes a cookie the one it is).
        assert_eq!(
            field_of(&cookie("https://example.com/", "a=1; Path=/b")),
            field_of(&cookie("https://example.com/", "a=2; Path=/b; Max-Age=60"))
        );
        assert_eq!(
            field_of(&cookie("https://example.com/", "a=1; Path=/b")),
            field_of(&cookie(
                "https://example.com/",
                "a=1; Domain=example.com; Path=/b"
            ))
        );
    }

    #[test]
    fn the_largest_cookies_fit_in_what_a_read_takes() {
        // A host of 1,023 bytes (16 labels of 63), the longest name and value (4,096 bytes
        // in all) and path (1,024): as bytes that are not UTF-8 (an array of numbers in
        // JSON, four bytes each), as characters JSON escapes, and as plain ones.
        let host = vec!["a".repeat(63); 16].join(".");
        let url = Url::parse(&format!("https://{host}/")).unwrap();
        assert_eq!(url.host_str().map(str::len), Some(1023));
        let mut largest = (0, 0);
        for byte in [0xff, b'"', b'\\', b'x'] {
            let mut header = b"n=".to_vec();
            header.extend(std::iter::repeat_n(byte, 4095));
            header.extend_from_slice(b"; Path=/");
            header.extend(std::iter::repeat_n(byte, 1023));
            let cookie = new_cookie(&url, &header, 1_000).expect("a cookie at the limits");
            assert_eq!(cookie.text_bytes(), 4096 + 1023 + 1024);
            assert!(limit_key(&cookie.domain).len() <= MAX_DOMAIN_BYTES);
            let (field, value) = (field_of(&cookie).len(), encode(&cookie).len());
            largest = (largest.0.max(field), largest.1.max(value));
        }
        assert!(
            largest.0 <= MAX_FIELD_BYTES,
            "a field of {} bytes",
            largest.0
        );
        assert!(
            largest.1 <= MAX_VALUE_BYTES,
            "a value of {} bytes",
            largest.1
        );
        // The bounds are of the order of the cookies, not far above them.
        assert!(largest.1 > MAX_VALUE_BYTES / 4, "{largest:?}");
    }
}
