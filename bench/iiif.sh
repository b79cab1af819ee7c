#!/usr/bin/env bash
# IIIF serving speed: tilescope against IIPImage (Debian's iipimage-server, FastCGI behind
# nginx as its users run it) on the same image, interleaved rounds, same load generator.
#
#   bench/iiif.sh            # Markdown table on stdout and in bench/out/iiif.md
#   BENCH_TILESCOPE=/path/to/tilescope bench/iiif.sh   # that binary instead of building this tree
#   SCENARIOS=regions bench/iiif.sh   # one scenario only (tiles, regions)
#   DIRECT=1 bench/iiif.sh   # tilescope serves iipsrv's own pyramidal TIFF directly (no build), on its
#                            # 256-px grid: IIPImage on its own ground (bench/out/iiif-direct.md)
#
# Scenarios (request lists in bench/iiif/requests.py):
#   tiles    tiles of each server's own grid, as a viewer asks for them (tilescope 254 px
#            from its Deep Zoom pyramid, iipsrv 256 px from a tiled pyramidal JPEG TIFF)
#   regions  the same arbitrary regions at arbitrary sizes for both
# Each list is first requested in full, on one connection (tiles FIRST_PASSES times, cold each time), in FIRST_PASS_CHUNKS parts that
# alternate between the servers (the "first pass" columns: tilescope writes its IIIF tile files
# then, iipsrv fills its tile cache), then ROUNDS rounds of wrk alternate
# between the servers. tilescope runs with its derivative cache off (--iiif-cache-mb 0), so
# regions are rendered on every request; iipsrv keeps its default 5 MB tile cache.
# Server CPU per request is utime+stime from /proc of every server process (tilescope;
# nginx master and workers plus the iipsrv processes) over the round. Tunables below.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${ROUNDS:-3}
ROUND_SECONDS=${ROUND_SECONDS:-10}
CONNECTIONS=${CONNECTIONS:-8}
WIDTH=${WIDTH:-10000}
HEIGHT=${HEIGHT:-7500}
TILE_COUNT=${TILE_COUNT:-3000}
REGION_COUNT=${REGION_COUNT:-1000}
FIRST_PASS_CHUNKS=${FIRST_PASS_CHUNKS:-6}
FIRST_PASSES=${FIRST_PASSES:-}
WORKERS=${WORKERS:-$(nproc)}
TS_PORT=${TS_PORT:-18801}
NGINX_PORT=${NGINX_PORT:-18802}
IIP_PORT=${IIP_PORT:-18803}
work=${WORK:-/tmp/tilescope-bench-iiif}
DIRECT=${DIRECT:-0}
# Which scenarios run (SCENARIOS=regions: the arbitrary regions alone, a run a third as long).
SCENARIOS=${SCENARIOS:-tiles regions}
# Tilescope's IIIF answers held in memory once made (a direct source's tiles of its own grid) would make a second
# "cold" first pass a warm one: with DIRECT=1 the tiles' first pass is made once.
if [ -z "$FIRST_PASSES" ]; then FIRST_PASSES=3; [ "$DIRECT" = 1 ] && FIRST_PASSES=1; fi
# iipsrv has no per-client budget of renders: it queues every request. One wrk is one client (one address) to
# tilescope, whose render budget (--render-budget, 429 past it) would refuse part of the regions iipsrv queues.
# The budget is lifted so that both servers queue alike; RENDER_BUDGET=default keeps tilescope's own.
RENDER_BUDGET=${RENDER_BUDGET:-1000000}
budget_flags=()
[ "$RENDER_BUDGET" != default ] && budget_flags=(--render-budget "$RENDER_BUDGET" --render-burst "$RENDER_BUDGET")
out=bench/out
mkdir -p "$work" "$out"

missing=()
for p in iipimage-server nginx wrk libvips-tools spawn-fcgi python3; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo=""; [ "$(id -u)" -ne 0 ] && sudo=sudo
  $sudo apt-get update -qq && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# The machine's load when the run starts goes into the table: the ratios are only as good as the quiet.
load_at_start=$(cut -d' ' -f1-3 /proc/loadavg)
echo "load average at start: $load_at_start" >&2
if [ -n "${BENCH_TILESCOPE:-}" ]; then  # another build (an older commit's, say), as bench/run takes it
  tilescope=$BENCH_TILESCOPE
  [ -x "$tilescope" ] || { echo "BENCH_TILESCOPE=$tilescope is not an executable" >&2; exit 1; }
