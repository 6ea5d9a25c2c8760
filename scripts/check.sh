#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make check`: install what is missing, then run every test tier:
#   user   C++ core in userspace (GoogleTest, ASan+UBSan)   make test-user
#   build  W=1, sparse, dkms, C++ object guards on every kernel's headers;
#          checkpatch, shellcheck                            make check-build
#   fuzz   the core's parsers under libFuzzer, 20 s a target  make fuzz-quick
#   kunit  KUnit suites on UML (kunit.py), one run per kernel source
#          (linux-source-<series>)                          make kunit
#          (+ x86_64 under QEMU when XNET_KUNIT_ARCHS has it)
#   vm     the .ko files in a QEMU guest booting Debian's kernel, one run
#          per series                        make vmtest-series SERIES=<s>
#   vmself the guest harness catches failures/hangs/oopses  make vmtest-selftest
#   rt     the guest tests on Debian's PREEMPT_RT kernel of each series of
#          $XNET_RT_KERNELS (default 6.12)     make vmtest-rt SERIES=<s>
#   bench  every bench's quick form runs and writes all its tables
#                                                    make bench-quick
#   dbgself the same on the debug kernel, plus one deliberate bug per checker
#          (KASAN, lockdep, RCU, atomic sleep, UBSAN, debug objects,
#          kmemleak) that must be reported       make vmtest-selftest-debug
#   debug  the guest tests on the debug kernel (scripts/vm/debug-kernel.sh,
#          built once and cached; KASAN, lockdep, kmemleak ...) make vmtest-debug
# The kernel series are $XNET_KERNELS (default "6.1 6.12", scripts/kernels.sh);
# the tiers kunit and vm run once per series ("vm-6.12" in the summary).
# Each tier ends with "<tier>: N passed, N failed[, N skipped]"; a tier
# that exits non-zero without failing a counted test counts one failure.
# The last line is the total: "N passed, N failed, N skipped" (a skipped
# test is not counted as passed, nor is a baseline: tests/vm/20). Exit status 0 only if nothing failed.
# The compiling tiers run first, one at a time; then the guest tiers in two
# lanes fed by one queue (XNET_CHECK_LANES=1: one lane; see lane() below).
# XNET_TIERS="user build" runs a subset. XNET_KUNIT_ARCHS="um x86_64" makes
# the kunit tier also run the suites in an x86_64 kernel under QEMU with 2
# CPUs (scripts/kunit.sh --arch x86_64: the cases that need a real CPU
# change); not by default: its cold build takes far longer than UML's.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
logs=$root/build/check
mkdir -p "$logs"
rm -f "$logs"/*.res

lanes=${XNET_CHECK_LANES:-2}
if [ "$lanes" != 1 ] && [ "$lanes" != 2 ]; then
	echo "check: XNET_CHECK_LANES='$lanes': want 1 or 2" >&2
	echo "0 passed, 1 failed"
	exit 1
fi

"$root/scripts/setup.sh" || { echo "0 passed, 1 failed"; exit 1; }

declare -A target=([user]=test-user [build]=check-build [fuzz]=fuzz-quick [kunit]=kunit
	[vm]=vmtest-series [vmself]=vmtest-selftest [rt]=vmtest-rt [dbgself]=vmtest-selftest-debug
	[debug]=vmtest-debug [bench]=bench-quick)
tiers=${XNET_TIERS:-user build fuzz kunit vm vmself rt dbgself debug bench}
kunit_archs=${XNET_KUNIT_ARCHS:-um}
kernels=$("$root/scripts/kernels.sh" list)
# PREEMPT_RT: 6.12's by default. The modules' code is the same on both RT
# kernels; what differs between 6.1 and 6.12 the vm tier covers on each,
# and 6.1's RT run costs 6.5 minutes: XNET_RT_KERNELS="6.1 6.12" adds it.
rt_kernels=${XNET_RT_KERNELS:-6.12}
# The runs: a tier, or tier-series for the tiers run on every kernel.
runs=()
for t in $tiers; do
	case $t in
	kunit | vm) for k in $kernels; do runs+=("$t-$k"); done ;;
	rt) for k in $rt_kernels; do runs+=("$t-$k"); done ;;
	*) runs+=("$t") ;;
	esac
done
total_pass=0 total_fail=0 total_skip=0
summary=()
failures=()

# The kunit tier for kernel source @1: UML, then each other arch of
# $XNET_KUNIT_ARCHS; non-zero if any run failed.
kunit_tier() {
	local a rc=0

	for a in $kunit_archs; do
		"$root/scripts/kunit.sh" --series "$1" --arch "$a" || rc=1
	done
	return $rc
}

# run_one RUN [quiet]: one tier run, its log in $logs/RUN.log (quiet: the
# log only, not the console); its counts in $logs/RUN.res:
# "passed failed skipped baseline seconds early-crashed-boots".
run_one() {
	local r=$1 quiet=${2:-} t series start rc secs p=0 f=0 sk=0 bl=0 line jobs early
	t=${r%%-*}
	series=
	[ "$t" = "$r" ] || series=${r#*-}
	start=$(date +%s)
	if [ -n "$quiet" ]; then
		echo "=== $r: started beside the others (log: $logs/$r.log)"
		exec 3>/dev/null
	else
		exec 3>&1
	fi
	if [ "$t" = kunit ]; then
		echo "=== $r: scripts/kunit.sh --series $series" >&3
		kunit_tier "$series" 2>&1 | tee "$logs/$r.log" >&3
	else
		echo "=== $r: make ${target[$t]}${series:+ SERIES=$series}" >&3
		# -j for the user tier's C++ objects only: a make that runs a
		# script would hand its jobserver to the script's own makes.
		jobs=()
		[ "$t" != user ] || jobs=(-j"${XNET_JOBS:-$(nproc)}")
		make -C "$root" "${jobs[@]}" --no-print-directory "${target[$t]}" ${series:+SERIES=$series} 2>&1 |
			tee "$logs/$r.log" >&3
	fi
	rc=${PIPESTATUS[0]}
	exec 3>&-
	secs=$(($(date +%s) - start))
	if [ "$t" = kunit ]; then
		# One "kunit: N passed, N failed" line per architecture.
		while read -r line; do
			p=$((p + $(echo "$line" | sed -E 's/^kunit: ([0-9]+) passed.*/\1/')))
			f=$((f + $(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')))
		done < <(grep -E '^kunit: [0-9]+ passed, [0-9]+ failed' "$logs/$r.log")
	else
		line=$(grep -E '^[a-z]+: [0-9]+ passed, [0-9]+ failed' "$logs/$r.log" | tail -n 1)
		if [ -n "$line" ]; then
			p=$(echo "$line" | sed -E 's/^[a-z]+: ([0-9]+) passed.*/\1/')
			f=$(echo "$line" | sed -E 's/.* ([0-9]+) failed.*/\1/')
			[[ $line =~ ,\ ([0-9]+)\ skipped ]] && sk=${BASH_REMATCH[1]}
			[[ $line =~ ,\ ([0-9]+)\ baseline ]] && bl=${BASH_REMATCH[1]}
		fi
	fi
	# Boots that crashed before any test ran (booted again), counted apart.
	early=$(sed -n 's/^vmtest: \([0-9]*\) boot(s) crashed before the first test.*/\1/p' "$logs/$r.log" |
		awk '{ n += $1 } END { print n + 0 }')
	if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
		f=1
		echo "check: tier $r exited with status $rc" | tee -a "$logs/$r.log"
	fi
	echo "$p $f $sk $bl $secs $early" >"$logs/$r.res"
	[ -z "$quiet" ] || echo "=== $r: done beside the others: $p passed, $f failed, $sk skipped, ${secs}s"
}

# The guest tiers run in two lanes (XNET_CHECK_LANES=2, the default), each
# taking the next tier from one queue when its last one ends, the longest
# first (the order below, from the per-test time table of
# Documentation/testing.md): two guests share the host's two CPUs, so two
# lanes save the time a guest leaves a CPU idle (waits, sleeps, one busy
# vCPU), not half. The tiers that compile (user, build, fuzz, kunit) run
# first, alone, and so does the debug kernel's build when it is not
# cached. XNET_CHECK_LANES=1: one tier at a time, in the queue's order.
first=() guests=()
for r in "${runs[@]}"; do
	case ${r%%-*} in
	vm | vmself | rt | dbgself | debug | bench) guests+=("$r") ;;
	*) first+=("$r") ;;
	esac
