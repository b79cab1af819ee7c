import { tileFormat, withTileFormat } from '../tiles/TileFormat.js';

/** The few calls the client makes to Tilescope's JSON API; failures become Errors with the server's message. */
async function json(response) {
  let body = null;
  try { body = await response.json(); } catch { /* not JSON */ }
  if (!response.ok) {
    const message = body?.message || `${response.status} ${response.statusText}`;
    const error = new Error(message);
    error.status = response.status;
    error.code = body?.error;
    throw error;
  }
  return body;
}

/** Images come with tile URLs in the format TileFormat.js chooses for this browser (WebP in today's). */
export async function listImages() {
  const [body, format] = await Promise.all([fetch('/api/images').then(json), tileFormat()]);
  return body.images.map((image) => withTileFormat(image, format));
}

export async function getImage(id) {
  const [image, format] = await Promise.all([fetch(`/api/images/${encodeURIComponent(id)}`).then(json), tileFormat()]);
  return withTileFormat(image, format);
}

export async function putRating(id, rating) {
  return json(await fetch(`/api/images/${encodeURIComponent(id)}/rating`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ rating }),
  }));
}
