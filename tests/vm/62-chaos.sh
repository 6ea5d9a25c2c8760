#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 mem=1536 timeout=900
#
# Chaos, bounded (CHAOS_STEPS steps, CHAOS_SECS seconds; the seed is
# printed, and XNET_CHAOS_SEED in the test's environment replays it). Traffic all along:
#   - TCP: two checksummed streams (pp_stream.py, sha256), one over the
#     BQL test NIC tn0 -> tn1 (netns tnns), one over a 4-queue veth
#     vc0 -> vc1 (netns chv);
#   - UDP and AF_PACKET: test-header senders on tn0 (tn_send.py);
#   - NVMe/TCP: fio write+verify (crc32c) rounds on a controller connected
#     over veth nvh0 -> nvt0 (netns tgt), a memory-backed null_blk behind.
# Random steps meanwhile, valid and invalid values alike: every module
# parameter and sysfs knob of the four modules (xps tables on tn0/vc0,
# hold_max_ms, pools on tn0/vc0/nvh0, so_priority and rules of both NVMe
# modules); ethtool -L on vc0; veth pairs added and deleted (with tables and
# pools on them); network namespaces created (a veth end moved in) and
# destroyed; rmmod/insmod of each of xps_flow, pp_frag, nvme_tcp_prio and
# nvmet_tcp_prio. An invalid value must be refused, a refused write must
# change nothing. Pass: no checker report (the harness: KASAN, lockdep,
# kmemleak ... on the debug kernel), both streams intact, every fio round
# verified, every pool page given back (pp_frag's pages_owned and orphans
# 0), the NVMe sockets back at their original priority, and the kernel's
# count of allocated TCP sockets back where it was before the test.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_testnic.sh
. "$XNET_SRC/tests/vm/lib_testnic.sh"
# shellcheck source=tests/vm/lib_pp.sh
. "$XNET_SRC/tests/vm/lib_pp.sh"
# shellcheck source=tests/vm/lib_nvme.sh
. "$XNET_SRC/tests/vm/lib_nvme.sh"

STEPS=${CHAOS_STEPS:-100}
SECS=${CHAOS_SECS:-40}
SEED=${XNET_CHAOS_SEED:-$((${EPOCHREALTIME/./} % 1000000))}
RANDOM=$SEED
STOP=$XNET_TMP/chaos.stop
MODS=(xps_flow pp_frag nvme_tcp_prio nvmet_tcp_prio)
declare -A MODKO=([xps_flow]=xps_flow/xps_flow [pp_frag]=pp_frag/pp_frag
	[nvme_tcp_prio]=nvme_tcp_prio/nvme_tcp_prio [nvmet_tcp_prio]=nvmet_tcp_prio/nvmet_tcp_prio)
declare -A DID=()
BAD=()

# sockets the kernel has allocated (TCP, both families: one counter)
tcp_alloc() {
	local w
	R=
	while read -r -a w; do
		if [ "${w[0]}" = TCP: ]; then R=${w[4]}; fi
	done </proc/net/sockstat
	[ -n "$R" ] || fail "no TCP line in /proc/net/sockstat"
}

pick() { # VALUE... -> R: one of them at random
	local n=$#
	shift $((RANDOM % n))
	R=$1
}

