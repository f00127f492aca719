#!/usr/bin/env bash
# bench/collectors.sh - what netregress's own collectors cost: the throughput
# of tcp_stream and udp_stream with the collectors off, on (the default) and
# on with --profile, on loopback (127.0.0.1) only.
#
# Usage: bench/collectors.sh            (REPS=10, DUR=2, WARM=1, ORUNS=10, ODUR=20
#                                          by default; about 20 minutes)
#        REPS=2 DUR=1 bench/collectors.sh
#
# Variants of every test:
#   off      --no-collect   (no kernel counters, no perf counters, no speed probe)
#   on       (default)      kernel counters + perf counters + speed probe
#   profile  --profile      all of the above + the kernel profiler
# Tests: tcp_stream 1 flow, default message (128K); udp_stream 1452 B, 1 flow.
#
# Each repetition runs every test once in each variant, one after the other
# (interleaved); the order of the three variants rotates from one
# repetition to the next (off on profile, on profile off, profile off on,
# ...) so that none always runs first.
#
# Why many short runs: on a shared VM the speed of the whole machine drifts
# by 5-15% over seconds to minutes, which no guest counter sees (no steal
# time, no hardware counters).  Ten-second runs five times over cannot
# resolve a 1% cost.  Short runs side by side see nearly the same machine,
# and their ratio is what is averaged: the estimate is the geometric mean of
# the per-repetition ratios (each variant against the off run of the same
# repetition) with a 95% confidence interval (Student t on the log ratios).
# The verdict compares the estimate with the target (on/off >= 0.99,
# profile/off >= 0.97) and says "unresolved" when the interval still
# reaches across the target.
#
# The collectors' direct cost is measured too, free of that drift: the CPU
# time of both ends' threads that are not workers (the control, meter,
# collector and profiler threads; exact, from CLOCK_PROCESS_CPUTIME_ID
# minus the workers' schedstat run time) as a share of one CPU over the
# window.  Work done in the workers' own context (perf sample interrupts)
# is not in it; the throughput ratio covers that.
#
# The tables (stdout) give for every test and variant the median
# throughput.gbps, its spread and coefficient of variation, the median
# exact CPU per GB and the non-worker CPU share; then the ratios.  Progress
# and per-run figures go to stderr.
#
# How noisy the machine was: the load average at start and end, the busy
# share of all cpus during a 2 s probe before and after (nothing of ours
# running), and the median cpu.foreign_busy_pct of ours (machine busy time
# that is neither the client nor its server, during the measured window).
#
# Environment:
#   REPS   repetitions of the short runs (default 10)
#   DUR    measured seconds of each run (default 2)
#   WARM   warm-up seconds before each run's window (default 1)
#   NETREGRESS  a netregress binary to measure instead of building
#          $repo/build/netregress with make (e.g. a copy kept apart from a
#          tree that is being rebuilt)
#   EXTRA  more options for every run (e.g. "--cpus 0 --remote-cpus 1");
#          none by default (the threads are not pinned)
#   ORUNS  runs of each test and variant with --overhead (default 10; 0: none)
#   ODUR   measured seconds of each of them (default 20)
#
# The sharpest measurement comes last: `netregress run --overhead` switches
# the in-window collectors (perf counters, speed probe, profiler) off and on in 200 ms
# phases within one run, and reports the geometric mean of the on/off rate
# ratios of neighbouring phases with a 95% interval (overhead.on_off,
# _lo, _hi).  Neighbouring 200 ms phases see nearly the same machine, far
# closer than runs seconds apart.  ORUNS such runs of each test and variant
# (on: perf counters and speed probe; profile: those and the profiler), interleaved, are
# pooled by inverse variance on the log scale; the verdict compares the
# pooled ratio and its interval with the target.  What --overhead cannot
# see: the /proc reads at the two marks (outside the window by design), and
# the cost of counters that exist but are paused (a branch in the
# scheduler's perf hooks).
#
# Ours starts its own server process on loopback for every run; the script
# ends the process it started, by PID, on every exit path.
# shellcheck disable=SC2034,SC2059,SC2086  # word splitting of the argument lists is meant
set -u -o pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
REPS=${REPS:-10}
DUR=${DUR:-2}
WARM=${WARM:-1}
NR=${NETREGRESS:-$repo/build/netregress}
EXTRA=${EXTRA:-}

