#!/usr/bin/env python3
"""The fleet test's object-storage profile (issue #40): PostgreSQL + SeaweedFS + 3 Tilescope replicas + nginx on
loopback, real processes, and NO folder shared between replicas: each has its own empty data folder, the sources
are in a bucket (`--images s3://`) and so are the pyramids (`--store s3://`).

Checks, in order: the replicas start together on an empty database and bucket; the bucket's images are built
once each (by one replica) and served by all; an image uploaded through r1 is written to the bucket, built by
exactly one replica, and every replica and nginx answer its descriptor, every tile, preview and IIIF
info.json and regions byte for byte alike; kill -9 of the replica building a large image while it uploads
leaves no version without its pyramid.json in the bucket, no replica answers a tile of it meanwhile, and exactly
one other replica builds it, after which every version in the bucket is whole; a replica started afterwards on
an empty folder serves everything byte for byte as the others and builds nothing; kill -9 of a replica under
tile load through nginx fails no request; the store killed under load: warm tiles keep flowing, a cold one is
503 with Retry-After, and once the store is back the cold tile answers its right bytes with no restart.
Usage: fleet_s3.py TILESCOPE_BINARY (Tests/fleet/run.sh builds it and bounds the time).
"""
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import time

import fleet
from fleet import check, log, request, wait_until, image_json, whole_jpeg, make_image, ready, TileLoad
from s3 import Seaweed, find_weed

WORK, TOKEN = fleet.WORK, fleet.TOKEN
SOURCES, PYRAMIDS = "sources", "pyramids"
# The same Host on every request compared, so IIIF's absolute ids are the same whichever replica answers.
HOST = {"Host": "fleet.test"}
weed = Seaweed(find_weed(fleet.ROOT), f"{WORK}/weed")
ports = dict(fleet.REPLICA_PORTS)  # r1, r2, r3; r4 joins later on an empty folder


def start_replica(name):
    os.makedirs(f"{WORK}/data-{name}", exist_ok=True)
    out = open(f"{WORK}/{name}.log", "ab")
    environment = dict(os.environ, TILESCOPE_DATABASE=fleet.DATABASE, TILESCOPE_ADMIN_TOKEN=TOKEN,
                       AWS_ACCESS_KEY_ID=weed.access_key, AWS_SECRET_ACCESS_KEY=weed.secret_key)
    endpoint = f"endpoint={weed.endpoint}&region={weed.region}"
    fleet.processes[name] = subprocess.Popen(
        [fleet.BINARY, "serve", "--images", f"s3://{SOURCES}/gallery?{endpoint}", "--store", f"s3://{PYRAMIDS}/fleet?{endpoint}",
         # Its own folder: the local copy of what it fetched, staging and build locks. Nothing in it is shared.
         "--data", f"{WORK}/data-{name}", "--port", str(ports[name]), "--host", "127.0.0.1",
         "--replica-id", name, "--build-lease", str(fleet.LEASE_SECONDS), "--rescan", "1", "--settle", "0",
         "--public", f"{fleet.ROOT}/Public", "--workers", "2", "--threads", "2", "--express-build-pixels", "0",
         "--trusted-proxies", "127.0.0.1"],
        stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=environment)


def builds(name, image_id):
    return len(re.findall(rf"\]: building {re.escape(image_id)} \(", fleet.replica_log(name)))


def builders_of(image_id, names=None):
    return [name for name in (names or ports) if builds(name, image_id) > 0]


def ready_everywhere(image_id, names):
    return all((image_json(ports[n], image_id) or {}).get("status") == "ready" for n in names)


def put_source(name, width, height):
    local = f"{WORK}/{name}"
    fleet.vips("gaussnoise", local, str(width), str(height), "--sigma", "60")
    with open(local, "rb") as f:
        weed.put(SOURCES, f"gallery/{name}", f.read())


def level_size(extent, level, max_level):
    for _ in range(max_level - level):
        extent = (extent + 1) // 2
    return extent


