//! Native operations behind `wpt/js/harness.js`: testharness.js results leave the engine here.

use std::cell::RefCell;
use std::io::Write;
use std::rc::Rc;

use rquickjs::{Ctx, Function, Object};
use tokio::sync::Notify;

/// The prefix of a stdout line carrying one finished subtest as JSON.
pub const SUBTEST_LINE: &str = "WPT-SUBTEST ";
/// The prefix of the stdout line carrying the completed file as JSON.
pub const COMPLETE_LINE: &str = "WPT-COMPLETE ";

/// What the event loop learns from testharness.js.
#[derive(Default)]
pub struct Harness {
    /// The completion record (JSON) once testharness.js has completed.
    pub completion: RefCell<Option<String>>,
    /// Notified when `completion` is set.
    pub completed: Notify,
}

impl Harness {
    /// Records the completion JSON and wakes the event loop.
    pub fn complete(&self, json: String) {
        let mut c = self.completion.borrow_mut();
        if c.is_none() {
            *c = Some(json);
            self.completed.notify_one();
        }
    }
}

/// Registers `result(json)` (one subtest, printed at once so that a file killed later keeps
/// it) and `complete(json)` (the harness status and every subtest) on `native`.
pub fn register<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    harness: &Rc<Harness>,
) -> rquickjs::Result<()> {
    native.set(
        "result",
        Function::new(ctx.clone(), |json: String| {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{SUBTEST_LINE}{json}");
            let _ = out.flush();
        })?,
    )?;
    let harness = harness.clone();
    native.set(
        "complete",
        Function::new(ctx.clone(), move |json: String| {
            harness.complete(json);
        })?,
    )?;
    Ok(())
}
