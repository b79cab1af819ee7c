import { momentumDistance, momentumDuration, DECELERATION, easeOutCubic } from '../geometry/Motion.js';

/**
 * Runs one animation at a time on requestAnimationFrame; `step(elapsedMs)` sets the view for that time and returns
 * false when done. `eased`: the animation goes from one known view to another (not a glide, not a bounce), which
 * the tile layer may draw by scaling what it has; false again from the render of its last frame on, and once stopped.
 *
 * `played`: the compositor plays the animation (a `PlayedMotion`: every frame was known at its start). The step then
 * follows the played animations' clock, so that what the page reads is what the screen shows, and `driven` tells the
 * render to write none of what they move; at the end, or stopped, the view is rendered (written) before they are
 * cancelled, so that nothing jumps back to where the animation started.
 */
export class Animator {
  constructor(render) {
    this.render = render;
    this.frame = null;
    this.eased = false;
    this.played = null;
  }

  get running() { return this.frame !== null; }

  /** The compositor moves what the render would write at each frame. */
  get driven() { return this.played !== null; }

  run(step, { eased = false, played = null } = {}) {
    this.stop();
    this.eased = eased;
    this.played = played;
    const start = performance.now();
    const tick = (now) => {
      const more = step(played ? played.elapsed : Math.max(0, now - start));
      if (!more) this.#finish();
      else this.render();
      this.frame = more ? requestAnimationFrame(tick) : null;
    };
    this.frame = requestAnimationFrame(tick);
  }

  stop() {
    if (this.frame !== null) cancelAnimationFrame(this.frame);
    this.frame = null;
    // Stopped mid-way (a finger caught a glide): the page's view, its last step's, is the one the animations show at
    // this frame's time; rendered before they are cancelled.
    if (this.played) this.#finish();
    else this.eased = false;
  }

  /** The last frame: rendered by the page, then the compositor's animations (if any) give way to it. */
  #finish() {
    const played = this.played;
    this.eased = false;
    this.played = null;
    this.render();
    played?.cancel();
  }
}

const BOUNCE_TIME = 90; // ms: the time constant of the critically damped spring at the edges
const RETURN_TIME = 320;

/**
 * One axis after the finger lifts: momentum that decays by `rate` per ms (UIScrollView's
 * decelerationRate), and at an edge a bounce (a critically damped spring that takes the remaining speed
 * and brings it back), or a stop at the edge when `bounces` is false; released beyond an edge, it eases back.
 * `at(t)` is where it is t ms after the release, a function of t alone (the compositor plays it sampled ahead: see
 * ScrollView's glide); it rests at `end` from `duration` on.
 */
export class MomentumAxis {
  constructor(position, velocity, lo, hi, { rate = DECELERATION, bounces = true } = {}) {
    this.rate = rate;
    if (position < lo || position > hi) {
      const edge = position < lo ? lo : hi;
      this.moves = true;
      Object.assign(this, { end: edge, duration: RETURN_TIME, slowAfter: () => 0 });
      this.at = (t) => this.#ease(position, edge, t);
      return;
    }
    const duration = momentumDuration(velocity, rate);
    this.moves = duration > 0;
    // Where and when it comes to rest, known at the start: at the edge it would pass (after the bounce, if any);
    // and how long until it is slower than `speed` (points per ms): by its decay, or once at that edge, where a
    // bounce goes out and back by a fraction of a screen.
    const rest = position + momentumDistance(velocity, duration, rate);
    const decayed = (speed) => momentumDuration(velocity, rate, speed);
    if (rest < lo || rest > hi) {
      // The glide's position only grows (or only shrinks) up to `duration`: it passes the edge exactly when its rest
      // lies beyond, so `#bounce` finds the crossing here.
      const crossing = this.#crossing(position, velocity, lo, hi);
      Object.assign(this, { crossing, end: crossing.edge, duration: bounces ? crossing.time + BOUNCE_TIME * 8 : crossing.time,
                            slowAfter: (speed) => Math.min(crossing.time, decayed(speed)) });
    } else {
      Object.assign(this, { end: rest, duration, slowAfter: (speed) => Math.min(duration, decayed(speed)) });
    }
    this.at = (t) => {
      const time = Math.min(t, duration);
      const p = position + momentumDistance(velocity, time, rate);
      if (p < lo || p > hi) {
        if (!bounces) return p < lo ? lo : hi;
        return this.#bounce(position, velocity, lo, hi, t);
      }
      return p;
    };
  }

  #ease(from, to, t) {
    const k = Math.min(1, t / RETURN_TIME);
    return from + (to - from) * easeOutCubic(k);
  }

  /** When the glide crosses the edge it heads for, and its speed there. */
  #crossing(position, velocity, lo, hi) {
    const edge = velocity < 0 ? lo : hi;
    const k = Math.log(this.rate);
    // position + v (r^t - 1)/k = edge  =>  r^t = 1 + (edge - position) k / v
    const rt = 1 + ((edge - position) * k) / velocity;
    return { time: Math.log(Math.max(rt, 1e-9)) / k, speed: velocity * Math.max(rt, 0), edge };
  }

  #bounce(position, velocity, lo, hi, t) {
    const { time, speed, edge } = this.crossing;
    const u = Math.max(0, t - time);
    if (u >= BOUNCE_TIME * 8) return edge;
    return edge + speed * u * Math.exp(-u / BOUNCE_TIME);
  }
}
