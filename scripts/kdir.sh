#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# Print the kernel build directory to build against, and say on stderr which
# one was chosen and why:
#   1. /lib/modules/$(uname -r)/build, when the running kernel has one;
#   2. else the installed Debian headers that match an installed linux-image
#      (the kernel the test guest boots), newest first.
# `make KDIR=...` bypasses this script.
set -eu

running=/lib/modules/$(uname -r)/build
if [ -d "$running" ]; then
	echo "kdir: running kernel's build dir $running" >&2
	echo "$running"
	exit 0
fi

for img in $(find /boot -maxdepth 1 -name "vmlinuz-*" ! -name "*-rt-*" 2>/dev/null | sort -rV) \
	$(find /boot -maxdepth 1 -name "vmlinuz-*-rt-*" 2>/dev/null | sort -rV); do
	kver=${img#/boot/vmlinuz-}
	for d in "/lib/modules/$kver/build" "/usr/src/linux-headers-$kver"; do
		if [ -f "$d/Makefile" ]; then
			echo "kdir: no build dir for the running kernel $(uname -r);" \
				"using headers of installed linux-image $kver: $d" >&2
			echo "$d"
			exit 0
		fi
	done
done

echo "kdir: no kernel headers found. Install linux-headers for your kernel" \
	"(Debian: linux-headers-amd64 linux-image-amd64; see scripts/setup.sh)" \
	"or pass KDIR=/path/to/kernel/build" >&2
exit 1
