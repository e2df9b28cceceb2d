//! Finding test files under the suite root and deciding how each one runs.

use std::path::{Path, PathBuf};

use crate::job::Scope;
use crate::meta::{self, Meta};

/// A test file found under the suite root.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TestFile {
    /// Path relative to the suite root, with `/` separators (`fetch/api/basic/status.h2.any.js`).
    pub path: String,
    /// How it runs, or why it does not.
    pub kind: Kind,
}

/// How a test file runs here.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An `.any.js` or `.window.js` file, with the global scopes it runs in (one or both, worker
    /// first); which of them run is the `--scope` choice.
    Run(Meta, Vec<Scope>),
    /// A test this runner does not run, with the reason.
    NotRun(String),
}

/// What marks a `.window.js` file as needing a real document: the window scope here has no
/// DOM (no elements, frames, navigation or media), so such a file is not run, rather than
/// run to fail on a missing `document.createElement`.
const NEEDS_A_DOCUMENT: &[&str] = &[
    "document",
    "iframe",
    "with_iframe",
    "window.open",
    "MediaSource",
    "XMLHttpRequest",
    "serviceWorker",
    "new Worker",
    "SharedWorker",
];

/// What of `document` the window scope's empty, loaded document has (`js/window_scope.js`):
/// a file that reads only these (most often `document.title`, for its tests' names) runs.
const DOCUMENT_HAS: &[&str] = &[".title", ".URL", ".baseURI", ".readyState", ".location"];

/// The first thing in a `.window.js` file's `source` that needs a real document, if any.
fn needs_a_document(source: &str) -> Option<&'static str> {
    NEEDS_A_DOCUMENT.iter().copied().find(|&t| {
        if t != "document" {
            return source.contains(t);
        }
        source.match_indices(t).any(|(at, _)| {
            let after = &source[at + t.len()..];
            !DOCUMENT_HAS.iter().any(|has| {
                after.strip_prefix(has).is_some_and(|rest| {
                    !rest.starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_')
                })
            })
        })
    })
}

/// The origin a test file needs, from its name (`.https.`, `.h2.`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Protocol {
    /// Plain HTTP/1.1 on port 8000.
    Http,
    /// HTTPS on port 8443.
    Https,
    /// HTTP/2 over TLS on port 9000.
    H2,
}

impl Protocol {
    /// The protocol of the test file at `path` run as `variant` (`""` or `?…`): HTTP/2 for
    /// a variant with `wpt_flags=h2` too, whose page WPT serves from its HTTP/2 server (a
    /// WebSocket test's `?wpt_flags=h2` then opens its socket there, over HTTP/2).
    pub fn of_variant(path: &str, variant: &str) -> Protocol {
        let h2 = variant
            .trim_start_matches(['?', '#'])
            .split('&')
            .any(|pair| pair == "wpt_flags=h2");
        if h2 { Protocol::H2 } else { Protocol::of(path) }
    }

    /// The protocol of the test file at `path`.
    pub fn of(path: &str) -> Protocol {
        let name = path.rsplit('/').next().unwrap_or(path);
        let flags: Vec<&str> = name.split('.').collect();
        if flags.contains(&"h2") {
            Protocol::H2
        } else if flags.contains(&"https") {
            Protocol::Https
        } else {
            Protocol::Http
        }
    }
}

/// Directories that hold helpers, not tests.
const SUPPORT_DIRS: &[&str] = &["resources", "support", "tools", "common"];

