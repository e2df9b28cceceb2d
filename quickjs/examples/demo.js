// fetch() in QuickJS, against a local server. Serve the crate's folder, then run the script:
//   python3 -m http.server --bind 127.0.0.1 --directory quickjs 8000 &
//   cargo run -p whatwg-fetch-quickjs --example run -- quickjs/examples/demo.js
const base = "http://127.0.0.1:8000/";
const big = new URL("js/vendor/web-streams-polyfill/polyfill.js", base); // 64 KiB

// JSON.
const response = await fetch(new URL("examples/demo.json", base));
console.log(response.status, response.statusText, response.headers.get("content-type"));
const data = await response.json();
console.log(`${data.name}: ${data.interfaces.join(", ")}`);

// A body read through a stream reader, chunk by chunk, as it arrives.
const streamed = await fetch(big);
const reader = streamed.body.getReader();
let chunks = 0, bytes = 0;
for (let read = await reader.read(); !read.done; read = await reader.read()) {
  chunks += 1;
  bytes += read.value.byteLength;
}
console.log(`streamed ${bytes} bytes in ${chunks} chunks (Content-Length: ${streamed.headers.get("content-length")})`);

// Aborting a request before its response...
const controller = new AbortController();
const pending = fetch(big, { signal: controller.signal });
controller.abort();
try {
  await pending;
} catch (e) {
  console.log(`fetch rejected: ${e.name}: ${e.message}`);
}

// ...and a body midway, with a reason of our own.
const midway = new AbortController();
const partial = await fetch(big, { signal: midway.signal });
const partialReader = partial.body.getReader();
const first = await partialReader.read();
midway.abort(new Error(`stop after ${first.value.byteLength} bytes`));
try {
  await partialReader.read();
} catch (e) {
  console.log(`body read rejected: ${e.message}`);
}

// Headers, Request and Response without the network.
const request = new Request(base, { method: "POST", body: new URLSearchParams({ q: "fetch" }) });
console.log(request.method, request.headers.get("content-type"), await request.text());

// Server-sent events: an EventSource over the same fetch (a data: URL, so no server needed),
// closed once the server's last event has come.
const events = new EventSource("data:text/event-stream,id: 1%0Adata: hello%0A%0Aevent: done%0Adata: bye%0A%0A");
await new Promise((resolve, reject) => {
  events.onmessage = e => console.log(`message #${e.lastEventId}: ${e.data}`);
  events.addEventListener("done", e => {
    console.log(`${e.type}: ${e.data}`);
    events.close();
    resolve();
  });
  events.onerror = () => reject(new Error("the event source failed"));
});

// A WebSocket over the same client: its handshake is a fetch, with the client's cookies,
// TLS and proxies. Start the echo server first:
//   cargo run -p whatwg-fetch-quickjs --example echo_server &
const socket = new WebSocket("ws://127.0.0.1:8001/");
socket.binaryType = "arraybuffer";
await new Promise((resolve, reject) => {
  socket.onopen = () => {
    socket.send("ping over a WebSocket");
    socket.send(new Uint8Array([1, 2, 3]));
  };
  socket.onmessage = e => {
    if (typeof e.data === "string") {
      console.log(`echo: ${e.data}`);
    } else {
      console.log(`echo: ${e.data.byteLength} bytes`);
      socket.close(1000, "done");
    }
  };
  socket.onclose = e => {
    console.log(`closed: ${e.code} ${e.reason} (clean: ${e.wasClean})`);
    resolve();
  };
  socket.onerror = () => reject(new Error("is the echo server running?"));
});
