// feed.js — infinite scroll for the results feed (WAI-ARIA feed pattern).
// Loads the next batch as an HTML fragment before the reader reaches the end, one request at a time,
// and keeps working without it: the a[rel=next] trigger is a real link to the next full page.
// Back and forward return to the same rows and the same card at the top, also when the browser did
// not keep the page: the list's length and top card are saved in history.state as the reader scrolls.
(function () {
  'use strict';

  if ('scrollRestoration' in history) history.scrollRestoration = 'manual';
  document.documentElement.classList.add('js');

  var results = document.getElementById('results');
  var tail = document.getElementById('feed-tail');
  if (!results || !tail) return;
  var feed = document.getElementById('feed');
  var live = document.getElementById('feed-live');
  var numbers = new Intl.NumberFormat('en');
  // Silent retries of one cursor before the error row shows: once while nothing is on the page (the
  // reader is waiting for it), a few times further down (the rows above stay readable meanwhile).
  var FIRST_AUTO_RETRIES = 1;
  var MORE_AUTO_RETRIES = 3;
  // Batches fetched at most to restore a list on back (1000 rows / 20 per batch, and a margin).
  var MAX_RESTORE_BATCHES = 60;

  var seen = new Set();
  var controller = null;   // the one page request in flight
  var pending = null;      // its promise (resolves true when cards were added)
  var retryTimer = 0;
  var saveTimer = 0;
  var attempts = 0;        // consecutive automatic retries of the same cursor
  var restoring = false;

  cards().forEach(function (card) { seen.add(card.dataset.repoId); });

  function cards() { return feed ? feed.querySelectorAll('article[data-repo-id]') : []; }

  // Prefetch: the card marked data-prefetch sits a few cards before the end; the trigger link is watched
  // too, for short batches and tall screens.
  var prefetch = new IntersectionObserver(function (entries) {
    for (var i = 0; i < entries.length; i++) {
      if (entries[i].isIntersecting) { prefetch.unobserve(entries[i].target); loadNext(); }
    }
  }, { rootMargin: '0px 0px 75% 0px' });

  function armTriggers() {
    var link = nextLink();
    if (!link || !feed) return;
    var marked = feed.querySelectorAll('article[data-prefetch]');
    if (marked.length) prefetch.observe(marked[marked.length - 1]);
    prefetch.observe(link);
  }

  function nextLink() { return tail.querySelector('a[rel="next"][data-fragment]'); }

  function loadNext() {
    var link = nextLink();
    return link ? load(link.dataset.fragment) : Promise.resolve(false);
  }

  function setBusy(busy) {
    if (feed) feed.setAttribute('aria-busy', busy ? 'true' : 'false');
    document.dispatchEvent(new CustomEvent('reposcroll:loading', { detail: { busy: busy } }));
  }

  function showLoading() {
    var tpl = document.getElementById('tpl-loading');
    var state = tail.querySelector('.tail') || tail;
    tail.querySelectorAll('.tail > *').forEach(function (node) { node.hidden = true; });
    if (tpl && !tail.querySelector('.skeletons')) state.appendChild(tpl.content.cloneNode(true));
  }

  function hideLoading() {
    tail.querySelectorAll('.skeletons').forEach(function (node) { node.remove(); });
    tail.querySelectorAll('.tail > [hidden]').forEach(function (node) { node.hidden = false; });
  }

  // Fetches one batch; the promise resolves true when cards were added. The request asks for high
  // priority, and details.js starts nothing new while it is pending.
  function load(url) {
    if (controller) return pending;
    if (!url) return Promise.resolve(false);
    clearTimeout(retryTimer);
    controller = new AbortController();
    var signal = controller.signal;
    setBusy(true);
    showLoading();
    pending = fetch(url, {
      signal: signal, credentials: 'same-origin', priority: 'high', headers: { Accept: 'text/html' },
    })
      .then(function (response) {
        if (!response.ok) {
          var error = new Error(response.status === 429 || response.status === 403
            ? 'GitHub’s rate limit was reached.' : 'The server answered ' + response.status + '.');
          error.status = response.status;
          error.retryIn = parseInt(response.headers.get('Retry-After') || '', 10);
          throw error;
        }
        return response.text();
      })
      .then(function (html) {
        controller = null;
        setBusy(false);
        return append(html);
      })
      .catch(function (error) {
        controller = null;
        setBusy(false);
        if (signal.aborted) { hideLoading(); return false; }
        failed(url, error);
        return false;
      });
    return pending;
  }

  // The feed exists only around cards; a list that starts empty or failed gets it with its first cards.
  function ensureFeed() {
    if (feed) return feed;
    feed = document.createElement('div');
    feed.className = 'feed';
    feed.id = 'feed';
    feed.setAttribute('role', 'feed');
    feed.setAttribute('aria-busy', 'false');
    feed.setAttribute('aria-label', results.dataset.feedLabel || 'Results');
    feed.addEventListener('keydown', onFeedKey);
    results.insertBefore(feed, results.querySelector('.results-end'));
    return feed;
  }

  function append(html) {
    var tpl = document.createElement('template');
    tpl.innerHTML = html;
    var fragment = tpl.content;
    var fresh = document.createDocumentFragment();
    var added = [];
    fragment.querySelectorAll('article[data-repo-id]').forEach(function (card) {
      card.remove();
      if (seen.has(card.dataset.repoId)) return;
      seen.add(card.dataset.repoId);
      fresh.appendChild(card);
      added.push(card);
    });
    if (added.length) ensureFeed().appendChild(fresh);
    replaceTail(fragment);
    if (added.length) {
      attempts = 0;
      announce(added.length);
      document.dispatchEvent(new CustomEvent('reposcroll:cards', { detail: { cards: added } }));
      scheduleSave();
    }
    afterTail();
    return added.length > 0;
  }

  function announce(count) {
    if (!live || restoring) return;
    var all = cards();
    var loaded = all.length;
    var last = all[loaded - 1];
    var total = last ? parseInt(last.getAttribute('aria-setsize'), 10) : loaded;
    live.textContent = count + ' more ' + (count === 1 ? 'repository' : 'repositories') + ' loaded (' +
      numbers.format(loaded) + ' of ' + numbers.format(Math.max(total, loaded)) + ')';
  }

  // A server-rendered state in the tail may ask to be retried: transient errors with backoff, rate
  // limits once the reset time has passed.
  function afterTail() {
    if (restoring) return;
    var limited = tail.querySelector('[data-retry-in]');
    var transient = tail.querySelector('[data-auto-retry]');
    if (limited) {
      schedule(limited.dataset.retryUrl, Math.max(1, parseInt(limited.dataset.retryIn, 10) || 1) * 1000 + 500);
    } else if (transient && attempts < autoRetries()) {
      schedule(transient.dataset.retryUrl, backoff());
    } else {
      if (!transient) attempts = 0;
      armTriggers();
    }
  }

  function autoRetries() { return cards().length ? MORE_AUTO_RETRIES : FIRST_AUTO_RETRIES; }

  function backoff() {
    attempts += 1;
    return Math.min(16000, 1000 * Math.pow(2, attempts - 1)) + Math.floor(Math.random() * 250);
  }

  function schedule(url, delay) {
    clearTimeout(retryTimer);
    retryTimer = setTimeout(function () { load(url); }, delay);
  }

  function failed(url, error) {
    var retryIn = error.retryIn;
    if (retryIn > 0) {
      showError(url, error.message + ' Retrying in ' + retryIn + ' s.');
      schedule(url, retryIn * 1000 + 500);
      return;
    }
    var transient = !error.status || error.status >= 500 || error.status === 429;
    if (transient && attempts < autoRetries()) {
      schedule(url, backoff());   // skeletons stay while waiting
      return;
    }
    showError(url, error.status ? error.message : 'The network connection failed.');
  }

  function showError(url, message) {
    var tpl = document.getElementById('tpl-error');
    if (!tpl) return;
    var row = tpl.content.cloneNode(true);
    var heading = row.querySelector('.state-text strong');
    if (heading && !cards().length) heading.textContent = 'Couldn’t load repositories.';
    var reason = row.querySelector('.state-reason');
    if (reason) reason.textContent = message;
    var button = row.querySelector('[data-retry]');
    if (button) button.dataset.retry = url;
    var state = document.createElement('div');
    state.className = 'tail';
    state.appendChild(row);
    replaceTail(state);
  }

  // The tail is swapped for a new element rather than refilled: a new node is not a layout shift,
  // whereas the old one being pushed down by the appended cards would be.
  function replaceTail(content) {
    var fresh = tail.cloneNode(false);
    fresh.appendChild(content);
    tail.replaceWith(fresh);
    tail = fresh;
  }

  document.addEventListener('click', function (event) {
    var target = event.target instanceof Element && tail.contains(event.target) ? event.target : null;
    var retry = target && target.closest('[data-retry]');
    if (retry) {
      attempts = 0;
      load(retry.dataset.retry);
      return;
    }
    var next = target && target.closest('a[rel="next"][data-fragment]');
    if (next && !event.ctrlKey && !event.metaKey && !event.shiftKey && event.button === 0) {
      event.preventDefault();
      load(next.dataset.fragment);
    }
  });

  // MARK: Keys (feed pattern)
  // Page Down / Page Up: next / previous article. Ctrl+End / Ctrl+Home: the first focusable element
  // after / before the feed.

  function onFeedKey(event) {
    var card = event.target instanceof Element ? event.target.closest('article[data-repo-id]') : null;
    if (!card) return;
    if (event.ctrlKey && (event.key === 'End' || event.key === 'Home')) {
      event.preventDefault();
      focusOutside(event.key === 'End');
      return;
    }
    if (event.key !== 'PageDown' && event.key !== 'PageUp') return;
    var sibling = event.key === 'PageDown' ? card.nextElementSibling : card.previousElementSibling;
    if (!sibling) return;
    event.preventDefault();
    sibling.focus();
    if (event.key === 'PageDown' && !sibling.nextElementSibling) loadNext();
  }

  function focusOutside(after) {
    var focusable = Array.prototype.filter.call(
      document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])'),
      function (el) { return !feed.contains(el) && !el.disabled && el.getClientRects().length > 0; });
    var target = null;
    for (var i = 0; i < focusable.length; i++) {
      var position = feed.compareDocumentPosition(focusable[i]);
      if (after && (position & Node.DOCUMENT_POSITION_FOLLOWING)) { target = focusable[i]; break; }
      if (!after && (position & Node.DOCUMENT_POSITION_PRECEDING)) target = focusable[i];
    }
    if (!target) {
      // Nothing focusable after the feed (its end is loading): the tail itself takes focus.
      target = after ? tail : document.getElementById('q');
      if (target === tail) tail.setAttribute('tabindex', '-1');
    }
    if (target) target.focus();
  }

  if (feed) feed.addEventListener('keydown', onFeedKey);

  // MARK: Back and forward

  // The first card whose lower edge is below the (sticky) header, and how far its top is from the
  // viewport's top.
  function topCard() {
    var header = document.querySelector('.site-header');
    var edge = header && getComputedStyle(header).position === 'sticky' ? header.getBoundingClientRect().bottom : 0;
    var all = cards();
    for (var i = 0; i < all.length; i++) {
      var rect = all[i].getBoundingClientRect();
      if (rect.bottom > edge + 1) {
        return { position: Number(all[i].getAttribute('aria-posinset')), offset: Math.round(rect.top) };
      }
    }
    return null;
  }

  function save() {
    saveTimer = 0;
    if (restoring) return;
    var top = topCard();
    var list = { rows: cards().length, top: top ? top.position : 0, offset: top ? top.offset : 0, y: Math.round(window.scrollY) };
    var state = history.state && typeof history.state === 'object' ? Object.assign({}, history.state) : {};
    state.reposcroll = list;
    try { history.replaceState(state, ''); } catch (e) { /* throttled by the browser: the next save wins */ }
  }

  function scheduleSave() {
    if (!saveTimer) saveTimer = setTimeout(save, 250);
  }

  function navigationType() {
    var entries = performance.getEntriesByType ? performance.getEntriesByType('navigation') : [];
    return entries.length ? entries[0].type : '';
  }

  // Loads batch after batch until the saved number of rows is back, then puts the saved card where it was.
  function restore(saved) {
    restoring = true;
    document.documentElement.classList.add('restoring');
    var batches = 0;
    function step() {
      if (cards().length >= saved.rows || batches >= MAX_RESTORE_BATCHES || !nextLink()) return Promise.resolve();
      batches += 1;
      return loadNext().then(function (added) { return added ? step() : undefined; });
    }
    return step().then(function () {
      restoring = false;
      document.documentElement.classList.remove('restoring');
      scrollToSaved(saved);
      afterTail();
    });
  }

  function scrollToSaved(saved) {
    var card = feed && feed.querySelector('article[aria-posinset="' + saved.top + '"]');
    if (card) {
      window.scrollTo(0, Math.max(0, card.getBoundingClientRect().top + window.scrollY - saved.offset));
    } else {
      window.scrollTo(0, saved.y || 0);
    }
  }

  window.addEventListener('scroll', scheduleSave, { passive: true });

  // Leaving the page (or entering the back/forward cache) aborts the page request; no unload handler.
  window.addEventListener('pagehide', function () {
    clearTimeout(retryTimer);
    if (controller) controller.abort();
    if (saveTimer) { clearTimeout(saveTimer); save(); }
  });
  window.addEventListener('pageshow', function (event) { if (event.persisted) afterTail(); });
  var form = document.querySelector('form.search');
  if (form) form.addEventListener('submit', function () {
    clearTimeout(retryTimer);
    if (controller) controller.abort();
  });

  setBusy(false);
  var saved = history.state && history.state.reposcroll;
  if (navigationType() === 'back_forward' && saved && saved.rows > 0) {
    restore(saved);
  } else {
    // A reload or a new visit starts at the first batch, at the top; the old entry's state goes.
    if (saved) save();
    afterTail();
  }
})();
