#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check the WDDM fidelity table of Documentation/gpu/wddmseg.rst.

Usage: fidelity.py RST HW_H UAPI_H TAP_DIR...

The table (section "WDDM fidelity") has one row per WDDM item: every
DXGK_SEGFLAG_*, DXGK_VIDMMCAP_* and paging opcode (WDDMSEG_OP_*) of the
register header, every WDDMSEG_ALLOC_* flag of the uapi header, and the
descriptor fields and paging-buffer details listed by hand. Each row has
a status and a proof:

  implemented, refused   at least one test, and every test named must
                         have passed in this run (TAP files in TAP_DIR):
                           ks:NAME      a kselftest case ("ok N NAME")
                           layout:RULE  a layouts.txt case refused by RULE
                           qt:TEXT      a qtest check whose text has TEXT
                           kunit:NAME   a KUnit case (only make check-debug
                                        runs them: the case must exist in
                                        drivers/gpu/drm/wddmseg/tests/)
                           tap:FILE:TEXT  a passing line of FILE.tap that
                                        has TEXT (~ for spaces)
  masked, n/a, partial,  a written reason (any text but test names), so
  pending                that nothing is claimed without a proof

Prints one TAP line per row and one for completeness; exit 1 on failure.
"""
import os
import re
import sys

STATUSES = {"implemented", "refused", "masked", "n/a", "partial", "pending"}
NEEDS_TEST = {"implemented", "refused"}
IGNORED = {"DXGK_SEGFLAG_KNOWN_MASK", "DXGK_VIDMMCAP_KNOWN_MASK",
           "WDDMSEG_ALLOC_KNOWN_MASK"}


def header_names(path, prefixes):
    names = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#define\s+([A-Z0-9_]+)\s", line)
            if m and m.group(1).startswith(prefixes) and \
                    m.group(1) not in IGNORED:
                names.append(m.group(1))
    return names


def table_rows(rst):
    """Rows of the simple table under the 'WDDM fidelity' heading."""
    with open(rst, encoding="utf-8") as f:
        lines = f.read().splitlines()
    try:
        start = lines.index("WDDM fidelity")
    except ValueError:
        return None
    borders = [i for i in range(start, len(lines))
               if re.match(r"^=+ +=+ +=+$", lines[i])]
    if len(borders) < 3:
        return None
    cols = [m.start() for m in re.finditer(r"=+", lines[borders[0]])]
    rows = []
    for line in lines[borders[1] + 1:borders[2]]:
        cells = [line[cols[0]:cols[1]].strip(), line[cols[1]:cols[2]].strip(),
                 line[cols[2]:].strip()]
        if cells[0]:
            rows.append(cells)
        elif rows:
            rows[-1][1] = (rows[-1][1] + " " + cells[1]).strip()
            rows[-1][2] = (rows[-1][2] + " " + cells[2]).strip()
    return rows


def passed_lines(tap_dirs):
    ok = []
    for tap_dir, name in sorted((d, n) for d in tap_dirs
                                for n in os.listdir(d)):
        if not name.endswith(".tap"):
            continue
        with open(os.path.join(tap_dir, name), encoding="utf-8",
                  errors="replace") as f:
            for line in f:
                line = line.rstrip("\n")
                # a skipped test proves nothing
                if re.match(r"^(# )*ok \d+ ", line) and \
                        not re.search(r"#\s*skip", line, re.I):
                    ok.append((name, re.sub(r"^(# )*", "", line)))
    return ok


def kunit_cases(repo):
    text = ""
    tests = os.path.join(repo, "drivers/gpu/drm/wddmseg/tests")
    for name in os.listdir(tests):
        if name.endswith(".c"):
            with open(os.path.join(tests, name), encoding="utf-8") as f:
                text += f.read()
    return text


def proof_ok(token, ok, kunit):
    kind, _, what = token.partition(":")
    if kind == "ks":
        return any(re.match(r"^ok \d+ " + re.escape(what) + r"( |$)", line)
                   for tap, line in ok if tap == "kselftest.tap")
    if kind == "layout":
        return any(re.match(r"^ok \d+ - " + re.escape(what) + " refused ",
                            line) for tap, line in ok if tap == "layouts.tap")
    if kind == "qt":
        return any(what in line for tap, line in ok if tap == "qtest.tap")
    if kind == "kunit":
        return what in kunit
    if kind == "tap":
        tap_name, _, text = what.partition(":")
        text = text.replace("~", " ")
        return any(text in line for tap, line in ok
                   if tap == tap_name + ".tap")
    return None


def main():
    if len(sys.argv) < 5:
        print(__doc__, file=sys.stderr)
        return 2
    rst, hw_h, uapi_h = sys.argv[1:4]
    tap_dirs = sys.argv[4:]
    repo = os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    n = 0
    bad = 0

    def tap(good, text):
        nonlocal n, bad
        n += 1
        print(("ok" if good else "not ok") + f" {n} - {text}")
        bad += not good

    rows = table_rows(rst)
    if rows is None:
        tap(False, "fidelity: no 'WDDM fidelity' table in " + rst)
        return 1
    want = header_names(hw_h, ("DXGK_SEGFLAG_", "DXGK_VIDMMCAP_",
                               "WDDMSEG_OP_"))
    want += header_names(uapi_h, ("WDDMSEG_ALLOC_",))
    have = [r[0].strip("`") for r in rows]
    missing = [w for w in want if w not in have]
    tap(not missing, "fidelity: every WDDM flag, capability and paging "
        f"opcode of the headers has a row ({len(want)} names"
        + (f"; missing: {' '.join(missing)})" if missing else ")"))

    ok = passed_lines(tap_dirs)
    kunit = kunit_cases(repo)
    for item, status, proof in rows:
        item = item.strip("`")
        if status not in STATUSES:
            tap(False, f"fidelity: {item}: unknown status '{status}'")
            continue
        tokens = re.findall(r"\b(?:ks|layout|qt|kunit|tap):[^\s,;]+", proof)
        if status in NEEDS_TEST:
            failed = [t for t in tokens if not proof_ok(t, ok, kunit)]
            good = bool(tokens) and not failed
            tap(good, f"fidelity: {item} {status}, proved by "
                + (", ".join(tokens) if tokens else "nothing")
                + (f" (not passing: {', '.join(failed)})" if failed else ""))
        else:
            reason = re.sub(r"\b(?:ks|layout|qt|kunit|tap):[^\s,;]+", "",
                            proof).strip(" ,;")
            tap(len(reason) >= 10, f"fidelity: {item} {status}: "
                + (reason[:70] if reason else "no reason given"))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
