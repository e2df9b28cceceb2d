//! The child process that runs one test file: QuickJS (rquickjs) on a current-thread tokio
//! runtime, with a dedicated-worker global scope, the way WPT's `.any.worker.js` wrapper runs
//! an `.any.js` file, or a window global scope without a DOM, the way its `.any.html` and
//! `.window.html` wrappers run `.any.js` and `.window.js` files. Every web platform global
//! comes from `whatwg-fetch-quickjs`; this module adds the scope's shape
//! (`wpt/js/worker_scope.js`, `wpt/js/window_scope.js`), loads the scripts, and collects
//! testharness.js's results (`wpt/js/harness.js`).
//!
//! Output protocol (stdout, one line each): `WPT-SUBTEST {json}` per finished subtest as it
//! finishes, then `WPT-COMPLETE {json}` with the harness status and every subtest. Anything
//! else on stdout is ignored by the runner.

pub mod harness;
pub mod http;

use std::cell::Cell;
use std::io::Write;
use std::rc::Rc;
use std::time::{Duration, Instant};

use rquickjs::context::EvalOptions;
use rquickjs::{
    AsyncContext, AsyncRuntime, CatchResultExt, CaughtError, Ctx, Function, Object, Value,
};

use crate::job::{Environment, Job, Scope};
use harness::{COMPLETE_LINE, Harness};

/// The worker global scope's shape, evaluated after the crate's globals.
const WORKER_SCOPE_SCRIPT: (&str, &str) =
    ("worker_scope.js", include_str!("../../js/worker_scope.js"));

/// The window global scope's shape (no DOM), evaluated after the crate's globals.
const WINDOW_SCOPE_SCRIPT: (&str, &str) =
    ("window_scope.js", include_str!("../../js/window_scope.js"));

/// Fires the window's `load` event in a task of its own, once the page's scripts have run:
/// testharness.js completes a window's tests only after it.
const WINDOW_LOAD_SCRIPT: &str = "setTimeout(() => { dispatchEvent(new Event(\"load\")); }, 0);";

/// The script that collects results; runs right after testharness.js.
const HARNESS_SCRIPT: (&str, &str) = ("harness.js", include_str!("../../js/harness.js"));

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

fn load_sources(job: &Job) -> Vec<Source> {
    job.scripts
        .iter()
        .map(|u| Source {
            name: u.clone(),
            text: http::get(u).map(|b| String::from_utf8_lossy(&b).into_owned()),
        })
        .collect()
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
    if whatwg_fetch_quickjs::report_exception(ctx, error).is_err() {
        let e = ctx.catch();
        eprintln!("could not report an exception: {e:?}");
    }
}

fn fail_harness(message: &str) -> String {
    serde_json::json!({ "status": "ERROR", "message": message, "stack": null, "subtests": [] })
        .to_string()
}

