// fetch() — https://fetch.spec.whatwg.org/#fetch-method
// Makes the request with the initial Request constructor, then fetches it through the
// embedder's client (src/fetch.rs); everything after the constructor is the crate's.
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  const idl = globalThis.__fetch_idl;
  const RequestCtor = globalThis.Request;
  function fetch(input, init = undefined) {
    try {
      if (this !== undefined && this !== null && this !== globalThis) throw new TypeError("Illegal invocation");
      if (arguments.length < 1) throw new TypeError("fetch: 1 argument required");
      const request = new RequestCtor(input, init);
      const s = idl.slot(request, "Request");
      idl.syncBody(s);
      if (s.cancelHolder !== undefined) {
        // A stream body the crate drops because the fetch was aborted is cancelled with the
        // abort reason.
        const signal = request.signal;
        s.cancelHolder.reason = () => (signal.aborted ? signal.reason : undefined);
      }
      // The abort steps of fetch() hold the response: it stays alive while a signal the
      // script gave can still abort it, so that aborting closes its connection.
      const signals = s.signals ?? [];
      const keep = signals.length === 0 ? undefined : response => idl.keepUntilAbort(signals, response);
      return native.fetch(s.n, keep);
    } catch (e) {
      return Promise.reject(e);
    }
  }
  // An operation of the WindowOrWorkerGlobalScope mixin, on the global itself (an embedder
  // with a global interface of its own may move it to that interface's prototype).
  Object.defineProperty(globalThis, "fetch", { value: fetch, writable: true, enumerable: true, configurable: true });
})();
