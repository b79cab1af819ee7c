const PAN_STEP = 60; // points per arrow press

/**
 * Keys for people without a mouse: arrows pan, + and - zoom, 0 returns to aspect fit,
 * PageUp and PageDown turn the page. Keys typed into buttons and fields keep their own meaning.
 */
export class Keyboard {
  constructor(target, gallery) {
    this.gallery = gallery;
    target.addEventListener('keydown', (e) => this.#key(e));
  }

  #key(e) {
    if (e.altKey || e.metaKey || e.ctrlKey) return;
    const inControl = e.target.closest?.('input, textarea, select');
    if (inControl) return;
    const onButton = e.target.closest?.('button');
    const g = this.gallery;
    switch (e.key) {
      case 'ArrowLeft': g.pan(-PAN_STEP, 0); break;
      case 'ArrowRight': g.pan(PAN_STEP, 0); break;
      case 'ArrowUp': g.pan(0, -PAN_STEP); break;
      case 'ArrowDown': g.pan(0, PAN_STEP); break;
      case '+': case '=': g.zoomKey(1.5); break;
      case '-': case '_': g.zoomKey(1 / 1.5); break;
      case '0': g.fitKey(); break;
      case 'PageUp': g.pageKey(-1); break;
      case 'PageDown': g.pageKey(+1); break;
      default: return;
    }
    if (onButton && (e.key === ' ' || e.key === 'Enter')) return;
    e.preventDefault();
  }
}