# knob FILE VALID... -- INVALID...: write one value at random; an invalid
# one must be refused and leave the value as it was.
knob() {
	local kf=$1 v before after valid=() invalid=() inv=0
	shift
	while [ $# -gt 0 ] && [ "$1" != -- ]; do valid+=("$1"); shift; done
	[ $# -eq 0 ] || shift
	invalid=("$@")
	[ -w "$kf" ] || { DID[absent]=$((${DID[absent]:-0} + 1)); return 0; }
	if [ ${#invalid[@]} -gt 0 ] && [ $((RANDOM % 3)) -eq 0 ]; then
		pick "${invalid[@]}"
		inv=1
	else
		pick "${valid[@]}"
	fi
	v=$R
	read -r before <"$kf" 2>/dev/null || before=
	if wput "$kf" "$v"; then
		[ $inv -eq 0 ] || BAD+=("$kf accepted invalid '$v'")
		DID[write]=$((${DID[write]:-0} + 1))
	else
		read -r after <"$kf" 2>/dev/null || after=
		[ "$after" = "$before" ] || BAD+=("$kf: refused '$v' but changed '$before' -> '$after'")
		DID[refused]=$((${DID[refused]:-0} + 1))
	fi
}

step_param() {
	case $((RANDOM % 9)) in
	0 | 1)
		pick "${tabdevs[@]}"
		knob "/sys/class/net/$R/xps_dev_flow_table_cnt" 0 1 16 1024 4096 -- -1 abc 1048577 ''
		;;
	2) knob /sys/module/xps_flow/parameters/hold_max_ms 0 1 100 1000 8000 -- 8001 -5 x 1.5 ;;
	3 | 4)
		pick "${pooldevs[@]}"
		knob "/sys/class/net/$R/pp_frag_pool_pages" 0 16 256 1024 -- -1 65537 z ''
		;;
	5) knob /sys/module/nvme_tcp_prio/parameters/so_priority 0 3 6 4294967295 -- -1 4294967296 p ;;
	6)
		knob /sys/module/nvme_tcp_prio/parameters/rules "" "rport=4420,prio=3" \
			"raddr=10.77.0.0/24,prio=5;prio=2" "laddr=10.77.0.1,prio=0" -- \
			"bad=1,prio=2" "prio=" "raddr=10.77.0.0/33,prio=1" "rport=70000,prio=1"
		;;
	7) knob /sys/module/nvmet_tcp_prio/parameters/so_priority 0 4 7 -- -2 x ;;
	8)
		knob /sys/module/nvmet_tcp_prio/parameters/rules "" "lport=4420,prio=6" \
			"raddr=10.77.0.1,prio=2;lport=*,prio=1" -- "lport=,prio=1" "prio=1;;" "foo"
		;;
	esac
	return 0
}

step_channels() {
	local n=$((1 + RANDOM % 4))
	if /usr/sbin/ethtool -L vc0 tx $n rx $n 2>/dev/null; then
		DID[channels]=$((${DID[channels]:-0} + 1))
	fi
	return 0
}

