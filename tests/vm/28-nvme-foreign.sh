#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=900
# vmtest: nodebug="a functional check of the foreign-priority rule: its paths run in 23 and 27 here"
#
# Precedence against the in-tree nvmet_tcp.so_priority ("the last writer
# wins; the module never overwrites a value someone else set after it"):
# with nvmet_tcp.so_priority=2 and nvmet_tcp_prio so_priority=5
#   listener: in-tree 2 before listen(), the module's 5 at LISTEN -> 5, orig 2
#   accepted: the module's 5 at SYN_RECV, in-tree 2 after accept  -> 2, foreign
# A parameter write re-applies to the listener only; the module warns once;
# rmmod gives the listener its 2 back and leaves the accepted sockets at 2.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_nvme.sh
. "$XNET_SRC/tests/vm/lib_nvme.sh"

M=$NV_TMOD
L=$NV_T4:4420

nv_init
nv_intree_prio 0 2
prio_load $M so_priority=5
nv_target 1 $NV_T4 4420
nv_connect $NV_T4 4420 "${NV_TNQN[1]}" nr_io_queues=2

ps_read $M
ps_expect "listener: the module's, over the in-tree value" listen $L '*' 5 2 - 1
ps_expect "accepted: the in-tree value, set after the module's" accept $L "$NV_H4:*" 2 - - 3
pstat_read $M
[ "${PSTAT[foreign]:-0}" -ge 3 ] || fail "stats: foreign ${PSTAT[foreign]:-none}, want >= 3"
nv_diag "stats: tracked ${PSTAT[tracked]} foreign ${PSTAT[foreign]}"

dmesg_tally "$M: nvmet_tcp.so_priority is set"
expect_eq "$DMESG_N" 1 "warnings about nvmet_tcp.so_priority"

# A write re-applies where the module owns the value, nowhere else.
pp_set $M so_priority 7
ps_read $M
ps_expect "listener after the write" listen $L '*' 7 2 - 1
ps_expect "accepted after the write: still theirs" accept $L "$NV_H4:*" 2 - - 3
ss_read $NV_NS
ss_expect "listener (ss)" LISTEN $L '*' - 7 1
ss_expect "accepted (ss)" ESTAB $L '*' - 2 3

prio_unload $M
ss_read $NV_NS
ss_expect "listener restored to the in-tree value" LISTEN $L '*' - 2 1
ss_expect "accepted left alone" ESTAB $L '*' - 2 3
