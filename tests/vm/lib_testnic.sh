# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # W, Q, SENT... are read by the tests
#
# Helpers for guest tests that use the BQL test NIC (tests/testnic):
#   . "$XNET_SRC/tests/vm/lib_testnic.sh"   (after lib.sh)
#   tn_setup
# Constants, bounded waits, builtin file I/O, the wire/queues debugfs
# readers and the tn_send.py sender wrapper.

KO=tests/testnic/xnet_testnic
MOD=xnet_testnic
D=/sys/kernel/debug/xnet_testnic
IP=/sbin/ip
PY=/usr/bin/python3
SEND=$XNET_SRC/tests/testnic/tn_send.py
IPERF=/usr/bin/iperf3
NS=tnns

nsleep() { # SECS, no exec
	[ -n "${_sfd:-}" ] || exec {_sfd}<> <(:)
	read -r -t "$1" -u "$_sfd" _ || true
}

# wait_until SECS CMD...: poll CMD every 50 ms; 1 on timeout.
wait_until() {
	local end=$((${EPOCHREALTIME/./} + $1 * 1000000))
	shift
	until "$@"; do
		[ "${EPOCHREALTIME/./}" -lt "$end" ] || return 1
		nsleep 0.05
	done
}

# wait_pid PID SECS: true when PID ended within SECS.
wait_pid() {
	local end=$((${EPOCHREALTIME/./} + $2 * 1000000))
	while kill -0 "$1" 2>/dev/null; do
		[ "${EPOCHREALTIME/./}" -lt "$end" ] || return 1
		nsleep 0.05
	done
}

# wput FILE VALUE: builtin write of VALUE + newline; its status.
wput() { { printf '%s\n' "$2" >"$1"; } 2>/dev/null; }

# rd FILE -> R (first line)
rd() {
	R=
	read -r R <"$1" || true
}

declare -A W Q
# wire DEV -> W[key]=value
wire() {
	local k v
	W=()
	while read -r k v; do W[$k]=$v; done <"$D/$1/wire"
}

# queues DEV -> Q[txq.column]=value
queues() {
	local -a cols vals
	local i
	Q=()
	{
		read -r -a cols
		while read -r -a vals; do
			for i in "${!cols[@]}"; do Q[${vals[0]}.${cols[i]}]=${vals[i]}; done
		done
	} <"$D/$1/queues"
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

wire_diag() { # DEV LABEL
	wire "$1"
	ktap_diag "$2: packets=${W[packets]} test=${W[test]} tcp=${W[tcp]} flows=${W[flows]}" \
		"inorder=${W[inorder]} reordered=${W[reordered]} gaps=${W[gaps]}" \
		"max_dist=${W[max_dist]} delivered=${W[delivered]} peer_drops=${W[peer_drops]}"
}

# ---------------------------------------------------------------- setup
# tn_setup: the pair tn0 <-> tn1 (tn1 in netns $NS), 4 TX queues, XPS
# CPU0 -> tx-0, CPU1 -> tx-1; pfifo_fast as default qdisc; a cleanup trap
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
	load_mod $KO pairs=1 txqs=4
	{ [ -d $D/tn0 ] && [ -d $D/tn1 ]; } || fail "no debugfs dirs tn0/tn1"
	[ -d /sys/class/net/tn0/queues/tx-3 ] || fail "tn0 has no tx-3"
	$IP netns add $NS || fail "ip netns add"
	$IP link set tn1 netns $NS || fail "moving tn1 to $NS"
	[ -d $D/tn1 ] || fail "debugfs tn1 gone after the netns move"
	$IP addr add 10.99.0.1/24 dev tn0
	$IP link set tn0 up
	$IP -n $NS addr add 10.99.0.2/24 dev tn1
	$IP -n $NS link set lo up
	$IP -n $NS link set tn1 up
	wait_until 5 carrier_up tn0 || fail "tn0 has no carrier"
	local q
	for q in 0 1 2 3; do
		wput /sys/class/net/tn0/queues/tx-$q/xps_cpus $(((q < 2) * (1 << q))) ||
			fail "xps_cpus of tx-$q"
	done
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
