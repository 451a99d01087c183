#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The kselftests of a kselftest install, by name, for tools/vm/run-test.sh.

Usage: ksft-list.py list DIR PROGRAM...
       ksft-list.py find DIR NAME PROGRAM...

DIR holds the programs (a kselftest install's drivers/gpu/wddmseg, or
the in-tree build). Each PROGRAM built with kselftest_harness.h is asked
for its tests with "-l" (the harness's listing, which runs none; 6.9 and
later have it); the environment must let its constructors reach main
(WDDMSEG_EXPECT naming an expectation file with a device: the wddmseg
programs skip themselves before the harness starts when there is none).
A program without the harness (no "-l") is one test named after it and is
never run here.

list: one line per test, "PROGRAM FIXTURE[.VARIANT].TEST" (or
"PROGRAM -" for a program without the harness).

find: what NAME selects, one "PROGRAM FULL-NAME" line each, or
"PROGRAM -" for a whole program. NAME is a full name
(FIXTURE.TEST, FIXTURE.VARIANT.TEST), FIXTURE.TEST of a fixture with
variants (every variant), a FIXTURE (all its tests) or a PROGRAM (all of
it). Exit 1 with the near matches on stderr when nothing matches.
"""

import difflib
import os
import subprocess
import sys

HARNESS_MARK = b"list all tests"


def has_harness(path):
    with open(path, "rb") as f:
        return HARNESS_MARK in f.read()


def parse_listing(text):
    """The harness's -l table ("%-20s %-25s %s": fixture, variant, test,
    one fixture per block, the columns independent) as full names."""
    names = []
    blocks = []
    cur = None
    for line in text.splitlines():
        if line.startswith("# FIXTURE"):
            continue
        if line.startswith("-----"):
            cur = None
            continue
        if not line.strip():
            continue
        fixture = "" if line[0] == " " else line.split()[0]
        if fixture:
            cur = {"fixture": fixture, "variants": [], "tests": []}
            blocks.append(cur)
        if cur is None:
            raise ValueError("listing row before a fixture: %r" % line)
        pos = max(20, len(cur["fixture"]) if fixture else 20) + 1
        variant = ""
        if len(line) > pos and line[pos] != " ":
            variant = line[pos:].split()[0]
        pos += max(25, len(variant)) + 1
        test = line[pos:].strip() if len(line) > pos else ""
        if variant:
            cur["variants"].append(variant)
        if test:
            cur["tests"].append(test)
    for b in blocks:
        for t in b["tests"]:
            if b["variants"]:
                names += ["%s.%s.%s" % (b["fixture"], v, t) for v in b["variants"]]
            else:
                names.append("%s.%s" % (b["fixture"], t))
    return names


def list_tests(d, progs):
    out = []
    for p in progs:
        path = os.path.join(d, p)
        if not os.access(path, os.X_OK):
            sys.exit("ksft-list: no program %s" % path)
        if not has_harness(path):
            out.append((p, "-"))
            continue
        r = subprocess.run([path, "-l"], stdin=subprocess.DEVNULL,
                           capture_output=True, timeout=60)
        names = parse_listing(r.stderr.decode(errors="replace"))
        if not names:
            sys.exit("ksft-list: %s -l listed no test (exit %d): %s" %
                     (path, r.returncode,
                      (r.stdout + r.stderr).decode(errors="replace")[-400:]))
        out += [(p, n) for n in names]
    return out


def find(tests, name):
    progs = sorted({p for p, _ in tests})
    if name in progs:
        return [(name, "-")]
    sel = [(p, n) for p, n in tests if n == name]
    if not sel and name.count(".") == 1:
        fixture, test = name.split(".")
        sel = [(p, n) for p, n in tests if n != "-" and n.split(".")[0] == fixture
               and n.split(".")[-1] == test and n.count(".") == 2]
    if not sel and "." not in name:
        sel = [(p, n) for p, n in tests if n != "-" and n.split(".")[0] == name]
    return sel


def near(tests, name):
    cands = sorted({n for _, n in tests if n != "-"} | {p for p, _ in tests})
    close = difflib.get_close_matches(name, cands, n=8, cutoff=0.6)
    # the test's own part (the last) in other names: the same test under
    # another fixture or variant
    last = name.lower().split(".")[-1]
    sub = [c for c in cands if len(last) >= 3 and last in c.lower()]
    seen = []
    for c in close + sub:
        if c not in seen:
            seen.append(c)
    return seen[:12]


def main():
    if len(sys.argv) >= 3 and sys.argv[1] == "list":
        for p, n in list_tests(sys.argv[2], sys.argv[3:]):
            print(p, n)
        return 0
    if len(sys.argv) >= 4 and sys.argv[1] == "find":
        d, name, progs = sys.argv[2], sys.argv[3], sys.argv[4:]
        tests = list_tests(d, progs)
        sel = find(tests, name)
        if not sel:
            n = near(tests, name)
            print("run-test: no kselftest named '%s' in %s (%d tests in %d programs)"
                  % (name, d, len(tests), len(progs)), file=sys.stderr)
            if n:
                print("near matches:\n  " + "\n  ".join(n), file=sys.stderr)
            else:
                print("no near match; the programs: " + " ".join(progs),
                      file=sys.stderr)
            print("(tools/vm/run-test.sh --list shows them all)", file=sys.stderr)
            return 1
        for p, n in sel:
            print(p, n)
        return 0
    print(__doc__, file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main())
