#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-xps-tcp`: the seed's case measured (issue 27, point 5). One
# guest boot (scripts/vmtest.sh --series, 2 vCPUs) runs
# tests/bench/xps-tcp-guest.sh: TCP forwarded from a namespace through
# init_net onto the BQL test NIC, the sender (the iperf3 client and the
# thread that forwards its packets: BENCH_TCP_PATH, default napi-thread)
# moving between the CPUs every
# 10, 50 and 250 ms, queues equal (1 ms completion each), 2x and 5x
# (tx-0 2 and 5 ms), RACK on and off; stock XPS, steering (hold_drains 0)
# and steering with hold_drains 4, alternating, BENCH_TCP_RUNS runs each.
# Reordering on the wire is counted twice: by the test NIC (sequence
# numbers: retransmissions count too) and by the sender's IP ID on tn1's
# ingress, relative to the order the segments reached tn0's egress hook
# (tc classifiers, tests/bench/xps-tcp-ipid.bpf.c, built here with clang
# -target bpf): only segments overtaken in tn0's queues; and what arrived
# at tn0 already overtaken, separately.
#
# Saves build/bench/xps-tcp.md (tables), build/bench/xps-tcp-raw.tsv (every
# run, with the commit and the date) and build/bench/xps-tcp.log (the
# guest's whole output). Exits non-zero if the guest failed or any run
# failed (iperf3 error or timeout, zero goodput: kept in the TSV as
# status fail:WHY, never counted in a median).
#
# Usage: scripts/bench-xps-tcp.sh [vmtest options...]
#        scripts/bench-xps-tcp.sh --tables RAW.tsv   (tables from a TSV, stdout)
# Env: BENCH_TCP_RUNS (5), BENCH_TCP_SECS (3), BENCH_TCP_CELLS (globs over
# QUEUES/INTERVALms/rack-on|off, e.g. "5x/*/rack-off"; default every cell),
# BENCH_TCP_PATH (napi-thread or backlog: tests/bench/xps-tcp-guest.sh),
# BENCH_TCP_SERIES (kernel series, default 6.1), BENCH_TCP_TIMEOUT (the
# boot's timeout in s; default from the matrix).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-run.sh
. "$root/scripts/bench-run.sh"
out=$root/build/bench

