#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=900
# vmtest: rt="the probe tagging sockets a kworker opens on reconnect"
#
# Sockets that the drivers create later are covered too (host 5, target 6):
# - "nvme reset": the host opens 3 new sockets (from a kworker), tagged;
# - target port disabled (unlink: listener gone, the target drops the
#   controller, the host retries every second and is refused), then enabled
#   again (a new listener): the reconnected sockets on both sides are
#   tagged, and so are the SYNs of the refused attempts.
# Each time ss and the debugfs tables agree (no stale rows), and on the
# wire every NVMe segment of the whole test (RSTs aside: those without a
# socket come from the kernel's control socket) carries its priority.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_nvme.sh
. "$XNET_SRC/tests/vm/lib_nvme.sh"

H=$NV_HMOD T=$NV_TMOD
EP=$NV_T4:4420
SYN="cmp(u8 at 13 layer transport mask 0x12 eq 0x2)"

# check_live WHAT: 3 host sockets (5), listener + 3 accepted (6), debugfs
# and ss agree; host local ports into PORTS.
check_live() {
	local r st l
	ss_read
	ss_expect "$1: host sockets" ESTAB '*' $EP - 5 3
	PORTS=()
	for r in "${SS_PICK[@]}"; do
		read -r st l _ <<<"$r"
		PORTS+=("${l##*:}")
	done
	ss_read $NV_NS
	ss_expect "$1: listener" LISTEN $EP '*' - 6 1
	ss_expect "$1: accepted sockets" ESTAB $EP '*' - 6 3
	xcheck_host $H $EP
	xcheck_target $T $EP
}

nv_init
tcc_init
tcc_watch_ep h.nvme h $NV_T4 4420 5
tcc_watch_ep t.nvme t $NV_T4 4420 6
em_ep $NV_T4 4420
tcc_add h.syn h ip "$EM and $SYN"
tcc_add h.syn.p h ip "$EM and $SYN and $(em_prio 5)"
tcc_commit
tcc_snap

prio_load $H so_priority=5
prio_load $T so_priority=6
nv_target 1 $NV_T4 4420
nqn=${NV_TNQN[1]}
nv_connect $NV_T4 4420 "$nqn"
ctrl=$NV_CTRL
check_live "connected"
ports0=" ${PORTS[*]} "
pstat_read $H
tag0=${PSTAT[tagged]}

# ---- nvme reset
nv_reset "$ctrl"
nv_wait_state "$ctrl" live 20
nv_diag "reset done"
check_live "after reset"
for p in "${PORTS[@]}"; do
	[[ $ports0 != *" $p "* ]] || fail "after reset: host socket with port $p is not new"
done
pstat_read $H
[ "${PSTAT[tagged]}" -ge $((tag0 + 3)) ] ||
	fail "stats after reset: tagged ${PSTAT[tagged]}, want >= $((tag0 + 3))"
fio_start r 1 libaio "${NV_DEV[$ctrl]}"
fio_wait r

# ---- target port down, refused reconnects, port up again
tcc_read
syn0=${TCC_VAL[h.syn]}
nvmet_disable 1 "$nqn"
nv_diag "port disabled"
_not_live() {
	nv_ctrl_state "$ctrl"
	[ "$NV_R" != live ]
}
wait_until 15 _not_live || fail "host still live 15 s after the port went away"
ss_read $NV_NS
ss_pick LISTEN $EP '*' -
[ ${#SS_PICK[@]} -eq 0 ] || fail "listener still there after the port was disabled"
# reconnect_delay=1: wait for 2 refused attempts (SYN + RST each).
_two_syns() {
	tcc_read
	[ $((${TCC_VAL[h.syn]} - syn0)) -ge 2 ]
}
wait_until 15 _two_syns || fail "no reconnect attempts while the port was down"
nv_ctrl_state "$ctrl"
nv_diag "host state '$NV_R', $((${TCC_VAL[h.syn]} - syn0)) refused SYNs"
nvmet_enable 1 "$nqn"
nv_diag "port enabled again"
nv_wait_state "$ctrl" live 30
nv_diag "reconnected"
check_live "after reconnect"
fio_start c 2 io_uring "${NV_DEV[$ctrl]}"
fio_wait c

tcc_read
tcc_expect_ep h.nvme "host segments, whole test (5)"
tcc_expect_ep t.nvme "target segments, whole test (6)"
tcc_delta h.syn
all=$TCC_D
tcc_delta h.syn.p
nv_diag "host SYNs: $TCC_D of $all with priority 5"
[ "$all" -ge 11 ] || fail "only $all host SYNs (3 + 3 + refused + 3 expected)"
[ "$TCC_D" -eq "$all" ] || fail "$((all - TCC_D)) host SYNs without priority 5"

nv_disconnect "$ctrl" || fail "disconnect"
prio_unload $H
prio_unload $T
