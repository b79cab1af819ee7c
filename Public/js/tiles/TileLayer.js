import { tileFrame } from '../geometry/Viewport.js';
import { TileCache } from './TileCache.js';

/**
 * Fills a URL template such as /dzi/a_files/{level}/{col}_{row}.jpeg?v=3; a function template (a IIIF
 * source, whose tile URLs are regions, not indices) is called with (level, column, row).
 */
export function tileURL(template, level, column, row) {
  if (typeof template === 'function') return template(level, column, row);
  return template.replace('{level}', level).replace('{col}', column).replace('{row}', row);
}

const keyOf = (level, column, row) => `${level}/${column}/${row}`;

/**
 * Draws one image: the preview at once, under the tiles of the needed level where they have arrived.
 * The last complete level stays drawn until the new one has loaded; tiles no longer needed are cancelled
 * while loading or kept in a bounded cache once loaded.
 */
export class TileLayer {
  constructor(container, image, pyramid, { capacity = 256 } = {}) {
    this.image = image;
    this.pyramid = pyramid;
    this.cache = new TileCache(capacity);
    this.content = document.createElement('div');
    this.content.className = 'content';
    this.preview = document.createElement('img');
    this.preview.className = 'preview';
    this.preview.alt = '';
    this.preview.draggable = false;
    this.previewLoaded = false;
    this.preview.addEventListener('load', () => { this.previewLoaded = true; this.onChange?.(); });
    this.preview.src = image.urls.preview;
    this.content.append(this.preview);
    container.append(this.content);
    this.shown = new Set(); // tiles currently in the DOM
    this.needed = new Set(); // keys of the tiles the current view needs
    this.level = null;
    this.complete = false;
    this.onChange = null;
  }

  /**
   * Lays out the view: `zoomScale`, the offset shown (may be rubber-banded) and the tiles
   * (rule 9 and 10) of `level` (null: the preview alone is enough).
   */
  update({ zoomScale, offsetX, offsetY, level, tiles, viewWidth, viewHeight }) {
    this.zoomScale = zoomScale;
    this.viewWidth = viewWidth;
    this.viewHeight = viewHeight;
    this.content.style.transform = `translate(${-offsetX}px, ${-offsetY}px)`;
    const cw = this.pyramid.width * zoomScale;
    const ch = this.pyramid.height * zoomScale;
    this.preview.style.width = `${cw}px`;
    this.preview.style.height = `${ch}px`;

    this.level = level;
    this.needed = new Set(tiles.map((t) => keyOf(t.level, t.column, t.row)));
    for (const t of tiles) {
      let tile = this.cache.get(keyOf(t.level, t.column, t.row));
      if (!tile) tile = this.#load(t);
      this.#show(tile);
    }
    this.complete = level === null ? this.previewLoaded : tiles.every((t) => this.cache.get(keyOf(t.level, t.column, t.row))?.loaded);
    this.#prune(offsetX, offsetY);
    for (const tile of this.shown) this.#place(tile);
    this.cache.trim((tile) => this.shown.has(tile), (tile) => this.#discard(tile));
  }

  /** True when every tile the current view needs at its level (or the preview, when it suffices) is drawn. */
  isComplete() {
    return this.complete;
  }

  /** Removes everything: the page shows another image now. */
  destroy() {
    for (const tile of this.shown) tile.img.remove();
    this.shown.clear();
    this.cache.clear((tile) => this.#discard(tile));
    this.preview.removeAttribute('src');
    this.content.remove();
  }

  get loadingCount() {
    let n = 0;
    for (const tile of this.cache.entries.values()) if (!tile.loaded && !tile.failed) n++;
    return n;
  }

  #load(t) {
    const img = document.createElement('img');
    img.className = 'tile';
    img.alt = '';
    img.draggable = false;
    img.decoding = 'async';
    const tile = { key: keyOf(t.level, t.column, t.row), level: t.level, column: t.column, row: t.row,
                   img, loaded: false, failed: false };
    img.addEventListener('load', () => {
      tile.loaded = true;
      img.classList.add('loaded');
      this.onChange?.();
    });
    img.addEventListener('error', () => {
      if (!img.getAttribute('src')) return; // cancelled on purpose
      tile.failed = true;
      this.onChange?.();
    });
    img.src = tileURL(this.image.urls.tiles, t.level, t.column, t.row);
    this.cache.set(tile.key, tile);
    return tile;
  }

  #show(tile) {
    if (this.shown.has(tile)) return;
    this.shown.add(tile);
    this.content.append(tile.img);
  }

  #hide(tile) {
    this.shown.delete(tile);
    tile.img.remove();
    if (!tile.loaded) {
      // Still on its way: cancel it rather than wait for a tile nobody will see.
      this.cache.delete(tile.key);
      this.#discard(tile);
    }
  }

  #discard(tile) {
    tile.img.removeAttribute('src');
  }

  /**
   * Keeps tiles of other levels only while the needed level is incomplete, and only those that are
   * loaded and still on screen: they are the last good picture until the new level arrives.
   */
  #prune(offsetX, offsetY) {
    const view = { x0: offsetX, y0: offsetY, x1: offsetX + this.viewWidth, y1: offsetY + this.viewHeight };
    for (const tile of [...this.shown]) {
      if (this.needed.has(tile.key)) continue;
      const keep = !this.complete && tile.loaded && this.level !== null && this.#intersects(tile, view);
      if (!keep) this.#hide(tile);
    }
  }

  #intersects(tile, view) {
    const f = tileFrame(this.pyramid, tile.level, tile.column, tile.row, this.zoomScale);
    return f.x < view.x1 && f.x + f.width > view.x0 && f.y < view.y1 && f.y + f.height > view.y0;
  }

  #place(tile) {
    const f = tileFrame(this.pyramid, tile.level, tile.column, tile.row, this.zoomScale);
    const s = tile.img.style;
    s.left = `${f.x}px`;
    s.top = `${f.y}px`;
    s.width = `${f.width}px`;
    s.height = `${f.height}px`;
    // The needed level on top; older levels below it, sharper ones above blurrier ones.
    s.zIndex = tile.level === this.level ? 100 : 1 + tile.level;
  }
}
