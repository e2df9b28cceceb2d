// Collects testharness.js results for the runner; evaluated right after testharness.js, where
// WPT's wrappers load testharnessreport.js. Status names follow testharness's own tables.
(() => {
  "use strict";
  const native = globalThis.__wpt_native;
  const TEST = ["PASS", "FAIL", "TIMEOUT", "NOTRUN", "PRECONDITION_FAILED"];
  const HARNESS = ["OK", "ERROR", "TIMEOUT", "PRECONDITION_FAILED"];
  // testharness.js's own sanitize_unpaired_surrogates: each unpaired surrogate becomes `U+xxxx`
  // (lowercase hex), a pair stays. testharness applies it to every test name when it
  // completes and to assertion messages, so the names reported at completion already have
  // this form; applying it to the results streamed before completion gives a subtest the same
  // name in both, and keeps every line valid UTF-8 JSON, which the runner's parser requires
  // (JSON.stringify writes a lone surrogate as a `\udxxx` escape that no Rust String holds).
  const sanitize = s => s.replace(
    /([\ud800-\udbff]+)(?![\udc00-\udfff])|(^|[^\ud800-\udbff])([\udc00-\udfff]+)/g,
    (_, lead, prefix, trail) => {
      let out = prefix || "";
      const units = lead || trail;
      for (let i = 0; i < units.length; i++) out += "U+" + units.charCodeAt(i).toString(16);
      return out;
    });
  const str = v => (v === null || v === undefined ? null : sanitize(String(v)));
  const subtest = test => ({ name: sanitize(String(test.name)), status: TEST[test.status] ?? String(test.status), message: str(test.message) });
  // Each result is reported as it comes, so a file that dies later keeps what it finished.
  add_result_callback(test => { native.result(JSON.stringify(subtest(test))); });
  // In a window, as wptrunner's testharnessreport.js does: no output into the (empty)
  // document, and no timer of testharness's own; the runner calls timeout() at its deadline,
  // as a worker environment always expects.
  if (globalThis.GLOBAL && GLOBAL.isWindow()) setup({ output: false, explicit_timeout: true });
  add_completion_callback((tests, status) => {
    native.complete(JSON.stringify({
      status: HARNESS[status.status] ?? String(status.status),
      message: str(status.message),
      stack: str(status.stack),
      subtests: Array.from(tests, subtest),
    }));
  });
})();
