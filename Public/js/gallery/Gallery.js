import { Carousel } from './Carousel.js';
import { PageControl } from './PageControl.js';
import { Rating } from './Rating.js';
import { readUrlState, writeUrlState } from './UrlState.js';
import { galleryRing } from './Api.js';
import { Gestures } from '../dom/Gestures.js';

const URL_DELAY = 200;
const wrap = (i, n) => ((i % n) + n) % n;

/**
 * The gallery: an endless carousel over the images, with the page control, caption and rating of the
 * current one, gestures routed to the current page's scroll view or to the carousel, and (optionally) the
 * view kept in the URL. `parts` are the elements Chrome.js built. Hooks: `onScrollView(scrollView)` when
 * the current page's scroll view changes, `onPageChange({page, image})` when the current image changes,
 * `onSingleTap(point)` for a touch tap, `scrollOptions()` for every new scroll view.
 *
 * It holds only the ring the carousel shows (`{count, page, previous, current, next}`, as GET /api/gallery
 * answers), never the whole list: a turn asks `loadRing` for the ring around the image it arrived at, so a
 * gallery of 100,000 images costs the client what one of three does. `loadRing({page} | {image})` is the
 * server's by default; `listRings(images)` makes one over a list in memory (one image, a foreign source).
 */
export class Gallery {
  constructor(parts, ring, { loadRing = galleryRing, urlState = false, pagingEnabled = true, scrollOptions = () => ({}),
    onScrollView, onPageChange, onSingleTap, initial = {} } = {}) {
    this.parts = parts;
    this.root = parts.root;
    this.ring = ring;
    this.loadRing = loadRing;
    this.loading = 0;
    this.urlState = urlState;
    this.pagingEnabled = pagingEnabled;
    this.onScrollView = onScrollView;
    this.onPageChange = onPageChange;
    this.onSingleTap = onSingleTap;
    this.title = parts.title;
    this.caption = parts.caption;
    this.carousel = new Carousel(parts.pager, {
      onChange: (page) => this.#pageChanged(page),
      onImageUpdate: (image) => this.#imageUpdated(image),
      onTurn: (direction, recycled) => this.#turned(direction, recycled),
      scrollOptions,
    });
    this.pageControl = new PageControl(parts.pageControl, { onSelect: (i) => this.goTo(i) });
    this.rating = parts.rating ? new Rating(parts.rating, { onSaved: (image) => this.#imageUpdated(image) }) : null;
    this.listening = new AbortController();
    const click = (element, fn) => element.addEventListener('click', fn, { signal: this.listening.signal });
    click(parts.previous, () => this.turn(-1));
    click(parts.next, () => this.turn(+1));
    click(parts.zoomIn, () => this.#zoomButton(1.5));
    click(parts.zoomOut, () => this.#zoomButton(1 / 1.5));
    click(parts.zoomFit, () => this.scrollView?.fit());
    this.gestures = new Gestures(parts.pager, this);
    this.#watchPixelRatio();
    const state = urlState ? readUrlState() : initial;
    const view = ring.current.id === state.image && state.zoomScale !== undefined
      ? { zoomScale: state.zoomScale, offsetX: state.offsetX, offsetY: state.offsetY } : {};
    this.#show(ring, view);
  }

  destroy() {
    this.destroyed = true;
    clearTimeout(this.urlTimer);
    this.listening.abort();
    this.gestures.destroy();
    this.carousel.destroy();
  }

  /** A window moved to a screen of another pixel density re-chooses its tiles (rule 8 with the new scale). */
  #watchPixelRatio() {
    const query = matchMedia(`(resolution: ${window.devicePixelRatio}dppx)`);
    query.addEventListener('change', () => {
      if (this.destroyed) return;
      this.carousel.resize();
      this.#watchPixelRatio();
    }, { once: true, signal: this.listening.signal });
  }

  get count() { return this.ring.count; }
  get index() { return this.ring.page; }
  get current() { return this.ring.current; }
  get scrollView() { return this.carousel.current.scrollView; }
  /** The current page's index (0-based), UIPageControl's currentPage. */
  get page() { return this.index; }

  next() { return this.turn(+1); }
  previous() { return this.turn(-1); }

  /** Shows image i (from the ring of page i) with its neighbours (none when it is the only one). */
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
    // Its decoded tiles of elsewhere go too: only the page on screen holds a zoomed-in view's worth (issue 44, goal 4).
    for (const page of [this.carousel.previous, this.carousel.next]) {
      page.scrollView?.setView({});
      page.scrollView?.layer.shed();
    }
    this.#updateChrome();
    this.#load({ image: arrived.id }, (ring) => {
      if (this.destroyed || ring.current.id !== this.ring.current.id) return;
      this.ring = ring;
      recycled.show(direction > 0 ? ring.next : ring.previous);
      this.#updateChrome();
    });
  }

