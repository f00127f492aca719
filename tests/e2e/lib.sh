# SPDX-License-Identifier: GPL-2.0-only
# Shared helpers for the end-to-end tests: TAP output, JSON queries, servers.
# Every process a test starts is recorded and ended by PID on exit.
set -u
NR=${NR_BIN:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)/build/netregress}
# a test may cd: NR_BIN=build/san/netregress still names that binary
case $NR in /*) ;; *) NR=$PWD/$NR ;; esac
TMP=$(mktemp -d /tmp/nr-e2e.XXXXXX)
PIDS=()
NETNS=()
# samples of the tests never land in the working tree
export NETREGRESS_DB=$TMP/netregress.db
tap_n=0

cleanup() {
	local p
	for p in "${PIDS[@]}"; do
		kill "$p" 2>/dev/null
	done
	for p in "${PIDS[@]}"; do
		wait "$p" 2>/dev/null
	done
	for p in "${NETNS[@]}"; do
		ip netns del "$p" 2>/dev/null
	done
	rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

ok() { tap_n=$((tap_n + 1)); echo "ok $tap_n - $*"; }
not_ok() { tap_n=$((tap_n + 1)); echo "not ok $tap_n - $*"; }

# The predicates (pred.py) write what they saw to NR_EVIDENCE; a check
# collects there bash's trace of the clauses its command ran, with the
# values expanded, and shows it after a "not ok" as TAP comments.
PRED=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/pred.py
export NR_EVIDENCE=$TMP/evidence
CHECK_OUT=$TMP/check.out
_status() { return "$1"; }
# _check_run STATUS COMMAND...: COMMAND, with $? at STATUS when it starts
# (what the line before the check left), its stdout kept in CHECK_OUT and
# its trace in NR_EVIDENCE; COMMAND's status
_check_run() {
	local st=$1 xfd
	shift
	: >"$NR_EVIDENCE"
	if [[ $- == *x* ]]; then # the suite is traced as a whole: leave that be
		_status "$st"
		"$@" >"$CHECK_OUT"
		return
	fi
	exec {xfd}>>"$NR_EVIDENCE"
	BASH_XTRACEFD=$xfd
	set -x
	_status "$st"
	"$@" >"$CHECK_OUT"
	{ st=$?; set +x; } 2>/dev/null
	unset BASH_XTRACEFD # closes xfd
	return "$st"
}
# _check_report DESCRIPTION STATUS: the TAP line; after a failure the
# evidence: the last clauses run (bash's trace, without the helpers'
# own lines), what the predicates saw, what the command printed
_check_report() {
	if [ "$2" -eq 0 ]; then
		ok "$1"
		cat "$CHECK_OUT"
		return 0
	fi
	not_ok "$1"
	grep -vE '^\++ (_status [0-9]+|return [0-9]+|st=[0-9]+|set \+x|pred (jtrue|jpy) .*|python3 -S [^ ]*/pred\.py .*)$' "$NR_EVIDENCE" |
		tail -n 30 | cut -c 1-600 | sed 's/^/# /'
	if [ -s "$CHECK_OUT" ]; then
		echo "# printed:"
		head -n 20 "$CHECK_OUT" | sed -E 's/^(# )?/# /'
	fi
	return 1
}
# check DESCRIPTION COMMAND...: one TAP line from a command's status;
# returns 1 when it failed, for "check ... || diag ..."
check() {
	local st=$? d=$1
	shift
	_check_run "$st" "$@"
	_check_report "$d" $?
}
# checkx DESCRIPTION 'SHELL CONDITION': one TAP line from a compound
# condition; $? in it is the status of the command before the checkx
checkx() {
	local st=$? d=$1
	_check_run "$st" eval "$2"
	_check_report "$d" $?
}
# check_all DESCRIPTION -- COMMAND... [-- COMMAND...]: one TAP line that
# holds when every command succeeds; each runs, and each failure is shown
check_all() {
	local st=$? d=$1 rc=0
	local -a cmd=()
	shift
	[ "${1-}" = -- ] && shift
	: >"$TMP/check_all.ev"
	: >"$TMP/check_all.out"
	while [ $# -gt 0 ]; do
		cmd=()
		while [ $# -gt 0 ] && [ "$1" != -- ]; do
			cmd+=("$1")
			shift
		done
		[ $# -gt 0 ] && shift
		if ! _check_run "$st" "${cmd[@]}"; then
			rc=1
			cat "$NR_EVIDENCE" >>"$TMP/check_all.ev"
		fi
		cat "$CHECK_OUT" >>"$TMP/check_all.out"
	done
	mv "$TMP/check_all.ev" "$NR_EVIDENCE"
	mv "$TMP/check_all.out" "$CHECK_OUT"
	_check_report "$d" $rc
}
# diag FILE [ERE]: a failed check's evidence as TAP comments, the lines of
# FILE that match ERE (all when none is given), at most 20
diag() {
	grep -E -- "${2:-.}" "$1" 2>/dev/null | head -n 20 | sed 's/^/# /'
}
# pred NAME ARGS...: a predicate or query of pred.py; it needs only the
# standard library, and -S spares each call site-packages' start-up
pred() { python3 -S "$PRED" "$@"; }
# jpy FILE 'expression over d': prints the result (pred.py jpy)
jpy() { pred jpy "$1" "$2"; }
# jtrue FILE EXPR: succeeds when the expression holds; else its failing
# clause and the values read go to the check's evidence (pred.py jtrue)
jtrue() { pred jtrue "$1" "$2"; }

# wait_host: until the host steals under 1% of the busy CPUs (host.sh),
# at most 40 s. A try the host stole from is measured again only once its
# spell is over: a spell of 16-18% lasted through three tries a few
# seconds apart.
. "$(dirname "${BASH_SOURCE[0]}")/../host.sh"
wait_host() {
	host_quiet 40 || echo "# the host stole 1% of the cpus or more for 40 s"
}

# wait_file FILE: until FILE is not empty (what a starting process writes
# once it is ready: a port, a PID), at most 5 s
wait_file() {
	for _ in $(seq 100); do
		[ -s "$1" ] && return 0
		sleep 0.05
	done
	return 1
}

# start_server [serve options...]: sets SRV_PID and SRV_PORT
start_server() {
	local pf="$TMP/port.$RANDOM"
	"$NR" serve --port 0 --bind 127.0.0.1 --ready-fd 3 "$@" 3>"$pf" 2>>"$TMP/server.log" &
	SRV_PID=$!
	PIDS+=("$SRV_PID")
	wait_file "$pf"
	SRV_PORT=$(head -n1 "$pf")
	[ -n "$SRV_PORT" ]
}

# A TCP port on 127.0.0.1 that nothing listens on.
free_port() {
	python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

alive() { kill -0 "$1" 2>/dev/null; }
# running: alive and not a zombie waiting for an init that does not reap
running() { local st; st=$(ps -o stat= -p "$1" 2>/dev/null) && [ -n "$st" ] && [ "${st#Z}" = "$st" ]; }

# Short runs keep the suite fast; invariants do not depend on length.
RUN_SHORT=(-l 1s --warmup 200ms)

# make_netns: a fresh network namespace with loopback up, removed on exit;
# its name in NS_NAME (not printed: a $(...) subshell would lose the record
# that removes it). Names carry the nrtest- prefix: nothing else is touched.
make_netns() {
	NS_NAME="nrtest-$$-$RANDOM"
	ip netns add "$NS_NAME" || return 1
	NETNS+=("$NS_NAME")
	ip -n "$NS_NAME" link set lo up || return 1
}

# shaped RATE CMD...: CMD in a fresh namespace whose lo runs at RATE (TBF),
# the namespace removed after it; CMD's status, 3 when the namespace fails
shaped() {
	local rate=$1 ns="nrtest-$$-$RANDOM" rc
	shift
	ip netns add "$ns" || return 3
	NETNS+=("$ns")
	ip -n "$ns" link set lo up || return 3
	ip netns exec "$ns" tc qdisc add dev lo root tbf rate "$rate" burst 196650 limit 1500000 || return 3
	ip netns exec "$ns" "$@"
	rc=$?
	ip netns del "$ns"
	return $rc
}
