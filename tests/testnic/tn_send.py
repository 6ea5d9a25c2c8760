#!/usr/bin/python3
# SPDX-License-Identifier: GPL-2.0
"""Send packets carrying the xnet_testnic test header through a device.

Header (xnet_testnic.h): b"XNETSEQ1", be32 flow id, be32 seq; every flow's
seq starts at --seq0 and counts up by one per packet.

  tn_send.py DEV [--flows N] [--flow-base ID] [--burst K] [--bursts N |
             --duration S | --until EPOCH] [--cpus 0,1] [--gap-us US] [--size BYTES]
             [--dst MAC] [--udp IP:PORT] [--ipv4 SRC,DST] [--until-gone]
             [--prio N]

A burst is K packets per flow, flows interleaved. Before each burst the
process pins itself to the next CPU of --cpus (sched_setaffinity migrates
at once), so with XPS mapping CPUs to queues consecutive bursts leave on
different TX queues. Default: raw Ethernet frames (EtherType 0x88B5) on an
AF_PACKET socket bound to DEV; --udp sends the header as UDP payload with
SO_BINDTODEVICE instead (one socket: one flow to the stack); --ipv4 sends raw
IPv4/UDP frames on the AF_PACKET socket, UDP source port 10000 + flow id,
so that each test flow is a flow of its own to the stack too (its own skb
hash: XPS spreads the flows over a CPU's queue set). ENOBUFS (qdisc full) is retried after 1 ms, so
every seq is sent exactly once. --until-gone: the device going away or down
(ENXIO/ENODEV/ENETDOWN..., or any error when /sys/class/net/DEV is gone or
not up within 5 s) ends the run quietly (exit 0). --prio: SO_PRIORITY of
the socket (skb->priority: the traffic class under mqprio). --until: stop
at EPOCH (seconds since 1970, as bash's EPOCHREALTIME gives), a deadline
the caller knows whatever this process's start-up took; --duration counts
from when Python got going. Last line: "sent=N bursts=N retries=N
cpus_seen=LIST migrations=N".
"""
import argparse
import errno
import os
import socket
import struct
import sys
import time

MAGIC = b"XNETSEQ1"
ETH_P_SEQ = 0x88B5
GONE = (errno.ENXIO, errno.ENODEV, errno.ENETDOWN, errno.ENETUNREACH,
        errno.EHOSTUNREACH, errno.EADDRNOTAVAIL)


def cur_cpu():
    with open("/proc/thread-self/stat") as f:
        return int(f.read().rsplit(")", 1)[1].split()[36])


def gone_at_start(a, e):
    """With --until-gone, DEV gone before the first packet: a run of none."""
    if not (a.until_gone and (e.errno in GONE or going(a.dev))):
        raise e
    print("sent=0 bursts=0 retries=0 cpus_seen= migrations=0")
    return 0


def going(dev, wait=5.0):
    """True if DEV is (or within WAIT s becomes) gone or down."""
    end = time.monotonic() + wait
    while True:
        try:
            with open("/sys/class/net/%s/flags" % dev) as f:
                if not int(f.read(), 16) & 1:  # IFF_UP
                    return True
        except OSError:
            return True
        if time.monotonic() > end:
            return False
        time.sleep(0.05)


