#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2
#
# xps_flow's load-time parameter devices=name[:entries],... (name or *):
#   bad:     lists that do not parse (a name twice among them) fail the
#            load with EINVAL and one error line each, naming the item
#            and why, nothing loaded;
#   named:   loaded with e0:100,x0:1000,xr:64,s0,n0,tn0:512. e0 (4 TX
#            queues, there before the load) has its table of 128 at once,
#            o0 (not named) none, s0 (one TX queue) none and one warning,
#            the load succeeds; x0 added later gets 1024; y0 renamed to xr
#            gets 64, y1 renamed to xr with a table of its own keeps it;
#            n0 made in another namespace gets none there, and its table
#            of 4096 (the default) when moved into init_net; the BQL test
#            NIC's tn0, registered after the load, gets 512 and its
#            counters move with traffic; rmmod leaves no file;
#   all:     loaded with *:256,e0:64 and devices present: e0 64, o0 and a
#            hot-added device 256, a 4-queue veth with one real TX queue
#            and a single-queue device passed over without a word, a
#            device in another namespace none; rmmod.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_testnic.sh
. "$XNET_SRC/tests/vm/lib_testnic.sh"

S=/sys/class/net
XKO=$(mod_path xps_flow/xps_flow)
DEVS="e0 o0 s0 x0 xr y0 y1 n0 v0 h0"

xd_cleanup() {
	! mod_loaded xps_flow || /sbin/rmmod xps_flow 2>/dev/null || true
	local d
	for d in $DEVS; do
		[ ! -e "$S/$d" ] || $IP link del "$d" 2>/dev/null || true
	done
	[ ! -e /run/netns/xda ] || $IP netns del xda 2>/dev/null || true
	tn_cleanup
}
trap xd_cleanup EXIT

# cnt DEV: its table size in R (none: the file is missing).
cnt() { R=none; [ ! -e "$S/$1/xps_dev_flow_table_cnt" ] || rd "$S/$1/xps_dev_flow_table_cnt"; }
expect_cnt() { # DEV N
	cnt "$1"
	expect_eq "$R" "$2" "$1's table"
}

# ---- bad: the load fails with EINVAL, one error line, nothing loaded.
# The kernel log is read once, after the loads (reading it costs seconds
# on the debug kernel): from the marker on, one error line names each
# list, the item refused in it and why (whys[i] for bads[i]), and there
# are as many error lines as lists (none without a list).
many=$(printf 'd%d,' {1..17})
bads=('bad/name' 'x0:0' 'x0:1048577' 'x0:abc' 'x0:' 'x0:-1' 'x0:+1'
	'x0:0x10' 'x0:1:2' 'a,,b' 'x0,x0' '*,*:8' "${many%,}"
	'abcdefghijklmnop' 'y0,x0:8,y1,x0' '..' 'x0:4294967296' 'x0,')
whys=("'bad/name' not a device name" "'x0:0' out of range"
	"'x0:1048577' out of range" "'x0:abc' invalid value"
	"'x0:' empty value" "'x0:-1' sign not allowed"
	"'x0:+1' sign not allowed" "'x0:0x10' trailing characters"
	"'x0:1:2' trailing characters" "'' empty value" "'x0' duplicate key"
	"'*:8' duplicate key" "'d17' too many items"
	"'abcdefghijklmnop' not a device name" "'x0' duplicate key"
	"'..' not a device name" "'x0:4294967296' number too large"
	"'' empty value")
