import { Pyramid } from '../geometry/Pyramid.js';
import { resolutionFor, settle } from '../geometry/Viewport.js';
import { knownTileAccept, tileAccept } from './TileFormat.js';

/**
 * Asks for an image's base tile, and its preview where the view the viewer will open with (the whole image, at its
 * minimum zoomScale) shows the preview level (rule 8 answers `low`), as soon as its record is in, before the page's
 * viewer and the modules it needs have been made; the viewer's layer then takes these bytes (`prefetch`). On a 150 ms,
 * 1.6 Mbit/s connection the record was in 0.37 s after the navigation and the preview asked for at 0.86 s, after the
 * modules' three round trips on HTTP/1.1's six connections, when the page loaded its modules as files
 * (docs/benchmarks.md).
 *
 * `view` is the size the viewer will have, in CSS pixels: the window's by default. A viewer no larger (bars, insets,
 * a page that is part of the window) opens at the same zoomScale or a smaller one, which needs the preview as much,
 * so the estimate never asks for a preview the view will not draw. Only Tilescope's own images have a preview image
 * (a foreign source's is a tile of its own), and only an image opened at its minimum zoomScale: a page that restores
 * another view passes `opensAtFit: false` (the base tile is asked for all the same); nothing for an image not ready.
 * Returns whether it asked for the preview.
 */
export function prefetchPreview(image, { view = { width: innerWidth, height: innerHeight }, opensAtFit = true,
                                         scale = deviceScale() } = {}) {
  const url = image?.urls?.preview;
  // A record with a status is drawn only once it is ready (gallery/Page.js): a building image has no tiles yet.
  if (!url || image.previewSide || typeof image.urls.tiles !== 'string') return false;
  if (image.status !== undefined && image.status !== 'ready') return false;
  const pyramid = new Pyramid(image.width, image.height, image.tileSize, image.overlap);
  // The base tile, under every view from the first frame.
  prefetch(image.urls.tiles.replace('{level}', pyramid.baseLevel).replace('{col}', 0).replace('{row}', 0));
  if (!opensAtFit) return false;
  const { zoomScale } = settle(pyramid, { width: Math.max(1, view.width), height: Math.max(1, view.height), scale });
  if (resolutionFor(pyramid, zoomScale, scale).level !== null) return false;
  prefetch(url);
  return true;
}

/** Device pixels per CSS pixel as the scroll view counts them (ScrollView.deviceScale: 1 to 4). */
function deviceScale() {
  return Math.min(4, Math.max(1, window.devicePixelRatio || 1));
}

/**
 * Answers asked for before any loader wanted them (`prefetch`), by absolute URL, each a promise of `[url, blob]`:
 * the first loader to want that URL takes it instead of asking again (`takePrefetched`). Here rather than in
 * TileLoader.js so that a page's first step needs only this module, the geometry and the API (a page that loads its
 * modules as files: one round of requests on HTTP/1.1's six connections, not two).
 */
const early = new Map();

/**
 * Asks for a tile now, before any loader exists to want it, with the `Accept` a loader's request would send, at
 * `high` priority. Not cancellable: ask only for what the view will want.
 */
export function prefetch(url) {
  const key = absoluteUrl(url);
  if (early.has(key)) return;
  const known = knownTileAccept();
  const start = (accept) => fetch(url, { priority: 'high', ...(accept ? { headers: { Accept: accept } } : {}) });
  const answer = (known === undefined ? tileAccept().then(start) : start(known)).then(bytesOf(url));
  answer.catch(() => {}); // a failure is the taker's to handle, as its own request's would be
  early.set(key, answer);
}

/** The answer `prefetch` asked for at `url`, once (undefined if none): TileLoader.js's first want of it. */
export function takePrefetched(url) {
  const key = absoluteUrl(url);
  const answer = early.get(key);
  early.delete(key);
  return answer;
}

/** An answer's `[url, blob]`, or an Error for an error status: what a tile request resolves to. */
export function bytesOf(url) {
  return (response) => {
    if (!response.ok) throw new Error(`HTTP ${response.status} for ${url}`);
    return response.blob().then((blob) => [response.url, blob]);
  };
}

/** A URL as the page resolves it: a record's relative URL and its absolute form (Sources.js) name one answer. */
function absoluteUrl(url) {
  return new URL(url, location.href).href;
}
