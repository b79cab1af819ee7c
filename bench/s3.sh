#!/usr/bin/env bash
# Issue 40's goals 1 and 2 (docs/object-storage.md#measured): the same server with its pyramids in a real
# SeaweedFS on loopback (--store s3://) and on a local folder, side by side in one run: a 16384² build to
# complete, hot tiles (wrk), cold tiles' first-request latency, and store GETs per cold tile under
# concurrent clients.
#   bench/s3.sh            # Markdown table on stdout and in bench/out/s3/s3.md
# Tunables (environment): SIZE (16384), BUILD_RUNS (2), ROUNDS (3), ROUND_SECONDS (6), CONNECTIONS (16),
# HOT_URLS (2000), COLD (300), COALESCE (20), CLIENTS (16), BUILDS_ONLY (1: the builds alone, goal 2); TILESCOPE_BIN (a release binary already built),
# TILESCOPE_WEED (weed; default .venv/bin/weed from scripts/install-deps.sh --test); KEEP=1 keeps the work folder.
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
for p in wrk libvips-tools python3; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
[ -n "${TILESCOPE_WEED:-}" ] || scripts/install-deps.sh --test >/dev/null
bin="${TILESCOPE_BIN:-}"
if [ -z "$bin" ]; then
  swift build -c release --product tilescope >/dev/null
  bin="$(swift build -c release --show-bin-path)/tilescope"
fi
exec python3 bench/s3.py "$bin"
