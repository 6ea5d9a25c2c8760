#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# vmtest: run the guest tests (tests/vm/NN-name.sh) in QEMU guests booting the
# Debian kernel the modules are built for. The build machine itself cannot
# load modules, so every kernel-side test runs here.
#
# Why the guest's root is the build machine's own root over 9p (virtme-style)
# instead of an initramfs with copied tools: the tests need bash, iproute2,
# nvme-cli, fio, iperf3, kmod and Debian's whole /lib/modules/<kver> (modprobe
# nvme-tcp, null_blk, veth, sch_* ...). Copying them means chasing ldd output
# and applet links, and ~100 MB of cpio unpacked at every boot. Sharing / read-only over virtio-9p
# under a tmpfs overlay gives all of it with no copying, and the project's
# .ko files sit at the same absolute path as on the host. The initramfs is
# only busybox + the 11 modules needed to mount that root (scripts/vm/); it is
# cached and rebuilt only when its inputs change. The kernel boots as an
# uncompressed PVH vmlinux (also cached): under TCG the xz decompressor of
# the bzImage alone costs ~4 s per boot.
#
# Results come back through a second, writable 9p share (one dir per boot);
# the kernel console (ttyS0) goes to console.log next to it. The guest never
# has a NIC on the host side: networking is done inside it (veth/netns).
#
# Usage: scripts/vmtest.sh [options] [TEST-GLOB...]
#   --cpus N          vCPUs (default 2)          --mem MB   RAM (default 1024)
#   --timeout SEC     per boot (default 300, see  --kernel PATH  guest kernel
#                     below)
#   --append "ARGS"   extra kernel arguments     --keep     keep the log dir
#   --shell-cmd "CMD" boot, run CMD in the guest (cwd $XNET_SRC), print its
#                     output, exit with its status
#   --qemu "ARGS"     more QEMU arguments for the --shell-cmd boot (tests
#                     name theirs in their header: qemu=), e.g. devices
#   --selftest        prove the harness catches failures, console problems,
#                     taint and hangs (scripts/vm/selftest.sh: boots a
#                     temporary set of bad tests; with --debug, --kernel)
#   --debug           boot the debug kernel (scripts/vm/debug-kernel.sh:
#                     KASAN, lockdep, PROVE_RCU, DEBUG_ATOMIC_SLEEP, debug
#                     objects, kmemleak, UBSAN, PREEMPT, failslab) with the
#                     modules built against it in a copy of the checkout
#                     (build/debug/src); timeouts x$XNET_VM_DEBUG_SLOW
#                     (default 3); a kmemleak report fails the test.
#                     With --series S / --rt: the debug kernel of that
#                     source series / its PREEMPT_RT build (debug-kernel.sh
#                     --series S --rt; modules in build/debug-rt-S/src)
#   --series S        boot the newest installed Debian kernel of series S
#                     (6.1, 6.12: scripts/kernels.sh) with the modules built
#                     against its headers in build/<release>/src
#   --rt              the PREEMPT_RT flavour of --series (default 6.1)
#   --icount          count instructions instead of wall time: single-threaded
#                     TCG with "-icount $XNET_VM_ICOUNT" (default shift=0,
#                     sleep=off: guest time = 1 ns per guest instruction of
#                     any vCPU, idle time skipped), deterministic and blind
#                     to host load; the vCPUs take turns on one host thread.
#                     With QEMU 7.2 the Debian kernel's bring-up of a second
#                     x86 vCPU under -icount did not finish in minutes: add
#                     --append maxcpus=1 (or --cpus 1). Always TCG.
#   --suite           run the tests this kernel runs in make check, by the
#                     rule of Documentation/testing.md ("What runs where"):
#                     on Debian's stock 6.1 kernel only the tests the debug
#                     kernel (6.1's source with the checkers) does not run
#                     (nodebug=) and those whose header says stock61="why";
#                     on a PREEMPT_RT kernel those whose header says
#                     rt="why"; elsewhere every test. The tests left out are
#                     named in one "# vmtest: left out" line.
#   -v                stream the guest console to stderr
# TEST-GLOB matches test names (e.g. '01-*', 01-load-unload) in tests/vm, or
# is a path to a test script. Default: all tests/vm/[0-9]*.sh.
#
# Test header (optional, any line): "# vmtest: cpus=2 mem=1024 append="..."
#   qemu="-device ..." timeout=SEC livepatch=1 icount=1 tcg=single". Tests
#   with the same cpus/mem/append/qemu/icount/tcg share one boot; header
#   values override the defaults. livepatch=1 allows taint K for that test;
#   timeout raises the boot timeout; icount=1 boots that test as --icount
#   does; tcg=single boots it with single-threaded TCG (vCPUs take turns on
#   one host thread: for tests that patch kernel text while another vCPU
#   runs it, see tcg_single_args below); baseline=1 marks a test of the
#   tools on stock kernel code only: when it passes it is reported
#   "ok N NAME # baseline" and counted as a baseline, not as passed (a
#   failing baseline fails the run: the tools the other tests rely on are
#   broken); nodebug="WHY" leaves the test out of --debug runs (listed in
#   a "# vmtest: left out" line, not counted). stock61="WHY" and rt="WHY"
#   put the test in the --suite runs of Debian's stock 6.1 kernel and of
#   the PREEMPT_RT kernel (below); series="6.1 ..." keeps it out of the
#   --suite runs of kernels of other series.
#   hostnet=mqN gives the guest two virtio-net NICs with N queue pairs each
#   (MACs 52:54:00:78:00:01 and :02), QEMU taps without vhost bridged
#   together in a private network namespace of the host (never the host's
#   own network; needs root and /dev/net/tun on the host, else the guest
#   gets no NIC and the test should skip). hostnet=mqN:txtimer: the first
#   NIC uses QEMU's timer TX (at most 8 frames a queue per ms), so a busy
#   queue keeps a backlog however the host schedules QEMU.
# Env: XNET_SRC (project dir, default: this checkout), XNET_VM_TESTDIR (dir of
#   tests, default tests/vm), XNET_KVER (guest kernel version, default: from
#   the kernel image), XNET_VM_ACCEL (kvm|tcg, default: probe once, cached),
#   XNET_VM_CPU (TCG -cpu model, default max), XNET_VM_ICOUNT (the -icount
#   argument of --icount / icount=1 boots, default shift=0,sleep=off),
#   XNET_DEBUG_KDIR (--debug: a debug kernel build dir to use as it is),
#   XNET_VM_AWK (mawk|gawk: the tests' awk; default mawk on 6.1 kernels,
#   gawk on the others).
#
# Guest: the host's / read-only under a tmpfs overlay (writes vanish), fresh
#   /run (ip netns works), configfs/debugfs/tracefs mounted, lo up, no udev
#   (drivers of devices added with qemu= are loaded by the runner), no NIC
#   unless a test adds one (use "-netdev user" only: never touch the host's
#   network). Each test runs as "bash TEST" in $XNET_TMP with XNET_SRC,
#   XNET_KVER, XNET_TMP, XNET_VM_LIB (tests/vm/lib.sh) set; processes it
#   leaves behind are killed afterwards; taint is checked per test (new bits).
#
# Output: KTAP (one test case per script), then "vmtest: N passed, N failed,
# N skipped, N baseline" (a skipped test is not a passed one, nor is a
# baseline).
# Exit 0 only if nothing failed: test failure, timeout, guest crash, kernel
# console problem (BUG/WARNING/Oops/lockdep/...), or new taint beyond O|E.
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/.." && pwd -P)
export XNET_SRC=${XNET_SRC:-$repo}
testdir=${XNET_VM_TESTDIR:-$repo/tests/vm}
cache=${XDG_CACHE_HOME:-$HOME/.cache}/xnet-kmods/vm
qemu="qemu-system-x86_64"

