/**
 * The view in the URL's fragment: #image=ID&zoomScale=Z&offsetX=X&offsetY=Y, so that reload or a shared
 * link restores it. A view at aspect fit keeps only the image, so it fits whatever screen opens it.
 */
export function readUrlState(hash = location.hash) {
  const params = new URLSearchParams(hash.replace(/^#/, ''));
  const number = (name) => {
    const raw = params.get(name);
    if (raw === null || raw.trim() === '') return undefined;
    const value = Number(raw);
    return Number.isFinite(value) ? value : undefined;
  };
  const zoomScale = number('zoomScale');
  return {
    image: params.get('image') ?? undefined,
    zoomScale: zoomScale !== undefined && zoomScale > 0 ? zoomScale : undefined,
    offsetX: number('offsetX'),
    offsetY: number('offsetY'),
  };
}

const round = (x, digits) => Number(x.toFixed(digits));

export function writeUrlState({ image, zoomScale, offsetX, offsetY, atFit }) {
  const params = new URLSearchParams();
  if (image !== undefined) params.set('image', image);
  if (!atFit && zoomScale !== undefined) {
    params.set('zoomScale', String(Number(zoomScale.toPrecision(10))));
    params.set('offsetX', String(round(offsetX, 3)));
    params.set('offsetY', String(round(offsetY, 3)));
  }
  const hash = `#${params.toString()}`;
  if (hash !== location.hash) history.replaceState(null, '', hash);
}
