#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=900
# vmtest: nodebug="the package installs through DKMS for distribution kernels; 01 loads the modules on the debug kernel"
# vmtest: series="6.1"
#
# The Debian package (make deb) on the guest's own kernel, as a fleet
# installs it, and the kernel package's hook with it:
#   - dpkg -i: the postinst registers the sources with DKMS and installs the
#     modules for the booted kernel; modprobe loads each, with the package's
#     version;
#   - /etc/kernel/postinst.d/dkms for a kernel of another series (a build
#     tree present), and for a supported series whose build tree lacks an
#     option the modules need: exit 0, one line saying why, nothing built
#     (dkms 3.0.10 alone exits 11 and fails the kernel package);
#   - the same hook for the booted kernel reinstalls the modules;
#   - dpkg -r: no module, no DKMS tree, no file of the package but its two
#     conffiles; dpkg --purge: those gone too.
# The compile is not done here (minutes under TCG): vmtest compiled the
# package's own /usr/src tree on the host with dkms build (lib_dkms.sh), and
# the test puts that result where DKMS's postinst loads prebuilt modules
# from (/usr/share/xnet-dkms/xnet-<ver>.dkms.tar.gz, a dkms mktarball
# archive) instead of building. Everything else is the package's own
# scripts and Debian's dkms. The root filesystem is the host's under a
# tmpfs overlay: nothing of this reaches the host. For speed under TCG,
# /lib/modules and dpkg's database are tmpfs copies of the real ones and
# the man-db trigger is off (lib_dkms.sh).
# series="6.1": make check runs it on Debian 12's default kernel only. The
# package is the same for every kernel, 01 loads the modules on each, and
# check-build runs dkms build for 6.12 on the host; the test costs minutes
# under TCG (dpkg and dkms are thousands of forks and files).
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_dkms.sh
. "$XNET_SRC/tests/vm/lib_dkms.sh"

ver=$DKMS_VER kver=$DKMS_KVER
deb=$XNET_DKMS/deb/xnet-dkms_${ver}_all.deb
[ -f "$deb" ] || fail "no package $deb"
export DEBIAN_FRONTEND=noninteractive
cleanup() {
	/sbin/modprobe -r nvme_tcp_prio nvmet_tcp_prio xps_flow pp_frag 2>/dev/null || true
	dkms_modules_restore
	dkms_dpkg_restore
}
trap cleanup EXIT
if dpkg-query -W xnet-dkms >/dev/null 2>&1; then
	fail "xnet-dkms is already known to dpkg on this root"
fi
dkms_modules_tmpfs
dkms_dpkg_tmpfs

