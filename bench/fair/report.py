"""Markdown table of bench/fair.sh's results: one row per figure, a column per binary (BEFORE, AFTER),
AFTER/BEFORE where both ran, and issue 41's goals marked met or not met for each binary."""
import argparse
import json
import statistics

parser = argparse.ArgumentParser()
parser.add_argument("results")
parser.add_argument("--cores", default="?")
parser.add_argument("--load", default="not recorded")
parser.add_argument("--image", default="10000x7500")
parser.add_argument("--view-image", default="4000x3000")
parser.add_argument("--before", default="")
parser.add_argument("--before-args", default="")
parser.add_argument("--after", default="")
parser.add_argument("--after-args", default="")
parser.add_argument("--notes", default="")
options = parser.parse_args()

runs = {}  # (binary, scenario) -> the run's JSON
for line in open(options.results):
    if line.strip():
        run = json.loads(line)
        runs[(run["binary"], run["scenario"])] = run
binaries = [b for b in ("before", "after") if any(k[0] == b for k in runs)]
SCENARIOS = ["idle-viewer", "idle-modest", "flood", "greedy", "greedy4", "firstview-idle", "firstview-avif"]


def role(binary, scenario, name):
    return runs.get((binary, scenario), {}).get("roles", {}).get(name)


def field(scenario, name, key):
    """A getter: that role's figure in that scenario, or None where it did not run."""
    return lambda b: (role(b, scenario, name) or {}).get(key)


def server(scenario, key):
    return lambda b: runs.get((b, scenario), {}).get(key)


def ratio(top, bottom):
    return lambda b: top(b) / bottom(b) if top(b) is not None and bottom(b) else None


def greedy4_names(b):
    return sorted(n for n in runs.get((b, "greedy4"), {}).get("roles", {}) if n.startswith("greedy-"))


def greedy4_sum(key):
    return lambda b: sum(role(b, "greedy4", n)[key] for n in greedy4_names(b)) if greedy4_names(b) else None


def greedy4_client(index, key):
    def get(b):
        names = greedy4_names(b)
        return role(b, "greedy4", names[index])[key] if index < len(names) else None
    return get


def greedy4_share(index):
    """The client's share of the four's answered requests."""
    def get(b):
        total = greedy4_sum("ok_per_s")(b)
        mine = greedy4_client(index, "ok_per_s")(b)
        return mine / total if total and mine is not None else None
    return get


def greedy4_smallest_of_fair(b):
    """The least served of the four against a fair share: a quarter of what greedy alone got."""
    alone = field("greedy", "greedy", "ok_per_s")(b)
    names = greedy4_names(b)
    if not alone or not names:
        return None
    return min(role(b, "greedy4", n)["ok_per_s"] for n in names) / (alone / 4)


def first_view_median(scenario):
    def get(b):
        views = (role(b, scenario, "firstview") or {}).get("views") or []
        return statistics.median(v["seconds"] for v in views) if views else None
    return get


def first_view_requests(b):
    views = [v for s in ("firstview-idle", "firstview-avif") for v in (role(b, s, "firstview") or {}).get("views", [])]
    if not views:
        return None
    return (f"{sum(v['requests'] for v in views)} / {sum(v['non_200'] for v in views)}"
            f" / {sum(v.get('interim', 0) for v in views)}")


def first_view_shape(b):
    views = (role(b, "firstview-idle", "firstview") or {}).get("views") or []
    return f"{views[0]['requests']} (level {views[0]['level']})" if views else None


def avif_answers(b):
    a = role(b, "firstview-avif", "avif")
    return None if a is None else f"{a['interim_answers']:,} / {a['avif_answers']:,}"


def greedy_failures(b):
    g = role(b, "flood", "greedy")
    return None if g is None else f"{g['status_503']} / {g['other_non_200']} / {g['errors']}"


def greedy_retry_after(b):
    g = role(b, "flood", "greedy")
    return None if not g or g["retry_after_min"] is None else f"{g['retry_after_min']:g}-{g['retry_after_max']:g}"


def greedy4_client_text(index):
    def get(b):
        rate, share = greedy4_client(index, "ok_per_s")(b), greedy4_share(index)(b)
        if rate is None:
            return None
        return f"{rate:,.1f} ({share * 100:.0f} %)" if share is not None else f"{rate:,.1f}"
    return get


def kb_to_mb(get):
    return lambda b: None if get(b) is None else get(b) / 1024


def hwm_mb(b):
    values = [r["hwm_kb"] for k, r in runs.items() if k[0] == b]
    return max(values) / 1024 if values else None


