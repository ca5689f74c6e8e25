#!/usr/bin/env python3
"""Lints each URL with REDbot, once without and once with Accept-Encoding: gzip (the bare request also
runs REDbot's own negotiation subrequest), prints every warning and failure, and exits 1 if a
negotiation, validation or caching note is a warning or failure.

Usage: redbot_check.py URL...
"""
import json
import os
import signal
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


def lint_in_child(url, headers):
    """`lint` in a forked child: thor's loop does not restart cleanly within one process, and the child
    inherits the imports, so a lint costs a fork instead of a Python start with REDbot's imports. The
    child reports its notes as JSON through a pipe; an alarm ends one that runs over two minutes."""
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_end)
        signal.alarm(120)
        try:
            found = lint(url, headers)
        except BaseException as error:  # the parent must hear of any failure, as a note
            found = [("BAD", "fetch", f"redbot failed: {error!r}"[:300])]
        with os.fdopen(write_end, "w") as out:
            out.write(json.dumps(found))
        os._exit(0)
    os.close(write_end)
    with os.fdopen(read_end) as source:
        text = source.read()
    _, status = os.waitpid(pid, 0)
    try:
        return json.loads(text)
    except ValueError:
        return [("BAD", "fetch", f"redbot did not finish (wait status {status})")]


def main():
    failed = False
    for url in sys.argv[1:]:
        for label in ("identity", "gzip"):
            headers = [("Accept-Encoding", "gzip")] if label == "gzip" else []
            # script/redbot has fetched every URL, and its pages stay fresh for the run: a page goes
            # out whole, with a validator, on every lint. One lint per URL and encoding.
            found = lint_in_child(url, headers)
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
