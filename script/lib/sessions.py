#!/usr/bin/env python3
"""Simulated scrolling sessions against a running repo-scroll, for memory measurements.

Each session opens the results page for its own query, then follows the next-batch fragment links
(as feed.js does) until it holds ROWS rows or the list ends. For every card it loads what the browser
would load lazily: the avatar (the 1x `src`) and the star-history fragment. Sessions run PARALLEL at a
time, each on its own keep-alive connection. Prints one JSON summary line.

usage: sessions.py PORT QUERIES_FILE [ROWS] [PARALLEL]
QUERIES_FILE holds one URL query string per line (e.g. q=topic%3Arust&sort=stars), one line per session.
"""
import html
import http.client
import json
import re
import sys
import threading
import time

CARD = re.compile(rb'<article class="card" data-repo-id="(\d+)"')
AVATAR = re.compile(rb'<img src="(/avatars/[^"]+)"')
STARS = re.compile(rb'data-stargazers="(/fragments/stars/[^"]+)"')
NEXT = re.compile(rb'data-fragment="([^"]+)"')
# Server-rendered error and rate-limit rows carry the fragment to retry (the page's client-side
# <template> copies carry an empty one).
RETRY = re.compile(rb'data-retry-url="(/[^"]+)"')


class Session:
    def __init__(self, port, query, rows):
        self.port, self.query, self.rows = port, query, rows
        self.stats = {"requests": 0, "rows": 0, "non_200": 0, "error_rows": 0, "stars_unavailable": 0,
                      "avatar_placeholders": 0, "bytes": 0, "duplicates": 0, "failures": []}
        self.connection = None

    def get(self, path):
        for attempt in range(3):
            try:
                if self.connection is None:
                    self.connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
                self.connection.request("GET", path)
                response = self.connection.getresponse()
                body = response.read()
                self.stats["requests"] += 1
                self.stats["bytes"] += len(body)
                if response.status != 200:
                    self.stats["non_200"] += 1
                    if len(self.stats["failures"]) < 5:
                        self.stats["failures"].append(f"{response.status} {path}")
                if response.getheader("X-Avatar") == "placeholder":
                    self.stats["avatar_placeholders"] += 1
                if response.getheader("Connection", "").lower() == "close":
                    self.connection.close()
                    self.connection = None
                return body
            except (OSError, http.client.HTTPException) as error:
                if self.connection is not None:
                    self.connection.close()
                self.connection = None
                if attempt == 2:
                    self.stats["failures"].append(f"{type(error).__name__} {path}")
                    return b""
        return b""

    def load(self, path):
        """A page or fragment; an error row is retried (as feed.js does) up to 3 times."""
        body = self.get(path)
        for attempt in range(3):
            retry = RETRY.search(body)
            if retry is None:
                break
            self.stats["error_rows"] += 1
            time.sleep(0.2 * (attempt + 1))
            body = self.get(html.unescape(retry.group(1).decode()))
        return body

    def run(self):
        seen = set()
        body = self.load("/?" + self.query)
        while True:
            ids = CARD.findall(body)
            for repo_id in ids:
                if repo_id in seen:
                    self.stats["duplicates"] += 1
                seen.add(repo_id)
            self.stats["rows"] += len(ids)
            for path in AVATAR.findall(body):
                self.get(html.unescape(path.decode()))
            for path in STARS.findall(body):
                if b"history-unavailable" in self.get(html.unescape(path.decode())):
                    self.stats["stars_unavailable"] += 1
            links = NEXT.findall(body)
            if self.stats["rows"] >= self.rows or not links:
                break
            body = self.load(html.unescape(links[-1].decode()))
        if self.connection is not None:
            self.connection.close()


def main():
    port, queries_file = int(sys.argv[1]), sys.argv[2]
    rows = int(sys.argv[3]) if len(sys.argv) > 3 else 1000
    parallel = int(sys.argv[4]) if len(sys.argv) > 4 else 4
    with open(queries_file) as f:
        queries = [line.strip() for line in f if line.strip()]
    sessions = [Session(port, q, rows) for q in queries]
    started = time.monotonic()
    pending = list(sessions)
    lock = threading.Lock()

    def worker():
        while True:
            with lock:
                if not pending:
                    return
                session = pending.pop(0)
            session.run()

    threads = [threading.Thread(target=worker) for _ in range(parallel)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total = {"sessions": len(sessions), "seconds": round(time.monotonic() - started, 1),
             "min_rows": min(s.stats["rows"] for s in sessions)}
    for key in ("requests", "rows", "non_200", "error_rows", "stars_unavailable", "avatar_placeholders",
                "bytes", "duplicates"):
        total[key] = sum(s.stats[key] for s in sessions)
    total["failures"] = [f for s in sessions for f in s.stats["failures"]][:10]
    print(json.dumps(total))


if __name__ == "__main__":
    main()
