#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe/TCP priority benchmark, run inside the guest by scripts/bench-nvme.sh.
# Prints markdown tables on stdout (diagnostics go to stderr).
#
# Topology (tests/vm/lib_nvme.sh): host in init_net, target in netns "tgt",
# one veth pair; nvmet on null_blk. Two parts, each "off vs on" in one run:
#  1. the seed's table: fio io_uring, pvsync2 and libaio, QD1/batch 1 and
#     QD32/batch 8, 4k random reads: IOPS, mean and p99.99 latency, without
#     the modules and with them (so_priority=BENCH_PRIO on both sides, no
#     priority-aware qdisc). Blocks off, on, on, off (ABBA: drift cancels);
#     each cell is the mean of its two runs. The modules are loaded and
#     unloaded on the live connection (adoption and restore at work).
#     Interrupt-driven completions: polled I/O (--hipri on nvme-tcp poll
#     queues) makes Debian's 6.1.192 kernel warn by itself ("Voluntary
#     context switch within RCU read-side critical section", lock_sock in
#     nvme_tcp_poll under bio_poll), modules or not.
#  2. why priority matters: both veth egress sides shaped to BENCH_RATE by
#     a tbf whose child is a prio qdisc (default priomap: priority 6 is the
#     top band, 0 the middle one), UDP bulk traffic (iperf3, twice the rate)
#     filling the shaper in both directions; fio libaio QD1 with priority
#     off and on (the parameter rewritten on the live connection), ABBA.
set -uo pipefail
. "$XNET_SRC/tests/vm/lib.sh"
. "$XNET_SRC/tests/vm/lib_nvme.sh"

SECS=${BENCH_SECS:-3}
PRIO=${BENCH_PRIO:-6}
RATE=${BENCH_RATE:-10mbit}
IPERF=/usr/bin/iperf3

log() { echo "bench: $*" >&2; }

# run_fio NAME ENGINE QD BATCH [extra...] -> "IOPS MEAN_US P9999_US"
run_fio() {
	local name=$1 eng=$2 qd=$3 batch=$4 out=$XNET_TMP/fio-$1.json
	shift 4
	local args=(--name="$name" --filename="$DEV" --ioengine="$eng" --direct=1
		--rw=randread --bs=4k --time_based --runtime="$SECS" --ramp_time=0.5
		--norandommap --size=64M --percentile_list=99.99
		--output-format=json "$@")
	if [ "$eng" != pvsync2 ]; then
		args+=(--iodepth="$qd" --iodepth_batch_submit="$batch"
			--iodepth_batch_complete_min="$batch")
	fi
	/usr/bin/fio "${args[@]}" >"$out" 2>"$out.err" || {
		cat "$out.err" >&2
		fail "fio $name failed"
	}
	python3 - "$out" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["jobs"][0]["read"]
pct = r["clat_ns"].get("percentile", {})
p = next((v for k, v in pct.items() if k.startswith("99.99")), 0)
print("%.0f %.1f %.1f" % (r["iops"], r["lat_ns"]["mean"] / 1000.0, p / 1000.0))
PY
}

# The six fio cases of the seed. Fills RES[MODE/case]="iops mean p9999".
declare -A RES=()
CASES=("io_uring 1 1" "io_uring 32 8" "pvsync2 1 1" "pvsync2 32 8" "libaio 1 1"
	"libaio 32 8")
seed_cases() {	# seed_cases MODE RUN
	local mode=$1 run=$2 c eng qd b
	for c in "${CASES[@]}"; do
		read -r eng qd b <<<"$c"
		log "$mode (run $run): $eng QD$qd/$b"
		RES[$mode/$eng/$qd/$b/$run]=$(run_fio "$mode-$eng-$qd" "$eng" "$qd" "$b")
	done
}

# mean2 "a b c" "d e f" -> element-wise mean of two result triples
mean2() { python3 -c "import sys; a=sys.argv[1].split(); b=sys.argv[2].split(); print('%.0f %.1f %.1f' % tuple((float(x)+float(y))/2 for x, y in zip(a, b)))" "$1" "$2"; }

ratio() { python3 -c "import sys; a,b=float(sys.argv[1]),float(sys.argv[2]); print('%.2f' % (b/a) if a else 'n/a')" "$1" "$2"; }

mods_on() {
	prio_load nvme_tcp_prio so_priority="$PRIO" >&2
	prio_load nvmet_tcp_prio so_priority="$PRIO" >&2
}
mods_off() {
	prio_unload nvme_tcp_prio >&2
	prio_unload nvmet_tcp_prio >&2
}

shape() {	# shape DEV [NS]: tbf RATE with a prio qdisc inside
	local ns=${2:+-n $2}
	# shellcheck disable=SC2086
	$TC $ns qdisc replace dev "$1" root handle 1: tbf rate "$RATE" burst 16k latency 200ms ||
		fail "tbf on $1"
	# shellcheck disable=SC2086
	$TC $ns qdisc add dev "$1" parent 1:1 handle 10: prio || fail "prio on $1"
}

# ---- setup
nv_init
nv_target 1 "$NV_T4" 4420
nv_connect "$NV_T4" 4420 "${NV_TNQN[1]}" nr_io_queues=2
DEV=${NV_DEV[$NV_CTRL]}
log "target ${NV_TNQN[1]} on $NV_T4:4420, host device $DEV ($NV_CTRL)"

