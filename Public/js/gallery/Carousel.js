import { Page } from './Page.js';
import { easeOutCubic } from '../geometry/Motion.js';
import { motionDuration } from '../dom/Motion.js';

const TURN_DURATION = 280;
const GAP = 16; // points between pages, visible while swiping

/**
 * The endless three-page carousel of the classic photo browser: previous, current and next pages only,
 * reused as it turns. `offset` is how far the strip is pulled (positive: towards the previous page).
 */
export class Carousel {
  constructor(element, { onChange, onImageUpdate, onTurn, scrollOptions }) {
    this.element = element;
    // Every render of a page: the side pages wait until the page on screen is complete (`#holdSides`).
    const changed = (page) => {
      this.#holdSides();
      onChange?.(page);
    };
    this.pages = [0, 1, 2].map(() => new Page(element, { onChange: changed, onImageUpdate, scrollOptions }));
    this.offset = 0;
    this.onTurn = onTurn;
    this.frame = null;
    this.layout();
  }

  get previous() { return this.pages[0]; }
  get current() { return this.pages[1]; }
  get next() { return this.pages[2]; }
  get width() { return this.element.clientWidth; }
  get animating() { return this.frame !== null; }

  /** Shows three images (the side ones may be null when there is only one image). */
  showAll(previous, current, next, view = {}) {
    this.previous.hold(true);
    this.next.hold(true);
    this.previous.show(previous);
    this.current.show(current, view);
    this.next.show(next);
    this.layout();
  }

  /**
   * The side pages ask for tiles only once the page on screen is complete (or shows no tiled image): on issue 44's
   * connection A their two previews took the bandwidth its own waited for.
   */
  #holdSides() {
    // A ready image whose scroll view is still being made (its first render calls back here) is waited for too.
    const waiting = this.current.image?.status === 'ready' && !this.current.scrollView?.fullyLoaded;
    this.current.hold(false);
    this.previous.hold(waiting);
    this.next.hold(waiting);
  }

  layout() {
    this.#holdSides();
    const w = this.width + GAP;
    this.pages.forEach((page, i) => {
      page.element.style.transform = `translate3d(${(i - 1) * w + this.offset}px, 0, 0)`;
      page.element.classList.toggle('current', i === 1);
      page.element.setAttribute('aria-hidden', i === 1 ? 'false' : 'true');
      page.element.inert = i !== 1;
    });
  }

  pull(dx) {
    this.offset += dx;
    this.layout();
  }

  /**
   * Finishes a swipe: turns to the next (-1 direction of the offset) or previous page, or springs back.
   * `velocity` is in points per ms.
   */
  release(velocity) {
    const w = this.width;
    if (this.offset < -w * 0.25 || (velocity < -0.4 && this.offset < 0)) return this.turn(+1);
    if (this.offset > w * 0.25 || (velocity > 0.4 && this.offset > 0)) return this.turn(-1);
    return this.#animateOffset(0, () => {});
  }

  /** Turns one page (+1 next, -1 previous); `onTurn(direction, recycledPage)` fills the recycled page. */
  turn(direction) {
    const target = -direction * (this.width + GAP);
    return this.#animateOffset(target, () => {
      if (direction > 0) this.pages.push(this.pages.shift());
      else this.pages.unshift(this.pages.pop());
      this.offset = 0;
      const recycled = direction > 0 ? this.next : this.previous;
      recycled.hold(true); // a side page now: it waits for the page on screen (`layout` lets it go when complete)
      this.onTurn(direction, recycled);
      this.layout();
    });
  }

  resize() {
    this.layout();
    for (const page of this.pages) page.resize();
  }

  destroy() {
    cancelAnimationFrame(this.frame);
    this.frame = null;
    for (const page of this.pages) page.destroy();
  }

  #animateOffset(target, done) {
    cancelAnimationFrame(this.frame);
    const from = this.offset;
    const start = performance.now();
    const duration = motionDuration(TURN_DURATION);
    return new Promise((resolve) => {
      const tick = (now) => {
        const t = duration === 0 ? 1 : Math.min(1, (now - start) / duration);
        this.offset = from + (target - from) * easeOutCubic(t);
        this.layout();
        if (t < 1) { this.frame = requestAnimationFrame(tick); return; }
        this.frame = null;
        done();
        resolve();
      };
      this.frame = requestAnimationFrame(tick);
    });
  }
}