need_count collectors.sh REPS 1
need_count collectors.sh DUR 1 seconds
need_count collectors.sh WARM 0 seconds
ORUNS=${ORUNS:-10}
ODUR=${ODUR:-20}
need_count collectors.sh ORUNS 0
need_count collectors.sh ODUR 2 seconds


# ---------------------------------------------------------------- cleanup
tmp=
CUR_PID=


cleanup() {
	trap - EXIT INT TERM HUP
	stop_pid "$CUR_PID"
	[ -n "$tmp" ] && rm -rf -- "$tmp"
}
trap cleanup EXIT
trap 'log "collectors.sh: interrupted"; exit 130' INT
trap 'log "collectors.sh: terminated"; exit 143' TERM HUP

# ---------------------------------------------------------------- setup
need_tools collectors.sh jq:jq timeout:coreutils
need_netregress collectors.sh "$repo"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/collectors.XXXXXX")
TMO=$((DUR + WARM + 60))
OTMO=$((ODUR + WARM + 60))



# netregress run ARGS... -> RES="gbps foreign_pct secs cpu_s_per_gb aux_pct" (runs in the main
# shell, never in $(...), so that the traps and CUR_PID stay right)
RES=
run_ours() {
	local out="$tmp/ours.json" err="$tmp/ours.err" res rc
	RES=
	run_wait "$out" "$err" timeout -k 5 "$TMO" "$NR" run "$@" $EXTRA \
		-l "${DUR}s" --warmup "${WARM}s" --json --no-store
	rc=$?
	res=$(jq -r '
		.metrics as $m
		| [ $m["throughput.gbps"].value, ($m["cpu.foreign_busy_pct"].value // -1),
		    $m["window.client_s"].value,
		    (if $m["cpu.client.cpu_s"] and $m["cpu.server.cpu_s"] and $m["throughput.gbps"].value > 0
		     then ($m["cpu.client.cpu_s"].value + $m["cpu.server.cpu_s"].value)
		          / ($m["throughput.gbps"].value * $m["window.client_s"].value / 8)
		     else -1 end),
		    (if $m["cpu.client.workers_s"] and $m["cpu.server.workers_s"] and $m["window.client_s"].value > 0
		     then 100 * ($m["cpu.client.cpu_s"].value - $m["cpu.client.workers_s"].value
		                 + $m["cpu.server.cpu_s"].value - $m["cpu.server.workers_s"].value)
		          / $m["window.client_s"].value
		     else -1 end) ]
		| if .[0] == null or .[2] == null then empty else map(tostring) | join(" ") end' "$out" 2>/dev/null)
	if [ $rc -ne 0 ] || [ -z "$res" ]; then
		log "    netregress run $* failed (rc=$rc): $(tail -n 3 "$err" | tr '\n' ' ')"
		return 1
	fi
	[ -s "$err" ] && log "    netregress stderr: $(tail -n 3 "$err" | tr '\n' ' ')"
	RES=$res
}

# ---------------------------------------------------------------- tests
TESTS=(tcp udp)
declare -A DESC ARGS VOPT
DESC[tcp]="tcp_stream 1 flow, 128K msg"
ARGS[tcp]="tcp_stream -n 1"
DESC[udp]="udp_stream 1 flow, 1452B msg"
ARGS[udp]="udp_stream -n 1 -m 1452"
VARIANTS=(off on profile)
VOPT[off]="--no-collect"
VOPT[on]=""
VOPT[profile]="--profile"

# one line per successful run in $tmp/TEST.VARIANT: "rep gbps foreign secs
# cpu_s_per_gb aux_pct" (cpu_s_per_gb: both ends' exact CPU seconds per GB
# received; aux_pct: both ends' non-worker threads' CPU, % of one CPU over
# the window; -1 unknown)
record() { # TEST VARIANT REP RESULT
	local g f s c a
	read -r g f s c a <<<"$4"
	echo "$3 $g $f $s $c $a" >>"$tmp/$1.$2"
	log "$(awk -v v="$2" -v g="$g" -v f="$f" -v s="$s" -v c="$c" -v a="$a" 'BEGIN {
		printf "    %-8s %9.3f Gbps  foreign %5.1f%%  cpu %.4f s/GB  non-worker %.3f%%  (%.2f s)", v, g, f, c, a, s }')"
}

# ---------------------------------------------------------------- run
stamp_start busy
log "collectors.sh: REPS=$REPS DUR=${DUR}s, started $START_DATE, loadavg $LOAD0, others' busy share $BUSY0"

nv=${#VARIANTS[@]}
for rep in $(seq "$REPS"); do
	for t in "${TESTS[@]}"; do
		log "[rep $rep/$REPS] $t: ${DESC[$t]}"
		for k in $(seq 0 $((nv - 1))); do
			v=${VARIANTS[$(((k + rep - 1) % nv))]}
			run_ours ${ARGS[$t]} ${VOPT[$v]} && record "$t" "$v" "$rep" "$RES"
		done
	done
done
# ---------------------------------------------------------------- in-run pairs
# netregress run ARGS... --overhead -> RES="on_off lo hi pairs"
run_overhead() {
	local out="$tmp/oh.json" err="$tmp/oh.err" res rc
	RES=
	run_wait "$out" "$err" timeout -k 5 "$OTMO" "$NR" run "$@" $EXTRA --overhead \
		-l "${ODUR}s" --warmup "${WARM}s" --json
	rc=$?
	res=$(metric_values "$out" overhead.on_off overhead.on_off_lo overhead.on_off_hi overhead.pairs)
	if [ $rc -ne 0 ] || [ -z "$res" ]; then
		log "    netregress run $* --overhead failed (rc=$rc): $(tail -n 3 "$err" | tr '\n' ' ')"
		return 1
	fi
	RES=$res
}
OVARIANTS=(on profile)
for rep in $(seq "$ORUNS"); do
	for t in "${TESTS[@]}"; do
		log "[overhead run $rep/$ORUNS] $t: ${DESC[$t]}"
		for k in 0 1; do
			v=${OVARIANTS[$(((k + rep - 1) % 2))]}
			if run_overhead ${ARGS[$t]} ${VOPT[$v]}; then
				echo "$RES" >>"$tmp/$t.$v.oh"
				log "$(awk -v v="$v" -v r="$RES" 'BEGIN { split(r, a, " ")
					printf "    %-8s on/off %.4f [%.4f, %.4f] from %d pairs", v, a[1], a[2], a[3], a[4] }')"
			fi
		done
	done
done
stamp_end busy

# ---------------------------------------------------------------- table
# stats FILE -> "n median min max cv% median_foreign median_cpu_s_per_gb cpu_cv% median_aux_pct"
stats() {
	[ -s "$1" ] || { echo "0 - - - - - - - -"; return; }
	awk '{ g[NR] = $2; f[NR] = $3; c[NR] = $5; a[NR] = $6; s += $2; ss += $2 * $2; cs += $5; css += $5 * $5 }
	function sort(v, n,   i, j, x) {
		for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
	}
	function med(v, n) { sort(v, n); return n % 2 ? v[(n + 1) / 2] : (v[n / 2] + v[n / 2 + 1]) / 2 }
	END { n = NR; m = s / n; var = n > 1 ? (ss - n * m * m) / (n - 1) : 0; if (var < 0) var = 0
		cv = (m > 0) ? 100 * sqrt(var) / m : 0
		cm = cs / n; cvar = n > 1 ? (css - n * cm * cm) / (n - 1) : 0; if (cvar < 0) cvar = 0
		ccv = (cm > 0) ? 100 * sqrt(cvar) / cm : 0
		mg = med(g, n); mf = med(f, n); mc = med(c, n); ma = med(a, n)
		printf "%d %.6g %.6g %.6g %.3g %.3g %.6g %.3g %.4g\n", n, mg, g[1], g[n], cv, mf, mc, ccv, ma }' "$1"
}
# pairs TEST VARIANT -> "n geomean lo hi median" of gbps(VARIANT)/gbps(off) of
# the same repetition (paired_ratios in lib.sh)
pairs() { paired_ratios "$tmp/$1.$2" "$tmp/$1.off" 2; }

ver_nr=$(nr_version)

echo "netregress collectors cost: throughput with collectors off / on / on + --profile, loopback"
machine_line
echo "date    : $START_DATE .. $END_DATE ($((END_S - START_S)) s); loadavg $LOAD0 at start, $LOAD1 at end;"
echo "          others' busy share of all cpus (2 s idle probe) $BUSY0 before, $BUSY1 after"
echo "tools   : $ver_nr at $NR${EXTRA:+ (extra: $EXTRA)}; perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid 2>/dev/null || echo '?')"
echo "runs    : REPS=$REPS, -l ${DUR}s --warmup ${WARM}s, variants interleaved, order rotating per repetition"
echo
fmt='%-30s %-8s %9s %17s %6s %8s %9s %6s %10s %5s\n'
printf "$fmt" "test" "variant" "median" "min..max" "cv" "foreign" "cpu" "cpu cv" "non-worker" "runs"
printf "$fmt" "" "" "Gbps" "Gbps" "%" "busy %" "s/GB" "%" "% of 1 cpu" ""
printf '%s\n' "$(printf '%.0s-' $(seq 117))"
for t in "${TESTS[@]}"; do
	for v in "${VARIANTS[@]}"; do
		read -r n m mn mx cv mf mc ccv ma < <(stats "$tmp/$t.$v")
		awk -v d="${DESC[$t]}" -v v="$v" -v n="$n" -v m="$m" -v mn="$mn" -v mx="$mx" -v cv="$cv" -v mf="$mf" \
			-v mc="$mc" -v ccv="$ccv" -v ma="$ma" -v reps="$REPS" -v fmt="$fmt" 'BEGIN {
			a = n ? sprintf("%.3f", m) : "-"; b = n ? sprintf("%.3f..%.3f", mn, mx) : "-"
			c = n ? sprintf("%.1f", cv) : "-"; e = (n && mf >= 0) ? sprintf("%.1f", mf) : "-"
			g = (n && mc > 0) ? sprintf("%.4f", mc) : "-"; h = (n && mc > 0) ? sprintf("%.1f", ccv) : "-"
			k = (n && ma >= 0) ? sprintf("%.3f", ma) : "-"
			printf fmt, d, v, a, b, c, e, g, h, k, n "/" reps }'
	done
