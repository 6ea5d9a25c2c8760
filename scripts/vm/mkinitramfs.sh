#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build (or reuse) the vmtest initramfs: busybox-static, scripts/vm/init and
# the guest kernel's modules needed to mount the 9p root under an overlay.
# Uncompressed newc cpio (unpacks faster than gzip under TCG).
#
#   scripts/vm/mkinitramfs.sh KVER CACHE_DIR
#
# Prints the path of the cpio. It is rebuilt only when an input changes
# (this script, init, busybox, the module files).
set -euo pipefail

kver=${1:?usage: mkinitramfs.sh KVER CACHE_DIR}
cache=${2:?usage: mkinitramfs.sh KVER CACHE_DIR}
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
moddir=${XNET_VM_MODDIR:-/lib/modules/$kver}
mods="virtio_pci 9pnet_virtio 9p overlay configfs"

PROG=mkinitramfs
# shellcheck source=scripts/lib.sh
. "$here/../lib.sh"

busybox=
for b in /bin/busybox /usr/bin/busybox; do
	# A dynamic busybox would need its libraries in the initramfs.
	if [ -x "$b" ] && ! readelf -l "$b" 2>/dev/null | grep -q INTERP; then
		busybox=$b
		break
	fi
done
[ -n "$busybox" ] || die "no static busybox (apt-get install busybox-static)"
if [ ! -f "$moddir/modules.dep" ]; then
	# Fine for a custom kernel with virtio-pci, 9p and overlayfs built in.
	echo "mkinitramfs: no $moddir/modules.dep: initramfs without modules" >&2
	mods=
fi

# Resolve module paths in load order from modules.dep (deps first).
declare -A seen=()
order=()
deps_of() { # relpath -> its modules.dep entries
	awk -v m="$1:" '$1 == m { $1 = ""; print; exit }' "$moddir/modules.dep"
}
visit() {
	local p=$1 d
	[ -n "${seen[$p]:-}" ] && return
	seen[$p]=1
	for d in $(deps_of "$p"); do
		visit "$d"
	done
	order+=("$p")
}
for m in $mods; do
	p=$(awk -v re="/${m}[.]ko([.](xz|gz|zst))?:\$" '$1 ~ re { sub(":$", "", $1); print $1; exit }' \
		"$moddir/modules.dep")
	if [ -z "$p" ]; then
		# Built in (custom --kernel) is fine; otherwise the guest cannot boot.
		grep -q "/${m}[.]ko\$" "$moddir/modules.builtin" 2>/dev/null ||
			die "module $m not found in $moddir"
		continue
	fi
	visit "$p"
done

key=$( {
	echo "$kver $mods"
	# Contents only: two checkouts of the same scripts share one image.
	cat "${BASH_SOURCE[0]}" "$here/init" "$busybox" | sha256sum
	for p in "${order[@]}"; do stat -Lc '%n %s %Y' "$moddir/$p"; done
} | sha256sum | cut -c1-16)
out=$cache/initramfs-$kver-$key.cpio
if [ -s "$out" ]; then
	echo "$out"
	exit 0
fi

mkdir -p "$cache"
stage=$(mktemp -d "$cache/.stage.XXXXXX")
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage"/{bin,dev,proc,sys,lib/modules}
cp "$busybox" "$stage/bin/busybox"
# Fresh links inside the staging tree only (never cp onto a link).
for a in sh mount insmod mkdir ln cat echo sleep sync hostname ip switch_root; do
	ln -s busybox "$stage/bin/$a"
done
install -m 0755 "$here/init" "$stage/init"
: >"$stage/lib/modules/order"
for p in "${order[@]}"; do
	b=$(basename "$p")
	case $b in
	*.ko.xz) xz -dc "$moddir/$p" >"$stage/lib/modules/${b%.xz}"; b=${b%.xz} ;;
	*.ko.gz) gzip -dc "$moddir/$p" >"$stage/lib/modules/${b%.gz}"; b=${b%.gz} ;;
	*.ko.zst) zstd -qdc "$moddir/$p" >"$stage/lib/modules/${b%.zst}"; b=${b%.zst} ;;
	*) cp "$moddir/$p" "$stage/lib/modules/$b" ;;
	esac
	echo "$b" >>"$stage/lib/modules/order"
done
(cd "$stage" && find . -mindepth 1 | LC_ALL=C sort |
	cpio --quiet -o -H newc -R 0:0) >"$stage.cpio"
mv -f "$stage.cpio" "$out"
# Drop stale images of this kernel, but none a concurrent run (another
# checkout with other scripts) may be about to boot.
find "$cache" -maxdepth 1 -name "initramfs-$kver-*.cpio" ! -path "$out" -mmin +120 -delete
echo "$out"
