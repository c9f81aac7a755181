#!/usr/bin/env bash
# lib_install.sh — the C library as a user of an installed sbxsup gets it: `make install
# DESTDIR=... PREFIX=/usr` puts sbxsup.h, libsbxsup.so.0 (+ the libsbxsup.so link) and sbxsup.pc in
# place; a small client (examples/c/sbx_client.c) compiles with `pkg-config --cflags --libs sbxsup`
# and links the shared library by its soname; the library exports the calls of sbxsup.h and nothing
# of policy/, audit/, common/; through it an honest command runs (clean, its output, the record's
# run id = the audit stream's) and a read of a denied secret fails (the secret is not in the output:
# evidence on the host side) with verdict "contained" and the deny event in the audit stream; the
# client's own descriptors are the command's stdin/stdout; a missing helper binary is a call error
# (nothing runs); a bad manifest comes back as a code and its problems; a result destination in the
# workspace is refused (result_destination) as on the command line. Runs as whoever runs it (root and a normal
# user see different layers; the assertions hold in both).
. "$(dirname "$0")/../lib.sh"

need_cmd lib_install make || exit 0
need_cmd lib_install pkg-config || exit 0
need_cmd lib_install "${CC:-cc}" || exit 0
D=$T_TMP/root
B=${B:-build}
if ! out=$(make -C "$SBX_ROOT" --no-print-directory install DESTDIR="$D" PREFIX=/usr B="$B" 2>&1); then
	t_fail lib_install "make install failed: $(tail -3 <<<"$out")"; exit 0
fi
t_on_exit "make -C '$SBX_ROOT' --no-print-directory uninstall DESTDIR='$D' PREFIX=/usr B='$B' >/dev/null 2>&1"
L=$D/usr/lib
if [ -f "$D/usr/include/sbxsup.h" ] && [ -f "$L/libsbxsup.so.0" ] && [ "$(readlink "$L/libsbxsup.so")" = libsbxsup.so.0 ] \
   && [ -f "$L/pkgconfig/sbxsup.pc" ] && readelf -d "$L/libsbxsup.so.0" | grep -q 'SONAME.*\[libsbxsup.so.0\]'; then
	t_pass lib_install_files
else t_fail lib_install_files "$(find "$D/usr/include" "$L" -maxdepth 2 2>/dev/null | tr '\n' ' ')"; fi

# exported: exactly the SBX_API calls of the header (nothing internal: sbx_msg, pol_*, audit_*, ...)
api=$(grep -oE '^SBX_API [^(]*\b(sbx_[a-z_]+)\(' "$D/usr/include/sbxsup.h" | grep -oE 'sbx_[a-z_]+\($' | tr -d '(' | sort)
exp=$(nm -D --defined-only "$L/libsbxsup.so.0" | awk '$2 ~ /^[TWDBR]$/ {sub(/@.*/, "", $3); print $3}' | sort)
if [ -n "$api" ] && [ "$api" = "$exp" ]; then t_pass lib_exports_only_api
else t_fail lib_exports_only_api "$(diff <(echo "$api") <(echo "$exp") | head -8 | tr '\n' ' ')"; fi

# pkg-config against the DESTDIR tree (sysroot; /usr's -I/-L are kept so the tree, not the host, is used)
pc() { PKG_CONFIG_PATH=$L/pkgconfig PKG_CONFIG_SYSROOT_DIR=$D \
	PKG_CONFIG_ALLOW_SYSTEM_CFLAGS=1 PKG_CONFIG_ALLOW_SYSTEM_LIBS=1 pkg-config "$@" sbxsup; }
flags=$(pc --cflags --libs 2>&1)
# a library built with SAN=1 needs its client built with the same sanitizers (their runtime first)
san=; readelf -d "$L/libsbxsup.so.0" | grep -q 'NEEDED.*libasan' && san="-fsanitize=address,undefined"

# shellcheck disable=SC2086 # $san and $flags are word lists
if [ "$(pc --modversion 2>/dev/null)" = "$(sed -n 's/^VERSION *:= *//p' "$SBX_ROOT/Makefile")" ] \
   && out=$(${CC:-cc} $san -Wall -Wextra -Werror "$SBX_ROOT/examples/c/sbx_client.c" $flags -o "$T_TMP/sbx_client" 2>&1) \
   && readelf -d "$T_TMP/sbx_client" | grep -q 'NEEDED.*\[libsbxsup.so.0\]'; then
	t_pass lib_pkgconfig_client_builds
else t_fail lib_pkgconfig_client_builds "flags=$flags $out"; exit 0; fi

W=$T_TMP/ws; mkdir -p "$W"; echo "honest-content" >"$W/notes.txt"; echo "TOKEN=lib-s3cret-$$" >"$W/.env"
chmod 755 "$W"; chmod 644 "$W/notes.txt" "$W/.env"
M=$SBX_ROOT/examples/manifests/code-reader.json   # denies **/.env
# no SBXSUP_BIN, no SBXSUP_PRELOAD_LIB: the helper is ../bin/sbxsup beside the library, the preload ../lib/sbxsup beside it
client() { (cd "$W" && env -u SBXSUP_PRELOAD_LIB -u SBXSUP_BIN LD_LIBRARY_PATH="$L" \
	"$T_TMP/sbx_client" "$M" "$W" "$1" "${@:2}"); }