opt_cpus=2 opt_mem=1024 opt_timeout=300 opt_timeout_set=0 opt_kernel='' opt_append='' opt_qemu='' opt_keep=0
opt_cmd='' opt_mode=tests opt_verbose=0 opt_icount=0 opt_debug=0 opt_rt=0
opt_series='' opt_suite=0
globs=()

# Kernel log lines that fail the run.
problem_re='BUG:|WARNING:|Oops|general protection fault|KASAN|UBSAN'
problem_re+='|possible circular locking|possible recursive locking'
problem_re+='|inconsistent lock state|suspicious RCU usage|Kernel panic'
problem_re+='|soft lockup|hung_task:|hung_task_timeout|blocked for more than'
problem_re+='|unreferenced object|ODEBUG:|vmtest: checker'

PROG=vmtest DIE_STATUS=2
# shellcheck source=scripts/lib.sh
. "$repo/scripts/lib.sh"
usage() {
	sed -n '/^# Usage:/,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
	exit "${1:-2}"
}

while [ $# -gt 0 ]; do
	case $1 in
	--cpus) opt_cpus=${2:?}; shift ;;
	--mem) opt_mem=${2:?}; shift ;;
	--timeout) opt_timeout=${2:?}; opt_timeout_set=1; shift ;;
	--kernel) opt_kernel=${2:?}; shift ;;
	--append) opt_append=${2?}; shift ;;
	--keep) opt_keep=1 ;;
	--shell-cmd) opt_cmd=${2?}; opt_mode=cmd; shift ;;
	--qemu) opt_qemu=${2?}; shift ;;
	--selftest) opt_mode=selftest ;;
	--icount) opt_icount=1 ;;
	--debug) opt_debug=1 ;;
	--rt) opt_rt=1 ;;
	--series) opt_series=${2:?}; shift ;;
	--suite) opt_suite=1 ;;
	-v) opt_verbose=1 ;;
	-h | --help) usage 0 ;;
	--) shift; globs+=("$@"); break ;;
	-*) echo "vmtest: unknown option $1" >&2; usage ;;
	*) globs+=("$1") ;;
	esac
	shift
done
for v in "$opt_cpus" "$opt_mem" "$opt_timeout"; do
	[[ $v =~ ^[1-9][0-9]*$ ]] || die "not a positive number: $v"
done

# ---------------------------------------------------------------- selftest
if [ "$opt_mode" = selftest ]; then
	args=()
	[ $opt_debug -eq 0 ] || args+=(--debug)
	[ -z "$opt_kernel" ] || args+=(--kernel "$opt_kernel")
	exec "$here/vm/selftest.sh" "${args[@]}"
fi

# ---------------------------------------------------------------- kernel
command -v "$qemu" >/dev/null || die "$qemu not found (scripts/setup.sh)"
mkdir -p "$cache"

# Copy the checkout's sources (tracked and untracked, not ignored) to @dst,
# touching only files that changed: the copy keeps its own build products,
# so kbuild rebuilds incrementally there without disturbing the checkout's.
mirror_tree() {
	local src=$1 dst=$2 f
	local -A now=()
	mkdir -p "$dst"
	while IFS= read -r -d '' f; do
		[ -f "$src/$f" ] || continue
		now[$f]=1
		if ! cmp -s "$src/$f" "$dst/$f"; then
			mkdir -p "$dst/$(dirname "$f")"
			# A fresh mtime, not the source's (cp -p): a copy from another
			# tree may be older than the objects built here, and kbuild
			# would keep them.
			cp "$src/$f" "$dst/$f"
		fi
	done < <(git -C "$src" ls-files -z -co --exclude-standard)
	if [ -f "$dst/.xnet-files" ]; then
		while IFS= read -r f; do
			[ -n "${now[$f]:-}" ] || rm -f "$dst/$f"
		done <"$dst/.xnet-files"
	fi
	printf '%s\n' "${!now[@]}" >"$dst/.xnet-files"
}

