#!/usr/bin/env bash
# bench/rr.sh - netregress tcp_rr / udp_rr against sockperf ping-pong on
# loopback (127.0.0.1) only: transactions/s and round-trip latency.
#
# Usage: bench/rr.sh            (REPS=5, DUR=10 by default)
#        REPS=1 DUR=2 bench/rr.sh
#
# Rows (all closed loop, 1 flow, one request in flight, request = response =
# 64 bytes; sockperf's smallest message is 14 bytes, its header):
#   udp_rr                  vs sockperf ping-pong          client cpu 0, server cpu 1
#   tcp_rr --nodelay        vs sockperf ping-pong --tcp    client cpu 0, server cpu 1
#   the same two rows with client and server both on cpu 0
# Ours is pinned with --cpus/--remote-cpus (its worker threads), sockperf
# with taskset (the whole process).  sockperf sets TCP_NODELAY by default in
# ping-pong mode, so ours runs tcp_rr with --nodelay.
#
# Each repetition runs every row once, both tools back to back: ours first
# in odd repetitions, sockperf first in even ones (A B B A A B ...), so that
# a machine that drifts during a row favours neither.  The table (stdout) gives for
# every row the median transactions/s of each tool and the ratio ours/peer,
# and the median p50 and p99 round-trip latency of each (full round trip,
# us) with the ratios ours/peer.  Progress and per-run figures go to stderr.
#
# Like with like: sockperf prints half the round trip by default; it runs
# here with --full-rtt, so its avg/percentiles are full round trips, as
# ours (latency.p50_us, latency.p99_us).  sockperf's transactions/s is
# ReceivedMessages / RunTime of its "[Valid Duration]" line (one reply per
# request in ping-pong); ours is transactions.per_s.
#
# Environment:
#   REPS   repetitions of each row (default 5)
#   DUR    measured seconds of each run of ours (default 10), after a 2 s
#          warm-up (--warmup 2s).  sockperf runs -t DUR+2 and itself discards
#          its first 0.4 s and last 0.05 s, so both send for the same time
#   NETREGRESS  a netregress binary to measure instead of building
#          $repo/build/netregress with make (e.g. a copy kept apart from a
#          tree that is being rebuilt)
#   OURS_EXTRA  more options for every run of ours (e.g. --no-collect);
#          by default ours runs with its default collectors
#   ONLY   the rows to run, of: udp_split tcp_split udp_same tcp_same
#          (default all four), e.g. ONLY="udp_same tcp_same"
#
# The script talks to 127.0.0.1 only, starts its own sockperf servers on free
# ports (ours starts its own server process per run), and on every exit path
# ends the processes it started, by PID.
# shellcheck disable=SC2034,SC2059,SC2086  # word splitting of the argument lists is meant
set -u -o pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
REPS=${REPS:-5}
DUR=${DUR:-10}
WARM=2
HOST=127.0.0.1
MSG=64
NR=${NETREGRESS:-$repo/build/netregress}
OURS_EXTRA=${OURS_EXTRA:-}

need_count rr.sh REPS 1
need_count rr.sh DUR 1 seconds


# ---------------------------------------------------------------- cleanup
tmp=
SOCKPERF_PID=
CUR_PID=


cleanup() {
	trap - EXIT INT TERM HUP
	stop_pid "$CUR_PID"
	stop_pid "$SOCKPERF_PID"
	[ -n "$tmp" ] && rm -rf -- "$tmp"
}
trap cleanup EXIT
trap 'log "rr.sh: interrupted"; exit 130' INT
trap 'log "rr.sh: terminated"; exit 143' TERM HUP

# ---------------------------------------------------------------- setup
need_tools rr.sh sockperf:sockperf jq:jq taskset:util-linux timeout:coreutils
need_netregress rr.sh "$repo"
[ "$(nproc)" -ge 2 ] || { log "rr.sh: needs at least 2 cpus (client on cpu 0, server on cpu 1)"; exit 1; }

