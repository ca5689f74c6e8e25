// feed.js — infinite scroll for the results feed (WAI-ARIA feed pattern).
// Loads the next batch as an HTML fragment before the reader reaches the end, one request at a time,
// and keeps working without it: the a[rel=next] trigger is a real link to the next full page.
// Back and forward return to the same rows and the same card at the top, also when the browser did
// not keep the page: the list's length and top card are saved in history.state as the reader scrolls.
// Every text it shows comes from the server: fragments, and the page's templates and data attributes.
import { CARD, CARDS_ADDED, cardsIn } from './cards.js';

if ('scrollRestoration' in history) history.scrollRestoration = 'manual';
document.documentElement.classList.add('js');

const results = document.getElementById('results');
if (results && document.getElementById('feed-tail')) startFeed(results);
applySortAtOnce(document.querySelector('form.search'));

// A new sort or order applies at once, for a query already given; the Search button stays for
// readers without JavaScript (and for a new query).
function applySortAtOnce(form) {
  if (!form) return;
  form.addEventListener('change', (event) => {
    const menu = event.target;
    if (!(menu instanceof HTMLSelectElement) || !form.elements.q || !form.elements.q.value.trim()) return;
    if (form.requestSubmit) form.requestSubmit(); else form.submit();
  });
}

function startFeed(results) {
  let tail = document.getElementById('feed-tail');
  let feed = document.getElementById('feed');
  const live = document.getElementById('feed-live');
  const numbers = new Intl.NumberFormat('en');
  // Silent retries of one cursor before the error row shows: once while nothing is on the page (the
  // reader is waiting for it), a few times further down (the rows above stay readable meanwhile).
  const FIRST_AUTO_RETRIES = 1;
  const MORE_AUTO_RETRIES = 3;
  // Batches fetched at most to restore a list on back (1000 rows / 20 per batch, and a margin).
  const MAX_RESTORE_BATCHES = 60;
  // At speed the observer's margin is not enough: a batch of dense cards lasts about half a second at
  // 4,000 px/s, and one that needs a new GitHub page takes longer. While the reader scrolls down, the
  // next batch is asked for as soon as the end is less than SPEED_AHEAD seconds of travel away.
  const SPEED_AHEAD = 2;

  const seen = new Set();
  let controller = null;   // the one page request in flight
  let pending = null;      // its promise (resolves true when cards were added)
  let retryTimer = 0;
  let saveTimer = 0;
  let attempts = 0;        // consecutive automatic retries of the same cursor
  let restoring = false;
  let speed = 0;
  let lastY = window.scrollY;
  let lastScroll = 0;

  const cards = () => (feed ? cardsIn(feed) : []);
  cards().forEach((card) => seen.add(card.dataset.repoId));

  // Prefetch: the card marked data-prefetch sits a few cards before the end; the trigger link is watched
  // too, for short batches and tall screens. Both count as reached a viewport early (at rest the first
  // screen does not ask for a second batch); while scrolling fast, trackSpeed asks sooner.
  const prefetch = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (entry.isIntersecting) { prefetch.unobserve(entry.target); loadNext(); }
    }
  }, { rootMargin: '0px 0px 100% 0px' });

  function armTriggers() {
    const link = nextLink();
    if (!link || !feed) return;
    const marked = feed.querySelectorAll(CARD + '[data-prefetch]');
    if (marked.length) prefetch.observe(marked[marked.length - 1]);
    prefetch.observe(link);
  }

  function nextLink() { return tail.querySelector('a[rel="next"][data-fragment]'); }

  function trackSpeed() {
    const now = Date.now();
    const dt = now - lastScroll;
    const y = window.scrollY;
    speed = dt > 0 && dt < 250 ? 0.7 * speed + 0.3 * ((y - lastY) * 1000 / dt) : 0;
    lastY = y;
    lastScroll = now;
    if (speed > 0 && !controller && !restoring) {
      const distance = tail.getBoundingClientRect().top - window.innerHeight;
      if (distance < speed * SPEED_AHEAD) loadNext();
    }
  }

  function loadNext() {
    const link = nextLink();
    return link ? load(link.dataset.fragment) : Promise.resolve(false);
  }

  function setBusy(busy) {
    if (feed) feed.setAttribute('aria-busy', busy ? 'true' : 'false');
  }

  function showLoading() {
    const tpl = document.getElementById('tpl-loading');
    const state = tail.querySelector('.tail') || tail;
    const focused = tail.contains(document.activeElement);
    tail.querySelectorAll('.tail > *').forEach((node) => { node.hidden = true; });
    if (tpl && !tail.querySelector('.skeletons')) state.appendChild(tpl.content.cloneNode(true));
    if (focused) focusTail();
  }

  // Focus inside the tail (the next link, a Retry button) stays in the tail when its content changes,
  // instead of falling back to the top of the document.
  function focusTail() {
    tail.setAttribute('tabindex', '-1');
    tail.focus({ preventScroll: true });
  }

  function hideLoading() {
    tail.querySelectorAll('.skeletons').forEach((node) => node.remove());
    tail.querySelectorAll('.tail > [hidden]').forEach((node) => { node.hidden = false; });
  }

  // Fetches one batch; the promise resolves true when cards were added. The request asks for high
  // priority, and details.js keeps one of the browser's 6 connections free for it.
  function load(url) {
    if (controller) return pending;
    if (!url) return Promise.resolve(false);
    clearTimeout(retryTimer);
    controller = new AbortController();
    const signal = controller.signal;
    setBusy(true);
    showLoading();
    pending = fetch(url, { signal, credentials: 'same-origin', priority: 'high', headers: { Accept: 'text/html' } })
      .then((response) => {
        if (!response.ok) {
          const error = new Error('status ' + response.status);
          error.status = response.status;
          error.retryIn = parseInt(response.headers.get('Retry-After') || '', 10);
          throw error;
        }
        return response.text();
      })
      .then((html) => {
        controller = null;
        setBusy(false);
        return append(html);
      })
      .catch((error) => {
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
    feed.setAttribute('aria-label', results.dataset.feedLabel || '');
    feed.addEventListener('keydown', onFeedKey);
    results.insertBefore(feed, results.querySelector('.results-end'));
    return feed;
  }

  function append(html) {
    const tpl = document.createElement('template');
    tpl.innerHTML = html;
    const fragment = tpl.content;
    const fresh = document.createDocumentFragment();
    const added = [];
    cardsIn(fragment).forEach((card) => {
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
      document.dispatchEvent(new CustomEvent(CARDS_ADDED, { detail: { cards: added } }));
      scheduleSave();
    }
    afterTail();
    return added.length > 0;
  }

  // "20 more repositories loaded (40 of 1,000)": the words come from #feed-live's data attributes.
  function announce(count) {
    if (!live || restoring) return;
    const all = cards();
    const loaded = all.length;
    const last = all[loaded - 1];
    const total = last ? parseInt(last.getAttribute('aria-setsize'), 10) : loaded;
    live.textContent = fillIn(count === 1 ? live.dataset.one : live.dataset.many, {
      count: String(count), loaded: numbers.format(loaded), total: numbers.format(Math.max(total, loaded)),
    });
  }

  // A server text with {name} placeholders, filled in.
  function fillIn(text, values) {
    return (text || '').replace(/\{(\w+)\}/g, (whole, name) => (name in values ? values[name] : whole));
  }

  // A server-rendered state in the tail may ask to be retried: transient errors with backoff, rate
  // limits once the reset time has passed.
  function afterTail() {
    if (restoring) return;
    // A retried first batch comes back as a fragment, whose error row speaks of "more" repositories:
    // the row carries the words for an empty page too.
    const heading = cards().length ? null : tail.querySelector('.state-error [data-first-text]');
    if (heading) heading.textContent = heading.dataset.firstText;
    const limited = tail.querySelector('[data-retry-in]');
    const transient = tail.querySelector('[data-auto-retry]');
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
    retryTimer = setTimeout(() => load(url), delay);
  }

  function failed(url, error) {
    if (error.retryIn > 0) {
      showError(url, error, error.retryIn);
      schedule(url, error.retryIn * 1000 + 500);
      return;
    }
    const transient = !error.status || error.status >= 500 || error.status === 429;
    if (transient && attempts < autoRetries()) {
      schedule(url, backoff());   // skeletons stay while waiting
      return;
    }
    showError(url, error, 0);
  }

  // The error row from template#tpl-error; its reason span holds the server's words for each failure.
  function showError(url, error, retryIn) {
    const tpl = document.getElementById('tpl-error');
    if (!tpl) return;
    const row = tpl.content.cloneNode(true);
    const heading = row.querySelector('[data-first-text]');
    if (heading && !cards().length) heading.textContent = heading.dataset.firstText;
    const reason = row.querySelector('.state-reason');
    if (reason) {
      const words = reason.dataset;
      const limited = error.status === 429 || error.status === 403;
      let text = !error.status ? words.network : limited ? words.limited : words.status;
      if (retryIn > 0) text += ' ' + words.retrying;
      reason.textContent = fillIn(text, { status: String(error.status), seconds: String(retryIn) });
    }
    const button = row.querySelector('[data-retry]');
    if (button) button.dataset.retry = url;
    const state = document.createElement('div');
    state.className = 'tail';
    state.appendChild(row);
    replaceTail(state);
  }

  // The tail is swapped for a new element rather than refilled: a new node is not a layout shift,
  // whereas the old one being pushed down by the appended cards would be.
  function replaceTail(content) {
    const focused = tail.contains(document.activeElement);
    const fresh = tail.cloneNode(false);
    fresh.appendChild(content);
    tail.replaceWith(fresh);
    tail = fresh;
    if (focused) focusTail();
  }

  document.addEventListener('click', (event) => {
    const target = event.target instanceof Element && tail.contains(event.target) ? event.target : null;
    const retry = target && target.closest('[data-retry]');
    if (retry) {
      attempts = 0;
      load(retry.dataset.retry);
      return;
    }
    const next = target && target.closest('a[rel="next"][data-fragment]');
    if (next && !event.ctrlKey && !event.metaKey && !event.shiftKey && event.button === 0) {
      event.preventDefault();
      load(next.dataset.fragment);
    }
  });

  // MARK: Keys (feed pattern)
  // Page Down / Page Up: next / previous article. Ctrl+End / Ctrl+Home: the first focusable element
  // after / before the feed.

  function onFeedKey(event) {
    const card = event.target instanceof Element ? event.target.closest(CARD) : null;
    if (!card) return;
    if (event.ctrlKey && (event.key === 'End' || event.key === 'Home')) {
      event.preventDefault();
      focusOutside(event.key === 'End');
      return;
    }
    if (event.key !== 'PageDown' && event.key !== 'PageUp') return;
    const sibling = event.key === 'PageDown' ? card.nextElementSibling : card.previousElementSibling;
    if (!sibling) return;
    event.preventDefault();
    sibling.focus();
    if (event.key === 'PageDown' && !sibling.nextElementSibling) loadNext();
  }

  function focusOutside(after) {
    const focusable = Array.from(
      document.querySelectorAll('a[href], button, input, select, textarea, [tabindex]:not([tabindex="-1"])'))
      .filter((el) => !feed.contains(el) && !el.disabled && el.getClientRects().length > 0);
    let target = null;
    for (const candidate of focusable) {
      const position = feed.compareDocumentPosition(candidate);
      if (after && (position & Node.DOCUMENT_POSITION_FOLLOWING)) { target = candidate; break; }
      if (!after && (position & Node.DOCUMENT_POSITION_PRECEDING)) target = candidate;
    }
    if (!target && after) { focusTail(); return; }   // the end is loading: the tail itself
    if (!target) target = document.getElementById('q');
    if (target) target.focus();
  }

  if (feed) feed.addEventListener('keydown', onFeedKey);

  // MARK: Back and forward

  // The first card whose lower edge is below the (sticky) header, and how far its top is from the
  // viewport's top.
  function topCard() {
    const header = document.querySelector('.site-header');
    const edge = header && getComputedStyle(header).position === 'sticky' ? header.getBoundingClientRect().bottom : 0;
    for (const card of cards()) {
      const rect = card.getBoundingClientRect();
      if (rect.bottom > edge + 1) {
        return { position: Number(card.getAttribute('aria-posinset')), offset: Math.round(rect.top) };
      }
    }
    return null;
  }

  function save() {
    saveTimer = 0;
    if (restoring) return;
    const top = topCard();
    const list = {
      rows: cards().length, top: top ? top.position : 0, offset: top ? top.offset : 0, y: Math.round(window.scrollY),
    };
    const state = history.state && typeof history.state === 'object' ? { ...history.state } : {};
    state.reposcroll = list;
    try { history.replaceState(state, ''); } catch { /* throttled by the browser: the next save wins */ }
  }

  function scheduleSave() {
    if (!saveTimer) saveTimer = setTimeout(save, 250);
  }

  function navigationType() {
    const entries = performance.getEntriesByType ? performance.getEntriesByType('navigation') : [];
    return entries.length ? entries[0].type : '';
  }

  // Loads batch after batch until the saved number of rows is back, then puts the saved card where it was.
  function restore(saved) {
    restoring = true;
    document.documentElement.classList.add('restoring');
    let batches = 0;
    const step = () => {
      if (cards().length >= saved.rows || batches >= MAX_RESTORE_BATCHES || !nextLink()) return Promise.resolve();
      batches += 1;
      return loadNext().then((added) => (added ? step() : undefined));
    };
    return step().then(() => {
      restoring = false;
      document.documentElement.classList.remove('restoring');
      scrollToSaved(saved);
      afterTail();
    });
  }

  function scrollToSaved(saved) {
    const card = feed && feed.querySelector(CARD + '[aria-posinset="' + saved.top + '"]');
    if (card) {
      window.scrollTo(0, Math.max(0, card.getBoundingClientRect().top + window.scrollY - saved.offset));
    } else {
      window.scrollTo(0, saved.y || 0);
    }
  }

  window.addEventListener('scroll', () => {
    scheduleSave();
    trackSpeed();
  }, { passive: true });

  // Leaving the page (or entering the back/forward cache) aborts the page request; no unload handler.
  window.addEventListener('pagehide', () => {
    clearTimeout(retryTimer);
    if (controller) controller.abort();
    if (saveTimer) { clearTimeout(saveTimer); save(); }
  });
  // A page from the back/forward cache: Chromium and Firefox show it where it was left, but WebKit applies
  // scrollRestoration = 'manual' to it too and shows its top. The saved card goes back where it was (a
  // no-op where the browser kept the offset).
  window.addEventListener('pageshow', (event) => {
    if (!event.persisted) return;
    const saved = history.state && history.state.reposcroll;
    if (saved && saved.rows > 0) scrollToSaved(saved);
    afterTail();
  });
  const form = document.querySelector('form.search');
  if (form) form.addEventListener('submit', () => {
    clearTimeout(retryTimer);
    if (controller) controller.abort();
  });

  setBusy(false);
  const saved = history.state && history.state.reposcroll;
  if (navigationType() === 'back_forward' && saved && saved.rows > 0) {
    restore(saved);
  } else {
    // A reload or a new visit starts at the first batch, at the top; the old entry's state goes.
    if (saved) save();
    afterTail();
  }
}
