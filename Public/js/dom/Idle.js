/**
 * Work that can wait for the main thread to be idle: between frames, not in them. On a phone a tile's `fetch()` call
 * and its decode call (then `createImageBitmap`) cost the main thread a millisecond or more each (in a profile of
 * the gestures, half the samples in the long promise reactions were `fetch` itself), and they ran wherever the
 * previous tile's answer landed, often just before a frame was due. Here they run in `requestIdleCallback`'s slices,
 * in the order given, as many as fit (at least one a slice, so a page that is never idle still moves on, and after
 * `WAIT_MS` they run anyway). Where the browser has no `requestIdleCallback`, a zero-delay timer stands in.
 */
const WAIT_MS = 50; // the longest a job waits for an idle slice
const LEFT_MS = 2; // a slice with less left than this starts no further job

const jobs = [];
let scheduled = false;

const schedule = typeof requestIdleCallback === 'function'
  ? (run) => requestIdleCallback(run, { timeout: WAIT_MS })
  : (run) => setTimeout(() => run({ timeRemaining: () => 0 }), 0);

function drain(deadline) {
  scheduled = false;
  let ran = 0;
  while (jobs.length > 0 && (ran === 0 || deadline.timeRemaining() > LEFT_MS)) {
    const job = jobs.shift();
    ran++;
    try {
      job();
    } catch (error) {
      reportError(error);
    }
  }
  if (jobs.length > 0 && !scheduled) {
    scheduled = true;
    schedule(drain);
  }
}

/** Runs `job` in an idle slice, after the jobs queued before it. */
export function whenIdle(job) {
  jobs.push(job);
  if (!scheduled) {
    scheduled = true;
    schedule(drain);
  }
}

/** A promise of `make()`'s promise, made in an idle slice. */
export function idly(make) {
  return new Promise((resolve, reject) => whenIdle(() => {
    try {
      resolve(make());
    } catch (error) {
      reject(error);
    }
  }));
}
