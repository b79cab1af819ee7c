import {
  computeViewport, settle, zoomLimits, offsetRanges, visibleRect, resolutionFor, tilesCovering,
  zoomAround, tapZoom, imagePointAt, zoomToRect, normalizedInsets,
} from '../geometry/Viewport.js';
import { rubberBanded, rubberBandInverse, easeOutCubic, viewBetween, DECELERATION } from '../geometry/Motion.js';
import { Pyramid } from '../geometry/Pyramid.js';
import { LevelsBetween } from '../geometry/LevelsBetween.js';
import { TileLayer, tileURL } from '../tiles/TileLayer.js';
import { Animator, MomentumAxis } from './Animator.js';
import { Emitter } from './Emitter.js';
import { ScrollIndicators } from './ScrollIndicators.js';
import { motionDuration } from './Motion.js';
import { PlayedMotion, sampleTimes, keptSamples, canPlay } from './PlayedMotion.js';

const ZOOM_DURATION = 300;
/**
 * A glide asks for tiles once it is this slow (points per ms): about a tile of the view's level (85 points at a
 * screen scale of 3) in the time one takes to come. Faster, what it uncovers has passed before its tiles could land.
 */
const GLIDE_FETCH_SPEED = 0.5;

/** UIScrollView's two named deceleration rates (velocity kept per ms); any number in (0, 1) also works. */
export const DECELERATION_RATES = { normal: DECELERATION, fast: 0.99 };

function decelerationRateOf(value) {
  const rate = typeof value === 'string' ? DECELERATION_RATES[value] : value;
  if (!(rate > 0 && rate < 1)) throw new RangeError(`decelerationRate must be "normal", "fast" or a number in (0, 1), got ${value}`);
  return rate;
}

function zoomScaleOption(name, value) {
  if (value === undefined || value === null) return undefined;
  if (!(Number.isFinite(value) && value > 0)) throw new RangeError(`${name} must be a positive number, got ${value}`);
  return value;
}

/**
 * A pyramid whose preview is not Tilescope's 1024-px one: for a foreign Deep Zoom or IIIF source the
 * "preview" is the single tile of the largest level that fits in one tile, so rule 8 asks for tiles as soon
 * as that is too coarse.
 */
class ForeignPyramid extends Pyramid {
  constructor(width, height, tileSize, overlap, previewSide) {
    super(width, height, tileSize, overlap);
    this.previewSide = previewSide;
  }

  previewLevel(maxSide = this.previewSide) {
    return super.previewLevel(maxSide);
  }
}

/** The image's levels: with the levels between Deep Zoom's where its server makes them (`urls.between`). */
export function pyramidOf(image) {
  const { width, height, tileSize, overlap } = image;
  if (image.previewSide) return new ForeignPyramid(width, height, tileSize, overlap, image.previewSide);
  return image.urls?.between ? new LevelsBetween(width, height, tileSize, overlap) : new Pyramid(width, height, tileSize, overlap);
}

/**
 * A zooming scroll view over one deep-zoom image, in the manner of UIScrollView: it owns zoomScale and
 * contentOffset, settles them by the geometry rules (contentInset included), animates zooms, momentum and
 * bounces, shows scroll indicators and tells its delegate (`on(event, fn)`) what happens:
 *   scroll, zoom, beginDragging, endDragging {willDecelerate}, endDecelerating, beginZooming,
 *   endZooming {scale}, endScrollingAnimation, fullyLoaded; and, for the viewer's navigator only, picture (the
 *   base tile has arrived).
 * Gestures arrive from outside as calls (see Gestures.js).
 */
