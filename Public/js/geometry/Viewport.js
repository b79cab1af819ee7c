/**
 * The scroll-view geometry of issue 3 (rules 1-10, zoom-to-rect, double tap), computed locally.
 * Pure arithmetic, no DOM: the same numbers as GET /api/images/{id}/viewport.
 *
 * A request is {width, height, scale?, zoomScale?, offsetX?, offsetY?, insets?, minZoomScale?, maxZoomScale?,
 * zoomRect?, tap?, factor?, tapDirection?} with insets = {top, left, bottom, right} in points, zoomRect =
 * {x, y, width, height} and tap = {x, y} in image pixels: the JSON body of POST /api/images/{id}/viewport.
 *
 * Every formula is written in the same order of operations as Sources/ScrollGeometry, so that the numbers are
 * equal to the last bit (a browser test compares them on thousands of random requests): `w - (l + r)` and
 * `w - l - r` can differ in the last digit.
 */
export const EPSILON = 1e-9;

const floorEps = (x) => Math.floor(x + EPSILON);
const ceilEps = (x) => Math.ceil(x - EPSILON);
const clamp = (x, lo, hi) => Math.min(Math.max(x, lo), hi);

export function normalizedInsets(insets) {
  return { top: 0, left: 0, bottom: 0, right: 0, ...(insets || {}) };
}

/**
 * Rules 1 and 2: the available area and the zoom limits. A maximum sent alone below aspect fit pulls the
 * minimum down to it (an explicit limit wins); the range is never inverted.
 */
export function zoomLimits(pyramid, request) {
  const insets = normalizedInsets(request.insets);
  const scale = request.scale ?? 1;
  const aw = request.width - (insets.left + insets.right);
  const ah = request.height - (insets.top + insets.bottom);
  let minimum = request.minZoomScale ?? Math.min(aw / pyramid.width, ah / pyramid.height);
  if (request.minZoomScale == null && request.maxZoomScale != null) minimum = Math.min(minimum, request.maxZoomScale);
  const maximum = Math.max(minimum, request.maxZoomScale ?? Math.max(minimum, 2 / scale));
  return { aw, ah, insets, scale, minimum, maximum };
}

/** Rule 3. */
export function clampZoom(pyramid, request, zoomScale) {
  const { minimum, maximum } = zoomLimits(pyramid, request);
  return clamp(zoomScale ?? minimum, minimum, maximum);
}

/** Rule 4 on one axis: the allowed range, or the centred offset when the content is smaller. */
export function offsetRange(content, viewportSize, leading, trailing) {
  const lo = -leading;
  const hi = content + trailing - viewportSize;
  if (hi < lo) {
    const available = viewportSize - leading - trailing;
    const centred = -leading - (available - content) / 2;
    return { lo: centred, hi: centred, centred: true };
  }
  return { lo, hi, centred: false };
}

/** The allowed offset ranges per axis for a zoomScale (already clamped). */
export function offsetRanges(pyramid, request, zoomScale) {
  const insets = normalizedInsets(request.insets);
  return {
    x: offsetRange(pyramid.width * zoomScale, request.width, insets.left, insets.right),
    y: offsetRange(pyramid.height * zoomScale, request.height, insets.top, insets.bottom),
  };
}

/** Rules 3 and 4: the zoomScale and contentOffset a scroll view settles at. */
export function settle(pyramid, request) {
  const zoomScale = clampZoom(pyramid, request, request.zoomScale);
  const ranges = offsetRanges(pyramid, request, zoomScale);
  return {
    zoomScale,
    offsetX: clamp(request.offsetX ?? 0, ranges.x.lo, ranges.x.hi),
    offsetY: clamp(request.offsetY ?? 0, ranges.y.lo, ranges.y.hi),
  };
}

/** Rule 8: "low" (preview) or "high" with the level; threshold = s(P) / scale. */
export function resolutionFor(pyramid, zoomScale, scale) {
  const previewScale = pyramid.scaleOfLevel(pyramid.previewLevel());
  const density = zoomScale * scale;
  const threshold = previewScale / scale;
  if (density <= previewScale + EPSILON) return { resolution: 'low', level: null, threshold };
  return { resolution: 'high', level: pyramid.levelForDensity(density), threshold };
}

