# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vmtest's console scan (sourced by scripts/vmtest.sh): the kernel log
# lines that fail a test, which test each belongs to, what was logged
# after the guest began to power off, and the first trace of a problem.
# (Sourced: the globals it reads and sets are vmtest's.)
# shellcheck disable=SC2034,SC2154

# Kernel log lines that fail the run.
problem_re='BUG:|WARNING:|Oops|general protection fault|KASAN|UBSAN'
problem_re+='|possible circular locking|possible recursive locking'
problem_re+='|inconsistent lock state|suspicious RCU usage|Kernel panic'
problem_re+='|soft lockup|hung_task:|hung_task_timeout|blocked for more than'
problem_re+='|unreferenced object|ODEBUG:|vmtest: checker'

# Console/dmesg problems: "NAME<US>line" (US = \x1f), NAME = test running
# (or last ended) when the line was logged, empty before the first test.
US=$'\x1f'
scan_problems() {
	local f files=()
	for f; do [ -f "$f" ] && files+=("$f"); done
	[ ${#files[@]} -gt 0 ] || return 0
	awk -v pat="$problem_re" '
		{ sub(/\r$/, "") }
		/vmtest: begin / { cur = $0; sub(/.*vmtest: begin /, "", cur); sub(/ .*/, "", cur); next }
		/vmtest: end / { next }
		/vmtest: poweroff/ { cur = "@poweroff"; next }
		$0 ~ pat { print cur "\037" $0 }' "${files[@]}" | awk '!seen[$0]++'
}

# Our modules (the project's and the tests'), as a kernel trace names them.
ours_re='\[(nvme_tcp_prio|nvmet_tcp_prio|xps_flow|pp_frag|xnet_[a-z_]+)[] ]'

# poweroff_ours FILE: exit 0 if a function of one of our modules is in a
# trace the kernel logged after the runner began to power the guest off.
poweroff_ours() {
	# (The regex through the environment: awk -v would eat its escapes.)
	OURS_RE=$ours_re awk '
		{ sub(/\r$/, "") }
		/vmtest: poweroff/ { on = 1; next }
		on && /\+0x[0-9a-f]+\/0x[0-9a-f]+/ && $0 ~ ENVIRON["OURS_RE"] { found = 1; exit }
		END { exit !found }' "$1" 2>/dev/null
}

# poweroff_filter CONSOLE LAST: the problems in $probs (scan_problems'
# lines) logged after the runner's "vmtest: poweroff" mark go to test LAST
# (the boot's last test) when a trace after the mark names a module of
# ours; otherwise out of $probs, into poweroff_notes (at most 5), to be
# reported apart and not counted: e.g. RT's power-off path migrating a
# per-CPU kthread to an offline CPU.
poweroff_filter() {
	local console=$1 last=$2
	poweroff_notes=()
	grep -q "^@poweroff$US" <<<"$probs" || return 0
	if poweroff_ours "$console"; then
		probs=$(awk -F "$US" -v OFS="$US" -v last="$last" \
			'$1 == "@poweroff" { $1 = last } 1' <<<"$probs")
		return 0
	fi
	mapfile -t poweroff_notes < <(grep "^@poweroff$US" <<<"$probs" | cut -d "$US" -f2- | head -n 5)
	probs=$(grep -v "^@poweroff$US" <<<"$probs" || true)
}

# first_trace NAME FILE...: the first problem logged while test NAME ran
# (or before the first test, NAME empty), with its RIP and call trace:
# at most 24 lines, so that a CI log shows where the kernel was.
first_trace() {
	local name=$1
	shift
	awk -v pat="$problem_re" -v want="$name" '
		{ sub(/\r$/, "") }
		/vmtest: begin / { cur = $0; sub(/.*vmtest: begin /, "", cur); sub(/ .*/, "", cur); next }
		/vmtest: end / { next }
		!on && cur == want && $0 ~ pat { on = 1; n = 0; print; next }
		on && n < 23 && /RIP:|Call Trace:|[A-Za-z_][A-Za-z0-9_.]*\+0x[0-9a-f]+\/0x/ { print; n++ }
		on && /<\/TASK>|---\[ end trace/ { exit }' "$@" 2>/dev/null | head -n 24
}
