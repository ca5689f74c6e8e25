#!/usr/bin/env python3
"""Runs Swift test targets from the built test bundle, each target in its own process, and other
steps (shell commands), a few at a time, and accounts for every test by name (script/test calls this).

Each target runs as `BUNDLE --testing-library swift-testing --filter '^Target\\.'` with Swift
Testing's event stream written to a file. The tests a target holds are listed first
(`BUNDLE --list-tests`, what `swift test list` prints), so a target that crashes or hangs still
accounts for every test: it counts all of its tests as failed, and names the ones that never
finished. A test cancelled with a "skipped: ..." comment (`SharedData.path`, `TestTier`) counts as
skipped, with its reason. A step passes when its command exits 0.

A long target may be split into shards (--shards FILE, script/lib/test-shards.txt): each shard is an
item of its own, `Target:shard`, run as its own process with a --filter on the suites and tests it
names, so the shards of one target run side by side. Every listed test of a sharded target must fall
in exactly one shard: a test in none (a new suite nobody placed) or in two fails the run, by name; a
shard entry that matches nothing fails it too (the file stays exact). Naming the target runs all its
shards; `Target:shard` runs one. A crashed shard counts all of its own tests as failed.

Targets and steps share one queue, longest first (by --timings, else by --expect, else first), so
that the last to finish is a short one; each prints its summary when it ends, and the run ends with
a table of every item's wall and CPU time. At most --jobs items run at once, and with --cores an
item starts only when the CPU it is expected to use (its CPU time over its wall time, from
--timings or --expect) fits in what the running items leave of the cores; the first waiting item
that fits starts, so a short one may go ahead of a long one that does not fit yet. A browser target
that mostly waits runs beside a build; two builds do not share the machine with a third CPU-bound
item.

Usage: test_targets.py --bundle PATH [--jobs N] [--tier in-process] [--logs DIR] [--timings FILE]
                       [--expect NAME=SECONDS]... [--step NAME=COMMAND]... [--alone NAME]...
                       [--target-timeout S] [--cores N] [--reserve NAME=CORES]...
                       [--shards FILE] [--live] [--all] [TARGET[:SHARD]...]
  --jobs N           items run at once, at most (default 1)
  --cores N          CPU the running items may be expected to use together (default: no limit
                     but --jobs); an item expected to use more starts only when the rest ended
  --tier in-process  sets REPOSCROLL_TEST_TIER=in-process: tests that start processes are skipped
  --logs DIR         each item's console output and event stream (default: a temporary folder)
  --timings FILE     JSON of each item's last wall and CPU time, read for the order and updated
  --expect NAME=S[/C]  the expected wall time (and CPU time) of an item the timings do not know
                     yet; otherwise 30 s and one core
  --step NAME=CMD    a shell command run as one item of the queue (bash -c, from the package root)
  --alone NAME       run this item with nothing else running, after the rest (timing-sensitive)
  --reserve NAME=C   count this item as using at least C cores, whatever it uses: it starts only
                     when that much is free, and keeps it free (deadlines that a busy machine misses)
  --shards FILE      targets run as shards: lines `Target shard Suite[/Sub|/test] ...` (see above)
  --all              every test target the bundle lists (the default when no target or step is named)
  --target-timeout   seconds before an item's process group is killed (it then counts as crashed)
  --live             print the console output as it comes (only with --jobs 1)
Exits 1 when a test failed, a target crashed, ran nothing or exited non-zero, or a step failed;
2 on bad usage.
"""
import argparse
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time

LOCATION = re.compile(r"/[^/]+\.swift:\d+:\d+$")


def base_id(test_id):
    """The listed name of a test from its event-stream id (which ends with its source location)."""
    return LOCATION.sub("", test_id or "")


