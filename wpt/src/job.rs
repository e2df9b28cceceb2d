//! One run of one test file: what the runner hands its child process.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::discover::Protocol;
use crate::server::{BROWSER_HOST, H2_PORT, HTTP_PORTS, HTTPS_PORTS};

/// The environment the test's fetch client stands in: which of the crate's two
/// [`whatwg_fetch::environment::Environment`] shapes it has.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Environment {
    /// Browser-like: the client's origin and base URL are the test page's.
    #[default]
    Browser,
    /// Server-side (the default `Client`): no origin; the test page's URL is the base URL only.
    Server,
}

/// The global scope a test runs in.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Scope {
    /// A dedicated worker, as WPT's `.any.worker.js` wrapper runs an `.any.js` file.
    #[default]
    Worker,
    /// A window without a DOM, as WPT's `.any.html` and `.window.html` wrappers run
    /// `.any.js` and `.window.js` files.
    Window,
}

impl Environment {
    /// The name used on the command line, in reports and in expectation file names.
    pub fn name(self) -> &'static str {
        match self {
            Environment::Browser => "browser",
            Environment::Server => "server",
        }
    }

    /// Parses a command-line value.
    pub fn parse(s: &str) -> Option<Environment> {
        match s {
            "browser" => Some(Environment::Browser),
            "server" => Some(Environment::Server),
            _ => None,
        }
    }
}

impl Scope {
    /// The name used on the command line, in reports and in expectation file names.
    pub fn name(self) -> &'static str {
        match self {
            Scope::Worker => "worker",
            Scope::Window => "window",
        }
    }
}

/// A test file (and variant) to run in a fresh engine.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Job {
    /// `path` plus the variant: the key results and expectations use.
    pub id: String,
    /// The page or worker script URL that is `self.location`: `…/name.any.worker.js?variant`
    /// in a worker, `…/name.any.html?variant` or `…/name.window.html` in a window.
    pub location: String,
    /// The global scope it runs in.
    #[serde(default)]
    pub scope: Scope,
    /// The environment of its fetch client.
    #[serde(default)]
    pub environment: Environment,
    /// Scripts to load over HTTP and evaluate in order: testharness.js, the META scripts,
    /// then the test file.
    pub scripts: Vec<String>,
    /// The deadline for the whole file, after which testharness's `timeout()` is called.
    pub timeout_ms: u64,
    /// `META: title=`.
    pub title: Option<String>,
    /// The test CA that signed the server's certificate, for the engine's HTTPS client to trust.
    #[serde(default)]
    pub ca_cert: Option<PathBuf>,
}

/// The origin a file with `protocol` is served from.
pub fn origin(protocol: Protocol) -> String {
    match protocol {
        Protocol::Http => format!("http://{BROWSER_HOST}:{}", HTTP_PORTS[0]),
        Protocol::Https => format!("https://{BROWSER_HOST}:{}", HTTPS_PORTS[0]),
        Protocol::H2 => format!("https://{BROWSER_HOST}:{H2_PORT}"),
    }
}

impl Job {
    /// The job for `path` (relative to the suite root) with `variant` (`""` or `?…`).
    ///
    /// # Errors
    /// A META script that does not resolve against the test's URL.
    pub fn new(
        path: &str,
        variant: &str,
        meta: &crate::meta::Meta,
        timeout_ms: u64,
        scope: Scope,
        environment: Environment,
    ) -> Result<Job, String> {
        let origin = origin(Protocol::of_variant(path, variant));
        let test_url =
            url::Url::parse(&format!("{origin}/{path}")).map_err(|e| format!("{path}: {e}"))?;
        let stem = path.strip_suffix(".js").unwrap_or(path);
        let location = match scope {
            Scope::Worker => format!("{origin}/{stem}.worker.js{variant}"),
            Scope::Window => format!("{origin}/{stem}.html{variant}"),
        };
        let mut scripts = vec![format!("{origin}/resources/testharness.js")];
        for s in &meta.scripts {
            let u = test_url
                .join(s)
                .map_err(|e| format!("{path}: META script {s}: {e}"))?;
            scripts.push(u.to_string());
        }
        scripts.push(test_url.to_string());
        Ok(Job {
            id: format!("{path}{variant}"),
            location,
            scope,
            environment,
            scripts,
            timeout_ms,
            title: meta.title.clone(),
            ca_cert: None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::meta;

    #[test]
    fn builds_urls_for_each_protocol_and_variant() {
        let m = meta::parse(
            "// META: script=../resources/utils.js\n// META: script=/common/get-host-info.sub.js\n",
        );
        let (worker, browser) = (Scope::Worker, Environment::Browser);
        let j = Job::new(
            "fetch/api/basic/a.any.js",
            "?1-5",
            &m,
            10_000,
            worker,
            browser,
        )
        .unwrap();
        assert_eq!(j.id, "fetch/api/basic/a.any.js?1-5");
        assert_eq!(
            j.location,
            "http://web-platform.test:8000/fetch/api/basic/a.any.worker.js?1-5"
        );
        assert_eq!(
            j.scripts,
            [
                "http://web-platform.test:8000/resources/testharness.js",
                "http://web-platform.test:8000/fetch/api/resources/utils.js",
                "http://web-platform.test:8000/common/get-host-info.sub.js",
                "http://web-platform.test:8000/fetch/api/basic/a.any.js",
            ]
        );
        let h = Job::new("fetch/api/a.https.any.js", "", &m, 1, worker, browser).unwrap();
        assert!(h.location.starts_with("https://web-platform.test:8443/"));
        let h2 = Job::new(
            "fetch/api/basic/status.h2.any.js",
            "",
            &m,
            1,
            worker,
            browser,
        )
        .unwrap();
        assert!(h2.location.starts_with("https://web-platform.test:9000/"));
        // WPT serves a `?wpt_flags=h2` variant's page from its HTTP/2 server too.
        for variant in ["?wpt_flags=h2", "?a=1&wpt_flags=h2"] {
            let j = Job::new("websockets/a.any.js", variant, &m, 1, worker, browser).unwrap();
            assert_eq!(
                j.location,
                format!("https://web-platform.test:9000/websockets/a.any.worker.js{variant}")
            );
        }
        for variant in ["", "?wss", "?wpt_flags=h2x"] {
            let j = Job::new("websockets/a.any.js", variant, &m, 1, worker, browser).unwrap();
            assert!(
                j.location.starts_with("http://web-platform.test:8000/"),
                "{variant}"
            );
        }
    }

    #[test]
    fn a_window_run_is_located_at_the_html_page_wpt_wraps_the_file_in() {
        let m = meta::parse("");
        let (window, server) = (Scope::Window, Environment::Server);
        let any = Job::new("fetch/api/basic/a.any.js", "?x", &m, 1, window, server).unwrap();
        assert_eq!(
            any.location,
            "http://web-platform.test:8000/fetch/api/basic/a.any.html?x"
        );
        assert_eq!((any.scope, any.environment), (window, server));
        let win = Job::new(
            "fetch/content-length/too-long.window.js",
            "",
            &m,
            1,
            window,
            server,
        )
        .unwrap();
        assert_eq!(
            win.location,
            "http://web-platform.test:8000/fetch/content-length/too-long.window.html"
        );
        assert_eq!(
            win.scripts.last().map(String::as_str),
            Some("http://web-platform.test:8000/fetch/content-length/too-long.window.js")
        );
    }
}
