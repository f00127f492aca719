#!/usr/bin/env bash
# bench/noise.sh - run-to-run noise of netregress against the peer tools
# (iperf3, sockperf) on loopback (127.0.0.1) only: the coefficient of
# variation of each tool's figure over repeated runs.
#
# Usage: bench/noise.sh            (REPS=7, DUR=10 by default)
#        REPS=2 DUR=2 bench/noise.sh
#
# Rows (1 flow each; every tool with its own defaults and no pinning options:
# ours applies its default placement policy, the peers are not pinned):
#   tcp_stream, default msg   ours tcp_stream            vs iperf3 (defaults)
#   udp_stream 1452 B         ours udp_stream -m 1452    vs iperf3 -u -b 0 -l 1452
#   tcp_rr 64 B               ours tcp_rr -r 64,64       vs sockperf ping-pong --tcp -m 64
# Figures: receiver-side Gbps (ours throughput.gbps; iperf3 -J
# end.sum_received.bits_per_second, or for UDP when that is absent end.sum
# scaled by 1 - lost_percent/100) and transactions/s (ours
# transactions.per_s; sockperf ReceivedMessages / RunTime of its "[Valid
# Duration]" line, as bench/rr.sh reads it, with --full-rtt).
#
# Each repetition runs every row once, and within a row ours first and then
# the peer (A B A B ... across repetitions).  The table (stdout) gives for
# every row and tool the median and the coefficient of variation (sample
# standard deviation / mean) over all runs; for ours also over the runs not
# flagged window.disturbed (foreign CPU load over 10% of the machine, a
# worker kept from its CPU over 5% of its time: window.starved, or the
# host's steal on the test's CPUs over 2% of the window: window.stolen),
# with the count kept.  Then ours' CoV / the best peer's CoV and the target:
# ours' CoV at most half the peer's.  Ours' CoV there is the one over the
# runs kept when at most one run was left out, else the one over all runs.
# Progress and per-run figures go to stderr.
#
# The machine's own floor: every repetition also times a fixed amount of
# plain copying, `dd if=/dev/zero of=/dev/null bs=1M` pinned to cpu 0 (sized
# at the start to take about DUR seconds), and the table ends with its
# coefficient of variation.  No network and no tool of ours in it: what it
# moves is how fast this machine copies memory from one run to the next,
# which bounds every row above (loopback traffic is mostly copies).
#
# How far the ratio can be trusted: a cov from 7 runs is itself noisy, so
# each row's ratio gets the 95% interval of a ratio of two standard
# deviations of normal runs (F with n - 1 degrees of freedom a side, the
# quantiles from GSL through python3's ctypes) and says whether it lies
# below 0.50, above it, or holds it. With 7 runs a side the interval spans
# the ratio / 2.41 to the ratio x 2.41.
#
# What went with ours' figure: ours' stream runs carry its CPU speed probe
# (host.speed, on by default for streams, and the core's pace between
# interruptions, host.speed.core), and every run the TCP socket
# backlog (netstat.TcpExt.TCPBacklogCoalesce.per_mb), the context
# switches per MB and the cross-CPU round trip between ours' client and
# server CPUs (host.xcpu_ns); the table ends with, per row, how much each
# moved over ours' runs and its correlation with ours' figure (r^2: the
# share of ours' run-to-run variance that went with it), how many of ours'
# runs mixed levels within their window (window.mixed) and in how many the
# host moved the CPUs (window.xcpu_moved; a run's stderr line gives how
# much of such a window they sat far apart, far=, window.xcpu_far_pct).
# Each peer's run has the same
# cross-CPU probe beside it (`netregress probe`, the rounds ours' runs do
# every 100 ms, at the same cost), so the peer's figure is set against the
# distance of its own run, not ours' run before it: the host moves the
# vCPUs within seconds, and a distance read at another time would hide how
# closely a peer follows it.
#
# Environment:
#   REPS   repetitions of each row (default 7)
#   DUR    seconds of each run (default 10): ours -l DUR (after its default
#          2 s warm-up), iperf3 -t DUR, sockperf -t DUR
#   ONLY   the rows to run, of: tcp_stream udp_1452 tcp_rr (default all
#          three), e.g. ONLY=tcp_rr
#   OURS_EXTRA  more options for every run of ours, e.g. --cpu-latency 0;
#          the header says so, and the target, which is over ours' default
#          policy, is then marked "(not default)"
#   CONT   1 (default): after the repetitions, one run of ours per row of
#          REPS x DUR seconds, cut into REPS blocks of DUR (the table's
#          "machine pace" lines: how much the machine's pace moved over
#          time, which every run of any tool holds); 0 skips it
#   NETREGRESS  a netregress binary to measure instead of building
#          $repo/build/netregress with make (e.g. a copy kept apart from a
#          tree that is being rebuilt)
#
# The script talks to 127.0.0.1 only, starts one `netregress serve` and one
# iperf3 server on free ports (a fresh sockperf server per run), and on every
# exit path ends the processes it started, by PID.
# shellcheck disable=SC2059,SC2086  # printf formats in variables, option lists that split
set -u -o pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh disable=SC1091  # followed with shellcheck -x
. "$repo/bench/lib.sh"
REPS=${REPS:-7}
DUR=${DUR:-10}
HOST=127.0.0.1
NR=${NETREGRESS:-$repo/build/netregress}
OURS_EXTRA=${OURS_EXTRA:-}

CONT=${CONT:-1}
need_count noise.sh REPS 1
need_count noise.sh DUR 1 seconds
case $CONT in 0 | 1) ;; *) log "noise.sh: CONT='$CONT': expected 0 or 1"; exit 2 ;; esac

# ---------------------------------------------------------------- cleanup
tmp=
SERVE_PID=
IPERF_PID=
SOCKPERF_PID=
PROBE_PID=
CUR_PID=

cleanup() {
	trap - EXIT INT TERM HUP
	stop_pid "$CUR_PID"
	stop_pid "$PROBE_PID"
	stop_pid "$SOCKPERF_PID"
	stop_pid "$IPERF_PID"
	stop_pid "$SERVE_PID"
	[ -n "$tmp" ] && rm -rf -- "$tmp"
}
trap cleanup EXIT
trap 'log "noise.sh: interrupted"; exit 130' INT
trap 'log "noise.sh: terminated"; exit 143' TERM HUP

# ---------------------------------------------------------------- setup
need_tools noise.sh iperf3:iperf3 sockperf:sockperf jq:jq timeout:coreutils dd:coreutils taskset:util-linux python3:python3
need_netregress noise.sh "$repo"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/noise.XXXXXX")
TMO=$((DUR + 2 + 40)) # ours' default warm-up is 2 s

