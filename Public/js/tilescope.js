import { Viewer } from './ui/Viewer.js';
import { tilescopeImage, deepZoomImage, iiifImage, withAbsoluteUrls } from './ui/Sources.js';
import { galleryRing, getImage, openGallery, useApiBase } from './gallery/Api.js';
import { listRings } from './gallery/Gallery.js';
import { readUrlState } from './gallery/UrlState.js';
import { signedBase, signedImageIds, signedToken } from './gallery/Signed.js';

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
  // The carousel holds three images at a time: the gallery's come from the server's rings (GET /api/gallery),
  // one image's from a ring over itself.
  const absolute = (ring) => ring && ({ ...ring, previous: ring.previous && withAbsoluteUrls(server, ring.previous),
                                        current: withAbsoluteUrls(server, ring.current),
                                        next: ring.next && withAbsoluteUrls(server, ring.next) });
  const load = async () => {
    const signed = gallery && rest.urlState ? signedToken(location.search) : null;
    if (signed) {
      // A signed URL's page: the images its token names, each through the signed base (docs/access.md).
      useApiBase(signedBase(signed));
      const images = await Promise.all(signedImageIds(signed).map((id) => getImage(id)));
      const loadRing = listRings(images);
      const wanted = readUrlState().image;
      return { ring: await loadRing(images.some((one) => one.id === wanted) ? { image: wanted } : { page: 0 }), loadRing };
    }
    if (gallery) {
      const wanted = rest.urlState ? readUrlState().image : rest.initial?.image;
      return { ring: absolute(await openGallery(wanted)), loadRing: async (query) => absolute(await galleryRing(query)) };
    }
    const one = dzi !== undefined ? await deepZoomImage(dzi)
      : iiif !== undefined ? await iiifImage(iiif) : await tilescopeImage(server, image);
    const loadRing = listRings([one]);
    return { ring: await loadRing({ page: 0 }), loadRing };
  };
  viewer.ready = load().then(({ ring, loadRing }) => {
    if (!ring) {
      viewer.showMessage('No images yet. Put some in the images folder and they will appear here.');
    } else {
      viewer.open(ring, loadRing);
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
