// cards.js — what the page modules share about the server's markup (Templates/README.md): the one
// definition of a card and the events the modules send each other.

/** A repository card of the feed (partials/card). */
export const CARD = 'article[data-repo-id]';

/**
 * The divider row the server puts before the first card of a continuation (partials/cards): it goes
 * into the feed with the cards of its batch, and that card names it in aria-describedby.
 */
export const DIVIDER = '[data-divider]';

/**
 * Sent on document after cards enter the document: appended by feed.js, or brought back by virtual.js
 * when the reader returns to them; detail: { cards: Element[] }.
 */
export const CARDS_ADDED = 'reposcroll:cards';

/** Sent on document just before virtual.js takes cards out of the document; detail: { cards: Element[] }. */
export const CARDS_REMOVED = 'reposcroll:cards-removed';

/** Sent from a card (bubbling) after details.js filled its star history. */
export const DETAILS_ADDED = 'reposcroll:details';

/** The cards below `root` (the whole document by default), in document order. */
export function cardsIn(root = document) {
  return root.querySelectorAll(CARD);
}

/**
 * Calls `watch(cards)` for the cards on the page now and for every batch that enters it later, and
 * `forget(cards)` for those taken out.
 */
export function onCards(watch, forget = () => {}) {
  watch(cardsIn());
  document.addEventListener(CARDS_ADDED, (event) => watch(event.detail.cards));
  document.addEventListener(CARDS_REMOVED, (event) => forget(event.detail.cards));
}
