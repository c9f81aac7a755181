#!/usr/bin/env bash
# tests/escape/run.sh — the escape corpus runner (see tests/escape/escape.py for what it promises).
#   tests/escape/run.sh [--mode M[,M..]] [--matrix FILE] [--only NAME|family/] [--list] [-v]
# Without --matrix: every attack in full, preload-only and no-bwrap mode, plus the single-layer modes
# its header declares; one PASS:/FAIL:/SKIP: line per (attack, mode). With --matrix FILE: every
# attack in every mode, and the attack x mode table written to FILE (make escape-matrix).
# Environment: B (build dir, default build), SBXSUP (default $B/sbxsup), CC (attack compiler).
set -u
cd "$(dirname "$0")/../.."
export B=${B:-build}
export SBXSUP=${SBXSUP:-$PWD/$B/sbxsup}
export SBXSUP_PROBES_IDLE=${SBXSUP_PROBES_IDLE:-0} # no idle shared probe set left behind
command -v python3 >/dev/null || { echo "FAIL: escape: python3 is required"; exit 1; }
exec python3 tests/escape/escape.py "$@"
