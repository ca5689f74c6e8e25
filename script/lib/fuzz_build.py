#!/usr/bin/env python3
"""Builds every fuzz target under Fuzz/ into ONE instrumented libFuzzer binary (script/fuzz calls this).

Each Fuzz/<Name>/ holds fuzz.swift, whose entry point is `public func fuzzInput(_ data:
UnsafePointer<UInt8>?, _ size: Int) -> Int32`, and a `sources` file (format in script/fuzz). The
package modules all targets need are built once, instrumented (-sanitize=fuzzer,address, -O, whole
module, -enable-testing; -Onone with --onone), independent ones side by side; then each target is compiled as its own
module `<Name>Fuzz` (so targets' top-level names never collide), and a generated `main` links them
all: its `LLVMFuzzerTestOneInput` calls the entry of the target named by the FUZZ_TARGET
environment variable. Nothing is rebuilt when no input changed (a hash of every input file, the
flags and the compiler version is kept beside the binary).

Usage: fuzz_build.py PACKAGE_JSON OUT_DIR [--jobs N] [--onone]   (prints the binary's path on the last line)

--onone compiles without optimisation (still instrumented, so coverage still guides the mutator):
about a third of the CPU of the -O build, and fewer runs per second. It suits short smoke runs
(script/test fuzzes each target for 5 s); long runs want -O.
"""
import concurrent.futures
import fcntl
import hashlib
import json
import os
import pathlib
import shlex
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent.parent
SANITIZE = ["-sanitize=fuzzer,address", "-parse-as-library"]


def fail(message):
    sys.exit(f"fuzz: {message}")


def package_targets(package_json):
    with open(package_json) as f:
        package = json.load(f)
    targets = {}
    for t in package["targets"]:
        deps = []
        for d in t["dependencies"]:
            for kind in ("byName", "target"):
                if kind in d:
                    deps.append(d[kind][0])
        path = t.get("path") or f"Sources/{t['name']}"
        if t["type"] == "system":
            kind = "system"
        elif (ROOT / path / "include").is_dir():
            kind = "cmodule"
        else:
            kind = "module"
        targets[t["name"]] = {"kind": kind, "path": path, "deps": deps}
    return targets


def read_sources(name, targets):
    """A fuzz target's package targets, the folders compiled into its own module, and extra flags."""
    wanted, folders, flags = [], [], []
    path = ROOT / "Fuzz" / name / "sources"
    for raw in path.read_text().splitlines():
        line = raw.split("#", 1)[0].strip()
        if not line:
            continue
        parts = shlex.split(line)
        if parts[0] == "target":
            for target in parts[1:]:
                if target not in targets:
                    fail(f"{path}: no target {target} in Package.swift")
                wanted.append(target)
        elif parts[0].startswith("-"):
            flags += parts
        elif parts[0] in ("module", "cmodule"):
            fail(f"{path}: '{parts[0]}' lines are gone: name the Package.swift target ('target {parts[1]}')")
        else:
            folder = ROOT / parts[0]
            if not folder.is_dir():
                fail(f"{path}: no folder {parts[0]}")
            folders.append(parts[0])
    return wanted, folders, flags


def closure(names, targets):
    order = []

    def visit(name, trail):
        if name in order:
            return
        if name in trail:
            fail(f"dependency cycle through {name}")
        for dep in targets[name]["deps"]:
            visit(dep, trail + (name,))
        order.append(name)

    for name in names:
        visit(name, ())
    return order


def swift_files(folder):
    files = sorted(str(p.relative_to(ROOT)) for p in (ROOT / folder).rglob("*.swift"))
    if not files:
        fail(f"no Swift files in {folder}")
    return files


