//! Where the cache's responses are written so that they outlive it: the
//! [`HttpCacheStore`] trait, [`DiskCacheStore`] (a directory of files, one per cache key)
//! and [`MemoryCacheStore`]; and the record a cache key's stored responses are written
//! as. RFC 9111 leaves how a cache keeps its responses to the cache.
//!
//! The cache keeps its index and its responses in memory, as without a store, and writes
//! each change through to the store: a key's record is put when a response is stored,
//! combined or freshened, removed when its responses are evicted or invalidated, and
//! touched when one is used. When the cache is made, it reads every record back, least
//! recently used first. Nothing the store says fails a fetch: an error writing is a record
//! left unwritten, and a record that cannot be read is dropped.
//!
//! A store that other caches write to at the same time (one on Redis, shared by a fleet)
//! says so with [`HttpCacheStore::is_shared`]: a cache on it reads a key's record through
//! ([`HttpCacheStore::get`]) when it holds nothing for a request, before the network, and
//! leaves the store's records in place when it evicts from its memory. Each record is put
//! with the time its responses are of use ([`HttpCacheStore::put_expiring`]), after which
//! a store that expires records lets it go. A cache holding responses for a key does not
//! ask the store for it again, so another cache's newer response for that key reaches it
//! only once its own is evicted; the last cache to store responses for a key writes its
//! record, whole (a `Vary`'d response another cache stored under the same key may be
//! replaced).

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::fs::{self, File};
use std::future::Future;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use bytes::Bytes;
use sha2::{Digest, Sha256};

use super::ranges::Extent;
use super::storage::Entry;
use crate::headers::HeaderList;

/// Where a client's HTTP cache writes its stored responses, so that a cache made later (in
/// this process or another) starts with them: see
/// [`ClientBuilder::http_cache_store`](crate::ClientBuilder::http_cache_store).
///
/// A record is the opaque bytes of one cache key's stored responses (a URL and whether
/// the request carried credentials; the responses for each `Vary`'d request); `key` is
/// printable text. The cache calls these methods while it holds its lock, so each key's
/// writes arrive in order; a method that fails only leaves the store behind the cache,
/// and never fails a fetch.
///
/// ```
/// use std::collections::HashMap;
/// use std::sync::{Arc, Mutex};
/// use whatwg_fetch::Client;
/// use whatwg_fetch::cache::HttpCacheStore;
///
/// /// Records kept in a map: a store of one's own (a database, an object store) has the
/// /// same five methods.
/// #[derive(Debug, Default)]
/// struct InMap(Mutex<HashMap<String, Vec<u8>>>);
///
/// impl HttpCacheStore for InMap {
///     fn load(&self) -> Vec<(String, Vec<u8>)> {
///         self.0.lock().unwrap().iter().map(|(k, v)| (k.clone(), v.clone())).collect()
///     }
///     fn put(&self, key: &str, record: &[u8]) -> std::io::Result<()> {
///         self.0.lock().unwrap().insert(key.to_owned(), record.to_vec());
///         Ok(())
///     }
///     fn touch(&self, _key: &str) -> std::io::Result<()> {
///         Ok(())
///     }
///     fn remove(&self, key: &str) -> std::io::Result<()> {
///         self.0.lock().unwrap().remove(key);
///         Ok(())
///     }
///     fn max_bytes(&self) -> usize {
///         16 << 20
///     }
/// }
///
/// let client = Client::builder().http_cache_store(Arc::new(InMap::default())).build()?;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
pub trait HttpCacheStore: Send + Sync + fmt::Debug {
    /// Every stored record as `(key, record)`, least recently used first. Called once, when
    /// a cache is made with the store.
    ///
    /// ```
    /// use whatwg_fetch::cache::{DiskCacheStore, HttpCacheStore};
    ///
    /// let name = format!("whatwg-fetch-doc-load-{}", std::process::id());
    /// let dir = std::env::temp_dir().join(name);
    /// let store = DiskCacheStore::open(&dir, 64 << 20)?;
    /// store.put("https://example.com/", b"record")?;
    /// drop(store);
    ///
    /// // A store opened later on the same directory (after a restart, say) has the record.
    /// let store = DiskCacheStore::open(&dir, 64 << 20)?;
    /// assert_eq!(store.load(), [("https://example.com/".to_owned(), b"record".to_vec())]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn load(&self) -> Vec<(String, Vec<u8>)>;

