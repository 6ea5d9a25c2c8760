#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every ratio the docs quote is tied to the bench table row it comes from.
# A figure ("1.23x", "1.23×", both ends of "1.10–1.23x" or "1.1 to 1.2x")
# in README.md and Documentation/ outside Documentation/bench/ must be
# followed by the id of its row:
#
#   17.00× [row nvme-20261204-1857-shaped-on-off] the IOPS
#   0.035–0.097× [rows pp-20261130-0959-runs-veth-pages-gb, pp-20261130-0959-runs-tn-pages-gb]
#
# (one id: both ends of a range are in that row; two ids: one for each
# end, in order). A row id is the first cell of a row of a table in
# Documentation/bench/*.md whose first header cell is "id" (the tables
# scripts/bench-tables.py writes; older tables had the column added). The
# figure must be a number of THAT row, or that number rounded half up to
# the figure's decimals (1.735 quoted as 1.74): a figure from older code,
# from no run at all, or from another row (a number that happens to appear
# elsewhere) fails, and so do a figure without a row id, an unknown id and
# an id used twice.
#
#   scripts/check-claims.sh [ROOT]   exit 0 when every figure is in its row,
#                                    else 1 with one "FILE:LINE: ..." line each
set -uo pipefail

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[ -d "$root/Documentation/bench" ] || { echo "check-claims: no $root/Documentation/bench" >&2; exit 2; }
exec python3 - "$root" <<'PYEOF'
import glob, os, re, sys
from decimal import Decimal, ROUND_HALF_UP

root = sys.argv[1]
os.chdir(root)
NUM = r"[0-9]+\.[0-9]+"
ID = r"[A-Za-z0-9][A-Za-z0-9._-]*"
bad = 0


def err(msg):
    global bad
    bad += 1
    print(msg)


def cells(line):
    return [c.strip() for c in line.strip().strip("|").split("|")]


rows = {}   # id -> (file, line, numbers of the row, with their roundings)
for f in sorted(glob.glob("Documentation/bench/*.md")):
    idcol = None    # None: not in a table; False: a table without ids
    for i, line in enumerate(open(f, encoding="utf-8"), 1):
        if not line.startswith("|"):
            idcol = None
            continue
        if idcol is None:   # the header row
            idcol = cells(line)[0] == "id"
            continue
        c = cells(line)
        if not idcol or not c[0] or set(c[0]) <= set("-: "):
            continue
        rid = c[0].strip("`")
        if not re.fullmatch(ID, rid):
            err("%s:%d: bad row id '%s'" % (f, i, rid))
            continue
        if rid in rows:
            err("%s:%d: row id %s already used at %s:%d" % (f, i, rid, rows[rid][0], rows[rid][1]))
            continue
        have = set()
        for n in re.findall(NUM, "|".join(c[1:])):
            d = Decimal(n)
            have.add(n)
            for k in range(1, len(n.split(".")[1])):
                have.add(str(d.quantize(Decimal(1).scaleb(-k), ROUND_HALF_UP)))
        rows[rid] = (f, i, have)

# "1.2x", "1.2 ×", "1.1–1.2x", "1.1-1.2 ×", "1.1 to 1.2x"; not "1.2x86" and
# the like; then " [row ID]" or " [rows ID, ID]".
fig = re.compile(r"(?:(%s) ?(?:-|–|to) ?)?(%s) ?(?:x|×)(?![0-9A-Za-z])(?:\s*\[rows? (%s(?:, ?%s)?)\])?"
                 % (NUM, NUM, ID, ID))
docs = ["README.md"] + sorted(p for p in glob.glob("Documentation/**/*.md", recursive=True)
                              if not p.startswith("Documentation/bench/"))
figs = 0
for f in docs:
    text = open(f, encoding="utf-8").read()
    for m in fig.finditer(text):
        i = text.count("\n", 0, m.start()) + 1
        nums = [n for n in m.groups()[:2] if n is not None]
        figs += len(nums)
        if m.group(3) is None:
            err("%s:%d: %s has no row id (write \"%s× [row ID]\", ID a row of Documentation/bench)"
                % (f, i, "–".join(nums), "–".join(nums)))
            continue
        ids = [x.strip() for x in m.group(3).split(",")]
        if len(ids) > len(nums):
            err("%s:%d: %s: %d row ids for %d number(s)" % (f, i, "–".join(nums), len(ids), len(nums)))
            continue
        for k, n in enumerate(nums):
            rid = ids[min(k, len(ids) - 1)]
            if rid not in rows:
                err("%s:%d: %s: no row %s in Documentation/bench" % (f, i, n, rid))
            elif n not in rows[rid][2]:
                err("%s:%d: %s is not in row %s (%s:%d)" % (f, i, n, rid, rows[rid][0], rows[rid][1]))
print("check-claims: %d ratios in %d docs, %d row ids in Documentation/bench, %d problems"
      % (figs, len(docs), len(rows), bad))
sys.exit(1 if bad else 0)
PYEOF
