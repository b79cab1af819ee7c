/** Scroll-view motion curves: rubber band, momentum decay and easing. Pure numbers, no DOM. */

/** UIScrollView's rubber band: an overshoot of x shows as (1 - 1 / (x * c / d + 1)) * d. */
export function rubberBand(overshoot, dimension, c = 0.55) {
  const sign = Math.sign(overshoot);
  const x = Math.abs(overshoot);
  return sign * (1 - 1 / ((x * c) / dimension + 1)) * dimension;
}

/** The inverse of rubberBand: how far the finger went for a shown overshoot. */
export function rubberBandInverse(shown, dimension, c = 0.55) {
  const sign = Math.sign(shown);
  const y = Math.min(Math.abs(shown), dimension * 0.999);
  return sign * ((dimension / (1 - y / dimension) - dimension) / c);
}

/** A value pushed past [lo, hi] shows with rubber-band resistance beyond the edge. */
export function rubberBanded(value, lo, hi, dimension) {
  if (value < lo) return lo + rubberBand(value - lo, dimension);
  if (value > hi) return hi + rubberBand(value - hi, dimension);
  return value;
}

/** Momentum: velocity v (points per ms) decays by `rate` per ms; the distance travelled after t ms. */
export const DECELERATION = 0.998;
export function momentumDistance(v, t, rate = DECELERATION) {
  const k = Math.log(rate);
  return (v * (Math.pow(rate, t) - 1)) / k;
}
export function momentumDuration(v, rate = DECELERATION, stopSpeed = 0.01) {
  if (Math.abs(v) <= stopSpeed) return 0;
  return Math.log(stopSpeed / Math.abs(v)) / Math.log(rate);
}

export const easeOutCubic = (t) => 1 - Math.pow(1 - t, 3);
