#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Runs inside the demo guest (cwd: the project). Each feature adds its own
# section here as it lands.
set -euo pipefail

say() { printf '\n== %s\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

say "guest: $(uname -sr), $(nproc) vCPUs"
for m in nvme_tcp_prio nvmet_tcp_prio xps_flow pp_frag; do
	ko=$m/$m.ko
	say "$m"
	run /sbin/modinfo -F description "$ko"
	/sbin/modinfo "$ko" | grep -E '^(vermagic|parm|license):' || true
	run /sbin/insmod "$ko"
	grep "^$m " /proc/modules
	echo "taint after load: $(cat /proc/sys/kernel/tainted) (O=4096 out-of-tree, E=8192 unsigned)"
	run /sbin/rmmod "$m"
	grep -q "^$m " /proc/modules && { echo "$m still loaded"; exit 1; }
	echo "$m unloaded"
done
# ---- NVMe/TCP socket priority ---------------------------------------------
# shellcheck source=tests/vm/lib.sh
. tests/vm/lib.sh
# shellcheck source=tests/vm/lib_nvme.sh
. tests/vm/lib_nvme.sh

nvme_socks() {	# the host's NVMe/TCP connections as ss sees them
	/usr/bin/ss -tanH --tos state established "( dport = :4420 or dport = :4421 )" |
		awk '{for (i = 1; i <= NF; i++) if ($i ~ /^class_id:/) c = $i; print "   ", $3, "->", $4, c}'
}
bands() {	# packets per band of the host's egress prio qdisc
	/sbin/tc -s class show dev "$NV_HDEV" |
		awk '/^class prio/ {c = $3} /Sent/ && $4 > 0 {print "    band", c, $4, "packets"}'
}

say "NVMe/TCP socket priority: nvmet target in netns '$NV_NS' (10.77.0.2, ports 4420 and 4421), host in init_net, one veth"
nv_init
# Host egress: a prio qdisc whose band N+1 carries skb priority N (0..7).
/sbin/tc qdisc add dev "$NV_HDEV" root handle 1: prio bands 8 priomap 0 1 2 3 4 5 6 7 0 0 0 0 0 0 0 0
run /sbin/insmod nvmet_tcp_prio/nvmet_tcp_prio.ko 'rules=lport=4420,prio=3;lport=4421,prio=5'
run /sbin/insmod nvme_tcp_prio/nvme_tcp_prio.ko so_priority=3 'rules=rport=4421,prio=5'
nv_target 1 "$NV_T4" 4420
nv_target 2 "$NV_T4" 4421
nv_connect "$NV_T4" 4420 "${NV_TNQN[1]}" nr_io_queues=1
d1=${NV_DEV[$NV_CTRL]}
nv_connect "$NV_T4" 4421 "${NV_TNQN[2]}" nr_io_queues=1
d2=${NV_DEV[$NV_CTRL]}
echo "connected: $d1 (port 4420), $d2 (port 4421); fio 2 s of 4k random reads on both"
/usr/bin/fio --name=demo --ioengine=libaio --direct=1 --rw=randread --bs=4k --iodepth=4 \
	--time_based --runtime=2 --size=32M --filename="$d1:$d2" --output-format=terse >/dev/null
run cat /sys/kernel/debug/nvme_tcp_prio/sockets
run cat /sys/kernel/debug/nvmet_tcp_prio/sockets
echo "sock_diag (ss --tos shows sk_priority as class_id):"
nvme_socks
echo "host egress packets per class of a prio qdisc (class 1:N carries skb priority N-1; 7 = kernel control traffic):"
bands

say "change the rules at runtime: every live socket follows"
run bash -c "echo 'rport=4420,prio=6;prio=2' > /sys/module/nvme_tcp_prio/parameters/rules"
run cat /sys/module/nvme_tcp_prio/parameters/rules
nvme_socks
run bash -c "echo 'rport=4420,prio=x' > /sys/module/nvme_tcp_prio/parameters/rules" || true
dmesg | tail -n 1

say "a user-space socket on port 4420 is never touched"
/sbin/ip netns exec "$NV_NS" python3 -c 'import socket,time; s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(("10.77.0.3", 4420)); s.listen(); c, _ = s.accept(); time.sleep(3)' &
sleep 1
python3 -c 'import socket,time; s=socket.create_connection(("10.77.0.3", 4420)); time.sleep(2)' &
sleep 1
/usr/bin/ss -tanH --tos state established "( dport = :4420 )" dst 10.77.0.3 |
	awk '{for (i = 1; i <= NF; i++) if ($i ~ /^class_id:/) c = $i; print "    user socket", $3, "->", $4, c}'
wait

say "rmmod restores every socket's previous priority"
run /sbin/rmmod nvme_tcp_prio nvmet_tcp_prio
nvme_socks
nv_disconnect_all
/sbin/tc qdisc del dev "$NV_HDEV" root

# ---- XPS transmit flow steering --------------------------------------------
# shellcheck source=tests/vm/lib_testnic.sh
. tests/vm/lib_testnic.sh
trap - EXIT
say "XPS flow steering: the BQL test NIC tn0 (4 TX queues; XPS CPU0 -> tx-0, CPU1 -> tx-1), tx-0 completing 50 ms late"
tn_setup
wput $D/tn0/tx-0/delay_us 50000
reorder_run() {	# LABEL: 4 flows, the sender moving between CPU 0 and 1 every burst
	wput $D/tn0/reset 1
	send tn0 --cpus 0,1 --bursts 10 --burst 8 --flows 4 "${@:2}"
	wait_until 20 wire_test_is tn0 "$SENT" || true
	printf '    %-40s %4s packets on the wire, %4s reordered\n' "$1" "${W[test]}" "${W[reordered]}"
}
reorder_run "stock XPS:"
run /sbin/insmod xps_flow/xps_flow.ko
run bash -c "echo 1024 > /sys/class/net/tn0/xps_dev_flow_table_cnt"
run cat /sys/class/net/tn0/xps_dev_flow_table_cnt
reorder_run "xps_flow on:"
wput $D/tn0/tx-0/delay_us 2000
reorder_run "xps_flow on, tx-0 2 ms late, pauses:" --gap-us 150000
wput $D/tn0/tx-0/delay_us 50000
run cat /sys/class/net/tn0/xps_flow_stats
echo "per-queue BQL counters of the test NIC:"
cut -c1-100 $D/tn0/queues | head -3
run bash -c "echo 1024x > /sys/class/net/tn0/xps_dev_flow_table_cnt" || true
# Steering pins the module: rmmod is refused until every table is off.
run /sbin/rmmod xps_flow || true
run bash -c "echo 0 > /sys/class/net/tn0/xps_dev_flow_table_cnt"
run /sbin/rmmod xps_flow
reorder_run "after rmmod:"
tn_cleanup

# ---- pp_frag: socket TX page-frag recycling --------------------------------
PPNS=ppdemo
PPS=tests/pp/pp_stream.py
PPF=/sys/class/net/va0
ppf_stat() {	# KEY... of va0's pp_frag_stats on one line
	local k v l=""
	while read -r k v; do [[ " $* " == *" $k "* ]] && l+="$k $v  "; done <$PPF/pp_frag_stats
	echo "    $l"
}
say "pp_frag: TCP from init_net over a veth (va0) into netns '$PPNS'; va0's page frags from a pool"
/sbin/ip netns add $PPNS
/sbin/ip link add va0 type veth peer name vb0 netns $PPNS
/sbin/ip addr add 10.95.0.1/24 dev va0
/sbin/ip link set va0 up
/sbin/ip -n $PPNS addr add 10.95.0.2/24 dev vb0
/sbin/ip -n $PPNS link set vb0 up
run /sbin/insmod pp_frag/pp_frag.ko
run bash -c "echo 64 > $PPF/pp_frag_pool_pages"
run bash -c "echo 64k > $PPF/pp_frag_pool_pages" || true
dmesg | tail -n 1
mkdir -p "$XNET_TMP"
/sbin/ip netns exec $PPNS python3 $PPS recv 5400 --bind 10.95.0.2 --digest crc32 >"$XNET_TMP/pp-recv" &
pprecv=$!
for _ in $(seq 100); do grep -q listening "$XNET_TMP/pp-recv" 2>/dev/null && break; sleep 0.2; done
echo "128 MiB in 64 KiB writes, checksummed end to end (crc32; sha256 is the default, slow under TCG):"
run python3 $PPS send 10.95.0.2 5400 --bytes $((128 << 20)) --digest crc32
wait $pprecv
sed -n 2p "$XNET_TMP/pp-recv"
run cat $PPF/pp_frag_stats
python3 - $PPF/pp_frag_stats <<'PY'
s = dict(l.split() for l in open(__import__("sys").argv[1]))
served, rec = int(s["served"]), int(s["recycled"])
print("    recycled share: %d of %d pages served = %.1f%% (fresh: the pool's first fill)" %
      (rec, served, 100.0 * rec / served if served else 0))
PY
run cat /sys/kernel/debug/pp_frag/global
say "memory pressure: the shrinker gives idle pool pages back"
ppf_stat pages in_flight shrunk
run bash -c "echo 2 > /proc/sys/vm/drop_caches"
ppf_stat pages in_flight shrunk
say "disable the pool and rmmod: every page back"
run bash -c "echo 0 > $PPF/pp_frag_pool_pages"
run cat /sys/kernel/debug/pp_frag/global
run /sbin/rmmod pp_frag
/sbin/ip netns del $PPNS
