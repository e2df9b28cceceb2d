//! Scripts using `fetch()` in QuickJS against an in-process HTTP/1.1 server on 127.0.0.1.
//!
//! The server runs on a multi-thread tokio runtime of its own; each script runs on a
//! current-thread runtime on the test's thread, as an embedder runs one.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use bytes::Bytes;
use futures_util::StreamExt;
use http_body_util::{BodyExt, Full, StreamBody, combinators::BoxBody};
use hyper::body::{Frame, Incoming};
use hyper::{Request, Response};
use rquickjs::context::EvalOptions;
use rquickjs::{AsyncContext, AsyncRuntime, CatchResultExt, Ctx, Function, Promise};
use tokio::sync::Notify;
use whatwg_fetch::Client;
use whatwg_fetch_quickjs::Globals;

/// How long any one script may take.
const LIMIT: Duration = Duration::from_secs(20);

/// The test server: its address, the connections it accepted, and the gate that holds back
/// the rest of `/stream` until the script has read its first chunk.
#[derive(Clone)]
struct Server {
    addr: SocketAddr,
    connections: Arc<AtomicUsize>,
    gate: Arc<Notify>,
    endless: Arc<Endless>,
}

/// What `/endless` saw: the chunks it sent, and whether its connection closed (its body was
/// dropped, which a failed write does).
#[derive(Default)]
struct Endless {
    sent: AtomicUsize,
    closed: AtomicUsize,
}

/// Counts `/endless`'s body as closed when it is dropped.
struct Dropped(Arc<Endless>);

impl Drop for Dropped {
    fn drop(&mut self) {
        self.0.closed.fetch_add(1, Ordering::SeqCst);
    }
}

type Body = BoxBody<Bytes, Infallible>;

fn full(bytes: impl Into<Bytes>) -> Body {
    Full::new(bytes.into()).boxed()
}

/// A body of `chunks`, each sent as its own chunk; `gate`, when given, is awaited after the
/// first one.
fn chunked(chunks: Vec<&'static str>, gate: Option<Arc<Notify>>) -> Body {
    let stream = futures_util::stream::unfold(
        (chunks.into_iter(), gate, true),
        |(mut chunks, gate, first)| async move {
            let chunk = chunks.next()?;
            if !first {
                if let Some(gate) = &gate {
                    gate.notified().await;
                }
            }
            let frame = Ok::<_, Infallible>(Frame::data(Bytes::from_static(chunk.as_bytes())));
            Some((frame, (chunks, gate, false)))
        },
    );
    BodyExt::boxed(StreamBody::new(stream))
}

