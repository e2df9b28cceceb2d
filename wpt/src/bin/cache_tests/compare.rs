//! The suite's results (its JSON format), their verdicts as cache-tests.fyi shows them
//! (`test-engine/lib/results.mjs`), and a comparison of this crate's results with the
//! browsers' published ones, by test kind.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use serde::{Deserialize, Serialize};

/// One test's result in the suite's JSON format: `true` for a pass, `[name, message]` for
/// a failure (`name` is `Assertion`, `Setup`, `AbortError`, …).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Outcome {
    /// `true` (a pass) or `false`.
    Bool(bool),
    /// `[name, message]`.
    Failed(String, String),
}

impl Outcome {
    /// Whether the test passed: the suite's own count (`result === true`).
    pub fn passed(&self) -> bool {
        matches!(self, Outcome::Bool(true))
    }
}

/// A results file: test id to outcome, sorted by id as the suite writes it.
pub type Results = BTreeMap<String, Outcome>;

/// How the suite classifies a test (its `kind`; none means `required`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Kind {
    /// Conformance to a requirement of the specifications.
    Required,
    /// What a good cache does, beyond the requirements.
    Optimal,
    /// A behaviour recorded, not judged.
    Check,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Required => "required",
            Kind::Optimal => "optimal",
            Kind::Check => "check",
        }
    }
}

/// What the suite says about one test, as the runner's entry module lists it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TestInfo {
    /// The test's id.
    pub id: String,
    /// The id of its test suite (file).
    pub suite: String,
    /// What it tests, in words.
    pub name: String,
    /// Its kind.
    pub kind: Kind,
    /// The tests that must pass for its result to mean anything.
    #[serde(default)]
    pub depends_on: Vec<String>,
    /// Runs only against a browser cache.
    #[serde(default)]
    pub browser_only: bool,
    /// Does not run against a browser cache.
    #[serde(default)]
    pub browser_skip: bool,
    /// Runs only against a CDN.
    #[serde(default)]
    pub cdn_only: bool,
}

impl TestInfo {
    /// Whether the suite's browser mode runs it (`test-engine/client/runner.mjs`).
    pub fn runs_in_browser(&self) -> bool {
        !self.cdn_only && !self.browser_skip
    }
}

/// A test's verdict as cache-tests.fyi shows it (`determineTestResult`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Untested,
    Pass,
    Fail,
    OptionalFail,
    Yes,
    No,
    SetupFail,
    HarnessFail,
    DependencyFail,
    Retry,
}

impl Verdict {
    /// The suite's symbol for it.
    pub fn symbol(self) -> &'static str {
        match self {
            Verdict::Untested => "-",
            Verdict::Pass => "✅",
            Verdict::Fail => "⛔️",
            Verdict::OptionalFail => "⚠️",
            Verdict::Yes => "Y",
            Verdict::No => "N",
            Verdict::SetupFail => "🔹",
            Verdict::HarnessFail => "⁉️",
            Verdict::DependencyFail => "⚪️",
            Verdict::Retry => "↻",
        }
    }
}

/// The verdict for `id`, as `determineTestResult(…, honorDependencies = true)` gives it.
pub fn verdict(tests: &BTreeMap<String, TestInfo>, id: &str, results: &Results) -> Verdict {
    verdict_at(tests, id, results, 0)
}

