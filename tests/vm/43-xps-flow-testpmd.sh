#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=300
# vmtest: nodebug="DPDK testpmd traffic takes the AF_PACKET path through xps_flow that 41 runs here"
#
# xps_flow with DPDK testpmd (22.11, net_af_packet ports) on the BQL test
# NIC (tn0 <-> tn1, XPS CPU0 -> tx-0, CPU1 -> tx-1).
#
# 1. testpmd as a socketless vSwitch: "io" forwarding from an af_packet
#    port on veth vr0 (its peer vs0 in netns $SRC, where tn_send.py emits 4
#    sequenced test-header flows) to an af_packet port on tn0, tx-0
#    completing 50 ms late. The forwarding lcore's thread is moved between
#    CPU 0 and CPU 1 every 200 ms; its sendto() kicks af_packet's TX ring
#    from that CPU, so XPS moves the flows. Path (qdisc_bypass=0):
#    tpacket_snd -> dev_queue_xmit -> netdev_core_pick_tx ->
#    ndo_select_queue -> qdisc -> ndo_start_xmit.
#      table off: reordered on tn0's wire > 0 (both queues used);
#      table on (4096): 0 reordered, 0 gaps, every sent packet on the wire,
#      flows held back > 0; testpmd dropped nothing.
# 2. testpmd txonly --txonly-multi-flow (256 UDP flows, no sequence to
#    check) on tn0 with qdisc_bypass=1: packet_direct_xmit ->
#    packet_pick_tx_queue -> ndo_select_queue, dev_direct_xmit ->
#    ndo_start_xmit; the lcore still moving, tx-0 2 ms late. Under that
#    traffic the table is enabled, resized, disabled, re-enabled and
#    xps_flow is removed with the table on. This path passes neither
#    netdev_core_pick_tx() nor xmit_one()'s tracepoints, so xps_flow does
#    not see it (lookups and recorded heads do not grow: the flows are
#    XPS's, as without xps_flow; Documentation/xps-flow.md, "Paths that
#    skip the hooks"); the wire keeps moving after every step, and the
#    device lost nothing it accepted (sent == completed == wire, nothing
#    purged, tx_dropped 0). Held-back moves are reported only: with 256
#    flows a flow's next packet often comes after tx-0's 2 ms.
#    Without a qdisc, af_packet itself drops what meets a stopped queue:
#    reported (testpmd TX vs accepted), not asserted.
# The harness fails the test on any kernel warning, oops or bad taint.
set -euo pipefail
# A private mount namespace for tp_plugins_min (see lib_testnic.sh).
[ -n "${XNET_TP_MNTNS:-}" ] ||
	XNET_TP_MNTNS=1 exec /usr/bin/unshare -m --propagation private /bin/bash "$0" "$@"
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_testnic.sh
. "$XNET_SRC/tests/vm/lib_testnic.sh"

SRC=tpsrc
CNT=/sys/class/net/tn0/xps_dev_flow_table_cnt
TP_PID=''
mv=''

tp_cleanup() {
	[ -z "$mv" ] || kill "$mv" 2>/dev/null || true
	[ -z "$TP_PID" ] || kill "$TP_PID" 2>/dev/null || true
	[ ! -e /run/netns/$SRC ] || $IP netns del $SRC 2>/dev/null || true
	[ ! -e $CNT ] || wput $CNT 0 || true	# steering pins xps_flow
	if mod_loaded xps_flow; then /sbin/rmmod xps_flow 2>/dev/null || true; fi
	tn_cleanup
}


