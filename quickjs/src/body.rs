//! Native operations behind `js/body.js`: the [Body mixin](https://fetch.spec.whatwg.org/#body-mixin)
//! shared by `Request` and `Response`, and the `BodyInit` conversion.
//!
//! A JavaScript `ReadableStream` given as a body becomes a crate [`Body`] that pulls with
//! backpressure: each poll of the Rust stream asks the script for one chunk through a
//! channel of capacity one, and nothing is read before Rust asks. The script reads the stream
//! through `pipeTo` into a sink of its own (`js/body.js`), whose internal reads a script's
//! `Object.prototype.then` cannot observe, and the chunk crosses outside any promise. A crate body that reaches
//! JavaScript (`response.body`) becomes a byte `ReadableStream` pulled one chunk per read
//! ([`crate::streams::readable_stream`]).

use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::task::{Context, Poll};

use bytes::Bytes;
use futures_util::{Stream, future::Future};
use rquickjs::{Ctx, Exception, Function, IntoJs, Object, Persistent, Promise, Value};
use tokio::sync::{mpsc, oneshot};
use whatwg_fetch::{Body, BodyInit, Error};

use crate::blob::{Buffer, U8, bytes_of};
use crate::error::custom;
use crate::handle::{self, Native};
use crate::promise::future_to_promise_now;
use crate::state::{SharedIds, SharedState, push_id, take_ids};
use crate::streams::readable_stream;

type Reply = Option<Result<Bytes, Error>>;

/// The Rust side of a script's stream: asks for one chunk per poll.
struct JsStream {
    id: u64,
    demand: mpsc::Sender<oneshot::Sender<Reply>>,
    pending: Option<oneshot::Receiver<Reply>>,
    done: bool,
    /// Where a drop before the end is recorded, for [`cancel_dropped_streams`].
    dropped: SharedIds<u64>,
}

impl Drop for JsStream {
    fn drop(&mut self) {
        if !self.done {
            // Dropped on any thread (a fetch on the network runtime); the engine's thread
            // cancels the script's stream. The reader task cancels it too once it sees the
            // demand channel close, whichever comes first.
            push_id(&self.dropped, self.id);
        }
    }
}

/// Calls `cancel()` on the script stream `id` if it was not cancelled yet.
fn cancel_stream(ctx: &Ctx<'_>, state: &SharedState, id: u64) {
    let Some(cancel) = state.cancels.borrow_mut().remove(&id) else {
        return;
    };
    let called = cancel
        .restore(ctx)
        .and_then(|cancel| cancel.call::<_, ()>(()));
    if called.is_err() {
        let _ = ctx.catch();
    }
}

/// Cancels, at once, the script streams the crate dropped before their end (a fetch that
/// was aborted drops its request body): the spec cancels the body in the same step.
pub(crate) fn cancel_dropped_streams(ctx: &Ctx<'_>, state: &SharedState) {
    for id in take_ids(&state.dropped) {
        cancel_stream(ctx, state, id);
    }
}

impl Stream for JsStream {
    type Item = Result<Bytes, Error>;

    fn poll_next(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Option<Self::Item>> {
        let this = self.get_mut();
        if this.done {
            return Poll::Ready(None);
        }
        let rx = match &mut this.pending {
            Some(rx) => rx,
            None => {
                let (tx, rx) = oneshot::channel();
                if this.demand.try_send(tx).is_err() {
                    this.done = true;
                    return Poll::Ready(Some(Err(Error::type_error(
                        "the body stream's reader is gone",
                    ))));
                }
                this.pending.insert(rx)
            }
        };
        match Pin::new(rx).poll(cx) {
            Poll::Pending => Poll::Pending,
            Poll::Ready(reply) => {
                this.pending = None;
                match reply {
                    Ok(Some(Ok(bytes))) => Poll::Ready(Some(Ok(bytes))),
                    Ok(Some(Err(e))) => {
                        this.done = true;
                        Poll::Ready(Some(Err(e)))
                    }
                    Ok(None) => {
                        this.done = true;
                        Poll::Ready(None)
                    }
                    Err(_) => {
                        this.done = true;
                        Poll::Ready(Some(Err(Error::type_error(
                            "the body stream's reader is gone",
                        ))))
                    }
                }
            }
        }
    }
}

/// Reads one chunk: the script's `read()` is a promise of `true` once a chunk is ready (then
/// `take()` gives it, a `Uint8Array`) or `false` at the end; a rejection is the stream's
/// error, kept as the JavaScript value it is.
///
/// The promise carries a boolean, not the chunk: resolving a promise with an object looks up
/// its `then`, which a script may have put on `Object.prototype`.
async fn read_chunk<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    read: &Function<'js>,
    take: &Function<'js>,
) -> Result<Option<Bytes>, Error> {
    let outcome: rquickjs::Result<Option<Bytes>> = async {
        let promise: Promise = read.call(())?;
        let ready: bool = promise.into_future().await?;
        if !ready {
            return Ok(None);
        }
        let chunk: Value = take.call(())?;
        bytes_of(ctx, &chunk).map(Some)
    }
    .await;
    outcome.map_err(|_| {
        let thrown = ctx.catch();
        custom(ctx, state, thrown).unwrap_or_else(|_| Error::type_error("the body stream errored"))
    })
}

