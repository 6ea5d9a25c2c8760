#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=600
# vmtest: nodebug="tests the test NIC itself, not a project module"
#
# The test NIC (tests/testnic/xnet_testnic.ko): a pair tn0 <-> tn1 with
# tn1 in a netns, 4 TX queues, XPS CPU0 -> tx-0, CPU1 -> tx-1.
# 1. ping and TCP (iperf3, 2 s) end to end; the wire tracked the TCP flow.
# 2. BQL moves: queues that completed bytes have dql num_completed > 0 and
#    a sysfs limit > 0; with a 2 s completion delay the sysfs inflight is
#    > 0 and drains to 0.
# 3. Test-header frames (tests/testnic/tn_send.py, AF_PACKET, 4 flows):
#    pinned to CPU 0 with no delays -> exactly sent packets on the wire,
#    0 reordered, 0 gaps; moving between CPU 0 and 1 every burst with
#    tx-0 delayed 50 ms -> reordered > 0 (numbers reported).
# 4. reset zeroes the counters; bad knob writes fail and change nothing.
# 5. rmmod with packets in flight (2 s delays); "ip link add type
#    xnet_tnic", then "ip link del" while TCP and raw traffic run; a netns
#    holding one end deleted while traffic runs; final rmmod.
# The harness fails the test on any kernel warning, oops or bad taint.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"

# shellcheck source=tests/vm/lib_testnic.sh
. "$XNET_SRC/tests/vm/lib_testnic.sh"

tn_setup	# IPv4 only: the counts below are of every packet on tn0's wire
info=
while read -r k v; do info+="$k=$v "; done <$D/tn0/info
ktap_diag "tn0: $info"

# ---------------------------------------------------------------- subtests
t_e2e() {
	local out='' i ok=0 spid l rate='?' f
	/bin/busybox ping -c 2 -W 2 10.99.0.2 >/dev/null || fail "ping 10.99.0.2 via tn0"
	$IP netns exec $NS $IPERF -s -1 -p 5201 >"$XNET_TMP/iperf3-s.log" 2>&1 &
	spid=$!
	for ((i = 0; i < 30; i++)); do
		if out=$(timeout 30 $IPERF -c 10.99.0.2 -p 5201 -t 2 -f m 2>&1); then
			ok=1
			break
		fi
		nsleep 0.2
	done
	[ $ok = 1 ] || fail "iperf3 to 10.99.0.2: $out"
	while read -r l; do
		if [[ $l == *sender* ]]; then
			read -r -a f <<<"$l"
			rate="${f[6]} ${f[7]}"
		fi
	done <<<"$out"
	wait_pid $spid 10 || fail "iperf3 server did not end"
	wire tn0
	[ "${W[tcp]}" -gt 0 ] || fail "tn0 wire saw no TCP data segment"
	[ "${W[flows]}" -gt 0 ] || fail "tn0 wire has no flow"
	[ "${W[peer_drops]}" -eq 0 ] || fail "tn0 wire dropped ${W[peer_drops]} packets"
	ktap_diag "iperf3 tn0 -> tn1 ($NS): $rate"
	wire_diag tn0 "tn0 wire"
	wire_diag tn1 "tn1 wire (ACKs: untracked)"
}

