#!/usr/bin/env python3
"""escape.py — the escape-corpus runner (called by tests/escape/run.sh; see docs/escape-matrix.md and docs/testing.md).

Promise: every attack under tests/escape/attacks/<family>/<name>.c is compiled into $B/escape/bin,
run with `sbxsup run` in each mode against canaries this runner creates (a temp HOME with a
.ssh/id_rsa canary, a canary file and a target file in a directory nothing grants, the real
/etc/shadow, a victim process outside the sandbox, loopback listeners and host AF_UNIX sockets),
and judged twice, independently:
  1. did the attack fail?  its exit status (0 = it succeeded) AND the runner's own evidence:
     canary on stdout/stderr or in the workspace, target file changed, files planted, listener hit
     on a non-granted port, victim killed, forged audit line, a process of the run still alive;
  2. does the audit stream name the layer that stopped or saw it?  (the declared events)
One line per asserted (attack, mode): PASS: / FAIL: / SKIP:. With --matrix FILE, every attack runs
in every mode and the attack x mode table is written as Markdown.

Expectations live in each attack's header comment:
  // profile: fs|fs-raw|exec|exec-raw|net|net-raw|syscall|proc|env|limits   (defaults per mode)
  // manifest: base|exec|net|netany|env|limits|ro|deny|deny-float|deny-nested (netany: an unrestricted
                 network; ro: base + fs:read of a dir holding rotarget=; deny: base + fs:read of the
                 dir holding secret= and a manifest deny of secret=, a world-readable file: only the
                 deny stands in the way;
                 deny-float: base + code:exec + the floating deny "**/.env" (setup dotenv puts the
                 canary in dotenv=, the workspace's app/.env); deny-nested: base + fs:read of the
                 dir holding secret= and a deny of its private/** (setup nested puts the canary in
                 nested=, private/key.txt there))
  // build: static
  // limits: {"wall_s": 15}                                                  (merged into the manifest)
  // expect-<mode>: blocked|blocked-or-reported; events: EV|EV(key=value,key~sub)|...  or  none
  // expect-<mode>-user: ...        (the same, for a run as an unprivileged user; else expect-<mode>)
  // expect-<mode>-container: ...   (the same, in a container (SBX_ESCAPE_IN_CONTAINER=1), where a
                                     profile may withhold what the mode's reporter needs — the
                                     run's own network namespace for the gateway)
  // as-user: yes                   (also run when the runner is not root: check-user)
  // silent-ok[-<mode>]: REASON     (a blocked cell without any event is accepted there, for REASON)
  // silent-ok-container: REASON    (the same, only when SBX_ESCAPE_IN_CONTAINER=1: the container
                                     runtime's own seccomp profile refuses the call before sbxsup's
                                     filter is asked — its errno outranks user notification)
  // silent-ok-container-root: REASON  (the same, only in a container and when the runner is root:
                                     what container root lacks there — the probes, or read access
                                     to the executor's memory — leaves the refusal unreported)
  // preload: unreadable            (root only: the run's library is a copy the executor's identity
                                     cannot read: mode 0600 in a 0700 dir, via SBXSUP_PRELOAD_LIB)
  // refusal: REASON                (exit 125 with "REASON" said on stderr is a refusal, not an
                                     error: the command never ran; the mode's layer check is skipped)
  // setup: setuid-files            (the runner puts premade-suid (04755) and premade-sgid (02644,
                                     no group-exec) into the workspace before the run)
  // setup: abstract-squat          (during the run a host client keeps connecting to the abstract
                                     name squat=, which nobody on the host holds: a connect that
                                     succeeds was captured by the executor — a listener hit)
  // setup: dotenv | dotenv-late | nested  (a world-readable canary at dotenv= before the run; the
                                     same at lateenv=, the workspace's late/.env, written by the
                                     runner 1 s after the run started; at nested= before the run.
                                     The planted file itself is not "canary copied to the
                                     workspace"; a change to it is evidence)
  // setup: denied-binary           (as dotenv-late, but late/.env is a copy of the attack's own
                                     binary, mode 0755, its tag slot "SBXESC_TAGSLOT_0..." holding
                                     the canary: running it is printing the canary)
Privilege evidence (every attack): after the run nothing in the workspace may be setuid or setgid
(a premade file only as the runner left it: content unchanged, or its bit dropped by the kernel on
the write), a character or block device, or carry a security.capability attribute.

Every cell says which layer BLOCKED the attack and which REPORTED it, both read from the run's
audit stream (event, src, sensor, errno) and its run.start layers. A blocked cell with no event, in
a mode where a layer that reports this class of attack was active, is "blocked but silent": a
finding (FAIL line, matrix generation fails) unless the attack declares silent-ok for that mode.

As a normal user (no BPF): only attacks with `as-user: yes` run; netfilter and probes are not
expected active in any mode and their single-layer modes are skipped.

In a container (SBX_ESCAPE_IN_CONTAINER=1), as any user: a mode's layers are asserted only as far as
`sbxsup status --json` says they are available there (a container's profile may withhold BPF, a
writable cgroup or namespaces); single-layer modes of an unavailable layer are skipped, said once.
Outside a container nothing is relaxed.
"""
import argparse
import fnmatch
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
import traceback

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), '..', '..'))
ATTACKS = os.path.join(ROOT, 'tests', 'escape', 'attacks')

# mode -> extra sbxsup arguments
MODES = {
    'full': [],
    'preload-only': ['--layers', 'preload,probes'],
    'no-bwrap': ['--layers', 'preload,seccomp,landlock,netfilter,probes'],
    'preload': ['--layers', 'preload'],
    'bwrap': ['--layers', 'bwrap'],
    'seccomp': ['--layers', 'seccomp'],
    'landlock': ['--layers', 'landlock'],
    'netfilter': ['--layers', 'netfilter'],
    'probes': ['--layers', 'probes'],
    'limits': ['--layers', 'limits'],
}
ALWAYS = ['full', 'preload-only', 'no-bwrap']   # asserted for every attack
# --deny-overlay: every manifest also carries a deny that matches nothing. A manifest deny makes the
# seccomp filter route every open, exec and write-class call to sbxsup, which decides and performs
# them — a path no other run takes, where a refusal sbxsup answers never reaches the probes; the
# corpus is asserted again through it (make test runs it in the modes where the path differs).
DENY_OVERLAY = ['**/.sbxesc-overlay-deny']
deny_overlay = False
ALL_LAYERS = ['preload', 'bwrap', 'seccomp', 'landlock', 'netfilter', 'probes', 'limits']
SECURITY_EVENTS = ['preload.deny', 'seccomp.deny', 'netfilter.deny', 'kernel.violation', 'env.drop',
                   'limit.hit', 'net.deny', 'dns.deny']

