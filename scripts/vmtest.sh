#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vmtest: run the guest tests (tests/vm/NN-name.sh) in QEMU guests booting the
# Debian kernel the modules are built for. The build machine itself cannot
# load modules, so every kernel-side test runs here.
#
# Why the guest's root is the build machine's own root over 9p (virtme-style)
# instead of an initramfs with copied tools: the tests need bash, iproute2,
# nvme-cli, fio, iperf3, kmod and Debian's whole /lib/modules/<kver> (modprobe
# nvme-tcp, null_blk, veth, sch_* ...). Copying them means chasing ldd output
# and applet links, and ~100 MB of cpio unpacked at every boot. Sharing / read-only over virtio-9p
# under a tmpfs overlay gives all of it with no copying, and the project's
# .ko files sit at the same absolute path as on the host. The initramfs is
# only busybox + the 11 modules needed to mount that root (scripts/vm/); it is
# cached and rebuilt only when its inputs change. The kernel boots as an
# uncompressed PVH vmlinux (also cached): under TCG the xz decompressor of
# the bzImage alone costs ~4 s per boot.
#
# Results come back through a second, writable 9p share (one dir per boot);
# the kernel console (ttyS0) goes to console.log next to it. The guest never
# has a NIC on the host side: networking is done inside it (veth/netns).
#
# The jobs live in scripts/vm/, sourced here: lib_build.sh (module and
# DKMS builds), lib_image.sh (kernel, boot image, accelerator), lib_plan.sh
# (test headers, what runs where, boots), lib_net.sh (hostnet=), lib_boot.sh
# (one guest), lib_console.sh (kernel log problems), lib_report.sh (KTAP).
#
# Usage: scripts/vmtest.sh [options] [TEST-GLOB...]
#   --cpus N          vCPUs (default 2)          --mem MB   RAM (default 1024)
#   --timeout SEC     per boot, a test has none  --kernel PATH  guest kernel
#                     of its own (see below)
#   --test-timeout SEC  without --timeout: each test's own timeout, from
#                     its begin, unless its header's is larger (default
#                     300); the boot's timeout is then only a backstop
#                     (scripts/vm/lib_boot.sh, boot_watch)
#   --append "ARGS"   extra kernel arguments     --keep     keep the log dir
#   --shell-cmd "CMD" boot, run CMD in the guest (cwd $XNET_SRC), print its
#                     output, exit with its status (a kernel that dies
#                     before the command starts: booted again once)
#   --qemu "ARGS"     more QEMU arguments for the --shell-cmd boot (tests
#                     name theirs in their header: qemu=), e.g. devices
#   --selftest        prove the harness catches failures, console problems,
#                     taint and hangs (scripts/vm/selftest.sh: boots a
#                     temporary set of bad tests; with --debug, --kernel)
#   --debug           boot the debug kernel (scripts/vm/debug-kernel.sh:
#                     KASAN, lockdep, PROVE_RCU, DEBUG_ATOMIC_SLEEP, debug
#                     objects, kmemleak, UBSAN, PREEMPT, failslab) with the
#                     modules built against it in a copy of the checkout
#                     (build/debug/src); timeouts x$XNET_VM_DEBUG_SLOW
#                     (default 3); a kmemleak report fails the test.
#                     With --series S / --rt: the debug kernel of that
#                     source series / its PREEMPT_RT build (debug-kernel.sh
#                     --series S --rt; modules in build/debug-rt-S/src)
#   --series S        boot the newest installed Debian kernel of series S
#                     (6.1, 6.12: scripts/kernels.sh) with the modules built
#                     against its headers in build/<release>/src
#   --rt              the PREEMPT_RT flavour of --series (default 6.1)
#   --icount          count instructions instead of wall time: single-threaded
#                     TCG with "-icount $XNET_VM_ICOUNT" (default shift=0,
#                     sleep=off: guest time = 1 ns per guest instruction of
#                     any vCPU, idle time skipped), deterministic and blind
#                     to host load; the vCPUs take turns on one host thread.
#                     With QEMU 7.2 the Debian kernel's bring-up of a second
#                     x86 vCPU under -icount did not finish in minutes: add
#                     --append maxcpus=1 (or --cpus 1). Always TCG.
#   --suite           run the tests this kernel runs in make check, by the
#                     rule of Documentation/testing.md ("What runs where"):
#                     on Debian's stock 6.1 kernel only the tests the debug
#                     kernel (6.1's source with the checkers) does not run
#                     (nodebug=) and those whose header says stock61="why";
#                     on a PREEMPT_RT kernel those whose header says
#                     rt="why"; elsewhere every test. The tests left out are
#                     named in one "# vmtest: left out" line.
#   -v                stream the guest console to stderr
# TEST-GLOB matches test names (e.g. '01-*', 01-load-unload) in tests/vm, or
# is a path to a test script. Default: all tests/vm/[0-9]*.sh.
#
# Test header: "# vmtest: k=v ..." lines naming what a test needs (cpus,
#   mem, append, qemu, timeout, livepatch, icount, tcg, baseline, nodebug,
#   stock61, rt, series, hostnet): documented in scripts/vm/lib_plan.sh.
# Env: XNET_SRC (project dir, default: this checkout), XNET_VM_TESTDIR (dir of
#   tests, default tests/vm), XNET_KVER (guest kernel version, default: from
#   the kernel image), XNET_VM_ACCEL (kvm|tcg, default: probe once, cached),
#   XNET_VM_CPU (TCG -cpu model, default max), XNET_VM_ICOUNT (the -icount
#   argument of --icount / icount=1 boots, default shift=0,sleep=off),
#   XNET_DEBUG_KDIR (--debug: a debug kernel build dir to use as it is),
#   XNET_VM_AWK (mawk|gawk: the tests' awk; default mawk on 6.1 kernels,
#   gawk on the others), XNET_VM_QEMU_CMDLINE (a file each boot's QEMU
#   command line is appended to, shell-quoted; it is always in the boot's
#   log dir as qemu.cmdline).
#
# Guest: the host's / read-only under a tmpfs overlay (writes vanish), fresh
#   /run (ip netns works), configfs/debugfs/tracefs mounted, lo up, no udev
#   (drivers of devices added with qemu= are loaded by the runner), no NIC
#   unless a test adds one (use "-netdev user" only: never touch the host's
#   network). Each test runs as "bash TEST" in $XNET_TMP with XNET_SRC,
#   XNET_KVER, XNET_TMP, XNET_VM_LIB (tests/vm/lib.sh) set; processes it
#   leaves behind are killed afterwards; taint is checked per test (new bits).
#
# Output: KTAP (one test case per script), then "vmtest: N passed, N failed,
# N skipped, N baseline" (a skipped test is not a passed one, nor is a
# baseline).
# Exit 0 only if nothing failed: test failure, timeout, guest crash, kernel
# console problem (BUG/WARNING/Oops/lockdep/...), or new taint beyond O|E.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/.." && pwd -P)
export XNET_SRC=${XNET_SRC:-$repo}
testdir=${XNET_VM_TESTDIR:-$repo/tests/vm}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/xnet-kmods/vm
qemu="qemu-system-x86_64"

