# Tilescope in a container: a release build on the official Swift image, run from
# debian:bookworm-slim with only the libraries the binary links, as a non-root user.
#
#   podman build -t tilescope .            (or: docker build -t tilescope .)
#   docker run -p 8080:8080 -v tilescope-data:/data -v "$PWD/images:/images:ro" tilescope
#
# Configuration is by environment variable only (TILESCOPE_*; see docs/ops.md).

ARG SWIFT_IMAGE=swift:6.3-bookworm

FROM ${SWIFT_IMAGE} AS build
RUN apt-get update \
 && apt-get install -y --no-install-recommends libvips-dev libjpeg62-turbo-dev libjxl-dev libmicrohttpd-dev libsqlite3-dev libpq-dev libssl-dev libcrypt-dev pkg-config \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /src
# The manifest names every target, tests included, so SwiftPM wants their folders too.
COPY Package.swift ./
COPY Sources ./Sources
COPY Tests ./Tests
# The API contract (Sources/Tilescope/OpenAPI/openapi.json) is a SwiftPM resource: its bundle folder
# goes beside the binary, where Bundle.module looks first; serve refuses to start without it.
RUN swift build -c release --static-swift-stdlib --product tilescope \
 && bin="$(swift build -c release --show-bin-path)" \
 && install -D -m 755 "$bin/tilescope" /out/tilescope \
 && strip /out/tilescope \
 && cp -R "$bin/Tilescope_Tilescope.resources" /out/
# The runtime libraries: exactly what the binary and libvips's HEIF module (HEIC/AVIF, documented
# formats) load, found by ldd and copied under their own paths. Installing Debian's libvips42 instead
# would also bring ImageMagick, poppler and OpenSlide for loaders Tilescope never uses
# (423 MB image against ~230 MB; see docs/ops.md). The HEIF module keeps its place, where libvips looks.
RUN for file in /out/tilescope /usr/lib/*/vips-modules-*/vips-heif.so; do ldd "$file"; done \
    | awk '$3 ~ /^\// { print $3 }' | sort -u > /out/libraries.txt \
 && mkdir -p /out/root \
 && xargs -a /out/libraries.txt cp -L --parents -t /out/root \
 && cp --parents /usr/lib/*/vips-modules-*/vips-heif.so /out/root

FROM debian:bookworm-slim
# The list of copied libraries, first: a build cache keys the RUN below on its text, not on what its
# bind mount holds, so without this a binary linking a new library (libpq) reused a cached layer without it.
COPY --from=build /out/libraries.txt /usr/local/share/tilescope/runtime-libraries.txt
# The copied libraries go in where the base image has none of its own: the base's libc, zlib, ...
# stay as Debian installed them.
RUN --mount=type=bind,from=build,source=/out/root,target=/runtime \
    cd /runtime && find . -type f | while read -r file; do \
      [ -e "/$file" ] || { mkdir -p "$(dirname "/$file")" && cp -p "$file" "/$file"; }; \
    done \
 && ldconfig \
 && groupadd --system --gid 10001 tilescope \
 && useradd --system --uid 10001 --gid 10001 --home-dir /data --no-create-home --shell /usr/sbin/nologin tilescope \
 && mkdir -p /data /images \
 && chown tilescope:tilescope /data
COPY --from=build /out/tilescope /usr/local/bin/tilescope
COPY --from=build /out/Tilescope_Tilescope.resources /usr/local/bin/Tilescope_Tilescope.resources
COPY Public /usr/local/share/tilescope/Public

ENV TILESCOPE_HOST=0.0.0.0 \
    TILESCOPE_PORT=8080 \
    TILESCOPE_DATA=/data \
    TILESCOPE_IMAGES=/images \
    TILESCOPE_PUBLIC=/usr/local/share/tilescope/Public \
    TILESCOPE_LOG_FORMAT=common \
    TILESCOPE_SHUTDOWN_SECONDS=10
# Pyramids, staging and the catalog database. The images folder can be mounted read-only while
# uploads are off (no TILESCOPE_ADMIN_TOKEN): uploads and deletions write there, and on a read-only
# mount they are answered 403 images_folder_read_only.
VOLUME /data
EXPOSE 8080
USER tilescope:tilescope
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=5s --start-period=10s --retries=3 CMD ["/usr/local/bin/tilescope", "health"]
ENTRYPOINT ["/usr/local/bin/tilescope", "serve"]
