#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=900
# vmtest: nodebug="parameter parsing: the fuzz tier, KUnit and 60-fault-injection cover it with checkers"
#
# Bad so_priority / rules values, for both modules:
# - insmod with one fails (the module is not loaded) and logs exactly one
#   error line of the module's own (besides the kernel's generic "... invalid
#   for parameter ..." line);
# - a runtime write fails with EINVAL, logs exactly one error line
#   (KERN_ERR, prefixed with the module name), and changes nothing: the
#   value read back, the debugfs table (live NVMe connection: host sockets,
#   target listener and accepted sockets), ss, stats "reapplied".
# Good edge values are accepted (so that a module refusing everything does
# not pass): 0, 4294967295, leading zeros, 32 rules, "" and wildcards.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_nvme.sh
. "$XNET_SRC/tests/vm/lib_nvme.sh"

H=$NV_HMOD T=$NV_TMOD
EP=$NV_T4:4420

BAD_PRIO=(-1 +1 4294967296 99999999999999999999 abc 0x10 12abc " 1" "1 " "" "1,2")
BAD_RULES=(bogus "prio=" "prio=-1" "prio=4294967296" "prio=*" "raddr=10.0.0.1"
	"prio=1,prio=2" "prio=1,color=red" "prio=1,raddr" "prio=1,rport=0"
	"prio=1,rport=65536" "prio=1,raddr=10.0.0.1/24" "prio=1,raddr=10.0.0.300"
	"prio=1,laddr=10.0.0.1,raddr=fd00::1" "prio=1;;prio=2" "prio=1;" "prio=1,"
	"prio=1, raddr=10.0.0.1" "prio=1,lport=4420x")
r33=
for ((i = 0; i < 33; i++)); do r33+="${r33:+;}prio=$i"; done
BAD_RULES+=("$r33")
long=$(printf '%05000d' 1) # longer than a page: sysfs passes 4096 bytes
BAD_RULES+=("prio=1,raddr=$long")
r32=${r33%;prio=32}

nmark=0
# bad_insmod MOD PARAM=VALUE
bad_insmod() {
	local m=$1 out rc=0
	nmark=$((nmark + 1))
	kmsg_mark "m$nmark"
	MARKS+=("m$nmark|$m|insmod $2")
	out=$(/sbin/insmod "$(mod_path "$m/$m")" "$2" 2>&1) || rc=$?
	kmsg_mark "m$nmark.end"
	[ $rc -ne 0 ] || { /sbin/rmmod "$m"; fail "insmod $m '$2' succeeded"; }
	! mod_loaded "$m" || fail "$m loaded after insmod '$2' failed"
}

# bad_write MOD PARAM VALUE: refused with EINVAL, value unchanged.
bad_write() {
	local m=$1 p=$2 v=$3 before
	pp_get "$m" "$p"
	before=$NV_R
	nmark=$((nmark + 1))
	kmsg_mark "m$nmark"
	MARKS+=("m$nmark|$m|$p='${v:0:40}'")
	if nv_write "/sys/module/$m/parameters/$p" "$v"; then
		fail "$m.$p='${v:0:60}' accepted"
	fi
	kmsg_mark "m$nmark.end"
	case $NV_WERR in
	"Invalid argument") ;;
	"Argument list too long") [ ${#v} -gt 4000 ] || fail "$m.$p='$v': $NV_WERR, want EINVAL" ;;
	*) fail "$m.$p='${v:0:60}': '$NV_WERR', want EINVAL" ;;
	esac
	pp_get "$m" "$p"
	expect_eq "$NV_R" "$before" "$m.$p after refused '${v:0:40}'"
}

# good_write MOD PARAM VALUE CANONICAL
good_write() {
	pp_set "$1" "$2" "$3"
	pp_get "$1" "$2"
	expect_eq "$NV_R" "$4" "$1.$2 read back after '${3:0:40}'"
}

