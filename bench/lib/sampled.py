#!/usr/bin/env python3
"""Runs a command (or one command per file) and samples its memory the same way whatever the tool.

  sampled.py --out F [--log FILE] [--label KEY=VALUE]... -- COMMAND...
  sampled.py --out F [--log FILE] [--label KEY=VALUE]... --each LIST -- COMMAND... {}
      With --each, COMMAND runs once per line of LIST ({} replaced by the line, {name} by its file name
      without folder and extension), one after another, as
      `vips dzsave` is run on each photo of a folder; the figures are the totals (wall, CPU) and the
      peaks over all the runs.

Every 50 ms it reads RssAnon and VmRSS from /proc/PID/status of the process it started (the command
itself, exec'd without a shell or wrapper, so both tools are sampled alike). The kernel keeps no peak of
anonymous memory here (VmHWM is RSS; cgroup v1 has no memory.peak), so the peak is the largest sample.
CPU is the children's user + system time from wait4, exact. Appends one JSON line to F: wall_seconds,
cpu_seconds, peak_anon_mb, peak_rss_mb, runs, samples, and the labels.
"""
import argparse
import json
import os
import sys
import threading
import time

INTERVAL = 0.05


def status_kb(pid):
    """(RssAnon, VmRSS) of a live process in kB, or None once it has exited."""
    values = {}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                key = line.split(":", 1)[0]
                if key in ("RssAnon", "VmRSS"):
                    values[key] = int(line.split()[1])
    except OSError:
        return None
    if "VmRSS" not in values:  # a zombie: its memory is gone
        return None
    return values.get("RssAnon", 0), values["VmRSS"]


def run_one(command, log):
    """Runs command, sampling it; returns (status, wall, cpu, peak_anon_kb, peak_rss_kb, samples)."""
    started = time.monotonic()
    # posix_spawn, not fork and exec: glibc's holds this process until the exec, so no sample is of a copy of
    # this Python (7.6 MB of anonymous memory) taken before the command has started.
    output = log or os.devnull
    actions = [(os.POSIX_SPAWN_OPEN, 1, output, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644),
               (os.POSIX_SPAWN_DUP2, 1, 2)]
    pid = os.posix_spawnp(command[0], command, os.environ, file_actions=actions)
    # The end is taken by a thread blocked in wait4, not by the sampling loop: polled every 50 ms, a
    # 0.3 s build's wall time came out in steps of 50 ms, and dzsave run once a photo paid the step each time.
    ended = threading.Event()
    result = {}

    def reap():
        result["exit"] = os.wait4(pid, 0)
        result["wall"] = time.monotonic() - started
        ended.set()

    threading.Thread(target=reap, daemon=True).start()
    peak_anon = peak_rss = samples = 0
    while not ended.is_set():
        reading = status_kb(pid)
        if reading and not ended.is_set():
            samples += 1
            peak_anon = max(peak_anon, reading[0])
            peak_rss = max(peak_rss, reading[1])
        ended.wait(INTERVAL)
    _, status, usage = result["exit"]
    wall = result["wall"]
    cpu = usage.ru_utime + usage.ru_stime
    return os.waitstatus_to_exitcode(status), wall, cpu, peak_anon, peak_rss, samples


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--out", required=True)
    parser.add_argument("--log")
    parser.add_argument("--label", action="append", default=[])
    parser.add_argument("--each")
    parser.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        sys.exit("sampled.py: no command")
    if args.each:
        with open(args.each) as f:
            lines = [line.strip() for line in f if line.strip()]
        name = lambda path: os.path.splitext(os.path.basename(path))[0]
        commands = [[word.replace("{name}", name(line)).replace("{}", line) for word in command] for line in lines]
    else:
        commands = [command]
    total = {"wall_seconds": 0.0, "cpu_seconds": 0.0, "peak_anon_mb": 0.0, "peak_rss_mb": 0.0, "samples": 0}
    status = 0
    for one in commands:
        status, wall, cpu, anon, rss, samples = run_one(one, args.log)
        total["wall_seconds"] += wall
        total["cpu_seconds"] += cpu
        total["peak_anon_mb"] = max(total["peak_anon_mb"], anon / 1024)
        total["peak_rss_mb"] = max(total["peak_rss_mb"], rss / 1024)
        total["samples"] += samples
        if status != 0:
            break
    record = {"kind": "sampled", "runs": len(commands), "status": status, "load": os.getloadavg()[0]}
    record.update({k: round(v, 4) if isinstance(v, float) else v for k, v in total.items()})
    for pair in args.label:
        key, _, value = pair.partition("=")
        record[key] = value
    with open(args.out, "a") as f:
        f.write(json.dumps(record, sort_keys=True) + "\n")
    sys.exit(status)


if __name__ == "__main__":
    main()
