#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 tcg=single
#
# tcg=single (as 31, 46, 52): the resize steps, the delete and the rmmod
# under traffic register and remove the hooks (ftrace on
# netdev_core_pick_tx(), the two tracepoints' static keys) while the sender
# runs that code on both vCPUs. Under QEMU 7.2's multi-threaded TCG the
# sender's vCPU once kept executing text_poke_bp()'s transient INT3 at
# netdev_core_pick_tx+0x0 while memory held the call (soft lockup, frozen
# registers, 250 s): in CI at b080d7b, and here in 1 of 4 boots running
# 30, 32 and 40 beside another guest (0 of 19 boots of 40 alone). A real
# CPU refetches the instruction.
#
# xps_flow's interface and its life cycle on live devices (multi-queue
# dummy devices: no BQL, so this checks the plumbing, not the steering):
# the files exist on multi-queue devices only (present and hot-added);
# N rounds up to a power of two; bad writes are refused with EINVAL and
# change nothing, writes without CAP_NET_ADMIN with EPERM; enable, resize
# and disable under traffic; the wrappers see every packet; a device
# without BQL is reported once; ip link del while enabled; rmmod while
# enabled under traffic (no pin: it turns the tables off and unloads);
# files gone, the device's ops never touched.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"

IP=/sbin/ip
S=/sys/class/net
cleanup() {
	! mod_loaded xps_flow || /sbin/rmmod xps_flow 2>/dev/null || true
	for d in d0 d1 s0 q0; do
		[ ! -e $S/$d ] || $IP link del $d 2>/dev/null || true
	done
}
trap cleanup EXIT

$IP link add d0 numtxqueues 4 type dummy
$IP link set d0 up
$IP link add s0 type dummy
load_mod xps_flow/xps_flow
$IP link add d1 numtxqueues 2 type dummy	# hot-added
$IP link set d1 up

for d in d0 d1; do
	[ -f $S/$d/xps_dev_flow_table_cnt ] || fail "$d: no xps_dev_flow_table_cnt"
	[ -f $S/$d/xps_flow_stats ] || fail "$d: no xps_flow_stats"
done
[ ! -e $S/s0/xps_dev_flow_table_cnt ] || fail "single-queue s0 has the file"

# Per-queue BQL counters: xps_flow/tx-N for each real TX queue (dummy has
# no BQL: both 0); a queue removed since (ethtool -L on a veth) reads ENODEV.
expect_eq "$(cd $S/d0/xps_flow && echo tx-*)" "tx-0 tx-1 tx-2 tx-3" "d0's queue dirs"
expect_eq "$(cd $S/d1/xps_flow && echo tx-*)" "tx-0 tx-1" "d1's queue dirs"
read -r head <$S/d0/xps_flow/tx-3/head
read -r tail <$S/d0/xps_flow/tx-3/tail
expect_eq "$head $tail" "0 0" "d0 tx-3 head/tail without BQL"
$IP link add q0 numtxqueues 4 numrxqueues 4 type veth peer name q1
/usr/sbin/ethtool -L q0 tx 2 rx 2 || fail "ethtool -L q0 tx 2"
read -r head <$S/q0/xps_flow/tx-1/head || fail "q0 tx-1 unreadable"
if err=$(cat $S/q0/xps_flow/tx-3/head 2>&1); then
	fail "q0 tx-3 (removed) read '$err'"
fi
[[ $err == *"No such device"* ]] || fail "q0 tx-3 (removed): '$err', want ENODEV"
$IP link del q0

cnt() { read -r CNT <"$S/$1/xps_dev_flow_table_cnt"; }
cnt d0
expect_eq "$CNT" 0 "d0 off at load"
echo 1000 >$S/d0/xps_dev_flow_table_cnt
cnt d0
expect_eq "$CNT" 1024 "1000 rounds up"
echo 1048576 >$S/d0/xps_dev_flow_table_cnt
cnt d0
expect_eq "$CNT" 1048576 "the bound itself"
echo 64 >$S/d0/xps_dev_flow_table_cnt

for v in -1 +1 abc 1048577 4294967296 " 5" 0x10 "5 " $'\n'; do
	if err=$(printf '%s' "$v" 2>&1 >$S/d0/xps_dev_flow_table_cnt); then
		fail "'$v' accepted"
	fi
	[[ $err == *"Invalid argument"* ]] || fail "'$v': '$err', want EINVAL"
	cnt d0
	expect_eq "$CNT" 64 "d0 after refused '$v'"
done
dmesg_tally "xps_flow: d0: xps_dev_flow_table_cnt:*refused"
expect_eq "$DMESG_N" 9 "one warning per refused value"

err=$(/usr/bin/setpriv --bounding-set=-net_admin --inh-caps=-net_admin \
	bash -c "echo 8 > $S/d0/xps_dev_flow_table_cnt" 2>&1) && fail "write without CAP_NET_ADMIN accepted"
[[ $err == *"Operation not permitted"* ]] || fail "without CAP_NET_ADMIN: '$err', want EPERM"
cnt d0
expect_eq "$CNT" 64 "d0 after the EPERM write"

