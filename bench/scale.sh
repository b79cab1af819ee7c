#!/usr/bin/env bash
# Scale-out benchmark (docs/scale-out.md): tiles/s through nginx with 1, 2 and 3 replicas on one
# PostgreSQL, with nginx's cache on, and against one replica direct; CPU per tile of each side.
#   bench/scale.sh        # Markdown table on stdout and in bench/out/scale.md
# Tunables (environment): ROUNDS (3), ROUND_SECONDS (8), CONNECTIONS (16), SIZE (4096).
set -euo pipefail
cd "$(dirname "$0")/.."
missing=()
for p in postgresql nginx-light wrk libvips-tools libpq-dev python3; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
export PATH="$PATH:/usr/sbin"
swift build -c release --product tilescope >/dev/null
exec python3 bench/scale.py "$(swift build -c release --show-bin-path)/tilescope"
