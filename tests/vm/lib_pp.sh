# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for the pp_frag guest tests (source after lib.sh). Results for the
# caller: R, PS, PG, XFER_LINE.
# shellcheck disable=SC2034

IP=/sbin/ip
PY=/usr/bin/python3
PPS=$XNET_SRC/tests/pp/pp_stream.py
PPG=/sys/kernel/debug/pp_frag/global

# pp_pages DEV: the pool bound of DEV (in $R).
pp_pages() { read -r R </sys/class/net/"$1"/pp_frag_pool_pages; }

# pp_stats DEV [NS]: DEV's pp_frag_stats into the associative array PS.
declare -A PS=()
pp_stats() {
	if [ -n "${2:-}" ]; then
		kv_read PS <($IP netns exec "$2" cat /sys/class/net/"$1"/pp_frag_stats)
	else
		kv_read PS /sys/class/net/"$1"/pp_frag_stats
	fi
}

# pp_global: /sys/kernel/debug/pp_frag/global into the array PG.
declare -A PG=()
pp_global() { kv_read PG $PPG; }

# pp_veth_setup: namespaces ppa (ppa0, 10.97.0.1) and ppb (ppb0, 10.97.0.2)
# joined by a veth pair; pp_veth_cleanup removes both.
pp_veth_setup() {
	$IP netns add ppa || fail "ip netns add ppa"
	$IP netns add ppb || fail "ip netns add ppb"
	$IP link add ppa0 netns ppa type veth peer name ppb0 netns ppb ||
		fail "veth ppa0/ppb0"
	$IP -n ppa addr add 10.97.0.1/24 dev ppa0
	$IP -n ppb addr add 10.97.0.2/24 dev ppb0
	$IP -n ppa link set lo up
	$IP -n ppb link set lo up
	$IP -n ppa link set ppa0 up
	$IP -n ppb link set ppb0 up
}

pp_veth_cleanup() {
	[ ! -e /run/netns/ppa ] || $IP netns del ppa 2>/dev/null || true
	[ ! -e /run/netns/ppb ] || $IP netns del ppb 2>/dev/null || true
}

# (sysfs shows a netns's devices only where it was mounted in that netns:
# read them through `ip netns exec`, which remounts /sys.)
pp_in() { # NS CMD...: run CMD in NS (or here when NS is empty)
	local ns=$1
	shift
	if [ -n "$ns" ]; then
		/usr/bin/nsenter --net=/run/netns/"$ns" "$@"
	else
		"$@"
	fi
}

# pp_stream SNS RNS ADDR PORT BYTES [WRITES]: a checksummed stream from
# namespace SNS ('' = init_net) to a receiver in RNS on ADDR:PORT, in the
# background; pp_stream_end LABEL waits for it and fails unless the
# receiver got every byte with the sender's sha256 (sender's line: XFER_LINE).
# PP_RECV_OPTS: more receiver options (e.g. --hold SECS). On the debug
# kernel (XNET_VM_CHECKERS=1, ~1 MB/s under KASAN and TCG) a stream is a
# quarter of BYTES: the same paths, a quarter of the time (SBYTES: what is
# sent).
pp_stream() {
	local sns=$1 rns=$2 addr=$3 port=$4 writes=${6:-65536}
	SOUT=$XNET_TMP/send.$port ROUT=$XNET_TMP/recv.$port SBYTES=$5
	[ "${XNET_VM_CHECKERS:-0}" = 0 ] || SBYTES=$((SBYTES / 4))
	: >"$ROUT" # here, not in the background job: see wait_for_line
	# shellcheck disable=SC2086 # PP_RECV_OPTS: extra receiver options
	pp_in "$rns" $PY "$PPS" recv "$port" --bind "$addr" ${PP_RECV_OPTS:-} >>"$ROUT" 2>&1 &
	RPID=$!
	wait_for_line "$ROUT" listening || fail "receiver on $addr:$port did not start: $(<"$ROUT")"
	# shellcheck disable=SC2086 # PP_SEND_OPTS: extra sender options
	pp_in "$sns" $PY "$PPS" send "$addr" "$port" --bytes "$SBYTES" --write "$writes" \
		${PP_SEND_OPTS:-} >"$SOUT" 2>&1 &
	SPID=$!
}