    /// Stores `record` for `key`, replacing what was stored for it.
    ///
    /// ```
    /// use whatwg_fetch::cache::{DiskCacheStore, HttpCacheStore};
    ///
    /// let name = format!("whatwg-fetch-doc-put-{}", std::process::id());
    /// let dir = std::env::temp_dir().join(name);
    /// let store = DiskCacheStore::open(&dir, 64 << 20)?;
    /// store.put("https://example.com/", b"first")?;
    /// store.put("https://example.com/", b"second")?;
    /// assert_eq!(store.load(), [("https://example.com/".to_owned(), b"second".to_vec())]);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// # Errors
    /// The I/O error that kept the record from being stored.
    fn put(&self, key: &str, record: &[u8]) -> io::Result<()>;

    /// Marks the record of `key` as used now, for the least-recently-used order.
    ///
    /// ```
    /// use whatwg_fetch::cache::{HttpCacheStore, MemoryCacheStore};
    ///
    /// let store = MemoryCacheStore::new(64 << 20);
    /// store.put("https://a.example/", b"a")?;
    /// store.put("https://b.example/", b"b")?;
    /// store.touch("https://a.example/")?;
    /// // Least recently used first: `b`, then `a`, used since it was put.
    /// let keys: Vec<String> = store.load().into_iter().map(|(key, _)| key).collect();
    /// assert_eq!(keys, ["https://b.example/", "https://a.example/"]);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// A key with no record is no error: there is nothing to mark (as [`remove`] of one
    /// is none), and nothing is stored for it.
    ///
    /// # Errors
    /// The I/O error that kept the mark from being stored.
    ///
    /// [`remove`]: HttpCacheStore::remove
    fn touch(&self, key: &str) -> io::Result<()>;

    /// Removes the record of `key`, if there is one.
    ///
    /// ```
    /// use whatwg_fetch::cache::{DiskCacheStore, HttpCacheStore};
    ///
    /// let name = format!("whatwg-fetch-doc-remove-{}", std::process::id());
    /// let dir = std::env::temp_dir().join(name);
    /// let store = DiskCacheStore::open(&dir, 64 << 20)?;
    /// store.put("https://example.com/", b"record")?;
    /// store.remove("https://example.com/")?;
    /// assert!(store.load().is_empty());
    /// // Nothing to remove is no error.
    /// store.remove("https://example.com/")?;
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// # Errors
    /// The I/O error that kept the record from being removed.
    fn remove(&self, key: &str) -> io::Result<()>;

    /// The most bytes of responses (bodies and header fields) the cache keeps, in all.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::cache::{HttpCacheStore, MemoryCacheStore};
    ///
    /// // A client on this store keeps at most 8 MiB of responses.
    /// let store = Arc::new(MemoryCacheStore::new(8 << 20));
    /// assert_eq!(store.max_bytes(), 8 << 20);
    /// let client = Client::builder().http_cache_store(store).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    fn max_bytes(&self) -> usize;

    /// Stores `record` for `key`, as [`put`](Self::put) does, for at most `ttl` (`None`:
    /// until it is replaced or removed). The cache gives each record the time its responses
    /// are of use: their freshness lifetime left, plus their `stale-while-revalidate` and
    /// `stale-if-error` windows, plus a day when one has a validator (`ETag` or
    /// `Last-Modified`), so that a cache reading it can still validate it. A store that
    /// expires records (such as one on Redis) lets them go then; by default the `ttl` is
    /// ignored and the record is [`put`](Self::put).
    ///
    /// ```
    /// use std::time::Duration;
    /// use whatwg_fetch::cache::{HttpCacheStore, MemoryCacheStore};
    ///
    /// let store = MemoryCacheStore::new(64 << 20);
    /// // A store that does not expire records (the default): the `ttl` is ignored.
    /// store.put_expiring("https://example.com/", b"record", Some(Duration::from_secs(60)))?;
    /// assert_eq!(store.load().len(), 1);
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// # Errors
    /// The I/O error that kept the record from being stored.
    fn put_expiring(&self, key: &str, record: &[u8], ttl: Option<Duration>) -> io::Result<()> {
        let _ = ttl;
        self.put(key, record)
    }

