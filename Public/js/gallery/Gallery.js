import { Carousel } from './Carousel.js';
import { PageControl } from './PageControl.js';
import { Rating } from './Rating.js';
import { readUrlState, writeUrlState } from './UrlState.js';
import { galleryRing } from './Api.js';
import { Gestures } from '../dom/Gestures.js';
import { Keyboard } from '../dom/Keyboard.js';

const URL_DELAY = 200;
const wrap = (i, n) => ((i % n) + n) % n;

/**
 * The gallery: an endless carousel over the images, with the page control, caption and rating of the
 * current one, gestures and keys routed to the current page's scroll view or to the carousel, and the
 * view kept in the URL.
 *
 * It holds only the ring the carousel shows (`{count, page, previous, current, next}` from
 * GET /api/gallery), never the whole list: a turn asks the server for the ring around the image it
 * arrived at, so a gallery of 100,000 images costs the client what one of three does.
 */
export class Gallery {
  constructor(root, ring) {
    this.root = root;
    this.ring = ring;
    this.loading = 0;
    this.title = root.querySelector('.title');
    this.caption = root.querySelector('.caption');
    this.carousel = new Carousel(root.querySelector('.pager'), {
      onChange: (page) => this.#pageChanged(page),
      onImageUpdate: (image) => this.#imageUpdated(image),
      onTurn: (direction, recycled) => this.#turned(direction, recycled),
    });
    this.pageControl = new PageControl(root.querySelector('.page-control'), { onSelect: (i) => this.goTo(i) });
    this.rating = new Rating(root.querySelector('.rating'), { onSaved: (image) => this.#imageUpdated(image) });
    root.querySelector('.nav.previous').addEventListener('click', () => this.turn(-1));
    root.querySelector('.nav.next').addEventListener('click', () => this.turn(+1));
    root.querySelector('.zoom-in').addEventListener('click', () => this.#zoomButton(1.5));
    root.querySelector('.zoom-out').addEventListener('click', () => this.#zoomButton(1 / 1.5));
    root.querySelector('.zoom-fit').addEventListener('click', () => this.scrollView?.fit());
    this.gestures = new Gestures(root.querySelector('.pager'), this);
    this.keyboard = new Keyboard(document, this);
    new ResizeObserver(() => this.carousel.resize()).observe(root.querySelector('.pager'));
    addEventListener('resize', () => this.carousel.resize());
    this.#watchPixelRatio();
    const initial = readUrlState();
    const view = ring.current.id === initial.image && initial.zoomScale !== undefined
      ? { zoomScale: initial.zoomScale, offsetX: initial.offsetX, offsetY: initial.offsetY } : {};
    this.#show(ring, view);
  }

  /** A window moved to a screen of another pixel density re-chooses its tiles (rule 8 with the new scale). */
  #watchPixelRatio() {
    const query = matchMedia(`(resolution: ${window.devicePixelRatio}dppx)`);
    query.addEventListener('change', () => {
      this.carousel.resize();
      this.#watchPixelRatio();
    }, { once: true });
  }

  get count() { return this.ring.count; }
  get index() { return this.ring.page; }
  get current() { return this.ring.current; }
  get scrollView() { return this.carousel.current.scrollView; }

  /** Shows image i (from the server's ring of page i) with its neighbours (none when it is the only one). */
  goTo(i, view = {}) {
    if (this.count === 0) return Promise.resolve();
    return this.#load({ page: wrap(i, this.count) }, (ring) => this.#show(ring, view));
  }

  turn(direction) {
    if (this.count < 2 || this.carousel.animating || this.loading > 0) return Promise.resolve();
    return this.carousel.turn(direction);
  }

  #show(ring, view = {}) {
    this.ring = ring;
    const single = ring.count === 1;
    this.carousel.showAll(single ? null : ring.previous, ring.current, single ? null : ring.next, view);
    this.#updateChrome();
  }

  /** The carousel moved to a neighbour; the page it recycled shows the next one, from the ring around it. */
  #turned(direction, recycled) {
    const from = this.ring;
    const arrived = direction > 0 ? from.next : from.previous;
    this.ring = { count: from.count, page: wrap(from.page + direction, from.count), current: arrived,
                  previous: direction > 0 ? from.current : null, next: direction > 0 ? null : from.current };
    // A page that leaves the screen comes back at aspect fit, as in the classic photo browser.
    for (const page of [this.carousel.previous, this.carousel.next]) page.scrollView?.setView({});
    this.#updateChrome();
    this.#load({ image: arrived.id }, (ring) => {
      if (ring.current.id !== this.ring.current.id) return;
      this.ring = ring;
      recycled.show(direction > 0 ? ring.next : ring.previous);
      this.#updateChrome();
    });
  }

  /** Asks for a ring and applies it; a failure is shown in place of the caption. */
  async #load(query, apply) {
    this.loading += 1;
    try {
      apply(await galleryRing(query));
    } catch (error) {
      this.caption.textContent = `Could not load the next image: ${error.message}`;
      this.caption.hidden = false;
    } finally {
      this.loading -= 1;
    }
  }

  #updateChrome() {
    const image = this.current;
    this.title.textContent = image?.title || image?.id || '';
    this.caption.textContent = image?.caption || '';
    this.caption.hidden = !image?.caption;
    this.pageControl.update(this.count, this.index);
    this.rating.show(image);
    this.root.classList.toggle('single', this.count < 2);
    this.#scheduleUrl();
  }

  #imageUpdated(image) {
    for (const place of ['previous', 'current', 'next']) {
      if (this.ring[place]?.id === image.id) this.ring[place] = image;
    }
    if (this.current?.id === image.id) {
      this.title.textContent = image.title || image.id;
      this.caption.textContent = image.caption || '';
      this.caption.hidden = !image.caption;
    }
  }

  #pageChanged(page) {
    if (page === this.carousel.current) this.#scheduleUrl();
  }

  #scheduleUrl() {
    clearTimeout(this.urlTimer);
    this.urlTimer = setTimeout(() => {
      const sv = this.scrollView;
      writeUrlState({ image: this.current?.id, zoomScale: sv?.zoomScale, offsetX: sv?.offsetX, offsetY: sv?.offsetY,
                      atFit: !sv || sv.isAtFit });
    }, URL_DELAY);
  }

  #zoomButton(factor) {
    const sv = this.scrollView;
    if (!sv) return;
    sv.zoomBy(factor, { x: sv.width / 2, y: sv.height / 2 }, true);
  }

  // Gesture target --------------------------------------------------------------------------

  origin() { return this.carousel.current.view; }

  dragStart() {
    this.pulling = this.carousel.animating ? 'ignore' : null;
    if (this.pulling !== 'ignore') this.scrollView?.beginDrag();
  }

  dragMove(dx, dy) {
    if (this.pulling === 'ignore') return;
    const sv = this.scrollView;
    const pageable = this.count > 1;
    if (this.carousel.offset !== 0 || !sv) {
      if (!pageable) { sv?.dragBy(dx, dy); return; }
      const before = this.carousel.offset;
      const after = before + dx;
      if (sv && before !== 0 && Math.sign(after) !== Math.sign(before)) {
        // Pulled back past the page: the rest of the movement pans the image again.
        this.carousel.pull(-before);
        sv.dragBy(after, 0, true);
      } else {
        this.carousel.pull(dx);
      }
      return;
    }
    const excess = sv.dragBy(dx, dy, pageable);
    if (excess !== 0) this.carousel.pull(-excess);
  }

  dragEnd(vx, vy) {
    if (this.pulling === 'ignore') return;
    const sv = this.scrollView;
    if (this.carousel.offset !== 0) {
      sv?.endDrag(0, vy);
      this.carousel.release(vx);
    } else {
      sv?.endDrag(vx, vy);
    }
  }

  pinchStart(centre) { this.scrollView?.beginPinch(centre); }
  pinchMove(ratio, centre) { this.scrollView?.pinchTo(ratio, centre); }
  pinchEnd() { this.scrollView?.endPinch(); }
  wheelZoom(factor, point) { this.scrollView?.zoomBy(factor, point); }
  doubleTap(point) { this.scrollView?.tap(point, 1.5); }
  twoFingerTap(point) { this.scrollView?.tap(point, 1 / 1.5); }

  // Keyboard target ----------------------------------------------------------------------------

  /** Arrow keys pan; at an edge that cannot pan (or at fit) left and right turn the page. */
  pan(dx, dy) {
    const sv = this.scrollView;
    if (!sv) { if (dx) this.turn(Math.sign(dx)); return; }
    if (dx !== 0 && this.count > 1 && !this.#canPan(sv, dx)) { this.turn(Math.sign(dx)); return; }
    sv.panBy(dx, dy);
  }

  #canPan(sv, dx) {
    const range = sv.offsetRange().x;
    return dx < 0 ? sv.offsetX > range.lo + 1e-6 : sv.offsetX < range.hi - 1e-6;
  }

  zoomKey(factor) { this.#zoomButton(factor); }
  fitKey() { this.scrollView?.fit(); }
  pageKey(direction) { this.turn(direction); }

  // Test hook ------------------------------------------------------------------------------------

  state() {
    const sv = this.scrollView;
    const limits = sv?.limits();
    return {
      imageId: this.current?.id ?? null,
      index: this.index,
      count: this.count,
      zoomScale: sv?.zoomScale ?? null,
      offsetX: sv?.offsetX ?? null,
      offsetY: sv?.offsetY ?? null,
      minimumZoomScale: limits?.minimum ?? null,
      maximumZoomScale: limits?.maximum ?? null,
      width: sv?.width ?? null,
      height: sv?.height ?? null,
      scale: sv?.scale ?? null,
      idle: !this.carousel.animating && this.carousel.offset === 0 && this.loading === 0 && (!sv || sv.isIdle),
      pages: this.carousel.pages.map((page) => page.image?.id ?? null),
      cachedTiles: sv?.layer.cache.size ?? 0,
      tilesInDom: sv ? sv.layer.shown.size : 0,
    };
  }
}