NCH=0
step_device() {
	local n
	if [ ${#chdevs[@]} -gt 0 ] && [ $((RANDOM % 2)) -eq 0 ]; then
		pick "${chdevs[@]}"
		$IP link del "$R" 2>/dev/null || true
		local keep=() d
		for d in "${chdevs[@]}"; do
			if [ "$d" != "$R" ]; then keep+=("$d"); fi
		done
		chdevs=("${keep[@]}")
		DID[dev_del]=$((${DID[dev_del]:-0} + 1))
		return 0
	fi
	NCH=$((NCH + 1))
	n=ch$NCH
	$IP link add "$n" numtxqueues 2 numrxqueues 2 type veth peer name "${n}p" \
		numtxqueues 2 numrxqueues 2 || return 0
	$IP link set "$n" up
	$IP link set "${n}p" up
	chdevs+=("$n")
	if [ $((RANDOM % 2)) -eq 0 ]; then
		wput "/sys/class/net/$n/xps_dev_flow_table_cnt" 64 || true
	fi
	if [ $((RANDOM % 2)) -eq 0 ]; then
		wput "/sys/class/net/$n/pp_frag_pool_pages" 16 || true
	fi
	DID[dev_add]=$((${DID[dev_add]:-0} + 1))
}

NNS=0
step_netns() {
	local ns d
	if [ ${#chns[@]} -gt 0 ] && [ $((RANDOM % 2)) -eq 0 ]; then
		pick "${chns[@]}"
		$IP netns del "$R" 2>/dev/null || true
		local keep=()
		for d in "${chns[@]}"; do
			if [ "$d" != "$R" ]; then keep+=("$d"); fi
		done
		chns=("${keep[@]}")
		DID[ns_del]=$((${DID[ns_del]:-0} + 1))
		return 0
	fi
	NNS=$((NNS + 1))
	ns=chns$NNS
	$IP netns add "$ns" || return 0
	chns+=("$ns")
	# A veth end of a chaos pair goes with it (and dies with it).
	if [ ${#chdevs[@]} -gt 0 ]; then
		pick "${chdevs[@]}"
		if [ -e "/sys/class/net/${R}p" ]; then
			$IP link set "${R}p" netns "$ns" 2>/dev/null || true
		fi
	fi
	DID[ns_add]=$((${DID[ns_add]:-0} + 1))
	return 0
}

step_module() {
	local m
	pick "${MODS[@]}"
	m=$R
	if mod_loaded "$m"; then
		# Sometimes the xps_flow tables off first, sometimes rmmod with them on.
		if [ "$m" = xps_flow ] && [ $((RANDOM % 2)) -eq 0 ]; then
			for d in /sys/class/net/*/xps_dev_flow_table_cnt; do wput "$d" 0 || true; done
		fi
		if /sbin/rmmod "$m" 2>/dev/null; then
			DID[rmmod]=$((${DID[rmmod]:-0} + 1))
		else
			DID[rmmod_busy]=$((${DID[rmmod_busy]:-0} + 1))
		fi
	else
		case $m in
		nvme_tcp_prio) load_mod "${MODKO[$m]}" so_priority=$((RANDOM % 7)) ;;
		nvmet_tcp_prio) load_mod "${MODKO[$m]}" "rules=lport=4420,prio=$((1 + RANDOM % 6))" ;;
		*) load_mod "${MODKO[$m]}" ;;
		esac
		DID[insmod]=$((${DID[insmod]:-0} + 1))
	fi
	return 0
}

# fio write+verify rounds on DEV until STOP; the round count or "FAIL".
fio_rounds() {
	local n=0 out
	while [ ! -e "$STOP" ]; do
		if ! out=$(/usr/bin/fio --name=chaos --filename="$1" --rw=randwrite --bs=4k \
			--size=4M --direct=1 --ioengine=psync --verify=crc32c \
			--do_verify=1 --randseed=$((SEED + n)) 2>&1); then
			printf 'FAIL round %d: %s\n' "$n" "${out//$'\n'/ | }" >"$XNET_TMP/fio.res"
			return 0
		fi
		n=$((n + 1))
	done
	echo "$n" >"$XNET_TMP/fio.res"
}

chaos_cleanup() {
	local d m
	: >"$STOP"
	for d in /sys/class/net/*/xps_dev_flow_table_cnt; do wput "$d" 0 || true; done
	for d in "${chdevs[@]}"; do $IP link del "$d" 2>/dev/null || true; done
	for d in "${chns[@]}"; do $IP netns del "$d" 2>/dev/null || true; done
	[ ! -e /run/netns/chv ] || $IP netns del chv 2>/dev/null || true
	$IP link del vc0 2>/dev/null || true
	_nv_cleanup_all quiet || true
	if [ -d "$NB" ]; then
		wput "$NB/power" 0 || true
		rmdir "$NB" 2>/dev/null || true
	fi
	for m in xps_flow pp_frag; do
		! mod_loaded $m || /sbin/rmmod $m 2>/dev/null || true
	done
	tn_cleanup
}

# ---------------------------------------------------------------- setup
ktap_diag "seed $SEED, $STEPS steps, $SECS s"
chdevs=() chns=()
tcp_alloc
alloc0=$R
nv_init
tn_setup
trap chaos_cleanup EXIT
$IP netns add chv || fail "netns chv"
$IP link add vc0 numtxqueues 4 numrxqueues 4 type veth peer name vc1 \
	numtxqueues 4 numrxqueues 4 netns chv || fail "veth vc0/vc1"
$IP addr add 10.96.0.1/24 dev vc0
$IP link set vc0 up
$IP -n chv addr add 10.96.0.2/24 dev vc1
$IP -n chv link set lo up
$IP -n chv link set vc1 up
for m in "${MODS[@]}"; do load_mod "${MODKO[$m]}"; done
wput /sys/class/net/tn0/xps_dev_flow_table_cnt 1024 || fail "table on tn0"
wput /sys/class/net/vc0/xps_dev_flow_table_cnt 256 || fail "table on vc0"
wput /sys/class/net/tn0/pp_frag_pool_pages 256 || fail "pool on tn0"
wput /sys/class/net/vc0/pp_frag_pool_pages 64 || fail "pool on vc0"
wput /sys/class/net/$NV_HDEV/pp_frag_pool_pages 64 || fail "pool on $NV_HDEV"
wput /sys/module/nvme_tcp_prio/parameters/so_priority 3 || fail "so_priority"
tabdevs=(tn0 vc0)
pooldevs=(tn0 vc0 "$NV_HDEV")
# A namespace that keeps what is written (the null_blk devices of nv_init
# discard writes, reads return zeros): a memory-backed null_blk from
# configfs, named after its directory (/dev/xnchaos).
NB=/sys/kernel/config/nullb/xnchaos
mkdir "$NB" || fail "mkdir $NB"
nv_write "$NB/size" 64 || fail "nullb size: $NV_WERR"
nv_write "$NB/memory_backed" 1 || fail "nullb memory_backed: $NV_WERR"
nv_write "$NB/power" 1 || fail "nullb power: $NV_WERR"
wait_until 5 test -b /dev/xnchaos || fail "no /dev/xnchaos"
nqn=$NV_NQN.chaos
sd=$NV_CFG/subsystems/$nqn
mkdir "$sd" || fail "mkdir $sd"
nv_write "$sd/attr_allow_any_host" 1 || fail "allow_any_host: $NV_WERR"
mkdir "$sd/namespaces/1" || fail "mkdir namespace"
nv_write "$sd/namespaces/1/device_path" /dev/xnchaos || fail "device_path: $NV_WERR"
nv_write "$sd/namespaces/1/enable" 1 || fail "enable namespace: $NV_WERR"
nvmet_port_add 1 "$NV_T4" 4420
nvmet_enable 1 "$nqn"
nv_connect "$NV_T4" 4420 "$nqn"
ctrl=$NV_CTRL
ss_read
ss_nvme_host "$NV_T4:4420"
prio_before=("${SS_PICK[@]}")
[ ${#prio_before[@]} -gt 0 ] || fail "no NVMe host socket in ss"

# ---------------------------------------------------------------- traffic
# stream_rounds TAG NS ADDR PORT BYTES: checksummed streams from init_net to
# a receiver in NS, one after the other until STOP; the round count, or
# "FAIL ..." on the first bad one, in $XNET_TMP/TAG.res.
stream_rounds() {
	local tag=$1 ns=$2 addr=$3 port=$4 bytes=$5 n=0 rp rline ssum out
	while [ ! -e "$STOP" ]; do
		# Emptied here, not by the background job's redirection: the last
		# round's "listening" must not be taken for this one's.
		: >"$XNET_TMP/$tag.r"
		pp_in "$ns" $PY "$PPS" recv "$port" --bind "$addr" >>"$XNET_TMP/$tag.r" 2>&1 &
		rp=$!
		if ! wait_for_line "$XNET_TMP/$tag.r" listening; then
			echo "FAIL round $n: receiver: $(<"$XNET_TMP/$tag.r")" >"$XNET_TMP/$tag.res"
			kill "$rp" 2>/dev/null
			return 0
		fi
		if ! out=$($PY "$PPS" send "$addr" "$port" --bytes "$bytes" \
			--write 65536,1448,300000,4096 --seed $((SEED + n)) 2>&1); then
			echo "FAIL round $n: sender: ${out//$'\n'/ | }" >"$XNET_TMP/$tag.res"
			kill "$rp" 2>/dev/null
			return 0
		fi
		if ! wait "$rp"; then
			echo "FAIL round $n: receiver: $(<"$XNET_TMP/$tag.r")" >"$XNET_TMP/$tag.res"
			return 0
		fi
		ssum=${out##*sha256=}
		ssum=${ssum%% *}
		rline=$(grep '^recv ' "$XNET_TMP/$tag.r")
		if [[ $rline != "recv bytes=$bytes "* ]] || [ "${rline##*sha256=}" != "$ssum" ]; then
			echo "FAIL round $n: sent $bytes sha256 $ssum, received '$rline'" >"$XNET_TMP/$tag.res"
			return 0
		fi
		n=$((n + 1))
	done
	echo "$n" >"$XNET_TMP/$tag.res"
}

# stall_diag TAG NS PORT DEV: what a stream that did not stop was doing,
# for the log (ktap_diag lines), the stream's shell in $p: its sockets on both ends, the receiver's
# output, the processes still running, DEV's table and pool, and for tn0
# the test NIC's TX queues (BQL state) and wire counters.
stall_diag() {
	local l f
	ktap_diag "$1 stalled at $(date +%T); load $(</proc/loadavg); $(grep -E '^MemAvailable' /proc/meminfo)"
	while read -r l; do ktap_diag "$1 sender: $l"; done < <(/usr/bin/ss -tnio "( sport = :$3 or dport = :$3 )" 2>&1)
	while read -r l; do ktap_diag "$1 receiver: $l"; done < <($IP netns exec "$2" /usr/bin/ss -tnio "( sport = :$3 or dport = :$3 )" 2>&1)
	while read -r l; do ktap_diag "$1 recv output: $l"; done <"$XNET_TMP/$1.r"
	for l in $(pgrep -f 'pp_stream|tn_send|fio'); do
		ktap_diag "pid $l $(cut -d' ' -f3 "/proc/$l/stat" 2>/dev/null)" \
			"wchan=$(cat "/proc/$l/wchan" 2>/dev/null): $(tr '\0' ' ' <"/proc/$l/cmdline" 2>/dev/null)"
	done
	ktap_blocked_tasks
	ktap_diag "the stream's shell $p: children $(cat "/proc/$p/task/$p/children" 2>/dev/null), wchan $(cat "/proc/$p/wchan" 2>/dev/null)"
	for f in xps_flow_stats pp_frag_stats; do
		ktap_diag "$4 $f: $(tr '\n' ' ' <"/sys/class/net/$4/$f" 2>&1)"
	done
	[ "$4" = tn0 ] || return 0
	while read -r l; do ktap_diag "tn0 queues: $l"; done < <(cat "$D/tn0/queues" 2>&1)
	ktap_diag "tn0 wire: $(tr '\n' ' ' <"$D/tn0/wire" 2>&1)"
}

stream_rounds tcp-tn "$NS" 10.99.0.2 9901 8000000 &
s1=$!
stream_rounds tcp-veth chv 10.96.0.2 9902 8000000 &
s2=$!
# The senders stop at one wall-clock deadline set here, not SECS after
# their own start: on the debug kernel beside another guest, Python's
# start-up alone has taken over 30 s, and a wait counted from the end of
# the chaos ran out (90 s) while a sender still had its SECS to go.
until_s=$((${EPOCHREALTIME%.*} + SECS))
$PY "$SEND" tn0 --udp 10.99.0.2:9903 --flows 4 --until "$until_s" --gap-us 2000 \
	--until-gone >"$XNET_TMP/udp" 2>&1 &
su=$!
$PY "$SEND" tn0 --flows 4 --until "$until_s" --gap-us 2000 --until-gone >"$XNET_TMP/raw" 2>&1 &
sr=$!
fio_rounds "${NV_DEV[$ctrl]}" &
fp=$!
NV_BGPIDS+=("$s1" "$s2" "$su" "$sr" "$fp")
rounds=

# ---------------------------------------------------------------- chaos
end=$((SECONDS + SECS))
n=0
while [ $n -lt "$STEPS" ] && [ $SECONDS -lt $end ]; do
	n=$((n + 1))
	case $((RANDOM % 10)) in
	0 | 1 | 2 | 3) step_param ;;
	4) step_channels ;;
	5 | 6) step_device ;;
	7) step_netns ;;
	8 | 9) step_module ;;
	esac
	nsleep 0.$((RANDOM % 8))
done
summary=
for k in "${!DID[@]}"; do summary+=" $k=${DID[$k]}"; done
ktap_diag "$n steps:$summary"

# ---------------------------------------------------------------- verdict
# Everything back on, so the end state can be read.
for m in "${MODS[@]}"; do mod_loaded "$m" || load_mod "${MODKO[$m]}"; done
: >"$STOP"
# Each sender stops at the deadline until_s (a full queue is not retried
# past it): wait for that, then up to 30 s (90 s on the debug kernel) for
# the process to end.
sender_wait=30
[ "${XNET_VM_CHECKERS:-0}" = 0 ] || sender_wait=90
late=$((until_s - ${EPOCHREALTIME%.*}))
[ "$late" -le 0 ] || sender_wait=$((sender_wait + late))
for p in "$su" "$sr"; do
	kind=udp
	[ "$p" = "$su" ] || kind=raw
	wait_pid "$p" $sender_wait ||
		fail "the $kind test-header sender did not stop in ${sender_wait} s: $(tail -n 2 "$XNET_TMP/$kind")"
	wait "$p" || fail "the $kind test-header sender failed: $(tail -n 2 "$XNET_TMP/$kind")"
done
for t in tcp-tn tcp-veth; do
	p=$s1
	[ $t = tcp-tn ] || p=$s2
	if ! wait_pid "$p" 300; then
		if [ $t = tcp-tn ]; then stall_diag $t "$NS" 9901 tn0; else stall_diag $t chv 9902 vc0; fi
		fail "$t streams did not stop"
	fi
	read -r res <"$XNET_TMP/$t.res" || res=
	[[ $res =~ ^[0-9]+$ ]] || fail "$t: $res"
	[ "$res" -gt 0 ] || fail "$t: no stream completed"
	rounds+=" $t=$res"
done
wait_pid "$fp" 120 || fail "fio rounds did not stop"
read -r fres <"$XNET_TMP/fio.res" || fres=
[[ $fres =~ ^[0-9]+$ ]] || fail "NVMe fio: $fres"
[ "$fres" -gt 0 ] || fail "NVMe fio: no round completed"
ktap_diag "streams intact (8 MB each):$rounds; fio rounds verified: $fres"
if [ ${#BAD[@]} -gt 0 ]; then
	printf '# %s\n' "${BAD[@]:0:5}"
	fail "${#BAD[@]} knob writes misbehaved"
fi

# Every socket reference: the NVMe sockets back at their priority after
# rmmod, the TCP socket count back to where it was once all is closed.
wput /sys/module/nvme_tcp_prio/parameters/so_priority 3 || fail "so_priority 3"
unload_mod nvme_tcp_prio
ss_read
ss_nvme_host "$NV_T4:4420"
ktap_diag "NVMe host sockets after rmmod: ${SS_PICK[*]}"
for r in "${SS_PICK[@]}"; do
	read -r _ _ _ pr _ <<<"$r"
	[ "$pr" = 0 ] || fail "NVMe socket not restored after rmmod: $r"
done
[ ${#SS_PICK[@]} -eq ${#prio_before[@]} ] || fail "NVMe sockets ${#prio_before[@]} before, ${#SS_PICK[@]} after"

# Every pool page: pools off, orphans reaped, nothing owned, once the
# sockets are closed (a live socket's page_frag, the NVMe queues' ones
# included, keeps its last page until it needs another).
nv_disconnect "$ctrl" || fail "disconnect $ctrl"
for d in /sys/class/net/*/pp_frag_pool_pages; do wput "$d" 0 || true; done
_pages_back() {
	pp_flush_defer "$NS" 10.99.0.2
	pp_global
	[ "${PG[pages_owned]}" -eq 0 ] && [ "${PG[orphans]}" -eq 0 ]
}
wait_until 30 _pages_back || fail "pp_frag still owns ${PG[pages_owned]} pages (orphans ${PG[orphans]})"

chaos_cleanup
trap _nv_exit_trap EXIT
_alloc_back() {
	tcp_alloc
	[ "$R" -le "$alloc0" ]
}
wait_until 30 _alloc_back || fail "TCP sockets allocated: $alloc0 before, $R after"
