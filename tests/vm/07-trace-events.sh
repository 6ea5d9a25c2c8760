#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=600
#
# The modules' own trace events (issue 29, point 6), each enabled in a
# tracefs instance of its own and seen during the traffic that must cause
# it, with the fields that name the device, flow or socket:
#   xps_flow   4 raw IPv4/UDP flows in a 1-entry table on the test NIC
#              (every flow's packet finds another's entry: collision), sent
#              from CPU 0 (tx-0, 1 s late), then CPU 1 (tx-1): held on tx-0
#              until hold_max_ms=100 expires them onto tx-1, then CPU 0
#              again: tx-1 has drained, they move. Each event's count is
#              the matching counter's delta in xps_flow_stats.
#   nvme       nvme_tcp_prio (so_priority=5) and nvmet_tcp_prio (rule
#              lport=4420,prio=6), then the port and a connection: tag
#              (host, listener, accepted), rule match (target: listener,
#              accepted socket once established); a host rule -> 9: rule
#              match and re-apply; rules "" and so_priority=0: re-apply,
#              restore to 0. Each module's events in its own system.
#   pp_frag    a 4-page pool on a veth under a 4 MB stream whose reader
#              waits until its queue is full: recycle misses, fallbacks
#              (full; as many as the fallback counter says), then
#              drop_caches: shrink (pages freed = shrunk).
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_testnic.sh
. "$XNET_SRC/tests/vm/lib_testnic.sh"
# shellcheck source=tests/vm/lib_nvme.sh
. "$XNET_SRC/tests/vm/lib_nvme.sh"
# shellcheck source=tests/vm/lib_pp.sh
. "$XNET_SRC/tests/vm/lib_pp.sh"

TR=/sys/kernel/tracing
EVI=$TR/instances/xnet_ev_

# ev_start NAME SYSTEM/EVENT...: a fresh tracefs instance xnet_ev_NAME
# with these events on (SYSTEM alone: all of its events). The trace
# output names the event, not its system: one instance per system where
# two have events of the same name.
ev_start() {
	local e ti=$EVI$1
	shift
	if [ ! -d $TR/instances ]; then
		/bin/mount -t tracefs nodev $TR || fail "cannot mount tracefs on $TR"
	fi
	[ ! -d "$ti" ] || rmdir "$ti" || fail "old tracefs instance $ti"
	mkdir "$ti" || fail "tracefs instance $ti"
	wput "$ti/buffer_size_kb" 2048 || fail "trace buffer size"
	for e; do
		[ -e "$ti/events/$e/enable" ] || fail "no trace event $e in $ti/events"
		wput "$ti/events/$e/enable" 1 || fail "enable $e"
	done
}

# ev_stop NAME: its events off (before the module goes), its trace kept as
# $XNET_TMP/trace.NAME, the instance removed; no event lost.
ev_stop() {
	local lost ti=$EVI$1
	wput "$ti/events/enable" 0 || fail "disable events"
	cp "$ti/trace" "$XNET_TMP/trace.$1" || fail "read $ti/trace"
	lost=$(awk '/^overrun:/ { n += $2 } END { print n + 0 }' "$ti"/per_cpu/cpu*/stats)
	rmdir "$ti" || fail "remove $ti"
	[ "$lost" -eq 0 ] || fail "$1: $lost events lost (trace buffer full)"
}

# ev_use NAME: ev_count and ev_expect read NAME's trace.
ev_use() { EVF=$XNET_TMP/trace.$1; }

# ev_cleanup: for an EXIT trap; keeps $? for the traps after it.
ev_cleanup() {
	local rc=$? ti
	for ti in "$EVI"*; do
		[ ! -d "$ti" ] || { wput "$ti/events/enable" 0; rmdir "$ti"; } || true
	done
	return $rc
}

