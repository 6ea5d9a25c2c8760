#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=300 qemu="-device intel-iommu" append="intel_iommu=on iommu.strict=1"
#
# Does a QEMU virtual IOMMU reach the test NIC's DMA path? (issue 13: "a
# virtual IOMMU in QEMU: -device intel-iommu with iommu.strict=1"). Run by
# hand, not part of the tests/vm tier:
#   scripts/vmtest.sh tests/pp/iommu-probe.sh
# Reports (KTAP diagnostics) the IOMMU groups the guest made, whether the
# PCI devices QEMU gives the guest got one, whether the test NIC's DMA
# device (the platform device xnet_testnic_dma) got one, and the mapping
# path the test NIC reports for it. Intel VT-d translates DMA by PCI
# requester ID (and ACPI devices named in the DMAR table): a platform
# device registered by a module has neither, so the IOMMU cannot cover it
# and its dma_map_page() stays dma-direct. Fails only if the guest has no
# IOMMU at all (then the probe proved nothing).
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_testnic.sh
. "$XNET_SRC/tests/vm/lib_testnic.sh"

ktap_diag "cmdline: $(</proc/cmdline)"
groups=(/sys/kernel/iommu_groups/*)
[ -e "${groups[0]}" ] || fail "no IOMMU group: the guest has no (enabled) IOMMU"
ktap_diag "IOMMU groups: ${#groups[@]}"
for g in "${groups[@]}"; do
	for d in "$g"/devices/*; do
		ktap_diag "group ${g##*/}: ${d##*/}"
	done
done
for f in /sys/class/iommu/*; do
	[ -e "$f" ] && ktap_diag "iommu: ${f##*/}"
done
rd /sys/kernel/iommu_groups/0/type 2>/dev/null && ktap_diag "group 0 domain type: $R"
tn_setup
pdev=/sys/devices/platform/xnet_testnic_dma
[ -d $pdev ] || fail "no $pdev"
if [ -e $pdev/iommu_group ]; then
	ktap_diag "xnet_testnic_dma: iommu_group $(readlink $pdev/iommu_group)"
else
	ktap_diag "xnet_testnic_dma: no iommu_group"
fi
dma
ktap_diag "test NIC DMA path: ${DM[path]}"
