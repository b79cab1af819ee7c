import { tokenMessage, withQuery } from './AuthDocuments.js';

/**
 * One request to an access token service (IIIF Authorization Flow 2.0, 4.2): its page opened in a hidden iframe with
 * a fresh `messageId` and this page's `origin`, answered by the page's `postMessage`. `fetch` cannot do it: the
 * token service must see the same authorizing aspect (the session cookie) the browser sends with the tiles.
 *
 * Resolves to {accessToken, expiresIn} or {error, heading, note}; a message is taken only from that frame, from the
 * token service's origin, with that messageId (others are ignored, 4.4). No answer within `timeoutMs` is the error
 * `unavailable`.
 */
let sequence = 0;

export function requestToken(tokenService, { timeoutMs = 20000, signal } = {}) {
  const messageId = `tilescope-${Date.now().toString(36)}-${++sequence}`;
  const serviceOrigin = new URL(tokenService.id).origin;
  const frame = document.createElement('iframe');
  frame.hidden = true;
  frame.setAttribute('aria-hidden', 'true');
  frame.title = 'IIIF access token service';
  return new Promise((resolve) => {
    const listening = new AbortController();
    let loaded = false;
    frame.addEventListener('load', () => { loaded = true; }, { once: true });
    const finish = (answer, { now = false } = {}) => {
      listening.abort();
      clearTimeout(timer);
      resolve(answer);
      // The page posts while it is still loading: taking the frame out then would cancel its own request (Chromium
      // reports it failed). It goes once loaded, or at once when the wait ended without an answer.
      if (loaded || now) frame.remove();
      else frame.addEventListener('load', () => frame.remove(), { once: true });
    };
    const unanswered = { error: 'unavailable', heading: null, note: null };
    const timer = setTimeout(() => finish(unanswered, { now: true }), timeoutMs);
    window.addEventListener('message', (event) => {
      if (event.source !== frame.contentWindow || event.origin !== serviceOrigin) return;
      const answer = tokenMessage(event.data, messageId);
      if (answer) finish(answer);
    }, { signal: listening.signal });
    signal?.addEventListener('abort', () => finish(unanswered, { now: true }), { signal: listening.signal });
    frame.src = withQuery(tokenService.id, { messageId, origin: location.origin });
    document.body.append(frame);
  });
}
