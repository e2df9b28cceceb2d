//! A `redis-server` of a test's or benchmark's own, on a free port of 127.0.0.1, stopped
//! when dropped. Debian's package of that name; `wpt/setup.sh` installs it.
// Each crate that mounts this module uses some of its helpers, never all.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use whatwg_fetch::cache::RedisCacheStore;

/// A `redis-server` of one test's own, stopped when dropped.
pub struct RedisServer {
    child: Child,
    port: u16,
}

impl RedisServer {
    /// A server on a free port, answering `PING`; `None` (after a loud line on stderr) when
    /// `redis-server` is not installed.
    pub fn start() -> Option<RedisServer> {
        if Command::new("redis-server")
            .arg("--version")
            .stdout(Stdio::null())
            .status()
            .is_err()
        {
            eprintln!("SKIPPED: redis-server not installed (apt-get install redis-server)");
            return None;
        }
        // The free port may be taken between asking and binding: try again then.
        for _ in 0..5 {
            let port = TcpListener::bind("127.0.0.1:0")
                .and_then(|listener| listener.local_addr())
                .unwrap()
                .port();
            let child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
                .args(["--save", "", "--appendonly", "no"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .expect("redis-server starts");
            let mut server = RedisServer { child, port };
            if server.wait_until_it_answers() {
                return Some(server);
            }
            server.stop();
        }
        panic!("redis-server did not start on a free port");
    }

    pub fn wait_until_it_answers(&mut self) -> bool {
        let deadline = Instant::now() + Duration::from_secs(10);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = self.child.try_wait() {
                return false;
            }
            if let Ok(mut stream) = TcpStream::connect(("127.0.0.1", self.port)) {
                let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
                let mut reply = [0; 7];
                if stream.write_all(b"PING\r\n").is_ok()
                    && stream.read_exact(&mut reply).is_ok()
                    && &reply == b"+PONG\r\n"
                {
                    return true;
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        false
    }

    pub fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }

    pub fn addr(&self) -> SocketAddr {
        SocketAddr::from(([127, 0, 0, 1], self.port))
    }

    pub fn stop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// A connection of the test's own, behind the store's back.
    pub fn connection(&self) -> redis::Connection {
        redis::Client::open(self.url())
            .unwrap()
            .get_connection()
            .unwrap()
    }

    /// The keys under the cache store's default prefix.
    pub fn keys(&self) -> Vec<String> {
        self.keys_with_prefix(RedisCacheStore::DEFAULT_PREFIX)
    }

    /// The keys under `prefix`.
    pub fn keys_with_prefix(&self, prefix: &str) -> Vec<String> {
        redis::cmd("KEYS")
            .arg(format!("{prefix}*"))
            .query(&mut self.connection())
            .unwrap()
    }

    /// Waits (at most 10 s) until Redis holds `count` keys under the default prefix: the
    /// store writes behind the fetch.
    pub async fn wait_for_keys(&self, count: usize) -> Vec<String> {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            let keys = self.keys();
            if keys.len() == count || Instant::now() > deadline {
                assert_eq!(keys.len(), count, "keys in Redis: {keys:?}");
                return keys;
            }
            tokio::time::sleep(Duration::from_millis(10)).await;
        }
    }
}

impl Drop for RedisServer {
    fn drop(&mut self) {
        self.stop();
    }
}

/// A TCP proxy to `to` on 127.0.0.1 that, once `slow` is set, holds each read from Redis
/// for `delay` before passing it on.
pub async fn delaying_proxy(to: SocketAddr, slow: Arc<AtomicBool>, delay: Duration) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(upstream) = tokio::net::TcpStream::connect(to).await else {
                continue;
            };
            let slow = slow.clone();
            tokio::spawn(async move {
                let (mut client_read, mut client_write) = client.into_split();
                let (mut upstream_read, mut upstream_write) = upstream.into_split();
                let requests = tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut client_read, &mut upstream_write).await;
                });
                let mut buffer = vec![0; 64 * 1024];
                while let Ok(read) = upstream_read.read(&mut buffer).await {
                    if read == 0 {
                        break;
                    }
                    if slow.load(Ordering::SeqCst) {
                        tokio::time::sleep(delay).await;
                    }
                    if client_write.write_all(&buffer[..read]).await.is_err() {
                        break;
                    }
                }
                requests.abort();
            });
        }
    });
    addr
}