else
  echo "building tilescope (release)" >&2
  swift build -c release --product tilescope > "$work/build.log" 2>&1 || { tail -n 30 "$work/build.log" >&2; exit 1; }
  tilescope="$(swift build -c release --show-bin-path)/tilescope"
fi

# The source: smooth shapes plus grain, so tiles compress like a photograph's (not flat, not noise).
source_image="$work/images/photo.jpg"
if [ ! -f "$source_image" ]; then
  echo "making a ${WIDTH}x${HEIGHT} source image" >&2
  mkdir -p "$work/images" "$work/tmp"
  t="$work/tmp"
  vips zone "$t/z.v" $((WIDTH / 8)) $((HEIGHT / 8))
  vips resize "$t/z.v" "$t/zl.v" 8
  vips linear "$t/zl.v" "$t/a.v" 90 128
  vips gaussnoise "$t/n.v" "$WIDTH" "$HEIGHT" --sigma 10 --mean 0
  vips add "$t/a.v" "$t/n.v" "$t/r.v"
  vips flip "$t/r.v" "$t/g.v" horizontal
  vips flip "$t/r.v" "$t/b.v" vertical
  vips bandjoin "$t/r.v $t/g.v $t/b.v" "$t/rgb.v"
  vips cast "$t/rgb.v" "$t/u.v" uchar
  vips copy "$t/u.v" "$t/srgb.v" --interpretation srgb
  vips jpegsave "$t/srgb.v" "$source_image" --Q 95
  rm -rf "$t"
fi
tiff="$work/iip/photo.tif"
if [ ! -f "$tiff" ]; then
  echo "making the pyramidal TIFF for iipsrv" >&2
  mkdir -p "$work/iip"
  vips tiffsave "$source_image" "$tiff" --tile --pyramid --compression jpeg --Q 85 --tile-width 256 --tile-height 256
fi

# What tilescope serves: the JPEG, built into its Deep Zoom pyramid; or (DIRECT=1) the very TIFF iipsrv reads,
# hard-linked into a folder of its own and served from its own levels.
ts_images="$work/images" ts_data="$work/data" report_name=iiif
if [ "$DIRECT" = 1 ]; then
  ts_images="$work/images-direct" ts_data="$work/data-direct" report_name=iiif-direct
  mkdir -p "$ts_images"
  ln -f "$tiff" "$ts_images/photo.tif"
fi

pids_nginx="" ; ts_pid=""
cleanup() {
  [ -n "$ts_pid" ] && kill "$ts_pid" 2>/dev/null || true
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  [ -f "$work/iipsrv.pid" ] && for p in $(cat "$work/iipsrv.pid"); do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
}
trap cleanup EXIT

echo "starting tilescope" >&2
# IIIF tile files from an earlier run would make the first pass a warm one: start cold. They are
# moved aside, not deleted: on ext4 without a journal (this machine's root file system) creating a
# file skips over every inode freed in the last 1-5 minutes, one buffer lookup each, so deleting the
# last run's 1,608 tiles seconds before the first pass made each new tile file's creation cost more
# than its decode (first pass 1.0-1.1 ms of CPU a tile after a move, 1.8 ms after the delete: a cost
# of this script, which iipsrv, writing no files, never paid). The trash is emptied after the first
# pass, and a first pass starts at least RECENT_SECONDS after the last emptying: the kernel counts
# an inode as recent for 60 s, or 360 s while its inode table block is not yet written back.
RECENT_SECONDS=${RECENT_SECONDS:-360}
mkdir -p "$work/trash"
for stale in "$ts_data"/pyramids/*/*/iiif; do
  [ -d "$stale" ] && mv "$stale" "$work/trash/iiif-$(date +%s%N)"
done
# In a session of its own, as iipsrv's processes and nginx are: with the kernel's autogroup
# scheduling a session shares one slice of the CPU, and tilescope left in this script's session
# would share its slice with wrk on a machine busy with other work.
setsid "$tilescope" serve --host 127.0.0.1 --port "$TS_PORT" --images "$ts_images" --data "$ts_data" \
  --workers "$WORKERS" --iiif-cache-mb 0 "${budget_flags[@]}" > "$work/tilescope.log" 2>&1 &
