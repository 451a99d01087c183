#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Check the WDDM fidelity table of Documentation/gpu/wddmseg.rst.

Usage: fidelity.py --rst RST --items ITEMS [--header H]...
                   [--shared DIR] [--kernel DIR]...

The table (section "WDDM fidelity") has one row per item of the five
WDDM pages: every flag bit, member, rule and paging operation, as listed
in ITEMS (tools/lint/wddm-items.txt, one "PAGE ITEM [ROW]" per line).
Every item has exactly one row, every row is an item of ITEMS or a name
a header (--header) defines (device opcodes), and every name of the
headers has a row: a row that disappears fails, so does an item missing
from the table.

Each row has a status and a proof. A proof names one test case exactly,
and passes only if that case ran in this run, on at least one kernel,
and did not fail anywhere it ran (a skipped case did not run). The
results are the TAP files make check wrote in this run: DIR of --shared
(build/check: the qtests) and each DIR of --kernel (build/ABI/check: the
kselftests, layouts, KUnit and the other VM stages of one kernel).

  ks:FIXTURE.TEST      a kselftest case, in any TAP file of a kernel
                       (kselftest.tap, and the programs that pm.tap,
                       iommu.tap, ... run); ks:Q/FIXTURE.TEST takes only
                       the results of program or stage Q (wddmseg_query,
                       hibernate, ...); a name that two programs print
                       must say which
  kunit:SUITE.CASE     a KUnit case as kunit.tap prints it (every
                       parameter of a parameterized case);
                       kunit:SUITE.CASE:"PARAM" one parameter. No KUnit
                       in this run (only kernels with CONFIG_KUNIT run
                       it): the row is skipped, neither passed nor failed
  layout:RULE          an invalid layout refused by RULE (layouts.tap)
  qt:PATH              a qtest case by its glib path, e.g.
                       qt:/x86_64/wddmseg/pm/s3/default (qtest.tap)
  tap:STAGE:"TEXT"     a check of a harness stage (STAGE.tap) whose
                       description is exactly TEXT

