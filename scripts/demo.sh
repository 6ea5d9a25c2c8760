#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make demo`: boot a QEMU guest with a Debian kernel and show every module
# of the project at work (scripts/demo-guest.sh runs in the guest). Options
# are passed to scripts/vmtest.sh: --series 6.12 (the Makefile runs one demo
# per series of XNET_KERNELS), --kernel PATH, -v.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
exec "$root/scripts/vmtest.sh" --cpus 2 "$@" --shell-cmd "bash scripts/demo-guest.sh"
