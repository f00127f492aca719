#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# bench/seeds.sh - calibration against the seeds netregress was built from:
# for each seed scenario, inject on this machine an analogue of its seed's
# mechanism without changing the configuration key, run the scenario's
# quick form under A (clean), B (injected) and AA (clean again), and say
# whether compare calls B against A, by how much, whether the first row of
# `explained_by` names the injected cause, and whether A against AA (no
# change) is called.
#
# Usage: bench/seeds.sh                 (REPS=6: 6 runs a side; ~5 min)
#        QUICK=1 bench/seeds.sh         (a smoke test: one round, only the
#                                        injected cell of each scenario)
#        ONLY="rcvbuf matrix" bench/seeds.sh
#
# Rows (the scenario, its injected cell, the mechanism):
#   rcvbuf   tcp-small-rcvbuf-quick, rcvbuf=8K: net.core.rmem_max lowered
#            to RMEM_MAX (4096), so the same 8K SO_RCVBUF request is
#            granted 8K instead of 16K. The sysctl is the machine's, not
#            the namespace's (read-only in a namespace on 6.18): it is set
#            only while B runs, and put back after each B run and on every
#            exit path.
#   defer    udp-loopback-defer-free-quick: FILTERS (1000) tc u32 filters
#            on the ingress of lo, none of which matches: extra work per
#            packet in the receive softirq (the scenario profiles).
#   lmbench  lmbench-tcp-bw-quick, streams=1: every packet on lo's
#            ingress mirrored MIRRORS (4) times to a veth with
#            scatter-gather and tx checksums off, so the kernel copies
#            (linearizes) and checksums each received byte MIRRORS more
#            times in the receive path: extra cost per byte copied (lo's
#            own checksum offload is fixed, and this kernel has no
#            act_csum).
#   matrix   udp-matrix-quick, ipv=4 mtu=9000 msg=8952: a tbf of TBF_RATE
#            (1gbit) on the client's veth egress of that cell only, added
#            by a watcher as soon as the cell's namespace appears (the
#            tbf_rate parameter would change the key). The other cells
#            run in B too, in matrices of their own, without it.
#
# The loopback rows run in a network namespace of ours (lo up), so the
# filters and mirrors stay in it; the matrix row builds its own veth
# namespaces. Each round runs every cell once under A, B and AA, A in the
# middle and the others taking turns (B A AA, then AA A B), so that every
# run of A has a run of B and one of AA next to it: compare pairs the runs
# side by side (its .paired row, from 4 pairs), and a drift of the machine
# from round to round divides out of the pairs. Every run is a `netregress
# matrix` of a copy of the quick scenario whose only change is
# `repetitions: 1` (the key is the same; matrix has no flag for it), with
# --keep-disturbed (on a shared machine every sample may be flagged, and
# measuring again only doubles the time). REPS is the runs a side, at
# most 6.
#
# Called: a headline verdict REGRESSION, IMPROVEMENT or changed (`minor`,
# `same`, `inconclusive`, `too few` are not calls), of the rank test or of
# the .paired row; the table gives both. Names the cause: the first row of
# `explained_by` matches the row's regex (CAUSE below). Explained counts
# the rows called (either way) whose first row names the cause. The
# verdicts are a benchmark, not a test: QUICK=1 (1 run a side, too few for
# a verdict) only shows the script works.
#
# Environment:
#   REPS        rounds of A, B, AA: runs a side (default 6; QUICK=1: 1)
#   QUICK       1: one round, the injected cells only
#   ONLY        rows to run, of: rcvbuf defer lmbench matrix
#   RMEM_MAX, FILTERS, MIRRORS, TBF_RATE   the injections' strength
#   KEEP        a directory to copy the stores (ROW.db) to at the end
#   NETREGRESS  a netregress binary instead of building build/netregress
#
# Needs root, iproute2 (ip, tc), ethtool and jq. stdout: the header and one
# table; stderr: every matrix's step lines and the comparisons.
# shellcheck disable=SC2016  # the jq programs are single-quoted on purpose
set -u -o pipefail