# Default expectations per profile: mode -> "kind; events: ..." (same syntax as the headers).
PROFILES = {
    # libc-level file access: the preload stops it; kernel layers contain what gets past it
    'fs': {
        'full': 'blocked; events: preload.deny|kernel.violation(outcome=contained)',
        'no-bwrap': 'blocked; events: preload.deny|kernel.violation(outcome=contained)',
        'preload-only': 'blocked-or-reported; events: preload.deny|kernel.violation',
        'preload': 'blocked; events: preload.deny',
        'landlock': 'blocked; events: none',
        'probes': 'blocked-or-reported; events: kernel.violation',
    },
    # file access that bypasses libc (raw syscall, static binary, no preload in the exec'd program)
    'fs-raw': {
        'full': 'blocked; events: kernel.violation(outcome=contained)|seccomp.deny',
        'no-bwrap': 'blocked; events: kernel.violation(outcome=contained)|seccomp.deny',
        'preload-only': 'blocked-or-reported; events: kernel.violation|preload.deny',
        'landlock': 'blocked; events: none',
        'probes': 'blocked-or-reported; events: kernel.violation',
    },
    # exec without code:exec through libc
    'exec': {
        'full': 'blocked; events: preload.deny|kernel.violation(outcome=contained)|seccomp.deny',
        'no-bwrap': 'blocked; events: preload.deny|kernel.violation(outcome=contained)|seccomp.deny',
        'preload-only': 'blocked-or-reported; events: preload.deny|kernel.violation',
        'preload': 'blocked; events: preload.deny',
        'probes': 'blocked-or-reported; events: kernel.violation',
    },
    # exec without code:exec by raw syscall
    'exec-raw': {
        'full': 'blocked; events: kernel.violation(outcome=contained)|seccomp.deny',
        'no-bwrap': 'blocked; events: kernel.violation(outcome=contained)|seccomp.deny',
        'preload-only': 'blocked-or-reported; events: kernel.violation',
        'probes': 'blocked-or-reported; events: kernel.violation',
    },
    # network through libc
    'net': {
        'full': 'blocked; events: preload.deny|netfilter.deny|kernel.violation(outcome=contained)',
        'no-bwrap': 'blocked; events: preload.deny|netfilter.deny|kernel.violation(outcome=contained)',
        'preload-only': 'blocked-or-reported; events: preload.deny|kernel.violation',
        'preload': 'blocked; events: preload.deny',
        'probes': 'blocked-or-reported; events: kernel.violation',
    },
    # network bypassing libc
    'net-raw': {
        'full': 'blocked; events: netfilter.deny|kernel.violation(outcome=contained)|seccomp.deny',
        'no-bwrap': 'blocked; events: netfilter.deny|kernel.violation(outcome=contained)|seccomp.deny',
        'preload-only': 'blocked-or-reported; events: kernel.violation',
        'netfilter': 'blocked; events: netfilter.deny',
        'probes': 'blocked-or-reported; events: kernel.violation',
    },
    # dangerous system calls: seccomp's job
    'syscall': {
        'full': 'blocked; events: seccomp.deny|preload.deny|kernel.violation(outcome=contained)',
        'no-bwrap': 'blocked; events: seccomp.deny|preload.deny|kernel.violation(outcome=contained)',
        'preload-only': 'blocked-or-reported; events: preload.deny|kernel.violation',
        'seccomp': 'blocked; events: seccomp.deny',
    },
    # other processes (signals, ptrace, memory)
    'proc': {
        'full': 'blocked; events: seccomp.deny|preload.deny|kernel.violation(outcome=contained)',
        'no-bwrap': 'blocked; events: seccomp.deny|preload.deny|kernel.violation(outcome=contained)',
        'preload-only': 'blocked-or-reported; events: preload.deny|kernel.violation',
    },
    # environment filtering (done by the supervisor in every mode)
    'env': {
        'full': 'blocked; events: env.drop',
        'no-bwrap': 'blocked; events: env.drop',
        'preload-only': 'blocked-or-reported; events: env.drop',
    },
    # resource limits
    'limits': {
        'full': 'blocked; events: limit.hit',
        'no-bwrap': 'blocked; events: limit.hit',
        'preload-only': 'blocked-or-reported; events: limit.hit',
        'limits': 'blocked; events: limit.hit',
    },
}

HDR_RE = re.compile(r'^\s*(?://|#)\s*(profile|manifest|build|limits|as-user|preload|refusal|setup|silent-ok(?:-[a-z-]+)?|expect-[a-z-]+)'
                    r'\s*:\s*(.*?)\s*$')
ROOT_RUN = os.geteuid() == 0
USER_OFF = ['netfilter', 'probes']   # need root (BPF): never active for a normal user
IN_CONTAINER = os.environ.get('SBX_ESCAPE_IN_CONTAINER') == '1'


def layers_off(sbxsup):
    """The layers no mode can be expected to have in this run: netfilter and probes for a normal
    user; in a container (SBX_ESCAPE_IN_CONTAINER=1) also those `sbxsup status --json` says are not
    available there. -> (list, {layer: why})"""
    off = {} if ROOT_RUN else {l: 'needs root (BPF)' for l in USER_OFF}
    if IN_CONTAINER:
        r = subprocess.run([sbxsup, 'status', '--json'], capture_output=True, text=True, timeout=60)
        try:
            st = json.loads(r.stdout)
        except ValueError:
            raise RuntimeError('sbxsup status --json gave no JSON (exit %d): %s' % (r.returncode, r.stderr[-200:]))
        for l in ALL_LAYERS:
            info = (st.get('layers') or {}).get(l) or {}
            if l not in off and info.get('available') is not True:
                off[l] = 'not available in this container (%s)' % (info.get('why') or 'status --json')
    return [l for l in ALL_LAYERS if l in off], off


def parse_expect(text):
    """'blocked; events: a|b(k=v)' -> (kind, [(event, [cond...])...] or None) ; 'none' -> None."""
    text = text.strip()
    if text == 'none' or text.startswith('none ') or text.startswith('none\t'):
        return None   # "none (why)": not asserted in that mode
    kind, _, rest = text.partition(';')
    kind = kind.strip()
    if kind not in ('blocked', 'blocked-or-reported'):
        raise ValueError('bad expectation kind %r' % kind)
    rest = rest.strip()
    if not rest.startswith('events:'):
        raise ValueError('expectation without "events:": %r' % text)
    evs = rest[len('events:'):].strip()
    if evs == 'none':
        return (kind, [])
    alts = []
    for alt in evs.split('|'):
        alt = alt.strip()
        m = re.match(r'^([a-z.]+)(?:\((.*)\))?$', alt)
        if not m:
            raise ValueError('bad event %r' % alt)
        conds = [c.strip() for c in (m.group(2) or '').split(',') if c.strip()]
        alts.append((m.group(1), conds))
    return (kind, alts)


class Attack:
    def __init__(self, path):
        self.path = path
        self.family = os.path.basename(os.path.dirname(path))
        self.name = os.path.splitext(os.path.basename(path))[0]
        self.profile = None
        self.manifest = 'base'
        self.static = False
        self.summary = ''
        self.limits = {}
        self.as_user = False
        self.preload = ''
        self.refusal = ''
        self.silent_ok = {}          # mode ('' = every mode) -> reason
        self.setup = ''              # 'setuid-files': premade setuid/setgid files in the workspace
        over, over_user, over_container = {}, {}, {}
        with open(path, encoding='utf-8') as f:
            head = f.read(8192)
        m = re.search(r'/\*\s*(.*?)(?:\n//|\*/)', head, re.S)
        if m:
            self.summary = ' '.join(m.group(1).replace('*', ' ').split())
        for line in head.splitlines():
            h = HDR_RE.match(line)
            if not h:
                continue
            k, v = h.group(1), h.group(2)
            if k == 'profile':
                self.profile = v
            elif k == 'manifest':
                self.manifest = v
            elif k == 'build':
                self.static = v == 'static'
            elif k == 'limits':
                self.limits = json.loads(v)
            elif k == 'setup':
                self.setup = v.strip()
            elif k == 'as-user':
                self.as_user = v.strip().lower() in ('yes', 'true', '1')
            elif k == 'preload':
                if v != 'unreadable':
                    raise ValueError('%s: preload: only "unreadable" is known' % path)
                self.preload = v
            elif k == 'refusal':
                self.refusal = v
            elif k.startswith('silent-ok'):
                self.silent_ok[k[len('silent-ok-'):] if k != 'silent-ok' else ''] = v
            elif k.endswith('-user'):
                over_user[k[len('expect-'):-len('-user')]] = v
            elif k.endswith('-container'):
                over_container[k[len('expect-'):-len('-container')]] = v
            else:
                over[k[len('expect-'):]] = v
        if self.profile not in PROFILES:
            raise ValueError('%s: unknown or missing profile %r' % (path, self.profile))
        spec = dict(PROFILES[self.profile])
        spec.update(over)
        if not ROOT_RUN:
            spec.update(over_user)
        if IN_CONTAINER:
            spec.update(over_container)
        for m in list(self.silent_ok) + list(over_user) + list(over_container):
            if m and m not in MODES and m not in ('container', 'container-root'):
                raise ValueError('%s: unknown mode %r' % (path, m))
        self.expect = {}
        for mode, text in spec.items():
            if mode not in MODES:
                raise ValueError('%s: unknown mode %r' % (path, mode))
            e = parse_expect(text)
            if e is not None:
                self.expect[mode] = e


