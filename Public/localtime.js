// localtime.js — rewrites every time[datetime] to the reader's local time: "14:05" today,
// "Nov 23, 14:05" on another day. The server renders UTC ("14:05 UTC") as the no-JS fallback, and
// the full UTC time stays in the title.
// A card's "updated 3 days ago" is relative: it is counted again in the reader's calendar days (the
// server's "1 day ago" may be the reader's "today"), with the local date and time as its title.

const DAY = 86400000;

/** The formats, in the reader's locale (words in English, as every other word on the page). */
export class LocalTime {
  constructor(locale = undefined, timeZone = undefined) {
    this.clock = new Intl.DateTimeFormat(locale, { hour: '2-digit', minute: '2-digit', timeZone });
    this.dated = new Intl.DateTimeFormat(locale, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', timeZone });
    this.full = new Intl.DateTimeFormat(locale, { dateStyle: 'medium', timeStyle: 'short', timeZone });
    this.words = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
  }

  // The local calendar day of `date`, as a day count (so that differences are whole days).
  static localDay(date) {
    return Math.round(new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime() / DAY);
  }

  /** "5 minutes ago", "3 hours ago", "yesterday", "12 days ago", "2 months ago", "3 years ago". */
  ago(date, now) {
    const seconds = Math.max(0, (now.getTime() - date.getTime()) / 1000);
    if (seconds < 60) return 'just now';
    if (seconds < 3600) return this.words.format(-Math.floor(seconds / 60), 'minute');
    const days = LocalTime.localDay(now) - LocalTime.localDay(date);
    if (days < 1) return this.words.format(-Math.floor(seconds / 3600), 'hour');
    if (days < 30) return this.words.format(-days, 'day');
    if (days < 365) return this.words.format(-Math.floor(days / 30), 'month');
    return this.words.format(-Math.floor(days / 365), 'year');
  }

  /** Rewrites one time[datetime] (once per value: data-local remembers it) as of `now`. */
  rewrite(time, now) {
    const value = time.getAttribute('datetime');
    if (!value || time.dataset.local === value) return;
    const date = new Date(value);
    if (isNaN(date.getTime())) return;
    if (time.parentElement && time.parentElement.classList.contains('card-facts')) {
      time.textContent = this.ago(date, now);
      time.title = this.full.format(date);
    } else {
      const sameDay = LocalTime.localDay(date) === LocalTime.localDay(now);
      time.textContent = (sameDay ? this.clock : this.dated).format(date);
      time.title = date.toUTCString();
    }
    time.dataset.local = value;
  }

  /** Rewrites `root` and every time[datetime] below it. */
  scan(root, now = new Date()) {
    if (root.nodeType !== Node.ELEMENT_NODE) return;
    if (root.matches('time[datetime]')) this.rewrite(root, now);
    root.querySelectorAll('time[datetime]').forEach((time) => this.rewrite(time, now));
  }

  /** Rewrites `root` now and whatever is added below it later (fragments, histories, notices). */
  watch(root) {
    new MutationObserver((records) => {
      const now = new Date();
      for (const record of records) record.addedNodes.forEach((node) => this.scan(node, now));
    }).observe(root, { childList: true, subtree: true });
    this.scan(root);
  }
}

if (document.querySelector('main')) new LocalTime().watch(document.body);
