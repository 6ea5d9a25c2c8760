#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: cpus=2 timeout=600
# vmtest: rt="the driver-facing DMA API, called from the NIC's transmit path"
#
# pp_frag's driver DMA API on the BQL test NIC (tests/testnic README, "DMA"):
# the test NIC maps every TX frag for its DMA device (a platform device,
# dma-direct) unless it opted in and pp_frag has a mapping of the frag's
# pool page. Counters: debugfs xnet_testnic/tn0/dma (maps, saved, unmaps,
# errors, bad_addr: a frag whose DMA address is not the physical address of
# its bytes).
# 1. No hard dependency: the test NIC loads and transmits without pp_frag;
#    opting in then fails with ENOENT and one warning; bad knob writes fail.
# 2. Pool on tn0, no opt-in: every frag mapped (maps >= TCP data segments on
#    the wire: each carries at least one frag), saved 0.
# 3. Opt-in: after two warm-up transfers, over a third one at least 95% of
#    all TX frags used pp_frag's mapping (saved / (saved + maps)): those are
#    the frags of pool pages (pp_frag maps every page of an opted-in pool);
#    maps counts the rest (pages the kernel allocated: pool fallbacks). The
#    skb head is not a frag and is not counted. Data intact; no bad address.
# 4. rmmod pp_frag while opted in is refused (module in use).
# 5. The pool disabled and re-enabled while opted in under traffic: intact;
#    pp_frag's orphans (busy pages keeping their mapping) go back to 0.
# 6. Opt-out while a stream runs (TX quiesced around it): intact, the NIC
#    maps every frag again; then rmmod pp_frag works and the NIC still
#    transmits. Deleting an opted-in device and rmmod of the test NIC opt
#    out: pp_frag unloads afterwards. After each phase maps == unmaps.
# 7. pp_frag loaded before the NIC, a pool page busy when the opted-in
#    device is deleted and the NIC unloaded: no orphan keeps the mapping.
# 8. Two opted-in devices of one DMA device: deleting one leaves the
#    other's orphan mapped (issue 28, defect 1), its stream intact.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"
# shellcheck source=tests/vm/lib_testnic.sh
. "$XNET_SRC/tests/vm/lib_testnic.sh"
# shellcheck source=tests/vm/lib_pp.sh
. "$XNET_SRC/tests/vm/lib_pp.sh"

cleanup() {
	$IP link del tnx 2>/dev/null || true
	pp_tn_cleanup
}

orphans_gone() { pp_flush_defer "" 10.99.0.2; pp_global; [ "${PG[orphans]}" -eq 0 ]; }
refcnt() { read -r R </sys/module/pp_frag/refcnt; }
# holder PORT RELEASE OUT: a task that sends 300 kB to 10.99.0.2:PORT, waits
# until every byte is acknowledged (no skb holds its page_frag's page any
# more: only the task's task_frag does, until the process exits), prints
# "sent" to OUT, and closes once the file RELEASE exists. Its pid: HPID.
holder() {
	: >"$3" # here, not in the background job: see wait_for_line
	$PY - "$2" "$1" >>"$3" 2>&1 <<'PYEOF' &
import fcntl, os, socket, struct, sys, termios, time
s = socket.create_connection(("10.99.0.2", int(sys.argv[2])))
s.sendall(b"x" * 3000 * 100)
for _ in range(600):
    if struct.unpack("i", fcntl.ioctl(s, termios.TIOCOUTQ, b"\0" * 4))[0] == 0:
        break
    time.sleep(0.05)
else:
    sys.exit("data not acknowledged in 30 s")
print("sent", flush=True)
while not os.path.exists(sys.argv[1]):
    time.sleep(0.05)
s.close()
PYEOF
	HPID=$!
	wait_for_line "$3" sent || fail "holder: $(<"$3")"
}
# opted_in_held PORT TAG: tn0 with a 64-page pool, opted in; a receiver on
# 10.99.0.2:PORT (pid RPID, output recvTAG) and a holder task keeping one
# of the pool's pages (pid HPID, output holdTAG, released by releaseTAG).
opted_in_held() {
	wput $POOLF 64 || fail "pool on tn0"
	wput "$OPTIN" 1 || fail "opt-in tn0"
	: >"$XNET_TMP/recv$2" # here, not in the background job: see wait_for_line
	pp_in $NS $PY "$PPS" recv "$1" --bind 10.99.0.2 >>"$XNET_TMP/recv$2" 2>&1 &
	RPID=$!
	wait_for_line "$XNET_TMP/recv$2" listening || fail "receiver $1: $(<"$XNET_TMP/recv$2")"
	holder "$1" "$XNET_TMP/release$2" "$XNET_TMP/hold$2"
}

