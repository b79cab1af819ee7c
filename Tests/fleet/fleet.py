#!/usr/bin/env python3
"""The fleet test (issue #14): PostgreSQL + 3 Tilescope replicas + nginx on loopback, real processes.

Checks, in order: 1,000 concurrent rating writes through nginx and directly, from 1,000 clients (each its
own loopback address, so each within its rating-write budget) and so 1,000 new viewers: all acknowledged, and
every replica shows each image's count and average of exactly the acknowledged ratings; a new image built by exactly one replica and then served by all;
an upload through one replica served by all, and its deletion through another seen by all;
kill -9 of the building replica -> another takes the build over after the lease, no partial tile
meanwhile; kill -9 of a replica under tile load -> 0 failed tile requests through nginx; PostgreSQL
restarted under load -> ratings 503 + Retry-After for the gap, tiles keep flowing, all recovers.
Usage: fleet.py TILESCOPE_BINARY (Tests/fleet/run.sh builds it and bounds the time).
"""
import concurrent.futures as futures
import http.client
import json
import os
import re
import shutil
import signal
import ports
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = sys.argv[1]
WORK = tempfile.mkdtemp(prefix="tilescope-fleet-")
IMAGES, DATA = f"{WORK}/images", f"{WORK}/data"
LEASE_SECONDS = 4
processes = {}
failures = []


def log(message):
    print(f"fleet: {message}", file=sys.stderr, flush=True)


def check(condition, message):
    log(("ok   " if condition else "FAIL ") + message)
    if not condition:
        failures.append(message)


def free_port():
    return ports.free_port()


def request(port, method, path, body=None, headers=None, timeout=20, source=None):
    """(status, headers dict, body bytes); status 0 when the connection failed. `source`: the loopback
    address to connect from (any of 127.0.0.0/8), so that the test can be many clients."""
    try:
        connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout,
                                                source_address=(source, 0) if source else None)
        connection.request(method, path, body=body, headers=headers or {})
        response = connection.getresponse()
        data = response.read()
        connection.close()
        return response.status, {k.lower(): v for k, v in response.getheaders()}, data
    except (OSError, http.client.HTTPException) as error:
        return 0, {}, str(error).encode()


def wait_until(what, predicate, seconds, interval=0.2):
    deadline = time.time() + seconds
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(interval)
    log(f"timed out after {seconds} s waiting for: {what}")
    return False


# ---------------------------------------------------------------- PostgreSQL

def pg_binaries():
    root = "/usr/lib/postgresql"
    versions = sorted((int(v) for v in os.listdir(root) if v.isdigit()), reverse=True) if os.path.isdir(root) else []
    for version in versions:
        if os.access(f"{root}/{version}/bin/initdb", os.X_OK):
            return f"{root}/{version}/bin"
    sys.exit("fleet: FAIL PostgreSQL is not installed (apt-get install postgresql)")


PG_BIN = pg_binaries()
PG_DIR = f"{WORK}/pg"
PG_PORT = free_port()


def as_postgres(*command):
    prefix = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    subprocess.run(prefix + list(command), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                   stdin=subprocess.DEVNULL)


def pg_start():
    as_postgres(f"{PG_BIN}/pg_ctl", "-D", f"{PG_DIR}/data", "-l", f"{PG_DIR}/server.log", "-w", "-t", "60", "-o",
                f"-c listen_addresses=127.0.0.1 -c port={PG_PORT} -c unix_socket_directories={PG_DIR} -c max_connections=100",
                "start")


def pg_stop():
    as_postgres(f"{PG_BIN}/pg_ctl", "-D", f"{PG_DIR}/data", "-m", "fast", "-w", "stop")


# ---------------------------------------------------------------- replicas and nginx

REPLICA_PORTS = {name: free_port() for name in ("r1", "r2", "r3")}
NGINX_PORT = free_port()
DATABASE = f"postgres://postgres@127.0.0.1:{PG_PORT}/tilescope"
TOKEN = "fleet-test-admin-token-0123456789abcdef"