# ---- part 1: the seed's matrix, ABBA: off, on, on, off (same connection)
seed_cases off 1
mods_on
pstat_read nvme_tcp_prio
host_tagged=${PSTAT[tracked]}
pstat_read nvmet_tcp_prio
tgt_tagged=${PSTAT[tracked]}
seed_cases on 1
seed_cases on 2
mods_off
seed_cases off 2

echo "### NVMe/TCP priority: the seed's fio matrix (no priority-aware qdisc)"
echo
echo "fio 4k random reads, ${SECS} s per run, null_blk over nvmet-tcp on a veth pair, QEMU TCG guest;"
echo "each cell is the mean of 2 runs in the order off, on, on, off."
echo "off: no module; on: nvme_tcp_prio and nvmet_tcp_prio loaded on the live connection with so_priority=$PRIO (managing $host_tagged host and $tgt_tagged target sockets)."
echo
echo "| engine | QD/batch | IOPS off | IOPS on | on/off | mean µs off | mean µs on | p99.99 µs off | p99.99 µs on |"
echo "|---|---|---:|---:|---:|---:|---:|---:|---:|"
for c in "${CASES[@]}"; do
	read -r eng qd b <<<"$c"
	read -r i0 m0 p0 <<<"$(mean2 "${RES[off/$eng/$qd/$b/1]}" "${RES[off/$eng/$qd/$b/2]}")"
	read -r i1 m1 p1 <<<"$(mean2 "${RES[on/$eng/$qd/$b/1]}" "${RES[on/$eng/$qd/$b/2]}")"
	echo "| $eng | $qd/$b | $i0 | $i1 | $(ratio "$i0" "$i1") | $m0 | $m1 | $p0 | $p1 |"
done
echo

# ---- part 2: a shaped link with bulk traffic competing
mods_on
shape "$NV_HDEV"
shape "$NV_TDEV" "$NV_NS"
$IP netns exec "$NV_NS" $IPERF -s -p 5201 -D -B "$NV_U4" >/dev/null || fail "iperf3 server"
$IP netns exec "$NV_NS" $IPERF -s -p 5202 -D -B "$NV_U4" >/dev/null || fail "iperf3 server"
sleep 0.5
CSECS=$((SECS * 2))
BULK=$(python3 -c "import re,sys; m=re.match(r'([0-9.]+)([kmg]?)bit', sys.argv[1]); print('%dM' % (2 * float(m.group(1)) * {'k':1e-3,'':1e-6,'m':1,'g':1e3}[m.group(2)]))" "$RATE")
declare -A BW=()
contended() {	# contended MODE RUN: fio libaio QD1 while UDP bulk runs both ways
	local mode=$1 run=$2 up=$XNET_TMP/iperf-up.json down=$XNET_TMP/iperf-down.json
	$IPERF -c "$NV_U4" -p 5201 -u -b "$BULK" -t $((CSECS + 3)) -J >"$up" 2>/dev/null &
	local p1=$!
	$IPERF -c "$NV_U4" -p 5202 -u -b "$BULK" -R -t $((CSECS + 3)) -J >"$down" 2>/dev/null &
	local p2=$!
	sleep 1.5
	log "contended, priority $mode (run $run)"
	RES[$mode/contended/$run]=$(SECS=$CSECS run_fio "$mode-contended" libaio 1 1)
	wait $p1 $p2
	BW[$mode/$run]=$(python3 - "$up" "$down" <<'PY'
import json, sys
mb = []
for f in sys.argv[1:]:
    try:
        mb.append(json.load(open(f))["end"]["sum"]["bits_per_second"] / 1e6)
    except Exception:
        mb.append(0.0)
print("%.1f %.1f 0" % tuple(mb))
PY
)
}
prio_off() { pp_set nvme_tcp_prio so_priority 0; pp_set nvmet_tcp_prio so_priority 0; }
prio_on() { pp_set nvme_tcp_prio so_priority "$PRIO"; pp_set nvmet_tcp_prio so_priority "$PRIO"; }
prio_off
contended off 1
prio_on
contended on 1
contended on 2
prio_off
contended off 2

read -r i0 m0 p0 <<<"$(mean2 "${RES[off/contended/1]}" "${RES[off/contended/2]}")"
read -r i1 m1 p1 <<<"$(mean2 "${RES[on/contended/1]}" "${RES[on/contended/2]}")"
read -r u0 d0 _ <<<"$(mean2 "${BW[off/1]}" "${BW[off/2]}")"
read -r u1 d1 _ <<<"$(mean2 "${BW[on/1]}" "${BW[on/2]}")"
echo "### NVMe/TCP priority: shaped link, bulk traffic competing"
echo
echo "Both veth egress sides: tbf $RATE (200 ms of queue) with a prio qdisc inside (default priomap: priority $PRIO -> band 0, 0 -> band 1)."
echo "iperf3 UDP at $BULK both ways (twice the shaped rate) during fio libaio QD1 4k random reads (${CSECS} s per run, mean of 2 runs, order off, on, on, off)."
echo "Priority off: so_priority=0 (NVMe shares the bulk band); on: so_priority=$PRIO on both sides, written to the live connection."
echo
echo "| | IOPS | mean µs | p99.99 µs | UDP up Mbit/s | UDP down Mbit/s |"
echo "|---|---:|---:|---:|---:|---:|"
echo "| priority off | $i0 | $m0 | $p0 | $u0 | $d0 |"
echo "| priority on | $i1 | $m1 | $p1 | $u1 | $d1 |"
echo "| on/off | $(ratio "$i0" "$i1") | $(ratio "$m0" "$m1") | $(ratio "$p0" "$p1") | | |"
