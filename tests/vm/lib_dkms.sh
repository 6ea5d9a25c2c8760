# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# For the DKMS guest tests (tests/vm/*dkms*.sh): vmtest builds on the host
# (compiling under TCG would take minutes) the package (make deb) and, with
# dkms build, the modules from the package's own /usr/src tree for the
# guest's kernel, and exports XNET_DKMS:
#   $XNET_DKMS/deb/xnet-dkms_<ver>_all.deb       the package
#   $XNET_DKMS/pkg/usr/src/xnet-<ver>            its sources
#   $XNET_DKMS/tree/xnet/<ver>/<kver>            dkms build's result
#   $XNET_DKMS/tree/xnet/<ver>/tarball/*.tar.gz  the same as a DKMS tarball
#   $XNET_DKMS/dpkg.tar                          the host's /var/lib/dpkg
# Source after lib.sh. Sets DKMS_VER, DKMS_KVER, DKMS_KHDR.

if [ -z "${XNET_DKMS:-}" ] || [ ! -d "$XNET_DKMS/tree/xnet" ]; then
	fail "no prebuilt DKMS tree (XNET_DKMS)"
fi
DKMS_VER=$(cd "$XNET_DKMS/tree/xnet" && echo [0-9]*)
DKMS_KVER=$(uname -r)
DKMS_KHDR=/usr/src/linux-headers-$DKMS_KVER
[ -f "$DKMS_KHDR/Makefile" ] || fail "no headers for $DKMS_KVER ($DKMS_KHDR)"
[ -d "$XNET_DKMS/tree/xnet/$DKMS_VER/$DKMS_KVER" ] ||
	fail "the DKMS tree has no build for $DKMS_KVER"

# dkms_modules_tmpfs: /lib/modules becomes a tmpfs for the test, holding
# only the booted kernel's index files (modules.builtin*, modules.order,
# modules.dep: dkms reads the compression from them) and its build link.
# dkms and depmod walk the whole tree several times, which over 9p under
# TCG takes minutes; and the machine then has one kernel, as a guest would
# (the package's postinst also builds for the newest kernel it finds). The
# real tree is back when dkms_modules_restore runs (trap EXIT).
# dkms takes the kernel's module suffix (.ko, or .ko.xz on Debian's 6.12)
# from modules.dep, which every depmod rewrites from the modules it finds:
# with none of the kernel's own in the copy, the first depmod after
# dpkg -i left an empty modules.dep, and dkms then looked for .ko files
# where its build holds .ko.xz and called the build "added" (seen on 6.12
# only: 6.1's modules are not compressed). So the copy keeps one of the
# kernel's own modules, the first modules.dep lists without dependencies
# (its path: DKMS_KERNEL_MOD).
dkms_modules_tmpfs() {
	local keep d=/lib/modules/$DKMS_KVER one

	keep=$(mktemp -d)
	cp "$d"/modules.builtin* "$d"/modules.order "$d"/modules.dep "$keep/"
	one=$(awk -F: '$2 == "" { print $1; exit }' "$d/modules.dep")
	if [ -z "$one" ] || [ ! -f "$d/$one" ]; then
		fail "no module without dependencies in $d/modules.dep"
	fi
	cp "$d/$one" "$keep/one"
	mount -t tmpfs -o size=64m xnet-dkms /lib/modules
	mkdir -p "$d/$(dirname "$one")"
	mv "$keep/one" "$d/$one"
	# shellcheck disable=SC2034 # read by the tests
	DKMS_KERNEL_MOD=$d/$one
	cp "$keep"/* "$d/"
	rm -rf "$keep"
	ln -s "$DKMS_KHDR" "$d/build"
}

dkms_modules_restore() {
	if mountpoint -q /lib/modules; then umount /lib/modules || true; fi
}

# dkms_dpkg_tmpfs: dpkg's database on a tmpfs for the test, from the copy of
# it vmtest made on the host ($XNET_DKMS/dpkg.tar: the same files the guest
# sees over 9p, its status file compared here). dpkg reads all 4,800 of them
# at every -i, -r and --purge, each open a 9p round trip under TCG: a bare
# "dpkg -S" took 85 s cold and 42-51 s warm in a guest on a host at load 15
# (2026-12-07); extracting the copy took 14 s there. And the man-db trigger
# of the package's manual page rebuilds the man index (mandb -pq: 32 s cold,
# 11 s warm there) at -i and -r: Debian's switch for that trigger
# (/var/lib/man-db/auto-update) is off for the test. dkms_dpkg_restore
# (trap EXIT) undoes both.
dkms_dpkg_mandb=0
dkms_dpkg_tmpfs() {
	local st
	[ -f "$XNET_DKMS/dpkg.tar" ] || fail "no copy of the dpkg database ($XNET_DKMS/dpkg.tar)"
	st=$(mktemp)
	cp /var/lib/dpkg/status "$st"
	mount -t tmpfs -o size=512m xnet-dpkg /var/lib/dpkg || fail "tmpfs on /var/lib/dpkg"
	tar -xf "$XNET_DKMS/dpkg.tar" -C /var/lib/dpkg || fail "extracting $XNET_DKMS/dpkg.tar"
	cmp -s "$st" /var/lib/dpkg/status || fail "$XNET_DKMS/dpkg.tar: not this root's dpkg status"
	rm -f "$st"
	if [ -e /var/lib/man-db/auto-update ]; then
		rm /var/lib/man-db/auto-update
		dkms_dpkg_mandb=1
	fi
}

dkms_dpkg_restore() {
	if mountpoint -q /var/lib/dpkg; then umount /var/lib/dpkg || true; fi
	[ $dkms_dpkg_mandb -eq 0 ] || touch /var/lib/man-db/auto-update
}

# dkms_check_modules: each of the four resolves to DKMS's copy for the
# booted kernel, modprobe loads it with the package's version, modprobe -r
# unloads them all.
dkms_check_modules() {
	local m p
	for m in nvme_tcp_prio nvmet_tcp_prio xps_flow pp_frag; do
		p=$(/sbin/modinfo -n "$m" 2>&1) || fail "modinfo $m: $p"
		case $p in
		/lib/modules/"$DKMS_KVER"/updates/dkms/"$m".ko*) ;;
		*) fail "$m resolves to $p, not DKMS's copy" ;;
		esac
		/sbin/modprobe "$m" || fail "modprobe $m"
		mod_loaded "$m" || fail "$m not loaded after modprobe"
		expect_eq "$(cat "/sys/module/$m/version")" "$DKMS_VER" "$m's version"
	done
	/sbin/modprobe -r nvme_tcp_prio nvmet_tcp_prio xps_flow pp_frag ||
		fail "modprobe -r"
	for m in nvme_tcp_prio nvmet_tcp_prio xps_flow pp_frag; do
		! mod_loaded "$m" || fail "$m still loaded"
	done
}
