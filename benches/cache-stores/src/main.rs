//! Files or SQLite under the HTTP cache: `DiskCacheStore` (one file per cache key) against
//! `SqliteCacheStore` below (one table in one SQLite database, in WAL mode), both as
//! `HttpCacheStore`s, on the same records: puts a second, open and load time, size on
//! disk, touches and removes a second. See README.md.
//!
//! ```sh
//! cargo run --release -- [--n 10000] [--sizes 1,16,256] [--order disk-first|sqlite-first] [--dir DIR]
//! ```

use std::fmt;
use std::fs::{self, File};
use std::io;
use std::os::fd::AsRawFd;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicI64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use rusqlite::{Connection, OptionalExtension, params};
use whatwg_fetch::cache::{DiskCacheStore, HttpCacheStore};

/// How SQLite syncs a commit in WAL mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Synchronous {
    /// Each commit's WAL frames are flushed (`fsync`) before the commit returns: a put is
    /// durable on return, as a `DiskCacheStore` put is.
    Full,
    /// The WAL is flushed only at checkpoints: a commit survives a crash of the process but
    /// the last ones may be lost on a power failure (the database stays consistent).
    Normal,
}

/// An [`HttpCacheStore`] in one SQLite database: a table of `(key, record, last_use,
/// expires)`, in WAL mode, one transaction per put, touch or remove.
///
/// `last_use` is nanoseconds since the Unix epoch, kept strictly increasing within a store
/// so that the least-recently-used order has no ties; `expires` (the same unit) is when a
/// record put with a time to live stops being loaded. As with `DiskCacheStore`, the size
/// bound is the cache's to keep: the store reports `max_bytes` and the cache removes what
/// it evicts.
struct SqliteCacheStore {
    connection: Mutex<Connection>,
    clock: AtomicI64,
    max_bytes: usize,
}

impl fmt::Debug for SqliteCacheStore {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SqliteCacheStore")
            .field("max_bytes", &self.max_bytes)
            .finish_non_exhaustive()
    }
}

fn sqlite_error(error: rusqlite::Error) -> io::Error {
    io::Error::other(error)
}

fn nanos_since_epoch(time: SystemTime) -> i64 {
    let since = time.duration_since(UNIX_EPOCH).unwrap_or_default();
    i64::try_from(since.as_nanos()).unwrap_or(i64::MAX)
}

impl SqliteCacheStore {
    /// The store in the database at `path` (created if missing).
    fn open(path: &Path, max_bytes: usize, synchronous: Synchronous) -> io::Result<Self> {
        let connection = Connection::open(path).map_err(sqlite_error)?;
        let mode: String = connection
            .query_row("PRAGMA journal_mode = WAL", [], |row| row.get(0))
            .map_err(sqlite_error)?;
        if !mode.eq_ignore_ascii_case("wal") {
            return Err(io::Error::other(format!("journal_mode is {mode}, not wal")));
        }
        let synchronous = match synchronous {
            Synchronous::Full => "FULL",
            Synchronous::Normal => "NORMAL",
        };
        connection
            .execute_batch(&format!(
                "PRAGMA synchronous = {synchronous};
                 CREATE TABLE IF NOT EXISTS entries (
                     key TEXT PRIMARY KEY NOT NULL,
                     record BLOB NOT NULL,
                     last_use INTEGER NOT NULL,
                     expires INTEGER
                 );"
            ))
            .map_err(sqlite_error)?;
        connection
            .busy_timeout(Duration::from_secs(5))
            .map_err(sqlite_error)?;
        let last: Option<i64> = connection
            .query_row("SELECT MAX(last_use) FROM entries", [], |row| row.get(0))
            .map_err(sqlite_error)?;
        Ok(SqliteCacheStore {
            connection: Mutex::new(connection),
            clock: AtomicI64::new(last.unwrap_or(0)),
            max_bytes,
        })
    }

    /// Now, or just after the last use this store wrote if the clock went back.
    fn tick(&self) -> i64 {
        let now = nanos_since_epoch(SystemTime::now());
        let previous = self
            .clock
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |last| {
                Some(now.max(last + 1))
            })
            .unwrap_or(now);
        now.max(previous + 1)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Connection> {
        self.connection
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
    }

