#!/usr/bin/env bash
# realprog.sh — real programs under a manifest like docs/SPEC.md's example (deny ["~/.ssh/**",
# "**/.env"], code:exec, fs:read of a directory, fs:write hints, a network grant by name, limits), in
# every mode — full (auto), no-bwrap (auto,-bwrap), --layers preload, --layers landlock, --layers
# bwrap — as root and (this script again) as a normal user. Each program's real result is checked on
# the host (files it produced in the workspace, their content and modes, the exit status), and the
# run's audit holds no `critical` event and no `breach` for what it did. In every mode, a `cat .env`
# in the same workspace is refused (the secret never comes out) with a critical `deny[1]` event, and
# the executor reopens its stdio pipes by name (/dev/stdout, /dev/stderr) in the way it holds them.
# Programs the host lacks SKIP with the reason. `# matrix WHO MODE CASE ok|FAIL` lines: the matrix.
. "$(dirname "$0")/../lib.sh"

MODES=(full nobwrap preload landlock bwrap)
mode_layers() { case $1 in full) echo auto ;; nobwrap) echo auto,-bwrap ;; *) echo "$1" ;; esac; }
PY=/usr/bin/python3   # never a shim in the invoker's home (a home is never readable in a run)
AU=$T_TMP/audit; mkdir -p "$AU"

# The read grant: a directory outside /tmp (the run's /tmp is private), readable by the normal user's
# pass too (root's, given as SBX_RP_RD)
if [ -n "${SBX_RP_RD:-}" ]; then RD=$SBX_RP_RD
else
	RD=$(mktemp -d /var/tmp/sbxsup-rp.XXXXXX); chmod 755 "$RD"; t_on_exit "rm -rf '$RD'"
	printf 'granted-data-%s\n' "$$" > "$RD/data.txt"; chmod 644 "$RD/data.txt"
fi
M=$T_TMP/manifest.json
# A sanitizer build of sbxsup reserves terabytes of address space at start; as a normal user the
# memory limit is RLIMIT_AS (no cgroup of its own), which leaves that build's forked child no room
# to allocate before it execs. Its unprivileged pass runs without memory_mb (the limit itself is
# tested by run_limits and with the normal build).
MEM='"memory_mb": 512, '
if [ "$(id -u)" != 0 ] && ldd "$SBXSUP" 2>/dev/null | grep -q libasan; then MEM=; fi
cat > "$M" <<EOF
{
  "sbxsup": 1,
  "name": "realprog",
  "capabilities": [
    "code:exec",
    {"cap": "fs:read", "hint": "$RD/**"},
    {"cap": "fs:write", "hints": ["/tmp/**", "./out"]},
    {"cap": "network:http", "hosts": ["api.example.com:443"]}
  ],
  "deny": ["~/.ssh/**", "**/.env"],
  "env": {"pass": ["LANG", "LC_*"], "set": {"PYTHONDONTWRITEBYTECODE": "1"}},
  "limits": {"wall_s": 60, "cpu_s": 40, ${MEM}"pids": 64, "fsize_mb": 64, "nofile": 256}
}
EOF
chmod 644 "$M"

# urgent FILE : the stream's critical events and breaches, one line each (sev event rule path)
urgent() {
	python3 - "$1" <<'PY'
import json, sys
for l in open(sys.argv[1], encoding="utf-8", errors="replace"):
    try: o = json.loads(l)
    except ValueError: continue
    if o.get("sev") == "critical" or o.get("outcome") == "breach":
        print(o.get("sev"), o.get("event"), o.get("syscall") or o.get("op") or "", o.get("rule"),
              (o.get("path") or o.get("host") or "")[:200])
PY
}

# Every case: a fresh workspace holding a secret .env (SECRET_VALUE) and a small src/ tree;
# prep_CASE WS adds its inputs; the run is sh -c "$(body_CASE)" with the workspace as cwd;
# check_CASE WS RC prints what is wrong (nothing: the program did its work).
SECRET="rp-secret-$$"
new_ws() {
	local ws=$1; rm -rf "$ws"; mkdir -p "$ws/src/sub" "$ws/out"
	printf 'SECRET_VALUE=%s\n' "$SECRET" > "$ws/.env"
	printf 'alpha\nneedle one\n' > "$ws/src/a.txt"; printf 'beta\nneedle two\n' > "$ws/src/sub/b.txt"
	printf 'gamma\n' > "$ws/src/sub/c.dat"
}

