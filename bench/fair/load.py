"""Clients for bench/fair.sh (issue 41): can one greedy client slow everyone else's renders?

    python3 load.py run --port P --server-pid PID --seconds S [--warmup W] --out results.jsonl \
        [--tag key=value ...] ROLE [ROLE ...]

ROLE is one of (each from its own loopback address, so a server can tell the clients apart):
    greedy            127.0.0.1, --greedy-connections keep-alive connections, each asking as fast as it can
                      for random IIIF renders of `photo`; a 429 or 503 is retried at once
    greedy4           four greedy clients, 127.0.0.4-7, --greedy4-connections each
    viewer            127.0.0.2, hot Deep Zoom tiles of `photo` at a fixed --viewer-rate over
                      --viewer-connections, paced by absolute time
    modest            127.0.0.3, a few moderate IIIF regions a second (--modest-rate), as Mirador asks
    avif              127.0.0.1, --avif-connections asking for distinct Deep Zoom tiles of `photo` as AVIF
    firstview:A,B,..  127.0.0.8, one first view of each image A, B, ... in turn: the image record, its
                      preview and every tile of the level that fits 1280x800, on 6 connections like a
                      browser; with firstview the run ends when the last view is done, not after S seconds

Each role runs in processes of its own (threads inside), so that one role's threads never hold the
GIL while another role's clock is running; the greedy client and the AVIF flood are spread over
--greedy-processes processes, as many as the four greedy clients have. All roles start together;
only requests that end after the first W seconds (warm-up) and before the stop count. The parent
reads the server's CPU (utime+stime) and memory from /proc over the same window, makes the figures
(exact percentiles) and appends one JSON line per run to --out. Standard library only.
"""
import argparse
import ctypes
import http.client
import json
import math
import multiprocessing
import os
import queue
import random
import signal
import statistics
import sys
import threading
import time

GREEDY = "127.0.0.1"
VIEWER = "127.0.0.2"
MODEST = "127.0.0.3"
GREEDY4 = ["127.0.0.4", "127.0.0.5", "127.0.0.6", "127.0.0.7"]
FIRST_VIEW = "127.0.0.8"
AVIF = GREEDY  # the AVIF flood is the greedy client too
BROWSER_ACCEPT = "image/avif,image/webp,image/apng,image/*,*/*;q=0.8"  # Chromium's, without image/jxl
VIEWPORT = (1280, 800)
BROWSER_CONNECTIONS = 6  # a browser's connections to one HTTP/1.1 origin
HOT_TILES = 256


# ---------------------------------------------------------------- HTTP

class Connection:
    """One keep-alive HTTP/1.1 connection from a fixed source address. Any failure closes it and the
    next request opens a new one (as a browser would), so a server closing or refusing connections
    shows up as errors rather than stopping the client."""

    def __init__(self, host, port, source, timeout=60.0):
        self.host, self.port, self.source, self.timeout = host, port, source, timeout
        self.http = None

    def get(self, path, headers=None):
        """-> (status, body, reply headers, seconds). status 0: no answer (connection error or timeout)."""
        start = time.perf_counter()
        try:
            if self.http is None:
                self.http = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout,
                                                       source_address=(self.source, 0))
            self.http.request("GET", path, headers=headers or {})
            reply = self.http.getresponse()
            body = reply.read()
            if reply.will_close:  # Connection: close, or HTTP/1.0
                self.close()
            return reply.status, body, reply.headers, time.perf_counter() - start
        except (OSError, http.client.HTTPException):
            self.close()
            return 0, b"", None, time.perf_counter() - start

    def close(self):
        if self.http is not None:
            self.http.close()
            self.http = None


def get_json(host, port, path, source=GREEDY):
    status, body, _, _ = Connection(host, port, source).get(path)
    if status != 200:
        raise SystemExit(f"GET {path}: status {status}")
    return json.loads(body)


def interim(headers):
    """An answer the server marks as a stand-in for a tile or preview not made yet in the format asked
    for (docs/api.md#tile-formats: ETag ending -interim, Server-Timing tile;desc=interim)."""
    if headers is None:
        return False
    return "-interim" in headers.get("ETag", "") or "desc=interim" in headers.get("Server-Timing", "")


