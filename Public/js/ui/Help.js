import { SHORTCUTS } from '../dom/Keyboard.js';

/** The `?` dialog that lists the keyboard shortcuts, filled from the same list the keys are handled by. */
export class Help {
  constructor(dialog) {
    this.dialog = dialog;
    const list = dialog.querySelector('.shortcuts');
    for (const { keys, does } of SHORTCUTS) {
      const term = document.createElement('dt');
      keys.forEach((key, i) => {
        const kbd = document.createElement('kbd');
        kbd.textContent = key;
        if (i > 0) term.append(' ');
        term.append(kbd);
      });
      const description = document.createElement('dd');
      description.textContent = does;
      list.append(term, description);
    }
  }

  get open() { return this.dialog.open; }

  show() {
    if (!this.dialog.open) this.dialog.showModal();
  }

  close() {
    if (this.dialog.open) this.dialog.close();
  }
}