done
echo
fmt2='%-30s %-12s %7s %15s %7s %10s %7s %-10s %9s %10s\n'
printf "$fmt2" "test" "ratio" "pairs" "geomean" "median" "of medians" "target" "verdict" "cpu s/GB" "non-worker"
printf "$fmt2" "" "" "" "[95% CI]" "" "" "" "" "off/var" "var-off %"
printf '%s\n' "$(printf '%.0s-' $(seq 117))"
for t in "${TESTS[@]}"; do
	read -r _ moff _ _ _ _ coff _ aoff < <(stats "$tmp/$t.off")
	for v in on profile; do
		read -r _ mv _ _ _ _ cvr _ av < <(stats "$tmp/$t.$v")
		read -r pn pg plo phi pm < <(pairs "$t" "$v")
		tgt=0.99
		[ "$v" = profile ] && tgt=0.97
		awk -v d="${DESC[$t]}" -v v="$v" -v moff="$moff" -v mv="$mv" -v pn="$pn" -v pg="$pg" \
			-v plo="$plo" -v phi="$phi" -v pm="$pm" -v tgt="$tgt" -v coff="$coff" -v cvr="$cvr" \
			-v aoff="$aoff" -v av="$av" -v reps="$REPS" -v fmt="$fmt2" 'BEGIN {
			ok = (moff != "-" && mv != "-" && moff > 0)
			a = ok ? sprintf("%.3f", mv / moff) : "-"
			b = pn ? sprintf("%.3f", pg) : "-"
			if (pn && plo != "-") b = b sprintf(" [%.3f,%.3f]", plo, phi)
			c = pn ? sprintf("%.3f", pm) : "-"
			vd = "-"
			if (pn) {
				vd = (pg >= tgt) ? "met" : "missed"
				if (plo == "-" || (plo < tgt && phi >= tgt)) vd = vd ",unres"
			}
			e = (coff != "-" && cvr != "-" && coff > 0 && cvr > 0) ? sprintf("%.3f", coff / cvr) : "-"
			f = (aoff != "-" && av != "-" && aoff >= 0 && av >= 0) ? sprintf("%+.3f", av - aoff) : "-"
			printf fmt, d, v "/off", pn "/" reps, b, c, a, ">= " tgt, vd, e, f }'
	done
