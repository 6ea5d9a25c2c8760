#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: install what is missing, then run every test tier:
#   user   C++ core in userspace (GoogleTest, ASan+UBSan)   make test-user
#   build  W=1, sparse, checkpatch, C++ object guards        make check-build
#   fuzz   the core's parsers under libFuzzer, 20 s a target  make fuzz-quick
#   kunit  KUnit suites on UML (kunit.py)                    make kunit
#          (+ x86_64 under QEMU when XNET_KUNIT_ARCHS has it)
#   vm     the .ko files in a QEMU guest (Debian's kernel)   make vmtest
#   vmself the guest harness catches failures/hangs/oopses  make vmtest-selftest
#   rt     the guest tests on Debian's PREEMPT_RT kernel      make vmtest-rt
#   dbgself the same on the debug kernel, plus one deliberate bug per checker
#          (KASAN, lockdep, RCU, atomic sleep, UBSAN, debug objects,
#          kmemleak) that must be reported       make vmtest-selftest-debug
#   debug  the guest tests on the debug kernel (scripts/vm/debug-kernel.sh,
#          built once and cached; KASAN, lockdep, kmemleak ...) make vmtest-debug
# Each tier ends with "<tier>: N passed, N failed[, N skipped]"; a tier
# that exits non-zero without failing a counted test counts one failure.
# The last line is the total: "N passed, N failed, N skipped" (a skipped
# test is not counted as passed, nor is a baseline: tests/vm/20). Exit status 0 only if nothing failed.
# XNET_TIERS="user build" runs a subset. XNET_KUNIT_ARCHS="um x86_64" makes
# the kunit tier also run the suites in an x86_64 kernel under QEMU with 2
# CPUs (scripts/kunit.sh --arch x86_64: the cases that need a real CPU
# change); not by default: its cold build takes far longer than UML's.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
logs=$root/build/check
mkdir -p "$logs"

"$root/scripts/setup.sh" || { echo "0 passed, 1 failed"; exit 1; }

declare -A target=([user]=test-user [build]=check-build [fuzz]=fuzz-quick [kunit]=kunit [vm]=vmtest
	[vmself]=vmtest-selftest [rt]=vmtest-rt [dbgself]=vmtest-selftest-debug [debug]=vmtest-debug)
tiers=${XNET_TIERS:-user build fuzz kunit vm vmself rt dbgself debug}
kunit_archs=${XNET_KUNIT_ARCHS:-um}
total_pass=0 total_fail=0 total_skip=0
summary=()

# The kunit tier: make kunit (UML), then each other arch of
# $XNET_KUNIT_ARCHS; non-zero if any run failed.
kunit_tier() {
	local a rc=0

	for a in $kunit_archs; do
		case "$a" in
		um) make -C "$root" --no-print-directory kunit || rc=1 ;;
		*) "$root/scripts/kunit.sh" --arch "$a" || rc=1 ;;
		esac
	done
	return $rc
}

for t in $tiers; do
	echo "=== $t: make ${target[$t]}"
	start=$(date +%s)
	if [ "$t" = kunit ]; then
		kunit_tier 2>&1 | tee "$logs/$t.log"
	else
		make -C "$root" --no-print-directory "${target[$t]}" 2>&1 |
			tee "$logs/$t.log"
	fi
	rc=${PIPESTATUS[0]}
	secs=$(($(date +%s) - start))
	p=0 f=0 sk=0 bl=0
	if [ "$t" = kunit ]; then
		# One "kunit: N passed, N failed" line per architecture.
		while read -r line; do
			p=$((p + $(echo "$line" | sed -E 's/^kunit: ([0-9]+) passed.*/\1/')))
			f=$((f + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
		done < <(grep -E '^kunit: [0-9]+ passed, [0-9]+ failed' "$logs/$t.log")
	else
		line=$(grep -E '^[a-z]+: [0-9]+ passed, [0-9]+ failed' "$logs/$t.log" | tail -n 1)
		if [ -n "$line" ]; then
			p=$(echo "$line" | sed -E 's/^[a-z]+: ([0-9]+) passed.*/\1/')
			f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
			[[ $line =~ ,\ ([0-9]+)\ skipped ]] && sk=${BASH_REMATCH[1]}
			[[ $line =~ ,\ ([0-9]+)\ baseline ]] && bl=${BASH_REMATCH[1]}
		fi
	fi
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "check: tier $t exited with status $rc"
	fi
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + sk))
	note=
	[ "$bl" -eq 0 ] || note=" (+$bl baseline, not counted)"
	summary+=("$(printf '%-7s %5d passed %5d failed %3d skipped %5ds%s' "$t" "$p" "$f" "$sk" "$secs" "$note")")
done

echo "=== summary (logs in $logs)"
printf '%s\n' "${summary[@]}"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
