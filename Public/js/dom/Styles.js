/**
 * Style writes for what moves at every frame of a gesture (the tiles, the scroll indicators, the navigator, the
 * scale bar): only what changed is written. A write costs that frame a style pass even when the value is the one
 * already there, and a position or a size a layout as well; a pan whose every frame set `left` and `top` on the
 * indicators laid the page out at every frame of a glide.
 */

// The values last written through `writeStyles`, by element: compared with what is asked, not read back from the
// element's style, whose serialisation of a number need not be the string that was written.
const written = new WeakMap();

/** Sets the inline styles of `element` in `values` (CSS property names as `element.style` takes them) that differ. */
export function writeStyles(element, values) {
  let last = written.get(element);
  if (!last) written.set(element, (last = {}));
  for (const key in values) {
    if (last[key] !== values[key]) element.style[key] = last[key] = values[key];
  }
}

/** Sets `hidden` if it differs: setting it to true again is a mutation like any other. */
export function setHidden(element, hidden) {
  if (element.hidden !== hidden) element.hidden = hidden;
}
