//! The `redis-server` the `redis_cache` and `redis_cookies` targets plant their inputs in:
//! one per process, started at the first input on a Unix socket of its own, and stopped
//! with the process (the kernel sends it `SIGTERM` when the thread that started it, which
//! never ends, goes with the process). Without `redis-server` (Debian's package of that
//! name), the targets say so once and do nothing.

use std::process::{Command, Stdio};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

/// The server: the path of its socket.
pub(crate) struct RedisServer {
    path: String,
}

impl RedisServer {
    /// The URL of database `db`: one per target, as the replay tests run at once and each
    /// input starts with `FLUSHDB`.
    pub(crate) fn url(&self, db: u8) -> String {
        format!("redis+unix://{}?db={db}", self.path)
    }

    /// A connection of the target's own to database `db`.
    pub(crate) fn connection(&self, db: u8) -> Connection {
        Connection {
            url: self.url(db),
            inner: None,
        }
    }
}

/// A connection of the target's own, made again when a command fails on it: libFuzzer's
/// timer signal interrupts a blocking read or write (`EINTR`), which leaves a connection
/// unusable.
pub(crate) struct Connection {
    url: String,
    inner: Option<redis::Connection>,
}

impl Connection {
    /// Runs `command`, on a new connection when it (or connecting) fails with an I/O
    /// error, ten times at most: the target's commands may run twice.
    pub(crate) fn run<T: redis::FromRedisValue>(
        &mut self,
        command: &redis::Cmd,
    ) -> redis::RedisResult<T> {
        let mut attempts = 0;
        loop {
            let ran = match self.inner.as_mut() {
                Some(connection) => command.query(connection),
                None => redis::Client::open(self.url.as_str())
                    .and_then(|client| client.get_connection())
                    .and_then(|connection| command.query(self.inner.insert(connection))),
            };
            match ran {
                Err(error) if error.is_io_error() && attempts < 10 => {
                    attempts += 1;
                    self.inner = None;
                }
                done => return done,
            }
        }
    }
}

/// The process's server, started at the first call; `None` when it cannot be.
pub(crate) fn redis_server() -> Option<&'static RedisServer> {
    static SERVER: OnceLock<Option<RedisServer>> = OnceLock::new();
    SERVER.get_or_init(start).as_ref()
}

#[cfg(unix)]
fn start() -> Option<RedisServer> {
    let socket = std::env::temp_dir().join(format!(
        "whatwg-fetch-fuzz-redis-{}.sock",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&socket);
    let path = socket.to_string_lossy().into_owned();
    let (started, spawned) = std::sync::mpsc::channel();
    let arguments = path.clone();
    // The thread that starts the server parks for ever: the server's parent-death signal
    // is its thread's.
    std::thread::spawn(move || {
        use std::os::unix::process::CommandExt;
        let mut command = Command::new("redis-server");
        command
            .args([
                "--port",
                "0",
                "--unixsocket",
                &arguments,
                "--unixsocketperm",
                "700",
            ])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: `prctl(PR_SET_PDEATHSIG)` is async-signal-safe and touches only the
        // child being set up.
        unsafe {
            command.pre_exec(|| {
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGTERM);
                Ok(())
            });
        }
        let child = command.spawn();
        let ok = child.is_ok();
        let _ = started.send(ok);
        if ok {
            loop {
                std::thread::park();
            }
        }
    });
    if spawned.recv() != Ok(true) {
        eprintln!("SKIPPED: redis-server not installed (apt-get install redis-server)");
        return None;
    }
    let client = redis::Client::open(format!("redis+unix://{path}")).ok()?;
    let deadline = Instant::now() + Duration::from_secs(10);
    while Instant::now() < deadline {
        if let Ok(mut connection) = client.get_connection() {
            if redis::cmd("PING").query::<String>(&mut connection).is_ok() {
                return Some(RedisServer { path });
            }
        }
        std::thread::sleep(Duration::from_millis(10));
    }
    panic!("redis-server did not answer on {path} within 10 seconds");
}

#[cfg(not(unix))]
fn start() -> Option<RedisServer> {
    eprintln!("SKIPPED: the Redis targets run on Unix only");
    None
}

/// A new prefix for an input's keys: the stores of earlier inputs may still be writing
/// under theirs.
pub(crate) fn fresh_prefix(target: &str) -> String {
    static INPUTS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let n = INPUTS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    format!("{target}:{n}:")
}
