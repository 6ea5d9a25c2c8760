#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pp_frag benchmark, run inside the guest by scripts/bench-pp.sh; markdown
# tables on stdout, diagnostics on stderr. pp_frag stays loaded: "off" is
# no pool on the egress device (the refill hook runs and finds none), "on"
# a pool of BENCH_POOL pages. Side by side in one run, ABBA blocks repeated
# BENCH_REPS times, medians:
#  1. iperf3 TCP from init_net over a veth pair (va0) into netns ppns;
#  2. iperf3 TCP over the BQL test NIC (tn0 -> tn1 in netns tnns,
#     pfifo_fast), plus the driver's DMA opt-in when the test NIC has it;
#  3. tests/pp/pp_stream.py over the veth pair, 4 KiB and 256 KiB writes:
#     copy (no pool), pp_frag (pool), MSG_ZEROCOPY (no pool); every
#     transfer's digest (crc32: SHA instructions are slow under TCG) is
#     checked end to end;
#  4. the same streams over the test NIC (tn0 -> tn1), whose xmit maps
#     every frag for its DMA device unless pp_frag already holds a mapping
#     of the frag's pool page: copy, pp_frag (pool, the NIC maps), pp_frag
#     with the driver's DMA opt-in (pool pages mapped once, kept across
#     reuse), MSG_ZEROCOPY. With swiotlb=force on the kernel command line
#     (scripts/bench-pp.sh's second boot) every map bounces through a
#     swiotlb slot and the opt-in is refused (pp_frag cannot premap for a
#     device that needs syncs): the part says so and runs the other modes.
#     Bounces and bounced bytes come from a hist trigger on the
#     swiotlb:swiotlb_bounced tracepoint (6.1 has no such counter).
#     BENCH_DMA_PCI=edu (scripts/bench-pp.sh's third boot, QEMU's
#     intel-iommu and edu devices, intel_iommu=on iommu.strict=1): the test
#     NIC maps for the edu PCI device (dma_pci=), so every map and unmap
#     goes through the IOMMU (an IOVA, page table writes, an IOTLB
#     invalidation per unmap), and the opt-in saves them.
# BENCH_PARTS: the parts to run, default "iperf zc dma" (1+2, 3, 4).
# BENCH_QUICK=1: every part with tiny sizes (one block, 1 s iperf3 runs,
# 1 / 4 MiB streams), to prove the bench still runs.
# Per run: bytes sent, /proc/vmstat pgalloc_* and /proc/stat deltas
# (system wide, both ends of the connection), pp_frag_stats deltas and the
# test NIC's DMA counters; the Python at the end turns them into tables.
# iperf3 runs: minus the median of two iperf3 runs sending 1 KiB (process
# start, control connection) measured on the same path; pp_stream.py
# measures its own window (connect to end, --sys-report).
set -uo pipefail
. "$XNET_SRC/tests/vm/lib.sh"
. "$XNET_SRC/tests/bench/lib_bench.sh"
. "$XNET_SRC/tests/vm/lib_testnic.sh"

QUICK=${BENCH_QUICK:-0}
if [ "$QUICK" = 1 ]; then
	d_secs=1 d_reps=1 d_small=1 d_large=4
else
	d_secs=3 d_reps=2 d_small=16 d_large=64
fi
SECS=${BENCH_SECS:-$d_secs}
POOL=${BENCH_POOL:-256}
REPS=${BENCH_REPS:-$d_reps}
ZC_SMALL_MB=${BENCH_ZC_SMALL_MB:-$d_small}
ZC_LARGE_MB=${BENCH_ZC_LARGE_MB:-$d_large}
PARTS=" ${BENCH_PARTS:-iperf zc dma} "
has_part() { [[ $PARTS == *" $1 "* ]]; }
VNS=ppns
PPS=$XNET_SRC/tests/pp/pp_stream.py
RAW=$XNET_TMP/pp-raw.txt
DMA_OPTIN=$D/tn0/dma_optin
DMA_CNT=$D/tn0/dma
GLOBAL=/sys/kernel/debug/pp_frag/global
BOUNCE_EV=/sys/kernel/tracing/events/swiotlb/swiotlb_bounced
# The test NIC's DMA device: its own platform device, or QEMU's edu.
DMA_DEVNAME=xnet_testnic_dma
case ${BENCH_DMA_PCI:-} in
'') ;;
edu)
	pci_find 0x1234 0x11e8 || fail "BENCH_DMA_PCI=edu: no edu PCI device"
	DMA_DEVNAME=$R
	TN_PARAMS="dma_pci=$R"
	;;
