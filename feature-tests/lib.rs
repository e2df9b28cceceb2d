//! Nothing: this package holds the tests of whatwg-fetch's optional features, under
//! `tests/`, built with those features on (see its Cargo.toml), and
//! `tests/doc_examples.rs`, which runs the README's and the crate docs' `no_run` examples.
