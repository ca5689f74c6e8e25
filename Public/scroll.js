// scroll.js — the one scroll-speed estimator, and the one scroll listener the page modules share.
// The listener does as little as a frame allows: it reads scrollY (no layout) and does arithmetic
// (its `onScroll` callbacks too).
// Work that reads layout or writes the DOM runs in ticks instead: at most one every TICK_MS while the
// reader scrolls, and one more once the reader has come to rest.

/**
 * Downward scrolling speed, measured over windows of at least `windowMs`: under load scroll events
 * bunch up, and two a few ms apart would read as a burst of speed. The clock is injected for tests.
 *
 * ```js
 * const speed = new ScrollSpeed(() => performance.now());
 * speed.record(window.scrollY);   // on every scroll event
 * speed.downwards();              // px/s, 0 upwards and at rest
 * speed.upwards();                // px/s, 0 downwards and at rest
 * ```
 */
export class ScrollSpeed {
  constructor(now = () => performance.now(), { windowMs = 100, restMs = 250 } = {}) {
    this.now = now;
    this.windowMs = windowMs;
    this.restMs = restMs;
    this.value = 0;                         // px/s over the last window, + downwards
    this.sample = { y: 0, at: -Infinity };  // where the current measurement started, and when
    this.lastAt = -Infinity;                // the last recorded position's time
    this.lastY = 0;                         // and that position
  }

  /**
   * Records the scroll position `y` (px from the top) at the clock's now. The first position after
   * a gap longer than `restMs` measures over the gap when the gap is under `4 × restMs`: a browser
   * that paints a few frames a second (WebKitGTK in software on a loaded machine) sends one scroll
   * event per frame, far apart, and the reader is not at rest; a reader setting off again moves a few
   * px over the gap, which reads as about 0. After a longer gap a new measurement starts at 0.
   */
  record(y) {
    const now = this.now();
    const gap = now - this.lastAt;
    if (gap > this.restMs) {
      this.value = gap < 4 * this.restMs ? ((y - this.lastY) * 1000) / gap : 0;
      this.sample = { y, at: now };
    } else if (now - this.sample.at >= this.windowMs) {
      this.value = ((y - this.sample.y) * 1000) / (now - this.sample.at);
      this.sample = { y, at: now };
    }
    this.lastAt = now;
    this.lastY = y;
  }

  /** True when no position was recorded for longer than `restMs`. */
  atRest() {
    return this.now() - this.lastAt > this.restMs;
  }

  /** Px per second downwards over the last window; 0 while scrolling up and at rest. */
  downwards() {
    return this.atRest() ? 0 : Math.max(0, this.value);
  }

  /** Px per second upwards over the last window; 0 while scrolling down and at rest. */
  upwards() {
    return this.atRest() ? 0 : Math.max(0, -this.value);
  }
}

/**
 * One passive scroll listener feeding a `ScrollSpeed`, and ticks for the modules' scroll work:
 * `onTick(fn)` calls `fn(atRest)` at most every `tickMs` while scrolling, and once with `true` when the
 * reader has stopped.
 */
export class ScrollTicks {
  constructor(target = window, speed = new ScrollSpeed(), tickMs = 100) {
    this.speed = speed;
    this.tickMs = tickMs;
    this.listeners = [];
    this.events = [];
    this.timers = { tick: 0, rest: 0 };
    target.addEventListener('scroll', () => {
      const y = window.scrollY;
      speed.record(y);
      for (const fn of this.events) fn(y);
      if (!this.timers.tick) this.timers.tick = setTimeout(() => this.tick(), tickMs);
    }, { passive: true });
  }

  /** Calls `fn(atRest)` on every tick from now on. */
  onTick(fn) {
    this.listeners.push(fn);
  }

  /**
   * Calls `fn(scrollY)` on every scroll event from now on. It runs in every scrolled frame: arithmetic
   * only, no layout read, and a DOM write only when something changes (header.js's state).
   */
  onScroll(fn) {
    this.events.push(fn);
  }

  tick() {
    this.timers.tick = 0;
    this.emit(false);
    clearTimeout(this.timers.rest);
    this.timers.rest = setTimeout(() => this.rest(), this.speed.restMs + 10);
  }

  rest() {
    this.timers.rest = 0;
    if (this.timers.tick) return;   // still scrolling: the next tick sets a new rest check
    if (this.speed.atRest()) this.emit(true);
    else this.timers.rest = setTimeout(() => this.rest(), this.speed.restMs);
  }

  emit(atRest) {
    for (const fn of this.listeners) fn(atRest);
  }
}

/** The page's one instance. */
export const scrolling = new ScrollTicks();