    /// Whether other caches (of other clients, or other processes) write to this store
    /// while this one reads it: then a cache that holds nothing for a request asks the store
    /// ([`get`](Self::get)) before the network, and its own evictions leave the store's
    /// records in place (they are the others' too). Default: `false`, a store of one cache
    /// at a time, read once when the cache is made.
    ///
    /// ```
    /// use whatwg_fetch::cache::{DiskCacheStore, HttpCacheStore, MemoryCacheStore};
    ///
    /// let name = format!("whatwg-fetch-doc-is-shared-{}", std::process::id());
    /// let dir = std::env::temp_dir().join(name);
    /// let store = DiskCacheStore::open(&dir, 64 << 20)?;
    /// // A directory is for one cache at a time; memory is this process's.
    /// assert!(!store.is_shared());
    /// assert!(!MemoryCacheStore::new(64 << 20).is_shared());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    fn is_shared(&self) -> bool {
        false
    }

    /// The record of `key`, if the store has one, for a cache whose store
    /// [is shared](Self::is_shared): awaited before the network, so a store bounds its own
    /// time (an answer too slow, or an error, is `None`, a miss). A record that the cache
    /// cannot read is a miss too. Default: `None`.
    ///
    /// ```
    /// # tokio_test::block_on(async {
    /// use whatwg_fetch::cache::{HttpCacheStore, MemoryCacheStore};
    ///
    /// let store = MemoryCacheStore::new(64 << 20);
    /// store.put("https://example.com/", b"record")?;
    /// // Not shared: read once, with `load`, and never key by key.
    /// assert_eq!(store.get("https://example.com/").await, None);
    /// # Ok::<(), std::io::Error>(())
    /// # }).unwrap();
    /// ```
    fn get<'a>(
        &'a self,
        key: &'a str,
    ) -> Pin<Box<dyn Future<Output = Option<Vec<u8>>> + Send + 'a>> {
        let _ = key;
        Box::pin(std::future::ready(None))
    }
}

/// An [`HttpCacheStore`] in memory: records outlive a [`Client`](crate::Client) (and its
/// cache) as long as the store does, in this process only. A store given to several
/// clients one after the other lets each start where the last one ended; clients using it
/// at once each write their own changes and read the others' only when they start.
///
/// ```
/// use std::sync::Arc;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::cache::MemoryCacheStore;
///
/// // A cache of 64 MiB in this process, shared by every client given it.
/// let store = Arc::new(MemoryCacheStore::new(64 << 20));
/// let client = Client::builder().http_cache_store(store).build()?;
/// # Ok::<(), whatwg_fetch::Error>(())
/// ```
#[derive(Debug)]
pub struct MemoryCacheStore {
    records: Mutex<HashMap<String, (u64, Vec<u8>)>>,
    clock: AtomicU64,
    max_bytes: usize,
}

impl MemoryCacheStore {
    /// An empty store for a cache of at most `max_bytes` bytes of responses.
    ///
    /// ```
    /// use std::sync::Arc;
    /// use whatwg_fetch::Client;
    /// use whatwg_fetch::cache::MemoryCacheStore;
    ///
    /// // One cache of at most 32 MiB, shared by two clients.
    /// let store = Arc::new(MemoryCacheStore::new(32 << 20));
    /// let one = Client::builder().http_cache_store(store.clone()).build()?;
    /// let two = Client::builder().http_cache_store(store).build()?;
    /// # Ok::<(), whatwg_fetch::Error>(())
    /// ```
    pub fn new(max_bytes: usize) -> MemoryCacheStore {
        MemoryCacheStore {
            records: Mutex::default(),
            clock: AtomicU64::new(0),
            max_bytes,
        }
    }

    fn tick(&self) -> u64 {
        self.clock.fetch_add(1, Ordering::Relaxed)
    }
}

