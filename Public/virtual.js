// virtual.js — the list stays light at any depth: at most LIMITS.cap cards are in the document.
// The list is a run of batches (the page's own first batch, then one per fragment), each of cards and,
// where the server starts a continuation, a divider row before them. The batches around the viewport
// are in the document ("live", always one contiguous run); the others are parked, and the feed's own
// padding above and below the live rows stands for them. Cards and dividers have fixed heights, so the
// padding is exactly as tall as what it stands for, computed by CSS from its counts: it follows the
// heights at every width, and nothing moves when rows leave or come back, no row and no box (CLS 0).
// Spacer elements would move: one outside the feed moved the feed's own box, and one after the live
// rows moved its own top whenever rows came back above it, and Chromium counted both as layout shifts.
// A parked batch keeps its markup in memory (its cards as they were, avatar and history included)
// while it is among the LIMITS.markupRows parked rows nearest the reader; further away only its
// fragment URL is kept (the server's data-batch on its first card, else the URL that fetched it: found
// in the markup, never built here), and it is fetched again when the reader comes back. A batch
// without a URL (the page's own, from a server that names none) keeps its markup.
// Positions come from the server (aria-posinset, aria-setsize), so the feed pattern holds with a few
// cards in the document; the feed holds nothing else.
// Nothing here runs on every scroll frame: feed.js calls `update` on scroll.js's ticks.
import { CARD, CARDS_ADDED, CARDS_REMOVED, DIVIDER } from './cards.js';

export const LIMITS = Object.freeze({
  cap: 200,           // cards in the document at most
  behind: 1,          // viewports above the viewport whose cards are in the document
  ahead: 1.5,         // viewports below it
  keep: 3,            // viewports on either side within which a batch is not parked (hysteresis)
  upSeconds: 0.4,     // while scrolling up, also this much travel above (restoring runs on ticks)
  markupRows: 600,    // parked rows whose markup stays in memory; further ones are fetched again
  retryMs: 3000,      // a batch whose fetch failed is asked for again after this
});

/** The elements of `markup`, in order. */
export function parse(markup) {
  const tpl = document.createElement('template');
  tpl.innerHTML = markup;
  return Array.from(tpl.content.children);
}

/** Whether `el` is a row of the feed: a card, or a divider before the cards of a continuation. */
export function isRow(el) {
  return el.matches(CARD) || el.matches(DIVIDER);
}

// The fragment URL that fetches the batch of `nodes` again: its first card's data-batch.
function batchURL(nodes) {
  const card = nodes.find((el) => el.matches(CARD));
  return card && card.dataset.batch ? card.dataset.batch : null;
}

// A row's markup as it stands, without the requests of this document that it was waiting for: an
// avatar or a history still loading is asked for again when the card comes back.
function serialize(card) {
  card.querySelectorAll('.avatar[data-state="loading"]').forEach((avatar) => {
    delete avatar.dataset.state;
    avatar.querySelectorAll('img').forEach((img) => img.remove());
  });
  card.querySelectorAll('[data-stargazers][data-state="loading"]').forEach((region) => {
    delete region.dataset.state;
  });
  return card.outerHTML;
}

/** The fragment at `url` as text (the same request feed.js makes for the next batch). */
function fetchFragment(url) {
  return fetch(url, { credentials: 'same-origin', headers: { Accept: 'text/html' } }).then((response) => {
    if (!response.ok) throw new Error('status ' + response.status);
    return response.text();
  });
}

/** One batch: how many rows, and where its cards are: in the document, in memory, or only at `url`. */
class Batch {
  constructor(index, url, count, dividers = 0) {
    this.index = index;
    this.url = url;         // the fragment that fetches it again; null when none is known
    this.count = count;     // cards it holds (its share of the padding)
    this.dividers = dividers;
    this.cards = null;      // its elements (cards and divider) while live
    this.markup = null;     // its markup while parked in memory
    this.fetching = null;   // the request bringing its markup back
    this.failedAt = -Infinity;
  }

  get live() { return this.cards !== null; }
}

/**
 * The batches of one list, and the feed's padding standing for the parked ones.
 *
 * ```js
 * const list = new VirtualList(() => feedElement);
 * list.adopt(cardsAlreadyThere);           // the page's first batch
 * list.append(newCards, fragmentURL);      // each batch fetched later
 * list.update();                           // on scroll ticks: bring near batches in, park far ones
 * ```
 */