[ ${#bads[@]} = ${#whys[@]} ] || fail "bads and whys differ in length"
form="expected name[:entries],... (name or *, at most 16 names, each once,"
mark="xnet-test-mark: 48 bad devices= lists"
echo "<6>$mark" >/dev/kmsg
for bad in "${bads[@]}"; do
	if out=$(/sbin/insmod "$XKO" "devices=$bad" 2>&1); then
		fail "devices='$bad' was accepted"
	fi
	[[ $out == *"Invalid parameters"* ]] || fail "devices='$bad': '$out', want EINVAL"
	! mod_loaded xps_flow || fail "xps_flow loaded with devices='$bad'"
done
REF_SHOWN=("${bads[@]}") REF_WHY=()
for why in "${whys[@]}"; do REF_WHY+=("$why; $form"); done
expect_refusals "xps_flow: devices:" "$mark"

# ---- named: devices there before the load, and those that come after.
$IP link add e0 numtxqueues 4 type dummy
$IP link add o0 numtxqueues 4 type dummy
$IP link add s0 type dummy
$IP netns add xda
dmesg_tally "s0: xps_flow: devices= names it"
s0_before=$DMESG_N
load_mod xps_flow/xps_flow "devices=e0:100,x0:1000,xr:64,s0,n0,tn0:512"
rd /sys/module/xps_flow/parameters/devices
expect_eq "$R" "e0:100,x0:1000,xr:64,s0,n0,tn0:512" "the parameter read back"
expect_cnt e0 128
expect_cnt o0 0
expect_cnt s0 none
dmesg_tally "s0: xps_flow: devices= names it"
expect_eq "$DMESG_N" $((s0_before + 1)) "warnings for the single-queue s0"

$IP link add x0 numtxqueues 4 type dummy
expect_cnt x0 1024
$IP link add y0 numtxqueues 2 type dummy
expect_cnt y0 0
$IP link set y0 name xr
expect_cnt xr 64
$IP link del xr
$IP link add y1 numtxqueues 2 type dummy
wput $S/y1/xps_dev_flow_table_cnt 16 || fail "table on y1"
$IP link set y1 name xr
expect_cnt xr 16
$IP link del xr

# A container's n0 is not the initial namespace's; moved there, it is.
$IP -n xda link add n0 numtxqueues 4 type dummy
R=$($IP netns exec xda cat $S/n0/xps_dev_flow_table_cnt)
expect_eq "$R" 0 "n0's table in namespace xda"
$IP -n xda link set n0 netns 1
expect_cnt n0 4096

# The BQL test NIC registers after the load: its table is on, and its
# counters move with traffic (4 flows sent from CPU 0 and CPU 1).
tn_setup
trap xd_cleanup EXIT
expect_cnt tn0 512
send tn0 --cpus 0,1 --bursts 4 --burst 8 --flows 4
wait_until 20 wire_test_is tn0 "$SENT" || fail "wire saw ${W[test]} of $SENT"
xstats
ktap_diag "tn0: sent $SENT, lookups ${ST[lookups]} recorded ${ST[recorded]} in_use ${ST[in_use]}"
[ "${ST[lookups]}" -ge "$SENT" ] || fail "lookups ${ST[lookups]} for $SENT packets"
[ "${ST[recorded]}" -gt 0 ] || fail "no head recorded on tn0"
[ "${ST[in_use]}" -ge 1 ] || fail "no entry in use on tn0"

unload_mod xps_flow
for d in e0 x0 n0 tn0; do
	[ ! -e $S/$d/xps_dev_flow_table_cnt ] || fail "$d still has the file after rmmod"
done
/sbin/rmmod $MOD || fail "rmmod $MOD"
$IP netns del $NS
$IP link del x0
$IP link del n0

# ---- all: "*" and a name of its own; what cannot take a table is passed
# over silently.
$IP link add v0 numtxqueues 4 numrxqueues 4 type veth peer name v1
/usr/sbin/ethtool -L v0 tx 1 rx 1 || fail "ethtool -L v0 tx 1"
$IP -n xda link add e0 numtxqueues 4 type dummy
dmesg_tally "xps_flow: devices= names it"
warned=$DMESG_N
load_mod xps_flow/xps_flow 'devices=*:256,e0:64'
expect_cnt e0 64
expect_cnt o0 256
expect_cnt v0 0
expect_cnt s0 none
R=$($IP netns exec xda cat $S/e0/xps_dev_flow_table_cnt)
expect_eq "$R" 0 "e0's table in namespace xda"
$IP link add h0 numtxqueues 8 type dummy
expect_cnt h0 256
dmesg_tally "xps_flow: devices= names it"
expect_eq "$DMESG_N" "$warned" "warnings with *"
unload_mod xps_flow
[ ! -e $S/e0/xps_dev_flow_table_cnt ] || fail "e0 still has the file after rmmod"
check_taint "$TAINT_OK_DEFAULT"
