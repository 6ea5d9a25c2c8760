#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Build the libFuzzer targets of tests/fuzz/ with Debian's clang (ASan +
# UBSan, every report fatal) and fuzz each one for a bounded time.
#
#   scripts/fuzz.sh [--seconds N] [--keep-corpus] [TARGET...]
#
#   --seconds N     fuzz each target for N seconds (default 60)
#   --keep-corpus   grow a corpus under build/fuzz/corpus/<target>/ across
#                   runs (make fuzz); by default each run starts from a
#                   temporary copy of the seeds (make fuzz-quick, make check)
#   TARGET          tests/fuzz/<TARGET>.cpp; default: every target
#
# The seed corpus in tests/fuzz/corpus/<target>/ is only ever read. A crash,
# a sanitizer report, a failed property check, a leak or a slow unit (10 s)
# fails the target; its input is saved as build/fuzz/crashes/<target>/*
# (replay: build/fuzz/<target> FILE) and the log is build/fuzz/logs/<target>.log.
# A missing clang or libFuzzer runtime fails every target (never a silent
# pass). Ends with "fuzz: N passed, N failed", one count per target.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
src=$root/tests/fuzz
out=$root/build/fuzz
seconds=60
keep=0
targets=()

usage() {
	sed -n '4,20p' "$0" | sed 's/^# \{0,1\}//'
}

while [ $# -gt 0 ]; do
	case "$1" in
	--seconds) seconds=${2:-}; shift 2 || { usage >&2; exit 2; } ;;
	--seconds=*) seconds=${1#--seconds=}; shift ;;
	--keep-corpus) keep=1; shift ;;
	-h|--help) usage; exit 0 ;;
	-*) echo "fuzz: unknown option $1" >&2; usage >&2; exit 2 ;;
	*) targets+=("$1"); shift ;;
	esac
