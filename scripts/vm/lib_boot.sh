# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vmtest's boot job (sourced by scripts/vmtest.sh): one QEMU guest with the
# host's root over 9p and a writable results share, and the awk its tests
# run under.
#   pick_awk      sets vm_awk
#   boot ...      one guest (below)
#   boot_retry    boot, and once more when the kernel crashed before the
#                 test runner started
#   write_cfg     the runner's settings for a boot
# Uses vmtest's repo, qemu, kimage, initrd, debug_append, the -accel arrays
# (lib_image.sh), opt_verbose and opt_mode; sets qpid while QEMU runs (for
# vmtest's cleanup).
# (Sourced: the globals it reads and sets are vmtest's.)
# shellcheck disable=SC2034,SC2154

# The awk of the tests (and of --shell-cmd): mawk on 6.1 (the debug kernel
# and Debian's), gawk on 6.12 and RT, so that every test runs under both
# (each runs on 6.12 and on one of the 6.1 kernels; a Debian machine has
# either as /usr/bin/awk).
pick_awk() {
	vm_awk=${XNET_VM_AWK:-}
	if [ -z "$vm_awk" ]; then
		vm_awk=gawk
		[ "$opt_rt" -eq 1 ] || [[ $XNET_KVER != 6.1.* ]] || vm_awk=mawk
	fi
	case $vm_awk in mawk | gawk) ;; *) die "XNET_VM_AWK=$vm_awk: want mawk or gawk" ;; esac
	command -v "$vm_awk" >/dev/null || die "$vm_awk not installed (scripts/setup.sh installs it)"
}

# boot_watch DIR QPID TIMEOUT...: end the guest (QPID: the timeout
# wrapping QEMU) when a phase of its run overruns: the boot until the
# runner starts (watch_boot_s), each test from its begin (the runner's
# DIR/res/I.begin) until its end (I.done) within its TIMEOUT (one per
# test, in order) plus the runner's checks after it (watch_scan_s: the
# kmemleak scan on the debug kernel), the gap before the next test
# (watch_gap_s), the power-off (watch_tail_s). The reason goes to
# DIR/watch.timeout. Polls once a second.
boot_watch() {
	local dir=$1 qpid=$2 i=1 state=boot deadline what
	shift 2
	local -a budget=("$@")
	deadline=$((SECONDS + watch_boot_s))
	while kill -0 "$qpid" 2>/dev/null; do
		# On through every phase that ended since the last poll.
		while :; do
			case $state in
			boot)
				[ -f "$dir/res/runner-start" ] || break
				state=gap deadline=$((SECONDS + watch_gap_s))
				;;
			gap)
				[ -f "$dir/res/$i.begin" ] || break
				state=test deadline=$((SECONDS + budget[i - 1] + watch_scan_s))
				;;
			test)
				[ -f "$dir/res/$i.done" ] || break
				i=$((i + 1)) state=gap deadline=$((SECONDS + watch_gap_s))
				[ $i -le ${#budget[@]} ] || state=tail deadline=$((SECONDS + watch_tail_s))
				;;
			tail) break ;;
			esac
		done
		if [ $SECONDS -gt $deadline ]; then
			case $state in
			boot) what="the boot: the test runner did not start within ${watch_boot_s} s" ;;
			gap) what="test $i did not begin within ${watch_gap_s} s of the one before" ;;
			test) what="$(cut -d' ' -f1 "$dir/res/$i.begin") ran longer than its timeout, ${budget[i - 1]} s (+ ${watch_scan_s} s for the runner's checks after it)" ;;
			tail) what="the power-off took longer than ${watch_tail_s} s after the last test" ;;
			esac
			echo "$what" >"$dir/watch.timeout"
			kill -TERM "$qpid" 2>/dev/null
			return 0
		fi
		sleep 1
	done
}