# Build the modules (and the tests' modules) against kernel build dir @kdir
# in a copy of the checkout, build/@name/src; XNET_SRC points there after.
build_for() {
	local kdir=$1 name=$2 dsrc blog
	dsrc=$repo/build/$name/src
	mkdir -p "$dsrc"
	# One build at a time per copy: two runs for one kernel (make check's
	# debug and dbgself tiers, in two lanes) share it.
	exec 8>"$repo/build/$name/.build.lock"
	flock 8
	mirror_tree "$XNET_SRC" "$dsrc"
	echo "vmtest: building the modules for $XNET_KVER in $dsrc" >&2
	blog=$repo/build/$name/modules.log
	bf_kdir=$kdir
	make -j"${XNET_JOBS:-$(nproc)}" -C "$dsrc" KDIR="$kdir" modules testnic faults hookcost >"$blog" 2>&1 ||
		{ tail -n 30 "$blog" >&2; die "module build for $XNET_KVER failed ($blog)"; }
	exec 8>&-
	export XNET_SRC=$dsrc
}

bf_kdir=

# For the DKMS guest tests (tests/vm/*dkms*.sh, tests/vm/lib_dkms.sh): the
# package (make deb), and its /usr/src tree built with dkms build for the
# guest's kernel (on the host: compiling under TCG would take minutes), also
# as a DKMS tarball; and this machine's dpkg database (/var/lib/dpkg, the
# guest's too) as one tar file: dpkg reads its 4,800 files at every run,
# each a 9p round trip under TCG, where one file is one read (the guest
# test puts it on a tmpfs over /var/lib/dpkg). Sets XNET_DKMS (exported).
dkms_prebuild() {
	local kdir=$1 dk=$run/dkms ver
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$XNET_SRC/dkms.conf")
	mkdir -p "$dk/tree"
	echo "vmtest: make deb, and dkms build of its sources for $XNET_KVER (for the DKMS guest tests)" >&2
	"$repo/scripts/make-deb.sh" --out "$dk/deb" --no-lintian >"$dk/deb.log" 2>&1 ||
		{ tail -n 30 "$dk/deb.log" >&2; die "make deb failed ($dk/deb.log)"; }
	dpkg-deb -x "$dk/deb/xnet-dkms_${ver}_all.deb" "$dk/pkg"
	{ dkms build -m xnet -v "$ver" -k "$XNET_KVER" --kernelsourcedir "$kdir" \
		--dkmstree "$dk/tree" --sourcetree "$dk/pkg/usr/src" &&
	  dkms mktarball -m xnet -v "$ver" -k "$XNET_KVER" \
		--dkmstree "$dk/tree" --sourcetree "$dk/pkg/usr/src"; } >"$dk/build.log" 2>&1 ||
		{ tail -n 30 "$dk/build.log" >&2; die "dkms build for $XNET_KVER failed ($dk/build.log)"; }
	tar -C /var/lib/dpkg -cf "$dk/dpkg.tar" . || die "cannot archive /var/lib/dpkg"
	export XNET_DKMS=$dk
}

# --series/--rt: a Debian kernel of that series (flavour rt with --rt), our
# modules built against its headers.
if [ $opt_debug -eq 0 ] && { [ -n "$opt_series" ] || [ $opt_rt -eq 1 ]; }; then
	[ -z "$opt_kernel" ] || die "--series/--rt pick their own kernel (no --kernel)"
	flavour=''
	[ $opt_rt -eq 0 ] || flavour=rt
	XNET_KVER=$("$here/kernels.sh" kver "${opt_series:-6.1}" $flavour) || die "no such kernel"
	opt_kernel=/boot/vmlinuz-$XNET_KVER
	build_for "$("$here/kernels.sh" headers "${opt_series:-6.1}" $flavour)" "$XNET_KVER"
fi

# --debug: the debug kernel, its modules tree, and our modules built against it.
debug_append=''
if [ $opt_debug -eq 1 ]; then
	[ -z "$opt_kernel" ] || die "--debug picks its own kernel (no --kernel)"
	dk=${XNET_DEBUG_KDIR:-}
	dargs=(--series "${opt_series:-6.1}")
	[ $opt_rt -eq 0 ] || dargs+=(--rt)
	[ -n "$dk" ] || dk=$("$here/vm/debug-kernel.sh" "${dargs[@]}") || die "no debug kernel"
	if ! [ -f "$dk/arch/x86/boot/bzImage" ] || ! [ -s "$dk/kernel.release" ]; then
		die "$dk: not a debug kernel build"
	fi
	XNET_KVER=$(cat "$dk/kernel.release")
	export XNET_VM_MODDIR=$dk/mods/lib/modules/$XNET_KVER
	[ -f "$XNET_VM_MODDIR/modules.dep" ] || die "$XNET_VM_MODDIR: no modules.dep"
	dname=debug
	[ -n "${XNET_DEBUG_KDIR:-}" ] || [ "${dargs[*]}" = "--series 6.1" ] || dname=$(basename "$dk")
	build_for "$dk" "$dname"
	opt_kernel=$dk/arch/x86/boot/bzImage
	debug_append="xnet_moddir=$XNET_VM_MODDIR xnet_kmemleak=1"
	slow=${XNET_VM_DEBUG_SLOW:-3}
	opt_timeout=$((opt_timeout * slow))
fi

if [ -n "$opt_kernel" ]; then
	kernel=$opt_kernel
else
	# The build machine's running kernel is irrelevant: use the installed one.
	kernel=$("$here/kernels.sh" image 6.1) || die "no 6.1 kernel"
fi
[ -r "$kernel" ] || die "cannot read kernel $kernel"

