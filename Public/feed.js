// feed.js — infinite scroll for the results feed (WAI-ARIA feed pattern).
// Loads the next batch as an HTML fragment before the reader reaches the end, one request at a time,
// and keeps working without it: the a[rel=next] trigger is a real link to the next full page.
// The document holds only the batches near the reader (virtual.js), so the page stays light at any
// depth. Back and forward return to the same row and the same card at the top, also when the browser
// did not keep the page: the place, each batch's fragment URL and the tail are saved (place.js), and
// only the batches around the saved row are fetched again.
// Every text it shows comes from the server: fragments, and the page's templates and data attributes;
// every URL it fetches was found in the server's markup.
// Nothing here runs on every scroll frame: the look-ahead, the live run and the saved place use
// scroll.js's ticks.
import { CARD, DIVIDER, cardsIn } from './cards.js';
import { Place, SavedPlaces } from './place.js';
import { scrolling } from './scroll.js';
import { VirtualList, isRow, parse } from './virtual.js';

const LIMITS = Object.freeze({
  // Silent retries of one cursor before the error row shows: once while nothing is on the page (the
  // reader is waiting for it), a few times further down (the rows above stay readable meanwhile).
  firstAutoRetries: 1,
  moreAutoRetries: 3,
  // Batches fetched at most to restore a list on back when only its length was saved (no batch list).
  restoreBatches: 60,
  // At speed the observer's margin is not enough: a batch of dense cards lasts about 0.4 s at
  // 6,000 px/s, the batches come one after the other (each names the next), and one that needs a new
  // GitHub window takes several times longer. While the reader scrolls down, the next batch is asked
  // for as soon as the end is less than this many seconds of travel away (2 s, then 3 s, left the
  // reader at the end for a frame at a window boundary at 6,000 px/s on a loaded machine).
  speedAheadSeconds: 5,
});

/** A server text with {name} placeholders, filled in. */
export function fillIn(text, values) {
  return (text || '').replace(/\{(\w+)\}/g, (whole, name) => (name in values ? values[name] : whole));
}

/** The feed of one results page: `new Feed(results).start()`. */
export class Feed {
  constructor(results) {
    this.results = results;
    this.tail = document.getElementById('feed-tail');
    this.feed = document.getElementById('feed');
    this.live = document.getElementById('feed-live');
    this.numbers = new Intl.NumberFormat('en');
    this.seen = new Set();
    this.request = null;       // the one page request in flight: { controller, pending }
    this.timers = { retry: 0 };
    this.attempts = 0;         // consecutive automatic retries of the same cursor
    this.restoring = false;
    this.place = new Place(() => this.cards());
    this.places = new SavedPlaces();
    this.saveTimer = 0;
    this.list = new VirtualList(() => this.feed);
    this.list.adopt(this.feed ? Array.from(this.feed.children).filter(isRow) : []);
    this.cards().forEach((card) => this.seen.add(card.dataset.repoId));
    this.tailMarkup = this.tail.innerHTML;   // what follows the last batch, as the server wrote it
    this.showRows();
    // Prefetch: the card marked data-prefetch sits a few cards before the end; the trigger link is
    // watched too, for short batches and tall screens. Both count as reached a viewport early (at rest
    // the first screen does not ask for a second batch); while scrolling fast, `onTick` asks sooner.
    this.prefetch = new IntersectionObserver((entries) => {
      for (const entry of entries) {
        if (entry.isIntersecting) { this.prefetch.unobserve(entry.target); this.loadNext(); }
      }
    }, { rootMargin: '0px 0px 100% 0px' });
    if (this.feed) this.listen(this.feed);
  }

  listen(feed) {
    feed.addEventListener('keydown', (event) => this.onKey(event));
    feed.addEventListener('focusin', (event) => this.onFocus(event));
  }

  // The list's length, for whoever reads the page (tests wait on it): the cards in the document are
  // only the ones near the reader.
  showRows() {
    this.results.dataset.rows = String(this.list.rows);
  }

  cards() {
    return this.feed ? cardsIn(this.feed) : [];
  }

  nextLink() {
    return this.tail.querySelector('a[rel="next"][data-fragment]');
  }

  loadNext() {
    const link = this.nextLink();
    return link ? this.load(link.dataset.fragment) : Promise.resolve(false);
  }