# boot DIR CPUS MEM APPEND QEMU-EXTRA TIMEOUT [ICOUNT [TEST-TIMEOUT...]]: run
# one guest; DIR/res holds cfg already. With TEST-TIMEOUTs (one per test of
# the boot): boot_watch ends the guest when a test overruns its own.
# Sets boot_rc (124: timeout, TIMEOUT's or boot_watch's), boot_t0 and
# boot_wall.
boot() {
	local dir=$1 cpus=$2 mem=$3 append=$4 extra=$5 tmo=$6 t0 tailpid='' watchpid=''
	local -a xargs aargs=("${accel_args[@]}")
	case ${7:-0} in
	1) aargs=("${icount_args[@]}") ;;
	single) aargs=("${tcg_single_args[@]}") ;;
	esac
	read -ra xargs <<<"$extra"
	local -a nsexec=()
	hostnet_setup "$dir" || true
	# printk.devkmsg=on: the markers written to /dev/kmsg must not be
	# ratelimited. cryptomgr.notests: the crypto self-tests cost ~0.6 s of
	# every TCG boot. panic=-1 + -no-reboot: a panic ends QEMU at once.
	# nvme_core.multipath=N: the NVMe tests find a namespace as
	# /dev/nvmeXn1 of its controller; on every boot, so that they share
	# boots with the others (each boot of the debug kernel costs about a
	# minute); nothing else loads nvme_core.
	local cmdline="console=ttyS0 panic=-1 printk.devkmsg=on cryptomgr.notests=1"
	cmdline+=" nvme_core.multipath=N"
	cmdline+="${debug_append:+ $debug_append}${append:+ $append}"
	echo "$repo/tests/vm/run.sh" >"$dir/res/runner"
	: >"$dir/console.log"
	local -a qcmd=("$qemu" -nodefaults -no-user-config -display none -no-reboot
		-machine q35 "${aargs[@]}" -smp "$cpus" -m "$mem"
		-kernel "$kimage" -initrd "$initrd"
		-append "$cmdline"
		-chardev "file,id=con,path=$dir/console.log" -serial chardev:con
		-virtfs 'local,path=/,mount_tag=xroot,security_model=none,readonly=on,multidevs=remap'
		-virtfs "local,path=$dir/res,mount_tag=xres,security_model=none,multidevs=remap"
		"${xargs[@]}")
	# The exact command line, in the boot's log dir and, for a caller
	# that records it (the benches' run directories), in
	# $XNET_VM_QEMU_CMDLINE: one line per boot, shell-quoted.
	printf '%q ' "${qcmd[@]}" >"$dir/qemu.cmdline"
	echo >>"$dir/qemu.cmdline"
	[ -z "${XNET_VM_QEMU_CMDLINE:-}" ] || cat "$dir/qemu.cmdline" >>"$XNET_VM_QEMU_CMDLINE"
	t0=$EPOCHREALTIME boot_t0=$EPOCHREALTIME
	"${nsexec[@]}" timeout -k 5 "$tmo" "${qcmd[@]}" </dev/null >"$dir/qemu.out" 2>&1 &
	qpid=$!
	rm -f "$dir/watch.timeout"
	if [ $# -gt 7 ]; then
		boot_watch "$dir" "$qpid" "${@:8}" &
		watchpid=$!
	fi
	if [ "$opt_verbose" -eq 1 ]; then
		tail -n +1 -f --pid="$qpid" "$dir/console.log" >&2 &
		tailpid=$!
	fi
	if [ "$opt_mode" = cmd ]; then
		tail -n +1 -f --pid="$qpid" "$dir/res/cmd.out" &
		tailpid="$tailpid $!"
	fi
	boot_rc=0
	wait "$qpid" || boot_rc=$?
	qpid=
	if [ -n "$watchpid" ]; then
		kill "$watchpid" 2>/dev/null || true
		wait "$watchpid" 2>/dev/null || true
		[ ! -f "$dir/watch.timeout" ] || boot_rc=124
	fi
	hostnet_teardown
	# shellcheck disable=SC2086
	[ -z "$tailpid" ] || wait $tailpid 2>/dev/null || true
	[ "$opt_verbose" -eq 0 ] || echo >&2 # the console's last line has no \n
	boot_wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
}

# write_cfg FILE EXTRA TEST...: the runner's settings for a boot of TESTs
# (tests/vm/run.sh sources FILE); EXTRA: the boot's extra QEMU arguments.
write_cfg() {
	local f=$1 extra=$2 t
	shift 2
	{
		printf 'XNET_SRC=%q\nXNET_KVER=%q\nXNET_VM_LIB=%q\nVM_MODE=tests\n' \
			"$XNET_SRC" "$XNET_KVER" "$repo/tests/vm/lib.sh"
		printf 'XNET_DKMS=%q\n' "${XNET_DKMS:-}"
		printf 'VM_AWK=%q\n' "$vm_awk"
		# Extra QEMU devices: the guest (no udev) loads their drivers.
		printf 'VM_COLDPLUG=%d\n' $((${#extra} > 0))
		printf 'VM_TESTS=('
		printf '%q ' "$@"
		printf ')\nVM_TAINT_OK=('
		for t; do printf '%s ' "${t_taint_ok[$t]}"; done
		printf ')\n'
	} >"$f"
}

# boot_retry DIR ...: boot DIR ... (same arguments); a kernel that crashed
# before the test runner started ran none of our code (the tests load the
# modules). QEMU's multi-threaded TCG can let a vCPU run a stale
# translation of kernel text the other vCPU patches at boot (a jump label:
# "Oops: int3"): booted again once, said so, and counted in early. So is
# one that hung there past boot_watch's budget (a soft lockup in early
# boot with both vCPUs starved by a loaded host).
boot_retry() {
	local crash how=crashed
	boot "$@"
	[ ! -f "$1/res/runner-start" ] || return 0
	if [ "$boot_rc" -ne 124 ]; then
		crash=$(grep -a -m 1 -E 'Oops|BUG:|Kernel panic' "$1/console.log") || return 0
	elif [ -f "$1/watch.timeout" ]; then
		how=hung crash=$(<"$1/watch.timeout")
	else
		return 0
	fi
	# On stdout, a KTAP diagnostic; in cmd mode stdout is the command's.
	echo "# vmtest: boot $nboot: the kernel $how before the test runner started," \
		"booted again: ${crash%$'\r'} (console: $1/console.early-crash.log)" >&"$boot_note_fd"
	early=$((early + 1))
	mv "$1/console.log" "$1/console.early-crash.log"
	[ ! -f "$1/res/cmd.out" ] || : >"$1/res/cmd.out"
	boot "$@"
}
