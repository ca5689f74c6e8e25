// motion.js — replays the stars bar and sparkline animations whenever a card scrolls into view.
// CSS keys the animations on .in-view; removing the class when a card leaves lets them play again.
// With prefers-reduced-motion the CSS turns the animations off, so this only toggles a class.
import { onCards } from './cards.js';

const seen = new IntersectionObserver((entries) => {
  for (const entry of entries) entry.target.classList.toggle('in-view', entry.isIntersecting);
}, { threshold: 0 });

onCards((cards) => {
  for (const card of cards) seen.observe(card);
});
