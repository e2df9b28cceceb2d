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

use crate::bindings::{self, global::SharedState, global::State, harness::COMPLETE_LINE};
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

    let state = Rc::new(State::default());
    match build_client(&job) {
        Ok(client) => *state.client.borrow_mut() = Some(client),
        Err(e) => {
            println!("{COMPLETE_LINE}{}", fail_harness(&e));
            return 0;
        }
    }
    track_rejections(&rt).await;

    let state2 = state.clone();
    let job2 = job.clone();
    context
        .with(move |ctx| {
            if let Err(e) = install_globals(&ctx, &state2, &job2.location, job2.title.as_deref()) {
                state2.complete(fail_harness(&e));
                return;
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

/// The test page's fetch client: its origin and base URL are the test's (`location`, https
/// for `.https.` files), every suite host name resolves to the local server
/// ([`crate::server::resolves_to_server`]), and the test CA is trusted.
fn build_client(job: &Job) -> Result<whatwg_fetch::Client, String> {
    let location = url::Url::parse(&job.location).map_err(|e| format!("{}: {e}", job.location))?;
    let local = std::net::SocketAddr::from(([127, 0, 0, 1], 0));
    let mut builder = whatwg_fetch::Client::builder()
        .origin(location)
        .resolve_with(move |host| crate::server::resolves_to_server(host).then(|| vec![local]));
    if let Some(ca) = &job.ca_cert {
        let pem = std::fs::read(ca).map_err(|e| format!("{}: {e}", ca.display()))?;
        builder = builder.add_root_certificates_pem(pem);
    }
    builder
        .build()
        .map_err(|e| format!("cannot build the fetch client: {e}"))
}

/// Unhandled rejections become `unhandledrejection` events once the microtask queue is empty
/// (<https://html.spec.whatwg.org/multipage/webappapis.html#unhandled-promise-rejections>).
async fn track_rejections(rt: &AsyncRuntime) {
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
}

/// Installs the worker global scope and every binding in `ctx` (before the streams
/// implementation and testharness.js); `__wpt_native` stays until [`bindings::remove_natives`].
///
/// # Errors
/// A binding that fails to install, with the exception.
pub fn install_globals(
    ctx: &Ctx<'_>,
    state: &SharedState,
    location: &str,
    title: Option<&str>,
) -> Result<(), String> {
    let setup = (|| -> rquickjs::Result<()> {
        let j = Object::new(ctx.clone())?;
        j.set("location", location)?;
        j.set("title", title)?;
        ctx.globals().set("__wpt_job", j)?;
        bindings::register_natives(ctx, state)
    })();
    if setup.is_err() {
        let e = ctx.catch();
        return Err(format!("cannot install the globals: {e:?}"));
    }
    for (name, text) in bindings::SCRIPTS {
        eval_script(ctx, name, text).map_err(|e| format!("{name}: {e}"))?;
    }
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
    //! The globals and the shared binding helpers, in a real engine but without the server.

    use super::*;
    use crate::bindings::{error, promise, streams};
    use bytes::Bytes;
    use futures_util::StreamExt;
    use whatwg_fetch::{Error, ErrorKind};

    /// Runs `script` in a fresh global scope, drives the event loop until idle, and returns
    /// `globalThis.result` as JSON.
    fn run_js(
        script: &'static str,
        native: impl for<'js> FnOnce(&Ctx<'js>, &SharedState) + 'static,
    ) -> String {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let local = tokio::task::LocalSet::new();
        local.block_on(&rt, async move {
            let rt = AsyncRuntime::new().unwrap();
            let context = AsyncContext::full(&rt).await.unwrap();
            track_rejections(&rt).await;
            let state: SharedState = Rc::new(State::default());
            context
                .with(|ctx| {
                    install_globals(
                        &ctx,
                        &state,
                        "http://web-platform.test:8000/a/b.any.worker.js?x=1",
                        None,
                    )
                    .unwrap();
                    native(&ctx, &state);
                    bindings::remove_natives(&ctx).unwrap();
                    if let Err(e) = eval_script(&ctx, "test.js", script) {
                        panic!("test.js: {e}");
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

    #[test]
    fn worker_scope_shape() {
        let r = run_js(
            "class Headersless { toString() { return Object.prototype.toString.call(this); } } \
             __wpt_interface(Headersless); \
             result = [self === globalThis, self instanceof DedicatedWorkerGlobalScope, \
             self instanceof WorkerGlobalScope, self instanceof EventTarget, GLOBAL.isWorker(), \
             location.pathname, location.search, location.protocol, typeof __wpt_native, \
             Object.getOwnPropertyDescriptor(self, 'URL').enumerable, performance.now() > 0, \
             Object.getOwnPropertyDescriptor(EventTarget.prototype, 'addEventListener').enumerable, \
             Object.getOwnPropertyDescriptor(URL.prototype, 'href').enumerable, String(new Headersless())];",
            |_, _| {},
        );
        assert_eq!(
            r,
            r#"[true,true,true,true,true,"/a/b.any.worker.js","?x=1","http:","undefined",false,true,true,true,"[object Headersless]"]"#
        );
    }

    #[test]
    fn crate_errors_map_to_the_exception_their_kind_names() {
        let r = run_js(
            "try { thrower(); } catch (e) { errors.push(e); } \
             if (back !== reason) throw new Error('abort reason lost its identity'); \
             result = errors.map(e => [e instanceof DOMException, e instanceof TypeError, \
             e instanceof RangeError, e.name, e.code ?? null]);",
            |ctx, _| {
                let errs = rquickjs::Array::new(ctx.clone()).unwrap();
                let kinds = [
                    Error::type_error("bad header"),
                    Error::range_error("status 600"),
                    Error::new(ErrorKind::AbortError, "aborted"),
                    Error::new(ErrorKind::TimeoutError, "timed out"),
                    Error::new(ErrorKind::SyntaxError, "not JSON"),
                ];
                for (i, e) in kinds.iter().enumerate() {
                    errs.set(i, error::to_value(ctx, e).unwrap()).unwrap();
                }
                ctx.globals().set("errors", errs).unwrap();
                let thrower = Function::new(ctx.clone(), |ctx: Ctx<'_>| -> rquickjs::Result<()> {
                    Err(error::throw(
                        &ctx,
                        &Error::new(ErrorKind::NotSupportedError, "no"),
                    ))
                })
                .unwrap();
                ctx.globals().set("thrower", thrower).unwrap();
                // An abort reason travels through a crate error and comes back as itself.
                let reason: Value = ctx.eval("globalThis.reason = { why: 'mine' }").unwrap();
                let carried = error::custom(ctx, reason).unwrap();
                let back = error::to_value(ctx, &carried.clone()).unwrap();
                ctx.globals().set("back", back).unwrap();
            },
        );
        assert_eq!(
            r,
            r#"[[false,true,false,"TypeError",null],[false,false,true,"RangeError",null],[true,false,false,"AbortError",20],[true,false,false,"TimeoutError",23],[false,false,false,"SyntaxError",null],[true,false,false,"NotSupportedError",9]]"#
        );
    }

    #[test]
    fn futures_become_promises_settled_as_tasks() {
        let r = run_js(
            "result = []; ok.then(v => result.push(['ok', v])); \
             bad.catch(e => result.push(['bad', e.name, e instanceof DOMException])); \
             Promise.resolve().then(() => result.push('microtask first'));",
            |ctx, _| {
                let ok = promise::future_to_promise(ctx, async { Ok::<_, Error>(42) }).unwrap();
                let bad = promise::future_to_promise(ctx, async {
                    tokio::time::sleep(Duration::from_millis(5)).await;
                    Err::<u32, _>(Error::new(ErrorKind::AbortError, "stop"))
                })
                .unwrap();
                ctx.globals().set("ok", ok).unwrap();
                ctx.globals().set("bad", bad).unwrap();
            },
        );
        assert_eq!(
            r,
            r#"["microtask first",["ok",42],["bad","AbortError",true]]"#
        );
    }

    #[test]
    fn timers_run_as_tasks_in_order_and_clear() {
        let r = run_js(
            "result = []; setTimeout(() => result.push('t250'), 250); \
             const c = setTimeout(() => result.push('cleared'), 0); clearTimeout(c); \
             clearTimeout(null); clearTimeout(undefined); \
             setTimeout(() => result.push('t0'), null); \
             let n = 0; const i = setInterval(() => { result.push('i' + n); if (++n == 2) clearInterval(i); }, 1); \
             queueMicrotask(() => result.push('micro'));",
            |_, _| {},
        );
        let v: Vec<String> = serde_json::from_str(&r).unwrap();
        assert_eq!(v.first().map(String::as_str), Some("micro"));
        assert!(!v.contains(&"cleared".to_owned()));
        assert_eq!(v.iter().filter(|s| s.starts_with('i')).count(), 2);
        assert_eq!(v.last().map(String::as_str), Some("t250"));
    }

    #[test]
    fn errors_and_rejections_reach_global_listeners() {
        let r = run_js(
            "result = []; addEventListener('error', e => result.push(['error', e.message])); \
             addEventListener('unhandledrejection', e => result.push(['rejection', e.reason.message])); \
             setTimeout(() => { throw new TypeError('from a timer'); }, 0); \
             Promise.reject(new Error('nobody handles this')); \
             const handled = Promise.reject(new Error('handled')); handled.catch(() => {});",
            |_, _| {},
        );
        assert_eq!(
            r,
            r#"[["rejection","nobody handles this"],["error","from a timer"]]"#
        );
    }

    #[test]
    fn url_encoding_and_events_globals() {
        let r = run_js(
            "function cloned() { const o = { a: [1, new Map([[1, new Uint8Array([7])]])], d: new Date(5) }; o.self = o; \
               const c = structuredClone(o); let e = null; try { structuredClone(() => {}); } catch (x) { e = x.name; } \
               return [c !== o, c.self === c, c.a[1].get(1)[0], c.d.getTime(), e].join(','); } \
             const u = new URL('../x?a=1#h', 'http://web-platform.test:8000/a/b'); \
             u.searchParams.append('b', 'c d'); \
             const ev = new Event('x', { cancelable: true }); const t = new EventTarget(); \
             let seen = 0; t.addEventListener('x', e => { seen++; e.preventDefault(); }, { once: true }); \
             const notCanceled = t.dispatchEvent(ev); t.dispatchEvent(new Event('x')); \
             let threw = null; try { new URL('nope'); } catch (e) { threw = e.name; } \
             result = [u.href, u.origin, new TextDecoder().decode(new TextEncoder().encode('h\\u00e9')), \
             new TextEncoder().encode('\\ud800').length, seen, notCanceled, threw, \
             new DOMException('m', 'NotFoundError').code, Object.prototype.toString.call(new URLSearchParams()), \
             [...new URLSearchParams({'\\uD835x': '1', 'xx': '2', '\\uD83Dx': '3'})].join('|'), cloned()];",
            |_, _| {},
        );
        assert_eq!(
            r,
            r#"["http://web-platform.test:8000/x?a=1&b=c+d#h","http://web-platform.test:8000","hé",3,1,false,"TypeError",8,"[object URLSearchParams]","�x,3|xx,2","true,true,7,5,DataCloneError"]"#
        );
    }

    fn load_polyfill(ctx: &Ctx<'_>) {
        let path = crate::polyfill_path();
        let Ok(polyfill) = std::fs::read_to_string(&path) else {
            panic!(
                "the streams implementation is missing at {}: run wpt/setup.sh",
                path.display()
            );
        };
        eval_script(ctx, "polyfill.js", &polyfill).unwrap();
    }

    #[test]
    fn fetch_interfaces_over_the_crate() {
        let r = run_js(
            "result = []; (async () => { \
               const h = new Headers([['A', '1']]); h.append('a', '\\u00ff'); \
               result.push(h.get('A'), h.get('missing'), [...h].join('|')); \
               try { h.append('b', '\\u0100'); } catch (e) { result.push(e.name); } \
               const c = new AbortController(); const why = { why: 1 }; let fired = []; \
               const dep = AbortSignal.any([c.signal]); \
               c.signal.onabort = () => fired.push('source'); dep.addEventListener('abort', () => fired.push('dependent')); \
               c.abort(why); result.push(c.signal.reason === why, dep.reason === why, fired.join(',')); \
               const d = new AbortController(); d.abort(); result.push(d.signal.reason === d.signal.reason, d.signal.reason.name); \
               let pulls = 0; const s = new ReadableStream({ pull(ctl) { pulls++; \
                 if (pulls > 2) ctl.close(); else ctl.enqueue(new TextEncoder().encode('x' + pulls)); } }, { highWaterMark: 0 }); \
               const r = new Response(s); result.push(r.body === s, r.bodyUsed, pulls); \
               result.push(await r.text(), r.bodyUsed, pulls); \
               const locked = new Response('x'); locked.body.getReader(); \
               try { await locked.text(); } catch (e) { result.push(e.name); } \
               const b = new Blob(['ab', new Uint8Array([99])], { type: 'Text/Plain' }); \
               result.push(b.size, b.type, await b.text()); \
               const fd = new FormData(); fd.append('f', b, 'x.txt'); \
               result.push(fd.get('f').name, fd.get('f') instanceof File); \
               const req = new Request('/path?q', { method: 'post', body: 'hi' }); \
               result.push(req.url, req.method, req.headers.get('content-type'), await req.clone().text(), await req.text()); \
               try { await req.text(); } catch (e) { result.push(e.name); } \
               const j = Response.json({ a: 1 }); result.push((await j.json()).a, j.headers.get('content-type')); \
               try { await new Response('{').json(); } catch (e) { result.push(e.name); } \
               try { await fetch('/x', { signal: AbortSignal.abort(why) }); } catch (e) { result.push(e === why); } \
             })();",
            |ctx, state| {
                load_polyfill(ctx);
                let origin =
                    url::Url::parse("http://web-platform.test:8000/a/b.any.worker.js").unwrap();
                *state.client.borrow_mut() = Some(
                    whatwg_fetch::Client::builder()
                        .origin(origin)
                        .build()
                        .unwrap(),
                );
            },
        );
        assert_eq!(
            r,
            r#"["1, ÿ",null,"a,1, ÿ","TypeError",true,true,"source,dependent",true,"AbortError",true,false,0,"x1x2",true,3,"TypeError",3,"text/plain","abc","x.txt",true,"http://web-platform.test:8000/path?q","POST","text/plain;charset=UTF-8","hi","hi","TypeError",1,"application/json","SyntaxError",true]"#
        );
    }

    #[test]
    fn rust_streams_are_pulled_one_chunk_per_read() {
        let r = run_js(
            "result = []; (async () => { \
               result.push(['polls before a read', polls()]); \
               const reader = body.getReader(); let r; \
               while (!(r = await reader.read()).done) result.push(new TextDecoder().decode(r.value)); \
               result.push(['polls', polls()]); \
               const b = bad.getReader(); result.push(new TextDecoder().decode((await b.read()).value)); \
               try { await b.read(); } catch (e) { result.push(e.name); } \
             })();",
            |ctx, state| {
                let path = crate::polyfill_path();
                let Ok(polyfill) = std::fs::read_to_string(&path) else {
                    panic!(
                        "the streams implementation is missing at {}: run wpt/setup.sh",
                        path.display()
                    );
                };
                eval_script(ctx, "polyfill.js", &polyfill).unwrap();
                let polls = Rc::new(Cell::new(0u32));
                let counter = polls.clone();
                let chunks = [
                    Bytes::from_static(b"ab"),
                    Bytes::new(),
                    Bytes::from_static(b"c"),
                ];
                let body = futures_util::stream::iter(chunks.map(Ok)).chain(
                    futures_util::stream::poll_fn(move |_| {
                        counter.set(counter.get() + 1);
                        std::task::Poll::Ready(None)
                    }),
                );
                let seen = polls.clone();
                let body = body.inspect(move |_| seen.set(seen.get() + 1));
                let stream = streams::readable_stream(ctx, state, Box::pin(body)).unwrap();
                ctx.globals().set("body", stream).unwrap();
                let bad = futures_util::stream::iter([
                    Ok(Bytes::from_static(b"x")),
                    Err(Error::type_error("broken")),
                ]);
                let stream = streams::readable_stream(ctx, state, Box::pin(bad)).unwrap();
                ctx.globals().set("bad", stream).unwrap();
                let polls = Function::new(ctx.clone(), move || polls.get()).unwrap();
                ctx.globals().set("polls", polls).unwrap();
            },
        );
        // Three chunks (the empty one skipped) and the end: four polls, none before the read.
        assert_eq!(
            r,
            r#"[["polls before a read",0],"ab","c",["polls",4],"x","TypeError"]"#
        );
    }
}
