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

  // Promise.prototype.then as it was, for the reactions a script's patches must not see.
  const promiseThen = Promise.prototype.then;
  const noop = () => {};

  // A script's ReadableStream for the crate: `read()` (a promise of true when a chunk is
  // ready, false at the end, rejected with the stream's error), `take()` (that chunk, a
  // Uint8Array), `cancel()`, and whether it was disturbed or locked when converted.
  //
  // The crate reads through pipeTo() into a sink of its own, never through a reader's
  // read(): pipeTo reads with the Streams Standard's internal read requests, as Fetch's
  // "fully read" and "incrementally read" do, where read() resolves a promise with a
  // { value, done } object, whose `then` a script may have put on Object.prototype. The
  // promises the crate awaits carry booleans, and the chunk crosses by take(). A chunk is
  // read only when the crate asks: each write stays pending until the next read().
  function streamBody(stream) {
    const unusable = stream.locked || stream._disturbed === true;
    // The reader that locks the stream from lock() until the pipe starts.
    let reader;
    let piping = false;
    let sinkController;
    // The chunk take() hands over.
    let chunk;
    // The crate's pending read(): [resolve, reject].
    let demand;
    // An outcome that came with no read() pending: [fulfilled, value].
    let early;
    // The write in flight: [resolve, reject], settled at the next read() or by cancel().
    let release;
    const deliver = (fulfilled, value) => {
      if (demand === undefined) { early = [fulfilled, value]; return; }
      const [resolve, reject] = demand;
      demand = undefined;
      if (fulfilled) resolve(value); else reject(value);
    };
    // After the pipe the stream stays locked, as a reader that read it to its end leaves it.
    const relock = () => {
      if (!stream.locked) { try { reader = stream.getReader(); } catch (_) { /* errored */ } }
    };
    const start = () => {
      piping = true;
      if (reader !== undefined) { reader.releaseLock(); reader = undefined; }
      const sink = new WritableStream({
        start(controller) { sinkController = controller; },
        write(c) {
          if (!(c instanceof Uint8Array)) {
            // Fully reading a body stops at such a chunk: the stream stays as it is.
            deliver(false, new TypeError("a body stream chunk is not a Uint8Array"));
            return new Promise(noop);
          }
          chunk = c;
          return new Promise((resolve, reject) => { release = [resolve, reject]; deliver(true, true); });
        },
        close() { deliver(true, false); },
        abort(reason) { deliver(false, reason); },
      }, { highWaterMark: 1 });
      promiseThen.call(stream.pipeTo(sink), relock, relock);
    };
    const read = () => new Promise((resolve, reject) => {
      if (early !== undefined) {
        const [fulfilled, value] = early;
        early = undefined;
        if (fulfilled) resolve(value); else reject(value);
        return;
      }
      demand = [resolve, reject];
      if (!piping) start();
      else if (release !== undefined) { const [done] = release; release = undefined; done(); }
    });
    const take = () => { const c = chunk; chunk = undefined; return c; };
    // Called when the crate drops the body before its end; `holder.reason()`, if set, gives
    // the reason (the abort reason of the fetch that was sending it).
    const holder = { reason: undefined };
    const cancel = () => {
      const reason = holder.reason === undefined ? undefined : holder.reason();
      if (piping) {
        // An errored sink makes the pipe cancel the stream with the same reason.
        if (sinkController !== undefined) sinkController.error(reason);
        if (release !== undefined) { const [, fail] = release; release = undefined; fail(reason); }
      } else if (reader !== undefined) {
        promiseThen.call(reader.cancel(reason), undefined, noop);
      }
    };
    // The crate takes the stream (to read it fully, tee it or send it): it is locked now.
    const lock = () => { if (reader === undefined && !piping) reader = stream.getReader(); };
    return ["stream", read, cancel, unusable, stream, lock, holder, take];
  }

  // The structured clone of a chunk
  // (https://html.spec.whatwg.org/multipage/structured-data.html#structuredclone): the
  // buffer types here, anything else through the scope's structuredClone.
  const TypedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);
  const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
  const typedArrayName = getter(TypedArrayPrototype, Symbol.toStringTag);
  const typedArrayBuffer = getter(TypedArrayPrototype, "buffer");
  const typedArrayOffset = getter(TypedArrayPrototype, "byteOffset");
  const typedArrayLength = getter(TypedArrayPrototype, "length");
  const dataViewBuffer = getter(DataView.prototype, "buffer");
  const dataViewOffset = getter(DataView.prototype, "byteOffset");
  const dataViewLength = getter(DataView.prototype, "byteLength");
  const bufferLength = getter(ArrayBuffer.prototype, "byteLength");
  const bufferSlice = ArrayBuffer.prototype.slice;
  const typedArrays = {};
  for (const name of ["Int8Array", "Uint8Array", "Uint8ClampedArray", "Int16Array", "Uint16Array",
    "Int32Array", "Uint32Array", "Float16Array", "Float32Array", "Float64Array", "BigInt64Array",
    "BigUint64Array"]) {
    if (typeof globalThis[name] === "function") typedArrays[name] = globalThis[name];
  }
  const is = (get, v) => { try { get.call(v); return true; } catch (_) { return false; } };
  function cloneChunk(v) {
    if (typeof v === "symbol" || typeof v === "function") {
      throw new DOMException(`A ${typeof v} could not be cloned.`, "DataCloneError");
    }
    if (v === null || typeof v !== "object") return v;
    if (is(bufferLength, v)) return bufferSlice.call(v, 0);
    const name = is(typedArrayName, v) ? typedArrayName.call(v) : undefined;
    if (name !== undefined && typedArrays[name] !== undefined) {
      const buffer = bufferSlice.call(typedArrayBuffer.call(v), 0);
      return new typedArrays[name](buffer, typedArrayOffset.call(v), typedArrayLength.call(v));
    }
    if (is(dataViewBuffer, v)) {
      const buffer = bufferSlice.call(dataViewBuffer.call(v), 0);
      return new DataView(buffer, dataViewOffset.call(v), dataViewLength.call(v));
    }
    if (typeof globalThis.structuredClone === "function") return globalThis.structuredClone(v);
    throw new DOMException("The chunk could not be cloned.", "DataCloneError");
  }
  // CloneAsUint8Array, for a byte stream's chunks.
  function cloneAsUint8Array(v) {
    const buffer = typedArrayBuffer.call(v);
    const offset = typedArrayOffset.call(v);
    return new Uint8Array(bufferSlice.call(buffer, offset, offset + v.byteLength));
  }

  // ReadableStreamTee(stream, cloneForBranch2 = true)
  // (https://streams.spec.whatwg.org/#readable-stream-tee), as "clone a body" tees a body's
  // stream: the first branch gets each chunk itself, the second its structured clone (a
  // byte stream's branches are byte streams; the second gets a copy). Read through pipeTo,
  // as the crate reads, so that a script's Object.prototype.then sees none of it; a chunk is
  // read when a branch pulls.
  function teeForClone(stream) {
    let bytes = false;
    try { stream.getReader({ mode: "byob" }).releaseLock(); bytes = true; } catch (_) { /* default */ }
    // The tee's reader locks the stream until the pipe takes over.
    let reader = stream.getReader();
    let piping = false;
    let pipeDone;
    let sinkController;
    let release;
    let canceled1 = false;
    let canceled2 = false;
    let reason1;
    let reason2;
    let controller1;
    let controller2;
    let resolveCancel;
    const cancelPromise = new Promise(resolve => { resolveCancel = resolve; });
    const each = f => {
      for (const [canceled, controller] of [[canceled1, controller1], [canceled2, controller2]]) {
        if (!canceled) { try { f(controller); } catch (_) { /* closed or errored */ } }
      }
    };
    function start() {
      piping = true;
      reader.releaseLock();
      reader = undefined;
      const sink = new WritableStream({
        start(controller) { sinkController = controller; },
        write(chunk) {
          let chunk2 = chunk;
          if (!canceled1 && !canceled2) {
            try {
              chunk2 = bytes ? cloneAsUint8Array(chunk) : cloneChunk(chunk);
            } catch (e) {
              // Error both branches and cancel the stream with the clone's error.
              controller1.error(e);
              controller2.error(e);
              resolveCancel(promiseThen.call(pipeDone, noop, noop));
              return Promise.reject(e);
            }
          }
          if (!canceled1) controller1.enqueue(chunk);
          if (!canceled2) controller2.enqueue(chunk2);
          return new Promise((resolve, reject) => { release = [resolve, reject]; });
        },
        close() {
          each(c => c.close());
          // A pending read into a caller's buffer is answered with zero bytes.
          each(c => { if (c.byobRequest) c.byobRequest.respond(0); });
          resolveCancel(undefined);
        },
        abort(reason) {
          each(c => c.error(reason));
          resolveCancel(undefined);
        },
      }, { highWaterMark: 1 });
      pipeDone = stream.pipeTo(sink);
      promiseThen.call(pipeDone, undefined, noop);
    }
    function pull() {
      if (!piping) start();
      else if (release !== undefined) { const [done] = release; release = undefined; done(); }
    }
    function cancelStream(reason) {
      if (!piping) {
        resolveCancel(reader.cancel(reason));
        return;
      }
      if (sinkController !== undefined) sinkController.error(reason);
      if (release !== undefined) { const [, fail] = release; release = undefined; fail(reason); }
      resolveCancel(promiseThen.call(pipeDone, noop, noop));
    }
    const branch = (setController, cancelled) => new ReadableStream({
      type: bytes ? "bytes" : undefined,
      start(controller) { setController(controller); },
      pull,
      cancel: cancelled,
    });
    const branch1 = branch(c => { controller1 = c; }, reason => {
      canceled1 = true;
      reason1 = reason;
      if (canceled2) cancelStream([reason1, reason2]);
      return cancelPromise;
    });
    const branch2 = branch(c => { controller2 = c; }, reason => {
      canceled2 = true;
      reason2 = reason;
      if (canceled1) cancelStream([reason1, reason2]);
      return cancelPromise;
    });
    return [branch1, branch2];
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
      setStreamBody(s, s.stream);
    }
    if (s.lock !== undefined) s.lock();
  }
  // Makes `stream` the body of slot `s`, in the crate and for the script.
  function setStreamBody(s, stream) {
    const [, read, cancel, , , lock, holder, take] = streamBody(stream);
    native.body_set_stream(s.n, read, cancel, take);
    s.stream = stream;
    s.synced = true;
    s.lock = lock;
    s.cancelHolder = holder;
  }
  // For clone(), after the crate cloned the body: a body the script has a stream of is teed
  // in script, each slot getting a branch, the clone's with clones of its chunks; else the
  // crate teed the body, and `s` forgets any stream it had so that `body` takes the new one.
  function cloneStreamBody(s, clone) {
    if (s.stream == null) {
      s.stream = undefined;
      s.synced = false;
      s.lock = undefined;
      return;
    }
    const [branch1, branch2] = teeForClone(s.stream);
    setStreamBody(s, branch1);
    setStreamBody(clone, branch2);
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
  idl.cloneStreamBody = cloneStreamBody;
})();