export class VirtualList {
  constructor(feed, { limits = LIMITS, load = fetchFragment, now = () => performance.now() } = {}) {
    this.feed = feed;       // () => the feed element (created with the first cards)
    this.limits = limits;
    this.load = load;
    this.now = now;
    this.batches = [];
    this.lo = 0;            // the live run: batches lo…hi (hi < lo while the list is empty)
    this.hi = -1;
    this.starts = [0];      // starts[i]: rows before batch i (recomputed when counts change)
    this.dividerStarts = [0];
    this.startsValid = true;
    this.owner = new WeakMap();   // card -> its batch
    this.markupRows = 0;    // rows parked in memory, the page's batch excepted
    this.queued = false;
    this.padding = '';      // the counts last written to the feed
    this.firstPosition = 1; // the aria-posinset of the list's first row (a shared link starts deeper)
  }

  // MARK: What the list holds

  /** Rows in the list, in the document or not. */
  get rows() {
    return this.start(this.batches.length);
  }

  /** Whether the list's last batch is in the document (where new batches are appended). */
  get endLive() {
    return this.hi === this.batches.length - 1;
  }

  /** Cards in the document (dividers not counted). */
  get liveCards() {
    let count = 0;
    for (let i = this.lo; i <= this.hi; i++) count += this.batches[i].count;
    return count;
  }

  /** Rows before batch `index`. */
  start(index) {
    if (!this.startsValid) {
      this.starts = [0];
      this.dividerStarts = [0];
      for (const batch of this.batches) {
        this.starts.push(this.starts[this.starts.length - 1] + batch.count);
        this.dividerStarts.push(this.dividerStarts[this.dividerStarts.length - 1] + batch.dividers);
      }
      this.startsValid = true;
    }
    return this.starts[index];
  }

  /** Dividers before batch `index`. */
  dividersBefore(index) {
    this.start(0);
    return this.dividerStarts[index];
  }

  /** The offset of batch `index`'s top from the list's top, in px of `view`. */
  offset(index, view) {
    return this.start(index) * view.rowHeight + this.dividersBefore(index) * view.dividerHeight;
  }

