#!/usr/bin/env bash
# bench/builds.sh: `tilescope build` against `vips dzsave` on the sources of issue 43's goals 1 and 2, by phase.
#
#   bench/builds.sh                      photos (a folder of PHOTOS phone-size JPEGs) and every size below
#   BUILDS=photos bench/builds.sh        one part: photos photo4000 jpeg16384 png30000 tiff16 huge (space-separated)
#   BENCH_TILESCOPE=BIN bench/builds.sh  that binary instead of `swift build -c release`
#   BENCH_BEFORE=BIN bench/builds.sh     a third tool, "before", alternating with the two (what a change bought)
#
# Sources (made once with the `vips` CLI into OUT/source/, reused; BENCH_REGENERATE=1 makes them again):
#   photos     PHOTOS (default 100) 4032x3024 JPEGs, Q90 4:2:0, as a phone writes them: 8 distinct pictures
#              (Perlin noise, as bench/run's image) copied under distinct names; built by one
#              `tilescope build DIR/*.jpg` against `vips dzsave` run on each file in turn
#   photo4000  one 4000x3000 JPEG, Q90 4:2:0
#   jpeg16384  bench/run's 16384x16384 JPEG (Q92 4:4:4; made here if bench/out has none)
#   png30000   a 30000x20000 RGB PNG, not interlaced, zlib level 1 (bench/run's image tiled 2x2 and cut)
#   tiff16     a 10000x7500 RGB 16-bit TIFF in strips, deflate (predictor: horizontal)
#   huge       bench/run's 49152x49152 JPEG (only with BENCH_HUGE=1; its test image tiled 3x3)
#
# Per source the two tools alternate (tilescope, dzsave, tilescope, dzsave, ...), RUNS times each (LARGE_RUNS,
# default 1, from 16384² up), each into a fresh folder, the source in the page cache for both. Both are run by lib/sampled.py the same
# way: wall time, CPU (wait4), and the peak of RssAnon and VmRSS sampled every 50 ms from /proc/PID/status.
# Tilescope's log gives its phases (`phases:` lines, BuildPhases) and when the preview was published; for the
# PNG the report gives `vips avg`'s time on it (its decode) beside the preview's, for a JPEG `vips avg` on its 1/8-scale
# load (libjpeg-turbo's cheapest whole decode, one thread: the floor of an early preview). Prints a Markdown table with
# medians and ratios, the load average at each run, and writes it to OUT/builds.md (raw: OUT/builds.jsonl).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
LIB=$ROOT/bench/lib
OUT=${BENCH_OUT:-$ROOT/bench/out}
WORK=$OUT/builds
PHOTOS=${PHOTOS:-100}
RUNS=${RUNS:-3}
LARGE_RUNS=${LARGE_RUNS:-1}
BUILDS=${BUILDS:-photos photo4000 jpeg16384 png30000 tiff16}
[[ ${BENCH_HUGE:-0} == 1 ]] && BUILDS="$BUILDS huge"
RESULTS=$OUT/builds.jsonl
PY=$(python3 -c 'import sys; print(sys.executable)')
DZ_ARGS=(--tile-size 254 --overlap 1 --suffix ".jpeg[Q=85]")

step() { printf '\n== %s\n' "$*"; }
mkdir -p "$OUT/source" "$WORK/logs"
TRASH=$WORK/set-aside
rm -rf "$TRASH" && mkdir -p "$TRASH"
trap 'rm -rf "$TRASH"' EXIT
: > "$RESULTS"

if [[ -n ${BENCH_TILESCOPE:-} ]]; then
  TILESCOPE=$BENCH_TILESCOPE
else
  step "swift build -c release"
  (cd "$ROOT" && swift build -c release --product tilescope > "$WORK/logs/swift-build.log" 2>&1)
  TILESCOPE=$(cd "$ROOT" && swift build -c release --show-bin-path)/tilescope
fi
COMMIT=$(cd "$ROOT" && git rev-parse --short HEAD)$(cd "$ROOT" && git diff --quiet HEAD -- Sources || echo "+changes")

