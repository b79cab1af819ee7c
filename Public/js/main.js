import { openGallery } from './gallery/Api.js';
import { readUrlState } from './gallery/UrlState.js';
import { prefetchPreview } from './tiles/EarlyPreview.js';

/**
 * Opens the gallery's first ring at once, handed over to the viewer when it asks (`openGallery`'s `handOver`), and
 * asks for its image's preview as soon as the ring is in, where the view opens on it (EarlyPreview.js): the viewer's
 * modules (js/tilescope.js and its graph, 36 files) are still loading then. Not for a signed page, whose images come
 * through its signed base (js/gallery/Signed.js), nor for a view the URL restores zoomed in.
 */
function openEarly() {
  if (new URLSearchParams(location.search).has('signed')) return;
  const state = readUrlState();
  openGallery(state.image, { handOver: true })
    .then((ring) => prefetchPreview(ring?.current, { opensAtFit: state.zoomScale === undefined }))
    .catch(() => {}); // the viewer's own call gets the same failure, and says it
}

/**
 * The gallery page: one viewer over every image of this server, built on the same API as any embed
 * (tilescope.js), its view kept in the URL and its keys on the whole page. `window.tilescope` exposes
 * the viewer and the gallery for automation, and the read-only hooks the browser tests compare with the
 * geometry rules and the viewport API.
 */
async function start() {
  openEarly();
  const { createViewer } = await import('./tilescope.js');
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
    deepZoomViewport: () => gallery.scrollView?.viewport({ deepZoom: true }) ?? null,
    request: () => gallery.scrollView?.request() ?? null,
  };
  document.documentElement.dataset.ready = 'true';
}

start();
