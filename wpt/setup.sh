#!/usr/bin/env bash
# What the tests need outside the repository, under ${WPT_CACHE:-~/.cache/whatwg-fetch}
# (idempotent; each step says what it does):
#   - the pinned web-platform-tests suite: $WPT_ROOT (copied into <cache>/wpt), or
#     ../shared/wpt-suite beside the repository, or <cache>/wpt, downloaded there when none
#     is found (about 2.5 MB from GitHub); whichever is used is checked against
#     wpt/suite.sha256;
#   - a Python virtualenv with wptserve (the WPT server) and pywebsocket3 (its WebSocket
#     server), from PyPI, in <cache>/venv;
#   - redis-server, Debian's package, for the `redis` feature's tests, installed with apt-get
#     when missing and this user may (root, or sudo without a password); otherwise it says
#     the command, and those tests skip saying why.
set -euo pipefail
cd "$(dirname "$0")/.."

CACHE="${WPT_CACHE:-$HOME/.cache/whatwg-fetch}"
VENV="$CACHE/venv"
WPTSERVE_VERSION="4.0.3"
# The WebSocket server WPT's tools/serve starts (`from pywebsocket3 import standalone`); 4.0.2 is
# the newest release and the oldest wptserve 4.0.3 accepts.
PYWEBSOCKET3_VERSION="4.0.2"

for arg in "$@"; do
  case "$arg" in
    -h|--help) sed -n '2,12p' "$0"; exit 0 ;;
    *) echo "setup.sh: unknown option $arg" >&2; exit 2 ;;
  esac
done

mkdir -p "$CACHE"

# The suite: the one at hand when there is one (nothing is downloaded), else fetched into the
# cache; either way checked file by file. No suite and no way to fetch it is a failure.
if ! suite="$(python3 wpt/suite.py locate)"; then
  if [ -n "${WPT_ROOT:-}" ]; then
    echo "setup.sh: WPT_ROOT=$WPT_ROOT holds no suite (no resources/testharness.js)" >&2
    exit 1
  fi
  python3 wpt/suite.py fetch
  suite="$(python3 wpt/suite.py locate)"
fi
python3 wpt/suite.py verify "$suite"
# A suite $WPT_ROOT names is copied into the cache, as a download would be, so that the tests
# run without the variable (`cargo test` in a new shell) find it there.
if [ -n "${WPT_ROOT:-}" ]; then
  python3 wpt/suite.py keep "$suite"
fi

# redis-server for feature-tests/tests/redis.rs and redis_cookies.rs, which start their own
# on a free port.
if ! command -v redis-server >/dev/null 2>&1; then
  if ! command -v apt-get >/dev/null 2>&1; then
    echo "setup.sh: redis-server is missing and there is no apt-get: the redis tests will skip" >&2
  elif [ "$(id -u)" = 0 ] || sudo -n true 2>/dev/null; then
    as_root() { if [ "$(id -u)" = 0 ]; then "$@"; else sudo -n "$@"; fi; }
    echo "installing redis-server (Debian's package) with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    if ! as_root apt-get install -y -q redis-server; then
      as_root apt-get update -q
      as_root apt-get install -y -q redis-server
    fi
  else
    echo "setup.sh: redis-server is missing; install it with \`sudo apt-get install redis-server\`" \
      "(not run here: it would ask for a password). Until then the redis tests skip." >&2
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
  echo "installing wptserve $WPTSERVE_VERSION, pywebsocket3 $PYWEBSOCKET3_VERSION and cryptography" \
    "from PyPI into $VENV"
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --upgrade pip
  "$VENV/bin/pip" install --quiet "wptserve==$WPTSERVE_VERSION" \
    "pywebsocket3==$PYWEBSOCKET3_VERSION" cryptography
fi
echo "wptserve $WPTSERVE_VERSION, pywebsocket3 $PYWEBSOCKET3_VERSION: $VENV"
