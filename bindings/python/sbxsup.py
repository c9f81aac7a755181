"""sbxsup — run an untrusted tool executor under sbxsup from Python (standard library only).

A thin wrapper over the `sbxsup run` command line: it starts sbxsup with `--result` on a pipe of
its own and returns what the executor printed together with sbxsup's result record (run id,
verdict, counts by severity, exit status, refusal reason), so a runtime never parses stderr.

    import sbxsup
    r = sbxsup.run(["python3", "tool.py"], manifest="tool.json", stdin=b'{"q": 1}', timeout=30)
    if r.refused:            # sbxsup did not run the tool: r.reason_code says why
        ...
    elif r.verdict != "clean":
        ...                  # the tool tried something its manifest does not grant
    print(r.stdout, r.run_id, r.verdict)

A C program would use libsbxsup instead (supervisor/lib/sbxsup.h, `pkg-config --libs sbxsup`):
the same runs as calls, the same record from sbx_result_json(). This module deliberately does not
load it through ctypes: a library run acts on the whole calling process (it reaps and kills every
child of the process, blocks signals, becomes a subreaper), which a Python runtime with children
of its own cannot allow; a subprocess keeps those effects in sbxsup's own process.

Promise: run() never raises for what the executor did (a crash, a timeout, a denial); it raises
SbxsupError only when sbxsup itself could not be started or gave no result record. The result
record's schema is docs/result-record.md.

Shadow workspace (docs/shadow.md): run(..., shadow=True) keeps the executor's writes out of
the workspace; Result.shadow is the change set's summary, and shadow_diff / shadow_commit /
shadow_discard review and apply it (each runs `sbxsup shadow ...` with an argv, no shell):

    r = sbxsup.run(["python3", "tool.py"], manifest="tool.json", shadow=True)
    print(sbxsup.shadow_diff(r.run_id))
    if ok: sbxsup.shadow_commit(r.run_id)        # or some paths: shadow_commit(r.run_id, ["out/"])
    else:  sbxsup.shadow_discard(r.run_id)
"""

import json
import os
import selectors
import shutil
import socket
import struct
import subprocess
from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence, Union

__all__ = ["run", "Result", "SbxsupError", "find_sbxsup", "shadow_diff", "shadow_changes",
           "shadow_commit", "shadow_discard", "ShadowCommit"]


class SbxsupError(RuntimeError):
    """sbxsup could not be started, or ended without writing its result record."""


@dataclass
class Result:
    """One run: the executor's output and sbxsup's result record."""
    stdout: bytes
    stderr: bytes
    record: Dict[str, Any] = field(default_factory=dict)

    @property
    def run_id(self) -> Optional[str]:
        return self.record.get("run")

    @property
    def exit(self) -> int:
        return int(self.record.get("exit", 125))

    @property
    def verdict(self) -> str:
        return self.record.get("verdict", "clean")

    @property
    def refused(self) -> bool:
        return self.record.get("status") == "refused"

    @property
    def reason_code(self) -> Optional[str]:
        reason = self.record.get("reason") or {}
        return reason.get("code")

    @property
    def timed_out(self) -> bool:
        return bool(self.record.get("timeout"))

    @property
    def counts(self) -> Dict[str, int]:
        return dict(self.record.get("counts") or {})

    @property
    def shadow(self) -> Optional[Dict[str, Any]]:
        """--shadow: {run, store, mechanism, hash, count: {kind: n}, bytes}; None otherwise."""
        return self.record.get("shadow")


def find_sbxsup() -> str:
    """$SBXSUP, else `sbxsup` on PATH; raises SbxsupError when neither exists."""
    path = os.environ.get("SBXSUP") or shutil.which("sbxsup")
    if not path:
        raise SbxsupError("sbxsup not found: set $SBXSUP or put sbxsup on PATH")
    return path


