//! # whatwg-fetch-quickjs
//!
//! `fetch()` for JavaScript embedded with [QuickJS](https://github.com/quickjs-ng/quickjs)
//! through [`rquickjs`]: the [Fetch Standard](https://fetch.spec.whatwg.org/)'s `fetch`,
//! `Headers`, `Request`, `Response`, the Body mixin, `FormData`, `Blob`/`File` and
//! `AbortController`/`AbortSignal`, with the behaviour of the spec-exact Rust implementation
//! in [`whatwg_fetch`], and the web platform pieces they stand on: WHATWG Streams, `URL`,
//! `URLSearchParams`, `TextEncoder`/`TextDecoder`, `DOMException`, `Event`/`EventTarget`,
//! timers and `console`.
//!
//! - [Installing](#installing)
//! - [Picking pieces](#picking-pieces)
//! - [Threads and runtimes](#threads-and-runtimes)
//! - [What is not here](#what-is-not-here)
//!
//! ## Installing
//!
//! One call puts everything on a context's global object, with a [`Client`] that decides
//! how `fetch()` behaves: server-side or browser-like (its
//! [origin](whatwg_fetch::ClientBuilder::origin)), proxies, timeouts, cookies, the HTTP
//! cache. Drive the engine on a current-thread tokio runtime; a script's promises settle as
//! the runtime runs.
//!
//! ```
//! use rquickjs::{AsyncContext, AsyncRuntime, CatchResultExt};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let tokio = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
//! tokio.block_on(async {
//!     let runtime = AsyncRuntime::new()?;
//!     let context = AsyncContext::full(&runtime).await?;
//!     let client = whatwg_fetch::Client::builder().build()?;
//!     let text = context
//!         .async_with(async |ctx| {
//!             whatwg_fetch_quickjs::install(&ctx, client).catch(&ctx).map_err(|e| e.to_string())?;
//!             // Top-level await; `data:` URLs need no network.
//!             let promise = ctx
//!                 .eval_promise(r#"
//!                     const response = await fetch("data:text/plain,hello");
//!                     globalThis.text = await response.text();
//!                 "#)
//!                 .catch(&ctx)
//!                 .map_err(|e| e.to_string())?;
//!             promise.into_future::<()>().await.catch(&ctx).map_err(|e| e.to_string())?;
//!             ctx.globals().get::<_, String>("text").map_err(|e| e.to_string())
//!         })
//!         .await?;
//!     assert_eq!(text, "hello");
//!     runtime.idle().await; // what is left: timers, bodies still streaming
//!     Ok(())
//! })
//! # }
//! ```
//!
//! `examples/run.rs` is a complete runtime in about thirty lines: it evaluates a script file with
//! top-level `await`, prints uncaught errors and unhandled rejections, and waits for the
//! script's timers and fetches.
//!
//! ## Picking pieces
//!
//! [`Globals`] installs a chosen subset: only `Headers`/`Request`/`Response` without
//! `fetch()` ([`Globals::fetch_types`]), only the Streams implementation
//! ([`Globals::streams`]), only `URL` ([`Globals::url`]), and so on. Each piece brings what
//! it stands on (`Request` needs streams, `URLSearchParams`, `AbortSignal`, events and
//! `DOMException`); [`Globals::console`] sends `console` output where the embedder wants, and
//! [`Globals::network_runtime`] runs fetches on another runtime (below).
//!
//! Every interface is a thin Web IDL layer in JavaScript (argument conversion, brand checks,
//! property shapes, iterators) over native operations that call one function of
//! [`whatwg_fetch`] each: no Fetch behaviour lives in the JavaScript. A response body
//! reaches the script as a byte `ReadableStream` that pulls one chunk from the network per
//! read, and a script's `ReadableStream` given as a request body is read by the crate one
//! chunk at a time, when the network asks for it.
//!
//! ## Threads and runtimes
//!
//! A QuickJS runtime is single-threaded (`rquickjs::AsyncRuntime` is not `Send`): it lives on
//! one thread and is driven by a **current-thread** tokio runtime there, with
//! `block_on`, `AsyncContext::async_with` and `AsyncRuntime::idle`. Timers,
//! `AbortSignal.timeout`, promise settlement and body reads are tasks of that runtime.
//!
//! A [`Client`] is `Send + Sync` and cheap to clone; its connection pool, and the task each
//! connection runs on, belong to whichever runtime spawned them. So there are two set-ups:
//!
//! - **A program whose only runtime drives QuickJS** (a command-line tool, the example, a
//!   test): install with [`install`]; fetches run on that same runtime.
//! - **A multi-thread host** (a server that runs scripts): build the `Client` on the host's
//!   multi-thread runtime and hand its [`Handle`](tokio::runtime::Handle) to
//!   [`Globals::network_runtime`]. Each `fetch()` then runs as a task on the host's runtime —
//!   resolving, connecting, TLS, sending the request and waiting for the response head — and
//!   the connections it opens, with their tasks, stay in the pool there, shared by every
//!   engine that uses the client and alive after an engine's thread has ended. The engine's
//!   thread awaits the outcome and reads the body, whose bytes the connection task
//!   receives. Run each engine on a thread of its own (`std::thread::spawn`, or a
//!   `tokio::task::spawn_blocking` task), never with `block_on` on one of the host
//!   runtime's worker threads.
//!
//! ```
//! use std::time::Duration;
//! use rquickjs::{AsyncContext, AsyncRuntime, CatchResultExt};
//! use whatwg_fetch_quickjs::Globals;
//!
//! #[tokio::main(flavor = "multi_thread", worker_threads = 2)]
//! async fn main() -> Result<(), Box<dyn std::error::Error + Send + Sync>> {
//!     // The host: a multi-thread runtime, and one client for every script.
//!     let client = whatwg_fetch::Client::builder().timeout(Duration::from_secs(30)).build()?;
//!     let network = tokio::runtime::Handle::current();
//!     // A script engine: a thread of its own, with a current-thread runtime.
//!     let engine = std::thread::spawn(move || -> Result<String, String> {
//!         let tokio = tokio::runtime::Builder::new_current_thread()
//!             .enable_all()
//!             .build()
//!             .map_err(|e| e.to_string())?;
//!         tokio.block_on(async {
//!             let runtime = AsyncRuntime::new().map_err(|e| e.to_string())?;
//!             let context = AsyncContext::full(&runtime).await.map_err(|e| e.to_string())?;
//!             context
//!                 .async_with(async |ctx| {
//!                     Globals::new(client)
//!                         .network_runtime(network)
//!                         .install(&ctx)
//!                         .catch(&ctx)
//!                         .map_err(|e| e.to_string())?;
//!                     let status: rquickjs::Promise = ctx
//!                         .eval(r#"fetch("data:,x").then(r => r.statusText)"#)
//!                         .catch(&ctx)
//!                         .map_err(|e| e.to_string())?;
//!                     status.into_future::<String>().await.catch(&ctx).map_err(|e| e.to_string())
//!                 })
//!                 .await
//!         })
//!     });
//!     // The host's threads go on; only the engine's thread waits.
//!     let status = tokio::task::spawn_blocking(move || engine.join()).await?
//!         .map_err(|_| "the engine's thread panicked")??;
//!     assert_eq!(status, "OK");
//!     Ok(())
//! }
//! ```
//!
//! No native operation blocks: every wait (a response, a body chunk, a timer, an abort) is
//! a task on the engine's runtime or on the network runtime.
//!
//! ## What is not here
//!
//! There is no DOM: no `document`, `window`, `XMLHttpRequest`, `navigator`, `location`,
//! workers, `postMessage`, `importScripts` or modules loaded over the network. The global is
//! a plain object made an `EventTarget` (for `error` and `unhandledrejection` events); an
//! embedder that wants a `Window` or a worker scope builds it on top. `crypto` has
//! `getRandomValues`, `randomUUID` and `subtle.digest` with SHA-256/384/512 only;
//! `TextDecoder` decodes UTF-8 only; `structuredClone` clones JavaScript values and
//! `DOMException`, not platform objects. The Cache API is not built.
//!
//! ## Conformance
//!
//! The web-platform-tests for Fetch, `EventSource` and `WebSocket` (with `WebSocketStream`)
//! run on these bindings (`wpt/` in the repository): in a dedicated-worker scope 4,927 of
//! 4,999 subtests pass on the pinned suite; `wpt/README.md` explains each expected failure.

