// fetch() — https://fetch.spec.whatwg.org/#fetch-method
// Makes the request with the initial Request constructor, then fetches it through the test
// page's client (wpt/src/bindings/fetch.rs); everything after the constructor is the crate's.
(() => {
  "use strict";
  const native = globalThis.__wpt_native;
  const idl = globalThis.__wpt_idl;
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
      return native.fetch(s.n);
    } catch (e) {
      return Promise.reject(e);
    }
  }
  // An operation of the WindowOrWorkerGlobalScope mixin: global.js puts it on
  // WorkerGlobalScope.prototype.
  idl.fetch = fetch;
})();
