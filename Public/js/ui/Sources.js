import { Pyramid } from '../geometry/Pyramid.js';
import { tileFormats, withTileFormat } from '../tiles/TileFormat.js';

/**
 * Where a viewer's images come from, each turned into the one descriptor the scroll view draws:
 * {id, title, caption, width, height, tileSize, overlap, status, urls: {tiles, preview}, previewSide?, services?}
 * (`services`: a IIIF image's own, where a probe service of the IIIF Authorization Flow may be declared).
 * A Tilescope image by id (its JSON API), any Deep Zoom `.dzi`, any IIIF Image API 2 or 3 `info.json`.
 */

/** Fetches JSON or XML text; a failure says which URL and why. */
async function fetchText(url) {
  let response;
  try {
    response = await fetch(url);
  } catch (error) {
    throw new Error(`could not fetch ${url}: ${error.message}`);
  }
  const text = await response.text();
  if (!response.ok) {
    let message = `${response.status} ${response.statusText}`;
    let body = null;
    try { body = JSON.parse(text); message = body.message || message; } catch { /* not JSON */ }
    // The status and body go with the error: a 401's body may say how to sign in (auth/AuthDocuments.js).
    throw Object.assign(new Error(`${url}: ${message}`), { status: response.status, body, url });
  }
  return text;
}

const absolute = (server, path) => new URL(path, server ? new URL(server, location.href) : location.href).href;

/**
 * A Tilescope image by id on `server` (default: this page's server), as GET /api/images/{id} describes it, with
 * its tiles in the best format this browser shows and that server makes, as the gallery gets them.
 */
export async function tilescopeImage(server, id) {
  const url = absolute(server, `/api/images/${encodeURIComponent(id)}`);
  const [text, formats] = await Promise.all([fetchText(url), tileFormats()]);
  return withAbsoluteUrls(server, withTileFormat(JSON.parse(text), formats));
}

/** Makes an image's relative URLs (from GET /api/images) absolute against the server they came from. */
export function withAbsoluteUrls(server, image) {
  if (!server) return image;
  const urls = Object.fromEntries(Object.entries(image.urls ?? {})
    .map(([k, v]) => [k, typeof v === 'string' ? absolute(server, v) : v]));
  // The tile template's braces must survive URL parsing: URL() percent-encodes them.
  if (urls.tiles) urls.tiles = urls.tiles.replaceAll('%7B', '{').replaceAll('%7D', '}');
  return { ...image, urls };
}

/** The level whose whole image fits in one tile stands in for Tilescope's preview on a foreign pyramid. */
function previewOf(width, height, tileSize, tileUrl) {
  const level = new Pyramid(width, height, tileSize, 0).baseLevel;
  return { previewSide: tileSize, preview: tileUrl(level, 0, 0) };
}

/** Any Deep Zoom image: the `.dzi` XML descriptor at `url`; tiles are next to it in `{name}_files/`. */
export async function deepZoomImage(url) {
  const href = new URL(url, location.href);
  const xml = new DOMParser().parseFromString(await fetchText(href.href), 'application/xml');
  const image = xml.getElementsByTagName('Image')[0];
  const size = xml.getElementsByTagName('Size')[0];
  const number = (element, name) => Number(element?.getAttribute(name));
  const width = number(size, 'Width');
  const height = number(size, 'Height');
  const tileSize = number(image, 'TileSize');
  const overlap = number(image, 'Overlap') || 0;
  const format = image?.getAttribute('Format') || 'jpg';
  if (!(width > 0 && height > 0 && tileSize > 0)) throw new Error(`${url} is not a Deep Zoom descriptor (Image TileSize, Size Width/Height)`);
  const base = href.pathname.replace(/\.(dzi|xml)$/i, '');
  const tiles = `${href.origin}${base}_files/{level}/{col}_{row}.${format}${href.search}`;
  const fill = (level, column, row) => tiles.replace('{level}', level).replace('{col}', column).replace('{row}', row);
  const { previewSide, preview } = previewOf(width, height, tileSize, fill);
  const id = decodeURIComponent(base.split('/').pop());
  return { id, title: id, caption: '', width, height, tileSize, overlap, status: 'ready', version: href.href,
           previewSide, urls: { dzi: href.href, tiles, preview } };
}

/**
 * Any IIIF Image API 2.x or 3.0 image: its `info.json`. Tiles are `x,y,w,h` regions at power-of-two scale
 * factors, sized in the version's canonical form (`w,` for 2, `w,h` for 3), so static level-0 tile sets work
 * as well as dynamic servers.
 */
export async function iiifImage(infoUrl) {
  const info = JSON.parse(await fetchText(new URL(infoUrl, location.href).href));
  const id = (info.id ?? info['@id'] ?? '').replace(/\/$/, '');
  const { width, height } = info;
  if (!id || !(width > 0 && height > 0)) throw new Error(`${infoUrl} is not a IIIF info.json (id, width, height)`);
  const context = JSON.stringify(info['@context'] ?? '');
  const version3 = context.includes('/image/3');
  const tileSpec = info.tiles?.[0];
  const tileSize = tileSpec?.width ?? 512;
  const maxLevel = new Pyramid(width, height, tileSize, 0).maxLevel;
  const tiles = (level, column, row) => {
    const factor = 2 ** (maxLevel - level);
    const x = column * tileSize * factor;
    const y = row * tileSize * factor;
    const w = Math.min(tileSize * factor, width - x);
    const h = Math.min(tileSize * factor, height - y);
    const tw = Math.ceil(w / factor);
    const th = Math.ceil(h / factor);
    // Always x,y,w,h (never `full`): static tile sets (libvips's dzsave --layout iiif3) name the whole image so.
    const size = version3 ? `${tw},${th}` : `${tw},`;
    return `${id}/${x},${y},${w},${h}/${size}/0/default.jpg`;
  };
  const { previewSide, preview } = previewOf(width, height, tileSize, tiles);
  const label = decodeURIComponent(id.split('/').pop());
  return { id: label, title: label, caption: '', width, height, tileSize, overlap: 0, status: 'ready', version: id,
           previewSide, urls: { iiif: id, tiles, preview }, services: info.service ?? null };
}
