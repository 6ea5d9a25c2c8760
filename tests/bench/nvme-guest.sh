#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# NVMe/TCP priority benchmark, run inside the guest by scripts/bench-nvme.sh.
# It only measures: its raw files go back to the host (bench_raw,
# tests/bench/lib_bench.sh), from which scripts/bench-tables.py makes every
# table; it prints no table (diagnostics, "bench: ..." lines, go to stderr).
# Every part measures "off vs on" side by side in one run: TCG latencies are
# not real, only the ratios mean anything.
# Raw files: params-PART.txt (PART seed, shaped or mq; key=value lines: the
# part's settings, the run order, what the table's text says besides the
# runs: sockets managed, the poll connection, probe and kernel-log
# findings), seed-MODE-ENGINE-qdQD-bBATCH-COMPLETIONS-rRUN.json (fio),
# fio-PART-MODE-RUN.json with link-PART-MODE-RUN.txt (the bottleneck's
# byte counters around the run) and, for mq, txq-mq-MODE-RUN.txt (the test
# NIC's packets on tx-3 and tx-0 during the run).
#
# Parts (BENCH_PARTS, default "seed shaped mqprio"):
#  seed    the seed's fio matrix (4k random reads: io_uring and libaio at
#          QD1/batch 1 and QD32/batch 8, pvsync2 at QD1 - it is synchronous,
#          its real depth is 1) over a veth pair (host in init_net, target in
#          netns "tgt", nvmet on null_blk, tests/vm/lib_nvme.sh), without the
#          modules and with them (so_priority=BENCH_PRIO on both sides, no
#          priority-aware qdisc). Blocks off, on, on, off (ABBA: drift
#          cancels), each cell the mean of its two runs; the modules are
#          loaded and unloaded on the live connection.
#          BENCH_POLL=1: the seed's own setup: the connection gets poll
#          queues (nr_poll_queues), io_uring and pvsync2 rows run with
#          --hipri besides the interrupt-driven rows, busy polling as the
#          seed (target busy_read=60000, host busy_poll=5000). Polled I/O
#          makes the stock nvme-tcp driver warn by itself, on 6.1.192 and
#          6.12.118 alike ("Voluntary context switch within RCU read-side
#          critical section": iocb_bio_iopoll holds rcu_read_lock around
#          bio_poll -> nvme_tcp_poll -> lock_sock, which sleeps when the
#          socket is busy: a race, so some boots do not warn). This script
#          looks for it in the kernel log and says whether it fired before
#          or after our modules were first loaded; the wrapper runs these
#          rows in a boot of their own.
#  shaped  both veth egress sides shaped to BENCH_RATE by a tbf whose child
#          is a prio qdisc (default priomap: priority 6 is the top band, 0 the
#          middle one), UDP bulk traffic (twice the rate) filling the shaper
#          in both directions, its queue on both sides checked before each
#          run; fio libaio QD1 with priority off and on (the parameter
#          rewritten on the live connection), ABBA. Default 2mbit: with the
#          host's two cores shared by other guests, the TCG guest sent only
#          4-5 Mbit/s of UDP, and a shaper it does not fill holds no queue.
#  mqprio  an ADQ-like NIC setup on the BQL test NIC (tests/testnic, tn0 in
#          init_net, tn1 in netns tnns, 4 TX queues): on both sides
#          "mqprio num_tc 2 map ... queues 3@0 1@3 hw 0" maps priority
#          BENCH_PRIO to traffic class 1 (queue 3, nothing else uses it), every
#          other priority to class 0 (queues 0-2). Each TX queue is a slow
#          link: ring of BENCH_TN_DEPTH packets, each completing
#          BENCH_TN_DELAY us after its xmit. UDP bulk (twice what one queue
#          carries) both ways on class 0; fio libaio QD1 with priority
#          0 (storage shares the bulk's queue) vs BENCH_PRIO (its own queue),
#          ABBA. The test NIC's per-queue counters must show NVMe packets on
#          queue 3 in every "on" run (at least one per I/O each way) and none
#          in the "off" runs: asserted.
# BENCH_QUICK=1: every part, 1 s per fio run, one run per mode (off, on),
# the matrix's QD1 rows only.
set -uo pipefail
# shellcheck source=tests/vm/lib.sh
. "$XNET_SRC/tests/vm/lib.sh"
# shellcheck source=tests/bench/lib_bench.sh
. "$XNET_SRC/tests/bench/lib_bench.sh"
# shellcheck source=tests/vm/lib_nvme.sh
. "$XNET_SRC/tests/vm/lib_nvme.sh"

