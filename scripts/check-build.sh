#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build-level checks, each reported as a KTAP test case:
#   - the modules build warning-free with W=1;
#   - sparse (make C=2) reports nothing;
#   - checkpatch.pl is clean on the C sources (scripts/style.sh);
#   - shellcheck is clean on the shell scripts;
#   - make install and dkms build produce the four modules;
#   - the C++ object checks: a control object builds, and objects that need
#     a C++ runtime (global constructor, exceptions, RTTI, guarded statics,
#     std::) make the build fail with the checker's error.
# Ends with "build: N passed, N failed".
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
KDIR=${KDIR:-$("$root/scripts/kdir.sh")}
out=$root/build/check-build
rm -rf "$out"
mkdir -p "$out"

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

kmake() { make -C "$KDIR" "$@"; }

# W=1 and sparse, for the modules and for the test NIC.
for m in "$root" "$root/tests/testnic"; do
	name=${m#"$root"}
	name=${name#/}
	name=${name:-modules}
	log=$out/$(echo "$name" | tr / _)
	# Clean first so that every object is compiled and every warning shown.
	kmake M="$m" clean >/dev/null 2>&1
	if kmake M="$m" W=1 modules >"$log.w1.log" 2>&1 &&
		! grep -E 'warning:|error:' "$log.w1.log" >"$log.w1.bad"; then
		result OK "$name build warning-free with W=1"
	else
		cat "$log.w1.bad" >>"$log.w1.log"
		result FAIL "$name build warning-free with W=1" "$log.w1.log"
	fi
	if ! command -v sparse >/dev/null; then
		echo "# sparse not installed" >"$log.sparse.log"
		result FAIL "$name: sparse (make C=2) clean" "$log.sparse.log"
	elif kmake M="$m" C=2 modules >"$log.sparse.log" 2>&1 &&
		! grep -E 'warning:|error:' "$log.sparse.log"; then
		result OK "$name: sparse (make C=2) clean"
	else
		result FAIL "$name: sparse (make C=2) clean" "$log.sparse.log"
	fi
done

if "$root/scripts/style.sh" >"$out/style.log" 2>&1; then
	result OK "checkpatch clean"
else
	result FAIL "checkpatch clean" "$out/style.log"
fi

# Every shell script of the project must pass the shellcheck linter.
if (cd "$root" && git ls-files -co --exclude-standard -z -- '*.sh' .ci/run scripts/vm/init |
	xargs -0 shellcheck -x) >"$out/shellcheck.log" 2>&1; then
	result OK "shellcheck clean"
else
	result FAIL "shellcheck clean" "$out/shellcheck.log"
fi

# make install into a staging root: modules in extra/, depmod finds them.
stage=$out/install
if make -C "$root" --no-print-directory KDIR="$KDIR" install \
	INSTALL_MOD_PATH="$stage" >"$out/install.log" 2>&1 &&
	[ "$(grep -c '^extra/.*\.ko:' "$stage"/lib/modules/*/modules.dep)" -eq 4 ]; then
	result OK "make install: 4 modules in extra/, known to depmod"
else
	result FAIL "make install: 4 modules in extra/, known to depmod" "$out/install.log"
fi

# dkms build from a copy of the tracked sources, in private dkms/source trees.
dk=$out/dkms
kver=$(sed -n 's/^#define UTS_RELEASE "\(.*\)"/\1/p' "$KDIR/include/generated/utsrelease.h")
ver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$root/dkms.conf")
mkdir -p "$dk/src/xnet-$ver" "$dk/tree"
(cd "$root" && git ls-files -co --exclude-standard -z | xargs -0 cp --parents -t "$dk/src/xnet-$ver")
if dkms build -m xnet -v "$ver" -k "$kver" --kernelsourcedir "$KDIR" \
	--dkmstree "$dk/tree" --sourcetree "$dk/src" >"$out/dkms.log" 2>&1 &&
	[ "$(find "$dk/tree" -path "*/$kver/*" -name '*.ko' | wc -l)" -eq 4 ]; then
	result OK "dkms build: 4 modules for $kver"
else
	result FAIL "dkms build: 4 modules for $kver" "$out/dkms.log"
fi

# C++ object guards.
guard() {	# guard case expect(pass|reject)
	local c=$1 expect=$2 dir=$out/cxxguard/$1 flags
	mkdir -p "$dir"
	cp "$root/tests/build/cxxguard/$c.cpp" "$dir/"
	cp "$root/tests/build/cxxguard/glue.c" "$dir/"
	flags=$(sed -n 's|^// CXXFLAGS: ||p' "$dir/$c.cpp")
	cat >"$dir/Kbuild" <<-KB
	XNET_ROOT := $root
	include \$(XNET_ROOT)/scripts/common.mk
	obj-m := guard.o
	guard-y := glue.o $c.o
	CXXFLAGS_$c.o := $flags
	KB
	kmake M="$dir" modules >"$dir/build.log" 2>&1
	local rc=$?
	if [ "$expect" = pass ]; then
		if [ $rc -eq 0 ] && [ -f "$dir/guard.ko" ]; then
			result OK "C++ guard: $c builds"
		else
			result FAIL "C++ guard: $c builds" "$dir/build.log"
		fi
	elif [ $rc -ne 0 ] && grep -q "error: .*$c.o: C++ object" "$dir/build.log" &&
		[ ! -f "$dir/$c.o" ]; then
		result OK "C++ guard: $c rejected ($(grep -o 'C++ object.*' "$dir/build.log" | head -1))"
	else
		result FAIL "C++ guard: $c rejected" "$dir/build.log"
	fi
}
guard good pass
for c in global_ctor exceptions rtti guarded_static std_symbol; do
	guard "$c" reject
done

echo "KTAP version 1"
echo "1..$n"
printf '%s\n' "${cases[@]}"
echo "build: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
