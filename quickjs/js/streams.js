// The JavaScript side of src/streams.rs: a byte ReadableStream over a Rust stream.
// `ReadableStream` is looked up when a stream is made, after the streams implementation loaded.
(() => {
  "use strict";
  const native = globalThis.__fetch_native;
  Object.defineProperty(globalThis, "__fetch_readable_from_native", {
    value(handle) {
      return new ReadableStream({
        type: "bytes",
        async pull(controller) {
          try {
            for (;;) {
              // A boolean crosses the promise, then the chunk is taken: resolving with an
              // object would consult a `then` a script may have put on Object.prototype.
              const chunk = (await native.stream_pull(handle)) ? native.stream_chunk(handle) : null;
              if (chunk == null) {
                controller.close();
                // A pending read into the caller's buffer is answered with zero bytes.
                if (controller.byobRequest) controller.byobRequest.respond(0);
                return;
              }
              if (chunk.byteLength === 0) continue;
              controller.enqueue(chunk);
              return;
            }
          } catch (error) {
            // The stream errors with it, and no `cancel` follows a failed pull: the Rust
            // stream (a body's connection) goes now, not with the engine. (A chunk the
            // engine has no memory for fails here.)
            native.stream_cancel(handle);
            throw error;
          }
        },
        cancel() {
          native.stream_cancel(handle);
        },
      }, {
        // One chunk ahead, as Fetch reads a body from the network in parallel with the
        // script: an error after the last chunk read reaches the stream (and its readers'
        // `closed`) without waiting for another read.
        highWaterMark: 1,
      });
    },
    configurable: true,
  });
})();
