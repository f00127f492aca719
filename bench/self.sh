#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/self.sh - netregress against an earlier netregress: the before/after
# figure an engine change needs, on loopback (127.0.0.1) only.
#
# Usage: BEFORE=/tmp/nr_old bench/self.sh        (a binary)
#        BEFORE=d08a740 bench/self.sh            (a git revision: built in a
#                                                 temporary worktree)
#        ONLY="udp_1472 udp_64" REPS=4 DUR=1 BEFORE=HEAD~3 bench/self.sh
#
# AFTER is $NETREGRESS, or build/netregress built with make. Each repetition
# runs every row with both binaries back to back, the order alternating
# (before first in odd repetitions, after first in even ones), so that a
# slow spell of the machine hits both. Every run prints its JSON document
# (nothing goes to your store); at the end the AFTER binary imports them
# into a temporary store under the labels "before" and "after", and its
# `compare` judges every row (rank test, Hodges-Lehmann shift with its 95%
# interval).
#
# The table (stdout) gives per row the median headline of each binary, the
# paired ratio after/before (the geometric mean of the per-repetition
# ratios, with a Student t 95% interval: adjacent runs see nearly the same
# machine, so their ratio cancels its drift), the same for the exact CPU
# per unit of work, and compare's verdict. All but the verdict leave out
# the runs flagged window.disturbed, and a repetition's pair with one of
# them, as compare does. Progress goes to stderr.
#
# Environment:
#   BEFORE  the earlier netregress: a path to a binary or a git revision
#   REPS    repetitions (default 10)
#   DUR     measured seconds of each run (default 2); WARM warm-up (1)
#   ONLY    a space-separated subset of the row names
#   NETREGRESS  the AFTER binary instead of building build/netregress
# shellcheck disable=SC2059,SC2086  # the table format is one variable; word splitting of the argument lists is meant
set -u -o pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
REPS=${REPS:-10}
DUR=${DUR:-2}
WARM=${WARM:-1}
NR=${NETREGRESS:-$repo/build/netregress}

need_count self.sh REPS 1
need_count self.sh DUR 1 seconds
need_count self.sh WARM 0 seconds
[ -n "${BEFORE:-}" ] || { echo "self.sh: BEFORE must name the earlier netregress: a binary or a git revision" >&2; exit 2; }
if ! { [ -x "$BEFORE" ] && [ -f "$BEFORE" ]; } && ! git -C "$repo" rev-parse --verify --quiet "$BEFORE^{commit}" >/dev/null; then
	echo "self.sh: BEFORE='$BEFORE' is neither an executable file nor a git revision of $repo" >&2
	exit 2
fi

tmp=
wt=
CUR_PID=
cleanup() {
	trap - EXIT INT TERM HUP
	stop_pid "$CUR_PID"
	[ -n "$wt" ] && git -C "$repo" worktree remove --force "$wt" >/dev/null 2>&1
	[ -n "$tmp" ] && rm -rf -- "$tmp"
}
trap cleanup EXIT
trap 'log "self.sh: interrupted"; exit 130' INT
trap 'log "self.sh: terminated"; exit 143' TERM HUP

need_tools self.sh jq:jq timeout:coreutils
need_netregress self.sh "$repo"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/self.XXXXXX")

# the earlier binary: a path, or a revision built apart from this tree
if [ -x "$BEFORE" ] && [ -f "$BEFORE" ]; then
	OLD=$BEFORE
	old_desc=$BEFORE
elif rev=$(git -C "$repo" rev-parse --verify --short "$BEFORE^{commit}" 2>/dev/null); then
	wt="$tmp/worktree"
	log "self.sh: building $BEFORE ($rev) in $wt"
	if ! git -C "$repo" worktree add --detach "$wt" "$rev" >"$tmp/build.log" 2>&1 ||
		! make -C "$wt" -j"$(nproc)" >>"$tmp/build.log" 2>&1; then
		log "self.sh: cannot build $BEFORE:"
		tail -n 5 "$tmp/build.log" >&2
		exit 1
	fi
	OLD="$tmp/netregress-$rev"
	cp "$wt/build/netregress" "$OLD" || exit 1
	old_desc="git $rev ($BEFORE)"
else
	echo "self.sh: BEFORE='$BEFORE' is neither an executable file nor a git revision of $repo" >&2
	exit 2
fi

