//! The one place a crate [`Error`] becomes a JavaScript exception.
//!
//! [`ErrorKind`] names the exception the spec throws: a built-in `TypeError`, `RangeError` or
//! `SyntaxError`, or a `DOMException` with that name (`AbortError`, `TimeoutError`, …). An error
//! carrying a JavaScript value (an abort reason: `controller.abort(reason)`) gives back that very
//! value, so that `signal.reason` and the rejection of a fetch are the same object. The value
//! stays in the engine's value table while an error carrying it lives.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use rquickjs::{Ctx, Exception, Function, Object, Value, function::Constructor};
use whatwg_fetch::{Error, ErrorKind};

use crate::state::{SharedIds, SharedState, push_id, take_ids};

/// The hidden global holding the JavaScript values that crate errors refer to.
const VALUES: &str = "__fetch_values";

/// A JavaScript value kept for a crate [`Error`]'s payload: its key in the engine's value
/// table. Dropping it, with the last error that carries it and on whatever thread that is,
/// records the key in the table's freed list; the table forgets the value at the next
/// [`keep`].
#[derive(Debug)]
pub struct JsValueRef {
    key: u64,
    freed: SharedIds<u64>,
}

impl Drop for JsValueRef {
    fn drop(&mut self) {
        push_id(&self.freed, self.key);
    }
}

/// Keeps `value` in the engine's value table while the returned reference lives, first
/// forgetting the values whose references were dropped.
///
/// # Errors
/// An engine failure (out of memory).
pub fn keep<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    value: Value<'js>,
) -> rquickjs::Result<JsValueRef> {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let globals = ctx.globals();
    let table: Object = match globals.get::<_, Option<Object>>(VALUES)? {
        Some(t) => t,
        None => {
            let t: Object = ctx.eval("new Map()")?;
            globals.prop(VALUES, rquickjs::object::Property::from(t.clone()))?;
            t
        }
    };
    let delete: Function = table.get("delete")?;
    for key in take_ids(&state.freed_values) {
        delete.call::<_, bool>((rquickjs::function::This(table.clone()), key as f64))?;
    }
    let key = NEXT.fetch_add(1, Ordering::Relaxed);
    let set: Function = table.get("set")?;
    set.call::<_, ()>((rquickjs::function::This(table), key as f64, value))?;
    Ok(JsValueRef {
        key,
        freed: state.freed_values.clone(),
    })
}

/// A crate error of kind [`ErrorKind::Custom`] whose payload is `value` (an abort reason that
/// the crate carries without looking at it), kept while the error or a clone of it lives.
///
/// # Errors
/// An engine failure (out of memory).
pub fn custom<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    value: Value<'js>,
) -> rquickjs::Result<Error> {
    let r = keep(ctx, state, value)?;
    Ok(Error::custom("a JavaScript value", Arc::new(r)))
}

fn kept<'js>(ctx: &Ctx<'js>, r: &JsValueRef) -> rquickjs::Result<Value<'js>> {
    let table: Object = ctx.globals().get(VALUES)?;
    let get: Function = table.get("get")?;
    get.call((rquickjs::function::This(table), r.key as f64))
}

/// Throws `error` in `ctx` as the exception its kind names; returns the error to propagate.
pub fn throw(ctx: &Ctx<'_>, error: &Error) -> rquickjs::Error {
    match to_value(ctx, error) {
        Ok(value) => ctx.throw(value),
        Err(e) => e,
    }
}

/// The JavaScript exception object for `error`, for rejecting a promise with it.
pub fn to_value<'js>(ctx: &Ctx<'js>, error: &Error) -> rquickjs::Result<Value<'js>> {
    if let Some(r) = error.payload().and_then(|p| p.downcast_ref::<JsValueRef>()) {
        return kept(ctx, r);
    }
    let kind = error.kind();
    // The exception's name is the kind: its message is the rest of what the error says (the
    // message, the URL, the whole chain of causes), not "TypeError: …" again.
    let described = format!("{error:#}");
    let message = described
        .strip_prefix(kind.js_name())
        .and_then(|rest| rest.strip_prefix(": "))
        .unwrap_or(&described);
    if kind.is_dom_exception() {
        let ctor: Constructor = ctx.globals().get("DOMException")?;
        return ctor.construct((message, kind.js_name()));
    }
    let thrown = match kind {
        ErrorKind::RangeError => Exception::throw_range(ctx, message),
        ErrorKind::SyntaxError => Exception::throw_syntax(ctx, message),
        // TypeError, and any kind added later that has no dedicated constructor yet.
        _ => Exception::throw_type(ctx, message),
    };
    debug_assert!(matches!(thrown, rquickjs::Error::Exception));
    Ok(ctx.catch())
}
