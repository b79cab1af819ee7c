import { visibleRect, resolutionFor, tilesCovering } from '../geometry/Viewport.js';
import { LevelCanvas } from './LevelCanvas.js';
import { TileCache } from './TileCache.js';
import { TileLoader } from './TileLoader.js';

/**
 * Fills a URL template such as /dzi/a_files/{level}/{col}_{row}.jpeg?v=3; a function template (a IIIF
 * source, whose tile URLs are regions, not indices) is called with (level, column, row).
 */
export function tileURL(template, level, column, row) {
  if (typeof template === 'function') return template(level, column, row);
  return template.replace('{level}', level).replace('{col}', column).replace('{row}', row);
}

const keyOf = (level, column, row) => `${level}/${column}/${row}`;

/** The cache key of a tile descriptor: its own (the preview's) or its level, column and row. */
const keyOfTile = (t) => t.key ?? keyOf(t.level, t.column, t.row);

/** The key of Tilescope's preview image, drawn as the whole preview level. */
export const PREVIEW_KEY = 'preview';

/** The floor of a layer whose base tile failed: nothing to wait for (`#floor`). */
const NO_FLOOR = {};

/** How long past its announced duration an animation's end state stays the only thing worth fetching. */
const EXPECTATION_SLACK_MS = 250;

/**
 * Draws one image: the base tile at once and always underneath, and over it the tiles of the level the view needs.
 * Nothing is drawn before the base tile or the preview image is: a tile that arrives first waits, decoded, so
 * that no frame shows part of the image over nothing.
 *
 * The base is the largest level that fits in one tile (128 x 128 for a 16384 x 16384 image): one small request,
 * so no part of the image is ever blank. Where the viewport API answers `low` (the preview suffices), the layer
 * draws Tilescope's `preview.jpeg` as the whole preview level: it is that level's pixels at that level's exact
 * size, encoded like the tiles, so one request replaces the level's tiles (25 for a 16384 x 16384 image) for
 * about their bytes. Where the view needs a finer level (at a screen scale of 2, fit already does) the preview
 * is never fetched. A foreign source's "preview" is a tile of its own, so there the preview level's tiles are
 * drawn as any other level's.
 *
 * What is fetched is decided apart from what is drawn:
 * - during an animation whose end is announced (`expect`), only the end state's tiles are fetched, not those of
 *   every intermediate zoomScale; the frames in between draw whatever is already there (the base, tiles of
 *   any level in the cache), so nothing is ever blank;
 * - otherwise the current view's tiles, nearest the centre first, and while panning (dragging, gliding) the
 *   row or column of tiles just ahead in the direction of the pan;
 * - tiles no longer wanted are aborted or never started (`TileLoader`).
 * Loaded tiles of other levels stay drawn under the needed ones until the needed level is complete.
 *
 * Each level shown is drawn into canvases of 4 x 4 tiles (`LevelCanvas`) as its tiles arrive, each tile inside its
 * own grid cell, stacked by level (the needed one on top, the base at the bottom); a frame of a gesture moves and
 * scales those few canvases, not every tile. A transparent image's (`image.alpha`) lower levels would show through
 * the needed ones' clear pixels: there each level's canvases are cleared under the cells of the tiles of the levels
 * above them. Decoded tiles (ImageBitmaps) live in a cache bounded in bytes; the canvases hold a copy of those
 * shown (`canvasBytes`). `isComplete()` and `onComplete` tell when every tile the current
 * view needs at its level is drawn (the viewer's `fullyLoaded`).
 */
