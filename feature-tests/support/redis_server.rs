//! A `redis-server` of a test's or benchmark's own, on a free port of 127.0.0.1, stopped
//! when dropped. Debian's package of that name; `wpt/setup.sh` installs it.
// Each crate that mounts this module uses some of its helpers, never all.
#![allow(dead_code)]

use std::io::{Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

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

    /// The keys under the store's default prefix.
    pub fn keys(&self) -> Vec<String> {
        redis::cmd("KEYS")
            .arg(format!("{}*", RedisCacheStore::DEFAULT_PREFIX))
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
