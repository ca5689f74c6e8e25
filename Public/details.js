// details.js — the second level of lazy loading: each card's avatar and star history.
// One scheduler for both, so the next batch never waits for a connection (Chromium opens 6 per host):
// - at most 5 detail requests at once, so one connection is always free for the batch request
//   (pausing details while a batch loads starved them at speed: a batch is nearly always pending);
// - only cards near the viewport are candidates, the ones on screen first, then the nearest: up to
//   a viewport below at rest, and as far as the reader will scroll in 1.2 s while scrolling (at
//   least half a viewport, at most 1,500 px): each card asked for further ahead is one the reader may
//   never see (`lookAhead`);
// - histories go in batches of up to 20 cards per request (GET /fragments/stars?r=owner/repo&…),
//   so one connection serves several cards: with 300–900 ms per answer, six single requests could not
//   keep up with a reader passing five dense cards a second; the cards on screen go in a batch of
//   their own, so they wait for the slowest of themselves only;
// - a history request whose cards all scrolled far away is aborted (they are asked again on return);
// - when GitHub's core limit is used up, histories pause until the reset and the page says so once.
// The near cards are found by geometry on the scroll ticks (scroll.js), by binary search over the
// cards in document order, rather than by an observer watching every card on every frame.
// Every text shown comes from the server: history answers, and the page's templates for a failed
// request and for the rate-limit notice.
// Without JavaScript the avatars come from the <noscript> img and the history regions stay empty.
import { CARD, DETAILS_ADDED, onCards } from './cards.js';
import { scrolling } from './scroll.js';

/** The scheduler's limits. */
export const LIMITS = Object.freeze({
  inFlight: 5,
  avatars: 4,          // so one connection stays for history batches
  batch: 20,           // histories per request
  aheadAtRest: 1.0,    // viewports below the viewport
  aheadSeconds: 1.2,   // of scrolling at the current speed (GitHub answers in under one)
  aheadScrolling: 0.5, // viewports below, at least, while scrolling slowly
  aheadMaxPx: 1500,    // never further below, however fast: a jump (End, a scrollbar drag) reads
                       // as a burst of speed, and the cards it passes are ones nobody sees
  keepAbove: 0.5,      // viewports above / below the viewport where a started history request is kept
  keepBelow: 4,
});

const BATCH_URL = '/fragments/stars';

/** How far below the viewport (px) details are asked for, for a viewport `height` px tall. */
export function lookAhead(height, speed, atRest) {
  const wanted = atRest ? LIMITS.aheadAtRest * height : Math.max(LIMITS.aheadScrolling * height, speed * LIMITS.aheadSeconds);
  return Math.min(LIMITS.aheadMaxPx, wanted);
}

/**
 * The cards within `above` px above and `below` px below the viewport, nearest first, each with its
 * distance to the viewport (0 on screen). `cards` are in document order, so in vertical order too.
 */
export function nearCards(cards, height, above, below) {
  let low = 0;
  let high = cards.length;
  while (low < high) {   // the first card whose bottom is below the top edge of the zone
    const middle = (low + high) >> 1;
    if (cards[middle].getBoundingClientRect().bottom <= -above) low = middle + 1; else high = middle;
  }
  const list = [];
  for (let i = low; i < cards.length; i++) {
    const rect = cards[i].getBoundingClientRect();
    if (rect.top - height > below) break;
    const distance = rect.bottom < 0 ? -rect.bottom : rect.top > height ? rect.top - height : 0;
    list.push({ card: cards[i], distance });
  }
  return list.sort((a, b) => a.distance - b.distance);
}

/** The avatar and history loader for the cards it is given (`watch`). */
export class Details {
  constructor(now = () => Date.now()) {
    this.now = now;
    this.cards = [];            // every card, in document order
    this.requests = new Map();  // history region -> its batch { controller, regions }
    this.count = { inFlight: 0, avatars: 0 };
    this.pausedUntil = 0;       // ms epoch: no history requests before it (core rate limit)
    this.timers = { pause: 0, retry: 0 };
    this.noticeShown = false;
    this.queued = false;
  }

