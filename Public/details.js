// details.js — the second level of lazy loading: each card's avatar and star history.
// One scheduler for both, so the next batch never waits for a connection (Chromium opens 6 per host):
// - at most MAX_IN_FLIGHT (5) detail requests at once, so one connection is always free for the batch
//   request (pausing details while a batch loads starved them at speed: a batch is nearly always pending);
// - only cards near the viewport are candidates, the ones on screen first, then the nearest: up to
//   1.4 viewports below at rest, and as far as the reader will scroll in 1.5 s while scrolling;
// - histories go in batches of up to MAX_BATCH (20) cards per request (GET /fragments/stars?r=owner/repo&…),
//   so one connection serves several cards: with 300–900 ms per answer, six single requests could not
//   keep up with a reader passing five dense cards a second;
// - a history request whose cards all scrolled far away is aborted (they are asked again on return);
// - when GitHub's core limit is used up, histories pause until the reset and the page says so once.
// Without JavaScript the avatars come from the <noscript> img and the history regions stay empty.
(function () {
  'use strict';

  var MAX_IN_FLIGHT = 5;
  var MAX_AVATARS = 4;        // so one connection stays for history batches (up to 20 cards each)
  var MAX_BATCH = 20;
  var BATCH_URL = '/fragments/stars';
  var inFlight = 0;
  var avatarsInFlight = 0;
  var pausedUntil = 0;        // ms epoch: no history requests before it (core rate limit)
  var pauseTimer = 0;
  var retryTimer = 0;
  var noticeShown = false;
  var near = new Set();       // cards within the widest look-ahead zone
  var AHEAD_AT_REST = 1.4;    // viewports below the viewport
  var AHEAD_SECONDS = 1.5;    // of scrolling at the current speed
  var speed = 0;              // px/s downwards, from the last scroll events
  var lastY = window.scrollY;
  var lastScroll = 0;
  var pumpQueued = false;
  var requests = new Map();   // history region -> its batch { controller, regions }

  // Half a viewport above and four below: the widest look-ahead (at speed); how far ahead is used
  // at a given moment is decided in nextTask.
  var zone = new IntersectionObserver(function (entries) {
    for (var i = 0; i < entries.length; i++) {
      var card = entries[i].target;
      if (entries[i].isIntersecting) {
        near.add(card);
      } else {
        near.delete(card);
        var region = card.querySelector('[data-stargazers]');
        var batch = region && requests.get(region);
        if (batch && batch.regions.every(function (r) { var c = r.closest('article'); return !c || !near.has(c); })) {
          batch.controller.abort();
        }
      }
    }
    pump();
  }, { rootMargin: '50% 0px 400% 0px' });

  function watch(cards) {
    for (var i = 0; i < cards.length; i++) zone.observe(cards[i]);
  }

  // The near cards by distance to the viewport (0 when on screen).
  function byDistance() {
    var height = window.innerHeight;
    var now = Date.now();
    var current = now - lastScroll > 250 ? 0 : Math.max(0, speed);
    var ahead = Math.max(AHEAD_AT_REST * height, current * AHEAD_SECONDS);
    var list = [];
    near.forEach(function (card) {
      if (!card.isConnected) { near.delete(card); return; }
      var rect = card.getBoundingClientRect();
      if (rect.top - height > ahead) return;   // further than the reader will get soon
      list.push({ card: card, distance: rect.bottom < 0 ? -rect.bottom : rect.top > height ? rect.top - height : 0 });
    });
    list.sort(function (a, b) { return a.distance - b.distance; });
    return list;
  }

  // The next task for a free connection: the nearest card's avatar, or a batch of the nearest due
  // histories, whichever the nearest card still lacks first (avatars only while fewer than
  // MAX_AVATARS load: one at a time per connection, they would otherwise starve the histories).
  function nextTask(ordered) {
    var now = Date.now();
    for (var i = 0; i < ordered.length; i++) {
      var card = ordered[i].card;
      var avatar = card.querySelector('.avatar[data-avatar]');
      if (avatar && !avatar.dataset.state && avatarsInFlight < MAX_AVATARS) return { avatar: avatar };
      var region = card.querySelector('[data-stargazers]');
      if (region && historyDue(region, now)) {
        var regions = [];
        for (var j = i; j < ordered.length && regions.length < MAX_BATCH; j++) {
          var candidate = ordered[j].card.querySelector('[data-stargazers]');
          if (candidate && historyDue(candidate, now)) regions.push(candidate);
        }
        return { regions: regions };
      }
    }
    return null;
  }

  function historyDue(region, now) {
    var state = region.dataset.state;
    if (!state || state === 'paused') return now >= pausedUntil;
    if (state === 'done' && region.dataset.retryAt) return now >= Number(region.dataset.retryAt);
    return false;
  }

  function pump() {
    if (document.visibilityState === 'hidden') return;
    markPaused();
    if (inFlight >= MAX_IN_FLIGHT) return;
    var ordered = byDistance();
    while (inFlight < MAX_IN_FLIGHT) {
      var task = nextTask(ordered);
      if (!task) break;
      if (task.avatar) loadAvatar(task.avatar); else loadHistories(task.regions);
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
    avatarsInFlight += 1;
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
      avatarsInFlight -= 1;
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

  // The "owner/repo" of a region, from its single-history URL "/fragments/stars/{owner}/{repo}".
  function repositoryOf(region) {
    return decodeURIComponent(region.dataset.stargazers.slice(BATCH_URL.length + 1));
  }

  function loadHistories(regions) {
    var batch = { controller: new AbortController(), regions: regions };
    var names = regions.map(repositoryOf);
    regions.forEach(function (region) {
      requests.set(region, batch);
      region.dataset.state = 'loading';
    });
    inFlight += 1;
    var url = BATCH_URL + '?' + names.map(function (name) { return 'r=' + encodeURIComponent(name); }).join('&');
    fetch(url, { signal: batch.controller.signal, credentials: 'same-origin', headers: { Accept: 'text/html' } })
      .then(function (response) {
        if (!response.ok) throw new Error('status ' + response.status);
        return response.text();
      })
      .then(function (html) {
        var tpl = document.createElement('template');
        tpl.innerHTML = html;
        var answers = new Map();
        tpl.content.querySelectorAll('template[data-for]').forEach(function (answer) {
          answers.set(answer.getAttribute('data-for'), answer);
        });
        regions.forEach(function (region, index) {
          var answer = answers.get(names[index]);
          if (answer) fill(region, answer.innerHTML); else failedHistory(region);
        });
      })
      .catch(function () {
        regions.forEach(function (region) {
          if (batch.controller.signal.aborted) {
            // Scrolled far away or left the page: ask again when the card comes back.
            if (region.dataset.state === 'loading') delete region.dataset.state;
          } else {
            failedHistory(region);
          }
        });
      })
      .finally(function () {
        regions.forEach(function (region) { if (requests.get(region) === batch) requests.delete(region); });
        inFlight -= 1;
        pump();
      });
  }

  function failedHistory(region) {
    fill(region, '<p class="history-note" data-state="unavailable" data-retry-in="30">History unavailable right now</p>');
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

  // The scrolling speed widens the look-ahead; a pump at most every 100 ms picks up cards it reaches.
  window.addEventListener('scroll', function () {
    var now = Date.now();
    var dt = now - lastScroll;
    var y = window.scrollY;
    if (dt > 0 && dt < 250) speed = 0.7 * speed + 0.3 * ((y - lastY) * 1000 / dt);
    else speed = 0;
    lastY = y;
    lastScroll = now;
    if (pumpQueued) return;
    pumpQueued = true;
    setTimeout(function () { pumpQueued = false; pump(); }, 100);
  }, { passive: true });

  document.addEventListener('reposcroll:cards', function (event) { watch(event.detail.cards); });
  document.addEventListener('visibilitychange', pump);

  window.addEventListener('pagehide', function () {
    requests.forEach(function (batch) { batch.controller.abort(); });
  });
  window.addEventListener('pageshow', function (event) {
    if (!event.persisted) return;
    pump();
  });

  watch(document.querySelectorAll('article[data-repo-id]'));
})();
