// WebSocket — https://websockets.spec.whatwg.org/#the-websocket-interface
// The constructor, the attributes, send() and close() over the crate's WebSocket
// (src/websocket/): the handshake (a fetch of the client's), framing, permessage-deflate
// and the closing handshake are the crate's; this file keeps the ready state and
// bufferedAmount, and turns what the connection gives into events, in its order.
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  const idl = globalThis.__fetch_idl;
  const fire = globalThis.__fetch_fire_event;
  const CONNECTING = 0, OPEN = 1, CLOSING = 2, CLOSED = 3;
  // What native.websocket_next resolves with.
  const NEXT_TEXT = 0, NEXT_BINARY = 1, NEXT_CLOSED = 2;
  const states = new WeakMap();
  function S(self) {
    const s = idl.isObject(self) ? states.get(self) : undefined;
    if (s === undefined) throw new TypeError("Illegal invocation: not a WebSocket");
    return s;
  }
  // The bytes needed to express a USVString as UTF-8.
  function utf8Length(text) {
    let n = 0;
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      if (c < 0x80) n += 1;
      else if (c < 0x800) n += 2;
      else if (c >= 0xd800 && c <= 0xdbff) { n += 4; i++; }
      else n += 3;
    }
    return n;
  }
  // The constructors' checks and a connection to come: `[handle, url, origin]`. A URL
  // that does not parse, a scheme other than ws(s)/http(s), a fragment, a protocol that is
  // no token or comes twice: a "SyntaxError" DOMException.
  function connection(url, protocols) {
    try {
      return native.websocket_new(url, protocols);
    } catch (e) {
      if (e instanceof SyntaxError) throw new DOMException(e.message, "SyntaxError");
      throw e;
    }
  }
  // What came next on the connection (a NEXT_* code; anything else is a failure).
  async function nextOf(handle) {
    try {
      return await native.websocket_next(handle);
    } catch (_) {
      return -1;
    }
  }
  // When the WebSocket connection is closed: the ready state, an error event if the
  // connection failed, and the close event.
  function closed(target, s, failed, code, reason) {
    s.readyState = CLOSED;
    native.websocket_forget(s.handle);
    if (failed) fire(target, new Event("error"));
    fire(target, new CloseEvent("close", { wasClean: !failed, code, reason }));
  }
  // Establishes the connection, then takes what arrives one message at a time and fires
  // its events, as the standard's tasks do.
  async function run(target, s) {
    let established = false;
    try {
      established = await native.websocket_connect(s.handle);
    } catch (_) {}
    // Failed, or close() failed it while it was being established.
    if (!established || s.readyState !== CONNECTING) return closed(target, s, true, 1006, "");
    // When the WebSocket connection is established.
    const [protocol, extensions] = native.websocket_info(s.handle);
    s.readyState = OPEN;
    s.extensions = extensions;
    s.protocol = protocol;
    fire(target, new Event("open"));
    for (;;) {
      const next = await nextOf(s.handle);
      if (next === NEXT_TEXT || next === NEXT_BINARY) {
        // When a WebSocket message has been received: nothing unless the state is OPEN.
        // Binary data comes as a Blob for binaryType "blob", made of the bytes received.
        let data;
        try {
          data = native.websocket_take(s.handle, s.binaryType === "blob");
        } catch (_) {
          // A message the engine cannot hold (out of memory): fail the connection, or the
          // socket would stay open and say nothing again.
          return closed(target, s, true, 1006, "");
        }
        if (s.readyState !== OPEN) continue;
        fire(target, new MessageEvent("message", { data, origin: s.origin }));
      } else if (next === NEXT_CLOSED) {
        const [code, reason] = native.websocket_take(s.handle, false);
        return closed(target, s, false, code, reason);
      } else {
        // Failed, or ended without the server's Close: 1006, and nothing more said
        // (the standard forbids telling a script why).
        return closed(target, s, true, 1006, "");
      }
    }
  }
  // Queues a step after the socket's earlier sends, so that frames go out in order.
  function enqueue(s, step) {
    const queued = s.queue.then(step);
    s.queue = queued.then(() => {}, () => {});
    return queued;
  }
  class WebSocket extends EventTarget {
    constructor(url, protocols = []) {
      if (arguments.length < 1) throw new TypeError("WebSocket constructor: 1 argument required");
      super();
      url = idl.usvString(url);
      // (DOMString or sequence<DOMString>): an iterable object is a sequence.
      if (idl.isObject(protocols) && typeof protocols[Symbol.iterator] === "function") {
        protocols = idl.sequence(protocols, idl.domString, "protocols");
      } else {
        protocols = [idl.domString(protocols)];
      }
      const [handle, serialized, origin] = connection(url, protocols);
      const s = {
        handle, url: serialized, origin, readyState: CONNECTING, protocol: "", extensions: "",
        binaryType: "blob", bufferedAmount: 0, queue: Promise.resolve(),
        onopen: null, onmessage: null, onerror: null, onclose: null,
      };
      states.set(this, s);
      run(this, s);
    }
    get url() { return S(this).url; }
    get readyState() { return S(this).readyState; }
    get bufferedAmount() { return S(this).bufferedAmount; }
    get extensions() { return S(this).extensions; }
    get protocol() { return S(this).protocol; }
    get binaryType() { return S(this).binaryType; }
    set binaryType(v) {
      const s = S(this);
      const type = idl.enumString(v);
      // An enumeration attribute ignores a value that is not one of its values.
      if (type === "blob" || type === "arraybuffer") s.binaryType = type;
    }
    get onopen() { return S(this).onopen; }
    set onopen(v) { S(this).onopen = idl.isObject(v) ? v : null; }
    get onmessage() { return S(this).onmessage; }
    set onmessage(v) { S(this).onmessage = idl.isObject(v) ? v : null; }
    get onerror() { return S(this).onerror; }
    set onerror(v) { S(this).onerror = idl.isObject(v) ? v : null; }
    get onclose() { return S(this).onclose; }
    set onclose(v) { S(this).onclose = idl.isObject(v) ? v : null; }
    close(code = undefined, reason = undefined) {
      const s = S(this);
      // Step 1. A code neither 1000 nor in 3000–4999: an "InvalidAccessError".
      if (code !== undefined) {
        code = idl.integer(code, 16, false, true);
        if (code !== 1000 && !(code >= 3000 && code <= 4999)) {
          throw new DOMException(`close(): the code ${code} is neither 1000 nor in 3000–4999`, "InvalidAccessError");
        }
      }
      // Step 2. A reason longer than 123 bytes as UTF-8: a "SyntaxError".
      if (reason !== undefined) {
        reason = idl.usvString(reason);
        if (utf8Length(reason) > 123) {
          throw new DOMException("close(): the reason is longer than 123 bytes as UTF-8", "SyntaxError");
        }
      }
      // Step 3.
      if (s.readyState === CLOSING || s.readyState === CLOSED) return;
      if (s.readyState === CONNECTING) {
        // Not yet established: fail the WebSocket connection.
        s.readyState = CLOSING;
        native.websocket_close(s.handle, null, null);
        return;
      }
      // Start the WebSocket closing handshake, after the messages sent before.
      s.readyState = CLOSING;
      const c = code === undefined ? null : code;
      const r = code === undefined || reason === undefined ? null : reason;
      enqueue(s, () => native.websocket_close(s.handle, c, r));
    }
    send(data) {
      if (arguments.length < 1) throw new TypeError("WebSocket.send: 1 argument required");
      const s = S(this);
      if (s.readyState === CONNECTING) {
        throw new DOMException("send(): the WebSocket is still connecting", "InvalidStateError");
      }
      // (BufferSource or Blob or USVString).
      let size, payload;
      const blob = idl.maybeSlot(data, "Blob");
      if (blob !== undefined) {
        // The Blob's own bytes go out, not a copy read into an ArrayBuffer.
        size = data.size;
        payload = () => blob.n;
      } else {
        const bytes = idl.bufferSource(data);
        if (bytes !== undefined) {
          size = bytes.byteLength;
          payload = () => bytes;
        } else {
          const text = idl.usvString(data);
          size = utf8Length(text);
          payload = () => text;
        }
      }
      s.bufferedAmount += size;
      // Once the closing handshake started, data only adds to bufferedAmount.
      if (s.readyState !== OPEN) return;
      enqueue(s, async () => {
        const sent = await native.websocket_send(s.handle, await payload());
        if (sent) s.bufferedAmount -= size;
      });
    }
  }
  for (const [name, value] of [["CONNECTING", CONNECTING], ["OPEN", OPEN], ["CLOSING", CLOSING], ["CLOSED", CLOSED]]) {
    Object.defineProperty(WebSocket, name, { value, enumerable: true });
    Object.defineProperty(WebSocket.prototype, name, { value, enumerable: true });
  }
  __fetch_interface(WebSocket);

  // WebSocketStream and WebSocketError — the WebSockets Standard's promise- and
  // streams-based interface (https://github.com/whatwg/websockets/pull/48, tentative in
  // WPT's websockets/stream/), over the same native operations as WebSocket.
  const errors = new WeakMap();
  // A WebSocketCloseInfo dictionary's code and reason, checked as close() checks them.
  function closeInfo(info, what) {
    if (info !== undefined && info !== null && !idl.isObject(info)) {
      throw new TypeError(`${what}: the close info is not an object`);
    }
    const i = info == null ? {} : info;
    // Members in lexicographic order: closeCode, reason.
    let code = i.closeCode === undefined ? null : idl.integer(i.closeCode, 16, false, true);
    const reason = i.reason === undefined ? "" : idl.usvString(i.reason);
    if (code !== null && code !== 1000 && !(code >= 3000 && code <= 4999)) {
      throw new DOMException(`${what}: the code ${code} is neither 1000 nor in 3000–4999`, "InvalidAccessError");
    }
    if (utf8Length(reason) > 123) {
      throw new DOMException(`${what}: the reason is longer than 123 bytes as UTF-8`, "SyntaxError");
    }
    // A reason without a code: the code is 1000.
    if (code === null && reason !== "") code = 1000;
    return { code, reason };
  }
  class WebSocketError extends DOMException {
    constructor(message = "", init = undefined) {
      super(idl.domString(message), "WebSocketError");
      const { code, reason } = closeInfo(init, "WebSocketError constructor");
      errors.set(this, { closeCode: code, reason });
    }
    get closeCode() {
      const e = errors.get(this);
      if (e === undefined) throw new TypeError("Illegal invocation: not a WebSocketError");
      return e.closeCode;
    }
    get reason() {
      const e = errors.get(this);
      if (e === undefined) throw new TypeError("Illegal invocation: not a WebSocketError");
      return e.reason;
    }
  }
  // A WebSocketError for a connection that failed or closed uncleanly: its code may be
  // one a script could not give (1006).
  function connectionError(message, code, reason) {
    const e = new WebSocketError(message);
    errors.set(e, { closeCode: code, reason });
    return e;
  }
  const streams = new WeakMap();
  function T(self) {
    const t = idl.isObject(self) ? streams.get(self) : undefined;
    if (t === undefined) throw new TypeError("Illegal invocation: not a WebSocketStream");
    return t;
  }
  // Settles everything once the connection is closed: `error` null for a clean close.
  function finish(t, error, code, reason) {
    if (t.done) return;
    t.done = true;
    native.websocket_forget(t.handle);
    if (error === null) {
      if (t.readable !== null) { try { t.readable.close(); } catch (_) {} }
      const e = new DOMException("the WebSocket is closed", "InvalidStateError");
      if (t.writable !== null) t.writable.error(e);
      t.unwritten(e);
      t.resolveClosed({ closeCode: code, reason });
    } else {
      if (t.readable !== null) t.readable.error(error);
      if (t.writable !== null) t.writable.error(error);
      t.unwritten(new DOMException("the WebSocket is closed", "InvalidStateError"));
      t.rejectClosed(error);
    }
  }
  // Reads one item from the connection; one read at a time, shared by the readable's
  // pulls and the draining after the closing handshake started.
  function readOne(t) {
    if (t.reading !== null) return t.reading;
    t.reading = (async () => {
      const next = await nextOf(t.handle);
      if (next === NEXT_TEXT || next === NEXT_BINARY) {
        let data;
        try {
          data = native.websocket_take(t.handle, false);
        } catch (_) {
          // A message the engine cannot hold (out of memory): the connection fails.
          finish(t, connectionError("the WebSocket connection failed", 1006, ""));
          return;
        }
        if (t.readable !== null && !t.canceled) {
          t.readable.enqueue(next === NEXT_TEXT ? data : new Uint8Array(data));
        }
      } else if (next === NEXT_CLOSED) {
        const [code, reason] = native.websocket_take(t.handle, false);
        // The server closed while a message of ours was still going out: not clean.
        if (t.writing) finish(t, connectionError("the server closed with a message unsent", code, reason));
        else finish(t, null, code, reason);
      } else {
        finish(t, connectionError("the WebSocket connection failed", 1006, ""));
      }
    })().finally(() => { t.reading = null; });
    return t.reading;
  }
  async function drain(t) {
    while (!t.done) await readOne(t);
  }
  // Starts the closing handshake (or fails a connection not yet established).
  function startClose(t, code, reason) {
    if (t.closing || t.done) return;
    t.closing = true;
    if (!t.established) {
      native.websocket_close(t.handle, null, null);
      return;
    }
    t.queue = t.queue.then(() => native.websocket_close(t.handle, code, code === null ? null : reason));
    drain(t);
  }
  // The close info a stream's abort or cancel reason carries: a WebSocketError's only.
  function closeOf(reason) {
    const e = idl.isObject(reason) ? errors.get(reason) : undefined;
    return e === undefined ? { code: null, reason: "" } : { code: e.closeCode, reason: e.reason };
  }
  async function open(t) {
    let established = false;
    try {
      established = await native.websocket_connect(t.handle);
    } catch (_) {}
    if (!established || t.closing) {
      const error = t.abortReason !== undefined ? t.abortReason
        : connectionError("the WebSocket connection failed", 1006, "");
      t.done = true;
      native.websocket_forget(t.handle);
      t.rejectOpened(error);
      t.rejectClosed(error);
      return;
    }
    t.established = true;
    const [protocol, extensions] = native.websocket_info(t.handle);
    const readable = new ReadableStream({
      start(controller) { t.readable = controller; },
      pull() { return readOne(t); },
      cancel(reason) {
        t.canceled = true;
        const c = closeOf(reason);
        startClose(t, c.code, c.reason);
      },
    });
    const writable = new WritableStream({
      start(controller) { t.writable = controller; },
      write(chunk) {
        // (BufferSource or USVString).
        let payload;
        if (chunk instanceof ArrayBuffer || ArrayBuffer.isView(chunk)) {
          const buffer = chunk instanceof ArrayBuffer ? chunk : chunk.buffer;
          if (buffer.resizable === true || (typeof SharedArrayBuffer === "function" && buffer instanceof SharedArrayBuffer)) {
            throw new TypeError("write(): a resizable or shared buffer cannot be sent");
          }
          payload = idl.bufferSource(chunk);
        } else {
          payload = idl.usvString(chunk);
        }
        const sent = t.queue.then(() => native.websocket_send(t.handle, payload));
        t.queue = sent.then(() => {}, () => {});
        t.writing = true;
        return new Promise((resolve, reject) => {
          // A close before the message is out rejects it.
          t.unwritten = reject;
          sent.then(ok => {
            t.writing = false;
            t.unwritten = () => {};
            if (ok) resolve();
            else reject(new DOMException("the WebSocket is closed", "InvalidStateError"));
          }, reject);
        });
      },
      close() {
        startClose(t, null, "");
        return t.closed.then(() => {}, () => {});
      },
      abort(reason) {
        const c = closeOf(reason);
        startClose(t, c.code, c.reason);
      },
    });
    // The readable's first pull reads ahead: a server's Close is seen even if no one reads.
    t.resolveOpened({ readable, writable, extensions, protocol });
  }
  class WebSocketStream {
    constructor(url, options = undefined) {
      if (arguments.length < 1) throw new TypeError("WebSocketStream constructor: 1 argument required");
      url = idl.usvString(url);
      if (options !== undefined && options !== null && !idl.isObject(options)) {
        throw new TypeError("WebSocketStream constructor: the options are not an object");
      }
      const o = options == null ? {} : options;
      // Members in lexicographic order: protocols, signal.
      const protocols = o.protocols === undefined ? [] : idl.sequence(o.protocols, idl.usvString, "protocols");
      const signal = o.signal;
      if (signal !== undefined && !(signal instanceof AbortSignal)) {
        throw new TypeError("WebSocketStream constructor: signal is not an AbortSignal");
      }
      const [handle, serialized] = connection(url, protocols);
      const t = {
        handle, url: serialized, established: false, closing: false, done: false,
        canceled: false, writing: false, unwritten: () => {}, reading: null,
        queue: Promise.resolve(), readable: null, writable: null, abortReason: undefined,
      };
      t.opened = new Promise((resolve, reject) => { t.resolveOpened = resolve; t.rejectOpened = reject; });
      t.closed = new Promise((resolve, reject) => { t.resolveClosed = resolve; t.rejectClosed = reject; });
      // Neither rejection is unhandled when a script awaits only the other.
      t.opened.catch(() => {});
      t.closed.catch(() => {});
      streams.set(this, t);
      if (signal !== undefined) {
        if (signal.aborted) {
          t.done = true;
          native.websocket_forget(handle);
          t.rejectOpened(signal.reason);
          t.rejectClosed(signal.reason);
          return;
        }
        signal.addEventListener("abort", () => {
          if (t.established || t.done) return;
          t.abortReason = signal.reason;
          startClose(t, null, "");
        }, { once: true });
      }
      open(t);
    }
    get url() { return T(this).url; }
    get opened() { return T(this).opened; }
    get closed() { return T(this).closed; }
    close(closeInfo_ = undefined) {
      const t = T(this);
      const { code, reason } = closeInfo(closeInfo_, "close()");
      startClose(t, code, reason);
    }
  }
  __fetch_interface(WebSocketStream);
  __fetch_interface(WebSocketError);
})();
