//! The suite's own Node server (`test-engine/server/server.mjs`), on a free port of
//! 127.0.0.1.

use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, BufReader};
use tokio::process::{Child, Command};

/// Makes the server listen on 127.0.0.1 only: `server.mjs` listens on every interface.
const LISTEN_ON_LOOPBACK: &str = "\
import http from 'node:http'
const listen = http.Server.prototype.listen
http.Server.prototype.listen = function (port, ...rest) {
  return listen.call(this, Number(port), '127.0.0.1', ...rest)
}
await import(process.argv[2])
";

/// The running server; dropping it stops it.
pub struct Server {
    _child: Child,
    /// Its port on 127.0.0.1.
    pub port: u16,
    scratch: PathBuf,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.scratch);
    }
}

/// Starts `node <suite>/test-engine/server/server.mjs` and waits until it listens.
pub async fn start(suite: &Path) -> Result<Server, String> {
    let server = suite.join("test-engine/server/server.mjs");
    if !server.is_file() {
        return Err(format!(
            "{} is missing: set the suite up with `bash wpt/cache-tests-setup.sh`",
            server.display()
        ));
    }
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|listener| listener.local_addr())
        .map_err(|e| format!("finding a free port on 127.0.0.1: {e}"))?
        .port();
    let scratch =
        std::env::temp_dir().join(format!("whatwg-fetch-cache-tests-{}", std::process::id()));
    std::fs::create_dir_all(&scratch)
        .map_err(|e| format!("creating {}: {e}", scratch.display()))?;
    let wrapper = scratch.join("listen-on-loopback.mjs");
    std::fs::write(&wrapper, LISTEN_ON_LOOPBACK)
        .map_err(|e| format!("writing {}: {e}", wrapper.display()))?;
    let server_url = url::Url::from_file_path(&server)
        .map_err(|()| format!("{} is not an absolute path", server.display()))?;
    let mut child = Command::new("node")
        .arg(&wrapper)
        .arg(server_url.as_str())
        .current_dir(suite)
        .env("npm_config_protocol", "http")
        .env("npm_config_port", port.to_string())
        .env("npm_config_pidfile", scratch.join("server.pid"))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .kill_on_drop(true)
        .spawn()
        .map_err(|e| format!("starting node (Node.js 20 or later is needed): {e}"))?;
    let stdout = child.stdout.take().ok_or("node's stdout is not piped")?;
    let mut lines = BufReader::new(stdout).lines();
    let listening = tokio::time::timeout(Duration::from_secs(20), async {
        while let Ok(Some(line)) = lines.next_line().await {
            if line.starts_with("Listening on") {
                return true;
            }
        }
        false
    })
    .await;
    if listening != Ok(true) {
        return Err(format!(
            "the suite's server did not start listening on 127.0.0.1:{port}"
        ));
    }
    // What the server logs later (a test's requests, with --id) goes to our stderr.
    tokio::spawn(async move {
        while let Ok(Some(line)) = lines.next_line().await {
            eprintln!("server: {line}");
        }
    });
    Ok(Server {
        _child: child,
        port,
        scratch,
    })
}