tmp=$(mktemp -d "${TMPDIR:-/tmp}/rr.XXXXXX")



TMO=$((DUR + WARM + 40))


# The runners below run in the main shell (never in $(...)), so that the
# traps and the PIDs they keep stay right; each leaves its result in RES as
# "tps p50_us p99_us secs extra" and returns 0, or returns 1.
RES=

# ---------------------------------------------------------------- sockperf
# sockperf ping-pong: PROTO(udp|tcp) CLIENT_CPU SERVER_CPU -> RES="tps p50 p99 secs avg_rtt"
# A fresh server for every run.
run_sockperf() {
	local proto=$1 ccpu=$2 scpu=$3 port log="$tmp/sockperf-server.log" out="$tmp/sockperf.out"
	local rc tcp='' clean valid secs recv p50 p99 avg
	RES=
	[ "$proto" = tcp ] && tcp=--tcp
	port=$(free_port) || return 1
	taskset -c "$scpu" sockperf server $tcp -i "$HOST" -p "$port" >"$log" 2>&1 &
	SOCKPERF_PID=$!
	if ! wait_bound "$port" "$proto" "$SOCKPERF_PID"; then
		log "    sockperf server did not start: $(tail -n 3 "$log" | tr '\n' ' ')"
		stop_pid "$SOCKPERF_PID"; SOCKPERF_PID=
		return 1
	fi
	run_wait "$out" "$out" timeout -k 5 "$TMO" taskset -c "$ccpu" \
		sockperf ping-pong $tcp -i "$HOST" -p "$port" -m "$MSG" -t $((DUR + WARM)) --full-rtt
	rc=$?
	stop_sockperf "$SOCKPERF_PID"
	SOCKPERF_PID=
	clean=$(sed 's/\x1b\[[0-9;]*m//g' "$out")
	valid=$(sockperf_valid "$clean")
	read -r secs recv <<<"$valid"
	p50=$(sed -n 's/.*percentile 50\.000 = *\([0-9.]*\).*/\1/p' <<<"$clean" | tail -n 1)
	p99=$(sed -n 's/.*percentile 99\.000 = *\([0-9.]*\).*/\1/p' <<<"$clean" | tail -n 1)
	avg=$(sed -n 's/.*avg-rtt=\([0-9.]*\).*/\1/p' <<<"$clean" | tail -n 1)
	if [ $rc -ne 0 ] || [ -z "${secs:-}" ] || [ -z "${recv:-}" ] || [ -z "$p50" ] || [ -z "$p99" ] || [ -z "$avg" ]; then
		log "    sockperf ping-pong $tcp failed (rc=$rc): $(grep -iE 'error|fail|avg-lat' <<<"$clean" | head -n 3 | tr '\n' ' ')"
		return 1
	fi
	RES=$(awk -v r="$recv" -v s="$secs" -v p50="$p50" -v p99="$p99" -v avg="$avg" 'BEGIN {
		printf "%.9g %s %s %s avg_rtt=%s\n", r / s, p50, p99, s, avg }')
}

