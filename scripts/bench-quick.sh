#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-quick` (make check's bench tier): the quick form of every
# bench, to prove each still runs end to end and writes all of its tables.
# The figures of a quick run (one round, runs of a second) mean nothing;
# each bench saves them to build/bench/<bench>-quick.md, apart from the
# full runs' tables. A bench fails when it exits non-zero: each one checks
# that every part it runs left its table. Each must also have left its run
# directory (scripts/bench-run.sh: build/bench/runs/<bench>-<stamp>-quick,
# linked from build/bench/<bench>-quick.run) with its meta, raw files and
# status 0, and the tables scripts/bench-tables.py generated from them
# (tables.md, with row ids: every table of nvme, xps, pp and scale).
#
#   scripts/bench-quick.sh [--kernel PATH]   PATH: the guest kernel of
#                                            bench-xps and bench-pp
# Env: XNET_BENCHES (default "nvme xps pp scale").
# Last line: "bench: N passed, N failed".
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-run.sh
. "$root/scripts/bench-run.sh"
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
	rm -f "$logs/$b-quick.run"
	"$root/scripts/bench-$b.sh" "${args[@]}" >"$logs/$b-quick.out" 2>&1
	rc=$?
	# The run directory it left: meta, raw files, generated tables.
	if [ $rc -eq 0 ]; then
		run=$logs/$b-quick.run
		if [ ! -d "$run" ]; then
			echo "bench-quick: bench-$b left no run directory ($run)" >>"$logs/$b-quick.out"
			rc=1
		elif ! bench_run_check "$run" >>"$logs/$b-quick.out" 2>&1; then
			rc=1
		elif [ ! -f "$run/tables.md" ]; then
			echo "bench-quick: bench-$b: no generated tables ($run/tables.md)" >>"$logs/$b-quick.out"
			rc=1
		else
			case $b in
			nvme | xps | pp | scale)
				grep -q '^| id |' "$run/tables.md" || {
					echo "bench-quick: bench-$b: no table with row ids in $run/tables.md" >>"$logs/$b-quick.out"
					rc=1
				}
				;;
			esac
		fi
	fi
	secs=$(($(date +%s) - start))
	if [ $rc -eq 0 ]; then
		pass=$((pass + 1))
		echo "ok $n bench-$b # ${secs}s, run directory $(readlink "$logs/$b-quick.run")"
	else
		fail=$((fail + 1))
		echo "# FAIL: bench-$b --quick exited with status $rc; why (the harness's lines):"
		grep -a -E '^(bench-[a-z-]+: |vmtest: |# FAIL|FAIL)|not ok ' "$logs/$b-quick.out" |
			head -n 25 | sed 's/^/#   /'
		echo "# its last lines:"
		tail -n 15 "$logs/$b-quick.out" | sed 's/^/#   /'
		echo "not ok $n bench-$b # ${secs}s"
	fi
done
echo "bench: $pass passed, $fail failed"
[ $fail -eq 0 ]
