// feed.js — infinite scroll for the results feed (WAI-ARIA feed pattern).
// Loads the next batch as an HTML fragment before the reader reaches the end, one request at a time,
// and keeps working without it: the a[rel=next] trigger is a real link to the next full page.
(function () {
  'use strict';

  if ('scrollRestoration' in history) history.scrollRestoration = 'manual';
  document.documentElement.classList.add('js');

  var feed = document.getElementById('feed');
  var tail = document.getElementById('feed-tail');
  if (!feed || !tail) return;
  var live = document.getElementById('feed-live');
  var numbers = new Intl.NumberFormat('en');
  var MAX_AUTO_RETRIES = 4;

  var seen = new Set();
  var controller = null;   // the one page request in flight
  var retryTimer = 0;
  var attempts = 0;        // consecutive automatic retries of the same cursor

  feed.querySelectorAll('article[data-repo-id]').forEach(function (card) { seen.add(card.dataset.repoId); });

  // Prefetch: the card marked data-prefetch sits a few cards before the end; the trigger link is watched
  // too, for short batches and tall screens.
  var prefetch = new IntersectionObserver(function (entries) {
    for (var i = 0; i < entries.length; i++) {
      if (entries[i].isIntersecting) { prefetch.unobserve(entries[i].target); loadNext(); }
    }
  }, { rootMargin: '0px 0px 75% 0px' });

  function armTriggers() {
    var link = nextLink();
    if (!link) return;
    var marked = feed.querySelectorAll('article[data-prefetch]');
    if (marked.length) prefetch.observe(marked[marked.length - 1]);
    prefetch.observe(link);
  }

  function nextLink() { return tail.querySelector('a[rel="next"][data-fragment]'); }

  function loadNext() {
    var link = nextLink();
    if (link) load(link.dataset.fragment);
  }

  function setBusy(busy) { feed.setAttribute('aria-busy', busy ? 'true' : 'false'); }

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

  function load(url) {
    if (controller || !url) return;
    clearTimeout(retryTimer);
    controller = new AbortController();
    var signal = controller.signal;
    setBusy(true);
    showLoading();
    fetch(url, { signal: signal, credentials: 'same-origin', headers: { Accept: 'text/html' } })
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
        append(html);
      })
      .catch(function (error) {
        controller = null;
        setBusy(false);
        if (signal.aborted) { hideLoading(); return; }
        failed(url, error);
      });
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
    var mark = feed.querySelector('.feed-mark');
    feed.insertBefore(fresh, mark);
    replaceTail(fragment);
    if (added.length) {
      attempts = 0;
      announce(added.length);
      document.dispatchEvent(new CustomEvent('reposcroll:cards', { detail: { cards: added } }));
    }
    afterTail();
  }

  function announce(count) {
    if (!live) return;
    var loaded = feed.querySelectorAll('article[data-repo-id]').length;
    var last = feed.querySelector('article[data-repo-id]:last-of-type');
    var total = last ? parseInt(last.getAttribute('aria-setsize'), 10) : loaded;
    live.textContent = count + ' more ' + (count === 1 ? 'repository' : 'repositories') + ' loaded (' +
      numbers.format(loaded) + ' of ' + numbers.format(Math.max(total, loaded)) + ')';
  }

  // A server-rendered state in the tail may ask to be retried: transient errors with backoff, rate
  // limits once the reset time has passed.
  function afterTail() {
    var limited = tail.querySelector('[data-retry-in]');
    var transient = tail.querySelector('[data-auto-retry]');
    if (limited) {
      schedule(limited.dataset.retryUrl, Math.max(1, parseInt(limited.dataset.retryIn, 10) || 1) * 1000 + 500);
    } else if (transient && attempts < MAX_AUTO_RETRIES) {
      schedule(transient.dataset.retryUrl, backoff());
    } else {
      if (!transient) attempts = 0;
      armTriggers();
    }
  }

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
    if (transient && attempts < MAX_AUTO_RETRIES) {
      schedule(url, backoff());   // skeletons stay while waiting
      return;
    }
    showError(url, error.status ? error.message : 'The network connection failed.');
  }

  function showError(url, message) {
    var tpl = document.getElementById('tpl-error');
    if (!tpl) return;
    var row = tpl.content.cloneNode(true);
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

  // Feed pattern keys: Page Down / Page Up move focus to the next / previous article.
  feed.addEventListener('keydown', function (event) {
    if (event.key !== 'PageDown' && event.key !== 'PageUp') return;
    var card = event.target instanceof Element ? event.target.closest('article[data-repo-id]') : null;
    if (!card) return;
    var sibling = card;
    do {
      sibling = event.key === 'PageDown' ? sibling.nextElementSibling : sibling.previousElementSibling;
    } while (sibling && !sibling.matches('article[data-repo-id]'));
    if (!sibling) return;
    event.preventDefault();
    sibling.focus();
    if (event.key === 'PageDown' && !nextAfter(sibling)) loadNext();
  });

  function nextAfter(card) {
    var sibling = card.nextElementSibling;
    while (sibling && !sibling.matches('article[data-repo-id]')) sibling = sibling.nextElementSibling;
    return sibling;
  }

  // Leaving the page (or entering the back/forward cache) aborts the page request; no unload handler.
  window.addEventListener('pagehide', function () {
    clearTimeout(retryTimer);
    if (controller) controller.abort();
  });
  window.addEventListener('pageshow', function (event) { if (event.persisted) afterTail(); });
  document.querySelector('form.search') && document.querySelector('form.search').addEventListener('submit', function () {
    clearTimeout(retryTimer);
    if (controller) controller.abort();
  });

  setBusy(false);
  afterTail();
})();