# --- sources ------------------------------------------------------------------------------------
perlin() {  # perlin WIDTH HEIGHT SEED OUTPUT: three octaves in three bands, as bench/run's image
  local tmp=$WORK/tmp-perlin
  rm -rf "$tmp" && mkdir -p "$tmp"
  vips perlin "$tmp/r.v" "$1" "$2" --cell-size 512 --uchar --seed "$3"
  vips perlin "$tmp/g.v" "$1" "$2" --cell-size 48 --uchar --seed $(($3 + 1))
  vips perlin "$tmp/b.v" "$1" "$2" --cell-size 6 --uchar --seed $(($3 + 2))
  vips bandjoin "$tmp/r.v $tmp/g.v $tmp/b.v" "$4"
  rm -rf "$tmp"
}
source_of() {  # source_of NAME: makes it if missing, prints its path
  local path
  case $1 in
    photo4000) path=$OUT/source/photo-4000x3000.jpg
      [[ -s $path && ${BENCH_REGENERATE:-0} != 1 ]] || perlin 4000 3000 7 "$path[Q=90,subsample-mode=on]" ;;
    jpeg16384) path=$OUT/source/bench-16384.jpg
      [[ -s $path ]] || perlin 16384 16384 42 "$path[Q=92]" ;;
    png30000) path=$OUT/source/png-30000x20000.png
      if [[ ! -s $path || ${BENCH_REGENERATE:-0} == 1 ]]; then
        vips replicate "$(source_of jpeg16384)" "$WORK/tmp-replicated.v" 2 2
        vips crop "$WORK/tmp-replicated.v" "$path[compression=1]" 0 0 30000 20000
        rm -f "$WORK/tmp-replicated.v"
      fi ;;
    tiff16) path=$OUT/source/tiff16-10000x7500.tif
      if [[ ! -s $path || ${BENCH_REGENERATE:-0} == 1 ]]; then
        perlin 10000 7500 11 "$WORK/tmp-8bit.v"
        vips linear "$WORK/tmp-8bit.v" "$WORK/tmp-16bit.v" 257 0
        vips cast "$WORK/tmp-16bit.v" "$WORK/tmp-ushort.v" ushort
        vips copy "$WORK/tmp-ushort.v" "$WORK/tmp-rgb16.v" --interpretation rgb16
        vips tiffsave "$WORK/tmp-rgb16.v" "$path" --compression deflate --predictor horizontal
        rm -f "$WORK"/tmp-*.v
      fi ;;
    huge) path=$OUT/source/huge-49152.jpg
      [[ -s $path ]] || vips replicate "$(source_of jpeg16384)" "$path[Q=92]" 3 3 ;;
  esac
  echo "$path"
}
make_photos() {  # the folder of PHOTOS phone-size photos
  local folder=$OUT/source/photos-$PHOTOS seed i
  if [[ ! -d $folder || ${BENCH_REGENERATE:-0} == 1 ]]; then
    rm -rf "$folder" "$folder.tmp" && mkdir -p "$folder.tmp"
    for seed in 1 2 3 4 5 6 7 8; do perlin 4032 3024 $((100 + seed)) "$folder.tmp/distinct-$seed.jpg[Q=90,subsample-mode=on]"; done
    for i in $(seq -w 1 "$PHOTOS"); do
      cp "$folder.tmp/distinct-$(((10#$i - 1) % 8 + 1)).jpg" "$folder.tmp/IMG_$i.jpg"
    done
    rm -f "$folder.tmp"/distinct-*.jpg
    mv "$folder.tmp" "$folder"
  fi
  echo "$folder"
}

# --- one comparison -----------------------------------------------------------------------------
sampled() { "$PY" "$LIB/sampled.py" --out "$RESULTS" "$@"; }

# A run's output is moved aside, and deleted once every run is over: on an ext4 file system without a journal (this
# machine's), each new file is checked against the files deleted in the last 5 s (5 min while their inode table block is
# unwritten; the kernel's `recently_deleted`), so a run that followed the deletion of the run before spent about 30 % of
# its CPU, both tools alike, in that check (perf, 2026-12-06: docs/benchmarks.md).
set_aside() {  # set_aside PATH...: moved out of the way, removed at the end
  local path
  for path in "$@"; do [[ -e $path ]] && mv "$path" "$TRASH/$(date +%s%N)"; done
  return 0
}

