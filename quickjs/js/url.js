// URL and URLSearchParams — https://url.spec.whatwg.org/#api
// A Web IDL layer over the `url` crate (src/url.rs): parsing, setters and
// application/x-www-form-urlencoded all happen in Rust.
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  const FIELDS = ["href", "origin", "protocol", "username", "password", "host", "hostname", "port", "pathname", "search", "hash"];
  function usv(s) {
    s = String(s);
    return typeof s.toWellFormed === "function" ? s.toWellFormed() : s;
  }
  const urls = new WeakMap();
  const params = new WeakMap();
  function U(self) { const s = urls.get(self); if (!s) throw new TypeError("Illegal invocation"); return s; }
  function P(self) { const s = params.get(self); if (!s) throw new TypeError("Illegal invocation"); return s; }
  function record(parts) { const r = {}; FIELDS.forEach((f, i) => { r[f] = parts[i]; }); return r; }

  class URL {
    constructor(url, base = undefined) {
      if (arguments.length < 1) throw new TypeError("URL constructor: 1 argument required");
      const parts = native.url_parse(usv(url), base === undefined ? undefined : usv(base));
      if (parts == null) throw new TypeError(`Invalid URL: ${url}`);
      const state = { r: record(parts), query: null };
      urls.set(this, state);
      state.query = newParams(native.urlencoded_parse(state.r.search.slice(1)), this);
    }
    static parse(url, base = undefined) {
      try { return new URL(url, base); } catch (_) { return null; }
    }
    static canParse(url, base = undefined) {
      return native.url_parse(usv(url), base === undefined ? undefined : usv(base)) != null;
    }
    get href() { return U(this).r.href; }
    set href(v) {
      const parts = native.url_parse(usv(v), undefined);
      if (parts == null) throw new TypeError(`Invalid URL: ${v}`);
      const s = U(this);
      s.r = record(parts);
      P(s.query).list = native.urlencoded_parse(s.r.search.slice(1));
    }
    toString() { return U(this).r.href; }
    toJSON() { return U(this).r.href; }
    get origin() { return U(this).r.origin; }
    get searchParams() { return U(this).query; }
  }
  for (const f of FIELDS.slice(2)) {
    Object.defineProperty(URL.prototype, f, {
      get() { return U(this).r[f]; },
      set(v) {
        const s = U(this);
        s.r = record(native.url_set(s.r.href, f, usv(v)));
        if (f === "search") P(s.query).list = native.urlencoded_parse(s.r.search.slice(1));
      },
      enumerable: true, configurable: true,
    });
  }

  function newParams(list, url) {
    const p = Object.create(URLSearchParams.prototype);
    params.set(p, { list, url });
    return p;
  }
  // https://url.spec.whatwg.org/#concept-urlsearchparams-update
  function update(state) {
    if (!state.url) return;
    const u = U(state.url);
    let query = native.urlencoded_serialize(state.list);
    u.r = record(native.url_set(u.r.href, "query", query));
  }
  class URLSearchParams {
    constructor(init = "") {
      let list = [];
      if (init !== null && (typeof init === "object" || typeof init === "function")) {
        if (typeof init[Symbol.iterator] === "function") {
          for (const pair of init) {
            if (pair === null || typeof pair !== "object" || typeof pair[Symbol.iterator] !== "function") {
              throw new TypeError("URLSearchParams: each pair must be an iterable");
            }
            const p = [...pair];
            if (p.length !== 2) throw new TypeError("URLSearchParams: each pair must have exactly two items");
            list.push([usv(p[0]), usv(p[1])]);
          }
        } else {
          // record<USVString, USVString>: a key seen again (after USV conversion) keeps its
          // place and takes the later value.
          const record = new Map();
          for (const key of Reflect.ownKeys(init)) {
            const desc = Reflect.getOwnPropertyDescriptor(init, key);
            if (desc === undefined || !desc.enumerable) continue;
            if (typeof key === "symbol") continue;
            record.set(usv(key), usv(init[key]));
          }
          list = [...record];
        }
      } else {
        let s = usv(init);
        if (s.startsWith("?")) s = s.slice(1);
        list = native.urlencoded_parse(s);
      }
      params.set(this, { list, url: null });
    }
    get size() { return P(this).list.length; }
    append(name, value) { const s = P(this); s.list.push([usv(name), usv(value)]); update(s); }
    delete(name, value = undefined) {
      const s = P(this); name = usv(name);
      if (value === undefined) s.list = s.list.filter(([n]) => n !== name);
      else { value = usv(value); s.list = s.list.filter(([n, v]) => !(n === name && v === value)); }
      update(s);
    }
    get(name) { name = usv(name); const e = P(this).list.find(([n]) => n === name); return e ? e[1] : null; }
    getAll(name) { name = usv(name); return P(this).list.filter(([n]) => n === name).map(([, v]) => v); }
    has(name, value = undefined) {
      name = usv(name);
      const l = P(this).list;
      if (value === undefined) return l.some(([n]) => n === name);
      value = usv(value);
      return l.some(([n, v]) => n === name && v === value);
    }
    set(name, value) {
      const s = P(this); name = usv(name); value = usv(value);
      const i = s.list.findIndex(([n]) => n === name);
      if (i < 0) s.list.push([name, value]);
      else { s.list[i][1] = value; s.list = s.list.filter(([n], j) => j <= i || n !== name); }
      update(s);
    }
    sort() {
      const s = P(this);
      // Stable sort by code units of the name.
      s.list = s.list.map((e, i) => [e, i]).sort((a, b) => (a[0][0] < b[0][0] ? -1 : a[0][0] > b[0][0] ? 1 : a[1] - b[1])).map(([e]) => e);
      update(s);
    }
    toString() { return native.urlencoded_serialize(P(this).list); }
    forEach(callback, thisArg = undefined) {
      if (typeof callback !== "function") throw new TypeError("forEach: callback is not a function");
      const s = P(this);
      for (let i = 0; i < s.list.length; i++) callback.call(thisArg, s.list[i][1], s.list[i][0], this);
    }
    entries() { return iterator(this, e => [e[0], e[1]]); }
    keys() { return iterator(this, e => e[0]); }
    values() { return iterator(this, e => e[1]); }
  }
  // https://webidl.spec.whatwg.org/#es-default-iterator-object
  const IteratorPrototype = Object.create(Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]())), {
    next: {
      value: function next() {
        const it = iters.get(this);
        if (!it) throw new TypeError("Illegal invocation");
        const list = P(it.target).list;
        if (it.index >= list.length) return { value: undefined, done: true };
        return { value: it.kind(list[it.index++]), done: false };
      },
      writable: true, enumerable: true, configurable: true,
    },
    [Symbol.toStringTag]: { value: "URLSearchParams Iterator", configurable: true },
  });
  const iters = new WeakMap();
  function iterator(target, kind) {
    P(target);
    const it = Object.create(IteratorPrototype);
    iters.set(it, { target, kind, index: 0 });
    return it;
  }
  Object.defineProperty(URLSearchParams.prototype, Symbol.iterator, { value: URLSearchParams.prototype.entries, writable: true, configurable: true });
  for (const C of [URL, URLSearchParams]) __fetch_interface(C);
})();
