#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=900
# vmtest: rt="sockets torn down while every write walks the table"
#
# Sockets come and go while the parameters are rewritten (every write
# re-applies to all live sockets) and the debugfs files are read:
# - writer: so_priority and rules of both modules, a new value every
#   ~20 ms; every write must succeed while the module is loaded;
# - reader: the debugfs sockets/stats files of both modules in a loop;
# - main loop (~15 s): connect to an IPv4 and an IPv6 port, fio-free
#   churn: "nvme reset", target port disabled while connected (the host
#   starts reconnecting) and enabled again, disconnect in the middle of
#   reconnecting, plain disconnect;
# - finally both modules are removed while a connection is live and the
#   writer is still writing (the reader stopped: an open debugfs file pins
#   the module).
# Passes when nothing oopses or warns (the harness checks the console and
# taint), every bounded step finishes, the connection left works, and the
# final sockets are back at their original priority.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_nvme.sh
. "$XNET_SRC/tests/vm/lib_nvme.sh"

H=$NV_HMOD T=$NV_TMOD
DURATION=15

writer() {
	local i=0 m p v rc nbad=0 n=0
	local hv=("rport=4420,prio=7" "" "raddr=fd77::/64,prio=8;prio=3" "laddr=10.77.0.0/24,prio=0")
	local tv=("lport=4420,prio=9" "" "laddr=fd77::2,prio=10;raddr=10.77.0.1,prio=11" "prio=0")
	while [ ! -e "$XNET_TMP/stop" ]; do
		i=$((i + 1))
		for m in $H $T; do
			if [ $((i % 2)) -eq 0 ]; then
				p=so_priority v=$((i % 13))
			elif [ "$m" = "$H" ]; then
				p=rules v=${hv[i / 2 % 4]}
			else
				p=rules v=${tv[i / 2 % 4]}
			fi
			rc=0
			{ printf '%s\n' "$v" >"/sys/module/$m/parameters/$p"; } 2>/dev/null || rc=1
			n=$((n + 1))
			if [ $rc -ne 0 ] && [ ! -e "$XNET_TMP/unloading" ]; then
				nbad=$((nbad + 1))
				echo "write $m.$p='$v' failed while loaded" >>"$XNET_TMP/writer.err"
			fi
		done
		nsleep 0.02
	done
	echo "$n $nbad" >"$XNET_TMP/writer.done"
}

reader() {
	local n=0 f l
	while [ ! -e "$XNET_TMP/stop" ] && [ ! -e "$XNET_TMP/unloading" ]; do
		for f in /sys/kernel/debug/$H/sockets /sys/kernel/debug/$H/stats \
			/sys/kernel/debug/$T/sockets /sys/kernel/debug/$T/stats; do
			[ -r "$f" ] || continue
			while read -r l; do :; done <"$f" 2>/dev/null || true
			n=$((n + 1))
		done
		nsleep 0.05
	done
	echo "$n" >"$XNET_TMP/reader.done"
}

nv_init
prio_load $H so_priority=5 "rules=rport=4420,prio=7"
prio_load $T so_priority=6 "rules=lport=4420,prio=9"
ps_read $H # the interface exists: fail here clearly, not in the loops
ps_read $T
nv_target 1 $NV_T4 4420
nv_target 2 $NV_T6 4420
writer &
wpid=$!
reader &
rpid=$!
NV_BGPIDS+=("$wpid" "$rpid")

end=$((SECONDS + DURATION))
it=0
while [ $SECONDS -lt $end ]; do
	it=$((it + 1))
	nv_connect $NV_T4 4420 "${NV_TNQN[1]}"
	c4=$NV_CTRL
	nv_connect $NV_T6 4420 "${NV_TNQN[2]}"
	c6=$NV_CTRL
	case $((it % 3)) in
	0)
		nv_reset "$c4"
		nv_wait_state "$c4" live 20
		;;
	1)
		nvmet_disable 1 "${NV_TNQN[1]}"
		_not_live() {
			nv_ctrl_state "$c4"
			[ "$NV_R" != live ]
		}
		wait_until 15 _not_live || fail "host still live 15 s after the port went away"
		nsleep 1.2
		nvmet_enable 1 "${NV_TNQN[1]}"
		nsleep 0.3 # delete while the host is (re)connecting
		;;
	2)
		nvmet_disable 2 "${NV_TNQN[2]}"
		nsleep 0.5
		nvmet_enable 2 "${NV_TNQN[2]}"
		;;
	esac
	nv_disconnect "$c4" || fail "iteration $it: disconnect $c4 hung"
	nv_disconnect "$c6" || fail "iteration $it: disconnect $c6 hung"
done
nv_diag "$it connect/teardown iterations"
for c in /sys/class/nvme/nvme*; do
	[ -e "$c" ] && fail "controller ${c##*/} left after disconnect"
done

# Remove both modules under a live connection, the writer still running.
# The reader stops first: an open debugfs file holds a module reference,
# and rmmod refuses a module in use.
nv_connect $NV_T4 4420 "${NV_TNQN[1]}"
ctrl=$NV_CTRL
nsleep 0.5
: >"$XNET_TMP/unloading"
wait_pid $rpid 10 || fail "reader did not stop"
prio_unload $H
prio_unload $T
: >"$XNET_TMP/stop"
wait_pid $wpid 10 || fail "writer did not stop"
wait_pid $rpid 10 || fail "reader did not stop"
read -r n bad <"$XNET_TMP/writer.done" || fail "writer gave no result"
read -r reads <"$XNET_TMP/reader.done" || fail "reader gave no result"
nv_diag "writer: $n writes, $bad failed while loaded; reader: $reads file reads"
if [ "$bad" -ne 0 ]; then
	head -n 5 "$XNET_TMP/writer.err" | while IFS= read -r l; do echo "# $l"; done
	fail "$bad parameter writes failed while the module was loaded"
fi
[ "$n" -ge 100 ] || fail "writer made only $n writes"

ss_read
ss_expect "host sockets after rmmod" ESTAB '*' $NV_T4:4420 - 0 3
ss_read $NV_NS
ss_expect "target listener after rmmod" LISTEN $NV_T4:4420 '*' - 0 1
ss_expect "target sockets after rmmod" ESTAB $NV_T4:4420 '*' - 0 3
fio_start io 1 libaio "${NV_DEV[$ctrl]}"
fio_wait io
nv_disconnect "$ctrl" || fail "disconnect"
