#!/usr/bin/env python3
"""Measurements for bench/run, each appended as one JSON line to a results file.

  measure.py wrk   --out F --pid PID --base URL --paths FILE --conns C --threads T
                   --duration S --label KEY=VALUE...
      Runs wrk with lib/cycle.lua over the path list and records requests/s,
      latency percentiles, and the server's CPU per request and memory, read from
      /proc for PID and all its descendants (nginx master + workers).

  measure.py timed --out F [--log FILE] --label KEY=VALUE... -- COMMAND...
      Runs COMMAND under GNU time (/usr/bin/time -v), its output going to FILE, and
      records wall time, peak RSS and CPU seconds. Exits with the command's status.
"""
import argparse
import json
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


def parent_of(pid):
    """The parent pid of a process, or None when it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except OSError:
        return None
    return int(stat[stat.rindex(")") + 2:].split()[1])


def process_tree(root):
    """The root pid and every live descendant (nginx workers are the master's children)."""
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            parent = parent_of(int(entry))
            if parent is not None:
                children.setdefault(parent, []).append(int(entry))
    tree, todo = [], [root]
    while todo:
        pid = todo.pop()
        tree.append(pid)
        todo.extend(children.get(pid, []))
    return tree


def cpu_ticks(pid):
    """utime + stime of a whole process (all its threads), in clock ticks."""
    with open(f"/proc/{pid}/stat") as f:
        stat = f.read()
    fields = stat[stat.rindex(")") + 2:].split()
    return int(fields[11]) + int(fields[12])


def memory_kb(pid):
    """(VmRSS, VmHWM) of a process in kB."""
    values = {"VmRSS": 0, "VmHWM": 0}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key = line.split(":", 1)[0]
            if key in values:
                values[key] = int(line.split()[1])
    return values["VmRSS"], values["VmHWM"]


def snapshot(root):
    """CPU ticks per pid of the server's process tree."""
    ticks = {}
    for pid in process_tree(root):
        try:
            ticks[pid] = cpu_ticks(pid)
        except OSError:
            pass  # exited between listing and reading
    if root not in ticks:
        sys.exit(f"measure.py: server process {root} is gone")
    return ticks


def cpu_delta_seconds(before, after):
    """CPU used between two snapshots; processes born in between count from zero."""
    return sum(after[pid] - before.get(pid, 0) for pid in after) / CLOCK_TICKS


def parse_labels(pairs):
    labels = {}
    for pair in pairs or []:
        key, _, value = pair.partition("=")
        labels[key] = int(value) if value.isdigit() else value
    return labels


def append(out, record):
    with open(out, "a") as f:
        f.write(json.dumps(record, sort_keys=True) + "\n")


def run_wrk(args):
    command = [
        "wrk", "-t", str(args.threads), "-c", str(args.conns), "-d", f"{args.duration}s",
        "--timeout", "5s", "-s", os.path.join(HERE, "cycle.lua"), args.base,
        "--", os.path.abspath(args.paths), str(args.threads),
    ]
    before = snapshot(args.pid)
    finished = subprocess.run(command, capture_output=True, text=True)
    after = snapshot(args.pid)
    line = next((l for l in finished.stdout.splitlines() if l.startswith("BENCH-RESULT ")), None)
    if finished.returncode != 0 or line is None:
        sys.stderr.write(finished.stdout + finished.stderr)
        sys.exit(f"measure.py: wrk failed (exit {finished.returncode})")
    result = json.loads(line[len("BENCH-RESULT "):])
    requests = result["requests"]
    rss = hwm = 0
    for pid in after:
        try:
            process_rss, process_hwm = memory_kb(pid)
        except OSError:
            continue
        rss += process_rss
        hwm += process_hwm
    cpu = cpu_delta_seconds(before, after)
    errors = sum(result[k] for k in result if k.startswith("errors_"))
    record = dict(parse_labels(args.label))
    record.update({
        "kind": "wrk",
        "conns": args.conns,
        "threads": args.threads,
        "requests": requests,
        "seconds": result["duration_us"] / 1e6,
        "rps": requests / (result["duration_us"] / 1e6),
        "p50_us": result["p50_us"],
        "p90_us": result["p90_us"],
        "p99_us": result["p99_us"],
        "max_us": result["max_us"],
        "bytes_per_request": result["bytes"] / requests if requests else 0,
        "errors": errors,
        "errors_status": result["errors_status"],
        "cpu_seconds": cpu,
        "cpu_us_per_request": cpu * 1e6 / requests if requests else None,
        "rss_kb": rss,
        "hwm_kb": hwm,
        "processes": len(after),
    })
    append(args.out, record)
    print(f"  {record.get('server', '?'):>9} c={args.conns:<4} {record['rps']:9.0f} req/s  "
          f"p50 {record['p50_us'] / 1000:6.2f} ms  p99 {record['p99_us'] / 1000:7.2f} ms  "
          f"CPU {record['cpu_us_per_request'] or 0:6.1f} us/req  RSS {rss / 1024:6.1f} MB"
          + (f"  ERRORS {errors}" if errors else ""), flush=True)


def parse_gnu_time(text):
    """Wall seconds, peak RSS kB and CPU seconds from `/usr/bin/time -v` output."""
    def field(name):
        match = re.search(re.escape(name) + r":\s*(.+)", text)
        if not match:
            raise ValueError(f"no '{name}' in GNU time output")
        return match.group(1).strip()
    wall = 0.0
    for part in field("Elapsed (wall clock) time (h:mm:ss or m:ss)").split(":"):
        wall = wall * 60 + float(part)
    return {
        "wall_seconds": wall,
        "peak_rss_kb": int(field("Maximum resident set size (kbytes)")),
        "cpu_seconds": float(field("User time (seconds)")) + float(field("System time (seconds)")),
    }


def run_timed(args):
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    with tempfile.NamedTemporaryFile("r", suffix=".time") as report, \
            open(args.log or os.devnull, "w") as log:
        finished = subprocess.run(["/usr/bin/time", "-v", "-o", report.name] + command,
                                  stdout=log, stderr=subprocess.STDOUT)
        text = report.read()
    if finished.returncode != 0:
        sys.exit(finished.returncode)
    record = dict(parse_labels(args.label))
    record["kind"] = "timed"
    record.update(parse_gnu_time(text))
    append(args.out, record)
    print(f"  {record.get('tool', '?'):>17}: {record['wall_seconds']:6.2f} s wall, "
          f"{record['peak_rss_kb'] / 1024:6.1f} MB peak RSS, {record['cpu_seconds']:6.2f} s CPU",
          flush=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    commands = parser.add_subparsers(dest="command_name", required=True)
    wrk = commands.add_parser("wrk")
    wrk.add_argument("--out", required=True)
    wrk.add_argument("--pid", type=int, required=True)
    wrk.add_argument("--base", required=True)
    wrk.add_argument("--paths", required=True)
    wrk.add_argument("--conns", type=int, required=True)
    wrk.add_argument("--threads", type=int, required=True)
    wrk.add_argument("--duration", type=int, required=True)
    wrk.add_argument("--label", action="append")
    timed = commands.add_parser("timed")
    timed.add_argument("--out", required=True)
    timed.add_argument("--log")
    timed.add_argument("--label", action="append")
    timed.add_argument("command", nargs=argparse.REMAINDER)
    args = parser.parse_args()
    if args.command_name == "wrk":
        if args.threads > args.conns:
            args.threads = args.conns
        run_wrk(args)
    else:
        run_timed(args)


if __name__ == "__main__":
    main()
