//! The crate builds without its default features, and with each of them alone: a
//! feature left off must leave a crate that compiles without a warning.
//!
//! Each build is `cargo check --lib` in a folder of its own (the target folder running this
//! test is locked by it), `features/` inside the target folder cargo is using, wherever
//! `CARGO_TARGET_DIR` or a config puts it, so that the first run pays for the dependencies
//! once and `cargo clean` removes it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The crate's optional features, each checked alone on top of `--no-default-features`;
/// `http3`, which needs a crypto provider, with each of the two.
const FEATURES: &[&str] = &[
    "http2",
    "gzip",
    "deflate",
    "brotli",
    "zstd",
    "system-roots",
    "built-in-roots",
    "aws-lc-rs",
    "ring",
    "mock",
    "record",
    "tower",
    "tracing",
    "hickory-dns",
    "redis",
    "http3,aws-lc-rs",
    "http3,ring",
];

/// The target folder in use: this test runs as `<target>/<profile>/deps/features-<hash>`,
/// so it is three levels above it. The checks share it with the build that made this test
/// (cargo holds no lock on it while tests run), so the dependencies they share with that
/// build, build scripts and procedural macros among them, are compiled once.
fn target_folder() -> PathBuf {
    let executable = std::env::current_exe().expect("the test knows its own path");
    executable
        .ancestors()
        .nth(3)
        .expect("the test runs from <target>/<profile>/deps")
        .to_path_buf()
}

/// `cargo check --lib --no-default-features --features <features>`: whether it passed
/// without a warning, and what it printed.
fn check(features: &str) -> (bool, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(root)
        .args(["check", "--lib", "--quiet", "-p", "whatwg-fetch"])
        .args(["--no-default-features", "--features", features])
        .env("CARGO_TARGET_DIR", target_folder())
        .output()
        .expect("cargo runs");
    let printed = String::from_utf8_lossy(&output.stderr).into_owned();
    // A warning fails the check, as clippy's `-D warnings` does for the default set. Not
    // by `RUSTFLAGS=-D warnings`, which would make every dependency a unit of its own:
    // cargo caps the dependencies' lints, so what warns here is the crate's own code, and
    // cargo replays a cached check's warnings.
    let clean = !printed.contains("warning");
    (output.status.success() && clean, printed)
}

