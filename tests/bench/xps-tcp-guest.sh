#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The seed's case (issue 27, point 5), run inside the guest by
# scripts/bench-xps-tcp.sh: TCP from netns "fwdsrc" (iperf3 client),
# forwarded by init_net onto the BQL test NIC tn0 (XPS: CPU 0 -> tx-0,
# CPU 1 -> tx-1; pfifo_fast under mq) to tn1 (iperf3 server in $NS), the
# sender moved between CPU 0 and CPU 1 every INTERVAL ms: the client's
# threads and, with BENCH_TCP_PATH=napi-thread (the default), the veth's
# NAPI thread that forwards its packets, as a VM's vhost thread would (see
# BENCH_TCP_PATH below). The forwarding CPU, and with it stock XPS's
# queue, follows.
#
# Matrix (a cell = queues x interval x RACK; every cell runs every mode):
#   queues    equal (tx-0 and tx-1 complete 1000 us late), 2x (tx-0 2000 us,
#             tx-1 1000 us), 5x (tx-0 5000 us, tx-1 1000 us)
#   interval  10, 50, 250 ms
#   RACK      on / off: net.ipv4.tcp_recovery 1 / 0 in fwdsrc (per netns)
#   modes     stock (xps_dev_flow_table_cnt 0), steer (1024, hold_drains 0),
#             steer-d4 (1024, hold_drains 4); BENCH_TCP_RUNS rounds per
#             cell, the order of the modes reversed every other round
#             (ABC, CBA, ABC ...)
# Env: BENCH_TCP_RUNS (5), BENCH_TCP_SECS (3, iperf3 -t), BENCH_TCP_CELLS
# (globs over the cell names QUEUES/INTERVALms/rack-on|off, separated by
# spaces or commas, e.g. "5x/*/rack-off equal/10ms/*"; default: all 18),
# BENCH_TCP_PATH (napi-thread, backlog: below), BENCH_TCP_IPID_OBJ (the
# tc classifiers of tests/bench/xps-tcp-ipid.bpf.c, built by the host
# script: required).
#
# Output (stdout): "META<TAB>key<TAB>value" lines about the setup, then one
# "RAW<TAB>..." line per run (the header first, "RAW<TAB>run<TAB>..."); the
# host script keeps them as a TSV and makes the tables. Diagnostics on
# stderr ("bench: ..."). A run whose iperf3 fails, times out or reports 0
# goodput is kept (status fail:WHY) and makes this script exit 1 at the end;
# three failed runs in a row end the matrix there.
set -uo pipefail
. "$XNET_SRC/tests/vm/lib.sh"
. "$XNET_SRC/tests/bench/lib_bench.sh"
. "$XNET_SRC/tests/vm/lib_testnic.sh"

RUNS=${BENCH_TCP_RUNS:-5}
SECS=${BENCH_TCP_SECS:-3}
CELLS=${BENCH_TCP_CELLS:-*}
OBJ=${BENCH_TCP_IPID_OBJ:-}
SRC=fwdsrc
TC=/sbin/tc
CNT=/sys/class/net/tn0/xps_dev_flow_table_cnt
PARAMS=/sys/module/xps_flow/parameters
meta() { printf 'META\t%s\t%s\n' "$1" "$2"; }

[[ $RUNS =~ ^[1-9][0-9]*$ ]] || fail "BENCH_TCP_RUNS=$RUNS"
[[ $SECS =~ ^[1-9][0-9]*$ ]] || fail "BENCH_TCP_SECS=$SECS"
{ [ -n "$OBJ" ] && [ -f "$OBJ" ]; } || fail "BENCH_TCP_IPID_OBJ=$OBJ: no such object (scripts/bench-xps-tcp.sh builds it)"

SLP_PID='' SRV_PID=''
bench_cleanup() {
	[ -z "$SRV_PID" ] || kill "$SRV_PID" 2>/dev/null
	[ -z "$SLP_PID" ] || kill "$SLP_PID" 2>/dev/null
	[ ! -e /run/netns/$SRC ] || $IP netns del $SRC 2>/dev/null || true
	tn_cleanup
}
tn_setup
trap bench_cleanup EXIT
load_mod xps_flow/xps_flow >&2
tn_fwd_setup $SRC

