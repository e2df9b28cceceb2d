// What a global scope offers besides its interfaces — console, timers, queueMicrotask,
// structuredClone, reportError, atob/btoa — and the global as an EventTarget, which receives
// the `error` and `unhandledrejection` events:
// https://html.spec.whatwg.org/multipage/webappapis.html#windoworworkerglobalscope
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  const define = (name, value) => Object.defineProperty(globalThis, name,
    { value, writable: true, enumerable: true, configurable: true });
  // The global is an EventTarget, as a Window or a WorkerGlobalScope is (an embedder may put
  // its own global interface in between).
  if (!(globalThis instanceof EventTarget)) Object.setPrototypeOf(globalThis, EventTarget.prototype);

  // https://console.spec.whatwg.org/, to the sink the embedder chose.
  const fmt = args => args.map(a => {
    if (typeof a === "string") return a;
    try { return a instanceof Error ? `${a.name}: ${a.message}` : JSON.stringify(a) ?? String(a); } catch (_) { return String(a); }
  }).join(" ");
  const logger = level => (...args) => native.console_log(level, fmt(args));
  const console = {};
  for (const level of ["log", "info", "warn", "error", "debug", "trace"]) console[level] = logger(level);
  console.assert = (c, ...a) => { if (!c) console.error("Assertion failed:", ...a); };
  define("console", console);

  // https://html.spec.whatwg.org/multipage/timers-and-user-prompts.html#timers
  const timers = new Map();
  let nextHandle = 1;
  function startTimer(handler, timeout, args, repeat) {
    const handle = nextHandle++;
    timeout = Number(timeout);
    if (!(timeout >= 0)) timeout = 0;
    const run = () => {
      if (!timers.has(handle)) return;
      if (!repeat) timers.delete(handle);
      try {
        if (typeof handler === "function") handler.apply(globalThis, args);
        else (0, eval)(String(handler));
      } catch (e) {
        __fetch_report_exception(e);
      }
      if (repeat && timers.has(handle)) native.timer_start(handle, timeout, run);
    };
    timers.set(handle, true);
    native.timer_start(handle, timeout, run);
    return handle;
  }
  function clearTimer(handle) {
    handle = Number(handle) >>> 0;
    if (timers.delete(handle)) native.timer_cancel(handle);
  }
  define("setTimeout", function setTimeout(handler, timeout = 0, ...args) { return startTimer(handler, timeout, args, false); });
  define("setInterval", function setInterval(handler, timeout = 0, ...args) { return startTimer(handler, timeout, args, true); });
  define("clearTimeout", function clearTimeout(handle = 0) { clearTimer(handle); });
  define("clearInterval", function clearInterval(handle = 0) { clearTimer(handle); });
  if (typeof globalThis.queueMicrotask !== "function") {
    define("queueMicrotask", function queueMicrotask(callback) {
      if (typeof callback !== "function") throw new TypeError("queueMicrotask: argument is not a function");
      Promise.resolve().then(() => { try { callback(); } catch (e) { __fetch_report_exception(e); } });
    });
  }
  // Called by the runtime once the microtask queue is empty with the rejections it saw, as
  // [promise, reason, handled] in order; what is still unhandled fires `unhandledrejection`
  // (https://html.spec.whatwg.org/multipage/webappapis.html#unhandled-promise-rejections),
  // and reaches the console when no listener canceled it.
  const unhandled = new Map();
  Object.defineProperty(globalThis, "__fetch_dispatch_rejections", {
    value(list) {
      for (const [promise, reason, handled] of list) {
        if (handled) unhandled.delete(promise);
        else unhandled.set(promise, reason);
      }
      for (const [promise, reason] of [...unhandled]) {
        unhandled.delete(promise);
        const event = new PromiseRejectionEvent("unhandledrejection", { promise, reason, cancelable: true });
        if (__fetch_fire_event(globalThis, event)) native.console_log("error", `Uncaught (in promise) ${__fetch_idl.describe(reason)}`);
      }
    },
    configurable: true,
  });
  // https://html.spec.whatwg.org/multipage/structured-data.html#dom-structuredclone, for the
  // JavaScript values this scope has (no platform objects besides DOMException).
  const ERRORS = { Error, EvalError, RangeError, ReferenceError, SyntaxError, TypeError, URIError };
  const dataCloneError = what => new DOMException(`${what} could not be cloned.`, "DataCloneError");
  function clone(value, memory) {
    if (value === null || (typeof value !== "object" && typeof value !== "function")) {
      if (typeof value === "symbol") throw dataCloneError("A symbol");
      return value;
    }
    if (memory.has(value)) return memory.get(value);
    const tag = Object.prototype.toString.call(value);
    let out;
    const remember = v => { memory.set(value, v); return v; };
    if (typeof value === "function") throw dataCloneError("A function");
    if (value instanceof DOMException) return remember(new DOMException(value.message, value.name));
    switch (tag) {
      case "[object Boolean]": return remember(Object(Boolean.prototype.valueOf.call(value)));
      case "[object Number]": return remember(Object(Number.prototype.valueOf.call(value)));
      case "[object BigInt]": return remember(Object(BigInt.prototype.valueOf.call(value)));
      case "[object String]": return remember(Object(String.prototype.valueOf.call(value)));
      case "[object Date]": return remember(new Date(Date.prototype.getTime.call(value)));
      case "[object RegExp]": return remember(new RegExp(value.source, value.flags));
      case "[object ArrayBuffer]": return remember(ArrayBuffer.prototype.slice.call(value, 0));
      case "[object Map]": {
        out = remember(new Map());
        for (const [k, v] of Map.prototype.entries.call(value)) out.set(clone(k, memory), clone(v, memory));
        return out;
      }
      case "[object Set]": {
        out = remember(new Set());
        for (const v of Set.prototype.values.call(value)) out.add(clone(v, memory));
        return out;
      }
      case "[object Error]": {
        const name = ERRORS[value.name] ? value.name : "Error";
        out = remember(new ERRORS[name]());
        const message = Object.getOwnPropertyDescriptor(value, "message");
        if (message !== undefined) out.message = String(message.value);
        if ("cause" in value) out.cause = clone(value.cause, memory);
        return out;
      }
    }
    if (ArrayBuffer.isView(value)) {
      const buffer = clone(value.buffer, memory);
      const C = value.constructor;
      out = C === DataView ? new DataView(buffer, value.byteOffset, value.byteLength)
        : new C(buffer, value.byteOffset, value.length);
      return remember(out);
    }
    if (tag === "[object Promise]" || tag === "[object WeakMap]" || tag === "[object WeakSet]" || tag === "[object WeakRef]") {
      throw dataCloneError(tag.slice(8, -1));
    }
    if (Array.isArray(value)) {
      out = remember(new Array(value.length));
    } else if (Object.getPrototypeOf(value) === Object.prototype || Object.getPrototypeOf(value) === null || tag === "[object Object]") {
      out = remember({});
    } else {
      throw dataCloneError(tag.slice(8, -1));
    }
    for (const key of Object.keys(value)) out[key] = clone(value[key], memory);
    return out;
  }
  define("structuredClone", function structuredClone(value, options = undefined) {
    if (arguments.length < 1) throw new TypeError("structuredClone: 1 argument required");
    const transfer = options == null || options.transfer === undefined ? [] : [...options.transfer];
    if (transfer.some(t => !(t instanceof ArrayBuffer))) throw dataCloneError("A transferred value");
    const result = clone(value, new Map());
    for (const t of transfer) {
      if (typeof t.transfer === "function") t.transfer();
    }
    return result;
  });
  define("reportError", function reportError(e) { __fetch_report_exception(e); });

  // https://html.spec.whatwg.org/multipage/webappapis.html#atob
  const B64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  define("btoa", function btoa(data) {
    data = String(data);
    let out = "";
    for (let i = 0; i < data.length; i += 3) {
      const c = [0, 1, 2].map(k => i + k < data.length ? data.charCodeAt(i + k) : -1);
      if (c.some(x => x > 255)) throw new DOMException("The string contains characters outside of the Latin1 range.", "InvalidCharacterError");
      const n = (c[0] << 16) | ((c[1] & 255) << 8) | (c[2] & 255);
      out += B64[(n >> 18) & 63] + B64[(n >> 12) & 63] + (c[1] < 0 ? "=" : B64[(n >> 6) & 63]) + (c[2] < 0 ? "=" : B64[n & 63]);
    }
    return out;
  });
  define("atob", function atob(data) {
    data = String(data).replace(/[\t\n\f\r ]/g, "");
    if (data.length % 4 === 0) data = data.replace(/==?$/, "");
    if (data.length % 4 === 1 || /[^A-Za-z0-9+/]/.test(data)) {
      throw new DOMException("The string to be decoded is not correctly encoded.", "InvalidCharacterError");
    }
    let out = "", buffer = 0, bits = 0;
    for (const ch of data) {
      buffer = (buffer << 6) | B64.indexOf(ch);
      bits += 6;
      if (bits >= 8) { bits -= 8; out += String.fromCharCode((buffer >> bits) & 255); }
    }
    return out;
  });
})();