# ---- 1. without pp_frag
deps=$(/sbin/modinfo -F depends "$(mod_path $KO)")
expect_eq "$deps" "" "xnet_testnic's module dependencies"
tn_setup
trap cleanup EXIT # after tn_setup's own
! mod_loaded pp_frag || fail "pp_frag loaded before the test"
{ [ -f $D/tn0/dma ] && [ -f "$OPTIN" ]; } || fail "no dma / dma_optin in $D/tn0"
dma
expect_eq "${DM[path]}" dma-direct "the DMA device's mapping path"
expect_eq "${DM[optin]}" 0 "optin at load"
dmesg_count "tn0: dma_optin: pp_frag is not loaded"
n0=$DMESG_N
werr "$OPTIN" 1
[[ $WERR == *"No such file or directory"* ]] || fail "opt-in without pp_frag: '$WERR', want ENOENT"
dmesg_count "tn0: dma_optin: pp_frag is not loaded"
expect_eq "$DMESG_N" $((n0 + 1)) "warnings for an opt-in without pp_frag"
for bad in 2 -1 x ''; do
	werr "$OPTIN" "$bad"
	[[ $WERR == *"Invalid argument"* ]] || fail "dma_optin='$bad': '$WERR', want EINVAL"
done
rd "$OPTIN"
expect_eq "$R" 0 "dma_optin after refused writes"
pp_dma_xfer_mapped 9800 4000000 "no pp_frag"

# ---- 2. a pool, no opt-in
load_mod pp_frag/pp_frag
wput $POOLF 256 || fail "pool on tn0"
pp_dma_xfer_mapped 9801 8000000 "pool, no opt-in"
pp_stats tn0
ktap_diag "pool, no opt-in: pool served ${PS[served]}"
[ "${PS[served]}" -gt 0 ] || fail "the pool served nothing"

# ---- 3. opt-in: the steady state
wput "$OPTIN" 1 || fail "opt-in"
rd "$OPTIN"
expect_eq "$R" 1 "dma_optin"
wput "$OPTIN" 1 || fail "second opt-in"
pp_dma_xfer 9802 24000000 1000,65536,4096,300000
ktap_diag "warm-up 1: maps $DMAPS saved $DSAVED"
pp_dma_xfer 9803 24000000 65536,1448,131072
ktap_diag "warm-up 2: maps $DMAPS saved $DSAVED"
pp_stats tn0
f0=${PS[fallback]} sv0=${PS[served]}
pp_dma_xfer 9804 32000000 300000,65536,1448,131072,7
pp_stats tn0
frags=$((DMAPS + DSAVED))
ktap_diag "steady state: frags $frags: saved $DSAVED, mapped $DMAPS ($((DSAVED * 1000 / frags))/1000 saved);" \
	"TCP data segments $DTCP; pool: served $((PS[served] - sv0)) fallback $((PS[fallback] - f0))"
[ "$DSAVED" -gt 0 ] || fail "opted in, nothing saved"
[ "$frags" -ge "$DTCP" ] || fail "frags $frags < TCP data segments $DTCP"
[ $((DSAVED * 100)) -ge $((frags * 95)) ] || fail "saved $DSAVED of $frags frags, want >= 95%"