def run(argv: Sequence[str], manifest: Optional[Union[str, os.PathLike]] = None,
        stdin: Optional[bytes] = None, timeout: Optional[float] = None,
        workspace: Optional[Union[str, os.PathLike]] = None,
        audit: Optional[Union[str, os.PathLike]] = None, tag: Optional[str] = None,
        layers: Optional[str] = None, require: Optional[str] = None,
        extra_args: Sequence[str] = (), sbxsup: Optional[str] = None,
        env: Optional[Dict[str, str]] = None, shadow: bool = False,
        server: Optional[Union[str, os.PathLike]] = None) -> Result:
    """Run argv under sbxsup and return its Result.

    manifest: the executor's manifest file (None: sbxsup's built-in default manifest).
    stdin: bytes given to the executor on its standard input (None: empty).
    timeout: wall-clock limit in seconds (sbxsup kills the whole run; Result.timed_out is then true).
    workspace, audit, tag, layers, require: the `sbxsup run` options of the same names.
    env: the environment sbxsup itself starts with (the executor's is built from the manifest).
    server: the socket of a running `sbxsup serve --socket PATH`: the call goes there (no sbxsup
    process is started; the protocol is spoken directly, see docs/serve.md).
    shadow: `--shadow`: the executor's writes land in a per-run store; see shadow_diff/commit/discard.
    """
    if not argv:
        raise ValueError("argv is empty")
    cmd: List[str] = [(sbxsup or find_sbxsup()) if server is None else "", "run"]
    if manifest is not None:
        cmd += ["-m", os.fspath(manifest)]
    if workspace is not None:
        cmd += ["-w", os.fspath(workspace)]
    if audit is not None:
        cmd += ["-a", os.fspath(audit)]
    if tag is not None:
        cmd += ["--tag", tag]
    if layers is not None:
        cmd += ["--layers", layers]
    if require is not None:
        cmd += ["--require", require]
    if timeout is not None:
        cmd += ["--timeout", repr(float(timeout))]
    if shadow:
        cmd += ["--shadow"]
    if server is not None:
        return _call_server(os.fspath(server), ["run", *cmd[2:], *extra_args, "--", *argv], stdin,
                            os.environ if env is None else env, timeout)
    rd, wr = os.pipe()
    try:
        cmd += ["--result", str(wr), *extra_args, "--", *argv]
        try:
            proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                    stderr=subprocess.PIPE, pass_fds=(wr,), env=env)
        except OSError as e:
            raise SbxsupError("cannot start sbxsup: %s" % e) from e
        os.close(wr)
        wr = -1
        # sbxsup enforces the timeout itself; ours only guards against a wedged supervisor.
        guard = None if timeout is None else float(timeout) + 30.0
        try:
            out, err = proc.communicate(stdin or b"", timeout=guard)
        except subprocess.TimeoutExpired:
            proc.kill()
            out, err = proc.communicate()
        with os.fdopen(rd, "rb") as f:
            rd = -1
            raw = f.read()
    finally:
        for fd in (rd, wr):
            if fd >= 0:
                os.close(fd)
    try:
        record = json.loads(raw.decode("utf-8")) if raw.strip() else None
    except (UnicodeDecodeError, ValueError) as e:
        raise SbxsupError("unreadable result record: %s" % e) from e
    if not isinstance(record, dict):
        raise SbxsupError("sbxsup wrote no result record (exit %s): %s"
                          % (proc.returncode, err.decode("utf-8", "replace").strip()[-400:]))
    return Result(stdout=out, stderr=err, record=record)


# ---- the `sbxsup serve` protocol (supervisor/serve/serve_proto.h; docs/serve.md) ----------
_SERVE_VERSION = 1
_SERVE_REQ_MAX = 128 * 1024
_SERVE_REP_MAX = 64 * 1024


