#!/usr/bin/env python3
"""Steady mixed load at a fixed rate, for the rolling-restart test (script/test-rolling-restart).

Requests are scheduled at RATE per second whatever the server does (an open model: a slow answer
does not slow the schedule), spread over worker threads that each keep one HTTP/1.1 keep-alive
connection. The mix: 15% pages (streamed), 35% fragments, 30% star-history details, 20% static
files. A request fails on a connection error or reset, any status other than 200, or a body cut
short: http.client raises on a chunked stream that ends without its last chunk, and a page must
end with </html>, a fragment must hold cards.

Usage: steady_load.py PORT SECONDS RATE OUT.json
Writes every request as [scheduled_s, latency_s, kind, ok, detail] (time from the schedule, so a
queued request counts its wait) to OUT.json, and prints a summary.
"""
import http.client, json, queue, random, re, sys, threading, time

port, seconds, rate, out = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), sys.argv[4]
QUERY = "/?q=stars%3A%3E10"


def fetch(conn, path):
    conn.request("GET", path, headers={"Host": "localhost"})
    response = conn.getresponse()
    body = response.read()
    return response.status, body


seed = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
status, page = fetch(seed, QUERY)
assert status == 200, status
html = page.decode()
fragments = [m.replace("&amp;", "&") for m in re.findall(r'data-fragment="([^"]*)"', html)]
details = sorted(set(re.findall(r'"(/fragments/stars/[^"]+)"', html)))
statics = sorted(set(re.findall(r'"(/static/[^"]+)"', html)))
assert fragments and details and statics, (len(fragments), len(details), len(statics))
# Deeper fragments too: walk a few batches so the load reads past the first page.
walk = fragments[0]
for _ in range(4):
    status, body = fetch(seed, walk)
    more = re.findall(r'data-fragment="([^"]*)"', body.decode())
    if not more:
        break
    walk = more[0].replace("&amp;", "&")
    fragments.append(walk)
seed.close()

mix = [("page", QUERY)] * 15 + [("fragment", f) for f in fragments] * (35 // len(fragments) + 1)
mix = mix[:50] + [("details", d) for d in details] * (30 // len(details) + 1)
mix = mix[:80] + [("static", s) for s in statics] * (20 // len(statics) + 1)
mix = mix[:100]
jobs = queue.Queue()
results = []
lock = threading.Lock()


def complete(kind, body):
    if kind == "page":
        return body.rstrip().endswith(b"</html>")
    if kind == "fragment":
        return b"data-repo-id=" in body or b"role=\"status\"" in body
    return len(body) > 0


def worker():
    conn = None
    while True:
        job = jobs.get()
        if job is None:
            return
        scheduled, kind, path = job
        ok, detail = False, ""
        try:
            if conn is None:
                conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
            status, body = fetch(conn, path)
            ok = status == 200 and complete(kind, body)
            detail = "" if ok else "status %d, %d bytes" % (status, len(body))
        except Exception as error:  # reset, refused, cut stream, timeout
            detail = "%s: %s" % (type(error).__name__, error)
            conn.close()
            conn = None
        latency = time.monotonic() - scheduled
        with lock:
            results.append([scheduled - start, latency, kind, ok, detail])


threads = [threading.Thread(target=worker, daemon=True) for _ in range(32)]
for t in threads:
    t.start()
rng = random.Random(7)
start = time.monotonic()
n = 0
while True:
    due = start + n / rate
    if due - start >= seconds:
        break
    now = time.monotonic()
    if due > now:
        time.sleep(due - now)
    kind, path = rng.choice(mix)
    jobs.put((due, kind, path))
    n += 1
for _ in threads:
    jobs.put(None)
for t in threads:
    t.join(timeout=60)
with open(out, "w") as f:
    json.dump({"start_wall": time.time() - (time.monotonic() - start), "results": results}, f)
failed = [r for r in results if not r[3]]
print("steady_load: %d requests at %.0f/s, %d failed" % (len(results), rate, len(failed)))
for r in failed[:10]:
    print("  failed:", r)
