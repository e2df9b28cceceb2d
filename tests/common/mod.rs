//! The WPT JSON test vectors, read in place from the pinned suite for the integration tests
//! that check against them. Network test servers live in `net_support`.

use std::path::PathBuf;

include!("wpt_suite.rs");

/// The root of the pinned WPT suite, whose JSON test vectors the tests read.
///
/// Panics with a clear message when there is none: a vector test never skips.
fn wpt_data_dir() -> PathBuf {
    locate_wpt_suite(env!("CARGO_MANIFEST_DIR").as_ref())
        .unwrap_or_else(|message| panic!("the WPT test vectors are missing: {message}"))
}

/// Reads and parses one WPT JSON file, by its path inside the WPT tree.
pub fn wpt_json(path: &str) -> serde_json::Value {
    let file = wpt_data_dir().join(path);
    let text = std::fs::read_to_string(&file)
        .unwrap_or_else(|error| panic!("cannot read WPT vectors {}: {error}", file.display()));
    serde_json::from_str(&text)
        .unwrap_or_else(|error| panic!("{} is not valid JSON: {error}", file.display()))
}
