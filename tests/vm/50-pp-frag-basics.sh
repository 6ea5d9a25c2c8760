#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2
#
# pp_frag life cycle and input checking: pp_frag_pool_pages and
# pp_frag_stats on every device (hot-added too, removed on rmmod); bad
# writes (garbage, sign, overflow, above the bound) fail with EINVAL, one
# pr_err each, nothing changed; EPERM without CAP_NET_ADMIN; the `devices`
# parameter: bad lists (a name twice among them) refuse the load with one
# line naming the item and why, names get a pool when the device appears; a pool on one device leaves sockets on another device alone.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_pp.sh
. "$XNET_SRC/tests/vm/lib_pp.sh"

cleanup() {
	pp_veth_cleanup
	$IP link del ppx0 2>/dev/null || true
	! mod_loaded pp_frag || /sbin/rmmod pp_frag 2>/dev/null || true
}
trap cleanup EXIT

KO=$(mod_path pp_frag/pp_frag)

# Bad parameter lists: the load fails, with one line naming the list, the
# item refused in it and why (whys[i] for bads[i]), and the expected form.
# The kernel log is read once, after the loads, from a marker on. A list
# longer than the read-back buffer (383 bytes) is refused as such.
long=$(printf 'x%.0s' {1..400})
bads=('bad/name' 'lo:0' 'lo:65537' 'lo:x' 'a,b,c,d,e,f,g,h,i,j,k,l,m,n,o,p,q'
	'lo,lo:8' 'ppx0:32,ppa0,ppx0' '*' 'lo,' '..' "$long")
whys=("'bad/name' not a device name" "'lo:0' out of range"
	"'lo:65537' out of range" "'lo:x' invalid value" "'q' too many items"
	"'lo:8' duplicate key" "'ppx0' duplicate key" "'*' not a device name"
	"'' empty value" "'..' not a device name" "")
form="; expected name[:pages],... (at most 16 names, each once,"
mark="xnet-test-mark: 50 bad devices= lists"
echo "<6>$mark" >/dev/kmsg
for bad in "${bads[@]}"; do
	! /sbin/insmod "$KO" "devices=$bad" 2>/dev/null || fail "devices='${bad:0:64}' was accepted"
	! mod_loaded pp_frag || fail "pp_frag loaded with devices='${bad:0:64}'"
done
# The over-long list is shown cut at 64 bytes, with its own reason.
REF_SHOWN=() REF_WHY=()
for i in "${!bads[@]}"; do
	if [ "${bads[i]}" = "$long" ]; then
		REF_SHOWN+=("${long:0:64}...")
		REF_WHY+=("input too long (400 bytes, at most 383)")
	else
		REF_SHOWN+=("${bads[i]}")
		REF_WHY+=("${whys[i]}$form")
	fi
done
expect_refusals "pp_frag: devices:" "$mark"

load_mod pp_frag/pp_frag devices=ppx0:32,ppa0,ppm0:8
rd /sys/module/pp_frag/parameters/devices
expect_eq "$R" "ppx0:32,ppa0,ppm0:8" "the parameter read back"
F=/sys/class/net/lo/pp_frag_pool_pages
{ [ -f "$F" ] && [ -f /sys/class/net/lo/pp_frag_stats ]; } || fail "no pp_frag files on lo"
pp_pages lo
expect_eq "$R" 0 "lo's pool at load"

# Bad writes: EINVAL, one pr_err, the value unchanged.
wput "$F" 16 || fail "enable lo"
for bad in abc -1 65537 99999999999999999999 $'\n' ' 1 2' 0x10; do
	dmesg_count "pp_frag_pool_pages: '"
	before=$DMESG_N
	err=$( { printf '%s' "$bad" >"$F"; } 2>&1) && fail "'$bad' accepted"
	[[ $err == *"Invalid argument"* ]] || fail "'$bad': '$err', want EINVAL"
	dmesg_count "pp_frag_pool_pages: '"
	expect_eq "$DMESG_N" $((before + 1)) "pr_err lines after '$bad'"
	pp_pages lo
	expect_eq "$R" 16 "lo's pool after '$bad'"
done
err=$(/usr/bin/setpriv --bounding-set=-net_admin --inh-caps=-net_admin \
	/bin/bash -c "echo 0 > $F" 2>&1) && fail "write without CAP_NET_ADMIN accepted"
[[ $err == *"Operation not permitted"* ]] || fail "without CAP_NET_ADMIN: '$err', want EPERM"
pp_pages lo
expect_eq "$R" 16 "lo's pool after the EPERM write"
wput "$F" 65536 || fail "the bound itself"
wput "$F" 0 || fail "disable lo"
pp_stats lo
expect_eq "${PS[pages]}" 0 "pages of a disabled pool"

# `devices`: a device named there gets its pool when it appears.
$IP link add ppx0 type dummy || fail "dummy ppx0"
pp_pages ppx0
expect_eq "$R" 32 "ppx0's pool from devices=ppx0:32"
$IP link del ppx0
# ... or moves into the initial namespace (none in its namespace before).
$IP netns add ppm
$IP -n ppm link add ppm0 type dummy || fail "dummy ppm0 in ppm"
R=$($IP netns exec ppm cat /sys/class/net/ppm0/pp_frag_pool_pages)
expect_eq "$R" 0 "ppm0's pool in namespace ppm"
$IP -n ppm link set ppm0 netns 1 || fail "move ppm0 into init_net"
pp_pages ppm0
expect_eq "$R" 8 "ppm0's pool after its move into init_net (devices=ppm0:8)"
$IP link del ppm0
$IP netns del ppm

# `devices` names devices of the initial namespace only: ppa0, created in
# namespace ppa, gets none. A pool on ppa0 (256 pages, set by hand) serves
# sockets routed over ppa0 only: a transfer over lo leaves it, and lo,
# untouched.
pp_veth_setup
R=$($IP netns exec ppa cat /sys/class/net/ppa0/pp_frag_pool_pages)
expect_eq "$R" 0 "pool of ppa0 in namespace ppa (devices=ppa0 is for init_net)"
$IP netns exec ppa sh -c 'echo 256 > /sys/class/net/ppa0/pp_frag_pool_pages' ||
	fail "pool on ppa0"
$IP link set lo up
pp_xfer "" "" 127.0.0.1 9500 4000000
pp_global
expect_eq "${PG[pages_owned]}" 0 "pool pages after a transfer on lo (no pool there)"
pp_stats lo
expect_eq "${PS[served]}" 0 "lo served"
pp_xfer ppa ppb 10.97.0.2 9501 4000000
pp_global
[ "${PG[pages_owned]}" -gt 0 ] || fail "a transfer over ppa0 drew no pool page"
ktap_diag "after 4 MB over ppa0: pages_owned ${PG[pages_owned]}"

# rmmod: the files go, every pool page is let go.
unload_mod pp_frag
[ ! -e "$F" ] || fail "$F left after rmmod"
[ ! -e /sys/kernel/debug/pp_frag ] || fail "debugfs dir left after rmmod"
check_taint "$TAINT_OK_DEFAULT"
