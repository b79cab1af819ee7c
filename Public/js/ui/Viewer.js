import { Gallery } from '../gallery/Gallery.js';
import { Emitter } from '../dom/Emitter.js';
import { Keyboard } from '../dom/Keyboard.js';
import { buildChrome } from './Chrome.js';
import { Insets } from './Insets.js';
import { Navigator } from './Navigator.js';
import { Help } from './Help.js';
import { Fullscreen } from './Fullscreen.js';
import { ScaleBar } from './ScaleBar.js';

/** The scroll-view events a viewer passes on from its current scroll view. */
const SCROLL_EVENTS = ['scroll', 'zoom', 'beginDragging', 'endDragging', 'endDecelerating', 'beginZooming',
  'endZooming', 'endScrollingAnimation', 'fullyLoaded'];

/** The scroll views' settings a viewer keeps and gives to every page's scroll view. */
const SETTINGS = ['minimumZoomScale', 'maximumZoomScale', 'bounces', 'bouncesZoom', 'decelerationRate'];
/** Settings given to each scroll view when it is made (not changed afterwards). */
const CREATION_SETTINGS = ['showsHorizontalScrollIndicator', 'showsVerticalScrollIndicator', 'scrollIndicatorInsets'];

/**
 * One viewer on a page: the bars and controls (Chrome.js), a gallery of one or many images, the
 * contentInset from the bars and safe areas, scroll indicators, navigator, fullscreen, keyboard and help.
 * It is what `createViewer` returns: the current scroll view's state and calls (UIScrollView's names), its
 * events through `on(name, fn)`, and `destroy()`, which removes every listener, observer and element it made.
 */
