// details.js — the second level of lazy loading: each card's avatar and star history.
// One scheduler for both, so the next batch never waits for a connection (Chromium opens 6 per host):
// - at most MAX_IN_FLIGHT (5) detail requests at once, so one connection is always free for the batch
//   request (pausing details while a batch loads starved them at speed: a batch is nearly always pending);
// - only cards near the viewport are candidates, the ones on screen first, then the nearest: up to
//   a viewport below at rest, and as far as the reader will scroll in 1.2 s while scrolling (at
//   least half a viewport, at most 1,500 px): each card asked for further ahead is one the reader may
//   never see;
// - histories go in batches of up to MAX_BATCH (20) cards per request (GET /fragments/stars?r=owner/repo&…),
//   so one connection serves several cards: with 300–900 ms per answer, six single requests could not
//   keep up with a reader passing five dense cards a second; the cards on screen go in a batch of
//   their own, so they wait for the slowest of themselves only;
// - a history request whose cards all scrolled far away is aborted (they are asked again on return);
// - when GitHub's core limit is used up, histories pause until the reset and the page says so once.
// Every text shown comes from the server: history answers, and the page's templates for a failed
// request and for the rate-limit notice.
// Without JavaScript the avatars come from the <noscript> img and the history regions stay empty.
import { CARD, DETAILS_ADDED, onCards } from './cards.js';

const MAX_IN_FLIGHT = 5;
const MAX_AVATARS = 4;        // so one connection stays for history batches (up to 20 cards each)
const MAX_BATCH = 20;
const BATCH_URL = '/fragments/stars';
const AHEAD_AT_REST = 1.0;    // viewports below the viewport
const AHEAD_SECONDS = 1.2;    // of scrolling at the current speed (GitHub answers in under one)
const AHEAD_SCROLLING = 0.5;  // viewports below, at least, while scrolling slowly
const AHEAD_MAX_PX = 1500;    // never further below, however fast: a jump (End, a scrollbar drag) reads
                              // as a burst of speed, and the cards it passes are ones nobody sees
const REST_MS = 250;          // no scroll event for this long: the reader is at rest
const SPEED_WINDOW_MS = 100;  // the speed is measured over at least this long
const near = new Set();       // cards within the widest look-ahead zone
const requests = new Map();   // history region -> its batch { controller, regions }
let inFlight = 0;
let avatarsInFlight = 0;
let pausedUntil = 0;          // ms epoch: no history requests before it (core rate limit)
let pauseTimer = 0;
let retryTimer = 0;
let noticeShown = false;
let speed = 0;                // px/s downwards, over the last SPEED_WINDOW_MS or more
let sampleY = window.scrollY; // where the current speed measurement started, and when
let sampleAt = 0;
let lastScroll = 0;
let pumpQueued = false;

// Half a viewport above and four below: the widest look-ahead (at speed); how far ahead is used
// at a given moment is decided in nextTask.
const zone = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    const card = entry.target;
    if (entry.isIntersecting) {
      near.add(card);
      continue;
    }
    near.delete(card);
    const region = card.querySelector('[data-stargazers]');
    const batch = region && requests.get(region);
    if (batch && batch.regions.every((r) => { const c = r.closest(CARD); return !c || !near.has(c); })) {
      batch.controller.abort();
    }
  }
  pump();
}, { rootMargin: '50% 0px 400% 0px' });

function watch(cards) {
  for (const card of cards) zone.observe(card);
}

// The near cards by distance to the viewport (0 when on screen).
function byDistance() {
  const height = window.innerHeight;
  const ahead = Math.min(AHEAD_MAX_PX, Date.now() - lastScroll > REST_MS
    ? AHEAD_AT_REST * height
    : Math.max(AHEAD_SCROLLING * height, speed * AHEAD_SECONDS));
  const list = [];
  near.forEach((card) => {
    if (!card.isConnected) { near.delete(card); return; }
    const rect = card.getBoundingClientRect();
    if (rect.top - height > ahead) return;   // further than the reader will get soon
    const distance = rect.bottom < 0 ? -rect.bottom : rect.top > height ? rect.top - height : 0;
    list.push({ card, distance });
  });
  list.sort((a, b) => a.distance - b.distance);
  return list;
}

