#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-quick` (make check's bench tier): the quick form of every
# bench, to prove each still runs end to end and writes all of its tables.
# The figures of a quick run (one round, runs of a second) mean nothing;
# each bench saves them to build/bench/<bench>-quick.md, apart from the
# full runs' tables. A bench fails when it exits non-zero: each one checks
# that every part it runs left its table.
#
#   scripts/bench-quick.sh [--kernel PATH]   PATH: the guest kernel of
#                                            bench-xps and bench-pp
# Env: XNET_BENCHES (default "nvme xps pp scale").
# Last line: "bench: N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
logs=$root/build/bench
mkdir -p "$logs"
benches=${XNET_BENCHES:-nvme xps pp scale}
for b in $benches; do
	case $b in
	nvme | xps | pp | scale) ;;
	*)
		echo "bench-quick: XNET_BENCHES: unknown bench '$b' (nvme xps pp scale)" >&2
		echo "bench: 0 passed, 1 failed"
		exit 2
		;;
	esac
done
n=0 pass=0 fail=0
echo "KTAP version 1"
echo "1..$(echo "$benches" | wc -w)"
for b in $benches; do
	n=$((n + 1))
	args=(--quick)
	# bench-nvme and bench-scale pick their kernels themselves (vmtest
	# --series, KUnit's UML); bench-xps and bench-pp boot the one given.
	case $b in xps | pp) args+=("$@") ;; esac
	start=$(date +%s)
	echo "# bench-$b --quick (log: $logs/$b-quick.out)"
	"$root/scripts/bench-$b.sh" "${args[@]}" >"$logs/$b-quick.out" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok $n bench-$b # ${secs}s"
	else
		fail=$((fail + 1))
		echo "# FAIL: bench-$b --quick exited with status $rc; its last lines:"
		tail -n 15 "$logs/$b-quick.out" | sed 's/^/#   /'
		echo "not ok $n bench-$b # ${secs}s"
	fi
done
echo "bench: $pass passed, $fail failed"
[ $fail -eq 0 ]
