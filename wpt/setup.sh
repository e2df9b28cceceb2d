#!/usr/bin/env bash
# Prepare what the conformance runner needs outside the repository (idempotent):
#   - a Python virtualenv with wptserve (the web-platform-tests server) and pywebsocket3 (its
#     WebSocket server),
#   - redis-server (Debian's package), which the tests of the `redis` feature start on a
#     port of their own, when it is missing,
#   - optionally (--fetch-suite) a sparse checkout of web-platform-tests at a pinned commit.
# (The WHATWG Streams implementation comes bundled with whatwg-fetch-quickjs.)
# Everything goes under ${WPT_CACHE:-~/.cache/whatwg-fetch}.
set -euo pipefail

CACHE="${WPT_CACHE:-$HOME/.cache/whatwg-fetch}"
VENV="$CACHE/venv"
WPTSERVE_VERSION="4.0.3"
# The WebSocket server WPT's tools/serve starts (`from pywebsocket3 import standalone`); 4.0.2 is
# the newest release and the oldest wptserve 4.0.3 accepts.
PYWEBSOCKET3_VERSION="4.0.2"
# The web-platform-tests commit used by --fetch-suite.
WPT_REPO="https://github.com/web-platform-tests/wpt.git"
WPT_COMMIT="${WPT_COMMIT:-d1655f32e1b75a6f052a26647f1c108b7b4f689e}"
WPT_DIRS=(common fetch mimesniff resources xhr interfaces)

fetch_suite=0
for arg in "$@"; do
  case "$arg" in
    --fetch-suite) fetch_suite=1 ;;
    -h|--help)
      sed -n '2,7p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

mkdir -p "$CACHE"

# redis-server for feature-tests/tests/redis.rs, which skip (loudly) without it: installed
# from Debian's packages when missing, the package lists refreshed only if the first try
# fails. A machine without apt-get that has the binary needs nothing; one without either
# is told, and its redis tests skip.
if ! command -v redis-server >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1; then
    as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo "$@"; fi; }
    export DEBIAN_FRONTEND=noninteractive
    if ! as_root apt-get install -y -qq redis-server >/dev/null 2>&1; then
      as_root apt-get update -qq >/dev/null
      as_root apt-get install -y -qq redis-server >/dev/null
    fi
  else
    echo "setup.sh: redis-server is missing and there is no apt-get: the redis tests will skip" >&2
  fi
fi
if command -v redis-server >/dev/null 2>&1; then
  echo "$(redis-server --version | cut -d' ' -f1-3)"
fi

# The server: wptserve and pywebsocket3 in their own virtualenv, plus `cryptography` for the
# test CA.
installed() {
  "$VENV/bin/python" -c 'import importlib.metadata as m, sys; print(m.version(sys.argv[1]))' "$1" 2>/dev/null
}
if ! "$VENV/bin/python" -c "import wptserve, pywebsocket3, cryptography" 2>/dev/null \
   || [ "$(installed wptserve)" != "$WPTSERVE_VERSION" ] \
   || [ "$(installed pywebsocket3)" != "$PYWEBSOCKET3_VERSION" ]; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --upgrade pip
  "$VENV/bin/pip" install --quiet "wptserve==$WPTSERVE_VERSION" \
    "pywebsocket3==$PYWEBSOCKET3_VERSION" cryptography
fi
echo "wptserve $WPTSERVE_VERSION, pywebsocket3 $PYWEBSOCKET3_VERSION: $VENV"

# The suite at a pinned web-platform-tests commit (needs access to GitHub).
if [ "$fetch_suite" = 1 ]; then
  SUITE="${WPT_ROOT:-$CACHE/wpt}"
  if [ -d "$SUITE/.git" ] && [ "$(git -C "$SUITE" rev-parse HEAD)" = "$WPT_COMMIT" ]; then
    echo "suite already at $WPT_COMMIT: $SUITE"
  else
    rm -rf "$SUITE"
    git init --quiet "$SUITE"
    git -C "$SUITE" remote add origin "$WPT_REPO"
    git -C "$SUITE" sparse-checkout set "${WPT_DIRS[@]}"
    git -C "$SUITE" fetch --quiet --depth 1 --filter=blob:none origin "$WPT_COMMIT"
    git -C "$SUITE" checkout --quiet FETCH_HEAD
    echo "suite at $WPT_COMMIT: $SUITE"
  fi
fi
