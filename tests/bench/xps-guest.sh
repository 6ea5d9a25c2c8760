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
#     delays; packets per second on/off, blocks off, on, on, off;
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
/sbin/modprobe pktgen || fail "modprobe pktgen"
PG=/proc/net/pktgen
$IP netns exec $NS cat /sys/class/net/tn1/address >"$XNET_TMP/mac1"
read -r MAC1 <"$XNET_TMP/mac1"
pg() { printf '%s\n' "$2" >"$PG/$1" || fail "pktgen $1: $2"; }
pg kpktgend_0 "rem_device_all"
pg kpktgend_0 "add_device tn0"
for c in "count $((SECS * 25000))" "pkt_size 64" "delay 0" "dst 10.99.0.2" "dst_mac $MAC1" \
	"src_min 10.99.0.1" "src_max 10.99.0.1" "udp_src_min 1000" "udp_src_max 1063" \
	"flag UDPSRC_RND" "xmit_mode queue_xmit"; do
	pg tn0 "$c"
done
declare -A PPS=()
pktgen_run() {	# MODE RUN
	pg pgctrl start
	local l pps=0
	while read -r l; do
		[[ $l =~ ([0-9]+)pps ]] && pps=${BASH_REMATCH[1]}
	done <$PG/tn0
	PPS[$1/$2]=$pps
	log "pktgen $1 run $2: $pps pps"
}
steer 0
pktgen_run off 1
steer 1024
pktgen_run on 1
pktgen_run on 2
steer 0
pktgen_run off 2
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
p0=$(( (PPS[off/1] + PPS[off/2]) / 2 ))
p1=$(( (PPS[on/1] + PPS[on/2]) / 2 ))
echo "### xps_flow: datapath cost"
echo
echo "pktgen, 64-byte UDP, 64 flows (random source port), xmit_mode queue_xmit (queue selection, qdisc and both wrappers), $((SECS * 25000)) packets per run, no completion delay; mean of 2 runs, order off, on, on, off."
echo
echo "| steering | packets/s | runs |"
echo "|---|---:|---|"
echo "| off | $p0 | ${PPS[off/1]}, ${PPS[off/2]} |"
echo "| on | $p1 | ${PPS[on/1]}, ${PPS[on/2]} |"
echo "| on/off | $(ratio "$p0" "$p1") | |"
echo
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
