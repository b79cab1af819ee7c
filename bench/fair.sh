#!/usr/bin/env bash
# Fairness (issue 41): can one greedy client slow everyone else's renders? Two tilescope binaries
# side by side, scenario by scenario, under the same clients (bench/fair/load.py).
#
#   bench/fair.sh                                   # this tree's build alone (one column)
#   BENCH_BEFORE=/path/to/old/tilescope bench/fair.sh   # BEFORE | AFTER columns
#   QUICK=1 bench/fair.sh                           # short scenarios: about 2 minutes
#
# The Markdown table goes to stdout and bench/out/fair.md, the raw JSON lines to bench/out/fair.jsonl.
# Every client comes from a loopback address of its own (the server sees them as different hosts):
#   127.0.0.1      the greedy client: GREEDY_CONNECTIONS connections of random uncached IIIF renders of
#                  photo as fast as they go (429 and 503 retried at once), or the AVIF flood
#   127.0.0.2      a viewer reading hot Deep Zoom tiles at a fixed VIEWER_RATE
#   127.0.0.3      a modest IIIF client, MODEST_RATE moderate regions a second (someone in Mirador)
#   127.0.0.4-7    four greedy clients of GREEDY4_CONNECTIONS connections each
#   127.0.0.8      first views: an image's record, preview and fit-level tiles on 6 connections
# Scenarios, each for each binary in turn (BEFORE AFTER, then AFTER BEFORE, ...):
#   idle-viewer, idle-modest   each alone: the reference latencies
#   flood                      greedy + viewer + modest
#   greedy                     the greedy client alone
#   greedy4                    the four greedy clients together
#   firstview-idle             FIRST_VIEW_REPEATS first views, each of an image not viewed before
#   firstview-avif             as many, of other images, during an AVIF flood of photo (afterwards that
#                              server is stopped: its AVIF queue would keep a core busy for minutes)
# Servers run with their defaults plus --iiif-cache-mb 0 (every render is a render); SERVER_ARGS
# adds flags to the AFTER server, BEFORE_SERVER_ARGS to the BEFORE one (an older binary refuses
# flags it does not know). Tunables below.
set -euo pipefail
cd "$(dirname "$0")/.."
QUICK=${QUICK:-0}
pick() { if [ "$QUICK" = 1 ]; then echo "$2"; else echo "$1"; fi; }  # full, quick
IDLE_SECONDS=${IDLE_SECONDS:-$(pick 15 4)}                 # the viewer alone
MODEST_IDLE_SECONDS=${MODEST_IDLE_SECONDS:-$(pick 20 6)}   # the modest client alone (5/s: 100 samples)
FLOOD_SECONDS=${FLOOD_SECONDS:-$(pick 30 8)}
GREEDY_SECONDS=${GREEDY_SECONDS:-$(pick 30 5)}             # greedy alone, and the four greedy clients
WARMUP=${WARMUP:-$(pick 3 2)}                              # seconds of load before measuring
FIRST_VIEW_REPEATS=${FIRST_VIEW_REPEATS:-$(pick 7 3)}
GREEDY_CONNECTIONS=${GREEDY_CONNECTIONS:-60}
GREEDY4_CONNECTIONS=${GREEDY4_CONNECTIONS:-15}
VIEWER_RATE=${VIEWER_RATE:-500}
VIEWER_CONNECTIONS=${VIEWER_CONNECTIONS:-8}
MODEST_RATE=${MODEST_RATE:-5}
MODEST_CONNECTIONS=${MODEST_CONNECTIONS:-2}
AVIF_CONNECTIONS=${AVIF_CONNECTIONS:-60}
FIRST_VIEW_FORMAT=${FIRST_VIEW_FORMAT:-auto}               # auto: AVIF if offered, as the browser client
WIDTH=${WIDTH:-10000}
HEIGHT=${HEIGHT:-7500}
VIEW_WIDTH=${VIEW_WIDTH:-4000}
VIEW_HEIGHT=${VIEW_HEIGHT:-3000}
BEFORE_PORT=${BEFORE_PORT:-18921}
AFTER_PORT=${AFTER_PORT:-18922}
READY_TIMEOUT=${READY_TIMEOUT:-900}    # seconds for a server to build every image
SETTLE_TIMEOUT=${SETTLE_TIMEOUT:-60}   # seconds to wait for a server to go quiet before a scenario
work=${WORK:-/tmp/tilescope-bench-fair}
out=bench/out
mkdir -p "$work" "$out"

missing=()
for p in python3 libvips-tools curl; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The machine's load when the run starts goes into the table: the ratios are only as good as the quiet.
load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average at start: $load_at_start" >&2

declare -A bin port pid args
which_list=()
if [ -n "${BENCH_BEFORE:-}" ]; then
  [ -x "$BENCH_BEFORE" ] || { echo "BENCH_BEFORE=$BENCH_BEFORE is not an executable" >&2; exit 1; }
  bin[before]=$BENCH_BEFORE; port[before]=$BEFORE_PORT; args[before]=${BEFORE_SERVER_ARGS:-}
  which_list+=(before)
