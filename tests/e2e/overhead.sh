#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# End to end on loopback: --overhead switches the in-window collectors on and
# off in 200 ms phases and reports what they cost from on/off pairs.
. "$(dirname "$0")/lib.sh"

# A 3 s window is 30 ticks: 15 phases, of which about 14 end inside it,
# so 6 or 7 pairs (the one open at the end does not count).
timeout 60 "$NR" run tcp_stream -l 3s --warmup 500ms --profile --overhead --json \
	>"$TMP/oh.json" 2>"$TMP/oh.err"
check "tcp_stream --overhead --profile exits 0" [ $? -eq 0 ]
check "at least 5 on/off pairs of phases in a 3 s window, at most 8" \
	jtrue "$TMP/oh.json" '5 <= v("overhead.pairs") <= 8'
check "overhead: the on/off ratio lies in its interval, and pct is 100 x (1 - ratio)" \
	jtrue "$TMP/oh.json" '0 < v("overhead.on_off_lo") <= v("overhead.on_off") <= v("overhead.on_off_hi") and abs(v("overhead.pct") - 100 * (1 - v("overhead.on_off"))) < 1e-9 and v("overhead.pct_lo") <= v("overhead.pct") <= v("overhead.pct_hi")'
check "overhead.pct is lower-is-better, in %" \
	jtrue "$TMP/oh.json" 'd["metrics"]["overhead.pct"]["better"] == "lower" and d["metrics"]["overhead.pct"]["unit"] == "%"'
# Paused half the time, the counters are extrapolated to the window (on one
# host the client collects for both ends, unprefixed):
# cpu-clock on every CPU counts idle time too, so it is window x CPUs.
check "perf counted about half the window and says so" \
	jtrue "$TMP/oh.json" 're.search(r"counted in (4\d|5\d|6\d)\.\d% of the window", d["env"]["client"]["collect.perf.paused"]) is not None'
check "perf.cpu_clock_ns is extrapolated to the whole window (window x CPUs, within 15%)" \
	jtrue "$TMP/oh.json" 'abs(v("perf.cpu_clock_ns") / (v("window.client_s") * 1e9 * int(d["env"]["client"]["online_cpus"])) - 1) < 0.15'
check "the profile sampled about half the window, and still ranks symbols" \
	jtrue "$TMP/oh.json" 're.search(r"sampled in (4\d|5\d|6\d)\.\d% of the window", d["env"]["client"]["collect.profile.paused"]) is not None and sum(1 for k in d["metrics"] if k.startswith("profile.self.")) >= 5'
check "--overhead stores nothing (its window mixes collector states)" \
	[ ! -s "$NETREGRESS_DB" ]

# The table ends with the verdict line.
timeout 60 "$NR" run udp_stream -l 2s --warmup 300ms --overhead >"$TMP/oh.txt" 2>&1
check "udp_stream --overhead prints the collectors' cost with its interval" \
	grep -qE "^collectors' cost: -?[0-9.]+% of the rate, 95% interval \[-?[0-9.]+%, -?[0-9.]+%\], from [0-9]+ on/off pairs of 200 ms phases$" "$TMP/oh.txt"

# Request/response: the rate is transactions/s.
timeout 60 "$NR" run tcp_rr -l 2s --warmup 300ms --overhead --json >"$TMP/ohrr.json" 2>"$TMP/ohrr.err"
check "tcp_rr --overhead: at least 3 pairs, a finite ratio" \
	jtrue "$TMP/ohrr.json" 'v("overhead.pairs") >= 3 and 0 < v("overhead.on_off") < 10'

