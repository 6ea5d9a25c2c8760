# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
#
# vmtest's report (sourced by scripts/vmtest.sh): one boot's results as
# KTAP test cases.
#   report_boot KEY   the boot of group KEY (plan_boots), run in directory
#                     $d with tests gt (cpus, mem, append, icount its
#                     settings, boot_rc/boot_t0/boot_wall from boot()):
#                     prints the boot's line and one result per test, with
#                     the console problems of each and, for a test that
#                     failed, the kernel's first trace; counts num, passed,
#                     failed, skipped and baseline.
# (Sourced: the globals it reads and sets are vmtest's.)
# shellcheck disable=SC2034,SC2154

report_boot() {
	local key=$1 first ic probs stopped i t name block result tw line j who
	local -a why
	# Boot to first test: host wall clock (the guest made 1.begin over 9p).
	first='?'
	if [ -f "$d/res/1.begin" ]; then
		first=$(awk -v a="$boot_t0" -v b="$(stat -c %.3Y "$d/res/1.begin")" \
			'BEGIN { printf "%.1f", b - a }')
	fi
	ic=
	[ "$icount" = 1 ] && ic=" icount"
	[ "$icount" = single ] && ic=" tcg=single"
	echo "# vmtest: boot $nboot (cpus=$cpus mem=$mem append='$append${opt_append:+ $opt_append}'$ic):" \
		"tests: ${#gt[@]}, first test ${first} s after QEMU start, boot total ${boot_wall} s"
	# Problems outside any test: before the first one -> first test.
	probs=$(scan_problems "$d/console.log" "$d/res/dmesg.txt")
	# After the power-off began (every test done): the last test's, or
	# reported apart (lib_console.sh).
	poweroff_filter "$d/console.log" "$(basename "${gt[${#gt[@]} - 1]}" .sh)"
	for line in "${poweroff_notes[@]}"; do
		echo "# vmtest: after power-off, no module of ours in the trace (not counted): $line"
	done
	stopped=
	for ((i = 1; i <= ${#gt[@]}; i++)); do
		t=${gt[i - 1]}
		name=$(basename "$t" .sh)
		num=$((num + 1))
		why=()
		while IFS=$US read -r who line; do
			[ -n "$line" ] || continue
			if [ "$who" = "$name" ] || { [ -z "$who" ] && [ "$i" -eq 1 ]; }; then
				why+=("console: $line")
			fi
		done <<<"$probs"
		if [ -f "$d/res/$i.done" ]; then
			block=$(sed '$d' "$d/res/$i.ktap")
			result=$(tail -n 1 "$d/res/$i.ktap" |
				sed -E "s/^(not )?ok [0-9]+ /\\1ok $num /")
		else
			result="not ok $num $name"
			block=
			if [ -n "$stopped" ]; then
				why+=("not run: $stopped")
			elif [ -f "$d/res/$i.begin" ]; then
				block=$(sed 's/^/    # /' "$d/res/$i.log" 2>/dev/null)
				if [ -f "$d/watch.timeout" ]; then
					stopped="guest ended: $name overran"
					why+=("timeout: $(cat "$d/watch.timeout")")
				elif [ "$boot_rc" -eq 124 ]; then
					stopped="guest timed out in $name"
					why+=("timeout after ${grp_timeout[$key]} s (per boot) in $name")
				else
					stopped="guest stopped in $name"
					why+=("guest stopped (qemu exit $boot_rc) while $name was running")
				fi
			else
				stopped="guest failed before the first test (qemu exit $boot_rc)"
				why+=("not run: $stopped")
				if [ -f "$d/watch.timeout" ]; then
					why+=("timeout: $(cat "$d/watch.timeout")")
				elif [ "$boot_rc" -eq 124 ]; then
					why+=("timeout after ${grp_timeout[$key]} s")
				fi
				while IFS= read -r line; do why+=("qemu: $line"); done <"$d/qemu.out"
				tail -n 5 "$d/console.log" >"$d/console.tail"
				while IFS= read -r line; do why+=("console: ${line%$'\r'}"); done <"$d/console.tail"
			fi
		fi
		if [ ${#why[@]} -gt 0 ]; then
			result="not ok $num $name"
			# Where the kernel was: before the list, which a CI
			# summary may cut.
			tw=$name
			[ "$i" -ne 1 ] || [ -n "$(first_trace "$name" "$d/console.log")" ] || tw=
			while IFS= read -r line; do
				[ -z "$line" ] || block+=${block:+$'\n'}"    # vmtest: trace: $line"
			done < <(first_trace "$tw" "$d/console.log")
			for ((j = 0; j < ${#why[@]} && j < 12; j++)); do
				block+=${block:+$'\n'}"    # vmtest: ${why[j]}"
			done
		fi
		# A baseline passes or fails like any test, but is not counted
		# as a passed test of the project: it tests the tools.
		if [ "${t_baseline[$t]}" = 1 ] && [[ $result == ok* ]] && [[ $result != *'# SKIP'* ]]; then
			result+=" # baseline (stock kernel code only: validates the test tools)"
		fi
		[ -z "$block" ] || printf '%s\n' "$block"
		echo "$result"
		case $result in
		ok*'# SKIP'*) skipped=$((skipped + 1)) ;;
		ok*'# baseline'*) baseline=$((baseline + 1)) ;;
		ok*) passed=$((passed + 1)) ;;
		*) failed=$((failed + 1)) ;;
		esac
	done
}