# snapshot: debugfs tables, ss priorities, stats "reapplied" of both.
snapshot() {
	local s x
	ps_read $H
	mapfile -t x < <(printf '%s\n' "${PS_ROWS[@]}" | sort)
	s="${x[*]}|"
	ps_read $T
	mapfile -t x < <(printf '%s\n' "${PS_ROWS[@]}" | sort)
	s+="${x[*]}|"
	pstat_read $H
	s+="${PSTAT[reapplied]}|"
	pstat_read $T
	s+="${PSTAT[reapplied]}|"
	ss_read
	ss_pick ESTAB '*' $EP -
	mapfile -t x < <(printf '%s\n' "${SS_PICK[@]}" | sort)
	s+="${x[*]}|"
	ss_read $NV_NS
	ss_pick LISTEN $EP '*' -
	s+="${SS_PICK[*]}|"
	ss_pick ESTAB $EP '*' -
	mapfile -t x < <(printf '%s\n' "${SS_PICK[@]}" | sort)
	s+="${x[*]}"
	SNAP=$s
}

MARKS=()
nv_init
for m in $H $T; do
	for v in so_priority=-1 so_priority=4294967296 so_priority=abc so_priority= \
		rules=bogus "rules=prio=1;" "rules=prio=1,rport=0"; do
		bad_insmod "$m" "$v"
	done
done
nv_diag "insmod with bad values refused"

prio_load $H so_priority=5 "rules=rport=4420,prio=7"
prio_load $T so_priority=6 "rules=lport=4420,prio=8"
nv_target 1 $NV_T4 4420
nv_connect $NV_T4 4420 "${NV_TNQN[1]}"
ctrl=$NV_CTRL
ss_read
ss_expect "host sockets" ESTAB '*' $EP - 7 3
ss_read $NV_NS
ss_expect "accepted sockets" ESTAB $EP '*' - 8 3
snapshot
snap0=$SNAP

for m in $H $T; do
	for v in "${BAD_PRIO[@]}"; do bad_write "$m" so_priority "$v"; done
	for v in "${BAD_RULES[@]}"; do bad_write "$m" rules "$v"; done
done
nv_diag "$((${#BAD_PRIO[@]} + ${#BAD_RULES[@]})) bad writes per module refused"
snapshot
if [ "$SNAP" != "$snap0" ]; then
	echo "# before: $snap0"
	echo "# after:  $SNAP"
	fail "refused writes changed sockets, tables or stats"
fi

# One error line of the module's own per refused value.
kmsg_load
kmsg_split
for ((i = 0; i < ${#MARKS[@]}; i++)); do
	IFS='|' read -r tag m what <<<"${MARKS[i]}"
	[ -n "${KSEG[$tag]+x}" ] || fail "kernel log marker '$tag' not found"
	mapfile -t KMSG <<<"${KSEG[$tag]%$'\n'}"
	mine=() errs=0
	for l in "${KMSG[@]}"; do
		[ -n "$l" ] || continue
		[[ $l == *"] $m: "* ]] || continue
		[[ $l == *"invalid for parameter"* ]] && continue # kernel/params.c
		mine+=("$l")
		[[ $l == "<3>"* ]] && errs=$((errs + 1))
	done
	if [ ${#mine[@]} -ne 1 ] || [ $errs -ne 1 ]; then
		_dump_rows "kernel log:" "${KMSG[@]}"
		fail "$m, $what: ${#mine[@]} log lines of the module ($errs at KERN_ERR), want exactly 1 error"
	fi
done
nv_diag "one KERN_ERR line per refused value (${#MARKS[@]})"

# Good edge values are accepted.
for m in $H $T; do
	good_write "$m" rules "" ""
	good_write "$m" so_priority 0 0
	good_write "$m" so_priority 4294967295 4294967295
	good_write "$m" so_priority 0009 9
	good_write "$m" rules "$r32" "$r32"
	good_write "$m" rules "laddr=*,lport=*,raddr=*,rport=*,prio=0000012" "prio=12"
	good_write "$m" rules "prio=3,raddr=[FD77::0]/16" "raddr=fd77::/16,prio=3"
	good_write "$m" rules "" ""
	good_write "$m" so_priority 4294967295 4294967295
done
ss_read
ss_expect "host sockets at so_priority 4294967295" ESTAB '*' $EP - 4294967295 3
ss_read $NV_NS
ss_expect "accepted sockets at so_priority 4294967295" ESTAB $EP '*' - 4294967295 3
nv_diag "good edge values accepted"

nv_disconnect "$ctrl" || fail "disconnect"
prio_unload $H
prio_unload $T
