#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# Helpers the benchmark scripts share: logging, ending our own PIDs, free
# ports, running a tool so that INT/TERM are handled at once, and how busy
# the other tenants keep the machine. Sourced, not run.

log() { printf '%s\n' "$*" >&2; }

stop_pid() { # PID: TERM, then KILL after ~3 s; only PIDs we started
	local pid=$1 _
	[ -n "$pid" ] || return 0
	kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
	kill -TERM "$pid" 2>/dev/null
	for _ in $(seq 30); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	kill -0 "$pid" 2>/dev/null && kill -KILL "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	return 0
}

# A port that no TCP or UDP socket (v4 or v6) is bound to right now.
port_in_use() {
	local hex
	hex=$(printf ':%04X' "$1")
	awk -v h="$hex" 'NR > 1 && substr($2, length($2) - 4) == h { f = 1 } END { exit !f }' \
		/proc/net/tcp /proc/net/tcp6 /proc/net/udp /proc/net/udp6 2>/dev/null
}

free_port() {
	local p _
	for _ in $(seq 200); do
		p=$((20000 + RANDOM % 40000))
		port_in_use "$p" || { echo "$p"; return 0; }
	done
	return 1
}

wait_bound() { # PORT PROTO(tcp|udp) PID: wait until PORT is bound (5 s)
	local _
	for _ in $(seq 50); do
		kill -0 "$3" 2>/dev/null || return 1
		awk -v h="$(printf ':%04X' "$1")" 'NR > 1 && substr($2, length($2) - 4) == h { f = 1 } END { exit !f }' \
			"/proc/net/$2" && return 0
		sleep 0.1
	done
	return 1
}

# Run a command in the background and wait for it, so that INT/TERM are
# handled at once (the EXIT trap then ends it by its PID).
run_wait() { # OUT ERR CMD...
	local o=$1 e=$2
	shift 2
	if [ "$o" = "$e" ]; then
		"$@" >"$o" 2>&1 &
	else
		"$@" >"$o" 2>"$e" &
	fi
	CUR_PID=$!
	wait "$CUR_PID"
	local rc=$?
	CUR_PID=
	return $rc
}

# Busy share of all cpus (from /proc/stat) over SECS seconds, nothing of ours
# running: how much the other tenants of the machine use.
busy_probe() { # SECS
	local a b
	a=$(head -n 1 /proc/stat)
	sleep "$1"
	b=$(head -n 1 /proc/stat)
	awk -v a="$a" -v b="$b" 'BEGIN {
		n = split(a, x); split(b, y); t = 0
		for (i = 2; i <= 9 && i <= n; i++) t += y[i] - x[i]   # user..steal
		idle = (y[5] - x[5]) + (y[6] - x[6])                 # idle + iowait
		v = (t > 0) ? 100 * (t - idle) / t : 0
		printf "%.0f%%", v }'
}

