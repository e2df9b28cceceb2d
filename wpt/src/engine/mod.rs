//! The child process that runs one test file: QuickJS (rquickjs) on a current-thread tokio
//! runtime, with a dedicated-worker global scope, the way WPT's `.any.worker.js` wrapper runs
//! an `.any.js` file.
//!
//! Output protocol (stdout, one line each): `WPT-SUBTEST {json}` per finished subtest as it
//! finishes, then `WPT-COMPLETE {json}` with the harness status and every subtest. Anything
//! else on stdout is ignored by the runner.

pub mod http;

use std::cell::{Cell, RefCell};
use std::io::Write;
use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::context::EvalOptions;
use rquickjs::{
    AsyncContext, AsyncRuntime, CatchResultExt, CaughtError, Ctx, Function, Object, Persistent,
    Value,
};

use crate::bindings::{self, global::State, harness::COMPLETE_LINE};
use crate::job::Job;

/// How long the harness gets to report after `timeout()` is called at the deadline.
const GRACE: Duration = Duration::from_secs(2);

/// Runs `job` and exits the process; never returns.
pub fn run_one(job: Job) -> ! {
    let code = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => {
            let local = tokio::task::LocalSet::new();
            local.block_on(&rt, run(job))
        }
        Err(e) => {
            eprintln!("cannot start the runtime: {e}");
            3
        }
    };
    let _ = std::io::stdout().flush();
    // Exit without tearing the JS runtime down.
    std::process::exit(code)
}

/// A script to evaluate: its URL (for stack traces) and source, or why it did not load.
struct Source {
    name: String,
    text: Result<String, String>,
}

fn load_sources(job: &Job) -> (Vec<Source>, Vec<Source>) {
    let polyfills = job
        .polyfills
        .iter()
        .map(|p| Source {
            name: p.display().to_string(),
            text: std::fs::read_to_string(p)
                .map_err(|e| format!("{}: {e} (run wpt/setup.sh)", p.display())),
        })
        .collect();
    let scripts = job
        .scripts
        .iter()
        .map(|u| Source {
            name: u.clone(),
            text: http::get(u).map(|b| String::from_utf8_lossy(&b).into_owned()),
        })
        .collect();
    (polyfills, scripts)
}

fn eval_script<'js>(ctx: &Ctx<'js>, name: &str, text: &str) -> Result<(), CaughtError<'js>> {
    let mut opts = EvalOptions::default();
    opts.global = true;
    opts.strict = false;
    opts.filename = Some(name.to_owned());
    ctx.eval_with_options::<(), _>(text, opts).catch(ctx)
}

fn caught_to_value<'js>(ctx: &Ctx<'js>, e: CaughtError<'js>) -> Value<'js> {
    match e {
        CaughtError::Exception(e) => e.into_value(),
        CaughtError::Value(v) => v,
        CaughtError::Error(e) => rquickjs::String::from_str(ctx.clone(), &e.to_string())
            .map(|s| s.into_value())
            .unwrap_or_else(|_| Value::new_undefined(ctx.clone())),
    }
}

/// Reports an exception as HTML's "report an exception" does: an `error` event at the global.
fn report_exception<'js>(ctx: &Ctx<'js>, error: Value<'js>) {
    let reported = ctx
        .globals()
        .get::<_, Function>("__wpt_report_exception")
        .and_then(|f| f.call::<_, ()>((error,)));
    if reported.is_err() {
        let e = ctx.catch();
        eprintln!("could not report an exception: {e:?}");
    }
}

fn fail_harness(message: &str) -> String {
    serde_json::json!({ "status": "ERROR", "message": message, "stack": null, "subtests": [] })
        .to_string()
}

/// A promise rejection the engine told us about, kept until the microtask queue is empty.
type Rejection = (Persistent<Value<'static>>, Persistent<Value<'static>>, bool);

