"""The servers' side of bench/fair.sh: is a server ready, is it quiet.

    python3 server.py ready PORT PID COUNT TIMEOUT   every one of COUNT images listed with status "ready"
    python3 server.py settle TIMEOUT PID [PID ...]    the servers' CPU has dropped to (nearly) nothing

`ready` reads GET /api/images: {"images": [{"id", "status", ...}]}, status being queued, building,
ready or failed; it stops at once when an image failed or the server process is gone.
`settle` is how the run knows that a server has finished the work nobody is waiting for: the AVIF
tiles its builds queue (the fit level, the AVIF previews), renders still running for clients that
have gone. It waits until every PID used under QUIET of a core over each of two successive seconds
(from utime+stime in /proc), or TIMEOUT seconds, and says which.
"""
import json
import os
import sys
import time
import urllib.request

QUIET = 0.05  # of one core
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def alive(pid):
    return os.path.exists(f"/proc/{pid}")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLOCK_TICKS


def listed(port):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/images", timeout=10) as reply:
            return json.load(reply)["images"]
    except (OSError, ValueError, KeyError):
        return None  # not listening yet


def ready(port, pid, count, timeout):
    deadline = time.monotonic() + timeout
    last = ""
    while time.monotonic() < deadline:
        if not alive(pid):
            sys.exit(f"the server (pid {pid}) has exited")
        images = listed(port)
        if images is not None:
            failed = [i["id"] for i in images if i.get("status") == "failed"]
            if failed:
                sys.exit(f"build failed: {failed}")
            done = sum(1 for i in images if i.get("status") == "ready")
            state = f"{done}/{count} images ready on port {port}"
            if state != last:
                print(state, file=sys.stderr)
                last = state
            if len(images) >= count and done == len(images):
                return
        time.sleep(0.5)
    sys.exit(f"not ready after {timeout} s: {last}")


def settle(timeout, pids):
    deadline = time.monotonic() + timeout
    started = time.monotonic()
    quiet_seconds = 0
    before = {pid: cpu_seconds(pid) for pid in pids}
    while time.monotonic() < deadline:
        time.sleep(1.0)
        after = {pid: cpu_seconds(pid) for pid in pids}
        busiest = max(after[pid] - before[pid] for pid in pids)
        before = after
        quiet_seconds = quiet_seconds + 1 if busiest < QUIET else 0
        if quiet_seconds >= 2:
            print(f"servers quiet after {time.monotonic() - started:.0f} s", file=sys.stderr)
            return
    print(f"warning: servers still busy after {timeout} s (last second {busiest:.2f} cores)", file=sys.stderr)
    sys.exit(3)


if __name__ == "__main__":
    command = sys.argv[1]
    if command == "ready":
        ready(int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5]))
    elif command == "settle":
        settle(float(sys.argv[2]), [int(p) for p in sys.argv[3:]])
    else:
        sys.exit(__doc__)
