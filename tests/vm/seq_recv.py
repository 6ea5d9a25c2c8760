#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Count, at the receiving end, the test frames of tn_send.py (EtherType
0x88B5, b"XNETSEQ1", be32 flow, be32 seq) that arrive out of order.

  seq_recv.py DEV --duration S [--flows LO-HI] [--ready FILE]

Listens on an AF_PACKET socket bound to DEV for S seconds (or until
SIGTERM). A frame is reordered when its seq is below the highest seq seen
so far in its flow; a jump forward by more than one is a gap (a loss, not
a reorder). --flows restricts the counts to flow ids LO..HI. --ready
names a file created once the socket is bound. Last line: "packets=N
flows=N inorder=N reordered=N gaps=N max_dist=N" (max_dist: the largest
seq distance of a reordered frame behind its flow's highest).
"""
import argparse
import signal
import socket
import struct
import sys
import time

MAGIC = b"XNETSEQ1"
ETH_P_SEQ = 0x88B5


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dev")
    ap.add_argument("--duration", type=float, required=True)
    ap.add_argument("--flows", default="")
    ap.add_argument("--ready", default="")
    a = ap.parse_args()
    lo, hi = 0, 0xFFFFFFFF
    if a.flows:
        lo, hi = (int(x) for x in a.flows.split("-"))

    s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW,
                      socket.htons(ETH_P_SEQ))
    s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 8 << 20)
    s.bind((a.dev, ETH_P_SEQ))
    s.settimeout(0.2)
    if a.ready:
        open(a.ready, "w").close()
    stop = [False]
    signal.signal(signal.SIGTERM, lambda *_: stop.__setitem__(0, True))

    high = {}
    packets = inorder = reordered = gaps = max_dist = 0
    end = time.monotonic() + a.duration
    while not stop[0] and time.monotonic() < end:
        try:
            pkt = s.recv(2048)
        except socket.timeout:
            continue
        if len(pkt) < 30 or pkt[14:22] != MAGIC:
            continue
        flow, seq = struct.unpack("!II", pkt[22:30])
        if not lo <= flow <= hi:
            continue
        packets += 1
        h = high.get(flow)
        if h is None or seq > h:
            if h is not None and seq > h + 1:
                gaps += 1
            high[flow] = seq
            inorder += 1
        else:
            reordered += 1
            max_dist = max(max_dist, h - seq)
    print("packets=%d flows=%d inorder=%d reordered=%d gaps=%d max_dist=%d" %
          (packets, len(high), inorder, reordered, gaps, max_dist))
    return 0


if __name__ == "__main__":
    sys.exit(main())
