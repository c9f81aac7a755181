# tests/lib.sh — helpers for integration tests (source it). Every test prints exactly one of
#   PASS: <name>        FAIL: <name>: <why>        SKIP: <name>: <reason>
# Attack tests assert both that the attack failed and which audit event reported it (audit_has).
# The shared helpers live in tests/lib/ (audit.sh: audit_has / audit_count / audit_explain;
# assert.sh: per-condition assert_* that say which condition failed); this file sources them.
set -u
: "${SBXSUP:?}" "${SBX_ROOT:?}"
# the automatic shared probe set goes when the last run ends (no idle set left behind by a test);
# a test that checks the idle period sets SBXSUP_PROBES_IDLE itself
export SBXSUP_PROBES_IDLE=${SBXSUP_PROBES_IDLE:-0}
# the same for the shared netfilter set (SBXSUP_NETFILTER_IDLE)
export SBXSUP_NETFILTER_IDLE=${SBXSUP_NETFILTER_IDLE:-0}
SBX_PROGS=${SBX_PROGS:-$SBX_ROOT/build/tests/progs}
T_TMP=$(mktemp -d /tmp/sbxsup-it.XXXXXX)
chmod 755 "$T_TMP"
trap 't_cleanup' EXIT
T_CLEANUPS=()
t_cleanup() { local c; for c in "${T_CLEANUPS[@]+"${T_CLEANUPS[@]}"}"; do eval "$c" || true; done; rm -rf "$T_TMP"; }
t_on_exit() { T_CLEANUPS+=("$1"); }

t_pass() { echo "PASS: $1"; }
t_fail() { echo "FAIL: $1: ${2:-}"; }
t_skip() { echo "SKIP: $1: $2"; }
# t_check NAME CMD... : PASS if CMD succeeds, FAIL otherwise
t_check() { local n=$1; shift; if "$@"; then t_pass "$n"; else t_fail "$n" "$*"; fi; }

# need_root / need_cmd: print SKIP and return 1 when missing
need_root() { [ "$(id -u)" = 0 ] || { t_skip "$1" "needs root"; return 1; }; }
need_cmd() { command -v "$2" >/dev/null 2>&1 || { t_skip "$1" "needs $2"; return 1; }; }

for _lib in "$(dirname "${BASH_SOURCE[0]}")"/lib/*.sh; do
	# shellcheck source=/dev/null
	. "$_lib"
done
unset _lib
