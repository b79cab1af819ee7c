/**
 * A motion whose every frame is known when it starts (a glide: its whole curve follows from the release), handed to
 * the compositor as Web Animations of the transforms it moves: the content's and the scroll indicators'. The
 * screen's frames of the motion then do not wait for the main thread (a tile's decode, a fetch starting), and the
 * page writes no style at them, so they cost it no layerization of the tile layers. The main thread still takes a
 * style pass and a commit at each frame it makes (the browser brings the animations' values into its style): on a
 * slowed phone CPU the glide's drawn frames were late a third to a half as often, the page's own frames not less often
 * (docs/benchmarks.md, "On a phone").
 *
 * The curve is sampled every `SAMPLE_MS` and played straight between samples: a bounce's spring, the tightest curve
 * a glide has, then strays from its own curve by under a point.
 */
export const SAMPLE_MS = 8;

/** The times (ms) to sample a motion of `duration` ms at: from 0, every SAMPLE_MS, and its end. */
export function sampleTimes(duration) {
  const times = [];
  for (let t = 0; t < duration; t += SAMPLE_MS) times.push(t);
  times.push(duration);
  return times;
}

/**
 * Plays frames (`{t, ...}`, at `sampleTimes(duration)`) on `element`, each frame's transform `transformOf(frame)`.
 * It holds its last frame once over (`fill`): the page renders that view and cancels it (the Animator).
 */
export function playTransforms(element, frames, duration, transformOf) {
  const keyframes = frames.map((frame) => ({ offset: Math.min(1, frame.t / duration), transform: transformOf(frame) }));
  return element.animate(keyframes, { duration, easing: 'linear', fill: 'both' });
}

/** Whether this browser plays Web Animations (every one Tilescope supports does; a page without them steps itself). */
export const canPlay = typeof Element !== 'undefined' && typeof Element.prototype.animate === 'function';

/** The animations of one motion, played together: one clock, cancelled together. */
export class PlayedMotion {
  constructor(animations) {
    this.animations = animations;
  }

  /** Milliseconds into the motion where the compositor has it (0 until it has started it, at its next frame). */
  get elapsed() {
    const time = this.animations[0].currentTime;
    return typeof time === 'number' ? time : 0;
  }

  cancel() {
    for (const animation of this.animations) animation.cancel();
  }
}
