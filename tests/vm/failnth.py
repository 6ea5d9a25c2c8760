#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Fail every allocation of one kernel operation in turn (fault injection).

    failnth.py write PATH DATA            [--last W] [--max N]
    failnth.py insmod KO [PARAMS...]      [--last W] [--max N]

For N = 1, 2, ... the operation runs with /proc/thread-self/fail-nth = N:
the N-th fault-injection point this thread reaches in the kernel (every
slab and page allocation, once failslab and fail_page_alloc no longer
ignore sleeping allocations) fails. Only the one system call is counted:
the file or module is opened before fail-nth is set. The loop ends at the
first N the operation does not reach (it then must succeed).

--last W: only the last W points of the operation (its total T is counted
first, by one run with a fail-nth it cannot reach): N = T-W+1 .. T. For a
module load, the loader's own allocations (reading and laying out the
image, symbols, sysfs) come first and the module's init last: the window
covers the init and what follows it, without ~300 loads per module. That
the window starts before the init is checked: the first point's failure
is reported with its stack (failslab/fail_page_alloc verbose=2 for that
one run), which must hold no frame of the module ("[name]") nor of
do_init_module() (the loader's steps after the init); else the window
grows by half its size, up to 4 times.

After every injected failure:
  - the call fails with ENOMEM (kernfs, the module loader and the modules
    return nothing else for a failed allocation), and nothing changed:
    a written file reads back what it read before, a module is not
    loaded; or
  - the call succeeds: the failed allocation was one it can do without;
    the operation is undone (the old value written back, the module
    removed) before the next N.
Everything runs in this process (no shell per point: under TCG on the
debug kernel a fork+exec costs more than the operation). Prints a summary;
exits 1 on a problem.
"""
import argparse
import ctypes
import errno
import os
import sys
import time

SYS_FINIT_MODULE = 313  # x86_64
SYS_DELETE_MODULE = 176
libc = ctypes.CDLL(None, use_errno=True)
UNREACHABLE = 1 << 30


def set_nth(fd, n):
    os.pwrite(fd, str(n).encode(), 0)


def get_nth(fd):
    return int(os.pread(fd, 32, 0).decode().strip() or 0)


def injected(nth_fd, n, call):
    """call() with fail-nth n: (its errno or 0, what fail-nth reads after)."""
    set_nth(nth_fd, n)
    try:
        call()
        err = 0
    except OSError as e:
        err = e.errno
    left = get_nth(nth_fd)
    set_nth(nth_fd, 0)
    return err, left


def read_file(path):
    with open(path, "rb") as f:
        return f.read()


def module_loaded(name):
    with open("/proc/modules") as f:
        return any(line.split(" ", 1)[0] == name for line in f)


FI = "/sys/kernel/debug"


def set_verbose(v):
    for a in ("failslab", "fail_page_alloc"):
        with open(f"{FI}/{a}/verbose", "w") as f:
            f.write(f"{v}\n")


def kmsg_open():
    fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
    os.lseek(fd, 0, os.SEEK_END)
    return fd


def kmsg_read(fd):
    lines = []
    while True:
        try:
            rec = os.read(fd, 8192)
        except BlockingIOError:
            return lines
        except OSError as e:
            if e.errno == errno.EPIPE:  # overwritten records: go on
                continue
            raise
        lines.append(rec.decode(errors="replace").split(";", 1)[-1].strip())


def rmmod(name):
    for _ in range(100):
        if libc.syscall(SYS_DELETE_MODULE, ctypes.c_char_p(name.encode()),
                        os.O_NONBLOCK) == 0:
            return True
        if ctypes.get_errno() != errno.EAGAIN:
            break
        time.sleep(0.05)
    return False


class WriteOp:
    def __init__(self, rest):
        self.path, self.data = rest[0], rest[1].encode()
        self.old = read_file(self.path)

    def run(self, nth_fd, n):
        fd = os.open(self.path, os.O_WRONLY)
        try:
            return injected(nth_fd, n, lambda: os.write(fd, self.data))
        finally:
            os.close(fd)

    def unchanged(self):
        now = read_file(self.path)
        return None if now == self.old else f"{self.path} reads {now!r}, was {self.old!r}"

    def undo(self):
        with open(self.path, "wb") as f:
            f.write(self.old)
        return self.unchanged()


class InsmodOp:
    def __init__(self, rest):
        self.ko = rest[0]
        self.params = " ".join(rest[1:]).encode()
        self.name = os.path.basename(self.ko)[:-3].replace("-", "_")
        if module_loaded(self.name):
            raise SystemExit(f"failnth: {self.name} is loaded already")

    def finit(self, fd):
        if libc.syscall(SYS_FINIT_MODULE, fd, ctypes.c_char_p(self.params), 0):
            raise OSError(ctypes.get_errno(), "finit_module")

    def run(self, nth_fd, n):
        fd = os.open(self.ko, os.O_RDONLY)
        try:
            return injected(nth_fd, n, lambda: self.finit(fd))
        finally:
            os.close(fd)

    def unchanged(self):
        return f"{self.name} is loaded" if module_loaded(self.name) else None

    def undo(self):
        return None if rmmod(self.name) else f"rmmod {self.name} failed"


def window_starts_in_loader(op, nth_fd, first, label, width):
    """0 if the first reported failure from point @first on is the loader's
    before the init: no frame of the module, none of do_init_module() (an
    allocation with __GFP_NOWARN fails without a report: the next point is
    tried, up to 20); 2 if it is later (the window must grow); 1 on a
    problem."""
    tag = f"[{op.name}]"
    for n in range(first, first + 20):
        kfd = kmsg_open()
        set_verbose(2)
        try:
            err, left = op.run(nth_fd, n)
        finally:
            set_verbose(0)
        lines = kmsg_read(kfd)
        os.close(kfd)
        why = op.unchanged() if err else op.undo()
        if why:
            print(f"failnth: {label}: point {n}: {why}")
            return 1
        if not any("FAULT_INJECTION" in line for line in lines):
            continue
        late = [line for line in lines if tag in line or "do_init_module" in line]
        if late:
            print(f"failnth: {label}: the window of {width} points starts at or after "
                  f"the init ({late[0]})")
            return 2
        return 0
    print(f"failnth: {label}: no failure report for points {first}..{first + 19}")
    return 1


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--last", type=int, default=0)
    ap.add_argument("--max", type=int, default=2000)
    ap.add_argument("op", choices=["write", "insmod"])
    ap.add_argument("rest", nargs="+")
    args = ap.parse_args()
    op = {"write": WriteOp, "insmod": InsmodOp}[args.op](args.rest)
    label = f"{args.op} {' '.join(args.rest)}"

    nth_fd = os.open("/proc/thread-self/fail-nth", os.O_RDWR)
    first = 1
    if args.last:
        err, left = op.run(nth_fd, UNREACHABLE)
        if err:
            print(f"failnth: {label}: fails without injection: {errno.errorcode.get(err, err)}")
            return 1
        total = UNREACHABLE - left
        why = op.undo()
        if why:
            print(f"failnth: {label}: undo: {why}")
            return 1
        width = args.last
        first = max(1, total - width + 1)
        while args.op == "insmod" and first > 1:
            bad = window_starts_in_loader(op, nth_fd, first, label, width)
            if bad == 1 or (bad == 2 and width >= 4 * args.last):
                return 1
            if bad == 0:
                print(f"failnth: {label}: {total} points, the window {first}..{total} "
                      f"starts in the loader before the init (checked)")
                break
            width += args.last // 2
            first = max(1, total - width + 1)
    kinds = {}
    for n in range(first, first + args.max):
        err, left = op.run(nth_fd, n)
        if left != 0:  # the operation made fewer than n calls: done
            bad = 0
            if err:
                print(f"failnth: {label}: no fault injected, still failed: "
                      f"{errno.errorcode.get(err, err)}")
                bad = 1
            why = op.undo()
            if why:
                print(f"failnth: {label}: undo: {why}")
                bad = 1
            print(f"failnth: {label}: points {first}..{n - 1}, results {kinds}")
            if not kinds.get("ENOMEM"):
                print(f"failnth: {label}: no injected failure reached the caller")
                bad = 1
            return bad
        name = errno.errorcode.get(err, str(err)) if err else "success"
        kinds[name] = kinds.get(name, 0) + 1
        if err == 0:
            why = op.undo()
            if why:
                print(f"failnth: point {n}: undo: {why}")
                return 1
            continue
        if err != errno.ENOMEM:
            print(f"failnth: {label}: point {n}: {name}, expected ENOMEM")
            return 1
        why = op.unchanged()
        if why:
            print(f"failnth: {label}: point {n}: changed after {name}: {why}")
            return 1
    print(f"failnth: {label}: more than {args.max} injection points")
    return 1


if __name__ == "__main__":
    sys.exit(main())
