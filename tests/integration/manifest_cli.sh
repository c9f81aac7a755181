#!/usr/bin/env bash
# manifest_cli.sh — `sbxsup validate` and `sbxsup explain` end to end: exit codes, messages naming
# line/column or JSON path, size/depth refusal, decisions with the rule that made them.
. "$(dirname "$0")/../lib.sh"

EX=$SBX_ROOT/examples/manifests
export HOME=$T_TMP/home
mkdir -p "$HOME/.ssh" "$HOME/notes" "$T_TMP/ws"
cd "$T_TMP/ws" || exit 1

# every example manifest validates
for f in "$EX"/*.json; do
	n=validate_example_$(basename "$f" .json)
	out=$("$SBXSUP" validate -m "$f" 2>&1); rc=$?
	if [ $rc -eq 0 ] && grep -q ": ok$" <<<"$out"; then t_pass "$n"; else t_fail "$n" "rc=$rc $out"; fi
done

# malformed JSON: exit 125, line and column
printf '{"sbxsup": 1,\n "name": "x",\n}\n' >bad_syntax.json
out=$("$SBXSUP" validate -m bad_syntax.json 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q "^sbxsup: \"bad_syntax.json\": line 3, column 1: " <<<"$out"; then
	t_pass validate_syntax_line_column
else t_fail validate_syntax_line_column "rc=$rc $out"; fi

# semantic problems: every one listed, each naming its JSON path
cat >bad_sem.json <<'EOF'
{"sbxsup": 1, "name": "bad name", "autonomy": "yolo", "extra": true,
 "capabilities": ["fs:raed", {"cap": "network:tcp", "hosts": ["127.0.0.1:0", "ok.example"]}],
 "limits": {"wall_s": -3}}
EOF
out=$("$SBXSUP" validate -m bad_sem.json 2>&1); rc=$?
ok=1
for p in "extra: unknown field" "name: " "autonomy: " "capabilities\[0\]: unknown mode" \
	 "capabilities\[1\].hosts\[0\]: " "limits.wall_s: "; do
	grep -q "^sbxsup: \"bad_sem.json\": $p" <<<"$out" || { ok=0; echo "missing: $p"; }
done
[ "$(grep -c '^sbxsup: "bad_sem.json": ' <<<"$out")" -eq 6 ] || ok=0
if [ $rc -eq 125 ] && [ $ok = 1 ]; then t_pass validate_all_problems_with_paths
else t_fail validate_all_problems_with_paths "rc=$rc $out"; fi

# a 1 GB file is refused without being read; 10 000-deep nesting is refused
truncate -s 1G huge.json
out=$("$SBXSUP" validate -m huge.json 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q "1073741824 bytes; the limit is 1048576" <<<"$out"; then t_pass validate_huge_refused
else t_fail validate_huge_refused "rc=$rc $out"; fi
rm -f huge.json
python3 -c 'print("[" * 10000 + "]" * 10000)' >deep.json
out=$("$SBXSUP" validate -m deep.json 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q "line 1, column 33: nesting deeper than 32" <<<"$out"; then t_pass validate_deep_refused
else t_fail validate_deep_refused "rc=$rc $out"; fi

# warnings do not fail validation
echo '{"sbxsup":1,"name":"w","capabilities":["network:https"]}' >warn.json
out=$("$SBXSUP" validate -m warn.json 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q "warning: capabilities\[0\]: .*grants any host" <<<"$out"; then t_pass validate_warning
else t_fail validate_warning "rc=$rc $out"; fi

# bad arguments: 125
"$SBXSUP" validate >/dev/null 2>&1; r1=$?
"$SBXSUP" validate -m warn.json extra >/dev/null 2>&1; r2=$?
"$SBXSUP" explain --bogus >/dev/null 2>&1; r3=$?
"$SBXSUP" explain --host 'a b' >/dev/null 2>&1; r4=$?
"$SBXSUP" explain --write >/dev/null 2>&1; r5=$?
if [ "$r1$r2$r3$r4$r5" = 125125125125125 ]; then t_pass cli_bad_arguments
else t_fail cli_bad_arguments "rc=$r1 $r2 $r3 $r4 $r5"; fi

# explain --path ~/.ssh/id_rsa with the default manifest: denied, and which rule
out=$("$SBXSUP" explain --path '~/.ssh/id_rsa' 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^~/.ssh/id_rsa: read DENIED by .*ssh' <<<"$out"; then t_pass explain_ssh_denied
else t_fail explain_ssh_denied "rc=$rc $out"; fi

# a manifest deny names the deny rule; grants name the capability
out=$("$SBXSUP" explain -m "$EX/notes-search.json" --path '~/notes/a.md' --path "$T_TMP/ws/x/.env" 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^~/notes/a.md: read ALLOWED by capabilities\[1\].hint: ~/notes/\*\*' <<<"$out" &&
   grep -q "/x/.env: read DENIED by deny\[1\]: \*\*/.env" <<<"$out"; then t_pass explain_path_rules
