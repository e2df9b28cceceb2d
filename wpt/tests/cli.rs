//! The runner's command line, as `.ci/run` and a developer call it: `cargo test` builds the
//! `wpt` binary for these tests, and `.ci/run` runs the WPT suite with that very build.

use std::process::{Command, Output};

fn wpt(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_wpt"))
        .args(args)
        .output()
        .expect("the wpt binary runs")
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn list_names_what_runs_in_which_scope_and_why_a_file_does_not() {
    let output = wpt(&["list", "fetch/api/basic"]);
    let printed = text(&output.stdout);
    assert!(output.status.success(), "{printed}{}", text(&output.stderr));
    assert!(
        printed.contains("RUN      worker fetch/api/basic/accept-header.any.js"),
        "{printed}"
    );
    assert!(
        printed.contains("NOT RUN  fetch/api/basic/url-parsing.sub.html (document test (.html))"),
        "{printed}"
    );
    let summary = printed.lines().last().unwrap_or_default();
    assert!(
        summary.ends_with("runs (browser environment), 4 files not run"),
        "{summary}"
    );
}

#[test]
fn the_server_environment_is_listed_as_such() {
    let output = wpt(&["list", "--environment", "server", "fetch/api/basic"]);
    let printed = text(&output.stdout);
    assert!(output.status.success(), "{printed}{}", text(&output.stderr));
    assert!(printed.contains("(server environment)"), "{printed}");
}

#[test]
fn an_unknown_option_or_path_fails_with_status_2_and_says_which() {
    let output = wpt(&["--no-such-option"]);
    assert_eq!(output.status.code(), Some(2));
    let said = text(&output.stderr);
    assert!(said.contains("unknown option --no-such-option"), "{said}");
    assert!(said.contains("usage: wpt"), "{said}");

    let output = wpt(&["list", "no/such/folder"]);
    assert_eq!(output.status.code(), Some(2));
    let said = text(&output.stderr);
    assert!(said.contains("no/such/folder does not exist"), "{said}");
}

/// `python3 wpt/suite.py ARGS` from the repository's root, with `WPT_CACHE` set to `cache`.
fn suite_py(args: &[&str], cache: &std::path::Path) -> Output {
    Command::new("python3")
        .arg("wpt/suite.py")
        .args(args)
        .env("WPT_CACHE", cache)
        .current_dir(concat!(env!("CARGO_MANIFEST_DIR"), "/.."))
        .output()
        .expect("python3 runs")
}

/// `wpt/setup.sh` copies the suite `$WPT_ROOT` names into the cache (`suite.py keep`), as
/// a download would put it there, so that `cargo test` run without the variable finds it.
#[test]
fn a_suite_wpt_root_names_is_kept_in_the_cache_once() {
    let cache = std::env::temp_dir().join(format!("whatwg-fetch-keep-{}", std::process::id()));
    let located = suite_py(&["locate"], &cache);
    assert!(located.status.success(), "{}", text(&located.stderr));
    let suite = text(&located.stdout).trim().to_owned();

    let kept = suite_py(&["keep", &suite], &cache);
    let printed = text(&kept.stdout);
    assert!(kept.status.success(), "{printed}{}", text(&kept.stderr));
    assert!(printed.contains("copied into"), "{printed}");
    let copy = cache.join("wpt");
    let checked = suite_py(&["verify", &copy.to_string_lossy()], &cache);
    assert!(checked.status.success(), "{}", text(&checked.stderr));
    // Kept already: nothing is copied again.
    let again = suite_py(&["keep", &suite], &cache);
    assert!(again.status.success(), "{}", text(&again.stderr));
    assert_eq!(text(&again.stdout), "");
    std::fs::remove_dir_all(&cache).expect("the test's cache is removed");
}
