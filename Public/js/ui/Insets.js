/**
 * The contentInset a viewer's scroll views get: the bars' real sizes where they cover the view (while they
 * are shown), and at least the screen's safe areas (`env(safe-area-inset-*)`, a phone's notch and home
 * indicator). Bars that would leave less than 40 % of the view for the image are not counted: they then
 * float over it, as on a very small embed.
 */
const MIN_AVAILABLE = 0.4;

export class Insets {
  constructor(root) {
    this.root = root;
    this.probe = document.createElement('div');
    this.probe.className = 'safe-area-probe';
    this.probe.setAttribute('aria-hidden', 'true');
    root.append(this.probe);
  }

  safeArea() {
    const style = getComputedStyle(this.probe);
    const px = (value) => Number.parseFloat(value) || 0;
    return { top: px(style.paddingTop), left: px(style.paddingLeft), bottom: px(style.paddingBottom), right: px(style.paddingRight) };
  }

  /** Insets in points for the root's current layout; `bars` are the elements that may cover it. */
  measure({ top, bottom }, barsShown) {
    const safe = this.safeArea();
    const box = this.root.getBoundingClientRect();
    const insets = { ...safe };
    if (!barsShown) return insets;
    const covering = (bar) => bar && !bar.hidden && getComputedStyle(bar).display !== 'none';
    const withBars = { ...safe };
    if (covering(top)) withBars.top = Math.max(safe.top, top.getBoundingClientRect().bottom - box.top);
    if (covering(bottom)) withBars.bottom = Math.max(safe.bottom, box.bottom - bottom.getBoundingClientRect().top);
    const available = box.height - withBars.top - withBars.bottom;
    return available >= box.height * MIN_AVAILABLE ? withBars : insets;
  }

  destroy() {
    this.probe.remove();
  }
}