t_bql() {
	local q used=0 moved=0 lim infl lims=''
	queues tn0
	for q in 0 1 2 3; do
		[ "${Q[$q.done_pkts]}" -gt 0 ] || continue
		used=$((used + 1))
		[ "${Q[$q.dql_completed]}" -gt 0 ] || fail "tx-$q completed packets but dql num_completed is 0"
		rd /sys/class/net/tn0/queues/tx-$q/byte_queue_limits/limit
		lim=$R
		lims+=" tx-$q:$lim"
		[ "$lim" -gt 0 ] && moved=$((moved + 1))
	done
	[ $used -gt 0 ] || fail "no TX queue completed anything"
	[ $moved -gt 0 ] || fail "BQL limit still 0 on every used queue"
	ktap_diag "after TCP: BQL limit$lims (initial 0), dql_completed tx-0..3:" \
		"${Q[0.dql_completed]} ${Q[1.dql_completed]} ${Q[2.dql_completed]} ${Q[3.dql_completed]}"
	wput $D/tn0/tx-0/delay_us 2000000 || fail "delay_us=2000000"
	send tn0 --cpus 0 --bursts 1 --burst 4 --flows 2
	rd /sys/class/net/tn0/queues/tx-0/byte_queue_limits/inflight
	infl=$R
	queues tn0
	[ "$infl" -gt 0 ] || fail "tx-0 inflight is 0 right after a burst with a 2 s delay"
	[ "${Q[0.dql_inflight]}" -gt 0 ] || fail "queues: tx-0 dql_inflight 0"
	ktap_diag "2 s delay on tx-0: inflight=$infl bytes, ring len=${Q[0.len]}," \
		"limit=${Q[0.dql_limit]}, xoff=${Q[0.xoff]}"
	wait_until 10 inflight_zero tn0 0 ||
		fail "tx-0 inflight did not drain"
	wput $D/tn0/tx-0/delay_us 0 || fail "delay_us=0"
}

t_reorder() {
	local base='' r0 nflows=4 expect
	set_delays tn0 0
	# pinned to CPU 0, no delays: XPS keeps everything on tx-0
	wput $D/tn0/reset 1 || fail reset
	send tn0 --cpus 0 --bursts 10 --burst 8 --flows $nflows
	expect=$SENT
	[ "$expect" -eq $((10 * 8 * nflows)) ] || fail "sender: $SENT_LINE"
	wait_until 10 wire_test_is tn0 "$expect" || fail "wire saw ${W[test]} of $expect test packets"
	wire_diag tn0 "pinned, no delay ($SENT_LINE)"
	[ "${W[reordered]}" -eq 0 ] || fail "reordered ${W[reordered]} without migration"
	[ "${W[gaps]}" -eq 0 ] || fail "gaps ${W[gaps]} without migration"
	[ "${W[inorder]}" -eq "$expect" ] || fail "inorder ${W[inorder]} != $expect"
	[ "${W[flows]}" -eq $nflows ] || fail "flows ${W[flows]} != $nflows"
	# Every packet on the wire delivered (the stack's own, IPv6 ND/MLD, too).
	[ "${W[delivered]}" -eq "${W[packets]}" ] || fail "delivered ${W[delivered]} of ${W[packets]}"
	queues tn0
	[ "${Q[0.done_pkts]}" -eq "$expect" ] || fail "tx-0 completed ${Q[0.done_pkts]} of $expect"

	# migrating every burst, no delays (reported, not asserted)
	wput $D/tn0/reset 1 || fail reset
	send tn0 --cpus 0,1 --bursts 10 --burst 8 --flows $nflows
	wait_until 10 wire_test_is tn0 "$SENT" || fail "wire saw ${W[test]} of $SENT"
	wire_diag tn0 "migrating, no delay ($SENT_LINE)"
	r0=${W[reordered]}

	# migrating every burst, tx-0 50 ms slower than tx-1
	wput $D/tn0/tx-0/delay_us 50000 || fail "delay_us=50000"
	wput $D/tn0/reset 1 || fail reset
	send tn0 --cpus 0,1 --bursts 10 --burst 8 --flows $nflows
	[[ $SENT_LINE == *cpus_seen=0,1* ]] || fail "sender did not run on both CPUs: $SENT_LINE"
	wait_until 15 wire_test_is tn0 "$SENT" || fail "wire saw ${W[test]} of $SENT"
	wire_diag tn0 "migrating, tx-0 +50 ms ($SENT_LINE)"
	[ "${W[reordered]}" -gt 0 ] || fail "no reordering with tx-0 delayed and migration"
	[ "${W[peer_drops]}" -eq 0 ] || fail "peer_drops ${W[peer_drops]}"
	queues tn0
	{ [ "${Q[0.done_pkts]}" -gt 0 ] && [ "${Q[1.done_pkts]}" -gt 0 ]; } ||
		fail "traffic did not use both tx-0 and tx-1"
	ktap_diag "tx-0: ${Q[0.done_pkts]} pkts, max ring ${Q[0.max_len]}, limit ${Q[0.dql_limit]};" \
		"tx-1: ${Q[1.done_pkts]} pkts; reordered without delay: $r0"
	while read -r base; do ktap_diag "flow: $base"; done <$D/tn0/flows
	wput $D/tn0/tx-0/delay_us 0 || fail "delay_us=0"
}