def client_address(n):
    """The n-th test client's loopback address: 127.0.1.1 onwards (127.0.0.1 is nginx's, the trusted proxy)."""
    return f"127.0.{1 + n // 250}.{1 + n % 250}"


def start_replica(name):
    out = open(f"{WORK}/{name}.log", "ab")
    environment = dict(os.environ, TILESCOPE_DATABASE=DATABASE, TILESCOPE_ADMIN_TOKEN=TOKEN)
    processes[name] = subprocess.Popen(
        [BINARY, "serve", "--images", IMAGES, "--data", DATA, "--port", str(REPLICA_PORTS[name]), "--host", "127.0.0.1",
         "--replica-id", name, "--build-lease", str(LEASE_SECONDS), "--rescan", "1", "--settle", "0",
         "--public", f"{ROOT}/Public", "--workers", "2", "--threads", "2", "--express-build-pixels", "0",
         # nginx reaches the replicas from 127.0.0.1: its X-Forwarded-For names the client a rating-write
         # budget is kept for, as in deploy/; clients connecting directly are their own address.
         "--trusted-proxies", "127.0.0.1"],
        stdout=out, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL, env=environment)


def replica_log(name):
    with open(f"{WORK}/{name}.log", errors="replace") as f:
        return f.read()


def builders_of(image_id):
    """Replicas whose log says they started building `image_id`."""
    return [name for name in REPLICA_PORTS if re.search(rf"\]: building {re.escape(image_id)} \(", replica_log(name))]


def ready(port):
    return request(port, "GET", "/readyz", timeout=3)[0] == 200


def start_nginx():
    with open(f"{ROOT}/deploy/nginx.conf") as f:
        conf = f.read()
    servers = "".join(f"        server 127.0.0.1:{port} max_fails=3 fail_timeout=10s;\n" for port in REPLICA_PORTS.values())
    conf = re.sub(r"(?m)^\s*server tilescope-\d:8080[^\n]*\n", "", conf)
    conf = conf.replace("upstream tilescope {\n", "upstream tilescope {\n" + servers)
    conf = conf.replace("listen 80;", f"listen 127.0.0.1:{NGINX_PORT};")
    conf = conf.replace("/var/cache/nginx/tilescope", f"{WORK}/nginx-cache")
    conf = conf.replace("/var/log/nginx/tilescope-access.log", f"{WORK}/nginx-access.log")
    conf = conf.replace("worker_processes auto;", "worker_processes 2;")
    with open(f"{WORK}/nginx.conf", "w") as f:
        f.write(conf)
    os.makedirs(f"{WORK}/nginx-temp", exist_ok=True)
    processes["nginx"] = subprocess.Popen(
        ["nginx", "-c", f"{WORK}/nginx.conf", "-p", f"{WORK}/nginx-temp",
         "-g", f"daemon off; pid {WORK}/nginx.pid; error_log {WORK}/nginx-error.log;"],
        stdout=subprocess.DEVNULL, stderr=open(f"{WORK}/nginx-stderr.log", "wb"), stdin=subprocess.DEVNULL)


