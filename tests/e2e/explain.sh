#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end in a namespace of its own: a kernel function that runs only in
# B's runs (1000 tc u32 filters on the ingress of lo, which every received
# datagram walks) gets a profile row with A at 0, and compare names it
# first among what moved with the headline, in text and JSON.
. "$(dirname "$0")/lib.sh"

make_netns || { echo "1..0 # SKIP cannot make a network namespace"; exit 0; }
NSX=(ip netns exec "$NS_NAME")
RUNX=(udp_stream -l 1s --warmup 300ms --profile --reps 6)

# The filters match addresses no datagram carries: each one is a miss.
for i in $(seq 1 1000); do
	echo "filter add dev lo ingress prio 1 protocol ip u32 match ip dst 198.18.$((i / 250)).$((i % 250 + 1))/32 classid 1:1"
done >"$TMP/filters"

timeout 120 "${NSX[@]}" "$NR" run "${RUNX[@]}" --label A >"$TMP/a.out" 2>&1
check "A: 6 profiled udp_stream runs in the namespace" [ $? -eq 0 ] || diag "$TMP/a.out"
"${NSX[@]}" tc qdisc add dev lo clsact && "${NSX[@]}" tc -b "$TMP/filters"
check "B's 1000 ingress filters are in place" \
	[ "$("${NSX[@]}" tc filter show dev lo ingress | grep -c 'match ')" -ge 1000 ]
timeout 120 "${NSX[@]}" "$NR" run "${RUNX[@]}" --label B >"$TMP/b.out" 2>&1
check "B: 6 profiled runs with the filters" [ $? -eq 0 ] || diag "$TMP/b.out"
"${NSX[@]}" tc qdisc del dev lo clsact

"$NR" compare A B --keep-disturbed --json >"$TMP/cmp.json" 2>"$TMP/cmp.err"
check "compare --json exits 0 or 1" [ $? -le 1 ] || diag "$TMP/cmp.err"
# The hottest profile row of the symbols absent from every run of A (0
# there): the classifier the filters run.
cat >"$TMP/hot.py" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["comparisons"][0] if "comparisons" in d else d
cfg = c["configs"][0] if "configs" in c else c
rows = [r for r in cfg["rows"] if r["metric"].startswith("profile.self.")]
hot = max((r for r in rows if r["a"]["median"] == 0), key=lambda r: r["b"]["median"])
prof = [w for w in cfg["explained_by"] if w["metric"].startswith("profile.self.")]
print(hot["metric"], hot["a"]["median"], hot["b"]["median"], prof[0]["metric"] if prof else "-",
      prof[0]["kind"] if prof else "-")
PY
read -r hot ha hb first kind < <(python3 "$TMP/hot.py" "$TMP/cmp.json" 2>"$TMP/py.err")
echo "# hottest new profile row: $hot $ha -> $hb; first profile row explaining: $first ($kind)"
checkx "a symbol A's runs never had has a row, at 5% or more of B's samples" \
	'[ -n "$hot" ] && python3 -c "import sys; sys.exit(0 if float(\"$ha\") == 0 and float(\"$hb\") >= 5 else 1)"' ||
	diag "$TMP/py.err"
checkx "it ranks first among the profile rows of what moved with the headline, as a cost" \
	'[ -n "$hot" ] && [ "$first" = "$hot" ] && [ "$kind" = cost ]'

"$NR" compare A B --keep-disturbed >"$TMP/cmp.txt" 2>&1
checkx "the text names it first, as the call's likely cause, and under the headline's line, before the table" \
	'grep -qE "^  likely: $hot " "$TMP/cmp.txt" &&
	 awk "/^throughput.gbps:/{h=NR} /what moved with it/{w=NR} /$hot/ && w && !f{f=NR} /^metric \\(better\\)/{t=NR} END{exit !(h && w > h && f > w && t > f)}" "$TMP/cmp.txt"' ||
	diag "$TMP/cmp.txt"
"$NR" compare A B --keep-disturbed --csv >"$TMP/cmp.csv" 2>&1
checkx "--csv gives its rank in the explains column" \
	'head -1 "$TMP/cmp.csv" | grep -q ",explains$" && grep "^A,B,.*,$hot," "$TMP/cmp.csv" | grep -qE ",[1-8]$"' ||
	diag "$TMP/cmp.csv" "explains|$hot"

# A receive buffer the kernel grants smaller at the same request: in a
# second namespace, B's tcp_rmem default halved (its own sysctl there).
# The grant is a setting: listed first whenever it differs, untested.
make_netns || exit 1
NSG=(ip netns exec "$NS_NAME")
RUNG=(tcp_stream -n 1 --dir recv -l 1s --warmup 200ms --reps 2 --db "$TMP/g.db")
read -r rlo rmid rhi </proc/sys/net/ipv4/tcp_rmem
timeout 60 "${NSG[@]}" "$NR" run "${RUNG[@]}" --label GA >"$TMP/ga.out" 2>&1
"${NSG[@]}" sysctl -qw net.ipv4.tcp_rmem="$rlo $((rmid / 2)) $rhi"
timeout 60 "${NSG[@]}" "$NR" run "${RUNG[@]}" --label GB >"$TMP/gb.out" 2>&1
check "two labels of tcp_stream, B's namespace with tcp_rmem '$rlo $((rmid / 2)) $rhi'" \
	[ "$(grep -c '(stored)' "$TMP/ga.out" "$TMP/gb.out" | awk -F: '{ s += $2 } END { print s }')" -eq 4 ] ||
	diag "$TMP/gb.out"
"$NR" compare GA GB --db "$TMP/g.db" --keep-disturbed >"$TMP/g.txt" 2>&1
checkx "compare lists the sysctl first, as set in B's environment, then a granted rcvbuf $rmid B -> $((rmid / 2)) B" \
	'grep -A2 "what moved with it" "$TMP/g.txt" | grep -qE "1. (client|server).sysctl.net.ipv4.tcp_rmem $rlo $rmid $rhi -> $rlo $((rmid / 2)) $rhi: set so in B" &&
	 grep -A3 "what moved with it" "$TMP/g.txt" | grep -qE "[23]. granted.(client|server).rcvbuf $rmid B -> $((rmid / 2)) B .*granted by the kernel"' ||
	diag "$TMP/g.txt" "granted|what moved|^throughput"
checkx "and as a row of the table" 'grep -qE "^granted.server.rcvbuf \(neutral\)" "$TMP/g.txt"' ||
	diag "$TMP/g.txt" "granted"

echo "1..$tap_n"
