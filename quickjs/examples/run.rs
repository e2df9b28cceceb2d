//! A runtime for one script with `fetch()`: evaluates the file (top-level `await` allowed),
//! reports what it throws, and runs until its promises, timers and fetches are done.
//!
//! `cargo run -p whatwg-fetch-quickjs --example run -- script.js`
use std::process::ExitCode;

use rquickjs::{AsyncContext, AsyncRuntime, Promise, context::EvalOptions};

fn main() -> Result<ExitCode, Box<dyn std::error::Error>> {
    let path = std::env::args().nth(1).ok_or("usage: run SCRIPT.js")?;
    let source = std::fs::read_to_string(&path)?;
    let client = whatwg_fetch::Client::builder().build()?;
    let tokio = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()?;
    tokio.block_on(async {
        let runtime = AsyncRuntime::new()?;
        let context = AsyncContext::full(&runtime).await?;
        whatwg_fetch_quickjs::track_unhandled_rejections(&runtime).await;
        let ok = context
            .async_with(async |ctx| {
                let mut options = EvalOptions::default();
                (options.strict, options.promise, options.filename) = (false, true, Some(path));
                let run = async {
                    whatwg_fetch_quickjs::install(&ctx, client)?;
                    let done: Promise = ctx.eval_with_options(source, options)?;
                    done.into_future::<()>().await
                };
                let outcome = run.await;
                if outcome.is_err() {
                    // An `error` event at the global, then the console, as HTML reports it.
                    let _ = whatwg_fetch_quickjs::report_exception(&ctx, ctx.catch());
                }
                outcome.is_ok()
            })
            .await;
        runtime.idle().await;
        Ok(if ok {
            ExitCode::SUCCESS
        } else {
            ExitCode::FAILURE
        })
    })
}