# tables RAW.tsv: the markdown tables of a raw TSV (this script's output).
tables() {
	python3 - "$1" <<'PY'
import collections, statistics, sys

meta, rows, cols = {}, [], None
for line in open(sys.argv[1]):
    line = line.rstrip("\n")
    if line.startswith("#"):
        if ":" in line:
            k, v = line[1:].split(":", 1)
            meta[k.strip()] = v.strip()
        continue
    f = line.split("\t")
    if cols is None:
        cols = f
        continue
    rows.append(dict(zip(cols, f)))

MODES = ("stock", "steer", "steer-d4")
QS = ("equal", "2x", "5x")
QDESC = {"equal": "tx-0 1 ms, tx-1 1 ms", "2x": "tx-0 2 ms, tx-1 1 ms", "5x": "tx-0 5 ms, tx-1 1 ms"}
ok = [r for r in rows if r["status"] == "ok"]
bad = [r for r in rows if r["status"] != "ok"]
cell = collections.defaultdict(list)
for r in ok:
    cell[(r["rack"], r["queues"], int(r["interval_ms"]), r["mode"])].append(r)
cells = sorted({k[:3] for k in cell}, key=lambda c: (c[0] != "off", QS.index(c[1]), c[2]))


def vals(rs, k, t=float):
    return [t(r[k]) for r in rs]


def med(rs, k):
    v = vals(rs, k)
    return statistics.median(v) if v else float("nan")


def fmt(x, d=0):
    if x != x:
        return "-"
    return ("%." + str(d) + "f") % x if d or x != int(x) else "%d" % x


def ratio(a, b):
    return b / a if a else float("nan")


print("### xps_flow: forwarded TCP, the sender moving (issue 27, point 5)")
print()
print("Run `%s`, commit `%s`; generated from the raw TSV (raw/host/xps-tcp-raw.tsv of the run directory); "
      "each row's id names its cell." % (meta.get("run_id", "?"), meta.get("commit", "?")[:12]))
print()
PATHS = {
    "napi-thread": "the veth's receive runs in a threaded NAPI (GRO on vr0, TSO off on vs0 so that every segment "
                   "takes the NAPI ring): one kernel thread forwards the flow in order, as a VM's vhost thread does; "
                   "that thread and the client's threads are moved together between CPU 0 and CPU 1",
    "backlog": "the veth hands each packet to the transmitting CPU's backlog and init_net forwards it there; the "
               "client's threads are moved between CPU 0 and CPU 1, but TCP also transmits from wherever it "
               "processes ACKs, so two CPUs may forward the flow at once",
}
path = meta.get("path", "backlog")
print("iperf3 -t %s (one stream) from netns fwdsrc through a veth, forwarded by init_net onto the BQL test NIC tn0 "
      "(4 TX queues, XPS CPU 0 -> tx-0, CPU 1 -> tx-1, pfifo_fast under mq, tx_queue_len %s, MTU %s) to tn1. "
      "Path `%s`: %s; moves every 10, 50 or 250 ms (the forwarding CPU, and with it stock XPS's queue, follows). "
      "Completion delays per packet: equal = both queues 1 ms, 2x = tx-0 2 ms, 5x = tx-0 5 ms (tx-1 1 ms). "
      "RACK = net.ipv4.tcp_recovery in the sender's netns (%s). Modes: stock (no table), steer "
      "(xps_dev_flow_table_cnt 1024, hold_drains 0), steer-d4 (hold_drains 4); hold_max_ms %s. "
      "%s runs per cell and mode, the modes' order reversed every other round. Guest: %s, %s vCPUs, TCG; "
      "%s, %s."
      % (meta.get("secs", "?"), meta.get("tn0_tx_queue_len", "?"), meta.get("tn0_mtu", "?"), path,
         PATHS.get(path, "?"), meta.get("rack_scope", "?"), meta.get("hold_max_ms", "?"),
         meta.get("runs", "?"), meta.get("kernel", "?"), meta.get("cpus", "?"),
         meta.get("fwdsrc.tcp_congestion_control", "?"), meta.get("iperf3", "?")))
print()
print("Reordered, counted by the sender's IP ID (tests/bench/xps-tcp-ipid.bpf.c; a retransmission carries a new ID "
      "and does not count): **in tn0**, segments overtaken between tn0's egress hook (before the queue choice) and "
      "the far end of the wire, i.e. by the queue choice, the qdiscs and the rings: XPS's doing; *before tn0*, segments "
      "that reached tn0 already overtaken (two CPUs forwarding the flow at once, possible on the backlog path; no queue "
      "choice can undo that); *by seq*, "
      "the test NIC's wire counter (TCP sequence numbers), which counts every retransmitted segment too. "
      "Retransmits: Tcp RetransSegs of the sender's netns; SACK reorder: TcpExt TCPSACKReorder; DSACK: "
      "TCPDSACKRecv + TCPDSACKOfoRecv; held/moves/expired/collisions: xps_flow_stats, summed over the runs. "
      "Medians over the runs; goodput also min-max; x stock = median / stock's median.")
print()
for rack in ("off", "on"):
    cs = [c for c in cells if c[0] == rack]
    if not cs:
        continue
    print("#### RACK %s (tcp_recovery=%d)" % (rack, 1 if rack == "on" else 0))
    print()
    print("| id | queues | move every | mode | goodput Mbit/s median (min-max) | x stock | retransmits | SACK reorder | DSACK | "
          "reordered in tn0 median (max) | before tn0 | by seq | held | moves | expired | collisions | runs |")
    print("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for c in cs:
        base = cell.get(c + ("stock",), [])
        for m in MODES:
            rs = cell.get(c + (m,), [])
            rid = "xtcp-rack%s-%s-%dms-%s" % (c[0], c[1], c[2], m)
            if not rs:
                print("| %s | %s | %d ms | %s | no run | | | | | | | | | | | | 0 |" % (rid, c[1], c[2], m))
                continue
            g = vals(rs, "goodput_mbps")
            dsack = [int(r["dsack_recv"]) + int(r["dsack_ofo_recv"]) for r in rs]
            x = "" if m == "stock" else fmt(ratio(med(base, "goodput_mbps"), med(rs, "goodput_mbps")), 3)
            print("| %s | %s | %d ms | %s | %s (%s-%s) | %s | %s | %s | %s | %s (%s) | %s | %s | %d | %d | %d | %d | %d |"
                  % (rid, c[1], c[2], m, fmt(statistics.median(g), 1), fmt(min(g), 1), fmt(max(g), 1), x,
                     fmt(med(rs, "retrans_segs")), fmt(med(rs, "sack_reorder")), fmt(statistics.median(dsack)),
                     fmt(med(rs, "nic_reordered")), fmt(max(vals(rs, "nic_reordered"))),
                     fmt(med(rs, "pre_reordered")), fmt(med(rs, "wire_reordered_seq")),
                     sum(vals(rs, "xps_held", int)), sum(vals(rs, "xps_moves", int)),
                     sum(vals(rs, "xps_expired", int)), sum(vals(rs, "xps_collisions", int)), len(rs)))
    print()

print("#### Goals per cell")
print()
print("1. reordering in tn0 (by IP ID, from tn0's egress hook to the wire) 0 in every run with steering, where stock XPS reorders there (stock's median > 0); "
      "2. goodput median >= 1.5x stock where stock reorders with RACK off; 3. no median below 0.97x stock. "
      "Per steering mode: runs with any segment reordered / runs; goodput x stock; the goals it meets (1 2 3) or misses (!1 ...); "
      "- where a goal does not apply.")
print()
print("| id | RACK | queues | move every | stock: reordered in tn0, median (runs > 0) | steer: runs reordering in tn0 | x stock | goals | steer-d4: runs reordering in tn0 | x stock | goals |")
print("|---|---|---|---|---:|---:|---:|---|---:|---:|---|")
summary = collections.Counter()
for c in cells:
    base = cell.get(c + ("stock",), [])
    sre = med(base, "nic_reordered") if base else float("nan")
    reorders = base and sre > 0
    line = "| xtcp-goals-rack%s-%s-%dms | %s | %s | %d ms | %s (%d/%d) |" % (c[0], c[1], c[2], c[0], c[1], c[2], fmt(sre),
                                                 sum(1 for r in base if int(r["nic_reordered"]) > 0), len(base))
    for m in ("steer", "steer-d4"):
        rs = cell.get(c + (m,), [])
        if not rs or not base:
            line += " - | - | - |"
            continue
        nre = sum(1 for r in rs if int(r["nic_reordered"]) > 0)
        x = ratio(med(base, "goodput_mbps"), med(rs, "goodput_mbps"))
        goals = []
        if reorders:
            goals.append("1" if nre == 0 else "**!1**")
            summary[(m, 1, nre == 0)] += 1
        else:
            goals.append("-")
        if reorders and c[0] == "off":
            goals.append("2" if x >= 1.5 else "**!2**")
            summary[(m, 2, x >= 1.5)] += 1
        else:
            goals.append("-")
        goals.append("3" if x >= 0.97 else "**!3**")
        summary[(m, 3, x >= 0.97)] += 1
        line += " %d/%d | %s | %s |" % (nre, len(rs), fmt(x, 3), " ".join(goals))
    print(line)
print()
for m in ("steer", "steer-d4"):
    parts = []
    for gl in (1, 2, 3):
        met, miss = summary[(m, gl, True)], summary[(m, gl, False)]
        parts.append("goal %d met in %d of %d cells" % (gl, met, met + miss))
    print("- %s: %s." % (m, "; ".join(parts)))
print()

print("#### Standing backlog")
print()
print("Sampled during each run: the packets in tn0's pfifo_fast children of tx-0 and tx-1 (`tc -s qdisc`, every second), "
      "the bytes in flight on their rings (BQL's inflight) and whether BQL had stopped the queue (every 50 ms; packets "
      "then wait in the qdisc), and the rings' largest length (packets); means over the runs of the per-run means, "
      "max over the runs; busy = tc samples with a packet in either qdisc.")
print()
print("| RACK | queues | mode | qdisc tx-0 mean (max) | qdisc tx-1 mean (max) | busy % | in flight tx-0 / tx-1 KiB | BQL-stopped tx-0 / tx-1 % | ring max tx-0 / tx-1 | qdisc drops (median) | veth drops (median) |")
print("|---|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
for rack in ("off", "on"):
    for q in QS:
        for m in MODES:
            rs = [r for r in ok if r["rack"] == rack and r["queues"] == q and r["mode"] == m]
            if not rs:
                continue
            mean = lambda k: statistics.mean(vals(rs, k))
            print("| %s | %s | %s | %.1f (%d) | %.1f (%d) | %.0f | %.1f / %.1f | %.0f / %.0f | %d / %d | %s | %s |"
                  % (rack, q, m, mean("qd0_mean"), max(vals(rs, "qd0_max", int)), mean("qd1_mean"),
                     max(vals(rs, "qd1_max", int)), mean("qd_busy_pct"), mean("infl0_kb"), mean("infl1_kb"),
                     mean("bql_stopped0_pct"), mean("bql_stopped1_pct"),
                     max(vals(rs, "ring0_max", int)), max(vals(rs, "ring1_max", int)), fmt(med(rs, "qdisc_drops")),
                     fmt(med(rs, "veth_drops"))))
print()
for iv in sorted({int(r["interval_ms"]) for r in ok}):
    v = [float(r["move_ms"]) for r in ok if int(r["interval_ms"]) == iv and int(r["cpu_moves"]) > 0]
    if v:
        late = sum(int(r["moves_late"]) for r in ok if int(r["interval_ms"]) == iv)
        print("- moves every %d ms: measured %.1f ms per move on average (%.1f-%.1f over the runs); %d moves came over an interval late."
              % (iv, statistics.mean(v), min(v), max(v), late))
print()
print("Runs: %d ok, %d failed%s." % (len(ok), len(bad), "".join(
    "; run %s (%s/%sms/rack-%s %s round %s): %s" % (r["run"], r["queues"], r["interval_ms"], r["rack"], r["mode"], r["round"], r["status"])
    for r in bad)))
PY
}

if [ "${1:-}" = --tables ]; then
	tables "${2:?RAW.tsv}"
	exit
fi

mkdir -p "$out"
bench_run_start xps-tcp 0 "$@"
runs=${BENCH_TCP_RUNS:-5}
secs=${BENCH_TCP_SECS:-3}
# Bad settings are refused before a guest boots.
bad() { echo "bench-xps-tcp: $*" >&2; exit 2; }
[[ $runs =~ ^[1-9][0-9]{0,2}$ ]] || bad "BENCH_TCP_RUNS='$runs': want 1..999"
[[ $secs =~ ^[1-9][0-9]{0,2}$ ]] || bad "BENCH_TCP_SECS='$secs': want 1..999 seconds"
case ${BENCH_TCP_PATH:-napi-thread} in
napi-thread | backlog) ;;
*) bad "BENCH_TCP_PATH='$BENCH_TCP_PATH': want napi-thread or backlog" ;;
esac
series=${BENCH_TCP_SERIES:-6.1}
# 18 cells x 3 modes x runs, each run its seconds and ~12 s of setup,
# counters and drain under TCG, plus the boot.
timeout=${BENCH_TCP_TIMEOUT:-$((18 * 3 * runs * (secs + 12) + 600))}

