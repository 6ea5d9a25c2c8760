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
# BENCH_MODE=icount: only 2., for a guest booted with scripts/vmtest.sh
# --icount (guest time = instructions executed, 1 ns each with shift=0):
# packets per guest second are then instructions per packet, the same in
# every run and whatever the host's load. The table says so; the caller
# boots that guest with one CPU online (maxcpus=1: QEMU 7.2's icount does
# not bring up a second x86 vCPU in reasonable time).
set -uo pipefail
. "$XNET_SRC/tests/vm/lib.sh"
. "$XNET_SRC/tests/vm/lib_testnic.sh"

SECS=${BENCH_SECS:-4}
MODE=${BENCH_MODE:-wall}
case $MODE in wall | icount) ;; *) fail "BENCH_MODE=$MODE: wall or icount" ;; esac
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
if [ "$MODE" = wall ]; then
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
fi

pps_stat() {	# median|best RUNS...
	python3 - "$@" <<'PY'
import statistics, sys
v = [int(x) for x in sys.argv[2:]]
print(int(statistics.median(v)) if sys.argv[1] == "median" else max(v))
PY
}
# The icount boot's tables (BENCH_MODE=icount), printed after section 2.
# perf_rows INTRO: INTRO, then the profile table of PERF[qdisc] ("wrappers
# decision hash" shares); sets w0 d0 h0 / w1 d1 h1 for extra rows.
perf_rows() {
	read -r w0 d0 h0 <<<"${PERF[pfifo_fast]}"
	read -r w1 d1 h1 <<<"${PERF[fq_codel]}"
	echo "$1"
	echo
	echo "| where | pfifo_fast | fq_codel |"
	echo "|---|---:|---:|"
	echo "| xps_flow wrappers (xfl_*) | $w0 | $w1 |"
	echo "| decision (xnet_xps_decide) | $d0 | $d1 |"
	echo "| flow hash (__skb_get_hash*, __skb_flow_*, siphash*) | $h0 | $h1 |"
}

icount_tables() {
	local qd n r0 r1 rr ipp0 ipp1 spread
	echo "### xps_flow: datapath cost in instructions (QEMU -icount)"
	echo
	echo "The same pktgen runs ($PKTS packets of 64 bytes, 64 flows, queue_xmit; rounds of off, on, on, off), in a guest booted with \`-icount ${BENCH_ICOUNT_SPEC:-shift=0,sleep=off}\` (single-threaded TCG, one CPU online): guest time advances by $((1 << ${BENCH_ICOUNT_SHIFT:-0})) ns per guest instruction, so packets per guest second are 1e9 / (instructions per packet) and repeat run after run whatever the host does. Instructions per packet counts everything CPU 0 executes during a run: pktgen, queue selection, qdisc, the test NIC, the receive path into tn1's namespace, interrupts."
	echo
	echo "| qdisc (rounds) | steering | median packets/s (guest time) | instructions per packet | spread of the runs | runs |"
	echo "|---|---|---:|---:|---:|---|"
	for qd in pfifo_fast fq_codel; do
		n=$ROUNDS
		# shellcheck disable=SC2086 # the runs are words
		{ r0=$(pps_stat median ${PPS[$qd/off]}); r1=$(pps_stat median ${PPS[$qd/on]}); }
		ipp0=$(python3 -c "print('%.0f' % (1e9 / $r0 * (1 << ${BENCH_ICOUNT_SHIFT:-0})))")
		ipp1=$(python3 -c "print('%.0f' % (1e9 / $r1 * (1 << ${BENCH_ICOUNT_SHIFT:-0})))")
		# shellcheck disable=SC2086
		rr=$(python3 -c 'import statistics, sys; print("%.3f" % statistics.median(float(x) for x in sys.argv[1:]))' ${RR[$qd]})
		for m in off on; do
			# shellcheck disable=SC2086
			spread=$(python3 -c 'import sys; v=[int(x) for x in sys.argv[1:]]; print("%.2f%%" % (100.0 * (max(v) - min(v)) / min(v)))' ${PPS[$qd/$m]})
			if [ $m = off ]; then
				echo "| $qd ($n) | off | $r0 | $ipp0 | $spread | ${PPS[$qd/off]% } |"
			else
				echo "| $qd ($n) | on | $r1 | $ipp1 | $spread | ${PPS[$qd/on]% } |"
			fi
		done
		echo "| $qd ($n) | on/off | $(ratio "$r0" "$r1") | +$((ipp1 - ipp0)) | | per round: ${RR[$qd]% }; **median $rr** |"
	done
	echo
	if [ -n "${PERF[pfifo_fast]:-}" ]; then
		perf_rows "Instruction profile with steering on: \`perf record -e cpu-clock -c 20000 -C 0\` in the icount guest samples every 20000 guest instructions, so these are shares of CPU 0's instructions ($((PKTS * 5)) packets per qdisc)."
		echo
		perf_diff
	fi
}
# Where the extra instructions per packet go: per symbol, its share of the
# samples times the run's instructions per packet, steering on minus off.
perf_diff() {
	local qd
	echo "Where the extra instructions go: per symbol, share of the samples x instructions per packet, steering on minus off (one profiled run each; the symbols that changed most)."
	echo
	for qd in pfifo_fast fq_codel; do
		# shellcheck disable=SC2086 # the runs are words
		python3 - "$qd" "$XNET_TMP/perf-$qd-off.txt" "$XNET_TMP/perf-$qd-on.txt" \
			"$(pps_stat median ${PPS[$qd/off]})" "$(pps_stat median ${PPS[$qd/on]})" \
			"$((1 << ${BENCH_ICOUNT_SHIFT:-0}))" <<'PY'
import re, sys
qd, f0, f1, p0, p1, ns = sys.argv[1:7]
def load(f, pps):
    ipp = 1e9 / float(pps) / float(ns)
    d = {}
    for line in open(f):
        m = re.match(r"\s*([0-9.]+)%\s+\[k\]\s+(\S+)", line)
        if m:
            d[m.group(2)] = d.get(m.group(2), 0.0) + float(m.group(1)) * ipp / 100
    return d, ipp
a, i0 = load(f0, p0)
b, i1 = load(f1, p1)
diff = {k: b.get(k, 0.0) - a.get(k, 0.0) for k in set(a) | set(b)}
top = sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:12]
print("| %s: symbol | off | on | on - off |" % qd)
print("|---|---:|---:|---:|")
for k, v in top:
    print("| %s | %.0f | %.0f | %+.0f |" % (k, a.get(k, 0.0), b.get(k, 0.0), v))