QUICK=${BENCH_QUICK:-0}
SECS=${BENCH_SECS:-3}
[ "$QUICK" = 1 ] && SECS=1
PRIO=${BENCH_PRIO:-6}
RATE=${BENCH_RATE:-2mbit}
POLL=${BENCH_POLL:-0}
PARTS=${BENCH_PARTS:-seed shaped mqprio}
TN_DELAY=${BENCH_TN_DELAY:-8000}
TN_DEPTH=${BENCH_TN_DEPTH:-1}
BULK_SNDBUF=${BENCH_BULK_SNDBUF:-40000}
# ABBA, or one run per mode in the quick form.
ORDER=(off:1 on:1 on:2 off:2)
NRUNS=2
if [ "$QUICK" = 1 ]; then
	ORDER=(off:1 on:1)
	NRUNS=1
fi
ORDER_TXT="order ${ORDER[*]%%:*}"
ORDER_TXT=${ORDER_TXT// /, }
ORDER_TXT=${ORDER_TXT/order,/order}

has_part() { [[ " $PARTS " == *" $1 "* ]]; }

# run_fio NAME ENGINE QD BATCH [extra...] -> "IOPS MEAN_US P9999_US IOS"
# (its JSON in $XNET_TMP/fio-NAME.json; fails without I/O)
run_fio() {
	local name=$1 eng=$2 qd=$3 batch=$4 out=$XNET_TMP/fio-$1.json
	shift 4
	local args=(--name="$name" --filename="$DEV" --ioengine="$eng" --direct=1
		--rw=randread --bs=4k --time_based --runtime="$SECS" --ramp_time=0.5
		--norandommap --size=64M --percentile_list=99.99
		--output-format=json "$@")
	# pvsync2 is synchronous: one I/O at a time whatever iodepth says.
	if [ "$eng" != pvsync2 ]; then
		args+=(--iodepth="$qd" --iodepth_batch_submit="$batch"
			--iodepth_batch_complete_min="$batch")
	fi
	/usr/bin/fio "${args[@]}" >"$out" 2>"$out.err" || {
		cat "$out.err" >&2
		fail "fio $name failed"
	}
	python3 - "$out" <<'PY' || fail "fio $name: no result"
import json, sys
r = json.load(open(sys.argv[1]))["jobs"][0]["read"]
if not r["total_ios"]:
    sys.exit(1)
pct = r["clat_ns"].get("percentile", {})
p = next((v for k, v in pct.items() if k.startswith("99.99")), 0)
print("%.1f %.1f %.1f %d" % (r["iops"], r["lat_ns"]["mean"] / 1000.0, p / 1000.0, r["total_ios"]))
PY
}

# params_raw PART KEY=VALUE...: raw file params-PART.txt, a line each
# (values may hold spaces), with the run order (order=off:1 on:1 ...) and
# the runs per mode.
params_raw() {
	local part=$1
	shift
	printf '%s\n' "order=${ORDER[*]}" "nruns=$NRUNS" "$@" | bench_raw "params-$part.txt"
}

mods_on() {
	kmsg_mark mods-on
	prio_load nvme_tcp_prio so_priority="$PRIO" >&2
	prio_load nvmet_tcp_prio so_priority="$PRIO" >&2
}
mods_off() {
	prio_unload nvme_tcp_prio >&2
	prio_unload nvmet_tcp_prio >&2
}
prio_off() { pp_set nvme_tcp_prio so_priority 0; pp_set nvmet_tcp_prio so_priority 0; }
prio_on() { pp_set nvme_tcp_prio so_priority "$PRIO"; pp_set nvmet_tcp_prio so_priority "$PRIO"; }

declare -A RES=()
# The matrix's rows, "ENGINE QD BATCH MODE" (MODE irq or poll).
CASES=("io_uring 1 1 irq" "io_uring 32 8 irq" "pvsync2 1 1 irq" "libaio 1 1 irq"
	"libaio 32 8 irq")
[ "$POLL" = 1 ] && CASES+=("io_uring 1 1 poll" "io_uring 32 8 poll" "pvsync2 1 1 poll")
if [ "$QUICK" = 1 ]; then
	CASES=("io_uring 1 1 irq" "libaio 1 1 irq")
	[ "$POLL" = 1 ] && CASES+=("io_uring 1 1 poll" "pvsync2 1 1 poll")
fi

seed_cases() {	# seed_cases MODE RUN
	local mode=$1 run=$2 c eng qd b pm extra
	for c in "${CASES[@]}"; do
		read -r eng qd b pm <<<"$c"
		extra=()
		[ "$pm" = poll ] && extra=(--hipri)
		log "$mode (run $run): $eng QD$qd/$b $pm"
		RES[$mode/$eng/$qd/$b/$pm/$run]=$(run_fio "$mode-$eng-$qd-$pm" "$eng" "$qd" "$b" "${extra[@]}") ||
			exit 1
		bench_raw "seed-$mode-$eng-qd$qd-b$b-$pm-r$run.json" "$XNET_TMP/fio-$mode-$eng-$qd-$pm.json"
	done
}

# ---- polled I/O: which queues the commands really went to
TRACEFS=/sys/kernel/tracing
[ -d $TRACEFS/events ] || TRACEFS=/sys/kernel/debug/tracing
# poll_probe ENGINE -> "POLLQ TOTAL": commands of a 1 s fio --hipri QD1 run
# that the nvme_setup_cmd tracepoint saw on the poll queues (qid above the
# default and read queues) and in all. Run outside the timed runs.
poll_probe() {
	local eng=$1 ev=$TRACEFS/events/nvme/nvme_setup_cmd tr
	[ -d "$ev" ] || fail "no nvme_setup_cmd tracepoint ($ev)"
	wput $TRACEFS/trace "" || fail "clearing the trace buffer"
	wput "$ev/enable" 1 || fail "enabling nvme_setup_cmd"
	/usr/bin/fio --name=probe --filename="$DEV" --ioengine="$eng" --hipri --direct=1 \
		--rw=randread --bs=4k --time_based --runtime=1 --size=64M \
		--output-format=json >/dev/null 2>&1 || fail "fio $eng --hipri probe failed"
	wput "$ev/enable" 0
	tr=$XNET_TMP/trace-$eng
	cat $TRACEFS/trace >"$tr"
	python3 - "$tr" "$NV_CTRL" "$POLLQ_FIRST" <<'PY'
import re, sys
tot = pol = 0
for l in open(sys.argv[1]):
    m = re.search(r"nvme_setup_cmd: %s: .*qid=([0-9]+)" % sys.argv[2], l)
    if not m or m.group(1) == "0":
        continue
    tot += 1
    pol += int(m.group(1)) >= int(sys.argv[3])
print(pol, tot)
PY
}

# The stock driver's own warning in polled I/O (see the header): where it
# fired relative to the modules' load, and that it is the nvme_tcp_poll one:
# "none" (no such warning), "before" or "after" the modules were first
# loaded, "untraced" (the warning without nvme_tcp_poll in its trace: not
# the known one). scripts/bench-nvme.sh accepts the poll boot's warning
# only for "before" or "after".
poll_warning() {
	local l seen=0 where='' trace=0
	kmsg_load
	for l in "${KMSG_ALL[@]}"; do
		[[ $l == *"xnet-test-mark: mods-on"* ]] && [ -z "$where" ] && where=after
		if [[ $l == *"Voluntary context switch within RCU read-side critical section"* ]]; then
			seen=1
			[ -n "$where" ] || where=before
		fi
		[ $seen = 1 ] && [[ $l == *nvme_tcp_poll* ]] && trace=1
	done
	if [ $seen = 0 ]; then
		echo none
	elif [ $trace = 1 ]; then
		echo "$where"
	else
		echo untraced
	fi
}

part_seed() {
	local c b run mode host_tagged tgt_tagged
	local opts=(nr_io_queues=2) busy='' nd np nr
	if [ "$POLL" = 1 ]; then
		# One kernel plays both machines. net.core.busy_read is global and
		# read when a socket is created: the target's listener (whose
		# accepted sockets copy it) is created with 60000 as the seed's
		# target, then it goes back to 0 before the host connects.
		# busy_poll (poll/select) is the seed host's 5000. nvme-tcp sets
		# its host sockets' sk_ll_usec to 1 itself.
		wput /proc/sys/net/core/busy_read 60000 || fail "busy_read"
		busy="target busy_read=60000, host busy_poll=5000"
		opts+=(nr_poll_queues=2)
	fi
	nv_target 1 "$NV_T4" 4420
	if [ "$POLL" = 1 ]; then
		wput /proc/sys/net/core/busy_read 0 || fail "busy_read"
		wput /proc/sys/net/core/busy_poll 5000 || fail "busy_poll"
	fi
	nv_connect "$NV_T4" 4420 "${NV_TNQN[1]}" "${opts[@]}"
	DEV=${NV_DEV[$NV_CTRL]}
	log "target ${NV_TNQN[1]} on $NV_T4:4420, host device $DEV ($NV_CTRL), ${opts[*]}"
	local pol_io=none pol_sync=none
	if [ "$POLL" = 1 ]; then
		rd "/sys/block/${DEV##*/}/queue/io_poll"
		[ "$R" = 1 ] || fail "$DEV: io_poll is '$R', no poll queues"
		kmsg_load
		local l
		for l in "${KMSG_ALL[@]}"; do
			[[ $l =~ $NV_CTRL:\ mapped\ ([0-9]+)/([0-9]+)/([0-9]+)\ default/read/poll ]] || continue
			nd=${BASH_REMATCH[1]} nr=${BASH_REMATCH[2]} np=${BASH_REMATCH[3]}
		done
		[ "${np:-0}" -gt 0 ] || fail "$NV_CTRL: no poll queues mapped"
		POLLQ_FIRST=$((nd + nr + 1))
		pol_io=$(poll_probe io_uring) || exit 1
		pol_sync=$(poll_probe pvsync2) || exit 1
		log "commands on poll queues: io_uring --hipri $pol_io, pvsync2 --hipri $pol_sync"
		# io_uring --hipri must really poll, else the "poll" rows are not.
		read -r c b <<<"$pol_io"
		[ "$c" -gt 0 ] || fail "io_uring --hipri: none of $b commands on a poll queue"
	fi
	host_tagged='' tgt_tagged=''
	for run in "${ORDER[@]}"; do
		mode=${run%%:*}
		run=${run#*:}
		if [ "$mode" = on ] && ! mod_loaded nvme_tcp_prio; then
			mods_on
			pstat_read nvme_tcp_prio
			host_tagged=${PSTAT[tracked]}
			pstat_read nvmet_tcp_prio
			tgt_tagged=${PSTAT[tracked]}
		elif [ "$mode" = off ] && mod_loaded nvme_tcp_prio; then
			mods_off
		fi
		seed_cases "$mode" "$run"
	done
	mod_loaded nvme_tcp_prio && mods_off

	local cases p=()
	cases=$(IFS=,; echo "${CASES[*]}")
	if [ "$POLL" = 1 ]; then
		p=("opts=${opts[*]}" "queues=$nd/$nr/$np" "busy=$busy" "probe_io_uring=$pol_io"
			"probe_pvsync2=$pol_sync" "rcu_warning=$(poll_warning)")
		log "kernel log, the stock driver's RCU warning from polled I/O: ${p[5]#*=}"
	fi
	params_raw seed "secs=$SECS" "prio=$PRIO" "poll=$POLL" "cases=$cases" \
		"host_sockets=$host_tagged" "target_sockets=$tgt_tagged" "${p[@]}"
}

# ---- bulk traffic: paced UDP, one stream each way
# (A small Python sender rather than iperf3: iperf3's UDP test starts with
# a handshake whose reply can be dropped by a queue the other direction's
# bulk already fills, and then that client never sends; and its start under
# TCG took longer than the 1.5 s the bench waited.)
BLAST=$XNET_TMP/udp_blast.py
cat >"$BLAST" <<'PY'
import socket, sys, time
mode, addr, port = sys.argv[1], sys.argv[2], int(sys.argv[3])
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
if len(sys.argv) > 5:
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, int(sys.argv[5]))
if mode == "sink":
    s.bind((addr, port))
    while True:
        s.recv(65536)
pps, buf, n, t0 = float(sys.argv[4]), b"x" * 1400, 0, time.monotonic()
while True:
    n += 1
    try:
        s.sendto(buf, (addr, port))
    except OSError:
        pass
    d = t0 + n / pps - time.monotonic()
    if d > 0:
        time.sleep(d)
PY
# bulk_sinks HOST-ADDR NS NS-ADDR: UDP sinks on port 9001 on both sides.
bulk_sinks() {
	/usr/bin/python3 "$BLAST" sink "$1" 9001 &
	NV_BGPIDS+=($!)
	$IP netns exec "$2" /usr/bin/python3 "$BLAST" sink "$3" 9001 &
	NV_BGPIDS+=($!)
}
# bulk_start HOST-ADDR NS NS-ADDR PPS: 1400-byte datagrams at PPS each way.
# The sender's socket buffer (BULK_SNDBUF, doubled by the kernel) holds
# fewer packets than the qdisc would: when the bottleneck's queue has that
# many, the sender blocks instead of the qdisc dropping. So the bulk keeps
# a standing queue of a few tens of packets, and storage sharing it waits
# behind them without losing packets (with drops, nvme-tcp's keep-alive
# timed out behind TCP's backed-off retransmissions and the controller
# reset: "Link has been severed").
bulk_start() {
	/usr/bin/python3 "$BLAST" send "$3" 9001 "$4" "$BULK_SNDBUF" &
	BULK_PIDS=($!)
	$IP netns exec "$2" /usr/bin/python3 "$BLAST" send "$1" 9001 "$4" "$BULK_SNDBUF" &
	BULK_PIDS+=($!)
	NV_BGPIDS+=("${BULK_PIDS[@]}")
}
bulk_stop() {
	kill "${BULK_PIDS[@]}" 2>/dev/null
	wait "${BULK_PIDS[@]}" 2>/dev/null
	return 0
}
# qdisc_stat DEV NS MATCH -> "SENT_BYTES BACKLOG_PKTS" of the first qdisc of
# DEV (in NS, "" = init_net) whose line contains MATCH.
qdisc_stat() {
	local l on=0 sent='' bl=''
	while read -r l; do
		if [[ $l == qdisc* ]]; then
			[ -n "$sent" ] && break
			[[ $l == *"$3"* ]] && on=1 || on=0
		elif [ $on = 1 ] && [[ $l =~ ^Sent\ ([0-9]+)\ bytes ]]; then
			sent=${BASH_REMATCH[1]}
		elif [ $on = 1 ] && [[ $l =~ ^backlog\ [0-9]+[a-zA-Z]*\ ([0-9]+)p ]]; then
			bl=${BASH_REMATCH[1]}
		fi
	done < <($TC ${2:+-n "$2"} -s qdisc show dev "$1")
	echo "${sent:-0} ${bl:-0}"
}
_backlogged() {	# DEV NS MATCH: more than 2 packets queued
	local b
	read -r _ b <<<"$(qdisc_stat "$1" "$2" "$3")"
	[ "$b" -gt 2 ]
}
# wait_contention HDEV TNS TDEV MATCH: until the bulk keeps a queue on both
# sides (15 s), else the part would measure nothing: fail.
wait_contention() {
	wait_until 15 _backlogged "$1" "" "$4" || fail "bulk traffic keeps no queue on $1 ($4)"
	wait_until 15 _backlogged "$3" "$2" "$4" || fail "bulk traffic keeps no queue on $3 ($4)"
	log "backlog (packets): $1 $(qdisc_stat "$1" "" "$4" | cut -d' ' -f2), $3 $(qdisc_stat "$3" "$2" "$4" | cut -d' ' -f2)"
}
# contended_fio NAME HDEV TNS TDEV MATCH [run_fio args]: fio during bulk
# traffic; RES[NAME] = fio's result. Raw files fio-NAME.json and
# link-NAME.txt: the bytes sent by the bottleneck's qdisc each way (all
# traffic) before and after the fio run, and its length in µs.
contended_fio() {
	local name=$1 hd=$2 ns=$3 td=$4 m=$5 u0 d0 u1 d1 t0 t1 r
	shift 5
	read -r u0 _ <<<"$(qdisc_stat "$hd" "" "$m")"
	read -r d0 _ <<<"$(qdisc_stat "$td" "$ns" "$m")"
	t0=${EPOCHREALTIME/./}
	r=$(run_fio "$@") || exit 1
	t1=${EPOCHREALTIME/./}
	read -r u1 _ <<<"$(qdisc_stat "$hd" "" "$m")"
	read -r d1 _ <<<"$(qdisc_stat "$td" "$ns" "$m")"
	bench_raw "fio-$name.json" "$XNET_TMP/fio-$1.json"
	printf 'up_bytes_before=%s\nup_bytes_after=%s\ndown_bytes_before=%s\ndown_bytes_after=%s\nusecs=%s\n' \
		"$u0" "$u1" "$d0" "$d1" "$((t1 - t0))" | bench_raw "link-$name.txt"
	RES[$name]=$r
}

shape() {	# shape DEV [NS]: tbf RATE with a prio qdisc inside
	local ns=${2:+-n $2}
	# shellcheck disable=SC2086
	$TC $ns qdisc replace dev "$1" root handle 1: tbf rate "$RATE" burst 16k latency 200ms ||
		fail "tbf on $1"
	# shellcheck disable=SC2086
	$TC $ns qdisc add dev "$1" parent 1:1 handle 10: prio || fail "prio on $1"
}

part_shaped() {
	local run mode CSECS PPS
	[ -n "${DEV:-}" ] || {
		nv_target 1 "$NV_T4" 4420
		nv_connect "$NV_T4" 4420 "${NV_TNQN[1]}" nr_io_queues=2
		DEV=${NV_DEV[$NV_CTRL]}
	}
	mod_loaded nvme_tcp_prio || mods_on
	shape "$NV_HDEV"
	shape "$NV_TDEV" "$NV_NS"
	bulk_sinks "$NV_H4" "$NV_NS" "$NV_U4"
	CSECS=$((SECS * 2))
	# Twice the shaped rate in 1442-byte IP packets.
	PPS=$(python3 -c "import re,sys; m=re.match(r'([0-9.]+)([kmg]?)bit', sys.argv[1]); print('%.0f' % (2 * float(m.group(1)) * {'k':1e3,'':1,'m':1e6,'g':1e9}[m.group(2)] / (1442 * 8)))" "$RATE")
	for run in "${ORDER[@]}"; do
		mode=${run%%:*}
		run=${run#*:}
		if [ "$mode" = on ]; then prio_on; else prio_off; fi
		bulk_start "$NV_H4" "$NV_NS" "$NV_U4" "$PPS"
		wait_contention "$NV_HDEV" "$NV_NS" "$NV_TDEV" "tbf 1: root"
		log "shaped, priority $mode (run $run)"
		SECS=$CSECS contended_fio "shaped/$mode/$run" "$NV_HDEV" "$NV_NS" "$NV_TDEV" "tbf 1: root" \
			"$mode-shaped" libaio 1 1
		bulk_stop
	done
	params_raw shaped "secs=$CSECS" "prio=$PRIO" "rate=$RATE" "pps=$PPS"
	$TC qdisc del dev "$NV_HDEV" root 2>/dev/null
	$TC -n "$NV_NS" qdisc del dev "$NV_TDEV" root 2>/dev/null
}

# ---- mqprio on the test NIC
TN_T=10.99.0.2
# txq_sent DEV -> TXS[q]: sent_pkts of each TX queue of the test NIC DEV.
declare -A TXS=()
txq_sent() {
	local l f=() cols=() lines=() i
	TXS=()
	mapfile -t lines <"/sys/kernel/debug/xnet_testnic/$1/queues"
	read -r -a cols <<<"${lines[0]}"
	for l in "${lines[@]:1}"; do
		read -r -a f <<<"$l"
		for i in "${!cols[@]}"; do
			[ "${cols[i]}" = sent_pkts ] && TXS[${f[0]}]=${f[i]}
		done
	done
	[ -n "${TXS[3]:-}" ] || fail "$1: no sent_pkts of tx-3 in debugfs queues"
}

# tc_diag DEV [NS]: the qdisc counters of DEV on stderr (bench: lines),
# to see whether the bulk really kept a backlog.
tc_diag() {
	local l
	# shellcheck disable=SC2086
	$TC ${2:+-n $2} -s qdisc show dev "$1" | while read -r l; do
		case $l in
		qdisc*) printf 'bench: %s: %s' "$1" "${l%% bands*}" ;;
		Sent*) printf ', %s' "$l" ;;
		backlog*) printf ', %s\n' "$l" ;;
		esac
	done >&2
}

