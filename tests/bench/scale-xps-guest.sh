#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# xps_flow from 1k to 1M flows, run inside an icount guest by
# scripts/bench-scale.sh (scripts/vmtest.sh --icount, one CPU online):
# markdown tables on stdout, diagnostics ("bench: ...") on stderr.
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
# and 1,000, 2,000 packets, no profile), BENCH_ICOUNT_SPEC/SHIFT (as
# xps-guest.sh: the -icount argument, for the table's text).
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
SHIFT=${BENCH_ICOUNT_SHIFT:-0}
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

: >"$RAW"
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
V_END=$R

# ---- profile: per symbol group, instructions per packet of one steady
# pass, off and on, at the smallest N (samples every 20000 guest
# instructions; samples x 20000 / packets). Only there: at the largest N
# each profiled pass needs a first pass of N packets before it, and what
# the wrappers run per packet does not depend on N (the tables above).
PROF=$XNET_TMP/scale-xps-prof.txt
: >"$PROF"
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
	python3 - "$rep" "$1" "$2" "$PKTS" "$((1 << SHIFT))" "$XNET_TMP/sym-$2.txt" >>"$PROF" <<'PY' || fail "perf report $1 $2"
import re, sys
rep, n, mode, pkts, ns, symf = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), sys.argv[6]
groups = [r"^xfl_", r"^xnet_xps_", r"^__skb_get_hash|^__skb_flow_|^__siphash_(un)?aligned$"]
tot = [0] * len(groups)
busy = 0
per = {}
for line in open(rep):
    m = re.match(r"\s*[0-9.]+%\s+(\d+)\s+\[[k.]\]\s+(\S+)", line)
    if not m or re.search(r"safe_halt$", m.group(2)):
        continue
    c = int(m.group(1))
    busy += c
    per[m.group(2)] = per.get(m.group(2), 0) + c
    for i, rx in enumerate(groups):
        if re.search(rx, m.group(2)):
            tot[i] += c
if not busy:
    sys.exit(1)
with open(symf, "w") as f:	# per symbol: instructions per packet
    for k, c in per.items():
        f.write("%s %.2f\n" % (k, c * 20000 * ns / pkts))
print(n, mode, " ".join("%.0f" % (t * 20000 * ns / pkts) for t in tot + [busy]))
PY
	log "perf $1 $2: $(tail -n 1 "$PROF")"
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

[ -s "$RAW" ] || fail "no runs"
python3 - "$RAW" "$PROF" "$ENTRIES" "$PKTS" "$((1 << SHIFT))" \
	"${BENCH_ICOUNT_SPEC:-shift=0,sleep=off}" "$V_END" "$XNET_TMP" <<'PY' || fail "tables"
import statistics, sys
raw, prof, M, pkts, ns, spec, v_end, tmp = sys.argv[1:9]
M, pkts, ns = int(M), int(pkts), float(ns)
runs = []
for line in open(raw):
    f = line.split()
    d = {k: int(v) for k, v in (kv.split("=") for kv in f[3:])}
    d["ipp1"] = d["first_us"] * 1000.0 * ns / d["first_n"]
    d["ipp2"] = d["steady_us"] * 1000.0 * ns / d["steady_n"]
    runs.append((int(f[0]), f[1], int(f[2]), d))
counts = sorted({n for n, _, _, _ in runs})
med = lambda v: statistics.median(v) if v else float("nan")

def spread(v):
    return "%.2f %%" % (100.0 * (max(v) - min(v)) / min(v)) if v else "-"

