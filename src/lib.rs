//! # whatwg-fetch
//!
//! The [WHATWG Fetch Standard](https://fetch.spec.whatwg.org/) in Rust: `Headers`,
//! `Request`, `Response`, bodies, `FormData`, `Blob`/`File` and `AbortSignal`, with the
//! semantics browsers, Deno and Node promise.
//!
//! Every fallible operation returns [`Error`], whose [`kind`](Error::kind) names the
//! JavaScript exception the spec throws.
#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

pub mod abort;
pub mod blob;
pub mod body;
pub mod data_url;
pub mod environment;
pub mod error;
pub mod form_data;
pub mod headers;
pub mod mime;
pub mod net;
pub mod request;
pub mod response;

pub use error::{BoxError, Error, ErrorKind, NetworkError, Result, TimeoutKind};