#[test]
fn the_crate_builds_without_default_features_and_with_each_feature_alone() {
    let mut failures = Vec::new();
    for features in std::iter::once("").chain(FEATURES.iter().copied()) {
        let (passed, printed) = check(features);
        if !passed {
            failures.push(format!("--features {features:?}:\n{printed}"));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A file of the repository, read whole.
fn repository_file(path: &str) -> String {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    std::fs::read_to_string(&path).unwrap_or_else(|error| panic!("{}: {error}", path.display()))
}

/// The table `[name]` of Cargo.toml, up to the next table.
fn manifest_table(name: &str) -> String {
    let manifest = repository_file("Cargo.toml");
    let table = manifest
        .split(&format!("\n[{name}]\n"))
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .unwrap_or_else(|| panic!("Cargo.toml has no [{name}] table"));
    table.to_owned()
}

/// The features Cargo.toml declares, the one place they are written, and those of them on
/// by default.
fn declared_features() -> (Vec<String>, Vec<String>) {
    let section = manifest_table("features");
    let declared = section
        .lines()
        .filter_map(|line| line.split_once(" = ").map(|(name, _)| name.trim()))
        .filter(|name| !name.starts_with('#') && *name != "default")
        .map(str::to_owned)
        .collect();
    let defaults = section
        .split("default = [")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("Cargo.toml has a default feature list")
        .split(',')
        .map(|name| name.trim().trim_matches('"').to_owned())
        .filter(|name| !name.is_empty())
        .collect();
    (declared, defaults)
}

/// The names in backticks in `text`.
fn quoted(text: &str) -> Vec<String> {
    text.split('`')
        .skip(1)
        .step_by(2)
        .map(str::to_owned)
        .collect()
}

/// What a document's feature section says: the features its "Every feature but …"
/// sentence says are off by default, and each feature its table lists with whether that
/// row says "(off".
struct FeatureSection {
    off_by_sentence: Vec<String>,
    rows: Vec<(String, bool)>,
}

/// The section of `document` that starts at `heading` and ends at the next heading of
/// the same level.
fn feature_section(document: &str, heading: &str) -> FeatureSection {
    let start = document
        .find(heading)
        .unwrap_or_else(|| panic!("no {heading:?} section"));
    let body = &document[start + heading.len()..];
    let section = body.split("\n## ").next().unwrap_or(body);
    let sentence = section
        .split("Every feature but ")
        .nth(1)
        .and_then(|rest| rest.split(" is on by default").next())
        .unwrap_or_else(|| panic!("{heading:?} has no \"Every feature but … is on by default\""));
    let mut rows = Vec::new();
    for line in section.lines().filter(|line| line.starts_with("| `")) {
        let cell = line.split('|').nth(1).unwrap_or_default();
        let names = cell.split("(off").next().unwrap_or_default();
        for name in quoted(names) {
            rows.push((name, cell.contains("(off")));
        }
    }
    FeatureSection {
        off_by_sentence: quoted(sentence),
        rows,
    }
}

/// The list of features and their defaults is written once, in Cargo.toml: the README's
/// table and the crate root's say the same, every feature once, "(off" exactly on those
/// not on by default, and their "Every feature but …" sentence names exactly those.
#[test]
fn the_readme_and_the_crate_root_list_the_features_of_cargo_toml_with_their_defaults() {
    let (declared, defaults) = declared_features();
    let crate_root: String = repository_file("src/lib.rs")
        .lines()
        .filter_map(|line| line.strip_prefix("//!"))
        .map(|line| format!("{}\n", line.strip_prefix(' ').unwrap_or(line)))
        .collect();
    let documents = [
        (
            "README.md",
            feature_section(&repository_file("README.md"), "## Feature flags and MSRV"),
        ),
        (
            "the crate root (src/lib.rs)",
            feature_section(&crate_root, "## Cargo features"),
        ),
    ];
    let mut wrong = Vec::new();
    for (document, section) in &documents {
        let listed: Vec<&String> = section.rows.iter().map(|(name, _)| name).collect();
        for name in &declared {
            match listed.iter().filter(|listed| *listed == &name).count() {
                1 => {}
                0 => wrong.push(format!("{document}: no row for the feature `{name}`")),
                _ => wrong.push(format!("{document}: `{name}` has more than one row")),
            }
        }
        for (name, off) in &section.rows {
            if !declared.contains(name) {
                wrong.push(format!(
                    "{document}: `{name}` is not a feature of Cargo.toml"
                ));
            } else if *off == defaults.contains(name) {
                let truth = if *off { "on" } else { "off" };
                wrong.push(format!(
                    "{document}: `{name}` is {truth} by default, its row says otherwise"
                ));
            }
        }
        let mut said = section.off_by_sentence.clone();
        let mut off: Vec<String> = declared
            .iter()
            .filter(|name| !defaults.contains(name))
            .cloned()
            .collect();
        said.sort();
        off.sort();
        if said != off {
            wrong.push(format!(
                "{document}: \"Every feature but …\" names {said:?}; off by default are {off:?}"
            ));
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// docs.rs builds every feature, so that every item is in the documentation.
#[test]
fn docs_rs_builds_every_feature() {
    let metadata = manifest_table("package.metadata.docs.rs");
    assert!(metadata.contains("all-features = true"), "{metadata}");
}

#[test]
fn every_feature_is_checked_here() {
    let (declared, _) = declared_features();
    let checked: Vec<&str> = FEATURES.iter().flat_map(|set| set.split(',')).collect();
    for name in &declared {
        assert!(
            checked.contains(&name.as_str()),
            "feature {name} is not checked"
        );
    }
    for name in &checked {
        assert!(
            declared.iter().any(|declared| declared == name),
            "{name} is not a feature of Cargo.toml"
        );
    }
}
