#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""TCP stream with an end-to-end checksum, for pp_frag tests and benches.

  pp_stream.py recv PORT [--bind ADDR] [--count N] [--digest D]
                   [--hold SECS] [--hold-full MAXSECS]
      accept N connections (default 1), one after the other; for each print
      "recv bytes=B sha256=H"; --hold waits SECS before reading, --hold-full
      until the queued data stops growing (printing "held bytes=Q secs=T
      full=0|1")
  pp_stream.py send ADDR PORT --bytes B [--write W] [--zerocopy] [--seed S]
               [--digest D] [--zc-report] [--sys-report] [--until FILE]
      connect, send B bytes of a seeded pseudo-random stream in writes of W
      bytes (default 65536; a comma list cycles through sizes), print
      "send bytes=B sha256=H secs=T cpu=C zc_done=Z"; with --until, stop
      early, after the write during which FILE appeared (B: what was
      sent: a stream that lasts as long as a test needs it); with --zc-report also
      "zc sends=N done=Z copied=K enobufs=E" (K: completions flagged
      SO_EE_CODE_ZEROCOPY_COPIED, the kernel copied the data after all;
      E: sends refused with ENOBUFS for lack of optmem, retried); with
      --sys-report also "sys pgalloc=P busy=U kern=K hz=Z": system-wide
      /proc/vmstat pgalloc_* and /proc/stat deltas (busy and system + irq +
      softirq ticks) from connect to the end, the process start left out
  --digest crc32 (both ends) replaces sha256 with zlib's crc32, printed as
  "crc32=H": much cheaper where SHA instructions are emulated (QEMU TCG).

The receiver's digest must equal the sender's: pages recycled while the
stack still used them would corrupt the stream. --zerocopy sends with
MSG_ZEROCOPY (SO_ZEROCOPY) and reaps completions from the error queue,
the alternative pp_frag is compared with.
"""
import argparse
import errno
import fcntl
import hashlib
import os
import random
import resource
import select
import socket
import struct
import sys
import termios
import time
import zlib

SO_ZEROCOPY = getattr(socket, "SO_ZEROCOPY", 60)
MSG_ZEROCOPY = getattr(socket, "MSG_ZEROCOPY", 0x4000000)
SO_EE_ORIGIN_ZEROCOPY = 5
SO_EE_CODE_ZEROCOPY_COPIED = 1


class Crc32:
    """hashlib-like running zlib.crc32."""

    name = "crc32"

    def __init__(self):
        self.v = 0

    def update(self, data):
        self.v = zlib.crc32(data, self.v)

    def hexdigest(self):
        return "%08x" % self.v


def digest(name):
    return Crc32() if name == "crc32" else hashlib.sha256()


def sys_counters():
    """System-wide pages allocated (pgalloc_*), busy and kernel ticks."""
    alloc = 0
    with open("/proc/vmstat") as f:
        for line in f:
            k, v = line.split()
            if k.startswith("pgalloc_"):
                alloc += int(v)
    with open("/proc/stat") as f:
        c = [int(x) for x in f.readline().split()[1:9]]
    # user nice system idle iowait irq softirq steal
    return alloc, c[0] + c[1] + c[2] + c[5] + c[6] + c[7], c[2] + c[5] + c[6]


def cpu_secs():
    ru = resource.getrusage(resource.RUSAGE_SELF)
    return ru.ru_utime + ru.ru_stime


def hold_full(conn, limit):
    """Do not read until the data queued for this socket has stopped
    growing for a second (the receive window closed and the sender blocked
    on a full send buffer), or LIMIT seconds have passed; print
    "held bytes=Q secs=T full=0|1"."""
    t0 = time.monotonic()
    last, calm, full = -1, 0, 0
    while time.monotonic() - t0 < limit:
        time.sleep(0.25)
        q = struct.unpack("i", fcntl.ioctl(conn, termios.FIONREAD, b"\0" * 4))[0]
        calm = calm + 1 if q == last and q > 0 else 0
        last = q
        if calm >= 4:
            full = 1
            break
    print(f"held bytes={last} secs={time.monotonic() - t0:.1f} full={full}", flush=True)


def recv(args):
    srv = socket.socket(socket.AF_INET6 if ":" in args.bind else socket.AF_INET)
    srv.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    srv.bind((args.bind, args.port))
    srv.listen(4)
    print("listening", flush=True)
    for _ in range(args.count):
        conn, _ = srv.accept()
        if args.hold:
            time.sleep(args.hold)   # let the data pile up in flight first
        if args.hold_full:
            hold_full(conn, args.hold_full)
        h = digest(args.digest)
        n = 0
        buf = bytearray(1 << 20)
        view = memoryview(buf)
        while True:
            got = conn.recv_into(view)
            if not got:
                break
            h.update(view[:got])
            n += got
        conn.close()
        print(f"recv bytes={n} {h.name}={h.hexdigest()}", flush=True)


def reap_zerocopy(sock, pending, copied=None):
    """Read zerocopy completions; returns how many sends completed.

    copied: a one-element list, increased by the completions the kernel
    flagged SO_EE_CODE_ZEROCOPY_COPIED."""
    done = 0
    while True:
        try:
            _, anc, _, _ = sock.recvmsg(0, 1024, socket.MSG_ERRQUEUE | socket.MSG_DONTWAIT)
        except BlockingIOError:
            return done
        for level, typ, data in anc:
            # struct sock_extended_err: errno u32, origin u8, type u8,
            # code u8, pad u8, info u32 (lo), data u32 (hi)
            if len(data) >= 16 and data[4] == SO_EE_ORIGIN_ZEROCOPY:
                lo = int.from_bytes(data[8:12], sys.byteorder)
                hi = int.from_bytes(data[12:16], sys.byteorder)
                done += hi - lo + 1
                if copied is not None and data[6] & SO_EE_CODE_ZEROCOPY_COPIED:
                    copied[0] += hi - lo + 1
        if not anc:
            return done


def send(args):
    sizes = [int(x) for x in args.write.split(",")]
    rnd = random.Random(args.seed)
    # One 4 MiB block of pseudo-random data, sent at shifting offsets: cheap
    # to produce, and no two consecutive writes carry the same bytes.
    block = rnd.randbytes(4 << 20) if hasattr(rnd, "randbytes") else os.urandom(4 << 20)
    block2 = block + block
    fam = socket.AF_INET6 if ":" in args.addr else socket.AF_INET
    s = socket.socket(fam, socket.SOCK_STREAM)
    if args.zerocopy:
        s.setsockopt(socket.SOL_SOCKET, SO_ZEROCOPY, 1)
    s.connect((args.addr, args.port))
    h = digest(args.digest)
    sys0 = sys_counters() if args.sys_report else None
    sent = 0
    k = 0
    off = 0
    issued = zc_done = enobufs = 0
    copied = [0]
    # Zerocopy sends pin the buffer until completion: alternate between
    # two buffers and wait for completions before reusing one.
    t0, c0 = time.monotonic(), cpu_secs()
    while sent < args.bytes:
        w = min(sizes[k % len(sizes)], args.bytes - sent)
        k += 1
        chunk = memoryview(block2)[off:off + w]
        off = (off + w + 4099) % (4 << 20)
        if args.zerocopy:
            while True:
                try:
                    n = s.send(chunk, MSG_ZEROCOPY)
                    break
                except OSError as e:
                    # Out of optmem for notifications: wait for completions.
                    if e.errno != errno.ENOBUFS:
                        raise
                    enobufs += 1
                    select.select([], [], [s], 0.01)
                    zc_done += reap_zerocopy(s, issued - zc_done, copied)
            issued += 1
            zc_done += reap_zerocopy(s, issued - zc_done, copied)
            if n < w:
                s.sendall(chunk[n:])
            h.update(chunk)
        else:
            s.sendall(chunk)
            h.update(chunk)
        sent += w
        if args.until and os.path.exists(args.until):
            break
    s.shutdown(socket.SHUT_WR)
    # Wait for the peer to close: everything was received.
    while s.recv(4096):
        pass
    secs = time.monotonic() - t0
    cpu = cpu_secs() - c0
    sys1 = sys_counters() if args.sys_report else None
    if args.zerocopy:
        zc_done += reap_zerocopy(s, issued - zc_done, copied)
    s.close()
    print(f"send bytes={sent} {h.name}={h.hexdigest()} secs={secs:.3f} cpu={cpu:.3f} zc_done={zc_done}",
          flush=True)
    if args.zc_report:
        print(f"zc sends={issued} done={zc_done} copied={copied[0]} enobufs={enobufs}", flush=True)
    if args.sys_report:
        d = [b - a for a, b in zip(sys0, sys1)]
        print(f"sys pgalloc={d[0]} busy={d[1]} kern={d[2]} hz={os.sysconf('SC_CLK_TCK')}", flush=True)


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("recv")
    r.add_argument("port", type=int)
    r.add_argument("--bind", default="0.0.0.0")
    r.add_argument("--count", type=int, default=1)
    r.add_argument("--hold", type=float, default=0,
                   help="seconds to wait after accepting before reading")
    r.add_argument("--hold-full", type=float, default=0, metavar="MAXSECS",
                   help="after accepting, do not read until the queued data "
                        "stops growing (at most MAXSECS)")
    r.add_argument("--digest", choices=("sha256", "crc32"), default="sha256")
    s = sub.add_parser("send")
    s.add_argument("addr")
    s.add_argument("port", type=int)
    s.add_argument("--bytes", type=int, required=True)
    s.add_argument("--write", default="65536")
    s.add_argument("--zerocopy", action="store_true")
    s.add_argument("--until", metavar="FILE",
                   help="stop once FILE exists (checked after each write)")
    s.add_argument("--seed", type=int, default=1)
    s.add_argument("--digest", choices=("sha256", "crc32"), default="sha256")
    s.add_argument("--sys-report", action="store_true",
                   help="print a line of system-wide pgalloc and CPU tick deltas")
    s.add_argument("--zc-report", action="store_true",
                   help="print a second line: zerocopy sends, completions, copied, ENOBUFS")
    args = p.parse_args()
    recv(args) if args.cmd == "recv" else send(args)


if __name__ == "__main__":
    main()
