//! Native operations behind `js/websocket.js`: the WebSockets Standard's
//! [`WebSocket`](https://websockets.spec.whatwg.org/#the-websocket-interface) through the
//! installation's [`Client`](whatwg_fetch::Client), one [`whatwg_fetch::WebSocket`] per
//! script object.
//!
//! The constructor's checks run at once (`websocket_new` throws what the constructor
//! throws); `websocket_connect(h)` is a promise of the opening handshake's outcome. After
//! it the script pulls: `websocket_next(h)` is a promise of what came next (a number, as
//! resolving a promise with an object would look up a `then` a script may have set), taken
//! with `websocket_take(h)`; nothing is read from the connection before the script asks,
//! so a connection holds at most one message the script has not seen. `websocket_send`
//! and `websocket_close` are promises settled once their frame is written; the script
//! chains them, which keeps them in order. With [`crate::Globals::network_runtime`] each
//! step runs as a task there.

use std::cell::RefCell;
use std::collections::HashMap;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll};

use futures_util::future::{AbortHandle, Abortable};
use futures_util::stream::{SplitSink, SplitStream};
use futures_util::{SinkExt, StreamExt};
use rquickjs::{Ctx, Function, IntoJs, Object, TypedArray, Value};
use whatwg_fetch::websocket::{CloseCode, CloseFrame, Message};
use whatwg_fetch::{Blob, WebSocket, WebSocketBuilder};

use crate::blob::Buffer;
use crate::handle::{self, Native};
use crate::promise::future_to_promise;
use crate::state::SharedState;

type Reader = SplitStream<WebSocket>;
type Writer = SplitSink<WebSocket, Message>;

/// What `websocket_next` resolves with.
const TEXT: u8 = 0;
const BINARY: u8 = 1;
/// The server's Close was received and answered: closed cleanly.
const CLOSED: u8 = 2;
/// The connection failed or ended without a Close: closed uncleanly (1006).
const FAILED: u8 = 3;
/// The script forgot the socket while it waited.
const ENDED: u8 = 4;

/// What arrived, until the script takes it.
enum Received {
    Text(String),
    Binary(bytes::Bytes),
    /// The server's Close: its code (1005 when it had none) and reason.
    Close(u16, String),
}

/// One script `WebSocket`.
struct Entry {
    /// The handshake's options, taken by `websocket_connect`.
    builder: Option<WebSocketBuilder>,
    /// Cancels the handshake: `close()` before the connection is established.
    abort: AbortHandle,
    /// The socket's halves once open; each taken out while a step uses it.
    reader: Option<Reader>,
    writer: Option<Writer>,
    protocol: String,
    extensions: String,
    received: Option<Received>,
    /// Where the connection lives, for the halves' goodbye.
    network: Option<tokio::runtime::Handle>,
}

impl Drop for Entry {
    /// Forgotten, or the engine is dropped: the handshake is given up, and the socket's
    /// halves say goodbye to the server where the connection lives.
    fn drop(&mut self) {
        self.abort.abort();
        drop_on(
            self.network.as_ref(),
            (self.reader.take(), self.writer.take()),
        );
    }
}

type Entries = Rc<RefCell<HashMap<u32, Entry>>>;

/// Runs `future` on `network` when there is one (a task there, awaited), else here.
///
/// The task is aborted when the wait for it is dropped (the engine let go of the promise,
/// or was dropped itself): a read waiting for a server that never speaks again would
/// otherwise hold the connection open on the network runtime for as long as it runs.
async fn on_network<F>(network: Option<tokio::runtime::Handle>, future: F) -> Option<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    match network {
        Some(network) => Aborting(network.spawn(future)).await.ok(),
        None => Some(future.await),
    }
}

/// A task's outcome, awaited; dropping the wait aborts the task.
struct Aborting<T>(tokio::task::JoinHandle<T>);

impl<T> Future for Aborting<T> {
    type Output = Result<T, tokio::task::JoinError>;

    fn poll(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<Self::Output> {
        Pin::new(&mut self.0).poll(cx)
    }
}

impl<T> Drop for Aborting<T> {
    fn drop(&mut self) {
        self.0.abort();
    }
}

/// Drops `value` (a socket or a half of one) where its connection lives: a socket's drop
/// says goodbye to the server in a task of the runtime it is dropped on.
fn drop_on<T: Send + 'static>(network: Option<&tokio::runtime::Handle>, value: T) {
    match network {
        Some(network) => {
            network.spawn(async move { drop(value) });
        }
        None => drop(value),
    }
}