repo=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=bench/lib.sh
. "$repo/bench/lib.sh"
NR=${NETREGRESS:-$repo/build/netregress}
QUICK=${QUICK:-0}
if [ "$QUICK" = 1 ]; then REPS=${REPS:-1}; else REPS=${REPS:-6}; fi
RMEM_MAX=${RMEM_MAX:-4096}
FILTERS=${FILTERS:-1000}
MIRRORS=${MIRRORS:-4}
TBF_RATE=${TBF_RATE:-1gbit}
need_count seeds.sh REPS 1
need_count seeds.sh RMEM_MAX 1 bytes
need_count seeds.sh FILTERS 1
need_count seeds.sh MIRRORS 1
case $QUICK in 0 | 1) ;; *) echo "seeds.sh: QUICK must be 0 or 1, not '$QUICK'" >&2; exit 2 ;; esac
case $TBF_RATE in [1-9]*bit) ;; *) echo "seeds.sh: TBF_RATE must be a tc rate like 1gbit, not '$TBF_RATE'" >&2; exit 2 ;; esac

ROWS=(rcvbuf defer lmbench matrix)
declare -A DESC=(
	[rcvbuf]="net.core.rmem_max $RMEM_MAX (8K SO_RCVBUF granted less)"
	[defer]="$FILTERS tc u32 filters on lo ingress"
	[lmbench]="lo ingress mirrored ${MIRRORS}x to a veth, sg+csum off"
	[matrix]="tbf $TBF_RATE on one cell's client veth"
)
declare -A JOB=(
	[rcvbuf]=tcp-small-rcvbuf-quick [defer]=udp-loopback-defer-free-quick
	[lmbench]=lmbench-tcp-bw-quick [matrix]=udp-matrix-quick
)
# the injected cell, as --where options ("" when the scenario has one cell)
declare -A CELL=(
	[rcvbuf]="--where rcvbuf=8K" [defer]="" [lmbench]="--where streams=1"
	[matrix]="--where ipv=4 --where mtu=9000 --where msg=8952"
)
# the other cells of udp-matrix-quick, which B runs without the tbf, one
# matrix per group (a --where cannot say "not that cell")
MATRIX_REST=("--where ipv=6" "--where ipv=4 --where mtu=1500"
	"--where ipv=4 --where mtu=9000 --where msg=1452")
# what the first explaining row must match to name the cause
declare -A CAUSE=(
	[rcvbuf]='^granted\..*rcvbuf|sysctl\.net\.core\.rmem_max'
	[defer]='u32'
	[lmbench]='memcpy|csum|copy|pskb|linearize'
	[matrix]='tbf|qdisc|throttl|tc\.'
)
pick_rows seeds.sh
[ "$QUICK" = 1 ] && MATRIX_REST=()
[ "$REPS" -le 6 ] || { echo "seeds.sh: REPS must be at most 6 (runs a side), not '$REPS'" >&2; exit 2; }
KEEP=${KEEP:-}

# ---------------------------------------------------------------- cleanup
tmp=
CUR_PID=
WATCH_PID=
NS=
RMEM_ORIG=

cleanup() {
	trap - EXIT INT TERM HUP
	stop_pid "$CUR_PID"
	stop_pid "$WATCH_PID"
	rmem_restore
	[ -n "$NS" ] && ip netns del "$NS" 2>/dev/null
	[ -n "$tmp" ] && rm -rf -- "$tmp"
}
trap cleanup EXIT
trap 'log "seeds.sh: interrupted"; exit 130' INT
trap 'log "seeds.sh: terminated"; exit 143' TERM HUP

# ---------------------------------------------------------------- injections
RMEM_FILE=/proc/sys/net/core/rmem_max
rmem_restore() {
	[ -n "$RMEM_ORIG" ] || return 0
	[ "$(cat "$RMEM_FILE")" = "$RMEM_ORIG" ] || echo "$RMEM_ORIG" >"$RMEM_FILE" ||
		log "seeds.sh: could not put net.core.rmem_max back to $RMEM_ORIG"
}

