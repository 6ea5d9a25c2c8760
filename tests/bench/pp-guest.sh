#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pp_frag benchmark, run inside the guest by scripts/bench-pp.sh: raw files
# back to the host on stdout (bench_raw), progress on stderr; the host makes
# the tables of them (scripts/bench-tables.py). pp_frag stays loaded: "off" is
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
# pp-raw.txt, one line per run: bytes sent, /proc/vmstat pgalloc_* and
# /proc/stat deltas (system wide, both ends of the connection), pp_frag_stats
# deltas and the test NIC's DMA counters; an iperf3 run's json= names its
# raw file iperf-SECTION-MODE-RUN.json. Also "params ..." (the settings the
# tables need, USER_HZ), "dmainfo ..." (the DMA part) and "global ...".
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

# What the tables need besides the runs (lists comma-separated); hz: USER_HZ,
# the unit of /proc/stat.
p=${PARTS# } p=${p% }
hz=$($PY -c 'import os; print(os.sysconf("SC_CLK_TCK"))') || fail "no USER_HZ"
echo "params secs=$SECS pool=$POOL reps=$REPS have_dma=$HAVE_DMA small_mb=$ZC_SMALL_MB" \
	"large_mb=$ZC_LARGE_MB hz=$hz parts=${p// /,} dma_modes=${DMA_MODES// /,}" >>"$RAW"
# The counter snapshots' deltas of every run (record), the module's counters
# after the pools were disabled, the settings.
bench_raw pp-raw.txt "$RAW"