# The receiver's iperf3 server and a sleeper in the sender's netns: the
# runner reads each netns's TCP counters through /proc/PID/net/ (no exec).
$IP netns exec $NS $IPERF -s -p 5201 >/dev/null 2>&1 &
SRV_PID=$!
$IP netns exec $SRC /bin/sleep 1000000 &
SLP_PID=$!
wait_until 10 iperf_ok 10.99.0.2 5201 || fail "no iperf3 server on 10.99.0.2 (through the forwarding path)"

# Reordering by IP ID (xps-tcp-ipid.bpf.c): on tn0's egress hook, which
# runs before the queue choice, the segments that arrive already overtaken
# (on the way from the sender), then the flow's IDs renumbered in the order
# they reached tn0; on tn1's ingress, the segments overtaken in between: in
# tn0's queue choice, qdiscs and rings. Each filter's action counts them.
for m in sch_ingress cls_bpf act_gact; do /sbin/modprobe $m || fail "modprobe $m"; done
out=$($TC qdisc add dev tn0 clsact 2>&1) || fail "clsact on tn0: $out"
out=$($TC filter add dev tn0 egress prio 1 handle 1 bpf \
	obj "$OBJ" sec egress action pass 2>&1) || fail "bpf filter on tn0's egress: $out"
out=$($IP netns exec $NS $TC qdisc add dev tn1 clsact 2>&1) || fail "clsact on tn1: $out"
out=$($IP netns exec $NS $TC filter add dev tn1 ingress prio 1 handle 1 bpf \
	obj "$OBJ" sec wire action pass 2>&1) || fail "bpf filter on tn1's ingress: $out"
log "tn0 egress: $($TC filter show dev tn0 egress | tr '\n' ' ')"
log "tn1 ingress: $($IP netns exec $NS $TC filter show dev tn1 ingress | tr '\n' ' ')"

# RACK is a per-netns sysctl on this kernel: set it in fwdsrc, check that
# init_net keeps its own.
nsys() { $IP netns exec $SRC /bin/sh -c "echo $2 >/proc/sys/net/ipv4/$1" || fail "sysctl $1=$2 in $SRC"; }
nget() { $IP netns exec $SRC /bin/cat "/proc/sys/net/ipv4/$1"; }
rd /proc/sys/net/ipv4/tcp_recovery
init_rack=$R
nsys tcp_recovery 0
rd /proc/sys/net/ipv4/tcp_recovery
[ "$(nget tcp_recovery)" = 0 ] || fail "tcp_recovery did not change in $SRC"
if [ "$R" = "$init_rack" ]; then
	meta rack_scope "per netns (tcp_recovery=0 in $SRC left init_net's $init_rack)"
else
	meta rack_scope "global (tcp_recovery=0 in $SRC changed init_net's too)"
fi
nsys tcp_recovery "$init_rack"