compare_source() {  # compare_source NAME PATH RUNS: each in a folder of its own (tilescope binds the folder's names)
  local name=$1 source=$2 runs=$3 run folder=$WORK/src-$1 log
  rm -rf "$folder" && mkdir -p "$folder"
  ln "$source" "$folder/" 2> /dev/null || cp -p "$source" "$folder/"
  source=$folder/$(basename "$source")
  cat "$source" > /dev/null  # in the page cache for both
  for run in $(seq "$runs"); do
    log=$WORK/logs/tilescope-$name-$run.log
    set_aside "$WORK/data"; rm -f "$log"
    sampled --log "$log" --label source="$name" --label tool=tilescope --label run="$run" --label log="$log" \
      -- "$TILESCOPE" build "$source" --data "$WORK/data"
    if [[ -n ${BENCH_BEFORE:-} ]]; then
      set_aside "$WORK/data"
      sampled --label source="$name" --label tool=before --label run="$run" -- "$BENCH_BEFORE" build "$source" --data "$WORK/data"
    fi
    set_aside "$WORK/data" "$WORK/dz" && mkdir -p "$WORK/dz"
    sampled --label source="$name" --label tool=dzsave --label run="$run" \
      -- vips dzsave "$source" "$WORK/dz/image" "${DZ_ARGS[@]}"
    set_aside "$WORK/dz"
    echo "   $name run $run done (load $(cut -d' ' -f1 /proc/loadavg))"
  done
  if [[ $name == png30000 ]]; then  # the PNG's decode alone: the bound of its preview
    for run in $(seq "$runs"); do sampled --label source="$name" --label tool="vips avg" --label run="$run" -- vips avg "$source"; done
  fi
  # A baseline JPEG's preview needs its whole entropy-coded data decoded (the last row is at the file's end): the
  # cheapest decode any libjpeg reader has is libjpeg-turbo's own at 1/8 scale, on one thread. Its time, beside
  # the preview's, is the floor of an early preview on this machine.
  if [[ $name == photo4000 || $name == jpeg16384 || $name == huge ]]; then
    for run in $(seq "$runs"); do
      sampled --label source="$name" --label tool="vips avg shrink 8" --label run="$run" -- vips avg "$source[shrink=8]"
    done
  fi
}

compare_photos() {
  local folder run log
  folder=$(make_photos)
  ls "$folder"/*.jpg > "$WORK/photos.txt"
  cat "$folder"/*.jpg > /dev/null
  for run in $(seq "$RUNS"); do
    log=$WORK/logs/tilescope-photos-$run.log
    set_aside "$WORK/data"; rm -f "$log"
    sampled --log "$log" --label source=photos --label tool=tilescope --label run="$run" --label log="$log" \
      -- "$TILESCOPE" build "$folder"/*.jpg --data "$WORK/data"
    if [[ -n ${BENCH_BEFORE:-} ]]; then
      set_aside "$WORK/data"
      sampled --label source=photos --label tool=before --label run="$run" -- "$BENCH_BEFORE" build "$folder"/*.jpg --data "$WORK/data"
    fi
    set_aside "$WORK/data" "$WORK/dz" && mkdir -p "$WORK/dz"
    sampled --label source=photos --label tool=dzsave --label run="$run" --each "$WORK/photos.txt" \
      -- vips dzsave "{}" "$WORK/dz/{name}" "${DZ_ARGS[@]}"
    set_aside "$WORK/dz"
    echo "   photos run $run done (load $(cut -d' ' -f1 /proc/loadavg))"
  done
}

for build in $BUILDS; do
  case $build in
    photos) step "$PHOTOS photos of 4032x3024: one tilescope build against vips dzsave on each, $RUNS runs"
      compare_photos ;;
    photo4000|tiff16) step "$build: $RUNS runs each"
      compare_source "$build" "$(source_of "$build")" "$RUNS" ;;
    jpeg16384|png30000|huge) step "$build: $LARGE_RUNS runs each"
      compare_source "$build" "$(source_of "$build")" "$LARGE_RUNS" ;;
    *) echo "unknown build: $build" >&2; exit 2 ;;
  esac
done

"$PY" "$LIB/builds_report.py" "$RESULTS" --commit "$COMMIT" --photos "$PHOTOS" | tee "$OUT/builds.md"
