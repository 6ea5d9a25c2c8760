#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The harness's own test (scripts/vmtest.sh --selftest runs this): boot a
# temporary directory of deliberately bad guest tests with scripts/vmtest.sh
# and check that each failure is reported the way it should be: a failed
# test, a skip, a console WARNING, new taint, a hang (boot timeout), a test
# not run after it, a kernel panic, a kernel that dies before the runner
# starts (booted again once, in --shell-cmd mode too), a baseline, a test
# that overruns its own timeout (--test-timeout). With --debug: one deliberate bug
# per checker of the debug kernel (tests/faults), each caught by its report.
#
# Usage: scripts/vm/selftest.sh [--debug] [--kernel PATH]
# Output: one KTAP test case, the inner run as diagnostics; then
# "vmtest: N passed, N failed".
set -euo pipefail

vmtest=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)/vmtest.sh
opt_debug=0 opt_kernel=
while [ $# -gt 0 ]; do
	case $1 in
	--debug) opt_debug=1 ;;
	--kernel) opt_kernel=${2:?}; shift ;;
	*) echo "selftest: unknown argument $1" >&2; exit 2 ;;
	esac
	shift
done

# test_block NAME: the lines of the inner run's output ($out) about test
# NAME: those between the result line before it and its own result line.
test_block() {
	awk -v want="$1" '
		/^(not )?ok [0-9]+ / {
			if (($1 == "ok" && $3 == want) || $4 == want) { printf "%s", b; exit }
			b = ""
			next
		}
		{ b = b $0 "\n" }' <<<"$out"
}

