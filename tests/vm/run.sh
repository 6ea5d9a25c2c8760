#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Guest-side runner: PID 1 of the vmtest guest (started by scripts/vm/init
# after switch_root into the host's root filesystem over 9p).
#
#   run.sh RESDIR
#
# RESDIR is the writable 9p share of this boot. The host put "cfg" there
# (bash: XNET_SRC XNET_KVER XNET_VM_LIB VM_MODE VM_TESTS[] VM_TAINT_OK[]
# VM_CMD VM_COLDPLUG). This writes back, per test i (1-based): i.begin,
# i.log (raw output), i.ktap (the test's KTAP block) and i.done when it ends;
# for VM_MODE=cmd: cmd.out, cmd.rc; at the end: ktap (this boot's KTAP),
# dmesg.txt, done. Each test runs as "bash TEST" in XNET_TMP, stdin
# /dev/null; processes it leaves behind are killed when it ends.
# Before and after each test a marker "vmtest: begin|end NAME" goes to
# /dev/kmsg, so the host can tell which test a console problem belongs to.
#
# PID 1 must never exit (kernel panic): everything ends in vm_poweroff.

res=${1:-/run/vmtest}
export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin
export HOME=/root LC_ALL=C.UTF-8 TERM=dumb
umask 022

vm_poweroff() {
	# Nothing to sync: the root's upper layer is tmpfs, the results share
	# is cache=none (every write already reached the host). The marker
	# lets the host tell the power-off path's own warnings apart.
	kmsg "vmtest: poweroff"
	# The harness's selftest (scripts/vm/selftest.sh): a warning now,
	# with a trace naming a module of ours or not.
	if grep -qw 'xnet_selftest=poweroff\(-ours\)\?' /proc/cmdline; then
		echo "<4>WARNING: CPU: 0 PID: 1 at vmtest-selftest-poweroff (fake)" >/dev/kmsg
		! grep -qw xnet_selftest=poweroff-ours /proc/cmdline ||
			echo "<4> xps_flow_selftest_fake+0x10/0x20 [xps_flow]" >/dev/kmsg
	fi
	echo o >/proc/sysrq-trigger
	sleep 20
	echo b >/proc/sysrq-trigger # qemu runs with -no-reboot
	sleep 100
}

kmsg() { echo "<5>$*" >/dev/kmsg; }

