#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# pp_frag with many sockets, run inside the guest by scripts/bench-scale.sh:
# the raw file scale-pp-raw.txt back to the host (bench_raw), from which
# scripts/bench-tables.py makes the tables; diagnostics on stderr. One sending process
# (tests/pp/pp_fan.py) spreads SCALE_PP_MB MiB over N TCP connections
# (SCALE_PP_COUNTS) from netns ppa to ppb over a veth pair, in 16 KiB
# writes to each socket in turn. pp_frag stays loaded: "off" is no pool on
# ppa0 (the kernel's own page frags), "on" a pool of SCALE_PP_POOL pages.
# Order off, on, on, off for each N: the first "on" run starts with an
# empty pool, the second with the pages the first left.
# Per run: /proc/vmstat pgalloc_* delta (system wide, both ends), ppa0's
# pp_frag_stats deltas and its pool size after the run, the sender's time:
#   N MODE RUN alloc= served= recycled= fresh= fallback= pages= in_flight=
#   conns= bytes= secs= refused=
# after a line "params pool=POOL mb=MB counts=N,N...".
set -uo pipefail
. "$XNET_SRC/tests/vm/lib.sh"
. "$XNET_SRC/tests/bench/lib_bench.sh"
. "$XNET_SRC/tests/vm/lib_pp.sh"

COUNTS=${SCALE_PP_COUNTS:-1 100 1000 10000}
MB=${SCALE_PP_MB:-64}
POOL=${SCALE_PP_POOL:-512}
FAN=$XNET_SRC/tests/pp/pp_fan.py
RAW=$XNET_TMP/scale-pp-raw.txt
ROUT=$XNET_TMP/scale-pp-recv.txt
SERR=$XNET_TMP/scale-pp-send.err
PORT=9700

mkdir -p "$XNET_TMP"
echo "params pool=$POOL mb=$MB counts=$(echo "$COUNTS" | xargs | tr ' ' ',')" >"$RAW"
cleanup() {
	[ ! -e /sys/module/pp_frag ] ||
		$IP netns exec ppa sh -c 'echo 0 > /sys/class/net/ppa0/pp_frag_pool_pages' 2>/dev/null
	pp_veth_cleanup
	! mod_loaded pp_frag || /sbin/rmmod pp_frag 2>/dev/null || true
}
trap cleanup EXIT
load_mod pp_frag/pp_frag >&2
pp_veth_setup
# 10,000 connections: the accept queue and the port range allow them.
for ns in ppa ppb; do
	pp_in $ns sh -c 'echo 4096 > /proc/sys/net/core/somaxconn' || fail "somaxconn in $ns"
done
log "pool $POOL pages, $MB MiB a run, sockets: $COUNTS"

# alloc: the system's page allocations so far.
alloc() {
	local k a=0
	local -A kv=()
	kv_read kv /proc/vmstat
	for k in "${!kv[@]}"; do
		[[ $k == pgalloc_* ]] && a=$((a + kv[$k]))
	done
	R=$a
}

# run N MODE RUN: one transfer; one raw line.
run() {
	local n=$1 mode=$2 r=$3 pages=0 a0 s0 r0 f0 fb0 line
	[ "$mode" = off ] || pages=$POOL
	$IP netns exec ppa sh -c "echo $pages > /sys/class/net/ppa0/pp_frag_pool_pages" ||
		fail "pool=$pages"
	PORT=$((PORT + 1))
	# Emptied here, not by the background job's redirection: the last
	# run's "recv listening" must not be taken for this one's (a loaded
	# host's make check: the sender connected before the new receiver
	# listened, refused four times).
	: >"$ROUT"
	pp_in ppb $PY "$FAN" recv $PORT --count "$n" --bind 10.97.0.2 >>"$ROUT" 2>&1 &
	local rpid=$!
	wait_for_line "$ROUT" 'recv listening' || fail "receiver did not start: $(cat "$ROUT")"
	alloc
	a0=$R
	pp_stats ppa0 ppa
	s0=${PS[served]} r0=${PS[recycled]} f0=${PS[fresh]} fb0=${PS[fallback]}
	line=$(pp_in ppa $PY "$FAN" send 10.97.0.2 $PORT --count "$n" \
		--bytes $((MB << 20)) 2>"$SERR") || {
		cat "$SERR" >&2
		pp_in ppa nstat -az >&2
		pp_in ppb nstat -az >&2
		pp_in ppa ss -s >&2
		pp_in ppb ss -s >&2
		fail "sender, $n sockets $mode: ${line:-no output}; its stderr: $(tail -n 3 "$SERR"); receiver: $(cat "$ROUT")"
	}
	wait "$rpid" || fail "receiver, $n sockets $mode: $(cat "$ROUT")"
	grep -q "recv conns=$n bytes=$(((MB << 20) / n * n))\$" "$ROUT" ||
		fail "receiver, $n sockets $mode: $(cat "$ROUT")"
	alloc
	pp_stats ppa0 ppa
	echo "$n $mode $r alloc=$((R - a0)) served=$((PS[served] - s0))" \
		"recycled=$((PS[recycled] - r0)) fresh=$((PS[fresh] - f0))" \
		"fallback=$((PS[fallback] - fb0)) pages=${PS[pages]}" \
		"in_flight=${PS[in_flight]} ${line#send }" >>"$RAW"
	log "$n sockets, $mode, run $r: ${line#send }"
}

for n in $COUNTS; do
	run "$n" off 1
	run "$n" on 1
	run "$n" on 2
	run "$n" off 2
done

# The tables: scripts/bench-tables.py's, from this raw file (a params line
# with the settings, then one line per run).
bench_raw scale-pp-raw.txt "$RAW"