# ---------------------------------------------------------------- ours
# netregress run TEST ARGS... -> RES="tps p50 p99 secs foreign=%"
run_ours() {
	local out="$tmp/ours.json" err="$tmp/ours.err" res rc
	RES=
	run_wait "$out" "$err" timeout -k 5 "$TMO" "$NR" run "$@" $OURS_EXTRA \
		-l "${DUR}s" --warmup "${WARM}s" --json --no-store
	rc=$?
	res=$(metric_values "$out" transactions.per_s latency.p50_us latency.p99_us window.client_s)
	if [ $rc -ne 0 ] || [ -z "$res" ]; then
		log "    netregress run $* failed (rc=$rc): $(tail -n 3 "$err" | tr '\n' ' ')"
		return 1
	fi
	[ -s "$err" ] && log "    netregress stderr: $(tail -n 3 "$err" | tr '\n' ' ')"
	res="$res $(jq -r '"foreign=" + ((.metrics["cpu.foreign_busy_pct"].value // 0) * 10 | round / 10 | tostring) + "%"
		+ " lost=" + ([.flows[]?.udp.lost // 0] | add // 0 | tostring)
		+ " connfail=" + ([.flows[]?.rr.connect_failures // 0] | add // 0 | tostring)' "$out" 2>/dev/null)"
	RES=$res
}

# ---------------------------------------------------------------- rows
ROWS=(udp_split tcp_split udp_same tcp_same)
declare -A DESC PROTO CCPU SCPU
DESC[udp_split]="udp 64B, client cpu0 / server cpu1"
PROTO[udp_split]=udp; CCPU[udp_split]=0; SCPU[udp_split]=1
DESC[tcp_split]="tcp 64B, client cpu0 / server cpu1"
PROTO[tcp_split]=tcp; CCPU[tcp_split]=0; SCPU[tcp_split]=1
DESC[udp_same]="udp 64B, both on cpu0"
PROTO[udp_same]=udp; CCPU[udp_same]=0; SCPU[udp_same]=0
DESC[tcp_same]="tcp 64B, both on cpu0"
PROTO[tcp_same]=tcp; CCPU[tcp_same]=0; SCPU[tcp_same]=0

if [ -n "${ONLY:-}" ]; then
	for row in $ONLY; do
		[ -n "${DESC[$row]:-}" ] || { log "rr.sh: ONLY: unknown row '$row' (expected some of: ${ROWS[*]})"; exit 2; }
	done
	read -r -a ROWS <<<"$ONLY"
fi

ours_args() { # ROW
	local r=$1
	case ${PROTO[$r]} in
	udp) echo "udp_rr -r $MSG,$MSG -n 1 --burst 1 --cpus ${CCPU[$r]} --remote-cpus ${SCPU[$r]}" ;;
	tcp) echo "tcp_rr -r $MSG,$MSG -n 1 --burst 1 --nodelay --cpus ${CCPU[$r]} --remote-cpus ${SCPU[$r]}" ;;
	esac
}

# one line per successful run: "rep tps p50 p99 secs [extra]" in $tmp/ROW.TOOL
record() { # ROW TOOL REP RESULT
	echo "$3 $4" >>"$tmp/$1.$2"
	local t p50 p99 s x
	read -r t p50 p99 s x <<<"$4"
	log "$(awk -v tool="$2" -v t="$t" -v a="$p50" -v b="$p99" -v s="$s" -v x="$x" 'BEGIN {
		printf "    %-9s %10.0f trans/s  p50 %8.2f us  p99 %8.2f us  (%.2f s) %s", tool, t, a, b, s, x }')"
}

# ---------------------------------------------------------------- run
stamp_start busy
log "rr.sh: REPS=$REPS DUR=${DUR}s, started $START_DATE, loadavg $LOAD0, others' busy share $BUSY0"

for rep in $(seq "$REPS"); do
	for row in "${ROWS[@]}"; do
		log "[rep $rep/$REPS] $row: ${DESC[$row]}"
		for who in ours sockperf; do
			# odd repetitions: ours first; even ones: sockperf first
			[ $((rep % 2)) = 0 ] && who=$([ "$who" = ours ] && echo sockperf || echo ours)
			if [ "$who" = ours ]; then
				# shellcheck disable=SC2046  # the options are meant to split
				run_ours $(ours_args "$row") && record "$row" ours "$rep" "$RES"
			else
				run_sockperf "${PROTO[$row]}" "${CCPU[$row]}" "${SCPU[$row]}" &&
					record "$row" sockperf "$rep" "$RES"
			fi
		done
	done
done
stamp_end busy

# ---------------------------------------------------------------- table
# stats FILE -> "n med_tps min_tps max_tps med_p50 med_p99"
stats() {
	[ -s "$1" ] || { echo "0 - - - - -"; return; }
	awk '{ t[NR] = $2; a[NR] = $3; b[NR] = $4 }
	function sort(v, n,   i, j, x) {
		for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
	}
	function med(v, n) { sort(v, n); return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
	END { n = NR; mt = med(t, n); ma = med(a, n); mb = med(b, n)
		printf "%d %.6g %.6g %.6g %.6g %.6g\n", n, mt, t[1], t[n], ma, mb }' "$1"
}

ver_nr=$(nr_version)
ver_sp=$(sockperf --version 2>/dev/null | head -n 1)

echo "netregress tcp_rr/udp_rr vs sockperf ping-pong on loopback (127.0.0.1)"
machine_line
echo "date    : $START_DATE .. $END_DATE ($((END_S - START_S)) s); loadavg $LOAD0 at start, $LOAD1 at end;"
echo "          others' busy share of all cpus (2 s idle probe) $BUSY0 before, $BUSY1 after"
echo "tools   : $ver_nr at $NR${OURS_EXTRA:+ (extra: $OURS_EXTRA)}; $ver_sp"
echo "runs    : REPS=$REPS, ours -l ${DUR}s --warmup ${WARM}s, sockperf -t $((DUR + WARM)) --full-rtt; msg $MSG B each way,"
echo "          1 flow, 1 in flight; interleaved, ours first in odd repetitions, sockperf in even"
echo
fmt='%-36s %9s %9s %6s %8s %8s %6s %8s %8s %6s %5s %s\n'
printf "$fmt" "row" "ours" "sockperf" "o/p" "ours" "sockperf" "o/p" "ours" "sockperf" "o/p" "runs" "target"
printf "$fmt" "" "trans/s" "trans/s" "tps" "p50 us" "p50 us" "p50" "p99 us" "p99 us" "p99" "o/p" ""
printf '%s\n' "$(printf '%.0s-' $(seq 130))"
for row in "${ROWS[@]}"; do
	read -r on ot omin omax oa ob < <(stats "$tmp/$row.ours")
	read -r pn pt pmin pmax pa pb < <(stats "$tmp/$row.sockperf")
	awk -v d="${DESC[$row]}" -v fmt="$fmt" -v on="$on" -v ot="$ot" -v oa="$oa" -v ob="$ob" \
		-v pn="$pn" -v pt="$pt" -v pa="$pa" -v pb="$pb" 'BEGIN {
		both = on && pn
		rt = (both && pt > 0) ? ot / pt : -1; ra = (both && pa > 0) ? oa / pa : -1; rb = (both && pb > 0) ? ob / pb : -1
		f = "%.2f"
		tg = "-"
		if (both) {
			miss = ""
			if (rt < 1.0) miss = miss " tps"
			if (ra > 1.10) miss = miss " p50"
			if (rb > 1.10) miss = miss " p99"
			tg = (miss == "") ? "met" : ("missed:" miss)
		}
		# (mawk: no bare ">" in a printf list, it would be a redirection)
		g = "%.3f" # ratios: 3 decimals, so that 0.997 does not show as 1.00
		s1 = on ? sprintf("%.0f", ot) : "-"; s2 = pn ? sprintf("%.0f", pt) : "-"; s3 = (rt >= 0) ? sprintf(g, rt) : "-"
		s4 = on ? sprintf(f, oa) : "-"; s5 = pn ? sprintf(f, pa) : "-"; s6 = (ra >= 0) ? sprintf(g, ra) : "-"
		s7 = on ? sprintf(f, ob) : "-"; s8 = pn ? sprintf(f, pb) : "-"; s9 = (rb >= 0) ? sprintf(g, rb) : "-"
		printf fmt, d, s1, s2, s3, s4, s5, s6, s7, s8, s9, on "/" pn, tg
	}'
done
echo
fmt2='%-36s %5s %21s %21s %21s  %s\n'
printf "$fmt2" "paired: ours / sockperf, same rep" "pairs" "trans/s" "p50" "p99" "target (trans/s)"
printf "$fmt2" "" "" "geomean [95% CI]" "geomean [95% CI]" "geomean [95% CI]" ""
printf '%s\n' "$(printf '%.0s-' $(seq 130))"
for row in "${ROWS[@]}"; do
	read -r n tg tlo thi _ < <(paired_ratios "$tmp/$row.ours" "$tmp/$row.sockperf" 2)
	read -r _ ag alo ahi _ < <(paired_ratios "$tmp/$row.ours" "$tmp/$row.sockperf" 3)
	read -r _ bg blo bhi _ < <(paired_ratios "$tmp/$row.ours" "$tmp/$row.sockperf" 4)
	awk -v d="${DESC[$row]}" -v fmt="$fmt2" -v n="$n" -v tg="$tg" -v tlo="$tlo" -v thi="$thi" \
		-v ag="$ag" -v alo="$alo" -v ahi="$ahi" -v bg="$bg" -v blo="$blo" -v bhi="$bhi" 'BEGIN {
		s1 = n ? sprintf("%.3f", tg) : "-"; s2 = n ? sprintf("%.3f", ag) : "-"; s3 = n ? sprintf("%.3f", bg) : "-"
		if (n && tlo != "-") {
			s1 = s1 sprintf(" [%.3f,%.3f]", tlo, thi)
			s2 = s2 sprintf(" [%.3f,%.3f]", alo, ahi)
			s3 = s3 sprintf(" [%.3f,%.3f]", blo, bhi)
		}
		vd = "-"
		if (n) {
			vd = (tg >= 1.0) ? "met" : "missed"
			if (tlo == "-" || (tlo < 1.0 && thi >= 1.0)) vd = vd ",unres"
		}
		printf fmt, d, n, s1, s2, s3, vd }'