done
case "$seconds" in
''|*[!0-9]*|0) echo "fuzz: --seconds wants a positive number, not '$seconds'" >&2; exit 2 ;;
esac
if [ ${#targets[@]} -eq 0 ]; then
	for f in "$src"/*.cpp; do
		[ -e "$f" ] && targets+=("$(basename "$f" .cpp)")
	done
fi
if [ ${#targets[@]} -eq 0 ]; then
	echo "fuzz: no targets in $src"
	echo "fuzz: 0 passed, 1 failed"
	exit 1
fi
for t in "${targets[@]}"; do
	if [ ! -f "$src/$t.cpp" ]; then
		echo "fuzz: no target $src/$t.cpp"
		echo "fuzz: 0 passed, ${#targets[@]} failed"
		exit 1
	fi
done

CXX=${FUZZ_CXX:-clang++}
CXXFLAGS=(-std=gnu++17 -g -O1 -Wall -Wextra -Werror
	"-fsanitize=fuzzer,address,undefined" -fno-sanitize-recover=all
	-fno-omit-frame-pointer -I"$root/include" -I"$root")
# A target that calls a C ABI (include/xnet/abi.h, a feature's .h) links its
# definitions, the .cpp files the modules compile: "// LINK: <paths from the
# project root>" in the target's second line names them.
link_srcs() {
	local files f

	read -ra files < <(sed -n '2s|^// LINK: ||p' "$1")
	for f in "${files[@]}"; do
		printf '%s\n' "$root/$f"
	done
}

mkdir -p "$out/logs" "$out/crashes"
work=$(mktemp -d "${TMPDIR:-/tmp}/xnet-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

fail_all() {
	echo "fuzz: $*" >&2
	echo "fuzz: 0 passed, ${#targets[@]} failed"
	exit 1
}

# The toolchain, loudly: clang++ that links -fsanitize=fuzzer (the
# libFuzzer and sanitizer runtimes of libclang-rt-*-dev).
command -v "$CXX" >/dev/null 2>&1 ||
	fail_all "$CXX not found: install clang and libclang-rt-dev (scripts/setup.sh does)"
printf '%s\n' '#include <cstdint>' '#include <cstddef>' \
	'extern "C" int LLVMFuzzerTestOneInput(const uint8_t *, size_t) { return 0; }' \
	>"$work/probe.cpp"
if ! "$CXX" "${CXXFLAGS[@]}" -o "$work/probe" "$work/probe.cpp" >"$work/probe.log" 2>&1; then
	cat "$work/probe.log" >&2
	fail_all "$CXX cannot build a libFuzzer binary with ASan+UBSan: install libclang-rt-dev (scripts/setup.sh does)"
fi
echo "fuzz: $("$CXX" --version | head -n 1), ${seconds}s per target"

# Rebuild a target when it, a tests/fuzz header or a core or feature source
# is newer.
stale() {
	local bin=$1 cpp=$2

	[ -x "$bin" ] || return 0
	[ -n "$(find "$cpp" "$src" "$root/include/xnet" "$root/common" \
		"$root/nvprio" "$root/xps_flow" "$root/pp_frag" -maxdepth 1 \
		\( -name '*.cpp' -o -name '*.hpp' -o -name '*.h' \) -newer "$bin" -print -quit)" ]
}

# fuzz_one TARGET: build (if stale) and run one target; its report on
# stdout, exit 0 if it passed.
fuzz_one() {
	local t=$1 bin log crashes corpus opts before start rc secs after runs cov why links

	bin=$out/$t
	log=$out/logs/$t.log
	crashes=$out/crashes/$t
	mkdir -p "$crashes"

	if stale "$bin" "$src/$t.cpp"; then
		echo "  CLANG   $t"
		mapfile -t links < <(link_srcs "$src/$t.cpp")
		if ! "$CXX" "${CXXFLAGS[@]}" -o "$bin.tmp" "$src/$t.cpp" "${links[@]}" >"$log" 2>&1; then
			cat "$log"
			echo "fuzz: $t: FAILED to build"
			rm -f "$bin.tmp"
			return 1
		fi
		mv "$bin.tmp" "$bin"
	fi

	# The working corpus: a copy, so fuzzing never writes into the tree.
	if [ "$keep" -eq 1 ]; then
		corpus=$out/corpus/$t
	else
		corpus=$work/corpus/$t
	fi
	mkdir -p "$corpus"
	if [ -d "$src/corpus/$t" ]; then
		cp -p "$src/corpus/$t"/* "$corpus"/ 2>/dev/null
	fi
	if [ -z "$(ls -A "$corpus")" ]; then
		echo "fuzz: $t: FAILED: no seed corpus in tests/fuzz/corpus/$t/"
		return 1
	fi
	opts=()
	read -r -a opts <<<"$(sed -n 's|^// libFuzzer: ||p' "$src/$t.cpp" | head -n 1)"
	if [ -f "$src/dict/$t.dict" ]; then
		opts+=("-dict=$src/dict/$t.dict")
	fi

	before=$(find "$crashes" -type f | wc -l)
	start=$(date +%s)
	ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
	UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1} \
		"$bin" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
		-print_final_stats=1 -artifact_prefix="$crashes/" "${opts[@]}" \
		"$corpus" >"$log" 2>&1
	rc=$?
	secs=$(($(date +%s) - start))
	after=$(find "$crashes" -type f | wc -l)
	runs=$(sed -n 's/^Done \([0-9][0-9]*\) runs in.*/\1/p' "$log" | tail -n 1)
	cov=$(grep -E '^#[0-9]+.*(DONE|pulse|NEW|REDUCE).* cov: ' "$log" | tail -n 1 |
		sed -E 's/.* cov: ([0-9]+) ft: ([0-9]+) corp: ([0-9]+)\/.*/cov \1, ft \2, corpus \3/')

	why=
	if [ "$rc" -ne 0 ]; then
		why="libFuzzer exited with status $rc"
	elif grep -qE 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error:|property failed' "$log"; then
		why="a report in the log"
	elif [ -z "$runs" ] || [ "$runs" -eq 0 ]; then
		why="no fuzzing runs were done"
	elif [ "$after" -gt "$before" ]; then
		why="new crash inputs"
	fi
	if [ -n "$why" ]; then
		grep -E 'property failed|ERROR: |runtime error:|SUMMARY: |Test unit written to|^artifact_prefix' "$log" |
			head -n 20
		echo "fuzz: $t: FAILED ($why; log $log, inputs in $crashes/)"
		return 1
	else
		echo "fuzz: $t: ok, ${runs} runs in ${secs}s (${cov:-no stats})"
	fi
}

# The targets run side by side, one per CPU: each is one process.
pass=0 fail=0 running=0
for t in "${targets[@]}"; do
	if [ "$running" -ge "${XNET_JOBS:-$(nproc)}" ]; then
		wait -n
		running=$((running - 1))
	fi
	(fuzz_one "$t" >"$work/$t.out" 2>&1; echo $? >"$work/$t.rc") &
	running=$((running + 1))
done
wait
for t in "${targets[@]}"; do
	cat "$work/$t.out"
	if [ "$(cat "$work/$t.rc" 2>/dev/null)" = 0 ]; then
		pass=$((pass + 1))
	else
		fail=$((fail + 1))
	fi
done

echo "fuzz: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
