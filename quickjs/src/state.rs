//! The state one installation shares between its native operations: the client, the
//! network runtime, timers, the Rust streams handed to scripts, and the console's sink.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use rquickjs::{Ctx, Function, Object, Persistent};
use tokio::sync::oneshot;

use crate::ConsoleLevel;

/// The console's output, as the embedder gives it.
type ConsoleFn = dyn Fn(ConsoleLevel, &str) + Send;

/// Where `console` output goes.
pub(crate) type ConsoleSink = Box<ConsoleFn>;

/// Ids the crate's listeners record from any thread, taken by the script on the engine's.
pub(crate) type SharedIds<T> = Arc<Mutex<Vec<T>>>;

/// State shared by the native operations of one installation (one context).
pub(crate) struct State {
    /// The client `fetch()`, the `Request` constructor, `Response.redirect` and blob URLs
    /// use; a server-side one is built at first use when the embedder gave none.
    pub(crate) client: RefCell<Option<whatwg_fetch::Client>>,
    /// The runtime each fetch runs on, if not the engine's own.
    pub(crate) network: Option<tokio::runtime::Handle>,
    /// Where `console` writes.
    pub(crate) console: Rc<ConsoleFn>,
    /// Pending timers by handle; sending cancels one.
    pub(crate) timers: RefCell<HashMap<u32, oneshot::Sender<()>>>,
    /// Rust streams handed to JavaScript, by handle.
    pub(crate) streams: RefCell<HashMap<u32, crate::streams::ByteStream>>,
    /// The last handle given out.
    pub(crate) last_handle: Cell<u32>,
    /// Ids of the signals whose `abort` event the crate fired and the script has not
    /// dispatched yet, in order (see `abort.rs`).
    pub(crate) fired: SharedIds<f64>,
    /// The `cancel()` of each script stream the crate holds and has not read to its end, by
    /// id (see `body.rs`).
    pub(crate) cancels: RefCell<HashMap<u64, Persistent<Function<'static>>>>,
    /// Ids of the script streams the crate dropped before their end, not cancelled yet; a
    /// stream may be dropped on the network runtime's threads.
    pub(crate) dropped: SharedIds<u64>,
    /// Keys of the value table whose last crate error was dropped, on any thread; the table
    /// forgets them at its next insertion (see `error.rs`).
    pub(crate) freed_values: SharedIds<u64>,
}

impl State {
    /// The state for a new installation.
    pub(crate) fn new(
        client: Option<whatwg_fetch::Client>,
        network: Option<tokio::runtime::Handle>,
        console: ConsoleSink,
    ) -> State {
        State {
            client: RefCell::new(client),
            network,
            console: Rc::from(console),
            timers: RefCell::default(),
            streams: RefCell::default(),
            last_handle: Cell::new(0),
            fired: SharedIds::default(),
            cancels: RefCell::default(),
            dropped: SharedIds::default(),
            freed_values: SharedIds::default(),
        }
    }

    /// A new handle for a value kept on the Rust side.
    pub(crate) fn next_handle(&self) -> u32 {
        let h = self.last_handle.get().wrapping_add(1);
        self.last_handle.set(h);
        h
    }
}

/// Takes every id out of a shared list (a poisoned lock still holds the ids).
pub(crate) fn take_ids<T>(ids: &SharedIds<T>) -> Vec<T> {
    let mut guard = ids.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
    std::mem::take(&mut *guard)
}

/// Adds an id to a shared list.
pub(crate) fn push_id<T>(ids: &SharedIds<T>, id: T) {
    ids.lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
        .push(id);
}

/// The state handle the native operations keep.
pub(crate) type SharedState = Rc<State>;

/// Registers `console_log(level, text)`, which hands the text to the console's sink, and
/// `now()`, the milliseconds since installation on a monotonic clock (`performance.now()`).
pub(crate) fn register<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    state: &SharedState,
) -> rquickjs::Result<()> {
    let origin = Instant::now();
    native.set(
        "now",
        Function::new(ctx.clone(), move || origin.elapsed().as_secs_f64() * 1000.0)?,
    )?;
    let sink = state.console.clone();
    native.set(
        "console_log",
        Function::new(ctx.clone(), move |level: String, text: String| {
            sink(ConsoleLevel::from_method(&level), &text);
        })?,
    )?;
    Ok(())
}