fi
if [ -n "${BENCH_TILESCOPE:-}" ]; then  # another build (an older commit's, say), as bench/iiif.sh takes it
  bin[after]=$BENCH_TILESCOPE
  [ -x "${bin[after]}" ] || { echo "BENCH_TILESCOPE=${bin[after]} is not an executable" >&2; exit 1; }
else
  echo "building tilescope (release)" >&2
  swift build -c release --product tilescope > "$work/build.log" 2>&1 || { tail -n 30 "$work/build.log" >&2; exit 1; }
  bin[after]="$(swift build -c release --show-bin-path)/tilescope"
fi
port[after]=$AFTER_PORT; args[after]=${SERVER_ARGS:-}
which_list+=(after)

# ---------------------------------------------------------------- images
# photo.jpg exactly as bench/iiif.sh makes it: smooth shapes plus grain, so tiles compress like a
# photograph's. The first-view images (4000x3000) the same way with their own noise seed and band
# order, one per first view: no view finds its image's tiles in the server's memory (they are in the
# page cache, written by the build: a first view here reads no disk).
make_image() {  # out width height seed
  local t="$work/tmp" w=$2 h=$3 seed=$4 bands
  rm -rf "$t"; mkdir -p "$t"
  vips zone "$t/z.v" $((w / 8)) $((h / 8))
  vips resize "$t/z.v" "$t/zl.v" 8
  vips linear "$t/zl.v" "$t/a.v" 90 128
  if [ "$seed" = 0 ]; then
    vips gaussnoise "$t/n.v" "$w" "$h" --sigma 10 --mean 0
  else
    vips gaussnoise "$t/n.v" "$w" "$h" --sigma 10 --mean 0 --seed "$seed"
  fi
  vips add "$t/a.v" "$t/n.v" "$t/r.v"
  vips flip "$t/r.v" "$t/g.v" horizontal
  vips flip "$t/r.v" "$t/b.v" vertical
  case $((seed % 3)) in
    0) bands="$t/r.v $t/g.v $t/b.v" ;;
    1) bands="$t/g.v $t/b.v $t/r.v" ;;
    *) bands="$t/b.v $t/r.v $t/g.v" ;;
  esac
  vips bandjoin "$bands" "$t/rgb.v"
  vips cast "$t/rgb.v" "$t/u.v" uchar
  vips copy "$t/u.v" "$t/srgb.v" --interpretation srgb
  vips jpegsave "$t/srgb.v" "$1.tmp.jpg" --Q 95
  mv "$1.tmp.jpg" "$1"  # complete or absent: the servers scan this folder
  rm -rf "$t"
}
mkdir -p "$work/images"
if [ ! -f "$work/images/photo.jpg" ]; then
  echo "making a ${WIDTH}x${HEIGHT} source image" >&2
  make_image "$work/images/photo.jpg" "$WIDTH" "$HEIGHT" 0
fi
views=()
for i in $(seq 1 $((2 * FIRST_VIEW_REPEATS))); do
  name=$(printf 'view%02d' "$i")
  views+=("$name")
  if [ ! -f "$work/images/$name.jpg" ]; then
    echo "making first-view image $name (${VIEW_WIDTH}x${VIEW_HEIGHT})" >&2
    make_image "$work/images/$name.jpg" "$VIEW_WIDTH" "$VIEW_HEIGHT" "$i"
  fi
done
image_count=$(find "$work/images" -maxdepth 1 -name '*.jpg' ! -name '*.tmp.jpg' | wc -l)
idle_views=$(IFS=,; echo "${views[*]:0:FIRST_VIEW_REPEATS}")
flood_views=$(IFS=,; echo "${views[*]:FIRST_VIEW_REPEATS}")

