#!/usr/bin/env bash
# bench/peers.sh - netregress against the peer tools (iperf3, sockperf) on
# loopback (127.0.0.1) only.
#
# Usage: bench/peers.sh            (REPS=5, DUR=10 by default)
#        REPS=1 DUR=3 bench/peers.sh
#
# Each repetition runs every row once, and within a row ours first and then
# each peer (A B A B ... across repetitions).  The table (stdout) gives for
# every row the median receiver-side throughput of each tool, the ratio
# ours/peer and the median CPU seconds per GB moved (client + server
# processes).  Progress and per-run figures go to stderr.
#
# Environment:
#   REPS   repetitions of each row (default 5)
#   DUR    measured seconds of each run (default 10); ours also runs a 2 s
#          warm-up (--warmup 2s) and iperf3 omits its first 2 s (-O 2)
#   ONLY   a space-separated subset of the row names (e.g.
#          ONLY="tcp_256_auto_p1 tcp_256_auto_p1_rmsg"); every row if unset
#   NETREGRESS  a netregress binary to measure instead of building
#          $repo/build/netregress with make (e.g. a copy kept apart from a
#          tree that is being rebuilt)
#
# The script talks to 127.0.0.1 only, starts its own iperf3 and sockperf
# servers on free ports, and on every exit path ends the processes it
# started, by PID.
# shellcheck disable=SC2034,SC2059,SC2086  # word splitting of the argument lists is meant
set -u -o pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
REPS=${REPS:-5}
DUR=${DUR:-10}
WARM=2
HOST=127.0.0.1
NR=${NETREGRESS:-$repo/build/netregress}

need_count peers.sh REPS 1
need_count peers.sh DUR 1 seconds


# ---------------------------------------------------------------- cleanup
tmp=
IPERF_PID=
SOCKPERF_PID=
CUR_PID=


cleanup() {
	trap - EXIT INT TERM HUP
	stop_pid "$CUR_PID"
	stop_pid "$SOCKPERF_PID"
	stop_pid "$IPERF_PID"
	[ -n "$tmp" ] && rm -rf -- "$tmp"
}
trap cleanup EXIT
trap 'log "peers.sh: interrupted"; exit 130' INT
trap 'log "peers.sh: terminated"; exit 143' TERM HUP

# ---------------------------------------------------------------- setup
need_tools peers.sh iperf3:iperf3 sockperf:sockperf jq:jq /usr/bin/time:time timeout:coreutils
need_netregress peers.sh "$repo"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/peers.XXXXXX")
CLK_TCK=$(getconf CLK_TCK)



TMO=$((DUR + WARM + 40))

# ---------------------------------------------------------------- iperf3
IPERF_PORT=
start_iperf3() {
	stop_pid "$IPERF_PID"
	IPERF_PID=
	local try
	for try in 1 2 3; do
		IPERF_PORT=$(free_port) || break
		iperf3 -s -B "$HOST" -p "$IPERF_PORT" >"$tmp/iperf3-server.log" 2>&1 &
		IPERF_PID=$!
		wait_bound "$IPERF_PORT" tcp "$IPERF_PID" && return 0
		stop_pid "$IPERF_PID"
		IPERF_PID=
	done
	log "peers.sh: cannot start the iperf3 server:"
	cat "$tmp/iperf3-server.log" >&2
	return 1
}

# The runners below run in the main shell (never in $(...)), so that the
# traps and the PIDs they keep stay right; each leaves its result in RES as
# "gbps bytes cpu_s secs ..." (receiver side) and returns 0, or returns 1.
RES=

# TcpExt TCPOrigDataSent: the machine's tcp data segments sent so far
orig_data_sent() {
	awk '$1 == "TcpExt:" { if (!n) { for (i = 2; i <= NF; i++) if ($i == "TCPOrigDataSent") c = i; n = 1; next }
		print $c; exit }' /proc/net/netstat
}

