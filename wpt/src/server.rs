//! The WPT server: wptserve and pywebsocket3 configured the way WPT's `tools/serve` configures
//! them, started from `wpt/serve.py` in the virtualenv `wpt/setup.sh` makes.

use std::io::{BufRead, BufReader};
use std::net::{SocketAddr, TcpStream};
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde::Serialize;

/// The host names the tests use; every one resolves to 127.0.0.1 for the runner.
pub const BROWSER_HOST: &str = "web-platform.test";
/// The alternate, not-same-site host (`{{hosts[alt][]}}`).
pub const ALT_HOST: &str = "not-web-platform.test";
/// First-level subdomains, as in WPT's `tools/serve`.
pub const SUBDOMAINS: &[&str] = &["www", "www1", "www2", "天気の良い日", "élève"];
/// Subdomains that must not resolve.
pub const NOT_SUBDOMAINS: &[&str] = &["nonexistent"];

/// The ports, as in the config wptrunner gives WPT's `tools/serve`.
pub const HTTP_PORTS: [u16; 2] = [8000, 8001];
/// HTTPS ports.
pub const HTTPS_PORTS: [u16; 2] = [8443, 8444];
/// The HTTP/2 (TLS) port.
pub const H2_PORT: u16 = 9000;
/// The WebSocket port (pywebsocket3, `{{ports[ws][0]}}`).
pub const WS_PORT: u16 = 8888;
/// The WebSocket over TLS port (`{{ports[wss][0]}}`).
pub const WSS_PORT: u16 = 8889;

/// What `serve.py` reads: the wptserve configuration plus where the certificates go.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct ServerConfig {
    /// The suite root.
    pub doc_root: String,
    /// The address every server listens on.
    pub bind_address: String,
    /// `web-platform.test`.
    pub browser_host: String,
    /// `{"alt": "not-web-platform.test"}`.
    pub alternate_hosts: std::collections::BTreeMap<String, String>,
    /// Subdomains and their two-level combinations, Unicode as written.
    pub subdomains: Vec<String>,
    /// Subdomains that must not resolve, and their two-level combinations.
    pub not_subdomains: Vec<String>,
    /// Ports by scheme: `http`, `https`, `h2` (wptserve), `ws`, `wss` (pywebsocket3).
    pub ports: std::collections::BTreeMap<String, Vec<u16>>,
    /// Where the test CA and host certificate are kept.
    pub cert_dir: String,
    /// Every host name the certificate must list, punycoded.
    pub hosts: Vec<String>,
}

/// `s` and every two-label combination of its members, as `tools/serve` builds them.
pub fn with_two_levels(s: &[&str]) -> Vec<String> {
    let mut out: Vec<String> = s.iter().map(|x| (*x).to_owned()).collect();
    for a in s {
        for b in s {
            out.push(format!("{a}.{b}"));
        }
    }
    out.sort();
    out
}

/// The ASCII (punycode) form of a domain, as the `url` crate's host parser gives it.
pub fn to_ascii(domain: &str) -> String {
    match url::Host::parse(domain) {
        Ok(url::Host::Domain(d)) => d,
        _ => domain.to_owned(),
    }
}

impl ServerConfig {
    /// The configuration for serving `doc_root`, certificates under `cert_dir`.
    pub fn new(doc_root: &Path, cert_dir: &Path) -> ServerConfig {
        let subdomains = with_two_levels(SUBDOMAINS);
        let not_subdomains = with_two_levels(NOT_SUBDOMAINS);
        let mut hosts = Vec::new();
        for base in [BROWSER_HOST, ALT_HOST] {
            hosts.push(base.to_owned());
            hosts.extend(subdomains.iter().map(|s| to_ascii(&format!("{s}.{base}"))));
        }
        ServerConfig {
            doc_root: doc_root.to_string_lossy().into_owned(),
            bind_address: "127.0.0.1".to_owned(),
            browser_host: BROWSER_HOST.to_owned(),
            alternate_hosts: [("alt".to_owned(), ALT_HOST.to_owned())]
                .into_iter()
                .collect(),
            subdomains,
            not_subdomains,
            ports: [
                ("http".to_owned(), HTTP_PORTS.to_vec()),
                ("https".to_owned(), HTTPS_PORTS.to_vec()),
                ("h2".to_owned(), vec![H2_PORT]),
                ("ws".to_owned(), vec![WS_PORT]),
                ("wss".to_owned(), vec![WSS_PORT]),
            ]
            .into_iter()
            .collect(),
            cert_dir: cert_dir.to_string_lossy().into_owned(),
            hosts,
        }
    }

