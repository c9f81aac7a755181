#!/usr/bin/env bash
# install.sh — `make install DESTDIR=... PREFIX=/usr` on the existing build (built with another
# PREFIX) gives a binary that finds its preload as ../lib/sbxsup and runs `sbxsup run -- true` from
# /; completion, man page, contract and example manifests are where they belong, and the C library
# (sbxsup.h, libsbxsup.so.0 + the libsbxsup.so link, sbxsup.pc naming the install's PREFIX; its use:
# lib_install.sh); `make uninstall` removes every file and directory install made.
. "$(dirname "$0")/../lib.sh"

need_cmd install_tree make || exit 0
D=$T_TMP/root
B=${B:-build}
if ! out=$(make -C "$SBX_ROOT" --no-print-directory install DESTDIR="$D" PREFIX=/usr B="$B" 2>&1); then
	t_fail install_tree "make install failed: $(tail -3 <<<"$out")"; exit 0
fi
want=(usr/bin/sbxsup usr/bin/sbxsup-stage usr/lib/sbxsup/libsbxpreload.so usr/share/man/man1/sbxsup.1
      usr/share/bash-completion/completions/sbxsup usr/share/zsh/vendor-completions/_sbxsup
      usr/share/doc/sbxsup/SPEC.md usr/share/doc/sbxsup/cli.md usr/share/doc/sbxsup/audit-schema.json
      usr/share/doc/sbxsup/examples/manifests/notes-search.json
      usr/include/sbxsup.h usr/lib/libsbxsup.so.0 usr/lib/libsbxsup.so usr/lib/pkgconfig/sbxsup.pc)
missing=; for f in "${want[@]}"; do [ -f "$D/$f" ] || missing="$missing $f"; done
if [ -z "$missing" ] && [ -x "$D/usr/bin/sbxsup" ] && [ "$(readlink "$D/usr/lib/libsbxsup.so")" = libsbxsup.so.0 ] \
   && grep -qx 'prefix=/usr' "$D/usr/lib/pkgconfig/sbxsup.pc" && bash -n "$D/usr/share/bash-completion/completions/sbxsup"; then
	t_pass install_tree
else t_fail install_tree "missing:$missing"; fi

# the installed binary, run from /, with no SBXSUP_PRELOAD_LIB: the preload comes from ../lib/sbxsup
out=$(cd / && env -u SBXSUP_PRELOAD_LIB "$D/usr/bin/sbxsup" run -a "$T_TMP/a.i" -- true 2>&1); rc=$?
if [ $rc -eq 0 ] && audit_has "$T_TMP/a.i" run.start layers.preload=true && audit_has "$T_TMP/a.i" run.end exit=0; then
	t_pass install_run_true_from_root
else t_fail install_run_true_from_root "rc=$rc out=$out"; fi
out=$(cd / && env -u SBXSUP_PRELOAD_LIB "$D/usr/bin/sbxsup" run --dry-run -w "$T_TMP" -- true 2>&1)
if grep -q "\"$D/usr/lib/sbxsup/libsbxpreload.so\"" <<<"$out"; then t_pass install_preload_relative
else t_fail install_preload_relative "$(grep -i preload <<<"$out" | head -3)"; fi
# the stage binary installed beside sbxsup is what bwrap runs at /run/sbxsup/sbxsup (bound, or staged
# as root): its size inside is the installed sbxsup-stage's, not sbxsup's
want_sz=$(stat -c %s "$D/usr/bin/sbxsup-stage")
out=$(cd / && env -u SBXSUP_PRELOAD_LIB "$D/usr/bin/sbxsup" run -- sh -c 'stat -c %s /run/sbxsup/sbxsup' 2>/dev/null)
if [ "$out" = "$want_sz" ] || { [ -z "$out" ] && ! "$D/usr/bin/sbxsup" status 2>/dev/null | grep -q '^ *bwrap *yes'; }; then
	t_pass install_stage_binary
else t_fail install_stage_binary "inside: '$out', sbxsup-stage: $want_sz, sbxsup: $(stat -c %s "$D/usr/bin/sbxsup")"; fi
# no temporary workspace left behind by the run from /
if ! ls -d /tmp/sbxsup-ws.* >/dev/null 2>&1; then t_pass install_tmp_workspace_removed
else t_fail install_tmp_workspace_removed "$(ls -d /tmp/sbxsup-ws.*)"; fi

if out=$(make -C "$SBX_ROOT" --no-print-directory uninstall DESTDIR="$D" PREFIX=/usr B="$B" 2>&1) \
   && [ -z "$(find "$D" -mindepth 1 2>/dev/null)" ]; then
	t_pass uninstall_removes_everything
else t_fail uninstall_removes_everything "left: $(find "$D" -mindepth 1 | head -5 | tr '\n' ' ') $out"; fi
