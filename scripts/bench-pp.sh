#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-pp`: boot a guest (2 vCPUs), run tests/bench/pp-guest.sh
# (pp_frag off vs on, side by side in one run: TCP over a veth pair and over
# the BQL test NIC, copy vs pp_frag vs MSG_ZEROCOPY) and save its markdown
# tables to build/bench/pp.md. TCG numbers are only meaningful as ratios.
# Env: BENCH_SECS (per iperf3 run, default 3), BENCH_POOL (pool pages, 256),
# BENCH_REPS (ABBA blocks, 2), BENCH_ZC_SMALL_MB / BENCH_ZC_LARGE_MB (bytes
# per pp_stream.py run with 4 KiB / 256 KiB writes, 24 / 96); options go to
# scripts/vmtest.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/bench
mkdir -p "$out"
env=""
for v in BENCH_SECS BENCH_POOL BENCH_REPS BENCH_ZC_SMALL_MB BENCH_ZC_LARGE_MB; do
	[ -n "${!v:-}" ] && env+="$v=${!v} "
done
{
	echo "<!-- make bench-pp, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) host cores, guest: 2 vCPUs TCG -->"
	echo
	"$root/scripts/vmtest.sh" --cpus 2 --timeout 900 "$@" \
		--shell-cmd "${env}bash tests/bench/pp-guest.sh"
} | tee "$out/pp.log"
# The guest's diagnostics share the console with the tables: keep the tables.
grep -v -E '^(bench: |# \[|# cleanup|vmtest: )' "$out/pp.log" >"$out/pp.md"
echo "bench-pp: saved $out/pp.md" >&2
