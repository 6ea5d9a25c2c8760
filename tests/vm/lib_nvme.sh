# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # NV_TNQN, NV_DEV, ... are for the tests
#
# NVMe/TCP helpers for the guest tests tests/vm/2N-nvme-*.sh, on top of
# lib.sh. Source both:
#   . "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
#   . "$XNET_SRC/tests/vm/lib_nvme.sh"
#   nv_init            # modules, clean slate, veth + netns, cleanup trap
#
# Topology: the TARGET lives in network namespace "tgt", the HOST in init_net,
# joined by a veth pair:
#   init_net  nvh0  10.77.0.1/24  fd77::1/64            (host, nvme-tcp)
#   tgt       nvt0  10.77.0.2/24  fd77::2/64            (nvmet-tcp ports)
#                   10.77.0.3/24  fd77::3/64            (user-space listeners)
# Why this way round (checked in the Debian 6.1 guest):
# - nvmet-tcp creates a port's listener with sock_create() in
#   nvmet_tcp_add_port(), which runs synchronously in the process that links
#   a subsystem into the port (configfs symlink): the listener is in THAT
#   process's netns, accepted sockets inherit it. So the link is made with
#   "nsenter --net=/run/netns/tgt ln -s": not "ip netns exec", which remounts
#   /sys and so hides configfs (/sys/kernel/config) from the command.
# - nvme-tcp creates host sockets with sock_create() in
#   nvme_tcp_alloc_queue(): the netns of the caller. The first connect runs
#   in the process writing /dev/nvme-fabrics, but reset, reconnect and error
#   recovery run from nvme workqueues, i.e. in init_net: with the host in a
#   netns, "nvme reset" gave "failed to connect socket: -101" (ENETUNREACH)
#   until the controller was removed. So the host must stay in init_net.
#
# Socket priorities as sock_diag reports them (ss_*) and user-space sockets
# beside the driver's (usock_*): lib_nvme_ss.sh; packet priorities on the
# wire (tcc_*): lib_nvme_tc.sh. This file sources both.
#
# Everything is bounded: waits poll with a deadline, kernel writes that
# could block (connect, reset, delete) run in a background subshell that is
# waited for with a deadline. Exec is slow under TCG (50-150 ms): the
# helpers use bash builtins where they can.

NV_NS=tgt
NV_HDEV=nvh0
NV_TDEV=nvt0
NV_H4=10.77.0.1 NV_T4=10.77.0.2 NV_U4=10.77.0.3
NV_H6=fd77::1 NV_T6=fd77::2 NV_U6=fd77::3
NV_NQN=nqn.2014-08.io.xnet.test
NV_HMOD=nvme_tcp_prio
NV_TMOD=nvmet_tcp_prio
NV_CFG=/sys/kernel/config/nvmet
NV_NULLB=4 # null_blk devices: one subsystem per port, nullb(ID-1)
SS=/usr/bin/ss
TC=/sbin/tc
IP=/sbin/ip

NV_T0=${EPOCHREALTIME/./}
declare -gA NV_DEV=() PSTAT=() FIO_PID=() FIO_OUT=()
declare -ga PS_ROWS=() NV_BGPIDS=() KMSG=() KMSG_ALL=()

# ---------------------------------------------------------------- basics

# nv_diag MSG: diagnostic with the time since the test started.
nv_diag() {
	local d=$((${EPOCHREALTIME/./} - NV_T0))
	printf '# [%d.%02ds] %s\n' $((d / 1000000)) $((d % 1000000 / 10000)) "$*"
}

# nv_bounded SECS CMD...: run CMD (function or builtin) in a background
# subshell, wait at most SECS. Returns its status, 124 on timeout (the
# subshell is SIGKILLed; a task stuck in the kernel stays behind).
nv_bounded() {
	local secs=$1 pid rc=0
	shift
	"$@" &
	pid=$!
	if ! wait_pid "$pid" "$secs"; then
		kill -KILL "$pid" 2>/dev/null
		return 124
	fi
	wait "$pid" || rc=$?
	return $rc
}