# ---- 4. pp_frag is in use while opted in
refcnt
[ "$R" -ge 1 ] || fail "pp_frag refcnt $R while opted in"
out=$(/sbin/rmmod pp_frag 2>&1) && fail "rmmod pp_frag while opted in worked"
[[ $out == *"in use"* ]] || fail "rmmod pp_frag: '$out', want 'in use'"
mod_loaded pp_frag || fail "pp_frag gone"

# ---- 5. the pool goes and comes back under traffic, opted in. The
# streams of 5, 6 and 8 are open (pp_stream_open): each stops once 4 MB
# (1 MB on the debug kernel) went out after the last change made under it,
# instead of a fixed 120, 60 and 60 MB sent mostly after the changes.
pp_stream_open "" "$NS" 10.99.0.2 9805 65536,4096,300000
nsleep 1
kill -0 $SPID 2>/dev/null || fail "the stream ended too early: make it longer"
maxorph=0
for n in 0 256 0 64 0 256; do
	wput $POOLF $n || fail "pool $n"
	pp_global
	[ "${PG[orphans]}" -le "$maxorph" ] || maxorph=${PG[orphans]}
	nsleep 0.3
done
dma
ktap_diag "pool changes under traffic: orphans seen up to $maxorph; maps ${DM[maps]} saved ${DM[saved]}"
pp_stream_close "pool changes" "" tn0
pp_dma_idle tn0
wput $POOLF 0 || fail "pool 0"
wait_until 10 orphans_gone || fail "orphans ${PG[orphans]} after the stream (pages_owned ${PG[pages_owned]})"
expect_eq "${PG[pages_owned]}" 0 "pages owned without a pool"

# ---- 6. opt-out under traffic (TX quiesced), rmmod pp_frag
wput $POOLF 256 || fail "pool on tn0"
pp_stream_open "" "$NS" 10.99.0.2 9806 65536,4096,300000
nsleep 1
kill -0 $SPID 2>/dev/null || fail "the stream ended before the opt-out"
wput "$OPTIN" 0 || fail "opt-out under traffic"
rd "$OPTIN"
expect_eq "$R" 0 "dma_optin after the opt-out"
pp_stream_close "opt-out under traffic" "" tn0
pp_dma_idle tn0
pp_dma_xfer_mapped 9807 8000000 "opted out, pool on"
wput $POOLF 0 || fail "pool 0"
unload_mod pp_frag
pp_dma_xfer 9808 2000000
[ "$DMAPS" -gt 0 ] || fail "no map after rmmod pp_frag"

# Deleting an opted-in device and unloading the test NIC opt out.
load_mod pp_frag/pp_frag
$IP link add tnx type xnet_tnic || fail "ip link add tnx"
wput /sys/class/net/tnx/pp_frag_pool_pages 64 || fail "pool on tnx"
wput $D/tnx/dma_optin 1 || fail "opt-in tnx"
wput "$OPTIN" 1 || fail "opt-in tn0"
refcnt
r2=$R
$IP link del tnx || fail "ip link del tnx"
refcnt
expect_eq "$R" $((r2 - 3)) "pp_frag refcnt after deleting an opted-in device"
unload_mod $MOD
refcnt
expect_eq "$R" 0 "pp_frag refcnt after rmmod of the test NIC"
unload_mod pp_frag

