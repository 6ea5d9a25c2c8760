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
. "$XNET_SRC/tests/bench/lib_bench.sh"
. "$XNET_SRC/tests/vm/lib_testnic.sh"
. "$XNET_SRC/tests/vm/lib_pktgen.sh"

SECS=${BENCH_SECS:-4}
MODE=${BENCH_MODE:-wall}
case $MODE in wall | icount) ;; *) fail "BENCH_MODE=$MODE: wall or icount" ;; esac
SRC=fwdsrc
CNT=/sys/class/net/tn0/xps_dev_flow_table_cnt
ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print('%.3f' % (b/a) if a else 'n/a')" "$1" "$2"; }
steer() { wput $CNT "$1" || fail "xps_dev_flow_table_cnt=$1"; }

bench_cleanup() {
	[ ! -e /run/netns/$SRC ] || $IP netns del $SRC 2>/dev/null || true
	[ ! -e /sys/class/net/xo0 ] || $IP link del xo0 2>/dev/null || true
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
	bench_raw "reorder-$1.txt" "$D/tn0/wire"
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
# The profile tables. PERF[qdisc/mode] holds "wrappers decision hash idle
# total": in the wall boot, shares (%) of the samples that are not idle; in
# the icount boot, instructions per packet (samples x 20000 / packets),
# idle as the guest time it stood for. Idle is the halt instruction
# (native_safe_halt): the CPU waiting for the next timer, before pktgen's
# thread picks the run up and after it ends, until the writer of pgctrl
# polls again (pktgen waits in 100 ms steps); pktgen itself never sleeps
# during its run. Sets w0 d0 h0 / w1 d1 h1 (pfifo_fast / fq_codel, on).
perf_rows() {
	read -r w0 d0 h0 _ <<<"${PERF[pfifo_fast/on]}"
	read -r w1 d1 h1 _ <<<"${PERF[fq_codel/on]}"
	echo "$1"
	echo
	echo "| where | pfifo_fast | fq_codel |"
	echo "|---|---:|---:|"
	echo "| xps_flow wrappers (xfl_*) | $w0 | $w1 |"
	echo "| decision (xnet_xps_decide) | $d0 | $d1 |"
	echo "| kernel flow hash (__skb_get_hash*, __skb_flow_*, __siphash_*aligned) | $h0 | $h1 |"
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
	echo "A device without a table while another has one (xps_flow's hooks registered): tn0's table off, pfifo_fast, rounds of none (no table anywhere), other (a table on a multi-queue dummy xo0), other, none."
	echo
	echo "| qdisc (rounds) | tables | median packets/s (guest time) | instructions per packet | spread of the runs | runs |"
	echo "|---|---|---:|---:|---:|---|"
	# shellcheck disable=SC2086
	{ r0=$(pps_stat median ${PPS[pfifo_fast/none]}); r1=$(pps_stat median ${PPS[pfifo_fast/other]}); }
	ipp0=$(python3 -c "print('%.0f' % (1e9 / $r0 * (1 << ${BENCH_ICOUNT_SHIFT:-0})))")
	ipp1=$(python3 -c "print('%.0f' % (1e9 / $r1 * (1 << ${BENCH_ICOUNT_SHIFT:-0})))")
	# shellcheck disable=SC2086
	rr=$(python3 -c 'import statistics, sys; print("%.3f" % statistics.median(float(x) for x in sys.argv[1:]))' ${RR[other]})
	for m in none other; do
		# shellcheck disable=SC2086
		spread=$(python3 -c 'import sys; v=[int(x) for x in sys.argv[1:]]; print("%.2f%%" % (100.0 * (max(v) - min(v)) / min(v)))' ${PPS[pfifo_fast/$m]})
		if [ $m = none ]; then
			echo "| pfifo_fast ($ROUNDS) | none | $r0 | $ipp0 | $spread | ${PPS[pfifo_fast/none]% } |"
		else
			echo "| pfifo_fast ($ROUNDS) | on xo0 only | $r1 | $ipp1 | $spread | ${PPS[pfifo_fast/other]% } |"
		fi
	done
	echo "| pfifo_fast ($ROUNDS) | other/none | $(ratio "$r0" "$r1") | +$((ipp1 - ipp0)) | | per round: ${RR[other]% }; **median $rr** |"
	# The hooks alone (hooks_block): scripts/bench-tables.py's table, from
	# the raw pktgen-pfifo_fast-hooks-*.txt files.
	echo
	fq_codel_note
	echo
	if [ -n "${PERF[pfifo_fast/on]:-}" ]; then
		icount_profile
		echo
		perf_diff
	fi
}
# The icount profile: instructions per packet by where they run, off and on.
icount_profile() {
	local qd m row
	echo "Instruction profile: \`perf record -e cpu-clock -c 20000 -C 0\` in the icount guest takes a sample every 20000 guest instructions (guest ns), so a symbol's samples x 20000 / packets are its instructions per packet. One run of $((PKTS * 5)) packets per qdisc and mode. Idle (the halt instruction, \`native_safe_halt\`) is the guest time the CPU waited for a timer around pktgen's run (pktgen picks a run up and is polled for its end in 100 ms steps); pktgen never sleeps during a run, so idle is left out of every other row and of the packet rates above. The last row is the profiled run's own pktgen figure (ns per packet of its elapsed time), slower than the unprofiled runs by what perf costs."
	echo
	echo "| where (instructions per packet) | pfifo_fast off | pfifo_fast on | fq_codel off | fq_codel on |"
	echo "|---|---:|---:|---:|---:|"
	for row in "xps_flow wrappers (xfl_*)" "decision (xnet_xps_decide)" \
		"kernel flow hash (__skb_get_hash*, __skb_flow_*, __siphash_*aligned)" \
		"idle (native_safe_halt), not counted" "everything else CPU 0 ran" \
		"**all but idle**" "pktgen's elapsed ns per packet (profiled run)"; do
		printf '| %s |' "$row"
		for qd in pfifo_fast fq_codel; do
			for m in off on; do
				read -r -a v <<<"${PERF[$qd/$m]} ${PGRES[$qd/$m]:-0 1}"
				case $row in
				xps*) printf ' %s |' "${v[0]}" ;;
				decision*) printf ' %s |' "${v[1]}" ;;
				kernel*) printf ' %s |' "${v[2]}" ;;
				idle*) printf ' %s |' "${v[3]}" ;;
				every*) printf ' %s |' "$(python3 -c "print('%.0f' % (${v[4]} - ${v[0]} - ${v[1]} - ${v[2]}))")" ;;
				"**all"*) printf ' **%s** |' "${v[4]}" ;;
				pktgen*) printf ' %s |' "$(python3 -c "print('%.0f' % (${v[5]} * 1000.0 / ${v[6]}))")" ;;
				esac
			done
		done
		echo
	done
}
# Where the extra instructions per packet go: per symbol, its samples x
# 20000 / packets, steering on minus off, idle left out.
perf_diff() {
	local qd
	echo "Where the extra instructions go: per symbol, samples x 20000 / packets, steering on minus off (one profiled run each, idle left out; the symbols that changed most). The total is the profiles' own (all but idle), next to the difference of the medians above."
	echo
	for qd in pfifo_fast fq_codel; do
		# shellcheck disable=SC2086 # the runs are words
		python3 - "$qd" "$XNET_TMP/perf-$qd-off.txt" "$XNET_TMP/perf-$qd-on.txt" \
			"$((PKTS * 5))" "$(pps_stat median ${PPS[$qd/off]})" \
			"$(pps_stat median ${PPS[$qd/on]})" "$((1 << ${BENCH_ICOUNT_SHIFT:-0}))" <<'PY'
import re, sys
qd, f0, f1, pkts, p0, p1, ns = sys.argv[1:8]
def load(f):
    d = {}
    for line in open(f):
        m = re.match(r"\s*[0-9.]+%\s+(\d+)\s+\[[k.]\]\s+(\S+)", line)
        if m and not re.search(r"safe_halt$", m.group(2)):
            d[m.group(2)] = d.get(m.group(2), 0) + int(m.group(1)) * 20000.0 * float(ns) / int(pkts)
    return d
a, b = load(f0), load(f1)
diff = {k: b.get(k, 0.0) - a.get(k, 0.0) for k in set(a) | set(b)}
top = sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:12]
print("| %s: symbol | off | on | on - off |" % qd)
print("|---|---:|---:|---:|")
for k, v in top:
    print("| %s | %.0f | %.0f | %+.0f |" % (k, a.get(k, 0.0), b.get(k, 0.0), v))