# iperf3 ARGS...
run_iperf3() {
	local out="$tmp/iperf3.json" err="$tmp/iperf3.err" res seg0 seg1
	RES=
	[ -n "$IPERF_PID" ] && kill -0 "$IPERF_PID" 2>/dev/null || start_iperf3 || return 1
	seg0=$(orig_data_sent)
	run_wait "$out" "$err" timeout -k 5 "$TMO" iperf3 -c "$HOST" -p "$IPERF_PORT" -t "$DUR" -O "$WARM" -J "$@"
	local rc=$?
	seg1=$(orig_data_sent)
	res=$(jq -r '
		if .error then "ERR " + .error
		else
		  .end as $e
		  | (if $e.sum_received then $e.sum_received
		     else ($e.sum | .bytes *= (1 - .lost_percent / 100)
		                  | .bits_per_second *= (1 - .lost_percent / 100)) end) as $r
		  | ($e.sum_sent.seconds // $r.seconds) as $s
		  # bytes per data segment: every byte sent, omitted seconds
		  # included, over the segments the machine sent meanwhile
		  | ([.intervals[]?.sum.bytes] | add) as $all
		  | (if $segs > 0 and $all then $all / $segs else "-" end) as $bps
		  | [ $r.bits_per_second / 1e9, $r.bytes,
		      ($e.cpu_utilization_percent.host_total + $e.cpu_utilization_percent.remote_total) / 100 * $s,
		      $s, $bps ] | map(tostring) | join(" ")
		end' --argjson segs "$((${seg1:-0} - ${seg0:-0}))" "$out" 2>/dev/null)
	if [ $rc -ne 0 ] || [ -z "$res" ] || [ "${res#ERR}" != "$res" ]; then
		log "    iperf3 $* failed (rc=$rc): ${res:-$(tail -n 3 "$err" | tr '\n' ' ')}"
		# a failed test can leave the server in a bad state: start anew
		start_iperf3 >/dev/null 2>&1
		return 1
	fi
	RES=$res
}

# ---------------------------------------------------------------- sockperf
proc_cpu_ticks() { # PID -> utime+stime in ticks
	local s
	s=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
	s=${s##*) }
	set -- $s
	echo $(( ${12} + ${13} ))
}

# sockperf throughput, UDP, message size $1 -> RES="gbps bytes cpu_s secs sent_msgs"
# Receiver side: the count the sockperf server prints on SIGINT ("Total N
# messages received and handled"); a fresh server for every run.
run_sockperf() {
	local msg=$1 port log="$tmp/sockperf-server.log" out="$tmp/sockperf.out" tm="$tmp/sockperf.time"
	local t0 t1 rc recv sent secs ut st
	RES=
	port=$(free_port) || return 1
	sockperf server -i "$HOST" -p "$port" >"$log" 2>&1 &
	SOCKPERF_PID=$!
	if ! wait_bound "$port" udp "$SOCKPERF_PID"; then
		log "    sockperf server did not start: $(tail -n 3 "$log" | tr '\n' ' ')"
		stop_pid "$SOCKPERF_PID"; SOCKPERF_PID=
		return 1
	fi
	t0=$(proc_cpu_ticks "$SOCKPERF_PID")
	run_wait "$out" "$out" timeout -k 5 "$TMO" /usr/bin/time -f '%U %S' -o "$tm" \
		sockperf throughput -i "$HOST" -p "$port" -m "$msg" -t "$DUR"
	rc=$?
	sleep 0.3 # let the server drain what is queued
	t1=$(proc_cpu_ticks "$SOCKPERF_PID")
	stop_sockperf "$SOCKPERF_PID" 50
	SOCKPERF_PID=
	recv=$(sed -n 's/.*Total \([0-9]*\) messages received.*/\1/p' "$log" | tail -n 1)
	sent=$(sed -n 's/.*Total of \([0-9]*\) messages sent in \([0-9.]*\) sec.*/\1/p' "$out" | tail -n 1)
	secs=$(sed -n 's/.*Total of \([0-9]*\) messages sent in \([0-9.]*\) sec.*/\2/p' "$out" | tail -n 1)
	read -r ut st <"$tm" 2>/dev/null || { ut=; st=; }
	if [ $rc -ne 0 ] || [ -z "$recv" ] || [ -z "$secs" ] || [ -z "$t0" ] || [ -z "$t1" ] || [ -z "$ut" ]; then
		log "    sockperf -m $msg failed (rc=$rc): $(grep -iE 'error|fail' "$out" "$log" | head -n 3 | tr '\n' ' ')"
		return 1
	fi
	RES=$(awk -v r="$recv" -v m="$msg" -v s="$secs" -v ut="$ut" -v st="$st" \
		-v t0="$t0" -v t1="$t1" -v hz="$CLK_TCK" -v sent="$sent" 'BEGIN {
		printf "%.9g %.0f %.6g %s %s\n", r * m * 8 / s / 1e9, r * m, ut + st + (t1 - t0) / hz, s, sent
	}')
}

# ---------------------------------------------------------------- ours
# netregress run ARGS... -> RES="gbps bytes cpu_s secs bytes_per_tcp_data_segment"
run_ours() {
	local out="$tmp/ours.json" err="$tmp/ours.err" res rc
	RES=
	run_wait "$out" "$err" timeout -k 5 "$TMO" "$NR" run "$@" -l "${DUR}s" --warmup "${WARM}s" --json --no-store
	rc=$?
	res=$(jq -r '
		.metrics as $m
		| [ $m["throughput.gbps"].value,
		    ([.flows[]?.receiver_bytes] | add) // ($m["throughput.gbps"].value * $m["window.client_s"].value * 1e9 / 8),
		    ($m["cpu.client.user_s"].value + $m["cpu.client.sys_s"].value
		     + $m["cpu.server.user_s"].value + $m["cpu.server.sys_s"].value),
		    $m["window.client_s"].value ]
		| if any(. == null) then empty else . end
		# bytes per data segment over the window
		| . + [ (($m["netstat.TcpExt.TCPOrigDataSent"].value // 0) as $n
			 | if $n > 0 then .[1] / $n else "-" end) ]
		| map(tostring) | join(" ")' "$out" 2>/dev/null)
	if [ $rc -ne 0 ] || [ -z "$res" ]; then
		log "    netregress run $* failed (rc=$rc): $(tail -n 3 "$err" | tr '\n' ' ')"
		return 1
	fi
	[ -s "$err" ] && log "    netregress stderr: $(tail -n 3 "$err" | tr '\n' ' ')"
	RES=$res
}

# alt_placement ROW: the placement the row does not run by default
alt_placement() {
	case " ${OURS[$1]} " in
	*" -n 1 "*) echo pair ;;
	*) echo split ;;
	esac
}

# ---------------------------------------------------------------- rows
ROWS=(tcp_128k_p1 tcp_sendfile_p1 tcp_256_8k_p1 tcp_256_8k_p4 tcp_256_auto_p1 tcp_256_auto_p1_rmsg tcp_256_auto_p4 udp_1452 udp_64)
declare -A DESC OURS PEERS PARGS
DESC[tcp_128k_p1]="tcp 128K msg, 1 flow"
OURS[tcp_128k_p1]="tcp_stream -n 1"
PEERS[tcp_128k_p1]="iperf3"
PARGS[tcp_128k_p1.iperf3]="-P 1"

# both write with sendfile(2): ours tcp_sendfile, iperf3 -Z (its zero copy
# mode is sendfile from a file of one buffer)
DESC[tcp_sendfile_p1]="tcp 128K msg sendfile, 1 flow"
OURS[tcp_sendfile_p1]="tcp_sendfile -n 1"
PEERS[tcp_sendfile_p1]="iperf3"
PARGS[tcp_sendfile_p1.iperf3]="-Z -P 1"

DESC[tcp_256_8k_p1]="tcp 256B nodelay 8K bufs, 1 flow"
OURS[tcp_256_8k_p1]="tcp_stream -m 256 -s 8K -S 8K --nodelay -n 1"
PEERS[tcp_256_8k_p1]="iperf3"
PARGS[tcp_256_8k_p1.iperf3]="-l 256 -w 8K -N -P 1"

DESC[tcp_256_8k_p4]="tcp 256B nodelay 8K bufs, 4 flows"
OURS[tcp_256_8k_p4]="tcp_stream -m 256 -s 8K -S 8K --nodelay -n 4"
PEERS[tcp_256_8k_p4]="iperf3"
PARGS[tcp_256_8k_p4.iperf3]="-l 256 -w 8K -N -P 4"

DESC[tcp_256_auto_p1]="tcp 256B nodelay auto bufs, 1 flow"
OURS[tcp_256_auto_p1]="tcp_stream -m 256 --nodelay -n 1"
PEERS[tcp_256_auto_p1]="iperf3"
PARGS[tcp_256_auto_p1.iperf3]="-l 256 -N -P 1"

# the row above with ours reading as iperf3 does, -l bytes a call (ours
# reads 128K by default, as netperf). It does not make ours iperf3: iperf3
# 3.12's server waits in pselect6 before every read, falls behind, and its
# client's writes go out coalesced (see B/seg); ours mostly keeps up, and
# falls behind only in some runs (bimodal)
DESC[tcp_256_auto_p1_rmsg]="  the same, ours --rmsg 256"
OURS[tcp_256_auto_p1_rmsg]="tcp_stream -m 256 --nodelay -n 1 --rmsg 256"
PEERS[tcp_256_auto_p1_rmsg]="iperf3"
PARGS[tcp_256_auto_p1_rmsg.iperf3]="-l 256 -N -P 1"

DESC[tcp_256_auto_p4]="tcp 256B nodelay auto bufs, 4 flows"
OURS[tcp_256_auto_p4]="tcp_stream -m 256 --nodelay -n 4"
PEERS[tcp_256_auto_p4]="iperf3"
PARGS[tcp_256_auto_p4.iperf3]="-l 256 -N -P 4"

DESC[udp_1452]="udp 1452B unlimited, 1 flow"
OURS[udp_1452]="udp_stream -m 1452 -n 1"
PEERS[udp_1452]="iperf3"
PARGS[udp_1452.iperf3]="-u -b 0 -l 1452"

DESC[udp_64]="udp 64B unlimited, 1 flow"
OURS[udp_64]="udp_stream -m 64 -n 1"
PEERS[udp_64]="sockperf iperf3"
PARGS[udp_64.sockperf]="64"
PARGS[udp_64.iperf3]="-u -b 0 -l 64"

pick_rows peers.sh

# one line per successful run: "gbps bytes cpu_s secs [extra]" in $tmp/ROW.TOOL
record() { # ROW TOOL RESULT
	echo "$3" >>"$tmp/$1.$2"
	local g b c s
	read -r g b c s _ <<<"$3"
	log "$(awk -v t="$2" -v g="$g" -v b="$b" -v c="$c" -v s="$s" 'BEGIN {
		printf "    %-9s %8.3f Gbps  %7.3f GB  cpu %6.2f s  %6.3f cpu-s/GB  (%.2f s)",
			t, g, b / 1e9, c, (b > 0 ? c / (b / 1e9) : 0), s }')"
}

# ---------------------------------------------------------------- run
stamp_start
start_iperf3 || exit 1
log "peers.sh: REPS=$REPS DUR=${DUR}s, iperf3 server pid $IPERF_PID port $IPERF_PORT, started $START_DATE"

for rep in $(seq "$REPS"); do
	for row in "${ROWS[@]}"; do
		log "[rep $rep/$REPS] $row: ${DESC[$row]}"
		# shellcheck disable=SC2086
		run_ours ${OURS[$row]} && record "$row" ours "$RES"
		# the other placement, for the reason beside a row below its
		# peer: one flow runs split by default (its ends on two CPUs),
		# more flows pair (a flow's two ends on one)
		# shellcheck disable=SC2086
		run_ours ${OURS[$row]} --placement "$(alt_placement "$row")" && record "$row" alt "$RES"
		for peer in ${PEERS[$row]}; do
			case $peer in
			iperf3) run_iperf3 ${PARGS[$row.$peer]} ;;
			sockperf) run_sockperf ${PARGS[$row.$peer]} ;;
			esac && record "$row" "$peer" "$RES"
		done
	done
