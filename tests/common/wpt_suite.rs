// Where the pinned web-platform-tests suite is, for every test that reads it: the vector
// tests (`tests/common/mod.rs`, the unit tests in `src/`, through `include!`) and the
// conformance runner (`wpt/src/main.rs`). The same order as `wpt/suite.py locate`, which
// `wpt/setup.sh` runs:
//
//   1. `$WPT_ROOT` (which must then hold a suite),
//   2. `../shared/wpt-suite` beside the repository,
//   3. `${WPT_CACHE:-~/.cache/whatwg-fetch}/wpt`, where `wpt/setup.sh` keeps the suite it
//      fetches (and checks against `wpt/suite.sha256`).

/// The suite root, given the repository's root; or a message that says where it was looked
/// for and the command that fetches it.
pub fn locate_wpt_suite(repository: &std::path::Path) -> Result<std::path::PathBuf, String> {
    use std::path::PathBuf;
    let is_suite = |path: &std::path::Path| path.join("resources/testharness.js").is_file();
    if let Some(root) = std::env::var_os("WPT_ROOT").filter(|root| !root.is_empty()) {
        let root = PathBuf::from(root);
        return if is_suite(&root) {
            Ok(root)
        } else {
            Err(format!(
                "WPT_ROOT={} holds no WPT suite (no resources/testharness.js)",
                root.display()
            ))
        };
    }
    let beside = repository.join("../shared/wpt-suite");
    let cache = match std::env::var_os("WPT_CACHE").filter(|cache| !cache.is_empty()) {
        Some(cache) => PathBuf::from(cache),
        None => std::env::var_os("HOME")
            .map(PathBuf::from)
            .unwrap_or_default()
            .join(".cache/whatwg-fetch"),
    }
    .join("wpt");
    for candidate in [&beside, &cache] {
        if is_suite(candidate) {
            return Ok(candidate.clone());
        }
    }
    Err(format!(
        "no WPT suite at $WPT_ROOT, {} or {}: run `bash wpt/setup.sh`, which fetches the pinned \
         suite (wpt/README.md)",
        beside.display(),
        cache.display()
    ))
}