export class TileLayer {
  constructor(container, image, pyramid, { maxBytes, concurrency = 6, held = false } = {}) {
    this.image = image;
    this.pyramid = pyramid;
    this.cache = new TileCache(maxBytes);
    this.loader = new TileLoader({
      concurrency,
      onLoad: (tile, bitmap) => this.#loaded(tile, bitmap),
      onError: (tile) => this.#failed(tile),
    });
    this.content = document.createElement('div');
    this.content.className = 'content';
    container.append(this.content);
    this.baseLevel = TileLayer.baseLevel(pyramid);
    this.previewLevel = pyramid.previewLevel();
    // Tilescope's own images have a preview image of the preview level (a foreign source's is one of its tiles).
    this.previewTile = !image.previewSide && image.urls?.preview
      ? { key: PREVIEW_KEY, level: this.previewLevel, column: 0, row: 0, whole: true, url: image.urls.preview }
      : null;
    this.shown = new Set(); // tiles drawn in the level canvases now
    this.canvases = new Map(); // level -> LevelCanvas
    this.needed = new Map(); // key -> tile of the current view at its level
    this.failed = new Set(); // keys that failed: not asked for again by this layer
    this.level = null;
    this.view = null;
    this.expected = null; // { view, tiles, until }: the end of an announced animation
    this.direction = null; // { x, y } in -1, 0, 1: where a pan is heading
    this.wasComplete = false;
    this.onChange = null; // a tile arrived
    this.onComplete = null; // the view became complete
    this.onTileDrawn = null; // (tile) the first time a tile is drawn
    this.transparent = image.alpha === true;
    this.held = held; // asks for nothing until released (`hold`)
  }

  /**
   * Held, the layer starts no request (those on their way finish: aborted, their bytes would be fetched again);
   * released, it asks for what its view needs. A gallery's side pages are held while the page on screen is not
   * complete: on a slow connection their previews took the bandwidth the page on screen waited for.
   */
  hold(held) {
    if (held === this.held) return;
    this.held = held;
    if (held) this.loader.want(this.loader.startedTiles);
    else if (this.view) this.#request();
  }

  /** The largest level whose whole image is one tile. */
  static baseLevel(pyramid) {
    let level = pyramid.maxLevel;
    while (level > 0) {
      const size = pyramid.sizeOfLevel(level);
      if (size.width <= pyramid.tileSize && size.height <= pyramid.tileSize) break;
      level -= 1;
    }
    return level;
  }

  /** The base tile has arrived: some picture lies under the whole image. */
  get hasPicture() { return this.cache.peek(keyOf(this.baseLevel, 0, 0)) !== undefined; }

  /** The base tile's pixels (an ImageBitmap) once it has arrived, else null: the navigator draws its mini-map from it. */
  get baseElement() { return this.cache.peek(keyOf(this.baseLevel, 0, 0))?.bitmap ?? null; }

