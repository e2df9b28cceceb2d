//! The worker global scope's native side (`wpt/js/global.js`): the state the event loop
//! shares with the bindings, and `console`.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::rc::Rc;
use std::time::Instant;

use rquickjs::{Ctx, Function, Object};
use tokio::sync::{Notify, oneshot};

/// State shared by the bindings and the event loop of one test file.
#[derive(Default)]
pub struct State {
    /// Pending timers by handle; sending cancels one.
    pub timers: RefCell<HashMap<u32, oneshot::Sender<()>>>,
    /// The completion record (JSON) once testharness.js has completed.
    pub completion: RefCell<Option<String>>,
    /// Notified when `completion` is set.
    pub completed: Notify,
    /// Rust streams handed to JavaScript, by handle.
    pub streams: RefCell<HashMap<u32, super::streams::ByteStream>>,
    /// The last handle given out.
    pub last_handle: Cell<u32>,
    /// The client `fetch()` and the `Request` constructor use: the test page's environment.
    pub client: RefCell<Option<whatwg_fetch::Client>>,
}

impl State {
    /// A new handle for a value kept on the Rust side.
    pub fn next_handle(&self) -> u32 {
        let h = self.last_handle.get().wrapping_add(1);
        self.last_handle.set(h);
        h
    }

    /// Records the completion JSON and wakes the event loop.
    pub fn complete(&self, json: String) {
        let mut c = self.completion.borrow_mut();
        if c.is_none() {
            *c = Some(json);
            self.completed.notify_one();
        }
    }
}

/// The state handle the bindings keep.
pub type SharedState = Rc<State>;

/// Registers `console_log(text)`, which writes to stderr, and `now()`, the milliseconds since
/// the global was created on a monotonic clock (`performance.now()`).
pub fn register<'js>(ctx: &Ctx<'js>, native: &Object<'js>) -> rquickjs::Result<()> {
    let origin = Instant::now();
    native.set(
        "now",
        Function::new(ctx.clone(), move || origin.elapsed().as_secs_f64() * 1000.0)?,
    )?;
    native.set(
        "console_log",
        Function::new(ctx.clone(), |text: String| {
            eprintln!("{text}");
        })?,
    )?;
    Ok(())
}
