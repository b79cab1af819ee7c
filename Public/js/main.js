import { Gallery } from './gallery/Gallery.js';
import { listImages } from './gallery/Api.js';

/**
 * Starts the gallery on GET /api/images and exposes `window.tilescope`, a small read-only hook the
 * browser tests use to compare the client's geometry with the rules and with the viewport API.
 */
async function start() {
  const root = document.getElementById('gallery');
  const message = root.querySelector('.message');
  let images;
  try {
    images = await listImages();
  } catch (error) {
    message.textContent = `Could not load the gallery: ${error.message}`;
    message.hidden = false;
    return;
  }
  if (images.length === 0) {
    message.textContent = 'No images yet. Put some in the images folder and they will appear here.';
    message.hidden = false;
    return;
  }
  const gallery = new Gallery(root, images);
  window.tilescope = {
    gallery,
    state: () => gallery.state(),
    viewport: () => gallery.scrollView?.viewport() ?? null,
    request: () => gallery.scrollView?.request() ?? null,
  };
  document.documentElement.dataset.ready = 'true';
}

start();