def jpeg_size(data):
    """(width, height) from a JPEG's SOF segment, or None: the pixels a render really produced
    (an arbitrary rotation makes the picture larger than the size asked for)."""
    if data[:2] != b"\xff\xd8":
        return None
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            return None
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        if marker == 0x01 or 0xD0 <= marker <= 0xD8:  # segments without a length
            i += 2
            continue
        if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
            return int.from_bytes(data[i + 7:i + 9], "big"), int.from_bytes(data[i + 5:i + 7], "big")
        i += 2 + int.from_bytes(data[i + 2:i + 4], "big")
    return None


# ---------------------------------------------------------------- what the clients ask for

def tile_path(template, level, col, row):
    return template.replace("{level}", str(level)).replace("{col}", str(col)).replace("{row}", str(row))


def level_size(image, level):
    """Width and height of a Deep Zoom level: each level halves the next, rounding up."""
    scale = 2 ** (image["maxLevel"] - level)
    return math.ceil(image["width"] / scale), math.ceil(image["height"] / scale)


def level_tiles(image, level):
    width, height = level_size(image, level)
    size = image["tileSize"]
    return [(level, col, row) for row in range(math.ceil(height / size)) for col in range(math.ceil(width / size))]


def fit_level(image, viewport=VIEWPORT):
    """The coarsest level at least as large as the image shown whole in the viewport (never upscaled):
    what a viewer needs to draw a first view sharply at DPR 1."""
    scale = min(1.0, viewport[0] / image["width"], viewport[1] / image["height"])
    shown = (image["width"] * scale, image["height"] * scale)
    for level in range(image["maxLevel"] + 1):
        width, height = level_size(image, level)
        if width >= shown[0] - 0.5 and height >= shown[1] - 0.5:
            return level
    return image["maxLevel"]


def first_view_urls(image, wanted):
    """(format, {"tiles": template, "preview": url}) in the format asked for; "auto" takes what the browser client
    takes (Public/js/tiles/TileFormat.js): AVIF, then WebP, of those the record's urls.formats offers,
    else the record's own (JPEG) urls."""
    offered = image["urls"].get("formats", {})
    for name in (["avif", "webp"] if wanted == "auto" else [wanted]):
        if name in offered:
            return name, offered[name]
    return "jpeg", image["urls"]


def hot_tile_paths(image, rng):
    """HOT_TILES tiles of the image, weighted toward the deep levels as a zoomed-in viewer asks (as
    bench/lib/urls.py does: the deepest level half of them, the next a quarter, ...)."""
    template = image["urls"]["tiles"]
    levels = {level: level_tiles(image, level) for level in range(image["maxLevel"] + 1)}
    wanted = min(HOT_TILES, sum(len(tiles) for tiles in levels.values()))
    paths = set()
    while len(paths) < wanted:
        level = image["maxLevel"]
        while level > 0 and rng.random() < 0.5:
            level -= 1
        paths.add(tile_path(template, *rng.choice(levels[level])))
    return sorted(paths)


def rotation(rng, arbitrary):
    """0, 90, 180 or 270, or (if info.json lists rotationArbitrary) as often any angle."""
    choice = rng.randrange(5 if arbitrary else 4)
    if choice < 4:
        return str(choice * 90)
    return f"{rng.uniform(0.01, 359.99):.2f}".rstrip("0").rstrip(".")


def greedy_path(rng, prefix, info):
    """A random region anywhere in the image at a random width of 64-1200 (never above the region's,
    so no upscaling), at a random rotation: all distinct, so no cache can answer them."""
    width, height = info["width"], info["height"]
    w = rng.randint(256, width)
    h = max(64, min(height, round(w * rng.uniform(0.5, 2.0))))
    x, y = rng.randint(0, width - w), rng.randint(0, height - h)
    out = rng.randint(64, min(1200, w))
    return f"{prefix}/{x},{y},{w},{h}/{out},/{rotation(rng, info['arbitrary'])}/default.jpg"


def modest_path(rng, prefix, info):
    """Someone panning around an image in Mirador: a region of 500-2000 pixels a side at 256-800
    pixels wide, upright."""
    w = min(info["width"], rng.randint(500, 2000))
    h = min(info["height"], rng.randint(500, 2000))
    x, y = rng.randint(0, info["width"] - w), rng.randint(0, info["height"] - h)
    return f"{prefix}/{x},{y},{w},{h}/{rng.randint(256, min(800, w))},/0/default.jpg"


# ---------------------------------------------------------------- the clients (each kind in processes of its own)