# Traffic (AF_PACKET, 8 flows, the sender hopping between CPUs) while the
# table is resized, turned off and on again.
# sender DEV SECS [STOP]: prints the packets sent; $XNET_TMP/ready once
# bound; sends SECS seconds at most, or until the file STOP exists.
sender() {
	python3 - "$1" "$2" "$XNET_TMP/ready" "${3:-}" <<'PY'
import os, socket, struct, sys, time
s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
s.bind((sys.argv[1], 0))
open(sys.argv[3], "w").close()
end = time.time() + float(sys.argv[2])
stop = sys.argv[4]
n = 0
try:
    while time.time() < end and not (stop and os.path.exists(stop)):
        for f in range(8):
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 48, 0, 0, 64, 17, 0,
                             bytes([10, 0, 0, 1]), bytes([10, 0, 1, f]))
            s.send(b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01\x08\x00" + ip +
                   struct.pack("!HHHH", 1000 + f, 2000, 28, 0) + b"x" * 20)
            n += 1
        os.sched_setaffinity(0, {n % 2})
except OSError:
    pass  # the device went away under us: expected in one phase
print(n)
PY
}
# The sender runs until the steps are done and TAIL seconds more with the
# last table on (the steps take longer on RT and debug kernels: each write
# waits for a grace period). A debug kernel (KASAN, lockdep; XNET_KVER
# *-debug) sends a fraction of the packets per second: a longer tail, so the
# hooks still see >1000 transmits (the no-BQL warning comes at the 1000th).
TAIL=1
[[ $XNET_KVER != *debug* ]] || TAIL=8
rm -f "$XNET_TMP/ready" "$XNET_TMP/stop"
sender d0 120 "$XNET_TMP/stop" >"$XNET_TMP/sent" &
spid=$!
# Sending before the first step (python starts slowly on a debug kernel:
# the early steps, the 1-entry table among them, passed with no traffic).
nv_ready() { [ -e "$XNET_TMP/ready" ]; }
for _ in $(seq 100); do nv_ready && break; sleep 0.1; done
nv_ready || fail "sender on d0 did not start"
for sz in 4096 0 16 1 0 256; do
	echo $sz >$S/d0/xps_dev_flow_table_cnt
	sleep 0.3
done
sleep $TAIL
touch "$XNET_TMP/stop"
wait $spid
declare -A ST=()
kv_read ST $S/d0/xps_flow_stats
read -r sent <"$XNET_TMP/sent"
ktap_diag "sent $sent, stats: lookups ${ST[lookups]} recorded ${ST[recorded]} in_use ${ST[in_use]} collisions ${ST[collisions]}"
# The table is on for most of the run (4096, 16, 1 and 256 of the six
# steps, the last until the end): a share of what was sent, whatever the
# machine's speed (the debug kernel sends a fraction of the packets).
{ [ "${ST[lookups]}" -gt 0 ] && [ "${ST[lookups]}" -ge $((sent / 4)) ]; } ||
	fail "wrappers saw ${ST[lookups]} of $sent packets"
if [ "${ST[in_use]}" -lt 1 ] || [ "${ST[in_use]}" -gt 16 ]; then
	fail "in_use ${ST[in_use]}, want 1..16 (8 flows and a few kernel packets)"
fi
# 0.3 s of 8 flows in one slot (the 1-entry step): the tags see them.
[ "${ST[collisions]:-0}" -gt 0 ] || fail "no collision counted with 8 flows in a 1-entry table"
dmesg_tally "xps_flow: d0: BQL counters never move"
expect_eq "$DMESG_N" 1 "warnings about d0 without BQL"

# Device deleted while enabled and busy.
rm -f "$XNET_TMP/ready"
sender d0 3 >/dev/null &
spid=$!
for _ in $(seq 100); do nv_ready && break; sleep 0.1; done
nv_ready || fail "sender on d0 did not start"
sleep 0.3
refcnt() { read -r REFCNT </sys/module/xps_flow/refcnt; }
refcnt
expect_eq "$REFCNT" 0 "use count with steering on d0 (nothing pins the module)"
$IP link del d0
wait $spid

# The hooks are there only while a table is: the queue choice's ftrace
# handler, and the two tracepoint probes (xps_flow's in the probe list).
EF=/sys/kernel/tracing/enabled_functions
[ -e $EF ] || EF=/sys/kernel/debug/tracing/enabled_functions
hooked() { grep -q '^netdev_core_pick_tx' $EF; }
! hooked || fail "netdev_core_pick_tx() still hooked with no table on"

# rmmod with steering on d1 under traffic: every table off, the hooks
# gone, the module unloaded; files gone, traffic goes on.
echo 16 >$S/d1/xps_dev_flow_table_cnt
hooked || fail "netdev_core_pick_tx() not hooked with a table on"
rm -f "$XNET_TMP/ready"
sender d1 3 >"$XNET_TMP/sent1" &
spid=$!
for _ in $(seq 100); do nv_ready && break; sleep 0.1; done
nv_ready || fail "sender on d1 did not start"
sleep 0.3
unload_mod xps_flow
! hooked || fail "netdev_core_pick_tx() still hooked after rmmod"
wait $spid
read -r sent <"$XNET_TMP/sent1"
[ "$sent" -gt 100 ] || fail "traffic on d1 stopped ($sent packets)"
[ ! -e $S/d1/xps_dev_flow_table_cnt ] || fail "d1 still has the file after rmmod"
[ ! -e $S/d1/xps_flow ] || fail "d1 still has xps_flow/ after rmmod"
$IP link del d1
$IP link del s0
