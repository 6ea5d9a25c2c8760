#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The distribution kernels the tests run on, by series: Debian's 6.1
# (linux-image-amd64, 6.1.0-N-amd64) and 6.12 (linux-image-6.12-amd64,
# 6.12.N+debM-amd64), each also in its PREEMPT_RT flavour.
#
#   scripts/kernels.sh list                 the series make check tests
#                                           ($XNET_KERNELS, default "6.1 6.12")
#   scripts/kernels.sh kver SERIES [rt]     newest installed release of SERIES
#                                           (plain flavour, or rt) that has
#                                           both an image and headers
#   scripts/kernels.sh image SERIES [rt]    its /boot/vmlinuz-<release>
#   scripts/kernels.sh headers SERIES [rt]  its headers (a kbuild dir)
#   scripts/kernels.sh packages             the Debian packages of every
#                                           series (scripts/setup.sh)
#
# A release belongs to SERIES when it starts with "SERIES." (6.1.0-57 is
# 6.1, 6.12.117 is not). Exit 1 with a message naming the packages to
# install when none is found.
set -euo pipefail

XNET_KERNELS=${XNET_KERNELS:-6.1 6.12}

# Debian's package names per series (6.1 is Debian 12's default kernel).
packages() {
	local s=$1
	case $s in
	6.1) echo "linux-image-amd64 linux-headers-amd64 linux-image-rt-amd64 linux-headers-rt-amd64" ;;
	*) echo "linux-image-$s-amd64 linux-headers-$s-amd64 linux-image-$s-rt-amd64 linux-headers-$s-rt-amd64" ;;
	esac
}

headers_of() {
	local d
	for d in "/usr/src/linux-headers-$1" "/lib/modules/$1/build"; do
		[ -f "$d/Makefile" ] && { echo "$d"; return 0; }
	done
	return 1
}

kver() {
	local s=$1 flavour=${2:-} img k
	[[ $s =~ ^[0-9]+\.[0-9]+$ ]] || { echo "kernels: not a series: $s" >&2; exit 2; }
	while IFS= read -r img; do
		k=${img#/boot/vmlinuz-}
		case $flavour in
		rt) [[ $k == *-rt-* ]] || continue ;;
		'') [[ $k != *-rt-* ]] || continue ;;
		*) echo "kernels: unknown flavour $flavour" >&2; exit 2 ;;
		esac
		headers_of "$k" >/dev/null || continue
		echo "$k"
		return 0
	done < <(find /boot -maxdepth 1 -name "vmlinuz-$s.*" | sort -rV)
	echo "kernels: no installed $s${flavour:+ $flavour} kernel with headers" \
		"(apt-get install $(packages "$s"))" >&2
	exit 1
}

case ${1:-} in
list) echo "$XNET_KERNELS" ;;
kver) kver "${2:?series}" "${3:-}" ;;
image) echo "/boot/vmlinuz-$(kver "${2:?series}" "${3:-}")" ;;
headers) headers_of "$(kver "${2:?series}" "${3:-}")" ;;
packages)
	for s in $XNET_KERNELS; do packages "$s"; done | tr ' ' '\n' | sort -u | tr '\n' ' '
	echo ;;
*) sed -n '4,17s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
esac
