#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
# vmtest: stock61="Debian's own build and config: every module loads, shows its version and unloads"
# vmtest: rt="every module's init and exit, its locks and allocations, on RT"
#
# Each module: modinfo has license GPL, a description and dkms.conf's
# version, insmod works, it is in /proc/modules with that version in
# /sys/module/<name>/version, rmmod works, it is gone, and the kernel has no
# taint beyond O|E. One KTAP subtest per module.
set -euo pipefail
# shellcheck source=tests/vm/lib.sh
. "${XNET_VM_LIB:-$XNET_SRC/tests/vm/lib.sh}"

VER=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$XNET_SRC/dkms.conf")
[ -n "$VER" ] || fail "no PACKAGE_VERSION in $XNET_SRC/dkms.conf"
MODS=(nvme_tcp_prio/nvme_tcp_prio nvmet_tcp_prio/nvmet_tcp_prio xps_flow/xps_flow
	pp_frag/pp_frag)

load_unload() {
	local m=$1 name ko k v lic='' desc='' ver=''
	name=${m##*/}
	ko=$(mod_path "$m")
	[ -f "$ko" ] || fail "$ko not found (build the modules with 'make' first)"
	while IFS=: read -r k v; do
		v=${v#"${v%%[![:space:]]*}"}
		case $k in
		license) lic=$v ;;
		description) desc=$v ;;
		version) ver=$v ;;
		esac
	done < <(/sbin/modinfo "$ko")
	[[ $lic =~ ^GPL ]] || fail "$name: license '$lic', expected GPL"
	[ -n "$desc" ] || fail "$name: no MODULE_DESCRIPTION"
	[ "$ver" = "$VER" ] || fail "$name: modinfo version '$ver', dkms.conf says '$VER'"
	! mod_loaded "$name" || fail "$name already loaded"
	load_mod "$m"
	mod_loaded "$name" || fail "$name not in /proc/modules after insmod"
	rd "/sys/module/$name/version"
	[ "$R" = "$VER" ] || fail "$name: /sys/module/$name/version '$R', want '$VER'"
	unload_mod "$name"
	! mod_loaded "$name" || fail "$name still in /proc/modules after rmmod"
	check_taint "$TAINT_OK_DEFAULT"
	ktap_diag "$name $ver: '$desc' loads and unloads (taint $(taint_now))"
}

ktap_plan ${#MODS[@]}
for m in "${MODS[@]}"; do
	ktap_result "${m##*/}" load_unload "$m"
done
ktap_finish
