// DOMException — https://webidl.spec.whatwg.org/#idl-DOMException
// The legacy code table is https://webidl.spec.whatwg.org/#dfn-error-names-table.
(() => {
  "use strict";
  const LEGACY_CODES = {
    IndexSizeError: 1, HierarchyRequestError: 3, WrongDocumentError: 4,
    InvalidCharacterError: 5, NoModificationAllowedError: 7, NotFoundError: 8,
    NotSupportedError: 9, InUseAttributeError: 10, InvalidStateError: 11, SyntaxError: 12,
    InvalidModificationError: 13, NamespaceError: 14, InvalidAccessError: 15,
    TypeMismatchError: 17, SecurityError: 18, NetworkError: 19, AbortError: 20,
    URLMismatchError: 21, QuotaExceededError: 22, TimeoutError: 23,
    InvalidNodeTypeError: 24, DataCloneError: 25,
  };
  const CONSTANTS = {
    INDEX_SIZE_ERR: 1, DOMSTRING_SIZE_ERR: 2, HIERARCHY_REQUEST_ERR: 3, WRONG_DOCUMENT_ERR: 4,
    INVALID_CHARACTER_ERR: 5, NO_DATA_ALLOWED_ERR: 6, NO_MODIFICATION_ALLOWED_ERR: 7,
    NOT_FOUND_ERR: 8, NOT_SUPPORTED_ERR: 9, INUSE_ATTRIBUTE_ERR: 10, INVALID_STATE_ERR: 11,
    SYNTAX_ERR: 12, INVALID_MODIFICATION_ERR: 13, NAMESPACE_ERR: 14, INVALID_ACCESS_ERR: 15,
    VALIDATION_ERR: 16, TYPE_MISMATCH_ERR: 17, SECURITY_ERR: 18, NETWORK_ERR: 19,
    ABORT_ERR: 20, URL_MISMATCH_ERR: 21, QUOTA_EXCEEDED_ERR: 22, TIMEOUT_ERR: 23,
    INVALID_NODE_TYPE_ERR: 24, DATA_CLONE_ERR: 25,
  };
  const state = new WeakMap();
  function internals(self, what) {
    const s = state.get(self);
    if (s === undefined) throw new TypeError(`'${what}' called on an object that is not a DOMException`);
    return s;
  }
  class DOMException {
    // constructor(optional DOMString message = "", optional (DOMExceptionOptions or DOMString) options = {})
    constructor(message = undefined, options = undefined) {
      message = message === undefined ? "" : String(message);
      let name = "Error";
      let cause;
      if (options !== null && (typeof options === "object" || typeof options === "function")) {
        // DOMExceptionOptions: members in lexicographic order.
        if (options.cause !== undefined) cause = options.cause;
        const n = options.name;
        if (n !== undefined) name = String(n);
      } else if (options !== undefined) {
        name = String(options);
      }
      state.set(this, { message, name, cause });
      // Not in Web IDL, but what every engine does: a stack for debugging.
      const stack = new Error(message).stack;
      if (stack !== undefined) {
        Object.defineProperty(this, "stack", { value: stack, writable: true, configurable: true });
      }
    }
    get name() { return internals(this, "name").name; }
    get message() { return internals(this, "message").message; }
    get code() { return LEGACY_CODES[internals(this, "code").name] || 0; }
    get cause() { return internals(this, "cause").cause; }
  }
  for (const [k, v] of Object.entries(CONSTANTS)) {
    const desc = { value: v, writable: false, enumerable: true, configurable: false };
    Object.defineProperty(DOMException, k, desc);
    Object.defineProperty(DOMException.prototype, k, desc);
  }
  Object.setPrototypeOf(DOMException.prototype, Error.prototype);
  __fetch_interface(DOMException);
})();