fn verdict_at(
    tests: &BTreeMap<String, TestInfo>,
    id: &str,
    results: &Results,
    depth: usize,
) -> Verdict {
    let (Some(test), Some(result)) = (tests.get(id), results.get(id)) else {
        return Verdict::Untested;
    };
    // A dependency cycle in the suite would recurse forever; the suite has none.
    if depth < 16 {
        for dependency in &test.depends_on {
            if !matches!(
                verdict_at(tests, dependency, results, depth + 1),
                Verdict::Pass | Verdict::Yes
            ) {
                return Verdict::DependencyFail;
            }
        }
    }
    match result {
        Outcome::Failed(name, message) if name == "Setup" => {
            if message == "retry" {
                Verdict::Retry
            } else {
                Verdict::SetupFail
            }
        }
        Outcome::Failed(name, _) if name == "AbortError" => Verdict::HarnessFail,
        _ => match (test.kind, result.passed()) {
            (Kind::Required, true) | (Kind::Optimal, true) => Verdict::Pass,
            (Kind::Required, false) => Verdict::Fail,
            (Kind::Optimal, false) => Verdict::OptionalFail,
            (Kind::Check, true) => Verdict::Yes,
            (Kind::Check, false) => Verdict::No,
        },
    }
}

/// One implementation's results, by name.
pub struct Implementation {
    /// Its name (`whatwg-fetch`, `Chrome`, …).
    pub name: String,
    /// Its results.
    pub results: Results,
}

/// Per kind: how many tests the browser mode runs, and how many each implementation passes.
#[derive(Debug, PartialEq)]
pub struct KindCount {
    /// The kind.
    pub kind: Kind,
    /// The tests of this kind that the browser mode runs.
    pub total: usize,
    /// Passes (`true` results) per implementation, in the order given.
    pub passed: Vec<usize>,
}

/// The comparison of the first implementation (this crate) with the others (the browsers).
pub struct Comparison<'a> {
    /// The suite's tests, by id.
    pub tests: &'a BTreeMap<String, TestInfo>,
    /// The suite's tests in its order.
    pub order: &'a [TestInfo],
    /// This crate first, then the browsers.
    pub implementations: &'a [Implementation],
}

impl Comparison<'_> {
    fn browser_tests(&self) -> impl Iterator<Item = &TestInfo> {
        self.order.iter().filter(|test| test.runs_in_browser())
    }

    fn passed(&self, implementation: &Implementation, id: &str) -> bool {
        implementation.results.get(id).is_some_and(Outcome::passed)
    }

    /// Counts by kind, of the tests the browser mode runs.
    pub fn counts(&self) -> Vec<KindCount> {
        [Kind::Required, Kind::Optimal, Kind::Check]
            .into_iter()
            .map(|kind| {
                let tests: Vec<&TestInfo> = self
                    .browser_tests()
                    .filter(|test| test.kind == kind)
                    .collect();
                KindCount {
                    kind,
                    total: tests.len(),
                    passed: self
                        .implementations
                        .iter()
                        .map(|implementation| {
                            tests
                                .iter()
                                .filter(|test| self.passed(implementation, &test.id))
                                .count()
                        })
                        .collect(),
                }
            })
            .collect()
    }

    /// The tests the browser mode runs where the first implementation passes and every
    /// other fails, or fails and every other passes.
    pub fn differing_from_all(&self) -> Vec<&TestInfo> {
        let Some((ours, others)) = self.implementations.split_first() else {
            return Vec::new();
        };
        self.browser_tests()
            .filter(|test| {
                let passed = self.passed(ours, &test.id);
                !others.is_empty()
                    && others
                        .iter()
                        .all(|other| self.passed(other, &test.id) != passed)
            })
            .collect()
    }

    /// The implementations' names, this crate's first.
    fn names(&self) -> Vec<&str> {
        self.implementations
            .iter()
            .map(|i| i.name.as_str())
            .collect()
    }

    /// The comparison as Markdown: counts by kind, the tests that differ from all the
    /// others, and every test's verdicts.
    pub fn markdown(&self) -> String {
        let mut out = String::new();
        let names = self.names();
        let _ = writeln!(out, "# cache-tests: {}\n", names.join(" vs "));
        out.push_str(&self.counts_table());
        let differing = self.differing_from_all();
        let _ = writeln!(
            out,
            "\n## Tests where {} differs from all the others ({})\n",
            names.first().copied().unwrap_or_default(),
            differing.len()
        );
        if !differing.is_empty() {
            let _ = writeln!(out, "| test | kind | {} | ours |", names.join(" | "));
            let _ = writeln!(out, "| --- | --- |{}--- |", " --- |".repeat(names.len()));
            for test in differing {
                let _ = writeln!(out, "{}", self.row(test, true));
            }
        }
        let _ = writeln!(out, "\n## Every test the browser mode runs\n");
        let _ = writeln!(out, "| test | kind | {} |", names.join(" | "));
        let _ = writeln!(out, "| --- | --- |{}", " --- |".repeat(names.len()));
        for test in self.browser_tests() {
            let _ = writeln!(out, "{}", self.row(test, false));
        }
        out
    }

    /// Counts by kind as a Markdown table: passed / run, per implementation.
    pub fn counts_table(&self) -> String {
        let mut out = String::new();
        let names = self.names();
        let _ = writeln!(out, "| kind | tests | {} |", names.join(" | "));
        let _ = writeln!(out, "| --- | ---: |{}", " ---: |".repeat(names.len()));
        for count in self.counts() {
            let passed: Vec<String> = count.passed.iter().map(usize::to_string).collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                count.kind.name(),
                count.total,
                passed.join(" | ")
            );
        }
        out
    }

    fn row(&self, test: &TestInfo, with_message: bool) -> String {
        let verdicts: Vec<&str> = self
            .implementations
            .iter()
            .map(|implementation| verdict(self.tests, &test.id, &implementation.results).symbol())
            .collect();
        let mut row = format!(
            "| `{}` {} | {} | {} |",
            test.id,
            escape(&test.name),
            test.kind.name(),
            verdicts.join(" | ")
        );
        if with_message {
            let message = match self
                .implementations
                .first()
                .and_then(|i| i.results.get(&test.id))
            {
                Some(Outcome::Failed(name, message)) => format!("{name}: {message}"),
                Some(Outcome::Bool(true)) => "pass".to_owned(),
                Some(Outcome::Bool(false)) => "fail".to_owned(),
                None => "not run".to_owned(),
            };
            let _ = write!(row, " {} |", escape(&message));
        }
        row
    }
}

