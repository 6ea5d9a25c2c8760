# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers for guest tests (tests/vm/NN-name.sh). Source it with
#   . "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
#
# A test is one KTAP test case: exit 0 = ok, 4 = skip, anything else = not ok.
# Output lines that are not KTAP are turned into "# " diagnostics by the
# runner. Env: XNET_SRC (project dir), XNET_KVER (guest kernel version),
# XNET_TMP (empty writable scratch dir, also the cwd).
#
# Call real tools by full path (/sbin/ip, /sbin/tc): the guest's userland is
# the build machine's root filesystem, but a busybox applet of the same name
# must never be picked up by accident.

TAINT_OK_DEFAULT=$((4096 | 8192)) # O (out-of-tree) | E (unsigned)
_ktap_n=0
_ktap_failed=0

ktap_diag() { echo "# $*"; }

# fail MSG: the test fails now.
fail() {
	echo "# FAIL: $*"
	exit 1
}

# skip MSG: the test is skipped (reported "ok ... # SKIP MSG").
skip() {
	echo "# SKIP $*"
	exit 4
}

# expect_eq ACTUAL EXPECTED [WHAT]
expect_eq() {
	[ "$1" = "$2" ] || fail "${3:-value}: got '$1', expected '$2'"
}

# expect_ne ACTUAL UNEXPECTED [WHAT]
expect_ne() {
	[ "$1" != "$2" ] || fail "${3:-value}: got '$1'"
}

# Optional KTAP subtests: ktap_plan N; then ktap_result "name" CMD... per
# subtest (runs CMD in a subshell, prints ok/not ok); ktap_finish exits 1 if
# any subtest failed. CMD runs as an "if" condition, where bash ignores
# set -e: check with fail/expect_*/"|| fail", not with set -e.
ktap_plan() {
	echo "KTAP version 1"
	echo "1..$1"
}
ktap_result() {
	local name=$1
	shift
	_ktap_n=$((_ktap_n + 1))
	if ("$@"); then
		echo "ok $_ktap_n $name"
	else
		_ktap_failed=$((_ktap_failed + 1))
		echo "not ok $_ktap_n $name"
	fi
}
ktap_finish() {
	[ "$_ktap_failed" -eq 0 ] || fail "$_ktap_failed of $_ktap_n subtests failed"
}

# ---- waits and file I/O without a fork (the guest runs on TCG: every exec
# costs milliseconds, and a test polls a lot).

# nsleep SECS: sleep without an exec (read -t on a pipe nobody writes).
nsleep() {
	[ -n "${_sfd:-}" ] || exec {_sfd}<> <(:)
	read -r -t "$1" -u "$_sfd" _ || true
}

# wait_until SECS CMD...: poll CMD every 50 ms until it succeeds; 1 after
# SECS (whole seconds; a fraction is dropped).
wait_until() {
	local end=$((${EPOCHREALTIME/./} + ${1%.*} * 1000000))
	shift
	until "$@"; do
		[ "${EPOCHREALTIME/./}" -lt "$end" ] || return 1
		nsleep 0.05
	done
}

