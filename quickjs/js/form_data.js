// FormData — https://xhr.spec.whatwg.org/#interface-formdata
// A Web IDL layer over src/form_data.rs: entries (and the File a Blob value
// becomes) are made in the crate.
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  const idl = globalThis.__fetch_idl;
  const F = self => idl.slot(self, "FormData").n;
  const value = v => (typeof v === "string" ? v : idl.wrapBlob(v, true));

  function add(self, op, args) {
    const n = F(self);
    if (args.length < 2) throw new TypeError(`FormData.${op}: 2 arguments required`);
    const name = idl.usvString(args[0]);
    const blob = idl.maybeSlot(args[1], "Blob");
    if (blob !== undefined) {
      const filename = args.length > 2 && args[2] !== undefined ? idl.usvString(args[2]) : undefined;
      native[`form_data_${op}_blob`](n, name, blob.n, filename);
    } else {
      if (args.length > 2) throw new TypeError(`FormData.${op}: parameter 2 is not of type 'Blob'`);
      native[`form_data_${op}`](n, name, idl.usvString(args[1]));
    }
  }

  class FormData {
    constructor(form = undefined, submitter = null) {
      if (new.target === undefined) throw new TypeError("FormData constructor: 'new' is required");
      // There is no HTMLFormElement in a worker: any form is of the wrong type.
      if (form !== undefined) throw new TypeError("FormData constructor: parameter 1 is not of type 'HTMLFormElement'");
      idl.setSlot(this, ["FormData"], { n: native.form_data_new() });
    }
    append(name, value) { add(this, "append", arguments); }
    delete(name) {
      const n = F(this);
      if (arguments.length < 1) throw new TypeError("FormData.delete: 1 argument required");
      native.form_data_delete(n, idl.usvString(name));
    }
    get(name) {
      const n = F(this);
      if (arguments.length < 1) throw new TypeError("FormData.get: 1 argument required");
      const v = native.form_data_get(n, idl.usvString(name));
      return v === null ? null : value(v);
    }
    getAll(name) {
      const n = F(this);
      if (arguments.length < 1) throw new TypeError("FormData.getAll: 1 argument required");
      return native.form_data_get_all(n, idl.usvString(name)).map(value);
    }
    has(name) {
      const n = F(this);
      if (arguments.length < 1) throw new TypeError("FormData.has: 1 argument required");
      return native.form_data_has(n, idl.usvString(name));
    }
    set(name, value) { add(this, "set", arguments); }
  }
  idl.pairIterable(FormData, "FormData", self => native.form_data_entries(F(self)).map(([k, v]) => [k, value(v)]));
  __fetch_interface(FormData);
  idl.wrapFormData = n => idl.create(FormData, ["FormData"], { n });
})();
