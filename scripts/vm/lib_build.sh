# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vmtest's build job (sourced by scripts/vmtest.sh): our modules built
# against a guest kernel's build tree in a copy of the checkout, and the
# package with its DKMS build for the DKMS guest tests.
# Uses vmtest's repo, run, XNET_SRC and XNET_KVER; sets bf_kdir (the kernel
# build dir the modules were built against) and exports XNET_SRC (the
# copy) and XNET_DKMS.
# (Sourced: the globals it reads and sets are vmtest's.)
# shellcheck disable=SC2034,SC2154

# Copy the checkout's sources (tracked and untracked, not ignored) to @dst,
# touching only files that changed: the copy keeps its own build products,
# so kbuild rebuilds incrementally there without disturbing the checkout's.
mirror_tree() {
	local src=$1 dst=$2 f
	local -A now=()
	mkdir -p "$dst"
	while IFS= read -r -d '' f; do
		[ -f "$src/$f" ] || continue
		now[$f]=1
		if ! cmp -s "$src/$f" "$dst/$f"; then
			mkdir -p "$dst/$(dirname "$f")"
			# A fresh mtime, not the source's (cp -p): a copy from another
			# tree may be older than the objects built here, and kbuild
			# would keep them.
			cp "$src/$f" "$dst/$f"
		fi
	done < <(git -C "$src" ls-files -z -co --exclude-standard)
	if [ -f "$dst/.xnet-files" ]; then
		while IFS= read -r f; do
			[ -n "${now[$f]:-}" ] || rm -f "$dst/$f"
		done <"$dst/.xnet-files"
	fi
	printf '%s\n' "${!now[@]}" >"$dst/.xnet-files"
}

# Build the modules (and the tests' modules) against kernel build dir @kdir
# in a copy of the checkout, build/@name/src; XNET_SRC points there after.
build_for() {
	local kdir=$1 name=$2 dsrc blog
	dsrc=$repo/build/$name/src
	mkdir -p "$dsrc"
	# One build at a time per copy: two runs for one kernel (make check's
	# debug and dbgself tiers, in two lanes) share it.
	exec 8>"$repo/build/$name/.build.lock"
	flock 8
	mirror_tree "$XNET_SRC" "$dsrc"
	echo "vmtest: building the modules for $XNET_KVER in $dsrc" >&2
	blog=$repo/build/$name/modules.log
	bf_kdir=$kdir
	make -j"${XNET_JOBS:-$(nproc)}" -C "$dsrc" KDIR="$kdir" modules testnic faults hookcost >"$blog" 2>&1 ||
		{ tail -n 30 "$blog" >&2; die "module build for $XNET_KVER failed ($blog)"; }
	exec 8>&-
	export XNET_SRC=$dsrc
}

bf_kdir=

# For the DKMS guest tests (tests/vm/*dkms*.sh, tests/vm/lib_dkms.sh): the
# package (make deb), and its /usr/src tree built with dkms build for the
# guest's kernel (on the host: compiling under TCG would take minutes), also
# as a DKMS tarball; and this machine's dpkg database (/var/lib/dpkg, the
# guest's too) as one tar file: dpkg reads its 4,800 files at every run,
# each a 9p round trip under TCG, where one file is one read (the guest
# test puts it on a tmpfs over /var/lib/dpkg). Sets XNET_DKMS (exported).
dkms_prebuild() {
	local kdir=$1 dk=$run/dkms ver
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$XNET_SRC/dkms.conf")
	mkdir -p "$dk/tree"
	echo "vmtest: make deb, and dkms build of its sources for $XNET_KVER (for the DKMS guest tests)" >&2
	"$repo/scripts/make-deb.sh" --out "$dk/deb" --no-lintian >"$dk/deb.log" 2>&1 ||
		{ tail -n 30 "$dk/deb.log" >&2; die "make deb failed ($dk/deb.log)"; }
	dpkg-deb -x "$dk/deb/xnet-dkms_${ver}_all.deb" "$dk/pkg"
	{ dkms build -m xnet -v "$ver" -k "$XNET_KVER" --kernelsourcedir "$kdir" \
		--dkmstree "$dk/tree" --sourcetree "$dk/pkg/usr/src" &&
	  dkms mktarball -m xnet -v "$ver" -k "$XNET_KVER" \
		--dkmstree "$dk/tree" --sourcetree "$dk/pkg/usr/src"; } >"$dk/build.log" 2>&1 ||
		{ tail -n 30 "$dk/build.log" >&2; die "dkms build for $XNET_KVER failed ($dk/build.log)"; }
	tar -C /var/lib/dpkg -cf "$dk/dpkg.tar" . || die "cannot archive /var/lib/dpkg"
	export XNET_DKMS=$dk
}

# dkms_if_needed: dkms_prebuild for the booted kernel when a test kept
# (plan_boots) is a DKMS test. (Not for --debug: the DKMS test is nodebug
# there.)
dkms_if_needed() {
	[ "$opt_debug" -eq 0 ] || return 0
	printf '%s\n' "${kept[@]}" | grep -q 'dkms[^/]*\.sh$' || return 0
	if [ -z "$bf_kdir" ] && [ -f "/usr/src/linux-headers-$XNET_KVER/Makefile" ]; then
		bf_kdir=/usr/src/linux-headers-$XNET_KVER
	fi
	[ -n "$bf_kdir" ] || die "no headers for $XNET_KVER (the DKMS test needs them)"
	dkms_prebuild "$bf_kdir"
}