    fn write(&self, key: &str, record: &[u8], ttl: Option<Duration>) -> io::Result<()> {
        let used = self.tick();
        let expires =
            ttl.map(|ttl| used.saturating_add(i64::try_from(ttl.as_nanos()).unwrap_or(i64::MAX)));
        self.lock()
            .prepare_cached(
                "INSERT INTO entries (key, record, last_use, expires) VALUES (?1, ?2, ?3, ?4)
                 ON CONFLICT (key) DO UPDATE SET
                     record = excluded.record,
                     last_use = excluded.last_use,
                     expires = excluded.expires",
            )
            .and_then(|mut statement| statement.execute(params![key, record, used, expires]))
            .map(drop)
            .map_err(sqlite_error)
    }
}

impl HttpCacheStore for SqliteCacheStore {
    fn load(&self) -> Vec<(String, Vec<u8>)> {
        let now = nanos_since_epoch(SystemTime::now());
        let connection = self.lock();
        let _ = connection.execute(
            "DELETE FROM entries WHERE expires IS NOT NULL AND expires <= ?1",
            [now],
        );
        // Read in table order and sorted here: an ORDER BY without an index would copy
        // every record through SQLite's sorter, and an index on last_use would cost every
        // put and touch a second b-tree write.
        let mut records: Vec<(i64, String, Vec<u8>)> = Vec::new();
        let read = connection
            .prepare("SELECT last_use, key, record FROM entries")
            .and_then(|mut statement| {
                let rows =
                    statement.query_map([], |row| Ok((row.get(0)?, row.get(1)?, row.get(2)?)))?;
                for row in rows {
                    records.push(row?);
                }
                Ok(())
            });
        if read.is_err() {
            return Vec::new();
        }
        records.sort_by_key(|(used, _, _)| *used);
        records
            .into_iter()
            .map(|(_, key, record)| (key, record))
            .collect()
    }

    fn put(&self, key: &str, record: &[u8]) -> io::Result<()> {
        self.write(key, record, None)
    }

    fn put_expiring(&self, key: &str, record: &[u8], ttl: Option<Duration>) -> io::Result<()> {
        self.write(key, record, ttl)
    }

    fn touch(&self, key: &str) -> io::Result<()> {
        let used = self.tick();
        self.lock()
            .prepare_cached("UPDATE entries SET last_use = ?1 WHERE key = ?2")
            .and_then(|mut statement| statement.execute(params![used, key]))
            .map(drop)
            .map_err(sqlite_error)
    }

    fn remove(&self, key: &str) -> io::Result<()> {
        self.lock()
            .prepare_cached("DELETE FROM entries WHERE key = ?1")
            .and_then(|mut statement| statement.execute([key]))
            .map(drop)
            .map_err(sqlite_error)
    }

    fn max_bytes(&self) -> usize {
        self.max_bytes
    }
}

/// The store's behaviour the cache relies on, checked before anything is timed.
fn check_sqlite_store(dir: &Path) -> io::Result<()> {
    let path = dir.join("check.sqlite");
    {
        let store = SqliteCacheStore::open(&path, 1 << 20, Synchronous::Full)?;
        store.put("a https://example.com/a", b"A")?;
        store.put("a https://example.com/b", b"B")?;
        store.put_expiring(
            "a https://example.com/c",
            b"C",
            Some(Duration::from_secs(3600)),
        )?;
        store.put_expiring("a https://example.com/d", b"D", Some(Duration::ZERO))?;
        store.touch("a https://example.com/a")?;
        store.put("a https://example.com/b", b"B2")?;
        store.remove("a https://example.com/c")?;
        store.remove("a https://example.com/missing")?;
        store.touch("a https://example.com/missing")?;
    }
    // A new connection reads back what the first one committed.
    let store = SqliteCacheStore::open(&path, 1 << 20, Synchronous::Full)?;
    let loaded = store.load();
    let expected = vec![
        ("a https://example.com/a".to_owned(), b"A".to_vec()),
        ("a https://example.com/b".to_owned(), b"B2".to_vec()),
    ];
    assert_eq!(loaded, expected, "SqliteCacheStore: load after reopening");
    // The expired record was deleted, not only skipped.
    let count: i64 = store
        .lock()
        .query_row("SELECT COUNT(*) FROM entries", [], |row| row.get(0))
        .map_err(sqlite_error)?;
    assert_eq!(count, 2, "SqliteCacheStore: expired record still stored");
    let missing: Option<i64> = store
        .lock()
        .query_row(
            "SELECT 1 FROM entries WHERE key = 'a https://example.com/c'",
            [],
            |row| row.get(0),
        )
        .optional()
        .map_err(sqlite_error)?;
    assert!(missing.is_none());
    drop(store);
    remove_sqlite_files(&path);
    Ok(())
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Disk,
    Sqlite(Synchronous),
}

