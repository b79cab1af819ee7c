#!/usr/bin/env python3
"""The Markdown report of bench/builds.sh: tilescope build against vips dzsave per source, then by phase.

  builds_report.py RESULTS.jsonl --commit C --photos N
"""
import argparse
import json
import re
import statistics

PHASE = re.compile(r"([a-z-]+) ([0-9.]+) s(?: \(RssAnon (\d+) MB\))?")
PREVIEW = re.compile(r"published after ([0-9.]+) s")


def phases_of(log):
    """Per run: the seconds of each phase summed over the run's images, the largest RssAnon seen per phase,
    the images built, the preview's time (the first image's) and the catalog's."""
    seconds, memory, images, preview, catalog = {}, {}, 0, None, 0.0
    with open(log) as f:
        for line in f:
            if "phases:" in line:
                images += 1
                for name, value, megabytes in PHASE.findall(line.split("phases:", 1)[1]):
                    seconds[name] = seconds.get(name, 0.0) + float(value)
                    if megabytes:
                        memory[name] = max(memory.get(name, 0), int(megabytes))
            elif preview is None and PREVIEW.search(line):
                preview = float(PREVIEW.search(line).group(1))
            elif "catalog: ids of" in line:
                catalog += float(line.rsplit(" in ", 1)[1].split()[0])
    return seconds, memory, images, preview, catalog


def median(values):
    return statistics.median(values) if values else float("nan")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("results")
    parser.add_argument("--commit", default="?")
    parser.add_argument("--photos", type=int, default=0)
    args = parser.parse_args()
    records = [json.loads(line) for line in open(args.results) if line.strip()]
    sources = list(dict.fromkeys(r["source"] for r in records))
    loads = [r["load"] for r in records]
    print(f"# tilescope build against vips dzsave, {args.commit}")
    print()
    print(f"Load average (1 min) at the runs' ends: {min(loads):.1f} to {max(loads):.1f}. Medians of the runs; "
          "peaks sampled every 50 ms from /proc/PID/status for both tools.")
    print()
    print("| source | runs | wall, tilescope / dzsave | CPU, tilescope / dzsave | peak RssAnon, tilescope / dzsave "
          "| peak RSS, tilescope / dzsave | preview published after (share of the build) |")
    print("|---|---:|---:|---:|---:|---:|---:|")
    phase_rows = []
    for source in sources:
        mine = [r for r in records if r["source"] == source and r["tool"] == "tilescope" and r["status"] == 0]
        theirs = [r for r in records if r["source"] == source and r["tool"] == "dzsave" and r["status"] == 0]
        if not mine or not theirs:
            print(f"| {source} | | a tool failed | | | | |")
            continue

        def pair(key, unit, digits=2):
            a, b = median([r[key] for r in mine]), median([r[key] for r in theirs])
            return f"{a:.{digits}f} / {b:.{digits}f} {unit} = **{a / b:.2f}x**"

        parsed = [phases_of(r["log"]) for r in mine]
        previews = [p[3] for p in parsed if p[3] is not None]
        wall = median([r["wall_seconds"] for r in mine])
        preview = "" if not previews or source == "photos" else f"{median(previews):.2f} s ({median(previews) / wall:.1%})"
        average = [r for r in records if r["source"] == source and r["tool"] == "vips avg"]
        if average:
            decode = median([r["wall_seconds"] for r in average])
            preview += f"; `vips avg` (its decode) {decode:.2f} s, bound {decode * 1.1:.2f} s"
        eighth = [r for r in records if r["source"] == source and r["tool"] == "vips avg shrink 8"]
        if eighth:
            decode = median([r["wall_seconds"] for r in eighth])
            preview += (f"; libjpeg's 1/8 decode (`vips avg` shrink 8) {decode:.2f} s = "
                        f"{decode / median([r['wall_seconds'] for r in theirs]):.1%} of dzsave's wall")
        name = f"{args.photos} photos 4032x3024" if source == "photos" else source
        print(f"| {name} | {len(mine)} | {pair('wall_seconds', 's')} | {pair('cpu_seconds', 's')} | "
              f"{pair('peak_anon_mb', 'MB', 1)} | {pair('peak_rss_mb', 'MB', 1)} | {preview} |")
        images = max(1, median([p[2] for p in parsed]))
        names = list(dict.fromkeys(name for p in parsed for name in p[0]))
        # The catalog's transaction runs on a thread of its own beside libvips's start: not added to the phases.
        inside = median([sum(p[0].values()) for p in parsed])
        cells = [f"{name} {median([p[0].get(name, 0) for p in parsed]) / images * 1000:.0f}" for name in names]
        catalog = median([p[4] for p in parsed]) / images * 1000
        rest = (wall - inside) / images * 1000
        memory = ", ".join(f"{name} {max(p[1].get(name, 0) for p in parsed)}" for name in names
                           if any(name in p[1] for p in parsed))
        phase_rows.append((name, images, wall / images * 1000,
                           median([r["wall_seconds"] for r in theirs]) / images * 1000,
                           ", ".join(cells + [f"process, libvips's start and untimed {rest:.0f} (the catalog {catalog:.1f} beside it)"]), memory))
    before = [r for r in records if r["tool"] == "before" and r["status"] == 0]
    if before:
        print()
        print("Against `BENCH_BEFORE` (the same runs, alternating): tilescope / before")
        print()
        print("| source | wall | CPU | peak RssAnon | peak RSS |")
        print("|---|---:|---:|---:|---:|")
        for source in sources:
            mine = [r for r in records if r["source"] == source and r["tool"] == "tilescope" and r["status"] == 0]
            old = [r for r in before if r["source"] == source]
            if mine and old:
                cells = []
                for key, unit in (("wall_seconds", "s"), ("cpu_seconds", "s"), ("peak_anon_mb", "MB"), ("peak_rss_mb", "MB")):
                    a, b = median([r[key] for r in mine]), median([r[key] for r in old])
                    cells.append(f"{a:.2f} / {b:.2f} {unit} = **{a / b:.2f}x**")
                print(f"| {source} | " + " | ".join(cells) + " |")
    print()
    print("Tilescope's phases, ms per image (medians of the runs; a photo folder's summed over its images, then per "
          "image), and the largest RssAnon (MB) seen in each:")
    print()
    print("| source | images | ms an image, tilescope / dzsave | phases, ms an image | RssAnon by phase, MB |")
    print("|---|---:|---:|---|---|")
    for name, images, mine, theirs, cells, memory in phase_rows:
        print(f"| {name} | {images} | {mine:.0f} / {theirs:.0f} | {cells} | {memory} |")


if __name__ == "__main__":
    main()
