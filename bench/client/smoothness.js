/**
 * The in-page half of bench/client/phone.py (issue 44, goal 1): records the timestamp of every animation frame and
 * whether the view moved in it, and the main thread's long tasks, so that a gesture's late frames (more than 25 ms
 * after the previous frame: a missed vsync) and its long tasks can be counted over the time the view moved.
 * `view()` is the viewer's own reading of its view, the same for every viewer.
 */
export class Smoothness {
  constructor(view) {
    this.view = view;
    this.frames = []; // [timestamp, moved]
    this.longTasks = []; // [startTime, duration]
    this.last = null;
    new PerformanceObserver((list) => {
      for (const task of list.getEntries()) this.longTasks.push([task.startTime, task.duration]);
    }).observe({ type: 'longtask', buffered: true });
    const frame = (timestamp) => {
      const now = JSON.stringify(this.view());
      this.frames.push([timestamp, now !== this.last]);
      this.last = now;
      requestAnimationFrame(frame);
    };
    requestAnimationFrame(frame);
    window.smoothness = this;
  }

  /**
   * Now, in the frames' clock: the start of a gesture. Also a user timing mark (`gesture-N`), whose time in a
   * DevTools trace aligns the trace's clock with the page's (phone.py's `trace_frames`).
   */
  mark() {
    this.marks = (this.marks ?? 0) + 1;
    this.markName = `gesture-${this.marks}`;
    this.markTime = performance.mark(this.markName).startTime;
    return this.markTime;
  }

  /** Frames since the view last moved, counting only those from `since` (a time in the frames' clock) on. */
  stillFrames(since = -Infinity) {
    let count = 0;
    for (let i = this.frames.length - 1; i >= 0 && !this.frames[i][1] && this.frames[i][0] >= since; i--) count++;
    return count;
  }

  /**
   * From `start` (a mark) to the last frame in which the view moved: the frames, those late, and the long tasks'
   * time inside that window.
   */
  report(start) {
    const moved = this.frames.filter(([t, m]) => m && t >= start);
    if (moved.length === 0) return { moved: false };
    const end = moved[moved.length - 1][0];
    const inside = this.frames.filter(([t]) => t >= start && t <= end).map(([t]) => t);
    const lateAt = []; // ms from the start to each late frame: where in the gesture they fall
    for (let i = 1; i < inside.length; i++) if (inside[i] - inside[i - 1] > 25) lateAt.push(Math.round(inside[i] - start));
    const late = lateAt.length;
    let longTaskMs = 0;
    for (const [s, d] of this.longTasks) longTaskMs += Math.max(0, Math.min(s + d, end) - Math.max(s, start));
    return { moved: true, ms: end - start, frames: inside.length - 1, late, lateAt, longTaskMs,
             markName: this.markName, markTime: this.markTime,
             worstGapMs: Math.max(0, ...inside.slice(1).map((t, i) => t - inside[i])) };
  }
}
