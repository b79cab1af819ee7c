/**
 * The documents of the IIIF Authorization Flow 2.0 (https://iiif.io/api/auth/2.0/) as the client reads them: the
 * probe services a resource declares (in info.json, a manifest, or a server's 401 answer), the access services each
 * holds with their token and logout services, the probe's result, and the language maps of their texts. Pure: no
 * DOM, no fetch; anything malformed is left out rather than trusted.
 */

export const PROBE = 'AuthProbeService2';
export const ACCESS = 'AuthAccessService2';
export const TOKEN = 'AuthAccessTokenService2';
export const LOGOUT = 'AuthLogoutService2';

/** The spec's order of interaction (3.3): the least interaction first. */
const PROFILE_ORDER = ['external', 'kiosk', 'active'];
/** How deep (objects and arrays) probe services are searched for: a manifest nests them ten levels down. */
const MAX_DEPTH = 16;

const list = (value) => (Array.isArray(value) ? value : value && typeof value === 'object' ? [value] : []);
const isUrl = (value) => typeof value === 'string' && /^https?:\/\//i.test(value);

/**
 * The probe services anywhere in `document` (its `service` lists, and those of what it holds), each normalised:
 * {id, errorHeading, errorNote, access: [...]} with its usable access services in the spec's order. `base` resolves
 * relative ids (a spec server writes absolute ones; a page's own server may not).
 */
export function probeServices(document, base) {
  const found = [];
  const seen = new Set();
  const walk = (value, depth) => {
    if (depth > MAX_DEPTH || value === null || typeof value !== 'object' || seen.has(value)) return;
    seen.add(value);
    if (Array.isArray(value)) {
      for (const item of value) walk(item, depth + 1);
      return;
    }
    if (value.type === PROBE) {
      const probe = readProbe(value, base);
      if (probe && !found.some((other) => other.id === probe.id)) found.push(probe);
      return;
    }
    for (const key of ['service', 'services', 'items', 'body']) walk(value[key], depth + 1);
  };
  walk(document, 0);
  return found;
}

function resolve(id, base) {
  if (typeof id !== 'string' || id.length === 0) return null;
  try {
    const url = new URL(id, base);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : null;
  } catch {
    return null;
  }
}

function readProbe(service, base) {
  const id = resolve(service.id ?? service['@id'], base);
  if (!id) return null;
  const access = list(service.service).map((one) => readAccess(one, base)).filter(Boolean)
    .sort((a, b) => PROFILE_ORDER.indexOf(a.profile) - PROFILE_ORDER.indexOf(b.profile));
  return { id, errorHeading: service.errorHeading ?? null, errorNote: service.errorNote ?? null, access };
}

/** An access service the client can use: a known profile, one token service, an id unless external (3.1). */
function readAccess(service, base) {
  if (service?.type !== ACCESS || !PROFILE_ORDER.includes(service.profile)) return null;
  const inner = list(service.service);
  const tokenService = inner.find((one) => one?.type === TOKEN);
  const tokenId = resolve(tokenService?.id, base);
  if (!tokenId) return null;
  const id = service.profile === 'external' ? null : resolve(service.id, base);
  if (service.profile !== 'external' && !id) return null;
  const logoutService = inner.find((one) => one?.type === LOGOUT);
  const logoutId = resolve(logoutService?.id, base);
  return {
    id,
    profile: service.profile,
    label: service.label ?? null,
    heading: service.heading ?? null,
    note: service.note ?? null,
    confirmLabel: service.confirmLabel ?? null,
    token: { id: tokenId, errorHeading: tokenService.errorHeading ?? null, errorNote: tokenService.errorNote ?? null },
    logout: logoutId ? { id: logoutId, label: logoutService.label ?? null } : null,
  };
}

/**
 * What a probe's answer (`AuthProbeResult2`, 5.2) tells the client to do:
 * - `granted`: status 200, draw the resource;
 * - `moved`: a 30x with a `location` the viewer can draw instead (an image service or a descriptor, anything but a
 *   single picture), so draw that;
 * - `denied`: anything else, with the `tier` to show meanwhile if one is offered, and the heading and note. The
 *   tier is the first `substitute` (the spec's tiered access, 7.1), or a `location` that is a single picture
 *   (`type: "Image"`) as other servers send: Tilescope offers its degraded tier as the substitute
 *   (`/auth/degraded/{id}.jpeg`), and a picture cannot stand in for a deep-zoom image, so the viewer shows it and
 *   goes on to the access services.
 * A body that is not a probe result is denied, with no tier.
 */
export function probeOutcome(result, base) {
  if (result?.type !== 'AuthProbeResult2' || !Number.isInteger(result.status)) {
    return { kind: 'denied', status: null, tier: null, heading: null, note: null };
  }
  const { status } = result;
  const location = readResource(result.location, base);
  if (status === 200) return { kind: 'granted', status };
  if (status >= 300 && status < 400 && location && location.type !== 'Image') return { kind: 'moved', status, location };
  const tier = list(result.substitute).map((one) => readResource(one, base)).find(Boolean) ?? location;
  return { kind: 'denied', status, tier: tier ?? null, heading: result.heading ?? null, note: result.note ?? null };
}

function readResource(resource, base) {
  const id = resolve(resource?.id ?? resource?.['@id'], base);
  if (!id) return null;
  const size = (value) => (Number.isFinite(value) && value > 0 ? value : null);
  return { id, type: typeof resource.type === 'string' ? resource.type : null, label: resource.label ?? null,
           width: size(resource.width), height: size(resource.height) };
}

/**
 * The text of a IIIF language map (`{"en": ["Sign in"]}`) for the reader: the first of `languages` it has, then
 * `none`, then English, then whatever it has; its strings joined by spaces. A plain string passes; anything else is ''.
 */
export function languageText(map, languages = []) {
  if (typeof map === 'string') return map;
  if (!map || typeof map !== 'object') return '';
  const keys = Object.keys(map);
  const wanted = [...languages, ...languages.map((tag) => tag.split('-')[0]), 'none', 'en'];
  const key = wanted.find((tag) => keys.includes(tag)) ?? keys[0];
  const values = key === undefined ? [] : map[key];
  return (Array.isArray(values) ? values : [values]).filter((one) => typeof one === 'string').join(' ');
}

/** `url` with the query parameters added (the access service's `origin`, the token service's `messageId`). */
export function withQuery(url, parameters) {
  const out = new URL(url);
  for (const [name, value] of Object.entries(parameters)) out.searchParams.set(name, value);
  return out.href;
}

/** What a token service's message (4.4, 4.5) says: the token and its lifetime, or the error; null if neither. */
export function tokenMessage(data, messageId) {
  if (!data || typeof data !== 'object' || data.messageId !== messageId) return null;
  if (data.type === 'AuthAccessToken2' && typeof data.accessToken === 'string' && data.accessToken.length > 0) {
    const expiresIn = Number.isInteger(data.expiresIn) && data.expiresIn > 0 ? data.expiresIn : null;
    return { accessToken: data.accessToken, expiresIn };
  }
  if (data.type === 'AuthAccessTokenError2') {
    return { error: typeof data.profile === 'string' ? data.profile : 'unavailable', heading: data.heading ?? null,
             note: data.note ?? null };
  }
  return null;
}
