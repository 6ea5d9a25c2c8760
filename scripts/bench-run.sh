# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash disable=SC2154 # root: set by the bench script that sources this
#
# The run directory of a bench (issue 30, "traceable figures"), sourced by
# scripts/bench-*.sh after they set $root:
#
#   build/bench/runs/<bench>-<UTC stamp>[-quick]/
#     meta          key=value lines: run id, bench, commit, dirty flag, the
#                   command line, host cores, QEMU version, XNET_VM_* and
#                   BENCH_* environment, /proc/loadavg before and after,
#                   each boot's vmtest options and status, the kernel
#                   releases the guests booted, the bench's status
#     boots/LABEL.out   a boot's whole output (vmtest stdout)
#     boots/LABEL.qemu  its QEMU command line(s), shell-quoted (two lines:
#                   the kernel died before the command, booted again)
#     raw/LABEL/NAME    the raw files a guest sent back (tests/bench/
#                   lib_bench.sh, bench_raw): guest.txt (kernel, cmdline,
#                   CPU model), fio and iperf3 JSON, counter snapshots
#     raw/host/NAME     raw files made on the host (bench_raw_host)
#     tables.md     the tables scripts/bench-tables.py generated from raw/
#     <name>.md     the bench's whole .md as saved in build/bench/
#   build/bench/<bench>[-quick].run   a link to the latest run directory
#
# bench_run_start BENCH QUICK ARGS...   create it (BENCH_RUN, BENCH_RUN_ID)
# bench_vmtest LABEL VMTEST-ARGS...     run scripts/vmtest.sh, save the
#                                       boot's output and raw files, print
#                                       the output without the raw blocks;
#                                       returns vmtest's status
# bench_raw_host NAME FILE              copy a host-side raw file
# bench_run_end STATUS                  load after, kernels, status; checks
#                                       that every boot sent raw files
#                                       back and left its QEMU command
#                                       line; returns non-zero if STATUS
#                                       is or a check fails
# (An EXIT trap writes the status and load after of a bench that exits
# before bench_run_end.)
# bench_run_check DIR                   a finished run dir is complete
#                                       (meta, raw files, status 0)

bench_meta() { printf '%s=%s\n' "$1" "$2" >>"$BENCH_RUN/meta"; }

bench_run_start() {
	local bench=$1 quick=$2 v stamp
	shift 2
	stamp=$(date -u +%Y%m%dT%H%M%SZ)
	BENCH_RUN_ID=$bench-$stamp$([ "$quick" != 1 ] || echo -quick)
	BENCH_RUN=$root/build/bench/runs/$BENCH_RUN_ID
	# Two runs of one bench in the same second: keep both.
	[ ! -e "$BENCH_RUN" ] || { BENCH_RUN_ID+=-$$ && BENCH_RUN=$root/build/bench/runs/$BENCH_RUN_ID; }
	mkdir -p "$BENCH_RUN/raw" "$BENCH_RUN/boots"
	: >"$BENCH_RUN/meta"
	bench_meta run_id "$BENCH_RUN_ID"
	bench_meta bench "$bench"
	bench_meta quick "$quick"
	bench_meta commit "$(git -C "$root" rev-parse --verify -q HEAD 2>/dev/null || echo unknown)"
	if [ -z "$(git -C "$root" status --porcelain --untracked-files=no 2>/dev/null)" ]; then
		bench_meta dirty 0
	else
		bench_meta dirty 1
	fi
	bench_meta started "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	local -a cmd=("scripts/bench-$bench.sh")
	[ "$quick" = 1 ] && cmd+=(--quick)
	bench_meta command "$(printf '%q ' "${cmd[@]}" "$@")"
	bench_meta host_cores "$(nproc)"
	bench_meta host_kernel "$(uname -r)"
	bench_meta qemu "$(qemu-system-x86_64 --version 2>/dev/null | head -n 1)"
	for v in $(compgen -e | grep -E '^(XNET_VM_|XNET_KVER|BENCH_|SCALE_)' || true); do
		bench_meta "env.$v" "${!v}"
	done
	# vmtest picks KVM or TCG itself (cached per kernel and QEMU; KVM
	# only with a usable /dev/kvm): what the host can tell beforehand.
	# What it decided is in each boot's QEMU command line (boots/*.qemu).
	v=no
	[ -r /dev/kvm ] && [ -w /dev/kvm ] && v=yes
	bench_meta dev_kvm_rw "$v"
	bench_meta vm_accel_cached "$(cat "${XDG_CACHE_HOME:-$HOME/.cache}"/xnet-kmods/vm/accel-* 2>/dev/null | sort -u | tr '\n' ' ')"
	bench_meta loadavg_before "$(cat /proc/loadavg)"
	# An early exit still leaves the status and the load after.
	trap 'bench_run_exit $?' EXIT
	ln -sfn "runs/$BENCH_RUN_ID" "$root/build/bench/$bench$([ "$quick" != 1 ] || echo -quick).run"
	echo "bench: run directory $BENCH_RUN" >&2
}

