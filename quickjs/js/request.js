// Request — https://fetch.spec.whatwg.org/#request-class
// A Web IDL layer over src/request.rs: the constructor steps, the header guard,
// the signal and clone() all run in the crate, in the client's environment.
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  const idl = globalThis.__fetch_idl;
  const R = self => idl.slot(self, "Request");

  // The RequestInit dictionary, members in IDL (lexicographic) order.
  // `extra.signal` is set to the signal object given, null included.
  function convertInit(init, extra) {
    const out = {};
    if (init === undefined || init === null) return out;
    if (!idl.isObject(init)) throw new TypeError("RequestInit is not an object");
    let v;
    if ((v = init.body) !== undefined) out.body = idl.bodyInit(v);
    if ((v = init.cache) !== undefined) out.cache = idl.enumString(v);
    if ((v = init.credentials) !== undefined) out.credentials = idl.enumString(v);
    if ((v = init.duplex) !== undefined) out.duplex = idl.enumString(v);
    if ((v = init.headers) !== undefined) out.headers = idl.headersInit(v);
    if ((v = init.integrity) !== undefined) out.integrity = idl.domString(v);
    if ((v = init.keepalive) !== undefined) out.keepalive = idl.boolean(v);
    if ((v = init.method) !== undefined) out.method = idl.byteString(v);
    if ((v = init.mode) !== undefined) out.mode = idl.enumString(v);
    if ((v = init.priority) !== undefined) out.priority = idl.enumString(v);
    if ((v = init.redirect) !== undefined) out.redirect = idl.enumString(v);
    if ((v = init.referrer) !== undefined) out.referrer = idl.usvString(v);
    if ((v = init.referrerPolicy) !== undefined) out.referrerPolicy = idl.enumString(v);
    if ((v = init.signal) !== undefined) {
      extra.signal = v;
      if (v === null) out.signal = null;
      else out.signal = idl.signalHandle(v);
    }
    if ((v = init.window) !== undefined) out.window = v === null ? "null" : "other";
    return out;
  }

  class Request {
    constructor(input, init = undefined) {
      if (new.target === undefined) throw new TypeError("Request constructor: 'new' is required");
      if (arguments.length < 1) throw new TypeError("Request constructor: 1 argument required");
      const inputSlot = idl.maybeSlot(input, "Request");
      const info = inputSlot !== undefined ? inputSlot.n : idl.usvString(input);
      const extra = {};
      const converted = convertInit(init, extra);
      const initBody = converted.body === undefined || converted.body === null ? null : converted.body;
      if (inputSlot !== undefined && initBody === null) {
        // The crate sees a body the script locked or disturbed through its stream only here.
        if (idl.bodyUnusable(inputSlot)) throw new TypeError("Request constructor: the input's body is locked or disturbed");
        idl.syncBody(inputSlot);
      }
      const n = native.request_new(info, converted);
      // Not in the spec: the script's AbortSignal objects this request's signal follows, for
      // fetch() to keep its response alive through them (abort.js, keepUntilAbort).
      let signals = [];
      if (extra.signal !== undefined) signals = extra.signal === null ? [] : [extra.signal];
      else if (inputSlot !== undefined) signals = inputSlot.signals ?? [];
      const s = { n, stream: undefined, synced: false, signals };
      if (Array.isArray(initBody) && initBody[0] === "stream") {
        s.stream = initBody[4];
        s.synced = true;
        s.lock = initBody[5];
        s.cancelHolder = initBody[6];
      }
      idl.setSlot(this, ["Request"], s);
    }
    get method() { return attrs(this).method; }
    get url() { return attrs(this).url; }
    get headers() {
      const s = R(this);
      if (s.headers === undefined) s.headers = idl.wrapHeaders(native.request_headers(s.n));
      return s.headers;
    }
    get destination() { return attrs(this).destination; }
    get referrer() { return attrs(this).referrer; }
    get referrerPolicy() { return attrs(this).referrerPolicy; }
    get mode() { return attrs(this).mode; }
    get credentials() { return attrs(this).credentials; }
    get cache() { return attrs(this).cache; }
    get redirect() { return attrs(this).redirect; }
    get integrity() { return attrs(this).integrity; }
    get keepalive() { return attrs(this).keepalive; }
    get isReloadNavigation() { return attrs(this).isReloadNavigation; }
    get isHistoryNavigation() { return attrs(this).isHistoryNavigation; }
    get signal() {
      const s = R(this);
      if (s.signal === undefined) s.signal = idl.wrapSignal(native.request_signal(s.n));
      return s.signal;
    }
    get duplex() { return attrs(this).duplex; }
    clone() {
      const s = R(this);
      if (idl.bodyUnusable(s)) throw new TypeError("Request.clone: the body is locked or disturbed");
      const c = { n: native.request_clone(s.n), stream: undefined, synced: false, signals: s.signals };
      const clone = idl.create(Request, ["Request"], c);
      idl.cloneStreamBody(s, c);
      return clone;
    }
  }
  function attrs(self) {
    const s = R(self);
    if (s.attrs === undefined) s.attrs = native.request_attrs(s.n);
    return s.attrs;
  }
  idl.bodyMixin(Request, "Request");
  __fetch_interface(Request);
})();
