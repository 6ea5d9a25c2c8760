# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# shellcheck disable=SC2034 # results are for the tests
#
# NVMe/TCP guest tests: socket priorities as sock_diag reports them (ss_*),
# and user-space sockets beside the driver's (usock_*). Sourced by
# lib_nvme.sh, which sets NV_* and SS.
#
# Socket priorities are read with sock_diag: "ss --tos" asks for
# INET_DIAG_CLASS_ID, which 6.1 fills with the cgroup net_cls classid or,
# when that is 0 (always here: no net_cls hierarchy), sk->sk_priority; ss
# prints it as " class_id:%#x" (class_id:0, class_id:0x5). "-e"/"-i" do not
# show it. TIME-WAIT minisockets carry no class_id ("-" below).
#

declare -ga SS_ROWS=() SS_PICK=()

# ---------------------------------------------------------------- ss

# ss_read [NS]: TCP sockets of NS (default init_net) into SS_ROWS, one
# "STATE LOCAL PEER PRIO OWNER" each: PRIO = sk_priority (class_id, decimal;
# "-" when ss shows none, e.g. TIME-WAIT), OWNER = first user-space process
# holding it ("-" for kernel sockets such as nvme-tcp's and nvmet-tcp's).
ss_read() {
	local ns=${1:-} out st l p rest tok prio owner
	SS_ROWS=()
	out=$($SS ${ns:+-N "$ns"} -tanpH --tos 2>&1) || fail "ss ${ns:+-N $ns }failed: $out"
	while read -r st _ _ l p rest; do
		[ -n "$st" ] || continue
		prio=- owner=-
		for tok in $rest; do
			case $tok in
			class_id:*) prio=$((${tok#class_id:})) ;;
			users:*) # users:(("ss",pid=1,fd=3),("bash",pid=2,fd=9))
				# ss itself inherits the test shell's sockets: skip it.
				owner=-
				tok=${tok#users:(}
				while [[ $tok =~ ^\(\"([^\"]*)\"[^\)]*\),?(.*)$ ]]; do
					tok=${BASH_REMATCH[2]}
					[ "${BASH_REMATCH[1]}" = ss ] && continue
					owner=${BASH_REMATCH[1]}
					break
				done
				;;
			esac
		done
		SS_ROWS+=("$st $l $p $prio $owner")
	done <<<"$out"
}

# _ep_match VALUE PATTERN: PATTERN is "*" (any), ":PORT", "ADDR:*" or an
# exact "ADDR:PORT" (IPv6 as [ADDR]:PORT).
_ep_match() {
	case $2 in
	'*') return 0 ;;
	:*) [ "${1##*:}" = "${2#:}" ] ;;
	*:\*) [ "${1%:*}" = "${2%:\*}" ] ;;
	*) [ "$1" = "$2" ] ;;
	esac
}

# ss_pick STATE LOCAL PEER [OWNER]: rows of SS_ROWS into SS_PICK. STATE and
# OWNER: exact or "*"; OWNER "user" = any user-space owner.
ss_pick() {
	local r st l p pr ow
	SS_PICK=()
	for r in "${SS_ROWS[@]}"; do
		read -r st l p pr ow <<<"$r"
		[ "$1" = '*' ] || [ "$1" = "$st" ] || continue
		_ep_match "$l" "$2" || continue
		_ep_match "$p" "$3" || continue
		case ${4:-*} in
		'*') ;;
		user) [ "$ow" != - ] || continue ;;
		*) [ "$ow" = "$4" ] || continue ;;
		esac
		SS_PICK+=("$r")
	done
}

# _count_ok N SPEC: SPEC is "N" (exactly), "N+" (at least) or "*".
_count_ok() {
	case $2 in
	'*') return 0 ;;
	*+) [ "$1" -ge "${2%+}" ] ;;
	*) [ "$1" -eq "$2" ] ;;
	esac
}

