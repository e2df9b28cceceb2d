// crypto — https://w3c.github.io/webcrypto/#crypto-interface
// The parts the fetch tests use, over src/crypto.rs: subtle.digest (SHA-2),
// getRandomValues and randomUUID.
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  function bytesOf(data) {
    if (ArrayBuffer.isView(data)) return new Uint8Array(data.buffer, data.byteOffset, data.byteLength).slice();
    if (data instanceof ArrayBuffer) return new Uint8Array(data.slice(0));
    throw new TypeError("The provided value is not of type '(ArrayBuffer or ArrayBufferView)'");
  }
  class SubtleCrypto {
    digest(algorithm, data) {
      try {
        const name = typeof algorithm === "string" ? algorithm : algorithm && algorithm.name;
        if (typeof name !== "string") throw new TypeError("digest: the algorithm has no name");
        const out = native.crypto_digest(name, bytesOf(data));
        if (out === null || out === undefined) {
          throw new DOMException("Unrecognized algorithm name", "NotSupportedError");
        }
        return Promise.resolve(out.buffer);
      } catch (error) {
        return Promise.reject(error);
      }
    }
  }
  const subtle = new SubtleCrypto();
  class Crypto {
    get subtle() { return subtle; }
    getRandomValues(array) {
      if (!ArrayBuffer.isView(array) || array instanceof Float32Array || array instanceof Float64Array || array instanceof DataView) {
        throw new DOMException("The data is not an integer typed array", "TypeMismatchError");
      }
      if (array.byteLength > 65536) throw new DOMException("The data is longer than 65536 bytes", "QuotaExceededError");
      new Uint8Array(array.buffer, array.byteOffset, array.byteLength).set(native.crypto_random_bytes(array.byteLength));
      return array;
    }
    randomUUID() {
      const b = native.crypto_random_bytes(16);
      b[6] = (b[6] & 0x0f) | 0x40;
      b[8] = (b[8] & 0x3f) | 0x80;
      const hex = Array.from(b, x => x.toString(16).padStart(2, "0")).join("");
      return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
    }
  }
  Object.defineProperty(globalThis, "crypto", { value: new Crypto(), writable: true, configurable: true, enumerable: true });
})();
