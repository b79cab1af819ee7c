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

export async function listImages() {
  return (await json(await fetch('/api/images'))).images;
}

export async function getImage(id) {
  return json(await fetch(`/api/images/${encodeURIComponent(id)}`));
}

export async function putRating(id, rating) {
  return json(await fetch(`/api/images/${encodeURIComponent(id)}/rating`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ rating }),
  }));
}