def _serve_request(args: Sequence[str], env: Dict[str, str], targets: Sequence[int]) -> bytes:
    envl = ["%s=%s" % (k, v) for k, v in env.items() if k and "=" not in k]
    body = b"".join(os.fsencode(a) + b"\0" for a in args) + b"".join(os.fsencode(e) + b"\0" for e in envl)
    msg = (b"SBXQ" + struct.pack("=IIIII", _SERVE_VERSION, 0, len(args), len(envl), len(targets))
           + b"".join(struct.pack("=i", t) for t in targets) + body)
    if len(msg) > _SERVE_REQ_MAX:
        raise SbxsupError("the call (arguments + environment) is larger than %d bytes" % _SERVE_REQ_MAX)
    return msg


def _call_server(path: str, args: List[str], stdin: Optional[bytes], env: Dict[str, str],
                 timeout: Optional[float]) -> Result:
    """One call to `sbxsup serve`: stdio on pipes, the working directory and the arguments passed;
    the reply is the exit status and the result record."""
    fds: List[int] = []
    try:
        cwd = os.open(".", os.O_PATH | os.O_DIRECTORY | os.O_CLOEXEC)
        fds.append(cwd)
        in_r, in_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        fds += [in_r, in_w, out_r, out_w, err_r, err_w]
        msg = _serve_request(args, env, [-1, 0, 1, 2])
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            sock.connect(path)
        except OSError as e:
            sock.close()
            raise SbxsupError("cannot connect to the server at %s: %s" % (path, e)) from e
        with sock:
            try:
                sock.sendmsg([msg], [(socket.SOL_SOCKET, socket.SCM_RIGHTS,
                                      struct.pack("4i", cwd, in_r, out_w, err_w))])
            except OSError:
                pass  # a refusing server replies and closes at once: read its reply below
            for fd in (cwd, in_r, out_w, err_w):   # the run holds its own copies now
                os.close(fd)
                fds.remove(fd)
            reply = _serve_pump(sock, in_w, stdin or b"", out_r, err_r, fds,
                                None if timeout is None else float(timeout) + 30.0)
    finally:
        for fd in fds:
            os.close(fd)
    if reply is None or len(reply[0]) < 16 or reply[0][:4] != b"SBXR":
        raise SbxsupError("the server at %s closed the call without a reply" % path)
    rep, out, err = reply
    version, code, reclen = struct.unpack("=IiI", rep[4:16])
    if version != _SERVE_VERSION or reclen != len(rep) - 16:
        raise SbxsupError("unreadable reply from the server (protocol version %d)" % version)
    try:
        record = json.loads(rep[16:].decode("utf-8")) if reclen else {"exit": code}
    except (UnicodeDecodeError, ValueError) as e:
        raise SbxsupError("unreadable result record: %s" % e) from e
    return Result(stdout=out, stderr=err, record=record)


def _serve_pump(sock, in_w, data, out_r, err_r, fds, guard):
    """Feed stdin, collect stdout/stderr and the reply; returns (reply, out, err) or None."""
    sel = selectors.DefaultSelector()
    bufs = {out_r: bytearray(), err_r: bytearray()}
    os.set_blocking(in_w, False)
    sel.register(sock, selectors.EVENT_READ)
    sel.register(out_r, selectors.EVENT_READ)
    sel.register(err_r, selectors.EVENT_READ)
    if data:
        sel.register(in_w, selectors.EVENT_WRITE)
    else:
        os.close(in_w)
        fds.remove(in_w)
    reply = None
    got_reply = False
    try:
        while len(sel.get_map()) > 0:
            ready = sel.select(guard)
            if not ready:
                return None
            for key, _ in ready:
                fd = key.fileobj
                if fd is sock:
                    try:
                        reply = sock.recv(_SERVE_REP_MAX)
                    except OSError:
                        reply = b""
                    got_reply = True
                    sel.unregister(sock)
                elif fd == in_w:
                    try:
                        n = os.write(in_w, data)
                    except BrokenPipeError:
                        n = len(data)
                    data = data[n:]
                    if not data:
                        sel.unregister(in_w)
                        os.close(in_w)
                        fds.remove(in_w)
                else:
                    chunk = os.read(fd, 65536)
                    if chunk:
                        bufs[fd] += chunk
                    else:
                        sel.unregister(fd)
            if got_reply and in_w in fds and in_w in [k.fileobj for k in sel.get_map().values()]:
                sel.unregister(in_w)   # the run is over: nobody reads its stdin any more
    finally:
        sel.close()
    return reply, bytes(bufs[out_r]), bytes(bufs[err_r])
