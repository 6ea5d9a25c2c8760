#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-xps`: boot a guest, run tests/bench/xps-guest.sh (xps_flow
# off vs on, side by side in one run, on the BQL test NIC) and save its
# markdown tables to build/bench/xps.md. TCG numbers are only meaningful
# as ratios. Then a second boot under QEMU -icount (scripts/vmtest.sh
# --icount: guest time counts guest instructions) runs the pktgen part
# again: packets per guest second measure instructions per packet, so that
# ratio neither depends on the host's load nor on what TCG makes slow. A
# third boot, with 4 vCPUs, runs tests/bench/xps-queues-guest.sh: 8 and 16
# TX queues, the flows moving over all of them.
#
# --quick (first argument; make check's run): every boot and part with one
# round, 1 s per run and 8 TX queues only, no profile; tables in
# build/bench/xps-quick.md; fails if a table is missing.
# Env: BENCH_SECS (default 4), BENCH_ROUNDS (pktgen rounds of off, on, on,
# off in the wall-clock boot; default 8), BENCH_ICOUNT_ROUNDS (the same in
# the icount boot, default 3), BENCH_PERF (1: profile one more pktgen run
# with steering on, the default when perf is installed), BENCH_WALL /
# BENCH_ICOUNT / BENCH_QUEUES_BOOT (0: skip that boot; default 1); other
# options go to scripts/vmtest.sh.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-run.sh
. "$root/scripts/bench-run.sh"
out=$root/build/bench
mkdir -p "$out"
name=xps
quick=0
if [ "${1:-}" = --quick ]; then
	shift
	quick=1
	name=xps-quick
	BENCH_SECS=1 BENCH_ROUNDS=1 BENCH_ICOUNT_ROUNDS=1 BENCH_PERF=0
fi
bench_run_start xps "$quick" "$@"
env=""
[ -n "${BENCH_SECS:-}" ] && env="BENCH_SECS=$BENCH_SECS "
[ -n "${BENCH_ROUNDS:-}" ] && env+="BENCH_ROUNDS=$BENCH_ROUNDS "
[ -n "${BENCH_ICOUNT_ROUNDS:-}" ] && env+="BENCH_ICOUNT_ROUNDS=$BENCH_ICOUNT_ROUNDS "
perf=0
command -v perf >/dev/null && perf=1
env+="BENCH_PERF=${BENCH_PERF:-$perf} "
# shift=0: 1 ns of guest time per instruction; sleep=off: idle time skipped.
# The guest boots with one CPU online (maxcpus=1): under -icount QEMU 7.2
# runs the vCPUs in turn on one thread, and the Debian kernel's bring-up of
# the second x86 vCPU did not finish in minutes. pktgen sends from CPU 0
# only, and one CPU makes every instruction counted CPU 0's.
icount_shift=0
icount_spec="shift=$icount_shift,sleep=off"
# The commit measured (and "+dirty" with uncommitted changes to tracked
# files): every table names it.
code=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo unknown)
[ -z "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ] || code+=+dirty
{
	if [ "${BENCH_WALL:-1}" != 0 ]; then
		echo "<!-- make bench-xps, code $code, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) host cores, load $(cut -d' ' -f1-3 /proc/loadavg), guest: 2 vCPUs TCG -->"
		echo
		bench_vmtest wall --cpus 2 --timeout 900 "$@" \
			--shell-cmd "${env}bash tests/bench/xps-guest.sh"
	fi
	if [ "${BENCH_ICOUNT:-1}" != 0 ]; then
		echo
		echo "<!-- make bench-xps, icount boot, code $code, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), guest: TCG -icount $icount_spec, 2 vCPUs, maxcpus=1 -->"
		echo
		XNET_VM_ICOUNT=$icount_spec bench_vmtest icount --icount --cpus 2 \
			--append maxcpus=1 --timeout 1500 "$@" \
			--shell-cmd "${env}BENCH_MODE=icount BENCH_ICOUNT_SPEC=$icount_spec BENCH_ICOUNT_SHIFT=$icount_shift bash tests/bench/xps-guest.sh"
	fi
	if [ "${BENCH_QUEUES_BOOT:-1}" != 0 ]; then
		echo
		echo "<!-- make bench-xps, many-queues boot, code $code, $(date -u '+%Y-%m-%d %H:%M UTC'), load $(cut -d' ' -f1-3 /proc/loadavg), guest: 4 vCPUs TCG -->"
		echo
		bench_vmtest queues --cpus 4 --timeout 900 "$@" \
			--shell-cmd "BENCH_QUICK=$quick bash tests/bench/xps-queues-guest.sh"
	fi
} | tee "$out/$name.log"
# The guest's diagnostics share the console with the tables: keep the tables.
grep -v -E '^(bench: |# \[|# cleanup)' "$out/$name.log" >"$out/$name.md"
# Both boots' pktgen ratios side by side (the median of the per-round
# ratios from each boot's "on/off" rows).
both=$(python3 - "$out/$name.md" <<'PY'
import re, sys
rows = {}
section = None
for line in open(sys.argv[1]):
    if line.startswith("### "):
        section = "icount" if "icount" in line else "wall"
    m = re.match(r"\| (\S+) \(\d+\) \| on/off \|.*\*\*median ([0-9.]+)\*\*", line)
    if m and section:
        rows.setdefault(m.group(1), {})[section] = m.group(2)
if rows:
    print()
    print("### xps_flow: datapath cost, both measures")
    print()
    print("pktgen packet rate on/off, median of the per-round ratios: wall clock under multi-threaded TCG (what the host gave the guest) and guest instructions under -icount (the instruction-count ratio).")
    print()
    print("| qdisc | wall clock on/off | icount on/off |")
    print("|---|---:|---:|")
    for q, v in rows.items():
        print("| %s | %s | %s |" % (q, v.get("wall", "-"), v.get("icount", "-")))
PY
)
[ -z "$both" ] || printf '\n%s\n' "$both" >>"$out/$name.md"
echo "bench-xps: saved $out/$name.md" >&2
# Every boot that ran must have left its tables.
missing=0
want=()
[ "${BENCH_WALL:-1}" = 0 ] || want+=("### xps_flow: reordering on the BQL test NIC"
	"### xps_flow: datapath cost" "### xps_flow: TCP through the forwarding path")
[ "${BENCH_ICOUNT:-1}" = 0 ] || want+=("### xps_flow: datapath cost in instructions")
[ "${BENCH_QUEUES_BOOT:-1}" = 0 ] || want+=("### xps_flow: many TX queues, 4 CPUs")
for t in "${want[@]}"; do
	grep -qF "$t" "$out/$name.md" || { echo "bench-xps: no table \"$t\"" >&2; missing=1; }
done
# The tables generated from the raw files (reordering, pktgen packet
# rates, TCP through the forwarding path), ahead of the guest's.
if [ "${BENCH_WALL:-1}" != 0 ]; then
	if python3 "$root/scripts/bench-tables.py" "$BENCH_RUN" >"$BENCH_RUN/tables.md"; then
		{
			cat "$BENCH_RUN/tables.md"
			echo
			echo "<!-- The tables below are still the ones the guest printed (not generated from raw files). -->"
			echo
			cat "$out/$name.md"
		} >"$out/$name.md.new"
		mv "$out/$name.md.new" "$out/$name.md"
	else
		echo "bench-xps: scripts/bench-tables.py failed on $BENCH_RUN" >&2
		missing=1
	fi
fi
cp "$out/$name.md" "$BENCH_RUN/$name.md"
bench_run_end "$missing"
