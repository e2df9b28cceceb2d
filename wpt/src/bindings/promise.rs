//! The single bridge from Rust futures to JavaScript promises.

use std::future::Future;

use rquickjs::{Ctx, IntoJs, Promise};

/// Starts `future` on the runtime and returns a promise settled with its outcome: fulfilled
/// with the converted value, or rejected with the exception [`super::error::to_value`] maps
/// the crate error to.
///
/// The promise settles from the event loop, as a task, never synchronously.
#[cfg_attr(not(test), allow(dead_code))] // Used by the bindings of the crate's interfaces.
pub fn future_to_promise<'js, F, T>(ctx: &Ctx<'js>, future: F) -> rquickjs::Result<Promise<'js>>
where
    F: Future<Output = Result<T, whatwg_fetch::Error>> + 'js,
    T: IntoJs<'js> + 'js,
{
    let (promise, resolve, reject) = ctx.promise()?;
    let ctx2 = ctx.clone();
    ctx.spawn(async move {
        let settled = match future.await {
            Ok(value) => value
                .into_js(&ctx2)
                .and_then(|v| resolve.call::<_, ()>((v,))),
            Err(error) => {
                super::error::to_value(&ctx2, &error).and_then(|v| reject.call::<_, ()>((v,)))
            }
        };
        if settled.is_err() {
            // Conversion failed or the engine was interrupted: reject with what was thrown.
            let thrown = ctx2.catch();
            let _ = reject.call::<_, ()>((thrown,));
        }
    });
    Ok(promise)
}
