/** A chunk is this many tiles on a side: few layers, and little to copy when one of its tiles arrives. */
const CHUNK_TILES = 4;

/**
 * One level of a tile layer drawn into a few canvases: the level is cut into chunks of 4 x 4 tiles, and each chunk
 * that has a tile to show is one canvas, into which its tiles (and on the preview level the preview image) are
 * copied at their own pixels as they arrive. A frame of a gesture changes one transform per chunk (a handful)
 * instead of the position and size of every tile, and Chromium composites a layer per chunk instead of one per
 * tile. Chunks and not one canvas for the level: where canvases are drawn in software (headless Chromium here), a
 * canvas changed in a frame is copied whole to the compositor, and a level's canvas at DPR 3 is tens of megabytes.
 *
 * A canvas's backing store is its chunk's level pixels, so it is exactly as sharp as the tiles (the compositor
 * scales it to device pixels as it scaled each tile). Its edges are placed on whole device pixels, both of them
 * (its scale is stretched by less than a device pixel over the chunk for that), so neighbouring chunks meet
 * without an antialiased seam. Each tile is drawn only inside its own grid cell (its overlap left out): no pixel is
 * drawn twice, which a transparent image needs. Drawing is incremental: a tile that arrives is drawn alone; a
 * chunk is redrawn whole when a tile painted in it and still in view is no longer to be shown, when the preview
 * image arrives after tiles drawn over it, or, for a transparent image, when anything in it changes (`holes`: the
 * cells of the tiles of higher levels shown above, cleared so that nothing lies under their clear pixels).
 */
export class LevelCanvas {
  constructor(container, level, { transparent, tileSize, levelSize }) {
    this.container = container;
    this.level = level;
    this.transparent = transparent;
    this.size = CHUNK_TILES * tileSize; // level pixels on a chunk's side
    this.levelSize = levelSize;
    this.chunks = new Map(); // "column,row" of the chunk -> Chunk
    this.painted = new Map(); // key -> tile whose pixels are in one of the chunks
  }

  /** The bytes the chunks' backing stores hold. */
  get bytes() {
    let bytes = 0;
    for (const chunk of this.chunks.values()) bytes += chunk.element.width * chunk.element.height * 4;
    return bytes;
  }

  get visible() { return this.chunks.size > 0; }

  get elements() { return [...this.chunks.values()].map((chunk) => chunk.element); }

  /**
   * Shows `tiles` (in drawing order, the preview image first; each with `rect` and `cell` in level pixels and a
   * `bitmap`), with `holes` (level pixels) cleared when the image is transparent. `inView` (level pixels) is the
   * part of the level on screen.
   */
  sync(tiles, holes, inView, zIndex) {
    const groups = new Map();
    const add = (column, row, tile) => {
      const key = `${column},${row}`;
      const group = groups.get(key) ?? { column, row, tiles: [] };
      group.tiles.push(tile);
      groups.set(key, group);
    };
    const S = this.size;
    for (const tile of tiles) {
      if (!tile.whole) {
        add(Math.floor(tile.cell.x / S), Math.floor(tile.cell.y / S), tile);
        continue;
      }
      // The preview image covers the level: it goes into every chunk in view.
      const x0 = Math.max(0, Math.floor(inView.x0 / S)), y0 = Math.max(0, Math.floor(inView.y0 / S));
      const x1 = Math.min(Math.ceil(this.levelSize.width / S), Math.ceil(inView.x1 / S));
      const y1 = Math.min(Math.ceil(this.levelSize.height / S), Math.ceil(inView.y1 / S));
      for (let row = y0; row < y1; row++) for (let column = x0; column < x1; column++) add(column, row, tile);
    }
    for (const [key, chunk] of this.chunks) {
      if (groups.has(key)) continue;
      chunk.free();
      this.chunks.delete(key);
    }
    this.painted.clear();
    for (const [key, group] of groups) {
      let chunk = this.chunks.get(key);
      if (!chunk) {
        const x = group.column * S, y = group.row * S;
        chunk = new Chunk(this.container, this.level, { x0: x, y0: y, x1: Math.min(x + S, this.levelSize.width),
                                                        y1: Math.min(y + S, this.levelSize.height) }, this.transparent);
        this.chunks.set(key, chunk);
      }
      chunk.sync(group.tiles, this.transparent ? holes.filter((h) => meets(h, chunk.region)) : [], inView, zIndex);
      for (const tile of chunk.painted.values()) this.painted.set(tile.key, tile);
    }
  }

