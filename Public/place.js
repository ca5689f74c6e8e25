// place.js — where the reader is in the list, kept in history.state, so that back and forward return
// to the same rows and the same card at the top, also when the browser did not keep the page.
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

/**
 * The place of one list, `{ rows, top, offset, y }`: how many cards it holds, the posinset of the card
 * at the top (below the sticky header), that card's top edge in the viewport, and scrollY.
 *
 * ```js
 * const place = new Place(() => feed.querySelectorAll('article'));
 * place.save();                         // history.state.reposcroll = { rows: 120, top: 94, offset: 12, y: 11800 }
 * place.scrollTo(place.saved());        // card #94 back 12 px below the header
 * ```
 */
export class Place {
  constructor(cards) {
    this.cards = cards;
    this.timer = 0;
    this.last = '';   // the place last written, so that an unchanged one is not written again
  }

  /** The place saved in this history entry, or null. */
  saved() {
    const state = history.state;
    return state && typeof state === 'object' && state.reposcroll ? state.reposcroll : null;
  }

  // The first card whose lower edge is below the (sticky) header, and how far its top is from the
  // viewport's top.
  topCard() {
    const header = document.querySelector('.site-header');
    const edge = header && getComputedStyle(header).position === 'sticky' ? header.getBoundingClientRect().bottom : 0;
    const cards = this.cards();
    const index = firstBelow(cards, edge + 1);
    if (index < 0) return null;
    const card = cards[index];
    return { position: Number(card.getAttribute('aria-posinset')), offset: Math.round(card.getBoundingClientRect().top) };
  }

  /**
   * Saves the place now (the entry's other state is kept), unless it is the one saved last: pagehide
   * and every stop save, and most of them find the place unchanged.
   */
  save() {
    clearTimeout(this.timer);
    this.timer = 0;
    const top = this.topCard();
    const list = {
      rows: this.cards().length, top: top ? top.position : 0, offset: top ? top.offset : 0, y: Math.round(window.scrollY),
    };
    const key = JSON.stringify(list);
    const current = this.saved();
    if (key === this.last && current && JSON.stringify(current) === key) return;
    this.last = key;
    const state = history.state && typeof history.state === 'object' ? { ...history.state } : {};
    state.reposcroll = list;
    try { history.replaceState(state, ''); } catch { /* throttled by the browser: the next save wins */ }
  }

  /** Saves soon: after an append, once the new cards have been laid out, rather than forcing it now. */
  saveSoon(save = () => this.save()) {
    if (!this.timer) this.timer = setTimeout(() => { this.timer = 0; save(); }, 250);
  }

  /** Puts the saved top card back where it was (or scrollY, when that card is not in the list). */
  scrollTo(saved, feed) {
    const card = feed && feed.querySelector(CARD + '[aria-posinset="' + saved.top + '"]');
    if (card) {
      window.scrollTo(0, Math.max(0, card.getBoundingClientRect().top + window.scrollY - saved.offset));
    } else {
      window.scrollTo(0, saved.y || 0);
    }
  }
}
