#!/usr/bin/env bash
# The whole test suite: Swift unit and end-to-end tests, then the browser tests.
# Installs what it needs (Debian packages; Python tools into .venv) by itself.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh --test
echo "== swift build" >&2
if ! swift build --build-tests > test-output.build.log 2>&1; then
  grep -E "error|warning: [^p]" test-output.build.log | head -n 60 >&2 || tail -n 60 test-output.build.log >&2
  echo "build failed (full log: test-output.build.log)" >&2
  exit 1
fi
echo "== swift test" >&2
set +e
swift test --skip-build > test-output.swift.log 2>&1
status=$?
set -e
# The log keeps every line; the console gets results, not the "started" chatter.
grep -vE "^(◇|Test Case .* started|Test Suite .* started)|prohibited flag" test-output.swift.log || true
[ "$status" -eq 0 ] || { echo "swift test failed (full log: test-output.swift.log)" >&2; exit 1; }
# Every libFuzzer target of Tests/fuzz for 20 s on its seeds, two at a time (~3 min with the build);
# a crash fails the suite, its input saved in test-output/fuzz/<target>/.
echo "== scripts/fuzz.sh 20" >&2
FUZZ_JOBS=2 scripts/fuzz.sh 20
for suite in Tests/docs/run.sh Tests/fidelity/run.sh Tests/hostile/run.sh Tests/browser/run.sh Tests/iiif/run.sh Tests/fleet/run.sh; do
  [ -x "$suite" ] || { echo "test suite $suite is missing or not executable" >&2; exit 1; }
  echo "== $suite" >&2
  "$suite"
done
# The OpenAPI contract (Sources/Tilescope/OpenAPI/openapi.json) against a live server with schemathesis: never skipped.
echo "== Tests/contract/run.sh" >&2
Tests/contract/run.sh
# The Dockerfile built for real with podman and its image run (chroot): a Dockerfile that no longer
# builds cannot land. About 2 minutes warm, 5 cold (debootstrap and the build are cached in /var/tmp).
echo "== Tests/container/run.sh" >&2
Tests/container/run.sh
