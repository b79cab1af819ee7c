#!/usr/bin/env bash
# Prints README's `serve` settings table (markdown), generated from `tilescope serve --help`,
# which is generated from ServeConfig.settings: one source for the defaults.
#   scripts/settings-table.sh           print the table
#   scripts/settings-table.sh --write   replace the table between README's serve-settings markers
# Tests/TilescopeTests/ReadmeSettingsTableTests.swift fails when README and the settings disagree.
set -euo pipefail
cd "$(dirname "$0")/.."
# Built (incrementally) unless TILESCOPE_BIN names a binary: a stale one would print stale defaults.
bin="${TILESCOPE_BIN:-}"
if [ -z "$bin" ]; then
  swift build --product tilescope > /dev/null 2>&1 || { echo "swift build failed" >&2; exit 1; }
  bin="$(swift build --show-bin-path)/tilescope"
fi

table() {
  echo "| flag | environment | default | meaning |"
  echo "|---|---|---|---|"
  # Help lines: "  --flag   meaning (TILESCOPE_X) [default: value]"; a | in a cell is escaped.
  "$bin" serve --help | sed -nE '/^  --/{
    s/\|/\\|/g
    s/^  (--[a-z0-9-]+) +(.*) \((TILESCOPE_[A-Z0-9_]+)\) \[default: (.*)\]$/| `\1` | `\3` | \4 | \2 |/p
    t
    s/^  (--[a-z0-9-]+) +(.*) \[default: (.*)\]$/| `\1` | | \3 | \2 |/p
  }'
}

if [ "${1:-}" = "--write" ]; then
  begin='<!-- serve-settings:begin'
  end='<!-- serve-settings:end'
  grep -q "^$begin" README.md && grep -q "^$end" README.md || {
    echo "README.md has no serve-settings markers" >&2; exit 1; }
  generated="$(table)"
  awk -v begin="$begin" -v end="$end" -v table="$generated" '
    index($0, begin) == 1 { print; print ""; print table; print ""; skipping = 1; next }
    index($0, end) == 1 { skipping = 0 }
    !skipping { print }
  ' README.md > README.md.new
  mv README.md.new README.md
  echo "README.md: serve settings table regenerated" >&2
else
  table
fi
