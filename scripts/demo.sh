#!/usr/bin/env bash
# Runs Tilescope on its built-in demo gallery at http://localhost:8080/ (PORT=... to change).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
swift build -c release 2>&1 | grep -v "prohibited flag" | tail -n 3
echo "Open http://localhost:${PORT:-8080}/ (the gigapixel image builds in the background)"
exec .build/release/tilescope serve --port "${PORT:-8080}" --data "${TILESCOPE_DATA:-data}"
