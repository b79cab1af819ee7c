/**
 * Chooses the tile format this browser should ask for. The server makes each Deep Zoom tile in AVIF or
 * WebP on first request and then serves it as a file (docs/api.md#tile-formats). A format counts as shown
 * when the browser decodes a tiny image in it.
 */

/**
 * AVIF first: below the deepest level the server makes it from the finer level's tiles, the JPEG tile's
 * picture or better in 50-86% of its bytes on bench/client's grainy image (a sixth to a half on the demo
 * images); at the deepest level, which has no finer level, from the source's own pixels (in a pass down the
 * source), kept only where it reaches the JPEG tile's picture in fewer bytes (77-82% of them there on that image),
 * else the JPEG tile re-encoded losslessly is the answer. Its first encoding costs the server a sixth to two
 * fifths of a second of CPU, so a tile not made yet is answered at once with the JPEG tile's bytes (`image/jpeg`
 * under the AVIF URL, cached ten seconds) and made behind the reply (docs/api.md#tile-formats): a cold view is as quick as
 * a JPEG one, a warm one is the smaller. The loader decodes by content (an image element of the bytes), so
 * a JPEG answer is drawn like any other. WebP (smaller, softer) for browsers without AVIF; JPEG, which every
 * browser shows, is what is left.
 */
export const PREFERENCE = ['avif', 'webp'];

const PROBES = {
  // 2 x 2 black, AV1 in HEIF, made by libvips's heifsave.
  avif: 'data:image/avif;base64,AAAAHGZ0eXBhdmlmAAAAAGF2aWZtaWYxbWlhZgAAAOptZXRhAAAAAAAAACFoZGxyAAAAAAAAAABwaWN0AAAAAAAAAAAAAAAAAAAAAA5waXRtAAAAAAABAAAAImlsb2MAAAAAREAAAQABAAAAAAEOAAEAAAAAAAAAGAAAACNpaW5mAAAAAAABAAAAFWluZmUCAAAAAAEAAGF2MDEAAAAAamlwcnAAAABLaXBjbwAAABNjb2xybmNseAACAAIABoAAAAAMYXYxQ4EADAAAAAAUaXNwZQAAAAAAAAACAAAAAgAAABBwaXhpAAAAAAMICAgAAAAXaXBtYQAAAAAAAAABAAEEgYIDhAAAACBtZGF0EgAKCBgANggQEDQgMgoYAAAAQAX172To',
  // 1 x 1, lossy WebP.
  webp: 'data:image/webp;base64,UklGRiIAAABXRUJQVlA4IBYAAAAwAQCdASoBAAEADsD+JaQAA3AAAAAA',
};

/** The first of `PREFERENCE` that `supports(format)` says yes to, else 'jpeg'. Pure: no DOM. */
export function chooseTileFormat(supports) {
  return PREFERENCE.find((format) => supports(format)) ?? 'jpeg';
}

/** Resolves true when the browser decodes the probe image (a second at most: a stalled decode is a no). */
function decodes(uri) {
  return new Promise((resolve) => {
    const image = new Image();
    const timer = setTimeout(() => resolve(false), 1000);
    image.onload = () => { clearTimeout(timer); resolve(image.naturalWidth > 0); };
    image.onerror = () => { clearTimeout(timer); resolve(false); };
    image.src = uri;
  });
}

let decoded = null;

/**
 * The formats this browser shows, best first, found once per page: those of PREFERENCE it decodes, then 'png'
 * and 'jpeg'. An image's tiles are in the first of them its server makes (`withTileFormat`): a server offers
 * PNG for a transparent image only (its tiles with their alpha), so an opaque image falls through to JPEG and a
 * transparent one never does (its JPEG tiles are laid over the server's background).
 */
export function tileFormats() {
  decoded ??= (async () => {
    // Every probe at once (the JPEG XL one too: tile URLs come from here, so their requests never wait for it):
    // one after another they were three decodes on the way to the image record, each a task on a slow phone.
    const [shown] = await Promise.all([Promise.all(PREFERENCE.map((format) => decodes(PROBES[format]))), tileAccept()]);
    return [...PREFERENCE.filter((_, i) => shown[i]), 'png', 'jpeg'];
  })();
  return decoded;
}

/** This browser's format ('avif', 'webp' or 'jpeg'): the first of `tileFormats()`, as `chooseTileFormat` picks it. */
export async function tileFormat() {
  const formats = await tileFormats();
  return chooseTileFormat((format) => formats.includes(format));
}

/** 1 x 1 black, lossless JPEG XL, made by libvips's jxlsave. */
const JPEG_XL_PROBE = 'data:image/jxl;base64,/woAEBAJCAIBABwASxiLFYIDAA==';

/**
 * What a tile request's `Accept` says when this browser decodes JPEG XL (else null: the browser's default).
 * The server then answers the AVIF URL of a tile whose AVIF is not made yet, or came out no smaller than the
 * JPEG, with the JPEG tile recompressed as JPEG XL: the same pixels in about 87 % of the bytes
 * (docs/api.md#tile-formats). `fetch` names no image type in its `Accept` unless told, so the loader says it
 * (a CORS-safelisted header: no preflight).
 */
export const JPEG_XL_ACCEPT = 'image/jxl,image/avif,image/webp,image/*,*/*;q=0.8';

let accept = null;
let knownAccept; // undefined until the probe has answered

/** `JPEG_XL_ACCEPT` if this browser decodes JPEG XL, else null; found once per page. */
export function tileAccept() {
  accept ??= decodes(JPEG_XL_PROBE).then((yes) => (knownAccept = yes ? JPEG_XL_ACCEPT : null));
  return accept;
}

/** What `tileAccept()` resolved to, or undefined before it has: lets a request start without a wait. */
export function knownTileAccept() {
  return knownAccept;
}

/**
 * The image record (`/api/images`) with its tiles and preview in the first of `formats` (one format, or a list
 * best first as `tileFormats()` gives it) that its server makes: the record's `urls.formats` names each one's
 * tiles template and the preview to draw with it (`preview.avif` with AVIF tiles, the preview level made from
 * the finer level's tiles, 37-55 % of the JPEG's bytes at its picture on the images measured; `preview.jpeg`
 * with WebP: from the JPEG a WebP preview would be a softer second generation). The client spells no format
 * into a URL: a server without an AV1 encoder offers no `avif`, and the next format is taken. A record without
 * `urls.formats` (a foreign pyramid) is returned as it is; the record returned has no `formats`, only the one
 * set of URLs it is drawn from.
 */
export function withTileFormat(image, formats) {
  const offered = image?.urls?.formats;
  if (offered === null || typeof offered !== 'object') return image;
  const format = [formats].flat().find((f) => offered[f]);
  const { formats: _offered, ...urls } = image.urls;
  if (format) {
    Object.assign(urls, { tiles: offered[format].tiles, preview: offered[format].preview });
    // The levels between Deep Zoom's (docs/api.md#levels-between-deep-zooms), where made in this format.
    if (offered[format].between) urls.between = offered[format].between;
  }
  return { ...image, urls };
}