pp_stream_end() {
	local rline ssum
	wait "$SPID" || fail "$1: sender: $(<"$SOUT")"
	wait "$RPID" || fail "$1: receiver: $(<"$ROUT")"
	XFER_LINE=$(<"$SOUT")
	rline=$(grep '^recv ' "$ROUT")
	ssum=${XFER_LINE##*sha256=}
	ssum=${ssum%% *}
	if [ -n "${PP_STOP:-}" ]; then
		# An open stream (pp_stream_open): what the sender sent.
		SBYTES=${XFER_LINE#send bytes=}
		SBYTES=${SBYTES%% *}
		PP_STOP=
	fi
	[[ $rline == "recv bytes=$SBYTES "* ]] || fail "$1: receiver: '$rline', want $SBYTES bytes"
	[ "${rline##*sha256=}" = "$ssum" ] || fail "$1: data corrupted: sent sha256 $ssum, received ${rline##*sha256=}"
}

# pp_stream_open SNS RNS ADDR PORT [WRITES]: pp_stream with no set length:
# it goes on (up to 100 GB) until pp_stream_close. For a stream that must
# outlast changes made under it (pools, opt-ins, rmmod): a fixed length
# long enough on a slow kernel or a busy host sent most of its bytes after
# the changes, where they prove no more than the few MB pp_stream_close
# waits for.
pp_stream_open() {
	PP_STOP=$XNET_TMP/stop.$4
	rm -f "$PP_STOP"
	PP_SEND_OPTS="--until $PP_STOP" pp_stream "$1" "$2" "$3" "$4" 100000000000 "${5:-65536}"
}

# pp_tx_bytes NS DEV: DEV's transmitted bytes in namespace NS ('' =
# init_net), in R (/proc/net/dev is the reader's namespace's).
pp_tx_bytes() {
	local l f
	R=
	while read -r l; do
		[[ $l == "$2:"* ]] || continue
		read -r -a f <<<"${l#*:}"
		R=${f[8]}
	done < <(pp_in "$1" cat /proc/net/dev)
	[ -n "$R" ]
}

# pp_stream_close LABEL NS DEV [BYTES]: the open stream goes on until DEV
# (in NS, the sender's side) has sent BYTES more (default 4 MB, a quarter
# on the debug kernel): it still flows after what was done under it. Then
# it stops, and pp_stream_end LABEL checks every byte sent.
_pp_tx_ge() { pp_tx_bytes "$1" "$2" && [ "$R" -ge "$3" ]; } # NS DEV BYTES
pp_stream_close() {
	local want=${4:-4000000} t0
	[ "${XNET_VM_CHECKERS:-0}" = 0 ] || want=$((want / 4))
	pp_tx_bytes "$2" "$3" || fail "$1: no $3 in /proc/net/dev of '$2'"
	t0=$R
	wait_until 120 _pp_tx_ge "$2" "$3" $((t0 + want)) ||
		fail "$1: $3 sent $((R - t0)) of $want bytes in 120 s after the changes; sender: $(<"$SOUT")"
	: >"$PP_STOP"
	pp_stream_end "$1"
}

# pp_xfer SNS RNS ADDR PORT BYTES [WRITES]: pp_stream, waited for.
pp_xfer() {
	pp_stream "$@"
	pp_stream_end "stream to $3:$4"
}

# pp_dma_idle DEV: DEV's test NIC DMA (lib_testnic.sh's dma()) idle: every
# map undone, no error, no frag read at a wrong address.
pp_dma_idle() {
	wait_until 10 mapped_idle "$@" || fail "$1: maps ${DM[maps]} != unmaps ${DM[unmaps]} when idle"
	expect_eq "${DM[errors]}" 0 "DMA errors"
	expect_eq "${DM[bad_addr]}" 0 "frags with a wrong DMA address"
}

# pp_dma_xfer PORT BYTES [WRITES]: an intact stream tn0 -> tn1 ($NS,
# 10.99.0.2); deltas of tn0's DMA maps, saved (DMAPS, DSAVED) and of the
# wire's TCP data segments (DTCP); the DMA idle afterwards.
pp_dma_xfer() {
	local m0 s0 t0
	dma
	m0=${DM[maps]} s0=${DM[saved]}
	wire tn0
	t0=${W[tcp]}
	pp_xfer "" "$NS" 10.99.0.2 "$1" "$2" "${3:-65536,1448,300000}"
	pp_dma_idle tn0
	wire tn0
	DMAPS=$((DM[maps] - m0)) DSAVED=$((DM[saved] - s0)) DTCP=$((W[tcp] - t0))
}

# pp_tn_cleanup: the test NIC's cleanup (lib_testnic.sh), then pp_frag
# unloaded: the EXIT trap of the tests of pp_frag's DMA opt-in.
pp_tn_cleanup() {
	tn_cleanup
	! mod_loaded pp_frag || /sbin/rmmod pp_frag 2>/dev/null || true
}

# pp_dma_xfer_mapped PORT BYTES LABEL: pp_dma_xfer, and the NIC mapped
# every frag itself (no pp_frag mapping used): maps >= TCP data segments.
pp_dma_xfer_mapped() {
	pp_dma_xfer "$1" "$2"
	ktap_diag "$3: maps $DMAPS saved $DSAVED, TCP data segments $DTCP"
	[ "$DTCP" -gt 0 ] || fail "$3: no TCP data segment on tn0's wire"
	[ "$DMAPS" -ge "$DTCP" ] || fail "$3: maps $DMAPS < TCP data segments $DTCP"
	expect_eq "$DSAVED" 0 "$3: saved"
}

# pp_flush_defer NS ADDR: receivers free skbs on the CPU that allocated
# them (6.1's skb_attempt_defer_free): up to skb_defer_max/2 wait there for
# that CPU's next NET_RX softirq, holding their pages. A ping from each CPU
# runs one.
pp_flush_defer() {
	local c
	for c in 0 1; do
		pp_in "$1" /usr/bin/taskset -c $c /bin/busybox ping -c 1 -W 1 "$2" >/dev/null 2>&1 || true
	done
}

# wait_for_line FILE WORD: up to 30 s (TCG, a busy host) for WORD in FILE;
# 90 s on the debug kernel, where a Python receiver started beside other
# processes under KASAN, with a second guest on the host, can take longer.
# Empty FILE before starting the background job that writes it (": >FILE",
# then ">>FILE"): the job's own redirection empties it only once the job
# runs, and until then a line of the file's last writer would do.
wait_for_line() {
	local i l n=300
	[ "${XNET_VM_CHECKERS:-0}" = 0 ] || n=900
	for ((i = 0; i < n; i++)); do
		if [ -s "$1" ]; then
			while read -r l; do
				[ "$l" = "$2" ] && return 0
			done <"$1"
		fi
		nsleep 0.1
	done
	return 1
}

# pp_free_pages: /proc/vmstat nr_free_pages (in $R).
pp_free_pages() {
	local k v
	while read -r k v; do
		[ "$k" = nr_free_pages ] && R=$v && return 0
	done </proc/vmstat
	return 1
}

# pp_listening NS PORT: a TCP socket listens on PORT in NS.
pp_listening() {
	[[ $($IP netns exec "$1" /bin/ss -Htln "sport = :$2") == *LISTEN* ]]
}

# Proof that pages went back to the page allocator, page by page: a tracefs
# instance records kmem:mm_page_free; pp_owned lists the pages pp_frag owns
# (debugfs "pages": "pfn order where"); pp_unfreed prints those of a list
# with no mm_page_free since pp_trace_frees_start.
PPT=/sys/kernel/tracing/instances/xnet_pp
pp_trace_frees_start() {
	[ -d /sys/kernel/tracing/instances ] || fail "no tracefs at /sys/kernel/tracing"
	[ ! -d $PPT ] || rmdir $PPT || fail "old tracefs instance $PPT"
	mkdir $PPT || fail "tracefs instance $PPT"
	wput $PPT/buffer_size_kb 4096 || fail "trace buffer size"
	wput $PPT/events/kmem/mm_page_free/enable 1 || fail "enable kmem:mm_page_free"
}

# pp_trace_frees_filter LIST: from now on record only the pfn range of LIST
# (a file of pp_owned's lines); frees before are in the buffer already.
pp_trace_frees_filter() {
	local p lo='' hi=0
	while read -r p _; do
		p=$((p))
		[ -n "$lo" ] && [ "$p" -ge "$lo" ] || lo=$p
		[ "$p" -le "$hi" ] || hi=$p
	done <"$1"
	[ -n "$lo" ] || fail "no page to trace"
	wput $PPT/events/kmem/mm_page_free/filter "pfn >= $lo && pfn <= $hi" ||
		fail "trace filter pfn $lo..$hi"
}

# pp_unfreed LIST: LIST's lines whose page (pfn, order) was not freed.
pp_unfreed() {
	awk 'NR == FNR { if (match($0, /pfn=0x[0-9a-f]+ order=[0-9]+/)) {
			split(substr($0, RSTART, RLENGTH), f, /[= ]/); freed[f[2] " " f[4]] = 1 }
		next }
		!(($1 " " $2) in freed)' $PPT/trace "$1"
}