def get(o, dotted):
    for p in dotted.split('.'):
        if not isinstance(o, dict) or p not in o:
            return None
        o = o[p]
    return o


def norm(v):
    if isinstance(v, bool):
        return 'true' if v else 'false'
    return str(v)


def cond_ok(ev, c):
    if '~' in c and ('=' not in c or c.index('~') < c.index('=')):
        k, v = c.split('~', 1)
        return v in norm(get(ev, k))
    k, v = c.split('=', 1)
    return norm(get(ev, k)) == v


def events_match(events, alts):
    for name, conds in alts:
        for ev in events:
            if ev.get('event') == name and all(cond_ok(ev, c) for c in conds):
                return True
    return False


def ev_label(ev):
    n = ev.get('event')
    if n == 'kernel.violation':
        return 'kernel.violation(%s)' % ev.get('outcome', '?')
    if n == 'limit.hit':
        return 'limit.hit(%s)' % ev.get('limit', '?')
    return n


def _die_with_parent():
    """In the victim child: SIGKILL when the runner dies (no leftover if the runner is killed)."""
    import ctypes
    ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL, 0, 0, 0)  # PR_SET_PDEATHSIG


# ---------------------------------------------------------------------------------------------
class Listener:
    """Loopback listeners outside the sandbox. Good: 127.0.0.1:ok. Bad (counted): 127.0.0.1:bad,
    127.0.0.2:ok, [::1]:bad, UDP 127.0.0.1:u, a unix path socket, a 0666 unix datagram socket and an
    abstract socket; and a host client of the abstract squat name (squat_start)."""

    def __init__(self, esc):
        self.hits = 0
        self.lock = threading.Lock()
        self.socks = []
        for _ in range(50):
            good = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            good.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            good.bind(('127.0.0.1', 0))
            self.port_ok = good.getsockname()[1]
            try:
                alt = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
                alt.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
                alt.bind(('127.0.0.2', self.port_ok))
                break
            except OSError:
                good.close()
                alt.close()
        else:
            raise RuntimeError('no free loopback port pair')
        bad = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        bad.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        bad.bind(('127.0.0.1', 0))
        self.port_bad = bad.getsockname()[1]
        streams = [(good, False), (alt, True), (bad, True)]
        try:
            b6 = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
            b6.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
            b6.bind(('::1', self.port_bad))
            streams.append((b6, True))
        except OSError as e:
            print('escape: note: no [::1] listener (%s)' % e, file=sys.stderr)
        self.unix = os.path.join(esc, 'outside', 'host.sock')
        ux = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        ux.bind(self.unix)
        streams.append((ux, True))
        self.abstract = 'sbxesc-' + secrets.token_hex(6)
        ab = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        ab.bind('\0' + self.abstract)
        streams.append((ab, True))
        # a host datagram socket anyone may write to (the /dev/log, sd_notify class), outside
        # every grant: each datagram that arrives is a hit
        self.dgram = os.path.join(esc, 'outside', 'host.dgram')
        dg = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        dg.bind(self.dgram)
        os.chmod(self.dgram, 0o666)
        self.socks.append(dg)
        threading.Thread(target=self._dgram, args=(dg,), daemon=True).start()
        # an abstract name nobody holds: the executor's squat target (setup: abstract-squat)
        self.squat = 'sbxesc-squat-' + secrets.token_hex(6)
        self.squatting = None
        for s, counted in streams:
            s.listen(64)
            self.socks.append(s)
            threading.Thread(target=self._accept, args=(s, counted), daemon=True).start()
        u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        u.bind(('127.0.0.1', 0))
        self.uport = u.getsockname()[1]
        self.socks.append(u)
        threading.Thread(target=self._udp, args=(u,), daemon=True).start()

    def _hit(self):
        with self.lock:
            self.hits += 1

    def _accept(self, s, counted):
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            if counted:
                self._hit()
            try:
                c.sendall(b'hello from outside\n')
                c.close()
            except OSError:
                pass

    def _dgram(self, d):
        while True:
            try:
                d.recv(65536)
            except OSError:
                return
            self._hit()

    def squat_start(self):
        """A host client that keeps connecting to the squat name during the run: a connect that
        succeeds reached whatever the executor bound there — captured (a hit)."""
        stop = threading.Event()

        def client():
            while not stop.is_set():
                c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                try:
                    c.connect('\0' + self.squat)
                    c.sendall(b'host client\n')
                    self._hit()
                    c.close()
                    return
                except OSError:
                    c.close()
                stop.wait(0.05)
        t = threading.Thread(target=client, daemon=True)
        t.start()
        self.squatting = (stop, t)

    def squat_stop(self):
        if self.squatting:
            self.squatting[0].set()
            self.squatting[1].join(2)
            self.squatting = None

    def _udp(self, u):
        while True:
            try:
                data, peer = u.recvfrom(65536)
            except OSError:
                return
            self._hit()
            try:
                u.sendto(b'echo:' + data[:64], peer)
            except OSError:
                pass

    def close(self):
        for s in self.socks:
            try:
                s.close()
            except OSError:
                pass