bzimage_version() { # version string from the bzImage header
	local off
	off=$(od -An -tu2 -j $((0x20e)) -N2 "$1" 2>/dev/null | tr -d ' ')
	[ -n "$off" ] || return 0
	dd if="$1" bs=1 skip=$((off + 0x200)) count=128 2>/dev/null | tr '\0' '\n' |
		head -n 1 | awk '{ print $1 }'
}
if [ -z "${XNET_KVER:-}" ]; then
	case $(basename "$kernel") in
	vmlinuz-*) XNET_KVER=${kernel##*/vmlinuz-} ;;
	*) XNET_KVER=$(bzimage_version "$kernel") ;;
	esac
fi
[ -n "${XNET_KVER:-}" ] || die "cannot tell the version of $kernel: set XNET_KVER"
export XNET_KVER

is_pvh_elf() {
	[ "$(head -c 4 "$1" | tr -d '\0')" = $'\x7fELF' ] &&
		readelf -n "$1" 2>/dev/null | grep -q 'Unknown note type: (0x00000012)'
}
# Boot image: the bzImage's payload, uncompressed, when it is a PVH ELF
# (QEMU boots that directly: no decompressor run under TCG). Cached.
boot_image() {
	local k=$1 key out off tmp
	[ "$(head -c 4 "$k" | tr -d '\0')" = $'\x7fELF' ] && { echo "$k"; return; }
	command -v readelf >/dev/null || { echo "$k"; return; }
	key=$(stat -Lc '%n %s %Y' "$k" | sha256sum | cut -c1-16)
	out=$cache/vmlinux-$XNET_KVER-$key
	[ -s "$out" ] && { echo "$out"; return; }
	tmp=$(mktemp "$cache/.vmlinux.XXXXXX")
	# Try each xz / zstd magic in the image until one gives a PVH ELF.
	while IFS=: read -r off magic; do
		case $magic in
		*7zXZ*) tail -c +$((off + 1)) "$k" | xz -dc --single-stream ;;
		*) tail -c +$((off + 1)) "$k" | zstd -qdc ;;
		esac >"$tmp" 2>/dev/null || true
		is_pvh_elf "$tmp" && break
	done < <(LC_ALL=C grep -obUaP '\xfd7zXZ\x00|\x28\xb5\x2f\xfd' "$k")
	if is_pvh_elf "$tmp"; then
		mv -f "$tmp" "$out"
		find "$cache" -maxdepth 1 -name "vmlinux-$XNET_KVER-*" ! -path "$out" -mmin +120 -delete
		echo "$out"
	else
		rm -f "$tmp"
		echo "$k"
	fi
}
kimage=$(boot_image "$kernel")
initrd=$("$here/vm/mkinitramfs.sh" "$XNET_KVER" "$cache")

# KVM if it works (here /dev/kvm exists but guests die), else TCG. Cached.
pick_accel() {
	local f log
	case ${XNET_VM_ACCEL:-} in kvm | tcg) echo "$XNET_VM_ACCEL"; return ;; esac
	if [ ! -r /dev/kvm ] || [ ! -w /dev/kvm ]; then
		echo tcg
		return
	fi
	f=$cache/accel-$( { uname -r; "$qemu" --version | head -n 1; echo "$kimage"; } |
		sha256sum | cut -c1-16)
	[ -s "$f" ] && { cat "$f"; return; }
	log=$(mktemp)
	# Working KVM: the kernel runs, finds no root and panics (panic=-1 with
	# -no-reboot ends QEMU) in ~1 s. Broken KVM: abort, silence or a hang.
	timeout -k 2 10 "$qemu" -nodefaults -no-user-config -display none -no-reboot \
		-machine q35 -accel kvm -cpu host -m 256 -kernel "$kimage" \
		-append "console=ttyS0 panic=-1" -serial "file:$log" >/dev/null 2>&1 || true
	if grep -q 'Linux version' "$log"; then echo kvm; else echo tcg; fi | tee "$f"
	rm -f "$log"
}
accel=$(pick_accel)
if [ "$accel" = kvm ]; then
	accel_args=(-accel kvm -cpu host)
else
	# -cpu max: PCLMUL etc. (crct10dif-pclmul, needed by nvme/nvmet).
	accel_args=(-accel "tcg,thread=multi" -cpu "${XNET_VM_CPU:-max}")
fi
# icount boots (--icount, header icount=1): QEMU 7.2 refuses -icount with
# multi-threaded TCG (and with KVM). shift=0: 1 ns of guest time per
# instruction; sleep=off: when every vCPU idles, guest time jumps to the
# next timer at once (so no host time at all reaches the guest's clocks).
icount_spec=${XNET_VM_ICOUNT:-shift=0,sleep=off}
icount_args=(-accel "tcg,thread=single" -cpu "${XNET_VM_CPU:-max}" -icount "$icount_spec")
# tcg=single boots: QEMU 7.2's multi-threaded TCG can keep running a stale
# translation of code another vCPU has just rewritten. Seen with ftrace
# patching (text_poke_bp) of a function a busy vCPU was executing: that vCPU
# kept executing the transient INT3, the kernel found no INT3 in memory and
# restarted the instruction, forever (a soft lockup at the function's first
# byte, registers frozen). Tests that patch kernel text under load use it.
tcg_single_args=(-accel "tcg,thread=single" -cpu "${XNET_VM_CPU:-max}")
[ "$accel" = kvm ] && tcg_single_args=("${accel_args[@]}")

