//! Native operations behind `js/abort.js`: `AbortController` and `AbortSignal`
//! (<https://dom.spec.whatwg.org/#aborting-ongoing-activities>) over the crate's
//! [`whatwg_fetch::AbortController`] and [`whatwg_fetch::AbortSignal`].
//!
//! `abort` events come from the crate's [`AbortSignal::on_abort_event`] listeners, which
//! record the signal's id in firing order; the script takes that list right after each call
//! that may abort (and when a timeout fires) and dispatches the events in the same order.

use rquickjs::{Ctx, Function, Object, Value};
use whatwg_fetch::{AbortController, AbortSignal, Error};

use crate::error::{custom, to_value};
use crate::handle::{self, Native};
use crate::promise::future_to_promise;
use crate::state::{SharedState, push_id, take_ids};

/// The abort reason for a script value: the value itself, or a new "AbortError"
/// `DOMException` for `undefined`, kept as a JavaScript value so that every read gives the
/// same object.
fn reason<'js>(ctx: &Ctx<'js>, state: &SharedState, value: Value<'js>) -> rquickjs::Result<Error> {
    let value = if value.is_undefined() {
        to_value(ctx, &Error::abort_error())?
    } else {
        value
    };
    custom(ctx, state, value)
}

/// Registers `controller_new()`, `controller_signal(h)`, `controller_abort(h, reason)`,
/// `signal_abort(reason)`, `signal_timeout(ms)`, `signal_any(handles)`, `signal_aborted(h)`,
/// `signal_reason(h)`, `signal_wait(h)` (a promise settled when the signal aborts),
/// `signal_listen(h, id)` and `abort_take_fired()`.
pub(crate) fn register<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    state: &SharedState,
) -> rquickjs::Result<()> {
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
    let st = state.clone();
    native.set(
        "controller_abort",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, h: Value<'js>, r: Value<'js>| match handle::get(&ctx, &h)? {
                Native::Controller(c) => {
                    if !c.signal().aborted() {
                        c.abort(Some(reason(&ctx, &st, r)?));
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
    let st = state.clone();
    native.set(
        "signal_abort",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, r: Value<'js>| {
            let signal = AbortSignal::abort(Some(reason(&ctx, &st, r)?));
            handle::new(&ctx, Native::Signal(signal))
        })?,
    )?;
    native.set(
        "signal_timeout",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, ms: f64| {
            handle::new(&ctx, Native::Signal(AbortSignal::timeout_ms(ms as u64)))
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
    let fired = state.fired.clone();
    native.set(
        "signal_listen",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, h: Value<'js>, id: f64| {
            let signal = handle::signal(&ctx, &h)?;
            let fired = fired.clone();
            signal.on_abort_event(move |_| push_id(&fired, id));
            Ok::<_, rquickjs::Error>(())
        })?,
    )?;
    let fired = state.fired.clone();
    native.set(
        "abort_take_fired",
        Function::new(ctx.clone(), move || take_ids(&fired))?,
    )?;
    Ok(())
}
