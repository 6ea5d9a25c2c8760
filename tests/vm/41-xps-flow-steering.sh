#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=600
# vmtest: stock61="xps_flow steering with Debian's build and config"
# vmtest: rt="xps_flow's hooks, table and datapath on RT"
#
# xps_flow on the BQL test NIC (tn0 <-> tn1, XPS CPU0 -> tx-0, CPU1 -> tx-1,
# tx-0 completing 50 ms late): an AF_PACKET sender of 4 test-header flows
# moves between CPU 0 and CPU 1 every burst.
#   table off: the wire counts reordered packets (> 0);
#   table on:  0 reordered, every packet delivered, and the stats show
#              flows held back and moved;
#   enable / resize / disable while the sender runs; resizes with the
#   table on reorder nothing; device down/up (BQL counters reset) keeps
#   working; rmmod is refused while steering is on, and once it is off
#   the device behaves as before.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_testnic.sh
. "$XNET_SRC/tests/vm/lib_testnic.sh"

CNT=/sys/class/net/tn0/xps_dev_flow_table_cnt

# run LABEL [SENDER-ARGS]: reset the wire, migrate the sender over 10
# bursts, wait until every packet is on the wire; W[] holds the counters.
run() {
	local label=$1
	shift
	wput $D/tn0/reset 1 || fail reset
	send tn0 --cpus 0,1 --bursts 10 --burst 8 --flows 4 "$@"
	[[ $SENT_LINE == *cpus_seen=0,1* ]] || fail "$label: sender did not run on both CPUs: $SENT_LINE"
	wait_until 20 wire_test_is tn0 "$SENT" || fail "$label: wire saw ${W[test]} of $SENT"
	wire_diag tn0 "$label"
}

xfl_cleanup() {
	# Steering pins xps_flow: off first, then it can go.
	[ ! -e $CNT ] || wput $CNT 0 || true
	if mod_loaded xps_flow; then /sbin/rmmod xps_flow 2>/dev/null || true; fi
	tn_cleanup
}

tn_setup
trap xfl_cleanup EXIT
load_mod xps_flow/xps_flow
wput $D/tn0/tx-0/delay_us 50000 || fail "delay_us"

run "steering off"
[ "${W[reordered]}" -gt 0 ] || fail "no reordering without steering: the test shows nothing"
off=${W[reordered]}

wput $CNT 1024 || fail "enable"
run "steering on"
[ "${W[reordered]}" -eq 0 ] || fail "${W[reordered]} reordered with steering on (off: $off)"
[ "${W[gaps]}" -eq 0 ] || fail "gaps ${W[gaps]} with steering on"
xstats
ktap_diag "stats: lookups ${ST[lookups]} moves ${ST[moves]} held ${ST[held]} recorded ${ST[recorded]} in_use ${ST[in_use]}"
[ "${ST[held]}" -gt 0 ] || fail "no move held back"

# With pauses long enough for tx-0 to drain between bursts (qdisc and
# ring: BQL lets only part of a burst into the ring at a time, so a burst
# takes several completion delays), the flows do move: in order still,
# and both queues carry traffic.
held0=${ST[held]} moves0=${ST[moves]}
wput $D/tn0/tx-0/delay_us 2000 || fail "delay_us"
run "steering on, tx-0 2 ms late, 150 ms between bursts" --gap-us 150000
wput $D/tn0/tx-0/delay_us 50000 || fail "delay_us"
[ "${W[reordered]}" -eq 0 ] || fail "${W[reordered]} reordered with steering on and pauses"
xstats
ktap_diag "stats: moves $((ST[moves] - moves0)) held $((ST[held] - held0))"
[ "${ST[moves]}" -gt "$moves0" ] || fail "no flow moved once its old queue had drained"
queues tn0
{ [ "${Q[0.done_pkts]}" -gt 0 ] && [ "${Q[1.done_pkts]}" -gt 0 ]; } ||
	fail "everything stayed on one queue (tx-0 ${Q[0.done_pkts]}, tx-1 ${Q[1.done_pkts]})"

