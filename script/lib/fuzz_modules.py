#!/usr/bin/env python3
"""Prints the `sources` lines (script/fuzz's format) that build the named Package.swift targets and
everything they depend on, dependencies first, so fuzz targets follow the package's graph instead of
keeping a copy of it. Usage: fuzz_modules.py PACKAGE_JSON TARGET...  (JSON from `swift package dump-package`)."""
import json
import os
import sys


def main() -> int:
    with open(sys.argv[1]) as f:
        package = json.load(f)
    targets = {t["name"]: t for t in package["targets"]}
    order: list[str] = []

    def visit(name: str, trail: tuple[str, ...]) -> None:
        if name in order:
            return
        if name not in targets:
            sys.exit(f"fuzz: no target {name} in Package.swift")
        if name in trail:
            sys.exit(f"fuzz: dependency cycle through {name}")
        for dependency in targets[name]["dependencies"]:
            for kind in ("byName", "target"):
                if kind in dependency:
                    visit(dependency[kind][0], trail + (name,))
        order.append(name)

    for name in sys.argv[2:]:
        visit(name, ())
    for name in order:
        target = targets[name]
        path = target.get("path") or f"Sources/{name}"
        if target["type"] == "system":
            print(f"-I {path}")
        elif os.path.isdir(os.path.join(path, "include")):
            print(f"cmodule {name} {path}")
        else:
            print(f"module {name} {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
