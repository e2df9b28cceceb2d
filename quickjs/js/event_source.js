// EventSource — https://html.spec.whatwg.org/multipage/server-sent-events.html#the-eventsource-interface
// The constructor, the attributes and close() over the crate's EventSource
// (src/event_source.rs): the connection, the event stream's parsing and the reconnection
// are the crate's; this file turns what it gives into events, in its order.
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  const idl = globalThis.__fetch_idl;
  const fire = globalThis.__fetch_fire_event;
  const CONNECTING = 0, OPEN = 1, CLOSED = 2;
  // What native.event_source_next resolves with.
  const NEXT_OPEN = 0, NEXT_MESSAGE = 1, NEXT_RECONNECTING = 2, NEXT_FAILED = 3;
  const states = new WeakMap();
  function S(self) {
    const s = idl.isObject(self) ? states.get(self) : undefined;
    if (s === undefined) throw new TypeError("Illegal invocation: not an EventSource");
    return s;
  }
  // Takes the event source's items one at a time and fires their events, as the standard's
  // tasks do: nothing once the ready state is CLOSED.
  async function pump(target, s) {
    for (;;) {
      let next;
      try {
        next = await native.event_source_next(s.handle);
      } catch (_) {
        next = NEXT_FAILED;
      }
      if (s.readyState === CLOSED) return;
      if (next === NEXT_OPEN) {
        // Announce the connection.
        s.readyState = OPEN;
        fire(target, new Event("open"));
      } else if (next === NEXT_MESSAGE) {
        let m;
        try {
          m = native.event_source_message(s.handle);
        } catch (_) {
          // An event the engine cannot hold (out of memory): fail the connection, or the
          // event source would stay open and say nothing again.
          return ended(target, s, true);
        }
        if (m != null) {
          // The last event ID comes only when it changed: the script keeps the one string.
          if (m.length > 3) s.lastEventId = m[3];
          fire(target, new MessageEvent(m[0], { data: m[1], origin: m[2], lastEventId: s.lastEventId }));
        }
      } else if (next === NEXT_RECONNECTING) {
        // Reestablish the connection.
        s.readyState = CONNECTING;
        fire(target, new Event("error"));
      } else {
        // Fail the connection (or the stream ended, which only a failure does).
        return ended(target, s, next === NEXT_FAILED);
      }
    }
  }
  // The ready state CLOSED, the connection let go, and an error event if it failed.
  function ended(target, s, failed) {
    s.readyState = CLOSED;
    native.event_source_close(s.handle);
    if (failed) fire(target, new Event("error"));
  }
  class EventSource extends EventTarget {
    constructor(url, eventSourceInitDict = undefined) {
      if (arguments.length < 1) throw new TypeError("EventSource constructor: 1 argument required");
      super();
      url = idl.usvString(url);
      const init = eventSourceInitDict;
      if (init !== undefined && init !== null && typeof init !== "object" && typeof init !== "function") {
        throw new TypeError("EventSource constructor: eventSourceInitDict is not an object");
      }
      const withCredentials = init == null ? false : !!init.withCredentials;
      let handle;
      try {
        handle = native.event_source_new(url, withCredentials);
      } catch (e) {
        // The constructor throws a "SyntaxError" DOMException for a URL that does not parse.
        if (e instanceof SyntaxError) throw new DOMException(e.message, "SyntaxError");
        throw e;
      }
      const s = {
        handle, url: native.event_source_url(handle), withCredentials, readyState: CONNECTING,
        lastEventId: "", onopen: null, onmessage: null, onerror: null,
      };
      states.set(this, s);
      pump(this, s);
    }
    get url() { return S(this).url; }
    get withCredentials() { return S(this).withCredentials; }
    get readyState() { return S(this).readyState; }
    get onopen() { return S(this).onopen; }
    set onopen(v) { S(this).onopen = idl.isObject(v) ? v : null; }
    get onmessage() { return S(this).onmessage; }
    set onmessage(v) { S(this).onmessage = idl.isObject(v) ? v : null; }
    get onerror() { return S(this).onerror; }
    set onerror(v) { S(this).onerror = idl.isObject(v) ? v : null; }
    close() {
      const s = S(this);
      // Abort any instances of the fetch algorithm started for this EventSource object,
      // and set this's readyState attribute to CLOSED.
      if (s.readyState !== CLOSED) native.event_source_close(s.handle);
      s.readyState = CLOSED;
    }
  }
  for (const [name, value] of [["CONNECTING", CONNECTING], ["OPEN", OPEN], ["CLOSED", CLOSED]]) {
    Object.defineProperty(EventSource, name, { value, enumerable: true });
    Object.defineProperty(EventSource.prototype, name, { value, enumerable: true });
  }
  __fetch_interface(EventSource);
})();
