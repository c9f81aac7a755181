# bash completion for sbxsup (installed to $PREFIX/share/bash-completion/completions/sbxsup)
_sbxsup() {
	local cur prev cmd i
	COMPREPLY=()
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD-1]}
	cmd=
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--) # everything after "--" is the executor's command line
			COMPREPLY=($(compgen -c -- "$cur")); [ $i -lt $((COMP_CWORD - 1)) ] && COMPREPLY=($(compgen -f -- "$cur"))
			return ;;
		-*) ;;
		*) [ -z "$cmd" ] && cmd=${COMP_WORDS[i]} ;;
		esac
	done
	local layers="auto all none preload bwrap seccomp landlock netfilter probes limits"
	case $prev in
	-m|--manifest) COMPREPLY=($(compgen -f -X '!*.json' -- "$cur") $(compgen -d -- "$cur")); return ;;
	-w|--workspace|-p|--path) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	-a|--audit|--html) COMPREPLY=($(compgen -f -- "$cur") -); return ;;
	--sensor) COMPREPLY=($(compgen -W "auto off" -- "$cur")); return ;;
	--layers|--require)
		local pre=${cur%,*} last=${cur##*,} sign=
		[ "$pre" = "$cur" ] && pre= || pre="$pre,"
		case $last in -*|+*) sign=${last:0:1}; last=${last:1} ;; esac
		COMPREPLY=($(compgen -P "$pre$sign" -W "$layers" -- "$last")); compopt -o nospace 2>/dev/null
		return ;;
	--timeout|-H|--host|--tag) return ;;
	--socket|--server|--result) COMPREPLY=($(compgen -f -- "$cur")); return ;;
	esac
	case $cmd in
	serve) COMPREPLY=($(compgen -W "--socket --quiet --warm --no-warm -m --manifest -w --workspace -a --audit --audit-budget --layers --require --timeout --tag --help" -- "$cur")) ;;
	"") COMPREPLY=($(compgen -W "run explain validate status audit probes learn shadow serve --help --version" -- "$cur")) ;;
	run) COMPREPLY=($(compgen -W "-m --manifest -w --workspace -a --audit --audit-budget --layers --require --timeout --shadow --sensor --dry-run --result --tag --server --help --" -- "$cur")) ;;
	shadow)
		if [ "${COMP_WORDS[2]:-}" = "$cur" ]; then COMPREPLY=($(compgen -W "list diff commit discard --help" -- "$cur"))
		elif [ "$COMP_CWORD" -le 4 ] && [ "${COMP_WORDS[2]}" != list ]; then
			# run ids with kept changes (sbxsup shadow list), --json / -a / --allow-world-writable where they apply
			COMPREPLY=($(compgen -W "$(sbxsup shadow list 2>/dev/null | cut -c1-32) --json -a --allow-world-writable" -- "$cur"))
		else COMPREPLY=($(compgen -f -- "$cur")); fi ;;
	explain) COMPREPLY=($(compgen -W "-m --manifest -w --workspace -p --path --write --exec -H --host --help" -- "$cur")) ;;
	validate) COMPREPLY=($(compgen -W "-m --manifest -w --workspace --help" -- "$cur") $(compgen -f -X '!*.json' -- "$cur")) ;;
	status) COMPREPLY=($(compgen -W "--json --help" -- "$cur")) ;;
	probes) COMPREPLY=($(compgen -W "load unload status --force --help" -- "$cur")) ;;
	audit)
		if [ "${COMP_WORDS[2]:-}" = "$cur" ]; then COMPREPLY=($(compgen -W "summary verify filter report tail" -- "$cur"))
		else COMPREPLY=($(compgen -f -- "$cur") $(compgen -W "--help" -- "$cur")); fi ;;
	esac
}
complete -F _sbxsup sbxsup
