#!/usr/bin/env python3
"""The pinned web-platform-tests suite: where it is, whether it is whole, and fetching it.

    python3 wpt/suite.py locate     print the suite in use (the first found, in the order below)
    python3 wpt/suite.py verify DIR check DIR against wpt/suite.sha256
    python3 wpt/suite.py fetch      download it into <cache>/wpt, checked before it is kept
                                    (from $WPT_SUITE_URL when set: a mirror of the archive)
    python3 wpt/suite.py keep DIR   copy the suite at DIR into <cache>/wpt, as `fetch` would
                                    download it, unless the cache holds it already

The suite is the `test/fixtures/wpt` directory of nodejs/undici at the commit below: the
files the expectations in wpt/expectations were recorded against, listed with their SHA-256
in wpt/suite.sha256. It is looked for, in this order (the tests and the runner look in the
same places, `tests/common/wpt_suite.rs`):

  1. $WPT_ROOT,
  2. ../shared/wpt-suite beside the repository,
  3. ${WPT_CACHE:-~/.cache/whatwg-fetch}/wpt, where `fetch` and `keep` put it.

Only the Python standard library is used, so that it runs on any machine with Python 3.
"""

import hashlib
import io
import os
import shutil
import sys
import tarfile
import tempfile
import urllib.request

UNDICI_COMMIT = "b4019ee9dc9864469cebfca43a42e37de1287b98"
# GitHub's archive of that commit; $WPT_SUITE_URL names a mirror of the same archive.
URL = os.environ.get("WPT_SUITE_URL") or (
    f"https://codeload.github.com/nodejs/undici/tar.gz/{UNDICI_COMMIT}"
)
PREFIX = f"undici-{UNDICI_COMMIT}/test/fixtures/wpt/"
# The archive is about 2.5 MB; anything far larger is not the archive asked for.
MAX_ARCHIVE_BYTES = 64 << 20
TIMEOUT_SECONDS = 60

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
MANIFEST = os.path.join(REPO, "wpt", "suite.sha256")


def cache_dir():
    cache = os.environ.get("WPT_CACHE")
    if cache:
        return cache
    return os.path.join(os.path.expanduser("~"), ".cache", "whatwg-fetch")


def candidates():
    """The places a suite is looked for, in order, each with how it was chosen."""
    root = os.environ.get("WPT_ROOT")
    if root:
        yield root, "$WPT_ROOT"
    yield os.path.normpath(os.path.join(REPO, "..", "shared", "wpt-suite")), "beside the repository"
    yield os.path.join(cache_dir(), "wpt"), "the cache"


def is_suite(path):
    return os.path.isfile(os.path.join(path, "resources", "testharness.js"))


def locate():
    """The suite in use: $WPT_ROOT when set (which must then hold one), else the first found."""
    root = os.environ.get("WPT_ROOT")
    if root:
        return root if is_suite(root) else None
    for path, _ in candidates():
        if is_suite(path):
            return path
    return None


def manifest():
    entries = {}
    with open(MANIFEST, encoding="utf-8") as lines:
        for number, line in enumerate(lines, 1):
            digest, sep, path = line.rstrip("\n").partition("  ")
            if not sep or len(digest) != 64:
                raise SystemExit(f"{MANIFEST}:{number}: not a `<sha256>  <path>` line")
            entries[path] = digest
    return entries


def differences(root):
    """What differs between the suite at `root` and the manifest: (missing, changed, extra)."""
    expected = manifest()
    found = set()
    changed = []
    for directory, _, files in os.walk(root):
        for name in files:
            full = os.path.join(directory, name)
            path = os.path.relpath(full, root).replace(os.sep, "/")
            found.add(path)
            digest = expected.get(path)
            if digest is None:
                continue
            with open(full, "rb") as f:
                if hashlib.sha256(f.read()).hexdigest() != digest:
                    changed.append(path)
    missing = sorted(set(expected) - found)
    extra = sorted(found - set(expected))
    return missing, sorted(changed), extra


