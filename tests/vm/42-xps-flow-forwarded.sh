#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=600
# vmtest: nodebug="forwarded packets take the socketless path through xps_flow that 41 runs here"
#
# Socketless traffic: UDP test-header flows from a sender in netns "src"
# are forwarded by init_net onto the BQL test NIC tn0 (tx-0 completing
# 50 ms late; XPS CPU0 -> tx-0, CPU1 -> tx-1). The forwarding CPU is the
# CPU the sender runs on (veth delivers to that CPU's backlog), so moving
# the sender between CPUs moves the forwarded flows between queues:
# reordered on tn0's wire with stock XPS, in order with xps_flow's table.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_testnic.sh
. "$XNET_SRC/tests/vm/lib_testnic.sh"

SRC=fwdsrc
CNT=/sys/class/net/tn0/xps_dev_flow_table_cnt

fwd_cleanup() {
	[ ! -e /run/netns/$SRC ] || $IP netns del $SRC 2>/dev/null || true
	# Steering pins xps_flow: off first, then it can go.
	[ ! -e $CNT ] || wput $CNT 0 || true
	if mod_loaded xps_flow; then /sbin/rmmod xps_flow 2>/dev/null || true; fi
	tn_cleanup
}

tn_setup
trap fwd_cleanup EXIT
tn_fwd_setup $SRC
/bin/busybox ping -c 1 -W 3 10.99.0.2 >/dev/null || fail "tn1 not reachable"
$IP netns exec $SRC /bin/busybox ping -c 1 -W 3 10.99.0.2 >/dev/null ||
	fail "10.99.0.2 not reachable from $SRC through the forwarding path"
load_mod xps_flow/xps_flow
wput $D/tn0/tx-0/delay_us 50000 || fail "delay_us"

# fwd LABEL: 4 UDP flows, 10 bursts of 8, the sender moving every burst.
fwd() {
	local out
	wput $D/tn0/reset 1 || fail reset
	out=$($IP netns exec $SRC $PY "$SEND" vs0 --udp 10.99.0.2:9999 --cpus 0,1 \
		--bursts 10 --burst 8 --flows 4 2>&1) || fail "sender: $out"
	SENT_LINE=${out##*$'\n'}
	SENT=${SENT_LINE#sent=}
	SENT=${SENT%% *}
	[[ $SENT_LINE == *cpus_seen=0,1* ]] || fail "$1: sender did not run on both CPUs: $SENT_LINE"
	wait_until 20 wire_test_is tn0 "$SENT" || fail "$1: tn0's wire saw ${W[test]} of $SENT"
	wire_diag tn0 "$1"
}

fwd "forwarded, stock XPS"
[ "${W[reordered]}" -gt 0 ] || fail "forwarded flows were not reordered without steering"
wput $CNT 4096 || fail "enable"
fwd "forwarded, xps_flow on"
[ "${W[reordered]}" -eq 0 ] || fail "${W[reordered]} forwarded packets reordered with steering on"
declare -A ST=()
kv_read ST /sys/class/net/tn0/xps_flow_stats
ktap_diag "stats: lookups ${ST[lookups]} moves ${ST[moves]} held ${ST[held]} in_use ${ST[in_use]}"
[ "${ST[held]}" -gt 0 ] || fail "no forwarded flow held back"
wput $CNT 0 || fail "disable"
unload_mod xps_flow
