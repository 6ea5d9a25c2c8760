#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=900
# vmtest: nodebug="one connect, one path: the target path runs under churn in 23, 24 and 27 here"
#
# nvmet_tcp_prio (target): so_priority and rules, loaded before the ports
# are enabled. Three ports with different rules:
#   rules "raddr=10.77.0.1,lport=4420,prio=10;lport=4421,prio=9;laddr=fd77::2,prio=8"
#   10.77.0.2:4420  listener: no rule (raddr rules skip listeners) -> 4, "-"
#                   accepted from 10.77.0.1: rule 0                -> 10
#   10.77.0.2:4421  listener and accepted: rule 1                 -> 9
#   [fd77::2]:4420  listener and accepted: rule 2                 -> 8
# Checks: ss and the debugfs table agree on listeners and accepted sockets
# and their priorities; on the wire port 4420's SYN-ACKs leave with the
# listener's 4 and everything else with 10, the other ports' segments all
# with 9 / 8, no other packet with those priorities; the host's sockets
# stay 0.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_nvme.sh
. "$XNET_SRC/tests/vm/lib_nvme.sh"

M=$NV_TMOD
RULES="raddr=10.77.0.1,lport=4420,prio=10;lport=4421,prio=9;laddr=fd77::2,prio=8"
# Canonical field order: laddr, lport, raddr, rport, prio.
RULES_CANON="lport=4420,raddr=10.77.0.1,prio=10;lport=4421,prio=9;laddr=fd77::2,prio=8"
L1=$NV_T4:4420 L2=$NV_T4:4421 L3=[$NV_T6]:4420
SYNACK="cmp(u8 at 13 layer transport mask 0x12 eq 0x12)"

nv_init
tcc_init
tcc_watch_ep t.p1 t $NV_T4 4420 10
em_ep $NV_T4 4420
tcc_add t.p1.synack4 t ip "$EM and $SYNACK and $(em_prio 4)"
tcc_watch_ep t.p2 t $NV_T4 4421 9
tcc_watch_ep t.p3 t $NV_T6 4420 8
for p in 4 8 9 10; do tcc_add t.p$p t all "$(em_prio $p)"; done
tcc_commit
tcc_snap

prio_load $M so_priority=4 "rules=$RULES"
pp_get $M rules
expect_eq "$NV_R" "$RULES_CANON" "$M.rules read back (canonical)"
nv_target 1 $NV_T4 4420
nv_target 2 $NV_T4 4421
nv_target 3 $NV_T6 4420
nv_diag "3 ports enabled"
ss_read $NV_NS
ss_expect "listener $L1" LISTEN $L1 '*' - 4 1
ss_expect "listener $L2" LISTEN $L2 '*' - 9 1
ss_expect "listener $L3" LISTEN "$L3" '*' - 8 1

devs=()
nv_connect $NV_T4 4420 "${NV_TNQN[1]}"
devs+=("${NV_DEV[$NV_CTRL]}")
nv_connect $NV_T4 4421 "${NV_TNQN[2]}"
devs+=("${NV_DEV[$NV_CTRL]}")
nv_connect $NV_T6 4420 "${NV_TNQN[3]}"
devs+=("${NV_DEV[$NV_CTRL]}")
nv_diag "3 controllers connected"
fio_start io 2 pvsync2 "${devs[@]}"

ss_read $NV_NS
ss_expect "listener $L1" LISTEN $L1 '*' - 4 1
ss_expect "listener $L2" LISTEN $L2 '*' - 9 1
ss_expect "listener $L3" LISTEN "$L3" '*' - 8 1
ss_expect "accepted on $L1" ESTAB $L1 '*' - 10 3
ss_expect "accepted on $L2" ESTAB $L2 '*' - 9 3
ss_expect "accepted on $L3" ESTAB "$L3" '*' - 8 3
ps_read $M
ps_expect "debugfs listener $L1" listen $L1 '*' 4 0 - 1
ps_expect "debugfs listener $L2" listen $L2 '*' 9 0 1 1
ps_expect "debugfs listener $L3" listen "$L3" '*' 8 0 2 1
ps_expect "debugfs accepted on $L1" accept $L1 $NV_H4:'*' 10 0 0 3
ps_expect "debugfs accepted on $L2" accept $L2 $NV_H4:'*' 9 0 1 3
ps_expect "debugfs accepted on $L3" accept "$L3" "[$NV_H6]:*" 8 0 2 3
xcheck_target $M $L1 $L2 "$L3"
pstat_read $M
nv_diag "stats: tracked ${PSTAT[tracked]} tagged ${PSTAT[tagged]}"
[ "${PSTAT[tagged]}" -ge 12 ] || fail "stats: tagged ${PSTAT[tagged]}, want >= 12"
ss_read
ss_expect "host sockets (not the target module's)" ESTAB '*' :4420 - 0 6
ss_expect "host sockets (not the target module's)" ESTAB '*' :4421 - 0 3

fio_wait io
tcc_read
tcc_delta t.p1
all=$TCC_D
tcc_delta t.p1.p
p10=$TCC_D
tcc_delta t.p1.synack4
sa=$TCC_D
nv_diag "tc $L1: $all segments: $p10 with 10, $sa SYN-ACKs with 4"
[ "$p10" -gt 0 ] || fail "$L1: no segment with priority 10"
[ "$sa" -ge 3 ] || fail "$L1: $sa SYN-ACKs with the listener's priority 4, want >= 3"
[ $((p10 + sa)) -eq "$all" ] || fail "$L1: $((all - p10 - sa)) segments with other priorities"
tcc_expect_ep t.p2 "segments from $L2 (9)"
tcc_expect_ep t.p3 "segments from $L3 (8)"
for c in p4:t.p1.synack4 p10:t.p1.pr p9:t.p2.pr p8:t.p3.pr; do
	tcc_delta t.${c%%:*}
	other=$TCC_D
	tcc_delta "${c#*:}"
	other=$((other - TCC_D))
	[ "$other" -eq 0 ] || fail "$other other packets left with priority ${c%%:*}"
done

nv_disconnect_all || fail "disconnect"
prio_unload $M