fn escape(text: &str) -> String {
    text.replace('|', "\\|").replace('\n', " ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test(id: &str, kind: Kind) -> TestInfo {
        TestInfo {
            id: id.into(),
            suite: "suite".into(),
            name: format!("name of {id}"),
            kind,
            depends_on: Vec::new(),
            browser_only: false,
            browser_skip: false,
            cdn_only: false,
        }
    }

    fn results(json: &str) -> Results {
        serde_json::from_str(json).unwrap()
    }

    #[test]
    fn results_read_and_write_the_suites_json_format() {
        let json =
            r#"{"a":true,"b":["Assertion","Response 2 does not come from cache"],"c":false}"#;
        let parsed = results(json);
        assert_eq!(parsed["a"], Outcome::Bool(true));
        assert_eq!(
            parsed["b"],
            Outcome::Failed(
                "Assertion".into(),
                "Response 2 does not come from cache".into()
            )
        );
        assert!(!parsed["c"].passed());
        assert_eq!(serde_json::to_string(&parsed).unwrap(), json);
    }

    #[test]
    fn test_info_defaults_its_flags_and_reads_the_kind() {
        let info: TestInfo =
            serde_json::from_str(r#"{"id":"x","suite":"s","name":"n","kind":"optimal"}"#).unwrap();
        assert_eq!(info.kind, Kind::Optimal);
        assert!(info.runs_in_browser());
        let cdn: TestInfo = serde_json::from_str(
            r#"{"id":"x","suite":"s","name":"n","kind":"check","cdn_only":true}"#,
        )
        .unwrap();
        assert!(!cdn.runs_in_browser());
    }

    #[test]
    fn verdicts_follow_the_suites_determine_test_result() {
        let mut dependent = test("d", Kind::Required);
        dependent.depends_on = vec!["r".into()];
        let tests: BTreeMap<String, TestInfo> = [
            test("r", Kind::Required),
            test("o", Kind::Optimal),
            test("c", Kind::Check),
            test("s", Kind::Required),
            test("t", Kind::Required),
            test("a", Kind::Required),
            dependent,
        ]
        .into_iter()
        .map(|t| (t.id.clone(), t))
        .collect();
        let failed = results(
            r#"{"r":["Assertion","x"],"o":["Assertion","x"],"c":["Assertion","x"],
                "s":["Setup","x"],"t":["Setup","retry"],"a":["AbortError","x"],"d":true}"#,
        );
        assert_eq!(verdict(&tests, "r", &failed), Verdict::Fail);
        assert_eq!(verdict(&tests, "o", &failed), Verdict::OptionalFail);
        assert_eq!(verdict(&tests, "c", &failed), Verdict::No);
        assert_eq!(verdict(&tests, "s", &failed), Verdict::SetupFail);
        assert_eq!(verdict(&tests, "t", &failed), Verdict::Retry);
        assert_eq!(verdict(&tests, "a", &failed), Verdict::HarnessFail);
        assert_eq!(verdict(&tests, "d", &failed), Verdict::DependencyFail);
        assert_eq!(verdict(&tests, "missing", &failed), Verdict::Untested);
        let passed = results(r#"{"r":true,"o":true,"c":true,"d":true}"#);
        assert_eq!(verdict(&tests, "r", &passed), Verdict::Pass);
        assert_eq!(verdict(&tests, "o", &passed), Verdict::Pass);
        assert_eq!(verdict(&tests, "c", &passed), Verdict::Yes);
        assert_eq!(verdict(&tests, "d", &passed), Verdict::Pass);
    }

    #[test]
    fn comparison_counts_passes_by_kind_and_finds_tests_that_differ_from_every_browser() {
        let mut skipped = test("skipped", Kind::Required);
        skipped.browser_skip = true;
        let order = vec![
            test("r1", Kind::Required),
            test("r2", Kind::Required),
            test("r3", Kind::Required),
            test("o1", Kind::Optimal),
            test("c1", Kind::Check),
            skipped,
        ];
        let tests: BTreeMap<String, TestInfo> =
            order.iter().map(|t| (t.id.clone(), t.clone())).collect();
        let implementation = |name: &str, json: &str| Implementation {
            name: name.into(),
            results: results(json),
        };
        let implementations = [
            implementation(
                "ours",
                r#"{"r1":true,"r2":["Assertion","no"],"r3":true,"o1":true,"c1":true,"skipped":true}"#,
            ),
            implementation(
                "A",
                r#"{"r1":true,"r2":true,"r3":["Assertion","no"],"o1":true}"#,
            ),
            implementation(
                "B",
                r#"{"r1":true,"r2":true,"r3":["Assertion","no"],"c1":true}"#,
            ),
        ];
        let comparison = Comparison {
            tests: &tests,
            order: &order,
            implementations: &implementations,
        };
        assert_eq!(
            comparison.counts(),
            vec![
                KindCount {
                    kind: Kind::Required,
                    total: 3,
                    passed: vec![2, 2, 2]
                },
                KindCount {
                    kind: Kind::Optimal,
                    total: 1,
                    passed: vec![1, 1, 0]
                },
                KindCount {
                    kind: Kind::Check,
                    total: 1,
                    passed: vec![1, 0, 1]
                },
            ]
        );
        let differing: Vec<&str> = comparison
            .differing_from_all()
            .iter()
            .map(|t| t.id.as_str())
            .collect();
        assert_eq!(differing, ["r2", "r3"]);
        let markdown = comparison.markdown();
        assert!(
            markdown.contains("| required | 3 | 2 | 2 | 2 |"),
            "{markdown}"
        );
        assert!(markdown.contains("| `r2` name of r2 | required | ⛔️ | ✅ | ✅ | Assertion: no |"));
        assert!(!markdown.contains("`skipped`"));
    }
}
