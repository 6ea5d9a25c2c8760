#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-scale`: how the cost grows with the number of managed objects.
# Saves markdown tables to build/bench/scale.md (and the raw lines to
# scale.log).
#
# NVMe priority: the KUnit suite nvme_tcp_prio_scale (nvprio/tests/) in the
# UML kernel of the KUnit tier, with scale_max=10000: 1, 100, 1,000 and
# 10,000 host sockets set up as nvme-tcp's, connected over loopback with the
# engine attached; the time spent in its tracepoint probe (between two
# probes of the test's own, their own cost measured with the engine
# detached and subtracted), one rules write that re-applies to all of them,
# one walk of the socket tables. That kernel runs KASAN, lockdep and debug
# objects (kunit/.kunitconfig): every time is that of a debug kernel, slower
# than a production one; the growth from row to row is what is measured.
# make check runs the same suite up to 1,000 sockets (its quick form).
#
# pp_frag: a guest of Debian's kernel of SCALE_SERIES (scripts/vmtest.sh
# --series, which builds the modules) runs tests/bench/scale-pp-guest.sh:
# one process sending over 1, 100, 1,000 and 10,000 TCP connections at
# once through one pooled veth, pool off and on (off, on, on, off); tables
# appended to scale.md, the guest's output in scale-pp.log. SCALE_PP=0
# leaves it out; SCALE_PP_COUNTS, SCALE_PP_MB and SCALE_PP_POOL go to the
# guest script.
#
# xps_flow: a guest booted under QEMU -icount (as scripts/bench-xps.sh:
# guest time = guest instructions, one CPU online) runs
# tests/bench/scale-xps-guest.sh: pktgen with 1k, 10k, 100k and 1M flows
# through a table of 2^20 entries, steering off (stock XPS) and on (off,
# on, on, off): instructions per packet, the on/off overhead, the table's
# occupancy against a uniform hash, its counters and its memory per entry.
# Tables appended to scale.md, the guest's output in scale-xps.log.
# SCALE_XPS=0 leaves it out; SCALE_XPS_FLOWS, SCALE_XPS_PKTS,
# SCALE_XPS_ROUNDS and SCALE_XPS_PERF go to the guest script. Then, on
# the host, the same flows under SCALE_XPS_SEEDS (201) seeds of the
# module's tuple key (tests/bench/scale-xps-seeds.c): the guest sees one.
#
# Every run is kept: the tables have a row per count and run.
#
# --quick (make check's form, a few minutes): the KUnit suite up to 100
# sockets once, pp_frag with 1 and 10 sockets and 4 MiB a run, xps_flow
# with 100 and 1,000 flows and 2,000-packet steady passes; tables to
# build/bench/scale-quick.md (scale.md stays as it is). Either form exits
# non-zero when a part it ran gave no table.
#
# Env: SCALE_MAX (default 10000), SCALE_RUNS (3), SCALE_SERIES (6.1),
# SCALE_KUNIT, SCALE_PP, SCALE_XPS (1: run that part; 0: leave it out).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-run.sh
. "$root/scripts/bench-run.sh"
out=$root/build/bench
quick=0
case ${1:-} in
--quick) quick=1 ;;
"") ;;
*)
	echo "usage: bench-scale.sh [--quick]" >&2
	exit 2
	;;
esac
name=scale
max=${SCALE_MAX:-10000}
runs=${SCALE_RUNS:-3}
if [ $quick = 1 ]; then
	name=scale-quick
	max=${SCALE_MAX:-100}
	runs=${SCALE_RUNS:-1}
	export SCALE_PP_COUNTS=${SCALE_PP_COUNTS:-1 10} SCALE_PP_MB=${SCALE_PP_MB:-4}
fi
series=${SCALE_SERIES:-6.1}
if ! [[ $max =~ ^[1-9][0-9]*$ ]] || [ "$max" -gt 10000 ]; then
	echo "bench-scale: SCALE_MAX must be 1..10000" >&2
	exit 2
fi
if ! [[ $runs =~ ^[1-9]$ ]]; then
	echo "bench-scale: SCALE_RUNS must be 1..9" >&2
	exit 2
fi
mkdir -p "$out"
bench_run_start scale "$quick"
md=$out/$name.md
: >"$md"
# The host is shared: each saved run says what else loaded it.
load() { cut -d' ' -f1-3 /proc/loadavg; }
# has_table FILE: true when FILE holds a markdown table row.
has_table() { grep -q '^|.*|$' "$1"; }

