#!/usr/bin/env bash
# cli_conventions.sh — the command-line conventions of docs/cli.md end to end: getopt_long style
# (attached short values, one-line "sbxsup:" messages naming the option), --layers +/-, fractional
# --timeout with its message, and a command outside every grant named as such (not "not found").
. "$(dirname "$0")/../lib.sh"

WS=$T_TMP/ws; mkdir -p "$WS"; cd "$WS" || exit 1
printf '{"sbxsup":1,"name":"cli-conv","capabilities":["code:exec"]}\n' >m.json

# explain --path without a value: one line naming --path, exit 125
out=$("$SBXSUP" explain --path 2>&1); rc=$?
if [ $rc -eq 125 ] && [ "$(wc -l <<<"$out")" -eq 1 ] && grep -q '^sbxsup: explain: --path needs a value' <<<"$out"; then
	t_pass cli_missing_value_names_option
else t_fail cli_missing_value_names_option "rc=$rc out=$out"; fi

# short options with attached values: -mFILE (validate, explain, run)
out=$("$SBXSUP" validate -mm.json 2>&1); rc=$?
out2=$("$SBXSUP" explain -mm.json -p/usr/bin/env 2>&1); rc2=$?
if [ $rc -eq 0 ] && grep -q ': ok$' <<<"$out" && [ $rc2 -eq 0 ] && grep -q 'read ALLOWED' <<<"$out2"; then
	t_pass cli_attached_short_values
else t_fail cli_attached_short_values "rc=$rc/$rc2 $out $out2"; fi

# an unknown option and a value given to a flag: one line each, exit 125, nothing run
out=$("$SBXSUP" run --frobnicate -- touch ran 2>&1); rc=$?
out2=$("$SBXSUP" run --dry-run=yes -- touch ran 2>&1); rc2=$?
if [ $rc -eq 125 ] && [ $rc2 -eq 125 ] && [ ! -e ran ] && grep -q "^sbxsup: run: unknown or ambiguous option '--frobnicate'" <<<"$out" \
   && grep -q '^sbxsup: run: --dry-run takes no value' <<<"$out2"; then
	t_pass cli_bad_option_one_line
else t_fail cli_bad_option_one_line "rc=$rc/$rc2 $out $out2"; fi

