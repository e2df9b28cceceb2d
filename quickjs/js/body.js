// The Body mixin — https://fetch.spec.whatwg.org/#body-mixin — and the BodyInit union, over
// src/body.rs. Reading, consuming and "unusable" live in the crate; a
// ReadableStream given as a body is read by the crate one chunk at a time, when it asks.
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  const idl = globalThis.__fetch_idl;
  // URLSearchParams (url.js) as it was defined: its brand check and its pairs.
  const paramsBrand = Object.getOwnPropertyDescriptor(URLSearchParams.prototype, "size").get;
  const paramsEntries = URLSearchParams.prototype.entries;

  // A script's ReadableStream for the crate: `read()` (one chunk, a Uint8Array, or null at
  // the end), `cancel()`, and whether it was disturbed or locked when converted.
  function streamBody(stream) {
    const unusable = stream.locked || stream._disturbed === true;
    let reader;
    const read = () => {
      if (reader === undefined) reader = stream.getReader();
      return reader.read().then(({ value, done }) => {
        if (done) return null;
        if (!(value instanceof Uint8Array)) throw new TypeError("a body stream chunk is not a Uint8Array");
        return value;
      });
    };
    // Called when the crate drops the body before its end; `holder.reason()`, if set, gives
    // the reason (the abort reason of the fetch that was sending it).
    const holder = { reason: undefined };
    const cancel = () => {
      if (reader !== undefined) reader.cancel(holder.reason === undefined ? undefined : holder.reason()).catch(() => {});
    };
    // The crate takes the stream (to read it fully, tee it or send it): it is locked now.
    const lock = () => { if (reader === undefined) reader = stream.getReader(); };
    return ["stream", read, cancel, unusable, stream, lock, holder];
  }
  const isStream = v => typeof ReadableStream === "function" && v instanceof ReadableStream;

  // BodyInit = ReadableStream or Blob or BufferSource or FormData or URLSearchParams or
  // USVString; null stays null.
  function convert(v) {
    if (v === null) return null;
    if (isStream(v)) return streamBody(v);
    const blob = idl.maybeSlot(v, "Blob");
    if (blob !== undefined) return ["blob", blob.n];
    const bytes = idl.bufferSource(v);
    if (bytes !== undefined) return ["bytes", bytes];
    const form = idl.maybeSlot(v, "FormData");
    if (form !== undefined) return ["form", form.n];
    if (idl.isObject(v)) {
      let isParams = true;
      try { paramsBrand.call(v); } catch (_) { isParams = false; }
      if (isParams) return ["params", [...paramsEntries.call(v)]];
    }
    return ["text", idl.usvString(v)];
  }

  // Before the crate uses the body: a stream the script took with `body` goes back to it.
  function sync(s) {
    if (s.stream && !s.synced) {
      const [, read, cancel, , , lock, holder] = streamBody(s.stream);
      native.body_set_stream(s.n, read, cancel);
      s.synced = true;
      s.lock = lock;
      s.cancelHolder = holder;
    }
    if (s.lock !== undefined) s.lock();
  }
  // Whether the script's stream (if it has the body's stream) is locked or disturbed.
  const unusable = s => s.stream != null && (s.stream.locked || s.stream._disturbed === true);


  // The Body mixin on C.prototype, for objects whose slot (of `kind`) has `n`, and `stream`
  // once the body was handed to the script.
  function mixin(C, kind) {
    const proto = C.prototype;
    const accessors = {
      get body() {
        const s = idl.slot(this, kind);
        if (s.stream === undefined) {
          const used = native.body_used(s.n);
          s.stream = native.body_take_stream(s.n);
          s.synced = false;
          // A body the crate read (or is reading) has a stream that is locked and disturbed.
          if (used && s.stream !== null) {
            s.stream.getReader().read().catch(() => {});
            s.synced = true;
          }
        }
        return s.stream;
      },
      get bodyUsed() {
        const s = idl.slot(this, kind);
        return native.body_used(s.n) || (s.stream != null && s.stream._disturbed === true);
      },
    };
    for (const k of ["body", "bodyUsed"]) {
      const d = Object.getOwnPropertyDescriptor(accessors, k);
      d.enumerable = true;
      Object.defineProperty(proto, k, d);
    }
    for (const name of ["arrayBuffer", "blob", "bytes", "formData", "json", "text"]) {
      const f = {
        [name]() {
          try {
            const s = idl.slot(this, kind);
            if (unusable(s)) throw new TypeError(`${kind}.${name}: the body is locked or disturbed`);
            sync(s);
            return native.body_consume(s.n, name);
          } catch (e) {
            return Promise.reject(e);
          }
        },
      }[name];
      Object.defineProperty(proto, name, { value: f, writable: true, enumerable: true, configurable: true });
    }
  }

  idl.bodyInit = convert;
  idl.isStream = isStream;
  idl.syncBody = sync;
  idl.bodyUnusable = unusable;
  idl.bodyMixin = mixin;
})();