/// A crate body over a script's stream: `read()` and `take()` give the next chunk (see
/// [`read_chunk`]), `cancel()` is called if the body is dropped before its end.
pub(crate) fn js_stream_body<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    read: Function<'js>,
    take: Function<'js>,
    cancel: Function<'js>,
) -> Body {
    static NEXT: AtomicU64 = AtomicU64::new(1);
    let id = NEXT.fetch_add(1, Ordering::Relaxed);
    state
        .cancels
        .borrow_mut()
        .insert(id, Persistent::save(ctx, cancel));
    let (demand, mut requests) = mpsc::channel::<oneshot::Sender<Reply>>(1);
    let ctx2 = ctx.clone();
    let st = state.clone();
    ctx.spawn(async move {
        while let Some(reply) = requests.recv().await {
            let chunk = read_chunk(&ctx2, &st, &read, &take).await;
            let end = !matches!(chunk, Ok(Some(_)));
            let _ = reply.send(chunk.transpose());
            if end {
                st.cancels.borrow_mut().remove(&id);
                return;
            }
        }
        cancel_stream(&ctx2, &st, id);
    });
    Body::from_stream(JsStream {
        id,
        demand,
        pending: None,
        done: false,
        dropped: state.dropped.clone(),
    })
}

/// A converted `BodyInit` from the script: `undefined` (absent), `null`, or `[kind, …]` with
/// kind `text`, `bytes`, `blob`, `form`, `params` or `stream` (`[_, read, cancel, unusable,
/// stream, lock, holder, take]`, `unusable` when the stream was disturbed or locked at
/// conversion).
///
/// # Errors
/// A malformed value (the script always sends a well-formed one).
pub(crate) fn body_init<'js>(
    ctx: &Ctx<'js>,
    state: &SharedState,
    value: Value<'js>,
) -> rquickjs::Result<Option<BodyInit>> {
    if value.is_undefined() {
        return Ok(None);
    }
    if value.is_null() {
        return Ok(Some(BodyInit::Null));
    }
    let Some(list) = value.as_array() else {
        return Err(Exception::throw_type(ctx, "malformed BodyInit"));
    };
    let kind: String = list.get(0)?;
    Ok(Some(match kind.as_str() {
        "text" => BodyInit::Text(list.get(1)?),
        "bytes" => BodyInit::Bytes(bytes_of(ctx, &list.get(1)?)?),
        "blob" => BodyInit::Blob(handle::blob(ctx, &list.get(1)?)?),
        "form" => {
            let form = handle::form_data(ctx, &list.get(1)?)?;
            let form = handle::borrow(ctx, &form)?.clone();
            BodyInit::FormData(form)
        }
        "params" => {
            let pairs: Vec<Vec<String>> = list.get(1)?;
            BodyInit::UrlSearchParams(
                pairs
                    .into_iter()
                    .filter_map(|p| match <[String; 2]>::try_from(p) {
                        Ok([k, v]) => Some((k, v)),
                        Err(_) => None,
                    })
                    .collect(),
            )
        }
        "stream" => {
            let unusable: bool = list.get(3)?;
            if unusable {
                let mut body =
                    Body::from_stream(futures_util::stream::empty::<Result<Bytes, Error>>());
                body.cancel();
                BodyInit::Stream(body)
            } else {
                BodyInit::Stream(js_stream_body(
                    ctx,
                    state,
                    list.get(1)?,
                    list.get(7)?,
                    list.get(2)?,
                ))
            }
        }
        _ => return Err(Exception::throw_type(ctx, "malformed BodyInit")),
    }))
}

/// The body of a `Request` or `Response` handle, borrowed for `f`.
fn with_body<'js, T>(
    ctx: &Ctx<'js>,
    h: &Value<'js>,
    f: impl FnOnce(Option<&mut Body>) -> T,
) -> rquickjs::Result<T> {
    match handle::get(ctx, h)? {
        Native::Request(r) => Ok(f(handle::borrow_mut(ctx, &r)?.body())),
        Native::Response(r) => Ok(f(handle::borrow_mut(ctx, &r)?.body())),
        _ => Err(Exception::throw_type(
            ctx,
            "Illegal invocation: not a Request or Response",
        )),
    }
}

