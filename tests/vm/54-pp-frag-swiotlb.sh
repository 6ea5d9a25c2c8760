#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=600 append="swiotlb=force"
#
# pp_frag's DMA opt-in under bounce buffering (swiotlb=force: every
# streaming mapping of the test NIC's DMA device goes through a swiotlb
# bounce slot, as in SEV/TDX guests or for a device with a small DMA mask).
# pp_frag maps a pool page once and hands its frags out with no sync, so
# the bounce slot would never see the bytes the socket wrote there; the
# test NIC reads every frag at its DMA address at completion and puts what
# it read on the wire (tests/testnic/README.md, DMA).
#   - opting in is refused with EOPNOTSUPP and one log line (a device that
#     needs syncs cannot use premapped pages), dma_optin stays 0;
#   - a checksummed 8 MB stream tn0 -> tn1 over a pool is intact, every
#     frag was mapped by the NIC itself (bounced and copied by the DMA
#     API), none read back different (bad_addr 0), all unmapped.
# Before the fix the opt-in was accepted and the stream arrived corrupted.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_testnic.sh
. "$XNET_SRC/tests/vm/lib_testnic.sh"
# shellcheck source=tests/vm/lib_pp.sh
. "$XNET_SRC/tests/vm/lib_pp.sh"


grep -qw 'swiotlb=force' /proc/cmdline || fail "not booted with swiotlb=force"
tn_setup
trap pp_tn_cleanup EXIT
load_mod pp_frag/pp_frag
wput $POOLF 256 || fail "pool on tn0"
dma
expect_eq "${DM[path]}" dma-direct "the DMA device's mapping path"

dmesg_count "needs DMA syncs"
n0=$DMESG_N
werr "$OPTIN" 1
rd "$OPTIN"
optin=$R
ktap_diag "opt-in under swiotlb=force: '${WERR:-accepted}', dma_optin $optin"

dma
m0=${DM[maps]} s0=${DM[saved]} b0=${DM[bad_addr]}
pp_xfer "" "$NS" 10.99.0.2 9810 8000000
wait_until 10 mapped_idle || fail "maps ${DM[maps]} != unmaps ${DM[unmaps]} when idle"
pp_stats tn0
ktap_diag "stream: maps $((DM[maps] - m0)) saved $((DM[saved] - s0)) bad_addr $((DM[bad_addr] - b0));" \
	"pool served ${PS[served]} dma_refused ${PS[dma_refused]:-none}"
[ "${PS[served]}" -gt 0 ] || fail "the pool served nothing"
expect_eq $((DM[bad_addr] - b0)) 0 "frags the device read different from what was sent"
expect_eq $((DM[saved] - s0)) 0 "frags sent with pp_frag's mapping"
[ $((DM[maps] - m0)) -gt 0 ] || fail "the NIC mapped no frag"
expect_eq "${DM[errors]}" 0 "DMA errors"

[[ $WERR == *"Operation not supported"* ]] || fail "opt-in: '${WERR:-accepted}', want EOPNOTSUPP"
expect_eq "$optin" 0 "dma_optin after a refused opt-in"
dmesg_count "needs DMA syncs"
expect_eq "$DMESG_N" $((n0 + 1)) "log lines for the refused opt-in"