  /** Asks for a ring and applies it; a failure is shown in place of the caption. */
  async #load(query, apply) {
    this.loading += 1;
    try {
      apply(await this.loadRing(query));
    } catch (error) {
      if (this.destroyed) return;
      this.caption.textContent = `Could not load the next image: ${error.message}`;
      this.parts.captionToggle.hidden = false;
    } finally {
      this.loading -= 1;
    }
  }

  #updateChrome() {
    const image = this.current;
    this.title.textContent = image?.title || image?.id || '';
    this.#showCaption(image);
    this.pageControl.update(this.count, this.index);
    this.rating?.show(image);
    this.root.classList.toggle('single', this.count < 2);
    this.#scheduleUrl();
    this.#noticeScrollView();
    if (this.shownIndex !== this.index || this.shownImage !== image) {
      this.shownIndex = this.index;
      this.shownImage = image;
      this.onPageChange?.({ page: this.index, image });
    }
  }

  /** Tells the viewer when the current page's scroll view is another one (a turn, or a build finished). */
  #noticeScrollView() {
    const sv = this.scrollView ?? null;
    if (sv === this.attached) return;
    this.attached = sv;
    this.onScrollView?.(sv);
  }

  #imageUpdated(image) {
    for (const place of ['previous', 'current', 'next']) {
      if (this.ring[place]?.id === image.id) this.ring[place] = image;
    }
    if (this.current?.id === image.id) {
      this.title.textContent = image.title || image.id;
      this.#showCaption(image);
    }
  }

  /** The caption in its toggle (collapsed to one line until tapped; the toggle hides without a caption). */
  #showCaption(image) {
    this.caption.textContent = image?.caption || '';
    const toggle = this.parts.captionToggle;
    toggle.hidden = !image?.caption;
    toggle.setAttribute('aria-expanded', 'false');
    toggle.setAttribute('aria-label', image?.caption ? `Caption: ${image.caption}` : '');
  }

  #pageChanged(page) {
    if (page !== this.carousel.current) return;
    this.#scheduleUrl();
    this.#noticeScrollView();
  }

  #scheduleUrl() {
    if (!this.urlState) return;
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
    // About the centre of the area the bars leave free, as UIScrollView's setZoomScale.
    const { insets, aw, ah } = sv.limits();
    sv.zoomBy(factor, { x: insets.left + aw / 2, y: insets.top + ah / 2 }, true);
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
    const pageable = this.count > 1 && this.pagingEnabled;
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
  twoFingerTap(point) { this.scrollView?.tap(point, 1.5, 'out'); }
  singleTap(point) { this.onSingleTap?.(point); }

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
      insets: sv?.insets ?? null,
      cachedTiles: sv?.layer.cache.size ?? 0,
      tilesInDom: sv ? sv.layer.shown.size : 0,
    };
  }
}

/** `loadRing` over a list held in memory: the rings GET /api/gallery would answer for it. */
export function listRings(images) {
  const ringAt = (page) => {
    const n = images.length;
    const at = wrap(page, n);
    return { count: n, page: at, previous: images[wrap(at - 1, n)], current: images[at], next: images[wrap(at + 1, n)] };
  };
  return async ({ page, image } = {}) => {
    if (image === undefined) return ringAt(page ?? 0);
    const found = images.findIndex((candidate) => candidate.id === image);
    if (found < 0) throw Object.assign(new Error(`no image ${image}`), { status: 404 });
    return ringAt(found);
  };
}
