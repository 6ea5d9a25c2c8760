#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xps_flow benchmark, run inside the guest by scripts/bench-xps.sh: raw
# files back to the host (bench_raw), from which scripts/bench-tables.py
# makes every table; diagnostics on stderr. On the BQL test NIC (tn0 <-> tn1,
# XPS CPU0 -> tx-0, CPU1 -> tx-1), side by side in one run:
#  1. reordering: 4 test-header flows, the sender moving between CPUs every
#     burst, tx-0 completing 50 ms late; steering off vs on;
#  2. datapath cost: pktgen (xmit_mode queue_xmit, so through queue
#     selection, qdisc and both wrappers) 64-byte packets, 64 flows, no
#     delays; packets per second on/off, BENCH_ROUNDS (8) rounds of off,
#     on, on, off; with BENCH_PERF=1 a perf profile of one more run;
#  3. TCP through the forwarding path: iperf3 from netns "fwdsrc" through
#     init_net onto tn0 (tx-0 5 ms late) to tn1, the client moved between
#     CPUs every 0.25 s; goodput and retransmits off vs on (ABBA).
# BENCH_MODE=icount: only 2., for a guest booted with scripts/vmtest.sh
# --icount (guest time = instructions executed, 1 ns each with shift=0):
# packets per guest second are then instructions per packet, the same in
# every run and whatever the host's load (bench-tables.py reads the
# shift from the boot's QEMU command line); the caller
# boots that guest with one CPU online (maxcpus=1: QEMU 7.2's icount does
# not bring up a second x86 vCPU in reasonable time).
set -uo pipefail
. "$XNET_SRC/tests/vm/lib.sh"
. "$XNET_SRC/tests/bench/lib_bench.sh"
. "$XNET_SRC/tests/vm/lib_testnic.sh"
. "$XNET_SRC/tests/vm/lib_pktgen.sh"

SECS=${BENCH_SECS:-4}
MODE=${BENCH_MODE:-wall}
case $MODE in wall | icount) ;; *) fail "BENCH_MODE=$MODE: wall or icount" ;; esac
SRC=fwdsrc
CNT=/sys/class/net/tn0/xps_dev_flow_table_cnt
steer() { wput $CNT "$1" || fail "xps_dev_flow_table_cnt=$1"; }

bench_cleanup() {
	[ ! -e /run/netns/$SRC ] || $IP netns del $SRC 2>/dev/null || true
	[ ! -e /sys/class/net/xo0 ] || $IP link del xo0 2>/dev/null || true
	mod_loaded pktgen && /sbin/rmmod pktgen 2>/dev/null
	tn_cleanup
}
tn_setup
trap bench_cleanup EXIT
load_mod xps_flow/xps_flow >&2

# ---- 1. reordering
if [ "$MODE" = wall ]; then
reorder() {
	wput $D/tn0/reset 1
	send tn0 --cpus 0,1 --bursts 10 --burst 8 --flows 4
	wait_until 20 wire_test_is tn0 "$SENT" || fail "wire saw ${W[test]} of $SENT"
	bench_raw "reorder-$1.txt" "$D/tn0/wire"
}
wput $D/tn0/tx-0/delay_us 50000
steer 0
log "reordering, off"
reorder off
steer 1024
log "reordering, on"
reorder on
wput $D/tn0/tx-0/delay_us 0
fi