# ---- python3: the standard library a real script uses ------------------------------------------------
prep_python() {
	cat > "$1/prog.py" <<'PY'
import json, multiprocessing, os, pathlib, sqlite3, ssl, subprocess, sys, tempfile, threading
def sq(x): return x * x
if __name__ == "__main__":
    r = {}
    db = sqlite3.connect("out/py.db")
    db.execute("create table t(x integer)")
    db.executemany("insert into t values (?)", [(i,) for i in range(10)])
    db.commit(); r["sqlite"] = db.execute("select sum(x) from t").fetchone()[0]; db.close()
    ctx = ssl.create_default_context()
    r["ssl"] = ctx.verify_mode == ssl.CERT_REQUIRED and ctx.cert_store_stats()["x509_ca"] > 0
    r["sub"] = subprocess.run(["sh", "-c", "echo sub-$((6*7))"], capture_output=True, text=True,
                              check=True).stdout.strip()
    got = []; lock = threading.Lock()
    def work(i):
        with lock: got.append(i * i)
    th = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in th: t.start()
    for t in th: t.join()
    r["threads"] = sorted(got)
    with multiprocessing.Pool(2) as p: r["pool"] = p.map(sq, range(5))
    with tempfile.TemporaryDirectory() as d:
        pathlib.Path(d, "f").write_text("tmp-ok"); r["tmp"] = pathlib.Path(d, "f").read_text()
    with tempfile.NamedTemporaryFile("w", dir="out", suffix=".tmp", delete=False) as f:
        f.write("named-ok"); r["named"] = os.path.basename(f.name).endswith(".tmp")
    r["walk"] = sorted(os.path.relpath(os.path.join(dp, f)) for dp, dn, fn in os.walk(".")
                       for f in fn if f.endswith(".txt"))
    r["glob"] = sorted(str(p) for p in pathlib.Path("src").glob("**/*.txt"))
    r["read"] = open(sys.argv[1]).read().strip()
    json.dump(r, open("out/py.json", "w"), sort_keys=True)
PY
}
body_python() { echo "$PY prog.py '$RD/data.txt'"; }
check_python() {
	local want
	want=$($PY -c 'import json,sys; print(json.dumps({"glob": ["src/a.txt", "src/sub/b.txt"], "named": True,
		"pool": [0, 1, 4, 9, 16], "read": sys.argv[1], "sqlite": 45, "ssl": True, "sub": "sub-42",
		"threads": [0, 1, 4, 9], "tmp": "tmp-ok", "walk": ["src/a.txt", "src/sub/b.txt"]}, sort_keys=True))' \
		"$(cat "$RD/data.txt")")
	[ "$2" = 0 ] || echo "exit $2"
	[ "$(cat "$1/out/py.json" 2>/dev/null)" = "$want" ] || echo "py.json: $(head -c 300 "$1/out/py.json" 2>&1)"
	[ "$($PY -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select count(*) from t").fetchone()[0])' \
		"$1/out/py.db" 2>&1)" = 10 ] || echo "out/py.db: no table of 10 rows"
}

# ---- cc: compile and run a small C program in the workspace --------------------------------------------
prep_cc() {
	cat > "$1/hello.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char **argv) {
	long s = 0;
	for (int i = 1; i <= 100; i++) s += i;
	FILE *f = fopen("out/cc.txt", "w");
	if (!f) return 2;
	fprintf(f, "sum=%ld argc=%d\n", s, argc);
	return fclose(f) ? 3 : 0;
}
C
}
body_cc() { echo 'cc -O1 -Wall -o hello hello.c && ./hello a b'; }
check_cc() {
	[ "$2" = 0 ] || echo "exit $2"
	[ "$(cat "$1/out/cc.txt" 2>&1)" = "sum=5050 argc=3" ] || echo "out/cc.txt: $(head -c 200 "$1/out/cc.txt" 2>&1)"
	[ -x "$1/hello" ] && file_is_elf "$1/hello" || echo "hello: not an executable"
}
file_is_elf() { [ "$(head -c 4 "$1" | od -An -c | tr -d ' ')" = '177ELF' ]; }