async fn run(job: Job) -> i32 {
    let deadline = Instant::now() + Duration::from_millis(job.timeout_ms);
    let scripts = load_sources(&job);
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

    let state = Rc::new(Harness::default());
    let client = match build_client(&job) {
        Ok(client) => client,
        Err(e) => {
            println!("{COMPLETE_LINE}{}", fail_harness(&e));
            return 0;
        }
    };
    if let Err(e) = load_page(&client, &job).await {
        println!("{COMPLETE_LINE}{}", fail_harness(&e));
        return 0;
    }
    whatwg_fetch_quickjs::track_unhandled_rejections(&rt).await;

    let state2 = state.clone();
    let job2 = job.clone();
    context
        .with(move |ctx| {
            if let Err(e) = install_globals(
                &ctx,
                &state2,
                client,
                job2.scope,
                &job2.location,
                job2.title.as_deref(),
            ) {
                state2.complete(fail_harness(&e));
                return;
            }
            // testharness.js, then the collector, then the META scripts and the test file. In a
            // worker, then done(): all synchronously, with no microtask checkpoint in between,
            // as importScripts() runs them. In a window, each is a <script> element of the page:
            // a microtask checkpoint after each, then the `load` event in a task.
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
            let (hname, htext) = HARNESS_SCRIPT;
            if let Err(e) = eval_script(&ctx, hname, htext) {
                state2.complete(fail_harness(&format!("{hname}: {e}")));
                return;
            }
            if remove_natives(&ctx).is_err() {
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
                match job2.scope {
                    Scope::Worker => {
                        if let Err(error) = outcome {
                            report_exception(&ctx, error);
                            return;
                        }
                    }
                    Scope::Window => {
                        // A <script> that fails reports its exception; the page goes on.
                        if let Err(error) = outcome {
                            report_exception(&ctx, error);
                        }
                        while ctx.execute_pending_job() {}
                    }
                }
            }
            let finish = match job2.scope {
                Scope::Worker => ctx
                    .globals()
                    .get::<_, Function>("done")
                    .and_then(|f| f.call::<_, ()>(())),
                Scope::Window => ctx.eval::<(), _>(WINDOW_LOAD_SCRIPT),
            };
            if finish.is_err() {
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

/// The test page's fetch client. In the browser environment its origin and base URL are the
/// test's (`location`, https for `.https.` files); in the server environment it is the
/// crate's default, server-side client, with `location` as its base URL only (no origin, so no
/// CORS, no forbidden headers, and cookies and the HTTP cache off by default). Either way
/// every suite host name resolves to the local server ([`crate::server::resolves_to_server`]),
/// and the test CA is trusted.
/// The page (or worker script) of a test served over HTTP/2, fetched with the test's
/// `client` as a browser loads it before the test runs: its connection then stays open in
/// the client's pool, as the browser's does, and what the test opens to the same origin
/// shares it (a `?wpt_flags=h2` WebSocket runs on a stream of it, RFC 8441, as in a
/// browser). The test's scripts themselves come from [`load_sources`]. Other pages are not
/// fetched: nothing of their tests depends on a connection left open.
///
/// # Errors
/// The page does not load.
async fn load_page(client: &whatwg_fetch::Client, job: &Job) -> Result<(), String> {
    let location = url::Url::parse(&job.location).map_err(|e| format!("{}: {e}", job.location))?;
    if location.port() != Some(crate::server::H2_PORT) {
        return Ok(());
    }
    let page = async {
        let mut response = client.get(location.as_str()).send().await?;
        response.bytes().await
    };
    page.await
        .map(drop)
        .map_err(|e| format!("cannot load the page {location} over HTTP/2: {e:#}"))
}

fn build_client(job: &Job) -> Result<whatwg_fetch::Client, String> {
    use whatwg_fetch::environment::Environment as FetchEnvironment;
    let location = url::Url::parse(&job.location).map_err(|e| format!("{}: {e}", job.location))?;
    let local = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let environment = match job.environment {
        Environment::Browser => FetchEnvironment::browser(location),
        Environment::Server => FetchEnvironment::server().with_base_url(location),
    };
    let mut builder = whatwg_fetch::Client::builder()
        .environment(environment)
        .resolve_with(move |host| crate::server::resolves_to_server(host).then(|| vec![local]));
    if let Some(ca) = &job.ca_cert {
        let pem = std::fs::read(ca).map_err(|e| format!("{}: {e}", ca.display()))?;
        builder = builder.add_root_certificates_pem(pem);
    }
    builder
        .build()
        .map_err(|e| format!("cannot build the fetch client: {e}"))
}

/// Installs the globals in `ctx` (before testharness.js): everything of
/// `whatwg-fetch-quickjs` with the test's `client` and the console on stderr (stdout carries
/// the results), then the `scope`'s shape; `__wpt_native` (the harness's operations)
/// and `__wpt_job` stay until [`remove_natives`].
///
/// # Errors
/// A global that fails to install, with the exception.
pub fn install_globals(
    ctx: &Ctx<'_>,
    harness: &Rc<Harness>,
    client: whatwg_fetch::Client,
    scope: Scope,
    location: &str,
    title: Option<&str>,
) -> Result<(), String> {
    whatwg_fetch_quickjs::Globals::new(client)
        .console(|_, text| eprintln!("{text}"))
        .install(ctx)
        .catch(ctx)
        .map_err(|e| format!("cannot install the globals: {e}"))?;
    let setup = (|| -> rquickjs::Result<()> {
        let j = Object::new(ctx.clone())?;
        j.set("location", location)?;
        j.set("title", title)?;
        ctx.globals().set("__wpt_job", j)?;
        let native = Object::new(ctx.clone())?;
        harness::register(ctx, &native, harness)?;
        ctx.globals().set("__wpt_native", native)
    })();
    if setup.is_err() {
        let e = ctx.catch();
        return Err(format!("cannot install the globals: {e:?}"));
    }
    let (name, text) = match scope {
        Scope::Worker => WORKER_SCOPE_SCRIPT,
        Scope::Window => WINDOW_SCOPE_SCRIPT,
    };
    eval_script(ctx, name, text).map_err(|e| format!("{name}: {e}"))
}

/// Removes the temporary objects the runner's scripts read while they ran.
fn remove_natives(ctx: &Ctx<'_>) -> rquickjs::Result<()> {
    let globals = ctx.globals();
    globals.remove("__wpt_native")?;
    globals.remove("__wpt_job")?;
    Ok(())
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

#[cfg(test)]
mod tests {
    //! The worker scope over the crate's globals, in a real engine but without the server.

    use super::*;
    use crate::results;

    /// Runs `script` in a fresh worker scope, drives the event loop until idle, and returns
    /// `globalThis.result` as JSON.
    fn run_js(script: &'static str) -> String {
        run_js_in(
            Scope::Worker,
            "http://web-platform.test:8000/a/b.any.worker.js?x=1",
            script,
        )
    }

    /// Runs `script` in a fresh `scope` at `location`, drives the event loop until idle, and
    /// returns `globalThis.result` as JSON.
    fn run_js_in(scope: Scope, location: &'static str, script: &'static str) -> String {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let local = tokio::task::LocalSet::new();
        local.block_on(&rt, async move {
            let rt = AsyncRuntime::new().unwrap();
            let context = AsyncContext::full(&rt).await.unwrap();
            whatwg_fetch_quickjs::track_unhandled_rejections(&rt).await;
            let harness = Rc::new(Harness::default());
            let client = whatwg_fetch::Client::builder().build().unwrap();
            context
                .with(|ctx| {
                    install_globals(&ctx, &harness, client, scope, location, Some("T")).unwrap();
                    remove_natives(&ctx).unwrap();
                    if let Err(e) = eval_script(&ctx, "test.js", script) {
                        panic!("test.js: {e}");
                    }
                    if scope == Scope::Window {
                        ctx.eval::<(), _>(WINDOW_LOAD_SCRIPT).unwrap();
                    }
                })
                .await;
            tokio::time::timeout(Duration::from_secs(5), rt.idle())
                .await
                .unwrap();
            context
                .with(|ctx| {
                    ctx.eval::<String, _>("JSON.stringify(globalThis.result)")
                        .unwrap()
                })
                .await
        })
    }

    /// Evaluates `wpt/js/harness.js` over stub testharness callbacks, runs `script` (which
    /// calls `cb.result(test)` and `cb.complete(tests, status)`), and returns the stdout lines
    /// the collector wrote.
    fn collector_lines(script: &str) -> String {
        let rt = rquickjs::Runtime::new().unwrap();
        let context = rquickjs::Context::full(&rt).unwrap();
        context.with(|ctx| {
            ctx.eval::<(), _>(
                "globalThis.cb = {}; globalThis.lines = []; \
                 globalThis.add_result_callback = f => { cb.result = f; }; \
                 globalThis.add_completion_callback = f => { cb.complete = f; }; \
                 globalThis.__wpt_native = { \
                   result: j => lines.push('WPT-SUBTEST ' + j), \
                   complete: j => lines.push('WPT-COMPLETE ' + j) };",
            )
            .unwrap();
            let (name, text) = HARNESS_SCRIPT;
            if let Err(e) = eval_script(&ctx, name, text) {
                panic!("{name}: {e}");
            }
            if let Err(e) = eval_script(&ctx, "test.js", script) {
                panic!("test.js: {e}");
            }
            ctx.eval::<String, _>("lines.join('\\n')").unwrap()
        })
    }

    #[test]
    fn streamed_subtests_with_unpaired_surrogates_keep_the_names_testharness_completes_with() {
        // testharness.js renames `\uDEAD` to `U+dead` in every test name when it completes;
        // the results streamed before that carry the same names, so a file killed before it
        // completes keeps these subtests, under the names a completed run gives them.
        let streamed = collector_lines(
            "cb.result({ name: 'input \\uDEAD', status: 0, message: null }); \
             cb.result({ name: 'input \\uDF06\\uD834', status: 1, message: 'got \\uD800' }); \
             cb.result({ name: 'input \\uD834\\uDF06', status: 0, message: null });",
        );
        let killed = results::from_child_output(
            "x.any.js",
            "x.any.js",
            crate::job::Scope::Worker,
            &streamed,
            "",
            true,
            1,
        );
        let names: Vec<&str> = killed.subtests.iter().map(|s| s.name.as_str()).collect();
        let expected = ["input U+dead", "input U+df06U+d834", "input \u{1d306}"];
        assert_eq!(names, expected);
        assert_eq!(killed.subtests[1].message.as_deref(), Some("got U+d800"));

        let completed = collector_lines(
            "cb.complete([{ name: 'input U+dead', status: 0 }, \
               { name: 'input U+df06U+d834', status: 1, message: 'got U+d800' }, \
               { name: 'input \\uD834\\uDF06', status: 0 }], \
               { status: 1, message: 'uncaught \\uDBFF', stack: null });",
        );
        let done = results::from_child_output(
            "x.any.js",
            "x.any.js",
            crate::job::Scope::Worker,
            &completed,
            "",
            false,
            1,
        );
        assert_eq!(done.harness, "ERROR");
        assert_eq!(done.message.as_deref(), Some("uncaught U+dbff"));
        let names: Vec<&str> = done.subtests.iter().map(|s| s.name.as_str()).collect();
        assert_eq!(names, expected);
    }

    #[test]
    fn worker_scope_shape() {
        let r = run_js(
            "class Headersless { toString() { return Object.prototype.toString.call(this); } } \
             __fetch_interface(Headersless); \
             result = [self === globalThis, self instanceof DedicatedWorkerGlobalScope, \
             self instanceof WorkerGlobalScope, self instanceof EventTarget, GLOBAL.isWorker(), \
             location.pathname, location.search, location.protocol, typeof __wpt_native, \
             Object.getOwnPropertyDescriptor(self, 'URL').enumerable, performance.now() > 0, \
             Object.getOwnPropertyDescriptor(EventTarget.prototype, 'addEventListener').enumerable, \
             Object.getOwnPropertyDescriptor(URL.prototype, 'href').enumerable, String(new Headersless()), \
             Object.hasOwn(self, 'fetch'), Object.hasOwn(WorkerGlobalScope.prototype, 'fetch'), \
             typeof ReadableStream, typeof __wpt_job];",
        );
        assert_eq!(
            r,
            r#"[true,true,true,true,true,"/a/b.any.worker.js","?x=1","http:","undefined",false,true,true,true,"[object Headersless]",false,true,"function","undefined"]"#
        );
    }

    #[test]
    fn window_scope_shape_has_no_dom_and_no_worker_globals() {
        let r = run_js_in(
            Scope::Window,
            "http://web-platform.test:8000/a/b.any.html?x=1",
            "result = [self === globalThis, window === self, parent === self, top === self, \
             opener, globalThis instanceof Window, globalThis instanceof EventTarget, \
             String(globalThis), GLOBAL.isWindow(), GLOBAL.isWorker(), \
             typeof WorkerGlobalScope, typeof importScripts, typeof postMessage, \
             'document' in self, document.readyState, document.getElementsByTagName('meta').length, \
             document.getElementById('log'), typeof document.createElement, \
             location.pathname, location.search, document.URL, META_TITLE, \
             Object.hasOwn(self, 'fetch'), typeof Window];",
        );
        assert_eq!(
            r,
            r#"[true,true,true,true,null,true,true,"[object Window]",true,false,"undefined","undefined","undefined",true,"complete",0,null,"undefined","/a/b.any.html","?x=1","http://web-platform.test:8000/a/b.any.html?x=1","T",true,"function"]"#
        );
    }

    #[test]
    fn the_window_load_event_reaches_listeners_on_the_global() {
        let r = run_js_in(
            Scope::Window,
            "http://web-platform.test:8000/a/b.window.html",
            "result = []; addEventListener('load', e => result.push(e.type, e.target === self));",
        );
        assert_eq!(r, r#"["load",true]"#);
    }
}
