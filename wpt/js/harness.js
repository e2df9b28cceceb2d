// Collects testharness.js results for the runner; evaluated right after testharness.js.
// Status names follow testharness's own tables.
(() => {
  "use strict";
  const native = globalThis.__wpt_native;
  const TEST = ["PASS", "FAIL", "TIMEOUT", "NOTRUN", "PRECONDITION_FAILED"];
  const HARNESS = ["OK", "ERROR", "TIMEOUT", "PRECONDITION_FAILED"];
  const str = v => (v === null || v === undefined ? null : String(v));
  const subtest = test => ({ name: String(test.name), status: TEST[test.status] ?? String(test.status), message: str(test.message) });
  // Each result is reported as it comes, so a file that dies later keeps what it finished.
  add_result_callback(test => { native.result(JSON.stringify(subtest(test))); });
  add_completion_callback((tests, status) => {
    native.complete(JSON.stringify({
      status: HARNESS[status.status] ?? String(status.status),
      message: str(status.message),
      stack: str(status.stack),
      subtests: Array.from(tests, subtest),
    }));
  });
})();