# pp_trace_lost: events the instance dropped (a full buffer), in R.
pp_trace_lost() {
	R=$(cat $PPT/per_cpu/cpu*/stats | awk '/^overrun:/ { n += $2 } END { print n + 0 }')
}

pp_trace_frees_stop() {
	[ ! -d $PPT ] || { wput $PPT/events/kmem/mm_page_free/enable 0; rmdir $PPT; } || true
}

# pp_fill DEV NS ADDR PORT PAGES SECS: DEV's pool filled with PAGES busy
# pages (or as many as SECS allow): a listener in NS (a namespace, not '')
# on ADDR:PORT that never accepts nor reads, and 4 sockets from init_net
# that write into it until the receive windows close and then fill their
# send queues (SO_SNDBUF
# 1 GiB, net.core.wmem_max and net.ipv4.tcp_mem raised meanwhile), each
# new 32 KiB of data a new pool page. The writer stops when DEV's pool has
# PAGES pages and holds them until pp_fill_end kills it and the listener
# (SO_LINGER 0: an abortive close frees the send queues at once; the
# listener's close frees the receive queues). Pages in the pool: FILLED.
PP_FILL_PY='
import signal, socket, struct, sys, time
dev, addr, port, want, secs = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), float(sys.argv[5])
def pages():
    with open("/sys/class/net/%s/pp_frag_stats" % dev) as f:
        for l in f:
            k, v = l.split()
            if k == "pages":
                return int(v)