# SIGKILL every user process but PID 1 (this runner): what a test left
# behind (daemons, also setsid'ed ones). Sets $strays ("comm(pid) ...").
kill_strays() {
	local f s pid ppid pids=()
	strays=
	for f in /proc/[0-9]*/stat; do
		read -r s <"$f" 2>/dev/null || continue
		pid=${s%% *}
		read -r _ ppid _ <<<"${s##*) }" # after "pid (comm) ": state ppid
		# Skip PID 1, kthreadd and kernel threads.
		[ "$pid" -le 2 ] || [ "$ppid" -eq 2 ] && continue
		pids+=("$pid")
		s=${s#* (}
		strays+=" ${s%%) *}($pid)"
	done
	[ ${#pids[@]} -eq 0 ] || kill -KILL "${pids[@]}" 2>/dev/null
}

uptime_s() { # -> $up (no fork: execs cost ~0.1 s each under TCG)
	read -r up _ </proc/uptime
}

# KTAP-ify the output of test NAME: non-KTAP lines become diagnostics;
# indent; name the subtests ("# Subtest: NAME" after its KTAP header).
ktap_indent() {
	local line l name=$1 hdr=0
	while IFS= read -r line || [ -n "$line" ]; do
		l=${line#"${line%%[![:space:]]*}"}
		[ -n "$l" ] || continue
		if ! [[ $l =~ ^(KTAP\ version|TAP\ version|ok\ |not\ ok\ |#|[0-9]+\.\.[0-9]+) ]]; then
			line="# $line"
		fi
		printf '    %s\n' "$line"
		if [ $hdr -eq 0 ] && [[ $line == "KTAP version "* ]]; then
			hdr=1
			printf '    # Subtest: %s\n' "$name"
		fi
	done
}

taint_letters() { # bits -> letters, as in /proc/sys/kernel/tainted docs
	local t=$1 i s='' l=PFSRMBUDAWCIOELKXT
	for ((i = 0; i < ${#l}; i++)); do
		((t & (1 << i))) && s+=${l:i:1}
	done
	echo "$s"
}

# No udev in the guest: when the host added devices (qemu= in a test
# header), load the drivers of PCI devices that have none, then of the
# virtio devices their drivers made (virtio_pci -> virtio_net).
coldplug() {
	local d a bus aliases
	for bus in pci virtio; do
		aliases=()
		for d in /sys/bus/"$bus"/devices/*; do
			[ -e "$d/modalias" ] || continue
			[ -e "$d/driver" ] && continue
			read -r a <"$d/modalias" && aliases+=("$a")
		done
		[ ${#aliases[@]} -eq 0 ] || modprobe -qa "${aliases[@]}" 2>/dev/null || true
	done
}

# After a test: a kmemleak scan, its report into the kernel log (the host
# fails the running test on "unreferenced object"). kmemleak reports an
# object only when it is older than 5 s and its contents did not change
# since the previous scan (a new object's first scan counts as a change):
# a leak is reported by the second scan that sees it, the next test's or
# the boot's final one (which waits 5 s and scans twice); the report's
# backtrace names the allocation. One scan costs ~10-20 s on the debug
# kernel under TCG: one per test, not more.
# On a kernel booted with xnet_kmemleak=1 (vmtest --debug) kmemleak must be
# there and working: a missing or disabled kmemleak is itself a failure.
kmemleak_want=0
case " $(cat /proc/cmdline) " in *" xnet_kmemleak=1 "*) kmemleak_want=1 ;; esac
kmemleak_check() { # [SCANS]; sets kml_cs, its time in 1/100 s
	local s0
	uptime_s
	s0=$up
	kmemleak_scan "$@"
	uptime_s
	kml_cs=$((10#${up/./} - 10#${s0/./}))
}
kmemleak_scan() {
	local f=/sys/kernel/debug/kmemleak rep l i
	if [ ! -w $f ]; then
		[ $kmemleak_want -eq 0 ] ||
			echo "<3>vmtest: checker kmemleak missing ($f)" >/dev/kmsg
		return 0
	fi
	for ((i = 0; i < ${1:-1}; i++)); do
		echo scan 2>/dev/null >$f && continue
		echo "<3>vmtest: checker kmemleak scan failed (disabled?)" >/dev/kmsg
		return 0
	done
	rep=$(cat $f 2>/dev/null)
	[ -z "$rep" ] && return 0
	while IFS= read -r l; do echo "<4>kmemleak: $l" >/dev/kmsg; done <<<"$rep"
	echo clear >$f
}

run_test() { # index path allowed-taint-mask taint-before
	local i=$1 t=$2 ok_mask=$3 taint0=$4 name tmp pid rc taint1 bad res_line strays
	local printk t0 t1 reason up l
	name=${t##*/}
	name=${name%.sh}
	tmp=/tmp/xnet-vmtest/$name # made by main()
	read -r printk </proc/sys/kernel/printk
	uptime_s
	t0=$up
	echo "$name $t0" >"$res/$i.begin"
	kmsg "vmtest: begin $name"
	(cd "$tmp" && XNET_TMP=$tmp XNET_TEST=$name exec bash "$t") \
		</dev/null >"$res/$i.log" 2>&1 &
	pid=$!
	wait "$pid"
	rc=$?
	kill_strays
	echo "$printk" >/proc/sys/kernel/printk # a test may have lowered it
	kmemleak_check
	uptime_s
	t1=$up
	kmsg "vmtest: end $name rc=$rc"
	read -r taint1 </proc/sys/kernel/tainted
	echo "$taint1" >"$res/$i.taint"
	{
		ktap_indent "$name" <"$res/$i.log"
		t0=${t0/./} t1=${t1/./}
		printf '    # vmtest: %s: exit %d, %d.%02d s' "$name" "$rc" \
			$(((10#$t1 - 10#$t0) / 100)) $(((10#$t1 - 10#$t0) % 100))
		# (What of it was the kmemleak scan after the test.)
		[ $kmemleak_want -eq 0 ] ||
			printf ' (kmemleak scan %d.%02d s)' $((kml_cs / 100)) $((kml_cs % 100))
		echo
		[ -z "$strays" ] || echo "    # vmtest: killed leftover processes:$strays"
		bad=$(((taint1 & ~taint0) & ~ok_mask))
		if [ "$bad" -ne 0 ]; then
			printf '    # vmtest: new kernel taint %d (%s) beyond allowed %d: tainted=%d\n' \
				"$bad" "$(taint_letters "$bad")" "$ok_mask" "$taint1"
			rc=1
		fi
		case $rc in
		0) res_line="ok $i $name" ;;
		4)
			reason=
			while IFS= read -r l; do
				[[ $l == "# SKIP "* ]] && reason=${l#\# SKIP }
			done <"$res/$i.log"
			res_line="ok $i $name # SKIP ${reason:-skipped}"
			;;
		*) res_line="not ok $i $name" ;;
		esac
		echo "$res_line"
	} >"$res/$i.ktap"
	echo "$rc" >"$res/$i.done" # i.ktap is complete
}

main() {
	local i n ok_mask taint up l tmps=()
	uptime_s
	echo "$up" >"$res/runner-start"
	# shellcheck source=/dev/null
	. "$res/cfg" || return 1
	# The debug kernel (KASAN, lockdep, kmemleak): tests may move less data
	# there (lib_pp.sh), the paths they cover stay the same.
	XNET_VM_CHECKERS=$kmemleak_want
	export XNET_SRC XNET_KVER XNET_VM_LIB XNET_DKMS XNET_VM_CHECKERS
	# The awk the host chose (scripts/vmtest.sh, XNET_VM_AWK), first in PATH.
	if [ -n "${VM_AWK:-}" ]; then
		mkdir -p /run/xnet-awk
		ln -sf "$(command -v "$VM_AWK")" /run/xnet-awk/awk
		export PATH=/run/xnet-awk:$PATH
	fi
	[ "${VM_COLDPLUG:-0}" = 0 ] || coldplug
	if [ "${VM_MODE:-tests}" = cmd ]; then
		kmsg "vmtest: begin shell-cmd"
		(cd "$XNET_SRC" && XNET_TMP=/tmp/xnet-vmtest exec bash -c "$VM_CMD") \
			</dev/null >"$res/cmd.out" 2>&1 &
		wait $!
		echo $? >"$res/cmd.rc"
		kmemleak_check
		kmsg "vmtest: end shell-cmd"
	else
		n=${#VM_TESTS[@]}
		for ((i = 0; i < n; i++)); do
			l=${VM_TESTS[i]##*/}
			tmps+=("/tmp/xnet-vmtest/${l%.sh}")
		done
		mkdir -p "${tmps[@]}"
		# What boot itself left unreferenced is not a test's leak.
		[ $kmemleak_want -eq 0 ] || { echo scan >/sys/kernel/debug/kmemleak; echo clear >/sys/kernel/debug/kmemleak; } 2>/dev/null
		taint=0 # boot-time taint is blamed on the first test
		for ((i = 1; i <= n; i++)); do
			ok_mask=${VM_TAINT_OK[i - 1]}
			run_test "$i" "${VM_TESTS[i - 1]}" "$ok_mask" "$taint"
			read -r taint </proc/sys/kernel/tainted
		done
		{
			printf 'KTAP version 1\n1..%d\n' "$n"
			for ((i = 1; i <= n; i++)); do
				while IFS= read -r l; do echo "$l"; done <"$res/$i.ktap"
			done
		} >"$res/ktap"
	fi
	if [ $kmemleak_want -eq 1 ]; then
		# Leaks of the last test's final seconds: old enough after 6 s.
		sleep 6
		kmemleak_check 2
	fi
	dmesg >"$res/dmesg.txt" 2>&1
	echo "done" >"$res/done"
}

main
vm_poweroff