# BENCH_TCP_PATH: how the veth hands the sender's packets to init_net.
# backlog: to the transmitting CPU's backlog, forwarded there (the path of
# xps-guest.sh's TCP part);
# TCP transmits both from the client's thread and from wherever it
# processes ACKs, so two CPUs may forward the flow at once and reorder it
# before tn0. napi-thread: GRO on vr0 and TSO off on vs0 (so that every
# segment takes the veth's NAPI ring), the NAPI threaded: one kernel thread
# per veth queue forwards the flow in order, as a VM's vhost thread does,
# and the mover moves those threads with the client (the threads run
# SCHED_FIFO 10: below).
PATH_MODE=${BENCH_TCP_PATH:-napi-thread}
NAPI_TIDS=''
case $PATH_MODE in
backlog) ;;
napi-thread)
	out=$($IP netns exec $SRC /sbin/ethtool -K vs0 tso off 2>&1) || fail "ethtool -K vs0 tso off: $out"
	out=$(/sbin/ethtool -K vr0 gro on 2>&1) || fail "ethtool -K vr0 gro on: $out"
	wput /sys/class/net/vr0/threaded 1 || fail "threaded NAPI on vr0"
	for d in /proc/[0-9]*; do
		read -r c 2>/dev/null <"$d/comm" || continue
		[[ $c != napi/vr0-* ]] || NAPI_TIDS+=${NAPI_TIDS:+,}${d#/proc/}
	done
	[ -n "$NAPI_TIDS" ] || fail "no napi/vr0-* threads"
	# SCHED_FIFO (below the mover's 50): the veth's ring (256 packets, no
	# backpressure on 6.1: a full ring drops) is drained as soon as it
	# fills, not when CFS lets the thread in beside the client; else the
	# veth drops segments of the flow at random, a loss that has nothing to
	# do with the TX queues.
	for t in ${NAPI_TIDS//,/ }; do
		/usr/bin/chrt -f -p 10 "$t" || fail "chrt -f 10 on the NAPI thread $t"
	done
	log "vr0's NAPI threads: $NAPI_TIDS (SCHED_FIFO 10)"
	;;
*) fail "BENCH_TCP_PATH=$PATH_MODE: backlog or napi-thread" ;;
esac
meta path "$PATH_MODE"

meta kernel "$(uname -r)"
meta iperf3 "$($IPERF --version 2>&1 | head -n1)"
meta cpus "$(nproc)"
meta secs "$SECS"
meta runs "$RUNS"
meta cells "$CELLS"
rd $PARAMS/hold_max_ms
meta hold_max_ms "$R"
for k in tcp_congestion_control tcp_sack tcp_reordering tcp_max_reordering tcp_early_retrans tcp_recovery; do
	meta "$SRC.$k" "$(nget $k)"
done
meta qdisc "$($TC qdisc show dev tn0 | head -n2 | tr '\n' ';')"
rd /sys/class/net/tn0/tx_queue_len
meta tn0_tx_queue_len "$R"
rd /sys/class/net/tn0/mtu
meta tn0_mtu "$R"

# ---- the runner: one run, its counters before and after, one RAW line.
cat >"$XNET_TMP/run.py" <<'PY'
import json, os, re, subprocess, sys, threading, time

D = "/sys/kernel/debug/xnet_testnic"
IP, TC, IPERF = "/sbin/ip", "/sbin/tc", "/usr/bin/iperf3"
COLS = ("run utc rack queues interval_ms mode round pos status goodput_mbps "
        "iperf_retrans retrans_segs sack_reorder dsack_recv dsack_ofo_recv "
        "ts_reorder reno_reorder timeouts loss_probes spurious_rtos undos "
        "rcv_ofo_queue wire_tcp wire_reordered_seq nic_reordered pre_reordered "
        "wire_peer_drops qdisc_drops veth_drops xps_lookups xps_moves xps_held xps_stale "
        "xps_expired xps_collisions xps_claims_lost xps_unrecorded cpu_moves "
        "move_ms moves_late qd0_mean qd0_max qd1_mean qd1_max qd_busy_pct infl0_kb "
        "infl1_kb bql_stopped0_pct bql_stopped1_pct ring0_max ring1_max elapsed_s").split()

if sys.argv[1] == "--header":
    print("RAW\t" + "\t".join(COLS))
    sys.exit(0)

(run, rack, qcfg, interval, mode, rnd, pos, secs, src_ns, dst_ns,
 slp_pid, srv_pid, tmp, extra) = sys.argv[1:15]
# Threads moved with the client (the veth's NAPI threads with
# BENCH_TCP_PATH=napi-thread), "-" for none.
extra = [int(t) for t in extra.split(",") if t not in ("", "-")]
interval_s, secs = int(interval) / 1000.0, int(secs)


def log(msg):
    print("bench: " + msg, file=sys.stderr, flush=True)


def kv(path):
    out = {}
    with open(path) as f:
        for line in f.read().splitlines():
            p = line.split()
            if len(p) >= 2:
                out[p[0]] = p[1]
    return out


def veth_drops(pid):
    """vs0's TX drops (a full veth ring) in the netns PID lives in."""
    with open("/proc/%s/net/dev" % pid) as f:
        for line in f.read().splitlines():
            name, _, rest = line.partition(":")
            if name.strip() == "vs0":
                return int(rest.split()[11])
    return 0


def snmp(pid):
    """TcpExt.* and Tcp.* of the netns PID lives in."""
    out = {}
    for name in ("netstat", "snmp"):
        with open("/proc/%s/net/%s" % (pid, name)) as f:
            lines = f.read().splitlines()
        for h, v in zip(lines[0::2], lines[1::2]):
            hk, vk = h.split(), v.split()
            for k, x in zip(hk[1:], vk[1:]):
                out[hk[0].rstrip(":") + "." + k] = int(x)
    return out


def queues():
    with open(D + "/tn0/queues") as f:
        lines = f.read().splitlines()
    cols = lines[0].split()
    return {int(v[0]): dict(zip(cols, map(int, v)))
            for v in (l.split() for l in lines[1:])}


def qdisc():
    """tn0: the mq root's dropped count, each child's backlog in packets."""
    out = subprocess.run([TC, "-s", "qdisc", "show", "dev", "tn0"],
                         capture_output=True, text=True).stdout
    drops, backlog, parent = 0, {}, None
    for line in out.splitlines():
        m = re.match(r"qdisc \S+ \S+ (root|parent :(\w+))", line)
        if m:
            parent = "root" if m.group(1) == "root" else int(m.group(2), 16) - 1
            continue
        m = re.search(r"dropped (\d+)", line)
        if m and parent == "root":
            drops = int(m.group(1))
        m = re.search(r"backlog \S+ (\d+)p", line)
        if m and parent not in (None, "root"):
            backlog[parent] = int(m.group(1))
    return drops, backlog


def ipid_count(where):
    """Segments the IP ID classifier counted: ("tn1", "ingress") in dst_ns,
    ("tn0", "egress") here."""
    cmd = [TC, "-s", "filter", "show", "dev", where[0], where[1]]
    if where[0] == "tn1":
        cmd = [IP, "netns", "exec", dst_ns] + cmd
    out = subprocess.run(cmd, capture_output=True, text=True).stdout
    m = re.search(r"Sent \d+ bytes (\d+) pkt", out)
    if not m:
        raise RuntimeError("no action statistics on %s %s's filter: %s" % (where + (out,)))
    return int(m.group(1))


WIRE, PRE = ("tn1", "ingress"), ("tn0", "egress")


def drained():
    q = queues()
    return all(q[i]["dql_inflight"] == 0 and q[i]["len"] == 0 for i in (0, 1))


def wait_drained(limit=20.0):
    end = time.monotonic() + limit
    while time.monotonic() < end:
        if drained() and not any(qdisc()[1].values()):
            return True
        time.sleep(0.05)
    return False


status = "ok"
if not wait_drained():
    log("run %s: tn0 not drained before the run" % run)
with open(D + "/tn0/reset", "w") as f:
    f.write("1\n")
s0, r0, vd0 = snmp(slp_pid), snmp(srv_pid), veth_drops(slp_pid)
w0, x0 = kv(D + "/tn0/wire"), kv("/sys/class/net/tn0/xps_flow_stats")
ipid0, pre0, (qdrop0, _) = ipid_count(WIRE), ipid_count(PRE), qdisc()

# tc samples (every second: each is a fork and exec, tens of ms of a vCPU
# under TCG) in a thread of its own, so that they never delay a move.
qd_samples, stop = [], threading.Event()


def sampler():
    while not stop.wait(1.0):
        qd_samples.append(qdisc()[1])


jpath = "%s/iperf-%s.json" % (tmp, run)
utc = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
t0 = time.monotonic()
jf = open(jpath, "w")
p = subprocess.Popen([IP, "netns", "exec", src_ns, IPERF, "-c", "10.99.0.2", "-p", "5201",
                      "-t", str(secs), "-J"], stdout=jf, stderr=subprocess.STDOUT)
th = threading.Thread(target=sampler, daemon=True)
th.start()
# The mover itself (this thread only, after the sampler thread and iperf3
# were started: both inherit a policy) runs SCHED_FIFO, so that it wakes on
# time however busy the vCPUs are with the sender, forwarding and receiver.
try:
    os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(50))