# tn_mqprio DEV [NS]: the ADQ-like layout and the slow queues on DEV.
tn_mqprio() {
	local dev=$1 ns=${2:-} map=() i q x
	for ((i = 0; i < 16; i++)); do map+=($((i == PRIO))); done
	# shellcheck disable=SC2086
	$TC ${ns:+-n $ns} qdisc replace dev "$dev" root handle 100: mqprio num_tc 2 \
		map "${map[@]}" queues 3@0 1@3 hw 0 || fail "mqprio on $dev"
	# mqprio cleared the XPS maps. Traffic class 0 goes to tx-0 from both
	# CPUs, so storage at priority 0 shares the bulk's queue for sure, not
	# by the luck of a hash (tx-1 and tx-2 stay idle); class 1 has tx-3.
	for q in 0 3; do
		x="echo 3 >/sys/class/net/$dev/queues/tx-$q/xps_cpus"
		if [ -n "$ns" ]; then
			$IP netns exec "$ns" /bin/sh -c "$x" || fail "xps_cpus of $dev tx-$q"
		else
			/bin/sh -c "$x" || fail "xps_cpus of $dev tx-$q"
		fi
	done
	for q in 0 1 2 3; do
		wput "/sys/kernel/debug/xnet_testnic/$dev/tx-$q/depth" "$TN_DEPTH" ||
			fail "$dev tx-$q depth"
		wput "/sys/kernel/debug/xnet_testnic/$dev/tx-$q/delay_us" "$TN_DELAY" ||
			fail "$dev tx-$q delay_us"
	done
}