# ---------------------------------------------------------------- servers
# start_server NAME PIDVAR PORTVAR CMD... : CMD gets the port appended; waits
# until it is bound (3 tries on fresh ports).
SERVE_PORT=
IPERF_PORT=
start_server() {
	local name=$1 pidvar=$2 portvar=$3 port _
	shift 3
	stop_pid "${!pidvar}"
	printf -v "$pidvar" '%s' ""
	for _ in 1 2 3; do
		port=$(free_port) || break
		"$@" "$port" >"$tmp/$name.log" 2>&1 &
		printf -v "$pidvar" '%s' "$!"
		printf -v "$portvar" '%s' "$port"
		wait_bound "$port" tcp "${!pidvar}" && return 0
		stop_pid "${!pidvar}"
		printf -v "$pidvar" '%s' ""
	done
	log "noise.sh: cannot start the $name server: $(tail -n 3 "$tmp/$name.log" | tr '\n' ' ')"
	return 1
}
start_serve() { start_server serve SERVE_PID SERVE_PORT "$NR" serve --bind "$HOST" --port; }
start_iperf3() { start_server iperf3 IPERF_PID IPERF_PORT iperf3 -s -B "$HOST" -p; }
alive() { [ -n "$1" ] && kill -0 "$1" 2>/dev/null; }

# The runners below run in the main shell (never in $(...)), so that the
# traps and the PIDs they keep stay right; each leaves its result in RES as
# "value disturbed note" (disturbed: 0/1 for ours, 0 for the peers) and
# returns 0, or returns 1.
RES=

