# tests/lib/assert.sh — per-condition asserts for integration tests (sourced by tests/lib.sh), in the
# manner of bubblewrap's assert_* helpers: each checks ONE condition, and when it does not hold says
# which one (and, for the audit, the lines involved) as "# " lines, then returns 1. A test combines
# them and prints its single PASS/FAIL line:
#     if assert_exit "$rc" 0 && assert_file_has "$O" OK && assert_audit "$A" preload.deny op=open
#     then t_pass NAME; else t_fail NAME "see above"; fi
assert_exit() {         # RC WANT
	[ "$1" = "$2" ] && return 0
	echo "# assert_exit: exit status $1, want $2"; return 1
}
assert_file_has() {     # FILE STRING   (fixed string)
	grep -qF -- "$2" "$1" 2>/dev/null && return 0
	echo "# assert_file_has: '$2' not in $1; it holds:"; head -c 600 "$1" 2>/dev/null | sed 's/^/#   /'; return 1
}
assert_not_file_has() { # FILE STRING
	! grep -qF -- "$2" "$1" 2>/dev/null && return 0
	echo "# assert_not_file_has: '$2' found in $1:"; grep -F -- "$2" "$1" | head -3 | sed 's/^/#   /'; return 1
}
assert_exists() {       # PATH
	[ -e "$1" ] && return 0
	echo "# assert_exists: $1 does not exist"; return 1
}
assert_not_exists() {   # PATH
	[ ! -e "$1" ] && [ ! -L "$1" ] && return 0
	echo "# assert_not_exists: $1 exists: $(ls -ld "$1" 2>&1)"; return 1
}
assert_audit() {        # FILE EVENT [cond ...]  (conditions as audit_has)
	audit_has "$@" && return 0
	echo "# assert_audit: no '$2' event with: ${*:3}"; audit_explain "$@"; return 1
}
assert_no_audit() {     # FILE EVENT [cond ...]
	! audit_has "$@" && return 0
	echo "# assert_no_audit: unexpected '$2' event with: ${*:3}"; return 1
}
