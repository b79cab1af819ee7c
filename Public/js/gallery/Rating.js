import { putRating } from './Api.js';

const MIN = 0;
const MAX = 10;

/**
 * The rating stepper (0...10) of the classic image-rater app. Each step saves through
 * PUT /api/images/{id}/rating; a failure reverts to the saved value and says so plainly.
 */
export class Rating {
  constructor(element, { onSaved }) {
    this.element = element;
    this.onSaved = onSaved;
    this.minus = element.querySelector('.rating-minus');
    this.plus = element.querySelector('.rating-plus');
    this.valueLabel = element.querySelector('.rating-value');
    this.error = element.querySelector('.rating-error');
    this.minus.addEventListener('click', () => this.step(-1));
    this.plus.addEventListener('click', () => this.step(+1));
    this.image = null;
    this.saved = null; // the value the server has
    this.shown = null; // the value on screen (may be on its way)
    this.queue = Promise.resolve();
  }

  show(image) {
    this.image = image;
    this.saved = image?.rating ?? null;
    this.shown = this.saved;
    this.error.textContent = '';
    this.error.hidden = true;
    this.#render();
  }

  step(delta) {
    if (!this.image) return;
    // Unrated: "+" starts at 1, "-" at 0.
    const base = this.shown ?? (delta > 0 ? 0 : 1);
    const value = Math.min(MAX, Math.max(MIN, base + delta));
    if (value === this.shown) return;
    this.shown = value;
    this.#render();
    const image = this.image;
    this.queue = this.queue.then(() => this.#save(image, value));
  }

  async #save(image, value) {
    try {
      const updated = await putRating(image.id, value);
      if (this.image?.id !== image.id) return;
      this.saved = updated.rating ?? value;
      this.error.hidden = true;
      this.error.textContent = '';
      this.onSaved?.(updated);
    } catch (error) {
      if (this.image?.id !== image.id) return;
      this.shown = this.saved;
      this.error.textContent = `Rating not saved: ${error.message}`;
      this.error.hidden = false;
      this.#render();
    }
  }

  #render() {
    const value = this.shown;
    this.element.hidden = !this.image;
    this.valueLabel.textContent = value === null ? 'Not rated' : `${value} / ${MAX}`;
    this.valueLabel.dataset.value = value === null ? '' : String(value);
    this.minus.disabled = !this.image || value === MIN;
    this.plus.disabled = !this.image || value === MAX;
    const title = this.image?.title || '';
    this.minus.setAttribute('aria-label', `Lower the rating of ${title}`);
    this.plus.setAttribute('aria-label', `Raise the rating of ${title}`);
  }
}
