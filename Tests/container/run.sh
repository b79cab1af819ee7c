#!/usr/bin/env bash
# The container test: builds the Dockerfile for real with podman, then runs the built image's
# filesystem with chroot as its unprivileged user and checks /readyz, a tile, /openapi.json (a
# resource beside the binary), the image's own HEALTHCHECK command, the read-only images mount,
# and SIGTERM -> exit 0.
#
# No Docker engine runs on these machines and base images cannot be pulled, so local stand-ins
# are made under the official names (kept in podman's storage for the next run):
#   debian:bookworm-slim  debootstrap'd from deb.debian.org and trimmed like the official slim image
#   swift:6.3-bookworm    that plus the Swift image's system packages; the toolchain itself is the
#                         one on this machine, bind-mounted into the build at /opt/swift (--volume)
# `podman run` is refused by the sandbox, hence `podman image mount` + chroot.
#
# Slow: see docs/ops.md for timings. Needs root (mounts, chroot).
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
CACHE=${TILESCOPE_CONTAINER_CACHE:-/var/tmp/tilescope-container}
TOOLCHAIN=${SWIFT_TOOLCHAIN:-$(dirname "$(dirname "$(dirname "$(readlink -f "$(command -v swift)")")")")}
SLIM=docker.io/library/debian:bookworm-slim
SWIFT=docker.io/library/swift:6.3-bookworm
IMAGE=localhost/tilescope:container-test
PODMAN=(podman)
started=$(date +%s)

say() { echo "== [$(( $(date +%s) - started ))s] $*" >&2; }
fail() { echo "FAIL: $*" >&2; exit 1; }

[ "$(id -u)" = 0 ] || fail "run as root (podman image mount and chroot need it)"
if ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null; then
  say "installing podman and debootstrap"
  apt-get install -y --no-install-recommends podman debootstrap >/dev/null
fi
[ -x "$TOOLCHAIN/usr/bin/swift" ] || fail "no Swift toolchain at $TOOLCHAIN (set SWIFT_TOOLCHAIN)"
mkdir -p "$CACHE"

# --- Stand-in: debian:bookworm-slim -------------------------------------------------------
if ! "${PODMAN[@]}" image exists "$SLIM"; then
  if [ ! -f "$CACHE/rootfs-bookworm/etc/debian_version" ]; then
    say "debootstrap bookworm (minbase) from deb.debian.org"
    rm -rf "$CACHE/rootfs-bookworm.tmp"
    debootstrap --variant=minbase bookworm "$CACHE/rootfs-bookworm.tmp" http://deb.debian.org/debian >"$CACHE/debootstrap.log" 2>&1 \
      || fail "debootstrap failed: $CACHE/debootstrap.log"
    mv "$CACHE/rootfs-bookworm.tmp" "$CACHE/rootfs-bookworm"
  fi
  say "importing the rootfs as $SLIM"
  slim="$CACHE/rootfs-slim"
  rm -rf "$slim"
  cp -a "$CACHE/rootfs-bookworm" "$slim"
  # As the official slim image: dpkg skips documentation, manuals and translations; no apt lists.
  cat > "$slim/etc/dpkg/dpkg.cfg.d/docker" <<'EOF'