# ---------------------------------------------------------------------------------------------
class Env:
    """The canaries and targets, created fresh by the runner and removed at exit."""

    def __init__(self, bindir):
        self.bin = bindir
        self.dir = os.path.realpath(__import__('tempfile').mkdtemp(prefix='sbxesc.', dir='/var/tmp'))
        os.chmod(self.dir, 0o755)
        self.canary = 'SBXESC_CANARY_' + secrets.token_hex(12)
        d = self.dir
        self.home = os.path.join(d, 'home')
        self.sshdir = os.path.join(self.home, '.ssh')
        self.ssh = os.path.join(self.sshdir, 'id_rsa')
        self.outside = os.path.join(d, 'outside')
        self.secret = os.path.join(self.outside, 'secret.txt')
        self.target = os.path.join(self.outside, 'target.txt')
        self.rodir = os.path.join(d, 'ro')          # granted read-only by manifest "ro"
        self.rotarget = os.path.join(self.rodir, 'rotarget.txt')
        self.ws = os.path.join(d, 'ws')
        self.dotenv = os.path.join(self.ws, 'app', '.env')        # setup dotenv
        self.lateenv = os.path.join(self.ws, 'late', '.env')      # setup dotenv-late
        self.nested = os.path.join(self.outside, 'private', 'key.txt')  # setup nested
        self.planted = {}                                          # path -> content the runner put
        self.audit = os.path.join(d, 'audit')
        self.mdir = os.path.join(d, 'manifests')
        for p in (self.sshdir, self.outside, self.ws, self.audit, self.mdir, self.rodir):
            os.makedirs(p, exist_ok=True)
        os.chmod(self.sshdir, 0o700)
        if IN_CONTAINER and ROOT_RUN:
            # container root without CAP_SYS_ADMIN gets no idmapped workspace: the executor (another
            # uid) writes it only where its modes allow (docs/deployment.md)
            os.chmod(self.ws, 0o777)
        with open(self.ssh, 'w') as f:
            f.write('-----BEGIN OPENSSH PRIVATE KEY-----\n%s\n-----END OPENSSH PRIVATE KEY-----\n'
                    % self.canary)
        os.chmod(self.ssh, 0o600)
        with open(self.secret, 'w') as f:
            f.write('secret: %s\n' % self.canary)
        self.syswrite = '/etc/sbxesc-planted-' + secrets.token_hex(4)
        self.listener = Listener(d)
        self.victim = None
        self.start_victim()
        self.reset()

    def start_victim(self):
        env = {'PATH': '/usr/bin:/bin', 'SBXESC_VICTIM_SECRET': self.canary}
        self.victim = subprocess.Popen(['sleep', '3600'], cwd=self.outside, env=env,
                                       stdin=subprocess.DEVNULL, preexec_fn=_die_with_parent)

    def victim_alive(self):
        return self.victim.poll() is None

    def reset(self):
        """Fresh workspace, pristine target, nothing planted."""
        for name in os.listdir(self.ws):
            p = os.path.join(self.ws, name)
            if os.path.isdir(p) and not os.path.islink(p):
                shutil.rmtree(p, ignore_errors=True)
            else:
                try:
                    os.unlink(p)
                except OSError:
                    pass
        for name in os.listdir(self.outside):
            if name not in ('secret.txt', 'target.txt', 'host.sock', 'host.dgram'):
                p = os.path.join(self.outside, name)
                shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) else os.unlink(p)
        for name in os.listdir(self.sshdir):
            if name != 'id_rsa':
                os.unlink(os.path.join(self.sshdir, name))
        with open(self.target, 'w') as f:
            f.write('original\n')
        os.chmod(self.target, 0o644)
        os.utime(self.target, (1700000000, 1700000000))
        for name in os.listdir(self.rodir):
            p = os.path.join(self.rodir, name)
            shutil.rmtree(p, ignore_errors=True) if os.path.isdir(p) and not os.path.islink(p) else os.unlink(p)
        with open(self.rotarget, 'w') as f:
            f.write('read-only original\n')
        os.chmod(self.rotarget, 0o644)
        os.chown(self.rotarget, os.getuid(), os.getgid())
        try:   # an attribute only a metadata attack could remove
            os.setxattr(self.rotarget, 'user.sbxesc_keep', b'1')
        except OSError:
            pass
        os.utime(self.rotarget, (1700000000, 1700000000))
        with open(self.secret, 'w') as f:
            f.write('secret: %s\n' % self.canary)
        os.chmod(self.secret, 0o644)
        for n in os.listxattr(self.secret):
            try:
                os.removexattr(self.secret, n)
            except OSError:
                pass
        os.utime(self.secret, (1700000000, 1700000000))
        if os.path.lexists(self.syswrite):
            os.unlink(self.syswrite)
        if not self.victim_alive():
            self.start_victim()

    @staticmethod
    def meta(path):
        """Content, mode bits, owner, mtime, ctime, link count and extended attributes of a file
        (None when absent). ctime catches a chown to the same owner; the link count a hard link."""
        try:
            st = os.lstat(path)
        except OSError:
            return None
        try:
            xattrs = sorted((n, os.getxattr(path, n, follow_symlinks=False))
                            for n in os.listxattr(path, follow_symlinks=False))
        except OSError:
            xattrs = None
        data = open(path).read() if os.path.isfile(path) else None
        return (data, st.st_mode, st.st_uid, st.st_gid, int(st.st_mtime), st.st_ctime_ns, st.st_nlink, xattrs)

    def snapshot(self):
        return {
            'target': self.meta(self.target),
            'rotarget': self.meta(self.rotarget),
            'secret': self.meta(self.secret),
            'rodir': sorted(os.listdir(self.rodir)),
            'outside': sorted(os.listdir(self.outside)),
            'sshdir': sorted(os.listdir(self.sshdir)),
            'hits': self.listener.hits,
        }

    def manifest(self, kind, attack):
        m = {'sbxsup': 1, 'name': 'esc-' + attack.name[:56], 'autonomy': 'supervised',
             'code_path': os.path.join(self.bin, attack.name), 'capabilities': [],
             'limits': {'wall_s': 20}}
        if kind == 'exec':
            m['capabilities'].append('code:exec')
        elif kind == 'net':
            m['capabilities'].append({'cap': 'network:tcp',
                                      'hosts': ['127.0.0.1:%d' % self.listener.port_ok]})
        elif kind == 'netany':
            m['capabilities'].append('network:tcp')    # no hosts: any host (unrestricted)
        elif kind == 'env':
            m['env'] = {'pass': ['LANG', 'AWS_SECRET_ACCESS_KEY', '*_TOKEN']}
        elif kind == 'limits':
            m['limits'] = {'wall_s': 3, 'cpu_s': 1, 'memory_mb': 64, 'pids': 32, 'fsize_mb': 8,
                           'nofile': 64}
        elif kind == 'ro':
            m['capabilities'].append({'cap': 'fs:read', 'hint': self.rodir})
        elif kind == 'deny':
            m['capabilities'].append({'cap': 'fs:read', 'hint': self.outside + '/**'})
            m['deny'] = [self.secret]
        elif kind == 'deny-float':
            m['capabilities'].append('code:exec')
            m['deny'] = ['**/.env']
        elif kind == 'deny-nested':
            m['capabilities'].append({'cap': 'fs:read', 'hint': self.outside + '/**'})
            m['deny'] = [os.path.join(self.outside, 'private') + '/**']
        elif kind != 'base':
            raise ValueError('unknown manifest kind %r' % kind)
        m['limits'].update(attack.limits)
        if deny_overlay:
            m['deny'] = m.get('deny', []) + DENY_OVERLAY
        p = os.path.join(self.mdir, '%s.json' % attack.name)
        with open(p, 'w') as f:
            json.dump(m, f, indent=1)
        return p

    def unreadable_preload(self, sbxsup):
        """A copy of the preload library that only its owner (root) can read: 0600 in a 0700 dir."""
        d = os.path.join(self.dir, 'unreadable')
        lib = os.path.join(d, 'libsbxpreload.so')
        if not os.path.exists(lib):
            src = os.environ.get('SBXSUP_PRELOAD_LIB') or os.path.join(os.path.dirname(sbxsup),
                                                                       'libsbxpreload.so')
            os.makedirs(d, mode=0o700, exist_ok=True)
            shutil.copyfile(src, lib)
            os.chmod(lib, 0o600)
            os.chmod(d, 0o700)
        return lib

    def params(self, marker):
        return ['home=' + self.home, 'ssh=' + self.ssh, 'sshdir=' + self.sshdir,
                'outside=' + self.outside, 'secret=' + self.secret, 'target=' + self.target,
                'rotarget=' + self.rotarget,
                'ws=' + self.ws, 'shadow=/etc/shadow', 'syswrite=' + self.syswrite,
                'port_ok=%d' % self.listener.port_ok, 'port_bad=%d' % self.listener.port_bad,
                'uport=%d' % self.listener.uport, 'victim=%d' % self.victim.pid,
                'unix=' + self.listener.unix, 'abstract=' + self.listener.abstract,
                'dgram=' + self.listener.dgram, 'squat=' + self.listener.squat,
                'bin=' + self.bin, 'marker=' + marker, 'dotenv=' + self.dotenv,
                'lateenv=' + self.lateenv, 'nested=' + self.nested]

    def close(self):
        self.listener.close()
        if self.victim and self.victim_alive():
            self.victim.kill()
            self.victim.wait()
        if os.path.lexists(self.syswrite):
            os.unlink(self.syswrite)
        if not os.environ.get('ESC_KEEP'):
            shutil.rmtree(self.dir, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
def build(attacks, bindir):
    os.makedirs(bindir, exist_ok=True)
    cc = os.environ.get('CC', 'cc')
    errors = []
    for a in attacks:
        out = os.path.join(bindir, a.name)
        deps = [a.path] + [os.path.join(ATTACKS, h) for h in ('esc.h', 'esc_net.h', 'esc_uring.h', 'esc_race.h')]
        if os.path.exists(out) and os.path.getmtime(out) >= max(os.path.getmtime(d) for d in deps):
            continue
        cmd = [cc, '-D_GNU_SOURCE', '-O1', '-Wall', '-Wextra', '-Werror', '-Wno-unused-parameter',
               '-I', ATTACKS, '-o', out, a.path] + (['-static'] if a.static else [])
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode:
            errors.append((a, r.stderr.strip()))
    return errors


def pgrep(marker):
    r = subprocess.run(['pgrep', '-f', marker], capture_output=True, text=True)
    return [int(x) for x in r.stdout.split()]


def read_events(path):
    evs, bad = [], 0
    try:
        with open(path, encoding='utf-8', errors='replace') as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    evs.append(json.loads(line))
                except ValueError:
                    bad += 1
    except OSError:
        pass
    return evs, bad


PREMADE = {'premade-suid': 0o4755, 'premade-sgid': 0o2644}
PREMADE_TEXT = 'premade original\n'


def plant(env, path):
    """A world-readable file holding the canary, that only a manifest deny protects."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.chmod(os.path.dirname(path), 0o755)
    text = ('TOKEN=%s\n' % env.canary).encode()
    with open(path, 'wb') as f:
        f.write(text)
    os.chmod(path, 0o644)
    env.planted[path] = text


TAG_SLOT = b'SBXESC_TAGSLOT_' + b'0' * 23


def plant_binary(env, path, binary):
    """The attack's own binary as a file only a manifest deny protects: executable, its tag slot
    holding the canary (deny_float_exec_race.c)."""
    with open(binary, 'rb') as f:
        data = f.read()
    assert len(env.canary) == len(TAG_SLOT) and TAG_SLOT in data, 'no tag slot in %s' % binary
    data = data.replace(TAG_SLOT, env.canary.encode())
    os.makedirs(os.path.dirname(path), exist_ok=True)
    os.chmod(os.path.dirname(path), 0o755)
    part = os.path.join(env.dir, 'denied-binary.part')  # outside the workspace: never seen undenied
    with open(part, 'wb') as f:
        f.write(data)
    os.chmod(part, 0o755)
    os.rename(part, path)
    env.planted[path] = data


def setup_premade(env):
    for name, mode in PREMADE.items():
        p = os.path.join(env.ws, name)
        with open(p, 'w') as f:
            f.write(PREMADE_TEXT)
        os.chmod(p, mode)


def privilege_evidence(env):
    """What in the workspace could gain privilege: setuid/setgid entries (a premade file only as
    the runner left it, or with its bit dropped), device nodes, file capabilities."""
    import stat as st_
    out = []
    for dp, dns, fs in os.walk(env.ws):
        for fn in dns + fs:
            fp = os.path.join(dp, fn)
            rel = os.path.relpath(fp, env.ws)
            try:
                st = os.lstat(fp)
            except OSError:
                continue
            m = st.st_mode
            if st_.S_ISCHR(m) or st_.S_ISBLK(m):
                out.append('device node in the workspace (%s)' % rel)
            if m & (st_.S_ISUID | st_.S_ISGID):
                pre = PREMADE.get(rel)
                same = False
                if pre is not None and st_.S_ISREG(m):
                    try:
                        same = open(fp).read() == PREMADE_TEXT and st_.S_IMODE(m) == pre
                    except OSError:
                        pass
                if not same:
                    out.append('setuid/setgid entry in the workspace (%s, mode %o, owner %d)'
                               % (rel, st_.S_IMODE(m), st.st_uid))
            try:
                if 'security.capability' in os.listxattr(fp, follow_symlinks=False):
                    out.append('file capability in the workspace (%s)' % rel)
            except OSError:
                pass
    return out


def run_one(env, sbxsup, attack, mode, idx, off=()):
    """One attack in one mode; `off`: layers the mode is not expected to have here (layers_off)."""
    env.reset()
    if attack.setup == 'setuid-files':
        setup_premade(env)
    env.planted = {}
    if attack.setup in ('dotenv', 'nested'):
        plant(env, env.dotenv if attack.setup == 'dotenv' else env.nested)
    before = env.snapshot()
    if attack.setup == 'abstract-squat':
        env.listener.squat_start()
    victim_pid = env.victim.pid
    marker = 'SBXESC_MARK_%s_%d' % (secrets.token_hex(4), idx)
    audit = os.path.join(env.audit, '%s.%s.jsonl' % (attack.name, mode))
    if os.path.exists(audit):
        os.unlink(audit)
    manifest = env.manifest(attack.manifest, attack)
    cmd = [sbxsup, 'run', '-m', manifest, '-w', env.ws, '-a', audit] + MODES[mode] + \
          ['--', os.path.join(env.bin, attack.name)] + env.params(marker)
    penv = {k: v for k, v in os.environ.items() if not k.startswith('SBXSUP_') or k in (
        'SBXSUP_PRELOAD_LIB', 'SBXSUP_LIBDIR')}
    penv.update({'HOME': env.home, 'AWS_SECRET_ACCESS_KEY': env.canary, 'MY_API_TOKEN': env.canary,
                 'SBXESC_SUP_SECRET': env.canary, 'LANG': 'C.UTF-8'})
    if attack.preload == 'unreadable':
        penv['SBXSUP_PRELOAD_LIB'] = env.unreadable_preload(sbxsup)
    t0 = time.monotonic()
    p = subprocess.Popen(cmd, cwd=env.ws, env=penv, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, start_new_session=True)
    late = None
    if attack.setup == 'dotenv-late':   # a secret that appears while the run is going on
        late = threading.Timer(1.0, plant, (env, env.lateenv))
        late.start()
    elif attack.setup == 'denied-binary':  # the same, an executable
        late = threading.Timer(1.0, plant_binary, (env, env.lateenv, os.path.join(env.bin, attack.name)))
        late.start()
    hung = False
    try:
        out, err = p.communicate(timeout=90)
    except subprocess.TimeoutExpired:
        hung = True
        os.killpg(p.pid, signal.SIGKILL)
        out, err = p.communicate()
    dur = time.monotonic() - t0
    if late:
        late.join()
    rc = p.returncode
    env.listener.squat_stop()
    survivors = pgrep(marker)
    for pid in survivors:          # descendants of the run we started: ours to kill
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass
    after = env.snapshot()
    out_s = out.decode('utf-8', 'replace')
    err_s = err.decode('utf-8', 'replace')
    evidence = []
    if env.canary in out_s:
        evidence.append('canary on stdout')
    if env.canary in err_s:
        evidence.append('canary on stderr')
    for dp, _, fs in os.walk(env.ws):
        for fn in fs:
            fp = os.path.join(dp, fn)
            try:
                if os.path.islink(fp) or os.path.getsize(fp) > (4 << 20) or fp in env.planted:
                    continue
                with open(fp, 'rb') as f:
                    if env.canary.encode() in f.read():
                        evidence.append('canary copied to workspace (%s)' % fn)
            except OSError:
                pass
    if before['target'] != after['target']:
        evidence.append('target file changed')
    if before['rotarget'] != after['rotarget'] or before['rodir'] != after['rodir']:
        evidence.append('read-only target changed (content, mode, owner, times or xattrs)')
    if before['secret'] != after['secret']:
        evidence.append('secret changed (mode, owner, times, xattrs or link count)')
    if before['outside'] != after['outside']:
        evidence.append('files planted outside: %s' % sorted(set(after['outside']) ^ set(before['outside'])))
    if before['sshdir'] != after['sshdir']:
        evidence.append('~/.ssh changed')
    if os.path.lexists(env.syswrite):
        evidence.append('file planted in /etc')
    for fp, text in env.planted.items():
        try:
            with open(fp, 'rb') as f:
                same = f.read() == text
        except OSError:
            same = False
        if not same:
            evidence.append('denied file changed or removed (%s)' % os.path.relpath(fp, env.dir))
    evidence += privilege_evidence(env)
    if after['hits'] != before['hits']:
        evidence.append('listener reached (%d)' % (after['hits'] - before['hits']))
    if env.victim.pid != victim_pid or not env.victim_alive():
        evidence.append('victim process killed')
    if survivors:
        evidence.append('%d process(es) of the run survived it' % len(survivors))
    events, badlines = read_events(audit)
    try:
        if 'SBXESC_FORGED' in open(audit, encoding='utf-8', errors='replace').read():
            evidence.append('forged line in the audit stream')
    except OSError:
        pass
    error = None
    refused = bool(attack.refusal) and rc == 125 and attack.refusal in err_s
    if hung:
        error = 'run hung (killed after 90 s)'
    elif rc in (125, 126, 127) and not refused:
        error = 'sbxsup exit %d: %s' % (rc, err_s.strip().splitlines()[-1][:200] if err_s.strip() else '')
    elif not any(e.get('event') == 'run.start' for e in events):
        error = 'no run.start in the audit stream (exit %d)' % rc
    layers = next((e.get('layers') for e in events if e.get('event') == 'run.start'), None)
    level = next((e.get('level') for e in events if e.get('event') == 'run.start'), None) or {}
    if not error and not refused and isinstance(layers, dict):
        # the mode must really be what it claims: every layer it asks for is active
        want = ALL_LAYERS if not MODES[mode] else MODES[mode][1].split(',')
        want = [l for l in want if l not in off]
        if attack.static:
            # a static initial command cannot load the preload: sbxsup rightly records it off
            want = [l for l in want if l != 'preload']
        if attack.manifest == 'netany':
            # an unrestricted network leaves netfilter no allowlist to enforce: rightly off
            want = [l for l in want if l != 'netfilter']
        off = [l for l in want if layers.get(l) is not True]
        if off:
            why = next((e.get('why') for e in events if e.get('event') == 'run.start'), {}) or {}
            error = 'mode %s ran without %s (%s)' % (mode, ', '.join(off),
                                                     '; '.join('%s: %s' % (l, why.get(l, '?')) for l in off))
    escaped = rc == 0 or bool(evidence)
    sec = []
    for e in events:
        if e.get('event') in SECURITY_EVENTS:
            lab = ev_label(e)
            if lab not in sec:
                sec.append(lab)
    return {'rc': rc, 'evidence': evidence, 'escaped': escaped, 'error': error, 'events': events,
            'sec': sec, 'layers': layers, 'level': level, 'dur': dur, 'badlines': badlines,
            'stderr': err_s[-400:]}


RAW_PROFILES = ('fs-raw', 'exec-raw', 'net-raw')
ERRNO_NAMES = {1: 'EPERM', 2: 'ENOENT', 13: 'EACCES', 38: 'ENOSYS', 97: 'EAFNOSUPPORT'}


def blocked_by(r):
    """The layers that refused the attack, as the stream says: each refusing event names its layer;
    a probe's `contained` report names none, so its errno and the run's layers decide."""
    L = r['layers'] or {}
    out = []
    for e in r['events']:
        n, who = e.get('event'), None
        if n in ('preload.deny', 'seccomp.deny', 'netfilter.deny', 'landlock.deny'):
            who = n.split('.')[0]
        elif n == 'env.drop':
            who = 'env filter'
        elif n == 'limit.hit':
            who = 'limits'
        elif n in ('net.deny', 'dns.deny'):
            who = 'gateway'
        elif n == 'kernel.violation' and e.get('outcome') == 'attempted':
            # the report-only sensor let the call go on: the active silent layers (or the
            # executor's identity) refused it; the sensor did not see which
            sl = [l for l in ('bwrap', 'landlock') if L.get(l)]
            who = ('/'.join(sl) if sl else 'identity/DAC') + ' (sensor: result unseen)'
        elif n == 'kernel.violation' and e.get('outcome') == 'contained':
            err = e.get('errno')
            if e.get('sensor') == 'seccomp-notify':
                who = 'seccomp'
            elif err == 2 and L.get('bwrap'):
                who = 'bwrap (not mounted)'
            elif err == 13 and L.get('landlock'):
                who = 'landlock'
            elif err == 30 and L.get('bwrap'):
                who = 'bwrap (read-only)'
            else:
                who = 'kernel (%s)' % ERRNO_NAMES.get(err, 'errno %s' % err)
        if who and who not in out:
            out.append(who)
    return out


def reported_by(r):
    """Who wrote the attack's events: the event's layer, and the sensor for kernel.violation."""
    out = []
    for e in r['events']:
        n = e.get('event')
        if n not in SECURITY_EVENTS and n != 'landlock.deny':
            continue
        if n == 'kernel.violation':
            who = 'seccomp-notify' if e.get('sensor') == 'seccomp-notify' else 'probes'
        elif n == 'env.drop':
            who = 'supervisor'
        elif n == 'limit.hit':
            who = 'limits'
        elif n in ('net.deny', 'dns.deny'):
            who = 'gateway'
        else:
            who = n.split('.')[0]
        if who not in out:
            out.append(who)
    return out


def reporters(attack, r):
    """The active layers of a run that report this class of attack (so a block with no event there
    is 'blocked but silent'): the preload for libc-level attacks of a program it is loaded into;
    seccomp with user notification for system calls, processes, sockets and exec (and files when
    its file reporter or metadata rule is on); the probes for everything; netfilter for network."""
    L = r['layers'] or {}
    lv = r.get('level') or {}
    out = []
    if L.get('preload') and attack.profile in ('fs', 'exec', 'net', 'env'):
        out.append('preload')   # libc-level attacks only: raw calls, signals, limits pass beside it
    sc = str(lv.get('seccomp', ''))
    if L.get('seccomp') and 'notify' in sc and not sc.startswith('errno'):
        if attack.profile in ('syscall', 'proc', 'net', 'net-raw', 'exec', 'exec-raw') or \
                'reporter' in sc or (attack.family == 'metadata' and 'metadata' in sc):
            out.append('seccomp')
    if L.get('probes'):
        out.append('probes')
    # the report-only sensor (seccomp and probes off): files, exec, metadata, sockets and
    # connects, escape-class system calls — the seccomp layer's classes, nothing refused
    if str(lv.get('sensor', '')).startswith('seccomp-notify') and \
            (attack.profile in ('fs', 'fs-raw', 'exec', 'exec-raw', 'net', 'net-raw', 'syscall', 'proc')
             or attack.family == 'metadata'):
        out.append('sensor')
    if L.get('netfilter') and attack.profile in ('net', 'net-raw'):
        out.append('netfilter')
    return out


def container_ok(attack):
    """A blocked cell without its event is declared acceptable in this container run."""
    return IN_CONTAINER and ('container' in attack.silent_ok or
                             (ROOT_RUN and 'container-root' in attack.silent_ok))


def silent(attack, mode, r):
    """'' or why this cell is blocked but silent."""
    if r is None or r['error'] or r['escaped'] or r['sec']:
        return ''
    rep_ = reporters(attack, r)
    if not rep_:
        return ''
    if mode in attack.silent_ok or '' in attack.silent_ok:
        return ''
    if container_ok(attack):
        return ''
    return 'blocked but silent (%s active)' % ', '.join(rep_)


def judge(attack, mode, r):
    """-> (status, message); status in PASS, FAIL, or None (not asserted)."""
    exp = attack.expect.get(mode)
    sil = silent(attack, mode, r)
    if exp is None:
        return ('FAIL', sil) if sil else (None, '')
    if sil and not r['error']:
        return 'FAIL', sil
    kind, alts = exp
    want = '|'.join(n + ('(%s)' % ','.join(c) if c else '') for n, c in alts) or 'none'
    seen = ', '.join(r['sec']) or 'none'
    if r['error']:
        return 'FAIL', r['error']
    got = (not alts) or events_match(r['events'], alts)
    what = ('ESCAPED (exit %d%s)' % (r['rc'], '; ' + '; '.join(r['evidence']) if r['evidence'] else '')
            if r['escaped'] else 'blocked (exit %d)' % r['rc'])
    if kind == 'blocked':
        if r['escaped']:
            return 'FAIL', '%s; events seen: %s' % (what, seen)
        if not got and container_ok(attack):
            return 'PASS', ''  # declared: silent-ok-container[-root]
        if not got:
            return 'FAIL', '%s but no expected event (want %s; seen %s)' % (what, want, seen)
        return 'PASS', ''
    # blocked-or-reported
    if got:
        return 'PASS', ''
    if not alts and not r['escaped']:
        return 'PASS', ''
    return 'FAIL', '%s; not reported (want %s; seen %s)' % (what, want, seen)


def cell(attack, mode, r, status):
    if r is None:
        return ''
    if r['error']:
        txt = 'error: ' + r['error'][:60]
    else:
        ev = ', '.join(r['sec'])
        rb = '+'.join(reported_by(r))
        if r['escaped']:
            txt = ('**ESCAPED**, reported by %s: %s' % (rb, ev)) if ev else '**ESCAPED**'
        elif ev:
            bb = '+'.join(blocked_by(r)) or 'kernel (no refusing event)'
            txt = 'blocked by %s; reported by %s: %s' % (bb, rb, ev)
        elif silent(attack, mode, r):
            txt = '**blocked, SILENT**'
        elif mode in attack.silent_ok or '' in attack.silent_ok:
            txt = 'blocked, no event (declared: %s)' % (attack.silent_ok.get(mode) or attack.silent_ok.get(''))[:80]
        else:
            txt = 'blocked, no event (no reporting layer for this class in this mode)'
    if status == 'FAIL':
        txt += ' ✗'
    elif status == 'PASS':
        txt += ' ✓'
    elif r['escaped'] or r['error']:
        txt += ' (not covered by this layer)'
    return txt.replace('|', '\\|')


def write_matrix(path, attacks, modes, results, asserted, layers_by_mode, sbxsup):
    by_name = {a.name: a for a in attacks}
    ver = subprocess.run([sbxsup, '--version'], capture_output=True, text=True).stdout.strip()
    lines = ['# Escape matrix', '',
             'Generated by `make escape-matrix` (`tests/escape/run.sh --matrix docs/escape-matrix.md`) '
             'on %s, kernel %s, %s. Do not edit: regenerate.' % (
                 time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime()), os.uname().release, ver or 'sbxsup'),
             '',
             'Each attack (`tests/escape/attacks/<family>/<name>.c`) exits 0 when it succeeds; the runner also '
             'looks for its own evidence (canary leaked, target changed, listener reached, victim killed, '
             'process survived the run). A cell says whether the attack was **blocked** or **ESCAPED**, '
             '**which layer blocked it** and **which reported it**, both read from the run\'s audit stream: '
             'the refusing event names its layer (`preload.deny` preload, `seccomp.deny` and `kernel.violation` '
             'with `sensor: seccomp-notify` seccomp, `netfilter.deny` netfilter, `env.drop` the env filter, '
             '`limit.hit` limits); a probe\'s `contained` report names none, so its errno and the run\'s layers '
             'say which (ENOENT under bwrap: not mounted; EACCES under Landlock: Landlock; else the kernel\'s '
             'own answer — DAC, the executor\'s identity); "reported by" is the event\'s layer or sensor '
             '(`probes` for the BPF probes). **blocked, SILENT** = blocked with no event although a layer '
             'that reports this class of attack was active — a finding: the generator and the test suite fail '
             'on it unless the attack declares why (`silent-ok`, shown in the cell). "no reporting layer for '
             'this class in this mode" = only silent layers (bwrap, Landlock, limits, identity) were selected '
             'and the report-only sensor does not cover the class (or was off: `run.start.level.sensor`). '
             'With neither seccomp nor the probes on, the report-only sensor (`kernel.violation` '
             '`sensor: seccomp-notify`, `outcome: attempted`) reports what the silent layers refuse; it lets '
             'the call go on, so the blocking layer is inferred from the active ones ("result unseen"). '
             '✓ = the declared expectation for that mode holds, ✗ = it does not '
             '(a finding), no mark = not asserted in that mode ("not covered by this layer" when the attack '
             'got through). Modes: `full` = default layers; `preload-only` = `--layers preload,probes`; '
             '`no-bwrap` = `--layers preload,seccomp,landlock,netfilter,probes`; the others = that layer alone.',
             '',
             'The `deny` family (a manifest `deny`, floating `**/.env` or nested under a read grant) is decided '
             'per cell as docs/layers.md ("A manifest deny, layer by layer") says: through libc the preload; '
             'below libc the seccomp deny decision (`kernel.violation` `sensor: seccomp-notify` `contained`, '
             'rule `deny[N]`, critical), for a match that existed at start and one created during the run: '
             'the seccomp layer\'s filter with seccomp on (`full`, `no-bwrap`, `seccomp`), the report-only '
             'sensor\'s with it and the probes off (`bwrap`, `landlock`, `preload`, `netfilter`, `limits`: '
             'in front of the bwrap mask and the Landlock rules made at start), the privilege guard\'s '
             'where neither is installed (`preload-only`, `probes`); only without user notification '
             '(not in this matrix) does nothing hold a match created later (`run.start.level.deny`); '
             'io_uring is refused whole (seccomp, the sensor, the guard).',
             '', '## Layers active per mode (from run.start)', '', '| mode | active layers |', '|---|---|']
    for m in modes:
        l = layers_by_mode.get(m)
        lines.append('| %s | %s |' % (m, ', '.join(k for k, v in sorted(l.items()) if v) if l else '?'))
    npass = sum(1 for v in asserted.values() if v == 'PASS')
    nfail = sum(1 for v in asserted.values() if v == 'FAIL')
    nsil = sum(1 for (n, m), r in results.items() if silent(by_name[n], m, r))
    lines += ['', '## Summary', '', '%d attacks, %d asserted (attack, mode) pairs: %d hold, %d do not. '
              'Blocked-but-silent cells: %d.'
              % (len(attacks), npass + nfail, npass, nfail, nsil), '']
    for m in modes:
        ran = [a for a in attacks if (a.name, m) in results]
        if not ran:
            continue
        esc = sum(1 for a in ran if results[(a.name, m)]['escaped'])
        sil = sum(1 for a in ran if silent(a, m, results[(a.name, m)]))
        lines.append('- `%s`: %d run, %d blocked, %d escaped, %d blocked but silent' % (m, len(ran), len(ran) - esc,
                                                                                  esc, sil))
    lines += ['', '## Matrix', '', '| family | attack | ' + ' | '.join(modes) + ' |',
              '|---|---|' + '---|' * len(modes)]
    for a in attacks:
        row = [a.family, '`%s`' % a.name]
        for m in modes:
            row.append(cell(a, m, results.get((a.name, m)), asserted.get((a.name, m))))
        lines.append('| ' + ' | '.join(row) + ' |')
    lines += ['', '## Attacks', '']
    for a in attacks:
        lines.append('- `%s/%s` — %s' % (a.family, a.name, a.summary))
    with open(path, 'w', encoding='utf-8') as f:
        f.write('\n'.join(lines) + '\n')


def main():
    ap = argparse.ArgumentParser(description='escape corpus runner')
    ap.add_argument('--mode', action='append', default=[],
                    help='mode(s) to run (repeatable, comma lists ok): ' + ', '.join(MODES))
    ap.add_argument('--matrix', help='run every attack in every mode and write the Markdown matrix here')
    ap.add_argument('--only', action='append', default=[], help='attack name (glob) or family/ (repeatable)')
    ap.add_argument('--list', action='store_true', help='list attacks and expectations, run nothing')
    ap.add_argument('-j', '--jobs', type=int, default=int(os.environ.get('ESC_JOBS', '2')),
                    help='runs in parallel, each with its own canaries/listeners/victim (default 2)')
    ap.add_argument('--deny-overlay', action='store_true',
                    help='every manifest also carries a deny matching nothing (the deny-routed path)')
    ap.add_argument('-v', '--verbose', action='store_true')
    o = ap.parse_args()
    global deny_overlay
    deny_overlay = o.deny_overlay

    modes = []
    for m in o.mode:
        for x in m.split(','):
            if x not in MODES:
                ap.error('unknown mode %r (modes: %s)' % (x, ', '.join(MODES)))
            modes.append(x)
    b = os.environ.get('B', 'build')
    sbxsup = os.environ.get('SBXSUP') or os.path.join(ROOT, b, 'sbxsup')
    bindir = os.path.join(ROOT, b, 'escape', 'bin') if not os.path.isabs(b) else os.path.join(b, 'escape', 'bin')

    attacks = []
    for dp, _, fs in sorted(os.walk(ATTACKS)):
        for fn in sorted(fs):
            if fn.endswith('.c'):
                attacks.append(Attack(os.path.join(dp, fn)))
    attacks.sort(key=lambda a: (a.family, a.name))
    if o.only:
        attacks = [a for a in attacks if any(fnmatch.fnmatch(a.name, p) or a.family + '/' == p or
                                             a.name == p for p in o.only)]
    if o.list:
        for a in attacks:
            print('%s/%s  profile=%s manifest=%s%s' % (a.family, a.name, a.profile, a.manifest,
                                                     ' static' if a.static else ''))
            for m, (k, alts) in a.expect.items():
                print('    %-13s %s; %s' % (m, k, '|'.join(n + ('(%s)' % ','.join(c) if c else '')
                                                          for n, c in alts) or 'none'))
        print('%d attacks' % len(attacks))
        return 0
    if not ROOT_RUN:
        nroot = sum(1 for a in attacks if not a.as_user)
        attacks = [a for a in attacks if a.as_user]
        if nroot:
            print('SKIP: escape: %d attacks need root (BPF, root-owned canaries); running the %d marked as-user'
                  % (nroot, len(attacks)))
    if not os.access(sbxsup, os.X_OK):
        print('FAIL: escape: %s not built' % sbxsup)
        return 1
    off, off_why = layers_off(sbxsup)
    if IN_CONTAINER:
        print('# escape: in a container, layers not expected: %s'
              % ('; '.join('%s: %s' % (l, off_why[l]) for l in off) or 'none'), flush=True)
    for m in off:
        if m in modes:
            print('SKIP: escape: mode %s %s' % (m, off_why[m]))
    modes = [m for m in modes if m not in off]
    errs = build(attacks, bindir)
    for a, e in errs:
        print('FAIL: escape/build/%s: %s' % (a.name, e.splitlines()[0] if e else 'compile failed'))
    bad = {a.name for a, _ in errs}
    attacks_ok = [a for a in attacks if a.name not in bad]

    plan = []
    for a in attacks_ok:
        if o.matrix:
            ms = modes or list(MODES)
        else:
            ms = modes or ALWAYS + [m for m in MODES if m not in ALWAYS and m in a.expect]
        ms = [m for m in ms if m not in off]
        for m in ms:
            plan.append((a, m))
    results, asserted, layers_by_mode = {}, {}, {}
    lock = threading.Lock()
    jobs = max(1, min(o.jobs, len(plan) or 1))
    envs = [Env(bindir) for _ in range(jobs)]
    t0 = time.monotonic()
    counter = iter(range(len(plan)))

    done = set()      # plan indices that produced a result
    crashed = []      # (run name or None, traceback text): a worker's exception fails the run

    def one(env, i):
        a, m = plan[i]
        name = '%s/%s/%s' % ('escape+deny' if deny_overlay else 'escape', m, a.name)
        try:
            r = run_one(env, sbxsup, a, m, i, off)
            st, msg = judge(a, m, r)
        except Exception:
            tb = traceback.format_exc()
            with lock:
                crashed.append((name, tb))
                print('FAIL: %s: exception in the worker (traceback on stderr)' % name, flush=True)
                print('# escape: %s raised:\n%s' % (name, tb), file=sys.stderr, flush=True)
            return
        with lock:
            done.add(i)
            results[(a.name, m)] = r
            if r['layers'] and m not in layers_by_mode:
                layers_by_mode[m] = r['layers']
            if st:
                asserted[(a.name, m)] = st
                print(('PASS: %s' % name) if st == 'PASS' else ('FAIL: %s: %s' % (name, msg)), flush=True)
            elif o.verbose:
                print('# %s: %s' % (name, cell(a, m, r, None)), flush=True)
            if o.verbose and st == 'FAIL':
                print('#   stderr: %s' % r['stderr'].strip().replace('\n', '\n#   '), flush=True)

    def worker(env):
        try:
            while True:
                with lock:
                    i = next(counter, None)
                if i is None:
                    return
                one(env, i)
        except BaseException:  # outside a run (the lock, printing): still never silent
            tb = traceback.format_exc()
            with lock:
                crashed.append((None, tb))
            print('FAIL: escape: a worker thread died (traceback on stderr)', flush=True)
            print('# escape: worker thread raised:\n%s' % tb, file=sys.stderr, flush=True)

    try:
        threads = [threading.Thread(target=worker, args=(e,)) for e in envs]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        for e in envs:
            e.close()
    print('# escape: %d runs in %.0f s' % (len(plan), time.monotonic() - t0), file=sys.stderr)
    if o.matrix:
        allm = [m for m in MODES if any((a.name, m) in results for a in attacks_ok)]
        write_matrix(o.matrix, attacks_ok, allm, results, asserted, layers_by_mode, sbxsup)
        print('# matrix written to %s' % o.matrix, file=sys.stderr)
    nsil = [(n, m) for (n, m), r in results.items() if silent(next(a for a in attacks_ok if a.name == n), m, r)]
    if nsil:
        print('# escape: %d blocked-but-silent cell(s): %s' % (len(nsil), ', '.join('%s/%s' % x for x in sorted(nsil))),
              file=sys.stderr)
    if len(done) != len(plan):
        print('FAIL: escape: %d of %d scheduled runs gave a result (%d raised, see stderr)'
              % (len(done), len(plan), len(crashed)), flush=True)
    return 1 if (errs or nsil or crashed or len(done) != len(plan) or
                 any(v == 'FAIL' for v in asserted.values())) else 0


if __name__ == '__main__':
    sys.exit(main())
