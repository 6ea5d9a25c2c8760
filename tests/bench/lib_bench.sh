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