def vips(*arguments):
    subprocess.run(["vips", *arguments], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def make_image(path, width, height):
    """A noisy JPEG, written beside the images folder and moved in whole."""
    temporary = f"{WORK}/{os.path.basename(path)}"
    vips("gaussnoise", temporary, str(width), str(height), "--sigma", "60")
    shutil.move(temporary, path)


def image_json(port, image_id):
    status, _, body = request(port, "GET", f"/api/images/{image_id}")
    return json.loads(body) if status == 200 else None


def tile_paths(port, image_id, count=40):
    info = image_json(port, image_id)
    template = info["urls"]["tiles"]
    level = info["maxLevel"]
    columns = (info["width"] + 253) // 254
    rows = (info["height"] + 253) // 254
    paths = []
    for index in range(count):
        column, row = index % columns, (index // columns) % rows
        paths.append(template.replace("{level}", str(level)).replace("{col}", str(column)).replace("{row}", str(row))
                     .replace("{column}", str(column)))
    return [p if p.startswith("/") else "/" + p.split("/", 3)[3] for p in paths]


def whole_jpeg(body):
    return body[:2] == b"\xff\xd8" and body.rstrip(b"\0")[-2:] == b"\xff\xd9"


class TileLoad:
    """Threads fetching tiles through a port until stopped; every answer's status is counted."""

    def __init__(self, port, paths, threads=4, bust_cache=False):
        self.port, self.paths, self.bust = port, paths, bust_cache
        self.statuses, self.errors, self.lock, self.stopping = {}, [], threading.Lock(), threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(i,)) for i in range(threads)]
        for thread in self.threads:
            thread.start()

    def run(self, offset):
        number = offset
        while not self.stopping.is_set():
            path = self.paths[number % len(self.paths)]
            if self.bust:
                path += f"{'&' if '?' in path else '?'}n={number}"
            status, _, body = request(self.port, "GET", path, timeout=30)
            with self.lock:
                self.statuses[status] = self.statuses.get(status, 0) + 1
                if status != 200 or not whole_jpeg(body):
                    self.errors.append((path, status, body[:120]))
            number += len(self.threads)

    def stop(self):
        self.stopping.set()
        for thread in self.threads:
            thread.join()
        return self.statuses, self.errors


def cleanup():
    for name, process in processes.items():
        if process.poll() is None:
            process.send_signal(signal.SIGKILL if name != "nginx" else signal.SIGQUIT)
            process.wait(timeout=10)
    try:
        pg_stop()
    except Exception:
        pass
    if failures:
        log(f"logs kept in {WORK}")
    else:
        shutil.rmtree(WORK, ignore_errors=True)