print("### xps_flow: 1k to 1M flows through a table of %d entries (QEMU -icount)\n" % M)
print("pktgen, 64-byte UDP from 10.99.0.1 to 10.99.0.2 on the BQL test NIC (xmit_mode queue_xmit: queue selection, "
      "qdisc pfifo_fast, both xps_flow wrappers), N flows made by two port ranges stepped in sequence (N = A x P "
      "destination x source ports, A a power of two and P odd: packets 1..N are N different flows). Steering off "
      "(table 0: the device's own ops, stock XPS) and on (an empty table of %d entries allocated before each on run), "
      "rounds of off, on, on, off. Each run: a **first pass** of N packets, each the first packet of its flow (with "
      "steering on: a new entry), then a **steady pass** of %d packets over flows the first pass made (none a flow's "
      "first packet). In a guest booted with `-icount %s` (single-threaded TCG, one CPU online), guest time advances "
      "%g ns per guest instruction, so a pass's elapsed guest ns / packets are instructions per packet: everything "
      "CPU 0 ran (pktgen, queue selection, qdisc, test NIC, tn1's receive path, interrupts), the same run after run "
      "whatever the host does. **TCG models no caches and no TLB**: these are instructions only. On real hardware a "
      "table of 2^20 x 8 bytes (8 MiB) with 1M live flows misses the caches and the TLB on most lookups (two per "
      "packet: select and transmit wrappers), a cost in time that grows with the flow count and that this table "
      "cannot show.\n" % (M, pkts, spec, ns))
