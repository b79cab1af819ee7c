import { tileFormats, withTileFormat } from '../tiles/TileFormat.js';

/**
 * What every API path is prefixed with: empty, or a signed URL's base (`/signed/{token}`, Signed.js), so a page
 * opened with a signed URL reads and rates the private images it names.
 */
let apiBase = '';

export function useApiBase(base) {
  apiBase = base;
}

/** The few calls the client makes to Tilescope's JSON API; failures become Errors with the server's message. */
async function json(response) {
  let body = null;
  try { body = await response.json(); } catch { /* not JSON */ }
  if (!response.ok) {
    const message = body?.message || `${response.status} ${response.statusText}`;
    const error = new Error(message);
    error.status = response.status;
    error.code = body?.error;
    // A 401's body may say how to sign in (auth/AuthDocuments.js); relative ids in it resolve against the URL.
    error.body = body;
    error.url = response.url;
    throw error;
  }
  return body;
}

/** An image record with its tile URLs in the best format this browser shows and the server makes (TileFormat.js). */
async function formatted(image) {
  return image ? withTileFormat(image, await tileFormats()) : image;
}

/**
 * One turn of the endless carousel from GET /api/gallery: `{count, page, previous, current, next}`, by page
 * number or around an image id. The client never loads the whole list: three images at a time.
 */
export async function galleryRing({ page, image } = {}) {
  const query = image !== undefined ? `image=${encodeURIComponent(image)}` : `page=${page ?? 0}`;
  const ring = await json(await fetch(`${apiBase}/api/gallery?${query}`));
  const [previous, current, next] = await Promise.all([ring.previous, ring.current, ring.next].map(formatted));
  return { ...ring, previous, current, next };
}

/** The ring an early `openGallery(id, { handOver: true })` asked for, kept for the next call with the same id. */
let handedOver = null;

/**
 * The ring to start on: around `imageId` if it still exists and is listed, else the first page; null for an empty
 * gallery. A private image (401) is never in the gallery's list (docs/access.md): the first page, as for an unknown id.
 * `handOver`: the answer is also kept for the next call with the same `imageId`, which takes it instead of asking
 * again (the gallery page opens its ring before the viewer's modules are in, js/main.js).
 */
export function openGallery(imageId, { handOver = false } = {}) {
  if (handedOver && handedOver.imageId === imageId && !handOver) {
    const { ring } = handedOver;
    handedOver = null;
    return ring;
  }
  const ring = openRing(imageId);
  if (handOver) handedOver = { imageId, ring };
  return ring;
}

async function openRing(imageId) {
  const attempts = imageId ? [{ image: imageId }, { page: 0 }] : [{ page: 0 }];
  for (const attempt of attempts) {
    try {
      return await galleryRing(attempt);
    } catch (error) {
      if (error.status !== 404 && error.status !== 401) throw error;
    }
  }
  return null;
}

export async function getImage(id) {
  const [image, formats] = await Promise.all([fetch(`${apiBase}/api/images/${encodeURIComponent(id)}`).then(json), tileFormats()]);
  return withTileFormat(image, formats);
}

export async function putRating(id, rating) {
  return json(await fetch(`${apiBase}/api/images/${encodeURIComponent(id)}/rating`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ rating }),
  }));
}
