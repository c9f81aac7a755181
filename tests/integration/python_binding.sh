#!/usr/bin/env bash
# python_binding.sh — the Python binding's unittest suite (tests/python), one PASS/FAIL line per test.
. "$(dirname "$0")/../lib.sh"
out=$(cd "$SBX_ROOT" && SBXSUP=$SBXSUP python3 -m unittest -v tests/python/test_binding.py 2>&1)
grep -E '^test_.* \.\.\. ' <<<"$out" | while IFS= read -r l; do
	n=binding_$(sed -E 's/^(test_[a-z_0-9]+).*/\1/' <<<"$l")
	case $l in
	*"... ok") t_pass "$n" ;;
	*"... skipped"*) t_skip "$n" "${l##*skipped }" ;;
	*) t_fail "$n" "$(grep -A12 -E "^(FAIL|ERROR): ${n#binding_} " <<<"$out" | tail -n 6 | tr '\n' ' ')" ;;
	esac
done
grep -qE '^test_.* \.\.\. ' <<<"$out" || t_fail python_binding "no test ran: $(tail -n 5 <<<"$out" | tr '\n' ' ')"