  armTriggers() {
    const link = this.nextLink();
    if (!link || !this.feed) return;
    const marked = this.list.lastCards().filter((card) => card.hasAttribute('data-prefetch'));
    if (marked.length) this.prefetch.observe(marked[marked.length - 1]);
    this.prefetch.observe(link);
  }

  /** A scroll tick: keep the batches near the reader in the document; ask early at speed; save at rest. */
  onTick(atRest) {
    this.list.update(atRest ? 0 : scrolling.speed.upwards());
    if (atRest) { this.save(); return; }
    this.aheadAtSpeed();
  }

  // While the reader scrolls down fast, the next batch as soon as the end is less than
  // LIMITS.speedAheadSeconds of travel away: on ticks, and right after a batch arrives (the cursors
  // chain, so every tick waited for is a tick less of margin). Right after a batch, `margin` px too:
  // the observer's own margin, which it would act on only after the next frame (an engine starved of
  // CPU paints seconds apart, and reads as at rest, holding a reader at the end meanwhile).
  aheadAtSpeed(margin = 0) {
    const ahead = Math.max(margin, scrolling.speed.downwards() * LIMITS.speedAheadSeconds);
    if (ahead > 0 && !this.request && !this.restoring && this.nextLink()) {
      const distance = this.tail.getBoundingClientRect().top - window.innerHeight;
      if (distance < ahead) this.loadNext();
    }
  }

  // MARK: Loading

  setBusy(busy) {
    if (this.feed) this.feed.setAttribute('aria-busy', busy ? 'true' : 'false');
  }

  showLoading() {
    const tpl = document.getElementById('tpl-loading');
    const state = this.tail.querySelector('.tail') || this.tail;
    const focused = this.tail.contains(document.activeElement);
    this.tail.querySelectorAll('.tail > *').forEach((node) => { node.hidden = true; });
    if (tpl && !this.tail.querySelector('.skeletons')) state.appendChild(tpl.content.cloneNode(true));
    if (focused) this.focusTail();
  }

  // Focus inside the tail (the next link, a Retry button) stays in the tail when its content changes,
  // instead of falling back to the top of the document.
  focusTail() {
    this.tail.setAttribute('tabindex', '-1');
    this.tail.focus({ preventScroll: true });
  }

  hideLoading() {
    this.tail.querySelectorAll('.skeletons').forEach((node) => node.remove());
    this.tail.querySelectorAll('.tail > [hidden]').forEach((node) => { node.hidden = false; });
  }

  /**
   * Fetches one batch; the promise resolves true when cards were added. The request asks for high
   * priority, and details.js keeps one of the browser's 6 connections free for it.
   */
  load(url) {
    if (this.request) return this.request.pending;
    if (!url) return Promise.resolve(false);
    clearTimeout(this.timers.retry);
    const controller = new AbortController();
    const signal = controller.signal;
    this.setBusy(true);
    this.showLoading();
    const pending = fetch(url, { signal, credentials: 'same-origin', priority: 'high', headers: { Accept: 'text/html' } })
      .then((response) => {
        if (!response.ok) {
          const error = new Error('status ' + response.status);
          error.status = response.status;
          error.retryIn = parseInt(response.headers.get('Retry-After') || '', 10);
          throw error;
        }
        return response.text();
      })
      .then((html) => {
        this.request = null;
        this.setBusy(false);
        return this.append(html, url);
      })
      .catch((error) => {
        this.request = null;
        this.setBusy(false);
        if (signal.aborted) { this.hideLoading(); return false; }
        this.failed(url, error);
        return false;
      });
    this.request = { controller, pending };
    return pending;
  }

  /** Leaving the page or searching again: no page request, no retry. */
  stop() {
    clearTimeout(this.timers.retry);
    if (this.request) this.request.controller.abort();
  }

  // The feed exists only around cards; a list that starts empty or failed gets it with its first cards.
  ensureFeed() {
    if (this.feed) return this.feed;
    const feed = document.createElement('div');
    feed.className = 'feed';
    feed.id = 'feed';
    feed.setAttribute('role', 'feed');
    feed.setAttribute('aria-busy', 'false');
    feed.setAttribute('aria-label', this.results.dataset.feedLabel || '');
    this.listen(feed);
    this.results.insertBefore(feed, this.results.querySelector('.results-end'));
    this.feed = feed;
    return feed;
  }

