# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # W, Q, SENT... are read by the tests
#
# Helpers for guest tests that use the BQL test NIC (tests/testnic):
#   . "$XNET_SRC/tests/vm/lib_testnic.sh"   (after lib.sh)
#   tn_setup
# Constants, the wire/queues debugfs readers and the tn_send.py sender
# wrapper.

KO=tests/testnic/xnet_testnic
MOD=xnet_testnic
D=/sys/kernel/debug/xnet_testnic
IP=/sbin/ip
PY=/usr/bin/python3
SEND=$XNET_SRC/tests/testnic/tn_send.py
IPERF=/usr/bin/iperf3
NS=tnns
# tn0's pp_frag knobs: the DMA opt-in (debugfs) and the pool (sysfs).
OPTIN=$D/tn0/dma_optin
POOLF=/sys/class/net/tn0/pp_frag_pool_pages

declare -A W Q
# wire DEV -> W[key]=value
wire() { kv_read W "$D/$1/wire"; }

# queues DEV -> Q[txq.column]=value
# (Read whole, as kv_read does, and for the same reason.)
queues() {
	local -a cols vals lines
	local i l
	Q=()
	mapfile -t lines <"$D/$1/queues"
	read -r -a cols <<<"${lines[0]}"
	for l in "${lines[@]:1}"; do
		read -r -a vals <<<"$l"
		for i in "${!cols[@]}"; do Q[${vals[0]}.${cols[i]}]=${vals[i]}; done
	done
}

carrier_up() { # DEV
	rd "/sys/class/net/$1/carrier"
	[ "$R" = 1 ]
}

inflight_zero() { # DEV QUEUE
	rd "/sys/class/net/$1/queues/tx-$2/byte_queue_limits/inflight"
	[ "$R" = 0 ]
}

gone() { [ ! -e "$1" ]; }

iperf_ok() { # ADDR PORT
	timeout 10 $IPERF -c "$1" -p "$2" -t 1 >/dev/null 2>&1
}

wire_has() { # DEV COUNTER...: every COUNTER of DEV's wire is > 0
	local c
	wire "$1"
	shift
	for c in "$@"; do [ "${W[$c]}" -gt 0 ] || return 1; done
}

wire_test_is() { # DEV N: the wire saw N test-header packets
	wire "$1"
	[ "${W[test]}" -eq "$2" ]
}

wire_test_ge() { # DEV N: the wire saw at least N test-header packets
	wire "$1"
	[ "${W[test]}" -ge "$2" ]
}

set_delays() { # DEV US: every TX queue
	local q
	for q in "$D/$1"/tx-*; do wput "$q/delay_us" "$2" || fail "$q/delay_us=$2"; done
}