#![deny(missing_docs)]
#![cfg_attr(
    not(test),
    deny(clippy::unwrap_used, clippy::expect_used, clippy::panic)
)]

mod abort;
mod blob;
mod body;
mod crypto;
mod encoding;
mod error;
mod event_source;
mod fetch;
mod form_data;
mod handle;
mod headers;
mod promise;
mod request;
mod response;
mod state;
mod streams;
mod timers;
mod url;
mod websocket;

#[cfg(test)]
mod tests;

use std::cell::RefCell;
use std::collections::HashMap;
use std::fmt;
use std::rc::Rc;

use rquickjs::context::EvalOptions;
use rquickjs::{AsyncRuntime, Ctx, Function, Object, Persistent, Value};
use whatwg_fetch::Client;

use crate::state::{ConsoleSink, SharedState, State};

pub use rquickjs;
pub use whatwg_fetch;

/// Installs every global of this crate into `ctx`: `fetch()` through `client`, and all the
/// interfaces and functions [`Globals::new`] lists.
///
/// Install once per context, before the scripts that use the globals run.
///
/// # Errors
/// An engine failure (out of memory), with the exception pending in `ctx`: read it with
/// `ctx.catch()` or [`rquickjs::CatchResultExt::catch`].
pub fn install(ctx: &Ctx<'_>, client: Client) -> rquickjs::Result<()> {
    Globals::new(client).install(ctx)
}