impl HttpCacheStore for MemoryCacheStore {
    fn load(&self) -> Vec<(String, Vec<u8>)> {
        let records = self.records.lock().unwrap_or_else(PoisonError::into_inner);
        let mut all: Vec<(u64, String, Vec<u8>)> = records
            .iter()
            .map(|(key, (used, record))| (*used, key.clone(), record.clone()))
            .collect();
        all.sort_by_key(|(used, _, _)| *used);
        all.into_iter()
            .map(|(_, key, record)| (key, record))
            .collect()
    }

    fn put(&self, key: &str, record: &[u8]) -> io::Result<()> {
        let used = self.tick();
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .insert(key.to_owned(), (used, record.to_vec()));
        Ok(())
    }

    fn touch(&self, key: &str) -> io::Result<()> {
        let used = self.tick();
        if let Some(record) = self
            .records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .get_mut(key)
        {
            record.0 = used;
        }
        Ok(())
    }

    fn remove(&self, key: &str) -> io::Result<()> {
        self.records
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .remove(key);
        Ok(())
    }

    fn max_bytes(&self) -> usize {
        self.max_bytes
    }
}

/// The first bytes of a [`DiskCacheStore`] file, with the version of its layout.
const FILE_MAGIC: &[u8; 8] = b"WFCACHE1";

/// The extension of a [`DiskCacheStore`] record's file.
const FILE_EXTENSION: &str = "entry";

/// The start of a [`DiskCacheStore`] temporary file's name.
const TEMP_PREFIX: &str = ".tmp-";

/// An [`HttpCacheStore`] in a directory: the cache outlives the process.
///
/// Each cache key's record is one file, named by the SHA-256 of the key, holding the key,
/// the record and a SHA-256 of both. A file is written whole or not at all: to a temporary
/// file first, which is flushed to the disk (`fsync`) and then renamed over the old one,
/// so a crash leaves the old record or the new one, never a mix. On reading, a file that
/// is truncated, corrupt (its hash does not match) or of another layout is deleted and
/// counts as a miss. A record's last use is its file's modification time: the least
/// recently used go first when the cache is over `max_bytes`.
///
/// The cache keeps what it stores in memory too, so a cache on a `DiskCacheStore` holds up
/// to `max_bytes` in memory; it keeps at most 1,024 responses, each body at most 8 MiB, as
/// without a store. Writes are synchronous, on the task that stores a response
/// (when its body ends).
///
/// One directory is for one cache at a time. Two clients (or processes) on the same
/// directory never corrupt a file, as each write is a rename, but each works from what it
/// read when it started: one may write back a response the other has evicted or
/// invalidated, and the size bound holds for each, not for both.
///
/// ```
/// use std::sync::Arc;
/// use whatwg_fetch::Client;
/// use whatwg_fetch::cache::DiskCacheStore;
///
/// let dir = std::env::temp_dir().join(format!("whatwg-fetch-doc-{}", std::process::id()));
/// let store = DiskCacheStore::open(&dir, 64 << 20)?;
/// let client = Client::builder().http_cache_store(Arc::new(store)).build()?;
/// # std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct DiskCacheStore {
    dir: PathBuf,
    max_bytes: usize,
    temp_counter: AtomicU64,
}

impl DiskCacheStore {
    /// A store in `dir` (created if missing) for a cache of at most `max_bytes` bytes of
    /// responses (bodies and header fields; the files hold a little more: the key, the
    /// request's `Vary`'d values and some 60 bytes of layout). Temporary files a crash left
    /// behind are deleted.
    ///
    /// ```
    /// use whatwg_fetch::cache::{DiskCacheStore, HttpCacheStore};
    ///
    /// let name = format!("whatwg-fetch-doc-open-{}", std::process::id());
    /// let dir = std::env::temp_dir().join(name);
    /// let store = DiskCacheStore::open(&dir, 64 << 20)?;
    /// store.put("https://example.com/", b"record")?;
    /// // Opened again: the record is there.
    /// assert_eq!(DiskCacheStore::open(&dir, 64 << 20)?.load().len(), 1);
    ///
    /// // A file is not a directory.
    /// let file = dir.join("notes.txt");
    /// std::fs::write(&file, "not a directory")?;
    /// assert!(DiskCacheStore::open(&file, 64 << 20).is_err());
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    ///
    /// # Errors
    /// The I/O error when `dir` cannot be created or read.
    pub fn open(dir: impl AsRef<Path>, max_bytes: usize) -> io::Result<DiskCacheStore> {
        let dir = dir.as_ref().to_path_buf();
        fs::create_dir_all(&dir)?;
        for file in fs::read_dir(&dir)? {
            let path = file?.path();
            if path
                .file_name()
                .and_then(|name| name.to_str())
                .is_some_and(|name| name.starts_with(TEMP_PREFIX))
            {
                let _ = fs::remove_file(&path);
            }
        }
        Ok(DiskCacheStore {
            dir,
            max_bytes,
            temp_counter: AtomicU64::new(0),
        })
    }

