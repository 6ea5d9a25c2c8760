#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of the kernel source tree that the KUnit tier and
# `make style` use: Debian's linux-source-6.1, the exact source of the guest
# kernel, extracted once into ${XDG_CACHE_HOME:-~/.cache}/xnet-kmods/src.
#
# The extraction is atomic (temp dir, then rename) and serialised by a lock
# (a concurrent caller waits instead of replacing a tree in use). A stamp (the tarball's
# size and mtime) makes an upgraded package replace the tree; a tree missing
# top-level directories is replaced too. Replacing the tree also drops the
# KUnit build dir: the new sources carry the tarball's old mtimes, so objects
# built before would look up to date.
set -euo pipefail

CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/xnet-kmods
TARBALL=${XNET_LINUX_SOURCE_TAR:-/usr/src/linux-source-6.1.tar.xz}
KSRC=$CACHE/src/linux-source-6.1
STAMP=$CACHE/src/linux-source-6.1.stamp
TREE_DIRS="arch block certs crypto drivers fs include init ipc kernel lib mm
	net scripts security sound tools usr virt"

die() {
	echo "ksrc: $*" >&2
	exit 1
}

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
	die "$TARBALL not found: run scripts/setup.sh (package linux-source-6.1)"
# One extraction at a time: a second caller waits, then finds the tree.
mkdir -p "$CACHE/src"
exec 9>"$CACHE/src/.lock"
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
[ -f "$tmp/linux-source-6.1/Makefile" ] || {
	rm -rf "$tmp"
	die "$TARBALL does not hold linux-source-6.1/"
}
rm -rf "$KSRC" "$CACHE/kunit-build"
mv "$tmp/linux-source-6.1" "$KSRC"
rmdir "$tmp"
tarball_id >"$STAMP"
echo "$KSRC"
