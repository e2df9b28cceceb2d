//! The single bridge from Rust futures to JavaScript promises.

use std::future::Future;
use std::task::{Context, Poll, Waker};

use rquickjs::{Ctx, Function, IntoJs, Promise};

/// Starts `future` on the runtime and returns a promise settled with its outcome: fulfilled
/// with the converted value, or rejected with the exception [`crate::error::to_value`] maps
/// the crate error to.
///
/// The promise settles from the event loop, as a task, never synchronously.
pub fn future_to_promise<'js, F, T>(ctx: &Ctx<'js>, future: F) -> rquickjs::Result<Promise<'js>>
where
    F: Future<Output = Result<T, whatwg_fetch::Error>> + 'js,
    T: IntoJs<'js> + 'js,
{
    let (promise, resolve, reject) = ctx.promise()?;
    let ctx2 = ctx.clone();
    ctx.spawn(async move {
        settle(&ctx2, future.await, resolve, reject);
    });
    Ok(promise)
}

/// As [`future_to_promise`], but the future is polled once at once: an outcome that is
/// already known (a body already used or errored, a fetch whose signal is already aborted)
/// settles the promise before this returns, as the spec's "a promise rejected with" does.
pub fn future_to_promise_now<'js, F, T>(ctx: &Ctx<'js>, future: F) -> rquickjs::Result<Promise<'js>>
where
    F: Future<Output = Result<T, whatwg_fetch::Error>> + 'js,
    T: IntoJs<'js> + 'js,
{
    let mut future = Box::pin(future);
    let mut cx = Context::from_waker(Waker::noop());
    match future.as_mut().poll(&mut cx) {
        Poll::Ready(outcome) => {
            let (promise, resolve, reject) = ctx.promise()?;
            settle(ctx, outcome, resolve, reject);
            Ok(promise)
        }
        Poll::Pending => future_to_promise(ctx, future),
    }
}

fn settle<'js, T: IntoJs<'js>>(
    ctx: &Ctx<'js>,
    outcome: Result<T, whatwg_fetch::Error>,
    resolve: Function<'js>,
    reject: Function<'js>,
) {
    let settled = match outcome {
        Ok(value) => value.into_js(ctx).and_then(|v| resolve.call::<_, ()>((v,))),
        Err(error) => crate::error::to_value(ctx, &error).and_then(|v| reject.call::<_, ()>((v,))),
    };
    if settled.is_err() {
        // Conversion failed or the engine was interrupted: reject with what was thrown.
        let thrown = ctx.catch();
        let _ = reject.call::<_, ()>((thrown,));
    }
}
