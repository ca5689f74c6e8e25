#!/usr/bin/env python3
"""Scrolling at human speed in real Chromium, against the GitHub double at injected latency.

Run through script/bench-scroll, which builds the release binaries first. Standard library only:
W3C WebDriver over HTTP to chromedriver, CDP through chromedriver's goog/cdp/execute extension.

For each run and each speed a fresh repo-scroll (cold cache) and a fresh Chromium session load the
results page; probe.js then scrolls from requestAnimationFrame at a constant speed and records what a
reader sees. A last phase per run scrolls fast to N rows and counts DOM elements and renderer memory.
Figures are medians over the runs.
"""
import argparse
import http.client as httpclient
import http.server as httpserver
import threading
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.parse
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
CHROMIUM = "/usr/lib/chromium/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
CHROME_ARGS = ["--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--window-size=1280,900",
               "--disable-gpu"]
PROCS = []


def log(*args):
    print(*args, file=sys.stderr, flush=True)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def spawn(args, out_path):
    out = open(out_path, "w")
    proc = subprocess.Popen(args, stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
    PROCS.append(proc)
    return proc


def stop(proc):
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    if proc in PROCS:
        PROCS.remove(proc)


def wait_listening(path, name, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        try:
            m = re.search(r"listening on http://[^:]*:(\d+)", open(path).read())
            if m:
                return int(m.group(1))
        except OSError:
            pass
        time.sleep(0.1)
    sys.exit(f"{name} did not start:\n" + open(path).read())


def http(method, url, body=None, timeout=120):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, method=method,
                                 headers={"Content-Type": "application/json"} if data else {})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            raw = r.read()
    except urllib.error.HTTPError as e:
        raw = e.read()
        raise RuntimeError(f"{method} {url} -> {e.code}: {raw[:500]!r}") from None
    return json.loads(raw) if raw else None


class Session:
    """One Chromium session through chromedriver's W3C API."""

    def __init__(self, driver):
        self.driver = driver
        caps = {"capabilities": {"alwaysMatch": {
            "browserName": "chrome", "pageLoadStrategy": "normal",
            "timeouts": {"implicit": 0, "pageLoad": 60000, "script": 60000},
            "goog:chromeOptions": {"binary": CHROMIUM, "args": CHROME_ARGS}}}}
        self.id = http("POST", f"{driver}/session", caps)["value"]["sessionId"]
        self.base = f"{driver}/session/{self.id}"

    def cdp(self, cmd, params=None):
        return http("POST", f"{self.base}/goog/cdp/execute", {"cmd": cmd, "params": params or {}})["value"]

    def script(self, source, *args):
        return http("POST", f"{self.base}/execute/sync", {"script": source, "args": list(args)})["value"]

    def go(self, url):
        http("POST", f"{self.base}/url", {"url": url})

    def close(self):
        try:
            http("DELETE", self.base, timeout=30)
        except Exception as e:  # the browser may already be gone
            log("session close:", e)


class UpstreamLog:
    """A pass-through proxy between repo-scroll and the double that records each upstream path, so the
    bench can tell which star histories were fetched for cards that never came into view."""

    def __init__(self, target_port):
        self.paths = []
        self.lock = threading.Lock()
        log_ = self

        class Handler(httpserver.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                with log_.lock:
                    log_.paths.append(self.path)
                conn = httpclient.HTTPConnection("127.0.0.1", target_port, timeout=120)
                try:
                    headers = {k: v for k, v in self.headers.items() if k.lower() not in ("connection", "keep-alive")}
                    conn.request("GET", self.path, headers=headers)
                    r = conn.getresponse()
                    body = r.read()
                    self.send_response(r.status)
                    for k, v in r.getheaders():
                        if k.lower() not in ("connection", "keep-alive", "transfer-encoding", "content-length"):
                            self.send_header(k, v)
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                except (OSError, httpclient.HTTPException):
                    self.close_connection = True
                finally:
                    conn.close()

            def log_message(self, *args):
                pass

        self.server = httpserver.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def take(self):
        with self.lock:
            paths, self.paths = self.paths, []
        return paths


def descendants(root_pid):
    """Pids below root_pid (chromedriver -> chromium -> its children)."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = open(f"/proc/{name}/stat").read()
                parents[int(name)] = int(stat[stat.rindex(")") + 2:].split()[1])
            except (OSError, ValueError):
                pass
    found, frontier = set(), {root_pid}
    while frontier:
        frontier = {p for p, pp in parents.items() if pp in frontier and p not in found}
        found |= frontier
    return found


def renderer_rss_mb(driver_pid):
    """The largest renderer's resident memory (the page's renderer), in MB."""
    best = 0
    for pid in descendants(driver_pid):
        try:
            if b"--type=renderer" not in open(f"/proc/{pid}/cmdline", "rb").read():
                continue
            for line in open(f"/proc/{pid}/status"):
                if line.startswith("VmRSS:"):
                    best = max(best, int(line.split()[1]))
        except OSError:
            pass
    return best / 1024


class Bench:
    def __init__(self, opts):
        self.o = opts
        self.work = opts.work
        self.probe = open(os.path.join(HERE, "probe.js")).read()
        port = free_port()
        self.driver_proc = spawn([CHROMEDRIVER, f"--port={port}", "--allowed-ips=127.0.0.1"],
                                 f"{self.work}/chromedriver.out")
        self.driver = f"http://127.0.0.1:{port}"
        deadline = time.time() + 30
        while True:
            try:
                if http("GET", f"{self.driver}/status", timeout=2)["value"]["ready"]:
                    break
            except Exception:
                pass
            if time.time() > deadline:
                sys.exit("chromedriver did not start")
            time.sleep(0.2)
        self.double_proc = spawn(
            [opts.double, "--port", "0", "--latency", opts.latency, "--search-limit", "100000000",
             "--core-limit", "1000000000"], f"{self.work}/double.out")
        double_port = wait_listening(f'{self.work}/double.out', 'github-double')
        self.double = f"http://127.0.0.1:{double_port}"
        self.upstream = UpstreamLog(double_port)
        self.proxy = f"http://127.0.0.1:{self.upstream.port}"
        self.starts = 0

    def start_app(self):
        self.starts += 1
        out = f"{self.work}/app.{self.starts}.out"
        o = self.o
        args = [o.app, "--port", "0", "--github-api", self.proxy, "--avatar-base", self.proxy,
                "--templates", os.path.join(o.root, "Templates"), "--public", os.path.join(o.root, "Public"),
                "--access-log", "false"] + o.app_flag
        proc = spawn(args, out)
        return proc, f"http://127.0.0.1:{wait_listening(out, 'repo-scroll')}"

    def open_page(self, app_url):
        http("POST", f"{self.double}/_double/reset")
        self.upstream.take()
        s = Session(self.driver)
        s.cdp("Page.addScriptToEvaluateOnNewDocument", {"source": self.probe})
        q = urllib.parse.urlencode({"q": self.o.query})
        s.go(f"{app_url}/?{q}")
        deadline = time.time() + 60
        while s.script("return document.querySelectorAll('#feed article[data-repo-id]').length") == 0:
            if time.time() > deadline:
                raise RuntimeError("no cards on the first page within 60 s")
            time.sleep(0.1)
        return s

    def drive(self, s, speed, seconds, until_rows=0):
        s.script("window.__scroll.start(arguments[0], arguments[1], arguments[2])", speed, seconds, until_rows)
        deadline = time.time() + seconds + 120
        while not s.script("return window.__scroll.done"):
            if time.time() > deadline:
                raise RuntimeError("the scroll never finished")
            time.sleep(0.5)
        return s.script("return window.__scroll.report()")

    def counters(self):
        c = http("GET", f"{self.double}/_double/counters")
        return {k: v["calls"] for k, v in c["endpoints"].items()}

    def scroll_run(self, speed):
        proc, url = self.start_app()
        s = None
        try:
            s = self.open_page(url)
            time.sleep(self.o.settle)  # the reader looks at the first screen before scrolling
            r = self.drive(s, speed, self.o.seconds)
            time.sleep(0.3)
            r["calls"] = self.counters()
            unseen = set(r["neverInView"])
            histories = [m.group(1) for m in (re.match(r"/repos/([^/]+/[^/]+)/stargazers/history", p)
                                              for p in self.upstream.take()) if m]
            r["historyCalls"] = len(histories)
            r["unseenHistoryCalls"] = sum(1 for h in histories if h in unseen)
            # Which of the unseen the page asked for in a request answered by now (Resource Timing has
            # no entry for one still in flight); the rest were warmed by the server or are in flight.
            asked = set(s.script(
                "return performance.getEntriesByType('resource').map(e => e.name)"
                ".filter(n => n.includes('/fragments/stars'))"))
            asked_names = set()
            for url in asked:
                query = urllib.parse.urlsplit(url).query
                asked_names.update(urllib.parse.parse_qs(query).get("r", []))
                m = re.search(r"/fragments/stars/([^/?]+/[^/?]+)", url)
                if m:
                    asked_names.add(urllib.parse.unquote(m.group(1)))
            r["unseenCalls"] = [{"repo": h, "answeredToPage": h in asked_names} for h in histories if h in unseen]
            return r
        finally:
            if s:
                s.close()
            stop(proc)

    def dom_run(self):
        proc, url = self.start_app()
        s = None
        try:
            s = self.open_page(url)
            time.sleep(2)
            before = renderer_rss_mb(self.driver_proc.pid)
            r = self.drive(s, 20000, 600, self.o.rows)
            time.sleep(3)
            dom = s.cdp("Memory.getDOMCounters")
            s.cdp("Performance.enable")
            metrics = {m["name"]: m["value"] for m in s.cdp("Performance.getMetrics")["metrics"]}
            after = renderer_rss_mb(self.driver_proc.pid)
            return {"rows": r["rows"], "elements": s.script("return document.getElementsByTagName('*').length"),
                    "nodes": dom["nodes"], "listeners": dom["jsEventListeners"],
                    "heapMB": metrics.get("JSHeapUsedSize", 0) / 1048576,
                    "rssMB": after, "rssDeltaMB": after - before}
        finally:
            if s:
                s.close()
            stop(proc)


def summarise(r):
    """One scroll run reduced to its figures."""
    frags = [f for f in r["fragments"] if f["scrolling"]]
    waits = [f["wait"] for f in frags]
    calls = r["calls"]
    rows = max(1, r["rows"])
    q = r["qualifying"]
    return {
        "stalls": len(r["stalls"]),
        "stallMedianMs": statistics.median(r["stalls"]) if r["stalls"] else 0,
        "loadingS": r["loadingMs"] / 1000,
        "waitMedianMs": statistics.median(waits) if waits else None,
        "waitMaxMs": max(waits) if waits else None,
        "slowServer": sum(1 for f in frags if f["server"] > 250),
        "fragments": len(frags),
        "qualifying": q,
        "blankPct": 100 * r["blankAny"] / q if q else None,
        "blankAvatarPct": 100 * r["blankAvatar"] / q if q else None,
        "blankHistoryPct": 100 * r["blankHistory"] / q if q else None,
        "rows": r["rows"],
        "ended": r["ended"],
        "callsPer100": 100 * sum(calls.values()) / rows,
        "searchPer100": 100 * calls.get("search", 0) / rows,
        "historyPer100": 100 * calls.get("history", 0) / rows,
        "avatarPer100": 100 * calls.get("avatar", 0) / rows,
        "longFrames": r["longFrames"],
        "unseenHistoryPct": 100 * r["unseenHistoryCalls"] / r["historyCalls"] if r["historyCalls"] else 0,
    }


def med(values):
    values = [v for v in values if v is not None]
    return statistics.median(values) if values else None


def fmt(v, unit="", digits=0):
    if v is None:
        return "–"
    return f"{v:,.{digits}f}{unit}"


def loadavg():
    return open("/proc/loadavg").read().split()[:3]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--app", required=True)
    p.add_argument("--double", required=True)
    p.add_argument("--root", required=True, help="checkout whose Templates/ and Public/ the app serves")
    p.add_argument("--work", required=True)
    p.add_argument("--runs", type=int, default=3)
    p.add_argument("--seconds", type=float, default=30)
    p.add_argument("--speeds", default="600,1500,4000")
    p.add_argument("--rows", type=int, default=1000, help="rows for the DOM/memory phase (0 skips it)")
    p.add_argument("--query", default="swift")
    p.add_argument("--settle", type=float, default=2, help="seconds on the first screen before scrolling")
    p.add_argument("--latency", default="300..900")
    p.add_argument("--app-flag", action="append", default=[], help="extra repo-scroll flag (repeatable)")
    p.add_argument("--json", help="also write every run's raw figures here")
    o = p.parse_args()
    speeds = [int(x) for x in o.speeds.split(",") if x]

    bench = Bench(o)
    loads = [loadavg()]
    per_speed = {v: [] for v in speeds}
    doms = []
    raw = []
    try:
        for run in range(o.runs):
            for v in speeds:
                log(f"run {run + 1}/{o.runs}: {v} px/s for {o.seconds:g} s (load {' '.join(loadavg())})")
                r = bench.scroll_run(v)
                s = summarise(r)
                per_speed[v].append(s)
                raw.append({"run": run, "speed": v, "summary": s, "stalls": r["stalls"],
                            "fragments": r["fragments"], "blankCards": r["blankCards"],
                            "neverInView": r["neverInView"], "unseenCalls": r["unseenCalls"]})
                log("   ", json.dumps(s))
            if o.rows > 0:
                log(f"run {run + 1}/{o.runs}: DOM and memory at {o.rows} rows")
                d = bench.dom_run()
                doms.append(d)
                raw.append({"run": run, "dom": d})
                log("   ", json.dumps(d))
            loads.append(loadavg())
    finally:
        for proc in list(PROCS):
            stop(proc)

    if o.json:
        with open(o.json, "w") as f:
            json.dump(raw, f, indent=1)

    def m(v, key):
        return med([s[key] for s in per_speed.get(v, [])])

    print(f"\nscript/bench-scroll: {o.runs} run(s), {o.seconds:g} s per speed, query {o.query!r}, "
          f"double latency {o.latency} ms on every endpoint; app {o.app}")
    print("load average (1/5/15 min) before each run and at the end: " +
          "; ".join("/".join(l) for l in loads))
    print("\nper speed (medians over runs):")
    head = f"{'px/s':>6} {'stalls':>6} {'stall ms':>8} {'loading s':>9} {'wait ms':>8} {'wait max':>8} " \
           f"{'slow frag':>9} {'blank%':>7} {'avatar%':>7} {'history%':>8} {'judged':>6} {'rows':>5} " \
           f"{'calls/100':>9} {'search':>6} {'history':>7} {'avatar':>6} {'unseen%':>7}"
    print(head)
    for v in speeds:
        print(f"{v:>6} {fmt(m(v, 'stalls')):>6} {fmt(m(v, 'stallMedianMs')):>8} {fmt(m(v, 'loadingS'), '', 1):>9} "
              f"{fmt(m(v, 'waitMedianMs')):>8} {fmt(m(v, 'waitMaxMs')):>8} {fmt(m(v, 'slowServer')):>9} "
              f"{fmt(m(v, 'blankPct'), '', 1):>7} {fmt(m(v, 'blankAvatarPct'), '', 1):>7} "
              f"{fmt(m(v, 'blankHistoryPct'), '', 1):>8} {fmt(m(v, 'qualifying')):>6} {fmt(m(v, 'rows')):>5} "
              f"{fmt(m(v, 'callsPer100'), '', 1):>9} {fmt(m(v, 'searchPer100'), '', 1):>6} "
              f"{fmt(m(v, 'historyPer100'), '', 1):>7} {fmt(m(v, 'avatarPer100'), '', 1):>6} "
              f"{fmt(m(v, 'unseenHistoryPct'), '', 1):>7}")
    print("  stalls: the last card's bottom in view before the next batch arrived (the reader reached the end);\n"
          "  loading s: time a loading row was in the viewport; wait: Resource Timing requestStart - startTime\n"
          "  of fragment requests sent while scrolling (time queued in the browser before the request went out);\n"
          "  slow frag: fragments whose server time (responseStart - requestStart) exceeded 250 ms (waited on\n"
          "  GitHub); blank%: cards that stayed half-visible for 300 ms with avatar or history still missing, of\n"
          "  the 'judged' cards that stayed visible that long; calls/100: upstream calls per 100 rows loaded;\n"
          "  unseen%: star-history calls upstream for cards that never came into view, of all history calls.")
    if doms:
        print(f"\nat {o.rows} rows (medians): rows {fmt(med([d['rows'] for d in doms]))}, "
              f"elements {fmt(med([d['elements'] for d in doms]))}, DOM nodes {fmt(med([d['nodes'] for d in doms]))}, "
              f"JS heap {fmt(med([d['heapMB'] for d in doms]), ' MB', 1)}, "
              f"renderer RSS {fmt(med([d['rssMB'] for d in doms]), ' MB', 1)} "
              f"(+{fmt(med([d['rssDeltaMB'] for d in doms]), ' MB', 1)} since the first page)")

    def row(name, now, target):
        print(f"| {name} | {now} | {target} |")
    print("\n| figure | now | target |\n|---|---:|---:|")
    if 4000 in per_speed:
        row("stalls at 4,000 px/s", f"{fmt(m(4000, 'stalls'))} in {o.seconds:g} s, median "
            f"{fmt(m(4000, 'stallMedianMs'))} ms", "0")
        row("loading-row time at 4,000 px/s", fmt(m(4000, "loadingS"), " s", 1), "0 s")
        row("browser wait before a fragment request at 4,000 px/s (median)", fmt(m(4000, "waitMedianMs"), " ms"), "–")
    if 1500 in per_speed:
        row("cards blank ≥300 ms at 1,500 px/s", fmt(m(1500, "blankPct"), "%", 1), "≤ 5%")
    if 600 in per_speed:
        row("cards blank ≥300 ms at 600 px/s", fmt(m(600, "blankPct"), "%", 1), "0%")
    for v in speeds:
        row(f"upstream calls per 100 rows at {v:,} px/s", fmt(m(v, "callsPer100"), "", 1), "–")
    for v in speeds:
        row(f"history calls for cards never in view at {v:,} px/s", fmt(m(v, "unseenHistoryPct"), "%", 1), "< 10%")
    if doms:
        row(f"DOM elements at {o.rows:,} rows", fmt(med([d["elements"] for d in doms])), "≤ 15k")
        row(f"renderer memory at {o.rows:,} rows (RSS, growth since first page)",
            f"{fmt(med([d['rssMB'] for d in doms]), ' MB')} (+{fmt(med([d['rssDeltaMB'] for d in doms]), ' MB')})", "–")


if __name__ == "__main__":
    main()
