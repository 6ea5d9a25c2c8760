#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# checkpatch.pl (from the kernel source the KUnit tier uses) on every C
# source and C header of the project. C++ files are not kernel C and are
# not checked by checkpatch.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
ksrc=$("$root/scripts/ksrc.sh")
cd "$root"
# BPF programs (*.bpf.c, built with clang -target bpf) are not kernel C:
# they define libbpf's map-declaration macros (__uint, __type, SEC), whose
# shape checkpatch rejects, rather than depend on libbpf's headers.
mapfile -t files < <(git ls-files -co --exclude-standard -- '*.c' '*.h' |
	grep -v -e '\.mod\.c$' -e '\.bpf\.c$' | sort)
[ ${#files[@]} -gt 0 ] || { echo "style: no C files"; exit 1; }

# --no-tree: out-of-tree; FILE_PATH_CHANGES is for patches to the kernel
# tree; CAMELCASE only flags the kernel's own names (struct Qdisc).
"$ksrc/scripts/checkpatch.pl" --no-tree --strict --terse --show-types \
	--ignore FILE_PATH_CHANGES,CAMELCASE -f "${files[@]}"
echo "style: checkpatch clean on ${#files[@]} files"
