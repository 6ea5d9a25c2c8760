#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xps_flow from 1k to 1M flows, run inside an icount guest by
# scripts/bench-scale.sh (scripts/vmtest.sh --icount, one CPU online):
# raw files back to the host (bench_raw), from which
# scripts/bench-tables.py makes the tables; diagnostics ("bench: ...") on
# stderr. scale-xps-raw.txt: "params entries=M pkts=STEADY flows=N,N...
# rounds=R", one line per run ("N MODE RUN first_us= first_n= steady_us=
# steady_n= in_use= vm_kb= area= pages=" and the xps_flow_stats deltas),
# "end vmalloc_kb=" (VmallocUsed after the last run); with the profile,
# scale-xps-perf-N-MODE.txt (perf report of the profiled steady pass).
#
# On the BQL test NIC (tn_setup: tn0 -> tn1, XPS CPU0 -> tx-0), pktgen
# sends 64-byte UDP packets (xmit_mode queue_xmit: queue selection, qdisc,
# both xps_flow wrappers) from 10.99.0.1 to 10.99.0.2 with N distinct
# flows, for each N of SCALE_XPS_FLOWS. Steering off (table 0: the device's
# own ops, stock XPS) and on (a table of SCALE_XPS_ENTRIES = 2^20 entries,
# allocated empty for every "on" run), rounds of off, on, on, off.
#
# Exactly N flows: pktgen's "flows" mode caps at 65536 concurrent flows, so
# the flows come from port ranges stepped in sequence instead. N = A x P
# with A the power of two in N and P its odd part (1,000 = 8 x 125,
# 1,000,000 = 64 x 15,625): the UDP destination port runs through A values
# and the source port through P, one step each per packet (pktgen's
# mod_cur_headers() without the *_RND flags), restarting at every run
# (pktgen_setup_inject()). A and P share no factor, so packets 1..N carry N
# different (source port, destination port) pairs, and packet k + N the
# same pair as packet k (Chinese remainder theorem). The addresses stay
# fixed, so the receive path (tn1's namespace: no socket on these ports,
# rate-limited ICMP errors to the one source) is the same for every N.
#
# Each run is two pktgen runs: a first pass of N packets, each packet the
# first of its flow (in "on" runs: a new entry, the claim path), then a
# steady pass of SCALE_XPS_PKTS packets over flows the first pass made,
# none of them a flow's first packet. Instructions per packet: under
# -icount shift=0 guest time advances 1 ns per guest instruction, so
# pktgen's elapsed time of a run in ns / packets is instructions per packet
# (everything CPU 0 ran meanwhile: pktgen, queue selection, qdisc, test NIC,
# tn1's receive path, interrupts), the same in every run whatever the host
# does. TCG models no caches or TLB: these are instruction counts only.
#
# Per "on" run: xps_flow_stats deltas (lookups, moves, held, stale,
# recorded, expired; by name) and in_use after the first pass (occupied
# entries: one flow per entry, or several flows sharing it, since entries
# carry no flow tag), next to what a uniform hash gives; VmallocUsed of
# /proc/meminfo before and after the table's allocation (kvzalloc: above
# kmalloc's largest size it is vmalloc'ed) per entry.
#
# Env: SCALE_XPS_FLOWS (default "1000 10000 100000 1000000"),
# SCALE_XPS_PKTS (steady pass, default 100000), SCALE_XPS_ROUNDS (rounds
# of off, on, on, off; default 1), SCALE_XPS_ENTRIES (1048576),
# SCALE_XPS_PERF (1: profile one steady pass with steering off and on at
# the smallest N, when perf is installed), BENCH_QUICK=1 (N 100
# and 1,000, 2,000 packets, no profile). The icount shift (guest ns per
# instruction) is the host's to know: bench-tables.py reads it from the
# boot's QEMU command line.
set -uo pipefail
. "$XNET_SRC/tests/vm/lib.sh"
. "$XNET_SRC/tests/bench/lib_bench.sh"
. "$XNET_SRC/tests/vm/lib_testnic.sh"
. "$XNET_SRC/tests/vm/lib_pktgen.sh"

