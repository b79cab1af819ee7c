import { Pyramid } from './Pyramid.js';

/**
 * Deep Zoom's levels and, between each two, the two Tilescope serves at 5/8 and 4/5 of the finer one's size
 * (docs/api.md#levels-between-deep-zooms). Pure, no DOM.
 *
 * Why: a view is drawn from the coarsest level at least as sharp as the screen; an octave apart, that level
 * holds 1x to 4x the pixels the view shows, and on a slow connection a zoom waits for every one of them. With
 * the levels between, the scales step by 1.25x, 1.28x and 1.25x, and the level holds 1x to 1.64x.
 *
 * Levels are numbered in thirds so that every rule written for levels (finer is larger, one step coarser is one
 * less, the base and the preview are levels) holds as it is: level 3L is Deep Zoom's level L, 3L + 1 and 3L + 2 the
 * two above it (`split`). The preview and the base stay Deep Zoom's (3P and 3B): their images are those levels'.
 */
export const FRACTIONS = [null, [5, 8], [4, 5]];

/** Level `level` as Deep Zoom's level below it and its step above that (0: Deep Zoom's own). */
export function split(level) {
  const step = level % 3;
  return { below: (level - step) / 3, step };
}

export class LevelsBetween extends Pyramid {
  constructor(width, height, tileSize = 254, overlap = 1) {
    super(width, height, tileSize, overlap);
    this.deepZoom = new Pyramid(width, height, tileSize, overlap);
    this.maxLevel = 3 * this.deepZoom.maxLevel;
  }

  scaleOfLevel(level) {
    const { below, step } = split(level);
    if (step === 0) return this.deepZoom.scaleOfLevel(below);
    const [numerator, denominator] = FRACTIONS[step];
    return (this.deepZoom.scaleOfLevel(below + 1) * numerator) / denominator;
  }

  /** Deep Zoom's size, or the finer level's times the fraction, each side rounded up on integers. */
  sizeOfLevel(level) {
    const { below, step } = split(level);
    if (step === 0) return this.deepZoom.sizeOfLevel(below);
    const [numerator, denominator] = FRACTIONS[step];
    const finer = this.deepZoom.sizeOfLevel(below + 1);
    const side = (length) => Math.floor((length * numerator + denominator - 1) / denominator);
    return { width: side(finer.width), height: side(finer.height) };
  }

  /** Deep Zoom's preview level: the preview image is that level's pixels. */
  previewLevel(maxSide = 1024) {
    return 3 * this.deepZoom.previewLevel(maxSide);
  }

  /**
   * The coarsest level at least as sharp as the screen: Deep Zoom's (rule 8), or one of the two between it and the
   * level below when one of them is sharp enough (within the same tolerance).
   */
  levelForDensity(density) {
    const octave = this.deepZoom.levelForDensity(density);
    if (octave === 0) return 0;
    for (const step of [1, 2]) {
      const level = 3 * (octave - 1) + step;
      if (this.scaleOfLevel(level) >= density * (1 - 1e-9)) return level;
    }
    return 3 * octave;
  }

  /** A tile's URL: Deep Zoom's template (`urls.tiles`) for its levels, `urls.between` for the others. */
  tileURL(urls, level, column, row) {
    const { below, step } = split(level);
    const template = step === 0 ? urls.tiles : urls.between.replace('{step}', step);
    return template.replace('{level}', below).replace('{col}', column).replace('{row}', row);
  }
}
