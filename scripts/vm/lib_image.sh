# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vmtest's image job (sourced by scripts/vmtest.sh): which kernel the guest
# boots (--series/--rt: Debian's, --debug: the debug kernel, --kernel: the
# one given), our modules built for it (lib_build.sh), the image QEMU boots
# and the accelerator.
#   pick_kernel   sets kernel, XNET_KVER (exported), debug_append, slow;
#                 scales opt_timeout on the debug kernel
#   pick_image    sets kimage, initrd, accel and the -accel argument arrays
#                 accel_args, icount_args, tcg_single_args
# Uses vmtest's here, cache, qemu and opt_* settings.
# (Sourced: the globals it reads and sets are vmtest's.)
# shellcheck disable=SC2034,SC2154

pick_kernel() {
	local flavour dk dname
	local -a dargs
	debug_append=''
	# --series/--rt: a Debian kernel of that series (flavour rt with
	# --rt), our modules built against its headers.
	if [ "$opt_debug" -eq 0 ] && { [ -n "$opt_series" ] || [ "$opt_rt" -eq 1 ]; }; then
		[ -z "$opt_kernel" ] || die "--series/--rt pick their own kernel (no --kernel)"
		flavour=''
		[ "$opt_rt" -eq 0 ] || flavour=rt
		XNET_KVER=$("$here/kernels.sh" kver "${opt_series:-6.1}" $flavour) || die "no such kernel"
		opt_kernel=/boot/vmlinuz-$XNET_KVER
		build_for "$("$here/kernels.sh" headers "${opt_series:-6.1}" $flavour)" "$XNET_KVER"
	fi
	# --debug: the debug kernel, its modules tree, and our modules built
	# against it.
	if [ "$opt_debug" -eq 1 ]; then
		[ -z "$opt_kernel" ] || die "--debug picks its own kernel (no --kernel)"
		dk=${XNET_DEBUG_KDIR:-}
		dargs=(--series "${opt_series:-6.1}")
		[ "$opt_rt" -eq 0 ] || dargs+=(--rt)
		[ -n "$dk" ] || dk=$("$here/vm/debug-kernel.sh" "${dargs[@]}") || die "no debug kernel"
		if ! [ -f "$dk/arch/x86/boot/bzImage" ] || ! [ -s "$dk/kernel.release" ]; then
			die "$dk: not a debug kernel build"
		fi
		XNET_KVER=$(cat "$dk/kernel.release")
		export XNET_VM_MODDIR=$dk/mods/lib/modules/$XNET_KVER
		[ -f "$XNET_VM_MODDIR/modules.dep" ] || die "$XNET_VM_MODDIR: no modules.dep"
		dname=debug
		[ -n "${XNET_DEBUG_KDIR:-}" ] || [ "${dargs[*]}" = "--series 6.1" ] || dname=$(basename "$dk")
		build_for "$dk" "$dname"
		opt_kernel=$dk/arch/x86/boot/bzImage
		debug_append="xnet_moddir=$XNET_VM_MODDIR xnet_kmemleak=1"
		slow=${XNET_VM_DEBUG_SLOW:-3}
		opt_timeout=$((opt_timeout * slow))
		[ -z "$opt_test_timeout" ] || opt_test_timeout=$((opt_test_timeout * slow))
	fi

	if [ -n "$opt_kernel" ]; then
		kernel=$opt_kernel
	else
		# The build machine's running kernel is irrelevant: use the
		# installed one.
		kernel=$("$here/kernels.sh" image 6.1) || die "no 6.1 kernel"
	fi
	[ -r "$kernel" ] || die "cannot read kernel $kernel"
	if [ -z "${XNET_KVER:-}" ]; then
		case $(basename "$kernel") in
		vmlinuz-*) XNET_KVER=${kernel##*/vmlinuz-} ;;
		*) XNET_KVER=$(bzimage_version "$kernel") ;;
		esac
	fi
	[ -n "${XNET_KVER:-}" ] || die "cannot tell the version of $kernel: set XNET_KVER"
	export XNET_KVER
}

bzimage_version() { # version string from the bzImage header
	local off
	off=$(od -An -tu2 -j $((0x20e)) -N2 "$1" 2>/dev/null | tr -d ' ')
	[ -n "$off" ] || return 0
	dd if="$1" bs=1 skip=$((off + 0x200)) count=128 2>/dev/null | tr '\0' '\n' |
		head -n 1 | awk '{ print $1 }'
}

