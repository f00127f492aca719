#!/usr/bin/env bash
# bench/bisect.sh - repeated short bisects of a synthetic repository whose
# culprit injects a kernel-side change: the share of tries that name the
# right commit, the runs a step takes and the time a bisect takes.
#
# Usage: bench/bisect.sh                 (TRIES=20 per mechanism; ~25 min)
#        QUICK=1 bench/bisect.sh         (TRIES=2: a smoke run, ~3 min)
#        TRIES=5 MECHS="rmem" NR=build/netregress bench/bisect.sh
#        NR=/path/to/an/older/netregress bench/bisect.sh   (no --reanchor:
#                                        the rule before issue #54)
#
# Needs root, iproute2 (ip, tc) and git. Every try builds a repository of
# NCOMMITS (12) commits in $TMP; from a random culprit (2..12) on, each
# commit's knob.conf injects the change:
#   rmem   net.ipv4.tcp_rmem capped at 32 KiB in the step's namespace (the
#          small-receive-buffer regression of issue #54: tcp_stream on
#          loopback falls from ~13 to 3-6 Gbps here, its level moving from
#          one namespace, and run, to the next);
#   u32    3000 u32 filters on lo's clsact ingress hook, each matching
#          198.18.0.1 (not the traffic's 127.0.0.1), so that every packet
#          walks all of them: a steady per-packet cost.
# The endpoints are measured as a new user would (`run --reps 5 -l 1s`, in
# a namespace of their commit), `bisect start` (when it asks for more
# endpoint samples, they are added once, as it says, 10 at most), then `git bisect run` of a
# step script that makes a fresh namespace with the commit's knob and runs
# `netregress bisect run --repo . --reanchor CMD` inside; CMD (the re-anchor
# hook) makes a namespace for $NETREGRESS_BISECT_COMMIT's knob and runs
# `netregress bisect reanchor --side $NETREGRESS_BISECT_SIDE` inside. Each
# namespace is deleted when its command ends, on every path.
#
# Output: one line per try (culprit, named, steps, runs, partial steps,
# re-anchors, seconds), then a table per mechanism: tries, right, median
# runs per step (step runs / steps, re-anchor runs counted), median time
# of a try. Traffic stays inside namespaces the script makes (loopback).
set -u
cd "$(dirname "$0")/.." || exit 1
NR=${NR:-$PWD/build/netregress}
case $NR in /*) ;; *) NR=$PWD/$NR ;; esac
QUICK=${QUICK:-0}
TRIES=${TRIES:-$([ "$QUICK" = 1 ] && echo 2 || echo 20)}
MECHS=${MECHS:-rmem u32}
NCOMMITS=${NCOMMITS:-12}
RUN=(-l 1s --warmup 300ms)

if [ "$(id -u)" -ne 0 ] || ! command -v ip >/dev/null || ! command -v tc >/dev/null ||
	! command -v git >/dev/null; then
	echo "bench/bisect.sh: needs root, iproute2 (ip, tc) and git" >&2
	exit 2
fi
[ -x "$NR" ] || { echo "bench/bisect.sh: no $NR (make first)" >&2; exit 2; }
TMP=$(mktemp -d /tmp/nr-bench-bisect.XXXXXX)
trap 'for n in $(ip netns list 2>/dev/null | awk "/^nrbb-$$-/{print \$1}"); do ip netns del "$n"; done; rm -rf "$TMP"' EXIT
trap 'exit 130' INT TERM
export GIT_AUTHOR_NAME=netregress GIT_AUTHOR_EMAIL=bench@netregress.invalid
export GIT_COMMITTER_NAME=netregress GIT_COMMITTER_EMAIL=bench@netregress.invalid
export GIT_CONFIG_NOSYSTEM=1 HOME=$TMP NR

# ns_exec KNOBFILE CMD...: CMD in a fresh namespace set up as KNOBFILE says
# (written out so that the step and re-anchor scripts share it)
cat >"$TMP/ns_exec.sh" <<EOF
#!/usr/bin/env bash
knob=\$1; shift
ns=nrbb-$$-\$\$-\$RANDOM
ip netns add "\$ns" || exit 125
trap 'ip netns del "\$ns" 2>/dev/null' EXIT
ip -n "\$ns" link set lo up || exit 125
case "\$(sed -n 's/^mech: *//p' "\$knob")" in
rmem)
	ip netns exec "\$ns" sysctl -qw net.ipv4.tcp_rmem="4096 32768 32768" || exit 125 ;;