async fn handle(
    request: Request<Incoming>,
    gate: Arc<Notify>,
    endless: Arc<Endless>,
) -> Response<Body> {
    let path = request.uri().path().to_owned();
    match path.as_str() {
        // A chunk every 5 ms, for as long as the connection is open.
        "/endless" => {
            let guard = Dropped(endless);
            let stream = futures_util::stream::unfold(guard, |guard| async move {
                tokio::time::sleep(Duration::from_millis(5)).await;
                guard.0.sent.fetch_add(1, Ordering::SeqCst);
                let frame = Ok::<_, Infallible>(Frame::data(Bytes::from_static(b".")));
                Some((frame, guard))
            });
            Response::builder().body(BodyExt::boxed(StreamBody::new(stream)))
        }
        "/json" => Response::builder()
            .header("content-type", "application/json")
            .body(full(r#"{"name":"whatwg-fetch","items":[1,2,3]}"#)),
        // Three chunks, the last two only once the script has read the first.
        "/stream" => Response::builder()
            .header("content-type", "text/plain")
            .body(chunked(vec!["one,", "two,", "three"], Some(gate))),
        // A head and a first chunk, then nothing, ever.
        "/stall-body" => {
            let start = Ok::<_, Infallible>(Frame::data(Bytes::from_static(b"start")));
            let stream =
                futures_util::stream::once(async { start }).chain(futures_util::stream::pending());
            Response::builder().body(BodyExt::boxed(StreamBody::new(stream)))
        }
        // No response at all.
        "/hang" => {
            std::future::pending::<()>().await;
            Response::builder().body(full(""))
        }
        // The request's method, content type and body, as the server received them.
        "/echo" => {
            let method = request.method().to_string();
            let content_type = request
                .headers()
                .get("content-type")
                .and_then(|v| v.to_str().ok())
                .unwrap_or("")
                .to_owned();
            let chunked = request.headers().contains_key("transfer-encoding");
            let body = request.into_body().collect().await.map(|b| b.to_bytes());
            Response::builder()
                .header("x-method", method)
                .header("x-content-type", content_type)
                .header("x-chunked", chunked.to_string())
                .body(full(body.unwrap_or_default()))
        }
        _ => Response::builder().status(404).body(full("not found")),
    }
    .unwrap()
}

/// Starts the server on `runtime`.
fn serve(runtime: &tokio::runtime::Runtime) -> Server {
    let listener = runtime
        .block_on(tokio::net::TcpListener::bind("127.0.0.1:0"))
        .unwrap();
    let addr = listener.local_addr().unwrap();
    let connections = Arc::new(AtomicUsize::new(0));
    let gate = Arc::new(Notify::new());
    let endless = Arc::new(Endless::default());
    let (count, gate2, endless2) = (connections.clone(), gate.clone(), endless.clone());
    runtime.spawn(async move {
        loop {
            let Ok((stream, _)) = listener.accept().await else {
                return;
            };
            count.fetch_add(1, Ordering::SeqCst);
            let gate = gate2.clone();
            let endless = endless2.clone();
            tokio::spawn(async move {
                let service = hyper::service::service_fn(move |request| {
                    let (gate, endless) = (gate.clone(), endless.clone());
                    async move { Ok::<_, Infallible>(handle(request, gate, endless).await) }
                });
                let _ = hyper::server::conn::http1::Builder::new()
                    .serve_connection(hyper_util::rt::TokioIo::new(stream), service)
                    .await;
            });
        }
    });
    Server {
        addr,
        connections,
        gate,
        endless,
    }
}

fn server_runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap()
}

/// Runs `script` (top-level `await` allowed; `BASE` is the server's URL) with `globals` on
/// a current-thread runtime of its own, then returns `globalThis.result` as JSON. `setup`
/// adds globals of the test's own before the script runs.
fn run_script(
    globals: Globals,
    server: &Server,
    setup: impl for<'js> FnOnce(&Ctx<'js>),
    script: &str,
) -> String {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let base = format!("http://{}/", server.addr);
    let script = script.to_owned();
    runtime.block_on(async move {
        let runtime = AsyncRuntime::new().unwrap();
        let context = AsyncContext::full(&runtime).await.unwrap();
        let run = context.async_with(async |ctx| {
            globals.install(&ctx).unwrap();
            ctx.globals().set("BASE", base).unwrap();
            setup(&ctx);
            let mut options = EvalOptions::default();
            options.strict = false;
            options.promise = true;
            let promise: Promise = ctx.eval_with_options(script, options).unwrap();
            if let Err(e) = promise.into_future::<()>().await.catch(&ctx) {
                panic!("the script threw: {e}");
            }
            ctx.eval::<String, _>("JSON.stringify(globalThis.result)")
                .unwrap()
        });
        let result = tokio::time::timeout(LIMIT, run).await.unwrap();
        tokio::time::timeout(LIMIT, runtime.idle()).await.unwrap();
        result
    })
}

fn client() -> Client {
    Client::builder().build().unwrap()
}

#[test]
fn fetch_gets_json_from_a_server_on_127_0_0_1() {
    let rt = server_runtime();
    let server = serve(&rt);
    let r = run_script(
        Globals::new(client()),
        &server,
        |_| {},
        "const response = await fetch(BASE + 'json'); \
         const data = await response.json(); \
         result = [response.ok, response.status, response.headers.get('content-type'), \
           response.url === BASE + 'json', data.name, data.items.length, response.bodyUsed];",
    );
    assert_eq!(
        r,
        r#"[true,200,"application/json",true,"whatwg-fetch",3,true]"#
    );
}

