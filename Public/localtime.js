// localtime.js — rewrites every time[datetime] to the reader's local time: "14:05" today,
// "Nov 23, 14:05" on another day. The server renders UTC ("14:05 UTC") as the no-JS fallback, and
// the full UTC time stays in the title.
(function () {
  'use strict';

  var clock = new Intl.DateTimeFormat(undefined, { hour: '2-digit', minute: '2-digit' });
  var dated = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });

  function rewrite(time) {
    var value = time.getAttribute('datetime');
    if (!value || time.dataset.local === value) return;
    var date = new Date(value);
    if (isNaN(date.getTime())) return;
    var today = new Date();
    var sameDay = date.getFullYear() === today.getFullYear() && date.getMonth() === today.getMonth() &&
      date.getDate() === today.getDate();
    time.textContent = (sameDay ? clock : dated).format(date);
    time.title = date.toUTCString();
    time.dataset.local = value;
  }

  function scan(root) {
    if (root.nodeType !== 1) return;
    if (root.matches('time[datetime]')) rewrite(root);
    root.querySelectorAll('time[datetime]').forEach(rewrite);
  }

  // Fragments, histories and notices arrive later: rewrite whatever is added.
  new MutationObserver(function (records) {
    for (var i = 0; i < records.length; i++) {
      var added = records[i].addedNodes;
      for (var j = 0; j < added.length; j++) scan(added[j]);
    }
  }).observe(document.body, { childList: true, subtree: true });

  scan(document.body);
})();