  /** The batch at `y` px from the list's top (the last one starting at or above it), clamped to the list. */
  batchAtOffset(y, view) {
    let low = 0;
    let high = this.batches.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.offset(middle, view) <= y) low = middle; else high = middle - 1;
    }
    return low;
  }

  /** The saved form of the list: [fragment URL (or null), rows, dividers] of every batch. */
  entries() {
    return this.batches.map((batch) => [batch.url, batch.count, batch.dividers]);
  }

  /** The last batch's cards while they are in the document, else none. */
  lastCards() {
    return this.endLive && this.hi >= 0 ? this.cardsOf(this.batches[this.hi]) : [];
  }

  // MARK: Growing

  /** The page's own first batch (its cards and divider), already in the document. */
  adopt(nodes) {
    if (!nodes.some((el) => el.matches(CARD))) return;
    const batch = this.push(batchURL(nodes), 0);
    const first = nodes.find((el) => el.matches(CARD));
    this.firstPosition = Number(first.getAttribute('aria-posinset')) || 1;
    this.setLive(batch, nodes);
    this.lo = 0;
    this.hi = 0;
  }

  /**
   * A new batch at the end of the list (its cards, after its divider if it has one), fetched from
   * `url`: into the document when the end is there, else parked (the reader is further up). Returns
   * whether it entered the document.
   */
  append(nodes, url) {
    if (!nodes.some((el) => el.matches(CARD))) return false;
    const endLive = this.endLive;
    const batch = this.push(batchURL(nodes) || url, 0);
    if (endLive) {
      const feed = this.feed();
      nodes.forEach((node) => feed.appendChild(node));
      this.setLive(batch, nodes);
      if (this.hi < this.lo) this.lo = batch.index;
      this.hi = batch.index;
      this.announce(CARDS_ADDED, this.cardsOf(batch));
    } else {
      this.count(batch, nodes);
      this.keepMarkup(batch, nodes.map(serialize).join(''));
    }
    this.sizeSpacers();
    return endLive;
  }

  /** Batches known only by their fragment URL and rows, after the ones there are: a list coming back. */
  extend(entries) {
    for (const [url, count, dividers] of entries) if (url && count > 0) this.push(url, count, dividers || 0);
    this.sizeSpacers();
  }

  push(url, count, dividers = 0) {
    const batch = new Batch(this.batches.length, url, count, dividers);
    this.batches.push(batch);
    this.startsValid = false;
    return batch;
  }

  count(batch, nodes) {
    batch.count = nodes.filter((el) => el.matches(CARD)).length;
    batch.dividers = nodes.length - batch.count;
    this.startsValid = false;
  }

  setLive(batch, nodes) {
    batch.cards = nodes;
    this.count(batch, nodes);
    for (const node of nodes) this.owner.set(node, batch);
  }

  cardsOf(batch) {
    return batch.cards.filter((el) => el.matches(CARD));
  }

  keepMarkup(batch, markup) {
    if (batch.markup === null && batch.url) this.markupRows += batch.count;
    batch.markup = markup;
  }

  dropMarkup(batch) {
    if (batch.markup !== null && batch.url) this.markupRows -= batch.count;
    batch.markup = null;
  }

  // MARK: Geometry

  /**
   * The viewport and the list's geometry in document coordinates (a row's and a divider's height with
   * the gap after them, the list's top), or null while no card is in the document.
   */
  view() {
    if (this.hi < this.lo) return null;
    const first = this.batches[this.lo].cards[0];
    const card = this.batches[this.lo].cards.find((el) => el.matches(CARD));
    const gap = parseFloat(getComputedStyle(this.feed()).rowGap) || 0;
    const rowHeight = card.getBoundingClientRect().height + gap;
    if (!(rowHeight > 0)) return null;
    const divider = this.feed().querySelector(DIVIDER);
    const dividerHeight = divider ? divider.getBoundingClientRect().height + gap : rowHeight;
    const view = { y: window.scrollY, height: window.innerHeight, rowHeight, dividerHeight, top: 0 };
    view.top = first.getBoundingClientRect().top + window.scrollY - this.offset(this.lo, view);
    return view;
  }

  /** The document offset of the card whose aria-posinset is `position`; null without a view. */
  positionTop(position) {
    return this.rowTop(Math.max(0, position - this.firstPosition));
  }

  /** The document offset of row `row` (from 0), dividers before its batch included; null without a view. */
  rowTop(row) {
    const view = this.view();
    if (!view) return null;
    let low = 0;
    let high = this.batches.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.start(middle) <= row) low = middle; else high = middle - 1;
    }
    const dividers = this.dividersBefore(low) + this.batches[low].dividers;
    return view.top + row * view.rowHeight + dividers * view.dividerHeight;
  }

  /** The batches from the one at `from` to the one at `to` (document offsets), clamped to the list. */
  range(view, from, to) {
    return [this.batchAtOffset(from - view.top, view), this.batchAtOffset(to - view.top, view)];
  }

  // The first live row at least partly on screen: what must not move when batches above it change.
  anchor() {
    const height = window.innerHeight;
    for (let i = this.lo; i <= this.hi; i++) {
      const cards = this.batches[i].cards;
      const last = cards[cards.length - 1].getBoundingClientRect();
      if (last.bottom <= 0) continue;
      if (cards[0].getBoundingClientRect().top >= height) return null;
      for (const card of cards) if (card.getBoundingClientRect().bottom > 0) return card;
    }
    return null;
  }

  // Runs `change`; if the card on screen moved (a batch above came back with another number of rows,
  // and the browser does not anchor scrolling), scrolls by as much, so that the reader sees no shift.
  anchored(change) {
    const anchor = this.anchor();
    const before = anchor ? anchor.getBoundingClientRect().top : 0;
    change();
    this.sizeSpacers();
    if (anchor && anchor.isConnected) {
      const moved = anchor.getBoundingClientRect().top - before;
      if (Math.abs(moved) >= 0.5) window.scrollBy(0, moved);
    }
  }

  // MARK: Parking and bringing back

  // The feed's padding: the rows and dividers parked above and below the live run (app.css turns them
  // into heights); data-above and data-below say how many rows, for whoever reads the page.
  sizeSpacers() {
    const feed = this.feed();
    if (!feed || this.hi < this.lo) return;
    const end = this.batches.length;
    const counts = [
      this.start(this.lo), this.dividersBefore(this.lo),
      this.rows - this.start(this.hi + 1), this.dividersBefore(end) - this.dividersBefore(this.hi + 1),
    ];
    const key = counts.join(' ');
    if (key === this.padding) return;
    this.padding = key;
    ['--above-rows', '--above-dividers', '--below-rows', '--below-dividers']
      .forEach((name, i) => feed.style.setProperty(name, String(counts[i])));
    feed.dataset.above = String(counts[0]);
    feed.dataset.below = String(counts[2]);
  }

  announce(type, cards) {
    document.dispatchEvent(new CustomEvent(type, { detail: { cards } }));
  }

  park(batch) {
    this.announce(CARDS_REMOVED, this.cardsOf(batch));
    this.keepMarkup(batch, batch.cards.map(serialize).join(''));
    batch.cards.forEach((node) => node.remove());
    batch.cards = null;
  }

  // The markup back as rows; a card that is on the page in another batch (the list moved upstream
  // between two fetches of a batch) is left out, and the batch's row count follows.
  unpark(batch) {
    const feed = this.feed();
    const nodes = parse(batch.markup).filter((el) => {
      if (el.matches(DIVIDER)) return true;
      if (!el.matches(CARD)) return false;
      return !feed.querySelector(CARD + '[data-repo-id="' + CSS.escape(el.dataset.repoId) + '"]');
    });
    if (batch.url) this.dropMarkup(batch); else batch.markup = null;
    this.setLive(batch, nodes);
    return nodes;
  }

  parkFirst() { this.park(this.batches[this.lo]); this.lo += 1; }

  parkLast() { this.park(this.batches[this.hi]); this.hi -= 1; }

  unparkFirst() {
    const batch = this.batches[this.lo - 1];
    const nodes = this.unpark(batch);
    const feed = this.feed();
    const first = feed.firstElementChild;
    nodes.forEach((node) => feed.insertBefore(node, first));
    this.lo -= 1;
    this.announce(CARDS_ADDED, this.cardsOf(batch));
  }

  unparkLast() {
    const batch = this.batches[this.hi + 1];
    const nodes = this.unpark(batch);
    const feed = this.feed();
    nodes.forEach((node) => feed.appendChild(node));
    this.hi += 1;
    this.announce(CARDS_ADDED, this.cardsOf(batch));
  }

  /** Whether batch `index` can come into the document now; if not, its markup is asked for. */
  ready(index) {
    const batch = this.batches[index];
    if (batch.live || batch.markup !== null) return true;
    if (!batch.fetching && batch.url && this.now() - batch.failedAt >= this.limits.retryMs) {
      batch.fetching = this.load(batch.url)
        .then((html) => {
          const nodes = parse(html).filter(isRow);
          if (!batch.live) this.keepMarkup(batch, nodes.map((node) => node.outerHTML).join(''));
        })
        .catch(() => { batch.failedAt = this.now(); })
        .finally(() => { batch.fetching = null; this.schedule(); });
    }
    return false;
  }

  /** The batch holding the focused element, or -1. */
  focused() {
    const active = document.activeElement;
    const card = active && active.closest ? active.closest(CARD) : null;
    const batch = card ? this.owner.get(card) : null;
    return batch && batch.live ? batch.index : -1;
  }

  // MARK: Keeping the document light

  /** One update at the next frame (after a fetch returns). */
  schedule() {
    if (this.queued) return;
    this.queued = true;
    requestAnimationFrame(() => { this.queued = false; this.update(); });
  }

  /**
   * Brings the batches near the viewport into the document and parks the far ones, at most
   * `limits.cap` cards staying. `upwards`: px/s the reader is scrolling up at.
   */
  update(upwards = 0) {
    const view = this.view();
    if (!view) return;
    const { y, height } = view;
    const limits = this.limits;
    const above = limits.behind * height + upwards * limits.upSeconds;
    const need = this.range(view, y - above, y + height * (1 + limits.ahead));
    const keep = this.range(view, y - limits.keep * height - above, y + height * (1 + limits.keep));
    this.bring(need);
    this.trim(keep, view);
    this.forgetFar(keep);
    this.sizeSpacers();
  }

  bring([first, last]) {
    if (last < this.lo - 1 || first > this.hi + 1) {
      this.jump(first, last);
      return;
    }
    let up = this.lo - 1 >= first && this.ready(this.lo - 1);
    let down = this.hi + 1 <= last && this.ready(this.hi + 1);
    for (let i = first; i <= last; i++) if (i < this.lo - 1 || i > this.hi + 1) this.ready(i);
    if (!up && !down) return;
    this.anchored(() => {
      while (up) {
        this.unparkFirst();
        up = this.lo - 1 >= first && this.ready(this.lo - 1);
      }
      while (down) {
        this.unparkLast();
        down = this.hi + 1 <= last && this.ready(this.hi + 1);
      }
    });
  }

  // The reader went far (the scrollbar, Home, End): once every batch there is ready, the live run
  // moves there at once. Focus on a card that leaves goes to the first card on screen.
  jump(first, last) {
    let ready = true;
    for (let i = first; i <= last; i++) ready = this.ready(i) && ready;
    if (!ready) return;
    const active = document.activeElement;
    const hadFocus = active && active !== document.body && this.feed().contains(active);
    while (this.hi >= this.lo) this.parkLast();
    this.lo = first;
    this.hi = first - 1;
    while (this.hi < last) this.unparkLast();
    this.sizeSpacers();
    if (hadFocus && !active.isConnected) {
      const card = this.anchor();
      if (card) card.focus({ preventScroll: true });
    }
  }

  // Parks the live batches outside `keep`, then the ones furthest from the viewport while more than
  // the cap of cards remain; never the batch holding focus.
  trim([first, last], view, brought = -1) {
    const focus = this.focused();
    // The focused batch, and one just brought beside it for a key, stay: the view may be a frame old
    // (Firefox scrolls to a focused card after its focus event).
    const stays = (index) => index === focus || index === brought;
    if (this.lo < first || this.hi > last || this.liveCards > this.limits.cap) {
      this.anchored(() => {
        while (this.lo < this.hi && this.lo < first && !stays(this.lo)) this.parkFirst();
        while (this.hi > this.lo && this.hi > last && !stays(this.hi)) this.parkLast();
        while (this.liveCards > this.limits.cap && this.lo < this.hi) {
          const topGap = view.y - (view.top + this.start(this.lo + 1) * view.rowHeight);
          const bottomGap = view.top + this.start(this.hi) * view.rowHeight - (view.y + view.height);
          if (topGap >= bottomGap && !stays(this.lo)) this.parkFirst();
          else if (!stays(this.hi)) this.parkLast();
          else if (!stays(this.lo)) this.parkFirst();
          else break;
        }
      });
    }
  }

  // Keeps the markup of the parked rows nearest the reader (the batches of `[first, last]`, around the
  // viewport, never lose theirs: they may be waiting for the others of a jump), up to
  // limits.markupRows; the others are fetched again by URL when needed. Measured from the viewport,
  // not from the live run: after a jump is asked for, the live run is still far from where the
  // reader is.
  forgetFar([first, last]) {
    let low = 0;
    let high = this.batches.length - 1;
    while (this.markupRows > this.limits.markupRows && (low < first || high > last)) {
      const upper = low < first ? first - low : -1;
      const lower = high > last ? high - last : -1;
      const batch = upper >= lower ? this.batches[low++] : this.batches[high--];
      if (batch.url && batch.markup !== null) this.dropMarkup(batch);
    }
  }

  /**
   * Brings the batch after (`step` 1) or before (-1) the live run into the document, fetching it
   * first if it must; resolves true once it is there. Keys use it to move past the live run.
   */
  async bringBeside(step) {
    for (let tries = 0; tries < 3; tries++) {
      const index = step > 0 ? this.hi + 1 : this.lo - 1;
      if (index < 0 || index >= this.batches.length) return false;
      if (this.ready(index)) {
        if (step > 0) this.anchored(() => this.unparkLast()); else this.anchored(() => this.unparkFirst());
        const view = this.view();
        if (view) this.trim(this.range(view, view.y - this.limits.keep * view.height, view.y + view.height * (1 + this.limits.keep)), view, index);
        this.sizeSpacers();
        return true;
      }
      const batch = this.batches[index];
      if (!batch.fetching) return false;
      await batch.fetching;
    }
    return false;
  }

  /**
   * Resolves once the batches around the viewport are in the document, after at most `rounds` rounds
   * of fetches; true when nothing was left missing.
   */
  async settle(rounds = 6) {
    for (let round = 0; round < rounds; round++) {
      this.update();
      const pending = this.batches.filter((batch) => batch.fetching).map((batch) => batch.fetching);
      if (!pending.length) return true;
      await Promise.all(pending);
    }
    return false;
  }
}