is_pvh_elf() {
	[ "$(head -c 4 "$1" | tr -d '\0')" = $'\x7fELF' ] &&
		readelf -n "$1" 2>/dev/null | grep -q 'Unknown note type: (0x00000012)'
}
# Boot image: the bzImage's payload, uncompressed, when it is a PVH ELF
# (QEMU boots that directly: no decompressor run under TCG). Cached.
boot_image() {
	local k=$1 key out off magic tmp
	[ "$(head -c 4 "$k" | tr -d '\0')" = $'\x7fELF' ] && { echo "$k"; return; }
	command -v readelf >/dev/null || { echo "$k"; return; }
	key=$(stat -Lc '%n %s %Y' "$k" | sha256sum | cut -c1-16)
	out=$cache/vmlinux-$XNET_KVER-$key
	[ -s "$out" ] && { echo "$out"; return; }
	tmp=$(mktemp "$cache/.vmlinux.XXXXXX")
	# Try each xz / zstd magic in the image until one gives a PVH ELF.
	while IFS=: read -r off magic; do
		case $magic in
		*7zXZ*) tail -c +$((off + 1)) "$k" | xz -dc --single-stream ;;
		*) tail -c +$((off + 1)) "$k" | zstd -qdc ;;
		esac >"$tmp" 2>/dev/null || true
		is_pvh_elf "$tmp" && break
	done < <(LC_ALL=C grep -obUaP '\xfd7zXZ\x00|\x28\xb5\x2f\xfd' "$k")
	if is_pvh_elf "$tmp"; then
		mv -f "$tmp" "$out"
		find "$cache" -maxdepth 1 -name "vmlinux-$XNET_KVER-*" ! -path "$out" -mmin +120 -delete
		echo "$out"
	else
		rm -f "$tmp"
		echo "$k"
	fi
}

# KVM if it works (here /dev/kvm exists but guests die), else TCG. Cached.
pick_accel() {
	local f log
	case ${XNET_VM_ACCEL:-} in kvm | tcg) echo "$XNET_VM_ACCEL"; return ;; esac
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		echo tcg
		return
	fi
	f=$cache/accel-$( { uname -r; "$qemu" --version | head -n 1; echo "$kimage"; } |
		sha256sum | cut -c1-16)
	[ -s "$f" ] && { cat "$f"; return; }
	log=$(mktemp)
	# Working KVM: the kernel runs, finds no root and panics (panic=-1 with
	# -no-reboot ends QEMU) in ~1 s. Broken KVM: abort, silence or a hang.
	timeout -k 2 10 "$qemu" -nodefaults -no-user-config -display none -no-reboot \
		-machine q35 -accel kvm -cpu host -m 256 -kernel "$kimage" \
		-append "console=ttyS0 panic=-1" -serial "file:$log" >/dev/null 2>&1 || true
	if grep -q 'Linux version' "$log"; then echo kvm; else echo tcg; fi | tee "$f"
	rm -f "$log"
}

pick_image() {
	kimage=$(boot_image "$kernel")
	initrd=$("$here/vm/mkinitramfs.sh" "$XNET_KVER" "$cache")
	accel=$(pick_accel)
	if [ "$accel" = kvm ]; then
		accel_args=(-accel kvm -cpu host)
	else
		# -cpu max: PCLMUL etc. (crct10dif-pclmul, needed by nvme/nvmet).
		accel_args=(-accel "tcg,thread=multi" -cpu "${XNET_VM_CPU:-max}")
	fi
	# icount boots (--icount, header icount=1): QEMU 7.2 refuses -icount
	# with multi-threaded TCG (and with KVM). shift=0: 1 ns of guest time
	# per instruction; sleep=off: when every vCPU idles, guest time jumps
	# to the next timer at once (so no host time at all reaches the
	# guest's clocks).
	icount_args=(-accel "tcg,thread=single" -cpu "${XNET_VM_CPU:-max}"
		-icount "${XNET_VM_ICOUNT:-shift=0,sleep=off}")
	# tcg=single boots: QEMU 7.2's multi-threaded TCG can keep running a
	# stale translation of code another vCPU has just rewritten. Seen with
	# ftrace patching (text_poke_bp) of a function a busy vCPU was
	# executing: that vCPU kept executing the transient INT3, the kernel
	# found no INT3 in memory and restarted the instruction, forever (a
	# soft lockup at the function's first byte, registers frozen). Tests
	# that patch kernel text under load use it.
	tcg_single_args=(-accel "tcg,thread=single" -cpu "${XNET_VM_CPU:-max}")
	[ "$accel" = kvm ] && tcg_single_args=("${accel_args[@]}")
	return 0
}
