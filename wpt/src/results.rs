//! Results of a run, the checked-in expectations, and the comparison between them.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use crate::engine::harness::{COMPLETE_LINE, SUBTEST_LINE};
use crate::job::{Environment, Scope};

/// One subtest's result, as testharness.js reports it.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Subtest {
    /// The subtest's name.
    pub name: String,
    /// `PASS`, `FAIL`, `TIMEOUT`, `NOTRUN` or `PRECONDITION_FAILED`.
    pub status: String,
    /// The failure message, if any.
    #[serde(default)]
    pub message: Option<String>,
}

/// One run of one test file (one variant).
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct FileReport {
    /// The path plus the variant: the expectations key.
    pub id: String,
    /// The path relative to the suite root.
    pub path: String,
    /// The global scope it ran in.
    #[serde(default)]
    pub scope: Scope,
    /// Harness status: `OK`, `ERROR`, `TIMEOUT`, `PRECONDITION_FAILED`, or `CRASH` when the
    /// engine died without reporting.
    pub harness: String,
    /// The harness message, if any.
    pub message: Option<String>,
    /// Every subtest.
    pub subtests: Vec<Subtest>,
    /// Wall time of the file.
    pub duration_ms: u64,
}

/// A file found but not run, and why.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct NotRun {
    /// The path relative to the suite root.
    pub path: String,
    /// Why it was not run.
    pub reason: String,
}

/// Everything a run produced; what `--json` writes.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct Report {
    /// The suite root used.
    pub suite: String,
    /// The environment of the fetch client every file ran with.
    #[serde(default)]
    pub environment: Environment,
    /// The global scopes that ran, in order.
    #[serde(default)]
    pub scopes: Vec<Scope>,
    /// Files run, by id.
    pub files: Vec<FileReport>,
    /// Files not run.
    pub not_run: Vec<NotRun>,
}

#[derive(Deserialize)]
struct Completion {
    status: String,
    message: Option<String>,
    subtests: Option<Vec<Subtest>>,
}

/// Builds a file's report from its child's stdout. `killed` says the runner killed it at the
/// hard deadline; `stderr` explains a crash.
pub fn from_child_output(
    id: &str,
    path: &str,
    scope: Scope,
    stdout: &str,
    stderr: &str,
    killed: bool,
    duration_ms: u64,
) -> FileReport {
    let mut streamed = Vec::new();
    let mut completion = None;
    for line in stdout.lines() {
        if let Some(json) = line.strip_prefix(SUBTEST_LINE) {
            if let Ok(s) = serde_json::from_str::<Subtest>(json) {
                streamed.push(s);
            }
        } else if let Some(json) = line.strip_prefix(COMPLETE_LINE) {
            completion = serde_json::from_str::<Completion>(json).ok();
        }
    }
    let (harness, message, subtests) = match completion {
        Some(c) => (c.status, c.message, c.subtests.unwrap_or(streamed)),
        None => {
            let tail: Vec<&str> = stderr.lines().rev().take(5).collect();
            let tail = tail.into_iter().rev().collect::<Vec<_>>().join("\n");
            if killed {
                (
                    "TIMEOUT".to_owned(),
                    Some("killed at the hard deadline".to_owned()),
                    streamed,
                )
            } else {
                (
                    "CRASH".to_owned(),
                    Some(if tail.is_empty() {
                        "the engine exited without a result".to_owned()
                    } else {
                        tail
                    }),
                    streamed,
                )
            }
        }
    };
    FileReport {
        id: id.to_owned(),
        path: path.to_owned(),
        scope,
        harness,
        message,
        subtests,
        duration_ms,
    }
}

/// What is expected of one file: the subtests expected not to pass, the harness status
/// when it is not `OK`, and why.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq, Eq)]
pub struct FileExpectation {
    /// Why these subtests fail: a rule of the environment by design, or what is missing.
    /// Required in the server-side files (a test checks it); `--update` keeps it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// The expected harness status, when not `OK`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub harness: Option<String>,
    /// Subtests expected not to pass.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub fail: BTreeSet<String>,
    /// Subtests whose outcome is a race the runner does not control (a server that answers
    /// before the request it tests has been sent, say): counted as they come out, but
    /// neither a regression nor an unexpected pass. The file's `reason` says what the race
    /// is; a test checks that it has one.
    #[serde(default, skip_serializing_if = "BTreeSet::is_empty")]
    pub flaky: BTreeSet<String>,
}