# Per-queue counters under xps_flow/tx-N: the queue's own BQL bytes (the
# test NIC reports the same dql values), head never behind tail.
for q in 0 1; do
	f=/sys/class/net/tn0/xps_flow/tx-$q
	rd $f/head
	head=$R
	rd $f/tail
	tail=$R
	ktap_diag "tx-$q: head $head tail $tail (test NIC: queued ${Q[$q.dql_queued]} completed ${Q[$q.dql_completed]})"
	[ "$head" -gt 0 ] || fail "tx-$q head is 0 after traffic"
	[ "$head" -ge "$tail" ] || fail "tx-$q head $head behind tail $tail"
	expect_eq "$head" "${Q[$q.dql_queued]}" "tx-$q head vs the device's dql.num_queued"
done

# Disable/enable and resize while the sender runs: nothing breaks
# (reordering is allowed while the table is off or just back on).
wput $D/tn0/reset 1 || fail reset
$PY "$SEND" tn0 --cpus 0,1 --duration 3 --burst 8 --flows 4 >"$XNET_TMP/bg" 2>&1 &
bg=$!
for n in 16 0 4096 1 0 256; do
	wput $CNT $n || fail "write $n under traffic"
	nsleep 0.3
done
wait $bg || fail "sender: $(<"$XNET_TMP/bg")"
bg_sent() { # -> SENT, from the background sender's summary line
	local line
	line=$(tail -n 1 "$XNET_TMP/bg")
	SENT=${line#sent=}
	SENT=${SENT%% *}
}
bg_sent
wait_until 30 wire_test_is tn0 "$SENT" || fail "wire saw ${W[test]} of $SENT after toggling"
wire_diag tn0 "toggling and resizing under traffic (reordering allowed while off)"

# Resizes with the table on all along, while the sender moves between
# CPUs: every hold carries over into the new table, so nothing is
# reordered (a new, empty table lets held flows overtake their own
# packets still waiting on tx-0). tx-0 200 ms late and 20 ms between
# bursts: the sender is not paced by tx-0 (a full qdisc would make it
# wait for tx-0's next transmit, which records the flow in the new table
# first), so a burst follows a resize before tx-0 sends again.
# The flows stay held for the whole 3 s (tx-0 never drains while they
# keep sending there): no time bound here, what is tested is the carry.
wput /sys/module/xps_flow/parameters/hold_max_ms 0 || fail "hold_max_ms=0"
wput $D/tn0/tx-0/delay_us 200000 || fail "delay_us"
wput $D/tn0/reset 1 || fail reset
$PY "$SEND" tn0 --cpus 0,1 --duration 3 --burst 8 --flows 4 --gap-us 20000 \
	>"$XNET_TMP/bg" 2>&1 &
bg=$!
for n in 4096 16 1 1024 64 256; do
	nsleep 0.4
	wput $CNT $n || fail "resize to $n under traffic"
done
wait $bg || fail "sender: $(<"$XNET_TMP/bg")"
wput $D/tn0/tx-0/delay_us 50000 || fail "delay_us"
wput /sys/module/xps_flow/parameters/hold_max_ms 1000 || fail "hold_max_ms=1000"
bg_sent
wait_until 30 wire_test_is tn0 "$SENT" || fail "wire saw ${W[test]} of $SENT while resizing"
wire_diag tn0 "resizing with the table on"
[ "${W[reordered]}" -eq 0 ] || fail "${W[reordered]} reordered while resizing with the table on"
[ "${W[gaps]}" -eq 0 ] || fail "gaps ${W[gaps]} while resizing with the table on"

# Device down/up resets the queues' BQL counters: steering goes on.
$IP link set tn0 down
$IP link set tn0 up
wait_until 5 carrier_up tn0 || fail "tn0 has no carrier after up"
for q in 0 1 2 3; do
	wput /sys/class/net/tn0/queues/tx-$q/xps_cpus $(((q < 2) * (1 << q))) || fail "xps_cpus"
done
run "steering on after down/up"
[ "${W[reordered]}" -eq 0 ] || fail "${W[reordered]} reordered after down/up"

# rmmod with steering on: the tables go off, the hooks with them.
unload_mod xps_flow
[ ! -e $CNT ] || fail "$CNT left after rmmod"
[ ! -e /sys/class/net/tn0/queues/tx-0/xps_flow ] || fail "queues/tx-0/xps_flow left after rmmod"
run "after rmmod (the device's own behaviour)"
[ "${W[reordered]}" -gt 0 ] || fail "no reordering after rmmod: was the device restored?"