t_reset() {
	local v f
	wire tn0
	[ "${W[packets]}" -gt 0 ] || fail "nothing to reset"
	wput $D/tn0/reset 1 || fail "reset"
	wire tn0
	for f in packets bytes test tcp untracked flows flows_active evictions inorder \
		reordered gaps max_dist delivered peer_drops consumed; do
		[ "${W[$f]}" = 0 ] || fail "after reset: $f=${W[$f]}"
	done
	queues tn0
	{ [ "${Q[0.sent_pkts]}" = 0 ] && [ "${Q[0.done_pkts]}" = 0 ]; } || fail "queue counters not reset"
	rd $D/tn0/flows
	[ "$R" = "kind key pkts reordered gaps hi_seq max_dist" ] || fail "flows header: $R"

	wput $D/tn0/tx-1/delay_us 1234 || fail "delay_us=1234 refused"
	wput $D/tn0/tx-1/depth 512 || fail "depth=512 refused"
	for v in abc -1 +1 " 1" "1 " 0x10 10000001 4294967296 99999999999999999999999 "1 2" ""; do
		! wput $D/tn0/tx-1/delay_us "$v" || fail "delay_us='$v' accepted"
	done
	for v in 0 16385 x -5 ""; do
		! wput $D/tn0/tx-1/depth "$v" || fail "depth='$v' accepted"
	done
	for v in 0 2 x ""; do
		! wput $D/tn0/reset "$v" || fail "reset='$v' accepted"
	done
	rd $D/tn0/tx-1/delay_us
	[ "$R" = 1234 ] || fail "delay_us changed by bad writes: $R"
	rd $D/tn0/tx-1/depth
	[ "$R" = 512 ] || fail "depth changed by bad writes: $R"
	{ wput $D/tn0/tx-1/delay_us 0 && wput $D/tn0/tx-1/depth 1024; } || fail "restore"
}

