/**
 * A small event emitter: the scroll view's delegate. `on(name, fn)` returns a function that removes
 * the listener; a listener that throws is reported and does not stop the others.
 */
export class Emitter {
  #listeners = new Map();

  on(name, fn) {
    if (!this.#listeners.has(name)) this.#listeners.set(name, new Set());
    this.#listeners.get(name).add(fn);
    return () => this.off(name, fn);
  }

  off(name, fn) {
    this.#listeners.get(name)?.delete(fn);
  }

  emit(name, detail = {}) {
    for (const fn of [...(this.#listeners.get(name) ?? [])]) {
      try { fn({ type: name, ...detail }); } catch (error) { reportError(error); }
    }
  }

  clear() {
    this.#listeners.clear();
  }
}
