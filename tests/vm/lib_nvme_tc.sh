# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # results are for the tests
#
# NVMe/TCP guest tests: packet priorities on the wire (tcc_*). Sourced by
# lib_nvme.sh, which sets NV_*, TC and IP.
#
# Packet priorities on the wire: clsact egress filters on both veth ends,
# each with a gact "continue" action of known index whose packet counter is
# read with "tc -s actions ls action gact" (a counter may sum several
# filters). skb->priority of a TCP segment is its socket's sk_priority; a
# SYN-ACK carries the listener's; RSTs sent for a packet without a socket
# come from the per-cpu control socket (priority 0), so strict NVMe counters
# exclude RST segments.
#

declare -gA TCC_IDX=() TCC_VAL=() TCC_BASE=()
declare -ga _tcc_batch_h=() _tcc_batch_t=()
_tcc_next=100

# ---------------------------------------------------------------- tc

_tc() { # SIDE ARGS...: h = host side (init_net), t = target side ($NV_NS)
	local s=$1
	shift
	if [ "$s" = t ]; then $TC -n "$NV_NS" "$@"; else $TC "$@"; fi
}
_tc_dev() { if [ "$1" = t ]; then echo "$NV_TDEV"; else echo "$NV_HDEV"; fi; }

# tcc_init: clsact on both veth ends, no counters yet.
tcc_init() {
	TCC_IDX=() TCC_VAL=() TCC_BASE=()
	_tcc_batch_h=() _tcc_batch_t=()
	_tc h qdisc add dev "$NV_HDEV" clsact || fail "tc clsact on $NV_HDEV"
	_tc t qdisc add dev "$NV_TDEV" clsact || fail "tc clsact on $NV_TDEV"
}

# tcc_add NAME SIDE PROTO MATCH: count egress packets of SIDE's veth end
# (h: host->target, t: target->host) with L3 PROTO (ip, ipv6, all) that
# match the ematch MATCH ("all": every packet). Queued: tcc_commit installs.
# Several filters may feed one NAME (summed).
tcc_add() {
	local name=$1 side=$2 proto=$3 match=$4 idx cmd
	_tcc_next=$((_tcc_next + 1))
	idx=$_tcc_next
	cmd="filter add dev $(_tc_dev "$side") egress protocol $proto pref $idx"
	if [ "$match" = all ]; then
		cmd+=" matchall"
	else
		cmd+=" basic match '$match'"
	fi
	cmd+=" action gact continue index $idx"
	if [ "$side" = t ]; then _tcc_batch_t+=("$cmd"); else _tcc_batch_h+=("$cmd"); fi
	TCC_IDX[$name]+="$side:$idx "
}

