#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=900
# vmtest: rt="the re-apply walk over live sockets and the restore at unload"
#
# Runtime writes of so_priority/rules re-apply to live sockets; rmmod
# restores the priority each socket had before; in both load orders:
# A. modules first (nvme_tcp_prio, then nvmet_tcp_prio), then the port and
#    the connection: host 5 / target 6; while fio runs, host so_priority=7,
#    then host rules -> 9 and target rules -> 11 (ss, debugfs, stats
#    "reapplied", and the wire after the change); host rules "" -> back to
#    7; rmmod of each module restores 0; the connection still works.
# B. connection first, with the stock params (host 2, target 1, so the
#    original priorities are not 0), then nvmet_tcp_prio (6) and
#    nvme_tcp_prio (5) adopt the live sockets (debugfs orig = 2 / 1);
#    runtime so_priority writes (13 / 12); rmmod host first, then target,
#    restores 2 / 1.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_nvme.sh
. "$XNET_SRC/tests/vm/lib_nvme.sh"

H=$NV_HMOD T=$NV_TMOD
EP=$NV_T4:4420

# expect_live HPRIO TPRIO WHAT: ss on both sides (3 host sockets, the
# listener and 3 accepted sockets).
expect_live() {
	ss_read
	ss_expect "$3: host sockets" ESTAB '*' $EP - "$1" 3
	ss_read $NV_NS
	ss_expect "$3: listener" LISTEN $EP '*' - "$2" 1
	ss_expect "$3: accepted sockets" ESTAB $EP '*' - "$2" 3
	nv_diag "$3: host $1, target $2"
}

nv_init
tcc_init
tcc_watch_ep h.a h $NV_T4 4420 5
tcc_watch_ep t.a t $NV_T4 4420 6
tcc_watch_ep h.b h $NV_T4 4420 9
tcc_watch_ep t.b t $NV_T4 4420 11
tcc_commit

# ---- A: modules before the connection
tcc_snap
prio_load $H so_priority=5
prio_load $T so_priority=6
nv_target 1 $NV_T4 4420
nv_connect $NV_T4 4420 "${NV_TNQN[1]}"
ctrl=$NV_CTRL
expect_live 5 6 "A: loaded before connect"
tcc_read
tcc_expect_ep h.a "A: host segments up to now (5)"
tcc_expect_ep t.a "A: target segments up to now (6)"

fio_start a 3 libaio "${NV_DEV[$ctrl]}" # I/O while the writes re-apply
pstat_read $H
re0=${PSTAT[reapplied]}
pp_set $H so_priority 7
expect_live 7 6 "A: host so_priority=7"
ps_read $H
ps_expect "A: debugfs after so_priority=7" host '*' $EP 7 0 - 3
pstat_read $H
[ "${PSTAT[reapplied]}" -ge $((re0 + 3)) ] ||
	fail "A: stats reapplied ${PSTAT[reapplied]}, want >= $((re0 + 3))"
pp_set $H rules "raddr=10.77.0.0/24,rport=4420,prio=9"
pp_get $H rules
expect_eq "$NV_R" "raddr=10.77.0.0/24,rport=4420,prio=9" "A: $H.rules read back"
pp_set $T rules "lport=4420,prio=11"
expect_live 9 11 "A: rules written"
ps_read $H
ps_expect "A: host debugfs after rules" host '*' $EP 9 0 0 3
ps_read $T
ps_expect "A: target debugfs listener after rules" listen $EP '*' 11 0 0 1
ps_expect "A: target debugfs accepted after rules" accept $EP '*' 11 0 0 3
xcheck_host $H $EP
xcheck_target $T $EP
fio_wait a
tcc_snap
fio_start a1 1 libaio "${NV_DEV[$ctrl]}"
fio_wait a1
tcc_read
tcc_expect_ep h.b "A: host segments after the runtime change (9)"
tcc_expect_ep t.b "A: target segments after the runtime change (11)"

pp_set $H rules ""
pp_get $H rules
expect_eq "$NV_R" "" "A: $H.rules read back"
expect_live 7 11 "A: host rules cleared"
prio_unload $H
expect_live 0 11 "A: $H removed"
prio_unload $T
expect_live 0 0 "A: $T removed"
fio_start a2 1 pvsync2 "${NV_DEV[$ctrl]}"
fio_wait a2
nv_disconnect "$ctrl" || fail "disconnect"

# ---- B: connection first (stock priorities 2 / 1), then the modules
nv_intree_prio 2 1
nvmet_disable 1 "${NV_TNQN[1]}" # re-create the listener with priority 1
nvmet_enable 1 "${NV_TNQN[1]}"
nv_connect $NV_T4 4420 "${NV_TNQN[1]}"
ctrl=$NV_CTRL
# The stock target sets its priority after accept(), from a work item.
_b_accepted() {
	ss_read $NV_NS
	ss_pick ESTAB $EP '*' -
	local r
	[ ${#SS_PICK[@]} -eq 3 ] || return 1
	for r in "${SS_PICK[@]}"; do [[ $r == *" 1 -" ]] || return 1; done
}
wait_until 10 _b_accepted || true
expect_live 2 1 "B: stock drivers"
prio_load $T so_priority=6
expect_live 2 6 "B: $T loaded on live sockets"
prio_load $H so_priority=5
expect_live 5 6 "B: $H loaded on live sockets"
ps_read $H
ps_expect "B: host debugfs" host '*' $EP 5 2 - 3
ps_read $T
ps_expect "B: target debugfs listener" listen $EP '*' 6 1 - 1
ps_expect "B: target debugfs accepted" accept $EP '*' 6 1 - 3
fio_start b 2 io_uring "${NV_DEV[$ctrl]}"
pp_set $T so_priority 12
pp_set $H so_priority 13
expect_live 13 12 "B: runtime so_priority"
fio_wait b
prio_unload $H
expect_live 2 12 "B: $H removed"
prio_unload $T
expect_live 2 1 "B: $T removed"
nv_disconnect "$ctrl" || fail "disconnect"