ts_pid=$!
for _ in $(seq 1 1200); do
  curl -sf "http://127.0.0.1:$TS_PORT/iiif/3/photo/info.json" > /dev/null 2>&1 && break
  sleep 0.5
done
curl -sf "http://127.0.0.1:$TS_PORT/iiif/3/photo/info.json" > /dev/null || { tail "$work/tilescope.log" >&2; exit 1; }

echo "starting iipsrv (x$WORKERS) behind nginx" >&2
rm -f "$work/iipsrv.pid"
# WORKERS iipsrv processes, one port each, all in ONE session of their own, as tilescope's WORKERS
# threads are: spawn-fcgi -F would give each child a session (setsid), and with the kernel's autogroup
# scheduling each session gets its own slice of a busy machine's CPU, which is not a like-for-like
# comparison. -n execs iipsrv in place (no fork, no setsid).
upstreams=""
for i in $(seq 0 $((WORKERS - 1))); do upstreams="$upstreams server 127.0.0.1:$((IIP_PORT + i));"; done
setsid bash -c '
  for i in $(seq 0 $(('"$WORKERS"' - 1))); do
    env -i PATH="$PATH" FILESYSTEM_PREFIX="'"$work"'/iip/" URI_MAP="iiif=>IIIF" JPEG_QUALITY=85 CORS="*" \
      spawn-fcgi -n -a 127.0.0.1 -p $(('"$IIP_PORT"' + i)) -- /usr/lib/iipimage-server/iipsrv.fcgi > /dev/null &
    echo $! >> "'"$work"'/iipsrv.pid"
  done
  wait' &
for _ in $(seq 1 50); do [ "$(wc -l < "$work/iipsrv.pid" 2>/dev/null || echo 0)" -ge "$WORKERS" ] && break; sleep 0.1; done
mkdir -p "$work/nginx-tmp"
cat > "$work/nginx.conf" <<NGINX
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
events { worker_connections 1024; }
http {
  access_log off;
  client_body_temp_path $work/nginx-tmp;
  fastcgi_temp_path $work/nginx-tmp;
  proxy_temp_path $work/nginx-tmp;
  uwsgi_temp_path $work/nginx-tmp;
  scgi_temp_path $work/nginx-tmp;
  upstream iipsrv {$upstreams keepalive 16; }
  server {
    listen 127.0.0.1:$NGINX_PORT;
    location /iiif/ {
      fastcgi_pass iipsrv;
      fastcgi_keep_conn on;
      include /etc/nginx/fastcgi_params;
      fastcgi_param PATH_INFO \$fastcgi_script_name;
      fastcgi_param REQUEST_URI \$request_uri;
    }
  }
}
NGINX
nginx -c "$work/nginx.conf"
sleep 0.5
curl -sf "http://127.0.0.1:$NGINX_PORT/iiif/photo.tif/info.json" > /dev/null || { cat "$work/nginx-error.log" >&2; exit 1; }

server_pids() {
  case "$1" in
    tilescope) echo "$ts_pid" ;;
    iipsrv) local master; master=$(cat "$work/nginx.pid"); echo "$master $(pgrep -P "$master" | tr '\n' ' ') $(cat "$work/iipsrv.pid" | tr '\n' ' ')" ;;
  esac
}
cpu_ticks() { local sum=0; for p in $(server_pids "$1"); do sum=$((sum + $(awk '{print $14 + $15}' "/proc/$p/stat"))); done; echo "$sum"; }
rss_kb() { local sum=0; for p in $(server_pids "$1"); do sum=$((sum + $(awk '/^VmRSS/ {print $2}' "/proc/$p/status"))); done; echo "$sum"; }
port_of() { [ "$1" = tilescope ] && echo "$TS_PORT" || echo "$NGINX_PORT"; }

echo "request lists" >&2
lists="$work/lists"; rm -rf "$lists"; mkdir -p "$lists"
python3 bench/iiif/requests.py tiles "http://127.0.0.1:$TS_PORT/iiif/3/photo/info.json" /iiif/3/photo "$TILE_COUNT" 1 "$lists/tilescope-tiles"
python3 bench/iiif/requests.py tiles "http://127.0.0.1:$NGINX_PORT/iiif/photo.tif/info.json" /iiif/photo.tif "$TILE_COUNT" 1 "$lists/iipsrv-tiles"
python3 bench/iiif/requests.py regions "http://127.0.0.1:$TS_PORT/iiif/3/photo/info.json" /iiif/3/photo "$REGION_COUNT" 2 "$lists/tilescope-regions"
sed 's#^/iiif/3/photo/#/iiif/photo.tif/#' "$lists/tilescope-regions" > "$lists/iipsrv-regions"

