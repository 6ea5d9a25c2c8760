#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of a kernel source tree: Debian's linux-source-<series>,
# extracted once into ${XDG_CACHE_HOME:-~/.cache}/xnet-kmods/src.
#
#   scripts/ksrc.sh [--series S]   S: 6.1 (the default: the tree `make
#                                  style` and the debug guest kernel use)
#                                  or another packaged series, e.g. 6.12
#
# The tree of series S is <cache>/src/linux-source-S, from
# /usr/src/linux-source-S.tar.xz (package linux-source-S; for 6.1 the
# tarball can be overridden with $XNET_LINUX_SOURCE_TAR).
#
# The extraction is atomic (temp dir, then rename) and serialised by a lock
# per series (a concurrent caller waits instead of replacing a tree in use).
# A stamp (the tarball's size and mtime) makes an upgraded package replace
# the tree; a tree missing top-level directories is replaced too. Replacing
# the tree also drops the series' KUnit build dirs: the new sources carry the
# tarball's old mtimes, so objects built before would look up to date.
set -euo pipefail

CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/xnet-kmods
TREE_DIRS="arch block certs crypto drivers fs include init ipc kernel lib mm
	net scripts security sound tools usr virt"

PROG=ksrc
# shellcheck source=scripts/lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

usage() {
	sed -n '4,9s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

SERIES=6.1
while [ $# -gt 0 ]; do
	case $1 in
	--series)
		[ $# -ge 2 ] || die "--series needs a series, e.g. 6.12"
		SERIES=$2
		shift 2
		;;
	--series=*)
		SERIES=${1#--series=}
		shift
		;;
	-h | --help)
		usage
		exit 0
		;;
	*)
		usage >&2
		exit 2
		;;
	esac
done
[[ $SERIES =~ ^[0-9]+\.[0-9]+$ ]] || die "not a series: '$SERIES' (e.g. 6.1, 6.12)"

NAME=linux-source-$SERIES
KSRC=$CACHE/src/$NAME
STAMP=$CACHE/src/$NAME.stamp
if [ "$SERIES" = 6.1 ]; then
	# The paths 6.1 always had (caches made before there were series).
	TARBALL=${XNET_LINUX_SOURCE_TAR:-/usr/src/$NAME.tar.xz}
	LOCK=$CACHE/src/.lock
	BUILD_DIRS=("$CACHE/kunit-build" "$CACHE/kunit-build-x86_64")
else
	TARBALL=/usr/src/$NAME.tar.xz
	LOCK=$CACHE/src/.lock-$SERIES
	BUILD_DIRS=("$CACHE/kunit-build-$SERIES" "$CACHE/kunit-build-x86_64-$SERIES")
fi

tarball_id() {
	stat -L -c '%s %Y' "$TARBALL"
}

tree_complete() {
	local d

	[ -f "$KSRC/Makefile" ] && [ -f "$KSRC/tools/testing/kunit/kunit.py" ] ||
		return 1
	for d in $TREE_DIRS; do
		[ -d "$KSRC/$d" ] || return 1
	done
}

[ -f "$TARBALL" ] ||
	die "$TARBALL not found: run scripts/setup.sh (package $NAME)"
# One extraction at a time: a second caller waits, then finds the tree.
mkdir -p "$CACHE/src"
exec 9>"$LOCK"
flock 9
if tree_complete; then
	[ -f "$STAMP" ] || tarball_id >"$STAMP"
	if [ "$(cat "$STAMP")" = "$(tarball_id)" ]; then
		echo "$KSRC"
		exit 0
	fi
fi
echo "ksrc: extracting $TARBALL into $CACHE/src" >&2
tmp=$(mktemp -d "$CACHE/src/.extract.XXXXXX")
if ! tar -xf "$TARBALL" -C "$tmp"; then
	rm -rf "$tmp"
	die "extracting $TARBALL failed"
fi
[ -f "$tmp/$NAME/Makefile" ] || {
	rm -rf "$tmp"
	die "$TARBALL does not hold $NAME/"
}
rm -rf "$KSRC" "${BUILD_DIRS[@]}"
mv "$tmp/$NAME" "$KSRC"
rmdir "$tmp"
tarball_id >"$STAMP"
echo "$KSRC"
