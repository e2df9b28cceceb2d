//! Native operations behind `js/request.js`: the `Request` interface
//! (<https://fetch.spec.whatwg.org/#request-class>) over [`whatwg_fetch::Request`], made in
//! the client's environment ([`crate::fetch::client`]).

use std::cell::RefCell;
use std::rc::Rc;
use std::str::FromStr;

use rquickjs::{Ctx, Function, Object, Value};
use whatwg_fetch::{AbortController, Error, Request, RequestInit};

use crate::body::body_init;
use crate::error::throw;
use crate::fetch::client;
use crate::handle::{self, HeadersRef, Native};
use crate::headers::headers_init;
use crate::state::SharedState;

fn member<T: FromStr<Err = Error>>(
    ctx: &Ctx<'_>,
    init: &Object<'_>,
    name: &str,
) -> rquickjs::Result<Option<T>> {
    match init.get::<_, Option<String>>(name)? {
        Some(s) => s.parse().map(Some).map_err(|e| throw(ctx, &e)),
        None => Ok(None),
    }
}

/// The `RequestInit` the script converted (members already of their IDL types; enumerations
/// still strings, parsed here with the crate's `FromStr`).
fn request_init<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    init: &Object<'js>,
) -> rquickjs::Result<RequestInit> {
    let signal = match init.get::<_, Value>("signal")? {
        v if v.is_undefined() => None,
        // null: a signal that never aborts, so the input's signal is not followed.
        v if v.is_null() => Some(AbortController::new().signal()),
        v => Some(handle::signal(ctx, &v)?),
    };
    let window = match init.get::<_, Option<String>>("window")? {
        Some(w) if w == "null" => Some(None),
        Some(_) => Some(Some(())),
        None => None,
    };
    Ok(RequestInit {
        body: body_init(ctx, state, init.get("body")?)?,
        cache: member(ctx, init, "cache")?,
        credentials: member(ctx, init, "credentials")?,
        duplex: member(ctx, init, "duplex")?,
        headers: headers_init(init.get("headers")?)?,
        integrity: init.get("integrity")?,
        keepalive: init.get("keepalive")?,
        method: init.get("method")?,
        mode: member(ctx, init, "mode")?,
        priority: member(ctx, init, "priority")?,
        redirect: member(ctx, init, "redirect")?,
        referrer: init.get("referrer")?,
        referrer_policy: member(ctx, init, "referrerPolicy")?,
        signal,
        window,
    })
}

/// Registers `request_new(input, init)` (input a URL string or a `Request` handle),
/// `request_attrs(h)`, `request_headers(h)`, `request_signal(h)` and `request_clone(h)`.
pub fn register<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    state: &SharedState,
) -> rquickjs::Result<()> {
    let st = state.clone();
    native.set(
        "request_new",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, input: Value<'js>, init: Object<'js>| {
                let init = request_init(&ctx, &st, &init)?;
                let environment = client(&ctx, &st)?.environment().clone();
                let made = match input.as_string() {
                    Some(url) => Request::new_in(&environment, url.to_string()?, init),
                    None => {
                        let r = handle::request(&ctx, &input)?;
                        let mut r = handle::borrow_mut(&ctx, &r)?;
                        Request::from_request_in(&environment, &mut r, init)
                    }
                };
                let request = made.map_err(|e| throw(&ctx, &e))?;
                handle::new(&ctx, Native::Request(Rc::new(RefCell::new(request))))
            },
        )?,
    )?;
    native.set(
        "request_attrs",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            let r = handle::request(&ctx, &h)?;
            let r = handle::borrow(&ctx, &r)?;
            let o = Object::new(ctx.clone())?;
            o.set("method", r.method())?;
            o.set("url", r.url())?;
            o.set("destination", r.destination().as_str())?;
            o.set("referrer", r.referrer())?;
            o.set("referrerPolicy", r.referrer_policy().as_str())?;
            o.set("mode", r.mode().as_str())?;
            o.set("credentials", r.credentials().as_str())?;
            o.set("cache", r.cache().as_str())?;
            o.set("redirect", r.redirect().as_str())?;
            o.set("integrity", r.integrity())?;
            o.set("keepalive", r.keepalive())?;
            o.set("isReloadNavigation", r.is_reload_navigation())?;
            o.set("isHistoryNavigation", r.is_history_navigation())?;
            o.set("duplex", r.duplex().as_str())?;
            Ok::<_, rquickjs::Error>(o)
        })?,
    )?;
    native.set(
        "request_headers",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            let r = handle::request(&ctx, &h)?;
            handle::new(&ctx, Native::Headers(HeadersRef::Request(r)))
        })?,
    )?;
    native.set(
        "request_signal",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            let r = handle::request(&ctx, &h)?;
            let signal = handle::borrow(&ctx, &r)?.signal().clone();
            handle::new(&ctx, Native::Signal(signal))
        })?,
    )?;
    native.set(
        "request_clone",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            let r = handle::request(&ctx, &h)?;
            let cloned = handle::borrow_mut(&ctx, &r)?
                .try_clone()
                .map_err(|e| throw(&ctx, &e))?;
            handle::new(&ctx, Native::Request(Rc::new(RefCell::new(cloned))))
        })?,
    )?;
    Ok(())
}