# mover_start / mover_stop: the lcore moving between CPU 0 and 1
mover_start() {
	: >"$XNET_TMP/mv"
	$PY -c "$TP_MOVER" "$TP_TID" >"$XNET_TMP/mv" 2>&1 &
	mv=$!
	wait_until 20 test -s "$XNET_TMP/mv" || fail "mover did not start"
}
mover_stop() {
	kill "$mv" 2>/dev/null || true
	wait_pid "$mv" 10 || fail "mover did not end"
	wait "$mv" || true
	mv=''
	MOVED=$(<"$XNET_TMP/mv")
	MOVED=${MOVED##*$'\n'}
	[[ $MOVED == *cpus_seen=0,1* ]] || fail "the lcore (thread $TP_TID) did not run on both CPUs: $MOVED"
}

tp_plugins_min
tn_setup
trap tp_cleanup EXIT
$IP netns add $SRC || fail "ip netns add $SRC"
$IP link add vr0 type veth peer name vs0 netns $SRC || fail "veth vr0/vs0"
$IP link set vr0 up
$IP -n $SRC link set vs0 up
# Only for the kicks (ARP requests for 10.98.0.1 through testpmd).
$IP -n $SRC addr add 10.98.0.2/24 dev vs0
load_mod xps_flow/xps_flow
wput $D/tn0/tx-0/delay_us 50000 || fail "delay_us"

# ------------------------------------------- 1. testpmd forwarding (io)
# An af_packet TX frame stays busy until tn0 completes its skb (50 ms on
# tx-0, plus the qdisc): with the default 512 frames the ring filled once
# and the PMD dropped (testpmd TX-dropped 175). 4096 frames hold a run.
tp_start "$XNET_TMP/tp-io.out" \
	--vdev net_af_packet0,iface=vr0,qdisc_bypass=0 \
	--vdev net_af_packet1,iface=tn0,qdisc_bypass=0,framecnt=4096 \
	-- --forward-mode=io --total-num-mbufs=2048
wait_until 5 carrier_up vr0 || fail "vr0 has no carrier"

# lost_diag: where forwarded packets went missing
lost_diag() {
	local l
	wire_diag tn0 "lost"
	while read -r l; do ktap_diag "$l"; done < <(/sbin/tc -s qdisc show dev tn0; $IP -s link show vr0
		$IP -n $SRC -s link show vs0; cat /proc/net/softnet_stat)
	tp_stop
	for l in "${!TPS[@]}"; do ktap_diag "testpmd $l ${TPS[$l]}"; done
	while read -r l; do ktap_diag "$l"; done < <(grep -i 'drop\|miss\|err' "$TP_OUT")
}

# fwd LABEL: 4 flows from $SRC for 2 s (bursts of 8 per flow, 20 ms
# apart: shorter than tx-0's delay, so every CPU0 -> CPU1 move of the
# lcore finds packets still on tx-0); wait until all are on tn0's wire.
# The sender stays on CPU 0: the lcore is the only thing that moves.
# wire_kicked N: tn0's wire saw N test packets. Else, once a second, one
# frame from $SRC through testpmd: af_packet's TX ring only goes out when
# the PMD calls sendto() in a TX burst, and frames it could not send then
# (socket send buffer full while tx-0 holds 50 ms of traffic) wait for the
# next burst — which, once the sender is done, only a new packet brings.
KICK_AT=0
wire_kicked() {
	wire_test_is tn0 "$1" && return 0
	if [ $SECONDS -ge $KICK_AT ]; then
		KICK_AT=$((SECONDS + 1))
		$IP netns exec $SRC /bin/busybox ping -c 1 -W 1 10.98.0.1 >/dev/null 2>&1 || true
	fi
	return 1
}

TOT=0
fwd() {
	local out
	wput $D/tn0/reset 1 || fail reset
	mover_start
	out=$($IP netns exec $SRC $PY "$SEND" vs0 --flows 4 --burst 8 --duration 2 \
		--gap-us 20000 --cpus 0 2>&1) || fail "sender: $out"
	mover_stop
	SENT_LINE=${out##*$'\n'}
	SENT=${SENT_LINE#sent=}
	SENT=${SENT%% *}
	TOT=$((TOT + SENT))
	wait_until 20 wire_kicked "$SENT" || {
		lost_diag
		fail "$1: tn0's wire saw ${W[test]} of $SENT"
	}
	wire_diag tn0 "$1"
	ktap_diag "$1: sender $SENT_LINE; lcore $MOVED"
	queues tn0
}

fwd "testpmd io, stock XPS"
[ "${W[reordered]}" -gt 0 ] || fail "flows forwarded by testpmd were not reordered without steering"
{ [ "${Q[0.done_pkts]}" -gt 0 ] && [ "${Q[1.done_pkts]}" -gt 0 ]; } ||
	fail "the lcore's moves did not move the flows (tx-0 ${Q[0.done_pkts]}, tx-1 ${Q[1.done_pkts]})"
off=${W[reordered]}

wput $CNT 4096 || fail "enable"
fwd "testpmd io, xps_flow on"
xstats
ktap_diag "stats: lookups ${ST[lookups]} moves ${ST[moves]} held ${ST[held]} in_use ${ST[in_use]}"
[ "${W[reordered]}" -eq 0 ] || fail "${W[reordered]} reordered with steering on (off: $off)"
[ "${W[gaps]}" -eq 0 ] || fail "gaps ${W[gaps]} with steering on"
[ "${ST[held]}" -gt 0 ] || fail "no forwarded flow held back"

tp_stop
ktap_diag "testpmd io: vr0 RX ${TPS[0.RX-packets]} (dropped ${TPS[0.RX-dropped]})," \
	"tn0 TX ${TPS[1.TX-packets]} (dropped ${TPS[1.TX-dropped]}); sent $TOT"
[ "${TPS[0.RX-packets]}" -ge "$TOT" ] || fail "testpmd received ${TPS[0.RX-packets]} of $TOT"
[ "${TPS[1.TX-packets]}" -ge "$TOT" ] || fail "testpmd sent ${TPS[1.TX-packets]} of $TOT"
[ "${TPS[0.RX-dropped]}${TPS[1.TX-dropped]}" = 00 ] || fail "testpmd dropped packets"

# ------------------------------------ 2. testpmd txonly, table changes
lk1=${ST[lookups]} rec1=${ST[recorded]}
wput $D/tn0/tx-0/delay_us 2000 || fail "delay_us"
wput $CNT 0 || fail "disable"
wput $D/tn0/reset 1 || fail reset
tp_start "$XNET_TMP/tp-tx.out" --vdev net_af_packet0,iface=tn0,qdisc_bypass=1 \
	-- --forward-mode=txonly --txonly-multi-flow --port-topology=loop --total-num-mbufs=2048
mover_start

# moving STEP: 0.4 s after STEP (the lcore moves twice), the wire has grown
# by 100 packets or more
want=0
wire_grows() {
	wire tn0
	[ "${W[packets]}" -ge "$want" ]
}
moving() {
	wire tn0
	want=$((W[packets] + 100))
	nsleep 0.4
	wait_until 10 wire_grows || fail "txonly traffic stalled after $1 (wire ${W[packets]})"
}
moving "start"
for n in 16 4096 1 0 256; do
	wput $CNT $n || fail "write $n under traffic"
	moving "table $n"
done
xstats
ktap_diag "txonly stats: lookups ${ST[lookups]} recorded ${ST[recorded]} moves ${ST[moves]}" \
	"held ${ST[held]} in_use ${ST[in_use]} (before txonly: lookups $lk1 recorded $rec1)"
# The bypass path skips both hooks: neither count follows the wire (the
# kernel's own packets on tn0, if any, may still go through them).
wire tn0
[ $((ST[lookups] - lk1)) -lt $((W[packets] / 10)) ] ||
	fail "lookups on the bypass path: $lk1 -> ${ST[lookups]}, wire ${W[packets]}"
[ $((ST[recorded] - rec1)) -lt $((W[packets] / 10)) ] ||
	fail "heads recorded on the bypass path: $rec1 -> ${ST[recorded]}, wire ${W[packets]}"
# rmmod with the table on, under traffic.
unload_mod xps_flow
[ ! -e $CNT ] || fail "$CNT left after rmmod"
moving "rmmod xps_flow"
mover_stop
tp_stop

all_drained() {
	local q
	for q in 0 1 2 3; do inflight_zero tn0 $q || return 1; done
}
wait_until 10 all_drained || fail "tn0's queues did not drain"
wire tn0
queues tn0
sent=0 cmpl=0
for q in 0 1 2 3; do
	sent=$((sent + Q[$q.sent_pkts])) cmpl=$((cmpl + Q[$q.done_pkts]))
	expect_eq "${Q[$q.purged]}" 0 "tx-$q purged"
done
rd /sys/class/net/tn0/statistics/tx_dropped
ktap_diag "txonly: testpmd TX ${TPS[0.TX-packets]}, tn0 accepted $sent, completed $cmpl," \
	"wire ${W[packets]} (tx-0 ${Q[0.sent_pkts]}, tx-1 ${Q[1.sent_pkts]}); lcore $MOVED"
expect_eq "$cmpl" "$sent" "completed vs accepted packets"
expect_eq "${W[packets]}" "$sent" "wire vs accepted packets"
expect_eq "$R" 0 "tn0 tx_dropped"
{ [ "${Q[0.sent_pkts]}" -gt 0 ] && [ "${Q[1.sent_pkts]}" -gt 0 ]; } || fail "txonly used one queue only"
