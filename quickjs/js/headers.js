// Headers — https://fetch.spec.whatwg.org/#headers-class
// A Web IDL layer over src/headers.rs: names and values are ByteStrings; the
// guard, validation, normalization and sort-and-combine all happen in the crate.
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  const idl = globalThis.__fetch_idl;
  const S = self => idl.slot(self, "Headers");
  const H = self => S(self).n;
  // The sort-and-combine pairs, kept until the header list changes (only the methods
  // below change a list a script can reach): iterating asks for them at each step, and
  // making them anew each time took time quadratic in the number of headers, which a
  // server chooses for a response.
  function pairs(s) {
    if (s.pairs === undefined) s.pairs = native.headers_entries(s.n);
    return s.pairs;
  }

  // HeadersInit = sequence<sequence<ByteString>> or record<ByteString, ByteString>, as the
  // ["sequence" | "record", pairs] the native side takes; undefined stays undefined.
  function convertInit(init) {
    if (init === undefined) return undefined;
    if (!idl.isObject(init)) throw new TypeError("HeadersInit must be an object");
    const method = init[Symbol.iterator];
    if (method !== undefined && method !== null) {
      if (typeof method !== "function") throw new TypeError("HeadersInit's @@iterator is not callable");
      return ["sequence", idl.sequence(init, item => idl.sequence(item, idl.byteString, "header pair"), "HeadersInit")];
    }
    return ["record", idl.record(init, idl.byteString, idl.byteString)];
  }

  class Headers {
    constructor(init = undefined) {
      if (new.target === undefined) throw new TypeError("Headers constructor: 'new' is required");
      const converted = convertInit(init);
      idl.setSlot(this, ["Headers"], { n: native.headers_new(converted) });
    }
    append(name, value) {
      const s = S(this);
      if (arguments.length < 2) throw new TypeError("Headers.append: 2 arguments required");
      name = idl.byteString(name);
      value = idl.byteString(value);
      s.pairs = undefined;
      native.headers_append(s.n, name, value);
    }
    delete(name) {
      const s = S(this);
      if (arguments.length < 1) throw new TypeError("Headers.delete: 1 argument required");
      name = idl.byteString(name);
      s.pairs = undefined;
      native.headers_delete(s.n, name);
    }
    get(name) {
      const n = H(this);
      if (arguments.length < 1) throw new TypeError("Headers.get: 1 argument required");
      return native.headers_get(n, idl.byteString(name)) ?? null;
    }
    getSetCookie() { return native.headers_get_set_cookie(H(this)); }
    has(name) {
      const n = H(this);
      if (arguments.length < 1) throw new TypeError("Headers.has: 1 argument required");
      return native.headers_has(n, idl.byteString(name));
    }
    set(name, value) {
      const s = S(this);
      if (arguments.length < 2) throw new TypeError("Headers.set: 2 arguments required");
      name = idl.byteString(name);
      value = idl.byteString(value);
      s.pairs = undefined;
      native.headers_set(s.n, name, value);
    }
  }
  idl.pairIterable(Headers, "Headers", self => pairs(S(self)));
  __fetch_interface(Headers);

  // For Request and Response: HeadersInit conversion, and the Headers object over a native
  // header list that lives in a request or response.
  idl.headersInit = convertInit;
  idl.wrapHeaders = n => idl.create(Headers, ["Headers"], { n });
})();