    /// The directory the store is in.
    ///
    /// ```
    /// use whatwg_fetch::cache::DiskCacheStore;
    ///
    /// let name = format!("whatwg-fetch-doc-dir-{}", std::process::id());
    /// let dir = std::env::temp_dir().join(name);
    /// let store = DiskCacheStore::open(&dir, 64 << 20)?;
    /// assert_eq!(store.dir(), dir);
    /// # std::fs::remove_dir_all(&dir)?;
    /// # Ok::<(), std::io::Error>(())
    /// ```
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    fn path_of(&self, key: &str) -> PathBuf {
        self.dir
            .join(format!("{}.{FILE_EXTENSION}", hex(&Sha256::digest(key))))
    }

    /// The key and record of a file, or `None` when it is not a whole, intact record.
    fn read_record(path: &Path) -> Option<(String, Vec<u8>)> {
        let mut bytes = Vec::new();
        File::open(path).ok()?.read_to_end(&mut bytes).ok()?;
        let mut reader = Reader::new(&bytes);
        if reader.take(FILE_MAGIC.len())? != FILE_MAGIC {
            return None;
        }
        let hash = reader.take(32)?;
        let rest = reader.rest();
        if Sha256::digest(rest).as_slice() != hash {
            return None;
        }
        let mut reader = Reader::new(rest);
        let key = String::from_utf8(reader.bytes()?.to_vec()).ok()?;
        let record = reader.bytes()?.to_vec();
        reader.rest().is_empty().then_some((key, record))
    }
}

impl HttpCacheStore for DiskCacheStore {
    fn load(&self) -> Vec<(String, Vec<u8>)> {
        let Ok(files) = fs::read_dir(&self.dir) else {
            return Vec::new();
        };
        let mut records: Vec<(SystemTime, String, Vec<u8>)> = Vec::new();
        for file in files.flatten() {
            let path = file.path();
            if path.extension().and_then(|e| e.to_str()) != Some(FILE_EXTENSION) {
                continue;
            }
            let used = file
                .metadata()
                .and_then(|metadata| metadata.modified())
                .unwrap_or(UNIX_EPOCH);
            match DiskCacheStore::read_record(&path) {
                // A file of another key (renamed by hand) is no record of this one.
                Some((key, record)) if self.path_of(&key) == path => {
                    records.push((used, key, record));
                }
                _ => {
                    let _ = fs::remove_file(&path);
                }
            }
        }
        records.sort_by_key(|(used, _, _)| *used);
        records
            .into_iter()
            .map(|(_, key, record)| (key, record))
            .collect()
    }

    fn put(&self, key: &str, record: &[u8]) -> io::Result<()> {
        let mut body = Vec::with_capacity(key.len() + record.len() + 16);
        put_bytes(&mut body, key.as_bytes());
        put_bytes(&mut body, record);
        let temp = self.dir.join(format!(
            "{TEMP_PREFIX}{}-{}",
            std::process::id(),
            self.temp_counter.fetch_add(1, Ordering::Relaxed)
        ));
        let written = (|| {
            let mut file = File::create(&temp)?;
            file.write_all(FILE_MAGIC)?;
            file.write_all(&Sha256::digest(&body))?;
            file.write_all(&body)?;
            // The last use is read from the same clock as `touch` writes it, not from the
            // file system's coarser one.
            file.set_modified(SystemTime::now())?;
            file.sync_all()?;
            fs::rename(&temp, self.path_of(key))
        })();
        if written.is_err() {
            let _ = fs::remove_file(&temp);
        }
        written
    }

