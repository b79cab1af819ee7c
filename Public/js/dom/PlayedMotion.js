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
 * a glide has, then strays from its own curve by under a point. Of those samples only the ones a straight line cannot
 * skip within `TOLERANCE` are handed over (`keptSamples`): the browser parses every keyframe at the release, and on a
 * slowed phone CPU three animations of 191 keyframes took half of the release's 30 ms (the benchmark's fling keeps 28).
 */
export const SAMPLE_MS = 8;
/** Points a played motion may stray from its sampled curve between the samples kept. */
export const TOLERANCE = 0.25;

/** The times (ms) to sample a motion of `duration` ms at: from 0, every SAMPLE_MS, and its end. */
export function sampleTimes(duration) {
  const times = [];
  for (let t = 0; t < duration; t += SAMPLE_MS) times.push(t);
  times.push(duration);
  return times;
}

/**
 * The samples (`{t, ...}`, in time order) that played straight one to the next stay within `tolerance` of every
 * sample, in each of the values `valuesOf(sample)` gives: the first and the last always, and from each one kept the
 * farthest that a straight line reaches without straying further at any sample between.
 */
export function keptSamples(samples, valuesOf, tolerance = TOLERANCE) {
  if (samples.length <= 2) return samples.slice();
  const values = samples.map(valuesOf);
  const kept = [samples[0]];
  let from = 0;
  while (from < samples.length - 1) {
    let to = from + 1;
    while (to + 1 < samples.length && straight(samples, values, from, to + 1, tolerance)) to++;
    kept.push(samples[to]);
    from = to;
  }
  return kept;
}

/** Whether the line from sample `a` to sample `b` passes within `tolerance` of every sample between them. */
function straight(samples, values, a, b, tolerance) {
  const span = samples[b].t - samples[a].t;
  for (let i = a + 1; i < b; i++) {
    const k = (samples[i].t - samples[a].t) / span;
    for (let v = 0; v < values[i].length; v++) {
      const line = values[a][v] + (values[b][v] - values[a][v]) * k;
      if (Math.abs(line - values[i][v]) > tolerance) return false;
    }
  }
  return true;
}

/**
 * Plays frames (`{t, ...}`, at `sampleTimes(duration)`, or the ones `keptSamples` keeps of them) on `element`, each
 * frame's transform `transformOf(frame)`. It holds its last frame once over (`fill`): the page renders that view and
 * cancels it (the Animator).
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