# The IP ID classifier, for the guest (it sees the host's / read-only).
obj=$out/xps-tcp-ipid.o
clang -O2 -g -Wall -target bpf -I"/usr/include/$(gcc -print-multiarch)" \
	-c "$root/tests/bench/xps-tcp-ipid.bpf.c" -o "$obj"

commit=$(git -C "$root" rev-parse HEAD 2>/dev/null || echo unknown)
dirty=$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null | awk '{print $2}' | tr '\n' ' ')
started=$(date -u '+%Y-%m-%d %H:%M UTC')
cells=''
[ -z "${BENCH_TCP_CELLS:-}" ] || cells=" BENCH_TCP_CELLS=$(printf %q "$BENCH_TCP_CELLS")"
[ -z "${BENCH_TCP_PATH:-}" ] || cells+=" BENCH_TCP_PATH=$(printf %q "$BENCH_TCP_PATH")"
cmdline="BENCH_TCP_RUNS=$runs BENCH_TCP_SECS=$secs$cells scripts/bench-xps-tcp.sh${*:+ $*}"
genv="BENCH_TCP_RUNS=$runs BENCH_TCP_SECS=$secs BENCH_TCP_IPID_OBJ=$obj$cells"
echo "bench-xps-tcp: $started, commit $commit${dirty:+ (dirty: $dirty)}, load $(cut -d' ' -f1-3 /proc/loadavg), boot timeout $timeout s" >&2
t0=$SECONDS
rc=0
bench_vmtest main --series "$series" --cpus 2 --timeout "$timeout" "$@" \
	--shell-cmd "$genv bash tests/bench/xps-tcp-guest.sh" >"$out/xps-tcp.log" 2>&1 || rc=$?
