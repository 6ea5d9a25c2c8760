#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-nvme`: boot a guest, run tests/bench/nvme-guest.sh (NVMe/TCP
# priority off vs on, side by side in one run) and save its markdown tables
# to build/bench/nvme.md. TCG numbers are only meaningful as ratios.
# Env: BENCH_SECS (per fio case, default 3), BENCH_PRIO (6), BENCH_RATE
# (10mbit); options go to scripts/vmtest.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/bench
mkdir -p "$out"
env=""
for v in BENCH_SECS BENCH_PRIO BENCH_RATE; do
	[ -n "${!v:-}" ] && env+="$v=${!v} "
done
{
	echo "<!-- make bench-nvme, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) host cores, guest: 2 vCPUs TCG -->"
	echo
	"$root/scripts/vmtest.sh" --cpus 2 --mem 1536 --timeout 900 \
		--append "nvme_core.multipath=N" "$@" \
		--shell-cmd "${env}bash tests/bench/nvme-guest.sh"
} | tee "$out/nvme.log"
# The guest's diagnostics share the console with the tables: keep the tables.
grep -v -E '^(bench: |# \[|# cleanup)' "$out/nvme.log" >"$out/nvme.md"
echo "bench-nvme: saved $out/nvme.md" >&2