# Repetitions: each one's line carries its cost and interval (then, for
# one the host or another process disturbed, why).
timeout 60 "$NR" run udp_rr -l 2s --warmup 300ms --overhead --reps 2 >"$TMP/ohreps.txt" 2>&1
check "--reps 2 --overhead: both repetition lines give the collectors' cost" \
	[ "$(grep -cE "^repetition [12]/2: transactions.per_s .*, collectors' cost -?[0-9.]+% \[-?[0-9.]+%, -?[0-9.]+%\](; DISTURBED: .* \(not counted\))?$" "$TMP/ohreps.txt")" -eq 2 ]

# The profile's rows: every symbol at or over the threshold (0.1% by
# default, profile.min_pct), self and children from the call chains; a
# kernel symbol's children share covers its self share.
timeout 60 "$NR" run tcp_stream -l 2s --warmup 500ms --profile --json --no-store \
	>"$TMP/prof.json" 2>"$TMP/prof.err"
check "tcp_stream --profile exits 0" [ $? -eq 0 ]
check "--profile: profile.self rows, each at or over profile.min_pct (0.1), in %" \
	jtrue "$TMP/prof.json" 'v("profile.min_pct") == 0.1 and sum(1 for k in m if k.startswith("profile.self.")) >= 10 and all(v(k) >= 0.1 - 1e-9 and m[k]["unit"] == "%" for k in m if k.startswith("profile.self."))'
check "--profile: profile.children rows, at or over the threshold, at most 100%" \
	jtrue "$TMP/prof.json" 'sum(1 for k in m if k.startswith("profile.children.")) >= 10 and all(0.1 - 1e-9 <= v(k) <= 100 and m[k]["unit"] == "%" for k in m if k.startswith("profile.children."))'
check "--profile: every kernel symbol's children share is at least its self share" \
	jtrue "$TMP/prof.json" 'all(("profile.children." + k[13:]) in m and v("profile.children." + k[13:]) >= v(k) - 1e-9 for k in m if k.startswith("profile.self.") and not k[13:].startswith("_"))' ||
	diag "$TMP/prof.json" 'profile'
check "--profile: the chains reach the callers (the largest children share is over every self share)" \
	jtrue "$TMP/prof.json" 'max(v(k) for k in m if k.startswith("profile.children.")) > max(v(k) for k in m if k.startswith("profile.self.") and k != "profile.self._user_")'
timeout 60 "$NR" run tcp_stream -l 1s --warmup 300ms --profile --profile-min 2 --json --no-store \
	>"$TMP/prof2.json" 2>"$TMP/prof2.err"
check "--profile-min 2: rows of both kinds at or over 2%, fewer than at 0.1%" \
	jtrue "$TMP/prof2.json" 'v("profile.min_pct") == 2 and all(v(k) >= 2 - 1e-9 for k in m if k.startswith(("profile.self.", "profile.children."))) and 0 < sum(1 for k in m if k.startswith("profile.children.")) < sum(1 for k in json.load(open("'"$TMP/prof.json"'"))["metrics"] if k.startswith("profile.children."))'
check "--profile-min is no part of the configuration" \
	jtrue "$TMP/prof2.json" 'd["config"]["key"] == json.load(open("'"$TMP/prof.json"'"))["config"]["key"]'
for bad in -1 100.5 abc 1%; do
	timeout 30 "$NR" run tcp_stream -l 1s --profile --profile-min "$bad" >"$TMP/e0" 2>&1
	rc=$?
	checkx "--profile-min $bad is refused (exit 2), naming it" \
		'[ $rc -eq 2 ] && grep -qF -- "invalid --profile-min: invalid number '"'$bad'"'" "$TMP/e0"'
done
timeout 30 "$NR" run tcp_stream -l 1s --profile-min 1 >"$TMP/e0" 2>&1
rc=$?
checkx "--profile-min without --profile is refused (exit 2)" \
	'[ $rc -eq 2 ] && grep -q -- "--profile-min 1 is the profile.s threshold: expected --profile with it" "$TMP/e0"'

# Bad input: nothing to switch, or too short a window.
timeout 30 "$NR" run tcp_stream -l 2s --overhead --no-collect >"$TMP/e1" 2>&1
rc=$?
checkx "--overhead --no-collect is refused (exit 2) and says --profile is needed" \
	'[ $rc -eq 2 ] && grep -q -- "--no-collect it needs --profile" "$TMP/e1"'
timeout 30 "$NR" run tcp_stream -l 1500ms --overhead >"$TMP/e2" 2>&1
rc=$?
checkx "--overhead with a 1.5 s window is refused (exit 2), naming 1.5s and 2s" \
	'[ $rc -eq 2 ] && grep -q "duration 1.5s is too short: expected at least 2s" "$TMP/e2"'

exit 0
