import {
  computeViewport, settle, zoomLimits, offsetRanges, visibleRect, resolutionFor, tilesCovering,
  zoomAround, tapZoom, imagePointAt,
} from '../geometry/Viewport.js';
import { rubberBanded, rubberBandInverse, easeOutCubic } from '../geometry/Motion.js';
import { Pyramid } from '../geometry/Pyramid.js';
import { TileLayer, tileURL } from '../tiles/TileLayer.js';
import { Animator, MomentumAxis } from './Animator.js';

const ZOOM_DURATION = 300;

/**
 * A zooming scroll view over one deep-zoom image, in the manner of UIScrollView: it owns zoomScale and
 * contentOffset, settles them by the geometry rules, animates zooms, momentum and bounces, and hands the
 * resulting view to its TileLayer. Gestures arrive from outside as calls.
 */
export class ScrollView {
  constructor(element, image, { onChange, initialView = {} } = {}) {
    this.element = element;
    this.image = image;
    this.pyramid = new Pyramid(image.width, image.height, image.tileSize, image.overlap);
    this.layer = new TileLayer(element, image, this.pyramid);
    // A tile or the preview arrived: lay out again (coalesced), which also drops the older level once complete.
    this.layer.onChange = () => this.#scheduleRender();
    this.onChange = onChange;
    this.animator = new Animator(() => this.render());
    this.dragging = false;
    this.width = Math.max(1, element.clientWidth);
    this.height = Math.max(1, element.clientHeight);
    this.scale = ScrollView.deviceScale();
    const start = settle(this.pyramid, { ...this.#baseRequest(), ...initialView });
    Object.assign(this, { zoomScale: start.zoomScale, offsetX: start.offsetX, offsetY: start.offsetY });
    this.render();
  }

  /** Device pixels per point, as the viewport API's `scale` (1..4). */
  static deviceScale() {
    return Math.min(4, Math.max(1, window.devicePixelRatio || 1));
  }

  #baseRequest() {
    return { width: this.width, height: this.height, scale: this.scale };
  }

  /** The request the viewport API would get for the current (settled) view. */
  request() {
    return { ...this.#baseRequest(), zoomScale: this.zoomScale, offsetX: this.offsetX, offsetY: this.offsetY };
  }

  /** Rule 4's allowed contentOffset ranges at the current zoomScale. */
  offsetRange() {
    return this.#ranges();
  }

  limits() {
    return zoomLimits(this.pyramid, this.#baseRequest());
  }

  /** The viewport answer (rules 1-10) for the current view, as GET /api/images/{id}/viewport gives it. */
  viewport() {
    const urls = { tile: (l, c, r) => tileURL(this.image.urls.tiles, l, c, r), preview: this.image.urls.preview };
    return computeViewport(this.pyramid, this.request(), urls);
  }

  get isIdle() {
    return !this.dragging && !this.animator.running && this.layer.complete;
  }

  get isAtFit() {
    return Math.abs(this.zoomScale - this.limits().minimum) < 1e-9;
  }

  destroy() {
    this.animator.stop();
    cancelAnimationFrame(this.pendingFrame);
    this.resizeObserver?.disconnect();
    this.layer.destroy();
  }

  /** Re-measures the element; a view at fit stays at fit, otherwise the centre stays put. */
  resize() {
    const width = Math.max(1, this.element.clientWidth);
    const height = Math.max(1, this.element.clientHeight);
    const scale = ScrollView.deviceScale();
    if (width === this.width && height === this.height && scale === this.scale) return;
    const wasFit = this.isAtFit;
    const centre = imagePointAt(this.request(), this.zoomScale, { x: this.width / 2, y: this.height / 2 });
    Object.assign(this, { width, height, scale });
    this.animator.stop();
    if (wasFit) this.setView({});
    else this.setView({ zoomScale: this.zoomScale, offsetX: centre.x * this.zoomScale - width / 2,
                        offsetY: centre.y * this.zoomScale - height / 2 });
  }

  /** Jumps to a view, settled by rules 3 and 4; missing fields mean aspect fit and offset 0. */
  setView({ zoomScale, offsetX, offsetY }) {
    this.animator.stop();
    this.#apply(settle(this.pyramid, { ...this.#baseRequest(), zoomScale, offsetX, offsetY }));
  }

  /** Animates to a view, settled by rules 3 and 4. */
  animateTo(target, duration = ZOOM_DURATION) {
    const from = { zoomScale: this.zoomScale, offsetX: this.offsetX, offsetY: this.offsetY };
    const to = settle(this.pyramid, { ...this.#baseRequest(), ...target });
    // The end is known now: the tile layer fetches for it, not for every frame on the way.
    this.layer.expect(to, duration);
    this.animator.run((elapsed) => {
      const t = Math.min(1, elapsed / duration);
      const k = easeOutCubic(t);
      // Zoom moves geometrically so that the speed of zooming feels even.
      this.zoomScale = from.zoomScale * Math.pow(to.zoomScale / from.zoomScale, k);
      this.offsetX = from.offsetX + (to.offsetX - from.offsetX) * k;
      this.offsetY = from.offsetY + (to.offsetY - from.offsetY) * k;
      if (t >= 1) { this.#apply(to); return false; }
      return true;
    });
  }

  fit(animated = true) {
    if (animated) this.animateTo({});
    else this.setView({});
  }

  /** Double tap (or click) at a point in the view: x factor ('out': / factor), centred on that point (the API's `tap`). */
  tap(viewPoint, factor = 1.5, direction = 'in') {
    this.#settleNow();
    const point = imagePointAt(this.request(), this.zoomScale, viewPoint);
    this.animateTo(tapZoom(this.pyramid, this.request(), point, factor, direction));
  }

  /** Wheel or trackpad pinch: zoom by `factor` keeping the point under the pointer fixed. */
  zoomBy(factor, viewPoint, animated = false) {
    this.#settleNow();
    const target = zoomAround(this.pyramid, this.request(), this.zoomScale * factor, viewPoint);
    if (animated) this.animateTo(target, 200);
    else this.#apply(target);
  }

  /** Keyboard pan by a distance in points, clamped by rule 4. */
  panBy(dx, dy) {
    this.#settleNow();
    this.animateTo({ zoomScale: this.zoomScale, offsetX: this.offsetX + dx, offsetY: this.offsetY + dy }, 150);
  }

  // Dragging ---------------------------------------------------------------------------------

  beginDrag() {
    this.animator.stop();
    this.dragging = true;
    const ranges = this.#ranges();
    // Resume from where a bounce was: the finger position that would show the current offset.
    this.rawX = this.#unband(this.offsetX, ranges.x, this.width);
    this.rawY = this.#unband(this.offsetY, ranges.y, this.height);
  }

  /**
   * The finger moved by (dx, dy). With `pageable`, horizontal movement beyond the content's edges is
   * not rubber-banded but returned, so that the carousel can turn the page with it.
   */
  dragBy(dx, dy, pageable = false) {
    const ranges = this.#ranges();
    let excess = 0;
    this.rawX -= dx;
    this.rawY -= dy;
    if (pageable) {
      const clamped = Math.min(Math.max(this.rawX, ranges.x.lo), ranges.x.hi);
      excess = this.rawX - clamped;
      this.rawX = clamped;
    }
    this.offsetX = rubberBanded(this.rawX, ranges.x.lo, ranges.x.hi, this.width);
    this.offsetY = rubberBanded(this.rawY, ranges.y.lo, ranges.y.hi, this.height);
    this.render();
    return excess;
  }

  /** The finger lifted with a velocity in points per ms: momentum, then a bounce at the edges. */
  endDrag(vx, vy) {
    this.dragging = false;
    this.#glide(-vx, -vy);
  }

  // Pinching ---------------------------------------------------------------------------------

  beginPinch(centre) {
    this.animator.stop();
    this.dragging = true;
    this.pinchStart = { zoomScale: this.zoomScale, point: imagePointAt(this.request(), this.zoomScale, centre) };
  }

  /** Fingers at `centre`, `ratio` times as far apart as at the start: the image point under them follows. */
  pinchTo(ratio, centre) {
    const { minimum, maximum } = this.limits();
    const wanted = this.pinchStart.zoomScale * ratio;
    // A little resistance beyond the limits, as a scroll view shows, then the bounce on release.
    let z = wanted;
    if (wanted < minimum) z = minimum * Math.pow(wanted / minimum, 0.3);
    if (wanted > maximum) z = maximum * Math.pow(wanted / maximum, 0.3);
    this.zoomScale = z;
    this.offsetX = this.pinchStart.point.x * z - centre.x;
    this.offsetY = this.pinchStart.point.y * z - centre.y;
    this.render();
  }

  endPinch() {
    this.dragging = false;
    this.animateTo({ zoomScale: this.zoomScale, offsetX: this.offsetX, offsetY: this.offsetY }, 250);
  }

  // Rendering --------------------------------------------------------------------------------

  render() {
    const request = this.#baseRequest();
    const z = this.zoomScale;
    const visible = visibleRect(this.pyramid, request, z, this.offsetX, this.offsetY);
    const { level } = resolutionFor(this.pyramid, z, this.scale);
    const centre = { x: (this.offsetX + this.width / 2) / z, y: (this.offsetY + this.height / 2) / z };
    const tiles = level === null ? [] : tilesCovering(this.pyramid, level, visible, z, centre);
    this.layer.update({ zoomScale: z, offsetX: this.offsetX, offsetY: this.offsetY, level, tiles,
                        viewWidth: this.width, viewHeight: this.height, scale: this.scale });
    this.#changed();
  }

  #scheduleRender() {
    if (this.pendingFrame || this.animator.running) return;
    this.pendingFrame = requestAnimationFrame(() => {
      this.pendingFrame = null;
      this.render();
    });
  }

  #changed() {
    this.onChange?.(this);
  }

  #apply({ zoomScale, offsetX, offsetY }) {
    Object.assign(this, { zoomScale, offsetX, offsetY });
    this.render();
  }

  #ranges() {
    return offsetRanges(this.pyramid, this.#baseRequest(), this.zoomScale);
  }

  #unband(value, range, dimension) {
    if (value < range.lo) return range.lo + rubberBandInverse(value - range.lo, dimension);
    if (value > range.hi) return range.hi + rubberBandInverse(value - range.hi, dimension);
    return value;
  }

  /** Ends any motion where it stands, settled into the allowed range. */
  #settleNow() {
    this.animator.stop();
    this.dragging = false;
    this.#apply(settle(this.pyramid, this.request()));
  }

  #glide(vx, vy) {
    const ranges = this.#ranges();
    const ax = new MomentumAxis(this.offsetX, vx, ranges.x.lo, ranges.x.hi);
    const ay = new MomentumAxis(this.offsetY, vy, ranges.y.lo, ranges.y.hi);
    this.animator.run((elapsed) => {
      this.offsetX = ax.at(elapsed);
      this.offsetY = ay.at(elapsed);
      if (ax.done && ay.done) {
        this.#apply(settle(this.pyramid, this.request()));
        return false;
      }
      return true;
    });
  }
}
