#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# KUnit tier: run the suites in kunit/ in a UML kernel built by kunit.py.
#
#   scripts/kunit.sh [--series S] [--arch ARCH] [--kernel-arg A]...
#                    [--timeout SECONDS] [GLOB]
#                               build (incrementally) and run; S is the
#                               kernel source series, 6.1 (default) or
#                               6.12; GLOB is kunit.py's filter, e.g.
#                               'nvme_tcp_prio_rules*' or 'xnet_core_rt.*atomic*';
#                               ARCH is um (default) or x86_64 (QEMU TCG,
#                               2 CPUs); A goes on the kernel command line;
#                               SECONDS bounds the run (kunit.py: 300)
#   scripts/kunit.sh [--series S] --unhook
#                               remove the project from the kernel tree
#
# The kernel tree is Debian's linux-source-S, extracted once into
# ${XDG_CACHE_HOME:-~/.cache}/xnet-kmods/src/linux-source-S (scripts/ksrc.sh
# --series S). The project is hooked into it with a symlink
# drivers/misc/xnet -> this checkout (re-pointed on every run, so the tier
# tests the checkout it is run from), one `source` line in
# drivers/misc/Kconfig and one `obj-` line in drivers/misc/Makefile. The
# tree itself stays clean: kunit.py builds into <cache>/kunit-build (6.1)
# or <cache>/kunit-build-S (any other series).
#
# --arch x86_64 builds an x86_64 kernel (<cache>/kunit-build-x86_64[-S], with
# kunit/x86_64.kunitconfig added: SMP, hence XPS) and boots it under QEMU
# with 2 CPUs (TCG: kunit.py never uses KVM). The cases that need a real
# CPU change (XPS maps, a sender bound to one CPU then another) are only
# compiled where CONFIG_XPS is on, so the two runs have different case
# lists; both must pass. Results then go to build/kunit-x86_64[-S]/.
#
# Results: build/kunit/ (6.1) or build/kunit-S/ in this checkout (kunit.out:
# kunit.py's output, test.log: the raw kernel log with the KTAP,
# results.json: kunit.py's JSON). The last line is "kunit: N passed, N
# failed", counting test cases (each parameter of a parameterised case
# counts as one); a skipped or crashed case counts as failed. Exit status: 0
# only if the build succeeded, at least one case ran and every case passed.
#
# One run at a time per series (a lock per series: the kernel tree and the
# build dirs of a series are shared by every checkout on this machine); runs
# of different series do not share a file.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/xnet-kmods

HOOK_LINK=drivers/misc/xnet
KCONFIG_FILE=drivers/misc/Kconfig
KCONFIG_LINE='source "drivers/misc/xnet/kunit/Kconfig"'
MAKEFILE_FILE=drivers/misc/Makefile
# shellcheck disable=SC2016 # a make variable, not a shell one
MAKEFILE_LINE='obj-$(CONFIG_XNET_KUNIT) += xnet/kunit/'

PROG=kunit
# shellcheck source=scripts/lib.sh
. "$ROOT/scripts/lib.sh"

usage() {
	sed -n '4,16s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
}

# Append @line to @file unless it is already there (as a whole line).
add_line() {
	local file=$1 line=$2

	grep -qxF -- "$line" "$file" && return 0
	# Keep the file's last line terminated before appending.
	if [ -s "$file" ] && [ -n "$(tail -c 1 "$file")" ]; then
		echo >>"$file"
	fi
	printf '%s\n' "$line" >>"$file"
}

# Remove every occurrence of @line from @file (no-op if absent).
remove_line() {
	local file=$1 line=$2 tmp

	[ -f "$file" ] || return 0
	grep -qxF -- "$line" "$file" || return 0
	tmp=$(mktemp "$file.XXXXXX")
	grep -vxF -- "$line" "$file" >"$tmp" || true
	chmod --reference="$file" "$tmp"
	mv -f "$tmp" "$file"
}


hook() {
	# -n: replace the link itself, never write into the old target.
	[ "$(readlink "$KSRC/$HOOK_LINK" 2>/dev/null)" = "$ROOT" ] ||
		ln -sfn "$ROOT" "$KSRC/$HOOK_LINK"
	add_line "$KSRC/$KCONFIG_FILE" "$KCONFIG_LINE"
	add_line "$KSRC/$MAKEFILE_FILE" "$MAKEFILE_LINE"
}

# The build dir is shared by every checkout; make compares mtimes only, so
# objects built from another checkout could look newer than this one's
# sources. Rebuild the project's objects when the checkout changes.
claim_build_dir() {
	local stamp=$BUILD_DIR/.xnet-root

	if [ -d "$BUILD_DIR" ] && [ "$(cat "$stamp" 2>/dev/null)" != "$ROOT" ]; then
		rm -rf "$BUILD_DIR/drivers/misc/xnet"
	fi
	mkdir -p "$BUILD_DIR"
	echo "$ROOT" >"$stamp"
}