  /**
   * What lies under the whole image: the base tile, or until it comes the preview image (a whole level). Null
   * before either has arrived, and then nothing else is drawn either (`#layout`): a tile that came first would
   * show over nothing. A base that failed leaves the tiles to be drawn without one.
   */
  #floor() {
    const base = this.cache.peek(keyOf(this.baseLevel, 0, 0)) ?? this.cache.peek(PREVIEW_KEY);
    return base ?? (this.failed.has(keyOf(this.baseLevel, 0, 0)) ? NO_FLOOR : null);
  }

  /** Every tile the current view needs at its level is drawn (so something lies under them too). */
  isComplete() {
    if (!this.view || !this.#floor()) return false;
    for (const key of this.needed.keys()) {
      if (!this.cache.peek(key)) return false;
    }
    return true;
  }

  /** Kept for callers that read a property. */
  get complete() { return this.isComplete(); }

  /**
   * Announces the end state of an animation that starts now and lasts `duration` ms:
   * `{zoomScale, offsetX, offsetY}` (settled), in the current viewport. Until the view arrives there (or the
   * time is well past), only its tiles are fetched.
   */
  expect(target, duration) {
    if (!this.view) return;
    const view = { ...this.view, zoomScale: target.zoomScale, offsetX: target.offsetX, offsetY: target.offsetY };
    this.expected = { view, tiles: this.#tilesOf(view), until: performance.now() + duration + EXPECTATION_SLACK_MS };
    this.direction = null;
    this.#request();
  }

  /**
   * Lays out the view: `zoomScale`, the offset shown (may be rubber-banded), the viewport size, the screen
   * `scale`, and the tiles (rule 9 and 10) of `level` (null: the preview level's tiles are enough).
   */
  update(view) {
    const previous = this.view;
    this.view = { scale: previous?.scale ?? 1, ...view };
    const tiles = view.level === null ? this.#tilesOf(this.view) : view.tiles;
    this.level = view.level ?? this.previewLevel;
    this.needed = new Map(tiles.map((t) => [keyOfTile(t), t]));
    this.#follow(previous);
    this.#request();
    this.#layout();
  }

  /** Removes everything: the page shows another image now. */
  destroy() {
    this.loader.abortAll();
    for (const canvas of this.canvases.values()) canvas.hide();
    this.canvases.clear();
    this.shown.clear();
    this.cache.clear((tile) => this.#release(tile));
    this.content.remove();
    this.onChange = this.onComplete = this.onTileDrawn = null;
  }

  /**
   * Drops every decoded tile (and every fetched tile's bytes) the current view neither needs nor stands on: a page
   * the gallery has turned away from, back at fit, keeps the floor and its fit's tiles, not the hundred tiles of
   * wherever it was zoomed in (its cache would otherwise stay full, up to `maxBytes`, beside the page on screen's).
   */
  shed() {
    const floor = this.#floor();
    for (const tile of [...this.cache.values()]) {
      if (tile === floor || tile.level === this.baseLevel || this.needed.has(tile.key)) continue;
      this.cache.delete(tile.key);
      this.#release(tile);
    }
    this.loader.blobs.clear(() => {});
    if (this.view) this.#layout();
  }

  /** Tiles on their way or waiting to start. */
  get loadingCount() { return this.loader.pendingKeys.length; }

  // What to fetch ------------------------------------------------------------------------------

  /** Ends an expectation the view has reached (or outlived), and notes the direction of a pan. */
  #follow(previous) {
    const view = this.view;
    if (this.expected) {
      const target = this.expected.view;
      const arrived = view.zoomScale === target.zoomScale && view.offsetX === target.offsetX
        && view.offsetY === target.offsetY;
      if (arrived || performance.now() > this.expected.until) this.expected = null;
      this.direction = null;
      return;
    }
    if (!previous || previous.zoomScale !== view.zoomScale) {
      this.direction = null;
      return;
    }
    const moveX = view.offsetX - previous.offsetX;
    const moveY = view.offsetY - previous.offsetY;
    // A jump of a viewport or more (setContentOffset, a page turn) is not a pan: nothing lies "ahead" of it.
    if (Math.abs(moveX) >= view.viewWidth || Math.abs(moveY) >= view.viewHeight) {
      this.direction = null;
      return;
    }
    const dx = Math.sign(moveX);
    const dy = Math.sign(moveY);
    if (dx !== 0 || dy !== 0) this.direction = { x: dx, y: dy };
  }

  #request() {
    if (this.held) return;
    const base = { level: this.baseLevel, column: 0, row: 0 };
    const wanted = [base, ...(this.expected ? this.expected.tiles : [...this.needed.values(), ...this.#ahead()])];
    const missing = [];
    const seen = new Set();
    for (const t of wanted) {
      const key = keyOfTile(t);
      if (seen.has(key) || this.cache.peek(key) || this.failed.has(key)) continue;
      seen.add(key);
      missing.push(t.whole ? { ...t } : { key, level: t.level, column: t.column, row: t.row,
                                          url: tileURL(this.image.urls.tiles, t.level, t.column, t.row) });
    }
    this.loader.want(missing);
  }

  /** The tiles of the view's level one tile ahead of the viewport in the direction of the pan. */
  #ahead() {
    const { view, direction } = this;
    if (!direction || !view) return [];
    const step = (this.pyramid.tileSize * view.zoomScale) / this.pyramid.scaleOfLevel(this.level);
    const shifted = { ...view, offsetX: view.offsetX + direction.x * step, offsetY: view.offsetY + direction.y * step };
    return this.#tilesOf(shifted).filter((t) => !this.needed.has(keyOfTile(t)));
  }

  /**
   * The tiles a view needs at its level, nearest its centre first; where the API says `low`, the preview image
   * (or, without one, the preview level's tiles).
   */
  #tilesOf(view) {
    const z = view.zoomScale;
    const visible = visibleRect(this.pyramid, { width: view.viewWidth, height: view.viewHeight }, z,
                                view.offsetX, view.offsetY);
    const high = resolutionFor(this.pyramid, z, view.scale).level;
    if (!(visible.width > 0 && visible.height > 0)) return [];
    // A preview that failed (a proxy that does not pass it, say) leaves the level's tiles to draw it.
    if (high === null && this.previewTile && !this.failed.has(PREVIEW_KEY)) return [this.previewTile];
    const level = high ?? this.previewLevel;
    const centre = { x: (view.offsetX + view.viewWidth / 2) / z, y: (view.offsetY + view.viewHeight / 2) / z };
    return tilesCovering(this.pyramid, level, visible, z, centre);
  }

  // What to draw -------------------------------------------------------------------------------

  #loaded(t, bitmap) {
    const rect = t.whole ? this.#wholeRect(t.level) : this.pyramid.tileRect(t.level, t.column, t.row);
    const tile = { ...t, bitmap, rect, cell: this.#cell(t), loaded: true, drawn: false,
                   bytes: bitmap.width * bitmap.height * 4 };
    this.cache.set(tile.key, tile);
    this.#arrived();
  }

  #failed(t) {
    this.failed.add(t.key);
    this.onChange?.();
  }

  #arrived() {
    if (this.view) this.#layout();
    this.onChange?.();
  }

  /**
   * Shows the needed tiles that have arrived, and under them, while the needed level is incomplete, every
   * other loaded tile that overlaps the viewport: the last good picture stays until the new one is whole.
   * Each level's tiles are drawn into that level's canvas (`LevelCanvas`); the canvases are stacked by level.
   */
  #layout() {
    const complete = this.isComplete();
    const floor = this.#floor();
    const view = this.view;
    const z = view.zoomScale;
    // The viewport in image pixels.
    const seen = { x0: view.offsetX / z, y0: view.offsetY / z,
                   x1: (view.offsetX + view.viewWidth) / z, y1: (view.offsetY + view.viewHeight) / z };
    const byLevel = new Map(); // level -> tiles to show, the preview image first
    for (const tile of this.cache.values()) {
      // The floor always; the rest only once there is a floor to draw them over.
      const keep = tile === floor || tile.level === this.baseLevel
        || (floor !== null && (this.needed.has(tile.key) || (!complete && this.#overlaps(tile, seen))));
      if (!keep) continue;
      const list = byLevel.get(tile.level) ?? [];
      if (tile.whole) list.unshift(tile); else list.push(tile);
      byLevel.set(tile.level, list);
    }
    this.#boundFinerLevels(byLevel);
    const shown = new Set();
    for (const list of byLevel.values()) for (const tile of list) shown.add(tile);
    this.shown = shown;
    // Highest first: a transparent image's lower levels are cleared under the cells of the levels above them.
    const levels = [...byLevel.keys()].sort((a, b) => this.#zIndex(b) - this.#zIndex(a));
    const above = []; // cells (image pixels) of the tiles of the levels drawn so far
    for (const level of levels) {
      const tiles = byLevel.get(level);
      const k = this.pyramid.scaleOfLevel(level); // level pixels per image pixel
      const holes = this.transparent ? above.map((c) => snapRect(c, k)) : [];
      let canvas = this.canvases.get(level);
      if (!canvas) {
        canvas = new LevelCanvas(this.content, level, { transparent: this.transparent, tileSize: this.pyramid.tileSize,
                                                         levelSize: this.pyramid.sizeOfLevel(level) });
        this.canvases.set(level, canvas);
      }
      canvas.sync(tiles, holes, scaleRect(seen, k), this.#zIndex(level));
      canvas.place(z / k, view.offsetX, view.offsetY, view.scale);
      if (this.transparent) for (const tile of tiles) above.push(scaleRect(rectOf(tile.cell), 1 / k));
    }
    for (const [level, canvas] of this.canvases) if (!byLevel.has(level)) canvas.hide();
    for (const tile of shown) {
      if (tile.drawn) continue;
      tile.drawn = true;
      this.onTileDrawn?.(tile);
    }
    this.cache.trim((tile) => this.shown.has(tile) || this.needed.has(tile.key), (tile) => this.#release(tile));
    if (complete && !this.wasComplete) {
      this.wasComplete = true;
      this.onComplete?.();
    } else if (!complete) {
      this.wasComplete = false;
    }
  }

  /**
   * A level finer than the needed one is drawn under it only while its canvas stays within four screens of device
   * pixels: zoomed out far from where it was, the cache may hold its tiles across more of the view than is worth a
   * canvas of that many pixels (the floor and the coarser levels are there under it).
   */
  #boundFinerLevels(byLevel) {
    const budget = 4 * this.view.viewWidth * this.view.viewHeight * this.view.scale * this.view.scale;
    for (const [level, tiles] of byLevel) {
      if (level <= this.level || level === this.baseLevel) continue;
      const r = boundsOf(tiles.map((t) => t.rect));
      if ((r.x1 - r.x0) * (r.y1 - r.y0) > budget) byLevel.delete(level);
    }
  }

  /** A tile's grid cell (its pixels less the overlap) in level pixels; the preview's is its whole level. */
  #cell(t) {
    const size = this.pyramid.sizeOfLevel(t.level);
    if (t.whole) return { x: 0, y: 0, width: size.width, height: size.height };
    const T = this.pyramid.tileSize;
    const x0 = t.column * T, y0 = t.row * T;
    return { x: x0, y: y0, width: Math.min(x0 + T, size.width) - x0, height: Math.min(y0 + T, size.height) - y0 };
  }

  #wholeRect(level) {
    const size = this.pyramid.sizeOfLevel(level);
    return { x: 0, y: 0, width: size.width, height: size.height };
  }

  #release(tile) {
    this.shown.delete(tile);
    // Frees the decoded pixels now rather than when the bitmap is collected.
    tile.bitmap.close();
  }

  /** The tiles drawn now (each painted in its level's canvas, which is on the page), for tests and benchmarks. */
  drawn() {
    return [...this.shown].filter((t) => this.canvases.get(t.level)?.visible && this.canvases.get(t.level).painted.has(t.key));
  }

  /** The level canvases (every chunk's) on the page. */
  get canvasElements() {
    return [...this.canvases.values()].flatMap((c) => c.elements);
  }

  /** The bytes the level canvases hold, beside the decoded tiles' (`cache.bytes`). */
  get canvasBytes() {
    let bytes = 0;
    for (const canvas of this.canvases.values()) bytes += canvas.bytes;
    return bytes;
  }

  #zIndex(level) {
    return level === this.level ? 100 : level === this.baseLevel ? 0 : 1 + level;
  }

  /** Whether a tile overlaps `r`, a rectangle in image pixels. */
  #overlaps(tile, r) {
    const k = this.pyramid.scaleOfLevel(tile.level);
    const f = tile.rect;
    return f.x / k < r.x1 && (f.x + f.width) / k > r.x0 && f.y / k < r.y1 && (f.y + f.height) / k > r.y0;
  }
}

/** The bounds of rects ({x, y, width, height}) as { x0, y0, x1, y1 }. */
function boundsOf(rects) {
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (const r of rects) {
    x0 = Math.min(x0, r.x); y0 = Math.min(y0, r.y);
    x1 = Math.max(x1, r.x + r.width); y1 = Math.max(y1, r.y + r.height);
  }
  return { x0, y0, x1, y1 };
}

function rectOf(r) { return { x0: r.x, y0: r.y, x1: r.x + r.width, y1: r.y + r.height }; }

function scaleRect(r, k) { return { x0: r.x0 * k, y0: r.y0 * k, x1: r.x1 * k, y1: r.y1 * k }; }

/** A rectangle of image pixels in the pixels of a level `k` per image pixel, on whole pixels of that level. */
function snapRect(r, k) {
  return { x0: Math.round(r.x0 * k), y0: Math.round(r.y0 * k), x1: Math.round(r.x1 * k), y1: Math.round(r.y1 * k) };
}
