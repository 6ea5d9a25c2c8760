#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the debug guest kernel: Debian's linux-source-6.1 (the
# guest kernel's own source, scripts/ksrc.sh) configured as allnoconfig plus
# scripts/vm/debug.config (KASAN, lockdep, PROVE_RCU, DEBUG_ATOMIC_SLEEP,
# debug objects, kmemleak, UBSAN, PREEMPT, failslab/fail_page_alloc), with
# the stock-code patches of scripts/vm/patches/ (each says why).
#
#   scripts/vm/debug-kernel.sh           build if needed; print the build dir
#   scripts/vm/debug-kernel.sh --check   exit 0 if the cached kernel is
#                                        current (nothing to build), else 1
#
# The build dir (${XDG_CACHE_HOME:-~/.cache}/xnet-kmods/debug-6.1) is a
# kbuild output tree: `make -C DIR M=...` builds modules against it. It
# holds arch/x86/boot/bzImage, kernel.release, and mods/lib/modules/
# <release> (modules_install: nvme-tcp, nvmet-tcp, null_blk, veth, sch_* ...),
# which the guest mounts at /lib/modules/<release> (scripts/vm/init,
# xnet_moddir=). A stamp of the config, this script and the source makes
# a change rebuild (incrementally); a kernel whose config does not hold every
# value of the fragment is refused.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/xnet-kmods
out=$cache/debug-6.1
frag=$here/debug.config
jobs=${XNET_JOBS:-$(nproc)}

die() {
	echo "debug-kernel: $*" >&2
	exit 1
}

ksrc=$("$repo/scripts/ksrc.sh")
patches=("$here"/patches/*.patch)
stamp=$( {
	cat "$frag" "${BASH_SOURCE[0]}" "${patches[@]}"
	cat "$cache/src/linux-source-6.1.stamp" 2>/dev/null
	gcc --version | head -n 1
} | sha256sum | cut -c1-16)

current() {
	[ "$(cat "$out/.xnet-stamp" 2>/dev/null)" = "$stamp" ] &&
		[ -f "$out/arch/x86/boot/bzImage" ] && [ -s "$out/kernel.release" ] &&
		[ -f "$out/mods/lib/modules/$(cat "$out/kernel.release")/modules.dep" ]
}

if [ "${1:-}" = --check ]; then
	current
	exit
fi
if current; then
	echo "$out"
	exit 0
fi

# Every value the fragment asks for must be in the final .config (a symbol
# whose dependencies are not met is silently dropped by Kconfig).
verify_config() {
	local line sym val bad=0

	while IFS= read -r line; do
		[[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]] || continue
		sym=${BASH_REMATCH[1]} val=${BASH_REMATCH[2]}
		if [ "$val" = n ]; then
			grep -q "^$sym=" "$out/.config" || continue
		elif grep -qxF "$sym=$val" "$out/.config"; then
			continue
		fi
		echo "debug-kernel: $sym=$val not in the final config: $(grep -E "^(# )?${sym}[ =]" "$out/.config" || echo absent)" >&2
		bad=1
	done <"$frag"
	return $bad
}

# scripts/vm/patches: changes to stock kernel code the debug kernel needs
# (each says why), applied to the shared source tree once (idempotent: a
# patch that reverses cleanly is in already). None touches what the KUnit
# tier builds.
apply_patches() {
	local p

	for p in "${patches[@]}"; do
		if patch -d "$ksrc" -p1 -R -s -f --dry-run <"$p" >/dev/null 2>&1; then
			continue
		fi
		patch -d "$ksrc" -p1 -N -s <"$p" >&2 || die "$p does not apply to $ksrc"
		echo "debug-kernel: applied $(basename "$p")" >&2
	done
}

apply_patches
mkdir -p "$out"
start=$(date +%s)
echo "debug-kernel: building in $out from $ksrc (-j$jobs); a cold build takes a while" >&2
rm -f "$out/.xnet-stamp"
kmake=(make -C "$ksrc" O="$out" -j"$jobs" -s)
"${kmake[@]}" KCONFIG_ALLCONFIG="$frag" allnoconfig >&2
verify_config || die "the config lacks values of $frag (see above)"
"${kmake[@]}" bzImage modules >&2 || die "kernel build failed"
"${kmake[@]}" kernelrelease >"$out/kernel.release"
rel=$(cat "$out/kernel.release")
rm -rf "$out/mods"
"${kmake[@]}" INSTALL_MOD_PATH="$out/mods" INSTALL_MOD_STRIP=1 \
	DEPMOD=/sbin/depmod modules_install >&2
[ -f "$out/mods/lib/modules/$rel/modules.dep" ] || die "modules_install gave no modules.dep"
echo "$stamp" >"$out/.xnet-stamp"
echo "debug-kernel: $rel built in $(($(date +%s) - start)) s" >&2
echo "$out"
