#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=900 baseline=1
# vmtest: nodebug="a baseline of the stock drivers: no project code"
#
# A baseline, not a test of the project (reported "# baseline", not counted
# as passed). Validates the NVMe/TCP test tooling (tests/vm/lib_nvme.sh) with the stock
# drivers only: no project module. The in-tree nvme_tcp.so_priority=5 and
# nvmet_tcp.so_priority=3 are set before the port is enabled and before the
# host connects ("nvme connect"), then 2 s of fio:
# - ss (sock_diag class_id) shows 5 on the host's 3 sockets (admin + 2 I/O
#   queues), 3 on the target's listener and accepted sockets, 0 on a
#   user-space connection to port 4420 of another target address;
# - the tc egress counters on the veth ends see NVMe segments with those
#   priorities, the user connection's with 0, and no other packet with 5/3.
# The stock target applies so_priority only after accept(): segments the
# accepted socket sends before that (an ACK of the ICReq) leave with 0;
# a few are tolerated and reported.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_nvme.sh
. "$XNET_SRC/tests/vm/lib_nvme.sh"

HP=5 TP=3
nv_init
nv_intree_prio $HP $TP
nv_target 1 $NV_T4 4420
usock_start $NV_NS "L,$NV_U4,4420,0"

tcc_init
tcc_watch_ep h.nvme h $NV_T4 4420 $HP
tcc_watch_ep t.nvme t $NV_T4 4420 $TP
tcc_watch_ep h.user h $NV_U4 4420 0
tcc_watch_ep t.user t $NV_U4 4420 0
tcc_watch_side h $HP
tcc_watch_side t $TP
tcc_commit
tcc_snap
nv_diag "target up, tc counters installed"

nv_connect_cli $NV_T4 4420 "${NV_TNQN[1]}"
nv_diag "nvme connect: $NV_CTRL ${NV_DEV[$NV_CTRL]}"
fio_start io 2 libaio "${NV_DEV[$NV_CTRL]}"

# User-space traffic to port 4420 of another address, from this shell.
exec {ufd}<>/dev/tcp/$NV_U4/4420 || fail "user connection to $NV_U4:4420"
for i in 1 2 3 4 5; do
	echo "user data $i" >&$ufd
	read -r -t 5 reply <&$ufd || fail "no echo from the user listener"
done

ss_read
ss_expect "host nvme-tcp sockets" ESTAB '*' $NV_T4:4420 - $HP 3
ss_expect "host user socket" ESTAB '*' $NV_U4:4420 bash 0 1
ss_read $NV_NS
ss_expect "nvmet listener" LISTEN $NV_T4:4420 '*' - $TP 1
ss_expect "nvmet accepted sockets" ESTAB $NV_T4:4420 '*' - $TP 3
ss_expect "user listener" LISTEN $NV_U4:4420 '*' python3 0 1
ss_expect "user accepted socket" ESTAB $NV_U4:4420 '*' python3 0 1
nv_diag "ss: priorities as expected"

fio_wait io
tcc_read
tcc_expect_ep h.nvme "host NVMe/TCP segments (priority $HP)"
tcc_expect_ep h.user "host user segments to $NV_U4:4420 (priority 0)"
tcc_expect_ep t.user "target user segments from $NV_U4:4420 (priority 0)"
tcc_delta t.nvme
all=$TCC_D
tcc_delta t.nvme.p
p=$TCC_D
nv_diag "tc t.nvme: $p of $all target NVMe segments with priority $TP"
[ "$all" -gt 100 ] || fail "only $all target NVMe segments counted"
# One pre-accept ACK per connection at most (3 connections).
[ $((all - p)) -le 3 ] || fail "$((all - p)) target NVMe segments without priority $TP"
for s in h:$HP t:$TP; do
	side=${s%:*} prio=${s#*:}
	tcc_delta "$side.p$prio"
	other=$TCC_D
	tcc_delta "$side.nvme.pr"
	other=$((other - TCC_D))
	tcc_delta "$side.all"
	nv_diag "tc $side: $TCC_D packets in all, $other non-NVMe ones with priority $prio"
	[ "$other" -eq 0 ] || fail "$side: $other non-NVMe packets left with priority $prio"
done
exec {ufd}>&-
nv_disconnect "$NV_CTRL"
nv_diag "disconnected"
