// Preloaded into undici's benchmark.js (`node --require tap.cjs benchmark.js`) by run.sh: the
// rows its printResults hands console.table are also written, one JSON line each, to the
// file $UNDICI_BENCH_JSON, for merge.py. The table itself is printed as before.
'use strict'

const fs = require('node:fs')
const { isMainThread } = require('node:worker_threads')

const out = process.env.UNDICI_BENCH_JSON
if (isMainThread && out) {
  const table = console.table.bind(console)
  console.table = (rows, ...rest) => {
    if (Array.isArray(rows)) {
      for (const row of rows) {
        // Result: "20786.44 req/sec", or "Errored"; Tolerance: "± 2.10 %", or "N/A".
        const rps = parseFloat(row.Result)
        const tolerance = parseFloat(String(row.Tolerance).replace('±', ''))
        fs.appendFileSync(out, JSON.stringify({
          client: row.Tests,
          source: 'undici benchmark.js',
          samples: row.Samples,
          rps: Number.isFinite(rps) ? rps : null,
          tolerance_pct: Number.isFinite(tolerance) ? tolerance : null
        }) + '\n')
      }
    }
    return table(rows, ...rest)
  }
}
