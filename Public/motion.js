// motion.js — replays the stars bar and sparkline animations whenever a card scrolls into view.
// CSS keys the animations on .in-view; removing the class when a card leaves lets them play again.
// With prefers-reduced-motion the CSS turns the animations off, so this only toggles a class.
(function () {
  'use strict';

  var seen = new IntersectionObserver(function (entries) {
    for (var i = 0; i < entries.length; i++) {
      entries[i].target.classList.toggle('in-view', entries[i].isIntersecting);
    }
  }, { threshold: 0 });

  function watch(cards) {
    for (var i = 0; i < cards.length; i++) seen.observe(cards[i]);
  }

  watch(document.querySelectorAll('article[data-repo-id]'));
  document.addEventListener('reposcroll:cards', function (event) { watch(event.detail.cards); });
})();
