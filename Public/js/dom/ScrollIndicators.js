import { writeStyles } from './Styles.js';
import { playTransforms } from './PlayedMotion.js';

const FADE_DELAY = 500; // ms the indicators stay after the motion ends, as UIScrollView's do
const MIN_LENGTH = 36; // points: an indicator never gets shorter than this (except while rubber-banding)
const THICKNESS = 3;
const MARGIN = 3; // points from the view's edge (inside scrollIndicatorInsets)
const AXES = ['horizontal', 'vertical'];

/**
 * The thin horizontal and vertical bars that show which part of the content is visible while it moves
 * (UIScrollView's showsHorizontalScrollIndicator / showsVerticalScrollIndicator), inset by
 * `scrollIndicatorInsets`, fading out shortly after the motion ends. They carry
 * `data-scroll-indicator="horizontal"` / `"vertical"` so tests and embedders can find them.
 */
export class ScrollIndicators {
  constructor(container) {
    this.bars = {};
    for (const axis of AXES) {
      const bar = document.createElement('div');
      bar.className = `scroll-indicator ${axis}`;
      bar.dataset.scrollIndicator = axis;
      bar.setAttribute('aria-hidden', 'true');
      container.append(bar);
      this.bars[axis] = bar;
    }
    this.timer = null;
    this.enabled = { horizontal: true, vertical: true };
  }

  /**
   * Places the bars for a view: its size, the content's size, the offset shown (may be rubber-banded),
   * the contentInset and the scrollIndicatorInsets (points).
   */
  update(view) {
    for (const axis of AXES) this.#write(this.bars[axis], this.#geometry(axis, view));
  }

  /**
   * Hands the bars' motion through `views` (`{t, ...}` as `update` takes them, sampled by `sampleTimes`) to the
   * compositor (PlayedMotion.js); the bars are placed at the first view, and a length that changes on the way (a
   * bounce's rubber band) is played as a scale of it. The animations of the bars that show.
   */
  play(views, duration) {
    const animations = [];
    for (const axis of AXES) {
      const bar = this.bars[axis];
      const frames = views.map((view) => ({ t: view.t, ...this.#geometry(axis, view) }));
      const first = frames[0];
      this.#write(bar, first);
      if (!first.scrollable) continue;
      animations.push(playTransforms(bar, frames, duration,
        (g) => `translate(${g.x}px, ${g.y}px) scale(${g.w / first.w}, ${g.h / first.h})`));
    }
    return animations;
  }

  /**
   * Shows the bars while something moves; `hold` keeps them (a finger is down), otherwise they fade. Called at
   * every frame of a motion: it moves the fade's end instead of setting a timer each frame (the timer, when it
   * fires early, waits out the rest).
   */
  show(hold = false) {
    for (const bar of Object.values(this.bars)) bar.classList.toggle('visible', bar.dataset.scrollable === 'true');
    this.fadeAt = hold ? Infinity : performance.now() + FADE_DELAY;
    if (hold) this.#stopTimer();
    else this.#fadeLater();
  }

  /** The finger lifted: bars that show fade after the delay (bars that do not show stay hidden). */
  release() {
    this.fadeAt = performance.now() + FADE_DELAY;
    this.#fadeLater();
  }

  hide() {
    this.#stopTimer();
    for (const bar of Object.values(this.bars)) bar.classList.remove('visible');
  }

  #fadeLater() {
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      const left = this.fadeAt - performance.now();
      if (left > 0) this.#fadeLater();
      else this.hide();
    }, Math.max(0, this.fadeAt - performance.now()));
  }

  #stopTimer() {
    clearTimeout(this.timer);
    this.timer = null;
  }

  destroy() {
    this.#stopTimer();
    for (const bar of Object.values(this.bars)) bar.remove();
  }

  /** Where a bar lies for a view, and whether it shows at all. */
  #geometry(axis, { width, height, contentWidth, contentHeight, offsetX, offsetY, insets, indicatorInsets }) {
    const corner = MARGIN + THICKNESS + 2;
    const { size, content, offset, leading, trailing, from, to, across } = axis === 'horizontal'
      ? { size: width, content: contentWidth, offset: offsetX, leading: insets.left, trailing: insets.right,
          from: indicatorInsets.left + MARGIN, to: width - indicatorInsets.right - corner,
          across: height - indicatorInsets.bottom - MARGIN - THICKNESS }
      : { size: height, content: contentHeight, offset: offsetY, leading: insets.top, trailing: insets.bottom,
          from: indicatorInsets.top + MARGIN, to: height - indicatorInsets.bottom - corner,
          across: width - indicatorInsets.right - MARGIN - THICKNESS };
    const total = content + leading + trailing;
    const track = Math.max(0, to - from);
    const scrollable = this.enabled[axis] && total > size + 0.5 && track > 0;
    if (!scrollable) return { scrollable };
    const range = total - size;
    const position = (offset + leading) / range; // 0 at the leading edge, 1 at the trailing one
    let length = Math.min(track, Math.max(MIN_LENGTH, (track * size) / total));
    // Rubber-banding past an edge shortens the bar, as on a phone.
    const overshoot = position < 0 ? -position * range : position > 1 ? (position - 1) * range : 0;
    length = Math.max(THICKNESS * 2, length - overshoot);
    const start = from + (track - length) * Math.min(1, Math.max(0, position));
    const [x, y, w, h] = axis === 'horizontal' ? [start, across, length, THICKNESS] : [across, start, THICKNESS, length];
    return { scrollable, x, y, w, h };
  }

  #write(bar, { scrollable, x, y, w, h }) {
    if (bar.dataset.scrollable !== String(scrollable)) bar.dataset.scrollable = String(scrollable);
    if (!scrollable) { bar.classList.remove('visible'); return; }
    // Moved by its transform alone, its size written only when it changes (a zoom, a rubber-band): a pan's
    // frames then lay out and paint nothing.
    writeStyles(bar, { transform: `translate(${x}px, ${y}px)`, width: `${w}px`, height: `${h}px` });
  }
}