*) fail "BENCH_DMA_PCI=$BENCH_DMA_PCI: want edu or nothing" ;;
esac
# Only the test NIC's DMA device: nothing else here maps through swiotlb
# (virtio without ACCESS_PLATFORM bypasses the DMA API), but be sure.
BOUNCE_HIST="hist:keys=dma_mask:vals=hitcount,size if dev_name == \"$DMA_DEVNAME\""
SWIOTLB_DBG=/sys/kernel/debug/swiotlb

mkdir -p "$XNET_TMP"
: >"$RAW"

bench_cleanup() {
	local f
	for f in /sys/class/net/va0/pp_frag_pool_pages /sys/class/net/tn0/pp_frag_pool_pages; do
		[ ! -e "$f" ] || wput "$f" 0 || true
	done
	[ ! -e /run/netns/$VNS ] || $IP netns del $VNS 2>/dev/null || true
	[ "$HAVE_BOUNCE" = 0 ] || wput $BOUNCE_EV/trigger "!$BOUNCE_HIST" || true
	tn_cleanup
	if mod_loaded pp_frag; then /sbin/rmmod pp_frag 2>/dev/null || true; fi
}
HAVE_BOUNCE=0
tn_setup
trap bench_cleanup EXIT
load_mod pp_frag/pp_frag >&2
$IP netns add $VNS || fail "ip netns add $VNS"
$IP link add va0 type veth peer name vb0 netns $VNS || fail "veth va0/vb0"
$IP addr add 10.96.0.1/24 dev va0
$IP link set va0 up
$IP -n $VNS addr add 10.96.0.2/24 dev vb0
$IP -n $VNS link set vb0 up
$IP -n $VNS link set lo up
# iperf3 servers only for the iperf part: a boot that runs only the DMA
# part must not fail on their 10 s wait, which it once did under -icount
# (sleep=off: guest time is instructions, and idle time while the loaded
# host serves the 9p root is skipped).
if has_part iperf; then
	for ns in $VNS $NS; do
		$IP netns exec "$ns" $IPERF -s -p 5201 -D >/dev/null || fail "iperf3 server in $ns"
	done
	wait_until 10 iperf_ok 10.96.0.2 5201 || fail "no iperf3 to 10.96.0.2"
	wait_until 10 iperf_ok 10.99.0.2 5201 || fail "no iperf3 to 10.99.0.2"
fi
HAVE_DMA=0
[ -e "$DMA_OPTIN" ] && [ -e "$DMA_CNT" ] && HAVE_DMA=1
# Bounces of the test NIC's DMA device: count them (and their bytes) with a
# hist trigger, the only cumulative record of them 6.1 keeps (its swiotlb
# debugfs has the slots in use now, io_tlb_used, not a total). Without
# swiotlb=force nothing bounces and the counts stay 0.
if [ -d $BOUNCE_EV ]; then
	wput $BOUNCE_EV/trigger "$BOUNCE_HIST" && HAVE_BOUNCE=1
fi
SWIOTLB=0
[[ " $(</proc/cmdline) " == *" swiotlb=force "* ]] && SWIOTLB=1
log "parts:$PARTS pool $POOL pages, $REPS ABBA blocks, ${SECS} s per iperf3 run," \
	"DMA counters: $HAVE_DMA, bounce counts: $HAVE_BOUNCE, swiotlb=force: $SWIOTLB"

