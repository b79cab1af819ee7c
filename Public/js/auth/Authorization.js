import { probeOutcome, withQuery } from './AuthDocuments.js';
import { forgetToken, heldToken, rememberToken } from './AccessTokens.js';
import { requestToken } from './TokenFrame.js';

/**
 * The IIIF Authorization Flow 2.0 from the browser client's side (https://iiif.io/api/auth/2.0/, 7.1), for one probe
 * service (AuthDocuments.js's `probeServices`): probe without a token; then with each token the page holds; then
 * each access service in the spec's order: `external` (the token service at once), `kiosk` (the access service's
 * window opened at once), `active` (the user is asked, in the viewer, through `ui`; a user gesture opens the window).
 * After a window closes, the token service (TokenFrame.js), then the probe again with the token. The token is sent
 * to the probe service only (4.4); the tiles carry what the token stands for (the session cookie the access service
 * set), as the browser sends it to its own server.
 *
 * `ui` (LoginPrompt.js): `showTier(resource)` (a degraded version offered meanwhile), `askToSignIn(access, error,
 * open)` (resolves to the window `open()` opened in the click handler, or null if the browser blocked it),
 * `waiting(access)`. Resolves to the last probe outcome: `granted`, `moved` (draw `location` instead) or `denied`
 * (no access service could help; its heading and note say why), with `viaToken` when a token got it. Rejects with an AbortError once `signal` aborts.
 */
export async function authorize(probeService, ui, { signal } = {}) {
  const settled = (outcome) => {
    if (outcome.kind === 'denied' && outcome.tier) ui.showTier(outcome.tier);
    return outcome.kind !== 'denied';
  };
  let outcome = await probe(probeService, null, signal);
  if (settled(outcome)) return outcome;
  for (const access of probeService.access) {
    const token = heldToken(access.token.id);
    if (!token) continue;
    outcome = await probe(probeService, token, signal);
    if (settled(outcome)) return outcome;
  }
  for (const access of probeService.access) {
    // `external` asks the token service at once. So does `active`, once, before asking the user: a browser that
    // already holds the session (signed in in another tab, or before a reload) then is not asked again.
    if (access.profile === 'external' || access.profile === 'active') {
      const answer = await tokenThenProbe(probeService, access, signal);
      if (answer.outcome && settled(answer.outcome)) return answer.outcome;
      outcome = answer.outcome ?? outcome;
    }
    if (access.profile === 'kiosk') {
      const popup = openAccess(access);
      if (popup) await windowClosed(popup, signal);
      const answer = await tokenThenProbe(probeService, access, signal);
      if (answer.outcome && settled(answer.outcome)) return answer.outcome;
      outcome = answer.outcome ?? outcome;
    }
    if (access.profile === 'active') return active(probeService, access, ui, signal);
  }
  return outcome;
}

/** The active pattern (3.3.1): ask, open the window, wait for it to close, then token and probe; again on failure. */
async function active(probeService, access, ui, signal) {
  let error = null;
  for (;;) {
    const popup = await ui.askToSignIn(access, error, () => openAccess(access));
    if (!popup) {
      error = { heading: 'The sign-in window was blocked', note: 'Allow this site to open windows, then try again.' };
      continue;
    }
    ui.waiting(access);
    await windowClosed(popup, signal);
    const answer = await tokenThenProbe(probeService, access, signal);
    if (answer.outcome?.kind === 'granted' || answer.outcome?.kind === 'moved') return answer.outcome;
    if (answer.outcome?.tier) ui.showTier(answer.outcome.tier);
    error = answer.error ?? { heading: answer.outcome?.heading ?? probeService.errorHeading,
                              note: answer.outcome?.note ?? probeService.errorNote };
  }
}

/** The token service, then the probe with its token: {outcome} once probed, or {error} (the token service's). */
async function tokenThenProbe(probeService, access, signal) {
  const token = await requestToken(access.token, { signal });
  signal?.throwIfAborted();
  if (token.error) {
    return { error: { heading: token.heading ?? access.token.errorHeading ?? 'Not signed in',
                      note: token.note ?? access.token.errorNote } };
  }
  rememberToken(access.token.id, token);
  return { outcome: await probe(probeService, token.accessToken, signal) };
}

/**
 * One request to the probe service (5.1), with the access token as a bearer token if there is one. Its answer's
 * HTTP status is 200 whatever the resource's; a probe that cannot be reached or read is a refusal without a tier.
 */
export async function probe(probeService, accessToken, signal) {
  let body = null;
  try {
    const response = await fetch(probeService.id, {
      headers: accessToken ? { Authorization: `Bearer ${accessToken}` } : {}, cache: 'no-store', signal });
    body = await response.json();
  } catch (error) {
    signal?.throwIfAborted();
    return { kind: 'denied', status: null, tier: null, heading: 'Could not ask whether you may see this',
             note: error.message };
  }
  return { ...probeOutcome(body, probeService.id), viaToken: Boolean(accessToken) };
}

const WINDOW_FEATURES = 'popup,width=520,height=640';

/** Opens the access service (3.2) with this page's origin; call it from a user gesture's handler (active). */
export function openAccess(access) {
  return window.open(withQuery(access.id, { origin: location.origin }), '_blank', WINDOW_FEATURES);
}

/**
 * Signing out (6.2), from a user gesture's handler: the logout service's page in a window of its own, and the page's
 * token for that access service discarded. Resolves once that window is closed (or at once if it was blocked).
 */
export function signOut(access, signal) {
  const popup = access.logout ? window.open(access.logout.id, '_blank', WINDOW_FEATURES) : null;
  forgetToken(access.token.id);
  return popup ? windowClosed(popup, signal) : Promise.resolve();
}

/** Resolves when `popup` is closed: nothing tells a page so but polling `closed` (the window may be another origin's). */
function windowClosed(popup, signal) {
  return new Promise((resolve, reject) => {
    const timer = setInterval(() => {
      if (signal?.aborted) {
        clearInterval(timer);
        reject(signal.reason);
      } else if (popup.closed) {
        clearInterval(timer);
        resolve();
      }
    }, 200);
  });
}
