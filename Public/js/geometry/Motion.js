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

/**
 * A view on the way from `from` to `to` ({zoomScale, offsetX, offsetY}) at progress k in [0, 1], as UIScrollView's
 * zoom(to:animated:) has it: the rectangle of the image the view shows moves on a straight line from the start's
 * to the end's (its origin offset / zoomScale, its size the view's / zoomScale, so 1 / zoomScale moves linearly),
 * and zoomScale and contentOffset follow from it. Both ends show some of the image, so every rectangle between
 * them does too (on each axis, two intervals that overlap the image's span have every interval between them
 * overlap it). Interpolating zoomScale geometrically and the offset linearly bends that path: going back to fit
 * from a zoomed-in corner, the view lost the image for several frames.
 */
export function viewBetween(from, to, k) {
  const lerp = (a, b) => a + (b - a) * k;
  // A scroll without a zoom: the same line, without a zoomScale that 1 / (1 / z) could move by its last bit.
  if (from.zoomScale === to.zoomScale) {
    return { zoomScale: from.zoomScale, offsetX: lerp(from.offsetX, to.offsetX), offsetY: lerp(from.offsetY, to.offsetY) };
  }
  const zoomScale = 1 / lerp(1 / from.zoomScale, 1 / to.zoomScale);
  return {
    zoomScale,
    offsetX: lerp(from.offsetX / from.zoomScale, to.offsetX / to.zoomScale) * zoomScale,
    offsetY: lerp(from.offsetY / from.zoomScale, to.offsetY / to.zoomScale) * zoomScale,
  };
}
