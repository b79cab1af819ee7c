import { Viewer } from './ui/Viewer.js';
import { tilescopeImage, deepZoomImage, iiifImage, withAbsoluteUrls } from './ui/Sources.js';
import { galleryRing, getImage, openGallery, useApiBase } from './gallery/Api.js';
import { listRings } from './gallery/Gallery.js';
import { readUrlState } from './gallery/UrlState.js';
import { signedBase, signedImageIds, signedToken } from './gallery/Signed.js';
import { probeServices } from './auth/AuthDocuments.js';

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
  // `moved`: where a probe sent the viewer instead (a 30x with a `location`), for a Deep Zoom or IIIF source.
  let moved = null;
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
    const one = dzi !== undefined ? await deepZoomImage(moved ?? dzi)
      : iiif !== undefined ? await iiifImage(moved ?? iiif) : await tilescopeImage(server, image);
    const loadRing = listRings([one]);
    return { ring: await loadRing({ page: 0 }), loadRing, one };
  };
  // One image that is private (a 401 whose body declares a probe service, or a IIIF image whose info.json declares
  // one) goes through the IIIF Authorization Flow 2.0 inside the viewer, then is loaded again (docs/client.md).
  const loadAuthorized = async () => {
    let flowRan = null;
    for (let round = 0; ; round++) {
      let loaded;
      try {
        loaded = await load();
      } catch (error) {
        const probe = !gallery && error.status === 401 && round === 0 ? probeServices(error.body, error.url)[0] : null;
        if (!probe) throw error;
        flowRan = await authorizeIn(viewer, probe);
        if (flowRan.outcome.kind === 'moved') moved = flowRan.outcome.location.id;
        continue;
      }
      const declared = round === 0 && loaded.one?.services ? probeServices(loaded.one.services, loaded.one.urls.iiif)[0] : null;
      if (declared) {
        // A spec server answers info.json to anyone and its probe says whether the tiles would be: ask it first.
        flowRan = await authorizeIn(viewer, declared);
        if (flowRan.outcome.kind === 'moved') {
          moved = flowRan.outcome.location.id;
          continue;
        }
      }
      return { ...loaded, flow: flowRan };
    }
  };
  const start = () => {
    viewer.ready = loadAuthorized().then(({ ring, loadRing, flow }) => {
      if (!ring) {
        viewer.showMessage('No images yet. Put some in the images folder and they will appear here.');
      } else {
        viewer.open(ring, loadRing);
      }
      if (flow?.signedIn && flow.logout) {
        // Signing out (IIIF Auth 2.0, 6.2) from a click: the logout service's window, then the image is asked for
        // again, which brings the prompt back.
        viewer.showSignOut(flow.logout.label, () => flow.signOut().then(() => {
          viewer.close();
          start();
        }));
      }
      return viewer;
    }, (error) => {
      if (error?.name === 'AbortError') throw error; // destroyed while signing in
      viewer.showMessage(`Could not load: ${error.message}`);
      throw error;
    });
    viewer.ready.catch(() => {});
  };
  start();
  return viewer;
}

/**
 * The IIIF Authorization Flow for `probe` in the viewer's element: the flow (auth/Authorization.js) and its prompt
 * (ui/LoginPrompt.js) are loaded only now, as a public image never needs them. Resolves to {outcome, signedIn,
 * logout, signOut}; a refusal no access service can lift rejects with the probe's heading and note.
 */
async function authorizeIn(viewer, probe) {
  const [{ authorize, signOut }, { LoginPrompt }] = await Promise.all([
    import('./auth/Authorization.js'), import('./ui/LoginPrompt.js')]);
  const signal = viewer.listening.signal;
  const prompt = new LoginPrompt(viewer.element, { signal });
  let outcome;
  try {
    outcome = await authorize(probe, prompt, { signal });
  } finally {
    prompt.remove();
  }
  if (outcome.kind === 'denied') {
    const why = [prompt.text(outcome.heading ?? probe.errorHeading), prompt.text(outcome.note ?? probe.errorNote)];
    throw Object.assign(new Error(why.filter(Boolean).join(' ') || 'this image is private'), { status: outcome.status });
  }
  const access = probe.access.find((one) => one.logout) ?? null;
  return {
    outcome,
    // Granted on a token of the flow's (not at the first probe): the user signed in, and may sign out.
    signedIn: outcome.kind === 'granted' && outcome.viaToken === true,
    logout: access && { label: prompt.text(access.logout.label) || 'Sign out' },
    signOut: () => signOut(access, signal),
  };
}

export { Viewer };