# ---------------------------------------------------------------- rows
# The rows cover each engine path: tcp send/recv, sendfile, small nodelay
# writes, udp sendmmsg/recvmmsg at two sizes and both ways on one worker
# (and on unpinned workers that share the CPUs), and the request/response
# loops.
ROWS=(tcp_128k tcp_sendfile tcp_256_nodelay udp_1472 udp_64 udp_1472_bidir udp_1472_bidir_free tcp_rr udp_rr tcp_crr tcp_cc)
declare -A DESC ARGS
DESC[tcp_128k]="tcp_stream 128K, 1 flow";          ARGS[tcp_128k]="tcp_stream -n 1"
DESC[tcp_sendfile]="tcp_sendfile 128K, 1 flow";    ARGS[tcp_sendfile]="tcp_sendfile -n 1"
DESC[tcp_256_nodelay]="tcp_stream 256B nodelay 8K"; ARGS[tcp_256_nodelay]="tcp_stream -m 256 -s 8K -S 8K --nodelay"
DESC[udp_1472]="udp_stream 1472B";                 ARGS[udp_1472]="udp_stream -m 1472"
DESC[udp_64]="udp_stream 64B";                     ARGS[udp_64]="udp_stream -m 64"
DESC[udp_1472_bidir]="udp_stream 1472B bidir, 2+2"; ARGS[udp_1472_bidir]="udp_stream -m 1472 --dir bidir -n 2"
DESC[udp_1472_bidir_free]="udp_stream 1472B bidir, free"; ARGS[udp_1472_bidir_free]="udp_stream -m 1472 --dir bidir -n 2 --placement free"
DESC[tcp_rr]="tcp_rr 64B nodelay";                 ARGS[tcp_rr]="tcp_rr -r 64,64 --nodelay"
DESC[udp_rr]="udp_rr 64B";                         ARGS[udp_rr]="udp_rr -r 64,64"
DESC[tcp_crr]="tcp_crr 1B";                        ARGS[tcp_crr]="tcp_crr"
DESC[tcp_cc]="tcp_cc";                             ARGS[tcp_cc]="tcp_cc"
pick_rows self.sh

