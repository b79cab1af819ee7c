/**
 * The in-page half of bench/client/run.py, the same for both viewers: runs a step (a view to animate to),
 * measures the time until the viewer is settled and complete, records which tile URLs were drawn and when
 * the first picture appeared.
 */
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
      if (viewer.pictured()) this.firstPicture = performance.now() - viewer.start;
      else requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
  }

  drawn(url) {
    this.drawnCount++;
    this.drawnPaths.add(new URL(url, location.href).pathname);
  }

  /** Milliseconds from `since` (performance.now()) until settled and complete, checked every frame. */
  untilSettled(since) {
    return new Promise((resolve) => {
      let frames = 0;
      const check = () => {
        // Two frames at least, so that a viewer gets to start its animation before it is asked whether it ended.
        if (++frames > 2 && this.viewer.settled()) resolve(performance.now() - since);
        else requestAnimationFrame(check);
      };
      requestAnimationFrame(check);
    });
  }

  /** The initial load: from the viewer's creation. */
  load() { return this.untilSettled(this.viewer.start); }

  step(view) {
    const since = performance.now();
    this.viewer.go(view);
    return this.untilSettled(since);
  }

  report() {
    return { drawn: [...this.drawnPaths], firstPicture: this.firstPicture,
             view: this.viewer.view() };
  }
}
