#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xps_flow with many TX queues, run inside a 4-vCPU guest by
# scripts/bench-xps.sh: the raw file queues-raw.txt back to the host
# (bench_raw), from which scripts/bench-tables.py makes the table;
# diagnostics on stderr.
#
# The BQL test NIC with BENCH_QUEUES TX queues (default "8 16"), XPS CPU c
# -> every queue q with q % 4 == c (so each CPU has a queue set and picks
# one of it by the packet's hash), and the queues of CPU 0 completing
# 40 ms late, those of CPU 2 20 ms late, those of CPUs 1 and 3 at once. An
# AF_PACKET sender of BENCH_FLOWS test-header flows (raw IPv4/UDP frames, a
# source port each: the flows hash apart) moves over CPUs 0, 1,
# 2, 3 every burst, so every flow is offered a queue of each set in turn:
#   back to back: bursts one after the other (a flow's old queue is
#     still busy at every move: steering holds it there);
#   paced, BENCH_GAPS_MS (default "30 400") between bursts: after 30 ms
#     the slow queues are still busy (stock XPS reorders, steering holds
#     the flows); after 400 ms they have drained (stock XPS reorders
#     nothing, and steering must let every flow move: all queues carry
#     traffic, in order).
# Steering off (stock XPS) and on (a 4096-entry table), side by side in
# one run: packets on the wire, reordered, the queues that carried
# packets, and xps_flow's moves and holds. queues-raw.txt: "params flows=
# bursts= queues=NQ,NQ... gaps=MS,MS...", then one line per run, "nq=NQ
# mode=off|on pace=back-to-back|MSms test= reordered= gaps= (tn0's wire)
# used= (queues that sent) moves= held= (xps_flow_stats deltas; - when
# off)".
set -uo pipefail
. "$XNET_SRC/tests/vm/lib.sh"
. "$XNET_SRC/tests/bench/lib_bench.sh"
. "$XNET_SRC/tests/vm/lib_testnic.sh"

QUEUES=${BENCH_QUEUES:-8 16}
FLOWS=${BENCH_FLOWS:-16}
BURSTS=${BENCH_BURSTS:-16}
GAPS_MS=${BENCH_GAPS_MS:-30 400}
if [ "${BENCH_QUICK:-0}" = 1 ]; then
	QUEUES=${BENCH_QUEUES:-8}
	BURSTS=${BENCH_BURSTS:-8}
fi
CNT=/sys/class/net/tn0/xps_dev_flow_table_cnt

[ "$(nproc)" -ge 4 ] || fail "needs 4 CPUs online, has $(nproc)"

bench_cleanup() {
	[ ! -e $CNT ] || wput $CNT 0 || true
	if mod_loaded xps_flow; then /sbin/rmmod xps_flow 2>/dev/null || true; fi
	tn_cleanup
}

# sent_per_queue NQ -> SQ[q]: packets each TX queue of tn0 sent so far
declare -A SQ=()
sent_per_queue() {
	local q
	queues tn0
	for ((q = 0; q < $1; q++)); do SQ[$q]=${Q[$q.sent_pkts]}; done
}

# run NQ MODE PACE: one sender run; one line of $RAW
RAW=$XNET_TMP/queues-raw.txt
mkdir -p "$XNET_TMP"
echo "params flows=$FLOWS bursts=$BURSTS queues=$(echo "$QUEUES" | xargs | tr ' ' ',') gaps=$(echo "$GAPS_MS" | xargs | tr ' ' ',')" >"$RAW"
bad=0
run() {
	local nq=$1 mode=$2 pace=$3 q used=0 moves=0 held=0
	local -a args=(--cpus "0,1,2,3" --bursts "$BURSTS" --burst 8 --flows "$FLOWS" --ipv4 "10.99.0.1,10.99.0.2")
	local -A before=()
	[ "$pace" = back-to-back ] || args+=(--gap-us $((${pace% ms} * 1000)))
	wput $D/tn0/reset 1 || fail reset
	sent_per_queue "$nq"
	for q in "${!SQ[@]}"; do before[$q]=${SQ[$q]}; done
	if [ "$mode" = on ]; then
		xstats
		moves=${ST[moves]} held=${ST[held]}
	fi
	log "$nq queues, steering $mode, $pace"
	send tn0 "${args[@]}"
	[[ $SENT_LINE == *cpus_seen=0,1,2,3* ]] ||
		fail "$nq/$mode/$pace: sender did not run on all 4 CPUs: $SENT_LINE"
	wait_until 30 wire_test_is tn0 "$SENT" || fail "$nq/$mode/$pace: wire saw ${W[test]} of $SENT"
	sent_per_queue "$nq"
	for ((q = 0; q < nq; q++)); do
		[ "${SQ[$q]}" -eq "${before[$q]}" ] || used=$((used + 1))
	done
	if [ "$mode" = on ]; then
		xstats
		moves=$((ST[moves] - moves)) held=$((ST[held] - held))
	else
		moves=- held=-
	fi
	echo "nq=$nq mode=$mode pace=${pace// /} test=${W[test]} reordered=${W[reordered]} gaps=${W[gaps]} used=$used moves=$moves held=$held" >>"$RAW"
	log "  $(tail -n 1 "$RAW")"
	[ "$mode" = off ] || [ "${W[reordered]}" -eq 0 ] || bad=1
}

trap bench_cleanup EXIT
for nq in $QUEUES; do
	TN_PARAMS="txqs=$nq" tn_setup
	trap bench_cleanup EXIT
	[ -d /sys/class/net/tn0/queues/tx-$((nq - 1)) ] || fail "tn0 has no tx-$((nq - 1))"
	load_mod xps_flow/xps_flow >&2
	# tn_setup mapped tx-0..3 before the links went up (the static key
	# flip, see there); the key is on now, so these writes patch no code.
	for ((q = 0; q < nq; q++)); do
		wput /sys/class/net/tn0/queues/tx-$q/xps_cpus $((1 << (q % 4))) ||
			fail "xps_cpus of tx-$q"
		case $((q % 4)) in
		0) d=40000 ;;
		2) d=20000 ;;
		*) d=0 ;;
		esac
		wput $D/tn0/tx-$q/delay_us $d || fail "delay_us of tx-$q"
	done
	for pace in back-to-back $GAPS_MS; do
		[ "$pace" = back-to-back ] || pace="$pace ms"
		wput $CNT 0 || fail "steering off"
		run "$nq" off "$pace"
		wput $CNT 4096 || fail "steering on"
		run "$nq" on "$pace"
	done
	wput $CNT 0 || fail "steering off"
	/sbin/rmmod xps_flow || fail "rmmod xps_flow"
	tn_cleanup
	trap - EXIT
done

# The table: scripts/bench-tables.py's, from this raw file.
bench_raw queues-raw.txt "$RAW"
[ $bad = 0 ] || fail "packets reordered with steering on (raw/queues/queues-raw.txt)"
