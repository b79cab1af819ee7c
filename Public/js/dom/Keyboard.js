const PAN_STEP = 60; // points per arrow press

/**
 * The keyboard shortcuts, one list for the keys and for the `?` help that shows them. `action` names a
 * method of the target; a target without that method (a single-image viewer has no pages) ignores the key.
 */
export const SHORTCUTS = [
  { keys: ['←', '→', '↑', '↓'], match: ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'], does: 'Pan (left and right turn the page at an edge)' },
  { keys: ['+'], match: ['+', '='], does: 'Zoom in' },
  { keys: ['−'], match: ['-', '_'], does: 'Zoom out' },
  { keys: ['0'], match: ['0'], does: 'Fit the image to the screen' },
  { keys: ['Page Up', 'Page Down'], match: ['PageUp', 'PageDown'], does: 'Previous and next image' },
  { keys: ['F'], match: ['f', 'F'], does: 'Fullscreen on and off' },
  { keys: ['H'], match: ['h', 'H'], does: 'Hide or show the bars' },
  { keys: ['?'], match: ['?'], does: 'Show these shortcuts' },
];

/**
 * Keys for people without a mouse: arrows pan, + and - zoom, 0 returns to aspect fit, PageUp and
 * PageDown turn the page, F toggles fullscreen, H the bars, ? lists the shortcuts. Keys typed into
 * buttons and fields keep their own meaning. `destroy()` removes the listener.
 */
export class Keyboard {
  constructor(element, target) {
    this.target = target;
    this.listening = new AbortController();
    element.addEventListener('keydown', (e) => this.#key(e), { signal: this.listening.signal });
  }

  destroy() {
    this.listening.abort();
  }

  #key(e) {
    if (e.altKey || e.metaKey || e.ctrlKey) return;
    const inControl = e.target.closest?.('input, textarea, select, dialog');
    if (inControl) return;
    const onButton = e.target.closest?.('button');
    const t = this.target;
    const call = (name, ...args) => { if (typeof t[name] !== 'function') return false; t[name](...args); return true; };
    let handled;
    switch (e.key) {
      case 'ArrowLeft': handled = call('pan', -PAN_STEP, 0); break;
      case 'ArrowRight': handled = call('pan', PAN_STEP, 0); break;
      case 'ArrowUp': handled = call('pan', 0, -PAN_STEP); break;
      case 'ArrowDown': handled = call('pan', 0, PAN_STEP); break;
      case '+': case '=': handled = call('zoomKey', 1.5); break;
      case '-': case '_': handled = call('zoomKey', 1 / 1.5); break;
      case '0': handled = call('fitKey'); break;
      case 'PageUp': handled = call('pageKey', -1); break;
      case 'PageDown': handled = call('pageKey', +1); break;
      case 'f': case 'F': handled = call('toggleFullscreen'); break;
      case 'h': case 'H': handled = call('toggleBars'); break;
      case '?': handled = call('showHelp'); break;
      default: return;
    }
    if (!handled) return;
    if (onButton && (e.key === ' ' || e.key === 'Enter')) return;
    e.preventDefault();
  }
}
