"""Request lists for the IIIF benchmark, from each server's own info.json.

tiles:   what a deep-zoom viewer asks for: tiles of the server's own tile grid at its own
         scale factors (254 px for tilescope, the TIFF's 256 px for iipsrv), sampled the
         same way with the same seed.
regions: arbitrary regions at arbitrary sizes, identical for both servers.
Both use only syntax IIIF 2.1 and 3.0 share (x,y,w,h / w, / 0 / default.jpg), since
Debian's iipsrv 1.1 speaks IIIF 2.1.
"""
import json, math, random, sys, urllib.request

def info(url):
    with urllib.request.urlopen(url) as reply:
        return json.load(reply)

def tiles(doc, prefix, count, seed):
    rng = random.Random(seed)
    width, height = doc["width"], doc["height"]
    grid = doc["tiles"][0]
    size = grid["width"]
    candidates = []
    for factor in grid["scaleFactors"]:
        span = size * factor
        columns, rows = math.ceil(width / span), math.ceil(height / span)
        if columns * rows < 2:
            continue
        for row in range(rows):
            for column in range(columns):
                x, y = column * span, row * span
                w, h = min(span, width - x), min(span, height - y)
                candidates.append(f"{prefix}/{x},{y},{w},{h}/{math.ceil(w / factor)},/0/default.jpg")
    rng.shuffle(candidates)
    return candidates[:count]

def regions(width, height, prefix, count, seed):
    rng = random.Random(seed)
    out = []
    for _ in range(count):
        size = rng.randint(128, 1024)
        w = min(width, rng.randint(size, size * 8))
        h = min(height, max(16, int(w * rng.uniform(0.5, 1.5))))
        x, y = rng.randint(0, width - w), rng.randint(0, height - h)
        out.append(f"{prefix}/{x},{y},{w},{h}/{min(size, w)},/0/default.jpg")
    return out

if __name__ == "__main__":
    kind, info_url, prefix, count, seed, out = sys.argv[1:7]
    doc = info(info_url)
    if kind == "tiles":
        paths = tiles(doc, prefix, int(count), int(seed))
    else:
        paths = regions(doc["width"], doc["height"], prefix, int(count), int(seed))
    with open(out, "w") as f:
        f.write("\n".join(paths) + "\n")
    print(f"{kind}: {len(paths)} requests for {prefix}", file=sys.stderr)
