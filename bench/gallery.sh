#!/bin/sh
# The 100,000-image gallery benchmark (docs/benchmarks.md#a-gallery-of-100000-images): builds
# tilescope in release mode, then runs bench/gallery.py (which makes the images once, in
# /tmp/tilescope-gallery-bench, and reuses them). Extra arguments go to gallery.py (--count N).
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
command -v vips >/dev/null || { echo "gallery bench: needs the vips command (apt-get install libvips-tools)" >&2; exit 1; }
cd "$ROOT"
nice swift build -c release --product tilescope >&2
exec nice python3 "$ROOT/bench/gallery.py" "$(swift build -c release --show-bin-path)/tilescope" "$@"