#[test]
fn a_response_body_streams_through_a_reader_before_it_has_all_arrived() {
    let rt = server_runtime();
    let server = serve(&rt);
    let gate = server.gate.clone();
    let r = run_script(
        Globals::new(client()),
        &server,
        // `release()` lets the server send the rest, once the first chunk was read.
        move |ctx| {
            let release = Function::new(ctx.clone(), move || gate.notify_one()).unwrap();
            ctx.globals().set("release", release).unwrap();
        },
        "const response = await fetch(BASE + 'stream'); \
         const reader = response.body.getReader(); \
         const decoder = new TextDecoder(); \
         const first = await reader.read(); \
         result = [decoder.decode(first.value), response.bodyUsed]; \
         release(); \
         let rest = ''; \
         for (;;) { \
           const { done, value } = await reader.read(); \
           if (done) break; \
           rest += decoder.decode(value, { stream: true }); \
           release(); \
         } \
         result.push(rest, response.body.locked);",
    );
    assert_eq!(r, r#"["one,",true,"two,three",true]"#);
}

#[test]
fn aborting_rejects_a_pending_fetch_and_errors_a_body_being_read() {
    let rt = server_runtime();
    let server = serve(&rt);
    let r = run_script(
        Globals::new(client()),
        &server,
        |_| {},
        "result = []; \
         const controller = new AbortController(); \
         const pending = fetch(BASE + 'hang', { signal: controller.signal }); \
         setTimeout(() => controller.abort(), 10); \
         try { await pending; result.push('resolved'); } \
         catch (e) { result.push(e.name, e instanceof DOMException, controller.signal.reason === e); } \
         const midway = new AbortController(); \
         const response = await fetch(BASE + 'stall-body', { signal: midway.signal }); \
         const reader = response.body.getReader(); \
         result.push(new TextDecoder().decode((await reader.read()).value)); \
         const why = new Error('enough'); \
         midway.abort(why); \
         try { await reader.read(); result.push('read on'); } catch (e) { result.push(e === why); } \
         try { await fetch(BASE + 'hang', { signal: AbortSignal.timeout(20) }); } \
         catch (e) { result.push(e.name); }",
    );
    assert_eq!(r, r#"["AbortError",true,true,"start",true,"TimeoutError"]"#);
}

#[test]
fn a_form_data_body_uploads_as_multipart_and_parses_back() {
    let rt = server_runtime();
    let server = serve(&rt);
    let r = run_script(
        Globals::new(client()),
        &server,
        |_| {},
        "const form = new FormData(); \
         form.append('title', 'Holiday'); \
         form.append('photo', new File([new Uint8Array([0x89, 0x50, 0x4e, 0x47])], 'beach.png', { type: 'image/png' })); \
         const response = await fetch(BASE + 'echo', { method: 'POST', body: form }); \
         const sent = response.headers.get('x-content-type'); \
         const body = await response.arrayBuffer(); \
         const parsed = await new Response(body, { headers: { 'content-type': sent } }).formData(); \
         const photo = parsed.get('photo'); \
         result = [response.headers.get('x-method'), sent.startsWith('multipart/form-data; boundary='), \
           parsed.get('title'), photo.name, photo.type, [...new Uint8Array(await photo.arrayBuffer())]];",
    );
    assert_eq!(
        r,
        r#"["POST",true,"Holiday","beach.png","image/png",[137,80,78,71]]"#
    );
}

#[test]
fn a_form_data_entry_gives_back_the_very_file_it_holds() {
    // XHR's "create an entry": a File given without a filename is the entry's value as it
    // is; a Blob, or a File given a filename, becomes one new File, the same at each read.
    let rt = server_runtime();
    let server = serve(&rt);
    let r = run_script(
        Globals::new(client()),
        &server,
        |_| {},
        "const form = new FormData(); \
         const file = new File(['hello'], 'hello.txt'); \
         const blob = new Blob(['abc']); \
         form.append('f', file); \
         form.append('b', blob); \
         form.append('renamed', file, 'other.txt'); \
         const renamed = form.get('renamed'); \
         const set = new File([], 'set.txt'); \
         form.set('f', set); \
         const parsed = await new Response(form).formData(); \
         result = [ \
           form.get('f') === set, form.getAll('f').length, \
           form.get('b') === form.get('b'), form.get('b') !== blob, form.get('b').name, \
           renamed !== file, renamed === form.get('renamed'), renamed.name, \
           [...form.values()][0] === set, [...form.entries()][1][1] === form.get('b'), \
           parsed.get('f') === parsed.get('f'), parsed.get('f').name, \
         ];",
    );
    assert_eq!(
        r,
        r#"[true,1,true,true,"blob",true,true,"other.txt",true,true,true,"set.txt"]"#
    );
}

#[test]
fn a_readable_stream_uploads_as_a_streamed_request_body() {
    let rt = server_runtime();
    let server = serve(&rt);
    let r = run_script(
        Globals::new(client()),
        &server,
        |_| {},
        "const parts = ['a', 'bc', 'def']; \
         const body = new ReadableStream({ pull(controller) { \
           const next = parts.shift(); \
           if (next === undefined) controller.close(); \
           else controller.enqueue(new TextEncoder().encode(next)); } }); \
         const response = await fetch(BASE + 'echo', { method: 'PUT', body, duplex: 'half' }); \
         result = [response.headers.get('x-method'), response.headers.get('x-chunked'), await response.text()];",
    );
    assert_eq!(r, r#"["PUT","true","abcdef"]"#);
}

#[test]
fn a_refused_connection_rejects_with_a_type_error() {
    let rt = server_runtime();
    let server = serve(&rt);
    // A port that was free a moment ago: nothing listens there.
    let closed = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap();
    let r = run_script(
        Globals::new(client()),
        &server,
        move |ctx| ctx.globals().set("CLOSED", closed.to_string()).unwrap(),
        "try { await fetch('http://' + CLOSED + '/'); result = 'resolved'; } \
         catch (e) { result = [e.name, e instanceof TypeError]; }",
    );
    assert_eq!(r, r#"["TypeError",true]"#);
}

#[test]
fn on_a_host_runtime_connections_outlive_the_engine_that_opened_them() {
    // The host: a multi-thread runtime running the server, and one client built there.
    let host = server_runtime();
    let server = serve(&host);
    let client = host.block_on(async { client() });
    let script = "const response = await fetch(BASE + 'json'); \
                  result = [(await response.json()).name];";
    // Two engines one after the other, each on a thread and runtime of its own that ends
    // with it. The second reuses the first one's connection, which lives on the host.
    for _ in 0..2 {
        let globals = Globals::new(client.clone()).network_runtime(host.handle().clone());
        let server = server.clone();
        let engine = std::thread::spawn(move || run_script(globals, &server, |_| {}, script));
        assert_eq!(engine.join().unwrap(), r#"["whatwg-fetch"]"#);
    }
    assert_eq!(server.connections.load(Ordering::SeqCst), 1);
}

#[test]
fn on_a_host_runtime_abort_and_a_streamed_upload_reach_across_threads() {
    let host = server_runtime();
    let server = serve(&host);
    let client = host.block_on(async { client() });
    let globals = Globals::new(client).network_runtime(host.handle().clone());
    let engine = std::thread::spawn(move || {
        run_script(
            globals,
            &server,
            |_| {},
            "result = []; \
             const controller = new AbortController(); \
             const why = { why: 'from the engine' }; \
             const pending = fetch(BASE + 'hang', { signal: controller.signal }); \
             setTimeout(() => controller.abort(why), 10); \
             try { await pending; result.push('resolved'); } catch (e) { result.push(e === why); } \
             try { await fetch(BASE + 'json', { signal: AbortSignal.abort() }); } \
             catch (e) { result.push(e.name); } \
             const parts = ['x', 'yz']; \
             const body = new ReadableStream({ pull(c) { const next = parts.shift(); \
               if (next === undefined) c.close(); else c.enqueue(new TextEncoder().encode(next)); } }); \
             const echoed = await fetch(BASE + 'echo', { method: 'POST', body, duplex: 'half' }); \
             result.push(await echoed.text());",
        )
    });
    assert_eq!(engine.join().unwrap(), r#"[true,"AbortError","xyz"]"#);
}

#[test]
fn a_response_nobody_references_stays_open_until_its_fetch_is_aborted() {
    let rt = server_runtime();
    let server = serve(&rt);
    let endless = server.endless.clone();
    let r = run_script(
        Globals::new(client()),
        &server,
        // `sent()`: the chunks `/endless` sent; `closed()`: whether its connection closed.
        move |ctx| {
            let seen = endless.clone();
            let sent =
                Function::new(ctx.clone(), move || seen.sent.load(Ordering::SeqCst)).unwrap();
            let closed = Function::new(ctx.clone(), move || {
                endless.closed.load(Ordering::SeqCst) > 0
            })
            .unwrap();
            ctx.globals().set("sent", sent).unwrap();
            ctx.globals().set("closed", closed).unwrap();
        },
        "const tick = () => new Promise(resolve => setTimeout(resolve, 5)); \
         const controller = new AbortController(); \
         await fetch(BASE + 'endless', { signal: controller.signal }); \
         /* The response is not referenced: the fetch keeps it while it can be aborted. */ \
         const start = sent(); \
         for (let i = 0; i < 2000 && sent() < start + 20 && !closed(); i++) await tick(); \
         result = [closed()]; \
         controller.abort(); \
         for (let i = 0; i < 2000 && !closed(); i++) await tick(); \
         result.push(closed());",
    );
    assert_eq!(r, "[false,true]");
}

#[test]
fn a_kept_response_is_freed_once_its_controller_is_collected_unaborted() {
    let rt = server_runtime();
    let server = serve(&rt);
    let endless = server.endless.clone();
    let r = run_script(
        Globals::new(client()),
        &server,
        move |ctx| {
            let closed = Function::new(ctx.clone(), move || {
                endless.closed.load(Ordering::SeqCst) > 0
            })
            .unwrap();
            ctx.globals().set("closed", closed).unwrap();
        },
        "const tick = () => new Promise(resolve => setTimeout(resolve, 5)); \
         /* Neither the controller nor the response outlives this function. */ \
         await (async () => { \
           const controller = new AbortController(); \
           await fetch(BASE + 'endless', { signal: controller.signal }); \
         })(); \
         for (let i = 0; i < 2000 && !closed(); i++) await tick(); \
         result = closed();",
    );
    assert_eq!(r, "true");
}

/// The script of [`an_aborted_fetch_or_body_rejects_with_the_signals_reason_itself`]: every
/// kind of signal, aborted at every point a fetch can be, each rejection compared by identity
/// with `signal.reason`. `result` is `[checked, failures]`, a failure naming its case.
const REASON_IDENTITY: &str = r#"
const sleep = ms => new Promise(resolve => setTimeout(resolve, ms));
const whenAborted = signal => signal.aborted ? Promise.resolve()
  : new Promise(resolve => signal.addEventListener('abort', resolve));
// Long enough for a response head from 127.0.0.1 to arrive first, when the body is read.
const timeoutFor = point => (point === 'before' || point === 'flight' || point === 'request') ? 20 : 1000;
// Each kind of signal: `signal` to fetch with, `abort()` (settled once it is aborted),
// `also` (other signals whose reason must be the same value), `check(e)` (more to hold).
const controllerWith = (...reason) => () => {
  const c = new AbortController();
  return { signal: c.signal, abort: async () => { await sleep(10); c.abort(...reason); } };
};
const kinds = {
  'abort(object)': controllerWith({ why: 'an object' }),
  'abort(string)': controllerWith('a string'),
  'abort()': Object.assign(controllerWith(), {
    check: e => e instanceof DOMException && e.name === 'AbortError' }),
  'abort(undefined)': Object.assign(controllerWith(undefined), {
    check: e => e instanceof DOMException && e.name === 'AbortError' }),
  'AbortSignal.abort()': Object.assign(() => ({ signal: AbortSignal.abort(), abort: async () => {} }), {
    check: e => e instanceof DOMException && e.name === 'AbortError', already: true }),
  'AbortSignal.abort(reason)': Object.assign(
    () => ({ signal: AbortSignal.abort(new RangeError('mine')), abort: async () => {} }),
    { check: e => e instanceof RangeError, already: true }),
  'AbortSignal.timeout': Object.assign(point => {
    const signal = AbortSignal.timeout(timeoutFor(point));
    return { signal, abort: () => whenAborted(signal) };
  }, { check: e => e instanceof DOMException && e.name === 'TimeoutError' }),
  'AbortSignal.any(controller)': () => {
    const c = new AbortController();
    const signal = AbortSignal.any([new AbortController().signal, c.signal]);
    return { signal, also: [c.signal], abort: async () => { await sleep(10); c.abort({ why: 'any' }); } };
  },
  'AbortSignal.any(timeout)': Object.assign(point => {
    const t = AbortSignal.timeout(timeoutFor(point));
    const signal = AbortSignal.any([new AbortController().signal, t]);
    return { signal, also: [t], abort: () => whenAborted(signal) };
  }, { check: e => e instanceof DOMException && e.name === 'TimeoutError' }),
  'AbortSignal.any(any(timeout))': Object.assign(point => {
    const t = AbortSignal.timeout(timeoutFor(point));
    const signal = AbortSignal.any([AbortSignal.any([t])]);
    return { signal, also: [t], abort: () => whenAborted(signal) };
  }, { check: e => e instanceof DOMException && e.name === 'TimeoutError' }),
};
// Each point at which the signal aborts: runs the fetch and gives what it rejected with.
const points = {
  before: async k => { await k.abort(); await fetch(BASE + 'json', { signal: k.signal }); },
  flight: async k => {
    const p = fetch(BASE + 'hang', { signal: k.signal });
    await k.abort();
    await p;
  },
  request: async k => {
    const request = new Request(BASE + 'hang', { signal: k.signal });
    k.also = [...(k.also ?? []), request.signal];
    const p = fetch(request);
    await k.abort();
    await p;
  },
  text: async k => {
    const response = await fetch(BASE + 'stall-body', { signal: k.signal });
    k.responded = true;
    const p = response.text();
    await k.abort();
    await p;
  },
  arrayBuffer: async k => {
    const response = await fetch(BASE + 'stall-body', { signal: k.signal });
    k.responded = true;
    const p = response.arrayBuffer();
    await k.abort();
    await p;
  },
  reader: async k => {
    const response = await fetch(BASE + 'stall-body', { signal: k.signal });
    k.responded = true;
    const reader = response.body.getReader();
    await reader.read();
    const p = reader.read();
    k.closed = reader.closed;
    k.closed.catch(() => {});
    await k.abort();
    await p;
  },
};
const failures = [];
let checked = 0;
const cases = [];
for (const [kind, make] of Object.entries(kinds)) {
  for (const [point, run] of Object.entries(points)) {
    if (make.already && point !== 'before' && point !== 'request') continue;
    const name = `${kind} ${point}`;
    const k = make(point);
    cases.push((async () => {
      checked++;
      try {
        await run(k);
        failures.push(`${name}: fulfilled`);
        return;
      } catch (e) {
        if (!(point in { before: 1, flight: 1, request: 1 }) && !k.responded) {
          failures.push(`${name}: aborted before the response`);
        }
        if (e !== k.signal.reason) failures.push(`${name}: ${String(e)} is not signal.reason`);
        for (const s of k.also ?? []) {
          if (e !== s.reason) failures.push(`${name}: ${String(e)} is not the reason of a signal it follows`);
        }
        if (make.check && !make.check(e)) failures.push(`${name}: ${String(e)} is not the default reason`);
        if (k.closed) {
          try { await k.closed; failures.push(`${name}: the stream closed`); }
          catch (c) { if (c !== e) failures.push(`${name}: the stream errored with ${String(c)}`); }
        }
      }
    })());
  }
}
await Promise.all(cases);
result = [checked, failures];
"#;

#[test]
fn an_aborted_fetch_or_body_rejects_with_the_signals_reason_itself() {
    let rt = server_runtime();
    let server = serve(&rt);
    let r = run_script(Globals::new(client()), &server, |_| {}, REASON_IDENTITY);
    // 8 kinds of signal aborted at 6 points, and 2 already aborted ones at 2.
    assert_eq!(r, "[52,[]]");
}

#[test]
fn on_a_host_runtime_an_aborted_fetch_or_body_rejects_with_the_signals_reason_itself() {
    let host = server_runtime();
    let server = serve(&host);
    let client = host.block_on(async { client() });
    let globals = Globals::new(client).network_runtime(host.handle().clone());
    let engine = std::thread::spawn(move || run_script(globals, &server, |_| {}, REASON_IDENTITY));
    assert_eq!(engine.join().unwrap(), "[52,[]]");
}