export class Viewer {
  constructor(element, { gallery = false, rating = false, controls = true, navigator = controls, urlState = false,
    keyboardTarget = element, pagingEnabled = true, initial = {}, ...settings } = {}) {
    this.element = element;
    this.events = new Emitter();
    this.settings = Object.fromEntries(SETTINGS.filter((name) => settings[name] !== undefined).map((name) => [name, settings[name]]));
    const { scrollIndicatorInsets, ...indicators } = Object.fromEntries(CREATION_SETTINGS
      .filter((name) => settings[name] !== undefined).map((name) => [name, settings[name]]));
    this.creationSettings = { ...indicators, indicatorInsets: scrollIndicatorInsets };
    this.barsShown = true;
    this.parts = buildChrome(element, { gallery, rating, controls });
    if (!element.hasAttribute('tabindex') && keyboardTarget === element) element.tabIndex = 0;
    this.insetsMeter = new Insets(element);
    this.insets = { top: 0, left: 0, bottom: 0, right: 0 };
    this.help = new Help(this.parts.help);
    this.fullscreen = new Fullscreen(element, this.parts.fullscreen);
    this.navigator = new Navigator(this.parts.navigator, { onMove: (point) => this.#centreOn(point), enabled: navigator });
    this.scaleBar = new ScaleBar(element);
    this.listening = new AbortController();
    const on = (target, name, fn) => target.addEventListener(name, fn, { signal: this.listening.signal });
    on(this.parts.fullscreen, 'click', () => this.toggleFullscreen());
    on(this.parts.helpButton, 'click', () => this.showHelp());
    on(this.parts.captionToggle, 'click', () => this.#toggleCaption());
    this.keyboard = new Keyboard(keyboardTarget, this);
    this.detach = () => {};
    this.gallery = null;
    this.galleryOptions = { urlState, pagingEnabled, initial };
    // Sizes of the element and of the bars decide the insets; the element's size also the view's.
    this.resizeObserver = new ResizeObserver(() => this.#layout());
    for (const observed of [element, this.parts.top, this.parts.bottom]) this.resizeObserver.observe(observed);
    on(window, 'resize', () => this.#layout());
    this.#layout();
  }

  /** Shows the carousel from its first `ring` (Gallery.js), turning through `loadRing`; once only. */
  open(ring, loadRing) {
    if (this.destroyed || this.gallery) return;
    this.gallery = new Gallery(this.parts, ring, {
      ...this.galleryOptions,
      loadRing,
      scrollOptions: () => ({ ...this.creationSettings, ...this.settings, insets: this.insets }),
      onScrollView: (sv) => this.#attach(sv),
      onPageChange: (change) => this.#pageChanged(change),
      onSingleTap: () => this.toggleBars(),
    });
    this.#layout();
  }

  /**
   * Takes the image away (the carousel and its pages), as when the user signs out of a private one; the viewer
   * stays, and `open` may show a ring again.
   */
  close() {
    this.detach();
    this.detach = () => {};
    this.gallery?.destroy();
    this.gallery = null;
    this.parts.pager.replaceChildren();
    this.parts.title.textContent = '';
    this.parts.caption.textContent = '';
    this.parts.captionToggle.hidden = true;
    this.parts.signOut.hidden = true;
    this.parts.message.hidden = true;
    this.#layout();
  }

  /** A "Sign out" button in the top bar (the access service's logout, auth/Authorization.js); `onPress` from its click. */
  showSignOut(label, onPress) {
    const button = this.parts.signOut;
    button.textContent = label;
    button.hidden = false;
    button.onclick = () => {
      button.disabled = true;
      onPress().finally(() => { button.disabled = false; });
    };
    this.#layout();
  }

  /** Says something in place of the image (an error, an empty gallery). */
  showMessage(text) {
    this.parts.message.textContent = text;
    this.parts.message.hidden = false;
  }

  on(name, fn) { return this.events.on(name, fn); }
  off(name, fn) { this.events.off(name, fn); }

  /** The current page's scroll view (null while its image is still being built). */
  get scrollView() { return this.gallery?.scrollView ?? null; }

  get zoomScale() { return this.scrollView?.zoomScale ?? null; }
  get contentOffset() { const sv = this.scrollView; return sv ? { x: sv.offsetX, y: sv.offsetY } : null; }
  get contentInset() { return { ...this.insets }; }
  get contentSize() {
    const sv = this.scrollView;
    return sv ? { width: sv.pyramid.width * sv.zoomScale, height: sv.pyramid.height * sv.zoomScale } : null;
  }
  get fullyLoaded() { return this.scrollView?.fullyLoaded ?? false; }
  get tracking() { return this.scrollView?.tracking ?? false; }
  get dragging() { return this.scrollView?.dragging ?? false; }
  get decelerating() { return this.scrollView?.decelerating ?? false; }
  get zooming() { return this.scrollView?.zooming ?? false; }
  get image() { return this.gallery?.current ?? null; }
  get pagingEnabled() { return this.gallery?.pagingEnabled ?? this.galleryOptions.pagingEnabled; }
  set pagingEnabled(value) {
    this.galleryOptions.pagingEnabled = Boolean(value);
    if (this.gallery) this.gallery.pagingEnabled = Boolean(value);
  }

  get minimumZoomScale() { return this.scrollView?.minimumZoomScale ?? this.settings.minimumZoomScale ?? null; }
  set minimumZoomScale(value) { this.#set('minimumZoomScale', value); }
  get maximumZoomScale() { return this.scrollView?.maximumZoomScale ?? this.settings.maximumZoomScale ?? null; }
  set maximumZoomScale(value) { this.#set('maximumZoomScale', value); }
  get bounces() { return this.settings.bounces ?? true; }
  set bounces(value) { this.#set('bounces', Boolean(value)); }
  get bouncesZoom() { return this.settings.bouncesZoom ?? true; }
  set bouncesZoom(value) { this.#set('bouncesZoom', Boolean(value)); }
  get decelerationRate() { return this.scrollView?.decelerationRate ?? this.settings.decelerationRate ?? 'normal'; }
  set decelerationRate(value) { this.#set('decelerationRate', value); }

  setZoomScale(scale, options) { this.scrollView?.setZoomScale(scale, options); }
  zoomToRect(rect, options) { this.scrollView?.zoomToRect(rect, options); }
  setContentOffset(point, options) { this.scrollView?.setContentOffset(point, options); }
  scrollRectToVisible(rect, options) { this.scrollView?.scrollRectToVisible(rect, options); }

  /** Shows or hides the bars (a single tap on a phone, H on a keyboard); the insets follow. */
  toggleBars(shown = !this.barsShown) {
    this.barsShown = shown;
    this.element.classList.toggle('bars-hidden', !shown);
    this.#layout();
    this.events.emit('barsChange', { shown });
  }

  toggleFullscreen() { return this.fullscreen.toggle(); }
  showHelp() { this.help.show(); }

  // Keyboard target (Keyboard.js): the gallery does the moving.
  pan(dx, dy) { this.gallery?.pan(dx, dy); }
  zoomKey(factor) { this.gallery?.zoomKey(factor); }
  fitKey() { this.gallery?.fitKey(); }
  pageKey(direction) { if (this.gallery?.count > 1) this.gallery.pageKey(direction); }

  destroy() {
    if (this.destroyed) return;
    this.destroyed = true;
    this.detach();
    this.resizeObserver.disconnect();
    this.listening.abort();
    this.keyboard.destroy();
    this.navigator.destroy();
    this.scaleBar.destroy();
    this.fullscreen.destroy();
    this.help.close();
    this.gallery?.destroy();
    this.insetsMeter.destroy();
    this.events.clear();
    this.element.replaceChildren();
    this.element.classList.remove('tilescope', 'single', 'bars-hidden');
  }

  #set(name, value) {
    this.settings[name] = value;
    for (const page of this.gallery?.carousel.pages ?? []) if (page.scrollView) page.scrollView[name] = value;
  }

  /** Measures the insets, gives them to every page's scroll view, then lets the pages re-measure. */
  #layout() {
    if (this.destroyed) return;
    const insets = this.insetsMeter.measure(this.parts, this.barsShown);
    this.insets = insets;
    for (const [side, value] of Object.entries(insets)) this.element.style.setProperty(`--inset-${side}`, `${value}px`);
    if (this.gallery) {
      for (const page of this.gallery.carousel.pages) page.scrollView?.setInsets(insets);
      this.gallery.carousel.resize();
    }
    this.navigator.update(this.scrollView);
    this.scaleBar.update(this.scrollView);
  }

  #attach(sv) {
    this.detach();
    const offs = SCROLL_EVENTS.map((name) => sv?.on(name, (event) => this.events.emit(name, event)));
    const offMove = sv?.on('scroll', () => this.navigator.update(sv));
    const offZoom = sv?.on('zoom', () => this.scaleBar.update(sv));
    // The navigator's mini-map is the tile layer's base tile: drawn once it has arrived.
    const offPicture = sv?.on('picture', () => this.navigator.update(sv));
    this.detach = () => { for (const off of [...offs, offMove, offZoom, offPicture]) off?.(); };
    sv?.setInsets(this.insets);
    this.navigator.update(sv);
    this.scaleBar.update(sv);
    if (sv?.fullyLoaded) this.events.emit('fullyLoaded', { zoomScale: sv.zoomScale, contentOffset: this.contentOffset });
  }

  #pageChanged({ page, image }) {
    this.navigator.update(this.scrollView);
    this.scaleBar.update(this.scrollView);
    this.events.emit('pageChange', { page, image });
  }

  #centreOn(point) {
    const sv = this.scrollView;
    if (!sv) return;
    const { insets, aw, ah } = sv.limits();
    sv.setContentOffset({ x: point.x * sv.zoomScale - insets.left - aw / 2, y: point.y * sv.zoomScale - insets.top - ah / 2 });
  }

  #toggleCaption() {
    const toggle = this.parts.captionToggle;
    toggle.setAttribute('aria-expanded', String(toggle.getAttribute('aria-expanded') !== 'true'));
  }
}
