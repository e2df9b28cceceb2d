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

/// Defines a Web IDL enumeration: a Rust enum whose variants map one to one to the IDL
/// strings, with `as_str`, `Display` and `FromStr` (a `TypeError` for any other string, as
/// Web IDL's conversion throws).
macro_rules! idl_enum {
    (
        $(#[$meta:meta])*
        pub enum $name:ident {
            $( $(#[$variant_meta:meta])* $variant:ident = $value:literal, )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$variant_meta])* $variant, )+
        }

        impl $name {
            /// The IDL string for this value.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $value, )+
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl std::str::FromStr for $name {
            type Err = crate::Error;

            /// Parses the IDL string.
            ///
            /// # Errors
            /// A `TypeError` for a string that is not one of the enumeration's values.
            fn from_str(value: &str) -> Result<Self, Self::Err> {
                match value {
                    $( $value => Ok($name::$variant), )+
                    _ => Err(crate::Error::type_error(format!(
                        "{value:?} is not a valid value for enumeration {}",
                        stringify!($name)
                    ))),
                }
            }
        }
    };
}

/// The consuming methods of the [Body mixin](https://fetch.spec.whatwg.org/#body-mixin),
/// for a type with `body: Option<Body>` and `headers: Headers` fields; `$json` names the
/// JSON method (`Response::json` is the static constructor, so its reader is `json_body`).
macro_rules! body_mixin {
    ($json:ident) => {
        fn consume(&mut self) -> $crate::Result<Option<$crate::body::Body>> {
            $crate::request::consume_body(&mut self.body)
        }

        /// [`bytes()`](https://fetch.spec.whatwg.org/#dom-body-bytes): the whole body.
        ///
        /// The body is marked used at once; the returned future owns it.
        ///
        /// # Errors
        /// A `TypeError` if the body is used, or the stream's error.
        pub fn bytes(
            &mut self,
        ) -> impl std::future::Future<Output = $crate::Result<bytes::Bytes>> + Send + 'static {
            $crate::request::read_bytes(self.consume())
        }

        /// [`text()`](https://fetch.spec.whatwg.org/#dom-body-text): the body, UTF-8
        /// decoded.
        ///
        /// # Errors
        /// As [`bytes`](Self::bytes).
        pub fn text(
            &mut self,
        ) -> impl std::future::Future<Output = $crate::Result<String>> + Send + 'static {
            $crate::request::read_text(self.consume())
        }

        /// [`json()`](https://fetch.spec.whatwg.org/#dom-body-json): the body parsed as
        /// JSON.
        ///
        /// # Errors
        /// As [`bytes`](Self::bytes), and a `SyntaxError` for invalid JSON.
        pub fn $json<T: serde::de::DeserializeOwned + Send + 'static>(
            &mut self,
        ) -> impl std::future::Future<Output = $crate::Result<T>> + Send + 'static {
            $crate::request::read_json(self.consume())
        }

        /// [`blob()`](https://fetch.spec.whatwg.org/#dom-body-blob): the body as a
        /// [`Blob`](crate::Blob) typed with the MIME type of the headers.
        ///
        /// # Errors
        /// As [`bytes`](Self::bytes).
        pub fn blob(
            &mut self,
        ) -> impl std::future::Future<Output = $crate::Result<$crate::Blob>> + Send + 'static {
            let mime_type = self.headers.header_list().extract_mime_type();
            $crate::request::read_blob(self.consume(), mime_type)
        }

        /// [`formData()`](https://fetch.spec.whatwg.org/#dom-body-formdata): the body
        /// parsed by its `Content-Type`.
        ///
        /// # Errors
        /// As [`bytes`](Self::bytes), and a `TypeError` when the type is not a form type or
        /// the body does not parse.
        pub fn form_data(
            &mut self,
        ) -> impl std::future::Future<Output = $crate::Result<$crate::FormData>> + Send + 'static {
            let mime_type = self.headers.header_list().extract_mime_type();
            $crate::request::read_form_data(self.consume(), mime_type)
        }
    };
}

pub mod abort;
pub mod blob;
pub mod blob_url;
pub mod body;
pub mod client;
pub mod cookie;
pub mod data_url;
pub mod environment;
pub mod error;
pub mod fetch;
pub mod form_data;
pub mod headers;
mod infra;
pub mod interop;
pub mod mime;
pub mod net;
pub mod request;
pub mod response;

pub use abort::{AbortController, AbortSignal};
pub use blob::{Blob, BlobPropertyBag, File, FilePropertyBag};
pub use body::{Body, BodyInit};
pub use client::{Client, ClientBuilder, fetch};
pub use environment::Environment;
pub use error::{BoxError, Error, ErrorKind, NetworkError, Result, TimeoutKind};
pub use form_data::{FormData, FormDataEntryValue};
pub use headers::{Headers, HeadersGuard, HeadersInit};
pub use mime::MimeType;
pub use request::{
    ReferrerPolicy, Request, RequestCache, RequestCredentials, RequestDestination, RequestDuplex,
    RequestInfo, RequestInit, RequestMode, RequestPriority, RequestRedirect,
};
pub use response::{Response, ResponseInit, ResponseType};

/// The README's examples, compiled and run as doctests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
pub struct ReadmeDoctests;
