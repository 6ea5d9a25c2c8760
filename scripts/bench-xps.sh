#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-xps`: boot a guest, run tests/bench/xps-guest.sh (xps_flow
# off vs on, side by side in one run, on the BQL test NIC); the guests send
# raw files back (scripts/bench-run.sh's run directory), from which
# scripts/bench-tables.py makes every table: tables.md there, copied to
# build/bench/xps.md (the guests' output in xps.log). TCG numbers are only meaningful
# as ratios. Then a second boot under QEMU -icount (scripts/vmtest.sh
# --icount: guest time counts guest instructions) runs the pktgen part
# again: packets per guest second measure instructions per packet, so that
# ratio neither depends on the host's load nor on what TCG makes slow. A
# third boot, with 4 vCPUs, runs tests/bench/xps-queues-guest.sh: 8 and 16
# TX queues, the flows moving over all of them.
#
# --quick (first argument; make check's run): every boot and part with one
# round, 1 s per run and 8 TX queues only, no profile; tables in
# build/bench/xps-quick.md; fails if a boot failed or its rows are missing.
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
# Each boot that ran must succeed and leave the rows of its tables (row id
# prefixes in tables.md); the run directory's meta holds the commit, the
# load and each boot's options.
missing=0
want=()
{
	if [ "${BENCH_WALL:-1}" != 0 ]; then
		bench_vmtest wall --cpus 2 --timeout 900 "$@" \
			--shell-cmd "${env}bash tests/bench/xps-guest.sh" || echo "bench-xps: the wall-clock boot failed" >&2
	fi
	if [ "${BENCH_ICOUNT:-1}" != 0 ]; then
		XNET_VM_ICOUNT=$icount_spec bench_vmtest icount --icount --cpus 2 \
			--append maxcpus=1 --timeout 1500 "$@" \
			--shell-cmd "${env}BENCH_MODE=icount bash tests/bench/xps-guest.sh" || echo "bench-xps: the icount boot failed" >&2
	fi
	if [ "${BENCH_QUEUES_BOOT:-1}" != 0 ]; then
		bench_vmtest queues --cpus 4 --timeout 900 "$@" \
			--shell-cmd "BENCH_QUICK=$quick bash tests/bench/xps-queues-guest.sh" || echo "bench-xps: the many-queues boot failed" >&2
	fi
} | tee "$out/$name.log"
for b in wall icount queues; do
	if grep -q "^boot\.$b\.status=" "$BENCH_RUN/meta" && ! grep -qx "boot\.$b\.status=0" "$BENCH_RUN/meta"; then
		echo "bench-xps: boot $b failed" >&2
		missing=1
	fi
done
[ "${BENCH_WALL:-1}" = 0 ] || want+=(xps-reorder- xps-pps- xps-fwd-tcp-)
[ "${BENCH_ICOUNT:-1}" = 0 ] || want+=(xps-ipp-icount- xps-hooks-icount-)
[ "${BENCH_QUEUES_BOOT:-1}" = 0 ] || want+=(xps-queues-)
[ "${BENCH_WALL:-1}${BENCH_ICOUNT:-1}" = 00 ] || want+=(xps-both-)
if [ "${BENCH_PERF:-$perf}" = 1 ]; then
	[ "${BENCH_WALL:-1}" = 0 ] || want+=(xps-profile-wall-)
	[ "${BENCH_ICOUNT:-1}" = 0 ] || want+=(xps-profile-icount-)
fi
# Every table, generated from the raw files.
if python3 "$root/scripts/bench-tables.py" "$BENCH_RUN" >"$BENCH_RUN/tables.md"; then
	for w in "${want[@]}"; do
		grep -q "^| $w" "$BENCH_RUN/tables.md" || {
			echo "bench-xps: no $w rows in $BENCH_RUN/tables.md" >&2
			missing=1
		}
	done
else
	echo "bench-xps: scripts/bench-tables.py failed on $BENCH_RUN" >&2
	missing=1
fi
cp "$BENCH_RUN/tables.md" "$out/$name.md"
echo "bench-xps: saved $out/$name.md" >&2
cp "$out/$name.md" "$BENCH_RUN/$name.md"
bench_run_end "$missing"
