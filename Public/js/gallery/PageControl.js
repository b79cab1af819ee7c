const MAX_DOTS = 10;

/** Dots for a few images, a compact "3 / 24" counter for many; a dot is a button that jumps to its image. */
export class PageControl {
  constructor(element, { onSelect }) {
    this.element = element;
    this.onSelect = onSelect;
    this.count = -1;
  }

  update(images, index) {
    if (images.length !== this.count) this.#build(images);
    if (images.length > MAX_DOTS) {
      this.element.querySelector('.counter').textContent = `${index + 1} / ${images.length}`;
      return;
    }
    this.element.querySelectorAll('button').forEach((dot, i) => {
      if (i === index) dot.setAttribute('aria-current', 'true');
      else dot.removeAttribute('aria-current');
    });
  }

  #build(images) {
    this.count = images.length;
    this.element.replaceChildren();
    if (images.length > MAX_DOTS) {
      const counter = document.createElement('span');
      counter.className = 'counter';
      counter.setAttribute('aria-live', 'polite');
      this.element.append(counter);
      return;
    }
    images.forEach((image, i) => {
      const dot = document.createElement('button');
      dot.type = 'button';
      dot.className = 'dot';
      dot.setAttribute('aria-label', `Image ${i + 1} of ${images.length}: ${image.title || image.id}`);
      dot.addEventListener('click', () => this.onSelect(i));
      this.element.append(dot);
    });
  }
}
