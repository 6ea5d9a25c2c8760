#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# `make bench-pp`: three guest boots (2 vCPUs, Debian 6.1 unless --series
# says otherwise) running tests/bench/pp-guest.sh, pp_frag off vs on side by
# side in each, and their markdown tables saved to build/bench/pp.md:
#   boot 1, no swiotlb: TCP over a veth pair and over the BQL test NIC;
#     copy vs pp_frag vs MSG_ZEROCOPY over the veth and over the test NIC's
#     DMA path (dma-direct: a map is an address computation);
#   boot 2, swiotlb=force: the test NIC's DMA path only, where every map
#     bounces through a swiotlb slot;
#   boot 3, a virtual IOMMU (QEMU -device intel-iommu, intel_iommu=on
#     iommu.strict=1): the DMA path only, the test NIC mapping for QEMU's
#     edu PCI device (dma_pci=; its own platform device is outside any
#     IOMMU, tests/pp/iommu-probe.sh): every map allocates an IOVA and
#     writes the IOMMU's page table, every unmap invalidates the IOTLB;
# then a table of the boots side by side (ratios within each boot only).
# The guests send their raw files back (scripts/bench-run.sh: the run
# directory); scripts/bench-tables.py makes every table of them.
# TCG numbers are only meaningful as ratios measured in one run.
#   --quick   every part with tiny sizes (BENCH_QUICK=1), tables to
#             build/bench/pp-quick.md; a few minutes.
#   --icount  the DMA part only, in every boot, under vmtest.sh --icount
#             (one vCPU: maxcpus=1): guest time is then an instruction
#             count, so MB/s and CPU s/GB count instructions (1 s = 10^9)
#             and do not depend on the host's load; tables to
#             build/bench/pp-icount.md.
# Exit non-zero when a boot failed or a part's table is missing.
# Env: BENCH_SECS (per iperf3 run, default 3), BENCH_POOL (pool pages, 256),
# BENCH_REPS (ABBA blocks, 2), BENCH_ZC_SMALL_MB / BENCH_ZC_LARGE_MB (bytes
# per pp_stream.py run with 4 KiB / 256 KiB writes, 16 / 64); other options
# go to scripts/vmtest.sh (boots 2 and 3 replace an --append).
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
# shellcheck source=scripts/bench-run.sh
. "$root/scripts/bench-run.sh"
out=$root/build/bench
mkdir -p "$out"
quick=0 icount=0
args=()
kern=(--series 6.1)
for a in "$@"; do
	case $a in
	--quick) quick=1 ;;
	--icount) icount=1 ;;
	# the caller picks the kernel (make bench-pp: --kernel of the modules'
	# KVER); else Debian's 6.1, modules built for it by vmtest.sh
	--kernel | --series | --debug | --rt) kern=() args+=("$a") ;;
	*) args+=("$a") ;;
	esac
done
name=pp tmo1=2400 tmo2=1500 qtag=""
env=""
IOMMU_QEMU="-device intel-iommu -device edu,addr=0x10"
IOMMU_APPEND="intel_iommu=on iommu.strict=1"
parts1="iperf zc dma" app1=() app2=(--append swiotlb=force) guest="2 vCPUs TCG"
app3=(--qemu "$IOMMU_QEMU" --append "$IOMMU_APPEND")
if [ $quick = 1 ]; then
	name=pp-quick tmo1=600 tmo2=600 qtag=" --quick"
	env="BENCH_QUICK=1 "
fi
if [ $icount = 1 ]; then
	# QEMU 7.2 did not bring up a second vCPU under -icount (vmtest.sh);
	# maxcpus=1, not --cpus 1: the test NIC's XPS maps name CPU 1.
	name=$name-icount tmo1=2400 tmo2=2400 qtag+=" --icount" guest="1 vCPU TCG -icount"
	parts1=dma app1=(--icount --append maxcpus=1)
	app2=(--icount --append "maxcpus=1 swiotlb=force")
	app3=(--icount --qemu "$IOMMU_QEMU" --append "maxcpus=1 $IOMMU_APPEND")
fi
for v in BENCH_SECS BENCH_POOL BENCH_REPS BENCH_ZC_SMALL_MB BENCH_ZC_LARGE_MB; do
	[ -n "${!v:-}" ] && env+="$v=${!v} "
