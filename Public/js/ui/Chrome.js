/**
 * Builds a viewer's DOM inside the embedder's element: the pages, the bars (title and caption on top,
 * the page control, zoom controls and rating below), the side buttons, the navigator and the help
 * dialog. Every control is a labelled button; `gallery` adds the paging and rating parts.
 * Returns the parts by name.
 */
export function buildChrome(root, { gallery = false, rating = false, controls = true } = {}) {
  root.classList.add('tilescope');
  root.innerHTML = `
    <div class="pager" aria-live="off"></div>
    <p class="message" role="alert" hidden></p>
    <header class="chrome top"${controls ? "" : " hidden"}>
      <button type="button" class="help-button" aria-label="Keyboard shortcuts" aria-haspopup="dialog" title="Keyboard shortcuts (?)"><span aria-hidden="true">?</span></button>
      <div class="heading">
        <h1 class="title"></h1>
        <button type="button" class="caption-toggle" aria-expanded="false" hidden><span class="caption"></span></button>
      </div>
      <button type="button" class="sign-out" hidden></button>
      <button type="button" class="fullscreen" aria-label="Fullscreen" aria-pressed="false" title="Fullscreen (F)"><svg aria-hidden="true" viewBox="0 0 20 20" width="18" height="18" fill="none" stroke="currentColor" stroke-width="2"><path d="M2 7V2h5M13 2h5v5M18 13v5h-5M7 18H2v-5"/></svg></button>
    </header>
    <button type="button" class="chrome nav previous" aria-label="Previous image" title="Previous image (Page Up)">
      <span aria-hidden="true">‹</span>
    </button>
    <button type="button" class="chrome nav next" aria-label="Next image" title="Next image (Page Down)">
      <span aria-hidden="true">›</span>
    </button>
    <footer class="chrome bottom"${controls ? '' : ' hidden'}>
      <nav class="page-control" aria-label="Images"></nav>
      <div class="zoom-controls" role="group" aria-label="Zoom">
        <button type="button" class="zoom-out" aria-label="Zoom out" title="Zoom out (-)"><span aria-hidden="true">−</span></button>
        <button type="button" class="zoom-fit" aria-label="Fit to screen" title="Fit to screen (0)"><span aria-hidden="true">⤢</span></button>
        <button type="button" class="zoom-in" aria-label="Zoom in" title="Zoom in (+)"><span aria-hidden="true">+</span></button>
      </div>
      <div class="rating" role="group" aria-label="Rating" hidden>
        <span class="rating-label" aria-hidden="true">Rating</span>
        <button type="button" class="rating-minus"><span aria-hidden="true">−</span></button>
        <output class="rating-value" aria-live="polite"></output>
        <button type="button" class="rating-plus"><span aria-hidden="true">+</span></button>
        <span class="rating-average"></span>
        <p class="rating-error" role="alert" hidden></p>
      </div>
    </footer>
    <div class="navigator" role="group" aria-label="Navigator: drag the rectangle to move the view" hidden>
      <canvas class="navigator-image" aria-hidden="true"></canvas>
      <div class="navigator-rect" aria-hidden="true"></div>
    </div>
    <dialog class="help" aria-labelledby="help-title">
      <h2 id="help-title">Keyboard shortcuts</h2>
      <dl class="shortcuts"></dl>
      <form method="dialog"><button type="submit" class="help-close" aria-label="Close the shortcuts">Close</button></form>
    </dialog>`;
  const $ = (selector) => root.querySelector(selector);
  if (!gallery) root.classList.add('single');
  if (!rating) $('.rating').remove();
  return {
    root,
    pager: $('.pager'),
    message: $('.message'),
    top: $('.top'),
    title: $('.title'),
    captionToggle: $('.caption-toggle'),
    caption: $('.caption'),
    bottom: $('.bottom'),
    pageControl: $('.page-control'),
    previous: $('.nav.previous'),
    next: $('.nav.next'),
    zoomIn: $('.zoom-in'),
    zoomOut: $('.zoom-out'),
    zoomFit: $('.zoom-fit'),
    fullscreen: $('.fullscreen'),
    signOut: $('.sign-out'),
    helpButton: $('.help-button'),
    rating: $('.rating'),
    navigator: $('.navigator'),
    help: $('.help'),
  };
}