rest = (i1 - i0) - sum(v for _, v in top)
print("| all other symbols | | | %+.0f |" % rest)
print("| **total (instructions per packet)** | %.0f | %.0f | **%+.0f** |" % (i0, i1, i1 - i0))
print()
PY
	done
}

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
[ "$MODE" = wall ] || QD2_ROUNDS=$ROUNDS
pktgen_block pfifo_fast "$ROUNDS"
pktgen_block fq_codel "$QD2_ROUNDS"
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
declare -A PERF=()
perf_share() {	# QDISC [MODE (on)]
	local m=${2:-on} rep=$XNET_TMP/perf-$1-${2:-on}.txt
	local -a per=()
	[ "$MODE" = wall ] || per=(-c 20000)
	qdisc "$1"
	if [ "$m" = on ]; then steer 1024; else steer 0; fi
	pg tn0 "count $((PKTS * 5))"
	perf record -q -e cpu-clock "${per[@]}" -C 0 -o "$XNET_TMP/perf.data" -- \
		sh -c "echo start >$PG/pgctrl" >/dev/null 2>&1
	pg tn0 "count $PKTS"
	steer 0
	perf report -i "$XNET_TMP/perf.data" --no-children --sort sym \
		--percent-limit 0 --stdio 2>/dev/null >"$rep"
	[ "$m" = on ] || return 0
	PERF[$1]=$(python3 - "$rep" <<'PY'
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

if [ "$MODE" = icount ]; then
	icount_tables
	exit 0
fi

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
echo "### xps_flow: datapath cost"
echo
echo "pktgen, 64-byte UDP, 64 flows (random source port), xmit_mode queue_xmit (queue selection, qdisc and both wrappers), $PKTS packets per run, no completion delay; rounds of off, on, on, off. The host is shared: per mode the median and the best run (other load only ever slows a run down), and the median of the per-round ratios (neighbouring runs, so slow changes of the load cancel). pfifo_fast and fq_codel (Debian's default qdisc): neither hashes these packets, since both bypass an empty queue (TCQ_F_CAN_BYPASS) and the test NIC never stops its queues here, so the flow hash is xps_flow's own cost with either."
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
	perf_rows "Where the time goes with steering on: one run of $((PKTS * 5)) packets per qdisc under \`perf record -e cpu-clock -C 0\` (CPU 0 sends and, through the test NIC, also receives); % of its samples. Samples are taken in guest time, so these shares do not depend on the host's load."
	echo "| **xps_flow's own cost** | **$(python3 -c "print('%.2f' % ($w0 + $d0 + $h0))")** | **$(python3 -c "print('%.2f' % ($w1 + $d1 + $h1))")** |"
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