done
run_args=("${args[@]}")
[ $icount = 0 ] || run_args+=(--icount)
[ ${#kern[@]} -eq 0 ] || run_args+=("${kern[@]}")
# One bench name, pp, with or without --icount: scripts/bench-tables.py
# generates the tables of bench "pp" (a run named pp-icount got none, and
# its meta named a scripts/bench-pp-icount.sh that does not exist); meta's
# command line says --icount.
bench_run_start pp "$quick" "${run_args[@]}"
load() { uptime | sed 's/.*load average: /load average /'; }

# boot N LOG PARTS TIMEOUT GUEST-ENV [vmtest options]: one guest running
# the parts PARTS; everything it prints goes to LOG (and to the terminal).
boot() {
	local n=$1 log=$2 parts=$3 tmo=$4 genv=$5 rc
	shift 5
	echo "bench: boot $n ($parts${*:+, $*}), host $(load)" >&2
	{
		echo "<!-- make bench-pp$qtag, boot $n: parts $parts${*:+, $*}," \
			"$(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) host cores, host $(load) at the start," \
			"guest: $guest -->"
		echo
		bench_vmtest "boot$n" "${kern[@]}" --cpus 2 --timeout "$tmo" "${args[@]}" "$@" \
			--shell-cmd "${env}${genv}BENCH_PARTS='$parts' bash tests/bench/pp-guest.sh"
	} | tee "$log"
	rc=${PIPESTATUS[0]}
	echo "<!-- boot $n ended $(date -u '+%H:%M UTC'), host $(load) -->" >>"$log"
	return "$rc"
}
# A boot's log without the guest's progress lines: its <!-- --> lines (date,
# host load; anything else the guest printed would show here too).
notes() { grep -v -E '^(bench: |# \[|# cleanup|vmtest: )' "$1"; }

fail=0
log1=$out/$name.boot1.log log2=$out/$name.boot2.log log3=$out/$name.boot3.log
boot 1 "$log1" "$parts1" $tmo1 "" "${app1[@]}" || { echo "bench-pp: boot 1 failed" >&2; fail=1; }
boot 2 "$log2" "dma" $tmo2 "" "${app2[@]}" || { echo "bench-pp: boot 2 failed" >&2; fail=1; }
boot 3 "$log3" "dma" $tmo2 "BENCH_DMA_PCI=edu " "${app3[@]}" || { echo "bench-pp: boot 3 failed" >&2; fail=1; }

# Every table, the boots' DMA parts side by side included, is generated from
# the boots' raw files (pp-raw.txt, iperf-*.json); it fails when a part left
# no run that moved data.
python3 "$root/scripts/bench-tables.py" "$BENCH_RUN" >"$BENCH_RUN/tables.md" ||
	{ echo "bench-pp: scripts/bench-tables.py failed on $BENCH_RUN" >&2; fail=1; }
{
	for l in "$log1" "$log2" "$log3"; do notes "$l"; done
	echo
	cat "$BENCH_RUN/tables.md"
} >"$out/$name.md"
# Every part's table must be there: boot 1 has three (one with --icount),
# boots 2 and 3 one each, and the side-by-side table.
want=("### pp_frag: TCP transmit, off vs on" "### pp_frag vs MSG_ZEROCOPY")
[ $icount = 0 ] || want=()
for h in "${want[@]}" \
	"### The DMA path: copy vs pp_frag vs MSG_ZEROCOPY over the test NIC, no swiotlb" \
	"### The DMA path: copy vs pp_frag vs MSG_ZEROCOPY over the test NIC, swiotlb=force" \
	"### The DMA path: copy vs pp_frag vs MSG_ZEROCOPY over the test NIC, IOMMU (intel-iommu, strict)" \
	"### The DMA path: no swiotlb vs swiotlb=force vs IOMMU, side by side"; do
	grep -qF "$h" "$out/$name.md" || { echo "bench-pp: missing table: $h" >&2; fail=1; }
done
echo "bench-pp: saved $out/$name.md" >&2
cp "$out/$name.md" "$BENCH_RUN/$name.md"
bench_run_end "$fail"
