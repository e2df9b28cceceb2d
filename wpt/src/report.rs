//! The per-directory summary table and the static HTML report.

use std::collections::BTreeMap;
use std::fmt::Write;

use crate::job::Scope;
use crate::results::{Diff, Report};

/// Counts for one directory.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    /// Runs (file × variant) that ran.
    pub files: usize,
    /// Files found but not run.
    pub not_run: usize,
    /// Runs whose harness status was not OK.
    pub harness_errors: usize,
    /// Subtests reported.
    pub subtests: usize,
    /// Subtests that passed.
    pub passed: usize,
}

impl Counts {
    /// Passed as a percentage of subtests (0 when there are none).
    pub fn percent(&self) -> f64 {
        if self.subtests == 0 {
            0.0
        } else {
            100.0 * self.passed as f64 / self.subtests as f64
        }
    }
}

fn dir_of(path: &str) -> &str {
    path.rsplit_once('/').map_or("", |(d, _)| d)
}

/// Counts per directory, in path order, and the total, of the runs in `scope` (every scope
/// when `None`). Files not run are counted in every scope.
pub fn summarize(report: &Report, scope: Option<Scope>) -> (BTreeMap<String, Counts>, Counts) {
    let mut dirs: BTreeMap<String, Counts> = BTreeMap::new();
    for f in report
        .files
        .iter()
        .filter(|f| scope.is_none_or(|s| f.scope == s))
    {
        let c = dirs.entry(dir_of(&f.path).to_owned()).or_default();
        c.files += 1;
        c.harness_errors += usize::from(f.harness != "OK");
        c.subtests += f.subtests.len();
        c.passed += f.subtests.iter().filter(|s| s.status == "PASS").count();
    }
    for n in &report.not_run {
        dirs.entry(dir_of(&n.path).to_owned()).or_default().not_run += 1;
    }
    let mut total = Counts::default();
    for c in dirs.values() {
        total.files += c.files;
        total.not_run += c.not_run;
        total.harness_errors += c.harness_errors;
        total.subtests += c.subtests;
        total.passed += c.passed;
    }
    (dirs, total)
}

/// The summary as plain-text tables, one per scope that ran, each headed by the environment
/// and scope.
pub fn summary_table(report: &Report) -> String {
    let mut s = String::new();
    for &scope in &report.scopes {
        if !report.files.iter().any(|f| f.scope == scope) {
            continue;
        }
        let _ = writeln!(
            s,
            "{} environment, {} scope:",
            report.environment.name(),
            scope.name()
        );
        s.push_str(&scope_table(report, scope));
    }
    s
}

fn scope_table(report: &Report, scope: Scope) -> String {
    let (dirs, total) = summarize(report, Some(scope));
    let width = dirs.keys().map(String::len).max().unwrap_or(0).max(9);
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:<width$}  {:>5}  {:>7}  {:>6}  {:>8}  {:>6}  {:>6}",
        "directory", "files", "not run", "errors", "subtests", "passed", "%"
    );
    let mut row = |name: &str, c: &Counts| {
        let _ = writeln!(
            s,
            "{name:<width$}  {:>5}  {:>7}  {:>6}  {:>8}  {:>6}  {:>5.1}%",
            c.files,
            c.not_run,
            c.harness_errors,
            c.subtests,
            c.passed,
            c.percent()
        );
    };
    for (d, c) in &dirs {
        row(d, c);
    }
    row("total", &total);
    s
}

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
        .replace('"', "&quot;")
}

