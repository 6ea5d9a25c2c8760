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
say "the features themselves land with their issues; see README.md"