opt_cpus=2 opt_mem=1024 opt_timeout=300 opt_timeout_set=0 opt_kernel='' opt_append='' opt_qemu='' opt_keep=0
opt_cmd='' opt_mode=tests opt_verbose=0 opt_icount=0 opt_debug=0 opt_rt=0
opt_series='' opt_suite=0 opt_test_timeout=
globs=()

PROG=vmtest DIE_STATUS=2
# shellcheck source=scripts/lib.sh
. "$repo/scripts/lib.sh"
usage() {
	sed -n '/^# Usage:/,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case $1 in
	--cpus) opt_cpus=${2:?}; shift ;;
	--mem) opt_mem=${2:?}; shift ;;
	--timeout) opt_timeout=${2:?}; opt_timeout_set=1; shift ;;
	--test-timeout) opt_test_timeout=${2:?}; shift ;;
	--kernel) opt_kernel=${2:?}; shift ;;
	--append) opt_append=${2?}; shift ;;
	--keep) opt_keep=1 ;;
	--shell-cmd) opt_cmd=${2?}; opt_mode=cmd; shift ;;
	--qemu) opt_qemu=${2?}; shift ;;
	--selftest) opt_mode=selftest ;;
	--icount) opt_icount=1 ;;
	--debug) opt_debug=1 ;;
	--rt) opt_rt=1 ;;
	--series) opt_series=${2:?}; shift ;;
	--suite) opt_suite=1 ;;
	-v) opt_verbose=1 ;;
	-h | --help) usage 0 ;;
	--) shift; globs+=("$@"); break ;;
	-*) echo "vmtest: unknown option $1" >&2; usage ;;
	*) globs+=("$1") ;;
	esac
	shift
done
for v in "$opt_cpus" "$opt_mem" "$opt_timeout" ${opt_test_timeout:+"$opt_test_timeout"}; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || die "not a positive number: $v"
done

# ---------------------------------------------------------------- selftest
if [ "$opt_mode" = selftest ]; then
	args=()
	[ $opt_debug -eq 0 ] || args+=(--debug)
	[ -z "$opt_kernel" ] || args+=(--kernel "$opt_kernel")
	exec "$here/vm/selftest.sh" "${args[@]}"
fi

# shellcheck source=scripts/vm/lib_build.sh
. "$here/vm/lib_build.sh"
# shellcheck source=scripts/vm/lib_image.sh
. "$here/vm/lib_image.sh"
# shellcheck source=scripts/vm/lib_plan.sh
. "$here/vm/lib_plan.sh"
# shellcheck source=scripts/vm/lib_net.sh
. "$here/vm/lib_net.sh"
# shellcheck source=scripts/vm/lib_boot.sh
. "$here/vm/lib_boot.sh"
# shellcheck source=scripts/vm/lib_console.sh
. "$here/vm/lib_console.sh"
# shellcheck source=scripts/vm/lib_report.sh
. "$here/vm/lib_report.sh"

