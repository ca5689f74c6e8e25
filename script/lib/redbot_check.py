#!/usr/bin/env python3
"""Lints each URL with REDbot, once without and once with Accept-Encoding: gzip (the bare request also
runs REDbot's own negotiation subrequest), prints every warning and failure, and exits 1 if a
negotiation, validation or caching note is a warning or failure.

Usage: redbot_check.py URL...
"""
import json
import subprocess
import sys
from configparser import ConfigParser

import thor
from httplint.note import categories, levels
from redbot.resource import HttpResource

# The notes this check is about: content negotiation, validators (and the 304s they give), caching.
CHECKED = {categories.CONNEG, categories.VALIDATION, categories.CACHING}


def lint(url, headers):
    config = ConfigParser()
    config.read_dict({"redbot": {"enable_local_access": "True"}})
    resource = HttpResource(config["redbot"])
    resource.set_request(url, headers=headers)
    done = []

    @thor.events.on(resource)
    def check_done():
        done.append(True)
        thor.stop()

    resource.check()
    thor.run()
    if not done or not resource.response.complete:
        return [("BAD", "fetch", "no complete response")]
    found = []
    for note in resource.response.notes:
        for item in [note] + list(note.subnotes):
            if item.level in (levels.WARN, levels.BAD):
                found.append((item.level.name, note.category.name, item.summary, note.category in CHECKED))
    return found


def main():
    if sys.argv[1:2] == ["--one"]:
        # One lint per process: thor's loop does not restart cleanly within one process.
        headers = [("Accept-Encoding", "gzip")] if sys.argv[2] == "gzip" else []
        print(json.dumps(lint(sys.argv[3], headers)))
        return
    failed = False
    for url in sys.argv[1:]:
        for label in ("identity", "gzip"):
            # A page whose batch is not cached within its millisecond streams without a validator by
            # design (the head must not wait for GitHub); on a busy machine that can happen to a warm
            # page too, so a URL gets three tries and only a warning on all three counts.
            for _ in range(3):
                run = subprocess.run(
                    [sys.executable, __file__, "--one", label, url], capture_output=True, text=True, timeout=120
                )
                try:
                    found = json.loads(run.stdout)
                except ValueError:
                    found = [("BAD", "fetch", f"redbot did not run: {run.stderr.strip()[-300:]}")]
                if not any(not checked or checked[0] for _, _, _, *checked in found):
                    break
            for level, category, summary, *checked in found:
                counts = not checked or checked[0]
                failed |= counts
                mark = "FAIL" if counts else "note"
                print(f"{mark} {label} {url}: [{level} {category}] {summary}")
    if failed:
        print("redbot: negotiation, validator or caching warnings (above)")
        sys.exit(1)
    print(f"redbot: {len(sys.argv) - 1} URLs clean (negotiation, validators, caching), with and without gzip")


if __name__ == "__main__":
    main()
