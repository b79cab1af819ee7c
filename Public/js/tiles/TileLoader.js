import { idly, whenIdle } from '../dom/Idle.js';
import { TileCache } from './TileCache.js';
import { knownTileAccept, tileAccept } from './TileFormat.js';
import { bytesOf, takePrefetched } from './EarlyPreview.js';

/**
 * Fetches tiles in the order the view wants them, at most `concurrency` downloads at a time (a slot frees when
 * the bytes are in, so the network does not wait for decodes), each cancellable.
 *
 * `fetch` with an AbortController, then the bytes handed to an image element (`decodedImage`), instead of
 * `img.src` from the tile's URL: removing an image's `src` does not always stop its download, an aborted fetch
 * does. Tiles that are wanted but not started yet wait here, not in the browser's queue, so a view that moves on
 * before they start never requests them at all.
 *
 * The JPEG bytes of every fetched tile are kept (bounded in bytes, least recently used out): a tile that comes
 * back into view after its decoded pixels were evicted is decoded again from them, without a request. They are
 * about 25 times smaller than the decoded pixels, so they outlast them by far.
 *
 * A request starts, and a tile's bytes go to the decoder, in the main thread's idle time (`dom/Idle.js`), one
 * job at a time: on a phone both calls were the loader's largest cost in the main thread's long promise reactions
 * during gestures.
 */
export const DEFAULT_BLOB_BYTES = 48 * 1024 * 1024;

/**
 * A tile's bytes (a Blob, or the `blob:` URL they are kept under, `keptBytes`) as an image element, decoded before it
 * is put on the page (`decode()`, off the main thread). An
 * image element, not an `ImageBitmap` in a canvas: each canvas was composited as a layer of its own, and during a
 * fling every frame's commit carried 56-85 of them; images are painted into their parent's one layer (benchmarks.md,
 * "Tiles as images").
 */
export function decodedImage(source) {
  const image = new Image();
  image.alt = '';
  const own = typeof source !== 'string';
  const url = own ? URL.createObjectURL(source) : source;
  image.src = url;
  const decoded = image.decode().then(() => image);
  // Loaded, the element holds the bytes itself; a URL of its own, left, would keep the blob for the page's life.
  return own ? decoded.finally(() => URL.revokeObjectURL(url)) : decoded;
}

/**
 * A kept tile's bytes under one `blob:` URL for as long as they are kept (`forget` revokes it), so that a tile shown
 * again is its first image's URL again. Why: Chromium 156 keeps about its bytes in the renderer for every image it
 * loads from a URL of its own, after the element, the URL and collections are gone (31 KB an image of a 31 KB JPEG,
 * 94 MB for 3,000), while images of a URL it has loaded before add nothing (benchmarks.md, "What holds the
 * renderer's memory").
 */
function keptBytes(key, blob) {
  return { key, blob, bytes: blob.size, url: URL.createObjectURL(blob) };
}

function forget(kept) {
  URL.revokeObjectURL(kept.url);
}

/**
 * Lets an image's pixels go now, not when the element is collected. An empty `src`, not no `src`: each image whose
 * `src` was removed left 6 DOM nodes in Chromium, still there after two collections (500 images released so left
 * 3,000 nodes; a 5-minute gallery session, 39,770).
 */
export function releaseImage(image) {
  image.src = '';
}

/**
 * How many tiles may download at once over a connection speaking `protocol` (a Resource Timing `nextHopProtocol`).
 * HTTP/1.1: six, the browser's connections to a host; more would only wait in its queue, where a tile the view no
 * longer wants is still asked for. HTTP/2 and 3 carry every request on one connection, each answer a round trip
 * after its request: six at a time make a view of forty small tiles wait seven round trips, sixteen three
 * (benchmarks.md, "Behind an HTTP/2 front").
 */
export function downloadsAtOnce(protocol) {
  return /^h[23]/.test(protocol ?? '') ? 16 : 6;
}

/**
 * The protocol the page's latest tile came over: a new loader (the gallery's next page) starts with it, before its
 * own first tile names its own, and a page whose buffer of Resource Timing entries is full keeps what it learned.
 */
let latestProtocol;

/** The protocol a fetched URL's bytes came over, from its Resource Timing entry; undefined when it is not there. */
function protocolOf(url) {
  const entries = performance.getEntriesByName(url, 'resource');
  return entries.length > 0 ? entries[entries.length - 1].nextHopProtocol || undefined : undefined;
}

export class TileLoader {
  /**
   * `concurrency`: downloads at a time; by default `downloadsAtOnce` of the protocol the page's latest tile came over,
   * then of this loader's own first tile's.
   */
  constructor({ concurrency, onLoad, onError, blobBytes = DEFAULT_BLOB_BYTES } = {}) {
    this.concurrency = concurrency ?? downloadsAtOnce(latestProtocol);
    this.protocolUnknown = concurrency === undefined; // until a tile's Resource Timing names its protocol
    this.blobs = new TileCache(blobBytes); // key -> { key, blob, bytes }
    this.requests = 0; // network requests started, for the curious and the benchmark
    this.onLoad = onLoad; // (tile descriptor, decoded image element)
    this.onError = onError; // (tile descriptor, error)
    this.queue = []; // descriptors wanted and not started, first wanted first
    this.inFlight = new Map(); // key -> { tile, controller, downloading }: downloading or decoding
    this.pumping = false; // an idle job to start the next tile is queued
  }