  /** Moves the chunks to where they lie: `k` content points per level pixel, the view's offset, device pixels per point. */
  place(k, offsetX, offsetY, scale) {
    for (const chunk of this.chunks.values()) chunk.place(k, offsetX, offsetY, scale);
  }

  /** Takes the chunks off the page and frees their pixels; a later `sync` makes them again. */
  hide() {
    for (const chunk of this.chunks.values()) chunk.free();
    this.chunks.clear();
    this.painted.clear();
  }
}

/** One chunk's canvas: a fixed region of the level, in level pixels. */
class Chunk {
  constructor(container, level, region, transparent) {
    this.region = region;
    this.transparent = transparent;
    const width = region.x1 - region.x0, height = region.y1 - region.y0;
    this.element = document.createElement('canvas');
    this.element.className = 'level';
    this.element.dataset.level = String(level);
    this.element.width = width;
    this.element.height = height;
    this.element.style.width = `${width}px`;
    this.element.style.height = `${height}px`;
    this.context = this.element.getContext('2d');
    container.append(this.element);
    this.painted = new Map();
    this.holesKey = '';
    this.transform = '';
    this.zIndex = '';
  }

  sync(tiles, holes, inView, zIndex) {
    if (String(zIndex) !== this.zIndex) {
      this.zIndex = String(zIndex);
      this.element.style.zIndex = this.zIndex;
    }
    const wanted = new Map(tiles.map((t) => [t.key, t]));
    const holesKey = this.transparent ? holes.map((h) => `${h.x0},${h.y0},${h.x1},${h.y1}`).join(' ') : '';
    let whole = false;
    if (this.transparent) {
      whole = holesKey !== this.holesKey || wanted.size !== this.painted.size
        || [...wanted.keys()].some((key) => !this.painted.has(key));
    } else {
      for (const [key, tile] of this.painted) {
        // What a tile painted is its cell: one whose cell is out of view may stay painted, unseen.
        if (!wanted.has(key) && overlaps(tile.cell, inView)) { whole = true; break; }
      }
      // The preview image lies under the level's tiles: arriving after them, it is drawn under them by a redraw.
      if (!whole && this.painted.size > 0 && tiles.some((t) => t.whole && !this.painted.has(t.key))) whole = true;
    }
    if (whole) {
      const { x0, y0, x1, y1 } = this.region;
      this.context.clearRect(0, 0, x1 - x0, y1 - y0);
      this.painted.clear();
      for (const tile of tiles) this.#draw(tile);
      for (const h of holes) this.context.clearRect(h.x0 - x0, h.y0 - y0, h.x1 - h.x0, h.y1 - h.y0);
    } else {
      for (const tile of tiles) if (!this.painted.has(tile.key)) this.#draw(tile);
    }
    this.holesKey = holesKey;
  }

  /**
   * Both edges of the chunk on whole device pixels of the view, so that neighbouring chunks share their edge and
   * nothing is antialiased there: the scale is the level's `k` stretched by less than a device pixel over the chunk.
   */
  place(k, offsetX, offsetY, scale) {
    const { x0, y0, x1, y1 } = this.region;
    const snap = (value) => Math.round(value * scale) / scale;
    const left = snap(x0 * k - offsetX), right = snap(x1 * k - offsetX);
    const top = snap(y0 * k - offsetY), bottom = snap(y1 * k - offsetY);
    const transform = `translate(${left}px, ${top}px) scale(${(right - left) / (x1 - x0)}, ${(bottom - top) / (y1 - y0)})`;
    if (transform !== this.transform) {
      this.transform = transform;
      this.element.style.transform = transform;
    }
  }

  free() {
    this.element.remove();
    this.element.width = 0;
    this.element.height = 0;
    this.painted.clear();
  }

  /** Copies a tile's cell (its pixels less the overlap) into the chunk, over whatever lay there. */
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

function overlaps(rect, r) {
  return rect.x < r.x1 && rect.x + rect.width > r.x0 && rect.y < r.y1 && rect.y + rect.height > r.y0;
}

function meets(a, b) {
  return a.x0 < b.x1 && a.x1 > b.x0 && a.y0 < b.y1 && a.y1 > b.y0;
}
