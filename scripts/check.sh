#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: install what is missing, then run every test tier:
#   user   C++ core in userspace (GoogleTest, ASan+UBSan)   make test-user
#   build  W=1, sparse, checkpatch, C++ object guards        make check-build
#   kunit  KUnit suites on UML (kunit.py)                    make kunit
#   vm     the .ko files in a QEMU guest (Debian's kernel)   make vmtest
#   vmself the guest harness catches failures/hangs/oopses  make vmtest-selftest
# Each tier ends with "<tier>: N passed, N failed"; a tier that exits
# non-zero without failing a counted test counts one failure. The last line
# is the total: "N passed, N failed". Exit status 0 only if nothing failed.
# XNET_TIERS="user build" runs a subset.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
logs=$root/build/check
mkdir -p "$logs"

"$root/scripts/setup.sh" || { echo "0 passed, 1 failed"; exit 1; }

declare -A target=([user]=test-user [build]=check-build [kunit]=kunit [vm]=vmtest
	[vmself]=vmtest-selftest)
tiers=${XNET_TIERS:-user build kunit vm vmself}
total_pass=0 total_fail=0
summary=()

for t in $tiers; do
	echo "=== $t: make ${target[$t]}"
	start=$(date +%s)
	make -C "$root" --no-print-directory "${target[$t]}" 2>&1 | tee "$logs/$t.log"
	rc=${PIPESTATUS[0]}
	secs=$(($(date +%s) - start))
	line=$(grep -E '^[a-z]+: [0-9]+ passed, [0-9]+ failed' "$logs/$t.log" | tail -n 1)
	p=0 f=0
	if [ -n "$line" ]; then
		p=$(echo "$line" | sed -E 's/^[a-z]+: ([0-9]+) passed.*/\1/')
		f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "check: tier $t exited with status $rc"
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	summary+=("$(printf '%-6s %5d passed %5d failed %5ds' "$t" "$p" "$f" "$secs")")
done

echo "=== summary (logs in $logs)"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
