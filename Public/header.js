// header.js — the header slides away while the reader scrolls down and comes back on the first
// scroll up, at every width (a phone gets its header's height back for the list).
// Scrolling down, the header is in the flow: it leaves with the page, and scrolled frames have no
// pinned layer to repaint (a sticky header cost WebKit a quarter of its frame rate). Scrolling up, it
// is pinned on top and slides in; scrolling down again, it slides out, then goes back in the flow
// where it is out of sight. Focusing anything in it, or pressing "/", brings it back (and "/" puts
// the cursor in the search box). With reduced motion it appears and goes without sliding (app.css
// turns transitions off; the states change at once).
// Without JavaScript the header is sticky on desktops and in the flow on phones (app.css).
import { scrolling } from './scroll.js';

/** Px of travel upwards that bring the header back, and downwards that send it away. */
export const TRAVEL = Object.freeze({ up: 6, down: 12 });

/**
 * Ms after which a slide out counts as done without its `transitionend`: twice app.css's 0.2 s. No
 * transition runs when the styles of `shown` were never computed before `hiding` (pinned and sent
 * away within one frame) or when the engine drops it, and the header must not stay `hiding`.
 */
export const HIDE_FALLBACK_MS = 400;

/**
 * The sliding header's states, in `data-header`: `flow` (in the flow: at the top of the page, or
 * scrolled away with it), `shown` (pinned on top), `hiding` (pinned, sliding out), `hidden` (pinned
 * and out of sight, until it can go back in the flow unseen).
 *
 * ```js
 * const header = new SlidingHeader(document.querySelector('.site-header'));
 * header.scrolled(window.scrollY);   // on every scroll event: arithmetic, and a class change now and then
 * header.show();                     // focus, "/"
 * ```
 */
export class SlidingHeader {
  constructor(element, { reducedMotion = () => matchMedia('(prefers-reduced-motion: reduce)').matches } = {}) {
    this.element = element;
    this.reducedMotion = reducedMotion;
    this.height = element.offsetHeight;
    this.lastY = window.scrollY;
    this.travel = 0;          // px moved in the current direction (+ down, - up)
    this.focused = false;
    this.keepAt = -1;         // the page's offset to hold while focus comes into the header
    this.hideTimer = 0;
    this.set('flow');
    const slidOut = (event) => {
      if (event.target === element && event.propertyName === 'transform' && this.state === 'hiding') this.hidden();
    };
    element.addEventListener('transitionend', slidOut);
    element.addEventListener('transitioncancel', slidOut);
    element.addEventListener('focusin', () => this.focusedIn());
    element.addEventListener('focusout', (event) => {
      this.focused = event.relatedTarget instanceof Node && element.contains(event.relatedTarget);
    });
  }

  set(state) {
    this.state = state;
    this.element.dataset.header = state;
  }

  // Focus came into the header (Tab, Shift+Tab, a click, a script). Away in the flow, the header's
  // controls sit at the top of the document, and the browser scrolls there to show the one focused
  // (Chromium before focusin, others after it): the reader would lose their place in the list. The
  // header is pinned at once instead (no slide: one still sliding in would read as out of view), and
  // the page goes back to where it was, now or at the next scroll event.
  focusedIn() {
    this.focused = true;
    const y = this.lastY;   // where the page was: the scroll event for a focus scroll has not come yet
    if (this.state === 'shown' || y <= this.height) return;
    this.show(false, y);
    this.keepAt = y;
    if (window.scrollY !== y) window.scrollTo(0, y);
    // WebKit scrolls at a later rendering update (a slow one, rendering in software): held for three
    // frames and half a second.
    requestAnimationFrame(() => requestAnimationFrame(() => requestAnimationFrame(() => {
      setTimeout(() => { this.keepAt = -1; }, 500);
    })));
  }

  /** A scroll event at `y`. */
  scrolled(y) {
    if (this.keepAt >= 0 && y !== this.keepAt && this.focused) {
      window.scrollTo(0, this.keepAt);
      return;
    }
    const delta = y - this.lastY;
    this.lastY = y;
    if (delta > 0) this.travel = Math.max(0, this.travel) + delta;
    else if (delta < 0) this.travel = Math.min(0, this.travel) + delta;
    const away = y > this.height;   // the header's place in the flow is out of sight
    if (this.travel <= -TRAVEL.up && this.state !== 'shown' && (away || this.state !== 'flow')) this.show();
    else if (this.travel >= TRAVEL.down && away && this.state === 'shown' && !this.focused) this.hide();
    else if (this.state === 'hidden' && away) this.set('flow');
    else if (this.state === 'shown' && y <= 0 && !this.focused) this.set('flow');   // pinned at 0 is in place
  }

  /**
   * Pins the header on top, sliding it in (`slide` false, or with reduced motion: at once), for the
   * page at `y` (where it is, unless a focus scroll just moved it).
   */
  show(slide = true, y = window.scrollY) {
    if (this.state === 'shown') return;
    if (this.state === 'flow' && y <= 0) return;   // in place already
    const element = this.element;
    if (this.state === 'flow' && y > this.height && slide) {
      // Out of sight: pinned out of sight first, with no transition and styled so, then slid in.
      element.classList.add('header-entering');
      this.set('hidden');
      void element.offsetHeight;
      element.classList.remove('header-entering');
      this.set('shown');
      return;
    }
    if (!slide) element.classList.add('header-entering');
    this.set('shown');
    if (!slide) {
      void element.offsetHeight;
      element.classList.remove('header-entering');
    }
  }

  /** Slides the header out (at once with reduced motion); it goes back in the flow where unseen. */
  hide() {
    if (this.state !== 'shown') return;
    this.set('hiding');
    if (this.reducedMotion()) { this.hidden(); return; }
    clearTimeout(this.hideTimer);
    this.hideTimer = setTimeout(() => { if (this.state === 'hiding') this.hidden(); }, HIDE_FALLBACK_MS);
  }

  hidden() {
    clearTimeout(this.hideTimer);
    this.set(window.scrollY > this.height ? 'flow' : 'hidden');
  }

  /** Re-measures the header (its height changes with the width and its notices). */
  measure() {
    this.height = this.element.offsetHeight;
    document.documentElement.style.setProperty('--header-h', this.height + 'px');
  }
}

// "/" outside a text field: the header comes back with the cursor in the search box.
function typingIn(target) {
  return target instanceof Element && (target.closest('input, textarea, select, [contenteditable]') !== null);
}

const element = document.querySelector('.site-header');
if (element) {
  const header = new SlidingHeader(element);
  header.measure();
  new ResizeObserver(() => header.measure()).observe(element);
  scrolling.onScroll((y) => header.scrolled(y));
  document.addEventListener('keydown', (event) => {
    if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey || typingIn(event.target)) return;
    const field = document.getElementById('q');
    if (!field) return;
    event.preventDefault();
    header.show();
    field.focus({ preventScroll: true });
    field.select();
  });
}
