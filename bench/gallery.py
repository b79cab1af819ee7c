#!/usr/bin/env python3
"""A gallery of 100,000 images (issue #13, goal 5; issue 43, goals 3 and 4): a first start to its first
answer, its first listed images and its whole list; memory per image; page latency at the start, middle
and end of the list; the time until a new file is listed, and a hard-linked photo's preview served.

Usage: bench/gallery.py TILESCOPE_BINARY [--count N] [--work DIR]

The images are one tiny JPEG (made once with `vips`) hard-linked N times, so generating them takes
seconds. Hard links share one inode, so every file has the same fingerprint (size, mtime, bytes):
its pyramid is built once with `tilescope build` and hard-linked into every id's pyramid folder, which
is exactly what N builds of the same bytes would produce, without N builds. Both are kept in the work
folder and reused by later runs. Prints a Markdown table; exits non-zero if a step fails.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request


CHUNK = 50_000


def log(message):
    print(f"gallery bench: {message}", file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(port, path, timeout=60):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=timeout) as response:
        return response.status, response.read()


def status_of(port, path):
    try:
        return get(port, path, timeout=5)[0]
    except urllib.error.HTTPError as error:
        return error.code
    except OSError:
        return None


def make_gallery(binary, work, count):
    """The images folder and the data folder with every pyramid published (reused when complete)."""
    images, seed = f"{work}/images", f"{work}/seed"
    marker = f"{work}/complete-{count}"
    if os.path.exists(marker):
        return images
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(images)
    os.makedirs(seed)
    subprocess.run(["vips", "black", f"{seed}/tiny.jpg", "16", "12", "--bands", "3"], check=True)
    stamp = os.stat(f"{seed}/tiny.jpg")
    started = time.monotonic()
    for i in range(count):
        # ext4 allows 65,000 links to a file: a copy (same bytes, size and mtime: same fingerprint) per chunk.
        chunk = f"{seed}/tiny-{i // CHUNK}.jpg"
        if i % CHUNK == 0:
            shutil.copyfile(f"{seed}/tiny.jpg", chunk)
            os.utime(chunk, ns=(stamp.st_atime_ns, stamp.st_mtime_ns))
        os.link(chunk, f"{images}/img-{i:06d}.jpg")
    log(f"{count} images linked in {time.monotonic() - started:.1f} s")
    subprocess.run([binary, "build", f"{seed}/tiny.jpg", "--data", f"{seed}/data"], check=True,
                   stdout=subprocess.DEVNULL)
    (built,) = os.listdir(f"{seed}/data/pyramids")
    (version,) = os.listdir(f"{seed}/data/pyramids/{built}")
    source = f"{seed}/data/pyramids/{built}/{version}"
    files = [os.path.relpath(os.path.join(root, name), source) for root, _, names in os.walk(source) for name in names]
    folders = sorted({os.path.dirname(f) for f in files if os.path.dirname(f)})
    started = time.monotonic()
    for i in range(count):
        if i % CHUNK == 0:
            chunk = f"{seed}/pyramid-{i // CHUNK}"
            shutil.copytree(f"{seed}/data/pyramids/{built}/{version}", chunk)
            source = chunk
        target = f"{work}/data/pyramids/img-{i:06d}/{version}"
        os.makedirs(target)
        for folder in folders:
            os.makedirs(f"{target}/{folder}", exist_ok=True)
        for f in files:
            os.link(f"{source}/{f}", f"{target}/{f}")
    log(f"{count} pyramids linked in {time.monotonic() - started:.1f} s")
    open(marker, "w").close()
    return images


class Server:
    """`tilescope serve` on a free port; `answered` is seconds from exec to the first 200 of `probe`."""

    def __init__(self, binary, images, data, probe):
        self.port = free_port()
        self.log_path = f"{data}.log"
        os.makedirs(data, exist_ok=True)
        self.log_file = open(self.log_path, "w")
        started = time.monotonic()
        self.process = subprocess.Popen(
            [binary, "serve", "--host", "127.0.0.1", "--port", str(self.port), "--images", images, "--data", data,
             "--quiet"], stdout=self.log_file, stderr=self.log_file)
        deadline = started + 900
        while status_of(self.port, probe) != 200:
            if self.process.poll() is not None or time.monotonic() > deadline:
                raise SystemExit(f"the server did not answer {probe}: see {self.log_path}")
            time.sleep(0.005)
        self.answered = time.monotonic() - started

    def wait_for_first_scan(self, timeout=900):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            _, body = get(self.port, "/metrics")
            if any(line.startswith("tilescope_library_full_scans ") and float(line.split()[1]) >= 1
                   for line in body.decode().splitlines()):
                return
            time.sleep(0.05)
        raise SystemExit(f"no full scan finished within {timeout} s: see {self.log_path}")

    def rss_kib(self):
        with open(f"/proc/{self.process.pid}/status") as f:
            return next(int(line.split()[1]) for line in f if line.startswith("VmRSS:"))

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)
        self.log_file.close()


def timed(port, path):
    started = time.monotonic()
    status, body = get(port, path)
    assert status == 200, path
    return (time.monotonic() - started) * 1000, json.loads(body)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("binary")
    parser.add_argument("--count", type=int, default=100_000)
    parser.add_argument("--work", default="/tmp/tilescope-gallery-bench")
    args = parser.parse_args()
    work = f"{args.work}/{args.count}"
    images = make_gallery(args.binary, work, args.count)
    for leftover in ("new-arrival.jpg", "dropped-photo.jpg", ".incoming"):  # from a run that stopped midway
        if os.path.exists(f"{images}/{leftover}"):
            os.remove(f"{images}/{leftover}")
    rows = []

    # Memory baseline: the same server over an empty folder.
    os.makedirs(f"{work}/empty-images", exist_ok=True)
    shutil.rmtree(f"{work}/empty-data", ignore_errors=True)
    empty = Server(args.binary, f"{work}/empty-images", f"{work}/empty-data", "/api/images?limit=1")
    get(empty.port, "/api/images?limit=100")
    empty_rss = empty.rss_kib()
    empty.stop()

    # First start with this data folder: no catalog yet (the pyramids are there, as the folder's
    # files would find them), so the first scan lists the folder in batches after listening.
    data = f"{work}/data"
    if os.path.exists(f"{data}/catalog.sqlite"):
        for suffix in ("", "-wal", "-shm"):
            if os.path.exists(f"{data}/catalog.sqlite{suffix}"):
                os.remove(f"{data}/catalog.sqlite{suffix}")
    first = Server(args.binary, images, data, "/healthz")
    rows.append(("first start (no catalog yet): exec to first answer (/healthz)", f"{first.answered:.2f} s"))
    started = time.monotonic() - first.answered
    listed = 0
    while listed == 0:
        listed = json.loads(get(first.port, "/api/images?limit=1")[1])["count"]
    rows.append((f"first start: exec to a first non-empty list ({listed} images listed then)",
                 f"{time.monotonic() - started:.2f} s"))
    while status_of(first.port, "/readyz") != 200:
        time.sleep(0.01)
    count = json.loads(get(first.port, "/api/images?limit=1")[1])["count"]
    assert count == args.count, count
    rows.append((f"first start: exec to /readyz 200 (first scan done, {count} images listed)", f"{time.monotonic() - started:.2f} s"))
    first.stop()

    # Restart: served from the catalog at once, the folder scanned in the background.
    server = Server(args.binary, images, data, "/api/images?limit=1")
    restored_rss = server.rss_kib()
    port = server.port
    _, answer = timed(port, "/api/images?limit=1")
    assert answer["count"] == args.count, answer["count"]
    rows.append(("restart: exec to first answer (count already %d)" % answer["count"], f"{server.answered:.2f} s"))
    started = time.monotonic()
    server.wait_for_first_scan()
    rows.append(("restart: background full scan finished after", f"{server.answered + time.monotonic() - started:.1f} s"))

    # Pages: the whole list in pages of 100, timing each (the first request also sorts the name order).
    first_ms, page = timed(port, "/api/images?limit=100")
    times, cursor = [], page["next"]
    while cursor:
        ms, page = timed(port, f"/api/images?limit=100&cursor={cursor}")
        times.append(ms)
        cursor = page["next"]
    rows.append(("GET /api/images?limit=100, first request after start (sorts the name order)", f"{first_ms:.1f} ms"))
    rows.append((f"  then each of {len(times) + 1} pages: start / middle / end / median",
                 f"{timed(port, '/api/images?limit=100')[0]:.1f} / {times[len(times) // 2]:.1f} / {times[-1]:.1f} / "
                 f"{statistics.median(times):.1f} ms"))
    gallery = [timed(port, f"/api/gallery?page={p}")[0] for p in (0, args.count // 2, args.count - 1)]
    rows.append(("GET /api/gallery?page=N at start / middle / end", " / ".join(f"{ms:.1f}" for ms in gallery) + " ms"))
    # Memory after the first scan and a walk through every page (the name order is cached by then),
    # before the one unpaged list below, whose 100,000-image JSON is a large transient of its own.
    rss = server.rss_kib()
    rows.append(("RSS: empty folder / %d images at the restart's first answer / after the scan and the walk" % args.count,
                 f"{empty_rss / 1024:.0f} / {restored_rss / 1024:.0f} / {rss / 1024:.0f} MiB"))
    rows.append(("memory per image ((RSS - empty RSS) / count)", f"{(rss - empty_rss) * 1024 / args.count:.0f} bytes"))
    rows.append(("GET /api/images (no limit: every image, as before paging)", f"{timed(port, '/api/images')[0]:.0f} ms"))

    # A new file: written under a hidden name, renamed in, then polled for until its id answers.
    seed = f"{work}/seed/tiny.jpg"
    shutil.copyfile(seed, f"{images}/.incoming")
    started = time.monotonic()
    os.rename(f"{images}/.incoming", f"{images}/new-arrival.jpg")
    while status_of(port, "/api/images/new-arrival") != 200:
        if time.monotonic() - started > 120:
            raise SystemExit("the new file was not noticed within 120 s")
        time.sleep(0.01)
    rows.append(("a new file renamed in: listed after (rescan interval 2 s, settle 2 s)", f"{time.monotonic() - started:.2f} s"))

    # A photo written outside the folder just now (so --settle alone would hold it), then hard-linked in:
    # listed, then its preview served (the build's first published level).
    photo = f"{work}/seed/photo.jpg"
    if os.path.exists(photo):
        os.remove(photo)
    subprocess.run(["vips", "gaussnoise", photo, "4000", "3000"], check=True)
    started = time.monotonic()
    os.link(photo, f"{images}/dropped-photo.jpg")
    while status_of(port, "/api/images/dropped-photo") != 200:
        if time.monotonic() - started > 120:
            raise SystemExit("the hard-linked file was not noticed within 120 s")
        time.sleep(0.005)
    rows.append(("a 4000x3000 photo hard-linked in: listed after", f"{time.monotonic() - started:.2f} s"))
    preview = json.loads(get(port, "/api/images/dropped-photo")[1])["urls"]["preview"]
    while status_of(port, preview) != 200:
        if time.monotonic() - started > 300:
            raise SystemExit("the hard-linked file's preview was not served within 300 s")
        time.sleep(0.005)
    rows.append(("  its preview served after (from the link)", f"{time.monotonic() - started:.2f} s"))
    server.stop()
    os.remove(f"{images}/new-arrival.jpg")
    os.remove(f"{images}/dropped-photo.jpg")

    print(f"| {args.count} images | |\n|---|---|")
    for name, value in rows:
        print(f"| {name} | {value} |")


if __name__ == "__main__":
    main()
