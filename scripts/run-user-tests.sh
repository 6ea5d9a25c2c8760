#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Run the userspace GoogleTest binary and end with "user: N passed, N failed".
set -uo pipefail
bin=$1
out=$(dirname "$bin")/results.xml

"$bin" --gtest_output=xml:"$out" --gtest_color=no
rc=$?
tests=$(grep -m1 -o 'tests="[0-9]*"' "$out" 2>/dev/null | grep -o '[0-9]*')
failures=$(grep -m1 -o 'failures="[0-9]*"' "$out" 2>/dev/null | grep -o '[0-9]*')
if [ -z "$tests" ]; then
	echo "user: 0 passed, 1 failed"
	exit 1
fi
if [ "$rc" -ne 0 ] && [ "${failures:-0}" -eq 0 ]; then
	failures=1	# crashed or a sanitizer aborted the run
fi
echo "user: $((tests - failures)) passed, $failures failed"
[ "$rc" -eq 0 ] && [ "$tests" -gt 0 ]
