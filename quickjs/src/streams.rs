//! Rust byte streams as JavaScript `ReadableStream`s (`js/streams.js`): each `pull`
//! awaits one chunk from the Rust stream, so bytes move only as fast as the script reads
//! (<https://fetch.spec.whatwg.org/#concept-body-stream>; pull, don't push).
//!
//! A crate body (a `Stream` of `Bytes`) is handed over with [`readable_stream`]; the returned
//! value is a byte `ReadableStream` from the streams implementation.

use std::cell::RefCell;
use std::collections::HashMap;
use std::pin::Pin;
use std::rc::Rc;

use bytes::Bytes;
use futures_util::{Stream, StreamExt};
use rquickjs::{Ctx, Function, IntoJs, Object, TypedArray, Value};

use crate::promise::future_to_promise;
use crate::state::SharedState;

/// A stream of body chunks, as the crate produces them.
pub type ByteStream = Pin<Box<dyn Stream<Item = Result<Bytes, whatwg_fetch::Error>>>>;

/// One chunk on its way to JavaScript, as a `Uint8Array`.
struct Chunk(Bytes);

impl<'js> IntoJs<'js> for Chunk {
    fn into_js(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        Ok(TypedArray::<u8>::new_copy(ctx.clone(), &self.0)?.into_value())
    }
}

/// Wraps `stream` in a JavaScript byte `ReadableStream`.
///
/// # Errors
/// The streams implementation is missing or throws.
pub fn readable_stream<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    stream: ByteStream,
) -> rquickjs::Result<Value<'js>> {
    let handle = state.next_handle();
    state.streams.borrow_mut().insert(handle, stream);
    let make: Function = ctx.globals().get("__fetch_readable_from_native")?;
    make.call((handle,))
}

/// Registers `stream_pull(handle)` (a promise of `true` once the next chunk is ready, `false`
/// at the end, rejected with the stream's error), `stream_chunk(handle)` (that chunk, taken)
/// and `stream_cancel(handle)`.
///
/// The promise settles with a boolean, not the chunk: resolving a promise with an object
/// looks up its `then`, which a script may have put on `Object.prototype`.
pub fn register<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    state: &SharedState,
) -> rquickjs::Result<()> {
    let ready: Rc<RefCell<HashMap<u32, Bytes>>> = Rc::default();
    let pulls = state.clone();
    let filled = ready.clone();
    native.set(
        "stream_pull",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, handle: u32| {
            let state = pulls.clone();
            let filled = filled.clone();
            future_to_promise(&ctx, async move {
                // Taken out while awaiting: a ReadableStream never pulls twice at once.
                let Some(mut stream) = state.streams.borrow_mut().remove(&handle) else {
                    return Ok(false);
                };
                let next = stream.next().await;
                match next {
                    Some(Ok(bytes)) => {
                        state.streams.borrow_mut().insert(handle, stream);
                        filled.borrow_mut().insert(handle, bytes);
                        Ok(true)
                    }
                    Some(Err(e)) => Err(e),
                    None => Ok(false),
                }
            })
        })?,
    )?;
    native.set(
        "stream_chunk",
        Function::new(ctx.clone(), move |handle: u32| {
            ready.borrow_mut().remove(&handle).map(Chunk)
        })?,
    )?;
    let cancels = state.clone();
    native.set(
        "stream_cancel",
        Function::new(ctx.clone(), move |handle: u32| {
            // Dropping the Rust stream cancels it.
            cancels.streams.borrow_mut().remove(&handle);
        })?,
    )?;
    Ok(())
}