/// A `console` method, as [`Globals::console`]'s sink receives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum ConsoleLevel {
    /// `console.log`.
    Log,
    /// `console.info`.
    Info,
    /// `console.warn`.
    Warn,
    /// `console.error`, a failed `console.assert`, and an uncaught exception or unhandled
    /// rejection that no listener canceled.
    Error,
    /// `console.debug`.
    Debug,
    /// `console.trace`.
    Trace,
}

impl ConsoleLevel {
    /// The level of the `console` method named `method`; `Log` for any other.
    fn from_method(method: &str) -> ConsoleLevel {
        match method {
            "info" => ConsoleLevel::Info,
            "warn" => ConsoleLevel::Warn,
            "error" => ConsoleLevel::Error,
            "debug" => ConsoleLevel::Debug,
            "trace" => ConsoleLevel::Trace,
            _ => ConsoleLevel::Log,
        }
    }
}

/// The default console: `log`, `info` and `debug` to stdout, `warn`, `error` and `trace`
/// to stderr, one line each.
fn default_console(level: ConsoleLevel, text: &str) {
    match level {
        ConsoleLevel::Log | ConsoleLevel::Info | ConsoleLevel::Debug => println!("{text}"),
        _ => eprintln!("{text}"),
    }
}

/// The pieces a [`Globals`] installs, each with those it stands on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Pieces {
    dom_exception: bool,
    events: bool,
    url: bool,
    encoding: bool,
    crypto: bool,
    streams: bool,
    fetch_types: bool,
    fetch: bool,
    event_source: bool,
    websocket: bool,
    scope: bool,
}

/// A binding script: its file name, its source, and whether a selection includes it.
type Script = (&'static str, &'static str, fn(&Pieces) -> bool);