def fmt(value, kind):
    if value is None:
        return "-"
    if kind == "ms":
        return f"{value:,.2f}" if value < 100 else f"{value:,.0f}"
    if kind == "x":
        return f"{value:.2f}x"
    if kind == "%":
        return f"{value * 100:.0f} %"
    if kind == "int":
        return f"{value:,.0f}"
    if kind == "s":
        return f"{value:.3f}"
    return f"{value:,.1f}" if abs(value) < 100 else f"{value:,.0f}"


# (label, getter, kind, goal): goal is (test, "text") for a row that is one of the goals.
fv_format = next((r["roles"]["firstview"].get("format") for r in runs.values() if "firstview" in r["roles"]), "?")
sections = [
    ("idle: each client alone", [
        ("viewer alone: requests/s (target {viewer_rate:g})", field("idle-viewer", "viewer", "achieved_per_s"), "n", None),
        ("viewer alone: p50 ms", field("idle-viewer", "viewer", "p50_ms"), "ms", None),
        ("viewer alone: p99 ms", field("idle-viewer", "viewer", "p99_ms"), "ms", None),
        ("modest alone: p50 ms", field("idle-modest", "modest", "p50_ms"), "ms", None),
        ("modest alone: p99 ms", field("idle-modest", "modest", "p99_ms"), "ms", None),
    ]),
    ("flood: greedy ({greedy_connections} connections) + viewer + modest", [
        ("viewer: requests/s (target {viewer_rate:g})", field("flood", "viewer", "achieved_per_s"), "n", None),
        ("viewer: sends late by more than an interval", field("flood", "viewer", "late_sends"), "int", None),
        ("viewer: p50 ms", field("flood", "viewer", "p50_ms"), "ms", None),
        ("viewer: p99 ms", field("flood", "viewer", "p99_ms"), "ms", None),
        ("viewer: non-200", field("flood", "viewer", "non_200"), "int", None),
        ("viewer: p99 / idle p99", ratio(field("flood", "viewer", "p99_ms"), field("idle-viewer", "viewer", "p99_ms")),
         "x", (lambda v: v <= 1.5, "within ~1.5x")),
        ("modest: requests/s (target {modest_rate:g})", field("flood", "modest", "achieved_per_s"), "n", None),
        ("modest: p50 ms", field("flood", "modest", "p50_ms"), "ms", None),
        ("modest: p99 ms", field("flood", "modest", "p99_ms"), "ms", None),
        ("modest: p99 / idle p99", ratio(field("flood", "modest", "p99_ms"), field("idle-modest", "modest", "p99_ms")),
         "x", (lambda v: v <= 3, "<= 3x")),
        ("modest: answered 200", field("flood", "modest", "ok"), "int", None),
        ("modest: not 200 (errors included)", field("flood", "modest", "non_200"), "int", None),
        ("greedy: 200 answers/s", field("flood", "greedy", "ok_per_s"), "n", None),
        ("greedy: 429 answers", field("flood", "greedy", "status_429"), "int", None),
        ("greedy: 503 answers / other non-200 / connection errors", greedy_failures, "text", None),
        ("greedy: Retry-After seen, s (min-max)", greedy_retry_after, "text", None),
        ("greedy: output megapixels/s (200s)", field("flood", "greedy", "megapixels_per_s"), "n", None),
    ]),
    ("greedy alone ({greedy_connections} connections)", [
        ("greedy: 200 answers/s", field("greedy", "greedy", "ok_per_s"), "n", None),
        ("greedy: output megapixels/s", field("greedy", "greedy", "megapixels_per_s"), "n", None),
        ("greedy: 429 answers", field("greedy", "greedy", "status_429"), "int", None),
        ("greedy: p50 ms", field("greedy", "greedy", "p50_ms"), "ms", None),
    ]),
    ("four greedy clients (127.0.0.4-7, {greedy4_connections} connections each)", [
        *[(f"127.0.0.{4 + i}: 200 answers/s (share of the four)", greedy4_client_text(i), "text", None) for i in range(4)],
        ("least served / fair share (greedy alone / 4)", greedy4_smallest_of_fair, "%", (lambda v: v >= 0.2, ">= 20 %")),
        ("together: 200 answers/s", greedy4_sum("ok_per_s"), "n", None),
        ("together / greedy alone", ratio(greedy4_sum("ok_per_s"), field("greedy", "greedy", "ok_per_s")), "%",
         (lambda v: v >= 0.8, ">= 80 %")),
        ("together: output megapixels/s", greedy4_sum("megapixels_per_s"), "n", None),
        ("together: 429 answers", greedy4_sum("status_429"), "int", None),
    ]),
    ("first view ({view_image}, preview + the level that fits 1280x800, {fv_format}, 6 connections)", [
        ("idle: median s", first_view_median("firstview-idle"), "s", None),
        ("during an AVIF flood ({avif_connections} connections): median s", first_view_median("firstview-avif"), "s", None),
        ("during / idle", ratio(first_view_median("firstview-avif"), first_view_median("firstview-idle")), "x",
         (lambda v: v <= 1.5, "<= 1.5x")),
        ("requests a view (the fit level)", first_view_shape, "text", None),
        ("first views, idle and flood together: requests / not 200 / stand-ins (interim)",
         first_view_requests, "text", None),
        ("AVIF flood: 200 answers/s", field("firstview-avif", "avif", "ok_per_s"), "n", None),
        ("AVIF flood: stand-in (interim) answers / in AVIF", avif_answers, "text", None),
    ]),
    ("the server: CPU (utime+stime over the measured seconds, cores busy) and memory", [
        *[(f"CPU, cores: {scenario}", server(scenario, "server_cores"), "n2", None) for scenario in SCENARIOS],
        ("RSS after the flood, MB", kb_to_mb(server("flood", "rss_kb")), "int", None),
        ("RSS after the AVIF flood, MB", kb_to_mb(server("firstview-avif", "rss_kb")), "int", None),
        ("peak RSS over the run (VmHWM), MB", hwm_mb, "int", None),
    ]),
]