# ---- 2. pktgen packet rate
# The host is shared: a run that another load slows down says nothing about
# xps_flow. ROUNDS rounds of off, on, on, off; the tables give each mode's
# median and best run (interference only ever slows a run down). First with
# pfifo_fast under mq, then half as many rounds with fq_codel, Debian's
# default qdisc. Neither hashes these packets: the test NIC never stops a
# queue here, and both qdiscs set TCQ_F_CAN_BYPASS, so __dev_xmit_skb()
# hands each packet on an empty queue straight to the driver (fq_codel
# would reuse the hash xps_flow stored only for packets it enqueues).
ROUNDS=${BENCH_ROUNDS:-8}
# icount runs repeat to the instruction: 3 rounds show that they do.
[ "$MODE" = wall ] || ROUNDS=${BENCH_ICOUNT_ROUNDS:-3}
TC=/sbin/tc
PKTS=$((SECS * 5000))
pktgen_setup "count $PKTS" "udp_src_min 1000" "udp_src_max 1063" "flag UDPSRC_RND"
declare -A PPS=()
pktgen_run() {	# QDISC MODE
	local l pps=0
	pg_start "$PKTS"
	while read -r l; do
		[[ $l =~ ([0-9]+)pps ]] && pps=${BASH_REMATCH[1]}
	done <$PG/tn0
	[ "$pps" -gt 0 ] || fail "pktgen $1 $2: no rate in $PG/tn0"
	PPS[$1/$2]+="$pps "
	# Run N of this qdisc and mode (the rounds go off, on, on, off).
	set -- "$1" "$2" "$(wc -w <<<"${PPS[$1/$2]}")"
	bench_raw "pktgen-$1-$2-$3.txt" "$PG/tn0"
	log "pktgen $1 $2: $pps pps ($PG_N packets, $PG_EL us, d $PG_D us)"
}
qdisc() {	# QDISC: mq with a QDISC child on every TX queue of tn0
	local q
	$TC qdisc replace dev tn0 root handle 1: mq || fail "tc mq on tn0"
	for q in 1 2 3 4; do
		$TC qdisc replace dev tn0 parent 1:$q "$1" || fail "tc $1 on tn0 1:$q"
	done
	[ "$($TC qdisc show dev tn0 | grep -c "qdisc $1 ")" = 4 ] ||
		fail "tn0 has not 4 $1 qdiscs: $($TC qdisc show dev tn0)"
}
pktgen_block() {	# QDISC ROUNDS
	local r m
	qdisc "$1"
	for ((r = 0; r < $2; r++)); do
		for m in off on on off; do
			if [ $m = on ]; then steer 1024; else steer 0; fi
			pktgen_run "$1" $m
		done
	done
}
QD2_ROUNDS=$(((ROUNDS + 1) / 2))
[ "$MODE" = wall ] || QD2_ROUNDS=$ROUNDS
pktgen_block pfifo_fast "$ROUNDS"
# icount: what a device without a table pays while another device has one
# (xps_flow's hooks are registered then and see every device's packets):
# tn0's table off, rounds of "none" (no table anywhere: no hook), "other"
# (a table on the multi-queue dummy xo0), "other", "none".
other_block() {	# ROUNDS
	local r m sz xo=/sys/class/net/xo0/xps_dev_flow_table_cnt
	$IP link add xo0 numtxqueues 2 type dummy || fail "dummy xo0"
	steer 0
	for ((r = 0; r < $1; r++)); do
		for m in none other other none; do
			if [ $m = other ]; then sz=1024; else sz=0; fi
			wput $xo "$sz" || fail "xo0's table=$sz"
			pktgen_run pfifo_fast $m
		done
	done
	wput $xo 0 || fail "xo0's table=0"
	$IP link del xo0
}
[ "$MODE" = wall ] || other_block "$ROUNDS"
# icount: the hooks alone, with nothing behind them (tests/hookcost): what
# the kernel charges per packet for an IPMODIFY ftrace handler on
# netdev_core_pick_tx() and for probes on the two xmit tracepoints, apart
# from what xps_flow does in them. No table anywhere (xps_flow's own hooks
# off); rounds of none, ftrace, tracepoints, both.
HOOKCOST=$XNET_SRC/tests/hookcost/xnet_hookcost.ko
hooks_block() {	# ROUNDS
	local r m
	declare -A bits=([none]=0 [ftrace]=1 [tracepoints]=2 [both]=3)
	[ -f "$HOOKCOST" ] || fail "no $HOOKCOST (make hookcost)"
	steer 0
	for ((r = 0; r < $1; r++)); do
		for m in none ftrace tracepoints both; do
			[ "${bits[$m]}" = 0 ] || /sbin/insmod "$HOOKCOST" hooks="${bits[$m]}" ||
				fail "insmod xnet_hookcost hooks=${bits[$m]}"
			pktgen_run pfifo_fast "hooks-$m"
			[ "${bits[$m]}" = 0 ] || /sbin/rmmod xnet_hookcost || fail "rmmod xnet_hookcost"
		done
	done
}
[ "$MODE" = wall ] || hooks_block "$ROUNDS"
pktgen_block fq_codel "$QD2_ROUNDS"
# Whether fq_codel's enqueue ever ran in its block: the stats of tn0's
# fq_codel children (reset by the qdisc replace at the block's start).
$TC -s qdisc show dev tn0 | bench_raw tc-fq_codel.txt
qdisc pfifo_fast
# Where the time goes with steering on (BENCH_PERF=1, needs linux-perf): the
# share of CPU 0's samples in xps_flow's wrappers and decision, and in the
# flow dissection skb_get_hash() does for packets that carry no hash. One
# longer run per qdisc; samples are taken in guest time, so a share does
# not depend on how much of the host the guest gets.
# In the icount guest cpu-clock runs on guest time, i.e. it samples every
# 20000 instructions (-c 20000), and a run with steering off is profiled
# too: share x instructions per packet, on minus off, per symbol, says where
# the extra instructions go.
# Raw files: perf-QDISC-MODE.txt (perf report) and perf-QDISC-MODE.pktgen
# (the profiled run's pktgen result: its packets and elapsed time).
perf_share() {	# QDISC [MODE (on)]
	local m=${2:-on} rep=$XNET_TMP/perf-$1-${2:-on}.txt
	local -a per=()
	[ "$MODE" = wall ] || per=(-c 20000)
	qdisc "$1"
	if [ "$m" = on ]; then steer 1024; else steer 0; fi
	pg_perf $((PKTS * 5)) "$XNET_TMP/perf.data" "${per[@]}"
	bench_raw "perf-$1-$m.pktgen" "$PG/tn0"
	pg tn0 "count $PKTS"
	steer 0
	perf report -i "$XNET_TMP/perf.data" --no-children --sort sym -n \
		--percent-limit 0 --stdio 2>/dev/null >"$rep"
	grep -q '^ *[0-9.]*% ' "$rep" || fail "perf report $1 $m: no samples"
	bench_raw "perf-$1-$m.txt" "$rep"
	log "perf $1 $m: report sent (pktgen: $PG_EL us, d $PG_D us, $PG_N packets)"
}
if [ "${BENCH_PERF:-0}" = 1 ]; then
	if command -v perf >/dev/null; then
		perf_share pfifo_fast
		perf_share fq_codel
		if [ "$MODE" = icount ]; then
			perf_share pfifo_fast off
			perf_share fq_codel off
		fi
		qdisc pfifo_fast
	else
		log "BENCH_PERF=1 but no perf (scripts/setup.sh installs linux-perf)"
	fi
