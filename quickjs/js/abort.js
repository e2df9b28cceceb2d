// AbortController and AbortSignal — https://dom.spec.whatwg.org/#aborting-ongoing-activities
// A Web IDL layer over src/abort.rs. Aborting, dependent signals (any) and
// timeouts happen in the crate; its `abort` event listeners tell this script which events to
// dispatch, in the crate's order.
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  const idl = globalThis.__fetch_idl;
  const S = self => idl.slot(self, "AbortSignal");
  const byId = new Map();
  // Promise.prototype.then as it was, for a reaction a script's patches must not see.
  const promiseThen = Promise.prototype.then;
  let nextId = 1;

  // Dispatches the abort events the crate fired, in order.
  function dispatchFired() {
    for (const id of native.abort_take_fired()) {
      const signal = byId.get(id);
      if (signal === undefined) continue;
      byId.delete(id);
      S(signal).kept = undefined;
      __fetch_fire_event(signal, new Event("abort"));
    }
  }

  // The AbortSignal object for a native signal handle.
  function wrap(n) {
    const signal = idl.create(AbortSignal, ["AbortSignal"], { n, reason: undefined, onabort: null });
    if (!native.signal_aborted(n)) {
      const id = nextId++;
      idl.slot(signal, "AbortSignal").id = id;
      byId.set(id, signal);
      native.signal_listen(n, id);
    }
    return signal;
  }

  // Keeps `value` (a fetch's response) alive while one of `signals` can still abort: until
  // it aborts, or its controller is collected.
  function keepUntilAbort(signals, value) {
    for (const signal of signals) {
      const s = S(signal);
      if (native.signal_aborted(s.n)) continue;
      if (s.kept === undefined) s.kept = [];
      s.kept.push(value);
    }
  }
  // A controller's signal that its controller no longer reaches can never abort.
  const orphaned = typeof FinalizationRegistry === "function"
    ? new FinalizationRegistry(signal => {
      const s = S(signal);
      s.kept = undefined;
      if (s.id !== undefined) byId.delete(s.id);
    })
    : undefined;

  function reasonOf(s) {
    if (s.reason === undefined && native.signal_aborted(s.n)) s.reason = native.signal_reason(s.n);
    return s.reason;
  }

  class AbortSignal extends EventTarget {
    constructor() {
      throw new TypeError("Illegal constructor");
    }
    static abort(reason = undefined) {
      return wrap(native.signal_abort(reason));
    }
    static timeout(milliseconds) {
      if (arguments.length < 1) throw new TypeError("AbortSignal.timeout: 1 argument required");
      const ms = Number(milliseconds);
      if (!Number.isFinite(ms)) throw new TypeError("AbortSignal.timeout: milliseconds is not finite");
      const t = Math.trunc(ms);
      if (t < 0 || t > Number.MAX_SAFE_INTEGER) throw new TypeError("AbortSignal.timeout: milliseconds is out of range");
      // The crate's timer aborts a signal of its own with a new "TimeoutError"; the signal
      // returned is a controller's, aborted then with that reason made a script value once,
      // so that it is one value wherever it is seen, as a reason given to abort() is: this
      // signal's reason, the reason of every signal that follows it (any(), a Request's),
      // and what an aborted fetch or body read rejects with.
      const timer = native.signal_timeout(t);
      const controller = native.controller_new();
      const signal = wrap(native.controller_signal(controller));
      promiseThen.call(native.signal_wait(timer), () => {
        native.controller_abort(controller, native.signal_reason(timer));
        dispatchFired();
      });
      return signal;
    }
    static any(signals) {
      if (arguments.length < 1) throw new TypeError("AbortSignal.any: 1 argument required");
      const list = idl.sequence(signals, s => S(s).n, "signals");
      return wrap(native.signal_any(list));
    }
    get aborted() { return native.signal_aborted(S(this).n); }
    get reason() { return reasonOf(S(this)); }
    throwIfAborted() {
      const s = S(this);
      if (native.signal_aborted(s.n)) throw reasonOf(s);
    }
    get onabort() { return S(this).onabort; }
    // An event handler attribute: the dispatch in events.js calls it after the listeners.
    set onabort(v) { S(this).onabort = idl.isObject(v) ? v : null; }
  }

  class AbortController {
    constructor() {
      if (new.target === undefined) throw new TypeError("AbortController constructor: 'new' is required");
      const n = native.controller_new();
      const signal = wrap(native.controller_signal(n));
      idl.setSlot(this, ["AbortController"], { n, signal });
      if (orphaned !== undefined) orphaned.register(this, signal);
    }
    get signal() { return idl.slot(this, "AbortController").signal; }
    abort(reason = undefined) {
      const s = idl.slot(this, "AbortController");
      native.controller_abort(s.n, reason);
      dispatchFired();
    }
  }
  __fetch_interface(AbortSignal);
  __fetch_interface(AbortController);
  idl.wrapSignal = wrap;
  idl.signalHandle = v => S(v).n;
  idl.dispatchAbortEvents = dispatchFired;
  idl.keepUntilAbort = keepUntilAbort;
})();