# _dump_rows PREFIX ROW...: diagnostics.
_dump_rows() {
	local p=$1 r
	shift
	[ $# -gt 0 ] || { echo "# $p (none)"; return 0; }
	for r; do echo "# $p $r"; done
}

# ss_expect WHAT STATE LOCAL PEER OWNER PRIO COUNT: the SS_ROWS matching
# STATE/LOCAL/PEER/OWNER number COUNT and all have priority PRIO.
ss_expect() {
	local what=$1 want=$6 cnt=$7 r pr bad=()
	ss_pick "$2" "$3" "$4" "$5"
	for r in "${SS_PICK[@]}"; do
		read -r _ _ _ pr _ <<<"$r"
		[ "$pr" = "$want" ] || bad+=("$r")
	done
	if ! _count_ok ${#SS_PICK[@]} "$cnt" || [ ${#bad[@]} -gt 0 ]; then
		_dump_rows "ss:" "${SS_ROWS[@]}"
		fail "$what: ${#SS_PICK[@]} sockets (want $cnt), ${#bad[@]} without priority $want"
	fi
}

# ss_nvme_host PEER...: the host's nvme-tcp sockets (kernel-owned, ESTAB,
# peer one of PEER) of SS_ROWS (init_net) into SS_PICK.
ss_nvme_host() {
	local r st l p pr ow e all=()
	for r in "${SS_ROWS[@]}"; do
		read -r st l p pr ow <<<"$r"
		if [ "$st" != ESTAB ] || [ "$ow" != - ]; then continue; fi
		for e; do
			if [ "$p" = "$e" ]; then all+=("$r"); break; fi
		done
	done
	SS_PICK=("${all[@]}")
}

# ---------------------------------------------------------------- user sockets

# usock_start NS SPEC...: one python3 process in NS ("" = init_net) holding
# user-space TCP sockets: SPEC "L,ADDR,PORT,PRIO" = listener (echoes what
# its accepted sockets receive), "C,ADDR,PORT,PRIO" = client sending 100
# bytes every 0.2 s. PRIO > 0 is set with SO_PRIORITY before bind/connect.
# Waits (15 s) until every socket is set up.
usock_start() {
	local ns=$1 ready py pid
	shift
	py=$XNET_TMP/usock.py
	ready=$XNET_TMP/usock.${ns:-init}.ready
	rm -f "$ready"
	[ -f "$py" ] || cat >"$py" <<-'EOF'
		import os, socket, struct, sys, threading, time
		def echo(c):
		    try:
		        while True:
		            d = c.recv(4096)
		            if not d:
		                return
		            c.sendall(d)
		    except OSError:
		        pass
		def serve(l, keep):
		    while True:
		        c, _ = l.accept()
		        keep.append(c)
		        threading.Thread(target=echo, args=(c,), daemon=True).start()
		keep, clients = [], []
		for spec in sys.argv[2:]:
		    kind, addr, port, prio = spec.split(',')
		    fam = socket.AF_INET6 if ':' in addr else socket.AF_INET
		    s = socket.socket(fam, socket.SOCK_STREAM)
		    if int(prio):
		        s.setsockopt(socket.SOL_SOCKET, socket.SO_PRIORITY,
		                     struct.pack('I', int(prio)))
		    if kind == 'L':
		        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
		        s.bind((addr, int(port)))
		        s.listen(16)
		        threading.Thread(target=serve, args=(s, keep), daemon=True).start()
		    else:
		        s.settimeout(10)
		        s.connect((addr, int(port)))
		        clients.append(s)
		    keep.append(s)
		with open(sys.argv[1] + '.tmp', 'w') as f:
		    f.write('%d\n' % os.getpid())
		os.rename(sys.argv[1] + '.tmp', sys.argv[1])
		while True:
		    for c in clients:
		        c.sendall(b'x' * 100)
		        c.recv(4096)
		    time.sleep(0.2)
	EOF
	if [ -n "$ns" ]; then
		$IP netns exec "$ns" /usr/bin/python3 "$py" "$ready" "$@" \
			>"$ready.log" 2>&1 &
	else
		/usr/bin/python3 "$py" "$ready" "$@" >"$ready.log" 2>&1 &
	fi
	pid=$!
	disown "$pid"
	NV_BGPIDS+=("$pid")
	if ! wait_until 15 test -s "$ready"; then
		while IFS= read -r l; do echo "# usock: $l"; done <"$ready.log"
		fail "user sockets in ${ns:-init_net} not ready after 15 s: $*"
	fi
}
