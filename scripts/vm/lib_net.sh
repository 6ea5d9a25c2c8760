# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vmtest's network job (sourced by scripts/vmtest.sh): the host side of a
# test's hostnet=mqN header. boot() (lib_boot.sh) calls hostnet_setup with
# its QEMU arguments in the array xargs, and hostnet_teardown when QEMU has
# exited (and vmtest's cleanup on any exit).
# (Sourced: the globals it reads and sets are vmtest's.)
# shellcheck disable=SC2034,SC2154

# hostnet=mqN (an "@hostnet:N" word in boot()'s xargs): a private netns of
# the host with a bridge and two multi-queue taps, QEMU run inside it with a
# virtio-net NIC on each. Replaces the word in xargs, sets nsexec; without
# root or /dev/net/tun the word is only dropped (the guest sees no NIC).
hostnet_ns=
hostnet_setup() {
	local i q=0 w out=() dir=$1 tx=
	for w in "${xargs[@]}"; do
		case $w in
		@hostnet:*:txtimer) q=${w#@hostnet:} q=${q%:txtimer} tx=1 ;;
		@hostnet:*) q=${w#@hostnet:} ;;
		*) out+=("$w") ;;
		esac
	done
	xargs=("${out[@]}")
	[ "$q" -gt 0 ] || return 0
	if [ "$(id -u)" -ne 0 ] || [ ! -c /dev/net/tun ]; then
		echo "vmtest: hostnet: needs root and /dev/net/tun: no NICs" >&2
		return 1
	fi
	hostnet_ns=xnetvm-$$-$RANDOM
	if ! { ip netns add "$hostnet_ns" &&
		ip -n "$hostnet_ns" link add xbr type bridge &&
		ip -n "$hostnet_ns" link set xbr up; }; then
		hostnet_teardown
		return 1
	fi
	for i in 0 1; do
		if ! { ip -n "$hostnet_ns" tuntap add dev "xq$i" mode tap multi_queue &&
			ip -n "$hostnet_ns" link set "xq$i" master xbr up; }; then
			hostnet_teardown
			return 1
		fi
		xargs+=(-netdev "tap,id=xq$i,ifname=xq$i,script=no,downscript=no,queues=$q,vhost=off"
			-device "virtio-net-pci,netdev=xq$i,mq=on,vectors=$((2 * q + 2)),mac=52:54:00:78:00:0$((i + 1))")
		# :txtimer: the first NIC sends at most 8 frames per queue per ms
		# (QEMU's timer TX), so its queues keep a backlog.
		if [ -n "$tx" ] && [ "$i" = 0 ]; then
			xargs[-1]+=",tx=timer,x-txtimer=1000000,x-txburst=8"
		fi
	done
	nsexec=(ip netns exec "$hostnet_ns")
}
hostnet_teardown() {
	[ -z "$hostnet_ns" ] || ip netns del "$hostnet_ns" 2>/dev/null || true
	hostnet_ns=
}
