// place.js — where the reader is in the list, kept so that back and forward return to the same row
// and the same card at the top, also when the browser did not keep the page.
// Two homes, because one is not enough:
// - history.state holds the entry's key and its place (rows, top card, its offset): exact per entry
//   in every engine, but WebKit without its page cache hands back null when a page wrote it during
//   pagehide (it applies that write to the entry being navigated to), so nothing here writes it then;
// - sessionStorage holds, under that key, the place and what is needed to jump back deep without
//   replaying the list: each batch's fragment URL and row count, and the tail's markup. It survives
//   what history.state may not, and the key of the last entry for each URL finds it when
//   history.state comes back empty.
import { CARD } from './cards.js';

/**
 * The index of the first of `cards` (in document order) whose lower edge is below `edge` px from the
 * viewport's top, or -1: a binary search, so a long list costs a few layout reads.
 */
export function firstBelow(cards, edge) {
  let low = 0;
  let high = cards.length;
  while (low < high) {
    const middle = (low + high) >> 1;
    if (cards[middle].getBoundingClientRect().bottom > edge) high = middle; else low = middle + 1;
  }
  return low < cards.length ? low : -1;
}

/** The lower edge of the header where it covers the top of the viewport (pinned), else 0. */
export function headerEdge() {
  const header = document.querySelector('.site-header');
  return header ? Math.max(0, header.getBoundingClientRect().bottom) : 0;
}

/**
 * The place of one list on screen: the posinset of the card at the top (below the header, when it
 * covers the viewport) and that card's top edge in the viewport.
 *
 * ```js
 * const place = new Place(() => feed.querySelectorAll('article'));
 * const here = place.read();             // { top: 94, offset: 12, y: 11800 }
 * place.scrollTo(here, feed, list);      // card #94 back 12 px below the viewport's top
 * ```
 */
export class Place {
  constructor(cards) {
    this.cards = cards;
  }

  /** The place now, or null while no card is in the document. */
  read() {
    const cards = this.cards();
    const index = firstBelow(cards, headerEdge() + 1);
    if (index < 0) return null;
    const card = cards[index];
    return {
      top: Number(card.getAttribute('aria-posinset')), offset: Math.round(card.getBoundingClientRect().top),
      y: Math.round(window.scrollY),
    };
  }

  /**
   * Puts card `saved.top` back `saved.offset` px below the viewport's top; while that card is not in
   * the document, puts its row there by arithmetic (`list.positionTop`), else scrollY.
   */
  scrollTo(saved, feed, list = null) {
    const card = feed && feed.querySelector(CARD + '[aria-posinset="' + saved.top + '"]');
    if (card) {
      window.scrollTo(0, Math.max(0, card.getBoundingClientRect().top + window.scrollY - saved.offset));
      return;
    }
    // By position, not by row: a list opened from a shared link starts deep (its first card is not #1).
    const row = list && saved.top > 0 ? list.positionTop(saved.top) : null;
    window.scrollTo(0, Math.max(0, row !== null ? row - saved.offset : saved.y || 0));
  }
}

const PREFIX = 'reposcroll:';
const INDEX = PREFIX + 'index';   // [[key, url], …], most recent last
const KEPT = 40;                   // lists kept; the oldest go first (also when storage is full)

/** A new key for one history entry's list. */
function newKey() {
  return Date.now().toString(36) + Math.random().toString(36).slice(2, 8);
}

function readJSON(storage, name) {
  try {
    const text = storage && storage.getItem(name);
    return text ? JSON.parse(text) : null;
  } catch {
    return null;
  }
}

/**
 * The saved places of this tab's history entries.
 *
 * ```js
 * const places = new SavedPlaces();
 * const saved = places.read();           // this entry's { key, rows, top, offset, y, batches, tail } or null
 * places.begin();                        // a new visit: a new key, nothing saved yet
 * places.save({ rows: 120, top: 94, offset: 12, y: 11800 });     // at rest: history.state and storage
 * places.saveList([[null, 20], ['/fragments/results?…', 20]], tailMarkup);
 * places.store();                        // pagehide: storage only
 * ```
 */
export class SavedPlaces {
  constructor(storage = SavedPlaces.session(), url = () => location.href) {
    this.storage = storage;
    this.url = url;
    this.key = '';
    this.place = null;       // the last place given to `save`
    this.list = null;        // the last list given to `saveList`
    this.written = { place: '', list: '', state: '' };
  }