# ---- make: a two-step build with a pattern rule ----------------------------------------------------------
prep_make() {
	printf 'all: out/joined.txt\nout/%%.up: src/%%.txt\n\ttr a-z A-Z < $< > $@\nout/joined.txt: out/a.up\n\tcat $^ > $@ && echo made >> $@\n' \
		> "$1/Makefile"
}
body_make() { echo 'make -s && make -s -q; echo q=$? > out/q'; }
check_make() {
	[ "$2" = 0 ] || echo "exit $2"
	[ "$(cat "$1/out/joined.txt" 2>&1)" = "$(printf 'ALPHA\nNEEDLE ONE\nmade')" ] || echo "out/joined.txt: $(cat "$1/out/joined.txt" 2>&1)"
	[ "$(cat "$1/out/q" 2>&1)" = q=0 ] || echo "make -q: $(cat "$1/out/q" 2>&1) (not up to date after the build)"
}

# ---- sh and bash pipelines ---------------------------------------------------------------------------------
prep_shell() { :; }
body_shell() {
	echo 'seq 1 200 | grep -v 5 | sort -rn | head -3 | tr "\n" " " > out/sh.txt &&
		bash -o pipefail -c '"'"'paste -d+ <(seq 1 10) <(seq 11 20) | bc | awk "{s+=\$1} END {print s}"'"'"' >> out/sh.txt &&
		{ bash -o pipefail -c "false | cat"; echo "pf=$?" >> out/sh.txt; } &&
		x=$(printf "%s\n" one two | wc -l) && echo "sub=$x" >> out/sh.txt'
}
check_shell() {
	[ "$2" = 0 ] || echo "exit $2"
	[ "$(cat "$1/out/sh.txt" 2>&1)" = "$(printf '200 199 198 210\npf=1\nsub=2')" ] || echo "out/sh.txt: $(cat "$1/out/sh.txt" 2>&1)"
}

# ---- tar czf / xzf ------------------------------------------------------------------------------------------
prep_tar() { :; }
body_tar() { echo 'tar czf out/src.tgz src && mkdir -p out/x && tar xzf out/src.tgz -C out/x && tar tzf out/src.tgz | sort > out/list'; }
check_tar() {
	[ "$2" = 0 ] || echo "exit $2"
	diff -r "$1/src" "$1/out/x/src" >/dev/null 2>&1 || echo "out/x/src differs from src"
	[ "$(tar tzf "$1/out/src.tgz" 2>&1 | sort | tr '\n' ' ')" = "src/ src/a.txt src/sub/ src/sub/b.txt src/sub/c.dat " ] \
		|| echo "src.tgz: $(tar tzf "$1/out/src.tgz" 2>&1 | tr '\n' ' ')"
}

# ---- git init / add / commit / log -----------------------------------------------------------------------------
prep_git() { :; }
body_git() {
	echo 'export GIT_AUTHOR_NAME=Rp GIT_AUTHOR_EMAIL=rp@example.invalid GIT_COMMITTER_NAME=Rp GIT_COMMITTER_EMAIL=rp@example.invalid &&
		git init -q -b main repo && cp -r src repo/ && cd repo && git add -A && git commit -q -m "first commit" &&
		echo change >> src/a.txt && git commit -q -a -m second && git log --format=%s > ../out/log &&
		git status --porcelain > ../out/status'
}
check_git() {
	[ "$2" = 0 ] || echo "exit $2"
	[ "$(cat "$1/out/log" 2>&1 | tr '\n' ' ')" = "second first commit " ] || echo "out/log: $(cat "$1/out/log" 2>&1)"
	[ -f "$1/out/status" ] && [ ! -s "$1/out/status" ] || echo "git status not clean: $(head -c 200 "$1/out/status" 2>&1)"
	[ "$(git -c safe.directory='*' -C "$1/repo" log --format=%s 2>&1 | tr '\n' ' ')" = "second first commit " ] \
		|| echo "host git log: $(git -c safe.directory='*' -C "$1/repo" log --format=%s 2>&1 | head -c 200)"
	git -c safe.directory='*' -C "$1/repo" fsck --no-progress >/dev/null 2>&1 || echo "host git fsck failed"
}