def any_run(key, default):
    return next((r.get(key) for r in runs.values() if r.get(key) is not None), default)


settings = {
    "viewer_rate": next((r["roles"]["viewer"]["target_per_s"] for r in runs.values() if "viewer" in r["roles"]), 500),
    "modest_rate": next((r["roles"]["modest"]["target_per_s"] for r in runs.values() if "modest" in r["roles"]), 5),
    "greedy_connections": any_run("greedy_connections", "?"),
    "greedy4_connections": any_run("greedy4_connections", "?"),
    "greedy_processes": any_run("greedy_processes", "?"),
    "avif_connections": any_run("avif_connections", "?"),
    "view_image": options.view_image,
    "fv_format": fv_format or "?",
}

names = {"before": "BEFORE", "after": "AFTER"}
both = len(binaries) == 2
durations = {}  # scenario -> measured seconds (the first binary's; the other's are the same but for first views)
for (b, scenario), run in runs.items():
    durations.setdefault(scenario, (run["window_s"], run["warmup_s"]))
print(f"### Fairness under greedy clients (issue 41): {' vs '.join(names[b] for b in binaries)}\n")
print(f"photo {options.image} (IIIF renders, derivative cache off: --iiif-cache-mb 0), {options.cores} cores, "
      f"load average at start {options.load}. Seconds measured (after a warm-up): "
      + ", ".join(f"{s} {d:.1f} ({w:g})" for s, (d, w) in durations.items())
      + f". The clients run on the same machine: Python, the greedy client and the AVIF flood in "
      f"{settings['greedy_processes']} processes.")
for b in binaries:
    path = options.before if b == "before" else options.after
    extra = options.before_args if b == "before" else options.after_args
    print(f"{names[b]}: `{path}`" + (f" with `{extra}`" if extra.strip() else " (defaults)") + ".")
print()
header = "| figure | " + " | ".join(names[b] for b in binaries) + (" | AFTER/BEFORE |" if both else " |")
print(header)
print("|---|" + "---:|" * len(binaries) + ("---:|" if both else ""))
goals = {b: [] for b in binaries}
for title, rows in sections:
    print(f"| **{title.format(**settings)}** |" + " |" * len(binaries) + (" |" if both else ""))
    for label, get, kind, goal in rows:
        values = {b: get(b) for b in binaries}
        cells = []
        for b in binaries:
            v = values[b]
            text = v if kind == "text" and v is not None else fmt(v, "n" if kind == "n2" else kind)
            if kind == "n2" and v is not None:
                text = f"{v:.2f}"
            if goal is not None and v is not None:
                met = goal[0](v)
                goals[b].append((label, goal[1], met))
                text += " **met**" if met else " **not met**"
            cells.append(text)
        change = ""
        if both and kind not in ("text", "int") and goal is None:  # no ratios of counts
            a, c = values["before"], values["after"]
            if isinstance(a, (int, float)) and isinstance(c, (int, float)) and a:
                change = f"{c / a:.2f}x"
        label = label.format(**settings)
        if goal is not None:
            label += f" (goal {goal[1]})"
        print(f"| {label} | " + " | ".join(cells) + (f" | {change} |" if both else " |"))
print()
for b in binaries:
    met = sum(1 for g in goals[b] if g[2])
    print(f"- {names[b]}: {met} of {len(goals[b])} goals met"
          + (": not met " + "; ".join(f"{g[0]} {g[1]}" for g in goals[b] if not g[2]) if met < len(goals[b]) else "") + ".")
notes = open(options.notes).read().strip() if options.notes else ""
if notes:
    print(notes)
