// Helpers shared by the binding scripts; evaluated first. `__wpt_expose` puts an interface
// object on the global as Web IDL does: writable, configurable, not enumerable.
(() => {
  "use strict";
  Object.defineProperty(globalThis, "__wpt_expose", {
    value(name, value) {
      Object.defineProperty(globalThis, name, { value, writable: true, enumerable: false, configurable: true });
    },
    writable: false, enumerable: false, configurable: true,
  });
  // Gives a JS class the shape Web IDL gives an interface: operations and attributes on the
  // prototype enumerable, a class string (@@toStringTag), and the interface object exposed.
  Object.defineProperty(globalThis, "__wpt_interface", {
    value(C, name = C.name) {
      for (const key of Object.getOwnPropertyNames(C.prototype)) {
        if (key === "constructor") continue;
        const d = Object.getOwnPropertyDescriptor(C.prototype, key);
        if (d.configurable && !d.enumerable) Object.defineProperty(C.prototype, key, { enumerable: true });
      }
      Object.defineProperty(C.prototype, Symbol.toStringTag, { value: name, configurable: true });
      globalThis.__wpt_expose(name, C);
    },
    writable: false, enumerable: false, configurable: true,
  });
  // https://w3c.github.io/hr-time/#the-performance-attribute, from the runtime's monotonic clock.
  const native = globalThis.__wpt_native;
  const timeOrigin = Date.now() - native.now();
  const performance = { now() { return native.now(); }, get timeOrigin() { return timeOrigin; } };
  Object.defineProperty(globalThis, "performance", { value: performance, writable: true, enumerable: true, configurable: true });
})();