took=$((SECONDS - t0))
grep -E '^(bench|vmtest)' "$out/xps-tcp.log" | grep -v '^bench: run ' | tail -n 20 >&2 || true

raw=$out/xps-tcp-raw.tsv
{
	echo "# bench: make bench-xps-tcp (scripts/bench-xps-tcp.sh)"
	echo "# command: $cmdline"
	echo "# run_id: $BENCH_RUN_ID"
	echo "# commit: $commit${dirty:+ dirty: $dirty}"
	echo "# started: $started"
	echo "# host: $(nproc) cores, load at the end $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "# wall_s: $took"
	echo "# vmtest_status: $rc"
	sed -n 's/^META\t\([^\t]*\)\t/# \1: /p' "$out/xps-tcp.log"
	sed -n 's/^RAW\t//p' "$out/xps-tcp.log"
} >"$raw"
bench_raw_host xps-tcp-raw.tsv "$raw"
nrows=$(grep -vc '^#' "$raw" || true)
if [ "$nrows" -le 1 ]; then
	echo "bench-xps-tcp: no run recorded (vmtest status $rc); see $out/xps-tcp.log" >&2
	exit 1
fi
{
	echo "<!-- make bench-xps-tcp, $started, commit $commit${dirty:+ (dirty: $dirty)}, $took s, vmtest status $rc -->"
	echo
	tables "$raw"
} >"$out/xps-tcp.md"
echo "bench-xps-tcp: $((nrows - 1)) runs in $took s; saved $out/xps-tcp.md and $raw" >&2
nfail=$(awk -F'\t' '!/^#/ && $1 != "run" && $9 != "ok"' "$raw" | wc -l)
if [ "$rc" -ne 0 ] || [ "$nfail" -ne 0 ]; then
	echo "bench-xps-tcp: FAILED: vmtest status $rc, $nfail failed runs:" >&2
	awk -F'\t' '!/^#/ && $9 != "ok" && $1 != "run" {print "bench-xps-tcp:   run " $1 " " $4 "/" $5 "ms/rack-" $3 " " $6 " round " $7 ": " $9}' "$raw" >&2
	exit 1
fi
# Its tables come from the raw TSV (tables above), with row ids.
cp "$out/xps-tcp.md" "$BENCH_RUN/xps-tcp.md"
bench_run_end 0
