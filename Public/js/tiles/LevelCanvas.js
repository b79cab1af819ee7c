/**
 * One level of a tile layer drawn into one canvas: its tiles (and, on the preview level, the preview image) are
 * copied into the canvas at their own pixels as they arrive, and the canvas is moved and scaled as a whole by a
 * CSS transform. A frame of a gesture then changes one transform per level shown (two or three) instead of the
 * position and size of every tile, and Chromium composites a layer per level instead of one per tile.
 *
 * The canvas covers a `region` of the level (level pixels, integers), the part of the level the view needs, a tile
 * wider on every side so that a pan does not reallocate it at every column; its backing store is that many pixels,
 * so the canvas is exactly as sharp as the tiles (the compositor scales it to device pixels as it scaled each tile
 * before). Each tile is drawn only inside its own grid cell (its overlap left out), so no pixel is drawn twice and
 * nothing of a tile lies beyond its cell. Drawing is incremental: a tile that arrives is drawn alone; the canvas is
 * redrawn whole only when its region moves, when a tile painted in it and still in view is no longer to be shown
 * (it would otherwise stay on screen), or, for a transparent image, when anything changes (`holes`: the cells of the
 * tiles of higher levels shown above it are cleared, so that nothing lies under their clear pixels).
 */
export class LevelCanvas {
  constructor(container, level, { transparent }) {
    this.container = container;
    this.level = level;
    this.transparent = transparent;
    this.element = null; // made when there is first something to draw
    this.context = null;
    this.region = null; // { x0, y0, x1, y1 } in level pixels
    this.painted = new Map(); // key -> tile whose pixels are in the canvas
    this.holesKey = '';
    this.transform = '';
  }

  /** The bytes the canvas's backing store holds. */
  get bytes() { return this.element ? this.element.width * this.element.height * 4 : 0; }

  get visible() { return this.element !== null && this.element.isConnected; }

  /**
   * Shows `tiles` (in drawing order, the preview image first; each with `rect` and `cell` in level pixels and a
   * `bitmap`) in a canvas covering at least `extent` (level pixels), with `holes` (level pixels) cleared when the
   * image is transparent. `inView` (a rect in level pixels) is the part of the level on screen.
   */
  sync(tiles, extent, holes, inView, levelSize, tileSize, zIndex) {
    if (tiles.length === 0) { this.hide(); return; }
    if (!this.element) {
      this.element = document.createElement('canvas');
      this.element.className = 'level';
      this.element.dataset.level = String(this.level);
      this.context = this.element.getContext('2d');
    }
    if (!this.element.isConnected) this.container.append(this.element);
    this.element.style.zIndex = String(zIndex);
    const wanted = new Map(tiles.map((t) => [t.key, t]));
    const holesKey = this.transparent ? holes.map((h) => `${h.x0},${h.y0},${h.x1},${h.y1}`).join(' ') : '';
    let whole = !this.region || !contains(this.region, extent) || area(this.region) > 4 * area(pad(extent, tileSize, levelSize));
    if (whole) this.region = pad(extent, tileSize, levelSize);
    if (!whole && this.transparent) {
      whole = holesKey !== this.holesKey || wanted.size !== this.painted.size
        || [...wanted.keys()].some((key) => !this.painted.has(key));
    }
    if (!whole) {
      for (const [key, tile] of this.painted) {
        // What a tile painted is its cell: one whose cell is out of view may stay painted, unseen.
        if (!wanted.has(key) && overlaps(tile.cell, inView)) { whole = true; break; }
      }
    }
    // The preview image lies under the level's tiles: arriving after them, it is drawn under them by a redraw.
    if (!whole && tiles.some((t) => t.whole && !this.painted.has(t.key)) && this.painted.size > 0) whole = true;
    if (whole) {
      this.#redraw(tiles, holes);
    } else {
      for (const tile of tiles) if (!this.painted.has(tile.key)) this.#draw(tile);
    }
    this.holesKey = holesKey;
  }

  /** Moves the canvas to where its region lies: `k` content points per level pixel, the view's offset. */
  place(k, offsetX, offsetY) {
    if (!this.visible) return;
    const x = this.region.x0 * k - offsetX;
    const y = this.region.y0 * k - offsetY;
    const transform = `translate(${x}px, ${y}px) scale(${k})`;
    if (transform !== this.transform) {
      this.transform = transform;
      this.element.style.transform = transform;
    }
  }

  /** Takes the canvas off the page and frees its pixels; a later `sync` makes them again. */
  hide() {
    if (!this.element) return;
    this.element.remove();
    this.element.width = 0;
    this.element.height = 0;
    this.region = null;
    this.painted.clear();
    this.holesKey = '';
    this.transform = '';
  }

  #redraw(tiles, holes) {
    const { x0, y0, x1, y1 } = this.region;
    const width = x1 - x0, height = y1 - y0;
    if (this.element.width !== width || this.element.height !== height) {
      // Setting the size clears the canvas (and resets its state).
      this.element.width = width;
      this.element.height = height;
      this.element.style.width = `${width}px`;
      this.element.style.height = `${height}px`;
    } else {
      this.context.clearRect(0, 0, width, height);
    }
    this.painted.clear();
    for (const tile of tiles) this.#draw(tile);
    if (this.transparent) {
      for (const h of holes) {
        this.context.clearRect(h.x0 - x0, h.y0 - y0, h.x1 - h.x0, h.y1 - h.y0);
      }
    }
  }

  /** Copies a tile's cell (its pixels less the overlap) into the canvas, over whatever lay there. */
  #draw(tile) {
    const { rect, cell, bitmap } = tile;
    const { x0, y0 } = this.region;
    const sx = bitmap.width / rect.width, sy = bitmap.height / rect.height;
    if (this.transparent) this.context.clearRect(cell.x - x0, cell.y - y0, cell.width, cell.height);
    this.context.drawImage(bitmap, (cell.x - rect.x) * sx, (cell.y - rect.y) * sy, cell.width * sx, cell.height * sy,
                           cell.x - x0, cell.y - y0, cell.width, cell.height);
    this.painted.set(tile.key, tile);
  }
}

function area(r) { return (r.x1 - r.x0) * (r.y1 - r.y0); }

function contains(outer, inner) {
  return inner.x0 >= outer.x0 && inner.y0 >= outer.y0 && inner.x1 <= outer.x1 && inner.y1 <= outer.y1;
}

function overlaps(rect, r) {
  return rect.x < r.x1 && rect.x + rect.width > r.x0 && rect.y < r.y1 && rect.y + rect.height > r.y0;
}

/** `r` a tile wider on every side, within the level. */
function pad(r, tileSize, size) {
  return { x0: Math.max(0, r.x0 - tileSize), y0: Math.max(0, r.y0 - tileSize),
           x1: Math.min(size.width, r.x1 + tileSize), y1: Math.min(size.height, r.y1 + tileSize) };
}