/// The expectations file: file id → expectation. A file absent is expected to pass fully.
pub type Expectations = BTreeMap<String, FileExpectation>;

/// The expectations file of one environment and scope, under the expectations directory:
/// `<environment>-<scope>.json` (`browser-worker.json`, `server-window.json`, …).
pub fn expectations_file(
    dir: &std::path::Path,
    environment: Environment,
    scope: Scope,
) -> std::path::PathBuf {
    dir.join(format!("{}-{}.json", environment.name(), scope.name()))
}

/// One difference between a run and the expectations.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The file id.
    pub id: String,
    /// The scope the file ran in.
    pub scope: Scope,
    /// The subtest, or `None` for the harness status.
    pub subtest: Option<String>,
    /// What happened (`FAIL: message`, `harness ERROR`, …).
    pub detail: String,
}

/// How a run differs from the expectations.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Diff {
    /// Subtests that should pass and did not; harness statuses worse than expected.
    pub regressions: Vec<Change>,
    /// Subtests expected to fail that passed; harness `OK` where an error was expected.
    pub unexpected_passes: Vec<Change>,
    /// Expected failures naming subtests the run did not have.
    pub stale: Vec<Change>,
}

/// Compares the files of a run with the expectations.
pub fn diff(expectations: &Expectations, files: &[FileReport]) -> Diff {
    let mut d = Diff::default();
    let none = FileExpectation::default();
    for f in files {
        let e = expectations.get(&f.id).unwrap_or(&none);
        let expected_harness = e.harness.as_deref().unwrap_or("OK");
        if f.harness != expected_harness {
            let change = Change {
                id: f.id.clone(),
                scope: f.scope,
                subtest: None,
                detail: format!(
                    "harness {} (expected {expected_harness}){}",
                    f.harness,
                    f.message
                        .as_ref()
                        .map(|m| format!(": {m}"))
                        .unwrap_or_default()
                ),
            };
            if f.harness == "OK" {
                d.unexpected_passes.push(change);
            } else {
                d.regressions.push(change);
            }
        }
        let mut seen = BTreeSet::new();
        for s in &f.subtests {
            seen.insert(s.name.as_str());
            if e.flaky.contains(&s.name) {
                continue;
            }
            let expected_fail = e.fail.contains(&s.name);
            let passed = s.status == "PASS";
            let change = || Change {
                id: f.id.clone(),
                scope: f.scope,
                subtest: Some(s.name.clone()),
                detail: match &s.message {
                    Some(m) => format!("{}: {m}", s.status),
                    None => s.status.clone(),
                },
            };
            if !passed && !expected_fail {
                d.regressions.push(change());
            } else if passed && expected_fail {
                d.unexpected_passes.push(change());
            }
        }
        for name in e.fail.iter().chain(&e.flaky) {
            if !seen.contains(name.as_str()) {
                d.stale.push(Change {
                    id: f.id.clone(),
                    scope: f.scope,
                    subtest: Some(name.clone()),
                    detail: "not in this run".to_owned(),
                });
            }
        }
    }
    d
}