# need_tools SCRIPT CMD:PACKAGE...: install the Debian package of each
# command that is missing (one apt-get for all), or exit naming them.
need_tools() {
	local me=$1 c sudo=
	local -a need=()
	shift
	for c in "$@"; do
		command -v "${c%%:*}" >/dev/null || need+=("${c#*:}")
	done
	[ ${#need[@]} -gt 0 ] || return 0
	log "$me: installing ${need[*]}"
	[ "$(id -u)" -eq 0 ] || sudo=sudo
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get install -y "${need[@]}" >&2 ||
		{ $sudo apt-get update >&2 && $sudo apt-get install -y "${need[@]}" >&2; } ||
		{ log "$me: cannot install ${need[*]}"; exit 1; }
}

# need_netregress SCRIPT REPO: $NR as given by NETREGRESS, else built with
# make in REPO (an older binary goes on when make fails), or exit.
need_netregress() {
	if [ -n "${NETREGRESS:-}" ]; then
		[ -x "$NR" ] || { log "$1: NETREGRESS=$NR is not executable"; exit 1; }
	elif ! make -C "$2" >&2; then
		[ -x "$NR" ] || { log "$1: building netregress failed"; exit 1; }
		log "$1: make failed; going on with the existing $NR"
	fi
}

# nr_version: the first line of $NR --version, which names the git
# revision the binary was built from ("-dirty" when the tree had changes).
nr_version() {
	local v
	v=$("$NR" --version 2>/dev/null | head -n 1)
	echo "${v:-netregress (no --version)}"
}

# machine_line: the header's machine line: CPUs, kernel, CPU model, and
# the tcp congestion control the tools get by default (a loopback
# tcp_stream reads 23 Gbps with bbr here, 37 with cubic).
machine_line() {
	local cc
	cc=$(cat /proc/sys/net/ipv4/tcp_congestion_control 2>/dev/null)
	echo "machine : $(nproc) cpus, $(uname -r) ($(uname -m)), $(sed -n 's/^model name[^:]*: //p' /proc/cpuinfo | head -n 1); tcp congestion control ${cc:-unknown} (the default)"
}

# stop_sockperf PID [TENTHS]: a sockperf server prints its summary on INT;
# give it TENTHS of a second (30) to finish, then end it by its PID.
stop_sockperf() {
	local _
	[ -n "$1" ] || return 0
	kill -INT "$1" 2>/dev/null
	for _ in $(seq "${2:-30}"); do
		kill -0 "$1" 2>/dev/null || break
		sleep 0.1
	done
	stop_pid "$1"
}

# sockperf_valid TEXT: "secs received" of the last [Valid Duration] line of
# a sockperf client's output (colours already stripped), or nothing.
sockperf_valid() {
	sed -n 's/.*\[Valid Duration\] RunTime=\([0-9.]*\) sec;.*ReceivedMessages=\([0-9]*\).*/\1 \2/p' <<<"$1" | tail -n 1
}

# An awk function for the programs below: the upper 2.5% point of Student t
# with df degrees of freedom (Cornish-Fisher series about the normal
# quantile; within 0.1% from df = 5 on).
AWK_T975='
function t975(df,   z) {
	z = 1.959964
	return z + (z^3 + z) / (4 * df) + (5 * z^5 + 16 * z^3 + 3 * z) / (96 * df^2) \
		+ (3 * z^7 + 19 * z^5 + 17 * z^3 - 15 * z) / (384 * df^3)
}'

# paired_ratios NUM DEN COL: the ratios NUM/DEN of column COL between the
# lines of files NUM and DEN that have the same repetition number (column 1;
# the runs of one repetition ran back to back), as "n geomean lo hi median":
# the geometric mean with its 95% confidence interval (Student t on the log
# ratios; "-" for lo and hi below 3 pairs) and the median ratio, or
# "0 - - - -" without a pair.  Adjacent runs share the machine's slow and
# fast spells, so the pairs cancel drifts that medians of each side keep.
paired_ratios() {
	if [ ! -s "$1" ] || [ ! -s "$2" ]; then
		echo "0 - - - -"
		return
	fi
	awk -v col="$3" "$AWK_T975"'
	NR == FNR { den[$1] = $col; next }
	($1 in den) && den[$1] > 0 && $col > 0 { r[++n] = $col / den[$1]; l = log(r[n]); s += l; ss += l * l }
	function sort(v, n,   i, j, x) {
		for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
	}
	END { if (!n) { print "0 - - - -"; exit }
		m = s / n
		sort(r, n); md = n % 2 ? r[(n + 1) / 2] : (r[n / 2] + r[n / 2 + 1]) / 2
		if (n < 3) { printf "%d %.6g - - %.6g\n", n, exp(m), md; exit }
		var = (ss - n * m * m) / (n - 1); if (var < 0) var = 0
		h = t975(n - 1) * sqrt(var / n)
		printf "%d %.6g %.6g %.6g %.6g\n", n, exp(m), exp(m - h), exp(m + h), md }' "$2" "$1"
}

# pooled_ratio FILE: runs that each measured a ratio with a 95% interval, one
# line each "ratio lo hi pairs" (the interval a Student t one from `pairs`
# pairs), pooled as a fixed-effect (inverse-variance) mean on the log scale:
# "runs pooled lo hi" with a normal 95% interval (a single run: its own),
# or "0 - - -".  Every run
# estimates the same cost, so its weight is how precisely it did.
pooled_ratio() {
	[ -s "$1" ] || { echo "0 - - -"; return; }
	awk "$AWK_T975"'
	$1 > 0 && $2 > 0 && $3 > $2 && $4 >= 2 {
		se = (log($3) - log($2)) / (2 * t975($4 - 1)); w = 1 / (se * se)
		sw += w; swm += w * log($1); n++; r = $1; lo = $2; hi = $3 }
	END { if (!n) { print "0 - - -"; exit }
		if (n == 1) { printf "1 %.6g %.6g %.6g\n", r, lo, hi; exit }
		m = swm / sw; h = 1.959964 / sqrt(sw)
		printf "%d %.6g %.6g %.6g\n", n, exp(m), exp(m - h), exp(m + h) }' "$1"
}

# metric_values FILE NAME...: the values of the named metrics of a
# netregress --json document, space separated, or nothing when one is
# missing (or the file is not such a document).
metric_values() {
	local f=$1
	shift
	jq -r --args '.metrics as $m | [ $ARGS.positional[] | $m[.].value ]
		| if any(. == null) then empty else map(tostring) | join(" ") end' "$@" <"$f" 2>/dev/null
}

# pick_rows SCRIPT: with ONLY set (a space-separated list of row names),
# keep only those rows of ROWS, in ONLY's order; a name that is not a row
# (not a key of DESC) exits 2 naming it and the rows there are.
pick_rows() {
	local r
	[ -n "${ONLY:-}" ] || return 0
	for r in $ONLY; do
		[ -n "${DESC[$r]:-}" ] || { echo "$1: ONLY names '$r', which is not a row; rows: ${ROWS[*]}" >&2; exit 2; }
	done
	read -r -a ROWS <<<"$ONLY"
}

# need_count SCRIPT NAME MIN [UNIT]: the variable NAME must be a whole
# number of at least MIN (UNIT, e.g. "seconds", in the message), or exit 2.
need_count() {
	local v=${!2-} what
	case $3 in 0) what="a whole number" ;; 1) what="a positive integer" ;; *) what="an integer >= $3" ;; esac
	case $v in
	'' | *[!0-9]*) ;;
	*) [ "$v" -ge "$3" ] && return 0 ;;
	esac
	echo "$1: $2 must be $what${4:+ ($4)}, not '$v'" >&2
	exit 2
}

# stamp_start [busy] / stamp_end [busy]: START_DATE START_S LOAD0 (and
# BUSY0, a 2 s probe of the other tenants) / END_DATE END_S LOAD1 (BUSY1),
# for the header of a table (set here for the script that sources this).
# shellcheck disable=SC2034,SC2120
stamp_start() {
	START_DATE=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
	START_S=$(date +%s)
	LOAD0=$(cut -d' ' -f1-3 /proc/loadavg)
	[ "${1:-}" = busy ] && BUSY0=$(busy_probe 2)
	return 0
}
# shellcheck disable=SC2034,SC2120
stamp_end() {
	END_DATE=$(date -u '+%Y-%m-%d %H:%M:%S UTC')
	END_S=$(date +%s)
	LOAD1=$(cut -d' ' -f1-3 /proc/loadavg)
	[ "${1:-}" = busy ] && BUSY1=$(busy_probe 2)
	return 0
}
