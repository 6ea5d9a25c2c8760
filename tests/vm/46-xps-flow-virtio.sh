#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 hostnet=mq2:txtimer timeout=400 tcg=single
# vmtest: nodebug="the debug kernel has no virtio_net BQL (6.1)"
#
# The seed's case on a real driver: virtio_net, which has BQL since 6.7
# (napi TX), on two multi-queue virtio-net NICs that QEMU bridges in a
# private netns of the host (vmtest hostnet=mq2:txtimer: vA's QEMU sends
# at most 8 frames a queue per ms, so tx-0 keeps a backlog on any host).
# vA (guest) sends,
# vB (moved into netns vrx) receives; the receiver counts each flow's
# sequence numbers (tests/vm/seq_recv.py). Socketless AF_PACKET flows move
# between CPU 0 and CPU 1 every burst (XPS: CPU0 -> tx-0, CPU1 -> tx-1)
# while pktgen keeps tx-0 busy: with stock XPS a flow's burst on tx-1
# overtakes its own packets still queued behind the flood on tx-0
# (reordered at the receiver); with xps_flow's table a
# flow stays on tx-0 until BQL says its bytes were completed, and a flow
# that moves to the backlogged tx-0 is recorded there at once (its next
# burst, proposed tx-1, is held behind it): never reordered, and flows
# still move. hold_max_ms=0 (unbounded holds): a
# bounded hold may move a flow early by design (45 tests that).
# On a kernel whose virtio_net has no BQL (6.1) the test skips.
# tcg=single: in the fresh-clone check at 15d6601 the guest oopsed once
# (NULL pointer in net_rx_action's napi list, CPU 0, at the first AF_PACKET
# send, steering still off) under multi-threaded TCG; 3 other runs passed.
# Not understood (QEMU 7.2 MTTCG has bitten 52 before, or a 6.12 virtio_net
# bug); single-threaded TCG passed and still reorders with stock XPS.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_testnic.sh
. "$XNET_SRC/tests/vm/lib_testnic.sh"
# shellcheck source=tests/vm/lib_pktgen.sh
. "$XNET_SRC/tests/vm/lib_pktgen.sh"

RECV=$XNET_SRC/tests/vm/seq_recv.py
RX=vrx
HOLD=/sys/module/xps_flow/parameters/hold_max_ms

by_mac() { # MAC -> the device's name in R (init_net), or ""
	local d a
	R=
	for d in /sys/class/net/*; do
		read -r a <"$d/address" || continue
		if [ "$a" = "$1" ]; then R=${d##*/}; fi
	done
	return 0
}

v_cleanup() {
	if [ -e "/sys/class/net/${A:-none}/xps_dev_flow_table_cnt" ]; then
		wput "/sys/class/net/$A/xps_dev_flow_table_cnt" 0 || true
	fi
	if [ -e /proc/net/pktgen/kpktgend_0 ]; then
		echo rem_device_all >/proc/net/pktgen/kpktgend_0 2>/dev/null || true
	fi
	if mod_loaded xps_flow; then /sbin/rmmod xps_flow 2>/dev/null || true; fi
	[ ! -e /run/netns/$RX ] || $IP netns del $RX 2>/dev/null || true
}
trap v_cleanup EXIT

by_mac 52:54:00:78:00:01
A=$R
by_mac 52:54:00:78:00:02
B=$R
if [ -z "$A" ] || [ -z "$B" ]; then
	skip "no virtio-net NICs (vmtest hostnet needs root and /dev/net/tun on the host)"
fi
drv=$(basename "$(readlink "/sys/class/net/$A/device/driver")")
expect_eq "$drv" virtio_net "driver of $A"
read -r BMAC <"/sys/class/net/$B/address"

$IP netns add $RX
$IP link set "$B" netns $RX
$IP -n $RX link set "$B" up
$IP link set "$A" up
/usr/sbin/ethtool -L "$A" combined 2 2>/dev/null || true
expect_eq "$(cd "/sys/class/net/$A/queues" && echo tx-*)" "tx-0 tx-1" "$A TX queues"
wput "/sys/class/net/$A/queues/tx-0/xps_cpus" 1 || fail "xps_cpus tx-0"
wput "/sys/class/net/$A/queues/tx-1/xps_cpus" 2 || fail "xps_cpus tx-1"
load_mod xps_flow/xps_flow
CNT=/sys/class/net/$A/xps_dev_flow_table_cnt