except OSError as e:
    log("run %s: no SCHED_FIFO for the mover (%s)" % (run, e))


def move(cpu):
    try:
        tids = os.listdir("/proc/%d/task" % p.pid)
    except OSError:
        tids = []
    for t in tids + extra:
        try:
            os.sched_setaffinity(int(t), {cpu})
        except OSError:
            pass


cpu, moves, late, infl, last_q = 0, 0, 0, [], 0.0
move(cpu)
nxt = time.monotonic() + interval_s
deadline = t0 + secs + 30
while p.poll() is None:
    now = time.monotonic()
    if now > deadline:
        p.kill()
        status = "fail:timeout"
        break
    if now - last_q >= 0.05:
        last_q = now
        q = queues()
        infl.append((q[0]["dql_inflight"], q[1]["dql_inflight"], q[0]["xoff"] & 2, q[1]["xoff"] & 2))
    if now >= nxt:
        cpu ^= 1
        move(cpu)
        moves += 1
        nxt += interval_s
        if nxt < now:
            nxt = now + interval_s
            late += 1
        continue
    time.sleep(min(nxt - now, 0.05))
rc = p.wait()
elapsed = time.monotonic() - t0
os.sched_setscheduler(0, os.SCHED_OTHER, os.sched_param(0))
stop.set()
th.join()
jf.close()
if not wait_drained():
    log("run %s: tn0 not drained after the run" % run)
