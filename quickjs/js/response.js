// Response — https://fetch.spec.whatwg.org/#response-class
// A Web IDL layer over src/response.rs: initialization, the static methods,
// filtering and clone() all run in the crate.
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  const idl = globalThis.__fetch_idl;
  const R = self => idl.slot(self, "Response");

  // The ResponseInit dictionary, members in IDL order: headers, status, statusText.
  function convertInit(init) {
    if (init === undefined || init === null) return [200, "", undefined];
    if (!idl.isObject(init)) throw new TypeError("ResponseInit is not an object");
    let v;
    const headers = (v = init.headers) !== undefined ? idl.headersInit(v) : undefined;
    const status = (v = init.status) !== undefined ? idl.integer(v, 16, false, false) : 200;
    const statusText = (v = init.statusText) !== undefined ? idl.byteString(v) : "";
    return [status, statusText, headers];
  }

  function wrap(n) {
    return idl.create(Response, ["Response"], { n, stream: undefined, synced: false });
  }

  class Response {
    constructor(body = null, init = undefined) {
      if (new.target === undefined) throw new TypeError("Response constructor: 'new' is required");
      const b = body === undefined ? null : idl.bodyInit(body);
      const [status, statusText, headers] = convertInit(init);
      const n = native.response_new(b, status, statusText, headers);
      const isStream = Array.isArray(b) && b[0] === "stream";
      idl.setSlot(this, ["Response"], { n, stream: isStream ? b[4] : undefined, synced: isStream, lock: isStream ? b[5] : undefined, cancelHolder: isStream ? b[6] : undefined });
    }
    static error() { return wrap(native.response_error()); }
    static redirect(url, status = 302) {
      if (arguments.length < 1) throw new TypeError("Response.redirect: 1 argument required");
      return wrap(native.response_redirect(idl.usvString(url), idl.integer(status, 16, false, false)));
    }
    static json(data, init = undefined) {
      if (arguments.length < 1) throw new TypeError("Response.json: 1 argument required");
      const [status, statusText, headers] = convertInit(init);
      return wrap(native.response_json(data, status, statusText, headers));
    }
    get type() { return attrs(this).type; }
    get url() { return attrs(this).url; }
    get redirected() { return attrs(this).redirected; }
    get status() { return attrs(this).status; }
    get ok() { return attrs(this).ok; }
    get statusText() { return attrs(this).statusText; }
    get headers() {
      const s = R(this);
      if (s.headers === undefined) s.headers = idl.wrapHeaders(native.response_headers(s.n));
      return s.headers;
    }
    clone() {
      const s = R(this);
      if (idl.bodyUnusable(s)) throw new TypeError("Response.clone: the body is locked or disturbed");
      const clone = wrap(native.response_clone(s.n));
      idl.cloneStreamBody(s, R(clone));
      return clone;
    }
  }
  function attrs(self) {
    const s = R(self);
    if (s.attrs === undefined) s.attrs = native.response_attrs(s.n);
    return s.attrs;
  }
  idl.bodyMixin(Response, "Response");
  __fetch_interface(Response);
  idl.wrapResponse = n => wrap(n);
})();
