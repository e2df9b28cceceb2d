#!/usr/bin/env bash
# Sets up the HTTP caching tests of cache-tests.fyi (http-tests/cache-tests) for
# `cargo run --release -p wpt --bin cache-tests`, outside the repository: in
# $CACHE_TESTS_DIR, else ~/.cache/whatwg-fetch/cache-tests. Needs git and Node.js 20+.
#
# The suite is pinned to a commit of its repository, whose results/ are the browsers'
# published results the runner compares with. CACHE_TESTS_REPO may name another clone or a
# local mirror of https://github.com/http-tests/cache-tests to fetch that commit from.
#
# (The npm package http-cache-tests, 0.4.5, is far older than the published results: its
# tests and its layout differ, so it is not used.)
set -euo pipefail

COMMIT=b55b8bda3dbb8c927c04e85bd8d496a8caa3e4ba
REPO=${CACHE_TESTS_REPO:-https://github.com/http-tests/cache-tests.git}
DIR=${CACHE_TESTS_DIR:-$HOME/.cache/whatwg-fetch/cache-tests}

if [ ! -d "$DIR/.git" ]; then
    mkdir -p "$(dirname "$DIR")"
    git clone --quiet --no-checkout "$REPO" "$DIR"
fi
if ! git -C "$DIR" cat-file -e "$COMMIT^{commit}" 2>/dev/null; then
    git -C "$DIR" fetch --quiet "$REPO" "$COMMIT" || git -C "$DIR" fetch --quiet "$REPO"
fi
git -C "$DIR" -c advice.detachedHead=false checkout --quiet --force "$COMMIT"
# The server and the client engine use only Node's own modules: no `npm install`.
node --version >/dev/null
echo "cache-tests $(git -C "$DIR" log -1 --format='%h %cs') in $DIR"
