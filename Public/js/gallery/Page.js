import { ScrollView } from '../dom/ScrollView.js';
import { getImage } from './Api.js';

const POLL_INTERVAL = 1000;

/**
 * One of the carousel's three pages: a view that shows one image, reused for another image as the
 * carousel turns. A ready image gets a ScrollView; one still building shows its progress until ready.
 */
export class Page {
  constructor(parent, { onChange, onImageUpdate, scrollOptions = () => ({}) }) {
    this.element = document.createElement('div');
    this.element.className = 'page';
    this.view = document.createElement('div');
    this.view.className = 'view';
    this.status = document.createElement('div');
    this.status.className = 'status';
    this.status.setAttribute('role', 'status');
    this.element.append(this.view, this.status);
    parent.append(this.element);
    this.onChange = onChange;
    this.onImageUpdate = onImageUpdate;
    this.scrollOptions = scrollOptions;
    this.image = null;
    this.scrollView = null;
    this.poll = null;
    this.held = false;
  }

  /** A side page waits (asks for no tile) while the page on screen is not complete; see TileLayer.hold. */
  hold(held) {
    this.held = held;
    this.scrollView?.layer.hold(held);
  }

  /** Shows an image; `view` ({zoomScale, offsetX, offsetY}) is where a ready image starts (default: fit). */
  show(image, view = {}) {
    if (this.image && image && this.image.id === image.id && this.image.version === image.version
        && image.status === 'ready' && this.image.status === 'ready') return;
    this.#clear();
    this.image = image;
    this.element.dataset.imageId = image?.id ?? '';
    if (!image) return;
    if (image.status === 'ready') {
      this.status.hidden = true;
      this.scrollView = new ScrollView(this.view, image, { ...this.scrollOptions(), onChange: () => this.onChange?.(this),
                                                          initialView: view, held: this.held });
    } else {
      this.#showStatus(image);
    }
  }

  resize() {
    this.scrollView?.resize();
  }

  destroy() {
    this.#clear();
    this.element.remove();
  }

  #clear() {
    clearTimeout(this.poll);
    this.poll = null;
    this.scrollView?.destroy();
    this.scrollView = null;
    this.status.replaceChildren();
    this.status.hidden = true;
  }

  #showStatus(image) {
    this.status.hidden = false;
    const title = document.createElement('p');
    title.className = 'status-title';
    if (image.status === 'failed') {
      title.textContent = `This image could not be prepared: ${image.reason || 'unknown reason'}`;
      this.status.replaceChildren(title);
      return;
    }
    const progress = Math.round(image.progress ?? 0);
    title.textContent = `Preparing tiles… ${progress}%`;
    const bar = document.createElement('progress');
    bar.max = 100;
    bar.value = progress;
    bar.setAttribute('aria-label', `Preparing ${image.title || image.id}`);
    this.status.replaceChildren(title, bar);
    const id = image.id;
    this.poll = setTimeout(async () => {
      if (this.image?.id !== id) return;
      try {
        const fresh = await getImage(id);
        if (this.image?.id !== id) return;
        this.onImageUpdate?.(fresh);
        this.show(fresh);
        this.onChange?.(this);
      } catch (error) {
        title.textContent = `Could not check progress: ${error.message}`;
        this.poll = setTimeout(() => this.#showStatus(image), POLL_INTERVAL * 3);
      }
    }, POLL_INTERVAL);
  }
}