/// A static, self-contained HTML report: per directory, per file, failures with messages.
pub fn html(report: &Report, diff: &Diff) -> String {
    let (dirs, total) = summarize(report, None);
    let scopes: Vec<&str> = report.scopes.iter().map(|s| s.name()).collect();
    let mut h = String::new();
    h.push_str("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>whatwg-fetch WPT report</title>\n<style>\n\
        body{font:14px/1.4 system-ui,sans-serif;margin:2em}table{border-collapse:collapse}\
        td,th{padding:2px 8px;border-bottom:1px solid #ddd;text-align:right}td:first-child,th:first-child{text-align:left}\
        .ok{color:#070}.bad{color:#b00}details{margin:2px 0}summary{cursor:pointer}pre{white-space:pre-wrap;margin:0 0 0 2em;color:#444}\
        .reg{background:#fee}\n</style></head><body>\n");
    let _ = writeln!(
        h,
        "<h1>whatwg-fetch: web-platform-tests</h1>\n<p>Environment: <b>{}</b>; scopes: <b>{}</b>. Suite: <code>{}</code>. {} of {} subtests pass ({:.1}%) in {} runs; {} files not run; {} regressions, {} unexpected passes.</p>",
        report.environment.name(),
        scopes.join(", "),
        esc(&report.suite),
        total.passed,
        total.subtests,
        total.percent(),
        total.files,
        total.not_run,
        diff.regressions.len(),
        diff.unexpected_passes.len()
    );
    h.push_str("<h2>Summary</h2>\n<table><tr><th>directory</th><th>files</th><th>not run</th><th>harness errors</th><th>subtests</th><th>passed</th><th>%</th></tr>\n");
    for (d, c) in dirs
        .iter()
        .map(|(d, c)| (Some(d.as_str()), c))
        .chain(std::iter::once((None, &total)))
    {
        let name = match d {
            Some(d) => format!("<a href=\"#{}\">{}</a>", esc(d), esc(d)),
            None => "<b>total</b>".to_owned(),
        };
        let _ = writeln!(
            h,
            "<tr><td>{name}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{:.1}%</td></tr>",
            c.files,
            c.not_run,
            c.harness_errors,
            c.subtests,
            c.passed,
            c.percent()
        );
    }
    h.push_str("</table>\n");
    let regressed: std::collections::BTreeSet<&str> =
        diff.regressions.iter().map(|c| c.id.as_str()).collect();
    for d in dirs.keys() {
        let _ = writeln!(h, "<h2 id=\"{}\">{}</h2>", esc(d), esc(d));
        for f in report.files.iter().filter(|f| dir_of(&f.path) == d) {
            let passed = f.subtests.iter().filter(|s| s.status == "PASS").count();
            let class = if f.harness == "OK" && passed == f.subtests.len() {
                "ok"
            } else {
                "bad"
            };
            let reg = if regressed.contains(f.id.as_str()) {
                " class=\"reg\""
            } else {
                ""
            };
            let _ = writeln!(
                h,
                "<details{reg}><summary><span class=\"{class}\">{}</span> ({}) — {passed}/{} passed, harness {}{}</summary>",
                esc(&f.id),
                f.scope.name(),
                f.subtests.len(),
                esc(&f.harness),
                f.message
                    .as_ref()
                    .map(|m| format!(": <code>{}</code>", esc(m)))
                    .unwrap_or_default()
            );
            for s in f.subtests.iter().filter(|s| s.status != "PASS") {
                let _ = writeln!(
                    h,
                    "<div><span class=\"bad\">{}</span> {}</div>{}",
                    esc(&s.status),
                    esc(&s.name),
                    s.message
                        .as_ref()
                        .map(|m| format!("<pre>{}</pre>", esc(m)))
                        .unwrap_or_default()
                );
            }
            h.push_str("</details>\n");
        }
        for n in report.not_run.iter().filter(|n| dir_of(&n.path) == d) {
            let _ = writeln!(
                h,
                "<div>NOT RUN {} — {}</div>",
                esc(&n.path),
                esc(&n.reason)
            );
        }
    }
    h.push_str("</body></html>\n");
    h
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::results::{FileReport, NotRun, Subtest, diff};

    fn report() -> Report {
        let st = |n: &str, s: &str| Subtest {
            name: n.into(),
            status: s.into(),
            message: Some("<b>".into()),
        };
        Report {
            suite: "/suite".into(),
            environment: crate::job::Environment::Server,
            scopes: vec![Scope::Worker, Scope::Window],
            files: vec![
                FileReport {
                    id: "a/x.any.js".into(),
                    path: "a/x.any.js".into(),
                    scope: Scope::Worker,
                    harness: "OK".into(),
                    message: None,
                    subtests: vec![st("1", "PASS"), st("2", "FAIL")],
                    duration_ms: 1,
                },
                FileReport {
                    id: "a/b/y.any.js?v".into(),
                    path: "a/b/y.any.js".into(),
                    scope: Scope::Window,
                    harness: "ERROR".into(),
                    message: Some("boom".into()),
                    subtests: vec![],
                    duration_ms: 1,
                },
            ],
            not_run: vec![NotRun {
                path: "a/z.window.js".into(),
                reason: "window-only".into(),
            }],
        }
    }

    #[test]
    fn summarizes_per_directory() {
        let (dirs, total) = summarize(&report(), None);
        assert_eq!(
            dirs["a"],
            Counts {
                files: 1,
                not_run: 1,
                harness_errors: 0,
                subtests: 2,
                passed: 1
            }
        );
        assert_eq!(dirs["a/b"].harness_errors, 1);
        assert_eq!((total.files, total.subtests, total.passed), (2, 2, 1));
        assert_eq!(total.percent(), 50.0);
        let (window, _) = summarize(&report(), Some(Scope::Window));
        assert_eq!(
            (window["a/b"].files, window.get("a").map(|c| c.files)),
            (1, Some(0))
        );
        let t = summary_table(&report());
        assert!(t.lines().last().unwrap().starts_with("total"));
        assert!(t.contains("50.0%"));
        assert!(t.starts_with("server environment, worker scope:\n"));
        assert!(t.contains("\nserver environment, window scope:\n"));
    }

    #[test]
    fn html_lists_failures_escaped() {
        let r = report();
        let d = diff(&Default::default(), &r.files);
        let h = html(&r, &d);
        assert!(h.starts_with("<!DOCTYPE html>"));
        assert!(h.contains("<pre>&lt;b&gt;</pre>"));
        assert!(h.contains("NOT RUN a/z.window.js"));
        assert!(h.contains("harness ERROR: <code>boom</code>"));
        assert!(h.contains("class=\"reg\""));
        assert!(h.contains("Environment: <b>server</b>; scopes: <b>worker, window</b>"));
        assert!(h.contains("a/b/y.any.js?v</span> (window)"));
    }
}
