import { setHidden, writeStyles } from '../dom/Styles.js';

/**
 * A scale bar for images that say how large a pixel is (a slide's microns per pixel, `micronsPerPixel` in the
 * image's JSON): a bar of a round length (1, 2 or 5 times a power of ten, in nm, µm, mm or m) that is 60 to 150
 * CSS pixels long at the current zoomScale, with its length written above it. Hidden for images that do not say.
 */
export class ScaleBar {
  constructor(parent, { maximum = 150 } = {}) {
    this.maximum = maximum;
    this.element = document.createElement('div');
    this.element.className = 'scale-bar';
    this.element.setAttribute('role', 'img');
    this.element.hidden = true;
    this.label = document.createElement('span');
    this.label.className = 'scale-bar-label';
    this.bar = document.createElement('div');
    this.bar.className = 'scale-bar-line';
    this.element.append(this.label, this.bar);
    parent.append(this.element);
  }

  /** Follows `scrollView`'s zoomScale; hides the bar without a view or a pixel size. */
  update(scrollView) {
    const microns = scrollView?.image?.micronsPerPixel?.x;
    const zoomScale = scrollView?.zoomScale;
    // Runs at every frame of a zoom: what it sets is written only when it changes (dom/Styles.js).
    if (!(microns > 0) || !(zoomScale > 0)) {
      setHidden(this.element, true);
      return;
    }
    // One CSS pixel of the view shows 1 / zoomScale pixels of the image.
    const { micrometres, pixels } = scaleBarLength(microns / zoomScale, this.maximum);
    const text = lengthText(micrometres);
    writeStyles(this.bar, { width: `${pixels}px` });
    if (this.label.textContent !== text) {
      this.label.textContent = text;
      this.element.setAttribute('aria-label', `Scale: the bar is ${text}`);
    }
    setHidden(this.element, false);
  }

  destroy() { this.element.remove(); }
}

/**
 * The longest round length (in µm: 1, 2 or 5 times a power of ten) whose bar, at `micrometresPerPixel` µm a CSS
 * pixel, is at most `maximum` CSS pixels, and that bar's length in CSS pixels. Consecutive round lengths are at
 * most 2.5 times apart, so the bar is at least `maximum` / 2.5 long.
 */
export function scaleBarLength(micrometresPerPixel, maximum = 150) {
  const most = maximum * micrometresPerPixel;
  const step = 10 ** Math.floor(Math.log10(most));
  const length = [5, 2, 1].map((m) => m * step).find((l) => l <= most * (1 + 1e-9)) ?? step;
  return { micrometres: length, pixels: length / micrometresPerPixel };
}

/** `250 µm`, `2 mm`, `500 nm`, `1 m`: the unit that keeps the number between 1 and 999. */
export function lengthText(micrometres) {
  const units = [['m', 1e6], ['mm', 1e3], ['µm', 1], ['nm', 1e-3]];
  const [unit, size] = units.find(([, s]) => micrometres >= s * (1 - 1e-9)) ?? units[units.length - 1];
  const value = micrometres / size;
  return `${Number(value.toPrecision(3))} ${unit}`;
}