if [ "${BENCH_QUICK:-0}" = 1 ]; then
	FLOWS=${SCALE_XPS_FLOWS:-100 1000}
	PKTS=${SCALE_XPS_PKTS:-2000}
	PERF_ON=${SCALE_XPS_PERF:-0}
else
	FLOWS=${SCALE_XPS_FLOWS:-1000 10000 100000 1000000}
	PKTS=${SCALE_XPS_PKTS:-100000}
	PERF_ON=${SCALE_XPS_PERF:-1}
fi
ROUNDS=${SCALE_XPS_ROUNDS:-1}
ENTRIES=${SCALE_XPS_ENTRIES:-1048576}
CNT=/sys/class/net/tn0/xps_dev_flow_table_cnt
STATS=/sys/class/net/tn0/xps_flow_stats
RAW=$XNET_TMP/scale-xps-raw.txt
SRC_PORT=1000
DST_PORT=20000
steer() { wput $CNT "$1" || fail "xps_dev_flow_table_cnt=$1"; }

[[ $PKTS =~ ^[1-9][0-9]*$ ]] || fail "SCALE_XPS_PKTS=$PKTS"
[[ $ROUNDS =~ ^[1-9]$ ]] || fail "SCALE_XPS_ROUNDS=$ROUNDS: 1..9"
[[ $ENTRIES =~ ^[1-9][0-9]*$ ]] || fail "SCALE_XPS_ENTRIES=$ENTRIES"
# split N: sets PA (power of two) and PP (odd part), N = PA x PP; each is
# a port range, so both must fit beside the base ports.
split() {
	PA=1 PP=$1
	while [ $((PP % 2)) = 0 ]; do
		PA=$((PA * 2)) PP=$((PP / 2))
	done
	[ "$PA" -le 32768 ] && [ "$PP" -le 32768 ]
}
for n in $FLOWS; do
	[[ $n =~ ^[1-9][0-9]*$ ]] || fail "SCALE_XPS_FLOWS: $n is no count"
	split "$n" || fail "SCALE_XPS_FLOWS: $n = $PA x $PP; need both parts up to 32768"
done

bench_cleanup() {
	[ ! -e $CNT ] || steer 0
	mod_loaded pktgen && /sbin/rmmod pktgen 2>/dev/null
	tn_cleanup
}
tn_setup
trap bench_cleanup EXIT
load_mod xps_flow/xps_flow >&2
steer "$ENTRIES"
rd $CNT
[ "$R" = "$ENTRIES" ] || fail "table of $ENTRIES entries asked, $R given"
steer 0
pktgen_setup "count $PKTS"
# flows N: the port ranges that make N flows (see the header).
flows() {
	split "$1"
	pg tn0 "udp_src_min $SRC_PORT"
	pg tn0 "udp_src_max $((SRC_PORT + PP))"
	pg tn0 "udp_dst_min $DST_PORT"
	pg tn0 "udp_dst_max $((DST_PORT + PA))"
}

declare -A ST=()
stats() { kv_read ST $STATS || fail "read $STATS"; }
vmalloc_kb() {
	local -A mi=()
	kv_read mi /proc/meminfo
	R=${mi[VmallocUsed:]%% *}
}
# table_area: the table's vmalloc area as /proc/vmallocinfo lists it (the
# caller is xfl_enable(): kvmalloc_node() passes its own return address),
# "BYTES PAGES" in R (its size counts one guard page), "0 0" if none.
table_area() {
	local l f
	local -a lines=()
	R="0 0"
	mapfile -t lines </proc/vmallocinfo
	for l in "${lines[@]}"; do
		[[ $l == *xfl_enable* ]] || continue
		read -ra f <<<"$l"
		[[ $l =~ pages=([0-9]+) ]] || continue
		R="${f[1]} ${BASH_REMATCH[1]}"
	done
}