socks = []
for i in range(4):
    s = socket.create_connection((addr, port))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 29)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.setblocking(False)
    socks.append(s)
buf = bytes(1 << 20)
end = time.monotonic() + secs
sent = since = 0
n = pages()
while n < want and time.monotonic() < end:
    moved = 0
    for s in socks:
        try:
            moved += s.send(buf)
        except BlockingIOError:
            pass
    sent += moved
    since += moved
    if not moved:
        time.sleep(0.05)
    if since >= 16 << 20 or not moved:
        n, since = pages(), 0
print("filled pages=%d sent=%d" % (pages(), sent), flush=True)
signal.pause()
'
PP_LISTEN_PY='
import signal, socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind((sys.argv[1], int(sys.argv[2])))
s.listen(16)
print("listening", flush=True)
signal.pause()
'
pp_fill() {
	local dev=$1 ns=$2 addr=$3 port=$4 want=$5 secs=$6 l
	rd /proc/sys/net/core/wmem_max
	PP_WMEM0=$R
	rd /proc/sys/net/ipv4/tcp_mem
	PP_TCPMEM0=$R
	wput /proc/sys/net/core/wmem_max $((1 << 29)) || fail "wmem_max"
	wput /proc/sys/net/ipv4/tcp_mem "4194304 8388608 16777216" || fail "tcp_mem"
	FOUT=$XNET_TMP/fill.$port LOUT=$XNET_TMP/listen.$port
	# One process each (nsenter execs Python): $! is what pp_fill_end kills.
	: >"$LOUT" # here, not in the background job: see wait_for_line
	/usr/bin/nsenter --net=/run/netns/"$ns" $PY -c "$PP_LISTEN_PY" "$addr" "$port" >>"$LOUT" 2>&1 &
	LPID=$!
	wait_for_line "$LOUT" listening || fail "listener on $addr:$port: $(<"$LOUT")"
	$PY -c "$PP_FILL_PY" "$dev" "$addr" "$port" "$want" "$secs" >"$FOUT" 2>&1 &
	FPID=$!
	for ((l = 0; l < secs + 60; l++)); do
		grep -q '^filled ' "$FOUT" && break
		kill -0 $FPID 2>/dev/null || fail "the pool's filler ended: $(<"$FOUT")"
		nsleep 1
	done
	l=$(grep '^filled ' "$FOUT") || fail "the pool's filler did not finish in $((secs + 60)) s"
	FILLED=${l#filled pages=}
	FILLED=${FILLED%% *}
	ktap_diag "$dev's pool filled: $l"
}

# pp_fill_end: the filler and its listener killed (their sockets' pages
# let go), the sysctls put back.
pp_fill_end() {
	local p
	for p in ${FPID:-} ${LPID:-}; do
		kill -9 "$p" 2>/dev/null || true
		wait "$p" 2>/dev/null || true
	done
	FPID='' LPID=''
	[ -z "${PP_WMEM0:-}" ] || wput /proc/sys/net/core/wmem_max "$PP_WMEM0" || true
	[ -z "${PP_TCPMEM0:-}" ] || wput /proc/sys/net/ipv4/tcp_mem "$PP_TCPMEM0" || true
}
