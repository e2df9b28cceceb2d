//! The [fetch](https://fetch.spec.whatwg.org/#fetching) algorithm and the spec checks it
//! runs: bad ports, referrer, CORS, integrity, nosniff.

pub mod bad_port;
pub mod checks;
pub mod cors;
pub mod integrity;
pub mod referrer;