# honest: its output, clean, exit 0, the record's run id is the stream's
out=$(client "$T_TMP/a1.jsonl" cat "$W/notes.txt" 2>"$T_TMP/e1"); rc=$?
run=$(sed -n 's/.* run=\([0-9a-f]*\)$/\1/p' <<<"$out" | head -1)
if [ $rc -eq 0 ] && grep -q honest-content <<<"$out" && grep -q '^verdict=clean exit=0 status=exited' <<<"$out" \
   && [ -n "$run" ] && audit_has "$T_TMP/a1.jsonl" run.start run="$run" tag=sbx_client \
   && audit_has "$T_TMP/a1.jsonl" run.end exit=0 && grep -q '"tag":"sbx_client"' <<<"$out"; then
	t_pass lib_run_honest
else t_fail lib_run_honest "rc=$rc out=$out err=$(head -c 400 "$T_TMP/e1") $(audit_explain "$T_TMP/a1.jsonl" run.start run="$run")"; fi

# hostile: the secret does not come out, verdict contained, and the stream says which layer refused
out=$(client "$T_TMP/a2.jsonl" cat "$W/.env" 2>"$T_TMP/e2"); rc=$?
ev=$(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    o=json.loads(l)
    if o.get("event","").endswith(".deny") and sys.argv[2] in json.dumps(o): print(o["event"]); break' "$T_TMP/a2.jsonl" "$W/.env" 2>/dev/null)
if [ $rc -ne 0 ] && ! grep -q "lib-s3cret-$$" <<<"$out" && ! grep -q "lib-s3cret-$$" "$T_TMP/e2" \
   && grep -q '^verdict=contained ' <<<"$out" && [ -n "$ev" ] && audit_has "$T_TMP/a2.jsonl" "$ev" path~.env \
   && grep -q "\"$ev\":1" <<<"$out"; then
	t_pass lib_run_secret_denied
else t_fail lib_run_secret_denied "rc=$rc ev=$ev out=$out err=$(head -c 400 "$T_TMP/e2")"; fi

# the caller's descriptors as the command's stdin and stdout (through bwrap when the host has it)
printf 'line-from-stdin-%s\n' $$ >"$T_TMP/in.txt"
out=$(cd "$W" && env -u SBXSUP_PRELOAD_LIB -u SBXSUP_BIN LD_LIBRARY_PATH="$L" "$T_TMP/sbx_client" --stdin "$T_TMP/in.txt" \
	--stdout "$T_TMP/out.txt" "$M" "$W" "$T_TMP/a5.jsonl" sh -c 'tr a-z A-Z; echo done-out' 2>"$T_TMP/e5"); rc=$?
if [ $rc -eq 0 ] && grep -qx "LINE-FROM-STDIN-$$" "$T_TMP/out.txt" && grep -qx done-out "$T_TMP/out.txt" \
   && ! grep -q done-out <<<"$out" && grep -q '^verdict=clean ' <<<"$out"; then
	t_pass lib_run_stdio_fds
else t_fail lib_run_stdio_fds "rc=$rc out=$out file=$(head -c 200 "$T_TMP/out.txt" 2>&1) err=$(head -c 300 "$T_TMP/e5")"; fi

# no helper: a call error, nothing ran (no audit stream written)
out=$(cd "$W" && env LD_LIBRARY_PATH="$L" SBXSUP_BIN=/nonexistent/sbxsup "$T_TMP/sbx_client" "$M" "$W" "$T_TMP/a3.jsonl" true 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q "helper binary is not usable" <<<"$out" && [ ! -s "$T_TMP/a3.jsonl" ]; then
	t_pass lib_missing_helper
else t_fail lib_missing_helper "rc=$rc out=$out"; fi

# a bad manifest: the client gets code + message from sbx_manifest_load, nothing on the way runs
echo '{"sbxsup": 1, "name": "x", "capabilities": ["fs:teleport"]}' >"$T_TMP/bad.json"
out=$(cd "$W" && env LD_LIBRARY_PATH="$L" SBXSUP_BIN="$D/usr/bin/sbxsup" "$T_TMP/sbx_client" "$T_TMP/bad.json" "$W" "$T_TMP/a4.jsonl" true 2>&1); rc=$?
if [ $rc -eq 125 ] && grep -q "manifest refused (bad manifest)" <<<"$out" && grep -q "bad.json: capabilities\[0\]" <<<"$out"; then
	t_pass lib_bad_manifest
else t_fail lib_bad_manifest "rc=$rc out=$out"; fi

# the result destination through the library follows the command line's rule: inside the workspace
# the run is refused (result_destination), the command never runs, the file holds the refusal
rm -f "$W/made-by-lib"
out=$(cd "$W" && env -u SBXSUP_PRELOAD_LIB -u SBXSUP_BIN LD_LIBRARY_PATH="$L" "$T_TMP/sbx_client" --result "$W/r.json" \
	"$M" "$W" "$T_TMP/a5.jsonl" sh -c "echo forged > $W/r.json; touch $W/made-by-lib" 2>&1); rc=$?
if [ $rc -eq 125 ] && [ ! -e "$W/made-by-lib" ] && grep -q '"code":"result_destination"' <<<"$out" \
   && grep -q '"code":"result_destination"' "$W/r.json" && ! grep -q forged "$W/r.json"; then
	t_pass lib_result_in_workspace_refused
else t_fail lib_result_in_workspace_refused "rc=$rc out=$out file=$(cat "$W/r.json" 2>&1)"; fi
