#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Allocation failure on every path a user can drive, one allocation at a
# time (tests/vm/failnth.py: /proc/thread-self/fail-nth, N = 1, 2, ... until
# the operation no longer reaches an N-th allocation; for a module load the
# last 120 points, the init and what follows it): loading each module
# (with a multi-queue device present, pp_frag with a devices= pool, the NVMe
# modules with rules), enabling an xps_flow table, sizing a pp_frag pool,
# parsing NVMe priority rules. Every injected failure must give a clean
# ENOMEM with nothing changed (the file still reads its old value, the
# module is not loaded), or a complete success where the allocation was
# optional. Leaks and warnings are the harness's checks: kmemleak after the
# test, the console scan. Needs CONFIG_FAULT_INJECTION (the debug kernel of
# `scripts/vmtest.sh --debug`; Debian's kernel has none: skipped there).
# vmtest: timeout=600
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"

[ -e /proc/self/fail-nth ] || skip "kernel without CONFIG_FAULT_INJECTION (run with --debug)"
fi_dir=/sys/kernel/debug
for a in failslab fail_page_alloc; do
	[ -d $fi_dir/$a ] || skip "no $fi_dir/$a"
	echo N >$fi_dir/$a/ignore-gfp-wait	# GFP_KERNEL fails too
	echo 0 >$fi_dir/$a/verbose		# one failure = one line, not a stack
done
echo 0 >$fi_dir/fail_page_alloc/min-order
echo N >$fi_dir/fail_page_alloc/ignore-gfp-highmem

FAILNTH=$XNET_SRC/tests/vm/failnth.py
DEV=fi0
/sbin/ip link add $DEV numtxqueues 4 numrxqueues 4 type dummy || fail "dummy device"
/sbin/ip link set $DEV up

failnth() { python3 "$FAILNTH" "$@" 2>&1; }

# load_each MOD [PARAMS]: the last LOAD_WINDOW points of loading MOD (its
# init, and the loader's steps after it; see failnth.py --last).
LOAD_WINDOW=${XNET_FI_LOAD_WINDOW:-120}
load_each() {
	local m=$1 name ko dep
	shift
	name=${m##*/}
	ko=$(mod_path "$m")
	! mod_loaded "$name" || fail "$name is loaded already"
	dep=$(/sbin/modinfo -F depends "$ko")
	for dep in ${dep//,/ }; do
		mod_loaded "$dep" || /sbin/modprobe "$dep" || fail "modprobe $dep"
	done
	failnth --last "$LOAD_WINDOW" insmod "$ko" "$@" || fail "insmod $name under fault injection"
	! mod_loaded "$name" || fail "$name left loaded"
}

# sysfs_of MOD FILE: load MOD, its per-device FILE of $DEV into F.
sysfs_of() {
	load_mod "$1/$1"
	F=/sys/class/net/$DEV/$2
	[ -f "$F" ] || fail "no $F"
}

xps_table() {
	sysfs_of xps_flow xps_dev_flow_table_cnt
	failnth write "$F" 4096 || fail "xps_dev_flow_table_cnt under fault injection"
	expect_eq "$(cat "$F")" 0 "table off after the last undo"
	echo 1024 >"$F" || fail "enable after the run"
	failnth write "$F" 65536 || fail "table resize under fault injection"
	expect_eq "$(cat "$F")" 1024 "table size after the last undo"
	echo 0 >"$F"
	unload_mod xps_flow
}

pp_pool() {
	sysfs_of pp_frag pp_frag_pool_pages
	failnth write "$F" 64 || fail "pp_frag_pool_pages under fault injection"
	expect_eq "$(cat "$F")" 0 "pool off after the last undo"
	unload_mod pp_frag
}

nvme_rules() {
	local f=/sys/module/nvme_tcp_prio/parameters/rules
	local r='raddr=10.0.0.0/24,rport=4420,prio=3;raddr=fd00::/64,prio=5;lport=4421,prio=2'
	load_mod nvme_tcp_prio/nvme_tcp_prio rules='rport=4420,prio=1'
	failnth write $f "$r" || fail "rules under fault injection"
	unload_mod nvme_tcp_prio
}

ktap_plan 7
ktap_result "insmod xps_flow (a multi-queue device present)" load_each xps_flow/xps_flow
ktap_result "insmod pp_frag devices=$DEV:32" load_each pp_frag/pp_frag devices=$DEV:32
ktap_result "insmod nvme_tcp_prio rules=..." load_each nvme_tcp_prio/nvme_tcp_prio \
	rules='raddr=10.0.0.0/24,rport=4420,prio=3'
ktap_result "insmod nvmet_tcp_prio rules=..." load_each nvmet_tcp_prio/nvmet_tcp_prio \
	rules='lport=4420,prio=3'
ktap_result "xps_flow: enable and resize a table" xps_table
ktap_result "pp_frag: size a pool" pp_pool
ktap_result "nvme_tcp_prio: replace the rules" nvme_rules
ktap_finish