/// The binding scripts in the order they run.
const SCRIPTS: &[Script] = &[
    (
        "dom_exception.js",
        include_str!("../js/dom_exception.js"),
        |p| p.dom_exception,
    ),
    ("events.js", include_str!("../js/events.js"), |p| p.events),
    ("url.js", include_str!("../js/url.js"), |p| p.url),
    ("encoding.js", include_str!("../js/encoding.js"), |p| {
        p.encoding
    }),
    ("crypto.js", include_str!("../js/crypto.js"), |p| p.crypto),
    ("streams.js", include_str!("../js/streams.js"), |p| {
        p.fetch_types
    }),
    ("abort.js", include_str!("../js/abort.js"), |p| {
        p.fetch_types
    }),
    ("blob.js", include_str!("../js/blob.js"), |p| p.fetch_types),
    ("form_data.js", include_str!("../js/form_data.js"), |p| {
        p.fetch_types
    }),
    ("headers.js", include_str!("../js/headers.js"), |p| {
        p.fetch_types
    }),
    ("body.js", include_str!("../js/body.js"), |p| p.fetch_types),
    ("request.js", include_str!("../js/request.js"), |p| {
        p.fetch_types
    }),
    ("response.js", include_str!("../js/response.js"), |p| {
        p.fetch_types
    }),
    ("fetch.js", include_str!("../js/fetch.js"), |p| p.fetch),
    (
        "event_source.js",
        include_str!("../js/event_source.js"),
        |p| p.event_source,
    ),
    ("websocket.js", include_str!("../js/websocket.js"), |p| {
        p.websocket
    }),
    ("scope.js", include_str!("../js/scope.js"), |p| p.scope),
    // The WHATWG Streams implementation last, as the others look `ReadableStream` up only
    // when they make one.
    (
        "web-streams-polyfill.js",
        include_str!("../js/vendor/web-streams-polyfill/polyfill.js"),
        |p| p.streams,
    ),
];

/// The helpers every binding script uses; always installed first.
const PRELUDE: (&str, &str) = ("prelude.js", include_str!("../js/prelude.js"));

// A host may make a `Globals` on one thread and install it on an engine's.
const _: fn() = || {
    fn assert_send<T: Send>() {}
    assert_send::<Globals>();
};

/// The hidden global holding the native operations while the binding scripts run.
const NATIVE: &str = "__fetch_native";

/// Which globals to install into a context, and how: a builder, ended by
/// [`install`](Globals::install).
///
/// [`Globals::new`] selects everything; [`Globals::empty`] nothing, to add pieces one by
/// one. Each piece brings the pieces it stands on. Whatever is selected, `performance`
/// (`now()` and `timeOrigin`) is installed, and a few hidden helpers named `__fetch_*`
/// (not enumerable) that the bindings share.
///
/// ```
/// use rquickjs::{Context, Runtime};
/// use whatwg_fetch_quickjs::Globals;
///
/// # fn main() -> Result<(), rquickjs::Error> {
/// let runtime = Runtime::new()?;
/// let context = Context::full(&runtime)?;
/// context.with(|ctx| {
///     // Headers, Request and Response, but no fetch() and no network.
///     Globals::empty().fetch_types().install(&ctx)?;
///     let has: Vec<String> = ctx.eval("[typeof Headers, typeof fetch]")?;
///     assert_eq!(has, ["function", "undefined"]);
///     let content_type: String = ctx.eval(
///         "new Request('https://example.com/', { method: 'POST', body: 'x' }).headers.get('content-type')",
///     )?;
///     assert_eq!(content_type, "text/plain;charset=UTF-8");
///     Ok(())
/// })
/// # }
/// ```
pub struct Globals {
    pieces: Pieces,
    client: Option<Client>,
    network: Option<tokio::runtime::Handle>,
    console: ConsoleSink,
}

impl fmt::Debug for Globals {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Globals")
            .field("pieces", &self.pieces)
            .field("client", &self.client)
            .field("network", &self.network)
            .finish_non_exhaustive()
    }
}

impl Default for Globals {
    /// As [`Globals::empty`].
    fn default() -> Globals {
        Globals::empty()
    }
}

impl Globals {
    /// Everything: [`fetch`](Globals::fetch), [`event_source`](Globals::event_source) and
    /// [`websocket`](Globals::websocket) through `client` with their interfaces,
    /// [`streams`](Globals::streams), [`url`](Globals::url),
    /// [`encoding`](Globals::encoding), [`crypto`](Globals::crypto),
    /// [`dom_exception`](Globals::dom_exception), [`events`](Globals::events) and
    /// [`scope`](Globals::scope). Fetches run on the engine's runtime and `console` writes to
    /// stdout and stderr, until [`network_runtime`](Globals::network_runtime) and
    /// [`console`](Globals::console) say otherwise.
    pub fn new(client: Client) -> Globals {
        Globals::empty()
            .fetch(client.clone())
            .event_source(client.clone())
            .websocket(client)
            .encoding()
            .crypto()
            .scope()
    }