# ---------------------------------------------------------------- ours
# run_ours METRIC TEST ARGS... (against the one `netregress serve`; a
# window of OURS_DUR seconds where that is set, else DUR)
run_ours() {
	local metric=$1 out="$tmp/ours.json" err="$tmp/ours.err" res rc
	shift
	RES=
	alive "$SERVE_PID" || start_serve || return 1
	run_wait "$out" "$err" timeout -k 5 "$((${OURS_DUR:-$DUR} + TMO - DUR))" "$NR" run "$@" $OURS_EXTRA \
		-H "$HOST" -p "$SERVE_PORT" -l "${OURS_DUR:-$DUR}s" --json --no-store
	rc=$?
	res=$(jq -r --arg k "$metric" '
		.metrics as $m
		| [ $m[$k].value, ($m["window.disturbed"].value // "?"),
		    ("foreign=" + (if $m["cpu.foreign_busy_pct"] then ($m["cpu.foreign_busy_pct"].value * 10
		                   | round / 10 | tostring) + "%" else "n/a" end)),
		    ("procs=" + (if $m["cpu.foreign_tasks_pct"] then ($m["cpu.foreign_tasks_pct"].value * 10
		                 | round / 10 | tostring) + "%" else "n/a" end)),
		    ("stolen=" + (if $m["cpu.stolen_pct"] then ($m["cpu.stolen_pct"].value * 10
		                  | round / 10 | tostring) + "%" else "n/a" end)),
		    ("wait=" + ([$m["cpu.client.runq_wait_others_pct"].value, $m["cpu.server.runq_wait_others_pct"].value]
		                | map(select(. != null)) | if length > 0 then (max * 10 | round / 10 | tostring) + "%"
		                  else "-" end)),
		    ("cpus=" + (.config.params.cpus // "?") + "/" + (.config.params.remote_cpus // "?")),
		    ("speed=" + (($m["host.speed"].value // null) | if . then (. * 10 | round / 10 | tostring) else "-" end)),
		    ("core=" + (($m["host.speed.core"].value // null) | if . then (. * 10 | round / 10 | tostring) else "-" end)),
		    ("mixed=" + (($m["window.mixed"].value // null) | if . == null then "-" else tostring end)),
		    ("levels=" + (if $m["window.level_lo_pct"] then
		                    ($m["window.level_lo_pct"].value | round | tostring) + "-" +
		                    ($m["window.level_hi_pct"].value | round | tostring) + "%"
		                  else "-" end)),
		    ("backlog=" + (($m["netstat.TcpExt.TCPBacklogCoalesce.per_mb"].value // null)
		                   | if . then (. * 100 | round / 100 | tostring) else "-" end)),
		    ("ctxt=" + (($m["stat.ctxt.per_mb"].value // null)
		                | if . then (. * 100 | round / 100 | tostring) else "-" end)),
		    ("sw=" + ([$m["cpu.client.workers_switches.per_mb"].value // $m["cpu.client.workers_switches.per_trans"].value,
		               $m["cpu.server.workers_switches.per_mb"].value // $m["cpu.server.workers_switches.per_trans"].value]
		              | map(if . == null then "-" else (. * 100 | round / 100 | tostring) end) | join("/"))),
		    ("ipi=" + ([$m["irq.CAL.per_mb"].value // $m["irq.CAL.per_trans"].value,
		                $m["irq.RES.per_mb"].value // $m["irq.RES.per_trans"].value]
		               | if .[0] == null then "-" else (add * 100 | round / 100 | tostring) end)),
		    ("xcpu=" + (($m["host.xcpu_ns"].value // null)
		                | if . then (. * 10 | round / 10 | tostring) else "-" end)),
		    ("moved=" + (($m["window.xcpu_moved"].value // null) | if . == null then "-" else tostring end)),
		    ("far=" + (($m["window.xcpu_far_pct"].value // null)
		               | if . == null then "-" else (round | tostring) + "%" end)) ]
		| if .[0] == null then empty else map(tostring) | join(" ") end' "$out" 2>/dev/null)
	if [ $rc -ne 0 ] || [ -z "$res" ]; then
		log "    netregress run $* failed (rc=$rc): $(tail -n 3 "$err" | tr '\n' ' ')"
		return 1
	fi
	[ -s "$err" ] && log "    netregress stderr: $(tail -n 3 "$err" | tr '\n' ' ')"
	RES=$res
}

# ---------------------------------------------------------------- iperf3
# run_iperf3 ARGS... -> receiver-side Gbps
run_iperf3() {
	local out="$tmp/iperf3.json" err="$tmp/iperf3.err" res rc
	RES=
	alive "$IPERF_PID" || start_iperf3 || return 1
	run_wait "$out" "$err" timeout -k 5 "$TMO" iperf3 -c "$HOST" -p "$IPERF_PORT" -t "$DUR" -J "$@"
	rc=$?
	res=$(jq -r '
		if .error then "ERR " + .error
		else .end as $e
		  | (if $e.sum_received then [ $e.sum_received.bits_per_second / 1e9, 0, "sum_received" ]
		     else [ $e.sum.bits_per_second * (1 - $e.sum.lost_percent / 100) / 1e9, 0, "sum*(1-lost)" ] end)
		    + (if $e.sum.lost_percent then [ "lost=" + ($e.sum.lost_percent * 100 | round / 100 | tostring) + "%" ] else [] end)
		  | map(tostring) | join(" ")
		end' "$out" 2>/dev/null)
	if [ $rc -ne 0 ] || [ -z "$res" ] || [ "${res#ERR}" != "$res" ]; then
		log "    iperf3 $* failed (rc=$rc): ${res:-$(tail -n 3 "$err" | tr '\n' ' ')}"
		# a failed test can leave the server in a bad state: start anew
		start_iperf3 >/dev/null 2>&1
		return 1
	fi
	RES=$res
}

# ---------------------------------------------------------------- sockperf
# run_sockperf MSG -> transactions/s of ping-pong over TCP; a fresh server
# for every run, ended with SIGINT (as bench/rr.sh does)
run_sockperf() {
	local msg=$1 port log="$tmp/sockperf-server.log" out="$tmp/sockperf.out"
	local rc _ clean valid secs recv avg
	RES=
	port=$(free_port) || return 1
	sockperf server --tcp -i "$HOST" -p "$port" >"$log" 2>&1 &
	SOCKPERF_PID=$!
	if ! wait_bound "$port" tcp "$SOCKPERF_PID"; then
		log "    sockperf server did not start: $(tail -n 3 "$log" | tr '\n' ' ')"
		stop_pid "$SOCKPERF_PID"; SOCKPERF_PID=
		return 1
	fi
	run_wait "$out" "$out" timeout -k 5 "$TMO" \
		sockperf ping-pong --tcp -i "$HOST" -p "$port" -m "$msg" -t "$DUR" --full-rtt
	rc=$?
	stop_sockperf "$SOCKPERF_PID"
	SOCKPERF_PID=
	clean=$(sed 's/\x1b\[[0-9;]*m//g' "$out")
	valid=$(sockperf_valid "$clean")
	read -r secs recv <<<"$valid"
	avg=$(sed -n 's/.*avg-rtt=\([0-9.]*\).*/\1/p' <<<"$clean" | tail -n 1)
	if [ $rc -ne 0 ] || [ -z "${secs:-}" ] || [ -z "${recv:-}" ]; then
		log "    sockperf ping-pong --tcp failed (rc=$rc): $(grep -iE 'error|fail' <<<"$clean" | head -n 3 | tr '\n' ' ')"
		return 1
	fi
	RES=$(awk -v r="$recv" -v s="$secs" -v avg="${avg:-?}" 'BEGIN {
		printf "%.9g 0 avg_rtt=%sus\n", r / s, avg }')
}

# ---------------------------------------------------------------- probe
# probe_start / probe_stop: `netregress probe` beside a peer's run; stop
# ends it (SIGTERM: it gives what it saw) and sets PROBE_NS to the median
# round trip between the CPUs over the run, or "" (a binary without the
# command, no round timed), and PROBE_MOVED to 1 when its round trips
# changed level (the host moved the CPUs within the run), 0, or ""
probe_start() {
	"$NR" probe -l 24h -i 0 --json >"$tmp/probe.json" 2>"$tmp/probe.err" &
	PROBE_PID=$!
}
probe_stop() {
	PROBE_NS=
	PROBE_MOVED=
	stop_pid "$PROBE_PID"
	PROBE_PID=
	PROBE_NS=$(jq -r 'if .xcpu_ns then .xcpu_ns * 10 | round / 10 else empty end' \
		"$tmp/probe.json" 2>/dev/null)
	PROBE_MOVED=$(jq -r 'if .levels then (if .levels.moved then 1 else 0 end) else empty end' \
		"$tmp/probe.json" 2>/dev/null)
	[ -n "$PROBE_NS" ] || log "    netregress probe gave no round trip: $(tail -n 2 "$tmp/probe.err" | tr '\n' ' ')"
}

# ---------------------------------------------------------------- floor
# run_dd COUNT -> RES="GB/s": COUNT blocks of 1 MiB from /dev/zero to
# /dev/null on cpu 0 (dd's own byte count and elapsed time)
run_dd() {
	local out="$tmp/dd.err" rc
	RES=
	run_wait /dev/null "$out" taskset -c 0 dd if=/dev/zero of=/dev/null bs=1M count="$1"
	rc=$?
	RES=$(awk '/bytes.*copied/ { b = $1; for (i = 1; i < NF; i++) if ($(i + 1) ~ /^s,?$/) t = $i }
		END { if (b > 0 && t > 0) printf "%.9g\n", b / t / 1e9 }' "$out")
	if [ $rc -ne 0 ] || [ -z "$RES" ]; then
		log "    dd failed (rc=$rc): $(tail -n 2 "$out" | tr '\n' ' ')"
		RES=
		return 1
	fi
}

# ---------------------------------------------------------------- rows
ROWS=(tcp_stream udp_1452 tcp_rr)
declare -A DESC OURS METRIC UNIT PEER PARGS
DESC[tcp_stream]="tcp_stream 1 flow, default msg"
OURS[tcp_stream]="tcp_stream"
METRIC[tcp_stream]="throughput.gbps"; UNIT[tcp_stream]="Gbps"
PEER[tcp_stream]="iperf3"; PARGS[tcp_stream]=""

DESC[udp_1452]="udp_stream 1452B, unlimited"
OURS[udp_1452]="udp_stream -m 1452"
METRIC[udp_1452]="throughput.gbps"; UNIT[udp_1452]="Gbps"
PEER[udp_1452]="iperf3"; PARGS[udp_1452]="-u -b 0 -l 1452"

DESC[tcp_rr]="tcp_rr 64B"
OURS[tcp_rr]="tcp_rr -r 64,64"
METRIC[tcp_rr]="transactions.per_s"; UNIT[tcp_rr]="trans/s"
PEER[tcp_rr]="sockperf"; PARGS[tcp_rr]="64"
if [ -n "${ONLY:-}" ]; then
	for row in $ONLY; do
		[ -n "${DESC[$row]:-}" ] || { log "noise.sh: ONLY: unknown row '$row' (expected some of: ${ROWS[*]})"; exit 2; }
	done
	read -r -a ROWS <<<"$ONLY"
fi

# one line per successful run in $tmp/ROW.TOOL: "rep value disturbed"; for
# ours, "rep value X" in $tmp/ROW.speed (X the host.speed of a run that
# probed it), $tmp/ROW.core (its host.speed.core), $tmp/ROW.backlog (TCPBacklogCoalesce per MB), $tmp/ROW.ctxt
# (context switches per MB), $tmp/ROW.ssw (the server's workers' switches
# per MB or transaction), $tmp/ROW.ipi (the IPIs that woke or called a
# CPU, per MB or transaction), $tmp/ROW.xcpu (the cross-CPU round trip, ns),
# "rep mixed lo hi" in $tmp/ROW.levels and "rep moved" in $tmp/ROW.moved;
# for the peer, "rep value X" in $tmp/ROW.peer_xcpu (the round trip its own
# run read, from the probe beside it)
record() { # ROW TOOL REP RESULT
	local v d note x k lv
	read -r v d note <<<"$4"
	echo "$3 $v $d" >>"$tmp/$1.$2"
	if [ "$2" != ours ]; then
		x=$(sed -n 's/.*\<xcpu=\([0-9.]*\).*/\1/p' <<<"$note")
		[ -n "$x" ] && echo "$3 $v $x" >>"$tmp/$1.peer_xcpu"
		x=$(sed -n 's/.*\<moved=\([01]\).*/\1/p' <<<"$note")
		[ -n "$x" ] && echo "$3 $x" >>"$tmp/$1.peer_moved"
		log "$(printf '    %-9s %14.4f %-8s %s' "$2" "$v" "${UNIT[$1]}" "$note")"
		return
	fi
	for k in speed core backlog ctxt ipi xcpu; do
		x=$(sed -n "s/.*\\<$k=\\([0-9.]*\\).*/\\1/p" <<<"$note")
		[ -n "$x" ] && echo "$3 $v $x" >>"$tmp/$1.$k"
	done
	x=$(sed -n 's/.*sw=[-0-9.]*\/\([0-9.]*\).*/\1/p' <<<"$note")
	[ -n "$x" ] && echo "$3 $v $x" >>"$tmp/$1.ssw"
	x=$(sed -n 's/.*mixed=\([01]\).*/\1/p' <<<"$note")
	lv=$(sed -n 's/.*levels=\([0-9]*\)-\([0-9]*\)%.*/\1 \2/p' <<<"$note")
	[ -n "$x" ] && [ -n "$lv" ] && echo "$3 $x $lv" >>"$tmp/$1.levels"
	x=$(sed -n 's/.*moved=\([01]\).*/\1/p' <<<"$note")
	[ -n "$x" ] && echo "$3 $x" >>"$tmp/$1.moved"
	log "$(awk -v t="$2" -v v="$v" -v u="${UNIT[$1]}" -v d="$d" -v n="$note" 'BEGIN {
		printf "    %-9s %14.4f %-8s %s%s", t, v, u, (d + 0 == 1 ? "disturbed " : ""), n }')"
}

# ---------------------------------------------------------------- run
stamp_start busy
start_serve || exit 1
start_iperf3 || exit 1
log "noise.sh: REPS=$REPS DUR=${DUR}s, netregress serve pid $SERVE_PID port $SERVE_PORT," \
	"iperf3 server pid $IPERF_PID port $IPERF_PORT, started $START_DATE," \
	"loadavg $LOAD0, others' busy share $BUSY0"

# the floor's size: about DUR seconds at the speed of a 2000-block pilot
DD_COUNT=
run_dd 2000 && DD_COUNT=$(awk -v r="$RES" -v d="$DUR" 'BEGIN { printf "%d", r * 1e9 * d / 1048576 }')

for rep in $(seq "$REPS"); do
	if [ -n "$DD_COUNT" ]; then
		log "[rep $rep/$REPS] floor: dd bs=1M count=$DD_COUNT, cpu 0"
		run_dd "$DD_COUNT" && echo "$rep $RES 0" >>"$tmp/floor.dd" &&
			log "$(printf '    %-9s %14.4f GB/s' dd "$RES")"
	fi
	for row in "${ROWS[@]}"; do
		log "[rep $rep/$REPS] $row: ${DESC[$row]}"
		run_ours "${METRIC[$row]}" ${OURS[$row]} && record "$row" ours "$rep" "$RES" &&
			cp "$tmp/ours.json" "$tmp/$row.win.$rep.json"
		probe_start
		case ${PEER[$row]} in
		iperf3) run_iperf3 ${PARGS[$row]} ;;
		sockperf) run_sockperf ${PARGS[$row]} ;;
		esac
		rc=$?
		probe_stop
		[ $rc -eq 0 ] && record "$row" "${PEER[$row]}" "$rep" \
			"$RES${PROBE_NS:+ xcpu=$PROBE_NS}${PROBE_MOVED:+ moved=$PROBE_MOVED}"
	done
done
# The machine's pace over time, which every run of any tool holds: one run
# of ours as long as all its repetitions of a row, cut into REPS
# consecutive blocks of DUR seconds (its 100 ms rates), with nothing
# started, connected or placed between them. "cov blocks moved" in
# $tmp/ROW.cont.
if [ "$CONT" = 1 ] && [ "$REPS" -ge 2 ]; then
	for row in "${ROWS[@]}"; do
		log "[continuous] $row: one run of ours of $((REPS * DUR)) s, in $REPS blocks of ${DUR} s"
		OURS_DUR=$((REPS * DUR)) run_ours "${METRIC[$row]}" ${OURS[$row]} || continue
		jq -r --argjson k "$REPS" '
			.window_series.values as $v | ($v | length) as $n
			| [range(0; $k) as $i | $v[($i * $n / $k | floor):(($i + 1) * $n / $k | floor)]
			   | add / length] as $b
			| ($b | add / length) as $m
			| "\(([$b[] | (. - $m) * (. - $m)] | add / ($k - 1) | sqrt) / $m * 100) \($k) \(.metrics["window.xcpu_moved"].value // "-") \($b | map(. * 1000 | round / 1000 | tostring) | join(" "))"' \
			"$tmp/ours.json" >"$tmp/$row.cont.line" 2>/dev/null &&
			read -r c k mv blocks <"$tmp/$row.cont.line" &&
			echo "$c $k $mv" >"$tmp/$row.cont" &&
			log "    blocks ${blocks} ${UNIT[$row]}: cov $(printf '%.2f' "$c") %, moved=$mv"
	done
fi

# nothing of ours may run during the closing probe
stop_pid "$IPERF_PID"; IPERF_PID=
stop_pid "$SERVE_PID"; SERVE_PID=
stamp_end busy

# ---------------------------------------------------------------- table
# stats FILE KEEP(all|kept) -> "n median cov_pct"; kept: runs not flagged
# disturbed.  cov_pct is -1 with fewer than 2 runs or a mean of 0.
stats() {
	[ -s "$1" ] || { echo "0 0 -1"; return; }
	awk -v keep="$2" '
	keep == "kept" && $3 + 0 == 1 { next }
	{ n++; v[n] = $2; s += $2 }
	END {
		if (!n) { print "0 0 -1"; exit }
		for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
		med = n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2
		mean = s / n; cov = -1
		if (n >= 2 && mean > 0) {
			for (i = 1; i <= n; i++) ss += (v[i] - mean) ^ 2
			cov = 100 * sqrt(ss / (n - 1)) / mean   # sample standard deviation
		}
		printf "%d %.9g %.6g\n", n, med, cov }' "$1"
}

ver_nr=$(nr_version)
ver_ip=$(iperf3 --version 2>/dev/null | head -n 1)
ver_sp=$(sockperf --version 2>/dev/null | head -n 1)

echo "netregress run-to-run noise vs iperf3 and sockperf on loopback (127.0.0.1)"
machine_line
echo "date    : $START_DATE .. $END_DATE ($((END_S - START_S)) s); loadavg $LOAD0 at start, $LOAD1 at end;"
echo "          others' busy share of all cpus (2 s idle probe) $BUSY0 before, $BUSY1 after"
echo "tools   : $ver_nr at $NR${OURS_EXTRA:+ (extra: $OURS_EXTRA)}; $ver_ip; $ver_sp"
echo "runs    : REPS=$REPS, DUR=${DUR}s (ours -l ${DUR}s after its default 2 s warm-up, iperf3 -t $DUR,"
echo "          sockperf -t $DUR --full-rtt); each tool with its own defaults, no pinning options"
echo "          (ours: its default placement); interleaved ours/peer per repetition"
echo
fmt='%-31s %-7s %12s %8s %8s %5s  %-8s %12s %8s %5s %8s %s\n'
printf "$fmt" "row" "unit" "ours" "ours" "ours" "kept" "peer" "peer" "peer" "runs" "cov" "target"
printf "$fmt" "" "" "median" "cov %" "kept %" "" "" "median" "cov %" "o/p" "o/p" "(<= 0.50)"
printf '%s\n' "$(printf '%.0s-' $(seq 124))"
for row in "${ROWS[@]}"; do
	peer=${PEER[$row]}
	read -r on om oc < <(stats "$tmp/$row.ours" all)
	read -r kn _ kc < <(stats "$tmp/$row.ours" kept)
	read -r pn pm pc < <(stats "$tmp/$row.$peer" all)
	awk -v d="${DESC[$row]}" -v u="${UNIT[$row]}" -v p="$peer" -v fmt="$fmt" \
		-v on="$on" -v om="$om" -v oc="$oc" -v kn="$kn" -v kc="$kc" \
		-v pn="$pn" -v pm="$pm" -v pc="$pc" -v ratios="$tmp/ratios" -v extra="$OURS_EXTRA" 'BEGIN {
		# ours: the cov over the runs kept when at most one was left out
		basis = (on - kn <= 1 && kc >= 0) ? "kept" : "all"
		use = (basis == "kept") ? kc : oc
		f = (u == "Gbps") ? "%.3f" : "%.0f"
		s1 = on ? sprintf(f, om) : "-"; s2 = (oc >= 0) ? sprintf("%.2f", oc) : "-"
		s3 = (kc >= 0) ? sprintf("%.2f", kc) : "-"; s4 = kn "/" on
		s5 = pn ? sprintf(f, pm) : "-"; s6 = (pc >= 0) ? sprintf("%.2f", pc) : "-"
		ok = (use >= 0 && pc >= 0)
		s7 = (ok && pc > 0) ? sprintf("%.2f", use / pc) : "-"
		tg = ok ? ((use <= 0.5 * pc) ? "met" : "missed") " (" basis ")" : "-"
		if (ok && extra != "")
			tg = tg " (not default)"
		printf fmt, d, u, s1, s2, s3, s4, p, s5, s6, on "/" pn, s7, tg
		if (ok && pc > 0)
			printf "%s\t%d\t%.9g\t%d\t%.9g\n", d, (basis == "kept") ? kn : on, use, pn, pc >> ratios }'
done
read -r fn fm fc < <(stats "$tmp/floor.dd" all)
awk -v n="$fn" -v m="$fm" -v c="$fc" -v reps="$REPS" -v cnt="${DD_COUNT:-?}" 'BEGIN {
	if (n) printf "machine floor: dd 1 MiB blocks /dev/zero -> /dev/null, cpu 0, %s blocks: median %.2f GB/s, cov %s %%, %d/%d runs\n",
		cnt, m, (c >= 0 ? sprintf("%.2f", c) : "-"), n, reps
	else print "machine floor: dd did not run" }'
# the machine's pace over time against the target: every run of any tool
# holds a block like these, so a peer quieter than twice their cov leaves
# the target out of reach of any tool
for row in "${ROWS[@]}"; do
	[ -s "$tmp/$row.cont" ] || continue
	read -r _ _ pc < <(stats "$tmp/$row.${PEER[$row]}" all)
	read -r c k mv <"$tmp/$row.cont"
	awk -v d="${DESC[$row]}" -v c="$c" -v k="$k" -v dur="$DUR" -v mv="$mv" -v p="${PEER[$row]}" -v pc="$pc" 'BEGIN {
		printf "%-16s in %-31s one run of ours of %d s, its %d consecutive %d s blocks: cov %.2f %%%s",
			"machine pace", d ":", k * dur, k, dur, c, (mv == "1" ? " (the host moved the cpus within it)" : "")
		if (pc >= 0)
			printf "; the target needs the best peer at %.2f %% or more (%s %.2f %%): %s", 2 * c, p, pc,
				(pc >= 2 * c ? "within reach" : "out of reach of any tool here")
		printf "\n" }'
done
# How well REPS runs a side pin the ratio down: the F interval of a ratio
# of two standard deviations (normal runs), from GSL's F quantiles.
[ -s "$tmp/ratios" ] && python3 - "$tmp/ratios" <<'PY'
import ctypes, ctypes.util, math, sys
lib = ctypes.util.find_library("gsl")
if not lib:
    print("cov ratio: no libgsl to take the F quantiles from"); sys.exit(0)
q = ctypes.CDLL(lib).gsl_cdf_fdist_Pinv
q.restype = ctypes.c_double
q.argtypes = [ctypes.c_double] * 3
for line in open(sys.argv[1]):
    d, n1, c1, n2, c2 = line.rstrip("\n").split("\t")
    n1, n2, r = int(n1), int(n2), float(c1) / float(c2)
    if n1 < 2 or n2 < 2:
        continue
    hi, lo = q(0.975, n1 - 1, n2 - 1), q(0.025, n1 - 1, n2 - 1)
    lo_r, hi_r = r / math.sqrt(hi), r / math.sqrt(lo)
    where = ("lies below 0.50: met beyond chance" if hi_r < 0.5 else
             "lies above 0.50: missed beyond chance" if lo_r > 0.5 else
             "holds 0.50: these runs cannot tell")
    print("%-16s in %-31s %.2f, 95%% interval [%.2f, %.2f] (F, %d and %d degrees of freedom); it %s"
          % ("cov ratio", d + ":", r, lo_r, hi_r, n1 - 1, n2 - 1, where))
PY
# what went with ours' figure from run to run: the host's speed (the CPU
# speed probe of ours' stream runs), the socket backlog (TCP) and the
# context switches per MB; then the runs whose window mixed levels
# corr ROW FILE WHAT UNIT [PER_S]: "WHAT in ours ROW: mean, cov; Pearson r
# with ours"; with PER_S (ours' unit to MB/s), a figure per MB is also
# given per second: one that holds a rate per second reads r near -1 per
# MB by construction, and its cov per second says so
corr() {
	[ -s "$2" ] || return 0
	awk -v d="${DESC[$1]}" -v w="$3" -v u="$4" -v k="${5:-0}" '
	{ n++; x[n] = $3; y[n] = $2; sx += $3; sy += $2; z[n] = $3 * $2 * k; sz += z[n] }
	END {
		if (n < 3 || sx <= 0) exit
		mx = sx / n; my = sy / n; mz = sz / n
		for (i = 1; i <= n; i++) {
			vx += (x[i] - mx) ^ 2; vy += (y[i] - my) ^ 2; cxy += (x[i] - mx) * (y[i] - my)
			vz += (z[i] - mz) ^ 2
		}
		r = (vx > 0 && vy > 0) ? cxy / sqrt(vx * vy) : 0
		printf "%-16s in ours %-31s mean %.4g %s, cov %.2f %%; its correlation with ours: r = %.2f (r^2 %.2f), %d runs",
			w, d ":", mx, u, 100 * sqrt(vx / (n - 1)) / mx, r, r * r, n
		if (mz > 0)
			printf "; per second: mean %.4g, cov %.2f %%", mz, 100 * sqrt(vz / (n - 1)) / mz
		printf "\n"
	}' "$2"
}
# xcpu_adjusted WHO ROW FILE: WHO's figures ("rep value distance" in FILE)
# with what went with the cpus' distance taken out: ln figure on ln
# distance, every run moved along the slope to the geometric mean distance
# (the slope fitted to these runs takes a degree of freedom: n - 2); as
# compare, only when the distance spans a move (1.5x), not the probe's
# jitter. The cov also goes to $tmp/ROW.adj.WHO.
xcpu_adjusted() {
	[ -s "$3" ] || return 0
	awk -v d="${DESC[$2]}" -v who="$1" -v out="$tmp/$2.adj.$1" '
	$2 > 0 && $3 > 0 { n++; x[n] = log($3); y[n] = log($2); sx += x[n]; sy += y[n]
		if (n == 1 || x[n] < lo) lo = x[n]; if (n == 1 || x[n] > hi) hi = x[n] }
	END {
		if (n < 4) exit
		if (hi - lo < log(1.5)) {
			printf "%-16s in %-4s %-31s not estimable (the distance spanned no move: under 1.5x), %d runs\n",
				"adjusted for it", who, d ":", n
			exit
		}
		mx = sx / n; my = sy / n
		for (i = 1; i <= n; i++) { sxx += (x[i] - mx) ^ 2; sxy += (x[i] - mx) * (y[i] - my) }
		b = sxx > 0 ? sxy / sxx : 0
		for (i = 1; i <= n; i++) { v[i] = exp(y[i] - b * (x[i] - mx)); s1 += v[i] }
		m = s1 / n
		for (i = 1; i <= n; i++) s2 += (v[i] - m) ^ 2
		cv = 100 * sqrt(s2 / (n - 2)) / m
		printf "%-16s in %-4s %-31s cov %.2f %% (slope %.2f of ln figure per ln ns, at %.0f ns), %d runs\n",
			"adjusted for it", who, d ":", cv, b, exp(mx), n
		print cv > out
	}' "$3"
}
# peer_xcpu ROW: the peer's figure against the distance the probe beside
# its own run read: a peer whose figure does not follow the vCPUs'
# placement is held by something else
peer_xcpu() {
	local peer=${PEER[$1]}
	[ -s "$tmp/$1.peer_xcpu" ] || return 0
	awk -v d="${DESC[$1]}" -v p="$peer" '
	$2 > 0 && $3 > 0 { n++; a[n] = $3; b[n] = $2; sa += a[n]; sb += b[n] }
	END {
		if (n < 3) exit
		ma = sa / n; mb = sb / n
		for (i = 1; i <= n; i++) {
			va += (a[i] - ma) ^ 2; vb += (b[i] - mb) ^ 2; c += (a[i] - ma) * (b[i] - mb)
		}
		r = (va > 0 && vb > 0) ? c / sqrt(va * vb) : 0
		printf "%-16s in %-36s the cpus'"'"' distance over its own runs (netregress probe): mean %.4g ns, r = %.2f (r^2 %.2f), %d runs\n",
			p, d ":", ma, r, r * r, n
	}' "$tmp/$1.peer_xcpu"
}
# one_placement ROW: ours and the peer at one placement, with no slope: the
# distances of both tools' runs (ours' host.xcpu_ns, the probe beside the
# peer's) split at the widest gap between them when it is a move (1.5x,
# as compare's note of two distances), and within each distance that both
# ran at 3 times or more, each tool's cov and the ratio
one_placement() {
	local peer=${PEER[$1]}
	[ -s "$tmp/$1.xcpu" ] && [ -s "$tmp/$1.peer_xcpu" ] || return 0
	python3 - "${DESC[$1]}" "$peer" "$tmp/$1.xcpu" "$tmp/$1.peer_xcpu" "$tmp/$1.moved" "$tmp/$1.peer_moved" <<'PY'
import math, os, sys
desc, peer, files, mfiles = sys.argv[1], sys.argv[2], sys.argv[3:5], sys.argv[5:7]
runs = []
for who, f, mf in zip(("ours", peer), files, mfiles):
    moved = {}
    if os.path.exists(mf):
        for line in open(mf):
            rep, m = line.split()[:2]
            moved[rep] = m == "1"
    for line in open(f):
        rep, v, x = line.split()[:3]
        if float(v) > 0 and float(x) > 0:
            runs.append((float(x), float(v), who, moved.get(rep)))
if len(runs) < 2:
    sys.exit(0)
xs = sorted(r[0] for r in runs)
gap, cut = max((xs[i] / xs[i - 1], i) for i in range(1, len(xs)))
groups = [("one distance", xs[0], xs[-1])] if gap < 1.5 else \
         [("near", xs[0], xs[cut - 1]), ("far", xs[cut], xs[-1])]
def cov(v):
    m = sum(v) / len(v)
    return 100 * math.sqrt(sum((a - m) ** 2 for a in v) / (len(v) - 1)) / m
def line(label, keep):
    parts = []
    for name, lo, hi in groups:
        o = [v for x, v, w, m in runs if w == "ours" and lo <= x <= hi and keep(m)]
        p = [v for x, v, w, m in runs if w == peer and lo <= x <= hi and keep(m)]
        head = "%s (%.0f-%.0f ns): ours %d, %s %d runs" % (name, lo, hi, len(o), peer, len(p))
        if len(o) < 3 or len(p) < 3:
            parts.append(head + ": too few to compare")
            continue
        co, cp = cov(o), cov(p)
        parts.append("%s; cov %.2f %% and %.2f %%, o/p %.2f" % (head, co, cp, co / cp if cp > 0 else float("nan")))
    print("%-16s in %-36s %s" % (label, desc + ":", "; ".join(parts)))
line("one placement", lambda m: True)
# the same over the runs the host did not move the CPUs within (ours'
# window.xcpu_moved, the peer's probe beside it): a moved run holds two
# placements; a run without the flag is left out
if any(m for _, _, _, m in runs):
    line("not moved", lambda m: m is False)
PY
}
for row in "${ROWS[@]}"; do
	corr "$row" "$tmp/$row.speed" "host speed" "op/us (host.speed)"
	corr "$row" "$tmp/$row.core" "host core pace" "op/us (host.speed.core)"
	corr "$row" "$tmp/$row.backlog" "socket backlog" "/MB (TCPBacklogCoalesce)"
	corr "$row" "$tmp/$row.ctxt" "context switches" "/MB (stat.ctxt)" 125
	if [ "$row" = tcp_rr ]; then
		corr "$row" "$tmp/$row.ssw" "server's sleeps" "/trans (its workers' switches)"
	else
		corr "$row" "$tmp/$row.ssw" "server's sleeps" "/MB (its workers' switches)" 125
	fi
	if [ "$row" = tcp_rr ]; then
		corr "$row" "$tmp/$row.ipi" "wake-up IPIs" "/trans (irq.CAL + irq.RES)"
	else
		corr "$row" "$tmp/$row.ipi" "wake-up IPIs" "/MB (irq.CAL + irq.RES)" 125
	fi
	corr "$row" "$tmp/$row.xcpu" "cpus' distance" "ns (host.xcpu_ns)"
	peer_xcpu "$row"
	# ours' figure with the part that went with the distance taken out,
	# as compare's .xcpu_adj row does; and the peer's, against the distance
	# of its own runs, with a slope of its own
	xcpu_adjusted ours "$row" "$tmp/$row.xcpu"
	peer=${PEER[$row]}
	xcpu_adjusted "$peer" "$row" "$tmp/$row.peer_xcpu"
	if [ -s "$tmp/$row.adj.ours" ] && [ -s "$tmp/$row.adj.$peer" ]; then
		awk -v d="${DESC[$row]}" -v p="$peer" 'FNR == NR { o = $1; next } { q = $1 }
			END { if (q > 0) printf "%-16s in %-36s ours %.2f %% / %s %.2f %% = %.2f, at the same placement of the vCPUs\n",
				"adjusted o/p", d ":", o, p, q, o / q }' "$tmp/$row.adj.ours" "$tmp/$row.adj.$peer"
	fi
	one_placement "$row"
	# the same from within the windows, as compare does when every sample
	# kept its 100 ms rates and round trips (stats_adjust_windows): the
	# slope of ln rate on ln round trip over the intervals, each window's
	# own means out, and each run scaled by its rates moved along it
	compgen -G "$tmp/$row.win.*.json" >/dev/null && python3 - "${DESC[$row]}" "${METRIC[$row]}" "$tmp/$row".win.*.json <<'PY'
import json, math, sys
desc, metric, files = sys.argv[1], sys.argv[2], sys.argv[3:]
runs, sxx, sxy, lx_all, stepped = [], 0.0, 0.0, [], 0
for f in files:
    d = json.load(open(f))
    w, y = d.get("window_series", {}), d["metrics"][metric]["value"]
    pts = [(math.log(x), math.log(r)) for r, x in zip(w.get("values", []), w.get("xcpu_ns", []))
           if x and r and x > 0 and r > 0]
    if len(pts) < 5:
        runs = None
        break
    mx = sum(p[0] for p in pts) / len(pts)
    my = sum(p[1] for p in pts) / len(pts)
    wxx = sum((p[0] - mx) ** 2 for p in pts)
    sxx += wxx
    sxy += sum((p[0] - mx) * (p[1] - my) for p in pts)
    # the windows in which the host moved the CPUs (window.xcpu_moved)
    stepped += d["metrics"].get("window.xcpu_moved", {}).get("value", 0) == 1
    lx_all += [p[0] for p in pts]
    runs.append((y, w["values"], w["xcpu_ns"], mx))
label = "%-16s in ours %-31s" % ("within windows", desc + ":")
if not runs or stepped < 3 or len(runs) < 4:  # as stats_adjust_windows
    print(label, "not estimable (every run needs 5 intervals with a round trip, and the host must have moved the CPUs within 3 windows)")
    sys.exit(0)
b, ref = sxy / sxx, sum(lx_all) / len(lx_all)
adj = []
for y, rates, xs, mx in runs:
    tot = sum(r for r in rates if r > 0)
    mov = sum(r * math.exp(-b * ((math.log(x) if x and x > 0 else mx) - ref)) for r, x in zip(rates, xs) if r > 0)
    adj.append(y * mov / tot if tot > 0 else y)
m = sum(adj) / len(adj)
sd = math.sqrt(sum((v - m) ** 2 for v in adj) / (len(adj) - 1))
print(label, "cov %.2f %% (slope %.2f of ln rate per ln ns over %d intervals, the host moved the CPUs in %d of %d windows, at %.0f ns), %d runs"
      % (100 * sd / m, b, len(lx_all), stepped, len(runs), math.exp(ref), len(runs)))
PY
	[ -s "$tmp/$row.moved" ] && awk -v d="${DESC[$row]}" '{ n++; m += $2 }
		END { printf "%-16s in ours %-31s %d of %d runs (window.xcpu_moved)\n", "host moved cpus", d ":", m, n }' "$tmp/$row.moved"
done
# shared drift: ours and the peer run back to back in every repetition, so
# whatever moves the machine between repetitions moves both; Pearson r of
# the two over the repetitions where both ran, each one's r with the dd
# floor of that repetition, and the cov of ours / peer per repetition (the
# spread that is left when the shared part divides out). The spread of
# each tool's ln figure splits into what moved both (the covariance of
# the two, the machine's drift) and what is the tool's own (its variance
# less that): as % of the mean, "shared own_a own_b" (an own part below
# zero is 0: the runs cannot tell it from none)
# pair_r FILE_A FILE_B -> "n r cov_ratio shared own_a own_b" over the reps
# in both ("0 0 -1 -1 -1 -1")
pair_r() {
	if [ ! -s "$1" ] || [ ! -s "$2" ]; then echo "0 0 -1 -1 -1 -1"; return; fi
	awk 'NR == FNR { a[$1] = $2; next }
	($1 in a) && a[$1] > 0 && $2 > 0 {
		n++; x[n] = a[$1]; y[n] = $2; q[n] = a[$1] / $2; sx += x[n]; sy += y[n]; sq += q[n]
		lx[n] = log(x[n]); ly[n] = log(y[n]); slx += lx[n]; sly += ly[n] }
	END {
		if (n < 3) { print "0 0 -1 -1 -1 -1"; exit }
		mx = sx / n; my = sy / n; mq = sq / n; mlx = slx / n; mly = sly / n
		for (i = 1; i <= n; i++) {
			vx += (x[i] - mx) ^ 2; vy += (y[i] - my) ^ 2; cxy += (x[i] - mx) * (y[i] - my)
			vq += (q[i] - mq) ^ 2
			vlx += (lx[i] - mlx) ^ 2; vly += (ly[i] - mly) ^ 2; clxy += (lx[i] - mlx) * (ly[i] - mly)
		}
		r = (vx > 0 && vy > 0) ? cxy / sqrt(vx * vy) : 0
		sh = clxy > 0 ? clxy / (n - 1) : 0
		oa = vlx / (n - 1) - sh; ob = vly / (n - 1) - sh
		printf "%d %.4f %.4f %.4f %.4f %.4f\n", n, r, 100 * sqrt(vq / (n - 1)) / mq,
			100 * sqrt(sh), 100 * sqrt(oa > 0 ? oa : 0), 100 * sqrt(ob > 0 ? ob : 0) }' "$1" "$2"
}
for row in "${ROWS[@]}"; do
	peer=${PEER[$row]}
	read -r n r qc sh oo op < <(pair_r "$tmp/$row.ours" "$tmp/$row.$peer")
	[ "$n" -ge 3 ] || continue
	read -r fo ro _ < <(pair_r "$tmp/$row.ours" "$tmp/floor.dd")
	read -r fp rp _ < <(pair_r "$tmp/$row.$peer" "$tmp/floor.dd")
	awk -v d="${DESC[$row]}" -v p="$peer" -v n="$n" -v r="$r" -v qc="$qc" \
		-v fo="$fo" -v ro="$ro" -v fp="$fp" -v rp="$rp" \
		-v sh="$sh" -v oo="$oo" -v op="$op" 'BEGIN {
		fl = (fo >= 3 && fp >= 3) ? sprintf("; with the dd floor: ours r = %.2f, %s r = %.2f", ro, p, rp) : ""
		printf "shared drift     in %-36s ours and %s over %d repetitions: r = %.2f%s; ours/%s per repetition: cov %.2f %%\n",
			d ":", p, n, r, fl, p, qc
		printf "own noise        in %-36s shared by both %.2f %%; ours own %.2f %%, %s own %.2f %% (own o/p %s)",
			d ":", sh, oo, p, op, (op > 0 ? sprintf("%.2f", oo / op) : "-")
		# cov^2 = shared^2 + own^2 for each tool: ours at most half the
		# peer needs 4 (shared^2 + ours own^2) <= shared^2 + peer own^2
		room = (op * op - 3 * sh * sh) / 4
		if (room < 0)
			printf "; the target is out of reach of any tool here: the shared part alone is over 0.58 of %s'"'"'s own\n", p
		else
			printf "; the target needs ours'"'"' own at most %.2f %%\n", sqrt(room) }'
done
for row in "${ROWS[@]}"; do
	[ -s "$tmp/$row.levels" ] || continue
	awk -v d="${DESC[$row]}" '
	{ n++; if ($2 == 1) { k++; if ($4 - $3 > gap) { gap = $4 - $3; lo = $3; hi = $4 } } }
	END {
		printf "levels           in ours %-31s %d of %d runs left a level and came back within their window (window.mixed)%s\n",
			d ":", k, n, k ? sprintf("; the widest %d-%d %% of the window mean", lo, hi) : ""
	}' "$tmp/$row.levels"
done
echo
echo "Medians over the runs; cov = sample standard deviation / mean of the runs, in %."
echo "Gbps is the receiver side: ours throughput.gbps; iperf3 end.sum_received.bits_per_second"
echo "(-J; for UDP without it, end.sum.bits_per_second x (1 - lost_percent/100)).  trans/s:"
echo "ours transactions.per_s; sockperf ping-pong ReceivedMessages / RunTime of its"
echo "[Valid Duration] line.  ours kept: the runs not flagged window.disturbed (foreign CPU"
echo "load over 10% of the machine during the window, a worker kept from its CPU over 5%"
echo "of it: window.starved, or the host's steal on the test's CPUs, both ends' added, over"
echo "2% of it: window.stolen), kept/successful; runs o/p: successful"
echo "runs of ours / of the peer (out of REPS=$REPS).  cov o/p: ours' cov / the peer's, ours'"
echo "over the runs kept when at most one run was left out as disturbed (kept), else over"
echo "all runs (all).  target: met when that cov is at most half the peer's.  machine floor:"
echo "the same interleaving timing a fixed amount of copying with dd, nothing of the network:"
echo "how much this machine's own speed moves from run to run.  host speed: ours' CPU speed"
echo "probe (host.speed, streams only) over ours' runs of the row; host core pace: the probe's"
echo "pace between interruptions (host.speed.core), which the guest's softirqs leave out; socket"
echo "backlog: TCP segments"
echo "queued to the socket backlog per MB (the receiver held the socket lock: the high state of"
echo "loopback TCP); context switches per MB; the server's sleeps: the times its workers were"
echo "switched in per MB or per transaction (cpu.server.workers_switches.*: a receiver that ran"
echo "out of data and slept); a figure per MB is also given per second (per MB x MB/s): one"
echo "that kept its rate per second falls per MB as ours' figure rises, r near -1 by"
echo "construction, and its small cov per second says so; wake-up IPIs: the interrupts one CPU"
echo "sent another to wake a sleeper or run a call (irq.CAL + irq.RES, the machine's; each of"
echo "the server's sleeps on another CPU than its waker costs one); cpus' distance: the round trip of a cache line"
echo "between ours' client and server CPUs (host.xcpu_ns, the cross-CPU probe: a host that moves"
echo "the vCPUs apart slows loopback traffic), and the peer's figure against the same round"
echo "trip read beside each of its runs (netregress probe, the same rounds at the same cost: a"
echo "peer that does not follow it is held by something else); each with its mean, cov and"
echo "the Pearson correlation"
echo "of ours' figure with it: r^2 is the share of ours' run-to-run variance that went with"
echo "it.  shared drift: ours and the peer ran back to back in every repetition; r near 1"
echo "says the spread both show is the machine's, moving both together; ours/peer per repetition"
echo "is what is left of it when that shared part divides out.  own noise: each tool's spread"
echo "(variance of its ln figure over the repetitions) split into the part that moved both tools"
echo "(their covariance: the machine) and the rest, the tool's own; all as % of the mean (an"
echo "own part the shared one exceeds shows as 0).  No tool takes the shared part out of its"
echo "own runs: ours' cov is at most half the peer's only if 3 shared^2 + 4 own^2 <= peer own^2,"
echo "so with the shared part over 0.58 of the peer's own even a tool of no noise misses it;"
echo "each row says which holds: the own noise the target leaves ours, or out of reach."
echo "adjusted for it: ours' figures with what went with the cpus' distance taken out (ln figure"
echo "regressed on ln host.xcpu_ns over ours' runs of the row, each run moved along the slope to"
echo "the geometric mean distance, as compare's .xcpu_adj row does between two labels): the"
echo "noise that is left when the host's placement of the vCPUs is accounted for; the peer's"
echo "the same against the distance beside its own runs, with a slope of its own,"
echo "and adjusted o/p the ratio of the two: the target's comparison at one placement.  within"
echo "windows: the same with the slope from the 100 ms rates and round trips inside each run's"
echo "window (each window's own means out), every run scaled by its rates moved along it, as"
echo "compare's .xcpu_adj row does when the samples kept their windows.  The target column is"
echo "over the raw figures."
echo "levels: ours' runs whose 100 ms rates left a level and came back (window.mixed).  host"
echo "moved cpus: ours' runs in which the cross-CPU round trip changed level within the window."
echo "one placement: the runs of both tools split at the widest gap between their distances"
echo "when it is a move (1.5x), and at each distance both ran at 3 times or more, each tool's"
echo "cov and the ratio: the target's comparison at one placement with no slope fitted."
echo "not moved: the same over the runs in which the host did not move the CPUs (ours'"
echo "window.xcpu_moved, the peer's from the probe beside its run), where some runs moved: a"
echo "run the host moved within holds two placements."
echo "cov ratio: the table's cov o/p with the 95% interval of a ratio of two standard deviations"
echo "(normal runs, F quantiles from GSL), and whether the target's 0.50 lies beyond it."
echo "machine pace: after the repetitions, one run of ours per row as long as all of them"
echo "(REPS x DUR s; CONT=0 skips it), cut into REPS consecutive blocks of DUR s: how much the"
echo "machine's pace moved over time with no run started, connected or placed between the"
echo "blocks.  Every run of any tool holds such a block, so no tool's cov goes much below"
echo "theirs, and the target (ours at most half the peer's) needs the peer at twice it or more."
echo "A cov from REPS blocks is itself an estimate (about +-29 % of itself at 7), and the"
echo "blocks span one run, where the repetitions spread over the whole bench."