fi
pg kpktgend_0 "rem_device_all"

[ "$MODE" = wall ] || exit 0

# ---- 3. TCP through the forwarding path
tn_fwd_setup $SRC
$IP netns exec $NS $IPERF -s -p 5201 -D >/dev/null || fail "iperf3 server"
wput $D/tn0/tx-0/delay_us 5000
declare -A TCP=()
tcp_run() {	# MODE RUN
	local out=$XNET_TMP/iperf-$1-$2.json pid cpu=0
	$IP netns exec $SRC $IPERF -c 10.99.0.2 -p 5201 -t "$SECS" -J >"$out" 2>/dev/null &
	pid=$!
	while kill -0 $pid 2>/dev/null; do
		for t in "/proc/$pid/task"/*; do taskset -p -c $cpu "${t##*/}" >/dev/null 2>&1; done
		cpu=$((1 - cpu))
		nsleep 0.25
	done
	# A failed run fails the bench (it used to be a "0 0" row in the mean).
	wait $pid || fail "iperf3 tcp $1 run $2 failed: $(head -c 300 "$out")"
	TCP[$1/$2]=$(python3 - "$out" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["end"]
if not e["sum_received"].get("bytes"):
    sys.exit("iperf3 received 0 bytes")
print("%.1f %d" % (e["sum_received"]["bits_per_second"] / 1e6, e["sum_sent"].get("retransmits", 0)))
PY
) || fail "iperf3 tcp $1 run $2: no result in $out"
	bench_raw "iperf-tcp-$1-$2.json" "$out"
	log "tcp $1 run $2: ${TCP[$1/$2]}"
}
steer 0
tcp_run off 1
steer 1024
tcp_run on 1
tcp_run on 2
steer 0
tcp_run off 2
wput $D/tn0/tx-0/delay_us 0

# The tables: scripts/bench-tables.py's, from the raw files sent above
# (reorder-*.txt, pktgen-*.txt, tc-fq_codel.txt, perf-*, iperf-tcp-*.json).