/// A TCP proxy to `to` on 127.0.0.1 that counts the bytes Redis sends back through it (in
/// the counter it returns, which the test may reset): an upper bound on what the store read.
pub async fn counting_proxy(to: SocketAddr) -> (SocketAddr, Arc<AtomicU64>) {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let counted = Arc::new(AtomicU64::new(0));
    let counter = counted.clone();
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(upstream) = tokio::net::TcpStream::connect(to).await else {
                continue;
            };
            let counter = counter.clone();
            tokio::spawn(async move {
                let (mut client_read, mut client_write) = client.into_split();
                let (mut upstream_read, mut upstream_write) = upstream.into_split();
                let requests = tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut client_read, &mut upstream_write).await;
                });
                let mut buffer = vec![0; 64 * 1024];
                while let Ok(read) = upstream_read.read(&mut buffer).await {
                    if read == 0 {
                        break;
                    }
                    counter.fetch_add(read as u64, Ordering::SeqCst);
                    if client_write.write_all(&buffer[..read]).await.is_err() {
                        break;
                    }
                }
                requests.abort();
            });
        }
    });
    (addr, counted)
}

/// What a [`gated_proxy`] lets through from the store to Redis: everything while open;
/// once closed, what is left of an allowance of bytes, the rest held until it opens again.
pub struct Gate {
    /// Bytes from the store that may still pass; `u64::MAX` while open.
    allowance: AtomicU64,
    /// Bytes from the store held at the gate now.
    held: AtomicU64,
}

impl Gate {
    pub fn new() -> Arc<Gate> {
        Arc::new(Gate {
            allowance: AtomicU64::new(u64::MAX),
            held: AtomicU64::new(0),
        })
    }

    /// Lets `bytes` more through, then holds the rest.
    pub fn close_after(&self, bytes: u64) {
        self.allowance.store(bytes, Ordering::SeqCst);
    }

    /// Lets everything through, what is held first.
    pub fn open(&self) {
        self.allowance.store(u64::MAX, Ordering::SeqCst);
    }

    /// The bytes held at the gate now.
    pub fn held(&self) -> u64 {
        self.held.load(Ordering::SeqCst)
    }

    /// How many of `wanted` bytes may pass now (taken from the allowance).
    fn take(&self, wanted: u64) -> u64 {
        let mut passed = 0;
        let _ = self
            .allowance
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |left| {
                passed = wanted.min(left);
                Some(if left == u64::MAX {
                    left
                } else {
                    left - passed
                })
            });
        passed
    }
}

/// A TCP proxy to `to` on 127.0.0.1 that shows each read from the store to `on_request`
/// (which may close the gate, or change what Redis holds, before it passes) and then
/// passes it through `gate`. Replies pass as they come.
pub async fn gated_proxy(
    to: SocketAddr,
    gate: Arc<Gate>,
    on_request: impl Fn(&[u8]) + Send + Sync + 'static,
) -> SocketAddr {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let on_request = Arc::new(on_request);
    tokio::spawn(async move {
        while let Ok((client, _)) = listener.accept().await {
            let Ok(upstream) = tokio::net::TcpStream::connect(to).await else {
                continue;
            };
            let (gate, on_request) = (gate.clone(), on_request.clone());
            tokio::spawn(async move {
                let (mut client_read, mut client_write) = client.into_split();
                let (mut upstream_read, mut upstream_write) = upstream.into_split();
                let replies = tokio::spawn(async move {
                    let _ = tokio::io::copy(&mut upstream_read, &mut client_write).await;
                });
                let mut buffer = vec![0; 64 * 1024];
                while let Ok(read) = client_read.read(&mut buffer).await {
                    if read == 0 {
                        break;
                    }
                    on_request(&buffer[..read]);
                    let mut rest = &buffer[..read];
                    while !rest.is_empty() {
                        let passing = gate.take(rest.len() as u64) as usize;
                        if passing == 0 {
                            gate.held.fetch_add(rest.len() as u64, Ordering::SeqCst);
                            while gate.allowance.load(Ordering::SeqCst) == 0 {
                                tokio::time::sleep(Duration::from_millis(5)).await;
                            }
                            gate.held.fetch_sub(rest.len() as u64, Ordering::SeqCst);
                            continue;
                        }
                        if upstream_write.write_all(&rest[..passing]).await.is_err() {
                            break;
                        }
                        rest = &rest[passing..];
                    }
                }
                replies.abort();
            });
        }
    });
    addr
}