async fn run(job: Job) -> i32 {
    let deadline = Instant::now() + Duration::from_millis(job.timeout_ms);
    let (polyfills, scripts) = load_sources(&job);
    if let Some(Err(e)) = polyfills
        .iter()
        .map(|s| s.text.as_ref().map(|_| ()))
        .find(Result::is_err)
    {
        println!("{COMPLETE_LINE}{}", fail_harness(e));
        return 0;
    }
    if let Some(Source { text: Err(e), .. }) = scripts.first() {
        println!(
            "{COMPLETE_LINE}{}",
            fail_harness(&format!("cannot load testharness.js: {e}"))
        );
        return 0;
    }

    let Ok(rt) = AsyncRuntime::new() else {
        println!(
            "{COMPLETE_LINE}{}",
            fail_harness("cannot create the JS runtime")
        );
        return 0;
    };
    rt.set_memory_limit(1 << 30).await;
    rt.set_max_stack_size(4 << 20).await;
    let Ok(context) = AsyncContext::full(&rt).await else {
        println!(
            "{COMPLETE_LINE}{}",
            fail_harness("cannot create the JS context")
        );
        return 0;
    };

    // Interrupt a runaway script once the deadline (and later the grace period) has passed.
    let interrupt_at = Rc::new(Cell::new(deadline));
    let at = interrupt_at.clone();
    rt.set_interrupt_handler(Some(Box::new(move || Instant::now() >= at.get())))
        .await;

    // Unhandled rejections become `unhandledrejection` events once the microtask queue is
    // empty (https://html.spec.whatwg.org/multipage/webappapis.html#unhandled-promise-rejections).
    let state = Rc::new(State::default());
    let rejections: Rc<RefCell<Vec<Rejection>>> = Rc::default();
    let flush_scheduled = Rc::new(Cell::new(false));
    {
        let rejections = rejections.clone();
        let flush_scheduled = flush_scheduled.clone();
        rt.set_host_promise_rejection_tracker(Some(Box::new(
            move |ctx, promise, reason, handled| {
                rejections.borrow_mut().push((
                    Persistent::save(&ctx, promise),
                    Persistent::save(&ctx, reason),
                    handled,
                ));
                if flush_scheduled.replace(true) {
                    return;
                }
                let rejections = rejections.clone();
                let flush_scheduled = flush_scheduled.clone();
                let ctx2 = ctx.clone();
                // A spawned task first runs once the job queue is empty.
                ctx.spawn(async move {
                    flush_scheduled.set(false);
                    let batch: Vec<Rejection> = rejections.borrow_mut().drain(..).collect();
                    let Ok(list) = rquickjs::Array::new(ctx2.clone()) else {
                        return;
                    };
                    for (i, (p, r, h)) in batch.into_iter().enumerate() {
                        let (Ok(p), Ok(r)) = (p.restore(&ctx2), r.restore(&ctx2)) else {
                            continue;
                        };
                        let Ok(entry) = rquickjs::Array::new(ctx2.clone()) else {
                            return;
                        };
                        let _ = entry.set(0, p);
                        let _ = entry.set(1, r);
                        let _ = entry.set(2, h);
                        let _ = list.set(i, entry);
                    }
                    let dispatched = ctx2
                        .globals()
                        .get::<_, Function>("__wpt_dispatch_rejections")
                        .and_then(|f| f.call::<_, ()>((list,)));
                    if dispatched.is_err() {
                        let _ = ctx2.catch();
                    }
                });
            },
        )))
        .await;
    }

    let state2 = state.clone();
    let job2 = job.clone();
    context
        .with(move |ctx| {
            let setup = (|| -> rquickjs::Result<()> {
                let j = Object::new(ctx.clone())?;
                j.set("location", job2.location.as_str())?;
                j.set("title", job2.title.clone())?;
                ctx.globals().set("__wpt_job", j)?;
                bindings::register_natives(&ctx, &state2)
            })();
            if setup.is_err() {
                let e = ctx.catch();
                state2.complete(fail_harness(&format!("cannot install the globals: {e:?}")));
                return;
            }
            for (name, text) in bindings::SCRIPTS {
                if let Err(e) = eval_script(&ctx, name, text) {
                    state2.complete(fail_harness(&format!("{name}: {e}")));
                    return;
                }
            }
            for s in &polyfills {
                if let (name, Ok(text)) = (&s.name, &s.text) {
                    if let Err(e) = eval_script(&ctx, name, text) {
                        state2.complete(fail_harness(&format!("{name}: {e}")));
                        return;
                    }
                }
            }
            // testharness.js, then the collector, then the META scripts and the test file, then
            // done(): all synchronously, with no microtask checkpoint in between.
            let mut scripts = scripts.iter();
            if let Some(Source {
                name,
                text: Ok(text),
            }) = scripts.next()
            {
                if let Err(e) = eval_script(&ctx, name, text) {
                    state2.complete(fail_harness(&format!("testharness.js: {e}")));
                    return;
                }
            }
            let (hname, htext) = bindings::HARNESS_SCRIPT;
            if let Err(e) = eval_script(&ctx, hname, htext) {
                state2.complete(fail_harness(&format!("{hname}: {e}")));
                return;
            }
            if bindings::remove_natives(&ctx).is_err() {
                let _ = ctx.catch();
            }
            for s in scripts {
                let outcome = match &s.text {
                    Ok(text) => {
                        eval_script(&ctx, &s.name, text).map_err(|e| caught_to_value(&ctx, e))
                    }
                    // importScripts() throws a "NetworkError" DOMException for a failed load.
                    Err(why) => Err(network_error(&ctx, why)),
                };
                if let Err(error) = outcome {
                    report_exception(&ctx, error);
                    return;
                }
            }
            let done = ctx
                .globals()
                .get::<_, Function>("done")
                .and_then(|f| f.call::<_, ()>(()));
            if done.is_err() {
                let e = ctx.catch();
                report_exception(&ctx, e);
            }
        })
        .await;

    // The event loop: run jobs, timers and tasks until the harness completes, everything is
    // idle (the tests wait on something that will never happen), or the deadline passes.
    tokio::select! {
        _ = rt.idle() => {}
        _ = state.completed.notified() => {}
        _ = tokio::time::sleep_until(deadline.into()) => {}
    }
    if state.completion.borrow().is_none() {
        interrupt_at.set(Instant::now() + GRACE);
        context
            .with(|ctx| {
                let called = ctx
                    .globals()
                    .get::<_, Function>("timeout")
                    .and_then(|f| f.call::<_, ()>(()));
                if called.is_err() {
                    let _ = ctx.catch();
                }
            })
            .await;
        tokio::select! {
            _ = rt.idle() => {}
            _ = state.completed.notified() => {}
            _ = tokio::time::sleep(GRACE) => {}
        }
    }
    let completion = state.completion.borrow_mut().take();
    match completion {
        Some(json) => println!("{COMPLETE_LINE}{json}"),
        None => println!(
            "{COMPLETE_LINE}{}",
            serde_json::json!({ "status": "TIMEOUT", "message": "the harness did not complete after timeout()", "stack": null, "subtests": null })
        ),
    }
    0
}

fn network_error<'js>(ctx: &Ctx<'js>, why: &str) -> Value<'js> {
    let made = ctx
        .globals()
        .get::<_, rquickjs::function::Constructor>("DOMException")
        .and_then(|c| {
            c.construct::<_, Value>((format!("Failed to load script: {why}"), "NetworkError"))
        });
    match made {
        Ok(v) => v,
        Err(_) => ctx.catch(),
    }
}