results="$work/results.jsonl"; : > "$results"
clk=$(getconf CLK_TCK)
record() {  # server scenario round json cpu rss
  python3 -c 'import json,sys; d=json.loads(sys.argv[5]); d.update(server=sys.argv[1], scenario=sys.argv[2], round=sys.argv[3], cpu_us=int(sys.argv[4]) * 1e6 / int(sys.argv[7]), rss_kb=int(sys.argv[6])); print(json.dumps(d))' \
    "$1" "$2" "$3" "$4" "$5" "$6" "$clk" >> "$results"
}

# A direct source's IIIF answers are never written as files: nothing was deleted, nothing to wait for.
if [ -f "$work/trash-emptied-at" ] && [ "$DIRECT" != 1 ]; then
  wait_seconds=$(( $(cat "$work/trash-emptied-at") + RECENT_SECONDS - $(date +%s) ))
  if [ "$wait_seconds" -gt 0 ]; then
    echo "waiting ${wait_seconds} s: the last run's tile files were deleted less than ${RECENT_SECONDS} s ago" >&2
    sleep "$wait_seconds"
  fi
fi
# The first pass goes through each list in FIRST_PASS_CHUNKS parts, alternating between the servers
# part by part (every request still the first of its URL), so that a change in the machine's load
# from other work meets both servers alike. The tiles' first pass is made FIRST_PASSES times: one
# pass is about 3 s a server, and a busy minute of other work on the machine swung its ratio from
# 0.58x to 1.21x between runs. Between passes tilescope's tile files are moved aside (once written:
# they are written behind the replies) and iipsrv's 5 MB tile cache holds the end of the list, which
# the next pass reaches last, so every pass is cold for both.
for scenario in $SCENARIOS; do
  for server in tilescope iipsrv; do
    split -n "l/$FIRST_PASS_CHUNKS" -d "$lists/$server-$scenario" "$lists/$server-$scenario.part"
  done
  passes=1; [ "$scenario" = tiles ] && passes=$FIRST_PASSES
  for pass in $(seq 1 "$passes"); do
    if [ "$pass" -gt 1 ]; then
      sleep 2
      for stale in "$ts_data"/pyramids/*/*/iiif; do
        [ -d "$stale" ] && mv "$stale" "$work/trash/iiif-$(date +%s%N)"
      done
    fi
    for part in "$lists/tilescope-$scenario.part"*; do
      for server in tilescope iipsrv; do
        echo "first pass $pass: $server $scenario ${part##*.part}" >&2
        before=$(cpu_ticks $server)
        json=$(python3 bench/iiif/warm.py 127.0.0.1 "$(port_of $server)" "$lists/$server-$scenario.part${part##*.part}")
        record $server $scenario first "$(( $(cpu_ticks $server) - before ))" "$json" "$(rss_kb $server)"
      done
    done
  done
done
rm -rf "$work/trash"  # no file is created from here on: see the move above
date +%s > "$work/trash-emptied-at"
for round in $(seq 1 "$ROUNDS"); do
  for scenario in $SCENARIOS; do
    for server in tilescope iipsrv; do
      echo "round $round: $server $scenario" >&2
      before=$(cpu_ticks $server)
      json=$(wrk -t 2 -c "$CONNECTIONS" -d "${ROUND_SECONDS}s" --timeout 10s -s bench/iiif/list.lua \
        "http://127.0.0.1:$(port_of $server)" -- "$lists/$server-$scenario" | grep '^{')
      record $server $scenario "$round" "$(( $(cpu_ticks $server) - before ))" "$json" "$(rss_kb $server)"
    done
  done
done

{
  python3 bench/iiif/report.py "$results" "$WIDTH" "$HEIGHT" "$CONNECTIONS" "$ROUNDS" "$ROUND_SECONDS" "$(nproc)" "$load_at_start"
  echo "tilescope's render budget: $RENDER_BUDGET (megapixels a second a client; iipsrv has none); first passes of the tiles: $FIRST_PASSES"
} | tee "$out/$report_name.md"
