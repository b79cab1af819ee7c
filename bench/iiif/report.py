"""Markdown table of bench/iiif.sh results: one row per scenario and server, ratios after."""
import json, statistics, sys

path, width, height, connections, rounds, seconds, cores = sys.argv[1:8]
load = sys.argv[8] if len(sys.argv) > 8 else "not recorded"
rows = [json.loads(line) for line in open(path) if line.strip()]

def pick(server, scenario, first):
    return [r for r in rows if r["server"] == server and r["scenario"] == scenario and (r["round"] == "first") == first]

print(f"### IIIF: tilescope vs iipsrv ({width}x{height} image, {cores} cores, wrk {connections} connections, "
      f"{rounds} interleaved rounds of {seconds} s; load average at start {load})\n")
print("| scenario | server | req/s | p50 ms | p99 ms | server CPU/req (us) | RSS MB | first pass req/s (1 connection) | first pass CPU/req (us) | non-200 |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
summary = {}
for scenario in ("tiles", "regions"):
    for server in ("tilescope", "iipsrv"):
        measured, first = pick(server, scenario, False), pick(server, scenario, True)
        if not measured:
            continue
        requests = sum(r["requests"] for r in measured)
        rate = requests / sum(r["seconds"] for r in measured)
        cpu = sum(r["cpu_us"] for r in measured) / max(1, requests)
        p50 = statistics.median(r["p50_us"] for r in measured) / 1000
        p99 = statistics.median(r["p99_us"] for r in measured) / 1000
        rss = max(r["rss_kb"] for r in measured + first) / 1024
        first_requests = sum(r["requests"] for r in first)
        first_rate = first_requests / sum(r["seconds"] for r in first) if first else float("nan")
        first_cpu = sum(r["cpu_us"] for r in first) / first_requests if first else float("nan")
        bad = sum(r.get("bad_status", 0) + r.get("socket_errors", 0) for r in measured + first)
        summary[(scenario, server)] = (rate, cpu, first_rate)
        print(f"| {scenario} | {server} | {rate:,.0f} | {p50:.2f} | {p99:.2f} | {cpu:,.0f} | {rss:,.0f} | {first_rate:,.0f} | {first_cpu:,.0f} | {bad} |")
print()
for scenario in ("tiles", "regions"):
    if (scenario, "tilescope") in summary and (scenario, "iipsrv") in summary:
        (tr, tc, tf), (ir, ic, iff) = summary[(scenario, "tilescope")], summary[(scenario, "iipsrv")]
        cpu = f"**{ic / tc:.1f}x** less" if ic >= tc else f"**{tc / ic:.1f}x** more"
        # The first pass's parts ran in turn, a tilescope part then the same part on iipsrv: the ratio of each
        # such pair is measured under nearly the same load, so their median shrugs off a part that other work
        # on the machine slowed down (a part has taken 0.3 s in one pass and 2 s in the next, on either server).
        pairs = [(t["requests"] / t["seconds"]) / (i["requests"] / i["seconds"])
                 for t, i in zip(pick("tilescope", scenario, True), pick("iipsrv", scenario, True))
                 if t["seconds"] > 0 and i["seconds"] > 0]
        paired = f" (median of the {len(pairs)} paired parts: {statistics.median(pairs):.2f}x)" if pairs else ""
        print(f"- {scenario}: tilescope serves **{tr / ir:.1f}x** iipsrv's requests/s with {cpu} server CPU per request; "
              f"first pass **{tf / iff:.2f}x** iipsrv's requests/s{paired}.")
