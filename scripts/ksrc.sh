#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print the path of the kernel source tree that the KUnit tier and
# `make style` use (Debian's linux-source-6.1, the exact source of the guest
# kernel), extracting it into the cache first if needed. The extraction is
# atomic: a partial tree is never left under the final name.
set -eu

cache=${XDG_CACHE_HOME:-$HOME/.cache}/xnet-kmods
tarball=${XNET_KSRC_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
name=$(basename "$tarball" .tar.xz)
dst=$cache/src/$name

if [ ! -f "$dst/Makefile" ]; then
	[ -f "$tarball" ] || {
		echo "ksrc: $tarball missing (apt-get install linux-source-6.1)" >&2
		exit 1
	}
	mkdir -p "$cache/src"
	tmp=$(mktemp -d "$cache/src/.extract.XXXXXX")
	echo "ksrc: extracting $tarball into $dst" >&2
	tar -xf "$tarball" -C "$tmp"
	rm -rf "$dst"
	mv "$tmp/$name" "$dst"
	rmdir "$tmp"
fi
echo "$dst"
