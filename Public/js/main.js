import { createViewer } from './tilescope.js';

/**
 * The gallery page: one viewer over every image of this server, built on the same API as any embed
 * (tilescope.js), its view kept in the URL and its keys on the whole page. `window.tilescope` exposes
 * the viewer and the gallery for automation, and the read-only hooks the browser tests compare with the
 * geometry rules and the viewport API.
 */
async function start() {
  const root = document.getElementById('gallery');
  const viewer = createViewer(root, { gallery: true, urlState: true, keyboardTarget: document });
  try {
    await viewer.ready;
  } catch {
    return; // the viewer shows the reason
  }
  const gallery = viewer.gallery;
  if (!gallery) return; // no images: the viewer says so
  window.tilescope = {
    viewer,
    gallery,
    state: () => gallery.state(),
    viewport: () => gallery.scrollView?.viewport() ?? null,
    request: () => gallery.scrollView?.request() ?? null,
  };
  document.documentElement.dataset.ready = 'true';
}

start();