# send ARGS...: run tn_send.py, its summary line in SENT_LINE, sent count in SENT
send() {
	local out
	out=$($PY "$SEND" "$@" 2>&1) || fail "tn_send.py $*: $out"
	SENT_LINE=${out##*$'\n'}
	SENT=${SENT_LINE#sent=}
	SENT=${SENT%% *}
}

# xstats: tn0's xps_flow_stats into ST[key].
declare -A ST=()
xstats() { kv_read ST /sys/class/net/tn0/xps_flow_stats; }

# dma [DEV]: DEV's (tn0) DMA counters into DM[key].
declare -A DM=()
dma() { kv_read DM "$D/${1:-tn0}/dma"; }

# mapped_idle [DEV]: every DMA map of DEV undone (nothing on the rings).
mapped_idle() { dma "${1:-tn0}"; [ "${DM[maps]}" -eq "${DM[unmaps]}" ]; }
# pci_find VENDOR DEVICE: R = the address (DDDD:BB:DD.F) of the first PCI
# device with these IDs (e.g. 0x1234 0x11e8: QEMU's edu, the driverless
# device the test NIC maps for with dma_pci=, behind a virtual IOMMU).
pci_find() {
	local d v id
	for d in /sys/bus/pci/devices/*; do
		[ -e "$d/vendor" ] || continue
		read -r v <"$d/vendor"
		read -r id <"$d/device"
		if [ "$v" = "$1" ] && [ "$id" = "$2" ]; then
			R=${d##*/}
			return 0
		fi
	done
	return 1
}

wire_diag() { # DEV LABEL
	wire "$1"
	ktap_diag "$2: packets=${W[packets]} test=${W[test]} tcp=${W[tcp]} flows=${W[flows]}" \
		"inorder=${W[inorder]} reordered=${W[reordered]} gaps=${W[gaps]}" \
		"max_dist=${W[max_dist]} delivered=${W[delivered]} peer_drops=${W[peer_drops]}"
}

# ---------------------------------------------------------------- setup
# tn_setup: the pair tn0 <-> tn1 (tn1 in netns $NS), 4 TX queues, XPS
# CPU0 -> tx-0, CPU1 -> tx-1, IPv4 only; pfifo_fast as default qdisc; a cleanup trap
# that leaves the guest as found for the tests that share this boot.
tn_cleanup() {
	if mod_loaded $MOD; then /sbin/rmmod $MOD 2>/dev/null || true; fi
	[ ! -e /run/netns/$NS ] || $IP netns del $NS 2>/dev/null || true
	[ ! -e /run/netns/tnns2 ] || $IP netns del tnns2 2>/dev/null || true
	wput /proc/sys/net/core/default_qdisc "$TN_QDISC0" || true
}

tn_setup() {
	rd /proc/sys/net/core/default_qdisc
	TN_QDISC0=$R
	trap tn_cleanup EXIT
	# pfifo_fast under mq: fq_codel (Debian's default) may drop packets held
	# back for tens of ms, and every sent test packet must reach the wire.
	wput /proc/sys/net/core/default_qdisc pfifo_fast || fail "default_qdisc"
	! mod_loaded $MOD || fail "$MOD already loaded"
	# shellcheck disable=SC2086 # TN_PARAMS: more module parameters
	load_mod $KO pairs=1 txqs=4 ${TN_PARAMS:-}
	{ [ -d $D/tn0 ] && [ -d $D/tn1 ]; } || fail "no debugfs dirs tn0/tn1"
	[ -d /sys/class/net/tn0/queues/tx-3 ] || fail "tn0 has no tx-3"
	$IP netns add $NS || fail "ip netns add"
	$IP link set tn1 netns $NS || fail "moving tn1 to $NS"
	[ -d $D/tn1 ] || fail "debugfs tn1 gone after the netns move"
	# XPS maps before the links go up: the first map flips the kernel's
	# xps_needed static key, i.e. rewrites netdev_pick_tx()'s text. With
	# tn0/tn1 up, their MLD reports run that code on the other vCPU, and
	# QEMU 7.2's multi-threaded TCG once kept that vCPU on a stale
	# translation for good (soft lockup at netdev_pick_tx+0x5b, a jump-label
	# site, with the same registers in every report; cf. tests/vm/52).
	local q
	for q in 0 1 2 3; do
		wput /sys/class/net/tn0/queues/tx-$q/xps_cpus $(((q < 2) * (1 << q))) ||
			fail "xps_cpus of tx-$q"
	done
	# No IPv6 on the pair, from before the links go up: no test sends IPv6
	# over it (51's runs on a veth), and the stack's neighbour discovery and
	# MLD reports would be packets on a wire that counts every packet, and
	# flows in xps_flow's table that may collide with a test's.
	wput /proc/sys/net/ipv6/conf/tn0/disable_ipv6 1 || fail "disable_ipv6 on tn0"
	$IP netns exec $NS /bin/sh -c 'echo 1 >/proc/sys/net/ipv6/conf/tn1/disable_ipv6' ||
		fail "disable_ipv6 on tn1"
	$IP addr add 10.99.0.1/24 dev tn0
	$IP link set tn0 up
	$IP -n $NS addr add 10.99.0.2/24 dev tn1
	$IP -n $NS link set lo up
	$IP -n $NS link set tn1 up
	wait_until 5 carrier_up tn0 || fail "tn0 has no carrier"
}

# tn_fwd_setup SRC: a sender namespace SRC (vs0, 10.98.0.2) joined to
# init_net (vr0, 10.98.0.1) by a veth pair and routed through init_net,
# which forwards onto tn0, to tn1 (10.99.0.2 in $NS). Call after tn_setup;
# the caller deletes SRC.
tn_fwd_setup() {
	$IP netns add "$1" || fail "ip netns add $1"
	$IP link add vr0 type veth peer name vs0 netns "$1" || fail "veth vr0/vs0"
	$IP addr add 10.98.0.1/24 dev vr0
	$IP link set vr0 up
	$IP -n "$1" addr add 10.98.0.2/24 dev vs0
	$IP -n "$1" link set vs0 up
	$IP -n "$1" link set lo up
	$IP -n "$1" route add default via 10.98.0.1
	$IP -n $NS route add 10.98.0.0/24 via 10.99.0.1
	wput /proc/sys/net/ipv4/ip_forward 1 || fail "ip_forward"
}

# ---------------------------------------------------------------- testpmd
# DPDK testpmd (Debian's dpdk-dev, 22.11) with net_af_packet ports on the
# test NIC. EAL dlopens every PMD of its plugin directory (256 libraries
# with their dependencies: ~25 s per start under TCG over 9p);
# tp_plugins_min hides that directory behind one holding only the three
# plugins used here. It mounts, so it refuses to run outside a private
# mount namespace (start the test under "unshare -m"): the mounts vanish
# with the test.
TP=/usr/bin/dpdk-testpmd
TP_PMDS=/usr/lib/x86_64-linux-gnu/dpdk/pmds-23.0
TP_ALL=/mnt/xnet-dpdk/all

tp_plugins_min() {
	local self init
	self=$(readlink /proc/self/ns/mnt)
	init=$(readlink /proc/1/ns/mnt)
	[ "$self" != "$init" ] || fail "tp_plugins_min: not in a private mount namespace"
	[ -x $TP ] || fail "$TP missing (Debian package dpdk-dev; scripts/setup.sh)"
	/bin/mount -t tmpfs -o mode=755 xnet-dpdk /mnt || fail "tmpfs on /mnt"
	/bin/mkdir -p $TP_ALL /mnt/xnet-dpdk/min
	/bin/mount --bind $TP_PMDS $TP_ALL || fail "bind $TP_PMDS"
	/bin/ln -s $TP_ALL/librte_{net_af_packet,mempool_ring,bus_vdev}.so.23.0 /mnt/xnet-dpdk/min/
	/bin/mount --bind /mnt/xnet-dpdk/min $TP_PMDS || fail "bind over $TP_PMDS"
}

# tp_start OUT EAL-AND-APP-ARGS...: start testpmd (non-interactive, main
# lcore on CPU 0, one forwarding lcore starting on CPU 1; stdout line
# buffered; its stdin is a fifo held open by this shell, closing it makes
# testpmd stop and print its statistics). Waits until forwarding runs
# ("Press enter to exit"): TP_PID, TP_TID (the forwarding lcore's thread).
tp_ready() {
	local t c
	kill -0 "$TP_PID" 2>/dev/null || return 0 # tp_start reports it
	[[ $(<"$TP_OUT") == *"Press enter to exit"* ]] || return 1
	for t in /proc/"$TP_PID"/task/*; do
		read -r c 2>/dev/null <"$t/comm" || continue
		[ "$c" != rte-worker-1 ] || TP_TID=${t##*/}
	done
	[ -n "$TP_TID" ]
}