export class ScrollView {
  constructor(element, image, { onChange, initialView = {}, insets, indicatorInsets, minimumZoomScale,
    maximumZoomScale, bounces = true, bouncesZoom = true, decelerationRate = 'normal',
    showsHorizontalScrollIndicator = true, showsVerticalScrollIndicator = true, held = false } = {}) {
    this.element = element;
    this.image = image;
    this.events = new Emitter();
    this.pyramid = pyramidOf(image);
    // `held`: a side page of a gallery asks for no tile until the page on screen is complete (TileLayer.hold).
    this.layer = new TileLayer(element, image, this.pyramid, { held });
    // A tile or the preview arrived: lay out again (coalesced), which also drops the older level once complete.
    this.layer.onChange = () => this.#scheduleRender();
    this.indicators = new ScrollIndicators(element);
    this.indicators.enabled = { horizontal: showsHorizontalScrollIndicator, vertical: showsVerticalScrollIndicator };
    this.onChange = onChange;
    this.animator = new Animator(() => this.render());
    Object.assign(this, { tracking: false, dragging: false, decelerating: false, zooming: false });
    this.bounces = bounces;
    this.bouncesZoom = bouncesZoom;
    this.decelerationRate = decelerationRate;
    this.minimumZoomScale = minimumZoomScale;
    this.maximumZoomScale = maximumZoomScale;
    this.insets = normalizedInsets(insets);
    this.indicatorInsets = indicatorInsets ? normalizedInsets(indicatorInsets) : null;
    this.width = Math.max(1, element.clientWidth);
    this.height = Math.max(1, element.clientHeight);
    this.scale = ScrollView.deviceScale();
    this.fullyLoaded = false;
    const start = settle(this.pyramid, { ...this.#baseRequest(), ...initialView });
    Object.assign(this, { zoomScale: start.zoomScale, offsetX: start.offsetX, offsetY: start.offsetY });
    this.shown = { zoomScale: this.zoomScale, offsetX: this.offsetX, offsetY: this.offsetY };
    this.render();
  }

  /** Device pixels per point, as the viewport API's `scale` (1..4). */
  static deviceScale() {
    return Math.min(4, Math.max(1, window.devicePixelRatio || 1));
  }

  on(name, fn) { return this.events.on(name, fn); }

  // Configuration ------------------------------------------------------------------------------

  get decelerationRate() { return this.rate; }
  set decelerationRate(value) { this.rate = decelerationRateOf(value); }

  get minimumZoomScale() { return this.limits().minimum; }
  set minimumZoomScale(value) { this.minZoom = zoomScaleOption('minimumZoomScale', value); this.#resettle(); }

  get maximumZoomScale() { return this.limits().maximum; }
  set maximumZoomScale(value) { this.maxZoom = zoomScaleOption('maximumZoomScale', value); this.#resettle(); }

  #resettle() {
    // Called from the constructor before the first view exists.
    if (this.zoomScale !== undefined) this.setView(this.request());
  }

  #baseRequest() {
    const request = { width: this.width, height: this.height, scale: this.scale, insets: this.insets };
    if (this.minZoom !== undefined) request.minZoomScale = this.minZoom;
    if (this.maxZoom !== undefined) request.maxZoomScale = this.maxZoom;
    return request;
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

  /**
   * The viewport answer (rules 1-10) for the current view: the tiles this view draws, with their URLs, in its
   * levels (with the levels between Deep Zoom's, numbered in thirds: `LevelsBetween`). `deepZoom`: in Deep Zoom's
   * levels alone, as GET /api/images/{id}/viewport gives it.
   */
  viewport({ deepZoom = false } = {}) {
    const pyramid = deepZoom ? (this.pyramid.deepZoom ?? this.pyramid) : this.pyramid;
    const tile = pyramid.tileURL ? (l, c, r) => pyramid.tileURL(this.image.urls, l, c, r)
      : (l, c, r) => tileURL(this.image.urls.tiles, l, c, r);
    return computeViewport(pyramid, this.request(), { tile, preview: this.image.urls.preview });
  }

  /** The visible part of the image in image pixels (rule 5), for a navigator. */
  visibleImageRect() {
    return visibleRect(this.pyramid, this.#baseRequest(), this.zoomScale, this.offsetX, this.offsetY);
  }

  get isIdle() {
    return !this.tracking && !this.animator.running && this.layer.complete;
  }

  get isAtFit() {
    return Math.abs(this.zoomScale - this.limits().minimum) < 1e-9;
  }

  destroy() {
    this.animator.stop();
    cancelAnimationFrame(this.pendingFrame);
    this.layer.destroy();
    this.indicators.destroy();
    this.events.clear();
  }

  /** Re-measures the element; a view at fit stays at fit, otherwise the centre stays put. */
  resize() {
    const width = Math.max(1, this.element.clientWidth);
    const height = Math.max(1, this.element.clientHeight);
    const scale = ScrollView.deviceScale();
    if (width === this.width && height === this.height && scale === this.scale) return;
    this.#stopMotion();
    const wasFit = this.isAtFit;
    const centre = imagePointAt(this.request(), this.zoomScale, { x: this.width / 2, y: this.height / 2 });
    Object.assign(this, { width, height, scale });
    if (wasFit) this.setView({});
    else this.setView({ zoomScale: this.zoomScale, offsetX: centre.x * this.zoomScale - width / 2,
                        offsetY: centre.y * this.zoomScale - height / 2 });
  }

  /**
   * Sets the contentInset (points; the bars over the view): a view at fit stays at fit, otherwise the
   * offset stays where it is within the new allowed range, as UIScrollView does.
   */
  setInsets(insets) {
    const next = normalizedInsets(insets);
    const same = ['top', 'left', 'bottom', 'right'].every((side) => Math.abs(next[side] - this.insets[side]) < 0.01);
    if (same) return;
    this.#stopMotion();
    const wasFit = this.isAtFit;
    this.insets = next;
    if (wasFit) this.setView({});
    else this.setView(this.request());
  }

  /** Jumps to a view, settled by rules 3 and 4; missing fields mean aspect fit and offset 0. */
  setView({ zoomScale, offsetX, offsetY }) {
    this.#stopMotion();
    this.#apply(settle(this.pyramid, { ...this.#baseRequest(), zoomScale, offsetX, offsetY }));
  }

  /** Animates to a view, settled by rules 3 and 4; ends with endScrollingAnimation (and endZooming). */
  animateTo(target, duration = ZOOM_DURATION) {
    this.#stopMotion();
    const from = { zoomScale: this.zoomScale, offsetX: this.offsetX, offsetY: this.offsetY };
    const to = settle(this.pyramid, { ...this.#baseRequest(), ...target });
    const finish = () => {
      this.#apply(to);
      this.events.emit('endScrollingAnimation', this.#where());
      if (to.zoomScale !== from.zoomScale) this.events.emit('endZooming', { scale: to.zoomScale });
    };
    const ms = motionDuration(duration);
    if (ms === 0) { this.animator.stop(); finish(); return; }
    // The end is known now: the tile layer fetches for it, not for every frame on the way.
    this.layer.expect(to, ms);
    this.#ease(from, to, ms, finish);
  }

  /**
   * Moves from one view to another over `ms`, easing out, then calls `finish`. The visible rectangle moves on a
   * straight line (`viewBetween`), so every frame shows some of the image.
   */
  #ease(from, to, ms, finish) {
    // Stepped by the page, not played by the compositor as a glide is: a double tap played so (the content's scale
    // animated) had more of its frames drawn late on a slowed phone CPU, not fewer (docs/benchmarks.md).
    this.animator.run((elapsed) => {
      const t = Math.min(1, elapsed / ms);
      if (t >= 1) { finish(); return false; }
      Object.assign(this, viewBetween(from, to, easeOutCubic(t)));
      return true;
    }, { eased: true });
  }

  /**
   * Hands a motion whose every frame is known (`{t, zoomScale, offsetX, offsetY}` at `sampleTimes(duration)`, or the
   * ones `keptSamples` keeps of them) to the compositor: the content's and the indicators' transforms
   * (PlayedMotion.js). Null where it cannot play them.
   */
  #play(frames, duration) {
    if (!canPlay) return null;
    return new PlayedMotion([this.layer.play(frames, duration),
      ...this.indicators.play(frames.map((f) => ({ t: f.t, ...this.#indicatorView(f) })), duration)]);
  }

  #go(target, animated) {
    if (animated) this.animateTo(target);
    else this.setView(target);
  }

  // UIScrollView's calls --------------------------------------------------------------------------

  /** Moves the content so that the view's top-left shows content point (x, y), settled by rule 4. */
  setContentOffset({ x, y }, { animated = false } = {}) {
    this.#settleNow();
    this.#go({ zoomScale: this.zoomScale, offsetX: x, offsetY: y }, animated);
  }

  /** Zooms to `scale` (clamped to the limits) about the centre of the available area. */
  setZoomScale(scale, { animated = false } = {}) {
    this.#settleNow();
    const { insets, aw, ah } = this.limits();
    const centre = { x: insets.left + aw / 2, y: insets.top + ah / 2 };
    this.#go(zoomAround(this.pyramid, this.request(), scale, centre), animated);
  }

  /** Zooms so that `rect` (image pixels) fills the available area, centred (the geometry's zoomToRect). */
  zoomToRect(rect, { animated = false } = {}) {
    this.#settleNow();
    this.#go(zoomToRect(this.pyramid, this.request(), rect), animated);
  }

  /**
   * Scrolls the least distance that brings `rect` (content points, as UIScrollView's) inside the available
   * area; a rectangle larger than the area shows its leading edge.
   */
  scrollRectToVisible(rect, { animated = false } = {}) {
    this.#settleNow();
    const i = this.insets;
    const axis = (offset, start, length, size, leading, trailing) => {
      const low = offset + leading;
      const high = offset + size - trailing;
      if (length > high - low || start < low) return start - leading;
      if (start + length > high) return start + length - (size - trailing);
      return offset;
    };
    this.#go({ zoomScale: this.zoomScale,
               offsetX: axis(this.offsetX, rect.x, rect.width, this.width, i.left, i.right),
               offsetY: axis(this.offsetY, rect.y, rect.height, this.height, i.top, i.bottom) }, animated);
  }

  fit(animated = true) {
    this.#go({}, animated);
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

  /** A finger (or the mouse button) went down on the content: tracking, not yet dragging. */
  beginDrag() {
    this.#stopMotion();
    this.tracking = true;
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
    if (!this.tracking) this.beginDrag();
    if (!this.dragging && (dx !== 0 || dy !== 0)) {
      this.dragging = true;
      this.events.emit('beginDragging', this.#where());
    }
    const ranges = this.#ranges();
    let excess = 0;
    this.rawX -= dx;
    this.rawY -= dy;
    if (pageable || !this.bounces) {
      const clamped = Math.min(Math.max(this.rawX, ranges.x.lo), ranges.x.hi);
      if (pageable) excess = this.rawX - clamped;
      this.rawX = clamped;
    }
    if (!this.bounces) this.rawY = Math.min(Math.max(this.rawY, ranges.y.lo), ranges.y.hi);
    this.offsetX = rubberBanded(this.rawX, ranges.x.lo, ranges.x.hi, this.width);
    this.offsetY = rubberBanded(this.rawY, ranges.y.lo, ranges.y.hi, this.height);
    this.render();
    return excess;
  }

  /** The finger lifted with a velocity in points per ms: momentum, then a bounce at the edges. */
  endDrag(vx, vy) {
    if (!this.tracking) return;
    this.tracking = false;
    const wasDragging = this.dragging;
    this.dragging = false;
    const ranges = this.#ranges();
    const options = { rate: this.rate, bounces: this.bounces };
    const ax = new MomentumAxis(this.offsetX, -vx, ranges.x.lo, ranges.x.hi, options);
    const ay = new MomentumAxis(this.offsetY, -vy, ranges.y.lo, ranges.y.hi, options);
    const willDecelerate = Boolean(ax.moves || ay.moves);
    this.indicators.release();
    if (wasDragging) this.events.emit('endDragging', { ...this.#where(), willDecelerate });
    if (willDecelerate) this.#glide(ax, ay);
    else this.#apply(settle(this.pyramid, this.request()));
  }

  // Pinching ---------------------------------------------------------------------------------

  beginPinch(centre) {
    this.#stopMotion();
    if (this.dragging) this.endDrag(0, 0);
    this.tracking = true;
    this.zooming = true;
    this.pinchStart = { zoomScale: this.zoomScale, point: imagePointAt(this.request(), this.zoomScale, centre) };
    this.events.emit('beginZooming', this.#where());
  }

  /** Fingers at `centre`, `ratio` times as far apart as at the start: the image point under them follows. */
  pinchTo(ratio, centre) {
    if (!this.pinchStart) return;
    const { minimum, maximum } = this.limits();
    const wanted = this.pinchStart.zoomScale * ratio;
    // A little resistance beyond the limits, as a scroll view shows, then the bounce on release
    // (or a hard stop at the limits when bouncesZoom is false).
    let z = wanted;
    if (wanted < minimum) z = this.bouncesZoom ? minimum * Math.pow(wanted / minimum, 0.3) : minimum;
    if (wanted > maximum) z = this.bouncesZoom ? maximum * Math.pow(wanted / maximum, 0.3) : maximum;
    this.zoomScale = z;
    this.offsetX = this.pinchStart.point.x * z - centre.x;
    this.offsetY = this.pinchStart.point.y * z - centre.y;
    this.render();
  }

  endPinch() {
    if (!this.pinchStart) return;
    this.pinchStart = null;
    this.tracking = false;
    this.indicators.release();
    const to = settle(this.pyramid, this.request());
    const from = { zoomScale: this.zoomScale, offsetX: this.offsetX, offsetY: this.offsetY };
    const ms = motionDuration(250);
    const finish = () => {
      this.#apply(to);
      this.zooming = false;
      this.events.emit('endZooming', { scale: to.zoomScale });
    };
    if (ms === 0) { finish(); return; }
    this.#ease(from, to, ms, finish);
  }

  // Rendering --------------------------------------------------------------------------------

  render() {
    const request = this.#baseRequest();
    const z = this.zoomScale;
    const visible = visibleRect(this.pyramid, request, z, this.offsetX, this.offsetY);
    const { level } = resolutionFor(this.pyramid, z, this.scale);
    const centre = { x: (this.offsetX + this.width / 2) / z, y: (this.offsetY + this.height / 2) / z };
    const tiles = level === null ? [] : tilesCovering(this.pyramid, level, visible, z, centre);
    const driven = this.animator.driven;
    this.layer.update({ zoomScale: z, offsetX: this.offsetX, offsetY: this.offsetY, level, tiles,
                        viewWidth: this.width, viewHeight: this.height, scale: this.scale, pinching: Boolean(this.pinchStart),
                        animating: this.animator.eased, driven });
    if (!driven) this.indicators.update(this.#indicatorView(this));
    this.#announce();
    this.onChange?.(this);
  }

  /** Tells the delegate what changed since the last frame: scroll, zoom, picture, fullyLoaded. */
  #announce() {
    const before = this.shown;
    const zoomed = before.zoomScale !== this.zoomScale;
    const scrolled = zoomed || before.offsetX !== this.offsetX || before.offsetY !== this.offsetY;
    this.shown = { zoomScale: this.zoomScale, offsetX: this.offsetX, offsetY: this.offsetY };
    if (scrolled) {
      this.indicators.show(this.tracking);
      this.events.emit('scroll', this.#where());
    }
    if (zoomed) this.events.emit('zoom', this.#where());
    if (!this.hadPicture && this.layer.hasPicture) {
      this.hadPicture = true;
      this.events.emit('picture', this.#where());
    }
    const complete = this.layer.isComplete();
    if (complete !== this.fullyLoaded) {
      this.fullyLoaded = complete;
      if (complete) this.events.emit('fullyLoaded', this.#where());
    }
  }

  /** What the scroll indicators show for a view. */
  #indicatorView({ zoomScale: z, offsetX, offsetY }) {
    return { width: this.width, height: this.height, offsetX, offsetY,
             contentWidth: this.pyramid.width * z, contentHeight: this.pyramid.height * z,
             insets: this.insets, indicatorInsets: this.indicatorInsets ?? this.insets };
  }

  #where() {
    return { zoomScale: this.zoomScale, contentOffset: { x: this.offsetX, y: this.offsetY } };
  }

  #scheduleRender() {
    if (this.pendingFrame || this.animator.running) return;
    this.pendingFrame = requestAnimationFrame(() => {
      this.pendingFrame = null;
      this.render();
    });
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
    this.#stopMotion();
    this.tracking = false;
    this.dragging = false;
    this.#apply(settle(this.pyramid, this.request()));
  }

  /**
   * Stops an animation or a glide where the screen shows it (the animator renders it there), and says a glide
   * ended.
   */
  #stopMotion() {
    this.animator.stop();
    this.#stopDeceleration();
  }

  #stopDeceleration() {
    if (!this.decelerating) return;
    this.decelerating = false;
    this.layer.expect(null); // a finger stopped the glide short of its end: fetch for where it is
    this.events.emit('endDecelerating', this.#where());
  }

  #glide(ax, ay) {
    this.decelerating = true;
    // Where it comes to rest is known now: the tile layer fetches for it, not for each row the glide passes over
    // (on a phone those fetches, started and aborted a frame later, took main-thread time from the glide's frames).
    // An axis that does not move comes to rest where it is, at once.
    const end = settle(this.pyramid, { ...this.#baseRequest(), zoomScale: this.zoomScale, offsetX: ax.end, offsetY: ay.end });
    const slow = Math.max(ax.slowAfter(GLIDE_FETCH_SPEED), ay.slowAfter(GLIDE_FETCH_SPEED));
    const duration = Math.max(ax.duration, ay.duration);
    this.layer.expect(end, duration, { after: slow });
    // Its whole curve is known now too: the compositor plays it, and each frame's step only reads where it is.
    const samples = sampleTimes(duration).map((t) => ({ t, zoomScale: this.zoomScale, offsetX: ax.at(t),
                                                        offsetY: ay.at(t) }));
    const played = this.#play(keptSamples(samples, (s) => [s.offsetX, s.offsetY]), duration);
    this.animator.run((elapsed) => {
      this.offsetX = ax.at(elapsed);
      this.offsetY = ay.at(elapsed);
      if (elapsed >= duration) {
        Object.assign(this, settle(this.pyramid, this.request()));
        // Rendered by the animator right after this step (its scroll event still decelerating, as
        // UIScrollView's last didScroll is); the delegate hears of the end after that frame.
        queueMicrotask(() => {
          if (!this.decelerating) return;
          this.decelerating = false;
          this.events.emit('endDecelerating', this.#where());
        });
        return false;
      }
      return true;
    }, { played });
  }
}
