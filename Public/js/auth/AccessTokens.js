/**
 * The access tokens this page holds (IIIF Authorization Flow 2.0, 4.4), by the token service that gave them, until
 * they expire: a second viewer of the same server, or the same image opened again, probes with the token it has
 * instead of asking the user again (the spec's algorithm, 7.1). In memory only: never stored, never sent anywhere but
 * to a probe service of the token service's own access service.
 */
const tokens = new Map(); // token service id -> { accessToken, expiresAt (ms, or Infinity) }

/** A token expiring within this margin is not offered: it would expire on its way. */
const MARGIN_MS = 5000;

export function rememberToken(tokenServiceId, { accessToken, expiresIn }, now = Date.now()) {
  tokens.set(tokenServiceId, { accessToken, expiresAt: expiresIn ? now + expiresIn * 1000 : Infinity });
}

/** The unexpired token from that token service, or null (an expired one is forgotten). */
export function heldToken(tokenServiceId, now = Date.now()) {
  const held = tokens.get(tokenServiceId);
  if (!held) return null;
  if (held.expiresAt - MARGIN_MS <= now) {
    tokens.delete(tokenServiceId);
    return null;
  }
  return held.accessToken;
}

/** Signing out (6.2): the client discards the tokens of that token service. */
export function forgetToken(tokenServiceId) {
  tokens.delete(tokenServiceId);
}