done
if [ "$ORUNS" -gt 0 ]; then
	echo
	echo "in-run pairs: run --overhead -l ${ODUR}s, collectors switched off and on in 200 ms phases"
	fmt3='%-30s %-12s %5s %6s %22s %7s %-14s %s\n'
	printf "$fmt3" "test" "ratio" "runs" "pairs" "pooled [95% CI]" "target" "verdict" "per run"
	printf '%s\n' "$(printf '%.0s-' $(seq 117))"
	for t in "${TESTS[@]}"; do
		for v in "${OVARIANTS[@]}"; do
			read -r rn rg rlo rhi < <(pooled_ratio "$tmp/$t.$v.oh")
			tgt=0.99
			[ "$v" = profile ] && tgt=0.97
			per=$( [ -s "$tmp/$t.$v.oh" ] && awk '{ printf "%s%.3f", (NR > 1 ? " " : ""), $1 }' "$tmp/$t.$v.oh")
			np=$( [ -s "$tmp/$t.$v.oh" ] && awk '{ n += $4 } END { print n + 0 }' "$tmp/$t.$v.oh")
			awk -v d="${DESC[$t]}" -v v="$v" -v rn="$rn" -v rg="$rg" -v rlo="$rlo" -v rhi="$rhi" \
				-v tgt="$tgt" -v per="$per" -v np="${np:-0}" -v runs="$ORUNS" -v fmt="$fmt3" 'BEGIN {
				b = rn ? sprintf("%.4f [%.4f,%.4f]", rg, rlo, rhi) : "-"
				vd = "-"
				if (rn) {
					vd = (rg >= tgt) ? "met" : "missed"
					if (rlo < tgt && rhi >= tgt) vd = vd ",unres"
				}
				printf fmt, d, v "/off", rn "/" runs, np, b, ">= " tgt, vd, per }'
		done
	done
