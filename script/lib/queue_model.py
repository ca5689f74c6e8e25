#!/usr/bin/env python3
"""A model of script/test's queue: how long it takes for given --jobs and --cores, from each item's
wall and CPU time (a test-timings.json, or the built-in figures of the CI run on main 8122b3b).

Items start as test_targets.py starts them (longest first; the first that fits the CPU budget);
while the running items' expected CPU exceeds the machine's cores, all of them slow down in
proportion. Checked against that CI run: the old queue (two at a time, the rolling restart alone
after the rest) models at 686 s; it ran 692 s.

With --shards FILE, a sharded target's figures are shared out among its shards (by the SHARE_OF
table below, else evenly). `--today` models the clean-clone run of main ef40bd0 (the figures of
TODAY below: what changed since the CI run, with their sources) before and after the shards, with
the steps before the queue (checks, the build).

Usage: queue_model.py [--timings FILE] [--cores-of-machine N] [--today]
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

# ef40bd0 (redis, privacy, tokens, windows merged) and 12db82d (frontend), quiet 2 cores, wall/CPU seconds. Each figure's
# source is beside it; "scaled" ones are loaded measurements divided by the load's slowdown, the
# least certain figures here.
TODAY = dict(CI_8122B3B)
TODAY.update({
    # 12db82d (frontend merged): the suites' loaded wall times sum to about 1,470 s (05:59 run at load
    # 20, and the frontend engineer's figures for EngineFlow, DeepScroll, Header, SearchBox at load
    # 10-24) against 874 s for the same kind of run of 8122b3b, which CI ran in 436 s (224 CPU-s):
    # both scaled by 1,470/874. Not measured: the least certain figure here.
    "BrowserTests": (733, 377),
    "fuzz": (110, 95),  # --onone, 5 s a target (build CPU measured: 76 s)
    # Measured 06:54 on ef40bd0: 281.6 s wall, 129.5 CPU-s at load 14.5 -> 23.7; the same target ran
    # 200.4 s / 57.6 CPU-s at load ~20 on 8122b3b, which CI ran in 91 s: wall scaled by 91/200.
    "ClusterTests": (128, 125),
    # Measured 07:01 on ef40bd0: 234.3 s wall, 119.8 CPU-s at load 10.8 -> 13.2 (178 tests; the window
    # walks, privacy and token suites added; 8122b3b's was 65/60 on CI); in-process and CPU-bound, so
    # a quiet wall a little under its CPU.
    "AppTests": (105, 115),
    # Measured 07:05 (load ~13): RedisTests 24.1 s / 5.8 CPU-s (the Sentinel suite waits on its
    # topologies, 22 s), SessionsTests 9.5 / 3.8, SharedStoreTests 3.0 / 0.8.
    "RedisTests": (22, 5.8), "SessionsTests": (8, 3.8),
})
BEFORE_QUEUE = {"checks": 12, "deps (installed)": 3, "build": 203}  # the build: the lead's clean-clone figure
# Shares of a sharded target's wall and CPU, from the suites' loaded wall times (test-shards.txt):
# BrowserTests: about 431 and 450 s of 881 (dc76f18's clean-clone run, moved as the file says).
SHARE_OF = {"BrowserTests:engines": 0.49, "BrowserTests:chromium": 0.51}


def shard(items, shards_file):
    """Replaces each sharded target by its shards (SHARE_OF, else even shares)."""
    shards = {}
    with open(shards_file, encoding="utf-8") as f:
        for line in f:
            words = line.split("#", 1)[0].split()
            if len(words) >= 3:
                shards.setdefault(words[0], [])
                if words[1] not in shards[words[0]]:
                    shards[words[0]].append(words[1])
    out = dict(items)
    for target, names in shards.items():
        if target not in out:
            continue
        wall, cpu = out.pop(target)
        for name in names:
            part = SHARE_OF.get(f"{target}:{name}", 1 / len(names))
            out[f"{target}:{name}"] = (wall * part, cpu * part)
    return out


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
    if "--today" in sys.argv:
        return today(sys.argv[sys.argv.index("--shards") + 1] if "--shards" in sys.argv else "script/lib/test-shards.txt")
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
        print("and --reserve rolling-restart=1.6 (what round 2's script/test ran):")
        print(f"--jobs 3 --cores {machine * 1.15:.2f}: "
              f"{model(items, machine, 3, machine * 1.15, reserve={'rolling-restart': 1.6}):.0f} s")
    return 0


def today(shards_file):
    machine, reserve = 2.0, {"rolling-restart": 1.6}  # as script/test kept until round 3
    before = sum(BEFORE_QUEUE.values())
    print("steps before the queue: " + ", ".join(f"{k} {v} s" for k, v in BEFORE_QUEUE.items()))
    print("the queue's items (wall/CPU s): " + ", ".join(f"{k} {w:g}/{c:g}" for k, (w, c) in TODAY.items()))
    sharded = shard(TODAY, shards_file)
    for label, items, held in (("round 2 (no shards, 1.6 cores kept for the rolling restart)", TODAY, reserve),
                               ("shards, 1.6 cores kept", sharded, reserve),
                               ("no shards, nothing kept", TODAY, {}),
                               ("shards, nothing kept (what script/test runs)", sharded, {})):
        for jobs in (3, 4):
            queue = model(items, machine, jobs, machine * 1.15, reserve=held)
            print(f"{label}, --jobs {jobs} --cores {machine * 1.15:.2f}: queue {queue:.0f} s, "
                  f"total {before + queue:.0f} s ({(before + queue) / 60:.1f} min)")
    cpu = sum(c for _, c in TODAY.values())
    print(f"the floor: the queue's {cpu:.0f} CPU-s on {machine:g} cores is {cpu / machine:.0f} s; "
          f"with the steps before it, {(before + cpu / machine) / 60:.1f} min")
    return 0


if __name__ == "__main__":
    sys.exit(main())