# ---- find, grep -r, sed -i ----------------------------------------------------------------------------------------
prep_text() { :; }
body_text() {
	echo 'find src -name "*.txt" | sort > out/find && grep -rn needle src | sort > out/grep &&
		cp src/a.txt out/ed.txt && sed -i "s/needle/pin/; 1i head" out/ed.txt'
}
check_text() {
	[ "$2" = 0 ] || echo "exit $2"
	[ "$(cat "$1/out/find" 2>&1 | tr '\n' ' ')" = "src/a.txt src/sub/b.txt " ] || echo "out/find: $(cat "$1/out/find" 2>&1)"
	[ "$(cat "$1/out/grep" 2>&1 | tr '\n' ' ')" = "src/a.txt:2:needle one src/sub/b.txt:2:needle two " ] || echo "out/grep: $(cat "$1/out/grep" 2>&1)"
	[ "$(cat "$1/out/ed.txt" 2>&1 | tr '\n' ' ')" = "head alpha pin one " ] || echo "out/ed.txt: $(cat "$1/out/ed.txt" 2>&1)"
}

# ---- cp -a, mv, ln -s, chmod +x -------------------------------------------------------------------------------------
prep_files() { printf '#!/bin/sh\necho tool-ran\n' > "$1/src/tool.sh"; chmod 644 "$1/src/tool.sh"; touch -d 2020-01-02 "$1/src/a.txt"; }
body_files() {
	echo 'cp -a src out/copy && mv out/copy/sub out/moved && ln -s ../src/a.txt out/link &&
		chmod +x out/copy/tool.sh && out/copy/tool.sh > out/tool.out && cat out/link > out/via-link &&
		ln src/a.txt out/hard && '"$PY"' -c "import os; os.rename(\"src/sub/c.dat\", \"out/c.dat\")"'
}
check_files() {
	[ "$2" = 0 ] || echo "exit $2"
	[ "$(cat "$1/out/moved/b.txt" 2>&1)" = "$(cat "$1/src/sub/b.txt")" ] && [ ! -e "$1/out/copy/sub" ] || echo "mv: out/moved wrong"
	[ "$(stat -c %Y "$1/out/copy/a.txt" 2>&1)" = "$(stat -c %Y "$1/src/a.txt")" ] || echo "cp -a: mtime not kept"
	[ "$(readlink "$1/out/link")" = ../src/a.txt ] || echo "ln -s: $(readlink "$1/out/link" 2>&1)"
	[ "$(stat -c %a "$1/out/copy/tool.sh" 2>&1)" = 755 ] || echo "chmod +x: mode $(stat -c %a "$1/out/copy/tool.sh" 2>&1)"
	[ "$(cat "$1/out/tool.out" 2>&1)" = tool-ran ] || echo "tool.sh did not run: $(cat "$1/out/tool.out" 2>&1)"
	[ "$(cat "$1/out/via-link" 2>&1)" = "$(cat "$1/src/a.txt")" ] || echo "read through the link failed"
	[ "$(stat -c %u "$1/out/moved/b.txt")" = "$(stat -c %u "$1")" ] || echo "owner $(stat -c %u "$1/out/moved/b.txt") != workspace's"
	# ./out is a write grant inside the workspace: a hard link and a rename between them (one mount)
	[ "$(stat -c %i "$1/out/hard" 2>&1)" = "$(stat -c %i "$1/src/a.txt")" ] || echo "ln src/a.txt out/hard: $(stat -c %i "$1/out/hard" 2>&1)"
	[ "$(cat "$1/out/c.dat" 2>&1)" = gamma ] && [ ! -e "$1/src/sub/c.dat" ] || echo "os.rename src -> out: $(cat "$1/out/c.dat" 2>&1)"
}

# ---- sqlite3 CLI ------------------------------------------------------------------------------------------------------
prep_sqlite() { :; }
body_sqlite() { echo 'sqlite3 out/cli.db "create table t(a, b); insert into t values (1, '"'x'"'), (2, '"'y'"');" && sqlite3 out/cli.db "select group_concat(b, '"'-'"') from t" > out/sq'; }
check_sqlite() {
	[ "$2" = 0 ] || echo "exit $2"
	[ "$(cat "$1/out/sq" 2>&1)" = x-y ] || echo "out/sq: $(cat "$1/out/sq" 2>&1)"
	[ "$($PY -c 'import sqlite3,sys; print(sqlite3.connect(sys.argv[1]).execute("select sum(a) from t").fetchone()[0])' "$1/out/cli.db" 2>&1)" = 3 ] \
		|| echo "out/cli.db unreadable on the host"
}

