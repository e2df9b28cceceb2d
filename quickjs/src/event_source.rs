//! Native operations behind `js/event_source.js`: HTML's
//! [`EventSource`](https://html.spec.whatwg.org/multipage/server-sent-events.html#the-eventsource-interface)
//! through the installation's [`Client`](whatwg_fetch::Client), one
//! [`whatwg_fetch::event_source::EventSource`] per script object.
//!
//! The script pulls: `event_source_next(h)` is a promise of what comes next (a number, as
//! resolving a promise with an object would look up a `then` a script may have set), and
//! a message is taken after it with `event_source_message(h)`. `event_source_close(h)`
//! aborts the connection through the signal the event source was made with and forgets
//! it. With [`crate::Globals::network_runtime`], the event source runs as a task there and
//! hands its items over one at a time.

use std::cell::RefCell;
use std::collections::HashMap;
use std::pin::Pin;
use std::rc::Rc;
use std::sync::Arc;

use futures_util::{Stream, StreamExt};
use rquickjs::{Ctx, Function, Object};
use whatwg_fetch::event_source::Event;
use whatwg_fetch::event_stream::MessageEvent;
use whatwg_fetch::{AbortController, EventSourceInit};

use crate::promise::future_to_promise;
use crate::state::SharedState;

/// An event source's items, wherever it runs.
type Items = Pin<Box<dyn Stream<Item = whatwg_fetch::Result<Event>>>>;

/// What `event_source_next` resolves with.
const OPEN: u8 = 0;
const MESSAGE: u8 = 1;
const RECONNECTING: u8 = 2;
const FAILED: u8 = 3;
const ENDED: u8 = 4;

/// One script `EventSource`.
struct Entry {
    /// Taken out while a `next` awaits it.
    items: Option<Items>,
    /// Aborted by `close()`.
    controller: AbortController,
    /// The message `next` announced, until the script takes it.
    message: Option<MessageEvent>,
    /// The last event ID of the message the script took last: the next message's is
    /// handed over only when it is another string, as a server may set an ID as long as a
    /// line and send any number of events under it.
    last_event_id: Option<Arc<str>>,
    /// The event source's URL, serialized, for the script to read once.
    url: String,
}

type Entries = Rc<RefCell<HashMap<u32, Entry>>>;

/// `source`'s items on `network` when there is one, as a task that owns it and hands over
/// one item at a time (it ends when the engine lets go); else `source` itself.
fn run(
    source: whatwg_fetch::event_source::EventSource,
    network: Option<&tokio::runtime::Handle>,
) -> Items {
    let Some(network) = network else {
        return Box::pin(source);
    };
    let (tx, rx) = tokio::sync::mpsc::channel(1);
    network.spawn(async move {
        let mut source = source;
        loop {
            let item = tokio::select! {
                () = tx.closed() => return,
                item = source.next() => item,
            };
            let Some(item) = item else { return };
            if tx.send(item).await.is_err() {
                return;
            }
        }
    });
    // The task ends without a word only when the network runtime shuts down (the source's
    // own end comes after its failure, which the script stops at): a failure too, or the
    // script would see the event source closed and never be told why.
    Box::pin(futures_util::stream::unfold(Some(rx), |rx| async move {
        let mut rx = rx?;
        match rx.recv().await {
            Some(item) => Some((item, Some(rx))),
            None => Some((Err(whatwg_fetch::Error::type_error(STOPPED)), None)),
        }
    }))
}

/// The failure of an event source whose task on the network runtime ended under it.
const STOPPED: &str = "the event source's task on the network runtime ended: the runtime shut down";

/// Registers `event_source_new(url, withCredentials)` (a handle, or the constructor's
/// exception), `event_source_url(h)`, `event_source_next(h)`, `event_source_message(h)`
/// (`[type, data, origin]`, and `lastEventId` fourth when it is not the last message's) and `event_source_close(h)`.
pub fn register<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    state: &SharedState,
) -> rquickjs::Result<()> {
    let entries: Entries = Rc::default();

    let (st, made) = (state.clone(), entries.clone());
    native.set(
        "event_source_new",
        Function::new(
            ctx.clone(),
            move |ctx: Ctx<'js>, url: String, with_credentials: bool| {
                let client = crate::fetch::client(&ctx, &st)?;
                let controller = AbortController::new();
                let init = EventSourceInit {
                    with_credentials,
                    signal: Some(controller.signal()),
                };
                let source = client
                    .event_source(&url, init)
                    .map_err(|e| crate::error::throw(&ctx, &e))?;
                let handle = st.next_handle();
                let url = source.url().to_owned();
                let items = run(source, st.network.as_ref());
                made.borrow_mut().insert(
                    handle,
                    Entry {
                        items: Some(items),
                        controller,
                        message: None,
                        last_event_id: None,
                        url,
                    },
                );
                Ok::<_, rquickjs::Error>(handle)
            },
        )?,
    )?;

    let read = entries.clone();
    native.set(
        "event_source_url",
        Function::new(ctx.clone(), move |handle: u32| {
            read.borrow()
                .get(&handle)
                .map(|entry| entry.url.clone())
                .unwrap_or_default()
        })?,
    )?;

    let pulled = entries.clone();
    native.set(
        "event_source_next",
        Function::new(ctx.clone(), move |ctx: Ctx<'js>, handle: u32| {
            let entries = pulled.clone();
            future_to_promise(&ctx, async move {
                let Some(mut items) = entries
                    .borrow_mut()
                    .get_mut(&handle)
                    .and_then(|entry| entry.items.take())
                else {
                    return Ok(ENDED);
                };
                let item = items.next().await;
                let mut entries = entries.borrow_mut();
                // Closed while it waited: nothing more for the script.
                let Some(entry) = entries.get_mut(&handle) else {
                    return Ok(ENDED);
                };
                let code = match item {
                    Some(Ok(Event::Open)) => OPEN,
                    Some(Ok(Event::Message(message))) => {
                        entry.message = Some(message);
                        MESSAGE
                    }
                    Some(Ok(Event::Reconnecting { .. })) => RECONNECTING,
                    Some(Ok(_)) => RECONNECTING,
                    Some(Err(_)) => FAILED,
                    None => ENDED,
                };
                if code != FAILED && code != ENDED {
                    entry.items = Some(items);
                }
                Ok(code)
            })
        })?,
    )?;

    let taken = entries.clone();
    native.set(
        "event_source_message",
        Function::new(ctx.clone(), move |handle: u32| {
            let mut entries = taken.borrow_mut();
            let entry = entries.get_mut(&handle)?;
            let message = entry.message.take()?;
            let mut fields = vec![
                message.r#type().to_owned(),
                message.data().to_owned(),
                message.origin().to_owned(),
            ];
            // The ID only when it is not the one the script was given last (which the
            // script keeps): one copy per `id` field, not one per event.
            let id = message.shared_last_event_id();
            if !entry
                .last_event_id
                .as_ref()
                .is_some_and(|last| Arc::ptr_eq(last, &id))
            {
                fields.push(id.as_ref().to_owned());
                entry.last_event_id = Some(id);
            }
            Some(fields)
        })?,
    )?;

    native.set(
        "event_source_close",
        Function::new(ctx.clone(), move |handle: u32| {
            // The close() method steps: abort any fetch of the event source. Its items
            // go with the entry (or when a pending `next` returns).
            let removed = entries.borrow_mut().remove(&handle);
            if let Some(entry) = removed {
                entry.controller.abort(None);
            }
        })?,
    )?;
    Ok(())
}