else t_fail explain_path_rules "rc=$rc $out"; fi

# a path a manifest deny refuses: which layers hold it (issue 28) — an existing match is masked by
# bwrap and left out by Landlock at start; one created later is held by the seccomp deny decision
# alone (the layer's filter, or with the layer off the sensor's or the privilege guard's)
mkdir -p "$T_TMP/dws/app" && echo 'K=v' >"$T_TMP/dws/app/.env"
out=$("$SBXSUP" explain -m "$EX/notes-search.json" -w "$T_TMP/dws" --path "$T_TMP/dws/app/.env" --path "$T_TMP/dws/new/.env" 2>&1); rc=$?
if [ $rc -eq 0 ] && [ "$(grep -c 'enforced by:' <<<"$out")" -eq 2 ] &&
   grep -q '^    seccomp   the deny decision at each open' <<<"$out" &&
   grep -q "^    sensor    the same decision, with the seccomp layer off, in the report-only sensor's" <<<"$out" &&
   grep -q "^    guard     the same decision in the privilege guard's filter" <<<"$out" &&
   grep -q '^    bwrap     masked at start' <<<"$out" && grep -q '^    landlock  left out at start' <<<"$out" &&
   grep -q '^    bwrap     not masked: it does not exist now' <<<"$out"; then t_pass explain_deny_layers
else t_fail explain_deny_layers "rc=$rc $out"; fi
rm -rf "$T_TMP/dws"

# autonomy readonly: an fs:write hint outside the workspace becomes read-only
echo '{"sbxsup":1,"name":"ro","autonomy":"readonly","capabilities":[{"cap":"fs:write","hint":"/srv/sbxsup-out"}]}' >ro.json
out=$("$SBXSUP" explain -m ro.json --write --path /srv/sbxsup-out/x 2>&1); rc=$?
out2=$("$SBXSUP" explain -m ro.json --path /srv/sbxsup-out/x 2>&1); rc2=$?
if [ $rc -eq 0 ] && [ $rc2 -eq 0 ] && grep -q '^/srv/sbxsup-out/x: write DENIED' <<<"$out" &&
   grep -q '^/srv/sbxsup-out/x: read ALLOWED by capabilities\[0\].hint' <<<"$out2"; then
	t_pass explain_readonly_write_denied
else t_fail explain_readonly_write_denied "rc=$rc/$rc2 $out $out2"; fi

# hosts: granted loopback port allowed, other loopback address denied
out=$("$SBXSUP" explain -m "$EX/loopback-api.json" --host 127.0.0.1:8080 --host 127.0.0.2:9 --host '[::1]:8080' 2>&1); rc=$?
if [ $rc -eq 0 ] && grep -q '^127.0.0.1:8080: connect ALLOWED by capabilities\[1\].hosts\[0\]' <<<"$out" &&
   grep -q '^127.0.0.2:9: connect DENIED' <<<"$out" && grep -q '^\[::1\]:8080: connect ALLOWED' <<<"$out"; then
	t_pass explain_hosts
else t_fail explain_hosts "rc=$rc $out"; fi

# the table: per layer sections, ignored capability listed
out=$("$SBXSUP" explain -m "$EX/loopback-api.json" 2>&1); rc=$?
ok=1
for s in "preload + probes" "bwrap + landlock" "bwrap masks" "network" "env" "limits" "mail:send"; do
	grep -q -- "$s" <<<"$out" || { ok=0; echo "missing: $s"; }
done
if [ $rc -eq 0 ] && [ $ok = 1 ]; then t_pass explain_table; else t_fail explain_table "rc=$rc"; fi

# invalid manifest: explain refuses too
out=$("$SBXSUP" explain -m bad_sem.json 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q "capabilities\[1\].hosts\[0\]" <<<"$out"; then t_pass explain_invalid_manifest
else t_fail explain_invalid_manifest "rc=$rc $out"; fi