def verify(root, announce=True):
    """Exits non-zero naming what differs, unless `root` holds exactly the pinned suite."""
    missing, changed, extra = differences(root)
    if not (missing or changed or extra):
        if announce:
            print(f"suite: {root} ({len(manifest())} files, as wpt/suite.sha256 lists)")
        return
    report = [f"suite.py: {root} is not the pinned suite (wpt/suite.sha256):"]
    for label, paths in (("missing", missing), ("changed", changed), ("not listed", extra)):
        if paths:
            shown = ", ".join(paths[:5]) + (f", … ({len(paths)} in all)" if len(paths) > 5 else "")
            report.append(f"  {label}: {shown}")
    report.append("  remove it (or unset WPT_ROOT) and run `bash wpt/setup.sh` to fetch it again")
    raise SystemExit("\n".join(report))


def manual_steps(destination):
    return (
        f"  curl -fL {URL} | tar -xz -C DIR --strip-components=4 {PREFIX}\n"
        f"  (then WPT_ROOT=DIR, or DIR = {destination})"
    )


def fetch():
    """Downloads the suite into <cache>/wpt, keeping it only once every file checks out."""
    destination = os.path.join(cache_dir(), "wpt")
    os.makedirs(cache_dir(), exist_ok=True)
    print(f"fetching the WPT suite (nodejs/undici {UNDICI_COMMIT[:9]}, test/fixtures/wpt, "
          f"about 2.5 MB) from {URL}")
    try:
        with urllib.request.urlopen(URL, timeout=TIMEOUT_SECONDS) as response:
            archive = response.read(MAX_ARCHIVE_BYTES + 1)
    except OSError as error:
        raise SystemExit(
            f"suite.py: cannot download the WPT suite: {error}\n"
            f"No suite was found at $WPT_ROOT, ../shared/wpt-suite or {destination}. Run "
            f"`bash wpt/setup.sh` again where github.com is reachable, or fetch it by hand:\n"
            + manual_steps(destination)
        )
    if len(archive) > MAX_ARCHIVE_BYTES:
        raise SystemExit(f"suite.py: {URL} sent more than {MAX_ARCHIVE_BYTES} bytes; not kept")
    staging = tempfile.mkdtemp(prefix="wpt-", dir=cache_dir())
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            for member in tar.getmembers():
                if not member.name.startswith(PREFIX) or not (member.isfile() or member.isdir()):
                    continue
                relative = member.name[len(PREFIX):]
                if not relative or relative.startswith("/") or ".." in relative.split("/"):
                    continue
                target = os.path.join(staging, relative)
                if member.isdir():
                    os.makedirs(target, exist_ok=True)
                    continue
                os.makedirs(os.path.dirname(target), exist_ok=True)
                source = tar.extractfile(member)
                if source is None:
                    continue
                with source, open(target, "wb") as out:
                    shutil.copyfileobj(source, out)
                if member.mode & 0o111:
                    os.chmod(target, 0o755)
        install(staging, destination)
    finally:
        if os.path.exists(staging):
            shutil.rmtree(staging)
    print(f"suite: {destination} ({len(manifest())} files, as wpt/suite.sha256 lists)")


def install(staging, destination):
    """Puts the suite made in `staging` at `destination` once every file checks out."""
    verify(staging, announce=False)
    if os.path.exists(destination):
        shutil.rmtree(destination)
    os.rename(staging, destination)


def keep(root):
    """Copies the suite at `root` into <cache>/wpt, unless the cache holds it already: the
    tests and the runner then find it there without $WPT_ROOT, as after a download."""
    destination = os.path.join(cache_dir(), "wpt")
    if os.path.abspath(root) == os.path.abspath(destination) or (
        is_suite(destination) and differences(destination) == ([], [], [])
    ):
        return
    os.makedirs(cache_dir(), exist_ok=True)
    staging = tempfile.mkdtemp(prefix="wpt-", dir=cache_dir())
    try:
        for path in manifest():
            target = os.path.join(staging, *path.split("/"))
            os.makedirs(os.path.dirname(target), exist_ok=True)
            shutil.copy2(os.path.join(root, *path.split("/")), target)
        install(staging, destination)
    finally:
        if os.path.exists(staging):
            shutil.rmtree(staging)
    print(f"suite: copied into {destination}, where the tests find it without $WPT_ROOT")


def main(args):
    if args == ["locate"]:
        found = locate()
        if found is None:
            raise SystemExit(1)
        print(found)
    elif len(args) == 2 and args[0] == "verify":
        verify(args[1])
    elif args == ["fetch"]:
        fetch()
    elif len(args) == 2 and args[0] == "keep":
        keep(args[1])
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