  /** Watches `cards`: appended below the others, or brought back above them (kept in document order). */
  watch(cards) {
    const last = this.cards[this.cards.length - 1];
    for (const card of cards) this.cards.push(card);
    const first = cards[0];
    if (last && first && (last.compareDocumentPosition(first) & Node.DOCUMENT_POSITION_PRECEDING)) {
      this.cards.sort((a, b) => (a.compareDocumentPosition(b) & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : 1));
    }
    this.schedule();
  }

  /** Stops watching `cards` (taken out of the document); their requests end with the far-away ones. */
  forget(cards) {
    const gone = new Set(cards);
    this.cards = this.cards.filter((card) => !gone.has(card));
    this.schedule();
  }

  /** One pump per frame at most, however many requests end in it. */
  schedule() {
    if (this.queued) return;
    this.queued = true;
    requestAnimationFrame(() => { this.queued = false; this.pump(); });
  }

  pump() {
    if (document.visibilityState === 'hidden') return;
    const height = window.innerHeight;
    if (this.requests.size) this.abortFarAway(height);
    if (this.count.inFlight >= LIMITS.inFlight) return;
    const ahead = lookAhead(height, scrolling.speed.downwards(), scrolling.speed.atRest());
    const ordered = nearCards(this.cards, height, LIMITS.keepAbove * height, ahead);
    this.markPaused(ordered);
    while (this.count.inFlight < LIMITS.inFlight) {
      const task = this.nextTask(ordered);
      if (!task) break;
      if (task.avatar) this.loadAvatar(task.avatar); else this.loadHistories(task.regions);
    }
  }

  // A batch whose cards are all far from the viewport is not worth its connection.
  abortFarAway(height) {
    const keep = new Set(nearCards(this.cards, height, LIMITS.keepAbove * height, LIMITS.keepBelow * height)
      .map((entry) => entry.card));
    new Set(this.requests.values()).forEach((batch) => {
      if (batch.regions.every((region) => !keep.has(region.closest(CARD)))) batch.controller.abort();
    });
  }

  // The next task for a free connection: the nearest card's avatar, or a batch of the nearest due
  // histories, whichever the nearest card still lacks first (avatars only while fewer than
  // LIMITS.avatars load: one at a time per connection, they would otherwise starve the histories).
  // Cards on screen get a batch of their own: a batch is answered when its slowest history is, and
  // the ones below must not hold up the ones the reader is looking at.
  nextTask(ordered) {
    const now = this.now();
    for (let i = 0; i < ordered.length; i++) {
      const card = ordered[i].card;
      const avatar = card.querySelector('.avatar[data-avatar]');
      if (avatar && !avatar.dataset.state && this.count.avatars < LIMITS.avatars) return { avatar };
      const region = card.querySelector('[data-stargazers]');
      if (region && this.historyDue(region, now)) {
        const regions = [];
        const onScreen = ordered[i].distance === 0;
        for (let j = i; j < ordered.length && regions.length < LIMITS.batch; j++) {
          if (onScreen && ordered[j].distance > 0) break;
          const candidate = ordered[j].card.querySelector('[data-stargazers]');
          if (candidate && this.historyDue(candidate, now)) regions.push(candidate);
        }
        return { regions };
      }
    }
    return null;
  }

  historyDue(region, now) {
    const state = region.dataset.state;
    if (!state || state === 'paused') return now >= this.pausedUntil;
    if (state === 'done' && region.dataset.retryAt) return now >= Number(region.dataset.retryAt);
    return false;
  }

  // While histories are paused, the near cards say so instead of shimmering.
  markPaused(ordered) {
    if (this.now() >= this.pausedUntil) return;
    for (const { card } of ordered) {
      const region = card.querySelector('[data-stargazers]');
      if (region && !region.dataset.state) region.dataset.state = 'paused';
    }
  }

  // MARK: Avatars