t_teardown() {
	local q inflight=0 spid cpid ppid1 ppid2 out
	# 1) rmmod with packets in flight both ways
	set_delays tn0 2000000
	set_delays tn1 2000000
	send tn0 --cpus 0,1 --bursts 4 --burst 8 --flows 2
	queues tn0
	for q in 0 1 2 3; do inflight=$((inflight + Q[$q.len])); done
	[ $inflight -gt 0 ] || fail "nothing in flight before rmmod"
	ktap_diag "rmmod with $inflight packets on tn0's rings"
	timeout 60 /sbin/rmmod $MOD || fail "rmmod with packets in flight"
	! mod_loaded $MOD || fail "$MOD still loaded"
	[ ! -e $D ] || fail "$D still there after rmmod"
	[ ! -e /sys/class/net/tn0 ] || fail "tn0 still there after rmmod"
	! $IP -n $NS link show tn1 >/dev/null 2>&1 || fail "tn1 still in $NS after rmmod"

	# 2) ip link add / ip link del while traffic runs
	load_mod $KO pairs=0
	$IP link add tq0 numtxqueues 4 type xnet_tnic || fail "ip link add tq0 type xnet_tnic"
	[ -d /sys/class/net/tq0p ] || fail "no peer tq0p"
	rd /sys/class/net/tq0/iflink
	out=$R
	rd /sys/class/net/tq0p/ifindex
	[ "$out" = "$R" ] || fail "tq0 iflink $out is not tq0p's ifindex $R"
	{ [ -d $D/tq0 ] && [ -d $D/tq0p ]; } || fail "no debugfs for tq0/tq0p"
	$IP link set tq0p netns $NS || fail "moving tq0p"
	$IP addr add 10.97.0.1/24 dev tq0
	$IP link set tq0 up
	$IP -n $NS addr add 10.97.0.2/24 dev tq0p
	$IP -n $NS link set tq0p up
	wait_until 5 carrier_up tq0 || fail "tq0 no carrier"
	set_delays tq0 1000
	set_delays tq0p 1000
	$IP netns exec $NS $IPERF -s -p 5202 >/dev/null 2>&1 &
	spid=$!
	wait_until 20 iperf_ok 10.97.0.2 5202 ||
		fail "iperf3 to 10.97.0.2"
	timeout 60 $IPERF -c 10.97.0.2 -p 5202 -t 30 >/dev/null 2>&1 &
	cpid=$!
	$PY "$SEND" tq0 --cpus 0,1 --duration 30 --until-gone >"$XNET_TMP/s1.log" 2>&1 &
	ppid1=$!
	wait_until 20 wire_has tq0 tcp test || fail "no TCP/test traffic on tq0 before the delete"
	nsleep 0.5
	wire tq0
	ktap_diag "ip link del tq0 with traffic: wire packets=${W[packets]} tcp=${W[tcp]} test=${W[test]}"
	$IP link del tq0 || fail "ip link del tq0"
	[ ! -e /sys/class/net/tq0 ] || fail "tq0 still there"
	! $IP -n $NS link show tq0p >/dev/null 2>&1 || fail "tq0p survived ip link del tq0"
	{ [ ! -e $D/tq0 ] && [ ! -e $D/tq0p ]; } || fail "debugfs of tq0/tq0p left behind"
	wait_pid $ppid1 15 || fail "sender did not notice tq0 went away"
	wait $ppid1 || fail "sender: $(<"$XNET_TMP/s1.log")"
	kill $cpid $spid 2>/dev/null || true
	wait_pid $cpid 10 || kill -KILL $cpid 2>/dev/null || true

	# 3) the netns holding one end goes away while traffic runs
	$IP netns add tnns2 || fail "ip netns add tnns2"
	$IP link add tq1 type xnet_tnic || fail "ip link add tq1"
	$IP link set tq1p netns tnns2 || fail "moving tq1p"
	$IP addr add 10.96.0.1/24 dev tq1
	$IP link set tq1 up
	$IP -n tnns2 addr add 10.96.0.2/24 dev tq1p
	$IP -n tnns2 link set tq1p up
	wait_until 5 carrier_up tq1 || fail "tq1 no carrier"
	set_delays tq1 1000
	set_delays tq1p 1000
	$PY "$SEND" tq1 --udp 10.96.0.2:9 --cpus 0,1 --duration 30 --until-gone \
		>"$XNET_TMP/s2.log" 2>&1 &
	ppid2=$!
	$PY "$SEND" tq1 --cpus 1,0 --duration 30 --until-gone >"$XNET_TMP/s3.log" 2>&1 &
	ppid1=$!
	wait_until 20 wire_has tq1 test || fail "no traffic on tq1 before the netns delete"
	nsleep 0.5
	wire tq1p
	out="tq1p packets=${W[packets]}"
	wire tq1
	ktap_diag "ip netns del tnns2 with traffic: tq1 packets=${W[packets]} test=${W[test]}, $out"
	$IP netns del tnns2 || fail "ip netns del tnns2"
	wait_until 20 gone /sys/class/net/tq1 || fail "tq1 still there 20 s after its peer's netns went"
	{ [ ! -e $D/tq1 ] && [ ! -e $D/tq1p ]; } || fail "debugfs of tq1/tq1p left behind"
	{ wait_pid $ppid1 15 && wait_pid $ppid2 15; } || fail "senders did not notice tq1 went away"
	wait $ppid1 || fail "raw sender: $(<"$XNET_TMP/s3.log")"
	wait $ppid2 || fail "udp sender: $(<"$XNET_TMP/s2.log")"

	# 4) final unload
	unload_mod $MOD
	[ ! -e $D ] || fail "$D still there"
	check_taint "$TAINT_OK_DEFAULT"
}

ktap_plan 5
ktap_result e2e-ping-tcp t_e2e
ktap_result bql-moves t_bql
ktap_result wire-reorder t_reorder
ktap_result reset-bad-writes t_reset
ktap_result teardown t_teardown
ktap_finish