# bench_extract_raw FILE DIR: the @raw blocks of FILE into DIR/NAME.
bench_extract_raw() {
	mkdir -p "$2"
	awk -v dir="$2" '
		/^@raw-begin / {
			if (f != "") close(f)
			f = ""
			if ($2 ~ /^[A-Za-z0-9._-]+$/ && $2 != "." && $2 != "..") { f = dir "/" $2; printf "" >f }
			next
		}
		/^@raw-end / { if (f != "") close(f); f = ""; next }
		/^@raw / { if (f != "") print substr($0, 6) >f; next }' "$1"
}

bench_vmtest() {
	local label=$1 rc f
	local -a st
	# The caller's set -e and pipefail would end it at a failed boot.
	local -
	set +e +o pipefail
	shift
	f=$BENCH_RUN/boots/$label.out
	bench_meta "boot.$label.vmtest" "$(printf '%q ' "$@")"
	bench_meta "boot.$label.env" "XNET_VM_ICOUNT=${XNET_VM_ICOUNT:-} XNET_VM_ACCEL=${XNET_VM_ACCEL:-} XNET_VM_CPU=${XNET_VM_CPU:-}"
	bench_meta "boot.$label.start" "$(date -u '+%H:%M:%S') load $(cut -d' ' -f1-3 /proc/loadavg)"
	XNET_VM_QEMU_CMDLINE=$BENCH_RUN/boots/$label.qemu \
		"$root/scripts/vmtest.sh" "$@" | tee "$f" | grep --line-buffered -v -E '^@raw(-begin|-end)? '
	st=("${PIPESTATUS[@]}")
	rc=${st[0]}
	bench_meta "boot.$label.status" "$rc"
	bench_extract_raw "$f" "$BENCH_RUN/raw/$label"
	return "$rc"
}

bench_raw_host() {
	mkdir -p "$BENCH_RUN/raw/host"
	cp "$2" "$BENCH_RUN/raw/host/$1"
}

bench_run_end() {
	local status=$1 d k kernels=""
	for d in "$BENCH_RUN"/raw/*/; do
		[ -f "$d/guest.txt" ] || continue
		k=$(sed -n 's/^kernel_release=//p' "$d/guest.txt")
		bench_meta "boot.$(basename "$d").kernel" "$k"
		[[ " $kernels " == *" $k "* ]] || kernels+="${kernels:+ }$k"
	done
	bench_meta kernels "$kernels"
	# Every boot must have sent its raw files back (guest.txt at least).
	for d in "$BENCH_RUN"/boots/*.out; do
		[ -e "$d" ] || continue
		k=$(basename "$d" .out)
		if [ ! -s "$BENCH_RUN/raw/$k/guest.txt" ]; then
			echo "bench: boot '$k' sent no raw files back ($BENCH_RUN/raw/$k)" >&2
			[ "$status" -ne 0 ] || status=1
		fi
		if [ ! -s "$BENCH_RUN/boots/$k.qemu" ]; then
			echo "bench: boot '$k' left no QEMU command line ($BENCH_RUN/boots/$k.qemu)" >&2
			[ "$status" -ne 0 ] || status=1
		fi
	done
	bench_meta loadavg_after "$(cat /proc/loadavg)"
	bench_meta ended "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	bench_meta status "$status"
	echo "bench: run directory $BENCH_RUN (status $status)" >&2
	return "$status"
}

bench_run_exit() {
	grep -q '^status=' "$BENCH_RUN/meta" 2>/dev/null && return 0
	bench_meta loadavg_after "$(cat /proc/loadavg)"
	bench_meta ended "$(date -u '+%Y-%m-%d %H:%M:%S UTC')"
	bench_meta status "$1"
	echo "bench: run directory $BENCH_RUN (exit status $1)" >&2
}

bench_run_check() {
	local d=$1 k
	for k in run_id commit dirty loadavg_before loadavg_after status; do
		grep -q "^$k=" "$d/meta" 2>/dev/null || { echo "$d: meta has no $k" >&2; return 1; }
	done
	grep -qx 'status=0' "$d/meta" || { echo "$d: status is not 0" >&2; return 1; }
	[ -n "$(find "$d/raw" -type f -size +0 2>/dev/null | head -n 1)" ] ||
		{ echo "$d: no raw files" >&2; return 1; }
	return 0
}
