#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# What monitoring reads, on the loaded modules: /sys/module/<nvme module>/stats
# (root only, mode 0400) has the counters of the debugfs stats file; and
# tools/xnet-prometheus over the live files: promtool check metrics accepts
# its output, each module has its info line with the version, and the
# samples equal the files they came from (a multi-queue veth with a steering
# table and a pp_frag pool, quiet while read). With the modules unloaded it prints nothing.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"

IP=/sbin/ip
MODS=(nvme_tcp_prio nvmet_tcp_prio xps_flow pp_frag)
VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$XNET_SRC/dkms.conf")
PROM=$XNET_SRC/tools/xnet-prometheus
command -v promtool >/dev/null || fail "no promtool (Debian's prometheus package: make setup)"
cleanup() {
	$IP link del xm0 2>/dev/null || true
	for m in "${MODS[@]}"; do /sbin/rmmod "$m" 2>/dev/null || true; done
}
trap cleanup EXIT

for m in "${MODS[@]}"; do
	load_mod "$m/$m"
done
mountpoint -q /sys/kernel/debug || mount -t debugfs none /sys/kernel/debug

# /sys/module/<m>/stats: root only; the debugfs counters by the same names.
for m in nvme_tcp_prio nvmet_tcp_prio; do
	f=/sys/module/$m/stats
	expect_eq "$(stat -c %a "$f")" 400 "mode of $f"
	declare -A sy=() dbg=()
	kv_read sy "$f"
	kv_read dbg "/sys/kernel/debug/$m/stats"
	expect_eq "$(printf '%s\n' "${!sy[@]}" | sort | tr '\n' ' ')" \
		"$(printf '%s\n' "${!dbg[@]}" | sort | tr '\n' ' ')" "$m: names in sysfs vs debugfs"
	for k in tracked tagged reapplied restored untracked foreign nomem rescans; do
		expect_eq "${sy[$k]}" "${dbg[$k]}" "$m: $k in sysfs vs debugfs"
	done
	unset sy dbg
done

# A device of each kind: a steering table and a pool.
$IP link add xm0 numtxqueues 4 numrxqueues 4 type veth peer name xm1 numtxqueues 4 numrxqueues 4
echo 64 >/sys/class/net/xm0/xps_dev_flow_table_cnt
echo 16 >/sys/class/net/xm0/pp_frag_pool_pages
# Up for a moment (IPv6 sends a few packets through the table), then down:
# nothing moves the counters between the script's read and the test's.
$IP link set xm0 up
$IP link set xm1 up
nsleep 1
$IP link set xm0 down
$IP link set xm1 down

out=$("$PROM") || fail "xnet-prometheus: exit $?"
lint=$(promtool check metrics <<<"$out" 2>&1) || fail "promtool check metrics: $lint"
has() {	# has LINE: the output holds LINE exactly
	grep -qxF -- "$1" <<<"$out" || fail "no line '$1' in: $out"
}
for m in "${MODS[@]}"; do
	has "xnet_module_info{module=\"$m\",version=\"$VER\"} 1"
done
declare -A xs=() ps=() ns=()
kv_read xs /sys/class/net/xm0/xps_flow_stats
kv_read ps /sys/class/net/xm0/pp_frag_stats
kv_read ns /sys/module/nvmet_tcp_prio/stats
has "xnet_xps_flow_in_use{device=\"xm0\"} ${xs[in_use]}"
has "xnet_xps_flow_lookups_total{device=\"xm0\"} ${xs[lookups]}"
has "xnet_pp_frag_pages{device=\"xm0\"} ${ps[pages]}"
has "xnet_pp_frag_served_total{device=\"xm0\"} ${ps[served]}"
has "xnet_nvprio_tracked{module=\"nvmet_tcp_prio\"} ${ns[tracked]}"
has "xnet_nvprio_tagged_total{module=\"nvmet_tcp_prio\"} ${ns[tagged]}"
ktap_diag "xnet-prometheus: $(grep -c '^xnet_' <<<"$out") samples, promtool check metrics: ok"

$IP link del xm0
for m in "${MODS[@]}"; do
	unload_mod "$m"
done
out=$("$PROM") || fail "xnet-prometheus without the modules: exit $?"
[ -z "$out" ] || fail "xnet-prometheus without the modules printed: $out"