# BQL: a driver without it never counts bytes handed over (head stays 0).
send "$A" --dst "$BMAC" --flows 1 --bursts 4 --burst 8 --size 200
read -r head <"/sys/class/net/$A/xps_flow/tx-0/head"
read -r head1 <"/sys/class/net/$A/xps_flow/tx-1/head"
ktap_diag "$XNET_KVER virtio_net: BQL head tx-0 $head tx-1 $head1 after $SENT frames"
[ $((head + head1)) -gt 0 ] || skip "virtio_net of $XNET_KVER has no BQL (added in 6.7)"

# pktgen floods tx-0 in bursts (kpktgend_0, queue 0, to a MAC nobody has:
# the bridge floods it to vB, which drops it) so that the queue has a
# backlog QEMU's TX works through, as a real NIC's busy queue would.
/sbin/modprobe pktgen || fail "modprobe pktgen"
pg kpktgend_0 rem_device_all
pg kpktgend_0 "add_device $A"
for c in "count 20000" "pkt_size 1400" "dst_mac 52:54:00:78:00:99" \
	"queue_map_min 0" "queue_map_max 0" "delay 0" "clone_skb 0"; do
	pg "$A" "$c"
done
flood() { # SECS: bursts of 20000 with 20 ms pauses
	local end=$((${EPOCHREALTIME/./} + $1 * 1000000))
	while [ "${EPOCHREALTIME/./}" -lt "$end" ]; do
		printf 'start\n' >"$PG/pgctrl" || return 1
		nsleep 0.02
	done
}

# run LABEL: 4 migrating AF_PACKET flows (ids 1-4) while pktgen floods
# tx-0, counted at vB; the receiver's counts in RV[].
run() {
	local label=$1 bulk mig ready=$XNET_TMP/ready
	rm -f "$ready"
	$IP netns exec $RX $PY "$RECV" "$B" --duration 12 --flows 1-4 --ready "$ready" \
		>"$XNET_TMP/recv" 2>&1 &
	local rpid=$!
	wait_until 10 test -e "$ready" || fail "receiver not ready"
	flood 6 &
	bulk=$!
	mig=$($PY "$SEND" "$A" --dst "$BMAC" --cpus 0,1 --flows 4 --burst 4 \
		--size 600 --duration 6 2>&1) || fail "$label: sender: $mig"
	wait "$bulk" || fail "$label: pktgen flood failed"
	kill -TERM "$rpid" 2>/dev/null || true
	wait "$rpid" || fail "$label: receiver: $(cat "$XNET_TMP/recv")"
	RL=$(tail -n 1 "$XNET_TMP/recv")
	ktap_diag "$label: pktgen $(grep -o 'Result: .*' "$PG/$A")"
	ktap_diag "$label: sent ${mig##*$'\n'}; received $RL"
	[[ $mig == *cpus_seen=0,1* ]] || fail "$label: sender did not run on both CPUs"
	declare -gA RV=()
	local kv
	for kv in $RL; do RV[${kv%%=*}]=${kv#*=}; done
	[ "${RV[packets]}" -gt 0 ] || fail "$label: nothing received"
}

# With QEMU's default TX, whether tx-1 overtook tx-0's backlog depended on
# how the host scheduled QEMU's main loop (0 reordered in a CI run); the
# timer TX keeps the backlog. Still, up to three stock runs are made until
# one reorders; the run with the table on is checked either way, and if no
# stock run reordered the test reports itself skipped (xps_flow's 0 is no
# comparison), not passed.
for try in 1 2 3; do
	run "stock XPS ($try)"
	[ "${RV[reordered]}" -eq 0 ] || break
done
stock=${RV[reordered]}

wput $HOLD 0 || fail "hold_max_ms=0"
wput "$CNT" 4096 || fail "enable the table"
st0=$(sed -n 's/^moves //p' "/sys/class/net/$A/xps_flow_stats")
run "xps_flow on"
st1=$(sed -n 's/^moves //p' "/sys/class/net/$A/xps_flow_stats")
held=$(sed -n 's/^held //p' "/sys/class/net/$A/xps_flow_stats")
ktap_diag "xps_flow: moves $((st1 - st0)) held $held"
[ "${RV[reordered]}" -eq 0 ] || fail "${RV[reordered]} frames reordered with xps_flow on"
[ $((st1 - st0)) -gt 0 ] || fail "no flow moved with xps_flow on (held on tx-0 for good?)"
wput "$CNT" 0 || fail "disable"
wput $HOLD 1000 || fail "hold_max_ms=1000"
unload_mod xps_flow
[ "$stock" -gt 0 ] ||
	skip "stock XPS reordered no frame in 3 runs on this host: the setup showed nothing to compare"