time.sleep(0.1)
s1, r1, vd1 = snmp(slp_pid), snmp(srv_pid), veth_drops(slp_pid)
w1, x1 = kv(D + "/tn0/wire"), kv("/sys/class/net/tn0/xps_flow_stats")
ipid1, pre1, (qdrop1, _) = ipid_count(WIRE), ipid_count(PRE), qdisc()
qfin = queues()

goodput, retr = 0.0, 0
try:
    with open(jpath) as f:
        j = json.load(f)
    if "error" in j:
        raise ValueError(j["error"])
    goodput = j["end"]["sum_received"]["bits_per_second"] / 1e6
    retr = j["end"]["sum_sent"].get("retransmits", 0)
except Exception as e:  # noqa: BLE001 - any broken output fails the run
    if status == "ok":
        status = "fail:iperf3 output (%s)" % str(e).replace("\t", " ")[:120]
if status == "ok" and rc != 0:
    status = "fail:iperf3 exit %d" % rc
if status == "ok" and goodput <= 0:
    status = "fail:zero goodput"


def d(a, b, k):
    return int(b.get(k, 0)) - int(a.get(k, 0))


def ds(k):
    return d(s0, s1, k)


undo = sum(ds("TcpExt." + k) for k in ("TCPFullUndo", "TCPPartialUndo", "TCPDSACKUndo", "TCPLossUndo"))
n = max(len(qd_samples), 1)
q0 = [s.get(0, 0) for s in qd_samples] or [0]
q1 = [s.get(1, 0) for s in qd_samples] or [0]
busy = sum(1 for s in qd_samples if s.get(0, 0) or s.get(1, 0))
i0 = [v[0] for v in infl] or [0]
i1 = [v[1] for v in infl] or [0]
ni = max(len(infl), 1)
row = {
    "run": run, "utc": utc, "rack": rack, "queues": qcfg,
    "interval_ms": interval, "mode": mode, "round": rnd, "pos": pos, "status": status,
    "goodput_mbps": "%.1f" % goodput, "iperf_retrans": retr,
    "retrans_segs": ds("Tcp.RetransSegs"), "sack_reorder": ds("TcpExt.TCPSACKReorder"),
    "dsack_recv": ds("TcpExt.TCPDSACKRecv"), "dsack_ofo_recv": ds("TcpExt.TCPDSACKOfoRecv"),
    "ts_reorder": ds("TcpExt.TCPTSReorder"), "reno_reorder": ds("TcpExt.TCPRenoReorder"),
    "timeouts": ds("TcpExt.TCPTimeouts"), "loss_probes": ds("TcpExt.TCPLossProbes"),
    "spurious_rtos": ds("TcpExt.TCPSpuriousRTOs"), "undos": undo,
    "rcv_ofo_queue": d(r0, r1, "TcpExt.TCPOFOQueue"),
    "wire_tcp": d(w0, w1, "tcp"), "wire_reordered_seq": d(w0, w1, "reordered"),
    "nic_reordered": ipid1 - ipid0, "pre_reordered": pre1 - pre0,
    "wire_peer_drops": d(w0, w1, "peer_drops"),
    "qdisc_drops": qdrop1 - qdrop0, "veth_drops": vd1 - vd0,
    "cpu_moves": moves, "move_ms": "%.1f" % (1000.0 * elapsed / moves if moves else 0), "moves_late": late,
    "qd0_mean": "%.1f" % (sum(q0) / n), "qd0_max": max(q0),
    "qd1_mean": "%.1f" % (sum(q1) / n), "qd1_max": max(q1),
    "qd_busy_pct": "%.0f" % (100.0 * busy / n),
    "infl0_kb": "%.1f" % (sum(i0) / len(i0) / 1024), "infl1_kb": "%.1f" % (sum(i1) / len(i1) / 1024),
    "bql_stopped0_pct": "%.0f" % (100.0 * sum(1 for v in infl if v[2]) / ni),
    "bql_stopped1_pct": "%.0f" % (100.0 * sum(1 for v in infl if v[3]) / ni),
    "ring0_max": qfin[0]["max_len"], "ring1_max": qfin[1]["max_len"],
    "elapsed_s": "%.2f" % elapsed,
}
for k in ("lookups", "moves", "held", "stale", "expired", "collisions", "claims_lost", "unrecorded"):
    row["xps_" + k] = d(x0, x1, k)