# ---- 7. pp_frag loaded before the test NIC, whose notifier then runs after
# pp_frag's on unregister (optout_first=0, as a driver that does not order
# it), opted in, a pool page busy in a task's page_frag when the
# device goes, then the NIC (and its DMA device) unloaded: the mapping went
# with the device, the orphan holds none, and releasing it touches no freed
# device (KASAN on the debug kernel).
load_mod pp_frag/pp_frag
$IP netns del $NS
TN_PARAMS=optout_first=0 tn_setup
trap cleanup EXIT # after tn_setup's own
# The sender's task_frag keeps its last page until the process exits.
opted_in_held 9809 7
rpid=$RPID hpid=$HPID
pp_global
[ "${PG[pages_owned]}" -gt 0 ] || fail "no pool page before the device went"
$IP link del tn0 || fail "ip link del tn0"
pp_global
ktap_diag "device deleted with a busy page: orphans ${PG[orphans]} orphans_mapped ${PG[orphans_mapped]:-?}"
[ "${PG[orphans]}" -gt 0 ] || fail "no orphan: the holder's page was not a pool page?"
expect_eq "${PG[orphans_mapped]:-missing}" 0 "orphans still mapped for the deleted device"
unload_mod $MOD
: >"$XNET_TMP/release7"
wait $hpid || fail "holder: $(<"$XNET_TMP/hold7")"
kill $rpid 2>/dev/null || true	# its peer is gone: no FIN will come
wait $rpid 2>/dev/null || true
# The receiver's skbs may wait for a deferred free on the CPU that made
# them (pp_flush_defer): any NET_RX there runs it, loopback's too.
orphans_gone7() { pp_flush_defer "" 127.0.0.1; pp_global; [ "${PG[orphans]}" -eq 0 ]; }
wait_until 10 orphans_gone7 || fail "orphans ${PG[orphans]} after the holder exited"
expect_eq "${PG[pages_owned]}" 0 "pages owned after the orphan idled"
unload_mod pp_frag

# ---- 8. Two ports of one DMA device: every test NIC maps for the module's
# one DMA device, as the ports of a multi-port NIC (or its representors)
# map for one PCI function. tn0's pool is replaced while a task's page_frag
# holds one of its pages (an orphan, still mapped by tn0's opt-in); then a
# second opted-in device, tnx, is added and deleted while tn0 carries a
# checksummed stream. tnx's opt-out drops tnx's mappings only: tn0's orphan
# keeps its mapping (before the fix, orphans were keyed by DMA device and
# tnx's deletion unmapped it under tn0), the stream is intact, and every
# page comes back once the holder lets go.
load_mod pp_frag/pp_frag
$IP netns del $NS 2>/dev/null || true
tn_setup
trap cleanup EXIT # after tn_setup's own
opted_in_held 9810 8
rpid=$RPID hpid=$HPID
wput $POOLF 128 || fail "tn0's pool replaced"
pp_global
m0=${PG[orphans_mapped]:-0} h0=${PG[handed_over]:-0}
[ "$m0" -gt 0 ] || fail "no mapped orphan after tn0's pool was replaced (orphans ${PG[orphans]})"
pp_stream_open "" "$NS" 10.99.0.2 9811 65536,4096,300000
nsleep 1
kill -0 $SPID 2>/dev/null || fail "tn0's stream ended before tnx came and went"
$IP link add tnx type xnet_tnic || fail "ip link add tnx"
wput /sys/class/net/tnx/pp_frag_pool_pages 64 || fail "pool on tnx"
wput $D/tnx/dma_optin 1 || fail "opt-in tnx"
$IP link del tnx || fail "ip link del tnx"
pp_global
ktap_diag "tnx (same DMA device) deleted: tn0's orphans mapped ${PG[orphans_mapped]} (before: $m0), handed over ${PG[handed_over]} (before: $h0)"
# Orphans that idle meanwhile (pages in flight when the pool was replaced)
# go as they should; the held page cannot idle, and a forced release of a
# busy page counts as handed over.
[ "${PG[orphans_mapped]}" -ge 1 ] ||
	fail "tn0's mapped orphans after tnx went: ${PG[orphans_mapped]} (the held page's mapping dropped)"
expect_eq "${PG[handed_over]}" "$h0" "pages handed over busy after tnx went"
pp_stream_close "tn0's stream while tnx came and went" "" tn0
pp_dma_idle tn0
: >"$XNET_TMP/release8"
wait $hpid || fail "holder: $(<"$XNET_TMP/hold8")"
wait $rpid 2>/dev/null || true
wput $POOLF 0 || fail "pool 0"
wait_until 10 orphans_gone || fail "orphans ${PG[orphans]} after the holder exited (pages_owned ${PG[pages_owned]})"
expect_eq "${PG[pages_owned]}" 0 "pages owned after the holder exited"
tn_cleanup
unload_mod pp_frag
check_taint "$TAINT_OK_DEFAULT"