# ---- per-run counters
declare -A S=()
# snap PREFIX: pgalloc sum, /proc/stat busy and kernel ticks, the pool's
# stats of $DEV, the test NIC's DMA counters.
snap() {
	local k a=0 u n s q sq st f
	local -A kv=()
	# Files read whole (kv_read, lib.sh): a read loop can see shifted lines.
	kv_read kv /proc/vmstat
	for k in "${!kv[@]}"; do
		[[ $k == pgalloc_* ]] && a=$((a + kv[$k]))
	done
	read -r _ u n s _ _ q sq st _ </proc/stat
	S[$1.alloc]=$a
	S[$1.busy]=$((u + n + s + q + sq + st))
	S[$1.kern]=$((s + q + sq))
	for k in served recycled fresh fallback; do S[$1.$k]=0; done
	f=/sys/class/net/$DEV/pp_frag_stats
	kv_read kv "$f"
	for k in "${!kv[@]}"; do S[$1.$k]=${kv[$k]}; done
	S[$1.maps]=0 S[$1.saved]=0 S[$1.bounces]=0 S[$1.bounced]=0
	if [ "$HAVE_DMA" = 1 ] && [ "$DEV" = tn0 ]; then
		kv_read kv "$DMA_CNT"
		for k in "${!kv[@]}"; do S[$1.$k]=${kv[$k]}; done
	fi
	[ "$HAVE_BOUNCE" = 0 ] || bounce_read "$1"
}
# bounce_read PREFIX: the hist's hitcount and size sums (one line per key,
# "{ dma_mask: ... } hitcount: N  size: B"; no line before the first).
bounce_read() {
	local h l
	local -a lines=()
	h=$(<"$BOUNCE_EV/hist") || return 0
	mapfile -t lines <<<"$h"
	for l in "${lines[@]}"; do
		[[ $l =~ hitcount:\ *([0-9]+)\ +size:\ *([0-9]+) ]] || continue
		S[$1.bounces]=$((S[$1.bounces] + BASH_REMATCH[1]))
		S[$1.bounced]=$((S[$1.bounced] + BASH_REMATCH[2]))
	done
}
# record SECTION MODE RUN key=value...: one raw line with the deltas.
record() {
	local k x y line="$1 $2 $3"
	shift 3
	for k in alloc busy kern served recycled fresh fallback maps saved bounces bounced; do
		x=${S[b.$k]} y=${S[a.$k]}
		line+=" $k=$((x - y))"
	done
	echo "$line $*" >>"$RAW"
}

# mode MODE: set the pool (and the DMA opt-in) of $DEV for MODE.
mode() {
	local pages=0 optin=0
	case $1 in
	on | ppfrag) pages=$POOL ;;
	optin) pages=$POOL optin=1 ;;
	esac
	if [ "$HAVE_DMA" = 1 ] && [ "$DEV" = tn0 ]; then
		wput "$DMA_OPTIN" $optin || fail "dma_optin=$optin"
	fi
	wput "/sys/class/net/$DEV/pp_frag_pool_pages" "$pages" || fail "$DEV pool=$pages"
}

# iperf_run SECTION MODE RUN ADDR
iperf_run() {
	local out=$XNET_TMP/iperf-$1-$2-$3.json
	mode "$2"
	snap a
	# A failed run fails the bench: never a row of zeros in a mean.
	$IPERF -c "$4" -p 5201 -t "$SECS" -J >"$out" 2>"$out.err" || {
		cat "$out" "$out.err" >&2
		fail "iperf3 $1 $2 $3 failed"
	}
	snap b
	bench_raw "iperf-$1-$2-$3.json" "$out"
	record "$1" "$2" "$3" "json=$out"
	log "$1 $2 run $3 done"
}