  loadAvatar(avatar) {
    avatar.dataset.state = 'loading';
    this.count.inFlight += 1;
    this.count.avatars += 1;
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
      this.count.inFlight -= 1;
      this.count.avatars -= 1;
      avatar.dataset.state = ok ? 'done' : 'failed';
      if (!ok) avatar.classList.add('avatar-failed');
      this.schedule();
    };
    // The server answers a failed avatar with an empty placeholder image: show the initials then.
    img.addEventListener('load', () => done(img.naturalWidth > 1));
    img.addEventListener('error', () => done(false));
    img.src = avatar.dataset.avatar;
    const fallback = avatar.querySelector('noscript');
    if (fallback) fallback.replaceWith(img); else avatar.appendChild(img);
  }

  // MARK: Histories

  loadHistories(regions) {
    const batch = { controller: new AbortController(), regions };
    // The "owner/repo" of a region, from its single-history URL "/fragments/stars/{owner}/{repo}".
    const names = regions.map((region) => decodeURIComponent(region.dataset.stargazers.slice(BATCH_URL.length + 1)));
    for (const region of regions) {
      this.requests.set(region, batch);
      region.dataset.state = 'loading';
    }
    this.count.inFlight += 1;
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
          if (answer) this.fill(region, answer.content); else this.failedHistory(region);
        });
      })
      .catch(() => {
        for (const region of regions) {
          if (!batch.controller.signal.aborted) {
            this.failedHistory(region);
          } else if (region.dataset.state === 'loading') {
            // Scrolled far away or left the page: ask again when the card comes back.
            delete region.dataset.state;
          }
        }
      })
      .finally(() => {
        for (const region of regions) if (this.requests.get(region) === batch) this.requests.delete(region);
        this.count.inFlight -= 1;
        this.schedule();
      });
  }

  // The page's own answer for a history that could not be fetched (partials/stars, rendered by the server).
  failedHistory(region) {
    const tpl = document.getElementById('tpl-history-failed');
    if (tpl) this.fill(region, tpl.content);
  }

  // Puts a copy of `content` (a history answer) into `region`; a note with data-retry-in asks again later.
  fill(region, content) {
    const answer = content.cloneNode(true);
    const note = answer.querySelector('[data-retry-in]');
    region.replaceChildren(answer);
    region.dataset.state = 'done';
    delete region.dataset.retryAt;
    if (note) {
      const seconds = Math.max(5, parseInt(note.dataset.retryIn, 10) || 30);
      region.dataset.retryAt = String(this.now() + seconds * 1000);
      if (note.hasAttribute('data-limited')) this.pause(seconds, note.dataset.reset);
      clearTimeout(this.timers.retry);
      this.timers.retry = setTimeout(() => this.schedule(), seconds * 1000 + 50);
    }
    const card = region.closest(CARD);
    if (card) card.dispatchEvent(new CustomEvent(DETAILS_ADDED, { bubbles: true }));
  }

  pause(seconds, resetISO) {
    const until = this.now() + seconds * 1000;
    if (until <= this.pausedUntil) return;
    this.pausedUntil = until;
    clearTimeout(this.timers.pause);
    this.timers.pause = setTimeout(() => {
      document.querySelectorAll('[data-stargazers][data-state="paused"]').forEach((region) => {
        delete region.dataset.state;
      });
      this.schedule();
    }, seconds * 1000 + 50);
    this.showNotice(resetISO);
  }

  // The one page notice: what happened, when it resets (localtime.js writes the local time), and how
  // to raise the limit.
  showNotice(resetISO) {
    if (this.noticeShown) return;
    const tpl = document.getElementById('tpl-core-limit');
    if (!tpl) return;
    this.noticeShown = true;
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

  /** Aborts every request (leaving the page); the cards are asked for again if it comes back. */
  abortAll() {
    this.requests.forEach((batch) => batch.controller.abort());
  }
}

// MARK: Wiring (only on a results page)

if (document.getElementById('results')) {
  const details = new Details();
  onCards((cards) => details.watch(cards), (cards) => details.forget(cards));
  // The scrolling speed widens the look-ahead; each tick picks up the cards it reaches.
  scrolling.onTick(() => details.schedule());
  document.addEventListener('visibilitychange', () => details.schedule());
  window.addEventListener('pagehide', () => details.abortAll());
  window.addEventListener('pageshow', (event) => { if (event.persisted) details.schedule(); });
}
