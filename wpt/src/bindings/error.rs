//! The one place a crate [`Error`] becomes a JavaScript exception.
//!
//! [`ErrorKind`] names the exception the spec throws: a built-in `TypeError`, `RangeError` or
//! `SyntaxError`, or a `DOMException` with that name (`AbortError`, `TimeoutError`, …).

use rquickjs::{Ctx, Exception, Value, function::Constructor};
use whatwg_fetch::{Error, ErrorKind};

/// Throws `error` in `ctx` as the exception its kind names; returns the error to propagate.
#[cfg_attr(not(test), allow(dead_code))] // Used by the bindings of the crate's interfaces.
pub fn throw(ctx: &Ctx<'_>, error: &Error) -> rquickjs::Error {
    match to_value(ctx, error) {
        Ok(value) => ctx.throw(value),
        Err(e) => e,
    }
}

/// The JavaScript exception object for `error`, for rejecting a promise with it.
#[cfg_attr(not(test), allow(dead_code))] // Used by the bindings of the crate's interfaces.
pub fn to_value<'js>(ctx: &Ctx<'js>, error: &Error) -> rquickjs::Result<Value<'js>> {
    let message = error.to_string();
    let kind = error.kind();
    if kind.is_dom_exception() {
        let ctor: Constructor = ctx.globals().get("DOMException")?;
        return ctor.construct((message, kind.js_name()));
    }
    let thrown = match kind {
        ErrorKind::RangeError => Exception::throw_range(ctx, &message),
        ErrorKind::SyntaxError => Exception::throw_syntax(ctx, &message),
        // TypeError, and any kind added later that has no dedicated constructor yet.
        _ => Exception::throw_type(ctx, &message),
    };
    debug_assert!(matches!(thrown, rquickjs::Error::Exception));
    Ok(ctx.catch())
}
