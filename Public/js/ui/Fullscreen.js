/**
 * Fullscreen for one viewer's element through the Fullscreen API; the button says whether it is on
 * (aria-pressed) and is hidden where the page may not go fullscreen (an iframe without permission).
 */
export class Fullscreen {
  constructor(element, button) {
    this.element = element;
    this.button = button;
    this.listening = new AbortController();
    button.hidden = !document.fullscreenEnabled;
    document.addEventListener('fullscreenchange', () => this.#changed(), { signal: this.listening.signal });
  }

  get active() { return document.fullscreenElement === this.element; }

  async toggle() {
    if (!document.fullscreenEnabled) return;
    try {
      if (this.active) await document.exitFullscreen();
      else await this.element.requestFullscreen();
    } catch {
      // Refused (no user gesture, or a permission policy): the page stays as it is.
    }
  }

  destroy() {
    this.listening.abort();
    if (this.active) document.exitFullscreen().catch(() => {});
  }

  #changed() {
    this.button.setAttribute('aria-pressed', String(this.active));
    this.button.setAttribute('aria-label', this.active ? 'Leave fullscreen' : 'Fullscreen');
  }
}