class Client:
    """Threads that make requests until `stop` is set, each appending (end, status, seconds, bytes,
    pixels, extra) to a list of its own (an append is atomic under the GIL). `records(begin, end)` is
    what ended in the measured window; the parent process makes the figures from them."""

    def __init__(self, ctx, source, seed):
        self.ctx, self.source = ctx, source
        self.rng = random.Random(seed)
        self.stop = threading.Event()
        self.lists = []

    def connection(self):
        return Connection(self.ctx["host"], self.ctx["port"], self.source)

    def start_threads(self, count, target):
        for index in range(count):
            records = []
            self.lists.append(records)
            rng = random.Random(self.rng.getrandbits(32))
            threading.Thread(target=target, args=(index, records, rng), daemon=True).start()

    def records(self, begin, end):
        # Copies first: threads still running may append while we read.
        return [r for records in list(self.lists) for r in list(records) if begin <= r[0] <= end]


class Greedy(Client):
    """Random IIIF renders as fast as `connections` connections go. Greedy: it honours nothing; a 429
    or 503 is asked again at once (its Retry-After only noted), an error reconnects at once."""

    def start(self, connections):
        self.start_threads(connections, self.loop)

    def loop(self, index, records, rng):
        connection = self.connection()
        prefix, info = self.ctx["iiif_prefix"], self.ctx["info"]
        while not self.stop.is_set():
            path = greedy_path(rng, prefix, info)
            while not self.stop.is_set():
                status, body, headers, seconds = connection.get(path)
                pixels = 0
                if status == 200:
                    size = jpeg_size(body)
                    pixels = size[0] * size[1] if size else 0
                retry_after = headers.get("Retry-After") if headers is not None and status != 200 else None
                records.append((time.monotonic(), status, seconds, len(body), pixels, retry_after))
                if status == 0:
                    time.sleep(0.001)  # a refused connect fails at once: do not spin the client's CPU
                elif status not in (429, 503):
                    break


class Paced(Client):
    """A client at a fixed request rate over a few connections. Each connection's sends are scheduled
    by absolute time (start + phase + i * interval), so a slow reply does not lower the rate: the
    connection catches up by sending at once. extra = (how late the send was, end - scheduled send)."""

    def start(self, rate, connections, make_path):
        self.rate, self.connections, self.make_path = rate, connections, make_path
        self.start_threads(connections, self.loop)

    def loop(self, index, records, rng):
        connection = self.connection()
        interval = self.connections / self.rate
        begin = self.ctx["start"] + index / self.rate
        sent = 0
        while not self.stop.is_set():
            scheduled = begin + sent * interval
            delay = scheduled - time.monotonic()
            if delay > 0 and self.stop.wait(delay):
                break
            late = time.monotonic() - scheduled
            status, body, _, seconds = connection.get(self.make_path(rng))
            end = time.monotonic()
            records.append((end, status, seconds, len(body), 0, (late, end - scheduled)))
            sent += 1


class AvifFlood(Client):
    """Distinct Deep Zoom tiles of the image as AVIF, as fast as the connections go: every tile of every
    level once, shuffled, then again in a new order (by then the server may have made some).
    extra = "interim" for a stand-in, else the answer's Content-Type."""

    def start(self, connections, share):
        image = self.ctx["photo"]
        template = image["urls"].get("formats", {}).get("avif", {}).get("tiles")
        if template is None:
            raise SystemExit(f"{image['id']} offers no AVIF tiles (urls.formats.avif): no AV1 encoder?")
        paths = [tile_path(template, *t) for level in range(image["maxLevel"] + 1) for t in level_tiles(image, level)]
        # The flood's processes share the tiles out between them (the same shuffle in each, then every
        # count-th), so that no tile is asked for twice in a round.
        random.Random(self.ctx["args"].seed).shuffle(paths)
        index, count = share
        self.paths = paths[index::count]
        self.order, self.lock = [], threading.Lock()
        self.start_threads(connections, self.loop)

    def next_path(self):
        with self.lock:
            if not self.order:
                self.order = self.paths[:]
                self.rng.shuffle(self.order)
            return self.order.pop()

    def loop(self, index, records, rng):
        connection = self.connection()
        headers = {"Accept": "image/avif,*/*"}
        while not self.stop.is_set():
            status, body, reply_headers, seconds = connection.get(self.next_path(), headers)
            kind = "interim" if interim(reply_headers) else \
                reply_headers.get("Content-Type", "") if reply_headers is not None else ""
            records.append((time.monotonic(), status, seconds, len(body), 0, kind))
            if status == 0:
                time.sleep(0.001)  # as the greedy client


