#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build-level checks, each reported as a KTAP test case. For every kernel of
# $XNET_KERNELS (default 6.1 and 6.12, scripts/kernels.sh; KDIR=... checks
# that tree only), in a fresh copy of the sources under
# build/check-build/<release>/src (the checkout's own objects stay):
#   - the modules and the test NIC build warning-free with W=1;
#   - sparse (make C=2) reports nothing;
#   - make install and dkms build produce the four modules;
#   - the C++ object checks: a control object builds, and (on the first
#     kernel only: the check reads the object, not the kernel) objects that
#     need a C++ runtime (global constructor, exceptions, RTTI, guarded
#     statics, std::) make the build fail with the checker's error; so does
#     a kbuild internal that scripts/cxx.mk relies on and the kernel lacks.
# Once: checkpatch.pl on the C sources (scripts/style.sh) and shellcheck on
# the shell scripts are clean; every ratio the docs quote is in the bench
# table row it names (scripts/check-claims.sh), and that check rejects a
# figure with no row id, one not in its row and one moved to another row.
# A bench's run directory (scripts/bench-run.sh) gets the raw files a guest
# prints, under mawk and gawk, and a failed measurement fails its tables.
# Ends with "build: N passed, N failed".
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
out=$root/build/check-build
rm -rf "$out"
mkdir -p "$out"
if [ -n "${KDIR:-}" ]; then
	kdirs=("$KDIR")
else
	kdirs=()
	for s in $("$root/scripts/kernels.sh" list); do
		k=$("$root/scripts/kernels.sh" headers "$s") || exit 1
		kdirs+=("$k")
	done
fi

n=0 pass=0 fail=0
cases=()
result() {	# result OK|FAIL name [diagnostic-file]
	n=$((n + 1))
	if [ "$1" = OK ]; then
		pass=$((pass + 1))
		cases+=("ok $n $2")
	else
		fail=$((fail + 1))
		cases+=("not ok $n $2")
		[ -n "${3:-}" ] && sed 's/^/# /' "$3" | tail -n 40
	fi
}

# Set by check_kernel for the kernel being checked.
KDIR='' kver='' kout='' src=''
kflags=()
# Every CPU: kbuild builds a directory's objects in parallel (make -j).
kmake() { make -j"${XNET_JOBS:-$(nproc)}" -C "$KDIR" "${kflags[@]}" "$@"; }

