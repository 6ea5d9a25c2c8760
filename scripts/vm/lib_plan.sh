# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vmtest's plan (sourced by scripts/vmtest.sh): which tests run on this
# kernel and in which boots.
#   pick_tests GLOB...  sets tests (paths) from test names/globs/paths
#   plan_boots          reads each test's header, applies the rule of
#                       "What runs where" (--suite), groups the tests
#                       that share a boot: sets kept, grp_order,
#                       grp_tests, grp_timeout, t_timeout, t_taint_ok, t_baseline,
#                       left_why, left_out
# Uses vmtest's opt_* settings, testdir, XNET_KVER, slow and US; sets the
# watch_* budgets of lib_boot.sh's boot_watch.
#
# Test header (optional, any line): "# vmtest: cpus=2 mem=1024 append="..."
#   qemu="-device ..." timeout=SEC livepatch=1 icount=1 tcg=single". Tests
#   with the same cpus/mem/append/qemu/icount/tcg share one boot; header
#   values override the defaults. livepatch=1 allows taint K for that test;
#   timeout raises the boot timeout; icount=1 boots that test as --icount
#   does; tcg=single boots it with single-threaded TCG (vCPUs take turns on
#   one host thread: for tests that patch kernel text while another vCPU
#   runs it, see tcg_single_args below); baseline=1 marks a test of the
#   tools on stock kernel code only: when it passes it is reported
#   "ok N NAME # baseline" and counted as a baseline, not as passed (a
#   failing baseline fails the run: the tools the other tests rely on are
#   broken); nodebug="WHY" leaves the test out of --debug runs (listed in
#   a "# vmtest: left out" line, not counted). stock61="WHY" and rt="WHY"
#   put the test in the --suite runs of Debian's stock 6.1 kernel and of
#   the PREEMPT_RT kernel (below); series="6.1 ..." keeps it out of the
#   --suite runs of kernels of other series.
#   hostnet=mqN gives the guest two virtio-net NICs with N queue pairs each
#   (MACs 52:54:00:78:00:01 and :02), QEMU taps without vhost bridged
#   together in a private network namespace of the host (never the host's
#   own network; needs root and /dev/net/tun on the host, else the guest
#   gets no NIC and the test should skip). hostnet=mqN:txtimer: the first
#   NIC uses QEMU's timer TX (at most 8 frames a queue per ms), so a busy
#   queue keeps a backlog however the host schedules QEMU.
# (Sourced: the globals it reads and sets are vmtest's.)
# shellcheck disable=SC2034,SC2154

pick_tests() {
	local g t
	local -a m
	local -A picked=()
	tests=()
	[ -d "$testdir" ] || die "no test dir $testdir"
	testdir=$(cd "$testdir" && pwd -P)
	[ $# -gt 0 ] || set -- '[0-9]*'
	shopt -s nullglob
	for g; do
		if [ -f "$g" ]; then
			m=("$(cd "$(dirname "$g")" && pwd -P)/$(basename "$g")")
		else
			g=${g%.sh}
			# shellcheck disable=SC2206 # the glob is wanted
			m=("$testdir"/$g.sh)
			[ ${#m[@]} -eq 0 ] || [ -f "${m[0]}" ] || m=()
			# shellcheck disable=SC2206 # a bare prefix: '01' = '01*'
			[ ${#m[@]} -gt 0 ] || m=("$testdir"/$g*.sh)
		fi
		[ ${#m[@]} -gt 0 ] || die "no test matches '$g' in $testdir"
		for t in "${m[@]}"; do
			[ -n "${picked[$t]:-}" ] && continue
			picked[$t]=1
			tests+=("$t")
		done
	done
	shopt -u nullglob
	[ ${#tests[@]} -gt 0 ] || die "no tests found in $testdir"
}

# Boot needs from "# vmtest: k=v ..." header lines.
parse_needs() { # file -> n_cpus n_mem n_append n_qemu n_taint_ok n_timeout n_icount n_baseline
	local line rest k v
	n_cpus=$opt_cpus n_mem=$opt_mem n_append='' n_qemu='' n_timeout=${opt_test_timeout:-$opt_timeout} n_baseline=0
	n_nodebug='' n_stock61='' n_rt='' n_series=''
	n_icount=$opt_icount
	[ "$n_icount" = 1 ] || n_icount=0
	n_taint_ok=$((4096 | 8192))
	while IFS= read -r line; do
		[[ $line =~ ^#[[:space:]]*vmtest:(.*)$ ]] || continue
		rest=${BASH_REMATCH[1]}
		while [[ $rest =~ ^[[:space:]]*([a-z_0-9]+)=(\"([^\"]*)\"|([^[:space:]\"]*))(.*)$ ]]; do
			k=${BASH_REMATCH[1]} v=${BASH_REMATCH[3]}${BASH_REMATCH[4]}
			rest=${BASH_REMATCH[5]}
			case $k in
			cpus | mem | timeout)
				[[ $v =~ ^[1-9][0-9]*$ ]] || die "$1: $k=$v is not a number"
				case $k in
				cpus) n_cpus=$v ;; mem) n_mem=$v ;;
				timeout)
					[ "$opt_debug" -eq 0 ] || v=$((v * slow))
					[ "$v" -gt "$n_timeout" ] && n_timeout=$v
					;;
				esac
				;;
			append) n_append+="${n_append:+ }$v" ;;
			qemu) n_qemu+="${n_qemu:+ }$v" ;;
			livepatch) [ "$v" = 1 ] && n_taint_ok=$((n_taint_ok | 32768)) ;;
			icount) [ "$v" = 1 ] && n_icount=1 ;;
			baseline) [ "$v" = 1 ] && n_baseline=1 ;;
			nodebug) n_nodebug=$v ;;
			stock61) n_stock61=$v ;;
			rt) n_rt=$v ;;
			series) n_series=$v ;;
			hostnet)
				[[ $v =~ ^mq([1-9][0-9]?)(:txtimer)?$ ]] ||
					die "$1: hostnet=$v (want mqN or mqN:txtimer)"
				n_qemu+="${n_qemu:+ }@hostnet:${BASH_REMATCH[1]}${BASH_REMATCH[2]}"
				;;
			tcg)
				[ "$v" = single ] || die "$1: tcg=$v (only tcg=single)"
				[ "$n_icount" = 1 ] || n_icount=single
				;;
			*) die "$1: unknown vmtest header key '$k'" ;;
			esac
		done
		[[ $rest =~ ^[[:space:]]*$ ]] || die "$1: cannot parse header: $line"
	done <"$1"
}