  /**
   * Appends a fragment's cards that are not on the page yet (fetched from `url`), after its divider if
   * it has one, and its tail; true when cards were added. The rows enter the document when the end of
   * the list is there, else they wait parked until the reader comes down to them.
   */
  append(html, url = null) {
    const tpl = document.createElement('template');
    tpl.innerHTML = html;
    const fragment = tpl.content;
    const added = [];
    const rows = [];
    Array.from(fragment.querySelectorAll(CARD + ', ' + DIVIDER)).forEach((row) => {
      row.remove();
      if (row.matches(DIVIDER)) { rows.push(row); return; }
      if (this.seen.has(row.dataset.repoId)) return;
      this.seen.add(row.dataset.repoId);
      added.push(row);
      rows.push(row);
    });
    if (added.length) {
      this.ensureFeed();
      this.list.append(rows, url);
      this.showRows();
    }
    const holder = document.createElement('div');
    holder.appendChild(fragment.cloneNode(true));
    this.tailMarkup = holder.innerHTML;
    this.replaceTail(fragment);
    if (added.length) {
      this.attempts = 0;
      this.announce(added.length, added[added.length - 1]);
      this.saveSoon();
    }
    this.afterTail();
    return added.length > 0;
  }

  // "20 more repositories loaded (40 of 1,000)": the words come from #feed-live's data attributes.
  announce(count, last) {
    if (!this.live || this.restoring) return;
    const loaded = this.list.rows;
    const total = last ? parseInt(last.getAttribute('aria-setsize'), 10) : loaded;
    const words = this.live.dataset;
    this.live.textContent = fillIn(count === 1 ? words.one : words.many, {
      count: String(count), loaded: this.numbers.format(loaded), total: this.numbers.format(Math.max(total, loaded)),
    });
  }

  // A server-rendered state in the tail may ask to be retried: transient errors with backoff, rate
  // limits once the reset time has passed.
  afterTail() {
    if (this.restoring) return;
    // A retried first batch comes back as a fragment, whose error row speaks of "more" repositories:
    // the row carries the words for an empty page too.
    const heading = this.list.rows ? null : this.tail.querySelector('.state-error [data-first-text]');
    if (heading) heading.textContent = heading.dataset.firstText;
    const limited = this.tail.querySelector('[data-retry-in]');
    const transient = this.tail.querySelector('[data-auto-retry]');
    if (limited) {
      this.schedule(limited.dataset.retryUrl, Math.max(1, parseInt(limited.dataset.retryIn, 10) || 1) * 1000 + 500);
    } else if (transient && this.attempts < this.autoRetries()) {
      this.schedule(transient.dataset.retryUrl, this.backoff());
    } else {
      if (!transient) this.attempts = 0;
      this.armTriggers();
      this.aheadAtSpeed(window.innerHeight);
    }
  }

  autoRetries() {
    return this.list.rows ? LIMITS.moreAutoRetries : LIMITS.firstAutoRetries;
  }

  backoff() {
    this.attempts += 1;
    return Math.min(16000, 1000 * Math.pow(2, this.attempts - 1)) + Math.floor(Math.random() * 250);
  }

  schedule(url, delay) {
    clearTimeout(this.timers.retry);
    this.timers.retry = setTimeout(() => this.load(url), delay);
  }

  failed(url, error) {
    if (error.retryIn > 0) {
      this.showError(url, error, error.retryIn);
      this.schedule(url, error.retryIn * 1000 + 500);
      return;
    }
    const transient = !error.status || error.status >= 500 || error.status === 429;
    if (transient && this.attempts < this.autoRetries()) {
      this.schedule(url, this.backoff());   // skeletons stay while waiting
      return;
    }
    this.showError(url, error, 0);
  }

  // The error row from template#tpl-error; its reason span holds the server's words for each failure.
  showError(url, error, retryIn) {
    const tpl = document.getElementById('tpl-error');
    if (!tpl) return;
    const row = tpl.content.cloneNode(true);
    const heading = row.querySelector('[data-first-text]');
    if (heading && !this.list.rows) heading.textContent = heading.dataset.firstText;
    const reason = row.querySelector('.state-reason');
    if (reason) {
      const words = reason.dataset;
      const limited = error.status === 429 || error.status === 403;
      let text = !error.status ? words.network : limited ? words.limited : words.status;
      if (retryIn > 0) text += ' ' + words.retrying;
      reason.textContent = fillIn(text, { status: String(error.status), seconds: String(retryIn) });
    }
    const button = row.querySelector('[data-retry]');
    if (button) button.dataset.retry = url;
    const state = document.createElement('div');
    state.className = 'tail';
    state.appendChild(row);
    this.replaceTail(state);
  }