# ---------------------------------------------------------------- tests
tests=()
if [ "$opt_mode" = tests ]; then
	[ -d "$testdir" ] || die "no test dir $testdir"
	testdir=$(cd "$testdir" && pwd -P)
	if [ ${#globs[@]} -eq 0 ]; then
		globs=('[0-9]*')
	fi
	shopt -s nullglob
	declare -A picked=()
	for g in "${globs[@]}"; do
		if [ -f "$g" ]; then
			m=("$(cd "$(dirname "$g")" && pwd -P)/$(basename "$g")")
		else
			g=${g%.sh}
			# shellcheck disable=SC2206 # the glob is wanted
			m=("$testdir"/$g.sh)
			[ ${#m[@]} -eq 0 ] || [ -f "${m[0]}" ] || m=()
			# shellcheck disable=SC2206 # a bare prefix: '01' = '01*'
			[ ${#m[@]} -gt 0 ] || m=("$testdir"/$g*.sh)
		fi
		[ ${#m[@]} -gt 0 ] || die "no test matches '$g' in $testdir"
		for t in "${m[@]}"; do
			[ -n "${picked[$t]:-}" ] && continue
			picked[$t]=1
			tests+=("$t")
		done
	done
	shopt -u nullglob
fi

# Boot needs from "# vmtest: k=v ..." header lines.
parse_needs() { # file -> n_cpus n_mem n_append n_qemu n_taint_ok n_timeout n_icount n_baseline
	local line rest k v
	n_cpus=$opt_cpus n_mem=$opt_mem n_append='' n_qemu='' n_timeout=$opt_timeout n_baseline=0
	n_nodebug='' n_stock61='' n_rt='' n_series=''
	n_icount=$opt_icount
	[ "$n_icount" = 1 ] || n_icount=0
	n_taint_ok=$((4096 | 8192))
	while IFS= read -r line; do
		[[ $line =~ ^#[[:space:]]*vmtest:(.*)$ ]] || continue
		rest=${BASH_REMATCH[1]}
		while [[ $rest =~ ^[[:space:]]*([a-z_0-9]+)=(\"([^\"]*)\"|([^[:space:]\"]*))(.*)$ ]]; do
			k=${BASH_REMATCH[1]} v=${BASH_REMATCH[3]}${BASH_REMATCH[4]}
			rest=${BASH_REMATCH[5]}
			case $k in
			cpus | mem | timeout)
				[[ $v =~ ^[1-9][0-9]*$ ]] || die "$1: $k=$v is not a number"
				case $k in
				cpus) n_cpus=$v ;; mem) n_mem=$v ;;
				timeout)
					[ $opt_debug -eq 0 ] || v=$((v * slow))
					[ "$v" -gt "$n_timeout" ] && n_timeout=$v
					;;
				esac
				;;
			append) n_append+="${n_append:+ }$v" ;;
			qemu) n_qemu+="${n_qemu:+ }$v" ;;
			livepatch) [ "$v" = 1 ] && n_taint_ok=$((n_taint_ok | 32768)) ;;
			icount) [ "$v" = 1 ] && n_icount=1 ;;
			baseline) [ "$v" = 1 ] && n_baseline=1 ;;
			nodebug) n_nodebug=$v ;;
			stock61) n_stock61=$v ;;
			rt) n_rt=$v ;;
			series) n_series=$v ;;
			hostnet)
				[[ $v =~ ^mq([1-9][0-9]?)(:txtimer)?$ ]] ||
					die "$1: hostnet=$v (want mqN or mqN:txtimer)"
				n_qemu+="${n_qemu:+ }@hostnet:${BASH_REMATCH[1]}${BASH_REMATCH[2]}"
				;;
			tcg)
				[ "$v" = single ] || die "$1: tcg=$v (only tcg=single)"
				[ "$n_icount" = 1 ] || n_icount=single
				;;
			*) die "$1: unknown vmtest header key '$k'" ;;
			esac
		done
		[[ $rest =~ ^[[:space:]]*$ ]] || die "$1: cannot parse header: $line"
	done <"$1"
}

# ---------------------------------------------------------------- boot
run=$(mktemp -d "${TMPDIR:-/tmp}/xnet-vmtest.XXXXXX")
qpid=
failed_any=0
cleanup() {
	[ -n "$qpid" ] && kill "$qpid" 2>/dev/null
	hostnet_teardown
	if [ $opt_keep -eq 1 ] || [ $failed_any -ne 0 ]; then
		echo "vmtest: logs in $run" >&2
	else
		rm -rf "$run"
	fi
}
trap cleanup EXIT
trap 'failed_any=1; exit 130' INT TERM

# printk.devkmsg=on: the markers written to /dev/kmsg must not be ratelimited.
# cryptomgr.notests: the crypto self-tests cost ~0.6 s of every TCG boot.
# panic=-1 + -no-reboot: a panic ends QEMU at once.
base_append="console=ttyS0 panic=-1 printk.devkmsg=on cryptomgr.notests=1"
base_append+="${debug_append:+ $debug_append}"

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

# boot DIR CPUS MEM APPEND QEMU-EXTRA TIMEOUT [ICOUNT]: run one guest; DIR/res
# holds cfg already. Sets boot_rc (124: timeout), boot_t0 and boot_wall.
boot() {
	local dir=$1 cpus=$2 mem=$3 append=$4 extra=$5 tmo=$6 t0 tailpid=
	local -a xargs aargs=("${accel_args[@]}")
	case ${7:-0} in
	1) aargs=("${icount_args[@]}") ;;
	single) aargs=("${tcg_single_args[@]}") ;;
	esac
	read -ra xargs <<<"$extra"
	local -a nsexec=()
	hostnet_setup "$dir" || true
	echo "$repo/tests/vm/run.sh" >"$dir/res/runner"
	: >"$dir/console.log"
	t0=$EPOCHREALTIME boot_t0=$EPOCHREALTIME
	"${nsexec[@]}" timeout -k 5 "$tmo" "$qemu" -nodefaults -no-user-config -display none -no-reboot \
		-machine q35 "${aargs[@]}" -smp "$cpus" -m "$mem" \
		-kernel "$kimage" -initrd "$initrd" \
		-append "$base_append${append:+ $append}" \
		-chardev "file,id=con,path=$dir/console.log" -serial chardev:con \
		-virtfs local,path=/,mount_tag=xroot,security_model=none,readonly=on,multidevs=remap \
		-virtfs "local,path=$dir/res,mount_tag=xres,security_model=none,multidevs=remap" \
		"${xargs[@]}" </dev/null >"$dir/qemu.out" 2>&1 &
	qpid=$!
	if [ $opt_verbose -eq 1 ]; then
		tail -n +1 -f --pid="$qpid" "$dir/console.log" >&2 &
		tailpid=$!
	fi
	if [ "$opt_mode" = cmd ]; then
		tail -n +1 -f --pid="$qpid" "$dir/res/cmd.out" &
		tailpid="$tailpid $!"
	fi
	boot_rc=0
	wait "$qpid" || boot_rc=$?
	qpid=
	hostnet_teardown
	# shellcheck disable=SC2086
	[ -z "$tailpid" ] || wait $tailpid 2>/dev/null || true
	[ $opt_verbose -eq 0 ] || echo >&2 # the console's last line has no \n
	boot_wall=$(awk -v a="$t0" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.1f", b - a }')
}