u32)
	ip netns exec "\$ns" tc qdisc add dev lo clsact || exit 125
	for i in \$(seq 1 3000); do
		echo "filter add dev lo ingress prio 1 protocol ip u32 match ip dst 198.18.0.1/32 classid 1:1"
	done | ip netns exec "\$ns" tc -batch - || exit 125 ;;
none) ;;
esac
ip netns exec "\$ns" "\$@"
EOF
# the re-anchor hook: the commit's knob from git, then bisect reanchor
cat >"$TMP/reanchor.sh" <<'EOF'
#!/usr/bin/env bash
git show "$NETREGRESS_BISECT_COMMIT:knob.conf" >"$TMP_TRY/anchor.conf" || exit 1
"$TMP/ns_exec.sh" "$TMP_TRY/anchor.conf" "$NR" bisect reanchor --side "$NETREGRESS_BISECT_SIDE" --db "$DB" >>"$STEP_LOG" 2>&1
EOF
# the step: the checked-out commit's knob, then bisect run
cat >"$TMP/step.sh" <<'EOF'
#!/usr/bin/env bash
# a netregress from before issue #54 has no --reanchor: run it without
anchor=()
"$NR" bisect --help | grep -q -- --reanchor && anchor=(--reanchor "$TMP/reanchor.sh")
timeout 300 "$TMP/ns_exec.sh" knob.conf "$NR" bisect run --repo "$PWD" --db "$DB" \
	"${anchor[@]}" >>"$STEP_LOG" 2>&1