Statuses: implemented and refused need at least one proof; masked, n/a,
partial and pending need a written reason (and any proof they name must
pass too). Prints one TAP line per check; exit 1 on failure.
"""
import argparse
import os
import re
import sys

STATUSES = {"implemented", "refused", "masked", "n/a", "partial", "pending"}
NEEDS_TEST = {"implemented", "refused"}
IGNORED = {"DXGK_SEGFLAG_KNOWN_MASK", "DXGK_VIDMMCAP_KNOWN_MASK",
           "WDDMSEG_ALLOC_KNOWN_MASK"}
HEADER_PREFIXES = ("DXGK_SEGFLAG_", "DXGK_VIDMMCAP_", "WDDMSEG_OP_",
                   "WDDMSEG_ALLOC_")

# A proof token: kind, colon, then either a bare word or a word followed
# by :"quoted text" (which may contain spaces).
PROOF_RE = re.compile(r'\b(ks|kunit|layout|qt|tap):'
                      r'([^\s,;"]*?:"[^"]*"|[^\s,;"]+)')
KS_NAME = r"[A-Za-z0-9_]+(?:\.[A-Za-z0-9_]+)+"
DIRECTIVE = re.compile(r"\s#\s*(SKIP|XFAIL|TODO)\b", re.I)


def header_names(path):
    names = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"#define\s+([A-Z0-9_]+)\s", line)
            if m and m.group(1).startswith(HEADER_PREFIXES) and \
                    m.group(1) not in IGNORED:
                names.append(m.group(1))
    return names


def read_items(path):
    """ITEMS: "PAGE ITEM [ROW]" per line; ROW (the table's name) is ITEM
    unless given. Returns [(page, item, row)]."""
    items = []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.split("#", 1)[0].strip()
            if not line:
                continue
            parts = line.split()
            if len(parts) not in (2, 3):
                raise ValueError(f"{path}: bad line: {line}")
            items.append((parts[0], parts[1],
                          parts[2] if len(parts) == 3 else parts[1]))
    return items


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


class Results:
    """What ran in this run: per kind, name -> list of (where, passed)."""

    def __init__(self):
        self.ks = {}        # FIXTURE.TEST -> [(kernel, stage, prog, ok)]
        self.kunit = {}     # SUITE.CASE -> [(kernel, param, ok)]
        self.layout = {}    # RULE -> [(kernel, ok)]
        self.qt = {}        # /path -> [ok]
        self.tap = {}       # (stage, text) -> [(kernel, ok)]
        self.kunit_ran = False

    def add(self, table, key, rec):
        table.setdefault(key, []).append(rec)


def tap_files(d):
    return sorted(n for n in os.listdir(d) if n.endswith(".tap")
                  and not n.startswith("fidelity"))


def read_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return [line.rstrip("\r\n") for line in f]


def scan_kernel(res, d):
    kernel = os.path.basename(os.path.dirname(os.path.abspath(d)))
    for name in tap_files(d):
        stage = name[:-4]
        prog = None
        for line in read_lines(os.path.join(d, name)):
            # nested output: "# ", "#| " (a guest program run by a stage)
            m = re.match(r"^((?:#\| ?|# )*)(.*)$", line)
            body = m.group(2)
            depth = len(m.group(1))
            p = re.match(r"^selftests: \S+: (\S+)$", body)
            if p:
                prog = p.group(1)
                continue
            r = re.match(r"^(not )?ok \d+ (" + KS_NAME + r")(\s.*)?$", body)
            if r and depth and not DIRECTIVE.search(r.group(3) or ""):
                res.add(res.ks, r.group(2),
                        (kernel, stage, prog, not r.group(1)))
                continue
            if depth:
                continue
            r = re.match(r"^(not )?ok \d+ - (.*)$", body)
            if not r:
                continue
            ok, desc = not r.group(1), r.group(2)
            if DIRECTIVE.search(desc):
                continue
            if stage == "layouts":
                lr = re.match(r"^([a-z0-9][a-z0-9-]*) refused at ", desc)
                if lr:
                    res.add(res.layout, lr.group(1), (kernel, ok))
            if stage == "kunit":
                kr = re.match(r"^([A-Za-z0-9_]+)(?:\.([A-Za-z0-9_]+))?: (.*)$",
                              desc)
                if kr and kr.group(2):
                    res.add(res.kunit, kr.group(1) + "." + kr.group(2),
                            (kernel, kr.group(3), ok))
                elif kr:
                    res.add(res.kunit, kr.group(1) + "." + kr.group(3),
                            (kernel, None, ok))
            res.add(res.tap, (stage, desc), (kernel, ok))
        if stage == "kunit":
            res.kunit_ran = True


def scan_shared(res, d):
    for name in tap_files(d):
        if name != "qtest.tap":
            continue
        failed_checks = set()
        for line in read_lines(os.path.join(d, name)):
            r = re.match(r"^# not ok \d+ - ([^:]+): ", line)
            if r:
                failed_checks.add(r.group(1))
                continue
            r = re.match(r"^(not )?ok \d+ (/\S+)(\s.*)?$", line)
            if r and not DIRECTIVE.search(r.group(3) or ""):
                path = r.group(2)
                below = re.sub(r"^/[^/]+/wddmseg/", "", path)
                ok = not r.group(1) and below not in failed_checks
                res.add(res.qt, path, ok)
    # the shared stages' own checks: tap:STAGE:"..."
    for name in tap_files(d):
        stage = name[:-4]
        for line in read_lines(os.path.join(d, name)):
            r = re.match(r"^(not )?ok \d+ - (.*)$", line)
            if r and not DIRECTIVE.search(r.group(2)):
                res.add(res.tap, (stage, r.group(2)),
                        ("shared", not r.group(1)))


def verdict(oks):
    """None: did not run; True: ran and never failed; False: failed."""
    if not oks:
        return None
    return all(oks)


def proof(token_kind, what, res):
    """(state, note): state "pass", "fail" or "unchecked"."""
    if token_kind == "ks":
        m = re.match(r"^(?:([A-Za-z0-9_.-]+)/)?(" + KS_NAME + r")$", what)
        if not m:
            return "fail", "not a FIXTURE.TEST name"
        qual, name = m.group(1), m.group(2)
        recs = res.ks.get(name, [])
        if qual:
            recs = [r for r in recs if qual in (r[1], r[2])]
        elif len({r[2] for r in recs if r[2]}) > 1:
            progs = sorted({r[2] for r in recs if r[2]})
            return "fail", "in " + " and ".join(progs) + ": say which"
        v = verdict([r[3] for r in recs])
        if v is None:
            return "fail", "did not run"
        if not v:
            bad = sorted({f"{r[0]}/{r[1]}" for r in recs if not r[3]})
            return "fail", "failed on " + ", ".join(bad)
        return "pass", ""
    if token_kind == "kunit":
        m = re.match(r'^([A-Za-z0-9_]+\.[A-Za-z0-9_]+)(?::"([^"]*)")?$', what)
        if not m:
            return "fail", "not a SUITE.CASE name"
        if not res.kunit_ran:
            return "unchecked", "no KUnit in this run"
        recs = res.kunit.get(m.group(1), [])
        if m.group(2) is not None:
            recs = [r for r in recs if r[1] == m.group(2)]
        v = verdict([r[2] for r in recs])
        if v is None:
            return "fail", "did not run"
        return ("pass", "") if v else ("fail", "failed")
    if token_kind == "layout":
        v = verdict([r[1] for r in res.layout.get(what, [])])
    elif token_kind == "qt":
        v = verdict(res.qt.get(what, []))
    elif token_kind == "tap":
        m = re.match(r'^([A-Za-z0-9_-]+):"([^"]+)"$', what)
        if not m:
            return "fail", 'not STAGE:"TEXT"'
        v = verdict([r[1] for r in res.tap.get((m.group(1), m.group(2)), [])])
    else:
        return "fail", "unknown kind"
    if v is None:
        return "fail", "did not run"
    return ("pass", "") if v else ("fail", "failed")


def main(argv):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rst", required=True)
    ap.add_argument("--items", required=True)
    ap.add_argument("--header", action="append", default=[])
    ap.add_argument("--shared", action="append", default=[])
    ap.add_argument("--kernel", action="append", default=[])
    args = ap.parse_args(argv)

    n = 0
    bad = 0

    def tap(good, text, skip=None):
        nonlocal n, bad
        n += 1
        print(("ok" if good else "not ok") + f" {n} - {text}"
              + (f" # SKIP {skip}" if good and skip else ""))
        bad += not good

    rows = table_rows(args.rst)
    if rows is None:
        tap(False, "fidelity: no 'WDDM fidelity' table in " + args.rst)
        return 1
    items = read_items(args.items)
    want = [row for _, _, row in items]
    hdr = []
    for h in args.header:
        hdr += header_names(h)
    have = [r[0].strip("`") for r in rows]

    missing = [w for w in want if w not in have]
    tap(not missing, f"fidelity: every item of the WDDM pages has a row "
        f"({len(want)} items of {len(set(p for p, _, _ in items))} pages in "
        f"{os.path.basename(args.items)}"
        + (f"; missing: {' '.join(missing)})" if missing else ")"))
    hmissing = [w for w in hdr if w not in have]
    tap(not hmissing, "fidelity: every WDDM flag, capability and paging "
        f"opcode of the headers has a row ({len(hdr)} names"
        + (f"; missing: {' '.join(hmissing)})" if hmissing else ")"))
    dup = sorted({h for h in have if have.count(h) > 1})
    unknown = [h for h in have if h not in want and h not in hdr]
    tap(not dup and not unknown, "fidelity: each row is one item, once"
        + (f"; twice: {' '.join(dup)}" if dup else "")
        + (f"; not an item of {os.path.basename(args.items)} or a header: "
           + ", ".join(unknown) if unknown else ""))

    res = Results()
    for d in args.shared:
        if os.path.isdir(d):
            scan_shared(res, d)
    for d in args.kernel:
        if os.path.isdir(d):
            scan_kernel(res, d)

    for item, status, text in rows:
        item = item.strip("`")
        if status not in STATUSES:
            tap(False, f"fidelity: {item}: unknown status '{status}'")
            continue
        tokens = PROOF_RE.findall(text)
        failed, unchecked = [], []
        for kind, what in tokens:
            state, note = proof(kind, what, res)
            if state == "fail":
                failed.append(f"{kind}:{what} ({note})")
            elif state == "unchecked":
                unchecked.append(f"{kind}:{what}")
        names = ", ".join(f"{k}:{w}" for k, w in tokens)
        if status in NEEDS_TEST:
            good = bool(tokens) and not failed
            desc = (f"fidelity: {item} {status}, proved by "
                    + (names if tokens else "nothing"))
        else:
            reason = PROOF_RE.sub("", text).strip(" ,;")
            good = len(reason) >= 10 and not failed
            desc = f"fidelity: {item} {status}: " + (
                reason[:70] if reason else "no reason given")
        if failed:
            desc += " (not passing: " + "; ".join(failed) + ")"
        tap(good, desc, ("not run in this run: " + ", ".join(unchecked))
            if unchecked else None)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
