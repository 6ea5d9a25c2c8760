#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# make deb: the Debian package xnet-dkms_<version>_all.deb in build/deb/,
# built by Debian's own tools (dpkg-buildpackage, debhelper, dh-dkms) from
# the checkout's files (git ls-files: tracked and new, not ignored), then
# checked by lintian (build/deb/lintian.log). The version is dkms.conf's
# PACKAGE_VERSION; debian/changelog must say the same.
#
#   scripts/make-deb.sh [--out DIR] [--no-lintian]
#
# --out: build there instead (the guest tests build their own copy, so that
# two kernels' runs do not share one directory); --no-lintian: skip lintian
# (check-build runs it).
set -euo pipefail

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
out=$root/build/deb
lint=1
while [ $# -gt 0 ]; do
	case $1 in
	--out) out=$(realpath -m "$2"); shift 2 ;;
	--no-lintian) lint=0; shift ;;
	*) echo "usage: $0 [--out DIR] [--no-lintian]" >&2; exit 2 ;;
	esac
done

"$root/scripts/setup.sh" --deb
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$root/dkms.conf")
cver=$(cd "$root" && dpkg-parsechangelog -SVersion)
if [ "$ver" != "$cver" ]; then
	echo "make deb: dkms.conf says $ver, debian/changelog $cver: make them one" >&2
	exit 1
fi
rm -rf "$out"
mkdir -p "$out/xnet-$ver"
(cd "$root" && git ls-files -co --exclude-standard -z |
	xargs -0 cp --parents -t "$out/xnet-$ver")
(cd "$out/xnet-$ver" && dpkg-buildpackage -us -uc -b) >"$out/build.log" 2>&1 || {
	tail -n 30 "$out/build.log" >&2
	echo "make deb: dpkg-buildpackage failed ($out/build.log)" >&2
	exit 1
}
deb=$out/xnet-dkms_${ver}_all.deb
[ -f "$deb" ] || { echo "make deb: no $deb" >&2; exit 1; }
echo "make deb: $deb"
[ $lint -eq 1 ] || exit 0
lintian --tag-display-limit 0 "$deb" >"$out/lintian.log" 2>&1 || true
if [ -s "$out/lintian.log" ]; then
	echo "lintian:"
	sed 's/^/  /' "$out/lintian.log"
fi