rc=$?
[ $rc -eq 124 ] && rc=125
exit $rc
EOF
chmod +x "$TMP"/*.sh
export TMP

# one_try MECH N: prints "culprit named steps runs partial anchors seconds"
one_try() {
	local mech=$1 n=$2 culprit i good bad t0 found
	export TMP_TRY=$TMP/$mech-$n DB=$TMP/$mech-$n/nr.db STEP_LOG=$TMP/$mech-$n/steps.log
	mkdir -p "$TMP_TRY"
	culprit=$((RANDOM % (NCOMMITS - 1) + 2))
	git init -q "$TMP_TRY/repo"
	for i in $(seq 1 "$NCOMMITS"); do
		if [ "$i" -ge "$culprit" ]; then echo "mech: $mech"; else echo "mech: none"; fi >"$TMP_TRY/repo/knob.conf"
		echo "change $i" >>"$TMP_TRY/repo/notes.txt"
		git -C "$TMP_TRY/repo" add knob.conf notes.txt && git -C "$TMP_TRY/repo" commit -q -m "commit $i"
	done
	good=$(git -C "$TMP_TRY/repo" rev-list --reverse HEAD | sed -n 1p)
	bad=$(git -C "$TMP_TRY/repo" rev-parse HEAD)
	t0=$(date +%s)
	for rev in "$good" "$bad"; do
		git -C "$TMP_TRY/repo" show "$rev:knob.conf" >"$TMP_TRY/end.conf"
		"$TMP/ns_exec.sh" "$TMP_TRY/end.conf" "$NR" run tcp_stream "${RUN[@]}" --reps 5 \
			--label "$rev" --db "$DB" >/dev/null 2>&1
	done
	# as a new user would: when start asks for more endpoint samples, add
	# them (once), measured as before
	for attempt in 1 2; do
		"$NR" bisect start --good "$good" --bad "$bad" tcp_stream "${RUN[@]}" --db "$DB" \
			>"$TMP_TRY/start" 2>&1 && break
		[ "$attempt" = 2 ] && break
		grep -q "add [0-9]* samples\? to" "$TMP_TRY/start" || break
		for rev in "$good" "$bad"; do
			add=$(sed -n "s/^  add \([0-9]*\) samples\{0,1\} to '$rev'.*/\1/p" "$TMP_TRY/start")
			[ -n "$add" ] || continue
			# a bimodal stream's power calculation can ask for thousands
			[ "$add" -gt 10 ] && add=10
			git -C "$TMP_TRY/repo" show "$rev:knob.conf" >"$TMP_TRY/end.conf"
			"$TMP/ns_exec.sh" "$TMP_TRY/end.conf" "$NR" run tcp_stream "${RUN[@]}" \
				--reps "$add" --label "$rev" --db "$DB" >/dev/null 2>&1
		done
	done
	if ! grep -q "^bisect [0-9]* started" "$TMP_TRY/start"; then
		sed "s/^/#   $mech $n: /" "$TMP_TRY/start" | tail -4 >&2
		echo "$culprit refused 0 0 0 0 $(($(date +%s) - t0))"
		return
	fi
	git -C "$TMP_TRY/repo" bisect start "$bad" "$good" >/dev/null
	(cd "$TMP_TRY/repo" && git bisect run "$TMP/step.sh") >"$TMP_TRY/bisect" 2>&1
	found=$(sed -n 's/^\([0-9a-f]\{40\}\) is the first bad commit$/\1/p' "$TMP_TRY/bisect")
	git -C "$TMP_TRY/repo" bisect reset >/dev/null 2>&1
	idx=0
	[ -n "$found" ] && idx=$(git -C "$TMP_TRY/repo" rev-list --reverse HEAD | grep -n "^$found" | cut -d: -f1)
	"$NR" bisect log --db "$DB" --json >"$TMP_TRY/log.json" 2>/dev/null
	python3 - "$TMP_TRY/log.json" "$culprit" "$idx" "$(($(date +%s) - t0))" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
steps = [s for s in d["steps"] if not s["commit"].startswith("anchor:")]
anchors = [s for s in d["steps"] if s["commit"].startswith("anchor:")]
runs = sum(len(s["values"]) for s in d["steps"])
partial = sum(s["verdict"] == "partial" for s in steps)
print(sys.argv[2], sys.argv[3], len(steps), runs, partial, len(anchors), sys.argv[4])
PY
}

declare -A RIGHT TOTAL
echo "# mech try culprit named steps runs partial anchors seconds"
for mech in $MECHS; do
	: >"$TMP/$mech.tries"
	for n in $(seq 1 "$TRIES"); do
		line=$(one_try "$mech" "$n")
		echo "$mech $n $line" | tee -a "$TMP/$mech.tries"
	done
done
echo
echo "| mechanism | tries | right | runs per step (median) | time per try (median) | partial steps | re-anchors | refused |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for mech in $MECHS; do
	python3 - "$mech" "$TMP/$mech.tries" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[2]) if l.strip()]
# mech try culprit named steps runs partial anchors seconds
right = sum(r[3] == r[2] for r in rows)
per_step = [int(r[5]) / int(r[4]) for r in rows if r[3] != "refused" and int(r[4])]
secs = [int(r[8]) for r in rows]
print(f"| {sys.argv[1]} | {len(rows)} | {right}/{len(rows)} ({100 * right / len(rows):.0f}%) | "
      f"{statistics.median(per_step) if per_step else float('nan'):.2f} | "
      f"{statistics.median(secs):.0f} s | {sum(int(r[6]) for r in rows)} | "
      f"{sum(int(r[7]) for r in rows)} | {sum(r[3] == 'refused' for r in rows)} |")
PY
done
