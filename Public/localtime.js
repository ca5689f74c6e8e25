// localtime.js — rewrites every time[datetime] to the reader's local time: "14:05" today,
// "Nov 23, 14:05" on another day. The server renders UTC ("14:05 UTC") as the no-JS fallback, and
// the full UTC time stays in the title.
// A card's "updated 3 days ago" is relative: it is counted again in the reader's calendar days (the
// server's "1 day ago" may be the reader's "today"), with the local date and time as its title.

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dated = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
const full = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
// English, as every other word on the page comes from the server in English.
const words = new Intl.RelativeTimeFormat('en', { numeric: 'auto' });
const DAY = 86400000;

// The local calendar day of `date`, as a day count (so that differences are whole days).
function localDay(date) {
  return Math.round(new Date(date.getFullYear(), date.getMonth(), date.getDate()).getTime() / DAY);
}

// "5 minutes ago", "3 hours ago", "yesterday", "12 days ago", "2 months ago", "3 years ago".
function ago(date, now) {
  const seconds = Math.max(0, (now.getTime() - date.getTime()) / 1000);
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return words.format(-Math.floor(seconds / 60), 'minute');
  const days = localDay(now) - localDay(date);
  if (days < 1) return words.format(-Math.floor(seconds / 3600), 'hour');
  if (days < 30) return words.format(-days, 'day');
  if (days < 365) return words.format(-Math.floor(days / 30), 'month');
  return words.format(-Math.floor(days / 365), 'year');
}

function rewrite(time, now) {
  const value = time.getAttribute('datetime');
  if (!value || time.dataset.local === value) return;
  const date = new Date(value);
  if (isNaN(date.getTime())) return;
  if (time.parentElement && time.parentElement.classList.contains('card-facts')) {
    time.textContent = ago(date, now);
    time.title = full.format(date);
  } else {
    const sameDay = localDay(date) === localDay(now);
    time.textContent = (sameDay ? clock : dated).format(date);
    time.title = date.toUTCString();
  }
  time.dataset.local = value;
}

function scan(root) {
  if (root.nodeType !== Node.ELEMENT_NODE) return;
  const now = new Date();
  if (root.matches('time[datetime]')) rewrite(root, now);
  root.querySelectorAll('time[datetime]').forEach((time) => rewrite(time, now));
}

// Fragments, histories and notices arrive later: rewrite whatever is added.
new MutationObserver((records) => {
  for (const record of records) record.addedNodes.forEach(scan);
}).observe(document.body, { childList: true, subtree: true });

scan(document.body);