done
order=(debug vm-6.12 rt-6.12 vm-6.1 dbgself bench rt-6.1 vmself)
queue=()
for o in "${order[@]}"; do
	for r in "${guests[@]}"; do [ "$r" = "$o" ] && queue+=("$r"); done
done
for r in "${guests[@]}"; do
	[[ " ${queue[*]} " == *" $r "* ]] || queue+=("$r")
done
for r in "${first[@]}"; do run_one "$r"; done
if [[ " ${queue[*]} " =~ \ (dbgself|debug)\  ]]; then
	start=$(date +%s)
	echo "=== the debug kernel: scripts/vm/debug-kernel.sh (built once, cached)"
	"$root/scripts/vm/debug-kernel.sh" >"$logs/debug-kernel.log" 2>&1 ||
		echo "check: the debug kernel did not build ($logs/debug-kernel.log): its tiers will fail"
	echo "=== the debug kernel: $(($(date +%s) - start))s"
fi
printf '%s\n' "${queue[@]}" >"$logs/queue"
# The next tier of the queue (empty when it is empty), under a lock.
next_run() {
	(
		flock 9
		head -n 1 "$logs/queue"
		sed -i 1d "$logs/queue"
	) 9>"$logs/queue.lock"
}
lane() {	# lane N: run tiers from the queue until it is empty
	local r
	while r=$(next_run) && [ -n "$r" ]; do
		if [ "$lanes" = 1 ] || [ "$1" = 1 ]; then
			run_one "$r"
		else
			run_one "$r" quiet
		fi
	done
}
if [ "$lanes" = 2 ]; then
	lane 2 &
	lane2=$!
	lane 1
	wait "$lane2"