def list_tests(bundle):
    out = subprocess.run([bundle, "--testing-library", "swift-testing", "--list-tests"],
                         capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit(f"test_targets: {bundle} --list-tests failed ({out.returncode}):\n{out.stderr[-2000:]}")
    tests = {}
    for line in out.stdout.splitlines():
        line = line.strip()
        if not line or "." not in line:
            continue
        tests.setdefault(line.split(".", 1)[0], []).append(line)
    return tests

def read_shards(path):
    """{target: {shard: [entry, ...]}} from lines `Target shard entry...` (# starts a comment; lines
    naming the same shard add to it). An entry is a suite or test path below the target, as listed."""
    shards = {}
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            if len(words) < 3 or ":" in words[0] or ":" in words[1]:
                sys.exit(f"test_targets: {path}:{number}: expected `Target shard Suite...`")
            shards.setdefault(words[0], {}).setdefault(words[1], []).extend(words[2:])
    return shards


def under(test, target, entry):
    """Whether a listed test (`Target.Suite/test(args:)`) is the entry or below it."""
    name = test[len(target) + 1:]
    return name == entry or name.startswith(entry + "/") or name.startswith(entry + "(")


def shard_filter(target, entries):
    """The --filter regex of a shard: its entries, each a whole path component of the test's id."""
    alternatives = "|".join(re.escape(entry) for entry in entries)
    return f"^{re.escape(target)}\\.({alternatives})($|/|\\()"


def split_target(target, listed, shards):
    """(shard -> its tests, problems): every listed test in exactly one shard, else a problem naming it."""
    tests = {shard: [] for shard in shards}
    problems = []
    used = {(shard, entry): False for shard, entries in shards.items() for entry in entries}
    for test in listed:
        homes = [shard for shard, entries in shards.items() if any(under(test, target, e) for e in entries)]
        for shard in homes:
            for entry in shards[shard]:
                if under(test, target, entry):
                    used[(shard, entry)] = True
        if len(homes) == 1:
            tests[homes[0]].append(test)
        elif not homes:
            problems.append((test, f"in no shard of {target}: add its suite to a shard in the shards file"))
        else:
            problems.append((test, f"in {len(homes)} shards of {target} ({', '.join(homes)}): keep it in one"))
    for (shard, entry), hit in used.items():
        if not hit:
            problems.append((f"{target}:{shard} {entry}", "matches no listed test: remove or correct it"))
    return tests, problems


class Result:
    def __init__(self, target, listed):
        self.target = target
        self.listed = listed
        self.passed, self.failed, self.skipped, self.unfinished = [], [], [], []
        self.reasons = {}  # skipped test -> reason
        self.issues = {}  # failed test (or suite) -> first messages
        self.loose_issues = []  # issues outside any listed test
        self.status = None  # process return code (negative: signal)
        self.timed_out = False
        self.ran_to_end = False
        self.wall = 0.0
        self.cpu = 0.0

    @property
    def crashed(self):
        return self.timed_out or bool(self.unfinished) or (self.status is not None and self.status < 0) \
            or not self.ran_to_end

    @property
    def ok(self):
        return not self.crashed and not self.failed and not self.loose_issues and self.status == 0 \
            and len(self.listed) > 0

    def counts(self):
        """(passed, failed, skipped): a crashed target counts every one of its tests as failed."""
        if self.crashed:
            return 0, len(self.listed), 0
        return len(self.passed), len(self.failed), len(self.skipped)


def read_events(path, result):
    started, ended, skipped, cancelled = set(), set(), {}, {}
    cases_started, cases_cancelled = {}, {}
    issues = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8", errors="replace") as f:
            for line in f:
                try:
                    record = json.loads(line)
                except ValueError:
                    continue  # a line cut short by a crash
                if record.get("kind") != "event":
                    continue
                event = record.get("payload", {})
                kind = event.get("kind")
                test = base_id(event.get("testID"))
                comment = "; ".join(event.get("_comments") or [])
                if kind == "runEnded":
                    result.ran_to_end = True
                elif kind == "testStarted":
                    started.add(test)
                elif kind == "testEnded":
                    ended.add(test)
                elif kind == "testSkipped":
                    skipped[test] = comment or "skipped"
                elif kind == "testCancelled":
                    cancelled[test] = comment or "cancelled"
                elif kind == "testCaseStarted":
                    cases_started[test] = cases_started.get(test, 0) + 1
                elif kind == "testCaseCancelled" and "_testCase" in event:
                    cases_cancelled[test] = cases_cancelled.get(test, 0) + 1
                    cancelled.setdefault(test + "#case", comment or "cancelled")
                elif kind == "issueRecorded":
                    issue = event.get("issue", {})
                    if issue.get("isKnown") or issue.get("severity") == "warning":
                        continue
                    text = " ".join(m.get("text", "") for m in event.get("messages", []))
                    where = issue.get("sourceLocation") or {}
                    place = f"{where.get('fileID', '?')}:{where.get('line', '?')}"
                    issues.setdefault(test, []).append(f"{place}: {text}"[:400])
    listed = set(result.listed)
    # A suite skipped by a trait, or cancelled by its fixture, reports itself, not its tests.
    suites_skipped = {test: reason for test, reason in list(skipped.items()) + list(cancelled.items())
                      if test not in listed and not test.endswith("#case")}
    for test in result.listed:
        suite_skip = next((reason for suite, reason in suites_skipped.items()
                           if test.startswith(suite + "/") or test.startswith(suite + ".")), None)
        if test in issues:
            result.failed.append(test)
            result.issues[test] = issues[test]
        elif test in skipped or (suite_skip and test not in started):
            result.skipped.append(test)
            result.reasons[test] = skipped.get(test) or suite_skip
        elif test in cancelled:
            result.skipped.append(test)
            result.reasons[test] = cancelled[test]
        elif test in ended and cases_started.get(test, 0) > 0 \
                and cases_cancelled.get(test, 0) >= cases_started[test]:
            result.skipped.append(test)
            result.reasons[test] = cancelled.get(test + "#case", "cancelled")
        elif test in ended:
            result.passed.append(test)
        else:
            result.unfinished.append(test)
    # Issues recorded on a suite (its traits or fixtures) or outside any listed test.
    for test, messages in issues.items():
        if test not in listed:
            result.loose_issues.append((test or "(no test)", messages))


def run_process(command, env, log_path, timeout, live, result):
    """Runs `command` in its own process group, output to `log_path` (and the console when `live`),
    killed after `timeout` seconds (0: never); sets the result's status, timed_out, wall and cpu."""
    start = time.monotonic()
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, stdout=subprocess.PIPE if live else log, stderr=subprocess.STDOUT,
                                   env=env, start_new_session=True)
        timer = None
        if timeout:
            def expire():
                result.timed_out = True
                try:
                    os.killpg(process.pid, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            timer = threading.Timer(timeout, expire)
            timer.start()
        if live:
            for chunk in iter(lambda: process.stdout.read1(65536), b""):
                log.write(chunk)
                sys.stdout.buffer.write(chunk)
                sys.stdout.flush()
        _, status, usage = os.wait4(process.pid, 0)
        if timer:
            timer.cancel()
    result.wall = time.monotonic() - start
    result.cpu = usage.ru_utime + usage.ru_stime
    result.status = os.waitstatus_to_exitcode(status)


def run_target(target, listed, args, logs, live, test_filter=None):
    result = Result(target, listed)
    log_path = os.path.join(logs, f"{target}.log")
    events = os.path.join(logs, f"{target}.events.jsonl")
    if os.path.exists(events):
        os.remove(events)
    env = dict(os.environ)
    if args.tier == "in-process":
        env["REPOSCROLL_TEST_TIER"] = "in-process"
    command = [args.bundle, "--testing-library", "swift-testing", "--filter",
               test_filter or f"^{re.escape(target)}\\.",
               "--event-stream-output-path", events, "--event-stream-version", "0"]
    run_process(command, env, log_path, args.target_timeout, live, result)
    read_events(events, result)
    return result


class StepResult:
    def __init__(self, name):
        self.name = name
        self.status = None
        self.timed_out = False
        self.wall = 0.0
        self.cpu = 0.0

    @property
    def ok(self):
        return self.status == 0 and not self.timed_out


def run_step(name, command, args, logs, live):
    result = StepResult(name)
    run_process(["bash", "-c", command], dict(os.environ), os.path.join(logs, f"{name}.log"),
                args.target_timeout, live, result)
    return result


def describe_step(result, log_path, live):
    verdict = "ok" if result.ok else "timed out" if result.timed_out else f"FAILED (exit {result.status})"
    lines = [f"== {result.name}: {verdict} in {result.wall:.1f} s (cpu {result.cpu:.1f} s, log {log_path})"]
    if not live:
        with open(log_path, encoding="utf-8", errors="replace") as f:
            text = f.read().splitlines()
        shown = text[-15:] if result.ok else text[-80:]
        lines += ["   " + line for line in shown]
    return "\n".join(lines)


def describe(result, log_path):
    passed, failed, skipped = result.counts()
    line = f"== {result.target}: {passed} passed, {failed} failed, {skipped} skipped " \
           f"in {result.wall:.1f} s (cpu {result.cpu:.1f} s)"
    lines = [line]
    if result.crashed:
        why = "timed out and was killed" if result.timed_out else \
            f"was ended by signal {-result.status}" if result.status is not None and result.status < 0 else \
            f"exited {result.status} before the run ended" if not result.ran_to_end else "did not finish"
        done = len(result.listed) - len(result.unfinished)
        lines.append(f"   CRASHED: {result.target} {why} after {done} of {len(result.listed)} tests; "
                     f"all {len(result.listed)} count as failed (log {log_path})")
        for test in result.unfinished[:60]:
            lines.append(f"   did not finish: {test}")
        if len(result.unfinished) > 60:
            lines.append(f"   ... and {len(result.unfinished) - 60} more")
    elif len(result.listed) == 0:
        lines.append(f"   FAILED: no tests in {result.target}")
    elif result.status != 0 and not result.failed and not result.loose_issues:
        lines.append(f"   FAILED: {result.target} exited {result.status} (log {log_path})")
    for test in result.failed:
        lines.append(f"   failed: {test}")
        for message in result.issues[test][:3]:
            lines.append(f"     {message}")
    for where, messages in result.loose_issues:
        lines.append(f"   issue outside a test, in {where}:")
        for message in messages[:3]:
            lines.append(f"     {message}")
    return "\n".join(lines)


def pairs(values, what):
    out = {}
    for value in values:
        name, sep, rest = value.partition("=")
        if not sep or not name:
            sys.exit(f"test_targets: {what} must be NAME=VALUE: {value}")
        out[name] = rest
    return out


def main():
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--bundle", required=True)
    parser.add_argument("--jobs", type=int, default=1)
    parser.add_argument("--tier", choices=["all", "in-process"], default="all")
    parser.add_argument("--logs")
    parser.add_argument("--timings")
    parser.add_argument("--expect", action="append", default=[])
    parser.add_argument("--step", action="append", default=[])
    parser.add_argument("--alone", action="append", default=[])
    parser.add_argument("--reserve", action="append", default=[])
    parser.add_argument("--all", action="store_true")
    parser.add_argument("--shards")
    parser.add_argument("--target-timeout", type=float, default=0)
    parser.add_argument("--cores", type=float, default=0)
    parser.add_argument("--live", action="store_true")
    parser.add_argument("-h", "--help", action="store_true")
    parser.add_argument("targets", nargs="*")
    args = parser.parse_args()
    if args.help:
        print(__doc__)
        return 0
    steps = pairs(args.step, "--step")
    expected = {}
    for name, value in pairs(args.expect, "--expect").items():
        wall, _, cpu = value.partition("/")
        expected[name] = {"wall": float(wall), "cpu": float(cpu) if cpu else None}
    if not os.access(args.bundle, os.X_OK):
        print(f"test_targets: no test bundle at {args.bundle} (swift build --build-tests)", file=sys.stderr)
        return 2
    all_tests = list_tests(args.bundle)
    shard_map = read_shards(args.shards) if args.shards else {}
    # The items the tests run as: a target, or each shard of a sharded one (`Target:shard`, its own
    # --filter), each with the listed tests it accounts for.
    item_tests, item_filters, shards_of, problems = {}, {}, {}, {}
    for target, listed in all_tests.items():
        if target not in shard_map:
            item_tests[target] = listed
            continue
        split, problems[target] = split_target(target, listed, shard_map[target])
        for shard, tests in split.items():
            item_tests[f"{target}:{shard}"] = tests
            item_filters[f"{target}:{shard}"] = shard_filter(target, shard_map[target][shard])
            shards_of.setdefault(target, []).append(f"{target}:{shard}")
    for target in shard_map:
        if target not in all_tests:
            print(f"test_targets: {args.shards} shards {target}, which the bundle does not list", file=sys.stderr)
            return 2
    targets = []
    for name in args.targets + (sorted(all_tests) if args.all or (not args.targets and not steps) else []):
        for item in shards_of.get(name, [name]):
            if item not in targets:
                targets.append(item)
    unknown = [t for t in targets if t not in item_tests]
    # The tests no shard (or more than one) holds, of the sharded targets that run: failed, by name.
    misplaced = [(target, test, why) for target, found in problems.items()
                 if any(t.split(":", 1)[0] == target for t in targets) for test, why in found]
    logs = args.logs or tempfile.mkdtemp(prefix="reposcroll-tests.")
    os.makedirs(logs, exist_ok=True)
    timings = {}
    if args.timings and os.path.exists(args.timings):
        try:
            with open(args.timings) as f:
                timings = json.load(f)
        except ValueError:
            timings = {}
    known = {}  # name -> (wall, cpu or None): the last run's, else the --expect hint
    for name, value in timings.items():
        # Older files hold the wall time alone.
        known[name] = (value, None) if isinstance(value, (int, float)) else (value.get("wall", 30.0), value.get("cpu"))
    for name, hint in expected.items():
        wall, cpu = known.setdefault(name, (hint["wall"], hint["cpu"]))
        if cpu is None and hint["cpu"] is not None and hint["wall"] > 0:
            # A wall time remembered without its CPU: the hint's share of the cores.
            known[name] = (wall, wall * hint["cpu"] / hint["wall"])

    reserved = {name: float(value) for name, value in pairs(args.reserve, "--reserve").items()}

    def share(name):
        """The cores an item is expected to keep busy: CPU over wall time, one when unknown; at least
        what --reserve keeps free for it."""
        wall, cpu = known.get(name, (30.0, None))
        used = 1.0 if cpu is None or wall <= 0 else max(cpu / wall, 0.05)
        return min(max(used, reserved.get(name, 0.0)), args.cores or 1.0 * max(1, args.jobs))

    # Longest first, so the last to finish is a short one; an item neither timed nor expected counts
    # as 30 s (most targets take less).
    items = [t for t in targets if t not in unknown] + list(steps)
    order = sorted(items, key=lambda t: -known.get(t, (30.0, None))[0])
    alone = [t for t in order if t in args.alone]
    order = [t for t in order if t not in alone]
    live = args.live and args.jobs == 1
    results = {}
    lock = threading.Lock()
    # Running items and the cores they are expected to use; a condition guards both.
    running = {}
    room = threading.Condition(lock)
    threads = []

    def fits(name):
        return not running or (
            len(running) < max(1, args.jobs)
            and (not args.cores or sum(running.values()) + share(name) <= args.cores + 0.05)
        )

    def admit(pending):
        """Waits for a free job, then takes the first pending item (longest first) whose expected CPU
        fits beside the running ones; a later, smaller one may start while a larger one waits."""
        with room:
            while True:
                name = next((n for n in pending if fits(n)), None)
                if name is not None:
                    pending.remove(name)
                    running[name] = share(name)
                    return name
                room.wait()

    def job(name):
        log_path = os.path.join(logs, f"{name}.log")
        try:
            if name in steps:
                result = run_step(name, steps[name], args, logs, live)
            else:
                result = run_target(name, item_tests[name], args, logs, live, item_filters.get(name))
        except Exception as error:  # the runner itself failed: count the item as crashed
            if name in steps:
                result = StepResult(name)
                result.status = -1
            else:
                result = Result(name, item_tests[name])
                result.status = -1
                result.unfinished = list(result.listed)
                result.loose_issues.append(("runner", [repr(error)]))
        finally:
            with room:
                running.pop(name, None)
                room.notify_all()
        with lock:
            results[name] = result
            text = describe_step(result, log_path, live) if name in steps else describe(result, log_path)
            print(text, flush=True)

    pending = list(order)
    order = []  # the order they started, for the table
    while pending:
        name = admit(pending)
        order.append(name)
        with lock:
            what = "step" if name in steps else f"{len(item_tests[name])} tests"
            busy = f", beside {', '.join(n for n in running if n != name)}" if len(running) > 1 else ""
            print(f"-> {name} ({what}; expects {share(name):.2f} cores{busy}; load {os.getloadavg()[0]:.2f})",
                  flush=True)
        thread = threading.Thread(target=job, args=(name,))
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    # The items that must not share the machine, one by one after the rest.
    for name in alone:
        with lock:
            running[name] = share(name)
            print(f"-> {name} (alone; load {os.getloadavg()[0]:.2f})", flush=True)
        job(name)

    if args.timings:
        # A target that crashed, or ran less than half of its tests (the rest skipped:
        # REPOSCROLL_SKIP_BROWSER=1, the in-process tier), says little about its cost: the next run
        # keeps what it knew.
        timings.update({t: {"wall": round(r.wall, 1), "cpu": round(r.cpu, 1)} for t, r in results.items()
                        if t in steps or (not r.crashed and 2 * len(r.skipped) < len(r.listed))})
        os.makedirs(os.path.dirname(os.path.abspath(args.timings)), exist_ok=True)
        with open(args.timings, "w") as f:
            json.dump(timings, f, indent=1, sort_keys=True)

    tests = [r for name, r in results.items() if name not in steps]
    passed = sum(r.counts()[0] for r in tests)
    failed = sum(r.counts()[1] for r in tests) + len(misplaced)
    skipped = sum(r.counts()[2] for r in tests)
    reasons = {}
    for r in tests:
        if r.crashed:
            continue
        for test in r.skipped:
            reason = r.reasons.get(test, "skipped")
            # One line per kind: "skipped: needs ../shared (mustache-spec/x.json)" joins the others.
            if reason.startswith("skipped: needs ../shared"):
                reason = "skipped: needs ../shared"
            reasons[reason] = reasons.get(reason, 0) + 1
    print()
    order += alone
    print("items, in the order they started (wall, cpu, tests passed/failed/skipped):")
    for name in order:
        r = results[name]
        if name in steps:
            mark = "" if r.ok else "  FAILED"
            print(f"  {name:<26} {r.wall:7.1f} s {r.cpu:7.1f} s  step{mark}")
            continue
        p, f, k = r.counts()
        mark = "" if r.ok else "  FAILED" if not r.crashed else "  CRASHED"
        print(f"  {name:<26} {r.wall:7.1f} s {r.cpu:7.1f} s  {p}/{f}/{k}{mark}")
    if reasons:
        print("skipped, by reason:")
        for reason, count in sorted(reasons.items(), key=lambda kv: -kv[1]):
            print(f"  {count:4d}  {reason}")
    failing = [f"{t}: {test}" for t in order if t not in steps for test in results[t].failed]
    if misplaced:
        print(f"tests not run, for the shards file ({args.shards}):")
        for target, test, why in misplaced:
            print(f"  {test}: {why}")
            failing.append(f"{target} (shards): {test}")
    if failing:
        print("failing tests:")
        for line in failing[:100]:
            print(f"  {line}")
    for t in unknown:
        print(f"test_targets: no test target or shard named {t} (the bundle lists "
              f"{', '.join(sorted(item_tests))})")
    if tests or unknown:
        print(f"tests: {passed} passed, {failed} failed, {skipped} skipped")
    bad = [t for t in order if not results[t].ok] + unknown + sorted({f"{t} (shards)" for t, _, _ in misplaced})
    if bad:
        print(f"failing: {' '.join(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