fi
echo
echo "Throughput is ours' throughput.gbps (receiver side).  First table: median over the runs,"
echo "min..max, cv (sample standard deviation / mean); foreign busy %: ours' cpu.foreign_busy_pct,"
echo "machine busy time that is neither the client nor its server, share of all cpus, median (a"
echo "high value means other tenants took cpu during the run); cpu s/GB: both ends' exact CPU"
echo "time (cpu.client.cpu_s + cpu.server.cpu_s) per GB received, median, and its cv; non-worker:"
echo "both ends' CPU time outside the worker threads (cpu_s - workers_s: control, meter,"
echo "collectors, profiler), % of one cpu over the window, median."
echo "Second table: pairs, repetitions where both the variant and off ran; geomean, the"
echo "geometric mean of the per-repetition ratios variant/off (the runs of one repetition ran"
echo "back to back) with its 95% confidence interval; median of those ratios; of medians, the"
echo "ratio of the first table's medians.  verdict: the geomean against the target, ',unres'"
echo "when the interval reaches across the target (more repetitions would be needed to decide)."
echo "cpu s/GB off/var: the collectors' cost in CPU per byte (1.000: none, 0.990: 1% more),"
echo "drift included; non-worker var-off: the CPU the variant's own threads added, in % of one"
echo "cpu, free of drift but without the work done inside the workers (sample interrupts)."
if [ "$ORUNS" -gt 0 ]; then
	echo "In-run pairs: each run's overhead.on_off (rate with the collectors on / off, geometric"
	echo "mean over its on/off pairs of neighbouring 200 ms phases, with a 95% interval; rate ="
	echo "receiver bytes of both directions), pooled over the runs by inverse variance on the log"
	echo "scale; per run: each run's on/off.  on: perf counters and speed probe paused in the off"
	echo "phases; profile: those and the profiler.  verdict as above."
fi
