#!/usr/bin/env python3
"""A model of script/test's queue: how long it takes for given --jobs and --cores, from each item's
wall and CPU time (a test-timings.json, or the built-in figures of the CI run on main 8122b3b).

Items start as test_targets.py starts them (longest first; the first that fits the CPU budget);
while the running items' expected CPU exceeds the machine's cores, all of them slow down in
proportion. Checked against that CI run: the old queue (two at a time, the rolling restart alone
after the rest) models at 686 s; it ran 692 s.

Usage: queue_model.py [--timings FILE] [--cores-of-machine N]
"""
import json
import sys

CI_8122B3B = {  # wall, CPU seconds on the clean-clone CI run (2 cores)
    "BrowserTests": (436, 224), "release": (261, 207), "fuzz": (240, 220), "HostileUpstreamTests": (85, 26),
    "ClusterTests": (91, 53), "AppTests": (65, 60), "GitHubDoubleTests": (28, 30), "redbot": (44, 41),
    "rolling-restart": (43, 10), "GitHubTests": (6, 6), "HTTPServerTests": (7.5, 2.3), "CurlClientTests": (8, 7.4),
    "MustacheTests": (3.1, 3.1), "EndToEndTests": (2.6, 2.4), "SessionsTests": (2.4, 2.6), "RedisTests": (2.6, 1.3),
    "other small targets": (3, 2),
}


def model(items, machine, jobs, budget, alone=(), reserve=None):
    reserve = reserve or {}

    def share(name):
        wall, cpu = items[name]
        return min(max(cpu / wall, 0.05, reserve.get(name, 0.0)), machine)

    order = sorted((n for n in items if n not in alone), key=lambda n: -items[n][0])
    t, running, pending = 0.0, {}, list(order)
    while pending or running:
        while True:
            fits = [n for n in pending if not running or (
                len(running) < jobs and sum(share(r) for r in running) + share(n) <= budget + 0.05)]
            if not fits:
                break
            pending.remove(fits[0])
            running[fits[0]] = items[fits[0]][0]
        rate = min(1.0, machine / sum(share(r) for r in running))
        first = min(running, key=running.get)
        step = running[first] / rate
        for name in running:
            running[name] -= step * rate
        t += step
        running.pop(first)
    return t + sum(items[n][0] for n in alone)


def main():
    items = dict(CI_8122B3B)
    if "--timings" in sys.argv:
        with open(sys.argv[sys.argv.index("--timings") + 1]) as f:
            items = {k: (v["wall"], v["cpu"]) for k, v in json.load(f).items() if isinstance(v, dict)}
    machine = float(sys.argv[sys.argv.index("--cores-of-machine") + 1]) if "--cores-of-machine" in sys.argv else 2.0
    print(f"old: 2 at a time, rolling restart alone: {model(items, machine, 2, 99, alone=('rolling-restart',)):.0f} s")
    for jobs in (2, 3, 4):
        for factor in (1.0, 1.15, 1.3, 1.5):
            print(f"--jobs {jobs} --cores {machine * factor:.2f}: {model(items, machine, jobs, machine * factor):.0f} s")
    if "fuzz" in items and "--timings" not in sys.argv:
        items["fuzz"] = (110, 95)  # --onone, 5 s a target (build CPU measured: 76 s)
        print("with the fuzz build --onone:")
        for factor in (1.0, 1.15, 1.3):
            print(f"--jobs 3 --cores {machine * factor:.2f}: {model(items, machine, 3, machine * factor):.0f} s")
        print("and --reserve rolling-restart=1.6 (what script/test runs):")
        print(f"--jobs 3 --cores {machine * 1.15:.2f}: "
              f"{model(items, machine, 3, machine * 1.15, reserve={'rolling-restart': 1.6}):.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
