#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 mem=4096 timeout=900 qemu="-device intel-iommu -device edu,addr=0x10" append="intel_iommu=on iommu.strict=1"
#
# pp_frag's driver DMA API behind a (virtual) IOMMU in strict mode, where
# every dma_map_page() allocates an IOVA and writes the IOMMU's page table
# and every unmap invalidates the IOTLB at once: the per-map cost the
# opt-in saves. The test NIC maps for QEMU's edu PCI device (no driver:
# dma_pci=) instead of its platform device, which no IOMMU covers
# (tests/pp/iommu-probe.sh). At TX completion the NIC reads every frag
# through the IOMMU's translation of its address at that moment: an
# address not mapped any more, or mapped to other bytes, is a bad_addr.
# 1. The guest has an IOMMU and gave edu a strict DMA domain; dma_pci=
#    refuses a malformed address (EINVAL), a missing device (ENODEV) and a
#    device a driver owns (EBUSY), each with one error and nothing loaded.
# 2. dma_pci=edu: the DMA path is "iommu"; without pp_frag every frag is
#    mapped and unmapped through it, none read wrong.
# 3. A pool and the opt-in: >= 95% of the frags use pp_frag's mapping of
#    the pool pages (an IOVA the NIC did not map), read right.
# 4. The pool disabled and re-enabled, then an opt-out, under traffic with
#    TX completions 300 ms late around each change (frags of the old
#    pool's pages still on the rings when it is released): the strict IOMMU turns a page unmapped while in flight into
#    a bad_addr (tests/regress/pp_frag-iommu-busy-page-unmapped.patch).
# 5. rmmod and a second load on the same device (its reference and masks
#    were given back).
# 6. The same device marked untrusted (dma_untrusted=1): the opt-in is
#    refused with EPERM (issue 28, defect 3).
# 7. The largest pool (65,536 pages), filled with busy pages (2,048 on the
#    debug kernel), opted in, emptied, used, opted out (issue 28, defect 2):
#    the map and unmap walks hold the pool lock (BHs off) for at most 32
#    slots at a time (pp_frag/pool.c PPF_DMA_BATCH; the longest hold's
#    time is reported; tests/regress/pp_frag-dma-walk-one-hold.patch
#    brings back the walk of the whole pool in one hold), and the walk
#    mapped the pages (a stream afterwards uses pp_frag's mappings); so
#    does the debugfs "pages" listing of the full pool (it held the lock
#    for the whole pool before).
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_testnic.sh
. "$XNET_SRC/tests/vm/lib_testnic.sh"
# shellcheck source=tests/vm/lib_pp.sh
. "$XNET_SRC/tests/vm/lib_pp.sh"


# ---- 1. the IOMMU, edu, bad dma_pci values
iommus=(/sys/class/iommu/*)
[ -e "${iommus[0]}" ] || fail "no IOMMU in the guest (intel_iommu=on, -device intel-iommu)"
pci_find 0x1234 0x11e8 || fail "no edu PCI device (-device edu)"
EDU=$R
[ -e /sys/bus/pci/devices/"$EDU"/iommu_group ] || fail "edu $EDU has no IOMMU group"
[ ! -e /sys/bus/pci/devices/"$EDU"/driver ] || fail "edu $EDU has a driver"
grp=$(readlink /sys/bus/pci/devices/"$EDU"/iommu_group)
rd "/sys/kernel/iommu_groups/${grp##*/}/type"
ktap_diag "IOMMU ${iommus[0]##*/}; edu $EDU in group ${grp##*/}, domain type $R"
expect_eq "$R" DMA "edu's domain type (strict: DMA, not DMA-FQ)"
owned=
for d in /sys/bus/pci/devices/*; do
	if [ -e "$d/driver" ]; then owned=${d##*/}; break; fi
done
[ -n "$owned" ] || fail "no PCI device with a driver to try dma_pci= on"
try_bad() { # VALUE ERRNO-TEXT LOG-TEXT
	local out n0
	dmesg_count "dma_pci=$1: $3"
	n0=$DMESG_N
	out=$(/sbin/insmod "$(mod_path $KO)" "dma_pci=$1" 2>&1) && fail "dma_pci=$1 loaded"
	[[ $out == *"$2"* ]] || fail "dma_pci=$1: '$out', want '$2'"
	! mod_loaded $MOD || fail "dma_pci=$1: $MOD loaded"
	dmesg_count "dma_pci=$1: $3"
	expect_eq "$DMESG_N" $((n0 + 1)) "errors logged for dma_pci=$1"
}
try_bad 0000:00:10 "Invalid parameters" "want DDDD:BB:DD.F"
try_bad 0000:00:20.0 "Invalid parameters" "want DDDD:BB:DD.F"
try_bad 0000:00:10.0x "Invalid parameters" "want DDDD:BB:DD.F"
try_bad -1:00:10.0 "Invalid parameters" "want DDDD:BB:DD.F"
try_bad 0000:fe:1f.7 "No such device" "no such PCI device"
try_bad "$owned" "Device or resource busy" "bound to driver"

