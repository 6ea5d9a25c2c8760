#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=900
# vmtest: nodebug="one connect, one path: the host path runs under churn in 23, 24, 27 and 31 here"
#
# nvme_tcp_prio (host): so_priority and per-endpoint rules, loaded before
# the host connects. Four controllers, one per target port:
#   10.77.0.2:4420  no rule matches         -> so_priority 5, rule "-"
#   [fd77::2]:4420  raddr=fd77::/64         -> 6, rule 0
#   10.77.0.2:4421  rport=4421              -> 9, rule 1
#   10.77.0.2:4422  laddr=..,rport=4422,prio=0 -> left untouched (0), rule 2
# Checks: rules read back canonically; ss and the debugfs table agree on
# every socket (3 per controller) and its priority; on the wire every
# segment of each connection (SYN included) carries its priority and no
# other packet does; fio works on all four; the target's sockets stay 0.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_nvme.sh
. "$XNET_SRC/tests/vm/lib_nvme.sh"

M=$NV_HMOD
RULES_IN="prio=6,raddr=fd77:0::/64;laddr=*,rport=4421,prio=9;laddr=10.77.0.0/24,rport=4422,prio=0"
RULES_CANON="raddr=fd77::/64,prio=6;rport=4421,prio=9;laddr=10.77.0.0/24,rport=4422,prio=0"
EP=("$NV_T4:4420" "[$NV_T6]:4420" "$NV_T4:4421" "$NV_T4:4422")
PRIO=(5 6 9 0)
RULE=(- 0 1 2)

nv_init
nv_target 1 $NV_T4 4420
nv_target 2 $NV_T6 4420
nv_target 3 $NV_T4 4421
nv_target 4 $NV_T4 4422
tcc_init
tcc_watch_ep h.c1 h $NV_T4 4420 5
tcc_watch_ep h.c2 h $NV_T6 4420 6
tcc_watch_ep h.c3 h $NV_T4 4421 9
tcc_watch_ep h.c4 h $NV_T4 4422 0
for p in 5 6 9; do tcc_add h.p$p h all "$(em_prio $p)"; done
tcc_commit
tcc_snap
nv_diag "target: 4 ports; tc counters installed"

prio_load $M so_priority=5 "rules=$RULES_IN"
pp_get $M so_priority
expect_eq "$NV_R" 5 "$M.so_priority read back"
pp_get $M rules
expect_eq "$NV_R" "$RULES_CANON" "$M.rules read back (canonical)"

devs=()
nv_connect $NV_T4 4420 "${NV_TNQN[1]}"
devs+=("${NV_DEV[$NV_CTRL]}")
nv_connect $NV_T6 4420 "${NV_TNQN[2]}"
devs+=("${NV_DEV[$NV_CTRL]}")
nv_connect $NV_T4 4421 "${NV_TNQN[3]}"
devs+=("${NV_DEV[$NV_CTRL]}")
nv_connect $NV_T4 4422 "${NV_TNQN[4]}"
devs+=("${NV_DEV[$NV_CTRL]}")
nv_diag "4 controllers connected: ${devs[*]}"
fio_start io 2 io_uring "${devs[@]}"

ss_read
for i in 0 1 2 3; do
	ss_expect "host sockets to ${EP[i]}" ESTAB '*' "${EP[i]}" - "${PRIO[i]}" 3
done
ps_read $M
for i in 0 1 2; do
	ps_expect "debugfs rows to ${EP[i]}" host '*' "${EP[i]}" "${PRIO[i]}" 0 "${RULE[i]}" 3
done
# A prio=0 rule leaves the socket alone: priority 0, orig "-" (the module
# did not set it), and the rule column names the matching rule (2).
ps_expect "debugfs rows to ${EP[3]}" host '*' "${EP[3]}" 0 - 2 3
NV_XALL='' xcheck_host $M "${EP[@]:0:3}"
pstat_read $M
nv_diag "stats: tracked ${PSTAT[tracked]} tagged ${PSTAT[tagged]}"
[ "${PSTAT[tagged]}" -ge 9 ] || fail "stats: tagged ${PSTAT[tagged]}, want >= 9"
[ "${PSTAT[tracked]}" -ge 9 ] || fail "stats: tracked ${PSTAT[tracked]}, want >= 9"
ss_read $NV_NS
ss_expect "target sockets (not the host module's)" ESTAB '*' '*' - 0 12
ss_expect "target listeners (not the host module's)" LISTEN '*' '*' - 0 4

fio_wait io
tcc_read
tcc_expect_ep h.c1 "segments to ${EP[0]} (so_priority 5)"
tcc_expect_ep h.c2 "segments to ${EP[1]} (rule 0: 6)"
tcc_expect_ep h.c3 "segments to ${EP[2]} (rule 1: 9)"
tcc_expect_ep h.c4 "segments to ${EP[3]} (rule 2: untouched, 0)"
for i in 1 2 3; do
	tcc_delta "h.p${PRIO[i - 1]}"
	other=$TCC_D
	tcc_delta h.c$i.pr
	other=$((other - TCC_D))
	[ "$other" -eq 0 ] || fail "$other other packets left with priority ${PRIO[i - 1]}"
done

nv_disconnect_all || fail "disconnect"
prio_unload $M
