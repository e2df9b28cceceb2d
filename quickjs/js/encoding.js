// TextEncoder and TextDecoder for UTF-8 — https://encoding.spec.whatwg.org/#interface-textencoder
// A Web IDL layer over the UTF-8 operations (src/encoding.rs).
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  const UTF8_LABELS = new Set(["unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"]);
  const brand = new WeakSet();
  function check(self) { if (!brand.has(self)) throw new TypeError("Illegal invocation"); }
  function toBytes(input) {
    if (input === undefined) return new Uint8Array(0);
    if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    if (input instanceof ArrayBuffer || (typeof SharedArrayBuffer !== "undefined" && input instanceof SharedArrayBuffer)) return new Uint8Array(input);
    throw new TypeError("The provided value is not of type '(ArrayBuffer or ArrayBufferView)'");
  }
  function usv(s) {
    s = String(s);
    return typeof s.toWellFormed === "function" ? s.toWellFormed() : s.replace(/[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, "\uFFFD");
  }
  class TextEncoder {
    constructor() { brand.add(this); }
    get encoding() { check(this); return "utf-8"; }
    encode(input = "") { check(this); return native.utf8_encode(usv(input)); }
    encodeInto(source, destination) {
      check(this);
      if (!(destination instanceof Uint8Array)) throw new TypeError("encodeInto: destination is not a Uint8Array");
      const [read, written, bytes] = native.utf8_encode_into(usv(source), destination.length);
      destination.set(bytes.subarray(0, written));
      return { read, written };
    }
  }
  const dec = new WeakMap();
  class TextDecoder {
    constructor(label = "utf-8", options = undefined) {
      const l = String(label).trim().toLowerCase();
      if (!UTF8_LABELS.has(l)) throw new RangeError(`The encoding label provided ('${label}') is invalid or not supported.`);
      const o = options == null ? {} : options;
      dec.set(this, { fatal: !!o.fatal, ignoreBOM: !!o.ignoreBOM, pending: new Uint8Array(0), bomSeen: false });
    }
    get encoding() { D(this); return "utf-8"; }
    get fatal() { return D(this).fatal; }
    get ignoreBOM() { return D(this).ignoreBOM; }
    decode(input = undefined, options = undefined) {
      const s = D(this);
      const stream = options != null && !!options.stream;
      const bytes = toBytes(input);
      let all = bytes;
      if (s.pending.length) { all = new Uint8Array(s.pending.length + bytes.length); all.set(s.pending); all.set(bytes, s.pending.length); }
      const [text, consumed, error] = native.utf8_decode(all.slice(), s.fatal, stream);
      if (error) { s.pending = new Uint8Array(0); s.bomSeen = false; throw new TypeError("The encoded data was not valid UTF-8."); }
      s.pending = all.slice(consumed);
      let out = text;
      if (!s.ignoreBOM && !s.bomSeen && out.length > 0) {
        if (out.charCodeAt(0) === 0xFEFF) out = out.slice(1);
        s.bomSeen = true;
      }
      if (!stream) { s.pending = new Uint8Array(0); s.bomSeen = false; }
      return out;
    }
  }
  function D(self) { const s = dec.get(self); if (!s) throw new TypeError("Illegal invocation"); return s; }
  for (const C of [TextEncoder, TextDecoder]) __fetch_interface(C);
})();