impl Kind {
    fn label(self) -> &'static str {
        match self {
            Kind::Disk => "files (`DiskCacheStore`)",
            Kind::Sqlite(Synchronous::Full) => "SQLite, WAL, `synchronous=FULL`",
            Kind::Sqlite(Synchronous::Normal) => "SQLite, WAL, `synchronous=NORMAL`",
        }
    }

    fn short(self) -> &'static str {
        match self {
            Kind::Disk => "files",
            Kind::Sqlite(Synchronous::Full) => "sqlite-full",
            Kind::Sqlite(Synchronous::Normal) => "sqlite-normal",
        }
    }

    /// The store's place under `dir`: a directory for the files, a database file for SQLite.
    fn path(self, dir: &Path) -> PathBuf {
        match self {
            Kind::Disk => dir.join("files"),
            Kind::Sqlite(_) => dir.join(format!("{}.sqlite", self.short())),
        }
    }

    fn open(self, path: &Path) -> io::Result<Box<dyn HttpCacheStore>> {
        // Larger than any data set here, so that nothing is refused for size.
        const MAX_BYTES: usize = 16 << 30;
        Ok(match self {
            Kind::Disk => Box::new(DiskCacheStore::open(path, MAX_BYTES)?),
            Kind::Sqlite(synchronous) => {
                Box::new(SqliteCacheStore::open(path, MAX_BYTES, synchronous)?)
            }
        })
    }

    /// Every file of the store at `path`.
    fn files(self, path: &Path) -> Vec<PathBuf> {
        match self {
            Kind::Disk => fs::read_dir(path)
                .map(|files| files.flatten().map(|file| file.path()).collect())
                .unwrap_or_default(),
            Kind::Sqlite(_) => sqlite_files(path)
                .into_iter()
                .filter(|file| file.exists())
                .collect(),
        }
    }
}

fn sqlite_files(path: &Path) -> [PathBuf; 3] {
    let with = |suffix: &str| {
        let mut name = path.as_os_str().to_owned();
        name.push(suffix);
        PathBuf::from(name)
    };
    [path.to_path_buf(), with("-wal"), with("-shm")]
}

fn remove_sqlite_files(path: &Path) {
    for file in sqlite_files(path) {
        let _ = fs::remove_file(file);
    }
}

/// Bytes allocated on disk (blocks) and apparent bytes (lengths) of `files`.
fn disk_usage(files: &[PathBuf]) -> (u64, u64) {
    files
        .iter()
        .filter_map(|file| fs::metadata(file).ok())
        .fold((0, 0), |(blocks, len), metadata| {
            (blocks + metadata.blocks() * 512, len + metadata.len())
        })
}

/// Drops the contents of `files` from the page cache (they are on the disk already), so
/// that the next open reads them from the disk. Directory entries and inodes stay cached.
fn evict_from_page_cache(files: &[PathBuf]) {
    for path in files {
        if let Ok(file) = File::open(path) {
            let _ = file.sync_data();
            // SAFETY: the descriptor is open for the call's duration.
            unsafe {
                libc::posix_fadvise(file.as_raw_fd(), 0, 0, libc::POSIX_FADV_DONTNEED);
            }
        }
    }
}

#[derive(Clone, Copy, Default)]
struct Measured {
    puts_per_second: f64,
    put_p99: Duration,
    open_cold: Duration,
    open_warm: Duration,
    allocated_bytes: u64,
    apparent_bytes: u64,
    touches_per_second: f64,
    removes_per_second: f64,
}

fn per_second(count: usize, elapsed: Duration) -> f64 {
    count as f64 / elapsed.as_secs_f64()
}

