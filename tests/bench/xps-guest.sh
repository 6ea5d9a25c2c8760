#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xps_flow benchmark, run inside the guest by scripts/bench-xps.sh; markdown
# tables on stdout, diagnostics on stderr. On the BQL test NIC (tn0 <-> tn1,
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
set -uo pipefail
. "$XNET_SRC/tests/vm/lib.sh"
. "$XNET_SRC/tests/vm/lib_testnic.sh"

SECS=${BENCH_SECS:-4}
SRC=fwdsrc
CNT=/sys/class/net/tn0/xps_dev_flow_table_cnt
log() { echo "bench: $*" >&2; }
ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print('%.3f' % (b/a) if a else 'n/a')" "$1" "$2"; }
steer() { wput $CNT "$1" || fail "xps_dev_flow_table_cnt=$1"; }

bench_cleanup() {
	[ ! -e /run/netns/$SRC ] || $IP netns del $SRC 2>/dev/null || true
	mod_loaded pktgen && /sbin/rmmod pktgen 2>/dev/null
	tn_cleanup
}
tn_setup
trap bench_cleanup EXIT
load_mod xps_flow/xps_flow >&2

# ---- 1. reordering
declare -A RE=()
reorder() {
	wput $D/tn0/reset 1
	send tn0 --cpus 0,1 --bursts 10 --burst 8 --flows 4
	wait_until 20 wire_test_is tn0 "$SENT" || fail "wire saw ${W[test]} of $SENT"
	RE[$1]="${W[test]} ${W[reordered]}"
}
wput $D/tn0/tx-0/delay_us 50000
steer 0
log "reordering, off"
reorder off
steer 1024
log "reordering, on"
reorder on
wput $D/tn0/tx-0/delay_us 0

# ---- 2. pktgen packet rate
# The host is shared: a run that another load slows down says nothing about
# xps_flow. ROUNDS rounds of off, on, on, off; the tables give each mode's
# median and best run (interference only ever slows a run down). First with
# pfifo_fast under mq (nothing else hashes the packets: the flow hash is
# xps_flow's own cost), then half as many rounds with fq_codel, Debian's
# default qdisc, which hashes every packet itself (the hash xps_flow computes
# in ndo_select_queue is the one fq_codel then reuses).
ROUNDS=${BENCH_ROUNDS:-8}
TC=/sbin/tc
PKTS=$((SECS * 5000))
/sbin/modprobe pktgen || fail "modprobe pktgen"
PG=/proc/net/pktgen
$IP netns exec $NS cat /sys/class/net/tn1/address >"$XNET_TMP/mac1"
read -r MAC1 <"$XNET_TMP/mac1"
pg() { printf '%s\n' "$2" >"$PG/$1" || fail "pktgen $1: $2"; }
pg kpktgend_0 "rem_device_all"
pg kpktgend_0 "add_device tn0"
for c in "count $PKTS" "pkt_size 64" "delay 0" "dst 10.99.0.2" "dst_mac $MAC1" \
	"src_min 10.99.0.1" "src_max 10.99.0.1" "udp_src_min 1000" "udp_src_max 1063" \
	"flag UDPSRC_RND" "xmit_mode queue_xmit"; do
	pg tn0 "$c"