# bt_start NAME DOC: the bpftrace example of Documentation/DOC (its first
# ```sh block that runs bpftrace, as a reader would paste it), in the
# background until bt_stop NAME; output in $XNET_TMP/bt.NAME. Not on the
# debug kernel: bpftrace's LLVM compile under KASAN and TCG takes minutes,
# and what it checks is the document, not the kernel.
bt_start() {
	local cmd out=$XNET_TMP/bt.$1
	BTPID=
	[ "${XNET_VM_CHECKERS:-0}" = 0 ] || return 0
	command -v bpftrace >/dev/null || fail "bpftrace not installed (scripts/setup.sh installs it)"
	cmd=$(awk '/^```sh$/ { on = 1; b = ""; next }
		/^```$/ { if (on && b ~ /bpftrace/) { printf "%s", b; exit } on = 0; next }
		on { b = b $0 "\n" }' "$XNET_SRC/Documentation/$2")
	[ -n "$cmd" ] || fail "no bpftrace example in Documentation/$2"
	: >"$out"
	bash -c "exec $cmd" >>"$out" 2>&1 &
	BTPID=$!
	wait_until 120 bt_attached "$out" || fail "bpftrace ($2) did not attach in 120 s: $(<"$out")"
	kill -0 "$BTPID" 2>/dev/null || fail "bpftrace ($2) exited: $(<"$out")"
}

# bt_attached OUT: bpftrace said it attached its probes, or it is gone.
bt_attached() { grep -q '^Attaching [0-9]* probe' "$1" || ! kill -0 "$BTPID" 2>/dev/null; }

# bt_stop NAME: SIGINT to the bpftrace of bt_start (it prints its maps and
# exits); the sum of the counts of the map lines matching the regex $2 in
# R (empty if bt_start did not run it).
bt_stop() {
	local out=$XNET_TMP/bt.$1
	R=
	[ -n "$BTPID" ] || return 0
	kill -INT "$BTPID"
	wait "$BTPID" || fail "bpftrace ($1) exited with $?: $(<"$out")"
	R=$(awk -v re="$2" '$0 ~ re { n += $NF } END { print n + 0 }' "$out")
}

# ev_count EVENT: lines of EVENT in EVF, in R.
ev_count() {
	R=$(grep -c ": $1: " "$EVF" || true)
}

# ev_expect EVENT REGEX WHAT: some line of EVENT in EVF has fields that
# match REGEX (extended, from a field's start); the first such line is
# shown. None: a few of EVENT's lines are.
ev_expect() {
	local l
	if ! l=$(grep -E -m 1 ": $1: (.* )?$2" "$EVF"); then
		grep -m 5 ": $1: " "$EVF" | while read -r l; do ktap_diag "$1: ${l#*: "$1": }"; done
		fail "$3: no $1 line matching '$2' (of $(grep -c ": $1: " "$EVF" || true))"
	fi
	ktap_diag "$3: ${l#*: "$1": }"
}

# ---------------------------------------------------------------- xps_flow
CNT=/sys/class/net/tn0/xps_dev_flow_table_cnt
xfl_cleanup() {
	ev_cleanup
	[ ! -e $CNT ] || wput $CNT 0 || true
	if mod_loaded xps_flow; then /sbin/rmmod xps_flow 2>/dev/null || true; fi
	tn_cleanup
}

t_xps_flow() {
	local k ifx
	local -A st0=()
	tn_setup
	trap xfl_cleanup EXIT
	for k in 0 1 2 3; do
		wait_until 5 inflight_zero tn0 $k || fail "tx-$k: stack packets still in flight"
	done
	load_mod xps_flow/xps_flow hold_max_ms=100
	wput $CNT 1 || fail "table of 1 entry"
	rd /sys/class/net/tn0/ifindex
	ifx=$R
	# tx-0 completes 1 s late, with a BQL floor above the run: every
	# packet goes to its ring at once; tx-1 drains within 1 ms.
	wput $D/tn0/tx-0/delay_us 1000000 || fail "delay_us"
	wput /sys/class/net/tn0/queues/tx-0/byte_queue_limits/limit_min 1000000 ||
		fail "tx-0 limit_min"
	wput $D/tn0/tx-1/delay_us 1000 || fail "delay_us"
	wput $D/tn0/reset 1 || fail reset
	ev_start xps_flow xps_flow/xps_flow_hold xps_flow/xps_flow_move \
		xps_flow/xps_flow_expire xps_flow/xps_flow_collision
	bt_start xps_flow xps-flow.md
	xstats
	for k in "${!ST[@]}"; do st0[$k]=${ST[$k]}; done
	send tn0 --ipv4 10.99.0.1,10.99.0.2 --flows 4 --burst 4 --bursts 8 \
		--cpus 0,1,1,1,1,1,1,0 --gap-us 50000
	ktap_diag "xps_flow: $SENT_LINE"
	wait_until 30 wire_test_is tn0 "$SENT" || fail "wire saw ${W[test]} of $SENT"
	xstats
	ev_stop xps_flow
	bt_stop xps_flow '^@held\\[tn0, 0, 1\\]: [0-9]+$'
	held_bt=$R
	grep -q '^@expired_ms\[tn0\]:' "$XNET_TMP/bt.xps_flow" 2>/dev/null || [ -z "$held_bt" ] ||
		fail "the bpftrace example printed no @expired_ms[tn0]: $(<"$XNET_TMP/bt.xps_flow")"
	ev_use xps_flow
	for k in held moves expired collisions; do ST[$k]=$((ST[$k] - ${st0[$k]:-0})); done
	ktap_diag "xps_flow_stats: held +${ST[held]} moves +${ST[moves]} expired +${ST[expired]} collisions +${ST[collisions]}"
	ev_expect xps_flow_hold "dev=tn0 ifindex=$ifx key=0x[0-9a-f]{8} old=0 proposed=1 queue=0 " "hold"
	ev_expect xps_flow_expire "dev=tn0 ifindex=$ifx key=0x[0-9a-f]{8} old=0 proposed=1 queue=1 .* held_ns=[1-9][0-9]* limit_ns=[1-9]" "expire"
	ev_expect xps_flow_move "dev=tn0 ifindex=$ifx key=0x[0-9a-f]{8} old=1 proposed=0 queue=0 " "move"
	ev_expect xps_flow_collision "dev=tn0 ifindex=$ifx key=0x[0-9a-f]{8} tag=0x([0-9a-f]{2}) other_tag=0x[0-9a-f]{2} queue=[01] " "collision"
	# Every verdict counted was traced, and only those.
	ev_count xps_flow_hold
	expect_eq "$R" "${ST[held]}" "xps_flow_hold events vs held"
	if [ -n "$held_bt" ]; then
		expect_eq "$held_bt" "${ST[held]}" "Documentation/xps-flow.md's bpftrace example: @held[tn0, 0, 1] vs held"
		ktap_diag "bpftrace example of xps-flow.md: $(grep -c '^@' "$XNET_TMP/bt.xps_flow") maps, @held[tn0, 0, 1] $held_bt"
	fi
	ev_count xps_flow_move
	expect_eq "$R" "${ST[moves]}" "xps_flow_move events vs moves"
	ev_count xps_flow_expire
	expect_eq "$R" "${ST[expired]}" "xps_flow_expire events vs expired"
	ev_count xps_flow_collision
	expect_eq "$R" "${ST[collisions]}" "xps_flow_collision events vs collisions"
	# A collision is between two flows: the tags differ.
	! grep -E ': xps_flow_collision: .* tag=(0x[0-9a-f]{2}) other_tag=\1 ' "$EVF" >/dev/null ||
		fail "a collision between equal tags"
	wput $CNT 0 || fail "table off"
	unload_mod xps_flow
}

# ---------------------------------------------------------------- nvme
t_nvme() {
	local H=$NV_HMOD T=$NV_TMOD
	nv_init
	trap 'ev_cleanup; _nv_exit_trap' EXIT
	prio_load $H so_priority=5
	prio_load $T rules=lport=4420,prio=6
	ev_start $H $H
	ev_start $T $T
	nv_target 1 $NV_T4 4420
	nv_connect $NV_T4 4420 "${NV_TNQN[1]}"
	ctrl=$NV_CTRL
	# Once established, the host's sockets know their remote port: 9 by rule.
	pp_set $H rules "raddr=10.77.0.0/24,rport=4420,prio=9"
	pp_set $H rules ""
	pp_set $H so_priority 0
	ev_stop $H
	ev_stop $T
	nv_disconnect "$ctrl" || fail "disconnect"
	# Each module's sockets in its own system only.
	ev_use $H
	ev_expect nvprio_tag "family=AF_INET role=host sport=[0-9]+ dport=4420 saddr=10\.77\.0\.1 daddr=10\.77\.0\.2 saddrv6=::ffff:10\.77\.0\.1 daddrv6=::ffff:10\.77\.0\.2 rule=-1 old=0 new=5 " "$H tag"
	ev_expect nvprio_rule_match "family=AF_INET role=host sport=[1-9][0-9]* dport=4420 .* rule=0 old=5 new=9 " "$H rule match"
	ev_expect nvprio_reapply "role=host sport=[1-9][0-9]* dport=4420 .* rule=0 old=5 new=9 " "$H re-apply (rule)"
	ev_expect nvprio_reapply "role=host .* dport=4420 .* rule=-1 old=9 new=5 " "$H re-apply (rules cleared)"
	ev_expect nvprio_restore "role=host sport=[1-9][0-9]* dport=4420 saddr=10\.77\.0\.1 daddr=10\.77\.0\.2 .* rule=-1 old=5 new=0 " "$H restore"
	! grep -E ": nvprio_[a-z_]+: .*role=(listen|accept)" "$EVF" >/dev/null ||
		fail "target sockets in $H's events"
	ev_use $T
	ev_expect nvprio_tag "family=AF_INET role=listen sport=4420 dport=0 saddr=10\.77\.0\.2 .* rule=0 old=0 new=6 " "$T listener tag"
	ev_expect nvprio_tag "family=AF_INET role=accept sport=4420 .* saddr=10\.77\.0\.2 .* rule=0 old=0 new=6 " "$T accepted tag"
	ev_expect nvprio_rule_match "role=listen sport=4420 .* rule=0 old=0 new=6 " "$T rule match"
	# Tagged at SYN_RECV before its remote end is set; matched again at
	# ESTABLISHED with both ends.
	ev_expect nvprio_rule_match "role=accept sport=4420 dport=[1-9][0-9]* saddr=10\.77\.0\.2 daddr=10\.77\.0\.1 .* rule=0 old=6 new=6 " "$T rule match (accepted, established)"
	! grep -E ": nvprio_[a-z_]+: .*role=host" "$EVF" >/dev/null ||
		fail "host sockets in $T's events"
	prio_unload $H
	prio_unload $T
}

# ---------------------------------------------------------------- pp_frag
pp_cleanup() {
	ev_cleanup
	pp_veth_cleanup
	! mod_loaded pp_frag || /sbin/rmmod pp_frag 2>/dev/null || true
}

pp_all_idle() {
	pp_flush_defer ppa 10.97.0.2
	pp_stats ppa0 ppa
	[ "${PS[in_flight]}" -eq 0 ]
}

# pp_shrunk S0: drop_caches (every shrinker) has shrunk the pool past S0.
# A pass that finds too little to scan in a pool of 4 pages defers it
# to the next: ask again until one does.
pp_shrunk() {
	wput /proc/sys/vm/drop_caches 2 || fail drop_caches
	pp_stats ppa0 ppa
	[ "${PS[shrunk]}" -gt "$1" ]
}

t_pp_frag() {
	local ifx s0 f0 freed
	trap pp_cleanup EXIT
	load_mod pp_frag/pp_frag
	pp_veth_setup
	ifx=$($IP netns exec ppa cat /sys/class/net/ppa0/ifindex) || fail "ppa0 ifindex"
	$IP netns exec ppa sh -c 'echo 4 > /sys/class/net/ppa0/pp_frag_pool_pages' ||
		fail "pool on ppa0"
	ev_start pp_frag pp_frag
	bt_start pp_frag pp-frag.md
	pp_stats ppa0 ppa
	f0=${PS[fallback]} s0=${PS[shrunk]}
	# The reader waits until its queue is full: far more than 4 pages in
	# flight, so refills find the pool at its bound.
	PP_RECV_OPTS="--hold-full 10"
	pp_xfer ppa ppb 10.97.0.2 9700 4000000
	PP_RECV_OPTS=
	ktap_diag "pp_frag: reader $(grep '^held ' "$ROUT")"
	# Idle once the receiver's deferred frees ran, then the shrinker.
	wait_until 10 pp_all_idle || fail "${PS[in_flight]} pages still in flight after the stream"
	wait_until 5 pp_shrunk "$s0" || fail "the shrinker gave nothing back"
	ev_stop pp_frag
	bt_stop pp_frag '^@\\[ppa0, 0, 4\\]: [0-9]+$'
	fb_bt=$R
	ev_use pp_frag
	ktap_diag "pp_frag_stats: fallback +$((PS[fallback] - f0)) shrunk +$((PS[shrunk] - s0)), pages ${PS[pages]}"
	ev_expect pp_frag_recycle_miss "dev=ppa0 ifindex=$ifx pages=[0-4] cap=4$" "recycle miss"
	ev_expect pp_frag_fallback "dev=ppa0 ifindex=$ifx reason=full pages=4 cap=4$" "fallback"
	ev_expect pp_frag_shrink "dev=ppa0 ifindex=$ifx freed=[1-4] want=[0-9]+ pages=[0-3]$" "shrink"
	ev_count pp_frag_fallback
	expect_eq "$R" "$((PS[fallback] - f0))" "pp_frag_fallback events vs fallback"
	if [ -n "$fb_bt" ]; then
		expect_eq "$fb_bt" "$((PS[fallback] - f0))" "Documentation/pp-frag.md's bpftrace example: @[ppa0, 0, 4] vs fallback"
		ktap_diag "bpftrace example of pp-frag.md: @[ppa0, 0, 4] $fb_bt"
	fi
	freed=$(awk '/: pp_frag_shrink: / { sub(/.*freed=/, ""); n += $1 } END { print n + 0 }' "$EVF")
	expect_eq "$freed" "$((PS[shrunk] - s0))" "pages freed in pp_frag_shrink events vs shrunk"
	$IP netns exec ppa sh -c 'echo 0 > /sys/class/net/ppa0/pp_frag_pool_pages' ||
		fail "pool off"
	pp_veth_cleanup
	unload_mod pp_frag
}

ktap_plan 3
ktap_result xps_flow t_xps_flow
ktap_result nvme t_nvme
ktap_result pp_frag t_pp_frag
ktap_finish