fn open_and_load(
    kind: Kind,
    path: &Path,
    n: usize,
) -> io::Result<(Duration, Box<dyn HttpCacheStore>)> {
    let start = Instant::now();
    let store = kind.open(path)?;
    let records = store.load();
    let elapsed = start.elapsed();
    if records.len() != n {
        return Err(io::Error::other(format!(
            "{}: loaded {} records, not {n}",
            kind.short(),
            records.len()
        )));
    }
    drop(records);
    Ok((elapsed, store))
}

/// Puts `n` records of `size` bytes into a new store of `kind` under `dir`, then measures
/// its size, opens it cold and warm, touches and removes every record.
fn measure(kind: Kind, dir: &Path, n: usize, size: usize) -> io::Result<Measured> {
    let path = kind.path(dir);
    let _ = fs::remove_dir_all(dir.join("files"));
    remove_sqlite_files(&path);

    let keys: Vec<String> = (0..n)
        .map(|i| {
            format!(
                "a https://static.example.com/assets/v3/chunk-{i:05}-{:08x}.js",
                fastrand::u32(..)
            )
        })
        .collect();
    // Incompressible bytes (neither store compresses), each record different.
    let mut record = vec![0u8; size];
    fastrand::fill(&mut record);
    let ttl = Some(Duration::from_secs(24 * 3600));
    let mut measured = Measured::default();

    // Puts, each durable (or not, for NORMAL) on return.
    {
        let store = kind.open(&path)?;
        let mut latencies = Vec::with_capacity(n);
        let start = Instant::now();
        for (i, key) in keys.iter().enumerate() {
            record[..8].copy_from_slice(&(i as u64).to_le_bytes());
            let put = Instant::now();
            store.put_expiring(key, &record, ttl)?;
            latencies.push(put.elapsed());
        }
        measured.puts_per_second = per_second(n, start.elapsed());
        latencies.sort_unstable();
        measured.put_p99 = latencies[(n * 99 / 100).min(n - 1)];
    }
    // Closed: SQLite has checkpointed and deleted its WAL.
    let files = kind.files(&path);
    (measured.allocated_bytes, measured.apparent_bytes) = disk_usage(&files);
    if kind == Kind::Disk {
        let directory = fs::metadata(&path)?;
        measured.allocated_bytes += directory.blocks() * 512;
        measured.apparent_bytes += directory.len();
    }

    evict_from_page_cache(&files);
    let (cold, store) = open_and_load(kind, &path, n)?;
    measured.open_cold = cold;
    drop(store);
    let (warm, store) = open_and_load(kind, &path, n)?;
    measured.open_warm = warm;

    let mut order: Vec<&String> = keys.iter().collect();
    fastrand::shuffle(&mut order);
    let start = Instant::now();
    for key in &order {
        store.touch(key)?;
    }
    measured.touches_per_second = per_second(n, start.elapsed());

    fastrand::shuffle(&mut order);
    let start = Instant::now();
    for key in &order {
        store.remove(key)?;
    }
    measured.removes_per_second = per_second(n, start.elapsed());
    let left = store.load().len();
    if left != 0 {
        return Err(io::Error::other(format!(
            "{}: {left} records left after removing all",
            kind.short()
        )));
    }
    drop(store);

    let _ = fs::remove_dir_all(dir.join("files"));
    remove_sqlite_files(&path);
    Ok(measured)
}

struct Options {
    n: usize,
    sizes_kib: Vec<usize>,
    sqlite_first: bool,
    dir: PathBuf,
}

fn options() -> Options {
    let mut options = Options {
        n: 10_000,
        sizes_kib: vec![1, 16, 256],
        sqlite_first: false,
        dir: std::env::temp_dir().join(format!("cache-stores-bench-{}", std::process::id())),
    };
    let mut args = std::env::args().skip(1);
    let usage = "usage: cache-stores-bench [--n N] [--sizes 1,16,256] [--order disk-first|sqlite-first] [--dir DIR]";
    while let Some(arg) = args.next() {
        let mut value = || {
            args.next()
                .unwrap_or_else(|| panic!("{arg} needs a value\n{usage}"))
        };
        match arg.as_str() {
            "--n" => options.n = value().parse().expect("--n: a number"),
            "--sizes" => {
                options.sizes_kib = value()
                    .split(',')
                    .map(|size| size.trim().parse().expect("--sizes: KiB, comma-separated"))
                    .collect();
            }
            "--order" => {
                options.sqlite_first = match value().as_str() {
                    "disk-first" | "files-first" => false,
                    "sqlite-first" => true,
                    other => panic!("--order {other}?\n{usage}"),
                }
            }
            "--dir" => options.dir = PathBuf::from(value()),
            _ => panic!("{arg}?\n{usage}"),
        }
    }
    assert!(options.n > 0, "--n must be positive");
    options
}

