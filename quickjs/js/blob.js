// Blob and File — https://w3c.github.io/FileAPI/#blob-section
// A Web IDL layer over src/blob.rs: processing blob parts, type normalization
// and slicing happen in the crate.
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  const idl = globalThis.__fetch_idl;
  const B = self => idl.slot(self, "Blob").n;

  // sequence<BlobPart>, BlobPart = (BufferSource or Blob or USVString).
  function convertParts(parts) {
    if (parts === undefined) return [];
    return idl.sequence(parts, part => {
      const s = idl.maybeSlot(part, "Blob");
      if (s !== undefined) return s.n;
      const bytes = idl.bufferSource(part);
      if (bytes !== undefined) return bytes;
      return idl.usvString(part);
    }, "blobParts");
  }
  function dictionary(v, what) {
    if (v === undefined || v === null) return {};
    if (!idl.isObject(v)) throw new TypeError(`${what} is not an object`);
    return v;
  }
  function endings(v) {
    if (v === undefined) return "transparent";
    const s = idl.enumString(v);
    if (s !== "transparent" && s !== "native") throw new TypeError(`${JSON.stringify(s)} is not a valid EndingType`);
    return s;
  }

  class Blob {
    constructor(blobParts = undefined, options = undefined) {
      if (new.target === undefined) throw new TypeError("Blob constructor: 'new' is required");
      const parts = convertParts(blobParts);
      const o = dictionary(options, "BlobPropertyBag");
      const e = endings(o.endings);
      const t = o.type === undefined ? undefined : idl.domString(o.type);
      idl.setSlot(this, ["Blob"], { n: native.blob_new(parts, t, e) });
    }
    get size() { return native.blob_size(B(this)); }
    get type() { return native.blob_type(B(this)); }
    slice(start = undefined, end = undefined, contentType = undefined) {
      const n = B(this);
      const s = start === undefined ? undefined : idl.integer(start, 64, true, true);
      const e = end === undefined ? undefined : idl.integer(end, 64, true, true);
      const c = contentType === undefined ? undefined : idl.domString(contentType);
      return wrap(native.blob_slice(n, s, e, c));
    }
    stream() { return native.blob_stream(B(this)); }
    text() {
      try { return native.blob_text(B(this)); } catch (e) { return Promise.reject(e); }
    }
    arrayBuffer() {
      try { return native.blob_array_buffer(B(this)); } catch (e) { return Promise.reject(e); }
    }
    bytes() {
      try { return native.blob_bytes(B(this)); } catch (e) { return Promise.reject(e); }
    }
  }

  class File extends Blob {
    constructor(fileBits, fileName, options = undefined) {
      if (new.target === undefined) throw new TypeError("File constructor: 'new' is required");
      if (arguments.length < 2) throw new TypeError("File constructor: 2 arguments required");
      const parts = idl.sequence(fileBits, part => {
        const s = idl.maybeSlot(part, "Blob");
        if (s !== undefined) return s.n;
        const bytes = idl.bufferSource(part);
        if (bytes !== undefined) return bytes;
        return idl.usvString(part);
      }, "fileBits");
      const name = idl.usvString(fileName);
      const o = dictionary(options, "FilePropertyBag");
      const e = endings(o.endings);
      const lm = o.lastModified === undefined ? undefined : idl.integer(o.lastModified, 64, true, false);
      const t = o.type === undefined ? undefined : idl.domString(o.type);
      super();
      idl.setSlot(this, ["Blob", "File"], { n: native.file_new(parts, name, t, e, lm) });
    }
    get name() { return native.file_name(idl.slot(this, "File").n); }
    get lastModified() { return native.file_last_modified(idl.slot(this, "File").n); }
  }
  __fetch_interface(Blob);
  __fetch_interface(File);

  // https://w3c.github.io/FileAPI/#creating-revoking: static operations of URL.
  const statics = {
    createObjectURL(obj) {
      if (arguments.length < 1) throw new TypeError("URL.createObjectURL: 1 argument required");
      return native.blob_url_create(idl.slot(obj, "Blob").n);
    },
    revokeObjectURL(url) {
      if (arguments.length < 1) throw new TypeError("URL.revokeObjectURL: 1 argument required");
      native.blob_url_revoke(idl.usvString(url));
    },
  };
  for (const [k, f] of Object.entries(statics)) {
    Object.defineProperty(URL, k, { value: f, writable: true, enumerable: true, configurable: true });
  }

  // A Blob or File object for a native handle (`isFile` for a File).
  function wrap(n, isFile = false) {
    return isFile ? idl.create(File, ["Blob", "File"], { n }) : idl.create(Blob, ["Blob"], { n });
  }
  idl.wrapBlob = wrap;
})();
