/** The Deep Zoom arithmetic of an image pyramid (issue 3, rule 6, 7 and 10). Pure, no DOM. */
export class Pyramid {
  constructor(width, height, tileSize = 254, overlap = 1) {
    this.width = width;
    this.height = height;
    this.tileSize = tileSize;
    this.overlap = overlap;
    const longSide = Math.max(width, height);
    // ceil(log2(longSide)) on integers: the bit length of longSide - 1.
    this.maxLevel = longSide <= 1 ? 0 : (longSide - 1).toString(2).length;
  }

  /** s(L) = 2^(L - maxLevel): level pixels per image pixel. */
  scaleOfLevel(level) {
    return Math.pow(2, level - this.maxLevel);
  }

  /** ceil(W * s(L)) x ceil(H * s(L)), exactly on integers. */
  sizeOfLevel(level) {
    const divisor = Math.pow(2, this.maxLevel - level);
    return { width: Math.ceil(this.width / divisor), height: Math.ceil(this.height / divisor) };
  }

  tileGrid(level) {
    const size = this.sizeOfLevel(level);
    return { columns: Math.ceil(size.width / this.tileSize), rows: Math.ceil(size.height / this.tileSize) };
  }

  /** The stored tile's extent in level pixels, overlap included. */
  tileRect(level, column, row) {
    const size = this.sizeOfLevel(level);
    const [x0, x1] = this.#span(column, size.width);
    const [y0, y1] = this.#span(row, size.height);
    return { x: x0, y: y0, width: x1 - x0, height: y1 - y0 };
  }

  #span(index, extent) {
    const start = index * this.tileSize - (index > 0 ? this.overlap : 0);
    const end = Math.min(extent, (index + 1) * this.tileSize + this.overlap);
    return [start, end];
  }

  /**
   * Rule 8's level: clamp(maxLevel + ceil(log2(density)), 0, maxLevel), the coarsest level at least as sharp as the
   * screen (`density`: device pixels per image pixel), in the same order of operations as Sources/ScrollGeometry.
   */
  levelForDensity(density) {
    return Math.min(Math.max(this.maxLevel + Math.ceil(Math.log2(density) - 1e-9), 0), this.maxLevel);
  }

  /** The largest level whose sides are both at most maxSide: the level the preview image is. */
  previewLevel(maxSide = 1024) {
    let level = this.maxLevel;
    while (level > 0) {
      const size = this.sizeOfLevel(level);
      if (size.width <= maxSide && size.height <= maxSide) break;
      level -= 1;
    }
    return level;
  }

  /** The largest level whose whole image is one tile: under every view from the first frame. */
  get baseLevel() {
    return this.previewLevel(this.tileSize);
  }
}