/// `json()`'s result: the body text, parsed into a JavaScript value on the way out.
struct JsonText(String);

impl<'js> IntoJs<'js> for JsonText {
    fn into_js(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        // JSON.parse itself, which takes any string (NUL included) and throws a SyntaxError.
        let json: Object = ctx.globals().get("JSON")?;
        let parse: Function = json.get("parse")?;
        parse.call((self.0,))
    }
}

/// A crate value that becomes a new interface object on the way out (through the script's
/// wrapper function of that name).
struct NewObject(&'static str, Native);

impl<'js> IntoJs<'js> for NewObject {
    fn into_js(self, ctx: &Ctx<'js>) -> rquickjs::Result<Value<'js>> {
        handle::wrapped(ctx, self.0, self.1)
    }
}

macro_rules! consume {
    ($ctx:expr, $r:expr, $kind:expr) => {{
        // The future owns the body; the borrow ends before it is polled (which may run
        // script through a promise's `then` lookup).
        macro_rules! start {
            ($method:ident, $map:expr) => {{
                let f = handle::borrow_mut($ctx, &$r)?.$method();
                future_to_promise_now($ctx, async move { f.await.map($map) })
            }};
        }
        match $kind {
            "text" => start!(text, |t| t),
            "bytes" => start!(bytes, U8),
            "arrayBuffer" => start!(bytes, Buffer),
            "json" => start!(text, JsonText),
            "blob" => start!(blob, |b| NewObject("wrapBlob", Native::Blob(b))),
            "formData" => start!(form_data, |f| NewObject(
                "wrapFormData",
                Native::FormData(std::rc::Rc::new(std::cell::RefCell::new(f)))
            )),
            _ => Err(Exception::throw_type($ctx, "unknown body method")),
        }
    }};
}

/// Registers `body_consume(h, kind)` (a promise; kind is the method name), `body_used(h)`,
/// `body_take_stream(h)` (the crate body as a `ReadableStream`, leaving an
/// empty body) and `body_set_stream(h, read, cancel, take)` (a script's stream as the body
/// again).
pub(crate) fn register<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    state: &SharedState,
) -> rquickjs::Result<()> {
    native.set(
        "body_consume",
        Function::new(
            ctx.clone(),
            |ctx: Ctx<'js>, h: Value<'js>, kind: String| match handle::get(&ctx, &h)? {
                Native::Request(r) => consume!(&ctx, r, kind.as_str()),
                Native::Response(r) => consume!(&ctx, r, kind.as_str()),
                _ => Err(Exception::throw_type(
                    &ctx,
                    "Illegal invocation: not a Request or Response",
                )),
            },
        )?,
    )?;
    native.set(
        "body_used",
        Function::new(ctx.clone(), |ctx: Ctx<'js>, h: Value<'js>| {
            with_body(&ctx, &h, |b| b.is_some_and(|b| b.is_disturbed()))
        })?,
    )?;
    let streams = state.clone();
    native.set(
        "body_take_stream",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, h: Value<'js>| {
            // A used body stays (disturbed) in the crate; the script gets an empty stream.
            let body = with_body(&ctx, &h, |b| {
                b.map(|b| {
                    if b.is_disturbed() {
                        Body::empty()
                    } else {
                        let taken = std::mem::replace(b, Body::empty());
                        // What stays keeps the limits on the response's bytes, for the
                        // stream the script may give back (`body_set_stream`).
                        b.limit_like(&taken);
                        taken
                    }
                })
            })?;
            match body {
                Some(body) => readable_stream(&ctx, &streams, Box::pin(body)),
                None => Ok(Value::new_null(ctx.clone())),
            }
        })?,
    )?;
    let st = state.clone();
    native.set(
        "body_set_stream",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>,
                  h: Value<'js>,
                  read: Function<'js>,
                  cancel: Function<'js>,
                  take: Function<'js>| {
                let mut body = js_stream_body(&ctx, &st, read, take, cancel);
                with_body(&ctx, &h, |b| {
                    if let Some(b) = b {
                        // The script's stream of a response's body, read whole with `text()`,
                        // is held to the limits the body was: a server's bytes are no less
                        // its for having passed through the script.
                        body.limit_like(b);
                        *b = body;
                    }
                })
            },
        )?,
    )?;
    Ok(())
}