/// Classifies one file; `None` for files that are not tests at all.
pub fn classify(path: &str, source: impl FnOnce() -> Option<String>) -> Option<TestFile> {
    let name = path.rsplit('/').next().unwrap_or(path);
    if path.split('/').any(|seg| SUPPORT_DIRS.contains(&seg)) || name.starts_with('.') {
        return None;
    }
    let not_run = |reason: &str| {
        Some(TestFile {
            path: path.to_owned(),
            kind: Kind::NotRun(reason.to_owned()),
        })
    };
    if name.ends_with(".any.js") {
        let Some(src) = source() else {
            return not_run("unreadable");
        };
        let meta = meta::parse(&src);
        let mut scopes = Vec::new();
        if meta.runs_in_dedicated_worker() {
            scopes.push(Scope::Worker);
        }
        if meta.runs_in_window() {
            scopes.push(Scope::Window);
        }
        if scopes.is_empty() {
            return not_run(&format!(
                "global={} names neither a dedicated worker nor a window",
                meta.globals.join(",")
            ));
        }
        return Some(TestFile {
            path: path.to_owned(),
            kind: Kind::Run(meta, scopes),
        });
    }
    if name.ends_with(".window.js") {
        let Some(src) = source() else {
            return not_run("unreadable");
        };
        if let Some(what) = needs_a_document(&src) {
            return not_run(&format!(
                "window test that needs a real document (uses `{what}`); the window scope has no DOM"
            ));
        }
        return Some(TestFile {
            path: path.to_owned(),
            kind: Kind::Run(meta::parse(&src), vec![Scope::Window]),
        });
    }
    if name.ends_with(".worker.js") {
        return not_run("standalone worker test (.worker.js)");
    }
    if name.ends_with(".html")
        || name.ends_with(".htm")
        || name.ends_with(".xhtml")
        || name.ends_with(".svg")
    {
        if name.contains("-ref.") || name.contains("-manual.") {
            return None;
        }
        return not_run("document test (.html)");
    }
    None
}

/// Every test file under `root` for the given paths (files or directories, relative to the
/// root), sorted by path.
///
/// # Errors
/// A path that does not exist under the root.
pub fn discover(root: &Path, paths: &[String]) -> Result<Vec<TestFile>, String> {
    let mut files = Vec::new();
    for p in paths {
        let rel = p.trim_matches('/');
        // A variant may be given with the file (`…/x.any.js?1-10`); discovery ignores it.
        let rel = rel.split(['?', '#']).next().unwrap_or(rel);
        let full = root.join(rel);
        if full.is_dir() {
            walk(&full, &mut |f| {
                if let Ok(r) = f.strip_prefix(root) {
                    let r = r.to_string_lossy().replace('\\', "/");
                    if let Some(t) = classify(&r, || std::fs::read_to_string(f).ok()) {
                        files.push(t);
                    }
                }
            });
        } else if full.is_file() {
            match classify(rel, || std::fs::read_to_string(&full).ok()) {
                Some(t) => files.push(t),
                None => return Err(format!("{rel} is not a test file")),
            }
        } else {
            return Err(format!("{} does not exist", full.display()));
        }
    }
    files.sort_by(|a, b| a.path.cmp(&b.path));
    files.dedup_by(|a, b| a.path == b.path);
    Ok(files)
}