print("| flows | A x P | mode | run | first pass: packets | first pass: instructions per packet | steady pass: instructions per packet |")
print("|---:|---|---|---|---:|---:|---:|")
for n, m, r, d in runs:
    a = n & -n
    print("| %d | %d x %d | %s | %d | %d | %.1f | %.1f |" % (n, a, n // a, m, r, d["first_n"], d["ipp1"], d["ipp2"]))
print()

print("Per flow count: medians of the runs; overhead = on / off - 1 in instructions per packet (goal: under 2 % in "
      "the steady pass, and flat from the smallest to the largest N); spread: (max - min) / min over the runs of a mode "
      "and pass. Share of first packets: of all packets sent in a run, those that were a flow's first.\n")
print("| flows | share of first packets in a run | first pass off | first pass on | first pass on - off | steady off | steady on | steady on - off | **steady overhead** | goal < 2 % | spread of the runs (steady off / on) |")
print("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|---|")
summ = {}
for n in counts:
    g = lambda mode, k: [d[k] for nn, m, _, d in runs if nn == n and m == mode]
    f0, f1 = med(g("off", "ipp1")), med(g("on", "ipp1"))
    s0, s1 = med(g("off", "ipp2")), med(g("on", "ipp2"))
    ov = 100.0 * (s1 / s0 - 1)
    summ[n] = (s1 - s0, ov, f1 - f0)
    print("| %d | %.2f %% | %.1f | %.1f | %+.1f | %.1f | %.1f | %+.1f | **%.2f %%** | %s | %s / %s |" % (
        n, 100.0 * n / (n + pkts), f0, f1, f1 - f0, s0, s1, s1 - s0, ov,
        "met" if ov < 2 else "NOT met", spread(g("off", "ipp2")), spread(g("on", "ipp2"))))
print()
if len(counts) > 1:
    lo, hi = counts[0], counts[-1]
    print("| steady pass, %d vs %d flows | added instructions per packet (on - off) | overhead |" % (hi, lo))
    print("|---|---:|---:|")
    print("| %d flows | %+.1f | %.2f %% |" % (lo, summ[lo][0], summ[lo][1]))
    print("| %d flows | %+.1f | %.2f %% |" % (hi, summ[hi][0], summ[hi][1]))
    print("| %d / %d | %.3fx | |" % (hi, lo, summ[hi][0] / summ[lo][0] if summ[lo][0] else float("nan")))
    print()

print("### xps_flow: table occupancy, holds and memory at 1k to 1M flows\n")
print("Per on run, after its first pass: `in_use` of xps_flow_stats counts the table's valid entries (table.c "
      "xfl_entries_in_use()). An entry carries no flow tag: flows whose keys land in one slot share its entry, and "
      "the module cannot tell them apart. Expected occupied slots for N flows hashed uniformly into M slots: "
      "M(1 - (1 - 1/M)^N); flows sharing a slot: N - occupied. Other traffic on tn0 (ARP) may add an entry. "
      "Counters: deltas of xps_flow_stats over the run's two passes (lookups: packets through the select wrapper; "
      "held: moves held back while the old queue had bytes in flight). With one CPU online XPS proposes tx-0 for "
      "every packet, so no flow has a reason to move here: held and moves measure nothing but that. Memory: the "
      "table is one kvzalloc_node() of %d x 8-byte entries plus a 16-byte header (struct xfl_table: mask, "
      "settling), above kmalloc's largest size, so vmalloc'ed; kvmalloc passes VM_ALLOW_HUGE_VMAP, and 6.1's "
      "__vmalloc_node_range() then rounds an area of 2 MiB or more up to whole 2 MiB pages when it gets them. "
      "Table pages: the area's `pages=` in /proc/vmallocinfo (the line of xfl_enable), x 4 KiB / entries = bytes "
      "per entry; VmallocUsed: the /proc/meminfo delta over the table's write (anything else vmalloc'ed meanwhile "
      "counts too).\n" % M)
print("| flows | run | in_use (occupied) | expected occupied | flows sharing a slot | expected sharing | share of flows sharing | lookups | other packets | recorded | held | held / lookups | moves | stale | expired | table pages (4 KiB) | **bytes per entry** | VmallocUsed delta (kB) |")
print("|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for n, m, r, d in runs:
    if m != "on":
        continue
    exp = M * (1 - (1 - 1.0 / M) ** n)
    sharing = n - d["in_use"]
    print("| %d | %d | %d | %.0f | %d | %.0f | %.2f %% | %d | %d | %d | %d | %.4f %% | %d | %d | %d | %d | **%.3f** | %d |" % (
        n, r, d["in_use"], exp, sharing, n - exp, 100.0 * sharing / n, d["lookups"],
        d["lookups"] - d["first_n"] - d["steady_n"], d["recorded"], d["held"],
        100.0 * d["held"] / d["lookups"] if d["lookups"] else 0, d["moves"], d["stale"],
        d["expired"], d["pages"], d["pages"] * 4096.0 / M, d["vm_kb"]))
print()
print("After the last run (table 0): VmallocUsed %s kB." % v_end)
print()

pr = [l.split() for l in open(prof)] if prof else []
if pr:
    print("Instruction profile of one steady pass (%d packets) per mode at the smallest N: `perf record -e "
          "cpu-clock -c 20000 -C 0` samples every 20000 guest instructions, so a symbol's samples x 20000 / packets "
          "are its instructions per packet (idle, `native_safe_halt`, left out; the profiled pass includes the "
          "work around pktgen's run, so its total is above the unprofiled runs').\n" % pkts)
    print("| flows | mode | xps_flow wrappers (xfl_*) | decision (xnet_xps_*) | kernel flow hash | all but idle |")
    print("|---:|---|---:|---:|---:|---:|")
    for f in pr:
        print("| %s | %s | %s | %s | %s | %s |" % tuple(f[:6]))
    print()
    def load(p):
        try:
            return {k: float(v) for k, v in (l.split() for l in open(p))}
        except OSError:
            return {}
    a, b = load(tmp + "/sym-off.txt"), load(tmp + "/sym-on.txt")
    if a and b:
        diff = {k: b.get(k, 0.0) - a.get(k, 0.0) for k in set(a) | set(b)}
        top = sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:12]
        print("Where the added instructions go (the same two profiled passes): per symbol, instructions per packet, "
              "on minus off, the 12 symbols that changed most. perf's sampling interrupt (every 20000 guest "
              "instructions, more often than every second packet) is part of these passes, and their totals differ by "
              "more than the unprofiled runs' medians above: symbols outside xps_flow (the receive path's, page "
              "clearing) move between the two passes for reasons of the profiled runs themselves; the xfl_* rows are "
              "the wrappers' own instructions.\n")
        print("| symbol | off | on | on - off |")
        print("|---|---:|---:|---:|")
        for k, v in top:
            print("| %s | %.0f | %.0f | %+.0f |" % (k, a.get(k, 0.0), b.get(k, 0.0), v))
        print("| all other symbols | | | %+.0f |" % (sum(diff.values()) - sum(v for _, v in top)))
        print("| **total (all but idle)** | %.0f | %.0f | **%+.0f** |" % (sum(a.values()), sum(b.values()), sum(diff.values())))
        print()
PY