# ---- 2. the NIC maps for edu, through the IOMMU
TN_PARAMS="dma_pci=$EDU" tn_setup
trap pp_tn_cleanup EXIT # after tn_setup's own
dma
expect_eq "${DM[path]}" iommu "the DMA device's mapping path"
pp_dma_xfer_mapped 9850 4000000 "no pp_frag"

# ---- 3. opt-in: pool pages come with pp_frag's IOVA
load_mod pp_frag/pp_frag
wput $POOLF 256 || fail "pool on tn0"
wput "$OPTIN" 1 || fail "opt-in"
pp_dma_xfer 9851 24000000 1000,65536,4096,300000
pp_dma_xfer 9852 24000000 65536,1448,131072
pp_dma_xfer 9853 32000000 300000,65536,1448,131072,7
frags=$((DMAPS + DSAVED))
ktap_diag "opted in: frags $frags: saved $DSAVED, mapped $DMAPS ($((DSAVED * 1000 / frags))/1000 saved)"
[ "$frags" -ge "$DTCP" ] || fail "frags $frags < TCP data segments $DTCP"
[ $((DSAVED * 100)) -ge $((frags * 95)) ] || fail "saved $DSAVED of $frags frags, want >= 95%"

# ---- 4. pool changes and the opt-out under traffic. Around each change
# TX completions are 300 ms late, longer than the RCU grace period the
# change waits for before it releases the old pool's pages: frags of them
# are still on the rings then. An open stream (pp_stream_open), stopped
# once 4 MB went out after the opt-out, not a fixed 60 MB.
pp_stream_open "" "$NS" 10.99.0.2 9854 65536,4096,300000
nsleep 1
kill -0 $SPID 2>/dev/null || fail "the stream ended too early: make it longer"
for n in 0 256 0 64 256; do
	set_delays tn0 300000
	nsleep 0.1
	wput $POOLF $n || fail "pool $n"
	set_delays tn0 0
	nsleep 0.3
done
kill -0 $SPID 2>/dev/null || fail "the stream ended before the opt-out: make it longer"
wput "$OPTIN" 0 || fail "opt-out under traffic"
pp_stream_close "pool changes and opt-out under traffic" "" tn0
pp_dma_idle tn0
ktap_diag "after the changes: maps ${DM[maps]} saved ${DM[saved]} bad_addr ${DM[bad_addr]}"
wput $POOLF 0 || fail "pool 0"

# ---- 5. unload, load again on the same device
unload_mod $MOD
unload_mod pp_frag
$IP netns del $NS
TN_PARAMS="dma_pci=$EDU" tn_setup
trap pp_tn_cleanup EXIT
dma
expect_eq "${DM[path]}" iommu "the DMA path after a reload"
pp_dma_xfer 9855 2000000
[ "$DMAPS" -gt 0 ] || fail "no map after the reload"
unload_mod $MOD

# ---- 6. an untrusted device (as the PCI core marks one behind an
# external-facing port): iommu-dma isolates its mappings to their own
# bytes, which a whole pool page mapped once would undo. The opt-in is
# refused with EPERM and one warning; nothing is mapped for it. The NIC's
# own maps of an untrusted device would need swiotlb bounce buffers,
# which this guest may not have: no traffic here.
load_mod pp_frag/pp_frag
$IP netns del $NS
TN_PARAMS="dma_pci=$EDU dma_untrusted=1" tn_setup
trap pp_tn_cleanup EXIT
wput $POOLF 64 || fail "pool on tn0"
werr "$OPTIN" 1
[[ $WERR == *"Operation not permitted"* ]] || fail "opt-in for an untrusted device: '$WERR', want EPERM"
rd "$OPTIN"
expect_eq "$R" 0 "dma_optin after the refusal"
dmesg_count "tn0: * is untrusted (an external-facing port)"
expect_eq "$DMESG_N" 1 "warnings about the untrusted device"
pp_global
expect_eq "${PG[orphans_mapped]}" 0 "mapped orphans"
wput $POOLF 0 || fail "pool 0"
unload_mod $MOD
# The mark is the NIC's while loaded: without it, the opt-in works again.
$IP netns del $NS
TN_PARAMS="dma_pci=$EDU" tn_setup
trap pp_tn_cleanup EXIT
wput $POOLF 64 || fail "pool on tn0"
wput "$OPTIN" 1 || fail "opt-in once the untrusted mark was taken back"
wput "$OPTIN" 0 || fail "opt-out"
wput $POOLF 0 || fail "pool 0"
unload_mod $MOD
unload_mod pp_frag
# dma_untrusted= without dma_pci=: refused, one error, nothing loaded.
dmesg_count "dma_untrusted=1 needs dma_pci="
n0=$DMESG_N
out=$(/sbin/insmod "$(mod_path $KO)" dma_untrusted=1 2>&1) && fail "dma_untrusted=1 alone loaded"
[[ $out == *"Invalid parameters"* ]] || fail "dma_untrusted=1 alone: '$out', want EINVAL"
! mod_loaded $MOD || fail "dma_untrusted=1 alone: $MOD loaded"
dmesg_count "dma_untrusted=1 needs dma_pci="
expect_eq "$DMESG_N" $((n0 + 1)) "errors logged for dma_untrusted=1 alone"