    fn touch(&self, key: &str) -> io::Result<()> {
        // No record (another store on the directory removed it, say): nothing to mark.
        match File::options().write(true).open(self.path_of(key)) {
            Ok(file) => file.set_modified(SystemTime::now()),
            Err(error) if error.kind() == io::ErrorKind::NotFound => Ok(()),
            Err(error) => Err(error),
        }
    }

    fn remove(&self, key: &str) -> io::Result<()> {
        match fs::remove_file(self.path_of(key)) {
            Err(error) if error.kind() != io::ErrorKind::NotFound => Err(error),
            _ => Ok(()),
        }
    }

    fn max_bytes(&self) -> usize {
        self.max_bytes
    }
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|byte| format!("{byte:02x}")).collect()
}

/// The version of the record layout [`encode_entries`] writes: 2 added each response's
/// HTTP version; a record of version 1 is not read (its responses are fetched again).
const RECORD_VERSION: u8 = 2;

/// The HTTP versions a record holds, by the byte that stands for each.
const HTTP_VERSIONS: [http::Version; 5] = [
    http::Version::HTTP_09,
    http::Version::HTTP_10,
    http::Version::HTTP_11,
    http::Version::HTTP_2,
    http::Version::HTTP_3,
];

/// A cache key's stored responses as a record: little-endian numbers, byte strings as a
/// `u64` length and the bytes.
pub(super) fn encode_entries(entries: &[Entry]) -> Vec<u8> {
    let mut out = vec![RECORD_VERSION];
    put_u64(&mut out, entries.len() as u64);
    for entry in entries {
        put_u64(&mut out, u64::from(entry.status));
        put_bytes(&mut out, entry.status_message.as_bytes());
        // HTTP/1.1's byte for a version `http` may add one day.
        let version = HTTP_VERSIONS.iter().position(|&v| v == entry.version);
        out.push(version.and_then(|at| u8::try_from(at).ok()).unwrap_or(2));
        put_u64(&mut out, entry.headers.iter_bytes().len() as u64);
        for (name, value) in entry.headers.iter_bytes() {
            put_bytes(&mut out, name);
            put_bytes(&mut out, value);
        }
        put_u64(&mut out, entry.vary.len() as u64);
        for (name, value) in &entry.vary {
            put_bytes(&mut out, name);
            match value {
                Some(value) => {
                    out.push(1);
                    put_bytes(&mut out, value);
                }
                None => out.push(0),
            }
        }
        put_bytes(&mut out, &entry.body);
        match &entry.partial {
            Some(extent) => {
                out.push(1);
                put_u64(&mut out, extent.first);
                match extent.complete_length {
                    Some(length) => {
                        out.push(1);
                        put_u64(&mut out, length);
                    }
                    None => out.push(0),
                }
            }
            None => out.push(0),
        }
        put_time(&mut out, entry.request_time);
        put_time(&mut out, entry.response_time);
    }
    out
}

/// The stored responses of a record [`encode_entries`] wrote, or `None` when it is not
/// one (another version, or damaged): their ids, recency and sizes are the cache's to set.
pub(super) fn decode_entries(record: &[u8]) -> Option<Vec<Entry>> {
    let mut reader = Reader::new(record);
    if reader.take(1)? != [RECORD_VERSION] {
        return None;
    }
    let count = reader.u64()?;
    let mut entries = Vec::new();
    for _ in 0..count {
        let status = u16::try_from(reader.u64()?).ok()?;
        let status_message = String::from_utf8(reader.bytes()?.to_vec()).ok()?;
        let version = *HTTP_VERSIONS.get(usize::from(*reader.take(1)?.first()?))?;
        let mut headers = HeaderList::new();
        for _ in 0..reader.u64()? {
            let name = Bytes::copy_from_slice(reader.bytes()?);
            let value = Bytes::copy_from_slice(reader.bytes()?);
            headers.push(name, value);
        }
        let mut vary = Vec::new();
        for _ in 0..reader.u64()? {
            let name = reader.bytes()?.to_vec();
            let value = match reader.flag()? {
                true => Some(Bytes::copy_from_slice(reader.bytes()?)),
                false => None,
            };
            vary.push((name, value));
        }
        let body = Bytes::copy_from_slice(reader.bytes()?);
        let partial = match reader.flag()? {
            true => Some(Extent {
                first: reader.u64()?,
                complete_length: match reader.flag()? {
                    true => Some(reader.u64()?),
                    false => None,
                },
            }),
            false => None,
        };
        entries.push(Entry {
            id: 0,
            vary,
            status,
            status_message: Cow::Owned(status_message),
            version,
            headers,
            body,
            partial,
            request_time: reader.time()?,
            response_time: reader.time()?,
            last_used: 0,
            size: 0,
        });
    }
    reader.rest().is_empty().then_some(entries)
}