# ---- perl ---------------------------------------------------------------------------------------------------------------
prep_perl() { :; }
body_perl() {
	echo 'perl -MList::Util=sum -MFile::Find -e '"'"'my @f; find(sub { push @f, $File::Find::name if /\.txt$/ }, "src");
		open my $o, ">", "out/perl.txt" or die; print $o sum(1..10), " ", join(",", sort @f), "\n"'"'"' &&
		cp src/a.txt out/pi.txt && perl -pi -e "s/alpha/omega/" out/pi.txt'
}
check_perl() {
	[ "$2" = 0 ] || echo "exit $2"
	[ "$(cat "$1/out/perl.txt" 2>&1)" = "55 src/a.txt,src/sub/b.txt" ] || echo "out/perl.txt: $(cat "$1/out/perl.txt" 2>&1)"
	[ "$(head -1 "$1/out/pi.txt" 2>&1)" = omega ] || echo "perl -pi: $(head -1 "$1/out/pi.txt" 2>&1)"
}

# ---- openssl dgst ---------------------------------------------------------------------------------------------------------
prep_openssl() { :; }
body_openssl() { echo 'openssl dgst -sha256 -r src/a.txt > out/dgst && openssl rand -hex 8 > out/rand'; }
check_openssl() {
	[ "$2" = 0 ] || echo "exit $2"
	[ "$(cut -d' ' -f1 "$1/out/dgst" 2>&1)" = "$(sha256sum "$1/src/a.txt" | cut -d' ' -f1)" ] || echo "out/dgst: $(cat "$1/out/dgst" 2>&1)"
	grep -qE '^[0-9a-f]{16}$' "$1/out/rand" 2>/dev/null || echo "out/rand: $(cat "$1/out/rand" 2>&1)"
}

# ---- a process tree that ends with a chosen status --------------------------------------------------------------------------
prep_tree() { :; }
body_tree() {
	echo '( sh -c "sleep 0.1; exit 3" & sh -c "exit 4" & wait %1; a=$?; wait %2; echo "kids=$a,$?" > out/tree ) &&
		'"$PY"' -c "import os, sys
pid = os.fork()
if pid == 0: os._exit(9)
_, st = os.waitpid(pid, 0); open(\"out/py-tree\", \"w\").write(str(os.waitstatus_to_exitcode(st)))" && exit 42'
}
check_tree() {
	[ "$2" = 42 ] || echo "exit $2 (want 42)"
	[ "$(cat "$1/out/tree" 2>&1)" = "kids=3,4" ] || echo "out/tree: $(cat "$1/out/tree" 2>&1)"
	[ "$(cat "$1/out/py-tree" 2>&1)" = 9 ] || echo "out/py-tree: $(cat "$1/out/py-tree" 2>&1)"
}

# ---- mkdir -p of an absolute path (coreutils, Python): the ancestors outside the grants exist ---------------
# (a mkdir of a name that exists is EEXIST in the kernel before any permission check: no write, no event)
prep_mkdirp() { :; }
body_mkdirp() {
	echo 'mkdir -p "$PWD/out/p/q" && '"$PY"' -c "import os; os.makedirs(os.getcwd() + \"/out/r/s\", exist_ok=True)" &&
		{ mkdir /usr 2> out/usr.err; echo "usr=$?" >> out/usr.err; }'
}
check_mkdirp() {
	[ "$2" = 0 ] || echo "exit $2"
	[ -d "$1/out/p/q" ] && [ -d "$1/out/r/s" ] || echo "out/p/q or out/r/s not made"
	grep -q 'File exists' "$1/out/usr.err" && grep -qx 'usr=1' "$1/out/usr.err" || echo "mkdir /usr: $(tr '\n' '|' < "$1/out/usr.err")"
	local ev
	ev=$(python3 - "$a" <<'PY'
import json, sys
for l in open(sys.argv[1]):
    o = json.loads(l)
    if (o.get("op") or o.get("syscall") or "").startswith("mkdir"): print(o.get("event"), o.get("sev"), o.get("path"))
PY
)
	[ -z "$ev" ] || echo "mkdir events: $(head -n 3 <<<"$ev" | tr '\n' ';')"
}

CASES=(python cc make shell tar git text files mkdirp sqlite perl openssl tree)
case_cmds() { case $1 in python) echo "$PY" ;; cc) echo cc ;; shell) echo "sh bash bc paste" ;; text) echo "find grep sed" ;;
	files) echo "cp mv ln chmod" ;; sqlite) echo sqlite3 ;; tree) echo "sh $PY" ;; mkdirp) echo "mkdir $PY" ;; *) echo "$1" ;; esac; }