  // The tail is swapped for a new element rather than refilled: a new node is not a layout shift,
  // whereas the old one being pushed down by the appended cards would be.
  replaceTail(content) {
    const focused = this.tail.contains(document.activeElement);
    const fresh = this.tail.cloneNode(false);
    fresh.appendChild(content);
    this.tail.replaceWith(fresh);
    this.tail = fresh;
    if (focused) this.focusTail();
  }

  /** Retry buttons and the next link in the tail. */
  onClick(event) {
    const target = event.target instanceof Element && this.tail.contains(event.target) ? event.target : null;
    const retry = target && target.closest('[data-retry]');
    if (retry) {
      this.attempts = 0;
      this.load(retry.dataset.retry);
      return;
    }
    const next = target && target.closest('a[rel="next"][data-fragment]');
    if (next && !event.ctrlKey && !event.metaKey && !event.shiftKey && event.button === 0) {
      event.preventDefault();
      this.load(next.dataset.fragment);
    }
  }

  // MARK: Keys (feed pattern)
  // Page Down / Page Up: next / previous article. Ctrl+End / Ctrl+Home: the first focusable element
  // after / before the feed.

  onKey(event) {
    const card = event.target instanceof Element ? event.target.closest(CARD) : null;
    if (!card) return;
    if (event.ctrlKey && (event.key === 'End' || event.key === 'Home')) {
      event.preventDefault();
      this.focusOutside(event.key === 'End');
      return;
    }
    if (event.key !== 'PageDown' && event.key !== 'PageUp') return;
    const down = event.key === 'PageDown';
    const sibling = beside(card, down);
    if (sibling) {
      event.preventDefault();
      sibling.focus();
      if (down && !beside(sibling, true) && this.list.endLive) this.loadNext();
      return;
    }
    // At the edge of the cards in the document: the batch beside comes back first.
    if (!(down ? this.list.hi + 1 < this.list.batches.length : this.list.lo > 0)) return;
    event.preventDefault();
    this.list.bringBeside(down ? 1 : -1).then((brought) => {
      const next = brought && card.isConnected && beside(card, down);
      if (next) next.focus();
    });
  }

  // A card focused at the edge of the cards in the document (Tab, a screen reader's cursor): the
  // batch beside it comes back now, so that the next Tab still lands in the list.
  onFocus(event) {
    const card = event.target instanceof Element ? event.target.closest(CARD) : null;
    if (!card) return;
    const cards = this.cards();
    const index = Array.prototype.indexOf.call(cards, card);
    if (index < 0) return;
    if (index >= cards.length - 3 && !this.list.endLive) this.list.bringBeside(1);
    else if (index < 3 && this.list.lo > 0) this.list.bringBeside(-1);
  }