fn mib(bytes: u64) -> String {
    format!("{:.1} MiB", bytes as f64 / (1024.0 * 1024.0))
}

fn rate(value: f64) -> String {
    let whole = value.round() as u64;
    let digits = whole.to_string();
    let mut out = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

fn millis(duration: Duration) -> String {
    format!("{:.0} ms", duration.as_secs_f64() * 1000.0)
}

fn micros(duration: Duration) -> String {
    format!("{:.0} µs", duration.as_secs_f64() * 1e6)
}

fn main() -> io::Result<()> {
    let options = options();
    fs::create_dir_all(&options.dir)?;
    check_sqlite_store(&options.dir)?;

    let columns = [
        Kind::Disk,
        Kind::Sqlite(Synchronous::Full),
        Kind::Sqlite(Synchronous::Normal),
    ];
    let mut run_order = columns.to_vec();
    if options.sqlite_first {
        run_order.reverse();
    }
    eprintln!(
        "SQLite {}; {} records a size; order: {}; data in {}",
        rusqlite::version(),
        options.n,
        run_order
            .iter()
            .map(|kind| kind.short())
            .collect::<Vec<_>>()
            .join(", "),
        options.dir.display()
    );

    // results[size][column]
    let mut results = vec![[Measured::default(); 3]; options.sizes_kib.len()];
    let outcome = (|| {
        for (s, &kib) in options.sizes_kib.iter().enumerate() {
            for &kind in &run_order {
                let column = columns.iter().position(|&c| c == kind).unwrap();
                let m = measure(kind, &options.dir, options.n, kib * 1024)?;
                eprintln!(
                    "{kib:>4} KiB {:<14} put/s {:>8}  p99 {:>8}  open cold {:>8}  warm {:>8}  size {:>10}  touch/s {:>8}  remove/s {:>8}",
                    kind.short(),
                    rate(m.puts_per_second),
                    micros(m.put_p99),
                    millis(m.open_cold),
                    millis(m.open_warm),
                    mib(m.allocated_bytes),
                    rate(m.touches_per_second),
                    rate(m.removes_per_second)
                );
                results[s][column] = m;
            }
        }
        Ok::<_, io::Error>(())
    })();
    let _ = fs::remove_dir_all(&options.dir);
    outcome?;

    println!(
        "{} records a size, order: {}\n",
        rate(options.n as f64),
        run_order
            .iter()
            .map(|kind| kind.short())
            .collect::<Vec<_>>()
            .join(", ")
    );
    println!("| | {} |", columns.map(Kind::label).join(" | "));
    println!("| --- |{}", " ---: |".repeat(columns.len()));
    type Cell = fn(&Measured) -> String;
    let rows: [(&str, Cell); 7] = [
        ("puts/s", |m| rate(m.puts_per_second)),
        ("put, 99th percentile", |m| micros(m.put_p99)),
        ("open + load, cold", |m| millis(m.open_cold)),
        ("open + load, warm", |m| millis(m.open_warm)),
        ("size on disk (allocated)", |m| mib(m.allocated_bytes)),
        ("touches/s", |m| rate(m.touches_per_second)),
        ("removes/s", |m| rate(m.removes_per_second)),
    ];
    for (name, cell) in rows {
        for (s, kib) in options.sizes_kib.iter().enumerate() {
            let cells: Vec<String> = results[s].iter().map(cell).collect();
            println!("| {name}, {kib} KiB | {} |", cells.join(" | "));
        }
    }
    let payload: Vec<String> = options
        .sizes_kib
        .iter()
        .map(|kib| format!("{kib} KiB: {}", mib((options.n * kib * 1024) as u64)))
        .collect();
    println!("\nRecords' bytes alone: {}.", payload.join(", "));
    Ok(())
}