kunit_out=$root/build/kunit$([ "$series" = 6.1 ] || echo "-$series")
if [ "${SCALE_KUNIT:-1}" != 0 ]; then
	: >"$out/$name.log"
	for ((r = 1; r <= runs; r++)); do
		echo "bench-scale: run $r of $runs: nvme_tcp_prio_scale up to $max sockets (KUnit, UML, Linux $series)" >&2
		"$root/scripts/kunit.sh" --series "$series" --timeout 3600 \
			--kernel-arg "nvme_tcp_prio_sock_test.scale_max=$max" 'nvme_tcp_prio_scale*' >&2
		grep -o 'scale: sockets=.*' "$kunit_out/test.log" | sed "s/^scale:/scale: run=$r/" >>"$out/$name.log"
		bench_raw_host "kunit-run$r.log" "$kunit_out/test.log"
	done

	# One row a socket count. probe: ns the engine adds per socket in its
	# tracepoint probe (every state change of the socket and of its peer);
	# walk: one walk of the socket tables, what the refill work does each time
	# the probe found no spare entry (rescans: how often it did while the
	# sockets connected; walk x rescans / sockets: that work per socket).
	awk -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" -v cores="$(nproc)" -v series="$series" -v loadavg="$(load)" \
		-v cmd="make bench-scale$([ $quick = 0 ] || echo " --quick")" '