def main():
    os.chmod(WORK, 0o711)  # PostgreSQL runs as `postgres` and must reach its folder inside
    os.makedirs(IMAGES)
    os.makedirs(DATA)
    os.makedirs(PG_DIR)
    if os.getuid() == 0:
        shutil.chown(PG_DIR, "postgres", "postgres")
    as_postgres(f"{PG_BIN}/initdb", "-D", f"{PG_DIR}/data", "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C")
    pg_start()
    as_postgres(f"{PG_BIN}/psql" if os.path.exists(f"{PG_BIN}/psql") else "psql", "-X", "-q", "-h", "127.0.0.1",
                "-p", str(PG_PORT), "-U", "postgres", "-c", "CREATE DATABASE tilescope")
    for index in range(4):
        make_image(f"{IMAGES}/seed-{index}.jpg", 700 + 37 * index, 500)

    # Three replicas started together: migrations race, one applies them.
    for name in REPLICA_PORTS:
        start_replica(name)
    start_nginx()
    check(wait_until("every replica ready", lambda: all(ready(p) for p in REPLICA_PORTS.values()), 90),
          "3 replicas start together on an empty database and report ready (/readyz includes the database)")
    check(wait_until("seed images ready everywhere", lambda: all(
        (image_json(p, f"seed-{i}") or {}).get("status") == "ready" for p in REPLICA_PORTS.values() for i in range(4)), 120),
        "the seed images are ready on every replica")
    for index in range(4):
        builders = builders_of(f"seed-{index}")
        check(len(builders) == 1, f"seed-{index} was built by exactly one replica ({builders})")
    metrics = request(REPLICA_PORTS["r2"], "GET", "/metrics")[2].decode()
    check('tilescope_replica_info{replica="r2"} 1' in metrics, "/metrics names the replica")

    # 1,000 concurrent rating writes, spread over nginx and the three replicas directly. Ratings are per viewer
    # and writes are budgeted per client: each write comes from a client of its own (its own loopback address,
    # which nginx passes on in X-Forwarded-For) without a cookie, so each is a new viewer's one rating and
    # every one of the 1,000 must be stored and counted. One viewer also re-rates through every replica.
    ports = [NGINX_PORT] + list(REPLICA_PORTS.values())
    acknowledged = {f"seed-{i}": [] for i in range(4)}
    def rate(n):
        image_id, value = f"seed-{n % 4}", n % 11
        status, headers, body = request(ports[n % len(ports)], "PUT", f"/api/images/{image_id}/rating",
                                        body=json.dumps({"rating": value}), headers={"Content-Type": "application/json"},
                                        source=client_address(n))
        if status != 200:
            log(f"rating write {n} through port {ports[n % len(ports)]}: {status} {body[:300]!r}")
        return image_id, value, status, headers.get("set-cookie", "")
    with futures.ThreadPoolExecutor(max_workers=64) as pool:
        results = list(pool.map(rate, range(1000)))
    viewers = set()
    for image_id, value, status, cookie in results:
        if status == 200:
            acknowledged[image_id].append(value)
            viewers.add(cookie.split(";")[0])
    statuses = {}
    for _, _, status, _ in results:
        statuses[status] = statuses.get(status, 0) + 1
    check(statuses.get(200, 0) == 1000, f"1,000 concurrent rating writes all acknowledged ({statuses})")
    check(len(viewers) == 1000 and all(v.startswith("tilescope_viewer=") for v in viewers),
          f"each cookieless write was given a viewer of its own ({len(viewers)} distinct cookies)")
    agree = True
    for image_id, values in acknowledged.items():
        expected = (len(values), round(sum(values) / len(values), 2))
        seen = {name: ((image_json(port, image_id) or {}).get("ratingCount"), (image_json(port, image_id) or {}).get("ratingAverage"))
                for name, port in REPLICA_PORTS.items()}
        if any(s != expected for s in seen.values()):
            agree = False
            log(f"{image_id}: replicas say (count, average) {seen}, acknowledged {expected}")
    check(agree, "every image's count and average are those of exactly the acknowledged ratings, the same on every replica")
    # A viewer's cookie is honoured by every replica (the signing keys are in the shared catalog).
    cookie = sorted(viewers)[0]
    own = []
    for index, port in enumerate(ports):
        status, headers, body = request(port, "PUT", "/api/images/seed-0/rating", body=json.dumps({"rating": index}),
                                        headers={"Content-Type": "application/json", "Cookie": cookie}, source=client_address(1000))
        own.append((status, "set-cookie" in headers, json.loads(body or b"{}").get("rating")))
    check(own == [(200, False, index) for index in range(len(ports))],
          f"one viewer's cookie is the same viewer on nginx and every replica: re-rated, no new cookie ({own})")

    # A new image in the shared folder: built by exactly one replica, then served by all.
    make_image(f"{IMAGES}/newcomer.jpg", 1500, 1100)
    check(wait_until("newcomer ready everywhere", lambda: all(
        (image_json(p, "newcomer") or {}).get("status") == "ready" for p in REPLICA_PORTS.values()), 120),
        "a new image in the shared folder becomes ready on every replica")
    check(len(builders_of("newcomer")) == 1, f"newcomer was built by exactly one replica ({builders_of('newcomer')})")
    paths = tile_paths(REPLICA_PORTS["r1"], "newcomer")
    served = all(request(p, "GET", paths[0])[0] == 200 for p in list(REPLICA_PORTS.values()) + [NGINX_PORT])
    check(served, "its tiles are served by every replica and through nginx")

    # An upload through one replica is built once and served by all; a delete through another is seen by all.
    make_image(f"{WORK}/upload.jpg", 900, 640)
    with open(f"{WORK}/upload.jpg", "rb") as f:
        status, _, body = request(REPLICA_PORTS["r2"], "POST", "/api/images?name=uploaded.jpg", body=f.read(),
                                  headers={"Authorization": f"Bearer {TOKEN}", "Content-Type": "image/jpeg"})
    check(status in (201, 202), f"an upload through r2 is accepted ({status} {body[:100]!r})")
    uploaded = json.loads(body).get("id", "uploaded") if status in (201, 202) else "uploaded"
    check(wait_until("the upload ready everywhere", lambda: all(
        (image_json(p, uploaded) or {}).get("status") == "ready" for p in REPLICA_PORTS.values()), 60),
        "the uploaded image becomes ready on every replica")
    check(len(builders_of(uploaded)) == 1, f"the upload was built by exactly one replica ({builders_of(uploaded)})")
    status = request(REPLICA_PORTS["r3"], "DELETE", f"/api/images/{uploaded}", headers={"Authorization": f"Bearer {TOKEN}"})[0]
    check(status == 204, f"a delete through r3 answers 204 ({status})")
    check(wait_until("the delete seen everywhere", lambda: all(
        request(p, "GET", f"/api/images/{uploaded}")[0] == 404 for p in REPLICA_PORTS.values()), 30),
        "the deleted image answers 404 on every replica")

    # kill -9 of the replica building a large image: another takes the build over after the lease.
    # Large enough that its build takes seconds here (a 9000 x 7000 one was built in 1.1 s, before the kill), and
    # killed as soon as its builder says it builds: the premise, a build cut short, is checked from the log.
    make_image(f"{IMAGES}/huge.jpg", 16000, 12000)
    check(wait_until("someone building huge", lambda: len(builders_of("huge")) >= 1, 60, interval=0.05),
          "a replica starts building huge")
    first = builders_of("huge")[0]
    processes[first].send_signal(signal.SIGKILL)
    processes[first].wait()
    log(f"killed {first} (kill -9) while it built huge")
    check("built huge:" not in replica_log(first), f"{first} was killed before its build of huge ended")
    survivors = [name for name in REPLICA_PORTS if name != first]
    partial = []
    def poll_huge():
        for name in survivors:
            info = image_json(REPLICA_PORTS[name], "huge")
            if info and info.get("status") == "ready":
                for path in tile_paths(REPLICA_PORTS[name], "huge", 8):
                    status, _, body = request(REPLICA_PORTS[name], "GET", path)
                    if status != 200 or not whole_jpeg(body):
                        partial.append((name, path, status))
            else:
                # A build publishes whole levels as it goes (progressive builds): a tile of one is served
                # while deeper levels build, but only whole, and the same bytes once the image is ready.
                status, _, body = request(REPLICA_PORTS[name], "GET", "/dzi/huge_files/0/0_0.jpeg")
                if status == 200 and whole_jpeg(body):
                    early.append((name, body))
                elif status not in (503, 404):
                    partial.append((name, "level 0 while building", status))
        return all((image_json(REPLICA_PORTS[n], "huge") or {}).get("status") == "ready" for n in survivors)
    early = []
    took_over = wait_until("huge ready on the survivors", poll_huge, 240)
    for name, body in early:
        final = request(REPLICA_PORTS[name], "GET", "/dzi/huge_files/0/0_0.jpeg")[2]
        if body != final:
            partial.append((name, "level 0 served while building differs from the built one", 200))
    check(took_over, f"after kill -9 of {first}, huge becomes ready on the other replicas")
    takers = [b for b in builders_of("huge") if b != first]
    check(len(takers) == 1, f"exactly one other replica took the build over ({takers})")
    check(not partial, f"no partial or wrong tile was served meanwhile ({partial[:3]})")
    start_replica(first)
    check(wait_until(f"{first} back", lambda: ready(REPLICA_PORTS[first]), 60), f"{first} restarts and is ready")
    check(wait_until(f"{first} serves huge", lambda: (image_json(REPLICA_PORTS[first], "huge") or {}).get("status") == "ready", 30),
          f"{first} serves huge without building it again")
    rebuilt = len(re.findall(r"\]: building huge \(", replica_log(first))) - 1
    check(rebuilt == 0, f"the restarted {first} did not build huge again ({rebuilt} more builds)")

    # kill -9 of a replica under tile load through nginx: no failed request (nginx retries GETs).
    load_paths = tile_paths(NGINX_PORT, "newcomer")
    load = TileLoad(NGINX_PORT, load_paths, threads=6, bust_cache=True)
    time.sleep(2)
    victim = "r2"
    processes[victim].send_signal(signal.SIGKILL)
    processes[victim].wait()
    time.sleep(3)
    statuses, errors = load.stop()
    check(not errors and statuses.get(200, 0) > 50,
          f"kill -9 of {victim} under tile load through nginx: {statuses.get(200, 0)} tiles, 0 failed ({errors[:3]})")
    start_replica(victim)
    check(wait_until(f"{victim} back", lambda: ready(REPLICA_PORTS[victim]), 60), f"{victim} restarts and is ready")

    # PostgreSQL restarted under load: ratings 503 + Retry-After meanwhile, tiles keep flowing.
    load = TileLoad(NGINX_PORT, load_paths, threads=4, bust_cache=True)
    rating_answers, stop_rating = [], threading.Event()
    def rate_loop():
        n = 0
        while not stop_rating.is_set():
            # A client of its own for each write (cycling through 500 addresses, each used at most every
            # 25 s): what is checked here is the database's absence, not the write budget.
            status, headers, _ = request(REPLICA_PORTS["r1"], "PUT", "/api/images/seed-0/rating",
                                         body=json.dumps({"rating": n % 11}), headers={"Content-Type": "application/json"},
                                         source=client_address(1100 + n % 500))
            rating_answers.append((time.time(), status, headers.get("retry-after")))
            n += 1
            time.sleep(0.05)
    rater = threading.Thread(target=rate_loop)
    rater.start()
    time.sleep(1)
    pg_stop()
    log("PostgreSQL stopped")
    time.sleep(4)
    pg_start()
    restarted = time.time()
    log("PostgreSQL started again")
    recovered = wait_until("ratings answer again", lambda: rating_answers and rating_answers[-1][1] == 200, 30)
    recovered_after = time.time() - restarted
    time.sleep(1)
    stop_rating.set()
    rater.join()
    statuses, errors = load.stop()
    gap = [a for a in rating_answers if a[1] != 200]
    check(gap and all(status == 503 and retry for _, status, retry in gap),
          f"ratings answered 503 with Retry-After while PostgreSQL was down ({len(gap)} of {len(rating_answers)}; "
          f"others: {sorted({s for _, s, _ in gap} - {503})})")
    check(recovered, f"ratings recover by themselves after the restart ({recovered_after:.1f} s after it)")
    check(not errors and statuses.get(200, 0) > 20,
          f"tiles kept flowing through nginx meanwhile: {statuses.get(200, 0)} tiles, 0 failed ({errors[:3]})")
    check(wait_until("readyz ok again", lambda: all(ready(p) for p in REPLICA_PORTS.values()), 30),
          "every replica is ready again")
    with open(f"{WORK}/nginx-access.log") as f:
        access = f.read()
    check(re.search(r"rid=[0-9a-f]{32} upstream=127\.0\.0\.1:\d+", access) is not None,
          "nginx's access log carries request ids and the replica that answered")


if __name__ == "__main__":
    try:
        main()
    except Exception as error:  # a crash of the test itself is a failure too, never a pass
        failures.append(f"the fleet test stopped: {error!r}")
        log(f"FAIL the fleet test stopped: {error!r}")
    finally:
        cleanup()
    if failures:
        log(f"{len(failures)} check(s) failed")
        sys.exit(1)
    log("all checks passed")
