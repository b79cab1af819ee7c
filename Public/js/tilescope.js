import { Viewer } from './ui/Viewer.js';
import { tilescopeImage, deepZoomImage, iiifImage, withAbsoluteUrls } from './ui/Sources.js';
import { listImages } from './gallery/Api.js';

/**
 * Tilescope's embeddable viewer, an ES module with no build step:
 *
 *   import { createViewer } from '/js/tilescope.js';
 *   const viewer = createViewer(element, { server: 'https://tiles.example.org', image: 'tiger' });
 *   viewer.on('zoom', (e) => console.log(e.zoomScale));
 *   await viewer.ready;
 *   viewer.setZoomScale(2, { animated: true });
 *
 * Sources (one of): `image` (a Tilescope id on `server`, default this page's server), `gallery: true`
 * (every image of this page's server, with paging and ratings), `dzi` (any Deep Zoom descriptor URL),
 * `iiif` (any IIIF Image API 2 or 3 info.json URL). See docs/client.md for every option, property,
 * call and event.
 */
export function createViewer(element, options = {}) {
  if (!(element instanceof Element)) throw new TypeError('createViewer needs an element to draw into');
  const { server = '', image, gallery = false, dzi, iiif, ...rest } = options;
  const sources = [image !== undefined, gallery === true, dzi !== undefined, iiif !== undefined].filter(Boolean).length;
  if (sources !== 1) throw new TypeError('createViewer needs exactly one of image, gallery: true, dzi or iiif');
  const sameServer = !server || new URL(server, location.href).origin === location.origin;
  const viewer = new Viewer(element, { gallery, rating: (gallery || image !== undefined) && sameServer, ...rest });
  const load = async () => {
    if (gallery) return (await listImages()).map((one) => withAbsoluteUrls(server, one));
    if (dzi !== undefined) return [await deepZoomImage(dzi)];
    if (iiif !== undefined) return [await iiifImage(iiif)];
    return [await tilescopeImage(server, image)];
  };
  viewer.ready = load().then((images) => {
    if (images.length === 0) {
      viewer.showMessage('No images yet. Put some in the images folder and they will appear here.');
    } else {
      viewer.open(images);
    }
    return viewer;
  }, (error) => {
    viewer.showMessage(`Could not load: ${error.message}`);
    throw error;
  });
  // The embedder may or may not await `ready`; a failure is shown in the element either way.
  viewer.ready.catch(() => {});
  return viewer;
}

export { Viewer };
