#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-only
# The man page and the bash completion: made from the parameter table,
# rendered without warnings, installed by make install, completing.
. "$(dirname "$0")/lib.sh"
ROOT=$(cd "$(dirname "$0")/../.." && pwd)

if ! command -v groff >/dev/null; then
	apt-get install -y groff-base >/dev/null 2>&1 ||
		{ apt-get update >/dev/null 2>&1 && apt-get install -y groff-base >/dev/null 2>&1; }
fi

make -C "$ROOT" --no-print-directory -s install DESTDIR="$TMP/root" PREFIX=/usr >"$TMP/install.out" 2>&1
rc=$?
MAN=$TMP/root/usr/share/man/man1/netregress.1
COMP=$TMP/root/usr/share/bash-completion/completions/netregress
checkx "make install DESTDIR PREFIX=/usr installs the binary, netregress.1 and the completion" \
	'[ $rc -eq 0 ] && [ -x "$TMP/root/usr/bin/netregress" ] && [ -s "$MAN" ] && [ -s "$COMP" ]'

if command -v groff >/dev/null; then
	groff -man -ww -Tutf8 "$MAN" >"$TMP/man.txt" 2>"$TMP/groff.err"
	rc=$?
	checkx "groff -man -ww renders netregress.1 without a warning" \
		'[ $rc -eq 0 ] && [ ! -s "$TMP/groff.err" ] && [ -s "$TMP/man.txt" ]' || diag "$TMP/groff.err"
else
	echo "ok $((tap_n += 1)) - # SKIP groff not installed"
fi
# the table's rows are in the page: --mss with its value's name, and others
checkx "the page lists the workload options: --mss BYTES, --placement, --buf-offset, --udp-gso, -n, --streams" \
	'grep -qF "\\fB\\-\\-mss\\fR \\fIBYTES\\fR" "$MAN" &&
	 (for o in placement buf\\-offset udp\\-gso streams; do grep -qF "\\fB\\-\\-$o\\fR" "$MAN" || exit 1; done) &&
	 grep -qF "\\fB\\-n\\fR, " "$MAN"'

# complete WORDS...: what the completion offers for the last word
complete_words() {
	bash -c '. "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _netregress; echo "${COMPREPLY[*]}"' _ "$COMP" "$@"
}
out=$(complete_words netregress "")
checkx "completion offers the subcommands" \
	'(for c in run serve labels show matrix compare report bisect; do [[ " $out " == *" $c "* ]] || exit 1; done)'
out=$(complete_words netregress r)
checkx "completion: 'r' offers run and report only" '[ "$out" = "run report" ]'
out=$(complete_words netregress run --pl)
checkx "completion: run --pl offers --placement" '[ "$out" = "--placement" ]'
out=$(complete_words netregress run --ms)
checkx "completion: run --ms offers --msg and --mss (the table's new row)" '[ "$out" = "--msg --mss" ]'
out=$(complete_words netregress compare --head)
checkx "completion: compare --head offers --headline" '[ "$out" = "--headline" ]'
exit 0
