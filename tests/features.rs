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
    "tower",
    "tracing",
    "hickory-dns",
    "redis",
    "http3,aws-lc-rs",
    "http3,ring",
];

/// `<target>/features`: this test runs as `<target>/<profile>/deps/features-<hash>`, so the
/// target folder in use is three levels above it.
fn target_folder() -> PathBuf {
    let executable = std::env::current_exe().expect("the test knows its own path");
    executable
        .ancestors()
        .nth(3)
        .expect("the test runs from <target>/<profile>/deps")
        .join("features")
}

/// `cargo check --lib --no-default-features --features <features>`: whether it passed,
/// and what it printed.
fn check(features: &str) -> (bool, String) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".to_owned());
    let output = Command::new(cargo)
        .current_dir(root)
        .args(["check", "--lib", "--quiet", "-p", "whatwg-fetch"])
        .args(["--no-default-features", "--features", features])
        .env("CARGO_TARGET_DIR", target_folder())
        // Warnings fail the check, as clippy's `-D warnings` does for the default set.
        .env("RUSTFLAGS", "-D warnings")
        .output()
        .expect("cargo runs");
    let printed = String::from_utf8_lossy(&output.stderr).into_owned();
    (output.status.success(), printed)
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

#[test]
fn every_feature_is_checked_here() {
    let manifest =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("Cargo.toml"))
            .expect("Cargo.toml is readable");
    let section = manifest
        .split("\n[features]\n")
        .nth(1)
        .and_then(|rest| rest.split("\n[").next())
        .expect("Cargo.toml has a [features] table");
    let declared: Vec<&str> = section
        .lines()
        .filter_map(|line| line.split_once(" = ").map(|(name, _)| name.trim()))
        .filter(|name| !name.starts_with('#') && *name != "default")
        .collect();
    let checked: Vec<&str> = FEATURES.iter().flat_map(|set| set.split(',')).collect();
    for name in &declared {
        assert!(checked.contains(name), "feature {name} is not checked");
    }
    for name in &checked {
        assert!(
            declared.contains(name),
            "{name} is not a feature of Cargo.toml"
        );
    }
}