# run N MODE R: one run (first pass, steady pass); one raw line.
run() {
	local n=$1 m=$2 r=$3 v0=0 v1=0 in_use=0 el1 n1 k line area=0 pages=0
	local -A s0=() s1=()
	steer 0
	if [ "$m" = on ]; then
		vmalloc_kb
		v0=$R
		steer "$ENTRIES"
		vmalloc_kb
		v1=$R
		table_area
		read -r area pages <<<"$R"
		[ "$pages" != 0 ] || fail "no vmalloc area of xfl_enable in /proc/vmallocinfo"
	fi
	stats
	for k in "${!ST[@]}"; do s0[$k]=${ST[$k]}; done
	pg_start "$n"
	el1=$PG_EL n1=$PG_N
	stats
	in_use=${ST[in_use]}
	pg_start "$PKTS"
	stats
	for k in "${!ST[@]}"; do s1[$k]=${ST[$k]}; done
	line="$n $m $r first_us=$el1 first_n=$n1 steady_us=$PG_EL steady_n=$PG_N in_use=$in_use vm_kb=$((v1 - v0)) area=$area pages=$pages"
	for k in lookups moves held stale recorded expired; do
		[ -n "${s1[$k]:-}" ] || fail "xps_flow_stats has no $k"
		line+=" $k=$((s1[$k] - s0[$k]))"
	done
	echo "$line" >>"$RAW"
	log "$n flows, $m, run $r: first pass $n1 packets in $el1 us, steady $PG_N in $PG_EL us, in_use $in_use"
}

echo "params entries=$ENTRIES pkts=$PKTS flows=$(echo "$FLOWS" | xargs | tr ' ' ',') rounds=$ROUNDS" >"$RAW"
log "flows: $FLOWS; steady pass $PKTS packets; $ROUNDS round(s) of off, on, on, off; table $ENTRIES entries"
# One run before any measured one, not in the tables: the first pktgen run
# of a boot pays once for what later runs find ready (slabs grown, the
# neighbour entry, ICMP's state).
read -ra nl <<<"$FLOWS"
flows "${nl[0]}"
pg_start "$PKTS"
log "warm-up: $PG_N packets in $PG_EL us (not in the tables)"
for n in $FLOWS; do
	flows "$n"
	log "$n flows = $PA destination ports x $PP source ports"
	for ((r = 0; r < ROUNDS; r++)); do
		run "$n" off $((2 * r + 1))
		run "$n" on $((2 * r + 1))
		run "$n" on $((2 * r + 2))
		run "$n" off $((2 * r + 2))
	done
done
steer 0
# A table freed gives its memory back.
vmalloc_kb
echo "end vmalloc_kb=$R" >>"$RAW"

# ---- profile: per symbol group, instructions per packet of one steady
# pass, off and on, at the smallest N (samples every 20000 guest
# instructions; samples x 20000 / packets). Only there: at the largest N
# each profiled pass needs a first pass of N packets before it, and what
# the wrappers run per packet does not depend on N (the tables above).
profile() {	# N MODE
	local rep=$XNET_TMP/perf-$1-$2.txt
	flows "$1"
	steer 0
	[ "$2" = off ] || steer "$ENTRIES"
	pg_start "$1"
	pg_perf "$PKTS" "$XNET_TMP/perf.data" -c 20000
	steer 0
	perf report -i "$XNET_TMP/perf.data" --no-children --sort sym -n \
		--percent-limit 0 --stdio 2>/dev/null >"$rep"
	grep -q '^ *[0-9.]*% ' "$rep" || fail "perf report $1 $2: no samples"
	bench_raw "scale-xps-perf-$1-$2.txt" "$rep"
	log "perf $1 $2: report sent"
}
if [ "$PERF_ON" = 1 ]; then
	if command -v perf >/dev/null; then
		profile "${nl[0]}" off
		profile "${nl[0]}" on
	else
		log "SCALE_XPS_PERF=1 but no perf (scripts/setup.sh installs linux-perf)"
	fi
fi
pg kpktgend_0 "rem_device_all"

grep -q '^[0-9]' "$RAW" || fail "no runs"
# The tables: scripts/bench-tables.py's, from the raw files.
bench_raw scale-xps-raw.txt "$RAW"