unhook() {
	[ -d "$KSRC" ] || return 0
	remove_line "$KSRC/$KCONFIG_FILE" "$KCONFIG_LINE"
	remove_line "$KSRC/$MAKEFILE_FILE" "$MAKEFILE_LINE"
	if [ -L "$KSRC/$HOOK_LINK" ]; then
		rm -f "$KSRC/$HOOK_LINK"
	elif [ -e "$KSRC/$HOOK_LINK" ]; then
		die "$KSRC/$HOOK_LINK is not a symlink: not removing it"
	fi
}

# Count leaf test cases in kunit.py's JSON: "<passed> <failed> <skipped>".
count_cases() {
	python3 - "$1" <<'EOF'
import json, sys

def walk(group, acc):
	for case in group.get("test_cases", []):
		acc[case.get("status", "FAIL")] = acc.get(case.get("status", "FAIL"), 0) + 1
	for sub in group.get("sub_groups", []):
		walk(sub, acc)
	return acc

try:
	with open(sys.argv[1]) as f:
		acc = walk(json.load(f), {})
except (OSError, ValueError):
	acc = {}
passed = acc.pop("PASS", 0)
skipped = acc.pop("SKIP", 0)
print(passed, sum(acc.values()) + skipped, skipped)
EOF
}

glob=
kargs=()
arch=um
series=6.1
action=run
while [ $# -gt 0 ]; do
	case $1 in
	--arch)
		[ $# -ge 2 ] || die "--arch needs um or x86_64"
		arch=$2
		shift 2
		;;
	--arch=*)
		arch=${1#--arch=}
		shift
		;;
	--series)
		[ $# -ge 2 ] || die "--series needs a series, e.g. 6.12"
		series=$2
		shift 2
		;;
	--series=*)
		series=${1#--series=}
		shift
		;;
	--kernel-arg)
		[ $# -ge 2 ] || die "--kernel-arg needs an argument, e.g. x.y=1"
		kargs+=("--kernel_args=$2")
		shift 2
		;;
	--timeout)
		[[ ${2:-} =~ ^[1-9][0-9]*$ ]] || die "--timeout needs seconds"
		kargs+=("--timeout=$2")
		shift 2
		;;
	-h | --help)
		usage
		exit 0
		;;
	--unhook)
		action=unhook
		shift
		;;
	-*)
		usage >&2
		exit 2
		;;
	*)
		[ -z "$glob" ] || die "at most one GLOB"
		glob=$1
		shift
		;;
	esac
done
[[ $series =~ ^[0-9]+\.[0-9]+$ ]] || die "not a series: '$series' (e.g. 6.1, 6.12)"
# 6.1 keeps the names it had before there were series (warm caches).
sfx=
lock=$CACHE/kunit.lock
if [ "$series" != 6.1 ]; then
	sfx=-$series
	lock=$CACHE/kunit-$series.lock
fi
case "$arch" in
um)
	BUILD_DIR=$CACHE/kunit-build$sfx
	OUT=$ROOT/build/kunit$sfx
	;;
x86_64)
	BUILD_DIR=$CACHE/kunit-build-x86_64$sfx
	OUT=$ROOT/build/kunit-x86_64$sfx
	;;
*)
	die "unknown --arch '$arch' (um or x86_64)"
	;;
esac

mkdir -p "$CACHE"
# One run at a time per series: the kernel tree and the build dirs are
# shared by every checkout on this machine.
exec 9>"$lock"
flock 9

if [ "$action" = unhook ]; then
	[ -z "$glob" ] || die "--unhook takes no GLOB"
	KSRC=$CACHE/src/linux-source-$series
	unhook
	echo "kunit: unhooked $KSRC"
	exit 0
fi

command -v python3 >/dev/null || die "python3 missing: run scripts/setup.sh"

start=$(date +%s)
KSRC=$("$ROOT/scripts/ksrc.sh" --series "$series") || die "no kernel source"
hook
claim_build_dir

mkdir -p "$OUT"
rm -f "$OUT/kunit.out" "$OUT/test.log" "$OUT/results.json" "$BUILD_DIR/test.log"

args=(run
	--kunitconfig="$ROOT/kunit/.kunitconfig"
	--build_dir="$BUILD_DIR"
	--jobs="$(nproc)"
	--json="$OUT/results.json")
if [ "$arch" = x86_64 ]; then
	# TCG (no KVM here): boot and the suites take ~1 min, far more when
	# the machine is busy.
	args+=(--arch=x86_64
		--kunitconfig="$ROOT/kunit/x86_64.kunitconfig"
		--qemu_args="-smp 2 -cpu max -accel tcg,thread=multi"
		--timeout=900)
fi
[ "$arch" = um ] && args+=(--kunitconfig="$ROOT/kunit/um.kunitconfig")
args+=("${kargs[@]}")
[ -n "$glob" ] && args+=("$glob")