/// Rewrites the expectations of the files in this run to what the run did; files not in
/// the run keep their entries, and a file still failing keeps its reason.
pub fn update(expectations: &mut Expectations, files: &[FileReport]) {
    for f in files {
        // A flaky subtest stays flaky, whatever this run made of it.
        let flaky = expectations
            .get(&f.id)
            .map(|old| old.flaky.clone())
            .unwrap_or_default();
        let e = FileExpectation {
            reason: None,
            harness: (f.harness != "OK").then(|| f.harness.clone()),
            fail: f
                .subtests
                .iter()
                .filter(|s| s.status != "PASS" && !flaky.contains(&s.name))
                .map(|s| s.name.clone())
                .collect(),
            flaky,
        };
        if e == FileExpectation::default() {
            expectations.remove(&f.id);
        } else {
            let reason = expectations.get(&f.id).and_then(|old| old.reason.clone());
            expectations.insert(f.id.clone(), FileExpectation { reason, ..e });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn st(name: &str, status: &str) -> Subtest {
        Subtest {
            name: name.into(),
            status: status.into(),
            message: (status != "PASS").then(|| "why".into()),
        }
    }

    fn file(id: &str, harness: &str, subtests: Vec<Subtest>) -> FileReport {
        FileReport {
            id: id.into(),
            path: id.into(),
            scope: Scope::Worker,
            harness: harness.into(),
            message: None,
            subtests,
            duration_ms: 1,
        }
    }

    #[test]
    fn diff_finds_regressions_unexpected_passes_and_stale_names() {
        let mut exp = Expectations::new();
        exp.insert(
            "a.any.js".into(),
            FileExpectation {
                reason: None,
                harness: None,
                fail: ["x".into(), "gone".into()].into(),
                flaky: BTreeSet::new(),
            },
        );
        exp.insert(
            "b.any.js".into(),
            FileExpectation {
                reason: None,
                harness: Some("ERROR".into()),
                fail: BTreeSet::new(),
                flaky: BTreeSet::new(),
            },
        );
        let run = vec![
            file("a.any.js", "OK", vec![st("x", "PASS"), st("y", "FAIL")]),
            file("b.any.js", "OK", vec![]),
            file("c.any.js", "ERROR", vec![st("z", "TIMEOUT")]),
        ];
        let d = diff(&exp, &run);
        let r: Vec<_> = d
            .regressions
            .iter()
            .map(|c| (c.id.as_str(), c.subtest.as_deref()))
            .collect();
        assert_eq!(
            r,
            [
                ("a.any.js", Some("y")),
                ("c.any.js", None),
                ("c.any.js", Some("z"))
            ]
        );
        let u: Vec<_> = d
            .unexpected_passes
            .iter()
            .map(|c| (c.id.as_str(), c.subtest.as_deref()))
            .collect();
        assert_eq!(u, [("a.any.js", Some("x")), ("b.any.js", None)]);
        assert_eq!(d.stale.len(), 1);
        assert_eq!(d.regressions[0].detail, "FAIL: why");
    }

    #[test]
    fn update_then_diff_is_clean_and_drops_passing_files() {
        let mut exp = Expectations::new();
        exp.insert(
            "old.any.js".into(),
            FileExpectation {
                reason: None,
                harness: Some("ERROR".into()),
                fail: BTreeSet::new(),
                flaky: BTreeSet::new(),
            },
        );
        exp.insert(
            "fixed.any.js".into(),
            FileExpectation {
                reason: None,
                harness: None,
                fail: ["x".into()].into(),
                flaky: BTreeSet::new(),
            },
        );
        let run = vec![
            file("fixed.any.js", "OK", vec![st("x", "PASS")]),
            file(
                "new.any.js",
                "TIMEOUT",
                vec![st("p", "PASS"), st("q", "NOTRUN")],
            ),
        ];
        update(&mut exp, &run);
        assert!(!exp.contains_key("fixed.any.js"));
        assert!(exp.contains_key("old.any.js"));
        assert_eq!(exp["new.any.js"].harness.as_deref(), Some("TIMEOUT"));
        assert_eq!(exp["new.any.js"].fail, ["q".to_owned()].into());
        assert_eq!(diff(&exp, &run), Diff::default());
        let json = serde_json::to_string(&exp).unwrap();
        assert!(json.contains("\"old.any.js\":{\"harness\":\"ERROR\"}"));
    }

    #[test]
    fn update_keeps_the_reason_of_a_file_that_still_fails() {
        let mut exp = Expectations::new();
        exp.insert(
            "a.any.js".into(),
            FileExpectation {
                reason: Some("by design".into()),
                harness: None,
                fail: ["x".into()].into(),
                flaky: BTreeSet::new(),
            },
        );
        update(
            &mut exp,
            &[file(
                "a.any.js",
                "OK",
                vec![st("x", "FAIL"), st("y", "FAIL")],
            )],
        );
        assert_eq!(exp["a.any.js"].reason.as_deref(), Some("by design"));
        assert_eq!(exp["a.any.js"].fail.len(), 2);
        let json = serde_json::to_string(&exp).unwrap();
        assert!(json.starts_with("{\"a.any.js\":{\"reason\":\"by design\""));
    }

    #[test]
    fn each_environment_and_scope_has_its_own_expectations_file() {
        let dir = std::path::Path::new("wpt/expectations");
        assert_eq!(
            expectations_file(dir, Environment::Browser, Scope::Worker),
            dir.join("browser-worker.json")
        );
        assert_eq!(
            expectations_file(dir, Environment::Server, Scope::Window),
            dir.join("server-window.json")
        );
    }

    /// Every expected failure of the server-side environment says why: a browser-only rule by
    /// design, or what is missing.
    #[test]
    fn a_flaky_subtest_is_neither_a_regression_nor_an_unexpected_pass() {
        let mut exp = Expectations::new();
        exp.insert(
            "a.any.js".into(),
            FileExpectation {
                reason: Some("a race".into()),
                flaky: ["racy".to_owned()].into(),
                ..Default::default()
            },
        );
        for status in ["PASS", "FAIL"] {
            let run = [file(
                "a.any.js",
                "OK",
                vec![st("racy", status), st("fine", "PASS")],
            )];
            let d = diff(&exp, &run);
            assert!(
                d.regressions.is_empty() && d.unexpected_passes.is_empty(),
                "{d:?}"
            );
            // Updating keeps it flaky, never an expected failure.
            let mut updated = exp.clone();
            update(&mut updated, &run);
            assert_eq!(updated, exp, "{status}");
        }
        // Another subtest of the file still counts.
        let run = [file(
            "a.any.js",
            "OK",
            vec![st("racy", "PASS"), st("fine", "FAIL")],
        )];
        assert_eq!(diff(&exp, &run).regressions.len(), 1);
    }

    #[test]
    fn every_flaky_subtest_has_its_files_reason() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("expectations");
        for environment in [Environment::Browser, Environment::Server] {
            for scope in [Scope::Worker, Scope::Window] {
                let path = expectations_file(&dir, environment, scope);
                let text = std::fs::read_to_string(&path).unwrap();
                let exp: Expectations = serde_json::from_str(&text).unwrap();
                for (id, e) in exp.iter().filter(|(_, e)| !e.flaky.is_empty()) {
                    assert!(
                        e.reason.as_deref().is_some_and(|r| !r.trim().is_empty()),
                        "{}: {id} has flaky subtests and no reason",
                        path.display()
                    );
                }
            }
        }
    }

    #[test]
    fn every_expectation_has_a_reason() {
        // A subtest that is expected to fail says why, in every environment and scope: a
        // test that disagrees with the standard, a part not built, a server-side design.
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("expectations");
        for (environment, scope) in [
            (Environment::Browser, Scope::Worker),
            (Environment::Browser, Scope::Window),
            (Environment::Server, Scope::Worker),
            (Environment::Server, Scope::Window),
        ] {
            let path = expectations_file(&dir, environment, scope);
            let text = std::fs::read_to_string(&path).unwrap();
            let exp: Expectations = serde_json::from_str(&text).unwrap();
            for (id, e) in &exp {
                assert!(
                    e.reason.as_deref().is_some_and(|r| !r.trim().is_empty()),
                    "{}: {id} has no reason",
                    path.display()
                );
            }
        }
    }

    #[test]
    fn child_output_is_parsed_with_or_without_completion() {
        let out = "noise\nWPT-SUBTEST {\"name\":\"a\",\"status\":\"PASS\",\"message\":null}\n\
                   WPT-COMPLETE {\"status\":\"OK\",\"message\":null,\"stack\":null,\"subtests\":[{\"name\":\"a\",\"status\":\"PASS\",\"message\":null},{\"name\":\"b\",\"status\":\"FAIL\",\"message\":\"m\"}]}\n";
        let f = from_child_output("x.any.js", "x.any.js", Scope::Worker, out, "", false, 5);
        assert_eq!(f.harness, "OK");
        assert_eq!(f.subtests.len(), 2);
        let partial = "WPT-SUBTEST {\"name\":\"a\",\"status\":\"PASS\",\"message\":null}\n";
        let k = from_child_output("x.any.js", "x.any.js", Scope::Worker, partial, "", true, 5);
        assert_eq!((k.harness.as_str(), k.subtests.len()), ("TIMEOUT", 1));
        let c = from_child_output(
            "x.any.js",
            "x.any.js",
            Scope::Worker,
            "",
            "thread panicked",
            false,
            5,
        );
        assert_eq!(c.harness, "CRASH");
        assert_eq!(c.message.as_deref(), Some("thread panicked"));
    }
}
