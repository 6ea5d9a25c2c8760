# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# Helpers the host scripts share. Set PROG, the name messages start with,
# then source it from the script's directory:
#   PROG=kunit
#   . "$(dirname "${BASH_SOURCE[0]}")/lib.sh"
# (from scripts/vm/: .../../lib.sh).

# die MSG: "PROG: MSG" on stderr, then exit with DIE_STATUS (1 unless the
# script sets another).
die() {
	echo "$PROG: $*" >&2
	exit "${DIE_STATUS:-1}"
}
