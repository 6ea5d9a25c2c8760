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
bench_run_start "pp$([ $icount = 0 ] || echo -icount)" "$quick" "${run_args[@]}"
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
# The guest's diagnostics share the console with the tables: keep the tables.
tables() { grep -v -E '^(bench: |# \[|# cleanup|vmtest: )' "$1"; }

fail=0
log1=$out/$name.boot1.log log2=$out/$name.boot2.log log3=$out/$name.boot3.log
boot 1 "$log1" "$parts1" $tmo1 "" "${app1[@]}" || { echo "bench-pp: boot 1 failed" >&2; fail=1; }
boot 2 "$log2" "dma" $tmo2 "" "${app2[@]}" || { echo "bench-pp: boot 2 failed" >&2; fail=1; }
boot 3 "$log3" "dma" $tmo2 "BENCH_DMA_PCI=edu " "${app3[@]}" || { echo "bench-pp: boot 3 failed" >&2; fail=1; }

# The boots' DMA parts side by side, from the "bench: dma-data" lines.
side_by_side() {
	python3 - "$log1" "$log2" "$log3" <<'PY'
import json
import sys

boots = []
for path in sys.argv[1:]:
    d = None
    for line in open(path, errors="replace"):
        if line.startswith("bench: dma-data "):
            d = json.loads(line[len("bench: dma-data "):])
    boots.append(d)
if not all(boots):
    sys.exit("bench-pp: a boot printed no DMA data")
plain, forced, iommu = boots
if plain["swiotlb"] or not forced["swiotlb"]:
    sys.exit("bench-pp: boot 1 must run without swiotlb=force, boot 2 with it")
if plain["path"] != "dma-direct" or iommu.get("path") != "iommu" or iommu["swiotlb"]:
    sys.exit("bench-pp: boot 1 must map with dma-direct, boot 3 through the IOMMU "
             f"(paths {plain.get('path')}, {iommu.get('path')})")


def f(v, fmt):
    return fmt % v if v is not None else "n/a"


def cells(r, last):
    if not r:
        return "- | - | - | - | - |"
    lv = r[last]
    return (f"{f(r['tput'], '%.3f')} | {f(r['cpu'], '%.3f')} | {f(r['kern'], '%.3f')} | "
            f"{r['maps_gb']:.0f} | {f(lv, '%.0f')} |")


fr = {(r["writes"], r["mode"]): r for r in forced["rows"]}
ir = {(r["writes"], r["mode"]): r for r in iommu["rows"]}
names = {"copy": "copy", "ppfrag": "pp_frag", "optin": "pp_frag + opt-in", "zerocopy": "zerocopy"}
print("### The DMA path: no swiotlb vs swiotlb=force vs IOMMU, side by side")
print()
print("The three boots' DMA tables in one: throughput and CPU as ratios to copy within each boot (the boots ran at "
      "different times: compare ratios, not rates), counts per GB sent. IOMMU = QEMU's intel-iommu in strict mode, "
      "the test NIC mapping for QEMU's edu PCI device. "
      + ("" if forced["optin"] else "Under swiotlb=force the driver's opt-in is refused (pp_frag keeps no mapping "
         "for a device that needs syncs): '-'."))
print()
print("| writes | mode | no swiotlb: MB/s vs copy | CPU s/GB vs copy | kernel s/GB vs copy | maps/GB | saved/GB "
      "| swiotlb=force: MB/s vs copy | CPU s/GB vs copy | kernel s/GB vs copy | maps/GB | bounced MB/GB "
      "| IOMMU: MB/s vs copy | CPU s/GB vs copy | kernel s/GB vs copy | maps/GB | saved/GB |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
for r in plain["rows"]:
    key = (r["writes"], r["mode"])
    print(f"| {r['writes']} | {names[r['mode']]} | " + cells(r, "saved_gb") + " "
          + cells(fr.get(key), "bounced_gb") + " " + cells(ir.get(key), "saved_gb"))
print()
PY
}

# The tables generated from the raw files (so far: iperf3 throughput), then
# the guest's.
python3 "$root/scripts/bench-tables.py" "$BENCH_RUN" >"$BENCH_RUN/tables.md" ||
	{ echo "bench-pp: scripts/bench-tables.py failed on $BENCH_RUN" >&2; fail=1; }
{
	cat "$BENCH_RUN/tables.md"
	echo
	echo "<!-- The tables below are still the ones the guest printed (not generated from raw files). -->"
	echo
	tables "$log1"
	echo
	tables "$log2"
	echo
	tables "$log3"
	echo
	side_by_side || fail=1
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
