// localtime.js — rewrites every time[datetime] to the reader's local time: "14:05" today,
// "Nov 23, 14:05" on another day. The server renders UTC ("14:05 UTC") as the no-JS fallback, and
// the full UTC time stays in the title.

const clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
const dated = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

function rewrite(time) {
  const value = time.getAttribute('datetime');
  if (!value || time.dataset.local === value) return;
  const date = new Date(value);
  if (isNaN(date.getTime())) return;
  const today = new Date();
  const sameDay = date.getFullYear() === today.getFullYear() && date.getMonth() === today.getMonth() &&
    date.getDate() === today.getDate();
  time.textContent = (sameDay ? clock : dated).format(date);
  time.title = date.toUTCString();
  time.dataset.local = value;
}

function scan(root) {
  if (root.nodeType !== Node.ELEMENT_NODE) return;
  if (root.matches('time[datetime]')) rewrite(root);
  root.querySelectorAll('time[datetime]').forEach(rewrite);
}

// Fragments, histories and notices arrive later: rewrite whatever is added.
new MutationObserver((records) => {
  for (const record of records) record.addedNodes.forEach(scan);
}).observe(document.body, { childList: true, subtree: true });

scan(document.body);
