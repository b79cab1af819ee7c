#!/usr/bin/env python3
"""Turns bench/run's measurements into a Markdown report.

  report.py RESULTS.jsonl META.env > results.md

RESULTS.jsonl holds one JSON record per measurement (lib/measure.py). META.env holds
key=value lines describing the run; `note=` and `skip=` lines may repeat. Every
number in the tables is the median over the runs or rounds of its row.
"""
import json
import statistics
import sys

# Within this band a ratio counts as "on par": single runs on a shared 2-core machine
# move by about this much between rounds.
PAR = 0.10


def load(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def load_meta(path):
    meta = {"note": [], "skip": []}
    with open(path) as f:
        for line in f:
            key, sep, value = line.rstrip("\n").partition("=")
            if not sep:
                continue
            if key in ("note", "skip"):
                meta[key].append(value)
            else:
                meta[key] = value
    return meta


def median(records, key):
    values = [r[key] for r in records if r.get(key) is not None]
    return statistics.median(values) if values else None


def ratio(a, b):
    return a / b if a is not None and b else None


def fmt(value, digits=1):
    if value is None:
        return "n/a"
    return f"{value:,.{digits}f}"


def fmt_ratio(value):
    return "n/a" if value is None else f"{value:.2f}x"


def verdict(value, limit, lower_is_better=True):
    """'met', 'on par' or 'not met' for a ratio against its target."""
    if value is None:
        return "not measured"
    good = value <= limit if lower_is_better else value >= limit
    if good:
        return "met"
    near = value <= limit * (1 + PAR) if lower_is_better else value >= limit * (1 - PAR)
    return "on par (within 10%)" if near else "**not met**"


def select(records, **labels):
    return [r for r in records if all(r.get(k) == v for k, v in labels.items())]


def header(meta):
    lines = [
        "# Tilescope benchmark",
        "",
        f"{meta.get('date', '?')} on {meta.get('cpus', '?')} cores ({meta.get('cpu_model', '?')}), "
        f"{meta.get('kernel', '?')}; nginx {meta.get('nginx_version', '?')}, wrk {meta.get('wrk_version', '?')}, "
        f"libvips {meta.get('vips_version', '?')}; tilescope at {meta.get('commit', '?')}.",
        "",
        f"Test image: {meta.get('size', '?')}x{meta.get('size', '?')} JPEG (Perlin noise, 3 scales), "
        f"{meta.get('tiles', '?')} tiles in {meta.get('levels', '?')} levels, "
        f"{meta.get('tile_kb', '?')} KB per tile on average at the deepest level. "
        f"Command: `{meta.get('command', 'bench/run')}`. Load average (1, 5, 15 min) at the start "
        f"{meta.get('load_start', '?')}, at the end {meta.get('load_end', '?')}: the machine is shared, "
        f"so compare the ratios and the CPU per request rather than absolute requests/s.",
        "",
    ]
    return lines


def previews_of(records, image):
    """The preview records of one image (labels may have been written as text or as numbers)."""
    return [r for r in records if r.get("kind") == "preview" and str(r.get("image")) == str(image)]


def build_images(records):
    """The images builds were compared on (the `image` label: their side), in run order."""
    seen = []
    for r in select(records, kind="timed"):
        if r.get("image") not in seen:
            seen.append(r.get("image"))
    return seen


def image_name(image):
    """A build's image label: its side (square test images) or "WxH" (BENCH_EXTRA_IMAGE)."""
    text = str(image)
    return text if "x" in text else f"{text}x{text}"


def image_pixels(image):
    try:
        width, _, height = image_name(image).partition("x")
        return int(width) * int(height)
    except (TypeError, ValueError):
        return 0


def preview_limit(image):
    """Issue #13: the preview within 10 % of the full build for a 16k^2 image, 5 % from a gigapixel up."""
    return 0.05 if image_pixels(image) >= 10**9 else 0.10


def build_section(records, meta):
    lines = []
    for image in build_images(records):
        runs = select(records, kind="timed", image=image)
        ours, theirs = select(runs, tool="tilescope build"), select(runs, tool="vips dzsave")
        synced = select(runs, tool="vips dzsave + sync")
        count = max(len(ours), len(theirs))
        lines += [
            f"## Building the pyramid of a {image_name(image)} image: `tilescope build` vs `vips dzsave` "
            f"(median of {count} run{'s' if count != 1 else ''})",
            "",
            "The goal's reference is `vips dzsave`; `vips dzsave + sync` (dzsave, then `sync`) is a second "
            "reference with tilescope's durability (its pyramid flushed before it is called built).",
            "",
            "| | tilescope build | vips dzsave | ratio (tilescope / dzsave) | vips dzsave + sync | ratio (tilescope / dzsave + sync) |",
            "|---|---:|---:|---:|---:|---:|",
        ]
        rows = [("wall time (s)", "wall_seconds", 1, 2), ("peak RSS (MB)", "peak_rss_kb", 1 / 1024, 1),
                ("CPU user+sys (s)", "cpu_seconds", 1, 2)]
        for title, key, factor, digits in rows:
            a, b, c = median(ours, key), median(theirs, key), median(synced, key)
            a = a * factor if a is not None else None
            b = b * factor if b is not None else None
            c = c * factor if c is not None else None
            lines.append(f"| {title} | {fmt(a, digits)} | {fmt(b, digits)} | {fmt_ratio(ratio(a, b))} "
                         f"| {fmt(c, digits)} | {fmt_ratio(ratio(a, c))} |")
        previews = previews_of(records, image)
        if previews:
            preview = median(previews, "preview_seconds")
            lines.append(f"| preview, descriptor and coarse levels served after (s) | {fmt(preview, 2)} | | "
                         f"{fmt(100 * ratio(preview, median(ours, 'wall_seconds')), 1)} % of tilescope's build | | |")
            ended = [r for r in previews if r.get("full_pass_seconds") is not None]
            if ended:
                lines.append(f"| full pass ended, first finer level served after (s) | "
                             f"{fmt(median(ended, 'full_pass_seconds'), 2)} | | | | |")
                lines.append(f"| last level (flushed, complete manifest) after (s) | "
                             f"{fmt(median(ended, 'last_level_seconds'), 2)} | | | | |")
        lines.append("")
    huge = select(records, kind="wrk", phase="huge")
    if huge:
        lines += [f"## Serving the {huge[0].get('image', '?')}x{huge[0].get('image', '?')} pyramid under load "
                  f"({huge[0].get('conns', '?')} connections, one round)", "",
                  "| requests/s | p99 (ms) | server RSS after the round (MB) | server peak RSS, VmHWM (MB) | errors |",
                  "|---:|---:|---:|---:|---:|",
                  f"| {fmt(median(huge, 'rps'), 0)} | {fmt((median(huge, 'p99_us') or 0) / 1000, 2)} | "
                  f"{fmt((median(huge, 'rss_kb') or 0) / 1024, 1)} | {fmt((median(huge, 'hwm_kb') or 0) / 1024, 1)} | "
                  f"{fmt(median(huge, 'errors'), 0)} |", ""]
    return lines


def wrk_rows(a_records, b_records):
    """Table rows (title, a, b, ratio) for two sets of wrk rounds."""
    rows = []
    for title, key, factor, digits in [
        ("requests/s (higher is better)", "rps", 1, 0),
        ("p50 latency (ms)", "p50_us", 1e-3, 3),
        ("p99 latency (ms)", "p99_us", 1e-3, 2),
        ("server CPU per request (us)", "cpu_us_per_request", 1, 1),
        ("server RSS after the round (MB)", "rss_kb", 1 / 1024, 1),
        ("server peak RSS, VmHWM (MB)", "hwm_kb", 1 / 1024, 1),
        ("bytes per response, headers included", "bytes_per_request", 1, 0),
        ("errors (non-2xx, timeouts)", "errors", 1, 0),
    ]:
        a, b = median(a_records, key), median(b_records, key)
        a = a * factor if a is not None else None
        b = b * factor if b is not None else None
        rows.append((title, fmt(a, digits), fmt(b, digits), fmt_ratio(ratio(a, b)), key))
    return rows


def static_section(records, meta):
    rounds = select(records, kind="wrk", phase="static")
    if not rounds:
        return []
    conns = sorted({r["conns"] for r in rounds})
    lines = [
        f"## Static tiles: tilescope vs nginx, same files, same URL list "
        f"(median of {meta.get('rounds', '?')} rounds x {meta.get('duration', '?')} s, interleaved A B A B)",
        "",
        "| connections | metric | tilescope | nginx | ratio (tilescope / nginx) |",
        "|---:|---|---:|---:|---:|",
    ]
    for c in conns:
        ours = select(rounds, server="tilescope", conns=c)
        theirs = select(rounds, server="nginx", conns=c)
        for title, a, b, r, _ in wrk_rows(ours, theirs):
            lines.append(f"| {c} | {title} | {a} | {b} | {r} |")
    lines.append("")
    return lines


def viewport_section(records, meta):
    rounds = select(records, kind="wrk", phase="viewport")
    skipped = [s for s in meta["skip"] if s.startswith("viewport:")]
    lines = ["## Viewport API vs static tiles on the same tilescope server", ""]
    if not rounds:
        reason = skipped[0].partition(":")[2].strip() if skipped else "not measured"
        return lines + [f"Skipped: {reason}", ""]
    c = rounds[0]["conns"]
    lines += [
        f"`GET /api/images/{{id}}/viewport?width=1280&height=800&scale=2&zoomScale=...&offsetX=...&offsetY=...` "
        f"over {meta.get('viewports', '?')} seeded random viewports vs the static tile list, {c} connections, "
        f"median of {meta.get('rounds', '?')} rounds x {meta.get('duration', '?')} s, interleaved.",
        "",
        "| metric | viewport | static tile | ratio (viewport / tile) |",
        "|---|---:|---:|---:|",
    ]
    for title, a, b, r, _ in wrk_rows(select(rounds, request="viewport"), select(rounds, request="tile")):
        lines.append(f"| {title} | {a} | {b} | {r} |")
    lines.append("")
    return lines


def targets_section(records, meta):
    lines = ["## Targets", ""]
    static = select(records, kind="wrk", phase="static")
    for c in sorted({r["conns"] for r in static}):
        ours = select(static, server="tilescope", conns=c)
        theirs = select(static, server="nginx", conns=c)
        cpu = ratio(median(ours, "cpu_us_per_request"), median(theirs, "cpu_us_per_request"))
        rps = ratio(median(ours, "rps"), median(theirs, "rps"))
        lines.append(f"- {c} connections: CPU per tile no more than nginx's: {verdict(cpu, 1.0)} "
                     f"({fmt_ratio(cpu)}); requests/s at least nginx's: {verdict(rps, 1.0, False)} ({fmt_ratio(rps)}).")
    for image in build_images(records):
        builds = select(records, kind="timed", image=image)
        ours, theirs = select(builds, tool="tilescope build"), select(builds, tool="vips dzsave")
        wall = ratio(median(ours, "wall_seconds"), median(theirs, "wall_seconds"))
        rss = ratio(median(ours, "peak_rss_kb"), median(theirs, "peak_rss_kb"))
        lines.append(f"- {image_name(image)}: `tilescope build` wall time no worse than `vips dzsave`: {verdict(wall, 1.0)} "
                     f"({fmt_ratio(wall)}); peak memory no worse: {verdict(rss, 1.0)} ({fmt_ratio(rss)}).")
        previews = previews_of(records, image)
        if previews:
            share = ratio(median(previews, "preview_seconds"), median(ours, "wall_seconds"))
            limit = preview_limit(image)
            lines.append(f"- {image_name(image)}: the preview served within {limit:.0%} of the full build: "
                         f"{verdict(share, limit)} ({fmt(100 * share if share is not None else None, 1)} %).")
    huge = select(records, kind="wrk", phase="huge")
    if huge:
        rss = max(r.get("hwm_kb", 0) for r in huge) / 1024
        lines.append(f"- The {huge[0].get('image', '?')}x{huge[0].get('image', '?')} pyramid served under load with "
                     f"the server's peak RSS under 150 MB: {'met' if rss < 150 else '**not met**'} ({rss:.1f} MB).")
    viewport = select(records, kind="wrk", phase="viewport")
    if viewport:
        cpu = ratio(median(select(viewport, request="viewport"), "cpu_us_per_request"),
                    median(select(viewport, request="tile"), "cpu_us_per_request"))
        lines.append(f"- A viewport answer costs no more than twice a static tile (CPU per request): "
                     f"{verdict(cpu, 2.0)} ({fmt_ratio(cpu)}).")
    if len(lines) == 2:
        lines.append("- Nothing of tilescope was measured in this run (see the notes).")
    lines.append("")
    return lines


def notes_section(meta):
    notes = meta["note"] + [s.partition(":")[2].strip() for s in meta["skip"] if not s.startswith("viewport:")]
    if not notes:
        return []
    return ["## Notes", ""] + [f"- {n}" for n in notes] + [""]


def headers_section(meta):
    path = meta.get("headers")
    try:
        with open(path) as f:
            text = f.read().strip()
    except (OSError, TypeError):
        return []
    return ["## Response headers of one tile", "", "```", text, "```", ""]


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    records, meta = load(sys.argv[1]), load_meta(sys.argv[2])
    lines = (header(meta) + targets_section(records, meta) + build_section(records, meta)
             + static_section(records, meta) + viewport_section(records, meta) + notes_section(meta)
             + headers_section(meta))
    print("\n".join(lines).rstrip() + "\n")


if __name__ == "__main__":
    main()