  /** Requests whose bytes are still on their way: what `concurrency` bounds (a decode does not hold a slot). */
  get downloading() {
    let count = 0;
    for (const request of this.inFlight.values()) if (request.downloading) count++;
    return count;
  }

  /** Keys of the tiles on their way or waiting to start. */
  get pendingKeys() {
    return [...this.inFlight.keys(), ...this.queue.map((t) => t.key)];
  }

  /** The tiles on their way (downloading or decoding), not those waiting to start. */
  get startedTiles() {
    return [...this.inFlight.values()].map((request) => request.tile);
  }

  isPending(key) {
    return this.inFlight.has(key) || this.queue.some((t) => t.key === key);
  }

  /**
   * The tiles wanted now, first wanted first (each `{key, url, ...}`); replaces the previous wish. Requests on
   * their way that are no longer wanted are aborted; the wanted ones start as slots free up.
   */
  want(tiles) {
    const keys = new Set(tiles.map((t) => t.key));
    for (const [key, request] of this.inFlight) {
      if (!keys.has(key)) this.#abort(key, request);
    }
    this.queue = tiles.filter((t) => !this.inFlight.has(t.key));
    this.#pump();
  }

  /** Starts nothing more; those on their way come on (aborted, their bytes would be fetched again). */
  keepStarted() {
    this.want(this.startedTiles);
  }

  /** Aborts everything: the layer goes away. */
  abortAll() {
    for (const [key, request] of this.inFlight) this.#abort(key, request);
    this.queue = [];
  }

  #abort(key, request) {
    request.controller.abort();
    this.inFlight.delete(key);
  }

  /** Starts the next wanted tiles as slots are free, one an idle job (each job then asks for the next). */
  #pump() {
    if (this.pumping) return;
    this.pumping = true;
    whenIdle(() => {
      this.pumping = false;
      if (this.downloading >= this.concurrency || this.queue.length === 0) return;
      this.#start(this.queue.shift());
      this.#pump();
    });
  }

  /** Starts a tile (from the network, or from its kept bytes). Its slot frees once its bytes are in, before the decode. */
  #start(tile) {
    const controller = new AbortController();
    const kept = this.blobs.get(tile.key);
    const request = { tile, controller, downloading: !kept };
    this.inFlight.set(tile.key, request);
    const current = () => this.inFlight.get(tile.key) === request;
    const body = kept ? Promise.resolve(kept) : this.#fetch(tile, controller.signal).finally(() => {
      request.downloading = false;
      this.#pump();
    });
    body
      .then((bytes) => idly(() => (current() ? this.#decoded(bytes) : null)))
      .then((image) => {
        if (image === null) return; // cancelled before its decode started
        if (!current()) { releaseImage(image); return; } // cancelled while decoding
        this.inFlight.delete(tile.key);
        this.onLoad?.(tile, image);
      })
      .catch((error) => {
        if (controller.signal.aborted || !current()) return; // cancelled on purpose
        this.inFlight.delete(tile.key);
        this.onError?.(tile, error);
      })
      .finally(() => this.#pump());
  }

  #fetch(tile, signal) {
    return this.#answer(tile, signal)
      .then(([url, blob]) => {
        if (this.protocolUnknown) this.#learnProtocol(url);
        const before = this.blobs.peek(tile.key);
        if (before) forget(before);
        const kept = keptBytes(tile.key, blob);
        this.blobs.set(tile.key, kept);
        this.blobs.trim(() => false, forget);
        return kept;
      });
  }

  /** The tile's answer, `[url, blob]`: the one `prefetch` asked for (EarlyPreview.js), else a request of this loader's. */
  #answer(tile, signal) {
    const prefetched = takePrefetched(tile.url);
    if (prefetched) return prefetched;
    this.requests++;
    const start = (accept) => fetch(tile.url, accept ? { signal, headers: { Accept: accept } } : { signal });
    const known = knownTileAccept(); // known once `tileFormats()` has answered, as it has for any tile URL it made
    return (known === undefined ? tileAccept().then(start) : start(known)).then(bytesOf(tile.url));
  }

  /** Sets `concurrency` for the protocol `url` came over (its entry is written once its body is in). */
  #learnProtocol(url) {
    const protocol = protocolOf(url);
    if (protocol === undefined) return;
    latestProtocol = protocol;
    this.protocolUnknown = false;
    this.concurrency = downloadsAtOnce(protocol);
  }

  /** The kept bytes decoded under their URL, or under one of their own once they are let go (the URL revoked). */
  #decoded(bytes) {
    if (this.blobs.peek(bytes.key) !== bytes) return decodedImage(bytes.blob);
    return decodedImage(bytes.url).catch((error) => {
      if (this.blobs.peek(bytes.key) === bytes) throw error;
      return decodedImage(bytes.blob); // let go while it loaded
    });
  }

  /** Lets every kept tile's bytes go. */
  forgetBytes() {
    this.blobs.clear(forget);
  }
}