    /// Nothing yet but `performance` and the hidden helpers: add pieces with the other
    /// methods.
    pub fn empty() -> Globals {
        Globals {
            pieces: Pieces::default(),
            client: None,
            network: None,
            console: Box::new(default_console),
        }
    }

    /// The [`fetch()` method](https://fetch.spec.whatwg.org/#fetch-method) through `client`,
    /// with everything of [`fetch_types`](Globals::fetch_types). The `Request` constructor,
    /// `Response.redirect` and blob URLs use `client`'s environment too.
    pub fn fetch(mut self, client: Client) -> Globals {
        self.client = Some(client);
        self.pieces.fetch = true;
        self.fetch_types()
    }

    /// `Headers`, `Request`, `Response` (with the Body mixin), `FormData`, `Blob`, `File`,
    /// `URL.createObjectURL`/`revokeObjectURL`, `AbortController` and `AbortSignal`, without
    /// `fetch()`; with [`streams`](Globals::streams), [`url`](Globals::url),
    /// [`events`](Globals::events) and [`dom_exception`](Globals::dom_exception), which they
    /// stand on. Without a client (see [`fetch`](Globals::fetch)), they use a server-side
    /// environment: no base URL, so a `Request` needs an absolute URL.
    pub fn fetch_types(mut self) -> Globals {
        self.pieces.fetch_types = true;
        self.streams().url().events()
    }

    /// The [WHATWG Streams](https://streams.spec.whatwg.org/): `ReadableStream`,
    /// `WritableStream`, `TransformStream`, their readers, writers and controllers,
    /// `ByteLengthQueuingStrategy` and `CountQueuingStrategy`, from the reference
    /// implementation's `web-streams-polyfill` 4.3.0 (MIT), bundled. It replaces streams the
    /// global may have already.
    pub fn streams(mut self) -> Globals {
        self.pieces.streams = true;
        self
    }

    /// [`URL`](https://url.spec.whatwg.org/#url-class) and
    /// [`URLSearchParams`](https://url.spec.whatwg.org/#interface-urlsearchparams), over the
    /// `url` crate.
    pub fn url(mut self) -> Globals {
        self.pieces.url = true;
        self
    }

    /// [`TextEncoder`](https://encoding.spec.whatwg.org/#interface-textencoder) (with
    /// `encodeInto`) and [`TextDecoder`](https://encoding.spec.whatwg.org/#interface-textdecoder)
    /// for UTF-8 (`fatal`, `ignoreBOM`, streaming).
    pub fn encoding(mut self) -> Globals {
        self.pieces.encoding = true;
        self
    }

    /// `crypto.getRandomValues`, `crypto.randomUUID` and `crypto.subtle.digest` with SHA-256,
    /// SHA-384 and SHA-512; with [`dom_exception`](Globals::dom_exception).
    pub fn crypto(mut self) -> Globals {
        self.pieces.crypto = true;
        self.dom_exception()
    }

    /// [`DOMException`](https://webidl.spec.whatwg.org/#idl-DOMException), with its legacy
    /// codes and `cause`.
    pub fn dom_exception(mut self) -> Globals {
        self.pieces.dom_exception = true;
        self
    }

    /// [`Event`](https://dom.spec.whatwg.org/#interface-event),
    /// [`EventTarget`](https://dom.spec.whatwg.org/#interface-eventtarget), `CustomEvent`,
    /// `ErrorEvent`, `PromiseRejectionEvent`, `MessageEvent` and `CloseEvent` (no tree: an event reaches
    /// its target only); with [`dom_exception`](Globals::dom_exception).
    pub fn events(mut self) -> Globals {
        self.pieces.events = true;
        self.dom_exception()
    }