print("RAW\t" + "\t".join(str(row[c]) for c in COLS), flush=True)
log("run %s %s/%sms/rack-%s %s: %s %.1f Mbit/s retrans %d reordered in tn0 %d, before tn0 %d, by seq %d; held %d moves %d expired %d"
    % (run, qcfg, interval, rack, mode, status, goodput, row["retrans_segs"],
       row["nic_reordered"], row["pre_reordered"], row["wire_reordered_seq"], row["xps_held"], row["xps_moves"],
       row["xps_expired"]))
sys.exit(0 if status == "ok" else 3)
PY

# ---- the matrix
declare -A DELAY0=([equal]=1000 [2x]=2000 [5x]=5000)
MODES=(stock steer steer-d4)
cur_table=''
set_mode() {
	local t=1024 dr=0
	case $1 in
	stock) t=0 ;;
	steer) ;;
	steer-d4) dr=4 ;;
	*) fail "mode $1" ;;
	esac
	wput $PARAMS/hold_drains $dr || fail "hold_drains=$dr"
	if [ "$cur_table" != "$t" ]; then
		wput $CNT "$t" || fail "xps_dev_flow_table_cnt=$t"
		cur_table=$t
	fi
}

selected() {
	local p pats
	IFS=', ' read -r -a pats <<<"$CELLS"
	for p in "${pats[@]}"; do
		# shellcheck disable=SC2053 # the pattern is a glob on purpose
		[[ $1 == $p ]] && return 0
	done
	return 1
}

python3 "$XNET_TMP/run.py" --header
run=0 failed=0 in_row=0 ncells=0
t_start=$SECONDS
for rack in off on; do
	for q in equal 2x 5x; do
		for iv in 10 50 250; do
			cell=$q/${iv}ms/rack-$rack
			selected "$cell" || continue
			ncells=$((ncells + 1))
			rv=0
			[ $rack = off ] || rv=1
			nsys tcp_recovery $rv
			wput $D/tn0/tx-0/delay_us "${DELAY0[$q]}" || fail "tx-0 delay"
			wput $D/tn0/tx-1/delay_us 1000 || fail "tx-1 delay"
			log "cell $cell ($((SECONDS - t_start)) s so far)"
			for ((r = 1; r <= RUNS; r++)); do
				order=("${MODES[@]}")
				[ $((r % 2)) = 1 ] || order=("${MODES[2]}" "${MODES[1]}" "${MODES[0]}")
				pos=0
				for m in "${order[@]}"; do
					pos=$((pos + 1))
					run=$((run + 1))
					set_mode "$m"
					nsleep 0.3
					if python3 "$XNET_TMP/run.py" $run $rack "$q" "$iv" "$m" $r $pos "$SECS" \
						$SRC $NS $SLP_PID $SRV_PID "$XNET_TMP" "${NAPI_TIDS:--}"; then
						in_row=0
					else
						failed=$((failed + 1)) in_row=$((in_row + 1))
						log "run $run ($cell, $m, round $r) FAILED"
						[ $in_row -lt 3 ] || break 5
					fi
				done
			done
		done
	done
done
set_mode stock
wput $PARAMS/hold_drains 0
meta elapsed_s $((SECONDS - t_start))
meta cells_run "$ncells"
meta runs_done "$run"
meta runs_failed "$failed"
[ "$ncells" -gt 0 ] || fail "BENCH_TCP_CELLS=$CELLS selects no cell"
[ $in_row -lt 3 ] || fail "3 runs in a row failed: the matrix was cut short"
[ "$failed" = 0 ] || fail "$failed of $run runs failed"
log "done: $run runs in $((SECONDS - t_start)) s"
