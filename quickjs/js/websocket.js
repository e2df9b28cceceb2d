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
      let next;
      try {
        next = await native.websocket_next(s.handle);
      } catch (_) {
        next = -1;
      }
      if (next === NEXT_TEXT || next === NEXT_BINARY) {
        // When a WebSocket message has been received: nothing unless the state is OPEN.
        let data = native.websocket_take(s.handle);
        if (s.readyState !== OPEN) continue;
        if (next === NEXT_BINARY && s.binaryType === "blob") data = new Blob([data]);
        fire(target, new MessageEvent("message", { data, origin: s.origin }));
      } else if (next === NEXT_CLOSED) {
        const [code, reason] = native.websocket_take(s.handle);
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
      let handle;
      try {
        handle = native.websocket_new(url, protocols);
      } catch (e) {
        // A URL that does not parse, a scheme other than ws(s)/http(s), a fragment, a
        // protocol that is no token or comes twice: a "SyntaxError" DOMException.
        if (e instanceof SyntaxError) throw new DOMException(e.message, "SyntaxError");
        throw e;
      }
      const [serialized, origin] = native.websocket_url(handle);
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
      if (idl.maybeSlot(data, "Blob") !== undefined) {
        const blob = data;
        size = blob.size;
        payload = () => blob.arrayBuffer().then(buffer => new Uint8Array(buffer));
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
})();