else
	lane 1
fi

for r in "${runs[@]}"; do
	p=0 f=1 sk=0 bl=0 secs=0 early=0
	[ -s "$logs/$r.res" ] && read -r p f sk bl secs early <"$logs/$r.res"
	total_pass=$((total_pass + p))
	total_fail=$((total_fail + f))
	total_skip=$((total_skip + sk))
	note=
	[ "$bl" -eq 0 ] || note=" (+$bl baseline, not counted)"
	[ "${early:-0}" -eq 0 ] || note+=" ($early boot(s) crashed before any test, booted again)"
	summary+=("$(printf '%-11s %5d passed %5d failed %3d skipped %5ds%s' "$r" "$p" "$f" "$sk" "$secs" "$note")")
	# What failed, by name, and why (a CI log may lose the middle): the
	# KTAP "not ok" lines, the tests' "# FAIL:" lines and vmtest's reasons
	# (a timeout, a guest that stopped, a console problem, new taint), 16
	# at most.
	if [ "$f" -ne 0 ]; then
		while read -r line; do
			failures+=("$r: $line")
		done < <(grep -E '^ *(not ok [0-9]+ |# FAIL: |# vmtest: (timeout|guest|not run|console:|new kernel taint|qemu:))|\[FAILED\] |^check: ' "$logs/$r.log" |
			sed -E 's/^ +//' | head -n 16)
	fi
done

echo "=== summary (logs in $logs)"
printf '%s\n' "${summary[@]}"
[ ${#failures[@]} -eq 0 ] || printf 'failed: %s\n' "${failures[@]}"
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
