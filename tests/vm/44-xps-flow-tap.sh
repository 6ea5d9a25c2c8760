#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2
#
# xps_flow and a driver that recognises its devices by their ops pointer
# and has its own ndo_select_queue: tun. TUNSETIFF on a persistent
# multi-queue tap (the VM use case: QEMU opens one queue per vCPU) checks
# dev->netdev_ops == &tap_netdev_ops; an earlier xps_flow that replaced
# the ops broke it (EINVAL) and had to refuse tun. Its hooks leave the
# ops alone (Documentation/xps-flow.md, "Hooks"):
#   (a) without xps_flow, queues attach;
#   (b) with xps_flow loaded and the table on, queues still attach, and
#       frames the host sends to the tap (tun's select, then xps_flow's
#       verdict) are steered: lookups and recorded heads count them;
#       nothing pins the module, rmmod works with the table on.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"

IP=/sbin/ip
TAP=xtap0

cleanup() {
	[ ! -e /sys/class/net/$TAP ] || $IP link del $TAP 2>/dev/null || true
	if mod_loaded xps_flow; then
		for f in /sys/class/net/*/xps_dev_flow_table_cnt; do
			if [ -e "$f" ]; then echo 0 >"$f" 2>/dev/null || true; fi
		done
		/sbin/rmmod xps_flow 2>/dev/null || true
	fi
}
trap cleanup EXIT

/sbin/modprobe tun || fail "modprobe tun"
[ -c /dev/net/tun ] || fail "no /dev/net/tun"
$IP tuntap add dev $TAP mode tap multi_queue || fail "ip tuntap add"

# tapq STEP...: in one process (queues stay attached until it exits):
#   attach        TUNSETIFF IFF_TAP|IFF_MULTI_QUEUE|IFF_NO_PI on $TAP
#   table=N       write N to xps_dev_flow_table_cnt
#   txq           the tap's real TX queue count
#   up            the tap up (its carrier comes with an attached queue)
#   send=N        N IPv4/UDP frames of 8 flows to the tap (AF_PACKET)
#   stats         lookups and recorded of xps_flow_stats
# prints one word per step: attach=ok, attach=EINVAL, table=N:ok, sent=N...
tapq() {
	python3 - "$TAP" "$@" <<'PY'
import errno, fcntl, os, socket, struct, subprocess, sys
TUNSETIFF = 0x400454ca
IFF_TAP, IFF_MULTI_QUEUE, IFF_NO_PI = 0x0002, 0x0100, 0x1000
dev, fds, out = sys.argv[1], [], []
def err(e):  # EOPNOTSUPP and ENOTSUP are one number on Linux
    if e.errno == errno.EOPNOTSUPP:
        return "EOPNOTSUPP"
    return errno.errorcode.get(e.errno, str(e.errno))
for step in sys.argv[2:]:
    if step == "attach":
        fd = os.open("/dev/net/tun", os.O_RDWR)
        ifr = struct.pack("16sH22x", dev.encode(), IFF_TAP | IFF_MULTI_QUEUE | IFF_NO_PI)
        try:
            fcntl.ioctl(fd, TUNSETIFF, ifr)
            fds.append(fd)
            out.append("attach=ok")
        except OSError as e:
            os.close(fd)
            out.append("attach=" + err(e))
    elif step.startswith("table="):
        fd = os.open("/sys/class/net/%s/xps_dev_flow_table_cnt" % dev, os.O_WRONLY)
        try:
            os.write(fd, step[6:].encode() + b"\n")
            out.append(step + ":ok")
        except OSError as e:
            out.append(step + ":" + err(e))
        os.close(fd)
    elif step == "up":
        with open("/proc/sys/net/ipv6/conf/%s/disable_ipv6" % dev, "w") as f:
            f.write("1")
        subprocess.run(["/sbin/ip", "link", "set", dev, "up"], check=True)
        out.append("up")
    elif step.startswith("send="):
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        s.bind((dev, 0))
        sent = 0
        for i in range(int(step[5:])):
            ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 48, 0, 0, 64, 17, 0,
                             bytes([10, 0, 0, 1]), bytes([10, 0, 1, i % 8]))
            try:
                s.send(b"\xff" * 6 + b"\x02\x00\x00\x00\x00\x01\x08\x00" + ip +
                       struct.pack("!HHHH", 1000 + i % 8, 2000, 28, 0) + b"x" * 20)
                sent += 1
            except OSError:
                pass
        s.close()
        out.append("sent=%d" % sent)
    elif step == "stats":
        st = dict(l.split() for l in open("/sys/class/net/%s/xps_flow_stats" % dev))
        out.append("lookups=%s recorded=%s" % (st["lookups"], st["recorded"]))
    elif step == "txq":
        n = len([q for q in os.listdir("/sys/class/net/%s/queues" % dev) if q.startswith("tx-")])
        out.append("txq=%d" % n)
print(" ".join(out))
PY
}

# (a) The driver alone.
! mod_loaded xps_flow || fail "xps_flow already loaded"
got=$(tapq attach attach attach txq)
expect_eq "$got" "attach=ok attach=ok attach=ok txq=3" "three queues without xps_flow"

# (b) With xps_flow and the table on: queues still attach, frames to the
# tap are steered, nothing pinned.
load_mod xps_flow/xps_flow
CNT=/sys/class/net/$TAP/xps_dev_flow_table_cnt
[ -f $CNT ] || fail "$TAP has no xps_dev_flow_table_cnt"
got=$(tapq attach attach table=1024 attach txq up send=64 stats)
expect_eq "${got% lookups=*}" "attach=ok attach=ok table=1024:ok attach=ok txq=3 up sent=64" \
	"with xps_flow: the table on, TUNSETIFF still attaches"
# The 64 frames, and the kernel's own if it sent any (IPv6 is off on it).
[[ $got =~ lookups=([0-9]+)\ recorded=([0-9]+)$ ]] || fail "no stats in '$got'"
[ "${BASH_REMATCH[1]}" -ge 64 ] || fail "tun: ${BASH_REMATCH[1]} of 64 frames steered"
[ "${BASH_REMATCH[2]}" -ge 64 ] || fail "tun: ${BASH_REMATCH[2]} of 64 heads recorded"
read -r n <$CNT
expect_eq "$n" 1024 "$TAP's table"
read -r n </sys/module/xps_flow/refcnt
expect_eq "$n" 0 "xps_flow's use count with the table on"
unload_mod xps_flow
$IP link del $TAP
