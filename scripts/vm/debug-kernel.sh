#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) a debug guest kernel: a Debian linux-source-<series>
# (scripts/ksrc.sh; 6.1 is the guest kernel's own source) configured as
# allnoconfig plus scripts/vm/debug.config (KASAN, lockdep, PROVE_RCU,
# DEBUG_ATOMIC_SLEEP, debug objects, kmemleak, UBSAN, PREEMPT,
# failslab/fail_page_alloc), with the stock-code patches of
# scripts/vm/patches/<series>/ (each says why).
#
#   scripts/vm/debug-kernel.sh [--series S] [--rt]
#                        build if needed; print the build dir
#   ... --check          exit 0 if the cached kernel is current (nothing to
#                        build), else 1
#
# --series S: the source series (6.1, the default: the debug tier's kernel;
# 6.12). --rt: PREEMPT_RT instead of PREEMPT (6.12: RT is in mainline since
# 6.12; linux-source-6.1 has no RT), with PROVE_RAW_LOCK_NESTING: lockdep
# then reports a spinlock_t (a sleeping lock on RT) taken under a raw
# spinlock or with preemption off, contended or not, and
# DEBUG_ATOMIC_SLEEP every might_sleep() there. Per-series and RT changes
# to the fragment: scripts/vm/debug-<series>.config and debug-rt.config
# (a line CONFIG_X=V replaces the fragment's CONFIG_X; CONFIG_X= drops it).
#
# The build dir (${XDG_CACHE_HOME:-~/.cache}/xnet-kmods/debug-<series>,
# debug-rt-<series> with --rt) is a kbuild output tree: `make -C DIR M=...`
# builds modules against it. It holds arch/x86/boot/bzImage, kernel.release, and mods/lib/modules/
# <release> (modules_install: nvme-tcp, nvmet-tcp, null_blk, veth, sch_* ...),
# which the guest mounts at /lib/modules/<release> (scripts/vm/init,
# xnet_moddir=). A stamp of the config, this script and the source makes
# a change rebuild (incrementally); a kernel whose config does not hold every
# value of the fragment is refused.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/../.." && pwd -P)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/xnet-kmods
jobs=${XNET_JOBS:-$(nproc)}

PROG=debug-kernel
# shellcheck source=scripts/lib.sh
. "$repo/scripts/lib.sh"

series=6.1 rt=0 check=0
while [ $# -gt 0 ]; do
	case $1 in
	--series) series=${2:?--series needs a value}; shift ;;
	--rt) rt=1 ;;
	--check) check=1 ;;
	*) die "unknown argument $1" ;;
	esac
	shift
done
out=$cache/debug-$series
overlays=()
[ ! -f "$here/debug-$series.config" ] || overlays+=("$here/debug-$series.config")
if [ $rt -eq 1 ]; then
	out=$cache/debug-rt-$series
	overlays+=("$here/debug-rt.config")
fi

ksrc=$("$repo/scripts/ksrc.sh" --series "$series")
patches=()
for p in "$here/patches/$series"/*.patch; do
	[ ! -f "$p" ] || patches+=("$p")
done

# The fragment: debug.config with the overlays' lines in place of its own.
mkdir -p "$out"
frag=$out/.xnet-fragment
cp "$here/debug.config" "$frag.tmp"
for o in "${overlays[@]}"; do
	while IFS= read -r line; do
		[[ $line =~ ^(CONFIG_[A-Za-z0-9_]+)=(.*)$ ]] || continue
		grep -v -E "^${BASH_REMATCH[1]}=" "$frag.tmp" >"$frag.new" || true
		[ -z "${BASH_REMATCH[2]}" ] || echo "$line" >>"$frag.new"
		mv "$frag.new" "$frag.tmp"
	done <"$o"
done
mv "$frag.tmp" "$frag"
stamp=$( {
	cat "$frag" "${BASH_SOURCE[0]}" ${patches[@]+"${patches[@]}"}
	cat "$cache/src/linux-source-$series.stamp" 2>/dev/null
	gcc --version | head -n 1
} | sha256sum | cut -c1-16)

current() {
	[ "$(cat "$out/.xnet-stamp" 2>/dev/null)" = "$stamp" ] &&
		[ -f "$out/arch/x86/boot/bzImage" ] && [ -s "$out/kernel.release" ] &&
		[ -f "$out/mods/lib/modules/$(cat "$out/kernel.release")/modules.dep" ]
}

if [ $check -eq 1 ]; then
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

	for p in ${patches[@]+"${patches[@]}"}; do
		if patch -d "$ksrc" -p1 -R -s -f --dry-run <"$p" >/dev/null 2>&1; then
			continue
		fi
		patch -d "$ksrc" -p1 -N -s <"$p" >&2 || die "$p does not apply to $ksrc"
		echo "debug-kernel: applied $(basename "$p")" >&2
	done
}

apply_patches
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