done
declare -A PPS=()
pktgen_run() {	# QDISC MODE
	pg pgctrl start
	local l pps=0
	while read -r l; do
		[[ $l =~ ([0-9]+)pps ]] && pps=${BASH_REMATCH[1]}
	done <$PG/tn0
	PPS[$1/$2]+="$pps "
	log "pktgen $1 $2: $pps pps"
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
declare -A RR=()	# per-round on/off ratios (neighbouring runs: slow load drifts cancel)
pktgen_block() {	# QDISC ROUNDS
	local r m n0 n1
	qdisc "$1"
	for ((r = 0; r < $2; r++)); do
		for m in off on on off; do
			if [ $m = on ]; then steer 1024; else steer 0; fi
			pktgen_run "$1" $m
		done
		read -ra n0 <<<"${PPS[$1/off]}"
		read -ra n1 <<<"${PPS[$1/on]}"
		RR[$1]+="$(ratio $((n0[-1] + n0[-2])) $((n1[-1] + n1[-2]))) "
	done
}
QD2_ROUNDS=$(((ROUNDS + 1) / 2))
pktgen_block pfifo_fast "$ROUNDS"
pktgen_block fq_codel $QD2_ROUNDS
qdisc pfifo_fast
# Where the time goes with steering on (BENCH_PERF=1, needs linux-perf): the
# share of CPU 0's samples in xps_flow's wrappers and decision, and in the
# flow dissection skb_get_hash() does for packets that carry no hash. One
# longer run per qdisc; samples are taken in guest time, so a share does
# not depend on how much of the host the guest gets.
declare -A PERF=()
perf_share() {	# QDISC
	qdisc "$1"
	steer 1024
	pg tn0 "count $((PKTS * 5))"
	perf record -q -e cpu-clock -C 0 -o "$XNET_TMP/perf.data" -- \
		sh -c "echo start >$PG/pgctrl" >/dev/null 2>&1
	pg tn0 "count $PKTS"
	steer 0
	perf report -i "$XNET_TMP/perf.data" --no-children --sort sym \
		--percent-limit 0 --stdio 2>/dev/null >"$XNET_TMP/perf.txt"
	PERF[$1]=$(python3 - "$XNET_TMP/perf.txt" <<'PY'
import re, sys
groups = [r"xfl_", r"xnet_xps_", r"__skb_get_hash|__skb_flow_|siphash"]
tot = [0.0] * len(groups)
for line in open(sys.argv[1]):
    m = re.match(r"\s*([0-9.]+)%\s+\[k\]\s+(\S+)", line)
    for i, rx in enumerate(groups):
        if m and re.match(rx, m.group(2)):
            tot[i] += float(m.group(1))
print(" ".join("%.2f" % t for t in tot))
PY
)
	log "perf $1: ${PERF[$1]}"
}
if [ "${BENCH_PERF:-0}" = 1 ]; then
	if command -v perf >/dev/null; then
		perf_share pfifo_fast
		perf_share fq_codel
		qdisc pfifo_fast
	else
		log "BENCH_PERF=1 but no perf (scripts/setup.sh installs linux-perf)"
	fi
fi
pg kpktgend_0 "rem_device_all"

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
	wait $pid
	TCP[$1/$2]=$(python3 - "$out" <<'PY'
import json, sys
try:
    e = json.load(open(sys.argv[1]))["end"]
    print("%.1f %d" % (e["sum_received"]["bits_per_second"] / 1e6, e["sum_sent"].get("retransmits", 0)))
except Exception:
    print("0 0")
PY
)
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

# ---- tables
read -r n0 r0 <<<"${RE[off]}"
read -r n1 r1 <<<"${RE[on]}"
pct() { python3 -c "import sys; print('%.1f' % (100.0 * int(sys.argv[1]) / int(sys.argv[2]) if int(sys.argv[2]) else 0))" "$1" "$2"; }
echo "### xps_flow: reordering on the BQL test NIC"
echo
echo "4 flows (test header, AF_PACKET), 10 bursts of 8 packets per flow, the sender moving between CPU 0 (tx-0, completing 50 ms late) and CPU 1 (tx-1) every burst."
echo
echo "| steering | packets on the wire | reordered | reordered % |"
echo "|---|---:|---:|---:|"
echo "| off | $n0 | $r0 | $(pct "$r0" "$n0") |"
echo "| on | $n1 | $r1 | $(pct "$r1" "$n1") |"
echo
pps_stat() {	# median|best RUNS...
	python3 - "$@" <<'PY'
import statistics, sys
v = [int(x) for x in sys.argv[2:]]
print(int(statistics.median(v)) if sys.argv[1] == "median" else max(v))
PY
}
echo "### xps_flow: datapath cost"
echo
echo "pktgen, 64-byte UDP, 64 flows (random source port), xmit_mode queue_xmit (queue selection, qdisc and both wrappers), $PKTS packets per run, no completion delay; rounds of off, on, on, off. The host is shared: per mode the median and the best run (other load only ever slows a run down), and the median of the per-round ratios (neighbouring runs, so slow changes of the load cancel). pfifo_fast: nothing else hashes these packets, so the flow hash is xps_flow's own cost; fq_codel (Debian's default qdisc) hashes every packet itself and reuses the hash xps_flow computed."
echo
echo "| qdisc (rounds) | steering | median packets/s | best packets/s | runs |"
echo "|---|---|---:|---:|---|"
for qd in pfifo_fast fq_codel; do
	n=$ROUNDS
	[ $qd = pfifo_fast ] || n=$QD2_ROUNDS
	# shellcheck disable=SC2086 # the runs are words
	{ m0=$(pps_stat median ${PPS[$qd/off]}); b0=$(pps_stat best ${PPS[$qd/off]}); }
	# shellcheck disable=SC2086
	{ m1=$(pps_stat median ${PPS[$qd/on]}); b1=$(pps_stat best ${PPS[$qd/on]}); }
	# shellcheck disable=SC2086
	rr=$(python3 -c 'import statistics, sys; print("%.3f" % statistics.median(float(x) for x in sys.argv[1:]))' ${RR[$qd]})
	echo "| $qd ($n) | off | $m0 | $b0 | ${PPS[$qd/off]% } |"
	echo "| $qd ($n) | on | $m1 | $b1 | ${PPS[$qd/on]% } |"
	echo "| $qd ($n) | on/off | $(ratio "$m0" "$m1") | $(ratio "$b0" "$b1") | per round: ${RR[$qd]% }; **median $rr** |"
done
echo
if [ -n "${PERF[pfifo_fast]:-}" ]; then
	read -r w0 d0 h0 <<<"${PERF[pfifo_fast]}"
	read -r w1 d1 h1 <<<"${PERF[fq_codel]}"
	echo "Where the time goes with steering on: one run of $((PKTS * 5)) packets per qdisc under \`perf record -e cpu-clock -C 0\` (CPU 0 sends and, through the test NIC, also receives); % of its samples. Samples are taken in guest time, so these shares do not depend on the host's load."
	echo
	echo "| where | pfifo_fast | fq_codel |"
	echo "|---|---:|---:|"
	echo "| xps_flow wrappers (xfl_*) | $w0 | $w1 |"
	echo "| decision (xnet_xps_decide) | $d0 | $d1 |"
	echo "| flow hash (__skb_get_hash*, __skb_flow_*, siphash*) | $h0 | $h1 (computed with steering off too) |"
	echo "| **xps_flow's own cost** | **$(python3 -c "print('%.2f' % ($w0 + $d0 + $h0))")** | **$(python3 -c "print('%.2f' % ($w1 + $d1))")** |"
	echo
fi
read -r g01 t01 <<<"${TCP[off/1]}"
read -r g02 t02 <<<"${TCP[off/2]}"
read -r g11 t11 <<<"${TCP[on/1]}"
read -r g12 t12 <<<"${TCP[on/2]}"
g0=$(python3 -c "print('%.1f' % ((float('$g01') + float('$g02')) / 2))")
g1=$(python3 -c "print('%.1f' % ((float('$g11') + float('$g12')) / 2))")
echo "### xps_flow: TCP through the forwarding path"
echo
echo "iperf3 ${SECS} s from netns $SRC, forwarded by init_net onto tn0 (tx-0 completing 5 ms late) to tn1; the client's threads moved between CPU 0 and 1 every 0.25 s (the forwarding CPU follows). Mean of 2 runs, order off, on, on, off."
echo
echo "| steering | goodput Mbit/s | retransmits (runs) |"
echo "|---|---:|---|"
echo "| off | $g0 | $t01, $t02 |"
echo "| on | $g1 | $t11, $t12 |"
echo "| on/off | $(ratio "$g0" "$g1") | |"
