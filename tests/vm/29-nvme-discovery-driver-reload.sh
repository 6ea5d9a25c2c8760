#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=900
#
# A. Discovery controllers: "nvme discover" opens its own (short-lived)
#    admin connection; with nvme_tcp_prio so_priority=3 and nvmet_tcp_prio
#    so_priority=4, every segment of it carries 3 (host) / 4 (target), SYN
#    and SYN-ACK included, and it is untracked again when it closes.
# B. The stock drivers unloaded and reloaded while our modules stay: after
#    rmmod/modprobe of nvme_tcp and nvmet_tcp, the new listener and the
#    new connection are tagged again (the target module learns the new
#    nvmet_tcp's callback; its old address was forgotten at unload).
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_nvme.sh
. "$XNET_SRC/tests/vm/lib_nvme.sh"

H=$NV_HMOD T=$NV_TMOD
EP=$NV_T4:4420

nv_init
tcc_init
tcc_watch_ep h.d h $NV_T4 4420 3
tcc_watch_ep t.d t $NV_T4 4420 4
tcc_commit
prio_load $H so_priority=3
prio_load $T so_priority=4
nv_target 1 $NV_T4 4420

# ---- A: discovery
pstat_read $H
tagged0=${PSTAT[tagged]}
tcc_snap
out=$(timeout -k 5 30 /usr/sbin/nvme discover -t tcp -a $NV_T4 -s 4420 -q "$NV_HOSTNQN" 2>&1) ||
	fail "nvme discover: $out"
[[ $out == *"${NV_TNQN[1]}"* ]] || fail "discovery log without ${NV_TNQN[1]}: $out"
tcc_read
tcc_expect_ep h.d "host segments of the discovery connection"
tcc_expect_ep t.d "target segments of the discovery connection"
pstat_read $H
expect_eq "$((PSTAT[tagged] - tagged0))" 1 "host sockets tagged by one discovery"
untracked() {
	pstat_read $H
	[ "${PSTAT[tracked]}" = 0 ]
}
wait_until 10 untracked ||
	fail "discovery socket still tracked after the controller went away"

# ---- B: the stock drivers go away and come back; ours stay loaded
nv_connect $NV_T4 4420 "${NV_TNQN[1]}" nr_io_queues=1
nv_disconnect_all || fail "disconnect"
nvmet_disable 1 "${NV_TNQN[1]}"
/sbin/rmmod nvme_tcp || fail "rmmod nvme_tcp"
/sbin/rmmod nvmet_tcp || fail "rmmod nvmet_tcp"
mod_loaded $H || fail "$H went away with nvme_tcp"
mod_loaded $T || fail "$T went away with nvmet_tcp"
/sbin/modprobe nvmet_tcp || fail "modprobe nvmet_tcp"
/sbin/modprobe nvme_tcp || fail "modprobe nvme_tcp"
nv_diag "nvme_tcp and nvmet_tcp reloaded"
nvmet_enable 1 "${NV_TNQN[1]}"
nv_connect $NV_T4 4420 "${NV_TNQN[1]}" nr_io_queues=1
ss_read $NV_NS
ss_expect "listener of the reloaded nvmet_tcp" LISTEN $EP '*' - 4 1
ss_expect "accepted by the reloaded nvmet_tcp" ESTAB $EP '*' - 4 2
ss_read
ss_expect "host sockets of the reloaded nvme_tcp" ESTAB '*' $EP - 3 2
xcheck_host $H $EP
xcheck_target $T $EP
