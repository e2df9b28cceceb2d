//! Native operations behind `wpt/js/harness.js`: testharness.js results leave the engine here.

use std::io::Write;

use rquickjs::{Ctx, Function, Object};

use super::global::SharedState;

/// The prefix of a stdout line carrying one finished subtest as JSON.
pub const SUBTEST_LINE: &str = "WPT-SUBTEST ";
/// The prefix of the stdout line carrying the completed file as JSON.
pub const COMPLETE_LINE: &str = "WPT-COMPLETE ";

/// Registers `result(json)` (one subtest, printed at once so that a file killed later keeps
/// it) and `complete(json)` (the harness status and every subtest).
pub fn register<'js>(
    ctx: &Ctx<'js>,
    native: &Object<'js>,
    state: &SharedState,
) -> rquickjs::Result<()> {
    native.set(
        "result",
        Function::new(ctx.clone(), |json: String| {
            let mut out = std::io::stdout().lock();
            let _ = writeln!(out, "{SUBTEST_LINE}{json}");
            let _ = out.flush();
        })?,
    )?;
    let state = state.clone();
    native.set(
        "complete",
        Function::new(ctx.clone(), move |json: String| {
            state.complete(json);
        })?,
    )?;
    Ok(())
}