# tcc_commit: install the queued filters (one tc -batch per side).
tcc_commit() {
	local out
	if [ ${#_tcc_batch_h[@]} -gt 0 ]; then
		out=$(printf '%s\n' "${_tcc_batch_h[@]}" | _tc h -b - 2>&1) ||
			{ _dump_rows "tc:" "${_tcc_batch_h[@]}"; fail "tc filters ($NV_HDEV): $out"; }
	fi
	if [ ${#_tcc_batch_t[@]} -gt 0 ]; then
		out=$(printf '%s\n' "${_tcc_batch_t[@]}" | _tc t -b - 2>&1) ||
			{ _dump_rows "tc:" "${_tcc_batch_t[@]}"; fail "tc filters ($NV_TDEV): $out"; }
	fi
	_tcc_batch_h=() _tcc_batch_t=()
}

# tcc_read: packet counts of every counter into TCC_VAL.
tcc_read() {
	local s l idx=0 out n k i
	local -A raw=()
	for s in h t; do
		out=$(_tc "$s" -s actions ls action gact 2>&1) || fail "tc actions ($s): $out"
		while read -r l; do
			if [[ $l =~ ^index\ ([0-9]+)\  ]]; then
				idx=${BASH_REMATCH[1]}
			elif [[ $l =~ ^Sent\ [0-9]+\ bytes\ ([0-9]+)\ pkt ]]; then
				raw[$s:$idx]=${BASH_REMATCH[1]}
			fi
		done <<<"$out"
	done
	for k in "${!TCC_IDX[@]}"; do
		n=0
		for i in ${TCC_IDX[$k]}; do
			[ -n "${raw[$i]:-}" ] || fail "tc counter $k ($i) not found"
			n=$((n + raw[$i]))
		done
		TCC_VAL[$k]=$n
	done
}

# tcc_snap: read and remember as the base of tcc_delta.
tcc_snap() {
	local k
	tcc_read
	for k in "${!TCC_VAL[@]}"; do TCC_BASE[$k]=${TCC_VAL[$k]}; done
}

# tcc_delta NAME -> TCC_D: packets since tcc_snap (tcc_read first).
tcc_delta() {
	TCC_D=$((TCC_VAL[$1] - ${TCC_BASE[$1]:-0}))
}

# Ematch builders (strings for tcc_add).
em_prio() { echo "meta(priority eq $1)"; }
em_not_rst() { echo "cmp(u8 at 13 layer transport mask 0x4 eq 0)"; }
_ip4_hex() {
	local a b c d
	IFS=. read -r a b c d <<<"$1"
	printf '0x%02x%02x%02x%02x' "$a" "$b" "$c" "$d"
}
# _ip6_words ADDR -> "0xFIRST32 0xLAST32" (simple textual forms only).
_ip6_words() {
	local a=$1 head tail g=() h=() t=() n i
	if [[ $a == *::* ]]; then head=${a%%::*} tail=${a#*::}; else head=$a tail=; fi
	[ -z "$head" ] || IFS=: read -ra h <<<"$head"
	[ -z "$tail" ] || IFS=: read -ra t <<<"$tail"
	n=$((8 - ${#h[@]} - ${#t[@]}))
	g=("${h[@]}")
	for ((i = 0; i < n; i++)); do g+=(0); done
	g+=("${t[@]}")
	printf '0x%04x%04x 0x%04x%04x' $((16#${g[0]})) $((16#${g[1]})) $((16#${g[6]})) $((16#${g[7]}))
}
# em_ep ADDR PORT -> EM (match) and EM_PROTO (ip|ipv6): TCP segments to or
# from ADDR:PORT.
em_ep() {
	local a=$1 p=$2 w4 w=()
	if [[ $a == *:* ]]; then
		read -r -a w <<<"$(_ip6_words "$a")"
		EM_PROTO=ipv6
		EM="((cmp(u32 at 24 layer network eq ${w[0]}) and cmp(u32 at 36 layer network eq ${w[1]})"
		EM+=" and cmp(u16 at 2 layer transport eq $p))"
		EM+=" or (cmp(u32 at 8 layer network eq ${w[0]}) and cmp(u32 at 20 layer network eq ${w[1]})"
		EM+=" and cmp(u16 at 0 layer transport eq $p)))"
		EM+=" and cmp(u8 at 6 layer network eq 6)"
	else
		w4=$(_ip4_hex "$a")
		EM_PROTO=ip
		EM="((cmp(u32 at 16 layer network eq $w4) and cmp(u16 at 2 layer transport eq $p))"
		EM+=" or (cmp(u32 at 12 layer network eq $w4) and cmp(u16 at 0 layer transport eq $p)))"
		EM+=" and cmp(u8 at 9 layer network eq 6)"
	fi
	EM="($EM)"
}

# tcc_watch_ep NAME SIDE ADDR PORT PRIO: on SIDE's egress, counters
#   NAME      TCP segments to/from ADDR:PORT, RSTs excluded
#   NAME.p    the same with skb priority PRIO
#   NAME.pr   all segments to/from ADDR:PORT with priority PRIO, RSTs too
tcc_watch_ep() {
	local name=$1 side=$2 prio=$5
	em_ep "$3" "$4"
	tcc_add "$name" "$side" "$EM_PROTO" "$EM and $(em_not_rst)"
	tcc_add "$name.p" "$side" "$EM_PROTO" "$EM and $(em_not_rst) and $(em_prio "$prio")"
	tcc_add "$name.pr" "$side" "$EM_PROTO" "$EM and $(em_prio "$prio")"
}

# tcc_watch_side SIDE PRIO: counters SIDE.all (every packet) and SIDE.pPRIO
# (every packet with priority PRIO) of SIDE's egress.
tcc_watch_side() {
	tcc_add "$1.all" "$1" all all
	tcc_add "$1.p$2" "$1" all "$(em_prio "$2")"
}

# tcc_expect_ep NAME WHAT: since tcc_snap, NAME (watched with tcc_watch_ep)
# had packets and every non-RST one carried the priority (tcc_read first).
tcc_expect_ep() {
	local all p
	tcc_delta "$1"
	all=$TCC_D
	tcc_delta "$1.p"
	p=$TCC_D
	nv_diag "tc $1: $p of $all packets with the expected priority"
	[ "$all" -gt 0 ] || fail "$2: no packets counted on the wire"
	[ "$p" -eq "$all" ] || fail "$2: $((all - p)) of $all packets left with another priority"
}
