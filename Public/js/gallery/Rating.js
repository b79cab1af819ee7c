import { putRating } from './Api.js';

const MIN = 0;
const MAX = 10;

/**
 * The rating stepper (0...10) of the classic image-rater app: the viewer's own rating, with everyone's
 * average and count beside it ("7 · avg 6.4 of 12"). Steps save through PUT /api/images/{id}/rating, the
 * browser's viewer cookie saying whose rating it is (the first save gets one; nothing here reads it).
 * Steps taken while a save is on its way are sent as one, the last value: the server budgets each
 * client's writes. A failure reverts to the saved value and says so plainly.
 */
export class Rating {
  constructor(element, { onSaved }) {
    this.element = element;
    this.onSaved = onSaved;
    this.minus = element.querySelector('.rating-minus');
    this.plus = element.querySelector('.rating-plus');
    this.valueLabel = element.querySelector('.rating-value');
    this.averageLabel = element.querySelector('.rating-average');
    this.error = element.querySelector('.rating-error');
    this.minus.addEventListener('click', () => this.step(-1));
    this.plus.addEventListener('click', () => this.step(+1));
    this.image = null;
    this.saved = null; // the value the server has
    this.shown = null; // the value on screen (may be on its way)
    this.saving = null; // the save on its way, if any
    this.next = null; // the value to send once it is done
    this.average = null;
    this.count = 0;
  }

  show(image) {
    this.image = image;
    this.saved = image?.rating ?? null;
    this.shown = this.saved;
    this.average = image?.ratingAverage ?? null;
    this.count = image?.ratingCount ?? 0;
    this.next = null;
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
    this.next = { image: this.image, value };
    if (!this.saving) this.saving = this.#drain();
  }

  /** Sends the latest stepped value until none is waiting. */
  async #drain() {
    while (this.next) {
      const { image, value } = this.next;
      this.next = null;
      await this.#save(image, value);
    }
    this.saving = null;
  }

  async #save(image, value) {
    try {
      const updated = await putRating(image.id, value);
      if (this.image?.id !== image.id) return;
      this.saved = updated.rating ?? value;
      this.average = updated.ratingAverage ?? null;
      this.count = updated.ratingCount ?? 0;
      this.#render();
      this.error.hidden = true;
      this.error.textContent = '';
      this.onSaved?.(updated);
    } catch (error) {
      if (this.image?.id !== image.id) return;
      this.next = null;
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
    if (this.averageLabel) {
      // Everyone's average to one decimal and how many ratings make it; nothing when nobody has rated.
      this.averageLabel.textContent = this.average === null || !this.count ? ''
        : `· avg ${(Math.round(this.average * 10) / 10).toString()} of ${this.count}`;
      this.averageLabel.dataset.average = this.average === null ? '' : String(this.average);
      this.averageLabel.dataset.count = String(this.count);
    }
    this.minus.disabled = !this.image || value === MIN;
    this.plus.disabled = !this.image || value === MAX;
    const title = this.image?.title || '';
    this.minus.setAttribute('aria-label', `Lower the rating of ${title}`);
    this.plus.setAttribute('aria-label', `Raise the rating of ${title}`);
  }
}
