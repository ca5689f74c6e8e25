// motion.js — plays each card's stars bar and sparkline animation once, when the card first comes into
// view: CSS keys the animations on .in-view. A revealed card is no longer watched, so the one observer
// only ever holds the cards still below (a card that toggled on every pass cost WebKit half its frame
// rate: a style change and new animations on each card crossing the edge, every frame).
// With prefers-reduced-motion the CSS turns the animations off, so this only adds a class.
import { onCards } from './cards.js';

/** Adds `.in-view` to each watched card the first time it intersects the viewport. */
export class Reveal {
  constructor(Observer = IntersectionObserver) {
    this.observer = new Observer((entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        entry.target.classList.add('in-view');
        this.observer.unobserve(entry.target);
      }
    });
  }

  watch(cards) {
    for (const card of cards) if (!card.classList.contains('in-view')) this.observer.observe(card);
  }

  /** Stops watching `cards` (taken out of the document). */
  forget(cards) {
    for (const card of cards) this.observer.unobserve(card);
  }
}

if (document.getElementById('results')) {
  const reveal = new Reveal();
  onCards((cards) => reveal.watch(cards), (cards) => reveal.forget(cards));
}