  focusOutside(after) {
    const feed = this.feed;
    const focusable = Array.from(
      document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])'))
      .filter((el) => !feed.contains(el) && !el.disabled && el.getClientRects().length > 0);
    let target = null;
    for (const candidate of focusable) {
      const position = feed.compareDocumentPosition(candidate);
      if (after && (position & Node.DOCUMENT_POSITION_FOLLOWING)) { target = candidate; break; }
      if (!after && (position & Node.DOCUMENT_POSITION_PRECEDING)) target = candidate;
    }
    if (!target && after) { this.focusTail(); return; }   // the end is loading: the tail itself
    if (!target) target = document.getElementById('q');
    if (target) target.focus();
  }

  // MARK: Back and forward

  /** The place and the list now (the place in history.state too: never from pagehide). */
  save() {
    clearTimeout(this.saveTimer);
    this.saveTimer = 0;
    if (this.restoring) return;
    this.places.saveList(this.list.entries(), this.tailMarkup);
    const here = this.place.read();
    this.places.save({ rows: this.list.rows, top: here ? here.top : 0, offset: here ? here.offset : 0,
      y: here ? here.y : Math.round(window.scrollY) });
  }

  /** Saves soon: after an append, once the new cards have been laid out, rather than forcing it now. */
  saveSoon() {
    if (!this.saveTimer) this.saveTimer = setTimeout(() => this.save(), 250);
  }

  // Leaving: storage only. WebKit without its page cache applies a history.replaceState made in
  // pagehide to the entry being navigated to, and that entry then comes back with a null state.
  leave() {
    this.stop();
    if (this.restoring) return;
    clearTimeout(this.saveTimer);
    this.saveTimer = 0;
    this.places.saveList(this.list.entries(), this.tailMarkup);
    const here = this.place.read();
    if (here) this.places.place = { rows: this.list.rows, top: here.top, offset: here.offset, y: here.y };
    this.places.store();
  }

  // Puts the saved list back: the batches as spacers (fetched again only near the saved row), the
  // saved tail, and the saved card where it was.
  restore(saved) {
    this.restoring = true;
    document.documentElement.classList.add('restoring');
    this.places.resume(saved);
    const done = () => {
      this.restoring = false;
      document.documentElement.classList.remove('restoring');
      this.place.scrollTo(saved, this.feed, this.list);
      this.save();
      this.afterTail();
    };
    if (saved.batches && saved.batches.length > 1 && saved.tail !== null && this.list.rows > 0) {
      // The page's own first batch is here already; the others come back by their fragment URLs.
      this.list.extend(saved.batches.slice(1));
      this.showRows();
      this.tailMarkup = saved.tail;
      this.replaceTail(parse(saved.tail).reduce((fragment, node) => { fragment.appendChild(node); return fragment; },
        document.createDocumentFragment()));
      this.place.scrollTo(saved, this.feed, this.list);
      return this.list.settle().then(done, done);
    }
    // Only the length was saved: batch after batch until it is back (a bounded number of them).
    let batches = 0;
    const step = () => {
      if (this.list.rows >= saved.rows || batches >= LIMITS.restoreBatches || !this.nextLink()) return Promise.resolve();
      batches += 1;
      return this.loadNext().then((added) => (added ? step() : undefined));
    };
    return step().then(() => {
      this.place.scrollTo(saved, this.feed, this.list);
      return this.list.settle();
    }).then(done, done);
  }

  /** Wires the page's events and starts: restores the saved list on back/forward, else arms the triggers. */
  start() {
    document.addEventListener('click', (event) => this.onClick(event));
    scrolling.onTick((atRest) => this.onTick(atRest));
    // Leaving the page (or entering the back/forward cache) aborts the page request; no unload handler.
    window.addEventListener('pagehide', () => this.leave());
    // A page from the back/forward cache: Chromium and Firefox show it where it was left, but WebKit
    // applies scrollRestoration = 'manual' to it too and shows its top. The place last read goes back
    // (a no-op where the browser kept the offset).
    window.addEventListener('pageshow', (event) => {
      if (!event.persisted) return;
      const place = this.places.place;
      if (place && place.rows > 0) this.place.scrollTo(place, this.feed, this.list);
      this.list.update();
      this.afterTail();
    });
    const form = document.querySelector('form.search');
    if (form) form.addEventListener('submit', () => this.stop());
    this.setBusy(false);
    const entries = performance.getEntriesByType ? performance.getEntriesByType('navigation') : [];
    const saved = entries.length && entries[0].type === 'back_forward' ? this.places.read() : null;
    if (saved && saved.rows > 0) {
      this.restore(saved);
    } else {
      // A reload or a new visit starts at the first batch, at the top, under a new key.
      this.places.begin();
      this.afterTail();
    }
  }
}

/** The card after (`down`) or before `card` in the document, past a divider; null at the edge. */
function beside(card, down) {
  let el = down ? card.nextElementSibling : card.previousElementSibling;
  while (el && !el.matches(CARD)) el = el.matches(DIVIDER) ? (down ? el.nextElementSibling : el.previousElementSibling) : null;
  return el;
}

// A new sort or order applies at once, for a query already given; the Search button stays for
// readers without JavaScript (and for a new query).
function applySortAtOnce(form) {
  if (!form) return;
  form.addEventListener('change', (event) => {
    const menu = event.target;
    if (!(menu instanceof HTMLSelectElement) || !form.elements.q || !form.elements.q.value.trim()) return;
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  });
}

// MARK: Wiring

if ('scrollRestoration' in history) history.scrollRestoration = 'manual';
document.documentElement.classList.add('js');
const results = document.getElementById('results');
if (results && document.getElementById('feed-tail')) new Feed(results).start();
applySortAtOnce(document.querySelector('form.search'));