# ---- 7. the largest pool, full, opted in and out: how long a whole-pool
# walk (the DMA walks, debugfs "pages") holds the pool lock with BHs off.
# A fresh load: the maxima count from 0.
PPF_MAX=65536 PPF_DMA_BATCH=32
hold_ok() { # WALK: its longest hold examined at most PPF_DMA_BATCH slots
	[ "${PG[$1_hold_max_slots]}" -le $PPF_DMA_BATCH ] ||
		fail "$1 walk: ${PG[$1_hold_max_slots]} slots in one hold of the pool lock (${PG[$1_hold_max_ns]} ns), want <= $PPF_DMA_BATCH"
}
fill=$PPF_MAX
[ "${XNET_VM_CHECKERS:-0}" = 0 ] || fill=2048
load_mod pp_frag/pp_frag
$IP netns del $NS
TN_PARAMS="dma_pci=$EDU" tn_setup
trap 'pp_fill_end; pp_tn_cleanup' EXIT
wput $POOLF $PPF_MAX || fail "pool of $PPF_MAX pages on tn0"
pp_fill tn0 "$NS" 10.99.0.2 9856 $fill 300
[ "$FILLED" -ge $((fill / 2)) ] || fail "$FILLED pages in tn0's pool, want >= $((fill / 2))"
wput "$OPTIN" 1 || fail "opt-in with $FILLED pages"
pp_global
ktap_diag "opt-in, $FILLED pages: longest hold ${PG[dma_map_hold_max_ns]} ns, ${PG[dma_map_hold_max_slots]} slots"
hold_ok dma_map
# The listing of every page (root's debugfs read) walks the pool too.
listed=$(grep -c ' tn0$' /sys/kernel/debug/pp_frag/pages) || fail "debugfs pages lists no tn0 page"
pp_global
ktap_diag "debugfs pages, $listed of tn0's pages listed: longest hold ${PG[pages_list_hold_max_ns]} ns, ${PG[pages_list_hold_max_slots]} slots"
[ "$listed" -ge $((FILLED / 2)) ] || fail "debugfs pages lists $listed tn0 pages, $FILLED filled"
hold_ok pages_list
pp_fill_end
trap pp_tn_cleanup EXIT
pp_dma_xfer 9857 8000000
frags=$((DMAPS + DSAVED))
ktap_diag "after the walk: frags $frags: saved $DSAVED, mapped $DMAPS"
[ $((DSAVED * 100)) -ge $((frags * 95)) ] || fail "saved $DSAVED of $frags frags after the opt-in's walk, want >= 95%"
wput "$OPTIN" 0 || fail "opt-out of the largest pool"
pp_global
ktap_diag "opt-out, $FILLED pages: longest hold ${PG[dma_unmap_hold_max_ns]} ns, ${PG[dma_unmap_hold_max_slots]} slots"
hold_ok dma_unmap
expect_eq "${PG[orphans_mapped]}" 0 "mapped orphans after the opt-out"
pp_dma_idle tn0
wput $POOLF 0 || fail "pool 0"
owned_none() { pp_flush_defer "" 10.99.0.2; pp_global; [ "${PG[pages_owned]}" = 0 ]; }
wait_until 20 owned_none || fail "pages_owned ${PG[pages_owned]} after pool 0"
unload_mod $MOD
unload_mod pp_frag
check_taint "$TAINT_OK_DEFAULT"
