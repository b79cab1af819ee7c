"""OpenSeadragon pointed at `/dzi/{id}.dzi` without `?v=` (as its users write it), in headless Chromium
(issue #13, goal 7): it must take the descriptor's `Url` (the current version's tiles folder) and load
every tile from there, each answered `immutable`, with no tile from the unversioned, `no-cache` folder.

Usage: dzi_viewer.py http://127.0.0.1:PORT path/to/openseadragon.min.js IMAGE_ID
"""
import json
import sys
import urllib.request

from playwright.sync_api import sync_playwright

base, osd, image_id = sys.argv[1].rstrip("/"), sys.argv[2], sys.argv[3]
with urllib.request.urlopen(f"{base}/api/images/{image_id}") as answer:
    version = json.load(answer)["version"]
versioned = f"{base}/dzi/{image_id}/{version}_files/"
unversioned = f"{base}/dzi/{image_id}_files/"

SCRIPT = """
async (descriptor) => {
  const viewer = OpenSeadragon({ id: 'viewer', tileSources: descriptor, showNavigationControl: false,
                                 crossOriginPolicy: 'Anonymous', animationTime: 0 });
  const failed = [];
  viewer.addHandler('tile-load-failed', e => failed.push(e.message || 'a tile failed'));
  const within = (ms, what, promise) => Promise.race([promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(what + ': no answer in ' + ms + ' ms')), ms))]);
  await within(20000, 'open', new Promise((resolve, reject) => {
    viewer.addOnceHandler('open', resolve);
    viewer.addOnceHandler('open-failed', e => reject(new Error('open-failed: ' + e.message)));
  }));
  const item = viewer.world.getItemAt(0);
  if (!item.getFullyLoaded()) {
    await within(20000, 'tiles', new Promise(resolve =>
      item.addHandler('fully-loaded-change', e => { if (e.fullyLoaded) resolve(); })));
  }
  // Zoom in once, so tiles of a deeper level come too.
  viewer.viewport.zoomBy(4);
  viewer.viewport.applyConstraints(true);
  await new Promise(resolve => setTimeout(resolve, 200));
  if (!item.getFullyLoaded()) {
    await within(20000, 'zoomed tiles', new Promise(resolve =>
      item.addHandler('fully-loaded-change', e => { if (e.fullyLoaded) resolve(); })));
  }
  return { tilesUrl: item.source.tilesUrl, failed };
}
"""

failures = []
tiles = []
with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    page = browser.new_page(viewport={"width": 800, "height": 600})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("response", lambda r: "/dzi/" in r.url and r.url.endswith(".jpeg")
            and tiles.append((r.url, r.status, r.headers.get("cache-control", ""))))
    page.set_default_timeout(60000)
    page.set_content('<div id="viewer" style="width:800px;height:600px"></div>')
    page.add_script_tag(path=osd)
    try:
        report = page.evaluate(SCRIPT, f"{base}/dzi/{image_id}.dzi")
    except Exception as error:  # the page's own error is the failure to report
        report = {"tilesUrl": None, "failed": [str(error)]}
    browser.close()

if report["tilesUrl"] != versioned:
    failures.append(f"OpenSeadragon's tiles URL is {report['tilesUrl']}, not the descriptor's Url {versioned}")
failures += [f"tile failed: {message}" for message in report["failed"][:3]]
if len(tiles) < 2:
    failures.append(f"only {len(tiles)} tiles loaded")
for url, status, cache in tiles:
    if not url.startswith(versioned):
        failures.append(f"a tile from outside the versioned folder: {url}")
    elif status != 200 or "immutable" not in cache:
        failures.append(f"{url}: {status}, Cache-Control {cache!r}")
if any(url.startswith(unversioned) for url, _, _ in tiles):
    failures.append("tiles were asked for in the unversioned (no-cache) folder")
failures += [f"page error: {error}" for error in errors]
for failure in failures:
    print("FAIL:", failure)
print(f"dzi viewer: {len(tiles)} tiles from {report['tilesUrl']}, all immutable: {not failures}; {len(failures)} failures")
sys.exit(1 if failures else 0)