    /// [`EventSource`](https://html.spec.whatwg.org/multipage/server-sent-events.html#the-eventsource-interface)
    /// (server-sent events) through `client`, over
    /// [`whatwg_fetch::event_source::EventSource`]: its connection is a fetch of the
    /// client's, reconnected as the HTML Standard says; with [`events`](Globals::events)
    /// and [`url`](Globals::url). An open event source keeps the runtime busy until it is
    /// closed.
    pub fn event_source(mut self, client: Client) -> Globals {
        self.client = Some(client);
        self.pieces.event_source = true;
        self.url().events()
    }

    /// [`WebSocket`](https://websockets.spec.whatwg.org/#the-websocket-interface),
    /// `CloseEvent`, and the streams-based `WebSocketStream` with its `WebSocketError`
    /// (tentative in the standard), through `client`, over [`whatwg_fetch::WebSocket`]: its opening
    /// handshake is a fetch of the client's (its TLS, proxies and cookie jar), with
    /// `permessage-deflate`; with [`events`](Globals::events), [`url`](Globals::url) and
    /// [`fetch_types`](Globals::fetch_types) (`Blob`, for binary messages). An open socket keeps the runtime busy until it is
    /// closed.
    pub fn websocket(mut self, client: Client) -> Globals {
        self.client = Some(client);
        self.pieces.websocket = true;
        self.fetch_types()
    }

    /// What a global scope offers besides interfaces: `console`, `setTimeout`/`setInterval`
    /// and their `clear*`, `queueMicrotask`, `structuredClone`, `reportError`, `atob`/`btoa`,
    /// and the global object made an `EventTarget` that receives `error` and
    /// `unhandledrejection` events (see [`report_exception`] and
    /// [`track_unhandled_rejections`]); with [`events`](Globals::events).
    pub fn scope(mut self) -> Globals {
        self.pieces.scope = true;
        self.events()
    }

    /// Runs each `fetch()` as a task on `runtime` (a multi-thread host's, where the
    /// client's connections then live) instead of the engine's runtime; see
    /// [Threads and runtimes](crate#threads-and-runtimes). Default is the engine's runtime.
    pub fn network_runtime(mut self, runtime: tokio::runtime::Handle) -> Globals {
        self.network = Some(runtime);
        self
    }

    /// Sends `console` output, one formatted line per call, to `sink`. Default is stdout
    /// for `log`, `info` and `debug`, and stderr for `warn`, `error` and `trace`.
    pub fn console(mut self, sink: impl Fn(ConsoleLevel, &str) + Send + 'static) -> Globals {
        self.console = Box::new(sink);
        self
    }

    /// Installs the selected globals into `ctx`'s global object.
    ///
    /// Install once per context, before the scripts that use the globals run.
    ///
    /// # Errors
    /// An engine failure (out of memory), with the exception pending in `ctx`: read it with
    /// `ctx.catch()` or [`rquickjs::CatchResultExt::catch`].
    pub fn install(self, ctx: &Ctx<'_>) -> rquickjs::Result<()> {
        self.install_with_state(ctx).map(|_| ())
    }

    /// As [`Globals::install`], returning the state the native operations share.
    fn install_with_state(self, ctx: &Ctx<'_>) -> rquickjs::Result<SharedState> {
        let state: SharedState = Rc::new(State::new(self.client, self.network, self.console));
        register_natives(ctx, &state)?;
        let (name, source) = PRELUDE;
        let mut outcome = eval_script(ctx, name, source);
        for (name, source, selected) in SCRIPTS {
            if outcome.is_err() {
                break;
            }
            if selected(&self.pieces) {
                outcome = eval_script(ctx, name, source);
            }
        }
        // The scripts captured what they use; the object goes whatever happened.
        let removed = ctx.globals().remove(NATIVE);
        outcome.and(removed).map(|()| state)
    }
}

/// Evaluates a binding script as a classic script in the global scope.
fn eval_script(ctx: &Ctx<'_>, name: &str, source: &str) -> rquickjs::Result<()> {
    let mut options = EvalOptions::default();
    options.global = true;
    options.strict = false;
    options.filename = Some(name.to_owned());
    ctx.eval_with_options::<(), _>(source, options)
}

