/**
 * A cache of decoded tiles bounded in bytes (width x height x 4 of each decoded tile), least recently used
 * first out. Tiles in use (on screen or needed by the view) are never evicted; the others are dropped beyond
 * `maxBytes`, so memory stays bounded however long one pans, whatever the tile size.
 */
export const DEFAULT_CACHE_BYTES = 96 * 1024 * 1024;

export class TileCache {
  constructor(maxBytes = DEFAULT_CACHE_BYTES) {
    this.maxBytes = maxBytes;
    this.bytes = 0;
    this.entries = new Map(); // key -> tile; Map order is the recency order
  }

  get size() { return this.entries.size; }

  has(key) { return this.entries.has(key); }

  /** The tile, now the most recently used. */
  get(key) {
    const tile = this.entries.get(key);
    if (tile) {
      this.entries.delete(key);
      this.entries.set(key, tile);
    }
    return tile;
  }

  /** Looks without touching the recency order. */
  peek(key) { return this.entries.get(key); }

  set(key, tile) {
    this.delete(key);
    this.entries.set(key, tile);
    this.bytes += tile.bytes;
  }

  delete(key) {
    const tile = this.entries.get(key);
    if (tile) {
      this.entries.delete(key);
      this.bytes -= tile.bytes;
    }
    return tile;
  }

  values() { return this.entries.values(); }

  /** Drops the least recently used tiles for which `inUse` is false until the cache fits in `maxBytes`. */
  trim(inUse, onEvict) {
    if (this.bytes <= this.maxBytes) return;
    for (const [key, tile] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      if (inUse(tile)) continue;
      this.delete(key);
      onEvict(tile);
    }
  }

  clear(onEvict) {
    for (const tile of this.entries.values()) onEvict(tile);
    this.entries.clear();
    this.bytes = 0;
  }
}