tp_start() {
	TP_OUT=$1
	shift
	: >"$TP_OUT"
	[ -p "$XNET_TMP/tp.in" ] || /usr/bin/mkfifo "$XNET_TMP/tp.in"
	LD_LIBRARY_PATH=$TP_ALL /usr/bin/stdbuf -oL $TP --no-huge -m 32 --no-pci \
		--no-telemetry --no-shconf -l 0,1 "$@" <"$XNET_TMP/tp.in" >"$TP_OUT" 2>&1 &
	TP_PID=$!
	exec {TP_FD}>"$XNET_TMP/tp.in"
	TP_TID=''
	if ! wait_until 60 tp_ready || ! kill -0 "$TP_PID" 2>/dev/null; then
		exec {TP_FD}>&-
		wait_pid "$TP_PID" 10 || kill "$TP_PID"
		fail "testpmd did not start forwarding: $(<"$TP_OUT")"
	fi
}

# tp_stop: end testpmd (stop first every background process started after
# tp_start: they hold the fifo open too); TPS[port.RX-packets], TPS[port.TX-dropped], ...
declare -A TPS
tp_stop() {
	local port='' k v
	local -a fld
	exec {TP_FD}>&-
	if ! wait_pid "$TP_PID" 30; then
		local wchan='?'
		[ -z "$TP_TID" ] || read -r wchan <"/proc/$TP_PID/task/$TP_TID/wchan" || true
		kill "$TP_PID"
		fail "testpmd did not exit (forwarding lcore in '$wchan')"
	fi
	wait "$TP_PID" || fail "testpmd exit status $?: $(<"$TP_OUT")"
	TPS=()
	while read -r -a fld; do
		if [[ ${fld[*]} == *"Forward statistics for port"* ]]; then
			port=${fld[5]}
		elif [ -n "$port" ] && [[ ${fld[0]:-} == [RT]X-packets: ]]; then
			for k in 0 2 4; do
				v=${fld[k]%:}
				TPS[$port.$v]=${fld[k + 1]}
			done
		elif [[ ${fld[0]:-} == ++++* ]]; then
			port=''
		fi
	done <"$TP_OUT"
}

# TP_MOVER: python -c script, argument TID: moves thread TID between CPU 0
# and CPU 1 every 200 ms while /proc/TID exists or until SIGTERM; prints
# "moving" once its SIGTERM handler is in place, at the end
# "moves=N cpus_seen=LIST" (the CPUs TID was seen running on).
TP_MOVER='
import os, signal, sys, time
tid = int(sys.argv[1]); moves = 0; seen = set(); err = ""
signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))
print("moving", flush=True)
def cpu():
    with open("/proc/%d/stat" % tid) as f:
        return int(f.read().rsplit(")", 1)[1].split()[36])
try:
    while True:
        os.sched_setaffinity(tid, {moves % 2})
        moves += 1
        time.sleep(0.2)
        seen.add(cpu())
except OSError as e:
    err = " (%s)" % e
except SystemExit:
    pass
print("moves=%d cpus_seen=%s%s" % (moves, ",".join(map(str, sorted(seen))), err))
'