/** Rule 5: the visible part of the image, in image pixels: the intersection divided by zoomScale, as the server. */
export function visibleRect(pyramid, request, zoomScale, offsetX, offsetY) {
  const cw = pyramid.width * zoomScale;
  const ch = pyramid.height * zoomScale;
  const x0 = Math.max(offsetX, 0);
  const y0 = Math.max(offsetY, 0);
  const x1 = Math.min(offsetX + request.width, cw);
  const y1 = Math.min(offsetY + request.height, ch);
  if (!(x1 > x0 && y1 > y0)) return { x: 0, y: 0, width: 0, height: 0 };
  return { x: x0 / zoomScale, y: y0 / zoomScale, width: (x1 - x0) / zoomScale, height: (y1 - y0) / zoomScale };
}

/** Rule 10: where a tile, overlap included, is drawn in content coordinates (points). */
export function tileFrame(pyramid, level, column, row, zoomScale) {
  const rect = pyramid.tileRect(level, column, row);
  const k = zoomScale / pyramid.scaleOfLevel(level);
  return { x: rect.x * k, y: rect.y * k, width: rect.width * k, height: rect.height * k };
}

/**
 * Integer [low, high) within [0, extent], never empty: a sliver thinner than the tolerance still needs the
 * pixel it lies in.
 */
function levelSpan(low, high, extent) {
  let start = clamp(floorEps(low), 0, extent);
  let end = clamp(ceilEps(high), 0, extent);
  if (end <= start) {
    start = Math.min(start, extent - 1);
    end = start + 1;
  }
  return [start, end];
}

/**
 * Rule 9: the tiles of a level that a rectangle of image pixels touches, nearest first to `centre` (image
 * pixels; the viewport's centre): by the distance to each tile's grid cell (no overlap, clipped to the level),
 * then by row, then by column, so the order is total and the same as the server's.
 */
export function tilesCovering(pyramid, level, rect, zoomScale, centre) {
  const s = pyramid.scaleOfLevel(level);
  const size = pyramid.sizeOfLevel(level);
  const T = pyramid.tileSize;
  const [x0, x1] = levelSpan(rect.x * s, (rect.x + rect.width) * s, size.width);
  const [y0, y1] = levelSpan(rect.y * s, (rect.y + rect.height) * s, size.height);
  const cx = centre.x * s;
  const cy = centre.y * s;
  const tiles = [];
  for (let row = Math.floor(y0 / T); row < Math.ceil(y1 / T); row++) {
    for (let column = Math.floor(x0 / T); column < Math.ceil(x1 / T); column++) {
      const dx = (column * T + Math.min((column + 1) * T, size.width)) / 2 - cx;
      const dy = (row * T + Math.min((row + 1) * T, size.height)) / 2 - cy;
      tiles.push({ level, column, row, frame: tileFrame(pyramid, level, column, row, zoomScale),
                   distance: dx * dx + dy * dy });
    }
  }
  tiles.sort((a, b) => a.distance - b.distance || a.row - b.row || a.column - b.column);
  return tiles.map(({ distance, ...tile }) => tile);
}

/**
 * The whole viewport answer (rules 1-10), shaped like the API's response.
 * `urls` optionally gives {tile(level, column, row), preview} so tiles carry their URL.
 */
export function computeViewport(pyramid, asked, urls = null) {
  const request = applyZoom(pyramid, asked);
  const limits = zoomLimits(pyramid, request);
  const { zoomScale, offsetX, offsetY } = settle(pyramid, request);
  const visible = visibleRect(pyramid, request, zoomScale, offsetX, offsetY);
  const { resolution, level, threshold } = resolutionFor(pyramid, zoomScale, limits.scale);
  const centre = { x: (offsetX + request.width / 2) / zoomScale, y: (offsetY + request.height / 2) / zoomScale };
  const tiles = level === null ? [] : tilesCovering(pyramid, level, visible, zoomScale, centre);
  if (urls) for (const tile of tiles) tile.url = urls.tile(tile.level, tile.column, tile.row);
  const previewSize = pyramid.sizeOfLevel(pyramid.previewLevel());
  return {
    image: { width: pyramid.width, height: pyramid.height, tileSize: pyramid.tileSize,
             overlap: pyramid.overlap, maxLevel: pyramid.maxLevel },
    zoomScale,
    minimumZoomScale: limits.minimum,
    maximumZoomScale: limits.maximum,
    contentSize: { width: pyramid.width * zoomScale, height: pyramid.height * zoomScale },
    contentOffset: { x: offsetX, y: offsetY },
    visibleRect: visible,
    resolution,
    threshold,
    level,
    preview: { url: urls ? urls.preview : null, width: previewSize.width, height: previewSize.height },
    tiles,
  };
}