/// Registers `websocket_new(url, protocols)` (`[handle, url, origin]`, the URL serialized,
/// or the constructor's exception), `websocket_connect(h)`, `websocket_info(h)`
/// (`[protocol, extensions]`), `websocket_next(h)`, `websocket_take(h, blob)` (a string,
/// an `ArrayBuffer` or, with `blob`, a `Blob`, or `[code, reason]`), `websocket_send(h,
/// data)` (a string, a `Uint8Array` or a Blob's handle),
/// `websocket_close(h, code, reason)` and `websocket_forget(h)`.
pub fn register<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    state: &SharedState,
) -> rquickjs::Result<()> {
    let entries: Entries = Rc::default();

    let (st, made) = (state.clone(), entries.clone());
    native.set(
        "websocket_new",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, url: String, protocols: Vec<String>| {
                let client = crate::fetch::client(&ctx, &st)?;
                let builder = client.websocket(&url).protocols(protocols);
                // The constructor's steps 1–9: they throw before anything connects.
                let url = builder.check().map_err(|e| crate::error::throw(&ctx, &e))?;
                let handle = st.next_handle();
                let (abort, _) = AbortHandle::new_pair();
                made.borrow_mut().insert(
                    handle,
                    Entry {
                        builder: Some(builder),
                        abort,
                        reader: None,
                        writer: None,
                        protocol: String::new(),
                        extensions: String::new(),
                        received: None,
                        network: st.network.clone(),
                    },
                );
                let made = rquickjs::Array::new(ctx.clone())?;
                made.set(0, handle)?;
                made.set(1, url.as_str())?;
                made.set(2, url.origin().ascii_serialization())?;
                Ok::<_, rquickjs::Error>(made)
            },
        )?,
    )?;

    let (st, opened) = (state.clone(), entries.clone());
    native.set(
        "websocket_connect",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, handle: u32| {
            let (entries, network) = (opened.clone(), st.network.clone());
            future_to_promise(&ctx, async move {
                let (abort, registration) = AbortHandle::new_pair();
                let builder = {
                    let mut entries = entries.borrow_mut();
                    let Some(entry) = entries.get_mut(&handle) else {
                        return Ok(false);
                    };
                    entry.abort = abort;
                    entry.builder.take()
                };
                let Some(builder) = builder else {
                    return Ok(false);
                };
                // Establish a WebSocket connection; `close()` aborts it.
                let connected =
                    Abortable::new(on_network(network.clone(), builder.connect()), registration)
                        .await;
                let Ok(Some(Ok(socket))) = connected else {
                    return Ok(false);
                };
                let mut entries = entries.borrow_mut();
                let Some(entry) = entries.get_mut(&handle) else {
                    // Forgotten meanwhile.
                    drop_on(network.as_ref(), socket);
                    return Ok(false);
                };
                entry.protocol = socket.protocol().to_owned();
                entry.extensions = socket.extensions().to_owned();
                let (writer, reader) = socket.split();
                entry.reader = Some(reader);
                entry.writer = Some(writer);
                Ok(true)
            })
        })?,
    )?;

    let read = entries.clone();
    native.set(
        "websocket_info",
        Function::new(ctx.clone(), move |handle: u32| {
            read.borrow()
                .get(&handle)
                .map(|entry| vec![entry.protocol.clone(), entry.extensions.clone()])
        })?,
    )?;

    let (st, pulled) = (state.clone(), entries.clone());
    native.set(
        "websocket_next",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, handle: u32| {
            let (entries, network) = (pulled.clone(), st.network.clone());
            future_to_promise(&ctx, async move {
                let Some(mut reader) = entries
                    .borrow_mut()
                    .get_mut(&handle)
                    .and_then(|entry| entry.reader.take())
                else {
                    return Ok(ENDED);
                };
                // The next message the script sees: pings and pongs are the connection's.
                let read = on_network(network.clone(), async move {
                    loop {
                        match reader.next().await {
                            Some(Ok(Message::Ping(_) | Message::Pong(_))) => continue,
                            item => return (reader, item),
                        }
                    }
                })
                .await;
                let Some((reader, item)) = read else {
                    return Ok(FAILED);
                };
                let mut entries = entries.borrow_mut();
                let Some(entry) = entries.get_mut(&handle) else {
                    drop_on(network.as_ref(), reader);
                    return Ok(ENDED);
                };
                let (code, received) = match item {
                    Some(Ok(Message::Text(text))) => (TEXT, Received::Text(text)),
                    Some(Ok(Message::Binary(data))) => (BINARY, Received::Binary(data)),
                    Some(Ok(Message::Close(frame))) => {
                        // The WebSocket connection close code: the Close frame's, or 1005
                        // when it had none (RFC 6455 §7.1.5).
                        let (code, reason) = match frame {
                            Some(frame) => (frame.code.0, frame.reason),
                            None => (CloseCode::NO_STATUS.0, String::new()),
                        };
                        entry.received = Some(Received::Close(code, reason));
                        return Ok(CLOSED);
                    }
                    // An error, or the end without the server's Close (1006).
                    _ => return Ok(FAILED),
                };
                entry.received = Some(received);
                entry.reader = Some(reader);
                Ok(code)
            })
        })?,
    )?;

    let taken = entries.clone();
    native.set(
        "websocket_take",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, handle: u32, blob: bool| {
                let received = taken
                    .borrow_mut()
                    .get_mut(&handle)
                    .and_then(|entry| entry.received.take());
                match received {
                    None => Ok(Value::new_null(ctx)),
                    Some(Received::Text(text)) => text.into_js(&ctx),
                    // The bytes that arrived become the Blob's: copied into the engine and back
                    // out, a large message would take twice its size, half of it in the
                    // engine's heap.
                    Some(Received::Binary(data)) if blob => {
                        handle::wrapped(&ctx, "wrapBlob", Native::Blob(Blob::from_bytes(data, "")))
                    }
                    Some(Received::Binary(data)) => Buffer(data).into_js(&ctx),
                    Some(Received::Close(code, reason)) => {
                        let pair = rquickjs::Array::new(ctx.clone())?;
                        pair.set(0, code)?;
                        pair.set(1, reason)?;
                        Ok(pair.into_value())
                    }
                }
            },
        )?,
    )?;

    let (st, sent) = (state.clone(), entries.clone());
    native.set(
        "websocket_send",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, handle: u32, data: Value<'js>| {
                if let Some(text) = data.as_string() {
                    let message = Message::Text(text.to_string()?);
                    return write(&ctx, &sent, st.network.clone(), handle, async {
                        Ok(message)
                    });
                }
                if let Ok(array) = TypedArray::<u8>::from_value(data.clone()) {
                    let bytes = bytes::Bytes::from(crate::encoding::copy_bytes(&array));
                    let message = Message::Binary(bytes);
                    return write(&ctx, &sent, st.network.clone(), handle, async {
                        Ok(message)
                    });
                }
                // A Blob's handle: sent as the bytes it holds (shared, or read from disk),
                // not read into the engine's heap and copied back out.
                let blob = handle::blob(&ctx, &data)?;
                let message = async move { blob.read_bytes().await.map(Message::Binary) };
                write(&ctx, &sent, st.network.clone(), handle, message)
            },
        )?,
    )?;

    let (st, ended) = (state.clone(), entries.clone());
    native.set(
        "websocket_close",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, handle: u32, code: Option<u16>, reason: Option<String>| {
                if let Some(entry) = ended.borrow_mut().get_mut(&handle) {
                    // Not yet established: fail the connection (the handshake is aborted,
                    // and the connect promise says it failed).
                    if entry.reader.is_none() && entry.writer.is_none() {
                        entry.builder = None;
                        entry.abort.abort();
                    }
                }
                // A code, with the reason when there is one; neither: a Close without a body.
                let frame = code.map(|code| CloseFrame {
                    code: CloseCode(code),
                    reason: reason.unwrap_or_default(),
                });
                let message = Message::Close(frame);
                write(&ctx, &ended, st.network.clone(), handle, async {
                    Ok(message)
                })
            },
        )?,
    )?;

    native.set(
        "websocket_forget",
        Function::new(ctx.clone(), move |handle: u32| {
            // Its drop aborts the handshake and lets go of the connection.
            let removed = entries.borrow_mut().remove(&handle);
            drop(removed);
        })?,
    )?;
    Ok(())
}

/// A promise of `message` written to the socket's connection: `true` once it is, `false`
/// when there is no connection to write to (not open, failed, or forgotten) or no message
/// (a Blob whose file could not be read).
fn write<'js>(
    ctx: &Ctx<'js>,
    entries: &Entries,
    network: Option<tokio::runtime::Handle>,
    handle: u32,
    message: impl Future<Output = whatwg_fetch::Result<Message>> + 'static,
) -> rquickjs::Result<rquickjs::Promise<'js>> {
    let entries = entries.clone();
    future_to_promise(ctx, async move {
        let Ok(message) = message.await else {
            return Ok(false);
        };
        let Some(mut writer) = entries
            .borrow_mut()
            .get_mut(&handle)
            .and_then(|entry| entry.writer.take())
        else {
            return Ok(false);
        };
        let written = on_network(network.clone(), async move {
            let outcome = writer.send(message).await;
            (writer, outcome.is_ok())
        })
        .await;
        let Some((writer, ok)) = written else {
            return Ok(false);
        };
        match entries.borrow_mut().get_mut(&handle) {
            Some(entry) => entry.writer = Some(writer),
            None => drop_on(network.as_ref(), writer),
        }
        Ok(ok)
    })
}