function f(k) { return v[k] + 0 }
{
	delete v
	for (i = 2; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
	n = f("sockets"); r = f("run")
	pair = f("probe_off_ns") / f("probe_off_calls")
	probe = (f("probe_on_ns") / f("probe_on_calls") - pair) * f("probe_on_calls") / n
	rows[++nr] = sprintf("| %d | %d | %.0f | %.2f | %.0f | %.2f | %d | %d | %.1f | %d | %d |",
		n, r, probe, f("rules_write_ns") / 1e6, f("rules_write_ns") / n,
		f("scan_ns") / 1e6, f("rescans"), f("nomem"),
		f("scan_ns") * f("rescans") / n / 1000, f("entry_bytes"), f("table_buckets"))
	per[r, n] = f("rules_write_ns") / n
	ms[r, n] = f("rules_write_ns") / 1e6
	pr[r, n] = probe
	runs[r] = 1
	last = n
}
END {
	printf "<!-- %s, %s, %d host cores, load average %s, KUnit UML kernel %s with KASAN and lockdep -->\n\n", cmd, date, cores, loadavg, series
	print "### NVMe priority: managed host sockets (KUnit nvme_tcp_prio_scale)\n"
	print "Host sockets set up as nvme-tcp'"'"'s, connected over loopback with the engine attached. probe: ns the engine adds"
	print "per socket in its tracepoint probe. The rules write re-applies to every socket (one write moves all of them to a new"
	print "priority). walk: one walk of the socket tables, done by the refill work each time the probe found no spare entry"
	print "(`rescans` of them while the sockets connected, `nomem` probe calls without a spare); walk x rescans per socket"
	print "is that work spread over the sockets.\n"
	print "| sockets | run | probe per socket (ns) | rules write (ms) | write per socket (ns) | walk (ms) | rescans | nomem | walk x rescans per socket (us) | entry bytes | table buckets |"
	print "|---|---|---|---|---|---|---|---|---|---|---|"
	for (i = 1; i <= nr; i++) print rows[i]
	print ""
	if (last < 10000)
		exit
	print "| run | rules write at 10,000 (ms) | goal: under 50 ms | write per socket, 10,000 / 1,000 | probe per socket, 10,000 / 1,000 |"
	print "|---|---|---|---|---|"
	for (r = 1; r in runs; r++)
		printf "| %d | %.2f | %s | %.2fx | %.2fx |\n", r, ms[r, 10000], ms[r, 10000] < 50 ? "met" : "NOT met", per[r, 10000] / per[r, 1000], pr[r, 10000] / pr[r, 1000]
	}' "$out/$name.log" >"$out/$name-kunit.md"
	has_table "$out/$name-kunit.md" || {
		echo "bench-scale: the KUnit part gave no table ($out/$name.log)" >&2
		exit 1
	}
	tee -a "$md" <"$out/$name-kunit.md"
fi

# guest_tables LOG HEADER: a guest part's tables (its diagnostics share the
# console with them) under HEADER.
guest_tables() {
	echo
	echo "$2"
	echo
	grep -v -E '^(bench: |# \[|# cleanup|vmtest: |KTAP|1\.\.)' "$1" || true
}

if [ "${SCALE_PP:-1}" != 0 ]; then
	env=""
	for v in SCALE_PP_COUNTS SCALE_PP_MB SCALE_PP_POOL; do
		[ -z "${!v:-}" ] || env+="$v='${!v}' "
	done
	echo "bench-scale: pp_frag, one sender over many sockets (guest, Linux $series)" >&2
	hdr="<!-- make bench-scale$([ $quick = 0 ] || echo " --quick"), pp_frag, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) host cores, load average $(load), guest: Debian $series, 2 vCPUs TCG -->"
	bench_vmtest pp --series "$series" --cpus 2 --timeout 1800 \
		--shell-cmd "${env}bash tests/bench/scale-pp-guest.sh" >"$out/$name-pp.log"
	guest_tables "$out/$name-pp.log" "$hdr" >"$out/$name-pp.md"
	has_table "$out/$name-pp.md" || {
		echo "bench-scale: the pp_frag part gave no table ($out/$name-pp.log)" >&2
		exit 1
	}
	tee -a "$md" <"$out/$name-pp.md"
fi

# xps_flow, in instructions: an icount boot as scripts/bench-xps.sh's
# (shift=0: 1 ns of guest time per instruction; sleep=off: idle skipped;
# one CPU online, since QEMU 7.2's -icount did not bring up the Debian
# kernel's second x86 vCPU in minutes, and pktgen sends from CPU 0 only).
if [ "${SCALE_XPS:-1}" != 0 ]; then
	icount_shift=0
	icount_spec="shift=$icount_shift,sleep=off"
	env="BENCH_QUICK=$quick BENCH_ICOUNT_SPEC=$icount_spec BENCH_ICOUNT_SHIFT=$icount_shift "
	for v in SCALE_XPS_FLOWS SCALE_XPS_PKTS SCALE_XPS_ROUNDS SCALE_XPS_PERF; do
		[ -z "${!v:-}" ] || env+="$v='${!v}' "
	done
	echo "bench-scale: xps_flow, 1k to 1M flows (icount guest, Linux $series)" >&2
	# The code measured: the checkout's commit, and whether xps_flow/ had
	# changes not committed yet (vmtest builds the working tree).
	code=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo "?")
	git -C "$root" diff --quiet HEAD -- xps_flow 2>/dev/null ||
		code+=" with uncommitted changes in xps_flow/"
	hdr="<!-- make bench-scale$([ $quick = 0 ] || echo " --quick"), xps_flow, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) host cores, load average $(load), code $code, guest: Debian $series, TCG -icount $icount_spec, 2 vCPUs, maxcpus=1 -->"
	XNET_VM_ICOUNT=$icount_spec bench_vmtest xps --series "$series" --icount \
		--cpus 2 --append maxcpus=1 --timeout 5400 \
		--shell-cmd "${env}bash tests/bench/scale-xps-guest.sh" >"$out/$name-xps.log"
	guest_tables "$out/$name-xps.log" "$hdr" >"$out/$name-xps.md"
	if ! grep -q '^### xps_flow: 1k to 1M flows' "$out/$name-xps.md" ||
		! has_table "$out/$name-xps.md"; then
		echo "bench-scale: the xps_flow part gave no table ($out/$name-xps.log)" >&2
		exit 1
	fi
	tee -a "$md" <"$out/$name-xps.md"
	# The guest saw one seed of the tuple key (drawn at module load); the
	# same flows under many seeds, on the host, with the module's own key
	# function (tests/bench/scale-xps-seeds.c).
	seeds=${SCALE_XPS_SEEDS:-201}
	[ $quick = 0 ] || seeds=${SCALE_XPS_SEEDS:-21}
	flows=${SCALE_XPS_FLOWS:-1000 10000 100000 1000000}
	[ $quick = 0 ] || flows=${SCALE_XPS_FLOWS:-100 1000}
	cc -O2 -Wall -o "$out/scale-xps-seeds" "$root/tests/bench/scale-xps-seeds.c"
	{
		echo "The same N flows (the guest's tuples) placed by xps_flow's own key function, \`xnet_xps_key_v4()\` of xps_flow/decide.h, with the table's 2^20 mask, under $seeds random seeds on the host (tests/bench/scale-xps-seeds.c): occupied slots, and the share of the N flows that share a slot with another. The guest above measured one seed. The key is a multiply-add-shift hash, linear in the tuple's 32-bit words, and the flows are a grid of ports: the spread over seeds, not the expected value, is what differs from a uniform hash."
		echo
		# shellcheck disable=SC2086 # the counts are words
		"$out/scale-xps-seeds" "$seeds" $flows
		echo
	} >"$out/$name-seeds.md"
	bench_raw_host seeds.md "$out/$name-seeds.md"
	has_table "$out/$name-seeds.md" || {
		echo "bench-scale: the xps_flow seeds table is missing" >&2
		exit 1
	}
	tee -a "$md" <"$out/$name-seeds.md"
fi
has_table "$md" || {
	echo "bench-scale: no part ran" >&2
	exit 1
}
# The KUnit table generated from the raw KUnit logs (raw/host/kunit-run*.log)
# ahead of the others, which are still the guests' and this script's (their
# raw files are saved too: raw/pp, raw/xps, raw/host/seeds.md).
python3 "$root/scripts/bench-tables.py" "$BENCH_RUN" >"$BENCH_RUN/tables.md"
{
	cat "$BENCH_RUN/tables.md"
	echo
	echo "<!-- The tables below are still the ones the guests printed or this script made (not generated from raw files by scripts/bench-tables.py). -->"
	echo
	cat "$md"
} >"$md.new"
mv "$md.new" "$md"
echo "bench-scale: saved $md" >&2
cp "$md" "$BENCH_RUN/$name.md"
bench_run_end 0
