// cards.js — what the page modules share about the server's markup (Templates/README.md): the one
// definition of a card and the events the modules send each other.

/** A repository card of the feed (partials/card). */
export const CARD = 'article[data-repo-id]';

/** Sent on document after feed.js appends cards; detail: { cards: Element[] }. */
export const CARDS_ADDED = 'reposcroll:cards';

/** Sent from a card (bubbling) after details.js filled its star history. */
export const DETAILS_ADDED = 'reposcroll:details';

/** The cards below `root` (the whole document by default), in document order. */
export function cardsIn(root = document) {
  return root.querySelectorAll(CARD);
}

/** Calls `watch(cards)` for the cards on the page now and for every batch feed.js appends later. */
export function onCards(watch) {
  watch(cardsIn());
  document.addEventListener(CARDS_ADDED, (event) => watch(event.detail.cards));
}