# wait_pid PID SECS: true when PID has ended within SECS.
wait_pid() {
	local end=$((${EPOCHREALTIME/./} + ${2%.*} * 1000000)) st
	while kill -0 "$1" 2>/dev/null; do
		# An exited child the shell has not reaped yet is a zombie, and
		# kill -0 still finds it: bash reaps only at certain points, and
		# a loop of builtins (this one) may not reach one. 62's "streams
		# did not stop" and 27's "delete_controller did not return" were
		# such zombies (state Z, nothing else blocked).
		st=
		read -r st </proc/"$1"/stat 2>/dev/null || true
		st=${st##*) }
		[ "${st%% *}" != Z ] || return 0
		[ "${EPOCHREALTIME/./}" -lt "$end" ] || return 1
		nsleep 0.05
	done
}

# wput FILE VALUE: write VALUE and a newline; the write's status, no message.
wput() { { printf '%s\n' "$2" >"$1"; } 2>/dev/null; }

# werr FILE VALUE: write VALUE and a newline; the error text in WERR ("" if
# it worked).
# shellcheck disable=SC2034 # WERR is the result, read by the caller
werr() { WERR=$({ printf '%s\n' "$2" >"$1"; } 2>&1) || true; }

# rd FILE: its first line in R ('' if it cannot be read).
# shellcheck disable=SC2034 # R is the result, read by the caller
rd() {
	R=
	read -r R <"$1" || true
}

# kv_read ARRAY FILE: FILE's "key value" lines into the associative array
# ARRAY (emptied first). The file is read whole (mapfile): a loop of read
# builtins seeks back after every line, and a sysfs or debugfs file is
# generated anew at that offset, so a counter that grew a digit in between
# shifts the rest under the reader (a blank line, a key cut in two).
kv_read() {
	local -n _kv=$1
	local _l _k _v _lines=()
	_kv=()
	mapfile -t _lines <"$2" || return 1
	for _l in "${_lines[@]}"; do
		_k=${_l%% *}
		[ -n "$_k" ] || continue
		_v=${_l#"$_k"}
		_v=${_v#"${_v%%[! ]*}"}
		# shellcheck disable=SC2004 # _kv is associative (the caller's)
		_kv[$_k]=$_v
	done
}

# mod_path DIR/NAME -> $XNET_SRC/DIR/NAME.ko
mod_path() { echo "$XNET_SRC/${1%.ko}.ko"; }

# mod_loaded NAME: true if NAME is in /proc/modules.
# (bash builtins only where cheap: every exec costs ~0.1 s under TCG)
mod_loaded() {
	local n _
	while read -r n _; do
		[ "$n" = "${1//-/_}" ] && return 0
	done </proc/modules
	return 1
}

# load_mod DIR/NAME [param=val...]: insmod the project's module after
# modprobe'ing the Debian modules it depends on; fails the test on error.
load_mod() {
	local ko dep out
	ko=$(mod_path "$1")
	shift
	[ -f "$ko" ] || fail "$ko not found (run 'make' first)"
	dep=$(/sbin/modinfo -F depends "$ko")
	for dep in ${dep//,/ }; do
		mod_loaded "$dep" || /sbin/modprobe "$dep" || fail "modprobe $dep (needed by $ko)"
	done
	out=$(/sbin/insmod "$ko" "$@" 2>&1) || fail "insmod $ko $*: $out"
}

# unload_mod NAME: rmmod, fails the test on error.
unload_mod() {
	local out
	out=$(/sbin/rmmod "$1" 2>&1) || fail "rmmod $1: $out"
}

taint_now() {
	local t
	read -r t </proc/sys/kernel/tainted
	echo "$t"
}

# check_taint [ALLOWED_MASK]: fail if the kernel has taint bits outside
# ALLOWED_MASK (default O|E).
check_taint() {
	local t allowed=${1:-$TAINT_OK_DEFAULT}
	read -r t </proc/sys/kernel/tainted
	[ $((t & ~allowed)) -eq 0 ] || fail "kernel taint $t has bits outside $allowed"
}

# dmesg_count PATTERN: number of kernel log lines matching the glob
# *PATTERN* (in $DMESG_N).
# ktap_blocked_tasks: every task in D (uninterruptible) or Z state, its
# wait channel and kernel stack, as diagnostic lines; for a test that found
# something stuck. A process past exit_mm() has no cmdline (pgrep -f
# misses it): this looks at every task, whatever its name.
ktap_blocked_tasks() {
	local f l st
	for f in /proc/[0-9]*/stat; do
		{ read -r l <"$f"; } 2>/dev/null || continue
		st=${l##*) }
		[[ $st == [DZ]* ]] || continue
		f=${f%/stat}
		ktap_diag "task ${f#/proc/} ${st%% *} $(cat "$f/comm" 2>/dev/null) ppid $(cut -d' ' -f2 <<<"$st")" \
			"wchan=$(cat "$f/wchan" 2>/dev/null)"
		while read -r l; do ktap_diag "  $l"; done < <(cat "$f/stack" 2>/dev/null)
	done
}

dmesg_count() {
	local l
	DMESG_N=0
	while IFS= read -r l; do
		# shellcheck disable=SC2053 # PATTERN is a glob on purpose
		[[ $l == *$1* ]] && DMESG_N=$((DMESG_N + 1))
	done < <(dmesg)
	return 0
}

# ---- the kernel log, read through a file (issue 30). bash's read and
# mapfile take a pipe one byte per read(2) (they must not read past a
# line), so dmesg_count's loop over "< <(dmesg)" makes a system call per
# byte of the log: on the debug kernel under TCG ~20 ms a line (6 s for a
# fresh boot's 278 lines; a log grows to thousands over a boot). A regular
# file is read in blocks. Same counts as dmesg_count.

# dmesg_lines: the kernel log now, one element a line, in DMESG_L.
dmesg_lines() {
	dmesg >"$XNET_TMP/.dmesg" || fail "dmesg"
	mapfile -t DMESG_L <"$XNET_TMP/.dmesg"
}

# dmesg_n PATTERN: lines of DMESG_L (dmesg_lines first) matching the glob
# *PATTERN*, in DMESG_N.
dmesg_n() {
	local l
	DMESG_N=0
	for l in "${DMESG_L[@]}"; do
		# shellcheck disable=SC2053 # PATTERN is a glob on purpose
		[[ $l == *$1* ]] && DMESG_N=$((DMESG_N + 1))
	done
	return 0
}

# expect_refusals WHAT MARK: each value of REF_SHOWN was refused with one
# kernel log line "WHAT '<REF_SHOWN[i]>' refused: <REF_WHY[i]>..." after
# the line MARK (a marker the test wrote to /dev/kmsg), and no other line
# starts "WHAT '" there: one line per refused value, naming it and why.
# Reads the log once (costly on the debug kernel); shows the first line.
expect_refusals() {
	local what=$1 mark=$2 l i n=0 on=0
	local -A lines_of=() said=()

	dmesg_lines
	for l in "${DMESG_L[@]}"; do
		[ $on = 1 ] || { [[ $l != *"$mark" ]] || on=1; continue; }
		[[ $l == *"$what '"* ]] || continue
		n=$((n + 1))
		[ $n != 1 ] || ktap_diag "${l#*] }"
		for i in "${!REF_SHOWN[@]}"; do
			[[ $l == *"$what '${REF_SHOWN[i]}' refused"* ]] || continue
			lines_of[$i]=$((${lines_of[$i]:-0} + 1))
			[[ $l != *"refused: ${REF_WHY[i]}"* ]] || said[$i]=1
		done
	done
	[ $on = 1 ] || fail "kernel log marker '$mark' not found"
	for i in "${!REF_SHOWN[@]}"; do
		expect_eq "${lines_of[$i]:-0}" 1 "error lines for '${REF_SHOWN[i]:0:64}'"
		expect_eq "${said[$i]:-0}" 1 "error line for '${REF_SHOWN[i]:0:64}' saying: ${REF_WHY[i]}"
	done
	expect_eq "$n" ${#REF_SHOWN[@]} "error lines for ${#REF_SHOWN[@]} refused values"
}

# dmesg_tally PATTERN: dmesg_count's result (DMESG_N) for the log now.
dmesg_tally() {
	dmesg_lines
	dmesg_n "$1"
}
