#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Every ratio the docs quote stands in a saved bench table: each "1.23x"
# (or "1.23×", and both ends of "1.10–1.23x") in README.md and
# Documentation/ outside Documentation/bench/ must be a number of a table
# row of Documentation/bench/*.md (the tables the benches write: make
# bench-nvme, bench-pp, bench-xps), or that number rounded half up to the
# figure's decimals (1.735 quoted as 1.74). A figure from older code, or
# from no run at all, fails the build tier.
#
#   scripts/check-claims.sh [ROOT]   exit 0 when every figure is found, else
#                                    1 with one "FILE:LINE: N ..." line each
set -uo pipefail

root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
[ -d "$root/Documentation/bench" ] || { echo "check-claims: no $root/Documentation/bench" >&2; exit 2; }
exec python3 - "$root" <<'PYEOF'
import glob, os, re, sys
from decimal import Decimal, ROUND_HALF_UP

root = sys.argv[1]
os.chdir(root)
NUM = r"[0-9]+\.[0-9]+"
have = set()
for f in sorted(glob.glob("Documentation/bench/*.md")):
    for line in open(f, encoding="utf-8"):
        if not line.startswith("|"):
            continue
        for n in re.findall(NUM, line):
            d = Decimal(n)
            have.add(n)
            for k in range(1, len(n.split(".")[1])):
                have.add(str(d.quantize(Decimal(1).scaleb(-k), ROUND_HALF_UP)))
# "1.2x", "1.2 ×", "1.1–1.2x", "1.1-1.2 ×", "1.1 to 1.2x"; not "1.2x86" and the like.
fig = re.compile(r"(?:(%s) ?(?:-|–|to) ?)?(%s) ?(?:x|×)(?![0-9A-Za-z])" % (NUM, NUM))
docs = ["README.md"] + sorted(p for p in glob.glob("Documentation/**/*.md", recursive=True)
                              if not p.startswith("Documentation/bench/"))
figs = miss = 0
for f in docs:
    for i, line in enumerate(open(f, encoding="utf-8"), 1):
        for m in fig.finditer(line):
            for n in m.groups():
                if n is None:
                    continue
                figs += 1
                if n not in have:
                    miss += 1
                    print("%s:%d: %s is in no table of Documentation/bench" % (f, i, n))
print("check-claims: %d ratios in %d docs, %d in no bench table" % (figs, len(docs), miss))
sys.exit(1 if miss else 0)
PYEOF
