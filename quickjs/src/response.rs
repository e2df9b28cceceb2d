//! Native operations behind `js/response.js`: the `Response` interface
//! (<https://fetch.spec.whatwg.org/#response-class>) over [`whatwg_fetch::Response`].

use std::cell::RefCell;
use std::rc::Rc;

use rquickjs::{Ctx, Function, Object, Value};
use whatwg_fetch::{Error, Response, ResponseInit};

use crate::body::body_init;
use crate::error::throw;
use crate::fetch::client;
use crate::handle::{self, HeadersRef, Native};
use crate::headers::headers_init;
use crate::state::SharedState;

fn response_init<'js>(
    status: u16,
    status_text: String,
    headers: Value<'js>,
) -> rquickjs::Result<ResponseInit> {
    Ok(ResponseInit {
        status,
        status_text,
        headers: headers_init(headers)?,
    })
}

fn wrap<'js>(ctx: &Ctx<'js>, made: Result<Response, Error>) -> rquickjs::Result<Value<'js>> {
    let response = made.map_err(|e| throw(ctx, &e))?;
    handle::new(ctx, Native::Response(Rc::new(RefCell::new(response))))
}

/// Registers `response_new(body, status, statusText, headers)`, `response_error()`,
/// `response_redirect(url, status)`, `response_json(data, status, statusText, headers)`,
/// `response_attrs(h)`, `response_headers(h)` and `response_clone(h)`.
pub fn register<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    state: &SharedState,
) -> rquickjs::Result<()> {
    let st = state.clone();
    native.set(
        "response_new",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  body: Value<'js>,
                  status: u16,
                  status_text: String,
                  headers: Value<'js>| {
                let body = body_init(&ctx, &st, body)?;
                let init = response_init(status, status_text, headers)?;
                wrap(&ctx, Response::new(body, init))
            },
        )?,
    )?;
    native.set(
        "response_error",
        Function::new(ctx.clone(), |ctx: Ctx<'js>| {
            wrap(&ctx, Ok(Response::error()))
        })?,
    )?;
    let st = state.clone();
    native.set(
        "response_redirect",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, url: String, status: u16| {
                let environment = client(&ctx, &st)?.environment().clone();
                wrap(&ctx, Response::redirect_in(&environment, &url, status))
            },
        )?,
    )?;
    native.set(
        "response_json",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>,
             data: Value<'js>,
             status: u16,
             status_text: String,
             headers: Value<'js>| {
                let init = response_init(status, status_text, headers)?;
                let Some(json) = ctx.json_stringify(data)? else {
                    return Err(throw(
                        &ctx,
                        &Error::type_error("the value cannot be serialized as JSON"),
                    ));
                };
                let raw = serde_json::value::RawValue::from_string(json.to_string()?)
                    .map_err(|_| throw(&ctx, &Error::type_error("invalid JSON")))?;
                wrap(&ctx, Response::from_json(&raw, init))
            },
        )?,
    )?;
    native.set(
        "response_attrs",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            let r = handle::response(&ctx, &h)?;
            let r = handle::borrow(&ctx, &r)?;
            let o = Object::new(ctx.clone())?;
            o.set("type", r.r#type().as_str())?;
            o.set("url", r.url().into_owned())?;
            o.set("redirected", r.redirected())?;
            o.set("status", r.status())?;
            o.set("ok", r.ok())?;
            o.set("statusText", r.status_text())?;
            Ok::<_, rquickjs::Error>(o)
        })?,
    )?;
    native.set(
        "response_headers",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            let r = handle::response(&ctx, &h)?;
            handle::new(&ctx, Native::Headers(HeadersRef::Response(r)))
        })?,
    )?;
    native.set(
        "response_clone",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            let r = handle::response(&ctx, &h)?;
            let cloned = handle::borrow_mut(&ctx, &r)?.try_clone();
            wrap(&ctx, cloned)
        })?,
    )?;
    Ok(())
}