# W=1 and sparse, for the modules and for the test NIC.
check_w1_sparse() {
	local m name log
	for m in "$src" "$src/tests/testnic" "$src/tests/hookcost"; do
		name=${m#"$src"}
		name=${name#/}
		name=${name:-modules}
		log=$kout/$(echo "$name" | tr / _)
		if kmake M="$m" W=1 modules >"$log.w1.log" 2>&1 &&
			! grep -E 'warning:|error:' "$log.w1.log" >"$log.w1.bad"; then
			result OK "$kver: $name build warning-free with W=1"
		else
			cat "$log.w1.bad" >>"$log.w1.log"
			result FAIL "$kver: $name build warning-free with W=1" "$log.w1.log"
		fi
		if ! command -v sparse >/dev/null; then
			echo "# sparse not installed" >"$log.sparse.log"
			result FAIL "$kver: $name: sparse (make C=2) clean" "$log.sparse.log"
		elif kmake M="$m" C=2 modules >"$log.sparse.log" 2>&1 &&
			! grep -E 'warning:|error:' "$log.sparse.log"; then
			result OK "$kver: $name: sparse (make C=2) clean"
		else
			result FAIL "$kver: $name: sparse (make C=2) clean" "$log.sparse.log"
		fi
	done
}

# make install into a staging root (modules in extra/, depmod finds them),
# then dkms build in private dkms/source trees.
check_install_dkms() {
	local stage=$kout/install dk=$kout/dkms ver
	if make -j"${XNET_JOBS:-$(nproc)}" -C "$src" --no-print-directory KDIR="$KDIR" install \
		INSTALL_MOD_PATH="$stage" >"$kout/install.log" 2>&1 &&
		[ "$(grep -cE '^extra/.*\.ko(\.[a-z]+)?:' "$stage"/lib/modules/*/modules.dep)" -eq 4 ]; then
		result OK "$kver: make install: 4 modules in extra/, known to depmod"
	else
		result FAIL "$kver: make install: 4 modules in extra/, known to depmod" "$kout/install.log"
	fi
	ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$root/dkms.conf")
	# Every module's version is dkms.conf's (scripts/common.mk).
	local ko bad=0
	while IFS= read -r ko; do
		[ "$(modinfo -F version "$ko")" = "$ver" ] || { echo "$ko: version '$(modinfo -F version "$ko")'"; bad=1; }
	done < <(find "$stage" -name '*.ko*') >"$kout/version.log" 2>&1
	if [ $bad -eq 0 ] && [ "$(find "$stage" -name '*.ko*' | wc -l)" -eq 4 ]; then
		result OK "$kver: every module's version is dkms.conf's ($ver)"
	else
		result FAIL "$kver: every module's version is dkms.conf's ($ver)" "$kout/version.log"
	fi
	# The checks of dkms.conf and scripts/common.mk below that are about a
	# made-up kernel (5.10, series 6.99) do not depend on the headers used:
	# on the first kernel only.
	local once=0
	[ "$KDIR" != "${kdirs[0]}" ] || once=1
	# An untested series: make stops and names the override; with it, builds.
	if [ $once -eq 1 ]; then
		if ! make -C "$src" --no-print-directory KDIR="$KDIR" PATCHLEVEL=99 modules \
			>"$kout/unsupported.log" 2>&1 &&
			grep -q 'is not of a supported series (6.1 6.12); to build anyway (untested): make XNET_FORCE_UNSUPPORTED=1' "$kout/unsupported.log" &&
			make -j"${XNET_JOBS:-$(nproc)}" -C "$src" --no-print-directory KDIR="$KDIR" PATCHLEVEL=99 \
				XNET_FORCE_UNSUPPORTED=1 modules >>"$kout/unsupported.log" 2>&1; then
			result OK "$kver: make refuses an untested series unless XNET_FORCE_UNSUPPORTED=1"
		else
			result FAIL "$kver: make refuses an untested series unless XNET_FORCE_UNSUPPORTED=1" "$kout/unsupported.log"
		fi
	fi
	mkdir -p "$dk/src/xnet-$ver" "$dk/tree"
	(cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$dk/src/xnet-$ver")
	# The kernel package's hook runs dkms autoinstall for every new kernel:
	# for one the modules do not support it must succeed (dkms 3.0.10 exits
	# 11 otherwise, dkms.conf), say why in one line, and build nothing.
	dk_autoinstall_unsupported() {	# dk_autoinstall_unsupported <added|built>
		local log=$kout/dkms-autoinstall-$1.log rc
		dkms autoinstall -k 5.10.0-99-amd64 --dkmstree "$dk/tree" \
			--sourcetree "$dk/src" >"$log" 2>&1
		rc=$?
		echo "# exit $rc" >>"$log"
		if [ $rc -eq 0 ] &&
			[ "$(grep -c '^xnet-dkms: not built for kernel 5.10.0-99-amd64: not of the series' "$log")" -eq 1 ] &&
			[ ! -e "$dk/tree/xnet/$ver/5.10.0-99-amd64" ]; then
			result OK "$kver: dkms autoinstall for kernel 5.10 (xnet $1): exit 0, one line, nothing built"
		else
			result FAIL "$kver: dkms autoinstall for kernel 5.10 (xnet $1): exit 0, one line, nothing built" "$log"
		fi
	}
	dkms add -m xnet -v "$ver" --dkmstree "$dk/tree" --sourcetree "$dk/src" >"$kout/dkms-add.log" 2>&1
	[ $once -eq 0 ] || dk_autoinstall_unsupported added
	if dkms build -m xnet -v "$ver" -k "$kver" --kernelsourcedir "$KDIR" \
		--dkmstree "$dk/tree" --sourcetree "$dk/src" >"$kout/dkms.log" 2>&1 &&
		[ "$(find "$dk/tree" -path "*/$kver/*" -name '*.ko*' | wc -l)" -eq 4 ]; then
		result OK "$kver: dkms build: 4 modules"
	else
		result FAIL "$kver: dkms build: 4 modules" "$kout/dkms.log"
	fi
	[ $once -eq 1 ] || return 0
	dk_autoinstall_unsupported built
	# A kernel outside BUILD_EXCLUSIVE_KERNEL: dkms says so and builds nothing.
	dkms build -m xnet -v "$ver" -k 5.10.0-99-amd64 --kernelsourcedir "$KDIR" \
		--dkmstree "$dk/tree" --sourcetree "$dk/src" >"$kout/dkms-exclusive.log" 2>&1
	local rc=$?
	if [ $rc -eq 77 ] && grep -q BUILD_EXCLUSIVE "$kout/dkms-exclusive.log" &&
		[ -z "$(find "$dk/tree" -path '*/5.10.0-99-amd64/*' -name '*.ko*')" ]; then
		result OK "$kver: dkms refuses kernel 5.10 (BUILD_EXCLUSIVE_KERNEL, exit 77)"
	else
		echo "# dkms exit $rc" >>"$kout/dkms-exclusive.log"
		result FAIL "$kver: dkms refuses kernel 5.10 (BUILD_EXCLUSIVE_KERNEL)" "$kout/dkms-exclusive.log"
	fi
}

# C++ object guards.
guard() {	# guard case expect(pass|reject)
	local c=$1 expect=$2 dir=$kout/cxxguard/$1 flags rc
	mkdir -p "$dir"
	cp "$root/tests/build/cxxguard/$c.cpp" "$dir/"
	cp "$root/tests/build/cxxguard/glue.c" "$dir/"
	flags=$(sed -n 's|^// CXXFLAGS: ||p' "$dir/$c.cpp")
	cat >"$dir/Kbuild" <<-KB
	XNET_ROOT := $src
	include \$(XNET_ROOT)/scripts/common.mk
	obj-m := guard.o
	guard-y := glue.o $c.o \$(XNET_CORE_OBJS)
	CXXFLAGS_$c.o := $flags
	KB
	kmake M="$dir" modules >"$dir/build.log" 2>&1
	rc=$?
	if [ "$expect" = pass ]; then
		if [ $rc -eq 0 ] && [ -f "$dir/guard.ko" ]; then
			result OK "$kver: C++ guard: $c builds"
		else
			result FAIL "$kver: C++ guard: $c builds" "$dir/build.log"
		fi
	elif [ $rc -ne 0 ] && grep -q "error: .*$c.o: C++ object" "$dir/build.log" &&
		[ ! -f "$dir/$c.o" ]; then
		result OK "$kver: C++ guard: $c rejected ($(grep -o 'C++ object.*' "$dir/build.log" | head -1))"
	else
		result FAIL "$kver: C++ guard: $c rejected" "$dir/build.log"
	fi
}

# cxx.mk checks, before every C++ compile, that the kbuild internals it uses
# are defined: one it relies on that this kernel lacks (a made-up name added
# to its list) must stop the build with the check's message.
guard_internal() {
	local dir=$kout/cxxguard/internal rc
	mkdir -p "$dir"
	cp "$root/tests/build/cxxguard/good.cpp" "$root/tests/build/cxxguard/glue.c" "$dir/"
	cat >"$dir/Kbuild" <<-KB
	XNET_ROOT := $src
	include \$(XNET_ROOT)/scripts/common.mk
	XNET_KBUILD_INTERNALS += xnet_renamed_internal
	obj-m := guard.o
	guard-y := glue.o good.o \$(XNET_CORE_OBJS)
	KB
	kmake M="$dir" modules >"$dir/build.log" 2>&1
	rc=$?
	if [ $rc -ne 0 ] && [ ! -f "$dir/good.o" ] &&
		grep -q "scripts/cxx.mk: this kernel's kbuild has no 'xnet_renamed_internal'" "$dir/build.log"; then
		result OK "$kver: C++ guard: a kbuild internal cxx.mk relies on, missing, stops the build"
	else
		result FAIL "$kver: C++ guard: a missing kbuild internal stops the build" "$dir/build.log"
	fi
}

check_kernel() {
	local c
	KDIR=$1
	kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$KDIR/include/generated/utsrelease.h")
	kout=$out/$kver
	src=$kout/src
	mkdir -p "$src"
	(cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$src")
	mapfile -t kflags < <(make -s -C "$root" --no-print-directory KDIR="$KDIR" kmake-flags)
	check_w1_sparse
	check_install_dkms
	guard good pass
	# What rejects an object (its sections and undefined symbols, read by
	# scripts/check-cxx-obj.sh) does not depend on the kernel: once.
	if [ "$1" = "${kdirs[0]}" ]; then
		for c in global_ctor exceptions rtti guarded_static std_symbol; do
			guard "$c" reject
		done
	fi
	guard_internal
}

for k in "${kdirs[@]}"; do
	check_kernel "$k"
done

if "$root/scripts/style.sh" >"$out/style.log" 2>&1; then
	result OK "checkpatch clean"
else
	result FAIL "checkpatch clean" "$out/style.log"
fi

# Every shell script of the project must pass the shellcheck linter.
if (cd "$root" && git ls-files -co --exclude-standard -z -- '*.sh' .ci/run scripts/vm/init tools/xnet-prometheus |
	xargs -0 shellcheck -x) >"$out/shellcheck.log" 2>&1; then
	result OK "shellcheck clean"
else
	result FAIL "shellcheck clean" "$out/shellcheck.log"
fi

# Every ratio the docs quote is in a saved bench table; and the check
# itself catches one that is not (a copy of the docs with a made-up figure).
if "$root/scripts/check-claims.sh" >"$out/claims.log" 2>&1; then
	result OK "doc ratios all in their Documentation/bench table rows"
else
	result FAIL "doc ratios all in their Documentation/bench table rows" "$out/claims.log"
fi
# Copies of the docs that check-claims must reject: a made-up figure with
# no row id, one naming a real row it is not in, and a quoted figure moved
# to another row (README.md's first two row ids of different figures
# swapped: each number now names the other's row, where it is not).
cdir=$out/claims-control
mkdir -p "$cdir"
cp -r "$root/README.md" "$root/Documentation" "$cdir/"
rid=$(grep -o '\[row [^]]*\]' "$cdir/README.md" | head -n 1 | sed 's/^\[row //; s/\]$//')
{
	echo "Made up for the control: 9.876x faster."
	echo "Made up for the control, with a real row: 8.765x [row $rid] faster."
} >>"$cdir/Documentation/xps-flow.md"
if ! "$root/scripts/check-claims.sh" "$cdir" >"$cdir/claims.log" 2>&1 &&
	grep -q 'xps-flow.md:[0-9]*: 9.876 has no row id' "$cdir/claims.log" &&
	grep -q "xps-flow.md:[0-9]*: 8.765 is not in row $rid " "$cdir/claims.log"; then
	result OK "check-claims catches a figure without a row id and one not in its row"
else
	result FAIL "check-claims catches a figure without a row id and one not in its row" "$cdir/claims.log"
fi
mdir=$out/claims-moved
mkdir -p "$mdir"
cp -r "$root/README.md" "$root/Documentation" "$mdir/"
moved=$(python3 - "$mdir/README.md" <<'PY'
import re, sys
p = sys.argv[1]
s = open(p, encoding="utf-8").read()
refs = list(re.finditer(r"([0-9]+\.[0-9]+) ?(?:x|×) \[row ([^]]+)\]", s))
a = refs[0]
b = next(r for r in refs if r.group(1) != a.group(1) and r.group(2) != a.group(2))
out = list(s)
for r, rid in ((b, a.group(2)), (a, b.group(2))):   # the later one first
    out[r.start(2):r.end(2)] = rid
open(p, "w", encoding="utf-8").write("".join(out))
print(a.group(1), b.group(2))
PY
)
read -r mnum mrow <<<"$moved"
if [ -n "$mrow" ] && ! "$root/scripts/check-claims.sh" "$mdir" >"$mdir/claims.log" 2>&1 &&
	grep -q "README.md:[0-9]*: $mnum is not in row $mrow " "$mdir/claims.log"; then
	result OK "check-claims catches a quoted figure moved to another row ($mnum to $mrow)"
else
	result FAIL "check-claims catches a quoted figure moved to another row" "$mdir/claims.log"
fi

# Bench run directories without a guest: a stand-in for vmtest.sh prints
# what a bench guest prints (tests/bench/lib_bench.sh's raw blocks, a
# table); bench_vmtest must write the same raw files under mawk and gawk
# and keep the raw lines out of the output; scripts/bench-tables.py must
# make a table with run id, commit and row ids from them, and fail on an
# iperf3 run that failed (never a row of zeros).
brun=$out/bench-run
mkdir -p "$brun/root/scripts" "$brun/mawk" "$brun/gawk"
ln -sf "$(command -v mawk)" "$brun/mawk/awk"
ln -sf "$(command -v gawk)" "$brun/gawk/awk"
cat >"$brun/root/scripts/vmtest.sh" <<STANDIN
#!/bin/bash
fail() { echo "# FAIL: \$*"; exit 1; }
XNET_SRC=$root
. "$root/tests/bench/lib_bench.sh"
for m in off on; do
	for r in 1 2; do
		printf '{"end": {"sum_received": {"bytes": 9000, "bits_per_second": %d000000.0},\n "sum_sent": {"retransmits": %d}}}\n' \
			"\$((r + 1))" "\$r" | bench_raw "iperf-tcp-\$m-\$r.json"
	done
done
printf 'test 320\nreordered %d\n' 160 | bench_raw reorder-off.txt
printf 'test 320\nreordered %d\n' 0 | bench_raw reorder-on.txt
for r in 1 2; do
	for m in off on; do
		v=1000
		[ \$m = off ] || v=1100
		printf 'Result: OK: 99(c9+d9) usec, 5 (64byte,0frags)\n  %dpps 1Mb/sec\n' \$((v + r)) |
			bench_raw "pktgen-pfifo_fast-\$m-\$r.txt"
	done
done
echo "### a table the guest printed"
[ -z "\${XNET_VM_QEMU_CMDLINE:-}" ] || echo "qemu-system-x86_64 -standin" >>"\$XNET_VM_QEMU_CMDLINE"
STANDIN
chmod +x "$brun/root/scripts/vmtest.sh"
cat >"$brun/run.sh" <<'RUN'
# run.sh CHECKOUT ROOT OUT LINK QUICK: a bench run of the stand-in, as a
# bench does (under set -e: a full run once died at its run id there)
set -euo pipefail
. "$1/scripts/bench-run.sh"
root=$2
bench_run_start xps "$5"
bench_vmtest wall --shell-cmd x >"$3"
bench_run_end 0 && ln -sfn "$BENCH_RUN" "$4"
RUN
# mawk's run is a quick one, gawk's a full one.
PATH=$brun/mawk:$PATH bash "$brun/run.sh" "$root" "$brun/root" "$brun/mawk.out" "$brun/mawk.run" 1 >>"$brun/log" 2>&1
PATH=$brun/gawk:$PATH bash "$brun/run.sh" "$root" "$brun/root" "$brun/gawk.out" "$brun/gawk.run" 0 >>"$brun/log" 2>&1
if [ -d "$brun/mawk.run" ] && [ -d "$brun/gawk.run" ] &&
	[[ $(readlink "$brun/mawk.run") == */xps-*-quick ]] &&
	[[ $(readlink "$brun/gawk.run") == */xps-*Z ]] &&
	diff -r "$brun/mawk.run/raw" "$brun/gawk.run/raw" >>"$brun/log" 2>&1 &&
	[ "$(find "$brun/mawk.run/raw/wall" -type f | wc -l)" = 11 ] &&
	grep -qx 'qemu-system-x86_64 -standin' "$brun/mawk.run/boots/wall.qemu" &&
	! grep -q '^@raw' "$brun/mawk.out" && grep -q '^### a table the guest printed' "$brun/mawk.out" &&
	python3 "$root/scripts/bench-tables.py" "$brun/mawk.run" >"$brun/tables.md" 2>>"$brun/log" &&
	grep -q "^Run \`xps-.*-quick\`, commit \`" "$brun/tables.md" &&
	grep -qxF '| xps-fwd-tcp-off | off | 2.5 | 1, 2 |' "$brun/tables.md" &&
	grep -qxF '| xps-reorder-off | off | 320 | 160 | 50.0 |' "$brun/tables.md" &&
	grep -qxF '| xps-pps-pfifo_fast-on-off | pfifo_fast | on/off | 1.100 | 1.100 | per round: 1.100; **median 1.100** |' "$brun/tables.md" &&
	echo '{"start": {}, "end": {}, "error": "unable to connect to server"}' >"$brun/mawk.run/raw/wall/iperf-tcp-on-2.json" &&
	! python3 "$root/scripts/bench-tables.py" "$brun/mawk.run" >/dev/null 2>"$brun/fail.log" &&
	grep -q 'a failed measurement: .*iperf-tcp-on-2.json: iperf3 error: unable to connect' "$brun/fail.log"; then
	result OK "bench run directory: raw files and QEMU command line back under mawk and gawk, quick and full runs, tables with row ids, a failed iperf3 fails"
else
	cat "$brun/tables.md" "$brun/fail.log" >>"$brun/log" 2>/dev/null
	result FAIL "bench run directory: raw files and QEMU command line back under mawk and gawk, quick and full runs, tables with row ids, a failed iperf3 fails" "$brun/log"
fi

# xnet-prometheus on a made-up /sys (a device name with a quote and a
# backslash, every kind of file): the same output under mawk and gawk,
# accepted by promtool's parser and linter, values and escapes as expected.
# The guest test 04-monitoring runs it on the loaded modules.
prom=$out/prometheus
mkdir -p "$prom/sys/module/nvme_tcp_prio" "$prom/sys/module/xps_flow" "$prom/sys/module/pp_frag" \
	"$prom/sys/class/net/e\"th\\0" "$prom/sys/class/net/lo" "$prom/mawk" "$prom/gawk"
for m in nvme_tcp_prio xps_flow pp_frag; do echo 0.1.0 >"$prom/sys/module/$m/version"; done
printf 'tracked 3\ntagged 7\nwalk_max_ns 4163\nwalk_max_socks 10\n' >"$prom/sys/module/nvme_tcp_prio/stats"
printf 'in_use 5\nlookups 100\nmoves 2\n' >"$prom/sys/class/net/e\"th\\0/xps_flow_stats"
printf 'pages 4\nin_flight 1\nserved 9\n' >"$prom/sys/class/net/lo/pp_frag_stats"
ln -sf "$(command -v mawk)" "$prom/mawk/awk"
ln -sf "$(command -v gawk)" "$prom/gawk/awk"
if PATH=$prom/mawk:$PATH "$root/tools/xnet-prometheus" --root "$prom" >"$prom/mawk.txt" 2>"$prom/log" &&
	PATH=$prom/gawk:$PATH "$root/tools/xnet-prometheus" --root "$prom" >"$prom/gawk.txt" 2>>"$prom/log" &&
	diff "$prom/mawk.txt" "$prom/gawk.txt" >>"$prom/log" &&
	promtool check metrics <"$prom/gawk.txt" >>"$prom/log" 2>&1 &&
	grep -qxF 'xnet_xps_flow_lookups_total{device="e\"th\\0"} 100' "$prom/gawk.txt" &&
	grep -qxF 'xnet_nvprio_walk_max_seconds{module="nvme_tcp_prio"} 0.000004163' "$prom/gawk.txt" &&
	grep -qxF 'xnet_pp_frag_pages{device="lo"} 4' "$prom/gawk.txt" &&
	grep -qxF 'xnet_module_info{module="pp_frag",version="0.1.0"} 1' "$prom/gawk.txt"; then
	result OK "xnet-prometheus: mawk and gawk agree, promtool check metrics accepts it"
else
	cat "$prom/gawk.txt" >>"$prom/log"
	result FAIL "xnet-prometheus: mawk and gawk agree, promtool check metrics accepts it" "$prom/log"
fi

# The Debian package (make deb): it builds, holds the DKMS source, the four
# modules' dkms.conf and the example configuration, and lintian finds
# nothing but that it ran as root.
deb=$root/build/deb/xnet-dkms_$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$root/dkms.conf")_all.deb
if "$root/scripts/make-deb.sh" >"$out/deb.log" 2>&1 && [ -f "$deb" ] &&
	dpkg-deb -c "$deb" >"$out/deb.contents" &&
	grep -q ' ./usr/src/xnet-[^/]*/dkms.conf$' "$out/deb.contents" &&
	grep -q ' ./etc/modprobe.d/xnet.conf$' "$out/deb.contents" &&
	grep -q ' ./etc/modules-load.d/xnet.conf$' "$out/deb.contents" &&
	! grep -vE 'running with root privileges|^$' "$root/build/deb/lintian.log" >>"$out/deb.log"; then
	result OK "make deb: the package builds, lintian clean"
else
	result FAIL "make deb: the package builds, lintian clean" "$out/deb.log"
fi

echo "KTAP version 1"
echo "1..$n"
printf '%s\n' "${cases[@]}"
echo "build: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