  /** sessionStorage, or null where it cannot be used (some private modes throw on access). */
  static session() {
    try {
      const storage = window.sessionStorage;
      storage.getItem(INDEX);
      return storage;
    } catch {
      return null;
    }
  }

  /**
   * This entry's saved place, or null: by the key in history.state, else by the last key saved for
   * this URL (history.state came back empty), else the place in history.state alone.
   */
  read() {
    const state = history.state && typeof history.state === 'object' ? history.state.reposcroll : null;
    let key = state && typeof state.key === 'string' ? state.key : '';
    if (!key) {
      const index = readJSON(this.storage, INDEX) || [];
      const here = this.url();
      for (let i = index.length - 1; i >= 0; i--) if (index[i][1] === here) { key = index[i][0]; break; }
    }
    const place = key ? readJSON(this.storage, PREFIX + 'place:' + key) : null;
    const chosen = place || (state && state.rows > 0 ? state : null);
    if (!chosen) return null;
    const list = key ? readJSON(this.storage, PREFIX + 'list:' + key) : null;
    this.key = key || newKey();
    return {
      key: this.key, rows: chosen.rows || 0, top: chosen.top || 0, offset: chosen.offset || 0, y: chosen.y || 0,
      batches: list && Array.isArray(list.batches) ? list.batches : null, tail: list ? list.tail : null,
    };
  }

  /** A new visit (or a reload): a new key in history.state and for this URL, and nothing saved under it. */
  begin() {
    this.key = newKey();
    this.place = null;
    this.list = null;
    this.written = { place: '', list: '', state: '' };
    this.writeState({ key: this.key });
    this.remember();
  }

  /** Goes on with the key `read` found (a restored entry). */
  resume(saved) {
    this.key = saved.key;
    this.place = { rows: saved.rows, top: saved.top, offset: saved.offset, y: saved.y };
    this.written.state = '';
    this.remember();
  }

  /** Saves the place in history.state and storage. Never call it from pagehide (see the top). */
  save(place) {
    this.place = place;
    this.writeState({ key: this.key, ...place });
    this.store();
  }

  /** Keeps the list's batches and tail for the next `save` or `store`. */
  saveList(batches, tail) {
    this.list = { batches, tail };
  }

  /** Writes what changed to storage only: safe in pagehide. */
  store() {
    if (!this.storage || !this.key) return;
    if (this.place) {
      const text = JSON.stringify(this.place);
      if (text !== this.written.place && this.write(PREFIX + 'place:' + this.key, text)) this.written.place = text;
    }
    if (this.list) {
      const text = JSON.stringify(this.list);
      if (text !== this.written.list && this.write(PREFIX + 'list:' + this.key, text)) this.written.list = text;
    }
  }

  writeState(entry) {
    const text = JSON.stringify(entry);
    if (text === this.written.state) return;
    const state = history.state && typeof history.state === 'object' ? { ...history.state } : {};
    state.reposcroll = entry;
    try {
      history.replaceState(state, '');
      this.written.state = text;
    } catch {
      // Throttled by the browser: the next save writes it.
    }
  }

  // Puts this key last in the index for this URL (the one `read` falls back to), dropping the oldest.
  remember() {
    if (!this.storage) return;
    const here = this.url();
    const index = (readJSON(this.storage, INDEX) || []).filter((entry) => entry[0] !== this.key);
    index.push([this.key, here]);
    while (index.length > KEPT) this.forget(index.shift()[0]);
    this.write(INDEX, JSON.stringify(index));
  }

  forget(key) {
    try {
      this.storage.removeItem(PREFIX + 'place:' + key);
      this.storage.removeItem(PREFIX + 'list:' + key);
    } catch {
      // Nothing to do: storage is unusable.
    }
  }

  // Writes one item; when storage is full, forgets the oldest lists (never this one) and tries again.
  write(name, text) {
    for (let attempt = 0; attempt < 4; attempt++) {
      try {
        this.storage.setItem(name, text);
        return true;
      } catch {
        const index = readJSON(this.storage, INDEX) || [];
        const oldest = index.findIndex((entry) => entry[0] !== this.key);
        if (oldest < 0) return false;
        this.forget(index[oldest][0]);
        index.splice(oldest, 1);
        try { this.storage.setItem(INDEX, JSON.stringify(index)); } catch { /* retried below */ }
      }
    }
    return false;
  }
}