// The next task for a free connection: the nearest card's avatar, or a batch of the nearest due
// histories, whichever the nearest card still lacks first (avatars only while fewer than
// MAX_AVATARS load: one at a time per connection, they would otherwise starve the histories).
// Cards on screen get a batch of their own: a batch is answered when its slowest history is, and
// the ones below must not hold up the ones the reader is looking at.
function nextTask(ordered) {
  const now = Date.now();
  for (let i = 0; i < ordered.length; i++) {
    const card = ordered[i].card;
    const avatar = card.querySelector('.avatar[data-avatar]');
    if (avatar && !avatar.dataset.state && avatarsInFlight < MAX_AVATARS) return { avatar };
    const region = card.querySelector('[data-stargazers]');
    if (region && historyDue(region, now)) {
      const regions = [];
      const onScreen = ordered[i].distance === 0;
      for (let j = i; j < ordered.length && regions.length < MAX_BATCH; j++) {
        if (onScreen && ordered[j].distance > 0) break;
        const candidate = ordered[j].card.querySelector('[data-stargazers]');
        if (candidate && historyDue(candidate, now)) regions.push(candidate);
      }
      return { regions };
    }
  }
  return null;
}

function historyDue(region, now) {
  const state = region.dataset.state;
  if (!state || state === 'paused') return now >= pausedUntil;
  if (state === 'done' && region.dataset.retryAt) return now >= Number(region.dataset.retryAt);
  return false;
}

function pump() {
  if (document.visibilityState === 'hidden') return;
  markPaused();
  if (inFlight >= MAX_IN_FLIGHT) return;
  const ordered = byDistance();
  while (inFlight < MAX_IN_FLIGHT) {
    const task = nextTask(ordered);
    if (!task) break;
    if (task.avatar) loadAvatar(task.avatar); else loadHistories(task.regions);
  }
}

// While histories are paused, the near cards say so instead of shimmering.
function markPaused() {
  if (Date.now() >= pausedUntil) return;
  near.forEach((card) => {
    const region = card.querySelector('[data-stargazers]');
    if (region && !region.dataset.state) region.dataset.state = 'paused';
  });
}

// MARK: Avatars

function loadAvatar(avatar) {
  avatar.dataset.state = 'loading';
  inFlight += 1;
  avatarsInFlight += 1;
  const img = document.createElement('img');
  img.alt = '';
  img.width = 32;
  img.height = 32;
  img.decoding = 'async';
  if (avatar.dataset.avatar2x) img.srcset = avatar.dataset.avatar2x + ' 2x';
  let settled = false;
  const done = (ok) => {
    if (settled) return;
    settled = true;
    inFlight -= 1;
    avatarsInFlight -= 1;
    avatar.dataset.state = ok ? 'done' : 'failed';
    if (!ok) avatar.classList.add('avatar-failed');
    pump();
  };
  // The server answers a failed avatar with an empty placeholder image: show the initials then.
  img.addEventListener('load', () => done(img.naturalWidth > 1));
  img.addEventListener('error', () => done(false));
  img.src = avatar.dataset.avatar;
  const fallback = avatar.querySelector('noscript');
  if (fallback) fallback.replaceWith(img); else avatar.appendChild(img);
}

// MARK: Histories

// The "owner/repo" of a region, from its single-history URL "/fragments/stars/{owner}/{repo}".
function repositoryOf(region) {
  return decodeURIComponent(region.dataset.stargazers.slice(BATCH_URL.length + 1));
}

