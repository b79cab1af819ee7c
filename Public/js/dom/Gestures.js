/**
 * Turns pointer, wheel and keyboard input on an element into scroll-view intents for a `target`:
 *   dragStart(), dragMove(dx, dy), dragEnd(vx, vy)        one finger or the mouse; velocity in points/ms
 *   pinchStart(centre), pinchMove(ratio, centre), pinchEnd()   two fingers
 *   wheelZoom(factor, point)                                wheel, and trackpad pinch (ctrl + wheel)
 *   doubleTap(point), twoFingerTap(point)                   double click counts as a double tap
 *   singleTap(point)                                        a touch tap not followed by a second one (optional)
 *   key(event) -> boolean (handled)
 * Points are relative to `target.origin()` (the current page's view). `destroy()` removes every listener.
 */
const TAP_SLOP = 10; // points a tap may wander
const TAP_TIME = 250; // ms a tap may last
const DOUBLE_TAP_TIME = 300;
const VELOCITY_WINDOW = 100; // ms of movement that count for the release velocity

export class Gestures {
  constructor(element, target) {
    this.element = element;
    this.target = target;
    this.pointers = new Map();
    this.samples = [];
    this.mode = null; // 'drag' | 'pinch' | null
    this.lastTap = null;
    this.multiTouch = null;
    this.singleTapTimer = null;
    this.rect = null; // { origin, rect, time }: the origin's rectangle this frame (`#originRect`)
    this.rectFrame = null;
    this.listening = new AbortController();
    const on = (name, fn, options = {}) => element.addEventListener(name, fn, { ...options, signal: this.listening.signal });
    on('pointerdown', (e) => this.#down(e));
    on('pointermove', (e) => this.#move(e));
    on('pointerup', (e) => this.#up(e));
    on('pointercancel', (e) => this.#up(e, true));
    on('dblclick', (e) => { e.preventDefault(); this.target.doubleTap(this.#point(e)); });
    on('wheel', (e) => this.#wheel(e), { passive: false });
    on('dragstart', (e) => e.preventDefault());
  }

  destroy() {
    this.listening.abort();
    clearTimeout(this.singleTapTimer);
    cancelAnimationFrame(this.rectFrame);
  }

  #point(e) {
    const r = this.#originRect();
    return { x: e.clientX - r.left, y: e.clientY - r.top };
  }

  /**
   * The origin's rectangle, read once a frame: a pinch's two fingers each send a pointermove per frame, and the
   * first one's handler has moved the image, so reading the layout again for the second would force a style
   * recalculation and a layout in the middle of the frame. The rectangle is read again in the next frame (or
   * after 50 ms, when no frame comes), so a view that moved or changed size (a page turn, a resize) is seen then.
   */
  #originRect() {
    const origin = this.target.origin();
    const now = performance.now();
    const cached = this.rect;
    if (cached && cached.origin === origin && now - cached.time < 50) return cached.rect;
    this.rect = { origin, rect: origin.getBoundingClientRect(), time: now };
    cancelAnimationFrame(this.rectFrame);
    this.rectFrame = requestAnimationFrame(() => { this.rect = null; });
    return this.rect.rect;
  }

  #centre() {
    const ps = [...this.pointers.values()];
    return { x: (ps[0].x + ps[1].x) / 2, y: (ps[0].y + ps[1].y) / 2 };
  }

  #spread() {
    const ps = [...this.pointers.values()];
    return Math.hypot(ps[0].x - ps[1].x, ps[0].y - ps[1].y);
  }

  #down(e) {
    if (e.button !== 0 || e.target.closest('.chrome, .navigator')) return;
    try { this.element.setPointerCapture(e.pointerId); } catch { /* a pointer that is already gone */ }
    const p = this.#point(e);
    this.pointers.set(e.pointerId, { ...p, start: p, time: e.timeStamp, type: e.pointerType });
    if (this.pointers.size === 1) {
      clearTimeout(this.singleTapTimer); // a second touch is coming: not a single tap
      this.mode = 'drag';
      this.samples = [{ ...p, t: e.timeStamp }];
      this.target.dragStart();
    } else if (this.pointers.size === 2) {
      if (this.mode === 'drag') this.target.dragEnd(0, 0);
      this.mode = 'pinch';
      this.pinchSpread = Math.max(1, this.#spread());
      this.multiTouch = { time: e.timeStamp, moved: false };
      this.target.pinchStart(this.#centre());
    }
  }

  #move(e) {
    const pointer = this.pointers.get(e.pointerId);
    if (!pointer) return;
    const p = this.#point(e);
    const dx = p.x - pointer.x;
    const dy = p.y - pointer.y;
    Object.assign(pointer, p);
    if (Math.hypot(p.x - pointer.start.x, p.y - pointer.start.y) > TAP_SLOP && this.multiTouch) this.multiTouch.moved = true;
    if (this.mode === 'drag') {
      this.samples.push({ ...p, t: e.timeStamp });
      this.target.dragMove(dx, dy);
    } else if (this.mode === 'pinch' && this.pointers.size === 2) {
      this.target.pinchMove(this.#spread() / this.pinchSpread, this.#centre());
    }
  }

  #velocity(now) {
    const recent = this.samples.filter((s) => now - s.t <= VELOCITY_WINDOW);
    if (recent.length < 2) return { vx: 0, vy: 0 };
    const a = recent[0];
    const b = recent[recent.length - 1];
    // Time up to the release counts: a finger that stopped before lifting has no momentum.
    const dt = Math.max(1, now - a.t);
    return { vx: (b.x - a.x) / dt, vy: (b.y - a.y) / dt };
  }

  #up(e, cancelled = false) {
    const pointer = this.pointers.get(e.pointerId);
    if (!pointer) return;
    const p = this.#point(e);
    this.pointers.delete(e.pointerId);
    if (this.mode === 'drag') {
      const { vx, vy } = cancelled ? { vx: 0, vy: 0 } : this.#velocity(e.timeStamp);
      this.mode = null;
      this.target.dragEnd(vx, vy);
      if (!cancelled && pointer.type !== 'mouse') this.#maybeTap(pointer, p, e.timeStamp);
    } else if (this.mode === 'pinch') {
      // The first finger up ends the pinch; the other one rests until it lifts too.
      const centre = this.pointers.size === 1 ? this.#centreWith(p) : p;
      this.mode = 'pinched';
      this.target.pinchEnd();
      const mt = this.multiTouch;
      if (mt && !mt.moved && e.timeStamp - mt.time < TAP_TIME) this.target.twoFingerTap(centre);
      this.multiTouch = null;
    }
    if (this.pointers.size === 0) this.mode = null;
  }

  #centreWith(p) {
    const other = [...this.pointers.values()][0];
    return { x: (other.x + p.x) / 2, y: (other.y + p.y) / 2 };
  }

  /** Touch has no dblclick of its own: two quick taps close together are a double tap. */
  #maybeTap(pointer, p, time) {
    const isTap = Math.hypot(p.x - pointer.start.x, p.y - pointer.start.y) <= TAP_SLOP && time - pointer.time <= TAP_TIME;
    if (!isTap) { this.lastTap = null; return; }
    const last = this.lastTap;
    if (last && time - last.time <= DOUBLE_TAP_TIME && Math.hypot(p.x - last.x, p.y - last.y) <= 3 * TAP_SLOP) {
      this.lastTap = null;
      clearTimeout(this.singleTapTimer);
      this.target.doubleTap(p);
    } else {
      this.lastTap = { ...p, time };
      // A single tap only once no second tap can follow (photo viewers hide their bars on it).
      clearTimeout(this.singleTapTimer);
      if (this.target.singleTap) this.singleTapTimer = setTimeout(() => this.target.singleTap(p), DOUBLE_TAP_TIME);
    }
  }

  #wheel(e) {
    e.preventDefault();
    const lines = e.deltaMode === 1 ? 33 : e.deltaMode === 2 ? 600 : 1;
    // Trackpad pinch arrives as ctrl + wheel with small deltas: zoom faster per unit.
    const perUnit = e.ctrlKey ? 0.01 : 0.002;
    const factor = Math.exp(-e.deltaY * lines * perUnit);
    this.target.wheelZoom(factor, this.#point(e));
  }
}
