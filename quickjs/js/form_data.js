// FormData — https://xhr.spec.whatwg.org/#interface-formdata
// A Web IDL layer over src/form_data.rs: entries (and the File a Blob value
// becomes) are made in the crate, whose form is what a body sends. Beside it, the
// entry list as the script sees it: each entry's name and its value, a string or
// the very File object the entry holds, so that get, getAll and the iterators give
// back the File that was appended (and the same File each time), as the entry
// list of the standard holds objects. Every change is made to both lists, by the
// same steps.
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  const idl = globalThis.__fetch_idl;
  const S = self => idl.slot(self, "FormData");
  const F = self => S(self).n;
  const value = v => (typeof v === "string" ? v : idl.wrapBlob(v, true));

  // The script's entry list of a form: made from the crate's when first needed (a
  // form the crate parsed from a body), then kept in step with it.
  function entries(slot) {
    if (slot.entries === undefined) {
      slot.entries = native.form_data_entries(slot.n).map(([k, v]) => [k, value(v)]);
    }
    return slot.entries;
  }

  function add(self, op, args) {
    const slot = S(self);
    const n = slot.n;
    if (args.length < 2) throw new TypeError(`FormData.${op}: 2 arguments required`);
    const name = idl.usvString(args[0]);
    const list = entries(slot);
    const blob = idl.maybeSlot(args[1], "Blob");
    let entry;
    if (blob !== undefined) {
      const filename = args.length > 2 && args[2] !== undefined ? idl.usvString(args[2]) : undefined;
      native[`form_data_${op}_blob`](n, name, blob.n, filename);
      // Create an entry, step 3: a File given without a filename is the entry's value
      // as it is; a Blob, or a File given a filename, becomes a new File, the crate's.
      const file = idl.maybeSlot(args[1], "File") !== undefined && filename === undefined;
      entry = [name, file ? args[1] : value(op === "set"
        ? native.form_data_get(n, name)
        : native.form_data_get_all(n, name).at(-1))];
    } else {
      if (args.length > 2) throw new TypeError(`FormData.${op}: parameter 2 is not of type 'Blob'`);
      const string = idl.usvString(args[1]);
      native[`form_data_${op}`](n, name, string);
      entry = [name, string];
    }
    if (op === "append") {
      list.push(entry);
      return;
    }
    // set(), steps 3 and 4: replace the first entry named name and remove the others,
    // else append.
    const first = list.findIndex(([k]) => k === name);
    if (first === -1) {
      list.push(entry);
      return;
    }
    list[first] = entry;
    for (let i = list.length - 1; i > first; i--) {
      if (list[i][0] === name) list.splice(i, 1);
    }
  }

  class FormData {
    constructor(form = undefined, submitter = null) {
      if (new.target === undefined) throw new TypeError("FormData constructor: 'new' is required");
      // There is no HTMLFormElement in a worker: any form is of the wrong type.
      if (form !== undefined) throw new TypeError("FormData constructor: parameter 1 is not of type 'HTMLFormElement'");
      idl.setSlot(this, ["FormData"], { n: native.form_data_new(), entries: [] });
    }
    append(name, value) { add(this, "append", arguments); }
    delete(name) {
      const slot = S(this);
      if (arguments.length < 1) throw new TypeError("FormData.delete: 1 argument required");
      const key = idl.usvString(name);
      native.form_data_delete(slot.n, key);
      const list = entries(slot);
      for (let i = list.length - 1; i >= 0; i--) {
        if (list[i][0] === key) list.splice(i, 1);
      }
    }
    get(name) {
      const slot = S(this);
      if (arguments.length < 1) throw new TypeError("FormData.get: 1 argument required");
      const key = idl.usvString(name);
      const entry = entries(slot).find(([k]) => k === key);
      return entry === undefined ? null : entry[1];
    }
    getAll(name) {
      const slot = S(this);
      if (arguments.length < 1) throw new TypeError("FormData.getAll: 1 argument required");
      const key = idl.usvString(name);
      return entries(slot).filter(([k]) => k === key).map(([, v]) => v);
    }
    has(name) {
      const slot = S(this);
      if (arguments.length < 1) throw new TypeError("FormData.has: 1 argument required");
      const key = idl.usvString(name);
      return entries(slot).some(([k]) => k === key);
    }
    set(name, value) { add(this, "set", arguments); }
  }
  idl.pairIterable(FormData, "FormData", self => entries(S(self)));
  __fetch_interface(FormData);
  idl.wrapFormData = n => idl.create(FormData, ["FormData"], { n });
})();