def csum(hdr):
    """The IPv4 header checksum of HDR (its checksum field 0)."""
    t = sum(struct.unpack("!%dH" % (len(hdr) // 2), hdr))
    t = (t & 0xFFFF) + (t >> 16)
    t = (t & 0xFFFF) + (t >> 16)
    return ~t & 0xFFFF


class Done(Exception):
    """--duration ran out while a packet waited for room in the queue."""


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dev")
    ap.add_argument("--flows", type=int, default=4)
    ap.add_argument("--flow-base", type=int, default=1)
    ap.add_argument("--seq0", type=int, default=0)
    ap.add_argument("--burst", type=int, default=8)
    ap.add_argument("--bursts", type=int, default=10)
    ap.add_argument("--duration", type=float, default=0.0)
    ap.add_argument("--until", type=float, default=0.0)
    ap.add_argument("--cpus", default="")
    ap.add_argument("--gap-us", type=int, default=0)
    ap.add_argument("--size", type=int, default=64)
    ap.add_argument("--dst", default="ff:ff:ff:ff:ff:ff")
    ap.add_argument("--udp", default="")
    ap.add_argument("--ipv4", default="")
    ap.add_argument("--until-gone", action="store_true")
    ap.add_argument("--prio", type=int, default=-1)
    a = ap.parse_args()

    cpus = [int(c) for c in a.cpus.split(",") if c != ""]
    if a.udp:
        host, port = a.udp.rsplit(":", 1)
        fam = socket.AF_INET6 if ":" in host else socket.AF_INET
        s = socket.socket(fam, socket.SOCK_DGRAM)
        try:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_BINDTODEVICE,
                         a.dev.encode())
        except OSError as e:
            return gone_at_start(a, e)
        dest = (host.strip("[]"), int(port))
        pad = max(0, a.size - 16)

        def send(flow, seq):
            s.sendto(MAGIC + struct.pack("!II", flow, seq) + bytes(pad), dest)
    else:
        s = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
        try:
            s.bind((a.dev, 0))
        except OSError as e:
            return gone_at_start(a, e)
        src = s.getsockname()[4]
        dst = bytes.fromhex(a.dst.replace(":", ""))
        if a.ipv4:
            try:
                saddr, daddr = (socket.inet_pton(socket.AF_INET, x)
                                for x in a.ipv4.split(","))
            except (OSError, ValueError):
                ap.error("--ipv4 %r: want SRC,DST (two IPv4 addresses)"
                         % a.ipv4)
            eth = dst + src + struct.pack("!H", 0x0800)
            pad = max(0, a.size - 14 - 20 - 8 - 16)
            ulen = 8 + 16 + pad

            def send(flow, seq):
                ip = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + ulen, 0,
                                 0x4000, 64, socket.IPPROTO_UDP, 0,
                                 saddr, daddr)
                ip = ip[:10] + struct.pack("!H", csum(ip)) + ip[12:]
                udp = struct.pack("!HHHH", 10000 + flow % 50000, 9, ulen, 0)
                s.send(eth + ip + udp + MAGIC +
                       struct.pack("!II", flow, seq) + bytes(pad))
        else:
            eth = dst + src + struct.pack("!H", ETH_P_SEQ)
            pad = max(0, a.size - 14 - 16)

            def send(flow, seq):
                s.send(eth + MAGIC + struct.pack("!II", flow, seq) +
                       bytes(pad))
    if a.prio >= 0:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY, a.prio)

    seqs = [a.seq0] * a.flows
    sent = bursts = retries = migrations = 0
    seen = set()
    end = time.monotonic() + a.duration if a.duration > 0 else None
    if a.until > 0:
        end = time.monotonic() + (a.until - time.time())
    last = None
    try:
        while (bursts < a.bursts) if end is None else (time.monotonic() < end):
            if cpus:
                os.sched_setaffinity(0, {cpus[bursts % len(cpus)]})
            c = cur_cpu()
            seen.add(c)
            if last is not None and c != last:
                migrations += 1
            last = c
            for _ in range(a.burst):
                for i in range(a.flows):
                    t0 = time.monotonic()
                    while True:
                        try:
                            send(a.flow_base + i, seqs[i])
                            break
                        except OSError as e:
                            if e.errno != errno.ENOBUFS or \
                               time.monotonic() - t0 > 10:
                                raise
                            if end is not None and time.monotonic() > end:
                                raise Done()
                            retries += 1
                            time.sleep(0.001)
                    seqs[i] = (seqs[i] + 1) & 0xFFFFFFFF
                    sent += 1
            bursts += 1
            if a.gap_us:
                time.sleep(a.gap_us / 1e6)
    except Done:
        pass    # --duration over while the queue was full: not sent
    except OSError as e:
        if not (a.until_gone and (e.errno in GONE or going(a.dev))):
            raise
    print("sent=%d bursts=%d retries=%d cpus_seen=%s migrations=%d" %
          (sent, bursts, retries, ",".join(map(str, sorted(seen))),
           migrations))
    return 0


if __name__ == "__main__":
    sys.exit(main())
