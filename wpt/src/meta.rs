//! `// META:` lines at the top of an `.any.js` test
//! (<https://web-platform-tests.org/writing-tests/testharness.html#tests-for-other-or-multiple-globals-any-js>).

/// What the `// META:` lines of a test file ask for.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Meta {
    /// `script=` values in order, as written (relative to the test's URL).
    pub scripts: Vec<String>,
    /// `timeout=long`.
    pub timeout_long: bool,
    /// `global=` values, comma-separated entries flattened; empty when absent.
    pub globals: Vec<String>,
    /// `variant=` values (each starts with `?` or `#`); empty when absent.
    pub variants: Vec<String>,
    /// `title=`.
    pub title: Option<String>,
}

/// Parses the leading `// META: key=value` lines of `source`; parsing stops at the first line
/// that is neither a META line nor blank, as WPT's manifest does.
pub fn parse(source: &str) -> Meta {
    let mut meta = Meta::default();
    for line in source.lines() {
        let line = line.trim();
        if line.is_empty() {
            continue;
        }
        let Some(rest) = line.strip_prefix("// META:") else {
            break;
        };
        let Some((key, value)) = rest.trim().split_once('=') else {
            continue;
        };
        let value = value.trim();
        match key.trim() {
            "script" => meta.scripts.push(value.to_owned()),
            "timeout" => meta.timeout_long = value == "long",
            "global" => meta.globals.extend(
                value
                    .split(',')
                    .map(str::trim)
                    .filter(|g| !g.is_empty())
                    .map(str::to_owned),
            ),
            "variant" => meta.variants.push(value.to_owned()),
            "title" => meta.title = Some(value.to_owned()),
            _ => {}
        }
    }
    meta
}

impl Meta {
    /// Whether WPT would run this `.any.js` file in a classic dedicated worker.
    ///
    /// Without `global=`, an `.any.js` file runs in a window and a dedicated worker. `worker`
    /// means every kind of worker; `dedicatedworker` the classic dedicated worker only
    /// (`dedicatedworker-module` is a module worker, which this runner does not provide).
    pub fn runs_in_dedicated_worker(&self) -> bool {
        self.globals.is_empty()
            || self
                .globals
                .iter()
                .any(|g| g == "worker" || g == "dedicatedworker")
    }

    /// Whether WPT would run this `.any.js` file in a window (its `.any.html` wrapper):
    /// without `global=`, or with `window` among them.
    pub fn runs_in_window(&self) -> bool {
        self.globals.is_empty() || self.globals.iter().any(|g| g == "window")
    }

    /// The runs this file makes: one per variant, or one with an empty query.
    pub fn runs(&self) -> Vec<String> {
        if self.variants.is_empty() {
            vec![String::new()]
        } else {
            self.variants.clone()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_every_key_until_the_code_starts() {
        let src = "// META: global=window,worker\n// META: script=/common/utils.js\n\
                   // META: script=../resources/utils.js\n// META: timeout=long\n\
                   // META: title=Headers basic\n// META: variant=?1-10\n// META: variant=?11-last\n\n\
                   // META: script=late.js\n'use strict';\n// META: script=ignored.js\n";
        let m = parse(src);
        assert_eq!(
            m.scripts,
            ["/common/utils.js", "../resources/utils.js", "late.js"]
        );
        assert!(m.timeout_long);
        assert_eq!(m.globals, ["window", "worker"]);
        assert_eq!(m.variants, ["?1-10", "?11-last"]);
        assert_eq!(m.title.as_deref(), Some("Headers basic"));
        assert_eq!(m.runs(), ["?1-10", "?11-last"]);
    }

    #[test]
    fn globals_decide_whether_a_dedicated_worker_runs_it() {
        assert!(parse("").runs_in_dedicated_worker());
        assert!(parse("// META: global=window,dedicatedworker").runs_in_dedicated_worker());
        assert!(!parse("// META: global=window").runs_in_dedicated_worker());
        assert!(!parse("// META: global=sharedworker,serviceworker").runs_in_dedicated_worker());
        assert!(!parse("// META: global=dedicatedworker-module").runs_in_dedicated_worker());
        assert!(parse("").runs_in_window());
        assert!(parse("// META: global=window").runs_in_window());
        assert!(!parse("// META: global=worker").runs_in_window());
        assert_eq!(parse("").runs(), [""]);
        assert!(!parse("// META: timeout=short").timeout_long);
    }
}
