#!/usr/bin/env python3
"""Summarises steady_load.py's results around a rolling restart.

Usage: restart_report.py LOAD.json RESTART_START_WALL RESTART_END_WALL
Prints served and failed requests, the rate, and p50/p99 latency before the restart (steady, from
3 s in: the first seconds fill the caches) and during it; exits 1 if any request failed.
"""
import json, sys

data = json.load(open(sys.argv[1]))
begin = float(sys.argv[2]) - data["start_wall"]
end = float(sys.argv[3]) - data["start_wall"]
results = data["results"]


def quantile(values, q):
    values = sorted(values)
    return values[min(len(values) - 1, int(q * len(values)))] if values else float("nan")


def line(name, rows, span):
    lat = [r[1] * 1000 for r in rows]
    failed = sum(1 for r in rows if not r[3])
    print("%-8s %5d served, %d failed, %.1f req/s, p50 %.1f ms, p99 %.1f ms"
          % (name, len(rows) - failed, failed, len(rows) / span if span > 0 else 0, quantile(lat, 0.5), quantile(lat, 0.99)))


WARM = 3.0
steady = [r for r in results if WARM <= r[0] < begin]
during = [r for r in results if begin <= r[0] <= end]
line("steady", steady, begin - WARM)
line("during", during, end - begin)
line("all", results, max(r[0] for r in results) if results else 0)
kinds = {}
for r in during:
    kinds[r[2]] = kinds.get(r[2], 0) + 1
print("during, by kind:", ", ".join("%s %d" % kv for kv in sorted(kinds.items())))
failed = [r for r in results if not r[3]]
for r in failed[:20]:
    print("failed:", r)
sys.exit(1 if failed else 0)
