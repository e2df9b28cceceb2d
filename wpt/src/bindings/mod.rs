//! The web platform globals the tests see, one file per interface.
//!
//! Each interface is a pair: `wpt/js/<name>.js`, a thin Web IDL layer (argument conversion,
//! brand checks, property shapes), and `wpt/src/bindings/<name>.rs`, the Rust operations it
//! calls. Native operations are handed to the scripts on a temporary `__wpt_native` object,
//! which each script captures and which is removed once every script has run. Behaviour
//! belongs in Rust (the `whatwg_fetch` crate for anything the Fetch Standard defines); the
//! JavaScript only converts and wraps.
//!
//! Two helpers are shared by every binding: [`error::throw`] maps a crate
//! [`whatwg_fetch::Error`] to the JavaScript exception its [`whatwg_fetch::ErrorKind`]
//! names, and [`promise::future_to_promise`] turns a Rust future into a promise.

pub mod abort;
pub mod blob;
pub mod body;
pub mod crypto;
pub mod encoding;
pub mod error;
pub mod fetch;
pub mod form_data;
pub mod global;
pub mod handle;
pub mod harness;
pub mod headers;
pub mod promise;
pub mod request;
pub mod response;
pub mod streams;
pub mod timers;
pub mod url;

use rquickjs::{Ctx, Object};

/// One interface script, as `(file name, source)`, in the order it must run.
pub type Script = (&'static str, &'static str);

/// The scripts that define the globals, before the streams implementation and testharness.js.
pub const SCRIPTS: &[Script] = &[
    ("prelude.js", include_str!("../../js/prelude.js")),
    (
        "dom_exception.js",
        include_str!("../../js/dom_exception.js"),
    ),
    ("events.js", include_str!("../../js/events.js")),
    ("url.js", include_str!("../../js/url.js")),
    ("encoding.js", include_str!("../../js/encoding.js")),
    ("crypto.js", include_str!("../../js/crypto.js")),
    ("streams.js", include_str!("../../js/streams.js")),
    ("abort.js", include_str!("../../js/abort.js")),
    ("blob.js", include_str!("../../js/blob.js")),
    ("form_data.js", include_str!("../../js/form_data.js")),
    ("headers.js", include_str!("../../js/headers.js")),
    ("body.js", include_str!("../../js/body.js")),
    ("request.js", include_str!("../../js/request.js")),
    ("response.js", include_str!("../../js/response.js")),
    ("fetch.js", include_str!("../../js/fetch.js")),
    ("global.js", include_str!("../../js/global.js")),
];

/// The script that collects results; runs right after testharness.js.
pub const HARNESS_SCRIPT: Script = ("harness.js", include_str!("../../js/harness.js"));

/// Creates the `__wpt_native` object and registers every binding's native operations on it.
pub fn register_natives<'js>(ctx: &Ctx<'js>, state: &global::SharedState) -> rquickjs::Result<()> {
    let native = Object::new(ctx.clone())?;
    url::register(ctx, &native)?;
    encoding::register(ctx, &native)?;
    crypto::register(ctx, &native)?;
    timers::register(ctx, &native, state)?;
    streams::register(ctx, &native, state)?;
    global::register(ctx, &native)?;
    abort::register(ctx, &native)?;
    blob::register(ctx, &native, state)?;
    form_data::register(ctx, &native)?;
    headers::register(ctx, &native)?;
    body::register(ctx, &native, state)?;
    request::register(ctx, &native, state)?;
    response::register(ctx, &native, state)?;
    fetch::register(ctx, &native, state)?;
    harness::register(ctx, &native, state)?;
    ctx.globals().set("__wpt_native", native)?;
    Ok(())
}

/// Removes the temporary objects the binding scripts read while they ran.
pub fn remove_natives(ctx: &Ctx<'_>) -> rquickjs::Result<()> {
    let globals = ctx.globals();
    globals.remove("__wpt_native")?;
    globals.remove("__wpt_job")?;
    Ok(())
}