function loadHistories(regions) {
  const batch = { controller: new AbortController(), regions };
  const names = regions.map(repositoryOf);
  for (const region of regions) {
    requests.set(region, batch);
    region.dataset.state = 'loading';
  }
  inFlight += 1;
  const url = BATCH_URL + '?' + names.map((name) => 'r=' + encodeURIComponent(name)).join('&');
  fetch(url, { signal: batch.controller.signal, credentials: 'same-origin', headers: { Accept: 'text/html' } })
    .then((response) => {
      if (!response.ok) throw new Error('status ' + response.status);
      return response.text();
    })
    .then((html) => {
      const tpl = document.createElement('template');
      tpl.innerHTML = html;
      const answers = new Map();
      tpl.content.querySelectorAll('template[data-for]').forEach((answer) => {
        answers.set(answer.getAttribute('data-for'), answer);
      });
      regions.forEach((region, index) => {
        const answer = answers.get(names[index]);
        if (answer) fill(region, answer.content); else failedHistory(region);
      });
    })
    .catch(() => {
      for (const region of regions) {
        if (!batch.controller.signal.aborted) {
          failedHistory(region);
        } else if (region.dataset.state === 'loading') {
          // Scrolled far away or left the page: ask again when the card comes back.
          delete region.dataset.state;
        }
      }
    })
    .finally(() => {
      for (const region of regions) if (requests.get(region) === batch) requests.delete(region);
      inFlight -= 1;
      pump();
    });
}

// The page's own answer for a history that could not be fetched (partials/stars, rendered by the server).
function failedHistory(region) {
  const tpl = document.getElementById('tpl-history-failed');
  if (tpl) fill(region, tpl.content);
}

// Puts a copy of `content` (a history answer) into `region`; a note with data-retry-in asks again later.
function fill(region, content) {
  const answer = content.cloneNode(true);
  const note = answer.querySelector('[data-retry-in]');
  region.replaceChildren(answer);
  region.dataset.state = 'done';
  delete region.dataset.retryAt;
  if (note) {
    const seconds = Math.max(5, parseInt(note.dataset.retryIn, 10) || 30);
    region.dataset.retryAt = String(Date.now() + seconds * 1000);
    if (note.hasAttribute('data-limited')) pause(seconds, note.dataset.reset);
    clearTimeout(retryTimer);
    retryTimer = setTimeout(pump, seconds * 1000 + 50);
  }
  const card = region.closest(CARD);
  if (card) card.dispatchEvent(new CustomEvent(DETAILS_ADDED, { bubbles: true }));
}

function pause(seconds, resetISO) {
  const until = Date.now() + seconds * 1000;
  if (until <= pausedUntil) return;
  pausedUntil = until;
  clearTimeout(pauseTimer);
  pauseTimer = setTimeout(() => {
    document.querySelectorAll('[data-stargazers][data-state="paused"]').forEach((region) => {
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
  const tpl = document.getElementById('tpl-core-limit');
  if (!tpl) return;
  noticeShown = true;
  const notice = tpl.content.firstElementChild.cloneNode(true);
  const time = notice.querySelector('time');
  if (time && resetISO) {
    time.setAttribute('datetime', resetISO);
    time.textContent = resetISO;
  }
  const dismiss = notice.querySelector('.core-dismiss');
  if (dismiss) dismiss.addEventListener('click', () => notice.remove());
  document.body.appendChild(notice);
}

// MARK: Wiring

// The scrolling speed widens the look-ahead; a pump at most every 100 ms picks up cards it reaches.
window.addEventListener('scroll', () => {
  const now = Date.now();
  const y = window.scrollY;
  // Over a window, not event to event: under load scroll events bunch up, and two a few ms apart
  // would read as a burst of speed that sends the look-ahead (and the server's warming) far below.
  if (now - lastScroll > REST_MS) {
    speed = 0;
    sampleY = y;
    sampleAt = now;
  } else if (now - sampleAt >= SPEED_WINDOW_MS) {
    speed = Math.max(0, (y - sampleY) * 1000 / (now - sampleAt));
    sampleY = y;
    sampleAt = now;
  }
  lastScroll = now;
  if (pumpQueued) return;
  pumpQueued = true;
  setTimeout(() => { pumpQueued = false; pump(); }, 100);
}, { passive: true });

document.addEventListener('visibilitychange', pump);

window.addEventListener('pagehide', () => {
  requests.forEach((batch) => batch.controller.abort());
});
window.addEventListener('pageshow', (event) => {
  if (event.persisted) pump();
});

onCards(watch);
