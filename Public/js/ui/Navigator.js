import { setHidden, writeStyles } from '../dom/Styles.js';

/**
 * The navigator: a mini-map of the whole image (the tile layer's one-tile base level) with the visible rectangle on it, shown while
 * the view is zoomed in beyond fit. Pressing on it centres the view there; dragging moves the view along.
 * `onMove(imagePoint)` asks the viewer to centre that image point.
 *
 * The mini-map is copied from the tile layer's own base tile (its decoded image) into the navigator's canvas, not
 * asked for again: an <img> of the same URL was a second request for it (its Accept header differs from the
 * layer's fetch, and tile answers vary by Accept) and a second decode.
 */
export class Navigator {
  constructor(element, { onMove, enabled = true }) {
    this.element = element;
    this.enabled = enabled;
    this.image = element.querySelector('.navigator-image');
    this.rect = element.querySelector('.navigator-rect');
    this.onMove = onMove;
    this.layout = null;
    this.drawn = null; // the base tile's image the mini-map was copied from
    this.grab = null;
    this.listening = new AbortController();
    const on = (name, fn) => element.addEventListener(name, fn, { signal: this.listening.signal });
    on('pointerdown', (e) => this.#down(e));
    on('pointermove', (e) => this.#drag(e));
    on('pointerup', (e) => this.#up(e));
    on('pointercancel', (e) => this.#up(e));
  }

  /** Shows the scroll view's visible part, or hides the navigator at fit or without a view. */
  update(scrollView) {
    const show = this.enabled && Boolean(scrollView) && !scrollView.isAtFit;
    // Runs at every frame of a gesture: what it sets is written only when it changes (dom/Styles.js).
    setHidden(this.element, !show);
    if (!show) return;
    const { width, height } = scrollView.pyramid;
    this.#draw(scrollView.layer.baseElement);
    const boxW = this.element.clientWidth;
    const boxH = this.element.clientHeight;
    const k = Math.min(boxW / width, boxH / height);
    const layout = { k, left: (boxW - width * k) / 2, top: (boxH - height * k) / 2, width, height };
    this.layout = layout;
    writeStyles(this.image, { left: `${layout.left}px`, top: `${layout.top}px`, width: `${width * k}px`, height: `${height * k}px` });
    // The rectangle moves by its transform (a pan's frames lay out nothing), its size set only when it changes.
    const v = scrollView.visibleImageRect();
    writeStyles(this.rect, { transform: `translate(${layout.left + v.x * k}px, ${layout.top + v.y * k}px)`,
                             width: `${v.width * k}px`, height: `${v.height * k}px` });
    const percent = (a, b) => Math.round((100 * a) / b);
    // Pointer users drag it; keyboard users pan with the arrows. Both hear what part is shown.
    const label = `Navigator: showing ${percent(v.width, width)}% by ${percent(v.height, height)}% `
      + `of the image from ${percent(v.x, width)}%, ${percent(v.y, height)}%`;
    if (this.element.getAttribute('aria-label') !== label) this.element.setAttribute('aria-label', label);
  }

  destroy() {
    this.listening.abort();
  }

  /** Copies the base tile (null: not yet arrived, so nothing) into the mini-map, once per base tile. */
  #draw(base) {
    if (base === this.drawn) return;
    this.drawn = base;
    this.image.width = base?.naturalWidth ?? 0;
    this.image.height = base?.naturalHeight ?? 0;
    if (base) this.image.getContext('2d').drawImage(base, 0, 0);
  }

  #imagePoint(e) {
    const box = this.element.getBoundingClientRect();
    const { k, left, top, width, height } = this.layout;
    const clamp = (x, hi) => Math.min(Math.max(x, 0), hi);
    return { x: clamp((e.clientX - box.left - left) / k, width), y: clamp((e.clientY - box.top - top) / k, height) };
  }

  #down(e) {
    if (!this.layout || e.button !== 0) return;
    e.preventDefault();
    e.stopPropagation();
    try { this.element.setPointerCapture(e.pointerId); } catch { /* already gone */ }
    this.grab = e.pointerId;
    this.onMove(this.#imagePoint(e));
  }

  #drag(e) {
    if (this.grab !== e.pointerId) return;
    this.onMove(this.#imagePoint(e));
  }

  #up(e) {
    if (this.grab === e.pointerId) this.grab = null;
  }
}
