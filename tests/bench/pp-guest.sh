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
#     checked end to end.
# Per run: bytes sent, /proc/vmstat pgalloc_* and /proc/stat deltas
# (system wide, both ends of the connection), pp_frag_stats deltas and the
# test NIC's DMA counters; the Python at the end turns them into tables.
# iperf3 runs: minus the median of two iperf3 runs sending 1 KiB (process
# start, control connection) measured on the same path; pp_stream.py
# measures its own window (connect to end, --sys-report).
set -uo pipefail
. "$XNET_SRC/tests/vm/lib.sh"
. "$XNET_SRC/tests/vm/lib_testnic.sh"

SECS=${BENCH_SECS:-3}
POOL=${BENCH_POOL:-256}
REPS=${BENCH_REPS:-2}
ZC_SMALL_MB=${BENCH_ZC_SMALL_MB:-16}
ZC_LARGE_MB=${BENCH_ZC_LARGE_MB:-64}
VNS=ppns
PPS=$XNET_SRC/tests/pp/pp_stream.py
RAW=$XNET_TMP/pp-raw.txt
DMA_OPTIN=$D/tn0/dma_optin
DMA_CNT=$D/tn0/dma
GLOBAL=/sys/kernel/debug/pp_frag/global
log() { echo "bench: $*" >&2; }

mkdir -p "$XNET_TMP"
: >"$RAW"

bench_cleanup() {
	local f
	for f in /sys/class/net/va0/pp_frag_pool_pages /sys/class/net/tn0/pp_frag_pool_pages; do
		[ ! -e "$f" ] || wput "$f" 0 || true
	done
	[ ! -e /run/netns/$VNS ] || $IP netns del $VNS 2>/dev/null || true
	tn_cleanup
	if mod_loaded pp_frag; then /sbin/rmmod pp_frag 2>/dev/null || true; fi
}
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
for ns in $VNS $NS; do
	$IP netns exec "$ns" $IPERF -s -p 5201 -D >/dev/null || fail "iperf3 server in $ns"
done
wait_until 10 iperf_ok 10.96.0.2 5201 || fail "no iperf3 to 10.96.0.2"
wait_until 10 iperf_ok 10.99.0.2 5201 || fail "no iperf3 to 10.99.0.2"
HAVE_DMA=0
[ -e "$DMA_OPTIN" ] && [ -e "$DMA_CNT" ] && HAVE_DMA=1
log "pool $POOL pages, $REPS ABBA blocks, ${SECS} s per iperf3 run, DMA counters: $HAVE_DMA"

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
	S[$1.maps]=0 S[$1.saved]=0
	if [ "$HAVE_DMA" = 1 ] && [ "$DEV" = tn0 ]; then
		kv_read kv "$DMA_CNT"
		for k in "${!kv[@]}"; do S[$1.$k]=${kv[$k]}; done
	fi
}
# record SECTION MODE RUN key=value...: one raw line with the deltas.
record() {
	local k x y line="$1 $2 $3"
	shift 3
	for k in alloc busy kern served recycled fresh fallback maps saved; do
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
	wput /sys/class/net/$DEV/pp_frag_pool_pages "$pages" || fail "$DEV pool=$pages"
}

# iperf_run SECTION MODE RUN ADDR
iperf_run() {
	local out=$XNET_TMP/iperf-$1-$2-$3.json
	mode "$2"
	snap a
	$IPERF -c "$4" -p 5201 -t "$SECS" -J >"$out" 2>/dev/null || log "iperf3 $1 $2 $3 failed"
	snap b
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
		$IPERF -c "$2" -p 5201 -n 1K -J >/dev/null 2>&1 || log "iperf3 -n 1K to $2 failed"
		snap b
		record "$1" empty $r
	done
}

# ---- 1. and 2. iperf3
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

# ---- 3. copy vs pp_frag vs MSG_ZEROCOPY (pp_stream.py over the veth)
DEV=va0
NZC=$((REPS * 2 * 3 * 2))
: >"$XNET_TMP/recv.txt"
$IP netns exec $VNS $PY "$PPS" recv 5300 --bind 10.96.0.2 --count $NZC --digest crc32 \
	>"$XNET_TMP/recv.txt" 2>"$XNET_TMP/recv.err" &
RECV_PID=$!
lines_ge() { # FILE N
	local n=0 _l
	while read -r _l; do n=$((n + 1)); done <"$1"
	[ "$n" -ge "$2" ]
}
wait_until 20 lines_ge "$XNET_TMP/recv.txt" 1 || fail "pp_stream receiver did not start"
NRECV=1
ZC_WRITE=4096
ZC_BYTES=$((ZC_SMALL_MB << 20))
# stream_run SECTION MODE RUN ADDR
stream_run() {
	local out=$XNET_TMP/stream-$1-$2-$3.txt rl ol zc=()
	[ "$2" = zerocopy ] && zc=(--zerocopy --zc-report)
	mode "$2"
	snap a
	$PY "$PPS" send "$4" 5300 --bytes $ZC_BYTES --write $ZC_WRITE --seed "$NRECV" \
		--digest crc32 --sys-report "${zc[@]}" \
		>"$out" 2>&1 || { cat "$out" >&2; fail "pp_stream send $1 $2 $3"; }
	snap b
	NRECV=$((NRECV + 1))
	wait_until 20 lines_ge "$XNET_TMP/recv.txt" $NRECV || fail "pp_stream receiver: no digest"
	mapfile -t rl <"$XNET_TMP/recv.txt"
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
blocks zc4k 10.96.0.2 copy ppfrag zerocopy
ZC_WRITE=262144
ZC_BYTES=$((ZC_LARGE_MB << 20))
blocks zc256k 10.96.0.2 copy ppfrag zerocopy
mode off
wait_pid $RECV_PID 10 || log "pp_stream receiver still running"

# ---- pools off: every page given back (module counters)
declare -A G=()
kv_read G "$GLOBAL"
echo "global ${G[pages_owned]} ${G[orphans]} ${G[handed_over]}" >>"$RAW"
log "after disabling the pools: pages_owned=${G[pages_owned]} orphans=${G[orphans]} handed_over=${G[handed_over]}"

# ---- tables
$PY - "$RAW" "$SECS" "$POOL" "$REPS" "$HAVE_DMA" "$ZC_SMALL_MB" "$ZC_LARGE_MB" <<'PY' || fail "report"
import json
import os
import statistics
import sys

raw, secs, pool, reps, have_dma, small_mb, large_mb = sys.argv[1:8]
HZ = os.sysconf("SC_CLK_TCK")
runs, empty, glob = {}, {}, None
for line in open(raw):
    f = line.split()
    if f[0] == "global":
        glob = f[1:]
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
    runs.setdefault((f[0], f[1]), []).append(d)


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


nruns = 2 * int(reps)
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
print()
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
if glob:
    print(f"- Both pools disabled at the end: pages_owned {glob[0]}, orphans {glob[1]}, handed_over {glob[2]} "
          "(pages still referenced when their pool went away, freed by their last put).")
PY