/** The request at `zoomScale` with the image point `centre` at the centre of the available area (not settled). */
function centred(pyramid, request, centre, zoomScale) {
  const { aw, ah, insets } = zoomLimits(pyramid, request);
  return {
    ...request,
    zoomScale,
    offsetX: centre.x * zoomScale - insets.left - aw / 2,
    offsetY: centre.y * zoomScale - insets.top - ah / 2,
  };
}

/**
 * zoomToRect (image pixels): zoomScale = clamp(min(aw / w, ah / h)); the rectangle's centre goes
 * to the centre of the available area; then rule 4. Returns the settled {zoomScale, offsetX, offsetY}.
 */
export function zoomToRect(pyramid, request, rect) {
  return settle(pyramid, zoomedToRect(pyramid, request, rect));
}

function zoomedToRect(pyramid, request, rect) {
  const { aw, ah } = zoomLimits(pyramid, request);
  const zoomScale = clampZoom(pyramid, request, Math.min(aw / rect.width, ah / rect.height));
  return centred(pyramid, request, { x: rect.x + rect.width / 2, y: rect.y + rect.height / 2 }, zoomScale);
}

/** The factor of a double tap; a two-finger tap divides by it (`direction` 'out'), exactly as the server. */
export const TAP_FACTOR = 1.5;

/**
 * The double tap at an image point: newScale = clamp(zoomScale x factor), or clamp(zoomScale / factor) with
 * direction 'out' (the two-finger tap); the tap goes to the centre of the available area; then rule 4.
 */
export function tapZoom(pyramid, request, point, factor = TAP_FACTOR, direction = 'in') {
  return settle(pyramid, tapped(pyramid, request, point, factor, direction));
}

function tapped(pyramid, request, point, factor, direction) {
  const current = clampZoom(pyramid, request, request.zoomScale);
  const wanted = direction === 'out' ? current / factor : current * factor;
  return centred(pyramid, request, point, clampZoom(pyramid, request, wanted));
}

/** The request after its zoom (`zoomRect`, or `tap` with `factor` and `tapDirection`), as the server applies it. */
export function applyZoom(pyramid, request) {
  if (request.zoomRect) return zoomedToRect(pyramid, request, request.zoomRect);
  if (request.tap) return tapped(pyramid, request, request.tap, request.factor ?? TAP_FACTOR, request.tapDirection ?? 'in');
  return request;
}

/**
 * Zoom keeping the image point under `viewPoint` (points in the view) fixed, as wheel and pinch do;
 * then rule 3 and 4. `pan` moves the content along, for a pinch whose centre travels.
 */
export function zoomAround(pyramid, request, zoomScale, viewPoint, pan = { x: 0, y: 0 }) {
  const current = clampZoom(pyramid, request, request.zoomScale);
  const ix = ((request.offsetX ?? 0) + viewPoint.x) / current;
  const iy = ((request.offsetY ?? 0) + viewPoint.y) / current;
  const next = clampZoom(pyramid, request, zoomScale);
  return settle(pyramid, {
    ...request,
    zoomScale: next,
    offsetX: ix * next - viewPoint.x - pan.x,
    offsetY: iy * next - viewPoint.y - pan.y,
  });
}

/** The view point (points) under which an image point lies. */
export function imagePointAt(request, zoomScale, viewPoint) {
  return { x: ((request.offsetX ?? 0) + viewPoint.x) / zoomScale, y: ((request.offsetY ?? 0) + viewPoint.y) / zoomScale };
}
