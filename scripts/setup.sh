#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Install everything the build, the tests and the demo need, from Debian's
# (or Ubuntu's) own packages. Idempotent: does nothing when all is present.
#
#   scripts/setup.sh            install what is missing (needs root or sudo)
#   scripts/setup.sh --check    only report what is missing (exit 1 if any)
#   scripts/setup.sh --deb      only what make deb needs
# Env: XNET_SETUP_NO_INITRD=1: install the kernel packages without building
# the host's initramfs for each (INITRD=No, which Debian's kernel hook
# /etc/kernel/postinst.d/initramfs-tools obeys). The guests never use it
# (scripts/vm/mkinitramfs.sh makes their own); building the four took 7 of
# the 11 minutes of a bare machine's setup (2026-12-07). Only for machines
# that never boot those kernels themselves: CI sets it (.ci/run).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
case ${XNET_SETUP_NO_INITRD:-0} in
0 | 1) ;;
*) echo "setup: XNET_SETUP_NO_INITRD=$XNET_SETUP_NO_INITRD: want 0 or 1" >&2; exit 2 ;;
esac

# Build: compilers, kbuild headers and the kernels the guest boots: each
# series of $XNET_KERNELS (default 6.1 and 6.12), plain and PREEMPT_RT, each
# with its headers (scripts/kernels.sh names the packages).
PKGS_BUILD="make gcc g++ libc6-dev binutils kmod bc flex bison libelf-dev libssl-dev
	dwarves xz-utils cpio python3 git dkms $("$here/kernels.sh" packages)"
# Tests: GoogleTest, the kernel sources for kunit.py/checkpatch (one per
# series), sparse, QEMU; clang with its compiler-rt (libFuzzer, ASan, UBSan
# runtimes) for tests/fuzz.
# mawk and gawk: scripts are checked under both; prometheus: its promtool
# checks tools/xnet-prometheus's output.
PKGS_TEST="libgtest-dev googletest sparse perl shellcheck qemu-system-x86
	busybox-static clang libclang-rt-dev mawk gawk prometheus"
for s in $("$here/kernels.sh" list); do
	PKGS_TEST+=" linux-source-$s"
done
# Tools used inside the guest (the guest runs the host's root filesystem).
# dpdk-dev holds dpdk-testpmd (the dpdk package only the runtime libraries).
# bpftrace: 07 runs the documents' bpftrace examples.
PKGS_GUEST="iproute2 ethtool nvme-cli fio iperf3 procps util-linux linux-perf
	dpdk-dev bpftrace"

# The package: make deb and its guest test.
PKGS_DEB="dpkg-dev debhelper dh-dkms lintian dkms git"

want="$PKGS_BUILD $PKGS_TEST $PKGS_GUEST $PKGS_DEB"
[ "${1:-}" != "--deb" ] || want=$PKGS_DEB

missing=()
for p in $want; do
	dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q '^install ok installed$' ||
		missing+=("$p")
done

if [ ${#missing[@]} -eq 0 ]; then
	exit 0
fi
if [ "${1:-}" = "--check" ]; then
	echo "missing packages: ${missing[*]}"
	exit 1
fi

if ! command -v apt-get >/dev/null 2>&1; then
	echo "setup: this script installs Debian/Ubuntu packages with apt-get." >&2
	echo "setup: on other systems install the equivalents of: ${missing[*]}" >&2
	exit 1
fi

SUDO=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null 2>&1 || {
		echo "setup: need root (or sudo) to install: ${missing[*]}" >&2
		exit 1
	}
	SUDO=sudo
fi

echo "setup: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
if [ "${XNET_SETUP_NO_INITRD:-0}" = 1 ]; then
	$SUDO env INITRD=No apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
else
	$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
echo "setup: done"
