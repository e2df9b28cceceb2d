// The global scope of a dedicated worker, as WPT's `.any.worker.js` wrapper sees it:
// https://html.spec.whatwg.org/multipage/workers.html#dedicatedworkerglobalscope
// `__wpt_job` (set by the runtime) holds the worker script URL as `location`. Everything else
// on the global (fetch and the interfaces, timers, console, …) is whatwg-fetch-quickjs's.
(() => {
  "use strict";
  const job = globalThis.__wpt_job;
  const illegal = () => { throw new TypeError("Illegal constructor"); };
  function WorkerGlobalScope() { illegal(); }
  Object.setPrototypeOf(WorkerGlobalScope.prototype, EventTarget.prototype);
  Object.setPrototypeOf(WorkerGlobalScope, EventTarget);
  function DedicatedWorkerGlobalScope() { illegal(); }
  Object.setPrototypeOf(DedicatedWorkerGlobalScope.prototype, WorkerGlobalScope.prototype);
  Object.setPrototypeOf(DedicatedWorkerGlobalScope, WorkerGlobalScope);
  for (const C of [WorkerGlobalScope, DedicatedWorkerGlobalScope]) {
    Object.defineProperty(C.prototype, Symbol.toStringTag, { value: C.name, configurable: true });
    __fetch_expose(C.name, C);
  }
  Object.setPrototypeOf(globalThis, DedicatedWorkerGlobalScope.prototype);
  // https://fetch.spec.whatwg.org/#fetch-method: an operation of the WindowOrWorkerGlobalScope
  // mixin, on WorkerGlobalScope.prototype rather than on the global itself.
  Object.defineProperty(WorkerGlobalScope.prototype, "fetch", { value: globalThis.fetch, writable: true, enumerable: true, configurable: true });
  delete globalThis.fetch;

  const define = (name, value) => Object.defineProperty(globalThis, name,
    { value, writable: true, enumerable: true, configurable: true });
  define("self", globalThis);
  define("name", "");

  // https://html.spec.whatwg.org/multipage/workers.html#workerlocation
  const url = new URL(job.location);
  class WorkerLocation {
    constructor() { illegal(); }
    get href() { return url.href; }
    get origin() { return url.origin; }
    get protocol() { return url.protocol; }
    get host() { return url.host; }
    get hostname() { return url.hostname; }
    get port() { return url.port; }
    get pathname() { return url.pathname; }
    get search() { return url.search; }
    get hash() { return url.hash; }
    toString() { return url.href; }
  }
  __fetch_interface(WorkerLocation);
  const location = Object.create(WorkerLocation.prototype);
  Object.defineProperty(globalThis, "location", { get() { return location; }, enumerable: true, configurable: true });

  // WorkerNavigator, reduced to what tests read.
  const navigator = { userAgent: "whatwg-fetch-wpt", language: "en-US", languages: ["en-US"], onLine: true };
  Object.defineProperty(globalThis, "navigator", { get() { return navigator; }, enumerable: true, configurable: true });

  // Messages to the (absent) parent document go nowhere; testharness posts its results here.
  define("postMessage", function postMessage(message) {});
  define("close", function close() {});
  define("onerror", null);
  define("onunhandledrejection", null);

  // What WPT's `.any.worker.js` wrapper sets before loading testharness.js.
  define("GLOBAL", {
    isWindow() { return false; },
    isWorker() { return true; },
    isShadowRealm() { return false; },
  });
  if (job.title) define("META_TITLE", job.title);
})();
