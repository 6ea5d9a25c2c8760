#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-nvme`: NVMe/TCP priority off vs on, side by side, in QEMU TCG
# guests running tests/bench/nvme-guest.sh, which only measures and sends
# its raw files back (scripts/bench-run.sh's run directory); every table is
# made from them by scripts/bench-tables.py (tables.md there), saved with a
# header line to build/bench/nvme.md (--quick: build/bench/nvme-quick.md,
# tiny runtimes; the guests' output in nvme[-quick].log).
# TCG numbers are only meaningful as ratios.
#
# Two boots of Debian's 6.1 kernel (the second: BENCH_POLL_SERIES; modules built in build/<kver>/src
# by vmtest --series, so a checkout whose .ko files were just built for
# another kernel does not matter):
#  1. the seed's fio matrix with interrupt-driven completions, the tbf+prio
#     shaped link and the mqprio (ADQ-like) test NIC, under bulk traffic;
#  2. the seed's own setup: poll queues, fio --hipri, busy polling
#     (BENCH_POLL=1). Polled I/O trips a warning in the stock nvme-tcp
#     driver on 6.1 and 6.12 alike (tests/bench/nvme-guest.sh), modules or
#     not, depending on a race (lock_sock finding the socket busy). vmtest
#     fails a boot on any kernel WARNING; here exactly that warning is
#     accepted in this boot, and reported in the tables' text, when the
#     guest finished every part and itself found nvme_tcp_poll in the
#     warning's trace (rcu_warning=before or after in its
#     raw/poll/params-seed.txt). Any other kernel problem fails the bench.
# Exit non-zero when a boot failed, bench-tables.py failed (a raw file
# missing, a failed measurement) or a part's rows are missing.
#
# Usage: scripts/bench-nvme.sh [--quick] [vmtest options...]
# BENCH_POLL_SERIES (default 6.1): the kernel series of the poll boot (6.12
# warns the same way: tried on 6.12.118).
# Env: BENCH_SECS (per fio case, default 3), BENCH_PRIO (6), BENCH_RATE
# (2mbit), BENCH_TN_DELAY (8000 µs), BENCH_TN_DEPTH (1), BENCH_BULK_SNDBUF (40000).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-run.sh
. "$root/scripts/bench-run.sh"
out=$root/build/bench
mkdir -p "$out"
name=nvme
quick=0
if [ "${1:-}" = --quick ]; then
	quick=1
	name=nvme-quick
	shift
fi
bench_run_start nvme "$quick" "$@"
env=""
for v in BENCH_SECS BENCH_PRIO BENCH_RATE BENCH_TN_DELAY BENCH_TN_DEPTH BENCH_BULK_SNDBUF; do
	[ -n "${!v:-}" ] && env+="$v=${!v} "
done
[ $quick -eq 1 ] && env+="BENCH_QUICK=1 "
log=$out/$name.log
md=$out/$name.md
: >"$log"

# boot LABEL SERIES GUEST-ENV [vmtest options]: one guest run; its output appended to the log, the
# vmtest status in BOOT_RC, the boot's own output in BOOT_OUT.
boot() {
	local label=$1 series=$2 genv=$3
	shift 3
	BOOT_OUT=$out/$name.$label.log
	echo "bench: boot '$label': $genv" >&2
	bench_vmtest "$label" --series "$series" --cpus 2 --mem 1536 --timeout 1500 \
		--append "nvme_core.multipath=N" "$@" \
		--shell-cmd "${env}${genv} bash tests/bench/nvme-guest.sh" >"$BOOT_OUT" 2>&1
	BOOT_RC=$?
	cat "$BOOT_OUT" >>"$log"
	grep -E '^bench: |^vmtest: ' "$BOOT_OUT" >&2
	if ! grep -q '^<!-- bench-nvme guest: parts .* done -->' "$BOOT_OUT" && [ "$BOOT_RC" -eq 0 ]; then
		BOOT_RC=1
	fi
}

# known_poll_warning BOOT-OUTPUT PARAMS-FILE: the only kernel problem the
# poll boot may show is the stock driver's RCU warning from polled I/O, and
# only when the guest found it in nvme_tcp_poll (its params-seed.txt).
known_poll_warning() {
	local l n=0
	grep -qxE 'rcu_warning=(before|after)' "$2" 2>/dev/null || return 1
	while IFS= read -r l; do
		n=$((n + 1))
		[[ $l =~ WARNING:\ CPU:\ [0-9]+\ PID:\ [0-9]+\ at\ kernel/rcu/tree_plugin\.h:[0-9]+\ rcu_note_context_switch ]] ||
			return 1
	done < <(grep '^vmtest: kernel: ' "$1")
	[ $n -gt 0 ]
}

status=0
load=$(cut -d' ' -f1-3 /proc/loadavg)
header="<!-- make bench-nvme$([ $quick -eq 1 ] && echo ' --quick'), $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) host cores, load average $load at the start, guest: 2 vCPUs TCG"
boot main 6.1 "BENCH_PARTS='seed shaped mqprio'" "$@"
if [ "$BOOT_RC" -ne 0 ]; then
	echo "bench-nvme: the main boot failed (vmtest status $BOOT_RC)" >&2
	status=1
fi
boot poll "${BENCH_POLL_SERIES:-6.1}" "BENCH_PARTS=seed BENCH_POLL=1" "$@"
poll_out=$BOOT_OUT
if [ "$BOOT_RC" -ne 0 ]; then
	if known_poll_warning "$poll_out" "$BENCH_RUN/raw/poll/params-seed.txt"; then
		echo "bench-nvme: the poll boot's only kernel problem is the stock nvme-tcp polling warning (reported in the table text)" >&2
	else
		echo "bench-nvme: the poll boot failed (vmtest status $BOOT_RC)" >&2
		status=1
	fi
fi
load2=$(cut -d' ' -f1-3 /proc/loadavg)
# Every table, generated from the raw files; each part must have left its
# rows (row id prefixes).
if python3 "$root/scripts/bench-tables.py" "$BENCH_RUN" >"$BENCH_RUN/tables.md"; then
	for w in nvme-seed-main- nvme-shaped-main- nvme-mq-main- nvme-seed-poll-; do
		grep -q "^| $w" "$BENCH_RUN/tables.md" || {
			echo "bench-nvme: no $w rows in $BENCH_RUN/tables.md" >&2
			status=1
		}
	done
else
	echo "bench-nvme: scripts/bench-tables.py failed on $BENCH_RUN" >&2
	status=1
fi
{
	echo "$header, $load2 at the end -->"
	echo
	cat "$BENCH_RUN/tables.md"
} >"$md"
echo "bench-nvme: saved $md (status $status)" >&2
cp "$md" "$BENCH_RUN/$name.md"
bench_run_end "$status"
