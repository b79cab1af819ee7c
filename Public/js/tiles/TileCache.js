/**
 * A bounded cache of tile images, least recently used first out. Tiles in use (on screen) are
 * never evicted; the others are dropped beyond `capacity`, so memory stays bounded however long one pans.
 */
export class TileCache {
  constructor(capacity = 256) {
    this.capacity = capacity;
    this.entries = new Map(); // key -> tile; Map order is the recency order
  }

  get size() { return this.entries.size; }

  get(key) {
    const tile = this.entries.get(key);
    if (tile) {
      this.entries.delete(key);
      this.entries.set(key, tile);
    }
    return tile;
  }

  set(key, tile) {
    this.entries.delete(key);
    this.entries.set(key, tile);
  }

  delete(key) {
    const tile = this.entries.get(key);
    this.entries.delete(key);
    return tile;
  }

  /** Drops the least recently used tiles for which `inUse` is false until the cache fits. */
  trim(inUse, onEvict) {
    if (this.entries.size <= this.capacity) return;
    for (const [key, tile] of this.entries) {
      if (this.entries.size <= this.capacity) break;
      if (inUse(tile)) continue;
      this.entries.delete(key);
      onEvict(tile);
    }
  }

  clear(onEvict) {
    for (const tile of this.entries.values()) onEvict(tile);
    this.entries.clear();
  }
}