fn walk(dir: &Path, f: &mut dyn FnMut(&Path)) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    entries.sort();
    for e in entries {
        if e.is_dir() {
            walk(&e, f);
        } else {
            f(&e);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn classifies_by_name_and_meta() {
        let any = classify("fetch/api/a.any.js", || Some(String::new())).unwrap();
        assert!(matches!(any.kind, Kind::Run(_, s) if s == [Scope::Worker, Scope::Window]));
        let win = classify("fetch/api/a.any.js", || {
            Some("// META: global=window\n".into())
        })
        .unwrap();
        assert!(matches!(win.kind, Kind::Run(_, s) if s == [Scope::Window]));
        let worker = classify("fetch/api/a.any.js", || {
            Some("// META: global=worker\n".into())
        })
        .unwrap();
        assert!(matches!(worker.kind, Kind::Run(_, s) if s == [Scope::Worker]));
        let shared = classify("fetch/api/a.any.js", || {
            Some("// META: global=sharedworker\n".into())
        })
        .unwrap();
        assert!(matches!(shared.kind, Kind::NotRun(r) if r.contains("global=sharedworker")));
        assert!(matches!(
            classify("fetch/a.window.js", || None).unwrap().kind,
            Kind::NotRun(r) if r == "unreadable"
        ));
        assert!(matches!(
            classify("fetch/a.worker.js", || None).unwrap().kind,
            Kind::NotRun(r) if r.contains(".worker.js")
        ));
        assert!(matches!(
            classify("fetch/a.html", || None).unwrap().kind,
            Kind::NotRun(_)
        ));
        assert!(classify("fetch/api/resources/utils.js", || None).is_none());
        assert!(classify("fetch/api/resources/x.any.js", || None).is_none());
        assert!(classify("fetch/api/a.py", || None).is_none());
    }

    #[test]
    fn a_window_file_runs_in_the_window_unless_it_needs_a_document() {
        let plain = classify("fetch/a.window.js", || {
            Some("// META: title=T\npromise_test(() => fetch('x'));\n".into())
        })
        .unwrap();
        match plain.kind {
            Kind::Run(meta, scopes) => {
                assert_eq!(scopes, [Scope::Window]);
                assert_eq!(meta.title.as_deref(), Some("T"));
            }
            other => panic!("{other:?}"),
        }
        let frame = classify("fetch/b.window.js", || {
            Some("const f = document.createElement('iframe');".into())
        })
        .unwrap();
        assert!(matches!(
            frame.kind,
            Kind::NotRun(r) if r.contains("needs a real document") && r.contains("`document`")
        ));
        // What the empty document has is no reason not to run.
        let titled = classify("fetch/d.window.js", || {
            Some("async_test(document.title + ' x'); document.URL;".into())
        })
        .unwrap();
        assert!(matches!(titled.kind, Kind::Run(..)), "{:?}", titled.kind);
        let domain = classify("fetch/e.window.js", || {
            Some("document.title; document.domain = 'x';".into())
        })
        .unwrap();
        assert!(matches!(domain.kind, Kind::NotRun(_)));
        let titles = classify("fetch/f.window.js", || Some("document.titles;".into())).unwrap();
        assert!(matches!(titles.kind, Kind::NotRun(_)));
        let nav = classify("fetch/c.window.js", || {
            Some("await with_iframe('x.html');".into())
        })
        .unwrap();
        assert!(matches!(nav.kind, Kind::NotRun(r) if r.contains("`iframe`")));
        assert!(matches!(
            classify("fetch/a.html", || None).unwrap().kind,
            Kind::NotRun(r) if r == "document test (.html)"
        ));
    }

    #[test]
    fn protocol_from_name_flags() {
        assert_eq!(
            Protocol::of("fetch/api/basic/status.h2.any.js"),
            Protocol::H2
        );
        assert_eq!(Protocol::of("fetch/api/a.https.any.js"), Protocol::Https);
        assert_eq!(Protocol::of("fetch/api/a.any.js"), Protocol::Http);
        assert_eq!(Protocol::of("fetch/https-things/a.any.js"), Protocol::Http);
    }

    #[test]
    fn discovers_a_directory_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path().join("fetch/x");
        std::fs::create_dir_all(d.join("resources")).unwrap();
        std::fs::write(d.join("b.any.js"), "test(() => {});").unwrap();
        std::fs::write(d.join("a.window.js"), "").unwrap();
        std::fs::write(d.join("c.html"), "").unwrap();
        std::fs::write(d.join("resources/helper.js"), "").unwrap();
        let found = discover(dir.path(), &["fetch".to_owned()]).unwrap();
        let paths: Vec<&str> = found.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(
            paths,
            ["fetch/x/a.window.js", "fetch/x/b.any.js", "fetch/x/c.html"]
        );
        assert!(matches!(&found[0].kind, Kind::Run(_, s) if s == &[Scope::Window]));
        assert!(discover(dir.path(), &["nope".to_owned()]).is_err());
    }
}