class FirstView(Client):
    """One image's first view after another, as a browser makes it: the image record, then the preview
    and every tile of the level that fits the viewport, on 6 fresh connections. One record per view:
    (end, image id, seconds, requests, non-200 answers, bytes, level, format, stand-in answers)."""

    def start(self, image_ids, gap):
        self.done = threading.Event()
        self.lists.append([])
        threading.Thread(target=self.views, args=(image_ids, gap, self.lists[0]), daemon=True).start()

    def views(self, image_ids, gap, records):
        for image_id in image_ids:
            if self.stop.is_set():
                break
            records.append(self.view(image_id))
            self.stop.wait(gap)  # apart, so that one view's tail does not overlap the next
        self.done.set()

    def view(self, image_id):
        start = time.perf_counter()
        first = self.connection()
        status, body, _, _ = first.get(f"/api/images/{image_id}", {"Accept": "application/json"})
        if status != 200:
            return time.monotonic(), image_id, time.perf_counter() - start, 1, 1, len(body), None, None, 0
        image = json.loads(body)
        format_name, urls = first_view_urls(image, self.ctx["first_view_format"])
        paths = queue.Queue()
        paths.put(urls["preview"])
        level = fit_level(image)
        for tile in level_tiles(image, level):
            paths.put(tile_path(urls["tiles"], *tile))
        requests = paths.qsize() + 1
        answers = []
        fetchers = [threading.Thread(target=self.fetch, args=(first if i == 0 else self.connection(), paths, answers))
                    for i in range(BROWSER_CONNECTIONS)]
        for fetcher in fetchers:
            fetcher.start()
        for fetcher in fetchers:
            fetcher.join()
        seconds = time.perf_counter() - start
        return (time.monotonic(), image_id, seconds, requests, sum(1 for a in answers if a[0] != 200),
                sum(a[1] for a in answers) + len(body), level, format_name, sum(1 for a in answers if a[2]))

    def fetch(self, connection, paths, answers):
        while True:
            try:
                path = paths.get_nowait()
            except queue.Empty:
                break
            status, body, headers, _ = connection.get(path, {"Accept": BROWSER_ACCEPT})
            answers.append((status, len(body), interim(headers)))
        connection.close()


# ---------------------------------------------------------------- the figures (in the parent process)

def summarise(kind, records, window, args):
    ok = [r for r in records if r[1] == 200]
    if kind == "greedy":
        retry_after = sorted(float(r[5]) for r in records if r[5] is not None and _is_number(r[5]))
        return {
            "requests": len(records),
            "ok": len(ok),
            "ok_per_s": len(ok) / window,
            "megapixels_per_s": sum(r[4] for r in ok) / 1e6 / window,
            "status_429": sum(1 for r in records if r[1] == 429),
            "status_503": sum(1 for r in records if r[1] == 503),
            "other_non_200": sum(1 for r in records if r[1] not in (0, 200, 429, 503)),
            "errors": sum(1 for r in records if r[1] == 0),
            "retry_after_min": retry_after[0] if retry_after else None,
            "retry_after_median": percentile(retry_after, 50),
            "retry_after_max": retry_after[-1] if retry_after else None,
            **latency_summary([r[2] for r in ok]),
        }
    if kind in ("viewer", "modest"):
        rate, connections = (args.viewer_rate, args.viewer_connections) if kind == "viewer" else \
            (args.modest_rate, args.modest_connections)
        return {
            "target_per_s": rate,
            "connections": connections,
            "achieved_per_s": len(records) / window,
            "requests": len(records),
            "ok": len(ok),
            "non_200": len(records) - len(ok),
            "errors": sum(1 for r in records if r[1] == 0),
            "late_sends": sum(1 for r in records if r[5][0] > connections / rate),
            # From the scheduled send, not the actual one: with the wait behind a slow reply.
            "p99_from_schedule_ms": ms(percentile(sorted(r[5][1] for r in ok), 99)),
            **latency_summary([r[2] for r in ok]),
        }
    if kind == "avif":
        return {
            "requests": len(records),
            "ok_per_s": len(ok) / window,
            "avif_answers": sum(1 for r in ok if r[5] == "image/avif"),
            "interim_answers": sum(1 for r in ok if r[5] == "interim"),
            "non_200": len(records) - len(ok),
            "errors": sum(1 for r in records if r[1] == 0),
            **latency_summary([r[2] for r in ok]),
        }
    views = [{"image": r[1], "seconds": round(r[2], 4), "requests": r[3], "non_200": r[4], "bytes": r[5],
              "level": r[6], "format": r[7], "interim": r[8]} for r in records]
    return {
        "views": views,
        "format": next((v["format"] for v in views if v["format"]), None),
        "median_s": statistics.median(v["seconds"] for v in views) if views else None,
        "non_200": sum(v["non_200"] for v in views),
    }