# inject ROW on|off: the row's mechanism in place, or gone
inject() {
	case $1:$2 in
	rcvbuf:on) echo "$RMEM_MAX" >"$RMEM_FILE" ;;
	rcvbuf:off) rmem_restore ;;
	defer:on)
		ip netns exec "$NS" tc qdisc add dev lo clsact &&
			ip netns exec "$NS" tc -b "$tmp/filters.tc" ;;
	lmbench:on)
		local acts="" i
		for i in $(seq "$MIRRORS"); do acts+=" action mirred egress mirror dev sdm0"; done
		ip netns exec "$NS" tc qdisc add dev lo clsact &&
			ip netns exec "$NS" tc filter add dev lo ingress prio 1 protocol ip u32 match u32 0 0 $acts ;;
	defer:off | lmbench:off) ip netns exec "$NS" tc qdisc del dev lo clsact 2>/dev/null; return 0 ;;
	matrix:*) return 0 ;; # the watcher, around the injected cell's matrix only
	esac
}

# watch_tbf PID: (in the background) a tbf on the client veth of every
# namespace matrix PID builds, as soon as the veth is there; polls with
# bash builtins only, so that it costs B's runs next to nothing
watch_tbf() {
	local pid=$1 f ns fd
	local -A seen=()
	exec {fd}<> <(:)
	while kill -0 "$pid" 2>/dev/null; do
		for f in /run/netns/nr-"$pid"-*-c; do
			ns=${f##*/}
			[ -e "$f" ] && [ -z "${seen[$ns]:-}" ] || continue
			ip netns exec "$ns" tc qdisc replace dev nr-veth-c root tbf rate "$TBF_RATE" \
				burst 256kb latency 20ms 2>/dev/null && { seen[$ns]=1; log "  tbf $TBF_RATE on $ns nr-veth-c"; }
		done
		read -r -t 0.01 -u "$fd" _
	done
}

# The machine's buffer sysctls besides the one we lower: another tenant
# that changes one (rmem_default is the machine's too) changes what every
# run is granted, on either side; each matrix is followed by a look.
WATCHED=(net/core/rmem_default net/core/wmem_default net/core/wmem_max
	net/ipv4/tcp_rmem net/ipv4/tcp_wmem)
SYSCTL0=
SYSCTL_CHANGES=0
sysctl_now() {
	local f
	for f in "${WATCHED[@]}"; do printf '%s=%s; ' "${f//\//.}" "$(tr -s ' \t' ' ' <"/proc/sys/$f")"; done
}
sysctl_look() {
	local now
	now=$(sysctl_now)
	[ "$now" = "$SYSCTL0" ] && return 0
	SYSCTL_CHANGES=$((SYSCTL_CHANGES + 1))
	log "seeds.sh: after $1, not ours: $now (at the start: $SYSCTL0)"
	SYSCTL0=$now
}

# ---------------------------------------------------------------- runs
# matrix ROW LABEL [WHERE...]: one matrix of the row's scenario under LABEL
# (in our namespace for the loopback rows), its step lines to stderr
matrix() {
	local row=$1 label=$2 rc
	shift 2
	local -a cmd=("$NR" matrix "$tmp/${JOB[$row]}.yaml" --label "$label"
		--db "$tmp/$row.db" --keep-disturbed "$@")
	[ "$row" = matrix ] || cmd=(ip netns exec "$NS" "${cmd[@]}")
	"${cmd[@]}" >"$tmp/m.out" 2>"$tmp/m.err" &
	CUR_PID=$!
	if [ "$row:$label" = matrix:B ] && [ "$*" = "${CELL[matrix]}" ]; then
		watch_tbf "$CUR_PID" &
		WATCH_PID=$!
	fi
	wait "$CUR_PID"
	rc=$?
	CUR_PID=
	stop_pid "$WATCH_PID"
	WATCH_PID=
	grep -E '^step ' "$tmp/m.err" | sed "s/^/  $row $label: /" >&2
	sysctl_look "$row $label"
	[ "$rc" -eq 0 ] || { log "seeds.sh: matrix $row $label failed ($rc):"; tail -n 5 "$tmp/m.err" >&2; }
	return "$rc"
}

# run_label ROW LABEL: the row's runs of one label in one round: the whole
# scenario (QUICK: the injected cell); in B with the injection, and for
# udp-matrix the injected cell alone, then its other cells without it
run_label() {
	local row=$1 label=$2 w rc=0
	local -a where=()
	[ "$QUICK" = 1 ] || { [ "$row:$label" = matrix:B ] || w=all; }
	[ "${w:-}" = all ] || read -r -a where <<<"${CELL[$row]}"
	[ "$label" = B ] || { matrix "$row" "$label" "${where[@]}"; return; }
	inject "$row" on || { log "seeds.sh: injecting $row failed"; inject "$row" off; return 1; }
	matrix "$row" B "${where[@]}" || rc=$?
	inject "$row" off
	[ "$row" = matrix ] || return "$rc"
	for w in "${MATRIX_REST[@]}"; do
		read -r -a where <<<"$w"
		matrix "$row" B "${where[@]}" || rc=$?
	done
	return "$rc"
}

# compare_row ROW: compare B and AA with A for the row's injected cell;
# sets RES_B, RES_AA ("verdict shift lo hi metric a b paired-verdict", tab
# separated, "-" for what is missing) and OTHERS (other cells called by
# the rank test, or "-") and BUSY (the median share of the machine that
# other processes took in the injected cell's runs, all labels)
JQ_ROW='
	def num: if . == null then "-" else tostring end;
	(.configs // [])[0] as $c
	| if $c == null then ["none", "-", "-", "-", "-", "-", "-", "-"] else
	  ([$c.rows[] | select(.metric == $c.headline)][0]) as $h
	  | ([$c.rows[] | select(.metric == $c.headline + ".paired")][0]) as $p
	  | ($c.explained_by[0]) as $e
	  | [$h.verdict, ($h.shift_pct | num), ($h.shift_lo_pct | num), ($h.shift_hi_pct | num),
	     ($e.metric // "-"), ($e.a | num), ($e.b | num), ($p.verdict // "-")] end
	| @tsv'
JQ_CALLED='[.configs[] | select(.config_key != $key)
	| . as $c | [.rows[] | select(.metric == $c.headline)][0].verdict
	| select(. == "REGRESSION" or . == "IMPROVEMENT" or . == "changed")] | length'
RES_B='' RES_AA='' OTHERS='' BUSY=''
compare_row() {
	local row=$1 db="$tmp/$1.db" key
	local -a where
	read -r -a where <<<"${CELL[$row]}"
	"$NR" compare A B --db "$db" --keep-disturbed "${where[@]}" >"$tmp/c.txt" 2>&1
	log "== $row: compare A B ${CELL[$row]}"
	sed -n '1,/^metric (better)/p' "$tmp/c.txt" | sed 's/^/  /' >&2
	"$NR" compare A B --db "$db" --keep-disturbed --json "${where[@]}" >"$tmp/b.json" 2>/dev/null
	RES_B=$(jq -r "$JQ_ROW" "$tmp/b.json" 2>/dev/null) || RES_B=
	"$NR" compare A AA --db "$db" --keep-disturbed --json "${where[@]}" >"$tmp/aa.json" 2>/dev/null
	RES_AA=$(jq -r "$JQ_ROW" "$tmp/aa.json" 2>/dev/null) || RES_AA=
	log "  A/AA: $(cut -f1-4,8 <<<"$RES_AA" | tr '\t' ' ')"
	BUSY=$("$NR" export --db "$db" "${where[@]}" 2>/dev/null | jq -rs '
		[.[] | .metrics["cpu.foreign_busy_pct"].value // empty] | sort
		| if length == 0 then "-" else .[length / 2 | floor] | round | tostring end' 2>/dev/null) || BUSY=-
	OTHERS=-
	[ -n "${CELL[$row]}" ] && [ "$QUICK" = 0 ] || return 0
	key=$(jq -r '.configs[0].config_key // ""' "$tmp/b.json" 2>/dev/null)
	"$NR" compare A B --db "$db" --keep-disturbed --json >"$tmp/all.json" 2>/dev/null
	OTHERS=$(jq -r --arg key "$key" "$JQ_CALLED" "$tmp/all.json" 2>/dev/null) || OTHERS='?'
}

called() { case $1 in REGRESSION | IMPROVEMENT | changed) return 0 ;; esac; return 1; }

# table_line ROW: the row's line of the table (and the tallies)
N_DET=0 N_DETP=0 N_EXP=0 N_AA=0
table_line() {
	local row=$1 v s lo hi m a b vp va vap change first names
	IFS=$'\t' read -r v s lo hi m a b vp <<<"${RES_B:-none}"
	IFS=$'\t' read -r va _ _ _ _ _ _ vap <<<"${RES_AA:-none}"
	change=$(awk -v s="$s" -v lo="$lo" -v hi="$hi" 'BEGIN {
		if (s == "-") { print "-"; exit }
		printf "%+.1f%% [%+.1f%%, %+.1f%%]", s, lo, hi }')
	first=$(awk -v m="$m" -v a="$a" -v b="$b" 'BEGIN {
		if (m == "-") { print "-"; exit }
		# an environment setting reads as words (noqueue -> tbf)
		if (a !~ /^[-+0-9.eE]+$/ || b !~ /^[-+0-9.eE]+$/) { printf "%s %s -> %s", m, a, b; exit }
		printf "%s %.4g -> %.4g", m, a, b }')
	names=no
	[ "$m" != - ] && grep -Eq -- "${CAUSE[$row]}" <<<"$m" && names=yes
	called "$v" && N_DET=$((N_DET + 1))
	called "${vp:--}" && N_DETP=$((N_DETP + 1))
	{ called "$v" || called "${vp:--}"; } && [ "$names" = yes ] && N_EXP=$((N_EXP + 1))
	{ called "$va" || called "${vap:--}"; } && N_AA=$((N_AA + 1))
	printf '%-24s | %-50s | %-25s | %-28s | %-52s | %-3s /%s/ | %-25s | %-18s | %s\n' \
		"${JOB[$row]%-quick}" "${DESC[$row]}" "${v:-none} / ${vp:--}" "$change" "$first" "$names" \
		"${CAUSE[$row]}" "${va:-none} / ${vap:--}" "$OTHERS" "${BUSY:--}%"
}

# ---------------------------------------------------------------- setup
[ "$(id -u)" -eq 0 ] || { log "seeds.sh: needs root (namespaces, tc, a sysctl)"; exit 1; }
need_tools seeds.sh jq:jq tc:iproute2 ip:iproute2 ethtool:ethtool flock:util-linux
# one at a time: a second one would take the first's lowered rmem_max for
# the machine's
exec {lock_fd}>/run/lock/netregress-seeds.lock
flock -n "$lock_fd" || { log "seeds.sh: another bench/seeds.sh is running (/run/lock/netregress-seeds.lock)"; exit 1; }
need_netregress seeds.sh "$repo"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/seeds.XXXXXX")
RMEM_ORIG=$(cat "$RMEM_FILE")
[[ " ${ROWS[*]} " == *" rcvbuf "* ]] &&
	log "seeds.sh: net.core.rmem_max is $RMEM_ORIG; lowered only while B runs (after a SIGKILL: sysctl -w net.core.rmem_max=$RMEM_ORIG)"
NS=seeds-$$
ip netns add "$NS" && ip -n "$NS" link set lo up || { log "seeds.sh: cannot make namespace $NS"; exit 1; }
# the mirror's target: a veth pair inside our namespace, both ends up, the
# mirrored end unable to take a packet as it is (no sg, no tx checksum)
ip -n "$NS" link add sdm0 mtu 65535 type veth peer name sdm1 mtu 65535 &&
	ip -n "$NS" link set sdm0 up && ip -n "$NS" link set sdm1 up &&
	ip netns exec "$NS" ethtool -K sdm0 sg off tx off >/dev/null 2>&1 ||
	{ log "seeds.sh: cannot make the mirror veth in $NS"; exit 1; }
for i in $(seq 0 $((FILTERS - 1))); do
	echo "filter add dev lo ingress prio 1 protocol ip u32 match ip dst 198.18.$((i / 250)).$((i % 250 + 1))/32 classid 1:1"
done >"$tmp/filters.tc"
# the quick scenarios with one repetition a matrix, nothing else changed
for row in "${ROWS[@]}"; do
	sed -E 's/^repetitions: *[0-9]+ *$/repetitions: 1/' "$repo/scenarios/${JOB[$row]}.yaml" >"$tmp/${JOB[$row]}.yaml"
	grep -q '^repetitions: 1$' "$tmp/${JOB[$row]}.yaml" ||
		{ log "seeds.sh: scenarios/${JOB[$row]}.yaml has no 'repetitions:' line to set"; exit 1; }
done

SYSCTL0=$(sysctl_now)
stamp_start busy
echo "seeds.sh: $(nr_version)"
machine_line
echo "started : $START_DATE, load $LOAD0, busy $BUSY0 (2 s probe)"
echo "runs    : $REPS round(s) of B A AA / AA A B, one run a side each$([ "$QUICK" = 1 ] && echo "; QUICK: the injected cells only")"

# ---------------------------------------------------------------- rounds
ORDERS=("B A AA" "AA A B")
for row in "${ROWS[@]}"; do
	for r in $(seq "$REPS"); do
		log "== $row: round $r of $REPS (${ORDERS[$(((r - 1) % 2))]})"
		for label in ${ORDERS[$(((r - 1) % 2))]}; do
			run_label "$row" "$label" || log "seeds.sh: $row $label round $r failed; going on"
		done
	done
	compare_row "$row"
	printf '%s\n' "$row" >>"$tmp/done"
	declare "RB_$row=$RES_B" "RAA_$row=$RES_AA" "RO_$row=$OTHERS" "RF_$row=$BUSY"
done

stamp_end busy
echo "ended   : $END_DATE, load $LOAD1, busy $BUSY1; $((END_S - START_S)) s"
echo
printf '%-24s | %-50s | %-25s | %-28s | %-52s | %-s | %-25s | %-18s | %s\n' scenario mechanism "verdict (rank / paired)" \
	"change (shift [95% CI])" "first explaining row" "names the cause? /regex/" "A/A verdict (rank / paired)" "other cells called" "foreign CPU"
for row in "${ROWS[@]}"; do
	v=RB_$row va=RAA_$row vo=RO_$row vf=RF_$row
	RES_B=${!v} RES_AA=${!va} OTHERS=${!vo} BUSY=${!vf}
	table_line "$row"
done
echo "detected $N_DET/${#ROWS[@]} (rank test), $N_DETP/${#ROWS[@]} (.paired), explained $N_EXP/${#ROWS[@]}, A/A calls $N_AA"
[ "$SYSCTL_CHANGES" -eq 0 ] || echo "warning: another tenant changed the machine's buffer sysctls $SYSCTL_CHANGES time(s) during the runs (stderr): the granted.* rows may show it"
if [ -n "$KEEP" ]; then
	mkdir -p -- "$KEEP" && cp -- "$tmp"/*.db "$KEEP"/ && log "seeds.sh: stores kept in $KEEP"
fi