# blocks SECTION ADDR MODE...: ABC..CBA, BENCH_REPS times; runs are
# labelled with the block and the half (1f, 1b, 2f, ...).
blocks() {
	local sec=$1 addr=$2 r m
	shift 2
	local -a fw=("$@") bw=()
	for ((r = $#; r > 0; r--)); do bw+=("${!r}"); done
	for ((r = 1; r <= REPS; r++)); do
		for m in "${fw[@]}"; do "$RUNNER" "$sec" "$m" "${r}f" "$addr"; done
		for m in "${bw[@]}"; do "$RUNNER" "$sec" "$m" "${r}b" "$addr"; done
	done
}

# empty_run SECTION ADDR: an iperf3 run that sends 1 KiB, twice.
empty_run() {
	local r
	for r in 1 2; do
		snap a
		$IPERF -c "$2" -p 5201 -n 1K -J >/dev/null 2>&1 || fail "iperf3 -n 1K to $2 failed"
		snap b
		record "$1" empty $r
	done
}

# ---- 1. and 2. iperf3
if has_part iperf; then
	RUNNER=iperf_run
	DEV=va0
	mode off
	empty_run veth 10.96.0.2
	blocks veth 10.96.0.2 off on
	DEV=tn0
	mode off
	empty_run tnic 10.99.0.2
	if [ "$HAVE_DMA" = 1 ]; then
		blocks tnic 10.99.0.2 off on optin
	else
		blocks tnic 10.99.0.2 off on
	fi
	mode off
fi

# ---- 3. and 4.: pp_stream.py runs
lines_ge() { # FILE N
	local n=0 _l
	while read -r _l; do n=$((n + 1)); done <"$1"
	[ "$n" -ge "$2" ]
}
# receiver NS ADDR PORT COUNT: a pp_stream.py receiver of COUNT streams in
# NS, its digests in $RECVF (first line "listening"), its pid in RECV_PID.
receiver() {
	RECVF=$XNET_TMP/recv-$3.txt PORT=$3 NRECV=1
	: >"$RECVF"
	$IP netns exec "$1" $PY "$PPS" recv "$3" --bind "$2" --count "$4" --digest crc32 \
		>"$RECVF" 2>"$XNET_TMP/recv-$3.err" &
	RECV_PID=$!
	wait_until 20 lines_ge "$RECVF" 1 || fail "pp_stream receiver on $2:$3 did not start"
}
# stream_run SECTION MODE RUN ADDR
stream_run() {
	local out=$XNET_TMP/stream-$1-$2-$3.txt rl ol zc=()
	[ "$2" = zerocopy ] && zc=(--zerocopy --zc-report)
	mode "$2"
	snap a
	$PY "$PPS" send "$4" "$PORT" --bytes "$ZC_BYTES" --write "$ZC_WRITE" --seed "$NRECV" \
		--digest crc32 --sys-report "${zc[@]}" \
		>"$out" 2>&1 || { cat "$out" >&2; fail "pp_stream send $1 $2 $3"; }
	snap b
	NRECV=$((NRECV + 1))
	wait_until 20 lines_ge "$RECVF" $NRECV || fail "pp_stream receiver: no digest"
	mapfile -t rl <"$RECVF"
	mapfile -t ol <"$out"
	local sline=${ol[0]} extra=() l
	for l in "${ol[@]:1}"; do
		case $l in
		"zc "*) extra+=("${l#zc }") ;;
		# pp_stream's own window: no process start in it
		"sys "*) l=${l#sys }; extra+=("${l/pgalloc=/alloc=}") ;;
		esac
	done
	# "send bytes=B crc32=H ..." against "recv bytes=B crc32=H"
	local sd=${sline#send } rd=${rl[NRECV - 1]#recv }
	[ "${sd%% secs=*}" = "$rd" ] || fail "$1 $2 $3: data corrupted: sent '${sd%% secs=*}', received '$rd'"
	record "$1" "$2" "$3" "$sd" "${extra[@]}"
	log "$1 $2 run $3: ${sline#send bytes=}"
}
RUNNER=stream_run

# ---- 3. copy vs pp_frag vs MSG_ZEROCOPY (pp_stream.py over the veth)
if has_part zc; then
	DEV=va0
	receiver $VNS 10.96.0.2 5300 $((REPS * 2 * 3 * 2))
	ZC_WRITE=4096
	ZC_BYTES=$((ZC_SMALL_MB << 20))
	blocks zc4k 10.96.0.2 copy ppfrag zerocopy
	ZC_WRITE=262144
	ZC_BYTES=$((ZC_LARGE_MB << 20))
	blocks zc256k 10.96.0.2 copy ppfrag zerocopy
	mode off
	wait_pid $RECV_PID 10 || log "pp_stream receiver still running"
fi

# ---- 4. the DMA path: the same streams over the test NIC
DMA_MODES=""
if has_part dma; then
	[ "$HAVE_DMA" = 1 ] || fail "part dma: the test NIC has no DMA counters ($DMA_CNT)"
	DEV=tn0
	mode ppfrag
	# Can the driver opt in here? Not under swiotlb=force (EOPNOTSUPP:
	# a premapped page would need a sync before every use); then the
	# mode is left out and the table says why.
	optin_err=$({ printf '1\n' >"$DMA_OPTIN"; } 2>&1) && optin_err=""
	rd "$DMA_OPTIN"
	optin_ok=$R
	mode off
	modes=(copy ppfrag)
	[ "$optin_ok" = 1 ] && modes+=(optin)
	modes+=(zerocopy)
	DMA_MODES=${modes[*]}
	optin_err=${optin_err##*: }
	log "dma part: modes ${modes[*]}, opt-in: ${optin_err:-accepted}"
	receiver "$NS" 10.99.0.2 5301 $((REPS * 2 * ${#modes[@]} * 2))
	ZC_WRITE=4096
	ZC_BYTES=$((ZC_SMALL_MB << 20))
	blocks dma4k 10.99.0.2 "${modes[@]}"
	ZC_WRITE=262144
	ZC_BYTES=$((ZC_LARGE_MB << 20))
	blocks dma256k 10.99.0.2 "${modes[@]}"
	mode off
	wait_pid $RECV_PID 10 || log "pp_stream receiver still running"
	# Slots still in use when idle would be leaked bounce buffers. (6.1
	# makes the files only when it set up a swiotlb: not with 1 GB of RAM
	# and no swiotlb=force.)
	R=
	[ ! -e $SWIOTLB_DBG/io_tlb_nslabs ] || rd $SWIOTLB_DBG/io_tlb_nslabs
	nslabs=${R:-none}
	R=
	[ ! -e $SWIOTLB_DBG/io_tlb_used ] || rd $SWIOTLB_DBG/io_tlb_used
	used=${R:--}
	dma
	echo "dmainfo swiotlb=$SWIOTLB optin=$optin_ok bounce=$HAVE_BOUNCE nslabs=$nslabs used=$used" \
		"maps=${DM[maps]} unmaps=${DM[unmaps]} bad_addr=${DM[bad_addr]} errors=${DM[errors]}" \
		"path=${DM[path]} dev=$DMA_DEVNAME optin_err=${optin_err// /_}" >>"$RAW"
fi

# ---- pools off: every page given back (module counters)
declare -A G=()
kv_read G "$GLOBAL"
echo "global ${G[pages_owned]} ${G[orphans]} ${G[handed_over]}" >>"$RAW"
log "after disabling the pools: pages_owned=${G[pages_owned]} orphans=${G[orphans]} handed_over=${G[handed_over]}"

# The counter snapshots' deltas of every run (record) and the module's
# counters after the pools were disabled.
bench_raw pp-raw.txt "$RAW"

# ---- tables
$PY - "$RAW" "$SECS" "$POOL" "$REPS" "$HAVE_DMA" "$ZC_SMALL_MB" "$ZC_LARGE_MB" "$PARTS" "$DMA_MODES" \
	<<'PY' || fail "report: a part produced no result (see above)"
import json
import os
import statistics
import sys

raw, secs, pool, reps, have_dma, small_mb, large_mb, parts, dma_modes = sys.argv[1:10]
parts, dma_modes = parts.split(), dma_modes.split()
HZ = os.sysconf("SC_CLK_TCK")
runs, empty, glob, dmainfo = {}, {}, None, {}
for line in open(raw):
    f = line.split()
    if f[0] == "global":
        glob = f[1:]
        continue
    if f[0] == "dmainfo":
        dmainfo = dict(kv.split("=", 1) for kv in f[1:])
        continue
    d = dict(kv.split("=", 1) for kv in f[3:])
    d = {k: (v if k in ("json", "sha256", "crc32") else float(v)) for k, v in d.items()}
    if f[1] == "empty":
        empty.setdefault(f[0], []).append(d)
        continue
    if "json" in d:
        for k in ("alloc", "busy", "kern"):
            d[k] = max(0.0, d[k] - statistics.median(e[k] for e in empty.get(f[0], [{k: 0}])))
        try:
            e = json.load(open(d["json"]))["end"]["sum_sent"]
            d["bytes"], d["secs"] = float(e["bytes"]), float(e["seconds"])
        except (OSError, ValueError, KeyError):
            d["bytes"], d["secs"] = 0.0, 1.0
    gb = d["bytes"] / 1e9 if d["bytes"] else float("nan")
    d["mbit"] = d["bytes"] * 8 / d["secs"] / 1e6 if d["secs"] else 0.0
    d["alloc_gb"] = d["alloc"] / gb
    d["cpu_gb"] = d["busy"] / HZ / gb
    d["kern_gb"] = d["kern"] / HZ / gb
    d["maps_gb"] = d["maps"] / gb
    d["saved_gb"] = d["saved"] / gb
    d["bounces_gb"] = d["bounces"] / gb
    d["bounced_gb"] = d["bounced"] / 1e6 / gb    # MB bounced per GB sent
    runs.setdefault((f[0], f[1]), []).append(d)

# Every part asked for must have produced runs that moved data.
want = []
if "iperf" in parts:
    want += [("veth", m) for m in ("off", "on")]
    want += [("tnic", m) for m in ["off", "on"] + (["optin"] if have_dma == "1" else [])]
if "zc" in parts:
    want += [(s, m) for s in ("zc4k", "zc256k") for m in ("copy", "ppfrag", "zerocopy")]
if "dma" in parts:
    want += [(s, m) for s in ("dma4k", "dma256k") for m in dma_modes or ["(none)"]]
missing = [f"{s}/{m}" for s, m in want if not any(r["bytes"] > 0 for r in runs.get((s, m), []))]
if missing:
    print("bench: no result for " + ", ".join(missing), file=sys.stderr)
    sys.exit(1)


def med(sec, mode, key):
    v = [r[key] for r in runs.get((sec, mode), [])]
    return statistics.median(v) if v else float("nan")


def tot(sec, mode, key):
    return sum(r.get(key, 0) for r in runs.get((sec, mode), []))


def pct(a, b):
    return "%.1f" % (100.0 * a / b) if b else "-"


def ratio(a, b):
    return "%.3f" % (a / b) if b else "n/a"


def share(sec, mode):
    served, rec, fb = (tot(sec, mode, k) for k in ("served", "recycled", "fallback"))
    return pct(rec, served), pct(fb, served + fb)


def runlist(sec, mode, key, fmt="%.0f"):
    return ", ".join(fmt % r[key] for r in runs.get((sec, mode), []))


def table_iperf():
    print("### pp_frag: TCP transmit, off vs on")
    print()
    print(f"iperf3 -t {secs} from init_net; off = pp_frag loaded, no pool on the egress device; on = a pool of {pool} "
          f"order-3 pages on it. Blocks off, on, on, off repeated {reps} times: each cell is the median of {nruns} runs. "
          "Pages = base pages counted by /proc/vmstat pgalloc_* (an order-3 page counts 8), CPU = busy time of both "
          "vCPUs from /proc/stat (sender, receiver, softirq: system wide), kernel = system + irq + softirq; per GB "
          "(10^9 bytes) sent. Recycled = pool pages reused / pages the pool served; fallback = refills left to the "
          "kernel (pool empty or at its bound) / all refills that reached the pool. Pages and CPU: minus the median "
          "of two iperf3 runs on the same path that send 1 KiB (process start, control connection).")
    print()
    dma_head = " DMA maps/GB | maps saved/GB |"
    print("| path | pp_frag | Mbit/s | runs (Mbit/s) | pages/GB | CPU s/GB | kernel s/GB | recycled % | fallback % |"
          + dma_head)
    print("|---|---|---:|---|---:|---:|---:|---:|---:|---:|---:|")
    for sec, name in (("veth", "veth (va0 -> netns ppns)"), ("tnic", "test NIC (tn0 -> tn1, pfifo_fast)")):
        modes = ["off", "on"] + (["optin"] if sec == "tnic" and have_dma == "1" else [])
        for m in modes:
            rs, fb = share(sec, m) if m != "off" else ("-", "-")
            if sec != "tnic":
                dma = " - | - |"
            elif have_dma == "1":
                dma = " %.0f | %.0f |" % (med(sec, m, "maps_gb"), med(sec, m, "saved_gb"))
            else:
                dma = " n/a (test NIC without DMA opt-in) | n/a |"
            label = {"off": "off", "on": "on", "optin": "on + driver DMA opt-in"}[m]
            print(f"| {name} | {label} | {med(sec, m, 'mbit'):.0f} | {runlist(sec, m, 'mbit')} | "
                  f"{med(sec, m, 'alloc_gb'):.0f} | {med(sec, m, 'cpu_gb'):.2f} | {med(sec, m, 'kern_gb'):.2f} | "
                  f"{rs} | {fb} |" + dma)
        print(f"| {name} | **on/off** | **{ratio(med(sec, 'on', 'mbit'), med(sec, 'off', 'mbit'))}** | | "
              f"{ratio(med(sec, 'on', 'alloc_gb'), med(sec, 'off', 'alloc_gb'))} | "
              f"{ratio(med(sec, 'on', 'cpu_gb'), med(sec, 'off', 'cpu_gb'))} | "
              f"{ratio(med(sec, 'on', 'kern_gb'), med(sec, 'off', 'kern_gb'))} | | |"
              + (" %s | |" % ratio(med(sec, "optin", "maps_gb"), med(sec, "off", "maps_gb"))
                 if sec == "tnic" and have_dma == "1" else " | |"))


def table_zc():
    print("### pp_frag vs MSG_ZEROCOPY")
    print()
    print("tests/pp/pp_stream.py over the veth pair (init_net -> netns ppns), crc32 of the stream checked end to end "
          "in every run; pages and CPU counted by the sender from connect to the end (system wide). copy = plain send(), no pool; pp_frag = plain send(), pool on va0; zerocopy = "
          "send(MSG_ZEROCOPY), no pool, completions read from the error queue. Blocks copy, pp_frag, zerocopy, "
          f"zerocopy, pp_frag, copy repeated {reps} times, medians of {nruns} runs. CPU includes the Python sender and "
          "receiver checksumming every byte (user time, the same in every mode); kernel = system + irq + softirq.")
    print()
    print("| writes | mode | MB/s | vs copy | pages/GB | CPU s/GB | kernel s/GB | vs copy (kernel) | recycled % "
          "| zerocopy completions: copied / all |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---|")
    zc_notes = []
    for sec, label, mb in (("zc4k", "4 KiB", small_mb), ("zc256k", "256 KiB", large_mb)):
        base = med(sec, "copy", "mbit")
        kbase = med(sec, "copy", "kern_gb")
        for m in ("copy", "ppfrag", "zerocopy"):
            rs = share(sec, m)[0] if m == "ppfrag" else "-"
            zc = "-"
            if m == "zerocopy":
                done, cop, nob = tot(sec, m, "zc_done"), tot(sec, m, "copied"), tot(sec, m, "enobufs")
                zc = f"{cop:.0f} / {done:.0f}"
                zc_notes.append(f"{label}: {tot(sec, m, 'sends'):.0f} zerocopy sends, {done:.0f} completions, "
                                f"{cop:.0f} flagged SO_EE_CODE_ZEROCOPY_COPIED, {nob:.0f} ENOBUFS retries")
            print(f"| {label} x {mb} MiB | {m.replace('ppfrag', 'pp_frag')} | {med(sec, m, 'mbit') / 8:.1f} | "
                  f"{ratio(med(sec, m, 'mbit'), base)} | {med(sec, m, 'alloc_gb'):.0f} | "
                  f"{med(sec, m, 'cpu_gb'):.2f} | {med(sec, m, 'kern_gb'):.2f} | "
                  f"{ratio(med(sec, m, 'kern_gb'), kbase)} | {rs} | {zc} |")
    print()
    for n in zc_notes:
        print(f"- {n}.")


def table_dma():
    sw = dmainfo.get("swiotlb") == "1"
    path = dmainfo.get("path", "?")
    boot = ("IOMMU (intel-iommu, strict)" if path == "iommu" else
            "swiotlb=force" if sw else "no swiotlb (dma-direct)")
    dev = ("the platform device xnet_testnic_dma" if dmainfo.get("dev") == "xnet_testnic_dma" else
           f"QEMU's edu PCI device {dmainfo.get('dev')}, dma_pci=")
    print(f"### The DMA path: copy vs pp_frag vs MSG_ZEROCOPY over the test NIC, {boot}")
    print()
    refused = dmainfo.get("optin_err", "").replace("_", " ")
    print("tests/pp/pp_stream.py from init_net over the BQL test NIC (tn0 -> tn1 in netns tnns), crc32 checked end "
          f"to end in every run. The test NIC's xmit maps every TX frag for its DMA device ({dev}, mapping path "
          f"{path}) and unmaps it at TX completion, unless the "
          "driver opted in and pp_frag holds a mapping of the frag's pool page (saved). copy = send(), no pool; "
          "pp_frag = send(), pool on tn0, the NIC maps; pp_frag + opt-in = the same with dma_optin 1 (each pool "
          "page mapped once when the pool takes it, kept while it is recycled); zerocopy = send(MSG_ZEROCOPY), no "
          f"pool (the NIC maps the user pages). Blocks {', '.join(dma_modes)} and back, {reps} times, medians of "
          f"{nruns} runs. Maps, saved = the NIC's debugfs dma counters; bounces and bounced bytes = a hist trigger "
          "on swiotlb:swiotlb_bounced for that device (every bounce copies the mapped bytes into a swiotlb slot; "
          "it also costs a trace event each); per GB (10^9 bytes) sent. CPU as in the table above (system wide, "
          "Python checksumming included); kernel = system + irq + softirq."
          + (" Through the IOMMU the NIC also looks up every frag's translation at TX completion (its device read: "
             "bad_addr if the address is no longer mapped to the frag's bytes), in every mode alike."
             if path == "iommu" else "")
          + (f" The driver's opt-in was refused here ({refused}): pp_frag keeps no mapping for a device whose "
             "mappings need syncs, so that mode is absent." if dmainfo.get("optin") != "1" else ""))
    print()
    print("| writes | mode | MB/s | vs copy | DMA maps/GB | maps saved/GB | bounces/GB | bounced MB/GB | pages/GB "
          "| CPU s/GB | kernel s/GB | vs copy (kernel) | zerocopy completions: copied / all |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|")
    names = {"copy": "copy", "ppfrag": "pp_frag", "optin": "pp_frag + opt-in", "zerocopy": "zerocopy"}
    data = {"swiotlb": sw, "path": path, "boot": boot, "optin": dmainfo.get("optin") == "1", "rows": []}
    for sec, label, mb in (("dma4k", "4 KiB", small_mb), ("dma256k", "256 KiB", large_mb)):
        base = med(sec, "copy", "mbit")
        kbase = med(sec, "copy", "kern_gb")
        cbase = med(sec, "copy", "cpu_gb")
        for m in dma_modes:
            zc = "-"
            if m == "zerocopy":
                zc = f"{tot(sec, m, 'copied'):.0f} / {tot(sec, m, 'zc_done'):.0f}"
            bn = "%.0f" % med(sec, m, "bounces_gb") if dmainfo.get("bounce") == "1" else "n/a"
            bb = "%.0f" % med(sec, m, "bounced_gb") if dmainfo.get("bounce") == "1" else "n/a"
            print(f"| {label} x {mb} MiB | {names[m]} | {med(sec, m, 'mbit') / 8:.1f} | "
                  f"{ratio(med(sec, m, 'mbit'), base)} | {med(sec, m, 'maps_gb'):.0f} | "
                  f"{med(sec, m, 'saved_gb'):.0f} | {bn} | {bb} | {med(sec, m, 'alloc_gb'):.0f} | "
                  f"{med(sec, m, 'cpu_gb'):.2f} | {med(sec, m, 'kern_gb'):.2f} | "
                  f"{ratio(med(sec, m, 'kern_gb'), kbase)} | {zc} |")
            data["rows"].append({"writes": label, "mode": m, "mbit": med(sec, m, "mbit"),
                                 "tput": med(sec, m, "mbit") / base if base else None,
                                 "maps_gb": med(sec, m, "maps_gb"), "saved_gb": med(sec, m, "saved_gb"),
                                 "bounced_gb": med(sec, m, "bounced_gb") if dmainfo.get("bounce") == "1" else None,
                                 "cpu": med(sec, m, "cpu_gb") / cbase if cbase else None,
                                 "kern": med(sec, m, "kern_gb") / kbase if kbase else None})
    print()
    print(f"- Idle after the part: maps {dmainfo.get('maps')}, unmaps {dmainfo.get('unmaps')}, bad_addr "
          f"{dmainfo.get('bad_addr')}, errors {dmainfo.get('errors')}; swiotlb slots {dmainfo.get('nslabs')}, "
          f"in use {dmainfo.get('used')}.")
    # For scripts/bench-pp.sh's side-by-side table of the two boots.
    print("bench: dma-data " + json.dumps(data), file=sys.stderr)


nruns = 2 * int(reps)
if "iperf" in parts:
    table_iperf()
    print()
if "zc" in parts:
    table_zc()
    print()
if "dma" in parts:
    table_dma()
    print()
if glob:
    print(f"- Both pools disabled at the end: pages_owned {glob[0]}, orphans {glob[1]}, handed_over {glob[2]} "
          "(pages still referenced when their pool went away, freed by their last put).")
PY