done
echo
echo "spread (min..max over the runs) of trans/s:"
for row in "${ROWS[@]}"; do
	read -r on ot omin omax oa ob < <(stats "$tmp/$row.ours")
	read -r pn pt pmin pmax pa pb < <(stats "$tmp/$row.sockperf")
	awk -v d="${DESC[$row]}" -v on="$on" -v omin="$omin" -v omax="$omax" -v pn="$pn" -v pmin="$pmin" -v pmax="$pmax" 'BEGIN {
		printf "  %-36s ours %s   sockperf %s\n", d,
			on ? sprintf("%.0f..%.0f", omin, omax) : "-", pn ? sprintf("%.0f..%.0f", pmin, pmax) : "-" }'
done
echo
echo "Medians over the runs.  Latency is the full round trip in us: ours latency.p50_us /"
echo "latency.p99_us, sockperf's 50.000 / 99.000 percentiles with --full-rtt (without it"
echo "sockperf prints RTT/2).  trans/s: ours transactions.per_s; sockperf ReceivedMessages /"
echo "RunTime of its [Valid Duration] line.  o/p = ours / sockperf: target trans/s o/p >= 1.00,"
echo "latency o/p <= 1.10.  Ours: tcp_rr with --nodelay, as sockperf ping-pong sets TCP_NODELAY;"
echo "pinned with --cpus/--remote-cpus (worker threads), sockperf with taskset (whole process)."
echo "runs o/p: successful runs of ours / of sockperf (out of REPS=$REPS)."
echo "paired: the ratio ours/sockperf within each repetition (the two runs ran back to back),"
echo "geometric mean over the repetitions with its 95% confidence interval; the slow and fast"
echo "spells of a shared machine last seconds to minutes and mostly hit both runs of a pair, so"
echo "this is the sharper comparison.  target: the trans/s geomean against 1.00, ',unres' when"
echo "the interval reaches across it (more repetitions would be needed to decide)."
