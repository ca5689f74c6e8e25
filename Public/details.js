// details.js — the second level of lazy loading: each card's star history and avatar fallback.
// A region is fetched when its card comes within about one viewport; at most MAX_IN_FLIGHT requests run
// at once so the next-page request never waits for a free connection (6 per host in Chromium).
(function () {
  'use strict';

  var MAX_IN_FLIGHT = 3;
  var queue = [];
  var inFlight = 0;
  var leaving = new AbortController();

  var near = new IntersectionObserver(function (entries) {
    for (var i = 0; i < entries.length; i++) {
      var region = entries[i].target;
      if (entries[i].isIntersecting) enqueue(region);
      else if (region.dataset.state === 'queued') dequeue(region);   // scrolled far away before its turn
    }
    pump();
  }, { rootMargin: '100% 0px 100% 0px' });

  function watch(root) {
    root.querySelectorAll('[data-stargazers]').forEach(function (region) {
      if (!region.dataset.state) near.observe(region);
    });
    root.querySelectorAll('.avatar img').forEach(function (img) {
      if (img.complete && img.naturalWidth === 0 && img.getAttribute('src')) fallback(img);
    });
  }

  function enqueue(region) {
    if (region.dataset.state) return;
    region.dataset.state = 'queued';
    queue.push(region);
  }

  function dequeue(region) {
    var index = queue.indexOf(region);
    if (index >= 0) queue.splice(index, 1);
    delete region.dataset.state;
  }

  function pump() {
    if (leaving.signal.aborted) return;
    while (inFlight < MAX_IN_FLIGHT && queue.length) fetchRegion(queue.shift());
  }

  function fetchRegion(region) {
    region.dataset.state = 'loading';
    inFlight += 1;
    fetch(region.dataset.stargazers, { signal: leaving.signal, credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (response) {
        if (!response.ok) throw new Error('status ' + response.status);
        return response.text();
      })
      .then(function (html) { fill(region, html); })
      .catch(function () {
        if (leaving.signal.aborted) { delete region.dataset.state; return; }
        fill(region, '<div class="history history-unavailable" data-state="unavailable" data-retry-in="30">' +
          '<p>Star history could not be loaded.</p></div>');
      })
      .finally(function () {
        inFlight -= 1;
        pump();
      });
  }

  function fill(region, html) {
    var tpl = document.createElement('template');
    tpl.innerHTML = html;
    region.replaceChildren(tpl.content);
    near.unobserve(region);
    region.dataset.state = 'done';
    var retry = region.querySelector('[data-retry-in]');
    if (retry) {
      var seconds = Math.max(5, parseInt(retry.dataset.retryIn, 10) || 30);
      setTimeout(function () {
        delete region.dataset.state;   // keep the old message until the new answer replaces it
        near.observe(region);
      }, seconds * 1000);
    }
    var card = region.closest('article');
    if (card) card.dispatchEvent(new CustomEvent('reposcroll:details', { bubbles: true }));
  }

  function fallback(img) {
    var avatar = img.closest('.avatar');
    if (avatar) avatar.classList.add('avatar-failed');
  }

  // Image errors do not bubble, so listen in the capture phase.
  document.addEventListener('error', function (event) {
    var target = event.target;
    if (target instanceof HTMLImageElement && target.closest('.avatar')) fallback(target);
  }, true);

  document.addEventListener('reposcroll:cards', function (event) {
    event.detail.cards.forEach(function (card) { watch(card); });
  });

  window.addEventListener('pagehide', function () { leaving.abort(); });
  window.addEventListener('pageshow', function (event) {
    if (!event.persisted) return;
    leaving = new AbortController();
    queue.forEach(function (region) { delete region.dataset.state; });
    queue = [];
    // Re-observing delivers a fresh intersection record for every region still waiting.
    document.querySelectorAll('[data-stargazers]').forEach(function (region) {
      if (region.dataset.state) return;
      near.unobserve(region);
      near.observe(region);
    });
  });

  watch(document);
})();
