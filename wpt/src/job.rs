//! One run of one test file: what the runner hands its child process.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use crate::discover::Protocol;
use crate::server::{BROWSER_HOST, H2_PORT, HTTP_PORTS, HTTPS_PORTS};

/// A test file (and variant) to run in a fresh engine.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Job {
    /// `path` plus the variant: the key results and expectations use.
    pub id: String,
    /// The worker script URL that is `self.location` (`…/name.any.worker.js?variant`).
    pub location: String,
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
    ) -> Result<Job, String> {
        let origin = origin(Protocol::of(path));
        let test_url =
            url::Url::parse(&format!("{origin}/{path}")).map_err(|e| format!("{path}: {e}"))?;
        let worker_path = path.strip_suffix(".js").unwrap_or(path);
        let location = format!("{origin}/{worker_path}.worker.js{variant}");
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
        let j = Job::new("fetch/api/basic/a.any.js", "?1-5", &m, 10_000).unwrap();
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
        let h = Job::new("fetch/api/a.https.any.js", "", &m, 1).unwrap();
        assert!(h.location.starts_with("https://web-platform.test:8443/"));
        let h2 = Job::new("fetch/api/basic/status.h2.any.js", "", &m, 1).unwrap();
        assert!(h2.location.starts_with("https://web-platform.test:9000/"));
    }
}
