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

# boot DIR CPUS MEM APPEND QEMU-EXTRA TIMEOUT [ICOUNT]: run one guest; DIR/res
# holds cfg already. Sets boot_rc (124: timeout), boot_t0 and boot_wall.
boot() {
	local dir=$1 cpus=$2 mem=$3 append=$4 extra=$5 tmo=$6 t0 tailpid=
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
	local cmdline="console=ttyS0 panic=-1 printk.devkmsg=on cryptomgr.notests=1"
	cmdline+="${debug_append:+ $debug_append}${append:+ $append}"
	echo "$repo/tests/vm/run.sh" >"$dir/res/runner"
	: >"$dir/console.log"
	local -a qcmd=("$qemu" -nodefaults -no-user-config -display none -no-reboot
		-machine q35 "${aargs[@]}" -smp "$cpus" -m "$mem"
		-kernel "$kimage" -initrd "$initrd"
		-append "$cmdline"
		-chardev "file,id=con,path=$dir/console.log" -serial chardev:con
		-virtfs local,path=/,mount_tag=xroot,security_model=none,readonly=on,multidevs=remap
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
# "Oops: int3"): booted again once, said so, and counted in early.
boot_retry() {
	local crash
	boot "$@"
	if [ ! -f "$1/res/runner-start" ] && [ "$boot_rc" -ne 124 ] &&
		crash=$(grep -a -m 1 -E 'Oops|BUG:|Kernel panic' "$1/console.log"); then
		# On stdout, a KTAP diagnostic; in cmd mode stdout is the command's.
		echo "# vmtest: boot $nboot: the kernel crashed before the test runner started," \
			"booted again: ${crash%$'\r'} (console: $1/console.early-crash.log)" >&"$boot_note_fd"
		early=$((early + 1))
		mv "$1/console.log" "$1/console.early-crash.log"
		[ ! -f "$1/res/cmd.out" ] || : >"$1/res/cmd.out"
		boot "$@"
	fi
}