path-exclude /usr/share/doc/*
path-include /usr/share/doc/*/copyright
path-exclude /usr/share/man/*
path-exclude /usr/share/groff/*
path-exclude /usr/share/info/*
path-exclude /usr/share/lintian/*
path-exclude /usr/share/linda/*
path-exclude /usr/share/locale/*
EOF
  find "$slim/usr/share/doc" -mindepth 1 -not -name copyright -not -type d -delete
  rm -rf "$slim"/usr/share/{man,groff,info,lintian,linda,locale}/* "$slim"/var/lib/apt/lists/* "$slim"/var/cache/apt/*
  rm -f "$slim/etc/apt/sources.list"
  cat > "$slim/etc/apt/sources.list.d/debian.sources" <<'EOF'
Types: deb
URIs: http://deb.debian.org/debian
Suites: bookworm bookworm-updates
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg

Types: deb
URIs: http://deb.debian.org/debian-security
Suites: bookworm-security
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
EOF
  tar -C "$slim" -c . | "${PODMAN[@]}" import --quiet --change 'CMD ["bash"]' - "$SLIM" >/dev/null
  rm -rf "$slim"
fi

# --- Stand-in: swift:6.3-bookworm ---------------------------------------------------------
if ! "${PODMAN[@]}" image exists "$SWIFT"; then
  say "building the stand-in $SWIFT (the Swift image's system packages; toolchain mounted at build time)"
  context=$(mktemp -d)
  cat > "$context/Containerfile" <<'EOF'
FROM docker.io/library/debian:bookworm-slim
RUN apt-get update \
 && apt-get install -y --no-install-recommends binutils libc6-dev libcurl4-openssl-dev libedit2 libgcc-12-dev \
      libncurses-dev libsqlite3-0 libstdc++-12-dev libxml2-dev pkg-config tzdata zlib1g-dev \
 && rm -rf /var/lib/apt/lists/*
ENV PATH=/opt/swift/usr/bin:/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
LABEL org.opencontainers.image.description="local stand-in for swift:6.3-bookworm; mount a toolchain at /opt/swift"
EOF
  "${PODMAN[@]}" build --isolation=chroot --pull=never -t "$SWIFT" "$context" >"$CACHE/swift-standin.log" 2>&1 \
    || fail "stand-in build failed: $CACHE/swift-standin.log"
  rm -rf "$context"
fi

# --- The Dockerfile, for real -------------------------------------------------------------
say "podman build (Dockerfile at $ROOT; log: $CACHE/build.log)"
build_started=$(date +%s)
# Docker format keeps HEALTHCHECK (the OCI format has no field for it).
"${PODMAN[@]}" build --isolation=chroot --format docker --pull=never --volume "$TOOLCHAIN:/opt/swift:ro" \
  -t "$IMAGE" "$ROOT" >"$CACHE/build.log" 2>&1 || { tail -n 40 "$CACHE/build.log" >&2; fail "podman build failed"; }
say "built in $(( $(date +%s) - build_started ))s"

inspect() { "${PODMAN[@]}" image inspect --format "$1" "$IMAGE"; }
[ "$(inspect '{{.Config.User}}')" = "tilescope:tilescope" ] || fail "image user is '$(inspect '{{.Config.User}}')'"
inspect '{{json .Config.Volumes}}' | grep -q '"/data"' || fail "no VOLUME /data"
inspect '{{json .Config.ExposedPorts}}' | grep -q '"8080/tcp"' || fail "no EXPOSE 8080"
[ "$(inspect '{{.Config.StopSignal}}')" = "SIGTERM" ] || fail "stop signal is '$(inspect '{{.Config.StopSignal}}')'"
healthcheck=$(inspect '{{json .Config.Healthcheck.Test}}')
[ "$healthcheck" = '["CMD","/usr/local/bin/tilescope","health"]' ] || fail "healthcheck is $healthcheck"
size=$(inspect '{{.Size}}')

# --- Run the image's filesystem -----------------------------------------------------------
run=$(mktemp -d)
mnt=$("${PODMAN[@]}" image mount "$IMAGE")
mounted=()
server=""
cleanup() {
  [ -n "$server" ] && kill -KILL "$server" 2>/dev/null || true
  for (( i=${#mounted[@]}-1; i>=0; i-- )); do umount "${mounted[$i]}" 2>/dev/null || umount -l "${mounted[$i]}" || true; done
  "${PODMAN[@]}" image unmount "$IMAGE" >/dev/null 2>&1 || true
  rm -rf "$run"
}
trap cleanup EXIT

say "checking the runtime libraries inside the image"
missing=$(chroot "$mnt" ldd /usr/local/bin/tilescope | grep "not found" || true)
[ -z "$missing" ] || fail "libraries missing in the image: $missing"

uid=$(awk -F: '$1 == "tilescope" { print $3 }' "$mnt/etc/passwd")
gid=$(awk -F: '$1 == "tilescope" { print $4 }' "$mnt/etc/passwd")
[ -n "$uid" ] && [ "$uid" != 0 ] || fail "no unprivileged tilescope user in the image"

mkdir -p "$run/data" "$run/images"
chown "$uid:$gid" "$run/data"
python3 - "$run/images/gradient.png" <<'EOF'
import struct, sys, zlib
width, height = 700, 500
rows = b"".join(b"\0" + bytes(v for x in range(width) for v in (x * 255 // width, y * 255 // height, 128))
             for y in range(height))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)) \
    + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
EOF
# One source in every documented format (docs/api.md), so the slim runtime proves it still has each
# loader: libvips's own (JPEG, WebP, GIF, TIFF) and its HEIF module (AVIF).
FORMATS=(photo.jpg still.webp anim.gif scan.tif phone.avif)
command -v vips >/dev/null || fail "the vips CLI is missing (apt-get install libvips-tools)"
for name in "${FORMATS[@]}"; do vips copy "$run/images/gradient.png" "$run/images/$name" || fail "vips could not write $name"; done
chmod -R a+rX "$run/images"

bind() { mount --bind "$1" "$2"; mounted+=("$2"); }
mount -t proc proc "$mnt/proc"; mounted+=("$mnt/proc")
bind /dev "$mnt/dev"
bind "$run/data" "$mnt/data"
bind "$run/images" "$mnt/images"
mount -o remount,bind,ro "$mnt/images"

if chroot "$mnt" touch /images/written 2>/dev/null; then fail "the images mount is writable"; fi

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
mapfile -t environment < <(inspect '{{range .Config.Env}}{{println .}}{{end}}' | grep -v '^$')
entrypoint=$(inspect '{{range .Config.Entrypoint}}{{.}} {{end}}')
say "starting '$entrypoint' as $uid:$gid on port $port"
env -i "${environment[@]}" TILESCOPE_PORT="$port" TILESCOPE_ADMIN_TOKEN=container-test \
  chroot --userspec="$uid:$gid" --groups="$gid" "$mnt" $entrypoint >"$run/stdout.log" 2>"$run/stderr.log" &
server=$!

ready=""
for _ in $(seq 1 100); do
  if curl -fsS "http://127.0.0.1:$port/readyz" >"$run/readyz.json" 2>/dev/null; then ready=1; break; fi
  kill -0 "$server" 2>/dev/null || { cat "$run/stderr.log" >&2; fail "the server exited"; }
  sleep 0.1
done
[ -n "$ready" ] || { cat "$run/stderr.log" >&2; fail "/readyz never answered 200"; }
grep -q '"status":"ready"' "$run/readyz.json" || fail "readyz: $(cat "$run/readyz.json")"
[ "$(stat -c %u "/proc/$server")" = "$uid" ] || fail "the server does not run as uid $uid"

# The image's own HEALTHCHECK command, run the way the engine would: inside, as the user.
env -i "${environment[@]}" TILESCOPE_PORT="$port" chroot --userspec="$uid:$gid" --groups="$gid" "$mnt" \
  /usr/local/bin/tilescope health || fail "the HEALTHCHECK command failed"

tile=""
for _ in $(seq 1 300); do
  if curl -fsS -o "$run/tile.jpeg" "http://127.0.0.1:$port/dzi/gradient_files/0/0_0.jpeg" 2>/dev/null; then tile=1; break; fi
  sleep 0.1
done
[ -n "$tile" ] || fail "no tile: $(curl -sS "http://127.0.0.1:$port/api/images/gradient")"
[ "$(head -c 2 "$run/tile.jpeg" | od -An -tx1 | tr -d ' ')" = "ffd8" ] || fail "the tile is not a JPEG"
curl -fsS -o "$run/deep.jpeg" "http://127.0.0.1:$port/dzi/gradient_files/10/2_1.jpeg" || fail "no deep tile"
for name in "${FORMATS[@]}"; do
  id=${name%.*}
  built=""
  for _ in $(seq 1 300); do
    curl -fsS "http://127.0.0.1:$port/api/images/$id" 2>/dev/null | grep -q '"status":"ready"' && { built=1; break; }
    sleep 0.1
  done
  [ -n "$built" ] || fail "$name was not built: $(curl -sS "http://127.0.0.1:$port/api/images/$id")"
done
[ -n "$(find "$run/data/pyramids" -type f -user "$uid" -name 'image.dzi')" ] || fail "pyramids not written by the user"
grep -q '"GET /dzi/gradient_files/10/2_1.jpeg HTTP/1.1" 200' "$run/stdout.log" || fail "no access log line"
curl -fsS -o "$run/metrics.txt" "http://127.0.0.1:$port/metrics" || fail "no /metrics"
# The contract is a SwiftPM resource, copied beside the binary by the Dockerfile: the image must send it as committed.
curl -fsS -o "$run/openapi.json" "http://127.0.0.1:$port/openapi.json" || fail "no /openapi.json"
cmp -s "$run/openapi.json" "$ROOT/Sources/Tilescope/OpenAPI/openapi.json" || fail "/openapi.json differs from the committed contract"
grep -q '^tilescope_tiles_served_total 2$' "$run/metrics.txt" || fail "metrics: $(grep tiles_served "$run/metrics.txt")"
# The gallery page's modules in one answer, made from the image's copy of Public/js: every module file in it.
curl -fsS -o "$run/modules.json" "http://127.0.0.1:$port/js/modules.json" || fail "no /js/modules.json"
modules=$(find "$ROOT/Public/js" -name '*.js' | wc -l)
packed=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))))' "$run/modules.json")
[ "$packed" = "$modules" ] || fail "the module pack holds $packed modules, Public/js $modules"

# Uploads and deletions write the images folder: on this read-only mount both are refused, plainly.
upload=$(curl -sS -o "$run/upload.json" -w '%{http_code}' -H 'Authorization: Bearer container-test' \
  -H 'Content-Type: image/png' --data-binary @"$run/images/gradient.png" "http://127.0.0.1:$port/api/images?name=new.png")
[ "$upload" = 403 ] && grep -q images_folder_read_only "$run/upload.json" || fail "upload on a read-only folder: $upload $(cat "$run/upload.json")"
deleted=$(curl -sS -o "$run/delete.json" -w '%{http_code}' -X DELETE -H 'Authorization: Bearer container-test' \
  "http://127.0.0.1:$port/api/images/photo")
[ "$deleted" = 403 ] && grep -q images_folder_read_only "$run/delete.json" || fail "delete on a read-only folder: $deleted"
[ -f "$run/images/photo.jpg" ] || fail "the delete removed the file"
grep -q "cannot write the images folder" "$run/stderr.log" "$run/stdout.log" || fail "no start-up line about the read-only images folder"

say "SIGTERM"
kill -TERM "$server"
status=0
wait "$server" || status=$?
server=""
[ "$status" = 0 ] || { cat "$run/stderr.log" >&2; fail "exit status $status after SIGTERM"; }

say "PASS: image $IMAGE is $(( size / 1000000 )) MB ($size bytes); total $(( $(date +%s) - started ))s"
"${PODMAN[@]}" history --format '{{.Size}}\t{{.CreatedBy}}' "$IMAGE" | cut -c1-110 | head -n 12 >&2
