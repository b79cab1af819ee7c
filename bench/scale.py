#!/usr/bin/env python3
"""Tiles/s through nginx with 1, 2 and 3 replicas, with nginx's cache on, and against one replica
direct; CPU per request of the replicas and of nginx. Interleaved rounds: quote the ratios.

Usage: bench/scale.py TILESCOPE_BINARY   (bench/scale.sh builds it and installs what is missing)
"""
import json
import os
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BINARY = sys.argv[1]
ROUNDS = int(os.environ.get("ROUNDS", "3"))
ROUND_SECONDS = int(os.environ.get("ROUND_SECONDS", "8"))
CONNECTIONS = int(os.environ.get("CONNECTIONS", "16"))
SIZE = int(os.environ.get("SIZE", "4096"))
WORK = tempfile.mkdtemp(prefix="tilescope-bench-scale-")
TICKS = os.sysconf("SC_CLK_TCK")
processes = []


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def get(url):
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.status, response.read()


def wait(predicate, seconds, what):
    deadline = time.time() + seconds
    while time.time() < deadline:
        try:
            if predicate():
                return
        except OSError:
            pass
        time.sleep(0.3)
    sys.exit(f"bench: timed out waiting for {what} (logs in {WORK})")


def as_postgres(*command):
    prefix = ["runuser", "-u", "postgres", "--"] if os.getuid() == 0 else []
    subprocess.run(prefix + list(command), check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def cpu_seconds(pids):
    """utime+stime of `pids` and their live children (nginx workers), in seconds."""
    total = 0
    for pid in pids:
        family = [pid]
        try:
            with open(f"/proc/{pid}/task/{pid}/children") as f:
                family += [int(c) for c in f.read().split()]
        except OSError:
            pass
        for member in family:
            try:
                with open(f"/proc/{member}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                total += int(fields[11]) + int(fields[12])
            except OSError:
                pass
    return total / TICKS


def nginx_conf(port, replica_ports, cache):
    with open(f"{ROOT}/deploy/nginx.conf") as f:
        conf = f.read()
    servers = "".join(f"        server 127.0.0.1:{p} max_fails=3 fail_timeout=10s;\n" for p in replica_ports)
    conf = re.sub(r"(?m)^\s*server tilescope-\d:8080[^\n]*\n", "", conf)
    conf = conf.replace("upstream tilescope {\n", "upstream tilescope {\n" + servers)
    conf = conf.replace("listen 80;", f"listen 127.0.0.1:{port};")
    conf = conf.replace("/var/cache/nginx/tilescope", f"{WORK}/cache-{port}")
    conf = conf.replace("access_log /var/log/nginx/tilescope-access.log tilescope;", "access_log off;")
    conf = conf.replace("worker_processes auto;", "worker_processes 2;")
    if not cache:
        conf = conf.replace("            proxy_cache tiles;\n", "")
    path = f"{WORK}/nginx-{port}.conf"
    with open(path, "w") as f:
        f.write(conf)
    os.makedirs(f"{WORK}/nginx-{port}", exist_ok=True)
    process = subprocess.Popen(["nginx", "-c", path, "-p", f"{WORK}/nginx-{port}",
                                "-g", f"daemon off; pid {WORK}/nginx-{port}.pid; error_log {WORK}/nginx-{port}.log;"])
    processes.append(process)
    return process


def wrk(port, paths_file):
    output = subprocess.run(["wrk", "-t", "2", "-c", str(CONNECTIONS), "-d", f"{ROUND_SECONDS}s",
                             "-s", f"{ROOT}/bench/lib/cycle.lua", f"http://127.0.0.1:{port}", "--", paths_file, "2"],
                            capture_output=True, text=True, check=True).stdout
    line = next(l for l in output.splitlines() if l.startswith("BENCH-RESULT "))
    return json.loads(line[len("BENCH-RESULT "):])


def main():
    images, data, pg = f"{WORK}/images", f"{WORK}/data", f"{WORK}/pg"
    for folder in (images, data, pg):
        os.makedirs(folder)
    os.chmod(WORK, 0o711)
    if os.getuid() == 0:
        shutil.chown(pg, "postgres", "postgres")
    binaries = sorted((f"/usr/lib/postgresql/{v}/bin" for v in os.listdir("/usr/lib/postgresql") if v.isdigit()),
                      key=lambda p: int(p.split("/")[-2]))[-1]
    pg_port = free_port()
    as_postgres(f"{binaries}/initdb", "-D", f"{pg}/data", "-U", "postgres", "--auth=trust", "--locale=C")
    as_postgres(f"{binaries}/pg_ctl", "-D", f"{pg}/data", "-l", f"{pg}/log", "-w", "-o",
                f"-c listen_addresses=127.0.0.1 -c port={pg_port} -c unix_socket_directories={pg}", "start")
    try:
        subprocess.run(["vips", "gaussnoise", f"{WORK}/bench.jpg", str(SIZE), str(SIZE), "--sigma", "40"], check=True)
        shutil.move(f"{WORK}/bench.jpg", f"{images}/bench.jpg")
        replicas = {}
        for name in ("r1", "r2", "r3"):
            port = free_port()
            log = open(f"{WORK}/{name}.log", "wb")
            process = subprocess.Popen(
                [BINARY, "serve", "--images", images, "--data", data, "--port", str(port), "--host", "127.0.0.1",
                 "--replica-id", name, "--settle", "0", "--quiet", "--public", f"{ROOT}/Public"],
                stdout=log, stderr=log, env=dict(os.environ, TILESCOPE_DATABASE=f"postgres://postgres@127.0.0.1:{pg_port}/postgres"))
            processes.append(process)
            replicas[name] = (port, process)
        for port, _ in replicas.values():
            wait(lambda: json.loads(get(f"http://127.0.0.1:{port}/api/images/bench")[1])["status"] == "ready", 300, "the pyramid")
        info = json.loads(get(f"http://127.0.0.1:{replicas['r1'][0]}/api/images/bench")[1])
        template = info["urls"]["tiles"]
        template = template if template.startswith("/") else "/" + template.split("/", 3)[3]
        paths = []
        for level in range(info["maxLevel"] - 2, info["maxLevel"] + 1):
            scale = 2 ** (info["maxLevel"] - level)
            columns, rows = -(-info["width"] // scale // 254), -(-info["height"] // scale // 254)
            paths += [template.replace("{level}", str(level)).replace("{col}", str(c)).replace("{row}", str(r))
                      for c in range(columns) for r in range(rows)]
        paths_file = f"{WORK}/paths.txt"
        with open(paths_file, "w") as f:
            f.write("\n".join(paths) + "\n")
        ports = [replicas[n][0] for n in ("r1", "r2", "r3")]
        scenarios = {"direct, 1 replica": (ports[0], None)}
        for count in (1, 2, 3):
            port = free_port()
            scenarios[f"nginx, {count} replica{'s' if count > 1 else ''}"] = (port, nginx_conf(port, ports[:count], cache=False))
        port = free_port()
        scenarios["nginx cache on, 3 replicas"] = (port, nginx_conf(port, ports, cache=True))
        time.sleep(1)
        for port, _ in scenarios.values():  # warm: page cache, descriptor caches, nginx's tile cache
            wait(lambda: get(f"http://127.0.0.1:{port}{paths[0]}")[0] == 200, 30, "nginx")
            for path in paths:
                get(f"http://127.0.0.1:{port}{path}")
        replica_pids = [p.pid for _, p in replicas.values()]
        results = {name: [] for name in scenarios}
        for _ in range(ROUNDS):
            for name, (port, nginx) in scenarios.items():
                before = (cpu_seconds(replica_pids), cpu_seconds([nginx.pid]) if nginx else 0)
                result = wrk(port, paths_file)
                after = (cpu_seconds(replica_pids), cpu_seconds([nginx.pid]) if nginx else 0)
                requests = max(1, result["requests"])
                results[name].append((requests / (result["duration_us"] / 1e6),
                                      (after[0] - before[0]) / requests * 1e6, (after[1] - before[1]) / requests * 1e6,
                                      result["errors_status"] + result["errors_connect"] + result["errors_read"]))
        commit = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
        lines = [f"Tiles through nginx ({len(paths)} tiles of a {SIZE}x{SIZE} image, wrk {CONNECTIONS} connections, "
                 f"{ROUNDS} interleaved rounds of {ROUND_SECONDS} s, medians; commit {commit}, "
                 f"{time.strftime('%Y-%m-%d', time.gmtime())}, {os.cpu_count()} cores shared by everything):", "",
                 "| scenario | tiles/s | vs direct | replica CPU us/tile | nginx CPU us/tile | errors |", "|---|---|---|---|---|---|"]
        direct = statistics.median(r[0] for r in results["direct, 1 replica"])
        for name, rounds in results.items():
            rate = statistics.median(r[0] for r in rounds)
            lines.append(f"| {name} | {rate:,.0f} | {rate / direct:.2f}x | {statistics.median(r[1] for r in rounds):.1f} | "
                         f"{statistics.median(r[2] for r in rounds):.1f} | {sum(r[3] for r in rounds)} |")
        report = "\n".join(lines)
        print(report)
        os.makedirs(f"{ROOT}/bench/out", exist_ok=True)
        with open(f"{ROOT}/bench/out/scale.md", "w") as f:
            f.write(report + "\n")
    finally:
        for process in processes:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=15)
                except subprocess.TimeoutExpired:
                    process.kill()
        as_postgres(f"{binaries}/pg_ctl", "-D", f"{pg}/data", "-m", "fast", "-w", "stop")
        shutil.rmtree(WORK, ignore_errors=True)


if __name__ == "__main__":
    main()
