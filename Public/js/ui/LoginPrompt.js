import { languageText } from '../auth/AuthDocuments.js';

/**
 * The sign-in prompt a viewer shows in its own element when the image it opens is private (the `ui` of
 * auth/Authorization.js): the access service's heading and note (shown before the window opens, as the spec's active
 * pattern requires), a button that opens the access service's window (a click: browsers open windows only from a
 * user gesture), the reason a previous attempt failed, and meanwhile a degraded version of the image when the probe
 * offers one. `remove()` takes it all out of the element.
 */
export class LoginPrompt {
  constructor(root, { signal } = {}) {
    this.root = root;
    this.signal = signal;
    this.element = document.createElement('div');
    this.element.className = 'auth';
    this.element.innerHTML = `
      <img class="auth-tier" alt="" hidden>
      <section class="auth-prompt" role="dialog" aria-labelledby="">
        <h2 class="auth-heading"></h2>
        <p class="auth-note"></p>
        <p class="auth-error" role="alert" hidden><strong class="auth-error-heading"></strong> <span class="auth-error-note"></span></p>
        <button type="button" class="auth-confirm"></button>
        <p class="auth-label"></p>
        <p class="auth-waiting" aria-live="polite" hidden>Waiting for the sign-in window to close…</p>
      </section>`;
    const $ = (selector) => this.element.querySelector(selector);
    this.tier = $('.auth-tier');
    this.heading = $('.auth-heading');
    this.heading.id = `auth-heading-${Math.random().toString(36).slice(2)}`;
    $('.auth-prompt').setAttribute('aria-labelledby', this.heading.id);
    this.note = $('.auth-note');
    this.error = $('.auth-error');
    this.errorHeading = $('.auth-error-heading');
    this.errorNote = $('.auth-error-note');
    this.confirm = $('.auth-confirm');
    this.label = $('.auth-label');
    this.waitingLine = $('.auth-waiting');
    this.languages = [...(navigator.languages ?? [navigator.language])];
    this.heading.textContent = 'Checking whether you may see this image…';
    this.confirm.hidden = true;
    root.append(this.element);
  }

  text(map) { return languageText(map, this.languages); }

  /** A degraded version of the image (the probe's substitute), shown behind the prompt until access is granted. */
  showTier(resource) {
    if (this.tier.dataset.src === resource.id) return;
    this.tier.dataset.src = resource.id;
    this.tier.src = resource.id;
    this.tier.alt = this.text(resource.label) || 'A reduced version of the image, until you sign in';
    this.tier.hidden = false;
  }

  /** Shows the access service's texts and the button; resolves to what `open()` returns when it is pressed. */
  askToSignIn(access, error, open) {
    this.heading.textContent = this.text(access.heading) || this.text(access.label) || 'This image is private';
    this.note.textContent = this.text(access.note);
    this.note.hidden = !this.note.textContent;
    const confirmText = this.text(access.confirmLabel);
    this.confirm.textContent = confirmText || this.text(access.label) || 'Sign in';
    // The label names who the user signs in with (3.3.1): shown under the button when the button says something else.
    this.label.textContent = confirmText ? this.text(access.label) : '';
    this.label.hidden = !this.label.textContent;
    this.errorHeading.textContent = error ? this.text(error.heading) : '';
    this.errorNote.textContent = error ? this.text(error.note) : '';
    this.error.hidden = !error;
    this.waitingLine.hidden = true;
    this.confirm.hidden = false;
    this.confirm.disabled = false;
    return new Promise((resolve, reject) => {
      const pressed = new AbortController();
      this.confirm.addEventListener('click', () => {
        pressed.abort();
        resolve(open());
      }, { signal: pressed.signal });
      this.signal?.addEventListener('abort', () => {
        pressed.abort();
        reject(this.signal.reason);
      }, { signal: pressed.signal });
    });
  }

  /** The window is open: the prompt says what it waits for, and the button cannot open a second one. */
  waiting() {
    this.confirm.disabled = true;
    this.error.hidden = true;
    this.waitingLine.hidden = false;
  }

  remove() {
    this.element.remove();
  }
}
