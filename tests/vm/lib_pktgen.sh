# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# pktgen for the guests. pg, for any device: the guest tests' and the bench
# guests'. The rest is pktgen on the BQL test NIC for the xps_flow bench
# guests (tests/bench/xps-guest.sh, scale-xps-guest.sh): tn0 (tn_setup)
# sends 64-byte UDP packets from 10.99.0.1 to 10.99.0.2 with xmit_mode
# queue_xmit (queue selection, the qdisc and both xps_flow wrappers), from
# kpktgend_0 on CPU 0. Sourced after tests/vm/lib.sh and lib_testnic.sh.
# PG is pktgen's directory here: not for a guest that also sources
# lib_pp.sh, whose PG is an array.

PG=/proc/net/pktgen
# pg FILE LINE: one pktgen command, written to $PG/FILE.
pg() { printf '%s\n' "$2" >"$PG/$1" || fail "pktgen $1: $2"; }

# pktgen_setup [LINE...]: load pktgen and give kpktgend_0 tn0 alone, with
# the packets above and then each LINE (count, port ranges, flags).
pktgen_setup() {
	local c mac
	/sbin/modprobe pktgen || fail "modprobe pktgen"
	$IP netns exec "$NS" cat /sys/class/net/tn1/address >"$XNET_TMP/mac1"
	read -r mac <"$XNET_TMP/mac1"
	pg kpktgend_0 "rem_device_all"
	pg kpktgend_0 "add_device tn0"
	for c in "pkt_size 64" "delay 0" "dst 10.99.0.2" "dst_mac $mac" \
		"src_min 10.99.0.1" "src_max 10.99.0.1" "xmit_mode queue_xmit" "$@"; do
		pg tn0 "$c"
	done
}

# pktgen_result: PG_EL PG_D PG_N of the last run (microseconds elapsed,
# pktgen's "idle" accumulator, packets sent) from its "Result: OK:
# T(cC+dD) usec, N (...)"; all 0 while a run is going. D counts time in
# schedule() and busy-waiting for an skb's users, some of it twice: for
# logs only. No subshell here: a child's SIGCHLD arriving during the next
# write to pgctrl would end pktgen's wait for the run early
# (signal_pending), and the script would read the previous run's result.
# shellcheck disable=SC2034 # PG_EL, PG_D: for the caller
pktgen_result() {
	local l
	PG_EL=0 PG_D=0 PG_N=0
	while read -r l; do
		if [[ $l =~ OK:\ ([0-9]+)\(c[0-9]+\+d([0-9]+)\)\ usec,\ ([0-9]+) ]]; then
			PG_EL=${BASH_REMATCH[1]} PG_D=${BASH_REMATCH[2]} PG_N=${BASH_REMATCH[3]}
		fi
	done <$PG/tn0
}

# pg_start COUNT: one run of COUNT packets, returning when it has ended;
# fails unless all COUNT were sent. Writing "start" to pgctrl sleeps 125 ms
# (interruptibly) for the thread to pick the run up, then waits while it
# runs; a signal, or a thread that has not picked it up by then, ends that
# early, and the next start would restart a run still going. So: "count"
# rewrites the device's result ("OK: count=N"), and the run's end is its
# "OK: ...usec" result, polled for up to 30 s plus 1 ms per 100 packets.
pg_start() {
	local i lim=$((600 + $1 / 5000))
	pg tn0 "count $1"
	pg pgctrl start
	for ((i = 0; i < lim; i++)); do
		pktgen_result
		[ "$PG_N" = 0 ] || break
		nsleep 0.05
	done
	[ "$PG_N" != 0 ] || fail "pktgen: no result $((lim / 20)) s after start"
	[ "$PG_N" = "$1" ] || fail "pktgen: run of $1 packets incomplete ($PG_N)"
}

# pg_perf COUNT DATA [ARG...]: one run of COUNT packets under
# `perf record -q -e cpu-clock ARG... -C 0 -o DATA` (CPU 0: pktgen's
# thread), the run's end found as pg_start finds it; fails unless all
# COUNT were sent.
pg_perf() {
	local n=$1 data=$2
	shift 2
	pg tn0 "count $n"
	perf record -q -e cpu-clock "$@" -C 0 -o "$data" -- \
		sh -c "echo start >$PG/pgctrl; while ! grep -q usec $PG/tn0; do sleep 0.05; done" \
		>/dev/null 2>&1
	pktgen_result
	[ "$PG_N" = "$n" ] || fail "perf: pktgen run of $n packets incomplete ($PG_N)"
}
