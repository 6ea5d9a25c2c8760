#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Many TCP connections at once, for pp_frag's scale bench.

  pp_fan.py recv PORT --count N [--bind ADDR]
      accept N connections and read each until EOF (epoll, one process);
      print "recv conns=N bytes=B"
  pp_fan.py send ADDR PORT --count N --bytes B [--write W]
      connect N sockets, then send B bytes in all, in writes of W bytes
      (default 16384, at most B/N) to each socket in turn, until each has
      its share; close them all; print "send conns=N bytes=B secs=T":
      T from the first write to the last close, connects left out;
      "refused=K": connects refused and tried again (3 times at most)

Both raise RLIMIT_NOFILE to what N needs. The data is not checked here:
the pp_frag guest tests check streams end to end (pp_stream.py).
"""
import argparse
import resource
import select
import socket
import sys
import time


def nofile(n):
    want = n + 64
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < want:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, max(hard, want)))


def recv(args):
    nofile(args.count)
    ls = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    ls.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    ls.bind((args.bind, args.port))
    ls.listen(4096)
    ls.setblocking(False)
    ep = select.epoll()
    ep.register(ls.fileno(), select.EPOLLIN)
    conns = {}
    accepted = done = total = 0
    print("recv listening", flush=True)
    while done < args.count:
        for fd, _ in ep.poll(5):
            if fd == ls.fileno():
                while accepted < args.count:
                    try:
                        c, _ = ls.accept()
                    except BlockingIOError:
                        break
                    c.setblocking(False)
                    conns[c.fileno()] = c
                    ep.register(c.fileno(), select.EPOLLIN)
                    accepted += 1
                continue
            c = conns[fd]
            while True:
                try:
                    b = c.recv(262144)
                except BlockingIOError:
                    break
                if not b:
                    ep.unregister(fd)
                    c.close()
                    del conns[fd]
                    done += 1
                    break
                total += len(b)
    print("recv conns=%d bytes=%d" % (done, total), flush=True)


def send(args):
    nofile(args.count)
    socks = []
    refused = 0
    for _ in range(args.count):
        for attempt in range(4):
            try:
                s = socket.create_connection((args.addr, args.port))
                break
            except ConnectionRefusedError:
                if attempt == 3:
                    raise
                refused += 1
                time.sleep(0.1)
        socks.append(s)
    share = args.bytes // args.count
    write = max(1, min(args.write, share))
    buf = bytes(write)
    left = [share] * args.count
    sent = 0
    t0 = time.monotonic()
    active = list(range(args.count))
    while active:
        nxt = []
        for i in active:
            n = min(write, left[i])
            socks[i].sendall(buf[:n])
            left[i] -= n
            sent += n
            if left[i]:
                nxt.append(i)
        active = nxt
    for s in socks:
        s.close()
    secs = time.monotonic() - t0
    print("send conns=%d bytes=%d secs=%.3f refused=%d" % (args.count, sent, secs, refused),
          flush=True)


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("recv")
    r.add_argument("port", type=int)
    r.add_argument("--count", type=int, required=True)
    r.add_argument("--bind", default="0.0.0.0")
    s = sub.add_parser("send")
    s.add_argument("addr")
    s.add_argument("port", type=int)
    s.add_argument("--count", type=int, required=True)
    s.add_argument("--bytes", type=int, required=True)
    s.add_argument("--write", type=int, default=16384)
    args = p.parse_args()
    if args.count < 1 or (args.cmd == "send" and args.bytes < args.count):
        sys.exit("pp_fan: --count must be >= 1 and --bytes >= --count")
    recv(args) if args.cmd == "recv" else send(args)


if __name__ == "__main__":
    main()