t0, t1 = sum(a.values()), sum(b.values())
print("| all other symbols | | | %+.0f |" % ((t1 - t0) - sum(v for _, v in top)))
print("| **total, profiled runs (all but idle)** | %.0f | %.0f | **%+.0f** |" % (t0, t1, t1 - t0))
i0, i1 = 1e9 / float(p0) * float(ns), 1e9 / float(p1) * float(ns)
print("| total, medians of the unprofiled runs | %.0f | %.0f | %+.0f |" % (i0, i1, i1 - i0))
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
pktgen_setup "count $PKTS" "udp_src_min 1000" "udp_src_max 1063" "flag UDPSRC_RND"
declare -A PPS=()
pktgen_run() {	# QDISC MODE
	local l pps=0
	pg_start "$PKTS"
	while read -r l; do
		[[ $l =~ ([0-9]+)pps ]] && pps=${BASH_REMATCH[1]}
	done <$PG/tn0
	[ "$pps" -gt 0 ] || fail "pktgen $1 $2: no rate in $PG/tn0"
	PPS[$1/$2]+="$pps "
	# Run N of this qdisc and mode (the rounds go off, on, on, off).
	set -- "$1" "$2" "$(wc -w <<<"${PPS[$1/$2]}")"
	bench_raw "pktgen-$1-$2-$3.txt" "$PG/tn0"
	log "pktgen $1 $2: $pps pps ($PG_N packets, $PG_EL us, d $PG_D us)"
}
# fq_codel_note: whether fq_codel's enqueue ever ran in its block (stats of
# tn0's fq_codel children, reset by the qdisc replace at the block's start).
FQ_STATS=""
fq_codel_note() {
	[ -n "$FQ_STATS" ] || return 0
	python3 - "$FQ_STATS" <<'PY'
import re, sys
# One block per qdisc ("qdisc KIND ..." and its stats lines): the mq root
# sums its children, so only the fq_codel blocks count.
blocks = re.split(r"\n(?=qdisc )", sys.argv[1])
fq = [b for b in blocks if b.startswith("qdisc fq_codel ")]
sent = sum(int(x) for b in fq for x in re.findall(r"Sent \d+ bytes (\d+) pkt", b))
nfc = sum(int(x) for b in fq for x in re.findall(r"new_flow_count (\d+)", b))
mp = max([int(x) for b in fq for x in re.findall(r"maxpacket (\d+)", b)] or [0])
kids = len(fq)
print("Check: in the fq_codel block tn0 had %d fq_codel children; they sent %d packets with new_flow_count %d and maxpacket %d: %s." % (
    kids, sent, nfc, mp,
    "fq_codel's enqueue (the only place it hashes) never ran, every packet took the empty-queue bypass" if nfc == 0 and mp == 0 and sent > 0
    else "fq_codel's enqueue ran for some packets (a flow entering an empty fq_codel flow queue counts once in new_flow_count); the others took the empty-queue bypass"))
PY
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
# icount: what a device without a table pays while another device has one
# (xps_flow's hooks are registered then and see every device's packets):
# tn0's table off, rounds of "none" (no table anywhere: no hook), "other"
# (a table on the multi-queue dummy xo0), "other", "none".
other_block() {	# ROUNDS
	local r m n0 n1 sz xo=/sys/class/net/xo0/xps_dev_flow_table_cnt
	$IP link add xo0 numtxqueues 2 type dummy || fail "dummy xo0"
	steer 0
	for ((r = 0; r < $1; r++)); do
		for m in none other other none; do
			if [ $m = other ]; then sz=1024; else sz=0; fi
			wput $xo "$sz" || fail "xo0's table=$sz"
			pktgen_run pfifo_fast $m
		done
		read -ra n0 <<<"${PPS[pfifo_fast/none]}"
		read -ra n1 <<<"${PPS[pfifo_fast/other]}"
		RR[other]+="$(ratio $((n0[-1] + n0[-2])) $((n1[-1] + n1[-2]))) "
	done
	wput $xo 0 || fail "xo0's table=0"
	$IP link del xo0
}
[ "$MODE" = wall ] || other_block "$ROUNDS"
# icount: the hooks alone, with nothing behind them (tests/hookcost): what
# the kernel charges per packet for an IPMODIFY ftrace handler on
# netdev_core_pick_tx() and for probes on the two xmit tracepoints, apart
# from what xps_flow does in them. No table anywhere (xps_flow's own hooks
# off); rounds of none, ftrace, tracepoints, both.
HOOKCOST=$XNET_SRC/tests/hookcost/xnet_hookcost.ko
hooks_block() {	# ROUNDS
	local r m
	declare -A bits=([none]=0 [ftrace]=1 [tracepoints]=2 [both]=3)
	[ -f "$HOOKCOST" ] || fail "no $HOOKCOST (make hookcost)"
	steer 0
	for ((r = 0; r < $1; r++)); do
		for m in none ftrace tracepoints both; do
			[ "${bits[$m]}" = 0 ] || /sbin/insmod "$HOOKCOST" hooks="${bits[$m]}" ||
				fail "insmod xnet_hookcost hooks=${bits[$m]}"
			pktgen_run pfifo_fast "hooks-$m"
			[ "${bits[$m]}" = 0 ] || /sbin/rmmod xnet_hookcost || fail "rmmod xnet_hookcost"
		done
	done
}
[ "$MODE" = wall ] || hooks_block "$ROUNDS"
pktgen_block fq_codel "$QD2_ROUNDS"
FQ_STATS=$($TC -s qdisc show dev tn0)
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
declare -A PERF=() PGRES=()
perf_share() {	# QDISC [MODE (on)]
	local m=${2:-on} rep=$XNET_TMP/perf-$1-${2:-on}.txt
	local -a per=()
	[ "$MODE" = wall ] || per=(-c 20000)
	qdisc "$1"
	if [ "$m" = on ]; then steer 1024; else steer 0; fi
	pg_perf $((PKTS * 5)) "$XNET_TMP/perf.data" "${per[@]}"
	PGRES[$1/$m]="$PG_EL $PG_N"
	pg tn0 "count $PKTS"
	steer 0
	perf report -i "$XNET_TMP/perf.data" --no-children --sort sym -n \
		--percent-limit 0 --stdio 2>/dev/null >"$rep"
	PERF[$1/$m]=$(python3 - "$rep" "$MODE" "$PG_N" "$((1 << ${BENCH_ICOUNT_SHIFT:-0}))" <<'PY'
import re, sys
rep, mode, pkts, ns = sys.argv[1], sys.argv[2], int(sys.argv[3]), float(sys.argv[4])
# The kernel's flow hash: skb_get_hash() -> __skb_get_hash_net() ->
# __skb_flow_dissect() and siphash of the keys (__siphash_(un)aligned);
# other siphash users (IP IDs, route hashes: siphash_1u64 ...) are not it.
groups = [r"^xfl_", r"^xnet_xps_", r"^__skb_get_hash|^__skb_flow_|^__siphash_(un)?aligned$"]
tot = [0] * len(groups)
idle = busy = 0
for line in open(rep):
    m = re.match(r"\s*[0-9.]+%\s+(\d+)\s+\[[k.]\]\s+(\S+)", line)
    if not m:
        continue
    n, sym = int(m.group(1)), m.group(2)
    if re.search(r"safe_halt$", sym):
        idle += n
        continue
    busy += n
    for i, rx in enumerate(groups):
        if re.search(rx, sym):
            tot[i] += n
    if "hash" in sym or "siphash" in sym:
        sys.stderr.write("bench: perf %s: %d samples in %s\n" % (rep.rsplit("/", 1)[-1], n, sym))
if mode == "wall":	# shares of the busy samples
    print(" ".join("%.2f" % (100.0 * t / busy if busy else 0) for t in tot + [idle, busy]))
else:			# instructions per packet
    print(" ".join("%.0f" % (t * 20000 * ns / pkts if pkts else 0) for t in tot + [idle, busy]))
PY
)
	log "perf $1 $m: ${PERF[$1/$m]} (pktgen: $PG_EL us, d $PG_D us, $PG_N packets)"
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
	# A failed run fails the bench (it used to be a "0 0" row in the mean).
	wait $pid || fail "iperf3 tcp $1 run $2 failed: $(head -c 300 "$out")"
	TCP[$1/$2]=$(python3 - "$out" <<'PY'
import json, sys
e = json.load(open(sys.argv[1]))["end"]
if not e["sum_received"].get("bytes"):
    sys.exit("iperf3 received 0 bytes")
print("%.1f %d" % (e["sum_received"]["bits_per_second"] / 1e6, e["sum_sent"].get("retransmits", 0)))
PY
) || fail "iperf3 tcp $1 run $2: no result in $out"
	bench_raw "iperf-tcp-$1-$2.json" "$out"
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
echo "pktgen, 64-byte UDP, 64 flows (random source port), xmit_mode queue_xmit (queue selection, qdisc and both wrappers), $PKTS packets per run, no completion delay; rounds of off, on, on, off. The host is shared: per mode the median and the best run (other load only ever slows a run down), and the median of the per-round ratios (neighbouring runs, so slow changes of the load cancel). pfifo_fast and fq_codel (Debian's default qdisc): both bypass an empty queue (TCQ_F_CAN_BYPASS), so fq_codel hashes only the packets it enqueues (the check below the table); pktgen's packets carry no hash, so xps_flow keys them by their IP tuple."
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
fq_codel_note
echo
if [ -n "${PERF[pfifo_fast/on]:-}" ]; then
	perf_rows "Where the time goes with steering on: one run of $((PKTS * 5)) packets per qdisc under \`perf record -e cpu-clock -C 0\` (CPU 0 sends and, through the test NIC, also receives); % of its samples that are not idle (\`native_safe_halt\`: waiting around pktgen's run). Samples are taken in guest time, so these shares do not depend on the host's load. The kernel flow hash row is whoever still calls it (xps_flow only for packets without a tuple key; pktgen's have one)."
	echo "| **xps_flow's own cost (wrappers + decision)** | **$(python3 -c "print('%.2f' % ($w0 + $d0))")** | **$(python3 -c "print('%.2f' % ($w1 + $d1))")** |"
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