# Every file the package ships, and its conffiles.
mapfile -t files < <(dpkg-deb -c "$deb" | awk '$1 !~ /^d/ { sub(/^\./, "", $6); print $6 }')
mapfile -t conffiles < <(dpkg-deb -I "$deb" conffiles)
ktap_diag "[${SECONDS}s] package: ${#files[@]} files, conffiles ${conffiles[*]}"
[ ${#conffiles[@]} -eq 2 ] || fail "conffiles: '${conffiles[*]}'"

status_of() {
	dkms status -m xnet -v "$ver" -k "$kver" 2>&1
}

# --- dpkg -i
mkdir -p /usr/share/xnet-dkms
cp "$XNET_DKMS"/tree/xnet/"$ver"/tarball/*.dkms.tar.gz "/usr/share/xnet-dkms/xnet-$ver.dkms.tar.gz"
out=$(dpkg -i "$deb" 2>&1) || fail "dpkg -i: $out"
rm -rf /usr/share/xnet-dkms
grep -q "Loading tarball for xnet-$ver" <<<"$out" ||
	fail "postinst did not load the prebuilt modules: $out"
st=$(status_of)
ktap_diag "[${SECONDS}s] after dpkg -i: $st"
[[ $st == *"xnet/$ver, $kver, x86_64: installed"* ]] || fail "dkms status: '$st'"
expect_eq "$(dpkg-query -W -f='${Status}' xnet-dkms)" "install ok installed" "dpkg status"
dkms_check_modules
ktap_diag "[${SECONDS}s] dpkg -i: the four modules load from updates/dkms, version $ver"

# --- the kernel package's hook
hook() {	# hook KVER: runs /etc/kernel/postinst.d/dkms; sets hook_out, hook_rc
	hook_rc=0
	hook_out=$(/etc/kernel/postinst.d/dkms "$1" 2>&1) || hook_rc=$?
}
# hook_skips KVER WHY: exit 0, our one line naming WHY, nothing built.
hook_skips() {
	hook "$1"
	[ "$hook_rc" -eq 0 ] || fail "hook for $1: exit $hook_rc: $hook_out"
	expect_eq "$(grep -c "^xnet-dkms: not built for kernel $1: $2" <<<"$hook_out")" 1 \
		"lines 'xnet-dkms: not built for kernel $1: $2' in: $hook_out"
	[ ! -e "/var/lib/dkms/xnet/$ver/$1" ] || fail "dkms built something for $1"
	ktap_diag "[${SECONDS}s] hook for $1: exit 0: $(grep "^xnet-dkms" <<<"$hook_out")"
}
other=5.10.0-99-amd64
mkdir -p "/lib/modules/$other"
ln -s "$DKMS_KHDR" "/lib/modules/$other/build"
hook_skips "$other" "not of the series the modules support"

noxps=6.1.0-98-amd64
mkdir -p "/lib/modules/$noxps/build"
ln -s "$DKMS_KHDR/include" "/lib/modules/$noxps/build/include"
grep -v '^CONFIG_XPS=' "$DKMS_KHDR/.config" >"/lib/modules/$noxps/build/.config"
hook_skips "$noxps" "its build tree has no CONFIG_XPS"

# The hook for the booted kernel, built and not installed: it installs.
out=$(dkms uninstall -m xnet -v "$ver" -k "$kver" 2>&1) || fail "dkms uninstall: $out"
[[ $(status_of) == *": built"* ]] ||
	fail "after dkms uninstall: $(status_of); $(find "/var/lib/dkms/xnet/$ver" -maxdepth 4 | tr '\n' ' ')"
ktap_diag "[${SECONDS}s] dkms uninstall: built, not installed"
hook "$kver"
ktap_diag "[${SECONDS}s] hook for $kver: exit $hook_rc"
[ "$hook_rc" -eq 0 ] || fail "hook for $kver: exit $hook_rc: $hook_out"
! grep -q '^xnet-dkms' <<<"$hook_out" || fail "hook for $kver: $hook_out"
[[ $(status_of) == *": installed"* ]] || fail "after the hook for $kver: $(status_of)"
dkms_check_modules
ktap_diag "[${SECONDS}s] hook for $kver: installed again, the four modules load"

# --- dpkg -r, then dpkg --purge
# left_behind CONFFILES_TOO: names every file of the package that is still
# there (conffiles only if asked), every module (but the kernel's own one
# that dkms_modules_tmpfs keeps) and DKMS directory.
left_behind() {
	local f c keep
	for f in "${files[@]}"; do
		keep=0
		for c in "${conffiles[@]}"; do
			[ "$1" = yes ] || [ "$f" != "$c" ] || keep=1
		done
		[ $keep -eq 1 ] || [ ! -e "$f" ] || echo "$f"
	done
	[ ! -e "/usr/src/xnet-$ver" ] || echo "/usr/src/xnet-$ver"
	[ ! -e /var/lib/dkms/xnet ] || echo /var/lib/dkms/xnet
	find /lib/modules -name '*.ko*' ! -path "$DKMS_KERNEL_MOD" 2>/dev/null
}
out=$(dpkg -r xnet-dkms 2>&1) || fail "dpkg -r: $out"
left=$(left_behind no)
[ -z "$left" ] || fail "left after dpkg -r: $left"
expect_eq "$(dpkg-query -W -f='${Status}' xnet-dkms)" "deinstall ok config-files" "dpkg status after -r"
for c in "${conffiles[@]}"; do
	[ -f "$c" ] || fail "dpkg -r removed the conffile $c"
done
for m in nvme_tcp_prio nvmet_tcp_prio xps_flow pp_frag; do
	if p=$(/sbin/modinfo -n "$m" 2>/dev/null); then
		fail "$m still resolves to $p after dpkg -r"
	fi
done
ktap_diag "[${SECONDS}s] dpkg -r: no module, no DKMS tree, only the conffiles"
out=$(dpkg --purge xnet-dkms 2>&1) || fail "dpkg --purge: $out"
left=$(left_behind yes)
[ -z "$left" ] || fail "left after dpkg --purge: $left"
if st=$(dpkg-query -W -f='${Status}' xnet-dkms 2>/dev/null) && [ "$st" != "unknown ok not-installed" ]; then
	fail "dpkg status after --purge: $st"
fi
ktap_diag "[${SECONDS}s] dpkg --purge: nothing of the package left"
