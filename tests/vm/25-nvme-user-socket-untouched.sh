#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=900
# vmtest: nodebug="a functional check (user sockets left alone): no kernel path of its own"
#
# User-space sockets are never touched, even on port 4420, while both
# modules run with rules that match port 4420 (host rport=4420 -> 7, target
# lport=4420 -> 8), through a runtime re-apply (rules "prio=10" / "prio=11",
# matching everything) and rmmod:
#   host:   python3 listener 0.0.0.0:4420 (0); python3 clients to
#           10.77.0.3:4420 (SO_PRIORITY 3) and [fd77::3]:4420 (0); bash
#           /dev/tcp clients to 10.77.0.3:4420 and to the nvmet port
#           10.77.0.2:4420 itself (0)
#   target: python3 listeners 10.77.0.3:4420 (3) and [fd77::3]:4420 (0)
#           and the sockets they accept (0)
# The nvmet-tcp socket accepted for bash's connection to 10.77.0.2:4420 is
# the target driver's: tagged like the NVMe ones. A real NVMe connection
# proves both modules are active. On the wire, the user connections'
# segments carry only 0 or 3.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_nvme.sh
. "$XNET_SRC/tests/vm/lib_nvme.sh"

H=$NV_HMOD T=$NV_TMOD
EP=$NV_T4:4420 U4=$NV_U4:4420 U6=[$NV_U6]:4420

# check_users WHAT NVMEHOST NVMETGT: user sockets unchanged; NVMe ones at
# NVMEHOST / NVMETGT (the bash connection to the nvmet port included).
check_users() {
	ss_read
	ss_expect "$1: host user listener" LISTEN 0.0.0.0:4420 '*' python3 0 1
	ss_expect "$1: host python3 client to $U4" ESTAB '*' $U4 python3 3 1
	ss_expect "$1: host python3 client to $U6" ESTAB '*' "$U6" python3 0 1
	ss_expect "$1: host bash client to $U4" ESTAB '*' $U4 bash 0 1
	ss_expect "$1: host bash client to $EP" ESTAB '*' $EP bash 0 1
	ss_expect "$1: host NVMe sockets" ESTAB '*' $EP - "$2" 3
	ss_read $NV_NS
	ss_expect "$1: target user listener $U4" LISTEN $U4 '*' python3 3 1
	ss_expect "$1: target user listener $U6" LISTEN "$U6" '*' python3 0 1
	ss_expect "$1: target user sockets on $U4" ESTAB $U4 '*' python3 0 2
	ss_expect "$1: target user sockets on $U6" ESTAB "$U6" '*' python3 0 1
	ss_expect "$1: nvmet listener" LISTEN $EP '*' - "$3" 1
	ss_expect "$1: nvmet accepted sockets (3 NVMe + bash's)" ESTAB $EP '*' - "$3" 4
	nv_diag "$1: user sockets untouched, NVMe at $2 / $3"
}

nv_init
tcc_init
for s in h t; do
	for u in "$NV_U4" "$NV_U6"; do
		em_ep "$u" 4420
		tcc_add $s.user $s "$EM_PROTO" "$EM"
		tcc_add $s.user.ok $s "$EM_PROTO" "$EM and ($(em_prio 0) or $(em_prio 3))"
	done
done
tcc_commit
tcc_snap

prio_load $H so_priority=5 "rules=rport=4420,prio=7"
prio_load $T so_priority=6 "rules=lport=4420,prio=8"
nv_target 1 $NV_T4 4420
usock_start $NV_NS "L,$NV_U4,4420,3" "L,$NV_U6,4420,0"
usock_start "" "L,0.0.0.0,4420,0" "C,$NV_U4,4420,3" "C,$NV_U6,4420,0"
exec {ufd}<>/dev/tcp/$NV_U4/4420 || fail "bash connection to $U4"
exec {nfd}<>/dev/tcp/$NV_T4/4420 || fail "bash connection to $EP"
nv_connect $NV_T4 4420 "${NV_TNQN[1]}"
ctrl=$NV_CTRL
echo "hello" >&$ufd
read -r -t 5 _ <&$ufd || fail "no echo on the bash connection to $U4"

check_users "loaded" 7 8
NV_XALL=1 xcheck_host $H $EP
NV_XALL=1 xcheck_target $T $EP

pp_set $H rules "prio=10"
pp_set $T rules "prio=11"
echo "again" >&$ufd
read -r -t 5 _ <&$ufd || fail "no echo on the bash connection to $U4"
check_users "re-applied" 10 11
NV_XALL=1 xcheck_host $H $EP
NV_XALL=1 xcheck_target $T $EP
fio_start io 1 libaio "${NV_DEV[$ctrl]}"
fio_wait io

prio_unload $H
prio_unload $T
check_users "removed" 0 0

tcc_read
for s in h t; do
	tcc_delta $s.user
	all=$TCC_D
	tcc_delta $s.user.ok
	nv_diag "tc $s: $TCC_D of $all user segments with priority 0 or 3"
	[ "$all" -gt 0 ] || fail "$s: no user segments counted"
	[ "$TCC_D" -eq "$all" ] || fail "$s: $((all - TCC_D)) user segments with another priority"
done
exec {ufd}>&- {nfd}>&-
nv_disconnect "$ctrl" || fail "disconnect"
