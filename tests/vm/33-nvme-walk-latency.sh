#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=1 mem=2048 timeout=900 icount=1
# vmtest: nodebug="a latency bound: the debug kernel's checkers make every span long; 32 runs the same walks there"
# vmtest: rt="the walk's interrupts-off spans, bounded on RT"
#
# How long the socket engine keeps interrupts off while it walks its table
# of managed sockets (issue 28, defect 4): a parameter write re-applies the
# config to every socket, and a read of the debugfs files checks every
# socket for a priority someone else set. The table's lock is a raw
# spinlock (the tracepoint probe takes it with preemption off), so a walk
# under it runs with interrupts off, on PREEMPT_RT too.
# The guest runs under -icount (one vCPU, guest time = 1 ns per guest
# instruction): the times below count the module's instructions, whatever
# the host does meanwhile (a host that deschedules a multi-threaded TCG
# vCPU makes any span milliseconds long).
#   - nvmet_tcp_prio so_priority=5 and two rules that match nothing (each
#     socket is matched against both), one nvmet port, SOCKS plain TCP
#     connections held open to it (nvmet accepts them and waits for an
#     ICReq that never comes): SOCKS accepted sockets, tracked;
#   - WRITES so_priority writes and READS reads of each debugfs file;
#   - the stats file's walk_max_ns / walk_max_socks: the longest time a
#     walk held the lock (local_clock(), guest time) and the most sockets
#     it handled in one hold.
# Passes when every held socket has the last priority written, and no walk
# held the lock for more than WALK_SOCKS sockets or WALK_US microseconds.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_nvme.sh
. "$XNET_SRC/tests/vm/lib_nvme.sh"

T=$NV_TMOD
SOCKS=10000
WRITES=20
READS=5
WALK_SOCKS=32	# NVPRIO_WALK_BATCH
WALK_US=50

nv_init
prio_load $T so_priority=5 'rules=lport=4421,prio=3;lport=4422,prio=4'
nv_target 1 $NV_T4 4420

cat >"$XNET_TMP/hold.py" <<'EOF'
import os, resource, socket, sys, time
addr, port, n = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
resource.setrlimit(resource.RLIMIT_NOFILE, (n + 64, n + 64))
held = []
for _ in range(n):
    held.append(socket.create_connection((addr, port), timeout=30))
print(len(held), flush=True)
stop = os.environ["XNET_TMP"] + "/release"
while not os.path.exists(stop):
    time.sleep(0.2)
EOF
start=$(date +%s)
python3 "$XNET_TMP/hold.py" $NV_T4 4420 "$SOCKS" >"$XNET_TMP/hold.out" 2>&1 &
hpid=$!
NV_BGPIDS+=("$hpid")
_held() { [ "$(cat "$XNET_TMP/hold.out" 2>/dev/null)" = "$SOCKS" ]; }
wait_until 600 _held || fail "could not open $SOCKS connections in 600 s: $(tail -n 3 "$XNET_TMP/hold.out")"
_tracked() {
	pstat_read $T
	[ "${PSTAT[tracked]}" -eq $((SOCKS + 1)) ]
}
wait_until 120 _tracked || fail "tracked ${PSTAT[tracked]}, want $SOCKS accepted + 1 listener"
nv_diag "$SOCKS connections held and tracked in $(($(date +%s) - start)) s"

pstat_read $T
[[ ${PSTAT[walk_max_ns]:-} =~ ^[0-9]+$ ]] || fail "stats: no numeric walk_max_ns line"
w0=${PSTAT[walk_max_ns]}

start=$(date +%s%N)
for ((i = 1; i <= WRITES; i++)); do
	nv_write /sys/module/$T/parameters/so_priority $((5 + i % 2)) ||
		fail "so_priority write $i: $NV_WERR"
done
wdone=$(date +%s%N)
# cat, not a read loop: bash reads in small chunks and seeks back, and a
# seek in a seq_file shows it again from the start.
for ((i = 1; i <= READS; i++)); do
	cat /sys/kernel/debug/$T/stats /sys/kernel/debug/$T/sockets >/dev/null
done
rdone=$(date +%s%N)
last=$((5 + WRITES % 2))

pstat_read $T
max_ns=${PSTAT[walk_max_ns]}
max_socks=${PSTAT[walk_max_socks]}
nv_diag "$WRITES writes in $(((wdone - start) / 1000000)) ms, $READS reads of stats and sockets in $(((rdone - wdone) / 1000000)) ms (wall)"
nv_diag "longest walk under the lock: $max_ns ns for $max_socks sockets (before the writes: $w0 ns)"
# Every held socket has the last priority written (role, local, remote,
# prio, orig, rule).
cat /sys/kernel/debug/$T/sockets >"$XNET_TMP/sockets"
n=$(awk -v l="$NV_T4:4420" -v p=$last '$1 == "accept" && $2 == l && $4 == p && $5 == 0' "$XNET_TMP/sockets" | wc -l)
[ "$n" -eq "$SOCKS" ] ||
	fail "$n of $SOCKS held sockets have priority $last: $(grep -v "^accept $NV_T4:4420 .* $last 0 " "$XNET_TMP/sockets" | head -n 3)"

[ "$max_socks" -le $WALK_SOCKS ] ||
	fail "a walk handled $max_socks sockets in one hold of the lock ($max_ns ns), bound $WALK_SOCKS"
[ "$max_ns" -le $((WALK_US * 1000)) ] ||
	fail "a walk held the lock (interrupts off) for $max_ns ns ($max_socks sockets), bound $WALK_US us"

: >"$XNET_TMP/release"
wait_pid "$hpid" 60 || fail "holder did not stop"
