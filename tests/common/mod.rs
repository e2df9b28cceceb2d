//! The WPT JSON test vectors, read in place for the integration tests that check against
//! them. Network test servers live in `net_support`.

use std::path::PathBuf;

/// The folder holding WPT's JSON test vectors: `../shared/wpt-data` beside the repository.
///
/// Panics with a clear message when it is missing: a vector test never skips.
pub fn wpt_data_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/wpt-data");
    assert!(
        dir.is_dir(),
        "WPT test vectors not found at {}: the tests need ../shared/wpt-data beside the repository",
        dir.display()
    );
    dir
}

/// Reads and parses one WPT JSON file, by its path inside the WPT tree.
pub fn wpt_json(path: &str) -> serde_json::Value {
    let file = wpt_data_dir().join(path);
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|error| panic!("cannot read WPT vectors {}: {error}", file.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not valid JSON: {error}", file.display()))
}