    /// Every port the servers listen on, WebSocket ports included: the port-in-use check and
    /// the readiness check both go through it.
    pub fn all_ports(&self) -> Vec<u16> {
        self.ports.values().flatten().copied().collect()
    }
}

/// Whether `host` is one of the suite's names that resolve to the server (anything under
/// `web-platform.test` or `not-web-platform.test` except the `nonexistent` names).
pub fn resolves_to_server(host: &str) -> bool {
    let host = host.trim_end_matches('.').to_ascii_lowercase();
    let under = |base: &str| host == base || host.ends_with(&format!(".{base}"));
    (under(BROWSER_HOST) || under(ALT_HOST))
        && !host.split('.').any(|label| NOT_SUBDOMAINS.contains(&label))
}

/// A running server process; stopped on drop.
pub struct Server {
    child: Option<Child>,
}

fn port_answers(port: u16) -> bool {
    let addr = SocketAddr::from(([127, 0, 0, 1], port));
    TcpStream::connect_timeout(&addr, Duration::from_millis(200)).is_ok()
}

impl Server {
    /// Writes `config` beside the certificates and starts `python serve.py` on it, then waits
    /// until every port answers.
    ///
    /// # Errors
    /// A port already in use, a server that exits or does not answer within 30 s.
    pub fn start(
        python: &Path,
        serve_py: &Path,
        config: &ServerConfig,
        log: &Path,
    ) -> Result<Server, String> {
        let pid_file = Path::new(&config.cert_dir).with_file_name("wptserve.pid");
        stop_stale_server(&pid_file);
        if let Some(p) = config.all_ports().into_iter().find(|p| port_answers(*p)) {
            return Err(format!(
                "port {p} is already in use (another server running? pass --no-server to use it)"
            ));
        }
        std::fs::create_dir_all(&config.cert_dir)
            .map_err(|e| format!("{}: {e}", config.cert_dir))?;
        let cfg_path = Path::new(&config.cert_dir).with_file_name("serve-config.json");
        let json = serde_json::to_string_pretty(config).map_err(|e| e.to_string())?;
        std::fs::write(&cfg_path, json).map_err(|e| format!("{}: {e}", cfg_path.display()))?;
        let log_file = std::fs::File::create(log).map_err(|e| format!("{}: {e}", log.display()))?;
        let mut child = Command::new(python)
            .arg(serve_py)
            .arg(&cfg_path)
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(log_file)
            .spawn()
            .map_err(|e| format!("cannot start {}: {e} (run wpt/setup.sh)", python.display()))?;
        let _ = std::fs::write(&pid_file, child.id().to_string());
        let stdout = child.stdout.take();
        let mut server = Server { child: Some(child) };
        // Wait for READY (or the process ending), with a cap.
        let (tx, rx) = std::sync::mpsc::channel();
        if let Some(stdout) = stdout {
            std::thread::spawn(move || {
                for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                    if line.trim() == "READY" {
                        let _ = tx.send(());
                    }
                }
            });
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            if let Some(c) = server.child.as_mut() {
                if let Ok(Some(status)) = c.try_wait() {
                    return Err(format!(
                        "the WPT server exited ({status}); see {}",
                        log.display()
                    ));
                }
            }
            if rx.try_recv().is_ok() && config.all_ports().into_iter().all(port_answers) {
                return Ok(server);
            }
            if Instant::now() > deadline {
                server.stop();
                return Err(format!(
                    "the WPT server did not start within 30 s; see {}",
                    log.display()
                ));
            }
            std::thread::sleep(Duration::from_millis(100));
        }
    }

    /// Asks the server to stop (SIGTERM), and kills it if it has not exited within 6 s:
    /// wptserve's request threads can hang on shutdown.
    pub fn stop(&mut self) {
        let Some(mut child) = self.child.take() else {
            return;
        };
        let _ = Command::new("kill")
            .arg("-TERM")
            .arg(child.id().to_string())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .status();
        let deadline = Instant::now() + Duration::from_secs(6);
        while Instant::now() < deadline {
            if let Ok(Some(_)) = child.try_wait() {
                return;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        let _ = child.kill();
        let _ = child.wait();
    }
}

/// Stops a server a previous run started and could not stop (it was killed itself): the pid
/// file names it, and it is only signalled if that process still runs `serve.py` and has
/// been orphaned.
fn stop_stale_server(pid_file: &Path) {
    let Ok(pid) = std::fs::read_to_string(pid_file) else {
        return;
    };
    let _ = std::fs::remove_file(pid_file);
    let pid = pid.trim();
    if pid.is_empty() || !pid.bytes().all(|b| b.is_ascii_digit()) {
        return;
    }
    let cmdline = std::fs::read(format!("/proc/{pid}/cmdline")).unwrap_or_default();
    if !String::from_utf8_lossy(&cmdline).contains("serve.py") {
        return;
    }
    // Only an orphan: a server whose runner is still alive (`wpt serve`) is left alone.
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let ppid = stat
        .rsplit_once(')')
        .and_then(|(_, rest)| rest.split_whitespace().nth(1));
    if ppid != Some("1") {
        let _ = std::fs::write(pid_file, pid);
        return;
    }
    let _ = Command::new("kill").arg("-TERM").arg(pid).status();
    let deadline = Instant::now() + Duration::from_secs(6);
    while Instant::now() < deadline && Path::new(&format!("/proc/{pid}")).exists() {
        std::thread::sleep(Duration::from_millis(100));
    }
    let _ = Command::new("kill")
        .arg("-KILL")
        .arg(pid)
        .stderr(Stdio::null())
        .status();
}

impl Drop for Server {
    fn drop(&mut self) {
        self.stop();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn config_lists_every_host_and_port() {
        let c = ServerConfig::new(Path::new("/suite"), Path::new("/cache/certs"));
        assert_eq!(c.subdomains.len(), 5 + 25);
        assert_eq!(c.not_subdomains, ["nonexistent", "nonexistent.nonexistent"]);
        assert_eq!(c.hosts.len(), 2 * (1 + 30));
        for h in [
            "web-platform.test",
            "www1.www2.web-platform.test",
            "xn--n8j6ds53lwwkrqhv28a.web-platform.test",
            "xn--lve-6lad.www.not-web-platform.test",
            "xn--lve-6lad.xn--n8j6ds53lwwkrqhv28a.web-platform.test",
        ] {
            assert!(c.hosts.iter().any(|x| x == h), "missing {h}");
        }
        assert!(c.hosts.iter().all(|h| h.is_ascii()));
        assert!(!c.hosts.iter().any(|h| h.contains("nonexistent")));
        assert_eq!(c.all_ports().len(), 7);
        for p in [8000, 8001, 8443, 8444, 9000, 8888, 8889] {
            assert!(c.all_ports().contains(&p), "missing port {p}");
        }
        let json = serde_json::to_value(&c).unwrap();
        assert_eq!(json["ports"]["http"], serde_json::json!([8000, 8001]));
        assert_eq!(json["ports"]["https"], serde_json::json!([8443, 8444]));
        assert_eq!(json["ports"]["h2"], serde_json::json!([9000]));
        assert_eq!(json["ports"]["ws"], serde_json::json!([8888]));
        assert_eq!(json["ports"]["wss"], serde_json::json!([8889]));
        assert_eq!(json["alternate_hosts"]["alt"], "not-web-platform.test");
        assert!(
            json["subdomains"]
                .as_array()
                .unwrap()
                .iter()
                .any(|s| s == "天気の良い日.élève")
        );
    }

    #[test]
    fn resolution_rules() {
        assert!(resolves_to_server("web-platform.test"));
        assert!(resolves_to_server("www1.www2.web-platform.test"));
        assert!(resolves_to_server("xn--lve-6lad.not-web-platform.test"));
        assert!(!resolves_to_server("nonexistent.web-platform.test"));
        assert!(!resolves_to_server("example.com"));
        assert!(!resolves_to_server("web-platform.test.evil"));
    }
}
