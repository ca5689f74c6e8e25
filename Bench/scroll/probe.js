// probe.js — installed by script/bench-scroll with Page.addScriptToEvaluateOnNewDocument, so it runs
// before the page's own scripts. It drives the scroll from requestAnimationFrame at a constant speed and
// records, per frame, what a reader would see. Read back with window.__scroll.report().
// Only the markup contract is assumed: cards are article[data-repo-id] with aria-posinset/aria-setsize,
// a card's star history region is [data-stargazers] and is answered once it holds an element with
// data-state, its avatar is `.avatar img` (or `.avatar-failed` once the initials replace it; a
// `.avatar[data-avatar]` without an img is still to load), and the
// loading row is `.skeletons` (or [data-loading-row]).
(function () {
  'use strict';
  var BLANK_MS = 300;
  var FRAGMENT = /\/fragments\/(results|owners)/;
  var LOADING = '.skeletons, [data-loading-row]';

  var P = {
    running: false, done: false, speed: 0, seconds: 0, untilRows: 0,
    t0: 0, last: 0, y: 0, frames: 0, longFrames: 0, elapsed: 0, maxBottom: 0,
    stalls: [], stallStart: -1, stallPos: 0, loadingMs: 0, ended: false,
    fragments: [], cards: new Map(), visible: new Set(),
    qualifying: 0, blankAny: 0, blankAvatar: 0, blankHistory: 0, blankCards: []
  };
  window.__scroll = P;

  try { performance.setResourceTimingBufferSize(100000); } catch (e) { /* older engines */ }
  // Resource Timing for fragment requests: wait = requestStart - startTime is the time between fetch()
  // and the request being handed to a connection (queueing for one of the 6 per-host connections,
  // plus connect time if a new one is opened); server = responseStart - requestStart.
  new PerformanceObserver(function (list) {
    list.getEntries().forEach(function (e) {
      if (!FRAGMENT.test(e.name)) return;
      P.fragments.push({
        url: e.name, start: e.startTime, wait: e.requestStart - e.startTime,
        server: e.responseStart - e.requestStart, end: e.responseEnd, scrolling: P.running
      });
    });
  }).observe({ type: 'resource', buffered: true });

  // A card counts as visible while at least half of it (or half the viewport) is in view.
  var io = new IntersectionObserver(function (entries) {
    var now = performance.now();
    entries.forEach(function (entry) {
      var card = entry.target;
      var s = P.cards.get(card);
      if (!s) return;
      var shown = entry.isIntersecting &&
        (entry.intersectionRatio >= 0.5 || entry.intersectionRect.height >= innerHeight / 2);
      if (shown && s.since < 0) { s.since = now; P.visible.add(card); }
      if (!shown && s.since >= 0) { s.since = -1; P.visible.delete(card); }
    });
  }, { threshold: [0, 0.25, 0.5, 0.75, 1] });

  function track(root) {
    if (!(root instanceof Element)) return;
    var cards = root.matches('article[data-repo-id]') ? [root] : root.querySelectorAll('article[data-repo-id]');
    for (var i = 0; i < cards.length; i++) {
      if (P.cards.has(cards[i])) continue;
      P.cards.set(cards[i], { since: -1, judged: false });
      io.observe(cards[i]);
    }
  }
  new MutationObserver(function (records) {
    records.forEach(function (r) { r.addedNodes.forEach(track); });
  }).observe(document, { childList: true, subtree: true });

  // An avatar is there once its img has decoded pixels, or settled once the initials replace a failed
  // one; a card whose avatar is only named (data-avatar, for a script to load) still misses it.
  function avatarMissing(card) {
    var avatar = card.querySelector('.avatar');
    if (!avatar || avatar.classList.contains('avatar-failed')) return false;
    var img = avatar.querySelector('img');
    if (img) return !(img.getAttribute('src') && img.complete && img.naturalWidth > 0);
    return avatar.hasAttribute('data-avatar');
  }

  function historyMissing(card) {
    var region = card.querySelector('[data-stargazers]');
    return !!region && !region.querySelector('[data-state]');
  }

  function lastCard() {
    var cards = document.querySelectorAll('#feed article[data-repo-id]');
    return cards.length ? cards[cards.length - 1] : null;
  }

  function rows() {
    var card = lastCard();
    return card ? parseInt(card.getAttribute('aria-posinset'), 10) || 0 : 0;
  }

  function loadingInView() {
    var nodes = document.querySelectorAll(LOADING);
    for (var i = 0; i < nodes.length; i++) {
      var r = nodes[i].getBoundingClientRect();
      if (r.height > 0 && r.top < innerHeight && r.bottom > 0) return true;
    }
    return false;
  }

  function judge(now) {
    P.visible.forEach(function (card) {
      var s = P.cards.get(card);
      if (!s || s.judged || s.since < 0 || now - s.since < BLANK_MS) return;
      s.judged = true;
      P.qualifying += 1;
      var a = avatarMissing(card), h = historyMissing(card);
      if (a) P.blankAvatar += 1;
      if (h) P.blankHistory += 1;
      if (a || h) {
        P.blankAny += 1;
        P.blankCards.push({
          position: parseInt(card.getAttribute('aria-posinset'), 10) || 0, avatar: a, history: h,
          shownAt: Math.round(s.since), judgedAt: Math.round(now), scrolling: P.running
        });
      }
    });
  }

  function step(now) {
    if (!P.running) return;
    if (P.last === 0) { P.last = now; P.t0 = now; }
    var dt = now - P.last;
    P.last = now;
    P.frames += 1;
    if (dt > 50) P.longFrames += 1;
    var max = document.documentElement.scrollHeight - innerHeight;
    P.y = Math.min(P.y + P.speed * dt / 1000, Math.max(0, max));
    window.scrollTo(0, P.y);
    P.maxBottom = Math.max(P.maxBottom, window.scrollY + innerHeight);

    if (loadingInView()) P.loadingMs += dt;
    var card = lastCard();
    var pos = card ? parseInt(card.getAttribute('aria-posinset'), 10) || 0 : 0;
    var size = card ? parseInt(card.getAttribute('aria-setsize'), 10) || 0 : 0;
    P.ended = pos > 0 && size > 0 && pos >= size;
    var endInView = !!card && card.getBoundingClientRect().bottom <= innerHeight;
    if (P.stallStart >= 0 && (pos > P.stallPos || !endInView)) {
      P.stalls.push(now - P.stallStart);
      P.stallStart = -1;
    }
    if (P.stallStart < 0 && endInView && !P.ended) { P.stallStart = now; P.stallPos = pos; }
    judge(now);

    P.elapsed = now - P.t0;
    if (P.elapsed >= P.seconds * 1000 || P.ended || (P.untilRows > 0 && pos >= P.untilRows)) {
      if (P.stallStart >= 0) { P.stalls.push(now - P.stallStart); P.stallStart = -1; }
      P.running = false;
      P.done = true;
      return;
    }
    requestAnimationFrame(step);
  }

  /** Starts scrolling at `speed` px/s for `seconds`, or until `untilRows` rows are loaded (0: no limit). */
  P.start = function (speed, seconds, untilRows) {
    P.speed = speed; P.seconds = seconds; P.untilRows = untilRows || 0;
    P.y = window.scrollY; P.last = 0; P.running = true; P.done = false;
    requestAnimationFrame(step);
  };

  // Cards wholly below the lowest point the viewport reached were never in view. (Geometry rather than
  // IntersectionObserver, which misses cards a long frame scrolls past in one step.)
  function neverInView() {
    var bottom = Math.max(P.maxBottom, window.scrollY + innerHeight);
    var cards = document.querySelectorAll('#feed article[data-repo-id]');
    var result = [];
    for (var i = cards.length - 1; i >= 0; i--) {
      if (cards[i].getBoundingClientRect().top + window.scrollY < bottom) break;
      var region = cards[i].querySelector('[data-stargazers]');
      if (region) result.push(region.dataset.stargazers.replace(/^.*\/fragments\/stars\//, ''));
    }
    return result;
  }

  /** Everything measured, as plain JSON. */
  P.report = function () {
    return {
      done: P.done, elapsedMs: P.elapsed, frames: P.frames, longFrames: P.longFrames,
      stalls: P.stalls, loadingMs: P.loadingMs, ended: P.ended, rows: rows(),
      fragments: P.fragments, qualifying: P.qualifying, blankAny: P.blankAny,
      blankAvatar: P.blankAvatar, blankHistory: P.blankHistory, blankCards: P.blankCards, neverInView: neverInView(),
      elements: document.getElementsByTagName('*').length
    };
  };

  document.addEventListener('DOMContentLoaded', function () { track(document.documentElement); });
})();