# Boot a temporary test dir full of bad tests and check that each is caught.
selftest() {
	local d out rc=0 bad=0 want i
	d=$(mktemp -d "${TMPDIR:-/tmp}/xnet-vmselftest.XXXXXX")
	# shellcheck disable=SC2064
	trap "rm -rf '$d'" EXIT
	cat >"$d/01-pass.sh" <<-'EOF'
		# vmtest: cpus=1 append="xnet_selftest=1"
		. "$XNET_VM_LIB"
		grep -qw xnet_selftest=1 /proc/cmdline || fail "header append missing"
		expect_eq "$(nproc)" 1 "cpus from header"
		[ -d "$XNET_TMP" ] && [ -w "$XNET_TMP" ] || fail "no XNET_TMP"
		[ -f "$XNET_SRC/tests/vm/lib.sh" ] || fail "XNET_SRC not visible"
		/sbin/ip netns add selftest && /sbin/ip netns del selftest || fail "ip netns"
		/sbin/modprobe -a veth null_blk nvme-tcp || fail "modprobe"
		ktap_diag "kver $XNET_KVER"
	EOF
	cat >"$d/02-livepatch.sh" <<-'EOF'
		# vmtest: cpus=1 append="xnet_selftest=1" livepatch=1
		echo 32768 >/proc/sys/kernel/tainted	# K is allowed here
	EOF
	cat >"$d/03-skip.sh" <<-'EOF'
		. "$XNET_VM_LIB"
		skip "nothing to see"
	EOF
	cat >"$d/04-fail.sh" <<-'EOF'
		. "$XNET_VM_LIB"
		expect_eq 1 2 "deliberate failure"
	EOF
	cat >"$d/05-warn.sh" <<-'EOF'
		echo "<4>WARNING: CPU: 0 PID: $$ at vmtest-selftest (fake)" >/dev/kmsg
	EOF
	cat >"$d/06-taint.sh" <<-'EOF'
		echo 64 >/proc/sys/kernel/tainted	# U: taint from user space
	EOF
	cat >"$d/07-hang.sh" <<-'EOF'
		echo "hanging now"
		sleep 100000
	EOF
	cat >"$d/08-notrun.sh" <<-'EOF'
		true
	EOF
	cat >"$d/09-crash.sh" <<-'EOF'
		# vmtest: mem=768
		echo c >/proc/sysrq-trigger	# kernel panic: QEMU ends at once
	EOF
	cat >"$d/0a-baseline.sh" <<-'EOF'
		# vmtest: cpus=1 append="xnet_selftest=1" baseline=1
		true
	EOF
	# A warning after the power-off began (tests/vm/run.sh makes it):
	# reported apart when no trace names a module of ours, else the last
	# test's failure.
	cat >"$d/0c-poweroff.sh" <<-'EOF'
		# vmtest: cpus=1 append="xnet_selftest=poweroff"
		true
	EOF
	cat >"$d/0d-poweroff-ours.sh" <<-'EOF'
		# vmtest: cpus=1 append="xnet_selftest=poweroff-ours"
		true
	EOF
	# No such rdinit: the kernel panics before the runner starts, twice.
	cat >"$d/0b-early-crash.sh" <<-'EOF'
		# vmtest: cpus=1 mem=640 append="rdinit=/xnet-selftest-none"
		true
	EOF
	local -a wants=() dbg=() faults=() reports=()
	local total='3 passed, 8 failed, 1 skipped, 1 baseline'
	# The debug kernel's checkers: one deliberate bug each (tests/faults),
	# every one must fail its test with the checker's report. All in one
	# boot (a boot of the debug kernel costs about a minute under TCG), in
	# an order where no report disarms a checker still to be proven:
	# KASAN, UBSAN, atomic sleep, debug objects and kmemleak keep
	# reporting; lockdep's report turns lockdep off, and PROVE_RCU with it
	# (rcu runs before lockdep); KASAN's report taints the kernel with B,
	# which turns lockdep off too (kasan runs last). The harness's other
	# catches (01-09) are the same code on any kernel: proven by the plain
	# selftest, not booted again here.
	if [ $opt_debug -eq 1 ]; then
		dbg=(--debug)
		rm -f "$d"/0*.sh
		total='0 passed, 7 failed, 0 skipped, 0 baseline'
		local f n=10
		for f in rcu atomic_sleep ubsan odebug leak lockdep kasan; do
			# leak: kmemleak reports an object at least 5 s old that a
			# scan before found unreferenced and unchanged. This test's
			# scan is that first one, the runner's scan after the test
			# (6 s or more after the kmalloc) reports it.
			cat >"$d/$n-fault-$f.sh" <<-EOF
				# vmtest: append="xnet_selftest=faults"
				grep -q '^xnet_faults ' /proc/modules ||
					insmod "\$XNET_SRC/tests/faults/xnet_faults.ko" || exit 1
				t0=\${EPOCHREALTIME/./}
				echo $f >/sys/kernel/debug/xnet_faults/trigger || exit 1
				if [ $f = leak ]; then
					echo scan >/sys/kernel/debug/kmemleak || exit 1
					t=\$((6000000 - \${EPOCHREALTIME/./} + t0))
					[ \$t -le 0 ] || sleep "\$((t / 1000000)).\$(printf %06d \$((t % 1000000)))"
				fi
			EOF
			wants+=("^not ok [0-9]+ $n-fault-$f\$")
			faults+=("$n-fault-$f")
			n=$((n + 1))
		done
		# Each report in the block of its own test (the console lines
		# the harness gave that test), in the order of the loop above.
		reports=('# vmtest: console: .*suspicious RCU usage'
			'# vmtest: console: .*BUG: sleeping function called from invalid context'
			'# vmtest: console: .*UBSAN: shift-out-of-bounds'
			'# vmtest: console: .*ODEBUG: free active'
			'# vmtest: console: .*unreferenced object'
			'# vmtest: console: .*possible circular locking dependency'
			'# vmtest: console: .*BUG: KASAN: .*use-after-free')
	fi
	# Output: one KTAP test case; the inner run's output as diagnostics.
	echo "KTAP version 1"
	echo "1..1"
	echo "# vmtest selftest: $(find "$d" -name '*.sh' | wc -l) tests, expect $total"
	# The boot timeout ends 07-hang's boot; it must leave the other tests of
	# that boot time to run on a host that runs another guest (25 s did
	# not, beside three other guests): 60 s, 200 s on the debug kernel.
	out=$(XNET_VM_TESTDIR=$d "$vmtest" --timeout $((60 + 140 * opt_debug)) "${dbg[@]}" \
		${opt_kernel:+--kernel "$opt_kernel"} 2>&1) || rc=$?
	while IFS= read -r want; do
		[[ $want == "vmtest: logs in "* ]] || echo "# | $want"
	done <<<"$out"
	for want in '^ok [0-9]+ 01-pass$' '^ok [0-9]+ 02-livepatch$' \
		'^ok [0-9]+ 03-skip # SKIP nothing to see$' '^not ok [0-9]+ 04-fail$' \
		'^not ok [0-9]+ 05-warn$' '^not ok [0-9]+ 06-taint$' \
		'^not ok [0-9]+ 07-hang$' '^not ok [0-9]+ 08-notrun$' '^not ok [0-9]+ 09-crash$' \
		'# vmtest: console: .*WARNING: CPU: 0 PID: [0-9]+ at vmtest-selftest' \
		'# vmtest: new kernel taint 64 \(U\)' '# vmtest: timeout .* 07-hang' \
		'# hanging now' '# vmtest: not run' \
		'# vmtest: guest stopped .* while 09-crash was running' \
		'# vmtest: console: .*Kernel panic' '^ok [0-9]+ 0a-baseline # baseline ' \
		'^# vmtest: boot [0-9]+: the kernel crashed before the test runner started, booted again: .*Kernel panic' \
		'^not ok [0-9]+ 0b-early-crash$' '# vmtest: not run: guest failed before the first test' \
		'^ok [0-9]+ 0c-poweroff$' \
		'^# vmtest: after power-off, no module of ours in the trace \(not counted\): .*WARNING: .* at vmtest-selftest-poweroff' \
		'^not ok [0-9]+ 0d-poweroff-ours$' '# vmtest: console: .*WARNING: .* at vmtest-selftest-poweroff' \
		'^vmtest: 1 boot\(s\) crashed before the first test, booted again$'; do
		[ $opt_debug -eq 0 ] || break
		grep -Eq "$want" <<<"$out" || { echo "# selftest: missing /$want/"; bad=1; }
	done
	for want in "^vmtest: $total\$" "${wants[@]}"; do
		grep -Eq "$want" <<<"$out" || { echo "# selftest: missing /$want/"; bad=1; }
	done
	for ((i = 0; i < ${#faults[@]}; i++)); do
		test_block "${faults[i]}" | grep -Eq "${reports[i]}" ||
			{ echo "# selftest: ${faults[i]}: its block lacks /${reports[i]}/"; bad=1; }
	done
	[ "$rc" -ne 0 ] || { echo "# selftest: vmtest exited 0"; bad=1; }
	# --shell-cmd (the benches' boots): a kernel that dies before the
	# runner starts is booted again once there too, said on stderr (stdout
	# is the command's), and the command's failure to run is the exit.
	if [ $opt_debug -eq 0 ]; then
		local cout crc=0
		cout=$("$vmtest" --timeout 60 --mem 640 --append rdinit=/xnet-selftest-none \
			${opt_kernel:+--kernel "$opt_kernel"} --shell-cmd 'echo ran' 2>&1) || crc=$?
		while IFS= read -r want; do echo "# | $want"; done <<<"$cout"
		for want in '^# vmtest: boot 1: the kernel crashed before the test runner started, booted again: .*Kernel panic' \
			'^vmtest: guest stopped before the command finished'; do
			grep -Eq "$want" <<<"$cout" || { echo "# selftest: shell-cmd: missing /$want/"; bad=1; }
		done
		! grep -q '^ran$' <<<"$cout" || { echo "# selftest: shell-cmd: the command ran"; bad=1; }
		[ "$crc" -ne 0 ] || { echo "# selftest: shell-cmd: vmtest exited 0"; bad=1; }
		want=$(sed -n 's/^vmtest: logs in //p' <<<"$cout")
		case $want in */xnet-vmtest.*) [ $bad -ne 0 ] || rm -rf "$want" ;; esac
		# Without --timeout each test has its own, from its begin
		# (boot_watch): a test that overruns it ends the boot, named.
		local w=$d/watch
		mkdir -p "$w"
		printf '# vmtest: cpus=1\nsleep 600\n' >"$w/01-overrun.sh"
		printf '# vmtest: cpus=1\ntrue\n' >"$w/02-next.sh"
		crc=0
		cout=$(XNET_VM_TESTDIR=$w "$vmtest" --test-timeout 15 ${opt_kernel:+--kernel "$opt_kernel"} 2>&1) || crc=$?
		while IFS= read -r want; do echo "# | $want"; done <<<"$cout"
		for want in '^not ok 1 01-overrun$' \
			'# vmtest: timeout: 01-overrun ran longer than its timeout, 15 s' \
			'^not ok 2 02-next$' '# vmtest: not run: guest ended: 01-overrun overran'; do
			grep -Eq "$want" <<<"$cout" || { echo "# selftest: test timeout: missing /$want/"; bad=1; }
		done
		[ "$crc" -ne 0 ] || { echo "# selftest: test timeout: vmtest exited 0"; bad=1; }
		want=$(sed -n 's/^vmtest: logs in //p' <<<"$cout")
		case $want in */xnet-vmtest.*) [ $bad -ne 0 ] || rm -rf "$want" ;; esac
	fi
	# The inner run failed on purpose and kept its logs: drop them.
	want=$(sed -n 's/^vmtest: logs in //p' <<<"$out")
	case $want in
	*/xnet-vmtest.*)
		if [ $bad -eq 0 ]; then rm -rf "$want"; else echo "# vmtest: logs in $want"; fi ;;
	esac
	if [ $bad -eq 0 ]; then
		echo "# vmtest selftest: every injected failure was reported"
		echo "ok 1 vmtest-selftest"
		echo "vmtest: 1 passed, 0 failed"
	else
		echo "not ok 1 vmtest-selftest"
		echo "vmtest: 0 passed, 1 failed"
	fi
	return $bad
}

selftest