# ---- shadow workspace ------------------------------------------------------------------------------

@dataclass
class ShadowCommit:
    """What `sbxsup shadow commit` did: the committed lines, and the refused ones with their reasons."""
    exit: int
    committed: List[str]
    refused: List[str]

    @property
    def ok(self) -> bool:
        return self.exit == 0


def _shadow(args: Sequence[str], sbxsup: Optional[str], env: Optional[Dict[str, str]]):
    try:
        return subprocess.run([sbxsup or find_sbxsup(), "shadow", *args], capture_output=True, env=env)
    except OSError as e:
        raise SbxsupError("cannot start sbxsup: %s" % e) from e


def shadow_diff(run_id: str, sbxsup: Optional[str] = None, env: Optional[Dict[str, str]] = None) -> str:
    """The change list and unified diff of a --shadow run (as `sbxsup shadow diff RUN` prints it)."""
    p = _shadow(["diff", run_id], sbxsup, env)
    if p.returncode != 0:
        raise SbxsupError(p.stderr.decode("utf-8", "replace").strip())
    return p.stdout.decode("utf-8", "replace")


def shadow_changes(run_id: str, sbxsup: Optional[str] = None,
                   env: Optional[Dict[str, str]] = None) -> Dict[str, Any]:
    """The change set as data (`sbxsup shadow diff --json RUN`): hash, count, bytes, entries."""
    p = _shadow(["diff", "--json", run_id], sbxsup, env)
    if p.returncode != 0:
        raise SbxsupError(p.stderr.decode("utf-8", "replace").strip())
    return json.loads(p.stdout.decode("utf-8"))


def shadow_commit(run_id: str, paths: Sequence[Union[str, os.PathLike]] = (), audit: Optional[str] = None,
                  sbxsup: Optional[str] = None, env: Optional[Dict[str, str]] = None,
                  allow_world_writable: bool = False) -> ShadowCommit:
    """Apply a --shadow run's changes (all, or those at or below paths). Never raises for a refused
    change (a conflict, a symlink, a device, a setuid or newly world-writable entry...): see
    ShadowCommit.refused (its lines name paths quoted, as `sbxsup shadow commit` prints them);
    allow_world_writable: `--allow-world-writable` (audited). Raises SbxsupError when nothing could
    be done (unknown run, ...)."""
    args = (["commit"] + (["-a", audit] if audit else []) + (["--allow-world-writable"] if allow_world_writable else [])
            + [run_id] + [os.fspath(p) for p in paths])
    p = _shadow(args, sbxsup, env)
    if p.returncode not in (0, 1):
        raise SbxsupError(p.stderr.decode("utf-8", "replace").strip())
    out = p.stdout.decode("utf-8", "replace").splitlines()
    err = p.stderr.decode("utf-8", "replace").splitlines()
    return ShadowCommit(exit=p.returncode, committed=[l for l in out if l.startswith("committed ")],
                        refused=[l for l in err if "refused " in l])


def shadow_discard(run_id: str, sbxsup: Optional[str] = None, env: Optional[Dict[str, str]] = None) -> None:
    """Remove a --shadow run's kept changes."""
    p = _shadow(["discard", run_id], sbxsup, env)
    if p.returncode != 0:
        raise SbxsupError(p.stderr.decode("utf-8", "replace").strip())
