#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Failing-before proofs: each tests/regress/*.patch brings a fixed defect
# back on the current code, and names the guest test that must catch it:
#
#   regress-vmtest: <scripts/vmtest.sh arguments, the test last>
#   regress-expect: <ERE a "not ok" test's output must match>
#   regress-env: <VAR=value ...>  (optional) for the run with the defect,
#                e.g. XNET_VM_DEBUG_SLOW=1 when the defect wedges the guest
#                and only the test's timeout ends the boot
#
# For each patch: a clone of this checkout (HEAD plus uncommitted changes
# to tracked files) in build/regress/<name>, the patch applied, and that
# test run there: it must fail ("not ok") with an output line matching
# regress-expect. Then the same test on the unpatched code must pass. The
# test's logs stay in build/regress/<name>.{before,after}.log.
#
#   scripts/regress.sh [NAME...]   NAME: a patch's base name (default: all)
#
# Last line: "regress: N passed, N failed" (a proof passes when both runs
# do what they must).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
repo=$(cd "$here/.." && pwd -P)
pass=0 failn=0

patches=()
if [ $# -eq 0 ]; then
	patches=("$repo"/tests/regress/*.patch)
else
	for n in "$@"; do patches+=("$repo/tests/regress/${n%.patch}.patch"); done
fi

header() { sed -n "s/^$1: //p" "$2" | head -n 1; }

for p in "${patches[@]}"; do
	[ -f "$p" ] || { echo "regress: no such patch $p" >&2; exit 2; }
	name=$(basename "$p" .patch)
	args=$(header regress-vmtest "$p")
	want=$(header regress-expect "$p")
	read -r -a env <<<"$(header regress-env "$p")"
	if [ -z "$args" ] || [ -z "$want" ]; then
		echo "regress: $name: no regress-vmtest/regress-expect line" >&2
		exit 2
	fi
	test=${args##* }
	dir=$repo/build/regress/$name
	rm -rf "$dir"
	mkdir -p "$(dirname "$dir")"
	git clone -q --no-hardlinks "$repo" "$dir"
	git -C "$repo" diff HEAD | git -C "$dir" apply --allow-empty
	git -C "$dir" apply "$p"
	ok=1
	echo "=== $name: with the defect: $args"
	# shellcheck disable=SC2086 # the header's words are arguments
	env ${env[@]+"${env[@]}"} "$dir/scripts/vmtest.sh" $args >"$dir.before.log" 2>&1 || true
	if ! grep -qE "^not ok [0-9]+ $test\$" "$dir.before.log"; then
		echo "regress: $name: $test did not fail with the defect ($dir.before.log)"
		ok=0
	elif ! grep -E "$want" "$dir.before.log" | head -n 3 | sed 's/^/  caught: /' | grep .; then
		echo "regress: $name: $test failed, but without /$want/ ($dir.before.log)"
		ok=0
	fi
	echo "=== $name: the current code: $args"
	# shellcheck disable=SC2086
	"$repo/scripts/vmtest.sh" $args >"$dir.after.log" 2>&1 || true
	if ! grep -qE "^ok [0-9]+ $test\$" "$dir.after.log"; then
		echo "regress: $name: $test does not pass on the current code ($dir.after.log)"
		ok=0
	fi
	rm -rf "$dir"
	if [ $ok -eq 1 ]; then
		echo "ok $name"
		pass=$((pass + 1))
	else
		echo "not ok $name"
		failn=$((failn + 1))
	fi
done
echo "regress: $pass passed, $failn failed"
[ $failn -eq 0 ]
