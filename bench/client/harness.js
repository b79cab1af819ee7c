/**
 * The in-page half of bench/client/run.py, the same for both viewers: runs a step (a view to animate to),
 * measures the time until the viewer is settled and complete, records which tile URLs were drawn and when
 * the first picture appeared.
 */
const STEP_LIMIT_MS = 300000;

export class Harness {
  constructor() {
    this.drawnPaths = new Set();
    this.drawnCount = 0;
    this.firstPicture = null;
    window.bench = this;
  }

  /** The viewer's hooks: settled(), pictured(), go(step), view(), and when it was created. */
  attach(viewer) {
    this.viewer = viewer;
    const frame = () => {
      if (viewer.pictured()) {
        this.firstPicture = performance.now() - viewer.start;
        // performance.now() counts from the navigation: what a user waits, page and module loads included.
        this.firstPictureSinceNavigation = performance.now();
      } else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }

  drawn(url) {
    this.drawnCount++;
    this.drawnPaths.add(new URL(url, location.href).pathname);
  }

  /** The viewer cannot go on (it could not open the image, say): the step waiting for it fails. */
  fail(reason) { this.failure = reason; }

  /**
   * Milliseconds from `since` (performance.now()) until settled and complete, checked every frame; rejects on a
   * failure or after STEP_LIMIT_MS, so that a viewer that never settles fails the run instead of hanging it.
   */
  untilSettled(since) {
    return new Promise((resolve, reject) => {
      let frames = 0;
      const check = () => {
        if (this.failure) reject(new Error(this.failure));
        else if (performance.now() - since > STEP_LIMIT_MS) reject(new Error(`not settled after ${STEP_LIMIT_MS} ms`));
        // Two frames at least, so that a viewer gets to start its animation before it is asked whether it ended.
        else if (++frames > 2 && this.viewer.settled()) {
          this.settledAt = performance.now();
          resolve(this.settledAt - since);
        }
        else requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    });
  }

  /** The initial load: from the viewer's creation; `loadedSinceNavigation()` then gives it from the navigation. */
  load() { return this.untilSettled(this.viewer.start); }

  /** When the load's first settled, complete frame came, in ms since the navigation (after `load()`). */
  loadedSinceNavigation() { return this.settledAt; }

  step(view) {
    const since = performance.now();
    this.viewer.go(view);
    return this.untilSettled(since);
  }

  /**
   * Issue 44, goal 3: goes to each of `views` `gapMs` after the one before, without waiting for any to load (a user
   * zooming and panning faster than the network), then gives the ms from the last call until settled and complete.
   */
  async quick(views, gapMs) {
    for (const view of views) {
      this.viewer.go(view);
      await new Promise((resolve) => setTimeout(resolve, gapMs));
    }
    return this.untilSettled(performance.now() - gapMs);
  }

  report() {
    return { drawn: [...this.drawnPaths], firstPicture: this.firstPicture,
             firstPictureSinceNavigation: this.firstPictureSinceNavigation, view: this.viewer.view() };
  }
}