/// Creates the hidden native-operations object and registers every binding's operations.
fn register_natives(ctx: &Ctx<'_>, state: &SharedState) -> rquickjs::Result<()> {
    let native = Object::new(ctx.clone())?;
    url::register(ctx, &native)?;
    encoding::register(ctx, &native)?;
    crypto::register(ctx, &native)?;
    timers::register(ctx, &native, state)?;
    streams::register(ctx, &native, state)?;
    state::register(ctx, &native, state)?;
    abort::register(ctx, &native, state)?;
    blob::register(ctx, &native, state)?;
    form_data::register(ctx, &native)?;
    headers::register(ctx, &native)?;
    body::register(ctx, &native, state)?;
    request::register(ctx, &native, state)?;
    response::register(ctx, &native, state)?;
    fetch::register(ctx, &native, state)?;
    event_source::register(ctx, &native, state)?;
    websocket::register(ctx, &native, state)?;
    ctx.globals().set(NATIVE, native)
}

/// Reports `error` as HTML's [report an exception](https://html.spec.whatwg.org/multipage/webappapis.html#report-an-exception)
/// does: an `ErrorEvent` named `error` at the global object, and the console (as
/// [`ConsoleLevel::Error`]) when no listener canceled it. For an exception a script threw
/// where no script catches it: a top-level script, a callback the embedder called.
///
/// # Errors
/// A context without [`Globals::events`], or an engine failure.
pub fn report_exception<'js>(ctx: &Ctx<'js>, error: Value<'js>) -> rquickjs::Result<()> {
    let report: Function = ctx.globals().get("__fetch_report_exception")?;
    report.call((error,))
}

/// A promise rejection QuickJS reported, kept until the microtask queue is empty.
type Rejection = (Persistent<Value<'static>>, Persistent<Value<'static>>, bool);

/// Makes the promise rejections of every context of `runtime` that has [`Globals::scope`]
/// fire [`unhandledrejection`](https://html.spec.whatwg.org/multipage/webappapis.html#unhandled-promise-rejections)
/// events at that context's global once the microtask queue is empty, and reach the
/// console when no listener canceled them. It takes the runtime's one promise rejection
/// tracker.
pub async fn track_unhandled_rejections(runtime: &AsyncRuntime) {
    // The rejections not dispatched yet, by context.
    let pending: Rc<RefCell<HashMap<usize, Vec<Rejection>>>> = Rc::default();
    runtime
        .set_host_promise_rejection_tracker(Some(Box::new(move |ctx, promise, reason, handled| {
            let key = ctx.as_raw().as_ptr() as usize;
            let first = {
                let mut pending = pending.borrow_mut();
                let batch = pending.entry(key).or_default();
                batch.push((
                    Persistent::save(&ctx, promise),
                    Persistent::save(&ctx, reason),
                    handled,
                ));
                batch.len() == 1
            };
            if !first {
                return;
            }
            let pending = pending.clone();
            let ctx2 = ctx.clone();
            // A spawned task first runs once the job queue is empty.
            ctx.spawn(async move {
                let batch = pending.borrow_mut().remove(&key).unwrap_or_default();
                if dispatch_rejections(&ctx2, batch).is_err() {
                    let _ = ctx2.catch();
                }
            });
        })))
        .await;
}

/// Hands a batch of `[promise, reason, handled]` to the scope's dispatcher.
fn dispatch_rejections(ctx: &Ctx<'_>, batch: Vec<Rejection>) -> rquickjs::Result<()> {
    let Some(dispatch) = ctx
        .globals()
        .get::<_, Option<Function>>("__fetch_dispatch_rejections")?
    else {
        return Ok(());
    };
    let list = rquickjs::Array::new(ctx.clone())?;
    for (i, (promise, reason, handled)) in batch.into_iter().enumerate() {
        let entry = rquickjs::Array::new(ctx.clone())?;
        entry.set(0, promise.restore(ctx)?)?;
        entry.set(1, reason.restore(ctx)?)?;
        entry.set(2, handled)?;
        list.set(i, entry)?;
    }
    dispatch.call((list,))
}
