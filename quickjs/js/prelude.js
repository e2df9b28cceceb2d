// Helpers shared by the binding scripts; evaluated first. `__fetch_expose` puts an interface
// object on the global as Web IDL does: writable, configurable, not enumerable.
(() => {
  "use strict";
  Object.defineProperty(globalThis, "__fetch_expose", {
    value(name, value) {
      Object.defineProperty(globalThis, name, { value, writable: true, enumerable: false, configurable: true });
    },
    writable: false, enumerable: false, configurable: true,
  });
  // Gives a JS class the shape Web IDL gives an interface: operations and attributes on the
  // prototype enumerable, a class string (@@toStringTag), and the interface object exposed.
  Object.defineProperty(globalThis, "__fetch_interface", {
    value(C, name = C.name) {
      for (const key of Object.getOwnPropertyNames(C.prototype)) {
        if (key === "constructor") continue;
        const d = Object.getOwnPropertyDescriptor(C.prototype, key);
        if (d.configurable && !d.enumerable) Object.defineProperty(C.prototype, key, { enumerable: true });
      }
      for (const key of Object.getOwnPropertyNames(C)) {
        if (key === "length" || key === "name" || key === "prototype") continue;
        const d = Object.getOwnPropertyDescriptor(C, key);
        if (d.configurable && !d.enumerable) Object.defineProperty(C, key, { enumerable: true });
      }
      Object.defineProperty(C.prototype, Symbol.toStringTag, { value: name, configurable: true });
      globalThis.__fetch_expose(name, C);
    },
    writable: false, enumerable: false, configurable: true,
  });

  // Web IDL conversions and shapes shared by the interface scripts
  // (https://webidl.spec.whatwg.org/#es-type-mapping).
  const slots = new WeakMap();
  const IteratorPrototype = Object.getPrototypeOf(Object.getPrototypeOf([][Symbol.iterator]()));
  const idl = {
    isObject(v) { return (typeof v === "object" && v !== null) || typeof v === "function"; },
    // The private state of a platform object; `kind` is its interface (brand check).
    slot(obj, kind) {
      const s = idl.isObject(obj) ? slots.get(obj) : undefined;
      if (s === undefined || !s.kinds.includes(kind)) throw new TypeError(`Illegal invocation: not a ${kind}`);
      return s;
    },
    maybeSlot(obj, kind) {
      const s = idl.isObject(obj) ? slots.get(obj) : undefined;
      return s !== undefined && s.kinds.includes(kind) ? s : undefined;
    },
    setSlot(obj, kinds, state) { state.kinds = kinds; slots.set(obj, state); return state; },
    domString(v) { return `${v}`; },
    usvString(v) {
      const s = `${v}`;
      if (typeof s.toWellFormed === "function") return s.toWellFormed();
      return s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
    },
    byteString(v) {
      const s = `${v}`;
      for (let i = 0; i < s.length; i++) {
        if (s.charCodeAt(i) > 255) throw new TypeError(`Cannot convert ${JSON.stringify(s)} to a ByteString: char ${i} is past U+00FF`);
      }
      return s;
    },
    boolean(v) { return !!v; },
    // unsigned short / long long / [Clamp] long long.
    integer(v, bits, signed, clamp) {
      let x = Number(v);
      if (clamp) {
        if (Number.isNaN(x)) return 0;
        const lo = signed ? -(2 ** (bits - 1)) : 0, hi = signed ? 2 ** (bits - 1) - 1 : 2 ** bits - 1;
        x = Math.min(Math.max(x, lo), hi);
        const f = Math.floor(x), d = x - f;
        x = d < 0.5 ? f : d > 0.5 ? f + 1 : (f % 2 === 0 ? f : f + 1);
        return x === 0 ? 0 : x;
      }
      if (!Number.isFinite(x)) return 0;
      x = Math.trunc(x);
      if (bits >= 64) return x === 0 ? 0 : x;
      const m = 2 ** bits;
      x = ((x % m) + m) % m;
      if (signed && x >= m / 2) x -= m;
      return x === 0 ? 0 : x;
    },
    enumString(v) { return `${v}`; },
    sequence(v, convert, what = "value") {
      if (!idl.isObject(v)) throw new TypeError(`${what} is not a sequence`);
      const method = v[Symbol.iterator];
      if (typeof method !== "function") throw new TypeError(`${what} is not iterable`);
      const out = [];
      for (const item of { [Symbol.iterator]: () => method.call(v) }) out.push(convert(item));
      return out;
    },
    record(v, convertKey, convertValue) {
      const out = [];
      for (const key of Reflect.ownKeys(v)) {
        const desc = Reflect.getOwnPropertyDescriptor(v, key);
        if (desc === undefined || !desc.enumerable) continue;
        const k = convertKey(key);
        const value = convertValue(v[key]);
        const i = out.findIndex(p => p[0] === k);
        if (i >= 0) out[i][1] = value; else out.push([k, value]);
      }
      return out;
    },
    // A copy of a BufferSource's bytes, or undefined if `v` is none.
    bufferSource(v) {
      if (v instanceof ArrayBuffer || (typeof SharedArrayBuffer === "function" && v instanceof SharedArrayBuffer)) return new Uint8Array(v.slice(0));
      if (ArrayBuffer.isView(v)) return new Uint8Array(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
      return undefined;
    },
    // A thrown value as the console shows it ("TypeError: message"), never throwing itself.
    describe(v) {
      try { return v instanceof Error ? `${v.name}: ${v.message}` : String(v); } catch (_) { return "an exception"; }
    },
    // Makes an object without running the class's constructor (an object the platform creates).
    create(C, kinds, state) {
      const o = Object.create(C.prototype);
      idl.setSlot(o, kinds, state);
      return o;
    },
    // The iterable<K, V> declaration: entries/keys/values/forEach and @@iterator on C.prototype,
    // over `pairs(self)` re-read at each step as Web IDL's value pairs to iterate over are.
    pairIterable(C, name, pairs) {
      const iterators = new WeakMap();
      const proto = Object.create(IteratorPrototype);
      Object.defineProperty(proto, "next", {
        value: function next() {
          const it = idl.isObject(this) ? iterators.get(this) : undefined;
          if (it === undefined) throw new TypeError("Illegal invocation");
          const list = pairs(it.target);
          if (it.index >= list.length) return { value: undefined, done: true };
          // By index, not destructuring: the list may be kept between steps, and a
          // script's Array.prototype[Symbol.iterator] must not be handed its pairs.
          const pair = list[it.index++];
          const k = pair[0], v = pair[1];
          return { value: it.kind === "key" ? k : it.kind === "value" ? v : [k, v], done: false };
        },
        writable: true, enumerable: true, configurable: true,
      });
      Object.defineProperty(proto, Symbol.toStringTag, { value: `${name} Iterator`, configurable: true });
      const make = (kind) => function () {
        idl.slot(this, name);
        const it = Object.create(proto);
        iterators.set(it, { target: this, kind, index: 0 });
        return it;
      };
      const methods = {
        entries: make("key+value"), keys: make("key"), values: make("value"),
        forEach(callback, thisArg = undefined) {
          idl.slot(this, name);
          if (typeof callback !== "function") throw new TypeError("forEach: callback is not a function");
          for (let i = 0, list = pairs(this); i < list.length; i++, list = pairs(this)) {
            callback.call(thisArg, list[i][1], list[i][0], this);
          }
        },
      };
      for (const [k, f] of Object.entries(methods)) {
        Object.defineProperty(f, "name", { value: k });
        Object.defineProperty(C.prototype, k, { value: f, writable: true, enumerable: true, configurable: true });
      }
      Object.defineProperty(C.prototype, Symbol.iterator, { value: methods.entries, writable: true, enumerable: false, configurable: true });
    },
  };
  Object.defineProperty(globalThis, "__fetch_idl", { value: idl, writable: false, enumerable: false, configurable: true });
  // https://w3c.github.io/hr-time/#the-performance-attribute, from the runtime's monotonic clock.
  const native = globalThis.__fetch_native;
  const timeOrigin = Date.now() - native.now();
  const performance = { now() { return native.now(); }, get timeOrigin() { return timeOrigin; } };
  Object.defineProperty(globalThis, "performance", { value: performance, writable: true, enumerable: true, configurable: true });
})();
