//! Native operations behind `wpt/js/abort.js`: `AbortController` and `AbortSignal`
//! (<https://dom.spec.whatwg.org/#aborting-ongoing-activities>) over the crate's
//! [`whatwg_fetch::AbortController`] and [`whatwg_fetch::AbortSignal`].
//!
//! `abort` events come from the crate's [`AbortSignal::on_abort_event`] listeners, which
//! record the signal's id in firing order; the script takes that list right after each call
//! that may abort (and when a timeout fires) and dispatches the events in the same order.

use std::cell::RefCell;

use rquickjs::{Ctx, Function, Object, Value};
use whatwg_fetch::{AbortController, AbortSignal, Error};

use super::error::{custom, to_value};
use super::handle::{self, Native};
use super::promise::future_to_promise;

thread_local! {
    /// Ids of the signals whose `abort` event the crate fired and the script has not
    /// dispatched yet, in order.
    static FIRED: RefCell<Vec<f64>> = const { RefCell::new(Vec::new()) };
}

/// The abort reason for a script value: the value itself, or a new "AbortError"
/// `DOMException` for `undefined`, kept as a JavaScript value so that every read gives the
/// same object.
fn reason<'js>(ctx: &Ctx<'js>, value: Value<'js>) -> rquickjs::Result<Error> {
    let value = if value.is_undefined() {
        to_value(ctx, &Error::abort_error())?
    } else {
        value
    };
    custom(ctx, value)
}

/// Registers `controller_new()`, `controller_signal(h)`, `controller_abort(h, reason)`,
/// `signal_abort(reason)`, `signal_timeout(ms)`, `signal_any(handles)`, `signal_aborted(h)`,
/// `signal_reason(h)`, `signal_wait(h)` (a promise settled when the signal aborts),
/// `signal_listen(h, id)` and `abort_take_fired()`.
pub fn register<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> rquickjs::Result<()> {
    native.set(
        "controller_new",
        Function::new(ctx.clone(), |ctx: Ctx<'js>| {
            handle::new(
                &ctx,
                Native::Controller(std::rc::Rc::new(AbortController::new())),
            )
        })?,
    )?;
    native.set(
        "controller_signal",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, h: Value<'js>| match handle::get(&ctx, &h)? {
                Native::Controller(c) => handle::new(&ctx, Native::Signal(c.signal())),
                _ => Err(rquickjs::Exception::throw_type(
                    &ctx,
                    "not an AbortController",
                )),
            },
        )?,
    )?;
    native.set(
        "controller_abort",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, h: Value<'js>, r: Value<'js>| match handle::get(&ctx, &h)? {
                Native::Controller(c) => {
                    if !c.signal().aborted() {
                        c.abort(Some(reason(&ctx, r)?));
                    }
                    Ok(())
                }
                _ => Err(rquickjs::Exception::throw_type(
                    &ctx,
                    "not an AbortController",
                )),
            },
        )?,
    )?;
    native.set(
        "signal_abort",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, r: Value<'js>| {
            let signal = AbortSignal::abort(Some(reason(&ctx, r)?));
            handle::new(&ctx, Native::Signal(signal))
        })?,
    )?;
    native.set(
        "signal_timeout",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, ms: f64| {
            handle::new(&ctx, Native::Signal(AbortSignal::timeout(ms as u64)))
        })?,
    )?;
    native.set(
        "signal_any",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, list: Vec<Value<'js>>| {
            let signals = list
                .iter()
                .map(|v| handle::signal(&ctx, v))
                .collect::<rquickjs::Result<Vec<_>>>()?;
            handle::new(&ctx, Native::Signal(AbortSignal::any(&signals)))
        })?,
    )?;
    native.set(
        "signal_aborted",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            Ok::<_, rquickjs::Error>(handle::signal(&ctx, &h)?.aborted())
        })?,
    )?;
    native.set(
        "signal_reason",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, h: Value<'js>| match handle::signal(&ctx, &h)?.reason() {
                Some(e) => to_value(&ctx, &e),
                None => Ok(Value::new_undefined(ctx.clone())),
            },
        )?,
    )?;
    native.set(
        "signal_wait",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            let aborted = handle::signal(&ctx, &h)?.aborted_future();
            future_to_promise(&ctx, async move {
                aborted.await;
                Ok(())
            })
        })?,
    )?;
    native.set(
        "signal_listen",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>, id: f64| {
            let signal = handle::signal(&ctx, &h)?;
            signal.on_abort_event(move |_| FIRED.with(|f| f.borrow_mut().push(id)));
            Ok::<_, rquickjs::Error>(())
        })?,
    )?;
    native.set(
        "abort_take_fired",
        Function::new(ctx.clone(), || {
            FIRED.with(|f| std::mem::take(&mut *f.borrow_mut()))
        })?,
    )?;
    Ok(())
}
