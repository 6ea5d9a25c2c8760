#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=600
# vmtest: rt="the table's raw lock against preemptible readers: RT's own failure mode"
#
# The tracked-socket table under contention: the tracepoint probe (which
# runs with preemption off) against the debugfs readers and the parameter
# writer, which take or walk the table from preemptible process context.
# On PREEMPT_RT a spinlock_t owner can be preempted; a probe that then
# waits for it sleeps with preemption off: "BUG: scheduling while atomic"
# on every RT kernel, DEBUG_ATOMIC_SLEEP or not (the harness fails on it).
#   - nvmet_tcp_prio so_priority=5, one nvmet port; HELD plain TCP
#     connections to it are held open (nvmet accepts them and waits for an
#     ICReq that never comes): HELD accepted sockets, tracked;
#   - for DURATION s: two readers cat the debugfs sockets and stats files in
#     a loop, a writer rewrites so_priority (each write re-applies to every
#     tracked socket), and a storm opens and closes connections to the port
#     (each one is tracked, re-matched when established, untracked).
# Passes when the held sockets are all still tracked with the priority the
# writer left, the storm's sockets are all gone from the table, and the
# console is clean.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_nvme.sh
. "$XNET_SRC/tests/vm/lib_nvme.sh"

T=$NV_TMOD
HELD=192
DURATION=12

reader() {
	local n=0
	while [ ! -e "$XNET_TMP/stop" ]; do
		while read -r _; do :; done </sys/kernel/debug/$T/sockets
		while read -r _; do :; done </sys/kernel/debug/$T/stats
		n=$((n + 1))
	done
	echo "$n" >"$XNET_TMP/reader.$1"
}

writer() {
	local n=0
	while [ ! -e "$XNET_TMP/stop" ]; do
		n=$((n + 1))
		printf '%s\n' $((5 + n % 2)) >/sys/module/$T/parameters/so_priority
		nsleep 0.01
	done
	printf '5\n' >/sys/module/$T/parameters/so_priority
	echo "$n" >"$XNET_TMP/writer.n"
}

nv_init
prio_load $T so_priority=5
nv_target 1 $NV_T4 4420

# The held connections, then the storm: one Python process each.
cat >"$XNET_TMP/conns.py" <<'EOF'
import socket, sys, time, os
mode, addr, port, n = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
stop = os.environ["XNET_TMP"] + "/release"
if mode == "hold":
    held = []
    for _ in range(n):
        s = socket.create_connection((addr, port), timeout=10)
        held.append(s)
    print(len(held), flush=True)
    while not os.path.exists(stop):
        time.sleep(0.1)
else:
    done = 0
    end = time.time() + n
    while time.time() < end:
        s = socket.create_connection((addr, port), timeout=10)
        s.close()
        done += 1
    print(done, flush=True)
EOF
python3 "$XNET_TMP/conns.py" hold $NV_T4 4420 $HELD >"$XNET_TMP/hold.out" 2>&1 &
hpid=$!
NV_BGPIDS+=("$hpid")
_held() { [ "$(cat "$XNET_TMP/hold.out" 2>/dev/null)" = $HELD ]; }
wait_until 30 _held || fail "could not open $HELD connections: $(cat "$XNET_TMP/hold.out")"
_tracked() {
	pstat_read $T
	[ "${PSTAT[tracked]}" -eq $((HELD + 1)) ]
}
wait_until 10 _tracked || fail "tracked ${PSTAT[tracked]}, want $HELD accepted + 1 listener"

reader 0 &
r0=$!
reader 1 &
r1=$!
writer &
wpid=$!
NV_BGPIDS+=("$r0" "$r1" "$wpid")
python3 "$XNET_TMP/conns.py" storm $NV_T4 4420 $DURATION >"$XNET_TMP/storm.out" 2>&1 ||
	fail "storm: $(cat "$XNET_TMP/storm.out")"
: >"$XNET_TMP/stop"
for p in $r0 $r1 $wpid; do
	wait_pid "$p" 20 || fail "a reader or the writer did not stop"
done
nv_diag "storm: $(cat "$XNET_TMP/storm.out") connections; reads $(cat "$XNET_TMP/reader.0")+$(cat "$XNET_TMP/reader.1"); writes $(cat "$XNET_TMP/writer.n")"

# The storm's sockets leave the table as nvmet closes them.
wait_until 20 _tracked || fail "tracked ${PSTAT[tracked]} after the storm, want $((HELD + 1))"
pstat_read $T
nv_diag "stats: tracked ${PSTAT[tracked]} tagged ${PSTAT[tagged]} untracked ${PSTAT[untracked]} nomem ${PSTAT[nomem]} rescans ${PSTAT[rescans]:-none}"
ps_read $T
ps_expect "held connections" accept "$NV_T4:4420" "$NV_H4:*" 5 0 - $HELD
: >"$XNET_TMP/release"
wait_pid "$hpid" 10 || fail "holder did not stop"
