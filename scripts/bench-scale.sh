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
# Not measured here yet: xps_flow from 1k to 1M flows (issue 13).
#
# Every run is kept: the tables have a row per count and run.
#
# Env: SCALE_MAX (default 10000), SCALE_RUNS (3), SCALE_SERIES (6.1),
# SCALE_PP (1).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/bench
max=${SCALE_MAX:-10000}
runs=${SCALE_RUNS:-3}
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

kunit_out=$root/build/kunit$([ "$series" = 6.1 ] || echo "-$series")
: >"$out/scale.log"
for ((r = 1; r <= runs; r++)); do
	echo "bench-scale: run $r of $runs: nvme_tcp_prio_scale up to $max sockets (KUnit, UML, Linux $series)" >&2
	"$root/scripts/kunit.sh" --series "$series" --timeout 3600 \
		--kernel-arg "nvme_tcp_prio_sock_test.scale_max=$max" 'nvme_tcp_prio_scale*' >&2
	grep -o 'scale: sockets=.*' "$kunit_out/test.log" | sed "s/^scale:/scale: run=$r/" >>"$out/scale.log"
done

# One row a socket count. probe: ns the engine adds per socket in its
# tracepoint probe (every state change of the socket and of its peer);
# walk: one walk of the socket tables, what the refill work does each time
# the probe found no spare entry (rescans: how often it did while the
# sockets connected; walk x rescans / sockets: that work per socket).
awk -v date="$(date -u '+%Y-%m-%d %H:%M UTC')" -v cores="$(nproc)" -v series="$series" '
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
	printf "<!-- make bench-scale, %s, %d host cores, KUnit UML kernel %s with KASAN and lockdep -->\n\n", date, cores, series
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
}' "$out/scale.log" | tee "$out/scale.md"

if [ "${SCALE_PP:-1}" != 0 ]; then
	env=""
	for v in SCALE_PP_COUNTS SCALE_PP_MB SCALE_PP_POOL; do
		[ -z "${!v:-}" ] || env+="$v='${!v}' "
	done
	echo "bench-scale: pp_frag, one sender over many sockets (guest, Linux $series)" >&2
	"$root/scripts/vmtest.sh" --series "$series" --cpus 2 --timeout 1800 \
		--shell-cmd "${env}bash tests/bench/scale-pp-guest.sh" >"$out/scale-pp.log"
	{
		echo
		echo "<!-- make bench-scale, pp_frag, $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) host cores, guest: Debian $series, 2 vCPUs TCG -->"
		echo
		grep -v -E '^(bench: |# \[|# cleanup|vmtest: |KTAP|1\.\.)' "$out/scale-pp.log"
	} | tee -a "$out/scale.md"
fi
echo "bench-scale: saved $out/scale.md" >&2
