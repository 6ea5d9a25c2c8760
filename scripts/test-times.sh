#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The per-test time table of one make check: every guest test's seconds in
# each guest tier (vm-6.1, vm-6.12, rt-6.12, debug, ...), from the tier logs
# make check keeps in DIR (default build/check), as markdown. The times are
# what vmtest prints ("vmtest: NN-name: exit R, T s": from the test's start
# to its end inside the guest, boot not included); the last rows add up
# each tier's tests, and its boots' wall time (tests included: what
# exceeds the tests' sum is boot and harness). On the debug kernel a row
# says how much of the tests' times was the kmemleak scan after each.
#
#   scripts/test-times.sh [DIR]
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
dir=${1:-$root/build/check}
logs=()
for f in "$dir"/vm-*.log "$dir"/rt-*.log "$dir"/debug.log; do
	[ -f "$f" ] && logs+=("$f")
done
[ ${#logs[@]} -gt 0 ] || { echo "test-times: no guest tier log in $dir" >&2; exit 1; }

awk '
FNR == 1 {
	tier = FILENAME; sub(/.*\//, "", tier); sub(/\.log$/, "", tier)
	tiers[++nt] = tier
}
/vmtest: [0-9][0-9]-[a-z0-9-]+: exit [0-9]+, [0-9.]+ s/ {
	for (i = 1; i <= NF; i++) if ($i == "vmtest:") break
	t = $(i + 1); sub(/:$/, "", t)
	if (!(t in seen)) { seen[t] = 1; tests[++ntest] = t }
	secs[t, tier] = $(i + 4)
	sum[tier] += $(i + 4)
}
/vmtest: [0-9][0-9]-[a-z0-9-]+: exit .*\(kmemleak scan [0-9.]+ s\)/ {
	k = $0; sub(/.*\(kmemleak scan /, "", k); sub(/ s\).*/, "", k)
	kml[tier] += k; anykml = 1
}
/vmtest: boot [0-9]+ .*boot total [0-9.]+ s/ {
	b = $0; sub(/.*boot total /, "", b); sub(/ s.*/, "", b)
	boots[tier] += b; nboots[tier]++
}
END {
	# tests in name order (insertion sort: mawk has no asort)
	for (i = 2; i <= ntest; i++) {
		v = tests[i]
		for (j = i - 1; j >= 1 && tests[j] > v; j--) tests[j + 1] = tests[j]
		tests[j + 1] = v
	}
	line = "| test |"; sep = "|---|"
	for (k = 1; k <= nt; k++) { line = line " " tiers[k] " |"; sep = sep "---:|" }
	print line; print sep
	for (i = 1; i <= ntest; i++) {
		line = "| " tests[i] " |"
		for (k = 1; k <= nt; k++) {
			v = ((tests[i], tiers[k]) in secs) ? sprintf("%.0f", secs[tests[i], tiers[k]]) : "-"
			line = line " " v " |"
		}
		print line
	}
	line = "| **tests, summed** |"
	for (k = 1; k <= nt; k++) line = line " **" sprintf("%.0f", sum[tiers[k]]) "** |"
	print line
	if (anykml) {
		line = "| of which kmemleak scans after each test |"
		for (k = 1; k <= nt; k++)
			line = line " " ((tiers[k] in kml) ? sprintf("%.0f", kml[tiers[k]]) : "-") " |"
		print line
	}
	line = "| **boots: wall time (count)** |"
	for (k = 1; k <= nt; k++) line = line " " sprintf("%.0f", boots[tiers[k]]) " (" nboots[tiers[k]] ") |"
	print line
}' "${logs[@]}"