# kunit.py must not write __pycache__ into the tree; it calls `stty sane`
# after the kernel exits, which only complains when there is no terminal.
set +e
(
	cd "$KSRC" &&
	PYTHONDONTWRITEBYTECODE=1 python3 tools/testing/kunit/kunit.py "${args[@]}"
) 2>&1 | grep --line-buffered -v "^stty: 'standard input': Inappropriate ioctl" |
	tee "$OUT/kunit.out"
rc=${PIPESTATUS[0]}
set -e

[ -f "$BUILD_DIR/test.log" ] && cp "$BUILD_DIR/test.log" "$OUT/test.log"

read -r passed failed skipped < <(count_cases "$OUT/results.json")
elapsed=$(( $(date +%s) - start ))

status=0
# The checkers of kunit/.kunitconfig: KASAN fails the case it hit; any
# other checker's report in the log fails the run. Each config value must
# really be in the kernel that ran (a dropped dependency would silence it).
for c in KASAN PROVE_LOCKING PROVE_RCU DEBUG_OBJECTS UBSAN; do
	grep -qx "CONFIG_$c=y" "$BUILD_DIR/.config" 2>/dev/null || {
		echo "kunit: CONFIG_$c is not in the kernel that ran"
		status=1
	}
done
# UBSAN must instrument the suites themselves (kunit/Kbuild: 6.1's UML
# instruments no object by default): the C++ core's object, and a C one.
for o in xnet_core_test_glue.o xps_flow_steer_test.o; do
	kobj=$(find "$BUILD_DIR/drivers/misc" -name "$o" 2>/dev/null | head -n 1)
	if [ -z "$kobj" ] || ! nm "$kobj" | grep ' U __ubsan_handle_' >/dev/null; then
		echo "kunit: $o is not UBSAN-instrumented (${kobj:-not built})"
		status=1
	fi
done
checker_re='BUG:|WARNING:|KASAN|UBSAN|ODEBUG|possible circular locking'
checker_re+='|possible recursive locking|inconsistent lock state|suspicious RCU usage'
if [ -f "$OUT/test.log" ] && grep -E "$checker_re" "$OUT/test.log" >"$OUT/checkers.txt"; then
	echo "kunit: checker reports in the kernel log ($OUT/checkers.txt):"
	head -n 10 "$OUT/checkers.txt" | sed 's/^/kunit:   /'
	status=1
fi
if [ "$rc" -ne 0 ]; then
	echo "kunit: kunit.py exited with $rc (build or test failure): see $OUT/kunit.out"
	status=1
fi
# kunit.py counts a case whose result line never came (the kernel crashed,
# hung or ran past --timeout) as an error, not a failure, exits 0 and leaves
# it out of results.json: the run fails here instead.
if grep -E '\[(CRASHED|ERROR)\]|timed out after [0-9]+ seconds' "$OUT/kunit.out" >"$OUT/errors.txt"; then
	echo "kunit: kunit.py reports cases that never finished ($OUT/errors.txt):"
	head -n 5 "$OUT/errors.txt" | sed 's/^/kunit:   /'
	status=1
fi
# Every suite the sources define (struct kunit_suite ... .name = "...") and
# the filter selects must have run: a suite whose kunit_test_suite() line
# is lost builds with a warning only, and its cases would just be missing.
# shellcheck disable=SC2016 # awk program
mapfile -t defined < <(cd "$ROOT" && git ls-files -co --exclude-standard -- '*_test.c' 'kunit/*.c' |
	xargs awk '/struct kunit_suite [a-z0-9_]+ = \{/ { s = 1 }
		s && /\.name = "/ { match($0, /"[^"]*"/); print substr($0, RSTART + 1, RLENGTH - 2); s = 0 }')
ran=$(python3 -c '
import json, sys
try:
	d = json.load(open(sys.argv[1]))
except (OSError, ValueError):
	d = {}
print(" ".join(g.get("name", "") for g in d.get("sub_groups", [])))' "$OUT/results.json")
for suite in "${defined[@]}"; do
	# shellcheck disable=SC2053 # $glob is kunit.py's suite[.case] glob
	[ -z "$glob" ] || [[ $suite == ${glob%%.*} ]] || continue
	if [[ " $ran " != *" $suite "* ]]; then
		echo "kunit: suite $suite is defined in the sources but did not run"
		status=1
	fi
done
[ ${#defined[@]} -gt 0 ] || { echo "kunit: no suite found in the sources"; status=1; }
if [ "$skipped" -ne 0 ]; then
	echo "kunit: $skipped case(s) skipped (counted as failed)"
	status=1
fi
if [ $((passed + failed)) -eq 0 ]; then
	echo "kunit: no test case ran${glob:+ (filter: $glob)}"
	status=1
fi
[ "$failed" -ne 0 ] && status=1
echo "kunit: results in $OUT (${elapsed}s)"
echo "kunit: $passed passed, $failed failed"
exit $status