def answer_paths(port, image_id, every_tile=True):
    """What a viewer reads of an image: its record's descriptor and preview, Deep Zoom tiles (all of them, or the
    corners and centre of each level), IIIF info.json, a region in each of two sizes and a IIIF tile."""
    info = image_json(port, image_id)
    urls, version = info["urls"], info["version"]
    size, max_level = info["tileSize"], info["maxLevel"]
    paths = [urls["dzi"], urls["preview"], f"/iiif/3/{image_id}/info.json",
             f"/iiif/3/{image_id}/full/256,/0/default.jpg", f"/iiif/3/{image_id}/0,0,300,200/150,/0/default.jpg",
             f"/iiif/3/{image_id}/0,0,{size},{size}/{size},/0/default.jpg", f"/iiif/2/{image_id}/full/128,/0/default.jpg"]
    for level in range(max_level + 1):
        columns = (level_size(info["width"], level, max_level) + size - 1) // size
        rows = (level_size(info["height"], level, max_level) + size - 1) // size
        cells = [(c, r) for c in range(columns) for r in range(rows)] if every_tile else \
            sorted({(0, 0), (columns - 1, rows - 1), (columns // 2, rows // 2), (columns - 1, 0)})
        paths += [f"/dzi/{image_id}_files/{level}/{c}_{r}.jpeg?v={version}" for c, r in cells]
    return [p if p.startswith("/") else "/" + p.split("/", 3)[3] for p in paths]


def answers(port, paths):
    """path -> (status, body) as one replica answers."""
    out = {}
    for path in paths:
        status, _, body = request(port, "GET", path, headers=HOST, timeout=60)
        out[path] = (status, body)
    return out


def compare_everywhere(image_id, names, every_tile=True, through_nginx=True):
    """Every replica in `names` (and nginx) answers every path 200 and byte for byte as the first one."""
    paths = answer_paths(ports[names[0]], image_id, every_tile)
    reference = answers(ports[names[0]], paths)
    bad = [(names[0], p, s) for p, (s, _) in reference.items() if s != 200]
    for name in names[1:] + (["nginx"] if through_nginx else []):
        port = fleet.NGINX_PORT if name == "nginx" else ports[name]
        for path, (status, body) in answers(port, paths).items():
            if status != 200 or body != reference[path][1]:
                bad.append((name, path, status))
    return len(paths), bad


def store_versions(image_id):
    """version -> keys under it, of `image_id`'s pyramids in the bucket."""
    prefix = f"fleet/pyramids/{image_id}/"
    versions = {}
    for key in weed.keys(PYRAMIDS, prefix):
        version, _, rest = key[len(prefix):].partition("/")
        versions.setdefault(version, []).append(rest)
    return versions


def cleanup():
    fleet.cleanup()  # replicas, nginx, PostgreSQL; keeps WORK (and the store's log) when something failed
    weed.kill()
    if not fleet.failures:
        shutil.rmtree(WORK, ignore_errors=True)


def main():
    os.chmod(WORK, 0o711)  # PostgreSQL runs as `postgres` and must reach its folder inside
    os.makedirs(fleet.PG_DIR)
    if os.getuid() == 0:
        shutil.chown(fleet.PG_DIR, "postgres", "postgres")
    fleet.as_postgres(f"{fleet.PG_BIN}/initdb", "-D", f"{fleet.PG_DIR}/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C")
    fleet.pg_start()
    fleet.as_postgres(f"{fleet.PG_BIN}/psql" if os.path.exists(f"{fleet.PG_BIN}/psql") else "psql", "-X", "-q", "-h", "127.0.0.1",
                      "-p", str(fleet.PG_PORT), "-U", "postgres", "-c", "CREATE DATABASE tilescope")
    weed.start()
    weed.create_bucket(SOURCES)
    weed.create_bucket(PYRAMIDS)
    check(weed.raw(weed.s3_port, "GET", f"/{SOURCES}?list-type=2")[0] == 403, "the store refuses unsigned requests")
    for index in range(2):
        put_source(f"seed-{index}.jpg", 700 + 37 * index, 500)

    for name in ("r1", "r2", "r3"):
        start_replica(name)
    fleet.start_nginx()
    names = ["r1", "r2", "r3"]
    check(wait_until("every replica ready", lambda: all(ready(ports[n]) for n in names), 90),
          "3 replicas, each on its own empty folder, start together on an empty database and report ready")
    check(wait_until("seed images ready everywhere", lambda: all(ready_everywhere(f"seed-{i}", names) for i in range(2)), 120),
          "the bucket's images are ready on every replica")
    for index in range(2):
        check(len(builders_of(f"seed-{index}")) == 1, f"seed-{index} was built by exactly one replica ({builders_of(f'seed-{index}')})")

    # An upload through r1: into the bucket, built by one replica, the same bytes from every replica and nginx.
    make_image(f"{WORK}/upload.jpg", 900, 640)
    with open(f"{WORK}/upload.jpg", "rb") as f:
        status, _, body = request(ports["r1"], "POST", "/api/images?name=uploaded.jpg", body=f.read(),
                                  headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "image/jpeg"})
    check(status in (201, 202), f"an upload through r1 is accepted ({status} {body[:100]!r})")
    uploaded = json.loads(body).get("id", "uploaded") if status in (201, 202) else "uploaded"
    check("gallery/uploaded.jpg" in weed.keys(SOURCES, "gallery/"), "the upload is written to the sources bucket")
    check(wait_until("the upload ready everywhere", lambda: ready_everywhere(uploaded, names), 90),
          "the uploaded image becomes ready on every replica")
    check(len(builders_of(uploaded)) == 1, f"the upload was built by exactly one replica ({builders_of(uploaded)})")
    count, bad = compare_everywhere(uploaded, names)
    check(count > 20 and not bad, f"r1, r2, r3 and nginx answer its descriptor, preview, IIIF and all its tiles byte for "
          f"byte alike ({count} paths; differing: {bad[:3]})")
    versions = store_versions(uploaded)
    check(len(versions) == 1 and all("pyramid.json" in keys for keys in versions.values()),
          f"the bucket holds one published version of it ({ {v: len(k) for v, k in versions.items()} })")

    # kill -9 of the replica building a large image once its upload is under way (objects in the bucket, no
    # pyramid.json yet): no partial version is ever published or served, and exactly one other replica builds it.
    put_source("huge.jpg", 9000, 7000)
    def uploading():
        versions = store_versions("huge")
        return bool(versions) and builders_of("huge")
    check(wait_until("huge's upload under way", uploading, 180, interval=0.05), "a replica builds huge and starts uploading it")
    first = builders_of("huge")[0]
    fleet.processes[first].send_signal(signal.SIGKILL)
    fleet.processes[first].wait()
    at_kill = store_versions("huge")
    log(f"killed {first} (kill -9) while it built huge: {sum(map(len, at_kill.values()))} objects in the bucket")
    check(not any("pyramid.json" in keys for keys in at_kill.values()),
          f"{first} was killed before it published huge (no pyramid.json in the bucket)")
    survivors = [n for n in names if n != first]
    # A build serves its coarse levels on its own replica as it goes (progressive builds): such a tile must be whole
    # and the one the finished pyramid holds. A version seen with its pyramid.json must hold every object it ends with.
    early, published_counts = [], []
    def poll_huge():
        for name in survivors:
            if (image_json(ports[name], "huge") or {}).get("status") != "ready":
                status, _, body = request(ports[name], "GET", "/dzi/huge_files/0/0_0.jpeg")
                if status == 200:
                    early.append((name, body))
        published_counts.extend(len(keys) for keys in store_versions("huge").values() if "pyramid.json" in keys)
        return ready_everywhere("huge", survivors)
    check(wait_until("huge ready on the survivors", poll_huge, 240, interval=0.5),
          f"after kill -9 of {first}, huge becomes ready on the other replicas")
    wrong = [name for name, body in early if not whole_jpeg(body) or body != request(ports[name], "GET", "/dzi/huge_files/0/0_0.jpeg")[2]]
    check(not wrong, f"a tile of huge answered while it was built is the finished pyramid's ({len(early)} seen; wrong on {wrong[:3]})")
    takers = [n for n in builders_of("huge") if n != first]
    check(len(takers) == 1, f"exactly one other replica built huge ({takers})")
    versions = store_versions("huge")
    check(len(versions) == 1 and all("pyramid.json" in keys for keys in versions.values()),
          f"every version of huge in the bucket is published, no partial one left "
          f"({ {v: ('pyramid.json' in k, len(k)) for v, k in versions.items()} })")
    final = max((len(k) for k in versions.values()), default=0)
    check(all(count >= final for count in published_counts),
          f"whenever its pyramid.json was in the bucket, the version held all its {final} objects "
          f"(seen published with {sorted(set(published_counts))[:5]})")
    count, bad = compare_everywhere("huge", survivors, every_tile=False)
    check(not bad, f"the survivors and nginx answer huge byte for byte alike ({count} paths; differing: {bad[:3]})")

    # A replica started afterwards on an empty folder serves everything and builds nothing.
    ports["r4"] = fleet.free_port()
    start_replica("r4")
    every = ["seed-0", "seed-1", uploaded, "huge"]
    check(wait_until("r4 ready", lambda: ready(ports["r4"]) and all(ready_everywhere(i, ["r4"]) for i in every), 60),
          "r4, started on an empty folder, is ready and lists every image ready")
    differing, total = [], 0
    for image_id in every:
        count, bad = compare_everywhere(image_id, [survivors[0], "r4"], every_tile=image_id != "huge", through_nginx=False)
        total += count
        differing += bad
    check(not differing, f"r4 answers every image byte for byte as {survivors[0]} ({total} paths; differing: {differing[:3]})")
    check(all(builds("r4", i) == 0 for i in every), "r4 built nothing")

    # kill -9 of a replica under tile load through nginx: no failed request (nginx retries GETs).
    load_paths = [p for p in answer_paths(fleet.NGINX_PORT, uploaded) if "_files/" in p]
    load = TileLoad(fleet.NGINX_PORT, load_paths, threads=6, bust_cache=True)
    time.sleep(2)
    victim = survivors[0]
    fleet.processes[victim].send_signal(signal.SIGKILL)
    fleet.processes[victim].wait()
    time.sleep(3)
    statuses, errors = load.stop()
    check(not errors and statuses.get(200, 0) > 50,
          f"kill -9 of {victim} under tile load through nginx: {statuses.get(200, 0)} tiles, 0 failed ({errors[:3]})")

    # The store killed under load: warm tiles keep flowing, a cold one is 503 with Retry-After; the store back, the
    # cold tile answers its right bytes, without a restart of any replica.
    # r4 fetched only some of huge's tiles (and never built it): (1, 1) of its finest level is cold there.
    live = "r4"
    info = image_json(ports[live], "huge")
    cold = f"/dzi/huge_files/{info['maxLevel']}/1_1.jpeg?v={info['version']}"
    expected = request(fleet.NGINX_PORT, "GET", cold)[2]
    load = TileLoad(ports[live], load_paths, threads=3, bust_cache=True)
    time.sleep(1)
    weed.kill()
    log("SeaweedFS killed")
    time.sleep(2)
    status, headers, body = request(ports[live], "GET", cold)
    check(status == 503 and headers.get("retry-after") and b"store_unavailable" in body,
          f"with the store down a cold tile is 503 store_unavailable with Retry-After ({status} {body[:120]!r})")
    time.sleep(1)
    weed.start()
    log("SeaweedFS started again")
    check(wait_until("the cold tile answers", lambda: request(ports[live], "GET", cold)[0] == 200, 30),
          "once the store is back the cold tile answers, with no restart")
    check(request(ports[live], "GET", cold)[2] == expected, "and its bytes are those another replica answered before")
    statuses, errors = load.stop()
    check(not errors and statuses.get(200, 0) > 20,
          f"warm tiles kept flowing while the store was down: {statuses.get(200, 0)} tiles, 0 failed ({errors[:3]})")
    check(wait_until("readyz ok again", lambda: ready(ports[live]), 30), f"{live} is ready again")


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # a crash of the test itself is a failure too, never a pass
        fleet.failures.append(f"the fleet test stopped: {error!r}")
        log(f"FAIL the fleet test stopped: {error!r}")
    finally:
        cleanup()
    if fleet.failures:
        log(f"{len(fleet.failures)} check(s) failed")
        sys.exit(1)
    log("all checks passed (object-storage profile)")
