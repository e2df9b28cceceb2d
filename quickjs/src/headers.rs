//! Native operations behind `js/headers.js`: the `Headers` interface
//! (<https://fetch.spec.whatwg.org/#headers-class>) over [`whatwg_fetch::Headers`].
//! ByteStrings cross as strings whose chars are the bytes (U+0000 to U+00FF).

use std::cell::RefCell;
use std::rc::Rc;

use rquickjs::{Array, Ctx, Function, Object, Value};
use whatwg_fetch::{Headers, HeadersInit};

use crate::error::throw;
use crate::handle::{self, HeadersRef, Native, latin1_bytes, latin1_string};

/// A converted `HeadersInit` from the script: `undefined`, or `[kind, pairs]` where kind is
/// `"sequence"` (each item a sequence of ByteStrings) or `"record"` (name/value pairs).
///
/// # Errors
/// A malformed value (the script always sends a well-formed one).
pub fn headers_init<'js>(value: Value<'js>) -> rquickjs::Result<Option<HeadersInit>> {
    if value.is_undefined() || value.is_null() {
        return Ok(None);
    }
    let Some(list) = value.as_array() else {
        return Err(rquickjs::Exception::throw_type(
            value.ctx(),
            "malformed HeadersInit",
        ));
    };
    let kind: String = list.get(0)?;
    let items: Vec<Vec<String>> = list.get(1)?;
    Ok(Some(if kind == "record" {
        HeadersInit::Record(
            items
                .into_iter()
                .filter_map(|pair| match pair.as_slice() {
                    [n, v] => Some((latin1_bytes(n), latin1_bytes(v))),
                    _ => None,
                })
                .collect(),
        )
    } else {
        HeadersInit::Sequence(
            items
                .into_iter()
                .map(|item| item.iter().map(|s| latin1_bytes(s)).collect())
                .collect(),
        )
    }))
}

/// Registers `headers_new(init)`, `headers_append(h, name, value)`, `headers_delete`,
/// `headers_get`, `headers_get_set_cookie`, `headers_has`, `headers_set` and
/// `headers_entries(h)` (the sort-and-combine pairs).
pub fn register<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> rquickjs::Result<()> {
    native.set(
        "headers_new",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, init: Value<'js>| {
            let headers = match headers_init(init)? {
                Some(init) => Headers::from_init(init).map_err(|e| throw(&ctx, &e))?,
                None => Headers::new(),
            };
            handle::new(
                &ctx,
                Native::Headers(HeadersRef::Own(Rc::new(RefCell::new(headers)))),
            )
        })?,
    )?;
    native.set(
        "headers_append",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, h: Value<'js>, name: String, value: String| {
                let h = handle::headers(&ctx, &h)?;
                h.with(&ctx, |h| {
                    h.append(latin1_bytes(&name), latin1_bytes(&value))
                })?
                .map_err(|e| throw(&ctx, &e))
            },
        )?,
    )?;
    native.set(
        "headers_set",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, h: Value<'js>, name: String, value: String| {
                let h = handle::headers(&ctx, &h)?;
                h.with(&ctx, |h| h.set(latin1_bytes(&name), latin1_bytes(&value)))?
                    .map_err(|e| throw(&ctx, &e))
            },
        )?,
    )?;
    native.set(
        "headers_delete",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>, name: String| {
            let h = handle::headers(&ctx, &h)?;
            h.with(&ctx, |h| h.delete(latin1_bytes(&name)))?
                .map_err(|e| throw(&ctx, &e))
        })?,
    )?;
    native.set(
        "headers_get",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>, name: String| {
            let h = handle::headers(&ctx, &h)?;
            h.with(&ctx, |h| h.get_bytes(latin1_bytes(&name)))?
                .map(|v| v.map(|v| latin1_string(&v)))
                .map_err(|e| throw(&ctx, &e))
        })?,
    )?;
    native.set(
        "headers_has",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>, name: String| {
            let h = handle::headers(&ctx, &h)?;
            h.with(&ctx, |h| h.has(latin1_bytes(&name)))?
                .map_err(|e| throw(&ctx, &e))
        })?,
    )?;
    native.set(
        "headers_get_set_cookie",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            let h = handle::headers(&ctx, &h)?;
            h.with(&ctx, |h| {
                h.get_set_cookie_bytes()
                    .iter()
                    .map(|v| latin1_string(v))
                    .collect::<Vec<_>>()
            })
        })?,
    )?;
    native.set(
        "headers_entries",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            let h = handle::headers(&ctx, &h)?;
            let pairs: Vec<(String, String)> = h.with(&ctx, |h| {
                h.iter_bytes()
                    .map(|(n, v)| (n, latin1_string(&v)))
                    .collect()
            })?;
            let list = Array::new(ctx.clone())?;
            for (i, (n, v)) in pairs.into_iter().enumerate() {
                let pair = Array::new(ctx.clone())?;
                pair.set(0, n)?;
                pair.set(1, v)?;
                list.set(i, pair)?;
            }
            Ok::<_, rquickjs::Error>(list)
        })?,
    )?;
    Ok(())
}
