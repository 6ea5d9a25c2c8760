#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2
# vmtest: nodebug="DKMS is the distribution kernels' install path; 01 loads the modules on the debug kernel"
#
# DKMS on the guest's own kernel: vmtest builds the package on the host
# (dkms build with dkms.conf, into $XNET_DKMS: compiling under TCG would
# take minutes); here dkms install puts the four modules into
# /lib/modules/<kver>/updates/dkms and runs depmod, modprobe loads each
# from there, dkms status says installed; dkms remove takes them away.
# The root filesystem is the host's under a tmpfs overlay: nothing of
# this reaches the host. /lib/modules/<kver> is a tmpfs for the test,
# holding the kernel's own modules.builtin*, modules.order and modules.dep
# (dkms reads the compression from it): dkms walks
# the whole module tree (find, depmod) several times, which over 9p under
# TCG takes minutes; the real tree is back when the test ends.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"

MODS=(nvme_tcp_prio nvmet_tcp_prio xps_flow pp_frag)
kver=$(uname -r)
if [ -z "${XNET_DKMS:-}" ] || [ ! -d "${XNET_DKMS}/tree/xnet" ]; then
	fail "no prebuilt DKMS tree (XNET_DKMS)"
fi
ver=$(cd "$XNET_DKMS/tree/xnet" && echo [0-9]*)
MODDIR=/lib/modules/$kver
KHDR=/usr/src/linux-headers-$kver
cleanup() {
	/sbin/modprobe -r "${MODS[@]}" 2>/dev/null || true
	if mountpoint -q "$MODDIR"; then umount "$MODDIR" || true; fi
}
trap cleanup EXIT
[ -f "$KHDR/Makefile" ] || fail "no headers for $kver ($KHDR)"
keep=$(mktemp -d)
cp "$MODDIR"/modules.builtin* "$MODDIR"/modules.order "$MODDIR"/modules.dep "$keep/"
mount -t tmpfs -o size=64m xnet-dkms "$MODDIR"
cp "$keep"/* "$MODDIR/"
rm -rf "$keep"
ln -s "$KHDR" "$MODDIR/build"

mkdir -p /var/lib/dkms /usr/src
cp -a "$XNET_DKMS/tree/xnet" /var/lib/dkms/
cp -a "$XNET_DKMS/src/xnet-$ver" /usr/src/
ln -sfn "/usr/src/xnet-$ver" "/var/lib/dkms/xnet/$ver/source"
[ -d "/var/lib/dkms/xnet/$ver/$kver" ] || fail "the DKMS tree has no build for $kver"

out=$(dkms install -m xnet -v "$ver" -k "$kver" 2>&1) ||
	fail "dkms install: $out"
st=$(dkms status -m xnet -v "$ver" -k "$kver" 2>&1)
ktap_diag "dkms status: $st"
[[ $st == *"xnet/$ver, $kver, x86_64: installed"* ]] || fail "dkms status: '$st'"
for m in "${MODS[@]}"; do
	p=$(/sbin/modinfo -n "$m" 2>&1) || fail "modinfo $m: $p"
	case $p in
	/lib/modules/"$kver"/updates/dkms/"$m".ko*) ;;
	*) fail "$m resolves to $p, not DKMS's copy" ;;
	esac
	/sbin/modprobe "$m" || fail "modprobe $m"
	mod_loaded "$m" || fail "$m not loaded after modprobe"
done
ktap_diag "modprobe from updates/dkms: ${MODS[*]}"
/sbin/modprobe -r "${MODS[@]}" || fail "modprobe -r"
for m in "${MODS[@]}"; do
	! mod_loaded "$m" || fail "$m still loaded"
done
out=$(dkms remove -m xnet -v "$ver" -k "$kver" 2>&1) ||
	fail "dkms remove: $out"
if p=$(/sbin/modinfo -n pp_frag 2>/dev/null); then
	fail "pp_frag still resolves to $p after dkms remove"
fi
