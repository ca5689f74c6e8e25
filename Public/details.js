// details.js — the second level of lazy loading: each card's avatar and star history.
// One scheduler for both, so the next batch never waits for a connection (Chromium opens 6 per host):
// - at most MAX_IN_FLIGHT detail requests at once, and none started while a batch request is pending;
// - only cards near the viewport are candidates, the ones on screen first, then the nearest;
// - a history request for a card that scrolled far away is aborted (it is asked again on return);
// - when GitHub's core limit is used up, histories pause until the reset and the page says so once.
// Without JavaScript the avatars come from the <noscript> img and the history regions stay empty.
(function () {
  'use strict';

  var MAX_IN_FLIGHT = 5;
  var inFlight = 0;
  var fragmentPending = false;
  var pausedUntil = 0;        // ms epoch: no history requests before it (core rate limit)
  var pauseTimer = 0;
  var retryTimer = 0;
  var noticeShown = false;
  var near = new Set();       // cards within the look-ahead zone
  var requests = new Map();   // history region -> AbortController

  // Half a viewport above, one and a half below: reading goes down, and a history takes 300–900 ms.
  var zone = new IntersectionObserver(function (entries) {
    for (var i = 0; i < entries.length; i++) {
      var card = entries[i].target;
      if (entries[i].isIntersecting) {
        near.add(card);
      } else {
        near.delete(card);
        var region = card.querySelector('[data-stargazers]');
        var controller = region && requests.get(region);
        if (controller) controller.abort();
      }
    }
    pump();
  }, { rootMargin: '50% 0px 150% 0px' });

  function watch(cards) {
    for (var i = 0; i < cards.length; i++) zone.observe(cards[i]);
  }

  // The next task: the card closest to the viewport (0 when on screen), its avatar before its history.
  function nextTask() {
    var best = null;
    var bestScore = Infinity;
    var now = Date.now();
    var height = window.innerHeight;
    near.forEach(function (card) {
      if (!card.isConnected) { near.delete(card); return; }
      var avatar = card.querySelector('.avatar[data-avatar]');
      var region = card.querySelector('[data-stargazers]');
      var wantsAvatar = avatar && !avatar.dataset.state;
      var wantsHistory = region && historyDue(region, now);
      if (!wantsAvatar && !wantsHistory) return;
      var rect = card.getBoundingClientRect();
      var distance = rect.bottom < 0 ? -rect.bottom : rect.top > height ? rect.top - height : 0;
      var score = distance * 2 + (wantsAvatar ? 0 : 1);
      if (score < bestScore) {
        bestScore = score;
        best = wantsAvatar ? { avatar: avatar } : { region: region };
      }
    });
    return best;
  }

  function historyDue(region, now) {
    var state = region.dataset.state;
    if (!state || state === 'paused') return now >= pausedUntil;
    if (state === 'done' && region.dataset.retryAt) return now >= Number(region.dataset.retryAt);
    return false;
  }

  function pump() {
    if (fragmentPending || document.visibilityState === 'hidden') return;
    markPaused();
    while (inFlight < MAX_IN_FLIGHT) {
      var task = nextTask();
      if (!task) break;
      if (task.avatar) loadAvatar(task.avatar); else loadHistory(task.region);
    }
  }

  // While histories are paused, the near cards say so instead of shimmering.
  function markPaused() {
    if (Date.now() >= pausedUntil) return;
    near.forEach(function (card) {
      var region = card.querySelector('[data-stargazers]');
      if (region && !region.dataset.state) region.dataset.state = 'paused';
    });
  }

  // MARK: Avatars

  function loadAvatar(avatar) {
    avatar.dataset.state = 'loading';
    inFlight += 1;
    var img = document.createElement('img');
    img.alt = '';
    img.width = 32;
    img.height = 32;
    img.decoding = 'async';
    if (avatar.dataset.avatar2x) img.srcset = avatar.dataset.avatar2x + ' 2x';
    var settled = false;
    function done(ok) {
      if (settled) return;
      settled = true;
      inFlight -= 1;
      avatar.dataset.state = ok ? 'done' : 'failed';
      if (!ok) avatar.classList.add('avatar-failed');
      pump();
    }
    img.addEventListener('load', function () {
      // The server answers a failed avatar with an empty placeholder image: show the initials then.
      done(img.naturalWidth > 1);
    });
    img.addEventListener('error', function () { done(false); });
    img.src = avatar.dataset.avatar;
    var fallback = avatar.querySelector('noscript');
    if (fallback) fallback.replaceWith(img); else avatar.appendChild(img);
  }

  // MARK: Histories

  function loadHistory(region) {
    var controller = new AbortController();
    requests.set(region, controller);
    region.dataset.state = 'loading';
    inFlight += 1;
    fetch(region.dataset.stargazers, {
      signal: controller.signal, credentials: 'same-origin', priority: 'low', headers: { Accept: 'text/html' },
    })
      .then(function (response) {
        if (!response.ok) throw new Error('status ' + response.status);
        return response.text();
      })
      .then(function (html) { fill(region, html); })
      .catch(function () {
        if (controller.signal.aborted) {
          // Scrolled far away or left the page: ask again when the card comes back.
          if (region.dataset.state === 'loading') delete region.dataset.state;
          return;
        }
        fill(region, '<p class="history-note" data-state="unavailable" data-retry-in="30">History unavailable right now</p>');
      })
      .finally(function () {
        requests.delete(region);
        inFlight -= 1;
        pump();
      });
  }

  function fill(region, html) {
    var tpl = document.createElement('template');
    tpl.innerHTML = html;
    var note = tpl.content.querySelector('[data-retry-in]');
    region.replaceChildren(tpl.content);
    region.dataset.state = 'done';
    delete region.dataset.retryAt;
    if (note) {
      var seconds = Math.max(5, parseInt(note.dataset.retryIn, 10) || 30);
      region.dataset.retryAt = String(Date.now() + seconds * 1000);
      if (note.hasAttribute('data-limited')) pause(seconds, note.dataset.reset);
      clearTimeout(retryTimer);
      retryTimer = setTimeout(pump, seconds * 1000 + 50);
    }
    var card = region.closest('article');
    if (card) card.dispatchEvent(new CustomEvent('reposcroll:details', { bubbles: true }));
  }

  function pause(seconds, resetISO) {
    var until = Date.now() + seconds * 1000;
    if (until <= pausedUntil) return;
    pausedUntil = until;
    clearTimeout(pauseTimer);
    pauseTimer = setTimeout(function () {
      document.querySelectorAll('[data-stargazers][data-state="paused"]').forEach(function (region) {
        delete region.dataset.state;
      });
      pump();
    }, seconds * 1000 + 50);
    showNotice(resetISO);
  }

  // The one page notice: what happened, when it resets (localtime.js writes the local time), and how
  // to raise the limit.
  function showNotice(resetISO) {
    if (noticeShown) return;
    var tpl = document.getElementById('tpl-core-limit');
    if (!tpl) return;
    noticeShown = true;
    var notice = tpl.content.firstElementChild.cloneNode(true);
    var time = notice.querySelector('time');
    if (time && resetISO) {
      time.setAttribute('datetime', resetISO);
      time.textContent = resetISO;
    }
    var dismiss = notice.querySelector('.core-dismiss');
    if (dismiss) dismiss.addEventListener('click', function () { notice.remove(); });
    document.body.appendChild(notice);
  }

  // MARK: Wiring

  document.addEventListener('reposcroll:cards', function (event) { watch(event.detail.cards); });
  document.addEventListener('reposcroll:loading', function (event) {
    fragmentPending = !!event.detail.busy;
    pump();
  });
  document.addEventListener('visibilitychange', pump);

  window.addEventListener('pagehide', function () {
    requests.forEach(function (controller) { controller.abort(); });
  });
  window.addEventListener('pageshow', function (event) {
    if (!event.persisted) return;
    fragmentPending = false;
    pump();
  });

  watch(document.querySelectorAll('article[data-repo-id]'));
})();