def run(command, log):
    with open(log, "a") as out:
        out.write("$ " + " ".join(shlex.quote(c) for c in command) + "\n")
        out.flush()
        done = subprocess.run(command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        sys.stderr.write(pathlib.Path(log).read_text()[-6000:])
        fail(f"build step failed: {command[0]} ... (log {log})")


def main():
    if len(sys.argv) < 3:
        fail("usage: fuzz_build.py PACKAGE_JSON OUT_DIR [--jobs N]")
    package_json, out = sys.argv[1], pathlib.Path(sys.argv[2]).resolve()
    jobs = int(sys.argv[sys.argv.index("--jobs") + 1]) if "--jobs" in sys.argv else (os.cpu_count() or 2)
    optimise = "-Onone" if "--onone" in sys.argv else "-O"
    swift_flags = SANITIZE + [optimise, "-whole-module-optimization"]
    targets = package_targets(package_json)
    names = sorted(p.name for p in (ROOT / "Fuzz").iterdir() if (p / "fuzz.swift").is_file())
    if not names:
        fail("no targets under Fuzz/")
    fuzz = {name: read_sources(name, targets) for name in names}
    order = closure([t for name in names for t in fuzz[name][0]], targets)
    flags = []
    modules = out / "modules"
    for name in order:
        if targets[name]["kind"] == "system":
            flags += ["-I", targets[name]["path"]]
        elif targets[name]["kind"] == "cmodule":
            flags += ["-I", str(modules / name)]
    for name in names:
        for flag in fuzz[name][2]:
            if flag not in flags:
                flags.append(flag)
    binary = out / "fuzz"

    # Everything that goes into the binary, hashed: unchanged inputs keep the binary.
    inputs = [pathlib.Path(__file__)]
    for name in order:
        if targets[name]["kind"] != "system":
            inputs += sorted((ROOT / targets[name]["path"]).rglob("*"))
    for name in names:
        inputs += sorted((ROOT / "Fuzz" / name).glob("*.swift")) + [ROOT / "Fuzz" / name / "sources"]
        for folder in fuzz[name][1]:
            inputs += sorted((ROOT / folder).rglob("*.swift"))
    inputs.append(ROOT / "Fuzz" / "FuzzSupport.swift")
    digest = hashlib.sha256()
    digest.update(subprocess.run(["swiftc", "--version"], capture_output=True, text=True).stdout.encode())
    digest.update(" ".join(swift_flags + flags + names).encode())
    for path in inputs:
        if path.is_file():
            digest.update(str(path.relative_to(ROOT)).encode() + b"\0" + path.read_bytes() + b"\0")
    # One build at a time in OUT_DIR: script/test starts one beside its Swift builds, and the queue's
    # fuzz run waits here for it to end, then finds the binary up to date. The lock goes with the process.
    out.mkdir(parents=True, exist_ok=True)
    lock = open(out / ".lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    stamp = out / "fuzz.inputs"
    if binary.exists() and stamp.exists() and stamp.read_text() == digest.hexdigest():
        print(f"fuzz: {binary.relative_to(ROOT)} is up to date ({len(names)} targets)", file=sys.stderr)
        print(binary)
        return 0

    if modules.exists():
        subprocess.run(["rm", "-rf", str(modules)], check=True)
    modules.mkdir()
    log = out / "build.log"
    log.write_text("")
    objects = {}  # module name -> object files

    def build(name):
        t = targets[name]
        step_log = modules / f"{name}.log"
        if t["kind"] == "cmodule":
            include = ROOT / t["path"] / "include"
            (modules / name).mkdir()
            (modules / name / "module.modulemap").write_text(
                f'module {name} {{\n  umbrella "{include}"\n  export *\n}}\n')
            made = []
            for c in sorted((ROOT / t["path"]).glob("*.c")):
                obj = modules / f"{name}-{c.stem}.o"
                run(["clang", "-fsanitize=fuzzer-no-link,address", "-O1", "-g", "-I", str(include), "-c",
                     str(c), "-o", str(obj)], step_log)
                made.append(str(obj))
            return made
        obj = modules / f"{name}.o"
        # -c without a link step: the fuzzer flag only adds coverage instrumentation here.
        run(["swiftc", *swift_flags, "-enable-testing", "-module-name", name, "-I", str(modules), *flags,
             "-c", *swift_files(t["path"]), "-o", str(obj), "-emit-module",
             "-emit-module-path", str(modules / f"{name}.swiftmodule")], step_log)
        return [str(obj)]

    # Each module starts once everything it depends on is built; up to `jobs` at a time.
    pending = [n for n in order if targets[n]["kind"] != "system"]
    done, running = set(n for n in order if targets[n]["kind"] == "system"), {}
    print(f"fuzz: building {len(pending)} modules for {len(names)} targets ({jobs} at a time)", file=sys.stderr)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        while pending or running:
            for name in list(pending):
                if len(running) >= jobs:
                    break
                if all(dep in done for dep in targets[name]["deps"]):
                    pending.remove(name)
                    running[pool.submit(build, name)] = name
            finished, _ = concurrent.futures.wait(running, return_when=concurrent.futures.FIRST_COMPLETED)
            for future in finished:
                name = running.pop(future)
                objects[name] = future.result()
                done.add(name)

    def build_target(name):
        wanted, folders, _ = fuzz[name]
        files = [f"Fuzz/{name}/fuzz.swift", "Fuzz/FuzzSupport.swift"]
        for folder in folders:
            files += swift_files(folder)
        module = f"{name}Fuzz"
        obj = modules / f"{module}.o"
        run(["swiftc", *swift_flags, "-module-name", module, "-I", str(modules), *flags, "-c", *files,
             "-o", str(obj), "-emit-module", "-emit-module-path", str(modules / f"{module}.swiftmodule")],
            modules / f"{module}.log")
        return str(obj)

    print(f"fuzz: building the targets {' '.join(names)}", file=sys.stderr)
    with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
        target_objects = list(pool.map(build_target, names))

    cases = "\n".join(f'  case "{name}": return {name}Fuzz.fuzzInput(data, size)' for name in names)
    imports = "\n".join(f"import {name}Fuzz" for name in names)
    main_swift = out / "main.swift"
    main_swift.write_text(f"""// Generated by script/lib/fuzz_build.py: one binary for every target under Fuzz/.
#if canImport(Glibc)
  import Glibc
#endif
{imports}

/// The target FUZZ_TARGET names, read once.
let selected: String = {{
  guard let name = getenv("FUZZ_TARGET") else {{ return "" }}
  return String(cString: name)
}}()

/// libFuzzer entry: hands the input to the selected target's `fuzzInput`.
@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDispatch(_ data: UnsafePointer<UInt8>?, _ size: Int) -> Int32 {{
  switch selected {{
{cases}
  default: fatalError("FUZZ_TARGET must name one of: {' '.join(names)}")
  }}
}}
""")
    all_objects = [o for name in order if name in objects for o in objects[name]] + target_objects
    print(f"fuzz: linking {binary.relative_to(ROOT)}", file=sys.stderr)
    run(["swiftc", *SANITIZE, optimise, "-module-name", "FuzzMain",
         "-I", str(modules), *flags, str(main_swift), *all_objects, "-o", str(binary)], log)
    stamp.write_text(digest.hexdigest())
    print(binary)
    return 0


if __name__ == "__main__":
    sys.exit(main())
