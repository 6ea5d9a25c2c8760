#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2
#
# xps_flow and a driver that recognises its devices by their ops pointer:
# tun. TUNSETIFF on a persistent multi-queue tap (the VM use case: QEMU
# opens one queue per vCPU) checks dev->netdev_ops == &tap_netdev_ops, so
# with xps_flow's hook installed it returns EINVAL. xps_flow refuses such
# devices (Documentation/xps-flow.md, "Drivers that compare ops"):
#   (a) without xps_flow, queues attach;
#   (b) with xps_flow loaded, enabling the table on the tap is refused with
#       EOPNOTSUPP (one warning naming the driver), and queues still
#       attach; the module is not pinned, rmmod works.
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
# prints one word per step: attach=ok, attach=EINVAL, table=N:EOPNOTSUPP...
tapq() {
	python3 - "$TAP" "$@" <<'PY'
import errno, fcntl, os, struct, sys
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

# (b) With xps_flow: the files are there (a multi-queue device), steering
# is refused, queues still attach, nothing pinned.
load_mod xps_flow/xps_flow
CNT=/sys/class/net/$TAP/xps_dev_flow_table_cnt
[ -f $CNT ] || fail "$TAP has no xps_dev_flow_table_cnt"
got=$(tapq attach attach table=1024 attach txq table=0)
expect_eq "$got" "attach=ok attach=ok table=1024:EOPNOTSUPP attach=ok txq=3 table=0:ok" \
	"with xps_flow: refused, and TUNSETIFF still attaches"
read -r n <$CNT
expect_eq "$n" 0 "$TAP's table after the refusal"
dmesg_count "xps_flow: $TAP: steering refused: driver tun recognises its devices by their net_device_ops"
expect_eq "$DMESG_N" 1 "warnings naming tun"
read -r n </sys/module/xps_flow/refcnt
expect_eq "$n" 0 "xps_flow's use count"

# A device that does not compare ops still steers, and then pins.
$IP link add xd0 numtxqueues 2 type dummy
echo 64 >/sys/class/net/xd0/xps_dev_flow_table_cnt || fail "enable on a dummy"
read -r n </sys/module/xps_flow/refcnt
expect_eq "$n" 1 "xps_flow's use count with steering on xd0"
echo 0 >/sys/class/net/xd0/xps_dev_flow_table_cnt
$IP link del xd0
unload_mod xps_flow
$IP link del $TAP
