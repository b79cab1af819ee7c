#!/usr/bin/env bash
# Builds the libFuzzer targets of Tests/fuzz/ and runs each for SECONDS (default 60).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      FUZZ_JOBS=2 runs two targets at a time
#
# Seeds: Tests/fuzz/corpus/<target>/ (committed, read only). What the fuzzer adds goes to
# .build/fuzz-corpus/<target>/ (ignored, kept between runs). A crash, a failed invariant, a hang
# (over 10 s) or an out-of-memory (over 2 GB) saves its input to test-output/fuzz/<target>/ and makes
# this script exit 1. Figures of each run: test-output/fuzz/<target>.log and test-output/fuzz/summary.txt.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
seconds=${1:-60}
shift || true
jobs=${FUZZ_JOBS:-1}
all_targets=(endpoint percent-decoding iiif viewport-query viewport-json multipart captions-json captions-plist rating jpeg-huffman jpeg-eighth jpeg-rows hot-responses accept forwarded-for fair-queue tiff-layout s3-xml http-response pack-index pyramidal-sources-json signed-token accounts)
[ "$#" -gt 0 ] && targets=("$@") || targets=("${all_targets[@]}")

# The fuzz executable lives in a package generated here: the root manifest plus one executable target
# (Tests/fuzz/Harness), over symbolic links to Sources/ and Tests/. So the root Package.swift needs no
# fuzz target that every normal build would have to link without libFuzzer, and the whole package is
# built with the sanitizers in its own build folder, apart from the normal debug build.
package=.build/fuzz-package
mkdir -p "$package"
ln -sfn "$root/Sources" "$package/Sources"
ln -sfn "$root/Tests" "$package/Tests"
manifest=$(cat Package.swift; cat <<'SWIFT'

// Added by scripts/fuzz.sh: the libFuzzer driver for every target of Tests/fuzz.
package.targets.append(.executableTarget(
    name: "tilescope-fuzz", dependencies: ["Tilescope", "Imaging", "HTTPServer", "CHTTPShims", "Catalog", "ScrollGeometry", "ObjectStore"],
    path: "Tests/fuzz/Harness"))
package.products.append(.executable(name: "tilescope-fuzz", targets: ["tilescope-fuzz"]))
SWIFT
)
# Rewritten only when it changes, so that SwiftPM does not re-resolve the package on every run.
[ "$(cat "$package/Package.swift" 2>/dev/null)" = "$manifest" ] || printf '%s\n' "$manifest" > "$package/Package.swift"

# -sanitize=fuzzer: libFuzzer plus coverage instrumentation of every Swift module; address: ASan.
# No UBSan for Swift, whose integer overflow and bounds checks trap in every build (libFuzzer reports the
# trap), and whose driver refuses -sanitize=undefined here. The C targets get ASan, coverage and UBSan
# (-Xcc; its handlers are in the ASan runtime that swiftc links), any finding fatal: jpeg-huffman and
# jpeg-eighth reach CTileDecoder's jpeg_huffman.c and jpeg_eighth.c (libjpeg itself is Debian's,
# uninstrumented), and hot-responses CHTTPShims' hot_responses.c. UBSan found left shifts of negative numbers
# in jpeg_eighth.c's chroma IDCT.
sanitize=(-Xswiftc -sanitize=fuzzer,address -Xcc -fsanitize=fuzzer-no-link,address,undefined -Xcc -fno-sanitize-recover=undefined)
mkdir -p test-output/fuzz
echo "== fuzz: building (log: test-output/fuzz/build.log)" >&2
if ! (cd "$package" && swift build --product tilescope-fuzz "${sanitize[@]}") > test-output/fuzz/build.log 2>&1; then
  grep -E "error" test-output/fuzz/build.log | grep -v "Cannot export" | head -n 40 >&2 || tail -n 40 test-output/fuzz/build.log >&2
  echo "fuzz build failed (full log: test-output/fuzz/build.log)" >&2
  exit 1
fi
# Run a copy, so that another build (a second run of this script) cannot replace it mid-run.
run_folder=$(mktemp -d)
trap 'rm -rf "$run_folder"' EXIT
binary="$run_folder/tilescope-fuzz"
cp "$(cd "$package" && swift build --show-bin-path "${sanitize[@]}")/tilescope-fuzz" "$binary"

# Swift's crash reporter would run inside ASan's and libFuzzer's signal handling (ASan reports it as a
# stack-buffer-underflow, and it can hang): libFuzzer reports traps itself. LeakSanitizer is off: the
# Swift runtime's metadata caches are never freed and would be reported on every input.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS=detect_leaks=0:allocator_may_return_null=1

run_target() {
  local target=$1 seeds=Tests/fuzz/corpus/$1 grown=.build/fuzz-corpus/$1 artifacts=test-output/fuzz/$1/
  [ -d "$seeds" ] || { echo "no seed corpus $seeds" >&2; return 1; }
  mkdir -p "$grown" "$artifacts"
  local status=0
  TILESCOPE_FUZZ_TARGET=$target timeout -k 10 $((seconds + 120)) "$binary" \
    -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -max_len=4096 -print_final_stats=1 \
    -artifact_prefix="$artifacts" "$grown" "$seeds" > "test-output/fuzz/$target.log" 2>&1 || status=$?
  local execs rate
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "test-output/fuzz/$target.log" | tail -n 1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "test-output/fuzz/$target.log" | tail -n 1)
  if [ "$status" -ne 0 ]; then
    echo "FAIL $target (exit $status): inputs in $artifacts, log test-output/fuzz/$target.log" >&2
    grep -E "invariant failed|Fatal error|ERROR: |SUMMARY|Test unit written" "test-output/fuzz/$target.log" | head -n 8 >&2 || true
    echo "$target FAIL ${seconds}s execs=${execs:-?} exec/s=${rate:-?}" >> test-output/fuzz/summary.txt
    return 1
  fi
  echo "ok   $target: ${execs:-?} inputs in ${seconds} s (${rate:-?}/s), corpus $(ls "$grown" | wc -l) + $(ls "$seeds" | wc -l) seeds" >&2
  echo "$target ok ${seconds}s execs=${execs:-?} exec/s=${rate:-?}" >> test-output/fuzz/summary.txt
}

echo "# $(date -u +%FT%TZ) commit $(git rev-parse --short HEAD 2>/dev/null || echo '?') ${seconds}s per target" >> test-output/fuzz/summary.txt
failed=0
pids=()
for target in "${targets[@]}"; do
  run_target "$target" &
  pids+=($!)
  if [ "${#pids[@]}" -ge "$jobs" ]; then
    wait "${pids[0]}" || failed=1
    pids=("${pids[@]:1}")
  fi
done
for pid in "${pids[@]}"; do wait "$pid" || failed=1; done
[ "$failed" -eq 0 ] || { echo "fuzzing found crashes: see test-output/fuzz/" >&2; exit 1; }
echo "fuzzing: no crash in ${#targets[@]} targets" >&2