# nv_write FILE VALUE: write VALUE plus newline (like echo) to FILE with a
# builtin; status of the write, error text in NV_WERR.
nv_write() {
	local f=$1 v=$2 errf=$XNET_TMP/.nv_werr
	NV_WERR=
	if { printf '%s\n' "$v" >"$f"; } 2>"$errf"; then
		return 0
	fi
	read -r NV_WERR <"$errf" || true
	NV_WERR=${NV_WERR##*: }
	return 1
}

# nv_read FILE -> NV_R: first line of FILE ("" if empty), builtin only.
nv_read() {
	NV_R=
	read -r NV_R <"$1" || true
}

# ---------------------------------------------------------------- setup

nv_modprobe() {
	local m need=()
	for m in veth nvmet nvmet_tcp nvme_tcp sch_ingress cls_basic cls_matchall \
		em_meta em_cmp act_gact; do
		mod_loaded "$m" || need+=("$m")
	done
	[ ${#need[@]} -eq 0 ] || /sbin/modprobe -a "${need[@]}" || fail "modprobe ${need[*]}"
	if ! mod_loaded null_blk; then
		/sbin/modprobe null_blk nr_devices=$NV_NULLB || fail "modprobe null_blk"
	fi
	wait_until 5 test -b /dev/nullb$((NV_NULLB - 1)) || fail "no /dev/nullb$((NV_NULLB - 1))"
	[ -d $NV_CFG ] || fail "$NV_CFG missing (configfs not mounted?)"
}

nv_net_up() {
	$IP netns add $NV_NS || fail "ip netns add $NV_NS"
	$IP link add $NV_HDEV type veth peer name $NV_TDEV netns $NV_NS || fail "veth"
	$IP -b - <<-EOF || fail "veth addresses"
		addr add $NV_H4/24 dev $NV_HDEV
		addr add $NV_H6/64 dev $NV_HDEV nodad
		link set $NV_HDEV up
	EOF
	$IP -n $NV_NS -b - <<-EOF || fail "veth addresses ($NV_NS)"
		addr add $NV_T4/24 dev $NV_TDEV
		addr add $NV_U4/24 dev $NV_TDEV
		addr add $NV_T6/64 dev $NV_TDEV nodad
		addr add $NV_U6/64 dev $NV_TDEV nodad
		link set $NV_TDEV up
		link set lo up
	EOF
}

nv_net_down() {
	[ -e /sys/class/net/$NV_HDEV ] && $IP link del $NV_HDEV 2>/dev/null
	[ -e /run/netns/$NV_NS ] && $IP netns del $NV_NS 2>/dev/null
	return 0
}

# nv_init: load what the tests need, remove what an earlier test of this
# boot may have left, build the network, install the cleanup trap.
nv_init() {
	nv_modprobe
	_nv_cleanup_all quiet || fail "cannot clean up what an earlier test left behind"
	nv_intree_prio 0 0
	nv_net_up
	trap _nv_exit_trap EXIT
	[ -s /etc/nvme/hostnqn ] || fail "/etc/nvme/hostnqn missing"
	nv_read /etc/nvme/hostnqn
	NV_HOSTNQN=$NV_R
	nv_read /etc/nvme/hostid
	NV_HOSTID=$NV_R
}

# nv_intree_prio HOST TARGET: the in-tree so_priority params (applied by the
# stock drivers only when they create a socket).
nv_intree_prio() {
	nv_write /sys/module/nvme_tcp/parameters/so_priority "$1" ||
		fail "nvme_tcp.so_priority=$1: $NV_WERR"
	nv_write /sys/module/nvmet_tcp/parameters/so_priority "$2" ||
		fail "nvmet_tcp.so_priority=$2: $NV_WERR"
}

_nv_cleanup_all() {
	local quiet=${1:-} m p bad=0 c
	for p in "${NV_BGPIDS[@]}" "${FIO_PID[@]}"; do
		kill -KILL "$p" 2>/dev/null
		wait "$p" 2>/dev/null || true
	done
	NV_BGPIDS=()
	FIO_PID=()
	nv_disconnect_all || bad=1
	for m in $NV_HMOD $NV_TMOD; do
		if mod_loaded "$m"; then
			[ -n "$quiet" ] || echo "# cleanup: $m still loaded, removing it"
			/sbin/rmmod "$m" || { echo "# cleanup: rmmod $m failed"; bad=1; }
		fi
	done
	for m in nvme_tcp nvmet_tcp; do
		[ -w /sys/module/$m/parameters/so_priority ] &&
			nv_write /sys/module/$m/parameters/so_priority 0
	done
	nvmet_teardown || bad=1
	nv_net_down
	for c in /sys/class/nvme/nvme*; do
		[ -e "$c" ] && echo "# cleanup: controller left: ${c##*/}"
	done
	return $bad
}

_nv_exit_trap() {
	local rc=$?
	trap - EXIT
	if ! _nv_cleanup_all; then
		echo "# cleanup failed: later tests of this boot may be affected"
		[ $rc -ne 0 ] || rc=1
	fi
	exit $rc
}

# ---------------------------------------------------------------- target

# nvmet_subsys NQN BLOCKDEV: subsystem (any host) with namespace 1.
nvmet_subsys() {
	local s=$NV_CFG/subsystems/$1
	mkdir "$s" || fail "mkdir $s"
	nv_write "$s/attr_allow_any_host" 1 || fail "allow_any_host: $NV_WERR"
	mkdir "$s/namespaces/1" || fail "mkdir $s/namespaces/1"
	nv_write "$s/namespaces/1/device_path" "$2" || fail "device_path: $NV_WERR"
	nv_write "$s/namespaces/1/enable" 1 || fail "enable ns $1: $NV_WERR"
}

# nvmet_port_add ID ADDR SVC: a TCP port (not enabled yet).
nvmet_port_add() {
	local p=$NV_CFG/ports/$1 fam=ipv4
	[[ $2 == *:* ]] && fam=ipv6
	mkdir "$p" || fail "mkdir $p"
	nv_write "$p/addr_trtype" tcp || fail "port $1 trtype: $NV_WERR"
	nv_write "$p/addr_adrfam" $fam || fail "port $1 adrfam: $NV_WERR"
	nv_write "$p/addr_traddr" "$2" || fail "port $1 traddr: $NV_WERR"
	nv_write "$p/addr_trsvcid" "$3" || fail "port $1 trsvcid: $NV_WERR"
}

# nvmet_enable ID NQN: link NQN into port ID from inside $NV_NS; the first
# link enables the port (creates the listener, in the linker's netns).
nvmet_enable() {
	/usr/bin/nsenter --net=/run/netns/$NV_NS \
		ln -s "$NV_CFG/subsystems/$2" "$NV_CFG/ports/$1/subsystems/$2" ||
		fail "enable port $1 ($2)"
}

# nvmet_disable ID NQN: unlink; the last unlink removes the listener and
# makes the target drop the port's controllers.
nvmet_disable() {
	rm "$NV_CFG/ports/$1/subsystems/$2" || fail "disable port $1 ($2)"
}

# nv_target ID ADDR SVC: subsystem $NV_NQN.ID on /dev/nullb(ID-1), exported
# on port ID = ADDR:SVC and enabled. NQN in NV_TNQN[ID].
declare -gA NV_TNQN=()
nv_target() {
	local nqn=$NV_NQN.$1
	nvmet_subsys "$nqn" /dev/nullb$(($1 - 1))
	nvmet_port_add "$1" "$2" "$3"
	nvmet_enable "$1" "$nqn"
	NV_TNQN[$1]=$nqn
}

# nvmet_teardown: remove every port link, port, namespace and subsystem.
nvmet_teardown() {
	local l p s n bad=0
	[ -d $NV_CFG ] || return 0
	for l in "$NV_CFG"/ports/*/subsystems/*; do
		[ -L "$l" ] && { rm "$l" || bad=1; }
	done
	for p in "$NV_CFG"/ports/*; do
		[ -d "$p" ] && { rmdir "$p" || bad=1; }
	done
	for s in "$NV_CFG"/subsystems/*; do
		[ -d "$s" ] || continue
		for n in "$s"/namespaces/*; do
			[ -d "$n" ] || continue
			nv_write "$n/enable" 0
			rmdir "$n" || bad=1
		done
		rmdir "$s" || bad=1
	done
	[ $bad -eq 0 ] || echo "# cleanup: nvmet configfs teardown incomplete"
	return $bad
}

# ---------------------------------------------------------------- host

# _nv_fabrics_write OPTS: what "nvme connect" does: write the options to
# /dev/nvme-fabrics, read back "instance=N,cntlid=M". Result in
# $XNET_TMP/.nv_connect (run in a subshell by nv_connect).
_nv_fabrics_write() {
	local fd reply out=$XNET_TMP/.nv_connect
	: >"$out"
	exec {fd}<>/dev/nvme-fabrics || exit 1
	printf '%s' "$1" >&$fd || exit 1
	read -r reply <&$fd || exit 1
	echo "$reply" >"$out"
}

# nv_connect ADDR SVC NQN [KEY=VAL...]: connect the host (init_net) to a
# target port; sets NV_CTRL (nvmeN) and NV_DEV[nvmeN] (/dev/nvmeNn1, waited
# for). Defaults: reconnect_delay=1 ctrl_loss_tmo=30; extra fabrics options
# (nr_io_queues=1, ...) override. Fails the test on error or after 30 s.
nv_connect() {
	local a=$1 s=$2 nqn=$3 opts reply inst rc=0 errf=$XNET_TMP/.nv_connect_err
	shift 3
	opts="transport=tcp,traddr=$a,trsvcid=$s,nqn=$nqn,hostnqn=$NV_HOSTNQN"
	[ -z "$NV_HOSTID" ] || opts+=",hostid=$NV_HOSTID"
	opts+=",reconnect_delay=1,ctrl_loss_tmo=30"
	for o; do opts+=",$o"; done
	nv_bounded 30 _nv_fabrics_write "$opts" 2>"$errf" || rc=$?
	if [ $rc -ne 0 ]; then
		local e=
		read -r e <"$errf" || true
		[ $rc -ne 124 ] || e="no answer after 30 s"
		fail "connect to $a:$s ($nqn): ${e##*: }"
	fi
	read -r reply <"$XNET_TMP/.nv_connect" || true
	[[ $reply =~ instance=([0-9]+) ]] || fail "connect to $a:$s: reply '$reply'"
	inst=${BASH_REMATCH[1]}
	NV_CTRL=nvme$inst
	wait_until 15 test -b "/dev/nvme${inst}n1" ||
		fail "$NV_CTRL: no /dev/nvme${inst}n1 15 s after connect (multipath=N boot arg?)"
	NV_DEV[$NV_CTRL]=/dev/nvme${inst}n1
}

# nv_connect_cli ADDR SVC NQN: the same with nvme-cli's "nvme connect".
nv_connect_cli() {
	local out
	out=$(timeout -k 5 30 /usr/sbin/nvme connect -t tcp -a "$1" -s "$2" -n "$3" \
		-q "$NV_HOSTNQN" ${NV_HOSTID:+-I "$NV_HOSTID"} -c 1 -l 30 2>&1) ||
		fail "nvme connect -a $1 -s $2: $out"
	nv_ctrl_find "$1" "$2" || fail "nvme connect: no controller for $1:$2 in /sys/class/nvme"
	wait_until 15 test -b "/dev/${NV_CTRL}n1" || fail "$NV_CTRL: no /dev/${NV_CTRL}n1"
	NV_DEV[$NV_CTRL]=/dev/${NV_CTRL}n1
}

# nv_ctrl_find ADDR SVC -> NV_CTRL: the controller connected to ADDR:SVC.
nv_ctrl_find() {
	local c a
	for c in /sys/class/nvme/nvme*; do
		[ -r "$c/address" ] || continue
		read -r a <"$c/address" || continue
		if [[ ,$a, == *,traddr=$1,trsvcid=$2,* ]]; then
			NV_CTRL=${c##*/}
			return 0
		fi
	done
	return 1
}

nv_ctrl_state() { # CTRL -> NV_R
	NV_R=gone
	[ -r "/sys/class/nvme/$1/state" ] && read -r NV_R <"/sys/class/nvme/$1/state"
	return 0
}
_nv_is_state() {
	nv_ctrl_state "$1"
	[ "$NV_R" = "$2" ]
}
# nv_wait_state CTRL STATE SECS
nv_wait_state() {
	wait_until "$3" _nv_is_state "$1" "$2" || {
		nv_ctrl_state "$1"
		fail "$1: state '$NV_R', expected '$2' within $3 s"
	}
}

_nv_sysfs_one() { printf '1\n' >"$1"; }

# nv_reset CTRL: "nvme reset" (reset_controller, waits for the reconnect).
nv_reset() {
	local rc=0
	nv_bounded 30 _nv_sysfs_one "/sys/class/nvme/$1/reset_controller" 2>/dev/null || rc=$?
	[ $rc -ne 124 ] || fail "$1: reset_controller did not return in 30 s"
	[ $rc -eq 0 ] || fail "$1: reset failed"
}

# nv_disconnect CTRL: "nvme disconnect" (delete_controller), bounded.
nv_disconnect() {
	local rc=0
	[ -e "/sys/class/nvme/$1/delete_controller" ] || return 0
	nv_bounded 30 _nv_sysfs_one "/sys/class/nvme/$1/delete_controller" 2>/dev/null || rc=$?
	if [ $rc -eq 124 ]; then
		echo "# $1: delete_controller did not return in 30 s"
		ktap_blocked_tasks
		return 1
	fi
	unset "NV_DEV[$1]"
	return 0
}

# nv_disconnect_all: every NVMe/TCP controller.
nv_disconnect_all() {
	local c t bad=0
	for c in /sys/class/nvme/nvme*; do
		[ -r "$c/transport" ] || continue
		read -r t <"$c/transport" || continue
		[ "$t" = tcp ] || continue
		nv_disconnect "${c##*/}" || bad=1
	done
	return $bad
}

# ---------------------------------------------------------------- fio

# fio_start NAME SECS ENGINE DEV...: background fio (4k randrw, direct,
# iodepth 8; pvsync2 is synchronous), one job per device.
fio_start() {
	local name=$1 secs=$2 eng=$3 d args=()
	shift 3
	args=(--output-format=terse --terse-version=3 --group_reporting
		--ioengine="$eng" --direct=1 --rw=randrw --bs=4k --iodepth=8
		--time_based --runtime="$secs" --ramp_time=0 --norandommap
		--size=64M)
	for d; do args+=(--name="$name-${d##*/}" --filename="$d"); done
	FIO_OUT[$name]=$XNET_TMP/fio-$name.out
	/usr/bin/fio "${args[@]}" >"${FIO_OUT[$name]}" 2>&1 &
	FIO_PID[$name]=$!
	FIO_SECS[$name]=$secs
}
declare -gA FIO_SECS=()

# fio_wait NAME: waits (runtime + 30 s), fails unless fio exited 0 and did
# I/O. Sets FIO_IOPS (read+write).
fio_wait() {
	local name=$1 pid=${FIO_PID[$1]} rc=0 line l f=()
	wait_pid "$pid" $((FIO_SECS[$name] + 30)) ||
		{ kill -KILL "$pid"; fail "fio $name still running ${FIO_SECS[$name]}+30 s later"; }
	wait "$pid" || rc=$?
	unset "FIO_PID[$name]"
	line=
	while IFS= read -r l; do [[ $l == 3\;* ]] && line=$l; done <"${FIO_OUT[$name]}"
	if [ $rc -ne 0 ] || [ -z "$line" ]; then
		while IFS= read -r l; do echo "# fio: $l"; done <"${FIO_OUT[$name]}"
		fail "fio $name failed (exit $rc)"
	fi
	IFS=';' read -ra f <<<"$line"
	# terse v3: 5 error, 8 read iops, 49 write iops
	FIO_IOPS=$((${f[7]%%.*} + ${f[48]%%.*}))
	[ "${f[4]}" = 0 ] || fail "fio $name: error ${f[4]}"
	[ "$FIO_IOPS" -gt 0 ] || fail "fio $name: no I/O"
	nv_diag "fio $name: ${f[7]} read + ${f[48]} write IOPS"
}

# ---------------------------------------------------------------- our modules

# prio_load MOD [PARAM=VAL...]: insmod nvme_tcp_prio or nvmet_tcp_prio.
# The kernel ignores unknown parameters at insmod: check they exist.
prio_load() {
	local m=$1 p
	shift
	load_mod "$m/$m" "$@"
	mod_loaded "$m" || fail "insmod $m: no module '$m' in /proc/modules"
	for p in so_priority rules; do
		[ -e "/sys/module/$m/parameters/$p" ] ||
			fail "$m: no '$p' parameter (wrong module build?)"
	done
	nv_diag "insmod $m $*"
}

prio_unload() {
	unload_mod "$1"
	nv_diag "rmmod $1"
}

# pp_get MOD PARAM -> NV_R (current value, read back); fails if missing.
pp_get() {
	local pf=/sys/module/$1/parameters/$2
	[ -r "$pf" ] || fail "$pf missing (wrong module build?)"
	nv_read "$pf"
}

# pp_set MOD PARAM VALUE: write; fails the test if the write is refused.
pp_set() {
	local pf=/sys/module/$1/parameters/$2
	[ -w "$pf" ] || fail "$pf missing or not writable"
	nv_write "$pf" "$3" || fail "$1.$2='$3' refused: $NV_WERR"
}

# _dbg_file MOD NAME: the module's debugfs file (fails clearly if missing).
_dbg_file() {
	NV_F=/sys/kernel/debug/$1/$2
	[ -r "$NV_F" ] || fail "$NV_F missing (debugfs not mounted or wrong module build?)"
}

# ps_read MOD: debugfs sockets table into PS_ROWS, one
# "ROLE LOCAL REMOTE PRIO ORIG RULE" each (header checked and dropped).
ps_read() {
	local l hdr=0 f=()
	PS_ROWS=()
	_dbg_file "$1" sockets
	while read -r l; do
		[ -n "$l" ] || continue
		if [[ $l == \#* ]]; then hdr=1; continue; fi
		read -r -a f <<<"$l"
		[ ${#f[@]} -eq 6 ] || fail "$NV_F: malformed line '$l'"
		PS_ROWS+=("${f[*]}")
	done <"$NV_F"
	[ $hdr -eq 1 ] || fail "$NV_F: no '#' header line"
}

# ps_expect WHAT ROLE LOCAL REMOTE PRIO ORIG RULE COUNT: PS_ROWS rows of
# ROLE with LOCAL/REMOTE (_ep_match patterns) number COUNT, and all have
# PRIO, ORIG, RULE ("*" = any for these three).
ps_expect() {
	local what=$1 role=$2 lp=$3 rp=$4 pw=$5 ow=$6 rw=$7 cnt=$8 r n=0 bad=()
	local ro l rm pr or ru
	for r in "${PS_ROWS[@]}"; do
		read -r ro l rm pr or ru <<<"$r"
		[ "$ro" = "$role" ] || continue
		_ep_match "$l" "$lp" || continue
		if [ "$role" = listen ]; then
			[ "$rm" = '*' ] || bad+=("$r (listener remote not '*')")
		else
			_ep_match "$rm" "$rp" || continue
		fi
		n=$((n + 1))
		{ [ "$pw" = '*' ] || [ "$pr" = "$pw" ]; } &&
			{ [ "$ow" = '*' ] || [ "$or" = "$ow" ]; } &&
			{ [ "$rw" = '*' ] || [ "$ru" = "$rw" ]; } || bad+=("$r")
	done
	if ! _count_ok $n "$cnt" || [ ${#bad[@]} -gt 0 ]; then
		_dump_rows "debugfs:" "${PS_ROWS[@]}"
		fail "$what: $n $role rows (want $cnt), ${#bad[@]} not 'prio $pw orig $ow rule $rw'"
	fi
}

# pstat_read MOD: debugfs stats into PSTAT[name]; tracked, tagged,
# reapplied, restored must exist.
pstat_read() {
	local k
	_dbg_file "$1" stats
	kv_read PSTAT "$NV_F"
	for k in tracked tagged reapplied restored; do
		[[ ${PSTAT[$k]:-} =~ ^[0-9]+$ ]] || fail "$NV_F: no numeric '$k' line"
	done
}

_in_list() { # WORD LIST...
	local word=$1 e
	shift
	for e; do [ "$word" = "$e" ] && return 0; done
	return 1
}

# xcheck_host MOD PEER...: the debugfs table of the host module and ss agree
# on the host's NVMe/TCP sockets: same set of "LOCAL REMOTE PRIO" (ss: kernel
# sockets in ESTAB to one of PEER; debugfs: "host" rows with one of PEER as
# remote, or every row if NV_XALL is set, the default). Reads both.
NV_XALL=1
xcheck_host() {
	local t
	for t in 1 2 3 4 5 6 7 8 9 10; do
		_xcheck_host quiet "$@" && return 0
		nsleep 0.3
	done
	_xcheck_host '' "$@"
}
_xcheck_host() {
	local q=$1 m=$2 r st l p pr ow ro rm or ru
	shift 2
	local -A a=() b=()
	ss_read
	ss_nvme_host "$@"
	for r in "${SS_PICK[@]}"; do
		read -r st l p pr ow <<<"$r"
		a["$l $p $pr"]=1
	done
	ps_read "$m"
	for r in "${PS_ROWS[@]}"; do
		read -r ro l rm pr or ru <<<"$r"
		[ "$ro" = host ] || fail "$m: unexpected role '$ro': $r"
		[ -n "$NV_XALL" ] || _in_list "$rm" "$@" || continue
		b["$l $rm $pr"]=1
	done
	_xcheck_cmp "$q" "$m host sockets" a b
}

# xcheck_target MOD LOCAL...: same for the target module in $NV_NS: ss
# kernel LISTEN sockets on one of LOCAL ("listen LOCAL * PRIO") and ESTAB
# ones ("accept LOCAL PEER PRIO") against the debugfs rows (all of them, or
# those on one of LOCAL if NV_XALL is empty).
xcheck_target() {
	local t
	for t in 1 2 3 4 5 6 7 8 9 10; do
		_xcheck_target quiet "$@" && return 0
		nsleep 0.3
	done
	_xcheck_target '' "$@"
}
_xcheck_target() {
	local q=$1 m=$2 r st l p pr ow ro rm or ru e
	shift 2
	local -A a=() b=()
	ss_read $NV_NS
	for r in "${SS_ROWS[@]}"; do
		read -r st l p pr ow <<<"$r"
		[ "$ow" = - ] || continue
		for e; do
			[ "$l" = "$e" ] || continue
			case $st in
			LISTEN) a["listen $l * $pr"]=1 ;;
			ESTAB) a["accept $l $p $pr"]=1 ;;
			esac
		done
	done
	ps_read "$m"
	for r in "${PS_ROWS[@]}"; do
		read -r ro l rm pr or ru <<<"$r"
		[ -n "$NV_XALL" ] || _in_list "$l" "$@" || continue
		b["$ro $l $rm $pr"]=1
	done
	_xcheck_cmp "$q" "$m target sockets" a b
}

# _xcheck_cmp QUIET WHAT SS-ASSOC DEBUGFS-ASSOC: equal key sets, else fail
# (QUIET empty) or return 1.
_xcheck_cmp() {
	local -n _a=$3 _b=$4
	local k miss=() extra=()
	for k in "${!_a[@]}"; do [ -n "${_b[$k]:-}" ] || miss+=("$k"); done
	for k in "${!_b[@]}"; do [ -n "${_a[$k]:-}" ] || extra+=("$k"); done
	if [ ${#miss[@]} -gt 0 ] || [ ${#extra[@]} -gt 0 ] || [ ${#_a[@]} -eq 0 ]; then
		[ -n "$1" ] && return 1
		_dump_rows "in ss, not in debugfs:" "${miss[@]}"
		_dump_rows "in debugfs, not in ss:" "${extra[@]}"
		[ ${#_a[@]} -gt 0 ] || fail "$2: no sockets at all"
		fail "$2: debugfs table and ss disagree (3 s of retries)"
	fi
	nv_diag "$2: debugfs and ss agree on ${#_a[@]} sockets"
}

# ---------------------------------------------------------------- kernel log

# kmsg_mark TAG: a marker line in the kernel log.
kmsg_mark() { echo "<6>xnet-test-mark: $1" >/dev/kmsg; }

# kmsg_load: the kernel log (raw, "<L>[time] text" as dmesg -r prints it)
# into KMSG_ALL; one exec. Through a file, not a here-string: bash puts a
# here-string of less than a pipe's size in a pipe, and reads a pipe a
# byte per read(2) (see dmesg_lines in lib.sh).
kmsg_load() {
	local kf=$XNET_TMP/.kmsg
	dmesg -r >"$kf" 2>&1 || fail "dmesg: $(<"$kf")"
	mapfile -t KMSG_ALL <"$kf"
}

# kmsg_split -> KSEG[TAG]: lines of KMSG_ALL (kmsg_load first) between the
# markers "TAG" and "TAG.end", newline-terminated; one pass over the log.
declare -gA KSEG=()
kmsg_split() {
	local l t cur=
	KSEG=()
	for l in "${KMSG_ALL[@]}"; do
		if [[ $l == *"xnet-test-mark: "* ]]; then
			t=${l##*xnet-test-mark: }
			if [[ $t == *.end ]]; then
				cur=
			else
				cur=$t
				KSEG[$t]=
			fi
			continue
		fi
		[ -z "$cur" ] || KSEG[$cur]+="$l"$'\n'
	done
}

# kmsg_after TAG [UNTIL-TAG] -> KMSG: lines of KMSG_ALL (kmsg_load first)
# after marker TAG, up to UNTIL-TAG if given; marker lines dropped.
kmsg_after() {
	local l on=0
	KMSG=()
	for l in "${KMSG_ALL[@]}"; do
		if [ $on -eq 0 ]; then
			[[ $l == *"xnet-test-mark: $1" ]] && on=1
			continue
		fi
		[ -n "${2:-}" ] && [[ $l == *"xnet-test-mark: $2" ]] && break
		[[ $l == *xnet-test-mark:* ]] && continue
		KMSG+=("$l")
	done
	[ $on -eq 1 ] || fail "kernel log marker '$1' not found"
}

# shellcheck source=tests/vm/lib_nvme_ss.sh
. "$XNET_SRC/tests/vm/lib_nvme_ss.sh"
# shellcheck source=tests/vm/lib_nvme_tc.sh
. "$XNET_SRC/tests/vm/lib_nvme_tc.sh"
