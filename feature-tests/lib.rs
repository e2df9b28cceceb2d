//! Nothing: this package holds the tests of whatwg-fetch's optional features, under
//! `tests/`, built with those features on (see its Cargo.toml).
