//! Native operations behind `wpt/js/fetch.js`: the `fetch()` method
//! (<https://fetch.spec.whatwg.org/#fetch-method>) through the test file's [`Client`].

use std::cell::RefCell;
use std::mem;
use std::rc::Rc;

use rquickjs::{Ctx, Function, IntoJs, Object, Value};
use whatwg_fetch::{Client, Request, Response};

use super::global::SharedState;
use super::handle::{self, Native};
use super::promise::future_to_promise_now;

/// The test file's client: made by the engine from the job (origin, resolver, test CA), or a
/// server-side one when none was set (the engine's own tests).
///
/// # Errors
/// A `TypeError` if the default client cannot be built.
pub fn client(ctx: &Ctx<'_>, state: &SharedState) -> rquickjs::Result<Client> {
    if let Some(c) = state.client.borrow().as_ref() {
        return Ok(c.clone());
    }
    let made = Client::builder()
        .build()
        .map_err(|e| super::error::throw(ctx, &e))?;
    *state.client.borrow_mut() = Some(made.clone());
    Ok(made)
}

/// The fetched response on its way to the script, as a new handle.
struct Fetched(Response);

impl<'js> IntoJs<'js> for Fetched {
    fn into_js(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        handle::wrapped(
            ctx,
            "wrapResponse",
            Native::Response(Rc::new(RefCell::new(self.0))),
        )
    }
}

/// Registers `fetch(request)`: fetches the request of a `Request` handle (taking it: the
/// request object `fetch()` makes is its own) and returns a promise of a `Response` handle.
pub fn register<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    state: &SharedState,
) -> rquickjs::Result<()> {
    let st = state.clone();
    native.set(
        "fetch",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, h: Value<'js>| {
            let r = handle::request(&ctx, &h)?;
            let request = {
                let mut r = handle::borrow_mut(&ctx, &r)?;
                let placeholder = Request::from_url(r.current_url().clone());
                mem::replace(&mut *r, placeholder)
            };
            let client = client(&ctx, &st)?;
            let promise = future_to_promise_now(&ctx, async move {
                client.fetch_request(request).await.map(Fetched)
            });
            // A fetch that ended at once (its signal was already aborted) dropped its body.
            super::body::cancel_dropped_streams(&ctx);
            promise
        })?,
    )?;
    Ok(())
}
