const MAX_DOTS = 10;

/** Dots for a few images, a compact "3 / 24" counter for many; a dot is a button that jumps to its image. */
export class PageControl {
  constructor(element, { onSelect }) {
    this.element = element;
    this.onSelect = onSelect;
    this.count = -1;
  }

  update(count, index) {
    if (count !== this.count) this.#build(count);
    if (count > MAX_DOTS) {
      this.element.querySelector('.counter').textContent = `${index + 1} / ${count}`;
      return;
    }
    this.element.querySelectorAll('button').forEach((dot, i) => {
      if (i === index) dot.setAttribute('aria-current', 'true');
      else dot.removeAttribute('aria-current');
    });
  }

  #build(count) {
    this.count = count;
    this.element.replaceChildren();
    if (count > MAX_DOTS) {
      const counter = document.createElement('span');
      counter.className = 'counter';
      counter.setAttribute('aria-live', 'polite');
      this.element.append(counter);
      return;
    }
    // Labelled by position: the client holds only the three images around the current one.
    for (let i = 0; i < count; i += 1) {
      const dot = document.createElement('button');
      dot.type = 'button';
      dot.className = 'dot';
      dot.setAttribute('aria-label', `Image ${i + 1} of ${count}`);
      dot.addEventListener('click', () => this.onSelect(i));
      this.element.append(dot);
    }
  }
}