plan_boots() {
	local t why key n suite=all
	declare -gA grp_tests=() grp_timeout=() t_timeout=() t_taint_ok=() t_baseline=() left_out=()
	grp_order=() left_why=() kept=()
	# What runs where (--suite; Documentation/testing.md): a test runs on
	# 6.12 and on the debug kernel; nodebug= moves it from the debug
	# kernel to stock 6.1, stock61= adds stock 6.1, rt= adds the
	# PREEMPT_RT kernel.
	if [ "$opt_suite" -eq 1 ] && [ "$opt_debug" -eq 0 ]; then
		if [ "$opt_rt" -eq 1 ]; then
			suite=rt
		elif [[ $XNET_KVER == 6.1.* ]]; then
			suite=stock61
		fi
	fi
	for t in "${tests[@]}"; do
		parse_needs "$t"
		why=
		if [ "$opt_debug" -eq 1 ] && [ -n "$n_nodebug" ]; then
			why="their header says nodebug="
		elif [ $suite = stock61 ] && [ -z "$n_nodebug$n_stock61" ]; then
			why="the debug kernel runs them (6.1's source, with checkers)"
		elif [ $suite = rt ] && [ -z "$n_rt" ]; then
			why="no rt= in their header"
		elif [ "$opt_suite" -eq 1 ] && [ -n "$n_series" ] &&
			[[ " $n_series " != *" $(echo "$XNET_KVER" | cut -d. -f1-2) "* ]]; then
			why="their header says series=\"$n_series\""
		fi
		if [ -n "$why" ]; then
			[ -n "${left_out[$why]:-}" ] || left_why+=("$why")
			left_out[$why]+=" $(basename "$t" .sh | cut -d- -f1)"
			continue
		fi
		kept+=("$t")
		key="$n_cpus$US$n_mem$US$n_append$US$n_qemu$US$n_icount"
		if [ -z "${grp_tests[$key]+x}" ]; then
			grp_order+=("$key")
			grp_tests[$key]=
			grp_timeout[$key]=$n_timeout
		fi
		grp_tests[$key]+="$t"$'\n'
		[ "$n_timeout" -gt "${grp_timeout[$key]}" ] && grp_timeout[$key]=$n_timeout
		t_taint_ok[$t]=$n_taint_ok
		t_timeout[$t]=$n_timeout
		t_baseline[$t]=$n_baseline
	done
	# Without --timeout, each test has its own timeout (its header's), from
	# the moment it begins (lib_boot.sh, boot_watch): however long the
	# tests before it took on a loaded host, no test has less. The boot's
	# timeout is then only a backstop: the sum of what boot_watch allows.
	# An explicit --timeout is the boot's timeout as it is, and no test
	# has one of its own.
	# The budgets (seconds, x the debug kernel's slowness): QEMU start to
	# the runner's start; one test's end to the next one's begin; what the
	# runner does after a test (on the debug kernel, a kmemleak scan); the
	# last test's end to power-off.
	watch_boot_s=$((150 * ${slow:-1})) watch_gap_s=$((60 * ${slow:-1}))
	watch_scan_s=10 watch_tail_s=$((90 * ${slow:-1}))
	[ "$opt_debug" -eq 0 ] || watch_scan_s=$((60 * slow))
	if [ "$opt_timeout_set" -eq 0 ]; then
		for key in "${grp_order[@]}"; do
			n=$((watch_boot_s + watch_tail_s))
			while IFS= read -r t; do
				[ -z "$t" ] || n=$((n + watch_gap_s + t_timeout[$t] + watch_scan_s))
			done <<<"${grp_tests[$key]}"
			grp_timeout[$key]=$n
		done
	fi

	[ ${#kept[@]} -gt 0 ] || die "every test named is left out on this kernel:${left_out[*]}"
}