# Console/dmesg problems: "NAME<US>line" (US = \x1f), NAME = test running
# (or last ended) when the line was logged, empty before the first test.
US=$'\x1f'
scan_problems() {
	local f files=()
	for f; do [ -f "$f" ] && files+=("$f"); done
	[ ${#files[@]} -gt 0 ] || return 0
	awk -v pat="$problem_re" '
		{ sub(/\r$/, "") }
		/vmtest: begin / { cur = $0; sub(/.*vmtest: begin /, "", cur); sub(/ .*/, "", cur); next }
		/vmtest: end / { next }
		/vmtest: poweroff/ { cur = "@poweroff"; next }
		$0 ~ pat { print cur "\037" $0 }' "${files[@]}" | awk '!seen[$0]++'
}

# Our modules (the project's and the tests'), as a kernel trace names them.
ours_re='\[(nvme_tcp_prio|nvmet_tcp_prio|xps_flow|pp_frag|xnet_[a-z_]+)[] ]'

# poweroff_ours FILE: exit 0 if a function of one of our modules is in a
# trace the kernel logged after the runner began to power the guest off.
poweroff_ours() {
	# (The regex through the environment: awk -v would eat its escapes.)
	OURS_RE=$ours_re awk '
		{ sub(/\r$/, "") }
		/vmtest: poweroff/ { on = 1; next }
		on && /\+0x[0-9a-f]+\/0x[0-9a-f]+/ && $0 ~ ENVIRON["OURS_RE"] { found = 1; exit }
		END { exit !found }' "$1" 2>/dev/null
}

# first_trace NAME FILE...: the first problem logged while test NAME ran
# (or before the first test, NAME empty), with its RIP and call trace:
# at most 24 lines, so that a CI log shows where the kernel was.
first_trace() {
	local name=$1
	shift
	awk -v pat="$problem_re" -v want="$name" '
		{ sub(/\r$/, "") }
		/vmtest: begin / { cur = $0; sub(/.*vmtest: begin /, "", cur); sub(/ .*/, "", cur); next }
		/vmtest: end / { next }
		!on && cur == want && $0 ~ pat { on = 1; n = 0; print; next }
		on && n < 23 && /RIP:|Call Trace:|[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+\/0x/ { print; n++ }
		on && /<\/TASK>|---\[ end trace/ { exit }' "$@" 2>/dev/null | head -n 24
}

# The awk of the tests (and of --shell-cmd): mawk on 6.1 (the debug kernel
# and Debian's), gawk on 6.12 and RT, so that every test runs under both
# (each runs on 6.12 and on one of the 6.1 kernels; a Debian machine has
# either as /usr/bin/awk).
vm_awk=${XNET_VM_AWK:-}
if [ -z "$vm_awk" ]; then
	vm_awk=gawk
	[ $opt_rt -eq 1 ] || [[ $XNET_KVER != 6.1.* ]] || vm_awk=mawk
fi
case $vm_awk in mawk | gawk) ;; *) die "XNET_VM_AWK=$vm_awk: want mawk or gawk" ;; esac
command -v "$vm_awk" >/dev/null || die "$vm_awk not installed (scripts/setup.sh installs it)"

# ---------------------------------------------------------------- shell-cmd
if [ "$opt_mode" = cmd ]; then
	d=$run/boot1
	mkdir -p "$d/res"
	{
		printf 'XNET_SRC=%q\nXNET_KVER=%q\nXNET_VM_LIB=%q\n' \
			"$XNET_SRC" "$XNET_KVER" "$repo/tests/vm/lib.sh"
		printf 'VM_MODE=cmd\nVM_CMD=%q\nVM_AWK=%q\n' "$opt_cmd" "$vm_awk"
		printf 'VM_COLDPLUG=%d\n' $((${#opt_qemu} > 0))
	} >"$d/res/cfg"
	: >"$d/res/cmd.out"
	boot "$d" "$opt_cpus" "$opt_mem" "$opt_append" "$opt_qemu" "$opt_timeout" "$opt_icount"
	rc=$(cat "$d/res/cmd.rc" 2>/dev/null || echo 125)
	if [ "$boot_rc" -eq 124 ]; then
		echo "vmtest: timeout after $opt_timeout s" >&2
		rc=124
	elif [ ! -f "$d/res/cmd.rc" ]; then
		echo "vmtest: guest stopped before the command finished (qemu exit $boot_rc)" >&2
		sed 's/^/vmtest: qemu: /' "$d/qemu.out" >&2
	fi
	probs=$(scan_problems "$d/console.log" "$d/res/dmesg.txt")
	if grep -q "^@poweroff$US" <<<"$probs" && ! poweroff_ours "$d/console.log"; then
		grep "^@poweroff$US" <<<"$probs" | cut -d "$US" -f2- | head -n 5 |
			while IFS= read -r line; do
				echo "vmtest: after power-off, no module of ours in the trace (not counted): $line" >&2
			done
		probs=$(grep -v "^@poweroff$US" <<<"$probs" || true)
	fi
	probs=$(cut -d "$US" -f2- <<<"$probs")
	if [ -n "$probs" ]; then
		head -n 20 <<<"$probs" | while IFS= read -r l; do echo "vmtest: kernel: $l"; done >&2
		[ "$rc" -ne 0 ] || rc=1
	fi
	[ "$rc" -eq 0 ] || failed_any=1
	exit "$rc"
fi

# ---------------------------------------------------------------- tests
[ ${#tests[@]} -gt 0 ] || die "no tests found in $testdir"
declare -A grp_tests=() grp_timeout=() t_taint_ok=() t_baseline=()
grp_order=() left_why=() kept=()
declare -A left_out=()
# What runs where (--suite; Documentation/testing.md): a test runs on
# 6.12 and on the debug kernel; nodebug= moves it from the debug kernel to
# stock 6.1, stock61= adds stock 6.1, rt= adds the PREEMPT_RT kernel.
suite=all
if [ $opt_suite -eq 1 ] && [ $opt_debug -eq 0 ]; then
	if [ $opt_rt -eq 1 ]; then
		suite=rt
	elif [[ $XNET_KVER == 6.1.* ]]; then
		suite=stock61
	fi
fi
for t in "${tests[@]}"; do
	parse_needs "$t"
	why=
	if [ $opt_debug -eq 1 ] && [ -n "$n_nodebug" ]; then
		why="their header says nodebug="
	elif [ $suite = stock61 ] && [ -z "$n_nodebug$n_stock61" ]; then
		why="the debug kernel runs them (6.1's source, with checkers)"
	elif [ $suite = rt ] && [ -z "$n_rt" ]; then
		why="no rt= in their header"
	elif [ $opt_suite -eq 1 ] && [ -n "$n_series" ] &&
		[[ " $n_series " != *" $(echo "$XNET_KVER" | cut -d. -f1-2) "* ]]; then
		why="their header says series=\"$n_series\""
	fi
	if [ -n "$why" ]; then
		[ -n "${left_out[$why]:-}" ] || left_why+=("$why")
		left_out[$why]+=" $(basename "$t" .sh | cut -d- -f1)"
		continue
	fi
	kept+=("$t")
	key="$n_cpus$US$n_mem$US$n_append$US$n_qemu$US$n_icount"
	if [ -z "${grp_tests[$key]+x}" ]; then
		grp_order+=("$key")
		grp_tests[$key]=
		grp_timeout[$key]=$n_timeout
	fi
	grp_tests[$key]+="$t"$'\n'
	[ "$n_timeout" -gt "${grp_timeout[$key]}" ] && grp_timeout[$key]=$n_timeout
	t_taint_ok[$t]=$n_taint_ok
	t_baseline[$t]=$n_baseline
done
# A boot's timeout is its tests' largest, plus 20 s (x the debug kernel's
# slowness) for each test after the first: 16 tests that take 450 s alone
# must not time out when another guest shares the host's two CPUs. An
# explicit --timeout is the boot's timeout as it is.
if [ $opt_timeout_set -eq 0 ]; then
	for key in "${grp_order[@]}"; do
		n=$(printf '%s' "${grp_tests[$key]}" | grep -c .)
		grp_timeout[$key]=$((grp_timeout[$key] + 20 * ${slow:-1} * (n - 1)))
	done
fi

[ ${#kept[@]} -gt 0 ] || die "every test named is left out on this kernel:${left_out[*]}"
# (Not for --debug: the DKMS test is nodebug there.)
if [ $opt_debug -eq 0 ] && printf '%s\n' "${kept[@]}" | grep -q 'dkms[^/]*\.sh$'; then
	if [ -z "$bf_kdir" ] && [ -f "/usr/src/linux-headers-$XNET_KVER/Makefile" ]; then
		bf_kdir=/usr/src/linux-headers-$XNET_KVER
	fi
	[ -n "$bf_kdir" ] || die "no headers for $XNET_KVER (the DKMS test needs them)"
	dkms_prebuild "$bf_kdir"
fi
echo "KTAP version 1"
echo "1..${#kept[@]}"
echo "# vmtest: kernel $kernel ($XNET_KVER), accel $accel, awk $vm_awk, XNET_SRC=$XNET_SRC"
for why in "${left_why[@]}"; do
	echo "# vmtest: left out (Documentation/testing.md, What runs where):${left_out[$why]}: $why"
done
num=0 passed=0 failed=0 skipped=0 baseline=0 nboot=0 early=0
for key in "${grp_order[@]}"; do
	nboot=$((nboot + 1))
	IFS=$US read -r cpus mem append extra icount <<<"$key"
	mapfile -t gt < <(printf '%s' "${grp_tests[$key]}")
	d=$run/boot$nboot
	mkdir -p "$d/res"
	{
		printf 'XNET_SRC=%q\nXNET_KVER=%q\nXNET_VM_LIB=%q\nVM_MODE=tests\n' \
			"$XNET_SRC" "$XNET_KVER" "$repo/tests/vm/lib.sh"
		printf 'XNET_DKMS=%q\n' "${XNET_DKMS:-}"
		printf 'VM_AWK=%q\n' "$vm_awk"
		# Extra QEMU devices: the guest (no udev) loads their drivers.
		printf 'VM_COLDPLUG=%d\n' $((${#extra} > 0))
		printf 'VM_TESTS=('
		printf '%q ' "${gt[@]}"
		printf ')\nVM_TAINT_OK=('
		for t in "${gt[@]}"; do printf '%s ' "${t_taint_ok[$t]}"; done
		printf ')\n'
	} >"$d/res/cfg"
	boot "$d" "$cpus" "$mem" "${append}${opt_append:+ $opt_append}" "$extra" "${grp_timeout[$key]}" "$icount"
	# A kernel that crashed before the test runner started ran none of our
	# code (the tests load the modules). QEMU's multi-threaded TCG can let
	# a vCPU run a stale translation of kernel text the other vCPU patches
	# at boot (a jump label: "Oops: int3"): booted again once, and said so.
	if [ ! -f "$d/res/runner-start" ] && [ "$boot_rc" -ne 124 ] &&
		crash=$(grep -a -m 1 -E 'Oops|BUG:|Kernel panic' "$d/console.log"); then
		echo "# vmtest: boot $((nboot)): the kernel crashed before the test runner started," \
			"booted again: ${crash%$'\r'} (console: $d/console.early-crash.log)"
		early=$((early + 1))
		mv "$d/console.log" "$d/console.early-crash.log"
		boot "$d" "$cpus" "$mem" "${append}${opt_append:+ $opt_append}" "$extra" "${grp_timeout[$key]}" "$icount"
	fi

	# Boot to first test: host wall clock (the guest made 1.begin over 9p).
	first='?'
	if [ -f "$d/res/1.begin" ]; then
		first=$(awk -v a="$boot_t0" -v b="$(stat -c %.3Y "$d/res/1.begin")" \
			'BEGIN { printf "%.1f", b - a }')
	fi
	ic=
	[ "$icount" = 1 ] && ic=" icount"
	[ "$icount" = single ] && ic=" tcg=single"
	echo "# vmtest: boot $nboot (cpus=$cpus mem=$mem append='$append${opt_append:+ $opt_append}'$ic):" \
		"tests: ${#gt[@]}, first test ${first} s after QEMU start, boot total ${boot_wall} s"
	# Problems outside any test: before the first one -> first test.
	probs=$(scan_problems "$d/console.log" "$d/res/dmesg.txt")
	# After the power-off began (every test done): the last test's unless
	# no trace then names a module of ours, e.g. RT's power-off path
	# migrating a per-CPU kthread to an offline CPU: reported apart.
	if grep -q "^@poweroff$US" <<<"$probs"; then
		if poweroff_ours "$d/console.log"; then
			probs=$(awk -F "$US" -v OFS="$US" -v last="$(basename "${gt[${#gt[@]} - 1]}" .sh)" \
				'$1 == "@poweroff" { $1 = last } 1' <<<"$probs")
		else
			grep "^@poweroff$US" <<<"$probs" | cut -d "$US" -f2- | head -n 5 |
				while IFS= read -r line; do
					echo "# vmtest: after power-off, no module of ours in the trace (not counted): $line"
				done
			probs=$(grep -v "^@poweroff$US" <<<"$probs" || true)
		fi
	fi
	stopped=
	for ((i = 1; i <= ${#gt[@]}; i++)); do
		t=${gt[i - 1]}
		name=$(basename "$t" .sh)
		num=$((num + 1))
		why=()
		while IFS=$US read -r who line; do
			[ -n "$line" ] || continue
			if [ "$who" = "$name" ] || { [ -z "$who" ] && [ "$i" -eq 1 ]; }; then
				why+=("console: $line")
			fi
		done <<<"$probs"
		if [ -f "$d/res/$i.done" ]; then
			block=$(sed '$d' "$d/res/$i.ktap")
			result=$(tail -n 1 "$d/res/$i.ktap" |
				sed -E "s/^(not )?ok [0-9]+ /\\1ok $num /")
		else
			result="not ok $num $name"
			block=
			if [ -n "$stopped" ]; then
				why+=("not run: $stopped")
			elif [ -f "$d/res/$i.begin" ]; then
				block=$(sed 's/^/    # /' "$d/res/$i.log" 2>/dev/null)
				if [ "$boot_rc" -eq 124 ]; then
					stopped="guest timed out in $name"
					why+=("timeout after ${grp_timeout[$key]} s (per boot) in $name")
				else
					stopped="guest stopped in $name"
					why+=("guest stopped (qemu exit $boot_rc) while $name was running")
				fi
			else
				stopped="guest failed before the first test (qemu exit $boot_rc)"
				why+=("not run: $stopped")
				[ "$boot_rc" -eq 124 ] && why+=("timeout after ${grp_timeout[$key]} s")
				while IFS= read -r line; do why+=("qemu: $line"); done <"$d/qemu.out"
				tail -n 5 "$d/console.log" >"$d/console.tail"
				while IFS= read -r line; do why+=("console: ${line%$'\r'}"); done <"$d/console.tail"
			fi
		fi
		if [ ${#why[@]} -gt 0 ]; then
			result="not ok $num $name"
			# Where the kernel was: before the list, which a CI
			# summary may cut.
			tw=$name
			[ "$i" -ne 1 ] || [ -n "$(first_trace "$name" "$d/console.log")" ] || tw=
			while IFS= read -r line; do
				[ -z "$line" ] || block+=${block:+$'\n'}"    # vmtest: trace: $line"
			done < <(first_trace "$tw" "$d/console.log")
			for ((j = 0; j < ${#why[@]} && j < 12; j++)); do
				block+=${block:+$'\n'}"    # vmtest: ${why[j]}"
			done
		fi
		# A baseline passes or fails like any test, but is not counted
		# as a passed test of the project: it tests the tools.
		if [ "${t_baseline[$t]}" = 1 ] && [[ $result == ok* ]] && [[ $result != *'# SKIP'* ]]; then
			result+=" # baseline (stock kernel code only: validates the test tools)"
		fi
		[ -z "$block" ] || printf '%s\n' "$block"
		echo "$result"
		case $result in
		ok*'# SKIP'*) skipped=$((skipped + 1)) ;;
		ok*'# baseline'*) baseline=$((baseline + 1)) ;;
		ok*) passed=$((passed + 1)) ;;
		*) failed=$((failed + 1)) ;;
		esac
	done
done
[ $failed -eq 0 ] || failed_any=1
# Counted apart: a boot whose kernel crashed before the runner started
# ran none of our code (booted again once, above).
[ $early -eq 0 ] || echo "vmtest: $early boot(s) crashed before the first test, booted again"
echo "vmtest: $passed passed, $failed failed, $skipped skipped, $baseline baseline"
[ $failed -eq 0 ]
