import { Gallery } from './gallery/Gallery.js';
import { openGallery } from './gallery/Api.js';
import { readUrlState } from './gallery/UrlState.js';

/**
 * Starts the gallery on GET /api/gallery (three images, never the whole list) and exposes `window.tilescope`, a small read-only hook the
 * browser tests use to compare the client's geometry with the rules and with the viewport API.
 */
async function start() {
  const root = document.getElementById('gallery');
  const message = root.querySelector('.message');
  let ring;
  try {
    ring = await openGallery(readUrlState().image);
  } catch (error) {
    message.textContent = `Could not load the gallery: ${error.message}`;
    message.hidden = false;
    return;
  }
  if (!ring) {
    message.textContent = 'No images yet. Put some in the images folder and they will appear here.';
    message.hidden = false;
    return;
  }
  const gallery = new Gallery(root, ring);
  window.tilescope = {
    gallery,
    state: () => gallery.state(),
    viewport: () => gallery.scrollView?.viewport() ?? null,
    request: () => gallery.scrollView?.request() ?? null,
  };
  document.documentElement.dataset.ready = 'true';
}

start();