done
stamp_end

# ---------------------------------------------------------------- table
# stats FILE -> "n median min max median_cpu_per_gb median_field5"
stats() {
	[ -s "$1" ] || { echo "0 - - - - -"; return; }
	awk '{ g[NR] = $1; c[NR] = ($2 > 0 ? $3 / ($2 / 1e9) : 0)
		if ($5 ~ /^[0-9.e+]+$/) f[++nf] = $5 }
	function med(a, n,   i, j, t) {
		for (i = 2; i <= n; i++) { t = a[i]; for (j = i - 1; j >= 1 && a[j] > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
	}
	END { n = NR; mg = med(g, n); mn = g[1]; mx = g[n]; mc = med(c, n)
		printf "%d %.6g %.6g %.6g %.6g %s\n", n, mg, mn, mx, mc, (nf ? sprintf("%.6g", med(f, nf)) : "-") }' "$1"
}

ver_nr=$(nr_version)
ver_ip=$(iperf3 --version 2>/dev/null | head -n 1)
ver_sp=$(sockperf --version 2>/dev/null | head -n 1)

echo "netregress vs peers on loopback (127.0.0.1)"
machine_line
echo "date    : $START_DATE .. $END_DATE ($((END_S - START_S)) s); loadavg $LOAD0 at start, $LOAD1 at end"
echo "tools   : $ver_nr at $NR; $ver_ip; $ver_sp"
echo "runs    : REPS=$REPS, DUR=${DUR}s measured (ours --warmup ${WARM}s; iperf3 -O $WARM), interleaved ours/peer per repetition"
echo
fmt='%-36s %-8s %9s %17s %9s %17s %9s %10s %10s %8s %8s %5s\n'
printf "$fmt" "row" "peer" "ours" "ours min..max" "peer" "peer min..max" "ours/peer" "ours" "peer" "ours" "peer" "runs"
printf "$fmt" "" "" "Gbps" "Gbps" "Gbps" "Gbps" "" "cpu-s/GB" "cpu-s/GB" "B/seg" "B/seg" "o/p"
printf '%s\n' "$(printf '%.0s-' $(seq 152))"
for row in "${ROWS[@]}"; do
	read -r on om omin omax oc ob < <(stats "$tmp/$row.ours")
	read -r qn qm _ _ _ qb < <(stats "$tmp/$row.alt")
	alt=$(alt_placement "$row")
	for peer in ${PEERS[$row]}; do
		read -r pn pm pmin pmax pc pb < <(stats "$tmp/$row.$peer")
		# bytes per tcp data segment: tcp rows only (sockperf's fifth
		# field is its count of messages sent)
		case $row in tcp_*) ;; *) ob=- pb=- ;; esac
		awk -v d="${DESC[$row]}" -v p="$peer" -v on="$on" -v om="$om" -v omin="$omin" -v omax="$omax" -v oc="$oc" \
			-v pn="$pn" -v pm="$pm" -v pmin="$pmin" -v pmax="$pmax" -v pc="$pc" -v reps="$REPS" -v fmt="$fmt" \
			-v ob="$ob" -v pb="$pb" -v qn="$qn" -v qm="$qm" -v qb="$qb" -v alt="$alt" 'BEGIN {
			f = "%.3f"
			o = on ? sprintf(f, om) : "-"; orr = on ? sprintf("%.2f..%.2f", omin, omax) : "-"
			q = pn ? sprintf(f, pm) : "-"; prr = pn ? sprintf("%.2f..%.2f", pmin, pmax) : "-"
			r = (on && pn && pm > 0) ? sprintf("%.2f", om / pm) : "-"
			oc2 = on ? sprintf(f, oc) : "-"; pc2 = pn ? sprintf(f, pc) : "-"
			ob2 = ob == "-" ? "-" : sprintf("%.0f", ob); pb2 = pb == "-" ? "-" : sprintf("%.0f", pb)
			printf fmt, d, p, o, orr, q, prr, r, oc2, pc2, ob2, pb2, on "/" pn
			# below 0.95 of the peer: what was measured beside it
			if (r != "-" && om / pm < 0.95) {
				why = ""
				if (ob != "-" && pb != "-" && (ob > 2 * pb || pb > 2 * ob))
					why = sprintf("bytes per segment differ (ours %.0f, peer %.0f): another stream", ob, pb)
				if (qn && qm > 0)
					why = why (why ? "; " : "") sprintf("ours --placement %s %.3f Gbps, %.2f of the peer", alt, qm, qm / pm)
				printf "%-36s   below 0.95: %s\n", "", why ? why : "no measured reason"
			}
		}'
	done
