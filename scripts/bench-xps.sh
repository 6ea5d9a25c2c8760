#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-xps`: boot a guest, run tests/bench/xps-guest.sh (xps_flow
# off vs on, side by side in one run, on the BQL test NIC) and save its
# markdown tables to build/bench/xps.md. TCG numbers are only meaningful
# as ratios. Env: BENCH_SECS (default 4), BENCH_ROUNDS (pktgen rounds of
# off, on, on, off; default 8), BENCH_PERF (1: profile one more pktgen run
# with steering on, the default when perf is installed); options go to
# scripts/vmtest.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/bench
mkdir -p "$out"
env=""
[ -n "${BENCH_SECS:-}" ] && env="BENCH_SECS=$BENCH_SECS "
[ -n "${BENCH_ROUNDS:-}" ] && env+="BENCH_ROUNDS=$BENCH_ROUNDS "
perf=0
command -v perf >/dev/null && perf=1
env+="BENCH_PERF=${BENCH_PERF:-$perf} "
{
	echo "<!-- make bench-xps, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) host cores, guest: 2 vCPUs TCG -->"
	echo
	"$root/scripts/vmtest.sh" --cpus 2 --timeout 900 "$@" \
		--shell-cmd "${env}bash tests/bench/xps-guest.sh"
} | tee "$out/xps.log"
# The guest's diagnostics share the console with the tables: keep the tables.
grep -v -E '^(bench: |# \[|# cleanup)' "$out/xps.log" >"$out/xps.md"
echo "bench-xps: saved $out/xps.md" >&2
