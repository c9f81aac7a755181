#!/bin/sh
# bench/mixed.sh — the "real mixed workload" of `make bench`, run as the command of `sbxsup run`.
#
# Promise: in DIR (created, in the workspace) generates N small C files and compiles each at -O0
# with the system cc (one cc process per file, then one link), imports a slice of the Python
# standard library in K fresh interpreters, archives the tree with tar, and prints one JSON line
# {"ms":T,"files":N,"imports":K} with T the wall-clock milliseconds of the whole workload (the
# sandbox start-up is not in it). Exit 0, or the first failing step's status. POSIX sh, no bashisms:
# it runs under whatever /bin/sh the sandbox sees.
#
#   usage: mixed.sh DIR [N [K]]
set -eu
dir=$1 n=${2:-30} k=${3:-3}
now() { date +%s%N; }
rm -rf "$dir"
mkdir -p "$dir/src" "$dir/obj"
t0=$(now)
i=0
while [ "$i" -lt "$n" ]; do
	cat >"$dir/src/f$i.c" <<C
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
struct rec$i { int id; char name[32]; double w; };
static int cmp$i(const void *a, const void *b) { return ((const struct rec$i *)a)->id - ((const struct rec$i *)b)->id; }
int f$i(int x)
{
	struct rec$i r[16];
	for (int j = 0; j < 16; j++) { r[j].id = (x * 31 + j * 7) % 97; snprintf(r[j].name, sizeof r[j].name, "r%d", j); r[j].w = j * 0.5; }
	qsort(r, 16, sizeof r[0], cmp$i);
	return r[0].id + (int)strlen(r[15].name);
}
C
	i=$((i + 1))
done
{
	echo '#include <stdio.h>'
	i=0; while [ "$i" -lt "$n" ]; do echo "int f$i(int);"; i=$((i + 1)); done
	echo 'int main(void) { int s = 0;'
	i=0; while [ "$i" -lt "$n" ]; do echo "s += f$i($i);"; i=$((i + 1)); done
	echo 'printf("%d", s); return 0; }'
} >"$dir/src/main.c"
for f in "$dir"/src/*.c; do
	b=${f##*/}
	cc -O0 -c -o "$dir/obj/${b%.c}.o" "$f"
done
cc -O0 -o "$dir/prog" "$dir"/obj/*.o
"$dir/prog" >/dev/null
j=0
while [ "$j" -lt "$k" ]; do
	python3 -c 'import json, csv, email.parser, http.client, xml.dom.minidom, argparse, decimal, fractions, statistics, unittest, logging, pathlib, tarfile, zipfile, configparser, textwrap, difflib, shlex' 
	j=$((j + 1))
done
tar --numeric-owner -cf "$dir.tar" -C "$dir" src obj prog
rm -rf "$dir" "$dir.tar"
t1=$(now)
echo "{\"ms\":$(( (t1 - t0) / 1000000 )),\"files\":$n,\"imports\":$k}"
