"""A real IIIF viewer on a live tilescope's Presentation manifest, in headless Chromium.

OpenSeadragon (the copy shipped in PyPI's tissuumaps wheel: no registry here ships a
Presentation viewer such as Mirador or the Universal Viewer) reads the gallery Manifest the
way a Presentation viewer does: one page per Canvas, its tile source the painting body's
IIIF Image API service. For every page the viewer must open the service's info.json, load
every tile it needs without a failure, and see an image of the Canvas's size. Exits 1 otherwise.

Usage: viewer.py http://127.0.0.1:PORT path/to/openseadragon.min.js
"""
import sys

from playwright.sync_api import sync_playwright

base, osd = sys.argv[1].rstrip("/"), sys.argv[2]
manifest_url = f"{base}/iiif/presentation/gallery/manifest.json"

# Runs in the page: opens each Canvas of the Manifest as a page of a sequence and reports
# what the viewer saw. Every wait has its own deadline, so a stuck viewer fails instead of hanging.
SCRIPT = """
async (manifestUrl) => {
  const manifest = await (await fetch(manifestUrl)).json();
  const canvases = manifest.items;
  const sources = canvases.map(c => c.items[0].items[0].body.service[0].id + '/info.json');
  const viewer = OpenSeadragon({ id: 'viewer', tileSources: sources, sequenceMode: true,
                                 showNavigationControl: false, showSequenceControl: false,
                                 crossOriginPolicy: 'Anonymous', animationTime: 0 });
  const report = [];
  const within = (ms, what, promise) => Promise.race([promise,
    new Promise((_, reject) => setTimeout(() => reject(new Error(what + ': no answer in ' + ms + ' ms')), ms))]);
  for (let page = 0; page < canvases.length; page++) {
    let loaded = 0, failed = [], urls = [];
    const onLoaded = e => { loaded++; urls.push(e.tile.getUrl ? e.tile.getUrl() : e.tile.url); };
    const onFailed = e => failed.push(e.message || String(e.tile && e.tile.getUrl && e.tile.getUrl()));
    viewer.addHandler('tile-loaded', onLoaded);
    viewer.addHandler('tile-load-failed', onFailed);
    const opened = new Promise((resolve, reject) => {
      viewer.addOnceHandler('open', resolve);
      viewer.addOnceHandler('open-failed', e => reject(new Error('open-failed: ' + e.message)));
    });
    // Page 0 opens by itself; the handlers above are in place before its info.json arrives.
    if (page > 0) viewer.goToPage(page);
    try {
      await within(20000, 'open page ' + page, opened);
      const item = viewer.world.getItemAt(0);
      if (!item.getFullyLoaded()) {
        await within(20000, 'tiles of page ' + page, new Promise(resolve =>
          item.addHandler('fully-loaded-change', e => { if (e.fullyLoaded) resolve(); })));
      }
      const size = item.getContentSize();
      report.push({ page, canvas: [canvases[page].width, canvases[page].height], image: [size.x, size.y],
                    source: item.source['@id'] || item.source.id, loaded, failed, urls: urls.slice(0, 3) });
    } catch (error) {
      report.push({ page, error: String(error), loaded, failed });
    }
    viewer.removeHandler('tile-loaded', onLoaded);
    viewer.removeHandler('tile-load-failed', onFailed);
  }
  return report;
}
"""

failures = []
with sync_playwright() as playwright:
    browser = playwright.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
    page = browser.new_page(viewport={"width": 800, "height": 600})
    errors = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.set_default_timeout(60000)
    page.set_content('<div id="viewer" style="width:800px;height:600px"></div>')
    page.add_script_tag(path=osd)
    report = page.evaluate(SCRIPT, manifest_url)
    browser.close()

for entry in report:
    where = f"page {entry['page']}"
    if "error" in entry:
        failures.append(f"{where}: {entry['error']}")
        continue
    if entry["image"] != entry["canvas"]:
        failures.append(f"{where}: the viewer sees {entry['image']}, the Canvas is {entry['canvas']}")
    if entry["loaded"] == 0:
        failures.append(f"{where}: no tile loaded")
    if entry["failed"]:
        failures.append(f"{where}: tiles failed: {entry['failed'][:3]}")
    if not all(url.startswith(entry["source"] + "/") for url in entry["urls"]):
        failures.append(f"{where}: tiles {entry['urls']} are not from the service {entry['source']}")
    print(f"viewer {where}: {entry['image'][0]}x{entry['image'][1]} from {entry['source']}, {entry['loaded']} tiles")
failures += [f"page error: {error}" for error in errors]
if len(report) < 2:
    failures.append(f"the viewer paged through {len(report)} canvases, expected every test image")
for failure in failures:
    print("FAIL:", failure)
print(f"viewer: {len(report)} canvases opened in OpenSeadragon, {len(failures)} failures")
sys.exit(1 if failures else 0)