# --layers auto,-probes,-netfilter / -bwrap / +name: the plan shows exactly those wanted
plan_want() { python3 -c 'import json,sys
p=json.load(sys.stdin); print(",".join(sorted(k for k,v in p["layers"].items() if v.get("want"))))'; }
w1=$("$SBXSUP" run -mm.json --layers auto,-probes,-netfilter --dry-run -- true 2>/dev/null | plan_want)
w2=$("$SBXSUP" run -mm.json --layers=-bwrap --dry-run -- true 2>/dev/null | plan_want)
w3=$("$SBXSUP" run -mm.json --layers none,+preload,+landlock --dry-run -- true 2>/dev/null | plan_want)
if [ "$w1" = bwrap,landlock,limits,preload,seccomp ] && [ "$w2" = landlock,limits,netfilter,preload,probes,seccomp ] \
   && [ "$w3" = landlock,limits,preload ]; then
	t_pass cli_layers_add_subtract
else t_fail cli_layers_add_subtract "w1=$w1 w2=$w2 w3=$w3"; fi
out=$("$SBXSUP" run --layers auto,-auto -- true 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q '^sbxsup: run: --layers: ' <<<"$out"; then t_pass cli_layers_bad_sign
else t_fail cli_layers_bad_sign "rc=$rc $out"; fi

# --timeout 1.5: killed after ~1.5 s (the file written at 4 s never appears), exit 124, one
# "sbxsup: timeout" line, and run.end says 124
start=$(date +%s%N)
out=$("$SBXSUP" run -mm.json -a "$T_TMP/a.t" --timeout 1.5 -- sh -c 'sleep 4; touch late' 2>&1); rc=$?
ms=$(( ($(date +%s%N) - start) / 1000000 ))
sleep 3
if [ $rc -eq 124 ] && [ ! -e late ] && [ $ms -ge 1400 ] && [ $ms -lt 3500 ] \
   && [ "$(grep -c '^sbxsup: timeout: ' <<<"$out")" -eq 1 ] && audit_has "$T_TMP/a.t" run.end exit=124; then
	t_pass cli_timeout_fractional_message
else t_fail cli_timeout_fractional_message "rc=$rc ms=$ms late=$([ -e late ] && echo yes) out=$out"; fi

# the command named after "--" is readable and executable in the sandbox by default, wherever it
# lives (the host's /tmp, which the sandbox replaces; /var/tmp, which no rule grants), with and
# without bwrap; a script under a manifest "deny" glob still cannot be read by its interpreter
OUT=$T_TMP/outside; mkdir -p "$OUT"
printf '#!/bin/sh\ntouch "%s/ran"\n' "$WS" >"$OUT/x.sh"; chmod 755 "$OUT/x.sh"
VT=$(mktemp -d /var/tmp/sbxsup-cli.XXXXXX); chmod 755 "$VT"; t_on_exit "rm -rf '$VT'"
cp "$OUT/x.sh" "$VT/x.sh"
for mode in full no-bwrap; do
	L=auto; [ $mode = no-bwrap ] && L=auto,-bwrap
	for cmd in "$OUT/x.sh" "$VT/x.sh"; do
		rm -f ran
		out=$("$SBXSUP" run -mm.json --layers $L -- "$cmd" 2>&1); rc=$?
		where=host_tmp; [ "$cmd" = "$VT/x.sh" ] && where=var_tmp
		n=cli_command_outside_grants_runs_${mode}_$where
		if [ $rc -eq 0 ] && [ -e ran ]; then t_pass "$n"
		# where a layer cannot show it, the "not found" must say why (never a bare "not found")
		elif [ $rc -eq 127 ] && grep -q "exists but is not visible in the sandbox" <<<"$out"; then t_pass "$n"
		else t_fail "$n" "rc=$rc out=$out"; fi
	done
done
printf '{"sbxsup":1,"name":"cli-deny","capabilities":["code:exec"],"deny":["%s/**"]}\n' "$VT" >deny.json
rm -f ran
out=$("$SBXSUP" run -mdeny.json -- "$VT/x.sh" 2>&1); rc=$?
if [ $rc -ne 0 ] && [ ! -e ran ]; then t_pass cli_command_script_denied_by_manifest
else t_fail cli_command_script_denied_by_manifest "rc=$rc out=$out"; fi
# the same script copied into the workspace runs
rm -f ran
cp "$OUT/x.sh" ./x.sh
out=$("$SBXSUP" run -mm.json -- ./x.sh 2>&1); rc=$?
if [ $rc -eq 0 ] && [ -e ran ]; then t_pass cli_command_in_workspace_runs
else t_fail cli_command_in_workspace_runs "rc=$rc out=$out"; fi

# a command or workspace name holding ESC, CR and a newline cannot forge sbxsup's messages: stderr
# holds no raw ESC or CR, every line is one of sbxsup's ("sbxsup: ..."), the name shown quoted
# with its bytes escaped (common/quote.h)
EVIL=$(printf 'x\033[2Jy\rz\nw')
EVIL_SHOWN='x\\033\[2Jy\\rz\\nw"'
clean_stderr() { # FILE: no ESC/CR byte, each line starts "sbxsup: ", the escaped name is there
	! LC_ALL=C grep -q "$(printf '[\033\r]')" "$1" && [ -s "$1" ] && ! grep -qv '^sbxsup: ' "$1" \
		&& grep -q "$EVIL_SHOWN" "$1"
}
"$SBXSUP" run -mm.json -- "./$EVIL" 2>"$T_TMP/evil1" >/dev/null; rc=$?
if [ $rc -eq 127 ] && clean_stderr "$T_TMP/evil1" && grep -q "^sbxsup: \"./$EVIL_SHOWN: not found" "$T_TMP/evil1"; then
	t_pass cli_hostile_command_name_quoted
else t_fail cli_hostile_command_name_quoted "rc=$rc err=$(od -c "$T_TMP/evil1" | head -5)"; fi
"$SBXSUP" run -mm.json -w "$T_TMP/$EVIL" -- true 2>"$T_TMP/evil2" >/dev/null; rc=$?
if [ $rc -eq 125 ] && clean_stderr "$T_TMP/evil2"; then t_pass cli_hostile_missing_workspace_name_quoted
else t_fail cli_hostile_missing_workspace_name_quoted "rc=$rc err=$(od -c "$T_TMP/evil2" | head -5)"; fi
mkdir -p "$T_TMP/$EVIL"; cp m.json "$T_TMP/$EVIL/"
for L in auto auto,-bwrap; do
	"$SBXSUP" run -m "$T_TMP/$EVIL/m.json" --layers $L -w "$T_TMP/$EVIL" -- "./$EVIL" 2>"$T_TMP/evil3" >/dev/null; rc=$?
	if [ $rc -eq 127 ] && clean_stderr "$T_TMP/evil3"; then t_pass "cli_hostile_workspace_name_quoted_${L//[,-]/_}"
	else t_fail "cli_hostile_workspace_name_quoted_${L//[,-]/_}" "rc=$rc err=$(od -c "$T_TMP/evil3" | head -8)"; fi
done