# ---------------------------------------------------------------- servers
load_pid=""
stop_server() {  # which
  local p=${pid[$1]:-}
  [ -n "$p" ] || return 0
  kill "$p" 2>/dev/null || true
  for _ in $(seq 1 150); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done  # its shutdown deadline is 10 s
  kill -9 "$p" 2>/dev/null || true
  wait "$p" 2>/dev/null || true
  pid[$1]=""
}
cleanup() {
  local w
  if [ -n "$load_pid" ]; then kill "$load_pid" 2>/dev/null || true; wait "$load_pid" 2>/dev/null || true; fi
  for w in "${which_list[@]}"; do stop_server "$w"; done
  rm -rf "$work/trash"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

start_server() {  # which
  local w=$1
  # Each binary its own data folder (an older binary refuses a newer catalog schema), started afresh
  # when the binary is not the one that made it.
  local data="$work/data-$w" sum
  sum=$(sha1sum < "${bin[$w]}" | cut -c1-16)
  if [ -d "$data" ] && [ "$(cat "$data.binary" 2>/dev/null)" != "$sum" ]; then
    echo "$w: $data was made by another binary; starting it afresh" >&2
    rm -rf "$data"
  fi
  mkdir -p "$data"; echo "$sum" > "$data.binary"
  # In a session of its own (see bench/iiif.sh): with the kernel's autogroup scheduling, the server
  # gets its own slice of the CPU, not a share of this script's and the clients'.
  # shellcheck disable=SC2086  # the extra arguments are words
  setsid "${bin[$w]}" serve --host 127.0.0.1 --port "${port[$w]}" --images "$work/images" --data "$data" \
    --iiif-cache-mb 0 --quiet ${args[$w]} >> "$work/$w.log" 2>&1 &
  pid[$w]=$!
}
wait_ready() {
  local w
  for w in "${which_list[@]}"; do
    python3 bench/fair/server.py ready "${port[$w]}" "${pid[$w]}" "$image_count" "$READY_TIMEOUT" \
      || { tail -n 20 "$work/$w.log" >&2; exit 1; }
  done
}
settle() {  # timeout label: until every running server is quiet
  local running=() w
  for w in "${which_list[@]}"; do [ -n "${pid[$w]}" ] && running+=("${pid[$w]}"); done
  [ ${#running[@]} -gt 0 ] || return 0
  python3 bench/fair/server.py settle "$1" "${running[@]}" || echo "- a server was still busy ${1} s after a scenario (before $2)" >> "$notes"
}

notes="$work/notes.md"; : > "$notes"
for w in "${which_list[@]}"; do : > "$work/$w.log"; done
echo "starting ${which_list[*]}: building every image" >&2
for w in "${which_list[@]}"; do start_server "$w"; done
wait_ready
settle "$READY_TIMEOUT" start
# What an earlier run's AVIF flood made (and, after a fresh build, the fit level's AVIF tiles the build
# made) would make this run's flood cheap: the servers are stopped, photo's made formats and IIIF tile
# files moved aside, and the servers started again, so that every run starts from the same state.
for w in "${which_list[@]}"; do stop_server "$w"; done
mkdir -p "$work/trash"
for stale in "$work"/data-*/pyramids/photo/*/formats "$work"/data-*/pyramids/photo/*/iiif; do
  [ -d "$stale" ] && mv "$stale" "$work/trash/$(date +%s%N)"
done
echo "starting ${which_list[*]} again" >&2
for w in "${which_list[@]}"; do start_server "$w"; done
wait_ready
settle "$READY_TIMEOUT" start

results="$work/results.jsonl"; : > "$results"
run_load() {  # which scenario load.py-arguments...
  local w=$1 scenario=$2; shift 2
  settle "$SETTLE_TIMEOUT" "$w $scenario"
  echo "$w: $scenario" >&2
  python3 bench/fair/load.py run --port "${port[$w]}" --server-pid "${pid[$w]}" --out "$results" \
    --tag "binary=$w" --tag "scenario=$scenario" \
    --greedy-connections "$GREEDY_CONNECTIONS" --greedy4-connections "$GREEDY4_CONNECTIONS" \
    --viewer-rate "$VIEWER_RATE" --viewer-connections "$VIEWER_CONNECTIONS" \
    --modest-rate "$MODEST_RATE" --modest-connections "$MODEST_CONNECTIONS" \
    --avif-connections "$AVIF_CONNECTIONS" --first-view-format "$FIRST_VIEW_FORMAT" "$@" &
  load_pid=$!
  wait "$load_pid"
  load_pid=""
}

scenarios=(idle-viewer idle-modest flood greedy greedy4 firstview-idle firstview-avif)
for index in "${!scenarios[@]}"; do
  scenario=${scenarios[$index]}
  order=("${which_list[@]}")
  if [ $((index % 2)) = 1 ] && [ ${#which_list[@]} = 2 ]; then order=(after before); fi
  for w in "${order[@]}"; do
    case $scenario in
      idle-viewer)    run_load "$w" "$scenario" --seconds "$IDLE_SECONDS" --warmup 1 viewer ;;
      idle-modest)    run_load "$w" "$scenario" --seconds "$MODEST_IDLE_SECONDS" --warmup 1 modest ;;
      flood)          run_load "$w" "$scenario" --seconds "$FLOOD_SECONDS" --warmup "$WARMUP" greedy viewer modest ;;
      greedy)         run_load "$w" "$scenario" --seconds "$GREEDY_SECONDS" --warmup "$WARMUP" greedy ;;
      greedy4)        run_load "$w" "$scenario" --seconds "$GREEDY_SECONDS" --warmup "$WARMUP" greedy4 ;;
      firstview-idle) run_load "$w" "$scenario" --warmup 0 "firstview:$idle_views" ;;
      firstview-avif) run_load "$w" "$scenario" --warmup "$WARMUP" avif "firstview:$flood_views"
                      stop_server "$w" ;;
    esac
  done
done

cp "$results" "$out/fair.jsonl"
python3 bench/fair/report.py "$results" \
  --cores "$(nproc)" --load "$load_at_start" --image "${WIDTH}x${HEIGHT}" --view-image "${VIEW_WIDTH}x${VIEW_HEIGHT}" \
  --before "${bin[before]:-}" --before-args "${args[before]:-}" --after "${bin[after]}" --after-args "${args[after]}" \
  --notes "$notes" | tee "$out/fair.md"