fn put_u64(out: &mut Vec<u8>, value: u64) {
    out.extend_from_slice(&value.to_le_bytes());
}

fn put_bytes(out: &mut Vec<u8>, bytes: &[u8]) {
    put_u64(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// A time as whole seconds and nanoseconds since the Unix epoch (a time before it, as 0).
fn put_time(out: &mut Vec<u8>, time: SystemTime) {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    put_u64(out, since.as_secs());
    put_u64(out, u64::from(since.subsec_nanos()));
}

/// Reads what `put_*` wrote; every read is `None` past the end.
struct Reader<'a> {
    bytes: &'a [u8],
}

impl<'a> Reader<'a> {
    fn new(bytes: &'a [u8]) -> Reader<'a> {
        Reader { bytes }
    }

    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let (taken, rest) = self.bytes.split_at_checked(n)?;
        self.bytes = rest;
        Some(taken)
    }

    fn rest(&self) -> &'a [u8] {
        self.bytes
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }

    fn flag(&mut self) -> Option<bool> {
        match self.take(1)? {
            [0] => Some(false),
            [1] => Some(true),
            _ => None,
        }
    }

    fn bytes(&mut self) -> Option<&'a [u8]> {
        let length = usize::try_from(self.u64()?).ok()?;
        self.take(length)
    }

    fn time(&mut self) -> Option<SystemTime> {
        let seconds = self.u64()?;
        let nanos = u32::try_from(self.u64()?).ok()?;
        UNIX_EPOCH.checked_add(Duration::new(seconds, nanos))
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_support::{at, entry, list, part};
    use super::*;

    #[test]
    fn a_record_keeps_every_field_of_its_responses() {
        let mut whole = entry(list(&[("ETag", "\"a\""), ("Vary", "Accept")]), 200);
        whole.vary = vec![
            (b"accept".to_vec(), Some(Bytes::from_static(b"text/html"))),
            (b"x-missing".to_vec(), None),
        ];
        whole.status_message = Cow::Borrowed("OK");
        whole.version = http::Version::HTTP_2;
        whole.response_time = at(5) + Duration::from_nanos(7);
        let incomplete = part("bcd", 1, Some(10), "\"b\"");
        let unknown_length = part("xyz", 4, None, "\"c\"");
        let record = encode_entries(&[whole.clone(), incomplete.clone(), unknown_length.clone()]);
        let decoded = decode_entries(&record).unwrap();
        assert_eq!(decoded.len(), 3);
        for (decoded, original) in decoded.iter().zip([&whole, &incomplete, &unknown_length]) {
            assert_eq!(decoded.status, original.status);
            assert_eq!(decoded.status_message, original.status_message);
            assert_eq!(decoded.version, original.version);
            assert_eq!(
                decoded.headers.iter_bytes().collect::<Vec<_>>(),
                original.headers.iter_bytes().collect::<Vec<_>>()
            );
            assert_eq!(decoded.vary, original.vary);
            assert_eq!(decoded.body, original.body);
            assert_eq!(
                decoded
                    .partial
                    .as_ref()
                    .map(|p| (p.first, p.complete_length)),
                original
                    .partial
                    .as_ref()
                    .map(|p| (p.first, p.complete_length))
            );
            assert_eq!(decoded.request_time, original.request_time);
            assert_eq!(decoded.response_time, original.response_time);
        }
        // Every shorter record, and one with a byte more, is refused, never a panic.
        for length in 0..record.len() {
            assert!(
                decode_entries(&record[..length]).is_none(),
                "length {length}"
            );
        }
        let mut longer = record.clone();
        longer.push(0);
        assert!(decode_entries(&longer).is_none());
    }
}
