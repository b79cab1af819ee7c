"""A per-frame probe for the page: `install(page)` before navigation, `sample(page, js)` to start recording
what `js` returns at every rendered frame, `samples(page)` to read them back.

A frame's sample is taken after every requestAnimationFrame callback of that frame (the client's animations and
layouts included) and after layout, just before paint: a ResizeObserver's callbacks come at that point of HTML's
"update the rendering". A dummy element changes width at every frame so that the observer fires at every frame.
A sample taken in an ordinary rAF callback could run before the client's own callback of the same frame and see
the state of the frame before; this one sees what is painted. Frames are counted, never timed."""

PROBE = """((sampler) => {
  const probe = window.__probe = { frames: 0, samples: [], sampler };
  const start = () => {
    const ticker = document.createElement('div');
    ticker.style.cssText = 'position:fixed;left:0;top:0;width:1px;height:1px;visibility:hidden;pointer-events:none';
    document.documentElement.append(ticker);
    new ResizeObserver(() => {
      probe.frames++;
      if (probe.sampler) probe.samples.push(probe.sampler());
    }).observe(ticker);
    const tick = () => {
      ticker.style.width = ticker.style.width === '1px' ? '2px' : '1px';
      requestAnimationFrame(tick);
    };
    requestAnimationFrame(tick);
  };
  // An init script runs before the document has its root element; the first frame comes after it.
  requestAnimationFrame(start);
})(%s)"""


def install(page, sampler_js='null'):
    """Adds the probe to every document the page loads from now on, sampling `sampler_js` (a function
    expression) from its first frame on, or nothing until `sample` says what."""
    page.add_init_script(PROBE % sampler_js)


def sample(page, sampler_js):
    """From the next frame on, records `sampler_js` (a function expression) at every frame; forgets earlier ones."""
    page.evaluate(f'() => {{ window.__probe.samples = []; window.__probe.sampler = {sampler_js}; }}')


def samples(page):
    return page.evaluate('() => window.__probe.samples')
