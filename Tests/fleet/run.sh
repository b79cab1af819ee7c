#!/usr/bin/env bash
# The fleet test, two profiles: PostgreSQL + 3 replicas + nginx on loopback sharing one folder (Tests/fleet/fleet.py
# says what it checks), then the same with no shared folder, sources and pyramids in SeaweedFS (fleet_s3.py).
# Installs postgresql, nginx-light and libvips-tools if missing; FAILS (never skips) if they cannot be had, or if
# SeaweedFS's weed is not found ($TILESCOPE_WEED, .venv/bin/weed: scripts/install-deps.sh --test).
# Bounded: 6 minutes at most for each profile.
set -euo pipefail
cd "$(dirname "$0")/../.."
missing=()
for p in postgresql nginx-light libvips-tools libpq-dev; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "fleet: installing ${missing[*]}" >&2
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
command -v nginx >/dev/null || [ -x /usr/sbin/nginx ] || { echo "fleet: FAIL nginx is not installed" >&2; exit 1; }
export PATH="$PATH:/usr/sbin"
swift build --product tilescope >/dev/null
binary="$(swift build --show-bin-path)/tilescope"
[ -x "$binary" ] || { echo "fleet: FAIL no tilescope binary at $binary" >&2; exit 1; }
timeout --signal=INT --kill-after=20 360 python3 Tests/fleet/fleet.py "$binary"
exec timeout --signal=INT --kill-after=20 360 python3 Tests/fleet/fleet_s3.py "$binary"
