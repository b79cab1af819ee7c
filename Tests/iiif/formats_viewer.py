"""OpenSeadragon in headless Chromium follows Tilescope's WebP and AVIF tiles. Exits 1 otherwise.

For each modern format the server offers (webp always, avif where its libvips has an AV1 encoder):
1. Deep Zoom: the viewer opens `/dzi/{id}.dzi?format=F`; every tile it loads must be a `.F` URL
   (OpenSeadragon builds them from the descriptor's Format and keeps its query), decoded by the
   browser (a failed decode is a tile-load-failed event), and the image must be the descriptor's size.
   Each URL answers the format, or the JPEG with optimized Huffman tables where the format came out no
   smaller (docs/api.md#tile-formats); at least one tile must be the format itself.
2. IIIF: the viewer opens info.json; with the format marked supported it must take its tiles in the
   first of `preferredFormats` (webp) it supports.
OpenSeadragon 4.1 knows only jpeg/png/bmp as image formats; pages tell it what else the browser
shows with `OpenSeadragon.setImageFormatsSupported`, as the Tilescope client's TileFormat.js finds out.

Usage: formats_viewer.py http://127.0.0.1:PORT IMAGE_ID path/to/openseadragon.min.js
"""
import json
import sys
import urllib.request

from playwright.sync_api import sync_playwright

base, ident, osd = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
info = json.load(urllib.request.urlopen(f"{base}/iiif/3/{ident}/info.json"))
formats = [f for f in ("webp", "avif") if f in info["extraFormats"]]

SCRIPT = """
async ({ source, format }) => {
  OpenSeadragon.setImageFormatsSupported({ [format]: true });
  const viewer = OpenSeadragon({ id: 'viewer', tileSources: source, showNavigationControl: false,
                                 crossOriginPolicy: 'Anonymous', animationTime: 0 });
  const urls = [], failed = [];
  viewer.addHandler('tile-loaded', e => urls.push(e.tile.getUrl()));
  viewer.addHandler('tile-load-failed', e => failed.push(e.message + ' ' + e.tile.getUrl()));
  const within = (ms, what, promise) => Promise.race([promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(what + ': no answer in ' + ms + ' ms')), ms))]);
  try {
    await within(20000, 'open', new Promise((resolve, reject) => {
      viewer.addOnceHandler('open', resolve);
      viewer.addOnceHandler('open-failed', e => reject(new Error('open-failed: ' + e.message)));
    }));
    const item = viewer.world.getItemAt(0);
    if (!item.getFullyLoaded()) {
      await within(30000, 'tiles', new Promise(resolve =>
        item.addHandler('fully-loaded-change', e => { if (e.fullyLoaded) resolve(); })));
    }
    const size = item.getContentSize();
    // What each tile URL answers now: an AVIF made behind an earlier reply has had its moment, and a tile
    // whose AVIF/WebP came out no smaller than the JPEG with optimized Huffman tables answers that JPEG.
    // (An AVIF is made behind the JPEG stand-in's reply: on a slow machine give it up to 20 s.)
    let types = [];
    for (let attempt = 0; attempt < 20; attempt++) {
      types = [];
      for (const url of urls) types.push((await fetch(url, { cache: 'no-store' })).headers.get('content-type'));
      if (types.some(type => type === 'image/' + format)) break;
      await new Promise(resolve => setTimeout(resolve, 1000));
    }
    viewer.destroy();
    return { urls, failed, size: [size.x, size.y], types };
  } catch (error) {
    return { error: String(error), urls, failed };
  }
}
"""

failures = []
with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    for fmt in formats:
        cases = [("dzi", f"{base}/dzi/{ident}.dzi?format={fmt}", fmt)]
        if fmt == info["preferredFormats"][0]:
            cases.append(("iiif", f"{base}/iiif/3/{ident}/info.json", fmt))
        for kind, source, expected in cases:
            page = browser.new_page(viewport={"width": 800, "height": 600})
            errors = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.set_default_timeout(60000)
            page.set_content('<div id="viewer" style="width:800px;height:600px"></div>')
            page.add_script_tag(path=osd)
            report = page.evaluate(SCRIPT, {"source": source, "format": fmt})
            page.close()
            where = f"{kind} {fmt}"
            if "error" in report:
                failures.append(f"{where}: {report['error']} (failed tiles: {report['failed'][:3]})")
                continue
            wrong = [u for u in report["urls"] if f".{expected}" not in u.split("?")[0][-6:]]
            if not report["urls"]:
                failures.append(f"{where}: no tile loaded")
            if wrong:
                failures.append(f"{where}: tiles not in {expected}: {wrong[:3]}")
            if report["failed"]:
                failures.append(f"{where}: tiles failed: {report['failed'][:3]}")
            if report["size"] != [info["width"], info["height"]]:
                failures.append(f"{where}: the viewer sees {report['size']}, the image is {info['width']}x{info['height']}")
            # The format's own tiles, or the JPEG where the format was no smaller (the same picture, fewer bytes);
            # at least one tile must be the format itself, decoded by the browser.
            types = sorted(set(report["types"]))
            if not set(types) <= {f"image/{expected}", "image/jpeg"}:
                failures.append(f"{where}: tiles are {types}, not image/{expected} or image/jpeg")
            if f"image/{expected}" not in types:
                failures.append(f"{where}: no tile is image/{expected} ({types})")
            failures += [f"{where}: page error: {e}" for e in errors]
            counts = {t: report["types"].count(t) for t in sorted(set(report["types"]))}
            print(f"formats viewer {where}: {len(report['urls'])} tiles, e.g. {report['urls'][:1]}, {counts}")
    browser.close()

if "webp" not in formats:
    failures.append("info.json offers no webp")
for failure in failures:
    print("FAIL:", failure)
print(f"formats viewer: {', '.join(formats)} in OpenSeadragon, {len(failures)} failures")
sys.exit(1 if failures else 0)
