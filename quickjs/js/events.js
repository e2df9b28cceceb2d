// Event and EventTarget — https://dom.spec.whatwg.org/#interface-event and
// https://dom.spec.whatwg.org/#interface-eventtarget — with ErrorEvent and
// PromiseRejectionEvent from HTML, which the harness listens for on the global, MessageEvent
// (EventSource's and WebSocket's) and the WebSockets Standard's CloseEvent.
// There is no tree here: dispatch reaches the target only.
(() => {
  "use strict";
  const ev = new WeakMap();
  function E(self) {
    const s = ev.get(self);
    if (s === undefined) throw new TypeError("Illegal invocation");
    return s;
  }
  class Event {
    constructor(type, eventInitDict = undefined) {
      if (arguments.length < 1) throw new TypeError("Event constructor: 1 argument required");
      const init = eventInitDict == null ? {} : eventInitDict;
      ev.set(this, {
        type: String(type), bubbles: !!init.bubbles, cancelable: !!init.cancelable,
        composed: !!init.composed, target: null, currentTarget: null, eventPhase: 0,
        canceled: false, stopPropagation: false, stopImmediate: false, dispatching: false,
        inPassiveListener: false, isTrusted: false, timeStamp: performance.now(),
      });
      Object.defineProperty(this, "isTrusted", { get() { return E(this).isTrusted; }, enumerable: true });
    }
    get type() { return E(this).type; }
    get target() { return E(this).target; }
    get srcElement() { return E(this).target; }
    get currentTarget() { return E(this).currentTarget; }
    composedPath() { const s = E(this); return s.currentTarget ? [s.currentTarget] : []; }
    get eventPhase() { return E(this).eventPhase; }
    stopPropagation() { E(this).stopPropagation = true; }
    get cancelBubble() { return E(this).stopPropagation; }
    set cancelBubble(v) { if (v) E(this).stopPropagation = true; }
    stopImmediatePropagation() { const s = E(this); s.stopPropagation = true; s.stopImmediate = true; }
    get bubbles() { return E(this).bubbles; }
    get cancelable() { return E(this).cancelable; }
    get returnValue() { return !E(this).canceled; }
    set returnValue(v) { const s = E(this); if (!v && s.cancelable && !s.inPassiveListener) s.canceled = true; }
    preventDefault() { const s = E(this); if (s.cancelable && !s.inPassiveListener) s.canceled = true; }
    get defaultPrevented() { return E(this).canceled; }
    get composed() { return E(this).composed; }
    get timeStamp() { return E(this).timeStamp; }
    initEvent(type, bubbles = false, cancelable = false) {
      const s = E(this);
      if (s.dispatching) return;
      Object.assign(s, { type: String(type), bubbles: !!bubbles, cancelable: !!cancelable,
        stopPropagation: false, stopImmediate: false, canceled: false, target: null });
    }
  }
  const PHASES = { NONE: 0, CAPTURING_PHASE: 1, AT_TARGET: 2, BUBBLING_PHASE: 3 };
  for (const [k, v] of Object.entries(PHASES)) {
    Object.defineProperty(Event, k, { value: v, enumerable: true });
    Object.defineProperty(Event.prototype, k, { value: v, enumerable: true });
  }

  const listenersOf = new WeakMap();
  function listeners(target) {
    let l = listenersOf.get(target);
    if (l === undefined) { l = []; listenersOf.set(target, l); }
    return l;
  }
  function flatten(options) {
    if (typeof options === "boolean") return { capture: options };
    if (options == null) return { capture: false };
    return { capture: !!options.capture, once: !!options.once, passive: options.passive, signal: options.signal };
  }
  class EventTarget {
    constructor() { listeners(this); }
    addEventListener(type, callback, options = undefined) {
      const o = flatten(options);
      if (o.signal !== undefined && o.signal !== null && o.signal.aborted) return;
      if (callback === null || callback === undefined) return;
      const target = this ?? globalThis;
      const list = listeners(target);
      type = String(type);
      if (list.some(l => l.type === type && l.callback === callback && l.capture === o.capture)) return;
      const entry = { type, callback, capture: o.capture, once: !!o.once, passive: !!o.passive, removed: false };
      list.push(entry);
      if (o.signal != null && typeof o.signal.addEventListener === "function") {
        o.signal.addEventListener("abort", () => EventTarget.prototype.removeEventListener.call(target, type, callback, o.capture));
      }
    }
    removeEventListener(type, callback, options = undefined) {
      const o = flatten(options);
      const target = this ?? globalThis;
      const list = listeners(target);
      type = String(type);
      const i = list.findIndex(l => l.type === type && l.callback === callback && l.capture === o.capture);
      if (i >= 0) { list[i].removed = true; list.splice(i, 1); }
    }
    dispatchEvent(event) {
      const s = E(event);
      if (s.dispatching) throw new DOMException("The event is already being dispatched.", "InvalidStateError");
      s.isTrusted = false;
      return dispatch(this ?? globalThis, event);
    }
  }
  // https://dom.spec.whatwg.org/#concept-event-dispatch, reduced to a target without a tree.
  function dispatch(target, event) {
    const s = E(event);
    s.dispatching = true;
    s.target = target;
    s.currentTarget = target;
    s.eventPhase = 2;
    for (const l of listeners(target).slice()) {
      if (l.removed || l.type !== s.type) continue;
      if (l.once) EventTarget.prototype.removeEventListener.call(target, l.type, l.callback, l.capture);
      s.inPassiveListener = l.passive;
      try {
        if (typeof l.callback === "function") l.callback.call(target, event);
        else if (l.callback && typeof l.callback.handleEvent === "function") l.callback.handleEvent(event);
      } catch (e) {
        __fetch_report_exception(e);
      }
      s.inPassiveListener = false;
      if (s.stopImmediate) break;
    }
    // The `on<type>` event handler attribute, when the target has one.
    const handler = target["on" + s.type];
    if (typeof handler === "function" && !s.stopImmediate) {
      try { handler.call(target, event); } catch (e) { __fetch_report_exception(e); }
    }
    s.dispatching = false;
    s.eventPhase = 0;
    s.currentTarget = null;
    s.stopPropagation = false;
    s.stopImmediate = false;
    return !s.canceled;
  }
  // Used by the runtime (and later by bindings such as AbortSignal) to fire trusted events.
  function fire(target, event) { E(event).isTrusted = true; return dispatch(target, event); }

  // https://dom.spec.whatwg.org/#interface-customevent
  const details = new WeakMap();
  class CustomEvent extends Event {
    constructor(type, eventInitDict = undefined) {
      super(type, eventInitDict);
      details.set(this, eventInitDict == null || eventInitDict.detail === undefined ? null : eventInitDict.detail);
    }
    get detail() {
      if (!details.has(this)) throw new TypeError("Illegal invocation");
      return details.get(this);
    }
    initCustomEvent(type, bubbles = false, cancelable = false, detail = null) {
      this.initEvent(type, bubbles, cancelable);
      details.set(this, detail);
    }
  }
  // https://html.spec.whatwg.org/multipage/webappapis.html#errorevent and #promiserejectionevent
  const inits = new WeakMap();
  const I = self => { const i = inits.get(self); if (!i) throw new TypeError("Illegal invocation"); return i; };
  class ErrorEvent extends Event {
    constructor(type, init = undefined) {
      super(type, init);
      const i = init == null ? {} : init;
      inits.set(this, { colno: (i.colno ?? 0) >>> 0, error: i.error, filename: String(i.filename ?? ""),
        lineno: (i.lineno ?? 0) >>> 0, message: String(i.message ?? "") });
    }
    get message() { return I(this).message; }
    get filename() { return I(this).filename; }
    get lineno() { return I(this).lineno; }
    get colno() { return I(this).colno; }
    get error() { return I(this).error; }
  }
  class PromiseRejectionEvent extends Event {
    constructor(type, init) {
      super(type, init);
      if (init == null || typeof init.promise !== "object") throw new TypeError("PromiseRejectionEvent: init.promise is required");
      inits.set(this, { promise: init.promise, reason: init.reason });
    }
    get promise() { return I(this).promise; }
    get reason() { return I(this).reason; }
  }
  // https://html.spec.whatwg.org/multipage/comms.html#the-messageevent-interface: what
  // EventSource fires (no MessagePort here: `ports` is always empty).
  class MessageEvent extends Event {
    constructor(type, init = undefined) {
      if (arguments.length < 1) throw new TypeError("MessageEvent constructor: 1 argument required");
      if (init !== undefined && init !== null && typeof init !== "object" && typeof init !== "function") {
        throw new TypeError("MessageEvent constructor: the init argument is not an object");
      }
      super(type, init);
      const i = init == null ? {} : init;
      inits.set(this, {
        data: i.data === undefined ? null : i.data,
        origin: globalThis.__fetch_idl.usvString(i.origin ?? ""),
        lastEventId: String(i.lastEventId ?? ""),
        source: i.source ?? null,
        ports: Object.freeze(i.ports === undefined ? [] : Array.from(i.ports)),
      });
    }
    get data() { return I(this).data; }
    get origin() { return I(this).origin; }
    get lastEventId() { return I(this).lastEventId; }
    get source() { return I(this).source; }
    get ports() { return I(this).ports; }
    initMessageEvent(type, bubbles = false, cancelable = false, data = null, origin = "", lastEventId = "", source = null, ports = []) {
      const i = I(this);
      this.initEvent(type, bubbles, cancelable);
      Object.assign(i, { data, origin: String(origin), lastEventId: String(lastEventId), source, ports: Object.freeze(Array.from(ports)) });
    }
  }
  // https://websockets.spec.whatwg.org/#the-closeevent-interface: what WebSocket fires.
  class CloseEvent extends Event {
    constructor(type, init = undefined) {
      if (arguments.length < 1) throw new TypeError("CloseEvent constructor: 1 argument required");
      if (init !== undefined && init !== null && typeof init !== "object" && typeof init !== "function") {
        throw new TypeError("CloseEvent constructor: the init argument is not an object");
      }
      super(type, init);
      const i = init == null ? {} : init;
      const idl = globalThis.__fetch_idl;
      inits.set(this, {
        wasClean: !!i.wasClean,
        code: i.code === undefined ? 0 : idl.integer(i.code, 16, false, false),
        reason: i.reason === undefined ? "" : idl.usvString(i.reason),
      });
    }
    get wasClean() { return I(this).wasClean; }
    get code() { return I(this).code; }
    get reason() { return I(this).reason; }
  }
  for (const C of [Event, EventTarget, CustomEvent, ErrorEvent, PromiseRejectionEvent, MessageEvent, CloseEvent]) __fetch_interface(C);
  Object.defineProperty(globalThis, "__fetch_fire_event", { value: fire, configurable: true });
  // Report an exception the way HTML's "report an exception" does: an `error` event at the
  // global, and the console when no listener canceled it.
  const native = globalThis.__fetch_native;
  Object.defineProperty(globalThis, "__fetch_report_exception", {
    value(error) {
      let message = "uncaught exception";
      try { message = error && error.message !== undefined ? String(error.message) : String(error); } catch (_) {}
      const event = new ErrorEvent("error", { message, error, cancelable: true, filename: "", lineno: 0, colno: 0 });
      if (fire(globalThis, event)) native.console_log("error", `Uncaught ${globalThis.__fetch_idl.describe(error)}`);
    },
    configurable: true,
  });
})();
