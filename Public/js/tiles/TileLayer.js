import { tileFrame, visibleRect, resolutionFor, tilesCovering } from '../geometry/Viewport.js';
import { TileCache } from './TileCache.js';
import { TileLoader, releaseImage } from './TileLoader.js';
import { writeStyles } from '../dom/Styles.js';
import { playTransforms } from '../dom/PlayedMotion.js';

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

/** Whether two lists name the same tiles in the same order. */
function sameTiles(a, b) {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const s = a[i], t = b[i];
    if (s.level !== t.level || s.column !== t.column || s.row !== t.row || Boolean(s.whole) !== Boolean(t.whole)) return false;
  }
  return true;
}

/** The key of Tilescope's preview image, drawn as the whole preview level. */
export const PREVIEW_KEY = 'preview';

/** The floor of a layer whose base tile failed: nothing to wait for (`#floor`). */
const NO_FLOOR = {};

/** How long past its announced duration an animation's end state stays the only thing worth fetching. */
const EXPECTATION_SLACK_MS = 250;

/** How long two fingers hold a pinch still before the tiles of where it is are asked for. */
const PINCH_STILL_MS = 150;

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
 * - during an animation whose end is announced (`expect`: an animated zoom or scroll, a glide), only the end
 *   state's tiles are fetched, not those of every intermediate zoomScale or of the rows a glide passes over; the
 *   frames in between draw whatever is already there (the base, tiles of any level in the cache), so nothing is
 *   ever blank; a glide asks for them only once it has slowed (`after`);
 * - otherwise the current view's tiles, nearest the centre first, and while a finger drags the row or column of
 *   tiles just ahead in the direction of the pan;
 * - tiles no longer wanted are aborted or never started (`TileLoader`).
 * Loaded tiles of other levels stay drawn under the needed ones until the needed level is complete. A transparent
 * image's (`image.alpha`) would show through the needed ones' clear pixels, and their overlaps would be drawn twice:
 * there each tile is clipped to its own grid cell, less the cells of the tiles drawn above it (`#clip`). Decoded
 * tiles live in a cache bounded in bytes. `isComplete()` and `onComplete` tell when every tile the current
 * view needs at its level is drawn (the viewer's `fullyLoaded`).
 */
export class TileLayer {
  constructor(container, image, pyramid, { maxBytes, concurrency, held = false } = {}) {
    this.image = image;
    this.pyramid = pyramid;
    this.cache = new TileCache(maxBytes);
    this.loader = new TileLoader({
      concurrency,
      onLoad: (tile, image) => this.#loaded(tile, image),
      onError: (tile) => this.#failed(tile),
    });
    this.content = document.createElement('div');
    this.content.className = 'content';
    container.append(this.content);
    this.baseLevel = pyramid.baseLevel;
    this.previewLevel = pyramid.previewLevel();
    // Tilescope's own images have a preview image of the preview level (a foreign source's is one of its tiles).
    this.previewTile = !image.previewSide && image.urls?.preview
      ? { key: PREVIEW_KEY, level: this.previewLevel, column: 0, row: 0, whole: true, url: image.urls.preview }
      : null;
    this.shown = new Set(); // tiles whose element is in the DOM
    this.needed = new Map(); // key -> tile of the current view at its level
    this.neededTiles = []; // the same, in the order the view gave them (nearest its centre first)
    this.failed = new Set(); // keys that failed: not asked for again by this layer
    this.level = null;
    this.view = null;
    this.placement = null; // what the tiles are placed for (update, #place)
    this.expected = null; // { view, tiles, from, until }: the end of an announced animation
    this.direction = null; // { x, y } in -1, 0, 1: where a pan is heading
    this.wasComplete = false;
    this.onChange = null; // a tile arrived
    this.onComplete = null; // the view became complete
    this.onTileDrawn = null; // (tile) the first time a tile's element is put on screen
    this.transparent = image.alpha === true;
    this.held = held; // asks for nothing until released (`hold`)
    this.stillTimer = null; // asks for the view's tiles once a pinch holds still or a glide has slowed (`#request`)
    this.pinchMovedAt = 0; // when a pinch last moved the view (`update`)
  }

  /**
   * Held, the layer starts no request (those on their way finish: aborted, their bytes would be fetched again);
   * released, it asks for what its view needs. A gallery's side pages are held while the page on screen is not
   * complete: on a slow connection their previews took the bandwidth the page on screen waited for.
   */
  hold(held) {
    if (held === this.held) return;
    this.held = held;
    if (held) this.loader.keepStarted();
    else if (this.view) this.#request();
  }

  /** The base tile has arrived: some picture lies under the whole image. */
  get hasPicture() { return this.cache.peek(keyOf(this.baseLevel, 0, 0)) !== undefined; }

  /** The base tile's element (an image) once it has arrived, else null: the navigator draws its mini-map from it. */
  get baseElement() { return this.cache.peek(keyOf(this.baseLevel, 0, 0))?.element ?? null; }

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
   * time is well past), only its tiles are fetched, and none before `after` ms (a glide's fast part: what it
   * passes over is gone before a tile could land; those on their way come on). Null: the animation stopped short
   * (a finger caught the glide); fetch for the view again.
   */
  expect(target, duration, { after = 0 } = {}) {
    if (!this.view) return;
    if (target === null) {
      if (this.expected === null) return;
      this.expected = null;
      this.#request();
      return;
    }
    const view = { ...this.view, zoomScale: target.zoomScale, offsetX: target.offsetX, offsetY: target.offsetY };
    const now = performance.now();
    this.expected = { view, tiles: this.#tilesOf(view), from: now + after, until: now + duration + EXPECTATION_SLACK_MS };
    this.direction = null;
    this.#request();
  }

  /**
   * Lays out the view: `zoomScale`, the offset shown (may be rubber-banded), the viewport size, the screen
   * `scale`, and the tiles (rule 9 and 10) of `level` (null: the preview level's tiles are enough); `pinching`
   * while two fingers zoom it; `driven` while the compositor moves the content (`play`).
   */
  update(view) {
    const previous = this.view;
    this.view = { scale: previous?.scale ?? 1, ...view };
    if (view.pinching) this.pinchMovedAt = performance.now();
    const tiles = view.level === null ? this.#tilesOf(this.view) : view.tiles;
    this.level = view.level ?? this.previewLevel;
    // What a tile's place depends on (#place): the same object for as long as none of it changes, so that a pan's
    // frames, which move only the content, compare one reference a tile instead of rewriting its transform. An
    // animated zoom keeps its tiles where they were placed and scales the content instead (an opaque image's: a
    // transparent one's clips are cut at whole pixels of the zoomScale shown), each of its frames then writing one
    // transform, not one a tile; the level changing, or the animation's last frame, places them anew.
    const { zoomScale, scale } = this.view, p = this.placement;
    const kept = p && p.scale === scale && p.level === this.level
      && (p.zoomScale === zoomScale || (view.animating && !this.transparent));
    if (!kept) this.placement = { zoomScale, scale, level: this.level };
    // Most frames of a pan need the tiles of the frame before, in the same order: kept, and asked for already. A
    // wait (a pinch, a glide's fast part) or an expectation is looked at again at every frame.
    const same = sameTiles(tiles, this.neededTiles);
    if (!same) {
      this.neededTiles = tiles;
      this.needed = new Map(tiles.map((t) => [keyOfTile(t), t]));
    }
    this.#follow(previous);
    // `driven`: the compositor moves the content (`play`), and a write here would cost the frame a style pass.
    if (!view.driven) writeStyles(this.content, { transform: this.#contentTransform(view) });
    const asked = `${this.direction?.x},${this.direction?.y}|${this.expected?.from}`;
    if (!same || asked !== this.asked || this.stillTimer !== null || this.expected || view.pinching) {
      this.asked = asked;
      this.#request();
    }
    this.#layout();
  }

  /**
   * Hands the content's motion through `views` (`{t, zoomScale, offsetX, offsetY}`, sampled by `sampleTimes`) to the
   * compositor at the tiles' current placement (a glide's: its zoomScale does not change); the page renders with
   * `driven` meanwhile. The animation.
   */
  play(views, duration) {
    return playTransforms(this.content, views, duration, (view) => this.#contentTransform(view));
  }

  /** The content's transform for a view: its offset, and its scale from the zoomScale the tiles are placed at. */
  #contentTransform({ zoomScale, offsetX, offsetY }) {
    const k = zoomScale / this.placement.zoomScale;
    return `translate(${-offsetX}px, ${-offsetY}px)${k === 1 ? '' : ` scale(${k})`}`;
  }

  /** Removes everything: the page shows another image now. */
  destroy() {
    clearTimeout(this.stillTimer);
    this.loader.abortAll();
    this.loader.forgetBytes(); // their URLs would keep the bytes for the page's life
    for (const tile of this.shown) tile.element.remove();
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
    this.loader.forgetBytes();
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

  /**
   * Asks for what the view needs, or, where that is better asked a little later, asks for nothing new meanwhile
   * (those on their way come on, those only queued are not started) and asks then:
   * - while a pinch moves, until the fingers have held still for `PINCH_STILL_MS` or lift (the scroll view's next
   *   render is no longer pinching): each of its frames has another zoomScale, and on a phone the fetches started
   *   and aborted for levels passed through, and the tiles landing mid-gesture, took the main thread the frames
   *   needed;
   * - during a glide's fast part (`expect`'s `after`): what it passes over is gone before a tile could land.
   */
  #request() {
    clearTimeout(this.stillTimer);
    this.stillTimer = null;
    const now = performance.now();
    const wait = Math.max(this.expected ? this.expected.from - now : 0,
                          this.view?.pinching ? this.pinchMovedAt + PINCH_STILL_MS - now : 0);
    if (wait > 0) {
      this.loader.keepStarted();
      this.stillTimer = setTimeout(() => this.#request(), wait);
    } else {
      this.#want();
    }
  }

  #want() {
    if (this.held) return;
    const base = { level: this.baseLevel, column: 0, row: 0 };
    const wanted = [base, ...(this.expected ? this.expected.tiles : [...this.needed.values(), ...this.#ahead()])];
    const missing = [];
    const seen = new Set();
    for (const t of wanted) {
      const key = keyOfTile(t);
      if (seen.has(key) || this.cache.peek(key) || this.failed.has(key)) continue;
      seen.add(key);
      missing.push(t.whole ? { ...t } : { key, level: t.level, column: t.column, row: t.row, url: this.#url(t) });
    }
    this.loader.want(missing);
  }

  /** A tile's URL: by the pyramid where it has levels of its own (`LevelsBetween`), else the record's template. */
  #url(t) {
    return this.pyramid.tileURL ? this.pyramid.tileURL(this.image.urls, t.level, t.column, t.row)
      : tileURL(this.image.urls.tiles, t.level, t.column, t.row);
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

  /** A tile's decoded image (`decodedImage`) arrives: kept, and drawn at the next layout. */
  #loaded(t, image) {
    const width = image.naturalWidth, height = image.naturalHeight;
    image.className = t.whole ? 'tile loaded preview' : t.level === this.baseLevel ? 'tile loaded base' : 'tile loaded';
    image.dataset.url = t.url;
    image.draggable = false;
    // Its CSS size is its pixels' once and for all: `#place` scales it with its transform, about its corner, from
    // the content's corner, out of the flow (set here, not only in the style sheet: the placement is wrong without
    // them; in flow a tile lay after the ones inserted before it, wherever its transform put it).
    writeStyles(image, { position: 'absolute', left: '0', top: '0', width: `${width}px`, height: `${height}px`,
                         transformOrigin: '0 0' });
    const tile = { ...t, element: image, loaded: true, drawn: false, bytes: width * height * 4 };
    this.cache.set(tile.key, tile);
    this.#trim(); // at once: the layout waits for the next frame, the cache's bound does not
    this.#arrived();
  }

  #failed(t) {
    this.failed.add(t.key);
    this.onChange?.();
  }

  /**
   * A tile is in: laid out at the next frame, with every other tile that arrives before it, by the owner's render
   * (`onChange`). Laid out here, a zoom that brought in a level's tiles walked the whole cache and placed every
   * shown tile once per arrival, where a frame needs it once.
   */
  #arrived() {
    if (this.onChange) this.onChange();
    else if (this.view) this.#layout();
  }

  /**
   * Shows the needed tiles that have arrived, and under them, while the needed level is incomplete, every
   * other loaded tile that overlaps the viewport: the last good picture stays until the new one is whole.
   */
  #layout() {
    const complete = this.isComplete();
    const floor = this.#floor();
    const viewport = { x0: this.view.offsetX, y0: this.view.offsetY,
                       x1: this.view.offsetX + this.view.viewWidth, y1: this.view.offsetY + this.view.viewHeight };
    for (const tile of this.cache.values()) {
      // The floor always; the rest only once there is a floor to draw them over.
      const keep = tile === floor || tile.level === this.baseLevel
        || (floor !== null && (this.needed.has(tile.key) || (!complete && this.#overlaps(tile, viewport))));
      if (keep) this.#show(tile);
      else if (this.shown.has(tile)) this.#hide(tile);
    }
    if (this.transparent) for (const tile of this.shown) this.#clip(tile);
    this.#trim();
    if (complete && !this.wasComplete) {
      this.wasComplete = true;
      this.onComplete?.();
    } else if (!complete) {
      this.wasComplete = false;
    }
  }

  /** Evicts decoded tiles over the cache's bound, least recently used first, never one shown or needed. */
  #trim() {
    this.cache.trim((tile) => this.shown.has(tile) || this.needed.has(tile.key), (tile) => this.#release(tile));
  }

  #show(tile) {
    this.#place(tile);
    if (this.shown.has(tile)) return;
    this.shown.add(tile);
    this.content.append(tile.element);
    if (!tile.drawn) {
      tile.drawn = true;
      this.onTileDrawn?.(tile);
    }
  }

  #hide(tile) {
    this.shown.delete(tile);
    tile.element.remove();
  }

  #release(tile) {
    this.#hide(tile);
    releaseImage(tile.element);
  }

  /** Where a tile lies in content points; the preview covers its whole level. */
  #frame(tile, z = this.view.zoomScale) {
    if (!tile.whole) return tileFrame(this.pyramid, tile.level, tile.column, tile.row, z);
    const size = this.pyramid.sizeOfLevel(tile.level);
    const k = z / this.pyramid.scaleOfLevel(tile.level);
    return { x: 0, y: 0, width: size.width * k, height: size.height * k };
  }

  /** A tile's grid cell (no overlap) in content points; the preview's is its whole level. */
  #cell(tile) {
    const k = this.view.zoomScale / this.pyramid.scaleOfLevel(tile.level);
    const size = this.pyramid.sizeOfLevel(tile.level);
    if (tile.whole) return { x: 0, y: 0, width: size.width * k, height: size.height * k };
    const T = this.pyramid.tileSize;
    const x0 = tile.column * T, y0 = tile.row * T;
    return { x: x0 * k, y: y0 * k, width: (Math.min(x0 + T, size.width) - x0) * k,
             height: (Math.min(y0 + T, size.height) - y0) * k };
  }

  /**
   * A transparent image's tile shows only its own cell, less the cells of the shown tiles above it (a higher
   * z-index): nothing under a clear pixel but the page. Cells of every level nest (a level's cell is four of the
   * next finer level's), so the parts of the cell taken away, each the overlap of the cell with one above, are
   * disjoint once those inside another are dropped: an even-odd path of the cell and them cuts them out exactly.
   * Recomputed at every layout: the edges follow the zoomScale and the offset.
   */
  #clip(tile) {
    const cell = this.#cell(tile);
    const z = this.#zIndex(tile);
    const eps = 1e-6 * Math.max(cell.width, cell.height, 1);
    let holes = [];
    for (const other of this.shown) {
      // Above it: a higher z-index, or the preview level's tiles over the preview image (the same level).
      const above = this.#zIndex(other) > z || (this.#zIndex(other) === z && tile.whole && !other.whole);
      if (other === tile || !above) continue;
      const c = this.#cell(other);
      const x0 = Math.max(cell.x, c.x), y0 = Math.max(cell.y, c.y);
      const x1 = Math.min(cell.x + cell.width, c.x + c.width), y1 = Math.min(cell.y + cell.height, c.y + c.height);
      if (x1 - x0 > eps && y1 - y0 > eps) holes.push({ x0, y0, x1, y1 });
    }
    const inside = (a, b) => a !== b && a.x0 >= b.x0 - eps && a.y0 >= b.y0 - eps && a.x1 <= b.x1 + eps && a.y1 <= b.y1 + eps;
    holes = holes.filter((a, i) => !holes.some((b, j) => inside(a, b) && (!inside(b, a) || j < i)));
    // Edges on whole device pixels of the content, as the element's own corner (`#place`): an edge inside a pixel
    // would be antialiased, and two tiles (or two cut-outs) meeting there would each cover part of it, letting
    // what lies under both show through as a line.
    // The path is in the element's own pixels, which its transform scales (`#place`).
    const snap = this.#snap.bind(this);
    const { x: left, y: top, scaleX, scaleY } = this.#box(tile);
    const px = (x) => (snap(x) - left) / scaleX, py = (y) => (snap(y) - top) / scaleY;
    const rect = (x0, y0, x1, y1) => `M${px(x0)} ${py(y0)}H${px(x1)}V${py(y1)}H${px(x0)}Z`;
    const path = rect(cell.x, cell.y, cell.x + cell.width, cell.y + cell.height)
      + holes.map((h) => rect(h.x0, h.y0, h.x1, h.y1)).join('');
    writeStyles(tile.element, { clipPath: `path(evenodd, '${path}')` });
  }

  /** A content coordinate on the nearest whole device pixel. */
  #snap(value) {
    const scale = this.view.scale;
    return Math.round(value * scale) / scale;
  }

  #zIndex(tile) {
    return tile.level === this.level ? 100 : tile.level === this.baseLevel ? 0 : 1 + tile.level;
  }

  #overlaps(tile, viewport) {
    const f = this.#frame(tile);
    return f.x < viewport.x1 && f.x + f.width > viewport.x0 && f.y < viewport.y1 && f.y + f.height > viewport.y0;
  }

  /**
   * Places a tile by its transform alone (a translation and a scale of its own pixels, its CSS size): a frame of a
   * gesture then restyles the tiles but lays out and paints none of them. Unchanged values are not written again.
   */
  #place(tile) {
    if (tile.placement === this.placement) return;
    tile.placement = this.placement;
    const { x, y, scaleX, scaleY } = this.#box(tile);
    // The needed level on top; other levels below it, sharper ones above blurrier ones; the base at the bottom.
    writeStyles(tile.element, { transform: `translate(${x}px, ${y}px) scale(${scaleX}, ${scaleY})`,
                                zIndex: String(this.#zIndex(tile)) });
  }

  /**
   * Where a tile's element lies in content points: its corner and the scale of its pixels. A transparent image's
   * tiles start on a whole device pixel, as their clip's edges do (`#clip`); the far edges stay where they are (the
   * picture moves by under half a pixel at the near ones).
   */
  #box(tile) {
    const f = this.#frame(tile, this.placement.zoomScale);
    const x = this.transparent ? this.#snap(f.x) : f.x, y = this.transparent ? this.#snap(f.y) : f.y;
    return { x, y, scaleX: (f.x + f.width - x) / tile.element.naturalWidth,
             scaleY: (f.y + f.height - y) / tile.element.naturalHeight };
  }
}
