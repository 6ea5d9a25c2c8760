# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers every bench guest (tests/bench/*-guest.sh) shares. Sourced after
# tests/vm/lib.sh, whose helpers (fail, wput, rd, mod_loaded, ...) the
# bench guests share with the guest tests. What a bench prints here is
# parsed by the host side (scripts/bench-*.sh) and the tables built from
# it (Documentation/bench/, scripts/check-claims.sh): keep its format.

# log MSG: a progress line on stderr, "bench: MSG".
log() { echo "bench: $*" >&2; }

# pct PART WHOLE: PART as a percentage of WHOLE, one decimal (0 if WHOLE is 0).
pct() { python3 -c "import sys; print('%.1f' % (100.0 * int(sys.argv[1]) / int(sys.argv[2]) if int(sys.argv[2]) else 0))" "$1" "$2"; }

# Raw files back to the host. The guest's files vanish with it (tmpfs
# overlay), and what the bench command prints is what reaches the host
# (vmtest.sh --shell-cmd): a raw file is printed as a block of lines,
#   @raw-begin NAME / "@raw " + each line / @raw-end NAME
# that scripts/bench-run.sh (bench_vmtest) writes back to the run
# directory, raw/<boot>/NAME, and leaves out of the tables.
# bench_raw NAME [FILE]: FILE (default: stdin) as raw file NAME
# ([A-Za-z0-9._-], a "/" becomes "-"). It writes to the script's own
# stdout (BENCH_RAW_FD, saved when this file is sourced), also from inside
# a $(...). A missing or empty FILE is a failed measurement: it fails.
# Empty by what it holds, not by its size: debugfs, sysfs and procfs files
# report size 0.
exec {BENCH_RAW_FD}>&1
bench_raw() {
	local name=${1//\//-} body
	[[ $name =~ ^[A-Za-z0-9._-]+$ ]] || fail "bench_raw: bad name '$1'"
	if [ $# -ge 2 ]; then
		body=$(sed 's/^/@raw /' "$2" 2>/dev/null) || body=
		[ -n "$body" ] || fail "bench_raw $name: $2 is missing or empty"
	else
		body=$(sed 's/^/@raw /')
	fi
	printf '@raw-begin %s\n%s%s@raw-end %s\n' "$name" "$body" "${body:+$'\n'}" "$name" >&"$BENCH_RAW_FD"
}

# The guest itself, once per boot: kernel release and arguments, CPUs, the
# CPU model QEMU gives (the -cpu model), and what tells KVM from TCG from
# inside (kvm-clock, "Hypervisor detected: KVM" under KVM).
bench_raw guest.txt <<GUEST
kernel_release=$(uname -r)
kernel_cmdline=$(cat /proc/cmdline)
cpus=$(nproc)
cpu_model=$(grep -m1 '^model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')
hypervisor_flag=$(grep -qw hypervisor /proc/cpuinfo && echo yes || echo no)
clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource 2>/dev/null)
hypervisor_detected=$(dmesg 2>/dev/null | grep -m1 -o 'Hypervisor detected: .*')
mem_total=$(grep -m1 '^MemTotal' /proc/meminfo | tr -s ' ' | cut -d' ' -f2-)
GUEST