# headline and CPU per unit of work of a document, and whether it was
# flagged disturbed: "value cpu_per_unit 0|1" (exact CPU of both ends'
# processes per GB received, or per 1e6 transactions or connections), or
# nothing when the run failed
figures() {
	jq -r '
		.metrics as $m
		| ($m["throughput.gbps"].value // $m["transactions.per_s"].value // $m["crr.connects_per_s"].value) as $h
		| ($m["cpu.client.cpu_s"].value + $m["cpu.server.cpu_s"].value) as $c
		| ($m["window.client_s"].value) as $w
		| (if $m["window.disturbed"].value == 1 then 1 else 0 end) as $d
		| if $h == null or $c == null or $w == null or $h <= 0 then empty
		  elif $m["throughput.gbps"].value then "\($h) \($c / ($h * $w / 8)) \($d)"
		  else "\($h) \($c / ($h * $w) * 1e6) \($d)" end' "$1" 2>/dev/null
}

# one run: BIN LABEL ROW REP
run_one() {
	local out="$tmp/$3.$2.$4.json" err="$tmp/run.err" f
	run_wait "$out" "$err" timeout -k 5 $((DUR + WARM + 40)) "$1" run ${ARGS[$3]} \
		-l "${DUR}s" --warmup "${WARM}s" --label "$2" --json --no-store
	f=$(figures "$out")
	if [ -z "$f" ]; then
		log "    $2: failed: $(tail -n 2 "$err" | tr '\n' ' ')"
		rm -f "$out"
		return 1
	fi
	echo "$4 $f" >>"$tmp/$3.$2"
	cat "$out" >>"$tmp/all.jsonl"
	log "    $2: $f"
}

stamp_start busy
log "self.sh: REPS=$REPS DUR=${DUR}s, before $old_desc, after $NR"
for rep in $(seq "$REPS"); do
	for row in "${ROWS[@]}"; do
		log "[rep $rep/$REPS] $row: ${DESC[$row]}"
		if [ $((rep % 2)) -eq 1 ]; then
			run_one "$OLD" before "$row" "$rep"
			run_one "$NR" after "$row" "$rep"
		else
			run_one "$NR" after "$row" "$rep"
			run_one "$OLD" before "$row" "$rep"
		fi
	done
done
stamp_end busy

# compare's judgement, from a store of its own
db="$tmp/self.db"
if [ -s "$tmp/all.jsonl" ] && "$NR" import --db "$db" "$tmp/all.jsonl" >"$tmp/import.out" 2>&1; then
	"$NR" compare --db "$db" --json before after >"$tmp/compare.json" 2>"$tmp/compare.err"
	"$NR" compare --db "$db" before after >"$tmp/compare.txt" 2>&1
else
	log "self.sh: import failed: $(tail -n 3 "$tmp/import.out" | tr '\n' ' ')"
fi

# median of column COL of FILE
median() {
	[ -s "$1" ] || { echo "-"; return; }
	awk -v c="$2" '{ v[NR] = $c } END {
		for (i = 2; i <= NR; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
		printf "%.6g\n", NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }' "$1"
}

echo "netregress after vs before, on loopback (127.0.0.1)"
machine_line
echo "date    : $START_DATE .. $END_DATE ($((END_S - START_S)) s); loadavg $LOAD0 at start, $LOAD1 at end; other tenants busy $BUSY0 before, $BUSY1 after"
echo "before  : $old_desc"
echo "after   : $NR ($("$NR" --version 2>/dev/null | head -n 1))"
echo "runs    : REPS=$REPS, DUR=${DUR}s measured after ${WARM}s warm-up, order alternating per repetition"
echo
fmt='%-28s %11s %11s %-24s %-24s %-6s %-22s %s\n'
printf "$fmt" "row" "before" "after" "after/before (paired)" "cpu per unit a/b" "pairs" "compare: shift" "verdict"
printf '%s\n' "$(printf '%.0s-' $(seq 147))"
for row in "${ROWS[@]}"; do
	b="$tmp/$row.before" a="$tmp/$row.after"
	# the pairs in which neither run was flagged disturbed, as compare's
	# .paired row takes them
	[ -s "$b" ] && awk '$4 != 1' "$b" >"$b.kept"
	[ -s "$a" ] && awk '$4 != 1' "$a" >"$a.kept"
	read -r npairs _ < <(paired_ratios "$a" "$b" 2)
	read -r n g lo hi _ < <(paired_ratios "$a.kept" "$b.kept" 2)
	read -r nc gc loc hic _ < <(paired_ratios "$a.kept" "$b.kept" 3)
	docs=("$tmp/$row".after.*.json)
	key=$(jq -r '.config.key' "${docs[0]}" 2>/dev/null)
	cmp=$(jq -r --arg k "$key" '.configs[]? | select(.config_key == $k) | .rows[]? | select(.headline)
		| "\(.shift_pct) \(.shift_lo_pct) \(.shift_hi_pct) \(.verdict)"' "$tmp/compare.json" 2>/dev/null | head -n 1)
	read -r sh shl shh verdict <<<"${cmp:-- - - -}"
	awk -v d="${DESC[$row]}" -v mb="$(median "$b.kept" 2)" -v ma="$(median "$a.kept" 2)" -v n="$n" -v g="$g" -v lo="$lo" -v hi="$hi" \
		-v nc="$nc" -v gc="$gc" -v loc="$loc" -v hic="$hic" -v pairs="$n/$npairs" -v sh="$sh" -v shl="$shl" -v shh="$shh" -v vd="$verdict" -v fmt="$fmt" 'BEGIN {
		r = n > 0 ? (lo == "-" ? sprintf("%.3f (n %d)", g, n) : sprintf("%.3f [%.3f, %.3f]", g, lo, hi)) : "-"
		rc = nc > 0 ? (loc == "-" ? sprintf("%.3f", gc) : sprintf("%.3f [%.3f, %.3f]", gc, loc, hic)) : "-"
		s = sh == "-" || sh == "null" ? "-" : sprintf("%+.1f%% [%+.1f, %+.1f]", sh, shl, shh)
		printf fmt, d, mb, ma, r, rc, pairs, s, vd }'
done
echo
echo "before, after: median headline of the runs not flagged disturbed (throughput.gbps,"
echo "transactions.per_s or crr.connects_per_s). after/before (paired): geometric mean of the ratios of"
echo "the two runs of each repetition, 95% interval (Student t on the log ratios),"
echo "over the pairs in which neither run was flagged disturbed (pairs: those kept"
echo "of all; compare's .paired row keeps the same ones)."
echo "cpu per unit: exact CPU of both ends' processes per GB received, or per"
echo "million transactions or connections; the same paired ratio (below 1: the after binary costs"
echo "less). compare: netregress compare before after on every run stored in a"
echo "temporary store (the Hodges-Lehmann shift of the headline with its 95%"
echo "interval, and the verdict of the rank test)."
if [ -s "$tmp/compare.txt" ]; then
	echo
	echo "compare before after:"
	sed 's/^/  /' "$tmp/compare.txt"
fi
