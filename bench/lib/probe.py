#!/usr/bin/env python3
"""Small HTTP and socket helpers for bench/run.

  probe.py freeport                      print a free TCP port on 127.0.0.1
  probe.py wait-up URL SECONDS PID       wait until URL answers (any status); fail early if PID dies
  probe.py wait-ready BASE SECONDS PID   wait until tilescope lists an image as ready; print shell
                                         assignments IMAGE_ID, IMAGE_WIDTH, IMAGE_HEIGHT,
                                         IMAGE_VERSION, TILE_TEMPLATE
  probe.py status URL                    print "STATUS first-bytes-of-body"
  probe.py same-bytes BASE_A BASE_B FILE N
                                         fetch N paths of FILE from both servers: every one must be
                                         200 with identical bytes and an image/jpeg content type
"""
import json
import os
import shlex
import socket
import sys
import time
import urllib.error
import urllib.request


def fetch(url, timeout=10):
    """(status, headers, body) of a GET; HTTP errors are answers, not exceptions."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as response:
            return response.status, response.headers, response.read()
    except urllib.error.HTTPError as error:
        return error.code, error.headers, error.read()


def alive(pid):
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def freeport():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        print(s.getsockname()[1])


def wait_up(url, seconds, pid):
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if not alive(pid):
            sys.exit(f"probe.py: server (pid {pid}) exited before answering {url}")
        try:
            fetch(url, timeout=2)
            return
        except (urllib.error.URLError, OSError):
            time.sleep(0.1)
    sys.exit(f"probe.py: {url} did not answer within {seconds} s")


def wait_ready(base, seconds, pid):
    deadline = time.monotonic() + seconds
    last_note = 0.0
    while time.monotonic() < deadline:
        if not alive(pid):
            sys.exit(f"probe.py: tilescope (pid {pid}) exited")
        try:
            status, _, body = fetch(base + "/api/images", timeout=5)
        except (urllib.error.URLError, OSError):
            time.sleep(0.2)
            continue
        if status != 200:
            sys.exit(f"probe.py: GET /api/images answered {status}: {body[:300]!r}")
        images = json.loads(body).get("images", [])
        if len(images) != 1:
            sys.exit(f"probe.py: expected exactly one image, /api/images lists {len(images)}")
        image = images[0]
        if image.get("status") == "failed":
            sys.exit(f"probe.py: tilescope failed to build {image.get('id')}: {image.get('reason')}")
        if image.get("status") == "ready":
            template = (image.get("urls") or {}).get("tiles") or \
                f"/dzi/{image['id']}_files/{{level}}/{{col}}_{{row}}.jpeg"
            for key, value in [("IMAGE_ID", image["id"]), ("IMAGE_WIDTH", image["width"]),
                               ("IMAGE_HEIGHT", image["height"]),
                               ("IMAGE_VERSION", image.get("version") or ""),
                               ("TILE_TEMPLATE", template)]:
                print(f"{key}={shlex.quote(str(value))}")
            return
        if time.monotonic() - last_note > 10:
            sys.stderr.write(f"  waiting for tilescope: {image.get('status')} {image.get('progress', '')}\n")
            last_note = time.monotonic()
        time.sleep(0.5)
    sys.exit(f"probe.py: no ready image within {seconds} s")


def status(url):
    code, _, body = fetch(url)
    print(code, body[:300].decode("utf-8", "replace").replace("\n", " "))


def same_bytes(base_a, base_b, path_file, count):
    with open(path_file) as f:
        paths = list(dict.fromkeys(line.strip() for line in f if line.strip()))[:count]
    for path in paths:
        answers = [fetch(base + path) for base in (base_a, base_b)]
        for base, (code, headers, _) in zip((base_a, base_b), answers):
            if code != 200 or not headers.get("Content-Type", "").startswith("image/jpeg"):
                sys.exit(f"probe.py: {base}{path} answered {code} {headers.get('Content-Type')}")
        if answers[0][2] != answers[1][2]:
            sys.exit(f"probe.py: {path} differs between {base_a} and {base_b}")
    print(len(paths))


def main():
    args = sys.argv[1:]
    if args[:1] == ["freeport"]:
        freeport()
    elif args[:1] == ["wait-up"] and len(args) == 4:
        wait_up(args[1], float(args[2]), int(args[3]))
    elif args[:1] == ["wait-ready"] and len(args) == 4:
        wait_ready(args[1], float(args[2]), int(args[3]))
    elif args[:1] == ["status"] and len(args) == 2:
        status(args[1])
    elif args[:1] == ["same-bytes"] and len(args) == 5:
        same_bytes(args[1], args[2], args[3], int(args[4]))
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
