// The global scope of a window, as WPT's `.any.html` and `.window.html` wrappers see it, without
// a DOM: https://html.spec.whatwg.org/multipage/nav-history-apis.html#the-window-object
// `__wpt_job` (set by the runtime) holds the page URL as `location`. Everything else on the
// global (fetch and the interfaces, timers, console, …) is whatwg-fetch-quickjs's.
//
// There is no document tree here. `document` exists only because testharness.js picks its
// window environment by `"document" in self`; it is an empty page that has finished loading:
// no elements (`getElementsByTagName` finds nothing, `getElementById` nothing), and none of
// the methods that make or insert them, so a test that needs a real document fails with a
// TypeError rather than passing.
(() => {
  "use strict";
  const job = globalThis.__wpt_job;
  const illegal = () => { throw new TypeError("Illegal constructor"); };
  function Window() { illegal(); }
  Object.setPrototypeOf(Window.prototype, EventTarget.prototype);
  Object.setPrototypeOf(Window, EventTarget);
  Object.defineProperty(Window.prototype, Symbol.toStringTag, { value: "Window", configurable: true });
  __fetch_expose("Window", Window);
  Object.setPrototypeOf(globalThis, Window.prototype);
  // QuickJS gives its global an own `Symbol.toStringTag` ("global"); a window's comes from
  // Window.prototype.
  if (Object.hasOwn(globalThis, Symbol.toStringTag)) delete globalThis[Symbol.toStringTag];

  const define = (name, value) => Object.defineProperty(globalThis, name,
    { value, writable: true, enumerable: true, configurable: true });
  const getter = (name, get) => Object.defineProperty(globalThis, name,
    { get, enumerable: true, configurable: true });
  // A top-level browsing context with no opener: `window`, `self`, `frames`, `parent` and
  // `top` are the global itself.
  for (const name of ["window", "self", "frames", "parent", "top"]) getter(name, () => globalThis);
  define("opener", null);
  define("name", "");
  define("length", 0);

  // https://html.spec.whatwg.org/multipage/nav-history-apis.html#the-location-interface,
  // read-only: there is no navigation.
  const url = new URL(job.location);
  class Location {
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
  __fetch_interface(Location);
  const location = Object.create(Location.prototype);
  getter("location", () => location);

  // Navigator, reduced to what tests read.
  const navigator = { userAgent: "whatwg-fetch-wpt", language: "en-US", languages: ["en-US"], onLine: true };
  getter("navigator", () => navigator);

  // The empty, loaded document described above.
  class Document {
    constructor() { illegal(); }
    get URL() { return url.href; }
    get documentURI() { return url.href; }
    get baseURI() { return url.href; }
    get location() { return location; }
    get defaultView() { return globalThis; }
    get readyState() { return "complete"; }
    get title() { return job.title ?? ""; }
    get documentElement() { return null; }
    get head() { return null; }
    get body() { return null; }
    getElementsByTagName(name) { return []; }
    getElementById(id) { return null; }
    querySelector(selectors) { return null; }
    querySelectorAll(selectors) { return []; }
  }
  __fetch_interface(Document);
  const document = Object.create(Document.prototype);
  getter("document", () => document);

  define("onerror", null);
  define("onunhandledrejection", null);
  define("onload", null);

  // What WPT's `.any.html` wrapper sets before loading testharness.js.
  define("GLOBAL", {
    isWindow() { return true; },
    isWorker() { return false; },
    isShadowRealm() { return false; },
  });
  if (job.title) define("META_TITLE", job.title);
})();
