//! Native operations behind the timers in `js/scope.js`
//! (<https://html.spec.whatwg.org/multipage/timers-and-user-prompts.html#timers>): each timer
//! is a task on the event loop that calls back into JavaScript when its delay has passed.

use std::time::Duration;

use rquickjs::{Ctx, Function, Object};
use tokio::sync::oneshot;

use crate::state::SharedState;

/// Registers `timer_start(handle, ms, callback)` and `timer_cancel(handle)`.
pub fn register<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    state: &SharedState,
) -> rquickjs::Result<()> {
    let timers = state.clone();
    native.set(
        "timer_start",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, handle: u32, ms: f64, callback: Function<'js>| {
                let (cancel, cancelled) = oneshot::channel::<()>();
                timers.timers.borrow_mut().insert(handle, cancel);
                let delay = Duration::from_secs_f64((ms.max(0.0) / 1000.0).min(1.0e6));
                let timers = timers.clone();
                ctx.spawn(async move {
                    tokio::select! {
                        _ = tokio::time::sleep(delay) => {
                            timers.timers.borrow_mut().remove(&handle);
                            // The JS side reports exceptions from the handler itself; an error here
                            // is the engine being interrupted at the deadline.
                            let _ = callback.call::<_, ()>(());
                        }
                        _ = cancelled => {}
                    }
                });
            },
        )?,
    )?;
    let timers = state.clone();
    native.set(
        "timer_cancel",
        Function::new(ctx.clone(), move |handle: u32| {
            if let Some(cancel) = timers.timers.borrow_mut().remove(&handle) {
                let _ = cancel.send(());
            }
        })?,
    )?;
    Ok(())
}