part_mqprio() {
	local run mode ios CSECS PPS a3 b3 a0 b0
	# shellcheck source=tests/vm/lib_testnic.sh
	. "$XNET_SRC/tests/vm/lib_testnic.sh"
	tn_setup
	trap bench_exit EXIT
	tn_mqprio tn0
	tn_mqprio tn1 "$NS"
	NV_NS=$NS nv_target 2 "$TN_T" 4420
	nv_connect "$TN_T" 4420 "${NV_TNQN[2]}" nr_io_queues=2
	local tdev=${NV_DEV[$NV_CTRL]}
	log "mqprio: target ${NV_TNQN[2]} on $TN_T:4420 (netns $NS), host device $tdev"
	mod_loaded nvme_tcp_prio || mods_on
	bulk_sinks 10.99.0.1 "$NS" "$TN_T"
	CSECS=$((SECS * 2))
	# What one queue carries: TN_DEPTH packets per TN_DELAY us; the bulk
	# offers twice that, so its queue stays full.
	PPS=$((2 * TN_DEPTH * 1000000 / TN_DELAY))
	for run in "${ORDER[@]}"; do
		mode=${run%%:*}
		run=${run#*:}
		if [ "$mode" = on ]; then prio_on; else prio_off; fi
		# A few I/Os before the bulk starts: a socket keeps its cached TX
		# queue until it sends with nothing in flight (ooo_okay), so the
		# first packets after a priority change may use the old class.
		/usr/bin/dd if="$tdev" of=/dev/null bs=4k count=20 iflag=direct 2>/dev/null ||
			fail "dd warm-up on $tdev"
		bulk_start 10.99.0.1 "$NS" "$TN_T" "$PPS"
		wait_contention tn0 "$NS" tn1 "parent 100:1"
		txq_sent tn0; a3=${TXS[3]} a0=${TXS[0]}
		txq_sent tn1; b3=${TXS[3]} b0=${TXS[0]}
		log "mqprio, priority $mode (run $run)"
		SECS=$CSECS DEV=$tdev contended_fio "mq/$mode/$run" tn0 "$NS" tn1 "mqprio 100: root" \
			"$mode-mqprio" libaio 1 1
		txq_sent tn0; a3=$((TXS[3] - a3)) a0=$((TXS[0] - a0))
		tc_diag tn0
		txq_sent tn1; b3=$((TXS[3] - b3)) b0=$((TXS[0] - b0))
		tc_diag tn1 "$NS"
		bulk_stop
		printf 'tn0_tx3=%s\ntn0_tx0=%s\ntn1_tx3=%s\ntn1_tx0=%s\n' "$a3" "$a0" "$b3" "$b0" |
			bench_raw "txq-mq-$mode-$run.txt"
		read -r _ _ _ ios <<<"${RES[mq/$mode/$run]}"
		log "mqprio $mode: $ios I/Os; tn0 tx-3 $a3 tx-0 $a0 packets, tn1 tx-3 $b3 tx-0 $b0"
		if [ "$mode" = on ]; then
			if [ "$a3" -lt "$ios" ] || [ "$b3" -lt "$ios" ]; then
				fail "mqprio on: $ios I/Os but only $a3 (tn0) / $b3 (tn1) packets on tx-3"
			fi
		elif [ "$a3" -ne 0 ] || [ "$b3" -ne 0 ]; then
			fail "mqprio off: $a3 (tn0) / $b3 (tn1) packets on tx-3, want none"
		fi
		if [ "$a0" -eq 0 ] || [ "$b0" -eq 0 ]; then
			fail "mqprio: no bulk packets on tx-0"
		fi
	done
	params_raw mq "secs=$CSECS" "prio=$PRIO" "ns=$NS" "tn_depth=$TN_DEPTH" "tn_delay=$TN_DELAY" "pps=$PPS"
}

# NVMe first (its controllers ride on the test NIC), then the test NIC.
bench_exit() {
	local rc=$?
	trap - EXIT
	_nv_cleanup_all || rc=1
	declare -F tn_cleanup >/dev/null && tn_cleanup
	exit $rc
}

# ---- main
nv_init
trap bench_exit EXIT
log "parts: $PARTS; poll rows: $POLL; ${SECS} s per fio run; $ORDER_TXT"
if has_part seed; then part_seed; fi
if has_part shaped; then part_shaped; fi
if has_part mqprio; then part_mqprio; fi
if mod_loaded nvme_tcp_prio; then mods_off; fi
echo "<!-- bench-nvme guest: parts '$PARTS' done -->"