# ---------------------------------------------------------------- statistics

def _is_number(text):
    try:
        float(text)
        return True
    except ValueError:
        return False


def percentile(sorted_values, p):
    """Exact percentile by nearest rank: the smallest value with at least p % of the values at or below it."""
    if not sorted_values:
        return None
    return sorted_values[max(0, math.ceil(p / 100 * len(sorted_values)) - 1)]


def ms(seconds):
    return None if seconds is None else round(seconds * 1000, 3)


def latency_summary(seconds):
    values = sorted(seconds)
    return {"p50_ms": ms(percentile(values, 50)), "p99_ms": ms(percentile(values, 99)),
            "max_ms": ms(values[-1] if values else None)}


# ---------------------------------------------------------------- the server, from /proc

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    """utime + stime of the process (all its threads)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def memory_kb(pid):
    """(VmRSS, VmHWM) in kB."""
    values = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, rest = line.partition(":")
            if key in ("VmRSS", "VmHWM"):
                values[key] = int(rest.split()[0])
    return values.get("VmRSS", 0), values.get("VmHWM", 0)


# ---------------------------------------------------------------- running a scenario

def die_with_parent():
    """A role process must not outlive the run (Ctrl-C, or bench/fair.sh stopping it): ask the
    kernel for SIGKILL when the parent goes."""
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def role_process(ctx, part, seed, stop, results):
    """One process of one client: starts its threads at ctx["start"], sends its measured records to
    the parent when told to stop, and exits without waiting for replies still on their way."""
    die_with_parent()
    kind, name, source, connections, share = part
    if kind in ("greedy", "avif"):
        # The flooding clients share the machine with the measuring ones (viewer, modest, first views):
        # niced, their own CPU use (429s can come back as fast as they are asked) does not delay the
        # measuring clients' threads, whose latencies are meant to be the server's.
        os.nice(10)
    time.sleep(max(0.0, ctx["start"] - time.monotonic()))
    args = ctx["args"]
    if kind == "greedy":
        client = Greedy(ctx, source, seed)
        client.start(connections)
    elif kind == "viewer":
        client = Paced(ctx, source, seed)
        hot = ctx["hot_tiles"]
        client.start(args.viewer_rate, connections, lambda rng: rng.choice(hot))
    elif kind == "modest":
        client = Paced(ctx, source, seed)
        prefix, info = ctx["iiif_prefix"], ctx["info"]
        client.start(args.modest_rate, connections, lambda rng: modest_path(rng, prefix, info))
    elif kind == "avif":
        client = AvifFlood(ctx, source, seed)
        client.start(connections, share)
    else:  # firstview: after the warm-up, so that the flood it meets is in full swing
        client = FirstView(ctx, source, seed)
        time.sleep(max(0.0, ctx["measure_from"] - time.monotonic()))
        client.start(ctx["first_view_images"], args.first_view_gap)
        while not client.done.wait(0.2) and not stop.is_set():
            pass
        if client.done.is_set():
            results.put(("done", name))
    stop.wait()
    client.stop.set()
    results.put(("records", name, client.records(ctx["measure_from"], ctx["stop_at"].value)))
    results.close()
    results.join_thread()
    os._exit(0)  # threads still waiting on a reply die with the process


def spread(kind, name, address, connections, processes):
    """One client's connections spread over processes as evenly as they go."""
    processes = max(1, min(processes, connections))
    counts = [connections // processes + (1 if i < connections % processes else 0) for i in range(processes)]
    return [(kind, name, address, n, (i, processes)) for i, n in enumerate(counts)]


def expand_roles(specs, args):
    """ROLE arguments -> {name: (kind, address)} and the processes:
    [(kind, name, address, connections, (this process's index, processes of the client))]
    The greedy client alone runs in as many processes as the four greedy clients together
    (--greedy-processes), so that the two scenarios differ only in the addresses the server sees."""
    roles, parts = {}, []
    for spec in specs:
        kind = spec.split(":", 1)[0]
        if kind == "greedy":
            roles["greedy"] = ("greedy", GREEDY)
            parts += spread("greedy", "greedy", GREEDY, args.greedy_connections, args.greedy_processes)
        elif kind == "greedy4":
            for address in GREEDY4:
                roles[f"greedy-{address}"] = ("greedy", address)
                parts.append(("greedy", f"greedy-{address}", address, args.greedy4_connections, (0, 1)))
        elif kind in ("viewer", "modest"):
            address = VIEWER if kind == "viewer" else MODEST
            roles[kind] = (kind, address)
            parts.append((kind, kind, address, args.viewer_connections if kind == "viewer" else args.modest_connections, (0, 1)))
        elif kind == "avif":
            roles["avif"] = ("avif", AVIF)
            parts += spread("avif", "avif", AVIF, args.avif_connections, args.greedy_processes)
        elif kind == "firstview":
            roles["firstview"] = ("firstview", FIRST_VIEW)
            parts.append(("firstview", "firstview", FIRST_VIEW, BROWSER_CONNECTIONS, (0, 1)))
        else:
            raise SystemExit(f"unknown role {spec}")
    return roles, parts


def prepare(args):
    """What every role needs to know, read once from the server: the image records, info.json, and
    the viewer's hot tiles, fetched twice each so that they are hot."""
    images = {image["id"]: image for image in get_json(args.host, args.port, "/api/images")["images"]}
    photo = images[args.image]
    info_doc = get_json(args.host, args.port, f"/iiif/3/{args.image}/info.json")
    info = {"width": info_doc["width"], "height": info_doc["height"],
            "arbitrary": "rotationArbitrary" in info_doc.get("extraFeatures", [])}
    first_view_images = []
    for spec in args.roles:
        if spec.startswith("firstview:"):
            first_view_images = [i for i in spec.split(":", 1)[1].split(",") if i]
            missing = [i for i in first_view_images if i not in images]
            if missing:
                raise SystemExit(f"first-view images not listed by the server: {missing}")
    ctx = {"host": args.host, "port": args.port, "photo": photo, "info": info,
           "iiif_prefix": f"/iiif/3/{args.image}", "first_view_images": first_view_images,
           "first_view_format": args.first_view_format, "hot_tiles": [], "args": args}
    if any(spec == "viewer" for spec in args.roles):
        ctx["hot_tiles"] = hot_tile_paths(photo, random.Random(args.seed))
        warm = Connection(args.host, args.port, VIEWER)
        for _ in range(2):
            for path in ctx["hot_tiles"]:
                status, _, _, _ = warm.get(path)
                if status != 200:
                    raise SystemExit(f"hot tile {path}: status {status}")
    return ctx


def run(args):
    ctx = prepare(args)
    roles, parts = expand_roles(args.roles, args)
    fork = multiprocessing.get_context("fork")
    stop, results = fork.Event(), fork.Queue()
    start = time.monotonic() + 0.5  # time for every process to be forked and waiting
    ctx.update(start=start, measure_from=start + args.warmup, stop_at=fork.Value("d", 0.0))
    processes = [fork.Process(target=role_process, daemon=True,
                              args=(ctx, part, args.seed * 1000 + index, stop, results))
                 for index, part in enumerate(parts)]
    for process in processes:
        process.start()

    time.sleep(max(0.0, ctx["measure_from"] - time.monotonic()))
    cpu_before = cpu_seconds(args.server_pid)
    if "firstview" in roles:
        wait_for_first_views(args, processes, results)
    else:
        time.sleep(max(0.0, ctx["measure_from"] + args.seconds - time.monotonic()))
    ctx["stop_at"].value = time.monotonic()
    cpu = cpu_seconds(args.server_pid) - cpu_before
    rss, hwm = memory_kb(args.server_pid)
    stop.set()

    records = {name: [] for name in roles}
    for _ in parts:
        message = None
        while message is None or message[0] != "records":
            try:
                message = results.get(timeout=30)
            except queue.Empty:
                raise SystemExit("a client process sent no records")
        records[message[1]] += message[2]
    for process in processes:
        process.join(timeout=5)

    window = ctx["stop_at"].value - ctx["measure_from"]
    summaries = {}
    for name, (kind, address) in roles.items():
        summaries[name] = {"kind": kind, "address": address, **summarise(kind, records[name], window, args)}
    record = dict(tag.split("=", 1) for tag in args.tag)
    record.update(roles=summaries, window_s=round(window, 3), server_cpu_s=round(cpu, 3),
                  server_cores=round(cpu / window, 3) if window > 0 else None, rss_kb=rss, hwm_kb=hwm,
                  seconds=args.seconds, warmup_s=args.warmup, greedy_connections=args.greedy_connections,
                  greedy_processes=args.greedy_processes, greedy4_connections=args.greedy4_connections,
                  avif_connections=args.avif_connections)
    with open(args.out, "a") as f:
        f.write(json.dumps(record) + "\n")
    print(brief(record), file=sys.stderr)


def wait_for_first_views(args, processes, results):
    deadline = time.monotonic() + args.max_seconds
    while time.monotonic() < deadline:
        if any(process.exitcode is not None for process in processes):
            raise SystemExit("a client process ended early")
        try:
            if results.get(timeout=1.0)[0] == "done":
                return
        except queue.Empty:
            pass
    print(f"warning: the first views took more than {args.max_seconds} s", file=sys.stderr)


def brief(record):
    """One line for the log as the run goes."""
    parts = [f"{record.get('binary', '')} {record.get('scenario', '')}: {record['window_s']:.1f} s,"
             f" server {record['server_cores']:.2f} cores"]
    for name, s in sorted(record["roles"].items()):
        if s["kind"] == "greedy":
            parts.append(f"{name} {s['ok_per_s']:.1f} ok/s {s['megapixels_per_s']:.1f} MP/s 429x{s['status_429']}")
        elif s["kind"] in ("viewer", "modest"):
            parts.append(f"{name} {s['achieved_per_s']:.1f}/s p50 {s['p50_ms']} p99 {s['p99_ms']} ms"
                         f" non-200 {s['non_200']} late {s['late_sends']}")
        elif s["kind"] == "avif":
            parts.append(f"avif {s['ok_per_s']:.1f} ok/s, {s['interim_answers']} stand-ins, {s['avif_answers']} AVIF")
        else:
            median = "-" if s["median_s"] is None else f"{s['median_s']:.3f}"
            parts.append(f"first view median {median} s, stand-ins {sum(v['interim'] for v in s['views'])}")
    return "; ".join(parts)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("run")
    r.add_argument("--host", default="127.0.0.1")
    r.add_argument("--port", type=int, required=True)
    r.add_argument("--server-pid", type=int, required=True)
    r.add_argument("--seconds", type=float, default=30, help="measured seconds (without firstview)")
    r.add_argument("--warmup", type=float, default=2, help="seconds run but not counted")
    r.add_argument("--max-seconds", type=float, default=600, help="longest a firstview run may take")
    r.add_argument("--image", default="photo", help="the image the greedy, viewer, modest and avif clients use")
    r.add_argument("--greedy-connections", type=int, default=60)
    r.add_argument("--greedy-processes", type=int, default=4,
                   help="processes the greedy client's (and the AVIF flood's) connections are spread over")
    r.add_argument("--greedy4-connections", type=int, default=15)
    r.add_argument("--viewer-rate", type=float, default=500)
    r.add_argument("--viewer-connections", type=int, default=8)
    r.add_argument("--modest-rate", type=float, default=5)
    r.add_argument("--modest-connections", type=int, default=2)
    r.add_argument("--avif-connections", type=int, default=60)
    r.add_argument("--first-view-format", default="auto", choices=["auto", "jpeg", "webp", "avif"],
                   help="auto: as the browser client picks (AVIF, WebP, JPEG: the first the server offers)")
    r.add_argument("--first-view-gap", type=float, default=0.5, help="seconds between two first views")
    r.add_argument("--seed", type=int, default=41)
    r.add_argument("--tag", action="append", default=[], help="key=value copied into the JSON line")
    r.add_argument("--out", required=True)
    r.add_argument("roles", nargs="+")
    args = parser.parse_args()
    run(args)


if __name__ == "__main__":
    main()
