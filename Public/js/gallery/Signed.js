/**
 * A signed URL opened in the gallery page: `/?signed={token}` (what POST /api/images/{id}/signed-urls hands out as
 * `urls.viewer`). The token is `{key}.{expires}.{id}~{id}….{tag}` (docs/access.md): the page shows the images it
 * names, every request going through the signed base `/signed/{token}`. Pure: no DOM, no fetch.
 */

/** The token in a page's query string, or null when there is none or it is not a token's shape. */
export function signedToken(search) {
  const token = new URLSearchParams(search).get('signed');
  return token && /^[0-9]{1,9}\.[0-9]{1,12}\.[a-z0-9_~-]{1,800}\.[0-9a-f]{64}$/.test(token) ? token : null;
}

/** The ids a token opens, in its order. */
export function signedImageIds(token) {
  return token.split('.')[2].split('~').filter((id) => id.length > 0);
}

/** The path prefix every request of the page goes through. */
export function signedBase(token) {
  return `/signed/${token}`;
}