# ---------------------------------------------------------------- kernel
command -v "$qemu" >/dev/null || die "$qemu not found (scripts/setup.sh)"
mkdir -p "$cache"
[ "$opt_mode" != tests ] || pick_tests "${globs[@]}"
bf_kdir=
pick_kernel
pick_image

# ---------------------------------------------------------------- boot
run=$(mktemp -d "${TMPDIR:-/tmp}/xnet-vmtest.XXXXXX")
qpid=
failed_any=0
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	hostnet_teardown
	if [ $opt_keep -eq 1 ] || [ $failed_any -ne 0 ]; then
		echo "vmtest: logs in $run" >&2
	else
		rm -rf "$run"
	fi
}
trap cleanup EXIT
trap 'failed_any=1; exit 130' INT TERM
pick_awk

# ---------------------------------------------------------------- shell-cmd
if [ "$opt_mode" = cmd ]; then
	d=$run/boot1
	mkdir -p "$d/res"
	{
		printf 'XNET_SRC=%q\nXNET_KVER=%q\nXNET_VM_LIB=%q\n' \
			"$XNET_SRC" "$XNET_KVER" "$repo/tests/vm/lib.sh"
		printf 'VM_MODE=cmd\nVM_CMD=%q\nVM_AWK=%q\n' "$opt_cmd" "$vm_awk"
		printf 'VM_COLDPLUG=%d\n' $((${#opt_qemu} > 0))
	} >"$d/res/cfg"
	: >"$d/res/cmd.out"
	nboot=1 early=0 boot_note_fd=2
	boot_retry "$d" "$opt_cpus" "$opt_mem" "$opt_append" "$opt_qemu" "$opt_timeout" "$opt_icount"
	rc=$(cat "$d/res/cmd.rc" 2>/dev/null || echo 125)
	if [ "$boot_rc" -eq 124 ]; then
		echo "vmtest: timeout after $opt_timeout s" >&2
		rc=124
	elif [ ! -f "$d/res/cmd.rc" ]; then
		echo "vmtest: guest stopped before the command finished (qemu exit $boot_rc)" >&2
		sed 's/^/vmtest: qemu: /' "$d/qemu.out" >&2
	fi
	probs=$(scan_problems "$d/console.log" "$d/res/dmesg.txt")
	poweroff_filter "$d/console.log" ""
	for line in "${poweroff_notes[@]}"; do
		echo "vmtest: after power-off, no module of ours in the trace (not counted): $line" >&2
	done
	probs=$(cut -d "$US" -f2- <<<"$probs")
	if [ -n "$probs" ]; then
		head -n 20 <<<"$probs" | while IFS= read -r l; do echo "vmtest: kernel: $l"; done >&2
		[ "$rc" -ne 0 ] || rc=1
	fi
	[ "$rc" -eq 0 ] || failed_any=1
	exit "$rc"
fi

# ---------------------------------------------------------------- tests
plan_boots
dkms_if_needed
echo "KTAP version 1"
echo "1..${#kept[@]}"
echo "# vmtest: kernel $kernel ($XNET_KVER), accel $accel, awk $vm_awk, XNET_SRC=$XNET_SRC"
for why in "${left_why[@]}"; do
	echo "# vmtest: left out (Documentation/testing.md, What runs where):${left_out[$why]}: $why"
done
num=0 passed=0 failed=0 skipped=0 baseline=0 nboot=0 early=0 boot_note_fd=1
for key in "${grp_order[@]}"; do
	nboot=$((nboot + 1))
	IFS=$US read -r cpus mem append extra icount <<<"$key"
	mapfile -t gt < <(printf '%s' "${grp_tests[$key]}")
	d=$run/boot$nboot
	mkdir -p "$d/res"
	write_cfg "$d/res/cfg" "$extra" "${gt[@]}"
	tt=()
	if [ "$opt_timeout_set" -eq 0 ]; then
		for t in "${gt[@]}"; do tt+=("${t_timeout[$t]}"); done
	fi
	boot_retry "$d" "$cpus" "$mem" "${append}${opt_append:+ $opt_append}" "$extra" "${grp_timeout[$key]}" "$icount" "${tt[@]}"
	report_boot "$key"
done
[ $failed -eq 0 ] || failed_any=1
# Counted apart: a boot whose kernel crashed before the runner started
# ran none of our code (booted again once: boot_retry).
[ $early -eq 0 ] || echo "vmtest: $early boot(s) crashed before the first test, booted again"
echo "vmtest: $passed passed, $failed failed, $skipped skipped, $baseline baseline"
[ $failed -eq 0 ]