WHO=${SBX_RP_WHO:-root}; [ "$(id -u)" = 0 ] || WHO=user

for mode in "${MODES[@]}"; do
	for c in "${CASES[@]}"; do
		n=realprog_${c}_${mode}
		miss=; for p in $(case_cmds "$c"); do command -v "$p" >/dev/null 2>&1 || miss="$miss $p"; done
		[ -z "$miss" ] || { t_skip "$n" "not on this host:$miss"; continue; }
		ws=$T_TMP/ws/$mode-$c; new_ws "$ws"; "prep_$c" "$ws"; chmod -R a+rX "$ws"
		a=$AU/$mode-$c
		# stdout and stderr are pipes, as under a CI runner or `| tee log`
		(cd "$ws" && timeout 120 "$SBXSUP" run -m "$M" --layers "$(mode_layers "$mode")" -a "$a" -- sh -c "$(body_$c)") \
			2> >(cat > "$T_TMP/$mode-$c.err") | cat > "$T_TMP/$mode-$c.out"
		rc=${PIPESTATUS[0]}
		bad=$("check_$c" "$ws" "$rc")
		urg=$(urgent "$a" 2>&1)
		if [ -z "$bad" ] && [ -z "$urg" ] && audit_has "$a" run.end "exit=$rc"; then t_pass "$n"
		else t_fail "$n" "$(tr '\n' ';' <<<"$bad") urgent=[$(head -n 3 <<<"$urg" | tr '\n' ';')] stderr=$(grep -v '^sbxsup: warning' "$T_TMP/$mode-$c.err" | tail -c 400 | tr '\n' '|')"; fi
		echo "# matrix $WHO $mode $c $([ -z "$bad" ] && [ -z "$urg" ] && echo ok || echo FAIL)"
	done

	# ---- stdio reopened by name: echo > /dev/stderr, tee /dev/stdout, open("/dev/stdout") ----------------
	# stdin, stdout and stderr are pipes the invoker made (as root: root's, 0600); the executor opens
	# them again the way it holds them (docs/known-gaps.md: files and terminals as root are not),
	# as root never the other way (reading its own stdout back: refused; a normal user's executor is
	# the pipe's owner, as outside a sandbox), and each pipe has its owner and mode back after the run
	n=realprog_stdio_reopen_$mode
	ws=$T_TMP/ws/$mode-stdio; new_ws "$ws"; a=$AU/$mode-stdio
	res=$(cd "$ws" && python3 - "$SBXSUP" "$M" "$(mode_layers "$mode")" "$a" "$PY" <<'PY'
import os, re, subprocess, sys
sbx, man, layers, audit, py = sys.argv[1:6]
body = ('echo out-by-name > /dev/stdout; echo err-by-name > /dev/stderr; tee /dev/stderr < src/a.txt > /dev/null;'
        ' ' + py + ' -c \'open("/dev/stdout", "w").write("py-by-name\\n")\'; cat /dev/stdin > out/stdin;'
        ' timeout 2 cat /proc/self/fd/3 3>&1 < /dev/null > out/stolen 2>/dev/null; echo "steal=$?" >> out/stdin')
pipes = [os.pipe() for _ in range(3)]
keep = [os.dup(pipes[0][0]), pipes[1][0], pipes[2][0]]   # one end of each, open until after the run
before = [os.fstat(fd)[:] for fd in keep]
p = subprocess.Popen([sbx, "run", "-m", man, "--layers", layers, "-a", audit, "--", "sh", "-c", body],
                     stdin=pipes[0][0], stdout=pipes[1][1], stderr=pipes[2][1], pass_fds=())
for fd in (pipes[0][0], pipes[1][1], pipes[2][1]): os.close(fd)
os.write(pipes[0][1], b"stdin-data\n"); os.close(pipes[0][1])
def drain(fd):
    d = b""
    while True:
        b = os.read(fd, 65536)
        if not b: return d
        d += b
out = drain(pipes[1][0]).decode(); err = drain(pipes[2][0])
rc = p.wait(timeout=60)
after = [os.fstat(fd) for fd in keep]
same = all((a.st_uid, a.st_mode) == (b[4], b[0]) for a, b in zip(after, before))
# (a sanitizer build's own processes, the gateway under its seccomp lockdown, say so at exit: "==PID==")
err = "\n".join(l for l in err.decode().splitlines() if not l.startswith("sbxsup: warning") and not re.match(r"==[0-9]+==", l))
print("rc=%d out=%r err=%r restored=%s" % (rc, out, err, same))
PY
)
	if grep -qF "rc=0 out='out-by-name\npy-by-name\n'" <<<"$res" && grep -qF "err='err-by-name\nalpha\nneedle one'" <<<"$res" \
	   && grep -q 'restored=True' <<<"$res" && [ "$(head -1 "$ws/out/stdin" 2>&1)" = stdin-data ] \
	   && { [ "$WHO" = user ] || grep -qx 'steal=1' "$ws/out/stdin"; } \
	   && [ ! -s "$ws/out/stolen" ] && [ -z "$(urgent "$a")" ]; then t_pass "$n"; r=ok
	else t_fail "$n" "$res stdin=$(cat "$ws/out/stdin" 2>&1 | tr '\n' ' ') urgent=$(urgent "$a" | head -n 2)"; r=FAIL; fi
	echo "# matrix $WHO $mode stdio-reopen $r"

	# the secret in the same kind of workspace: refused, never shown, reported critical (deny[1])
	n=realprog_env_refused_$mode
	ws=$T_TMP/ws/$mode-env; new_ws "$ws"; a=$AU/$mode-env
	out=$(cd "$ws" && timeout 60 "$SBXSUP" run -m "$M" --layers "$(mode_layers "$mode")" -a "$a" -- \
		sh -c 'cat ./.env; echo "cat=$?"; '"$PY"' -c "print(open(\".env\").read())"; echo "py=$?"; ls -a' 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && ! grep -q "$SECRET" <<<"$out" && grep -q '^cat=1$' <<<"$out" && grep -q '^py=1$' <<<"$out" \
	   && grep -qx '.env' <<<"$out" && [ "$(cat "$ws/.env")" = "SECRET_VALUE=$SECRET" ] \
	   && { audit_has "$a" kernel.violation sev=critical "rule~deny[1]: **/.env" path~/.env \
	        || audit_has "$a" preload.deny sev=critical "rule~deny[1]: **/.env" path~/.env; }; then
		t_pass "$n"; r=ok
	else t_fail "$n" "rc=$rc out=$(tr '\n' '|' <<<"$out" | tail -c 400) events=$(urgent "$a" | head -n 3 | tr '\n' ';')"; r=FAIL; fi
	echo "# matrix $WHO $mode env-refused $r"
done

# ---- the same as a normal user (this script again, as that user) ----------------------------------------------------------------
if [ "$(id -u)" = 0 ] && [ -z "${SBX_RP_INNER:-}" ]; then
	U=sbxu_realprog
	if command -v useradd >/dev/null && useradd -m "$U" 2>/dev/null; then
		t_on_exit "userdel -r $U 2>/dev/null"
		out=$(runuser -u "$U" -- env SBX_RP_INNER=1 SBX_RP_RD="$RD" SBXSUP="$SBXSUP" SBX_ROOT="$SBX_ROOT" \
			SBX_PROGS="$SBX_PROGS" HOME="/home/$U" PATH="/usr/local/bin:/usr/bin:/bin" bash "$0" 2>&1)
		while IFS= read -r l; do
			case $l in PASS:*|FAIL:*|SKIP:*) echo "${l%%: *}: unpriv_${l#*: }";; "# "*) echo "$l";; esac
		done <<<"$out"
	else t_skip realprog_unprivileged "cannot create user $U"; fi
fi