done
echo
echo "Throughput is the receiver side, median over the runs; min..max is the spread."
echo "cpu-s/GB: CPU seconds (user+sys) of the client and the server process together"
echo "per 1e9 payload bytes received, median over the runs. ours: cpu.client.* +"
echo "cpu.server.* over the measured window; iperf3: (host_total + remote_total)% x"
echo "the measured seconds (iperf3 averages its % over the whole test, omitted 2 s"
echo "included); sockperf: the client's user+sys (/usr/bin/time, warm-up stage"
echo "included) + the server's utime+stime delta from /proc/PID/stat."
echo "sockperf throughput prints only sender figures; its receiver side here is the"
echo "count its server prints on SIGINT ('Total N messages received') x msg size /"
echo "the client's measured seconds. iperf3 3.12 is single-threaded (all -P flows"
echo "on one thread per end); ours uses min(flows, cpus) threads per end."
echo "B/seg (tcp rows): payload bytes per tcp data segment (TcpExt TCPOrigDataSent),"
echo "median over the runs: ours over the measured window; iperf3 every byte it sent"
echo "(omitted seconds included) over the machine's delta across its run. 256-byte"
echo "writes that go out one per segment read near 256; far more means the sender"
echo "was held back (window, cwnd) and the writes went out coalesced."
echo "runs o/p: successful runs of ours / of the peer (out of REPS=$REPS)."
echo "below 0.95: each repetition also runs ours under the placement the row does"
echo "not use by default (one flow: --placement pair, both ends on one cpu; more"
echo "flows: split, client and server on different cpus), shown beside it."
