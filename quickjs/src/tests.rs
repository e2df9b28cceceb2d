//! The globals and the shared binding helpers, in a real engine but without a network.

use std::cell::Cell;
use std::rc::Rc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use rquickjs::{AsyncContext, AsyncRuntime, Ctx, Function, Value};
use whatwg_fetch::{Error, ErrorKind};

use crate::state::SharedState;
use crate::{ConsoleLevel, Globals, error, promise, streams, track_unhandled_rejections};

/// Runs `script` in a fresh context with `globals` installed, drives the event loop until
/// idle, and returns `globalThis.result` as JSON. `native` runs between installation and
/// the script.
fn run_js(
    globals: Globals,
    script: &'static str,
    native: impl for<'js> FnOnce(&Ctx<'js>, &SharedState) + 'static,
) -> String {
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    rt.block_on(async move {
        let rt = AsyncRuntime::new().unwrap();
        let context = AsyncContext::full(&rt).await.unwrap();
        track_unhandled_rejections(&rt).await;
        context
            .with(|ctx| {
                let state = globals.install_with_state(&ctx).unwrap();
                native(&ctx, &state);
                if crate::eval_script(&ctx, "test.js", script).is_err() {
                    panic!("test.js: {:?}", ctx.catch());
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

/// An engine for the tests `run_js` does not serve: with a network runtime of its own,
/// its memory held to a margin, or a look at it between the script and the result.
struct Engine {
    // Dropped in this order: the context, then its runtime.
    context: AsyncContext,
    rt: AsyncRuntime,
}

impl Engine {
    /// An engine with `globals` installed and `URL_OF_SERVER` set to `url`; with `spare`,
    /// its memory held to that many bytes past what the installed globals take.
    async fn new(globals: Globals, url: String, spare: Option<usize>) -> Engine {
        Engine::on(AsyncRuntime::new().unwrap(), globals, url, spare).await
    }

    /// [`Engine::new`] on the runtime `rt`.
    async fn on(rt: AsyncRuntime, globals: Globals, url: String, spare: Option<usize>) -> Engine {
        let context = AsyncContext::full(&rt).await.unwrap();
        context
            .with(|ctx| {
                globals.install_with_state(&ctx).unwrap();
                ctx.globals().set("URL_OF_SERVER", url).unwrap();
            })
            .await;
        if let Some(spare) = spare {
            let used = rt.memory_usage().await.malloc_size;
            rt.set_memory_limit(usize::try_from(used).unwrap() + spare)
                .await;
        }
        Engine { context, rt }
    }

    /// Runs `script`, after `setup` (globals of the test's own).
    async fn eval(&self, script: &'static str, setup: impl for<'js> FnOnce(&Ctx<'js>)) {
        self.context
            .with(|ctx| {
                setup(&ctx);
                if crate::eval_script(&ctx, "test.js", script).is_err() {
                    panic!("test.js: {:?}", ctx.catch());
                }
            })
            .await;
    }

    /// Drives the event loop until nothing is left to do, `within` at most.
    async fn idle(&self, within: Duration) {
        tokio::time::timeout(within, self.rt.idle()).await.unwrap();
    }

    /// `globalThis.result` as JSON, if the script set it.
    async fn result(&self) -> Option<String> {
        self.context
            .with(|ctx| {
                ctx.eval::<Option<String>, _>("JSON.stringify(globalThis.result)")
                    .unwrap()
            })
            .await
    }
}

/// A function the script calls to say it got somewhere, named `name`, and the receiver
/// its first call sends on.
fn notifier(ctx: &Ctx<'_>, name: &str) -> tokio::sync::oneshot::Receiver<()> {
    let (sender, receiver) = tokio::sync::oneshot::channel::<()>();
    let sender = Cell::new(Some(sender));
    let notify = Function::new(ctx.clone(), move || {
        if let Some(sender) = sender.take() {
            let _ = sender.send(());
        }
    })
    .unwrap();
    ctx.globals().set(name, notify).unwrap();
    receiver
}

/// A current-thread runtime for a test's engine.
fn current_thread() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap()
}

/// What the console printed.
type Lines = Arc<Mutex<Vec<(ConsoleLevel, String)>>>;

/// Every global, with a server-side client and the console kept in `lines`.
fn everything(lines: &Lines) -> Globals {
    let lines = lines.clone();
    Globals::new(whatwg_fetch::Client::builder().build().unwrap())
        .console(move |level, text| lines.lock().unwrap().push((level, text.to_owned())))
}

fn quiet() -> Globals {
    everything(&Lines::default())
}

#[test]
fn crate_errors_map_to_the_exception_their_kind_names() {
    let r = run_js(
        quiet(),
        "try { thrower(); } catch (e) { errors.push(e); } \
         if (back !== reason) throw new Error('abort reason lost its identity'); \
         result = errors.map(e => [e instanceof DOMException, e instanceof TypeError, \
         e instanceof RangeError, e.name, e.code ?? null, e.message]);",
        |ctx, state| {
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
            let carried = error::custom(ctx, state, reason).unwrap();
            let back = error::to_value(ctx, &carried.clone()).unwrap();
            ctx.globals().set("back", back).unwrap();
        },
    );
    assert_eq!(
        r,
        r#"[[false,true,false,"TypeError",null,"bad header"],[false,false,true,"RangeError",null,"status 600"],[true,false,false,"AbortError",20,"aborted"],[true,false,false,"TimeoutError",23,"timed out"],[false,false,false,"SyntaxError",null,"not JSON"],[true,false,false,"NotSupportedError",9,"no"]]"#
    );
}

#[test]
fn futures_become_promises_settled_as_tasks() {
    let r = run_js(
        quiet(),
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
        quiet(),
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
    let lines = Lines::default();
    let r = run_js(
        everything(&lines),
        "result = []; addEventListener('error', e => { result.push(['error', e.message]); e.preventDefault(); }); \
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
    // The rejection's listener did not cancel it: it reaches the console too. The error's
    // listener did.
    assert_eq!(
        *lines.lock().unwrap(),
        [(
            ConsoleLevel::Error,
            "Uncaught (in promise) Error: nobody handles this".to_owned()
        )]
    );
}

#[test]
fn console_methods_reach_the_sink_with_their_level() {
    let lines = Lines::default();
    run_js(
        everything(&lines),
        "console.log('a', 1, { b: [2] }); console.warn(new RangeError('r')); \
         console.assert(1 === 1, 'not shown'); console.assert(false, 'shown'); \
         reportError(new TypeError('reported')); result = null;",
        |_, _| {},
    );
    assert_eq!(
        *lines.lock().unwrap(),
        [
            (ConsoleLevel::Log, r#"a 1 {"b":[2]}"#.to_owned()),
            (ConsoleLevel::Warn, "RangeError: r".to_owned()),
            (ConsoleLevel::Error, "Assertion failed: shown".to_owned()),
            (
                ConsoleLevel::Error,
                "Uncaught TypeError: reported".to_owned()
            ),
        ]
    );
}

#[test]
fn a_pick_of_pieces_installs_those_and_what_they_stand_on_only() {
    let r = run_js(
        Globals::empty().url(),
        "result = ['URL', 'URLSearchParams', 'Headers', 'fetch', 'ReadableStream', 'EventTarget', \
           'setTimeout', 'TextEncoder', 'crypto', 'performance', '__fetch_native'] \
           .map(name => typeof globalThis[name]);",
        |_, _| {},
    );
    assert_eq!(
        r,
        r#"["function","function","undefined","undefined","undefined","undefined","undefined","undefined","undefined","object","undefined"]"#
    );
    let r = run_js(
        Globals::empty().fetch_types(),
        "result = ['Headers', 'Request', 'Response', 'FormData', 'Blob', 'AbortSignal', 'fetch', \
           'ReadableStream', 'URLSearchParams', 'EventTarget', 'DOMException', 'setTimeout', 'TextDecoder'] \
           .map(name => typeof globalThis[name]); \
         let threw = null; try { new Request('/relative'); } catch (e) { threw = e.name; } \
         result.push(threw, new Response('x').status);",
        |_, _| {},
    );
    assert_eq!(
        r,
        r#"["function","function","function","function","function","function","undefined","function","function","function","function","undefined","undefined","TypeError",200]"#
    );
}

#[test]
fn url_encoding_and_events_globals() {
    let r = run_js(
        quiet(),
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
         [...new URLSearchParams({'\\uD835x': '1', 'xx': '2', '\\uD83Dx': '3'})].join('|'), cloned(), \
         Object.getOwnPropertyDescriptor(globalThis, 'URL').enumerable, globalThis instanceof EventTarget];",
        |_, _| {},
    );
    assert_eq!(
        r,
        r#"["http://web-platform.test:8000/x?a=1&b=c+d#h","http://web-platform.test:8000","hé",3,1,false,"TypeError",8,"[object URLSearchParams]","�x,3|xx,2","true,true,7,5,DataCloneError",false,true]"#
    );
}

#[test]
fn fetch_interfaces_over_the_crate() {
    let origin = url::Url::parse("http://web-platform.test:8000/a/b.any.worker.js").unwrap();
    let client = whatwg_fetch::Client::builder()
        .origin(origin)
        .build()
        .unwrap();
    let r = run_js(
        Globals::new(client),
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
        |_, _| {},
    );
    assert_eq!(
        r,
        r#"["1, ÿ",null,"a,1, ÿ","TypeError",true,true,"source,dependent",true,"AbortError",true,false,0,"x1x2",true,3,"TypeError",3,"text/plain","abc","x.txt",true,"http://web-platform.test:8000/path?q","POST","text/plain;charset=UTF-8","hi","hi","TypeError",1,"application/json","SyntaxError",true]"#
    );
}

#[test]
fn a_timeout_signals_reason_is_one_value_wherever_it_is_read() {
    let r = run_js(
        quiet(),
        "result = []; (async () => { \
           const t = AbortSignal.timeout(0); \
           const dep = AbortSignal.any([t]); \
           const chained = AbortSignal.any([AbortSignal.any([new AbortController().signal, t])]); \
           const request = new Request('http://example.test/', { signal: t }); \
           const fired = []; \
           t.onabort = () => fired.push(['t', t.reason === dep.reason, dep.aborted]); \
           dep.addEventListener('abort', () => fired.push(['dep', dep.reason === t.reason])); \
           await new Promise(resolve => chained.addEventListener('abort', resolve)); \
           /* The dependent signal's reason is read first: it is still the timeout's. */ \
           const reason = chained.reason; \
           let thrown; try { t.throwIfAborted(); } catch (e) { thrown = e; } \
           result.push(reason instanceof DOMException, reason.name, reason === t.reason, \
             dep.reason === t.reason, request.signal.reason === t.reason, thrown === t.reason, \
             AbortSignal.any([t]).reason === t.reason, JSON.stringify(fired)); \
         })();",
        |_, _| {},
    );
    assert_eq!(
        r,
        r#"[true,"TimeoutError",true,true,true,true,true,"[[\"t\",true,true],[\"dep\",true]]"]"#
    );
}

#[test]
fn a_script_value_an_error_carried_is_forgotten_once_the_error_is_dropped() {
    let r = run_js(
        quiet(),
        "result = []; (async () => { \
           const tick = () => new Promise(resolve => setTimeout(resolve, 0)); \
           const kept = () => globalThis.__fetch_values.size; \
           for (let i = 0; i < 100; i++) { \
             const c = new AbortController(); c.abort({ i }); \
             if (c.signal.reason.i !== i) throw new Error('reason lost'); \
             AbortSignal.abort('why ' + i).reason; \
           } \
           const live = new AbortController(); const why = { live: true }; live.abort(why); \
           /* The signals above are gone once their finalization callbacks have run. */ \
           await tick(); await tick(); \
           new AbortController().abort(); \
           result.push(kept() <= 3, live.signal.reason === why); \
           const t = AbortSignal.timeout(0); \
           await new Promise(resolve => t.addEventListener('abort', resolve)); \
           result.push(t.reason.name); \
         })();",
        |_, _| {},
    );
    assert_eq!(r, r#"[true,true,"TimeoutError"]"#);
}

#[test]
fn rust_streams_are_pulled_one_chunk_per_read() {
    let r = run_js(
        quiet(),
        "result = []; (async () => { \
           result.push(['polls before a read', polls()]); \
           const reader = body.getReader(); let r; \
           while (!(r = await reader.read()).done) result.push(new TextDecoder().decode(r.value)); \
           result.push(['polls', polls()]); \
           const b = bad.getReader(); result.push(new TextDecoder().decode((await b.read()).value)); \
           try { await b.read(); } catch (e) { result.push(e.name); } \
         })();",
        |ctx, state| {
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

/// A chunk the engine has no memory for errors the stream and lets its Rust stream go (a
/// body's connection with it): the streams implementation calls no `cancel` when `pull`
/// fails, and the Rust stream was held until the engine was dropped.
#[test]
fn a_stream_whose_chunk_the_engine_cannot_hold_lets_the_rust_stream_go() {
    const SIZE: usize = 8 << 20;
    /// Notes that the stream holding it is dropped.
    struct Guard(Rc<Cell<bool>>);
    impl Drop for Guard {
        fn drop(&mut self) {
            self.0.set(true);
        }
    }
    let dropped = Rc::new(Cell::new(false));
    let guard = Guard(dropped.clone());
    // One chunk over the engine's room, then nothing, ever: only a drop ends it.
    let body = futures_util::stream::iter([Ok(Bytes::from(vec![7u8; SIZE]))])
        .chain(futures_util::stream::pending())
        .inspect(move |_| {
            let _held = &guard;
        });
    let (result, held) = current_thread().block_on(async move {
        let rt = AsyncRuntime::new().unwrap();
        let context = AsyncContext::full(&rt).await.unwrap();
        context
            .with(|ctx| {
                let state = quiet().install_with_state(&ctx).unwrap();
                let stream = streams::readable_stream(&ctx, &state, Box::pin(body)).unwrap();
                ctx.globals().set("body", stream).unwrap();
            })
            .await;
        let used = rt.memory_usage().await.malloc_size;
        rt.set_memory_limit(usize::try_from(used).unwrap() + (4 << 20))
            .await;
        context
            .with(|ctx| {
                let script = "body.getReader().read().then(() => { result = 'read'; }, \
                              e => { result = e instanceof Error ? e.name : String(e); });";
                if crate::eval_script(&ctx, "test.js", script).is_err() {
                    panic!("test.js: {:?}", ctx.catch());
                }
            })
            .await;
        tokio::time::timeout(Duration::from_secs(10), rt.idle())
            .await
            .unwrap();
        // Asked while the engine lives.
        let held = !dropped.get();
        let result = context
            .with(|ctx| {
                ctx.eval::<Option<String>, _>("JSON.stringify(globalThis.result)")
                    .unwrap()
            })
            .await;
        (result, held)
    });
    assert!(!held, "the Rust stream is held while the engine lives");
    assert_eq!(result.as_deref(), Some(r#""InternalError""#));
}

#[test]
fn a_clone_tees_a_script_stream_giving_the_clone_structured_clones_of_its_chunks() {
    let r = run_js(
        quiet(),
        "result = []; \
         const buffer = new ArrayBuffer(16); \
         new Uint8Array(buffer).set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16]); \
         const chunks = [new Int16Array(buffer, 2, 2), buffer, new DataView(buffer, 2, 8), \
           new Float64Array(buffer), new Uint8Array(buffer, 3)]; \
         const same = (a, b) => { \
           const bytes = v => [...new Uint8Array(v instanceof ArrayBuffer ? v : v.buffer, \
             v.byteOffset ?? 0, v.byteLength)]; \
           return JSON.stringify(bytes(a)) === JSON.stringify(bytes(b)) \
             && Object.getPrototypeOf(a) === Object.getPrototypeOf(b) \
             && (a.byteOffset ?? 0) === (b.byteOffset ?? 0); \
         }; \
         for (const make of [body => new Response(body), \
           body => new Request('https://example.com/', { method: 'POST', body, duplex: 'half' })]) { \
           const original = make(new ReadableStream({ start(c) { \
             for (const chunk of chunks) c.enqueue(chunk); c.close(); } })); \
           const clone = original.clone(); \
           const first = original.body.getReader(); \
           const second = clone.body.getReader(); \
           (async () => { \
             for (const chunk of chunks) { \
               const a = (await first.read()).value; \
               const b = (await second.read()).value; \
               result.push([a === chunk, b !== chunk && same(b, chunk)]); \
             } \
             result.push([(await first.read()).done, (await second.read()).done]); \
           })(); \
         }",
        |_, _| {},
    );
    let row = "[true,true]";
    let one = [row; 5].join(",");
    assert_eq!(r, format!("[{one},[true,true],{one},[true,true]]"));
}

#[test]
fn a_clone_of_a_script_stream_body_reads_both_branches_in_full() {
    let r = run_js(
        quiet(),
        "result = []; \
         const encoder = new TextEncoder(); \
         const original = new Response(new ReadableStream({ start(c) { \
           c.enqueue(encoder.encode('he')); c.enqueue(encoder.encode('llo')); c.close(); } })); \
         const clone = original.clone(); \
         Promise.all([original.text(), clone.text()]).then(texts => { result = texts; });",
        |_, _| {},
    );
    assert_eq!(r, r#"["hello","hello"]"#);
}

#[test]
fn a_patched_object_prototype_then_cannot_inject_chunks_into_a_body_being_read() {
    let r = run_js(
        quiet(),
        "result = []; \
         const encoder = new TextEncoder(); \
         const stream = () => new ReadableStream({ start(c) { \
           c.enqueue(encoder.encode('hello')); c.close(); } }); \
         const responses = [new Response(stream()), new Response(stream()).clone()]; \
         let injected = 0; \
         Object.prototype.then = function (onFulfilled) { \
           if (++injected === 3) delete Object.prototype.then; \
           onFulfilled({ done: false, value: encoder.encode('bye') }); \
         }; \
         /* Strings only cross these promises: an object would consult the patch. */ \
         const texts = []; \
         responses.forEach((r, i) => r.text().then(text => { \
           texts[i] = text; \
           if (texts.filter(t => t !== undefined).length < 2) return; \
           delete Object.prototype.then; \
           result = [...texts, injected]; \
         }));",
        |_, _| {},
    );
    assert_eq!(r, r#"["hello","hello",0]"#);
}

/// A server on 127.0.0.1, on a thread of its own, answering each connection's request with
/// `response` and then holding the connection until the client closes it.
fn event_stream_server(response: &'static str) -> String {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { return };
            std::thread::spawn(move || {
                let mut head = Vec::new();
                let mut byte = [0u8; 1];
                while !head.ends_with(b"\r\n\r\n") {
                    match stream.read(&mut byte) {
                        Ok(1) => head.push(byte[0]),
                        _ => return,
                    }
                }
                if stream.write_all(response.as_bytes()).is_err() {
                    return;
                }
                let mut rest = [0u8; 64];
                while matches!(stream.read(&mut rest), Ok(n) if n > 0) {}
            });
        }
    });
    url
}

#[test]
fn event_source_fires_open_named_events_and_messages_then_closes() {
    let url = event_stream_server(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\n\
         id: 1\nevent: tick\ndata: a\n\ndata: b\ndata: c\n\n",
    );
    let r = run_js(
        quiet(),
        "const es = new EventSource(URL_OF_SERVER);
         const log = [es.readyState, es.url === URL_OF_SERVER, es.withCredentials, EventSource.CLOSED];
         es.onopen = e => log.push('open', es.readyState, e.isTrusted);
         es.addEventListener('tick', e => log.push(e.type, e.data, e.lastEventId,
           e.origin === URL_OF_SERVER.slice(0, -1), e instanceof MessageEvent));
         es.onmessage = e => {
           log.push('message', e.data, e.lastEventId);
           es.close();
           log.push(es.readyState);
           result = log;
         };",
        move |ctx, _| ctx.globals().set("URL_OF_SERVER", url).unwrap(),
    );
    assert_eq!(
        r,
        r#"[0,true,false,2,"open",1,true,"tick","a","1",true,true,"message","b\nc","1",2]"#
    );
}

/// A server may set an ID as long as a line and send any number of short events under it:
/// the script is handed the ID once, not a copy of it with each event. 400 events, each
/// kept by the script, under a 64 KiB ID: one string of it in the engine (a copy each
/// would be 25 MiB of strings).
#[test]
fn event_source_hands_a_long_id_to_the_script_once_not_with_each_event() {
    const EVENTS: usize = 400;
    let id = "i".repeat(64 * 1024);
    let mut stream = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\nid: {id}\ndata: first\n\n"
    );
    for n in 1..EVENTS {
        stream.push_str(&format!("data: {n}\n\n"));
    }
    stream.push_str("id: 2\ndata: last\n\n");
    let url = event_stream_server(stream.leak());
    let (result, strings) = current_thread().block_on(async move {
        let engine = Engine::new(quiet(), url, None).await;
        engine
            .eval(
                "const es = new EventSource(URL_OF_SERVER);
                     const ids = [];
                     es.onmessage = e => {
                       ids.push(e.lastEventId);
                       if (e.data !== 'last') return;
                       es.close();
                       globalThis.kept = ids;
                       result = [ids.length, new Set(ids.slice(0, -1)).size, ids[0].length,
                         ids[ids.length - 2] === ids[0], ids[ids.length - 1]];
                     };",
                |_| {},
            )
            .await;
        engine.idle(Duration::from_secs(10)).await;
        engine.rt.run_gc().await;
        let strings = engine.rt.memory_usage().await.str_size;
        (engine.result().await, strings)
    });
    assert_eq!(
        result.as_deref(),
        Some(format!("[{},1,{},true,\"2\"]", EVENTS + 1, 64 * 1024).as_str())
    );
    assert!(
        strings < 4 * 1024 * 1024,
        "{strings} bytes of strings in the engine"
    );
}

#[test]
fn event_source_fails_on_a_bad_status_and_throws_on_a_bad_url() {
    let url = event_stream_server(
        "HTTP/1.1 404 Not Found\r\ncontent-type: text/event-stream\r\ncontent-length: 0\r\n\r\n",
    );
    let r = run_js(
        quiet(),
        "const log = [];
         try { new EventSource('http://[bad'); } catch (e) {
           log.push(e instanceof DOMException, e.name);
         }
         const es = new EventSource(URL_OF_SERVER, { withCredentials: true });
         log.push(es.withCredentials);
         es.onopen = () => log.push('open');
         es.onerror = () => { log.push('error', es.readyState); result = log; };",
        move |ctx, _| ctx.globals().set("URL_OF_SERVER", url).unwrap(),
    );
    assert_eq!(r, r#"[true,"SyntaxError",true,"error",2]"#);
}

/// A tokio-tungstenite echo server on a thread of its own; gives its `ws://` URL.
fn websocket_echo_server() -> String {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("ws://{}/echo", listener.local_addr().unwrap());
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            while let Ok((tcp, _)) = listener.accept().await {
                tokio::spawn(async move {
                    let Ok(ws) = tokio_tungstenite::accept_async(tcp).await else {
                        return;
                    };
                    let (write, read) = ws.split();
                    let echoes = futures_util::TryStreamExt::try_filter(read, |m| {
                        std::future::ready(m.is_text() || m.is_binary())
                    });
                    let _ = echoes.forward(write).await;
                });
            }
        });
    });
    url
}

#[test]
fn websocket_echoes_text_and_binary_and_closes_with_the_code_given() {
    let url = websocket_echo_server();
    let r = run_js(
        quiet(),
        "const ws = new WebSocket(URL_OF_SERVER);
         const log = [ws.readyState, ws.url === URL_OF_SERVER, ws.binaryType, ws.protocol];
         try { ws.send('early'); } catch (e) { log.push(e.name); }
         ws.onopen = () => {
           log.push('open', ws.readyState, ws.extensions);
           ws.send('héllo');
           log.push(ws.bufferedAmount);
           ws.send(new Uint8Array([1, 2, 3]));
           ws.send(new Blob(['blob']));
         };
         const got = [];
         ws.onmessage = async e => {
           got.push(e.data);
           if (got.length === 1) {
             log.push(e.data, e.origin === URL_OF_SERVER.slice(0, -5), e instanceof MessageEvent);
             ws.binaryType = 'arraybuffer';
           } else if (got.length === 2) {
             log.push(e.data instanceof ArrayBuffer, [...new Uint8Array(e.data)].join());
             ws.binaryType = 'blob';
           } else {
             log.push(e.data instanceof Blob, await e.data.text(), ws.bufferedAmount);
             try { ws.close(1001); } catch (err) { log.push(err.name); }
             try { ws.close(1000, 'x'.repeat(124)); } catch (err) { log.push(err.name); }
             ws.close(3000, 'bye');
             log.push(ws.readyState);
             ws.send('dropped');
             log.push(ws.bufferedAmount);
           }
         };
         ws.onclose = e => {
           log.push('close', e instanceof CloseEvent, e.wasClean, e.code, e.reason, ws.readyState);
           result = log;
         };",
        move |ctx, _| ctx.globals().set("URL_OF_SERVER", url).unwrap(),
    );
    assert_eq!(
        r,
        r#"[0,true,"blob","","InvalidStateError","open",1,"",6,"héllo",true,true,true,"1,2,3",true,"blob",0,"InvalidAccessError","SyntaxError",2,7,"close",true,true,3000,"bye",3]"#
    );
}

#[test]
fn websocket_fails_with_error_and_close_1006_and_throws_on_bad_arguments() {
    // A port nothing listens on.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let r = run_js(
        quiet(),
        "const log = [];
         for (const [url, protocols] of [['http://[bad', []], ['ftp://example.com/', []],
                                         ['ws://example.com/#x', []], ['ws://example.com/', ['a', 'a']],
                                         ['ws://example.com/', 'a b']]) {
           try { new WebSocket(url, protocols); log.push('no throw'); } catch (e) {
             log.push(e instanceof DOMException && e.name);
           }
         }
         const ws = new WebSocket(`http://127.0.0.1:${PORT}/`);
         log.push(ws.url);
         ws.onerror = e => log.push('error', ws.readyState);
         ws.onclose = e => { log.push('close', e.wasClean, e.code, e.reason); result = log; };",
        move |ctx, _| ctx.globals().set("PORT", port).unwrap(),
    );
    assert_eq!(
        r,
        format!(
            r#"["SyntaxError","SyntaxError","SyntaxError","SyntaxError","SyntaxError","ws://127.0.0.1:{port}/","error",3,"close",false,1006,""]"#
        )
    );
}

#[test]
fn websocket_stream_echoes_through_its_streams_and_closes_with_the_code_given() {
    let url = websocket_echo_server();
    let r = run_js(
        quiet(),
        "(async () => {
           const log = [];
           try { new WebSocketStream(URL_OF_SERVER, { protocols: 'x' }); } catch (e) { log.push(e.name); }
           const error = new WebSocketError('', { reason: 'why' });
           log.push(error instanceof DOMException, error.name, error.closeCode, error.reason);
           const wss = new WebSocketStream(URL_OF_SERVER);
           const { readable, writable, protocol, extensions } = await wss.opened;
           log.push(wss.url === URL_OF_SERVER, protocol, extensions);
           const writer = writable.getWriter();
           const reader = readable.getReader();
           await writer.write('text');
           await writer.write(new Uint8Array([7, 8]));
           log.push((await reader.read()).value);
           const binary = (await reader.read()).value;
           log.push(binary instanceof Uint8Array, [...binary].join());
           wss.close({ closeCode: 4000, reason: 'done' });
           const closed = await wss.closed;
           log.push(closed.closeCode, closed.reason, (await reader.read()).done);
           const aborted = new AbortController();
           aborted.abort();
           const never = new WebSocketStream(URL_OF_SERVER, { signal: aborted.signal });
           await never.opened.catch(e => log.push(e.name));
           result = log;
         })();",
        move |ctx, _| ctx.globals().set("URL_OF_SERVER", url).unwrap(),
    );
    assert_eq!(
        r,
        r#"["TypeError",true,"WebSocketError",1000,"why",true,"","","text",true,"7,8",4000,"done",true,"AbortError"]"#
    );
}

/// A tokio-tungstenite server on a thread of its own that sends `greeting` on each
/// connection and then only reads; gives its `ws://` URL and a receiver told each time a
/// connection ends (the client closed it, or said goodbye).
fn websocket_greeting_server(
    greeting: Vec<tokio_tungstenite::tungstenite::Message>,
) -> (String, std::sync::mpsc::Receiver<()>) {
    use futures_util::SinkExt;
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    listener.set_nonblocking(true).unwrap();
    let url = format!("ws://{}/", listener.local_addr().unwrap());
    let (ended, ends) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        rt.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            while let Ok((tcp, _)) = listener.accept().await {
                let (greeting, ended) = (greeting.clone(), ended.clone());
                tokio::spawn(async move {
                    let Ok(mut ws) = tokio_tungstenite::accept_async(tcp).await else {
                        return;
                    };
                    for message in greeting {
                        if ws.send(message).await.is_err() {
                            return;
                        }
                    }
                    while let Some(Ok(_)) = ws.next().await {}
                    let _ = ended.send(());
                });
            }
        });
    });
    (url, ends)
}

/// On a network runtime, a socket waiting for a silent server's next message goes with the
/// engine that opened it: the wait is the engine's, not a task left on the host holding
/// the connection open until the server speaks.
#[test]
fn websocket_on_a_network_runtime_is_closed_when_the_engine_is_dropped() {
    let host = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let (url, ended) = websocket_greeting_server(Vec::new());
    let client = host.block_on(async { whatwg_fetch::Client::builder().build().unwrap() });
    let globals = Globals::new(client)
        .network_runtime(host.handle().clone())
        .console(|_, _| {});
    current_thread().block_on(async move {
        let engine = Engine::new(globals, url, None).await;
        let mut open = None;
        engine
            .eval(
                "const ws = new WebSocket(URL_OF_SERVER); ws.onopen = () => opened();",
                |ctx| open = Some(notifier(ctx, "opened")),
            )
            .await;
        let open = open.unwrap();
        tokio::select! {
            () = engine.rt.drive() => panic!("the engine ended"),
            open = tokio::time::timeout(Duration::from_secs(10), open) => open.unwrap().unwrap(),
        }
        drop(engine);
    });
    assert!(
        ended.recv_timeout(Duration::from_secs(10)).is_ok(),
        "the connection outlived the engine that opened it"
    );
}
/// A binary message for a script whose `binaryType` is `"blob"` (the default) goes to the
/// Blob as the bytes that arrived, not through an `ArrayBuffer` in the engine and back out:
/// an 8 MiB message is received in an engine that has 4 MiB to spare.
#[test]
fn websocket_hands_a_binary_message_to_a_blob_without_the_engines_memory() {
    const SIZE: usize = 8 << 20;
    let message = tokio_tungstenite::tungstenite::Message::binary(vec![7u8; SIZE]);
    let (url, _) = websocket_greeting_server(vec![message]);
    let result = current_thread().block_on(async move {
        let engine = Engine::new(quiet(), url, Some(4 << 20)).await;
        engine
            .eval(
                "const ws = new WebSocket(URL_OF_SERVER);
                     ws.onmessage = async e => {
                       const bytes = new Uint8Array(await e.data.slice(SIZE - 2).arrayBuffer());
                       result = [e.data instanceof Blob, e.data.size, ...bytes];
                       ws.close();
                     };",
                |ctx| ctx.globals().set("SIZE", SIZE).unwrap(),
            )
            .await;
        engine.idle(Duration::from_secs(10)).await;
        engine.result().await
    });
    assert_eq!(
        result.as_deref(),
        Some(format!("[true,{SIZE},7,7]").as_str())
    );
}
/// The client's `max_buffered_body_size` holds for `text()` whether or not the script
/// looked at `response.body` first (which hands the body to a stream the crate then reads
/// back): a 2 MiB body is refused under a 1 MiB limit either way.
#[test]
fn a_body_read_whole_after_a_look_at_its_stream_keeps_the_buffered_limit() {
    const SIZE: usize = 2 << 20;
    let response = format!(
        "HTTP/1.1 200 OK\r\ncontent-length: {SIZE}\r\n\r\n{}",
        "x".repeat(SIZE)
    );
    let url = event_stream_server(response.leak());
    let client = whatwg_fetch::Client::builder()
        .max_buffered_body_size(Some(1 << 20))
        .build()
        .unwrap();
    let r = run_js(
        Globals::new(client).console(|_, _| {}),
        "(async () => {
           const log = [];
           for (const look of [false, true]) {
             const response = await fetch(URL_OF_SERVER);
             if (look) log.push(response.body instanceof ReadableStream);
             await response.text().then(text => log.push(text.length), e => log.push(e.name));
           }
           result = log;
         })();",
        move |ctx, _| ctx.globals().set("URL_OF_SERVER", url).unwrap(),
    );
    assert_eq!(r, r#"["TypeError",true,"TypeError"]"#);
}
/// On a network runtime that shuts down under it, an event source fails as a lost
/// connection does, with an `error` event: a script is told, not left waiting.
#[test]
fn event_source_on_a_network_runtime_that_shuts_down_fires_error() {
    let url = event_stream_server(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: first\n\n",
    );
    let host = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(1)
        .enable_all()
        .build()
        .unwrap();
    let client = host.block_on(async { whatwg_fetch::Client::builder().build().unwrap() });
    let globals = Globals::new(client)
        .network_runtime(host.handle().clone())
        .console(|_, _| {});
    let result = current_thread().block_on(async move {
        let engine = Engine::new(globals, url, None).await;
        let mut message = None;
        engine
            .eval(
                "const es = new EventSource(URL_OF_SERVER);
                     const log = [];
                     es.onmessage = e => { log.push(e.data); got(); };
                     es.onerror = () => { log.push('error', es.readyState); result = log; };",
                |ctx| message = Some(notifier(ctx, "got")),
            )
            .await;
        let message = message.unwrap();
        tokio::select! {
            () = engine.rt.drive() => panic!("the engine ended"),
            got = tokio::time::timeout(Duration::from_secs(10), message) => got.unwrap().unwrap(),
        }
        host.shutdown_background();
        engine.idle(Duration::from_secs(10)).await;
        engine.result().await
    });
    assert_eq!(result.as_deref(), Some(r#"["first","error",2]"#));
}

/// The engine's allocator, counting the allocations made through it.
struct Counting(rquickjs::allocator::RustAllocator, Arc<AtomicU64>);

// SAFETY: every call is the Rust allocator's, which upholds the trait's contract.
unsafe impl rquickjs::allocator::Allocator for Counting {
    fn alloc(&mut self, size: usize) -> *mut u8 {
        self.1.fetch_add(1, Ordering::Relaxed);
        self.0.alloc(size)
    }

    fn calloc(&mut self, count: usize, size: usize) -> *mut u8 {
        self.1.fetch_add(1, Ordering::Relaxed);
        self.0.calloc(count, size)
    }

    unsafe fn dealloc(&mut self, ptr: *mut u8) {
        // SAFETY: as the caller promised.
        unsafe { self.0.dealloc(ptr) }
    }

    unsafe fn realloc(&mut self, ptr: *mut u8, new_size: usize) -> *mut u8 {
        self.1.fetch_add(1, Ordering::Relaxed);
        // SAFETY: as the caller promised.
        unsafe { self.0.realloc(ptr, new_size) }
    }

    unsafe fn usable_size(ptr: *mut u8) -> usize {
        // SAFETY: as the caller promised.
        unsafe { rquickjs::allocator::RustAllocator::usable_size(ptr) }
    }
}

/// Iterating a response's headers costs the engine work linear in their number, not
/// quadratic: a server picks the number (2,000 fields by default over HTTP/1.1), and
/// making the sorted list anew at each step made one loop over 2,000 of them take
/// seconds of the engine's thread. Counted as the allocations the engine asks of its
/// allocator: some 330,000 for the two loops over 1,990 fields when each step made the
/// list, 150 when it is made once.
#[test]
fn iterating_a_responses_many_headers_is_linear_in_their_number() {
    const FIELDS: u64 = 1990;
    let mut head = String::from("HTTP/1.1 200 OK\r\ncontent-length: 0\r\n");
    for i in 0..FIELDS {
        head.push_str(&format!("x-h{i}: v{i}\r\n"));
    }
    head.push_str("\r\n");
    let url = event_stream_server(head.leak());
    let allocations = Arc::new(AtomicU64::new(0));
    let counted = allocations.clone();
    let result = current_thread().block_on(async move {
        let allocator = Counting(rquickjs::allocator::RustAllocator, counted.clone());
        let rt = AsyncRuntime::new_with_alloc(allocator).unwrap();
        let engine = Engine::on(rt, quiet(), url, None).await;
        engine
            .eval(
                "(async () => {
                       const headers = (await fetch(URL_OF_SERVER)).headers;
                       const before = allocations();
                       let n = 0, m = 0;
                       for (const [name] of headers) if (name.startsWith('x-h')) n++;
                       headers.forEach((value, name) => { if (name.startsWith('x-h')) m++; });
                       result = [n, m, allocations() - before];
                     })();",
                |ctx| {
                    let count =
                        Function::new(ctx.clone(), move || counted.load(Ordering::Relaxed) as f64);
                    ctx.globals().set("allocations", count).unwrap();
                },
            )
            .await;
        engine.idle(Duration::from_secs(60)).await;
        engine
            .context
            .with(|ctx| ctx.eval::<Vec<f64>, _>("result").unwrap())
            .await
    });
    let [n, m, made] = result[..] else {
        panic!("{result:?}")
    };
    assert_eq!((n, m), (FIELDS as f64, FIELDS as f64));
    let made = made as u64;
    assert!(
        made < 10 * FIELDS,
        "{made} allocations to iterate {FIELDS} headers twice"
    );
}

/// A message the engine has no memory for fails the connection (1006, an `error` event,
/// a rejected read of a `WebSocketStream`) and lets it go: before, the exception ended the
/// socket's reading in the script, and the socket sat open with no event ever again.
#[test]
fn websocket_fails_a_connection_whose_message_the_engine_cannot_hold() {
    const SIZE: usize = 8 << 20;
    let message = tokio_tungstenite::tungstenite::Message::text("x".repeat(SIZE));
    let (url, ended) = websocket_greeting_server(vec![message]);
    let result = current_thread().block_on(async move {
        let engine = Engine::new(quiet(), url, Some(4 << 20)).await;
        engine
            .eval(
                "const events = [], reads = [];
                     const ws = new WebSocket(URL_OF_SERVER);
                     ws.onmessage = e => events.push('message');
                     ws.onerror = () => events.push('error');
                     const closed = new Promise(resolve => { ws.onclose = e => {
                       events.push('close', e.code, e.wasClean); resolve(); }; });
                     const wss = new WebSocketStream(URL_OF_SERVER);
                     const read = wss.opened.then(({ readable }) => readable.getReader().read())
                       .then(() => reads.push('read'), e => reads.push(e.name, e.closeCode));
                     Promise.all([closed, read, wss.closed.catch(() => {})])
                       .then(() => { result = [events, reads]; });",
                |_| {},
            )
            .await;
        engine.idle(Duration::from_secs(10)).await;
        // While the engine lives on, both connections go.
        let gone = tokio::task::spawn_blocking(move || {
            (0..2).all(|_| ended.recv_timeout(Duration::from_secs(10)).is_ok())
        });
        assert!(gone.await.unwrap(), "a connection outlived its failure");
        engine.result().await
    });
    assert_eq!(
        result.as_deref(),
        Some(r#"[["error","close",1006,false],["WebSocketError",1006]]"#)
    );
}

/// An event the engine has no memory for fails the connection, with an `error` event:
/// before, the exception ended the event source's reading in the script, which then sat
/// open with no event ever again.
#[test]
fn event_source_fails_on_an_event_the_engine_cannot_hold() {
    // Under the line length limit (8 MiB), over the engine's room (4 MiB).
    const SIZE: usize = 6 << 20;
    let stream = format!(
        "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\n\r\ndata: {}\n\n",
        "x".repeat(SIZE)
    );
    let url = event_stream_server(stream.leak());
    let result = current_thread().block_on(async move {
        let engine = Engine::new(quiet(), url, Some(4 << 20)).await;
        engine
            .eval(
                "const es = new EventSource(URL_OF_SERVER);
                     const log = [];
                     es.onopen = () => log.push('open');
                     es.onmessage = () => log.push('message');
                     es.onerror = () => { log.push('error', es.readyState); result = log; };",
                |_| {},
            )
            .await;
        engine.idle(Duration::from_secs(10)).await;
        engine.result().await
    });
    assert_eq!(result.as_deref(), Some(r#"["open","error",2]"#));
}

/// A Blob is sent as the bytes it holds, not read into an `ArrayBuffer` in the engine
/// first: an 8 MiB Blob (the one an 8 MiB message arrived as) is sent back from an engine
/// with 4 MiB to spare, and `bufferedAmount` returns to 0.
#[test]
fn websocket_sends_a_blob_without_the_engines_memory() {
    const SIZE: usize = 8 << 20;
    let message = tokio_tungstenite::tungstenite::Message::binary(vec![7u8; SIZE]);
    let (url, _) = websocket_greeting_server(vec![message]);
    let result = current_thread().block_on(async move {
        let engine = Engine::new(quiet(), url, Some(4 << 20)).await;
        engine
            .eval(
                "const ws = new WebSocket(URL_OF_SERVER);
                     const log = [];
                     ws.onmessage = e => {
                       ws.send(e.data);
                       log.push(ws.bufferedAmount);
                       ws.close();
                     };
                     ws.onclose = e => { log.push(ws.bufferedAmount, e.wasClean); result = log; };",
                |_| {},
            )
            .await;
        engine.idle(Duration::from_secs(10)).await;
        engine.result().await
    });
    assert_eq!(result.as_deref(), Some(format!("[{SIZE},0,true]").as_str()));
}
