/**
 * The user's wish for less motion (`prefers-reduced-motion: reduce`): animated changes then happen at
 * once, as if `animated` were false. Read at each use so a change of the setting applies at once.
 */
const query = typeof matchMedia === 'function' ? matchMedia('(prefers-reduced-motion: reduce)') : null;

export function reducedMotion() {
  return query?.matches ?? false;
}

/** The duration to animate for: 0 when the user asked for reduced motion. */
export function motionDuration(ms) {
  return reducedMotion() ? 0 : ms;
}
